"""Tests of the Context-Tree engine: paths, hierarchy, ids, CRUD, transactions, hashing, diff, integrity."""

from __future__ import annotations

import copy
import json
import random
import re
import uuid
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import TypeAdapter, ValidationError

import mcp_persona
from mcp_persona.context_tree import (
    Change,
    ConflictError,
    ContextTree,
    EntityType,
    Hierarchy,
    NotFoundError,
    PathError,
    ReferenceError_,
    Segment,
    TreeError,
    canonical_hash,
    canonical_json,
    diff_states,
    get_field,
    is_ignored,
    load_hierarchy,
    parse_path,
)
from mcp_persona.context_tree.ids import IdFormat, draw, generate_id, matches_format
from mcp_persona.context_tree.path import WILDCARD, entity_path, format_path
from mcp_persona.context_tree.validate import check_state

# -- fixtures --------------------------------------------------------------------------------------

HIERARCHY_SPEC: dict[str, Any] = {
    "app": "test",
    "description": "a small user-rooted tree for the engine tests",
    "entities": {
        "contact": {"collection": "contacts", "id_field": "user_id", "id_format": "u_{hex:8}"},
        "calendar": {  # ids are emails, supplied by the caller
            "collection": "calendars",
            "id_field": "calendar_id",
            "references": {"owner_id": "contact"},
        },
        "event": {
            "collection": "events",
            "parent": "calendar",
            "id_field": "event_id",
            "id_format": "{uuid}_0",
            "references": {"organizer_id": "contact"},
        },
        "attendee": {
            "collection": "attendees",
            "parent": "event",
            "id_field": "attendee_id",
            "id_format": "att_{digits:6}",
            "references": {"user_id": "contact"},
        },
        "note": {  # keyed by file paths with dots, slashes, even brackets
            "collection": "notes",
            "id_field": "path",
            "references": {"shared_with": "contact"},  # a list of ids
        },
        "chat": {"collection": "chats", "id_field": "chat_id", "id_format": "oc_{alnum:10}"},
        "message": {
            "collection": "messages",
            "parent": "chat",
            "id_field": "message_id",
            "id_format": "om_{upper:6}",
            "references": {"sender_id": "contact"},
        },
    },
    "ignore_changes": ["chats[*].messages[*].read"],
}

H = Hierarchy.model_validate(HIERARCHY_SPEC)

ANN_CAL = "ann.lee@corp.com"
TEAM_CAL = "team@corp.com"
PLAN = "docs/plan.v2.md"
DRAFT = "a [draft].md"

EV1 = f"calendars[{ANN_CAL}].events[ev1]"
EV2 = f"calendars[{ANN_CAL}].events[ev2]"
EV3 = f"calendars[{TEAM_CAL}].events[ev3]"
A1 = f"{EV1}.attendees[a1]"


def make_state() -> dict[str, Any]:
    return {
        "name": "Ann Lee",
        "settings": {"tz": "Europe/Oslo"},
        "contacts": {
            "u_ann": {"user_id": "u_ann", "name": "Ann", "profile": {"city": "Oslo", "team": "core"}},
            "u_bob": {"user_id": "u_bob", "name": "Bob", "profile": {"city": "Rome"}},
            "u_cat": {"user_id": "u_cat", "name": "Cat", "profile": {"city": "Oslo", "team": "web"}},
        },
        "calendars": {
            ANN_CAL: {
                "calendar_id": ANN_CAL,
                "owner_id": "u_ann",
                "events": {
                    "ev1": {
                        "event_id": "ev1",
                        "title": "Standup",
                        "organizer_id": "u_ann",
                        "attendees": {
                            "a1": {"attendee_id": "a1", "user_id": "u_bob", "rsvp": "yes"},
                            "a2": {"attendee_id": "a2", "user_id": "u_cat", "rsvp": "no"},
                        },
                    },
                    "ev2": {"event_id": "ev2", "title": "Retro", "organizer_id": "u_bob"},
                },
            },
            TEAM_CAL: {
                "calendar_id": TEAM_CAL,
                "owner_id": "u_bob",
                "events": {
                    "ev3": {
                        "event_id": "ev3",
                        "title": "Offsite",
                        "organizer_id": "u_bob",
                        "attendees": {"a3": {"attendee_id": "a3", "user_id": "u_ann", "rsvp": "yes"}},
                    }
                },
            },
        },
        "notes": {
            PLAN: {"path": PLAN, "shared_with": ["u_bob", "u_cat"], "pinned": True},
            DRAFT: {"path": DRAFT, "pinned": False},
        },
        "chats": {
            "oc_1": {
                "chat_id": "oc_1",
                "topic": "lunch",
                "messages": {
                    "m1": {"message_id": "m1", "sender_id": "u_bob", "text": "hi", "read": False},
                    "m2": {"message_id": "m2", "sender_id": "u_ann", "text": "hey", "read": True},
                },
            }
        },
    }


@pytest.fixture
def tree() -> ContextTree:
    return ContextTree(H, make_state(), seed=1)


def ids_of(entities: list[dict[str, Any]], field: str) -> list[str]:
    return sorted(e[field] for e in entities)


# -- path language ---------------------------------------------------------------------------------


def test_parse_dotted_id_and_wildcard() -> None:
    segs = parse_path(f"calendars[{ANN_CAL}].events[*]")
    assert segs == (Segment("calendars", ANN_CAL), Segment("events", WILDCARD))
    assert not segs[0].is_wildcard
    assert segs[1].is_wildcard


def test_parse_collection_without_selector_and_slashes_in_ids() -> None:
    assert parse_path("contacts") == (Segment("contacts"),)
    assert parse_path(f"notes[{PLAN}]") == (Segment("notes", PLAN),)
    assert parse_path("calendars.events") == (Segment("calendars"), Segment("events"))


@pytest.mark.parametrize(
    ("path", "selector"),
    [
        ('notes["a [draft].md"]', "a [draft].md"),
        ('notes["x]y"]', "x]y"),
        ('notes["say \\"hi\\" [now]"]', 'say "hi" [now]'),
        ('notes["back\\\\slash [1]"]', "back\\slash [1]"),
        ('notes["plain"]', "plain"),  # quoting is allowed even when not needed
    ],
)
def test_parse_quoted_selectors(path: str, selector: str) -> None:
    assert parse_path(path) == (Segment("notes", selector),)


def test_quoted_selector_then_more_segments() -> None:
    segs = parse_path('calendars["x [1]"].events[ev1].attendees[*]')
    assert segs == (Segment("calendars", "x [1]"), Segment("events", "ev1"), Segment("attendees", "*"))


@pytest.mark.parametrize(
    ("segment", "text"),
    [
        (Segment("events"), "events"),
        (Segment("events", WILDCARD), "events[*]"),
        (Segment("calendars", ANN_CAL), f"calendars[{ANN_CAL}]"),
        (Segment("notes", PLAN), f"notes[{PLAN}]"),
        (Segment("notes", DRAFT), 'notes["a [draft].md"]'),
        (Segment("notes", '"quoted'), 'notes["\\"quoted"]'),
        (Segment("notes", 'mid"quote'), 'notes[mid"quote]'),
    ],
)
def test_segment_str(segment: Segment, text: str) -> None:
    assert str(segment) == text
    assert parse_path(text) == (segment,)


@pytest.mark.parametrize(
    "segments",
    [
        (Segment("calendars", ANN_CAL), Segment("events", "*"), Segment("attendees")),
        (Segment("notes", DRAFT),),
        (Segment("notes", "]]"),),
        (Segment("notes", "[["),),
        (Segment("notes", 'we"ird [x] \\ "id"'),),
        (Segment("notes", "C:\\dir\\[x].txt"),),
        (Segment("chats", "oc_1"), Segment("messages", "m.1")),
    ],
)
def test_format_path_round_trip(segments: tuple[Segment, ...]) -> None:
    text = format_path(segments)
    assert parse_path(text) == segments
    assert format_path(list(segments)) == text


