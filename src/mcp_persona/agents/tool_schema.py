"""MCP tool definitions as the model sees them: OpenAI function specs with compact schemas.

Pydantic's schemas carry titles, ``default: null`` and ``anyOf [X, null]`` for optional
fields: noise to a model, and tokens on every request. :func:`compact_schema` drops them
and inlines a ``$defs`` entry only where that cannot grow the schema: a definition used
once, and not recursive. A definition used in several places (Notion's block content sits
under ~20 block types at three nesting levels) stays one ``$ref`` per use, with one shared
``$defs`` entry; inlining those multiplies them into megabytes. A recursive definition is
always a reference, so no depth cut is needed and nothing is lost. The result is never
larger than the schema it comes from, and it means the same: the server still validates
the full schema.

Specs are built once per listed tool (the environment lists an app's tools once per
process) and shared by every episode.
"""

from __future__ import annotations

import json
import math
import weakref
from collections.abc import Iterable
from typing import Any

from mcp_persona.environment import PoolTool

_DEFS = "$defs"
_PREFIX = "#/$defs/"
# Characters per token for tool-definition JSON. OpenAI's ~4 is for English prose; schema JSON
# (quotes, braces, snake_case keys) splits finer, so 3 keeps the estimate on the safe side.
CHARS_PER_TOKEN = 3.0


def _refs(node: Any) -> Iterable[str]:
    """Names of the local ``$defs`` a schema node references, once per use."""
    if isinstance(node, list):
        for n in node:
            yield from _refs(n)
    elif isinstance(node, dict):
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith(_PREFIX):
            yield ref[len(_PREFIX):]
        for k, v in node.items():
            if k != _DEFS:
                yield from _refs(v)


def _plan(schema: dict[str, Any], defs: dict[str, Any]) -> tuple[list[str], set[str]]:
    """The definitions reachable from the root (in first-use order) and the ones to inline."""
    uses: dict[str, int] = {}
    edges: dict[str, list[str]] = {}
    order: list[str] = []
    todo = [r for r in _refs(schema) if r in defs]
    for name in todo:
        uses[name] = uses.get(name, 0) + 1
    seen: set[str] = set()
    while todo:
        name = todo.pop(0)
        if name in seen:
            continue
        seen.add(name)
        order.append(name)
        edges[name] = [r for r in _refs(defs[name]) if r in defs]
        for r in edges[name]:
            uses[r] = uses.get(r, 0) + 1
        todo.extend(edges[name])

    def recursive(start: str) -> bool:
        stack, visited = list(edges.get(start, [])), set()
        while stack:
            n = stack.pop()
            if n == start:
                return True
            if n not in visited:
                visited.add(n)
                stack.extend(edges.get(n, []))
        return False

    return order, {n for n in order if uses[n] == 1 and not recursive(n)}


def compact_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """``schema`` without titles, null defaults and nullable wrappers; definitions used once inlined."""
    defs = schema.get(_DEFS) or {}
    order, inline = _plan(schema, defs)

    def walk(node: Any) -> Any:
        if isinstance(node, list):
            return [walk(n) for n in node]
        if not isinstance(node, dict):
            return node
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith(_PREFIX) and ref[len(_PREFIX):] in inline:
            rest = {k: v for k, v in node.items() if k != "$ref"}
            return walk({**defs[ref[len(_PREFIX):]], **rest})
        any_of = node.get("anyOf")
        if isinstance(any_of, list):
            non_null = [o for o in any_of if o != {"type": "null"}]
            if len(non_null) == 1 and len(non_null) < len(any_of):
                rest = {k: v for k, v in node.items() if k != "anyOf"}
                return walk({**non_null[0], **rest})
        return {k: walk(v) for k, v in node.items()
                if k != "title" and k != _DEFS and not (k == "default" and v is None)}

    out = walk(schema)
    kept = {name: walk(defs[name]) for name in order if name not in inline}
    if kept:
        out[_DEFS] = kept
    return out


def function_spec(tool: PoolTool) -> dict[str, Any]:
    """The OpenAI function spec of one tool, built on first use and kept as long as the tool is."""
    spec = _SPECS.get(tool)
    if spec is None:
        spec = _SPECS[tool] = {
            "type": "function",
            "function": {"name": tool.exposed, "description": tool.description,
                         "parameters": compact_schema(tool.input_schema)},
        }
    return spec


_SPECS: weakref.WeakKeyDictionary[PoolTool, dict[str, Any]] = weakref.WeakKeyDictionary()


def openai_tools(pool: list[PoolTool]) -> list[dict[str, Any]]:
    return [function_spec(t) for t in pool]


def spec_chars(specs: list[dict[str, Any]]) -> int:
    """Characters of the tool definitions as a request body carries them (compact JSON)."""
    return len(json.dumps(specs, ensure_ascii=False, separators=(",", ":")))


def estimate_tokens(chars: int) -> int:
    return math.ceil(chars / CHARS_PER_TOKEN)
