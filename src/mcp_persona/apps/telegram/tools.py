"""The Telegram tools over the Telegram Context-Tree (see ``data/hierarchies/telegram.json``)."""

from __future__ import annotations

import re
from typing import Annotated, Any

from pydantic import Field

from mcp_persona.apps._normalize import StrictNote
from mcp_persona.apps.base import App, AppEnv, FailureKind, FieldViolation, ToolFailure

MAX_TEXT = 4096  # Telegram's limit for one text message
NOT_MODIFIED = ("message is not modified: specified new message content and reply markup are exactly the same "
                "as a current content and reply markup of the message")


class TelegramApp(App):
    def success_payload(self, tool: str, result: Any) -> Any:
        return {"ok": True, "result": result}

    def error_payload(self, tool: str, failure: ToolFailure) -> Any:
        if failure.code is not None:
            return {"ok": False, "error_code": failure.code, "description": failure.message}
        if failure.kind == "internal":
            return {"ok": False, "error_code": 500, "description": "Internal Server Error"}
        if failure.message.startswith("Unknown tool"):
            return {"ok": False, "error_code": 404, "description": "Not Found: method not found"}
        return {"ok": False, "error_code": 400, "description": f"Bad Request: {failure.message}"}

    def validation_payload(self, tool: str, violations: list[FieldViolation]) -> Any:
        v = violations[0]
        name, _, branch = v.field.partition(".")  # "chat_id.int": one branch of int | str
        if v.kind == "type" and branch in ("int", "str"):
            return {"ok": False, "error_code": 400,
                    "description": f'Bad Request: field "{name}" must be of type Integer or String'}
        if v.kind == "missing":
            text = "message text is empty" if name == "text" else f"{name} is empty"
        elif v.kind == "extra":
            text = f'unknown parameter "{name}"'
        elif v.kind == "type":
            text = f'field "{name}" has a wrong type: {v.message}'
        else:
            text = f'invalid value of "{name}": {v.message}'
        return {"ok": False, "error_code": 400, "description": f"Bad Request: {text}"}


APP = TelegramApp(
    "telegram",
    title="Telegram",
    category="social",
    description="The signed-in Telegram account: its chats, groups, channels, contacts and messages.",
    real_server="invented (in the style of Telegram Bot API / MTProto MCP servers)",
    strict=[StrictNote("search_messages", "query", ("plural", "phrase"),
                       "Telegram's message search matches a word inside longer words only: 'bug' finds 'bugs', "
                       "'bugs' does not find 'bug'")],
)

ChatId = Annotated[
    int | str,
    Field(description="chat id: an integer (negative for groups and channels; a private chat's id is the user's "
                      "id), or '@username' of a public chat or user"),
]
MessageId = Annotated[int, Field(ge=1, description="id of a message in that chat")]


def _bad(text: str, kind: FailureKind = "conflict") -> ToolFailure:
    return ToolFailure(f"Bad Request: {text}", kind=kind, code=400)


def _forbidden(text: str) -> ToolFailure:
    return ToolFailure(f"Forbidden: {text}", kind="permission", code=403)


# -- lookups -------------------------------------------------------------------------------------
def _me(env: AppEnv) -> str:
    return env.tree.data["me"]


def _user(env: AppEnv, user_id: str) -> dict[str, Any]:
    return env.tree.get(f"users[{user_id}]")


def _chat_key(env: AppEnv, chat_id: int | str) -> str:
    """The tree id that ``chat_id`` names (it may not exist yet: a private chat opened by a send)."""
    if isinstance(chat_id, int):
        return str(chat_id)
    text = chat_id.strip()
    if re.fullmatch(r"-?\d+", text):
        return str(int(text))
    if text.startswith("@") and len(text) > 1:
        name = text[1:].lower()
        for chat in env.tree.list("chats"):
            if (chat.get("username") or "").lower() == name:
                return chat["id"]
        for user in env.tree.list("users"):
            if (user.get("username") or "").lower() == name and user["id"] != _me(env):
                return user["id"]
        raise _bad("chat not found", "not_found")
    raise _bad("chat not found" if text else "chat_id is empty", "not_found" if text else "missing")


def _chat(env: AppEnv, chat_id: int | str) -> dict[str, Any]:
    chat = env.tree.top("chat", _chat_key(env, chat_id))
    if chat is None:
        raise _bad("chat not found", "not_found")
    return chat


