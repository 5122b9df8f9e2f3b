"""Kimi Code CLI (PyPI `kimi-cli`): provider type `kimi` (OpenAI Chat Completions, streamed)
through KIMI_BASE_URL; sessions under ~/.kimi/sessions/<md5 of the work dir>/<id>/context.jsonl.
It writes a step's assistant message and its tool results together once every tool has
finished, so a kill during a tool stores nothing of that step."""

from agents.common import ALL_SCENARIOS, calls_in, command_of, describe, files_under, jsonl, results_in  # noqa: F401

NAME = "kimi-cli"
# From PyPI: conformance/.venvs/kimi-cli, built from pip/kimi-cli.lock (scripts/conformance.sh).
PACKAGE = None
PIP = "kimi-cli"
TOOLCHECK_AGENT = "kimi-cli"
DIALECT = "chat"
MODEL = "kimi-conf"
SHELL_TOOLS = ["Shell"]
SCENARIOS = ALL_SCENARIOS
COMPACT_PROMPT = None
SCENARIOS_SKIPPED = {"compaction": "`/compact` is an interactive command; `--print` sends it to the model as text"}


def make_call(dialect, command, offered):
    return "Shell", {"command": command, "timeout": 120}


def env(home, work, base_url):
    return {"KIMI_BASE_URL": base_url + "/v1", "KIMI_API_KEY": "fake", "KIMI_MODEL_NAME": MODEL,
            "KIMI_DISABLE_TELEMETRY": "1"}


def setup(home, work, base_url):
    kimi = home / ".kimi"
    kimi.mkdir(parents=True, exist_ok=True)
    (kimi / "config.toml").write_text(
        'default_model = "conf"\ntelemetry = false\n\n'
        f'[providers.conf]\ntype = "kimi"\nbase_url = "{base_url}/v1"\napi_key = "fake"\n\n'
        f'[models.conf]\nprovider = "conf"\nmodel = "{MODEL}"\nmax_context_size = 131072\n')


def start_cmd(prompt, work, session_uuid):
    return ["kimi", "--print", "-p", prompt]


def resume_cmd(session_id, prompt, work):
    return ["kimi", "--print", "--session", session_id, "-p", prompt]


def session_files(home):
    return files_under(home / ".kimi" / "sessions", "*/*/context.jsonl")


def session_id(home, stdout, session_uuid):
    files = session_files(home)
    return files[0].parent.name if files else None


def versions(files):
    return {"where": "not recorded (only the wire protocol's version)", "values": []}


def stored_calls(files):
    stored = {}
    for f in files:
        for row in jsonl(f):
            if row.get("role") == "assistant":
                for call in row.get("tool_calls") or []:
                    stored.setdefault(call.get("id"), {})
            elif row.get("role") == "tool":
                content = row.get("content")
                first = content if isinstance(content, str) else (
                    (content[0] or {}).get("text", "") if isinstance(content, list) and content else "")
                entry = stored.setdefault(row.get("tool_call_id"), {})
                entry.update(result=True, error=str(first).startswith("<system>ERROR"))
    return stored


def describe_files(files, issued):
    return describe(stored_calls(files), issued)
