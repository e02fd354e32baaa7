"""Do the simulated servers answer the call a careful model would make, and does every argument count?

Both questions are asked of the gold chains. Each chain is replayed once on a fresh environment; at each
call to a simulated server the server's state is saved, and after the chain every probe of that call runs
on that saved state (restored before each probe), which is what a fresh environment replaying the chain
up to that call would hold, at a fraction of the cost. Real servers (LiveMCPTool's excel, filesystem...)
are not probed: their behaviour is their own.

* :func:`fair_variants` are the forms of a read call a careful model plausibly sends: other case, a place
  with its region or country ("Austin, TX"), singular for plural and back, the words of a query in
  another order, the instruction's own words for the value, a documented optional argument given its
  default. A variant is *robust* when its reply
  still holds every value the rest of the chain needs from the gold reply (the task's GT values and the
  later calls' arguments found in it), and a *silent failure* when it succeeds with an empty answer (no
  cue to retry).
* :func:`robustness_gate` is the gate of ``mcp-persona validate``: every fair variant of every gold read,
  scored per suite and per server; the suite fails below :data:`GATE_PCT` answered as the real service
  would, or on any empty success that no :class:`~mcp_persona.apps._normalize.StrictNote` of the app
  excuses (a note says, per tool argument and variant kind, that the real service is strict there).
* :func:`changed_variants` change one argument at a time to another accepted value (a flipped flag,
  another enum member, a different number or word); an argument is *ignored* when no such change alters
  the reply or turns it into an error.
"""

from __future__ import annotations

import functools
import json
import re
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import anyio

from mcp_persona.agents.reference import GoldReplayError, resolve_refs
from mcp_persona.apps import get_app
from mcp_persona.apps._corpus.search import STOPWORDS
from mcp_persona.apps._normalize import WORD_ALIASES, StrictNote, fold, is_identifier, same_name, terms
from mcp_persona.apps.base import App, AppEnv
from mcp_persona.context_tree import leaves
from mcp_persona.environment import Environment
from mcp_persona.mutants import Label, gold_plan
from mcp_persona.protocols.base import Protocol
from mcp_persona.scoring.normalize import appears_in, looks_like_id
from mcp_persona.tasks import Task
from mcp_persona.tasks.models import SearchCheckpoint, checkpoints_of
from mcp_persona.trajectory import ToolCallEvent

Args = dict[str, Any]
Schema = dict[str, Any]


@dataclass(frozen=True)
class Variant:
    kind: str  # case, qualifier, plural, reorder, phrase, optional (fair); flip, enum, number, text, list, added
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
# Arguments whose words are the content a call makes (an image's prompt), not a lookup: another wording is
# another thing, not the same thing asked differently.
_CONTENT_KEYS = re.compile(r"prompt|body|content|caption|html|markdown", re.IGNORECASE)
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
            and not _CONTENT_KEYS.search(key) and "pattern" not in prop
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
    if low.endswith(("s", "x", "ch", "sh", "ed")):  # no plural of a participle ("confirmed")
        return None
    return word + "s" if low.isalpha() and len(low) > 2 else None


_EDGE = re.compile(r"^\W+|\W+$")
_PROSE = re.compile(r"^[\w\s,.'&?!-]+$")  # words and a sentence's punctuation (no code, no markup)
_SMALL_WORDS = re.compile(r"[\w']+")
_ARTICLES = {"a", "an", "the"}


def _word(token: str) -> str:
    """A word of a sentence without the punctuation around it (a known abbreviation keeps its dot: "Mt.")."""
    bare = _EDGE.sub("", token)
    return bare + "." if token.endswith(".") and fold(bare) in WORD_ALIASES else bare


def instruction_phrase(value: str, instruction: str) -> str | None:
    """The instruction's own words for ``value``, as a model quoting its task would send them: the shortest
    run of the instruction's words whose search terms are those of ``value`` (stemmed, aliases expanded,
    in any order) and that keeps its small words but articles ("VS Code" is not "Code"); None when the
    instruction says it just as ``value`` does, or not at all, or ``value`` is not prose (code, markup)."""
    wanted = set(terms(value))
    words = [_word(w) for w in instruction.split()]
    if not wanted or len(wanted) > 6 or not _PROSE.match(value):
        return None
    small = {w for w in _SMALL_WORDS.findall(fold(value)) if w in STOPWORDS} - _ARTICLES
    best: str | None = None
    for i, first in enumerate(words):
        if not set(terms(first)) & wanted:
            continue
        for j in range(i, min(len(words), i + len(wanted) + 4)):
            phrase = " ".join(w for w in words[i:j + 1] if w)
            have = set(terms(phrase))
            if wanted <= have:
                kept = small <= set(_SMALL_WORDS.findall(fold(phrase)))
                if have == wanted and kept and (best is None or len(phrase) < len(best)):
                    best = phrase
                break
    return best if best and fold(best) != fold(value) else None


