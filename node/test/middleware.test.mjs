// The Vercel AI SDK middleware, through the real `ai` package (pinned in package.json) and its
// mock model: the model receives the repaired prompt, the guard throws with the finding before
// the model is called, and a clean prompt passes unchanged.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { generateText, streamText, tool, wrapLanguageModel } from 'ai';
import { MockLanguageModelV2 } from 'ai/test';
import { z } from 'zod';

import toolcheck from '../index.js';
import middlewareModule from '../middleware.js';

const { toJson } = middlewareModule;

const { toolcheckMiddleware, ToolHistoryError } = toolcheck;

const answer = {
  content: [{ type: 'text', text: 'ok' }],
  finishReason: 'stop',
  usage: { inputTokens: 1, outputTokens: 1, totalTokens: 2 },
  warnings: [],
};

function models(middleware) {
  const model = new MockLanguageModelV2({ doGenerate: async () => answer });
  return { model, wrapped: wrapLanguageModel({ model, middleware }) };
}

const SYSTEM = 'You are a support agent.';

// ModelMessages as an app keeps them: a memory window evicted the call of the first result.
const ORPHAN_AT_HEAD = [
  { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'call_evicted', toolName: 'orders', output: { type: 'text', value: 'order A-1: shipped' } }] },
  { role: 'user', content: 'And order A-2?' },
];

// An interrupted stream saved half-received arguments (the SDK keeps an unparseable tool
// call's input as the raw text).
const TRUNCATED = [
  { role: 'user', content: 'Search the docs' },
  { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'call_1', toolName: 'search', input: '{"query": "hello wor' }] },
  { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'call_1', toolName: 'search', output: { type: 'error-text', value: 'interrupted' } }] },
  { role: 'user', content: 'Try again' },
];

const CLEAN = [
  { role: 'user', content: 'Search the docs' },
  { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'call_3', toolName: 'search', input: { query: 'x' } }] },
  { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'call_3', toolName: 'search', output: { type: 'json', value: { hits: 3 } } }] },
  { role: 'user', content: 'Thanks' },
];

test('repair: the model receives the repaired prompt', async () => {
  const repairs = [];
  const { model, wrapped } = models(toolcheckMiddleware({ provider: 'anthropic', mode: 'repair', onRepair: (r, found) => repairs.push(found) }));
  const { model: plain } = models(undefined);
  await generateText({ model: wrapped, system: SYSTEM, messages: ORPHAN_AT_HEAD });
  await generateText({ model: plain, system: SYSTEM, messages: [ORPHAN_AT_HEAD[1]] });
  assert.equal(model.doGenerateCalls.length, 1);
  assert.deepEqual(model.doGenerateCalls[0].prompt, plain.doGenerateCalls[0].prompt);
  assert.deepEqual(
    model.doGenerateCalls[0].prompt.map((m) => m.role),
    ['system', 'user'],
  );
  assert.deepEqual(repairs.map((found) => found.map((f) => f.code)), [['TC101']]);
});

test('raise: the guard throws with the finding and the model is not called', async () => {
  const { model, wrapped } = models(toolcheckMiddleware({ provider: 'anthropic' }));
  await assert.rejects(
    generateText({ model: wrapped, system: SYSTEM, messages: ORPHAN_AT_HEAD }),
    (e) => e instanceof ToolHistoryError && e.findings.map((f) => f.code).join() === 'TC101' && e.findings[0].pointer === '/1/content/0',
  );
  await assert.rejects(
    generateText({ model: wrapped, messages: TRUNCATED, maxRetries: 0 }),
    (e) => e instanceof ToolHistoryError && e.findings.some((f) => f.code === 'TC201'),
  );
  // No safe fix for truncated arguments: repair mode throws too.
  const repair = models(toolcheckMiddleware({ provider: 'openai', mode: 'repair' }));
  await assert.rejects(generateText({ model: repair.wrapped, messages: TRUNCATED }), ToolHistoryError);
  assert.equal(model.doGenerateCalls.length + repair.model.doGenerateCalls.length, 0);
});

test('a clean prompt passes unchanged: deep-equal, and the same params object', async () => {
  for (const mode of ['raise', 'repair', 'warn']) {
    const middleware = toolcheckMiddleware({ provider: 'openai', mode });
    const { model, wrapped } = models(middleware);
    const { model: plain } = models(undefined);
    await generateText({ model: wrapped, system: SYSTEM, messages: CLEAN });
    await generateText({ model: plain, system: SYSTEM, messages: CLEAN });
    assert.deepEqual(model.doGenerateCalls[0].prompt, plain.doGenerateCalls[0].prompt);

    const params = { prompt: structuredClone(plain.doGenerateCalls[0].prompt) };
    const before = structuredClone(params);
    const out = await middleware.transformParams({ type: 'generate', params, model });
    assert.equal(out, params, 'the same object');
    assert.equal(out.prompt, params.prompt);
    assert.deepEqual(params, before, 'untouched');
  }
});

