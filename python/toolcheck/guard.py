"""Guards for the request an agent is about to send: :func:`guard` checks a message list (or a
whole request body) against the rules of the provider it goes to, and raises, repairs or warns
before the provider answers with a 400.

Only what the named provider rejects is acted on (error-level findings that name it, or that
every provider rejects), unless ``everything=True``. Nothing is read from or written to disk.
"""

from __future__ import annotations

import logging
from typing import Any, Callable, Iterable, List, Optional, Sequence, Union

from . import DEFAULT_NAME, Finding, FixResult, _toolcheck, fix, lint, options

__all__ = ["guard", "ToolHistoryError", "relevant_findings", "is_clean", "clean_off_the_objects"]

log = logging.getLogger("toolcheck")

MODES = ("raise", "repair", "warn")

# Provider aliases `--target` takes, by the name findings use.
_CANONICAL = {"kimi": "moonshot", "qwen": "dashscope"}


def _canonical(provider: Optional[str]) -> Optional[str]:
    """The name findings give ``provider`` by (`kimi` is `moonshot`)."""
    return _CANONICAL.get(provider, provider) if provider is not None else None


class ToolHistoryError(ValueError):
    """The history would be rejected: ``findings`` are the error-level findings the named
    provider rejects, each listed in the message as the command line prints it, with the fix
    that would apply."""

    def __init__(self, findings: Sequence[Finding], provider: Optional[str]) -> None:
        self.findings = list(findings)
        self.provider = provider
        to = f"{provider} would reject" if provider else "providers would reject"
        lines = [f"{to} this history ({len(self.findings)} {'finding' if len(self.findings) == 1 else 'findings'}):"]
        for f in self.findings:
            lines.append(f"  {f.pointer or '/'}: {f.code} [{f.rule}] {f.message}")
            if f.fix:
                safety = "safe" if f.fix.get("applicability") == "safe" else "unsafe"
                lines.append(f"    fix ({safety}): {f.fix.get('message', '')}")
            elif f.help:
                lines.append(f"    help: {f.help}")
        if any(f.fix and f.fix.get("applicability") == "safe" for f in self.findings):
            lines.append("guard(..., mode='repair') applies the safe fixes.")
        super().__init__("\n".join(lines))


def relevant_findings(findings: Iterable[Finding], provider: Optional[str], everything: bool = False) -> List[Finding]:
    """The findings a guard acts on: every finding with ``everything``, else the errors that
    name ``provider`` among the providers rejecting them, or that name none (every provider
    rejects them: unparseable arguments, an unknown format)."""
    provider = _canonical(provider)
    out = []
    for f in findings:
        if everything:
            out.append(f)
        elif f.severity == "error" and (not f.providers or provider is None or provider in f.providers):
            out.append(f)
    return out


def _is_langchain_message(item: Any) -> bool:
    return any(c.__module__.startswith("langchain_core.") for c in type(item).__mro__) and hasattr(item, "type")


def _to_json(messages: Any) -> "tuple[Any, Optional[Callable[[Any], Any]]]":
    """The history as JSON values toolcheck reads, and how to turn a repaired one back into
    the caller's types (``None``: it is already JSON)."""
    if isinstance(messages, (list, tuple)) and messages and all(_is_langchain_message(m) for m in messages):
        from langchain_core.messages import messages_from_dict, messages_to_dict

        return messages_to_dict(list(messages)), messages_from_dict
    if isinstance(messages, tuple):
        return list(messages), tuple
    return messages, None


def is_clean(
    text: Union[str, bytes],
    *,
    provider: Optional[str] = None,
    everything: bool = False,
    format: str = "auto",
    tools: Any = None,
    select: Union[None, str, Iterable[str]] = None,
    ignore: Union[None, str, Iterable[str]] = None,
) -> bool:
    """Whether :func:`guard` would let a history (as JSON text) through untouched: nothing
    ``provider`` rejects."""
    found = lint(text, format=format, tools=tools, target=provider, select=select, ignore=ignore)
    return not relevant_findings(found, provider, everything)


