"""Does an entity's field satisfy what a checkpoint expects?

An expected value is either a literal (equal after normalization; numbers and
numeric strings compare as numbers) or one operator object:
``{"$contains": "text"}`` (substring, JSON-decoded), ``{"$in": [a, b]}``,
``{"$has": x}`` (a list field contains x), ``{"$absent": true}``, ``{"$approx": 1898.86}`` (a number that
rounds to this one at the precision it is written with: 1898.859 from a formula, not 1898.8),
``{"$section": ["Tasks", "text"]}`` (the text lies under a markdown heading named so, before the next heading of
its level or above: a line "added to the Tasks section" and appended at the end of the note is not there),
``{"$all": [e1, e2]}`` (every one matches: several facts a text must carry), ``{"$line": [v1, v2]}`` (some
line of a text holds every value, in any order and layout: the facts of one row, ``Asia/Tokyo`` and
``00:00``, whatever the file's wording; an item may be an operator object, ``{"$in": [...]}`` for words
that say the same thing), ``{"$beside": {"of": "Kenji", "says": ["retrieval", "12"], "apart": ["Elif"]}}``
(what the text says next to a name, not past another one: :func:`~mcp_persona.scoring.claims.said_beside`;
a swap "Elif on the 12th, Kenji on the 26th" fails), ``{"$order": ["review Fri 13", "T&Cs", "code freeze"]}``
(each text appears after the one before it: "right after the readiness review", not appended at the end),
``{"$says": "not requeued"}`` (the text says the phrase by its content words, in any inflection and order within
a clause, with its polarity: "won't be automatically re-queued" says it, "requeued, no need to resubmit" does
not: :func:`~mcp_persona.scoring.meaning.says`), ``{"$not": expected}`` (the text does not match ``expected``).
An object of plain keys matches a dict whose (dotted) fields match each: one alternative of ``$in`` may be a
whole other form of an entity (a markdown message instead of a text one).
``{"$claim": {"winner": "A", "rivals": ["B"], "aliases": {...}}}`` (the text puts A on top, as an answer's claim
is read: :func:`~mcp_persona.scoring.claims.claims_winner`; a note naming B as the pick and A as a runner-up fails).
Text is matched as :func:`~mcp_persona.scoring.normalize.appears_in` reads it: numbers as numbers, markdown
emphasis dropped.
Dotted keys reach into nested fields: ``"start_time.timestamp"``; the key ``"*"`` is the whole entity (with
``$in`` of its forms: ``{"msgtype": "text", "text.content": ...}`` or the same content as markdown).
"""

from __future__ import annotations

import math
import re
from typing import Any

from mcp_persona.context_tree import get_field
from mcp_persona.scoring.claims import claims_winner, said_beside
from mcp_persona.scoring.meaning import says
from mcp_persona.scoring.normalize import appears_in, decoded, normalize

OPERATORS = ("$contains", "$in", "$all", "$has", "$absent", "$line", "$approx", "$section", "$beside", "$order",
             "$says", "$not", "$claim")


