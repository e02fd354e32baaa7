"""The Slack app through the real MCP path: every tool's success path and its four error classes.

Each call goes through ``mcp.Client`` against the app's ``MCPServer``; writes are checked against
``env.tree.data`` and an entity-level diff, failures against Slack's ``error`` string and an
unchanged state hash.
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

import pytest

from app_harness import AppSession
from mcp_persona.apps import get_app
from mcp_persona.apps.base import ToolFailure
from mcp_persona.apps.slack.tools import parse_reminder_time

pytestmark = pytest.mark.anyio


APP = get_app("slack")
SH = ZoneInfo("Asia/Shanghai")
NOW = 1773106200  # app_harness.CLOCK (Tuesday 2026-03-10, 09:30 in Shanghai) as unix seconds

TOOLS = [
    "slack_list_channels",
    "slack_post_message",
    "slack_reply_to_thread",
    "slack_add_reaction",
    "slack_get_channel_history",
    "slack_get_thread_replies",
    "slack_get_users",
    "slack_get_user_profile",
    "slack_open_dm",
    "slack_create_reminder",
    "slack_list_reminders",
    "slack_search_messages",
]

# -- chen_yu's workspace (Orbit Lab) -----------------------------------------------------------------
_DATA = APP.load_context("chen_yu")
U = {u["name"]: u["id"] for u in _DATA["users"].values()}  # username -> id
C = {c["name"]: c["id"] for c in _DATA["channels"].values() if c.get("name")}  # channel name -> id
DM = {_DATA["users"][c["user"]]["name"]: c["id"] for c in _DATA["channels"].values() if c.get("is_im")}
ME = U["chen.yu"]
SONG, ZHAO, LI, WANG, LIU, ZHOU, SUN = (U[n] for n in ("song.ke", "zhao.min", "li.minghui", "wang.fang", "liu.yang",
                                                       "zhou.jie", "sun.lei"))
GCAL = U["google_calendar"]
MISSING_USER = "U" + "0" * 10
MISSING_CHANNEL = "C" + "0" * 10
PUBLIC = ["general", "spring-campaign-2026", "random", "design-review", "marketing"]  # by creation time


def ts_of(channel: str, prefix: str) -> str:
    """The ts of the top-level message of ``channel`` whose text starts with ``prefix``."""
    msgs = _DATA["channels"][C.get(channel) or DM[channel]]["messages"].values()
    [hit] = [m["ts"] for m in msgs if m["text"].startswith(prefix)]
    return hit


def reply_ts(channel: str, parent: str, prefix: str) -> str:
    replies = _DATA["channels"][C[channel]]["messages"][parent]["replies"].values()
    [hit] = [r["ts"] for r in replies if r["text"].startswith(prefix)]
    return hit


MKT_PRIORITIES = ts_of("marketing", "Q1 priorities")
MKT_STATUS_0302 = ts_of("marketing", "Weekly status (spring campaign): poster v1")
MKT_DASHBOARD = ts_of("marketing", "Dashboard update")
MKT_STATUS_0309 = ts_of("marketing", "Weekly status (spring campaign): poster v2")
DRAFT_COPY = ts_of("spring-campaign-2026", "Draft copy")
KICKOFF = ts_of("spring-campaign-2026", "Kickoff notes")
POSTER_V2 = ts_of("spring-campaign-2026", "Poster v2 is ready")
OPTION_B = reply_ts("spring-campaign-2026", DRAFT_COPY, "Option B")
LANDING_V3 = ts_of("design-review", "Landing page v3")
AUTUMN_FINAL = ts_of("autumn-campaign-2025", "Final report")


class Slack(AppSession):
    """One episode of the Slack app and a connected client."""

    app = APP
    json_results = True

    async def ok(self, tool: str, args: dict[str, Any] | None = None) -> dict[str, Any]:
        body = await super().ok(tool, args)
        assert body["ok"] is True, body
        return body

    async def fail(self, tool: str, args: dict[str, Any] | None, error: str, fragment: str = "") -> dict[str, Any]:
        """A rejected call: the error flag, Slack's error string, ``fragment`` in the detail, the state untouched."""
        body = await self.rejected(tool, args)
        assert body["ok"] is False and body["error"] == error, body
        if fragment:
            assert any(fragment in m for m in body["response_metadata"]["messages"]), body
        else:
            assert set(body) == {"ok", "error"}, body
        return body


def local(month: int, day: int, hour: int, minute: int = 0) -> int:
    return int(datetime(2026, month, day, hour, minute, tzinfo=SH).timestamp())


# -- the server ---------------------------------------------------------------------------------------
async def test_server_lists_exactly_the_twelve_tools() -> None:
    async with Slack() as s:
        listed = await s.client.list_tools()
    assert [t.name for t in listed.tools] == TOOLS
    assert APP.tool_names == TOOLS


async def test_unknown_tool_and_unknown_argument() -> None:
    async with Slack() as s:
        is_error, body = await s.raw("slack_delete_channel", {})
        assert is_error and body == {"ok": False, "error": "unknown_method"}
        await s.fail("slack_list_channels", {"types": "private_channel"}, "invalid_arguments", "unknown field: types")


