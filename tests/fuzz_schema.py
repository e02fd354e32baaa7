"""Hypothesis strategies that fuzz MCP tool arguments from a tool's JSON input schema.

A helper module for ``test_fuzz_tools.py`` (its name does not start with ``test_``, so
pytest does not collect it). :class:`SchemaFuzzer` reads a pydantic-generated input
schema (``$defs``/``$ref``, ``anyOf`` with null, enums and consts, numeric bounds,
string lengths and patterns, arrays, nested objects closed with
``additionalProperties: false``) and offers:

* :meth:`SchemaFuzzer.valid_arguments` -- valid-shaped arguments, for crash hunting;
* :meth:`SchemaFuzzer.semantic_arguments` -- class (d): valid arguments whose id-like
  string fields (``..._id``, ``...ids``, ``ts``, ``token``, ``path``, ``filepath``,
  ``uid`` ...) hold ids that do not exist, mixed with real ones when the caller knows some;
* :meth:`SchemaFuzzer.invalid` -- :class:`Invalid` arguments that break the schema at
  exactly one place, in three classes: ``"type"`` (a value of a JSON type no branch of
  the field accepts, chosen so that pydantic's lax mode cannot coerce it), ``"missing_extra"``
  (a required key dropped, or an unknown key added to a closed object or to the top
  level, which the app server rejects) and ``"range"`` (below a minimum, above a maximum,
  too short or too long, not in the enum, not matching the pattern, not the right format).

Every invalid example is checked against the schema (with the top level closed, as the
app server treats it) so that a generator slip can never pass valid input off as invalid.
"""

from __future__ import annotations

import json
import math
import re
import string
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from hypothesis import strategies as st
from jsonschema import Draft202012Validator

Json = Any
Schema = dict[str, Any]
Step = tuple[str, Any]  # ("branch", index) | ("prop", name) | ("item", None)
InvalidClass = Literal["type", "missing_extra", "range"]
INVALID_CLASSES: tuple[InvalidClass, ...] = ("type", "missing_extra", "range")

MAX_DEPTH = 6  # nesting beyond which optional fields are left out (recursive $refs)
_GEN_STRING_SPAN = 24  # how far above minLength a generated valid string may go

# Odd but legal strings that often break string handling (paths, parsers, formats).
TRICKY_STRINGS: tuple[str, ...] = (
    "", " ", ".", "..", "/", "./", "../", "a/../b", "//", "\\", "\x00", "\n", "\t", "#", "*", "?", "[", "]",
    "{", "}", "::", "^", "$", "%s", "{0}", "${x}", "'", '"', "<>", "null", "true", "false", "0", "-1",
    "1e309", "NaN", "9" * 30, "a" * 300, "é中文🙂", "\u202e", "ab\r\ncd", "---\n", "# h\n", "[[x]]",
)


# -- id-like field names -----------------------------------------------------------------------------
_IDLIKE_EXACT = {"id", "ids", "ts", "uid", "uids", "uuid", "token", "path", "paths", "filepath", "filepaths",
                 "dirpath", "key"}
_IDLIKE_SNAKE = re.compile(r"_(id|ids|ts|uid|uids|uuid|token|tokens|path|paths|key)$")
_IDLIKE_CAMEL = re.compile(r"[a-z0-9](Id|Ids|ID|IDs|Ts|Uid|Token|Tokens|Path|Paths)$")
_IDLIKE_TAIL = re.compile(r"(id|ids|path|paths)$")
_NOT_IDLIKE_TAIL = ("valid", "invalid", "paid", "grid", "void", "android", "avoid", "acid", "rapid", "fluid",
                    "liquid", "vivid", "humid", "solid", "stupid", "timid", "hybrid", "pyramid")


def is_idlike(name: str) -> bool:
    """Whether a field of this name holds an identifier of something that must exist."""
    if not name:
        return False
    low = name.lower()
    if low in _IDLIKE_EXACT or _IDLIKE_SNAKE.search(low) or _IDLIKE_CAMEL.search(name):
        return True
    return bool(_IDLIKE_TAIL.search(low)) and not low.endswith(_NOT_IDLIKE_TAIL)


def _singular(name: str) -> str:
    low = name.lower()
    return low[:-1] if low.endswith("s") and is_idlike(low[:-1]) else low


