"""The Discord tools over the Discord Context-Tree (see ``data/hierarchies/discord.json``).

Responses are the plain text lines of hanweg/mcp-discord; failures are the text of the
exception the real server lets through: discord.py's ``HTTPException`` (``404 Not Found
(error code: 10003): Unknown Channel``), ``int()`` on a non-numeric id, or an attribute
error when a channel of the wrong kind is used.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from typing import Annotated, Any

from pydantic import Field

from mcp_persona.apps.base import App, AppEnv, FailureKind, FieldViolation, ToolFailure
from mcp_persona.apps.discord import snowflake

ALL_PERMISSIONS = frozenset({
    "administrator", "manage_channels", "manage_roles", "manage_messages", "moderate_members", "kick_members",
    "send_messages", "add_reactions", "read_message_history", "mention_everyone",
})
MAX_CONTENT = 2000
MAX_TOPIC = 1024
MAX_REACTIONS = 20  # distinct emojis on one message
_REASONS = {400: "Bad Request", 403: "Forbidden", 404: "Not Found"}


class DiscordApp(App):
    def success_payload(self, tool: str, result: Any) -> Any:
        return result

    def error_payload(self, tool: str, failure: ToolFailure) -> Any:
        if failure.kind == "internal":
            return f"Error executing tool {tool}: {failure.message}"
        return failure.message

    def validation_payload(self, tool: str, violations: list[FieldViolation]) -> Any:
        v = violations[0]
        name = v.field.split(".")[0]
        if v.kind == "missing":
            return f"Input validation error: '{name}' is a required property"
        if v.kind == "extra":
            return f"Input validation error: Additional properties are not allowed ('{name}' was unexpected)"
        return f"Input validation error: '{name}': {v.message}"


APP = DiscordApp(
    "discord",
    title="Discord",
    category="social",
    description="Discord servers of the signed-in account: members, roles, channels, messages and reactions.",
    real_server="hanweg/mcp-discord",
)

Snowflake = Annotated[str, Field(description="a Discord id (snowflake), as a string")]


def _http(status: int, code: int, message: str, kind: FailureKind) -> ToolFailure:
    return ToolFailure(f"{status} {_REASONS[status]} (error code: {code}): {message}", kind=kind, code=code)


def _missing_permissions() -> ToolFailure:
    return _http(403, 50013, "Missing Permissions", "permission")


def _form(field_name: str, problem: str) -> ToolFailure:
    return _http(400, 50035, f"Invalid Form Body\nIn {field_name}: {problem}", "range")


def _id(value: str) -> str:
    """``int(value)`` as the real server does it: non-numeric ids fail with Python's own message."""
    try:
        return str(int(value))
    except ValueError:
        raise ToolFailure(f"invalid literal for int() with base 10: {value!r}", kind="type") from None


# -- lookups ---------------------------------------------------------------------------------------
def _me(env: AppEnv) -> str:
    return env.tree.data["me"]


def _server(env: AppEnv, server_id: str) -> dict[str, Any]:
    server = env.tree.top("server", _id(server_id))
    if server is None:
        raise _http(404, 10004, "Unknown Guild", "not_found")
    return server


def _channel(env: AppEnv, channel_id: str) -> tuple[dict[str, Any], dict[str, Any]]:
    key = _id(channel_id)
    for server in env.tree.list("servers"):
        channel = server.get("channels", {}).get(key)
        if channel is not None:
            return server, channel
    raise _http(404, 10003, "Unknown Channel", "not_found")


def _text_channel(env: AppEnv, channel_id: str, attribute: str) -> tuple[dict[str, Any], dict[str, Any]]:
    server, channel = _channel(env, channel_id)
    if channel["type"] != "text":  # discord.py's CategoryChannel has no send/history/fetch_message
        raise ToolFailure(f"'CategoryChannel' object has no attribute '{attribute}'", kind="conflict")
    return server, channel


def _message(channel: dict[str, Any], message_id: str) -> dict[str, Any]:
    msg = channel.get("messages", {}).get(_id(message_id))
    if msg is None:
        raise _http(404, 10008, "Unknown Message", "not_found")
    return msg


