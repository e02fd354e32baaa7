"""The shared engine behind every simulated LiveMCPTool server.

A simulated server is data, not code: its tools (names, input schemas, a behaviour kind) come from
the catalogue and its records from ``data/livemcptool/datasets.json``. The engine gives each
behaviour one implementation that works for every server:

* ``search`` -- rank the records the task clock lets exist by the call's terms; honour a limit;
* ``lookup`` -- the record named by the call's id-like argument (an id, symbol, name, url), or a
  specific not-found error;
* ``create`` / ``update`` / ``delete`` -- change the episode's records; created ids are
  consumable by later lookups, updates and deletes;
* ``compute`` -- a result computed from the arguments (the numbers they hold summarised, a
  digest naming the artifact) kept as a record that later calls can look up.

Arguments are checked against the tool's input schema before anything runs (unknown keys,
types, ranges, enums), and every call runs in a transaction, so a rejected call changes nothing.
Each server is an :class:`~mcp_persona.apps.base.App` served over MCP like every other app.
"""

from __future__ import annotations

import hashlib
import json
import pickle
import re
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import date
from functools import cache, cached_property
from importlib import resources
from typing import Any

from jsonschema import Draft7Validator
from mcp.server.mcpserver import Context
from mcp.server.mcpserver.tools import Tool
from mcp.types import CallToolResult, TextContent

from mcp_persona.apps.base import App, AppEnv, AppServer, FailureKind, FieldViolation, ToolFailure, error_result
from mcp_persona.clock import DEFAULT_CLOCK, TaskClock
from mcp_persona.context_tree import leaves
from mcp_persona.context_tree.tree import canonical_hash
from mcp_persona.livemcptool.catalogue import ServerEntry, ToolEntry, catalogue

CONTEXT = "default"  # one shipped dataset per server
_LIMIT_NAMES = re.compile(r"^(limit|count|num|n|max|top|size|per_?page|page_?size|k)(_?results|_?items|_?k)?$|"
                          r"^(max|num|top)_?(results?|items?|hits|records|entries|rows|n|k|count)$|\w*(limit|count)$",
                          re.IGNORECASE)  # "topic" or "number" is not a cap
_ID_NAMES = re.compile(r"(^|_)(id|ids|uuid|key|symbol|ticker|code|slug|url|name|title|query|q)$|Id$|Name$|Url$",
                       re.IGNORECASE)
_STOP = {"the", "a", "an", "of", "and", "or", "in", "on", "for", "to", "with", "by", "is", "at"}
_LIMIT_NAMES_EXTRA = re.compile(r"^(hits|results|items)_?per_?page$", re.IGNORECASE)
_PAGE_NAMES = re.compile(r"^(page|page_?number|offset|skip|start)$", re.IGNORECASE)
_BOUND_NAMES = re.compile(r"^(min|max)_?(price|value|amount|cost|score|rating)?$", re.IGNORECASE)
# Temperature units a lookup converts its record's value into (the value is kept in Celsius).
_TEMPERATURE = {"fahrenheit": lambda c: c * 9 / 5 + 32, "kelvin": lambda c: c + 273.15, "celsius": lambda c: c,
                "metric": lambda c: c, "imperial": lambda c: c * 9 / 5 + 32}
# Transport switches of the real servers that change how they fetch, never what they answer.
_TRANSPORT = {"ignoreRobotsText"}
# Date-window arguments: (first day, last day) pairs a lookup or search honours.
_WINDOWS = (("fromdate", "todate"), ("start_date", "end_date"), ("date_from", "date_to"))
_DAY = re.compile(r"^(\d{4})-?(\d{2})-?(\d{2})$")


class RecordTree:
    """An episode's records with the two things the app machinery needs from a state: a canonical
    hash and an all-or-nothing transaction."""

    def __init__(self, data: dict[str, Any]) -> None:
        self.data = data

    def hash(self) -> str:
        return canonical_hash(self.data)

    @contextmanager
    def transaction(self) -> Iterator[None]:
        saved = pickle.dumps(self.data, protocol=pickle.HIGHEST_PROTOCOL)
        try:
            yield
        except BaseException:
            self.data.clear()
            self.data.update(pickle.loads(saved))
            raise


@cache
def datasets() -> dict[str, Any]:
    path = resources.files("mcp_persona") / "data" / "livemcptool" / "datasets.json"
    return json.loads(path.read_text(encoding="utf-8"))


