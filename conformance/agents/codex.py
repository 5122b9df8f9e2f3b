"""Codex CLI (`@openai/codex`): OpenAI Responses through a `model_providers` entry,
rollout JSONL under $CODEX_HOME/sessions/YYYY/MM/DD/."""


from agents.common import (  # noqa: F401
    ALL_SCENARIOS, calls_in, command_of, describe, files_under, first_event_field, jsonl, results_in)

NAME = "codex"
PACKAGE = "@openai/codex"
TOOLCHECK_AGENT = "codex"
DIALECT = "responses"
MODEL = "gpt-5.1-codex"
# Codex names its shell tool by model family and version; the provider answers with the one offered.
SHELL_TOOLS = ["exec_command", "shell_command", "shell"]
SCENARIOS = ALL_SCENARIOS
COMPACT_PROMPT = None
SCENARIOS_SKIPPED = {"compaction": "`codex exec` has no slash commands: `/compact` goes to the model as text"}


def make_call(dialect, command, offered):
    if "exec_command" in offered:
        return "exec_command", {"cmd": command}
    if "shell_command" in offered:
        return "shell_command", {"command": command}
    return "shell", {"command": ["bash", "-lc", command]}


def env(home, work, base_url):
    return {"CODEX_HOME": str(home / ".codex"), "CONF_API_KEY": "fake", "RUST_LOG": "warn"}


def setup(home, work, base_url):
    codex_home = home / ".codex"
    codex_home.mkdir(parents=True, exist_ok=True)
    (codex_home / "config.toml").write_text(f"""model = "{MODEL}"
model_provider = "conformance"
check_for_update_on_startup = false

[model_providers.conformance]
name = "conformance"
base_url = "{base_url}/v1"
wire_api = "responses"
env_key = "CONF_API_KEY"
request_max_retries = 1
stream_max_retries = 1

[analytics]
enabled = false

[feedback]
enabled = false

[otel]
exporter = "none"

[projects."{work}"]
trust_level = "trusted"
""")


COMMON = ["--skip-git-repo-check", "--dangerously-bypass-approvals-and-sandbox", "--json"]


def start_cmd(prompt, work, session_uuid):
    return ["codex", "exec", *COMMON, "-C", str(work), prompt]


def resume_cmd(session_id, prompt, work):
    return ["codex", "exec", "resume", *COMMON, session_id, prompt]


def session_files(home):
    return files_under(home / ".codex" / "sessions", "*/*/*/rollout-*.jsonl")


def session_id(home, stdout, session_uuid):
    found = first_event_field(stdout, "thread_id")
    if found:
        return found
    for f in session_files(home):
        for row in jsonl(f)[:1]:
            if row.get("type") == "session_meta":
                return row["payload"].get("id")
    return None


def versions(files):
    found = sorted({row["payload"].get("cli_version") for f in files for row in jsonl(f)
                    if row.get("type") == "session_meta" and row["payload"].get("cli_version")})
    return {"where": "`session_meta.payload.cli_version`", "values": found}


def stored_calls(files):
    stored = {}
    for f in files:
        for row in jsonl(f):
            payload = row.get("payload") or {}
            if row.get("type") != "response_item":
                continue
            kind = payload.get("type", "")
            if kind in ("function_call", "custom_tool_call", "local_shell_call"):
                stored.setdefault(payload.get("call_id"), {})
            elif kind.endswith("_output"):
                entry = stored.setdefault(payload.get("call_id"), {})
                entry["result"] = True
    return stored


def describe_files(files, issued):
    return describe(stored_calls(files), issued)
