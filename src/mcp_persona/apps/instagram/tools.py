"""The Instagram tools over the Instagram Context-Tree (see ``data/hierarchies/instagram.json``)."""

from __future__ import annotations

import base64
import hashlib
import re
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Annotated, Any

from pydantic import Field

from mcp_persona.apps.base import App, AppEnv, FailureKind, FieldViolation, ToolFailure
from mcp_persona.apps.instagram import ids

GRAPH = "https://graph.instagram.com/v21.0"
WINDOW_SECONDS = 24 * 3600  # the standard messaging window
MAX_COMMENT = 300
MAX_DM = 1000
UNSUPPORTED = 33  # error_subcode: object missing, not visible, or operation not supported
NO_MATCHING_USER = 2534014
OUTSIDE_WINDOW = 2534022


class InstagramApp(App):
    def success_payload(self, tool: str, result: Any) -> Any:
        return result

    def error_payload(self, tool: str, failure: ToolFailure) -> Any:
        error: dict[str, Any] = {"message": failure.message,
                                 "type": failure.extra.get("type", "OAuthException"),
                                 "code": failure.code if isinstance(failure.code, int) else 100}
        if failure.kind == "internal":
            error |= {"message": "An unexpected error has occurred. Please retry your request later.", "code": 2,
                      "is_transient": True}
        if failure.message.startswith("Unknown tool"):
            error |= {"message": f"(#100) {failure.message}"}
        if "error_subcode" in failure.extra:
            error["error_subcode"] = failure.extra["error_subcode"]
        error["fbtrace_id"] = _trace(tool, error["message"])
        return {"error": error}

    def validation_payload(self, tool: str, violations: list[FieldViolation]) -> Any:
        v = violations[0]
        name = v.field.split(".")[0]
        if v.kind == "missing":
            message = f"(#100) The parameter {name} is required"
        elif v.kind == "extra":
            message = f"(#100) Unknown parameter: {name}"
        else:
            message = f"(#100) Param {name} is invalid: {v.message}"
        return {"error": {"message": message, "type": "OAuthException", "code": 100,
                          "fbtrace_id": _trace(tool, message)}}


def _trace(tool: str, message: str) -> str:
    digest = hashlib.sha1(f"{tool}:{message}".encode()).digest()
    return "A" + base64.urlsafe_b64encode(digest).decode()[:22]


APP = InstagramApp(
    "instagram",
    title="Instagram",
    category="social",
    description="The signed-in Instagram professional account: profile, posts, comments and Direct messages.",
    real_server="simulated in the MCP-Persona release (Instagram Graph API shapes)",
)

Limit = Annotated[int, Field(ge=1, le=100, description="items per page (1-100, default 25)")]
After = Annotated[str | None, Field(description="paging cursor: paging.cursors.after of the previous page")]


def _graph_error(message: str, kind: FailureKind, code: int = 100, subcode: int | None = None,
                 type_: str = "OAuthException") -> ToolFailure:
    extra: dict[str, Any] = {"type": type_}
    if subcode is not None:
        extra["error_subcode"] = subcode
    return ToolFailure(message, kind=kind, code=code, **extra)


def _unsupported(object_id: str) -> ToolFailure:
    return _graph_error(
        f"Unsupported get request. Object with ID '{object_id}' does not exist, cannot be loaded due to missing "
        "permissions, or does not support this operation. Please read the Graph API documentation at "
        "https://developers.facebook.com/docs/graph-api",
        "not_found", subcode=UNSUPPORTED, type_="GraphMethodException")


def _unsupported_post(object_id: str) -> ToolFailure:
    return _graph_error(
        f"Unsupported post request. Object with ID '{object_id}' does not exist, cannot be loaded due to missing "
        "permissions, or does not support this operation. Please read the Graph API documentation at "
        "https://developers.facebook.com/docs/graph-api",
        "not_found", subcode=UNSUPPORTED, type_="GraphMethodException")


# -- paging ----------------------------------------------------------------------------------------------
def _cursor(offset: int) -> str:
    return base64.urlsafe_b64encode(f"offset:{offset}".encode()).decode().rstrip("=")


