"""Any OpenAI-compatible chat-completions endpoint (OpenAI, vLLM, Ollama, llama.cpp's server, ...).

The SDK's own retries are off; ``mcp_persona.llm.retry`` decides. Tool-call arguments
pass through exactly as the endpoint sent them, malformed or not: the agent records a
call whose arguments do not parse, it never guesses them.
"""

from __future__ import annotations

import dataclasses
import json
import os
import re
from collections.abc import Sequence
from typing import Any

from mcp_persona.llm.base import ChatResponse, ModelError, UsageDetail, wire_json
from mcp_persona.llm.limits import RequestLimits, ToolsCheck, check_messages, limits_for
from mcp_persona.llm.pricing import PriceOverride
from mcp_persona.llm.retry import (
    DEFAULT_CONCURRENCY,
    PerLoop,
    RetryPolicy,
    call_endpoint,
)
from mcp_persona.llm.settings import ModelSettings
from mcp_persona.trajectory import RequestedCall

# OpenAI's reasoning models take max_completion_tokens and only their default temperature.
_REASONING = re.compile(r"^(o\d|gpt-5)")


class OpenAIChatClient:
    provider = "openai"
    price_override: PriceOverride | None = None  # the run's own prices (set by make_client)

    def __init__(
        self,
        model: str,
        *,
        base_url: str | None = None,
        api_key_env: str = "OPENAI_API_KEY",
        temperature: float | None = None,
        max_tokens: int | None = None,
        settings: ModelSettings | None = None,
        limits: RequestLimits | None = None,
        timeout_s: float | None = None,
        retry: RetryPolicy | None = None,
        max_concurrency: int = DEFAULT_CONCURRENCY,
        scope: str = "agent",
    ) -> None:
        import openai  # imported here: the offline path never needs it

        key = os.environ.get(api_key_env)
        if not key and base_url is None:
            raise ModelError(f"no API key: set {api_key_env} (or pass --base-url for a local endpoint)",
                             category="auth")
        self.retry = retry or RetryPolicy()
        if timeout_s is not None:
            self.retry = dataclasses.replace(self.retry, timeout_s=timeout_s)
        # One SDK client per event loop (its connection pool is bound to the loop). Its timeout is a
        # backstop a little past ours, so a timeout reads the same from every client.
        # The HTTP client is the SDK's default one, not its wrapper: the wrapper schedules its own close on
        # whatever loop runs when it is garbage-collected, which fails there if its loop has ended.
        self._clients = PerLoop(lambda: openai.AsyncOpenAI(
            api_key=key or "unused", base_url=base_url, max_retries=0,
            http_client=openai.DefaultAsyncHttpxClient(timeout=self.retry.timeout_s + 5.0)))
        self._openai = openai
        self.model = model
        self.base_url = base_url
        settings = settings or ModelSettings()
        if temperature is not None or max_tokens is not None:
            settings = dataclasses.replace(settings, **{k: v for k, v in (("temperature", temperature),
                                                                          ("max_tokens", max_tokens)) if v is not None})
        self.settings = settings.check(self.provider)
        self.limits = limits or limits_for(self.provider, base_url)
        self.max_concurrency = max_concurrency
        self.scope = scope  # whose requests share the endpoint's limit ("agent", "judge")
        self._official = base_url is None or "api.openai.com" in base_url
        self._checked_tools = ToolsCheck(self.limits)

    @property
    def name(self) -> str:
        return f"openai:{self.model}"

    @property
    def temperature(self) -> float | None:
        """The temperature requests carry: the one set, else 0 but for OpenAI's reasoning models (they take only
        their default)."""
        if self.settings.temperature is not None:
            return self.settings.temperature
        return None if self._official and _REASONING.match(self.model) else 0.0

    @property
    def max_tokens(self) -> int:
        return self.settings.answer_tokens

    def request(self, messages: list[dict[str, Any]], tools: Sequence[dict[str, Any]]) -> dict[str, Any]:
        s = self.settings
        kwargs: dict[str, Any] = {"model": self.model, "messages": messages}
        if (temperature := self.temperature) is not None:
            kwargs["temperature"] = temperature
        if s.top_p is not None:
            kwargs["top_p"] = s.top_p
        kwargs["max_completion_tokens" if self._official else "max_tokens"] = s.answer_tokens
        if s.seed is not None:
            kwargs["seed"] = s.seed
        if s.reasoning_effort is not None:
            kwargs["reasoning_effort"] = s.reasoning_effort
        if tools:
            kwargs["tools"] = tools
        return kwargs

    async def complete(self, messages: list[dict[str, Any]], tools: Sequence[dict[str, Any]]) -> ChatResponse:
        self._checked_tools(tools)
        check_messages(self.limits, messages)
        body = encode_request(self.request(messages, tools))
        return await call_endpoint(self, self._openai, lambda: self._post(body), parse_chat_completion)

    async def _post(self, body: bytes) -> Any:
        # The body is already in the wire format. The SDK's typed ``chat.completions.create`` would walk every
        # message and tool schema against its TypedDicts and build a pydantic model of the answer, each call:
        # ~10 ms of CPU a turn. Same endpoint, headers, error classes; the answer is parsed here, strictly.
        # Bytes go out as they are (the SDK's JSON content type stays).
        raw = await self._clients.get().post("/chat/completions", body=body, cast_to=bytes)
        return json.loads(raw)


