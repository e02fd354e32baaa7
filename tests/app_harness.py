"""Shared scaffolding for the per-app tests (``tests/test_app_*.py``).

Every app is exercised through the real MCP path: an ``mcp.Client`` connected to the app's ``MCPServer``
over one episode's state (an :class:`~mcp_persona.apps.base.AppEnv`). Two styles are in use:

* :class:`AppHarness`, for the apps tested call by call (the information apps, the reference-server
  replicas, Obsidian, ...): one connection per call, the episode passed in, usually from the ``env``
  fixture the harness makes::

      H = AppHarness(APP, read_only=True)
      env = H.env_fixture()

      async def test_search(env: AppEnv) -> None:
          text = await H.ok(env, "search", {"query": "x"})
          await H.rejected(env, "search", {}, "query: Field required")

* :class:`AppSession`, for the stateful personal apps: one episode and one connected client for a whole
  test, subclassed per app to add the app's response envelope and lookups by name::

      class Slack(AppSession):
          app = APP
          json_results = True

      async with Slack() as s:
          body = await s.ok("slack_get_users")

Both check, on every call, that the simulator recorded no internal error (a crash turned into an error
result; a switch turns this off where a file never checked it) and, on every rejected call, that the
state hash is unchanged. Checks particular to one app (its
success envelope, its error object) stay in that app's test file, layered on these helpers.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from datetime import datetime
from typing import Any, ClassVar, Self

import pytest
from mcp import Client
from mcp.types import CallToolResult, TextContent

from mcp_persona.apps.base import App, AppEnv
from mcp_persona.clock import TaskClock
from mcp_persona.context_tree import Change, Hierarchy, diff_states

__all__ = ["CLOCK", "AppHarness", "AppSession", "change_triples", "result_text"]

CLOCK = TaskClock(now=datetime(2026, 3, 10, 9, 30), timezone="Asia/Shanghai")
"""The task clock of every app test unless it sets its own: Tuesday 2026-03-10, 09:30 in Shanghai."""

Args = dict[str, Any] | None
"""A tool's arguments; ``None`` sends none (the same as ``{}``)."""

ChangeTriple = tuple[str, str, tuple[str, ...]]


def result_text(result: CallToolResult) -> str:
    """The text of a tool result (its first content block; ``""`` when it has none)."""
    if not result.content:
        return ""
    first = result.content[0]
    assert isinstance(first, TextContent), first
    return first.text


def change_triples(hierarchy: Hierarchy, before: dict[str, Any], after: dict[str, Any]) -> list[ChangeTriple]:
    """The entity-level diff from ``before`` to ``after`` as ``(op, path, changed fields)``, in diff order."""
    return [(c.op, c.path, c.fields) for c in diff_states(hierarchy, before, after)]


class AppHarness:
    """Calls one app's tools through the real MCP path, one client connection per call.

    ``context`` is the context :meth:`env` loads by default. With ``read_only=True``, :meth:`ok` and
    :meth:`ok_json` also assert that the call left the state hash unchanged (per call, ``read_only=``
    overrides it). ``envelope`` holds top-level fields (and their values) that every successful JSON answer
    of the app carries; :meth:`ok_json` asserts them. With ``check_internal_errors=False``, :meth:`call` does
    not assert that ``env.internal_errors`` is empty (the reference-server replicas' tests never did).
    """

    def __init__(self, app: App, *, context: str = "default", read_only: bool = False,
                 envelope: Mapping[str, Any] | None = None, check_internal_errors: bool = True) -> None:
        self.app = app
        self.context = context
        self.read_only = read_only
        self.envelope = dict(envelope or {})
        self.check_internal_errors = check_internal_errors

    def env(self, context: str | None = None, *, clock: TaskClock = CLOCK) -> AppEnv:
        """A fresh episode of ``context`` (default: the harness's) at ``clock``."""
        return self.app.env(context or self.context, clock=clock)

    def env_fixture(self) -> Any:
        """A pytest fixture named ``env``: a fresh :meth:`env` per test. Assign it in the test module,
        ``env = H.env_fixture()``, for pytest to find it."""

        @pytest.fixture(name="env")
        def env() -> AppEnv:
            return self.env()

        return env

    async def call(self, env: AppEnv, tool: str, args: Args = None, *, replica: bool = False) -> CallToolResult:
        """Call ``tool`` once on ``env``'s server; assert no internal error was recorded. No other check.

        ``replica=True`` asks a reference app (filesystem, memory) for its replica server instead.
        """
        server = self.app.server(env, replica=True) if replica else self.app.server(env)  # type: ignore[call-arg]
        async with Client(server) as client:
            result = await client.call_tool(tool, args or {})
        if self.check_internal_errors:
            assert not env.internal_errors, env.internal_errors
        return result

    async def call_text(self, env: AppEnv, tool: str, args: Args = None) -> tuple[bool, str]:
        """``(is_error, text)`` of one call."""
        result = await self.call(env, tool, args)
        return bool(result.is_error), result_text(result)

    async def call_json(self, env: AppEnv, tool: str, args: Args = None) -> tuple[bool, Any]:
        """``(is_error, parsed JSON body)`` of one call."""
        is_error, text = await self.call_text(env, tool, args)
        return is_error, json.loads(text)

    async def outcome(self, env: AppEnv, tool: str, args: Args = None, *, replica: bool = False) -> tuple[str, bool]:
        """``(text, is_error)`` of one call: the shape recorded traces of the reference servers are compared in."""
        result = await self.call(env, tool, args, replica=replica)
        return result_text(result), bool(result.is_error)

    async def ok(self, env: AppEnv, tool: str, args: Args = None, *, read_only: bool | None = None) -> str:
        """A successful call: no error flag (and, if read-only, the state hash unchanged). Returns the text."""
        check_state = self.read_only if read_only is None else read_only
        before = env.tree.hash() if check_state else None
        result = await self.call(env, tool, args)
        text = result_text(result)
        assert not result.is_error, text
        if check_state:
            assert env.tree.hash() == before
        return text

    async def ok_json(self, env: AppEnv, tool: str, args: Args = None, *, read_only: bool | None = None) -> Any:
        """:meth:`ok`, returning the parsed JSON body (after checking the harness's ``envelope`` fields in it)."""
        body = json.loads(await self.ok(env, tool, args, read_only=read_only))
        if self.envelope:
            assert {key: body[key] for key in self.envelope} == self.envelope, body
        return body

    async def rejected(self, env: AppEnv, tool: str, args: Args, *needles: str) -> str:
        """A rejected call: the error flag, every one of ``needles`` in the text, the state hash unchanged.

        Returns the text, for checks of the app's own error shape.
        """
        before = env.tree.hash()
        result = await self.call(env, tool, args)
        text = result_text(result)
        assert result.is_error, text
        for needle in needles:
            assert needle in text, text
        assert env.tree.hash() == before
        return text

    def diff(self, env: AppEnv, before: dict[str, Any]) -> list[ChangeTriple]:
        """What changed in ``env`` since the snapshot ``before``, as :func:`change_triples`."""
        return change_triples(self.app.hierarchy, before, env.tree.data)


