"""Every literal of a gold chain must be discoverable, in every suite.

A gold argument is a *literal* when it names something the task's world holds: a folder, a calendar, a
station, a sheet, an account, an id (the value is a name, key, or path prefix of a server's start state or
of an input file, or an id-like string found in them). A literal is *discoverable* when an agent can know
it before it sends the call:

* the agent is told it: the user prompt or the system prompt (the clock, the working folder);
* an earlier step of the gold chain showed it (a reply of a call of an earlier step, on a fresh
  environment; a call of the same step runs beside it and shows nothing in time) or the agent chose it
  itself in an earlier step (a note it created);
* the tool documents it: one of the values its schema lists (``enum``, ``const``, ``default``,
  ``examples``) or named in the tool's or the argument's description (``primary`` for Lark's calendar).

A path is also discoverable when each of its folders and its file name is; a list written as one string
(``Beijing|Shanghai``) when each item is. Everything else the agent writes is its own choice, not a lookup:
text (a message body, a new note's title, a query's own words when the query names nothing of the world),
numbers it picks or works out (a limit, an
amount, a timestamp for "Friday 10:00"), dates and times (calendar arithmetic on the clock and the
instruction's words). Protocols that score every argument against the gold call (MCPAgentBench) check
every value as a literal instead: there the agent has no free choice.

Values are compared as the scorers compare text (:func:`mcp_persona.scoring.normalize.normalize`: case,
Unicode width, whitespace), as whole words: ``Sales`` is not found inside ``Wholesale``, ``20`` is found in
``d20`` but not in ``2026``. A name is also known by the other names its own record lists (a city's
``aliases``: ``上海`` is ``Shanghai``), a phone number however it is grouped, a subject after its ``Re:``;
a search's words (``query``, ``keywords``...) up to the plural and endings the simulators' searches ignore
(:mod:`mcp_persona.apps._normalize`). Names looked up exactly (a folder, a title) are not reworded:
"my project notes" does not tell the folder ``Projects``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from mcp_persona.agents import ReferenceAgent
from mcp_persona.apps._corpus.search import stem
from mcp_persona.apps._normalize import is_identifier
from mcp_persona.environment import Environment
from mcp_persona.protocols.base import Protocol
from mcp_persona.scoring.normalize import decoded, looks_like_id, normalize
from mcp_persona.tasks import Task
from mcp_persona.trajectory import ToolCallEvent, Trajectory

_SEPARATORS = re.compile(r"[/|,]")
_WORDS = re.compile(r"\w+")
_SCHEMA_VALUES = ("enum", "const", "default", "examples")


@dataclass(frozen=True)
class Literal:
    step: int
    call: str  # server:tool
    argument: str
    value: str

    def problem(self) -> str:
        return (f"gold step {self.step} {self.call}: {self.argument}={self.value!r} is not discoverable: not in the "
                "instruction, not shown by an earlier step, not documented by the tool")


@dataclass
class Listing:
    """What an agent of the task is told and can read before it calls anything: the prompts, each tool's
    description and schema, and the world the task starts from (as text, and as the names it holds)."""

    told: str = ""
    tools: dict[tuple[str, str], tuple[str, dict[str, Any]]] = field(default_factory=dict)
    world: str = ""
    names: set[str] = field(default_factory=set)
    # names the world itself gives as one thing's other names (a city's ``aliases``, a place's ``alias``)
    aliases: dict[str, set[str]] = field(default_factory=dict)
    fill: Any = None  # the environment's own gold-argument filling (a working folder put in place)

    @classmethod
    def of(cls, told: str, tools: dict[tuple[str, str], tuple[str, dict[str, Any]]], states: Sequence[Any],
           documents: Sequence[tuple[str, str, list[str]]] = (), *, fill: Any = None) -> Listing:
        """``states``: the servers' start states; ``documents``: (file name, text, sheet names) of input files."""
        names: set[str] = set()
        aliases: dict[str, set[str]] = {}
        for state in states:
            _collect_names(state, names, aliases)
        for name, text, sheets in documents:
            names.update(_name(x) for x in (name, *sheets))
            names.update(_name(cell) for line in text.splitlines() for cell in line.split(" | "))
        world = "\n".join([json.dumps(list(states), ensure_ascii=False, default=str), *(t for _, t, _ in documents)])
        return cls(told, dict(tools), _squash(world), names - {""}, aliases, fill)


