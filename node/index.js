'use strict';
// toolcheck for Node.js: lint and repair tool calls in LLM conversation histories, and guard
// a request before a provider rejects it. The Rust core (toolcheck.node, built by
// `npm install`) does the work; this module converts JavaScript values to JSON text and the
// findings back. Findings have the fields of `toolcheck lint --output-format json`.

const fs = require('node:fs');
const path = require('node:path');

let native;
try {
  native = require('./toolcheck.node');
} catch (e) {
  throw new Error(
    `toolcheck: the native addon ${path.join(__dirname, 'toolcheck.node')} is missing or unloadable ` +
      `(run \`npm run build\` in ${__dirname}; it needs the Rust toolchain): ${e.message}`,
  );
}

/** The name a value is linted under when none is given: its extension decides JSON or JSONL. */
const DEFAULT_NAME = '<input>.json';
/** Each record of lintMany is a one-record JSONL file, as a line of a dataset. */
const RECORD_NAME = '<record>.jsonl';

function names(value, what) {
  if (value === undefined || value === null) return [];
  if (typeof value === 'string') {
    return value
      .split(',')
      .map((v) => v.trim())
      .filter((v) => v);
  }
  if (!Array.isArray(value)) {
    throw new TypeError(`${what} must be a string or an array of strings, not ${typeof value}`);
  }
  for (const item of value) {
    if (typeof item !== 'string') throw new TypeError(`${what} must hold strings, not ${typeof item}`);
  }
  return value.map((v) => v.trim());
}

/** `tools` as JSON texts: a path (like `--tools FILE`), an array of paths, a Buffer, or a
 * tools document as an object or array. */
function toolDocs(tools) {
  if (tools === undefined || tools === null) return [];
  if (typeof tools === 'string' || tools instanceof URL) {
    try {
      return [fs.readFileSync(tools, 'utf8')];
    } catch (e) {
      throw new Error(`cannot use tools file ${tools}: ${e.message}`);
    }
  }
  if (Buffer.isBuffer(tools)) return [tools.toString('utf8')];
  if (Array.isArray(tools) && tools.length && tools.every((t) => typeof t === 'string' || t instanceof URL)) {
    return tools.flatMap(toolDocs);
  }
  if (typeof tools === 'object') return [JSON.stringify(tools)];
  throw new TypeError(`tools must be a path, an array of paths, or tool definitions, not ${typeof tools}`);
}

// Options hold the compiled tool schemas: calls with the same settings share one, so a schema
// is compiled once per process, not on every lint() or guard(). Bounded; starts over when full.
const OPTIONS = new Map();
const OPTIONS_KEPT = 64;

/**
 * Checks options once, for reuse across calls (`options:` of every function). Throws for an
 * unknown format, target or rule, or an unusable tools document.
 */
function options({ format = 'auto', tools, target, select, ignore, unpaired } = {}) {
  if (typeof format !== 'string') throw new TypeError(`format must be a string, not ${typeof format}`);
  if (unpaired !== undefined && unpaired !== null && typeof unpaired !== 'string') {
    throw new TypeError(`unpaired must be a string, not ${typeof unpaired}`);
  }
  const key = [format, toolDocs(tools), names(target, 'target'), names(select, 'select'), names(ignore, 'ignore'), unpaired ?? null];
  const id = JSON.stringify(key);
  let found = OPTIONS.get(id);
  if (found === undefined) {
    found = new native.Options(format, key[1], key[2], key[3], key[4], key[5] ?? undefined);
    if (OPTIONS.size >= OPTIONS_KEPT) OPTIONS.clear();
    OPTIONS.set(id, found);
  }
  return found;
}

function pickOptions(given, settings) {
  if (given !== undefined && given !== null) {
    if (Object.values(settings).some((v) => v !== undefined && v !== null && v !== 'auto')) {
      throw new Error('give either options or the individual options, not both');
    }
    if (!(given instanceof native.Options)) throw new TypeError('options must come from toolcheck.options()');
    return given;
  }
  return options(settings);
}

/** Whether a string is a file or folder name rather than JSON text. */
function looksLikeAPath(text) {
  const s = text.trim();
  if (!s || s.includes('\n') || '{["'.includes(s[0]) || s.length > 4096) return false;
  try {
    return fs.existsSync(s);
  } catch {
    return false;
  }
}