def fair_variants(args: Args, schema: Schema, instruction: str = "") -> Iterator[Variant]:
    """The forms of a read call a careful model plausibly sends (see the module docstring); ``instruction``
    (the task's) gives the ``phrase`` variant."""
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
        phrase = instruction_phrase(value, instruction) if instruction else None
        if phrase:
            yield Variant("phrase", key, args | {key: phrase})
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
    strict: tuple[StrictNote, ...] = ()  # the app's strict notes
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
                if k.lower() in ("count", "total", "totalresults", "total_count", "resultcount",
                                 "resultsizeestimate") and v == 0:
                    zero = True
                walk(v)

    walk(data)
    return zero or (bool(lists) and all(not x for x in lists)) or data in ({}, [], None, "")


def _leaves(value: Any) -> Iterator[str]:
    """The scalars of a JSON value as text (numbers and strings; not booleans nor nulls)."""
    return (str(v) for v in leaves(value) if isinstance(v, str | int | float) and not isinstance(v, bool))


def _needed(task: Task, gold: ToolCallEvent, later: list[ToolCallEvent]) -> list[str]:
    """What the rest of the chain takes from ``gold``'s reply: GT values and later arguments found in it
    (a value also in the call's own arguments is an echo, not something learnt)."""
    own = set(_leaves(gold.arguments))
    candidates = [v for cp in checkpoints_of(task) if isinstance(cp, SearchCheckpoint) for v in cp.gt_value]
    candidates += [v for e in later for v in _leaves(e.arguments) if len(v) >= 2]
    out = []
    for v in dict.fromkeys(candidates):
        if v not in own and v.lower() not in ("true", "false") and appears_in(v, gold.result):
            out.append(v)
    return out


Maker = Callable[[Args, Schema], Iterator[Variant]]


async def probe_task(task: Task, protocol: Protocol, make: Maker, *, reads_only: bool) -> list[ProbedCall]:
    """Replay ``task``'s gold chain; then send each call's variants (from ``make``) on the state the call saw.
    :func:`fair_variants` is given the task's instruction (for the ``phrase`` variant)."""
    if make is fair_variants:
        make = functools.partial(fair_variants, instruction=task.instruction)
    spec = protocol.pool(task, protocol.settings({}), "selected")
    out: list[ProbedCall] = []
    async with protocol.environment(task, "selected", spec) as env:
        plan = gold_plan(task)
        # Calls after the last one to a simulated server are not made: nothing of theirs is probed, and a real
        # server (started on its first call) costs seconds. What the probes need of them is their arguments.
        last = max((i for i, p in enumerate(plan) if _app_env(env, p.call.server) is not None), default=-1)
        schemas = {(t.server, t.name): t.input_schema for t in env.pool}
        results: dict[Label, ToolCallEvent] = {}
        saved: list[tuple[ProbedCall, bytes, AppEnv]] = []
        events: list[ToolCallEvent] = []
        for n, planned in enumerate(plan):
            server, tool = planned.call.server, planned.call.tool
            try:
                args = env.gold_arguments(resolve_refs(planned.call.arguments, results))
            except GoldReplayError:
                if n > last:
                    continue  # built from a reply not asked for
                break
            if n > last:
                events.append(ToolCallEvent(round=planned.round, server=server, tool=tool, arguments=args))
                continue
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
            saved.append((ProbedCall(task.id, planned.label, server, tool, args, event, read, [], app.tree.hash(),
                                     app.app.strict), before, app))
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


def names_accepted_form(probe: ProbedCall, variant: Variant, event: ToolCallEvent) -> bool:
    """An error the model can act on: it names the argument or shows the form the gold call used."""
    text = fold(event.result)
    gold = probe.args.get(variant.argument)
    return fold(variant.argument) in text or (isinstance(gold, str) and bool(gold.strip()) and fold(gold) in text)


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


# -- the gate of `mcp-persona validate` --------------------------------------------------------------------
GATE_PCT = 97.0  # the share of fair variants a suite must answer as the real service would
FINE = ("robust", "refused", "strict")


def gate_verdict(probe: ProbedCall, variant: Variant, event: ToolCallEvent) -> str:
    """:func:`verdict` as the gate reads it: ``robust``; ``refused`` (an error that names the accepted form)
    or ``error`` (one that does not); ``strict`` (nothing, or not what the chain needs, where a note of the
    app says the real service is strict for this kind of variant); else ``silent`` or ``lost``."""
    v = verdict(probe, event)
    if v == "error":
        return "refused" if names_accepted_form(probe, variant, event) else "error"
    if v in ("silent", "lost") and any(n.covers(probe.tool, variant.argument, variant.kind) for n in probe.strict):
        return "strict"
    return v


