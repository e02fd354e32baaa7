"""The WeCom group-bot app through the real MCP path: every tool's success path and its four error classes.

Each call goes through ``mcp.Client`` against the app's ``MCPServer``; sends are checked against the
group messages in ``env.tree.data`` and an entity-level diff, failures against WeCom's errcode, the
errmsg and an unchanged state hash.
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
from datetime import datetime
from typing import Any

import pytest

from app_harness import AppSession
from mcp_persona.apps import get_app
from mcp_persona.clock import TaskClock
from mcp_persona.context_tree import diff_states

pytestmark = pytest.mark.anyio


APP = get_app("wecom")
NOW = 1773106200

INVALID_MEDIA_TYPE = 40004
INVALID_FILE_SIZE = 40006
INVALID_MEDIA_ID = 40007
INVALID_MSGTYPE = 40008
INVALID_IMAGE_SIZE = 40009
INVALID_PARAMETER = 40058
EMPTY_CONTENT = 44004
CHAT_NOT_FOUND = 86003
INVALID_WEBHOOK = 93000

TOOLS = [
    "send_text",
    "send_markdown",
    "send_image",
    "send_news",
    "send_template_card",
    "upload_file",
    "send_file",
    "list_groups",
    "get_group_messages",
    "list_group_members",
]

# -- chen_yu's bots (Orbit Lab) ----------------------------------------------------------------------
_DATA = APP.load_context("chen_yu")
G = {g["name"]: g for g in _DATA["groups"].values()}
MKT = G["Orbit Lab Marketing Dept"]  # the configured (default) key
LUMEN = G["Lumen Retail x Orbit Lab"]
OPS = G["Spring Launch Ops"]
MEDIA = {m["filename"]: m["media_id"] for m in _DATA["media"].values()}
VALID_MEDIA = MEDIA["launch_post_v2.docx"]  # uploaded Mar 9 with the default key
EXPIRED_MEDIA = MEDIA["lumen_store_list.xlsx"]  # uploaded Mar 3 with the Lumen group's key
HOME = "/Users/chenyu"
MISSING_KEY = "00000000-0000-4000-8000-000000000000"
MISSING_GROUP = "wr" + "0" * 24

PNG = b"\x89PNG\r\n\x1a\n" + b"\x00\x00\x00\rIHDR" + bytes(range(40))
PNG_B64 = base64.b64encode(PNG).decode()
PNG_MD5 = hashlib.md5(PNG).hexdigest()


class WeCom(AppSession):
    """One episode of the WeCom app and a connected client."""

    app = APP

    async def ok(self, tool: str, args: dict[str, Any] | None = None) -> dict[str, Any]:
        body = json.loads(await super().ok(tool, args))
        assert body["errcode"] == 0 and body["errmsg"] == "ok", body
        return body

    async def fail(self, tool: str, args: dict[str, Any] | None, errcode: int, fragment: str) -> dict[str, Any]:
        """A rejected call: the error flag, WeCom's errcode, ``fragment`` in errmsg, the state untouched."""
        body = json.loads(await self.rejected(tool, args))
        assert body["errcode"] == errcode, body
        assert fragment in body["errmsg"], body
        assert body["errmsg"].endswith(f"more info at https://open.work.weixin.qq.com/devtool/query?e={errcode}")
        return body

    async def fail_plain(self, tool: str, args: dict[str, Any], text: str) -> None:
        """A rejected call answered in plain text (not WeCom's JSON), the state untouched."""
        got = await self.rejected(tool, args, check_internal_errors=False)
        assert got == text

    async def sent(self, tool: str, args: dict[str, Any], group: dict[str, Any]) -> dict[str, Any]:
        """A successful send: exactly one new message, in ``group``; return it as stored."""
        before = self.env.tree.snapshot()
        body = await self.ok(tool, args)
        assert body == {"errcode": 0, "errmsg": "ok"}
        [change] = diff_states(APP.hierarchy, before, self.env.tree.data)
        assert (change.op, change.entity_type) == ("create", "message")
        msgid = change.path.rsplit("[", 1)[1].rstrip("]")
        assert change.path == f"groups[{group['chat_id']}].messages[{msgid}]"
        assert re.fullmatch(r"[0-9a-f]{32}", msgid)
        return self.data["groups"][group["chat_id"]]["messages"][msgid]