def _offset(cursor: str) -> int:
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode()
        kind, _, num = raw.partition(":")
        if kind != "offset" or not num.isdigit():
            raise ValueError(raw)
        return int(num)
    except (ValueError, UnicodeDecodeError):
        raise _graph_error("(#100) The after parameter is not a valid cursor", "range") from None


def _page(items: Sequence[dict[str, Any]], limit: int, after: str | None, path: str) -> dict[str, Any]:
    start = _offset(after) if after else 0
    if start > len(items):
        raise _graph_error("(#100) The after parameter is not a valid cursor", "range")
    chunk = list(items[start : start + limit])
    out: dict[str, Any] = {"data": chunk}
    if chunk:
        end = start + len(chunk)
        paging: dict[str, Any] = {"cursors": {"before": _cursor(start), "after": _cursor(end)}}
        if end < len(items):
            paging["next"] = f"{GRAPH}/{path}?limit={limit}&after={_cursor(end)}"
        out["paging"] = paging
    return out


# -- lookups and views ---------------------------------------------------------------------------------
def _me(env: AppEnv) -> str:
    return env.tree.data["me"]


def _user(env: AppEnv, user_id: str) -> dict[str, Any]:
    return env.tree.get(f"users[{user_id}]")


def _ref(env: AppEnv, user_id: str) -> dict[str, str]:
    user = _user(env, user_id)
    return {"username": user["username"], "id": user["id"]}


def _media(env: AppEnv, media_id: str) -> dict[str, Any]:
    media = env.tree.top("media", media_id.strip())
    if media is None or media.get("owner_id") != _me(env):
        raise _unsupported(media_id)
    return media


def _comment(env: AppEnv, comment_id: str) -> tuple[dict[str, Any], dict[str, Any]]:
    key = comment_id.strip()
    if re.fullmatch(r"\d+", key):
        for media in env.tree.list("media", {"owner_id": _me(env)}):
            comment = media.get("comments", {}).get(key)
            if comment is not None:
                return media, comment
    raise _unsupported_post(comment_id)


def _conversation(env: AppEnv, conversation_id: str) -> dict[str, Any]:
    conv = env.tree.top("conversation", conversation_id.strip())
    if conv is None:
        raise _unsupported(conversation_id)
    return conv


def _media_view(env: AppEnv, media: dict[str, Any]) -> dict[str, Any]:
    keys = ("id", "caption", "media_type", "media_product_type", "media_url", "permalink", "shortcode", "timestamp",
            "like_count")
    view = {k: media[k] for k in keys if k in media}
    view["comments_count"] = len(media.get("comments", {}))
    view["is_comment_enabled"] = media.get("is_comment_enabled", True)
    view["username"] = _user(env, media["owner_id"])["username"]
    return view


def _comment_view(env: AppEnv, comment: dict[str, Any]) -> dict[str, Any]:
    user = _user(env, comment["from_id"])
    view = {"id": comment["id"], "text": comment["text"], "timestamp": comment["timestamp"],
            "username": user["username"], "from": {"id": user["id"], "username": user["username"]},
            "like_count": comment.get("like_count", 0), "hidden": bool(comment.get("hidden"))}
    if comment.get("parent_id"):
        view["parent_id"] = comment["parent_id"]
    return view


def _participants(env: AppEnv, conv: dict[str, Any]) -> dict[str, Any]:
    return {"data": [_ref(env, uid) for uid in conv["participant_ids"]]}


def _messages_desc(conv: dict[str, Any]) -> list[dict[str, Any]]:
    return sorted(conv.get("messages", {}).values(), key=lambda m: (m["created_time"], m["id"]), reverse=True)


def _graph_time(ts: int) -> str:
    return datetime.fromtimestamp(ts, tz=UTC).strftime("%Y-%m-%dT%H:%M:%S+0000")


def _seconds(graph_time: str) -> int:
    return int(datetime.strptime(graph_time, "%Y-%m-%dT%H:%M:%S%z").timestamp())