class ListingReference(ReferenceAgent):
    """The gold replay, noting the :class:`Listing` of its environment as it starts."""

    def __init__(self, protocol: Protocol) -> None:
        super().__init__()
        self.protocol = protocol
        self.listing = Listing()

    async def run(self, task: Task, env: Environment, trajectory: Trajectory) -> None:
        self.listing = listing(task, env, self.protocol)
        await super().run(task, env, trajectory)


def listing(task: Task, env: Environment, protocol: Protocol) -> Listing:
    """The listing of ``task`` in ``env`` under ``protocol`` (its prompts)."""
    return Listing.of(protocol.system_prompt(task, env) + "\n" + protocol.user_prompt(task),
                      {(t.server, t.name): (t.description, t.input_schema) for t in env.pool},
                      start_states(task, env), protocol.input_documents(task), fill=env.gold_arguments)


def start_states(task: Task, env: Environment) -> list[Any]:
    """The start state of every server the task's gold chain calls: a persona app's context, or the dataset
    a simulated library server serves."""
    from mcp_persona.apps import app_names, get_app
    from mcp_persona.livemcptool import catalogue
    from mcp_persona.livemcptool.engine import CONTEXT, simulated_app

    states: list[Any] = list(env.initial.values())
    for server in dict.fromkeys(c.server for c in task.gold_calls):
        if server in env.initial:
            continue
        if server in app_names():
            states.append(get_app(server).start_state(task.context_of(server) or "default"))
        elif server in catalogue() and catalogue()[server].kind == "simulated":
            states.append(simulated_app(server).load_context(CONTEXT))
    return states


def _name(value: Any) -> str:
    return normalize(value)


def _collect_names(value: Any, names: set[str], aliases: dict[str, set[str]]) -> None:
    """Every name a state holds: keys, string values and their path prefixes (``Projects`` of
    ``Projects/Plan.md``), and numbers as written; and which names a record gives as one another's."""
    if isinstance(value, dict):
        same = _alias_set(value)
        for n in same:
            aliases.setdefault(n, set()).update(same)
        for k, v in value.items():
            _collect_names(k, names, aliases)
            _collect_names(v, names, aliases)
    elif isinstance(value, list):
        for v in value:
            _collect_names(v, names, aliases)
    elif isinstance(value, str):
        if len(value) <= 200 and "\n" not in value:
            names.add(_name(value))
            if "/" in value:
                parts = value.split("/")
                names.update(_name("/".join(parts[:i])) for i in range(1, len(parts)))
    elif isinstance(value, int | float) and not isinstance(value, bool):
        names.add(_name(value))


def _alias_set(record: dict[str, Any]) -> set[str]:
    """A record's name with the other names it lists for itself (``aliases`` list, ``alias`` ``a;b``)."""
    listed = record.get("aliases")
    others = [a for a in listed if isinstance(a, str)] if isinstance(listed, list) else []
    if isinstance(record.get("alias"), str):
        others += record["alias"].split(";")
    own = [record[k] for k in ("name", "title") if isinstance(record.get(k), str)]
    return {_name(n) for n in [*own, *others] if n.strip()} if others and own else set()


def _squash(text: str) -> str:
    return "".join(normalize(decoded(text)).split())


_NUMBER = re.compile(r"-?\d+(?:\.\d+)?")


def _holds(text: str, needle: str) -> bool:
    """``needle`` (normalized) stated in the normalized ``text`` as whole words; a number as a number of its
    own (``20`` in ``d20``, never in ``2026`` or ``1.20``)."""
    if not needle:
        return False
    if _NUMBER.fullmatch(needle):
        return re.search(rf"(?<![\d.]){re.escape(needle)}(?!\d|\.\d)", text) is not None
    left = r"(?<![0-9a-z])" if needle[0].isascii() and needle[0].isalnum() else ""
    right = r"(?![0-9a-z])" if needle[-1].isascii() and needle[-1].isalnum() else ""
    return re.search(left + re.escape(needle) + right, text) is not None


