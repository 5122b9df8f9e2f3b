#!/usr/bin/env bash
# Regenerates the trace fixtures written by the real instrumentation libraries
# (scripts/gen-traces.py; optional, not run by CI). VENV_V2 and VENV_OI are virtualenvs set
# up as gen-traces.py's docstring says (defaults: /tmp/venv-v2, /tmp/venv-oi).
set -euo pipefail
cd "$(dirname "$0")/.."
v2="${VENV_V2:-/tmp/venv-v2}/bin/python"
oi="${VENV_OI:-/tmp/venv-oi}/bin/python"
gen=scripts/gen-traces.py
export -n OTEL_SDK_DISABLED || true
for scenario in clean broken schema-string; do
    case $scenario in
        clean) prefix=clean ;;
        *) prefix=broken ;;
    esac
    suffix=""
    [ "$scenario" = schema-string ] && suffix="-schema-string"
    # openai-v2 2.4b0 records no tool definitions: its schema-string trace holds only the
    # rejected request, nothing to check the schema in, so it is not kept.
    if [ "$scenario" != schema-string ]; then
        OTEL_SEMCONV_STABILITY_OPT_IN=gen_ai_latest_experimental \
        OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=SPAN_ONLY \
            "$v2" "$gen" v2 "fixtures/otel/$prefix-console-openai-v2$suffix.json" \
            --exporter console --scenario "$scenario"
    fi
    "$oi" "$gen" openinference "fixtures/openinference/$prefix-console$suffix.json" \
        --exporter console --scenario "$scenario"
done
