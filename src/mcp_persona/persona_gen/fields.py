"""Field names and how they link: input fields from JSON schemas, output fields from observed results.

A field is a dotted path (``data.attendees[].user_id`` for inputs, ``data.user_list.0.user_id`` for
outputs: list items are observed at index 0). Its *links* are the normalized names it can be joined
on: the leaf in snake case, mapped through a small synonym table (``open_id`` and ``member_id`` are
both ``user_id``), a bare ``id`` named after its container (``channels.0.id`` -> ``channel_id``) or
after its tool (``delete_reddit_post(id)`` -> ``post_id``), and a few value shapes (``t3_abc`` is a
Reddit ``thing_id``; ``Projects/plan.md`` a ``filepath``). Two fields can feed each other when their
links meet. Free-text fields (titles, bodies) get a ``text`` link, used only between servers.
"""

from __future__ import annotations

import re
from collections.abc import Collection
from dataclasses import dataclass
from typing import Any

TEXT = "text"

# leaf name -> canonical link names (a leaf not listed links as itself, if linkable)
SYNONYMS: dict[str, tuple[str, ...]] = {
    "open_id": ("user_id",), "member_id": ("user_id",), "owner_id": ("user_id",), "user_id_list": ("user_id",),
    "user_ids": ("user_id",), "users": ("user_id",), "recipient_id": ("user_id",), "sender_id": ("user_id",),
    "author_id": ("user_id",), "organizer_id": ("user_id",), "creator": ("user_id",), "user": ("user_id",),
    "receive_id": ("chat_id", "user_id"), "container_id": ("chat_id",), "from_chat_id": ("chat_id",),
    "to_chat_id": ("chat_id",), "group_id": ("chat_id",),
    "note_id": ("feed_id",),
    "path": ("filepath",), "filename": ("filepath",), "filepaths": ("filepath",), "file_path": ("filepath",),
    "ts": ("message_id",), "thread_ts": ("message_id",), "message_ids": ("message_id",),
    "context7_compatible_library_id": ("library_id",), "arxiv_id": ("paper_id",),
    "origin": ("location",), "destination": ("location",), "origins": ("location",), "destinations": ("location",),
    "emails": ("email",), "third_party_email": ("email",), "mobiles": ("mobile",), "phone": ("mobile",),
    "phone_number": ("mobile",), "article": ("post_id",), "add_label_ids": ("label_id",),
    "remove_label_ids": ("label_id",), "member_ids": ("user_id",),
}
# linkable beyond *_id / *_token: values a person may also state directly (GIVABLE) or that are keys
GIVABLE = frozenset({"email", "mobile", "city", "location", "username", "subreddit", "url", "ts_code", "address",
                     "tag"})
LINKABLE_WORDS = GIVABLE | {"filepath", "dirpath", "uid", "pmid", "thing_id"}
NOT_LINKS = frozenset({"page_token", "sync_token", "next_page_token", "start_cursor", "next_cursor", "cursor",
                       "idempotency_key", "uuid", "tenant_key", "union_id", "context_team_id", "team_id",
                       "avatar_hash", "after", "tokens", "before", "offset_id", "reply_to_message_id"})
TEXT_OUT = frozenset({"summary", "title", "text", "content", "body", "snippet", "caption", "description", "subject",
                      "display_title", "name"})
TEXT_IN = frozenset({"content", "text", "body", "message", "description", "caption", "summary", "title", "query",
                     "keyword", "search_query"})
# fields that mention another entity (who owns / sent / organized it): not a product of the tool, so they
# feed nothing (an event list is not a way to find a person)
REFERENCES = frozenset({"owner_id", "organizer_id", "sender_id", "author_id", "creator", "user", "created_by",
                        "last_edited_by", "from_id", "forward_from_id", "owner", "organizer", "sender", "author"})
_CONTAINERS = frozenset({"data", "result", "results", "items", "item", "list", "response", "records", "value"})
_TOOL_FILLER = frozenset({"get", "list", "all", "info", "detail", "details", "about", "profile", "retrieve", "by",
                          "specific", "delete", "update", "create", "edit", "search", "maps", "map", "reddit",
                          "my", "read", "send", "v1", "v3", "v4"})
_THING = re.compile(r"^t[1-6]_[A-Za-z0-9]+$")
_FILE = re.compile(r"^[^\s/][^\n]{0,200}\.(md|txt|pdf|png|jpe?g|csv|json|docx?|xlsx?|pptx?|canvas)$", re.IGNORECASE)


def snake(name: str) -> str:
    s = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", name.replace("-", "_"))
    return re.sub(r"_+", "_", s).lower().strip("_")


def singular(word: str) -> str:
    for suffix, repl in (("_list", ""), ("ies", "y"), ("sses", "ss"), ("ches", "ch"), ("s", "")):
        if word.endswith(suffix) and len(word) > len(suffix) + 1 and not word.endswith("ss"):
            return word[: len(word) - len(suffix)] + repl
    return word


