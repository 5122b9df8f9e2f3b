"""opencode (`opencode-ai`): an OpenAI-compatible provider with `baseURL` in opencode.json;
sessions in the SQLite store ~/.local/share/opencode/opencode.db."""

import json
import sqlite3

from agents.common import (  # noqa: F401
    ALL_SCENARIOS, calls_in, command_of, describe, files_under, first_event_field, results_in)

NAME = "opencode"
PACKAGE = "opencode-ai"
TOOLCHECK_AGENT = "opencode"
DIALECT = "chat"
MODEL = "conf-model"
SHELL_TOOLS = ["bash"]
SCENARIOS = ALL_SCENARIOS
COMPACT_PROMPT = None
SCENARIOS_SKIPPED = {"compaction": "`opencode run` sends `/compact` to the model as text"}


def make_call(dialect, command, offered):
    return "bash", {"command": command, "description": "conformance step"}


def query(files, sql):
    rows = []
    for f in files:
        connection = sqlite3.connect(f"file:{f}?mode=ro", uri=True)
        try:
            rows += connection.execute(sql).fetchall()
        except sqlite3.Error:
            pass
        finally:
            connection.close()
    return rows


def for_app(app, binary):
    """The functions that differ between opencode and its forks only by the names used."""

    def env(home, work, base_url):
        values = {"XDG_CONFIG_HOME": str(home / ".config"), "XDG_DATA_HOME": str(home / ".local" / "share"),
                  "XDG_CACHE_HOME": str(home / ".cache"), "XDG_STATE_HOME": str(home / ".local" / "state")}
        # Off: model catalogue download, self-update, plugin installs from npm, LSP downloads.
        for prefix in {"OPENCODE", app.upper()}:
            values.update({f"{prefix}_DISABLE_MODELS_FETCH": "1", f"{prefix}_DISABLE_AUTOUPDATE": "1",
                           f"{prefix}_DISABLE_DEFAULT_PLUGINS": "1", f"{prefix}_DISABLE_LSP_DOWNLOAD": "1",
                           f"{prefix}_DISABLE_SHARE": "1", f"{prefix}_DISABLE_CHANNEL_DB": "1"})
        return values

    def setup(home, work, base_url):
        config_dir = home / ".config" / app
        config_dir.mkdir(parents=True, exist_ok=True)
        config = {
            "provider": {"conformance": {
                "npm": "@ai-sdk/openai-compatible", "name": "conformance",
                "options": {"baseURL": base_url + "/v1", "apiKey": "fake"},
                "models": {MODEL: {"name": MODEL, "tool_call": True}},
            }},
            "model": f"conformance/{MODEL}",
            "small_model": f"conformance/{MODEL}",
            "autoupdate": False,
            "share": "disabled",
            "permission": {"bash": "allow", "edit": "allow", "external_directory": "allow"},
        }
        (config_dir / f"{app}.json").write_text(json.dumps(config, indent=1))

    def start_cmd(prompt, work, session_uuid):
        return [binary, "run", "--format", "json", "-m", f"conformance/{MODEL}", prompt]

    def resume_cmd(session_id, prompt, work):
        return [binary, "run", "--format", "json", "-m", f"conformance/{MODEL}", "--session", session_id, prompt]

    def session_files(home):
        return files_under(home / ".local" / "share" / app, f"{app}*.db")

    def session_id(home, stdout, session_uuid):
        found = first_event_field(stdout, "sessionID", "part.sessionID")
        if found:
            return found
        rows = query(session_files(home), "select id from session order by time_created")
        return rows[0][0] if rows else None

    return env, setup, start_cmd, resume_cmd, session_files, session_id


env, setup, start_cmd, resume_cmd, session_files, session_id = for_app("opencode", "opencode")


def versions(files):
    found = sorted({row[0] for row in query(files, "select version from session") if row[0]})
    return {"where": "`session.version` column", "values": found}


def stored_calls(files):
    stored = {}
    for (data,) in query(files, "select data from part"):
        part = json.loads(data)
        if part.get("type") == "tool":
            status = (part.get("state") or {}).get("status")
            entry = stored.setdefault(part.get("callID"), {})
            if status in ("completed", "error"):
                entry.update(result=True, error=status == "error")
            else:
                entry["status"] = status
    return stored


def describe_files(files, issued):
    stored = stored_calls(files)
    text = describe(stored, issued)
    pending = [f"{cid}: {e['status']}" for cid, e in stored.items() if e.get("status")]
    return text + (" (tool part " + ", ".join(pending) + ")" if pending else "")
