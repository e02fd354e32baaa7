"""The shared machinery of every simulated app.

An app module declares an :class:`App` (name, category, hierarchy, response style)
and registers plain tool functions on it::

    @APP.tool()
    def calendar_v4_calendar_list(env: AppEnv, params: ListParams | None = None) -> dict: ...

The first parameter is the episode's :class:`AppEnv` (context tree + clock); the
others are the tool's arguments, typed with pydantic so the input schema the agent
sees is exact and bad input is rejected before the function runs. The base turns
each function into an SDK tool once per app, and :meth:`App.server` builds an
``MCPServer`` over one episode's state. Every call runs in a tree transaction:
anything a tool rejects (a :class:`ToolFailure`) or any crash leaves the state as
it was, and the agent gets an error result in the app's own envelope.

A tool that waits on something slow (the code interpreter's child process) may be an
``async def``: it is awaited, so the other calls of its server and every other
episode on the event loop go on meanwhile. Such a tool may not change the state,
since a transaction cannot span an await (another call could write in between).
"""

from __future__ import annotations

import inspect
import json
import logging
import pickle
import typing
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from importlib import resources
from typing import Any, Literal

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.mcpserver.tools import Tool
from mcp.types import CallToolResult, TextContent
from pydantic import ValidationError

from mcp_persona.apps._normalize import StrictNote
from mcp_persona.clock import DEFAULT_CLOCK, TaskClock
from mcp_persona.context_tree import (
    ConflictError,
    ContextTree,
    Hierarchy,
    NotFoundError,
    PathError,
    ReferenceError_,
    TreeError,
    load_hierarchy,
)
from mcp_persona.context_tree.validate import check_state

log = logging.getLogger(__name__)

FailureKind = Literal["type", "missing", "extra", "range", "conflict", "not_found", "permission", "internal"]
Category = Literal["collaboration", "social", "email", "content", "information", "utility"]


class ToolFailure(Exception):
    """A call the simulated app rejects. ``kind`` follows the paper's error taxonomy."""

    def __init__(
        self, message: str, *, kind: FailureKind = "conflict", code: int | str | None = None, **extra: Any
    ) -> None:
        super().__init__(message)
        self.message = message
        self.kind = kind
        self.code = code
        self.extra = extra


@dataclass(frozen=True)
class FieldViolation:
    field: str
    kind: FailureKind
    message: str


_PYDANTIC_KIND: dict[str, FailureKind] = {"missing": "missing", "extra_forbidden": "extra"}
_RANGE_MARKS = ("greater", "less", "too_long", "too_short", "literal_error", "enum", "multiple_of", "pattern")


def violations_from(exc: ValidationError) -> list[FieldViolation]:
    out: list[FieldViolation] = []
    for err in exc.errors(include_url=False):
        etype = err["type"]
        kind: FailureKind = _PYDANTIC_KIND.get(etype) or (
            "range" if any(mark in etype for mark in _RANGE_MARKS) or etype == "value_error" else "type"
        )
        loc = ".".join(str(p) for p in err["loc"]) or "(arguments)"
        out.append(FieldViolation(loc, kind, err["msg"]))
    return out


@dataclass
class AppEnv:
    """What one tool call sees: this episode's tree for this app, and the task clock."""

    app: App
    tree: ContextTree
    clock: TaskClock
    context_id: str
    internal_errors: list[str] = field(default_factory=list)
    _ticks: int = 0

    def now(self) -> int:
        """Unix seconds for a write: the task's "now", one second later per write, so
        that entities made in one episode are ordered and reproducible."""
        self._ticks += 1
        return self.clock.timestamp() + self._ticks

    def save_state(self) -> bytes:
        """Everything the next call's outcome depends on (the tree, its id generator, the write clock), to be
        put back with :meth:`restore_state`: a call replayed on a restored state sees what it saw then."""
        rng = getattr(self.tree, "rng", None)  # a library's record tree makes no ids
        return pickle.dumps((self.tree.data, rng.getstate() if rng is not None else None, self._ticks))

    def restore_state(self, saved: bytes) -> None:
        data, rng_state, ticks = pickle.loads(saved)
        self.tree.data.clear()
        self.tree.data.update(data)
        if rng_state is not None:
            self.tree.rng.setstate(rng_state)
        self._ticks = ticks


ToolFn = Callable[..., Any]


@dataclass(frozen=True)
class ToolSpec:
    name: str
    fn: ToolFn
    mutates: bool