class AppSession:
    """One episode of an app and a client connected to its server, for the length of an ``async with``.

    A subclass sets ``app`` (and ``json_results=True`` when the app answers in JSON), extends :meth:`ok`
    with the app's success envelope, builds its ``fail`` on :meth:`rejected` with the app's error shape,
    and adds lookups by name.
    """

    app: ClassVar[App]
    json_results: ClassVar[bool] = False
    """Whether :meth:`raw` parses results as JSON (else it returns the text)."""

    def __init__(self, context: str = "chen_yu", clock: TaskClock = CLOCK) -> None:
        self.env: AppEnv = self.app.env(context, clock=clock)
        self.client = Client(self.app.server(self.env))

    async def __aenter__(self) -> Self:
        await self.client.__aenter__()
        return self

    async def __aexit__(self, *exc: Any) -> None:
        await self.client.__aexit__(*exc)

    @property
    def data(self) -> dict[str, Any]:
        """The episode's live state."""
        return self.env.tree.data

    async def raw(self, tool: str, args: Args = None) -> tuple[bool, Any]:
        """``(is_error, body)`` of one call, unchecked; the body is parsed JSON if ``json_results``, else text."""
        result = await self.client.call_tool(tool, args or {})
        text = result_text(result)
        return bool(result.is_error), json.loads(text) if self.json_results else text

    async def ok(self, tool: str, args: Args = None) -> Any:
        """A successful call: no error flag, no internal error. Returns the body as :meth:`raw` gives it."""
        is_error, body = await self.raw(tool, args)
        assert not is_error, body
        assert self.env.internal_errors == []
        return body

    async def rejected(self, tool: str, args: Args, *, check_internal_errors: bool = True) -> Any:
        """A rejected call: the error flag, the state hash unchanged and (unless told otherwise) no internal
        error. Returns the body as :meth:`raw` gives it, for the app's own checks of its error shape."""
        before = self.env.tree.hash()
        is_error, body = await self.raw(tool, args)
        assert is_error, body
        assert self.env.tree.hash() == before
        if check_internal_errors:
            assert self.env.internal_errors == []
        return body

    async def changes(self, tool: str, args: dict[str, Any]) -> tuple[Any, list[Change]]:
        """A successful call (:meth:`ok`) and the entity-level diff it made."""
        before = self.env.tree.snapshot()
        body = await self.ok(tool, args)
        return body, diff_states(self.app.hierarchy, before, self.env.tree.data)

    async def unchanged(self, tool: str, args: Args = None) -> Any:
        """A successful call (:meth:`ok`) that left the state hash unchanged."""
        before = self.env.tree.hash()
        body = await self.ok(tool, args)
        assert self.env.tree.hash() == before
        return body

    def diff(self, before: dict[str, Any]) -> list[ChangeTriple]:
        """What changed since the snapshot ``before``, as :func:`change_triples`."""
        return change_triples(self.app.hierarchy, before, self.data)
