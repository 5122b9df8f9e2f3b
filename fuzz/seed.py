"""Builds the fuzz seed corpora from fixtures/ (run through fuzz/seed.sh).

Every lint and fix seed is two option bytes followed by a file (see fuzz/src/lib.rs for their
meaning: [format, ext + 3 * r]). Store seeds are two option bytes followed by rows (see
fuzz/src/store_check.rs), made from the Responses items and ADK events of fixtures/. Seeds are
named by their SHA-1, as libFuzzer names corpus files, so running this again only adds what
is missing.
"""

import hashlib
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures"
CORPUS = ROOT / "fuzz" / "corpus"
TARGETS = ["lint", "fix"]
# How many values of r each target reads (lint: r % 12, fix: r % 9).
R = {"lint": 12, "fix": 9}

EXTS = {".json": 0, ".jsonl": 1, ".ndjson": 2}
# Format::ALL order (src/format.rs); the format byte n means Format::ALL[n - 1], 0 is auto.
FORMATS = [
    "openai-chat",
    "openai-responses",
    "anthropic",
    "gemini",
    "bedrock-converse",
    "claude-code",
    "codex",
    "vercel-ai",
    "langchain",
    "moltis",
    "mcp",
    "spring-ai",
    "agentscope",
    "adk",
    "langgraph-stream",
    "cline",
    "pi",
    "copilot-cli",
    "gemini-cli",
    "qwen-code",
    "goose",
    "opencode",
    "crush",
    "otel",
    "openinference",
    "pydantic-ai",
    "langfuse",
    "langsmith",
    "langgraph-checkpoint",
    "letta",
    "strands",
    "atif",
    "openhands",
]
# Byte offsets (as fractions of the length) where JSON files are cut.
CUTS = [i / 17 for i in range(1, 17)]


def option_bytes(fmt, ext, r):
    return bytes([fmt, ext + 3 * r])


def format_index(path):
    name = path.relative_to(FIXTURES).parts[0]
    return FORMATS.index(name) + 1 if name in FORMATS else 0


