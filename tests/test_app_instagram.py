"""The Instagram app through the real MCP path: every tool's success path and its four error classes.

Each call goes through ``mcp.Client`` against the app's ``MCPServer``; answers are Graph API shapes,
writes are checked against ``env.tree.data`` and an entity-level diff, failures against the Graph
error object (message, type, code, error_subcode) and an unchanged state hash.
"""

from __future__ import annotations

import base64
import re
from datetime import UTC, datetime
from typing import Any

import pytest

from app_harness import CLOCK, AppSession
from mcp_persona.apps import get_app
from mcp_persona.clock import TaskClock

pytestmark = pytest.mark.anyio

APP = get_app("instagram")
NOW = CLOCK.timestamp()
TOOLS = ["get_user_info", "get_user_media", "get_post_comments", "reply_to_comment", "list_all_conversations",
         "get_conversation", "list_all_messages", "send_text_message"]


def unsupported(object_id: str, verb: str = "get") -> str:
    return (f"Unsupported {verb} request. Object with ID '{object_id}' does not exist, cannot be loaded due to missing "
            "permissions, or does not support this operation. Please read the Graph API documentation at "
            "https://developers.facebook.com/docs/graph-api")


def graph_seconds(text: str) -> int:
    return int(datetime.strptime(text, "%Y-%m-%dT%H:%M:%S%z").timestamp())


def graph_time(ts: int) -> str:
    return datetime.fromtimestamp(ts, tz=UTC).strftime("%Y-%m-%dT%H:%M:%S+0000")


class IG(AppSession):
    """One episode of the Instagram app and a connected client, with lookups by name."""

    app = APP
    json_results = True

    @property
    def me(self) -> str:
        return self.data["me"]

    def user(self, username: str) -> dict[str, Any]:
        return next(u for u in self.data["users"].values() if u["username"] == username)

    def cast(self, name: str) -> dict[str, Any]:
        return next(u for u in self.data["users"].values() if u["name"] == name and u.get("in_circle"))

    def post(self, fragment: str) -> dict[str, Any]:
        return next(m for m in self.data["media"].values() if fragment in m["caption"])

    def comment(self, post: str, fragment: str) -> dict[str, Any]:
        return next(c for c in self.post(post)["comments"].values() if fragment in c["text"])

    def conversation(self, username: str) -> dict[str, Any]:
        uid = self.user(username)["id"]
        return next(c for c in self.data["conversations"].values() if uid in c["participant_ids"])

    async def ok(self, tool: str, args: dict[str, Any] | None = None) -> Any:
        body = await super().ok(tool, args)
        assert "error" not in body
        return body

    async def fail(self, tool: str, args: dict[str, Any] | None, message: str, *, code: int = 100,
                   subcode: int | None = None, type_: str = "OAuthException") -> None:
        """A rejected call with this Graph API error object, the state untouched."""
        error = (await self.rejected(tool, args))["error"]
        assert error["message"] == message
        assert (error["type"], error["code"], error.get("error_subcode")) == (type_, code, subcode)
        assert re.fullmatch(r"A[A-Za-z0-9_-]{22}", error["fbtrace_id"])

    async def missing(self, tool: str, args: dict[str, Any] | None, object_id: str, verb: str = "get") -> None:
        await self.fail(tool, args, unsupported(object_id, verb), subcode=33, type_="GraphMethodException")


# -- the server and its contexts ----------------------------------------------------------------------------
async def test_tool_list_and_schemas() -> None:
    async with IG() as ig:
        tools = {t.name: t for t in (await ig.client.list_tools()).tools}
    assert list(tools) == TOOLS
    assert tools["send_text_message"].input_schema["required"] == ["recipient_id", "text"]
    assert tools["reply_to_comment"].input_schema["required"] == ["comment_id", "message"]
    assert "required" not in tools["get_user_info"].input_schema
    assert tools["list_all_messages"].input_schema["properties"]["limit"]["maximum"] == 100


