"""The fake provider's rules and wire output, checked on hand-written histories.

    python3 -m unittest conformance/test_fake_provider.py
"""

import http.client
import json
import sys
import tempfile
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import fake_provider as fp  # noqa: E402


def anthropic(*messages):
    return {"messages": list(messages)}


USE = {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "Bash", "input": {}},
                                        {"type": "tool_use", "id": "t2", "name": "Bash", "input": {}}]}


def result(tool_use_id):
    return {"type": "tool_result", "tool_use_id": tool_use_id, "content": "ok"}


class AnthropicRules(unittest.TestCase):
    def rejects(self, body, fragment):
        with self.assertRaises(fp.Violation) as caught:
            fp.validate_anthropic(body)
        self.assertIn(fragment, caught.exception.message)

    def test_answered_calls_pass(self):
        fp.validate_anthropic(anthropic({"role": "user", "content": "go"}, USE,
                                        {"role": "user", "content": [result("t1"), result("t2"),
                                                                     {"type": "text", "text": "next"}]}))

    def test_unanswered_call(self):
        self.rejects(anthropic({"role": "user", "content": "go"}, USE,
                               {"role": "user", "content": [result("t1")]}),
                     "messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: t2")

    def test_results_after_text_do_not_count(self):
        self.rejects(anthropic({"role": "user", "content": "go"}, USE,
                               {"role": "user", "content": [{"type": "text", "text": "x"}, result("t1"), result("t2")]}),
                     "t1, t2")

    def test_orphan_result(self):
        self.rejects(anthropic({"role": "user", "content": [result("t9")]}),
                     "messages.0.content.0: unexpected `tool_use_id` found in `tool_result` blocks: t9")

    def test_duplicate_result(self):
        self.rejects(anthropic({"role": "user", "content": "go"}, USE,
                               {"role": "user", "content": [result("t1"), result("t2"), result("t2")]}),
                     "Found multiple `tool_result` blocks with id: t2")

    def test_duplicate_use_id(self):
        self.rejects(anthropic({"role": "user", "content": "go"}, USE,
                               {"role": "user", "content": [result("t1"), result("t2")]}, USE),
                     "messages.3.content.0: `tool_use` ids must be unique")


class ChatRules(unittest.TestCase):
    calls = {"role": "assistant", "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "x", "arguments": "{}"}},
                                                 {"id": "c2", "type": "function", "function": {"name": "x", "arguments": "{}"}}]}

    def test_missing_response(self):
        with self.assertRaises(fp.Violation) as caught:
            fp.validate_chat({"messages": [{"role": "user", "content": "go"}, self.calls,
                                           {"role": "tool", "tool_call_id": "c1", "content": "ok"},
                                           {"role": "user", "content": "next"}]})
        self.assertIn("did not have response messages: c2", caught.exception.message)

    def test_orphan_and_duplicate_tool_message(self):
        for messages in ([{"role": "user", "content": "go"}, {"role": "tool", "tool_call_id": "c1", "content": "ok"}],
                         [self.calls] + [{"role": "tool", "tool_call_id": "c1", "content": "ok"}] * 2):
            with self.assertRaises(fp.Violation) as caught:
                fp.validate_chat({"messages": messages})
            self.assertIn("must be a response to a preceeding message with 'tool_calls'", caught.exception.message)

    def test_answered(self):
        fp.validate_chat({"messages": [self.calls, {"role": "tool", "tool_call_id": "c2", "content": "ok"},
                                       {"role": "tool", "tool_call_id": "c1", "content": "ok"}]})


class ResponsesRules(unittest.TestCase):
    call = {"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "x", "arguments": "{}"}
    output = {"type": "function_call_output", "call_id": "call_1", "output": "ok"}

    def message(self, fragment, items):
        with self.assertRaises(fp.Violation) as caught:
            fp.validate_responses({"input": items})
        self.assertIn(fragment, caught.exception.message)

    def test_rules(self):
        fp.validate_responses({"input": [self.call, self.output]})
        self.message("No tool output found for function call call_1.", [self.call])
        self.message("No tool call found for function call output with call_id call_1.", [self.output, self.call])
        self.message("Duplicate item found with id fc_1.", [self.call, self.output, self.call])


class GeminiRules(unittest.TestCase):
    calls = {"role": "model", "parts": [{"functionCall": {"name": "x", "args": {}}}] * 2}

    def responses(self, count):
        return {"role": "user", "parts": [{"functionResponse": {"name": "x", "response": {}}}] * count}

    def test_counts(self):
        prompt = {"role": "user", "parts": [{"text": "go"}]}
        fp.validate_gemini({"contents": [prompt, self.calls, self.responses(2)]})
        for count in (1, 4):
            with self.assertRaises(fp.Violation) as caught:
                fp.validate_gemini({"contents": [prompt, self.calls, self.responses(count)]})
            self.assertEqual(caught.exception.message, fp.GEMINI_COUNT)

    def test_placement(self):
        with self.assertRaises(fp.Violation) as caught:
            fp.validate_gemini({"contents": [self.calls, self.responses(2)]})
        self.assertEqual(caught.exception.message, fp.GEMINI_CALL_PLACE)
        with self.assertRaises(fp.Violation) as caught:
            fp.validate_gemini({"contents": [{"role": "user", "parts": [{"text": "go"}]}, self.responses(1)]})
        self.assertEqual(caught.exception.message, fp.GEMINI_RESPONSE_PLACE)


class Serving(unittest.TestCase):
    """A plan's step over HTTP: the call streamed, then the rejection of an unanswered history."""

    def setUp(self):
        self.log = Path(tempfile.mkdtemp()) / "requests.jsonl"
        plan = {"prompts": {"MARK": [{"calls": ["echo hi"], "fault": "cut-args"}]}, "default_text": "done"}
        self.provider = fp.Provider(plan, str(self.log), lambda d, c, o: ("Bash", {"command": c}), ["Bash"])
        self.port = self.provider.start()

    def tearDown(self):
        self.provider.stop()

    def post(self, body):
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=10)
        connection.request("POST", "/v1/messages", json.dumps(body), {"Content-Type": "application/json"})
        response = connection.getresponse()
        try:
            data = response.read()
        except http.client.IncompleteRead as cut:
            data = cut.partial + b"<cut>"
        finally:
            connection.close()
        return response.status, data.decode()

    def test_cut_then_clean_retry_then_rejection(self):
        tools = [{"name": "Bash", "input_schema": {}}]
        ask = {"model": "m", "stream": True, "tools": tools, "messages": [{"role": "user", "content": "MARK"}]}
        status, first = self.post(ask)
        self.assertEqual(status, 200)
        self.assertTrue(first.endswith("<cut>"), first[-200:])
        self.assertNotIn("message_stop", first)
        status, retry = self.post(ask)
        self.assertIn('"stop_reason": "tool_use"', retry)
        self.assertIn("message_stop", retry)
        call_id = json.loads(self.log.read_text().splitlines()[1])["answer"]["calls"][0]["id"]
        unanswered = dict(ask, messages=ask["messages"] + [
            {"role": "assistant", "content": [{"type": "tool_use", "id": call_id, "name": "Bash", "input": {}}]},
            {"role": "user", "content": "again MARK"}])
        status, error = self.post(unanswered)
        self.assertEqual(status, 400)
        self.assertEqual(json.loads(error)["error"]["type"], "invalid_request_error")
        verdicts = [json.loads(line)["verdict"] for line in self.log.read_text().splitlines()]
        self.assertEqual(verdicts, ["accepted", "accepted", "rejected"])


if __name__ == "__main__":
    unittest.main()