def clean_off_the_objects(
    obj: Any,
    *,
    provider: Optional[str] = None,
    everything: bool = False,
    format: str = "auto",
    tools: Any = None,
    select: Union[None, str, Iterable[str]] = None,
    ignore: Union[None, str, Iterable[str]] = None,
) -> Optional[bool]:
    """:func:`is_clean` of a history given as objects, read off them without ``json.dumps``:
    the guards' check of the usual case. Nothing the guard acts on is told from a tree of
    the objects (``_toolcheck.clean_plain``); anything else is linted as the text
    ``_toolcheck.lint_plain`` writes of them.
    ``None`` when the objects are not plain JSON (a date, bytes, NaN): the caller serialises
    them as it always did. The same JSON values whatever their layout, so the same findings;
    a history with any is linted again by the caller, so that they are placed as they
    always were."""
    opts = options(format=format, tools=tools, target=provider, select=select, ignore=ignore)
    # Most histories have nothing the guard acts on, which is told off the objects without
    # writing any text; otherwise (or where that cannot tell) the text is linted.
    if _toolcheck.clean_plain(opts, obj, DEFAULT_NAME, _canonical(provider), everything):
        return True
    found = _toolcheck.lint_plain(opts, obj, DEFAULT_NAME)
    if found is None:
        return None
    # The usual case, nothing found, without a pass over no findings.
    if not found:
        return True
    return not relevant_findings(map(Finding.from_dict, found), provider, everything)


def guard(
    messages: Any,
    *,
    provider: Optional[str] = None,
    mode: str = "raise",
    everything: bool = False,
    format: str = "auto",
    tools: Any = None,
    select: Union[None, str, Iterable[str]] = None,
    ignore: Union[None, str, Iterable[str]] = None,
    on_repair: Optional[Callable[[FixResult, List[Finding]], None]] = None,
) -> Any:
    """Checks a history before it is sent to ``provider`` (``anthropic``, ``openai``,
    ``openai-responses``, ``gemini``, ``gemini-vertex``, ``bedrock``, ``mistral``,
    ``deepseek``, ``moonshot`` (``kimi``), ``minimax``, ``dashscope`` (``qwen``); ``None``:
    the history's own format's provider).

    ``messages`` is any history toolcheck reads: a message list (OpenAI Chat, Responses items,
    Anthropic, Gemini contents, Bedrock messages, LangChain message dicts), a whole request
    body, or LangChain message objects (which come back as LangChain objects).

    - ``mode="raise"``: raise :class:`ToolHistoryError` listing what the provider rejects;
      return ``messages`` itself when there is nothing.
    - ``mode="repair"``: apply the safe fixes for those findings and return the repaired
      history in the caller's types (``messages`` itself, untouched, when there is nothing to
      do); each repair is logged on the ``toolcheck`` logger and passed to ``on_repair``.
      What no safe fix repairs still raises.
    - ``mode="warn"``: log each finding as a warning and return ``messages`` itself.
    """
    if mode not in MODES:
        raise ValueError(f"unknown guard mode {mode!r}; expected one of {', '.join(MODES)}")
    data, back = _to_json(messages)
    # The usual case, a clean history, without `json.dumps` (it cost as much as the lint).
    if isinstance(data, (dict, list)) and clean_off_the_objects(
        data, provider=provider, everything=everything, format=format, tools=tools, select=select, ignore=ignore
    ):
        return messages
    given = dict(format=format, tools=tools, target=provider, select=select, ignore=ignore)
    found = relevant_findings(lint(data, **given), provider, everything)
    if not found:
        return messages
    if mode == "warn":
        for f in found:
            log.warning("toolcheck: %s [%s] %s at %s", f.code, f.rule, f.message, f.pointer or "/")
        return messages
    if mode == "raise":
        raise ToolHistoryError(found, provider)
    codes = sorted({f.code for f in found})
    result = fix(data, **{**given, "select": codes})
    left = relevant_findings(result.remaining, provider, everything)
    if left:
        raise ToolHistoryError(left, provider)
    for f in found:
        log.info("toolcheck repaired %s [%s] at %s: %s", f.code, f.rule, f.pointer or "/", (f.fix or {}).get("message", ""))
    if on_repair is not None:
        on_repair(result, found)
    return back(result.value) if back is not None else result.value