@pytest.mark.parametrize("context", ["chen_yu", "lin_wei", "maya_patel"])
def test_context_is_consistent(context: str) -> None:
    data = APP.load_context(context)
    me = data["me"]
    assert data["context_id"] == context and re.fullmatch(r"178414\d{11}", me)
    assert data["users"][me]["account_type"] in ("BUSINESS", "CREATOR")
    assert len(data["media"]) >= 6 and len(data["conversations"]) >= 5
    for mid, media in data["media"].items():
        assert re.fullmatch(r"179\d{14}", mid) and media["owner_id"] == me
        posted = graph_seconds(media["timestamp"])
        assert datetime(2026, 2, 19, tzinfo=UTC).timestamp() < posted < NOW
        for cid, c in media["comments"].items():
            assert re.fullmatch(r"18\d{15}", cid) and posted < graph_seconds(c["timestamp"]) < NOW
            if "parent_id" in c:
                parent = media["comments"][c["parent_id"]]
                assert "parent_id" not in parent and graph_seconds(parent["timestamp"]) < graph_seconds(c["timestamp"])
    open_windows = 0
    for conv in data["conversations"].values():
        assert base64.b64decode(conv["id"] + "==").startswith(b"ig_d:1:IGMessageThread:" + me.encode())
        assert conv["participant_ids"][0] == me and len(conv["participant_ids"]) == 2
        times = [m["created_time"] for m in conv["messages"].values()]
        assert conv["updated_time"] == max(times)
        other = conv["participant_ids"][1]
        inbound = [graph_seconds(m["created_time"]) for m in conv["messages"].values() if m["from_id"] == other]
        open_windows += NOW - max(inbound) <= 24 * 3600
    assert 2 <= open_windows < len(data["conversations"])  # some threads can be answered, some cannot


async def test_unknown_tool() -> None:
    async with IG() as ig:
        await ig.fail("delete_comment", {"comment_id": "1"}, "(#100) Unknown tool: delete_comment")


# -- get_user_info ----------------------------------------------------------------------------------------
async def test_get_user_info_own_profile() -> None:
    async with IG() as ig:
        mine = ig.data["users"][ig.me]
        profile = await ig.ok("get_user_info")
        assert profile == {"id": ig.me, "username": "orbitlab.studio", "name": "Orbit Lab Studio",
                           "account_type": "BUSINESS", "biography": mine["biography"], "website": mine["website"],
                           "profile_picture_url": mine["profile_picture_url"],
                           "followers_count": mine["followers_count"], "follows_count": mine["follows_count"],
                           "media_count": len(ig.data["media"])}
        assert await ig.ok("get_user_info", {"user_id": "me"}) == profile
        assert await ig.ok("get_user_info", {"user_id": ig.me}) == profile


async def test_get_user_info_of_someone_you_talk_with() -> None:
    async with IG() as ig:
        tea = ig.user("tea.and.pixels")
        assert await ig.ok("get_user_info", {"user_id": tea["id"]}) == {
            "name": "Tea & Pixels", "username": "tea.and.pixels", "profile_pic": tea["profile_picture_url"],
            "follower_count": tea["followers_count"], "is_user_follow_business": True,
            "is_business_follow_user": False, "is_verified_user": False, "id": tea["id"]}
        lumen = await ig.ok("get_user_info", {"user_id": ig.user("lumen.retail")["id"]})
        assert lumen["is_verified_user"] is True and lumen["is_business_follow_user"] is True


async def test_get_user_info_rejections() -> None:
    async with IG() as ig:
        mei = ig.user("meidraws")["id"]  # commented, but never messaged: not visible
        await ig.missing("get_user_info", {"user_id": mei}, mei)
        await ig.missing("get_user_info", {"user_id": "17841400000000000"}, "17841400000000000")
        await ig.missing("get_user_info", {"user_id": "@meidraws"}, "@meidraws")
        await ig.fail("get_user_info", {"user_id": 17841400000000000},
                      "(#100) Param user_id is invalid: Input should be a valid string")
        await ig.fail("get_user_info", {"fields": "id,username"}, "(#100) Unknown parameter: fields")


