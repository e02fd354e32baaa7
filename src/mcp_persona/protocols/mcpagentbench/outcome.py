"""The outcome rule: an agent's call does a gold call's job when it gets what the gold call gets.

The argument rule (:func:`.scoring.score_calls`, the paper's metric) asks for the gold arguments after
normalisation, so ``{"location": "City of Austin"}`` is not ``{"location": "Austin"}`` even where the server
answers both with Austin's listings. The outcome rule matches an agent's call to a gold call when

* it is the same tool, the argument rule matches the two calls, and the agent's call did not fail where the gold
  call, on the same state, succeeds (``./guitar_loop.wav`` for ``guitar_loop.wav`` is a match because the servers
  resolve a path as a disk does; a call the server refused is none, whatever its arguments); or
* on the state the agent's call saw, the agent's call and the gold call, each run there, end alike: neither
  fails, they change the state in the same way (the entity-level diff of :mod:`mcp_persona.context_tree.diff`,
  normalised), and, when neither changes anything (a read), their replies carry the same facts (below); or
* (reads only) one agent call stands for several gold calls of its tool: its reply carries exactly the facts
  of theirs together (``get_time(["Asia/Tokyo", "Europe/London"])`` for one call per zone, where the tool takes
  a list); or several agent calls of the gold call's tool stand for one: their replies together carry exactly
  its facts (one call per zone for one call with both); or
* (writes of a tool with a set parameter, ``uniqueItems``: the domains to monitor) several agent calls of the
  gold call's tool stand for one: the records they create together are the record it creates (merged as replies
  are, the ids the server gives them aside): one ``add_site`` per domain for one with both.

Two replies carry the same facts when, after the argument rule's normalisation (:func:`.scoring.normalize_value`
over the parsed JSON: case, spacing, number forms), they have the same structure and values, except that a
value may differ where each reply echoes its own call's value of one argument and the two values name the
same thing as the servers compare names (:func:`mcp_persona.apps._normalize.same_name`): a knowledge engine
that answers ``"assumptions": {"location": "City of Boston"}`` for ``location="City of Boston"`` and ``"Boston"`` for
the gold ``location="Boston"`` gives the same facts, while ``location="Denver"`` (another place, even with
the same answer) or ``"Asia/Seoul"`` for ``"Asia/Tokyo"`` (another zone, even at the same offset) does not.
Where one call stands for several or several for one, their replies are merged (objects key by key, lists
joined, any other value the same in all) and lists compared as multisets: every fact once, in any order; a
count that only says how long a list beside it is (``"count": 1`` next to one result) is left out there, since
the items themselves are compared (a split lookup's replies count 1 and 0, the one call's 1).

"The state the agent's call saw" is rebuilt, not guessed: the agent's calls are replayed in their order on a
fresh environment over the same pool and seed (so it reaches the states the episode went through), the
called server's state saved before each (:meth:`AppEnv.save_state`); a gold call is tried on that saved
state and the state put back. A call whose replayed reply is not the recorded one is listed
(``outcome_replay_diverged``; the simulated servers are deterministic, so it should stay empty).

Gold calls are taken in order, each matched to the first unused agent call that the argument rule matches,
else the first that ends alike, else one agent call standing for it and the gold calls it already stands
for, else several; a ``$ref`` argument takes its value from the agent's own result of the call matched to
the gold call it names (for a call that stands for several or several for one, the gold call's own result on
that state: the facts the agent holds), as under the argument rule. Finished and efficiently finished are
then defined as under the argument rule (every call matched, nothing extra; the gold steps' turns). A call
that stands for several gold calls but returns more than they do is extra; a gold call split over several
calls is finished but not efficiently.

Limits, by design: a new record's id, which a tool derives from the record, shows what the agent stored, so a
record stored in other words the servers do not read alike ends differently (an advice tool's plan id is
derived from the advice it gives, not from the request's words); a write is judged by what it leaves in the
state, not by its reply, and stands for one gold call only.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from mcp_persona.agents.reference import GoldReplayError, resolve_refs
from mcp_persona.apps._normalize import same_name
from mcp_persona.context_tree import leaves
from mcp_persona.context_tree.diff import diff_states
from mcp_persona.protocols.mcpagentbench.library import library
from mcp_persona.protocols.mcpagentbench.scoring import call_key, normalize_value, same_turns
from mcp_persona.tasks import GoldCall, Task
from mcp_persona.trajectory import ToolCallEvent

if TYPE_CHECKING:
    from mcp_persona.environment import Environment
    from mcp_persona.protocols.base import Protocol

# how a gold call was matched
ARGUMENTS, REPLY, STATE = "arguments", "reply", "state change"
ECHOED = "reply, echoed arguments aside"  # the same facts, an argument's echo in the agent's own words
COVERED = "reply, one call for several"  # one agent call whose reply carries this and other gold calls' facts
SPLIT = "reply, several calls for one"  # agent calls whose replies together carry this gold call's facts
SPLIT_WRITES = "state change, several calls for one"  # agent writes whose records together are this call's record

Echoes = Mapping[str, tuple[Any, ...]]  # a call's arguments: each key's normalised scalar values


def echoes_of(arguments: dict[str, Any] | None) -> dict[str, tuple[Any, ...]]:
    """What a reply may echo of a call's arguments: each argument's scalar values, normalised as replies are."""
    return {k: tuple(leaves(v)) for k, v in normalize_value(arguments or {}).items()}


def joined(*echoes: Echoes) -> dict[str, tuple[Any, ...]]:
    out: dict[str, tuple[Any, ...]] = {}
    for e in echoes:
        for k, values in e.items():
            out[k] = out.get(k, ()) + values
    return out


def _assign(wanted: Sequence[Any], have: Sequence[Any], eq: Callable[[Any, Any], bool]) -> bool:
    """Each of ``wanted`` paired with a distinct one of ``have`` it is ``eq`` to (a bipartite matching)."""
    edges = [[j for j, h in enumerate(have) if eq(h, w)] for w in wanted]
    owner: dict[int, int] = {}

    def place(i: int, seen: set[int]) -> bool:
        for j in edges[i]:
            if j not in seen:
                seen.add(j)
                if j not in owner or place(owner[j], seen):
                    owner[j] = i
                    return True
        return False

    return all(place(i, set()) for i in range(len(wanted)))


@dataclass(frozen=True)
class Facts:
    """Compares two normalised replies, ``left`` of a call with arguments ``left_echoes`` and ``right`` of one
    with ``right_echoes``, fact by fact (see the module doc)."""

    left_echoes: Echoes
    right_echoes: Echoes

    def echoed(self, a: Any, b: Any) -> bool:
        """``a`` and ``b`` are each call's own value of one argument, and name the same thing."""
        if not (isinstance(a, str) and isinstance(b, str)):
            return False
        return any(a in values and b in self.right_echoes.get(k, ()) for k, values in self.left_echoes.items()) \
            and same_name(a, b)

    def same(self, left: Any, right: Any, *, ordered: bool = True, within: bool = False) -> bool:
        """``left`` and ``right`` carry the same facts; ``ordered=False``: lists as multisets (a merged reply's
        are joined in no particular order); ``within``: ``right``'s facts are all in ``left`` (some lists of
        ``left`` may hold more)."""
        if isinstance(left, dict) and isinstance(right, dict):
            return left.keys() == right.keys() and all(self.same(left[k], right[k], ordered=ordered, within=within)
                                                       for k in left)
        if isinstance(left, list) and isinstance(right, list):
            if ordered:
                return len(left) == len(right) and all(self.same(a, b) for a, b in zip(left, right, strict=True))
            if len(right) > len(left) or (not within and len(right) < len(left)):
                return False
            return _assign(right, left, self.same)
        return left == right or self.echoed(left, right)