def harvest_ids(data: Json, *, per_name: int = 60) -> dict[str, list[str]]:
    """Every string stored under an id-like key anywhere in ``data`` (e.g. an app's state), by key."""
    found: dict[str, set[str]] = {}

    def walk(node: Json) -> None:
        if isinstance(node, dict):
            for k, v in node.items():
                if isinstance(k, str) and is_idlike(k):
                    values = [v] if isinstance(v, str) else [x for x in v if isinstance(x, str)] \
                        if isinstance(v, list) else []
                    found.setdefault(_singular(k), set()).update(x for x in values if x)
                walk(v)
        elif isinstance(node, list):
            for v in node:
                walk(v)

    walk(data)
    return {k: sorted(v)[:per_name] for k, v in sorted(found.items()) if v}


def has_unknown_id(args: Json, known: set[str]) -> bool:
    """Whether some id-like field of ``args`` holds a string that is not a known id."""
    if isinstance(args, dict):
        for k, v in args.items():
            if is_idlike(k):
                if isinstance(v, str) and v not in known:
                    return True
                if isinstance(v, list) and any(isinstance(x, str) and x not in known for x in v):
                    return True
            if has_unknown_id(v, known):
                return True
    elif isinstance(args, list):
        return any(has_unknown_id(v, known) for v in args)
    return False


def dictionary_words(*texts: str) -> list[str]:
    """Tokens of descriptions (operator names, keywords, examples) for dictionary-based fuzzing."""
    words: set[str] = set()
    for text in texts:
        for tok in re.split(r"[\s,;()\[\]{}\"'`]+", text or ""):
            tok = tok.strip(".:")
            if 0 < len(tok) <= 24:
                words.add(tok)
    return sorted(words)


# -- the fuzzer ---------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Invalid:
    """Arguments that break the schema at one place: ``field`` names it (what a specific error should
    mention), ``violation`` is its kind in the app base's terms (type, missing, extra, range) and
    ``detail`` says how."""

    args: dict[str, Json]
    field: str
    kind: InvalidClass
    detail: str
    violation: Literal["type", "missing", "extra", "range"]


@dataclass(frozen=True)
class Site:
    """A place in the arguments that holds a value: the route to it from the top-level object, the
    schema there and the nearest property name."""

    route: tuple[Step, ...]
    schema: Schema
    field: str
    depth: int


