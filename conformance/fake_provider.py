#!/usr/bin/env python3
"""A local LLM provider for the conformance suite.

Speaks four wire dialects (Anthropic Messages, OpenAI Chat Completions, OpenAI Responses,
Gemini generateContent), answers from a per-scenario plan, and holds every request's tool
history to the provider's documented pairing rules: a violating request gets the provider's
real status and error body, so an agent's resume request is judged the way the real service
would judge it. Every request is logged as one JSON line (body + verdict).

Plan (a dict, or JSON for the command line):
    {"model": "conf-model",
     "prompts": {"<marker>": [step, ...]},    # a prompt containing <marker> runs these steps
     "default_text": "..."}                   # answer once a prompt's steps are used up
    step = {"calls": ["<shell command>", ...]} or {"text": "..."},
           optionally "fault": "cut-args" | "no-stop" (applied once, the retry runs clean)

Which step answers a request: the number of assistant tool-call turns after the last user
prompt in that request. Requests that offer no shell tool (titles, summaries, routing) are
side requests and get a short text, or a JSON object when a response schema is asked for.
"""

import gzip
import json
import socket
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlsplit

ANTHROPIC_RESULT_MISSING = (
    "messages.{i}: `tool_use` ids were found without `tool_result` blocks immediately after: {ids}."
    " Each `tool_use` block must have a corresponding `tool_result` block in the next message."
)
ANTHROPIC_RESULT_ORPHAN = (
    "messages.{i}.content.{j}: unexpected `tool_use_id` found in `tool_result` blocks: {id}."
    " Each `tool_result` block must have a corresponding `tool_use` block in the previous message."
)
ANTHROPIC_USE_DUPLICATE = "messages.{i}.content.{j}: `tool_use` ids must be unique"
# Quoted in Claude Code bug reports for a message holding two results for one call.
ANTHROPIC_RESULT_DUPLICATE = (
    "messages.{i}.content.{j}: each tool_use must have a single result."
    " Found multiple `tool_result` blocks with id: {id}"
)
CHAT_RESULT_MISSING = (
    "An assistant message with 'tool_calls' must be followed by tool messages responding to each"
    " 'tool_call_id'. The following tool_call_ids did not have response messages: {ids}"
)
CHAT_RESULT_ORPHAN = (
    "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with"
    " 'tool_calls'."
)
RESPONSES_OUTPUT_MISSING = "No tool output found for function call {id}."
RESPONSES_CALL_MISSING = "No tool call found for function call output with call_id {id}."
RESPONSES_DUPLICATE_ITEM = "Duplicate item found with id {id}."
GEMINI_COUNT = (
    "Please ensure that the number of function response parts is equal to the number of function"
    " call parts of the function call turn."
)
GEMINI_RESPONSE_PLACE = (
    "Please ensure that function response turn comes immediately after a function call turn."
)
GEMINI_CALL_PLACE = (
    "Please ensure that function call turn comes immediately after a user turn or after a"
    " function response turn."
)


class Violation(Exception):
    def __init__(self, message, param=None):
        super().__init__(message)
        self.message = message
        self.param = param


def _blocks(content):
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    return [b for b in content or [] if isinstance(b, dict)]


def validate_anthropic(body):
    messages = body.get("messages") or []
    seen_use_ids = set()
    for i, message in enumerate(messages):
        blocks = _blocks(message.get("content"))
        if message.get("role") == "assistant":
            ids = []
            for j, block in enumerate(blocks):
                if block.get("type") == "tool_use":
                    if block.get("id") in seen_use_ids:
                        raise Violation(ANTHROPIC_USE_DUPLICATE.format(i=i, j=j))
                    seen_use_ids.add(block.get("id"))
                    ids.append(block.get("id"))
            if not ids:
                continue
            following = messages[i + 1] if i + 1 < len(messages) else None
            leading = set()
            if following is not None and following.get("role") == "user":
                # Results count only at the front of the next user message.
                for block in _blocks(following.get("content")):
                    if block.get("type") != "tool_result":
                        break
                    leading.add(block.get("tool_use_id"))
            missing = [x for x in ids if x not in leading]
            if missing:
                raise Violation(ANTHROPIC_RESULT_MISSING.format(i=i, ids=", ".join(missing)))
        else:
            previous = messages[i - 1] if i > 0 else None
            called = set()
            if previous is not None and previous.get("role") == "assistant":
                called = {b.get("id") for b in _blocks(previous.get("content")) if b.get("type") == "tool_use"}
            answered = set()
            for j, block in enumerate(blocks):
                if block.get("type") != "tool_result":
                    continue
                tool_use_id = block.get("tool_use_id")
                if tool_use_id not in called:
                    raise Violation(ANTHROPIC_RESULT_ORPHAN.format(i=i, j=j, id=tool_use_id))
                if tool_use_id in answered:
                    raise Violation(ANTHROPIC_RESULT_DUPLICATE.format(i=i, j=j, id=tool_use_id))
                answered.add(tool_use_id)


