"""The entities of a user context, as placeholder values: people, chats, events, notes...

Each entity of a context tree gets a *display* (what a person calls it: a name, a title, a note's
file name without ``.md``) and *slots*: its link values (:mod:`mcp_persona.persona_gen.fields`), such
as ``user_id``, ``email`` and ``mobile`` of a Lark user, or ``filepath`` and ``dirpath`` of a note.
A chain's inputs are filled from slots.
"""

from __future__ import annotations

import contextlib
import json
from dataclasses import dataclass, field
from datetime import date, datetime
from functools import cache
from typing import Any
from zoneinfo import ZoneInfo

from mcp_persona.apps import get_app
from mcp_persona.context_tree.path import format_path, parse_path
from mcp_persona.persona_gen.fields import REFERENCES, TEXT, leaf_links, snake

# placeholder kind -> entity types (of any app's hierarchy) that can fill it, best first
ENTITY_KINDS: dict[str, tuple[str, ...]] = {
    "person": ("user", "member", "contact", "participant", "friend", "follower"),
    "chat": ("chat", "channel", "group", "conversation", "server"),
    "calendar": ("calendar",),
    "event": ("event",),
    "note": ("note", "page", "file", "document"),
    "database": ("database",),
    "post": ("post", "media", "feed", "video", "note"),
    "email": ("email", "mail", "message", "thread"),
    "message": ("message", "reply"),
    "comment": ("comment",),
    "reminder": ("reminder", "task", "todo"),
    "label": ("label", "tag", "flair", "role"),
    "community": ("subreddit", "server", "community"),
}
KIND_DOCS: dict[str, str] = {
    "person": "a person the user knows (filled with their name)",
    "chat": "a group chat, channel or conversation (its name)",
    "calendar": "a calendar (its name)", "event": "a calendar event (its title)",
    "note": "a note or document (its title)", "database": "a database (its title)",
    "post": "a social-media post (its title or caption)", "email": "an email (its subject)",
    "message": "a chat message (its text)", "comment": "a comment (its text)",
    "reminder": "a reminder or to-do (its text)", "label": "a label, tag or role (its name)",
    "community": "a community, subreddit or server (its name)",
}
_DISPLAY = ("real_name", "name", "title", "summary", "subject", "displayTitle", "display_name", "nickname",
            "username", "caption", "text", "content")
_ME_KEYS = ("me", "self", "self_id", "my_id", "account_id", "user_id", "owner_id", "username")


@dataclass(frozen=True)
class Entity:
    server: str
    type: str
    path: str  # Context-Tree path
    id: str
    display: str
    slots: dict[str, tuple[str, str]] = field(default_factory=dict)  # link -> (value, source field name)
    fields: dict[str, Any] = field(default_factory=dict, repr=False)  # own scalar and small nested fields

    def slot(self, link: str) -> str | None:
        hit = self.slots.get(link)
        return hit[0] if hit else None

    def day(self, tz: str) -> date | None:
        """The day an entity (an event) happens on, if it has one."""
        start = self.fields.get("start_time") or self.fields.get("start")
        if isinstance(start, dict):
            if start.get("timestamp"):
                return datetime.fromtimestamp(int(start["timestamp"]), ZoneInfo(tz)).date()
            if start.get("date"):
                return date.fromisoformat(str(start["date"])[:10])
        return None

    def start(self, tz: str) -> datetime | None:
        start = self.fields.get("start_time")
        if isinstance(start, dict) and start.get("timestamp"):
            return datetime.fromtimestamp(int(start["timestamp"]), ZoneInfo(tz))
        return None


@cache
def own_ids(server: str, context_id: str) -> frozenset[str]:
    """The context user's own ids (root fields such as Lark's ``me``): never a placeholder, never a link."""
    data = get_app(server).load_context(context_id)
    return frozenset(str(v) for k, v in data.items() if k in _ME_KEYS and isinstance(v, str | int))


def kind_of(etype: str) -> list[str]:
    return [k for k, types in ENTITY_KINDS.items() if etype in types]


@cache
def catalog(server: str, context_id: str) -> tuple[Entity, ...]:
    """Every entity of a stored context with a display, the context's own user left out."""
    app = get_app(server)
    h = app.hierarchy
    data = app.load_context(context_id)
    me = own_ids(server, context_id)
    out: list[Entity] = []
    slots_by_path: dict[str, dict[str, tuple[str, str]]] = {}
    for etype, path, ent in h.iter_entities(data):
        if not isinstance(ent, dict):
            continue
        spec = h.entities[etype]
        eid = str(ent.get(spec.id_field, path))
        slots: dict[str, tuple[str, str]] = {}
        for link in leaf_links([spec.collection, spec.id_field], value=eid):
            if link != TEXT:
                slots.setdefault(link, (eid, spec.id_field))
        for key, value in ent.items():
            if key in spec.references or snake(key) in REFERENCES or not isinstance(value, str | int):
                continue
            if isinstance(value, bool) or key == spec.id_field:
                continue
            for link in leaf_links([key], value=value):
                if link != TEXT:
                    slots.setdefault(link, (str(value), key))
        fp = slots.get("filepath")
        if fp and "/" in fp[0]:
            slots.setdefault("dirpath", (fp[0].rsplit("/", 1)[0] + "/", "dirpath"))
        segments = parse_path(path)
        parent = format_path(segments[:-1]) if len(segments) > 1 else None
        for link, hit in (slots_by_path.get(parent, {}) if parent else {}).items():
            slots.setdefault(link, hit)
        slots_by_path[path] = {k: v for k, v in slots.items() if k.endswith("_id")}
        display = display_of(ent, eid)
        if display and eid not in me:
            own = {k: v for k, v in ent.items() if k not in h.child_types(etype)}
            out.append(Entity(server, etype, path, eid, display, slots, own))
    return tuple(out)


def display_of(entity: dict[str, Any], eid: str) -> str:
    if eid.endswith(".md"):
        return eid.rsplit("/", 1)[-1][:-3]
    first, last = entity.get("first_name"), entity.get("last_name")
    if isinstance(first, str) and first:
        return f"{first} {last}".strip() if isinstance(last, str) else first
    for key in _DISPLAY:
        value = entity.get(key)
        if isinstance(value, str) and value.strip():
            text = value.strip().splitlines()[0]
            if text.startswith("{"):  # a Lark message body: {"text": ...}
                with contextlib.suppress(ValueError, AttributeError):
                    text = str(json.loads(value).get("text", "")).strip() or text
            return text if len(text) <= 80 else text[:77].rstrip() + "..."
    return ""


def entities_of_kind(kind: str, server: str, context_id: str) -> list[Entity]:
    types = ENTITY_KINDS.get(kind, ())
    ents = catalog(server, context_id)
    for etype in types:  # the best type this app has
        found = [e for e in ents if e.type == etype]
        if found:
            return found
    return []


@cache
def _field_index(server: str, context_id: str) -> dict[str, str]:
    app = get_app(server)
    index: dict[str, str] = {}
    for etype, _path, ent in app.hierarchy.iter_entities(app.load_context(context_id)):
        if not isinstance(ent, dict):
            continue
        id_field = app.hierarchy.entities[etype].id_field
        for key, value in sorted(ent.items(), key=lambda kv: kv[0] != id_field):
            if isinstance(value, str | int) and not isinstance(value, bool):
                index.setdefault(str(value), key)
    return index


def field_name_of(server: str, context_id: str, value: object) -> str | None:
    """The field of the stored context that holds ``value`` (an entity's own id field first): tells an
    ``open_id`` from a short ``user_id``."""
    return _field_index(server, context_id).get(str(value))