# -- get_user_media ------------------------------------------------------------------------------------------
async def test_get_user_media_pages_newest_first() -> None:
    async with IG() as ig:
        first = await ig.ok("get_user_media", {"limit": 3})
        assert len(first["data"]) == 3 and first["paging"]["next"].startswith(
            f"https://graph.instagram.com/v21.0/{ig.me}/media?limit=3&after=")
        seen = list(first["data"])
        page = first
        while "next" in page["paging"]:
            page = await ig.ok("get_user_media", {"limit": 3, "after": page["paging"]["cursors"]["after"]})
            seen.extend(page["data"])
        assert "next" not in page["paging"]
        assert [m["id"] for m in seen] == [m["id"] for m in sorted(ig.data["media"].values(),
                                                                   key=lambda m: m["timestamp"], reverse=True)]
        latest = seen[0]
        stored = ig.data["media"][latest["id"]]
        assert latest["caption"] == "Save the date: 25.03 🌸 #SpringWithOrbit"
        assert latest["comments_count"] == len(stored["comments"]) and latest["username"] == "orbitlab.studio"
        assert latest["permalink"] == f"https://www.instagram.com/p/{stored['shortcode']}/"
        reel = next(m for m in seen if m["media_product_type"] == "REELS")
        assert reel["permalink"].startswith("https://www.instagram.com/reel/") and reel["media_type"] == "VIDEO"
        assert next(m for m in seen if "Creator Series" in m["caption"])["is_comment_enabled"] is False
        assert (await ig.ok("get_user_media", {"user_id": ig.me}))["data"] == seen


async def test_get_user_media_rejections() -> None:
    async with IG() as ig:
        other = ig.user("lumen.retail")["id"]
        await ig.missing("get_user_media", {"user_id": other}, other)
        await ig.fail("get_user_media", {"limit": "ten"}, "(#100) Param limit is invalid: Input should be a valid "
                      "integer, unable to parse string as an integer")
        await ig.fail("get_user_media", {"limit": 101}, "(#100) Param limit is invalid: Input should be less than or "
                      "equal to 100")
        await ig.fail("get_user_media", {"after": "not-a-cursor"}, "(#100) The after parameter is not a valid cursor")


# -- get_post_comments ---------------------------------------------------------------------------------------
async def test_get_post_comments_with_replies() -> None:
    async with IG() as ig:
        post = ig.post("Studio 3.2 is here")
        body = await ig.ok("get_post_comments", {"post_id": post["id"]})
        top = body["data"]
        assert len(top) == 3 and "next" not in body["paging"]
        assert [c["timestamp"] for c in top] == sorted((c["timestamp"] for c in top), reverse=True)
        lucas = next(c for c in top if c["username"] == "lucas.w.sh")
        stored = ig.comment("Studio 3.2 is here", "token expired")
        assert {k: lucas[k] for k in ("id", "text", "timestamp", "like_count", "hidden")} == {
            "id": stored["id"], "text": stored["text"], "timestamp": stored["timestamp"], "like_count": 3,
            "hidden": False}
        assert lucas["from"] == {"id": ig.user("lucas.w.sh")["id"], "username": "lucas.w.sh"}
        reply = lucas["replies"]["data"][0]
        assert reply["username"] == "orbitlab.studio" and reply["parent_id"] == lucas["id"]
        assert reply["text"].startswith("Sorry Lucas! A fix is coming in 3.2.2")
        yunyun = next(c for c in top if c["username"] == "yunyun.cafe")
        assert "replies" not in yunyun
        two = await ig.ok("get_post_comments", {"post_id": post["id"], "limit": 2})
        rest = await ig.ok("get_post_comments", {"post_id": post["id"], "after": two["paging"]["cursors"]["after"]})
        assert two["data"] + rest["data"] == top


