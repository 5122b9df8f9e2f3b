"""Factory Droid (npm `@factory/cli-linux-x64`, the platform binary `@factory/cli` wraps): a
custom model in ~/.factory/settings.json with the Anthropic provider, offline; sessions under
~/.factory/sessions/<cwd with / as ->/<id>.jsonl. `droid exec -s <id>` first asks Factory's API
for the session and accepts a 404, so FACTORY_API_BASE_URL points at the fake provider, which
answers 404 off its model routes."""

from pathlib import Path

from agents.common import ALL_SCENARIOS, calls_in, command_of, describe, files_under, jsonl, results_in  # noqa: F401

NAME = "droid"
PACKAGE = "@factory/cli-linux-x64"
TOOLCHECK_AGENT = "droid"
DIALECT = "anthropic"
MODEL = "conf-claude"
SHELL_TOOLS = ["Execute"]
SCENARIOS = ALL_SCENARIOS
COMPACT_PROMPT = None
SCENARIOS_SKIPPED = {"compaction": "`droid exec` has no slash commands: `/compact` goes to the model as text"}
# The platform package has no `bin` link.
BINARY = str(Path(__file__).resolve().parent.parent / "node_modules" / "@factory" / "cli-linux-x64" / "bin" / "droid")
COMMON = ["exec", "--auto", "high", "-m", "custom:Conf-0"]


def make_call(dialect, command, offered):
    return "Execute", {"command": command, "riskLevel": "low", "riskLevelReason": "conformance step"}


def env(home, work, base_url):
    return {"FACTORY_API_BASE_URL": base_url, "FACTORY_OTEL_ENABLED": "false"}


def setup(home, work, base_url):
    factory = home / ".factory"
    factory.mkdir(parents=True, exist_ok=True)
    (factory / "settings.json").write_text(
        '{"customModels": [{"model": "%s", "displayName": "Conf", "baseUrl": "%s", "apiKey": "fake",'
        ' "provider": "anthropic", "maxOutputTokens": 4096}], "cloudSessionSync": false}\n' % (MODEL, base_url))


def start_cmd(prompt, work, session_uuid):
    return [BINARY, *COMMON, prompt]


def resume_cmd(session_id, prompt, work):
    return [BINARY, *COMMON, "-s", session_id, prompt]


def session_files(home):
    return files_under(home / ".factory" / "sessions", "*/*.jsonl")


def session_id(home, stdout, session_uuid):
    for f in session_files(home):
        for row in jsonl(f)[:1]:
            if row.get("type") == "session_start":
                return row.get("id")
    return None


def versions(files):
    return {"where": "not recorded (only `session_start.version`, the schema's)", "values": []}


def stored_calls(files):
    stored = {}
    for f in files:
        for row in jsonl(f):
            message = row.get("message") or {}
            for block in message.get("content") or []:
                if not isinstance(block, dict):
                    continue
                if block.get("type") == "tool_use":
                    stored.setdefault(block.get("id"), {})
                elif block.get("type") == "tool_result":
                    stored.setdefault(block.get("tool_use_id"), {}).update(
                        result=True, error=bool(block.get("is_error")))
    return stored


def describe_files(files, issued):
    return describe(stored_calls(files), issued)
