#!/usr/bin/env python3
"""Optional, not run by CI: records real trace exports, the source of the generated fixtures.

Starts a fake OpenAI Chat Completions provider and an OTLP/HTTP collector on loopback
(127.0.0.1 only), drives the official `openai` SDK through one instrumentation per process,
and writes what the library's own exporter produces:

- `--exporter otlp` (default): each export request the collector receives, as one line of
  protobuf-JSON (`MessageToJson`: base64 ids, enum names), to OUT.traces.jsonl / OUT.logs.jsonl;
- `--exporter console`: the OpenTelemetry SDK's `ConsoleSpanExporter(out=file)`, one
  pretty-printed JSON object per span, one after another, to OUT (nothing else is written).

Scenarios (`--scenario`), each two chained chat calls with a `get_weather` tool:

- `clean`: one call, its result, the answer;
- `broken` (default): two parallel calls, the second with empty arguments (`{}` while `city`
  is required); the application answers only the first before asking again (an unanswered
  call);
- `schema-string`: the tool's `parameters` passed as a JSON-encoded string; the fake provider
  rejects the request as OpenAI does (HTTP 400), so the trace records the rejection;
- `cut-off`: the original recording (parallel calls, one with cut-off arguments, one failed
  result).

`agent` records no instrumentation's spans but an agent loop's, through
opentelemetry-util-genai's `TelemetryHandler` as an agent framework calls it: one
`invoke_agent` span (`invoke_local_agent`, with the tool definitions) and an `execute_tool`
span per call (`handler.tool`, arguments and result captured); the model calls go through
the `openai` SDK to the fake provider uninstrumented. Its scenarios: `clean` (one call,
answered), `loop` (the model calls `get_weather` with `{}` three times, each run fails).

`anthropic-sdk` records the official `anthropic` SDK's own tracing (2.16.0, content mode,
`open_telemetry={"tracer_provider": …, "traces": {"content_mode": "content"}}`) around its
tool runner: `clean` (one `get_weather` call, answered) or `loop` (`deploy` called with the
same input three times, each run raising a `ToolError`); `ANTHROPIC_THREADS=1` keeps the
runner's default message thread (each request sends only what is new), else `thread=False`.

`traceloop-anthropic` drives the official `anthropic` SDK through OpenLLMetry's Anthropic
instrumentation, `schema-string` only: the fake provider answers `/v1/messages` with a 400
for a tool whose `input_schema` is a string (the message imitates Anthropic's validation
errors). OpenLLMetry 0.53–0.54 never end the span of a call that raised (`_wrap` re-raises
without `span.end()`), so the export holds only the SDK's own span, without content.

Each instrumentation wants its own virtualenv, with pinned versions:

    python3 -m venv /tmp/venv-v2
    /tmp/venv-v2/bin/pip install 'opentelemetry-instrumentation-openai-v2==2.4b0' \\
        'opentelemetry-util-genai==1.1b0' 'opentelemetry-sdk==1.43.0' \\
        'opentelemetry-instrumentation==0.64b0' 'opentelemetry-exporter-otlp-proto-http==1.43.0' \\
        'openai==2.8.1' httpx
    python3 -m venv /tmp/venv-oi
    /tmp/venv-oi/bin/pip install 'openinference-instrumentation-openai==0.1.66' \\
        'opentelemetry-sdk==1.40.0' 'opentelemetry-exporter-otlp-proto-http==1.40.0' \\
        'openai==2.8.1' httpx
    python3 -m venv /tmp/venv-ug
    /tmp/venv-ug/bin/pip install 'opentelemetry-util-genai==1.3b0' 'opentelemetry-sdk==1.45.2' \\
        'opentelemetry-exporter-otlp-proto-http==1.45.2' 'openai==2.8.1' httpx
    python3 -m venv /tmp/venv-tla
    /tmp/venv-tla/bin/pip install 'opentelemetry-instrumentation-anthropic==0.53.4' \\
        'opentelemetry-sdk==1.45.2' 'anthropic==2.16.0' httpx
    python3 -m venv /tmp/venv-anth
    /tmp/venv-anth/bin/pip install 'anthropic==2.16.0' 'opentelemetry-sdk==1.45.2'
    python3 -m venv /tmp/venv-lf
    /tmp/venv-lf/bin/pip install 'logfire==5.4.0' 'openai==2.8.1' httpx
    python3 -m venv /tmp/venv-tl     # and /tmp/venv-tl53 with ==0.53.4
    /tmp/venv-tl/bin/pip install 'opentelemetry-instrumentation-openai==0.62.4' \\
        'opentelemetry-sdk==1.45.2' 'openai==2.8.1' httpx
    OTEL_SEMCONV_STABILITY_OPT_IN=gen_ai_latest_experimental \\
    OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=SPAN_ONLY \\
        /tmp/venv-v2/bin/python scripts/gen-traces.py v2 OUT --exporter console --scenario clean
    /tmp/venv-oi/bin/python scripts/gen-traces.py openinference OUT --exporter console

`v2` 2.3b0 (with `wrapt<2`) writes the 1.28–1.36 log events: set
OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true; for `traceloop`,
TRACELOOP_TRACE_CONTENT=true. `scripts/gen-trace-fixtures.sh` regenerates the checked-in
fixtures.
"""