async def test_get_post_comments_rejections() -> None:
    async with IG() as ig:
        post = ig.post("Studio 3.2 is here")
        comment = ig.comment("Studio 3.2 is here", "token expired")
        await ig.fail("get_post_comments", {}, "(#100) The parameter post_id is required")
        await ig.fail("get_post_comments", {"post_id": int(post["id"])},
                      "(#100) Param post_id is invalid: Input should be a valid string")
        await ig.fail("get_post_comments", {"post_id": post["id"], "limit": 0},
                      "(#100) Param limit is invalid: Input should be greater than or equal to 1")
        await ig.missing("get_post_comments", {"post_id": "17900000000000000"}, "17900000000000000")
        await ig.missing("get_post_comments", {"post_id": comment["id"]}, comment["id"])


# -- reply_to_comment ------------------------------------------------------------------------------------------
async def test_reply_to_comment() -> None:
    async with IG() as ig:
        post = ig.post("Behind the scenes")
        question = ig.comment("Behind the scenes", "Is the spring trial free")
        before = ig.env.tree.snapshot()
        text = "Yes! 14 days free for teams up to 5 people, starting March 25 🌸"
        body = await ig.ok("reply_to_comment", {"comment_id": question["id"], "message": text})
        new = body["id"]
        assert re.fullmatch(r"18\d{15}", new) and list(body) == ["id"]
        assert ig.diff(before) == [("create", f"media[{post['id']}].comments[{new}]", ())]
        assert ig.data["media"][post["id"]]["comments"][new] == {
            "id": new, "text": text, "from_id": ig.me, "timestamp": graph_time(NOW + 1), "like_count": 0,
            "hidden": False, "parent_id": question["id"]}
        shown = await ig.ok("get_post_comments", {"post_id": post["id"]})
        thread = next(c for c in shown["data"] if c["id"] == question["id"])
        assert thread["replies"]["data"][-1]["text"] == text
        # a reply to that reply joins the top-level comment's thread
        again = await ig.ok("reply_to_comment", {"comment_id": new, "message": "See the link in bio for details."})
        assert ig.data["media"][post["id"]]["comments"][again["id"]]["parent_id"] == question["id"]


async def test_reply_to_comment_rejections() -> None:
    async with IG() as ig:
        cid = ig.comment("Behind the scenes", "Is the spring trial free")["id"]
        await ig.fail("reply_to_comment", {"comment_id": cid}, "(#100) The parameter message is required")
        await ig.fail("reply_to_comment", {"message": "hi"}, "(#100) The parameter comment_id is required")
        await ig.fail("reply_to_comment", {"comment_id": cid, "message": ["hi"]},
                      "(#100) Param message is invalid: Input should be a valid string")
        await ig.fail("reply_to_comment", {"comment_id": cid, "message": "   "},
                      "(#100) The parameter message is required")
        await ig.fail("reply_to_comment", {"comment_id": cid, "message": "x" * 301},
                      "(#100) The comment cannot exceed 300 characters")
        await ig.fail("reply_to_comment", {"comment_id": cid, "message": "#a #b #c #d #e"},
                      "(#100) The comment cannot contain more than 4 hashtags")
        await ig.fail("reply_to_comment", {"comment_id": cid, "message": "see https://a.example and www.b.example"},
                      "(#100) The comment cannot contain more than 1 URL")
        await ig.fail("reply_to_comment", {"comment_id": cid, "message": "YES IT IS FREE!"},
                      "(#100) The comment cannot consist of all capital letters")
        await ig.missing("reply_to_comment", {"comment_id": "18000000000000000", "message": "hi"},
                         "18000000000000000", "post")
        closed = ig.comment("Creator Series", "Thank you for featuring me")
        await ig.fail("reply_to_comment", {"comment_id": closed["id"], "message": "You're welcome!"},
                      "(#100) Comments are disabled for this media")


