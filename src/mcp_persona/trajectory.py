"""What happened in one episode: an ordered event log of model calls and tool calls.

Model calls carry token usage and latency; tool calls carry the server, the tool,
the arguments as the agent sent them, the result text, the error flag and latency.
Calls the agent issued in one turn share a ``round`` (parallel calls, as
MCPAgentBench counts them).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, Field


class Usage(BaseModel):
    input_tokens: int = 0
    output_tokens: int = 0

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            input_tokens=self.input_tokens + other.input_tokens,
            output_tokens=self.output_tokens + other.output_tokens,
        )


class RequestedCall(BaseModel):
    """A tool call as the model emitted it (arguments still a raw JSON string)."""

    id: str
    name: str
    arguments: str


class ModelCallEvent(BaseModel):
    kind: Literal["model"] = "model"
    round: int
    latency_s: float
    usage: Usage = Field(default_factory=Usage)
    content: str | None = None
    reasoning: str | None = None  # reasoning text the endpoint returned (vLLM/DeepSeek reasoning_content, thinking)
    tool_calls: list[RequestedCall] = Field(default_factory=list)
    finish_reason: str | None = None
    error: str | None = None
    error_category: str | None = None  # rate_limit, server_error, timeout, connection, auth, ...
    attempts: int = 1
    cached_tokens: int = 0
    cache_write_tokens: int = 0
    reasoning_tokens: int = 0
    cost_usd: float | None = None  # from the price database or the run's prices; None: unknown


class ToolCallEvent(BaseModel):
    kind: Literal["tool"] = "tool"
    round: int
    call_id: str = ""
    server: str | None = None  # None when the name matched no tool in the pool
    tool: str
    arguments: dict[str, Any] | None = None  # None when the raw arguments did not parse
    raw_arguments: str | None = None
    result: str = ""
    is_error: bool = False
    latency_s: float = 0.0
    via: Literal["route", "execute"] | None = None  # the copilot meta-tool the call went through


Event = Annotated[ModelCallEvent | ToolCallEvent, Field(discriminator="kind")]

StopReason = Literal["answered", "max_rounds", "error", "replayed"]


class Trajectory(BaseModel):
    task_id: str
    agent: str
    model: str | None = None
    events: list[Event] = Field(default_factory=list)
    final_answer: str = ""
    stop_reason: StopReason | None = None
    error: str | None = None
    error_category: str | None = None
    elapsed_s: float = 0.0
    # What the tool definitions add to every model request of the episode (compact JSON; tokens estimated).
    tool_def_chars: int = 0
    tool_def_tokens: int = 0
    # What the agent was told (None: an agent told nothing, such as the gold replay, or a run stored before)
    system_prompt: str | None = None
    user_prompt: str | None = None

    @property
    def tool_calls(self) -> list[ToolCallEvent]:
        return [e for e in self.events if isinstance(e, ToolCallEvent)]

    @property
    def model_calls(self) -> list[ModelCallEvent]:
        return [e for e in self.events if isinstance(e, ModelCallEvent)]

    @property
    def usage(self) -> Usage:
        total = Usage()
        for e in self.model_calls:
            total = total + e.usage
        return total

    @property
    def cost_usd(self) -> float | None:
        """Total model cost; None as soon as one call's price is unknown (never a partial sum passed as whole)."""
        costs = [e.cost_usd for e in self.model_calls]
        return None if not costs or any(c is None for c in costs) else sum(c for c in costs if c is not None)

    @property
    def rounds(self) -> int:
        return len({e.round for e in self.events})
