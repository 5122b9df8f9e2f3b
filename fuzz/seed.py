"""Builds the fuzz seed corpora from fixtures/ (run through fuzz/seed.sh).

Every lint and fix seed is two option bytes followed by a file (see fuzz/src/lib.rs for their
meaning: [format, ext + 3 * r]). Store seeds are three option bytes followed by rows (see
fuzz/src/store_check.rs), made from the Responses items and ADK events of fixtures/ and from
small sessions of the other stores written here. Folder seeds are the Strands and OpenHands
session folders of fixtures/ (fuzz/src/folder_check.rs), doctor seeds homes of the coding
agents' fixtures and stores (fuzz/src/doctor_check.rs), lsp seeds editor sessions over
fixtures (fuzz/src/lsp_check.rs). Seeds are named by their SHA-1, as libFuzzer names corpus
files, so running this again only adds what is missing.
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


# The store target's kind byte, schema byte and row byte (fuzz/src/store_check.rs).
AGENTS, ADK, GOOSE, OPENCODE, CRUSH, LANGGRAPH, HERMES = range(7)
EMPTY_JOINS, BOTH, WITHOUT_ROWID, ROWID_COLUMN, WAL, UNRELATED = 1, 2, 4, 8, 16, 32
UNTYPED, BLOB_TYPE, INTEGER_TYPE = 64, 128, 192
BLOB, NULL, NUMBER = 5 << 2, 6 << 2, 7 << 2
OTHER_TABLE, REORDER, REPEAT_ROWID = 32, 64, 128


def kinds(first, second=None):
    """The kind byte: the first table's kind, and the second's (made with BOTH)."""
    if second is None:
        second = {AGENTS: ADK, ADK: AGENTS}.get(first, AGENTS)
    return first + 7 * second


def fields(json_text, *more):
    """A row's bytes: its JSON, then the other columns after 0xFE."""
    return b"\xfe".join([json_text.encode()] + [m.encode() for m in more])


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


def store_seed(kind, schema, options, rows):
    return bytes([kind, schema, options]) + b"\xff".join(bytes([c]) + j for c, j in rows)


def row_json(item, indent=None):
    # As the Python libraries write their rows: json.dumps with its default separators.
    return json.dumps(item, ensure_ascii=False, indent=indent).encode()


def store_seeds(n, kind, items):
    """Seeds for one list of items: plain under every fix option, each schema variant, and
    rows stored in different ways."""
    return row_seeds(n, kind, [row_json(item) for item in items],
                     [row_json(item, 2) for item in items])