class SchemaFuzzer:
    def __init__(
        self,
        schema: Schema,
        *,
        known_ids: Mapping[str, Sequence[str]] | None = None,
        dictionary: Iterable[str] = (),
    ) -> None:
        self.root = schema
        # the app server rejects unknown top-level keys: the arguments object is closed
        self._closed_root: Schema = {**self.resolve(schema), "additionalProperties": False}
        self._validator = Draft202012Validator({**schema, "additionalProperties": False})
        self.known_ids = {_singular(k): list(v) for k, v in (known_ids or {}).items() if v}
        self.all_known: set[str] = {x for v in self.known_ids.values() for x in v}
        self.dictionary = sorted(set(dictionary))
        # caches keyed by id(): the schemas they hold are kept alive alongside, so ids stay unique
        self._branch_cache: dict[int, tuple[Schema, list[Schema]]] = {}
        self._valid_cache: dict[tuple[Any, ...], tuple[Schema, st.SearchStrategy[Json]]] = {}
        self._idlike_cache: dict[tuple[int, str], tuple[Schema, bool]] = {}
        self._sites = list(self._walk(self.root, (), "", 0))

    # -- schema reading ------------------------------------------------------------------------------
    def resolve(self, s: Schema) -> Schema:
        seen = 0
        while True:
            if "$ref" in s:
                ref = s["$ref"]
                if not ref.startswith("#/"):
                    raise ValueError(f"unsupported $ref {ref!r}")
                target: Any = self.root
                for part in ref[2:].split("/"):
                    target = target[part.replace("~1", "/").replace("~0", "~")]
                s = {**target, **{k: v for k, v in s.items() if k != "$ref"}}
            elif "allOf" in s and len(s["allOf"]) == 1:
                s = {**s["allOf"][0], **{k: v for k, v in s.items() if k != "allOf"}}
            else:
                return s
            seen += 1
            if seen > 50:
                raise ValueError("$ref cycle")

    def branches(self, s: Schema) -> list[Schema]:
        """The alternatives of a schema, each resolved and with at most one type (the same objects on
        every call)."""
        hit = self._branch_cache.get(id(s))
        if hit is None:
            hit = self._branch_cache[id(s)] = (s, self._branches(s))
        return hit[1]

    def _branches(self, s: Schema) -> list[Schema]:
        s = self.resolve(s)
        for key in ("anyOf", "oneOf"):
            if key in s:
                outer = {k: v for k, v in s.items() if k not in (key, "discriminator", "default", "title",
                                                                  "description")}
                out: list[Schema] = []
                for b in s[key]:
                    out += self.branches({**outer, **b})
                return out
        t = s.get("type")
        if isinstance(t, list):
            return [{**s, "type": one} for one in t]
        if t is None:
            if "const" in s:
                return [{**s, "type": _json_type(s["const"])}]
            if "enum" in s:
                types = sorted({_json_type(v) for v in s["enum"]})
                return [{**s, "type": one, "enum": [v for v in s["enum"] if _json_type(v) == one]} for one in types]
            if "properties" in s:
                return [{**s, "type": "object"}]
        return [s]

    def is_valid(self, args: Json) -> bool:
        return self._validator.is_valid(args)

    def contains_idlike(self, s: Schema, name: str = "") -> bool:
        """Whether a value of ``s`` (in a field called ``name``) can hold an id-like string."""
        return self._contains_idlike(s, name, frozenset())

    def _contains_idlike(self, s: Schema, name: str, active: frozenset[int]) -> bool:
        key = (id(s), name)
        hit = self._idlike_cache.get(key)
        if hit is not None:
            return hit[1]
        if id(s) in active:  # a recursive schema: the cycle adds nothing new
            return False
        inner = active | {id(s)}
        found = False
        for b in self.branches(s):
            t = b.get("type")
            if t == "string" and is_idlike(name):
                found = True
            elif t == "array" and isinstance(b.get("items"), dict):
                found = self._contains_idlike(b["items"], name, inner)
            elif t == "object":
                found = any(self._contains_idlike(v, k, inner) for k, v in b.get("properties", {}).items())
            if found:
                break
        if found or not active:  # a negative answer inside a cycle may be incomplete: cache it only at the top
            self._idlike_cache[key] = (s, found)
        return found

    def _walk(self, s: Schema, route: tuple[Step, ...], field: str, depth: int) -> Iterator[Site]:
        """Every place a value can go, breadth first; a schema met again under the same field name (a
        recursive or shared model) is walked only where it is met first, so sites stay few and shallow."""
        queue = [(s, route, field, depth)]
        seen: set[tuple[int, str]] = set()
        while queue:
            s, route, field, depth = queue.pop(0)
            if route:
                if (id(s), field) in seen:
                    continue
                seen.add((id(s), field))
                yield Site(route, s, field, depth)
            if depth >= MAX_DEPTH:
                continue
            for i, b in enumerate(self.branches(s)):
                if b.get("type") == "object":
                    for name, ps in b.get("properties", {}).items():
                        queue.append((ps, (*route, ("branch", i), ("prop", name)), name, depth + 1))
                elif b.get("type") == "array" and isinstance(b.get("items"), dict):
                    queue.append((b["items"], (*route, ("branch", i), ("item", None)), field, depth + 1))

    @property
    def sites(self) -> list[Site]:
        return list(self._sites)

    # -- valid values ----------------------------------------------------------------------------------
    def valid(self, s: Schema, *, name: str = "", mode: str = "generic", depth: int = 0) -> st.SearchStrategy[Json]:
        key = (id(s), name if is_idlike(name) else "", mode, min(depth, 1), depth > MAX_DEPTH)
        hit = self._valid_cache.get(key)
        if hit is not None:
            return hit[1]
        bs = self.branches(s)
        if mode == "semantic":  # reach the id-like fields: prefer the branches that hold some
            with_ids = [b for b in bs if self.contains_idlike(b, name)]
            bs = with_ids or bs
        strategy = st.one_of([self._valid_branch(b, name, mode, depth) for b in bs])
        self._valid_cache[key] = (s, strategy)
        return strategy

    def _valid_branch(self, b: Schema, name: str, mode: str, depth: int) -> st.SearchStrategy[Json]:
        if "const" in b:
            return st.just(b["const"])
        if "enum" in b:
            return st.sampled_from(b["enum"])
        t = b.get("type")
        if t == "null":
            return st.none()
        if t == "boolean":
            return st.booleans()
        if t == "integer":
            return _integers(b)
        if t == "number":
            return _numbers(b)
        if t == "string":
            return self._valid_string(b, name, mode)
        if t == "array":
            return self._valid_array(b, name, mode, depth)
        if t == "object":
            return self._valid_object(b, mode, depth)
        return self.json_values()

    def _valid_array(self, b: Schema, name: str, mode: str, depth: int) -> st.SearchStrategy[Json]:
        lo = int(b.get("minItems", 0))
        hi = int(b.get("maxItems", lo + 4))
        hi = min(hi, lo + (4 if depth <= MAX_DEPTH else 0))
        if "prefixItems" in b:
            parts = [self.valid(p, name=name, mode=mode, depth=depth + 1) for p in b["prefixItems"]]
            return st.tuples(*parts).map(list)
        items = b.get("items")
        item = self.valid(items, name=name, mode=mode, depth=depth + 1) if isinstance(items, dict) \
            else self.json_values()
        unique = (lambda v: json.dumps(v, sort_keys=True)) if b.get("uniqueItems") else None
        return st.lists(item, min_size=lo, max_size=hi, unique_by=unique)

    def _valid_object(self, b: Schema, mode: str, depth: int, *, drop: str | None = None
                      ) -> st.SearchStrategy[dict[str, Json]]:
        props: dict[str, Schema] = b.get("properties", {})
        required = set(b.get("required", []))
        if not props:
            extra = b.get("additionalProperties", True)
            if extra is False:
                return st.just({})
            value = self.valid(extra, mode=mode, depth=depth + 1) if isinstance(extra, dict) else self.json_values()
            keys = st.one_of(st.text(max_size=8), st.sampled_from(self.dictionary)) if self.dictionary \
                else st.text(max_size=8)
            return st.dictionaries(keys, value, max_size=3)
        fixed: dict[str, st.SearchStrategy[Json]] = {}
        optional: dict[str, st.SearchStrategy[Json]] = {}
        for k, ps in props.items():
            if k == drop:
                continue
            needed = k in required or (mode == "semantic" and depth <= 1 and self.contains_idlike(ps, k))
            if not needed and depth > MAX_DEPTH:
                continue  # not even built: a recursive schema would recurse without end
            strat = self.valid(ps, name=k, mode=mode, depth=depth + 1)
            if needed:
                fixed[k] = strat
            else:
                optional[k] = strat
        return _some_keys(fixed, optional, depth)

    def _valid_string(self, b: Schema, name: str, mode: str) -> st.SearchStrategy[str]:
        plain = self._plain_string(b)
        if not is_idlike(name):
            return plain
        missing = self._missing_id(b, name)
        pool = self._pool(b, name)
        if mode == "semantic":
            return st.one_of(missing, pool) if pool is not None else missing
        return st.one_of([x for x in (plain, missing, pool) if x is not None])

    def _plain_string(self, b: Schema) -> st.SearchStrategy[str]:
        lo = int(b.get("minLength", 0))
        hi = b.get("maxLength")
        if "pattern" in b:
            gen = st.from_regex(b["pattern"], fullmatch=True)
            return gen.filter(lambda s: _length_ok(s, b))
        fmt = b.get("format")
        if fmt in _FORMATS:
            return _FORMATS[fmt]().filter(lambda s: _length_ok(s, b))
        cap = lo + _GEN_STRING_SPAN if hi is None else min(int(hi), lo + _GEN_STRING_SPAN)
        text = st.text(min_size=lo, max_size=cap)
        tricky = [s for s in (*TRICKY_STRINGS, *self.dictionary) if _string_ok(s, b)]
        # strings that are themselves documents: JSON, dates and times, numbers
        shaped = st.one_of(
            self.json_values().map(lambda v: json.dumps(v, ensure_ascii=False)),
            st.datetimes(timezones=st.one_of(st.none(), st.timezones())).map(lambda d: d.isoformat()),
            st.dates().map(lambda d: d.isoformat()),
            st.integers().map(str),
        ).filter(lambda s: _string_ok(s, b))
        return st.one_of(text, st.sampled_from(tricky), shaped) if tricky else st.one_of(text, shaped)

    def _missing_id(self, b: Schema, name: str) -> st.SearchStrategy[str]:
        """A random id that names nothing (statistically), in the field's shape."""
        if "pattern" in b:
            return st.from_regex(b["pattern"], fullmatch=True).filter(
                lambda s: _length_ok(s, b) and s not in self.all_known)
        if b.get("format") in _FORMATS:  # a uuid, say
            return _FORMATS[b["format"]]().filter(lambda s: _length_ok(s, b) and s not in self.all_known)
        token = st.text(string.ascii_lowercase + string.digits, min_size=4, max_size=12)
        if "path" in name.lower():
            shapes = st.one_of(token.map(lambda t: f"nope_{t}.md"), token.map(lambda t: f"nope_dir/{t}.md"),
                               token.map(lambda t: f"nope_{t}"))
        else:
            shapes = st.one_of(token.map(lambda t: f"nope_{t}"), token, st.uuids().map(str))
        lo = int(b.get("minLength", 0))
        hi = b.get("maxLength")

        def fit(s: str) -> str:
            s = s + "x" * max(0, lo - len(s))
            return s if hi is None else s[: int(hi)]

        return shapes.map(fit).filter(lambda s: _string_ok(s, b) and s not in self.all_known)

    def _pool(self, b: Schema, name: str) -> st.SearchStrategy[str] | None:
        key = _singular(name)
        values = self.known_ids.get(key)
        if not values:
            values = [x for k, v in self.known_ids.items() if key.endswith(k) or k.endswith(key) for x in v]
        if not values:
            values = sorted(self.all_known)
        values = [v for v in values if _string_ok(v, b)]
        return st.sampled_from(values) if values else None

    def json_values(self) -> st.SearchStrategy[Json]:
        words = st.sampled_from(self.dictionary) if self.dictionary else st.text(max_size=6)
        scalars = st.one_of(
            st.none(), st.booleans(), st.integers(-(10**6), 10**6), st.floats(allow_nan=False, allow_infinity=False),
            st.text(max_size=10), words,
        )
        keys = st.one_of(st.text(max_size=6), words)
        # single-key objects with a word of the docs as key: the shape of query languages' operators
        return st.recursive(
            scalars,
            lambda children: st.one_of(
                st.lists(children, max_size=3),
                st.dictionaries(keys, children, max_size=2),
                st.builds(lambda k, v: {k: v}, words, st.one_of(children, st.lists(children, max_size=3))),
            ),
            max_leaves=8,
        )

    # -- public strategies ---------------------------------------------------------------------------
    def valid_arguments(self) -> st.SearchStrategy[dict[str, Json]]:
        """Valid-shaped arguments: any value the schema allows, odd strings and real ids included."""
        return self.valid(self._closed_root).filter(self.is_valid)

    def semantic_arguments(self) -> st.SearchStrategy[dict[str, Json]] | None:
        """Valid arguments where some id-like field names nothing (None when the tool has no id-like field)."""
        if not self.contains_idlike(self.root):
            return None
        return self.valid(self._closed_root, mode="semantic").filter(
            lambda a: self.is_valid(a) and has_unknown_id(a, self.all_known))

    def admits(self, kind: InvalidClass | str) -> bool:
        """Whether the schema gives this class room, read from the schema alone (no strategy is built), so
        that a test is generated only for the (tool, class) pairs it can fuzz."""
        if kind == "semantic":
            return self.contains_idlike(self.root)
        if kind == "type":
            return any(self.wrong_type(site.schema) is not None for site in self._sites)
        if kind == "range":
            return any(self.out_of_range(b) for site in self._sites for b in self.branches(site.schema))
        return kind in ("missing_extra", "valid")  # the closed top level always takes an unknown key

    def invalid(self, kind: InvalidClass) -> st.SearchStrategy[Invalid] | None:
        """Arguments broken at one place, of one class (None when the schema gives that class no room)."""
        makers = {"type": self._type_cases, "missing_extra": self._missing_extra_cases, "range": self._range_cases}
        cases = list(makers[kind]())
        if not cases:
            return None
        return st.one_of(cases).filter(lambda inv: _preparse_safe(inv.args) and not self.is_valid(inv.args))

    # -- invalid cases -------------------------------------------------------------------------------
    def _place(self, route: tuple[Step, ...], leaf: st.SearchStrategy[Json]) -> st.SearchStrategy[dict[str, Json]]:
        return self._build(self._closed_root, route, leaf, 0)

    def _build(self, s: Schema, route: tuple[Step, ...], leaf: st.SearchStrategy[Json],
               depth: int) -> st.SearchStrategy[Json]:
        """A valid value of ``s`` except at ``route``, where ``leaf`` goes."""
        if not route:
            return leaf
        (step, index), (kind, key), rest = route[0], route[1], route[2:]
        assert step == "branch"
        b = self.branches(s)[index]
        if kind == "prop":
            props = b["properties"]
            required = set(b.get("required", []))
            fixed = {key: self._build(props[key], rest, leaf, depth + 1)}
            fixed |= {k: self.valid(props[k], name=k, depth=depth + 1) for k in required if k != key}
            optional = {k: self.valid(v, name=k, depth=depth + 1) for k, v in props.items()
                        if k not in required and k != key}
            return _some_keys(fixed, optional, depth)
        # an array: the broken item among valid ones, the length kept within bounds
        item_schema = b["items"]
        bad = self._build(item_schema, rest, leaf, depth + 1)
        lo = max(0, int(b.get("minItems", 0)) - 1)
        hi = min(lo + 2, int(b["maxItems"]) - 1) if "maxItems" in b else lo + 2
        others = st.lists(self.valid(item_schema, depth=depth + 1), min_size=lo, max_size=max(lo, hi))
        return st.tuples(others, bad, st.integers(0, 10)).map(
            lambda t: [*t[0][: t[2] % (len(t[0]) + 1)], t[1], *t[0][t[2] % (len(t[0]) + 1):]])

    def _type_cases(self) -> Iterator[st.SearchStrategy[Invalid]]:
        for site in self._sites:
            wrong = self.wrong_type(site.schema)
            if wrong is None:
                continue
            yield st.tuples(self._place(site.route, wrong), st.just(site)).map(
                lambda t: Invalid(t[0], t[1].field, "type", f"{_where(t[1])} = {_short(_get(t[0], t[1].route))}",
                                  "type"))

    def wrong_type(self, s: Schema) -> st.SearchStrategy[Json] | None:
        """Values of a JSON type that no branch of ``s`` accepts, even through pydantic's lax coercions
        (numeric strings, 0/1 for booleans, numbers for dates, JSON text for objects at the top level)."""
        kinds: set[str] = set()
        formats: set[str] = set()
        for b in self.branches(s):
            t = b.get("type")
            if t not in ("string", "integer", "number", "boolean", "null", "object", "array"):
                return None  # anything goes
            kinds.add(t)
            if t == "string" and b.get("format"):
                formats.add(b["format"])
        numeric = kinds & {"integer", "number", "boolean"}
        out: list[st.SearchStrategy[Json]] = []
        if "object" not in kinds:
            out.append(st.dictionaries(st.sampled_from(["value", "id", "x"]), st.integers(0, 9), min_size=1,
                                       max_size=2))
        if "array" not in kinds:
            out.append(st.lists(st.one_of(st.integers(0, 9), st.text("abc", max_size=3)), min_size=1, max_size=3))
        if "string" not in kinds:  # 'x' first: never JSON, never a number, never a boolean word
            out.append(st.text(string.ascii_letters + " ", max_size=8).map(lambda t: "x" + t))
        if not numeric and not formats:
            out.append(st.integers(2, 10**6))
            out.append(st.floats(2.5, 1e6).filter(lambda f: not f.is_integer()))
            out.append(st.booleans())
        if "null" not in kinds:
            out.append(st.none())
        return st.one_of(out) if out else None

    def _object_sites(self) -> Iterator[tuple[tuple[Step, ...], Schema, str]]:
        """(route to the object, the object's schema branch, what to call it) for every object."""
        yield (), self._closed_root, "the arguments"
        for site in self._sites:
            for b in self.branches(site.schema):
                if b.get("type") == "object" and "properties" in b:
                    yield site.route, b, _where(site) or "an item"

    def _missing_extra_cases(self) -> Iterator[st.SearchStrategy[Invalid]]:
        for route, b, where in self._object_sites():
            depth = sum(1 for step in route if step[0] == "prop")
            for key in b.get("required", []):
                args = self._place(route, self._valid_object(b, "generic", depth, drop=key))
                yield args.map(lambda a, k=key, w=where: Invalid(a, k, "missing_extra",
                                                                  f"required {k!r} missing from {w}", "missing"))
            if not route or b.get("additionalProperties") is False:  # the server closes the top level
                known = set(b.get("properties", {}))
                marked = self._place(route, self._valid_object(b, "generic", depth).map(lambda d: {**d, _MARK: 0}))
                unknown = st.text(string.ascii_lowercase, min_size=2, max_size=8).map(lambda t: "zz_" + t).filter(
                    lambda k, known=known: k not in known)
                scalar = st.one_of(st.integers(0, 99), st.text("xyz", max_size=4), st.booleans(), st.none())
                yield st.tuples(marked, unknown, scalar).map(
                    lambda t, w=where: Invalid(_unmark(t[0], t[1], t[2]), t[1], "missing_extra",
                                               f"unknown key {t[1]!r} in {w}", "extra"))

    def _range_cases(self) -> Iterator[st.SearchStrategy[Invalid]]:
        for site in self._sites:
            for b in self.branches(site.schema):
                for leaf, how in self.out_of_range(b):
                    yield st.tuples(self._place(site.route, leaf), st.just(site)).map(
                        lambda t, how=how: Invalid(t[0], t[1].field, "range",
                                                   f"{_where(t[1])} {how}: {_short(_get(t[0], t[1].route))}",
                                                   "range"))

    def out_of_range(self, b: Schema) -> list[tuple[st.SearchStrategy[Json], str]]:
        """Values of the branch's own type that break one of its constraints."""
        t = b.get("type")
        out: list[tuple[st.SearchStrategy[Json], str]] = []
        if "enum" in b or "const" in b:
            allowed = b.get("enum", [b.get("const")])
            if t == "string":
                low = {str(v).lower() for v in allowed}
                out.append((st.text(string.ascii_letters + "_", max_size=10).map(lambda s: "zz_" + s)
                            .filter(lambda s: s.lower() not in low), "not in the enum"))
            elif t == "integer":
                out.append((st.integers(-1000, 10**6).filter(lambda v: v not in allowed), "not in the enum"))
            return out
        if t in ("integer", "number"):
            ints = t == "integer"
            if "minimum" in b:
                m = b["minimum"]
                out.append((st.integers(math.ceil(m) - 1000, math.ceil(m) - 1) if ints
                            else st.floats(m - 1000, m, exclude_max=True), f"below minimum {m}"))
            if "exclusiveMinimum" in b:
                m = b["exclusiveMinimum"]
                out.append((st.integers(math.floor(m) - 1000, math.floor(m)) if ints
                            else st.floats(m - 1000, m), f"not above exclusiveMinimum {m}"))
            if "maximum" in b:
                m = b["maximum"]
                out.append((st.integers(math.floor(m) + 1, math.floor(m) + 10**6) if ints
                            else st.floats(m, m + 1e6, exclude_min=True), f"above maximum {m}"))
            if "exclusiveMaximum" in b:
                m = b["exclusiveMaximum"]
                out.append((st.integers(math.ceil(m), math.ceil(m) + 10**6) if ints
                            else st.floats(m, m + 1e6), f"not below exclusiveMaximum {m}"))
            if "multipleOf" in b and ints:
                k = b["multipleOf"]
                out.append((_integers(b).map(lambda v: v + 1 if (v + 1) % k else v + 2).filter(lambda v: v % k != 0),
                            f"not a multiple of {k}"))
        elif t == "string":
            lo, hi = int(b.get("minLength", 0)), b.get("maxLength")
            if lo > 0:
                out.append((st.text(string.ascii_letters, max_size=lo - 1), f"shorter than minLength {lo}"))
            if hi is not None:
                hi = int(hi)
                out.append((st.tuples(st.sampled_from("ax中"), st.integers(1, 5)).map(lambda p: p[0] * (hi + p[1])),
                            f"longer than maxLength {hi}"))
            if "pattern" in b:
                violators = self._pattern_violators(b)
                if violators is not None:
                    out.append((violators, f"not matching {b['pattern']!r}"))
            if b.get("format") in _FORMATS and b["format"] != "email":
                out.append((st.text(string.ascii_letters, max_size=6).map(lambda s: "not a " + s)
                            .filter(lambda s: _length_ok(s, b)), f"not a valid {b['format']}"))
        elif t == "array":
            lo, hi = int(b.get("minItems", 0)), b.get("maxItems")
            item = self.valid(b["items"]) if isinstance(b.get("items"), dict) else self.json_values()
            if lo > 0:
                out.append((st.lists(item, max_size=lo - 1), f"fewer than minItems {lo}"))
            if hi is not None:
                hi = int(hi)
                out.append((st.tuples(item, st.integers(1, 3)).map(lambda p: [p[0]] * (hi + p[1])),
                            f"more than maxItems {hi}"))
        return out

    def _pattern_violators(self, b: Schema) -> st.SearchStrategy[str] | None:
        pattern = re.compile(b["pattern"])

        def violates(s: str) -> bool:  # right length, no edge whitespace: only the pattern is wrong
            return _length_ok(s, b) and s == s.strip() and pattern.search(s) is None

        fixed = [s for s in ("x", "!", "0", "abc", "not valid", "2026-3-1", "12345678", "1" * 20, "-1", "é",
                             "a b", "ou_", "0x1F") if violates(s)]
        random = st.text(min_size=int(b.get("minLength", 0)), max_size=max(20, int(b.get("minLength", 0)) + 5))
        if not fixed:
            return None
        return st.one_of(st.sampled_from(fixed), random.filter(violates))


