"""The Xiaohongshu tools over the rednote Context-Tree (see ``data/hierarchies/rednote.json``).

Root fields of a context: ``me`` (the account's user id) and ``local_files`` (the images and videos on
the user's computer that a publish call may upload: ``{"path", "kind": "image"|"video", "duration"}``).
The cookie session is the one ``session`` entity (``sessions[web]``: ``logged_in``, ``cookie_path``).
Counters are stored as integers and rendered the way the site shows them (``"1.2万"`` from ten
thousand up); times are unix milliseconds.
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from mcp_persona.apps._normalize import matches_all
from mcp_persona.apps.base import App, AppEnv, FieldViolation, ToolFailure, compact_json
from mcp_persona.context_tree.ids import generate_id

# The real handlers prefix every failure with what was being done ("获取Feed详情失败: ...").
_PREFIX = {
    "check_login_status": "检查登录状态失败",
    "get_login_qrcode": "获取登录扫码图片失败",
    "delete_cookies": "删除 cookies 失败",
    "list_feeds": "获取Feeds列表失败",
    "search_feeds": "搜索Feeds失败",
    "get_feed_detail": "获取Feed详情失败",
    "user_profile": "获取用户主页失败",
    "like_feed": "点赞失败",
    "favorite_feed": "收藏失败",
    "post_comment_to_feed": "发表评论失败",
    "reply_comment_in_feed": "回复评论失败",
    "publish_content": "发布失败",
    "publish_with_video": "发布失败",
    "get_my_profile": "获取我的主页失败",
}

TITLE_MAX = 20  # the site's unit: a CJK character counts 1, an ASCII character 1/2
CONTENT_MAX = 1000
IMAGES_MAX = 9
COMMENT_MAX = 280
VISIBILITIES = ("公开可见", "仅自己可见", "仅互关好友可见")
XSEC_FORMAT = "AB{alnum:14}{upper:6}{alnum:12}{upper:8}="
CDN = "https://sns-webpic-qc.xhscdn.com"
SESSION = "sessions[web]"  # the cookie session of the browser the server drives
NOT_LOGGED_IN = "未登录，请先使用 get_login_qrcode 获取二维码并扫码登录"
BAD_TOKEN = ("笔记不可访问: 当前笔记暂时无法浏览（xsec_token 无效或与该笔记不匹配，"
             "请使用 list_feeds / search_feeds 返回的该笔记的 xsecToken）")

# search_feeds filters: group label, argument, allowed values (the first is the default)
_FILTER_GROUPS = (
    ("排序依据", "sort_by", ("综合", "最新", "最多点赞", "最多评论", "最多收藏")),
    ("笔记类型", "note_type", ("不限", "视频", "图文")),
    ("发布时间", "publish_time", ("不限", "一天内", "一周内", "半年内")),
    ("搜索范围", "search_scope", ("不限", "已看过", "未看过", "已关注")),
    ("位置距离", "location", ("不限", "同城", "附近")),
)
_PUBLISH_WINDOW = {"一天内": timedelta(days=1), "一周内": timedelta(days=7), "半年内": timedelta(days=182)}
_TABS = {
    "": "note", "note": "note", "notes": "note", "笔记": "note",
    "fav": "fav", "favorites": "fav", "favorite": "fav", "收藏": "fav",
    "liked": "liked", "like": "liked", "点赞": "liked",
}


class RednoteApp(App):
    """Success: the result as compact JSON (the real server indents it, Go's MarshalIndent); failure: a
    plain '<操作>失败: <原因>' text, as the real handlers write it."""

    def success_payload(self, tool: str, result: Any) -> Any:
        return compact_json(result)

    def error_payload(self, tool: str, failure: ToolFailure) -> Any:
        prefix = failure.extra.get("prefix", _PREFIX.get(tool))
        if failure.extra.get("raw") or not prefix:
            return failure.message
        return f"{prefix}: {failure.message}"

    def validation_payload(self, tool: str, violations: list[FieldViolation]) -> Any:
        detail = "; ".join(f"{v.field}: {v.message}" for v in violations)
        return f'invalid params: validating "arguments": {detail}'


APP = RednoteApp(
    "rednote",
    title="Xiaohongshu (RED)",
    category="social",
    description="The user's Xiaohongshu (小红书) account: home feed, search, note details and comments, likes and "
                "favorites, user profiles, publishing image and video notes. Every note listed carries an "
                "xsecToken that must be passed back as xsec_token.",
    real_server="xpzouying/xiaohongshu-mcp",
)

_OBJ = ConfigDict(extra="forbid")
_FEED_ID_DOC = "小红书笔记ID，从Feed列表获取"
_TOKEN_DOC = "访问令牌，从Feed列表的xsecToken字段获取"


# -- session and lookups ----------------------------------------------------------------------------
def _require(value: str, name: str, prefix: str | None = None) -> None:
    if not value.strip():
        extra = {"prefix": prefix} if prefix else {}
        raise ToolFailure(f"缺少{name}参数", kind="missing", **extra)


def _login(env: AppEnv) -> dict[str, Any]:
    """The logged-in user; every site action needs the cookie session."""
    if not _session(env)["logged_in"]:
        raise ToolFailure(NOT_LOGGED_IN, kind="permission")
    return _me(env)


def _session(env: AppEnv) -> dict[str, Any]:
    return env.tree.get(SESSION)


def _me(env: AppEnv) -> dict[str, Any]:
    return env.tree.get(f"users[{env.tree.data['me']}]")


def _user(env: AppEnv, user_id: str) -> dict[str, Any] | None:
    return env.tree.top("user", user_id)


def _published(env: AppEnv, note: dict[str, Any]) -> bool:
    """Not a scheduled post whose time has not come yet."""
    return note.get("publish_status") != "scheduled" or note["time"] <= env.clock.timestamp() * 1000


def _is_live(env: AppEnv, note: dict[str, Any]) -> bool:
    """Published and not deleted."""
    return note.get("status") == "normal" and _published(env, note)


def _viewable(env: AppEnv, note: dict[str, Any]) -> bool:
    """Whether the logged-in user may open the note at all (visibility settings)."""
    if note["author_id"] == env.tree.data["me"]:
        return True
    visibility = note.get("visibility", "公开可见")
    if visibility == "公开可见":
        return True
    if visibility == "仅互关好友可见":
        author = _user(env, note["author_id"]) or {}
        return bool(author.get("followed") and author.get("follows_me"))
    return False


def _note(env: AppEnv, feed_id: str, xsec_token: str) -> dict[str, Any]:
    """The note a feed_id + xsec_token pair opens; a wrong or foreign token is rejected."""
    note = env.tree.top("note", feed_id)
    if note is None or not (_published(env, note) or note["author_id"] == env.tree.data["me"]):
        raise ToolFailure(f"笔记不可访问: 笔记不存在 (feed_id: {feed_id})", kind="not_found")
    if xsec_token != note["xsec_token"]:
        raise ToolFailure(BAD_TOKEN, kind="permission")
    if note.get("status") == "deleted":
        raise ToolFailure("笔记不可访问: 该笔记已被删除", kind="not_found")
    if not _viewable(env, note):
        raise ToolFailure("笔记不可访问: 因用户设置，你无法查看", kind="permission")
    return note


def _note_path(note_id: str) -> str:
    return f"notes[{note_id}]"


# -- rendering --------------------------------------------------------------------------------------
def _count(n: int) -> str:
    """A counter as the site shows it: 9999, 1万, 1.2万."""
    if n < 10000:
        return str(n)
    return f"{n / 10000:.1f}".rstrip("0").rstrip(".") + "万"


def _user_card(user: dict[str, Any]) -> dict[str, Any]:
    return {"userId": user["user_id"], "nickname": user["nickname"], "nickName": user["nickname"],
            "avatar": user["avatar"], "xsecToken": user["xsec_token"]}


def _interact(note: dict[str, Any]) -> dict[str, Any]:
    return {
        "liked": note.get("liked", False),
        "likedCount": _count(note["liked_count"]),
        "sharedCount": _count(note["shared_count"]),
        "commentCount": _count(note["comment_count"]),
        "collectedCount": _count(note["collected_count"]),
        "collected": note.get("collected", False),
    }


def _display_title(note: dict[str, Any]) -> str:
    return note["title"] or note["desc"][:20]


def _feed(env: AppEnv, note: dict[str, Any], index: int) -> dict[str, Any]:
    author = env.tree.get(f"users[{note['author_id']}]")
    cover = note["images"][0] if note["images"] else {"url": "", "width": 0, "height": 0}
    card: dict[str, Any] = {
        "type": note["type"],
        "displayTitle": _display_title(note),
        "user": _user_card(author),
        "interactInfo": _interact(note),
        "cover": {"width": cover["width"], "height": cover["height"], "url": cover["url"],
                  "urlDefault": cover["url"], "urlPre": cover["url"].replace("_dft_", "_prv_")},
    }
    if note["type"] == "video":
        card["video"] = {"capa": {"duration": note["video"]["duration"]}}
    return {"xsecToken": note["xsec_token"], "id": note["note_id"], "modelType": "note", "noteCard": card,
            "index": index}


def _feeds(env: AppEnv, notes: list[dict[str, Any]]) -> dict[str, Any]:
    feeds = [_feed(env, n, i) for i, n in enumerate(notes)]
    return {"feeds": feeds, "count": len(feeds)}


def _desc_with_tags(note: dict[str, Any]) -> str:
    """The note text as the site stores it: topic tags appended as '#tag[话题]#'."""
    tags = " ".join(f"#{t}[话题]#" for t in note.get("tags", []))
    return f"{note['desc']}\n{tags}" if tags else note["desc"]


def _comment_view(env: AppEnv, note: dict[str, Any], c: dict[str, Any], subs: list[dict[str, Any]],
                  shown: int) -> dict[str, Any]:
    user = env.tree.get(f"users[{c['user_id']}]")
    tags = ["is_author"] if c["user_id"] == note["author_id"] else []
    return {
        "id": c["comment_id"],
        "noteId": note["note_id"],
        "content": c["content"],
        "likeCount": _count(c["like_count"]),
        "createTime": c["create_time"],
        "ipLocation": c["ip_location"],
        "liked": c.get("liked", False),
        "userInfo": _user_card(user),
        "subCommentCount": str(len(subs)),
        "subComments": [_comment_view(env, note, s, [], 0) for s in subs[:shown]],
        "showTags": tags,
    }


def _threads(note: dict[str, Any]) -> list[tuple[dict[str, Any], list[dict[str, Any]]]]:
    """Top-level comments (most liked first, then oldest) with their replies (oldest first)."""
    comments = list((note.get("comments") or {}).values())
    roots = [c for c in comments if not c.get("root_comment_id")]
    roots.sort(key=lambda c: (-c["like_count"], c["create_time"], c["comment_id"]))
    out = []
    for root in roots:
        subs = [c for c in comments if c.get("root_comment_id") == root["comment_id"]]
        subs.sort(key=lambda c: (c["create_time"], c["comment_id"]))
        out.append((root, subs))
    return out


def _basic_info(user: dict[str, Any]) -> dict[str, Any]:
    return {"gender": user["gender"], "ipLocation": user["ip_location"], "desc": user["desc"],
            "imageb": user["avatar"], "nickname": user["nickname"], "images": user["avatar"],
            "redId": user["red_id"]}


def _interactions(user: dict[str, Any]) -> list[dict[str, Any]]:
    return [
        {"type": "follows", "name": "关注", "count": _count(user["follows"])},
        {"type": "fans", "name": "粉丝", "count": _count(user["fans"])},
        {"type": "interaction", "name": "获赞与收藏", "count": _count(user["interaction"])},
    ]


def _by_time(notes: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return sorted(notes, key=lambda n: (-n["time"], n["note_id"]))


def _tab(raw: str) -> str:
    tab = _TABS.get(raw.strip().lower())
    if tab is None:
        raise ToolFailure(f'未知的主页 tab "{raw}"，可选：note / fav / liked', kind="range")
    return tab


# -- login ------------------------------------------------------------------------------------------
@APP.tool()
def check_login_status(env: AppEnv) -> dict[str, Any]:
    """检查小红书登录状态"""
    if not _session(env)["logged_in"]:
        return {"is_logged_in": False}
    me = _me(env)
    return {"is_logged_in": True, "username": me["nickname"], "user_id": me["user_id"]}


# A small placeholder PNG standing in for the QR code image.
_QR_PNG = ("data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA"
           "60e6kgAAAABJRU5ErkJggg==")


@APP.tool(mutates=True)
def get_login_qrcode(env: AppEnv) -> dict[str, Any]:
    """获取登录二维码（返回 Base64 图片和超时时间）"""
    if _session(env)["logged_in"]:
        return {"timeout": "0s", "is_logged_in": True, "message": "你当前已处于登录状态"}
    deadline = env.clock.current() + timedelta(minutes=4)
    # Simulator: the user scans the code with the app right away, so the session is restored.
    env.tree.update(SESSION, {"logged_in": True})
    return {"timeout": "4m0s", "is_logged_in": False, "img": _QR_PNG,
            "message": f"请用小红书 App 在 {deadline:%Y-%m-%d %H:%M:%S} 前扫码登录 👇"}


@APP.tool(mutates=True)
def delete_cookies(env: AppEnv) -> dict[str, Any]:
    """删除 cookies 文件，重置登录状态。删除后需要重新登录。"""
    env.tree.update(SESSION, {"logged_in": False})
    path = _session(env)["cookie_path"]
    return {"success": True, "cookie_path": path,
            "message": "Cookies 已成功删除，登录状态已重置。下次操作时，需要重新登录。"}


# -- feeds ------------------------------------------------------------------------------------------
@APP.tool()
def list_feeds(env: AppEnv) -> dict[str, Any]:
    """获取首页 Feeds 列表（推荐笔记；每条都带 xsecToken，供 get_feed_detail 等工具使用）"""
    _login(env)
    me = env.tree.data["me"]
    notes = [n for n in env.tree.list("notes") if n.get("in_homefeed") and n["author_id"] != me
             and _is_live(env, n) and _viewable(env, n)]
    notes.sort(key=lambda n: (n.get("feed_rank", 0), n["note_id"]))
    return _feeds(env, notes)


class FilterOption(BaseModel):
    model_config = _OBJ
    sort_by: str | None = Field(None, description="排序依据: 综合|最新|最多点赞|最多评论|最多收藏,默认为'综合'")
    note_type: str | None = Field(None, description="笔记类型: 不限|视频|图文,默认为'不限'")
    publish_time: str | None = Field(None, description="发布时间: 不限|一天内|一周内|半年内,默认为'不限'")
    search_scope: str | None = Field(None, description="搜索范围: 不限|已看过|未看过|已关注,默认为'不限'")
    location: str | None = Field(None, description="位置距离: 不限|同城|附近,默认为'不限'")


def _chunks(token: str) -> list[str]:
    """A run of CJK characters split into the two-character words a search engine would find."""
    parts = [token[i:i + 2] for i in range(0, len(token), 2)]
    if len(parts) > 1 and len(parts[-1]) == 1:
        parts[-2] += parts.pop()
    return parts


_CJK = re.compile(r"^[\u4e00-\u9fff]+$")


def _token_hits(token: str, text: str) -> bool:
    if token in text:
        return True
    if _CJK.match(token):
        return len(token) >= 4 and all(p in text for p in _chunks(token))
    # a Latin word as the site's fuzzy search takes it: singular or plural, aliases (apps/_normalize.py)
    return matches_all(token, text)


@APP.tool()
def search_feeds(
    env: AppEnv,
    keyword: str = Field(description="搜索关键词"),
    filters: FilterOption | None = Field(None, description="筛选选项"),  # noqa: B008
) -> dict[str, Any]:
    """搜索小红书内容（需要已登录）。每个空格分隔的词都要出现在标题、正文、话题标签或作者昵称中。"""
    _require(keyword, "关键词")
    chosen: dict[str, str] = {}
    f = filters or FilterOption()
    for label, arg, allowed in _FILTER_GROUPS:
        value = getattr(f, arg)
        if value is None or value == "":
            chosen[arg] = allowed[0]
            continue
        if value not in allowed:
            raise ToolFailure(f'{label} 不支持 "{value}"，可选：{"、".join(allowed)}', kind="range")
        chosen[arg] = value
    me = _login(env)
    tokens = keyword.lower().split()
    now_ms = env.clock.timestamp() * 1000
    hits: list[tuple[int, dict[str, Any]]] = []
    for note in env.tree.list("notes"):
        if not _is_live(env, note) or not _viewable(env, note) or note.get("visibility", "公开可见") != "公开可见":
            continue
        author = env.tree.get(f"users[{note['author_id']}]")
        title, desc = note["title"].lower(), note["desc"].lower()
        tags = " ".join(note.get("tags", [])).lower()
        text = " ".join((title, desc, tags, author["nickname"].lower()))
        if not all(_token_hits(t, text) for t in tokens):
            continue
        if chosen["note_type"] == "视频" and note["type"] != "video":
            continue
        if chosen["note_type"] == "图文" and note["type"] != "normal":
            continue
        window = _PUBLISH_WINDOW.get(chosen["publish_time"])
        if window is not None and note["time"] < now_ms - int(window.total_seconds() * 1000):
            continue
        scope = chosen["search_scope"]
        if (scope == "已看过" and not note.get("viewed")) or (scope == "未看过" and note.get("viewed")):
            continue
        if scope == "已关注" and not author.get("followed"):
            continue
        if chosen["location"] != "不限" and note["ip_location"] != me["ip_location"]:
            continue
        score = sum(3 * (t in title) + 2 * (t in tags) + (t in desc) for t in tokens)
        hits.append((score, note))
    order = {
        "综合": lambda h: (-h[0], -h[1]["liked_count"], h[1]["note_id"]),
        "最新": lambda h: (-h[1]["time"], h[1]["note_id"]),
        "最多点赞": lambda h: (-h[1]["liked_count"], h[1]["note_id"]),
        "最多评论": lambda h: (-h[1]["comment_count"], h[1]["note_id"]),
        "最多收藏": lambda h: (-h[1]["collected_count"], h[1]["note_id"]),
    }[chosen["sort_by"]]
    hits.sort(key=order)
    return _feeds(env, [n for _, n in hits])


_LOAD_ALL_DOC = "是否加载全部评论。false仅返回前10条一级评论（默认），true滚动加载更多评论"
_LIMIT_DOC = "【仅当load_all_comments为true时生效】限制加载的一级评论数量。例如20表示最多加载20条，默认20"
_MORE_REPLIES_DOC = "【仅当load_all_comments为true时生效】是否展开二级回复。true展开子评论，false不展开（默认）"
_REPLY_LIMIT_DOC = "【仅当click_more_replies为true时生效】跳过回复数过多的评论。例如10表示跳过超过10条回复的，默认10"
_SCROLL_DOC = "【仅当load_all_comments为true时生效】滚动速度slow慢速、normal正常、fast快速"


@APP.tool(mutates=True)
def get_feed_detail(
    env: AppEnv,
    feed_id: str = Field(description=_FEED_ID_DOC),
    xsec_token: str = Field(description=_TOKEN_DOC),
    load_all_comments: bool = Field(False, description=_LOAD_ALL_DOC),
    limit: int = Field(20, ge=0, le=500, description=_LIMIT_DOC),
    click_more_replies: bool = Field(False, description=_MORE_REPLIES_DOC),
    reply_limit: int = Field(10, ge=0, le=500, description=_REPLY_LIMIT_DOC),
    scroll_speed: Literal["slow", "normal", "fast"] | None = Field(None, description=_SCROLL_DOC),
) -> dict[str, Any]:
    """获取小红书笔记详情，返回笔记内容、图片、作者信息、互动数据（点赞/收藏/分享数）及评论列表。默认返回前10条一级评论
    （每条只带第一条回复），如需更多评论请设置load_all_comments=true。打开笔记会将其记为"已看过"。"""
    _require(feed_id, "feed_id")
    _require(xsec_token, "xsec_token")
    _login(env)
    note = _note(env, feed_id, xsec_token)
    threads = _threads(note)
    top = (limit or 20) if load_all_comments else 10
    shown_threads = threads[:top]
    comments = []
    for root, subs in shown_threads:
        expand = load_all_comments and click_more_replies and (reply_limit == 0 or len(subs) <= reply_limit)
        comments.append(_comment_view(env, note, root, subs, len(subs) if expand else 1))
    author = env.tree.get(f"users[{note['author_id']}]")
    detail: dict[str, Any] = {
        "noteId": note["note_id"],
        "xsecToken": note["xsec_token"],
        "title": note["title"],
        "desc": _desc_with_tags(note),
        "type": note["type"],
        "time": note["time"],
        "ipLocation": note["ip_location"],
        "user": _user_card(author),
        "interactInfo": _interact(note),
        "imageList": [{"width": i["width"], "height": i["height"], "urlDefault": i["url"],
                       "urlPre": i["url"].replace("_dft_", "_prv_")} for i in note["images"]],
    }
    if note["type"] == "video":
        video = note["video"]
        detail["video"] = {"capa": {"duration": video["duration"]},
                           "media": {"stream": {"h264": [{"masterUrl": video["url"], "width": video["width"],
                                                          "height": video["height"],
                                                          "duration": video["duration"] * 1000,
                                                          "format": "mp4"}]}}}
    if not note.get("viewed"):
        env.tree.update(_note_path(note["note_id"]), {"viewed": True})
    more = len(threads) > len(shown_threads)
    cursor = shown_threads[-1][0]["comment_id"] if shown_threads and more else ""
    return {"feed_id": note["note_id"],
            "data": {"note": detail, "comments": {"list": comments, "cursor": cursor, "hasMore": more}}}


# -- interactions -----------------------------------------------------------------------------------
def _toggle(env: AppEnv, feed_id: str, xsec_token: str, flag: str, counter: str, on: bool) -> dict[str, Any]:
    note = _note(env, feed_id, xsec_token)
    if bool(note.get(flag)) != on:
        env.tree.update(_note_path(feed_id), {flag: on, counter: max(note[counter] + (1 if on else -1), 0)})
    return note


@APP.tool(mutates=True)
def like_feed(
    env: AppEnv,
    feed_id: str = Field(description=_FEED_ID_DOC),
    xsec_token: str = Field(description=_TOKEN_DOC),
    unlike: bool = Field(False, description="是否取消点赞，true为取消点赞，false或未设置则为点赞"),
) -> dict[str, Any]:
    """为指定笔记点赞或取消点赞（如已点赞将跳过点赞，如未点赞将跳过取消点赞）"""
    _require(feed_id, "feed_id", "操作失败")
    _require(xsec_token, "xsec_token", "操作失败")
    prefix = "取消点赞失败" if unlike else "点赞失败"
    try:
        _login(env)
        _toggle(env, feed_id, xsec_token, "liked", "liked_count", not unlike)
    except ToolFailure as failure:
        raise ToolFailure(failure.message, kind=failure.kind, prefix=prefix) from None
    message = "取消点赞成功或未点赞" if unlike else "点赞成功或已点赞"
    return {"feed_id": feed_id, "success": True, "message": message}


@APP.tool(mutates=True)
def favorite_feed(
    env: AppEnv,
    feed_id: str = Field(description=_FEED_ID_DOC),
    xsec_token: str = Field(description=_TOKEN_DOC),
    unfavorite: bool = Field(False, description="是否取消收藏，true为取消收藏，false或未设置则为收藏"),
) -> dict[str, Any]:
    """收藏指定笔记或取消收藏（如已收藏将跳过收藏，如未收藏将跳过取消收藏）"""
    _require(feed_id, "feed_id", "操作失败")
    _require(xsec_token, "xsec_token", "操作失败")
    prefix = "取消收藏失败" if unfavorite else "收藏失败"
    try:
        _login(env)
        _toggle(env, feed_id, xsec_token, "collected", "collected_count", not unfavorite)
    except ToolFailure as failure:
        raise ToolFailure(failure.message, kind=failure.kind, prefix=prefix) from None
    message = "取消收藏成功或未收藏" if unfavorite else "收藏成功或已收藏"
    return {"feed_id": feed_id, "success": True, "message": message}


# -- comments ---------------------------------------------------------------------------------------
def _check_comment(note: dict[str, Any], content: str) -> None:
    if note.get("comments_disabled"):
        raise ToolFailure("未找到评论输入框，该帖子可能不支持评论或网页端不可访问", kind="conflict")
    if len(content) > COMMENT_MAX:
        raise ToolFailure(f"当前输入长度为{len(content)}，最大长度为{COMMENT_MAX}", kind="range")


def _add_comment(env: AppEnv, note: dict[str, Any], me: dict[str, Any], content: str,
                 target: dict[str, Any] | None) -> dict[str, Any]:
    fields: dict[str, Any] = {"user_id": me["user_id"], "content": content, "create_time": env.now() * 1000,
                              "ip_location": me["ip_location"], "like_count": 0, "liked": False}
    if target is not None:
        fields["root_comment_id"] = target.get("root_comment_id") or target["comment_id"]
        fields["target_comment_id"] = target["comment_id"]
        fields["target_user_id"] = target["user_id"]
    created = env.tree.create(f"{_note_path(note['note_id'])}.comments", fields)
    env.tree.update(_note_path(note["note_id"]), {"comment_count": note["comment_count"] + 1})
    return created


@APP.tool(mutates=True)
def post_comment_to_feed(
    env: AppEnv,
    feed_id: str = Field(description=_FEED_ID_DOC),
    xsec_token: str = Field(description=_TOKEN_DOC),
    content: str = Field(description="评论内容"),
) -> dict[str, Any]:
    """发表评论到小红书笔记（一级评论）。回复某条评论请用 reply_comment_in_feed。"""
    _require(feed_id, "feed_id")
    _require(xsec_token, "xsec_token")
    _require(content, "content")
    me = _login(env)
    note = _note(env, feed_id, xsec_token)
    _check_comment(note, content)
    _add_comment(env, note, me, content, None)
    return {"feed_id": feed_id, "success": True, "message": "评论发表成功"}


@APP.tool(mutates=True)
def reply_comment_in_feed(
    env: AppEnv,
    feed_id: str = Field(description=_FEED_ID_DOC),
    xsec_token: str = Field(description=_TOKEN_DOC),
    content: str = Field(description="回复内容"),
    comment_id: str | None = Field(None, description="目标评论ID，从评论列表获取"),
    user_id: str | None = Field(None, description="目标评论用户ID，从评论列表获取（只给 user_id 时回复该用户的第一条"
                                                  "评论）"),
) -> dict[str, Any]:
    """回复小红书笔记下的指定评论。按 comment_id 定位（优先），或按 user_id 定位该用户的第一条评论。"""
    if not (comment_id or "").strip() and not (user_id or "").strip():
        raise ToolFailure("缺少 comment_id 或 user_id", kind="missing", raw=True)
    _require(feed_id, "feed_id")
    _require(xsec_token, "xsec_token")
    _require(content, "content")
    me = _login(env)
    note = _note(env, feed_id, xsec_token)
    comments = [c for root, subs in _threads(note) for c in (root, *subs)]
    if comment_id:
        target = next((c for c in comments if c["comment_id"] == comment_id), None)
        if target is not None and user_id and target["user_id"] != user_id:
            target = None
    else:
        target = next((c for c in comments if c["user_id"] == user_id), None)
    if target is None:
        raise ToolFailure(f"无法找到评论: 未找到评论 (commentID: {comment_id or ''}, userID: {user_id or ''})",
                          kind="not_found")
    _check_comment(note, content)
    _add_comment(env, note, me, content, target)
    out: dict[str, Any] = {"feed_id": feed_id}
    if comment_id:
        out["target_comment_id"] = comment_id
    if user_id:
        out["target_user_id"] = user_id
    return out | {"success": True, "message": "评论回复成功"}


# -- profiles ---------------------------------------------------------------------------------------
@APP.tool()
def user_profile(
    env: AppEnv,
    user_id: str = Field(description="小红书用户ID，从Feed列表获取"),
    xsec_token: str = Field(description="访问令牌，从Feed列表的xsecToken字段获取（该用户任一笔记的 xsecToken，"
                                        "或用户卡片里的 xsecToken）"),
    tab: str = Field("", description="主页 tab: note(笔记,默认)|fav(收藏)|liked(点赞)。收藏和点赞可能被对方设为不公开"),
) -> dict[str, Any]:
    """获取指定的小红书用户主页，返回用户基本信息，关注、粉丝、获赞量，以及指定 tab 下的内容。tab 可选 note(笔记,默认)、
    fav(收藏)、liked(点赞)，后两者可能被对方设为不公开"""
    _require(user_id, "user_id")
    _require(xsec_token, "xsec_token")
    which = _tab(tab)
    _login(env)
    user = _user(env, user_id)
    if user is None:
        raise ToolFailure(f"用户不存在或已注销 (user_id: {user_id})", kind="not_found")
    tokens = {user["xsec_token"]} | {n["xsec_token"] for n in env.tree.list("notes", {"author_id": user_id})
                                      if _is_live(env, n)}
    if xsec_token not in tokens:
        raise ToolFailure("访问受限: xsec_token 无效或与该用户不匹配，请使用 Feed 列表中该用户笔记或用户卡片的"
                          " xsecToken", kind="permission")
    mine = user_id == env.tree.data["me"]
    if which == "note":
        notes = [n for n in env.tree.list("notes", {"author_id": user_id}) if _is_live(env, n)
                 and (mine or n.get("visibility", "公开可见") == "公开可见")]
    else:
        if not mine and not user.get("fav_public" if which == "fav" else "liked_public", True):
            label = "收藏" if which == "fav" else "点赞"
            raise ToolFailure(f"该用户的{label}已设为不公开", kind="permission")
        ids = user.get("collected_note_ids" if which == "fav" else "liked_note_ids", [])
        notes = [n for n in (env.tree.top("note", i) for i in ids) if n is not None and _is_live(env, n)
                 and _viewable(env, n)]
    return {"userBasicInfo": _basic_info(user), "interactions": _interactions(user),
            "feeds": [_feed(env, n, i) for i, n in enumerate(_by_time(notes) if which == "note" else notes)]}


@APP.tool()
def get_my_profile(
    env: AppEnv,
    tab: str = Field("", description="主页 tab: note(笔记,默认)|fav(收藏)|liked(点赞)"),
) -> dict[str, Any]:
    """获取当前登录用户的主页，返回用户基本信息，关注、粉丝、获赞量，以及指定 tab 下的内容。
    tab 可选 note(自己发的笔记,默认)、fav(自己收藏的)、liked(自己点赞的)。
    自己的笔记包括仅自己可见的，不包括尚未到时间的定时发布笔记。"""
    which = _tab(tab)
    me = _login(env)
    if which == "note":
        notes = [n for n in env.tree.list("notes", {"author_id": me["user_id"]}) if _is_live(env, n)]
    else:
        flag = "collected" if which == "fav" else "liked"
        # a note the author deleted stays in the list (the site keeps showing it as a card)
        notes = [n for n in env.tree.list("notes") if n.get(flag) and _published(env, n)]
    return {"userBasicInfo": _basic_info(me), "interactions": _interactions(me),
            "feeds": [_feed(env, n, i) for i, n in enumerate(_by_time(notes))]}


# -- publishing -------------------------------------------------------------------------------------
def title_length(title: str) -> int:
    """The site's title length: UTF-16 units above ASCII count 2, ASCII 1, halved and rounded up."""
    units = title.encode("utf-16-le")
    size = sum(2 if int.from_bytes(units[i:i + 2], "little") > 127 else 1 for i in range(0, len(units), 2))
    return (size + 1) // 2


def _check_publish(env: AppEnv, title: str, content: str, schedule_at: str | None) -> int | None:
    """Validate what both publish tools share; return the scheduled time in ms (None: publish now)."""
    if title_length(title) > TITLE_MAX:
        raise ToolFailure(f"标题长度超过限制（当前 {title_length(title)}，最多 {TITLE_MAX} 个字，英文按半个字计）",
                          kind="range")
    scheduled = None
    if schedule_at:
        try:
            when = datetime.fromisoformat(schedule_at.replace("Z", "+00:00"))
            if when.tzinfo is None:
                raise ValueError("missing time zone offset")
        except ValueError as exc:
            raise ToolFailure(f"定时发布时间格式错误，请使用 ISO8601 格式: {exc}", kind="range") from exc
        now = env.clock.current()
        earliest, latest = now + timedelta(hours=1), now + timedelta(days=14)
        local = when.astimezone(env.clock.tz)
        if when < earliest:
            raise ToolFailure(f"定时发布时间必须至少在1小时后，当前设置: {local:%Y-%m-%d %H:%M}，"
                              f"最早可选: {earliest:%Y-%m-%d %H:%M}", kind="range")
        if when > latest:
            raise ToolFailure(f"定时发布时间不能超过14天，当前设置: {local:%Y-%m-%d %H:%M}，"
                              f"最晚可选: {latest:%Y-%m-%d %H:%M}", kind="range")
        scheduled = int(when.timestamp() * 1000)
    if len(content) > CONTENT_MAX:
        raise ToolFailure(f"当前输入长度为{len(content)}，最大长度为{CONTENT_MAX}", kind="range")
    return scheduled


def _check_options(visibility: str | None, products: list[str] | None) -> str:
    vis = visibility or "公开可见"
    if vis not in VISIBILITIES:
        raise ToolFailure(f"不支持的可见范围: {vis}，支持: 公开可见、仅自己可见、仅互关好友可见", kind="range")
    if products:
        raise ToolFailure("未找到添加商品按钮，账号可能未开通商品功能", kind="permission")
    return vis


def _local_file(env: AppEnv, path: str) -> dict[str, Any] | None:
    return next((f for f in env.tree.data.get("local_files") or [] if f["path"] == path), None)


def _new_note(env: AppEnv, me: dict[str, Any], fields: dict[str, Any], scheduled: int | None) -> dict[str, Any]:
    now_ms = env.now() * 1000
    return env.tree.create("notes", {
        "author_id": me["user_id"],
        "time": scheduled or now_ms,
        "ip_location": me["ip_location"],
        "xsec_token": generate_id(XSEC_FORMAT, env.tree.rng),
        "liked_count": 0, "collected_count": 0, "comment_count": 0, "shared_count": 0,
        "liked": False, "collected": False, "viewed": True,
        "status": "normal", "in_homefeed": False, "comments_disabled": False,
        "publish_status": "scheduled" if scheduled else "published",
        **fields,
    })


def _cdn_image(env: AppEnv, stamp: str) -> dict[str, Any]:
    return {"url": f"{CDN}/{stamp}/{generate_id('{hex:32}', env.tree.rng)}/"
                   f"{generate_id('1040g{alnum:27}', env.tree.rng)}!nd_dft_wlteh_webp_3",
            "width": 1080, "height": 1440}


def _tags(tags: list[str] | None) -> list[str]:
    out: list[str] = []
    for tag in tags or []:
        clean = tag.strip().lstrip("#").strip()
        if clean and clean not in out:
            out.append(clean)
    return out


_TITLE_DOC = "内容标题（小红书限制：最多20个中文字或英文单词）"
_CONTENT_DOC = "正文内容，不包含以#开头的标签内容，所有话题标签都用tags参数来生成和提供即可"
_TAGS_DOC = "话题标签列表（可选参数），如 [美食, 旅行, 生活]"
_SCHEDULE_DOC = "定时发布时间（可选），ISO8601格式如 2024-01-20T10:30:00+08:00，支持1小时至14天内。不填则立即发布"
_VIS_DOC = "可见范围（可选），支持: 公开可见(默认)、仅自己可见、仅互关好友可见。不填则默认公开可见"
_IMAGES_DOC = ("图片路径列表（至少需要1张图片，最多9张）。支持两种方式：1. HTTP/HTTPS图片链接（自动下载）；"
               "2. 本地图片绝对路径（推荐，如:/Users/user/image.jpg）")
_PRODUCTS_DOC = "商品关键词列表（可选），用于绑定带货商品。需账号已开通商品功能。"


@APP.tool(mutates=True)
def publish_content(
    env: AppEnv,
    title: str = Field(description=_TITLE_DOC),
    content: str = Field(description=_CONTENT_DOC),
    images: list[str] = Field(description=_IMAGES_DOC),  # noqa: B008
    tags: list[str] | None = Field(None, description=_TAGS_DOC),  # noqa: B008
    schedule_at: str | None = Field(None, description=_SCHEDULE_DOC),
    is_original: bool = Field(False, description="是否声明原创（可选），true为声明原创，false或不填则不声明"),
    visibility: str | None = Field(None, description=_VIS_DOC),
    products: list[str] | None = Field(None, description=_PRODUCTS_DOC),  # noqa: B008
) -> dict[str, Any]:
    """发布小红书图文内容。发布成功只返回发布状态，不返回笔记ID；新笔记可在 get_my_profile 中看到。"""
    me = _login(env)
    scheduled = _check_publish(env, title, content, schedule_at)
    if not images:
        raise ToolFailure("no valid images found", kind="missing")
    if len(images) > IMAGES_MAX:
        raise ToolFailure(f"图片数量超过限制：最多上传{IMAGES_MAX}张，当前{len(images)}张", kind="range")
    for path in images:
        if path.startswith(("http://", "https://")):
            continue
        found = _local_file(env, path)
        if found is None:
            raise ToolFailure(f"图片文件不存在: {path}", kind="not_found")
        if found["kind"] != "image":
            raise ToolFailure(f"不支持的图片格式: {path}", kind="range")
    vis = _check_options(visibility, products)
    stamp = f"{env.clock.current():%Y%m%d%H%M}"
    _new_note(env, me, {
        "type": "normal", "title": title, "desc": content, "tags": _tags(tags),
        "images": [_cdn_image(env, stamp) for _ in images], "image_sources": list(images),
        "visibility": vis, "is_original": is_original,
    }, scheduled)
    return {"title": title, "content": content, "images": len(images), "status": "发布完成"}


@APP.tool(mutates=True)
def publish_with_video(
    env: AppEnv,
    title: str = Field(description=_TITLE_DOC),
    content: str = Field(description=_CONTENT_DOC),
    video: str = Field(description="本地视频绝对路径（仅支持单个视频文件，如:/Users/user/video.mp4）"),
    tags: list[str] | None = Field(None, description=_TAGS_DOC),  # noqa: B008
    schedule_at: str | None = Field(None, description=_SCHEDULE_DOC),
    visibility: str | None = Field(None, description=_VIS_DOC),
    products: list[str] | None = Field(None, description=_PRODUCTS_DOC),  # noqa: B008
) -> dict[str, Any]:
    """发布小红书视频内容（仅支持本地单个视频文件）。发布成功只返回发布状态，不返回笔记ID。"""
    if not video.strip():
        raise ToolFailure("缺少本地视频文件路径", kind="missing")
    me = _login(env)
    scheduled = _check_publish(env, title, content, schedule_at)
    found = _local_file(env, video)
    if found is None:
        raise ToolFailure(f"视频文件不存在或不可访问: stat {video}: no such file or directory", kind="not_found")
    if found["kind"] != "video":
        raise ToolFailure(f"不支持的视频格式: {video}（支持 mp4、mov 等视频文件）", kind="range")
    vis = _check_options(visibility, products)
    stamp = f"{env.clock.current():%Y%m%d%H%M}"
    cover = _cdn_image(env, stamp)
    _new_note(env, me, {
        "type": "video", "title": title, "desc": content, "tags": _tags(tags),
        "images": [cover],
        "video": {"duration": found.get("duration", 0), "width": 1080, "height": 1920,
                  "url": f"https://sns-video-bd.xhscdn.com/stream/{generate_id('{hex:32}', env.tree.rng)}.mp4"},
        "video_source": video, "visibility": vis, "is_original": False,
    }, scheduled)
    return {"title": title, "content": content, "video": video, "status": "发布完成"}
