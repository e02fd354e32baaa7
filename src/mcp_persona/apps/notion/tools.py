"""The Notion tools over the Notion workspace Context-Tree (see ``data/hierarchies/notion.json``).

Objects are stored close to the Notion API's own shape (page properties and database schemas keyed by
property name, rich text arrays with ``plain_text``), and rendered as API objects on the way out: a
``parent`` object from the stored parent field, ``has_children`` from the live children, people
properties expanded to user objects, the API's default fields left out (see the app's docstring). Every
write is attributed to the integration's bot user, as in the real API.
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Callable, Sequence
from datetime import UTC, date, datetime, timedelta
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictFloat, StrictInt, create_model

from mcp_persona.apps._normalize import matches_all
from mcp_persona.apps.base import App, AppEnv, FieldViolation, ToolFailure
from mcp_persona.apps.notion.markdown import to_markdown
from mcp_persona.context_tree.ids import generate_id

# Notion's error codes and their HTTP statuses.
VALIDATION = "validation_error"
NOT_FOUND = "object_not_found"
INTERNAL = "internal_server_error"
RESTRICTED = "restricted_resource"
SERVER = "mcp_server"  # a failure raised by the MCP server itself, before any API call
_STATUS = {VALIDATION: 400, NOT_FOUND: 404, RESTRICTED: 403, INTERNAL: 500}
_SHARE_HINT = "Make sure the relevant pages and databases are shared with your integration."
ARCHIVED_MESSAGE = "Can't edit block that is archived. You must unarchive the block before editing."


class NotionApp(App):
    # Answers render as the shared compact JSON (the real server pretty-prints; the whitespace carries no meaning
    # and makes a page of blocks ~70% larger); markdown answers are already text.
    def error_payload(self, tool: str, failure: ToolFailure) -> Any:
        if failure.code == SERVER:
            return {"error": failure.message}
        code = failure.code or {"not_found": NOT_FOUND, "internal": INTERNAL,
                                "permission": RESTRICTED}.get(failure.kind, VALIDATION)
        return {"object": "error", "status": _STATUS.get(str(code), 400), "code": code, "message": failure.message}

    def validation_payload(self, tool: str, violations: list[FieldViolation]) -> Any:
        missing = [v.field for v in violations if v.kind == "missing" and "." not in v.field]
        if missing and len(missing) == len(violations):  # the server's own argument check
            plural = "s" if len(missing) > 1 else ""
            return {"error": f"Missing required argument{plural}: {' and '.join(missing)}"}
        parts = [_violation_text(v) for v in violations]
        return {"object": "error", "status": 400, "code": VALIDATION,
                "message": "body failed validation: " + " ".join(parts)}


def _violation_text(v: FieldViolation) -> str:
    loc = "body." + re.sub(r"\.(\d+)(?=\.|$)", r"[\1]", v.field)
    if v.kind == "missing":
        return f"{loc} should be defined, instead was `undefined`."
    if v.kind == "extra":
        return f"{loc} should be not present."
    message = re.sub(r"Input should be a valid dictionary or instance of \w+", "Input should be an object", v.message)
    return f"{loc}: {message}."


APP = NotionApp(
    "notion",
    title="Notion",
    category="content",
    description="The pages, databases, blocks, users and comments of the user's Notion workspace, through a "
                "Notion integration.",
    real_server="suekou/mcp-notion-server",
)

_OBJ = ConfigDict(extra="forbid")
_ID_DOC = " It should be a 32-character string (excluding hyphens) formatted as 8-4-4-4-12 with hyphens (-)."
Format = Annotated[
    Literal["json", "markdown"] | None,
    Field(description="Default markdown: readable, most ids left out. json: the API object, to read what you will "
                      "change."),
]
PageSize = Annotated[int | None, Field(ge=1, le=100, description="Number of results per page (max 100)")]
# Search answers whole pages and databases (a database with its schema is ~3 KB): the API's default of 100
# would answer a bare search with the entire workspace, so search pages by 10 unless told otherwise.
SEARCH_PAGE_SIZE = 10
SearchPageSize = Annotated[int | None, Field(ge=1, le=100, description=(
    f"Number of results per page (default {SEARCH_PAGE_SIZE}, max 100)"))]
Cursor = Annotated[str | None, Field(description="Pagination cursor: the next_cursor of the previous response")]

Color = Literal[
    "default", "gray", "brown", "orange", "yellow", "green", "blue", "purple", "pink", "red",
    "gray_background", "brown_background", "orange_background", "yellow_background", "green_background",
    "blue_background", "purple_background", "pink_background", "red_background",
]
PropType = Literal["title", "rich_text", "number", "select", "multi_select", "status", "date", "checkbox",
                   "people", "url", "email", "phone_number"]
PROP_TYPES: tuple[str, ...] = PropType.__args__  # type: ignore[attr-defined]
BlockType = Literal["paragraph", "heading_1", "heading_2", "heading_3", "bulleted_list_item",
                    "numbered_list_item", "to_do", "toggle", "quote", "callout", "code", "divider"]
BLOCK_TYPES: tuple[str, ...] = BlockType.__args__  # type: ignore[attr-defined]
# Fields each writable block type takes (besides rich_text, which every type but divider requires).
_BLOCK_FIELDS: dict[str, set[str]] = {
    "paragraph": {"rich_text", "color", "children"},
    "heading_1": {"rich_text", "color", "is_toggleable"},
    "heading_2": {"rich_text", "color", "is_toggleable"},
    "heading_3": {"rich_text", "color", "is_toggleable"},
    "bulleted_list_item": {"rich_text", "color", "children"},
    "numbered_list_item": {"rich_text", "color", "children"},
    "to_do": {"rich_text", "checked", "color", "children"},
    "toggle": {"rich_text", "color", "children"},
    "quote": {"rich_text", "color", "children"},
    "callout": {"rich_text", "icon", "color", "children"},
    "code": {"rich_text", "language", "caption"},
    "divider": set(),
}
_NESTABLE = {t for t, f in _BLOCK_FIELDS.items() if "children" in f} | {"child_page"}
CODE_LANGUAGES = ("plain text", "bash", "c", "c++", "css", "go", "html", "java", "javascript", "json",
                  "markdown", "python", "r", "rust", "shell", "sql", "typescript", "yaml")
_UUID = re.compile(r"^[0-9a-fA-F]{8}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{12}$")


# -- small shared helpers (also used by the context generator) ------------------------------------------
def iso(ts: int) -> str:
    """Unix seconds as Notion writes times: ISO 8601 in UTC with milliseconds."""
    return datetime.fromtimestamp(ts, tz=UTC).strftime("%Y-%m-%dT%H:%M:%S.000Z")


def annotations(**marks: Any) -> dict[str, Any]:
    base: dict[str, Any] = {"bold": False, "italic": False, "strikethrough": False, "underline": False,
                            "code": False, "color": "default"}
    return base | marks


def text_item(content: str, link: str | None = None, **marks: Any) -> dict[str, Any]:
    """One rich text object of type text, as the API returns it."""
    return {"type": "text", "text": {"content": content, "link": {"url": link} if link else None},
            "annotations": annotations(**marks), "plain_text": content, "href": link}


def user_mention(user_id: str, name: str) -> dict[str, Any]:
    return {"type": "mention", "mention": {"type": "user", "user": {"object": "user", "id": user_id}},
            "annotations": annotations(), "plain_text": f"@{name}", "href": None}


def plain(rich_text: Sequence[dict[str, Any]] | None) -> str:
    """The text of a rich text array, stored (with ``plain_text``) or as answered (text objects without it)."""
    return "".join(str(r["plain_text"] if "plain_text" in r else (r.get("text") or {}).get("content", ""))
                   for r in rich_text or [])


def normalize_id(value: str, where: str) -> str:
    """A Notion id, given with or without dashes, in its canonical dashed lowercase form."""
    text = value.strip()
    if not _UUID.match(text):
        scope = where.split(".")[0]
        raise ToolFailure(f"{scope} failed validation: {where} should be a valid uuid, instead was "
                          f"`{json.dumps(value, ensure_ascii=False)}`.", kind="type", code=VALIDATION)
    h = text.replace("-", "").lower()
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"


def url_of(title: str, object_id: str) -> str:
    slug = re.sub(r"[^A-Za-z0-9]+", "-", title).strip("-")
    compact = object_id.replace("-", "")
    return f"https://www.notion.so/{slug}-{compact}" if slug else f"https://www.notion.so/{compact}"


def default_status_config(ids: Callable[[], str]) -> dict[str, Any]:
    """The options and groups Notion gives a new status property."""
    ns, ip, dn = ids(), ids(), ids()
    return {
        "options": [{"id": ns, "name": "Not started", "color": "default"},
                    {"id": ip, "name": "In progress", "color": "blue"},
                    {"id": dn, "name": "Done", "color": "green"}],
        "groups": [{"id": ids(), "name": "To-do", "color": "gray", "option_ids": [ns]},
                   {"id": ids(), "name": "In progress", "color": "blue", "option_ids": [ip]},
                   {"id": ids(), "name": "Complete", "color": "green", "option_ids": [dn]}],
    }


def empty_value(prop_type: str, config: dict[str, Any]) -> Any:
    """The value a database row holds for a property nobody set."""
    if prop_type in ("title", "rich_text", "multi_select", "people"):
        return []
    if prop_type == "checkbox":
        return False
    if prop_type == "status":  # a new row starts in the first option of the To-do group
        options = config.get("options") or []
        first = next((g["option_ids"][0] for g in config.get("groups") or [] if g.get("option_ids")), None)
        opt = next((o for o in options if o["id"] == first), options[0] if options else None)
        return dict(opt) if opt else None
    return None


# -- errors --------------------------------------------------------------------------------------------
def _invalid(message: str, kind: Any = "range") -> ToolFailure:
    return ToolFailure(message, kind=kind, code=VALIDATION)


def _not_found(kind: str, object_id: str) -> ToolFailure:
    return ToolFailure(f"Could not find {kind} with ID: {object_id}. {_SHARE_HINT}", kind="not_found",
                       code=NOT_FOUND)


# -- lookups -------------------------------------------------------------------------------------------
def _root(env: AppEnv) -> dict[str, Any]:
    return env.tree.data


def _bot(env: AppEnv) -> str:
    return str(_root(env)["bot"])


def _page(env: AppEnv, raw: str, where: str) -> dict[str, Any]:
    pid = normalize_id(raw, where)
    page = env.tree.top("page", pid)
    if page is None:
        if env.tree.top("database", pid) is not None:
            raise _invalid(f"Provided ID {pid} is a database, not a page. Use the retrieve database API "
                           "instead, `GET /databases/:id`.", "conflict")
        raise _not_found("page", pid)
    return page


def _database(env: AppEnv, raw: str, where: str) -> dict[str, Any]:
    did = normalize_id(raw, where)
    db = env.tree.top("database", did)
    if db is None:
        if env.tree.top("page", did) is not None:
            raise _invalid(f"Provided ID {did} is a page, not a database. Use the retrieve page API instead, "
                           "`GET /pages/:id`.", "conflict")
        raise _not_found("database", did)
    return db


def _resolve_block(env: AppEnv, raw: str, where: str) -> tuple[str, dict[str, Any]]:
    """What a block id names: ("block", stored block), ("page", page) or ("database", database).

    Pages and databases are blocks too in Notion (child_page / child_database)."""
    bid = normalize_id(raw, where)
    block = env.tree.top("block", bid)
    if block is not None and block["type"] not in ("child_page", "child_database"):
        return "block", block
    page = env.tree.top("page", bid)
    if page is not None:
        return "page", page
    db = env.tree.top("database", bid)
    if db is not None:
        return "database", db
    raise _not_found("block", bid)


def _touch(env: AppEnv, kind: str, obj: dict[str, Any]) -> None:
    """Stamp last_edited_time/by on ``obj`` and on the page that holds it."""
    now = iso(env.now())
    stamp = {"last_edited_time": now, "last_edited_by": _bot(env)}
    seen = 0
    while obj is not None and seen < 64:
        seen += 1
        collection = {"block": "blocks", "page": "pages", "database": "databases"}[kind]
        env.tree.update(f"{collection}[{obj['id']}]", stamp)
        if kind != "block":
            return
        if obj.get("parent_page_id"):
            kind, obj = "page", env.tree.top("page", obj["parent_page_id"])
        else:
            obj = env.tree.top("block", obj.get("parent_block_id", ""))


# -- views ---------------------------------------------------------------------------------------------
# Answers leave out what the API fills in by default (see the app's docstring): every later request of the
# conversation resends them, and a page of blocks is mostly this boilerplate otherwise.
_DEFAULT_MARKS = annotations()


def rich_text_view(items: Sequence[dict[str, Any]] | None) -> list[dict[str, Any]]:
    """A stored rich text array as answered: annotations only where not the default, no null link or href,
    and a text object's ``plain_text`` (always its ``text.content``) left out."""
    out: list[dict[str, Any]] = []
    for item in items or []:
        kind = item["type"]
        view: dict[str, Any] = {"type": kind}
        if kind == "text":
            link = item["text"].get("link")
            view["text"] = {"content": item["text"]["content"]} | ({"link": dict(link)} if link else {})
        else:
            view[kind] = copy.deepcopy(item[kind])
            if view[kind].get("type") == "date":  # a date mention
                view[kind]["date"] = _date_view(view[kind]["date"])
        marks = {k: v for k, v in (item.get("annotations") or {}).items() if _DEFAULT_MARKS.get(k) != v}
        if marks:
            view["annotations"] = marks
        if kind != "text":  # a mention's or equation's text is rendered: it says who or what
            view["plain_text"] = item.get("plain_text", "")
            if item.get("href"):
                view["href"] = item["href"]
        out.append(view)
    return out


