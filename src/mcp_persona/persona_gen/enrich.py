"""Context enrichment: fill a prototype's placeholders from the user's context and build the gold chain.

The chain runs step by step in a fresh environment of the task's contexts. Each input is filled
from, in order: an entity already bound to a placeholder (when the value is among what an earlier
step returned, it is *found*; else it must be *given*); an entity newly bound to a still-open
placeholder, chosen among those an earlier step returned (lazy binding keeps the person, chat or note
in the instruction consistent with what the tools list); an earlier step's output; the placeholders'
words (titles, message bodies, search terms); the task clock (dates and times). A value an earlier
call returned as its only result becomes a ``{"$ref": ...}``; one picked from a list stays concrete.
Placeholders no step needed are bound at random at the end, and the instruction S_inst is rendered.
"""

from __future__ import annotations

import json
import pickle
import random
import re
from dataclasses import dataclass, field
from datetime import date, datetime, time, timedelta
from typing import Any, Literal

from mcp_persona.agents.reference import resolve_refs
from mcp_persona.apps import get_app
from mcp_persona.clock import DEFAULT_CLOCK, TaskClock
from mcp_persona.context_tree import Change, diff_states
from mcp_persona.environment import Environment
from mcp_persona.persona_gen.arguments import MISSING, Leaf, Unfillable, build_arguments
from mcp_persona.persona_gen.entities import ENTITY_KINDS, Entity, catalog, entities_of_kind, field_name_of
from mcp_persona.persona_gen.fields import TEXT, resolve, snake
from mcp_persona.persona_gen.graph import ToolGraph
from mcp_persona.persona_gen.prototype import Prototype
from mcp_persona.persona_gen.sample import Chain
from mcp_persona.tasks import ServerContext, Task, TaskSpec
from mcp_persona.trajectory import ToolCallEvent

Source = Literal["found", "given"]
_TITLE = frozenset({"summary", "title", "subject", "name", "display_title"})
_QUERY = frozenset({"query", "keyword", "keywords", "search_query", "q", "question", "topic"})
_BODY = frozenset({"content", "text", "body", "message", "description", "caption"})


class EnrichError(ValueError):
    """The chain cannot be grounded in this context (an input no value fits, a tool error...)."""


@dataclass
class Binding:
    name: str
    kind: str
    entity: Entity | None = None


@dataclass(frozen=True)
class Use:
    """A value a gold argument takes, and where the agent can learn it."""

    value: str
    link: str
    source: Source
    step: int | None = None  # the step whose output holds it (found values)
    binding: str | None = None  # the placeholder whose entity it belongs to
    shown: str = ""  # the value as that output shows it (a note's name where the argument is its path)

    @property
    def as_shown(self) -> str:
        return self.shown or self.value


@dataclass
class Step:
    server: str
    tool: str
    mutates: bool
    arguments: dict[str, Any]  # gold arguments, $refs kept
    event: ToolCallEvent
    uses: list[Use] = field(default_factory=list)
    changes: list[Change] = field(default_factory=list)
    after: dict[str, Any] = field(default_factory=dict, repr=False)  # the app state after the call


@dataclass
class Draft:
    chain: Chain
    prototype: Prototype
    servers: list[ServerContext]
    clock: TaskClock
    bindings: dict[str, Binding]
    values: dict[str, str]  # placeholder -> the words it was filled with
    instruction: str  # S_inst
    steps: list[Step]
    day: date | None = None

    def entity_of(self, placeholder: str) -> Entity | None:
        b = self.bindings.get(placeholder)
        return b.entity if b else None


def draft_task(servers: list[ServerContext], clock: TaskClock, seed: int = 0) -> Task:
    """A stand-in task to open an environment on (ids generated there match a later replay: same servers,
    same order, same seed)."""
    return Task[TaskSpec](id="draft", suite="draft", instruction="draft", servers=servers, clock=clock,
                          spec=TaskSpec(), seed=seed)


async def enrich(graph: ToolGraph, chain: Chain, proto: Prototype, *, contexts: dict[str, str],
                 clock: TaskClock = DEFAULT_CLOCK, seed: int = 0) -> Draft:
    servers = [ServerContext(server=s, context_id=contexts[s]) for s in chain.servers]
    return await _Enricher(graph, chain, proto, servers, clock, random.Random(seed)).run()


