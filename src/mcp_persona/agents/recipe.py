"""How to build a run's agent, as plain data: so that a worker process on another machine (the Ray executor)
builds the very agent the command line built here, from the same recipe."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Literal

from mcp_persona.agents.base import Agent

AgentKindName = Literal["reference", "noop", "model", "copilot", "external"]


@dataclass(frozen=True)
class AgentRecipe:
    kind: AgentKindName
    model: str | None = None  # a model spec (``openai:NAME``, ``anthropic:NAME``, ``local``)
    base_url: str | None = None
    api_key_env: str | None = None
    api_limits: str | None = None
    settings: dict[str, Any] = field(default_factory=dict)  # ModelSettings fields that were set
    max_rounds: int = 20
    skills: str = "none"
    one_call_per_turn: bool = False
    max_requests: int = 8  # requests in flight to the model's endpoint
    request_timeout: float = 180.0
    max_attempts: int = 5
    price: dict[str, Any] | None = None  # the run's own prices for the model (PriceOverride fields)
    embeddings: str = ""  # the copilot's retrieval: {"base_url", "model"} of an embeddings endpoint as JSON; "" BM25
    agent_cmd: str = ""  # the external agent's command line
    agent_timeout: float = 600.0  # seconds the external agent's command may take per episode

    def build(self) -> Agent:
        """The agent; ValueError or ModelError when the recipe cannot make one (a bad model spec, a key missing)."""
        from mcp_persona.agents import CopilotAgent, ModelAgent, NoopAgent, ReferenceAgent
        from mcp_persona.llm import ModelSettings, PriceOverride, RetryPolicy, make_client

        if self.kind == "reference":
            return ReferenceAgent(one_call_per_turn=self.one_call_per_turn)
        if self.kind == "noop":
            return NoopAgent()
        if self.kind == "external":
            from mcp_persona.agents.external import ExternalAgent

            return ExternalAgent(self.agent_cmd, timeout_s=self.agent_timeout, max_rounds=self.max_rounds)
        client = make_client(self.model or "", base_url=self.base_url, api_key_env=self.api_key_env,
                             retry=RetryPolicy(max_attempts=self.max_attempts, timeout_s=self.request_timeout),
                             max_concurrency=self.max_requests, settings=ModelSettings(**self.settings),
                             api_limits=self.api_limits, price=PriceOverride(**self.price) if self.price else None)
        if self.kind == "copilot":
            return CopilotAgent(client, max_rounds=self.max_rounds, embeddings_json=self.embeddings)
        return ModelAgent(client, max_rounds=self.max_rounds)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)
