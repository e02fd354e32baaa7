"""Adversarial calls derived from a valid seed call and the tool's input schema.

The four error classes of the paper (§3.1.1), each by fixed rules, so that the same seed, schema
and fixture always give the same calls in the same order (no randomness at all):

* ``type_mismatch``: a value of another JSON type at a top-level argument, ``null`` there, and a
  wrong type inside the first item of an array;
* ``schema_violation``: a required argument left out (top level, and inside the first item of an
  array of objects), and an unknown key added (top level and inside the first item);
* ``boundary``: empty arrays, the empty string, an oversized string (300 characters: past a
  file name's 255 bytes), negative / zero / huge / fractional numbers, a value
  outside an enum;
* ``semantic_conflict``: valid types with dangling or contradictory values: an unknown entity name
  or a path under a directory that does not exist (which covers deleting what does not exist and
  relations to missing entities), paths outside the allowed directory (absolute and via ``..``),
  a file where a directory is expected and the reverse, a new name or path that already exists,
  two sibling references made equal (``source == destination``, ``from == to``), and every
  optional number given at once (``head`` with ``tail``).

What counts as an entity reference or a path is read from the argument's name; which values exist
comes from the probe's fixture (:meth:`~mcp_persona.traverse.state.StateAdapter.known`).

:class:`ModelPerturber` is the optional hook for model-written calls (Self-FC style), through any
:class:`~mcp_persona.llm.base.ChatClient`; its output is parsed strictly and tagged ``rule="model"``.
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from mcp_persona.context_tree import canonical_json
from mcp_persona.llm.base import ChatClient
from mcp_persona.traverse.models import ERROR_CLASSES, ErrorClass
from mcp_persona.traverse.state import Known

Path_ = tuple[str | int, ...]
OVERSIZE = 300
UNKNOWN_NAME = "Nonexistent Entity"
EXTRA_KEY = "unexpectedField"
_NAMELIKE = {"name", "names", "from", "to", "id", "ids", "target"}
_PATHLIKE = {"source", "destination"}


@dataclass(frozen=True)
class Perturbation:
    arguments: dict[str, Any]
    error_class: ErrorClass
    rule: str
    description: str


# -- schema / argument helpers ---------------------------------------------------------------------
def _type(schema: dict[str, Any]) -> str:
    if "enum" in schema:
        return "enum"
    t = schema.get("type", "any")
    return t if isinstance(t, str) else "any"


def wrong_value(schema: dict[str, Any]) -> Any:
    """A value of a JSON type the schema does not accept (never a JSON-looking string)."""
    return {"string": 42, "number": "ten", "integer": "ten", "boolean": "yes", "array": "not-a-list",
            "object": "not-an-object", "enum": 7}.get(_type(schema))


def _set(args: dict[str, Any], path: Path_, value: Any) -> dict[str, Any]:
    out = copy.deepcopy(args)
    cur: Any = out
    for step in path[:-1]:
        cur = cur[step]
    cur[path[-1]] = value
    return out


def _drop(args: dict[str, Any], path: Path_) -> dict[str, Any]:
    out = copy.deepcopy(args)
    cur: Any = out
    for step in path[:-1]:
        cur = cur[step]
    del cur[path[-1]]
    return out


def _get(args: Any, path: Path_) -> Any:
    cur = args
    for step in path:
        cur = cur[step]
    return cur


def show(path: Path_) -> str:
    out = ""
    for i, seg in enumerate(path):
        out += f"[{seg}]" if isinstance(seg, int) else (str(seg) if i == 0 else f".{seg}")
    return out


def is_pathlike(field: str) -> bool:
    return "path" in field.lower() or field in _PATHLIKE


def is_namelike(field: str) -> bool:
    low = field.lower()
    return field in _NAMELIKE or low.endswith(("name", "names", "id", "ids"))


def _leaves(schema: dict[str, Any], value: Any, path: Path_, field: str) -> Iterator[tuple[Path_, dict[str, Any], str]]:
    """(path, schema, field name) of every scalar in ``value``; arrays contribute their first item only."""
    t = _type(schema)
    if t == "object" and isinstance(value, dict):
        for key, sub in schema.get("properties", {}).items():
            if key in value:
                yield from _leaves(sub, value[key], (*path, key), key)
    elif t == "array" and isinstance(value, list):
        if value:
            yield from _leaves(schema.get("items", {}), value[0], (*path, 0), field)
    else:
        yield path, schema, field


def _first_item_object(schema: dict[str, Any], args: dict[str, Any]) -> tuple[Path_, dict[str, Any]] | None:
    """The first item of the first array-of-objects argument: (its path, its schema)."""
    for key, sub in schema.get("properties", {}).items():
        if _type(sub) == "array" and _type(sub.get("items", {})) == "object":
            value = args.get(key)
            if isinstance(value, list) and value and isinstance(value[0], dict):
                return (key, 0), sub["items"]
    return None


# -- the rules ---------------------------------------------------------------------------------------
def _type_mismatch(schema: dict[str, Any], args: dict[str, Any]) -> Iterator[tuple[dict[str, Any], str, str]]:
    props = schema.get("properties", {})
    present = [k for k in props if k in args]
    required = [k for k in present if k in schema.get("required", [])]
    first = (required or present or [None])[0]
    if first is not None:
        yield _set(args, (first,), wrong_value(props[first])), f"type:top:{first}", \
            f"{first} given a {type(wrong_value(props[first])).__name__} instead of {_type(props[first])}"
        yield _set(args, (first,), None), f"type:null:{first}", f"{first} given null"
    for key in present:
        if key != first and key not in schema.get("required", []):
            yield _set(args, (key,), wrong_value(props[key])), f"type:top:{key}", \
                f"optional {key} given a wrong type"
            break
    for key in present:
        sub = props[key]
        if _type(sub) == "array" and isinstance(args[key], list) and args[key]:
            for path, leaf, _field in _leaves(sub, args[key], (key,), key):
                yield _set(args, path, wrong_value(leaf)), f"type:nested:{show(path)}", \
                    f"{show(path)} given a wrong type"
                break
            break


def _schema_violation(schema: dict[str, Any], args: dict[str, Any]) -> Iterator[tuple[dict[str, Any], str, str]]:
    for key in schema.get("required", [])[:3]:
        if key in args:
            yield _drop(args, (key,)), f"missing:{key}", f"required {key} left out"
    item = _first_item_object(schema, args)
    if item is not None:
        path, item_schema = item
        for key in item_schema.get("required", []):
            if key in _get(args, path):
                yield _drop(args, (*path, key)), f"missing:nested:{show((*path, key))}", \
                    f"required {show((*path, key))} left out"
                break
    yield {**copy.deepcopy(args), EXTRA_KEY: "surprise"}, "extra:top", f"unknown argument {EXTRA_KEY} added"
    if item is not None:
        path, _ = item
        yield _set(args, (*path, EXTRA_KEY), "surprise"), "extra:nested", f"unknown key added to {show(path)}"


def _boundary(schema: dict[str, Any], args: dict[str, Any]) -> Iterator[tuple[dict[str, Any], str, str]]:
    props = schema.get("properties", {})
    for key in props:
        if key in args and _type(props[key]) == "array" and args[key]:
            yield _set(args, (key,), []), f"empty-array:{key}", f"{key} empty"
    strings = [(p, f) for p, s, f in _leaves(schema, args, (), "") if _type(s) == "string" and p]
    if strings:
        path, _ = strings[0]
        yield _set(args, path, ""), f"empty-string:{show(path)}", f"{show(path)} empty"
        yield _set(args, path, "x" * OVERSIZE), f"oversized-string:{show(path)}", \
            f"{show(path)} of {OVERSIZE} characters"
    for key, sub in props.items():
        if key in args and _type(sub) in ("number", "integer"):
            for value, tag in ((-1, "negative"), (0, "zero"), (1_000_000_000, "huge"), (1.5, "fraction")):
                yield _set(args, (key,), value), f"number:{tag}:{key}", f"{key} = {value}"
        if key in args and _type(sub) == "enum":
            yield _set(args, (key,), "not-an-option"), f"enum:{key}", f"{key} outside {sub['enum']}"


def _dangling_path(value: str) -> str:
    head, _, tail = value.rstrip("/").rpartition("/")
    return f"{head}/missing-dir/{tail or 'missing'}" if head else f"missing-dir/{tail or 'missing'}"


def _semantic(schema: dict[str, Any], args: dict[str, Any], known: Known) -> Iterator[tuple[dict[str, Any], str, str]]:
    refs = [(p, f) for p, s, f in _leaves(schema, args, (), "")
            if _type(s) == "string" and p and isinstance(_get(args, p), str) and (is_pathlike(f) or is_namelike(f))]
    root = (known.get("root") or [""])[0]
    files, dirs, names = known.get("file", []), known.get("dir", []), known.get("name", [])
    for path, field in refs[:3]:
        value = _get(args, path)
        where = show(path)
        if is_pathlike(field):
            yield _set(args, path, _dangling_path(value)), f"dangling:{where}", f"{where} under a missing directory"
            base = value.rstrip("/").rpartition("/")[2] or "outside"
            yield _set(args, path, f"/etc/{base}"), f"outside:absolute:{where}", f"{where} outside the allowed dir"
            escaped = f"{root}/../{base}" if root else f"../../{base}"
            yield _set(args, path, escaped), f"outside:traversal:{where}", f"{where} escapes with .."
            if value in files:
                other = next((d for d in dirs if d != root), dirs[0] if dirs else None)
                if other is not None:
                    yield _set(args, path, other), f"kind-swap:{where}", f"{where} names a directory, not a file"
            elif value in dirs:
                if files:
                    yield _set(args, path, files[0]), f"kind-swap:{where}", f"{where} names a file, not a directory"
            elif files:
                yield _set(args, path, files[0]), f"collision:{where}", f"{where} already exists"
        else:
            yield _set(args, path, UNKNOWN_NAME), f"dangling:{where}", f"{where} names no entity"
            if names and value not in names:
                yield _set(args, path, names[0]), f"collision:{where}", f"{where} already exists"
    # two sibling references made equal
    by_parent: dict[Path_, list[Path_]] = {}
    for path, _field in refs:
        by_parent.setdefault(path[:-1], []).append(path)
    for siblings in by_parent.values():
        if len(siblings) >= 2 and isinstance(siblings[0][-1], str) and isinstance(siblings[1][-1], str):
            a, b = siblings[0], siblings[1]
            if _get(args, a) != _get(args, b):
                yield _set(args, b, _get(args, a)), f"same-value:{show(b)}={show(a)}", f"{show(b)} equals {show(a)}"
            break
    # every optional number at once
    props = schema.get("properties", {})
    numbers = [k for k, s in props.items() if _type(s) in ("number", "integer") and k not in schema.get("required", [])]
    if len(numbers) >= 2:
        out = copy.deepcopy(args)
        for k in numbers:
            out[k] = 1
        yield out, "all-optional-numbers", f"{' and '.join(numbers)} given together"


def perturb(schema: dict[str, Any], arguments: dict[str, Any], *, known: Known | None = None) -> list[Perturbation]:
    """The adversarial calls for one seed, in a fixed order, without duplicates or the seed itself."""
    seen = {canonical_json(arguments)}
    out: list[Perturbation] = []
    makers: list[tuple[ErrorClass, Iterator[tuple[dict[str, Any], str, str]]]] = [
        ("type_mismatch", _type_mismatch(schema, arguments)),
        ("schema_violation", _schema_violation(schema, arguments)),
        ("boundary", _boundary(schema, arguments)),
        ("semantic_conflict", _semantic(schema, arguments, known or {})),
    ]
    for cls, gen in makers:
        for args, rule, desc in gen:
            key = canonical_json(args)
            if key in seen:
                continue
            seen.add(key)
            out.append(Perturbation(args, cls, rule, desc))
    return out


# -- the optional model hook ---------------------------------------------------------------------------
MODEL_SYSTEM = (
    "You write adversarial calls for an MCP tool, to map how the real server rejects bad input. Given the "
    "tool's schema and one valid call, answer with a JSON array and nothing else; each item is "
    '{"error_class": "type_mismatch" | "schema_violation" | "boundary" | "semantic_conflict", '
    '"arguments": {...}, "rationale": "<one sentence>"}. type_mismatch breaks a primitive type; '
    "schema_violation omits a required field or adds an unknown one; boundary uses empty, oversized or "
    "out-of-range values; semantic_conflict keeps every type valid but makes the values contradictory or "
    "dangling (unknown names, deleting what does not exist, references to missing entities, paths outside "
    "the allowed directory)."
)


class ModelPerturber:
    """Model-written adversarial calls (strictly parsed; malformed items are dropped and counted)."""

    def __init__(self, client: ChatClient, *, per_seed: int = 4) -> None:
        self.client = client
        self.per_seed = per_seed
        self.rejected = 0
        self.raw: list[str] = []

    async def generate(self, tool: dict[str, Any], arguments: dict[str, Any]) -> list[Perturbation]:
        user = json.dumps({"tool": tool.get("name"), "description": tool.get("description", ""),
                           "input_schema": tool.get("inputSchema", {}), "valid_call": arguments,
                           "how_many": self.per_seed}, ensure_ascii=False)
        reply = await self.client.complete(
            [{"role": "system", "content": MODEL_SYSTEM}, {"role": "user", "content": user}], [])
        raw = reply.content or ""
        self.raw.append(raw)
        return self.parse(raw)

    def parse(self, raw: str) -> list[Perturbation]:
        text = raw.strip()
        if text.startswith("```"):
            text = re.sub(r"^```(?:json)?\s*|\s*```$", "", text)
        try:
            items = json.loads(text)
        except (json.JSONDecodeError, ValueError):
            self.rejected += 1
            return []
        if not isinstance(items, list):
            self.rejected += 1
            return []
        out: list[Perturbation] = []
        for item in items[: self.per_seed]:
            if (not isinstance(item, dict) or item.get("error_class") not in ERROR_CLASSES
                    or not isinstance(item.get("arguments"), dict)):
                self.rejected += 1
                continue
            out.append(Perturbation(item["arguments"], item["error_class"], "model", str(item.get("rationale", ""))))
        return out
