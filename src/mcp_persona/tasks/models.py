"""The task file format.

The shared :class:`Task` holds what every protocol's task has: id, suite, instruction, the servers with the
user context each runs on, the task's clock, the gold chain and the reference answer. What a protocol adds
(MCP-Persona's checkpoints and personal context, LiveMCP-101's tier, MCPAgentBench's chain type and domain,
LiveMCPBench's key points and file checks) is the task's ``spec``, a model the protocol's package defines
(a subclass of :class:`TaskSpec`) and validates when the suite loads.

The gold chain is a list of *steps*, each a list of calls the agent may issue in parallel (``[[a, b], [c]]``).
Gold arguments may use a value produced earlier in the chain (an id the app
generated) with ``{"$ref": "S.C:dotted.path"}``: the result of call C of step S
(0-based), parsed as JSON, then the dotted path into it (``data.event.event_id``;
list indexes are numbers). The reference agent resolves these at replay time.
"""

from __future__ import annotations

from typing import Annotated, Any, Generic, Literal, TypeVar

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
ASKS = ("the words of the instruction that ask for what this check checks (a phrase of it, as written): a check "
        "traces to its request, and a request no check names is seen")


class _CheckpointBase(BaseModel):
    model_config = _STRICT
    summary: str = Field(min_length=1, description="what the checkpoint asks, in one sentence (for judges)")
    asks: str | None = Field(default=None, min_length=2, description=ASKS)
    rules_cannot_check: str | None = Field(
        default=None, min_length=10,
        description="what this checkpoint asks that no rule can decide (a tone, a faithful summary): where the "
                    "rules would pass it, it is left undecided (score None) for a judge instead")


class Claim(BaseModel):
    """The choice a comparison asks for: the answer must put ``winner`` above (``up``: the higher, the bigger)
    or below (not ``up``: the cheapest, the least) each of ``rivals`` (:mod:`mcp_persona.scoring.claims`)."""

    model_config = _STRICT
    winner: str = Field(min_length=1)
    rivals: list[str] = Field(min_length=1)
    up: bool = True
    aliases: dict[str, list[str]] = Field(
        default_factory=dict, description="other names an answer may call an entity by (AAPL: Apple; a listing: "
                                          "its city)")
    measure: list[str] = Field(
        default_factory=list, description="words naming the compared quantity (profit, subscriber): with "
                                          "other_measures, a clause comparing another quantity is no claim")
    other_measures: list[str] = Field(
        default_factory=list, description="words naming quantities an answer may compare the same entities by in "
                                          "passing (budget, view): a clause naming one and not the measure is "
                                          "no claim about the measure")
    by_lead: bool = Field(
        default=True, description="whether an answer that makes no readable comparison is read by the entity it "
                                  "names first (False where that entity leads any answer, as today's amount does)")

    def reading(self) -> dict[str, Any]:
        """The keyword arguments of :func:`mcp_persona.scoring.claims.claims_winner` this claim sets."""
        return {"up": self.up, "aliases": self.aliases, "measure": self.measure,
                "other_measures": self.other_measures, "by_lead": self.by_lead}


class About(BaseModel):
    """What a checkpoint's values are about, where an answer states several of a kind (each story's score, each
    city's air quality): the values must be stated beside one of ``names``
    (:func:`mcp_persona.scoring.checkpoints.stated_about`)."""

    model_config = _STRICT
    names: list[str] = Field(min_length=1, description="the names of what the values are about")
    others: list[str] = Field(default_factory=list, description="the names of its siblings (the other stories)")


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
    claim: Claim | None = Field(
        default=None, description="for a comparison or a choice: the entity the answer must put on top (or at the "
                                  "bottom); naming every entity is not enough, and a swapped claim fails")
    beside: dict[str, list[str | list[str]]] = Field(
        default_factory=dict,
        description="what the answer must say next to a GT value (its state, its owner, its rating): each item a "
                    "text, or a list of texts any of which will do; the value counts as reported only where one of"
                    " its mentions has every item in its stretch, the part of its sentence (line, or part after a "
                    "semicolon) that reaches no other entity of the checkpoint (another GT value with ``beside``,"
                    " or a name of ``apart``): 'A rated 5, B rated 4' does not rate A 4 (see "
                    "mcp_persona.scoring.claims.said_beside)")
    apart: list[str] = Field(
        default_factory=list,
        description="other names a stretch of a ``beside`` value never reaches past (the other attendees, when "
                    "only one is asked about): 'A accepted, B has not' says nothing of A not having answered")
    about: About | None = Field(
        default=None, description="the GT values are stated beside this name, not anywhere in the answer: a "
                                  "score beside its story's title, an AQI beside its city (``beside`` instead "
                                  "binds what is said to each value)")
    whole_word: bool = Field(
        default=False, description="each GT value stands as a word of its own in the answer (MIT, not the 'mit' "
                                   "of 'commits')")
    reported: bool = Field(
        default=False, description="the instruction asks the agent to tell these values: they count only in the "
                                   "final answer, never because a later call used them (a total passed to a "
                                   "conversion, a figure written to a file)")

    wording: Literal["exact", "free"] = Field(
        "exact", description="'free': a form without digits is also said in other words, by its content words in "
                             "any inflection and order within a clause and not negated ('a warning out for heavy "
                             "rain' says 'Heavy Rain Warning'; see mcp_persona.scoring.meaning.says)")

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
        unknown = sorted(set(self.beside) - set(self.gt_value))
        if unknown:
            raise ValueError(f"beside given for {unknown}, which are not GT values {self.gt_value}")
        if self.apart and not self.beside:
            raise ValueError("apart names what bounds a beside value's stretch: give beside too")
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
    """Anything else. Rule-based: the named tool was called without error (else 0); with ``expect_calls``, on
    each target they name (every one matched by some successful call of the tool: "mark the notices channel as
    read" is not met by marking another chat)."""

    type: Literal["other"] = "other"
    server: str | None = None
    tool: str | None = None
    also: list[str] = Field(
        default_factory=list, description="other tools of the server that do the same job (checking free time by "
                                          "listing the day's events instead of asking free/busy): a call of any counts")
    expect_calls: list[dict[str, Any]] = Field(
        default_factory=list, description="argument values (dotted keys) each of which some successful call of "
                                          "the tool must have, as operate expectations match fields")


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
    kind: Literal["opening", "emphasis", "rounded", "reordered", "dates", "files", "free_text", "facts",
                  "value_off", "swapped_claim"]
    reason: str = Field(min_length=25)


