"""The 163 Mail app through the real MCP path: every tool's success path and its error classes.

Each call goes through ``mcp.Client`` against the app's ``MCPServer``. Results are the real
server's formatted text; writes are checked against ``env.tree.data`` and an entity-level diff,
failures against the ``错误: ...`` text, the error flag and an unchanged state hash.
"""

from __future__ import annotations

import base64
import re
from datetime import datetime
from typing import Any

import pytest

from app_harness import AppSession
from mcp_persona.apps import get_app
from mcp_persona.clock import TaskClock
from mcp_persona.context_tree import is_ignored

pytestmark = pytest.mark.anyio


APP = get_app("email163")
NOW = 1773106200  # app_harness.CLOCK (Tuesday 2026-03-10, 09:30 in Shanghai) as unix seconds

TOOLS = [
    "send_email", "get_recent_emails", "get_email_content", "search_emails", "mark_email_read", "delete_email",
    "move_email", "setup_email_account", "configure_email_server", "list_supported_providers",
    "test_email_connection",
]

# -- chen_yu's mailbox --------------------------------------------------------------------------------
ME = "chenyu@163.com"
ACCOUNT = f"accounts[{ME}]"
CODE = "XQTLMYRQGWFXSFB9"  # the 163 client authorization code stored in the context
UIDNEXT = 1277
WEDDING = "1233"  # INBOX, read, from Li Minghui, cc Zhao Min, one attachment
JD_TRASH = "1234"  # 已删除
DAD = "1236"  # INBOX, read, flagged, attachment
PROPERTY = "1244"  # 账单, unread
ELECTRICITY = "1247"  # INBOX, unread
HOTEL = "1254"  # 旅行, unread
ALIPAY = "1255"  # INBOX, unread (service mail)
EXHIBITION = "1259"  # INBOX, unread, from Zhao Min
TRAIN = "1261"  # 旅行, read
MOM = "1265"  # INBOX, unread
SECURITY = "1266"  # INBOX, unread (service mail)
DENTIST = "1270"  # INBOX, unread
BADMINTON = "1274"  # INBOX, unread, from Wang Fang, newest
DRAFT = "1276"  # 草稿箱, the highest UID
SEP = "─" * 32


class Box(AppSession):
    """One episode of the 163 app and a connected client."""

    app = APP

    def msg(self, uid: str) -> dict[str, Any]:
        return self.data["messages"][uid]

    async def fail(self, tool: str, args: dict[str, Any] | None, fragment: str, *, prefix: str = "错误: ") -> str:
        """A rejected call: the error flag, the real server's prefix, ``fragment`` in the text, state untouched."""
        text = await self.rejected(tool, args)
        assert text.startswith(prefix), text
        assert fragment in text, text
        return text


def uids(text: str) -> list[str]:
    return re.findall(r"📧 UID: (\d+)", text)


def scored(changes: list[Any]) -> list[Any]:
    """The changes scoring would count (read side effects left out)."""
    return [c for c in changes if not is_ignored(c, APP.hierarchy.ignore_changes)]


# -- the server and the contexts ----------------------------------------------------------------------
async def test_server_lists_exactly_the_eleven_tools() -> None:
    async with Box() as box:
        listed = await box.client.list_tools()
    assert sorted(t.name for t in listed.tools) == sorted(TOOLS)
    schema = {t.name: t.input_schema for t in listed.tools}
    assert schema["send_email"]["required"] == ["to", "subject", "text"]
    assert schema["get_email_content"]["properties"]["uid"]["type"] == "string"
    assert schema["configure_email_server"]["required"] == ["user", "password"]
    assert "required" not in schema["get_recent_emails"]


async def test_unknown_tool_and_unknown_argument() -> None:
    async with Box() as box:
        await box.fail("list_folders", {}, "未知的工具: list_folders")
        await box.fail("get_recent_emails", {"since": "2026-03-01"}, "参数无效: since: Extra inputs are not permitted")