def validate_chat(body):
    messages = body.get("messages") or []
    i = 0
    while i < len(messages):
        message = messages[i]
        role = message.get("role")
        if role == "assistant" and message.get("tool_calls"):
            ids = [c.get("id") for c in message["tool_calls"]]
            answered = set()
            j = i + 1
            while j < len(messages) and messages[j].get("role") == "tool":
                tool_call_id = messages[j].get("tool_call_id")
                if tool_call_id not in ids or tool_call_id in answered:
                    raise Violation(CHAT_RESULT_ORPHAN, f"messages.[{j}].role")
                answered.add(tool_call_id)
                j += 1
            missing = [x for x in ids if x not in answered]
            if missing:
                raise Violation(CHAT_RESULT_MISSING.format(ids=", ".join(missing)), "messages")
            i = j
            continue
        if role == "tool":
            raise Violation(CHAT_RESULT_ORPHAN, f"messages.[{i}].role")
        i += 1


CALL_ITEMS = ("function_call", "custom_tool_call", "local_shell_call")
OUTPUT_ITEMS = ("function_call_output", "custom_tool_call_output", "local_shell_call_output")


def validate_responses(body):
    items = body.get("input")
    if not isinstance(items, list):
        return
    item_ids = set()
    calls = []
    outputs = set()
    for item in items:
        if not isinstance(item, dict):
            continue
        kind = item.get("type")
        if item.get("id") and kind != "message":
            if item["id"] in item_ids:
                raise Violation(RESPONSES_DUPLICATE_ITEM.format(id=item["id"]), "input")
            item_ids.add(item["id"])
        if kind in CALL_ITEMS:
            calls.append(item.get("call_id"))
        elif kind in OUTPUT_ITEMS:
            call_id = item.get("call_id")
            if call_id not in calls:
                raise Violation(RESPONSES_CALL_MISSING.format(id=call_id), "input")
            # No recorded wording for a second output to one call: the duplicate-item text
            # names it, since the service treats the output as a repeated item.
            if call_id in outputs:
                raise Violation(RESPONSES_DUPLICATE_ITEM.format(id=call_id), "input")
            outputs.add(call_id)
    for call_id in calls:
        if call_id not in outputs:
            raise Violation(RESPONSES_OUTPUT_MISSING.format(id=call_id), "input")


def validate_gemini(body):
    contents = body.get("contents") or []

    def count(content, key):
        return sum(1 for p in content.get("parts") or [] if isinstance(p, dict) and key in p)

    for i, content in enumerate(contents):
        calls = count(content, "functionCall")
        responses = count(content, "functionResponse")
        if calls:
            previous = contents[i - 1] if i > 0 else None
            if previous is None or previous.get("role") == "model":
                raise Violation(GEMINI_CALL_PLACE)
            following = contents[i + 1] if i + 1 < len(contents) else None
            if following is None or count(following, "functionResponse") != calls:
                raise Violation(GEMINI_COUNT)
        if responses:
            previous = contents[i - 1] if i > 0 else None
            if previous is None or not count(previous, "functionCall"):
                raise Violation(GEMINI_RESPONSE_PLACE)


VALIDATORS = {
    "anthropic": validate_anthropic,
    "chat": validate_chat,
    "responses": validate_responses,
    "gemini": validate_gemini,
}


