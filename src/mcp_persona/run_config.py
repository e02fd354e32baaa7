"""A run's settings as the runner and the protocols see them: what was asked for (:class:`RunConfig`, stored
with the run) and how episodes are judged (:class:`Judging`). Below both the protocols and the runner, so that a
protocol's interface never imports the runner that drives it."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any, Literal, TypeVar

from mcp_persona.environment import ToolPool
from mcp_persona.llm.base import ChatClient

DEFAULT_PROTOCOL = "persona"


@dataclass(frozen=True)
class RunConfig:
    suite: str
    agent: str
    model: str | None
    tools: ToolPool = "selected"
    max_rounds: int = 20
    context_distractors: int = 0
    skills: str = "none"
    trials: int = 1
    judge: str = "rules"
    judge_policy: Literal["complement", "replace"] = "complement"
    protocol: str = DEFAULT_PROTOCOL
    protocol_options: dict[str, Any] = field(default_factory=dict)
    model_settings: dict[str, Any] = field(default_factory=dict)  # the generation settings set (ModelSettings)
    flags: dict[str, Any] = field(default_factory=dict)  # the command's flags (``--resume`` alone reuses them)
    # where the agent's (and judge's) prices come from: the price database and its version, or "override"
    pricing: dict[str, Any] = field(default_factory=dict)
    label: str | None = None  # the name the user gave the run (--label): shown wherever the run is named

    def to_dict(self) -> dict[str, object]:
        return asdict(self)


J = TypeVar("J")


@dataclass(frozen=True)
class Judging:
    """LLM judging of a run's episodes: the judge model's client and how its verdicts combine with the rules
    (``complement``: only what the rules leave undecided; ``replace``: everything). Each protocol builds the
    judges it needs from the client, once per run (:meth:`judge`), so their limits hold across episodes."""

    client: ChatClient
    policy: Literal["complement", "replace"] = "complement"
    _judges: dict[Callable[[ChatClient], Any], Any] = field(default_factory=dict, repr=False, compare=False)

    @classmethod
    def with_client(cls, client: ChatClient, policy: Literal["complement", "replace"] = "complement") -> Judging:
        return cls(client, policy)

    def judge(self, kind: Callable[[ChatClient], J]) -> J:
        """The run's judge of ``kind`` (a judge class taking the client), made on first use."""
        if kind not in self._judges:
            self._judges[kind] = kind(self.client)
        judge: J = self._judges[kind]
        return judge
