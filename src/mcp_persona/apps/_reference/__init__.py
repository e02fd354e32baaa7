"""Shared machinery of the replicas of the reference MCP servers (TypeScript SDK + zod).

The servers in ``modelcontextprotocol/servers`` (memory, filesystem) are written with the
TypeScript SDK's ``McpServer`` and zod input shapes. What an agent sees from them, and what
the replicas here reproduce:

* the input schema published by ``tools/list`` (copied verbatim into :class:`ReferenceApp`);
* argument validation by zod, reported as one error result
  ``MCP error -32602: Input validation error: Invalid arguments for tool <t>: <issues>``, one
  issue a line, ``<message> at <path>`` with paths such as ``entities[0].name`` (see :func:`zod_issues`);
* unknown keys, at the top level or nested, silently stripped (zod's default ``z.object``);
* an error thrown by the tool body returned as its bare message, ``isError: true``;
* success as the tool's text content, verbatim.

One deliberate difference is kept by default: the project's servers reject unknown top-level
arguments (a project-wide invariant that ``tests/test_fuzz_tools.py`` checks on every app), so
:meth:`ReferenceApp.server` is strict unless ``replica=True`` is passed; then unknown top-level
keys are dropped as the real server drops them. The fidelity replay uses the replica mode and
says so in its report.
"""

from __future__ import annotations

import json
import math
from functools import cached_property
from typing import Any

from mcp.server.mcpserver import Context
from mcp.server.mcpserver.tools import Tool
from pydantic import BeforeValidator, Field
from pydantic_core import PydanticCustomError

from mcp_persona.apps.base import App, AppEnv, AppServer, FieldViolation, ToolFailure, compact_json, error_result

INVALID_PARAMS = -32602


class _Unset:
    """An argument the caller left out (zod's ``undefined``), distinct from an explicit ``null``."""

    _instance: _Unset | None = None

    def __new__(cls) -> _Unset:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "UNSET"

    def __bool__(self) -> bool:
        return False


UNSET: Any = _Unset()


# -- zod-style validation --------------------------------------------------------------------------
def received(value: Any) -> str:
    """zod's name for the JSON type of ``value``."""
    if value is UNSET:
        return "undefined"
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "NaN" if isinstance(value, float) and math.isnan(value) else "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "object"
    return type(value).__name__


def dot_path(path: list[str | int]) -> str:
    """The TypeScript SDK's ``getDotPath``: ``entities[0].name``."""
    out = ""
    for i, seg in enumerate(path):
        if i == 0:
            out = str(seg)
        elif isinstance(seg, int):
            out += f"[{seg}]"
        else:
            out += f".{seg}"
    return out


def zod_issues(schema: dict[str, Any], value: Any, path: list[str | int]) -> list[tuple[str, list[str | int]]]:
    """zod's issues for ``value`` under the JSON-schema rendering of a zod type: (message, path) pairs.

    Covers what the reference servers use: string, number, boolean, array (items, minItems),
    object (properties, required; unknown keys ignored), enum, default (an absent value takes it).
    """
    if value is UNSET and "default" in schema:
        return []
    expected = schema.get("type")
    if "enum" in schema:
        if not isinstance(value, str) or value not in schema["enum"]:
            options = "|".join(json.dumps(v) for v in schema["enum"])
            return [(f"Invalid option: expected one of {options}", path)]
        return []
    kind = received(value)
    if expected == "number" and kind != "number":
        return [(f"Invalid input: expected number, received {kind}", path)]
    if expected == "string" and kind != "string":
        return [(f"Invalid input: expected string, received {kind}", path)]
    if expected == "boolean" and kind != "boolean":
        return [(f"Invalid input: expected boolean, received {kind}", path)]
    if expected == "array":
        if kind != "array":
            return [(f"Invalid input: expected array, received {kind}", path)]
        issues: list[tuple[str, list[str | int]]] = []
        item_schema = schema.get("items", {})
        for i, item in enumerate(value):
            issues += zod_issues(item_schema, item, [*path, i])
        if "minItems" in schema and len(value) < schema["minItems"]:
            issues.append((f"Too small: expected array to have >={schema['minItems']} items", path))
        return issues
    if expected == "object":
        if kind != "object":
            return [(f"Invalid input: expected object, received {kind}", path)]
        issues = []
        for key, sub in schema.get("properties", {}).items():
            sub_value = value.get(key, UNSET)
            if sub_value is UNSET and key not in schema.get("required", []):
                continue
            issues += zod_issues(sub, sub_value, [*path, key])
        return issues
    return []


def format_issues(issues: list[tuple[str, list[str | int]]]) -> str:
    return "\n".join(msg if not p else f"{msg} at {dot_path(p)}" for msg, p in issues)


