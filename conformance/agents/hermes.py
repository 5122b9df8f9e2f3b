"""Hermes Agent (PyPI `hermes-agent`): its `custom` provider (OpenAI Chat Completions,
streamed) from ~/.hermes/config.yaml; sessions in the SQLite ~/.hermes/state.db. It stores the
assistant row with its calls before the tools run, and each tool row once its tool finishes."""

import json
import sqlite3

from agents.common import ALL_SCENARIOS, calls_in, command_of, describe, results_in  # noqa: F401

NAME = "hermes"
# From PyPI: conformance/.venvs/hermes-agent, built from pip/hermes-agent.lock.
PACKAGE = None
PIP = "hermes-agent"
TOOLCHECK_AGENT = "hermes"
DIALECT = "chat"
MODEL = "hermes-conf"
SHELL_TOOLS = ["terminal"]
SCENARIOS = ALL_SCENARIOS
COMPACT_PROMPT = None
SCENARIOS_SKIPPED = {"compaction": "compression runs when the context fills, not on a command in a one-shot `-q` run"}


def make_call(dialect, command, offered):
    return "terminal", {"command": command}


def env(home, work, base_url):
    return {"HERMES_HOME": str(home / ".hermes")}


def setup(home, work, base_url):
    hermes = home / ".hermes"
    hermes.mkdir(parents=True, exist_ok=True)
    (hermes / "config.yaml").write_text(
        "model:\n  provider: custom\n"
        f"  base_url: {base_url}/v1\n"
        f"  default: {MODEL}\n  api_key: fake\n  context_length: 128000\n"
        "model_catalog:\n  enabled: false\n"
        "memory:\n  memory_enabled: false\n  user_profile_enabled: false\n"
        "approvals:\n  mode: \"off\"\n")


COMMON = ["chat", "-Q", "--yolo"]


def start_cmd(prompt, work, session_uuid):
    return ["hermes", *COMMON, "-q", prompt]


def resume_cmd(session_id, prompt, work):
    return ["hermes", *COMMON, "-q", prompt, "--resume", session_id]


def session_files(home):
    db = home / ".hermes" / "state.db"
    return [db] if db.is_file() else []


def rows(path, sql):
    """Rows of a query on a copy-safe read-only connection (WAL readers need the -shm)."""
    try:
        conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    except sqlite3.Error:
        return []
    try:
        return conn.execute(sql).fetchall()
    except sqlite3.Error:
        return []
    finally:
        conn.close()


def session_id(home, stdout, session_uuid):
    for f in session_files(home):
        for (sid,) in rows(f, "SELECT id FROM sessions ORDER BY started_at LIMIT 1"):
            return sid
    return None


def versions(files):
    found = sorted({str(v) for f in files for (v,) in rows(f, "SELECT version FROM schema_version")})
    return {"where": "not recorded (only `schema_version`)", "values": found}


def stored_calls(files):
    stored = {}
    for f in files:
        for role, calls, call_id, content in rows(
                f, "SELECT role, tool_calls, tool_call_id, content FROM messages ORDER BY id"):
            if role == "assistant" and calls:
                for call in json.loads(calls):
                    stored.setdefault(call.get("id"), {})
            elif role == "tool":
                try:
                    output = json.loads(content or "")
                except ValueError:
                    output = {}
                failed = isinstance(output, dict) and (bool(output.get("error")) or output.get("exit_code") not in (0, None))
                stored.setdefault(call_id, {}).update(result=True, error=failed)
    return stored


def describe_files(files, issued):
    return describe(stored_calls(files), issued)