def bot_message(group: dict[str, Any], msgid: str, msgtype: str, body: dict[str, Any], at: int) -> dict[str, Any]:
    return {"msgid": msgid, "msgtype": msgtype, "sender_type": "bot", "bot_name": group["bot_name"], "send_time": at,
            msgtype: body}


# -- the server ---------------------------------------------------------------------------------------
async def test_server_lists_exactly_the_ten_tools() -> None:
    async with WeCom() as w:
        listed = await w.client.list_tools()
    assert [t.name for t in listed.tools] == TOOLS
    assert APP.tool_names == TOOLS


async def test_unknown_tool_and_unknown_argument() -> None:
    async with WeCom() as w:
        await w.fail("send_voice", {}, INVALID_PARAMETER, "Unknown tool: send_voice")
        await w.fail("send_text", {"content": "hi", "chatid": "x"}, INVALID_PARAMETER,
                     "invalid Request Parameter, chatid: Extra inputs are not permitted")


async def test_every_persona_has_its_own_bots() -> None:
    for persona, default in (("lin_wei", "VLL Lab"), ("maya_patel", "PayLater v2 Launch")):
        async with WeCom(persona) as w:
            groups = (await w.ok("list_groups"))["group_list"]
            assert len(groups) == 3
            [chosen] = [g for g in groups if g["is_default"]]
            assert chosen["name"] == default
            members = await w.ok("list_group_members", {"group_id": chosen["chat_id"]})
            assert w.data["me"] in [m["userid"] for m in members["member_list"]]
            msg = await w.sent("send_text", {"content": "Hello from the bot"}, w.data["groups"][chosen["chat_id"]])
            assert msg["text"]["content"] == "Hello from the bot"


# -- list_groups / list_group_members / get_group_messages --------------------------------------------
async def test_list_groups() -> None:
    async with WeCom() as w:
        body = await w.ok("list_groups")
        assert body["group_list"] == [
            {"chat_id": LUMEN["chat_id"], "name": "Lumen Retail x Orbit Lab", "owner": "WangFang", "member_count": 4,
             "bot_name": "Campaign Bot", "webhook_key": LUMEN["webhook_key"], "is_default": False},
            {"chat_id": MKT["chat_id"], "name": "Orbit Lab Marketing Dept", "owner": "SongKe", "member_count": 6,
             "bot_name": "Campaign Bot", "webhook_key": MKT["webhook_key"], "is_default": True},
            {"chat_id": OPS["chat_id"], "name": "Spring Launch Ops", "owner": "ChenYu", "member_count": 5,
             "bot_name": "Launch Alert Bot", "webhook_key": OPS["webhook_key"], "is_default": False},
        ]
        assert w.data["default_key"] == MKT["webhook_key"]
        await w.fail("list_groups", {"limit": 5}, INVALID_PARAMETER, "limit: Extra inputs are not permitted")


async def test_list_group_members() -> None:
    async with WeCom() as w:
        body = await w.ok("list_group_members", {"group_id": LUMEN["chat_id"]})
        assert body["chat_id"] == LUMEN["chat_id"] and body["owner"] == "WangFang"
        assert body["member_list"] == [
            {"userid": "ChenYu", "name": "Chen Yu", "mobile": "+8613911112222", "department": "Marketing",
             "position": "Marketing Manager", "status": 1},
            {"userid": "WangFang", "name": "Wang Fang", "mobile": "+8618611223344", "department": "Sales",
             "position": "Key Account Manager", "status": 1},
            {"userid": "SongKe", "name": "Song Ke", "mobile": "+8613700001111", "department": "Marketing",
             "position": "Marketing Director", "status": 1},
            {"userid": "ZhaoMin", "name": "Zhao Min", "mobile": "+8613800138000", "department": "Design",
             "position": "Senior Designer", "status": 1},
        ]
        await w.fail("list_group_members", {}, INVALID_PARAMETER, "group_id: Field required")
        await w.fail("list_group_members", {"group_id": 12}, INVALID_PARAMETER,
                     "group_id: Input should be a valid string")
        await w.fail("list_group_members", {"group_id": MISSING_GROUP}, CHAT_NOT_FOUND, "chatid not found")
        await w.fail("list_group_members", {"group_id": "Spring Launch Ops"}, CHAT_NOT_FOUND, "chatid not found")