# -- conversations ---------------------------------------------------------------------------------------------
async def test_list_all_conversations() -> None:
    async with IG() as ig:
        body = await ig.ok("list_all_conversations")
        convs = body["data"]
        assert len(convs) == len(ig.data["conversations"])
        assert [c["updated_time"] for c in convs] == sorted((c["updated_time"] for c in convs), reverse=True)
        tea = ig.conversation("tea.and.pixels")
        first = convs[0]
        assert first == {"id": tea["id"], "updated_time": tea["updated_time"], "participants": {"data": [
            {"username": "orbitlab.studio", "id": ig.me},
            {"username": "tea.and.pixels", "id": ig.user("tea.and.pixels")["id"]}]}}
        page = await ig.ok("list_all_conversations", {"limit": 4})
        rest = await ig.ok("list_all_conversations", {"limit": 4, "after": page["paging"]["cursors"]["after"]})
        assert page["data"] + rest["data"] == convs
        await ig.fail("list_all_conversations", {"limit": -1},
                      "(#100) Param limit is invalid: Input should be greater than or equal to 1")
        await ig.fail("list_all_conversations", {"limit": [5]},
                      "(#100) Param limit is invalid: Input should be a valid integer")
        await ig.fail("list_all_conversations", {"after": base64.urlsafe_b64encode(b"offset:99").decode()},
                      "(#100) The after parameter is not a valid cursor")


async def test_get_conversation() -> None:
    async with IG() as ig:
        suki = ig.conversation("suki.makes")
        body = await ig.ok("get_conversation", {"conversation_id": suki["id"]})
        ordered = sorted(suki["messages"].values(), key=lambda m: m["created_time"], reverse=True)
        sid = ig.user("suki.makes")["id"]
        people = [{"username": "orbitlab.studio", "id": ig.me}, {"username": "suki.makes", "id": sid}]
        assert body == {"id": suki["id"], "participants": {"data": people},
            "updated_time": suki["updated_time"],
            "messages": {"data": [{"id": m["id"], "created_time": m["created_time"]} for m in ordered]}}
        await ig.fail("get_conversation", {}, "(#100) The parameter conversation_id is required")
        await ig.fail("get_conversation", {"conversation_id": {"id": suki["id"]}},
                      "(#100) Param conversation_id is invalid: Input should be a valid string")
        await ig.missing("get_conversation", {"conversation_id": "aWdfZDoxOklHTWVzc2FnZVRocmVhZDo"},
                         "aWdfZDoxOklHTWVzc2FnZVRocmVhZDo")
        await ig.missing("get_conversation", {"conversation_id": ig.user("suki.makes")["id"]},
                         ig.user("suki.makes")["id"])


async def test_list_all_messages() -> None:
    async with IG() as ig:
        suki = ig.conversation("suki.makes")
        sid = ig.user("suki.makes")["id"]
        body = await ig.ok("list_all_messages", {"conversation_id": suki["id"]})
        msgs = body["data"]
        assert [m["message"] for m in msgs] == [
            "Sure! 12k CNY for 1 Xiaohongshu note + 1 Douyin video. Average 35k views per note last month.",
            "Hi Suki! Thanks for reaching out. Could you share your rate and recent stats?",
            "Hi Orbit Lab! I saw your brief in the Shanghai Creators Club, I'd love to join the spring campaign."]
        assert msgs[0]["from"] == {"username": "suki.makes", "id": sid}
        assert msgs[0]["to"] == {"data": [{"username": "orbitlab.studio", "id": ig.me}]}
        assert msgs[1]["from"]["id"] == ig.me and msgs[1]["to"]["data"][0]["id"] == sid
        one = await ig.ok("list_all_messages", {"conversation_id": suki["id"], "limit": 1})
        assert one["data"] == msgs[:1] and "next" in one["paging"]
        await ig.fail("list_all_messages", {"limit": 5}, "(#100) The parameter conversation_id is required")
        await ig.fail("list_all_messages", {"conversation_id": suki["id"], "limit": 1000},
                      "(#100) Param limit is invalid: Input should be less than or equal to 100")
        await ig.fail("list_all_messages", {"conversation_id": suki["id"], "limit": 1.5},
                      "(#100) Param limit is invalid: Input should be a valid integer, got a number with a fractional "
                      "part")
        await ig.missing("list_all_messages", {"conversation_id": "nope"}, "nope")