class App:
    """One simulated app: its hierarchy, contexts, tools and response style.

    Subclasses override :meth:`success_payload`, :meth:`error_payload` and
    :meth:`validation_payload` to speak in the real server's envelope.
    """

    def __init__(
        self,
        name: str,
        *,
        title: str,
        category: Category,
        personalized: bool = True,
        description: str = "",
        real_server: str = "",
        library: str | None = None,
        strict: Sequence[StrictNote] = (),
    ) -> None:
        self.name = name
        # tool arguments the real service matches strictly (see mcp_persona.apps._normalize.StrictNote)
        self.strict: tuple[StrictNote, ...] = tuple(strict)
        self.library = library  # the protocol whose private tool library this server belongs to, if any
        self.title = title
        self.category = category
        self.personalized = personalized
        self.description = description
        self.real_server = real_server
        self._specs: dict[str, ToolSpec] = {}
        self._context_blobs: dict[str, bytes] = {}
        self._start_states: dict[str, dict[str, Any]] = {}

    # -- declaration -----------------------------------------------------------------------------
    def tool(self, *, name: str | None = None, mutates: bool = False) -> Callable[[ToolFn], ToolFn]:
        def register(fn: ToolFn) -> ToolFn:
            tool_name = name or fn.__name__
            if tool_name in self._specs:
                raise ValueError(f"{self.name}: tool {tool_name!r} registered twice")
            if mutates and inspect.iscoroutinefunction(fn):
                raise ValueError(f"{self.name}: tool {tool_name!r} is async, so it may not change the state")
            self._specs[tool_name] = ToolSpec(tool_name, fn, mutates)
            return fn

        return register

    @property
    def tool_names(self) -> list[str]:
        return list(self._specs)

    def mutates(self, tool: str) -> bool:
        """Whether ``tool`` may change the state (declared at registration)."""
        return self._specs[tool].mutates

    @cached_property
    def hierarchy(self) -> Hierarchy:
        with resources.as_file(_data_dir() / "hierarchies" / f"{self.name}.json") as p:
            return load_hierarchy(p)

    # -- contexts --------------------------------------------------------------------------------
    @property
    def contexts_dir(self) -> Any:
        return _data_dir() / "contexts" / self.name

    def context_ids(self) -> list[str]:
        folder = self.contexts_dir
        if not folder.is_dir():
            return []
        return sorted(p.name[:-5] for p in folder.iterdir() if p.name.endswith(".json"))

    def load_context(self, context_id: str) -> dict[str, Any]:
        """A fresh, private copy of a stored context (validated once, then cached)."""
        blob = self._context_blobs.get(context_id)
        if blob is None:
            if context_id not in self.context_ids():
                raise KeyError(f"{self.name} has no context {context_id!r} (has: {', '.join(self.context_ids())})")
            text = (self.contexts_dir / f"{context_id}.json").read_text(encoding="utf-8")
            data = json.loads(text)
            problems = check_state(self.hierarchy, data)
            if problems:
                raise ValueError(f"context {self.name}/{context_id} is invalid: " + "; ".join(problems[:5]))
            blob = pickle.dumps(data, protocol=pickle.HIGHEST_PROTOCOL)
            self._context_blobs[context_id] = blob
        return pickle.loads(blob)  # a deep copy, ~10x faster than copy.deepcopy

    def start_state(self, context_id: str) -> dict[str, Any]:
        """The stored context itself, one object shared by every episode: what scoring compares end states
        with. Read it, never write it (``load_context`` gives a private copy; ``written_start_states``
        checks that nobody wrote). Sharing saves a full copy of every app's state per episode."""
        state = self._start_states.get(context_id)
        if state is None:
            state = self._start_states[context_id] = self.load_context(context_id)
        return state

    def written_start_states(self) -> list[str]:
        """The shared start states that no longer equal their stored context (always none, unless a bug wrote
        to one)."""
        return [c for c, state in self._start_states.items() if pickle.loads(self._context_blobs[c]) != state]

    def env(self, context_id: str, *, clock: TaskClock = DEFAULT_CLOCK, seed: int = 0) -> AppEnv:
        tree = ContextTree(self.hierarchy, self.load_context(context_id), seed=seed)
        return AppEnv(self, tree, clock, context_id)

    # -- the MCP server --------------------------------------------------------------------------
    def server(self, env: AppEnv) -> AppServer:
        return AppServer(self, env)

    @cached_property
    def sdk_tools(self) -> list[Tool]:
        """SDK tool definitions, built once per app and shared by every episode's server."""
        return [Tool.from_function(_wrap(self, spec), name=spec.name, structured_output=False) for spec in
                self._specs.values()]

    @cached_property
    def _tool_calls(self) -> dict[str, _ToolCall]:
        return {t.name: _ToolCall(self._specs[t.name], t) for t in self.sdk_tools if t.name in self._specs}

    # -- response style (override per app) -------------------------------------------------------
    def success_payload(self, tool: str, result: Any) -> Any:
        return result

    def error_payload(self, tool: str, failure: ToolFailure) -> Any:
        return {"error": failure.message}

    def validation_payload(self, tool: str, violations: list[FieldViolation]) -> Any:
        detail = "; ".join(f"{v.field}: {v.message}" for v in violations)
        return {"error": f"invalid arguments for {tool}: {detail}"}

    def render(self, payload: Any) -> str:
        return payload if isinstance(payload, str) else compact_json(payload)


