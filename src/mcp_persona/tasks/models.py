"""The task file format.

One model carries what all four protocols need, so suites of any protocol load into
it without a rewrite:

* MCP-Persona: instruction, necessary / unnecessary context, the servers with the
  user context of each, category, the gold tool chain and checkpoints of four types.
* MCPAgentBench: the gold chain is a list of *steps*, each a list of calls the agent
  may issue in parallel (``[[a, b], [c]]``).
* LiveMCP-101: the same gold plan doubles as the execution plan; ``difficulty``
  holds its tier.
* LiveMCPBench: ``key_points`` for the key-point judge; ``input_files`` copied into the episode's
  working folder and ``file_checks`` on the files the agent leaves there.

Gold arguments may use a value produced earlier in the chain (an id the app
generated) with ``{"$ref": "S.C:dotted.path"}``: the result of call C of step S
(0-based), parsed as JSON, then the dotted path into it (``data.event.event_id``;
list indexes are numbers). The reference agent resolves these at replay time.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from mcp_persona.clock import TaskClock

_STRICT = ConfigDict(extra="forbid")


class ServerContext(BaseModel):
    """A server the task uses and the user context it runs on."""

    model_config = _STRICT
    server: str
    context_id: str


class GoldCall(BaseModel):
    model_config = _STRICT
    server: str
    tool: str
    arguments: dict[str, Any] = Field(default_factory=dict)

    @property
    def qualified(self) -> str:
        return f"{self.server}:{self.tool}"


class GoldStep(BaseModel):
    """Calls with no dependency between them: the agent may issue them in one turn."""

    model_config = _STRICT
    calls: list[GoldCall] = Field(min_length=1)


# -- checkpoints -----------------------------------------------------------------------------------
class _CheckpointBase(BaseModel):
    model_config = _STRICT
    summary: str = Field(min_length=1, description="what the checkpoint asks, in one sentence (for judges)")
    rules_cannot_check: str | None = Field(
        default=None, min_length=10,
        description="what this checkpoint asks that no rule can decide (a tone, a faithful summary): where the "
                    "rules would pass it, it is left undecided (score None) for a judge instead")


class SearchCheckpoint(_CheckpointBase):
    """A value the agent must find. Rule-based score: 1 if every GT value is in the final
    answer, 0.5 if they were only retrieved (in tool outputs) or only some are reported,
    0 otherwise."""

    type: Literal["generic_search", "personalized_search"]
    gt_value: list[str] = Field(min_length=1, description="all must appear (normalized)")
    server: str | None = None
    derived: dict[str, str] = Field(
        default_factory=dict,
        description="GT values the agent works out from others, each with its arithmetic ({\"58\": \"183.1-125.1\"}):"
                    " such a value is grounded when every number of its expression was shown by a tool or is stated"
                    " in the instruction, not when a tool prints the result (see mcp_persona.scoring.grounding)")
    alternatives: dict[str, list[str]] = Field(
        default_factory=dict,
        description="other values accepted in place of a GT value: every answer the data makes right (two flights"
                    " tied for cheapest) or the instruction's wording allows (a price read another way); an"
                    " alternative may be derived too")

    def forms(self, value: str) -> list[str]:
        """The GT value and the alternatives accepted in its place."""
        return [value, *self.alternatives.get(value, [])]

    @field_validator("gt_value", mode="before")
    @classmethod
    def _one_or_many(cls, value: Any) -> Any:
        return [value] if isinstance(value, str | int | float) else value

    @model_validator(mode="after")
    def _derivations(self) -> SearchCheckpoint:
        from mcp_persona.scoring.grounding import derivation_problem  # scoring imports this module

        unknown = sorted(set(self.alternatives) - set(self.gt_value))
        if unknown:
            raise ValueError(f"alternatives given for {unknown}, which are not GT values {self.gt_value}")
        accepted = {f for v in self.gt_value for f in self.forms(v)}
        for value, expression in self.derived.items():
            if value not in accepted:
                raise ValueError(f"derived value {value!r} is not one of the GT values {self.gt_value} "
                                 "(nor an alternative)")
            problem = derivation_problem(value, expression)
            if problem:
                raise ValueError(problem)
        return self


class OperateCheckpoint(_CheckpointBase):
    """A state change the agent must make, checked on the end state.

    * ``create``: an entity of ``entity`` type, absent before, whose fields match ``expect``
      (and whose parent matches ``parent_expect``, if given).
    * ``modify``: the entity at ``target`` has the ``expect`` field values at the end.
    * ``delete``: the entity at ``target`` is gone.
    """

    type: Literal["operate"] = "operate"
    server: str
    tool: str
    operate_type: Literal["create", "modify", "delete"]
    entity: str | None = None
    target: str | None = None
    expect: dict[str, Any] = Field(default_factory=dict)
    parent_expect: dict[str, Any] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _shape(self) -> OperateCheckpoint:
        if self.operate_type == "create" and not self.entity:
            raise ValueError("a create checkpoint needs 'entity' (the entity type created)")
        if self.operate_type == "create" and not self.expect:
            raise ValueError("a create checkpoint needs 'expect' (fields the new entity must have)")
        if self.operate_type in ("modify", "delete") and not self.target:
            raise ValueError(f"a {self.operate_type} checkpoint needs 'target' (the entity path)")
        if self.operate_type == "modify" and not self.expect:
            raise ValueError("a modify checkpoint needs 'expect' (field values after the change)")
        return self


class OtherCheckpoint(_CheckpointBase):
    """Anything else. Rule-based: the named tool was called without error (else 0)."""

    type: Literal["other"] = "other"
    server: str | None = None
    tool: str | None = None


class FileCheck(BaseModel):
    """A file the agent must leave in the episode's working folder (LiveMCPBench's office tasks).

    The file is read with the library of its format (openpyxl, python-docx, python-pptx; csv and
    text as text). ``contains``: values that must all appear in its text (read as answers are: numbers as
    numbers, markdown emphasis dropped); ``together``: groups of values that must each share one line, row or
    slide (the facts of one item, in whatever layout: ``["North", "342.2"]``); ``absent``: none of these may
    appear; ``cells``: spreadsheet cells (``Sheet1!B2`` or ``B2`` on the first sheet) and the value each must hold
    (a formula counts as what it computes).
    """

    model_config = _STRICT
    path: str = Field(min_length=1, description="relative to the working folder")
    summary: str = Field(min_length=1)
    contains: list[str] = Field(default_factory=list)
    together: list[list[str]] = Field(default_factory=list, description="values that must share one line / row / slide")
    absent: list[str] = Field(default_factory=list, description="values that must not appear (a sloppy filter)")
    cells: dict[str, Any] = Field(default_factory=dict)
    min_slides: int | None = Field(default=None, ge=1, description="pptx: at least this many slides")

    @field_validator("path")
    @classmethod
    def _relative(cls, value: str) -> str:
        if value.startswith("/") or ".." in value.split("/"):
            raise ValueError("a file check's path is relative to the working folder and stays inside it")
        return value


class StateCheck(BaseModel):
    """A record the agent must leave on a simulated library server (LiveMCPBench): one that ``tool``
    created on ``server`` and whose fields hold every ``contains`` value (normalized)."""

    model_config = _STRICT
    server: str
    tool: str
    summary: str = Field(min_length=1)
    contains: list[str] = Field(min_length=1)


Checkpoint = Annotated[
    SearchCheckpoint | OperateCheckpoint | OtherCheckpoint, Field(discriminator="type")
]


class MutationExemption(BaseModel):
    """A mutant of the gold chain the checkpoints may let pass, and why (see :mod:`mcp_persona.mutants`).

    The reason must be specific: what the user left free, so that any value is right."""

    model_config = _STRICT
    kind: Literal["drop", "free_text", "duplicate", "duplicate_nested", "retarget"]
    call: str = Field(pattern=r"^\d+\.\d+$", description="the gold call, 'STEP.CALL' (0-based)")
    argument: str | None = Field(default=None, description="dotted argument path, for free_text and retarget")
    reason: str = Field(min_length=25)

    @property
    def key(self) -> str:
        return f"{self.kind} {self.call}" + (f" {self.argument}" if self.argument else "")


class EquivalenceExemption(BaseModel):
    """An equivalent form of the answer or of the gold output files the checks may reject, and why (see
    :mod:`mcp_persona.equivalents`): the instruction asks for exactly the form the variant changes."""

    model_config = _STRICT
    kind: Literal["opening", "emphasis", "rounded", "reordered", "dates", "files", "free_text"]
    reason: str = Field(min_length=25)


class Task(BaseModel):
    model_config = _STRICT

    id: str = Field(pattern=r"^[A-Za-z0-9_.-]+$")
    suite: str
    category: Literal[
        "collaboration", "content", "social", "email", "lark_centric", "rednote_centric", "hodgepodge", "other",
        "office", "lifestyle", "leisure", "finance", "travel", "shopping",
        "travel_lifestyle", "leisure_entertainment", "finance_markets", "web_search_news", "knowledge_research",
        "software_development", "mathematics",
    ] = Field("other", description="MCP-Persona's task groups (four single-server, three cross-server); "
                                    "LiveMCPBench's six domains; LiveMCP-101's eight (office is shared)")
    variant: Literal["short", "long"] | None = Field(default=None, description="short or long instruction/chain")
    instruction: str = Field(min_length=1)
    necessary_context: dict[str, str] = Field(default_factory=dict)
    unnecessary_context: list[str] = Field(default_factory=list)
    servers: list[ServerContext] = Field(min_length=1)
    clock: TaskClock
    gold: list[GoldStep] = Field(default_factory=list)
    checkpoints: list[Checkpoint] = Field(
        default_factory=list, description="what is scored under MCP-Persona (that protocol requires one or more)")
    reference_answer: str = Field(default="", description="the final answer a perfect agent gives")
    difficulty: Literal["easy", "medium", "hard"] | None = None
    key_points: list[str] = Field(default_factory=list)
    input_files: list[str] = Field(default_factory=list,
                                   description="files of the suite's files/ folder copied into the working folder")
    file_checks: list[FileCheck] = Field(default_factory=list)
    state_checks: list[StateCheck] = Field(default_factory=list)
    implicit_context: list[str] = Field(
        default_factory=list, description="facts the agent must find itself (for analysis; never shown)"
    )
    type: Literal["single", "dual_serial", "dual_parallel", "multi"] | None = Field(
        default=None, description="MCPAgentBench: the shape of the gold chain")
    domain: Literal["daily", "professional"] | None = Field(default=None, description="MCPAgentBench: the domain")
    seed: int = 0
    mutation_exemptions: list[MutationExemption] = Field(default_factory=list)
    equivalence_exemptions: list[EquivalenceExemption] = Field(default_factory=list)

    @model_validator(mode="after")
    def _consistent(self) -> Task:
        names = [s.server for s in self.servers]
        if len(set(names)) != len(names):
            raise ValueError(f"servers lists a server twice: {names}")
        for si, step in enumerate(self.gold):
            for ci, call in enumerate(step.calls):
                if call.server not in names:
                    raise ValueError(f"gold step {si} call {ci} uses server {call.server!r} not in servers {names}")
        for i, cp in enumerate(self.checkpoints):
            server = getattr(cp, "server", None)
            if server is not None and server not in names:
                raise ValueError(f"checkpoint {i} names server {server!r} not in servers {names}")
        return self

    @property
    def server_names(self) -> list[str]:
        return [s.server for s in self.servers]

    def context_of(self, server: str) -> str | None:
        return next((s.context_id for s in self.servers if s.server == server), None)

    @property
    def gold_calls(self) -> list[GoldCall]:
        return [c for step in self.gold for c in step.calls]
