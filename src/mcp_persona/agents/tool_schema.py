"""MCP tool definitions as the model sees them: OpenAI function specs with compact schemas.

What a model is sent for a tool is computed once per listed tool from the tool's MCP input schema; it
means the same and is never larger (the server still validates the full schema). :func:`compact_schema`:

1. drops what carries no meaning for a model: titles (pydantic's repeat the property name),
   ``default: null``, the ``anyOf [X, null]`` wrapper of an optional field, ``additionalProperties: true``
   (the default). Keywords only: a property named ``title`` or ``default`` stays;
2. inlines a ``$defs`` entry only where that cannot grow the schema: a definition used once, and not
   recursive. A definition used in several places (Notion's block content sits under ~12 block types)
   stays one ``$ref`` per use, with one shared ``$defs`` entry; inlining those multiplies them into
   megabytes. A recursive definition is always a reference.

Specs are built once per listed tool (the environment lists an app's tools once per process) and shared
by every episode.
"""

from __future__ import annotations

import json
import math
import weakref
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from mcp_persona.environment import PoolTool

Schema = dict[str, Any]

_DEFS = "$defs"
_PREFIX = "#/$defs/"
# Where a JSON Schema keyword holds subschemas: a map of names to schemas, one schema, or a list of them.
_MAPS = frozenset({"properties", "patternProperties", "dependentSchemas"})
_ONE = frozenset({"items", "additionalProperties", "additionalItems", "contains", "propertyNames", "not",
                  "if", "then", "else", "unevaluatedItems", "unevaluatedProperties"})
_MANY = frozenset({"anyOf", "oneOf", "allOf", "prefixItems", "items"})
# Characters per token for tool-definition JSON. OpenAI's ~4 is for English prose; schema JSON
# (quotes, braces, snake_case keys) splits finer, so 3 keeps the estimate on the safe side.
CHARS_PER_TOKEN = 3.0


def _sub(node: Schema, f: Callable[[Any, str, str | int | None], Any]) -> Schema:
    """``node`` with ``f(subschema, keyword, name or index)`` in place of each of its direct subschemas."""
    out: Schema = {}
    for k, v in node.items():
        if k in _MAPS and isinstance(v, dict):
            out[k] = {name: f(s, k, name) for name, s in v.items()}
        elif k in _ONE and isinstance(v, dict):
            out[k] = f(v, k, None)
        elif k in _MANY and isinstance(v, list):
            out[k] = [f(s, k, i) for i, s in enumerate(v)]
        else:
            out[k] = v
    return out


def _subschemas(node: Schema) -> Iterator[tuple[Any, str, str | int | None]]:
    found: list[tuple[Any, str, str | int | None]] = []
    _sub(node, lambda s, k, n: found.append((s, k, n)))
    return iter(found)


def _local(node: Any) -> str | None:
    """The ``$defs`` name a node references, if it is a local reference."""
    ref = node.get("$ref") if isinstance(node, dict) else None
    return ref[len(_PREFIX):] if isinstance(ref, str) and ref.startswith(_PREFIX) else None


def _refs(node: Any) -> Iterable[str]:
    """Names of the local ``$defs`` a schema node references, once per use (its own ``$defs`` aside)."""
    if not isinstance(node, dict):
        return
    name = _local(node)
    if name is not None:
        yield name
    for s, _, _ in _subschemas(node):
        yield from _refs(s)


def _plan(schema: Schema, defs: dict[str, Any]) -> tuple[list[str], set[str]]:
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


def _noise(key: str, value: Any) -> bool:
    return (key in ("title", _DEFS) or (key == "default" and value is None)
            or (key == "additionalProperties" and value is True))


def _strip(schema: Schema) -> Schema:
    """Steps 1 and 2: no noise, definitions used once inlined, unused ones dropped."""
    defs = schema.get(_DEFS) or {}
    order, inline = _plan(schema, defs)

    def walk(node: Any) -> Any:
        if not isinstance(node, dict):
            return node
        name = _local(node)
        if name is not None and name in inline:
            return walk({**defs[name], **{k: v for k, v in node.items() if k != "$ref"}})
        any_of = node.get("anyOf")
        if isinstance(any_of, list):
            non_null = [o for o in any_of if o != {"type": "null"}]
            if len(non_null) == 1 and len(non_null) < len(any_of):
                return walk({**non_null[0], **{k: v for k, v in node.items() if k != "anyOf"}})
        return _sub({k: v for k, v in node.items() if not _noise(k, v)}, lambda s, k, n: walk(s))

    out = walk(schema)
    kept = {name: walk(defs[name]) for name in order if name not in inline}
    if kept:
        out[_DEFS] = kept
    return out


def compact_schema(schema: Schema) -> Schema:
    """What a model is sent for an MCP input schema: the same meaning, never larger (see the module)."""
    return _strip(schema)


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
