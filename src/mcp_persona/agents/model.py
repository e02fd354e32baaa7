"""The function-calling agent: a model and the tool pool, in a loop of at most ``max_rounds`` turns."""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from typing import Any

from mcp_persona.agents.tool_schema import estimate_tokens, openai_tools, spec_chars
from mcp_persona.environment import Environment
from mcp_persona.llm.base import ChatClient, ModelError
from mcp_persona.tasks import Task
from mcp_persona.trajectory import ModelCallEvent, RequestedCall, ToolCallEvent, Trajectory

DEFAULT_MAX_ROUNDS = 20


class ModelAgent:
    name = "model"

    def __init__(self, client: ChatClient, *, max_rounds: int = DEFAULT_MAX_ROUNDS) -> None:
        if max_rounds < 1:
            raise ValueError("max_rounds must be at least 1")
        self.client = client
        self.max_rounds = max_rounds

    @property
    def model(self) -> str:
        return self.client.name

    def system_prompt(self, given: str, env: Environment) -> str:
        """The system message sent: the one the runner gave (a subclass may add to it)."""
        return given

    def tool_specs(self, env: Environment) -> Sequence[dict[str, Any]]:
        """The functions the model is offered (a subclass may offer others, e.g. meta-tools)."""
        return openai_tools(env.pool)

    async def run(self, task: Task, env: Environment, trajectory: Trajectory) -> None:
        tools = self.tool_specs(env)
        trajectory.tool_def_chars = spec_chars(tools)
        trajectory.tool_def_tokens = estimate_tokens(trajectory.tool_def_chars)
        if not trajectory.user_prompt:
            raise ValueError("the agent has no messages: an episode's runner writes them on the trajectory "
                             "(mcp_persona.runner.run_episode)")
        trajectory.system_prompt = self.system_prompt(trajectory.system_prompt, env)
        messages: list[dict[str, Any]] = [
            {"role": "system", "content": trajectory.system_prompt},
            {"role": "user", "content": trajectory.user_prompt},
        ]
        for rnd in range(self.max_rounds):
            start = time.perf_counter()
            try:
                resp = await self.client.complete(messages, tools)
            except ModelError as exc:
                category = getattr(exc, "category", None)
                trajectory.events.append(ModelCallEvent(
                    round=rnd, latency_s=time.perf_counter() - start, error=str(exc), error_category=category,
                    attempts=getattr(exc, "attempts", 1)))
                trajectory.stop_reason = "error"
                trajectory.error = f"model call failed: {exc}"
                trajectory.error_category = category
                return
            detail = resp.usage_detail
            trajectory.events.append(ModelCallEvent(
                round=rnd, latency_s=time.perf_counter() - start, usage=resp.usage, content=resp.content,
                reasoning=resp.reasoning, tool_calls=resp.tool_calls, finish_reason=resp.finish_reason,
                attempts=resp.attempts,
                cost_usd=resp.cost_usd, cached_tokens=detail.cached_tokens if detail else 0,
                cache_write_tokens=detail.cache_write_tokens if detail else 0,
                reasoning_tokens=detail.reasoning_tokens if detail else 0))
            if not resp.tool_calls:
                trajectory.final_answer = resp.content or ""
                trajectory.stop_reason = "answered"
                return
            calls = unique_call_ids(resp.tool_calls)
            turn: dict[str, Any] = {
                "role": "assistant",
                "content": resp.content,
                "tool_calls": [{"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.arguments}}
                               for c in calls],
            }
            if resp.replay:  # e.g. Anthropic's thinking blocks, which must come back with the tool results
                turn["replay"] = resp.replay
            messages.append(turn)
            for call in calls:  # one turn's calls run in order, so state stays deterministic
                event = await self.execute(env, call.name, call.arguments, rnd, call.id)
                trajectory.events.append(event)
                messages.append({"role": "tool", "tool_call_id": call.id, "name": call.name, "content": event.result})
        trajectory.stop_reason = "max_rounds"
        trajectory.final_answer = ""

    async def execute(self, env: Environment, name: str, raw: str, rnd: int, call_id: str) -> ToolCallEvent:
        """Run one tool call the model requested; every failure becomes an error event it can read."""
        tool = env.resolve(name)
        if tool is None:
            return ToolCallEvent(round=rnd, call_id=call_id, tool=name, raw_arguments=raw, is_error=True,
                                 result=f"Error: there is no tool named {name!r}.")
        args = parse_arguments(raw)
        if isinstance(args, str):
            return ToolCallEvent(round=rnd, call_id=call_id, server=tool.server, tool=tool.name, raw_arguments=raw,
                                 is_error=True, result=args)
        event = await env.call(tool.server, tool.name, args, round=rnd, call_id=call_id)
        event.raw_arguments = raw
        return event


def unique_call_ids(calls: list[RequestedCall]) -> list[RequestedCall]:
    """The turn's calls with distinct ids: each tool result answers one id, and APIs refuse a conversation
    where two calls share one (some servers number every turn's calls from 0, or send none)."""
    seen: set[str] = set()
    out: list[RequestedCall] = []
    for i, call in enumerate(calls):
        if not call.id or call.id in seen:
            call = call.model_copy(update={"id": f"{call.id or 'call'}_{i}"})
        seen.add(call.id)
        out.append(call)
    return out


def parse_arguments(raw: str) -> dict[str, Any] | str:
    """A call's arguments as a JSON object, or the error message to give the model. Never guessed
    into ``{}``: a call whose arguments do not parse is not executed."""
    try:
        args = json.loads(raw) if raw.strip() else {}
    except json.JSONDecodeError as exc:
        return f"Error: the arguments are not valid JSON ({exc.msg})."
    if not isinstance(args, dict):
        return "Error: the arguments must be a JSON object."
    return args