def compact_json(value: Any) -> str:
    """``value`` as JSON without indentation or spaces after separators.

    Whitespace is no part of a server's interface, and a model pays for every byte of an answer in
    every later request of the conversation: apps whose real server pretty-prints answer this instead.
    """
    return _COMPACT.encode(value)


def unicode_json(value: Any) -> str:
    """``json.dumps(value, ensure_ascii=False)``, for tools and envelopes that answer or store JSON text."""
    return _UNICODE.encode(value)


# One encoder each, shared by every call: json.dumps with any non-default option builds a new JSONEncoder
# every time (~1-2 us, on every answer).
_COMPACT = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"))
_UNICODE = json.JSONEncoder(ensure_ascii=False)


def _data_dir() -> Any:
    return resources.files("mcp_persona") / "data"


def _tree_failure(exc: TreeError | PathError) -> ToolFailure:
    if isinstance(exc, NotFoundError | ReferenceError_):
        return ToolFailure(str(exc), kind="not_found")
    if isinstance(exc, ConflictError):
        return ToolFailure(str(exc), kind="conflict")
    return ToolFailure(str(exc), kind="range")


def error_result(text: str) -> CallToolResult:
    return CallToolResult(content=[TextContent(type="text", text=text)], is_error=True)


def _failure_result(app: App, name: str, env: AppEnv, exc: Exception) -> CallToolResult:
    """The error result for what a tool raised; called inside the ``except`` (a crash is logged with it)."""
    if isinstance(exc, ToolFailure):
        failure = exc
    elif isinstance(exc, TreeError | PathError):
        failure = _tree_failure(exc)
    else:  # a simulator bug: never a crash, always recorded
        log.exception("%s.%s crashed", app.name, name)
        env.internal_errors.append(f"{name}: {type(exc).__name__}: {exc}")
        failure = ToolFailure(f"internal error in {name}", kind="internal")
    return error_result(app.render(app.error_payload(name, failure)))


def _invoke(app: App, spec: ToolSpec, env: AppEnv, kwargs: dict[str, Any]) -> CallToolResult:
    """Run a sync tool on validated ``kwargs`` in a tree transaction, and wrap its answer in the envelope."""
    try:
        with env.tree.transaction():
            result = spec.fn(env, **kwargs)
    except Exception as exc:
        return _failure_result(app, spec.name, env, exc)
    return CallToolResult(content=[TextContent(type="text", text=app.render(app.success_payload(spec.name,
                                                                                                  result)))])


async def _invoke_async(app: App, spec: ToolSpec, env: AppEnv, kwargs: dict[str, Any]) -> CallToolResult:
    """:func:`_invoke` for an async tool: read-only (checked at registration), so no transaction to hold
    across the await."""
    try:
        result = await spec.fn(env, **kwargs)
    except Exception as exc:
        return _failure_result(app, spec.name, env, exc)
    return CallToolResult(content=[TextContent(type="text", text=app.render(app.success_payload(spec.name,
                                                                                                  result)))])


