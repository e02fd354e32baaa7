"""The one small interface every model sits behind.

Messages and tools are in the OpenAI chat-completions shape, the lingua franca of
function calling; a client for another API converts at its edge.
"""

from __future__ import annotations

from typing import Any, Protocol

from pydantic import BaseModel, Field

from mcp_persona.trajectory import RequestedCall, Usage


class ChatResponse(BaseModel):
    content: str | None = None
    tool_calls: list[RequestedCall] = Field(default_factory=list)
    usage: Usage = Field(default_factory=Usage)
    finish_reason: str | None = None


class ModelError(RuntimeError):
    """The model endpoint failed (network, auth, malformed response): the episode errs, retryable."""


class ChatClient(Protocol):
    @property
    def name(self) -> str: ...

    async def complete(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> ChatResponse: ...
