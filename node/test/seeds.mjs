// The seed defects of issue 27, as the message arrays and request bodies an agent sends
// (OpenAI Chat), shared by the tests. The same histories as python/tests/test_guard.py.

export const SYSTEM = { role: 'system', content: 'You are a support agent.' };

// A memory window evicted the call but kept its result: the window opens with an orphan.
export const ORPHAN_AT_HEAD = [
  SYSTEM,
  { role: 'tool', tool_call_id: 'call_evicted', content: 'order A-1: shipped' },
  { role: 'user', content: 'And order A-2?' },
];

// An interrupted stream saved half-received arguments.
export const TRUNCATED = [
  SYSTEM,
  { role: 'user', content: 'Search the docs' },
  {
    role: 'assistant',
    content: null,
    tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'search', arguments: '{"query": "hello wor' } }],
  },
  { role: 'tool', tool_call_id: 'call_1', content: 'interrupted' },
  { role: 'user', content: 'Try again' },
];

export const SEARCH = {
  type: 'function',
  function: {
    name: 'search',
    description: 'Search the docs',
    parameters: { type: 'object', properties: { query: { type: 'string' } }, required: ['query'] },
  },
};

// A call with empty arguments to a tool whose schema requires some (a warning: it is sent).
export const EMPTY_ARGS = {
  model: 'gpt-4o',
  tools: [SEARCH],
  messages: [
    SYSTEM,
    { role: 'user', content: 'Search' },
    {
      role: 'assistant',
      content: null,
      tool_calls: [{ id: 'call_2', type: 'function', function: { name: 'search', arguments: '{}' } }],
    },
    { role: 'tool', tool_call_id: 'call_2', content: 'Error: query is required' },
  ],
};

// A tool schema passed as a JSON-encoded string.
export const DOUBLE_ENCODED_SCHEMA = {
  model: 'gpt-4o',
  tools: [{ type: 'function', function: { ...SEARCH.function, parameters: JSON.stringify(SEARCH.function.parameters) } }],
  messages: [SYSTEM, { role: 'user', content: 'Search for pricing' }],
};

export const CLEAN = [
  SYSTEM,
  { role: 'user', content: 'Search the docs' },
  {
    role: 'assistant',
    content: null,
    tool_calls: [{ id: 'call_3', type: 'function', function: { name: 'search', arguments: '{"query": "x"}' } }],
  },
  { role: 'tool', tool_call_id: 'call_3', content: '3 results' },
];
