"""Do the simulated servers answer the call a careful model would make, and does every argument count?

Both questions are asked of the gold chains. Each chain is replayed once on a fresh environment; at each
call to a simulated server the server's state is saved, and after the chain every probe of that call runs
on that saved state (restored before each probe), which is what a fresh environment replaying the chain
up to that call would hold, at a fraction of the cost. Real servers (LiveMCPTool's excel, filesystem...)
are not probed: their behaviour is their own.

* :func:`fair_variants` are the forms of a read call a careful model plausibly sends: other case, a place
  with its region or country ("Austin, TX"), singular for plural and back, the words of a query in
  another order, a documented optional argument given its default. A variant is *robust* when its reply
  still holds every value the rest of the chain needs from the gold reply (the task's GT values and the
  later calls' arguments found in it), and a *silent failure* when it succeeds with an empty answer (no
  cue to retry).
* :func:`changed_variants` change one argument at a time to another accepted value (a flipped flag,
  another enum member, a different number or word); an argument is *ignored* when no such change alters
  the reply or turns it into an error.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from mcp_persona.agents.reference import GoldReplayError, resolve_refs
from mcp_persona.apps._normalize import is_identifier, same_name
from mcp_persona.apps.base import AppEnv
from mcp_persona.environment import Environment
from mcp_persona.mutants import Label, gold_plan
from mcp_persona.protocols.base import Protocol
from mcp_persona.scoring.normalize import appears_in, looks_like_id
from mcp_persona.tasks import Task
from mcp_persona.tasks.models import SearchCheckpoint
from mcp_persona.trajectory import ToolCallEvent

Args = dict[str, Any]
Schema = dict[str, Any]


@dataclass(frozen=True)
class Variant:
    kind: str  # case, qualifier, plural, reorder, optional (fair); flip, enum, number, text, list, added (change)
    argument: str
    args: Args


# Places the gold chains name, with the region or country a model may add ("Austin, TX", "Tokyo, Japan").
PLACE_QUALIFIERS: dict[str, str] = {
    "Austin": "TX", "Seattle": "WA", "Chicago": "IL", "Boston": "MA", "Miami": "FL", "Denver": "CO",
    "New York": "NY", "San Francisco": "CA", "Los Angeles": "CA", "Portland": "OR", "Houston": "TX",
    "Atlanta": "GA", "Washington": "DC", "Tokyo": "Japan", "Osaka": "Japan", "Kyoto": "Japan", "London": "UK",
    "Paris": "France", "Berlin": "Germany", "Rome": "Italy", "Barcelona": "Spain", "Madrid": "Spain",
    "Singapore": "Singapore", "Hong Kong": "China", "Beijing": "China", "Shanghai": "China",
    "Hangzhou": "China", "Shenzhen": "China", "Guangzhou": "China", "Chengdu": "China", "Seoul": "South Korea",
    "Taipei": "Taiwan", "Sydney": "Australia", "Toronto": "Canada", "Vancouver": "Canada", "Dubai": "UAE",
    "Bangkok": "Thailand", "Amsterdam": "Netherlands", "Lisbon": "Portugal", "Mumbai": "India",
}
# Arguments that name a thing exactly (an id, a path, a folder, a tag, a model, a subreddit): not reworded.
_ID_KEYS = re.compile(r"(^|_)(id|ids|uuid|key|token|url|uri|path|file|dir|email|code|hash|sha|cursor|folder|"
                      r"mailbox|tag|tags|model|subreddit|channel|article|username|user|owner|repo|repository|package|sheet|"
                      r"sheet_?name)s?$|Id$|Ids$|Path$|Url$|"
                      r"Token$|Code$|date|time", re.IGNORECASE)
_QUERY_KEYS = re.compile(r"query|keyword|search|^q$|terms?$|text$|topic", re.IGNORECASE)
_WORDS = re.compile(r"^[A-Za-z][A-Za-z' -]*$")
NONSENSE = "qzxv"


def _properties(schema: Schema) -> dict[str, Schema]:
    return dict(schema.get("properties") or {})


def _enum(prop: Schema) -> list[Any] | None:
    """The values an enum (or a single-valued ``const``) argument accepts, also inside ``anyOf``."""
    for node in [prop, *(prop.get("anyOf") or prop.get("oneOf") or [])]:
        if isinstance(node, dict) and "enum" in node:
            return list(node["enum"])
        if isinstance(node, dict) and "const" in node:
            return [node["const"]]
    return None


def _is_free_value(key: str, value: Any, prop: Schema) -> bool:
    """A string a model words itself (a place, a category, a query), not an id, a flag or an enum member."""
    return (isinstance(value, str) and bool(value.strip()) and _enum(prop) is None and not _ID_KEYS.search(key)
            and "pattern" not in prop
            and not looks_like_id(value) and not is_identifier(value) and len(value) <= 80
            and not value.lstrip().startswith("-"))


def _plural(word: str) -> str | None:
    low = word.lower()
    if low.endswith("ies") and len(low) > 4:
        return word[:-3] + "y"
    if low.endswith("s") and not low.endswith(("ss", "us", "is")) and len(low) > 3:
        return word[:-1]
    if low.endswith("y") and len(low) > 2 and low[-2] not in "aeiou":
        return word[:-1] + "ies"
    if low.endswith(("s", "x", "ch", "sh")):
        return None
    return word + "s" if low.isalpha() and len(low) > 2 else None


def fair_variants(args: Args, schema: Schema) -> Iterator[Variant]:
    props = _properties(schema)
    for key, value in args.items():
        prop = props.get(key, {})
        if not _is_free_value(key, value, prop):
            continue
        other = value.lower() if value != value.lower() else value.title()
        if other != value and ":" not in value:  # search operators (in:inbox, OR) keep their case
            yield Variant("case", key, args | {key: other})
        for place, qualifier in PLACE_QUALIFIERS.items():
            if "," not in value and same_name(value, place):
                yield Variant("qualifier", key, args | {key: f"{value}, {qualifier}"})
                break
        words = value.split()
        # a common noun's number (not a name's: "Miami"; not a gerund or mass noun: "hiking")
        if 1 <= len(words) <= 3 and _WORDS.match(value) and words[-1].islower() and not words[-1].endswith("ing"):
            swapped = _plural(words[-1])
            if swapped:
                yield Variant("plural", key, args | {key: " ".join([*words[:-1], swapped])})
        # a query's words in another order (not a name's: "Lab Orbit")
        if len(words) >= 2 and _QUERY_KEYS.search(key) and _WORDS.match(value) and any(w.islower() for w in words):
            yield Variant("reorder", key, args | {key: " ".join(reversed(words))})
    for key, prop in props.items():
        if key not in args and "default" in prop and prop["default"] not in (None, ""):
            yield Variant("optional", key, args | {key: prop["default"]})


def _other_numbers(value: float | int, prop: Schema, integer: bool) -> list[float | int]:
    lo, hi = prop.get("minimum"), prop.get("maximum")
    candidates = ([1, 2, value + 1, value * 2 + 1, 50, 100_000] if integer
                  else [value + 1.5, value / 2, 1.0, 100_000.0])
    out: list[float | int] = []
    for c in candidates:
        c = int(c) if integer else c
        if c != value and c not in out and (lo is None or c >= lo) and (hi is None or c <= hi):
            out.append(c)
    return out[:3] + out[-1:] if len(out) > 3 else out  # a few near values and a far one


def changed_variants(args: Args, schema: Schema) -> Iterator[Variant]:
    """Each argument in turn set to other values the schema accepts (absent optional ones added): a few
    per argument, since one change may happen not to matter on the data (a limit above the hits)."""
    props = _properties(schema)
    for key, prop in props.items():
        present = key in args
        value = args[key] if present else prop.get("default")
        kind, news = "", []
        members = _enum(prop)
        if members is not None:
            kind, news = "enum", [e for e in members if e != value]
        elif isinstance(value, bool) or prop.get("type") == "boolean":
            kind, news = "flip", [not bool(value)]
        elif isinstance(value, int | float) or prop.get("type") in ("integer", "number"):
            base = value if isinstance(value, int | float) else 0
            kind, news = "number", _other_numbers(base, prop, prop.get("type") == "integer" or isinstance(base, int))
        elif isinstance(value, list) or prop.get("type") == "array":
            kind = "list"
            news = ([value[:-1], value[1:]] if isinstance(value, list) and len(value) > 1 else []) + [[NONSENSE]]
        elif isinstance(value, str) or prop.get("type") == "string":
            kind, news = "text", [NONSENSE]
        for new in news:
            if not (present and new == args[key]):
                yield Variant(kind if present else "added", key, args | {key: new})


# -- replaying --------------------------------------------------------------------------------------------
def _app_env(env: Environment, server: str) -> AppEnv | None:
    apps = getattr(env, "apps", {}) or {}
    if server in apps:
        return apps[server]
    episode = getattr(env, "_episode", None)
    return episode.sim_envs.get(server) if episode is not None else None


@dataclass
class ProbedCall:
    task_id: str
    label: Label
    server: str
    tool: str
    args: Args
    gold: ToolCallEvent
    read: bool
    needed: list[str]
    state: str = ""  # the server's state hash after the gold call
    probes: list[tuple[Variant, ToolCallEvent]] = field(default_factory=list)
    states: list[str] = field(default_factory=list)  # the state hash after each probe


def looks_empty(text: str) -> bool:
    """An answer with nothing in it: no text, an empty list, or every list empty / a zero count."""
    if not text.strip():
        return True
    try:
        data = json.loads(text)
    except json.JSONDecodeError:
        return False
    lists: list[list[Any]] = []
    zero = False

    def walk(node: Any) -> None:
        nonlocal zero
        if isinstance(node, list):
            lists.append(node)
            for x in node:
                walk(x)
        elif isinstance(node, dict):
            for k, v in node.items():
                if k.lower() in ("count", "total", "totalresults", "total_count", "resultcount") and v == 0:
                    zero = True
                walk(v)

    walk(data)
    return zero or (bool(lists) and all(not x for x in lists)) or data in ({}, [], None, "")


def _leaves(value: Any) -> Iterator[str]:
    if isinstance(value, dict):
        for v in value.values():
            yield from _leaves(v)
    elif isinstance(value, list):
        for v in value:
            yield from _leaves(v)
    elif isinstance(value, str | int | float) and not isinstance(value, bool):
        yield str(value)


def _needed(task: Task, gold: ToolCallEvent, later: list[ToolCallEvent]) -> list[str]:
    """What the rest of the chain takes from ``gold``'s reply: GT values and later arguments found in it
    (a value also in the call's own arguments is an echo, not something learnt)."""
    own = set(_leaves(gold.arguments))
    candidates = [v for cp in task.checkpoints if isinstance(cp, SearchCheckpoint) for v in cp.gt_value]
    candidates += [v for e in later for v in _leaves(e.arguments) if len(v) >= 2]
    out = []
    for v in dict.fromkeys(candidates):
        if v not in own and v.lower() not in ("true", "false") and appears_in(v, gold.result):
            out.append(v)
    return out


Maker = Callable[[Args, Schema], Iterator[Variant]]


async def probe_task(task: Task, protocol: Protocol, make: Maker, *, reads_only: bool) -> list[ProbedCall]:
    """Replay ``task``'s gold chain; then send each call's variants (from ``make``) on the state the call saw."""
    spec = protocol.pool(task, protocol.settings({}), "selected")
    out: list[ProbedCall] = []
    async with protocol.environment(task, "selected", spec) as env:
        schemas = {(t.server, t.name): t.input_schema for t in env.pool}
        results: dict[Label, ToolCallEvent] = {}
        saved: list[tuple[ProbedCall, bytes, AppEnv]] = []
        events: list[ToolCallEvent] = []
        for planned in gold_plan(task):
            try:
                args = env.gold_arguments(resolve_refs(planned.call.arguments, results))
            except GoldReplayError:
                break
            server, tool = planned.call.server, planned.call.tool
            app = _app_env(env, server)
            before = app.save_state() if app is not None else None
            before_hash = app.tree.hash() if app is not None else None
            event = await env.call(server, tool, args, round=planned.round)
            results[planned.label] = event
            events.append(event)
            if app is None or before is None or event.is_error:
                continue
            read = app.tree.hash() == before_hash
            if reads_only and not read:
                continue
            saved.append((ProbedCall(task.id, planned.label, server, tool, args, event, read, [], app.tree.hash()),
                          before, app))
        for i, (probe, before, app) in enumerate(saved):
            after = app.save_state()
            probe.needed = _needed(task, probe.gold, events[events.index(probe.gold) + 1:])
            for variant in make(probe.args, schemas.get((probe.server, probe.tool), {})):
                app.restore_state(before)
                probe.probes.append((variant, await env.call(probe.server, probe.tool, variant.args,
                                                             round=probe.label[0], call_id=f"v_{i}")))
                probe.states.append(app.tree.hash())
            app.restore_state(after)
            out.append(probe)
    return out


def verdict(probe: ProbedCall, event: ToolCallEvent) -> str:
    """``robust``, ``silent`` (an empty success), ``error`` (a failure the model can read) or ``lost``
    (an answer without what the chain needs)."""
    if event.is_error:
        return "error"
    if all(appears_in(v, event.result) for v in probe.needed) and not (looks_empty(event.result)
                                                                      and not looks_empty(probe.gold.result)):
        return "robust"
    return "silent" if looks_empty(event.result) else "lost"


def ignored(probe: ProbedCall, index: int) -> bool:
    """The ``index``-th probe's reply and end state are the gold call's: the changed argument changed nothing."""
    event = probe.probes[index][1]
    return (event.is_error == probe.gold.is_error and event.result == probe.gold.result
            and probe.states[index] == probe.state)


__all__ = ["PLACE_QUALIFIERS", "ProbedCall", "Variant", "changed_variants", "fair_variants", "ignored",
           "looks_empty", "probe_task", "verdict"]
