"""The Gmail app through the real MCP path: every tool's success path and its error classes.

Each call goes through ``mcp.Client`` against the app's ``MCPServer``. Results are Gmail API-style
JSON; writes are checked against ``env.tree.data`` and an entity-level diff, failures against the
Google API error object, the error flag and an unchanged state hash.
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any

import pytest

from app_harness import AppSession
from mcp_persona.apps import get_app
from mcp_persona.clock import TaskClock
from mcp_persona.context_tree import is_ignored

pytestmark = pytest.mark.anyio


APP = get_app("gmail")
NOW = 1773106200  # app_harness.CLOCK (Tuesday 2026-03-10, 09:30 in Shanghai) as unix seconds

TOOLS = [
    "send_email", "draft_email", "read_email", "get_thread", "search_emails", "modify_email", "batch_modify_emails",
    "delete_email", "list_email_labels", "create_label", "update_label",
]

# -- chen_yu's mailbox --------------------------------------------------------------------------------
ME = {"name": "Chen Yu", "address": "chen.yu@orbitlab.cn"}
SONG = {"name": "Song Ke", "address": "song.ke@orbitlab.cn"}
CAMPAIGNS, RECEIPTS, VENDORS = "Label_1", "Label_2", "Label_3"  # "Campaigns/Spring 2026", "Receipts", "Vendors"
Q1 = "1962ad5a64e101a0"  # Song Ke: Q1 campaign summary (INBOX IMPORTANT STARRED); also the thread id
Q1_REPLY = "1934ed3c584eb48f"  # my reply (SENT)
Q1_THANKS = "1900dc897633e866"  # Song Ke's answer, the latest of the thread
Q1_THANKS_HEADER = "<rqj417iry53reox3ajm6m9qq@orbitlab.cn>"
METRICS = "1993e0306a56488c"  # Sun Lei, Label_1, attachment
LAUNCH_POST = "19854ed2740284b4"  # Li Minghui, Label_1, attachment
QUOTE = "199917786a088095"  # Pixel Forge, Vendors
COURSERA = "193000fcf0041dfa"  # unread
LUMEN = "19eefe55846a2cd4"  # Wang Fang, unread, 9 Mar 11:05
POSTER = "1973b72167bfb9c6"  # Zhao Min, unread, Label_1, 2 attachments, 9 Mar 16:20
PRINT = "19030a9fd39480fd"  # Bright Print, unread, Vendors, 9 Mar 17:55
DRAFT = "19b0e592170e3c58"  # my draft, 9 Mar 20:40
SPAM = "19b4235b1c78b7d1"
TRASH = "19c0c5d4ab682ea3"
MISSING = "19ffffffffffffff"


class Mailbox(AppSession):
    """One episode of the Gmail app and a connected client."""

    app = APP
    json_results = True

    def msg(self, mid: str) -> dict[str, Any]:
        return self.data["messages"][mid]

    async def ok(self, tool: str, args: dict[str, Any] | None = None) -> Any:
        body = await super().ok(tool, args)
        assert "error" not in body
        return body

    async def fail(self, tool: str, args: dict[str, Any] | None, code: int, fragment: str) -> dict[str, Any]:
        """A rejected call: the error flag, a Google API error with ``code``, ``fragment`` in its message."""
        body = await self.rejected(tool, args)
        err = body["error"]
        assert err["code"] == code, body
        status = {400: "INVALID_ARGUMENT", 403: "PERMISSION_DENIED", 404: "NOT_FOUND", 409: "ALREADY_EXISTS"}[code]
        assert err["status"] == status and err["errors"][0]["domain"] == "global"
        assert fragment in err["message"], body
        return err

    async def search(self, query: str, **extra: Any) -> list[str]:
        body = await self.unchanged("search_emails", {"query": query, "maxResults": 500, **extra})
        return [m["id"] for m in body.get("messages", [])]


def scored(changes: list[Any]) -> list[Any]:
    return [c for c in changes if not is_ignored(c, APP.hierarchy.ignore_changes)]


def mods(changes: list[Any]) -> list[tuple[str, str, tuple[str, ...]]]:
    return sorted((c.op, c.path, c.fields) for c in changes)


# -- the server and the contexts ----------------------------------------------------------------------
async def test_server_lists_exactly_the_eleven_tools() -> None:
    async with Mailbox() as box:
        listed = await box.client.list_tools()
    assert sorted(t.name for t in listed.tools) == sorted(TOOLS)
    schema = {t.name: t.input_schema for t in listed.tools}
    assert schema["send_email"]["required"] == ["to", "subject", "body"]
    assert schema["read_email"]["required"] == ["messageId"]
    assert schema["search_emails"]["properties"]["maxResults"]["maximum"] == 500


async def test_unknown_tool_and_unknown_argument() -> None:
    async with Mailbox() as box:
        err = await box.fail("trash_email", {"messageId": Q1}, 404, "Unknown tool: trash_email")
        assert err["errors"][0]["reason"] == "notFound"
        err = await box.fail("read_email", {"messageId": Q1, "format": "full"}, 400, "Invalid JSON payload received.")
        assert err["details"][0]["fieldViolations"] == [{"field": "format",
                                                          "description": "Extra inputs are not permitted"}]


def test_contexts_are_rich_and_work_addressed() -> None:
    for persona, address, domain in (("chen_yu", "chen.yu@orbitlab.cn", "@orbitlab.cn"),
                                     ("lin_wei", "lin.wei@eastlake.edu.cn", "@eastlake.edu.cn"),
                                     ("maya_patel", "maya.patel@lumipay.sg", "@lumipay.sg")):
        data = APP.load_context(persona)
        assert data["profile"]["emailAddress"] == address
        msgs = list(data["messages"].values())
        assert 15 <= len(msgs) <= 30
        assert all(re.fullmatch(r"[0-9a-f]{16}", m["id"]) and m["date"] < NOW for m in msgs)
        labels = {lid for m in msgs for lid in m["labelIds"]}
        assert {"INBOX", "SENT", "DRAFT", "SPAM", "TRASH", "Label_1", "Label_2", "Label_3"} <= labels
        assert "UNREAD" not in labels and any(m["unread"] for m in msgs)
        colleagues = {m["from"]["address"] for m in msgs if m["from"]["address"].endswith(domain)} - {address}
        assert len(colleagues) >= 5  # coworkers write from their work addresses
        threads = {m["threadId"] for m in msgs}
        assert len(threads) < len(msgs) and threads <= {m["id"] for m in msgs}
        assert all(m.get("inReplyTo") for m in msgs if m["threadId"] != m["id"])
        assert sum(1 for m in msgs if m.get("draftId")) == 1


# -- send_email ---------------------------------------------------------------------------------------
async def test_send_email_creates_one_sent_message_in_a_new_thread() -> None:
    async with Mailbox() as box:
        body, changes = await box.changes("send_email", {
            "to": ["Wang Fang <wang.fang@orbitlab.cn>"], "cc": ["song.ke@orbitlab.cn"],
            "subject": "Case-study deck for Lumen Retail", "body": "Hi Wang Fang,\n\nThe deck will be ready Friday.",
        })
        mid = body["id"]
        assert re.fullmatch(r"19[0-9a-f]{14}", mid) and body == {"id": mid, "threadId": mid, "labelIds": ["SENT"]}
        assert mods(changes) == [("create", f"messages[{mid}]", ())]
        stored = box.msg(mid)
        assert re.fullmatch(r"<CA\+[a-z0-9]{32}@mail\.gmail\.com>", stored.pop("messageIdHeader"))
        assert stored == {
            "id": mid, "threadId": mid, "labelIds": ["SENT"], "unread": False, "from": ME,
            "to": [{"name": "Wang Fang", "address": "wang.fang@orbitlab.cn"}],
            "cc": [{"name": "", "address": "song.ke@orbitlab.cn"}], "bcc": [],
            "subject": "Case-study deck for Lumen Retail", "body": "Hi Wang Fang,\n\nThe deck will be ready Friday.",
            "date": NOW + 1, "attachments": [],
        }
        assert await box.search("in:sent to:wang.fang") == [mid]


async def test_send_email_reply_joins_the_thread_when_the_subject_matches() -> None:
    async with Mailbox() as box:
        body = await box.ok("send_email", {
            "to": ["song.ke@orbitlab.cn"], "subject": "Re: Q1 campaign summary", "body": "Attached, with Lumen.",
            "threadId": Q1, "inReplyTo": Q1_THANKS_HEADER,
        })
        assert body["threadId"] == Q1
        assert box.msg(body["id"])["inReplyTo"] == Q1_THANKS_HEADER
        thread = await box.ok("get_thread", {"threadId": Q1})
        assert [m["id"] for m in thread["messages"]] == [Q1, Q1_REPLY, Q1_THANKS, body["id"]]
        assert thread["messages"][-1]["headers"]["In-Reply-To"] == Q1_THANKS_HEADER
        other = await box.ok("send_email", {"to": ["song.ke@orbitlab.cn"], "subject": "Lunch?", "body": "x",
                                            "threadId": Q1, "inReplyTo": Q1_THANKS})  # a Gmail id works too
        assert other["threadId"] == other["id"]  # a different subject starts a new thread
        assert box.msg(other["id"])["inReplyTo"] == Q1_THANKS_HEADER


async def test_send_email_to_self_and_html() -> None:
    async with Mailbox() as box:
        body = await box.ok("send_email", {"to": ["CHEN.YU@orbitlab.cn"], "subject": "note", "mimeType": "text/html",
                                           "body": "<p>Call <b>Bright Print</b></p>"})
        assert body["labelIds"] == ["UNREAD", "SENT", "INBOX"]
        stored = box.msg(body["id"])
        assert stored["unread"] is True and stored["body"] == "Call Bright Print"
        assert stored["htmlBody"] == "<p>Call <b>Bright Print</b></p>"
        multi = await box.ok("send_email", {"to": ["a@b.cn"], "subject": "s", "body": "text part",
                                            "htmlBody": "<i>html part</i>", "mimeType": "multipart/alternative"})
        assert box.msg(multi["id"])["body"] == "text part" and box.msg(multi["id"])["htmlBody"] == "<i>html part</i>"


async def test_send_email_errors() -> None:
    async with Mailbox() as box:
        base = {"to": ["song.ke@orbitlab.cn"], "subject": "s", "body": "b"}
        await box.fail("send_email", base | {"to": "song.ke@orbitlab.cn"}, 400, "to: Input should be a valid list")
        await box.fail("send_email", {"to": ["a@b.cn"], "subject": "s"}, 400, "body: Field required")
        await box.fail("send_email", base | {"mimeType": "text/markdown"}, 400, "mimeType: Input should be")
        await box.fail("send_email", base | {"to": []}, 400, "Recipient address required")
        await box.fail("send_email", base | {"to": ["song.ke"]}, 400, "Invalid To header")
        await box.fail("send_email", base | {"bcc": ["x@@y"]}, 400, "Invalid Bcc header")
        await box.fail("send_email", base | {"mimeType": "multipart/alternative"}, 400, "htmlBody is required")
        await box.fail("send_email", base | {"threadId": MISSING}, 404, "Requested entity was not found.")
        await box.fail("send_email", base | {"threadId": "thread-1"}, 400, "Invalid thread id value")
        await box.fail("send_email", base | {"inReplyTo": "<nope@x.cn>"}, 400, "Invalid In-Reply-To header")
        await box.fail("send_email", base | {"threadId": Q1, "inReplyTo": POSTER}, 400,
                       f"In-Reply-To message {POSTER} is not in thread {Q1}")


# -- draft_email --------------------------------------------------------------------------------------
async def test_draft_email() -> None:
    async with Mailbox() as box:
        body, changes = await box.changes("draft_email", {"to": [], "subject": "Ideas for Q2", "body": "- video"})
        assert re.fullmatch(r"r\d{19}", body["id"])
        mid = body["message"]["id"]
        assert body["message"] == {"id": mid, "threadId": mid, "labelIds": ["DRAFT"]}
        assert mods(changes) == [("create", f"messages[{mid}]", ())]
        stored = box.msg(mid)
        assert stored["draftId"] == body["id"] and stored["to"] == [] and stored["unread"] is False
        reply = await box.ok("draft_email", {"to": ["zhao.min@orbitlab.cn"], "subject": "Re: Spring campaign poster v2",
                                             "body": "Looks great", "threadId": POSTER})
        assert reply["message"]["threadId"] == POSTER
        assert set(await box.search("in:drafts")) == {DRAFT, mid, reply["message"]["id"]}
        read = await box.ok("read_email", {"messageId": mid})
        assert read["draftId"] == body["id"] and read["labelIds"] == ["DRAFT"]


async def test_draft_email_errors() -> None:
    async with Mailbox() as box:
        await box.fail("draft_email", {"to": "x@y.cn", "subject": "s", "body": "b"}, 400, "to: Input should be")
        await box.fail("draft_email", {"to": [], "body": "b"}, 400, "subject: Field required")
        await box.fail("draft_email", {"to": [], "subject": "s", "body": "b", "mimeType": "rtf"}, 400, "mimeType")
        await box.fail("draft_email", {"to": [], "subject": "s", "body": "b", "cc": ["bad"]}, 400, "Invalid Cc header")
        await box.fail("draft_email", {"to": [], "subject": "s", "body": "b", "threadId": MISSING}, 404,
                       "Requested entity was not found.")


# -- read_email ---------------------------------------------------------------------------------------
async def test_read_email_returns_the_message_and_marks_it_read() -> None:
    async with Mailbox() as box:
        view, changes = await box.changes("read_email", {"messageId": POSTER})
        assert mods(changes) == [("modify", f"messages[{POSTER}]", ("unread",))]
        assert scored(changes) == []  # reading is a side effect, never collateral damage
        assert box.msg(POSTER)["unread"] is False
        assert view["labelIds"] == ["INBOX", CAMPAIGNS]
        assert view["internalDate"] == "1773044400000" and view["threadId"] == POSTER
        assert view["headers"] == {
            "From": "Zhao Min <zhao.min@orbitlab.cn>", "To": "Chen Yu <chen.yu@orbitlab.cn>",
            "Cc": "Li Minghui <li.minghui@orbitlab.cn>", "Subject": "Spring campaign poster v2",
            "Date": "Mon, 09 Mar 2026 16:20:00 +0800", "Message-ID": box.msg(POSTER)["messageIdHeader"],
        }
        assert view["body"].startswith("Hi Yu,\n\nPoster v2 is attached") and view["snippet"].endswith("…")
        assert [(a["filename"], a["mimeType"], a["size"]) for a in view["attachments"]] == [
            ("spring_poster_v2.png", "image/png", 2457600), ("spring_poster_v2_print.pdf", "application/pdf", 8912896)]
        assert all(a["attachmentId"].startswith("ANGjdJ") for a in view["attachments"])
        assert await box.unchanged("read_email", {"messageId": POSTER}) == view


async def test_read_email_errors() -> None:
    async with Mailbox() as box:
        await box.fail("read_email", {}, 400, "messageId: Field required")
        await box.fail("read_email", {"messageId": 1973}, 400, "messageId: Input should be a valid string")
        await box.fail("read_email", {"messageId": "1973B72167BFB9C6"}, 400, "Invalid id value")
        await box.fail("read_email", {"messageId": "<k9oqtomyqt06js90ovd5wwwa@orbitlab.cn>"}, 400, "Invalid id value")
        await box.fail("read_email", {"messageId": MISSING}, 404, "Requested entity was not found.")


# -- get_thread ---------------------------------------------------------------------------------------
async def test_get_thread() -> None:
    async with Mailbox() as box:
        thread = await box.unchanged("get_thread", {"threadId": Q1})
        assert thread["id"] == Q1
        assert [m["id"] for m in thread["messages"]] == [Q1, Q1_REPLY, Q1_THANKS]
        assert [m["headers"]["From"] for m in thread["messages"]] == [
            "Song Ke <song.ke@orbitlab.cn>", "Chen Yu <chen.yu@orbitlab.cn>", "Song Ke <song.ke@orbitlab.cn>"]
        assert thread["messages"][2]["headers"]["In-Reply-To"] == box.msg(Q1_REPLY)["messageIdHeader"]
        await box.ok("modify_email", {"messageId": Q1_THANKS, "addLabelIds": ["UNREAD"]})
        _, changes = await box.changes("get_thread", {"threadId": Q1})
        assert mods(changes) == [("modify", f"messages[{Q1_THANKS}]", ("unread",))] and scored(changes) == []


async def test_get_thread_errors() -> None:
    async with Mailbox() as box:
        await box.fail("get_thread", {}, 400, "threadId: Field required")
        await box.fail("get_thread", {"threadId": ["x"]}, 400, "threadId: Input should be a valid string")
        await box.fail("get_thread", {"threadId": "q1"}, 400, "Invalid id value")
        await box.fail("get_thread", {"threadId": MISSING}, 404, "Requested entity was not found.")


# -- search_emails ------------------------------------------------------------------------------------
async def test_search_emails_gmail_syntax() -> None:
    async with Mailbox() as box:
        page = await box.unchanged("search_emails", {"query": "is:unread"})
        assert [m["id"] for m in page["messages"]] == [PRINT, POSTER, LUMEN, COURSERA]  # newest first, no spam
        assert page["resultSizeEstimate"] == 4 and "nextPageToken" not in page
        top = dict(page["messages"][0])
        assert top.pop("snippet").startswith("Hello, The proof for order BP-88213")
        assert top == {
            "id": PRINT, "threadId": PRINT, "labelIds": ["UNREAD", "INBOX", VENDORS],
            "from": '"Bright Print Co." <orders@brightprint.cn>', "to": "Chen Yu <chen.yu@orbitlab.cn>",
            "subject": "Print proof for A1 posters – approval needed", "date": "Mon, 09 Mar 2026 17:55:00 +0800",
        }
        assert await box.search("label:vendors") == [PRINT, QUOTE]
        assert await box.search("label:campaigns-spring-2026 has:attachment") == [POSTER, LAUNCH_POST, METRICS]
        assert await box.search("from:song.ke is:starred") == [Q1]
        assert await box.search('subject:"Q1 campaign"') == [DRAFT, Q1_THANKS, Q1_REPLY, Q1]
        assert await box.search("in:sent") == [Q1_REPLY]
        assert await box.search("filename:pdf -label:vendors") == [POSTER]
        assert await box.search("Lumen OR Xiaohongshu") == [DRAFT, LUMEN, Q1_THANKS, METRICS]
        assert await box.search("in:spam") == [SPAM] and await box.search("in:trash") == [TRASH]
        everything = await box.unchanged("search_emails", {"query": "in:anywhere"})
        assert everything["resultSizeEstimate"] == 23
        assert (await box.unchanged("search_emails", {"query": ""}))["resultSizeEstimate"] == 21
        assert await box.unchanged("search_emails", {"query": "from:nobody@nowhere.cn"}) == {"resultSizeEstimate": 0}


async def test_search_emails_dates_are_pacific_midnight() -> None:
    async with Mailbox() as box:
        # after:2026/03/09 is 9 Mar 00:00 in Los Angeles (PDT), 15:00 in Shanghai: Lumen (11:05) is before it
        assert await box.search("after:2026/03/09") == [DRAFT, PRINT, POSTER]
        assert await box.search("after:1772985600") == [DRAFT, PRINT, POSTER, LUMEN]  # epoch seconds are exact
        assert await box.search("before:2026/02/22") == ["19a2f090ddd8df79"]
        assert await box.search("newer_than:1d") == [DRAFT, PRINT, POSTER, LUMEN]


async def test_search_emails_pages() -> None:
    async with Mailbox() as box:
        first = await box.ok("search_emails", {"query": "in:inbox", "maxResults": 10})
        assert len(first["messages"]) == 10 and first["resultSizeEstimate"] == 19 and first["nextPageToken"]
        second = await box.ok("search_emails", {"query": "in:inbox", "maxResults": 10,
                                                "pageToken": first["nextPageToken"]})
        assert len(second["messages"]) == 9 and "nextPageToken" not in second
        assert not {m["id"] for m in first["messages"]} & {m["id"] for m in second["messages"]}


async def test_search_emails_errors() -> None:
    async with Mailbox() as box:
        await box.fail("search_emails", {}, 400, "query: Field required")
        await box.fail("search_emails", {"query": "x", "maxResults": "ten"}, 400, "maxResults: Input should be a valid")
        await box.fail("search_emails", {"query": "x", "maxResults": 501}, 400, "less than or equal to 500")
        await box.fail("search_emails", {"query": "x", "maxResults": 0}, 400, "greater than or equal to 1")
        await box.fail("search_emails", {"query": "after:2026/02/30"}, 400, "Invalid query: unreadable date")
        await box.fail("search_emails", {"query": "newer_than:soon"}, 400, "Invalid query: newer_than")
        await box.fail("search_emails", {"query": "x", "pageToken": "garbage"}, 400, "invalid page_token")


# -- modify_email -------------------------------------------------------------------------------------
async def test_modify_email_archives_stars_and_labels() -> None:
    async with Mailbox() as box:
        body, changes = await box.changes("modify_email", {"messageId": POSTER, "addLabelIds": ["STARRED", VENDORS],
                                                           "removeLabelIds": ["INBOX"]})
        assert body == {"id": POSTER, "threadId": POSTER, "labelIds": ["UNREAD", CAMPAIGNS, "STARRED", VENDORS]}
        assert mods(changes) == [("modify", f"messages[{POSTER}]", ("labelIds",))]
        assert await box.search("label:vendors is:starred") == [POSTER]
        body, changes = await box.changes("modify_email", {"messageId": POSTER, "removeLabelIds": ["UNREAD"]})
        assert body["labelIds"] == [CAMPAIGNS, "STARRED", VENDORS]
        assert mods(changes) == [("modify", f"messages[{POSTER}]", ("unread",))]
        _, changes = await box.changes("modify_email", {"messageId": Q1, "addLabelIds": ["UNREAD", "TRASH"]})
        assert mods(changes) == [("modify", f"messages[{Q1}]", ("labelIds", "unread"))]
        assert scored(changes) != []  # labelIds changed too: not a side effect
        await box.unchanged("modify_email", {"messageId": QUOTE, "addLabelIds": [VENDORS]})  # already there


async def test_modify_email_errors() -> None:
    async with Mailbox() as box:
        await box.fail("modify_email", {"addLabelIds": ["STARRED"]}, 400, "messageId: Field required")
        await box.fail("modify_email", {"messageId": POSTER, "addLabelIds": "STARRED"}, 400,
                       "addLabelIds: Input should be a valid list")
        await box.fail("modify_email", {"messageId": POSTER}, 400, "No label add or removes specified")
        await box.fail("modify_email", {"messageId": POSTER, "addLabelIds": ["Vendors"]}, 400, "Invalid label: Vendors")
        await box.fail("modify_email", {"messageId": POSTER, "addLabelIds": ["SENT"]}, 400, "Invalid label: SENT")
        await box.fail("modify_email", {"messageId": POSTER, "addLabelIds": ["STARRED"],
                                        "removeLabelIds": ["STARRED"]}, 400, "cannot be both added and removed")
        await box.fail("modify_email", {"messageId": "poster", "addLabelIds": ["STARRED"]}, 400, "Invalid id value")
        await box.fail("modify_email", {"messageId": MISSING, "addLabelIds": ["STARRED"]}, 404,
                       "Requested entity was not found.")


# -- batch_modify_emails ------------------------------------------------------------------------------
async def test_batch_modify_emails() -> None:
    async with Mailbox() as box:
        body, changes = await box.changes("batch_modify_emails", {
            "messageIds": [PRINT, QUOTE, PRINT, POSTER], "addLabelIds": [RECEIPTS],
            "removeLabelIds": ["INBOX", "UNREAD"], "batchSize": 2,
        })
        assert body == {"messageIds": [PRINT, QUOTE, POSTER], "modifiedCount": 3, "batches": 2}
        assert mods(changes) == sorted([("modify", f"messages[{PRINT}]", ("labelIds", "unread")),
                                        ("modify", f"messages[{QUOTE}]", ("labelIds",)),
                                        ("modify", f"messages[{POSTER}]", ("labelIds", "unread"))])
        assert box.msg(QUOTE)["labelIds"] == [VENDORS, RECEIPTS]
        assert await box.search("label:receipts") == [PRINT, POSTER, QUOTE, "19085ef8bcaa5e3f"]


async def test_batch_modify_emails_errors() -> None:
    async with Mailbox() as box:
        await box.fail("batch_modify_emails", {"addLabelIds": ["STARRED"]}, 400, "messageIds: Field required")
        await box.fail("batch_modify_emails", {"messageIds": POSTER, "addLabelIds": ["STARRED"]}, 400,
                       "messageIds: Input should be a valid list")
        await box.fail("batch_modify_emails", {"messageIds": [], "addLabelIds": ["STARRED"]}, 400,
                       "messageIds: List should have at least 1 item")
        await box.fail("batch_modify_emails", {"messageIds": [POSTER], "addLabelIds": ["STARRED"], "batchSize": 0},
                       400, "batchSize: Input should be greater than or equal to 1")
        await box.fail("batch_modify_emails", {"messageIds": [POSTER, MISSING], "addLabelIds": ["STARRED"]}, 404,
                       "Requested entity was not found.")  # nothing changed, POSTER included
        await box.fail("batch_modify_emails", {"messageIds": [POSTER], "addLabelIds": ["Label_9"]}, 400,
                       "Invalid label: Label_9")


# -- delete_email -------------------------------------------------------------------------------------
async def test_delete_email_is_permanent() -> None:
    async with Mailbox() as box:
        body, changes = await box.changes("delete_email", {"messageId": Q1})
        assert body == {"id": Q1, "threadId": Q1, "deleted": True}
        assert mods(changes) == [("delete", f"messages[{Q1}]", ())]
        thread = await box.ok("get_thread", {"threadId": Q1})  # the rest of the thread keeps its id
        assert [m["id"] for m in thread["messages"]] == [Q1_REPLY, Q1_THANKS]
        assert await box.search("in:anywhere is:starred") == []
        await box.fail("delete_email", {"messageId": Q1}, 404, "Requested entity was not found.")


async def test_delete_email_errors() -> None:
    async with Mailbox() as box:
        await box.fail("delete_email", {}, 400, "messageId: Field required")
        await box.fail("delete_email", {"messageId": None}, 400, "messageId: Input should be a valid string")
        await box.fail("delete_email", {"messageId": "19"}, 400, "Invalid id value")
        await box.fail("delete_email", {"messageId": MISSING}, 404, "Requested entity was not found.")


# -- list_email_labels --------------------------------------------------------------------------------
async def test_list_email_labels() -> None:
    async with Mailbox() as box:
        labels = (await box.unchanged("list_email_labels"))["labels"]
        ids = [lb["id"] for lb in labels]
        assert ids[:8] == ["INBOX", "SENT", "DRAFT", "SPAM", "TRASH", "STARRED", "IMPORTANT", "UNREAD"]
        assert ids[-3:] == [CAMPAIGNS, RECEIPTS, VENDORS]
        by_id = {lb["id"]: lb for lb in labels}
        assert by_id[CAMPAIGNS] == {"id": CAMPAIGNS, "name": "Campaigns/Spring 2026", "type": "user",
                                    "messageListVisibility": "show", "labelListVisibility": "labelShow",
                                    "messagesTotal": 4, "messagesUnread": 1}
        assert (by_id["INBOX"]["messagesTotal"], by_id["INBOX"]["messagesUnread"]) == (19, 4)
        assert (by_id["UNREAD"]["messagesTotal"], by_id["SPAM"]["messagesUnread"]) == (5, 1)
        assert by_id["INBOX"]["type"] == "system"
        await box.fail("list_email_labels", {"type": "user"}, 400, "Invalid JSON payload received.")


# -- create_label -------------------------------------------------------------------------------------
async def test_create_label() -> None:
    async with Mailbox() as box:
        body, changes = await box.changes("create_label", {"name": "  Travel ", "labelListVisibility": "labelHide"})
        assert body == {"id": "Label_4", "name": "Travel", "type": "user", "messageListVisibility": "show",
                        "labelListVisibility": "labelHide", "messagesTotal": 0, "messagesUnread": 0}
        assert mods(changes) == [("create", "labels[Label_4]", ())]
        nested = await box.ok("create_label", {"name": "Campaigns/Summer 2026", "messageListVisibility": "hide"})
        assert nested["id"] == "Label_5"
        await box.ok("modify_email", {"messageId": LUMEN, "addLabelIds": ["Label_4"]})
        assert await box.search("label:travel") == [LUMEN]


async def test_create_label_errors() -> None:
    async with Mailbox() as box:
        await box.fail("create_label", {}, 400, "name: Field required")
        await box.fail("create_label", {"name": 5}, 400, "name: Input should be a valid string")
        await box.fail("create_label", {"name": ""}, 400, "name: String should have at least 1 character")
        await box.fail("create_label", {"name": "x" * 226}, 400, "name: String should have at most 225 characters")
        await box.fail("create_label", {"name": "x", "labelListVisibility": "hidden"}, 400, "labelListVisibility")
        await box.fail("create_label", {"name": "a//b"}, 400, "Invalid label name")
        await box.fail("create_label", {"name": "vendors"}, 409, "Label name exists or conflicts")
        await box.fail("create_label", {"name": "Inbox"}, 409, "Label name exists or conflicts")


# -- update_label -------------------------------------------------------------------------------------
async def test_update_label() -> None:
    async with Mailbox() as box:
        body, changes = await box.changes("update_label", {"id": VENDORS, "name": "Suppliers"})
        assert body["name"] == "Suppliers" and body["messagesTotal"] == 2
        assert mods(changes) == [("modify", f"labels[{VENDORS}]", ("name",))]
        assert await box.search("label:suppliers") == [PRINT, QUOTE] and await box.search("label:vendors") == []
        body = await box.ok("update_label", {"id": VENDORS, "name": "suppliers", "messageListVisibility": "hide"})
        assert body["name"] == "suppliers" and body["messageListVisibility"] == "hide"  # own name: no conflict


async def test_update_label_errors() -> None:
    async with Mailbox() as box:
        await box.fail("update_label", {"name": "x"}, 400, "id: Field required")
        await box.fail("update_label", {"id": VENDORS, "name": 1}, 400, "name: Input should be a valid string")
        await box.fail("update_label", {"id": VENDORS, "labelListVisibility": "show"}, 400, "labelListVisibility")
        await box.fail("update_label", {"id": VENDORS}, 400, "No label fields to update")
        await box.fail("update_label", {"id": "INBOX", "name": "Main"}, 400, "Invalid update request")
        await box.fail("update_label", {"id": "Label_99", "name": "x"}, 404, "Requested entity was not found.")
        await box.fail("update_label", {"id": VENDORS, "name": "Receipts"}, 409, "Label name exists or conflicts")


# -- another persona ----------------------------------------------------------------------------------
async def test_maya_patel_work_mailbox() -> None:
    clock = TaskClock(now=datetime(2026, 3, 10, 9, 30), timezone="Asia/Singapore")
    async with Mailbox("maya_patel", clock) as box:
        [handover] = await box.search("from:ravi dashboard")
        view = await box.ok("read_email", {"messageId": handover})
        assert "https://metabase.lumipay.sg/dashboard/412-paylater-v2-launch" in view["body"]
        [ask] = await box.search("from:daniel.tan is:unread")
        asked = await box.ok("read_email", {"messageId": ask})
        reply = await box.ok("send_email", {
            "to": [asked["headers"]["From"]], "subject": "Re: " + asked["headers"]["Subject"],
            "body": "https://metabase.lumipay.sg/dashboard/412-paylater-v2-launch", "threadId": asked["threadId"],
            "inReplyTo": asked["headers"]["Message-ID"]})
        assert reply["threadId"] == ask
        assert box.msg(reply["id"])["to"] == [{"name": "Daniel Tan", "address": "daniel.tan@lumipay.sg"}]
        sent = await box.unchanged("search_emails", {"query": "subject:MAS in:sent"})
        [summary] = sent["messages"]
        thread = await box.ok("get_thread", {"threadId": summary["threadId"]})
        assert [m["headers"]["From"] for m in thread["messages"]] == [
            "Hannah Koh <hannah.koh@lumipay.sg>", "Maya Patel <maya.patel@lumipay.sg>"]
        assert thread["messages"][0]["id"] == summary["threadId"] != summary["id"]
