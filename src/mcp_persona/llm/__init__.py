"""Model clients: OpenAI-compatible endpoints, Anthropic, and the bundled local model.

``make_client`` is the single entry point; a spec is ``provider:model``:

* ``openai:NAME`` — OpenAI, or any OpenAI-compatible endpoint given ``base_url``
  (vLLM, Ollama, llama.cpp's server, ``mcp_persona.llm.local_server``);
* ``anthropic:NAME`` — Anthropic's Messages API;
* ``local`` — SmolLM2 run in-process by llama.cpp.
"""

from __future__ import annotations

from mcp_persona.llm.base import ERROR_CATEGORIES, ChatClient, ChatResponse, ModelError, UsageDetail
from mcp_persona.llm.pricing import cost_usd, pricing_version
from mcp_persona.llm.retry import DEFAULT_CONCURRENCY, RetryPolicy

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
    scope: str = "agent",
) -> ChatClient:
    """A client for ``spec``. ``api_key_env`` defaults to the provider's (OPENAI_API_KEY, ANTHROPIC_API_KEY);
    ``max_concurrency`` bounds the requests in flight to one endpoint, across all its clients of the same
    ``scope`` (the agent's and the judge's requests are limited apart); ``max_tokens`` caps each answer
    (default: 4096 for endpoints, 256 for ``local``)."""
    provider, model = parse_spec(spec)
    if provider == "local":
        if base_url is not None:
            raise ValueError("a base URL does not apply to 'local'; for an endpoint use 'openai:MODEL' with it")
        from mcp_persona.llm.local import LocalChatClient

        return LocalChatClient() if max_tokens is None else LocalChatClient(max_tokens=max_tokens)
    key_env = api_key_env or DEFAULT_KEY_ENV[provider]
    extra = {} if max_tokens is None else {"max_tokens": max_tokens}
    if provider == "openai":
        from mcp_persona.llm.openai_client import OpenAIChatClient

        return OpenAIChatClient(model, base_url=base_url, api_key_env=key_env, timeout_s=timeout_s, retry=retry,
                                max_concurrency=max_concurrency, scope=scope, **extra)
    from mcp_persona.llm.anthropic_client import AnthropicChatClient

    return AnthropicChatClient(model, base_url=base_url, api_key_env=key_env, timeout_s=timeout_s, retry=retry,
                               max_concurrency=max_concurrency, scope=scope, **extra)


__all__ = [
    "DEFAULT_CONCURRENCY",
    "ERROR_CATEGORIES",
    "PROVIDERS",
    "ChatClient",
    "ChatResponse",
    "ModelError",
    "RetryPolicy",
    "UsageDetail",
    "cost_usd",
    "make_client",
    "parse_spec",
    "pricing_version",
]
