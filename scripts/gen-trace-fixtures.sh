#!/usr/bin/env bash
# Regenerates the trace fixtures written by the real instrumentation libraries
# (scripts/gen-traces.py; optional, not run by CI), for the libraries named (default: all):
#   v2    opentelemetry-instrumentation-openai-v2 2.4b0       -> fixtures/otel/*-console-openai-v2*.json
#   oi    openinference-instrumentation-openai 0.1.66         -> fixtures/openinference/*-console*.json
#   tl    opentelemetry-instrumentation-openai (OpenLLMetry) 0.62.4 -> fixtures/otel/*-console-openllmetry-0.62*.json
#   tl53  the same at 0.53.4 (flattened attributes)           -> fixtures/otel/*-console-openllmetry-0.53*.json
#   lf    logfire 5.4.0, instrument_openai(version=1)         -> fixtures/otel/*-logfire-v1*.json(l)
#   tla   opentelemetry-instrumentation-anthropic (OpenLLMetry) 0.53.4, a rejected request
#                                                         -> fixtures/otel/not-content-console-openllmetry-0.53-anthropic-rejected.json
#   ug    opentelemetry-util-genai 1.3b0 TelemetryHandler (invoke_agent, execute_tool spans)
#                                                         -> fixtures/otel/*-util-genai-agent*.json(l)
#   as    the anthropic SDK's own tracing 2.16.0 around its tool runner, with and without
#         its message thread                              -> fixtures/otel/*-console-anthropic-sdk*.json
# VENV_V2, VENV_OI, VENV_TL, VENV_TL53, VENV_TLA, VENV_LF, VENV_UG and VENV_AS are virtualenvs
# set up as gen-traces.py's docstring says (defaults: /tmp/venv-v2, /tmp/venv-oi, /tmp/venv-tl,
# /tmp/venv-tl53, /tmp/venv-tla, /tmp/venv-lf, /tmp/venv-ug, /tmp/venv-anth).
set -euo pipefail
cd "$(dirname "$0")/.."
gen=scripts/gen-traces.py
unset OTEL_SDK_DISABLED
which=("$@")
# One run through ConsoleSpanExporter to OUT and, for the broken scenario, the same run
# through the library's OTLP/HTTP exporter to the loopback collector (protobuf JSON, one
# export request per line) to OTLP.traces.jsonl: console_and_otlp PYTHON WHICH OUT RUN OTLP
console_and_otlp() {
    local python=$1 lib=$2 out=$3 run=$4 otlp=$5
    "$python" "$gen" "$lib" "$out" --exporter console --scenario "$run"
    if [ "$scenario" = broken ]; then
        rm -f "$otlp.traces.jsonl"
        "$python" "$gen" "$lib" "$otlp" --exporter otlp --scenario "$run"
    fi
}
[ ${#which[@]} -eq 0 ] && which=(v2 oi tl tl53 tla lf ug as)
for lib in "${which[@]}"; do
    for scenario in clean broken schema-string; do
        prefix=broken
        [ "$scenario" = clean ] && prefix=clean
        suffix=""
        [ "$scenario" = schema-string ] && suffix="-schema-string"
        case $lib in
            v2)
                # openai-v2 2.4b0 records no tool definitions: its schema-string trace holds
                # only the rejected request, nothing to check the schema in; not kept.
                [ "$scenario" = schema-string ] && continue
                OTEL_SEMCONV_STABILITY_OPT_IN=gen_ai_latest_experimental \
                OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=SPAN_ONLY \
                    "${VENV_V2:-/tmp/venv-v2}/bin/python" "$gen" v2 \
                    "fixtures/otel/$prefix-console-openai-v2$suffix.json" \
                    --exporter console --scenario "$scenario"
                ;;
            oi)
                "${VENV_OI:-/tmp/venv-oi}/bin/python" "$gen" openinference \
                    "fixtures/openinference/$prefix-console$suffix.json" \
                    --exporter console --scenario "$scenario"
                ;;
            tl | tl53)
                venv="${VENV_TL:-/tmp/venv-tl}"
                version=0.62
                if [ "$lib" = tl53 ]; then
                    venv="${VENV_TL53:-/tmp/venv-tl53}"
                    version=0.53
                fi
                TRACELOOP_TRACE_CONTENT=true "$venv/bin/python" "$gen" traceloop \
                    "fixtures/otel/$prefix-console-openllmetry-$version$suffix.json" \
                    --exporter console --scenario "$scenario"
                ;;
            tla)
                # Only the rejected request: the span OpenLLMetry leaves of it.
                [ "$scenario" = schema-string ] || continue
                TRACELOOP_TRACE_CONTENT=true "${VENV_TLA:-/tmp/venv-tla}/bin/python" "$gen" \
                    traceloop-anthropic \
                    fixtures/otel/not-content-console-openllmetry-0.53-anthropic-rejected.json \
                    --exporter console --scenario schema-string
                ;;
            ug)
                # The agent loop: `clean` (one call, answered), and for `broken` the loop of
                # three failing calls with empty arguments; no schema-string scenario.
                [ "$scenario" = schema-string ] && continue
                agent="$scenario"
                [ "$scenario" = broken ] && agent=loop
                ug="${VENV_UG:-/tmp/venv-ug}/bin/python"
                export OTEL_SEMCONV_STABILITY_OPT_IN=gen_ai_latest_experimental
                export OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=SPAN_ONLY
                console_and_otlp "$ug" agent "fixtures/otel/$prefix-console-util-genai-agent.json" \
                    "$agent" fixtures/otel/broken-otlp-util-genai-agent
                unset OTEL_SEMCONV_STABILITY_OPT_IN OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT
                ;;
            as)
                # `clean` (one call, answered) and for `broken` three failing calls; each run
                # whole in every request (`thread=False`) and on the runner's message thread.
                [ "$scenario" = schema-string ] && continue
                run="$scenario"
                name=clean-console-anthropic-sdk
                if [ "$scenario" = broken ]; then run=loop; name=broken-console-anthropic-sdk-loop; fi
                as="${VENV_AS:-/tmp/venv-anth}/bin/python"
                "$as" "$gen" anthropic-sdk "fixtures/otel/$name.json" --exporter console --scenario "$run"
                ANTHROPIC_THREADS=1 "$as" "$gen" anthropic-sdk "fixtures/otel/$name-threads.json" \
                    --exporter console --scenario "$run"
                ;;
            lf)
                console_and_otlp "${VENV_LF:-/tmp/venv-lf}/bin/python" logfire \
                    "fixtures/otel/$prefix-console-logfire-v1$suffix.json" "$scenario" \
                    fixtures/otel/broken-otlp-logfire-v1
                ;;
        esac
    done
done