async def test_get_group_messages_latest_oldest_first() -> None:
    async with WeCom() as w:
        body = await w.ok("get_group_messages", {"group_id": MKT["chat_id"]})
        msgs = body["msg_list"]
        assert body["name"] == "Orbit Lab Marketing Dept" and body["has_more"] is False
        assert [m["msgtype"] for m in msgs] == ["text", "markdown", "text", "text", "markdown"]
        assert [m["send_time"] for m in msgs] == sorted(m["send_time"] for m in msgs)
        assert msgs[0]["from"] == {"type": "user", "userid": "SongKe"}
        assert msgs[1]["from"] == {"type": "bot", "name": "Campaign Bot"}
        assert msgs[3]["text"] == {"content": "Spring campaign launch is locked to March 25. Poster v2 review is due "
                                              "Wednesday.", "mentioned_list": ["ZhaoMin"], "mentioned_mobile_list": []}
        assert msgs[4]["markdown"]["content"].startswith("**Daily metrics 2026-03-09**")
        last_two = await w.ok("get_group_messages", {"group_id": MKT["chat_id"], "limit": 2})
        assert [m["msgid"] for m in last_two["msg_list"]] == [m["msgid"] for m in msgs[-2:]]
        assert last_two["has_more"] is True
        news = await w.ok("get_group_messages", {"group_id": LUMEN["chat_id"]})
        article = news["msg_list"][2]["news"]["articles"][0]
        assert article["url"] == "https://www.orbitlab.cn/news/lumen-spring-preview"


async def test_get_group_messages_errors() -> None:
    async with WeCom() as w:
        await w.fail("get_group_messages", {}, INVALID_PARAMETER, "group_id: Field required")
        await w.fail("get_group_messages", {"group_id": MKT["chat_id"], "limit": "all"}, INVALID_PARAMETER,
                     "limit: Input should be a valid integer")
        await w.fail("get_group_messages", {"group_id": MKT["chat_id"], "limit": 0}, INVALID_PARAMETER,
                     "limit: Input should be greater than or equal to 1")
        await w.fail("get_group_messages", {"group_id": MKT["chat_id"], "limit": 101}, INVALID_PARAMETER,
                     "limit: Input should be less than or equal to 100")
        await w.fail("get_group_messages", {"group_id": MISSING_GROUP}, CHAT_NOT_FOUND, "chatid not found")


# -- send_text ----------------------------------------------------------------------------------------
async def test_send_text_to_the_default_group() -> None:
    async with WeCom() as w:
        msg = await w.sent("send_text", {"content": "Poster v2 review moves to 15:00.",
                                         "mentioned_list": "ZhaoMin, SongKe",
                                         "mentioned_mobile_list": "+8613800138000"}, MKT)
        assert msg == bot_message(MKT, msg["msgid"], "text", {
            "content": "Poster v2 review moves to 15:00.", "mentioned_list": ["ZhaoMin", "SongKe"],
            "mentioned_mobile_list": ["+8613800138000"]}, NOW + 1)
        shown = await w.ok("get_group_messages", {"group_id": MKT["chat_id"], "limit": 1})
        assert shown["msg_list"][0]["msgid"] == msg["msgid"]
        assert shown["msg_list"][0]["from"] == {"type": "bot", "name": "Campaign Bot"}


