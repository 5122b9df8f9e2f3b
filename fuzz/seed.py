"""Builds the fuzz seed corpora from fixtures/ (run through fuzz/seed.sh).

Every seed is two option bytes followed by a file (see fuzz/src/lib.rs for their meaning:
[format, ext + 3 * r]). Seeds are named by their SHA-1, as libFuzzer names corpus files, so
running this again only adds what is missing.
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


def main():
    counts = {}
    for target in TARGETS:
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
    for target in TARGETS:
        total = sum(1 for _ in (CORPUS / target).iterdir())
        print(f"fuzz/corpus/{target}: {counts[target]} new seeds, {total} files", file=sys.stderr)


if __name__ == "__main__":
    main()