@given(st.text(min_size=1).filter(lambda s: s != WILDCARD))
def test_any_id_round_trips(entity_id: str) -> None:
    seg = Segment("notes", entity_id)
    assert parse_path(f"chats[c].{seg}") == (Segment("chats", "c"), seg)


def test_entity_path() -> None:
    assert entity_path(None, "calendars", ANN_CAL) == f"calendars[{ANN_CAL}]"
    assert entity_path("", "notes", DRAFT) == 'notes["a [draft].md"]'
    assert entity_path(f"calendars[{ANN_CAL}]", "events", "ev1") == EV1


@pytest.mark.parametrize(
    ("path", "message"),
    [
        ("a..b", "bad collection name '' at position 2"),
        (".a", "bad collection name '' at position 0"),
        ("a.", "ends with '.' at position 1"),
        ("calendars[x].", "ends with '.' at position 12"),
        ("a[", "unclosed '[' at position 1"),
        ("calendars[x", "unclosed '[' at position 9"),
        ("a[]", "empty selector at position 1"),
        ("a[x].b[]", "empty selector at position 6"),
        ('a[""]', "empty selector at position 1"),
        ("1abc", "bad collection name '1abc' at position 0"),
        ("calendars[x].1abc", "bad collection name '1abc' at position 13"),
        ("a-b", "bad collection name 'a-b' at position 0"),
        ("[x]", "bad collection name '' at position 0"),
        ("a[b[c]]", "nested '[' in selector at position 2"),
        ("a[b[c]", "nested '[' in selector at position 2"),
        ("a[x]b", "expected '.' at position 4"),
        ("a[x][y]", "expected '.' at position 4"),
        ("a]", "expected '.' at position 1"),
        ('a["x]', "unterminated quoted selector at position 2"),
        ('a["x"y]', "unterminated quoted selector at position 2"),
    ],
)
def test_bad_paths_name_the_position(path: str, message: str) -> None:
    with pytest.raises(PathError, match=re.escape(message)) as info:
        parse_path(path)
    assert repr(path) in str(info.value)


@pytest.mark.parametrize("path", ["", "   ", None, 3])
def test_empty_or_non_string_path(path: Any) -> None:
    with pytest.raises(PathError, match="non-empty string"):
        parse_path(path)


def test_path_error_is_a_value_error() -> None:
    assert issubclass(PathError, ValueError)


@pytest.mark.parametrize(
    ("path", "allowed"),
    [
        ("widgets[x]", "calendars, chats, contacts, notes"),
        ("calendars[x].bogus", "events"),
        (f"{EV1}.guests[*]", "attendees"),
        (f"{A1}.extra", "nothing"),
        ("events[ev1]", "calendars, chats, contacts, notes"),  # not at the root
    ],
)
def test_paths_outside_the_hierarchy(tree: ContextTree, path: str, allowed: str) -> None:
    with pytest.raises(PathError, match=re.escape(f"(has: {allowed})")):
        tree.list(path)
    with pytest.raises(PathError, match=re.escape(f"(has: {allowed})")):
        H.type_of(path)


def test_hierarchy_lookups() -> None:
    assert H.type_of(f"{A1}") == "attendee"
    assert H.type_of("calendars[*].events") == "event"
    assert H.resolve(parse_path(f"{EV1}.attendees")) == ["calendar", "event", "attendee"]
    assert H.ancestry("attendee") == ["calendar", "event", "attendee"]
    assert H.ancestry("contact") == ["contact"]
    assert H.wildcard_path("attendee") == "calendars[*].events[*].attendees[*]"
    assert H.wildcard_path("message") == "chats[*].messages[*]"
    assert H.child_types(None) == {
        "contacts": "contact",
        "calendars": "calendar",
        "notes": "note",
        "chats": "chat",
    }
    assert H.child_types("event") == {"attendees": "attendee"}
    assert H.child_types("attendee") == {}


def test_iter_entities_paths() -> None:
    found = {path: etype for etype, path, _ in H.iter_entities(make_state())}
    assert found[A1] == "attendee"
    assert found['notes["a [draft].md"]'] == "note"
    assert found[f"notes[{PLAN}]"] == "note"
    assert found["chats[oc_1].messages[m2]"] == "message"
    assert len(found) == 3 + 2 + 3 + 3 + 2 + 1 + 2
    # every yielded path leads back to its entity
    t = ContextTree(H, make_state())
    for _, path, entity in H.iter_entities(t.data):
        assert t.get(path) is entity


# -- reading ---------------------------------------------------------------------------------------


def test_get_returns_the_stored_entity(tree: ContextTree) -> None:
    ev = tree.get(EV1)
    assert ev["title"] == "Standup"
    assert ev is tree.data["calendars"][ANN_CAL]["events"]["ev1"]
    assert tree.get(A1)["user_id"] == "u_bob"
    assert tree.get(f"notes[{PLAN}]")["pinned"] is True
    assert tree.get('notes["a [draft].md"]')["path"] == DRAFT
    assert tree.get("contacts[u_ann]")["name"] == "Ann"


@pytest.mark.parametrize(
    ("path", "where"),
    [
        ("contacts[u_zed]", "contacts[u_zed]"),
        ("calendars[nope@corp.com].events[ev1]", "calendars[nope@corp.com]"),
        (f"calendars[{ANN_CAL}].events[ev3]", f"calendars[{ANN_CAL}].events[ev3]"),  # ev3 is in another calendar
        (f"{EV2}.attendees[a1]", f"{EV2}.attendees[a1]"),  # ev2 has no attendees at all
    ],
)
def test_get_missing(tree: ContextTree, path: str, where: str) -> None:
    with pytest.raises(NotFoundError, match=re.escape(f"no entity at {where}")):
        tree.get(path)
    assert tree.try_get(path) is None


@pytest.mark.parametrize(
    "path", ["contacts", "calendars[*]", f"calendars[{ANN_CAL}].events", "calendars[*].events[ev1]"]
)
def test_get_needs_one_entity(tree: ContextTree, path: str) -> None:
    with pytest.raises(PathError, match="one entity"):
        tree.get(path)
    with pytest.raises(PathError):
        tree.try_get(path)


def test_try_get_still_rejects_bad_paths(tree: ContextTree) -> None:
    with pytest.raises(PathError):
        tree.try_get("contacts[")
    with pytest.raises(PathError):
        tree.try_get("widgets[x]")
    assert tree.try_get(EV1) is tree.get(EV1)


def test_list_collection(tree: ContextTree) -> None:
    assert ids_of(tree.list("contacts"), "user_id") == ["u_ann", "u_bob", "u_cat"]
    assert tree.list("contacts") == tree.list("contacts[*]")
    assert ids_of(tree.list(f"calendars[{ANN_CAL}].events"), "event_id") == ["ev1", "ev2"]
    assert ids_of(tree.list(f"calendars[{ANN_CAL}].events[*]"), "event_id") == ["ev1", "ev2"]
    assert ids_of(tree.list("notes"), "path") == sorted([PLAN, DRAFT])


def test_list_returns_stored_entities(tree: ContextTree) -> None:
    (ann,) = tree.list("contacts", {"name": "Ann"})
    assert ann is tree.data["contacts"]["u_ann"]


def test_list_filters(tree: ContextTree) -> None:
    assert ids_of(tree.list("contacts", {"profile.city": "Oslo"}), "user_id") == ["u_ann", "u_cat"]
    assert ids_of(tree.list("contacts", {"profile.city": "Oslo", "profile.team": "web"}), "user_id") == ["u_cat"]
    assert tree.list("contacts", {"profile.city": "Paris"}) == []
    assert tree.list("contacts", {"profile.city.deeper": "Oslo"}) == []
    # an absent field reads as None
    assert ids_of(tree.list("contacts", {"profile.team": None}), "user_id") == ["u_bob"]
    assert tree.list("contacts", {}) == tree.list("contacts")
    assert tree.list("notes", {"shared_with": ["u_bob", "u_cat"]})[0]["path"] == PLAN


