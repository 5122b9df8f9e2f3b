// Types for the toolcheck Node.js package (hand-written; index.js is the implementation).

/** A fix a finding carries: byte-range edits on the linted text (UTF-8 offsets). */
export interface Fix {
  applicability: 'safe' | 'unsafe';
  message: string;
  edits: Array<{ start: number; end: number; content: string }>;
}

/** One finding: the object `toolcheck lint --output-format json` prints, with `tool_call_id`
 * and `providers` always set. For an object, `line`/`column` refer to its JSON.stringify
 * text: use `pointer` (a JSON Pointer into the value). */
export interface Finding {
  code: string;
  rule: string;
  severity: 'error' | 'warning';
  message: string;
  help: string | null;
  path: string;
  format: string | null;
  line: number;
  column: number;
  end_line: number;
  end_column: number;
  pointer: string;
  fix: Fix | null;
  tool_call_id: string | null;
  /** The providers that reject the history because of this finding (empty: every one). */
  providers: string[];
  /** For a row of a SQLite store (lintPath): `db:table[rowid=N]/pointer`. */
  location?: string;
}

/** Provider names `target`/`provider` accept. */
export type Provider =
  | 'anthropic'
  | 'openai'
  | 'openai-responses'
  | 'gemini'
  | 'gemini-vertex'
  | 'bedrock'
  | 'mistral'
  | 'deepseek'
  | 'moonshot'
  | 'kimi'
  | 'minimax'
  | 'dashscope'
  | 'qwen'
  | (string & {});

/** Codes, prefixes or rule names, as a comma-separated string or an array. */
export type Names = string | string[];

/** A tools document: a path, an array of paths, a Buffer, or tool definitions in any shape
 * `--tools` accepts (OpenAI, Anthropic, Gemini, Bedrock, MCP `tools/list`). */
export type Tools = string | URL | Array<string | URL> | Buffer | object;

export interface Settings {
  /** An `--input-format` name, or 'auto' (the default) to detect. */
  format?: string;
  tools?: Tools;
  target?: Provider | Provider[];
  select?: Names;
  ignore?: Names;
}

/** Options checked once (see options()); opaque. */
export declare class Options {
  private constructor();
}

export interface LintOptions extends Settings {
  /** The name the value is linted under; its extension picks JSON or JSONL. */
  name?: string;
  options?: Options;
}

export interface FixOptions extends LintOptions {
  /** Apply unsafe fixes too (`--unsafe-fixes`). */
  unsafe?: boolean;
  /** How an unanswered call is repaired (`--unpaired`). */
  unpaired?: 'insert-result' | 'remove-call';
}

export interface FixResult<T = unknown> {
  /** The repaired input, of the kind given: the same object when nothing changed. */
  value: T;
  /** The repaired text. */
  text: string;
  changed: boolean;
  /** Fixes applied, over all rounds of the fix loop. */
  applied: number;
  /** Fixes not applied because they are unsafe and `unsafe` was false. */
  unsafeLeft: number;
  /** Findings the repaired text still has. */
  remaining: Finding[];
}

/** A conversation: an object or array (JSON values), or JSON/JSONL text. */
export type Input = object | string | Uint8Array;

export declare function options(settings?: Settings & { unpaired?: 'insert-result' | 'remove-call' }): Options;
export declare function lint(value: Input, options?: LintOptions): Finding[];
export declare function lintPath(paths: string | URL | Array<string | URL>, options?: Settings & { options?: Options }): Finding[];
export declare function lintMany(records: Iterable<Input>, options?: Settings & { threads?: number; options?: Options }): Finding[][];
export declare function fix<T extends Input>(value: T, options?: FixOptions): FixResult<T>;

export type GuardMode = 'raise' | 'repair' | 'warn';
export declare const MODES: readonly GuardMode[];

export interface GuardLogger {
  warn?(message: string): void;
  info?(message: string): void;
}

export interface GuardOptions {
  /** The provider the history goes to; none: the history's own format's provider. */
  provider?: Provider;
  /** 'raise' (the default): throw ToolHistoryError; 'repair': apply the safe fixes and return
   * the repaired history; 'warn': log and return the history as it is. */
  mode?: GuardMode;
  /** Act on every finding, not only the errors the provider rejects. */
  everything?: boolean;
  format?: string;
  tools?: Tools;
  select?: Names;
  ignore?: Names;
  /** Called after a repair with the fix result and the findings it repaired. */
  onRepair?: (result: FixResult, found: Finding[]) => void;
  /** Where warnings (warn mode) and repairs (info) go; default: console.warn, repairs silent. */
  logger?: GuardLogger;
}

/** The history would be rejected: `findings` are the findings the guard acts on, each listed
 * in the message as the command line prints it, with the fix that would apply. */
export declare class ToolHistoryError extends Error {
  constructor(findings: Finding[], provider?: string | null);
  readonly name: 'ToolHistoryError';
  readonly findings: Finding[];
  readonly provider: string | null;
}

/** The findings a guard acts on (see guard()). */
export declare function relevantFindings(findings: Finding[], provider?: string | null, everything?: boolean): Finding[];

/** Checks a history before it is sent to `provider`; returns `messages` itself when there is
 * nothing to act on, else throws, returns the repaired history, or warns (see GuardOptions). */
export declare function guard<T extends Input>(messages: T, options?: GuardOptions): T;

export interface MiddlewareOptions {
  provider?: Provider;
  mode?: GuardMode;
  everything?: boolean;
  select?: Names;
  ignore?: Names;
  onRepair?: GuardOptions['onRepair'];
  logger?: GuardLogger;
  /** Check tool-call arguments against the call's function tool schemas (default true). */
  checkTools?: boolean;
}

/** The part of the AI SDK's LanguageModelV2Middleware this middleware implements: structurally
 * assignable to it (`wrapLanguageModel({ model, middleware: toolcheckMiddleware(...) })`)
 * without this package depending on `ai`. */
export interface ToolcheckMiddleware {
  middlewareVersion: 'v2';
  transformParams: <P extends { prompt: unknown }>(options: { type: 'generate' | 'stream'; params: P; model: unknown }) => PromiseLike<P>;
}

export declare function toolcheckMiddleware(options?: MiddlewareOptions): ToolcheckMiddleware;

export declare const DEFAULT_NAME: string;
export declare const RECORD_NAME: string;
/** The version of the toolcheck crate the addon was built from. */
export declare const version: string;
