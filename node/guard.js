'use strict';
// The guard: checks a message list (or a whole request body) against the rules of the
// provider it goes to, and throws, repairs or warns before the provider answers with a 400.
// Only what the named provider rejects is acted on (error-level findings that name it, or that
// every provider rejects), unless `everything` is set. Nothing is read from or written to disk.
// The same semantics as the Python package's toolcheck.guard.

const MODES = Object.freeze(['raise', 'repair', 'warn']);

/** The error-level findings the named provider would reject, each listed in the message as
 * the command line prints it, with the fix that would apply. */
class ToolHistoryError extends Error {
  constructor(findings, provider) {
    const n = findings.length;
    const to = provider ? `${provider} would reject` : 'providers would reject';
    const lines = [`${to} this history (${n} ${n === 1 ? 'finding' : 'findings'}):`];
    for (const f of findings) {
      lines.push(`  ${f.pointer || '/'}: ${f.code} [${f.rule}] ${f.message}`);
      if (f.fix) {
        lines.push(`    fix (${f.fix.applicability === 'safe' ? 'safe' : 'unsafe'}): ${f.fix.message ?? ''}`);
      } else if (f.help) {
        lines.push(`    help: ${f.help}`);
      }
    }
    if (findings.some((f) => f.fix && f.fix.applicability === 'safe')) {
      lines.push("guard(..., { mode: 'repair' }) applies the safe fixes.");
    }
    super(lines.join('\n'));
    this.name = 'ToolHistoryError';
    this.findings = findings;
    this.provider = provider ?? null;
  }
}

/** The findings a guard acts on: every finding with `everything`, else the errors that name
 * `provider` among the providers rejecting them, or that name none (every provider rejects
 * them: unparseable arguments, an unknown format). */
function relevantFindings(findings, provider, everything = false) {
  if (everything) return [...findings];
  return findings.filter(
    (f) => f.severity === 'error' && (!f.providers || f.providers.length === 0 || !provider || f.providers.includes(provider)),
  );
}

const defaultLogger = {
  // As Python's logging does by default: warnings shown, information not.
  warn: (...args) => console.warn(...args),
  info: () => {},
};

function bind({ lint, fix }) {
  /**
   * Checks a history before it is sent to `provider` (anthropic, openai, openai-responses,
   * gemini, gemini-vertex, bedrock, mistral, deepseek, moonshot (kimi), minimax, dashscope
   * (qwen); none: the history's own format's provider).
   * - raise: throw ToolHistoryError listing what the provider rejects; return `messages`
   *   itself when there is nothing.
   * - repair: apply the safe fixes for those findings and return the repaired history
   *   (`messages` itself, untouched, when there is nothing to do); each repair is logged
   *   (logger.info) and passed to onRepair. What no safe fix repairs still throws.
   * - warn: log each finding (logger.warn) and return `messages` itself.
   */
  function guard(messages, { provider, mode = 'raise', everything = false, format = 'auto', tools, select, ignore, onRepair, logger = defaultLogger } = {}) {
    if (!MODES.includes(mode)) {
      throw new RangeError(`unknown guard mode ${JSON.stringify(mode)}; expected one of ${MODES.join(', ')}`);
    }
    const settings = { format, tools, target: provider || undefined, select, ignore };
    // Findings name a provider by its canonical name (`kimi` is `moonshot`, `qwen` is `dashscope`).
    const named = { kimi: 'moonshot', qwen: 'dashscope' }[provider] || provider;
    const found = relevantFindings(lint(messages, settings), named, everything);
    if (found.length === 0) return messages;
    if (mode === 'warn') {
      for (const f of found) logger?.warn?.(`toolcheck: ${f.code} [${f.rule}] ${f.message} at ${f.pointer || '/'}`);
      return messages;
    }
    if (mode === 'raise') throw new ToolHistoryError(found, provider);
    const codes = [...new Set(found.map((f) => f.code))].sort();
    const result = fix(messages, { ...settings, select: codes });
    const left = relevantFindings(result.remaining, named, everything);
    if (left.length) throw new ToolHistoryError(left, provider);
    for (const f of found) {
      logger?.info?.(`toolcheck repaired ${f.code} [${f.rule}] at ${f.pointer || '/'}: ${f.fix?.message ?? ''}`);
    }
    if (onRepair) onRepair(result, found);
    return result.value;
  }
  return { guard, ToolHistoryError, relevantFindings, MODES };
}

module.exports = { bind, ToolHistoryError, relevantFindings, MODES };