def row_seeds(n, kind, plain_rows, pretty_rows=None):
    """Seeds for one session's rows (their bytes) of a table of `kind`."""
    plain = [(0, j) for j in plain_rows]
    k = kinds(kind)
    out = []
    for r in range(9):
        out.append(store_seed(k, 0, store_options(n % 3, r, 0), plain))
    extras = [BOTH, WITHOUT_ROWID, ROWID_COLUMN, WAL, UNRELATED, WITHOUT_ROWID | ROWID_COLUMN,
              UNTYPED, BLOB_TYPE, INTEGER_TYPE, WAL | ROWID_COLUMN | UNRELATED, EMPTY_JOINS]
    for i, extra in enumerate(extras):
        out.append(store_seed(k, extra, store_options(i % 3, (n + i) % 9, i % 4), plain))
    last = len(plain) - 1
    variants = [
        # Two sessions, rows interleaved.
        [((i % 2), j) for i, (_, j) in enumerate(plain)],
        # The row cut short, a middle row missing, a row as a blob, one NULL, one number.
        plain[:-1] + [(0, plain[-1][1][: len(plain[-1][1]) // 2])],
        [row for i, row in enumerate(plain) if i != len(plain) // 2],
        [(BLOB if i == 0 else 0, j) for i, (_, j) in enumerate(plain)],
        [(NULL if i == last else 0, j) for i, (_, j) in enumerate(plain)],
        [(NUMBER, b"42")] + plain,
        # The last row read first (an earlier id or timestamp).
        [(REORDER if i == last else 0, j) for i, (_, j) in enumerate(plain)],
    ]
    if pretty_rows:
        # Pretty rows: raw line breaks inside the JSON column.
        variants.append([(0, j) for j in pretty_rows])
        variants.append([(0, j.replace(b"\n", b"\r\n")) if i == last else (0, plain[i][1])
                         for i, j in enumerate(pretty_rows)])
    for i, rows in enumerate(variants):
        out.append(store_seed(k, 0, store_options(n % 3, (n + i) % 9, 0), rows))
    # Rows split between both tables (and two tables of this kind), a repeated user `rowid`.
    split = [(OTHER_TABLE if i % 2 else 0, j) for i, (_, j) in enumerate(plain)]
    out.append(store_seed(k, BOTH, store_options(0, n % 9, 0), split))
    out.append(store_seed(kinds(kind, kind), BOTH, store_options(0, n % 9, 1), split))
    repeat = [(REPEAT_ROWID if i == 1 else 0, j) for i, (_, j) in enumerate(plain)]
    out.append(store_seed(k, ROWID_COLUMN, store_options(0, n % 9, 0), repeat))
    return out


# Small sessions of the stores no fixture holds (their shapes: tests/store_*.rs), each a clean
# and a broken one: rows as the store target reads them (JSON, then fields after 0xFE).
def goose_sessions():
    call = ('[{"type":"toolRequest","id":"t1","toolCall":{"status":"success","value":'
            '{"name":"developer__shell","arguments":{"command":"ls"}}}}]')
    result = ('[{"type":"toolResponse","id":"t1","toolResult":{"status":"success","value":'
              '{"content":[{"type":"text","text":"a.txt"}],"isError":false}}}]')
    hidden = '{"userVisible":true,"agentVisible":false}'
    clean = [fields('[{"type":"text","text":"List the files"}]', "user"),
             fields('[{"type":"text","text":"Listing."},' + call[1:], "assistant"),
             fields(result, "user"),
             fields('[{"type":"text","text":"One file: a.txt"}]', "assistant")]
    broken = [fields('[{"type":"text","text":"Fix the build"}]', "user"),
              fields(call.replace("t1", "old"), "assistant", hidden),
              fields(result.replace("t1", "old")[:-1] + ',{"type":"text","text":"Go on"}]', "user"),
              fields('[{"type":"toolRequest","id":"t2","toolCall":{"status":"error","error":'
                     '"Could not interpret tool use parameters for id t2: EOF"}}]', "assistant"),
              fields(result.replace("t1", "t2"), "user"),
              fields(call.replace("t1", "t3"), "assistant"),
              fields('[{"type":"text","text":"Stop, build it first"}]', "user")]
    return clean, broken


def opencode_sessions():
    user = '{"role":"user","time":{"created":1795000000000},"agent":"build"}'
    assistant = ('{"role":"assistant","parentID":"msg_001","providerID":"anthropic",'
                 '"modelID":"claude-sonnet-4-5","mode":"build","time":{"created":1795000000100}}')

    def tool(call, status):
        return ('{"type":"tool","callID":"%s","tool":"bash","state":{"status":"%s",'
                '"input":{"command":"ls"},"output":"a.txt","title":"ls","metadata":{},'
                '"time":{"start":1795000000200,"end":1795000000300}}}' % (call, status))
    clean = [fields('{"type":"text","text":"Read a.txt"}', user),
             fields('{"type":"step-start"}', assistant),
             fields(tool("toolu_1", "completed")),
             fields('{"type":"text","text":"It says hello."}', assistant)]
    broken = [fields('{"type":"text","text":"Fix it"}', user),
              fields('{"type":"step-start"}', assistant),
              fields(tool("toolu_2", "running")),
              fields('{"type":"text","text":"Why did it stop?"}', user),
              fields(tool("toolu_3", "error").replace('"output":"a.txt"', '"error":"exit 1"'),
                     assistant.replace("}", ',"error":{"name":"APIError"}}', 1)),
              fields(tool("toolu_4", "pending"), assistant)]
    return clean, broken


def crush_sessions():
    def text(t):
        return '[{"type":"text","data":{"text":"%s"}}]' % t

    def call(i, finished="true"):
        return ('{"type":"tool_call","data":{"id":"%s","name":"bash","input":'
                '"{\\"command\\":\\"ls\\"}","provider_executed":false,"finished":%s}}'
                % (i, finished))

    def result(i, error="false"):
        return ('{"type":"tool_result","data":{"tool_call_id":"%s","name":"bash","content":'
                '"main.go","data":"","mime_type":"","metadata":"","is_error":%s}}' % (i, error))
    clean = [fields(text("List the files"), "user"),
             fields("[%s]" % call("c1"), "assistant"),
             fields("[%s]" % result("c1"), "tool"),
             fields(text("One file: main.go"), "assistant")]
    broken = [fields(text("Fix the build"), "user"),
              fields("[%s,%s]" % (call("c1"), call("c2", "false")), "assistant"),
              fields("[%s,%s]" % (result("c1"), result("gone")), "tool"),
              fields(text("Go on"), "user", "summary"),
              fields("[%s]" % call("c3"), "assistant"),
              fields("[%s]" % result("c3", "true"), "tool")]
    return clean, broken


def hermes_sessions():
    # Not a store toolcheck reads: a near miss of Goose's and Crush's `messages`.
    calls = '[{"id":"call_1","type":"function","function":{"name":"terminal","arguments":"{}"}}]'
    return ([fields("List the files", "user"), fields("", "assistant", calls),
             fields("a.txt", "tool")], [fields("", "assistant", calls), fields("Go on", "user")])


def langgraph_rows():
    # JSON checkpoints (`type` json: the row byte's bits 2-4 are 3).
    msgs = ('{"v":1,"id":"1f0","ts":"2025-01-01T00:00:00+00:00","channel_values":{"messages":'
            '[{"lc":1,"type":"constructor","id":["langchain","schema","messages","HumanMessage"],'
            '"kwargs":{"content":"hi","type":"human"}},'
            '{"lc":1,"type":"constructor","id":["langchain","schema","messages","AIMessage"],'
            '"kwargs":{"content":"","type":"ai","tool_calls":[{"name":"ls","args":{},'
            '"id":"call_1","type":"tool_call"}]}}]}}')
    return [(3 << 2, msgs.encode()), (3 << 2 | REORDER, msgs.encode()),
            (3 << 2 | REPEAT_ROWID, msgs.encode()), (4 << 2, b"\x80\x04K\x01."), (0, b"\x81\xa1v\x01")]


def other_store_seeds():
    out = []
    for n, (kind, sessions) in enumerate([(GOOSE, goose_sessions()), (OPENCODE, opencode_sessions()),
                                          (CRUSH, crush_sessions()), (HERMES, hermes_sessions())]):
        for rows in sessions:
            out.extend(row_seeds(n, kind, rows))
    rows = langgraph_rows()
    for r in range(9):
        out.append(store_seed(kinds(LANGGRAPH), 0, store_options(0, r, 0), rows))
    out.append(store_seed(kinds(LANGGRAPH), BOTH | UNRELATED, store_options(1, 0, 2), rows))
    return out


# The folder target's option byte and file byte (fuzz/src/folder_check.rs).
OPENHANDS, RECORDS, UNSAFE, REMOVE_CALL, READ_ONLY, TWO = 1, 8, 16, 32, 64, 128
SPELLINGS = 8


def folder_seeds(n, kind, files):
    """Seeds for one session folder's files (in order): every way of naming it, the records
    beside it, two folders, fix options, a read-only file, other spellings, a link, a
    directory, a file left out, a file cut short."""
    def seed(f, r, entries):
        return bytes([f, r]) + b"\xff".join(bytes([c]) + b for c, b in entries)
    plain = [(0, b) for b in files]
    out = []
    for named in range(4):
        out.append(seed(kind | named << 1, 0, plain))
        out.append(seed(kind | named << 1 | RECORDS, n % 8, plain))
    half = len(files) // 2
    two = [(OTHER_TABLE if i >= half else 0, b) for i, b in enumerate(files)]
    out.append(seed(kind | TWO | 6, 0, two))
    out.append(seed(kind | TWO | 4 | RECORDS, 1, two))
    out.append(seed(kind | UNSAFE, 0, plain))
    out.append(seed(kind | REMOVE_CALL | UNSAFE, 0, plain))
    for k in range(0, len(files), max(1, len(files) // 4)):
        out.append(seed(kind | READ_ONLY, 8 * k, plain))
    for i in range(len(files)):
        spelling = 1 + (n + i) % (SPELLINGS - 1)
        out.append(seed(kind, 0, [((spelling << 2) if j == i else 0, b)
                                  for j, (_, b) in enumerate(plain)]))
    mid = len(files) // 2
    out.append(seed(kind, 0, [(64 if j == mid else 0, b) for j, (_, b) in enumerate(plain)]))
    out.append(seed(kind, 0, [(128 if j == mid else 0, b) for j, (_, b) in enumerate(plain)]))
    out.append(seed(kind, 0, [(1 if j == mid else 0, b) for j, (_, b) in enumerate(plain)]))
    out.append(seed(kind, 0, [(2 if j == mid else 0, b) for j, (_, b) in enumerate(plain)]))
    out.append(seed(kind, 0, [row for j, row in enumerate(plain) if j != mid]))
    out.append(seed(kind, 0, plain[:-1] + [(0, files[-1][: len(files[-1]) // 2])]))
    return out


def session_folders():
    """(kind, files in order) for the session folders of fixtures/."""
    out = []
    for d in sorted(FIXTURES.glob("strands/*/agents/*/messages")):
        files = sorted(d.glob("message_*.json"), key=lambda p: int(p.stem.split("_")[1]))
        out.append((0, [p.read_bytes() for p in files]))
    for d in sorted(FIXTURES.glob("openhands/*/*/events")):
        files = sorted(d.glob("event-*.json"), key=lambda p: int(p.name.split("-")[1].split(".")[0]))
        out.append((OPENHANDS, [p.read_bytes() for p in files]))
    return out


# The doctor target's places (fuzz/src/doctor_check.rs `PLACES`) for the fixtures of agents.
DOCTOR_PLACES = {
    "claude-code": [0, 1, 2], "codex": [3, 4], "pi": [5, 7, 8], "cline": [11, 12, 13, 15],
    "copilot-cli": [18], "gemini-cli": [22, 23], "qwen-code": [24],
}
DOCTOR_DBS = [6, 10, 14, 16, 17, 20]
FIX_FORCE, FIX, VERBOSE, JSON, XDG, MOVED, ONLY_FIRST, SINCE = 1, 2, 4, 8, 16, 32, 64, 128
OLD, LINK, READ_ONLY_FILE, RAW = 32, 64, 128, 192


def doctor_seeds(stores):
    """Homes: every agent's fixtures at its places (some old, one a link, one read-only),
    with session databases the store seeds describe, under each option byte."""
    files = []
    for agent, places in sorted(DOCTOR_PLACES.items()):
        fixtures = sorted((FIXTURES / agent).glob("*"))
        for i, path in enumerate(fixtures):
            files.append((places[i % len(places)], path.read_bytes()))
    files = files[:24]

    def seed(g, entries):
        return bytes([g]) + b"\xff".join(bytes([p]) + b for p, b in entries)
    out = []
    aged = [(p | OLD if i % 2 else p, b) for i, (p, b) in enumerate(files)]
    odd = [(p | (LINK if i == 3 else READ_ONLY_FILE if i == 5 else 0), b)
           for i, (p, b) in enumerate(aged)]
    for g in [0, VERBOSE | JSON, FIX_FORCE, FIX, FIX_FORCE | XDG, FIX_FORCE | MOVED,
              FIX | ONLY_FIRST, FIX_FORCE | SINCE, XDG | MOVED | VERBOSE]:
        out.append(seed(g, aged))
        out.append(seed(g, odd))
    # Databases at each database place: the store seeds' bytes, rows separated by 0xFD.
    for i, store in enumerate(stores[:: max(1, len(stores) // 40)]):
        db = store.replace(b"\xff", b"\xfd")
        place = DOCTOR_DBS[i % len(DOCTOR_DBS)]
        g = [FIX_FORCE, 0, FIX_FORCE | XDG | MOVED, FIX][i % 4]
        out.append(seed(g, [(place | (OLD if i % 3 else 0), db)] + aged[i % len(aged):][:2]))
    out.append(seed(FIX_FORCE, [(p | RAW, b"SQLite format 3\x00garbage") for p in DOCTOR_DBS]))
    return out


def lsp_seeds(n, data):
    """Editor sessions over one fixture: open it, ask for fixes and hover, change it to a cut
    copy, close it; with a config file, garbage frames, no shutdown."""
    def seed(h, messages):
        return bytes([h]) + b"\xff".join(bytes([m]) + p for m, p in messages)
    doc = (n % 3) << 4
    session = [(0 | doc, data), (3 | doc, bytes([0, 0, 30, 0])), (4 | doc, bytes([1, 4])),
               (1 | doc, data[: len(data) // 2]), (3 | doc, bytes([0, 0, 1, 0])), (2 | doc, b"")]
    out = [seed(0, session), seed(4 | 16, session), seed(8, session[:2]),
           seed(12 | 32, session), seed(2, session[:3])]
    out.append(seed(0, session[:1] + [(9, b"{\"jsonrpc\":\"2.0\",\"id\":1")] + session[1:3]))
    out.append(seed(0, session[:2] + [(11 | 0x90, b"{}"), (5, b""), (6, b""), (7, b""), (8, b"")]))
    out.append(seed(1, [(10, b"Content-Length: 2\r\n\r\n{}")] + session[:2]))
    out.append(seed(2, session[:2] + [(12, b""), (13, b"")]))
    return out


def main():
    targets = TARGETS + ["store", "folder", "doctor", "lsp"]
    counts = {}
    for target in targets:
        (CORPUS / target).mkdir(parents=True, exist_ok=True)
        counts[target] = 0

    def add(target, option, data):
        seed = option + data
        path = CORPUS / target / hashlib.sha1(seed).hexdigest()
        if not path.exists():
            path.write_bytes(seed)
            counts[target] += 1

    stores = []
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
            stores.extend(store_seeds(n, kind, items))
    # The DeepSeek Harness logs as the text their frames decompress to (their sources in
    # tests/data/dsh/), which the fix target also compresses into frames of its own.
    for path in sorted((ROOT / "tests/data/dsh").glob("*.frames")):
        lines = [l for l in path.read_text().splitlines() if not l.startswith("---")]
        data = ("\n".join(lines) + "\n").encode()
        for target in ("lint", "fix"):
            for r in range(R[target]):
                add(target, option_bytes(0, 1, r), data)
        # A quarter of the small fixtures: each lsp seed is a process of its own.
        if n % 4 == 0 and len(data) < 16384:
            for seed in lsp_seeds(n, data):
                add("lsp", seed[:1], seed[1:])
    stores.extend(other_store_seeds())
    for seed in stores:
        add("store", seed[:3], seed[3:])
    for n, (kind, files) in enumerate(session_folders()):
        for seed in folder_seeds(n, kind, files):
            add("folder", seed[:2], seed[2:])
    for seed in doctor_seeds(stores):
        add("doctor", seed[:1], seed[1:])
    for target in targets:
        total = sum(1 for _ in (CORPUS / target).iterdir())
        print(f"fuzz/corpus/{target}: {counts[target]} new seeds, {total} files", file=sys.stderr)


if __name__ == "__main__":
    main()
