"""What every agent module shares: reading tool calls and results out of request bodies,
and describing what a session file holds for the calls the provider issued."""

import json
from pathlib import Path

ALL_SCENARIOS = ("clean", "kill-during-tool", "parallel-one-killed", "stream-cut-in-arguments",
                 "no-stop-event", "kill-during-resume")


def text_of(value):
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return " ".join(text_of(v) for v in value)
    if isinstance(value, dict):
        for key in ("text", "output", "content"):
            if key in value:
                return text_of(value[key])
        return json.dumps(value, ensure_ascii=False)
    return "" if value is None else str(value)


def results_in(dialect, body):
    """Every tool result in a request: id, text (shortened), error flag where the wire has one."""
    out = []
    if dialect == "anthropic":
        for message in body.get("messages") or []:
            if isinstance(message.get("content"), list):
                for block in message["content"]:
                    if block.get("type") == "tool_result":
                        out.append({"id": block.get("tool_use_id"), "text": text_of(block.get("content")),
                                    "is_error": bool(block.get("is_error"))})
    elif dialect == "chat":
        for message in body.get("messages") or []:
            if message.get("role") == "tool":
                out.append({"id": message.get("tool_call_id"), "text": text_of(message.get("content"))})
    elif dialect == "responses":
        for item in body.get("input") or []:
            if isinstance(item, dict) and item.get("type", "").endswith("_output"):
                out.append({"id": item.get("call_id"), "text": text_of(item.get("output"))})
    elif dialect == "gemini":
        for content in body.get("contents") or []:
            for part in content.get("parts") or []:
                response = part.get("functionResponse") if isinstance(part, dict) else None
                if response:
                    out.append({"id": response.get("id"), "name": response.get("name"),
                                "text": json.dumps(response.get("response"), ensure_ascii=False)})
    for result in out:
        result["text"] = result["text"][:600]
    return out


def calls_in(dialect, body):
    ids = []
    if dialect == "anthropic":
        for message in body.get("messages") or []:
            if isinstance(message.get("content"), list):
                ids += [b.get("id") for b in message["content"] if b.get("type") == "tool_use"]
    elif dialect == "chat":
        for message in body.get("messages") or []:
            ids += [c.get("id") for c in message.get("tool_calls") or []]
    elif dialect == "responses":
        ids += [i.get("call_id") for i in body.get("input") or []
                if isinstance(i, dict) and i.get("type") in ("function_call", "custom_tool_call", "local_shell_call")]
    elif dialect == "gemini":
        for content in body.get("contents") or []:
            ids += [p["functionCall"].get("id") for p in content.get("parts") or []
                    if isinstance(p, dict) and "functionCall" in p]
    return ids


def command_of(call):
    """The shell command inside a call's arguments, whatever the tool calls the field."""
    arguments = call.get("arguments") or {}
    for key in ("command", "cmd"):
        value = arguments.get(key)
        if isinstance(value, list):
            return " ".join(value)
        if isinstance(value, str):
            return value
    return json.dumps(arguments)


def canonical(call_id):
    """The provider's call id: Gemini CLI stores and resends it as `<tool>__<id>`."""
    return call_id.rsplit("__", 1)[-1] if isinstance(call_id, str) else call_id


def describe(stored, issued):
    """One phrase per issued call: does the file hold the call, its result, both?"""
    stored = {canonical(k): v for k, v in stored.items()}
    parts = []
    for call_id, command in issued.items():
        entry = stored.get(call_id)
        if entry is None:
            state = "not stored"
        elif not entry.get("result"):
            state = "call, no result"
        else:
            state = f"call + {'error ' if entry.get('error') else ''}result"
        parts.append(f"`{command}` ({call_id}): {state}")
    return "; ".join(parts) or "no calls issued"


def jsonl(path):
    rows = []
    for line in Path(path).read_text(errors="replace").splitlines():
        try:
            rows.append(json.loads(line))
        except ValueError:
            pass
    return rows


def files_under(root, pattern):
    root = Path(root)
    return sorted(p for p in root.glob(pattern) if p.is_file()) if root.exists() else []


def write_gemini_family_settings(settings_dir, auth_type, model):
    """settings.json for Gemini CLI and its fork Qwen Code: the auth type chosen up front (a
    headless run cannot ask), usage statistics, telemetry and updates off, folder trust off."""
    settings_dir.mkdir(parents=True, exist_ok=True)
    settings = {
        "security": {"auth": {"selectedType": auth_type}, "folderTrust": {"enabled": False}},
        "privacy": {"usageStatisticsEnabled": False},
        "telemetry": {"enabled": False},
        "general": {"disableAutoUpdate": True, "disableUpdateNag": True, "enableAutoUpdate": False,
                    "enableAutoUpdateNotification": False},
        "model": {"name": model},
    }
    (settings_dir / "settings.json").write_text(json.dumps(settings, indent=1))


def first_event_field(stdout, *fields):
    """The first of fields found in a JSON-lines event stream on stdout (a session id)."""
    for line in stdout.splitlines():
        try:
            event = json.loads(line)
        except ValueError:
            continue
        if not isinstance(event, dict):
            continue
        for field in fields:
            value = event
            for key in field.split("."):
                value = value.get(key) if isinstance(value, dict) else None
            if value:
                return value
    return None
