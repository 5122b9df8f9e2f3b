// Benchmark: what guard() costs per call in Node on clean histories of 20, 200 and 2,000
// messages with tool calls and a tool schema (the histories of python/bench_guard.py), beside
// JSON.stringify of the same request (what any HTTP client spends building the body), and the
// AI SDK middleware's transformParams on the same conversation as a LanguageModelV2 prompt.
//
//     node bench.mjs [repeat]      (after `npm install`, which builds a release addon)
//
// Process CPU time per call (user + system), best of 5 rounds; nothing is read or written.
import toolcheck from './index.js';

const { guard, toolcheckMiddleware } = toolcheck;
const repeatBase = Number(process.argv[2] ?? 200);

const SEARCH = {
  type: 'function',
  function: {
    name: 'search_docs',
    description: 'Search the product documentation',
    parameters: {
      type: 'object',
      properties: { query: { type: 'string' }, limit: { type: 'integer', minimum: 1 } },
      required: ['query'],
    },
  },
};

/** A clean request of `n` messages: rounds of user, assistant call, tool result, answer. */
function history(n) {
  const messages = [{ role: 'system', content: 'You are a support agent. Answer from the docs.' }];
  for (let i = 0; messages.length < n; i++) {
    messages.push({ role: 'user', content: `How do I configure feature ${i}?` });
    messages.push({
      role: 'assistant',
      content: null,
      tool_calls: [{ id: `call_${i}`, type: 'function', function: { name: 'search_docs', arguments: JSON.stringify({ query: `feature ${i}`, limit: 3 }) } }],
    });
    messages.push({ role: 'tool', tool_call_id: `call_${i}`, content: `Feature ${i} is set in settings.toml. `.repeat(4) });
    messages.push({ role: 'assistant', content: `Set feature ${i} in settings.toml.` });
  }
  return { model: 'gpt-4o', tools: [SEARCH], messages: messages.slice(0, n) };
}

/** The same conversation as the AI SDK hands a middleware (LanguageModelV2 call options). */
function v2Params(request) {
  const prompt = request.messages.map((m) => {
    if (m.role === 'system') return { role: 'system', content: m.content };
    if (m.role === 'user') return { role: 'user', content: [{ type: 'text', text: m.content }] };
    if (m.role === 'tool') {
      return { role: 'tool', content: [{ type: 'tool-result', toolCallId: m.tool_call_id, toolName: 'search_docs', output: { type: 'text', value: m.content } }] };
    }
    if (m.tool_calls) {
      return {
        role: 'assistant',
        content: m.tool_calls.map((c) => ({ type: 'tool-call', toolCallId: c.id, toolName: c.function.name, input: JSON.parse(c.function.arguments) })),
      };
    }
    return { role: 'assistant', content: [{ type: 'text', text: m.content }] };
  });
  const f = SEARCH.function;
  return { prompt, tools: [{ type: 'function', name: f.name, description: f.description, inputSchema: f.parameters }] };
}

function cpu() {
  const { user, system } = process.cpuUsage();
  return user + system;
}

/** µs of CPU per call, best of 5 rounds. */
async function perCall(fn, repeat) {
  let best = Infinity;
  for (let round = 0; round < 5; round++) {
    const start = cpu();
    for (let i = 0; i < repeat; i++) await fn();
    best = Math.min(best, (cpu() - start) / repeat);
  }
  return best;
}

console.log(`node ${process.version}, toolcheck ${toolcheck.version}`);
console.log('| messages | request bytes | JSON.stringify µs | guard µs (raise, clean) | guard / JSON.stringify | middleware µs (clean) |');
console.log('|---|---|---|---|---|---|');
const middleware = toolcheckMiddleware({ provider: 'openai' });
for (const n of [20, 200, 2000]) {
  const request = history(n);
  const params = v2Params(request);
  if (guard(request, { provider: 'openai' }) !== request) throw new Error('the bench history is not clean');
  if ((await middleware.transformParams({ type: 'generate', params })) !== params) throw new Error('the bench prompt is not clean');
  const repeat = Math.max(3, Math.floor((repeatBase * 20) / n));
  const stringify = await perCall(() => JSON.stringify(request), repeat);
  const guarded = await perCall(() => guard(request, { provider: 'openai' }), repeat);
  const wrapped = await perCall(() => middleware.transformParams({ type: 'generate', params }), repeat);
  const size = Buffer.byteLength(JSON.stringify(request));
  console.log(`| ${n} | ${size.toLocaleString('en')} | ${stringify.toFixed(0)} | ${guarded.toFixed(0)} | ${(guarded / stringify).toFixed(1)}× | ${wrapped.toFixed(0)} |`);
}