def test_contexts_are_rich_and_personal() -> None:
    for persona, address in (("chen_yu", ME), ("lin_wei", "linwei@163.com"), ("maya_patel", "mayapatel@163.com")):
        data = APP.load_context(persona)
        assert list(data["accounts"]) == [address]
        acc = data["accounts"][address]
        assert acc["configured"] is True and acc["provider"] == "163"
        assert acc["smtp"] == {"host": "smtp.163.com", "port": 465, "secure": True}
        msgs = list(data["messages"].values())
        assert 15 <= len(msgs) <= 30
        assert int(acc["uidnext"]) > max(int(m["uid"]) for m in msgs)
        assert {"INBOX", "已发送", "草稿箱", "已删除", "垃圾邮件"} <= {m["folder"] for m in msgs}
        assert any(not m["seen"] for m in msgs if m["folder"] == "INBOX")
        assert all(m["date"] < NOW for m in msgs)
        senders = {m["from"]["address"] for m in msgs}
        assert any(s.endswith("@163.com") and s != address for s in senders) or persona == "maya_patel"
        assert not any(s.endswith(("@orbitlab.cn", "@lumipay.sg")) for s in senders)  # personal mail only
    maya = APP.load_context("maya_patel")
    assert {"sofiareyes@gmail.com", "priyanair@gmail.com"} <= {m["from"]["address"] for m in maya["messages"].values()}


# -- send_email ---------------------------------------------------------------------------------------
async def test_send_email_stores_the_sent_copy() -> None:
    async with Box() as box:
        text, changes = await box.changes("send_email", {
            "to": ["Wang Fang <wangfang@163.com>"], "cc": ["zhaomin@163.com"], "bcc": ["songke@163.com"],
            "subject": "Re: 这周羽毛球改到周日？", "text": "周日10点可以，我准时到！",
        })
        m = re.fullmatch(r"邮件发送成功！\n消息ID: (<[0-9a-f-]{36}@163\.com>)\n收件人: Wang Fang <wangfang@163\.com>\n"
                         r"主题: Re: 这周羽毛球改到周日？", text)
        assert m, text
        assert sorted((c.op, c.entity_type, c.path) for c in changes) == [
            ("create", "message", f"messages[{UIDNEXT}]"), ("modify", "account", ACCOUNT)]
        assert [c.fields for c in changes if c.op == "modify"] == [("uidnext",)]
        assert scored(changes) == [c for c in changes if c.op == "create"]  # uidnext is bookkeeping
        assert box.msg(str(UIDNEXT)) == {
            "uid": str(UIDNEXT), "folder": "已发送",
            "from": {"name": "Chen Yu", "address": ME},
            "to": [{"name": "Wang Fang", "address": "wangfang@163.com"}],
            "cc": [{"name": "", "address": "zhaomin@163.com"}],
            "bcc": [{"name": "", "address": "songke@163.com"}],
            "subject": "Re: 这周羽毛球改到周日？", "text": "周日10点可以，我准时到！",
            "date": NOW + 1, "seen": True, "flagged": False, "attachments": [], "message_id": m.group(1),
        }
        assert box.data["accounts"][ME]["uidnext"] == UIDNEXT + 1
        listed = await box.ok("get_recent_emails", {"folder": "已发送", "days": 1})
        assert uids(listed) == [str(UIDNEXT)]


async def test_send_email_to_self_with_html_and_attachment_also_lands_in_inbox() -> None:
    async with Box() as box:
        pdf = base64.b64encode(b"%PDF-1.4 hello").decode()
        _, changes = await box.changes("send_email", {
            "to": [ME.upper()], "bcc": ["songke@163.com"], "subject": "备忘", "text": "带上体检报告",
            "html": "<p>带上体检报告</p>", "attachments": [{"filename": "清单.pdf", "content": pdf}],
        })
        assert sorted(c.path for c in changes if c.op == "create") == [f"messages[{UIDNEXT}]",
                                                                      f"messages[{UIDNEXT + 1}]"]
        sent, inbox = box.msg(str(UIDNEXT)), box.msg(str(UIDNEXT + 1))
        assert sent["folder"] == "已发送" and sent["seen"] is True
        assert sent["attachments"] == [{"filename": "清单.pdf", "mimeType": "application/pdf", "size": 14}]
        assert sent["html"] == "<p>带上体检报告</p>"
        assert inbox["folder"] == "INBOX" and inbox["seen"] is False and "bcc" not in inbox
        assert inbox["message_id"] == sent["message_id"] and inbox["subject"] == "备忘"
        recent = await box.ok("get_recent_emails", {"limit": 1})
        assert uids(recent) == [str(UIDNEXT + 1)] and "🔖 状态: 未读" in recent
        content = await box.ok("get_email_content", {"uid": str(UIDNEXT + 1)})
        assert "🌐 HTML内容:\n<p>带上体检报告</p>" in content and "📎 附件列表:\n  1. 清单.pdf (14 bytes)" in content