async def test_every_persona_has_a_workspace_of_their_own() -> None:
    for persona, username, channel in (("lin_wei", "lin.wei", "paper-colm2026"),
                                       ("maya_patel", "maya.patel", "paylater-v2")):
        async with Slack(persona) as s:
            me = s.data["users"][s.data["me"]]
            assert me["name"] == username and me["deleted"] is False
            listed = await s.ok("slack_list_channels")
            names = {c["name"]: c for c in listed["channels"]}
            assert names[channel]["is_member"] is True
            history = await s.ok("slack_get_channel_history", {"channel_id": names[channel]["id"], "limit": 50})
            assert len(history["messages"]) >= 4


# -- slack_list_channels ------------------------------------------------------------------------------
async def test_list_channels_public_unarchived_only() -> None:
    async with Slack() as s:
        body = await s.ok("slack_list_channels")
        assert [c["name"] for c in body["channels"]] == PUBLIC
        assert body["response_metadata"] == {"next_cursor": ""}
        by = {c["name"]: c for c in body["channels"]}
        assert by["design-review"]["is_member"] is False and by["marketing"]["is_member"] is True
        assert by["marketing"]["num_members"] == 6 and by["general"]["num_members"] == 7
        assert by["general"]["is_general"] is True and by["marketing"]["is_private"] is False
        assert by["marketing"]["topic"]["value"] == "Weekly sync: Tuesdays 14:00, Room 3F-Aurora"
        assert by["spring-campaign-2026"]["creator"] == ME
        assert all("members" not in c and "messages" not in c for c in body["channels"])


async def test_list_channels_pages_with_next_cursor() -> None:
    async with Slack() as s:
        first = await s.ok("slack_list_channels", {"limit": 2})
        assert [c["name"] for c in first["channels"]] == PUBLIC[:2]
        cursor = first["response_metadata"]["next_cursor"]
        assert cursor
        second = await s.ok("slack_list_channels", {"limit": 2, "cursor": cursor})
        assert [c["name"] for c in second["channels"]] == PUBLIC[2:4]
        third = await s.ok("slack_list_channels", {"limit": 2, "cursor": second["response_metadata"]["next_cursor"]})
        assert [c["name"] for c in third["channels"]] == PUBLIC[4:]
        assert third["response_metadata"]["next_cursor"] == ""
        clamped = await s.ok("slack_list_channels", {"limit": 1000})  # the reference server sends min(limit, 200)
        assert len(clamped["channels"]) == 5


async def test_list_channels_errors() -> None:
    async with Slack() as s:
        await s.fail("slack_list_channels", {"limit": "ten"}, "invalid_arguments", "invalid type for field limit")
        await s.fail("slack_list_channels", {"cursor": 5}, "invalid_arguments", "invalid type for field cursor")
        await s.fail("slack_list_channels", {"limit": 0}, "invalid_arguments", "invalid value for field limit")
        await s.fail("slack_list_channels", {"limit": 1001}, "invalid_arguments", "invalid value for field limit")
        await s.fail("slack_list_channels", {"cursor": "not-a-cursor"}, "invalid_cursor")


# -- slack_post_message -------------------------------------------------------------------------------
async def test_post_message_creates_exactly_one_message() -> None:
    async with Slack() as s:
        body, changes = await s.changes("slack_post_message",
                                        {"channel_id": C["marketing"], "text": "Weekly sync moved to 15:00 today."})
        ts = body["ts"]
        assert re.fullmatch(rf"{NOW + 1}\.\d{{6}}", ts)
        assert body["channel"] == C["marketing"]
        assert body["message"] == {"type": "message", "user": ME, "text": "Weekly sync moved to 15:00 today.",
                                   "ts": ts, "team": s.data["team"]["id"]}
        [change] = changes
        assert (change.op, change.entity_type, change.path) == ("create", "message",
                                                                f"channels[{C['marketing']}].messages[{ts}]")
        assert s.data["channels"][C["marketing"]]["messages"][ts] == {
            "ts": ts, "type": "message", "user": ME, "text": "Weekly sync moved to 15:00 today."}
        history = await s.ok("slack_get_channel_history", {"channel_id": C["marketing"], "limit": 1})
        assert history["messages"][0]["ts"] == ts


async def test_post_message_to_a_dm_and_a_private_channel() -> None:
    async with Slack() as s:
        dm = await s.ok("slack_post_message", {"channel_id": DM["song.ke"], "text": "Summary is on its way."})
        assert dm["ts"] in s.data["channels"][DM["song.ke"]]["messages"]
        leads = await s.ok("slack_post_message", {"channel_id": C["marketing-leads"], "text": "Outline drafted."})
        assert s.data["channels"][C["marketing-leads"]]["messages"][leads["ts"]]["user"] == ME
        assert dm["ts"] != leads["ts"]


