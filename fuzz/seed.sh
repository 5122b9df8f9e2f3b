#!/usr/bin/env bash
# Builds the seed corpora fuzz/corpus/{lint,fix,store} from fixtures/: every fixture
# under several option bytes, truncations (line prefixes of JSONL, byte cuts of JSON, cuts
# inside multi-byte characters) and layout mutations (compact, CRLF, no final newline, BOM);
# for the store target, SQLite rows from the Responses items and ADK events of the fixtures.
# Seeds are named by their SHA-1, so running it again only adds what is missing; to start
# over, `rm -rf fuzz/corpus` first. Needs python3 (standard library only).
set -euo pipefail
cd "$(dirname "$0")/.."
exec python3 fuzz/seed.py "$@"