def encode_request(request: dict[str, Any]) -> bytes:
    """A chat-completions request as the SDK would encode it. Tool definitions that carry their encoded
    form (``ToolSpecs``: the same in every request of an episode) are spliced in, not encoded again."""
    tools = request.get("tools")
    encoded = getattr(tools, "json", None)
    if not isinstance(encoded, str):
        return wire_json(request).encode()
    rest = wire_json({k: v for k, v in request.items() if k != "tools"})
    return f'{rest[:-1]}{"," if len(rest) > 2 else ""}"tools":{encoded}}}'.encode()


def _as_dict(obj: Any) -> Any:
    if hasattr(obj, "model_dump"):
        return obj.model_dump()
    return obj


def openai_usage(usage: Any) -> UsageDetail | None:
    """An OpenAI ``usage`` object (or dict) as UsageDetail; None if the endpoint sent none."""
    u = _as_dict(usage)
    if not isinstance(u, dict):
        return None
    prompt_details = u.get("prompt_tokens_details") or {}
    completion_details = u.get("completion_tokens_details") or {}
    return UsageDetail(
        prompt_tokens=u.get("prompt_tokens") or 0,
        completion_tokens=u.get("completion_tokens") or 0,
        cached_tokens=(prompt_details.get("cached_tokens") or 0) if isinstance(prompt_details, dict) else 0,
        reasoning_tokens=(completion_details.get("reasoning_tokens") or 0)
        if isinstance(completion_details, dict) else 0,
    )


def parse_chat_completion(raw: Any) -> ChatResponse:
    """A chat-completions answer (SDK object or dict) as a ChatResponse; ModelError(malformed_response) if unusable."""
    data = _as_dict(raw)
    if not isinstance(data, dict):
        raise ModelError(f"the endpoint answered {type(raw).__name__}, not a chat completion",
                         category="malformed_response")
    choices = data.get("choices")
    if not choices or not isinstance(choices, list) or not isinstance(choices[0], dict):
        raise ModelError("the endpoint returned no choices", category="malformed_response")
    choice = choices[0]
    message = choice.get("message")
    if not isinstance(message, dict):
        raise ModelError("the endpoint's choice has no message", category="malformed_response")
    calls: list[RequestedCall] = []
    for i, tc in enumerate(message.get("tool_calls") or []):
        fn = tc.get("function") if isinstance(tc, dict) else None
        if not isinstance(fn, dict):
            continue  # not a function call (e.g. a custom tool type): nothing the agent could run
        args = fn.get("arguments")
        if args is None:
            args = ""
        elif not isinstance(args, str):  # some servers send an object: keep it, as JSON text
            args = json.dumps(args, ensure_ascii=False)
        calls.append(RequestedCall(id=tc.get("id") or f"call_{i}", name=fn.get("name") or "", arguments=args))
    detail = openai_usage(data.get("usage"))
    content = message.get("content")
    # reasoning text some servers return beside the answer: vLLM and DeepSeek as reasoning_content, OpenRouter
    # and newer vLLM as reasoning
    reasoning = message.get("reasoning_content") or message.get("reasoning")
    return ChatResponse(
        content=content if isinstance(content, str) else None,
        reasoning=reasoning if isinstance(reasoning, str) and reasoning else None,
        tool_calls=calls,
        usage=detail.to_usage() if detail else ChatResponse().usage,
        usage_detail=detail,
        finish_reason=choice.get("finish_reason"),
        model=data.get("model") if isinstance(data.get("model"), str) else None,
    )