async def test_post_message_errors() -> None:
    async with Slack() as s:
        await s.fail("slack_post_message", {"channel_id": C["marketing"]}, "invalid_arguments",
                     "missing required field: text")
        await s.fail("slack_post_message", {"text": "hi"}, "invalid_arguments", "missing required field: channel_id")
        await s.fail("slack_post_message", {"channel_id": 42, "text": "hi"}, "invalid_arguments",
                     "invalid type for field channel_id")
        await s.fail("slack_post_message", {"channel_id": C["marketing"], "text": "   "}, "no_text")
        await s.fail("slack_post_message", {"channel_id": C["marketing"], "text": "x" * 40001}, "msg_too_long")
        await s.fail("slack_post_message", {"channel_id": MISSING_CHANNEL, "text": "hi"}, "channel_not_found")
        await s.fail("slack_post_message", {"channel_id": C["design-review"], "text": "hi"}, "not_in_channel")
        await s.fail("slack_post_message", {"channel_id": C["autumn-campaign-2025"], "text": "hi"}, "is_archived")
        await s.fail("slack_post_message", {"channel_id": C["finance-approvals"], "text": "hi"}, "channel_not_found")
        await s.fail("slack_post_message", {"channel_id": DM["zhou.jie"], "text": "hi"}, "is_archived")
        await s.ok("slack_post_message", {"channel_id": C["marketing"], "text": "x" * 40000})


# -- slack_reply_to_thread ----------------------------------------------------------------------------
async def test_reply_to_thread_adds_a_reply_under_the_parent() -> None:
    async with Slack() as s:
        args = {"channel_id": C["spring-campaign-2026"], "thread_ts": POSTER_V2, "text": "Photo version it is."}
        body, changes = await s.changes("slack_reply_to_thread", args)
        ts = body["ts"]
        assert body["message"] == {"type": "message", "user": ME, "text": "Photo version it is.", "ts": ts,
                                   "team": s.data["team"]["id"], "thread_ts": POSTER_V2, "parent_user_id": ZHAO}
        [change] = changes
        path = f"channels[{C['spring-campaign-2026']}].messages[{POSTER_V2}].replies[{ts}]"
        assert (change.op, change.entity_type, change.path) == ("create", "reply", path)
        parent = s.data["channels"][C["spring-campaign-2026"]]["messages"][POSTER_V2]
        assert parent["replies"][ts] == {"ts": ts, "type": "message", "user": ME, "text": "Photo version it is."}
        thread = await s.ok("slack_get_thread_replies", {"channel_id": C["spring-campaign-2026"],
                                                         "thread_ts": POSTER_V2})
        assert thread["messages"][0]["ts"] == POSTER_V2
        assert thread["messages"][-1]["ts"] == ts and len(thread["messages"]) == 4
        assert thread["messages"][0]["reply_count"] == 3 and thread["messages"][0]["latest_reply"] == ts


async def test_reply_to_thread_starts_a_thread_on_a_plain_message() -> None:
    async with Slack() as s:
        body = await s.ok("slack_reply_to_thread", {"channel_id": C["spring-campaign-2026"], "thread_ts": KICKOFF,
                                                    "text": "Tasks are in Asana now."})
        history = await s.ok("slack_get_channel_history", {"channel_id": C["spring-campaign-2026"], "limit": 10})
        kickoff = next(m for m in history["messages"] if m["ts"] == KICKOFF)
        assert kickoff["reply_count"] == 1 and kickoff["reply_users"] == [ME] and kickoff["latest_reply"] == body["ts"]
        assert all(m["ts"] != body["ts"] for m in history["messages"])  # replies stay out of the history


async def test_reply_to_thread_errors() -> None:
    async with Slack() as s:
        ch = C["spring-campaign-2026"]
        await s.fail("slack_reply_to_thread", {"channel_id": ch, "text": "hi"}, "invalid_arguments",
                     "missing required field: thread_ts")
        await s.fail("slack_reply_to_thread", {"channel_id": ch, "thread_ts": 1772515080.488139, "text": "hi"},
                     "invalid_arguments", "invalid type for field thread_ts")
        await s.fail("slack_reply_to_thread", {"channel_id": ch, "thread_ts": DRAFT_COPY.replace(".", ""),
                                               "text": "hi"}, "invalid_thread_ts")
        await s.fail("slack_reply_to_thread", {"channel_id": ch, "thread_ts": "1772515080.000001", "text": "hi"},
                     "thread_not_found")
        await s.fail("slack_reply_to_thread", {"channel_id": ch, "thread_ts": OPTION_B, "text": "hi"},
                     "thread_not_found")  # the ts of a reply, not of the thread's parent
        await s.fail("slack_reply_to_thread", {"channel_id": C["marketing"], "thread_ts": DRAFT_COPY, "text": "hi"},
                     "thread_not_found")  # the parent lives in another channel
        await s.fail("slack_reply_to_thread", {"channel_id": ch, "thread_ts": DRAFT_COPY, "text": ""}, "no_text")
        await s.fail("slack_reply_to_thread", {"channel_id": ch, "thread_ts": DRAFT_COPY, "text": "y" * 40001},
                     "msg_too_long")
        await s.fail("slack_reply_to_thread", {"channel_id": C["design-review"], "thread_ts": LANDING_V3,
                                               "text": "hi"}, "not_in_channel")
        await s.fail("slack_reply_to_thread", {"channel_id": C["autumn-campaign-2025"], "thread_ts": AUTUMN_FINAL,
                                               "text": "hi"}, "is_archived")