def _date_view(value: dict[str, Any]) -> dict[str, Any]:
    """A date value without its null ``end`` / ``time_zone``."""
    return {k: v for k, v in value.items() if v is not None}


def _user_ref(uid: str | None) -> dict[str, Any]:
    return {"object": "user", "id": uid}


def user_view(env: AppEnv, user: dict[str, Any]) -> dict[str, Any]:
    view: dict[str, Any] = {"object": "user", "id": user["id"], "name": user.get("name")}
    if user.get("avatar_url"):
        view["avatar_url"] = user["avatar_url"]
    view["type"] = user.get("type", "person")
    if view["type"] == "bot":
        view["bot"] = {"owner": {"type": "workspace", "workspace": True},
                       "workspace_name": _root(env).get("workspace_name")}
    else:
        view["person"] = {"email": user.get("email")}
    return view


def _stamps(obj: dict[str, Any]) -> dict[str, Any]:
    return {"created_time": obj.get("created_time"), "last_edited_time": obj.get("last_edited_time"),
            "created_by": _user_ref(obj.get("created_by")), "last_edited_by": _user_ref(obj.get("last_edited_by"))}


def _schema(env: AppEnv, page: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The property schema that applies to a page: its database's, or just the title."""
    if page.get("database_id"):
        return env.tree.top("database", page["database_id"])["properties"]
    return {"title": {"id": "title", "name": "title", "type": "title", "title": {}}}


def page_title(env: AppEnv, page: dict[str, Any]) -> str:
    for name, prop in _schema(env, page).items():
        if prop["type"] == "title":
            return plain((page.get("properties") or {}).get(name, {}).get("title"))
    return ""


def _page_parent(page: dict[str, Any]) -> dict[str, Any]:
    if page.get("database_id"):
        return {"type": "database_id", "database_id": page["database_id"]}
    if page.get("parent_page_id"):
        return {"type": "page_id", "page_id": page["parent_page_id"]}
    return {"type": "workspace", "workspace": True}


def _property_values(env: AppEnv, page: dict[str, Any]) -> dict[str, Any]:
    stored = page.get("properties") or {}
    out: dict[str, Any] = {}
    for name, prop in _schema(env, page).items():
        value = copy.deepcopy(stored.get(name, {}).get(prop["type"], empty_value(prop["type"], prop.get(prop["type"],
                                                                                                    {}))))
        if prop["type"] == "people":
            value = [user_view(env, u) if (u := env.tree.top("user", ref["id"])) else ref for ref in value]
        elif prop["type"] in ("title", "rich_text"):
            value = rich_text_view(value)
        elif prop["type"] == "date" and value:
            value = _date_view(value)
        out[name] = {"id": prop["id"], "type": prop["type"], prop["type"]: value}
    return out


def _set(**fields: Any) -> dict[str, Any]:
    """The fields that hold something: None, False and empty lists are the API's defaults, left out."""
    return {k: v for k, v in fields.items() if v is not None and v is not False and v != []}


def page_view(env: AppEnv, page: dict[str, Any]) -> dict[str, Any]:
    return {"object": "page", "id": page["id"], **_stamps(page),
            **_set(cover=page.get("cover"), icon=page.get("icon")), "parent": _page_parent(page),
            **_set(archived=bool(page.get("archived"))), "properties": _property_values(env, page),
            "url": url_of(page_title(env, page), page["id"])}


def database_view(env: AppEnv, db: dict[str, Any]) -> dict[str, Any]:
    parent = ({"type": "page_id", "page_id": db["parent_page_id"]} if db.get("parent_page_id")
              else {"type": "workspace", "workspace": True})
    return {"object": "database", "id": db["id"], **_set(cover=db.get("cover"), icon=db.get("icon")), **_stamps(db),
            "title": rich_text_view(db.get("title")),
            **_set(description=rich_text_view(db.get("description")), is_inline=bool(db.get("is_inline"))),
            "properties": copy.deepcopy(db["properties"]), "parent": parent, "url": url_of("", db["id"]),
            **_set(archived=bool(db.get("archived")))}


def _live(env: AppEnv, ids: Sequence[str]) -> list[dict[str, Any]]:
    out = []
    for bid in ids:
        block = env.tree.top("block", bid)
        if block is not None and not block.get("archived"):
            out.append(block)
    return out


def block_view(env: AppEnv, block: dict[str, Any]) -> dict[str, Any]:
    btype = block["type"]
    parent = ({"type": "block_id", "block_id": block["parent_block_id"]} if block.get("parent_block_id")
              else {"type": "page_id", "page_id": block.get("parent_page_id")})
    if btype == "child_page":
        page = env.tree.top("page", block["id"])
        content: dict[str, Any] = {"title": page_title(env, page) if page else ""}
        has_children = bool(page and _live(env, page.get("children") or []))
    elif btype == "child_database":
        db = env.tree.top("database", block["id"])
        content = {"title": plain(db.get("title")) if db else ""}
        has_children = False
    else:
        content = _content_view(block.get(btype) or {})
        has_children = bool(_live(env, block.get("children") or []))
    return {"object": "block", "id": block["id"], "parent": parent, **_stamps(block),
            **_set(has_children=has_children, archived=bool(block.get("archived"))), "type": btype, btype: content}


def _content_view(content: dict[str, Any]) -> dict[str, Any]:
    """A block's content as answered: rich text compacted, the default color, an untoggleable heading and an
    empty caption left out (a to-do's ``checked`` stays, false or not: it is what a to-do says)."""
    out: dict[str, Any] = {}
    for key, value in content.items():
        if key in ("rich_text", "caption"):
            if key == "rich_text" or value:
                out[key] = rich_text_view(value)
        elif not ((key == "color" and value == "default") or (key == "is_toggleable" and value is False)):
            out[key] = copy.deepcopy(value)
    return out


def _as_block_view(env: AppEnv, kind: str, obj: dict[str, Any]) -> dict[str, Any]:
    """A page or database seen through the blocks endpoint."""
    if kind == "block":
        return block_view(env, obj)
    stored = env.tree.top("block", obj["id"])
    if stored is not None:
        return block_view(env, stored)
    if kind == "page":
        parent = _page_parent(obj)
        content: dict[str, Any] = {"title": page_title(env, obj)}
        has_children = bool(_live(env, obj.get("children") or []))
    else:
        parent = {"type": "page_id", "page_id": obj.get("parent_page_id")}
        content, has_children = {"title": plain(obj.get("title"))}, False
    btype = "child_page" if kind == "page" else "child_database"
    return {"object": "block", "id": obj["id"], "parent": parent, **_stamps(obj),
            **_set(has_children=has_children, archived=bool(obj.get("archived"))), "type": btype, btype: content}


def comment_view(comment: dict[str, Any]) -> dict[str, Any]:
    parent = ({"type": "block_id", "block_id": comment["block_id"]} if comment.get("block_id")
              else {"type": "page_id", "page_id": comment.get("page_id")})
    return {"object": "comment", "id": comment["id"], "parent": parent, "discussion_id": comment["discussion_id"],
            "created_time": comment["created_time"], "last_edited_time": comment["last_edited_time"],
            "created_by": _user_ref(comment.get("created_by")), "rich_text": rich_text_view(comment["rich_text"])}


def answer(payload: dict[str, Any], format: str | None) -> dict[str, Any] | str:
    """A tool's answer as the real server gives it with NOTION_MARKDOWN_CONVERSION on: converted to markdown
    unless the call asked for ``json`` (errors are never converted)."""
    return payload if format == "json" else to_markdown(payload)


# -- pagination: Notion's cursors are the id of the first item of the next page --------------------------
def _list(items: Sequence[dict[str, Any]], start_cursor: str | None, page_size: int | None, kind: str,
          where: str, view: Callable[[dict[str, Any]], dict[str, Any]] | None = None) -> dict[str, Any]:
    """One page of ``items`` (objects with an ``id``) as a Notion list; ``view`` renders the page's items only."""
    size = page_size or 100
    start = 0
    if start_cursor:
        ids = [i["id"] for i in items]
        cursor = start_cursor.strip()
        if _UUID.match(cursor):
            cursor = normalize_id(cursor, where)
        if cursor not in ids:
            raise _invalid(f"start_cursor provided is invalid: {start_cursor}", "range")
        start = ids.index(cursor)
    chunk = list(items[start:start + size])
    more = start + size < len(items)
    # the API's empty ``kind: {}`` placeholder after "type" is left out, like every other empty default
    return {"object": "list", "results": [view(i) for i in chunk] if view else chunk,
            "next_cursor": items[start + size]["id"] if more else None, "has_more": more, "type": kind}


# -- input shapes --------------------------------------------------------------------------------------
class LinkIn(BaseModel):
    model_config = _OBJ
    url: str = Field(min_length=1, max_length=2000)


class TextIn(BaseModel):
    model_config = _OBJ
    content: str = Field(max_length=2000)
    link: LinkIn | None = None


class AnnotationsIn(BaseModel):
    model_config = _OBJ
    bold: bool | None = None
    italic: bool | None = None
    strikethrough: bool | None = None
    underline: bool | None = None
    code: bool | None = None
    color: Color | None = None


class MentionUserIn(BaseModel):
    model_config = ConfigDict(extra="ignore")  # a full user object echoed back is fine
    object: Literal["user"] | None = None
    id: str


class MentionRefIn(BaseModel):
    model_config = _OBJ
    id: str


class DateIn(BaseModel):
    model_config = _OBJ
    start: str = Field(description="ISO 8601 date or date-time, e.g. 2026-03-12 or 2026-03-12T14:00:00+08:00")
    end: str | None = None
    time_zone: str | None = None


class MentionIn(BaseModel):
    model_config = _OBJ
    type: Literal["user", "page", "database", "date"] | None = None
    user: MentionUserIn | None = None
    page: MentionRefIn | None = None
    database: MentionRefIn | None = None
    date: DateIn | None = None


class EquationIn(BaseModel):
    model_config = _OBJ
    expression: str = Field(min_length=1)


class RichTextIn(BaseModel):
    model_config = _OBJ
    type: Literal["text", "mention", "equation"] = "text"
    text: TextIn | None = None
    mention: MentionIn | None = None
    equation: EquationIn | None = None
    annotations: AnnotationsIn | None = None
    plain_text: str | None = Field(None, description="ignored on input")
    href: str | None = Field(None, description="ignored on input")


class IconIn(BaseModel):
    model_config = _OBJ
    type: Literal["emoji"] = "emoji"
    emoji: str = Field(min_length=1, max_length=16)


class EmptyIn(BaseModel):
    model_config = _OBJ


class BlockContentIn(BaseModel):
    """The content of a block, keyed by its type: rich_text plus the type's own fields."""

    model_config = _OBJ
    rich_text: list[RichTextIn] | None = Field(None, max_length=100)
    color: Color | None = None
    checked: StrictBool | None = None
    is_toggleable: StrictBool | None = None
    language: str | None = None
    caption: list[RichTextIn] | None = None
    icon: IconIn | None = None


def _block_model(name: str, content: type[BaseModel], doc: str) -> type[BaseModel]:
    fields: dict[str, Any] = {"object": (Literal["block"] | None, None), "type": (BlockType | None, None)}
    fields |= {t: (content | None, None) for t in BLOCK_TYPES if t != "divider"}
    fields["divider"] = (EmptyIn | None, None)
    model = create_model(name, __config__=_OBJ, **fields)
    model.__doc__ = doc
    return model


# Notion nests at most two levels of children in one request: the schema has exactly three levels.
LeafBlockIn = _block_model("LeafBlockIn", BlockContentIn, "A block nested two levels deep (no children).")
LeafParentContentIn = create_model(
    "NestedBlockContentIn", __base__=BlockContentIn,
    children=(list[LeafBlockIn] | None, Field(None, max_length=100)))  # type: ignore[valid-type]
NestedBlockIn = _block_model("NestedBlockIn", LeafParentContentIn, "A block nested one level deep.")
TopContentIn = create_model(
    "TopBlockContentIn", __base__=BlockContentIn,
    children=(list[NestedBlockIn] | None, Field(None, max_length=100)))  # type: ignore[valid-type]
BlockIn = _block_model("BlockIn", TopContentIn, (
    'A block to append: {"object": "block", "type": "paragraph", "paragraph": {"rich_text": [...]}}.'))


class BlockUpdateIn(BaseModel):
    """The new content of a block: {"to_do": {"checked": true}} or {"paragraph": {"rich_text": [...]}};
    {"archived": false} restores a deleted block."""

    model_config = _OBJ
    type: BlockType | None = None
    archived: StrictBool | None = None
    paragraph: BlockContentIn | None = None
    heading_1: BlockContentIn | None = None
    heading_2: BlockContentIn | None = None
    heading_3: BlockContentIn | None = None
    bulleted_list_item: BlockContentIn | None = None
    numbered_list_item: BlockContentIn | None = None
    to_do: BlockContentIn | None = None
    toggle: BlockContentIn | None = None
    quote: BlockContentIn | None = None
    callout: BlockContentIn | None = None
    code: BlockContentIn | None = None
    divider: EmptyIn | None = None


class OptionRefIn(BaseModel):
    model_config = _OBJ
    id: str | None = None
    name: str | None = Field(None, min_length=1, max_length=100)
    color: Color | None = None


class UserRefIn(BaseModel):
    model_config = ConfigDict(extra="ignore")
    object: Literal["user"] | None = None
    id: str


class PropertyValueIn(BaseModel):
    """One property value, keyed by the property's type: {"status": {"name": "Done"}}, {"checkbox": true},
    {"date": {"start": "2026-03-12"}}, {"title": [{"text": {"content": "..."}}]}, {"people": [{"id": "..."}]}."""

    model_config = _OBJ
    id: str | None = None
    type: PropType | None = None
    title: list[RichTextIn] | None = None
    rich_text: list[RichTextIn] | None = None
    number: StrictInt | StrictFloat | None = None
    select: OptionRefIn | None = None
    multi_select: list[OptionRefIn] | None = Field(None, max_length=100)
    status: OptionRefIn | None = None
    date: DateIn | None = None
    checkbox: StrictBool | None = None
    people: list[UserRefIn] | None = Field(None, max_length=100)
    url: str | None = Field(None, max_length=2000)
    email: str | None = Field(None, max_length=200)
    phone_number: str | None = Field(None, max_length=200)


class OptionIn(BaseModel):
    model_config = _OBJ
    id: str | None = None
    name: str = Field(min_length=1, max_length=100)
    color: Color | None = None
    description: str | None = None


class OptionsConfigIn(BaseModel):
    model_config = _OBJ
    options: list[OptionIn] | None = Field(None, max_length=100)
    groups: list[dict[str, Any]] | None = Field(None, description="ignored")


NumberFormat = Literal["number", "number_with_commas", "percent", "dollar", "euro", "pound", "yen", "yuan",
                       "singapore_dollar", "rupee"]


class NumberConfigIn(BaseModel):
    model_config = _OBJ
    format: NumberFormat = "number"


class PropertySchemaIn(BaseModel):
    """A property schema: {"type": "select", "select": {"options": [{"name": "High", "color": "red"}]}};
    in an update, {"name": "New name"} renames."""

    model_config = _OBJ
    id: str | None = None
    name: str | None = Field(None, min_length=1, max_length=100)
    type: PropType | None = None
    description: str | None = None
    title: EmptyIn | None = None
    rich_text: EmptyIn | None = None
    number: NumberConfigIn | None = None
    select: OptionsConfigIn | None = None
    multi_select: OptionsConfigIn | None = None
    status: OptionsConfigIn | None = None
    date: EmptyIn | None = None
    checkbox: EmptyIn | None = None
    people: EmptyIn | None = None
    url: EmptyIn | None = None
    email: EmptyIn | None = None
    phone_number: EmptyIn | None = None


# -- rich text and blocks from input ----------------------------------------------------------------------
def _rich_text(env: AppEnv, items: Sequence[RichTextIn], where: str) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for i, rt in enumerate(items):
        loc = f"{where}[{i}]"
        marks = annotations(**(rt.annotations.model_dump(exclude_none=True) if rt.annotations else {}))
        if rt.type == "text":
            if rt.text is None:
                raise _invalid(f"body failed validation: {loc}.text should be defined, instead was `undefined`.",
                               "missing")
            link = rt.text.link.url if rt.text.link else None
            out.append({"type": "text", "text": {"content": rt.text.content, "link": {"url": link} if link else None},
                        "annotations": marks, "plain_text": rt.text.content, "href": link})
        elif rt.type == "equation":
            if rt.equation is None:
                raise _invalid(f"body failed validation: {loc}.equation should be defined, instead was "
                               "`undefined`.", "missing")
            expr = rt.equation.expression
            out.append({"type": "equation", "equation": {"expression": expr}, "annotations": marks,
                        "plain_text": expr, "href": None})
        else:
            out.append(_mention(env, rt.mention, loc) | {"annotations": marks})
    return out


def _mention(env: AppEnv, m: MentionIn | None, loc: str) -> dict[str, Any]:
    if m is None:
        raise _invalid(f"body failed validation: {loc}.mention should be defined, instead was `undefined`.",
                       "missing")
    given = [k for k in ("user", "page", "database", "date") if getattr(m, k) is not None]
    kind = m.type or (given[0] if len(given) == 1 else None)
    if kind is None or getattr(m, kind) is None:
        raise _invalid(f"body failed validation: {loc}.mention needs exactly one of user, page, database, date.",
                       "missing")
    if kind == "user":
        uid = normalize_id(m.user.id, f"body.{loc}.mention.user.id")  # type: ignore[union-attr]
        user = env.tree.top("user", uid)
        if user is None:
            raise _not_found("user", uid)
        return {"type": "mention", "mention": {"type": "user", "user": {"object": "user", "id": uid}},
                "plain_text": f"@{user.get('name')}", "href": None}
    if kind == "date":
        d = _date_value(m.date, f"{loc}.mention.date")  # type: ignore[arg-type]
        return {"type": "mention", "mention": {"type": "date", "date": d}, "plain_text": d["start"], "href": None}
    ref = getattr(m, kind)
    if kind == "page":
        page = _page(env, ref.id, f"body.{loc}.mention.page.id")
        title, oid = page_title(env, page), page["id"]
    else:
        db = _database(env, ref.id, f"body.{loc}.mention.database.id")
        title, oid = plain(db.get("title")), db["id"]
    return {"type": "mention", "mention": {"type": kind, kind: {"id": oid}}, "plain_text": title,
            "href": url_of(title, oid)}


def _block_type(spec: BaseModel, where: str, *, required: bool) -> str | None:
    given = [t for t in BLOCK_TYPES if getattr(spec, t) is not None]
    declared = getattr(spec, "type", None)
    if declared is not None:
        extra = [t for t in given if t != declared]
        if extra:
            raise _invalid(f"body failed validation: {where}.{extra[0]} should be not present: the block's type is "
                           f"{declared}.")
        return str(declared)
    if len(given) > 1:
        raise _invalid(f"body failed validation: {where} has several block types ({', '.join(given)}); give one.")
    if not given:
        if required:
            raise _invalid(f"body failed validation: {where}.type should be defined, instead was `undefined`.",
                           "missing")
        return None
    return given[0]


def _block_content(env: AppEnv, btype: str, c: BlockContentIn | None, where: str, *,
                   old: dict[str, Any] | None = None) -> dict[str, Any]:
    """The stored content object of a ``btype`` block from input ``c``; with ``old``, an update that
    replaces only the fields given."""
    loc = f"{where}.{btype}"
    given = set() if c is None else {k for k in c.model_fields_set if getattr(c, k) is not None}
    bad = sorted((given - _BLOCK_FIELDS[btype]) | ({"children"} & given if old is not None else set()))
    if bad:
        raise _invalid(f"body failed validation: {loc}.{bad[0]} should be not present.")
    if btype == "divider":
        return {}
    out = dict(old) if old is not None else {"rich_text": [], "color": "default"}
    if old is None:
        if "rich_text" not in given:
            raise _invalid(f"body failed validation: {loc}.rich_text should be defined, instead was `undefined`.",
                           "missing")
        if btype.startswith("heading_"):
            out["is_toggleable"] = False
        if btype == "to_do":
            out["checked"] = False
        if btype == "callout":
            out["icon"] = {"type": "emoji", "emoji": "💡"}
        if btype == "code":
            out |= {"caption": [], "language": "plain text"}
    assert c is not None or old is not None
    if c is None:
        return out
    if "rich_text" in given:
        out["rich_text"] = _rich_text(env, c.rich_text or [], f"{loc}.rich_text")
    if "caption" in given:
        out["caption"] = _rich_text(env, c.caption or [], f"{loc}.caption")
    if "color" in given:
        out["color"] = c.color
    if "checked" in given:
        out["checked"] = c.checked
    if "is_toggleable" in given:
        out["is_toggleable"] = c.is_toggleable
    if "icon" in given and c.icon is not None:
        out["icon"] = {"type": "emoji", "emoji": c.icon.emoji}
    if "language" in given:
        if c.language not in CODE_LANGUAGES:
            raise _invalid(f"body failed validation: {loc}.language should be one of "
                           f"{', '.join(repr(x) for x in CODE_LANGUAGES)}, instead was `{json.dumps(c.language)}`.")
        out["language"] = c.language
    return out


def _create_blocks(env: AppEnv, specs: Sequence[BaseModel], parent: tuple[str, str], where: str,
                   depth: int = 0) -> list[dict[str, Any]]:
    """Create blocks (and their nested children, at most two levels per request) under ``parent``
    (("page" | "block", id)); return the created top-level blocks."""
    made = []
    now, bot = iso(env.now()), _bot(env)
    for i, spec in enumerate(specs):
        loc = f"{where}[{i}]"
        btype = _block_type(spec, loc, required=True)
        assert btype is not None
        content_in = getattr(spec, btype) if btype != "divider" else None
        content = _block_content(env, btype, content_in, loc)
        kids = getattr(content_in, "children", None) or []
        if kids and depth >= 1:
            raise _invalid(f"body failed validation: {loc}.{btype}.children should be not present.")
        body: dict[str, Any] = {"type": btype, btype: content, "children": [], "archived": False,
                                "created_time": now, "last_edited_time": now, "created_by": bot, "last_edited_by": bot}
        body["parent_page_id" if parent[0] == "page" else "parent_block_id"] = parent[1]
        block = env.tree.create("blocks", body, entity_id=env.tree.new_id("block"))
        if kids:
            nested = _create_blocks(env, kids, ("block", block["id"]), f"{loc}.{btype}.children", depth + 1)
            env.tree.update(f"blocks[{block['id']}]", {"children": [b["id"] for b in nested]})
        made.append(block)
    return made


MAX_BLOCKS_PER_REQUEST = 1000  # Notion's limit on block elements in one request


def _count_blocks(specs: Sequence[BaseModel]) -> int:
    total = 0
    for spec in specs:
        total += 1
        for t in BLOCK_TYPES:
            content = getattr(spec, t, None)
            total += _count_blocks(getattr(content, "children", None) or [])
    return total


def _check_editable(obj: dict[str, Any]) -> None:
    if obj.get("archived"):
        raise _invalid(ARCHIVED_MESSAGE, "conflict")


# -- blocks --------------------------------------------------------------------------------------------
@APP.tool(mutates=True)
def notion_append_block_children(
    env: AppEnv,
    block_id: Annotated[str, Field(description="The ID of the parent block or page." + _ID_DOC)],
    children: Annotated[list[BlockIn], Field(min_length=1, max_length=100, description=(
        "Array of block objects to append, e.g. {\"object\": \"block\", \"type\": \"to_do\", \"to_do\": "
        "{\"rich_text\": [{\"type\": \"text\", \"text\": {\"content\": \"Call Sam\"}}], \"checked\": false}}. "
        "Supported types: paragraph, heading_1-3, bulleted_list_item, numbered_list_item, to_do, toggle, quote, "
        "callout, code, divider."))],
    after: Annotated[str | None, Field(description="The ID of the existing child block the new blocks should be "
                                                   "appended after." + _ID_DOC)] = None,
    format: Format = None,
) -> dict[str, Any] | str:
    """Append new children blocks to a specified parent block (or page) in Notion. You can optionally specify
    the 'after' parameter to append after a certain block."""
    kind, container = _resolve_block(env, block_id, "path.block_id")
    btype = "child_page" if kind == "page" else "child_database" if kind == "database" else container["type"]
    if btype not in _NESTABLE:
        raise _invalid(f"Block type {btype} does not support children.", "conflict")
    _check_editable(container)
    current = list(container.get("children") or [])
    at = len(current)
    if after is not None:
        aid = normalize_id(after, "body.after")
        if aid not in current or env.tree.top("block", aid).get("archived"):
            raise _invalid(f"Block {aid} is not a child of block {container['id']}.", "conflict")
        at = current.index(aid) + 1
    total = _count_blocks(children)
    if total > MAX_BLOCKS_PER_REQUEST:
        raise _invalid(f"body failed validation: body.children holds {total} blocks in all; a request may hold at "
                       f"most {MAX_BLOCKS_PER_REQUEST}.")
    made = _create_blocks(env, children, ("page" if kind == "page" else "block", container["id"]), "body.children")
    collection = "pages" if kind == "page" else "blocks"
    env.tree.update(f"{collection}[{container['id']}]",
                    {"children": current[:at] + [b["id"] for b in made] + current[at:]})
    _touch(env, kind, container)
    return answer(_list([block_view(env, b) for b in made], None, 100, "block", "body.start_cursor"), format)


@APP.tool()
def notion_retrieve_block(
    env: AppEnv,
    block_id: Annotated[str, Field(description="The ID of the block to retrieve." + _ID_DOC)],
    format: Format = None,
) -> dict[str, Any] | str:
    """Retrieve a block from Notion (a page is a child_page block, a database a child_database block)."""
    kind, obj = _resolve_block(env, block_id, "path.block_id")
    return answer(_as_block_view(env, kind, obj), format)


@APP.tool()
def notion_retrieve_block_children(
    env: AppEnv,
    block_id: Annotated[str, Field(description="The ID of the block or page." + _ID_DOC)],
    start_cursor: Cursor = None,
    page_size: PageSize = None,
    format: Format = None,
) -> dict[str, Any] | str:
    """Retrieve the children of a block (for a page: its content), in order. Deleted blocks are left out."""
    kind, obj = _resolve_block(env, block_id, "path.block_id")
    ids = [] if kind == "database" else obj.get("children") or []
    return answer(_list(_live(env, ids), start_cursor, page_size, "block", "query.start_cursor",
                        lambda b: block_view(env, b)), format)


@APP.tool(mutates=True)
def notion_delete_block(
    env: AppEnv,
    block_id: Annotated[str, Field(description="The ID of the block to delete." + _ID_DOC)],
    format: Format = None,
) -> dict[str, Any] | str:
    """Delete a block in Notion (it is archived: archived becomes true). Deleting a child_page or
    child_database block, or a page id, archives that page or database."""
    kind, obj = _resolve_block(env, block_id, "path.block_id")
    _check_editable(obj)
    _set_archived(env, kind, obj, True)
    archived = env.tree.top({"page": "page", "database": "database"}.get(kind, "block"), obj["id"])
    return answer(_as_block_view(env, kind, archived), format)


def _set_archived(env: AppEnv, kind: str, obj: dict[str, Any], value: bool) -> None:
    now, bot = iso(env.now()), _bot(env)
    stamp = {"archived": value, "last_edited_time": now, "last_edited_by": bot}
    oid = obj["id"]
    if kind == "block":
        env.tree.update(f"blocks[{oid}]", stamp)
        return
    env.tree.update(f"{'pages' if kind == 'page' else 'databases'}[{oid}]", stamp)
    if env.tree.top("block", oid) is not None:  # its child_page / child_database block goes with it
        env.tree.update(f"blocks[{oid}]", stamp)


@APP.tool(mutates=True)
def notion_update_block(
    env: AppEnv,
    block_id: Annotated[str, Field(description="The ID of the block to update." + _ID_DOC)],
    block: Annotated[BlockUpdateIn, Field(description=(
        "The updated content for the block, keyed by the block's type, e.g. {\"to_do\": {\"checked\": true}}. "
        "Each field given replaces the whole value of that field; fields left out stay as they are."))],
    format: Format = None,
) -> dict[str, Any] | str:
    """Update the content of a block in Notion based on its type. The update replaces the entire value for a
    given field."""
    kind, obj = _resolve_block(env, block_id, "path.block_id")
    btype = _block_type(block, "body", required=False)
    if block.archived is None and btype is None:
        raise _invalid("body failed validation: body should have the block's type field (e.g. body.paragraph) or "
                       "archived.", "missing")
    if obj.get("archived") and block.archived is not False:
        raise _invalid(ARCHIVED_MESSAGE, "conflict")
    if kind != "block" or obj["type"] in ("child_page", "child_database"):
        if btype is not None:
            what = "child_page" if kind == "page" else "child_database"
            raise _invalid(f"Block type {what} cannot be updated with this endpoint: use "
                           f"{'notion_update_page_properties' if kind == 'page' else 'notion_update_database'} "
                           "to rename it.", "conflict")
    elif btype is not None:
        if btype != obj["type"]:
            raise _invalid(f"body failed validation: body.{btype} should be not present: block {obj['id']} is a "
                           f"{obj['type']} block.", "conflict")
        content = _block_content(env, btype, getattr(block, btype) if btype != "divider" else None, "body",
                                 old=obj.get(btype) or {})
        env.tree.update(f"blocks[{obj['id']}]", {btype: content})
    if block.archived is not None and block.archived != bool(obj.get("archived")):
        _set_archived(env, kind, obj, block.archived)
    if kind == "block":
        _touch(env, "block", obj)
    return answer(_as_block_view(env, kind, obj), format)


# -- pages ---------------------------------------------------------------------------------------------
@APP.tool()
def notion_retrieve_page(
    env: AppEnv,
    page_id: Annotated[str, Field(description="The ID of the page to retrieve." + _ID_DOC)],
    format: Format = None,
) -> dict[str, Any] | str:
    """Retrieve a page from Notion: its parent and properties (not its content: use
    notion_retrieve_block_children with the page id for that)."""
    return answer(page_view(env, _page(env, page_id, "path.page_id")), format)


def _find_property(schema: dict[str, dict[str, Any]], key: str) -> tuple[str, dict[str, Any]] | None:
    if key in schema:
        return key, schema[key]
    return next(((n, p) for n, p in schema.items() if p["id"] == key), None)


def _option_id(env: AppEnv) -> str:
    return generate_id("{uuid}", env.tree.rng)


def _prop_id(env: AppEnv) -> str:
    return generate_id("{alnum:4}", env.tree.rng)


def _apply_values(env: AppEnv, page: dict[str, Any] | None, db: dict[str, Any] | None,
                  values: dict[str, PropertyValueIn], where: str) -> tuple[dict[str, Any], dict[str, Any] | None]:
    """New stored properties of a page (and the database schema, when select options were added)."""
    schema = copy.deepcopy(db["properties"]) if db is not None else {
        "title": {"id": "title", "name": "title", "type": "title", "title": {}}}
    props = copy.deepcopy((page or {}).get("properties") or {})
    if page is None:
        for name, p in schema.items():
            props[name] = {"id": p["id"], "type": p["type"], p["type"]: empty_value(p["type"], p.get(p["type"], {}))}
    schema_changed = False
    for key, value in values.items():
        found = _find_property(schema, key)
        if found is None:
            raise _invalid(f"{key} is not a property that exists.", "not_found")
        name, prop = found
        ptype = prop["type"]
        given = [t for t in PROP_TYPES if t in value.model_fields_set]
        if ptype not in given or (value.type is not None and value.type != ptype):
            raise _invalid(f"{name} is expected to be {ptype}.", "type")
        loc = f"{where}.{key}.{ptype}"
        new, added = _property_value(env, prop, getattr(value, ptype), loc)
        schema_changed = schema_changed or added
        props[name] = {"id": prop["id"], "type": ptype, ptype: new}
    return props, (schema if schema_changed else None)


def _property_value(env: AppEnv, prop: dict[str, Any], raw: Any, loc: str) -> tuple[Any, bool]:
    """The stored value for one property; True when a select option had to be created."""
    ptype = prop["type"]
    if ptype in ("title", "rich_text"):
        return _rich_text(env, raw or [], loc), False
    if ptype in ("number", "checkbox", "url", "email", "phone_number"):
        if ptype == "checkbox" and raw is None:
            raise _invalid(f"body failed validation: {loc} should be a boolean, instead was `null`.", "type")
        return raw, False
    if ptype == "date":
        return (None if raw is None else _date_value(raw, loc)), False
    if ptype == "people":
        out = []
        for i, ref in enumerate(raw or []):
            uid = normalize_id(ref.id, f"{loc}[{i}].id")
            if env.tree.top("user", uid) is None:
                raise _not_found("user", uid)
            if uid not in [u["id"] for u in out]:
                out.append({"object": "user", "id": uid})
        return out, False
    config = prop.setdefault(ptype, {})
    options = config.setdefault("options", [])
    if ptype == "multi_select":
        chosen, added = [], False
        for i, ref in enumerate(raw or []):
            opt, new = _option(env, ptype, options, ref, f"{loc}[{i}]")
            added = added or new
            if opt["id"] not in [o["id"] for o in chosen]:
                chosen.append(opt)
        return chosen, added
    if raw is None:
        if ptype == "status":
            raise _invalid(f"body failed validation: {loc} should be an object, instead was `null`.", "type")
        return None, False
    return _option(env, ptype, options, raw, loc)


def _option(env: AppEnv, ptype: str, options: list[dict[str, Any]], ref: OptionRefIn,
            loc: str) -> tuple[dict[str, Any], bool]:
    if ref.id is None and ref.name is None:
        raise _invalid(f"body failed validation: {loc}.name should be defined, instead was `undefined`.", "missing")
    hit = next((o for o in options if (ref.id is not None and o["id"] == ref.id)
                or (ref.id is None and o["name"] == ref.name)), None)
    if hit is not None:
        return {"id": hit["id"], "name": hit["name"], "color": hit["color"]}, False
    if ptype == "status" or ref.name is None:
        label = ref.name if ref.name is not None else ref.id
        kind = "status" if ptype == "status" else "select"
        raise _invalid(f"Invalid {kind} option. {kind.capitalize()} option \"{label}\" does not exist.", "not_found")
    if "," in ref.name:
        raise _invalid(f"Invalid select option, commas not allowed: {ref.name}")
    opt = {"id": _option_id(env), "name": ref.name, "color": ref.color or "default"}
    options.append(opt)  # options belongs to a private copy of the schema
    return dict(opt), True


def _parse_when(text: str, loc: str) -> tuple[date, datetime | None]:
    """A date or date-time string: (its date, the aware date-time or None for a bare date)."""
    try:
        if re.fullmatch(r"\d{4}-\d{2}-\d{2}", text):
            return date.fromisoformat(text), None
        dt = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError as exc:
        raise _invalid(f"body failed validation: {loc} should be a valid ISO 8601 date string, instead was "
                       f"`{json.dumps(text, ensure_ascii=False)}`.", "type") from exc
    return dt.date(), dt


def _date_value(d: DateIn, loc: str) -> dict[str, Any]:
    _parse_when(d.start, f"{loc}.start")
    if d.end is not None:
        _parse_when(d.end, f"{loc}.end")
        if _instant(d.end) < _instant(d.start):
            raise _invalid(f"body failed validation: {loc}.end ({d.end}) is before {loc}.start ({d.start}).",
                           "conflict")
    return {"start": d.start, "end": d.end, "time_zone": d.time_zone}


@APP.tool(mutates=True)
def notion_update_page_properties(
    env: AppEnv,
    page_id: Annotated[str, Field(description="The ID of the page or database item to update." + _ID_DOC)],
    properties: Annotated[dict[str, PropertyValueIn], Field(description=(
        "Properties to update, keyed by property name (or id). These correspond to the columns or fields in the "
        "database; a page outside a database has only 'title'."))],
    format: Format = None,
) -> dict[str, Any] | str:
    """Update properties of a page or an item in a Notion database."""
    page = _page(env, page_id, "path.page_id")
    _check_editable(page)
    db = env.tree.top("database", page["database_id"]) if page.get("database_id") else None
    props, schema = _apply_values(env, page, db, properties, "body.properties")
    if schema is not None and db is not None:
        env.tree.update(f"databases[{db['id']}]", {"properties": schema})
    now = iso(env.now())
    env.tree.update(f"pages[{page['id']}]", {"properties": props, "last_edited_time": now,
                                            "last_edited_by": _bot(env)})
    return answer(page_view(env, page), format)


# -- users ---------------------------------------------------------------------------------------------
@APP.tool()
def notion_list_all_users(
    env: AppEnv,
    start_cursor: Cursor = None,
    page_size: PageSize = None,
    format: Format = None,
) -> dict[str, Any] | str:
    """List all users in the Notion workspace (people and bots)."""
    users = [user_view(env, u) for u in env.tree.list("users")]
    return answer(_list(users, start_cursor, page_size, "user", "query.start_cursor"), format)


@APP.tool()
def notion_retrieve_user(
    env: AppEnv,
    user_id: Annotated[str, Field(description="The ID of the user to retrieve." + _ID_DOC)],
    format: Format = None,
) -> dict[str, Any] | str:
    """Retrieve a specific user by user_id in Notion."""
    uid = normalize_id(user_id, "path.user_id")
    user = env.tree.top("user", uid)
    if user is None:
        raise _not_found("user", uid)
    return answer(user_view(env, user), format)


@APP.tool()
def notion_retrieve_bot_user(
    env: AppEnv,
    random_string: Annotated[str | None, Field(description="Dummy parameter for no-parameter tools")] = None,
    format: Format = None,
) -> dict[str, Any] | str:
    """Retrieve the bot user associated with the current token in Notion (the author of every API write)."""
    return answer(user_view(env, env.tree.top("user", _bot(env))), format)


# -- databases -----------------------------------------------------------------------------------------
class ParentIn(BaseModel):
    model_config = _OBJ
    type: Literal["page_id", "database_id", "workspace"] | None = None
    page_id: str | None = None
    database_id: str | None = None
    workspace: bool | None = None


def _schema_entry(env: AppEnv, name: str, spec: PropertySchemaIn, loc: str, *, pid: str | None = None
                  ) -> dict[str, Any]:
    given = [t for t in PROP_TYPES if getattr(spec, t) is not None]
    ptype = spec.type or (given[0] if len(given) == 1 else None)
    if ptype is None:
        raise _invalid(f"body failed validation: {loc} should have exactly one property type (one of "
                       f"{', '.join(PROP_TYPES)}).", "missing")
    if any(t != ptype for t in given):
        raise _invalid(f"body failed validation: {loc}.{next(t for t in given if t != ptype)} should be not "
                       f"present: the property's type is {ptype}.")
    config: dict[str, Any] = {}
    raw = getattr(spec, ptype)
    if ptype == "number":
        config = {"format": raw.format if raw is not None else "number"}
    elif ptype in ("select", "multi_select"):
        config = {"options": _options(env, raw.options if raw is not None else None, loc)}
    elif ptype == "status":
        config = default_status_config(lambda: _option_id(env))
        if raw is not None and raw.options:
            raise _invalid(f"body failed validation: {loc}.status.options should be not present: status options "
                           "cannot be set through the API.")
    prop_id = "title" if ptype == "title" else pid or _prop_id(env)
    return {"id": prop_id, "name": name, "type": ptype, ptype: config}


def _options(env: AppEnv, options: Sequence[OptionIn] | None, loc: str,
             existing: Sequence[dict[str, Any]] = ()) -> list[dict[str, Any]]:
    out = [dict(o) for o in existing]
    for opt in options or []:
        if "," in opt.name:
            raise _invalid(f"Invalid select option, commas not allowed: {opt.name}")
        hit = next((o for o in out if o["name"] == opt.name or (opt.id and o["id"] == opt.id)), None)
        if hit is not None:
            hit.update({"name": opt.name, "color": opt.color or hit["color"]})
        else:
            out.append({"id": _option_id(env), "name": opt.name, "color": opt.color or "default"})
    names = [o["name"] for o in out]
    dupe = next((n for n in names if names.count(n) > 1), None)
    if dupe is not None:
        raise _invalid(f"body failed validation: {loc} has the option name {dupe!r} twice.", "conflict")
    return out


@APP.tool(mutates=True)
def notion_create_database(
    env: AppEnv,
    parent: Annotated[ParentIn, Field(description="Parent object of the database: {\"type\": \"page_id\", "
                                                  "\"page_id\": \"...\"}")],
    properties: Annotated[dict[str, PropertySchemaIn], Field(min_length=1, description=(
        "Property schema of database. The keys are the names of properties as they appear in Notion and the values "
        "are property schema objects, e.g. {\"Name\": {\"title\": {}}, \"Due\": {\"date\": {}}}. Exactly one "
        "title property."))],
    title: Annotated[list[RichTextIn] | None, Field(description="Title of database as it appears in Notion. An "
                                                                "array of rich text objects.")] = None,
    format: Format = None,
) -> dict[str, Any] | str:
    """Create a database in Notion, as a child of a page."""
    if parent.page_id is None:
        raise _invalid("body failed validation: body.parent.page_id should be defined, instead was `undefined`.",
                       "missing")
    if parent.type not in (None, "page_id"):
        raise _invalid(f"body failed validation: body.parent.type should be `\"page_id\"`, instead was "
                       f"`\"{parent.type}\"`.")
    page = _page(env, parent.page_id, "body.parent.page_id")
    _check_editable(page)
    schema = {name: _schema_entry(env, name, spec, f"body.properties.{name}") for name, spec in properties.items()}
    titles = [n for n, p in schema.items() if p["type"] == "title"]
    if len(titles) != 1:
        raise _invalid(f"body failed validation: body.properties should have exactly one title property, found "
                       f"{len(titles)}.", "missing" if not titles else "conflict")
    now, bot = iso(env.now()), _bot(env)
    db = env.tree.create("databases", {
        "title": _rich_text(env, title or [], "body.title"), "description": [], "icon": None, "cover": None,
        "parent_page_id": page["id"], "properties": schema, "is_inline": False, "archived": False,
        "created_time": now, "last_edited_time": now, "created_by": bot, "last_edited_by": bot,
    }, entity_id=env.tree.new_id("database"))
    env.tree.create("blocks", {"type": "child_database", "child_database": {}, "parent_page_id": page["id"],
                               "children": [], "archived": False, "created_time": now, "last_edited_time": now,
                               "created_by": bot, "last_edited_by": bot}, entity_id=db["id"])
    env.tree.update(f"pages[{page['id']}]", {"children": [*(page.get("children") or []), db["id"]]})
    _touch(env, "page", page)
    return answer(database_view(env, db), format)


class SortIn(BaseModel):
    model_config = _OBJ
    property: str | None = None
    timestamp: Literal["created_time", "last_edited_time"] | None = None
    direction: Literal["ascending", "descending"]


@APP.tool()
def notion_query_database(
    env: AppEnv,
    database_id: Annotated[str, Field(description="The ID of the database to query." + _ID_DOC)],
    filter: Annotated[dict[str, Any] | None, Field(description=(
        "Filter conditions, as in the Notion API: {\"property\": \"Status\", \"status\": {\"equals\": \"Done\"}}, "
        "{\"property\": \"Due\", \"date\": {\"on_or_before\": \"2026-03-13\"}}, {\"property\": \"Done\", "
        "\"checkbox\": {\"equals\": true}}, compound {\"and\": [...]} / {\"or\": [...]}, or "
        "{\"timestamp\": \"created_time\", \"created_time\": {\"after\": \"...\"}}."))] = None,
    sorts: Annotated[list[SortIn] | None, Field(description="Sort conditions: [{\"property\": \"Due\", "
                                                            "\"direction\": \"ascending\"}]")] = None,
    start_cursor: Cursor = None,
    page_size: PageSize = None,
    format: Format = None,
) -> dict[str, Any] | str:
    """Query a database in Notion: its rows (pages), filtered and sorted. Without sorts, newest rows first."""
    db = _database(env, database_id, "path.database_id")
    schema = db["properties"]
    rows = [p for p in env.tree.list("pages") if p.get("database_id") == db["id"] and not p.get("archived")]
    if filter is not None:
        test = _compile_filter(env, schema, filter, "body.filter", 0)
        rows = [p for p in rows if test(p)]
    rows.sort(key=lambda p: (p.get("created_time") or "", p["id"]), reverse=True)
    for sort in reversed(sorts or []):
        rows = _sorted(schema, rows, sort)
    return answer(_list(rows, start_cursor, page_size, "page_or_database", "body.start_cursor",
                        lambda p: page_view(env, p)), format)


def _value(page: dict[str, Any], name: str, prop: dict[str, Any]) -> Any:
    stored = (page.get("properties") or {}).get(name)
    if stored is None:
        return empty_value(prop["type"], prop.get(prop["type"], {}))
    return stored.get(prop["type"])


def _sort_key(prop: dict[str, Any] | None, value: Any) -> tuple[bool, Any]:
    """(is empty, comparable key) for a property value; empty values always sort last."""
    ptype = prop["type"] if prop else "timestamp"
    if ptype in ("title", "rich_text"):
        text = plain(value).lower()
        return text == "", text
    if ptype in ("select", "status"):
        if not value:
            return True, 0
        names = [o["name"] for o in (prop or {}).get(ptype, {}).get("options", [])]
        return False, names.index(value["name"]) if value["name"] in names else len(names)
    if ptype == "multi_select":
        return not value, value[0]["name"].lower() if value else ""
    if ptype == "date":
        return not value, _instant(value["start"]) if value else 0.0
    if ptype == "people":
        return not value, len(value or [])
    if ptype == "checkbox":
        return False, bool(value)
    return value is None or value == "", value if value is not None else 0


def _sorted(schema: dict[str, dict[str, Any]], rows: list[dict[str, Any]], sort: SortIn) -> list[dict[str, Any]]:
    if (sort.property is None) == (sort.timestamp is None):
        raise _invalid("body failed validation: each sort needs exactly one of property or timestamp.", "missing")
    if sort.timestamp is not None:
        field = sort.timestamp
        return sorted(rows, key=lambda p: p.get(field) or "", reverse=sort.direction == "descending")
    found = _find_property(schema, sort.property or "")
    if found is None:
        raise _invalid(f"Could not find sort property with name or id: {sort.property}", "not_found")
    name, prop = found
    keyed = [(_sort_key(prop, _value(p, name, prop)), p) for p in rows]
    filled = sorted([(key, p) for (empty, key), p in keyed if not empty], key=lambda kp: kp[0],
                    reverse=sort.direction == "descending")
    return [p for _, p in filled] + [p for (empty, _), p in keyed if empty]


# -- database filters ------------------------------------------------------------------------------------
_TEXT_OPS = ("equals", "does_not_equal", "contains", "does_not_contain", "starts_with", "ends_with", "is_empty",
             "is_not_empty")
_NUMBER_OPS = ("equals", "does_not_equal", "greater_than", "less_than", "greater_than_or_equal_to",
               "less_than_or_equal_to", "is_empty", "is_not_empty")
_DATE_OPS = ("equals", "before", "after", "on_or_before", "on_or_after", "is_empty", "is_not_empty", "past_week",
             "past_month", "past_year", "next_week", "next_month", "next_year", "this_week")
_FILTER_OPS: dict[str, tuple[str, ...]] = {
    "title": _TEXT_OPS, "rich_text": _TEXT_OPS, "url": _TEXT_OPS, "email": _TEXT_OPS, "phone_number": _TEXT_OPS,
    "number": _NUMBER_OPS, "checkbox": ("equals", "does_not_equal"),
    "select": ("equals", "does_not_equal", "is_empty", "is_not_empty"),
    "status": ("equals", "does_not_equal", "is_empty", "is_not_empty"),
    "multi_select": ("contains", "does_not_contain", "is_empty", "is_not_empty"),
    "people": ("contains", "does_not_contain", "is_empty", "is_not_empty"),
    "date": _DATE_OPS,
}
Predicate = Callable[[dict[str, Any]], bool]


def _compile_filter(env: AppEnv, schema: dict[str, dict[str, Any]], node: Any, loc: str, depth: int) -> Predicate:
    if not isinstance(node, dict):
        raise _invalid(f"body failed validation: {loc} should be an object, instead was "
                       f"`{json.dumps(node, ensure_ascii=False)}`.", "type")
    compound = [k for k in ("and", "or") if k in node]
    if compound:
        key = compound[0]
        if len(node) != 1:
            raise _invalid(f"body failed validation: {loc} should have only one key when using {key}.")
        if depth >= 2:
            raise _invalid(f"body failed validation: {loc}.{key} is nested too deeply (at most two levels).")
        parts = node[key]
        if not isinstance(parts, list):
            raise _invalid(f"body failed validation: {loc}.{key} should be an array, instead was "
                           f"`{json.dumps(parts, ensure_ascii=False)}`.", "type")
        tests = [_compile_filter(env, schema, part, f"{loc}.{key}[{i}]", depth + 1) for i, part in enumerate(parts)]
        if key == "and":
            return lambda p: all(t(p) for t in tests)
        return lambda p: any(t(p) for t in tests)
    if "timestamp" in node:
        field = node["timestamp"]
        if field not in ("created_time", "last_edited_time"):
            raise _invalid(f"body failed validation: {loc}.timestamp should be `\"created_time\"` or "
                           f"`\"last_edited_time\"`, instead was `{json.dumps(field)}`.")
        cond = _condition(node, field, _DATE_OPS, loc)
        test = _date_test(env, cond, f"{loc}.{field}")
        return lambda p: test({"start": p.get(field)} if p.get(field) else None)
    if "property" not in node:
        raise _invalid(f"body failed validation: {loc}.property should be defined, instead was `undefined`.",
                       "missing")
    found = _find_property(schema, str(node["property"]))
    if found is None:
        raise _invalid(f"Could not find property with name or id: {node['property']}", "not_found")
    name, prop = found
    ptype = prop["type"]
    kinds = [k for k in node if k != "property"]
    if len(kinds) != 1:
        raise _invalid(f"body failed validation: {loc} should have exactly one filter condition besides property.",
                       "missing")
    fkind = kinds[0]
    compatible = {ptype} | ({"rich_text"} if ptype in ("title", "url", "email", "phone_number") else set())
    if fkind not in compatible:
        if fkind not in _FILTER_OPS:
            raise _invalid(f"body failed validation: {loc}.{fkind} should be not present.")
        raise _invalid(f"database property {ptype} does not match filter {fkind}", "conflict")
    cond = _condition(node, fkind, _FILTER_OPS[ptype], loc)
    where = f"{loc}.{fkind}"
    if ptype == "date":
        test = _date_test(env, cond, where)
        return lambda p: test(_value(p, name, prop))
    op, arg = cond
    if op in ("is_empty", "is_not_empty"):
        return lambda p: _is_empty(ptype, _value(p, name, prop)) == (op == "is_empty")
    return _value_test(ptype, op, arg, where, lambda p: _value(p, name, prop))


def _condition(node: dict[str, Any], key: str, ops: tuple[str, ...], loc: str) -> tuple[str, Any]:
    cond = node.get(key)
    where = f"{loc}.{key}"
    if not isinstance(cond, dict) or len(cond) != 1:
        raise _invalid(f"body failed validation: {where} should be an object with exactly one condition (one of "
                       f"{', '.join(ops)}).", "type" if not isinstance(cond, dict) else "missing")
    (op, arg), = cond.items()
    if op not in ops:
        raise _invalid(f"body failed validation: {where}.{op} should be not present (use one of {', '.join(ops)}).")
    if op in ("is_empty", "is_not_empty") and arg is not True:
        raise _invalid(f"body failed validation: {where}.{op} should be `true`, instead was `{json.dumps(arg)}`.",
                       "type")
    return op, arg


def _is_empty(ptype: str, value: Any) -> bool:
    if ptype in ("title", "rich_text"):
        return plain(value) == ""
    return value in (None, "", [])


def _value_test(ptype: str, op: str, arg: Any, where: str, get: Callable[[dict[str, Any]], Any]) -> Predicate:
    def bad(expected: str) -> ToolFailure:
        return _invalid(f"body failed validation: {where}.{op} should be {expected}, instead was "
                        f"`{json.dumps(arg, ensure_ascii=False)}`.", "type")

    if ptype == "checkbox":
        if not isinstance(arg, bool):
            raise bad("a boolean")
        return lambda p: (bool(get(p)) == arg) == (op == "equals")
    if ptype == "number":
        if isinstance(arg, bool) or not isinstance(arg, int | float):
            raise bad("a number")
        cmp: dict[str, Callable[[float, float], bool]] = {
            "equals": lambda a, b: a == b, "does_not_equal": lambda a, b: a != b,
            "greater_than": lambda a, b: a > b, "less_than": lambda a, b: a < b,
            "greater_than_or_equal_to": lambda a, b: a >= b, "less_than_or_equal_to": lambda a, b: a <= b}
        fn = cmp[op]
        return lambda p: (v := get(p)) is not None and fn(v, arg)
    if not isinstance(arg, str):
        raise bad("a string")
    if ptype in ("select", "status"):
        return lambda p: ((get(p) or {}).get("name") == arg) == (op == "equals")
    if ptype == "multi_select":
        return lambda p: any(o["name"] == arg for o in get(p) or []) == (op == "contains")
    if ptype == "people":
        uid = normalize_id(arg, f"{where}.{op}")
        return lambda p: any(u["id"] == uid for u in get(p) or []) == (op == "contains")

    def text(p: dict[str, Any]) -> str:
        v = get(p)
        return plain(v) if isinstance(v, list) else str(v or "")

    needle = arg.lower()
    tests: dict[str, Predicate] = {
        "equals": lambda p: text(p) == arg, "does_not_equal": lambda p: text(p) != arg,
        "contains": lambda p: needle in text(p).lower(), "does_not_contain": lambda p: needle not in text(p).lower(),
        "starts_with": lambda p: text(p).lower().startswith(needle),
        "ends_with": lambda p: text(p).lower().endswith(needle)}
    return tests[op]


def _instant(text: str, tz: Any = UTC) -> float:
    day, dt = _parse_when(text, "date")
    if dt is None:
        return datetime(day.year, day.month, day.day, tzinfo=tz).timestamp()
    return (dt if dt.tzinfo else dt.replace(tzinfo=tz)).timestamp()


def _date_test(env: AppEnv, cond: tuple[str, Any], where: str) -> Callable[[Any], bool]:
    """A test on a stored date value ({"start": ...} or None) for one date condition."""
    op, arg = cond
    tz = env.clock.tz
    if op in ("is_empty", "is_not_empty"):
        return lambda v: (not v or not v.get("start")) == (op == "is_empty")
    if op.startswith(("past_", "next_", "this_")):
        if arg != {}:
            raise _invalid(f"body failed validation: {where}.{op} should be an empty object `{{}}`, instead was "
                           f"`{json.dumps(arg)}`.", "type")
        today = env.clock.today()
        span = {"week": 7, "month": 30, "year": 365}[op.split("_")[1]]
        if op == "this_week":
            lo = today - timedelta(days=today.weekday())
            hi = lo + timedelta(days=6)
        elif op.startswith("past_"):
            lo, hi = today - timedelta(days=span), today
        else:
            lo, hi = today, today + timedelta(days=span)
        return lambda v: bool(v and v.get("start")) and lo <= _local_day(v["start"], tz) <= hi
    if not isinstance(arg, str):
        raise _invalid(f"body failed validation: {where}.{op} should be a valid ISO 8601 date string, instead was "
                       f"`{json.dumps(arg, ensure_ascii=False)}`.", "type")
    day, dt = _parse_when(arg, f"{where}.{op}")
    if dt is None:  # a bare date compares calendar days in the task's zone
        def key(v: Any) -> Any:
            return _local_day(v["start"], tz)
        ref: Any = day
    else:
        def key(v: Any) -> Any:
            return _instant(v["start"], tz)
        ref = (dt if dt.tzinfo else dt.replace(tzinfo=tz)).timestamp()
    cmp: dict[str, Callable[[Any, Any], bool]] = {
        "equals": lambda a, b: a == b, "before": lambda a, b: a < b, "after": lambda a, b: a > b,
        "on_or_before": lambda a, b: a <= b, "on_or_after": lambda a, b: a >= b}
    fn = cmp[op]
    return lambda v: bool(v and v.get("start")) and fn(key(v), ref)


def _local_day(text: str, tz: Any) -> date:
    day, dt = _parse_when(text, "date")
    if dt is None:
        return day
    return (dt if dt.tzinfo else dt.replace(tzinfo=tz)).astimezone(tz).date()


@APP.tool()
def notion_retrieve_database(
    env: AppEnv,
    database_id: Annotated[str, Field(description="The ID of the database to retrieve." + _ID_DOC)],
    format: Format = None,
) -> dict[str, Any] | str:
    """Retrieve a database in Notion: its title, description and property schema (not its rows: use
    notion_query_database)."""
    return answer(database_view(env, _database(env, database_id, "path.database_id")), format)


@APP.tool(mutates=True)
def notion_update_database(
    env: AppEnv,
    database_id: Annotated[str, Field(description="The ID of the database to update." + _ID_DOC)],
    title: Annotated[list[RichTextIn] | None, Field(description="An array of rich text objects: the new title "
                                                                "of the database.")] = None,
    description: Annotated[list[RichTextIn] | None, Field(description="An array of rich text objects: the new "
                                                                      "description of the database.")] = None,
    properties: Annotated[dict[str, PropertySchemaIn | None] | None, Field(description=(
        "The properties of a database to be changed, keyed by name or id: {\"Old\": {\"name\": \"New\"}} renames, "
        "{\"Effort\": {\"number\": {}}} adds a property, {\"Obsolete\": null} removes one; select options given are "
        "added to the existing ones."))] = None,
    format: Format = None,
) -> dict[str, Any] | str:
    """Update a database in Notion: its title, description and property schema."""
    db = _database(env, database_id, "path.database_id")
    _check_editable(db)
    changes: dict[str, Any] = {}
    if title is not None:
        changes["title"] = _rich_text(env, title, "body.title")
    if description is not None:
        changes["description"] = _rich_text(env, description, "body.description")
    renames: dict[str, str | None] = {}
    retyped: set[str] = set()
    if properties is not None:
        schema = copy.deepcopy(db["properties"])
        for key, spec in properties.items():
            loc = f"body.properties.{key}"
            found = _find_property(schema, key)
            if spec is None:
                if found is None:
                    raise _invalid(f"{key} is not a property that exists.", "not_found")
                if found[1]["type"] == "title":
                    raise _invalid("Cannot delete the title property of a database.", "conflict")
                del schema[found[0]]
                renames[found[0]] = None
                continue
            if found is None:
                new_name = spec.name or key
                if new_name in schema:
                    raise _invalid(f"Property name {new_name} is already in use.", "conflict")
                entry = _schema_entry(env, new_name, spec, loc)
                if entry["type"] == "title":
                    raise _invalid("A database has exactly one title property.", "conflict")
                schema[new_name] = entry
                continue
            name, prop = found
            entry = prop
            given = [t for t in PROP_TYPES if getattr(spec, t) is not None]
            new_type = spec.type or (given[0] if len(given) == 1 else prop["type"])
            if new_type != prop["type"]:
                if "title" in (new_type, prop["type"]):
                    raise _invalid("Cannot change the type of the title property, or make another property the "
                                   "title.", "conflict")
                entry = _schema_entry(env, name, spec, loc, pid=prop["id"])
                retyped.add(name)
            elif new_type in ("select", "multi_select") and getattr(spec, new_type) is not None:
                entry = dict(prop) | {new_type: {"options": _options(
                    env, getattr(spec, new_type).options, loc, prop.get(new_type, {}).get("options", []))}}
            elif new_type == "number" and spec.number is not None:
                entry = dict(prop) | {"number": {"format": spec.number.format}}
            new_name = spec.name or name
            if new_name != name:
                if new_name in schema:
                    raise _invalid(f"Property name {new_name} is already in use.", "conflict")
                renames[name] = new_name
            schema = {(new_name if n == name else n): (entry | {"name": new_name} if n == name else p)
                      for n, p in schema.items()}
        changes["properties"] = schema
    if not changes:
        raise _invalid("body failed validation: give at least one of title, description, properties.", "missing")
    now = iso(env.now())
    env.tree.update(f"databases[{db['id']}]", changes | {"last_edited_time": now, "last_edited_by": _bot(env)})
    if renames or retyped:
        _migrate_rows(env, db, renames, retyped)
    return answer(database_view(env, db), format)


def _migrate_rows(env: AppEnv, db: dict[str, Any], renames: dict[str, str | None], retyped: set[str]) -> None:
    """Rows follow a schema change: renamed keys move, removed ones go, retyped ones start empty."""
    schema = db["properties"]
    for page in env.tree.list("pages"):
        if page.get("database_id") != db["id"]:
            continue
        props: dict[str, Any] = {}
        for name, value in (page.get("properties") or {}).items():
            target = renames.get(name, name)
            if target is not None:
                props[target] = copy.deepcopy(value)
        for name in retyped:
            p = schema[renames.get(name) or name]
            props[p["name"]] = {"id": p["id"], "type": p["type"], p["type"]: empty_value(p["type"], p[p["type"]])}
        env.tree.update(f"pages[{page['id']}]", {"properties": props})


@APP.tool(mutates=True)
def notion_create_database_item(
    env: AppEnv,
    database_id: Annotated[str, Field(description="The ID of the database to add the item to." + _ID_DOC)],
    properties: Annotated[dict[str, PropertyValueIn], Field(description=(
        "Properties of the new database item, keyed by property name. These should match the database schema, "
        "e.g. {\"Name\": {\"title\": [{\"text\": {\"content\": \"Draft the brief\"}}]}, \"Status\": {\"status\": "
        "{\"name\": \"In progress\"}}}."))],
    format: Format = None,
) -> dict[str, Any] | str:
    """Create a new item (page) in a Notion database."""
    db = _database(env, database_id, "path.database_id")
    _check_editable(db)
    props, schema = _apply_values(env, None, db, properties, "body.properties")
    if schema is not None:
        env.tree.update(f"databases[{db['id']}]", {"properties": schema})
    now, bot = iso(env.now()), _bot(env)
    page = env.tree.create("pages", {
        "database_id": db["id"], "icon": None, "cover": None, "properties": props, "children": [],
        "archived": False, "created_time": now, "last_edited_time": now, "created_by": bot, "last_edited_by": bot,
    }, entity_id=env.tree.new_id("page"))
    return answer(page_view(env, page), format)


# -- comments ------------------------------------------------------------------------------------------
class CommentParentIn(BaseModel):
    model_config = _OBJ
    type: Literal["page_id"] | None = None
    page_id: str


@APP.tool(mutates=True)
def notion_create_comment(
    env: AppEnv,
    rich_text: Annotated[list[RichTextIn], Field(min_length=1, max_length=100, description=(
        "Array of rich text objects representing the comment content."))],
    parent: Annotated[CommentParentIn | None, Field(description=(
        "Parent object that specifies the page to comment on: {\"page_id\": \"...\"}. Starts a new discussion."
    ))] = None,
    discussion_id: Annotated[str | None, Field(description=(
        "The ID of an existing discussion thread to add a comment to." + _ID_DOC))] = None,
    format: Format = None,
) -> dict[str, Any] | str:
    """Create a comment in Notion. You can either specify a page parent (a new discussion on the page) or a
    discussion_id (a reply in an existing thread), but not both."""
    if parent is None and discussion_id is None:
        raise ToolFailure("Either parent.page_id or discussion_id must be provided", kind="missing", code=SERVER)
    if parent is not None and discussion_id is not None:
        raise _invalid("body failed validation. Fix one:\nbody.parent should be not present, instead was "
                       f"`{json.dumps(parent.model_dump(exclude_none=True))}`.\nbody.discussion_id should be not "
                       f"present, instead was `{json.dumps(discussion_id)}`.", "conflict")
    text = _rich_text(env, rich_text, "body.rich_text")
    if parent is not None:
        page = _page(env, parent.page_id, "body.parent.page_id")
        _check_editable(page)
        where: dict[str, Any] = {"page_id": page["id"]}
        thread = generate_id("{uuid}", env.tree.rng)
    else:
        did = normalize_id(discussion_id or "", "body.discussion_id")
        first = next((c for c in env.tree.list("comments") if c["discussion_id"] == did), None)
        if first is None:
            raise _not_found("discussion", did)
        where = {k: first[k] for k in ("page_id", "block_id") if first.get(k)}
        thread = did
    now = iso(env.now())
    comment = env.tree.create("comments", where | {"discussion_id": thread, "rich_text": text, "created_time": now,
                                                   "last_edited_time": now, "created_by": _bot(env)},
                              entity_id=env.tree.new_id("comment"))
    return answer(comment_view(comment), format)


@APP.tool()
def notion_retrieve_comments(
    env: AppEnv,
    block_id: Annotated[str, Field(description="The ID of the block or page whose comments you want to retrieve."
                                               + _ID_DOC)],
    start_cursor: Cursor = None,
    page_size: PageSize = None,
    format: Format = None,
) -> dict[str, Any] | str:
    """Retrieve a list of unresolved comments from a Notion page or block, oldest first."""
    kind, obj = _resolve_block(env, block_id, "query.block_id")
    field = "page_id" if kind == "page" else "block_id"
    found = [c for c in env.tree.list("comments") if c.get(field) == obj["id"] and not c.get("resolved")]
    found.sort(key=lambda c: (c["created_time"], c["id"]))
    return answer(_list([comment_view(c) for c in found], start_cursor, page_size, "comment",
                        "query.start_cursor"), format)


# -- search --------------------------------------------------------------------------------------------
class SearchFilterIn(BaseModel):
    model_config = _OBJ
    property: Literal["object"] = Field(description="Must be 'object'")
    value: Literal["page", "database"] = Field(description="Either 'page' or 'database'")


class SearchSortIn(BaseModel):
    model_config = _OBJ
    direction: Literal["ascending", "descending"]
    timestamp: Literal["last_edited_time"] = "last_edited_time"


@APP.tool()
def notion_search(
    env: AppEnv,
    query: Annotated[str | None, Field(description="Text to search for in page or database titles")] = None,
    filter: Annotated[SearchFilterIn | None, Field(description=(
        "Filter results by object type: {\"property\": \"object\", \"value\": \"page\" | \"database\"}"))] = None,
    sort: Annotated[SearchSortIn | None, Field(description=(
        "Sort order of results: {\"direction\": \"ascending\" | \"descending\", \"timestamp\": "
        "\"last_edited_time\"}"))] = None,
    start_cursor: Cursor = None,
    page_size: SearchPageSize = None,
    format: Format = None,
) -> dict[str, Any] | str:
    """Search pages (database rows included) and databases by title in Notion. Every word of the query must
    appear in the title (case-insensitive, singular or plural); without a query, everything is listed. Most
    recently edited first unless sort says otherwise. Paged: when has_more is true, pass next_cursor back as
    start_cursor."""
    words = (query or "").lower().split()

    def hit(title: str) -> bool:
        return all(w in title.lower() for w in words) or (bool(words) and matches_all(query or "", title))

    found: list[dict[str, Any]] = []
    if filter is None or filter.value == "page":
        found += [p for p in env.tree.list("pages") if not p.get("archived") and hit(page_title(env, p))]
    dbs: set[str] = set()
    if filter is None or filter.value == "database":
        matched = [d for d in env.tree.list("databases")
                   if not d.get("archived") and hit(plain(d.get("title")))]
        found += matched
        dbs = {d["id"] for d in matched}
    ascending = sort is not None and sort.direction == "ascending"
    found.sort(key=lambda o: (o["last_edited_time"], o["id"]), reverse=not ascending)
    return answer(_list(found, start_cursor, page_size or SEARCH_PAGE_SIZE, "page_or_database",
                        "body.start_cursor",
                        lambda o: database_view(env, o) if o["id"] in dbs else page_view(env, o)), format)