# -- tools -----------------------------------------------------------------------------------------------
@APP.tool()
def get_user_info(
    env: AppEnv,
    user_id: Annotated[str | None, Field(description="Instagram user id; omit for your own account")] = None,
) -> dict[str, Any]:
    """Get a user's profile. Your own account (no user_id) returns the full profile; another user can only be
    looked up through the messaging User Profile API, i.e. once they have a conversation with you."""
    me = _me(env)
    uid = (user_id or me).strip()
    if uid in ("me", me):
        user = _user(env, me)
        keys = ("id", "username", "name", "account_type", "biography", "website", "profile_picture_url",
                "followers_count", "follows_count")
        view = {k: user[k] for k in keys if k in user}
        view["media_count"] = len(env.tree.list("media", {"owner_id": me}))
        return view
    user = env.tree.top("user", uid)
    talks = user is not None and any(uid in c["participant_ids"] for c in env.tree.list("conversations"))
    if not talks:
        raise _unsupported(uid)
    assert user is not None
    return {
        "name": user.get("name", ""),
        "username": user["username"],
        "profile_pic": user.get("profile_picture_url", ""),
        "follower_count": user.get("followers_count", 0),
        "is_user_follow_business": bool(user.get("follows_me")),
        "is_business_follow_user": bool(user.get("followed_by_me")),
        "is_verified_user": bool(user.get("is_verified")),
        "id": user["id"],
    }


@APP.tool()
def get_user_media(
    env: AppEnv,
    user_id: Annotated[str | None, Field(description="Instagram user id; omit for your own account")] = None,
    limit: Limit = 25,
    after: After = None,
) -> dict[str, Any]:
    """List an account's media (posts and reels), newest first, with paging. Only your own account's media
    can be listed."""
    me = _me(env)
    uid = (user_id or me).strip()
    if uid not in ("me", me):
        raise _unsupported(uid)
    media = sorted(env.tree.list("media", {"owner_id": me}), key=lambda m: (m["timestamp"], m["id"]), reverse=True)
    return _page([_media_view(env, m) for m in media], limit, after, f"{me}/media")


@APP.tool()
def get_post_comments(
    env: AppEnv,
    post_id: Annotated[str, Field(description="id of one of your media")],
    limit: Limit = 25,
    after: After = None,
) -> dict[str, Any]:
    """List the top-level comments on one of your posts, newest first, each with its replies (oldest first)."""
    media = _media(env, post_id)
    comments = list(media.get("comments", {}).values())
    top = sorted((c for c in comments if not c.get("parent_id")), key=lambda c: (c["timestamp"], c["id"]),
                 reverse=True)
    out = []
    for c in top:
        view = _comment_view(env, c)
        replies = sorted((r for r in comments if r.get("parent_id") == c["id"]),
                         key=lambda r: (r["timestamp"], r["id"]))
        if replies:
            view["replies"] = {"data": [_comment_view(env, r) for r in replies]}
        out.append(view)
    return _page(out, limit, after, f"{media['id']}/comments")


def _check_comment(message: str) -> None:
    text = message.strip()
    if not text:
        raise _graph_error("(#100) The parameter message is required", "missing")
    if len(message) > MAX_COMMENT:
        raise _graph_error(f"(#100) The comment cannot exceed {MAX_COMMENT} characters", "range")
    if len(re.findall(r"#\w+", message)) > 4:
        raise _graph_error("(#100) The comment cannot contain more than 4 hashtags", "range")
    if len(re.findall(r"https?://|www\.", message, flags=re.IGNORECASE)) > 1:
        raise _graph_error("(#100) The comment cannot contain more than 1 URL", "range")
    letters = [ch for ch in text if ch.isalpha()]
    if len(letters) >= 4 and all(ch.isupper() for ch in letters):
        raise _graph_error("(#100) The comment cannot consist of all capital letters", "range")