def _member(server: dict[str, Any], user_id: str) -> dict[str, Any]:
    member = server.get("members", {}).get(_id(user_id))
    if member is None:
        raise _http(404, 10007, "Unknown Member", "not_found")
    return member


def _role(server: dict[str, Any], role_id: str) -> dict[str, Any]:
    role = server.get("roles", {}).get(_id(role_id))
    if role is None:
        raise _http(404, 10011, "Unknown Role", "not_found")
    return role


def _server_path(server: dict[str, Any]) -> str:
    return f"servers[{server['id']}]"


def _channel_path(server: dict[str, Any], channel: dict[str, Any]) -> str:
    return f"{_server_path(server)}.channels[{channel['id']}]"


# -- permissions ---------------------------------------------------------------------------------------
def _roles_of(server: dict[str, Any], user_id: str) -> list[dict[str, Any]]:
    roles = server.get("roles", {})
    member = server.get("members", {}).get(user_id, {})
    return [roles[server["id"]], *(roles[r] for r in member.get("roles", []) if r in roles)]


def _permissions(server: dict[str, Any], user_id: str) -> frozenset[str]:
    if server["owner_id"] == user_id:
        return ALL_PERMISSIONS
    perms = frozenset().union(*(r.get("permissions", []) for r in _roles_of(server, user_id)))
    return ALL_PERMISSIONS if "administrator" in perms else perms


def _top_position(server: dict[str, Any], user_id: str) -> float:
    if server["owner_id"] == user_id:
        return float("inf")
    return max(r["position"] for r in _roles_of(server, user_id))


def _require(env: AppEnv, server: dict[str, Any], permission: str) -> None:
    if permission not in _permissions(server, _me(env)):
        raise _missing_permissions()


def _check_can_send(env: AppEnv, server: dict[str, Any], channel: dict[str, Any]) -> None:
    me = _me(env)
    perms = _permissions(server, me)
    if "send_messages" not in perms:
        raise _missing_permissions()
    allowed = channel.get("send_roles")
    if allowed and "administrator" not in perms:
        mine = {r["id"] for r in _roles_of(server, me)}
        if not mine & set(allowed):
            raise _missing_permissions()


# -- emojis ----------------------------------------------------------------------------------------------
_CUSTOM = re.compile(r"<?(a?):?([A-Za-z0-9_]{2,32}):(\d{15,21})>?")
_MODIFIERS = {0xFE0F, 0xFE0E} | set(range(0x1F3FB, 0x1F400)) | set(range(0xE0020, 0xE0080))
_PICTO_RANGES = (
    (0x1F000, 0x1FAFF), (0x2600, 0x27BF), (0x2300, 0x23FF), (0x2B00, 0x2BFF), (0x2190, 0x21FF),
    (0x2100, 0x214F), (0x25A0, 0x25FF), (0x2900, 0x297F), (0x3030, 0x3030), (0x303D, 0x303D),
    (0x3297, 0x3297), (0x3299, 0x3299), (0x00A9, 0x00A9), (0x00AE, 0x00AE), (0x203C, 0x203C),
    (0x2049, 0x2049), (0x24C2, 0x24C2),
)


def is_unicode_emoji(text: str) -> bool:
    """Whether ``text`` is exactly one Unicode emoji (with its modifiers, ZWJ sequence, flag or keycap)."""
    cps = [ord(c) for c in text]
    if not cps or len(cps) > 16:
        return False
    if len(cps) == 2 and all(0x1F1E6 <= c <= 0x1F1FF for c in cps):  # a flag: two regional indicators
        return True
    if cps[-1] == 0x20E3:  # a keycap: 0-9, # or * (+ VS16) + U+20E3
        return text[0] in "0123456789#*" and (len(cps) == 2 or (len(cps) == 3 and cps[1] == 0xFE0F))
    segment: list[int] = []
    for c in [*cps, 0x200D]:
        if c == 0x200D:  # zero-width joiner: each joined part is one pictograph plus modifiers
            base = [b for b in segment if b not in _MODIFIERS]
            if len(base) != 1 or not any(lo <= base[0] <= hi for lo, hi in _PICTO_RANGES):
                return False
            if 0x1F1E6 <= base[0] <= 0x1F1FF:
                return False
            segment = []
        else:
            segment.append(c)
    return True


