"""The Notion app through the real MCP path: every tool's success path and its four error classes.

Each call goes through ``mcp.Client`` against the app's ``MCPServer`` on the generated ``chen_yu`` workspace;
writes are checked against ``env.tree.data`` (and an entity-level diff), failures against the Notion error
object (or the MCP server's own ``{"error": ...}``), the message and an unchanged state hash.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from app_harness import AppSession
from mcp_persona.apps import get_app
from mcp_persona.apps.notion.tools import SEARCH_PAGE_SIZE, plain, rich_text_view

pytestmark = pytest.mark.anyio


APP = get_app("notion")
NOW_ISO = "2026-03-10T01:30:01.000Z"  # the first write of an episode: "now" + 1 s, in UTC

TOOLS = [
    "notion_append_block_children", "notion_retrieve_block", "notion_retrieve_block_children", "notion_delete_block",
    "notion_update_block", "notion_retrieve_page", "notion_update_page_properties", "notion_list_all_users",
    "notion_retrieve_user", "notion_retrieve_bot_user", "notion_create_database", "notion_query_database",
    "notion_retrieve_database", "notion_update_database", "notion_create_database_item", "notion_create_comment",
    "notion_retrieve_comments", "notion_search",
]
VALIDATION, NOT_FOUND, SERVER = "validation_error", "object_not_found", "server"


# -- the chen_yu workspace, looked up by title ---------------------------------------------------------
CTX = APP.load_context("chen_yu")


def _title(page: dict[str, Any]) -> str:
    return next(plain(v[v["type"]]) for v in page["properties"].values() if v["type"] == "title")


PAGES = {_title(p): pid for pid, p in CTX["pages"].items() if not p.get("database_id")}
ROWS = {_title(p): pid for pid, p in CTX["pages"].items() if p.get("database_id")}
DBS = {plain(d["title"]): did for did, d in CTX["databases"].items()}
USERS = {u["name"]: uid for uid, u in CTX["users"].items()}
ME, BOT = CTX["me"], CTX["bot"]
SONG, WANG, ZHAO, SUN = USERS["Song Ke"], USERS["Wang Fang"], USERS["Zhao Min"], USERS["Sun Lei"]
TASKS, READING = DBS["My tasks"], DBS["Reading list"]
HOME, MEETINGS, BRIEF, INBOX = PAGES["Home"], PAGES["Meetings"], PAGES["Creator program brief"], PAGES["Inbox"]
KICKOFF = PAGES["2026-03-03 Spring campaign kickoff"]


def _block(page: str, btype: str, text: str | None = None) -> str:
    for bid in CTX["pages"][page]["children"]:
        b = CTX["blocks"][bid]
        if b["type"] == btype and (text is None or plain(b[btype].get("rich_text")) == text):
            return bid
    raise KeyError((page, btype, text))


TOGGLE = _block(BRIEF, "toggle", "Flat fee or revenue share?")
TOGGLE_CHILD = CTX["blocks"][TOGGLE]["children"][0]
CONTEXT_PARA = _block(BRIEF, "paragraph", "Creators bring trust that paid ads do not.")
DIVIDER = _block(BRIEF, "divider")
HEADING = _block(BRIEF, "heading_2", "Context")
INBOX_TODOS = CTX["pages"][INBOX]["children"]
BRIEF_COMMENT = next(c for c in CTX["comments"].values() if c.get("page_id") == BRIEF)
BLOCK_COMMENT = next(c for c in CTX["comments"].values() if c.get("block_id"))
MISSING = "00000000-0000-4000-8000-000000000000"


def rt(text: str, **extra: Any) -> list[dict[str, Any]]:
    return [{"type": "text", "text": {"content": text}, **extra}]


def title_of(view: dict[str, Any]) -> str:
    return next(plain(v[v["type"]]) for v in view["properties"].values() if v["type"] == "title")


class Notion(AppSession):
    """One episode of the Notion app and a connected client."""

    app = APP
    json_results = True

    async def raw(self, tool: str, args: dict[str, Any] | None = None) -> tuple[bool, Any]:
        """Asks for the API object (``format: "json"``) unless the call says otherwise: these tests read the
        answers' structure; the markdown answers have tests of their own."""
        args = dict(args or {})
        args.setdefault("format", "json")
        return await super().raw(tool, args)

    async def fail(self, tool: str, args: dict[str, Any] | None, code: str, fragment: str) -> Any:
        """A rejected call: the error flag, the Notion error code (or the server's own error), ``fragment`` in
        the message, the state untouched."""
        body = await self.rejected(tool, args)
        if code == SERVER:
            assert set(body) == {"error"}, body
            message = body["error"]
        else:
            assert body["object"] == "error" and body["code"] == code, body
            assert body["status"] == {VALIDATION: 400, NOT_FOUND: 404}[code], body
            message = body["message"]
        assert fragment in message, body
        return body

    async def query(self, db: str, **args: Any) -> list[str]:
        body = await self.ok("notion_query_database", {"database_id": db, **args})
        return [title_of(p) for p in body["results"]]


def described(changes: list[Any]) -> list[tuple[str, str, str]]:
    return sorted((c.op, c.entity_type, c.path) for c in changes)


# -- the server -------------------------------------------------------------------------------------
async def test_server_lists_exactly_the_eighteen_tools() -> None:
    async with Notion() as n:
        listed = await n.client.list_tools()
    assert sorted(t.name for t in listed.tools) == sorted(TOOLS)
    assert APP.name == "notion" and APP.category == "content" and APP.personalized


async def test_unknown_tool_and_extra_argument() -> None:
    async with Notion() as n:
        r = await n.client.call_tool("notion_create_page", {})
        assert r.is_error and "Unknown tool" in r.content[0].text
        await n.fail("notion_retrieve_page", {"page_id": HOME, "filter": {}}, VALIDATION,
                     "body.filter should be not present")


async def test_output_is_compact_json() -> None:
    async with Notion() as n:
        r = await n.client.call_tool("notion_retrieve_bot_user", {"format": "json"})
        text = r.content[0].text
        assert text.startswith('{"object":"user","id":')
        assert text == json.dumps(json.loads(text), ensure_ascii=False, separators=(",", ":"))


# -- notion_append_block_children ---------------------------------------------------------------------
async def test_append_block_children_appends_in_order_with_nesting() -> None:
    async with Notion() as n:
        body, changes = await n.changes("notion_append_block_children", {"block_id": INBOX.replace("-", ""),
                                                                         "children": [
            {"object": "block", "type": "heading_3", "heading_3": {"rich_text": rt("Today")}},
            {"type": "to_do", "to_do": {"rich_text": rt("Call the print vendor", annotations={"bold": True}),
                                        "children": [{"paragraph": {"rich_text": rt("Ask for a rush option")}}]}},
        ]})
        assert body["object"] == "list" and body["type"] == "block" and body["has_more"] is False
        heading, todo = body["results"]
        assert heading["type"] == "heading_3" and heading["parent"] == {"type": "page_id", "page_id": INBOX}
        # defaults are left out: all-false annotations, the default color, an untoggleable heading, no children
        assert heading["heading_3"] == {"rich_text": [{"type": "text", "text": {"content": "Today"}}]}
        assert "has_children" not in heading and "archived" not in heading
        assert todo["to_do"]["checked"] is False and todo["has_children"] is True
        assert todo["to_do"]["rich_text"] == [{"type": "text", "text": {"content": "Call the print vendor"},
                                               "annotations": {"bold": True}}]
        assert todo["created_by"] == {"object": "user", "id": BOT}
        assert todo["created_time"].startswith("2026-03-10T01:30")
        page = n.data["pages"][INBOX]
        assert page["children"] == [*INBOX_TODOS, heading["id"], todo["id"]]
        assert page["last_edited_by"] == BOT
        [child_id] = n.data["blocks"][todo["id"]]["children"]
        child = n.data["blocks"][child_id]
        assert child["parent_block_id"] == todo["id"]
        assert plain(child["paragraph"]["rich_text"]) == "Ask for a rush option"
        created = [c for c in changes if c.op == "create"]
        assert sorted(c.path for c in created) == sorted(f"blocks[{b}]" for b in (heading["id"], todo["id"], child_id))
        assert [c.path for c in changes if c.op == "modify"] == [f"pages[{INBOX}]"]


async def test_append_block_children_after_and_into_a_block() -> None:
    async with Notion() as n:
        body = await n.ok("notion_append_block_children", {"block_id": INBOX, "after": INBOX_TODOS[0], "children": [
            {"type": "divider", "divider": {}}]})
        new = body["results"][0]["id"]
        assert n.data["pages"][INBOX]["children"] == [INBOX_TODOS[0], new, *INBOX_TODOS[1:]]
        body = await n.ok("notion_append_block_children", {"block_id": TOGGLE, "children": [
            {"type": "bulleted_list_item", "bulleted_list_item": {"rich_text": [
                {"type": "mention", "mention": {"type": "user", "user": {"id": SONG}}},
                {"type": "text", "text": {"content": " prefers a flat fee", "link": {"url": "https://example.com/x"}}}]}}]})
        item = body["results"][0]
        assert item["parent"] == {"type": "block_id", "block_id": TOGGLE}
        assert plain(item["bulleted_list_item"]["rich_text"]) == "@Song Ke prefers a flat fee"
        mention, link = item["bulleted_list_item"]["rich_text"]
        assert mention == {"type": "mention", "mention": {"type": "user", "user": {"object": "user", "id": SONG}},
                           "plain_text": "@Song Ke"}
        assert link == {"type": "text", "text": {"content": " prefers a flat fee",
                                                 "link": {"url": "https://example.com/x"}}}
        assert n.data["blocks"][TOGGLE]["children"] == [TOGGLE_CHILD, item["id"]]
        assert n.data["pages"][BRIEF]["last_edited_by"] == BOT  # the page holding the toggle was edited too


