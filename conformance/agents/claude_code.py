"""Claude Code (`@anthropic-ai/claude-code`): Anthropic Messages, JSONL under ~/.claude/projects."""

import json

from agents.common import ALL_SCENARIOS, calls_in, command_of, describe, files_under, jsonl, results_in  # noqa: F401

NAME = "claude-code"
PACKAGE = "@anthropic-ai/claude-code"
TOOLCHECK_AGENT = "claude-code"
DIALECT = "anthropic"
MODEL = "claude-sonnet-4-5"
SHELL_TOOLS = ["Bash"]
SCENARIOS = ALL_SCENARIOS + ("compaction",)
COMPACT_PROMPT = "/compact"
SCENARIOS_SKIPPED = {}


def make_call(dialect, command, offered):
    return "Bash", {"command": command, "description": "conformance step"}


def env(home, work, base_url):
    return {
        "ANTHROPIC_BASE_URL": base_url,
        "ANTHROPIC_API_KEY": "fake",
        "CLAUDE_CONFIG_DIR": str(home / ".claude"),
        "DISABLE_TELEMETRY": "1",
        "DISABLE_AUTOUPDATER": "1",
        "DISABLE_ERROR_REPORTING": "1",
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        # Keep retries short: a rejected request should fail the run, not stall it.
        "CLAUDE_CODE_MAX_RETRIES": "1",
        "API_TIMEOUT_MS": "30000",
        # Root may skip permissions only in a sandbox; the namespace is one.
        "IS_SANDBOX": "1",
    }


def setup(home, work, base_url):
    (home / ".claude").mkdir(parents=True, exist_ok=True)


def start_cmd(prompt, work, session_uuid):
    return ["claude", "-p", prompt, "--model", MODEL, "--output-format", "json",
            "--dangerously-skip-permissions"]


def resume_cmd(session_id, prompt, work):
    return ["claude", "-p", prompt, "--model", MODEL, "--output-format", "json",
            "--dangerously-skip-permissions", "--resume", session_id]


def session_files(home):
    return [p for p in files_under(home / ".claude" / "projects", "*/*.jsonl")]


def session_id(home, stdout, session_uuid):
    for line in stdout.splitlines()[::-1]:
        try:
            return json.loads(line)["session_id"]
        except (ValueError, KeyError, TypeError):
            continue
    files = session_files(home)
    return files[0].stem if files else None


def versions(files):
    found = sorted({row.get("version") for f in files for row in jsonl(f) if row.get("version")})
    return {"where": "`version` on every line", "values": found}


def stored_calls(files):
    stored = {}
    for f in files:
        for row in jsonl(f):
            content = (row.get("message") or {}).get("content")
            if not isinstance(content, list):
                continue
            for block in content:
                if block.get("type") == "tool_use":
                    stored.setdefault(block["id"], {})
                elif block.get("type") == "tool_result":
                    entry = stored.setdefault(block.get("tool_use_id"), {})
                    entry.update(result=True, error=bool(block.get("is_error")))
    return stored


def describe_files(files, issued):
    return describe(stored_calls(files), issued)
