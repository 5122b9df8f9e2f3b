#!/usr/bin/env python3
"""Optional, not run by CI: records real trace exports to learn their shapes.

Starts a fake OpenAI Chat Completions provider and an OTLP/HTTP collector on loopback, runs
two chained chat calls (parallel tool calls, one with cut-off arguments) through the chosen
instrumentation, and writes each export request the collector receives as one line of
protobuf-JSON (`MessageToJson`: base64 ids, enum names) to OUT.traces.jsonl / OUT.logs.jsonl.
The fixtures under fixtures/otel and fixtures/openinference are written by hand in these
shapes; nothing generated here is committed.

    python3 -m venv /tmp/otvenv
    /tmp/otvenv/bin/pip install opentelemetry-sdk opentelemetry-exporter-otlp-proto-http \
        openai httpx opentelemetry-instrumentation-openai openinference-instrumentation-openai \
        'opentelemetry-instrumentation-openai-v2==2.3b0' 'wrapt<2'
    /tmp/otvenv/bin/python scripts/gen-traces.py {v2|traceloop|openinference} OUT

For `v2`, set OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true (log events); for
`traceloop`, TRACELOOP_TRACE_CONTENT=true.
"""

import json
import sys
import threading
from http.server import BaseHTTPRequestHandler, HTTPServer


def serve(out):
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def do_POST(self):
            body = self.rfile.read(int(self.headers.get("content-length", 0)))
            if self.path.startswith("/v1/traces") or self.path.startswith("/v1/logs"):
                from google.protobuf.json_format import MessageToJson

                if "logs" in self.path:
                    from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import (
                        ExportLogsServiceRequest as Request,
                    )
                else:
                    from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
                        ExportTraceServiceRequest as Request,
                    )
                request = Request()
                request.ParseFromString(body)
                kind = "logs" if "logs" in self.path else "traces"
                with open(f"{out}.{kind}.jsonl", "a") as f:
                    f.write(MessageToJson(request, indent=None) + "\n")
                self.reply(b"{}")
                return
            request = json.loads(body)
            if request["messages"][-1]["role"] == "tool":
                message, reason = {"role": "assistant", "content": "It is sunny."}, "stop"
            else:
                calls = [("call_w1", '{"city": "Paris"}'), ("call_w2", '{"city": "Ber')]
                message = {
                    "role": "assistant",
                    "content": None,
                    "tool_calls": [
                        {"id": i, "type": "function", "function": {"name": "get_weather", "arguments": a}}
                        for i, a in calls
                    ],
                }
                reason = "tool_calls"
            self.reply(
                json.dumps(
                    {
                        "id": "chatcmpl-1",
                        "object": "chat.completion",
                        "created": 1750000000,
                        "model": request["model"],
                        "choices": [{"index": 0, "message": message, "finish_reason": reason}],
                        "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
                    }
                ).encode()
            )

        def reply(self, data):
            self.send_response(200)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    server = HTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server.server_address[1]


def main():
    which, out = sys.argv[1], sys.argv[2]
    port = serve(out)
    from opentelemetry import trace
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor

    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(OTLPSpanExporter(endpoint=f"http://127.0.0.1:{port}/v1/traces")))
    trace.set_tracer_provider(provider)
    logs = None
    if which == "v2":
        from opentelemetry import _logs
        from opentelemetry.exporter.otlp.proto.http._log_exporter import OTLPLogExporter
        from opentelemetry.instrumentation.openai_v2 import OpenAIInstrumentor
        from opentelemetry.sdk._logs import LoggerProvider
        from opentelemetry.sdk._logs.export import SimpleLogRecordProcessor

        logs = LoggerProvider()
        logs.add_log_record_processor(SimpleLogRecordProcessor(OTLPLogExporter(endpoint=f"http://127.0.0.1:{port}/v1/logs")))
        _logs.set_logger_provider(logs)
    elif which == "traceloop":
        from opentelemetry.instrumentation.openai import OpenAIInstrumentor
    else:
        from openinference.instrumentation.openai import OpenAIInstrumentor
    OpenAIInstrumentor().instrument()

    import openai

    client = openai.OpenAI(base_url=f"http://127.0.0.1:{port}/v1", api_key="unused")
    tools = [
        {
            "type": "function",
            "function": {
                "name": "get_weather",
                "description": "Weather for a city",
                "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
            },
        }
    ]
    messages = [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Weather in Paris and Berlin?"}]
    first = client.chat.completions.create(model="gpt-4o-mini", messages=messages, tools=tools)
    calls = first.choices[0].message.tool_calls
    messages.append({"role": "assistant", "content": None, "tool_calls": [c.model_dump() for c in calls]})
    messages.append({"role": "tool", "tool_call_id": "call_w1", "content": "sunny"})
    messages.append({"role": "tool", "tool_call_id": "call_w2", "content": "Error: bad city"})
    client.chat.completions.create(model="gpt-4o-mini", messages=messages, tools=tools)
    provider.shutdown()
    if logs is not None:
        logs.shutdown()


if __name__ == "__main__":
    main()
