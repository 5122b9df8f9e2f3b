#!/usr/bin/env bash
# Builds the documentation book (book.toml, docs/) with a pinned mdBook, as CI does: any
# warning (an HTML tag the Markdown swallows, a missing page) fails the build. The links and
# the generated pages are checked by `tests/docs.rs`; this checks that mdBook renders it all.
set -euo pipefail
cd "$(dirname "$0")/.."
version=0.5.4
tools="$PWD/target/tools"
mdbook="$tools/bin/mdbook"
if ! { [ -x "$mdbook" ] && "$mdbook" --version | grep -qx "mdbook v$version"; }; then
  # Only the HTML renderer and its search index: no `serve`/`watch` (a web server and a file
  # watcher the build does not need).
  cargo install mdbook --version "=$version" --locked --no-default-features --features search \
    --root "$tools" --quiet
fi
log=$("$mdbook" build 2>&1)
echo "$log" | grep -v '^ INFO' || true
if grep -qE '^ *(WARN|ERROR)' <<< "$log"; then
  echo "check-docs: mdBook warned; fix the pages above" >&2
  exit 1
fi
echo "check-docs: the book builds ($(find target/book -name '*.html' | wc -l) pages)"