async def test_send_email_errors() -> None:
    async with Box() as box:
        base = {"to": ["wangfang@163.com"], "subject": "hi", "text": "hello"}
        await box.fail("send_email", base | {"to": "wangfang@163.com"}, "to: Input should be a valid list")  # type
        await box.fail("send_email", {"to": ["wangfang@163.com"], "text": "x"}, "subject: Field required")  # missing
        await box.fail("send_email", base | {"to": []}, "No recipients defined")
        await box.fail("send_email", base | {"attachments": [{"filename": "", "content": "aGk="}]},  # range
                       "attachments.0.filename: String should have at least 1 character")
        await box.fail("send_email", base | {"cc": ["not-an-address"]},
                       "all recipients were rejected: 553 Invalid recipient address <not-an-address>")
        await box.fail("send_email", base | {"attachments": [{"filename": "a.pdf", "path": "/tmp/a.pdf"}]},
                       "ENOENT: no such file or directory, open '/tmp/a.pdf'")
        await box.fail("send_email", base | {"attachments": [{"filename": "a.pdf", "content": "@@@"}]},
                       "不是有效的 base64 编码")
        await box.fail("send_email", base | {"attachments": [{"filename": "a.pdf"}]}, "需要 content（base64）或 path")


# -- get_recent_emails --------------------------------------------------------------------------------
async def test_get_recent_emails_defaults_to_three_days_of_inbox() -> None:
    async with Box() as box:
        text = await box.unchanged("get_recent_emails")
        assert text.startswith("📬 最近3天的邮件列表 (共5封):\n\n")
        assert uids(text) == [BADMINTON, DENTIST, SECURITY, MOM, EXHIBITION]
        first = text.split("\n\n", 1)[1].split(SEP)[0]
        assert first == ("📧 UID: 1274\n📅 日期: Mon, 09 Mar 2026 19:32:00 +0800\n"
                         "👤 发件人: Wang Fang <wangfang@163.com>\n📝 主题: 这周羽毛球改到周日？\n🔖 状态: 未读\n")
        week = await box.ok("get_recent_emails", {"days": 10, "limit": 3})
        assert uids(week) == [BADMINTON, DENTIST, SECURITY]
        travel = await box.ok("get_recent_emails", {"folder": "旅行", "days": 30, "limit": 2})
        assert travel.startswith("📬 旅行 最近30天的邮件列表 (共2封)") and uids(travel) == [TRAIN, HOTEL]
        flagged = await box.ok("get_recent_emails", {"folder": "inbox", "days": 30, "limit": 30})
        assert "📧 UID: 1236" in flagged and "🔖 状态: 已读，已加星标" in flagged
        assert await box.ok("get_recent_emails", {"folder": "已删除"}) == "最近3天内没有找到邮件。"


async def test_get_recent_emails_errors() -> None:
    async with Box() as box:
        await box.fail("get_recent_emails", {"limit": "many"}, "limit: Input should be a valid integer")  # type
        await box.fail("get_recent_emails", {"limit": 0}, "limit: Input should be greater than or equal to 1")
        await box.fail("get_recent_emails", {"days": 0}, "days: Input should be greater than or equal to 1")
        await box.fail("get_recent_emails", {"limit": 101}, "limit: Input should be less than or equal to 100")
        text = await box.fail("get_recent_emails", {"folder": "Sent"}, "Mailbox doesn't exist: Sent")
        assert "已发送" in text and "旅行" in text  # the folders that do exist


# -- get_email_content --------------------------------------------------------------------------------
async def test_get_email_content_formats_the_message_and_marks_it_seen() -> None:
    async with Box() as box:
        text, changes = await box.changes("get_email_content", {"uid": BADMINTON})
        assert text == (
            f"📧 邮件详情 (UID: 1274)\n{SEP}\n📅 日期: Mon, 09 Mar 2026 19:32:00 +0800\n"
            "👤 发件人: Wang Fang <wangfang@163.com>\n👥 收件人: Chen Yu <chenyu@163.com>\n"
            f"📝 主题: 这周羽毛球改到周日？\n📁 文件夹: INBOX\n{SEP}\n📄 文本内容:\n"
            + box.msg(BADMINTON)["text"] + "\n"
        )
        [change] = changes
        assert (change.op, change.path, change.fields) == ("modify", f"messages[{BADMINTON}]", ("seen",))
        assert box.msg(BADMINTON)["seen"] is True
        assert scored(changes) == []  # a read side effect, never collateral damage
        assert await box.unchanged("get_email_content", {"uid": BADMINTON}) == text