def linkable(name: str) -> bool:
    if name in NOT_LINKS or name.endswith("_type"):
        return False
    return name.endswith(("_id", "_ids", "_token")) or name in LINKABLE_WORDS


def tool_noun(tool: str) -> str | None:
    """The entity a tool is about, for its bare ``id`` argument: ``delete_reddit_post`` -> ``post``."""
    words = [w for w in snake(tool).split("_") if w and w not in _TOOL_FILLER]
    return singular(words[-1]) if words else None


def leaf_links(segments: list[str], *, tool: str = "", value: Any = None) -> tuple[str, ...]:
    """Canonical link names of the field at ``segments`` (list indexes / ``[]`` already stripped)."""
    if not segments:
        return _value_links(value)
    leaf = snake(segments[-1])
    if leaf == "id":
        parents = [snake(s) for s in segments[:-1] if snake(s) not in _CONTAINERS]
        noun = singular(parents[-1]) if parents else tool_noun(tool)
        leaf = f"{noun}_id" if noun else "id"
    names = SYNONYMS.get(leaf, (leaf,))
    links = {n for n in names if linkable(n)} | set(_value_links(value))
    if leaf in TEXT_OUT or leaf in TEXT_IN:
        links.add(TEXT)
    return tuple(sorted(links))


def _value_links(value: Any) -> tuple[str, ...]:
    if not isinstance(value, str):
        return ()
    if value.startswith(("http://", "https://")):
        return ("url",)
    if _THING.match(value):
        return ("thing_id",)
    if _FILE.match(value):
        return ("filepath",)
    if value.endswith("/") and 1 < len(value) < 120 and "://" not in value and " " not in value.strip("/"):
        return ("dirpath",)
    return ()


# -- input fields -------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class InField:
    path: str  # dotted, "[]" after an array: data.attendees[].user_id
    links: tuple[str, ...]
    required: bool  # required all the way down from the top


def input_fields(schema: dict[str, Any], *, tool: str = "", max_depth: int = 6) -> list[InField]:
    """The leaves of a tool's input schema (``$ref``/``anyOf`` resolved, depth-capped)."""
    defs = schema.get("$defs", {})
    out: list[InField] = []

    def walk(node: dict[str, Any], path: list[str], required: bool, depth: int) -> None:
        node = resolve(node, defs)
        if depth > max_depth:
            return
        if node.get("type") == "object" or "properties" in node:
            req = set(node.get("required", []))
            for key, sub in node.get("properties", {}).items():
                walk(sub, [*path, key], required and key in req, depth + 1)
        elif node.get("type") == "array" and isinstance(node.get("items"), dict):
            walk(node["items"], [*path[:-1], path[-1] + "[]"] if path else ["[]"], required, depth + 1)
        elif path:
            segs = [p.removesuffix("[]") for p in path]
            out.append(InField(".".join(path), leaf_links(segs, tool=tool), required))

    walk(schema, [], True, 0)
    return out


def resolve(node: dict[str, Any], defs: dict[str, Any]) -> dict[str, Any]:
    """``$ref`` followed; an ``anyOf`` with null reduced to its first non-null branch (keeping docs)."""
    for _ in range(8):
        if "$ref" in node:
            node = {**defs.get(node["$ref"].split("/")[-1], {}), **{k: v for k, v in node.items() if k != "$ref"}}
        elif "anyOf" in node:
            branches = [b for b in node["anyOf"] if b.get("type") != "null"]
            extra = {k: v for k, v in node.items() if k != "anyOf"}
            node = {**(branches[0] if branches else {}), **extra}
        else:
            break
    return node


# -- output fields ------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class OutField:
    path: str  # dotted, list items at index 0: data.user_list.0.user_id
    links: tuple[str, ...]


def output_fields(value: Any, *, tool: str = "", limit: int = 300, ignore: Collection[str] = ()) -> list[OutField]:
    """The linkable leaves of one parsed JSON result (first item of every list); a leaf holding one of the
    ``ignore`` values (the user's own id) links nothing."""
    out: dict[str, OutField] = {}

    def walk(v: Any, path: list[str], depth: int) -> None:
        if len(out) >= limit or depth > 10:
            return
        if isinstance(v, dict):
            for k, sub in v.items():
                walk(sub, [*path, str(k)], depth + 1)
        elif isinstance(v, list):
            if v:
                walk(v[0], [*path, "0"], depth + 1)
        elif isinstance(v, str | int) and not isinstance(v, bool):
            if str(v) in ignore:
                return
            names = [snake(p) for p in path if not p.isdigit()]
            if names and (names[-1] in REFERENCES or (len(names) > 1 and f"{names[-2]}_{names[-1]}" in REFERENCES)):
                return
            links = leaf_links([p for p in path if not p.isdigit()], tool=tool, value=v)
            if links:
                key = ".".join(path)
                out.setdefault(key, OutField(key, links))

    walk(value, [], 0)
    return list(out.values())
