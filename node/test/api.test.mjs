// lint, fix, lintMany and options over JavaScript values, and guard's three modes, on the
// seed defects (the same cases as python/tests/test_guard.py).
import assert from 'node:assert/strict';
import { test } from 'node:test';

import toolcheck from '../index.js';
import { CLEAN, DOUBLE_ENCODED_SCHEMA, EMPTY_ARGS, ORPHAN_AT_HEAD, SEARCH, SYSTEM, TRUNCATED } from './seeds.mjs';

const { lint, fix, lintMany, options, guard, ToolHistoryError, relevantFindings } = toolcheck;
const clone = (v) => structuredClone(v);
const codes = (found) => found.map((f) => f.code);

test('lint finds each seed defect, as plain objects with the JSON output fields', () => {
  const [orphan] = lint(ORPHAN_AT_HEAD, { target: 'anthropic' });
  assert.equal(orphan.code, 'TC101');
  assert.equal(orphan.rule, 'orphaned-tool-result');
  assert.equal(orphan.severity, 'error');
  assert.equal(orphan.pointer, '/1');
  assert.equal(orphan.path, '<input>.json');
  assert.equal(orphan.format, 'openai-chat');
  assert.equal(orphan.fix.applicability, 'safe');
  assert.equal(orphan.tool_call_id, 'call_evicted');
  assert.deepEqual(orphan.providers, ['anthropic']);
  for (const key of ['message', 'help', 'line', 'column', 'end_line', 'end_column']) assert.ok(key in orphan, key);
  assert.deepEqual(Object.getPrototypeOf(orphan), Object.prototype);

  assert.ok(codes(lint(TRUNCATED)).includes('TC201'));
  assert.ok(codes(lint(EMPTY_ARGS)).includes('TC202'));
  const schema = lint(DOUBLE_ENCODED_SCHEMA).find((f) => f.pointer === '/tools/0/function/parameters');
  assert.ok(schema, 'the double-encoded schema is found');
  assert.deepEqual(lint(CLEAN), []);
});

test('text and Buffers lint like the object, and findings place in the text', () => {
  const text = JSON.stringify(ORPHAN_AT_HEAD, null, 2);
  const fromText = lint(text);
  assert.deepEqual(lint(Buffer.from(text)), fromText);
  assert.deepEqual(codes(fromText), codes(lint(ORPHAN_AT_HEAD)));
  assert.equal(fromText[0].line, 6);
  assert.equal(lint('{"messages": [', { name: 'x.json' })[0].rule, 'parse-error');
  assert.throws(() => lint(42), TypeError);
  assert.throws(() => lint('package.json'), /names a file or folder/);
});

test('fix repairs and returns the kind it was given', () => {
  const before = clone(ORPHAN_AT_HEAD);
  const result = fix(ORPHAN_AT_HEAD);
  assert.equal(result.changed, true);
  assert.equal(result.applied, 1);
  assert.equal(result.unsafeLeft, 0);
  assert.deepEqual(result.value, [SYSTEM, { role: 'user', content: 'And order A-2?' }]);
  assert.deepEqual(JSON.parse(result.text), result.value);
  assert.deepEqual(result.remaining, []);
  assert.deepEqual(ORPHAN_AT_HEAD, before, "the caller's value is not modified");

  assert.equal(typeof fix(JSON.stringify(ORPHAN_AT_HEAD)).value, 'string');
  assert.ok(Buffer.isBuffer(fix(Buffer.from(JSON.stringify(ORPHAN_AT_HEAD))).value));
  const clean = fix(CLEAN);
  assert.equal(clean.changed, false);
  assert.equal(clean.value, CLEAN, 'nothing to fix: the same object');

  // Truncated arguments: only an unsafe fix discards them.
  const safe = fix(TRUNCATED);
  assert.ok(safe.unsafeLeft >= 1);
  assert.ok(codes(safe.remaining).includes('TC201'));
  const unsafe = fix(TRUNCATED, { unsafe: true });
  assert.ok(!codes(unsafe.remaining).includes('TC201'));

  const decoded = fix(DOUBLE_ENCODED_SCHEMA);
  assert.deepEqual(decoded.value.tools[0].function.parameters, SEARCH.function.parameters);
});