async def test_get_email_content_shows_cc_and_attachments() -> None:
    async with Box() as box:
        text = await box.unchanged("get_email_content", {"uid": WEDDING})
        assert "📋 抄送: Zhao Min <zhaomin@163.com>\n" in text
        assert "📎 附件列表:\n  1. 婚礼请柬_明慧与阿哲.jpg (845312 bytes)\n" in text
        assert "2026年4月18日" in text and "3月20日前回复" in text


async def test_get_email_content_errors() -> None:
    async with Box() as box:
        await box.fail("get_email_content", {}, "uid: Field required")
        await box.fail("get_email_content", {"uid": [1274]}, "uid: Input should be a valid string")
        await box.fail("get_email_content", {"uid": True}, "uid: Input should be a valid string")
        await box.fail("get_email_content", {"uid": 1274}, "uid: Input should be a valid string")  # typed: a string
        await box.fail("get_email_content", {"uid": "abc"}, "无效的UID: 'abc'")
        await box.fail("get_email_content", {"uid": "0"}, "无效的UID: '0'")
        await box.fail("get_email_content", {"uid": "9999"}, "未找到UID为 9999 的邮件")


# -- search_emails ------------------------------------------------------------------------------------
async def test_search_emails() -> None:
    async with Box() as box:
        bills = await box.unchanged("search_emails", {"query": "账单"})
        assert bills.startswith('🔍 INBOX 中与"账单"匹配的邮件 (共2封):') and uids(bills) == [ALIPAY, ELECTRICITY]
        unread_bills = await box.ok("search_emails", {"query": "is:unread", "folder": "账单"})
        assert uids(unread_bills) == [PROPERTY]
        assert uids(await box.ok("search_emails", {"query": "from:zhaomin"})) == [EXHIBITION]
        assert uids(await box.ok("search_emails", {"query": "has:attachment"})) == [DAD, WEDDING]
        assert uids(await box.ok("search_emails", {"query": "after:2026/03/09"})) == [BADMINTON, DENTIST]
        assert uids(await box.ok("search_emails", {"query": "婚礼 OR 外公", "limit": 1})) == [MOM]
        assert uids(await box.ok("search_emails", {"query": "厦门", "folder": "旅行"})) == [HOTEL, "1253"]
        none = await box.ok("search_emails", {"query": "Lumen"})
        assert none == '在INBOX中没有找到与"Lumen"匹配的邮件。'


async def test_search_emails_errors() -> None:
    async with Box() as box:
        await box.fail("search_emails", {}, "query: Field required")
        await box.fail("search_emails", {"query": 5}, "query: Input should be a valid string")
        await box.fail("search_emails", {"query": "x", "limit": 0}, "limit: Input should be greater than or equal to 1")
        await box.fail("search_emails", {"query": "   "}, "搜索条件不能为空")
        await box.fail("search_emails", {"query": "after:2026/13/40"}, "搜索条件无效: unreadable date '2026/13/40'")
        await box.fail("search_emails", {"query": "x", "folder": "Bills"}, "Mailbox doesn't exist: Bills")


# -- mark_email_read ----------------------------------------------------------------------------------
async def test_mark_email_read_and_unread() -> None:
    async with Box() as box:
        text, changes = await box.changes("mark_email_read", {"uid": MOM})
        assert text == f"✅ 邮件已标记为已读 (UID: {MOM})"
        assert [(c.path, c.fields) for c in changes] == [(f"messages[{MOM}]", ("seen",))]
        assert box.msg(MOM)["seen"] is True
        text, changes = await box.changes("mark_email_read", {"uid": WEDDING, "read": False})
        assert text == f"✅ 邮件已标记为未读 (UID: {WEDDING})"
        assert box.msg(WEDDING)["seen"] is False and len(changes) == 1
        await box.unchanged("mark_email_read", {"uid": WEDDING, "read": False})  # already unread


