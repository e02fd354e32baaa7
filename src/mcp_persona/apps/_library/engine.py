"""Turn a library file into an app: one typed tool function per declared tool, all sharing the
operations below (so no server carries its own copy of search / lookup / write logic)."""

from __future__ import annotations

import hashlib
import json
import re
from functools import cached_property
from importlib import resources
from typing import Annotated, Any

from pydantic import Field

from mcp_persona.apps._library import compute
from mcp_persona.apps._library.spec import LibraryFile, Match, ParamSpec, ToolDef
from mcp_persona.apps._normalize import fold, is_identifier, matches_all, name_keys, same_name, terms
from mcp_persona.apps.base import App, AppEnv, FieldViolation, ToolFailure
from mcp_persona.context_tree import Hierarchy
from mcp_persona.context_tree.hierarchy import EntityType

LIBRARY = "mcpagentbench"
_TYPES: dict[str, Any] = {"string": str, "integer": int, "number": float, "boolean": bool, "string[]": list[str],
                          "integer[]": list[int], "number[]": list[float], "object": dict[str, Any]}


class LibraryApp(App):
    """A server of the tool library: plain JSON results, ``{"error": ...}`` failures naming the field."""

    def __init__(self, spec: LibraryFile) -> None:
        super().__init__(spec.server, title=spec.title, category="information", personalized=False,
                         description=spec.description, real_server="single-tool MCP servers of MCPAgentBench",
                         library=LIBRARY)
        self.spec = spec
        for tool in spec.tools:
            self.tool(name=tool.name, mutates=tool.op in ("create", "update"))(_tool_function(tool, spec))

    @cached_property
    def hierarchy(self) -> Hierarchy:
        # the tables are flat collections; the library file already says all a hierarchy would
        return Hierarchy(app=self.name, description=self.spec.description, entities={
            name: EntityType(collection=name, id_field=t.id_field, description=t.description)
            for name, t in self.spec.tables.items()})

    def validation_payload(self, tool: str, violations: list[FieldViolation]) -> Any:
        return {"error": "invalid arguments", "tool": tool,
                "details": [{"field": v.field, "problem": v.message} for v in violations]}

    def error_payload(self, tool: str, failure: ToolFailure) -> Any:
        return {"error": failure.message, "kind": failure.kind, "tool": tool}


def load_library_file(server: str) -> LibraryFile:
    path = resources.files("mcp_persona") / "data" / "library" / f"{server}.json"
    return LibraryFile.model_validate_json(path.read_text(encoding="utf-8"))


def library_app(server: str) -> LibraryApp:
    return LibraryApp(load_library_file(server))


# -- typed signatures ----------------------------------------------------------------------------------
def _annotation(p: ParamSpec) -> Any:
    base: Any = _TYPES[p.type]
    if p.enum is not None:
        from typing import Literal

        base = Literal[tuple(p.enum)]  # type: ignore[valid-type]
    constraints: dict[str, Any] = {"description": p.description}
    if p.minimum is not None:
        constraints["ge"] = p.minimum
    if p.maximum is not None:
        constraints["le"] = p.maximum
    if p.type == "string" and p.enum is None:
        constraints["min_length"] = 1
    if p.unordered:
        constraints["json_schema_extra"] = {"uniqueItems": True}
    if not p.required:
        return Annotated[base | None, Field(p.default, **constraints)]
    return Annotated[base, Field(**constraints)]


def _tool_function(tool: ToolDef, spec: LibraryFile) -> Any:
    def run(env: AppEnv, **kwargs: Any) -> Any:
        args = {k: v for k, v in kwargs.items() if v is not None}
        return execute(env, tool, spec, args)

    import inspect

    params = [inspect.Parameter("env", inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation=AppEnv)]
    annotations: dict[str, Any] = {"env": AppEnv}
    for name, p in tool.params.items():
        ann = _annotation(p)
        annotations[name] = ann
        params.append(inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, annotation=ann,
                                        default=inspect.Parameter.empty if p.required else p.default))
    run.__name__ = tool.name
    run.__doc__ = tool.description
    run.__signature__ = inspect.Signature(params)  # type: ignore[attr-defined]
    run.__annotations__ = annotations
    return run


# -- the operations ------------------------------------------------------------------------------------
_FILE_PART = re.compile(r"\.[A-Za-z0-9]{1,5}$")  # a last path part with an extension names a file