async def test_append_block_children_errors() -> None:
    async with Notion() as n:
        para = {"type": "paragraph", "paragraph": {"rich_text": rt("x")}}
        # type mismatch
        await n.fail("notion_append_block_children", {"block_id": INBOX, "children": "just text"}, VALIDATION,
                     "body.children: Input should be a valid list")
        await n.fail("notion_append_block_children", {"block_id": INBOX, "children": [
            {"type": "to_do", "to_do": {"rich_text": rt("x"), "checked": "yes"}}]}, VALIDATION,
            "body.children[0].to_do.checked")
        # missing
        await n.fail("notion_append_block_children", {"block_id": INBOX}, SERVER,
                     "Missing required argument: children")
        await n.fail("notion_append_block_children", {"children": [para]}, SERVER,
                     "Missing required argument: block_id")
        await n.fail("notion_append_block_children", {"block_id": INBOX, "children": [{"type": "paragraph",
                                                                                         "paragraph": {}}]},
                     VALIDATION, "body.children[0].paragraph.rich_text should be defined, instead was `undefined`.")
        # out of range
        await n.fail("notion_append_block_children", {"block_id": INBOX, "children": [
            {"type": "paragraph", "paragraph": {"rich_text": rt("x" * 2001)}}]}, VALIDATION,
            "body.children[0].paragraph.rich_text[0].text.content")
        await n.fail("notion_append_block_children", {"block_id": INBOX, "children": [para] * 101}, VALIDATION,
                     "body.children")
        wide = {"type": "toggle", "toggle": {"rich_text": rt("t"), "children": [
            {"type": "toggle", "toggle": {"rich_text": rt("u"), "children": [para] * 10}}] * 10}}
        await n.fail("notion_append_block_children", {"block_id": INBOX, "children": [wide] * 10}, VALIDATION,
                     "body.children holds 1110 blocks in all; a request may hold at most 1000.")
        await n.fail("notion_append_block_children", {"block_id": INBOX, "children": [
            {"type": "heading_1", "heading_1": {"rich_text": rt("x"), "checked": True}}]}, VALIDATION,
            "body.children[0].heading_1.checked should be not present")
        await n.fail("notion_append_block_children", {"block_id": "not-a-uuid", "children": [para]}, VALIDATION,
                     "path.block_id should be a valid uuid, instead was `\"not-a-uuid\"`.")
        # conflicts: unknown or wrong parents, contradictory types, too deep
        await n.fail("notion_append_block_children", {"block_id": MISSING, "children": [para]}, NOT_FOUND,
                     f"Could not find block with ID: {MISSING}.")
        await n.fail("notion_append_block_children", {"block_id": DIVIDER, "children": [para]}, VALIDATION,
                     "Block type divider does not support children.")
        await n.fail("notion_append_block_children", {"block_id": TASKS, "children": [para]}, VALIDATION,
                     "Block type child_database does not support children.")
        await n.fail("notion_append_block_children", {"block_id": INBOX, "after": TOGGLE, "children": [para]},
                     VALIDATION, f"Block {TOGGLE} is not a child of block {INBOX}.")
        await n.fail("notion_append_block_children", {"block_id": INBOX, "children": [
            {"type": "heading_1", "paragraph": {"rich_text": rt("x")}}]}, VALIDATION,
            "body.children[0].paragraph should be not present")
        deep = {"type": "toggle", "toggle": {"rich_text": rt("a"), "children": [
            {"type": "toggle", "toggle": {"rich_text": rt("b"), "children": [para]}}]}}
        await n.fail("notion_append_block_children", {"block_id": INBOX, "children": [deep]}, VALIDATION,
                     "body.children[0].toggle.children[0].toggle.children should be not present")
        await n.fail("notion_append_block_children", {"block_id": INBOX, "children": [{"type": "paragraph",
            "paragraph": {"rich_text": [{"type": "mention", "mention": {"user": {"id": MISSING}}}]}}]},
            NOT_FOUND, f"Could not find user with ID: {MISSING}")
        await n.ok("notion_delete_block", {"block_id": TOGGLE})
        await n.fail("notion_append_block_children", {"block_id": TOGGLE, "children": [para]}, VALIDATION,
                     "Can't edit block that is archived. You must unarchive the block before editing.")


# -- notion_retrieve_block ------------------------------------------------------------------------------
async def test_retrieve_block_blocks_pages_and_databases() -> None:
    async with Notion() as n:
        b = await n.ok("notion_retrieve_block", {"block_id": CONTEXT_PARA.replace("-", "").upper()})
        assert b["object"] == "block" and b["id"] == CONTEXT_PARA and b["type"] == "paragraph"
        assert plain(b["paragraph"]["rich_text"]) == "Creators bring trust that paid ads do not."
        assert b["parent"] == {"type": "page_id", "page_id": BRIEF} and "has_children" not in b
        toggle = await n.ok("notion_retrieve_block", {"block_id": TOGGLE})
        assert toggle["has_children"] is True and plain(toggle["toggle"]["rich_text"]) == "Flat fee or revenue share?"
        sub = await n.ok("notion_retrieve_block", {"block_id": BRIEF})
        assert sub["type"] == "child_page" and sub["child_page"] == {"title": "Creator program brief"}
        assert sub["parent"] == {"type": "page_id", "page_id": HOME} and sub["has_children"] is True
        top = await n.ok("notion_retrieve_block", {"block_id": INBOX})
        assert top["type"] == "child_page" and top["parent"] == {"type": "workspace", "workspace": True}
        row = await n.ok("notion_retrieve_block", {"block_id": ROWS["Plan launch-week social calendar"]})
        assert row["parent"] == {"type": "database_id", "database_id": TASKS}
        db = await n.ok("notion_retrieve_block", {"block_id": TASKS})
        assert db["type"] == "child_database" and db["child_database"] == {"title": "My tasks"}


async def test_retrieve_block_errors() -> None:
    async with Notion() as n:
        await n.fail("notion_retrieve_block", {"block_id": 42}, VALIDATION, "body.block_id: Input should be a valid "
                                                                            "string")
        await n.fail("notion_retrieve_block", {}, SERVER, "Missing required argument: block_id")
        await n.fail("notion_retrieve_block", {"block_id": CONTEXT_PARA + "0"}, VALIDATION,
                     "path.block_id should be a valid uuid")
        await n.fail("notion_retrieve_block", {"block_id": MISSING}, NOT_FOUND,
                     "Make sure the relevant pages and databases are shared with your integration.")
        await n.fail("notion_retrieve_block", {"block_id": HEADING, "format": "html"}, VALIDATION, "body.format")


# -- notion_retrieve_block_children ---------------------------------------------------------------------
async def test_retrieve_block_children_in_order_and_paged() -> None:
    async with Notion() as n:
        body = await n.ok("notion_retrieve_block_children", {"block_id": HOME})
        types = [b["type"] for b in body["results"]]
        assert types == ["paragraph", "heading_2", "child_database", "child_database", "child_page", "child_page"]
        assert [b["id"] for b in body["results"]][2:] == [TASKS, READING, MEETINGS, BRIEF]
        assert body["results"][4]["child_page"] == {"title": "Meetings"}
        whole = await n.unchanged("notion_retrieve_block_children", {"block_id": BRIEF})  # a page's content: 100
        assert [b["id"] for b in whole["results"]] == CTX["pages"][BRIEF]["children"] and whole["has_more"] is False
        first = await n.unchanged("notion_retrieve_block_children", {"block_id": BRIEF, "page_size": 5})
        assert len(first["results"]) == 5 and first["has_more"] is True
        assert first["next_cursor"] == CTX["pages"][BRIEF]["children"][5]
        rest = await n.unchanged("notion_retrieve_block_children", {"block_id": BRIEF,
                                                                    "start_cursor": first["next_cursor"]})
        assert [b["id"] for b in first["results"] + rest["results"]] == CTX["pages"][BRIEF]["children"]
        assert rest["has_more"] is False and rest["next_cursor"] is None
        nested = await n.ok("notion_retrieve_block_children", {"block_id": TOGGLE})
        assert [b["id"] for b in nested["results"]] == [TOGGLE_CHILD]
        kickoff = await n.ok("notion_retrieve_block_children", {"block_id": KICKOFF})
        attendees = kickoff["results"][0]["paragraph"]["rich_text"]
        assert attendees[1]["type"] == "mention" and attendees[1]["mention"]["user"]["id"] == ME
        assert (await n.ok("notion_retrieve_block_children", {"block_id": TASKS}))["results"] == []


async def test_retrieve_block_children_errors() -> None:
    async with Notion() as n:
        await n.fail("notion_retrieve_block_children", {"block_id": HOME, "page_size": "ten"}, VALIDATION,
                     "body.page_size: Input should be a valid integer")
        await n.fail("notion_retrieve_block_children", {"page_size": 10}, SERVER, "Missing required argument: block_id")
        await n.fail("notion_retrieve_block_children", {"block_id": HOME, "page_size": 0}, VALIDATION,
                     "body.page_size: Input should be greater than or equal to 1")
        await n.fail("notion_retrieve_block_children", {"block_id": HOME, "page_size": 101}, VALIDATION,
                     "body.page_size: Input should be less than or equal to 100")
        await n.fail("notion_retrieve_block_children", {"block_id": HOME, "start_cursor": TOGGLE}, VALIDATION,
                     f"start_cursor provided is invalid: {TOGGLE}")
        await n.fail("notion_retrieve_block_children", {"block_id": MISSING}, NOT_FOUND, "Could not find block")