def _chat_or_open(env: AppEnv, chat_id: int | str) -> dict[str, Any]:
    """The chat, or a new private chat when ``chat_id`` is a known user's id (sending opens it)."""
    key = _chat_key(env, chat_id)
    chat = env.tree.top("chat", key)
    if chat is not None:
        return chat
    user = env.tree.top("user", key)
    if user is None or key == _me(env):
        raise _bad("chat not found", "not_found")
    return env.tree.create("chats", {
        "type": "private", "user_id": key, "member_ids": [_me(env), key], "has_protected_content": False,
        "pinned_message_ids": [], "unread_count": 0, "read_inbox_max_id": 0,
    }, entity_id=key)


def _message(chat: dict[str, Any], message_id: int, missing: str) -> dict[str, Any]:
    msg = chat.get("messages", {}).get(str(message_id))
    if msg is None:
        raise _bad(missing, "not_found")
    return msg


def _is_admin(chat: dict[str, Any]) -> bool:
    return chat.get("my_status") in ("creator", "administrator")


def _check_can_send(env: AppEnv, chat: dict[str, Any]) -> None:
    if chat["type"] == "private":
        if _user(env, chat["user_id"]).get("is_deleted"):
            raise _forbidden("user is deactivated")
        return
    if _is_admin(chat):
        return
    if chat["type"] == "channel":
        raise _bad("need administrator rights in the channel chat", "permission")
    if not chat.get("permissions", {}).get("can_send_messages", True):
        raise _bad("not enough rights to send text messages to the chat", "permission")


def _check_text(text: str) -> str:
    if not text.strip():
        raise _bad("message text is empty", "missing")
    if len(text) > MAX_TEXT:
        raise _bad("message is too long", "range")
    return text


def _next_message_id(chat: dict[str, Any]) -> str:
    ids = [int(k) for k in chat.get("messages", {})]
    return str(max(ids, default=0) + 1)


