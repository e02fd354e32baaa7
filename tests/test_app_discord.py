"""The Discord app through the real MCP path: every tool's success path and its four error classes.

Each call goes through ``mcp.Client`` against the app's ``MCPServer``; answers are the plain text
of hanweg/mcp-discord, writes are checked against ``env.tree.data`` and an entity-level diff,
failures against the exact text the real server would show and an unchanged state hash.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from app_harness import CLOCK, AppSession
from mcp_persona.apps import get_app
from mcp_persona.apps.discord import snowflake
from mcp_persona.apps.discord.tools import is_unicode_emoji

pytestmark = pytest.mark.anyio

APP = get_app("discord")
NOW = CLOCK.timestamp()
TOOLS = ["list_servers", "get_server_info", "list_members", "add_role", "remove_role", "create_text_channel",
         "delete_channel", "add_reaction", "add_multiple_reactions", "remove_reaction", "send_message",
         "read_messages", "get_user_info", "moderate_message"]

MISSING_PERMISSIONS = "403 Forbidden (error code: 50013): Missing Permissions"
UNKNOWN_CHANNEL = "404 Not Found (error code: 10003): Unknown Channel"
UNKNOWN_MESSAGE = "404 Not Found (error code: 10008): Unknown Message"
UNKNOWN_GUILD = "404 Not Found (error code: 10004): Unknown Guild"
UNKNOWN_EMOJI = "400 Bad Request (error code: 10014): Unknown Emoji"
NO_SUCH = "1" * 18


class DC(AppSession):
    """One episode of the Discord app and a connected client, with lookups by name."""

    app = APP

    @property
    def me(self) -> str:
        return self.data["me"]

    def server(self, name: str) -> dict[str, Any]:
        return next(s for s in self.data["servers"].values() if s["name"] == name)

    def channel(self, server: str, name: str) -> dict[str, Any]:
        return next(c for c in self.server(server)["channels"].values() if c["name"] == name)

    def role(self, server: str, name: str) -> dict[str, Any]:
        return next(r for r in self.server(server)["roles"].values() if r["name"] == name)

    def user(self, username: str) -> dict[str, Any]:
        return next(u for u in self.data["users"].values() if u["username"] == username)

    def cast(self, name: str) -> dict[str, Any]:
        return next(u for u in self.data["users"].values() if u["global_name"] == name)

    def message(self, server: str, channel: str, fragment: str) -> dict[str, Any]:
        return next(m for m in self.channel(server, channel)["messages"].values() if fragment in m["content"])

    async def fail(self, tool: str, args: dict[str, Any] | None, expected: str) -> None:
        """A rejected call whose text is exactly ``expected``, the state untouched."""
        text = await self.rejected(tool, args)
        assert text == expected


COMMUNITY = "Orbit Lab Community"
CREATORS = "Shanghai Creators Club"
BETA = "Orbit Lab Beta Program"


# -- server, contexts, helpers ------------------------------------------------------------------------
async def test_tool_list_and_schemas() -> None:
    async with DC() as dc:
        tools = {t.name: t for t in (await dc.client.list_tools()).tools}
    assert sorted(tools) == sorted(TOOLS)
    assert tools["send_message"].input_schema["required"] == ["channel_id", "content"]
    assert tools["send_message"].input_schema["properties"]["channel_id"]["type"] == "string"
    mod = tools["moderate_message"].input_schema
    assert mod["required"] == ["channel_id", "message_id", "reason"]
    assert tools["list_members"].input_schema["properties"]["limit"]["maximum"] == 1000


@pytest.mark.parametrize("context", ["chen_yu", "lin_wei", "maya_patel"])
def test_context_is_consistent(context: str) -> None:
    data = APP.load_context(context)
    assert data["context_id"] == context and data["me"] in data["users"]
    assert len(data["servers"]) == 3
    for uid in data["users"]:
        assert 17 <= len(uid) <= 19 and snowflake.created_at(uid).year >= 2016
    for sid, server in data["servers"].items():
        assert data["me"] in server["members"]
        assert server["roles"][sid]["name"] == "@everyone" and server["roles"][sid]["position"] == 0
        assert server["owner_id"] in server["members"]
        positions = sorted(r["position"] for r in server["roles"].values())
        assert positions == list(range(len(positions)))
        for ch in server["channels"].values():
            assert ch["type"] in ("text", "category")
            if ch["type"] == "text":
                assert ch["name"] == ch["name"].lower() and " " not in ch["name"]
                for mid, m in ch["messages"].items():
                    assert m["timestamp"] == snowflake.iso(mid)
                    assert datetime(2026, 2, 19, tzinfo=UTC) < snowflake.created_at(mid) < CLOCK.current()
                    assert m["author_id"] in server["members"]
        for key in ("rules_channel_id", "updates_channel_id"):
            if key in server:
                assert server["community"] and server[key] in server["channels"]


def test_snowflakes_and_emoji_rules() -> None:
    sf = snowflake.make(1773106200123, 5)
    assert snowflake.created_at(sf) == datetime(2026, 3, 10, 1, 30, 0, 123000, tzinfo=UTC)
    assert snowflake.iso(sf) == "2026-03-10T01:30:00.123000+00:00"
    for good in ("👍", "❤️", "👍🏽", "👨‍👩‍👧", "🇨🇳", "1️⃣", "#⃣", "🏴󠁧󠁢󠁳󠁣󠁴󠁿", "✅", "☕"):
        assert is_unicode_emoji(good), good
    for bad in (":thumbsup:", "thumbsup", "👍👍", "a", "", "🇨", "12⃣", "👍 "):
        assert not is_unicode_emoji(bad), bad


async def test_unknown_tool_and_non_numeric_ids() -> None:
    async with DC() as dc:
        await dc.fail("ban_member", {}, "Unknown tool: ban_member")
        await dc.fail("get_user_info", {"user_id": "abc"}, "invalid literal for int() with base 10: 'abc'")


# -- list_servers ---------------------------------------------------------------------------------------------
async def test_list_servers() -> None:
    async with DC() as dc:
        text = await dc.ok("list_servers")
        community = dc.server(COMMUNITY)
        assert text.startswith("**You have access to 3 servers:**\n\n")
        assert (f"**{COMMUNITY}** (ID: {community['id']})\n  - Members: {len(community['members'])}\n"
                f"  - Created: {snowflake.iso(community['id'])[:10]}\n") in text
        assert text.index(BETA) < text.index(COMMUNITY) < text.index(CREATORS)
        await dc.fail("list_servers", {"limit": 2},
                      "Input validation error: Additional properties are not allowed ('limit' was unexpected)")


# -- get_server_info -------------------------------------------------------------------------------------------
async def test_get_server_info_lists_channels_roles_and_emojis() -> None:
    async with DC() as dc:
        s = dc.server(COMMUNITY)
        text = await dc.ok("get_server_info", {"server_id": s["id"]})
        lines = text.split("\n")
        assert lines[:9] == [
            "Server Information:", f"name: {COMMUNITY}", f"id: {s['id']}", f"owner_id: {dc.cast('Song Ke')['id']}",
            f"member_count: {len(s['members'])}", f"created_at: {snowflake.iso(s['id'])}",
            f"description: {s['description']}", "premium_tier: 1", "explicit_content_filter: ContentFilter.all_members"]
        general = dc.channel(COMMUNITY, "general")
        community = dc.channel(COMMUNITY, "Community")
        assert f"Community (category, ID: {community['id']})" in lines
        header = lines.index(f"Community (category, ID: {community['id']})")
        assert lines[header + 1] == f"  #general (ID: {general['id']})"
        cm = dc.role(COMMUNITY, "Community Manager")
        assert f"Community Manager (ID: {cm['id']}, position: {cm['position']})" in lines
        assert lines[-2] == f"@everyone (ID: {s['id']}, position: 0)"
        heart = next(e for e in s["emojis"] if e["name"] == "orbit_heart")
        assert lines[-1].startswith("Emojis: ") and f"<:orbit_heart:{heart['id']}>" in lines[-1]


async def test_get_server_info_rejections() -> None:
    async with DC() as dc:
        await dc.fail("get_server_info", {}, "Input validation error: 'server_id' is a required property")
        await dc.fail("get_server_info", {"server_id": 840975149753419749},
                      "Input validation error: 'server_id': Input should be a valid string")
        await dc.fail("get_server_info", {"server_id": NO_SUCH}, UNKNOWN_GUILD)
        await dc.fail("get_server_info", {"server_id": "Orbit Lab Community"},
                      "invalid literal for int() with base 10: 'Orbit Lab Community'")


# -- list_members ---------------------------------------------------------------------------------------------
async def test_list_members() -> None:
    async with DC() as dc:
        s = dc.server(COMMUNITY)
        text = await dc.ok("list_members", {"server_id": s["id"]})
        lines = text.split("\n")
        assert lines[0] == f"Server Members ({len(s['members'])}):"
        ids = [line.split("(ID: ")[1].split(",")[0] for line in lines[1:]]
        assert ids == sorted(s["members"], key=int)
        me = dc.data["users"][dc.me]
        roles = ", ".join(s["members"][dc.me]["roles"])
        assert f"{me['username']} (ID: {dc.me}, Roles: {roles})" in lines
        spammer = dc.user("nitro_drops_2026")
        assert f"nitro_drops_2026 (ID: {spammer['id']}, Roles: )" in lines
        assert (await dc.ok("list_members", {"server_id": s["id"], "limit": 2})).startswith("Server Members (2):")


async def test_list_members_rejections() -> None:
    async with DC() as dc:
        s = dc.server(COMMUNITY)
        await dc.fail("list_members", {"limit": 5}, "Input validation error: 'server_id' is a required property")
        await dc.fail("list_members", {"server_id": s["id"], "limit": "all"},
                      "Input validation error: 'limit': Input should be a valid integer, unable to parse string as an "
                      "integer")
        await dc.fail("list_members", {"server_id": s["id"], "limit": 0},
                      "Input validation error: 'limit': Input should be greater than or equal to 1")
        await dc.fail("list_members", {"server_id": s["id"], "limit": 1001},
                      "Input validation error: 'limit': Input should be less than or equal to 1000")
        await dc.fail("list_members", {"server_id": NO_SUCH}, UNKNOWN_GUILD)


# -- add_role / remove_role ------------------------------------------------------------------------------------
async def test_add_and_remove_role() -> None:
    async with DC() as dc:
        s = dc.server(COMMUNITY)
        creator = dc.role(COMMUNITY, "Creator")
        jt = dc.user("jt_builds")
        path = f"servers[{s['id']}].members[{jt['id']}]"
        before = dc.env.tree.snapshot()
        text = await dc.ok("add_role", {"server_id": s["id"], "user_id": jt["id"], "role_id": creator["id"]})
        assert text == "Added role Creator to user jt_builds"
        assert dc.diff(before) == [("modify", path, ("roles",))]
        assert dc.server(COMMUNITY)["members"][jt["id"]]["roles"] == [dc.role(COMMUNITY, "Beta Tester")["id"],
                                                                     creator["id"]]
        again = dc.env.tree.hash()  # adding a role the member has is a no-op, as in Discord
        assert await dc.ok("add_role", {"server_id": s["id"], "user_id": jt["id"], "role_id": creator["id"]}) == text
        assert dc.env.tree.hash() == again
        text = await dc.ok("remove_role", {"server_id": s["id"], "user_id": jt["id"], "role_id": creator["id"]})
        assert text == "Removed role Creator from user jt_builds"
        assert dc.env.tree.data == before
        beta = dc.role(COMMUNITY, "Beta Tester")
        await dc.ok("remove_role", {"server_id": s["id"], "user_id": jt["id"], "role_id": beta["id"]})
        assert dc.server(COMMUNITY)["members"][jt["id"]]["roles"] == []


async def test_role_rejections() -> None:
    async with DC() as dc:
        s = dc.server(COMMUNITY)
        jt = dc.user("jt_builds")
        admin, team = dc.role(COMMUNITY, "Admin"), dc.role(COMMUNITY, "Orbit Team")
        args = {"server_id": s["id"], "user_id": jt["id"]}
        await dc.fail("add_role", args, "Input validation error: 'role_id' is a required property")
        await dc.fail("add_role", args | {"role_id": ["1"]},
                      "Input validation error: 'role_id': Input should be a valid string")
        await dc.fail("add_role", args | {"role_id": NO_SUCH}, "404 Not Found (error code: 10011): Unknown Role")
        await dc.fail("add_role", {"server_id": s["id"], "user_id": dc.user("amberlin")["id"], "role_id": team["id"]},
                      "404 Not Found (error code: 10007): Unknown Member")
        await dc.fail("add_role", args | {"role_id": admin["id"]}, MISSING_PERMISSIONS)  # above my highest role
        cm = dc.role(COMMUNITY, "Community Manager")
        await dc.fail("add_role", args | {"role_id": cm["id"]}, MISSING_PERMISSIONS)  # my own highest role
        await dc.fail("add_role", args | {"role_id": s["id"]}, "400 Bad Request (error code: 50028): Invalid Role")
        bot = dc.role(COMMUNITY, "OrbitHelper")
        await dc.fail("add_role", args | {"role_id": bot["id"]}, MISSING_PERMISSIONS)  # managed by an integration
        song = dc.cast("Song Ke")["id"]
        await dc.fail("remove_role", {"server_id": s["id"], "user_id": song, "role_id": admin["id"]},
                      MISSING_PERMISSIONS)
        club = dc.server(CREATORS)
        await dc.fail("add_role", {"server_id": club["id"], "user_id": dc.user("suki.makes")["id"],
                                   "role_id": dc.role(CREATORS, "Brand Partner")["id"]}, MISSING_PERMISSIONS)


# -- create_text_channel / delete_channel ----------------------------------------------------------------------
async def test_create_text_channel_in_a_category() -> None:
    async with DC() as dc:
        s = dc.server(COMMUNITY)
        cat = dc.channel(COMMUNITY, "Community")
        before = dc.env.tree.snapshot()
        text = await dc.ok("create_text_channel", {"server_id": s["id"], "name": "spring-launch",
                                                   "category_id": cat["id"], "topic": "Spring trial, March 25"})
        assert text.startswith("Created text channel #spring-launch (ID: ") and text.endswith(")")
        cid = text.split("(ID: ")[1][:-1]
        assert dc.diff(before) == [("create", f"servers[{s['id']}].channels[{cid}]", ())]
        siblings = [c["position"] for c in s["channels"].values() if c.get("parent_id") == cat["id"] and c["id"] != cid]
        assert dc.server(COMMUNITY)["channels"][cid] == {
            "id": cid, "name": "spring-launch", "type": "text", "position": max(siblings) + 1, "parent_id": cat["id"],
            "topic": "Spring trial, March 25"}
        assert snowflake.created_at(cid) >= datetime.fromtimestamp(NOW, tz=UTC)
        info = await dc.ok("get_server_info", {"server_id": s["id"]})
        assert f"  #spring-launch (ID: {cid})" in info
        sent = await dc.ok("send_message", {"channel_id": cid, "content": "Welcome to the launch channel!"})
        assert sent.startswith("Message sent successfully.")
        plain = await dc.ok("create_text_channel", {"server_id": s["id"], "name": "春季-活动_2026"})
        assert plain.startswith("Created text channel #春季-活动_2026")


async def test_create_text_channel_rejections() -> None:
    async with DC() as dc:
        s = dc.server(COMMUNITY)
        general = dc.channel(COMMUNITY, "general")
        await dc.fail("create_text_channel", {"server_id": s["id"]},
                      "Input validation error: 'name' is a required property")
        await dc.fail("create_text_channel", {"server_id": s["id"], "name": 7},
                      "Input validation error: 'name': Input should be a valid string")
        bad_name = ("400 Bad Request (error code: 50035): Invalid Form Body\nIn name: Text channel names must be "
                    "lowercase, without spaces or symbols (use dashes, e.g. 'spring-launch').")
        for name in ("Spring Launch", "spring launch", "spring!", "Spring-launch"):
            await dc.fail("create_text_channel", {"server_id": s["id"], "name": name}, bad_name)
        await dc.fail("create_text_channel", {"server_id": s["id"], "name": ""},
                      "400 Bad Request (error code: 50035): Invalid Form Body\nIn name: Must be between 1 and 100 in "
                      "length.")
        await dc.fail("create_text_channel", {"server_id": s["id"], "name": "x", "topic": "t" * 1025},
                      "400 Bad Request (error code: 50035): Invalid Form Body\nIn topic: Must be 1024 or fewer in "
                      "length.")
        await dc.fail("create_text_channel", {"server_id": s["id"], "name": "x", "category_id": general["id"]},
                      "400 Bad Request (error code: 50035): Invalid Form Body\nIn parent_id: Not a category.")
        await dc.fail("create_text_channel", {"server_id": s["id"], "name": "x", "category_id": NO_SUCH},
                      UNKNOWN_CHANNEL)
        await dc.fail("create_text_channel", {"server_id": NO_SUCH, "name": "x"}, UNKNOWN_GUILD)
        await dc.fail("create_text_channel", {"server_id": dc.server(CREATORS)["id"], "name": "orbit-brief"},
                      MISSING_PERMISSIONS)


async def test_delete_channel_and_category() -> None:
    async with DC() as dc:
        s = dc.server(COMMUNITY)
        show = dc.channel(COMMUNITY, "show-and-tell")
        before = dc.env.tree.snapshot()
        assert await dc.ok("delete_channel", {"channel_id": show["id"], "reason": "merged into general"}) == \
            "Deleted channel successfully"
        assert dc.diff(before) == [("delete", f"servers[{s['id']}].channels[{show['id']}]", ())]
        support = dc.channel(COMMUNITY, "Support")
        help_ch = dc.channel(COMMUNITY, "help")
        before = dc.env.tree.snapshot()
        await dc.ok("delete_channel", {"channel_id": support["id"]})
        assert sorted(dc.diff(before)) == sorted([
            ("delete", f"servers[{s['id']}].channels[{support['id']}]", ()),
            ("modify", f"servers[{s['id']}].channels[{help_ch['id']}]", ("parent_id",))])
        assert "parent_id" not in dc.server(COMMUNITY)["channels"][help_ch["id"]]


async def test_delete_channel_rejections() -> None:
    async with DC() as dc:
        s = dc.server(COMMUNITY)
        await dc.fail("delete_channel", {"reason": "cleanup"},
                      "Input validation error: 'channel_id' is a required property")
        await dc.fail("delete_channel", {"channel_id": 12}, "Input validation error: 'channel_id': Input should be a "
                      "valid string")
        await dc.fail("delete_channel", {"channel_id": "#general"},
                      "invalid literal for int() with base 10: '#general'")
        await dc.fail("delete_channel", {"channel_id": NO_SUCH}, UNKNOWN_CHANNEL)
        await dc.fail("delete_channel", {"channel_id": s["rules_channel_id"]},
                      "400 Bad Request (error code: 50074): Cannot delete a channel required for Community guilds")
        await dc.fail("delete_channel", {"channel_id": s["updates_channel_id"]},
                      "400 Bad Request (error code: 50074): Cannot delete a channel required for Community guilds")
        await dc.fail("delete_channel", {"channel_id": dc.channel(CREATORS, "collabs")["id"]}, MISSING_PERMISSIONS)


# -- reactions -------------------------------------------------------------------------------------------------
async def test_add_reaction_unicode_and_custom() -> None:
    async with DC() as dc:
        s = dc.server(COMMUNITY)
        req = dc.channel(COMMUNITY, "feature-requests")
        msg = dc.message(COMMUNITY, "feature-requests", "Bulk edit")
        base = f"servers[{s['id']}].channels[{req['id']}].messages[{msg['id']}].reactions"
        before = dc.env.tree.snapshot()
        args = {"channel_id": req["id"], "message_id": msg["id"]}
        assert await dc.ok("add_reaction", args | {"emoji": "👍"}) == "Added reaction 👍 to message"
        assert dc.diff(before) == [("modify", f"{base}[👍]", ("user_ids",))]
        assert msg["reactions"]["👍"]["user_ids"] == [dc.user("meidraws")["id"], dc.me]
        heart = next(e for e in s["emojis"] if e["name"] == "orbit_heart")
        before = dc.env.tree.snapshot()
        assert await dc.ok("add_reaction", args | {"emoji": f"<:orbit_heart:{heart['id']}>"}) == \
            f"Added reaction <:orbit_heart:{heart['id']}> to message"
        key = f"orbit_heart:{heart['id']}"
        assert dc.diff(before) == [("create", f"{base}[{key}]", ())]
        assert msg["reactions"][key] == {"emoji": key, "user_ids": [dc.me]}
        same = dc.env.tree.hash()
        await dc.ok("add_reaction", args | {"emoji": key})  # again, in the name:id form: no change
        assert dc.env.tree.hash() == same
        shown = await dc.ok("read_messages", {"channel_id": req["id"]})
        assert "Reactions: 👍(2), orbit_heart(1)" in shown


async def test_add_multiple_reactions_is_all_or_nothing() -> None:
    async with DC() as dc:
        s = dc.server(COMMUNITY)
        general = dc.channel(COMMUNITY, "general")
        msg = dc.message(COMMUNITY, "general", "cherry blossom")
        args = {"channel_id": general["id"], "message_id": msg["id"]}
        before = dc.env.tree.snapshot()
        text = await dc.ok("add_multiple_reactions", args | {"emojis": ["🌸", "☕", "🔥"]})
        assert text == "Added reactions: 🌸, ☕, 🔥 to message"
        base = f"servers[{s['id']}].channels[{general['id']}].messages[{msg['id']}].reactions"
        assert sorted(dc.diff(before)) == sorted(("create", f"{base}[{e}]", ()) for e in ("🌸", "☕", "🔥"))
        await dc.fail("add_multiple_reactions", args | {"emojis": ["🎉", ":tada:"]}, UNKNOWN_EMOJI)
        await dc.fail("add_multiple_reactions", args | {"emojis": "🎉"},
                      "Input validation error: 'emojis': Input should be a valid list")
        await dc.fail("add_multiple_reactions", args, "Input validation error: 'emojis' is a required property")
        many = ["😀", "😃", "😄", "😁", "😆", "😅", "🤣", "😂", "🙂", "🙃", "😉", "😊", "😇", "🥰", "😍", "🤩",
                "😘", "😗"]
        await dc.fail("add_multiple_reactions", args | {"emojis": many},
                      "400 Bad Request (error code: 30010): Maximum number of reactions reached (20)")


async def test_remove_reaction() -> None:
    async with DC() as dc:
        s = dc.server(COMMUNITY)
        show = dc.channel(COMMUNITY, "show-and-tell")
        msg = dc.message(COMMUNITY, "show-and-tell", "illustrated tea")
        heart = next(e for e in s["emojis"] if e["name"] == "orbit_heart")
        key = f"orbit_heart:{heart['id']}"
        assert dc.me in msg["reactions"][key]["user_ids"]
        path = f"servers[{s['id']}].channels[{show['id']}].messages[{msg['id']}].reactions[{key}]"
        before = dc.env.tree.snapshot()
        text = await dc.ok("remove_reaction", {"channel_id": show["id"], "message_id": msg["id"], "emoji": key})
        assert text == f"Removed reaction {key} from message"
        assert dc.diff(before) == [("modify", path, ("user_ids",))]
        assert msg["reactions"][key]["user_ids"] == [dc.cast("Zhao Min")["id"]]
        general = dc.channel(COMMUNITY, "general")
        mine = dc.message(COMMUNITY, "general", "cherry blossom")
        await dc.ok("add_reaction", {"channel_id": general["id"], "message_id": mine["id"], "emoji": "🌸"})
        await dc.ok("remove_reaction", {"channel_id": general["id"], "message_id": mine["id"], "emoji": "🌸"})
        assert "reactions" not in mine or "🌸" not in mine["reactions"]  # the last user gone: the reaction goes
        same = dc.env.tree.hash()  # removing a reaction you did not add is a no-op, as in Discord
        await dc.ok("remove_reaction", {"channel_id": show["id"], "message_id": msg["id"], "emoji": "🔥"})
        assert dc.env.tree.hash() == same


async def test_reaction_rejections() -> None:
    async with DC() as dc:
        general = dc.channel(COMMUNITY, "general")
        msg = dc.message(COMMUNITY, "general", "cherry blossom")
        args = {"channel_id": general["id"], "message_id": msg["id"]}
        for tool in ("add_reaction", "remove_reaction"):
            await dc.fail(tool, args, "Input validation error: 'emoji' is a required property")
            await dc.fail(tool, args | {"emoji": 128077}, "Input validation error: 'emoji': Input should be a valid "
                          "string")
            await dc.fail(tool, args | {"emoji": ":thumbsup:"}, UNKNOWN_EMOJI)
            await dc.fail(tool, args | {"emoji": "<:orbit_heart:123456789012345678>"}, UNKNOWN_EMOJI)
            await dc.fail(tool, {"channel_id": general["id"], "message_id": NO_SUCH, "emoji": "👍"}, UNKNOWN_MESSAGE)
            await dc.fail(tool, {"channel_id": NO_SUCH, "message_id": msg["id"], "emoji": "👍"}, UNKNOWN_CHANNEL)
            await dc.fail(tool, {"channel_id": dc.channel(COMMUNITY, "Community")["id"], "message_id": msg["id"],
                                 "emoji": "👍"}, "'CategoryChannel' object has no attribute 'fetch_message'")
        creators = dc.server(CREATORS)  # another server's custom emoji is unknown here
        sky = creators["emojis"][0]
        await dc.fail("add_reaction", args | {"emoji": f"<:{sky['name']}:{sky['id']}>"}, UNKNOWN_EMOJI)


# -- send_message / read_messages -----------------------------------------------------------------------------
async def test_send_message_and_read_it_back() -> None:
    async with DC() as dc:
        s = dc.server(COMMUNITY)
        help_ch = dc.channel(COMMUNITY, "help")
        before = dc.env.tree.snapshot()
        content = "Workaround until 3.2.2: disconnect and reconnect Xiaohongshu under Settings > Accounts."
        text = await dc.ok("send_message", {"channel_id": help_ch["id"], "content": content})
        assert text.startswith("Message sent successfully. Message ID: ")
        mid = text.rsplit(" ", 1)[1]
        assert dc.diff(before) == [("create", f"servers[{s['id']}].channels[{help_ch['id']}].messages[{mid}]", ())]
        assert dc.channel(COMMUNITY, "help")["messages"][mid] == {
            "id": mid, "author_id": dc.me, "content": content, "timestamp": snowflake.iso(mid)}
        sent_at = snowflake.created_at(mid)
        assert datetime.fromtimestamp(NOW, tz=UTC) < sent_at < datetime.fromtimestamp(NOW + 5, tz=UTC)
        shown = await dc.ok("read_messages", {"channel_id": help_ch["id"], "limit": 2})
        me = dc.data["users"][dc.me]["username"]
        assert shown.startswith(f"Retrieved 2 messages:\n\n{me} ({snowflake.iso(mid)}) [ID: {mid}]: {content}\n"
                                "Reactions: No reactions\nlucasw_sh (")
        announce = dc.channel(COMMUNITY, "announcements")  # the Community Manager role may post there
        assert (await dc.ok("send_message", {"channel_id": announce["id"], "content": "Spring trial: March 25!"}))


async def test_read_messages_newest_first() -> None:
    async with DC() as dc:
        general = dc.channel(COMMUNITY, "general")
        text = await dc.ok("read_messages", {"channel_id": general["id"]})
        blocks = text.split("\n\n", 1)[1].split("\n")
        assert text.startswith(f"Retrieved {len(general['messages'])} messages:")
        ids = [line.split("[ID: ")[1].split("]")[0] for line in blocks[::2]]
        assert ids == sorted(general["messages"], key=int, reverse=True)
        assert all(line.startswith("Reactions: ") for line in blocks[1::2])
        scam = dc.message(COMMUNITY, "general", "scam link")
        shown = f"jt_builds ({snowflake.iso(scam['id'])}) [ID: {scam['id']}]: {scam['content']}\nReactions: 👍(2)"
        assert shown in text
        bot = await dc.ok("read_messages", {"channel_id": dc.channel(COMMUNITY, "help")["id"], "limit": 100})
        assert "orbithelper#6412 (" in bot  # a legacy discriminator is shown
        assert (await dc.ok("read_messages", {"channel_id": general["id"], "limit": 1})).startswith(
            "Retrieved 1 messages:")


async def test_send_and_read_rejections() -> None:
    async with DC() as dc:
        general = dc.channel(COMMUNITY, "general")
        await dc.fail("send_message", {"channel_id": general["id"]},
                      "Input validation error: 'content' is a required property")
        await dc.fail("send_message", {"channel_id": general["id"], "content": ["hi"]},
                      "Input validation error: 'content': Input should be a valid string")
        await dc.fail("send_message", {"channel_id": general["id"], "content": "  "},
                      "400 Bad Request (error code: 50006): Cannot send an empty message")
        await dc.fail("send_message", {"channel_id": general["id"], "content": "x" * 2001},
                      "400 Bad Request (error code: 50035): Invalid Form Body\nIn content: Must be 2000 or fewer in "
                      "length.")
        await dc.fail("send_message", {"channel_id": NO_SUCH, "content": "hi"}, UNKNOWN_CHANNEL)
        await dc.fail("send_message", {"channel_id": dc.channel(COMMUNITY, "Support")["id"], "content": "hi"},
                      "'CategoryChannel' object has no attribute 'send'")
        await dc.fail("send_message", {"channel_id": dc.channel(COMMUNITY, "rules")["id"], "content": "hi"},
                      MISSING_PERMISSIONS)
        await dc.fail("send_message", {"channel_id": dc.channel(CREATORS, "events")["id"], "content": "hi"},
                      MISSING_PERMISSIONS)
        await dc.fail("read_messages", {}, "Input validation error: 'channel_id' is a required property")
        await dc.fail("read_messages", {"channel_id": general["id"], "limit": 101},
                      "Input validation error: 'limit': Input should be less than or equal to 100")
        await dc.fail("read_messages", {"channel_id": general["id"], "limit": 2.5},
                      "Input validation error: 'limit': Input should be a valid integer, got a number with a "
                      "fractional part")
        await dc.fail("read_messages", {"channel_id": dc.channel(COMMUNITY, "Information")["id"]},
                      "'CategoryChannel' object has no attribute 'history'")


# -- get_user_info -------------------------------------------------------------------------------------------
async def test_get_user_info() -> None:
    async with DC() as dc:
        zhao = dc.cast("Zhao Min")
        assert await dc.ok("get_user_info", {"user_id": zhao["id"]}) == (
            f"User information:\nName: {zhao['username']}#0\nID: {zhao['id']}\nBot: False\n"
            f"Created: {snowflake.iso(zhao['id'])}")
        bot = dc.user("orbithelper")
        text = await dc.ok("get_user_info", {"user_id": bot["id"]})
        assert "Name: orbithelper#6412\n" in text and "Bot: True\n" in text
        await dc.fail("get_user_info", {}, "Input validation error: 'user_id' is a required property")
        await dc.fail("get_user_info", {"user_id": int(zhao["id"])},
                      "Input validation error: 'user_id': Input should be a valid string")
        await dc.fail("get_user_info", {"user_id": NO_SUCH}, "404 Not Found (error code: 10013): Unknown User")


# -- moderate_message ---------------------------------------------------------------------------------------
async def test_moderate_message_with_timeout() -> None:
    async with DC() as dc:
        s = dc.server(COMMUNITY)
        general = dc.channel(COMMUNITY, "general")
        spam = dc.message(COMMUNITY, "general", "FREE NITRO")
        spammer = spam["author_id"]
        before = dc.env.tree.snapshot()
        text = await dc.ok("moderate_message", {"channel_id": general["id"], "message_id": spam["id"],
                                                "reason": "scam link", "timeout_minutes": 1440})
        assert text == "Message deleted and user timed out for 1440 minutes."
        assert sorted(dc.diff(before)) == sorted([
            ("delete", f"servers[{s['id']}].channels[{general['id']}].messages[{spam['id']}]", ()),
            ("modify", f"servers[{s['id']}].members[{spammer}]", ("communication_disabled_until",))])
        until = datetime.fromtimestamp(NOW + 1, tz=UTC) + timedelta(days=1)
        assert dc.server(COMMUNITY)["members"][spammer]["communication_disabled_until"] == until.isoformat()


async def test_moderate_message_without_timeout() -> None:
    async with DC() as dc:
        s = dc.server(COMMUNITY)
        general = dc.channel(COMMUNITY, "general")
        msg = dc.message(COMMUNITY, "general", "Can a mod remove")
        before = dc.env.tree.snapshot()
        assert await dc.ok("moderate_message", {"channel_id": general["id"], "message_id": msg["id"],
                                                "reason": "cleanup", "timeout_minutes": 0}) == \
            "Message deleted successfully."
        assert dc.diff(before) == [("delete", f"servers[{s['id']}].channels[{general['id']}].messages[{msg['id']}]",
                                       ())]
    async with DC() as dc:  # your own message needs no permission
        club = dc.channel(CREATORS, "general")
        mine = dc.message(CREATORS, "general", "Chen Yu from Orbit Lab")
        assert await dc.ok("moderate_message", {"channel_id": club["id"], "message_id": mine["id"],
                                                "reason": "posted in the wrong channel"}) == \
            "Message deleted successfully."


async def test_moderate_message_rejections() -> None:
    async with DC() as dc:
        general = dc.channel(COMMUNITY, "general")
        spam = dc.message(COMMUNITY, "general", "FREE NITRO")
        args = {"channel_id": general["id"], "message_id": spam["id"]}
        await dc.fail("moderate_message", args, "Input validation error: 'reason' is a required property")
        await dc.fail("moderate_message", args | {"reason": "spam", "timeout_minutes": "1h"},
                      "Input validation error: 'timeout_minutes': Input should be a valid integer, unable to parse "
                      "string as an integer")
        await dc.fail("moderate_message", args | {"reason": "spam", "timeout_minutes": 40321},
                      "Input validation error: 'timeout_minutes': Input should be less than or equal to 40320")
        await dc.fail("moderate_message", args | {"reason": "spam", "timeout_minutes": -5},
                      "Input validation error: 'timeout_minutes': Input should be greater than or equal to 0")
        await dc.fail("moderate_message", {"channel_id": general["id"], "message_id": NO_SUCH, "reason": "x"},
                      UNKNOWN_MESSAGE)
        song = dc.message(COMMUNITY, "rules", "Be kind")  # Song Ke (Admin) outranks me: no timeout for him
        await dc.fail("moderate_message", {"channel_id": dc.channel(COMMUNITY, "rules")["id"], "message_id": song["id"],
                                           "reason": "x", "timeout_minutes": 10}, MISSING_PERMISSIONS)
        mine = dc.message(COMMUNITY, "announcements", "spring trial opens")  # nor for myself
        await dc.fail("moderate_message", {"channel_id": dc.channel(COMMUNITY, "announcements")["id"],
                                           "message_id": mine["id"], "reason": "x", "timeout_minutes": 10},
                      MISSING_PERMISSIONS)
        club = dc.channel(CREATORS, "general")
        theirs = dc.message(CREATORS, "general", "good studio")
        await dc.fail("moderate_message", {"channel_id": club["id"], "message_id": theirs["id"], "reason": "x"},
                      MISSING_PERMISSIONS)
