"""MCP tool definitions as the model sees them: OpenAI function specs with compact schemas.

What a model is sent for a tool is computed once per listed tool from the tool's MCP input schema; it
means the same and is never larger (the server still validates the full schema). :func:`compact_schema`:

1. drops what carries no meaning for a model: titles (pydantic's repeat the property name),
   ``default: null``, the ``anyOf [X, null]`` wrapper of an optional field, ``additionalProperties: true``
   (the default). Keywords only: a property named ``title`` or ``default`` stays;
2. inlines a ``$defs`` entry only where that cannot grow the schema: a definition used once, and not
   recursive. A definition used in several places (Notion's block content sits under ~12 block types)
   stays one ``$ref`` per use, with one shared ``$defs`` entry; inlining those multiplies them into
   megabytes. A recursive definition is always a reference;
3. cuts a recursion the server unrolled into levels at its first repetition: an object nested in an
   object with the same fields and required fields (Notion's block children, and their children in
   turn: three levels of the same block) is sent as ``{"type": "object", "description": "<its own>
   Same fields as the `children` item it is nested in; at most 1 more level of nesting."}``. The model
   has the fields one level up and the depth limit in words; the server holds the exact limit;
4. sends a subschema repeated within one tool under one property name (Notion's 19-colour ``color``
   enum, under text and under blocks) once, as a ``$defs`` entry of that name, where that is shorter.

Specs are built once per listed tool (the environment lists an app's tools once per process) and shared
by every episode, each with its JSON as a request body carries it: a pool's definitions are the same in
every request of an episode, so a client splices that text in rather than encoding them on every turn.
"""

from __future__ import annotations

import json
import math
import re
import weakref
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from mcp_persona.environment import PoolTool
from mcp_persona.llm.base import wire_json

Schema = dict[str, Any]

_DEFS = "$defs"
_PREFIX = "#/$defs/"
# Where a JSON Schema keyword holds subschemas: a map of names to schemas, one schema, or a list of them.
_MAPS = frozenset({"properties", "patternProperties", "dependentSchemas"})
_ONE = frozenset({"items", "additionalProperties", "additionalItems", "contains", "propertyNames", "not",
                  "if", "then", "else", "unevaluatedItems", "unevaluatedProperties"})
_MANY = frozenset({"anyOf", "oneOf", "allOf", "prefixItems", "items"})
# An object with fewer properties is too generic a shape to call a repetition of an enclosing one.
MIN_SHAPE_FIELDS = 3
# Characters per token for tool-definition JSON. OpenAI's ~4 is for English prose; schema JSON
# (quotes, braces, snake_case keys) splits finer, so 3 keeps the estimate on the safe side.
CHARS_PER_TOKEN = 3.0


def _size(value: Any) -> int:
    return len(json.dumps(value, ensure_ascii=False, separators=(",", ":")))


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


# -- step 3: unrolled recursion -------------------------------------------------------------------------
Shape = tuple[tuple[str, ...], tuple[str, ...]]


def _shape(node: Any) -> Shape | None:
    """An object's property names and required names, if it has enough properties to be recognised."""
    props = node.get("properties") if isinstance(node, dict) else None
    if not isinstance(props, dict) or len(props) < MIN_SHAPE_FIELDS:
        return None
    required = node.get("required")
    return tuple(sorted(props)), tuple(sorted(required)) if isinstance(required, list) else ()