def _emoji_key(server: dict[str, Any], emoji: str) -> str:
    """The reaction key of ``emoji``: itself for Unicode, ``name:id`` for one of the server's custom emojis."""
    text = emoji.strip()
    custom = _CUSTOM.fullmatch(text)
    if custom:
        for e in server.get("emojis", []):
            if e["id"] == custom.group(3):
                return f"{e['name']}:{e['id']}"
    elif is_unicode_emoji(text):
        return text
    raise _http(400, 10014, "Unknown Emoji", "not_found")


def _emoji_label(key: str) -> str:
    return key.split(":")[0] if ":" in key else key


# -- views -------------------------------------------------------------------------------------------------
def _user(env: AppEnv, user_id: str) -> dict[str, Any]:
    return env.tree.get(f"users[{user_id}]")


def _user_str(user: dict[str, Any]) -> str:
    """``str(discord.User)``: the username, plus ``#discriminator`` for legacy accounts."""
    disc = user.get("discriminator", "0")
    return user["username"] if disc == "0" else f"{user['username']}#{disc}"


def _enum(kind: str, value: str) -> str:
    return f"{kind}.{value}"


# -- tools ---------------------------------------------------------------------------------------------------
@APP.tool()
def list_servers(env: AppEnv) -> str:
    """Get a list of all Discord servers you are in, with their name, id, member count and creation date."""
    servers = sorted(env.tree.list("servers"), key=lambda s: s["name"].lower())
    text = f"**You have access to {len(servers)} servers:**\n\n"
    for s in servers:
        text += f"**{s['name']}** (ID: {s['id']})\n"
        text += f"  - Members: {len(s.get('members', {}))}\n"
        text += f"  - Created: {snowflake.iso(s['id'])[:10]}\n\n"
    return text


@APP.tool()
def get_server_info(env: AppEnv, server_id: Snowflake) -> str:
    """Get information about a Discord server, with its channels, roles and custom emojis."""
    s = _server(env, server_id)
    info = {
        "name": s["name"],
        "id": s["id"],
        "owner_id": s["owner_id"],
        "member_count": len(s.get("members", {})),
        "created_at": snowflake.iso(s["id"]),
        "description": s.get("description"),
        "premium_tier": s.get("premium_tier", 0),
        "explicit_content_filter": _enum("ContentFilter", s.get("explicit_content_filter", "disabled")),
    }
    lines = ["Server Information:", *(f"{k}: {v}" for k, v in info.items()), "Channels:"]
    channels = s.get("channels", {}).values()
    key = lambda c: (c.get("position", 0), int(c["id"]))  # noqa: E731
    for ch in sorted((c for c in channels if not c.get("parent_id") and c["type"] == "text"), key=key):
        lines.append(f"#{ch['name']} (ID: {ch['id']})")
    for cat in sorted((c for c in channels if c["type"] == "category"), key=key):
        lines.append(f"{cat['name']} (category, ID: {cat['id']})")
        for ch in sorted((c for c in channels if c.get("parent_id") == cat["id"]), key=key):
            lines.append(f"  #{ch['name']} (ID: {ch['id']})")
    lines.append("Roles:")
    for role in sorted(s.get("roles", {}).values(), key=lambda r: -r["position"]):
        lines.append(f"{role['name']} (ID: {role['id']}, position: {role['position']})")
    emojis = s.get("emojis", [])
    if emojis:
        lines.append("Emojis: " + ", ".join(f"<{'a' if e.get('animated') else ''}:{e['name']}:{e['id']}>"
                                            for e in emojis))
    return "\n".join(lines)