# -- slack_add_reaction -------------------------------------------------------------------------------
async def test_add_reaction_new_existing_and_on_a_reply() -> None:
    async with Slack() as s:
        ch = C["marketing"]
        body, changes = await s.changes("slack_add_reaction", {"channel_id": ch, "timestamp": MKT_DASHBOARD,
                                                               "reaction": "tada"})
        assert body == {"ok": True}
        [change] = changes
        assert (change.op, change.path, change.fields) == ("modify", f"channels[{ch}].messages[{MKT_DASHBOARD}]",
                                                           ("reactions",))
        assert s.data["channels"][ch]["messages"][MKT_DASHBOARD]["reactions"] == [
            {"name": "chart_with_upwards_trend", "users": [ME, LI, SONG], "count": 3},
            {"name": "tada", "users": [ME], "count": 1},
        ]
        # "thumbsup" is Slack's alias of "+1": it joins the existing +1 reaction
        await s.ok("slack_add_reaction", {"channel_id": ch, "timestamp": MKT_PRIORITIES, "reaction": "thumbsup"})
        assert s.data["channels"][ch]["messages"][MKT_PRIORITIES]["reactions"][0] == {
            "name": "+1", "users": [WANG, ME], "count": 2}
        # a thread reply, a custom emoji and a skin tone
        reply = reply_ts("marketing", MKT_STATUS_0309, "Lumen confirmed")
        await s.ok("slack_add_reaction", {"channel_id": ch, "timestamp": reply, "reaction": "lumen"})
        await s.ok("slack_add_reaction", {"channel_id": ch, "timestamp": reply, "reaction": "pray::skin-tone-3"})
        stored = s.data["channels"][ch]["messages"][MKT_STATUS_0309]["replies"][reply]["reactions"]
        assert stored == [{"name": "lumen", "users": [ME], "count": 1},
                          {"name": "pray::skin-tone-3", "users": [ME], "count": 1}]
        history = await s.ok("slack_get_channel_history", {"channel_id": ch, "limit": 10})
        dash = next(m for m in history["messages"] if m["ts"] == MKT_DASHBOARD)
        assert [r["name"] for r in dash["reactions"]] == ["chart_with_upwards_trend", "tada"]


async def test_add_reaction_errors() -> None:
    async with Slack() as s:
        ch = C["marketing"]
        await s.fail("slack_add_reaction", {"channel_id": ch, "timestamp": MKT_DASHBOARD}, "invalid_arguments",
                     "missing required field: reaction")
        await s.fail("slack_add_reaction", {"channel_id": ch, "timestamp": MKT_DASHBOARD, "reaction": ["tada"]},
                     "invalid_arguments", "invalid type for field reaction")
        await s.fail("slack_add_reaction", {"channel_id": ch, "timestamp": "yesterday", "reaction": "tada"},
                     "bad_timestamp")
        await s.fail("slack_add_reaction", {"channel_id": ch, "timestamp": "1772602560.000000", "reaction": "tada"},
                     "message_not_found")
        await s.fail("slack_add_reaction", {"channel_id": ch, "timestamp": MKT_DASHBOARD, "reaction": ":tada:"},
                     "invalid_name")
        await s.fail("slack_add_reaction", {"channel_id": ch, "timestamp": MKT_DASHBOARD, "reaction": "tadaaa"},
                     "invalid_name")
        await s.fail("slack_add_reaction", {"channel_id": ch, "timestamp": MKT_DASHBOARD,
                                            "reaction": "chart_with_upwards_trend"}, "already_reacted")
        await s.fail("slack_add_reaction", {"channel_id": ch, "timestamp": MKT_PRIORITIES, "reaction": "muscle"},
                     "already_reacted")
        await s.fail("slack_add_reaction", {"channel_id": C["design-review"], "timestamp": LANDING_V3,
                                            "reaction": "eyes"}, "not_in_channel")
        await s.fail("slack_add_reaction", {"channel_id": MISSING_CHANNEL, "timestamp": MKT_DASHBOARD,
                                            "reaction": "eyes"}, "channel_not_found")