async def test_mark_email_read_errors() -> None:
    async with Box() as box:
        await box.fail("mark_email_read", {}, "uid: Field required")
        await box.fail("mark_email_read", {"uid": MOM, "read": "maybe"}, "read: Input should be a valid boolean")
        await box.fail("mark_email_read", {"uid": "-3"}, "无效的UID: '-3'")
        await box.fail("mark_email_read", {"uid": "8888"}, "未找到UID为 8888 的邮件")


# -- delete_email -------------------------------------------------------------------------------------
async def test_delete_email_moves_to_trash_then_expunges() -> None:
    async with Box() as box:
        text, changes = await box.changes("delete_email", {"uid": BADMINTON})
        assert text == f"🗑️ 邮件已移至「已删除」(UID: {BADMINTON})"
        assert [(c.op, c.path, c.fields) for c in changes] == [("modify", f"messages[{BADMINTON}]", ("folder",))]
        assert box.msg(BADMINTON)["folder"] == "已删除"
        text, changes = await box.changes("delete_email", {"uid": JD_TRASH})
        assert text == f"🗑️ 邮件已彻底删除 (UID: {JD_TRASH})"
        assert [(c.op, c.path) for c in changes] == [("delete", f"messages[{JD_TRASH}]")]
        assert JD_TRASH not in box.data["messages"]


async def test_expunged_uids_are_never_reused() -> None:
    async with Box() as box:
        await box.ok("delete_email", {"uid": DRAFT})
        await box.ok("delete_email", {"uid": DRAFT})
        assert DRAFT not in box.data["messages"]
        await box.ok("send_email", {"to": ["wangfang@163.com"], "subject": "s", "text": "t"})
        assert str(UIDNEXT) in box.data["messages"] and DRAFT not in box.data["messages"]


async def test_delete_email_errors() -> None:
    async with Box() as box:
        await box.fail("delete_email", {}, "uid: Field required")
        await box.fail("delete_email", {"uid": {"uid": 1}}, "uid: Input should be a valid string")
        await box.fail("delete_email", {"uid": "12a"}, "无效的UID: '12a'")
        await box.fail("delete_email", {"uid": "1"}, "未找到UID为 1 的邮件")


# -- move_email ---------------------------------------------------------------------------------------
async def test_move_email_keeps_the_uid() -> None:
    async with Box() as box:
        text, changes = await box.changes("move_email", {"uid": ELECTRICITY, "folder": "账单"})
        assert text == f"✅ 邮件已移动 (UID: {ELECTRICITY}): INBOX → 账单"
        assert [(c.op, c.path, c.fields) for c in changes] == [("modify", f"messages[{ELECTRICITY}]", ("folder",))]
        assert box.msg(ELECTRICITY)["folder"] == "账单"
        assert ELECTRICITY in uids(await box.ok("search_emails", {"query": "电费", "folder": "账单"}))
        back = await box.ok("move_email", {"uid": HOTEL, "folder": "inbox"})
        assert back.endswith("旅行 → INBOX") and box.msg(HOTEL)["folder"] == "INBOX"


async def test_move_email_errors() -> None:
    async with Box() as box:
        await box.fail("move_email", {"uid": HOTEL}, "folder: Field required")
        await box.fail("move_email", {"uid": HOTEL, "folder": 3}, "folder: Input should be a valid string")
        await box.fail("move_email", {"uid": HOTEL, "folder": ""}, "folder: String should have at least 1 character")
        await box.fail("move_email", {"uid": HOTEL, "folder": "Travel"}, "Mailbox doesn't exist: Travel")
        await box.fail("move_email", {"uid": HOTEL, "folder": "旅行"}, "邮件已在「旅行」中")
        await box.fail("move_email", {"uid": "4242", "folder": "旅行"}, "未找到UID为 4242 的邮件")


# -- setup_email_account ------------------------------------------------------------------------------
async def test_setup_email_account_with_the_authorization_code() -> None:
    async with Box() as box:
        text = await box.unchanged("setup_email_account", {"email": ME, "password": CODE})  # already configured
        assert text == (
            "✅ 邮箱账号设置成功！\n\n📧 邮箱地址: chenyu@163.com\n🏢 邮箱提供商: 网易邮箱\n"
            "📤 SMTP服务器: smtp.163.com:465 (SSL: true)\n📥 接收协议: POP3\n"
            "📥 POP3服务器: pop.163.com:995 (SSL: true)\n\n💡 提示: 配置已自动完成，您现在可以使用邮件功能了！"
        )
        await box.ok("setup_email_account", {"email": "ChenYu@163.com", "password": CODE, "provider": "163"})


