'use strict';
// A Vercel AI SDK language-model middleware (`wrapLanguageModel({ model, middleware })`) that
// guards every call's prompt before the model's provider sees it.
//
// The AI SDK hands middleware a LanguageModelV2 prompt: `{role, content}` messages whose
// assistant parts are `{type: 'tool-call', toolCallId, toolName, input}` and whose tool parts
// are `{type: 'tool-result', toolCallId, toolName, output: {type, value}}`: the shape of the
// SDK's v5 ModelMessage, which toolcheck's vercel-ai format reads as it is. Only file parts
// hold what JSON cannot (a Uint8Array or URL as `data`): they cross as placeholders and come
// back as the caller's own objects.

const MARK = 'toolcheck:file-part:';

/** The prompt as JSON-safe values, and how to put the caller's file parts back. */
function toJson(prompt) {
  const kept = [];
  let json = prompt;
  for (let i = 0; i < prompt.length; i++) {
    const content = prompt[i] && prompt[i].content;
    if (!Array.isArray(content)) continue;
    for (let j = 0; j < content.length; j++) {
      const part = content[j];
      if (!part || part.type !== 'file' || typeof part.data === 'string') continue;
      if (json === prompt) json = prompt.slice();
      if (json[i] === prompt[i]) json[i] = { ...prompt[i], content: content.slice() };
      json[i].content[j] = { type: 'file', mediaType: part.mediaType, data: `${MARK}${kept.length}` };
      kept.push(part);
    }
  }
  // A message the repair left alone comes back as the caller's own object (JSON would drop
  // its `undefined` fields); a repaired one gets the caller's file parts back.
  const restore = (repaired) => {
    const byText = new Map();
    json.forEach((m, i) => {
      const text = JSON.stringify(m);
      byText.set(text, [...(byText.get(text) ?? []), prompt[i]]);
    });
    return repaired.map((message) => {
      const same = byText.get(JSON.stringify(message));
      if (same && same.length) return same.shift();
      if (kept.length && Array.isArray(message.content)) {
        message.content = message.content.map((part) => {
          const data = part && part.type === 'file' && typeof part.data === 'string' ? part.data : '';
          return data.startsWith(MARK) ? (kept[Number(data.slice(MARK.length))] ?? part) : part;
        });
      }
      return message;
    });
  };
  return { json, restore };
}

/** The call's function tools as a tools document toolcheck reads (`{tools: [{name,
 * inputSchema}]}`, the MCP `tools/list` shape), so arguments are checked against their
 * schemas; undefined when there are none. */
function toolsDocument(tools) {
  if (!Array.isArray(tools)) return undefined;
  const functions = tools
    .filter((t) => t && t.type === 'function' && typeof t.name === 'string')
    .map((t) => ({ name: t.name, description: t.description, inputSchema: t.inputSchema }));
  return functions.length ? { tools: functions } : undefined;
}

function bind({ guard }) {
  /**
   * A LanguageModelV2Middleware whose transformParams guards `params.prompt` for `provider`
   * (see guard() for the modes). A clean prompt passes as the same params object; a repaired
   * one replaces `params.prompt`; in raise mode (the default) the call throws a
   * ToolHistoryError before the model is called. `checkTools: false` leaves the call's tool
   * schemas out (they are compiled once per distinct set and cached).
   */
  function toolcheckMiddleware({ provider, mode = 'raise', everything = false, select, ignore, onRepair, logger, checkTools = true } = {}) {
    return {
      middlewareVersion: 'v2',
      transformParams: async ({ params }) => {
        const prompt = params.prompt;
        if (!Array.isArray(prompt) || prompt.length === 0) return params;
        const { json, restore } = toJson(prompt);
        const tools = checkTools ? toolsDocument(params.tools) : undefined;
        const settings = { provider, mode, everything, select, ignore, onRepair, logger, format: 'vercel-ai', tools };
        const repaired = guard(json, settings);
        if (repaired === json) return params;
        return { ...params, prompt: restore(repaired) };
      },
    };
  }
  return { toolcheckMiddleware };
}

module.exports = { bind, toJson, toolsDocument };
