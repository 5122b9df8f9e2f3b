"""A LiteLLM callback that guards every request's history before LiteLLM sends it.

In the SDK (``litellm.acompletion``, ``litellm.aresponses``, and a Router's calls)::

    import litellm
    from toolcheck.integrations.litellm import ToolcheckGuard

    litellm.callbacks = [ToolcheckGuard(mode="repair")]
    await litellm.acompletion(model="anthropic/claude-sonnet-4-5", messages=history)

In the proxy's ``config.yaml`` (settings from ``TOOLCHECK_GUARD_MODE`` and
``TOOLCHECK_GUARD_PROVIDER``)::

    litellm_settings:
      callbacks: toolcheck.integrations.litellm.proxy_handler_instance

LiteLLM runs a callback that may change the request only on its asynchronous path (its
``async_pre_call_deployment_hook``, and the proxy's ``async_pre_call_hook``); the synchronous
``litellm.completion`` only calls logging hooks, whose errors it swallows. For synchronous code,
call :meth:`ToolcheckGuard.completion` (``litellm.completion`` with the request guarded), or
guard the keyword arguments yourself with :meth:`ToolcheckGuard.guard_request`.

The provider whose rules apply is ``provider`` when given, else the one LiteLLM routes the
model to (``anthropic/…`` is checked against Anthropic's rules, ``bedrock/…`` against
Bedrock's), else OpenAI's.

Needs ``pip install 'toolcheck-lint[litellm]'``.
"""

from __future__ import annotations

import logging
import os
from typing import Any, Callable, Dict, Mapping, Optional

from . import GuardSettings, require

require("litellm", "litellm")

import litellm  # noqa: E402
from litellm.integrations.custom_logger import CustomLogger  # noqa: E402

from ..guard import ToolHistoryError  # noqa: E402

__all__ = ["ToolcheckGuard", "proxy_handler_instance", "PROVIDERS"]

log = logging.getLogger("toolcheck")

#: LiteLLM's provider names and the toolcheck provider whose rules apply to them.
PROVIDERS: Dict[str, str] = {
    "openai": "openai",
    "azure": "openai",
    "anthropic": "anthropic",
    "gemini": "gemini",
    "vertex_ai": "gemini-vertex",
    "vertex_ai_beta": "gemini-vertex",
    "bedrock": "bedrock",
    "mistral": "mistral",
    "deepseek": "deepseek",
    "moonshot": "moonshot",
    "minimax": "minimax",
    "dashscope": "dashscope",
}

# The call types whose request carries a chat history (``messages``) or Responses items (``input``).
_RESPONSES = ("responses", "aresponses")