async def test_setup_email_account_configures_an_unconfigured_account() -> None:
    async with Box() as box:
        box.env.tree.update(ACCOUNT, {"configured": False})
        for tool, args in (("get_recent_emails", {}), ("get_email_content", {"uid": MOM}),
                           ("send_email", {"to": ["a@b.cn"], "subject": "s", "text": "t"})):
            await box.fail(tool, args, "缺少邮箱密码配置。请设置 EMAIL_PASSWORD 环境变量。")
        _, changes = await box.changes("setup_email_account", {"email": ME, "password": CODE})
        assert [(c.path, c.fields) for c in changes] == [(ACCOUNT, ("configured",))]
        assert box.data["accounts"][ME]["configured"] is True
        assert len(uids(await box.ok("get_recent_emails"))) == 5


async def test_setup_email_account_errors() -> None:
    async with Box() as box:
        await box.fail("setup_email_account", {"email": ME}, "password: Field required")
        await box.fail("setup_email_account", {"email": 163, "password": CODE}, "email: Input should be a valid string")
        await box.fail("setup_email_account", {"email": ME, "password": CODE, "provider": "yahoo"},
                       "provider: Input should be 'qq', '163'")
        await box.fail("setup_email_account", {"email": ME, "password": ""},
                       "password: String should have at least 1 character")
        auth = "Invalid login: 535 Error: authentication failed"
        await box.fail("setup_email_account", {"email": ME, "password": "my-web-password"}, auth,
                       prefix="❌ 邮箱设置失败: ")
        await box.fail("setup_email_account", {"email": "songke@163.com", "password": CODE}, auth,
                       prefix="❌ 邮箱设置失败: ")
        await box.fail("setup_email_account", {"email": ME, "password": CODE, "provider": "qq"}, auth,
                       prefix="❌ 邮箱设置失败: ")
        await box.fail("setup_email_account", {"email": "chen@orbitlab.cn", "password": CODE},
                       "无法识别邮箱类型: chen@orbitlab.cn", prefix="❌ ")


# -- configure_email_server ---------------------------------------------------------------------------
async def test_configure_email_server_updates_settings_and_can_break_the_connection() -> None:
    async with Box() as box:
        text, changes = await box.changes("configure_email_server",
                                          {"user": ME, "password": CODE, "imapPort": 143, "imapSecure": False})
        assert text == ("邮箱配置已更新：\nSMTP服务器: smtp.163.com\nSMTP端口: 465\nSMTP SSL: true\n"
                        "IMAP服务器: imap.163.com\nIMAP端口: 143\nIMAP SSL: false\n用户: chenyu@163.com")
        assert [(c.path, c.fields) for c in changes] == [(ACCOUNT, ("imap",))]
        assert box.data["accounts"][ME]["imap"] == {"host": "imap.163.com", "port": 143, "secure": False}
        await box.fail("get_recent_emails", {}, "Timed out while connecting to server")
        await box.ok("send_email", {"to": ["wangfang@163.com"], "subject": "s", "text": "t"})  # SMTP still fine
        await box.ok("configure_email_server", {"user": ME, "password": CODE, "smtpHost": "smtp.nowhere.invalid"})
        await box.fail("send_email", {"to": ["wangfang@163.com"], "subject": "s", "text": "t"},
                       "getaddrinfo ENOTFOUND smtp.nowhere.invalid")
        await box.ok("configure_email_server", {"user": ME, "password": CODE, "smtpHost": "smtp.qq.com"})
        await box.fail("send_email", {"to": ["wangfang@163.com"], "subject": "s", "text": "t"},
                       "Invalid login: 535 Error: authentication failed")
        _, changes = await box.changes("setup_email_account", {"email": ME, "password": CODE})  # back to defaults
        assert [(c.path, c.fields) for c in changes] == [(ACCOUNT, ("imap", "smtp"))]
        assert len(uids(await box.ok("get_recent_emails"))) == 5


