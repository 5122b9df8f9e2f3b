#!/usr/bin/env bash
# The Action's run step (action.yml), kept here so tests/action.rs runs it as the runner does.
#
# Inputs, from the environment:
#   TOOLCHECK_ARGS   the command line after `toolcheck` (split on whitespace: no quoting)
#   TOOLCHECK_PATHS  paths to check, one per line (a path may hold spaces); appended to ARGS
#   TOOLCHECK_SARIF  where to write SARIF findings, or empty
#   GITHUB_OUTPUT    the step's output file (exit-code=N is written to it)
#
# The SARIF pass is a `toolcheck lint --output-format sarif` of its own: ARGS's options
# that write or pick the output are left out of it (an `--output-format` or `fix --write` in
# ARGS once made it write an empty file or apply fixes, and `|| true` hid its failure). Its
# findings (exit 1) do not fail the step; its trouble (exit 2) does, with an error
# annotation, and the step's exit code says it.
set -euo pipefail

read -r -a args <<< "${TOOLCHECK_ARGS:-lint}"
paths=()
while IFS= read -r line; do
  [ -n "$line" ] && paths+=("$line")
done <<< "${TOOLCHECK_PATHS:-}"

sarif_status=0
if [ -n "${TOOLCHECK_SARIF:-}" ]; then
  # ARGS as a lint: its subcommand, the options that write or choose the output dropped
  # (the rest, such as --select or --config, kept so SARIF shows what the run checks).
  sarif_args=()
  skip_next=0
  for word in "${args[@]:1}"; do
    if [ "$skip_next" = 1 ]; then skip_next=0; continue; fi
    case "$word" in
      --write|--fix|--diff|--unsafe-fixes|--quiet|-q) ;;
      --output-format|--unpaired) skip_next=1 ;;
      --output-format=*|--unpaired=*) ;;
      *) sarif_args+=("$word") ;;
    esac
  done
  set +e
  if ! : 2> /dev/null > "$TOOLCHECK_SARIF"; then
    sarif_status=2
  elif [ "${#paths[@]}" -gt 0 ]; then
    toolcheck lint "${sarif_args[@]}" --output-format sarif -- "${paths[@]}" > "$TOOLCHECK_SARIF"
    sarif_status=$?
  else
    toolcheck lint "${sarif_args[@]}" --output-format sarif > "$TOOLCHECK_SARIF"
    sarif_status=$?
  fi
  set -e
  if [ "$sarif_status" -ge 2 ]; then
    echo "::error title=toolcheck::the SARIF run failed (exit $sarif_status); $TOOLCHECK_SARIF is incomplete"
  fi
fi

set +e
if [ "${#paths[@]}" -gt 0 ]; then
  toolcheck "${args[@]}" -- "${paths[@]}"
else
  toolcheck "${args[@]}"
fi
status=$?
set -e
if [ "$sarif_status" -ge 2 ] && [ "$status" -lt 2 ]; then
  status=$sarif_status
fi
echo "exit-code=$status" >> "${GITHUB_OUTPUT:-/dev/null}"
exit "$status"
