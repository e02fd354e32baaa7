"""The outcome rule: an agent's call does a gold call's job when it gets what the gold call gets.

The argument rule (:func:`.scoring.score_calls`, the paper's metric) asks for the gold arguments after
normalisation, so ``{"location": "Austin, TX"}`` is not ``{"location": "Austin"}`` even where the server
answers both with Austin's listings. The outcome rule matches an agent's call to a gold call when

* it is the same tool, and the argument rule matches the two calls; or
* on the state the agent's call saw, the agent's call and the gold call, each run there, end alike: neither
  fails, they change the state in the same way (the entity-level diff of :mod:`mcp_persona.context_tree.diff`,
  normalised), and, when neither changes anything (a read), their replies are the same after the argument
  rule's normalisation (:func:`.scoring.normalize_value` over the parsed JSON: case, spacing, number forms).

"The state the agent's call saw" is rebuilt, not guessed: the agent's calls are replayed in their order on a
fresh environment over the same pool and seed (so it reaches the states the episode went through), the
called server's state saved before each (:meth:`AppEnv.save_state`); a gold call is tried on that saved
state and the state put back. A call whose replayed reply is not the recorded one is listed
(``outcome_replay_diverged``; the simulated servers are deterministic, so it should stay empty).

Gold calls are taken in order, each matched to the first unused agent call that the argument rule matches,
else the first that ends alike; a ``$ref`` argument takes its value from the agent's own result of the call
matched to the gold call it names, as under the argument rule. Finished and efficiently finished are then
defined as under the argument rule (every call matched, nothing extra; the gold steps' turns).

Limits, by design: a tool whose reply echoes its arguments (``"request": {...}``) or derives an id from
them (a plan id, a new record's id) shows the agent's own wording, so a rewording the argument rule does not
accept ends differently there; a write is judged by what it leaves in the state, not by its reply.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from mcp_persona.agents.reference import GoldReplayError, resolve_refs
from mcp_persona.context_tree.diff import diff_states
from mcp_persona.protocols.mcpagentbench.scoring import call_key, normalize_value, same_turns
from mcp_persona.tasks import GoldCall, Task
from mcp_persona.trajectory import ToolCallEvent

if TYPE_CHECKING:
    from mcp_persona.environment import Environment
    from mcp_persona.protocols.base import Protocol

ARGUMENTS, REPLY, STATE = "arguments", "reply", "state change"  # how a gold call was matched


@dataclass(frozen=True)
class Ending:
    """How a call ended on one state: failed or not, its normalised reply, its normalised state diff."""

    failed: bool
    reply: Any
    changes: list[Any]

    def same(self, other: Ending) -> str | None:
        """REPLY or STATE when ``other`` ends as this one does, None otherwise."""
        if self.failed or other.failed or self.changes != other.changes:
            return None
        if self.changes:
            return STATE
        return REPLY if self.reply == other.reply else None


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
    changes = diff_states(app.app.hierarchy, before, app.tree.data)
    return event, Ending(event.is_error, normalize_reply(event.result), [normalize_value(c.to_dict()) for c in changes])


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


async def _ending_alike(env: Environment, gold: GoldCall, args: dict[str, Any],
                        candidates: list[tuple[int, Replayed]]) -> tuple[int, str] | tuple[None, None]:
    """The first candidate (position, replay) whose call ends as ``gold`` does on the state it saw, and how."""
    for i, mine in candidates:
        env.apps[mine.server].restore_state(mine.before)  # the state the agent's call saw
        _, ending = await _run(env, gold.server, gold.tool, args, 0, "gold")
        if how := ending.same(mine.ending):
            return i, how
    return None, None


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
                free = [i for i, c in enumerate(calls) if i not in used and c.tool == gold.tool]
                hit, via = next(((i, ARGUMENTS) for i in free if keys[i] == want), (None, None))
                if hit is None:
                    hit, via = await _ending_alike(env, gold, env.gold_arguments(args), [
                        (i, r) for i in free if (r := replayed[i]) is not None and r.server == gold.server])
                if hit is None:
                    missing.append(f"{gold.tool} {want[1]}")
                    continue
                used.add(hit)
                matched[(si, ci)] = calls[hit]
                match_index[(si, ci)] = hit
                out["outcome_via"][f"{si}.{ci}"] = via
    extra = [f"{keys[i][0]} {keys[i][1]}" for i in range(len(calls)) if i not in used]
    finished = not missing and not extra
    return out | {"outcome_finished": finished, "outcome_efficient": finished and same_turns(task, calls, match_index),
                  "outcome_missing": missing, "outcome_extra": extra}
