"""The environment of one episode: fresh app states, their MCP servers, and the tool pool.

Each server the episode uses gets a private copy of its user context and an
``MCPServer`` over it, reached through the SDK's ``Client`` in-process: real MCP
messages, no subprocess, no file I/O per call. Episodes never share state, so
they can run concurrently.
"""

from __future__ import annotations

import time
import weakref
from contextlib import AsyncExitStack
from dataclasses import dataclass, field, replace
from typing import Any, Literal

from mcp import Client
from mcp.types import TextContent

from mcp_persona.apps import App, AppEnv, get_app
from mcp_persona.tasks import Task
from mcp_persona.trajectory import ToolCallEvent

SEP = "__"  # exposed tool name = server + SEP + tool (the model sees one flat namespace)

ToolPool = Literal["selected", "all"]


@dataclass(frozen=True)
class PoolSpec:
    """The servers an episode opens and which of their tools the agent sees, in this order.

    ``tools`` None: every tool of every server, named ``server__tool``. Otherwise exactly the
    listed (server, tool) pairs; ``bare_names`` exposes them under the tool's own name (the
    library guarantees those are unique).
    """

    servers: list[str]
    tools: list[tuple[str, str]] | None = None
    bare_names: bool = False
    description: dict[str, Any] = field(default_factory=dict)  # stored with the episode (e.g. the draw)


@dataclass(frozen=True, eq=False)  # identity: one object per listed tool, shared by every episode
class PoolTool:
    exposed: str
    server: str
    name: str
    description: str
    input_schema: dict[str, Any]


class Environment:
    """The episode's apps over ``pool`` (its protocol builds it: :meth:`Protocol.pool`); without one, the task's
    own servers with every tool. ``tools`` says which kind of pool it is ("all": the protocol's wider pool)."""

    def __init__(self, task: Task, *, tools: ToolPool = "selected", pool: PoolSpec | None = None) -> None:
        if pool is None and tools != "selected":
            raise ValueError("a pool other than the task's own servers is its protocol's to build: pass "
                             "pool=protocol.pool(task, settings, tools)")
        self.task = task
        self.pool_kind = tools
        self.spec = pool if pool is not None else PoolSpec(task.server_names)
        names = list(self.spec.servers)
        self.apps: dict[str, AppEnv] = {}
        self.initial: dict[str, dict[str, Any]] = {}
        for i, name in enumerate(names):
            app = get_app(name)
            context_id = task.context_of(name) or _extra_context(task, app.context_ids())
            env = app.env(context_id, clock=task.clock, seed=task.seed * 1000 + i)
            self.apps[name] = env
            self.initial[name] = app.start_state(context_id)  # shared, read-only
        self.clients: dict[str, Client] = {}
        self.pool: list[PoolTool] = []
        self._by_exposed: dict[str, PoolTool] = {}
        self._stack = AsyncExitStack()

    async def __aenter__(self) -> Environment:
        try:
            for name, env in self.apps.items():
                client = Client(env.app.server(env))
                self.clients[name] = await self._stack.enter_async_context(client)
                for tool in await app_tools(env.app, client, bare=self.spec.bare_names):
                    self._by_exposed[tool.exposed] = tool
            if self.spec.tools is None:
                self.pool = list(self._by_exposed.values())
            else:  # exactly the listed tools, in the listed order; nothing else is reachable
                found = {(p.server, p.name): p for p in self._by_exposed.values()}
                missing = [f"{s}:{t}" for s, t in self.spec.tools if (s, t) not in found]
                if missing:
                    raise KeyError(f"the pool names tools no server has: {', '.join(missing)}")
                self.pool = [found[w] for w in self.spec.tools]
                self._by_exposed = {p.exposed: p for p in self.pool}
        except BaseException:
            await self._stack.aclose()
            raise
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self._stack.aclose()

    def gold_arguments(self, arguments: dict[str, Any]) -> dict[str, Any]:
        """A gold call's arguments as this episode runs them (a library's sandbox path filled in)."""
        return arguments

    def resolve(self, exposed: str) -> PoolTool | None:
        return self._by_exposed.get(exposed)

    async def call(
        self, server: str, tool: str, arguments: dict[str, Any], *, round: int, call_id: str = ""
    ) -> ToolCallEvent:
        client = self.clients.get(server)
        if client is None:
            return ToolCallEvent(round=round, call_id=call_id, server=None, tool=tool, arguments=arguments,
                                 result=f"Unknown server: {server}", is_error=True)
        start = time.perf_counter()
        result = await client.call_tool(tool, arguments)
        latency = time.perf_counter() - start
        text = "\n".join(c.text for c in result.content if isinstance(c, TextContent))
        return ToolCallEvent(round=round, call_id=call_id, server=server, tool=tool, arguments=arguments,
                             result=text, is_error=bool(result.is_error), latency_s=latency)

    def final_states(self) -> dict[str, dict[str, Any]]:
        return {name: env.tree.data for name, env in self.apps.items()}

    def internal_errors(self) -> list[str]:
        return [f"{name}: {err}" for name, env in self.apps.items() for err in env.internal_errors]


