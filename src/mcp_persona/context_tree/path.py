"""The path language of the Context-Tree.

A path names collections and entities from the user root down, e.g.
``calendars[ann.lee@corp.com].events[*]``. Each segment is a collection name with
an optional selector in brackets: an entity id, or ``*`` for every entity of that
collection. Ids may contain dots (emails, file names), so brackets are read first
and dots split segments only outside brackets. An id that itself contains ``[``
or ``]`` is written in double quotes: ``notes["a [draft].md"]``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

WILDCARD = "*"
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


class PathError(ValueError):
    """A path that cannot be parsed or does not fit the hierarchy."""


@dataclass(frozen=True, slots=True)
class Segment:
    """One step of a path: a collection name and an optional selector."""

    name: str
    selector: str | None = None  # an id, WILDCARD, or None (the collection itself)

    @property
    def is_wildcard(self) -> bool:
        return self.selector == WILDCARD

    def __str__(self) -> str:
        if self.selector is None:
            return self.name
        sel = self.selector
        if sel != WILDCARD and ("[" in sel or "]" in sel or sel.startswith('"')):
            sel = '"' + sel.replace("\\", "\\\\").replace('"', '\\"') + '"'
        return f"{self.name}[{sel}]"


def parse_path(path: str) -> tuple[Segment, ...]:
    """Parse ``path`` into segments; raise :class:`PathError` saying where it is wrong."""
    if not isinstance(path, str) or not path.strip():
        raise PathError("path must be a non-empty string")
    return _parse(path)


@lru_cache(maxsize=8192)  # tools address the same few paths over and over; segments are immutable
def _parse(path: str) -> tuple[Segment, ...]:
    segments: list[Segment] = []
    i, n = 0, len(path)
    while i < n:
        start = i
        while i < n and path[i] not in ".[]":
            i += 1
        name = path[start:i]
        if not _NAME.match(name):
            raise PathError(f"bad collection name {name!r} at position {start} in {path!r}")
        selector: str | None = None
        if i < n and path[i] == "[":
            selector, i = _read_selector(path, i + 1)
        segments.append(Segment(name, selector))
        if i < n:
            if path[i] != ".":
                raise PathError(f"expected '.' at position {i} in {path!r}, found {path[i]!r}")
            i += 1
            if i == n:
                raise PathError(f"path {path!r} ends with '.' at position {i - 1}")
    return tuple(segments)


def _read_selector(path: str, i: int) -> tuple[str, int]:
    """Read a selector starting just after '['; return it and the index after ']'."""
    n = len(path)
    if i < n and path[i] == '"':
        j = i + 1
        chars: list[str] = []
        while j < n and path[j] != '"':
            if path[j] == "\\" and j + 1 < n:
                j += 1
            chars.append(path[j])
            j += 1
        if j + 1 >= n or path[j + 1] != "]":
            raise PathError(f"unterminated quoted selector at position {i} in {path!r}")
        value, end = "".join(chars), j + 2
    else:
        j = path.find("]", i)
        if j < 0:
            raise PathError(f"unclosed '[' at position {i - 1} in {path!r}")
        value, end = path[i:j], j + 1
        if "[" in value:
            raise PathError(f"nested '[' in selector at position {i} in {path!r}; quote ids with brackets")
    if value == "":
        raise PathError(f"empty selector at position {i - 1} in {path!r}")
    return value, end


def format_path(segments: tuple[Segment, ...] | list[Segment]) -> str:
    return ".".join(str(s) for s in segments)


def entity_path(parent: str | None, collection: str, entity_id: str) -> str:
    """Path of one entity, given its parent's path (None for the root)."""
    seg = str(Segment(collection, entity_id))
    return seg if not parent else f"{parent}.{seg}"