async def test_send_text_key_chooses_the_group() -> None:
    async with WeCom() as w:
        msg = await w.sent("send_text", {"content": "Posters ship Monday.", "mentioned_list": "@all",
                                         "key": LUMEN["webhook_key"]}, LUMEN)
        assert msg["text"]["mentioned_list"] == ["@all"] and msg["bot_name"] == "Campaign Bot"
        url = f"https://qyapi.weixin.qq.com/cgi-bin/webhook/send?key={OPS['webhook_key']}"
        ops = await w.sent("send_text", {"content": "Staging is back.", "key": url}, OPS)
        assert ops["bot_name"] == "Launch Alert Bot" and ops["text"]["mentioned_list"] == []
        assert ops["send_time"] == NOW + 2


async def test_send_text_errors() -> None:
    async with WeCom() as w:
        await w.fail("send_text", {}, INVALID_PARAMETER, "content: Field required")
        await w.fail("send_text", {"content": 42}, INVALID_PARAMETER, "content: Input should be a valid string")
        await w.fail("send_text", {"content": "hi", "mentioned_list": ["ZhaoMin"]}, INVALID_PARAMETER,
                     "mentioned_list: Input should be a valid string")
        await w.fail("send_text", {"content": "  "}, EMPTY_CONTENT, "empty content: text.content is empty")
        await w.fail("send_text", {"content": "营" * 683}, INVALID_PARAMETER,
                     "text.content exceed max length 2048 bytes (got 2049)")
        await w.fail("send_text", {"content": "hi", "key": MISSING_KEY}, INVALID_WEBHOOK, "invalid webhook url")
        await w.fail("send_text", {"content": "hi", "key": "my-marketing-group"}, INVALID_WEBHOOK,
                     "invalid webhook url")
        await w.ok("send_text", {"content": "营" * 682 + "ab"})  # 2048 bytes exactly


# -- send_markdown ------------------------------------------------------------------------------------
async def test_send_markdown() -> None:
    async with WeCom() as w:
        content = "**Launch day checklist**\n> WeChat article: <font color=\"info\">scheduled</font>\n<@ZhaoMin>"
        msg = await w.sent("send_markdown", {"content": content, "key": OPS["webhook_key"]}, OPS)
        assert msg == bot_message(OPS, msg["msgid"], "markdown", {"content": content}, NOW + 1)
        await w.fail("send_markdown", {}, INVALID_PARAMETER, "content: Field required")
        await w.fail("send_markdown", {"content": {"text": "x"}}, INVALID_PARAMETER,
                     "content: Input should be a valid string")
        await w.fail("send_markdown", {"content": ""}, EMPTY_CONTENT, "markdown.content is empty")
        await w.fail("send_markdown", {"content": "#" * 4097}, INVALID_PARAMETER,
                     "markdown.content exceed max length 4096 bytes")
        await w.fail("send_markdown", {"content": "# hi", "key": MISSING_KEY}, INVALID_WEBHOOK, "invalid webhook url")


# -- send_image ---------------------------------------------------------------------------------------
async def test_send_image() -> None:
    async with WeCom() as w:
        msg = await w.sent("send_image", {"base64_data": PNG_B64, "md5": PNG_MD5.upper()}, MKT)
        assert msg == bot_message(MKT, msg["msgid"], "image", {"md5": PNG_MD5, "size": len(PNG), "format": "png"},
                                  NOW + 1)
        jpg = b"\xff\xd8\xff\xe0" + b"JFIF" + bytes(20)
        other = await w.sent("send_image", {"base64_data": base64.b64encode(jpg).decode(),
                                            "md5": hashlib.md5(jpg).hexdigest(), "key": LUMEN["webhook_key"]}, LUMEN)
        assert other["image"]["format"] == "jpg"