def test_list_limit(tree: ContextTree) -> None:
    assert len(tree.list("contacts", limit=2)) == 2
    assert len(tree.list("contacts", limit=10)) == 3
    assert tree.list("contacts", limit=0) == []
    assert len(tree.list("calendars[*].events[*].attendees", limit=2)) == 2
    assert ids_of(tree.list("contacts", {"profile.city": "Oslo"}, limit=1), "user_id") in (["u_ann"], ["u_cat"])
    with pytest.raises(ValueError, match="limit"):
        tree.list("contacts", limit=-1)


def test_list_wildcard_across_parents(tree: ContextTree) -> None:
    assert ids_of(tree.list("calendars[*].events"), "event_id") == ["ev1", "ev2", "ev3"]
    assert ids_of(tree.list("calendars[*].events[*].attendees"), "attendee_id") == ["a1", "a2", "a3"]
    assert ids_of(tree.list("calendars[*].events[*].attendees", {"rsvp": "yes"}), "attendee_id") == ["a1", "a3"]
    assert ids_of(tree.list(f"calendars[{ANN_CAL}].events[*].attendees[*]"), "attendee_id") == ["a1", "a2"]
    assert ids_of(tree.list("chats[*].messages", {"read": False}), "message_id") == ["m1"]


def test_list_wildcard_then_id(tree: ContextTree) -> None:
    # an id after a wildcard is looked up under every parent, not required under each one
    assert ids_of(tree.list("calendars[*].events[ev3].attendees"), "attendee_id") == ["a3"]
    assert ids_of(tree.list("calendars[*].events[ev1]"), "event_id") == ["ev1"]
    with pytest.raises(NotFoundError, match=re.escape("no entity at calendars[*].events[zzz]")):
        tree.list("calendars[*].events[zzz].attendees")


def test_list_strict_about_parent_ids(tree: ContextTree) -> None:
    with pytest.raises(NotFoundError, match=re.escape("no entity at calendars[nope@corp.com]")):
        tree.list("calendars[nope@corp.com].events")
    with pytest.raises(NotFoundError, match="events\\[nope\\]"):
        tree.list(f"calendars[{ANN_CAL}].events[nope].attendees")
    with pytest.raises(NotFoundError):
        tree.list("contacts[u_zed]")


def test_list_parent_without_the_collection_is_empty(tree: ContextTree) -> None:
    assert tree.list(f"{EV2}.attendees") == []
    empty = ContextTree(H, {})
    assert empty.list("contacts") == []
    assert empty.list("calendars[*].events[*].attendees") == []


def test_list_path_ending_in_an_id(tree: ContextTree) -> None:
    assert tree.list(EV1) == [tree.get(EV1)]
    assert tree.list(EV1, {"title": "Standup"}) == [tree.get(EV1)]
    assert tree.list(EV1, {"title": "Other"}) == []
    assert tree.list(EV1, limit=0) == []


def test_get_field() -> None:
    entity = {"a": {"b": {"c": 1}}, "x": [1, 2], "n": None}
    assert get_field(entity, "a.b.c") == 1
    assert get_field(entity, "a.b") == {"c": 1}
    assert get_field(entity, "x") == [1, 2]
    assert get_field(entity, "a.z") is None
    assert get_field(entity, "x.0") is None
    assert get_field(entity, "n.deeper") is None
    assert get_field("not a dict", "a") is None


def test_top(tree: ContextTree) -> None:
    assert tree.top("contact", "u_ann") is tree.data["contacts"]["u_ann"]
    assert tree.top("calendar", ANN_CAL)["owner_id"] == "u_ann"
    assert tree.top("note", DRAFT)["path"] == DRAFT
    assert tree.top("contact", "u_zed") is None
    assert tree.top("contact", "weird [id") is None  # any id text is safe
    assert ContextTree(H, {}).top("contact", "u_ann") is None
    with pytest.raises(TreeError, match="not a top-level"):
        tree.top("event", "ev1")


def test_find(tree: ContextTree) -> None:
    path, entity = tree.find("attendee", "a3")
    assert path == f"{EV3}.attendees[a3]"
    assert entity is tree.get(path)
    assert tree.find("event", "ev2")[0] == EV2
    assert tree.find("note", DRAFT)[0] == 'notes["a [draft].md"]'
    assert tree.find("contact", "u_bob")[0] == "contacts[u_bob]"
    assert tree.find("attendee", "nope") is None
    assert tree.find("event", "a1") is None  # an id of another type


def test_exists(tree: ContextTree) -> None:
    assert tree.exists("contact", "u_ann")
    assert not tree.exists("contact", "u_zed")
    assert tree.exists("calendar", TEAM_CAL)
    assert tree.exists("attendee", "a2")
    assert not tree.exists("attendee", "a9")
    assert tree.exists("message", "m2")
    assert not tree.exists("message", "ev1")


# -- create ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("collection_path", "entity", "etype"),
    [
        ("contacts", {"name": "Dan"}, "contact"),
        (f"calendars[{ANN_CAL}].events", {"title": "1:1", "organizer_id": "u_ann"}, "event"),
        (f"{EV2}.attendees", {"user_id": "u_cat"}, "attendee"),
        ("chats", {"topic": "new"}, "chat"),
        ("chats[oc_1].messages", {"text": "yo", "sender_id": "u_cat"}, "message"),
    ],
)
def test_create_generates_ids_in_format(
    tree: ContextTree, collection_path: str, entity: dict[str, Any], etype: str
) -> None:
    decl = H.entities[etype]
    created = tree.create(collection_path, entity)
    eid = created[decl.id_field]
    assert matches_format(decl.id_format, eid), eid
    assert tree.get(f"{collection_path}[{eid}]") is created
    assert tree.find(etype, eid) == (f"{collection_path}[{eid}]", created)
    assert decl.id_field not in entity  # the caller's dict is not modified
    assert check_state(H, tree.data) == []


def test_create_uuid_ids_are_version_4(tree: ContextTree) -> None:
    created = tree.create(f"calendars[{ANN_CAL}].events", {"title": "x"})
    assert uuid.UUID(created["event_id"].removesuffix("_0")).version == 4


def _creations(seed: int) -> list[str]:
    t = ContextTree(H, make_state(), seed=seed)
    made = [
        t.create("contacts", {"name": "Dan"})["user_id"],
        t.create(f"calendars[{ANN_CAL}].events", {"title": "x"})["event_id"],
        t.create("chats", {})["chat_id"],
        t.create("chats[oc_1].messages", {})["message_id"],
        t.create(f"{EV1}.attendees", {})["attendee_id"],
    ]
    return [*made, t.hash()]


def test_seeded_ids_are_reproducible() -> None:
    assert _creations(7) == _creations(7)
    other = _creations(8)
    assert all(a != b for a, b in zip(_creations(7), other, strict=True))


def test_new_id(tree: ContextTree) -> None:
    assert matches_format("u_{hex:8}", tree.new_id("contact"))
    with pytest.raises(TreeError, match="caller must supply"):
        tree.new_id("calendar")


def test_create_with_explicit_id(tree: ContextTree) -> None:
    by_kw = tree.create("contacts", {"name": "Dan"}, entity_id="u_dan")
    assert by_kw == {"name": "Dan", "user_id": "u_dan"}
    assert tree.get("contacts[u_dan]") is by_kw
    by_field = tree.create("calendars", {"calendar_id": "dan.x@corp.com", "owner_id": "u_dan"})
    assert tree.get("calendars[dan.x@corp.com]") is by_field
    # entity_id wins over the id field of the entity
    both = tree.create("contacts", {"user_id": "u_ignored"}, entity_id="u_eve")
    assert both["user_id"] == "u_eve"
    assert tree.try_get("contacts[u_ignored]") is None


def test_create_ids_with_brackets_and_dots(tree: ContextTree) -> None:
    note = tree.create("notes", {"pinned": False}, entity_id='old/"b" [v1.2].md')
    path = str(Segment("notes", note["path"]))
    assert tree.get(path) is note
    assert tree.find("note", note["path"]) == (path, note)
    assert check_state(H, tree.data) == []


