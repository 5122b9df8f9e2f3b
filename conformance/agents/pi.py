"""pi (`@mariozechner/pi-coding-agent`): a custom OpenAI-compatible provider in
~/.pi/agent/models.json; session JSONL under ~/.pi/agent/sessions/--<cwd>--/."""

import json

from agents.common import ALL_SCENARIOS, calls_in, command_of, describe, files_under, jsonl, results_in  # noqa: F401

NAME = "pi"
PACKAGE = "@mariozechner/pi-coding-agent"
TOOLCHECK_AGENT = "pi"
DIALECT = "chat"
MODEL = "conf-model"
SHELL_TOOLS = ["bash"]
SCENARIOS = ALL_SCENARIOS
COMPACT_PROMPT = None
SCENARIOS_SKIPPED = {"compaction": "`pi -p` sends `/compact` to the model as text"}


def make_call(dialect, command, offered):
    return "bash", {"command": command}


def env(home, work, base_url):
    return {"PI_CODING_AGENT_DIR": str(home / ".pi" / "agent"), "PI_OFFLINE": "1", "PI_TELEMETRY": "0",
            "PI_SKIP_VERSION_CHECK": "1"}


def setup(home, work, base_url):
    agent_dir = home / ".pi" / "agent"
    agent_dir.mkdir(parents=True, exist_ok=True)
    models = {"providers": {"conformance": {
        "baseUrl": base_url + "/v1", "api": "openai-completions", "apiKey": "fake",
        "compat": {"supportsDeveloperRole": False, "supportsReasoningEffort": False},
        "models": [{"id": MODEL}],
    }}}
    (agent_dir / "models.json").write_text(json.dumps(models, indent=1))
    (agent_dir / "settings.json").write_text(json.dumps({"enableInstallTelemetry": False}))


COMMON = ["-p", "--mode", "json", "--provider", "conformance", "--model", MODEL, "--no-extensions",
          "--no-skills", "--no-context-files"]


def start_cmd(prompt, work, session_uuid):
    return ["pi", *COMMON, prompt]


def resume_cmd(session_id, prompt, work):
    return ["pi", *COMMON, "--session", session_id, prompt]


def session_files(home):
    return files_under(home / ".pi" / "agent" / "sessions", "*/*.jsonl")


def session_id(home, stdout, session_uuid):
    for f in session_files(home):
        for row in jsonl(f)[:1]:
            if row.get("type") == "session":
                return row.get("id")
    return None


def versions(files):
    found = sorted({str(row["version"]) for f in files for row in jsonl(f)[:1] if row.get("version")})
    return {"where": "header line `version` (the session format's, not pi's)", "values": found}


def stored_calls(files):
    stored = {}
    for f in files:
        for row in jsonl(f):
            message = row.get("message") or {}
            if message.get("role") == "assistant":
                for block in message.get("content") or []:
                    if block.get("type") == "toolCall":
                        stored.setdefault(block.get("id"), {})
            elif message.get("role") == "toolResult":
                entry = stored.setdefault(message.get("toolCallId"), {})
                entry.update(result=True, error=bool(message.get("isError")))
    return stored


def describe_files(files, issued):
    return describe(stored_calls(files), issued)