async def test_send_image_errors() -> None:
    async with WeCom() as w:
        await w.fail("send_image", {"base64_data": PNG_B64}, INVALID_PARAMETER, "md5: Field required")
        await w.fail("send_image", {"base64_data": PNG_B64, "md5": 123}, INVALID_PARAMETER,
                     "md5: Input should be a valid string")
        await w.fail("send_image", {"base64_data": "not base64!!", "md5": PNG_MD5}, INVALID_PARAMETER,
                     "invalid image.base64: not valid base64 data")
        await w.fail("send_image", {"base64_data": PNG_B64, "md5": "abc123"}, INVALID_PARAMETER,
                     "invalid image.md5: must be 32 hex digits")
        await w.fail("send_image", {"base64_data": PNG_B64, "md5": hashlib.md5(b"other").hexdigest()},
                     INVALID_PARAMETER, "md5 does not match the image data")
        gif = b"GIF89a" + bytes(30)
        await w.fail("send_image", {"base64_data": base64.b64encode(gif).decode(), "md5": hashlib.md5(gif).hexdigest()},
                     INVALID_MEDIA_TYPE, "the image must be JPG or PNG")
        big = PNG + bytes(2 * 1024 * 1024)
        await w.fail("send_image", {"base64_data": base64.b64encode(big).decode(), "md5": hashlib.md5(big).hexdigest()},
                     INVALID_IMAGE_SIZE, "invalid image size")
        await w.fail("send_image", {"base64_data": "", "md5": PNG_MD5}, INVALID_IMAGE_SIZE, "the image is empty")
        await w.fail("send_image", {"base64_data": PNG_B64, "md5": PNG_MD5, "key": MISSING_KEY}, INVALID_WEBHOOK,
                     "invalid webhook url")


# -- send_news ----------------------------------------------------------------------------------------
async def test_send_news() -> None:
    async with WeCom() as w:
        args = {"title": "Spring campaign launches March 25", "url": "https://www.orbitlab.cn/spring2026",
                "description": "Posters, landing page and WeChat article.",
                "picurl": "https://www.orbitlab.cn/static/img/spring.jpg", "key": LUMEN["webhook_key"]}
        msg = await w.sent("send_news", args, LUMEN)
        assert msg == bot_message(LUMEN, msg["msgid"], "news", {"articles": [{
            "title": "Spring campaign launches March 25", "description": "Posters, landing page and WeChat article.",
            "url": "https://www.orbitlab.cn/spring2026", "picurl": "https://www.orbitlab.cn/static/img/spring.jpg"}]},
            NOW + 1)
        bare = await w.sent("send_news", {"title": "Dashboard", "url": "http://dash.orbitlab.cn/spring"}, MKT)
        assert bare["news"]["articles"] == [{"title": "Dashboard", "description": "",
                                             "url": "http://dash.orbitlab.cn/spring", "picurl": ""}]


async def test_send_news_errors() -> None:
    async with WeCom() as w:
        await w.fail("send_news", {"title": "x"}, INVALID_PARAMETER, "url: Field required")
        await w.fail("send_news", {"title": ["x"], "url": "https://a.cn"}, INVALID_PARAMETER,
                     "title: Input should be a valid string")
        await w.fail("send_news", {"title": " ", "url": "https://a.cn"}, INVALID_PARAMETER,
                     "missing news.articles[0].title")
        await w.fail("send_news", {"title": "t" * 129, "url": "https://a.cn"}, INVALID_PARAMETER,
                     "news.articles[0].title exceed max length 128 bytes")
        await w.fail("send_news", {"title": "t", "url": "https://a.cn", "description": "d" * 513}, INVALID_PARAMETER,
                     "news.articles[0].description exceed max length 512 bytes")
        await w.fail("send_news", {"title": "t", "url": "www.orbitlab.cn"}, INVALID_PARAMETER,
                     "invalid news.articles[0].url: must be an http(s) URL")
        await w.fail("send_news", {"title": "t", "url": "https://a.cn", "picurl": "ftp://a.cn/x.jpg"},
                     INVALID_PARAMETER, "invalid news.articles[0].picurl")
        await w.fail("send_news", {"title": "t", "url": "https://a.cn", "key": MISSING_KEY}, INVALID_WEBHOOK,
                     "invalid webhook url")