_UNMERGEABLE = object()


def facts_only(reply: Any) -> Any:
    """A reply without the counts that only say how long a list beside them is (``{"count": 2, "results": [a,
    b]}`` is ``{"results": [a, b]}``): what a merge of several replies compares, the items themselves."""
    if isinstance(reply, list):
        return [facts_only(r) for r in reply]
    if not isinstance(reply, dict):
        return reply
    lengths = {len(v) for v in reply.values() if isinstance(v, list)}
    return {k: facts_only(v) for k, v in reply.items()
            if not (isinstance(v, int) and not isinstance(v, bool) and v in lengths)}


def merged(replies: Sequence[Any]) -> Any:
    """Several normalised replies as one: objects of the same keys merged key by key, lists joined, any other
    value kept when it is the same in all (else ``_UNMERGEABLE``)."""
    first = replies[0]
    if all(isinstance(r, dict) for r in replies):
        if any(r.keys() != first.keys() for r in replies):
            return _UNMERGEABLE
        out = {}
        for k in first:
            out[k] = merged([r[k] for r in replies])
            if out[k] is _UNMERGEABLE:
                return _UNMERGEABLE
        return out
    if all(isinstance(r, list) for r in replies):
        return [x for r in replies for x in r]
    return first if all(r == first for r in replies) else _UNMERGEABLE


