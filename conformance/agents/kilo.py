"""Kilo CLI (`@kilocode/cli`, an opencode fork): opencode's configuration and store under
Kilo's names (~/.config/kilo/kilo.json, ~/.local/share/kilo/kilo.db)."""

from agents.opencode import (  # noqa: F401
    ALL_SCENARIOS, COMPACT_PROMPT, DIALECT, MODEL, SHELL_TOOLS, calls_in, command_of, describe_files, for_app, make_call,
    results_in, stored_calls, versions)

NAME = "kilo"
PACKAGE = "@kilocode/cli"
TOOLCHECK_AGENT = "kilo-code"
SCENARIOS = ALL_SCENARIOS
SCENARIOS_SKIPPED = {"compaction": "`kilo run` sends `/compact` to the model as text, as opencode does"}

env, setup, start_cmd, resume_cmd, session_files, session_id = for_app("kilo", "kilo")