# -- send_template_card -------------------------------------------------------------------------------
async def test_send_template_card_url_and_mini_program() -> None:
    async with WeCom() as w:
        msg = await w.sent("send_template_card", {
            "card_type": "text_notice", "main_title": "Poster v2 review", "main_desc": "Due Wed Mar 11",
            "card_action_type": 1, "card_action_url": "https://drive.orbitlab.cn/Spring2026/Design/poster_v2"}, MKT)
        assert msg == bot_message(MKT, msg["msgid"], "template_card", {
            "card_type": "text_notice", "main_title": {"title": "Poster v2 review", "desc": "Due Wed Mar 11"},
            "card_action": {"type": 1, "url": "https://drive.orbitlab.cn/Spring2026/Design/poster_v2"}}, NOW + 1)
        mini = await w.sent("send_template_card", {
            "card_type": "text_notice", "main_title": "Store locator", "card_action_type": 2,
            "card_action_appid": "wx8bd8012614784fake", "card_action_pagepath": "pages/stores/index",
            "key": OPS["webhook_key"]}, OPS)
        assert mini["template_card"]["card_action"] == {"type": 2, "appid": "wx8bd8012614784fake",
                                                        "pagepath": "pages/stores/index"}
        assert mini["template_card"]["main_title"] == {"title": "Store locator", "desc": ""}


async def test_send_template_card_errors() -> None:
    base = {"card_type": "text_notice", "main_title": "Review", "card_action_type": 1,
            "card_action_url": "https://a.cn"}
    async with WeCom() as w:
        await w.fail("send_template_card", {k: v for k, v in base.items() if k != "main_title"}, INVALID_PARAMETER,
                     "main_title: Field required")
        await w.fail("send_template_card", base | {"card_action_type": "one"}, INVALID_PARAMETER,
                     "card_action_type: Input should be a valid integer")
        await w.fail("send_template_card", base | {"card_action_type": 3}, INVALID_PARAMETER,
                     "card_action_type: Input should be less than or equal to 2")
        await w.fail("send_template_card", base | {"card_type": "vote_interaction"}, INVALID_MSGTYPE,
                     "invalid message type: template_card.card_type 'vote_interaction' is not supported")
        await w.fail("send_template_card", base | {"card_type": "banner"}, INVALID_MSGTYPE, "invalid message type")
        await w.fail("send_template_card", base | {"card_type": "news_notice"}, INVALID_PARAMETER,
                     "missing template_card.card_image")
        await w.fail("send_template_card", base | {"main_title": ""}, INVALID_PARAMETER,
                     "missing template_card.main_title.title")
        await w.fail("send_template_card", {k: v for k, v in base.items() if k != "card_action_url"},
                     INVALID_PARAMETER, "missing template_card.card_action.url (card_action.type is 1)")
        await w.fail("send_template_card", base | {"card_action_type": 2, "card_action_appid": "wx1"},
                     INVALID_PARAMETER, "missing template_card.card_action.appid or pagepath")
        await w.fail("send_template_card", base | {"card_action_url": "javascript:alert(1)"}, INVALID_PARAMETER,
                     "invalid template_card.card_action.url")
        await w.fail("send_template_card", base | {"key": MISSING_KEY}, INVALID_WEBHOOK, "invalid webhook url")


