"""Gmail-style search queries over :class:`~.message.Mail` views.

Supported: free words and ``"quoted phrases"`` (subject, body, addresses, attachment names),
``from:`` ``to:`` (to, cc and bcc) ``cc:`` ``bcc:`` ``subject:`` ``label:`` ``category:``
``in:`` ``is:`` (unread, read, starred, important) ``has:attachment`` ``filename:``
``after:`` / ``before:`` (``YYYY/MM/DD``, ``YYYY-MM-DD`` or unix seconds; after is inclusive,
before exclusive) ``newer_than:`` / ``older_than:`` (``3d``, ``2m``, ``1y``), a leading ``-``
to negate a term, and ``OR`` between terms. Terms are ANDed. ``from:me`` / ``to:me`` name the
account. Label names match with case, spaces, ``/``, ``_`` and ``-`` ignored
(``label:spring-2026`` finds "Spring 2026"). An operator this module does not know is
searched as plain text, as Gmail does; a date it cannot read raises :class:`QueryError`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date
from zoneinfo import ZoneInfo

from mcp_persona.apps._mail.address import address_text
from mcp_persona.apps._mail.dates import day_start
from mcp_persona.apps._mail.message import Mail

OPERATORS = frozenset({
    "from", "to", "cc", "bcc", "subject", "label", "category", "in", "is", "has", "filename",
    "after", "before", "newer_than", "older_than",
})
_TOKEN = re.compile(r'\s*(-?)(?:([A-Za-z_]+):)?("(?:[^"]*)"|\([^)]*\)|[^\s()]+)')
_DAY = re.compile(r"^(\d{4})[/-](\d{1,2})[/-](\d{1,2})$")
_SPAN = re.compile(r"^(\d+)([dmy])$")
_SPAN_SECONDS = {"d": 86400, "m": 30 * 86400, "y": 365 * 86400}


class QueryError(ValueError):
    """A query term whose value cannot be read (a malformed date, a bad newer_than span)."""


@dataclass(frozen=True)
class Term:
    op: str | None  # None: free text
    value: str
    negate: bool = False


@dataclass(frozen=True)
class Query:
    """Clauses ANDed together; each clause is one term or several ORed."""

    clauses: tuple[tuple[Term, ...], ...]

    def mentions(self, op: str, values: set[str]) -> bool:
        """Whether a non-negated ``op:value`` term names one of ``values`` (case-insensitive)."""
        return any(t.op == op and not t.negate and t.value.casefold() in values for c in self.clauses for t in c)


@dataclass(frozen=True)
class MatchContext:
    me: str  # the account's address, for from:me / to:me
    tz: ZoneInfo  # the zone in which after:/before: days start
    now: int  # unix seconds, for newer_than / older_than


def parse_query(text: str) -> Query:
    """Parse a query; raise :class:`QueryError` for an unreadable date or span."""
    clauses: list[list[Term]] = []
    pending_or = False
    for m in _TOKEN.finditer(text or ""):
        neg, op, raw = m.group(1), m.group(2), m.group(3)
        value = raw[1:-1] if raw[:1] in '"(' and len(raw) >= 2 else raw
        if not op and not neg and raw in ("OR", "|"):
            pending_or = bool(clauses)
            continue
        if op and op.lower() not in OPERATORS:
            value, op = f"{op}:{value}", None
        term = Term(op.lower() if op else None, value.strip(), bool(neg))
        if not term.value:
            continue
        _check(term)
        if pending_or:
            clauses[-1].append(term)
        else:
            clauses.append([term])
        pending_or = False
    return Query(tuple(tuple(c) for c in clauses))


def _check(term: Term) -> None:
    if term.op in ("after", "before"):
        _instant(term.value, ZoneInfo("UTC"))
    elif term.op in ("newer_than", "older_than") and not _SPAN.match(term.value.lower()):
        raise QueryError(f"{term.op}: expects a span such as 3d, 2m or 1y, got {term.value!r}")


def _instant(value: str, tz: ZoneInfo) -> int:
    if value.isdigit() and len(value) >= 9:
        return int(value)
    m = _DAY.match(value)
    if not m:
        raise QueryError(f"unreadable date {value!r}: use YYYY/MM/DD")
    try:
        day = date(int(m.group(1)), int(m.group(2)), int(m.group(3)))
    except ValueError as exc:
        raise QueryError(f"unreadable date {value!r}: {exc}") from exc
    return day_start(day, tz)


def label_key(name: str) -> str:
    return re.sub(r"[\s/_-]+", "-", name.casefold()).strip("-")


def matches(query: Query, mail: Mail, ctx: MatchContext) -> bool:
    return all(any(_term(t, mail, ctx) != t.negate for t in clause) for clause in query.clauses)


def _people(addrs: tuple[dict[str, str], ...] | list[dict[str, str]], value: str, ctx: MatchContext) -> bool:
    probe = value.casefold()
    if probe == "me":
        return any(a["address"].casefold() == ctx.me.casefold() for a in addrs)
    return any(probe in address_text(a) for a in addrs)


def _term(t: Term, mail: Mail, ctx: MatchContext) -> bool:
    v = t.value.casefold()
    if t.op is None:
        return v in _haystack(mail)
    if t.op == "from":
        return _people([mail.sender], t.value, ctx)
    if t.op == "to":
        return _people(mail.to + mail.cc + mail.bcc, t.value, ctx)
    if t.op in ("cc", "bcc"):
        return _people(getattr(mail, t.op), t.value, ctx)
    if t.op == "subject":
        return v in mail.subject.casefold()
    if t.op in ("label", "in"):
        if t.op == "in" and v == "anywhere":
            return True
        if t.op == "in" and v == "drafts":
            v = "draft"
        key = label_key(v)
        return any(label_key(name) == key for name in mail.labels) or (key == "unread" and mail.unread) or (
            key == "starred" and mail.starred)
    if t.op == "category":
        return label_key(f"category_{v}") in {label_key(n) for n in mail.labels}
    if t.op == "is":
        return {"unread": mail.unread, "read": not mail.unread, "starred": mail.starred,
                "important": "important" in mail.labels}.get(v, False)
    if t.op == "has":
        return v == "attachment" and bool(mail.attachments)
    if t.op == "filename":
        return any(v in a.get("filename", "").casefold() for a in mail.attachments)
    if t.op == "after":
        return mail.date >= _instant(t.value, ctx.tz)
    if t.op == "before":
        return mail.date < _instant(t.value, ctx.tz)
    span = _SPAN.match(v)
    assert span is not None  # checked at parse time
    seconds = int(span.group(1)) * _SPAN_SECONDS[span.group(2)]
    return mail.date >= ctx.now - seconds if t.op == "newer_than" else mail.date < ctx.now - seconds


def _haystack(mail: Mail) -> str:
    parts = [mail.subject, mail.body, mail.extra_text, address_text(mail.sender)]
    parts += [address_text(a) for a in mail.to + mail.cc]
    parts += [a.get("filename", "") for a in mail.attachments]
    return "\n".join(parts).casefold()
