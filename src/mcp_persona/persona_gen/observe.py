"""Observe what each tool returns by running its safe calls on the app's first context.

Safe calls are (1) every tool with no required argument, called with ``{}``; (2) the gold calls of
the bundled tasks, replayed in their own contexts; (3) ``probe_rounds`` rounds of read-only tools
whose required arguments can all be filled from values already observed or stored in the context (a
chat id listed by ``im_v1_chat_list`` lets ``im_v1_chat_get`` run; a note title is a search query).
Every call runs on a private in-memory copy of the context: nothing is written anywhere. A result
that is not JSON (a text answer) adds no output field.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Sequence
from contextlib import AsyncExitStack
from dataclasses import dataclass, field
from typing import Any

from mcp import Client
from mcp.types import TextContent

from mcp_persona.apps import App, get_app
from mcp_persona.persona_gen.arguments import MISSING, Leaf, Unfillable, build_arguments
from mcp_persona.persona_gen.entities import own_ids
from mcp_persona.persona_gen.fields import TEXT, OutField, leaf_links, linkable, output_fields, snake

log = logging.getLogger(__name__)


@dataclass
class Observation:
    outputs: dict[str, dict[str, OutField]] = field(default_factory=dict)  # node key -> path -> field
    calls: dict[str, int] = field(default_factory=dict)  # node key -> successful calls seen
    values: dict[str, dict[str, list[str]]] = field(default_factory=dict)  # server -> link -> values (probing)
    skipped: list[str] = field(default_factory=list)  # apps that could not be observed, with why

    def pool(self, server: str) -> dict[str, list[str]]:
        return self.values.setdefault(server, {})

    def record(self, key: str, text: str, tool: str, context_id: str) -> None:
        self.calls[key] = self.calls.get(key, 0) + 1
        try:
            parsed = json.loads(text)
        except json.JSONDecodeError:
            return
        fields = self.outputs.setdefault(key, {})
        for f in output_fields(parsed, tool=tool, ignore=own_ids(key.split(":")[0], context_id)):
            fields.setdefault(f.path, f)
        _collect_values(parsed, [], tool, self.pool(key.split(":")[0]))


def _collect_values(value: Any, path: list[str], tool: str, into: dict[str, list[str]]) -> None:
    if isinstance(value, dict):
        for k, v in value.items():
            _collect_values(v, [*path, str(k)], tool, into)
    elif isinstance(value, list):
        for v in value[:3]:
            _collect_values(v, path, tool, into)
    elif isinstance(value, str | int) and not isinstance(value, bool) and str(value):
        for link in leaf_links(path, tool=tool, value=value):
            _add(into, link, value)


def _add(into: dict[str, list[str]], link: str, value: Any) -> None:
    seen = into.setdefault(link, [])
    if len(seen) < 5 and str(value) not in seen:
        seen.append(str(value))


_NAMES = ("name", "title", "summary", "subject", "display_name", "real_name", "displayTitle", "caption")
TERM = "__term"  # a name or title from the context: the query of a search probe
_QUERY_LEAVES = frozenset({"query", "keyword", "keywords", "search_query", "q", "question", "topic", "library_name",
                           "condition", "prompt", "address", "city", "region"})


def seed_values(app: App, context_id: str, into: dict[str, list[str]]) -> None:
    """Ids and names stored in the context itself: the first arguments of read-only probes."""
    h = app.hierarchy
    for etype, _path, entity in h.iter_entities(app.load_context(context_id)):
        if not isinstance(entity, dict):
            continue
        spec = h.entities[etype]
        eid = entity.get(spec.id_field)
        if isinstance(eid, str | int):
            for link in leaf_links([spec.collection, spec.id_field], value=eid):
                _add(into, link, eid)
        for key, value in entity.items():
            if isinstance(value, str | int) and not isinstance(value, bool) and key != spec.id_field:
                for link in leaf_links([key], value=value):
                    if link != TEXT:
                        _add(into, link, value)
            if key in _NAMES and isinstance(value, str) and 0 < len(value) <= 60:
                _add(into, TERM, value)
                if linkable(etype):
                    _add(into, etype, value)


class _AppSession:
    """One app on its first context: a shared session for reads, a fresh one for every write."""

    def __init__(self, app: App, context_id: str) -> None:
        self.app, self.context_id = app, context_id
        self._stack = AsyncExitStack()
        self._shared: Client | None = None

    async def __aenter__(self) -> _AppSession:
        self._shared = await self._stack.enter_async_context(Client(self.app.server(self.app.env(self.context_id))))
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self._stack.aclose()

    async def call(self, tool: str, args: dict[str, Any], *, mutates: bool) -> tuple[bool, str]:
        if mutates:
            async with Client(self.app.server(self.app.env(self.context_id))) as client:
                return _text(await client.call_tool(tool, args))
        assert self._shared is not None
        return _text(await self._shared.call_tool(tool, args))


def _text(result: Any) -> tuple[bool, str]:
    return (not result.is_error, "\n".join(c.text for c in result.content if isinstance(c, TextContent)))


async def observe(servers: Sequence[str], *, probe_rounds: int = 2, gold: bool = True) -> Observation:
    obs = Observation()
    for name in servers:
        try:
            app = get_app(name)
            contexts = app.context_ids()
            if not contexts:
                obs.skipped.append(f"{name}: no context")
                continue
            async with _AppSession(app, contexts[0]) as session:
                await _plain_calls(app, session, obs)
        except Exception as exc:  # another app's bug must not stop the graph
            log.warning("observing %s failed: %s", name, exc)
            obs.skipped.append(f"{name}: {type(exc).__name__}: {exc}")
    if gold:
        await _gold_calls(set(servers), obs)
    for _ in range(probe_rounds):
        added = 0
        for name in servers:
            try:
                app = get_app(name)
                if not app.context_ids():
                    continue
                async with _AppSession(app, app.context_ids()[0]) as session:
                    added += await _probe_calls(app, session, obs)
            except Exception as exc:
                log.warning("probing %s failed: %s", name, exc)
        if not added:
            break
    return obs


async def _plain_calls(app: App, session: _AppSession, obs: Observation) -> None:
    for tool in app.sdk_tools:
        if tool.parameters.get("required"):
            continue
        ok, text = await session.call(tool.name, {}, mutates=app.mutates(tool.name))
        if ok:
            obs.record(f"{app.name}:{tool.name}", text, tool.name, session.context_id)


async def _gold_calls(servers: set[str], obs: Observation) -> None:
    from mcp_persona.agents.reference import resolve_refs
    from mcp_persona.environment import Environment
    from mcp_persona.protocols import load_tasks

    for task in load_tasks("persona"):
        if not servers & set(task.server_names):
            continue
        try:
            async with Environment(task) as env:
                results: dict[tuple[int, int], Any] = {}
                for si, step in enumerate(task.gold):
                    for ci, call in enumerate(step.calls):
                        event = await env.call(call.server, call.tool, resolve_refs(call.arguments, results), round=si)
                        results[(si, ci)] = event
                        if not event.is_error and call.server in servers:
                            obs.record(f"{call.server}:{call.tool}", event.result, call.tool,
                                       task.context_of(call.server) or "")
        except Exception as exc:
            log.warning("replaying %s for observation failed: %s", task.id, exc)


async def _probe_calls(app: App, session: _AppSession, obs: Observation) -> int:
    pool = obs.pool(app.name)
    if not pool:
        seed_values(app, session.context_id, pool)
    added = 0
    for tool in app.sdk_tools:
        key = f"{app.name}:{tool.name}"
        if key in obs.calls or app.mutates(tool.name) or not tool.parameters.get("required"):
            continue
        for attempt in range(3):
            try:
                args = build_arguments(tool.parameters, tool=tool.name, fill=_pool_filler(pool, attempt))
            except Unfillable:
                break
            ok, text = await session.call(tool.name, args, mutates=False)
            if ok:
                obs.record(key, text, tool.name, session.context_id)
                added += 1
                break
    return added


def _pool_filler(pool: dict[str, list[str]], attempt: int) -> Any:
    def fill(leaf: Leaf) -> Any:
        if not leaf.required:
            return MISSING
        links = [lk for lk in leaf.links if lk != TEXT] or ([TERM] if snake(leaf.name) in _QUERY_LEAVES else [])
        for link in links:
            if pool.get(link):
                values = pool[link]
                return _typed(values[min(attempt, len(values) - 1)], leaf.node)
        return MISSING

    return fill


def _typed(value: str, node: dict[str, Any]) -> Any:
    if node.get("type") == "integer":
        try:
            return int(value)
        except ValueError:
            return value
    return value