# -- notion_delete_block ----------------------------------------------------------------------------------
async def test_delete_block_archives_and_hides_it() -> None:
    async with Notion() as n:
        body, changes = await n.changes("notion_delete_block", {"block_id": HEADING})
        assert body["archived"] is True and body["id"] == HEADING and body["type"] == "heading_2"
        assert [(c.op, c.path, c.fields) for c in changes] == [
            ("modify", f"blocks[{HEADING}]", ("archived", "last_edited_by", "last_edited_time"))]
        again = await n.ok("notion_retrieve_block", {"block_id": HEADING})
        assert again["archived"] is True
        children = await n.ok("notion_retrieve_block_children", {"block_id": BRIEF})
        assert HEADING not in [b["id"] for b in children["results"]]
        assert len(children["results"]) == len(CTX["pages"][BRIEF]["children"]) - 1


async def test_delete_block_with_a_page_or_database_id() -> None:
    async with Notion() as n:
        body = await n.ok("notion_delete_block", {"block_id": BRIEF})
        assert body["type"] == "child_page" and body["archived"] is True
        assert n.data["pages"][BRIEF]["archived"] is True and n.data["blocks"][BRIEF]["archived"] is True
        found = await n.ok("notion_search", {"query": "Creator program"})
        assert found["results"] == []
        body = await n.ok("notion_delete_block", {"block_id": READING})
        assert body["type"] == "child_database" and n.data["databases"][READING]["archived"] is True
        home = await n.ok("notion_retrieve_block_children", {"block_id": HOME})
        assert BRIEF not in [b["id"] for b in home["results"]] and READING not in [b["id"] for b in home["results"]]
        row = await n.ok("notion_delete_block", {"block_id": ROWS["Hooked"]})
        assert row["archived"] is True and (await n.ok("notion_retrieve_page", {"page_id": ROWS["Hooked"]}))["archived"]


async def test_delete_block_errors() -> None:
    async with Notion() as n:
        await n.fail("notion_delete_block", {"block_id": ["x"]}, VALIDATION, "body.block_id: Input should be a valid "
                                                                            "string")
        await n.fail("notion_delete_block", {}, SERVER, "Missing required argument: block_id")
        await n.fail("notion_delete_block", {"block_id": "1234"}, VALIDATION, "path.block_id should be a valid uuid")
        await n.fail("notion_delete_block", {"block_id": MISSING}, NOT_FOUND,
                     f"Could not find block with ID: {MISSING}")
        await n.ok("notion_delete_block", {"block_id": DIVIDER})
        await n.fail("notion_delete_block", {"block_id": DIVIDER}, VALIDATION, "Can't edit block that is archived.")


# -- notion_update_block --------------------------------------------------------------------------------
async def test_update_block_replaces_only_the_given_fields() -> None:
    async with Notion() as n:
        todo = INBOX_TODOS[1]
        old_text = CTX["blocks"][todo]["to_do"]["rich_text"]
        body, changes = await n.changes("notion_update_block", {"block_id": todo,
                                                                "block": {"to_do": {"checked": True}}})
        assert body["to_do"]["checked"] is True and body["to_do"]["rich_text"] == rich_text_view(old_text)
        assert body["last_edited_by"] == {"object": "user", "id": BOT}
        assert described(changes) == [("modify", "block", f"blocks[{todo}]"), ("modify", "page", f"pages[{INBOX}]")]
        stored = n.data["blocks"][todo]
        assert stored["to_do"] == {**CTX["blocks"][todo]["to_do"], "checked": True}
        body = await n.ok("notion_update_block", {"block_id": CONTEXT_PARA, "block": {
            "type": "paragraph", "paragraph": {"rich_text": rt("Creators bring trust."), "color": "blue_background"}}})
        assert plain(body["paragraph"]["rich_text"]) == "Creators bring trust."
        assert n.data["blocks"][CONTEXT_PARA]["paragraph"]["color"] == "blue_background"


async def test_update_block_archive_and_restore() -> None:
    async with Notion() as n:
        await n.ok("notion_update_block", {"block_id": HEADING, "block": {"archived": True}})
        assert n.data["blocks"][HEADING]["archived"] is True
        await n.fail("notion_update_block", {"block_id": HEADING, "block": {"heading_2": {"rich_text": rt("x")}}},
                     VALIDATION, "Can't edit block that is archived.")
        body = await n.ok("notion_update_block", {"block_id": HEADING, "block": {"archived": False,
                                                                                "heading_2": {"rich_text": rt("Why")}}})
        assert "archived" not in body and plain(body["heading_2"]["rich_text"]) == "Why"
        body = await n.ok("notion_update_block", {"block_id": INBOX, "block": {"archived": True}})
        assert body["type"] == "child_page" and n.data["pages"][INBOX]["archived"] is True


async def test_update_block_errors() -> None:
    async with Notion() as n:
        todo = INBOX_TODOS[0]
        await n.fail("notion_update_block", {"block_id": todo, "block": {"to_do": {"checked": "yes"}}}, VALIDATION,
                     "body.block.to_do.checked: Input should be a valid boolean")
        await n.fail("notion_update_block", {"block_id": todo, "block": "checked"}, VALIDATION,
                     "body.block: Input should be an object")
        await n.fail("notion_update_block", {"block_id": todo}, SERVER, "Missing required argument: block")
        await n.fail("notion_update_block", {"block_id": todo, "block": {}}, VALIDATION,
                     "body should have the block's type field")
        await n.fail("notion_update_block", {"block_id": todo, "block": {"to_do": {"color": "neon"}}}, VALIDATION,
                     "body.block.to_do.color")
        await n.fail("notion_update_block", {"block_id": todo, "block": {"image": {}}}, VALIDATION,
                     "body.block.image should be not present.")
        await n.fail("notion_update_block", {"block_id": todo, "block": {"heading_1": {"rich_text": rt("x")}}},
                     VALIDATION, f"body.heading_1 should be not present: block {todo} is a to_do block.")
        await n.fail("notion_update_block", {"block_id": todo, "block": {"to_do": {"children": []}}}, VALIDATION,
                     "body.block.to_do.children should be not present.")
        await n.fail("notion_update_block", {"block_id": BRIEF, "block": {"paragraph": {"rich_text": rt("x")}}},
                     VALIDATION, "Block type child_page cannot be updated with this endpoint")
        await n.fail("notion_update_block", {"block_id": MISSING, "block": {"archived": True}}, NOT_FOUND,
                     "Could not find block")


# -- notion_retrieve_page -------------------------------------------------------------------------------
async def test_retrieve_page_row_and_plain_page() -> None:
    async with Notion() as n:
        row_id = ROWS["Prepare Q1 campaign summary deck"]
        page = await n.ok("notion_retrieve_page", {"page_id": row_id.replace("-", "")})
        assert page["object"] == "page" and page["id"] == row_id
        assert page["parent"] == {"type": "database_id", "database_id": TASKS}
        props = page["properties"]
        assert list(props) == ["Name", "Status", "Priority", "Due", "Assignee", "Tags", "Estimate (h)"]
        assert props["Name"] == {"id": "title", "type": "title", "title": [
            {"type": "text", "text": {"content": "Prepare Q1 campaign summary deck"}}]}
        assert props["Status"]["status"]["name"] == "Not started"
        assert props["Due"]["date"] == {"start": "2026-03-16"}  # a null end and time_zone are left out
        assert props["Assignee"]["people"] == [{"object": "user", "id": SONG, "name": "Song Ke", "type": "person",
                                                "person": {"email": "song.ke@orbitlab.cn"}}]
        # empty defaults are left out; an empty property value stays (it says the property is not set)
        assert not {"cover", "public_url", "archived"} & set(page)
        assert props["Estimate (h)"]["number"] == 6 and [t["name"] for t in props["Tags"]["multi_select"]] == \
            ["reporting"]
        assert page["url"] == "https://www.notion.so/Prepare-Q1-campaign-summary-deck-" + row_id.replace("-", "")
        plain_page = await n.ok("notion_retrieve_page", {"page_id": KICKOFF})
        assert plain_page["parent"] == {"type": "page_id", "page_id": MEETINGS}
        assert list(plain_page["properties"]) == ["title"]
        assert "children" not in plain_page


async def test_retrieve_page_errors() -> None:
    async with Notion() as n:
        await n.fail("notion_retrieve_page", {"page_id": {"id": HOME}}, VALIDATION, "body.page_id: Input should be a "
                                                                                    "valid string")
        await n.fail("notion_retrieve_page", {}, SERVER, "Missing required argument: page_id")
        await n.fail("notion_retrieve_page", {"page_id": "https://www.notion.so/Home"}, VALIDATION,
                     "path.page_id should be a valid uuid")
        await n.fail("notion_retrieve_page", {"page_id": TASKS}, VALIDATION,
                     f"Provided ID {TASKS} is a database, not a page.")
        await n.fail("notion_retrieve_page", {"page_id": CONTEXT_PARA}, NOT_FOUND,
                     f"Could not find page with ID: {CONTEXT_PARA}.")


# -- notion_update_page_properties ------------------------------------------------------------------------
async def test_update_page_properties_of_a_row() -> None:
    async with Notion() as n:
        row = ROWS["Brief the video agency on the 15s teaser"]
        before_tags = n.data["databases"][TASKS]["properties"]["Tags"]["multi_select"]["options"]
        body, changes = await n.changes("notion_update_page_properties", {"page_id": row, "properties": {
            "Status": {"status": {"name": "Done"}},
            "Due": {"date": {"start": "2026-03-12T15:00:00+08:00"}},
            "Assignee": {"people": [{"object": "user", "id": ZHAO}, {"id": ME.replace("-", "")}]},
            "Tags": {"type": "multi_select", "multi_select": [{"name": "video"}, {"name": "agency", "color": "pink"}]},
            "Estimate (h)": {"number": 4.5},
        }})
        props = body["properties"]
        assert props["Status"]["status"]["name"] == "Done" and props["Status"]["status"]["color"] == "green"
        assert props["Due"]["date"]["start"] == "2026-03-12T15:00:00+08:00"
        assert [u["id"] for u in props["Assignee"]["people"]] == [ZHAO, ME]
        assert [t["name"] for t in props["Tags"]["multi_select"]] == ["video", "agency"]
        assert props["Estimate (h)"]["number"] == 4.5 and props["Priority"]["select"]["name"] == "High"
        stored = n.data["pages"][row]
        assert stored["last_edited_by"] == BOT and stored["last_edited_time"] == NOW_ISO
        assert stored["properties"]["Status"]["status"]["name"] == "Done"
        options = n.data["databases"][TASKS]["properties"]["Tags"]["multi_select"]["options"]
        assert options[:-1] == before_tags and options[-1]["name"] == "agency" and options[-1]["color"] == "pink"
        assert described(changes) == [("modify", "database", f"databases[{TASKS}]"),
                                      ("modify", "page", f"pages[{row}]")]
        cleared = await n.ok("notion_update_page_properties", {"page_id": row, "properties": {
            "Due": {"date": None}, "Priority": {"select": None}, "Tags": {"multi_select": []}}})
        assert cleared["properties"]["Due"]["date"] is None and cleared["properties"]["Priority"]["select"] is None