test('options are checked once and reused; bad ones throw the command line message', () => {
  const opts = options({ target: 'openai', select: ['TC1'] });
  assert.equal(options({ target: 'openai', select: 'TC1' }), opts, 'the same settings share options');
  assert.deepEqual(codes(lint(ORPHAN_AT_HEAD, { options: opts })), ['TC101']);
  assert.deepEqual(lint(TRUNCATED, { options: opts }).filter((f) => f.code === 'TC201'), []);
  assert.throws(() => options({ target: 'nope' }), /unknown target/);
  assert.throws(() => options({ format: 'nope' }), /unknown input format/);
  assert.throws(() => options({ select: 'XX9' }), /unknown rule selector/);
  assert.throws(() => lint(CLEAN, { options: opts, target: 'openai' }), /not both/);
  assert.deepEqual(codes(lint(EMPTY_ARGS.messages, { tools: [SEARCH] })), codes(lint(EMPTY_ARGS)).filter((c) => c !== 'TC302'));
});

test('lintPath lints files and folders as the command line does', () => {
  const dir = new URL('../../fixtures/openai-chat/', import.meta.url);
  const found = toolcheck.lintPath(dir.pathname);
  assert.ok(found.length > 0);
  assert.ok(found.every((f) => f.path.includes('fixtures/openai-chat/')));
  const one = found[0].path;
  assert.deepEqual(toolcheck.lintPath([one]), found.filter((f) => f.path === one));
  assert.throws(() => toolcheck.lintPath('/nonexistent/toolcheck'), /nonexistent/);
});

test('lintMany gives each record the findings of its line in a JSONL file', () => {
  const records = [ORPHAN_AT_HEAD, JSON.stringify(CLEAN), TRUNCATED];
  const found = lintMany(records, { threads: 2 });
  assert.equal(found.length, 3);
  assert.deepEqual(codes(found[0]), codes(lint(ORPHAN_AT_HEAD)));
  assert.deepEqual(found[1], []);
  assert.deepEqual(codes(found[2]), codes(lint(TRUNCATED)));
  assert.equal(found[0][0].path, '<record>.jsonl');
  assert.equal(found[0][0].line, 1);
  assert.throws(() => lintMany([1]), /record 0/);
});

test('lintMany refuses a thread count above the limit instead of starting it', () => {
  assert.throws(() => lintMany([ORPHAN_AT_HEAD], { threads: 3000 }), /threads must be from 1 to 256, not 3000/);
  assert.equal(lintMany([ORPHAN_AT_HEAD], { threads: 256 }).length, 1);
});

test('a clean history passes unchanged in every mode', () => {
  for (const mode of ['raise', 'repair', 'warn']) {
    const before = clone(CLEAN);
    assert.equal(guard(CLEAN, { provider: 'openai', mode }), CLEAN);
    assert.deepEqual(CLEAN, before);
  }
});

test('raise lists what the provider rejects, with the fix', () => {
  let error;
  assert.throws(
    () => guard(ORPHAN_AT_HEAD, { provider: 'anthropic' }),
    (e) => (error = e) instanceof ToolHistoryError,
  );
  assert.ok(error instanceof Error);
  assert.equal(error.name, 'ToolHistoryError');
  assert.equal(error.provider, 'anthropic');
  assert.deepEqual(codes(error.findings), ['TC101']);
  assert.match(error.message, /^anthropic would reject this history \(1 finding\):/);
  assert.match(error.message, /\/1: TC101 \[orphaned-tool-result\]/);
  assert.match(error.message, /fix \(safe\)/);
  assert.match(error.message, /mode: 'repair'/);
});

