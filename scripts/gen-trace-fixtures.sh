#!/usr/bin/env bash
# Regenerates the trace fixtures written by the real instrumentation libraries
# (scripts/gen-traces.py; optional, not run by CI), for the libraries named (default: all):
#   v2    opentelemetry-instrumentation-openai-v2 2.4b0       -> fixtures/otel/*-console-openai-v2*.json
#   oi    openinference-instrumentation-openai 0.1.66         -> fixtures/openinference/*-console*.json
#   tl    opentelemetry-instrumentation-openai (OpenLLMetry) 0.62.4 -> fixtures/otel/*-console-openllmetry-0.62*.json
#   tl53  the same at 0.53.4 (flattened attributes)           -> fixtures/otel/*-console-openllmetry-0.53*.json
#   lf    logfire 5.4.0, instrument_openai(version=1)         -> fixtures/otel/*-logfire-v1*.json(l)
# VENV_V2, VENV_OI, VENV_TL, VENV_TL53 and VENV_LF are virtualenvs set up as gen-traces.py's
# docstring says (defaults: /tmp/venv-v2, /tmp/venv-oi, /tmp/venv-tl, /tmp/venv-tl53,
# /tmp/venv-lf).
set -euo pipefail
cd "$(dirname "$0")/.."
gen=scripts/gen-traces.py
unset OTEL_SDK_DISABLED
which=("$@")
[ ${#which[@]} -eq 0 ] && which=(v2 oi tl tl53 lf)
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
            lf)
                lf="${VENV_LF:-/tmp/venv-lf}/bin/python"
                "$lf" "$gen" logfire "fixtures/otel/$prefix-console-logfire-v1$suffix.json" \
                    --exporter console --scenario "$scenario"
                # The same spans through Logfire's OTLP/HTTP exporter to the loopback
                # collector (protobuf JSON, one export request per line).
                if [ "$scenario" = broken ]; then
                    out="fixtures/otel/broken-otlp-logfire-v1"
                    rm -f "$out.traces.jsonl"
                    "$lf" "$gen" logfire "$out" --exporter otlp --scenario broken
                fi
                ;;
        esac
    done
done