def test_create_needs_an_id_when_there_is_no_format(tree: ContextTree) -> None:
    before = tree.hash()
    with pytest.raises(TreeError, match="caller must supply"):
        tree.create("notes", {"pinned": True})
    with pytest.raises(TreeError, match="non-empty string"):
        tree.create("notes", {"path": 42})
    assert tree.hash() == before


def test_create_makes_a_missing_collection(tree: ContextTree) -> None:
    assert "attendees" not in tree.get(EV2)
    created = tree.create(f"{EV2}.attendees", {"user_id": "u_ann"}, entity_id="a9")
    assert tree.get(EV2)["attendees"] == {"a9": created}
    empty = ContextTree(H, {})
    empty.create("contacts", {}, entity_id="u_1")
    assert empty.data == {"contacts": {"u_1": {"user_id": "u_1"}}}


def test_create_duplicate_id(tree: ContextTree) -> None:
    before = tree.snapshot()
    with pytest.raises(ConflictError, match="already exists"):
        tree.create("contacts", {"name": "Another Ann"}, entity_id="u_ann")
    with pytest.raises(ConflictError):
        tree.create(f"{EV1}.attendees", {"attendee_id": "a2"})
    assert tree.data == before


@pytest.mark.parametrize(
    "path",
    [
        "calendars[nope@corp.com].events",
        f"calendars[{ANN_CAL}].events[nope].attendees",
        "chats[oc_9].messages",
    ],
)
def test_create_missing_parent(tree: ContextTree, path: str) -> None:
    before = tree.hash()
    with pytest.raises(NotFoundError):
        tree.create(path, {})
    assert tree.hash() == before


@pytest.mark.parametrize(
    ("path", "entity", "message"),
    [
        (f"{EV1}.attendees", {"user_id": "u_zed"}, "user_id: no contact with id 'u_zed'"),
        (f"calendars[{ANN_CAL}].events", {"organizer_id": "ev1"}, "organizer_id: no contact with id 'ev1'"),
        ("calendars", {"calendar_id": "x@y.z", "owner_id": 7}, "owner_id: no contact with id 7"),
        ("notes", {"path": "n.md", "shared_with": ["u_ann", "u_zed", "u_bob"]}, "no contact with id 'u_zed'"),
        ("notes", {"path": "n.md", "shared_with": ["u_ann", None]}, "no contact with id None"),
        ("chats[oc_1].messages", {"sender_id": ""}, "sender_id: no contact with id ''"),
    ],
)
def test_create_bad_reference(tree: ContextTree, path: str, entity: dict[str, Any], message: str) -> None:
    before = tree.hash()
    with pytest.raises(ReferenceError_, match=re.escape(message)):
        tree.create(path, entity)
    assert tree.hash() == before


def test_create_good_references(tree: ContextTree) -> None:
    note = tree.create("notes", {"shared_with": ["u_ann", "u_cat"]}, entity_id="n.md")
    assert note["shared_with"] == ["u_ann", "u_cat"]
    tree.create("notes", {"shared_with": []}, entity_id="empty.md")
    tree.create("notes", {"shared_with": None}, entity_id="none.md")  # an absent reference is fine
    new_contact = tree.create("contacts", {})
    tree.create(f"{EV2}.attendees", {"user_id": new_contact["user_id"]})  # refers to an entity made just now
    assert check_state(H, tree.data) == []


@pytest.mark.parametrize(
    ("path", "message"),
    [
        ("calendars[*].events", "every parent named by id"),
        (f"calendars[{ANN_CAL}].events[*].attendees", "every parent named by id"),
        ("calendars.events", "every parent named by id"),
        ("contacts[u_new]", "no [...] at the end"),
        ("contacts[*]", "no [...] at the end"),
        ("widgets", "has no collection"),
    ],
)
def test_create_bad_paths(tree: ContextTree, path: str, message: str) -> None:
    before = tree.hash()
    with pytest.raises(PathError, match=re.escape(message)):
        tree.create(path, {})
    assert tree.hash() == before


def test_create_into_non_collection(tree: ContextTree) -> None:
    tree.data["contacts"] = ["not", "a", "map"]
    with pytest.raises(TreeError, match="not a collection"):
        tree.create("contacts", {}, entity_id="u_x")


# -- update ----------------------------------------------------------------------------------------


def test_update_sets_and_removes_fields(tree: ContextTree) -> None:
    ev = tree.update(EV1, {"title": "Daily", "room": "4B", "organizer_id": None})
    assert ev is tree.get(EV1)
    assert ev["title"] == "Daily"
    assert ev["room"] == "4B"
    assert "organizer_id" not in ev
    assert set(ev["attendees"]) == {"a1", "a2"}  # children untouched
    tree.update(EV1, {"not_there": None})  # removing an absent field is a no-op
    assert "not_there" not in tree.get(EV1)
    tree.update(f"notes[{PLAN}]", {"meta": {"words": 10}})
    assert tree.get(f"notes[{PLAN}]")["meta"] == {"words": 10}


def test_update_keeps_falsy_values(tree: ContextTree) -> None:
    msg = tree.update("chats[oc_1].messages[m2]", {"read": False, "text": "", "n": 0})
    assert msg["read"] is False
    assert msg["text"] == ""
    assert msg["n"] == 0


def test_update_refuses_id_change(tree: ContextTree) -> None:
    before = tree.hash()
    with pytest.raises(ConflictError, match="event_id"):
        tree.update(EV1, {"event_id": "ev9", "title": "x"})
    with pytest.raises(ConflictError, match="event_id"):
        tree.update(EV1, {"event_id": None})
    assert tree.hash() == before
    tree.update(EV1, {"event_id": "ev1", "title": "same id is fine"})
    assert tree.get(EV1)["title"] == "same id is fine"


@pytest.mark.parametrize(
    ("path", "changes"),
    [
        (f"calendars[{ANN_CAL}]", {"events": {}}),
        (f"calendars[{ANN_CAL}]", {"events": None}),
        (EV2, {"attendees": {"a9": {"attendee_id": "a9"}}, "title": "x"}),
        ("chats[oc_1]", {"messages": {}}),
    ],
)
def test_update_refuses_child_collections(tree: ContextTree, path: str, changes: dict[str, Any]) -> None:
    before = tree.hash()
    with pytest.raises(ConflictError, match="child collections"):
        tree.update(path, changes)
    assert tree.hash() == before


def test_update_validates_references(tree: ContextTree) -> None:
    before = tree.hash()
    with pytest.raises(ReferenceError_, match="u_zed"):
        tree.update(EV1, {"title": "changed", "organizer_id": "u_zed"})
    with pytest.raises(ReferenceError_, match="u_zed"):
        tree.update(f"notes[{PLAN}]", {"shared_with": ["u_ann", "u_zed"]})
    assert tree.hash() == before  # nothing written, not even the valid field
    tree.update(EV1, {"organizer_id": "u_cat"})
    tree.update(f"notes[{PLAN}]", {"shared_with": ["u_ann"]})
    assert tree.get(EV1)["organizer_id"] == "u_cat"
    assert check_state(H, tree.data) == []


def test_update_missing_entity(tree: ContextTree) -> None:
    with pytest.raises(NotFoundError):
        tree.update("contacts[u_zed]", {"name": "x"})
    with pytest.raises(PathError):
        tree.update("contacts[*]", {"name": "x"})


# -- delete ----------------------------------------------------------------------------------------


def test_delete_removes_the_subtree(tree: ContextTree) -> None:
    removed = tree.delete(EV1)
    assert removed["event_id"] == "ev1"
    assert set(removed["attendees"]) == {"a1", "a2"}
    assert tree.try_get(EV1) is None
    assert tree.find("attendee", "a1") is None
    assert tree.find("attendee", "a2") is None
    assert not tree.exists("event", "ev1")
    assert ids_of(tree.list("calendars[*].events"), "event_id") == ["ev2", "ev3"]
    assert ids_of(tree.list("calendars[*].events[*].attendees"), "attendee_id") == ["a3"]


