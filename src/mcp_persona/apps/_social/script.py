"""Scripted conversations for the social apps' context generators.

A script is an authentic corpus item written for one persona: who says what, in
order, with the people named by *roster keys* -- ``"me"``, the id of someone in the
persona's circle (``"zhao_min"``), or the key of an outsider the app's own corpus
defines. A thread gives the hours before the task's "now" at which its last line
was sent (``"ago": [lo, hi]``) and optionally the minutes between lines (``"gap"``);
:func:`lay_out` turns it into timed :class:`Line` objects, seeded through ``gen``.
A line is ``[who, text]`` or ``[who, text, {annotations}]`` (replies, reactions...,
read by each app's generator).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from importlib import resources
from typing import Any

from mcp_persona.contextgen import Gen, Person

ME = "me"
DEFAULT_GAP = (2, 95)  # minutes between two lines of a thread


def now(gen: Gen) -> datetime:
    """The tasks' "now": 2026-03-10 09:30 in the persona's zone."""
    return gen.local(2026, 3, 10, 9, 30)


def corpus_size(corpus: str) -> int:
    path = resources.files("mcp_persona") / "data" / "corpus" / "authentic" / f"{corpus}.json"
    return len(json.loads(path.read_text(encoding="utf-8")))


def all_items(gen: Gen, field_name: str, corpus: str) -> list[dict[str, Any]]:
    """Every item of an authentic corpus, in a seeded order."""
    return gen.authentic(field_name, corpus, corpus_size(corpus))


def roster(gen: Gen) -> dict[str, Person]:
    """The persona (as ``"me"``) and their circle, by roster key."""
    return {ME: gen.me} | {p.id: p for p in gen.circle}


@dataclass(frozen=True)
class Line:
    index: int
    who: str
    text: str
    at: datetime
    notes: dict[str, Any] = field(default_factory=dict)


def lay_out(gen: Gen, thread: dict[str, Any], known: set[str] | None = None) -> list[Line]:
    """The thread's lines with send times: the last ``ago`` hours before now, earlier ones ``gap``
    minutes apart (each drawn on a one-minute grid). ``known`` (roster keys) is checked if given."""
    lines = thread.get("lines") or []
    if not lines:
        return []
    lo, hi = thread.get("ago", (1, 48))
    ref = now(gen)
    last = gen.moment(ref - timedelta(hours=hi), ref - timedelta(hours=lo), step_minutes=1)
    gap_lo, gap_hi = thread.get("gap", DEFAULT_GAP)
    times = [last]
    for _ in lines[1:]:
        cur = times[-1]
        times.append(gen.moment(cur - timedelta(minutes=gap_hi), cur - timedelta(minutes=gap_lo), step_minutes=1))
    times.reverse()
    out = []
    for i, (raw, at) in enumerate(zip(lines, times, strict=True)):
        who, text = raw[0], raw[1]
        notes = raw[2] if len(raw) > 2 else {}
        if known is not None and who not in known:
            raise ValueError(f"script line {i} ({text[:30]!r}): unknown speaker {who!r}")
        out.append(Line(i, who, text, at, notes))
    return out


def utc_iso(at: datetime, *, sep_offset: bool = True, micro: bool = False) -> str:
    """``2026-03-09T02:15:00+00:00`` (or ``+0000`` when ``sep_offset`` is false, as the Graph API writes)."""
    u = at.astimezone(UTC)
    text = u.isoformat(timespec="microseconds" if micro else "seconds")
    return text if sep_offset else text[:-3] + text[-2:]