@dataclass
class RobustnessReport:
    """The gate's counts: verdicts per server and per variant kind, and the unexcused empty successes."""

    tasks: int = 0
    read_calls: int = 0
    by_server: dict[str, Counter[str]] = field(default_factory=dict)
    by_kind: dict[str, Counter[str]] = field(default_factory=dict)
    silent: list[str] = field(default_factory=list)  # "task server:tool kind argument=value", unexcused
    note_problems: list[str] = field(default_factory=list)

    def add(self, task: Task, probe: ProbedCall, variant: Variant, v: str) -> None:
        self.by_server.setdefault(probe.server, Counter())[v] += 1
        self.by_kind.setdefault(variant.kind, Counter())[v] += 1
        if v == "silent":
            self.silent.append(f"{task.id} {probe.server}:{probe.tool} {variant.kind} "
                               f"{variant.argument}={variant.args.get(variant.argument)!r}")

    @property
    def totals(self) -> Counter[str]:
        return sum(self.by_server.values(), Counter())

    @staticmethod
    def pct(counts: Counter[str], *kinds: str) -> float | None:
        """The share (%) of ``counts`` whose verdict is one of ``kinds`` (default: answered as the real
        service would); None when nothing was counted."""
        total = sum(counts.values())
        return 100 * sum(counts[k] for k in kinds or FINE) / total if total else None

    def score(self, server: str | None = None) -> float | None:
        return self.pct(self.by_server.get(server, Counter()) if server else self.totals)

    def summary(self) -> list[str]:
        """What ``mcp-persona validate`` prints: the suite's score, by variant kind, and per server."""
        t = self.totals
        total = sum(t.values())
        if not total:
            return [f"robustness: no fair variant of a gold read to replay ({self.read_calls} reads probed)"]
        kinds = " · ".join(f"{k} {self.pct(c) or 0:.1f}%" for k, c in sorted(self.by_kind.items()))
        servers = sorted(self.by_server.items(), key=lambda kv: (self.pct(kv[1]) or 0, kv[0]))
        return [
            f"robustness: {self.score() or 0:.1f}% of {total} fair variants of {self.read_calls} gold reads answered "
            f"as the real service would (robust {t['robust']} = {self.pct(t, 'robust') or 0:.1f}%, refused naming the "
            f"accepted form {t['refused']}, strict like the real service {t['strict']}); unanswered: silent "
            f"{t['silent']}, lost {t['lost']}, unhelpful error {t['error']} · by kind: {kinds}",
            "robustness per server: " + " · ".join(
                f"{name} {self.pct(c) or 0:.1f}% of {sum(c.values())}"
                + (f" ({c['strict']} strict)" if c["strict"] else "") for name, c in servers),
        ]

    def problems(self, gate: float = GATE_PCT) -> list[str]:
        out = list(self.note_problems)
        score = self.score()
        if score is not None and score < gate:
            worst = sorted((s, name) for name in self.by_server if (s := self.score(name)) is not None and s < gate)
            out.append(f"robustness {score:.1f}% is below {gate:g}% (fair variants of gold reads answered as the "
                       "real service would); lowest: " + ", ".join(f"{n} {s:.1f}%" for s, n in worst[:5]))
        out += [f"robustness: {s} succeeds with nothing (no cue to retry) — make the server take this form "
                "(mcp_persona/apps/_normalize.py) or, where the real service is strict, add a StrictNote to the app"
                for s in self.silent]
        return out


def note_problems(server: str, app: App) -> list[str]:
    """Strict notes that name no tool of ``app`` or no argument of that tool (stale or mistyped)."""
    schemas = {t.name: t.parameters for t in app.sdk_tools}
    out = []
    for note in app.strict:
        if note.tool not in schemas:
            out.append(f"strict note {note.key!r} of {server}: no tool {note.tool!r}")
        elif note.argument not in _properties(schemas[note.tool]):
            out.append(f"strict note {note.key!r} of {server}: {note.tool} has no argument {note.argument!r}")
    return out


async def robustness_gate(tasks: Sequence[Task], protocol: Protocol, *, concurrency: int = 4,
                          progress: Callable[[int], None] | None = None) -> RobustnessReport:
    """Every fair variant of every read call of every gold chain, replayed on the state the call saw and
    judged by :func:`gate_verdict` (tasks side by side, each in its own environment); ``progress`` is told
    how many tasks are probed as each one is."""
    report = RobustnessReport(tasks=len(tasks))
    found: list[list[ProbedCall]] = [[] for _ in tasks]
    limiter = anyio.CapacityLimiter(concurrency)
    done = 0

    async def one(i: int, task: Task) -> None:
        nonlocal done
        async with limiter:
            found[i] = await probe_task(task, protocol, fair_variants, reads_only=True)
            done += 1
            if progress is not None:
                progress(done)

    async with anyio.create_task_group() as tg:
        for i, task in enumerate(tasks):
            tg.start_soon(one, i, task)
    checked: set[str] = set()
    for task, probes in zip(tasks, found, strict=True):
        for probe in probes:
            report.read_calls += 1
            for variant, event in probe.probes:
                report.add(task, probe, variant, gate_verdict(probe, variant, event))
            if probe.server not in checked and probe.strict:
                checked.add(probe.server)
                report.note_problems += note_problems(probe.server, get_app(probe.server))
    return report


__all__ = ["FINE", "GATE_PCT", "PLACE_QUALIFIERS", "ProbedCall", "RobustnessReport", "Variant", "changed_variants",
           "fair_variants", "gate_verdict", "ignored", "instruction_phrase", "looks_empty", "names_accepted_form",
           "note_problems", "probe_task", "robustness_gate", "verdict"]