@APP.tool()
def list_members(
    env: AppEnv,
    server_id: Snowflake,
    limit: Annotated[int, Field(ge=1, le=1000, description="Maximum number of members to fetch")] = 100,
) -> str:
    """Get a list of members in a server (username, id and role ids)."""
    s = _server(env, server_id)
    members = sorted(s.get("members", {}).values(), key=lambda m: int(m["user_id"]))[:limit]
    lines = []
    for m in members:
        user = _user(env, m["user_id"])
        lines.append(f"{user['username']} (ID: {m['user_id']}, Roles: {', '.join(m.get('roles', []))})")
    return f"Server Members ({len(members)}):\n" + "\n".join(lines)


def _role_change(env: AppEnv, server_id: str, user_id: str, role_id: str) -> tuple[dict, dict, dict]:
    s = _server(env, server_id)
    member = _member(s, user_id)
    role = _role(s, role_id)
    _require(env, s, "manage_roles")
    if role["id"] == s["id"]:
        raise _http(400, 50028, "Invalid Role", "conflict")
    if role.get("managed") or role["position"] >= _top_position(s, _me(env)):
        raise _missing_permissions()
    return s, member, role


@APP.tool(mutates=True)
def add_role(env: AppEnv, server_id: Snowflake, user_id: Snowflake, role_id: Snowflake) -> str:
    """Add a role to a user."""
    s, member, role = _role_change(env, server_id, user_id, role_id)
    roles = member.get("roles", [])
    if role["id"] not in roles:
        env.tree.update(f"{_server_path(s)}.members[{member['user_id']}]", {"roles": [*roles, role["id"]]})
    return f"Added role {role['name']} to user {_user(env, member['user_id'])['username']}"


@APP.tool(mutates=True)
def remove_role(env: AppEnv, server_id: Snowflake, user_id: Snowflake, role_id: Snowflake) -> str:
    """Remove a role from a user."""
    s, member, role = _role_change(env, server_id, user_id, role_id)
    roles = member.get("roles", [])
    if role["id"] in roles:
        env.tree.update(f"{_server_path(s)}.members[{member['user_id']}]",
                        {"roles": [r for r in roles if r != role["id"]]})
    return f"Removed role {role['name']} from user {_user(env, member['user_id'])['username']}"


def _check_channel_name(name: str) -> None:
    if not 1 <= len(name) <= 100:
        raise _form("name", "Must be between 1 and 100 in length.")
    if not all(ch in "-_" or (ch.isalnum() and not ch.isupper()) for ch in name):
        raise _form("name", "Text channel names must be lowercase, without spaces or symbols "
                            "(use dashes, e.g. 'spring-launch').")


@APP.tool(mutates=True)
def create_text_channel(
    env: AppEnv,
    server_id: Snowflake,
    name: Annotated[str, Field(description="Channel name: lowercase, dashes instead of spaces")],
    category_id: Annotated[str | None, Field(description="Optional category ID to place channel in")] = None,
    topic: Annotated[str | None, Field(description="Optional channel topic")] = None,
) -> str:
    """Create a new text channel."""
    s = _server(env, server_id)
    _check_channel_name(name)
    if topic is not None and len(topic) > MAX_TOPIC:
        raise _form("topic", f"Must be {MAX_TOPIC} or fewer in length.")
    parent = None
    if category_id is not None:
        parent = s.get("channels", {}).get(_id(category_id))
        if parent is None:
            raise _http(404, 10003, "Unknown Channel", "not_found")
        if parent["type"] != "category":
            raise _form("parent_id", "Not a category.")
    _require(env, s, "manage_channels")
    ms = env.now() * 1000 + env.tree.rng.randrange(1000)
    cid = snowflake.make(ms, env.tree.rng.getrandbits(22))
    siblings = [c.get("position", 0) for c in s.get("channels", {}).values()
                if c["type"] == "text" and c.get("parent_id") == (parent["id"] if parent else None)]
    body: dict[str, Any] = {"name": name, "type": "text", "position": max(siblings, default=-1) + 1}
    if parent is not None:
        body["parent_id"] = parent["id"]
    if topic:
        body["topic"] = topic
    env.tree.create(f"{_server_path(s)}.channels", body, entity_id=cid)
    return f"Created text channel #{name} (ID: {cid})"


