"""Mutation testing of a task: do its checkpoints catch an agent that does the task badly?

From the gold chain we derive five kinds of mutant and replay each on a fresh environment, ending with the
reference answer (the agent claims success):

* ``drop`` — one write call left out (and the calls that use its result);
* ``free_text`` — one free-text argument of a write (a body, a title, a description) replaced by ``"ok"``;
* ``duplicate`` — one create-type write issued twice, into a container the start state has;
* ``duplicate_nested`` — one write issued twice that lands inside a container the chain created (the first
  message to a user, which opens the direct chat; a block added to a new page): the second copy lands in the
  new container, so only comparing what the created entity holds can tell it apart;
* ``retarget`` — one write aimed at another existing entity of the same type (another chat, event, note).

A mutant is *killed* when it loses the strict pass and, for drop / free_text / retarget, also scores
Acc < 1. A mutant that ends in the very state the gold chain ends in is *equivalent* (a second ``add label``
that changes nothing) and is not counted. A survivor fails ``validate`` unless the task carries a written
exemption for it (``mutation_exemptions``: kind, call, argument, and why the checkpoints may not catch it).

Which calls are writes, and which create, is observed on the gold replay, not guessed from tool names.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, Literal

from mcp_persona.apps import get_app
from mcp_persona.context_tree import ContextTree, canonical_hash
from mcp_persona.environment import Environment
from mcp_persona.scoring.normalize import looks_like_id, normalize
from mcp_persona.scoring.strict import change_signatures, holds_contents, strict_pass
from mcp_persona.tasks import CheckedSpec, GoldCall, Task
from mcp_persona.tasks.models import MutationExemption
from mcp_persona.trajectory import ToolCallEvent, Trajectory

MutantKind = Literal["drop", "free_text", "duplicate", "duplicate_nested", "retarget"]
KINDS: tuple[MutantKind, ...] = ("drop", "free_text", "duplicate", "duplicate_nested", "retarget")
DUPLICATES: tuple[MutantKind, ...] = ("duplicate", "duplicate_nested")  # killed by the strict pass alone
NEUTRAL_TEXT = "ok"
Label = tuple[int, int]  # (step, call) of the gold chain


@dataclass(frozen=True)
class PlannedCall:
    label: Label  # the gold call it stands for; $refs resolve against these labels
    round: int
    call: GoldCall


@dataclass(frozen=True)
class Mutant:
    kind: MutantKind
    call: str  # "S.C" of the gold call mutated
    argument: str | None  # dotted argument path, for free_text and retarget
    detail: str
    calls: tuple[PlannedCall, ...]

    @property
    def key(self) -> str:
        return f"{self.kind} {self.call}" + (f" {self.argument}" if self.argument else "")


@dataclass
class MutantResult:
    mutant: Mutant
    acc: float
    strict: bool
    equivalent: bool
    exempt: bool = False

    @property
    def killed(self) -> bool:
        return not self.strict and (self.mutant.kind in DUPLICATES or self.acc < 1.0)


@dataclass
class TaskMutation:
    task_id: str
    category: str
    results: list[MutantResult] = field(default_factory=list)

    @property
    def counted(self) -> list[MutantResult]:
        return [r for r in self.results if not r.equivalent]

    @property
    def survivors(self) -> list[MutantResult]:
        return [r for r in self.counted if not r.killed]


# -- observing the gold chain ---------------------------------------------------------------------
@dataclass(frozen=True)
class GoldObservation:
    writes: set[Label]  # calls that changed the state
    creates: set[Label]  # calls whose change created an entity
    nested: set[Label]  # creates that land inside a container the chain created (or create one holding it)
    final_hash: str
    final_signatures: Counter[Any]


class ReplayAgent:
    """Plays a planned list of calls (a gold chain or a mutant of it), then gives the reference answer (or
    ``answer``: an equivalent form of it).

    A call whose ``$ref`` points at a call that was dropped or failed is skipped, like an agent that never
    got the id it needed."""

    name = "mutant"
    model = None

    def __init__(self, calls: tuple[PlannedCall, ...], *, observe: bool = False, paste_outputs: bool = False,
                 around: tuple[str, str] = ("", ""), answer: str | None = None) -> None:
        self.calls = calls
        self.observe = observe
        self.paste_outputs = paste_outputs  # answer with every tool output instead of the reference answer
        self.around = around  # what the pasted outputs are wrapped in: a sentence before, one after
        self.answer = answer  # the final answer given (None: the task's reference answer)
        self.writes: set[Label] = set()
        self.creates: set[Label] = set()
        self.nested: set[Label] = set()
        self.final_hash = ""

    async def run(self, task: Task, env: Environment, trajectory: Trajectory) -> None:
        from mcp_persona.agents.reference import GoldReplayError, resolve_refs

        results: dict[Label, ToolCallEvent] = {}
        for i, planned in enumerate(self.calls):
            try:
                args = env.gold_arguments(resolve_refs(planned.call.arguments, results))
            except GoldReplayError:
                continue
            server = planned.call.server
            before = env.apps[server].tree.snapshot() if self.observe else None
            event = await env.call(server, planned.call.tool, args, round=planned.round, call_id=f"m_{i}")
            trajectory.events.append(event)
            results.setdefault(planned.label, event)
            if before is not None and not event.is_error:
                changes = change_signatures({server: before}, {server: env.apps[server].tree.data})
                if changes:
                    self.writes.add(planned.label)
                if any(sig[1] == "create" for sig in changes):
                    self.creates.add(planned.label)
                if any(holds_contents(sig) or (sig[1] == "create" and sig[3] and not _in_state(
                        server, env.initial.get(server, {}), sig[3])) for sig in changes):
                    self.nested.add(planned.label)
        self.final_hash = canonical_hash(env.final_states())
        pasted = "\n".join(e.result for e in trajectory.tool_calls)
        trajectory.final_answer = (self.around[0] + pasted + self.around[1] if self.paste_outputs
                                   else self.answer if self.answer is not None else task.reference_answer)
        trajectory.stop_reason = "replayed"


# A short sentence around pasted outputs: what a scripted agent that pastes adds to pass as answering.
PASTE_SENTENCES = ("Here is what I found:\n", "\nThat is everything you asked for.")


def mutation_exemptions(task: Task) -> list[MutationExemption]:
    """The mutants the task declares its checks may let pass (a spec without checkpoints declares none)."""
    return task.spec.mutation_exemptions if isinstance(task.spec, CheckedSpec) else []


def gold_plan(task: Task) -> tuple[PlannedCall, ...]:
    return tuple(PlannedCall((si, ci), si, call) for si, step in enumerate(task.gold)
                 for ci, call in enumerate(step.calls))


# -- deriving mutants -----------------------------------------------------------------------------
def derive_mutants(task: Task, obs: GoldObservation) -> Iterator[Mutant]:
    plan = gold_plan(task)
    starts = {s.server: get_app(s.server).load_context(s.context_id) for s in task.servers}
    # each start state as normalized text once: free text is what no start state holds verbatim
    start_texts = {name: normalize(json.dumps(state, ensure_ascii=False)) for name, state in starts.items()}
    for idx, planned in enumerate(plan):
        if planned.label not in obs.writes:
            continue
        label = f"{planned.label[0]}.{planned.label[1]}"
        call = planned.call
        yield Mutant("drop", label, None, f"{call.qualified} left out", plan[:idx] + plan[idx + 1:])
        if planned.label in obs.creates:
            kind: MutantKind = "duplicate_nested" if planned.label in obs.nested else "duplicate"
            yield Mutant(kind, label, None, f"{call.qualified} issued twice",
                         (*plan[:idx + 1], planned, *plan[idx + 1:]))
        start_text = start_texts.get(call.server, "")
        for path, value in string_leaves(call.arguments):
            new_args = replace_argument(call.arguments, path, NEUTRAL_TEXT) if is_free_text(value, start_text) else None
            if new_args is not None:
                yield Mutant("free_text", label, path, f"{path} = {NEUTRAL_TEXT!r}",
                             _swap(plan, idx, call.model_copy(update={"arguments": new_args})))
            other = _other_entity(call.server, starts.get(call.server, {}), value)
            if other is not None:
                retargeted = call.model_copy(update={"arguments": replace_argument(call.arguments, path, other)})
                yield Mutant("retarget", label, path, f"{path}: {value!r} -> {other!r}", _swap(plan, idx, retargeted))


def _swap(plan: tuple[PlannedCall, ...], idx: int, call: GoldCall) -> tuple[PlannedCall, ...]:
    return (*plan[:idx], PlannedCall(plan[idx].label, plan[idx].round, call), *plan[idx + 1:])


def string_leaves(value: Any, prefix: str = "") -> Iterator[tuple[str, str]]:
    """(dotted path, text) of every string in the arguments, JSON-string contents included (``content>text``);
    ``$ref`` values are skipped: they are ids produced by the chain, not chosen."""
    if isinstance(value, dict):
        if set(value) == {"$ref"}:
            return
        for k, v in value.items():
            yield from string_leaves(v, f"{prefix}.{k}" if prefix else k)
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from string_leaves(v, f"{prefix}.{i}")
    elif isinstance(value, str):
        inner = _json_container(value)
        if inner is not None:
            for path, text in string_leaves(inner):
                yield f"{prefix}>{path}", text
        else:
            yield prefix, value


def _json_container(text: str) -> Any:
    if not text.lstrip().startswith(("{", "[")):
        return None
    try:
        obj = json.loads(text)
    except json.JSONDecodeError:
        return None
    return obj if isinstance(obj, dict | list) else None


def replace_argument(args: dict[str, Any], path: str, new: str) -> dict[str, Any]:
    """A copy of ``args`` with the string at ``path`` replaced (``a>b`` reaches into a JSON string)."""
    outer, _, inner = path.partition(">")
    copy = json.loads(json.dumps(args))
    keys = outer.split(".")
    node: Any = copy
    for k in keys[:-1]:
        node = node[int(k)] if isinstance(node, list) else node[k]
    last: Any = int(keys[-1]) if isinstance(node, list) else keys[-1]
    if inner:
        node[last] = json.dumps(_replace_in(json.loads(node[last]), inner.split("."), new), ensure_ascii=False)
    else:
        node[last] = new
    return copy


def _replace_in(obj: Any, keys: list[str], new: str) -> Any:
    node = obj
    for k in keys[:-1]:
        node = node[int(k)] if isinstance(node, list) else node[k]
    node[int(keys[-1]) if isinstance(node, list) else keys[-1]] = new
    return obj


def is_free_text(value: str, start_text: str) -> bool:
    """Words the agent writes (a body, a title): not an id, a date, a number or a name that already exists."""
    text = value.strip()
    if len(text) < 3 or not any(ch.isalpha() for ch in text) or looks_like_id(text):
        return False
    if normalize(text) == NEUTRAL_TEXT:
        return False
    quoted = normalize(json.dumps(text, ensure_ascii=False))
    return quoted not in start_text  # an existing name (a channel, a tag) is a lookup, not free text


def _in_state(server: str, state: dict[str, Any], path: str) -> bool:
    return ContextTree(get_app(server).hierarchy, state).try_get(path) is not None


def _other_entity(server: str, start: dict[str, Any], value: str) -> str | None:
    """Another id of the same entity type as ``value`` in the start state, if ``value`` names an entity."""
    if not value:
        return None
    h = get_app(server).hierarchy
    by_type: dict[str, list[str]] = {}
    found: str | None = None
    for etype, _path, ent in h.iter_entities(start):
        eid = ent.get(h.entities[etype].id_field) if isinstance(ent, dict) else None
        if not isinstance(eid, str):
            continue
        by_type.setdefault(etype, []).append(eid)
        if eid == value and found is None:
            found = etype
    if found is None:
        return None
    others = sorted(set(by_type[found]) - {value})
    return others[0] if others else None


# -- running ----------------------------------------------------------------------------------------
async def observe_gold(task: Task) -> GoldObservation:
    agent = ReplayAgent(gold_plan(task), observe=True)
    trajectory = Trajectory(task_id=task.id, agent=agent.name)
    async with Environment(task) as env:
        await agent.run(task, env, trajectory)
        return GoldObservation(agent.writes, agent.creates, agent.nested, agent.final_hash,
                               change_signatures(env.initial, env.final_states()))


async def mutation_test(task: Task) -> TaskMutation:
    from mcp_persona.runner import run_episode

    obs = await observe_gold(task)
    out = TaskMutation(task.id, task.spec.category)
    exemptions = {e.key for e in mutation_exemptions(task)}
    for mutant in derive_mutants(task, obs):
        agent = ReplayAgent(mutant.calls)
        record = await run_episode(task, agent)
        if record.score is None:  # the mutant broke the episode: nothing to pass
            out.results.append(MutantResult(mutant, 0.0, False, False))
            continue
        detail = record.score.detail
        equivalent = agent.final_hash == obs.final_hash or (
            mutant.kind in DUPLICATES and not detail["end_state"]["extra"])
        strict = strict_pass(detail, undecided_passes=True)  # what the rules can tell apart
        out.results.append(MutantResult(mutant, detail["acc"], strict, equivalent,
                                        exempt=mutant.key in exemptions))
    return out


__all__ = ["KINDS", "Mutant", "MutantResult", "TaskMutation", "derive_mutants", "mutation_test", "observe_gold"]