def _leaves(value: Any, path: str = "") -> Iterator[tuple[str, Any]]:
    """(argument path, value) of every scalar the agent writes; ``$ref`` values are produced by the chain."""
    if isinstance(value, dict):
        if set(value) == {"$ref"}:
            return
        for k, v in value.items():
            yield from _leaves(v, f"{path}.{k}" if path else k)
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from _leaves(v, f"{path}.{i}")
    elif not isinstance(value, bool) and value is not None:
        yield path, value


def _documented(schema: Mapping[str, Any]) -> list[Any]:
    """Every value a JSON schema lists anywhere in it (enums, consts, defaults, examples)."""
    out: list[Any] = []
    if isinstance(schema, dict):
        for key, v in schema.items():
            if key in _SCHEMA_VALUES:
                out.extend(v if isinstance(v, list) else [v])
            elif isinstance(v, dict | list):
                out.extend(_documented(v) if isinstance(v, dict) else [x for s in v for x in _documented(s)])
    return out


def _descriptions(schema: Any) -> Iterator[str]:
    if isinstance(schema, dict):
        for key, v in schema.items():
            if key == "description" and isinstance(v, str):
                yield v
            else:
                yield from _descriptions(v)
    elif isinstance(schema, list):
        for v in schema:
            yield from _descriptions(v)


def _parts(value: str) -> list[str]:
    return [p.strip() for p in _SEPARATORS.split(value) if p.strip()] if _SEPARATORS.search(value) else []


def is_literal(value: Any, listing: Listing, *, every_value: bool = False) -> bool:
    """Whether ``value`` names something of the task's world (see the module) and so must be discoverable."""
    if every_value:
        return bool(normalize(value))
    if not isinstance(value, str):
        # a long numeric id; other numbers are picked or worked out (a limit, an amount)
        return isinstance(value, int) and looks_like_id(str(value))
    text = value.strip()
    if not text or "\n" in value or looks_like_date(text):
        return False  # text the agent writes; a date worked out from the clock
    if _name(text) in listing.names:
        return True
    # a path or a list of names: a literal when each of its parts is a name (``Projects/Plan.md``)
    named = [p for p in _parts(text) if any(ch.isalpha() for ch in p)]
    if named and all(_name(p) in listing.names for p in named):
        return True
    return looks_like_id(text) and _squash(text) in listing.world


_DATE = re.compile(r"\d{4}-?\d{2}-?\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2})?(?:\.\d+)?(?:Z|[+-]\d{2}:?\d{2})?)?|"
                   r"\d{1,2}:\d{2}(?::\d{2})?|\d{9,10}|\d{13}")


def looks_like_date(text: str) -> bool:
    """A date, a time or a unix timestamp (``2026-03-09``, ``20260401``, ``2026-03-09T10:00``, ``14:30``,
    ``1773216000``)."""
    return _DATE.fullmatch(text) is not None


_PHONE = re.compile(r"\+?\d[\d\s().-]{6,}\d")


_REPLY = re.compile(r"^(?:re|fwd?|aw|回复|转发)\s*[:：]\s*", re.IGNORECASE)


def _forms(value: Any, listing: Listing) -> list[str]:
    """The normalized forms of ``value`` an agent may have seen: itself, the other names the world gives
    the same thing, and a subject without the ``Re:`` an agent puts before it."""
    needle = _name(value)
    forms = [needle, *sorted(listing.aliases.get(needle, set()) - {needle})]
    if _REPLY.match(needle):
        forms.append(_REPLY.sub("", needle))
    return forms


@lru_cache(maxsize=4096)
def _stems(text: str) -> str:
    """A text's words stemmed as the simulators' searches stem them (``meetings`` reads ``meeting``)."""
    return " " + " ".join(_root(w) for w in _WORDS.findall(text)) + " "