def test_delete_top_level_and_quoted(tree: ContextTree) -> None:
    tree.delete(f"calendars[{TEAM_CAL}]")
    assert tree.find("attendee", "a3") is None
    assert tree.find("event", "ev3") is None
    tree.delete('notes["a [draft].md"]')
    assert list(tree.data["notes"]) == [PLAN]
    tree.delete(f"notes[{PLAN}]")
    assert tree.list("notes") == []


@pytest.mark.parametrize(
    ("path", "error"),
    [
        ("contacts[u_zed]", NotFoundError),
        ("calendars[nope@corp.com].events[ev1]", NotFoundError),
        (f"{EV2}.attendees[a1]", NotFoundError),
        ("contacts[*]", PathError),
        ("contacts", PathError),
        ("widgets[x]", PathError),
    ],
)
def test_delete_bad_path(tree: ContextTree, path: str, error: type[Exception]) -> None:
    before = tree.hash()
    with pytest.raises(error):
        tree.delete(path)
    assert tree.hash() == before


# -- transactions ----------------------------------------------------------------------------------


class Boom(Exception):
    pass


def _many_writes(t: ContextTree) -> None:
    t.create("contacts", {"name": "Dan"}, entity_id="u_dan")
    t.create(f"{EV2}.attendees", {"user_id": "u_dan"}, entity_id="a9")  # new collection
    t.create("chats", {"topic": "new"}, entity_id="oc_2")
    t.create("chats[oc_2].messages", {"text": "first", "sender_id": "u_dan"})
    t.update(EV1, {"title": "Daily", "organizer_id": None, "room": "4B"})
    t.update("contacts[u_dan]", {"name": "Daniel"})
    t.update("chats[oc_1].messages[m1]", {"read": True})
    t.delete(A1)
    t.delete(f"calendars[{TEAM_CAL}]")
    t.delete('notes["a [draft].md"]')
    t.delete("contacts[u_dan]")  # delete something created in the same transaction
    t.update("contacts[u_cat]", {"profile": {"city": "Bergen"}})


def test_failed_transaction_rolls_everything_back(tree: ContextTree) -> None:
    before_hash, before = tree.hash(), tree.snapshot()
    with pytest.raises(Boom), tree.transaction():
        _many_writes(tree)
        assert tree.hash() != before_hash
        raise Boom
    assert tree.hash() == before_hash
    assert tree.data == before
    assert "attendees" not in tree.get(EV2)  # the created collection is gone, not left empty


def test_transaction_rolls_back_on_engine_error(tree: ContextTree) -> None:
    before = tree.hash()
    with pytest.raises(ReferenceError_), tree.transaction():
        tree.create("contacts", {}, entity_id="u_dan")
        tree.update(EV1, {"title": "x"})
        tree.create(f"{EV1}.attendees", {"user_id": "u_nobody"})
    assert tree.hash() == before


def test_transaction_rolls_back_on_base_exception(tree: ContextTree) -> None:
    before = tree.hash()
    with pytest.raises(KeyboardInterrupt), tree.transaction():
        tree.delete(EV1)
        raise KeyboardInterrupt
    assert tree.hash() == before


def test_successful_transaction_keeps_writes(tree: ContextTree) -> None:
    expected = ContextTree(H, make_state(), seed=1)
    _many_writes(expected)
    with tree.transaction():
        _many_writes(tree)
    assert tree.data == expected.data
    assert tree.get(EV1)["title"] == "Daily"
    assert tree.try_get(A1) is None
    # a later failed transaction only undoes its own writes
    after_first = tree.hash()
    with pytest.raises(Boom), tree.transaction():
        tree.delete(EV1)
        raise Boom
    assert tree.hash() == after_first


def test_writes_outside_a_transaction_stay(tree: ContextTree) -> None:
    with pytest.raises(Boom), tree.transaction():
        raise Boom
    tree.update(EV1, {"title": "outside"})
    with tree.transaction():
        pass
    assert tree.get(EV1)["title"] == "outside"


def test_nested_transaction_failure_propagating_rolls_back_all(tree: ContextTree) -> None:
    before = tree.hash()
    with pytest.raises(Boom), tree.transaction():
        tree.update(EV1, {"title": "outer"})
        with tree.transaction():
            tree.delete(EV3)
            raise Boom
    assert tree.hash() == before


def test_nested_transactions_succeed(tree: ContextTree) -> None:
    with tree.transaction():
        tree.update(EV1, {"title": "outer"})
        with tree.transaction():
            tree.delete(EV3)
    assert tree.get(EV1)["title"] == "outer"
    assert tree.try_get(EV3) is None


def test_nested_failure_caught_inside_undoes_only_the_inner_block(tree: ContextTree) -> None:
    with tree.transaction():
        tree.update(EV1, {"title": "outer"})
        with pytest.raises(Boom), tree.transaction():
            tree.delete(EV3)
            tree.update(EV1, {"title": "inner"})
            raise Boom
        assert tree.get(EV1)["title"] == "outer"
        assert tree.try_get(EV3) is not None
        tree.update(EV2, {"title": "after inner"})
    assert tree.get(EV1)["title"] == "outer"
    assert tree.get(EV2)["title"] == "after inner"
    assert tree.try_get(EV3) is not None


def test_outer_failure_after_caught_inner_failure_rolls_back_all(tree: ContextTree) -> None:
    before = tree.hash()
    with pytest.raises(Boom), tree.transaction():
        tree.update(EV1, {"title": "outer"})
        with pytest.raises(ValueError), tree.transaction():
            tree.delete(EV3)
            raise ValueError
        with tree.transaction():
            tree.create("contacts", {}, entity_id="u_kept_then_undone")
        raise Boom
    assert tree.hash() == before


# -- canonical hash --------------------------------------------------------------------------------


def _reverse_keys(obj: Any) -> Any:
    if isinstance(obj, dict):
        return {k: _reverse_keys(obj[k]) for k in reversed(list(obj))}
    if isinstance(obj, list):
        return [_reverse_keys(v) for v in obj]
    return obj


def test_hash_ignores_key_order() -> None:
    state = make_state()
    flipped = _reverse_keys(state)
    assert list(flipped) != list(state)
    assert canonical_hash(flipped) == canonical_hash(state)
    assert canonical_json(flipped) == canonical_json(state)
    assert canonical_hash({"a": 1, "b": {"c": 2, "d": 3}}) == canonical_hash({"b": {"d": 3, "c": 2}, "a": 1})


@given(st.dictionaries(st.text(), st.one_of(st.integers(), st.text(), st.booleans(), st.none())), st.randoms())
def test_hash_ignores_key_order_property(d: dict[str, Any], rnd: random.Random) -> None:
    items = list(d.items())
    rnd.shuffle(items)
    assert canonical_hash(dict(items)) == canonical_hash(d)


def _set(path: tuple[Any, ...], value: Any) -> Any:
    def mutate(state: dict[str, Any]) -> None:
        node: Any = state
        for key in path[:-1]:
            node = node[key]
        node[path[-1]] = value

    return mutate


@pytest.mark.parametrize(
    "mutate",
    [
        _set(("name",), "Ann B. Lee"),
        _set(("settings", "tz"), "UTC"),
        _set(("contacts", "u_ann", "profile", "team"), "web"),
        _set(("calendars", ANN_CAL, "events", "ev1", "attendees", "a1", "rsvp"), "no"),
        _set(("chats", "oc_1", "messages", "m1", "read"), True),
        _set(("chats", "oc_1", "messages", "m1", "read"), 0),  # False vs 0
        _set(("notes", PLAN, "shared_with"), ["u_cat", "u_bob"]),  # list order matters
        _set(("notes", PLAN, "extra"), None),  # an added null field
        _set(("contacts", "u_bob", "user_id"), "u_bob "),
        _set(("calendars", TEAM_CAL, "events"), {}),
        lambda s: s["contacts"].pop("u_cat"),
    ],
)
def test_hash_changes_with_any_value(mutate: Any) -> None:
    state = make_state()
    before = canonical_hash(state)
    mutate(state)
    assert canonical_hash(state) != before