class ToolcheckGuard(CustomLogger):
    """Checks each request's messages (and tool schemas) with :func:`toolcheck.guard` before
    LiteLLM sends it.

    - ``mode="raise"``: the call raises :class:`toolcheck.ToolHistoryError` (HTTP 400 from the
      proxy) listing what the provider would reject, before anything is sent.
    - ``mode="repair"``: the safe fixes are applied and the repaired messages are sent (the
      caller's list is not modified); what no safe fix repairs still raises.
    - ``mode="warn"``: each finding is logged on the ``toolcheck`` logger; the request is sent
      as it is.

    ``provider`` names the rules to apply (``anthropic``, ``openai``, ``gemini``, …); ``None``
    takes it from the model LiteLLM routes to. ``everything``, ``select``, ``ignore`` and
    ``on_repair`` are passed to :func:`toolcheck.guard`.
    """

    # The proxy runs a pre-call hook that judges the request content even when it runs only
    # guardrails.
    enforces_request_content = True

    def __init__(
        self,
        provider: Optional[str] = None,
        mode: str = "raise",
        *,
        everything: bool = False,
        select: Any = None,
        ignore: Any = None,
        on_repair: Optional[Callable[..., None]] = None,
        **kwargs: Any,
    ) -> None:
        self.settings = GuardSettings(provider, mode, everything, None, select, ignore, on_repair)
        super().__init__(**kwargs)

    @property
    def provider(self) -> Optional[str]:
        """The provider named at construction (``None``: the model's)."""
        return self.settings.provider

    @property
    def mode(self) -> str:
        """``raise``, ``repair`` or ``warn``."""
        return self.settings.mode

    def provider_for(self, request: Mapping[str, Any]) -> Optional[str]:
        """The toolcheck provider whose rules apply to ``request``: ``provider`` when set,
        else the one LiteLLM routes its model to (``None`` when unknown: the history's own)."""
        if self.provider is not None:
            return self.provider
        model = request.get("model")
        if not isinstance(model, str):
            return None
        try:
            _, routed, _, _ = litellm.get_llm_provider(model=model, custom_llm_provider=request.get("custom_llm_provider"))
        except Exception:  # an unknown model: judge the history by its own format
            return None
        found = PROVIDERS.get(str(routed))
        if found == "gemini-vertex" and "gemini" not in model:
            return None  # Claude or another family served by Vertex: its own format's rules
        return found

    def guard_request(self, request: Dict[str, Any], call_type: Any = None) -> Dict[str, Any]:
        """Guards a request's keyword arguments (``model``, ``messages`` or ``input``,
        ``tools``) and returns them: ``request`` itself when nothing changed, else a copy with
        the repaired messages and tools. Raises :class:`toolcheck.ToolHistoryError`."""
        key = "input" if str(getattr(call_type, "value", call_type)) in _RESPONSES or (
            "messages" not in request and isinstance(request.get("input"), list)
        ) else "messages"
        history = request.get(key)
        if not isinstance(history, list) or not history:
            return request
        provider = self.provider_for(request)
        if key == "input" and provider in (None, "openai"):
            provider = "openai-responses"  # Responses items go to OpenAI's Responses API
        body: Dict[str, Any] = {key: history}
        if isinstance(request.get("model"), str):
            body["model"] = request["model"]
        if request.get("tools"):
            body["tools"] = request["tools"]
        guarded = self.settings.guard(body, provider=provider)
        if guarded is body:
            return request
        out = dict(request)
        out[key] = guarded[key]
        if "tools" in guarded:
            out["tools"] = guarded["tools"]
        return out

    def completion(self, **kwargs: Any) -> Any:
        """``litellm.completion(**kwargs)`` with the request guarded first (LiteLLM's
        synchronous path runs no callback that could change it)."""
        return litellm.completion(**self.guard_request(kwargs, "completion"))

    async def async_pre_call_deployment_hook(self, kwargs: Dict[str, Any], call_type: Any) -> Optional[Dict[str, Any]]:
        """LiteLLM's hook just before an asynchronous SDK call is sent: returns the guarded
        request, or ``None`` when it is unchanged."""
        guarded = self.guard_request(kwargs, call_type)
        return None if guarded is kwargs else guarded

    async def async_pre_call_hook(self, user_api_key_dict: Any, cache: Any, data: Dict[str, Any], call_type: Any) -> Any:
        """The proxy's hook before a request is routed: returns the guarded request; a
        history the provider rejects is answered with HTTP 400 and the findings."""
        try:
            guarded = self.guard_request(data, call_type)
        except ToolHistoryError as err:
            err.status_code = 400  # type: ignore[attr-defined]  # the proxy answers with it
            raise
        return data if guarded is data else guarded


def _from_env() -> ToolcheckGuard:
    mode = os.environ.get("TOOLCHECK_GUARD_MODE", "raise")
    provider = os.environ.get("TOOLCHECK_GUARD_PROVIDER") or None
    return ToolcheckGuard(provider=provider, mode=mode)


#: The instance a proxy config names (``callbacks: toolcheck.integrations.litellm.proxy_handler_instance``),
#: set up from ``TOOLCHECK_GUARD_MODE`` (default ``raise``) and ``TOOLCHECK_GUARD_PROVIDER``
#: (default: the model's provider).
proxy_handler_instance: ToolcheckGuard = _from_env()