# -- small helpers ------------------------------------------------------------------------------------
_MARK = "\x00mark"  # where an unknown key goes, replaced once the key is drawn


def _some_keys(fixed: dict[str, st.SearchStrategy[Json]], optional: dict[str, st.SearchStrategy[Json]],
               depth: int) -> st.SearchStrategy[dict[str, Json]]:
    """An object with every ``fixed`` key and some ``optional`` ones: any of them at the top level, at most
    a few in nested objects (wide nested models would otherwise make every example huge)."""
    cap = 8 if depth == 0 else 3
    if len(optional) <= cap:
        return st.fixed_dictionaries(fixed, optional=optional)
    base = st.fixed_dictionaries(fixed)
    picks = st.lists(st.sampled_from(sorted(optional)), unique=True, max_size=cap)

    @st.composite
    def draw_object(draw: st.DrawFn) -> dict[str, Json]:
        out = dict(draw(base))
        for k in draw(picks):
            out[k] = draw(optional[k])
        return out

    return draw_object()


def _preparse_safe(args: dict[str, Json]) -> bool:
    """No top-level string that the MCP SDK would read as JSON: it parses a string argument whose
    annotation is not plain ``str`` (``str | None``, a model ...) when it is a JSON array, object,
    boolean or null, so "null" would reach the tool as None."""
    for value in args.values():
        if isinstance(value, str):
            try:
                parsed = json.loads(value)
            except (ValueError, RecursionError):
                continue
            if not isinstance(parsed, str | int | float):
                return False
    return True


