"""Anthropic's Messages API, behind the same OpenAI-shaped interface as every other client.

The conversion happens here, at the edge, in pure functions (``to_anthropic_messages``,
``to_anthropic_tools``, ``parse_anthropic_message``):

* system messages become the ``system`` parameter;
* an assistant's ``tool_calls`` become ``tool_use`` blocks (arguments parsed back to the
  object Anthropic requires);
* ``tool`` messages become ``tool_result`` blocks in a user turn, consecutive results
  sharing one turn, as the API requires;
* consecutive turns of one role are merged (the API wants user and assistant to alternate).

The SDK's own retries are off; ``mcp_persona.llm.retry`` decides.
"""

from __future__ import annotations

import dataclasses
import json
import os
from collections.abc import Sequence
from typing import Any

from mcp_persona.llm.base import ChatResponse, ModelError, UsageDetail
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

STOP_REASONS = {"end_turn": "stop", "stop_sequence": "stop", "tool_use": "tool_calls", "max_tokens": "length",
                "pause_turn": "stop", "refusal": "content_filter"}
EMPTY_SCHEMA: dict[str, Any] = {"type": "object", "properties": {}}


class AnthropicChatClient:
    provider = "anthropic"
    price_override: PriceOverride | None = None  # the run's own prices (set by make_client)

    def __init__(
        self,
        model: str,
        *,
        base_url: str | None = None,
        api_key_env: str = "ANTHROPIC_API_KEY",
        temperature: float | None = None,
        max_tokens: int | None = None,
        settings: ModelSettings | None = None,
        limits: RequestLimits | None = None,
        timeout_s: float | None = None,
        retry: RetryPolicy | None = None,
        max_concurrency: int = DEFAULT_CONCURRENCY,
        scope: str = "agent",
    ) -> None:
        try:
            import anthropic
        except ImportError as exc:
            raise ModelError("the anthropic SDK is not installed: pip install 'mcp-persona[anthropic]'") from exc

        key = os.environ.get(api_key_env)
        if not key and base_url is None:
            raise ModelError(f"no API key: set {api_key_env}", category="auth")
        self.retry = retry or RetryPolicy()
        if timeout_s is not None:
            self.retry = dataclasses.replace(self.retry, timeout_s=timeout_s)
        # One SDK client per event loop (its connection pool is bound to the loop); its timeout is a backstop.
        # The SDK's default HTTP client, not its wrapper (see the OpenAI client: a close scheduled on garbage
        # collection fails on another loop).
        self._clients = PerLoop(lambda: anthropic.AsyncAnthropic(
            api_key=key or "unused", base_url=base_url, max_retries=0,
            http_client=anthropic.DefaultAsyncHttpxClient(timeout=self.retry.timeout_s + 5.0)))
        self._anthropic = anthropic
        self.model = model
        self.base_url = base_url
        settings = settings or ModelSettings()
        if temperature is not None or max_tokens is not None:
            settings = dataclasses.replace(settings, **{k: v for k, v in (("temperature", temperature),
                                                                          ("max_tokens", max_tokens)) if v is not None})
        self.settings = settings.check(self.provider)
        self.limits = limits or limits_for(self.provider, base_url)
        self._checked_tools = ToolsCheck(self.limits)
        self.max_concurrency = max_concurrency
        self.scope = scope  # whose requests share the endpoint's limit ("agent", "judge")

    @property
    def name(self) -> str:
        return f"anthropic:{self.model}"

    @property
    def temperature(self) -> float | None:
        return self.settings.temperature

    @property
    def max_tokens(self) -> int:
        return self.settings.answer_tokens

    def request(self, messages: list[dict[str, Any]], tools: Sequence[dict[str, Any]]) -> dict[str, Any]:
        s = self.settings
        system, converted = to_anthropic_messages(messages)
        kwargs: dict[str, Any] = {"model": self.model, "max_tokens": s.answer_tokens, "messages": converted}
        # the current SDK has no sampling parameters: they go as raw fields of the body
        sampling = {k: v for k, v in (("temperature", s.temperature), ("top_p", s.top_p)) if v is not None}
        if sampling:
            kwargs["extra_body"] = sampling
        if s.thinking_budget is not None:
            kwargs["thinking"] = {"type": "enabled", "budget_tokens": s.thinking_budget}
        if s.reasoning_effort is not None:
            kwargs["output_config"] = {"effort": s.reasoning_effort}
        if system:
            kwargs["system"] = system
        if tools:
            kwargs["tools"] = to_anthropic_tools(tools)
        return kwargs

    async def complete(self, messages: list[dict[str, Any]], tools: Sequence[dict[str, Any]]) -> ChatResponse:
        self._checked_tools(tools)
        check_messages(self.limits, messages)
        kwargs = self.request(messages, tools)

        return await call_endpoint(
            self, self._anthropic, lambda: self._clients.get().messages.create(**kwargs), parse_anthropic_message
        )


# --- OpenAI shape → Anthropic shape ---------------------------------------------------------------------------


