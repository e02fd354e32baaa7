"""The rednote (Xiaohongshu) app through the real MCP path: every tool's success path and its error classes.

Each call goes through ``mcp.Client`` against the app's ``MCPServer``. Successes are JSON objects; failures are
the real server's plain '<操作>失败: <原因>' texts, checked together with an unchanged state hash. Entities are
found in chen_yu's context by their (corpus) titles, so the tests read like the tasks an agent gets.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from app_harness import AppSession
from mcp_persona.apps import get_app
from mcp_persona.apps.rednote.tools import title_length

pytestmark = pytest.mark.anyio


APP = get_app("rednote")
NOW_MS = 1773106200 * 1000

TOOLS = [
    "check_login_status", "get_login_qrcode", "delete_cookies", "list_feeds", "search_feeds", "get_feed_detail",
    "like_feed", "favorite_feed", "post_comment_to_feed", "reply_comment_in_feed", "user_profile", "get_my_profile",
    "publish_content", "publish_with_video",
]

COFFEE = "徐汇小众咖啡店｜安静能办公"  # in the feed, 3 top-level comments, replies by the author
SUNSET = "西湖边看日落的三个机位"
VLOG = "一个人的周末 vlog"  # video
FLOWERS = "杭州春天去哪看花"  # in the feed, comments closed
GPU = "显卡不够时怎么跑大模型实验"  # favorited by chen_yu, then deleted by its author
RENT = "上海租房避坑清单"  # by Wang Fang's account (a coworker, mutual follow)
LAUNCH = "市场人的发布会筹备清单"  # chen_yu's own note
TODO = "三月待办"  # chen_yu's own private note
IMG = "/Users/chenyu/Pictures/xhs/zhujiajiao_boat.jpg"
IMG2 = "/Users/chenyu/Pictures/xhs/zhujiajiao_bridge.jpg"
VIDEO = "/Users/chenyu/Movies/spring_launch_recap.mp4"
BAD_TOKEN = "笔记不可访问: 当前笔记暂时无法浏览（xsec_token 无效或与该笔记不匹配"


class Rednote(AppSession):
    """One episode of the rednote app and a connected client."""

    app = APP

    @property
    def me(self) -> str:
        return self.data["me"]

    def note(self, title: str) -> dict[str, Any]:
        [found] = [n for n in self.data["notes"].values() if n["title"] == title]
        return found

    def user(self, uid: str) -> dict[str, Any]:
        return self.data["users"][uid]

    def circle(self, cast_id: str) -> dict[str, Any]:
        [found] = [u for u in self.data["users"].values() if u.get("cast_id") == cast_id]
        return found

    def ref(self, title: str) -> dict[str, str]:
        n = self.note(title)
        return {"feed_id": n["note_id"], "xsec_token": n["xsec_token"]}

    async def ok(self, tool: str, args: dict[str, Any] | None = None) -> Any:
        return json.loads(await super().ok(tool, args))

    async def fail(self, tool: str, args: dict[str, Any] | None, expected: str, *, exact: bool = False) -> str:
        """A rejected call: the error flag, the real-style text, the state untouched."""
        text = await self.rejected(tool, args)
        assert (text == expected) if exact else (expected in text), text
        return text


# -- the server ---------------------------------------------------------------------------------------
async def test_server_lists_exactly_the_fourteen_tools() -> None:
    async with Rednote() as rn:
        listed = await rn.client.list_tools()
    assert sorted(t.name for t in listed.tools) == sorted(TOOLS)
    schema = {t.name: t.input_schema for t in listed.tools}
    assert sorted(schema["get_feed_detail"]["required"]) == ["feed_id", "xsec_token"]
    assert sorted(schema["publish_content"]["required"]) == ["content", "images", "title"]
    assert set(schema["search_feeds"]["properties"]) == {"keyword", "filters"}


async def test_unknown_tool_and_extra_argument() -> None:
    async with Rednote() as rn:
        is_error, text = await rn.raw("delete_feed", {})
        assert is_error and text == "Unknown tool: delete_feed"
        await rn.fail("list_feeds", {"page": 2}, 'invalid params: validating "arguments": page: Extra inputs are '
                                                 "not permitted", exact=True)


async def test_every_context_is_valid_and_personal() -> None:
    for persona in ("chen_yu", "lin_wei", "maya_patel"):
        data = APP.load_context(persona)
        me = data["users"][data["me"]]
        assert me["cast_id"] == persona
        assert data["sessions"]["web"]["logged_in"] is True
        notes = list(data["notes"].values())
        assert sum(n["author_id"] == data["me"] for n in notes) == 3
        assert sum(n["in_homefeed"] for n in notes) >= 15
        assert len({n["xsec_token"] for n in notes}) == len(notes)
        assert all(title_length(n["title"]) <= 20 for n in notes)
        assert all(n["time"] <= NOW_MS for n in notes)
        assert [n["status"] for n in notes].count("deleted") == 1
        assert sum(1 for u in data["users"].values() if u.get("cast_id") and u["user_id"] != data["me"]) == 3
        assert any(f["kind"] == "video" for f in data["local_files"])


# -- login ------------------------------------------------------------------------------------------
async def test_check_login_status() -> None:
    async with Rednote() as rn:
        assert await rn.ok("check_login_status") == {"is_logged_in": True, "username": "鱼在魔都", "user_id": rn.me}
        await rn.fail("check_login_status", {"verbose": True}, "verbose: Extra inputs are not permitted")


async def test_delete_cookies_logs_out_and_every_site_tool_then_fails() -> None:
    async with Rednote() as rn:
        ref = rn.ref(COFFEE)
        result, diff = await rn.changes("delete_cookies", {})
        assert result["success"] is True and result["cookie_path"] == "/tmp/cookies.json"
        assert [(c.op, c.path, c.fields) for c in diff] == [("modify", "sessions[web]", ("logged_in",))]
        assert await rn.ok("check_login_status") == {"is_logged_in": False}
        gone = "未登录，请先使用 get_login_qrcode 获取二维码并扫码登录"
        await rn.fail("list_feeds", {}, f"获取Feeds列表失败: {gone}", exact=True)
        await rn.fail("search_feeds", {"keyword": "咖啡"}, f"搜索Feeds失败: {gone}", exact=True)
        await rn.fail("get_feed_detail", ref, f"获取Feed详情失败: {gone}", exact=True)
        await rn.fail("like_feed", ref, f"点赞失败: {gone}", exact=True)
        await rn.fail("favorite_feed", ref | {"unfavorite": True}, f"取消收藏失败: {gone}", exact=True)
        await rn.fail("post_comment_to_feed", ref | {"content": "好看"}, f"发表评论失败: {gone}", exact=True)
        await rn.fail("reply_comment_in_feed", ref | {"content": "好", "user_id": rn.me}, f"回复评论失败: {gone}")
        await rn.fail("user_profile", {"user_id": rn.me, "xsec_token": "x"}, f"获取用户主页失败: {gone}")
        await rn.fail("get_my_profile", {}, f"获取我的主页失败: {gone}", exact=True)
        await rn.fail("publish_content", {"title": "a", "content": "b", "images": [IMG]}, f"发布失败: {gone}")
        await rn.fail("publish_with_video", {"title": "a", "content": "b", "video": VIDEO}, f"发布失败: {gone}")
        again, diff = await rn.changes("delete_cookies", {})  # idempotent
        assert again["success"] is True and diff == []


async def test_get_login_qrcode() -> None:
    async with Rednote() as rn:
        result, diff = await rn.changes("get_login_qrcode", {})
        assert result == {"timeout": "0s", "is_logged_in": True, "message": "你当前已处于登录状态"} and diff == []
        await rn.ok("delete_cookies")
        result, diff = await rn.changes("get_login_qrcode", {})
        assert result["is_logged_in"] is False and result["timeout"] == "4m0s"
        assert result["img"].startswith("data:image/png;base64,")
        assert result["message"] == "请用小红书 App 在 2026-03-10 09:34:00 前扫码登录 👇"
        assert [(c.path, c.after["logged_in"]) for c in diff] == [("sessions[web]", True)]
        assert (await rn.ok("check_login_status"))["is_logged_in"] is True
        await rn.fail("get_login_qrcode", {"force": 1}, "force: Extra inputs are not permitted")


# -- list_feeds -------------------------------------------------------------------------------------
async def test_list_feeds_is_the_home_feed_with_tokens() -> None:
    async with Rednote() as rn:
        result = await rn.ok("list_feeds")
        feeds = result["feeds"]
        assert result["count"] == len(feeds) >= 15
        expected = sorted((n for n in rn.data["notes"].values() if n["in_homefeed"] and n["status"] == "normal"),
                          key=lambda n: n["feed_rank"])
        assert [f["id"] for f in feeds] == [n["note_id"] for n in expected]
        assert [f["index"] for f in feeds] == list(range(len(feeds)))
        titles = {f["noteCard"]["displayTitle"] for f in feeds}
        assert COFFEE in titles and FLOWERS in titles
        assert LAUNCH not in titles and GPU not in titles  # own notes and deleted notes are not recommended
        coffee = next(f for f in feeds if f["noteCard"]["displayTitle"] == COFFEE)
        note = rn.note(COFFEE)
        assert coffee["xsecToken"] == note["xsec_token"] and coffee["modelType"] == "note"
        assert coffee["noteCard"]["user"]["userId"] == note["author_id"]
        assert coffee["noteCard"]["user"]["xsecToken"] == rn.user(note["author_id"])["xsec_token"]
        assert coffee["noteCard"]["interactInfo"]["likedCount"] == _shown(note["liked_count"])
        assert coffee["noteCard"]["cover"]["url"] == note["images"][0]["url"]
        vlog = next(f for f in feeds if f["noteCard"]["displayTitle"] == VLOG)
        assert vlog["noteCard"]["type"] == "video" and vlog["noteCard"]["video"] == {"capa": {"duration": 186}}


def _shown(n: int) -> str:
    return str(n) if n < 10000 else f"{n / 10000:.1f}".rstrip("0").rstrip(".") + "万"


# -- search_feeds -----------------------------------------------------------------------------------
async def test_search_feeds_matches_words_and_cjk_runs() -> None:
    async with Rednote() as rn:
        result = await rn.ok("search_feeds", {"keyword": "咖啡"})
        titles = [f["noteCard"]["displayTitle"] for f in result["feeds"]]
        assert titles[0] == COFFEE  # 咖啡 in the title ranks first
        assert "静安寺附近的安静咖啡馆" in titles  # the user's own public note is searchable
        assert all(f["xsecToken"] == rn.note(f["noteCard"]["displayTitle"])["xsec_token"] for f in result["feeds"])
        run = await rn.ok("search_feeds", {"keyword": "上海咖啡"})  # a tag, and also 上海 + 咖啡
        assert COFFEE in [f["noteCard"]["displayTitle"] for f in run["feeds"]]
        split = await rn.ok("search_feeds", {"keyword": "杭州 日落"})
        assert [f["noteCard"]["displayTitle"] for f in split["feeds"]] == [SUNSET]
        by_author = await rn.ok("search_feeds", {"keyword": "城市漫游手册"})
        assert by_author["count"] >= 1
        none = await rn.ok("search_feeds", {"keyword": "火星移民"})
        assert none == {"feeds": [], "count": 0}
        private = await rn.ok("search_feeds", {"keyword": "待办"})
        assert TODO not in [f["noteCard"]["displayTitle"] for f in private["feeds"]]
        deleted = await rn.ok("search_feeds", {"keyword": "显卡"})
        assert GPU not in [f["noteCard"]["displayTitle"] for f in deleted["feeds"]]


async def test_search_feeds_filters() -> None:
    async with Rednote() as rn:
        notes = rn.data["notes"].values()
        newest = await rn.ok("search_feeds", {"keyword": "杭州", "filters": {"sort_by": "最新"}})
        times = [rn.data["notes"][f["id"]]["time"] for f in newest["feeds"]]
        assert times == sorted(times, reverse=True) and len(times) >= 4
        liked = await rn.ok("search_feeds", {"keyword": "杭州", "filters": {"sort_by": "最多点赞"}})
        counts = [rn.data["notes"][f["id"]]["liked_count"] for f in liked["feeds"]]
        assert counts == sorted(counts, reverse=True)
        videos = await rn.ok("search_feeds", {"keyword": "生活", "filters": {"note_type": "视频"}})
        assert {f["noteCard"]["type"] for f in videos["feeds"]} == {"video"}
        images = await rn.ok("search_feeds", {"keyword": "生活", "filters": {"note_type": "图文"}})
        assert images["count"] > 0 and {f["noteCard"]["type"] for f in images["feeds"]} == {"normal"}
        day = await rn.ok("search_feeds", {"keyword": "杭州", "filters": {"publish_time": "一天内"}})
        assert day["count"] > 0
        assert all(rn.data["notes"][f["id"]]["time"] >= NOW_MS - 86_400_000 for f in day["feeds"])
        half_year = await rn.ok("search_feeds", {"keyword": "新加坡", "filters": {"publish_time": "半年内"}})
        all_time = await rn.ok("search_feeds", {"keyword": "新加坡"})
        assert half_year["count"] < all_time["count"]  # the EP and 肉骨茶 notes are from 2025
        followed = await rn.ok("search_feeds", {"keyword": "上海", "filters": {"search_scope": "已关注"}})
        assert followed["count"] > 0
        assert all(rn.user(rn.data["notes"][f["id"]]["author_id"])["followed"] for f in followed["feeds"])
        seen = {n["note_id"] for n in notes if n["viewed"]}
        viewed = await rn.ok("search_feeds", {"keyword": "的", "filters": {"search_scope": "已看过"}})
        unviewed = await rn.ok("search_feeds", {"keyword": "的", "filters": {"search_scope": "未看过"}})
        assert {f["id"] for f in viewed["feeds"]} <= seen
        assert not {f["id"] for f in unviewed["feeds"]} & seen
        local = await rn.ok("search_feeds", {"keyword": "的", "filters": {"location": "同城", "sort_by": "综合"}})
        assert local["count"] > 0 and {rn.data["notes"][f["id"]]["ip_location"] for f in local["feeds"]} == {"上海"}


async def test_search_feeds_errors() -> None:
    async with Rednote() as rn:
        await rn.fail("search_feeds", {"keyword": "  "}, "搜索Feeds失败: 缺少关键词参数", exact=True)
        await rn.fail("search_feeds", {}, "keyword: Field required")
        await rn.fail("search_feeds", {"keyword": 42}, "keyword: Input should be a valid string")
        await rn.fail("search_feeds", {"keyword": "咖啡", "filters": {"sort_by": "热门"}},
                      '搜索Feeds失败: 排序依据 不支持 "热门"，可选：综合、最新、最多点赞、最多评论、最多收藏',
                      exact=True)
        await rn.fail("search_feeds", {"keyword": "咖啡", "filters": {"publish_time": "一月内"}},
                      '发布时间 不支持 "一月内"，可选：不限、一天内、一周内、半年内')
        await rn.fail("search_feeds", {"keyword": "咖啡", "filters": {"sort": "最新"}},
                      "filters.sort: Extra inputs are not permitted")
        await rn.fail("search_feeds", {"keyword": "咖啡", "filters": "最新"}, "filters")


# -- get_feed_detail --------------------------------------------------------------------------------
async def test_get_feed_detail() -> None:
    async with Rednote() as rn:
        note = rn.note(COFFEE)
        assert note["viewed"] is False
        result, diff = await rn.changes("get_feed_detail", rn.ref(COFFEE))
        assert result["feed_id"] == note["note_id"]
        detail = result["data"]["note"]
        assert detail["title"] == COFFEE and detail["xsecToken"] == note["xsec_token"]
        assert detail["desc"].startswith(note["desc"])
        assert detail["desc"].endswith("\n#上海咖啡[话题]# #办公咖啡店[话题]# #徐汇探店[话题]#")
        assert detail["ipLocation"] == "上海" and detail["time"] == note["time"] and detail["type"] == "normal"
        assert len(detail["imageList"]) == 4 and "video" not in detail
        comments = result["data"]["comments"]
        assert comments["hasMore"] is False and comments["cursor"] == ""
        assert [c["content"] for c in comments["list"]] == [
            c["content"] for c in sorted((c for c in note["comments"].values() if not c.get("root_comment_id")),
                                         key=lambda c: (-c["like_count"], c["create_time"], c["comment_id"]))]
        asking = next(c for c in comments["list"] if c["content"] == "求店名！看着好舒服")
        assert asking["subCommentCount"] == "1"
        [answer] = asking["subComments"]
        assert answer["content"] == "店名叫栖木，门口有棵大银杏" and answer["showTags"] == ["is_author"]
        assert answer["userInfo"]["userId"] == note["author_id"]
        assert [(c.op, c.path, c.fields) for c in diff] == [("modify", f"notes[{note['note_id']}]", ("viewed",))]
        assert rn.note(COFFEE)["viewed"] is True
        video = await rn.ok("get_feed_detail", rn.ref(VLOG))
        assert video["data"]["note"]["video"]["capa"] == {"duration": 186}
        assert video["data"]["note"]["video"]["media"]["stream"]["h264"][0]["duration"] == 186_000


async def test_get_feed_detail_comment_loading() -> None:
    async with Rednote() as rn:
        ref = rn.ref(COFFEE)
        note = rn.note(COFFEE)
        root = next(c for c in note["comments"].values() if c["content"] == "插座多吗？想去写论文")
        for i in range(12):  # 12 more top-level comments and 2 more replies in one thread
            await rn.ok("post_comment_to_feed", ref | {"content": f"第{i}条"})
        for text in ("还有吗", "谢谢"):
            await rn.ok("reply_comment_in_feed", ref | {"content": text, "comment_id": root["comment_id"]})
        first = await rn.ok("get_feed_detail", ref)
        listed = first["data"]["comments"]
        assert len(listed["list"]) == 10 and listed["hasMore"] is True and listed["cursor"] == listed["list"][-1]["id"]
        thread = next(c for c in listed["list"] if c["id"] == root["comment_id"])
        assert thread["subCommentCount"] == "3" and len(thread["subComments"]) == 1
        everything = await rn.ok("get_feed_detail", ref | {"load_all_comments": True, "click_more_replies": True})
        listed = everything["data"]["comments"]
        assert len(listed["list"]) == 15 and listed["hasMore"] is False
        thread = next(c for c in listed["list"] if c["id"] == root["comment_id"])
        assert [s["content"] for s in thread["subComments"]] == ["二楼靠窗那排每个座位都有", "还有吗", "谢谢"]
        capped = await rn.ok("get_feed_detail", ref | {"load_all_comments": True, "limit": 12,
                                                       "click_more_replies": True, "reply_limit": 2})
        assert len(capped["data"]["comments"]["list"]) == 12
        thread = next((c for c in capped["data"]["comments"]["list"] if c["id"] == root["comment_id"]), None)
        assert thread is None or len(thread["subComments"]) == 1  # more replies than reply_limit: not expanded


async def test_get_feed_detail_errors() -> None:
    async with Rednote() as rn:
        ref = rn.ref(COFFEE)
        other = rn.ref(SUNSET)
        await rn.fail("get_feed_detail", ref | {"xsec_token": "ABfake="}, f"获取Feed详情失败: {BAD_TOKEN}")
        await rn.fail("get_feed_detail", ref | {"xsec_token": other["xsec_token"]}, BAD_TOKEN)  # another note's
        await rn.fail("get_feed_detail", ref | {"xsec_token": ""}, "获取Feed详情失败: 缺少xsec_token参数", exact=True)
        await rn.fail("get_feed_detail", {"feed_id": ref["feed_id"]}, "xsec_token: Field required")
        await rn.fail("get_feed_detail", ref | {"feed_id": "0" * 24},
                      f"获取Feed详情失败: 笔记不可访问: 笔记不存在 (feed_id: {'0' * 24})", exact=True)
        await rn.fail("get_feed_detail", rn.ref(GPU), "获取Feed详情失败: 笔记不可访问: 该笔记已被删除", exact=True)
        await rn.fail("get_feed_detail", ref | {"limit": "many"}, "limit: Input should be a valid integer")
        await rn.fail("get_feed_detail", ref | {"limit": -1}, "limit: Input should be greater than or equal to 0")
        await rn.fail("get_feed_detail", ref | {"scroll_speed": "turbo"}, "scroll_speed: Input should be 'slow'")
        await rn.fail("get_feed_detail", ref | {"feed_id": 7}, "feed_id: Input should be a valid string")


# -- like_feed / favorite_feed ----------------------------------------------------------------------
async def test_like_feed_and_unlike() -> None:
    async with Rednote() as rn:
        note = rn.note(SUNSET)
        path = f"notes[{note['note_id']}]"
        start = note["liked_count"]
        rn.env.tree.update(path, {"liked": False})
        result, diff = await rn.changes("like_feed", rn.ref(SUNSET))
        assert result == {"feed_id": note["note_id"], "success": True, "message": "点赞成功或已点赞"}
        assert [(c.path, c.fields) for c in diff] == [(path, ("liked", "liked_count"))]
        assert rn.note(SUNSET)["liked"] is True and rn.note(SUNSET)["liked_count"] == start + 1
        _, diff = await rn.changes("like_feed", rn.ref(SUNSET))  # already liked: skipped
        assert diff == []
        result, diff = await rn.changes("like_feed", rn.ref(SUNSET) | {"unlike": True})
        assert result["message"] == "取消点赞成功或未点赞"
        assert rn.note(SUNSET)["liked"] is False and rn.note(SUNSET)["liked_count"] == start
        _, diff = await rn.changes("like_feed", rn.ref(SUNSET) | {"unlike": True})
        assert diff == []


async def test_like_feed_errors() -> None:
    async with Rednote() as rn:
        ref = rn.ref(SUNSET)
        await rn.fail("like_feed", ref | {"xsec_token": rn.ref(COFFEE)["xsec_token"]}, f"点赞失败: {BAD_TOKEN}")
        await rn.fail("like_feed", ref | {"xsec_token": "nope", "unlike": True}, f"取消点赞失败: {BAD_TOKEN}")
        await rn.fail("like_feed", ref | {"feed_id": ""}, "操作失败: 缺少feed_id参数", exact=True)
        await rn.fail("like_feed", {"feed_id": ref["feed_id"]}, "xsec_token: Field required")
        await rn.fail("like_feed", ref | {"unlike": [True]}, "unlike: Input should be a valid boolean")
        await rn.fail("like_feed", ref | {"feed_id": "f" * 24}, "点赞失败: 笔记不可访问: 笔记不存在")
        await rn.fail("like_feed", rn.ref(GPU), "点赞失败: 笔记不可访问: 该笔记已被删除", exact=True)


async def test_favorite_feed_and_unfavorite() -> None:
    async with Rednote() as rn:
        note = rn.note(SUNSET)
        path = f"notes[{note['note_id']}]"
        rn.env.tree.update(path, {"collected": False})
        start = note["collected_count"]
        result, diff = await rn.changes("favorite_feed", rn.ref(SUNSET))
        assert result == {"feed_id": note["note_id"], "success": True, "message": "收藏成功或已收藏"}
        assert [(c.path, c.fields) for c in diff] == [(path, ("collected", "collected_count"))]
        assert rn.note(SUNSET)["collected_count"] == start + 1
        mine = await rn.ok("get_my_profile", {"tab": "fav"})
        assert note["note_id"] in [f["id"] for f in mine["feeds"]]
        result, _ = await rn.changes("favorite_feed", rn.ref(SUNSET) | {"unfavorite": True})
        assert result["message"] == "取消收藏成功或未收藏"
        assert rn.note(SUNSET)["collected"] is False and rn.note(SUNSET)["collected_count"] == start
        _, diff = await rn.changes("favorite_feed", rn.ref(SUNSET) | {"unfavorite": True})
        assert diff == []


async def test_favorite_feed_errors() -> None:
    async with Rednote() as rn:
        ref = rn.ref(SUNSET)
        await rn.fail("favorite_feed", ref | {"xsec_token": "ABx="}, f"收藏失败: {BAD_TOKEN}")
        await rn.fail("favorite_feed", ref | {"xsec_token": ""}, "操作失败: 缺少xsec_token参数", exact=True)
        await rn.fail("favorite_feed", {"xsec_token": ref["xsec_token"]}, "feed_id: Field required")
        await rn.fail("favorite_feed", ref | {"unfavorite": {"x": 1}}, "unfavorite: Input should be a valid boolean")
        # the deleted note is still in the favorites, but cannot even be un-favorited
        await rn.fail("favorite_feed", rn.ref(GPU) | {"unfavorite": True}, "取消收藏失败: 笔记不可访问: 该笔记已被删除")


# -- comments ---------------------------------------------------------------------------------------
async def test_post_comment_to_feed() -> None:
    async with Rednote() as rn:
        note = rn.note(SUNSET)
        count = note["comment_count"]
        result, diff = await rn.changes("post_comment_to_feed", rn.ref(SUNSET) | {"content": "下周去拍！"})
        assert result == {"feed_id": note["note_id"], "success": True, "message": "评论发表成功"}
        [created] = [c for c in diff if c.op == "create"]
        assert created.entity_type == "comment" and created.path.startswith(f"notes[{note['note_id']}].comments[")
        me = rn.user(rn.me)
        assert created.after == {"comment_id": created.after["comment_id"], "user_id": rn.me, "content": "下周去拍！",
                                 "create_time": NOW_MS + 1000, "ip_location": me["ip_location"], "like_count": 0,
                                 "liked": False}
        [changed] = [c for c in diff if c.op == "modify"]
        assert changed.fields == ("comment_count",) and changed.after["comment_count"] == count + 1
        detail = await rn.ok("get_feed_detail", rn.ref(SUNSET))
        mine = next(c for c in detail["data"]["comments"]["list"] if c["content"] == "下周去拍！")
        assert mine["userInfo"]["nickname"] == "鱼在魔都" and mine["showTags"] == []


async def test_post_comment_to_feed_errors() -> None:
    async with Rednote() as rn:
        ref = rn.ref(SUNSET)
        await rn.fail("post_comment_to_feed", rn.ref(FLOWERS) | {"content": "好美"},
                      "发表评论失败: 未找到评论输入框，该帖子可能不支持评论或网页端不可访问", exact=True)
        await rn.fail("post_comment_to_feed", ref | {"content": "长" * 281},
                      "发表评论失败: 当前输入长度为281，最大长度为280", exact=True)
        await rn.fail("post_comment_to_feed", ref | {"content": ""}, "发表评论失败: 缺少content参数", exact=True)
        await rn.fail("post_comment_to_feed", ref, "content: Field required")
        await rn.fail("post_comment_to_feed", ref | {"content": 3}, "content: Input should be a valid string")
        await rn.fail("post_comment_to_feed", ref | {"content": "hi", "xsec_token": "AB0="}, BAD_TOKEN)


async def test_reply_comment_in_feed() -> None:
    async with Rednote() as rn:
        note = rn.note(COFFEE)
        count = note["comment_count"]
        ref = rn.ref(COFFEE)
        root = next(c for c in note["comments"].values() if c["content"] == "求店名！看着好舒服")
        answer = next(c for c in note["comments"].values() if c.get("target_comment_id") == root["comment_id"])
        result, diff = await rn.changes("reply_comment_in_feed", ref | {"comment_id": answer["comment_id"],
                                                                        "content": "谢谢博主！"})
        assert result == {"feed_id": note["note_id"], "target_comment_id": answer["comment_id"], "success": True,
                          "message": "评论回复成功"}
        [created] = [c.after for c in diff if c.op == "create"]
        assert created["root_comment_id"] == root["comment_id"]  # a reply to a reply stays in the thread
        assert created["target_comment_id"] == answer["comment_id"]
        assert created["target_user_id"] == note["author_id"] and created["user_id"] == rn.me
        assert rn.note(COFFEE)["comment_count"] == count + 1
        # by user id only: that user's first comment
        third = next(c for c in note["comments"].values() if c["content"] == "桂花拿铁真的好喝，我上周也去了")
        result, diff = await rn.changes("reply_comment_in_feed", ref | {"user_id": third["user_id"], "content": "同感"})
        assert result == {"feed_id": note["note_id"], "target_user_id": third["user_id"], "success": True,
                          "message": "评论回复成功"}
        [created] = [c.after for c in diff if c.op == "create"]
        assert created["target_user_id"] == third["user_id"] and created["target_comment_id"] == third["comment_id"]
        assert created["root_comment_id"] == third["comment_id"]


async def test_reply_comment_in_feed_errors() -> None:
    async with Rednote() as rn:
        note = rn.note(COFFEE)
        ref = rn.ref(COFFEE)
        root = next(c for c in note["comments"].values() if c["content"] == "求店名！看着好舒服")
        await rn.fail("reply_comment_in_feed", ref | {"content": "hi"}, "缺少 comment_id 或 user_id", exact=True)
        await rn.fail("reply_comment_in_feed", ref | {"content": "hi", "comment_id": "c" * 24},
                      f"回复评论失败: 无法找到评论: 未找到评论 (commentID: {'c' * 24}, userID: )", exact=True)
        await rn.fail("reply_comment_in_feed", ref | {"content": "hi", "comment_id": root["comment_id"],
                                                      "user_id": rn.me}, "无法找到评论: 未找到评论")  # contradictory
        await rn.fail("reply_comment_in_feed", ref | {"content": "hi", "user_id": rn.me}, "未找到评论")
        await rn.fail("reply_comment_in_feed", ref | {"comment_id": root["comment_id"]}, "content: Field required")
        await rn.fail("reply_comment_in_feed", ref | {"content": "hi", "comment_id": 5},
                      "comment_id: Input should be a valid string")
        await rn.fail("reply_comment_in_feed", ref | {"content": "x" * 300, "comment_id": root["comment_id"]},
                      "当前输入长度为300，最大长度为280")
        await rn.fail("reply_comment_in_feed", ref | {"content": "hi", "comment_id": root["comment_id"],
                                                      "xsec_token": rn.ref(SUNSET)["xsec_token"]}, BAD_TOKEN)


# -- profiles ---------------------------------------------------------------------------------------
async def test_user_profile() -> None:
    async with Rednote() as rn:
        note = rn.note(COFFEE)
        author = rn.user(note["author_id"])
        result = await rn.ok("user_profile", {"user_id": author["user_id"], "xsec_token": note["xsec_token"]})
        assert result["userBasicInfo"] == {"gender": author["gender"], "ipLocation": author["ip_location"],
                                           "desc": author["desc"], "imageb": author["avatar"],
                                           "nickname": author["nickname"], "images": author["avatar"],
                                           "redId": author["red_id"]}
        assert [(i["type"], i["name"]) for i in result["interactions"]] == [
            ("follows", "关注"), ("fans", "粉丝"), ("interaction", "获赞与收藏")]
        own = sorted((n for n in rn.data["notes"].values() if n["author_id"] == author["user_id"]
                      and n["status"] == "normal"), key=lambda n: -n["time"])
        assert [f["id"] for f in result["feeds"]] == [n["note_id"] for n in own]
        by_card = await rn.ok("user_profile", {"user_id": author["user_id"], "xsec_token": author["xsec_token"]})
        assert by_card == result
        wang = rn.circle("wang_fang")
        rent = rn.note(RENT)
        liked = await rn.ok("user_profile", {"user_id": wang["user_id"], "xsec_token": rent["xsec_token"],
                                             "tab": "liked"})
        assert [f["id"] for f in liked["feeds"]] == wang["liked_note_ids"]


async def test_user_profile_errors() -> None:
    async with Rednote() as rn:
        note = rn.note(COFFEE)
        author = note["author_id"]
        await rn.fail("user_profile", {"user_id": author, "xsec_token": rn.note(SUNSET)["xsec_token"]},
                      "获取用户主页失败: 访问受限: xsec_token 无效或与该用户不匹配")
        await rn.fail("user_profile", {"user_id": "a" * 24, "xsec_token": note["xsec_token"]},
                      f"获取用户主页失败: 用户不存在或已注销 (user_id: {'a' * 24})", exact=True)
        await rn.fail("user_profile", {"user_id": author, "xsec_token": note["xsec_token"], "tab": "posts"},
                      '获取用户主页失败: 未知的主页 tab "posts"，可选：note / fav / liked', exact=True)
        await rn.fail("user_profile", {"user_id": author, "xsec_token": ""}, "获取用户主页失败: 缺少xsec_token参数")
        await rn.fail("user_profile", {"user_id": author}, "xsec_token: Field required")
        await rn.fail("user_profile", {"user_id": [author], "xsec_token": "x"},
                      "user_id: Input should be a valid string")
        private = [u for u in rn.data["users"].values() if u.get("cast_id") and u["user_id"] != rn.me
                   and not u["fav_public"]]
        for user in private:
            await rn.fail("user_profile", {"user_id": user["user_id"], "xsec_token": user["xsec_token"], "tab": "fav"},
                          "获取用户主页失败: 该用户的收藏已设为不公开", exact=True)


async def test_get_my_profile() -> None:
    async with Rednote() as rn:
        me = rn.user(rn.me)
        notes = await rn.ok("get_my_profile")
        assert notes["userBasicInfo"]["nickname"] == "鱼在魔都" and notes["userBasicInfo"]["redId"] == me["red_id"]
        assert [f["noteCard"]["displayTitle"] for f in notes["feeds"]] == [LAUNCH, TODO, "静安寺附近的安静咖啡馆"]
        assert all(f["xsecToken"] == rn.note(f["noteCard"]["displayTitle"])["xsec_token"] for f in notes["feeds"])
        fav = await rn.ok("get_my_profile", {"tab": "收藏"})
        favorited = {n["note_id"] for n in rn.data["notes"].values() if n["collected"]}
        assert {f["id"] for f in fav["feeds"]} == favorited and rn.note(GPU)["note_id"] in favorited
        liked = await rn.ok("get_my_profile", {"tab": "LIKED"})
        assert {f["id"] for f in liked["feeds"]} == {n["note_id"] for n in rn.data["notes"].values() if n["liked"]}
        await rn.fail("get_my_profile", {"tab": "drafts"},
                      '获取我的主页失败: 未知的主页 tab "drafts"，可选：note / fav / liked', exact=True)
        await rn.fail("get_my_profile", {"tab": 1}, "tab: Input should be a valid string")


# -- publishing -------------------------------------------------------------------------------------
async def test_publish_content() -> None:
    async with Rednote() as rn:
        args = {"title": "朱家角半日游", "content": "坐17号线就到，手摇船六十一条。", "images": [IMG, IMG2,
                                                                                  "https://example.com/a.jpg"],
                "tags": ["#上海周边游", "朱家角", "朱家角"], "is_original": True}
        result, diff = await rn.changes("publish_content", args)
        assert result == {"title": "朱家角半日游", "content": args["content"], "images": 3, "status": "发布完成"}
        [created] = diff
        assert created.op == "create" and created.entity_type == "note"
        note = created.after
        assert note["author_id"] == rn.me and note["type"] == "normal" and note["time"] == NOW_MS + 1000
        assert note["tags"] == ["上海周边游", "朱家角"] and note["image_sources"] == args["images"]
        assert len(note["images"]) == 3 and note["visibility"] == "公开可见" and note["is_original"] is True
        assert note["status"] == "normal" and note["publish_status"] == "published" and note["liked_count"] == 0
        mine = await rn.ok("get_my_profile")
        assert mine["feeds"][0]["id"] == note["note_id"] and mine["feeds"][0]["xsecToken"] == note["xsec_token"]
        found = await rn.ok("search_feeds", {"keyword": "朱家角半日游"})
        assert [f["id"] for f in found["feeds"]] == [note["note_id"]]
        # a scheduled, private note: not on the profile yet, nor in search
        later, diff = await rn.changes("publish_content", {"title": "Weekly notes 0316", "content": "draft",
                                                           "images": [IMG], "visibility": "仅自己可见",
                                                           "schedule_at": "2026-03-16T20:00:00+08:00"})
        assert later["status"] == "发布完成"
        [created] = diff
        assert created.after["publish_status"] == "scheduled" and created.after["visibility"] == "仅自己可见"
        assert created.after["time"] == 1773662400 * 1000
        assert created.after["note_id"] not in [f["id"] for f in (await rn.ok("get_my_profile"))["feeds"]]


async def test_publish_content_limits_and_errors() -> None:
    async with Rednote() as rn:
        base = {"title": "标题", "content": "正文", "images": [IMG]}
        assert title_length("a" * 40) == 20 and title_length("a" * 41) == 21 and title_length("中" * 20) == 20
        await rn.ok("publish_content", base | {"title": "a" * 40})  # 40 ASCII characters are 20 units
        await rn.fail("publish_content", base | {"title": "中" * 21}, "发布失败: 标题长度超过限制")
        await rn.fail("publish_content", base | {"title": "a" * 41}, "标题长度超过限制（当前 21，最多 20 个字")
        await rn.fail("publish_content", base | {"content": "字" * 1001},
                      "发布失败: 当前输入长度为1001，最大长度为1000", exact=True)
        await rn.fail("publish_content", base | {"images": []}, "发布失败: no valid images found", exact=True)
        await rn.fail("publish_content", base | {"images": [IMG] * 10},
                      "发布失败: 图片数量超过限制：最多上传9张，当前10张")
        await rn.fail("publish_content", base | {"images": ["/Users/chenyu/Desktop/missing.jpg"]},
                      "发布失败: 图片文件不存在: /Users/chenyu/Desktop/missing.jpg", exact=True)
        await rn.fail("publish_content", base | {"images": ["zhujiajiao_boat.jpg"]},
                      "图片文件不存在: zhujiajiao_boat.jpg")
        await rn.fail("publish_content", base | {"images": [VIDEO]}, f"发布失败: 不支持的图片格式: {VIDEO}")
        await rn.fail("publish_content", base | {"visibility": "好友可见"},
                      "发布失败: 不支持的可见范围: 好友可见，支持: 公开可见、仅自己可见、仅互关好友可见", exact=True)
        await rn.fail("publish_content", base | {"products": ["防晒霜"]}, "未找到添加商品按钮，账号可能未开通商品功能")
        await rn.fail("publish_content", base | {"schedule_at": "2026-03-10T10:00:00+08:00"},
                      "发布失败: 定时发布时间必须至少在1小时后，当前设置: 2026-03-10 10:00，最早可选: 2026-03-10 10:30",
                      exact=True)
        await rn.fail("publish_content", base | {"schedule_at": "2026-04-01T10:00:00+08:00"},
                      "定时发布时间不能超过14天，当前设置: 2026-04-01 10:00，最晚可选: 2026-03-24 09:30")
        await rn.fail("publish_content", base | {"schedule_at": "next friday"},
                      "定时发布时间格式错误，请使用 ISO8601 格式")
        await rn.fail("publish_content", base | {"schedule_at": "2026-03-12T10:00:00"}, "missing time zone offset")
        await rn.fail("publish_content", base | {"images": IMG}, "images: Input should be a valid list")
        await rn.fail("publish_content", {"title": "t", "content": "c"}, "images: Field required")
        await rn.fail("publish_content", base | {"is_original": "maybe"},
                      "is_original: Input should be a valid boolean")


async def test_publish_with_video() -> None:
    async with Rednote() as rn:
        result, diff = await rn.changes("publish_with_video", {"title": "春季发布会回顾", "content": "一分钟看完发布会",
                                                               "video": VIDEO, "tags": ["发布会"]})
        assert result == {"title": "春季发布会回顾", "content": "一分钟看完发布会", "video": VIDEO,
                          "status": "发布完成"}
        [created] = diff
        note = created.after
        assert note["type"] == "video" and note["video"]["duration"] == 58 and note["video_source"] == VIDEO
        assert note["tags"] == ["发布会"] and len(note["images"]) == 1 and note["author_id"] == rn.me
        mine = await rn.ok("get_my_profile")
        assert mine["feeds"][0]["noteCard"]["video"] == {"capa": {"duration": 58}}


async def test_publish_with_video_errors() -> None:
    async with Rednote() as rn:
        base = {"title": "回顾", "content": "正文", "video": VIDEO}
        await rn.fail("publish_with_video", base | {"video": "/Users/chenyu/Movies/nope.mp4"},
                      "发布失败: 视频文件不存在或不可访问: stat /Users/chenyu/Movies/nope.mp4: "
                      "no such file or directory",
                      exact=True)
        await rn.fail("publish_with_video", base | {"video": IMG}, f"发布失败: 不支持的视频格式: {IMG}")
        await rn.fail("publish_with_video", base | {"video": " "}, "发布失败: 缺少本地视频文件路径", exact=True)
        await rn.fail("publish_with_video", base | {"title": "这是一个非常非常非常非常长的视频标题超过了限制"},
                      "标题长度超过限制")
        await rn.fail("publish_with_video", base | {"visibility": "public"}, "不支持的可见范围: public")
        await rn.fail("publish_with_video", {"title": "t", "content": "c"}, "video: Field required")
        await rn.fail("publish_with_video", base | {"tags": "发布会"}, "tags: Input should be a valid list")
        await rn.fail("publish_with_video", base | {"images": [IMG]}, "images: Extra inputs are not permitted")


async def test_other_personas() -> None:
    async with Rednote("lin_wei") as rn:
        assert (await rn.ok("check_login_status"))["username"] == "林间小维"
        feeds = (await rn.ok("list_feeds"))["feeds"]
        topics = {rn.data["notes"][f["id"]]["title"] for f in feeds}
        assert "博士第三年的论文写作流程" in topics
        await rn.ok("publish_with_video", {"title": "西溪骑行", "content": "周末骑车",
                                           "video": "/home/linwei/Videos/xixi_ride.mp4"})
        await rn.fail("publish_content", {"title": "t", "content": "c", "images": [IMG]}, f"图片文件不存在: {IMG}")
    async with Rednote("maya_patel") as rn:
        assert (await rn.ok("check_login_status"))["username"] == "Maya in SG"
        found = await rn.ok("search_feeds", {"keyword": "hawker"})
        assert [f["noteCard"]["displayTitle"] for f in found["feeds"]] == ["Hawker centre guide"]