@dataclass(frozen=True)
class Ending:
    """How a call ended on one state: failed or not, its normalised reply, its normalised state diff, and what
    of its arguments its reply may echo."""

    failed: bool
    reply: Any
    changes: list[Any]
    echoes: Echoes
    created: tuple[tuple[str, Any], ...] = ()  # (entity type, record without its id) of each create, normalised

    @property
    def creates_only(self) -> bool:
        """It succeeded and only created records."""
        return not self.failed and bool(self.changes) and len(self.created) == len(self.changes)

    @property
    def read(self) -> bool:
        """It succeeded and changed nothing."""
        return not self.failed and not self.changes

    def same(self, other: Ending) -> str | None:
        """REPLY, ECHOED or STATE when ``other`` ends as this one does, None otherwise."""
        if self.failed or other.failed or self.changes != other.changes:
            return None
        if self.changes:
            return STATE
        if self.reply == other.reply:
            return REPLY
        return ECHOED if Facts(other.echoes, self.echoes).same(other.reply, self.reply) else None


@dataclass(frozen=True)
class Replayed:
    """An agent's call replayed: its ending and its server's state just before it."""

    server: str
    ending: Ending
    before: bytes


def normalize_reply(text: str) -> Any:
    try:
        return normalize_value(json.loads(text))
    except json.JSONDecodeError:
        return normalize_value(text)


async def _run(env: Environment, server: str, tool: str, args: dict[str, Any], rnd: int,
               call_id: str) -> tuple[ToolCallEvent, Ending]:
    """Run one call on ``env`` as it stands; its ending (the diff of its own server's state)."""
    app = env.apps[server]
    before = app.tree.snapshot()
    event = await env.call(server, tool, args, round=rnd, call_id=call_id)
    h = app.app.hierarchy
    changes = diff_states(h, before, app.tree.data)
    created = tuple((c.entity_type, normalize_value({k: v for k, v in (c.after or {}).items()
                                                     if k != getattr(h.entities.get(c.entity_type), "id_field", None)}))
                    for c in changes if c.op == "create")
    return event, Ending(event.is_error, normalize_reply(event.result), [normalize_value(c.to_dict()) for c in changes],
                         echoes_of(args), created)


async def _replay(env: Environment, calls: Sequence[ToolCallEvent]) -> tuple[list[Replayed | None], list[int]]:
    """The agent's calls replayed in order (None for a call that reached no server or did not parse), and the
    positions of those whose replayed reply is not the recorded one."""
    replayed: list[Replayed | None] = []
    diverged = []
    for i, c in enumerate(calls):
        if c.server is None or c.server not in env.apps or c.arguments is None:
            replayed.append(None)
            continue
        before = env.apps[c.server].save_state()
        event, ending = await _run(env, c.server, c.tool, c.arguments, c.round, c.call_id)
        replayed.append(Replayed(c.server, ending, before))
        if event.result != c.result or event.is_error != c.is_error:
            diverged.append(i)
    return replayed, diverged


async def _gold_on(env: Environment, gold: GoldCall, args: dict[str, Any],
                   state: Replayed) -> tuple[ToolCallEvent, Ending]:
    """``gold`` run on the state the agent's call ``state`` saw."""
    env.apps[state.server].restore_state(state.before)
    return await _run(env, gold.server, gold.tool, args, 0, "gold")