def _root(word: str) -> str:
    """A word stemmed until it stays put (``meetings`` -> ``meeting`` -> ``meet``, as ``meeting`` reads)."""
    while (shorter := stem(word)) != word:
        word = shorter
    return word


# Arguments whose words a server searches for (stemmed, as apps._normalize does), not a name it looks up exactly.
SEARCH_ARGUMENTS = re.compile(r"(^|[._])(query|q|keywords?|search(_query)?|terms?|topic)$", re.IGNORECASE)


def _worded(text: str, needle: str) -> bool:
    """``needle`` stated in ``text`` word for word, up to plural and the other endings the simulators'
    searches ignore (for a search's words only); identifiers (an id, a path) are never reworded."""
    return not is_identifier(needle) and _stems(needle).strip() != "" and _stems(needle) in _stems(text)


def _dialled(text: str) -> str:
    """Phone numbers as dialled: ``+86 138 0013 8000`` reads ``+8613800138000``."""
    return _PHONE.sub(lambda m: re.sub(r"[\s().-]", "", m[0]), text)


@dataclass(frozen=True)
class _Known:
    """What an agent knows when it sends one call: texts it has read, and the call's own documentation."""

    texts: list[str]
    listed: set[str]  # the values the tool's schema lists
    documented: str  # the tool's and its arguments' descriptions
    listing: Listing

    def __call__(self, value: Any, searched: bool) -> bool:
        if isinstance(value, str) and _PHONE.fullmatch(value.strip()):
            return any(_holds(_dialled(t), _dialled(_name(value))) for t in self.texts)
        return any(needle in self.listed or _holds(self.documented, needle)
                   or any(_holds(t, needle) or (searched and _worded(t, needle)) for t in self.texts)
                   for needle in _forms(value, self.listing))


def undiscoverable(task: Task, calls: Sequence[ToolCallEvent], listing: Listing, *,
                   every_value: bool = False) -> list[Literal]:
    """The literals of ``task``'s gold chain an agent could not know when it sends them; ``calls`` are the
    gold replay's events (``call_id`` ``gold_S_C``, as :class:`~mcp_persona.agents.ReferenceAgent` names
    them); ``every_value``: every argument value is a literal (see the module)."""
    told = normalize(decoded(listing.told))
    replies = {e.call_id: normalize(decoded(e.result)) for e in calls}
    fill = listing.fill or (lambda args: args)
    out: list[Literal] = []
    for si, step in enumerate(task.gold):
        earlier = [(f"gold_{sj}_{cj}", c) for sj in range(si) for cj, c in enumerate(task.gold[sj].calls)]
        shown = [replies.get(label, "") for label, _ in earlier]
        # the values the agent itself sent in an earlier step (a note it created, a name it chose)
        chosen = [normalize(v) for _, c in earlier for _, v in _leaves(fill(c.arguments))]
        texts = [told, *shown, "\n".join(chosen)]
        for call in step.calls:
            description, schema = listing.tools.get((call.server, call.tool), ("", {}))
            known = _Known(texts, {_name(v) for v in _documented(schema)},
                           normalize("\n".join([description, *_descriptions(schema)])), listing)
            for path, value in _leaves(fill(call.arguments)):
                if not is_literal(value, listing, every_value=every_value):
                    continue
                searched = SEARCH_ARGUMENTS.search(path) is not None
                if known(value, searched):
                    continue
                parts = _parts(value) if isinstance(value, str) else []
                if parts and all(known(p, searched) for p in parts):
                    continue
                out.append(Literal(si, f"{call.server}:{call.tool}", path, str(value)))
    return out


def literal_problems(task: Task, calls: Sequence[ToolCallEvent], listing: Listing, *,
                     every_value: bool = False) -> list[str]:
    """:func:`undiscoverable` as ``validate`` reports it."""
    return [lit.problem() for lit in undiscoverable(task, calls, listing, every_value=every_value)]


__all__ = ["Listing", "ListingReference", "Literal", "is_literal", "listing", "literal_problems",
           "looks_like_date",
           "start_states", "undiscoverable"]