def _words(text: str) -> list[str]:
    return [w for w in re.findall(r"[\w.+-]+", text.lower()) if w not in _STOP]


def _strings(value: Any) -> Iterator[str]:
    return (v for v in leaves(value) if isinstance(v, str))


def _numbers(value: Any) -> Iterator[float]:
    return (float(v) for v in leaves(value) if isinstance(v, int | float) and not isinstance(v, bool))


class CatalogueApp(App):
    """One simulated server of the catalogue."""

    def __init__(self, entry: ServerEntry) -> None:
        super().__init__(entry.name, title=entry.name, category="information", personalized=False,
                         description=entry.description, real_server=f"LiveMCPTool {entry.name}")
        self.entry = entry
        theme = datasets().get(entry.name) or {}
        self.entity: str = theme.get("entity", "record")
        self.prefix: str = theme.get("prefix") or re.sub(r"[^a-z0-9]+", "", entry.name.lower())[:6] or "rec"
        self._records: list[dict[str, Any]] = list(theme.get("records", []))
        self._validators = {t.name: Draft7Validator(t.input_schema) for t in entry.tools}

    # -- what the app machinery and the fuzz harness read ------------------------------------------
    @property
    def tool_names(self) -> list[str]:
        return self.entry.tool_names

    def mutates(self, tool: str) -> bool:
        t = self.entry.tool(tool)
        return t is not None and t.behaviour in ("create", "update", "delete", "compute")

    def context_ids(self) -> list[str]:
        return [CONTEXT]

    def load_context(self, context_id: str) -> dict[str, Any]:
        if context_id != CONTEXT:
            raise KeyError(f"{self.name} has no context {context_id!r} (has: {CONTEXT})")
        return {"records": pickle.loads(pickle.dumps(self._records)), "next": 1}

    def env(self, context_id: str = CONTEXT, *, clock: TaskClock = DEFAULT_CLOCK, seed: int = 0) -> AppEnv:
        return AppEnv(self, RecordTree(self.load_context(context_id)), clock, context_id)  # type: ignore[arg-type]

    def server(self, env: AppEnv) -> AppServer:
        return CatalogueServer(self, env)

    @cached_property
    def sdk_tools(self) -> list[Tool]:
        async def _dispatched_by_server() -> None:  # CatalogueServer.call_tool runs every tool
            return None

        base = Tool.from_function(_dispatched_by_server, name="_", structured_output=False)
        return [base.model_copy(update={"name": t.name, "description": t.description, "parameters": t.input_schema})
                for t in self.entry.tools]

    # -- validation ----------------------------------------------------------------------------------
    def violations(self, tool: ToolEntry, arguments: dict[str, Any]) -> list[FieldViolation]:
        known = set(tool.input_schema.get("properties") or {})
        out = [FieldViolation(k, "extra", "Extra inputs are not permitted") for k in sorted(set(arguments) - known)]
        for err in self._validators[tool.name].iter_errors(arguments):
            path = [str(p) for p in err.absolute_path]
            kind: FailureKind = "type"
            if err.validator == "required":
                missing = re.match(r"'([^']+)'", err.message)
                path.append(missing.group(1) if missing else "?")
                kind = "missing"
            elif err.validator == "additionalProperties":
                kind = "extra"
            elif err.validator in ("enum", "const", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum",
                                   "minLength", "maxLength", "minItems", "maxItems", "pattern", "format",
                                   "multipleOf", "uniqueItems"):
                kind = "range"
            out.append(FieldViolation(".".join(path) or "(arguments)", kind, err.message))
        return out

    # -- behaviours ------------------------------------------------------------------------------------
    def run(self, env: AppEnv, tool: ToolEntry, args: dict[str, Any]) -> Any:
        return getattr(self, f"_{tool.behaviour}")(env, tool, args)

    def _visible(self, env: AppEnv) -> list[dict[str, Any]]:
        """The records that exist at the task's "now" (a record dated later is not yet published)."""
        today = env.clock.today()
        return [r for r in env.tree.data["records"] if date.fromisoformat(r.get("date", "1970-01-01")) <= today]

    def _find(self, env: AppEnv, tool: ToolEntry, args: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        prop, value = self._key_argument(tool, args)
        wanted = str(value).strip().lower()
        for r in self._visible(env):
            keys = {str(r.get(k, "")).lower() for k in ("id", "name", "symbol", "slug", "url")}
            if wanted and wanted in keys:
                return prop, r
        raise ToolFailure(f"{tool.name}: no {self.entity} matches {prop}={value!r}; ids and names come from this "
                          f"server's search and list tools", kind="not_found")

    def _key_argument(self, tool: ToolEntry, args: dict[str, Any]) -> tuple[str, Any]:
        required = list(tool.input_schema.get("required") or [])
        props = list(tool.input_schema.get("properties") or {})
        ranked = sorted((p for p in props if p in args and isinstance(args[p], str | int | float)
                         and not isinstance(args[p], bool)),
                        key=lambda p: (not _ID_NAMES.search(p), p not in required, props.index(p)))
        if not ranked:
            raise ToolFailure(f"{tool.name}: give one of {', '.join(props) or 'its arguments'} to name the "
                              f"{self.entity}", kind="missing")
        return ranked[0], args[ranked[0]]

    @staticmethod
    def _window(tool: ToolEntry, args: dict[str, Any]) -> tuple[date, date] | None:
        """The date window a call asks for (``fromdate``/``todate``, ``start_date``/``end_date``...), each
        day as YYYYMMDD or YYYY-MM-DD; a malformed day or an empty window is refused."""
        for lo, hi in _WINDOWS:
            if lo not in args and hi not in args:
                continue
            days = []
            for name, default in ((lo, date.min), (hi, date.max)):
                if name not in args:
                    days.append(default)
                    continue
                m = _DAY.match(str(args[name]).strip())
                try:
                    days.append(date(int(m.group(1)), int(m.group(2)), int(m.group(3))) if m else None)
                except ValueError:
                    days.append(None)
                if days[-1] is None:
                    raise ToolFailure(f"{tool.name}: {name} {args[name]!r} is not a date (YYYYMMDD or YYYY-MM-DD)",
                                      kind="type")
            if days[0] > days[1]:
                raise ToolFailure(f"{tool.name}: {lo} {args[lo]!r} is after {hi} {args[hi]!r}", kind="range")
            return days[0], days[1]
        return None

    @staticmethod
    def _period(window: tuple[date, date]) -> dict[str, str]:
        return {k: d.isoformat() for k, d in zip(("from", "to"), window, strict=True) if d not in (date.min, date.max)}

    @staticmethod
    def _is_limit(name: str) -> bool:
        return bool(_LIMIT_NAMES.match(name) or _LIMIT_NAMES_EXTRA.match(name))

    @staticmethod
    def _refuse_unhonoured(tool: ToolEntry, args: dict[str, Any], honoured: set[str]) -> None:
        """An argument the shipped records cannot answer (a guest count, a price range on a lookup, a
        unit for a number it does not hold) is refused unless it has its default value: never accepted
        and ignored. Transport switches (``ignoreRobotsText``) change nothing for the real server either."""
        props = tool.input_schema.get("properties") or {}
        bad = sorted(k for k, v in args.items() if k not in honoured and k not in _TRANSPORT
                     and v != (props.get(k) or {}).get("default", None))
        if bad:
            raise ToolFailure(f"{tool.name}: this server's records cannot answer {', '.join(bad)}; leave "
                              f"{'them' if len(bad) > 1 else 'it'} out or at the default", kind="range")

    def _limit(self, tool: ToolEntry, args: dict[str, Any]) -> int:
        for k, v in args.items():
            if self._is_limit(k) and isinstance(v, int) and not isinstance(v, bool):
                if v < 0:
                    raise ToolFailure(f"{tool.name}: {k} must not be negative (got {v})", kind="range")
                return min(v, 50)
        return 10

    @staticmethod
    def _summary(r: dict[str, Any]) -> dict[str, Any]:
        return {k: r[k] for k in ("id", "name", "date", "value", "url", "summary") if k in r}

    def _search(self, env: AppEnv, tool: ToolEntry, args: dict[str, Any]) -> Any:
        window = self._window(tool, args)
        dated = {k for pair in _WINDOWS for k in pair}
        words = {k for k, v in args.items() if not self._is_limit(k) and k not in dated and isinstance(v, str | list)}
        bounds = {k: v for k, v in args.items() if _BOUND_NAMES.match(k) and isinstance(v, int | float)
                  and not isinstance(v, bool)}
        pages = {k: v for k, v in args.items() if _PAGE_NAMES.match(k) and k not in words}
        self._refuse_unhonoured(tool, args, words | set(bounds) | set(pages) | dated
                                | {k for k in args if self._is_limit(k)})
        terms = [w for k in words for s in _strings(args[k]) for w in _words(s)]
        visible = self._visible(env)
        hays = {r["id"]: " ".join(_strings({k: v for k, v in r.items() if k != "url"})).lower() for r in visible}
        for k in sorted(words) if len(words) > 1 else ():
            # beside other words, an argument that matches nothing would be ignored: say so instead
            mine = [w for s in _strings(args[k]) for w in _words(s)]
            if mine and not any(w in hay for w in mine for hay in hays.values()):
                raise ToolFailure(f"{tool.name}: {k}={args[k]!r} matches no {self.entity} this server has",
                                  kind="not_found")
        scored = []
        for r in visible:
            if window and not window[0] <= date.fromisoformat(r.get("date", "1970-01-01")) <= window[1]:
                continue
            value = r.get("value")
            if any(not isinstance(value, int | float) or (value < b if k.lower().startswith("min") else value > b)
                   for k, b in bounds.items()):
                continue
            hay = hays[r["id"]]
            score = sum(1 for w in terms if w in hay)
            if score or not terms:
                scored.append((-score, r["id"], r))
        scored.sort(key=lambda x: (x[0], x[1]))
        limit = self._limit(tool, args)
        first = self._offset(pages, limit, tool.input_schema.get("properties") or {})
        hits = [self._summary(r) for _, _, r in scored[first:first + limit]]
        out = {"tool": tool.name, "as_of": env.clock.today().isoformat(), "total": len(scored), "results": hits}
        if pages:
            out["offset"] = first
        return out

    @staticmethod
    def _offset(pages: dict[str, Any], limit: int, props: dict[str, Any]) -> int:
        """Where a page starts: ``page`` counts pages (from 0 when its default is 0, as Algolia's do, else
        from 1), ``offset`` / ``skip`` / ``start`` count records."""
        for k, v in pages.items():
            try:
                n = int(v)
            except (TypeError, ValueError):
                raise ToolFailure(f"{k}: {v!r} is not a whole number", kind="type") from None
            if n < 0:
                raise ToolFailure(f"{k}: must not be negative", kind="range")
            if k.lower().startswith("page"):
                first = 0 if (props.get(k) or {}).get("default") == 0 else 1
                return max(n - first, 0) * limit
            return n
        return 0

    def _lookup(self, env: AppEnv, tool: ToolEntry, args: dict[str, Any]) -> Any:
        """The record an argument names exactly (within the call's date window, if it gives one, which the
        answer states); failing that, the records that hold most of the call's terms; failing that, not found."""
        window = self._window(tool, args)
        try:
            _, record = self._find(env, tool, args)
        except ToolFailure as missing:
            terms = [w for k, v in args.items() if not self._is_limit(k) for s in _strings(v) for w in _words(s)]
            best = []
            for r in self._visible(env):
                hay = " ".join(_strings({k: v for k, v in r.items() if k != "url"})).lower()
                score = sum(1 for w in terms if w in hay)
                if terms and score * 2 >= len(terms):
                    best.append((-score, r["id"], r))
            if not best:
                raise missing from None
            best.sort(key=lambda x: (x[0], x[1]))
            return {"tool": tool.name, "matches": [r for _, _, r in best[:self._limit(tool, args)]]}
        key = self._key_argument(tool, args)[0]
        units = {k: v for k, v in args.items() if k.lower() in ("temperature_unit", "units", "unit")
                 and isinstance(v, str) and v.lower() in _TEMPERATURE}
        # a cap is met by the one record a lookup answers
        self._refuse_unhonoured(tool, args, {key, *units, *(k for pair in _WINDOWS for k in pair),
                                             *(k for k in args if self._is_limit(k))})
        if units and isinstance(record.get("value"), int | float):
            unit = next(iter(units.values())).lower()
            record = record | {"value": round(_TEMPERATURE[unit](record["value"]), 2), "unit": unit}
        if window is None:
            return {"tool": tool.name, self.entity: record}
        if date.fromisoformat(record.get("date", "1970-01-01")) > window[1]:
            raise ToolFailure(f"{tool.name}: no data for {record['name']} in that period: it is listed from "
                              f"{record['date']}", kind="not_found")
        return {"tool": tool.name, "period": self._period(window), self.entity: record}

    def _new_id(self, env: AppEnv) -> str:
        n = env.tree.data["next"]
        env.tree.data["next"] = n + 1
        return f"{self.prefix}-new-{n:04d}"

    def _create(self, env: AppEnv, tool: ToolEntry, args: dict[str, Any]) -> Any:
        name = next(iter(_strings(args)), "") or f"{self.entity} {env.tree.data['next']}"
        record = {"id": self._new_id(env), "name": name[:200], "date": env.clock.today().isoformat(),
                  "created_at": env.now(), "created_by": tool.name, "fields": args}
        env.tree.data["records"].append(record)
        return {"tool": tool.name, "created": record}

    def _update(self, env: AppEnv, tool: ToolEntry, args: dict[str, Any]) -> Any:
        prop, record = self._find(env, tool, args)
        changes = {k: v for k, v in args.items() if k != prop}
        record.setdefault("fields", {}).update(changes)
        record["updated_at"] = env.now()
        return {"tool": tool.name, "updated": record["id"], "changed": sorted(changes), self.entity: record}

    def _delete(self, env: AppEnv, tool: ToolEntry, args: dict[str, Any]) -> Any:
        prop, record = self._find(env, tool, args)
        env.tree.data["records"].remove(record)
        out = {"tool": tool.name, "deleted": record["id"]}
        details = {k: v for k, v in args.items() if k != prop}
        if details:  # what was removed from it (a slide, a task of a request): the record holds no finer parts
            out["details"] = details
        return out

    def _compute(self, env: AppEnv, tool: ToolEntry, args: dict[str, Any]) -> Any:
        canonical = json.dumps(args, sort_keys=True, ensure_ascii=False)
        digest = hashlib.sha256(f"{self.name}/{tool.name}/{canonical}".encode()).hexdigest()[:16]
        nums = list(_numbers(args))
        stats = {"count": len(nums), "sum": round(sum(nums), 6), "min": min(nums), "max": max(nums),
                 "mean": round(sum(nums) / len(nums), 6)} if nums else {"count": 0}
        texts = list(_strings(args))
        record = {"id": f"{self.prefix}-{digest}", "name": f"{tool.name} {digest[:8]}",
                  "date": env.clock.today().isoformat(), "created_at": env.now(), "created_by": tool.name,
                  "url": f"https://{self.prefix}.example/{tool.name}/{digest}", "fields": args}
        existing = next((r for r in env.tree.data["records"] if r["id"] == record["id"]), None)
        if existing is None:  # the same input computes the same artifact, kept once
            env.tree.data["records"].append(record)
        return {"tool": tool.name, "id": record["id"], "url": record["url"], "numbers": stats,
                "text_items": len(texts), "characters": sum(len(t) for t in texts)}


class CatalogueServer(AppServer):
    """The MCP server of one simulated catalogue server: schema check, then the engine, in a transaction."""

    app: CatalogueApp

    async def call_tool(self, name: str, arguments: dict[str, Any], context: Context[Any, Any] | None = None) -> Any:
        app = self.app
        tool = app.entry.tool(name)
        if tool is None:
            return error_result(app.render(app.error_payload(name, ToolFailure(f"Unknown tool: {name}",
                                                                               kind="not_found"))))
        arguments = arguments or {}
        violations = app.violations(tool, arguments)
        if violations:
            return error_result(app.render(app.validation_payload(name, violations)))
        env = self.env
        try:
            with env.tree.transaction():  # type: ignore[attr-defined]
                result = app.run(env, tool, dict(arguments))
        except ToolFailure as failure:
            return error_result(app.render(app.error_payload(name, failure)))
        except Exception as exc:  # an engine bug: recorded, never a crash
            env.internal_errors.append(f"{name}: {type(exc).__name__}: {exc}")
            return error_result(app.render(app.error_payload(name, ToolFailure(f"internal error in {name}",
                                                                               kind="internal"))))
        return CallToolResult(content=[TextContent(type="text", text=app.render(result))])


@cache
def simulated_app(name: str) -> CatalogueApp:
    entry = catalogue().get(name)
    if entry is None or entry.kind != "simulated":
        raise KeyError(f"{name!r} is not a simulated LiveMCPTool server")
    if name == "12306-mcp":  # stations, timetables and fares need more than one record list
        from mcp_persona.livemcptool.rail import RailApp

        return RailApp(entry)
    return CatalogueApp(entry)
