// Type-checked (never run) by types.test.mjs with `tsc --noEmit`: the package's types as a
// TypeScript caller uses them, and the middleware accepted by the AI SDK's own types.
import { wrapLanguageModel } from 'ai';
import { MockLanguageModelV2 } from 'ai/test';
import type { LanguageModelV2Middleware } from '@ai-sdk/provider';

import { fix, guard, lint, lintMany, options, toolcheckMiddleware, ToolHistoryError } from '..';
import type { Finding, FixResult, GuardMode, GuardOptions } from '..';

type Message = { role: string; content: string | null; tool_call_id?: string };
const history: Message[] = [{ role: 'tool', tool_call_id: 'c', content: 'x' }];

const found: Finding[] = lint(history, { target: ['openai', 'anthropic'], select: 'TC1' });
const first: string = found[0].code;
const line: number = found[0].line;
const providers: string[] = found[0].providers;
const safe: boolean = found[0].fix?.applicability === 'safe';

const fixed: FixResult<Message[]> = fix(history, { unsafe: true, unpaired: 'remove-call' });
const repaired: Message[] = fixed.value;
const left: number = fixed.remaining.length + fixed.unsafeLeft + fixed.applied;
const text: string = fix('[]').value;

const many: Finding[][] = lintMany([history, '[]'], { threads: 2, options: options({ target: 'openai' }) });

const mode: GuardMode = 'repair';
const settings: GuardOptions = {
  provider: 'anthropic',
  mode,
  everything: false,
  onRepair: (result, repairs) => console.log(result.changed, repairs.length),
  logger: console,
};
const same: Message[] = guard(history, settings);
try {
  guard(history, { provider: 'openai', mode: 'raise' });
} catch (e) {
  if (e instanceof ToolHistoryError) {
    const codes: string[] = e.findings.map((f) => f.code);
    const provider: string | null = e.provider;
    console.log(codes, provider, e.message);
  }
}

const middleware: LanguageModelV2Middleware = toolcheckMiddleware({ provider: 'openai', mode: 'warn' });
const model = wrapLanguageModel({ model: new MockLanguageModelV2(), middleware: toolcheckMiddleware({ provider: 'anthropic' }) });

// @ts-expect-error: not a guard mode
guard(history, { mode: 'fix' });

console.log(first, line, providers, safe, repaired, left, text, many, same, middleware, model);