@dataclass(frozen=True)
class _SessionListing:
    """What an SDK client session derives from a tool listing (output schemas, header maps)."""

    output_schemas: dict[str, Any]
    header_maps: dict[str, Any]


_LISTED: weakref.WeakKeyDictionary[App, tuple[PoolTool, ...]] = weakref.WeakKeyDictionary()
_SESSION: weakref.WeakKeyDictionary[App, _SessionListing] = weakref.WeakKeyDictionary()
_BARE: weakref.WeakKeyDictionary[App, tuple[PoolTool, ...]] = weakref.WeakKeyDictionary()


async def app_tools(app: App, client: Client, *, bare: bool = False) -> tuple[PoolTool, ...]:
    """The app's tools as its MCP server lists them: listed once per app and process, since an app's tools
    never change; calls still go through each episode's own server. ``bare``: exposed under the tool's own
    name rather than ``server__tool``.

    The client's session is primed with that listing too: the SDK lists a server's tools on a session's
    first call (to check results against output schemas), a tools/list round trip of 0.5-7 ms per app and
    episode that would return what this process already holds.
    """
    tools = _LISTED.get(app)
    if tools is None:
        listed = await client.list_tools()
        tools = _LISTED[app] = tuple(PoolTool(f"{app.name}{SEP}{t.name}", app.name, t.name, t.description or "",
                                              t.input_schema) for t in listed.tools)
        session = client.session
        _SESSION[app] = _SessionListing(dict(getattr(session, "_tool_output_schemas", {})),
                                        dict(getattr(session, "_x_mcp_header_maps", {})))
    else:
        _prime(client, _SESSION[app])
    if not bare:
        return tools
    if app not in _BARE:
        _BARE[app] = tuple(replace(t, exposed=t.name) for t in tools)
    return _BARE[app]


def _prime(client: Client, listing: _SessionListing) -> None:
    """Hand a new session the derived state of the app's listing, as if it had listed the tools itself.
    These are the SDK's own caches (private names): if a release renames them, the session simply lists
    again on its first call, and tests/test_environment.py says so."""
    session = client.session
    schemas = getattr(session, "_tool_output_schemas", None)
    headers = getattr(session, "_x_mcp_header_maps", None)
    if isinstance(schemas, dict) and isinstance(headers, dict):
        schemas.update(listing.output_schemas)
        headers.update(listing.header_maps)


def _extra_context(task: Task, available: list[str]) -> str:
    """The context of a server the task does not name: the same persona as the task's own servers where
    the app has one (so the user is the same person everywhere), else the app's default dataset."""
    for candidate in [s.context_id for s in task.servers] + ["default"]:
        if candidate in available:
            return candidate
    if not available:
        raise ValueError("an app in the pool has no context to run on")
    return available[0]