# -- upload_file / send_file --------------------------------------------------------------------------
async def test_upload_then_send_file() -> None:
    async with WeCom() as w:
        before = w.env.tree.snapshot()
        path = f"{HOME}/Documents/Reports/Q1_campaign_summary.pdf"
        body = await w.ok("upload_file", {"file_path": path})
        media_id = body["media_id"]
        assert re.fullmatch(r"3[a-z0-9]{47}", media_id)
        assert body == {"errcode": 0, "errmsg": "ok", "type": "file", "media_id": media_id,
                        "created_at": str(NOW + 1)}
        [change] = diff_states(APP.hierarchy, before, w.data)
        assert (change.op, change.entity_type, change.path) == ("create", "media", f"media[{media_id}]")
        assert w.data["media"][media_id] == {"media_id": media_id, "type": "file",
                                             "filename": "Q1_campaign_summary.pdf", "size": 612480, "file_path": path,
                                             "created_at": NOW + 1, "webhook_key": MKT["webhook_key"]}
        msg = await w.sent("send_file", {"media_id": media_id}, MKT)
        assert msg == bot_message(MKT, msg["msgid"], "file", {"media_id": media_id,
                                                              "filename": "Q1_campaign_summary.pdf"}, NOW + 2)
        # an upload with another bot's key is for that bot only
        lumen = await w.ok("upload_file", {"file_path": f"{HOME}/Downloads/lumen_store_list.xlsx",
                                           "key": LUMEN["webhook_key"]})
        await w.fail("send_file", {"media_id": lumen["media_id"]}, INVALID_MEDIA_ID, "invalid media_id")
        await w.sent("send_file", {"media_id": lumen["media_id"], "key": LUMEN["webhook_key"]}, LUMEN)


async def test_send_file_of_an_earlier_upload() -> None:
    async with WeCom() as w:
        msg = await w.sent("send_file", {"media_id": VALID_MEDIA}, MKT)
        assert msg["file"] == {"media_id": VALID_MEDIA, "filename": "launch_post_v2.docx"}
        late = TaskClock(now=datetime(2026, 3, 13, 9, 30), timezone="Asia/Shanghai")  # 3 days after the upload
    async with WeCom(clock=late) as w:
        await w.fail("send_file", {"media_id": VALID_MEDIA}, INVALID_MEDIA_ID, "expired after 3 days")


async def test_upload_file_errors() -> None:
    async with WeCom() as w:
        await w.fail("upload_file", {}, INVALID_PARAMETER, "file_path: Field required")
        await w.fail("upload_file", {"file_path": 7}, INVALID_PARAMETER, "file_path: Input should be a valid string")
        missing = f"{HOME}/Documents/Q1_summary.pdf"
        await w.fail_plain("upload_file", {"file_path": missing},
                           f"Failed to upload file: open {missing}: no such file or directory")
        await w.fail_plain("upload_file", {"file_path": f"{HOME}/Documents/Spring2026"},
                           f"Failed to upload file: read {HOME}/Documents/Spring2026: is a directory")
        await w.fail("upload_file", {"file_path": f"{HOME}/Documents/notes/empty.txt"}, INVALID_FILE_SIZE,
                     "invalid file size: 0 bytes")
        await w.fail("upload_file", {"file_path": f"{HOME}/Movies/spring_teaser_4k.mov"}, INVALID_FILE_SIZE,
                     "invalid file size: 386201344 bytes")
        await w.fail("upload_file", {"file_path": f"{HOME}/Downloads/lumen_store_list.xlsx", "key": MISSING_KEY},
                     INVALID_WEBHOOK, "invalid webhook url")


async def test_send_file_errors() -> None:
    async with WeCom() as w:
        await w.fail("send_file", {}, INVALID_PARAMETER, "media_id: Field required")
        await w.fail("send_file", {"media_id": None}, INVALID_PARAMETER, "media_id: Input should be a valid string")
        await w.fail("send_file", {"media_id": "3" + "a" * 47}, INVALID_MEDIA_ID, "invalid media_id")
        await w.fail("send_file", {"media_id": EXPIRED_MEDIA, "key": LUMEN["webhook_key"]}, INVALID_MEDIA_ID,
                     "expired after 3 days")
        await w.fail("send_file", {"media_id": VALID_MEDIA, "key": OPS["webhook_key"]}, INVALID_MEDIA_ID,
                     "uploaded with another bot's key")
        await w.fail("send_file", {"media_id": VALID_MEDIA, "key": MISSING_KEY}, INVALID_WEBHOOK,
                     "invalid webhook url")