def _cut_repeats(schema: Schema) -> Schema:
    """Step 3 on a stripped schema: each object repeating an enclosing object's shape becomes a stub."""
    defs: dict[str, Any] = schema.get(_DEFS) or {}
    memo: dict[tuple[str, frozenset[str]], frozenset[Shape]] = {}

    def shapes(node: Any, seen: frozenset[str]) -> frozenset[Shape]:
        """The shapes of ``node`` and of every object within it, references followed."""
        if not isinstance(node, dict):
            return frozenset()
        name = _local(node)
        if name is not None and name in defs:
            if name in seen:
                return frozenset()
            if (name, seen) not in memo:
                memo[name, seen] = shapes(defs[name], seen | {name})
            return memo[name, seen]
        own = _shape(node)
        found = frozenset() if own is None else frozenset({own})
        return found.union(*(shapes(s, seen) for s, _, _ in _subschemas(node)))

    def depth(node: Any, shape: Shape, seen: frozenset[str]) -> int | None:
        """Further levels of ``shape`` below ``node`` (None if it recurses without end)."""
        best = 0
        for s, _, _ in _subschemas(node):
            ref = _local(s)
            if ref is not None and ref in defs:
                if ref in seen:
                    return None
                s, inner = defs[ref], seen | {ref}
            else:
                inner = seen
            below = depth(s, shape, inner)
            if below is None:
                return None
            best = max(best, below + (_shape(s) == shape))
        return best

    def stub(node: Schema, enclosing: str, shape: Shape) -> Schema:
        more = depth(node, shape, frozenset())
        limit = ("" if more is None else "; no further nesting" if more == 0
                 else f"; at most {more} more level{'s' * (more > 1)} of nesting")
        own = str(node.get("description", "")).strip()
        text = f"{own}{' ' if own else ''}Same fields as {enclosing} it is nested in{limit}."
        return {"type": "object", "description": text}

    Ancestor = tuple[Shape, str]
    out_defs: dict[str, Any] = {}
    variants: dict[tuple[str, tuple[Ancestor, ...]], str] = {}

    def walk(node: Any, ancestors: tuple[Ancestor, ...], label: str, prop: str, active: frozenset[str]) -> Any:
        """``node`` with repetitions cut; ``label`` names it for a stub below it, ``prop`` its nearest property."""
        if not isinstance(node, dict):
            return node
        name = _local(node)
        if name is not None and name in defs:
            if name in active:
                return node  # a recursion: stays a reference
            body = defs[name]
            # One variant per context that can change the walk: the enclosing shapes met inside. The
            # definition's own object is named by the definition, the same from wherever it is used.
            context = tuple(a for a in ancestors if a[0] in shapes(body, frozenset({name})))
            key = (name, context)
            if key not in variants:
                new, n = name, 1
                while new in out_defs:
                    n += 1
                    new = f"{name}_{n}"
                variants[key] = new
                out_defs[new] = None  # reserved: the walk below may meet other definitions
                out_defs[new] = walk(body, context, f"the `{_PREFIX}{new}` object", "", active | {name})
            return {**node, "$ref": _PREFIX + variants[key]}
        shape = _shape(node)
        if shape is not None:
            enclosing = next((lbl for s, lbl in reversed(ancestors) if s == shape), None)
            if enclosing is not None:
                return stub(node, enclosing, shape)
            ancestors = (*ancestors, (shape, label))

        def child(s: Any, keyword: str, key: str | int | None) -> Any:
            if keyword == "properties":
                return walk(s, ancestors, f"the `{key}` object", str(key), active)
            if keyword == "items":
                return walk(s, ancestors, f"the `{prop}` item" if prop else "the item", prop, active)
            if keyword == "additionalProperties":
                return walk(s, ancestors, f"the `{prop}` value" if prop else "the value", prop, active)
            return walk(s, ancestors, label, prop, active)

        return _sub(node, child)

    out = walk({k: v for k, v in schema.items() if k != _DEFS}, (), "the arguments", "", frozenset())
    if out_defs:
        out[_DEFS] = out_defs
    return out


# -- step 4: repeated subschemas --------------------------------------------------------------------------
def _canon(node: Any) -> str:
    return json.dumps(node, sort_keys=True, ensure_ascii=False)


def _occurrences(node: Schema, holder: str, found: dict[str, list[str]]) -> None:
    """Each subschema below ``node`` that is no reference, by its canonical text, with the property holding it."""
    for s, keyword, key in _subschemas(node):
        if not isinstance(s, dict):
            continue
        held = str(key) if keyword == "properties" else holder
        if _local(s) is None:
            found.setdefault(_canon(s), []).append(held)
        _occurrences(s, held, found)