def _text_of(value):
    """Every string under value, joined: prompts are found by marker, whatever the nesting."""
    if isinstance(value, str):
        return value
    if isinstance(value, dict):
        return " ".join(_text_of(v) for k, v in value.items() if k in ("text", "content", "parts"))
    if isinstance(value, list):
        return " ".join(_text_of(v) for v in value)
    return ""


def turns(dialect, body):
    """The request's history as (kind, text) pairs: kind 'prompt', 'calls' or 'other'."""
    out = []
    if dialect == "anthropic":
        for m in body.get("messages") or []:
            blocks = _blocks(m.get("content"))
            if m.get("role") == "assistant":
                has_calls = any(b.get("type") == "tool_use" for b in blocks)
                out.append(("calls" if has_calls else "other", ""))
            else:
                texts = [b.get("text", "") for b in blocks if b.get("type") == "text"]
                out.append(("prompt" if texts else "other", " ".join(texts)))
    elif dialect == "chat":
        for m in body.get("messages") or []:
            role = m.get("role")
            if role == "assistant":
                out.append(("calls" if m.get("tool_calls") else "other", ""))
            elif role == "user":
                out.append(("prompt", _text_of(m.get("content"))))
    elif dialect == "responses":
        items = body.get("input")
        if isinstance(items, str):
            items = [{"type": "message", "role": "user", "content": items}]
        previous_was_call = False
        for item in items or []:
            kind = item.get("type", "message")
            if kind in CALL_ITEMS:
                # Parallel calls arrive as consecutive items: one turn.
                if not previous_was_call:
                    out.append(("calls", ""))
                previous_was_call = True
                continue
            previous_was_call = False
            if kind == "message" and item.get("role") == "user":
                out.append(("prompt", _text_of(item.get("content"))))
    elif dialect == "gemini":
        for c in body.get("contents") or []:
            parts = [p for p in c.get("parts") or [] if isinstance(p, dict)]
            if c.get("role") == "model":
                has_calls = any("functionCall" in p for p in parts)
                out.append(("calls" if has_calls else "other", ""))
            else:
                texts = [p["text"] for p in parts if isinstance(p.get("text"), str)]
                if any("functionResponse" in p for p in parts) and not texts:
                    out.append(("other", ""))
                else:
                    out.append(("prompt", " ".join(texts)))
    return out


def offered_tools(dialect, body):
    names = []
    if dialect == "gemini":
        for tool in body.get("tools") or []:
            for decl in tool.get("functionDeclarations") or tool.get("function_declarations") or []:
                names.append(decl.get("name"))
    else:
        for tool in body.get("tools") or []:
            names.append(tool.get("name") or (tool.get("function") or {}).get("name"))
    return [n for n in names if n]


def fill_schema(schema):
    """A minimal instance of a JSON schema, for side requests that ask for structured output."""
    if not isinstance(schema, dict):
        return {}
    if schema.get("enum"):
        return schema["enum"][0]
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = kind[0]
    kind = (kind or "object").lower()
    if kind == "object":
        props = schema.get("properties") or {}
        return {k: fill_schema(v) for k, v in props.items()}
    if kind == "array":
        return []
    if kind in ("integer", "number"):
        return 0
    if kind == "boolean":
        return False
    return "user"


