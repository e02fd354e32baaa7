"""Any OpenAI-compatible chat-completions endpoint (OpenAI, vLLM, llama.cpp's server, ...)."""

from __future__ import annotations

import os
from typing import Any

from mcp_persona.llm.base import ChatResponse, ModelError
from mcp_persona.trajectory import RequestedCall, Usage


class OpenAIChatClient:
    def __init__(
        self,
        model: str,
        *,
        base_url: str | None = None,
        api_key_env: str = "OPENAI_API_KEY",
        temperature: float = 0.0,
        max_tokens: int = 4096,
        timeout_s: float = 120.0,
    ) -> None:
        import openai  # imported here: the offline path never needs it

        key = os.environ.get(api_key_env)
        if not key and base_url is None:
            raise ModelError(f"no API key: set {api_key_env} (or pass --base-url for a local endpoint)")
        self._client = openai.AsyncOpenAI(api_key=key or "unused", base_url=base_url, timeout=timeout_s,
                                          max_retries=2)
        self._openai = openai
        self.model = model
        self.temperature = temperature
        self.max_tokens = max_tokens

    @property
    def name(self) -> str:
        return f"openai:{self.model}"

    async def complete(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> ChatResponse:
        kwargs: dict[str, Any] = {"model": self.model, "messages": messages, "temperature": self.temperature,
                                  "max_tokens": self.max_tokens}
        if tools:
            kwargs["tools"] = tools
        try:
            resp = await self._client.chat.completions.create(**kwargs)
        except self._openai.OpenAIError as exc:
            raise ModelError(f"{type(exc).__name__}: {exc}") from exc
        if not resp.choices:
            raise ModelError("the endpoint returned no choices")
        choice = resp.choices[0]
        calls = [
            RequestedCall(id=c.id, name=c.function.name, arguments=c.function.arguments or "")
            for c in (choice.message.tool_calls or [])
            if getattr(c, "function", None) is not None
        ]
        usage = Usage()
        if resp.usage is not None:
            usage = Usage(input_tokens=resp.usage.prompt_tokens or 0, output_tokens=resp.usage.completion_tokens or 0)
        return ChatResponse(content=choice.message.content, tool_calls=calls, usage=usage,
                            finish_reason=choice.finish_reason)