def _unmark(node: Json, key: str, value: Json) -> Json:
    if isinstance(node, dict):
        return {(key if k == _MARK else k): (value if k == _MARK else _unmark(v, key, value))
                for k, v in node.items()}
    if isinstance(node, list):
        return [_unmark(v, key, value) for v in node]
    return node


def _json_type(v: Json) -> str:
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "boolean"
    if isinstance(v, int):
        return "integer"
    if isinstance(v, float):
        return "number"
    if isinstance(v, str):
        return "string"
    return "array" if isinstance(v, list) else "object"


def _length_ok(s: str, b: Schema) -> bool:
    return len(s) >= int(b.get("minLength", 0)) and ("maxLength" not in b or len(s) <= int(b["maxLength"]))


def _string_ok(s: str, b: Schema) -> bool:
    if not _length_ok(s, b):
        return False
    if "enum" in b and s not in b["enum"]:
        return False
    if "pattern" in b:  # Python's '$' also matches before a final newline; pydantic's regex does not
        return not s.endswith("\n") and re.search(b["pattern"], s) is not None
    return "format" not in b


def _integers(b: Schema) -> st.SearchStrategy[int]:
    lo = b.get("minimum")
    hi = b.get("maximum")
    if "exclusiveMinimum" in b:
        lo = math.floor(b["exclusiveMinimum"]) + 1
    if "exclusiveMaximum" in b:
        hi = math.ceil(b["exclusiveMaximum"]) - 1
    lo = None if lo is None else math.ceil(lo)
    hi = None if hi is None else math.floor(hi)
    if lo is None and hi is None:
        gen = st.one_of(st.integers(-1000, 10**6), st.integers(), st.sampled_from([0, -1, 2**31, 2**63, -(2**63)]))
    else:
        gen = st.integers(lo, hi)
        edges = [x for x in (lo, hi) if x is not None]
        gen = st.one_of(gen, st.sampled_from(edges))
    if "multipleOf" in b:
        k = b["multipleOf"]
        gen = gen.filter(lambda v: v % k == 0)
    return gen