async def test_update_page_properties_title_of_a_plain_page_and_reading_row() -> None:
    async with Notion() as n:
        body = await n.ok("notion_update_page_properties", {"page_id": INBOX, "properties": {
            "title": {"title": rt("Inbox (March)")}}})
        assert title_of(body) == "Inbox (March)" and body["url"].startswith("https://www.notion.so/Inbox-March-")
        blocks = await n.ok("notion_retrieve_block", {"block_id": BRIEF})
        assert blocks["child_page"]["title"] == "Creator program brief"
        row = ROWS["This Is Marketing"]
        body = await n.ok("notion_update_page_properties", {"page_id": row, "properties": {
            "Favorite": {"checkbox": True}, "Rating": {"number": 4},
            "Status": {"select": {"name": "Finished"}}, "Finished on": {"date": {"start": "2026-03-09"}}}})
        p = body["properties"]
        assert p["Favorite"]["checkbox"] is True and p["Rating"]["number"] == 4
        assert p["Status"]["select"]["name"] == "Finished" and p["Finished on"]["date"]["start"] == "2026-03-09"


async def test_update_page_properties_errors() -> None:
    async with Notion() as n:
        row = ROWS["Reconcile Q1 marketing invoices"]
        # type mismatch
        await n.fail("notion_update_page_properties", {"page_id": row, "properties": {"Estimate (h)": {"number": "3"}}},
                     VALIDATION, "body.properties.Estimate (h).number")
        await n.fail("notion_update_page_properties", {"page_id": row, "properties": {"Status": {"select": {
            "name": "Done"}}}}, VALIDATION, "Status is expected to be status.")
        await n.fail("notion_update_page_properties", {"page_id": row, "properties": ["Status"]}, VALIDATION,
                     "body.properties: Input should be a valid dictionary")
        # missing
        await n.fail("notion_update_page_properties", {"page_id": row}, SERVER,
                     "Missing required argument: properties")
        await n.fail("notion_update_page_properties", {"page_id": row, "properties": {"Status": {"status": {}}}},
                     VALIDATION, "body.properties.Status.status.name should be defined")
        # out of range
        await n.fail("notion_update_page_properties", {"page_id": row, "properties": {"Tags": {"multi_select": [
            {"name": "x" * 101}]}}}, VALIDATION, "body.properties.Tags.multi_select[0].name")
        await n.fail("notion_update_page_properties", {"page_id": row, "properties": {"Due": {"date": {
            "start": "next Friday"}}}}, VALIDATION, "body.properties.Due.date.start should be a valid ISO 8601 date")
        await n.fail("notion_update_page_properties", {"page_id": row, "properties": {"Priority": {"select": {
            "name": "High, urgent"}}}}, VALIDATION, "Invalid select option, commas not allowed: High, urgent")
        # semantic conflicts
        await n.fail("notion_update_page_properties", {"page_id": row, "properties": {"Owner": {"people": []}}},
                     VALIDATION, "Owner is not a property that exists.")
        await n.fail("notion_update_page_properties", {"page_id": row, "properties": {"Status": {"status": {
            "name": "Blocked"}}}}, VALIDATION, 'Invalid status option. Status option "Blocked" does not exist.')
        await n.fail("notion_update_page_properties", {"page_id": row, "properties": {"Due": {"date": {
            "start": "2026-03-20", "end": "2026-03-18"}}}}, VALIDATION, "end (2026-03-18) is before")
        await n.fail("notion_update_page_properties", {"page_id": row, "properties": {"Assignee": {"people": [
            {"id": MISSING}]}}}, NOT_FOUND, f"Could not find user with ID: {MISSING}")
        await n.fail("notion_update_page_properties", {"page_id": INBOX, "properties": {"Status": {"status": {
            "name": "Done"}}}}, VALIDATION, "Status is not a property that exists.")
        await n.fail("notion_update_page_properties", {"page_id": READING, "properties": {}}, VALIDATION,
                     "is a database, not a page")
        await n.ok("notion_delete_block", {"block_id": row})
        await n.fail("notion_update_page_properties", {"page_id": row, "properties": {"Estimate (h)": {"number": 1}}},
                     VALIDATION, "Can't edit block that is archived.")


# -- users --------------------------------------------------------------------------------------------------
async def test_list_all_users_and_paging() -> None:
    async with Notion() as n:
        body = await n.ok("notion_list_all_users", {})
        assert body["type"] == "user" and body["has_more"] is False
        people = [(u["name"], u["type"]) for u in body["results"]]
        assert people[0] == ("Chen Yu", "person") and people[-1] == ("Notion MCP", "bot") and len(people) == 7
        assert all(u["person"]["email"].endswith("@orbitlab.cn") for u in body["results"] if u["type"] == "person")
        first = await n.ok("notion_list_all_users", {"page_size": 3})
        second = await n.ok("notion_list_all_users", {"page_size": 3, "start_cursor": first["next_cursor"]})
        third = await n.ok("notion_list_all_users", {"page_size": 3, "start_cursor": second["next_cursor"]})
        assert [u["id"] for u in first["results"] + second["results"] + third["results"]] == \
            [u["id"] for u in body["results"]]
        assert third["has_more"] is False and third["next_cursor"] is None


async def test_list_all_users_errors() -> None:
    async with Notion() as n:
        await n.fail("notion_list_all_users", {"page_size": "all"}, VALIDATION, "body.page_size")
        await n.fail("notion_list_all_users", {"page_size": 500}, VALIDATION, "less than or equal to 100")
        await n.fail("notion_list_all_users", {"start_cursor": "next"}, VALIDATION,
                     "start_cursor provided is invalid: next")
        await n.fail("notion_list_all_users", {"start_cursor": HOME}, VALIDATION, "start_cursor provided is invalid")


async def test_retrieve_user_and_bot() -> None:
    async with Notion() as n:
        user = await n.ok("notion_retrieve_user", {"user_id": WANG.replace("-", "")})
        assert user == {"object": "user", "id": WANG, "name": "Wang Fang", "type": "person",
                        "person": {"email": "wang.fang@orbitlab.cn"}}
        bot = await n.ok("notion_retrieve_user", {"user_id": BOT})
        assert bot["type"] == "bot" and bot["bot"]["workspace_name"] == "Orbit Lab"
        assert await n.ok("notion_retrieve_bot_user", {}) == bot
        assert await n.ok("notion_retrieve_bot_user", {"random_string": "x", "format": "json"}) == bot


async def test_user_errors() -> None:
    async with Notion() as n:
        await n.fail("notion_retrieve_user", {"user_id": 7}, VALIDATION, "body.user_id: Input should be a valid string")
        await n.fail("notion_retrieve_user", {}, SERVER, "Missing required argument: user_id")
        await n.fail("notion_retrieve_user", {"user_id": "song.ke@orbitlab.cn"}, VALIDATION,
                     "path.user_id should be a valid uuid")
        await n.fail("notion_retrieve_user", {"user_id": HOME}, NOT_FOUND, f"Could not find user with ID: {HOME}")
        await n.fail("notion_retrieve_bot_user", {"random_string": 5}, VALIDATION, "body.random_string")
        await n.fail("notion_retrieve_bot_user", {"format": "yaml"}, VALIDATION, "body.format")


# -- notion_create_database -------------------------------------------------------------------------------
async def test_create_database_under_a_page() -> None:
    async with Notion() as n:
        body, changes = await n.changes("notion_create_database", {
            "parent": {"type": "page_id", "page_id": BRIEF.replace("-", "")},
            "title": rt("Creator shortlist"),
            "properties": {"Creator": {"title": {}}, "Platform": {"select": {"options": [
                {"name": "Xiaohongshu", "color": "red"}, {"name": "Douyin"}]}},
                "Followers": {"number": {"format": "number_with_commas"}}, "Signed": {"checkbox": {}},
                "Stage": {"type": "status"}, "Contact": {"people": {}}},
        })
        db_id = body["id"]
        assert body["object"] == "database" and plain(body["title"]) == "Creator shortlist"
        assert body["parent"] == {"type": "page_id", "page_id": BRIEF}
        props = body["properties"]
        assert props["Creator"] == {"id": "title", "name": "Creator", "type": "title", "title": {}}
        assert [(o["name"], o["color"]) for o in props["Platform"]["select"]["options"]] == [
            ("Xiaohongshu", "red"), ("Douyin", "default")]
        assert props["Followers"]["number"] == {"format": "number_with_commas"}
        assert [o["name"] for o in props["Stage"]["status"]["options"]] == ["Not started", "In progress", "Done"]
        assert n.data["databases"][db_id]["created_by"] == BOT
        assert n.data["blocks"][db_id]["type"] == "child_database"
        assert n.data["pages"][BRIEF]["children"][-1] == db_id
        assert described(changes) == sorted([("create", "database", f"databases[{db_id}]"),
                                             ("create", "block", f"blocks[{db_id}]"),
                                             ("modify", "page", f"pages[{BRIEF}]")])
        item = await n.ok("notion_create_database_item", {"database_id": db_id, "properties": {
            "Creator": {"title": rt("Lin Studio")}}})
        assert item["properties"]["Stage"]["status"]["name"] == "Not started"
        assert item["properties"]["Signed"]["checkbox"] is False