# -- slack_get_channel_history ------------------------------------------------------------------------
async def test_channel_history_newest_first_with_thread_summaries() -> None:
    async with Slack() as s:
        body = await s.ok("slack_get_channel_history", {"channel_id": C["marketing"]})
        assert [m["ts"] for m in body["messages"]] == [MKT_STATUS_0309, MKT_DASHBOARD, MKT_STATUS_0302,
                                                       MKT_PRIORITIES]
        assert body["has_more"] is False
        latest = body["messages"][0]
        assert latest["user"] == ME and latest["text"].startswith("Weekly status (spring campaign): poster v2")
        assert f"<@{WANG}>" in latest["text"]  # mentions carry user ids
        assert latest["reply_count"] == 1 and latest["reply_users"] == [WANG] and latest["thread_ts"] == latest["ts"]
        first = body["messages"][-1]
        assert first["reply_count"] == 2 and first["reply_users"] == [ME, LI] and first["reply_users_count"] == 2
        two = await s.ok("slack_get_channel_history", {"channel_id": C["marketing"], "limit": 2})
        assert [m["ts"] for m in two["messages"]] == [MKT_STATUS_0309, MKT_DASHBOARD] and two["has_more"] is True


async def test_channel_history_of_public_non_member_channel_and_dm() -> None:
    async with Slack() as s:
        design = await s.ok("slack_get_channel_history", {"channel_id": C["design-review"]})
        assert [m["user"] for m in design["messages"]] == [SUN, ZHAO]
        dm = await s.ok("slack_get_channel_history", {"channel_id": DM["song.ke"]})
        assert [m["user"] for m in dm["messages"]] == [SONG, ME, SONG]
        assert dm["messages"][0]["text"].startswith("Also, please add the newsletter numbers")
        archived = await s.ok("slack_get_channel_history", {"channel_id": C["autumn-campaign-2025"]})
        assert [m["ts"] for m in archived["messages"]] == [AUTUMN_FINAL]


async def test_channel_history_errors() -> None:
    async with Slack() as s:
        await s.fail("slack_get_channel_history", {}, "invalid_arguments", "missing required field: channel_id")
        await s.fail("slack_get_channel_history", {"channel_id": C["marketing"], "limit": "all"},
                     "invalid_arguments", "invalid type for field limit")
        await s.fail("slack_get_channel_history", {"channel_id": C["marketing"], "limit": 0}, "invalid_arguments",
                     "invalid value for field limit")
        await s.fail("slack_get_channel_history", {"channel_id": MISSING_CHANNEL}, "channel_not_found")
        await s.fail("slack_get_channel_history", {"channel_id": C["finance-approvals"]}, "channel_not_found")
        await s.fail("slack_get_channel_history", {"channel_id": "marketing"}, "channel_not_found")  # names are no ids


# -- slack_get_thread_replies -------------------------------------------------------------------------
async def test_thread_replies_parent_first_then_oldest_first() -> None:
    async with Slack() as s:
        body = await s.ok("slack_get_thread_replies", {"channel_id": C["spring-campaign-2026"],
                                                       "thread_ts": DRAFT_COPY})
        msgs = body["messages"]
        assert [m["user"] for m in msgs] == [LI, ME, SONG, LI]
        assert msgs[1]["ts"] == OPTION_B and msgs[1]["text"].startswith("Option B reads best")
        assert all(m["thread_ts"] == DRAFT_COPY for m in msgs)
        assert all(m["parent_user_id"] == LI for m in msgs[1:]) and "parent_user_id" not in msgs[0]
        assert msgs[0]["reply_count"] == 3 and body["has_more"] is False
        lonely = await s.ok("slack_get_thread_replies", {"channel_id": C["spring-campaign-2026"],
                                                         "thread_ts": KICKOFF})
        assert [m["ts"] for m in lonely["messages"]] == [KICKOFF]


async def test_thread_replies_errors() -> None:
    async with Slack() as s:
        ch = C["spring-campaign-2026"]
        await s.fail("slack_get_thread_replies", {"channel_id": ch}, "invalid_arguments",
                     "missing required field: thread_ts")
        await s.fail("slack_get_thread_replies", {"channel_id": ch, "thread_ts": None}, "invalid_arguments",
                     "invalid type for field thread_ts")
        await s.fail("slack_get_thread_replies", {"channel_id": ch, "thread_ts": "1772515080"}, "thread_not_found")
        await s.fail("slack_get_thread_replies", {"channel_id": ch, "thread_ts": OPTION_B}, "thread_not_found")
        await s.fail("slack_get_thread_replies", {"channel_id": C["marketing"], "thread_ts": DRAFT_COPY},
                     "thread_not_found")
        await s.fail("slack_get_thread_replies", {"channel_id": C["finance-approvals"], "thread_ts": DRAFT_COPY},
                     "channel_not_found")