import argparse
import json
import os
import threading
from http.server import BaseHTTPRequestHandler, HTTPServer

PARAMETERS = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}


def calls_for(scenario):
    """The calls the fake provider answers the first request with."""
    if scenario == "clean":
        return [("call_w1", '{"city": "Paris"}')]
    if scenario == "cut-off":
        return [("call_w1", '{"city": "Paris"}'), ("call_w2", '{"city": "Ber')]
    return [("call_w1", '{"city": "Paris"}'), ("call_w2", "{}")]


def serve(out, scenario):
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
            if self.path.startswith("/v1/messages") and scenario in ("clean", "loop"):
                self.reply(json.dumps(anthropic_answer(request, scenario)).encode())
                return
            if self.path.startswith("/v1/messages"):
                # Only the rejection: a tool whose `input_schema` is a string.
                error = {
                    "type": "error",
                    "error": {
                        "type": "invalid_request_error",
                        "message": "tools.0.custom.input_schema: Input should be a valid dictionary",
                    },
                }
                self.reply(json.dumps(error).encode(), 400)
                return
            tools = request.get("tools") or []
            if any(isinstance(t.get("function", {}).get("parameters"), str) for t in tools):
                # What OpenAI answers a schema passed as a string.
                error = {
                    "error": {
                        "message": "Invalid type for 'tools[0].function.parameters': expected an object, but got a string instead.",
                        "type": "invalid_request_error",
                        "param": "tools[0].function.parameters",
                        "code": "invalid_type",
                    }
                }
                self.reply(json.dumps(error).encode(), 400)
                return
            answered = sum(1 for m in request["messages"] if m["role"] == "tool")
            if scenario == "loop" and answered < 3:
                # The model retries the same call with no arguments.
                call = {"name": "get_weather", "arguments": "{}"}
                message = {
                    "role": "assistant",
                    "content": None,
                    "tool_calls": [{"id": f"call_l{answered + 1}", "type": "function", "function": call}],
                }
                message, reason = message, "tool_calls"
            elif request["messages"][-1]["role"] == "tool":
                message, reason = {"role": "assistant", "content": "It is sunny."}, "stop"
            elif request["messages"][-1]["role"] == "user" and len(request["messages"]) > 2:
                message, reason = {"role": "assistant", "content": "Sunny in Paris."}, "stop"
            else:
                message = {
                    "role": "assistant",
                    "content": None,
                    "tool_calls": [
                        {"id": i, "type": "function", "function": {"name": "get_weather", "arguments": a}}
                        for i, a in calls_for(scenario)
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

        def reply(self, data, status=200):
            self.send_response(status)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    server = HTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server.server_address[1]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument(
        "which",
        choices=["v2", "traceloop", "traceloop-anthropic", "openinference", "logfire", "agent", "anthropic-sdk"],
    )
    parser.add_argument("out")
    parser.add_argument("--exporter", choices=["otlp", "console"], default="otlp")
    parser.add_argument(
        "--scenario", choices=["clean", "broken", "schema-string", "cut-off", "loop"], default="broken"
    )
    parser.add_argument("--logfire-version", default="1", help="`instrument_openai(version=…)` for logfire")
    parser.add_argument(
        "--otlp-endpoint",
        help="send the spans by OTLP/HTTP to this loopback URL (a local Phoenix's /v1/traces) "
        "instead of the built-in collector",
    )
    args = parser.parse_args()
    which, out, scenario = args.which, args.out, args.scenario
    # The SDK must be on; the only exporters are the file and the loopback collector.
    os.environ.pop("OTEL_SDK_DISABLED", None)
    os.environ["OTEL_TRACES_EXPORTER"] = "none"
    os.environ["OTEL_LOGS_EXPORTER"] = "none"
    os.environ["OTEL_METRICS_EXPORTER"] = "none"
    port = serve(out, scenario)
    from opentelemetry import trace
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor

    console = None
    if args.exporter == "console":
        from opentelemetry.sdk.trace.export import ConsoleSpanExporter

        console = open(out, "w")
        processor = SimpleSpanProcessor(ConsoleSpanExporter(out=console))
    else:
        from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

        endpoint = args.otlp_endpoint or f"http://127.0.0.1:{port}/v1/traces"
        if not endpoint.startswith("http://127.0.0.1:"):
            parser.error("--otlp-endpoint must be on 127.0.0.1")
        processor = SimpleSpanProcessor(OTLPSpanExporter(endpoint=endpoint))
    if which == "logfire":
        import logfire

        # Nothing is sent to Logfire's service; spans go to the exporter above only.
        logfire.configure(
            send_to_logfire=False, console=False, service_name="gen-traces", additional_span_processors=[processor]
        )
        provider = logfire
    else:
        provider = TracerProvider()
        provider.add_span_processor(processor)
        trace.set_tracer_provider(provider)
    logs = None
    if which == "logfire":
        version = int(args.logfire_version) if args.logfire_version.isdigit() else args.logfire_version
        logfire.instrument_openai(version=version)
    elif which == "v2":
        from opentelemetry.instrumentation.openai_v2 import OpenAIInstrumentor

        if args.exporter == "otlp":
            from opentelemetry import _logs
            from opentelemetry.exporter.otlp.proto.http._log_exporter import OTLPLogExporter
            from opentelemetry.sdk._logs import LoggerProvider
            from opentelemetry.sdk._logs.export import SimpleLogRecordProcessor

            logs = LoggerProvider()
            logs.add_log_record_processor(
                SimpleLogRecordProcessor(OTLPLogExporter(endpoint=f"http://127.0.0.1:{port}/v1/logs"))
            )
            _logs.set_logger_provider(logs)
    elif which == "traceloop":
        from opentelemetry.instrumentation.openai import OpenAIInstrumentor
    elif which == "openinference":
        from openinference.instrumentation.openai import OpenAIInstrumentor
    elif which == "traceloop-anthropic":
        from opentelemetry.instrumentation.anthropic import AnthropicInstrumentor as OpenAIInstrumentor
    if which == "anthropic-sdk":
        anthropic_tool_runner(port, provider, scenario)
        return finish(provider, console)
    if which not in ("logfire", "agent"):
        OpenAIInstrumentor().instrument()
    if which == "traceloop-anthropic":
        rejected_anthropic_call(port)
        return finish(provider, console)

    import openai

    client = openai.OpenAI(base_url=f"http://127.0.0.1:{port}/v1", api_key="unused", max_retries=0)
    parameters = json.dumps(PARAMETERS) if scenario == "schema-string" else PARAMETERS
    tools = [
        {
            "type": "function",
            "function": {"name": "get_weather", "description": "Weather for a city", "parameters": parameters},
        }
    ]
    messages = [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Weather in Paris and Berlin?"}]
    if which == "agent":
        run_agent(client, messages, tools)
        return finish(provider, console)
    try:
        first = client.chat.completions.create(model="gpt-4o-mini", messages=messages, tools=tools)
    except openai.BadRequestError:
        first = None
    if first is not None:
        calls = first.choices[0].message.tool_calls
        messages.append({"role": "assistant", "content": None, "tool_calls": [c.model_dump() for c in calls]})
        if scenario == "broken":
            # Only the first call is answered; the user asks again.
            messages.append({"role": "tool", "tool_call_id": "call_w1", "content": "sunny"})
            messages.append({"role": "user", "content": "And Berlin?"})
        elif scenario == "cut-off":
            messages.append({"role": "tool", "tool_call_id": "call_w1", "content": "sunny"})
            messages.append({"role": "tool", "tool_call_id": "call_w2", "content": "Error: bad city"})
        else:
            messages.append({"role": "tool", "tool_call_id": "call_w1", "content": "sunny"})
        client.chat.completions.create(model="gpt-4o-mini", messages=messages, tools=tools)
    if which == "logfire":
        logfire.force_flush()
        logfire.shutdown()
    else:
        provider.shutdown()
    if logs is not None:
        logs.shutdown()
    if console is not None:
        console.close()


def finish(provider, console):
    """Exports what the tracer provider holds and closes the console file, if any."""
    provider.shutdown()
    if console is not None:
        console.close()


def rejected_anthropic_call(port):
    """One `messages.create` whose tool schema is passed as a JSON string: rejected."""
    import anthropic

    client = anthropic.Anthropic(base_url=f"http://127.0.0.1:{port}", api_key="unused", max_retries=0)
    tools = [{"name": "get_weather", "description": "Weather for a city", "input_schema": json.dumps(PARAMETERS)}]
    messages = [{"role": "user", "content": "Weather in Paris?"}]
    try:
        client.messages.create(model="claude-sonnet-4-5", max_tokens=256, messages=messages, tools=tools)
    except anthropic.BadRequestError:
        pass


ANTHROPIC_TURNS = []


def anthropic_answer(request, scenario):
    """The fake Messages API: `loop` calls `deploy` with the same input three times, then gives
    up; `clean` calls `get_weather` once, then answers. Turns are counted by the server, as a
    message thread (`previous_message_id`, only new messages sent) leaves it to."""
    results = len(ANTHROPIC_TURNS)
    ANTHROPIC_TURNS.append(request.get("previous_message_id"))
    if scenario == "loop" and results < 3:
        name, args = "deploy", {"build": "4.12", "env": "prod"}
    elif scenario == "clean" and results == 0:
        name, args = "get_weather", {"city": "Paris"}
    else:
        name = None
    if name:
        content, stop = [{"type": "tool_use", "id": f"toolu_0{results + 1}", "name": name, "input": args}], "tool_use"
    else:
        content, stop = [{"type": "text", "text": "Done."}], "end_turn"
    return {
        "id": f"msg_0{results + 1}",
        "type": "message",
        "role": "assistant",
        "model": request["model"],
        "content": content,
        "stop_reason": stop,
        "stop_sequence": None,
        "usage": {"input_tokens": 10, "output_tokens": 5},
    }


def anthropic_tool_runner(port, provider, scenario):
    """The `anthropic` SDK's own tracing (content mode) around its tool runner: a `chat` span per
    request, an `execute_tool` span per call. In `loop` the tool fails every time (a `ToolError`,
    which the runner returns as an `is_error` result)."""
    import anthropic
    from anthropic import beta_tool
    from anthropic.lib.tools import ToolError

    client = anthropic.Anthropic(
        base_url=f"http://127.0.0.1:{port}",
        api_key="unused",
        max_retries=0,
        open_telemetry={"tracer_provider": provider, "traces": {"content_mode": "content"}, "propagation": False},
    )

    @beta_tool
    def deploy(build: str, env: str) -> str:
        """Deploy a build to an environment."""
        raise ToolError(f"deploy {build} to {env} refused: cluster locked")

    @beta_tool
    def get_weather(city: str) -> str:
        """Weather for a city."""
        return f"sunny in {city}"

    tools = [deploy] if scenario == "loop" else [get_weather]
    prompt = "Deploy 4.12 to prod." if scenario == "loop" else "Weather in Paris?"
    # `thread=False`: every request sends the whole history, as before message threads; with
    # `ANTHROPIC_THREADS=1`, the runner's default thread sends only what is new each turn.
    runner = client.beta.messages.tool_runner(
        model="claude-sonnet-4-5",
        max_tokens=256,
        tools=tools,
        messages=[{"role": "user", "content": prompt}],
        **({} if os.environ.get("ANTHROPIC_THREADS") == "1" else {"thread": False}),
    )
    for _ in runner:
        pass


def get_weather(city):
    """The agent's tool."""
    return f"sunny in {city}"


def run_agent(client, messages, tools):
    """An agent loop recorded through util-genai's TelemetryHandler, as a framework records it."""
    from opentelemetry.util.genai.handler import get_telemetry_handler
    from opentelemetry.util.genai.types import FunctionToolDefinition
    from opentelemetry.util.genai.utils import tool_arguments_to_any_value

    handler = get_telemetry_handler()
    with handler.invoke_local_agent(request_model="gpt-4o-mini", agent_name="weather-agent") as agent:
        agent.tool_definitions = [
            FunctionToolDefinition(name="get_weather", description="Weather for a city", parameters=PARAMETERS)
        ]
        for _ in range(5):
            reply = client.chat.completions.create(model="gpt-4o-mini", messages=messages, tools=tools)
            calls = reply.choices[0].message.tool_calls
            if not calls:
                break
            messages.append({"role": "assistant", "content": None, "tool_calls": [c.model_dump() for c in calls]})
            for call in calls:
                tool = handler.tool(call.function.name)
                tool.tool_call_id = call.id
                tool.arguments = tool_arguments_to_any_value(call.function.arguments)
                try:
                    result = get_weather(**json.loads(call.function.arguments))
                    tool.tool_result = result
                    tool.stop()
                except TypeError as error:
                    result = f"Error: {error}"
                    tool.fail(error)
                messages.append({"role": "tool", "tool_call_id": call.id, "content": result})


if __name__ == "__main__":
    main()