def test_tree_hash_and_snapshot(tree: ContextTree) -> None:
    assert tree.hash() == canonical_hash(make_state())
    snap = tree.snapshot()
    assert snap == tree.data
    tree.update(A1, {"rsvp": "maybe"})
    assert snap["calendars"][ANN_CAL]["events"]["ev1"]["attendees"]["a1"]["rsvp"] == "yes"  # a deep copy
    assert tree.hash() != canonical_hash(snap)


def test_path_of(tree: ContextTree) -> None:
    assert tree.path_of("attendee", tree.get(A1), EV1) == A1
    assert tree.path_of("note", tree.top("note", DRAFT), None) == 'notes["a [draft].md"]'


# -- diff ------------------------------------------------------------------------------------------


def _ops(changes: list[Change]) -> set[tuple[str, str, str]]:
    return {(c.op, c.entity_type, c.path) for c in changes}


def test_diff_identical_states() -> None:
    assert diff_states(H, make_state(), make_state()) == []
    assert diff_states(H, make_state(), _reverse_keys(make_state())) == []


def test_diff_at_several_depths(tree: ContextTree) -> None:
    before = tree.snapshot()
    tree.create(f"{EV2}.attendees", {"user_id": "u_ann", "rsvp": "yes"}, entity_id="a9")  # depth 3
    tree.create("chats[oc_1].messages", {"text": "new"}, entity_id="m3")  # depth 2
    tree.delete("contacts[u_cat]")  # depth 1 (leaves a dangling reference: diff does not care)
    tree.delete(f"{EV3}.attendees[a3]")  # depth 3
    tree.update(EV1, {"title": "Daily", "room": "4B", "organizer_id": None})  # depth 2
    tree.update(f"{A1}", {"rsvp": "maybe"})  # depth 3
    tree.update('notes["a [draft].md"]', {"pinned": True})  # depth 1, quoted id
    changes = diff_states(H, before, tree.data)
    assert _ops(changes) == {
        ("create", "attendee", f"{EV2}.attendees[a9]"),
        ("create", "message", "chats[oc_1].messages[m3]"),
        ("delete", "contact", "contacts[u_cat]"),
        ("delete", "attendee", f"{EV3}.attendees[a3]"),
        ("modify", "event", EV1),
        ("modify", "attendee", A1),
        ("modify", "note", 'notes["a [draft].md"]'),
    }
    assert len(changes) == 7
    by_path = {c.path: c for c in changes}
    ev = by_path[EV1]
    assert ev.fields == ("organizer_id", "room", "title")  # sorted
    assert "attendees" not in ev.before
    assert "attendees" not in ev.after
    assert ev.before["title"] == "Standup"
    assert ev.after == {"event_id": "ev1", "title": "Daily", "room": "4B"}
    created = by_path[f"{EV2}.attendees[a9]"]
    assert created.before is None
    assert created.after == {"attendee_id": "a9", "user_id": "u_ann", "rsvp": "yes"}
    deleted = by_path["contacts[u_cat]"]
    assert deleted.after is None
    assert deleted.before["name"] == "Cat"
    assert by_path[A1].fields == ("rsvp",)


def test_diff_deleting_a_parent_reports_only_the_parent(tree: ContextTree) -> None:
    before = tree.snapshot()
    tree.delete(f"calendars[{ANN_CAL}]")
    (change,) = diff_states(H, before, tree.data)
    assert (change.op, change.entity_type, change.path) == ("delete", "calendar", f"calendars[{ANN_CAL}]")
    assert change.before == {"calendar_id": ANN_CAL, "owner_id": "u_ann"}  # own fields only
    (change,) = diff_states(H, make_state(), _without(make_state(), "calendars", ANN_CAL, "events", "ev1"))
    assert change.path == EV1


def _without(state: dict[str, Any], *keys: str) -> dict[str, Any]:
    node = state
    for key in keys[:-1]:
        node = node[key]
    del node[keys[-1]]
    return state


def test_diff_creating_a_parent_reports_only_the_parent() -> None:
    after = make_state()
    after["chats"]["oc_2"] = {
        "chat_id": "oc_2",
        "messages": {"m9": {"message_id": "m9", "text": "x"}, "m8": {"message_id": "m8", "text": "y"}},
    }
    (change,) = diff_states(H, make_state(), after)
    assert (change.op, change.entity_type, change.path) == ("create", "chat", "chats[oc_2]")
    assert change.after == {"chat_id": "oc_2"}
    # and the reverse direction is one delete
    (change,) = diff_states(H, after, make_state())
    assert (change.op, change.path) == ("delete", "chats[oc_2]")


def test_diff_delete_parent_and_modify_elsewhere() -> None:
    after = make_state()
    del after["calendars"][TEAM_CAL]
    after["calendars"][ANN_CAL]["events"]["ev1"]["attendees"]["a2"]["rsvp"] = "yes"
    assert _ops(diff_states(H, make_state(), after)) == {
        ("delete", "calendar", f"calendars[{TEAM_CAL}]"),
        ("modify", "attendee", f"{EV1}.attendees[a2]"),
    }


def test_diff_similar_prefixes_are_not_parents() -> None:
    before = {"contacts": {"u_a": {"user_id": "u_a"}, "u_a.b": {"user_id": "u_a.b"}}, "calendars": {}}
    after = copy.deepcopy(before)
    del after["contacts"]["u_a"]
    (change,) = diff_states(H, before, after)
    assert change.path == "contacts[u_a]"
    cal = {"calendar_id": "c", "events": {"e": {"event_id": "e"}}}
    before = {"calendars": {"c": cal, "c]": {"calendar_id": "c]"}}}
    after = {"calendars": {"c]": {"calendar_id": "c]"}}}
    assert _ops(diff_states(H, before, after)) == {("delete", "calendar", "calendars[c]")}


def test_diff_root_fields() -> None:
    after = make_state()
    after["name"] = "Ann B. Lee"
    after["settings"]["tz"] = "UTC"
    del after["settings"]
    after["locale"] = "nb"
    (change,) = diff_states(H, make_state(), after)
    assert (change.op, change.entity_type, change.path) == ("modify", "root", "")
    assert change.fields == ("locale", "name", "settings")
    assert "contacts" not in change.before
    assert "calendars" not in change.after


def test_diff_collection_key_appearing_is_not_a_change() -> None:
    before = make_state()
    del before["chats"]
    after = make_state()
    after["chats"] = {}
    assert diff_states(H, before, after) == []
    before = make_state()
    after = make_state()
    after["calendars"][ANN_CAL]["events"]["ev2"]["attendees"] = {}
    assert diff_states(H, before, after) == []


def test_describe() -> None:
    after = make_state()
    after["calendars"][ANN_CAL]["events"]["ev1"]["title"] = "Daily"
    after["calendars"][ANN_CAL]["events"]["ev1"]["room"] = "x" * 100
    del after["contacts"]["u_cat"]
    after["chats"]["oc_1"]["messages"]["m3"] = {"message_id": "m3"}
    by_op = {c.op: c for c in diff_states(H, make_state(), after)}
    text = by_op["modify"].describe()
    assert text.startswith(f"modify event {EV1} (room: None -> 'xxx")
    assert "...; title: 'Standup' -> 'Daily')" in text
    room = text.split("room: None -> ")[1].split(";")[0]
    assert len(room) == 60
    assert by_op["delete"].describe() == "delete contact contacts[u_cat]"
    assert by_op["create"].describe() == "create message chats[oc_1].messages[m3]"


def test_describe_root_and_to_dict() -> None:
    after = make_state()
    after["name"] = "Ann B."
    (change,) = diff_states(H, make_state(), after)
    assert "name: 'Ann Lee' -> 'Ann B.'" in change.describe()
    assert change.describe().startswith("modify root")
    d = change.to_dict()
    assert d["op"] == "modify"
    assert d["entity_type"] == "root"
    assert d["fields"] == ["name"]
    assert d["before"]["name"] == "Ann Lee"
    json.dumps(d)  # serialisable