async def test_configure_email_server_errors() -> None:
    async with Box() as box:
        await box.fail("configure_email_server", {"password": CODE}, "user: Field required")
        await box.fail("configure_email_server", {"user": ME, "password": CODE, "smtpPort": "fast"},
                       "smtpPort: Input should be a valid integer")
        await box.fail("configure_email_server", {"user": ME, "password": CODE, "smtpPort": 70000},
                       "smtpPort: Input should be less than or equal to 65535")
        await box.fail("configure_email_server", {"user": ME, "password": "wrong", "smtpPort": 25},
                       "Invalid login: 535 Error: authentication failed")
        await box.fail("configure_email_server", {"user": "zhaomin@163.com", "password": CODE},
                       "Invalid login: 535 Error: authentication failed")


# -- list_supported_providers -------------------------------------------------------------------------
async def test_list_supported_providers() -> None:
    async with Box() as box:
        text = await box.unchanged("list_supported_providers")
        assert text.startswith("📋 支持的邮箱提供商:\n\n🏢 QQ邮箱 (qq)\n   域名: qq.com\n   推荐协议: IMAP\n")
        assert ("🏢 网易邮箱 (163)\n   域名: 163.com, 126.com, yeah.net\n   推荐协议: POP3\n"
                "   示例: user@163.com") in text
        assert re.findall(r"🏢 .+ \((\w+)\)", text) == ["qq", "163", "gmail", "outlook", "exmail", "aliyun", "sina",
                                                       "sohu"]
        assert text.endswith("⚠️  注意: 请确保已在对应邮箱中开启POP3/IMAP/SMTP服务并获取授权码！")
        await box.fail("list_supported_providers", {"provider": "163"}, "provider: Extra inputs are not permitted")


# -- test_email_connection ----------------------------------------------------------------------------
async def test_test_email_connection() -> None:
    async with Box() as box:
        both = await box.unchanged("test_email_connection")
        assert both == "✅ SMTP服务器连接测试成功！\n✅ IMAP服务器连接测试成功！"
        assert await box.ok("test_email_connection", {"testType": "imap"}) == "✅ IMAP服务器连接测试成功！"
        await box.ok("configure_email_server", {"user": ME, "password": CODE, "imapHost": "imap.example.invalid"})
        text = await box.fail("test_email_connection", {},
                              "❌ IMAP连接测试失败: getaddrinfo ENOTFOUND imap.example.invalid",
                              prefix="✅ SMTP服务器连接测试成功！\n")
        assert text.count("\n") == 1
        assert await box.ok("test_email_connection", {"testType": "smtp"}) == "✅ SMTP服务器连接测试成功！"


async def test_test_email_connection_errors() -> None:
    async with Box() as box:
        await box.fail("test_email_connection", {"testType": 1}, "testType: Input should be 'smtp', 'imap' or 'both'")
        await box.fail("test_email_connection", {"testType": "pop3"}, "testType: Input should be 'smtp'")
        box.env.tree.update(ACCOUNT, {"configured": False})
        await box.fail("test_email_connection", {"testType": "smtp"}, "缺少邮箱密码配置",
                       prefix="❌ SMTP连接测试失败: ")


# -- another persona ----------------------------------------------------------------------------------
async def test_maya_patel_mailbox() -> None:
    clock = TaskClock(now=datetime(2026, 3, 10, 9, 30), timezone="Asia/Singapore")
    async with Box("maya_patel", clock) as box:
        code = box.data["accounts"]["mayapatel@163.com"]["auth_code"]
        await box.ok("setup_email_account", {"email": "mayapatel@163.com", "password": code})
        travel = await box.ok("get_recent_emails", {"folder": "Travel", "days": 10})
        assert "Booking confirmed: Singapore – Shanghai round trip" in travel
        hits = await box.ok("search_emails", {"query": "from:priyanair Xiaomi"})
        [uid] = uids(hits)
        content = await box.ok("get_email_content", {"uid": uid})
        assert "Xiaomi Smart Band 9" in content and "📅 日期: Sun, 08 Mar 2026 10:22:00 +0800" in content
        await box.ok("send_email", {"to": ["priyanair@gmail.com"], "subject": "Re: Anything you want from Shanghai?",
                                    "text": "Will do!"})
        sent = await box.ok("search_emails", {"query": "to:priyanair", "folder": "已发送"})
        assert len(uids(sent)) == 2