async def _ending_alike(env: Environment, gold: GoldCall, args: dict[str, Any],
                        candidates: list[tuple[int, Replayed]]) -> tuple[int, str] | tuple[None, None]:
    """The first candidate (position, replay) whose call ends as ``gold`` does on the state it saw, and how."""
    for i, mine in candidates:
        _, ending = await _gold_on(env, gold, args, mine)
        if how := ending.same(mine.ending):
            return i, how
    return None, None


async def _covering(env: Environment, gold: GoldCall, args: dict[str, Any], candidates: list[tuple[int, Replayed]],
                    covering: dict[int, list[Ending]]) -> tuple[int, ToolCallEvent] | None:
    """The first read among ``candidates`` whose reply holds the facts of ``gold`` together with those of the gold
    calls it already stands for (``covering``, updated); with the gold call's own result on that state."""
    for i, mine in candidates:
        event, ending = await _gold_on(env, gold, args, mine)
        if not ending.read:
            continue
        golds = [*covering.get(i, []), ending]
        together = merged([facts_only(g.reply) for g in golds])
        if together is not _UNMERGEABLE and Facts(mine.ending.echoes, joined(*(g.echoes for g in golds))).same(
                facts_only(mine.ending.reply), together, ordered=False, within=True):
            covering[i] = golds
            return i, event
    return None


def covers_exactly(mine: Ending, golds: Sequence[Ending]) -> bool:
    """``mine`` carries the facts of ``golds`` together and nothing more."""
    together = merged([facts_only(g.reply) for g in golds])
    return together is not _UNMERGEABLE and Facts(mine.echoes, joined(*(g.echoes for g in golds))).same(
        facts_only(mine.reply), together, ordered=False)


async def _split(env: Environment, gold: GoldCall, args: dict[str, Any],
                 candidates: list[tuple[int, Replayed]]) -> tuple[list[int], ToolCallEvent] | None:
    """Two or more reads among ``candidates`` (in order) whose replies together carry exactly the facts of
    ``gold`` (run on the state the first of them saw); with the gold call's own result there."""
    if len(candidates) < 2:
        return None
    event, ending = await _gold_on(env, gold, args, candidates[0][1])
    if not ending.read:
        return None
    parts: list[tuple[int, Ending]] = []
    for i, mine in candidates:
        trial = [*(e for _, e in parts), mine.ending]
        together = merged([facts_only(e.reply) for e in trial])
        if together is not _UNMERGEABLE and Facts(ending.echoes, joined(*(e.echoes for e in trial))).same(
                facts_only(ending.reply), together, ordered=False, within=True):
            parts.append((i, mine.ending))
            if len(parts) >= 2 and covers_exactly(ending, [e for _, e in parts]):
                return [j for j, _ in parts], event
    return None


def _records_within(gold: Ending, parts: Sequence[Ending], *, exactly: bool) -> bool:
    """The records ``parts`` create, merged per entity type, are (within: are part of) the one record of each
    type ``gold`` creates, ids aside."""
    kinds = [t for t, _ in gold.created]
    if len(set(kinds)) != len(kinds):
        return False
    wanted = dict(gold.created)
    mine: dict[str, list[Any]] = {}
    for part in parts:
        for t, record in part.created:
            mine.setdefault(t, []).append(record)
    if set(mine) - set(wanted) or (exactly and set(mine) != set(wanted)):
        return False
    for t, records in mine.items():
        together = merged(records)
        if together is _UNMERGEABLE or not Facts({}, {}).same(wanted[t], together, ordered=False, within=not exactly):
            return False
    return True


async def _split_writes(env: Environment, gold: GoldCall, args: dict[str, Any],
                        candidates: list[tuple[int, Replayed]]) -> tuple[list[int], ToolCallEvent] | None:
    """Two or more writes among ``candidates`` (in order) of a tool with a set parameter, which only create
    records, whose records together are the record ``gold`` creates (run on the state the first of them saw)."""
    spec = library().get(gold.tool)
    if len(candidates) < 2 or spec is None or not spec.sets:
        return None
    event, ending = await _gold_on(env, gold, args, candidates[0][1])
    if not ending.creates_only:
        return None
    parts: list[tuple[int, Ending]] = []
    for i, mine in candidates:
        if not mine.ending.creates_only:
            continue
        if _records_within(ending, [*(e for _, e in parts), mine.ending], exactly=False):
            parts.append((i, mine.ending))
            if len(parts) >= 2 and _records_within(ending, [e for _, e in parts], exactly=True):
                return [j for j, _ in parts], event
    return None