def _text(content: Any) -> str:
    """Message content as plain text (a string, or OpenAI content parts)."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(p.get("text", "") for p in content if isinstance(p, dict) and p.get("type") == "text")
    return str(content)


def _tool_input(arguments: Any) -> dict[str, Any]:
    if isinstance(arguments, dict):
        return arguments
    try:
        parsed = json.loads(arguments) if isinstance(arguments, str) and arguments.strip() else {}
    except json.JSONDecodeError:
        parsed = None
    # tool_use.input must be an object: arguments that were not one are shown to the model as they were
    return parsed if isinstance(parsed, dict) else {"_unparsed_arguments": arguments}


def to_anthropic_messages(messages: list[dict[str, Any]]) -> tuple[str | None, list[dict[str, Any]]]:
    """(system prompt, Messages-API turns) from OpenAI-shaped messages."""
    system: list[str] = []
    turns: list[dict[str, Any]] = []

    def add(role: str, blocks: list[dict[str, Any]]) -> None:
        if turns and turns[-1]["role"] == role:
            turns[-1]["content"].extend(blocks)
        else:
            turns.append({"role": role, "content": blocks})

    for m in messages:
        role = m.get("role")
        if role in ("system", "developer"):
            text = _text(m.get("content"))
            if text:
                system.append(text)
        elif role == "user":
            text = _text(m.get("content"))
            add("user", [{"type": "text", "text": text or "(empty)"}])
        elif role == "assistant":
            # thinking blocks first, unchanged (signed): the API requires them back with the tool results
            blocks: list[dict[str, Any]] = [dict(b) for b in m.get("replay") or []]
            text = _text(m.get("content"))
            if text:
                blocks.append({"type": "text", "text": text})
            for i, call in enumerate(m.get("tool_calls") or []):
                fn = call.get("function") or {}
                blocks.append({"type": "tool_use", "id": call.get("id") or f"call_{i}", "name": fn.get("name", ""),
                               "input": _tool_input(fn.get("arguments"))})
            add("assistant", blocks or [{"type": "text", "text": "(empty)"}])
        elif role == "tool":
            add("user", [{"type": "tool_result", "tool_use_id": m.get("tool_call_id", ""),
                          "content": _text(m.get("content")) or "(empty)"}])
        else:
            raise ValueError(f"cannot convert a message with role {role!r}")
    return ("\n\n".join(system) or None), turns


def to_anthropic_tools(tools: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    out = []
    for tool in tools:
        fn = tool.get("function", tool)
        schema = fn.get("parameters") or EMPTY_SCHEMA
        if schema.get("type") != "object":
            schema = {**EMPTY_SCHEMA, **schema, "type": "object"}
        entry: dict[str, Any] = {"name": fn["name"], "input_schema": schema}
        if fn.get("description"):
            entry["description"] = fn["description"]
        out.append(entry)
    return out


# --- Anthropic answer → ChatResponse ---------------------------------------------------------------------------


def anthropic_usage(usage: Any) -> UsageDetail | None:
    u = usage.model_dump() if hasattr(usage, "model_dump") else usage
    if not isinstance(u, dict):
        return None
    fresh = u.get("input_tokens") or 0
    read = u.get("cache_read_input_tokens") or 0
    written = u.get("cache_creation_input_tokens") or 0
    return UsageDetail(prompt_tokens=fresh + read + written, completion_tokens=u.get("output_tokens") or 0,
                       cached_tokens=read, cache_write_tokens=written)


def parse_anthropic_message(raw: Any) -> ChatResponse:
    data = raw.model_dump() if hasattr(raw, "model_dump") else raw
    if not isinstance(data, dict) or not isinstance(data.get("content"), list):
        raise ModelError("the endpoint's answer has no content blocks", category="malformed_response")
    texts: list[str] = []
    thoughts: list[str] = []
    replay: list[dict[str, Any]] = []
    calls: list[RequestedCall] = []
    for i, block in enumerate(data["content"]):
        if not isinstance(block, dict):
            continue
        if block.get("type") in ("thinking", "redacted_thinking"):
            # kept whole for the next turn; the readable part goes to the trajectory
            replay.append({k: v for k, v in block.items() if k in ("type", "thinking", "signature", "data")})
            if block.get("thinking"):
                thoughts.append(block["thinking"])
        elif block.get("type") == "text":
            texts.append(block.get("text") or "")
        elif block.get("type") == "tool_use":
            args = block.get("input")
            raw_args = args if isinstance(args, str) else json.dumps(args if args is not None else {},
                                                                     ensure_ascii=False)
            calls.append(RequestedCall(id=block.get("id") or f"call_{i}", name=block.get("name") or "",
                                       arguments=raw_args))
        # server tool blocks: not part of the answer
    detail = anthropic_usage(data.get("usage"))
    joined = "".join(texts)
    content = joined if joined.strip() else None
    stop = data.get("stop_reason")
    return ChatResponse(
        content=content,
        reasoning="\n\n".join(thoughts) or None,
        replay=replay or None,
        tool_calls=calls,
        usage=detail.to_usage() if detail else ChatResponse().usage,
        usage_detail=detail,
        finish_reason=STOP_REASONS.get(stop, stop) if isinstance(stop, str) else None,
        model=data.get("model") if isinstance(data.get("model"), str) else None,
    )