# -- views (Bot API shapes) ------------------------------------------------------------------------
def _user_view(user: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {"id": int(user["id"]), "is_bot": bool(user.get("is_bot")),
                           "first_name": user["first_name"]}
    for key in ("last_name", "username"):
        if user.get(key):
            out[key] = user[key]
    return out


def _chat_short(env: AppEnv, chat: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {"id": int(chat["id"])}
    if chat["type"] == "private":
        peer = _user(env, chat["user_id"])
        out["first_name"] = peer["first_name"]
        for key in ("last_name", "username"):
            if peer.get(key):
                out[key] = peer[key]
    else:
        out["title"] = chat["title"]
        if chat.get("username"):
            out["username"] = chat["username"]
    out["type"] = chat["type"]
    return out


def _message_view(env: AppEnv, chat: dict[str, Any], msg: dict[str, Any], *, nested: bool = True) -> dict[str, Any]:
    out: dict[str, Any] = {"message_id": int(msg["message_id"])}
    if chat["type"] == "channel":
        out["sender_chat"] = _chat_short(env, chat)
    else:
        out["from"] = _user_view(_user(env, msg["from_id"]))
    out["chat"] = _chat_short(env, chat)
    out["date"] = msg["date"]
    if msg.get("forward_date") is not None:
        out["forward_origin"] = _origin_view(env, msg)
    reply = msg.get("reply_to_message_id")
    if nested and reply is not None:
        replied = chat.get("messages", {}).get(str(reply))
        if replied is not None:
            out["reply_to_message"] = _message_view(env, chat, replied, nested=False)
    if msg.get("edit_date") is not None:
        out["edit_date"] = msg["edit_date"]
    out["text"] = msg["text"]
    return out


def _origin_view(env: AppEnv, msg: dict[str, Any]) -> dict[str, Any]:
    if msg.get("forward_from_chat_id"):
        src = env.tree.get(f"chats[{msg['forward_from_chat_id']}]")
        return {"type": "channel", "date": msg["forward_date"], "chat": _chat_short(env, src),
                "message_id": msg["forward_from_message_id"]}
    if msg.get("forward_from_id"):
        return {"type": "user", "date": msg["forward_date"],
                "sender_user": _user_view(_user(env, msg["forward_from_id"]))}
    return {"type": "hidden_user", "date": msg["forward_date"], "sender_user_name": msg.get("forward_sender_name", "")}


def _history(chat: dict[str, Any]) -> list[dict[str, Any]]:
    """The chat's messages, newest first."""
    return sorted(chat.get("messages", {}).values(), key=lambda m: int(m["message_id"]), reverse=True)


# -- tools -------------------------------------------------------------------------------------------
@APP.tool()
def get_chats(env: AppEnv, limit: Annotated[int, Field(ge=1, le=100)] = 20) -> list[dict[str, Any]]:
    """List your dialogs (private chats, groups, channels), most recent activity first, each with its
    unread_count and last message."""
    dialogs = []
    for chat in env.tree.list("chats"):
        history = _history(chat)
        entry = _chat_short(env, chat) | {"unread_count": chat.get("unread_count", 0)}
        if history:
            entry["last_message"] = _message_view(env, chat, history[0], nested=False)
        dialogs.append(entry)
    dialogs.sort(key=lambda d: (d.get("last_message", {}).get("date", 0), d["id"]), reverse=True)
    return dialogs[:limit]


@APP.tool()
def get_chat(env: AppEnv, chat_id: ChatId) -> dict[str, Any]:
    """Get up-to-date information about a chat: title or name, username, description or bio, the member
    count, default member permissions and the most recently pinned message."""
    chat = _chat(env, chat_id)
    out = _chat_short(env, chat)
    if chat["type"] == "private":
        peer = _user(env, chat["user_id"])
        if peer.get("bio"):
            out["bio"] = peer["bio"]
    else:
        if chat.get("description"):
            out["description"] = chat["description"]
        out["member_count"] = chat.get("member_count", len(chat.get("member_ids", [])))
        if chat["type"] != "channel":
            out["permissions"] = dict(chat.get("permissions", {}))
    if chat.get("has_protected_content"):
        out["has_protected_content"] = True
    pinned = chat.get("pinned_message_ids") or []
    if pinned:
        msg = chat.get("messages", {}).get(str(pinned[-1]))
        if msg is not None:
            out["pinned_message"] = _message_view(env, chat, msg, nested=False)
    return out


@APP.tool()
def get_messages(
    env: AppEnv,
    chat_id: ChatId,
    limit: Annotated[int, Field(ge=1, le=100)] = 20,
    offset_id: Annotated[int, Field(ge=0, description="only messages older than this id; 0 = from the latest")] = 0,
) -> list[dict[str, Any]]:
    """Get a chat's message history, newest first. Page back by passing the smallest message_id you got
    as offset_id."""
    chat = _chat(env, chat_id)
    history = [m for m in _history(chat) if offset_id == 0 or int(m["message_id"]) < offset_id]
    return [_message_view(env, chat, m) for m in history[:limit]]


@APP.tool(mutates=True)
def send_message(
    env: AppEnv,
    chat_id: ChatId,
    text: Annotated[str, Field(description="1-4096 characters")],
    reply_to_message_id: Annotated[int | None, Field(ge=1, description="reply to this message of the chat")] = None,
) -> dict[str, Any]:
    """Send a text message to a chat (a user's id opens a private chat with them). Returns the sent Message."""
    _check_text(text)
    chat = _chat_or_open(env, chat_id)
    _check_can_send(env, chat)
    if reply_to_message_id is not None:
        _message(chat, reply_to_message_id, "message to be replied not found")
    body: dict[str, Any] = {"from_id": _me(env), "date": env.now(), "text": text}
    if reply_to_message_id is not None:
        body["reply_to_message_id"] = reply_to_message_id
    msg = env.tree.create(f"chats[{chat['id']}].messages", body, entity_id=_next_message_id(chat))
    return _message_view(env, chat, msg)


@APP.tool()
def search_messages(
    env: AppEnv,
    query: Annotated[str, Field(description="words to look for")],
    chat_id: ChatId | None = None,
    limit: Annotated[int, Field(ge=1, le=100)] = 20,
) -> list[dict[str, Any]]:
    """Search messages containing every word of query (case-insensitive), in one chat or in all chats;
    newest first."""
    words = query.lower().split()
    if not words:
        raise _bad("query is empty", "missing")
    chats = [_chat(env, chat_id)] if chat_id is not None else env.tree.list("chats")
    hits = []
    for chat in chats:
        for msg in chat.get("messages", {}).values():
            text = msg["text"].lower()
            if all(w in text for w in words):
                hits.append((msg["date"], int(msg["message_id"]), chat, msg))
    hits.sort(key=lambda h: (h[0], h[1]), reverse=True)
    return [_message_view(env, chat, msg) for _, _, chat, msg in hits[:limit]]


@APP.tool()
def get_contacts(env: AppEnv) -> list[dict[str, Any]]:
    """List your contacts (user_id, name, username, phone_number)."""
    out = []
    for user in env.tree.list("users", {"is_contact": True}):
        entry: dict[str, Any] = {"user_id": int(user["id"]), "first_name": user["first_name"]}
        for key in ("last_name", "username", "phone_number"):
            if user.get(key):
                entry[key] = user[key]
        out.append(entry)
    out.sort(key=lambda c: (c["first_name"].lower(), c.get("last_name", "").lower(), c["user_id"]))
    return out


@APP.tool(mutates=True)
def forward_message(
    env: AppEnv,
    from_chat_id: ChatId,
    message_id: MessageId,
    to_chat_id: ChatId,
    disable_notification: bool | None = None,
) -> dict[str, Any]:
    """Forward a message from one chat to another (the copy keeps its origin). Returns the new Message."""
    src = _chat(env, from_chat_id)
    original = _message(src, message_id, "message to forward not found")
    if src.get("has_protected_content"):
        raise _bad("message can't be forwarded", "permission")
    dst = _chat_or_open(env, to_chat_id)
    _check_can_send(env, dst)
    body: dict[str, Any] = {"from_id": _me(env), "date": env.now(), "text": original["text"]}
    if original.get("forward_date") is not None:  # a forward of a forward keeps the first origin
        for key in ("forward_from_id", "forward_from_chat_id", "forward_from_message_id", "forward_sender_name",
                    "forward_date"):
            if original.get(key) is not None:
                body[key] = original[key]
    elif src["type"] == "channel":
        body |= {"forward_from_chat_id": src["id"], "forward_from_message_id": int(original["message_id"]),
                 "forward_date": original["date"]}
    else:
        body |= {"forward_from_id": original["from_id"], "forward_date": original["date"]}
    msg = env.tree.create(f"chats[{dst['id']}].messages", body, entity_id=_next_message_id(dst))
    return _message_view(env, dst, msg)


@APP.tool(mutates=True)
def pin_message(
    env: AppEnv, chat_id: ChatId, message_id: MessageId, disable_notification: bool | None = None
) -> bool:
    """Pin a message in a chat (groups and channels need the right to pin). Returns true."""
    chat = _chat(env, chat_id)
    _message(chat, message_id, "message to pin not found")
    members_may_pin = chat["type"] != "channel" and chat.get("permissions", {}).get("can_pin_messages", False)
    if chat["type"] != "private" and not _is_admin(chat) and not members_may_pin:
        raise _bad("not enough rights to manage pinned messages in the chat", "permission")
    pinned = [p for p in chat.get("pinned_message_ids", []) if p != message_id]
    env.tree.update(f"chats[{chat['id']}]", {"pinned_message_ids": [*pinned, message_id]})
    return True


@APP.tool(mutates=True)
def mark_as_read(env: AppEnv, chat_id: ChatId) -> bool:
    """Mark every message of a chat as read. Returns true."""
    chat = _chat(env, chat_id)
    top = max((int(k) for k in chat.get("messages", {})), default=0)
    env.tree.update(f"chats[{chat['id']}]", {"unread_count": 0, "read_inbox_max_id": top})
    return True


@APP.tool(mutates=True)
def edit_message(
    env: AppEnv,
    chat_id: ChatId,
    message_id: MessageId,
    text: Annotated[str, Field(description="the new text, 1-4096 characters")],
) -> dict[str, Any]:
    """Edit the text of one of your own messages. Returns the edited Message."""
    chat = _chat(env, chat_id)
    msg = _message(chat, message_id, "message to edit not found")
    if msg.get("from_id") != _me(env) or msg.get("forward_date") is not None:
        raise _bad("message can't be edited", "permission")
    _check_text(text)
    if text == msg["text"]:
        raise _bad(NOT_MODIFIED, "conflict")
    edited = env.tree.update(f"chats[{chat['id']}].messages[{msg['message_id']}]",
                             {"text": text, "edit_date": env.now()})
    return _message_view(env, chat, edited)