class Provider:
    """The fake provider: plan, validators, fault injection and request log."""

    def __init__(self, plan, log_path, make_call, shell_tools):
        self.plan = plan
        self.log_path = log_path
        # make_call(dialect, command, offered) -> (tool name, arguments dict)
        self.make_call = make_call
        self.shell_tools = set(shell_tools)
        self.lock = threading.Lock()
        self.faults_done = set()
        self.call_counter = 0
        self.server = None

    # --- choosing the answer -------------------------------------------------

    def next_call_id(self, prefix):
        with self.lock:
            self.call_counter += 1
            return f"{prefix}conf{self.call_counter:03d}"

    def decide(self, dialect, body):
        """(kind, marker, step index, step) for this request."""
        offered = offered_tools(dialect, body)
        history = turns(dialect, body)
        last_prompt = max((i for i, (k, _) in enumerate(history) if k == "prompt"), default=None)
        if not self.shell_tools.intersection(offered) or last_prompt is None:
            return "side", None, None, None
        prompt_text = history[last_prompt][1]
        # Agents may merge a resumed prompt into the one before it: the newest marker counts.
        found = [(prompt_text.rfind(m), m) for m in self.plan["prompts"] if m in prompt_text]
        marker = max(found)[1] if found else None
        if marker is None:
            return "side", None, None, None
        index = sum(1 for k, _ in history[last_prompt + 1 :] if k == "calls")
        steps = self.plan["prompts"][marker]
        step = steps[index] if index < len(steps) else {"text": self.plan.get("default_text", "Done.")}
        return "main", marker, index, step

    def take_fault(self, marker, index, step):
        fault = step.get("fault") if step else None
        if not fault:
            return None
        key = (marker, index)
        with self.lock:
            if key in self.faults_done:
                return None
            self.faults_done.add(key)
        return fault

    def log(self, record):
        record["t"] = time.time()
        line = json.dumps(record, ensure_ascii=False)
        with self.lock, open(self.log_path, "a", encoding="utf-8") as f:
            f.write(line + "\n")

    # --- serving -------------------------------------------------------------

    def start(self):
        provider = self

        class Handler(ProviderHandler):
            pass

        Handler.provider = provider
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return self.server.server_address[1]

    def stop(self):
        if self.server:
            self.server.shutdown()
            self.server.server_close()


class ProviderHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    provider = None

    def log_message(self, *args):
        pass

    # --- plumbing ------------------------------------------------------------

    def read_body(self):
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        if self.headers.get("Content-Encoding", "").lower() == "gzip":
            raw = gzip.decompress(raw)
        if not raw:
            return {}
        try:
            return json.loads(raw)
        except ValueError:
            return {"_unparsed": raw.decode("utf-8", "replace")}

    def send_json(self, status, obj):
        data = json.dumps(obj).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.send_header("request-id", "req_conformance")
        self.end_headers()
        self.wfile.write(data)

    def start_sse(self):
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()

    def chunk(self, data):
        if isinstance(data, str):
            data = data.encode()
        self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
        self.wfile.flush()

    def end_sse(self):
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()

    def cut(self):
        """Drop the connection mid-body: no terminating chunk, as a network cut looks."""
        self.wfile.flush()
        try:
            self.connection.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self.close_connection = True

    # --- routing -------------------------------------------------------------

    def do_GET(self):
        path = urlsplit(self.path).path
        model = self.provider.plan.get("model", "conf-model")
        if path.endswith("/models") and "v1beta" in path:
            body = {"models": [{"name": f"models/{model}", "supportedGenerationMethods": ["generateContent"]}]}
        elif path.endswith("/models"):
            body = {
                "object": "list",
                "data": [{"id": model, "object": "model", "created": 0, "owned_by": "conformance",
                          "type": "model", "display_name": model}],
                "has_more": False,
            }
        else:
            body = None
        self.provider.log({"method": "GET", "path": self.path, "kind": "side"})
        if body is None:
            self.send_json(404, {"error": {"message": "not found", "type": "not_found_error"}})
        else:
            self.send_json(200, body)

    def do_HEAD(self):
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def do_POST(self):
        path = urlsplit(self.path).path
        body = self.read_body()
        if path.endswith("/messages/count_tokens"):
            return self.side(path, body, {"input_tokens": 100})
        if path.endswith(":countTokens"):
            return self.side(path, body, {"totalTokens": 100})
        if path.endswith("/messages"):
            return self.model_request("anthropic", path, body, bool(body.get("stream")))
        if path.endswith("/chat/completions"):
            return self.model_request("chat", path, body, bool(body.get("stream")))
        if path.endswith("/responses"):
            return self.model_request("responses", path, body, body.get("stream", True) is not False)
        if path.endswith(":generateContent"):
            return self.model_request("gemini", path, body, False)
        if path.endswith(":streamGenerateContent"):
            return self.model_request("gemini", path, body, True)
        self.provider.log({"method": "POST", "path": self.path, "kind": "unknown", "body": body})
        self.send_json(404, {"error": {"message": f"no route {path}", "type": "not_found_error"}})

    def side(self, path, body, answer):
        self.provider.log({"method": "POST", "path": path, "kind": "side", "body": body})
        self.send_json(200, answer)

    def model_request(self, dialect, path, body, stream):
        provider = self.provider
        kind, marker, index, step = provider.decide(dialect, body)
        record = {"method": "POST", "path": path, "dialect": dialect, "stream": stream, "kind": kind,
                  "marker": marker, "step": index, "body": body}
        try:
            VALIDATORS[dialect](body)
            record["verdict"] = "accepted"
        except Violation as violation:
            record["verdict"] = "rejected"
            record["error"] = violation.message
            provider.log(record)
            return self.send_error_body(dialect, violation)
        fault = provider.take_fault(marker, index, step) if kind == "main" else None
        record["fault"] = fault
        if kind == "side":
            step = {"text": "ok", "side": True}
        answer = self.build_answer(dialect, body, step)
        record["answer"] = answer
        provider.log(record)
        emit = STREAMERS[dialect] if stream else COMPLETERS[dialect]
        emit(self, body, answer, fault)

    def send_error_body(self, dialect, violation):
        if dialect == "anthropic":
            return self.send_json(400, {"type": "error", "error": {"type": "invalid_request_error",
                                                                   "message": violation.message}})
        if dialect == "gemini":
            return self.send_json(400, {"error": {"code": 400, "message": violation.message,
                                                  "status": "INVALID_ARGUMENT"}})
        return self.send_json(400, {"error": {"message": violation.message, "type": "invalid_request_error",
                                              "param": violation.param, "code": None}})

    def build_answer(self, dialect, body, step):
        """{'text': str} or {'calls': [{'id', 'name', 'arguments'}]}, ids in the dialect's style."""
        # Every response its own id: agents merge streamed entries that share a message id.
        response_id = self.provider.next_call_id("r")
        if step.get("side"):
            schema = None
            config = body.get("generationConfig") or {}
            schema = config.get("responseJsonSchema") or config.get("responseSchema")
            fmt = (body.get("response_format") or {}).get("json_schema") or {}
            schema = schema or fmt.get("schema")
            return {"id": response_id, "text": json.dumps(fill_schema(schema)) if schema else "ok"}
        if "text" in step:
            return {"id": response_id, "text": step["text"]}
        prefix = {"anthropic": "toolu_", "chat": "call_", "responses": "call_", "gemini": "fc_"}[dialect]
        offered = offered_tools(dialect, body)
        calls = []
        for command in step["calls"]:
            name, arguments = self.provider.make_call(dialect, command, offered)
            calls.append({"id": self.provider.next_call_id(prefix), "name": name, "arguments": arguments})
        return {"id": response_id, "calls": calls}


