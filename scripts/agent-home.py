#!/usr/bin/env python3
"""Generates a home directory of realistic size for timing `toolcheck doctor`.

Usage: scripts/agent-home.py DIR [SESSIONS]

Writes SESSIONS (default 3000) session files under DIR, spread across the agents whose
stores this version reads, in each agent's layout (see src/agents.rs), from the project's
own fixtures; about one in ten is a broken one, and modification times are spread over the
last 60 days. Then time it:

    HOME=DIR XDG_STATE_HOME=DIR/.local/state toolcheck doctor
"""

import os
import random
import sys
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures"

# agent: (share of the sessions, clean fixtures, broken fixtures, where a session goes)
AGENTS = {
    "claude-code": (
        0.40,
        ["claude-code/clean-session.jsonl", "claude-code/clean-subagent.jsonl"],
        ["claude-code/broken-unanswered-then-prompt.jsonl", "claude-code/broken-loop.jsonl"],
        lambda r, i: f".claude/projects/-home-dev-project{i % 25}/{uuid.UUID(int=r.getrandbits(128))}.jsonl",
    ),
    "codex": (
        0.27,
        ["codex/clean-session.jsonl", "codex/clean-compacted.jsonl"],
        ["codex/broken-interrupted.jsonl", "codex/broken-arguments.jsonl"],
        lambda r, i: f".codex/sessions/2026/{1 + i % 11:02}/{1 + i % 28:02}/rollout-2026-{1 + i % 11:02}-{1 + i % 28:02}T10-00-00-{uuid.UUID(int=r.getrandbits(128))}.jsonl",
    ),
    "pi": (
        0.10,
        ["pi/clean-session.jsonl"],
        ["pi/broken-session.jsonl"],
        lambda r, i: f".pi/agent/sessions/--home-dev-project{i % 10}--/2026-11-01T10-00-00-000Z_{uuid.UUID(int=r.getrandbits(128))}.jsonl",
    ),
    "openclaw": (
        0.05,
        ["pi/clean-session.jsonl"],
        ["pi/broken-session.jsonl"],
        lambda r, i: f".openclaw/agents/main/sessions/{uuid.UUID(int=r.getrandbits(128))}.jsonl",
    ),
    "cline": (
        0.07,
        ["cline/clean-text-results.json"],
        ["cline/broken-history.json"],
        lambda r, i: f".config/Code/User/globalStorage/saoudrizwan.claude-dev/tasks/{1760000000000 + i}/api_conversation_history.json",
    ),
    "roo-code": (
        0.04,
        ["cline/clean-condensed.json"],
        ["cline/broken-history.json"],
        lambda r, i: f".config/Code/User/globalStorage/rooveterinaryinc.roo-cline/tasks/{uuid.UUID(int=r.getrandbits(128))}/api_conversation_history.json",
    ),
    "copilot-cli": (
        0.07,
        ["copilot-cli/clean-events.jsonl"],
        ["copilot-cli/broken-events.jsonl"],
        lambda r, i: f".copilot/session-state/{uuid.UUID(int=r.getrandbits(128))}/events.jsonl",
    ),
}


def main() -> None:
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    home = Path(sys.argv[1])
    total = int(sys.argv[2]) if len(sys.argv) > 2 else 3000
    rng = random.Random(7)
    now = time.time()
    cache = {}
    written = 0
    size = 0
    for agent, (share, clean, broken, place) in AGENTS.items():
        for i in range(round(total * share)):
            fixture = rng.choice(broken if rng.random() < 0.1 else clean)
            data = cache.setdefault(fixture, (FIXTURES / fixture).read_bytes())
            path = home / place(rng, i)
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)
            # At least two minutes old: none is "in use".
            age = rng.uniform(120, 60 * 86400)
            os.utime(path, (now - age, now - age))
            written += 1
            size += len(data)
    print(f"{written} sessions, {size / 1e6:.1f} MB under {home}")


if __name__ == "__main__":
    main()