/** The text to lint and what kind of input it was: 'object', 'string' or 'buffer'. */
function toText(value) {
  if (typeof value === 'string') {
    if (looksLikeAPath(value)) {
      throw new Error(`${JSON.stringify(value)} names a file or folder, and lint() reads JSON text: use toolcheck.lintPath()`);
    }
    return [value, 'string'];
  }
  if (value instanceof Uint8Array) return [Buffer.from(value.buffer, value.byteOffset, value.byteLength), 'buffer'];
  if (value !== null && typeof value === 'object') {
    let text;
    try {
      text = JSON.stringify(value);
    } catch (e) {
      throw new TypeError(`the value is not JSON-serialisable: ${e.message}`);
    }
    return [text, 'object'];
  }
  throw new TypeError(`expected an object, an array, or JSON/JSONL text as a string or Buffer, not ${value === null ? 'null' : typeof value}`);
}

/** A finding as the JSON output's object, with `tool_call_id` and `providers` always set. */
function finding(d) {
  if (d.tool_call_id === undefined) d.tool_call_id = null;
  if (d.providers === undefined) d.providers = [];
  return d;
}

function findings(json) {
  return JSON.parse(json).map(finding);
}

/**
 * Lints one conversation (or a JSONL file's worth of them): an object or array (a request
 * body, a message list, a session's records), or JSON/JSONL text as a string or Buffer.
 * Objects are serialised with JSON.stringify: use `pointer`, not line/column, for them.
 */
function lint(value, { format, tools, target, select, ignore, name, options: given } = {}) {
  const opts = pickOptions(given, { format, tools, target, select, ignore });
  const [text] = toText(value);
  return findings(native.lintText(opts, text, name || DEFAULT_NAME));
}

/**
 * Lints files and folders as `toolcheck lint PATH...` does (config files are not read: the
 * options given are the whole setting). Findings carry their file in `path`.
 */
function lintPath(paths, { format, tools, target, select, ignore, options: given } = {}) {
  const opts = pickOptions(given, { format, tools, target, select, ignore });
  const list = (Array.isArray(paths) ? paths : [paths]).map((p) => (p instanceof URL ? p.pathname : String(p)));
  return findings(native.lintPaths(opts, list));
}

/**
 * Lints many records, one conversation each (an object or array, or a JSON document as a
 * string or Buffer), on every core (or `threads`). One array of findings per record, in
 * order; each record's findings are those `toolcheck lint` reports for its line of a JSONL
 * file.
 */
function lintMany(records, { format, tools, target, select, ignore, threads, options: given } = {}) {
  const opts = pickOptions(given, { format, tools, target, select, ignore });
  const texts = Array.from(records, (r, i) => {
    if (typeof r === 'string') return r;
    try {
      return toText(r)[0];
    } catch (e) {
      throw new TypeError(`record ${i}: ${e.message}`);
    }
  });
  return JSON.parse(native.lintMany(opts, texts, RECORD_NAME, threads ?? undefined)).map((f) => f.map(finding));
}

/**
 * Repairs what lint() finds, as `toolcheck fix --write` does (`unsafe: true`:
 * `--unsafe-fixes`; `unpaired: 'remove-call'`: `--unpaired remove-call`). Returns the repaired
 * value (an object comes back as an object parsed from the repaired text, or as the same
 * object when nothing changed; a string as a string, a Buffer as a Buffer) and what was done.
 */
function fix(value, { unsafe = false, unpaired, format, tools, target, select, ignore, name, options: given } = {}) {
  const opts = pickOptions(given, { format, tools, target, select, ignore, unpaired });
  const [text, kind] = toText(value);
  const fixed = native.fixText(opts, text, name || DEFAULT_NAME, Boolean(unsafe));
  let out;
  if (kind === 'object') out = fixed.changed ? JSON.parse(fixed.text) : value;
  else if (kind === 'buffer') out = Buffer.from(fixed.text, 'utf8');
  else out = fixed.text;
  return {
    value: out,
    text: fixed.text,
    changed: fixed.changed,
    applied: fixed.applied,
    unsafeLeft: fixed.unsafeLeft,
    remaining: findings(fixed.remaining),
  };
}

const guardModule = require('./guard.js');
const { guard, ToolHistoryError, relevantFindings, MODES } = guardModule.bind({ lint, fix });
const { toolcheckMiddleware } = require('./middleware.js').bind({ guard });

module.exports = {
  lint,
  lintPath,
  lintMany,
  fix,
  options,
  guard,
  relevantFindings,
  ToolHistoryError,
  toolcheckMiddleware,
  MODES,
  DEFAULT_NAME,
  RECORD_NAME,
  version: native.version(),
};