def _wrap(app: App, spec: ToolSpec) -> Callable[..., Any]:
    """An async SDK-facing function with the tool's signature minus ``env``, plus ``ctx``.

    It gives the SDK the tool's schema and argument model; :meth:`AppServer.call_tool` runs calls
    without it (see there), but the SDK's own tool path (``Tool.run``) reaches the same code through it.
    Async so the SDK runs it on the event loop (a sync tool would hop to a worker thread on every call).
    """
    impl = spec.fn
    is_async = inspect.iscoroutinefunction(impl)
    hints = typing.get_type_hints(impl, include_extras=True)
    params = list(inspect.signature(impl).parameters.values())[1:]  # drop env
    resolved = [p.replace(annotation=hints.get(p.name, Any)) for p in params]
    ctx_param = inspect.Parameter("ctx", inspect.Parameter.KEYWORD_ONLY, annotation=Context)

    async def call(ctx: Context, **kwargs: Any) -> CallToolResult:
        server = ctx.mcp_server
        assert isinstance(server, AppServer)
        if is_async:
            return await _invoke_async(app, spec, server.env, kwargs)
        return _invoke(app, spec, server.env, kwargs)

    call.__name__ = spec.name
    call.__doc__ = inspect.getdoc(impl) or spec.name
    call.__signature__ = inspect.Signature([*resolved, ctx_param])  # type: ignore[attr-defined]
    call.__annotations__ = {p.name: p.annotation for p in resolved} | {"ctx": Context}
    return call


class _ToolCall:
    """What :meth:`AppServer.call_tool` needs of one tool, worked out once per app: the published argument
    names, and the SDK's argument model for it, read so as to validate exactly as ``Tool.run`` does."""

    __slots__ = ("arg_model", "is_async", "known", "kwarg_names", "metadata", "spec", "validator")

    def __init__(self, spec: ToolSpec, tool: Tool) -> None:
        self.spec = spec
        self.is_async = inspect.iscoroutinefunction(spec.fn)
        self.known = frozenset(tool.parameters.get("properties", {}))
        self.metadata = tool.fn_metadata
        self.arg_model = tool.fn_metadata.arg_model
        self.validator = self.arg_model.__pydantic_validator__
        # (attribute, keyword): what ``ArgModelBase.model_dump_one_level`` reads and the key it files it under
        self.kwarg_names = tuple((name, f.alias or name) for name, f in self.arg_model.model_fields.items())

    def validate(self, arguments: dict[str, Any]) -> dict[str, Any]:
        """``FuncMetadata.validate_arguments``: raises the same ``ValidationError``, returns the same kwargs.

        Its JSON pre-parse only ever rewrites string values, so it is skipped when there are none (the
        common case: it rebuilds a field table on every call)."""
        for value in arguments.values():
            if isinstance(value, str):
                arguments = self.metadata.pre_parse_json(arguments)
                break
        model = self.validator.validate_python(arguments)  # what model_validate calls, minus its wrapper
        return {key: getattr(model, name) for name, key in self.kwarg_names}


class AppServer(MCPServer):
    """An ``MCPServer`` over one episode's state of one app."""

    def __init__(self, app: App, env: AppEnv) -> None:
        super().__init__(
            name=app.name,
            title=app.title,
            instructions=app.description or None,
            tools=app.sdk_tools,
            log_level="WARNING",
        )
        self.app = app
        self.env = env

    async def call_tool(
        self, name: str, arguments: dict[str, Any], context: Context[Any, Any] | None = None
    ) -> Any:
        """Validate with the tool's SDK argument model and run it on this server's env.

        The same checks, results and envelopes as the SDK's ``Tool.run`` through :func:`_wrap`, without
        its per-call layers (tool manager, kwargs merge, a coroutine per call, the ``Context`` lookup of
        the server): the tool is already known here, and so is the env.
        """
        app = self.app
        tool = app._tool_calls.get(name)
        if tool is None:
            failure = ToolFailure(f"Unknown tool: {name}", kind="not_found")
            return error_result(app.render(app.error_payload(name, failure)))
        if not tool.known.issuperset(arguments):
            violations = [FieldViolation(k, "extra", "Extra inputs are not permitted")
                          for k in sorted(set(arguments) - tool.known)]
            return error_result(app.render(app.validation_payload(name, violations)))
        try:
            kwargs = tool.validate(arguments)
        except ValidationError as exc:
            return error_result(app.render(app.validation_payload(name, violations_from(exc))))
        except Exception:  # a validator that crashed rather than rejected: reported by the SDK's path, as ever
            return await self._sdk_call_tool(name, arguments, context)
        if tool.is_async:
            return await _invoke_async(app, tool.spec, self.env, kwargs)
        return _invoke(app, tool.spec, self.env, kwargs)

    async def _sdk_call_tool(self, name: str, arguments: dict[str, Any], context: Context[Any, Any] | None) -> Any:
        """The call through the SDK's tool path (``MCPServer.call_tool``), with its rejections enveloped."""
        try:
            return await super().call_tool(name, arguments, context)
        except ToolError as exc:
            if isinstance(exc.__cause__, ValidationError):
                violations = violations_from(exc.__cause__)
                return error_result(self.app.render(self.app.validation_payload(name, violations)))
            raise