@APP.tool(mutates=True)
def delete_channel(
    env: AppEnv,
    channel_id: Annotated[str, Field(description="ID of channel to delete")],
    reason: Annotated[str | None, Field(description="Reason for deletion")] = None,
) -> str:
    """Delete a channel (its messages go with it; a category's channels become uncategorized)."""
    s, channel = _channel(env, channel_id)
    _require(env, s, "manage_channels")
    if s.get("community") and channel["id"] in (s.get("rules_channel_id"), s.get("updates_channel_id")):
        raise _http(400, 50074, "Cannot delete a channel required for Community guilds", "conflict")
    if channel["type"] == "category":
        for child in list(s.get("channels", {}).values()):
            if child.get("parent_id") == channel["id"]:
                env.tree.update(_channel_path(s, child), {"parent_id": None})
    env.tree.delete(_channel_path(s, channel))
    return "Deleted channel successfully"


def _react(env: AppEnv, s: dict[str, Any], channel: dict[str, Any], msg: dict[str, Any], key: str) -> None:
    me = _me(env)
    reactions = msg.get("reactions", {})
    path = f"{_channel_path(s, channel)}.messages[{msg['id']}].reactions"
    current = reactions.get(key)
    if current is None:
        if "add_reactions" not in _permissions(s, me):
            raise _missing_permissions()
        if len(reactions) >= MAX_REACTIONS:
            raise _http(400, 30010, f"Maximum number of reactions reached ({MAX_REACTIONS})", "conflict")
        env.tree.create(path, {"user_ids": [me]}, entity_id=key)
    elif me not in current["user_ids"]:
        env.tree.update(f"{path}[{key}]", {"user_ids": [*current["user_ids"], me]})


@APP.tool(mutates=True)
def add_reaction(
    env: AppEnv,
    channel_id: Annotated[str, Field(description="Channel containing the message")],
    message_id: Annotated[str, Field(description="Message to react to")],
    emoji: Annotated[str, Field(description="Emoji to react with (Unicode or custom emoji ID)")],
) -> str:
    """Add a reaction to a message."""
    s, channel = _text_channel(env, channel_id, "fetch_message")
    msg = _message(channel, message_id)
    _react(env, s, channel, msg, _emoji_key(s, emoji))
    return f"Added reaction {emoji} to message"


@APP.tool(mutates=True)
def add_multiple_reactions(
    env: AppEnv,
    channel_id: Annotated[str, Field(description="Channel containing the message")],
    message_id: Annotated[str, Field(description="Message to react to")],
    emojis: Annotated[list[str], Field(description="List of emojis to add as reactions")],
) -> str:
    """Add multiple reactions to a message."""
    s, channel = _text_channel(env, channel_id, "fetch_message")
    msg = _message(channel, message_id)
    keys = [_emoji_key(s, e) for e in emojis]  # every emoji is checked before any is added
    for key in keys:
        _react(env, s, channel, env.tree.get(f"{_channel_path(s, channel)}.messages[{msg['id']}]"), key)
    return f"Added reactions: {', '.join(emojis)} to message"


@APP.tool(mutates=True)
def remove_reaction(
    env: AppEnv,
    channel_id: Annotated[str, Field(description="Channel containing the message")],
    message_id: Annotated[str, Field(description="Message to remove reaction from")],
    emoji: Annotated[str, Field(description="Emoji to remove (Unicode or custom emoji ID)")],
) -> str:
    """Remove your reaction from a message."""
    s, channel = _text_channel(env, channel_id, "fetch_message")
    msg = _message(channel, message_id)
    key = _emoji_key(s, emoji)
    me = _me(env)
    current = msg.get("reactions", {}).get(key)
    if current is not None and me in current["user_ids"]:
        path = f"{_channel_path(s, channel)}.messages[{msg['id']}].reactions[{key}]"
        rest = [u for u in current["user_ids"] if u != me]
        if rest:
            env.tree.update(path, {"user_ids": rest})
        else:
            env.tree.delete(path)
    return f"Removed reaction {emoji} from message"