def resolve_path(value: Any) -> Any:
    """A path or a URL as a file system or a web server resolves it, for every library server alike:
    ``./x`` is ``x`` (``./guitar_loop.wav``, ``./src/auth/login.py``); a folder's trailing slash does not count
    (``jobs/monthly_report/``, ``https://host/``), while a file's is kept, so it is not found, as on a disk
    (``q1_2026.csv/``: a file is not a folder). Other values (words, several words, an e-mail) are left as they
    are; a list's strings each resolved."""
    if isinstance(value, list):
        return [resolve_path(v) for v in value]
    if not isinstance(value, str) or "/" not in value or any(c.isspace() for c in value.strip()):
        return value
    text = value.strip()
    while text.startswith("./") and len(text) > 2:
        text = text[2:]
    if text.endswith("/") and len(text) > 1 and not text.endswith("://"):
        bare = text.rstrip("/")
        _, sep, rest = bare.partition("://")
        host_only = bool(sep) and "/" not in rest
        if bare and (host_only or not _FILE_PART.search(bare.rsplit("/", 1)[-1])):
            text = bare
    return text


def _prepared(tool: ToolDef, args: dict[str, Any]) -> dict[str, Any]:
    """The arguments as the server takes them: paths resolved (:func:`resolve_path`), a set's items sorted."""
    out = {k: resolve_path(v) for k, v in args.items()}
    for name, p in tool.params.items():
        if p.unordered and isinstance(out.get(name), list):
            out[name] = sorted(dict.fromkeys(out[name]), key=lambda v: (str(type(v)), v))
    return out


def matches(record: dict[str, Any], field: str, how: str, arg: Any) -> bool:
    value = record.get(field)
    if value is None:
        return False
    if how in ("gte", "lte"):
        try:
            a, v = float(arg), float(value)
        except (TypeError, ValueError):
            return False
        return v >= a if how == "gte" else v <= a
    if how in ("from", "to"):  # ISO dates and times order as text
        return str(value) >= str(arg) if how == "from" else str(value) <= str(arg)
    wanted = list(arg) if isinstance(arg, list) else [arg]
    have = list(value) if isinstance(value, list) else [value]
    if how == "eq":
        return all(any(same_name(w, h) for h in have) for w in wanted)
    if how == "any":
        return any(same_name(w, h) for w in wanted for h in have)
    if how == "contains":
        return all(any(_contains(h, w) for h in have) for w in wanted)
    # words: every word of the argument in the field, in any order, singular or plural
    text = " ".join(fold(h) for h in have)
    return all(all(word in text for word in fold(w).split()) or matches_all(str(w), have) for w in wanted)


def _contains(field: Any, arg: Any) -> bool:
    """The argument inside the field: as text, or (for a name) every word of one of its forms."""
    if fold(arg) in fold(field):
        return True
    if is_identifier(arg):
        return False
    have = set(terms(str(field)))
    return any(set(terms(form)) <= have for form in name_keys(str(arg)))


def table(env: AppEnv, name: str) -> dict[str, dict[str, Any]]:
    data = env.tree.data.get(name)
    return data if isinstance(data, dict) else {}


def find_records(env: AppEnv, table_name: str, field: str, arg: Any, how: str = "eq") -> list[dict[str, Any]]:
    return [r for r in table(env, table_name).values() if matches(r, field, how, arg)]


def _one(env: AppEnv, tool: ToolDef, table_name: str, param: str, m: Match, value: Any) -> dict[str, Any]:
    found = find_records(env, table_name, m.field, value, m.how)
    if not found:
        known = sorted(str(r.get(m.field)) for r in table(env, table_name).values())[:12]
        raise ToolFailure(f"{param}: no {table_name} record with {m.field} {value!r} (known: {', '.join(known)})",
                          kind="not_found")
    return found[0]


def _count(param: str, value: Any) -> int:
    """A result cap; some real tools take it as a string ("10"), so text is accepted if it is a number."""
    try:
        n = int(str(value).strip())
    except ValueError:
        raise ToolFailure(f"{param}: {value!r} is not a whole number", kind="type") from None
    if n < 0:
        raise ToolFailure(f"{param}: must not be negative", kind="range")
    return n