def _modify(path: str, *fields: str) -> Change:
    return Change("modify", "x", path, dict.fromkeys(fields, 1), dict.fromkeys(fields, 2), fields)


@pytest.mark.parametrize(
    ("change", "patterns", "ignored"),
    [
        (_modify("chats[oc_1].messages[m1]", "read"), ["chats[*].messages[*].read"], True),
        (_modify("chats[oc_9].messages[om_X.Y]", "read"), ["chats[*].messages[*].read"], True),
        (_modify("chats[oc_1].messages[m1]", "read", "text"), ["chats[*].messages[*].read"], False),
        (_modify("chats[oc_1].messages[m1]", "text"), ["chats[*].messages[*].read"], False),
        (
            _modify("chats[oc_1].messages[m1]", "read", "text"),
            ["chats[*].messages[*].read", "chats[*].messages[*].text"],
            True,
        ),
        (_modify("chats[oc_1]", "read"), ["chats[*].messages[*].read"], False),  # the chat's own field
        (_modify("chats[oc_1].messages[m1]", "read"), ["chats[*].read"], False),  # [*] spans one selector only
        (_modify("chats[oc_1].messages[m1]", "read_at"), ["chats[*].messages[*].read"], False),  # full match
        (_modify("chats[oc_1].messages[m1]", "read"), ["chats[oc_1].messages[m1].read"], True),
        (_modify("chats[oc_1].messages[m2]", "read"), ["chats[oc_1].messages[m1].read"], False),
        (_modify("chats[oc_1].messages[m1]", "read"), ["chats[oc.1].messages[m1].read"], False),  # '.' is literal
        (_modify('notes["a [draft].md"]', "opened_at"), ["notes[*].opened_at"], True),
        (_modify('notes["x]y"]', "opened_at"), ["notes[*].opened_at"], True),
        (_modify(f"notes[{PLAN}]", "opened_at"), ["notes[*].opened_at"], True),
        (_modify("", "last_seen"), ["last_seen"], True),  # a root field
        (_modify("", "name"), ["last_seen"], False),
        (_modify("chats[oc_1].messages[m1]", "read"), [], False),
        (
            Change("create", "message", "chats[oc_1].messages[m1]", None, {"read": True}),
            ["chats[*].messages[*]"],
            False,
        ),
        (Change("delete", "message", "chats[oc_1].messages[m1]", {"read": True}), ["chats[*].messages[*].read"], False),
    ],
)
def test_is_ignored(change: Change, patterns: list[str], ignored: bool) -> None:
    assert is_ignored(change, patterns) is ignored


def test_is_ignored_with_a_real_diff(tree: ContextTree) -> None:
    before = tree.snapshot()
    tree.update("chats[oc_1].messages[m1]", {"read": True})
    tree.update("chats[oc_1]", {"read": True})
    changes = diff_states(H, before, tree.data)
    assert [c.path for c in changes if not is_ignored(c, H.ignore_changes)] == ["chats[oc_1]"]


# -- check_state -----------------------------------------------------------------------------------


def test_check_state_valid() -> None:
    assert check_state(H, make_state()) == []
    assert check_state(H, {}) == []
    assert check_state(H, {"name": "only root fields"}) == []


@pytest.mark.parametrize("data", [[], "state", None, 3])
def test_check_state_not_an_object(data: Any) -> None:
    assert check_state(H, data) == ["the state must be a JSON object"]


@pytest.mark.parametrize("note_id", [DRAFT, "[x]", "x]", '"quoted"', 'mid"', "back\\slash [1]", "*"])
def test_check_state_accepts_any_id_text(note_id: str) -> None:
    state = make_state()
    state["notes"][note_id] = {"path": note_id}
    assert check_state(H, state) == []


def test_check_state_id_not_equal_to_key() -> None:
    state = make_state()
    state["calendars"][ANN_CAL]["events"]["ev1"]["attendees"]["a1"]["attendee_id"] = "a7"
    del state["contacts"]["u_bob"]["user_id"]
    state["notes"][DRAFT]["path"] = "a.md"
    problems = check_state(H, state)
    assert sorted(problems) == sorted(
        [
            f"{A1}: attendee_id is 'a7', must equal its key",
            "contacts[u_bob]: user_id is None, must equal its key",
            "notes[\"a [draft].md\"]: path is 'a.md', must equal its key",
        ]
    )


def test_check_state_empty_id() -> None:
    state = make_state()
    state["contacts"][""] = {"user_id": ""}
    assert check_state(H, state) == ["contacts[]: an id must be a non-empty string"]


def test_check_state_dangling_references() -> None:
    state = make_state()
    state["calendars"][TEAM_CAL]["events"]["ev3"]["attendees"]["a3"]["user_id"] = "u_zed"
    state["notes"][PLAN]["shared_with"] = ["u_bob", "u_gone"]
    state["calendars"][ANN_CAL]["owner_id"] = "ev1"  # an id of the wrong type
    state["chats"]["oc_1"]["messages"]["m1"]["sender_id"] = None  # absent: fine
    problems = check_state(H, state)
    assert sorted(problems) == sorted(
        [
            f"{EV3}.attendees[a3].user_id: no contact with id 'u_zed'",
            f"notes[{PLAN}].shared_with: no contact with id 'u_gone'",
            f"calendars[{ANN_CAL}].owner_id: no contact with id 'ev1'",
        ]
    )


def test_check_state_non_string_references() -> None:
    state = make_state()
    state["notes"][PLAN]["shared_with"] = ["u_bob", {"id": "u_cat"}, 7]
    assert check_state(H, state) == [
        f"notes[{PLAN}].shared_with: no contact with id {{'id': 'u_cat'}}",
        f"notes[{PLAN}].shared_with: no contact with id 7",
    ]


def test_check_state_reference_checks_see_the_whole_state() -> None:
    # a reference to an entity that comes later in iteration order is fine
    state = {"notes": {"n": {"path": "n", "shared_with": ["u_1"]}}, "contacts": {"u_1": {"user_id": "u_1"}}}
    assert check_state(H, state) == []


def test_check_state_non_object_collections() -> None:
    state = make_state()
    state["contacts"] = ["u_ann", "u_bob"]
    state["calendars"][ANN_CAL]["events"] = "none"
    state["chats"]["oc_1"]["messages"] = None
    problems = check_state(H, state)
    assert "contacts: must be an object mapping id -> entity" in problems
    assert f"calendars[{ANN_CAL}].events: must be an object mapping id -> entity" in problems
    assert "chats[oc_1].messages: must be an object mapping id -> entity" in problems
    # with contacts gone, every reference to a contact dangles
    assert f"{EV3}.attendees[a3].user_id: no contact with id 'u_ann'" in problems


def test_check_state_non_object_entities() -> None:
    state = make_state()
    state["calendars"]["bad@corp.com"] = "not an entity"  # a type with children
    state["chats"]["oc_1"]["messages"]["m9"] = ["x"]
    problems = check_state(H, state)
    assert "calendars[bad@corp.com]: must be an object" in problems
    assert "chats[oc_1].messages[m9]: must be an object" in problems
    assert len(problems) == 2


# -- ids -------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("fmt", "regex"),
    [
        ("x_{hex:8}", r"x_[0-9a-f]{8}"),
        ("{digits:19}", r"[0-9]{19}"),
        ("ou_{alnum:12}", r"ou_[a-z0-9]{12}"),
        ("{upper:5}-ref", r"[A-Z0-9]{5}-ref"),
        ("{uuid}", r"[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}"),
        ("{uuid}_0", r"[0-9a-f-]{36}_0"),
        ("{hex:2}.{digits:3}@{alnum:1}", r"[0-9a-f]{2}\.[0-9]{3}@[a-z0-9]"),
        ("feishu.cn_{alnum:22}@group.calendar.feishu.cn", r"feishu\.cn_[a-z0-9]{22}@group\.calendar\.feishu\.cn"),
    ],
)
def test_generate_id(fmt: str, regex: str) -> None:
    rng = random.Random(3)
    values = {generate_id(fmt, rng) for _ in range(20)}
    assert len(values) == 20  # varied
    for value in values:
        assert re.fullmatch(regex, value), value
        assert matches_format(fmt, value)
    assert generate_id(fmt, random.Random(5)) == generate_id(fmt, random.Random(5))
    assert TypeAdapter(IdFormat).validate_python(fmt) == fmt