async def test_create_database_errors() -> None:
    async with Notion() as n:
        good = {"Name": {"title": {}}}
        await n.fail("notion_create_database", {"parent": BRIEF, "properties": good}, VALIDATION,
                     "body.parent: Input should be an object")
        await n.fail("notion_create_database", {"parent": {"page_id": BRIEF}, "properties": {"Name": {"title": []}}},
                     VALIDATION, "body.properties.Name.title")
        await n.fail("notion_create_database", {"parent": {"page_id": BRIEF}}, SERVER,
                     "Missing required argument: properties")
        await n.fail("notion_create_database", {"parent": {"type": "workspace", "workspace": True},
                                                "properties": good}, VALIDATION,
                     "body.parent.page_id should be defined, instead was `undefined`.")
        await n.fail("notion_create_database", {"parent": {"page_id": BRIEF}, "properties": {}}, VALIDATION,
                     "body.properties")
        await n.fail("notion_create_database", {"parent": {"page_id": BRIEF}, "properties": {
            "Name": {"title": {}}, "Kind": {"select": {"options": [{"name": "A", "color": "neon"}]}}}}, VALIDATION,
            "body.properties.Kind.select.options[0].color")
        await n.fail("notion_create_database", {"parent": {"page_id": BRIEF}, "properties": {"Due": {"date": {}}}},
                     VALIDATION, "should have exactly one title property, found 0")
        await n.fail("notion_create_database", {"parent": {"page_id": BRIEF}, "properties": {
            "A": {"title": {}}, "B": {"title": {}}}}, VALIDATION, "exactly one title property, found 2")
        await n.fail("notion_create_database", {"parent": {"page_id": BRIEF}, "properties": {
            "Name": {"title": {}}, "Mixed": {"type": "date", "checkbox": {}}}}, VALIDATION,
            "body.properties.Mixed.checkbox should be not present")
        await n.fail("notion_create_database", {"parent": {"page_id": TASKS}, "properties": good}, VALIDATION,
                     "is a database, not a page")
        await n.fail("notion_create_database", {"parent": {"page_id": MISSING}, "properties": good}, NOT_FOUND,
                     f"Could not find page with ID: {MISSING}")


# -- notion_query_database ----------------------------------------------------------------------------------
async def test_query_database_default_order_and_paging() -> None:
    async with Notion() as n:
        titles = await n.query(TASKS)
        assert titles == [
            "Book creators for the Xiaohongshu launch week", "Check conversion tracking on the new landing page",
            "Prepare Q1 campaign summary deck", "Plan launch-week social calendar",
            "Write launch article for the WeChat account", "Collect customer quotes for the case study",
            "Draft job description for the content strategist role", "Get print quote for in-store posters",
            "Reconcile Q1 marketing invoices", "Brief the video agency on the 15s teaser"]  # newest first
        first = await n.ok("notion_query_database", {"database_id": TASKS, "page_size": 4})
        assert first["type"] == "page_or_database" and first["has_more"] is True
        assert first["next_cursor"] == ROWS[titles[4]]
        rest = await n.ok("notion_query_database", {"database_id": TASKS, "start_cursor": first["next_cursor"]})
        assert [title_of(p) for p in first["results"] + rest["results"]] == titles


async def test_query_database_filters() -> None:
    async with Notion() as n:
        open_soon = await n.query(TASKS, filter={"and": [
            {"property": "Status", "status": {"does_not_equal": "Done"}},
            {"property": "Due", "date": {"on_or_before": "2026-03-13"}}]},
            sorts=[{"property": "Due", "direction": "ascending"}])
        assert open_soon == ["Write launch article for the WeChat account", "Brief the video agency on the 15s teaser",
                             "Collect customer quotes for the case study", "Reconcile Q1 marketing invoices"]
        high = await n.query(TASKS, filter={"property": "Priority", "select": {"equals": "High"}})
        assert sorted(high) == ["Book creators for the Xiaohongshu launch week",
                                "Brief the video agency on the 15s teaser", "Plan launch-week social calendar",
                                "Write launch article for the WeChat account"]
        song = await n.query(TASKS, filter={"property": "Assignee", "people": {"contains": SONG.replace("-", "")}})
        assert sorted(song) == ["Collect customer quotes for the case study", "Prepare Q1 campaign summary deck"]
        campaign = await n.query(TASKS, filter={"property": "Tags", "multi_select": {"contains": "campaign"}})
        assert len(campaign) == 3 and "Brief the video agency on the 15s teaser" in campaign
        big = await n.query(TASKS, filter={"property": "Estimate (h)", "number": {"greater_than": 4}})
        assert sorted(big) == ["Plan launch-week social calendar", "Prepare Q1 campaign summary deck",
                               "Write launch article for the WeChat account"]
        launch = await n.query(TASKS, filter={"property": "Name", "title": {"contains": "LAUNCH"}})
        also = await n.query(TASKS, filter={"property": "title", "rich_text": {"contains": "launch"}})
        assert sorted(launch) == sorted(also) and len(launch) == 3
        either = await n.query(TASKS, filter={"or": [{"property": "Status", "status": {"equals": "Done"}},
                                                     {"property": "Priority", "select": {"equals": "High"}}]})
        assert len(either) == 6
        past = await n.query(TASKS, filter={"property": "Due", "date": {"past_week": {}}})
        assert sorted(past) == ["Check conversion tracking on the new landing page",
                                "Get print quote for in-store posters", "Write launch article for the WeChat account"]
        upcoming = await n.query(TASKS, filter={"property": "Due", "date": {"next_week": {}}},
                                 sorts=[{"property": "Due", "direction": "descending"}])
        assert upcoming == ["Prepare Q1 campaign summary deck", "Reconcile Q1 marketing invoices",
                            "Collect customer quotes for the case study", "Brief the video agency on the 15s teaser"]
        recent = await n.query(TASKS, filter={"timestamp": "created_time", "created_time": {
            "after": "2026-03-04T00:00:00Z"}})
        assert recent == ["Book creators for the Xiaohongshu launch week",
                          "Check conversion tracking on the new landing page"]
        favorite = await n.query(READING, filter={"property": "Favorite", "checkbox": {"equals": True}})
        assert favorite == ["How Brands Grow"]
        later = await n.query(READING, filter={"property": "Finished on", "date": {"after": "2026-02-10"}})
        assert sorted(later) == ["Hooked", "How Brands Grow"]
        unread = await n.query(READING, filter={"property": "Finished on", "date": {"is_empty": True}})
        assert len(unread) == 3


async def test_query_database_sorts_put_empty_values_last() -> None:
    async with Notion() as n:
        body = await n.ok("notion_query_database", {"database_id": READING, "sorts": [
            {"property": "Rating", "direction": "descending"}, {"property": "Title", "direction": "ascending"}]})
        ratings = [(title_of(p), p["properties"]["Rating"]["number"]) for p in body["results"]]
        assert ratings[:4] == [("Building a StoryBrand", 5), ("How Brands Grow", 5), ("Hooked", 3),
                               ("The long and the short of it", 3)]
        assert [r for _, r in ratings[4:]] == [None, None, None]
        status = await n.query(READING, sorts=[{"property": "Status", "direction": "ascending"},
                                               {"timestamp": "created_time", "direction": "ascending"}])
        assert status[:2] == ["Obviously Awesome", "This Is Marketing"]  # option order: To read, Reading, Finished
        edited = await n.query(TASKS, sorts=[{"timestamp": "last_edited_time", "direction": "ascending"}])
        assert edited[0] == "Brief the video agency on the 15s teaser"


async def test_query_database_errors() -> None:
    async with Notion() as n:
        # type mismatch
        await n.fail("notion_query_database", {"database_id": TASKS, "filter": "Status = Done"}, VALIDATION,
                     "body.filter: Input should be a valid dictionary")
        await n.fail("notion_query_database", {"database_id": TASKS, "filter": {
            "property": "Status", "select": {"equals": "Done"}}}, VALIDATION,
            "database property status does not match filter select")
        await n.fail("notion_query_database", {"database_id": READING, "filter": {
            "property": "Favorite", "checkbox": {"equals": "yes"}}}, VALIDATION,
            "body.filter.checkbox.equals should be a boolean, instead was `\"yes\"`.")
        await n.fail("notion_query_database", {"database_id": TASKS, "filter": {
            "property": "Due", "date": {"after": "next Tuesday"}}}, VALIDATION,
            "body.filter.date.after should be a valid ISO 8601 date string")
        # missing
        await n.fail("notion_query_database", {"filter": {}}, SERVER, "Missing required argument: database_id")
        await n.fail("notion_query_database", {"database_id": TASKS, "filter": {"status": {"equals": "Done"}}},
                     VALIDATION, "body.filter.property should be defined, instead was `undefined`.")
        await n.fail("notion_query_database", {"database_id": TASKS, "sorts": [{"property": "Due"}]}, VALIDATION,
                     "body.sorts[0].direction should be defined")
        # out of range
        await n.fail("notion_query_database", {"database_id": TASKS, "page_size": 101}, VALIDATION,
                     "body.page_size: Input should be less than or equal to 100.")
        await n.fail("notion_query_database", {"database_id": TASKS, "filter": {
            "property": "Status", "status": {"greater_than": "Done"}}}, VALIDATION,
            "body.filter.status.greater_than should be not present")
        await n.fail("notion_query_database", {"database_id": TASKS, "sorts": [{"property": "Due",
                                                                                "direction": "up"}]}, VALIDATION,
                     "body.sorts[0].direction")
        await n.fail("notion_query_database", {"database_id": TASKS, "filter": {"and": [{"or": [{"and": [
            {"property": "Status", "status": {"equals": "Done"}}]}]}]}}, VALIDATION, "nested too deeply")
        # semantic conflicts
        await n.fail("notion_query_database", {"database_id": TASKS, "filter": {
            "property": "Owner", "people": {"contains": ME}}}, VALIDATION,
            "Could not find property with name or id: Owner")
        await n.fail("notion_query_database", {"database_id": TASKS, "sorts": [{"property": "Owner",
                                                                                "direction": "ascending"}]},
                     VALIDATION, "Could not find sort property with name or id: Owner")
        await n.fail("notion_query_database", {"database_id": HOME}, VALIDATION,
                     f"Provided ID {HOME} is a page, not a database.")
        await n.fail("notion_query_database", {"database_id": MISSING}, NOT_FOUND,
                     f"Could not find database with ID: {MISSING}")
        await n.fail("notion_query_database", {"database_id": TASKS, "start_cursor": ROWS["Hooked"]}, VALIDATION,
                     "start_cursor provided is invalid")


