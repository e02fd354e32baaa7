"""Model clients: OpenAI-compatible endpoints and the bundled local model."""

from __future__ import annotations

from mcp_persona.llm.base import ChatClient, ChatResponse, ModelError


def make_client(spec: str, *, base_url: str | None = None, api_key_env: str = "OPENAI_API_KEY") -> ChatClient:
    """``local`` or ``openai:MODEL`` (any OpenAI-compatible endpoint with ``base_url``)."""
    if spec == "local":
        from mcp_persona.llm.local import LocalChatClient

        return LocalChatClient()
    provider, _, model = spec.partition(":")
    if provider == "openai" and model:
        from mcp_persona.llm.openai_client import OpenAIChatClient

        return OpenAIChatClient(model, base_url=base_url, api_key_env=api_key_env)
    raise ValueError(f"unknown model {spec!r}: use 'local' or 'openai:MODEL_NAME'")


__all__ = ["ChatClient", "ChatResponse", "ModelError", "make_client"]
