"""Build a tool's arguments from its input schema and a filler.

The builder walks the schema; every leaf goes to the filler, which returns a value or
:data:`MISSING`. A required leaf the filler leaves open gets its default, an enum choice, ``False``
or the minimum number; a required free string left open makes the call unbuildable
(:class:`Unfillable`). Optional objects and arrays are kept only when the filler put something real
in them. Enum choices are made last, guided by *hints* (the field names the values came from:
a ``chat_id`` value picks ``receive_id_type = "chat_id"``, ``container_id_type = "chat"``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from mcp_persona.persona_gen.fields import leaf_links, resolve


class _Missing:
    def __repr__(self) -> str:
        return "MISSING"


MISSING: Any = _Missing()


class Unfillable(ValueError):
    """A required argument no value could be found for."""


@dataclass(frozen=True)
class Leaf:
    path: str  # dotted, "[]" after arrays
    name: str  # the leaf key
    links: tuple[str, ...]
    node: dict[str, Any]  # the resolved schema of the leaf
    required: bool

    @property
    def description(self) -> str:
        return str(self.node.get("description") or "")


Filler = Callable[[Leaf], Any]


@dataclass
class _Enum:
    leaf: Leaf


def build_arguments(schema: dict[str, Any], *, tool: str, fill: Filler, hints: Iterable[str] = ()) -> dict[str, Any]:
    """Arguments for one call; raises :class:`Unfillable` naming the first required leaf left open.
    ``hints`` may grow while the filler runs (pass a list the filler appends to)."""
    defs = schema.get("$defs", {})

    def build(node: dict[str, Any], path: list[str], required: bool) -> tuple[Any, bool]:
        node = resolve(node, defs)
        if node.get("type") == "object" or "properties" in node:
            req = set(node.get("required", []))
            out: dict[str, Any] = {}
            real = False
            for key, sub in node.get("properties", {}).items():
                value, sub_real = build(sub, [*path, key], required and key in req)
                if value is not MISSING:
                    out[key] = value
                    real = real or sub_real
            if required or real:
                return out, real
            return MISSING, False
        if node.get("type") == "array" and isinstance(node.get("items"), dict):
            base = [*path[:-1], path[-1] + "[]"] if path else ["[]"]
            value, real = build(node["items"], base, required)
            if value is MISSING:
                if required and node.get("minItems", 0) == 0:
                    return [], False
                return (MISSING, False) if not required else _fail(path)
            return (list(value) if isinstance(value, tuple) else [value]), real
        segs = [p.removesuffix("[]") for p in path]
        leaf = Leaf(".".join(path), segs[-1] if segs else "", leaf_links(segs, tool=tool), node, required)
        value = fill(leaf)
        if value is not MISSING:
            return value, True
        if not required:
            return MISSING, False
        if "enum" in node or "const" in node:
            return _Enum(leaf), False
        if node.get("default") is not None:
            return node["default"], False
        kind = node.get("type")
        if kind == "boolean":
            return False, False
        if kind in ("integer", "number"):
            return node.get("minimum", 1), False
        return _fail(path)

    args, _ = build(schema, [], True)
    hint_list = list(hints)
    return _settle(args, hint_list) if isinstance(args, dict) else {}


def _fail(path: list[str]) -> tuple[Any, bool]:
    raise Unfillable(".".join(path) or "(arguments)")


def _settle(value: Any, hints: list[str]) -> Any:
    if isinstance(value, _Enum):
        return choose_enum(value.leaf.node, hints)
    if isinstance(value, dict):
        return {k: _settle(v, hints) for k, v in value.items()}
    if isinstance(value, list):
        return [_settle(v, hints) for v in value]
    return value


def choose_enum(node: dict[str, Any], hints: list[str]) -> Any:
    options = list(node.get("enum") or [node.get("const")])
    for hint in hints:
        for opt in options:
            if isinstance(opt, str) and (opt == hint or hint.startswith(opt + "_")):
                return opt
    default = node.get("default")
    return default if default in options else options[0]