# -- slack_get_users / slack_get_user_profile ---------------------------------------------------------
async def test_get_users_lists_people_and_bots() -> None:
    async with Slack() as s:
        body = await s.ok("slack_get_users")
        members = {m["name"]: m for m in body["members"]}
        assert set(members) == {"chen.yu", "song.ke", "zhao.min", "li.minghui", "wang.fang", "liu.yang", "zhou.jie",
                                "sun.lei", "google_calendar", "asana"}
        assert body["cache_ts"] == NOW and body["response_metadata"] == {"next_cursor": ""}
        assert members["zhou.jie"]["deleted"] is True and members["song.ke"]["deleted"] is False
        assert members["song.ke"]["is_admin"] is True and members["song.ke"]["is_owner"] is True
        assert members["asana"]["is_bot"] is True and members["chen.yu"]["is_bot"] is False
        song = members["song.ke"]
        assert song["real_name"] == "Song Ke" and song["tz"] == "Asia/Shanghai" and song["tz_offset"] == 28800
        assert song["profile"]["email"] == "song.ke@orbitlab.cn" and song["profile"]["title"] == "Marketing Director"
        assert members["sun.lei"]["profile"]["status_text"] == "Back on Mar 16"


async def test_get_users_pages() -> None:
    async with Slack() as s:
        seen: list[str] = []
        cursor = None
        pages = 0
        while True:
            args: dict[str, Any] = {"limit": 4} | ({"cursor": cursor} if cursor else {})
            body = await s.ok("slack_get_users", args)
            seen += [m["id"] for m in body["members"]]
            pages += 1
            cursor = body["response_metadata"]["next_cursor"]
            if not cursor:
                break
        assert pages == 3 and len(seen) == len(set(seen)) == 10
        await s.fail("slack_get_users", {"cursor": "bogus"}, "invalid_cursor")
        await s.fail("slack_get_users", {"limit": -1}, "invalid_arguments", "invalid value for field limit")
        await s.fail("slack_get_users", {"limit": [4]}, "invalid_arguments", "invalid type for field limit")


async def test_get_user_profile() -> None:
    async with Slack() as s:
        body = await s.ok("slack_get_user_profile", {"user_id": ZHAO})
        profile = body["profile"]
        assert "id" not in profile  # users.profile.get does not echo the id
        assert profile["real_name"] == "Zhao Min" and profile["phone"] == "+8613800138000"
        assert profile["display_name"] == "zhaomin" and profile["email"] == "zhao.min@orbitlab.cn"
        gone = await s.ok("slack_get_user_profile", {"user_id": ZHOU})
        assert gone["profile"]["real_name"] == "Zhou Jie"
        bot = await s.ok("slack_get_user_profile", {"user_id": GCAL})
        assert bot["profile"]["real_name"] == "Google Calendar" and bot["profile"]["bot_id"].startswith("B")
        await s.fail("slack_get_user_profile", {}, "invalid_arguments", "missing required field: user_id")
        await s.fail("slack_get_user_profile", {"user_id": 7}, "invalid_arguments", "invalid type for field user_id")
        await s.fail("slack_get_user_profile", {"user_id": MISSING_USER}, "user_not_found")
        await s.fail("slack_get_user_profile", {"user_id": "zhao.min"}, "user_not_found")  # a username is no id


# -- slack_open_dm ------------------------------------------------------------------------------------
async def test_open_dm_existing_new_group_and_self() -> None:
    async with Slack() as s:
        before = s.env.tree.hash()
        existing = await s.ok("slack_open_dm", {"users": SONG})
        assert existing == {"ok": True, "no_op": True, "already_open": True, "channel": {"id": DM["song.ke"]}}
        assert s.env.tree.hash() == before
        body, changes = await s.changes("slack_open_dm", {"users": LIU})
        dm = body["channel"]["id"]
        assert re.fullmatch(r"D[A-Z0-9]{10}", dm) and set(body) == {"ok", "channel"}
        [change] = changes
        assert (change.op, change.entity_type, change.path) == ("create", "channel", f"channels[{dm}]")
        assert s.data["channels"][dm] == {"id": dm, "is_channel": False, "is_im": True, "is_mpim": False,
                                          "is_private": True, "is_archived": False, "user": LIU,
                                          "is_user_deleted": False, "created": NOW + 1, "members": [ME, LIU]}
        posted = await s.ok("slack_post_message", {"channel_id": dm, "text": "Can you check the hero crop?"})
        assert posted["channel"] == dm
        again = await s.ok("slack_open_dm", {"users": f" {LIU} "})
        assert again["already_open"] is True and again["channel"]["id"] == dm
        group = await s.ok("slack_open_dm", {"users": f"{ZHAO},{LI},{ME}"})
        gid = group["channel"]["id"]
        assert re.fullmatch(r"G[A-Z0-9]{10}", gid)
        assert s.data["channels"][gid]["members"] == [ME, ZHAO, LI] and s.data["channels"][gid]["is_mpim"] is True
        assert s.data["channels"][gid]["name"] == "mpdm-chen.yu--zhao.min--li.minghui-1"
        same = await s.ok("slack_open_dm", {"users": f"{LI},{ZHAO}"})
        assert same["channel"]["id"] == gid and same["already_open"] is True
        myself = await s.ok("slack_open_dm", {"users": ME})
        assert s.data["channels"][myself["channel"]["id"]]["members"] == [ME]