# -- notion_retrieve_database -------------------------------------------------------------------------------
async def test_retrieve_database() -> None:
    async with Notion() as n:
        db = await n.ok("notion_retrieve_database", {"database_id": READING.replace("-", "")})
        assert db["object"] == "database" and db["id"] == READING and plain(db["title"]) == "Reading list"
        assert db["parent"] == {"type": "page_id", "page_id": HOME}
        assert db["title"] == [{"type": "text", "text": {"content": "Reading list"}}]
        assert not {"is_inline", "archived", "cover", "public_url"} & set(db)
        assert {n: p["type"] for n, p in db["properties"].items()} == {
            "Title": "title", "Author": "rich_text", "Type": "select", "Status": "select", "Rating": "number",
            "Finished on": "date", "Favorite": "checkbox", "Tags": "multi_select", "Recommended by": "people"}
        assert [o["name"] for o in db["properties"]["Status"]["select"]["options"]] == ["To read", "Reading",
                                                                                          "Finished"]
        assert "results" not in db


async def test_retrieve_database_errors() -> None:
    async with Notion() as n:
        await n.fail("notion_retrieve_database", {"database_id": None}, VALIDATION, "body.database_id")
        await n.fail("notion_retrieve_database", {}, SERVER, "Missing required argument: database_id")
        await n.fail("notion_retrieve_database", {"database_id": READING[:-1]}, VALIDATION,
                     "path.database_id should be a valid uuid")
        await n.fail("notion_retrieve_database", {"database_id": ROWS["Hooked"]}, VALIDATION,
                     "is a page, not a database")


# -- notion_update_database -------------------------------------------------------------------------------
async def test_update_database_title_and_schema() -> None:
    async with Notion() as n:
        row = ROWS["Hooked"]
        body, changes = await n.changes("notion_update_database", {
            "database_id": READING, "title": rt("Library"), "description": rt("What I read in 2026"),
            "properties": {"Author": {"name": "Writer"}, "Favorite": None, "Pages": {"number": {}},
                           "Type": {"select": {"options": [{"name": "Podcast", "color": "purple"}]}}}})
        assert plain(body["title"]) == "Library" and plain(body["description"]) == "What I read in 2026"
        props = body["properties"]
        assert "Author" not in props and props["Writer"]["type"] == "rich_text" and "Favorite" not in props
        assert props["Writer"]["id"] == CTX["databases"][READING]["properties"]["Author"]["id"]
        assert props["Pages"]["type"] == "number" and props["Pages"]["number"] == {"format": "number"}
        assert [o["name"] for o in props["Type"]["select"]["options"]] == ["Book", "Article", "Paper", "Podcast"]
        stored = n.data["pages"][row]["properties"]
        assert plain(stored["Writer"]["rich_text"]) == "Nir Eyal" and "Author" not in stored
        assert "Favorite" not in stored
        page = await n.ok("notion_retrieve_page", {"page_id": row})
        assert page["properties"]["Pages"]["number"] is None and plain(page["properties"]["Writer"]["rich_text"]) == \
            "Nir Eyal"
        rows = sum(1 for p in CTX["pages"].values() if p.get("database_id") == READING)
        assert len([c for c in changes if c.entity_type == "page"]) == rows
        assert sorted(await n.query(READING, filter={"property": "Writer", "rich_text": {"contains": "eyal"}})) == \
            ["Hooked"]


async def test_update_database_change_a_type_empties_it() -> None:
    async with Notion() as n:
        body = await n.ok("notion_update_database", {"database_id": READING, "properties": {
            "Rating": {"type": "select", "select": {"options": [{"name": "★★★"}]}}}})
        assert body["properties"]["Rating"]["type"] == "select"
        page = await n.ok("notion_retrieve_page", {"page_id": ROWS["How Brands Grow"]})
        assert page["properties"]["Rating"] == {"id": body["properties"]["Rating"]["id"], "type": "select",
                                                "select": None}


async def test_update_database_errors() -> None:
    async with Notion() as n:
        await n.fail("notion_update_database", {"database_id": READING, "title": "Library"}, VALIDATION,
                     "body.title: Input should be a valid list")
        await n.fail("notion_update_database", {"title": rt("x")}, SERVER, "Missing required argument: database_id")
        await n.fail("notion_update_database", {"database_id": READING}, VALIDATION,
                     "give at least one of title, description, properties")
        await n.fail("notion_update_database", {"database_id": READING, "properties": {"Rating": {
            "number": {"format": "bitcoin"}}}}, VALIDATION, "body.properties.Rating.number.format")
        await n.fail("notion_update_database", {"database_id": READING, "properties": {"Title": None}}, VALIDATION,
                     "Cannot delete the title property of a database.")
        await n.fail("notion_update_database", {"database_id": READING, "properties": {"Author": {"name": "Type"}}},
                     VALIDATION, "Property name Type is already in use.")
        await n.fail("notion_update_database", {"database_id": READING, "properties": {"Ghost": None}}, VALIDATION,
                     "Ghost is not a property that exists.")
        await n.fail("notion_update_database", {"database_id": READING, "properties": {"Notes": {"name": "Notes"}}},
                     VALIDATION, "body.properties.Notes should have exactly one property type")
        await n.fail("notion_update_database", {"database_id": READING, "properties": {"Author": {"title": {}}}},
                     VALIDATION, "Cannot change the type of the title property")
        await n.fail("notion_update_database", {"database_id": HOME, "title": rt("x")}, VALIDATION,
                     "is a page, not a database")


# -- notion_create_database_item ----------------------------------------------------------------------------
async def test_create_database_item() -> None:
    async with Notion() as n:
        body, changes = await n.changes("notion_create_database_item", {"database_id": TASKS.replace("-", ""),
                                                                        "properties": {
            "Name": {"title": rt("Send poster files to Lumen Retail")},
            "Priority": {"select": {"name": "High"}},
            "Due": {"date": {"start": "2026-03-12"}},
            "Assignee": {"people": [{"id": WANG}]},
            "Tags": {"multi_select": [{"name": "partner"}, {"name": "print"}]},
        }})
        pid = body["id"]
        assert body["parent"] == {"type": "database_id", "database_id": TASKS} and title_of(body) == \
            "Send poster files to Lumen Retail"
        props = body["properties"]
        assert props["Status"]["status"]["name"] == "Not started"  # the first option of the To-do group
        assert props["Estimate (h)"]["number"] is None and props["Assignee"]["people"][0]["name"] == "Wang Fang"
        assert described(changes) == [("create", "page", f"pages[{pid}]")]
        stored = n.data["pages"][pid]
        assert stored["database_id"] == TASKS and stored["created_by"] == BOT and stored["children"] == []
        assert stored["created_time"] == NOW_ISO
        assert list(stored["properties"]) == list(CTX["databases"][TASKS]["properties"])
        soon = await n.query(TASKS, filter={"property": "Due", "date": {"equals": "2026-03-12"}})
        assert sorted(soon) == ["Collect customer quotes for the case study", "Send poster files to Lumen Retail"]
        assert (await n.query(TASKS))[0] == "Send poster files to Lumen Retail"
        empty = await n.ok("notion_create_database_item", {"database_id": READING, "properties": {}})
        assert title_of(empty) == "" and empty["properties"]["Favorite"]["checkbox"] is False


async def test_create_database_item_errors() -> None:
    async with Notion() as n:
        await n.fail("notion_create_database_item", {"database_id": TASKS, "properties": {"Name": "Call Sam"}},
                     VALIDATION, "body.properties.Name: Input should be an object")
        await n.fail("notion_create_database_item", {"database_id": TASKS, "properties": {
            "Name": {"rich_text": rt("x")}}}, VALIDATION, "Name is expected to be title.")
        await n.fail("notion_create_database_item", {"database_id": TASKS}, SERVER,
                     "Missing required argument: properties")
        await n.fail("notion_create_database_item", {"properties": {}}, SERVER,
                     "Missing required argument: database_id")
        await n.fail("notion_create_database_item", {"database_id": TASKS, "properties": {
            "Name": {"title": [{"type": "text"}]}}}, VALIDATION,
            "body.properties.Name.title[0].text should be defined, instead was `undefined`.")
        await n.fail("notion_create_database_item", {"database_id": TASKS, "properties": {
            "Name": {"title": rt("y" * 2001)}}}, VALIDATION, "body.properties.Name.title[0].text.content")
        await n.fail("notion_create_database_item", {"database_id": TASKS, "properties": {
            "Status": {"status": {"name": "Waiting"}}}}, VALIDATION, 'Status option "Waiting" does not exist.')
        await n.fail("notion_create_database_item", {"database_id": TASKS, "properties": {
            "Project": {"select": {"name": "Spring"}}}}, VALIDATION, "Project is not a property that exists.")
        await n.fail("notion_create_database_item", {"database_id": HOME, "properties": {}}, VALIDATION,
                     "is a page, not a database")
        await n.fail("notion_create_database_item", {"database_id": MISSING, "properties": {}}, NOT_FOUND,
                     "Could not find database")