def validation_text(tool: str, issues_text: str) -> str:
    return f"MCP error {INVALID_PARAMS}: Input validation error: Invalid arguments for tool {tool}: {issues_text}"


def zod_arg(schema: dict[str, Any], name: str) -> BeforeValidator:
    """A pydantic validator that checks one top-level argument the way zod does, with zod's messages."""

    def check(value: Any) -> Any:
        issues = zod_issues(schema, value, [name])
        if issues:
            raise PydanticCustomError("zod", "{issues}", {"issues": format_issues(issues)})
        return value

    return BeforeValidator(check)


def optional() -> Any:
    """The default of an optional argument: :data:`UNSET`, so that ``null`` stays distinguishable."""
    return Field(default_factory=lambda: UNSET)


def pick(obj: dict[str, Any], keys: tuple[str, ...]) -> dict[str, Any]:
    """zod's parsed copy of an object: the declared keys, in declaration order, unknown ones dropped."""
    return {k: obj[k] for k in keys if k in obj}


def js_json(value: Any) -> str:
    """``JSON.stringify(value)``: compact, where the real server indents (``JSON.stringify(value, null, 2)``)."""
    return compact_json(value)


# -- the app and its server ------------------------------------------------------------------------
class ReferenceApp(App):
    """An app whose tools, schemas and texts replicate a reference TypeScript MCP server.

    ``tool_specs`` maps each tool name to its published ``tools/list`` entry (title, description,
    inputSchema, annotations); the SDK tools built from the Python functions are patched to publish
    exactly that, so the simulator's ``tools/list`` matches the real one.
    """

    def __init__(self, name: str, *, tool_specs: dict[str, dict[str, Any]], **kwargs: Any) -> None:
        super().__init__(name, **kwargs)
        self.tool_specs = tool_specs

    def arg(self, tool: str, name: str) -> BeforeValidator:
        return zod_arg(self.tool_specs[tool]["inputSchema"]["properties"][name], name)

    @cached_property
    def sdk_tools(self) -> list[Tool]:  # type: ignore[override]
        built = App.sdk_tools.func(self)  # type: ignore[attr-defined]
        out = []
        for tool in built:
            spec = self.tool_specs.get(tool.name)
            if spec is None:
                out.append(tool)
                continue
            update: dict[str, Any] = {"parameters": spec["inputSchema"], "description": spec.get("description", "")}
            if spec.get("title"):
                update["title"] = spec["title"]
            out.append(tool.model_copy(update=update))
        return out

    def server(self, env: AppEnv, *, replica: bool = False) -> AppServer:  # type: ignore[override]
        return ReferenceServer(self, env, replica=replica)

    # -- envelopes ---------------------------------------------------------------------------------
    def success_payload(self, tool: str, result: Any) -> Any:
        return result if isinstance(result, str) else js_json(result)

    def error_payload(self, tool: str, failure: ToolFailure) -> Any:
        if tool not in self._specs:
            return f"MCP error {INVALID_PARAMS}: Tool {tool} not found"
        return failure.message

    def validation_payload(self, tool: str, violations: list[FieldViolation]) -> Any:
        props = self.tool_specs.get(tool, {}).get("inputSchema", {}).get("properties", {})
        lines: list[str] = []
        extra = [v.field for v in violations if v.kind == "extra"]
        for v in violations:
            if v.kind == "extra":
                continue
            if v.kind == "missing":
                lines.append(format_issues(zod_issues(props.get(v.field, {}), UNSET, [v.field])) or
                             f"Invalid input: expected value, received undefined at {v.field}")
            else:
                lines.append(v.message)
        if extra:  # what zod says for a strict object; the real (non-strict) server strips them instead
            keys = ", ".join(json.dumps(k) for k in extra)
            lines.append(f"Unrecognized key{'s' if len(extra) > 1 else ''}: {keys}")
        return validation_text(tool, "\n".join(lines))


class ReferenceServer(AppServer):
    """The app's server; ``replica=True`` drops unknown top-level arguments as zod does."""

    def __init__(self, app: ReferenceApp, env: AppEnv, *, replica: bool = False) -> None:
        super().__init__(app, env)
        self.replica = replica

    async def call_tool(
        self, name: str, arguments: dict[str, Any], context: Context[Any, Any] | None = None
    ) -> Any:
        tool = self.app._tool_calls.get(name)
        if tool is None:
            return error_result(f"MCP error {INVALID_PARAMS}: Tool {name} not found")
        if self.replica:
            arguments = {k: v for k, v in (arguments or {}).items() if k in tool.known}
        return await super().call_tool(name, arguments or {}, context)


__all__ = [
    "INVALID_PARAMS",
    "UNSET",
    "ReferenceApp",
    "ReferenceServer",
    "dot_path",
    "format_issues",
    "js_json",
    "optional",
    "pick",
    "received",
    "validation_text",
    "zod_arg",
    "zod_issues",
]