@APP.tool(mutates=True)
def reply_to_comment(
    env: AppEnv,
    comment_id: Annotated[str, Field(description="id of a comment on one of your media")],
    message: Annotated[str, Field(description="the reply: at most 300 characters, 4 hashtags and 1 URL")],
) -> dict[str, str]:
    """Reply to a comment on one of your posts. Replies to a reply are added to its top-level comment.
    Returns the new comment's id."""
    media, comment = _comment(env, comment_id)
    _check_comment(message)
    if not media.get("is_comment_enabled", True):
        raise _graph_error("(#100) Comments are disabled for this media", "conflict")
    parent = comment.get("parent_id") or comment["id"]
    new = env.tree.create(f"media[{media['id']}].comments", {
        "text": message, "from_id": _me(env), "timestamp": _graph_time(env.now()), "like_count": 0,
        "hidden": False, "parent_id": parent})
    return {"id": new["id"]}


@APP.tool()
def list_all_conversations(env: AppEnv, limit: Limit = 25, after: After = None) -> dict[str, Any]:
    """List your Direct conversations, most recently updated first, with their participants."""
    convs = sorted(env.tree.list("conversations"), key=lambda c: (c["updated_time"], c["id"]), reverse=True)
    data = [{"id": c["id"], "participants": _participants(env, c), "updated_time": c["updated_time"]} for c in convs]
    return _page(data, limit, after, f"{_me(env)}/conversations")


@APP.tool()
def get_conversation(
    env: AppEnv, conversation_id: Annotated[str, Field(description="id from list_all_conversations")]
) -> dict[str, Any]:
    """Get one conversation: participants, updated_time and the ids and times of its latest 20 messages."""
    conv = _conversation(env, conversation_id)
    latest = [{"id": m["id"], "created_time": m["created_time"]} for m in _messages_desc(conv)[:20]]
    return {"id": conv["id"], "participants": _participants(env, conv), "updated_time": conv["updated_time"],
            "messages": {"data": latest}}


@APP.tool()
def list_all_messages(
    env: AppEnv,
    conversation_id: Annotated[str, Field(description="id from list_all_conversations")],
    limit: Limit = 25,
    after: After = None,
) -> dict[str, Any]:
    """List the messages of a conversation, newest first, with paging."""
    conv = _conversation(env, conversation_id)
    data = [{"id": m["id"], "created_time": m["created_time"], "from": _ref(env, m["from_id"]),
             "to": {"data": [_ref(env, m["to_id"])]}, "message": m["message"]} for m in _messages_desc(conv)]
    return _page(data, limit, after, f"{conv['id']}/messages")


@APP.tool(mutates=True)
def send_text_message(
    env: AppEnv,
    recipient_id: Annotated[str, Field(description="the Instagram-scoped id of the user (from a conversation)")],
    text: Annotated[str, Field(description="the message, at most 1000 characters")],
) -> dict[str, str]:
    """Send a Direct text message. Only possible within 24 hours of the user's last message to you."""
    me = _me(env)
    rid = recipient_id.strip()
    recipient = env.tree.top("user", rid)
    if recipient is None or rid == me:
        raise _graph_error("(#100) No matching user found", "not_found", subcode=NO_MATCHING_USER)
    if not text.strip():
        raise _graph_error("(#100) Param message[text] must be a non-empty UTF-8 encoded string", "missing")
    if len(text) > MAX_DM:
        raise _graph_error(f"(#100) Length of param message[text] must be less than or equal to {MAX_DM}", "range")
    conv = next((c for c in env.tree.list("conversations") if rid in c["participant_ids"]), None)
    inbound = [_seconds(m["created_time"]) for m in (conv or {}).get("messages", {}).values() if m["from_id"] == rid]
    if not inbound or env.clock.timestamp() - max(inbound) > WINDOW_SECONDS:
        raise _graph_error("(#10) This message is sent outside of allowed window.", "conflict", code=10,
                           subcode=OUTSIDE_WINDOW)
    assert conv is not None
    ts = env.now()
    mid = ids.message_id(me, "".join(str(env.tree.rng.randrange(10)) for _ in range(30)))
    created = _graph_time(ts)
    env.tree.create(f"conversations[{conv['id']}].messages",
                    {"message": text, "from_id": me, "to_id": rid, "created_time": created}, entity_id=mid)
    env.tree.update(f"conversations[{conv['id']}]", {"updated_time": created})
    return {"recipient_id": rid, "message_id": mid}