@pytest.mark.parametrize("alphabet", ["0123456789abcdef", "0123456789", "abcdefghijklmnopqrstuvwxyz0123456789", "x"])
def test_draw_picks_what_random_choice_picks(alphabet: str) -> None:
    # Ids of a seeded episode must not change with how they are drawn: gold replays and stored runs rely on them.
    for seed in range(20):
        fast, slow = random.Random(seed), random.Random(seed)
        for count in (1, 7, 32):
            assert draw(alphabet, count, fast) == "".join(slow.choice(alphabet) for _ in range(count))
        assert fast.random() == slow.random()  # and the generator is left in the same state


@pytest.mark.parametrize(
    ("fmt", "value"),
    [
        ("x_{hex:8}", "x_0123abc"),  # too short
        ("x_{hex:8}", "x_0123abcde"),  # too long
        ("x_{hex:8}", "x_0123ABCD"),  # upper case is not hex here
        ("x_{hex:8}", "y_0123abcd"),  # wrong literal
        ("a.{digits:2}", "aX12"),  # '.' is a literal dot
        ("{upper:3}", "abc"),
        ("{alnum:3}", "AB1"),
        ("{uuid}", "not-a-uuid"),
        ("{uuid}_0", "00000000-0000-4000-8000-000000000000_1"),
    ],
)
def test_matches_format_rejects(fmt: str, value: str) -> None:
    assert not matches_format(fmt, value)


def test_matches_format_accepts_hand_written_values() -> None:
    assert matches_format("{uuid}_0", "00000000-0000-4000-8000-000000000000_0")
    assert matches_format("a.{digits:2}", "a.12")
    assert matches_format("(x)+{hex:1}", "(x)+f")  # regex metacharacters are literal


@pytest.mark.parametrize(
    ("fmt", "message"),
    [
        ("abc", "no placeholder"),
        ("", "no placeholder"),
        ("{foo:3}", "no placeholder"),
        ("{hex}", "no placeholder"),
        ("{hex:8}{bad}", "unknown placeholder"),
        ("{hex:8}{digits}", "unknown placeholder"),
        ("x_{hex:8", "no placeholder"),
        ("{uuid}}", "unknown placeholder"),
    ],
)
def test_invalid_id_formats(fmt: str, message: str) -> None:
    with pytest.raises(ValidationError, match=message):
        TypeAdapter(IdFormat).validate_python(fmt)
    with pytest.raises(ValidationError, match=message):
        EntityType(collection="things", id_field="id", id_format=fmt)
    spec = copy.deepcopy(HIERARCHY_SPEC)
    spec["entities"]["contact"]["id_format"] = fmt
    with pytest.raises(ValidationError, match=message):
        Hierarchy.model_validate(spec)


# -- hierarchy validation --------------------------------------------------------------------------


def _spec(**entities: dict[str, Any]) -> dict[str, Any]:
    return {"app": "x", "entities": entities}


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        (_spec(a={"collection": "as", "parent": "ghost", "id_field": "id"}), "entity 'a': unknown parent 'ghost'"),
        (
            _spec(a={"collection": "as", "id_field": "id", "references": {"owner": "ghost"}}),
            "entity 'a': field 'owner' references unknown type 'ghost'",
        ),
        (
            _spec(a={"collection": "items", "id_field": "id"}, b={"collection": "items", "id_field": "id"}),
            "entity 'b': collection 'items' declared twice",
        ),
        (
            _spec(
                p={"collection": "ps", "id_field": "id"},
                a={"collection": "items", "parent": "p", "id_field": "id"},
                b={"collection": "items", "parent": "p", "id_field": "id"},
            ),
            "collection 'items' declared twice",
        ),
        (
            _spec(
                a={"collection": "as", "parent": "b", "id_field": "id"},
                b={"collection": "bs", "parent": "a", "id_field": "id"},
            ),
            "parent cycle",
        ),
        (_spec(a={"collection": "as", "parent": "a", "id_field": "id"}), "parent cycle through 'a'"),
        (
            _spec(
                r={"collection": "rs", "id_field": "id"},
                a={"collection": "as", "parent": "c", "id_field": "id"},
                b={"collection": "bs", "parent": "a", "id_field": "id"},
                c={"collection": "cs", "parent": "b", "id_field": "id"},
            ),
            "parent cycle",
        ),
        (_spec(a={"collection": "as", "id_field": "id", "colour": "red"}), "colour"),  # extra fields forbidden
        (_spec(a={"collection": "as"}), "id_field"),
        ({"entities": {}}, "app"),
    ],
)
def test_hierarchy_validation_errors(spec: dict[str, Any], message: str) -> None:
    with pytest.raises(ValidationError, match=re.escape(message)):
        Hierarchy.model_validate(spec)


def test_same_collection_name_under_different_parents_is_fine() -> None:
    h = Hierarchy.model_validate(
        _spec(
            team={"collection": "teams", "id_field": "id"},
            project={"collection": "projects", "id_field": "id"},
            team_note={"collection": "notes", "parent": "team", "id_field": "id"},
            project_note={"collection": "notes", "parent": "project", "id_field": "id"},
            note={"collection": "notes", "id_field": "id"},
        )
    )
    assert h.type_of("teams[t].notes[n]") == "team_note"
    assert h.type_of("projects[p].notes[*]") == "project_note"
    assert h.type_of("notes") == "note"


def test_hierarchy_is_frozen() -> None:
    with pytest.raises(ValidationError):
        H.app = "other"  # type: ignore[misc]


def test_load_hierarchy(tmp_path: Path) -> None:
    good = tmp_path / "good.json"
    good.write_text(json.dumps(HIERARCHY_SPEC), encoding="utf-8")
    assert load_hierarchy(good) == H
    bad = tmp_path / "bad.json"
    bad.write_text("{not json", encoding="utf-8")
    with pytest.raises(ValueError, match="not valid JSON"):
        load_hierarchy(bad)
    invalid = tmp_path / "invalid.json"
    invalid.write_text(json.dumps(_spec(a={"collection": "as", "parent": "zz", "id_field": "id"})), encoding="utf-8")
    with pytest.raises(ValidationError, match="unknown parent"):
        load_hierarchy(invalid)


def test_lark_hierarchy_end_to_end() -> None:
    lark = load_hierarchy(Path(mcp_persona.__file__).parent / "data" / "hierarchies" / "lark.json")
    assert lark.type_of("calendars[*].events[*].attendees[*]") == "attendee"
    assert lark.wildcard_path("message") == "chats[*].messages[*]"
    t = ContextTree(lark, {}, seed=42)
    me = t.create("users", {"name": "Me"})
    cal = t.create("calendars", {"owner_id": me["open_id"]})
    cal_id = cal["calendar_id"]
    assert "." in cal_id
    assert matches_format(lark.entities["calendar"].id_format, cal_id)
    event = t.create(f"calendars[{cal_id}].events", {"organizer_id": me["open_id"]})
    attendee = t.create(f"calendars[{cal_id}].events[{event['event_id']}].attendees", {"user_id": me["open_id"]})
    assert t.find("attendee", attendee["attendee_id"])[1] is attendee
    chat = t.create("chats", {"owner_id": me["open_id"]})
    t.create(f"chats[{chat['chat_id']}].members", {}, entity_id=me["open_id"])
    with pytest.raises(ReferenceError_):
        t.create(f"chats[{chat['chat_id']}].members", {}, entity_id="ou_nobody")
    with pytest.raises(TreeError, match="caller must supply"):
        t.create(f"chats[{chat['chat_id']}].members", {})
    assert check_state(lark, t.data) == []
