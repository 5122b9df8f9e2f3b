"""Gemini CLI (`@google/gemini-cli`): Gemini API through GOOGLE_GEMINI_BASE_URL,
JSONL chats under ~/.gemini/tmp/<project>/chats/."""

from agents.common import (  # noqa: F401
    ALL_SCENARIOS, calls_in, command_of, describe, files_under, jsonl, results_in, write_gemini_family_settings)

NAME = "gemini-cli"
PACKAGE = "@google/gemini-cli"
TOOLCHECK_AGENT = "gemini-cli"
DIALECT = "gemini"
MODEL = "gemini-2.5-flash"
SHELL_TOOLS = ["run_shell_command"]
SCENARIOS = ALL_SCENARIOS + ("compaction",)
COMPACT_PROMPT = "/compress"
SCENARIOS_SKIPPED = {}


def make_call(dialect, command, offered):
    return "run_shell_command", {"command": command, "description": "conformance step"}


def env(home, work, base_url):
    return {"GEMINI_API_KEY": "fake", "GOOGLE_GEMINI_BASE_URL": base_url, "GEMINI_CLI_HOME": str(home)}


def setup(home, work, base_url):
    # Without a selected auth type a headless run stops with "Invalid auth method selected".
    write_gemini_family_settings(home / ".gemini", "gemini-api-key", MODEL)


COMMON = ["-m", MODEL, "--yolo", "--skip-trust", "-o", "json"]


def start_cmd(prompt, work, session_uuid):
    return ["gemini", *COMMON, "--session-id", session_uuid, "-p", prompt]


def resume_cmd(session_id, prompt, work):
    return ["gemini", *COMMON, "--resume", "latest", "-p", prompt]


def session_files(home):
    return files_under(home / ".gemini" / "tmp", "*/chats/*.json*")


def session_id(home, stdout, session_uuid):
    for f in session_files(home):
        for row in jsonl(f):
            if row.get("sessionId"):
                return row["sessionId"]
    return None


def versions(files):
    found = sorted({str(row[k]) for f in files for row in jsonl(f) for k in ("version", "cliVersion") if row.get(k)})
    return {"where": "no version field in the chat JSONL" if not found else "`version`", "values": found}


def stored_calls(files):
    stored = {}
    for f in files:
        for row in jsonl(f):
            records = [row] + list(((row.get("$set") or {}).get("messages")) or [])
            for record in records:
                for call in record.get("toolCalls") or []:
                    entry = stored.setdefault(call.get("id"), {})
                    if call.get("result"):
                        entry.update(result=True, error=call.get("status") in ("error", "cancelled"))
                content = record.get("content")
                for part in content if isinstance(content, list) else []:
                    if isinstance(part, dict) and "functionCall" in part:
                        stored.setdefault(part["functionCall"].get("id"), {})
                    if isinstance(part, dict) and "functionResponse" in part:
                        stored.setdefault(part["functionResponse"].get("id"), {})["result"] = True
    return stored


def describe_files(files, issued):
    return describe(stored_calls(files), issued)
