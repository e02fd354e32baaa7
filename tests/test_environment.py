"""An episode's environment: each episode its own servers, no tool listing repeated per episode, and the
entity diff its scoring reads."""

from __future__ import annotations

import json
from typing import Any

import anyio
import pytest

from mcp_persona.agents import ReferenceAgent
from mcp_persona.apps.base import AppServer
from mcp_persona.context_tree import Change, Hierarchy, diff_states
from mcp_persona.context_tree.diff import ROOT
from mcp_persona.environment import Environment
from mcp_persona.protocols import load_tasks
from mcp_persona.trajectory import Trajectory


@pytest.fixture
def listings(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The app of every tools/list request a server answers."""
    seen: list[str] = []
    original = AppServer.list_tools

    async def counted(self: AppServer) -> Any:
        seen.append(self.app.name)
        return await original(self)

    monkeypatch.setattr(AppServer, "list_tools", counted)
    return seen


def test_later_episodes_list_no_tools(listings: list[str]) -> None:
    task = next(t for t in load_tasks("persona") if len(t.server_names) >= 2)
    first = task.gold[0].calls[0]

    async def episode() -> tuple[bool, str]:
        async with Environment(task) as env:
            for name in env.clients:  # a call on every server: the SDK's lazy listing would happen here
                tool = next(p for p in env.pool if p.server == name)
                await env.call(name, tool.name, {}, round=0)
            event = await env.call(first.server, first.tool, first.arguments, round=1)
            return event.is_error, event.result

    anyio.run(episode)  # the process's first episode of these apps may list (once per app)
    listings.clear()
    is_error, result = anyio.run(episode)
    assert listings == [], f"tools/list was asked again: {listings}"
    assert not is_error, result
    json.loads(result)


def test_episodes_do_not_share_state() -> None:
    task = next(t for t in load_tasks("persona") if t.spec.category == "social")

    async def run() -> tuple[Any, Any]:
        async with Environment(task) as a, Environment(task) as b:
            await ReferenceAgent().run(task, a, Trajectory(task_id=task.id, agent="reference"))
            return a.final_states(), b.final_states()

    changed, untouched = anyio.run(run)
    assert untouched == Environment(task).initial
    assert changed != untouched


def _walk_diff(h: Hierarchy, before: dict[str, Any], after: dict[str, Any]) -> list[Change]:
    """The plain definition of the entity diff: index every entity of both states by path and compare."""
    def own(etype: str | None, ent: dict[str, Any]) -> dict[str, Any]:
        return {k: v for k, v in ent.items() if k not in h.child_types(etype)}

    out: list[Change] = []
    rb, ra = own(None, before), own(None, after)
    if rb != ra:
        out.append(Change("modify", ROOT, "", rb, ra, tuple(sorted(k for k in rb.keys() | ra.keys()
                                                                   if rb.get(k) != ra.get(k)))))
    b = {p: (t, e) for t, p, e in h.iter_entities(before)}
    a = {p: (t, e) for t, p, e in h.iter_entities(after)}
    def inside(p: str, others: set[str]) -> bool:
        return any(p.startswith(o + ".") for o in others if o != p)
    for p, (t, e) in b.items():
        if p not in a:
            if not inside(p, b.keys() - a.keys()):
                out.append(Change("delete", t, p, before=own(t, e)))
        elif own(t, e) != own(t, a[p][1]):
            ob, oa = own(t, e), own(t, a[p][1])
            out.append(Change("modify", t, p, ob, oa, tuple(sorted(k for k in ob.keys() | oa.keys()
                                                                     if ob.get(k) != oa.get(k)))))
    out += [Change("create", t, p, after=own(t, e)) for p, (t, e) in a.items()
            if p not in b and not inside(p, a.keys() - b.keys())]
    return out


def test_diff_follows_changes_and_agrees_with_the_plain_walk() -> None:
    tasks = load_tasks("persona")[::4]

    async def replays() -> list[tuple[Hierarchy, dict[str, Any], dict[str, Any]]]:
        out = []
        for task in tasks:
            async with Environment(task) as env:
                await ReferenceAgent().run(task, env, Trajectory(task_id=task.id, agent="reference"))
                out += [(env.apps[n].app.hierarchy, env.initial[n], state) for n, state in env.final_states().items()]
        return out

    pairs = anyio.run(replays)
    changed = 0
    for h, before, after in pairs:
        assert diff_states(h, before, after) == _walk_diff(h, before, after)
        assert diff_states(h, after, before) == _walk_diff(h, after, before)  # creates become deletes
        changed += bool(diff_states(h, before, after))
        for etype in h.entities:
            assert list(h.iter_type(after, etype)) == [(p, e) for t, p, e in h.iter_entities(after) if t == etype]
    assert changed >= len(tasks) // 2  # the sample writes: the comparison is not between empty diffs
