"""The Telegram app through the real MCP path: every tool's success path and its four error classes.

Each call goes through ``mcp.Client`` against the app's ``MCPServer``; writes are checked against
``env.tree.data`` and an entity-level diff, failures against the Bot API envelope (``ok: false``,
``error_code``, ``description``) and an unchanged state hash. Ids are looked up by name in the
generated context, so the tests read like the tasks an agent would get.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

import pytest

from app_harness import CLOCK, AppSession
from mcp_persona.apps import get_app
from mcp_persona.context_tree import diff_states, is_ignored

pytestmark = pytest.mark.anyio

APP = get_app("telegram")
NOW = CLOCK.timestamp()
START = int(datetime(2026, 2, 19).timestamp())
TOOLS = ["get_chats", "get_chat", "get_messages", "send_message", "search_messages", "get_contacts",
         "forward_message", "pin_message", "mark_as_read", "edit_message"]


class TG(AppSession):
    """One episode of the Telegram app and a connected client."""

    app = APP
    json_results = True

    # -- lookups by name ---------------------------------------------------------------------------
    def chat(self, title: str) -> dict[str, Any]:
        for chat in self.data["chats"].values():
            name = chat.get("title") or self.user_name(chat["user_id"])
            if name == title:
                return chat
        raise KeyError(title)

    def chat_id(self, title: str) -> int:
        return int(self.chat(title)["id"])

    def user(self, full_name: str) -> dict[str, Any]:
        return next(u for u in self.data["users"].values()
                    if f"{u['first_name']} {u.get('last_name', '')}".strip() == full_name)

    def user_name(self, uid: str) -> str:
        u = self.data["users"][uid]
        return f"{u['first_name']} {u.get('last_name', '')}".strip()

    def msg_id(self, title: str, fragment: str) -> int:
        chat = self.chat(title)
        return int(next(m["message_id"] for m in chat["messages"].values() if fragment in m["text"]))

    def top(self, title: str) -> int:
        return max(int(k) for k in self.chat(title)["messages"])

    # -- calls ---------------------------------------------------------------------------------------
    async def ok(self, tool: str, args: dict[str, Any] | None = None) -> Any:
        body = await super().ok(tool, args)
        assert body["ok"] is True, body
        return body["result"]

    async def fail(self, tool: str, args: dict[str, Any] | None, description: str, code: int = 400) -> None:
        """A rejected call: the error flag, the Bot API envelope, the exact description, the state untouched."""
        body = await self.rejected(tool, args)
        assert body == {"ok": False, "error_code": code, "description": description}, body


# -- the server and its contexts ------------------------------------------------------------------------
async def test_tool_list_and_schemas() -> None:
    async with TG() as tg:
        tools = {t.name: t for t in (await tg.client.list_tools()).tools}
    assert list(tools) == TOOLS
    send = tools["send_message"].input_schema
    assert send["required"] == ["chat_id", "text"]
    assert send["properties"]["chat_id"]["anyOf"] == [{"type": "integer"}, {"type": "string"}]
    assert tools["get_messages"].input_schema["properties"]["limit"]["maximum"] == 100


@pytest.mark.parametrize("context", ["chen_yu", "lin_wei", "maya_patel"])
def test_context_is_consistent(context: str) -> None:
    data = APP.load_context(context)
    assert data["context_id"] == context and data["me"] in data["users"]
    users, chats = data["users"], data["chats"]
    assert len(users) >= 12 and len(chats) >= 8
    assert {c["type"] for c in chats.values()} == {"private", "group", "supergroup", "channel"}
    assert any(u["is_deleted"] for u in users.values())
    assert any(c["has_protected_content"] for c in chats.values()) or context != "chen_yu"
    for cid, chat in chats.items():
        if chat["type"] == "private":
            assert cid == chat["user_id"] and data["me"] in chat["member_ids"]
        elif chat["type"] in ("supergroup", "channel"):
            assert cid.startswith("-100") and len(cid) == 14
        else:
            assert cid.startswith("-") and not cid.startswith("-100")
        ids = sorted(int(k) for k in chat["messages"])
        assert ids == list(range(ids[0], ids[0] + len(ids)))  # per-chat counter
        assert set(chat["pinned_message_ids"]) <= set(ids)
        assert chat["read_inbox_max_id"] + chat["unread_count"] == ids[-1]
        for m in chat["messages"].values():
            assert START < m["date"] < NOW and m["text"]
            if "reply_to_message_id" in m:
                assert m["reply_to_message_id"] < int(m["message_id"])
            if chat["type"] == "channel":
                assert chat["my_status"] in ("creator", "administrator") or m["from_id"] != data["me"]


def test_contexts_differ_by_persona() -> None:
    titles = {c: {ch.get("title") for ch in APP.load_context(c)["chats"].values()}
              for c in ("chen_yu", "lin_wei", "maya_patel")}
    assert "Spring Campaign 2026" in titles["chen_yu"]
    assert "VL Lab" in titles["lin_wei"]
    assert "PayLater v2 Launch" in titles["maya_patel"]


async def test_unknown_tool() -> None:
    async with TG() as tg:
        await tg.fail("delete_chat", {"chat_id": 1}, "Not Found: method not found", code=404)


# -- get_chats -----------------------------------------------------------------------------------------
async def test_get_chats_lists_dialogs_by_recent_activity() -> None:
    async with TG() as tg:
        before = tg.env.tree.hash()
        dialogs = await tg.ok("get_chats", {"limit": 100})
        assert len(dialogs) == len(tg.data["chats"])
        dates = [d["last_message"]["date"] for d in dialogs]
        assert dates == sorted(dates, reverse=True)
        spring = next(d for d in dialogs if d.get("title") == "Spring Campaign 2026")
        assert spring["type"] == "supergroup" and spring["id"] == tg.chat_id("Spring Campaign 2026")
        assert spring["unread_count"] == tg.chat("Spring Campaign 2026")["unread_count"] == 2
        assert spring["last_message"]["text"].startswith("Found a bug on staging")
        zhao = next(d for d in dialogs if d.get("first_name") == "Zhao")
        assert zhao["type"] == "private" and zhao["id"] == int(tg.user("Zhao Min")["id"])
        assert "title" not in zhao and zhao["unread_count"] == 2
        assert len(await tg.ok("get_chats", {"limit": 3})) == 3
        assert await tg.ok("get_chats", {}) == dialogs[:20]
        assert tg.env.tree.hash() == before


async def test_get_chats_rejections() -> None:
    async with TG() as tg:
        await tg.fail("get_chats", {"limit": "many"}, 'Bad Request: field "limit" has a wrong type: '
                      "Input should be a valid integer, unable to parse string as an integer")
        await tg.fail("get_chats", {"limit": 0}, 'Bad Request: invalid value of "limit": '
                      "Input should be greater than or equal to 1")
        await tg.fail("get_chats", {"limit": 101}, 'Bad Request: invalid value of "limit": '
                      "Input should be less than or equal to 100")
        await tg.fail("get_chats", {"folder": "work"}, 'Bad Request: unknown parameter "folder"')


# -- get_chat ------------------------------------------------------------------------------------------
async def test_get_chat_group_private_channel() -> None:
    async with TG() as tg:
        spring = await tg.ok("get_chat", {"chat_id": tg.chat_id("Spring Campaign 2026")})
        assert spring["title"] == "Spring Campaign 2026" and spring["type"] == "supergroup"
        assert spring["member_count"] == 7
        assert spring["permissions"] == {"can_send_messages": True, "can_pin_messages": False}
        assert spring["pinned_message"]["text"].startswith("Launch date is locked: Wednesday March 25")
        assert spring["pinned_message"]["from"]["first_name"] == "Song"
        zhao = await tg.ok("get_chat", {"chat_id": str(tg.chat_id("Zhao Min"))})  # a numeric string works too
        assert zhao["type"] == "private" and zhao["first_name"] == "Zhao" and zhao["bio"]
        assert "member_count" not in zhao and "pinned_message" not in zhao
        news = await tg.ok("get_chat", {"chat_id": "@orbitlab_news"})
        assert news["id"] == tg.chat_id("Orbit Lab News") and news["type"] == "channel"
        assert news["member_count"] == 146 and "permissions" not in news
        lumen = await tg.ok("get_chat", {"chat_id": tg.chat_id("Lumen x Orbit Lab")})
        assert lumen["has_protected_content"] is True and lumen["type"] == "group"
        by_user = await tg.ok("get_chat", {"chat_id": "@ZhaoMin"})  # usernames are case-insensitive
        assert by_user["id"] == zhao["id"]


async def test_get_chat_rejections() -> None:
    async with TG() as tg:
        await tg.fail("get_chat", {}, "Bad Request: chat_id is empty")
        await tg.fail("get_chat", {"chat_id": [1]}, 'Bad Request: field "chat_id" must be of type Integer or String')
        await tg.fail("get_chat", {"chat_id": -1009999999999}, "Bad Request: chat not found")
        await tg.fail("get_chat", {"chat_id": "@nobody_here"}, "Bad Request: chat not found")
        await tg.fail("get_chat", {"chat_id": "Spring Campaign 2026"}, "Bad Request: chat not found")
        await tg.fail("get_chat", {"chat_id": int(tg.user("Song Ke")["id"])}, "Bad Request: chat not found")


# -- get_messages -------------------------------------------------------------------------------------
async def test_get_messages_newest_first_with_offset_paging() -> None:
    async with TG() as tg:
        cid = tg.chat_id("Spring Campaign 2026")
        top = tg.top("Spring Campaign 2026")
        first = await tg.ok("get_messages", {"chat_id": cid, "limit": 3})
        assert [m["message_id"] for m in first] == [top, top - 1, top - 2]
        assert first[0]["text"].startswith("Found a bug on staging") and first[0]["from"]["first_name"] == "Liu"
        assert first[0]["chat"] == {"id": cid, "title": "Spring Campaign 2026", "type": "supergroup"}
        older = await tg.ok("get_messages", {"chat_id": cid, "limit": 3, "offset_id": top - 2})
        assert [m["message_id"] for m in older] == [top - 3, top - 4, top - 5]
        everything = await tg.ok("get_messages", {"chat_id": cid, "limit": 100})
        assert len(everything) == 9 and everything[:6] == first + older
        reply = next(m for m in everything if "reply_to_message" in m)
        assert reply["text"].startswith("Sending it today")
        assert reply["reply_to_message"]["text"] == "Can someone send me the final creator shortlist before the review?"
        assert "reply_to_message" not in reply["reply_to_message"]
        assert await tg.ok("get_messages", {"chat_id": cid, "offset_id": top - 8}) == []
        news = await tg.ok("get_messages", {"chat_id": "@orbitlab_news", "limit": 1})
        assert "from" not in news[0] and news[0]["sender_chat"]["title"] == "Orbit Lab News"


async def test_get_messages_rejections() -> None:
    async with TG() as tg:
        cid = tg.chat_id("Spring Campaign 2026")
        await tg.fail("get_messages", {"limit": 5}, "Bad Request: chat_id is empty")
        await tg.fail("get_messages", {"chat_id": cid, "offset_id": "latest"}, 'Bad Request: field "offset_id" has a '
                      "wrong type: Input should be a valid integer, unable to parse string as an integer")
        await tg.fail("get_messages", {"chat_id": cid, "limit": 500}, 'Bad Request: invalid value of "limit": '
                      "Input should be less than or equal to 100")
        await tg.fail("get_messages", {"chat_id": cid, "offset_id": -1}, 'Bad Request: invalid value of "offset_id": '
                      "Input should be greater than or equal to 0")
        await tg.fail("get_messages", {"chat_id": 42}, "Bad Request: chat not found")


# -- send_message -------------------------------------------------------------------------------------
async def test_send_message_to_a_group_with_a_reply() -> None:
    async with TG() as tg:
        cid = tg.chat_id("Spring Campaign 2026")
        top = tg.top("Spring Campaign 2026")
        before = tg.env.tree.snapshot()
        bug = tg.msg_id("Spring Campaign 2026", "Found a bug on staging")
        sent = await tg.ok("send_message", {"chat_id": cid, "text": "Thanks Liu Yang, please ping me when fixed.",
                                            "reply_to_message_id": bug})
        assert sent["message_id"] == top + 1 and sent["date"] == NOW + 1
        assert sent["from"]["id"] == int(tg.data["me"]) and sent["from"]["first_name"] == "Chen"
        assert sent["reply_to_message"]["message_id"] == bug
        path = f"chats[{cid}].messages[{top + 1}]"
        assert tg.diff(before) == [("create", path, ())]
        assert tg.chat("Spring Campaign 2026")["messages"][str(top + 1)] == {
            "message_id": str(top + 1), "from_id": tg.data["me"], "date": NOW + 1,
            "text": "Thanks Liu Yang, please ping me when fixed.", "reply_to_message_id": bug}


async def test_send_message_by_username_and_opening_a_private_chat() -> None:
    async with TG() as tg:
        song = tg.user("Song Ke")
        assert song["id"] not in tg.data["chats"]
        before = tg.env.tree.snapshot()
        sent = await tg.ok("send_message", {"chat_id": int(song["id"]), "text": "Poster v2 is ready for review."})
        assert sent["message_id"] == 1 and sent["chat"]["type"] == "private"
        assert sent["chat"]["first_name"] == "Song"
        assert tg.diff(before) == [("create", f"chats[{song['id']}]", ())]
        chat = tg.data["chats"][song["id"]]
        assert chat["user_id"] == song["id"] and chat["member_ids"] == [tg.data["me"], song["id"]]
        assert list(chat["messages"]) == ["1"]
        second = await tg.ok("send_message", {"chat_id": "@" + song["username"], "text": "Ping!"})
        assert second["message_id"] == 2 and second["chat"]["id"] == int(song["id"])


async def test_send_message_to_own_channel_as_admin() -> None:
    async with TG() as tg:
        sent = await tg.ok("send_message", {"chat_id": "@orbitlab_news", "text": "Spring launch on March 25!"})
        assert sent["sender_chat"]["title"] == "Orbit Lab News" and "from" not in sent


async def test_send_message_rejections() -> None:
    async with TG() as tg:
        cid = tg.chat_id("Spring Campaign 2026")
        await tg.fail("send_message", {"chat_id": cid}, "Bad Request: message text is empty")
        await tg.fail("send_message", {"text": "hello"}, "Bad Request: chat_id is empty")
        await tg.fail("send_message", {"chat_id": cid, "text": "   "}, "Bad Request: message text is empty")
        await tg.fail("send_message", {"chat_id": cid, "text": 42}, 'Bad Request: field "text" has a wrong type: '
                      "Input should be a valid string")
        await tg.fail("send_message", {"chat_id": {"id": cid}, "text": "x"},
                      'Bad Request: field "chat_id" must be of type Integer or String')
        await tg.fail("send_message", {"chat_id": cid, "text": "x" * 4097}, "Bad Request: message is too long")
        await tg.fail("send_message", {"chat_id": cid, "text": "x", "reply_to_message_id": 0},
                      'Bad Request: invalid value of "reply_to_message_id": Input should be greater than or equal to 1')
        await tg.fail("send_message", {"chat_id": cid, "text": "x", "reply_to_message_id": 5},
                      "Bad Request: message to be replied not found")
        await tg.fail("send_message", {"chat_id": 777, "text": "x"}, "Bad Request: chat not found")
        await tg.fail("send_message", {"chat_id": int(tg.data["me"]), "text": "note to self"},
                      "Bad Request: chat not found")
        deleted = next(u for u in tg.data["users"].values() if u["is_deleted"])
        await tg.fail("send_message", {"chat_id": int(deleted["id"]), "text": "Hello?"},
                      "Forbidden: user is deactivated", code=403)


async def test_send_message_needs_rights() -> None:
    async with TG("lin_wei") as tg:
        await tg.fail("send_message", {"chat_id": "@eastlake_hpc", "text": "Is gpu-a07 free?"},
                      "Bad Request: need administrator rights in the channel chat")
    async with TG() as tg:
        growth = tg.chat("Shanghai Growth Marketers")
        tg.env.tree.update(f"chats[{growth['id']}]", {"permissions": {"can_send_messages": False,
                                                                        "can_pin_messages": False}})
        await tg.fail("send_message", {"chat_id": int(growth["id"]), "text": "Count me in"},
                      "Bad Request: not enough rights to send text messages to the chat")


# -- search_messages ----------------------------------------------------------------------------------
async def test_search_messages_every_word_newest_first() -> None:
    async with TG() as tg:
        before = tg.env.tree.hash()
        hits = await tg.ok("search_messages", {"query": "a2 LUMEN"})
        texts = [h["text"] for h in hits]
        assert texts and all("a2" in t.lower() and "lumen" in t.lower() for t in texts)
        assert any(t.startswith("Lumen's store ops lead says A2") for t in texts)
        dates = [h["date"] for h in hits]
        assert dates == sorted(dates, reverse=True)
        every = sum(1 for c in tg.data["chats"].values() for m in c["messages"].values()
                    if "a2" in m["text"].lower() and "lumen" in m["text"].lower())
        assert len(hits) == every
        zhao = await tg.ok("search_messages", {"query": "poster", "chat_id": tg.chat_id("Zhao Min")})
        assert zhao and {h["chat"]["id"] for h in zhao} == {tg.chat_id("Zhao Min")}
        assert len(await tg.ok("search_messages", {"query": "the", "limit": 2})) == 2
        assert await tg.ok("search_messages", {"query": "kangaroo"}) == []
        assert tg.env.tree.hash() == before


async def test_search_messages_rejections() -> None:
    async with TG() as tg:
        await tg.fail("search_messages", {}, "Bad Request: query is empty")
        await tg.fail("search_messages", {"query": "   "}, "Bad Request: query is empty")
        await tg.fail("search_messages", {"query": ""}, "Bad Request: query is empty")
        await tg.fail("search_messages", {"query": "poster", "limit": 0}, 'Bad Request: invalid value of "limit": '
                      "Input should be greater than or equal to 1")
        await tg.fail("search_messages", {"query": ["poster"]}, 'Bad Request: field "query" has a wrong type: '
                      "Input should be a valid string")
        await tg.fail("search_messages", {"query": "poster", "chat_id": -1001}, "Bad Request: chat not found")


# -- get_contacts -------------------------------------------------------------------------------------
async def test_get_contacts() -> None:
    async with TG() as tg:
        contacts = await tg.ok("get_contacts")
        names = [f"{c['first_name']} {c.get('last_name', '')}".strip() for c in contacts]
        assert names == sorted(names, key=str.lower)
        assert {"Zhao Min", "Song Ke", "Mia Zhou", "Grace Lu", "Zhou Jie"} <= set(names)
        assert "Chen Yu" not in names and "Kevin Shen" not in names and "Deleted Account" not in names
        zhao = next(c for c in contacts if c["first_name"] == "Zhao")
        assert zhao == {"user_id": int(tg.user("Zhao Min")["id"]), "first_name": "Zhao", "last_name": "Min",
                        "username": tg.user("Zhao Min")["username"], "phone_number": "8613800138000"}
        await tg.fail("get_contacts", {"limit": 5}, 'Bad Request: unknown parameter "limit"')


# -- forward_message ----------------------------------------------------------------------------------
async def test_forward_message_from_a_group_and_from_a_channel() -> None:
    async with TG() as tg:
        spring, zhao = tg.chat_id("Spring Campaign 2026"), tg.chat_id("Zhao Min")
        launch = tg.msg_id("Spring Campaign 2026", "Launch date is locked")
        original = tg.chat("Spring Campaign 2026")["messages"][str(launch)]
        top = tg.top("Zhao Min")
        before = tg.env.tree.snapshot()
        fwd = await tg.ok("forward_message", {"from_chat_id": spring, "message_id": launch, "to_chat_id": zhao})
        assert fwd["message_id"] == top + 1 and fwd["chat"]["id"] == zhao and fwd["text"] == original["text"]
        assert fwd["forward_origin"] == {"type": "user", "date": original["date"],
                                         "sender_user": {"id": int(tg.user("Song Ke")["id"]), "is_bot": False,
                                                         "first_name": "Song", "last_name": "Ke",
                                                         "username": tg.user("Song Ke")["username"]}}
        assert tg.diff(before) == [("create", f"chats[{zhao}].messages[{top + 1}]", ())]
        stored = tg.chat("Zhao Min")["messages"][str(top + 1)]
        assert stored["forward_from_id"] == tg.user("Song Ke")["id"] and stored["from_id"] == tg.data["me"]
        # a forward of that forward still names Song Ke
        again = await tg.ok("forward_message", {"from_chat_id": zhao, "message_id": top + 1, "to_chat_id": spring})
        assert again["forward_origin"]["sender_user"]["first_name"] == "Song"
        news = tg.chat("Orbit Lab News")
        post = tg.msg_id("Orbit Lab News", "Save the date")
        from_channel = await tg.ok("forward_message", {"from_chat_id": "@orbitlab_news", "message_id": post,
                                                       "to_chat_id": spring})
        assert from_channel["forward_origin"] == {
            "type": "channel", "date": news["messages"][str(post)]["date"],
            "chat": {"id": int(news["id"]), "title": "Orbit Lab News", "username": "orbitlab_news", "type": "channel"},
            "message_id": post}


async def test_forward_message_rejections() -> None:
    async with TG() as tg:
        spring, zhao = tg.chat_id("Spring Campaign 2026"), tg.chat_id("Zhao Min")
        launch = tg.msg_id("Spring Campaign 2026", "Launch date is locked")
        await tg.fail("forward_message", {"from_chat_id": spring, "message_id": launch},
                      "Bad Request: to_chat_id is empty")
        await tg.fail("forward_message", {"from_chat_id": spring, "message_id": "first", "to_chat_id": zhao},
                      'Bad Request: field "message_id" has a wrong type: '
                      "Input should be a valid integer, unable to parse string as an integer")
        await tg.fail("forward_message", {"from_chat_id": spring, "message_id": 0, "to_chat_id": zhao},
                      'Bad Request: invalid value of "message_id": Input should be greater than or equal to 1')
        await tg.fail("forward_message", {"from_chat_id": spring, "message_id": 3, "to_chat_id": zhao},
                      "Bad Request: message to forward not found")
        await tg.fail("forward_message", {"from_chat_id": spring, "message_id": launch, "to_chat_id": 12345},
                      "Bad Request: chat not found")
        lumen = tg.chat("Lumen x Orbit Lab")
        size = tg.msg_id("Lumen x Orbit Lab", "must be A2")
        await tg.fail("forward_message", {"from_chat_id": int(lumen["id"]), "message_id": size, "to_chat_id": zhao},
                      "Bad Request: message can't be forwarded")
    async with TG("lin_wei") as tg:
        lab = tg.chat("VL Lab")
        mid = tg.msg_id("VL Lab", "gpu-a07")
        await tg.fail("forward_message", {"from_chat_id": int(lab["id"]), "message_id": mid,
                                          "to_chat_id": "@eastlake_hpc"},
                      "Bad Request: need administrator rights in the channel chat")


# -- pin_message --------------------------------------------------------------------------------------
async def test_pin_message_as_admin_and_in_a_private_chat() -> None:
    async with TG() as tg:
        cid = tg.chat_id("Spring Campaign 2026")
        old = tg.chat("Spring Campaign 2026")["pinned_message_ids"]
        review = tg.msg_id("Spring Campaign 2026", "Creative review is tomorrow")
        before = tg.env.tree.snapshot()
        assert await tg.ok("pin_message", {"chat_id": cid, "message_id": review}) is True
        assert tg.diff(before) == [("modify", f"chats[{cid}]", ("pinned_message_ids",))]
        assert tg.chat("Spring Campaign 2026")["pinned_message_ids"] == [*old, review]
        info = await tg.ok("get_chat", {"chat_id": cid})
        assert info["pinned_message"]["message_id"] == review
        # pinning the older message again makes it the latest pin
        assert await tg.ok("pin_message", {"chat_id": cid, "message_id": old[0], "disable_notification": True})
        assert tg.chat("Spring Campaign 2026")["pinned_message_ids"] == [review, old[0]]
        wang = tg.chat_id("Wang Fang")
        size = tg.msg_id("Wang Fang", "220 in total")
        assert await tg.ok("pin_message", {"chat_id": wang, "message_id": size})
        assert tg.chat("Wang Fang")["pinned_message_ids"] == [size]


async def test_pin_message_rejections() -> None:
    async with TG() as tg:
        cid = tg.chat_id("Spring Campaign 2026")
        await tg.fail("pin_message", {"chat_id": cid}, "Bad Request: message_id is empty")
        await tg.fail("pin_message", {"chat_id": cid, "message_id": [1]}, 'Bad Request: field "message_id" has a '
                      "wrong type: Input should be a valid integer")
        await tg.fail("pin_message", {"chat_id": cid, "message_id": -3}, 'Bad Request: invalid value of "message_id": '
                      "Input should be greater than or equal to 1")
        await tg.fail("pin_message", {"chat_id": cid, "message_id": 99999}, "Bad Request: message to pin not found")
        growth = tg.chat("Shanghai Growth Marketers")
        tip = tg.msg_id("Shanghai Growth Marketers", "Meetup on March 28")
        await tg.fail("pin_message", {"chat_id": int(growth["id"]), "message_id": tip},
                      "Bad Request: not enough rights to manage pinned messages in the chat")


# -- mark_as_read -------------------------------------------------------------------------------------
async def test_mark_as_read_is_a_read_side_effect() -> None:
    async with TG() as tg:
        cid = tg.chat_id("Zhao Min")
        assert tg.chat("Zhao Min")["unread_count"] == 2
        before = tg.env.tree.snapshot()
        assert await tg.ok("mark_as_read", {"chat_id": cid}) is True
        chat = tg.chat("Zhao Min")
        assert chat["unread_count"] == 0 and chat["read_inbox_max_id"] == tg.top("Zhao Min")
        changes = diff_states(APP.hierarchy, before, tg.data)
        assert [(c.op, c.path, c.fields) for c in changes] == [
            ("modify", f"chats[{cid}]", ("read_inbox_max_id", "unread_count"))]
        assert all(is_ignored(c, APP.hierarchy.ignore_changes) for c in changes)
        dialogs = await tg.ok("get_chats", {"limit": 100})
        assert next(d for d in dialogs if d["id"] == cid)["unread_count"] == 0


async def test_mark_as_read_rejections() -> None:
    async with TG() as tg:
        await tg.fail("mark_as_read", {}, "Bad Request: chat_id is empty")
        await tg.fail("mark_as_read", {"chat_id": 1.5},
                      'Bad Request: field "chat_id" must be of type Integer or String')
        await tg.fail("mark_as_read", {"chat_id": ""}, "Bad Request: chat_id is empty")
        await tg.fail("mark_as_read", {"chat_id": -4000000001}, "Bad Request: chat not found")


# -- edit_message -------------------------------------------------------------------------------------
async def test_edit_message_own_message() -> None:
    async with TG() as tg:
        cid = tg.chat_id("Spring Campaign 2026")
        mine = tg.msg_id("Spring Campaign 2026", "Creative review is tomorrow")
        before = tg.env.tree.snapshot()
        text = "Creative review moved to 11:00 (Wed 11 Mar), Room 3."
        edited = await tg.ok("edit_message", {"chat_id": cid, "message_id": mine, "text": text})
        assert edited["text"] == text and edited["edit_date"] == NOW + 1 and edited["message_id"] == mine
        assert tg.diff(before) == [("modify", f"chats[{cid}].messages[{mine}]", ("edit_date", "text"))]


async def test_edit_message_rejections() -> None:
    async with TG() as tg:
        cid = tg.chat_id("Spring Campaign 2026")
        mine = tg.msg_id("Spring Campaign 2026", "Creative review is tomorrow")
        theirs = tg.msg_id("Spring Campaign 2026", "Launch date is locked")
        current = tg.chat("Spring Campaign 2026")["messages"][str(mine)]["text"]
        await tg.fail("edit_message", {"chat_id": cid, "message_id": mine}, "Bad Request: message text is empty")
        await tg.fail("edit_message", {"chat_id": cid, "message_id": mine, "text": None},
                      'Bad Request: field "text" has a wrong type: Input should be a valid string')
        await tg.fail("edit_message", {"chat_id": cid, "message_id": mine, "text": "y" * 5000},
                      "Bad Request: message is too long")
        await tg.fail("edit_message", {"chat_id": cid, "message_id": theirs, "text": "Launch moved"},
                      "Bad Request: message can't be edited")
        await tg.fail("edit_message", {"chat_id": cid, "message_id": mine, "text": current},
                      "Bad Request: message is not modified: specified new message content and reply markup are "
                      "exactly the same as a current content and reply markup of the message")
        await tg.fail("edit_message", {"chat_id": cid, "message_id": 1, "text": "x"},
                      "Bad Request: message to edit not found")


async def test_forwarded_messages_cannot_be_edited() -> None:
    async with TG() as tg:
        spring, zhao = tg.chat_id("Spring Campaign 2026"), tg.chat_id("Zhao Min")
        launch = tg.msg_id("Spring Campaign 2026", "Launch date is locked")
        fwd = await tg.ok("forward_message", {"from_chat_id": spring, "message_id": launch, "to_chat_id": zhao})
        await tg.fail("edit_message", {"chat_id": zhao, "message_id": fwd["message_id"], "text": "changed"},
                      "Bad Request: message can't be edited")