test('streaming calls are guarded too', async () => {
  const model = new MockLanguageModelV2({
    doStream: async () => ({
      stream: new ReadableStream({
        start(c) {
          c.enqueue({ type: 'text-start', id: '1' });
          c.enqueue({ type: 'text-delta', id: '1', delta: 'ok' });
          c.enqueue({ type: 'text-end', id: '1' });
          c.enqueue({ type: 'finish', finishReason: 'stop', usage: answer.usage });
          c.close();
        },
      }),
    }),
  });
  const wrapped = wrapLanguageModel({ model, middleware: toolcheckMiddleware({ provider: 'anthropic', mode: 'repair' }) });
  const result = streamText({ model: wrapped, system: SYSTEM, messages: ORPHAN_AT_HEAD });
  assert.equal(await result.text, 'ok');
  assert.deepEqual(model.doStreamCalls[0].prompt.map((m) => m.role), ['system', 'user']);
});

test("file parts the SDK holds as bytes come back as the caller's objects", async () => {
  const middleware = toolcheckMiddleware({ provider: 'anthropic', mode: 'repair' });
  const file = { type: 'file', mediaType: 'image/png', data: new Uint8Array([137, 80, 78, 71]) };
  const url = { type: 'file', mediaType: 'image/png', data: new URL('https://example.com/a.png') };
  const prompt = [
    { role: 'system', content: SYSTEM },
    ORPHAN_AT_HEAD[0],
    { role: 'user', content: [{ type: 'text', text: 'What is this?' }, file, url] },
  ];
  const params = { prompt, maxOutputTokens: 10 };
  const out = await middleware.transformParams({ type: 'generate', params, model: undefined });
  assert.notEqual(out, params);
  assert.equal(out.maxOutputTokens, 10);
  assert.deepEqual(out.prompt.map((m) => m.role), ['system', 'user']);
  assert.equal(out.prompt[0], prompt[0], "messages the repair left alone are the caller's objects");
  assert.equal(out.prompt[1], prompt[2]);
  assert.equal(out.prompt[1].content[1], file);
  assert.equal(prompt.length, 3, "the caller's prompt is not modified");

  // A message the repair changed gets its file parts back as the caller's objects.
  const { json, restore } = toJson(prompt);
  assert.equal(json[0], prompt[0]);
  assert.equal(typeof json[2].content[1].data, 'string');
  const repaired = JSON.parse(JSON.stringify(json));
  repaired[2].content[0].text = 'What is this image?';
  const back = restore(repaired);
  assert.notEqual(back[2], prompt[2]);
  assert.equal(back[2].content[1], file);
  assert.equal(back[2].content[2], url);
  assert.equal(back[1], prompt[1]);
});

test("the call's tool schemas are checked (everything: the empty-arguments warning)", async () => {
  const params = {
    prompt: [
      { role: 'user', content: [{ type: 'text', text: 'Search' }] },
      { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'call_2', toolName: 'search', input: {} }] },
      { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'call_2', toolName: 'search', output: { type: 'error-text', value: 'query is required' } }] },
    ],
    tools: [{ type: 'function', name: 'search', description: 'Search the docs', inputSchema: { type: 'object', properties: { query: { type: 'string' } }, required: ['query'] } }],
  };
  const strict = toolcheckMiddleware({ provider: 'openai', everything: true });
  await assert.rejects(
    strict.transformParams({ type: 'generate', params, model: undefined }),
    (e) => e instanceof ToolHistoryError && e.findings.some((f) => f.code === 'TC202'),
  );
  const lenient = toolcheckMiddleware({ provider: 'openai' });
  assert.equal(await lenient.transformParams({ type: 'generate', params, model: undefined }), params);
});

test('tools declared through the SDK (zod schemas) reach the check', async () => {
  const { model, wrapped } = models(toolcheckMiddleware({ provider: 'openai', everything: true }));
  const search = tool({ description: 'Search the docs', inputSchema: z.object({ query: z.string() }), execute: async () => 'x' });
  const messages = [
    { role: 'user', content: 'Search' },
    { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'call_2', toolName: 'search', input: {} }] },
    { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'call_2', toolName: 'search', output: { type: 'error-text', value: 'query is required' } }] },
  ];
  await assert.rejects(
    generateText({ model: wrapped, tools: { search }, messages }),
    (e) => e instanceof ToolHistoryError && e.findings.some((f) => f.code === 'TC202' && f.pointer === '/1/content/0/input'),
  );
  assert.equal(model.doGenerateCalls.length, 0);
});