def _model(handler):
    return handler.provider.plan.get("model", "conf-model")


def _half(text):
    return text[: max(1, len(text) // 2)]


# --- Anthropic Messages ------------------------------------------------------

def anthropic_content(answer):
    if "text" in answer:
        return [{"type": "text", "text": answer["text"]}], "end_turn"
    return [{"type": "tool_use", "id": c["id"], "name": c["name"], "input": c["arguments"]}
            for c in answer["calls"]], "tool_use"


def anthropic_complete(handler, body, answer, fault):
    content, stop = anthropic_content(answer)
    handler.send_json(200, {"id": "msg_" + answer["id"], "type": "message", "role": "assistant",
                            "model": body.get("model", _model(handler)), "content": content,
                            "stop_reason": stop, "stop_sequence": None,
                            "usage": {"input_tokens": 100, "output_tokens": 10}})


def anthropic_stream(handler, body, answer, fault):
    def event(kind, data):
        data["type"] = kind
        handler.chunk(f"event: {kind}\ndata: {json.dumps(data)}\n\n")

    handler.start_sse()
    event("message_start", {"message": {"id": "msg_" + answer["id"], "type": "message", "role": "assistant",
                                         "model": body.get("model", _model(handler)), "content": [],
                                         "stop_reason": None, "stop_sequence": None,
                                         "usage": {"input_tokens": 100, "output_tokens": 1}}})
    content, stop = anthropic_content(answer)
    for index, block in enumerate(content):
        if block["type"] == "text":
            event("content_block_start", {"index": index, "content_block": {"type": "text", "text": ""}})
            event("content_block_delta", {"index": index, "delta": {"type": "text_delta", "text": block["text"]}})
        else:
            event("content_block_start", {"index": index, "content_block": {
                "type": "tool_use", "id": block["id"], "name": block["name"], "input": {}}})
            arguments = json.dumps(block["input"])
            if fault == "cut-args":
                event("content_block_delta", {"index": index, "delta": {"type": "input_json_delta",
                                                                        "partial_json": _half(arguments)}})
                return handler.cut()
            event("content_block_delta", {"index": index, "delta": {"type": "input_json_delta",
                                                                    "partial_json": arguments}})
        event("content_block_stop", {"index": index})
    if fault != "no-stop":
        event("message_delta", {"delta": {"stop_reason": stop, "stop_sequence": None},
                                "usage": {"output_tokens": 10}})
        event("message_stop", {})
    handler.end_sse()


# --- OpenAI Chat Completions -------------------------------------------------

def chat_complete(handler, body, answer, fault):
    message = {"role": "assistant", "content": answer.get("text")}
    finish = "stop"
    if "calls" in answer:
        finish = "tool_calls"
        message["tool_calls"] = [{"id": c["id"], "type": "function", "function": {
            "name": c["name"], "arguments": json.dumps(c["arguments"])}} for c in answer["calls"]]
    handler.send_json(200, {"id": "chatcmpl-" + answer["id"], "object": "chat.completion", "created": int(time.time()),
                            "model": body.get("model", _model(handler)),
                            "choices": [{"index": 0, "message": message, "finish_reason": finish}],
                            "usage": {"prompt_tokens": 100, "completion_tokens": 10, "total_tokens": 110}})


def chat_stream(handler, body, answer, fault):
    base = {"id": "chatcmpl-" + answer["id"], "object": "chat.completion.chunk", "created": int(time.time()),
            "model": body.get("model", _model(handler))}

    def send(delta, finish=None, **extra):
        handler.chunk("data: " + json.dumps(dict(base, choices=[{"index": 0, "delta": delta,
                                                                 "finish_reason": finish}], **extra)) + "\n\n")

    handler.start_sse()
    send({"role": "assistant", "content": ""})
    if "text" in answer:
        send({"content": answer["text"]})
        finish = "stop"
    else:
        finish = "tool_calls"
        for index, call in enumerate(answer["calls"]):
            arguments = json.dumps(call["arguments"])
            send({"tool_calls": [{"index": index, "id": call["id"], "type": "function",
                                  "function": {"name": call["name"], "arguments": ""}}]})
            if fault == "cut-args":
                send({"tool_calls": [{"index": index, "function": {"arguments": _half(arguments)}}]})
                return handler.cut()
            send({"tool_calls": [{"index": index, "function": {"arguments": arguments}}]})
    if fault != "no-stop":
        send({}, finish)
        if (body.get("stream_options") or {}).get("include_usage"):
            handler.chunk("data: " + json.dumps(dict(base, choices=[], usage={
                "prompt_tokens": 100, "completion_tokens": 10, "total_tokens": 110})) + "\n\n")
        handler.chunk("data: [DONE]\n\n")
    handler.end_sse()


# --- OpenAI Responses --------------------------------------------------------

def responses_items(answer):
    if "text" in answer:
        return [{"type": "message", "id": "msg_" + answer["id"], "role": "assistant", "status": "completed",
                 "content": [{"type": "output_text", "text": answer["text"], "annotations": []}]}]
    return [{"type": "function_call", "id": "fc_" + c["id"].removeprefix("call_"), "call_id": c["id"],
             "name": c["name"], "arguments": json.dumps(c["arguments"]), "status": "completed"}
            for c in answer["calls"]]


def responses_object(body, handler, answer, output, status):
    return {"id": "resp_" + answer["id"], "object": "response",
            "created_at": int(time.time()), "status": status, "model": body.get("model", _model(handler)),
            "output": output, "usage": {"input_tokens": 100, "input_tokens_details": {"cached_tokens": 0},
                                        "output_tokens": 10, "output_tokens_details": {"reasoning_tokens": 0},
                                        "total_tokens": 110}}


def responses_complete(handler, body, answer, fault):
    handler.send_json(200, responses_object(body, handler, answer, responses_items(answer), "completed"))


def responses_stream(handler, body, answer, fault):
    sequence = [0]

    def event(kind, data):
        data = dict(type=kind, sequence_number=sequence[0], **data)
        sequence[0] += 1
        handler.chunk(f"event: {kind}\ndata: {json.dumps(data)}\n\n")

    handler.start_sse()
    event("response.created", {"response": responses_object(body, handler, answer, [], "in_progress")})
    event("response.in_progress", {"response": responses_object(body, handler, answer, [], "in_progress")})
    items = responses_items(answer)
    for index, item in enumerate(items):
        if item["type"] == "message":
            text = item["content"][0]["text"]
            event("response.output_item.added", {"output_index": index, "item": dict(
                item, status="in_progress", content=[])})
            part = {"type": "output_text", "text": "", "annotations": []}
            event("response.content_part.added", {"item_id": item["id"], "output_index": index,
                                                  "content_index": 0, "part": part})
            event("response.output_text.delta", {"item_id": item["id"], "output_index": index,
                                                 "content_index": 0, "delta": text})
            event("response.output_text.done", {"item_id": item["id"], "output_index": index,
                                                "content_index": 0, "text": text})
            event("response.content_part.done", {"item_id": item["id"], "output_index": index,
                                                 "content_index": 0, "part": item["content"][0]})
        else:
            event("response.output_item.added", {"output_index": index, "item": dict(
                item, arguments="", status="in_progress")})
            if fault == "cut-args":
                event("response.function_call_arguments.delta", {"item_id": item["id"], "output_index": index,
                                                                 "delta": _half(item["arguments"])})
                return handler.cut()
            event("response.function_call_arguments.delta", {"item_id": item["id"], "output_index": index,
                                                             "delta": item["arguments"]})
            event("response.function_call_arguments.done", {"item_id": item["id"], "output_index": index,
                                                            "arguments": item["arguments"]})
        event("response.output_item.done", {"output_index": index, "item": item})
    if fault != "no-stop":
        event("response.completed", {"response": responses_object(body, handler, answer, items, "completed")})
    handler.end_sse()


# --- Gemini ------------------------------------------------------------------

def gemini_chunk(handler, answer, finish=True):
    if "text" in answer:
        parts = [{"text": answer["text"]}]
    else:
        parts = [{"functionCall": {"id": c["id"], "name": c["name"], "args": c["arguments"]}}
                 for c in answer["calls"]]
    candidate = {"content": {"role": "model", "parts": parts}, "index": 0}
    if finish:
        candidate["finishReason"] = "STOP"
    return {"candidates": [candidate], "modelVersion": _model(handler),
            "usageMetadata": {"promptTokenCount": 100, "candidatesTokenCount": 10, "totalTokenCount": 110}}


def gemini_complete(handler, body, answer, fault):
    handler.send_json(200, gemini_chunk(handler, answer))


def gemini_stream(handler, body, answer, fault):
    handler.start_sse()
    line = "data: " + json.dumps(gemini_chunk(handler, answer, finish=fault != "no-stop")) + "\r\n\r\n"
    if fault == "cut-args" and "calls" in answer:
        # A call arrives whole in one chunk: cut the chunk inside its args.
        handler.chunk(line[: line.index('"args"') + 12])
        return handler.cut()
    handler.chunk(line)
    handler.end_sse()


STREAMERS = {"anthropic": anthropic_stream, "chat": chat_stream, "responses": responses_stream,
             "gemini": gemini_stream}
COMPLETERS = {"anthropic": anthropic_complete, "chat": chat_complete, "responses": responses_complete,
              "gemini": gemini_complete}


def main():
    """Serve a plan from the command line: fake_provider.py PLAN.json LOG.jsonl TOOL ARG."""
    if len(sys.argv) != 5:
        sys.exit(main.__doc__)
    plan = json.load(open(sys.argv[1]))
    tool, argument = sys.argv[3], sys.argv[4]
    provider = Provider(plan, sys.argv[2], lambda dialect, command, offered: (tool, {argument: command}), [tool])
    print(f"http://127.0.0.1:{provider.start()}", flush=True)
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        provider.stop()


if __name__ == "__main__":
    main()