async def test_open_dm_errors() -> None:
    async with Slack() as s:
        await s.fail("slack_open_dm", {}, "invalid_arguments", "missing required field: users")
        await s.fail("slack_open_dm", {"users": [SONG]}, "invalid_arguments", "invalid type for field users")
        await s.fail("slack_open_dm", {"users": " , "}, "users_list_not_supplied")
        await s.fail("slack_open_dm", {"users": ",".join(["U" + str(i) * 10 for i in range(9)])}, "too_many_users")
        await s.fail("slack_open_dm", {"users": MISSING_USER}, "user_not_found")
        await s.fail("slack_open_dm", {"users": f"{SONG},{MISSING_USER}"}, "user_not_found")
        await s.fail("slack_open_dm", {"users": ZHOU}, "user_disabled")


# -- slack_create_reminder / slack_list_reminders -----------------------------------------------------
async def test_create_reminder_for_me_tomorrow() -> None:
    async with Slack() as s:
        body, changes = await s.changes("slack_create_reminder", {"text": "Send poster feedback to Zhao Min",
                                                                  "time": "tomorrow at 9am"})
        rem = body["reminder"]
        assert re.fullmatch(r"Rm[A-Z0-9]{9}", rem["id"])
        expected = {"id": rem["id"], "creator": ME, "user": ME, "text": "Send poster feedback to Zhao Min",
                    "recurring": False, "time": local(3, 11, 9), "complete_ts": 0}
        assert rem == expected and s.data["reminders"][rem["id"]] == expected
        [change] = changes
        assert (change.op, change.entity_type) == ("create", "reminder")


async def test_create_reminder_time_forms_and_other_user() -> None:
    async with Slack() as s:
        cases = {
            "in 2 hours": NOW + 7200,
            "600": NOW + 600,
            str(local(3, 20, 16)): local(3, 20, 16),
            "2026-03-12 14:00": local(3, 12, 14),
            "at 5pm": local(3, 10, 17),
            "9:00": local(3, 11, 9),
            "friday at noon": local(3, 13, 12),
            "Mar 16": local(3, 16, 9),
        }
        for phrase, expected in cases.items():
            body = await s.ok("slack_create_reminder", {"text": phrase, "time": phrase})
            assert body["reminder"]["time"] == expected, phrase
        as_int = await s.ok("slack_create_reminder", {"text": "int", "time": 3600})
        assert as_int["reminder"]["time"] == NOW + 3600
        weekly = await s.ok("slack_create_reminder", {"text": "Status post", "time": "every monday at 10:00"})
        assert weekly["reminder"]["recurring"] is True and weekly["reminder"]["time"] == local(3, 16, 10)
        assert weekly["reminder"]["recurrence"] == {"frequency": "weekly", "weekdays": ["monday"]}
        for_song = await s.ok("slack_create_reminder", {"text": "Review the Lumen outline", "time": "in 1 day",
                                                        "user": SONG})
        assert for_song["reminder"]["user"] == SONG and for_song["reminder"]["creator"] == ME


async def test_create_reminder_errors() -> None:
    async with Slack() as s:
        await s.fail("slack_create_reminder", {"text": "x"}, "invalid_arguments", "missing required field: time")
        await s.fail("slack_create_reminder", {"time": "in 5 minutes"}, "invalid_arguments",
                     "missing required field: text")
        await s.fail("slack_create_reminder", {"text": "x", "time": ["in 5 minutes"]}, "invalid_arguments",
                     "invalid type for field time")
        await s.fail("slack_create_reminder", {"text": " ", "time": "in 5 minutes"}, "invalid_arguments")
        await s.fail("slack_create_reminder", {"text": "x", "time": "whenever you like"}, "cannot_parse")
        await s.fail("slack_create_reminder", {"text": "x", "time": "2026-03-01 10:00"}, "cannot_parse")  # past
        await s.fail("slack_create_reminder", {"text": "x", "time": "at 25:00"}, "cannot_parse")
        await s.fail("slack_create_reminder", {"text": "x", "time": "in 5 minutes", "user": GCAL}, "cannot_add_bot")
        await s.fail("slack_create_reminder", {"text": "x", "time": "in 5 minutes", "user": MISSING_USER},
                     "user_not_found")
        await s.fail("slack_create_reminder", {"text": "x", "time": "in 5 minutes", "user": ZHOU}, "user_not_found")


async def test_list_reminders() -> None:
    async with Slack() as s:
        body = await s.ok("slack_list_reminders")
        texts = [r["text"] for r in body["reminders"]]
        assert texts == [
            "Submit February expense report",
            "Review poster v2 variants",
            "Send the Q1 campaign summary to Song Ke",
            "Post the weekly spring campaign status in #marketing",
            "Draft the Lumen Retail April promotion outline",
        ]
        done = body["reminders"][0]
        assert done["complete_ts"] > done["time"] == local(3, 2, 9, 30)
        assert body["reminders"][-1]["creator"] == SONG and body["reminders"][-1]["user"] == ME
        assert body["reminders"][3]["recurrence"] == {"frequency": "weekly", "weekdays": ["monday"]}
        made = await s.ok("slack_create_reminder", {"text": "Call Lumen", "time": "in 1 hour"})
        after = await s.ok("slack_list_reminders")
        assert after["reminders"][1]["id"] == made["reminder"]["id"]  # today 10:30: after Mar 2, before Mar 11
        await s.fail("slack_list_reminders", {"user": ME}, "invalid_arguments", "unknown field: user")