# -- comments -------------------------------------------------------------------------------------------------
async def test_retrieve_comments_of_a_page_and_a_block() -> None:
    async with Notion() as n:
        body = await n.ok("notion_retrieve_comments", {"block_id": BRIEF})
        assert body["type"] == "comment" and body["has_more"] is False
        page_comments = sorted((c for c in CTX["comments"].values() if c.get("page_id") == BRIEF),
                               key=lambda c: c["created_time"])
        assert [c["id"] for c in body["results"]] == [c["id"] for c in page_comments]
        first = body["results"][0]
        assert first["parent"] == {"type": "page_id", "page_id": BRIEF}
        assert first["created_by"]["object"] == "user"
        assert first["rich_text"] == rich_text_view(page_comments[0]["rich_text"])
        assert plain(first["rich_text"]) == plain(page_comments[0]["rich_text"])
        on_block = await n.ok("notion_retrieve_comments", {"block_id": BLOCK_COMMENT["block_id"]})
        assert [c["id"] for c in on_block["results"]] == [BLOCK_COMMENT["id"]]
        assert on_block["results"][0]["parent"] == {"type": "block_id", "block_id": BLOCK_COMMENT["block_id"]}
        assert (await n.ok("notion_retrieve_comments", {"block_id": INBOX}))["results"] == []
        paged = await n.ok("notion_retrieve_comments", {"block_id": BRIEF, "page_size": 1})
        assert paged["has_more"] is True and paged["next_cursor"] == body["results"][1]["id"]


async def test_retrieve_comments_errors() -> None:
    async with Notion() as n:
        await n.fail("notion_retrieve_comments", {"block_id": 3}, VALIDATION, "body.block_id")
        await n.fail("notion_retrieve_comments", {}, SERVER, "Missing required argument: block_id")
        await n.fail("notion_retrieve_comments", {"block_id": BRIEF, "page_size": -1}, VALIDATION, "body.page_size")
        await n.fail("notion_retrieve_comments", {"block_id": "brief"}, VALIDATION,
                     "query.block_id should be a valid uuid")
        await n.fail("notion_retrieve_comments", {"block_id": MISSING}, NOT_FOUND, "Could not find block")


async def test_create_comment_new_discussion_and_reply() -> None:
    async with Notion() as n:
        body, changes = await n.changes("notion_create_comment", {"parent": {"page_id": INBOX.replace("-", "")},
                                                                  "rich_text": rt("Triage on Friday")})
        assert body["object"] == "comment" and body["parent"] == {"type": "page_id", "page_id": INBOX}
        assert body["created_by"] == {"object": "user", "id": BOT} and plain(body["rich_text"]) == "Triage on Friday"
        assert body["discussion_id"] not in {c["discussion_id"] for c in CTX["comments"].values()}
        assert described(changes) == [("create", "comment", f"comments[{body['id']}]")]
        reply = await n.ok("notion_create_comment", {"discussion_id": BLOCK_COMMENT["discussion_id"],
                                                     "rich_text": rt("Wednesday works for me.")})
        assert reply["discussion_id"] == BLOCK_COMMENT["discussion_id"]
        assert reply["parent"] == {"type": "block_id", "block_id": BLOCK_COMMENT["block_id"]}
        thread = await n.ok("notion_retrieve_comments", {"block_id": BLOCK_COMMENT["block_id"]})
        assert [plain(c["rich_text"]) for c in thread["results"]][-1] == "Wednesday works for me."
        mention = await n.ok("notion_create_comment", {"parent": {"page_id": BRIEF}, "rich_text": [
            {"type": "mention", "mention": {"type": "page", "page": {"id": KICKOFF}}},
            {"type": "equation", "equation": {"expression": "E=mc^2"}}]})
        assert plain(mention["rich_text"]) == "2026-03-03 Spring campaign kickoffE=mc^2"


async def test_create_comment_errors() -> None:
    async with Notion() as n:
        await n.fail("notion_create_comment", {"parent": {"page_id": INBOX}, "rich_text": "hello"}, VALIDATION,
                     "body.rich_text: Input should be a valid list")
        await n.fail("notion_create_comment", {"rich_text": rt("x")}, SERVER,
                     "Either parent.page_id or discussion_id must be provided")
        await n.fail("notion_create_comment", {"parent": {"page_id": INBOX}}, SERVER,
                     "Missing required argument: rich_text")
        await n.fail("notion_create_comment", {"parent": {}, "rich_text": rt("x")}, VALIDATION,
                     "body.parent.page_id should be defined")
        await n.fail("notion_create_comment", {"parent": {"page_id": INBOX}, "rich_text": []}, VALIDATION,
                     "body.rich_text")
        await n.fail("notion_create_comment", {"parent": {"page_id": INBOX}, "discussion_id":
                                               BRIEF_COMMENT["discussion_id"], "rich_text": rt("x")}, VALIDATION,
                     "body.parent should be not present")
        await n.fail("notion_create_comment", {"discussion_id": MISSING, "rich_text": rt("x")}, NOT_FOUND,
                     f"Could not find discussion with ID: {MISSING}")
        await n.fail("notion_create_comment", {"parent": {"page_id": TASKS}, "rich_text": rt("x")}, VALIDATION,
                     "is a database, not a page")


# -- notion_search --------------------------------------------------------------------------------------
async def test_search_titles_filters_and_sort() -> None:
    async with Notion() as n:
        body = await n.ok("notion_search", {"query": "brief"})
        assert body["type"] == "page_or_database"
        assert [title_of(r) for r in body["results"]] == ["Creator program brief",
                                                          "Brief the video agency on the 15s teaser"]
        words = await n.ok("notion_search", {"query": "launch WEEK"})
        assert sorted(title_of(r) for r in words["results"]) == ["Book creators for the Xiaohongshu launch week",
                                                                 "Plan launch-week social calendar"]
        dbs = await n.ok("notion_search", {"filter": {"property": "object", "value": "database"}})
        assert sorted(plain(r["title"]) for r in dbs["results"]) == ["My tasks", "Reading list"]
        assert all(r["object"] == "database" for r in dbs["results"])
        everything = await n.ok("notion_search", {"page_size": 100})
        assert len(everything["results"]) == len(CTX["pages"]) + len(CTX["databases"])
        assert everything["results"][0]["id"] == INBOX  # edited most recently
        oldest = await n.ok("notion_search", {"sort": {"direction": "ascending", "timestamp": "last_edited_time"},
                                              "page_size": 2})
        assert oldest["results"][0]["id"] == HOME and oldest["has_more"] is True
        await n.ok("notion_update_page_properties", {"page_id": ROWS["Hooked"], "properties": {
            "Rating": {"number": 4}}})
        assert (await n.ok("notion_search", {"page_size": 1}))["results"][0]["id"] == ROWS["Hooked"]
        assert (await n.ok("notion_search", {"query": "no such thing"}))["results"] == []


async def test_search_pages_by_ten_and_pages_to_everything() -> None:
    async with Notion() as n:
        total = len(CTX["pages"]) + len(CTX["databases"])
        assert total > 2 * SEARCH_PAGE_SIZE
        whole = [r["id"] for r in (await n.unchanged("notion_search", {"page_size": 100}))["results"]]
        assert len(whole) == total
        seen: list[str] = []
        cursor: str | None = None
        while True:
            body = await n.unchanged("notion_search", {"start_cursor": cursor} if cursor else {})
            ids = [r["id"] for r in body["results"]]
            assert len(ids) == min(SEARCH_PAGE_SIZE, total - len(seen))
            seen += ids
            assert body["has_more"] is (len(seen) < total)
            if not body["has_more"]:
                assert body["next_cursor"] is None
                break
            assert body["next_cursor"] == whole[len(seen)]  # Notion's cursor: the id of the next page's first item
            cursor = body["next_cursor"]
        assert seen == whole  # every item once, in order
        # a cursor without dashes works; one that is not in this result set is rejected, the state untouched
        again = await n.unchanged("notion_search", {"start_cursor": whole[10].replace("-", ""), "page_size": 2})
        assert [r["id"] for r in again["results"]] == whole[10:12] and again["next_cursor"] == whole[12]
        await n.fail("notion_search", {"query": "brief", "start_cursor": whole[-1]}, VALIDATION,
                     f"start_cursor provided is invalid: {whole[-1]}")
        await n.fail("notion_search", {"start_cursor": "page-2"}, VALIDATION,
                     "start_cursor provided is invalid: page-2")
        small = await n.unchanged("notion_search", {"query": "brief"})
        assert len(small["results"]) == 2 and small["has_more"] is False and small["next_cursor"] is None


async def test_search_errors() -> None:
    async with Notion() as n:
        await n.fail("notion_search", {"query": 5}, VALIDATION, "body.query: Input should be a valid string")
        await n.fail("notion_search", {"filter": {"value": "page"}}, VALIDATION,
                     "body.filter.property should be defined, instead was `undefined`.")
        await n.fail("notion_search", {"filter": {"property": "object", "value": "block"}}, VALIDATION,
                     "body.filter.value")
        await n.fail("notion_search", {"sort": {"direction": "ascending", "timestamp": "created_time"}}, VALIDATION,
                     "body.sort.timestamp")
        await n.fail("notion_search", {"start_cursor": MISSING}, VALIDATION, "start_cursor provided is invalid")