def _replace(node: Schema, text: str, ref: Schema) -> Schema:
    """``node`` with ``ref`` in place of each subschema below it whose canonical text is ``text``."""
    return _sub(node, lambda s, k, n: s if not isinstance(s, dict) else ref if _canon(s) == text
                else _replace(s, text, ref))


def _share_repeats(schema: Schema) -> Schema:
    """Step 4: a subschema repeated within the schema becomes one ``$defs`` entry, where that is shorter."""
    out = schema
    while True:
        defs: dict[str, Any] = out.get(_DEFS) or {}
        root = {k: v for k, v in out.items() if k != _DEFS}
        found: dict[str, list[str]] = {}
        _occurrences(root, "", found)
        for def_name, body in defs.items():
            _occurrences(body, def_name, found)
        best: tuple[int, str, str] | None = None
        for text, holders in found.items():
            # Shared only under one property name, which names the entry: a model reading
            # "target": {"$ref": "#/$defs/base"} would take one argument for the other.
            if len(holders) < 2 or len(set(holders)) > 1 or not holders[0]:
                continue
            base = re.sub(r"\W", "_", holders[0], flags=re.ASCII)
            name, n = base, 1
            while name in defs:
                n += 1
                name = f"{base}_{n}"
            size = len(json.dumps(json.loads(text), ensure_ascii=False, separators=(",", ":")))
            saving = len(holders) * (size - _size({"$ref": _PREFIX + name})) - _size({name: 0}) - size + 2
            if saving > 0 and (best is None or saving > best[0]):
                best = (saving, text, name)
        if best is None:
            return out
        _, text, name = best
        ref = {"$ref": _PREFIX + name}
        out = {**_replace(root, text, ref),
               _DEFS: {**{k: _replace(v, text, ref) for k, v in defs.items()}, name: json.loads(text)}}


def compact_schema(schema: Schema) -> Schema:
    """What a model is sent for an MCP input schema: the same meaning, never larger (see the module)."""
    out = _strip(schema)
    cut = _strip(_cut_repeats(out))
    if _size(cut) < _size(out):
        out = cut
    shared = _share_repeats(out)
    return shared if _size(shared) < _size(out) else out


def function_spec(tool: PoolTool) -> dict[str, Any]:
    """The OpenAI function spec of one tool, built on first use and kept as long as the tool is. Shared:
    never mutate it."""
    return _spec(tool)[0]


def _spec(tool: PoolTool) -> tuple[dict[str, Any], str]:
    entry = _SPECS.get(tool)
    if entry is None:
        spec = {
            "type": "function",
            "function": {"name": tool.exposed, "description": tool.description,
                         "parameters": compact_schema(tool.input_schema)},
        }
        entry = _SPECS[tool] = (spec, wire_json(spec))
    return entry


_SPECS: weakref.WeakKeyDictionary[PoolTool, tuple[dict[str, Any], str]] = weakref.WeakKeyDictionary()


class ToolSpecs(tuple[dict[str, Any], ...]):
    """A pool's function specs, immutable, with ``json``: the list as a request body carries it (the
    same text as ``wire_json(list(specs))``)."""

    json: str

    def __new__(cls, specs: Iterable[dict[str, Any]], json_text: str) -> ToolSpecs:
        self = super().__new__(cls, specs)
        self.json = json_text
        return self


def openai_tools(pool: Iterable[PoolTool]) -> ToolSpecs:
    entries = [_spec(t) for t in pool]
    return ToolSpecs((spec for spec, _ in entries), "[" + ",".join(text for _, text in entries) + "]")


def spec_chars(specs: Iterable[dict[str, Any]]) -> int:
    """Characters of the tool definitions as a request body carries them (compact JSON)."""
    if isinstance(specs, ToolSpecs):
        return len(specs.json)
    return len(wire_json(list(specs)))


def estimate_tokens(chars: int) -> int:
    return math.ceil(chars / CHARS_PER_TOKEN)
