"""Model clients: OpenAI-compatible endpoints, Anthropic, and the bundled local model.

``make_client`` is the single entry point; a spec is ``provider:model``:

* ``openai:NAME`` — OpenAI, or any OpenAI-compatible endpoint given ``base_url``
  (vLLM, Ollama, llama.cpp's server, ``mcp_persona.llm.local_server``);
* ``anthropic:NAME`` — Anthropic's Messages API;
* ``local`` — SmolLM2 run in-process by llama.cpp.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from mcp_persona.llm.base import ERROR_CATEGORIES, ChatClient, ChatResponse, ModelError, UsageDetail
from mcp_persona.llm.limits import LIMITS, RequestLimitError, RequestLimits, limits_for
from mcp_persona.llm.pricing import PriceOverride, cost_usd, price_source, pricing_version, unpriced_reason
from mcp_persona.llm.retry import DEFAULT_CONCURRENCY, RetryPolicy
from mcp_persona.llm.settings import ModelSettings

PROVIDERS = ("openai", "anthropic", "local")
DEFAULT_KEY_ENV = {"openai": "OPENAI_API_KEY", "anthropic": "ANTHROPIC_API_KEY"}


def parse_spec(spec: str) -> tuple[str, str]:
    """``provider:model`` as (provider, model); ``local`` as ("local", ""). Model names may hold colons."""
    spec = spec.strip()
    if spec == "local":
        return "local", ""
    provider, sep, model = spec.partition(":")
    provider = provider.strip().lower()
    model = model.strip()
    if provider not in PROVIDERS:
        raise ValueError(f"unknown model provider in {spec!r}: use one of 'openai:MODEL', 'anthropic:MODEL', 'local'")
    if provider == "local":
        raise ValueError(f"{spec!r}: the local model is spelled just 'local'")
    if not sep or not model:
        raise ValueError(f"{spec!r} names no model: use '{provider}:MODEL_NAME'")
    return provider, model


def make_client(
    spec: str,
    *,
    base_url: str | None = None,
    api_key_env: str | None = None,
    timeout_s: float | None = None,
    max_concurrency: int = DEFAULT_CONCURRENCY,
    retry: RetryPolicy | None = None,
    max_tokens: int | None = None,
    settings: ModelSettings | None = None,
    api_limits: str | None = None,
    scope: str = "agent",
    price: PriceOverride | None = None,
) -> ChatClient:
    """A client for ``spec``. ``api_key_env`` defaults to the provider's (OPENAI_API_KEY, ANTHROPIC_API_KEY);
    ``max_concurrency`` bounds the requests in flight to one endpoint, across all its clients of the same
    ``scope`` (the agent's and the judge's requests are limited apart); ``settings`` are the generation
    settings (``max_tokens`` a shortcut for its field; default 4096 for endpoints, 256 for ``local``);
    ``api_limits`` the request limits to hold requests to (:mod:`mcp_persona.llm.limits`; default: the
    provider's, by endpoint); ``price`` the run's own prices for the model (default: the price database's)."""
    provider, model = parse_spec(spec)
    settings = settings or ModelSettings()
    if max_tokens is not None:
        settings = replace(settings, max_tokens=max_tokens)
    settings.check(provider)
    if provider == "local":
        if base_url is not None:
            raise ValueError("a base URL does not apply to 'local'; for an endpoint use 'openai:MODEL' with it")
        if price is not None:
            raise ValueError("the local model runs in this process and costs nothing: --price-in/--price-out "
                             "are for an endpoint's model")
        if settings.reasoning_effort is not None or settings.top_p is not None:
            raise ValueError("the local model takes --temperature, --max-tokens and --seed only")
        from mcp_persona.llm.local import LocalChatClient

        extra: dict[str, Any] = {k: v for k, v in (("max_tokens", settings.max_tokens), ("seed", settings.seed),
                                                   ("temperature", settings.temperature)) if v is not None}
        return LocalChatClient(**extra)
    key_env = api_key_env or DEFAULT_KEY_ENV[provider]
    limits = limits_for(provider, base_url, api_limits)
    if provider == "openai":
        from mcp_persona.llm.openai_client import OpenAIChatClient

        client: Any = OpenAIChatClient(
            model, base_url=base_url, api_key_env=key_env, timeout_s=timeout_s, retry=retry,
            max_concurrency=max_concurrency, scope=scope, settings=settings, limits=limits)
    else:
        from mcp_persona.llm.anthropic_client import AnthropicChatClient

        client = AnthropicChatClient(model, base_url=base_url, api_key_env=key_env, timeout_s=timeout_s, retry=retry,
                                     max_concurrency=max_concurrency, scope=scope, settings=settings, limits=limits)
    client.price_override = price
    return client


__all__ = [
    "DEFAULT_CONCURRENCY",
    "ERROR_CATEGORIES",
    "LIMITS",
    "PROVIDERS",
    "ChatClient",
    "ChatResponse",
    "ModelError",
    "ModelSettings",
    "PriceOverride",
    "RequestLimitError",
    "RequestLimits",
    "RetryPolicy",
    "UsageDetail",
    "cost_usd",
    "limits_for",
    "make_client",
    "parse_spec",
    "price_source",
    "pricing_version",
    "unpriced_reason",
]