async def _failed_where_gold_succeeds(env: Environment, gold: GoldCall, args: dict[str, Any],
                                      mine: Replayed | None) -> bool:
    if mine is None or not mine.ending.failed:
        return False
    _, ending = await _gold_on(env, gold, args, mine)
    return not ending.failed


async def score_outcome(protocol: Protocol, task: Task, calls: Sequence[ToolCallEvent],
                        episode: Environment) -> dict[str, Any]:
    """Finished / efficiently finished by the outcome rule (see the module doc); ``episode`` is the episode's
    environment, whose pool the replay environment copies."""
    out: dict[str, Any] = {"outcome_via": {}, "outcome_replay_diverged": []}
    keys = [call_key(c.tool, c.arguments) for c in calls]
    used: set[int] = set()
    matched: dict[tuple[int, int], ToolCallEvent] = {}
    match_index: dict[tuple[int, int], int] = {}
    missing: list[str] = []
    covering: dict[int, list[Ending]] = {}  # an agent call standing for several gold calls: their endings
    split = False
    async with protocol.environment(task, episode.pool_kind, episode.spec) as env:
        replayed, out["outcome_replay_diverged"] = await _replay(env, calls)
        for si, step in enumerate(task.gold):
            for ci, gold in enumerate(step.calls):
                try:
                    args = resolve_refs(gold.arguments, matched)
                except GoldReplayError:
                    missing.append(f"{gold.tool} (needs the result of gold call {si}.{ci})")
                    continue
                want = call_key(gold.tool, args)
                mine = [(i, r) for i, c in enumerate(calls)
                        if c.tool == gold.tool and (r := replayed[i]) is not None and r.server == gold.server]
                free = [i for i, c in enumerate(calls) if i not in used and c.tool == gold.tool]
                hit, via = None, None
                for i in free:
                    if keys[i] == want and not await _failed_where_gold_succeeds(env, gold, env.gold_arguments(args),
                                                                                 replayed[i]):
                        hit, via = i, ARGUMENTS
                        break
                if hit is None:
                    hit, via = await _ending_alike(env, gold, env.gold_arguments(args),
                                                   [(i, r) for i, r in mine if i not in used])
                event = calls[hit] if hit is not None else None
                hits = [hit] if hit is not None else []
                reads = [(i, r) for i, r in mine if r.ending.read]
                if not hits and (found := await _covering(env, gold, env.gold_arguments(args), [
                        (i, r) for i, r in reads if i not in used or i in covering], covering)):
                    (hit, event), via = found, COVERED
                    hits = [hit]
                if not hits and (parts := await _split(env, gold, env.gold_arguments(args),
                                                       [(i, r) for i, r in reads if i not in used])):
                    (hits, event), via = parts, SPLIT
                    split = True
                if not hits and (parts := await _split_writes(env, gold, env.gold_arguments(args),
                                                              [(i, r) for i, r in mine if i not in used])):
                    (hits, event), via = parts, SPLIT_WRITES
                    split = True
                if not hits or event is None:
                    missing.append(f"{gold.tool} {want[1]}")
                    continue
                used.update(hits)
                matched[(si, ci)] = event
                match_index[(si, ci)] = hits[0]
                out["outcome_via"][f"{si}.{ci}"] = via
    extra = [f"{keys[i][0]} {keys[i][1]}" for i in range(len(calls)) if i not in used]
    for i, golds in covering.items():
        replay = replayed[i]
        if replay is not None and not covers_exactly(replay.ending, golds):
            extra.append(f"{keys[i][0]} {keys[i][1]} (returns more than the gold calls it stands for)")
    finished = not missing and not extra
    return out | {"outcome_finished": finished,
                  "outcome_efficient": finished and not split and same_turns(task, calls, match_index),
                  "outcome_missing": missing, "outcome_extra": extra}
