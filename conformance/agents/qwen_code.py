"""Qwen Code (`@qwen-code/qwen-code`): OpenAI Chat Completions through OPENAI_BASE_URL,
JSONL chats under ~/.qwen/projects/<cwd>/chats/."""

from agents.common import (  # noqa: F401
    ALL_SCENARIOS, calls_in, command_of, describe, files_under, jsonl, results_in, write_gemini_family_settings)

NAME = "qwen-code"
PACKAGE = "@qwen-code/qwen-code"
TOOLCHECK_AGENT = "qwen-code"
DIALECT = "chat"
MODEL = "qwen3-coder-plus"
SHELL_TOOLS = ["run_shell_command"]
SCENARIOS = ALL_SCENARIOS
COMPACT_PROMPT = None
SCENARIOS_SKIPPED = {"compaction": "`/compress` in a headless run answers 'Compression was not beneficial for this history size.'"}


def make_call(dialect, command, offered):
    return "run_shell_command", {"command": command, "description": "conformance step", "is_background": False}


def env(home, work, base_url):
    return {"OPENAI_BASE_URL": base_url + "/v1", "OPENAI_API_KEY": "fake", "OPENAI_MODEL": MODEL}


def setup(home, work, base_url):
    write_gemini_family_settings(home / ".qwen", "openai", MODEL)


COMMON = ["-m", MODEL, "--yolo", "--auth-type", "openai", "-o", "json"]


def start_cmd(prompt, work, session_uuid):
    return ["qwen", *COMMON, "--session-id", session_uuid, prompt]


def resume_cmd(session_id, prompt, work):
    return ["qwen", *COMMON, "--resume", session_id, prompt]


def session_files(home):
    return files_under(home / ".qwen" / "projects", "*/chats/*.jsonl")


def session_id(home, stdout, session_uuid):
    for f in session_files(home):
        for row in jsonl(f):
            if row.get("sessionId"):
                return row["sessionId"]
    return None


def versions(files):
    found = sorted({row["version"] for f in files for row in jsonl(f) if row.get("version")})
    return {"where": "`version` on every record", "values": found}


def stored_calls(files):
    stored = {}
    for f in files:
        for row in jsonl(f):
            for part in (row.get("message") or {}).get("parts") or []:
                if "functionCall" in part:
                    stored.setdefault(part["functionCall"].get("id"), {})
                if "functionResponse" in part:
                    entry = stored.setdefault(part["functionResponse"].get("id"), {})
                    entry["result"] = True
            result = row.get("toolCallResult") or {}
            if result.get("callId"):
                entry = stored.setdefault(result["callId"], {})
                entry.update(result=True, error=bool(result.get("error")))
    return stored


def describe_files(files, issued):
    return describe(stored_calls(files), issued)