class _Enricher:
    def __init__(self, graph: ToolGraph, chain: Chain, proto: Prototype, servers: list[ServerContext],
                 clock: TaskClock, rng: random.Random) -> None:
        self.graph, self.chain, self.proto = graph, chain, proto
        self.servers, self.clock, self.rng = servers, clock, rng
        self.contexts = {s.server: s.context_id for s in servers}
        self.bindings = {n: Binding(n, k) for n, k in proto.placeholders.items() if k in ENTITY_KINDS}
        self.steps: list[Step] = []
        self.results: dict[tuple[int, int], ToolCallEvent] = {}
        self.day: date | None = None
        self.at: time | None = None
        self.texts_used: set[str] = set()
        self._given_here: set[str] = set()  # placeholders whose value the current call already states

    async def run(self) -> Draft:
        async with Environment(draft_task(self.servers, self.clock)) as env:
            for i, key in enumerate(self.chain.tools):
                await self._step(env, i, key)
        self._bind_rest()
        values = self._render_values()
        instruction = self.proto.template
        for name, value in values.items():
            instruction = instruction.replace("{" + name + "}", value)
        return Draft(self.chain, self.proto, self.servers, self.clock, self.bindings, values, instruction,
                     self.steps, self.day)

    # -- one step ------------------------------------------------------------------------------------------------
    async def _step(self, env: Environment, i: int, key: str) -> None:
        node = self.graph.nodes[key]
        schema = next(t.parameters for t in get_app(node.server).sdk_tools if t.name == node.tool)
        uses: list[Use] = []
        hints: list[str] = []
        self._given_here = set()
        try:
            args = build_arguments(schema, tool=node.tool, hints=hints,
                                   fill=lambda leaf: self._fill(i, node.server, leaf, uses, hints))
        except Unfillable as exc:
            raise EnrichError(f"step {i + 1} {key}: no value for required input {exc}") from exc
        tree = env.apps[node.server].tree
        before = pickle.loads(pickle.dumps(tree.data))
        event = await env.call(node.server, node.tool, resolve_refs(args, self.results), round=i, call_id=f"gen_{i}")
        if event.is_error:
            raise EnrichError(f"step {i + 1} {key} failed: {event.result[:200]}")
        if not node.mutates and not self._feeds_resolve(i, event):
            args, event = await self._variant(env, i, node.server, node.tool, schema, args, event)
        self.results[(i, 0)] = event
        after = pickle.loads(pickle.dumps(tree.data))
        changes = diff_states(get_app(node.server).hierarchy, before, after) if node.mutates else []
        self.steps.append(Step(node.server, node.tool, node.mutates, args, event, uses, changes, after))

    def _feeds_resolve(self, i: int, event: ToolCallEvent) -> bool:
        """Whether the result holds the fields later steps of the chain take from it."""
        outgoing = [f for f in self.chain.feeds if f.src == i and f.kind == "key"]
        if not outgoing:
            return True
        try:
            parsed = json.loads(event.result)
        except json.JSONDecodeError:
            return False
        return any(values_at(parsed, f.link.out_path.split(".")) for f in outgoing)

    async def _variant(self, env: Environment, i: int, server: str, tool: str, schema: dict[str, Any],
                       args: dict[str, Any], event: ToolCallEvent) -> tuple[dict[str, Any], ToolCallEvent]:
        """A read whose default output lacks what the chain needs (Obsidian's periodic note as text, not
        metadata): try the other values of its optional top-level enum arguments."""
        for key, prop in schema.get("properties", {}).items():
            node = resolve(prop, schema.get("$defs", {}))
            if key in args or key in schema.get("required", []) or "enum" not in node:
                continue
            for option in node["enum"]:
                trial = {**args, key: option}
                again = await env.call(server, tool, resolve_refs(trial, self.results), round=i, call_id=f"gen_{i}")
                if not again.is_error and self._feeds_resolve(i, again):
                    return trial, again
        return args, event

    def _fill(self, i: int, server: str, leaf: Leaf, uses: list[Use], hints: list[str]) -> Any:
        keys = [lk for lk in leaf.links if lk != TEXT]
        if keys:
            return self._fill_key(i, server, leaf, keys, uses, hints)
        timed = self._fill_time(leaf)
        if timed is not MISSING:
            return timed
        return self._fill_text(i, server, leaf)

    # -- ids, paths, emails ----------------------------------------------------------------------------------------
    def _candidates(self, i: int, leaf: Leaf) -> list[tuple[Any, int, str, bool]]:
        """(value, producing step, concrete path, only result) for each value an earlier step fed this input."""
        out: list[tuple[Any, int, str, bool]] = []
        for f in self.chain.feeds_into(i):
            if f.kind != "key" or f.link.in_path != leaf.path or (f.src, 0) not in self.results:
                continue
            try:
                parsed = json.loads(self.results[(f.src, 0)].result)
            except json.JSONDecodeError:
                continue
            for value, path, unique in values_at(parsed, f.link.out_path.split(".") if f.link.out_path else []):
                if not any(v == value and s == f.src for v, s, _, _ in out):
                    out.append((value, f.src, path, unique))
        return out

    def _fill_key(self, i: int, server: str, leaf: Leaf, keys: list[str], uses: list[Use], hints: list[str]) -> Any:
        kinds = set(self.proto.placeholders.values())
        if not leaf.required and (("email" in keys and "phone" in kinds and "email_address" not in kinds)
                                  or ("mobile" in keys and "email_address" in kinds and "phone" not in kinds)):
            return MISSING  # the request names the person by the other handle
        cands = self._candidates(i, leaf)
        ctx = self.contexts[server]
        bound = [b for b in self.bindings.values() if b.entity is not None]
        for b in bound:  # 1. an entity already in the request
            for k in keys:
                v = b.entity.slot(k) if b.entity else None
                hit = _match(v, cands) if v else None
                if v and hit:
                    return self._found(leaf, k, v, hit, b, uses, hints)
        for b in self.bindings.values():  # 2. bind an open placeholder to something an earlier step returned
            if b.entity is not None or not (cands or leaf.required or not self._given_here):
                continue
            taken = {x.entity.id for x in bound if x.entity}
            options = [(e, k) for e in entities_of_kind(b.kind, server, ctx) if e.id not in taken
                       for k in keys if e.slot(k) and (not cands or _match(e.slot(k), cands))]
            if options:
                entity, k = self.rng.choice(options)
                b.entity = entity
                v = entity.slot(k) or ""
                hit = _match(v, cands)
                return self._found(leaf, k, v, hit, b, uses, hints) if hit else self._given(leaf, k, v, b, uses, hints)
        if cands:  # 3. what an earlier step returned, first (or only) result
            value, src, path, unique = cands[0]
            return self._found(leaf, keys[0], value, (value, src, path, unique), None, uses, hints)
        for b in bound:  # 4. not returned by the chain: the request must state it
            for k in keys:
                v = b.entity.slot(k) if b.entity else None
                if v and (leaf.required or b.name not in self._given_here):
                    return self._given(leaf, k, v, b, uses, hints)
        if leaf.required:  # 5. any fitting entity of the context, stated in the request
            pool = [e for e in catalog(server, ctx) if any(e.slot(k) for k in keys)]
            if pool:
                e = self.rng.choice(pool)
                k = next(k for k in keys if e.slot(k))
                return self._given(leaf, k, e.slot(k) or "", None, uses, hints, entity=e)
        return MISSING

    def _found(self, leaf: Leaf, link: str, value: Any, hit: tuple[Any, int, str, bool], b: Binding | None,
               uses: list[Use], hints: list[str]) -> Any:
        cand, src, path, unique = hit
        hints.append(self._hint(b.entity if b else None, link, value, path))
        uses.append(Use(str(value), link, "found", src, b.name if b else None, str(cand)))
        if unique and str(cand) == str(value):
            return {"$ref": f"{src}.0:{path}"}
        return _typed(value, leaf.node)

    def _given(self, leaf: Leaf, link: str, value: str, b: Binding | None, uses: list[Use], hints: list[str],
               entity: Entity | None = None) -> Any:
        ent = b.entity if b else entity
        hints.append(self._hint(ent, link, value, ""))
        uses.append(Use(str(value), link, "given", None, b.name if b else None))
        if b is not None:
            self._given_here.add(b.name)
        return _typed(value, leaf.node)

    def _hint(self, entity: Entity | None, link: str, value: Any, path: str) -> str:
        """The field name a value came from (``open_id``, ``chat_id``), for choosing an id-type enum."""
        if entity is not None:
            for lk, (v, source) in entity.slots.items():
                if v == str(value) and lk == link:
                    return source
        for server, ctx in self.contexts.items():
            name = field_name_of(server, ctx, value)
            if name:
                return name
        leaf = path.rsplit(".", 1)[-1] if path else link
        return leaf if not leaf.isdigit() else link

    # -- words -----------------------------------------------------------------------------------------------------
    def _fill_text(self, i: int, server: str, leaf: Leaf) -> Any:
        name = snake(leaf.name)
        role = "title" if name in _TITLE else "query" if name in _QUERY else "body" if name in _BODY else None
        if role is None:
            return MISSING
        texts = [(n, w) for n, w in self.proto.texts.items() if n not in self.texts_used]
        value: str | None = next((w for n, w in texts if _text_role(n) == role), None)
        if value is None and leaf.required and texts:
            value = texts[0][1]
        if value is None:
            value = self._fed_text(i, leaf)
        if value is None and role == "query":
            ents = [b.entity for b in self.bindings.values() if b.entity and b.entity.server == server]
            value = ents[0].display if ents else None
        if value is None:
            return MISSING
        self.texts_used.update(n for n, w in self.proto.texts.items() if w == value)
        if "json string" in leaf.description.lower():
            return json.dumps({"text": value}, ensure_ascii=False)
        return value

    def _fed_text(self, i: int, leaf: Leaf) -> str | None:
        """Text an earlier step (of another server) returned for this input: the name of an entity the
        request mentions if one is there, else the first text of the latest such step."""
        found: list[str] = []
        for f in sorted(self.chain.feeds_into(i), key=lambda f: -f.src):
            if f.kind == "text" and f.link.in_path == leaf.path and (f.src, 0) in self.results:
                try:
                    parsed = json.loads(self.results[(f.src, 0)].result)
                except json.JSONDecodeError:
                    continue
                found += [str(v) for v, _, _ in values_at(parsed, f.link.out_path.split("."))]
        shown = {b.entity.display for b in self.bindings.values() if b.entity}
        return next((v for v in found if v in shown), found[0] if found else None)

    # -- dates and times -------------------------------------------------------------------------------------------
    def _when(self) -> datetime:
        if self.day is None:
            events = [b for b in self.bindings.values() if b.kind == "event"]
            for b in events:
                if b.entity is None:
                    options = [e for s in self.contexts for e in entities_of_kind("event", s, self.contexts[s])
                               if e.day(self.clock.timezone)]
                    if options:
                        b.entity = self.rng.choice(options)
                start = b.entity.start(self.clock.timezone) if b.entity else None
                if start is not None:
                    self.day, self.at = start.date(), start.time()
                    break
            if self.day is None:
                self.day = self.clock.today() + timedelta(days=self.rng.randint(1, 5))
        if self.at is None:
            self.at = time(self.rng.randint(10, 17), 0)
        return self.clock.at(self.day, self.at.hour, self.at.minute)

    def _fill_time(self, leaf: Leaf) -> Any:
        name, path = snake(leaf.name), leaf.path.lower()
        wants = leaf.required or any(k in ("date", "time") for k in self.proto.placeholders.values())
        if not wants:
            return MISSING
        if name == "timestamp" and ("start" in path or "end" in path):
            start = self._when()
            return str(int((start + timedelta(hours=1 if "end" in path else 0)).timestamp()))
        if name == "timezone" and ("start" in path or "end" in path):
            return self.clock.timezone
        pattern = str(leaf.node.get("pattern", ""))
        if name in ("start_time", "end_time") and r"\d" in pattern:
            day = self._when().date()
            midnight = self.clock.at(day, 0) + (timedelta(days=1) if name == "end_time" else timedelta())
            return str(int(midnight.timestamp()))
        if name in ("time_min", "time_max"):
            day = self._when().date()
            midnight = self.clock.at(day, 0) + (timedelta(days=1) if name == "time_max" else timedelta())
            return midnight.isoformat()
        if name == "time" and leaf.required:
            return str(int(self._when().timestamp()))
        return MISSING

    # -- the instruction -------------------------------------------------------------------------------------------
    def _bind_rest(self) -> None:
        taken = {b.entity.id for b in self.bindings.values() if b.entity}
        for b in self.bindings.values():
            if b.entity is None:
                for s in self.contexts:
                    options = [e for e in entities_of_kind(b.kind, s, self.contexts[s]) if e.id not in taken]
                    if options:
                        b.entity = self.rng.choice(options)
                        taken.add(b.entity.id)
                        break
            if b.entity is None:
                raise EnrichError(f"no {b.kind} in the context for placeholder {{{b.name}}}")

    def _render_values(self) -> dict[str, str]:
        values: dict[str, str] = {}
        people = [b.entity for b in self.bindings.values() if b.kind == "person" and b.entity]
        for name, kind in self.proto.placeholders.items():
            if name in self.bindings:
                values[name] = self.bindings[name].entity.display  # type: ignore[union-attr]
            elif kind == "text":
                values[name] = self.proto.texts[name]
            elif kind == "date":
                values[name] = natural_day(self._when().date(), self.clock.today())
            elif kind == "time":
                values[name] = f"{self._when():%H:%M}"
            elif kind in ("phone", "email_address"):
                link = "mobile" if kind == "phone" else "email"
                hit = next((e.slot(link) for e in people if e.slot(link)), None)
                if hit is None:
                    raise EnrichError(f"no person with a {link} for placeholder {{{name}}}")
                values[name] = hit
            else:  # an id type
                hit = next((b.entity.slot(kind) for b in self.bindings.values() if b.entity and b.entity.slot(kind)),
                           None)
                if hit is None:
                    ents = [e for s in self.contexts for e in catalog(s, self.contexts[s]) if e.slot(kind)]
                    if not ents:
                        raise EnrichError(f"nothing in the context has a {kind} for placeholder {{{name}}}")
                    hit = self.rng.choice(ents).slot(kind)
                values[name] = str(hit)
        return values