def test_reminder_time_grammar() -> None:
    now = datetime(2026, 3, 10, 9, 30, tzinfo=SH)
    assert parse_reminder_time("in a minute", now) == (NOW + 60, None)
    assert parse_reminder_time("tomorrow", now) == (local(3, 11, 9), None)
    assert parse_reminder_time("today at 6:30 pm", now) == (local(3, 10, 18, 30), None)
    assert parse_reminder_time("on tuesday at 8am", now) == (local(3, 17, 8), None)  # today's 8am is past
    assert parse_reminder_time("every weekday at 9am", now) == (local(3, 11, 9), ["monday", "tuesday", "wednesday",
                                                                                  "thursday", "friday"])
    assert parse_reminder_time("every day", now)[1] == ["monday", "tuesday", "wednesday", "thursday", "friday",
                                                        "saturday", "sunday"]
    for bad in ("someday", "every blursday", "13pm", "in ten minutes", "Feb 30"):
        with pytest.raises(ToolFailure) as info:
            parse_reminder_time(bad, now)
        assert info.value.code == "cannot_parse", bad


# -- slack_search_messages ----------------------------------------------------------------------------
async def test_search_messages_terms_modifiers_and_replies() -> None:
    async with Slack() as s:
        body = await s.ok("slack_search_messages", {"query": "poster v2"})
        matches = body["messages"]["matches"]
        assert body["query"] == "poster v2" and body["messages"]["total"] == len(matches) == 3  # every term, anywhere
        assert {m["ts"] for m in matches} == {POSTER_V2, MKT_STATUS_0309, MKT_STATUS_0302}
        exact = await s.ok("slack_search_messages", {"query": '"poster v2"'})
        assert {m["ts"] for m in exact["messages"]["matches"]} == {POSTER_V2, MKT_STATUS_0309}
        assert all(m["permalink"].startswith("https://orbitlab.slack.com/archives/") for m in matches)
        in_mkt = await s.ok("slack_search_messages", {"query": "poster in:#marketing"})
        assert {m["ts"] for m in in_mkt["messages"]["matches"]} == {MKT_STATUS_0309, MKT_STATUS_0302}
        by_song = await s.ok("slack_search_messages", {"query": "from:@song.ke proposal", "sort": "timestamp"})
        assert [m["user"] for m in by_song["messages"]["matches"]] == [SONG]
        reply = by_song["messages"]["matches"][0]
        assert reply["channel"]["name"] == "marketing-leads" and reply["channel"]["is_private"] is True
        assert reply["thread_ts"] == ts_of("marketing-leads", "Lumen Retail renewal")
        phrase = await s.ok("slack_search_messages", {"query": '"expense report"'})
        # the DM with Zhou Jie matches; finance-approvals is private and Chen Yu is not in it
        assert [m["channel"]["id"] for m in phrase["messages"]["matches"]] == [DM["zhou.jie"]]
        dated = await s.ok("slack_search_messages", {"query": "from:me on:2026-03-09", "sort": "timestamp",
                                                     "sort_dir": "asc"})
        assert dated["messages"]["matches"][0]["ts"] == MKT_STATUS_0309
        nothing = await s.ok("slack_search_messages", {"query": "poster in:#no-such-channel"})
        assert nothing["messages"]["total"] == 0 and nothing["messages"]["matches"] == []


async def test_search_messages_pages() -> None:
    async with Slack() as s:
        full = await s.ok("slack_search_messages", {"query": "lumen", "sort": "timestamp", "count": 100})
        total = full["messages"]["total"]
        assert total >= 5
        second = await s.ok("slack_search_messages", {"query": "lumen", "sort": "timestamp", "count": 2, "page": 2})
        assert second["messages"]["paging"] == {"count": 2, "total": total, "page": 2, "pages": -(-total // 2)}
        assert [m["ts"] for m in second["messages"]["matches"]] == [m["ts"] for m in
                                                                    full["messages"]["matches"][2:4]]
        stamps = [float(m["ts"]) for m in full["messages"]["matches"]]
        assert stamps == sorted(stamps, reverse=True)


async def test_search_messages_errors() -> None:
    async with Slack() as s:
        await s.fail("slack_search_messages", {}, "invalid_arguments", "missing required field: query")
        await s.fail("slack_search_messages", {"query": 12}, "invalid_arguments", "invalid type for field query")
        await s.fail("slack_search_messages", {"query": "x", "count": 0}, "invalid_arguments",
                     "invalid value for field count")
        await s.fail("slack_search_messages", {"query": "x", "sort": "relevance"}, "invalid_arguments",
                     "invalid value for field sort")
        await s.fail("slack_search_messages", {"query": "   "}, "no_query")