def new_id(env: AppEnv, spec: LibraryFile, table_name: str, args: dict[str, Any]) -> str:
    """An id from the record's content and the table's size: the same calls give the same ids in every
    run, whatever else the episode opened (unlike a draw from the episode's random generator)."""
    rows = table(env, table_name)
    blob = json.dumps([table_name, args, len(rows)], sort_keys=True, ensure_ascii=False, default=str)
    digits = str(int(hashlib.sha256(blob.encode()).hexdigest(), 16))[:8]
    return f"{spec.tables[table_name].id_prefix}-{digits}"


def _check_bounds(tool: ToolDef, args: dict[str, Any]) -> None:
    """A date or time bound (``from`` / ``to``) must be an ISO date or time: text would compare as text."""
    for param, m in tool.match.items():
        if m.how in ("from", "to") and param in args and not _ISO.match(str(args[param]).strip()):
            raise ToolFailure(f"{param}: {args[param]!r} is not a date (YYYY-MM-DD) or time (YYYY-MM-DDTHH:MM)",
                              kind="type")


_ISO = re.compile(r"^\d{4}-\d{2}(-\d{2}([T ]\d{2}:\d{2}(:\d{2})?)?)?$|^\d{2}:\d{2}$")


def _asked_only(tool: ToolDef, args: dict[str, Any], record: dict[str, Any]) -> dict[str, Any]:
    """A record as a search for one of several listed values shows it: a list field it matched with ``any``
    against a list argument shows the asked values it holds ("at which of the given branches")."""
    out = dict(record)
    for param, m in tool.match.items():
        if m.how == "any" and isinstance(args.get(param), list) and isinstance(out.get(m.field), list):
            out[m.field] = [h for h in out[m.field] if any(same_name(w, h) for w in args[param])]
    return out


def execute(env: AppEnv, tool: ToolDef, spec: LibraryFile, args: dict[str, Any]) -> Any:
    args = _prepared(tool, args)
    _check_bounds(tool, args)
    refs = {p: _one(env, tool, c.table, p, Match(field=c.field), args[p])
            for p, c in tool.checks.items() if p in args}
    result: Any
    if tool.op == "search":
        assert tool.table is not None
        rows = [r for r in table(env, tool.table).values()
                if all(matches(r, m.field, m.how, args[p]) for p, m in tool.match.items() if p in args)]
        if tool.sort:
            key = tool.sort.lstrip("-")
            rows.sort(key=lambda r: (r.get(key) is None, r.get(key) or 0), reverse=tool.sort.startswith("-"))
        total = len(rows)
        if tool.limit and tool.limit in args:
            rows = rows[: _count(tool.limit, args[tool.limit])]
        rows = [_asked_only(tool, args, r) for r in rows]
        shown = [{k: r[k] for k in tool.fields if k in r} if tool.fields else r for r in rows]
        result = {"count": len(shown), "results": shown}
        if tool.limit:  # as a search API reports it: how many match, of which the first ``limit`` are shown
            result["total"] = total
        for param, m in tool.match.items():  # a search over listed values names the values it searched
            if m.how == "any" and isinstance(args.get(param), list):
                result[param] = args[param]
    elif tool.op == "get":
        assert tool.table is not None
        (param, m), = tool.match.items()
        value = args[param]
        found = [_one(env, tool, tool.table, param, m, v) for v in (value if isinstance(value, list) else [value])]
        shown = [{k: r[k] for k in tool.fields if k in r} if tool.fields else r for r in found]
        result = {"results": shown} if isinstance(value, list) else shown[0]
    elif tool.op == "create":
        assert tool.table is not None
        record = {field: args[p] for p, field in tool.store.items() if p in args} | dict(tool.fixed)
        id_field = spec.tables[tool.table].id_field
        record[id_field] = new_id(env, spec, tool.table, record)
        if tool.compute:
            record |= compute.run(tool.compute, env, args, refs)
        result = env.tree.create(tool.table, record)
    elif tool.op == "update":
        assert tool.table is not None
        (param, m), = tool.match.items()
        target = _one(env, tool, tool.table, param, m, args[param])
        changes = {field: args[p] for p, field in tool.store.items() if p in args} | dict(tool.fixed)
        if tool.compute:
            changes |= compute.run(tool.compute, env, args, refs | {param: target})
        id_field = spec.tables[tool.table].id_field
        result = env.tree.update(f"{tool.table}[{target[id_field]}]", changes)
    else:
        assert tool.compute is not None
        return compute.run(tool.compute, env, args, refs | {"__tool__": tool})
    if tool.compute and tool.op in ("search", "get"):
        result = result | compute.run(tool.compute, env, args, refs | {"__result__": result})
    return result