class TaskSpec(BaseModel):
    """What a protocol adds to the shared task: the task file's ``spec``, validated by the protocol's own
    subclass of this model (its ``spec_model``) when the suite loads."""

    model_config = _STRICT
    category: str = Field("other", description="the task's group, kept on each episode's record")

    def named_servers(self) -> list[tuple[str, str]]:
        """(where, server) for every server the spec names: each must be one of the task's servers."""
        return []

    def given_facts(self) -> dict[str, str]:
        """Facts the user gives the agent that the task needs (checked against the answer key, shown to judges)."""
        return {}

    def listing(self) -> dict[str, Any]:
        """The spec in a list of tasks: each plain field's value, the length of each list or mapping."""
        values = {name: getattr(self, name) for name in type(self).model_fields}
        return {k: len(v) if isinstance(v, list | dict) else v for k, v in values.items()}


class CheckedSpec(TaskSpec):
    """A spec scored by checkpoints (:mod:`mcp_persona.scoring.checkpoints`), with the gold chain's mutants and
    the answer's equivalent forms tried by ``validate`` (and the exemptions a task declares for them)."""

    checkpoints: list[Checkpoint] = Field(default_factory=list)
    key_points: list[str] = Field(default_factory=list, description="what a complete answer covers (for judges)")
    mutation_exemptions: list[MutationExemption] = Field(default_factory=list)
    equivalence_exemptions: list[EquivalenceExemption] = Field(default_factory=list)

    def named_servers(self) -> list[tuple[str, str]]:
        return [(f"checkpoint {i}", cp.server) for i, cp in enumerate(self.checkpoints) if cp.server is not None]


SpecT = TypeVar("SpecT", bound=TaskSpec)


class Task(BaseModel, Generic[SpecT]):
    """What every protocol's task has; what its protocol adds is in ``spec`` (a ``Task[PersonaSpec]`` and so
    on: the protocol's ``task_model``)."""

    model_config = _STRICT

    id: str = Field(pattern=r"^[A-Za-z0-9_.-]+$")
    suite: str
    instruction: str = Field(min_length=1)
    servers: list[ServerContext] = Field(min_length=1)
    clock: TaskClock
    gold: list[GoldStep] = Field(default_factory=list)
    reference_answer: str = Field(default="", description="the final answer a perfect agent gives")
    seed: int = 0
    spec: SpecT

    @model_validator(mode="after")
    def _consistent(self) -> Task[SpecT]:
        names = [s.server for s in self.servers]
        if len(set(names)) != len(names):
            raise ValueError(f"servers lists a server twice: {names}")
        for si, step in enumerate(self.gold):
            for ci, call in enumerate(step.calls):
                if call.server not in names:
                    raise ValueError(f"gold step {si} call {ci} uses server {call.server!r} not in servers {names}")
        for where, server in self.spec.named_servers():
            if server not in names:
                raise ValueError(f"{where} names server {server!r} not in servers {names}")
        return self

    @property
    def server_names(self) -> list[str]:
        return [s.server for s in self.servers]

    def context_of(self, server: str) -> str | None:
        return next((s.context_id for s in self.servers if s.server == server), None)

    @property
    def gold_calls(self) -> list[GoldCall]:
        return [c for step in self.gold for c in step.calls]


def checkpoints_of(task: Task[Any]) -> list[Checkpoint]:
    """The task's checkpoints (none for a protocol that scores otherwise)."""
    return task.spec.checkpoints if isinstance(task.spec, CheckedSpec) else []