# -- the other personas --------------------------------------------------------------------------------
@pytest.mark.parametrize("persona", ["lin_wei", "maya_patel"])
async def test_other_personas_have_a_working_workspace(persona: str) -> None:
    async with Notion(persona) as n:
        users = await n.ok("notion_list_all_users", {})
        me = next(u for u in users["results"] if u["id"] == n.data["me"])
        assert me["person"]["email"] == {"lin_wei": "lin.wei@eastlake.edu.cn",
                                         "maya_patel": "maya.patel@lumipay.sg"}[persona]
        dbs = await n.ok("notion_search", {"filter": {"property": "object", "value": "database"}})
        assert len(dbs["results"]) == 2
        for db in dbs["results"]:
            rows = await n.ok("notion_query_database", {"database_id": db["id"]})
            assert len(rows["results"]) >= 5
        meetings = await n.ok("notion_search", {"query": "meeting"})
        assert meetings["results"]


# -- the answers' size and shape on every seeded workspace ----------------------------------------------
# The largest answer of a read tool on the seeded contexts: a 10-row database query (~14.4k characters); a
# bare search's first page is ~10.4k. Every later request of an agent's conversation resends it.
MAX_ANSWER_CHARS = 16_000
_NULL_DEFAULTS = {"href", "link", "cover", "icon", "public_url", "avatar_url", "end", "time_zone"}
_FALSE_DEFAULTS = {"archived", "has_children", "is_inline", "is_toggleable"}
_MARKS = {"bold": False, "italic": False, "strikethrough": False, "underline": False, "code": False,
          "color": "default"}


def _is_default(owner: dict[str, Any], key: str, item: Any) -> bool:
    if key in _NULL_DEFAULTS:
        return item is None
    if key in _FALSE_DEFAULTS:
        return item is False
    if key == "annotations":
        return any(item.get(m) == d for m, d in _MARKS.items())
    if key == "plain_text":  # a text object's is its text.content
        return owner.get("type") == "text"
    if key == "description":
        return item == []
    if key == owner.get("type") and owner.get("object") == "list":  # the list's empty "<type>": {}
        return True
    if key == owner.get("type") and owner.get("object") == "block" and isinstance(item, dict):  # block content
        return item.get("color") == "default" or item.get("caption") == [] or item.get("is_toggleable") is False
    return False


def boilerplate(value: Any, where: str = "$") -> list[str]:
    """Where an answer still carries one of the API's defaults that the app leaves out."""
    found: list[str] = []
    if isinstance(value, list):
        for i, item in enumerate(value):
            found += boilerplate(item, f"{where}[{i}]")
    elif isinstance(value, dict):
        for key, item in value.items():
            if _is_default(value, key, item):
                found.append(f"{where}.{key}")
            found += boilerplate(item, f"{where}.{key}")
    return found


async def _read_everything(n: Notion, fmt: str = "json") -> list[tuple[str, str, str]]:
    """(tool, arguments, answer text) for every read of the workspace: search, rows, pages, blocks, comments."""
    out: list[tuple[str, str, str]] = []

    async def read(tool: str, args: dict[str, Any]) -> None:
        before = n.env.tree.hash()
        result = await n.client.call_tool(tool, args | {"format": fmt})
        assert not result.is_error and n.env.tree.hash() == before, (tool, args)
        out.append((tool, json.dumps(args), result.content[0].text))

    await read("notion_search", {})
    await read("notion_list_all_users", {})
    data = n.data
    for did in data["databases"]:
        await read("notion_retrieve_database", {"database_id": did})
        await read("notion_query_database", {"database_id": did})
    for pid in data["pages"]:
        await read("notion_retrieve_page", {"page_id": pid})
        await read("notion_retrieve_comments", {"block_id": pid})
    for oid in [*data["pages"], *data["databases"]]:  # pages and databases seen as blocks
        await read("notion_retrieve_block", {"block_id": oid})
    for oid in [*data["pages"], *(b for b, block in data["blocks"].items() if block.get("children"))]:
        await read("notion_retrieve_block_children", {"block_id": oid})
    return out


@pytest.mark.parametrize("persona", ["chen_yu", "lin_wei", "maya_patel"])
async def test_answers_are_compact_and_bounded(persona: str) -> None:
    async with Notion(persona) as n:
        answers = await _read_everything(n)
    assert len(answers) > 100
    biggest = max(answers, key=lambda a: len(a[2]))
    assert len(biggest[2]) <= MAX_ANSWER_CHARS, (biggest[0], biggest[1], len(biggest[2]))
    for tool, args, text in answers:
        assert text == json.dumps(json.loads(text), ensure_ascii=False, separators=(",", ":")), (tool, args)
        assert not boilerplate(json.loads(text)), (tool, args, boilerplate(json.loads(text))[:5])


# -- markdown answers (the server runs with NOTION_MARKDOWN_CONVERSION on) ------------------------------
async def md(n: Notion, tool: str, args: dict[str, Any]) -> str:
    """A successful call without ``format``: the answer text, which must not be JSON."""
    result = await n.client.call_tool(tool, args)
    assert not result.is_error, result
    text = result.content[0].text
    with pytest.raises(json.JSONDecodeError):
        json.loads(text)
    return text


async def test_markdown_is_the_default_and_json_is_asked_for() -> None:
    async with Notion() as n:
        for fmt in ({}, {"format": "markdown"}, {"format": None}):
            text = await md(n, "notion_retrieve_block_children", {"block_id": INBOX, **fmt})
            todos = [plain(CTX["blocks"][b]["to_do"]["rich_text"]) for b in INBOX_TODOS]
            assert text == "# Block Contents\n\n" + "".join(f"- [ ] {t}\n\n" for t in todos)
        body = await n.ok("notion_retrieve_block_children", {"block_id": INBOX, "format": "json"})
        assert [b["id"] for b in body["results"]] == INBOX_TODOS


async def test_markdown_blocks_follow_the_upstream_converter() -> None:
    async with Notion() as n:
        text = await md(n, "notion_retrieve_block_children", {"block_id": BRIEF})
    assert text.startswith("# Block Contents\n\n> 🎯 Sign 20 creators")  # a callout: its emoji, then the text
    assert "\n\n## Context\n\nCreators bring trust that paid ads do not.\n\n## Milestones\n\n1. Shortlist\n\n" in text
    assert ("<details>\n<summary>Flat fee or revenue share?</summary>\n\n*Additional API request is needed to "
            "display child blocks*\n\n</details>") in text
    assert "\n\n---\n\n" in text  # the divider
    assert TOGGLE not in text and HEADING not in text  # the converter drops block ids


async def test_markdown_page_database_search_and_other_objects() -> None:
    async with Notion() as n:
        page = await md(n, "notion_retrieve_page", {"page_id": KICKOFF})
        assert page == (
            "# 2026-03-03 Spring campaign kickoff\n\n## Properties\n\n| Property | Value |\n|------------|----|\n"
            "| title | 2026-03-03 Spring campaign kickoff |\n\n\n> This page contains child blocks. You can retrieve "
            f"them using `retrieveBlockChildren`.\n> Block ID: `{KICKOFF}`\n\n[View in Notion]"
            f"(https://www.notion.so/2026-03-03-Spring-campaign-kickoff-{KICKOFF.replace('-', '')})\n")
        db = await md(n, "notion_retrieve_database", {"database_id": TASKS})
        assert db.startswith("# My tasks (Database)\n\n")
        assert "| Status | status | Options: Not started, In progress, Done |\n" in db
        assert "| Due | date | Date or date range |\n" in db and TASKS not in db  # no id in a schema
        found = await md(n, "notion_search", {"query": "kickoff"})
        assert found.startswith("# Search Results (Pages)\n\n## [2026-03-03 Spring campaign kickoff](")
        assert f"\n\nID: `{KICKOFF}`\n\n---\n\n" in found
        rows = await md(n, "notion_query_database", {"database_id": TASKS, "page_size": 2})
        assert rows.count("\n\nID: `") == 2 and "Status" not in rows  # a list of pages: titles and ids only
        assert rows.endswith("> More results available. Use `start_cursor` parameter with the next request.\n"
                             "> Next cursor: `" + rows.split("Next cursor: `")[1])
        user = await md(n, "notion_retrieve_user", {"user_id": SONG})  # no markdown form: fenced compact JSON
        assert user.startswith("```json\n{") and user.endswith("}\n```")
        assert json.loads(user[8:-4])["name"] == "Song Ke"


async def test_markdown_writes_change_the_same_state_and_failures_stay_json() -> None:
    children = [{"type": "to_do", "to_do": {"rich_text": rt("Call the print vendor", annotations={"bold": True})}}]
    states = []
    for fmt in ({}, {"format": "json"}):
        async with Notion() as n:
            result = await n.client.call_tool("notion_append_block_children",
                                              {"block_id": INBOX, "children": children, **fmt})
            assert not result.is_error
            if not fmt:
                assert result.content[0].text == "# Block Contents\n\n- [ ] **Call the print vendor**\n\n"
            states.append(n.data)
            failed = await n.client.call_tool("notion_retrieve_page", {"page_id": MISSING})
            assert failed.is_error and json.loads(failed.content[0].text)["code"] == NOT_FOUND
    assert states[0] == states[1]


@pytest.mark.parametrize("persona", ["chen_yu", "lin_wei", "maya_patel"])
async def test_markdown_reads_are_smaller_and_keep_the_text(persona: str) -> None:
    async with Notion(persona) as n:
        as_json = await _read_everything(n, "json")
        as_md = await _read_everything(n, "markdown")
        data = n.data
    json_chars, md_chars = sum(len(a[2]) for a in as_json), sum(len(a[2]) for a in as_md)
    assert md_chars < json_chars / 2, (md_chars, json_chars)
    everything = "\n".join(a[2] for a in as_md)
    for block in data["blocks"].values():  # every live block's text is readable in markdown (marks aside)
        content = block.get(block["type"]) or {}
        if not block.get("archived"):
            for item in content.get("rich_text") or []:
                assert plain([item]) in everything, block["id"]
