"""The WeCom group-bot tools over the WeCom Context-Tree (see ``data/hierarchies/wecom.json``).

A send goes to the group whose bot owns the webhook key (``key`` argument, else the key the
server is configured with, ``default_key``) and becomes a message of that group, sent by its
bot. Answers are the webhook API's bodies: ``{"errcode": 0, "errmsg": "ok"}`` and, on failure,
WeCom's errcode with an errmsg that ends in WeCom's "more info" link.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import re
from typing import Annotated, Any
from urllib.parse import parse_qs, urlparse

from pydantic import Field

from mcp_persona.apps.base import App, AppEnv, FailureKind, FieldViolation, ToolFailure

# WeCom global error codes used here.
INVALID_MEDIA_TYPE = 40004  # 不合法的媒体文件类型
INVALID_FILE_SIZE = 40006  # 不合法的文件大小
INVALID_MEDIA_ID = 40007  # 不合法的media_id参数
INVALID_MSGTYPE = 40008  # 不合法的msgtype参数
INVALID_IMAGE_SIZE = 40009  # 上传图片大小不是有效值
INVALID_PARAMETER = 40058  # 不合法的参数
EMPTY_CONTENT = 44004  # 文本消息content参数为空
CHAT_NOT_FOUND = 86003  # chatid 不存在
INVALID_WEBHOOK = 93000  # invalid webhook url

TEXT_MAX_BYTES = 2048
MARKDOWN_MAX_BYTES = 4096
TITLE_MAX_BYTES = 128
DESCRIPTION_MAX_BYTES = 512
IMAGE_MAX_BYTES = 2 * 1024 * 1024
FILE_MIN_BYTES, FILE_MAX_BYTES = 5, 20 * 1024 * 1024
MEDIA_TTL = 3 * 86400
WEBHOOK_CARD_TYPES = ("text_notice", "news_notice")
APP_CARD_TYPES = ("button_interaction", "vote_interaction", "multiple_interaction")
_UUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")
_MD5 = re.compile(r"[0-9a-fA-F]{32}")


class WeComApp(App):
    def success_payload(self, tool: str, result: Any) -> Any:
        return {"errcode": 0, "errmsg": "ok", **result}

    def error_payload(self, tool: str, failure: ToolFailure) -> Any:
        if failure.extra.get("plain"):  # a failure of the bot server itself, before any WeCom call
            return failure.message
        code = failure.code if isinstance(failure.code, int) else (-1 if failure.kind == "internal"
                                                                  else INVALID_PARAMETER)
        return {"errcode": code, "errmsg": _errmsg(code, failure.message)}

    def validation_payload(self, tool: str, violations: list[FieldViolation]) -> Any:
        detail = "; ".join(f"{v.field}: {v.message}" for v in violations)
        return {"errcode": INVALID_PARAMETER, "errmsg": _errmsg(INVALID_PARAMETER,
                                                                f"invalid Request Parameter, {detail}")}


def _errmsg(code: int, message: str) -> str:
    return f"{message}, more info at https://open.work.weixin.qq.com/devtool/query?e={code}"


APP = WeComApp(
    "wecom",
    title="WeCom group bot",
    category="collaboration",
    description="WeCom (Enterprise WeChat) group-bot webhooks of the user: send text, markdown, images, news, "
    "template cards and files to the groups their bots are in, and read those groups.",
    real_server="gotoolkits/mcp-wecombot-server",
)


def _fail(code: int, message: str, kind: FailureKind) -> ToolFailure:
    return ToolFailure(message, kind=kind, code=code)


Key = Annotated[str | None, Field(description="Webhook key of the bot (see list_groups) choosing the group to send "
                                              "to; a full webhook URL works too. Default: the key the server is "
                                              "configured with")]


# -- lookups ------------------------------------------------------------------------------------------
def _group_by_key(env: AppEnv, key: str | None) -> dict[str, Any]:
    raw = (key if key is not None else env.tree.data["default_key"]).strip()
    if raw.startswith("http"):
        raw = (parse_qs(urlparse(raw).query).get("key") or [""])[0]
    if _UUID.fullmatch(raw):
        for group in env.tree.list("groups"):
            if group["webhook_key"] == raw.lower():
                return group
    raise _fail(INVALID_WEBHOOK, "invalid webhook url", "not_found")


def _group_by_id(env: AppEnv, group_id: str) -> dict[str, Any]:
    group = env.tree.top("group", group_id.strip())
    if group is None:
        raise _fail(CHAT_NOT_FOUND, f"chatid not found: {group_id}", "not_found")
    return group


def _post(env: AppEnv, group: dict[str, Any], msgtype: str, body: dict[str, Any]) -> dict[str, Any]:
    message = {"msgtype": msgtype, "sender_type": "bot", "bot_name": group["bot_name"], "send_time": env.now(),
               msgtype: body}
    env.tree.create(f"groups[{group['chat_id']}].messages", message)
    return {}


def _content(text: str, limit: int, field: str) -> str:
    if not text.strip():
        raise _fail(EMPTY_CONTENT, f"empty content: {field} is empty", "missing")
    size = len(text.encode("utf-8"))
    if size > limit:
        raise _fail(INVALID_PARAMETER, f"{field} exceed max length {limit} bytes (got {size})", "range")
    return text


def _split(raw: str | None) -> list[str]:
    return [part.strip() for part in (raw or "").split(",") if part.strip()]


def _url(value: str, field: str) -> str:
    parsed = urlparse(value.strip())
    if parsed.scheme not in ("http", "https") or not parsed.netloc:
        raise _fail(INVALID_PARAMETER, f"invalid {field}: must be an http(s) URL", "type")
    return value.strip()


# -- the six tools of the real server -----------------------------------------------------------------
@APP.tool(mutates=True)
def send_text(
    env: AppEnv,
    content: Annotated[str, Field(description="Text content to send (at most 2048 bytes)")],
    mentioned_list: Annotated[str | None, Field(description="List of user IDs to mention,Multiple people use commas "
                                                            "to separate, such as xiaoyang,wike. @all mentions "
                                                            "everyone")] = None,
    mentioned_mobile_list: Annotated[str | None, Field(description="List of mobile numbers to mention,Multiple "
                                                                   "people use commas to separate. @all mentions "
                                                                   "everyone")] = None,
    key: Key = None,
) -> dict[str, Any]:
    """Send a text message to WeCom group"""
    group = _group_by_key(env, key)
    _content(content, TEXT_MAX_BYTES, "text.content")
    return _post(env, group, "text", {"content": content, "mentioned_list": _split(mentioned_list),
                                      "mentioned_mobile_list": _split(mentioned_mobile_list)})


@APP.tool(mutates=True)
def send_markdown(
    env: AppEnv,
    content: Annotated[str, Field(description="Markdown content to send (at most 4096 bytes; <@userid> mentions a "
                                              "member)")],
    key: Key = None,
) -> dict[str, Any]:
    """Send a markdown message to WeCom group"""
    group = _group_by_key(env, key)
    _content(content, MARKDOWN_MAX_BYTES, "markdown.content")
    return _post(env, group, "markdown", {"content": content})


@APP.tool(mutates=True)
def send_image(
    env: AppEnv,
    base64_data: Annotated[str, Field(description="Base64 encoded image data (JPG or PNG, at most 2 MB before "
                                                  "encoding)")],
    md5: Annotated[str, Field(description="MD5 hash of the image (of the raw bytes, before base64 encoding)")],
    key: Key = None,
) -> dict[str, Any]:
    """Send an image message to WeCom group"""
    group = _group_by_key(env, key)
    try:
        data = base64.b64decode(base64_data.strip(), validate=True)
    except (binascii.Error, ValueError) as exc:
        raise _fail(INVALID_PARAMETER, "invalid image.base64: not valid base64 data", "type") from exc
    if not data:
        raise _fail(INVALID_IMAGE_SIZE, "invalid image size: the image is empty", "missing")
    if not _MD5.fullmatch(md5.strip()):
        raise _fail(INVALID_PARAMETER, "invalid image.md5: must be 32 hex digits", "type")
    if len(data) > IMAGE_MAX_BYTES:
        raise _fail(INVALID_IMAGE_SIZE, f"invalid image size: {len(data)} bytes, at most {IMAGE_MAX_BYTES}", "range")
    fmt = "png" if data.startswith(b"\x89PNG\r\n\x1a\n") else "jpg" if data.startswith(b"\xff\xd8\xff") else None
    if fmt is None:
        raise _fail(INVALID_MEDIA_TYPE, "invalid media type: the image must be JPG or PNG", "type")
    actual = hashlib.md5(data).hexdigest()  # WeCom's own integrity check
    if actual != md5.strip().lower():
        raise _fail(INVALID_PARAMETER, "invalid image.md5: md5 does not match the image data", "conflict")
    return _post(env, group, "image", {"md5": actual, "size": len(data), "format": fmt})


@APP.tool(mutates=True)
def send_news(
    env: AppEnv,
    title: Annotated[str, Field(description="Title of the news article (at most 128 bytes)")],
    url: Annotated[str, Field(description="URL of the news article")],
    description: Annotated[str | None, Field(description="Description of the news article (at most 512 "
                                                         "bytes)")] = None,
    picurl: Annotated[str | None, Field(description="Picture URL of the news article")] = None,
    key: Key = None,
) -> dict[str, Any]:
    """Send a news message to WeCom group,a news include title,description,url,picurl"""
    group = _group_by_key(env, key)
    if not title.strip():
        raise _fail(INVALID_PARAMETER, "missing news.articles[0].title", "missing")
    if len(title.encode("utf-8")) > TITLE_MAX_BYTES:
        raise _fail(INVALID_PARAMETER, f"news.articles[0].title exceed max length {TITLE_MAX_BYTES} bytes", "range")
    if description and len(description.encode("utf-8")) > DESCRIPTION_MAX_BYTES:
        raise _fail(INVALID_PARAMETER,
                    f"news.articles[0].description exceed max length {DESCRIPTION_MAX_BYTES} bytes", "range")
    article = {"title": title, "description": description or "", "url": _url(url, "news.articles[0].url"),
               "picurl": _url(picurl, "news.articles[0].picurl") if picurl else ""}
    return _post(env, group, "news", {"articles": [article]})


@APP.tool(mutates=True)
def send_template_card(
    env: AppEnv,
    card_type: Annotated[str, Field(description="Type of the template card: text_notice or news_notice")],
    main_title: Annotated[str, Field(description="Main title of the template card")],
    card_action_type: Annotated[int, Field(ge=1, le=2, description="Type of the card action: 1 opens "
                                                                   "card_action_url, 2 opens a mini program "
                                                                   "(card_action_appid + card_action_pagepath)")],
    main_desc: Annotated[str | None, Field(description="Main description of the template card")] = None,
    card_action_url: Annotated[str | None, Field(description="URL for the card action")] = None,
    card_action_appid: Annotated[str | None, Field(description="App ID for the card action")] = None,
    card_action_pagepath: Annotated[str | None, Field(description="Page path for the card action")] = None,
    key: Key = None,
) -> dict[str, Any]:
    """Send a template card message to WeCom group"""
    group = _group_by_key(env, key)
    kind = card_type.strip()
    if kind in APP_CARD_TYPES or kind not in WEBHOOK_CARD_TYPES:
        raise _fail(INVALID_MSGTYPE, f"invalid message type: template_card.card_type {kind!r} is not supported by "
                    "group bots (text_notice, news_notice)", "range")
    if kind == "news_notice":  # needs card_image, which this tool cannot send
        raise _fail(INVALID_PARAMETER, "missing template_card.card_image (required for news_notice)", "missing")
    if not main_title.strip():
        raise _fail(INVALID_PARAMETER, "missing template_card.main_title.title", "missing")
    action: dict[str, Any] = {"type": card_action_type}
    if card_action_type == 1:
        if not card_action_url:
            raise _fail(INVALID_PARAMETER, "missing template_card.card_action.url (card_action.type is 1)",
                        "missing")
        action["url"] = _url(card_action_url, "template_card.card_action.url")
    else:
        if not (card_action_appid and card_action_pagepath):
            raise _fail(INVALID_PARAMETER, "missing template_card.card_action.appid or pagepath (card_action.type "
                        "is 2)", "missing")
        action |= {"appid": card_action_appid, "pagepath": card_action_pagepath}
    card = {"card_type": kind, "main_title": {"title": main_title, "desc": main_desc or ""}, "card_action": action}
    return _post(env, group, "template_card", card)


@APP.tool(mutates=True)
def upload_file(
    env: AppEnv,
    file_path: Annotated[str, Field(description="Path to the file to upload")],
    key: Key = None,
) -> dict[str, Any]:
    """Upload a file to WeCom. The media_id it returns is valid for 3 days, for the same bot (key) only;
    send it with send_file."""
    path = file_path.strip()
    files = env.tree.data.get("local_files", {})
    if path not in files:
        if any(p.startswith(path.rstrip("/") + "/") for p in files):
            raise ToolFailure(f"Failed to upload file: read {path}: is a directory", kind="conflict", plain=True)
        raise ToolFailure(f"Failed to upload file: open {path}: no such file or directory", kind="not_found",
                          plain=True)
    group = _group_by_key(env, key)
    size = files[path]["size"]
    if not FILE_MIN_BYTES <= size <= FILE_MAX_BYTES:
        raise _fail(INVALID_FILE_SIZE, f"invalid file size: {size} bytes, files must be 5 B to 20 MB", "range")
    created = env.now()
    media = env.tree.create("media", {
        "type": "file", "filename": path.rsplit("/", 1)[-1], "size": size, "file_path": path, "created_at": created,
        "webhook_key": group["webhook_key"],
    })
    return {"type": "file", "media_id": media["media_id"], "created_at": str(created)}


# -- invented: sending an uploaded file, and reading the bot's groups ---------------------------------
@APP.tool(mutates=True)
def send_file(
    env: AppEnv,
    media_id: Annotated[str, Field(description="media_id returned by upload_file (same bot key, within 3 days)")],
    key: Key = None,
) -> dict[str, Any]:
    """Send a file uploaded with upload_file to WeCom group"""
    group = _group_by_key(env, key)
    media = env.tree.top("media", media_id.strip())
    now = env.clock.timestamp()
    if media is None or media["webhook_key"] != group["webhook_key"] or now - media["created_at"] > MEDIA_TTL:
        raise _fail(INVALID_MEDIA_ID, f"invalid media_id {media_id!r} (unknown, expired after 3 days, or "
                    "uploaded with another bot's key)", "not_found")
    return _post(env, group, "file", {"media_id": media["media_id"], "filename": media["filename"]})


@APP.tool()
def list_groups(env: AppEnv) -> dict[str, Any]:
    """List the group chats your bots are in, with each bot's webhook key (pass it as key to the send_*
    tools to choose the group); is_default marks the group of the configured key."""
    default = env.tree.data["default_key"]
    out = [
        {"chat_id": g["chat_id"], "name": g["name"], "owner": g["owner"], "member_count": len(g["member_list"]),
         "bot_name": g["bot_name"], "webhook_key": g["webhook_key"], "is_default": g["webhook_key"] == default}
        for g in sorted(env.tree.list("groups"), key=lambda g: (g["create_time"], g["chat_id"]))
    ]
    return {"group_list": out}


@APP.tool()
def get_group_messages(
    env: AppEnv,
    group_id: Annotated[str, Field(description="chat_id of the group (see list_groups)")],
    limit: Annotated[int, Field(ge=1, le=100, description="How many of the latest messages to return (default "
                                                          "20)")] = 20,
) -> dict[str, Any]:
    """Get the latest messages of a group chat, oldest first."""
    group = _group_by_id(env, group_id)
    msgs = sorted(group.get("messages", {}).values(), key=lambda m: (m["send_time"], m["msgid"]))
    latest = msgs[-limit:]
    return {"chat_id": group["chat_id"], "name": group["name"], "msg_list": [_message_view(m) for m in latest],
            "has_more": len(msgs) > limit}


def _message_view(msg: dict[str, Any]) -> dict[str, Any]:
    sender = ({"type": "bot", "name": msg["bot_name"]} if msg["sender_type"] == "bot"
              else {"type": "user", "userid": msg["sender"]})
    body = msg[msg["msgtype"]]
    return {"msgid": msg["msgid"], "msgtype": msg["msgtype"], "from": sender, "send_time": msg["send_time"],
            msg["msgtype"]: {k: (list(v) if isinstance(v, list) else v) for k, v in body.items()}}


@APP.tool()
def list_group_members(
    env: AppEnv, group_id: Annotated[str, Field(description="chat_id of the group (see list_groups)")]
) -> dict[str, Any]:
    """List the members of a group chat with their userid (for mentioned_list) and mobile (for
    mentioned_mobile_list)."""
    group = _group_by_id(env, group_id)
    members = []
    for uid in group["member_list"]:
        u = env.tree.top("user", uid) or {}
        members.append({"userid": uid, "name": u.get("name", ""), "mobile": u.get("mobile", ""),
                        "department": u.get("department", ""), "position": u.get("position", ""),
                        "status": u.get("status", 1)})
    return {"chat_id": group["chat_id"], "name": group["name"], "owner": group["owner"], "member_list": members}