def _numbers(b: Schema) -> st.SearchStrategy[float]:
    return st.floats(
        min_value=b.get("minimum", b.get("exclusiveMinimum")),
        max_value=b.get("maximum", b.get("exclusiveMaximum")),
        exclude_min="exclusiveMinimum" in b,
        exclude_max="exclusiveMaximum" in b,
        allow_nan=False,
        allow_infinity=False,
    )


_FORMATS = {
    "date-time": lambda: st.datetimes(timezones=st.timezones()).map(lambda d: d.isoformat()),
    "date": lambda: st.dates().map(lambda d: d.isoformat()),
    "time": lambda: st.times().map(lambda t: t.isoformat()),
    "uuid": lambda: st.uuids().map(str),
    "email": lambda: st.emails(),
    "uri": lambda: st.text(string.ascii_lowercase, min_size=1, max_size=8).map(lambda s: f"https://example.com/{s}"),
}


def _get(args: Json, route: tuple[Step, ...]) -> Json:
    cur = args
    for kind, key in route:
        if kind == "prop":
            cur = cur[key]
        elif kind == "item":  # the first item that is not valid-looking is not tracked; show the list
            return cur
    return cur


def _where(site: Site) -> str:
    parts = []
    for kind, key in site.route:
        if kind == "prop":
            parts.append(str(key))
        elif kind == "item":
            parts.append("[]")
    return ".".join(parts).replace(".[]", "[]")


def _short(value: Json, limit: int = 60) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= limit else text[: limit - 3] + "..."
