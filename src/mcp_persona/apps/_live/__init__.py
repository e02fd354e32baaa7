"""Shared pieces of the public-data servers (code host, video, movies, lodging, rates, maps, ...).

These servers hold no personal data: one ``default`` context with a fixed dataset. They answer JSON,
fail with ``{"error": message}`` (the common style of the community MCP servers they mirror) and share
lookups: case- and space-insensitive names, word search, dates, and the task clock's "today".
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import date, datetime
from typing import Any
from zoneinfo import ZoneInfo

from mcp_persona.apps._normalize import matches_all, same_name, term_hits
from mcp_persona.apps.base import App, AppEnv, FieldViolation, ToolFailure, compact_json, unicode_json

_WORD = re.compile(r"[\w']+", re.UNICODE)


class JsonApp(App):
    """An app answering JSON text and failing with ``{"error": ...}`` naming the bad field."""

    def success_payload(self, tool: str, result: Any) -> Any:
        return compact_json(result)

    def error_payload(self, tool: str, failure: ToolFailure) -> Any:
        return unicode_json({"error": failure.message})

    def validation_payload(self, tool: str, violations: list[FieldViolation]) -> Any:
        detail = "; ".join(f"{v.field}: {v.message}" for v in violations)
        return unicode_json({"error": f"Invalid arguments for tool {tool}: {detail}"})


def fail(message: str, kind: Any = "range") -> ToolFailure:
    return ToolFailure(message, kind=kind)


def squash(text: str) -> str:
    """Lower case without spaces, dots, hyphens or apostrophes: 'St. Paul's' ~ 'stpauls'."""
    return re.sub(r"[\s.\-'’_]", "", text.lower())


def words(text: str) -> list[str]:
    return [w.lower() for w in _WORD.findall(text)]


def matches(query: str, *fields: Any) -> bool:
    """Every word of ``query`` occurs in one of ``fields`` (strings or lists of strings), in any order,
    singular or plural, stop-words aside (:func:`mcp_persona.apps._normalize.matches_all`)."""
    return matches_all(query, *fields)


def score(query: str, *fields: Any) -> int:
    """How many words of ``query`` occur in ``fields``: a simple relevance for ranking partial hits
    (:func:`mcp_persona.apps._normalize.term_hits`: stop-words such as "in" do not count)."""
    return term_hits(query, *fields)


def collection(env: AppEnv, name: str) -> dict[str, Any]:
    return env.tree.data.get(name) or {}


def lookup(items: dict[str, Any], key: str, what: str, *, by: Sequence[str] = ()) -> dict[str, Any]:
    """The item whose id is ``key`` or whose ``by`` fields equal it (case-insensitively); not_found else."""
    if key in items:
        return items[key]
    probe = squash(key)
    for item in items.values():
        if any(isinstance(item.get(f), str) and squash(item[f]) == probe for f in by):
            return item
    for item in items.values():  # a redirect: "Mt. Fuji" to "Mount Fuji", "NYC" to "New York"
        if any(isinstance(item.get(f), str) and same_name(key.replace("_", " "), item[f]) for f in by):
            return item
    raise ToolFailure(f"{what} '{key}' not found", kind="not_found")


def parse_day(text: str, name: str) -> date:
    if not re.fullmatch(r"\d{4}-\d{2}-\d{2}", text or ""):
        raise fail(f"{name} must be a date YYYY-MM-DD, got '{text}'")
    try:
        return date.fromisoformat(text)
    except ValueError as exc:
        raise fail(f"{name} '{text}' is not a real date") from exc


def today(env: AppEnv, tz: str | None = None) -> date:
    """The task clock's date, in ``tz`` when given (else the task's own time zone)."""
    now = env.clock.current()
    return (now.astimezone(ZoneInfo(tz)) if tz else now).date()


def now_local(env: AppEnv, tz: str) -> datetime:
    return env.clock.current().astimezone(ZoneInfo(tz))


def window(items: Sequence[Any], page: int, per_page: int) -> list[Any]:
    """1-based page ``page`` of ``per_page`` items (GitHub / TMDB style)."""
    start = (page - 1) * per_page
    return list(items[start:start + per_page])