@APP.tool(mutates=True)
def send_message(
    env: AppEnv,
    channel_id: Annotated[str, Field(description="Discord channel ID")],
    content: Annotated[str, Field(description="Message content")],
) -> str:
    """Send a message to a specific channel."""
    s, channel = _text_channel(env, channel_id, "send")
    if not content.strip():
        raise _http(400, 50006, "Cannot send an empty message", "missing")
    if len(content) > MAX_CONTENT:
        raise _form("content", f"Must be {MAX_CONTENT} or fewer in length.")
    _check_can_send(env, s, channel)
    ms = env.now() * 1000 + env.tree.rng.randrange(1000)
    mid = snowflake.make(ms, env.tree.rng.getrandbits(22))
    env.tree.create(f"{_channel_path(s, channel)}.messages",
                    {"author_id": _me(env), "content": content, "timestamp": snowflake.iso(mid)}, entity_id=mid)
    return f"Message sent successfully. Message ID: {mid}"


@APP.tool()
def read_messages(
    env: AppEnv,
    channel_id: Annotated[str, Field(description="Discord channel ID")],
    limit: Annotated[int, Field(ge=1, le=100, description="Number of messages to fetch (max 100)")] = 10,
) -> str:
    """Read recent messages from a channel, newest first (with each message's ID and reactions)."""
    _, channel = _text_channel(env, channel_id, "history")
    msgs = sorted(channel.get("messages", {}).values(), key=lambda m: int(m["id"]), reverse=True)[:limit]
    blocks = []
    for m in msgs:
        reactions = [f"{_emoji_label(k)}({len(r['user_ids'])})" for k, r in m.get("reactions", {}).items()]
        blocks.append(f"{_user_str(_user(env, m['author_id']))} ({snowflake.iso(m['id'])}) [ID: {m['id']}]: "
                      f"{m['content']}\nReactions: {', '.join(reactions) if reactions else 'No reactions'}")
    return f"Retrieved {len(msgs)} messages:\n\n" + "\n".join(blocks)


@APP.tool()
def get_user_info(env: AppEnv, user_id: Annotated[str, Field(description="Discord user ID")]) -> str:
    """Get information about a Discord user."""
    user = env.tree.top("user", _id(user_id))
    if user is None:
        raise _http(404, 10013, "Unknown User", "not_found")
    return (f"User information:\nName: {user['username']}#{user.get('discriminator', '0')}\nID: {user['id']}\n"
            f"Bot: {bool(user.get('bot'))}\nCreated: {snowflake.iso(user['id'])}")


@APP.tool(mutates=True)
def moderate_message(
    env: AppEnv,
    channel_id: Annotated[str, Field(description="Channel ID containing the message")],
    message_id: Annotated[str, Field(description="ID of message to moderate")],
    reason: Annotated[str, Field(description="Reason for moderation")],
    timeout_minutes: Annotated[int | None, Field(ge=0, le=40320, description="Optional timeout duration in "
                                                                             "minutes")] = None,
) -> str:
    """Delete a message and optionally timeout the user."""
    s, channel = _text_channel(env, channel_id, "fetch_message")
    msg = _message(channel, message_id)
    me = _me(env)
    author = msg["author_id"]
    if author != me:
        _require(env, s, "manage_messages")
    member = s.get("members", {}).get(author)
    timeout = bool(timeout_minutes) and member is not None
    if timeout:
        _require(env, s, "moderate_members")
        target_perms = _permissions(s, author)
        if author == me or "administrator" in target_perms or _top_position(s, author) >= _top_position(s, me):
            raise _missing_permissions()
    env.tree.delete(f"{_channel_path(s, channel)}.messages[{msg['id']}]")
    if timeout and member is not None:
        until = datetime.fromtimestamp(env.now(), tz=UTC) + timedelta(minutes=timeout_minutes or 0)
        env.tree.update(f"{_server_path(s)}.members[{author}]", {"communication_disabled_until": until.isoformat()})
        return f"Message deleted and user timed out for {timeout_minutes} minutes."
    return "Message deleted successfully."