def truncations(data, is_lines):
    """Prefixes of the file: every line prefix of a JSONL file; for JSON, cuts at a spread of
    offsets and inside multi-byte characters."""
    out = []
    if is_lines:
        lines = data.splitlines(keepends=True)
        for k in range(1, len(lines)):
            out.append(b"".join(lines[:k]))
        # The last record cut in half, and every line prefix without its final newline.
        if lines:
            last = lines[-1]
            out.append(b"".join(lines[:-1]) + last[: len(last) // 2])
        for k in range(1, len(lines) + 1, max(1, len(lines) // 8)):
            out.append(b"".join(lines[:k]).rstrip(b"\r\n"))
    else:
        for frac in CUTS:
            out.append(data[: int(len(data) * frac)])
    # Inside multi-byte characters: after the lead byte of up to 6 of them.
    leads = [i for i, b in enumerate(data) if b >= 0xC0]
    step = max(1, len(leads) // 6)
    for i in leads[::step][:6]:
        out.append(data[: i + 1])
        if data[i] >= 0xE0:
            out.append(data[: i + 2])
    return out


def compact_json(data):
    try:
        value = json.loads(data.decode("utf-8-sig"))
    except (ValueError, UnicodeDecodeError):
        return None
    return (json.dumps(value, ensure_ascii=False, separators=(",", ":")) + "\n").encode()


def layouts(data, is_lines):
    """The same content laid out differently."""
    out = []
    if is_lines:
        compact = []
        for line in data.splitlines():
            c = compact_json(line) if line.strip() else b"\n"
            compact.append(c if c is not None else line + b"\n")
        out.append(b"".join(compact))
        # Pretty records: not JSONL any more, but a common thing to meet.
        out.append(data.replace(b'","', b'",\n  "'))
    else:
        c = compact_json(data)
        if c is not None:
            out.append(c)
            out.append(c.rstrip(b"\n"))
    out.append(data.replace(b"\r\n", b"\n").replace(b"\n", b"\r\n"))
    out.append(data.rstrip(b"\r\n"))
    out.append(b"\xef\xbb\xbf" + data)
    out.append(b"\xef\xbb\xbf" + data.replace(b"\n", b"\r\n").rstrip(b"\r\n"))
    out.append(data + b"\n\n")
    return out


# The store target's schema byte and row byte (fuzz/src/store_check.rs).
ADK, BOTH, WITHOUT_ROWID, ROWID_COLUMN, WAL, UNRELATED = 1, 2, 4, 8, 16, 32
UNTYPED, BLOB_TYPE, INTEGER_TYPE = 64, 128, 192
BLOB, NULL, NUMBER = 5 << 2, 6 << 2, 7 << 2
OTHER_TABLE, REORDER, REPEAT_ROWID = 32, 64, 128


def store_sources(path):
    """(kind, items) for the Responses items and ADK events a fixture holds."""
    name = path.relative_to(FIXTURES).parts[0]
    value = compact_json(path.read_bytes())
    if value is None:
        return []
    value = json.loads(value)
    if not isinstance(value, dict):
        return []
    if name == "openai-responses":
        keys = ["input", "output"]
        kind = 0
    elif name == "adk":
        keys = ["events"]
        kind = ADK
    else:
        return []
    return [(kind, value[k]) for k in keys if isinstance(value.get(k), list) and value[k]]


def store_options(ext, r, names):
    return ext + 3 * r + 27 * names


def store_seed(schema, options, rows):
    return bytes([schema, options]) + b"\xff".join(bytes([c]) + j for c, j in rows)


def row_json(item, indent=None):
    # As the Python libraries write their rows: json.dumps with its default separators.
    return json.dumps(item, ensure_ascii=False, indent=indent).encode()


def store_seeds(n, kind, items):
    """Seeds for one list of items: plain under every fix option, each schema variant, and
    rows stored in different ways."""
    plain = [(0, row_json(item)) for item in items]
    out = []
    for r in range(9):
        out.append(store_seed(kind, store_options(n % 3, r, 0), plain))
    extras = [BOTH, WITHOUT_ROWID, ROWID_COLUMN, WAL, UNRELATED, WITHOUT_ROWID | ROWID_COLUMN,
              UNTYPED, BLOB_TYPE, INTEGER_TYPE, WAL | ROWID_COLUMN | UNRELATED]
    for i, extra in enumerate(extras):
        out.append(store_seed(kind | extra, store_options(i % 3, (n + i) % 9, i % 4), plain))
    last = len(plain) - 1
    variants = [
        # Two sessions, rows interleaved.
        [((i % 2), j) for i, (_, j) in enumerate(plain)],
        # Pretty rows: raw line breaks inside the JSON column.
        [(0, row_json(item, 2)) for item in items],
        [(0, row_json(item, 2).replace(b"\n", b"\r\n")) if i == last else (0, j)
         for i, ((_, j), item) in enumerate(zip(plain, items))],
        # A row stored as a blob, one NULL, one number.
        [(BLOB if i == 0 else 0, j) for i, (_, j) in enumerate(plain)],
        [(NULL if i == last else 0, j) for i, (_, j) in enumerate(plain)],
        [(NUMBER, b"42")] + plain,
        # The last row read first (an earlier id or timestamp).
        [(REORDER if i == last else 0, j) for i, (_, j) in enumerate(plain)],
        # The last row cut short, and a middle row missing.
        plain[:-1] + [(0, plain[-1][1][: len(plain[-1][1]) // 2])],
        [row for i, row in enumerate(plain) if i != len(plain) // 2],
    ]
    for i, rows in enumerate(variants):
        out.append(store_seed(kind, store_options(n % 3, (n + i) % 9, 0), rows))
    # Rows split between both tables, and a repeated user `rowid`.
    split = [(OTHER_TABLE if i % 2 else 0, j) for i, (_, j) in enumerate(plain)]
    out.append(store_seed(kind | BOTH, store_options(0, n % 9, 0), split))
    repeat = [(REPEAT_ROWID if i == 1 else 0, j) for i, (_, j) in enumerate(plain)]
    out.append(store_seed(kind | ROWID_COLUMN, store_options(0, n % 9, 0), repeat))
    return out


def main():
    counts = {}
    for target in TARGETS + ["store"]:
        (CORPUS / target).mkdir(parents=True, exist_ok=True)
        counts[target] = 0

    def add(target, option, data):
        seed = option + data
        path = CORPUS / target / hashlib.sha1(seed).hexdigest()
        if not path.exists():
            path.write_bytes(seed)
            counts[target] += 1

    fixtures = sorted(p for p in FIXTURES.rglob("*") if p.is_file())
    for n, path in enumerate(fixtures):
        data = path.read_bytes()
        ext = EXTS.get(path.suffix.lower(), 0)
        own = format_index(path)
        is_lines = ext != 0
        for target in TARGETS:
            # The fixture itself, under several option combinations: every `r` (loop options
            # and explicit for lint; unsafe fixes, unpaired-fix mode, explicit for fix), the
            # fixture's own format forced, the other extensions, and a wrong format forced.
            for r in range(R[target]):
                add(target, option_bytes(0, ext, r), data)
            add(target, option_bytes(own, ext, 0), data)
            add(target, option_bytes(own, ext, 1), data)
            for other in range(3):
                add(target, option_bytes(0, other, 0), data)
            add(target, option_bytes(1 + n % len(FORMATS), ext, 0), data)
            # Truncations and layouts, with options that vary from seed to seed.
            variants = truncations(data, is_lines) + layouts(data, is_lines)
            for i, variant in enumerate(variants):
                add(target, option_bytes(0, ext, (n + i) % R[target]), variant)
                if i % 4 == 0:
                    add(target, option_bytes(own, ext, (n + i + 1) % R[target]), variant)
        for kind, items in store_sources(path):
            for seed in store_seeds(n, kind, items):
                add("store", seed[:2], seed[2:])
    for target in TARGETS + ["store"]:
        total = sum(1 for _ in (CORPUS / target).iterdir())
        print(f"fuzz/corpus/{target}: {counts[target]} new seeds, {total} files", file=sys.stderr)


if __name__ == "__main__":
    main()
