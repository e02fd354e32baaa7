"""The one small interface every model sits behind.

Messages and tools are in the OpenAI chat-completions shape, the lingua franca of
function calling; a client for another API converts at its edge.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any, Literal, Protocol, get_args

from pydantic import BaseModel, Field

from mcp_persona.trajectory import RequestedCall, Usage

ErrorCategory = Literal[
    "rate_limit", "server_error", "timeout", "connection", "auth", "bad_request", "malformed_response",
    "request_limit",
]
ERROR_CATEGORIES: tuple[str, ...] = get_args(ErrorCategory)
#: Worth another attempt: the same request may well succeed later. auth, bad_request and request_limit (a
#: request refused before sending: over a provider's documented limits) never will.
RETRYABLE: frozenset[str] = frozenset({"rate_limit", "server_error", "timeout", "connection", "malformed_response"})


class UsageDetail(BaseModel):
    """Token counts of one call, normalized across providers.

    ``prompt_tokens`` counts every input token, cached or not (OpenAI's convention; an
    Anthropic answer is converted: input + cache reads + cache writes). ``cached_tokens``
    and ``cache_write_tokens`` are parts of it; ``reasoning_tokens`` is part of
    ``completion_tokens`` (hidden thinking, billed as output).
    """

    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached_tokens: int = 0
    cache_write_tokens: int = 0
    reasoning_tokens: int = 0

    def to_usage(self) -> Usage:
        return Usage(input_tokens=self.prompt_tokens, output_tokens=self.completion_tokens)

    def __add__(self, other: UsageDetail) -> UsageDetail:
        return UsageDetail(**{k: getattr(self, k) + getattr(other, k) for k in UsageDetail.model_fields})


class ChatResponse(BaseModel):
    content: str | None = None
    reasoning: str | None = None  # reasoning text the endpoint returned beside the answer (kept, never scored)
    # blocks the provider needs back on the next turns (Anthropic's signed thinking blocks), in its own shape
    replay: list[dict[str, Any]] | None = None
    tool_calls: list[RequestedCall] = Field(default_factory=list)
    usage: Usage = Field(default_factory=Usage)
    finish_reason: str | None = None
    # Per-call accounting (None/defaults when a client does not know):
    usage_detail: UsageDetail | None = None
    latency_s: float | None = None  # the successful attempt alone; waits and failed attempts excluded
    attempts: int = 1  # HTTP attempts this call took (1 = no retry)
    cost_usd: float | None = None  # from the price database or the run's prices; None: unpriced
    model: str | None = None  # the model the endpoint says answered (often a dated snapshot)


class ModelError(RuntimeError):
    """The model endpoint failed (network, auth, malformed response): the episode errs, retryable by --resume.

    ``category`` says why (one of ``ERROR_CATEGORIES``, or None when not an endpoint failure);
    it leads the message as ``[category]`` so the episode's recorded error carries it.
    """

    def __init__(
        self,
        message: str,
        *,
        category: ErrorCategory | None = None,
        status_code: int | None = None,
        retry_after: str | None = None,
        attempts: int = 1,
        history: list[str] | None = None,
    ) -> None:
        if category is not None and category not in ERROR_CATEGORIES:
            raise ValueError(f"unknown error category {category!r}")
        self.message = message
        self.category = category
        self.status_code = status_code
        self.retry_after = retry_after  # the raw Retry-After header, if the endpoint sent one
        self.attempts = attempts
        self.history = list(history or [])  # categories of the failed attempts, in order
        super().__init__(self._text())

    def _text(self) -> str:
        text = f"[{self.category}] {self.message}" if self.category else self.message
        if self.attempts > 1:
            text += f" (after {self.attempts} attempts: {', '.join(self.history)})"
        return text

    @property
    def retryable(self) -> bool:
        return self.category in RETRYABLE

    def after_attempts(self, attempts: int, history: list[str]) -> ModelError:
        """The same error, stamped with how many attempts were made."""
        self.attempts = attempts
        self.history = list(history)
        self.args = (self._text(),)
        return self


class ChatClient(Protocol):
    @property
    def name(self) -> str: ...

    async def complete(self, messages: list[dict[str, Any]], tools: Sequence[dict[str, Any]]) -> ChatResponse: ...


def wire_json(value: Any) -> str:
    """``value`` as an HTTP request body carries it, the way the provider SDKs encode one: UTF-8 text, no
    spaces after separators, NaN refused."""
    return _WIRE.encode(value)


_WIRE = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), allow_nan=False)