# -- helpers ------------------------------------------------------------------------------------------------------
def values_at(obj: Any, pattern: list[str], path: str = "", unique: bool = True) -> list[tuple[Any, str, bool]]:
    """Every scalar at ``pattern`` (list indexes match any item): (value, concrete path, only result)."""
    if not pattern:
        return [(obj, path, unique)] if isinstance(obj, str | int) and not isinstance(obj, bool) else []
    head, rest = pattern[0], pattern[1:]
    prefix = f"{path}." if path else ""
    if isinstance(obj, list) and head.isdigit():
        only = unique and len(obj) == 1
        return [x for n, item in enumerate(obj) for x in values_at(item, rest, f"{prefix}{n}", only)]
    if isinstance(obj, dict) and head in obj:
        return values_at(obj[head], rest, f"{prefix}{head}", unique)
    return []


def _match(value: Any, cands: list[tuple[Any, int, str, bool]]) -> tuple[Any, int, str, bool] | None:
    v = str(value)
    for c in cands:
        cv = str(c[0])
        if cv == v or v.endswith("/" + cv):
            return c
    return None




def _typed(value: Any, node: dict[str, Any]) -> Any:
    if node.get("type") == "integer" and str(value).lstrip("-").isdigit():
        return int(value)
    return value


def _text_role(name: str) -> str:
    if re.search(r"title|subject|summary|name|heading", name):
        return "title"
    if re.search(r"query|keyword|search|topic|term", name):
        return "query"
    return "body"


def natural_day(day: date, today: date) -> str:
    """``tomorrow (Wednesday, March 11)``, or ``Friday, March 13`` further out."""
    label = {0: "today", 1: "tomorrow", -1: "yesterday"}.get((day - today).days)
    full = f"{day:%A, %B} {day.day}"
    return f"{label} ({full})" if label else full
