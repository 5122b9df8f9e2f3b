"""GitHub Copilot CLI (`@github/copilot`): its BYOK route (COPILOT_PROVIDER_BASE_URL with
COPILOT_OFFLINE, no GitHub login), OpenAI Chat Completions; events under
$COPILOT_HOME/session-state/<id>/events.jsonl."""

from agents.common import ALL_SCENARIOS, calls_in, command_of, describe, files_under, jsonl, results_in  # noqa: F401

NAME = "copilot-cli"
PACKAGE = "@github/copilot"
TOOLCHECK_AGENT = "copilot-cli"
DIALECT = "chat"
MODEL = "conf-model"
SHELL_TOOLS = ["bash", "shell"]
SCENARIOS = ALL_SCENARIOS + ("compaction",)
COMPACT_PROMPT = "/compact"
SCENARIOS_SKIPPED = {}


def make_call(dialect, command, offered):
    name = "bash" if "bash" in offered else "shell"
    return name, {"command": command, "description": "conformance step", "mode": "sync", "initial_wait": 120}


def env(home, work, base_url):
    return {
        "COPILOT_HOME": str(home / ".copilot"),
        "COPILOT_OFFLINE": "true",
        "COPILOT_PROVIDER_BASE_URL": base_url + "/v1",
        "COPILOT_PROVIDER_TYPE": "openai",
        "COPILOT_PROVIDER_API_KEY": "fake",
        "COPILOT_MODEL": MODEL,
        "COPILOT_PROVIDER_MAX_PROMPT_TOKENS": "128000",
        "COPILOT_PROVIDER_MAX_OUTPUT_TOKENS": "8192",
        "COPILOT_ALLOW_ALL": "1",
    }


def setup(home, work, base_url):
    (home / ".copilot").mkdir(parents=True, exist_ok=True)


COMMON = ["--allow-all", "--no-auto-update", "--disable-builtin-mcps", "--output-format", "json",
          "--disable-client-telemetry"]


def start_cmd(prompt, work, session_uuid):
    return ["copilot", *COMMON, "--session-id", session_uuid, "-p", prompt]


def resume_cmd(session_id, prompt, work):
    return ["copilot", *COMMON, f"--resume={session_id}", "-p", prompt]


def session_files(home):
    return files_under(home / ".copilot" / "session-state", "*/events.jsonl")


def session_id(home, stdout, session_uuid):
    for f in session_files(home):
        for row in jsonl(f)[:1]:
            if row.get("type") == "session.start":
                return row["data"].get("sessionId")
    return None


def versions(files):
    found = sorted({row["data"].get("copilotVersion") for f in files for row in jsonl(f)
                    if row.get("type") == "session.start" and row.get("data", {}).get("copilotVersion")})
    return {"where": "`session.start` `data.copilotVersion`", "values": found}


def stored_calls(files):
    stored = {}
    for f in files:
        for row in jsonl(f):
            data = row.get("data") or {}
            if row.get("type") == "assistant.message":
                for request in data.get("toolRequests") or []:
                    stored.setdefault(request.get("toolCallId"), {})
            elif row.get("type") == "tool.execution_complete":
                entry = stored.setdefault(data.get("toolCallId"), {})
                entry.update(result=True, error=not data.get("success", True))
    return stored


def describe_files(files, issued):
    return describe(stored_calls(files), issued)