test('repair returns the repaired history and reports it', () => {
  const seen = [];
  const infos = [];
  const before = clone(ORPHAN_AT_HEAD);
  const repaired = guard(ORPHAN_AT_HEAD, {
    provider: 'openai',
    mode: 'repair',
    onRepair: (result, found) => seen.push([result, found]),
    logger: { info: (m) => infos.push(m) },
  });
  assert.deepEqual(repaired, [SYSTEM, { role: 'user', content: 'And order A-2?' }]);
  assert.deepEqual(ORPHAN_AT_HEAD, before, "the caller's array is not modified");
  assert.equal(seen.length, 1);
  assert.equal(seen[0][0].changed, true);
  assert.deepEqual(codes(seen[0][1]), ['TC101']);
  assert.match(infos.join('\n'), /TC101/);
  assert.equal(guard(repaired, { provider: 'openai' }), repaired);
});

test('what no safe fix repairs still raises', () => {
  assert.throws(
    () => guard(TRUNCATED, { provider: 'openai', mode: 'repair' }),
    (e) => e instanceof ToolHistoryError && codes(e.findings).join() === 'TC201',
  );
});

test('warnings are left alone unless everything is asked for', () => {
  assert.equal(guard(EMPTY_ARGS, { provider: 'openai' }), EMPTY_ARGS);
  assert.throws(
    () => guard(EMPTY_ARGS, { provider: 'openai', everything: true }),
    (e) => codes(e.findings).includes('TC202'),
  );
  const warned = [];
  assert.equal(guard(EMPTY_ARGS, { provider: 'openai', mode: 'warn', everything: true, logger: { warn: (m) => warned.push(m) } }), EMPTY_ARGS);
  assert.match(warned.join('\n'), /TC202/);
});

test('a double-encoded schema is decoded', () => {
  const repaired = guard(DOUBLE_ENCODED_SCHEMA, { provider: 'openai', mode: 'repair' });
  assert.deepEqual(repaired.tools[0].function.parameters, SEARCH.function.parameters);
  assert.deepEqual(repaired.messages, DOUBLE_ENCODED_SCHEMA.messages);
});

test('the guard agrees with lint', () => {
  for (const history of [ORPHAN_AT_HEAD, TRUNCATED, DOUBLE_ENCODED_SCHEMA]) {
    const errors = lint(history, { target: 'openai' }).filter((f) => f.severity === 'error');
    assert.throws(
      () => guard(history, { provider: 'openai' }),
      (e) => {
        assert.deepEqual(e.findings, errors);
        return true;
      },
    );
    assert.deepEqual(relevantFindings(errors, 'openai'), errors);
  }
});

test('only what the named provider rejects', () => {
  // A tool call id outside Anthropic's pattern: Anthropic rejects it, OpenAI does not.
  const history = [
    { role: 'user', content: 'hi' },
    { role: 'assistant', content: null, tool_calls: [{ id: 'call.1', type: 'function', function: { name: 'f', arguments: '{}' } }] },
    { role: 'tool', tool_call_id: 'call.1', content: 'ok' },
  ];
  assert.equal(guard(history, { provider: 'openai' }), history);
  assert.throws(
    () => guard(history, { provider: 'anthropic' }),
    (e) => codes(e.findings).join() === 'TC106' && e.findings[0].providers.join() === 'anthropic',
  );
  const both = lint(history, { target: ['anthropic', 'openai'] });
  assert.deepEqual(codes(relevantFindings(both, 'anthropic')), ['TC106']);
  assert.deepEqual(relevantFindings(both, 'openai'), []);
  assert.deepEqual(codes(relevantFindings(both, null)), ['TC106']);
});

test('a bad mode throws', () => {
  assert.throws(() => guard(CLEAN, { mode: 'fix' }), /guard mode/);
});