# -- send_text_message -----------------------------------------------------------------------------------------
async def test_send_text_message_inside_the_window() -> None:
    async with IG() as ig:
        tea = ig.conversation("tea.and.pixels")
        rid = ig.user("tea.and.pixels")["id"]
        before = ig.env.tree.snapshot()
        text = "Hi! The spring trial is free for teams up to 5 and includes Douyin scheduling."
        body = await ig.ok("send_text_message", {"recipient_id": rid, "text": text})
        assert body["recipient_id"] == rid
        mid = body["message_id"]
        assert base64.b64decode(mid + "==").startswith(b"ig_item:1:IGMessage:" + ig.me.encode())
        assert sorted(ig.diff(before)) == sorted([
            ("modify", f"conversations[{tea['id']}]", ("updated_time",)),
            ("create", f"conversations[{tea['id']}].messages[{mid}]", ())])
        assert tea["messages"][mid] == {"message": text, "from_id": ig.me, "to_id": rid,
                                        "created_time": graph_time(NOW + 1), "id": mid}
        assert tea["updated_time"] == graph_time(NOW + 1)
        latest = await ig.ok("list_all_messages", {"conversation_id": tea["id"], "limit": 1})
        assert latest["data"][0]["message"] == text
        # the window counts from the user's last message, not yours: a second message is fine too
        assert (await ig.ok("send_text_message", {"recipient_id": rid, "text": "Anything else?"}))["recipient_id"]


async def test_send_text_message_window_follows_the_task_clock() -> None:
    later = TaskClock(now=datetime(2026, 3, 11, 9, 30), timezone="Asia/Shanghai")
    async with IG(clock=later) as ig:
        await ig.fail("send_text_message", {"recipient_id": ig.user("tea.and.pixels")["id"], "text": "Hi!"},
                      "(#10) This message is sent outside of allowed window.", code=10, subcode=2534022)


async def test_send_text_message_rejections() -> None:
    async with IG() as ig:
        tea = ig.user("tea.and.pixels")["id"]
        await ig.fail("send_text_message", {"recipient_id": tea}, "(#100) The parameter text is required")
        await ig.fail("send_text_message", {"text": "hi"}, "(#100) The parameter recipient_id is required")
        await ig.fail("send_text_message", {"recipient_id": int(tea), "text": "hi"},
                      "(#100) Param recipient_id is invalid: Input should be a valid string")
        await ig.fail("send_text_message", {"recipient_id": tea, "text": ""},
                      "(#100) Param message[text] must be a non-empty UTF-8 encoded string")
        await ig.fail("send_text_message", {"recipient_id": tea, "text": "x" * 1001},
                      "(#100) Length of param message[text] must be less than or equal to 1000")
        for user in ("lucas.w.sh", "lumen.retail"):  # their last message is older than 24 hours
            await ig.fail("send_text_message", {"recipient_id": ig.user(user)["id"], "text": "Update: 3.2.2 is out"},
                          "(#10) This message is sent outside of allowed window.", code=10, subcode=2534022)
        mei = ig.user("meidraws")["id"]  # never messaged the account
        await ig.fail("send_text_message", {"recipient_id": mei, "text": "Hi Mei"},
                      "(#10) This message is sent outside of allowed window.", code=10, subcode=2534022)
        await ig.fail("send_text_message", {"recipient_id": "1234", "text": "hi"}, "(#100) No matching user found",
                      subcode=2534014)
        await ig.fail("send_text_message", {"recipient_id": ig.me, "text": "hi"}, "(#100) No matching user found",
                      subcode=2534014)


@pytest.mark.parametrize(("context", "user", "open_window"), [
    ("lin_wei", "future.phd.jia", True), ("lin_wei", "aperturelab.cn", False),
    ("maya_patel", "sg.foodtrails", True), ("maya_patel", "nomad.jules", False)])
async def test_windows_in_other_contexts(context: str, user: str, open_window: bool) -> None:
    async with IG(context) as ig:
        args = {"recipient_id": ig.user(user)["id"], "text": "Thanks for your message!"}
        if open_window:
            assert (await ig.ok("send_text_message", args))["recipient_id"] == args["recipient_id"]
        else:
            await ig.fail("send_text_message", args, "(#10) This message is sent outside of allowed window.",
                          code=10, subcode=2534022)
