"""An episode's environment: each episode its own servers, and no tool listing repeated per episode."""

from __future__ import annotations

import json
from typing import Any

import anyio
import pytest

from mcp_persona.agents import ReferenceAgent
from mcp_persona.apps.base import AppServer
from mcp_persona.environment import Environment
from mcp_persona.tasks import load_tasks
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
    task = next(t for t in load_tasks("persona") if t.category == "social")

    async def run() -> tuple[Any, Any]:
        async with Environment(task) as a, Environment(task) as b:
            await ReferenceAgent().run(task, a, Trajectory(task_id=task.id, agent="reference"))
            return a.final_states(), b.final_states()

    changed, untouched = anyio.run(run)
    assert untouched == Environment(task).initial
    assert changed != untouched