def value_matches(expected: Any, actual: Any) -> bool:
    if isinstance(expected, dict) and len(expected) == 1 and next(iter(expected)) in OPERATORS:
        op, arg = next(iter(expected.items()))
        if op == "$contains":
            return actual is not None and appears_in(arg, actual if isinstance(actual, str) else str(actual))
        if op == "$in":
            return any(value_matches(a, actual) for a in arg)
        if op == "$all":
            return all(value_matches(a, actual) for a in arg)
        if op == "$has":
            return isinstance(actual, list) and any(value_matches(arg, a) for a in actual)
        if op == "$line":
            return actual is not None and any(holds_all(arg, line) for line in str(actual).splitlines())
        if op == "$approx":
            return approx_equal(arg, actual)
        if op == "$section":
            return actual is not None and in_section(arg[0], arg[1], str(actual))
        if op == "$beside":
            names = [arg["of"]] if isinstance(arg["of"], str) else arg["of"]
            return actual is not None and said_beside(str(actual), names, arg["says"], arg.get("apart", []))
        if op == "$says":
            return actual is not None and says(str(arg), decoded(str(actual)))
        if op == "$not":
            return not value_matches(arg, actual)
        if op == "$order":
            return actual is not None and in_order(arg, str(actual))
        if op == "$claim":
            return actual is not None and claims_winner(str(actual), arg["winner"], arg["rivals"],
                                                        aliases=arg.get("aliases"), up=arg.get("up", True))[0]
        return (actual is None) == bool(arg)
    if isinstance(expected, dict):
        return isinstance(actual, dict) and all(
            value_matches(v, actual[k] if k in actual else get_field(actual, k)) for k, v in expected.items())
    if isinstance(expected, list):
        return isinstance(actual, list) and len(expected) == len(actual) and all(
            value_matches(e, a) for e, a in zip(expected, actual, strict=True))
    if isinstance(expected, bool) or isinstance(actual, bool):
        return expected is actual  # a bool never equals 1 / 0 (True == 1 in Python)
    num_e, num_a = _number(expected), _number(actual)
    if num_e is not None and num_a is not None:
        return abs(num_e - num_a) < 1e-9
    if expected is None or actual is None:
        return expected is None and actual is None
    return normalize(expected) == normalize(actual)


def approx_equal(expected: Any, actual: Any) -> bool:
    """Whether ``actual`` is a number that rounds to ``expected`` at the decimals ``expected`` is written with
    (half a unit of its last place: 1898.86 takes 1898.855..1898.865; 3 takes 2.5..3.5): a value kept to more
    decimals, or computed by a formula, is the same figure; another figure is not."""
    want, got = _number(expected), _number(actual)
    if want is None or got is None:
        return False
    text = str(expected).replace(",", "").strip().lower()
    places = len(text.split(".")[1]) if "." in text and "e" not in text else 0
    return abs(want - got) <= 0.5 * 10 ** -places + 1e-9


_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")


def in_section(heading: str, needle: Any, text: str) -> bool:
    """Whether ``needle`` appears (as :func:`appears_in` reads it) under a markdown heading whose title is
    ``heading`` (its words, in any case, with anything around them: "Tasks", "## Tasks (3)"), before the next
    heading of the same level or above."""
    lines = text.splitlines()
    name = re.compile(rf"(?<!\w){re.escape(normalize(heading))}(?!\w)")
    for i, line in enumerate(lines):
        head = _HEADING.match(line)
        if head is None or not name.search(normalize(head[2])):
            continue
        body = []
        for following in lines[i + 1:]:
            nxt = _HEADING.match(following)
            if nxt is not None and len(nxt[1]) <= len(head[1]):
                break
            body.append(following)
        if appears_in(needle, "\n".join(body)):
            return True
    return False


def in_order(needles: list[str], text: str) -> bool:
    """Whether each of ``needles`` appears (normalized, as a substring) after the one before it in ``text``."""
    hay, at = normalize(text), 0
    for needle in needles:
        found = hay.find(normalize(needle), at)
        if found < 0:
            return False
        at = found + len(normalize(needle))
    return True


def holds_all(items: list[Any], text: str) -> bool:
    """Whether ``text`` holds every item: a string appears in it, ``{"$in": [...]}`` one of its items does,
    another operator object matches it."""
    return all(_holds(i, text) for i in items)


def _holds(item: Any, text: str) -> bool:
    if isinstance(item, dict) and set(item) == {"$in"}:
        return any(_holds(x, text) for x in item["$in"])
    return value_matches(item, text) if isinstance(item, dict) else appears_in(item, text)


def _number(v: Any) -> float | None:
    if isinstance(v, bool):
        return None
    if isinstance(v, int | float):
        f = float(v)
    elif isinstance(v, str):
        try:
            f = float(v.replace(",", ""))
        except ValueError:
            return None
    else:
        return None
    return f if math.isfinite(f) else None  # "nan" / "Infinity" (or a name like "Nan") compare as text


def fields_matched(expect: dict[str, Any], entity: dict[str, Any]) -> int:
    """How many of ``expect``'s (dotted) fields ``entity`` satisfies."""
    return sum(value_matches(v, entity if k == "*" else get_field(entity, k)) for k, v in expect.items())
