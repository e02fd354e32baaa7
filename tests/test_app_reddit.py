"""The Reddit app through the real MCP path: every tool's success path and its error classes.

Each call goes through ``mcp.Client`` against the app's ``MCPServer``. Results come in the hosted envelope
``{"successful", "error", "data"}`` with Reddit's JSON inside; failures are checked for their Reddit error body,
the explanatory message and an unchanged state hash. Threads are found in chen_yu's context by their titles.
"""

from __future__ import annotations

from typing import Any

import pytest

from app_harness import AppSession
from mcp_persona.apps import get_app

pytestmark = pytest.mark.anyio


APP = get_app("reddit")
NOW = 1773106200

TOOLS = [
    "create_reddit_post", "post_reddit_comment", "retrieve_post_comments", "retrieve_reddit_post",
    "retrieve_specific_comment", "search_across_subreddits", "delete_reddit_comment", "delete_reddit_post",
    "edit_reddit_comment_or_post", "get_user_flair", "get_reddit_user_about",
]

WEEKLY = "Weekly Self-Promotion Thread - March 9, 2026"  # stickied, r/marketing
BRAND = "How do you measure brand lift without a big research budget?"  # chen_yu commented on it
CPM = "Is anyone else seeing CPMs spike on short video this quarter?"
CHECKLIST = "Post-launch checklist: what do you review in the first week after a product launch event?"  # chen_yu's
DINNER = "Team dinner for 12 near Jing'an Temple, ideas?"  # chen_yu's, r/shanghai
LOCKED = "[N] Conference registration opens for the summer vision workshop season"
ARCHIVED = "Best resources to learn marketing analytics?"  # r/marketing, 2025
PRIVATE = "Q2 budget planning: what are you cutting?"  # r/cmo_roundtable
LINK = "A practical guide to gradient checkpointing"  # r/programming link post
FORBIDDEN = {"message": "Forbidden", "error": 403}
NOT_FOUND = {"message": "Not Found", "error": 404}
BAD_REQUEST = {"message": "Bad Request", "error": 400}


def errors(*triples: tuple[str, str, str]) -> dict[str, Any]:
    return {"json": {"errors": [list(t) for t in triples]}}


class Reddit(AppSession):
    """One episode of the reddit app and a connected client."""

    app = APP
    json_results = True

    @property
    def me(self) -> dict[str, Any]:
        return self.data["users"][self.data["me"]]

    def post(self, title: str) -> dict[str, Any]:
        [found] = [p for p in self.data["posts"].values() if p["title"] == title]
        return found

    def sub(self, name: str) -> dict[str, Any]:
        [found] = [s for s in self.data["subreddits"].values() if s["display_name"] == name]
        return found

    def flair(self, sub: str, text: str) -> str:
        [found] = [f["id"] for f in self.sub(sub)["flairs"].values() if f["text"] == text]
        return found

    def user(self, name: str) -> dict[str, Any]:
        [found] = [u for u in self.data["users"].values() if u["name"] == name]
        return found

    def my_comment(self, title: str) -> dict[str, Any]:
        [found] = [c for c in self.post(title)["comments"].values() if c["author_id"] == self.data["me"]
                   and not c.get("parent_comment_id")]
        return found

    def stranger_comment(self, title: str) -> dict[str, Any]:
        return next(c for c in self.post(title)["comments"].values() if c["author_id"] != self.data["me"])

    async def ok(self, tool: str, args: dict[str, Any] | None = None) -> Any:
        body = await super().ok(tool, args)
        assert body["successful"] is True and body["error"] is None, body
        return body["data"]

    async def fail(self, tool: str, args: dict[str, Any] | None, fragment: str, data: Any = None) -> dict[str, Any]:
        """A rejected call: the error flag, the message, Reddit's error body, the state untouched."""
        body = await self.rejected(tool, args)
        assert body["successful"] is False and fragment in body["error"], body
        if data is not None:
            assert body["data"] == data, body
        return body


def children(listing: dict[str, Any]) -> list[dict[str, Any]]:
    assert listing["kind"] == "Listing"
    return listing["data"]["children"]


def titles(listing: dict[str, Any]) -> list[str]:
    return [c["data"]["title"] for c in children(listing)]


# -- the server ---------------------------------------------------------------------------------------
async def test_server_lists_exactly_the_eleven_tools() -> None:
    async with Reddit() as rd:
        listed = await rd.client.list_tools()
    assert sorted(t.name for t in listed.tools) == sorted(TOOLS)
    schema = {t.name: t.input_schema for t in listed.tools}
    assert sorted(schema["create_reddit_post"]["required"]) == ["kind", "subreddit", "title"]
    assert sorted(schema["post_reddit_comment"]["required"]) == ["text", "thing_id"]
    assert schema["retrieve_post_comments"]["required"] == ["article"]


async def test_unknown_tool_and_validation_envelope() -> None:
    async with Reddit() as rd:
        is_error, body = await rd.raw("upvote", {})
        assert is_error and body == {"successful": False, "error": "Unknown tool: upvote", "data": {}}
        body = await rd.fail("retrieve_reddit_post", {"subreddit": "marketing", "count": 3},
                             "Invalid request data provided\n- count: Extra inputs are not permitted", data={})


async def test_every_context_is_valid_and_personal() -> None:
    names = set()
    for persona in ("chen_yu", "lin_wei", "maya_patel"):
        data = APP.load_context(persona)
        me = data["users"][data["me"]]
        assert me["cast_id"] == persona
        names.add(me["name"])
        posts = list(data["posts"].values())
        assert sum(p["author_id"] == data["me"] for p in posts) == 2
        mine = [c for p in posts for c in p["comments"].values() if c["author_id"] == data["me"]]
        assert len(mine) >= 4
        assert len(data["subreddits"]) == 18 and len(posts) == 48
        assert sum(s["user_is_subscriber"] for s in data["subreddits"].values()) >= 5
        assert all(p["created_utc"] <= NOW for p in posts)
        assert sum(1 for u in data["users"].values() if u.get("cast_id")) == 3
    assert len(names) == 3


# -- retrieve_reddit_post -----------------------------------------------------------------------------
async def test_retrieve_reddit_post_hot_pages_and_sorts() -> None:
    async with Reddit() as rd:
        first = await rd.ok("retrieve_reddit_post", {"subreddit": "marketing"})
        posts = children(first)
        assert len(posts) == 5 and first["data"]["dist"] == 5
        assert posts[0]["kind"] == "t3" and posts[0]["data"]["title"] == WEEKLY and posts[0]["data"]["stickied"]
        assert first["data"]["after"] == posts[-1]["data"]["name"]
        second = await rd.ok("retrieve_reddit_post", {"subreddit": "Marketing", "after": first["data"]["after"]})
        assert children(second) and second["data"]["after"] is None
        listed = titles(first) + titles(second)
        visible = [p for p in rd.data["posts"].values() if p["subreddit_id"] == rd.sub("marketing")["id"]]
        assert sorted(listed) == sorted(p["title"] for p in visible)
        brand = next(c["data"] for c in posts + children(second) if c["data"]["title"] == BRAND)
        post = rd.post(BRAND)
        assert brand["name"] == f"t3_{post['id']}" and brand["subreddit_id"] == f"t5_{rd.sub('marketing')['id']}"
        assert brand["author_fullname"] == f"t2_{post['author_id']}" and brand["num_comments"] == len(post["comments"])
        assert brand["permalink"] == f"/r/marketing/comments/{post['id']}/how_do_you_measure_brand_lift_without_a_big/"
        assert brand["url"] == "https://www.reddit.com" + brand["permalink"] and brand["domain"] == "self.marketing"
        assert brand["created_utc"] == float(post["created_utc"]) and brand["link_flair_text"] == "Question"
        new = await rd.ok("retrieve_reddit_post", {"subreddit": "marketing", "sort": "new", "limit": 100})
        created = [c["data"]["created_utc"] for c in children(new)]
        assert created == sorted(created, reverse=True) and len(created) == len(visible)
        top = await rd.ok("retrieve_reddit_post", {"subreddit": "marketing", "sort": "top", "limit": 100})
        scores = [c["data"]["score"] for c in children(top)]
        assert scores == sorted(scores, reverse=True)
        rising = await rd.ok("retrieve_reddit_post", {"subreddit": "marketing", "sort": "rising", "limit": 100})
        assert all(NOW - c["data"]["created_utc"] <= 2 * 86400 for c in children(rising))
        assert WEEKLY in titles(rising) and ARCHIVED not in titles(rising)
        empty = await rd.ok("retrieve_reddit_post", {"subreddit": "marketing", "after": "t3_zzzzzzz"})
        assert children(empty) == [] and empty["data"]["after"] is None
        link = await rd.ok("retrieve_reddit_post", {"subreddit": "programming", "limit": 1, "sort": "top"})
        data = children(link)[0]["data"]
        assert data["is_self"] is False and data["domain"] == "blog.example.org" and data["url"].startswith("https://")


async def test_retrieve_reddit_post_errors() -> None:
    async with Reddit() as rd:
        await rd.fail("retrieve_reddit_post", {"subreddit": "marketingtips"}, "404 Not Found: there is no subreddit",
                      NOT_FOUND)
        await rd.fail("retrieve_reddit_post", {"subreddit": "r/marketing"}, "without the r/ prefix", NOT_FOUND)
        await rd.fail("retrieve_reddit_post", {"subreddit": "cmo_roundtable"}, "private community",
                      {"reason": "private", "message": "Forbidden", "error": 403})
        cm = rd.my_comment(BRAND)
        await rd.fail("retrieve_reddit_post", {"subreddit": "marketing", "after": f"t1_{cm['id']}"},
                      f"after must name a post (t3_), but t1_{cm['id']} is a comment", BAD_REQUEST)
        await rd.fail("retrieve_reddit_post", {"subreddit": "marketing", "limit": 0},
                      "- limit: Input should be greater than or equal to 1")
        await rd.fail("retrieve_reddit_post", {"subreddit": "marketing", "limit": 101}, "less than or equal to 100")
        await rd.fail("retrieve_reddit_post", {"subreddit": "marketing", "limit": "ten"}, "valid integer")
        await rd.fail("retrieve_reddit_post", {"subreddit": "marketing", "sort": "best"}, "- sort: Input should be")
        await rd.fail("retrieve_reddit_post", {}, "- subreddit: Field required")


# -- retrieve_post_comments ---------------------------------------------------------------------------
async def test_retrieve_post_comments_tree() -> None:
    async with Reddit() as rd:
        post = rd.post(BRAND)
        result = await rd.ok("retrieve_post_comments", {"article": post["id"]})
        head, tree = result["listings"]
        assert [c["data"]["name"] for c in children(head)] == [f"t3_{post['id']}"]
        top = children(tree)
        top_level = [c for c in post["comments"].values() if not c.get("parent_comment_id")]
        assert len(top) == len(top_level) and all(c["kind"] == "t1" for c in top)
        scores = [c["data"]["score"] for c in top]
        assert scores == sorted(scores, reverse=True)
        mine = next(c["data"] for c in top if c["data"]["author"] == rd.me["name"])
        assert mine["parent_id"] == f"t3_{post['id']}" and mine["link_id"] == f"t3_{post['id']}"
        assert mine["depth"] == 0 and mine["is_submitter"] is False
        [question] = children(mine["replies"])
        assert question["data"]["body"] == "Do you ask it unaided or aided?"
        assert question["data"]["parent_id"] == mine["name"] and question["data"]["depth"] == 1
        [answer] = children(question["data"]["replies"])
        assert answer["data"]["author"] == rd.me["name"] and answer["data"]["replies"] == ""
        assert answer["data"]["permalink"].endswith(f"/{answer['data']['id']}/")
        own = await rd.ok("retrieve_post_comments", {"article": rd.post(CHECKLIST)["id"]})
        submitter = [c["data"] for c in children(own["listings"][1])]
        replies = [r["data"] for c in submitter if c["replies"] for r in children(c["replies"])]
        assert {r["author"] for r in replies} == {rd.me["name"]} and all(r["is_submitter"] for r in replies)


async def test_retrieve_post_comments_errors() -> None:
    async with Reddit() as rd:
        post = rd.post(BRAND)
        await rd.fail("retrieve_post_comments", {"article": f"t3_{post['id']}"},
                      f"use '{post['id']}', not 't3_{post['id']}'", NOT_FOUND)
        cm = rd.my_comment(BRAND)
        await rd.fail("retrieve_post_comments", {"article": f"t1_{cm['id']}"}, "is a comment, not a post", NOT_FOUND)
        await rd.fail("retrieve_post_comments", {"article": "zzzzzzz"},
                      "404 Not Found: no post with fullname t3_zzzzzzz",
                      NOT_FOUND)
        await rd.fail("retrieve_post_comments", {"article": rd.post(PRIVATE)["id"]}, "no post with fullname", NOT_FOUND)
        await rd.fail("retrieve_post_comments", {"article": ""}, "- article: String should have at least 1 character")
        await rd.fail("retrieve_post_comments", {"article": 12345}, "- article: Input should be a valid string")
        await rd.fail("retrieve_post_comments", {}, "- article: Field required")


# -- retrieve_specific_comment ------------------------------------------------------------------------
async def test_retrieve_specific_comment() -> None:
    async with Reddit() as rd:
        cm = rd.my_comment(BRAND)
        result = await rd.ok("retrieve_specific_comment", {"id": f"t1_{cm['id']}"})
        [thing] = result["things"]
        assert thing["kind"] == "t1" and thing["data"]["body"] == cm["body"] and thing["data"]["replies"] == ""
        assert thing["data"]["author"] == rd.me["name"] and thing["data"]["score"] == cm["score"]
        post = rd.post(CPM)
        result = await rd.ok("retrieve_specific_comment", {"id": f"t3_{post['id']}"})
        assert result["things"][0]["kind"] == "t3" and result["things"][0]["data"]["title"] == CPM
        reply = next(c for c in rd.post(BRAND)["comments"].values() if c.get("parent_comment_id") == cm["id"])
        deep = await rd.ok("retrieve_specific_comment", {"id": f"t1_{reply['id']}"})
        assert deep["things"][0]["data"]["depth"] == 1 and deep["things"][0]["data"]["parent_id"] == f"t1_{cm['id']}"


async def test_retrieve_specific_comment_errors() -> None:
    async with Reddit() as rd:
        cm = rd.my_comment(BRAND)
        await rd.fail("retrieve_specific_comment", {"id": cm["id"]}, "must be a Reddit fullname such as t1_",
                      BAD_REQUEST)
        sub = rd.sub("marketing")
        await rd.fail("retrieve_specific_comment", {"id": f"t5_{sub['id']}"},
                      f"id must name a comment (t1_) or a post (t3_), but t5_{sub['id']} is a subreddit", BAD_REQUEST)
        await rd.fail("retrieve_specific_comment", {"id": "t1_zzzzzzz"}, "no comment with fullname t1_zzzzzzz",
                      NOT_FOUND)
        await rd.fail("retrieve_specific_comment", {"id": "t3_zzzzzzz"}, "no post with fullname t3_zzzzzzz", NOT_FOUND)
        await rd.fail("retrieve_specific_comment", {"id": ["t1_x"]}, "- id: Input should be a valid string")
        await rd.fail("retrieve_specific_comment", {}, "- id: Field required")


# -- search_across_subreddits -------------------------------------------------------------------------
async def test_search_across_subreddits() -> None:
    async with Reddit() as rd:
        result = await rd.ok("search_across_subreddits", {"search_query": "launch event"})
        found = titles(result["search_results"])
        assert found[0] == "Agency vs in-house for a product launch event?"  # both words in the title
        assert set(found) == {"Agency vs in-house for a product launch event?", CHECKLIST}
        few = await rd.ok("search_across_subreddits", {"search_query": "the"})
        assert len(children(few["search_results"])) == 5 and few["search_results"]["data"]["after"].startswith("t3_")
        many = await rd.ok("search_across_subreddits", {"search_query": "the", "limit": 100, "sort": "new"})
        created = [c["data"]["created_utc"] for c in children(many["search_results"])]
        assert created == sorted(created, reverse=True) and len(created) > 20
        assert PRIVATE not in titles(many["search_results"])  # the private community is not searchable
        scoped = await rd.ok("search_across_subreddits", {"search_query": "subreddit:Shanghai cafes",
                                                          "restrict_sr": False})
        assert titles(scoped["search_results"]) == ["Quiet cafes in Xuhui where you can work for a few hours?"]
        by_me = await rd.ok("search_across_subreddits", {"search_query": f"author:{rd.me['name']}", "limit": 10})
        assert set(titles(by_me["search_results"])) == {CHECKLIST, DINNER}
        flair = await rd.ok("search_across_subreddits", {"search_query": "flair:question subreddit:marketing"})
        assert set(titles(flair["search_results"])) == {BRAND, CHECKLIST}
        top = await rd.ok("search_across_subreddits", {"search_query": "how", "sort": "top", "limit": 50})
        scores = [c["data"]["score"] for c in children(top["search_results"])]
        assert scores == sorted(scores, reverse=True)
        most = await rd.ok("search_across_subreddits", {"search_query": "how", "sort": "comments", "limit": 50})
        counts = [c["data"]["num_comments"] for c in children(most["search_results"])]
        assert counts == sorted(counts, reverse=True)
        none = await rd.ok("search_across_subreddits", {"search_query": "quantum knitting"})
        assert children(none["search_results"]) == [] and none["search_results"]["data"]["after"] is None


async def test_search_across_subreddits_errors() -> None:
    async with Reddit() as rd:
        await rd.fail("search_across_subreddits", {"search_query": "   "}, "search_query has no words", BAD_REQUEST)
        await rd.fail("search_across_subreddits", {}, "- search_query: Field required")
        await rd.fail("search_across_subreddits", {"search_query": "x", "limit": 500}, "less than or equal to 100")
        await rd.fail("search_across_subreddits", {"search_query": "x", "sort": "best"}, "- sort: Input should be")
        await rd.fail("search_across_subreddits", {"search_query": 3}, "- search_query: Input should be a valid string")


# -- get_user_flair / get_reddit_user_about -----------------------------------------------------------
async def test_get_user_flair() -> None:
    async with Reddit() as rd:
        result = await rd.ok("get_user_flair", {"subreddit": "marketing"})
        sr = rd.sub("marketing")
        assert result["current"] == {"flair_css_class": None, "flair_template_id": sr["user_flair"]["template_id"],
                                     "flair_text": "In-house", "flair_position": "right"}
        assert [c["flair_text"] for c in result["choices"]] == ["Question", "Discussion", "Resource"]  # not mod-only
        assert result["choices"][0]["flair_template_id"] == rd.flair("marketing", "Question")
        plain = await rd.ok("get_user_flair", {"subreddit": "SOCIALMEDIA"})
        assert plain["current"] == {} and len(plain["choices"]) == 3
        none = await rd.ok("get_user_flair", {"subreddit": "programming"})
        assert none == {"current": {}, "choices": []}


async def test_get_user_flair_errors() -> None:
    async with Reddit() as rd:
        await rd.fail("get_user_flair", {"subreddit": "nosuchsub"}, "there is no subreddit r/nosuchsub", NOT_FOUND)
        await rd.fail("get_user_flair", {"subreddit": "cmo_roundtable"}, "403 Forbidden",
                      {"reason": "private", "message": "Forbidden", "error": 403})
        await rd.fail("get_user_flair", {"subreddit": None}, "- subreddit: Input should be a valid string")
        await rd.fail("get_user_flair", {}, "- subreddit: Field required")


async def test_get_reddit_user_about() -> None:
    async with Reddit() as rd:
        me = await rd.ok("get_reddit_user_about", {"username": "yu_in_shanghai"})
        assert me["kind"] == "t2" and me["data"]["id"] == rd.data["me"]
        assert me["data"]["total_karma"] == 1840 + 5321 and me["data"]["created_utc"] == float(rd.me["created_utc"])
        suspended = next(u for u in rd.data["users"].values() if u["is_suspended"])
        gone = await rd.ok("get_reddit_user_about", {"username": suspended["name"].upper()})
        assert gone == {"kind": "t2", "data": {"name": suspended["name"], "is_suspended": True}}
        await rd.fail("get_reddit_user_about", {"username": "u/yu_in_shanghai"}, "without the u/ prefix", NOT_FOUND)
        await rd.fail("get_reddit_user_about", {"username": "nobody_here_42"}, "there is no user u/nobody_here_42",
                      NOT_FOUND)
        await rd.fail("get_reddit_user_about", {"username": 7}, "- username: Input should be a valid string")
        await rd.fail("get_reddit_user_about", {}, "- username: Field required")


# -- create_reddit_post -------------------------------------------------------------------------------
async def test_create_self_post_with_flair() -> None:
    async with Reddit() as rd:
        flair = rd.flair("marketing", "Discussion")
        result, diff = await rd.changes("create_reddit_post", {
            "subreddit": "Marketing", "title": "What does your launch retro template look like?", "kind": "self",
            "text": "Sharing ours in the comments.", "flair_id": flair})
        [created] = diff
        post = created.after
        assert created.op == "create" and created.entity_type == "post"
        assert result == {"json": {"errors": [], "data": {
            "url": f"https://www.reddit.com/r/marketing/comments/{post['id']}/what_does_your_launch_retro_template_look_like/",
            "drafts_count": 0, "id": post["id"], "name": f"t3_{post['id']}"}}}
        assert post == {"id": post["id"], "author_id": rd.data["me"], "subreddit_id": rd.sub("marketing")["id"],
                        "title": "What does your launch retro template look like?", "is_self": True,
                        "created_utc": NOW + 1, "score": 1, "upvote_ratio": 1.0, "locked": False, "archived": False,
                        "stickied": False, "over_18": False, "spoiler": False, "deleted": False, "edited": False,
                        "selftext": "Sharing ours in the comments.", "link_flair_template_id": flair,
                        "link_flair_text": "Discussion"}
        new = await rd.ok("retrieve_reddit_post", {"subreddit": "marketing", "sort": "new", "limit": 1})
        assert children(new)[0]["data"]["name"] == f"t3_{post['id']}"
        assert children(new)[0]["data"]["author"] == "yu_in_shanghai"


async def test_create_link_post() -> None:
    async with Reddit() as rd:
        result, diff = await rd.changes("create_reddit_post", {
            "subreddit": "socialmedia", "title": "Our short-video benchmark report", "kind": "link",
            "url": "https://www.example.com/reports/short-video-2026"})
        [created] = diff
        assert created.after["url"] == "https://www.example.com/reports/short-video-2026"
        assert created.after["domain"] == "example.com" and created.after["is_self"] is False
        assert "selftext" not in created.after and "link_flair_text" not in created.after
        assert result["json"]["data"]["name"] == f"t3_{created.after['id']}"
        await rd.fail("create_reddit_post", {"subreddit": "socialmedia", "title": "Again", "kind": "link",
                                             "url": "https://www.example.com/reports/short-video-2026"},
                      "ALREADY_SUB", errors(("ALREADY_SUB", "that link has already been submitted", "url")))


async def test_create_reddit_post_errors() -> None:
    async with Reddit() as rd:
        base = {"subreddit": "marketing", "title": "A question", "kind": "self", "text": "Body",
                "flair_id": rd.flair("marketing", "Question")}
        await rd.fail("create_reddit_post", base | {"subreddit": "marketingtips"}, "SUBREDDIT_NOEXIST",
                      errors(("SUBREDDIT_NOEXIST", "that subreddit doesn't exist", "sr")))
        await rd.fail("create_reddit_post", base | {"subreddit": "r/marketing"}, "give the name without r/")
        await rd.fail("create_reddit_post", base | {"subreddit": "announcements"}, "only approved users may post",
                      errors(("SUBREDDIT_NOTALLOWED", "you aren't allowed to post there.", "sr")))
        await rd.fail("create_reddit_post", base | {"subreddit": "cmo_roundtable"}, "is private",
                      errors(("SUBREDDIT_NOTALLOWED", "you aren't allowed to post there.", "sr")))
        await rd.fail("create_reddit_post", {k: v for k, v in base.items() if k != "flair_id"},
                      "SUBMIT_VALIDATION_FLAIR_REQUIRED",
                      errors(("SUBMIT_VALIDATION_FLAIR_REQUIRED", "Your post must contain post flair.", "flair")))
        other = rd.flair("singapore", "Discussion")
        await rd.fail("create_reddit_post", base | {"flair_id": other}, "BAD_FLAIR_TEMPLATE_ID",
                      errors(("BAD_FLAIR_TEMPLATE_ID", "that flair template doesn't exist in r/marketing", "flair_id")))
        await rd.fail("create_reddit_post", base | {"flair_id": rd.flair("marketing", "Weekly Thread")},
                      "BAD_FLAIR_TEMPLATE_ID")  # mod-only
        await rd.fail("create_reddit_post", base | {"title": "x" * 301}, "TOO_LONG",
                      errors(("TOO_LONG", "this is too long (max: 300)", "title")))
        await rd.fail("create_reddit_post", base | {"title": " "}, "NO_TEXT",
                      errors(("NO_TEXT", "we need something here", "title")))
        await rd.fail("create_reddit_post", {k: v for k, v in base.items() if k != "text"}, "NO_TEXT",
                      errors(("NO_TEXT", "we need something here", "text")))
        await rd.fail("create_reddit_post", base | {"kind": "link", "text": None, "url": "https://example.com/x"},
                      "NO_LINKS", errors(("NO_LINKS", "that subreddit only allows text posts", "sr")))
        await rd.fail("create_reddit_post", {"subreddit": "programming", "title": "Notes", "kind": "self",
                                             "text": "hi"},
                      "NO_SELFS", errors(("NO_SELFS", "that subreddit doesn't allow text posts", "sr")))
        link = {"subreddit": "socialmedia", "title": "A link", "kind": "link"}
        await rd.fail("create_reddit_post", link, "NO_URL", errors(("NO_URL", "a url is required", "url")))
        await rd.fail("create_reddit_post", link | {"url": "example dot com"}, "BAD_URL",
                      errors(("BAD_URL", "you should check that url", "url")))
        await rd.fail("create_reddit_post", link | {"url": "https://example.com/a", "text": "and a body"},
                      "INVALID_OPTION: that option is not valid: a link post takes url, not text")
        await rd.fail("create_reddit_post", base | {"url": "https://example.com/a"}, "a self post takes text, not url")
        two = await rd.fail("create_reddit_post", {"subreddit": "programming", "title": "", "kind": "self"}, "NO_TEXT")
        assert [e[0] for e in two["data"]["json"]["errors"]] == ["NO_TEXT", "NO_SELFS", "NO_TEXT"]
        await rd.fail("create_reddit_post", base | {"kind": "image"}, "- kind: Input should be 'self' or 'link'")
        await rd.fail("create_reddit_post", {"subreddit": "marketing", "kind": "self"}, "- title: Field required")
        await rd.fail("create_reddit_post", base | {"title": 3}, "- title: Input should be a valid string")


# -- post_reddit_comment ------------------------------------------------------------------------------
async def test_post_reddit_comment_on_post_and_reply() -> None:
    async with Reddit() as rd:
        post = rd.post(CPM)
        result, diff = await rd.changes("post_reddit_comment", {"thing_id": f"t3_{post['id']}",
                                                                "text": "Seeing the same since February."})
        [created] = diff
        assert created.op == "create" and created.path.startswith(f"posts[{post['id']}].comments[")
        cid = created.after["id"]
        assert created.after == {"id": cid, "author_id": rd.data["me"], "body": "Seeing the same since February.",
                                 "created_utc": NOW + 1, "score": 1, "edited": False, "deleted": False,
                                 "stickied": False}
        [thing] = result["json"]["data"]["things"]
        assert result["json"]["errors"] == [] and thing["kind"] == "t1" and thing["data"]["name"] == f"t1_{cid}"
        assert thing["data"]["parent_id"] == f"t3_{post['id']}" and thing["data"]["author"] == "yu_in_shanghai"
        target = rd.stranger_comment(CPM)
        result, diff = await rd.changes("post_reddit_comment", {"thing_id": f"t1_{target['id']}", "text": "+1"})
        [created] = diff
        assert created.after["parent_comment_id"] == target["id"]
        assert result["json"]["data"]["things"][0]["data"]["parent_id"] == f"t1_{target['id']}"
        assert result["json"]["data"]["things"][0]["data"]["depth"] == 1
        listing = await rd.ok("retrieve_post_comments", {"article": post["id"]})
        parent = next(c for c in children(listing["listings"][1]) if c["data"]["id"] == target["id"])
        assert [r["data"]["body"] for r in children(parent["data"]["replies"])] == ["+1"]


async def test_post_reddit_comment_errors() -> None:
    async with Reddit() as rd:
        post = rd.post(CPM)
        await rd.fail("post_reddit_comment", {"thing_id": f"t3_{rd.post(LOCKED)['id']}", "text": "hi"},
                      "THREAD_LOCKED", errors(("THREAD_LOCKED", "Comments are locked.", "parent")))
        old = rd.post(ARCHIVED)
        await rd.fail("post_reddit_comment", {"thing_id": f"t3_{old['id']}", "text": "hi"}, "TOO_OLD",
                      errors(("TOO_OLD", "that's a piece of history now; it's too late to reply to it", "parent")))
        await rd.fail("post_reddit_comment", {"thing_id": f"t1_{rd.stranger_comment(ARCHIVED)['id']}", "text": "hi"},
                      "TOO_OLD")
        sub = rd.sub("marketing")
        await rd.fail("post_reddit_comment", {"thing_id": f"t5_{sub['id']}", "text": "hi"},
                      "thing_id must name a post (t3_) or a comment (t1_), but", BAD_REQUEST)
        await rd.fail("post_reddit_comment", {"thing_id": post["id"], "text": "hi"}, "must be a Reddit fullname",
                      BAD_REQUEST)
        await rd.fail("post_reddit_comment", {"thing_id": "t3_zzzzzzz", "text": "hi"}, "no post with fullname",
                      NOT_FOUND)
        await rd.fail("post_reddit_comment", {"thing_id": f"t3_{rd.post(PRIVATE)['id']}", "text": "hi"},
                      "no post with fullname", NOT_FOUND)
        await rd.fail("post_reddit_comment", {"thing_id": f"t3_{post['id']}", "text": ""}, "NO_TEXT",
                      errors(("NO_TEXT", "we need something here", "text")))
        await rd.fail("post_reddit_comment", {"thing_id": f"t3_{post['id']}", "text": "a" * 10001}, "TOO_LONG",
                      errors(("TOO_LONG", "this is too long (max: 10000)", "text")))
        await rd.fail("post_reddit_comment", {"thing_id": f"t3_{post['id']}"}, "- text: Field required")
        await rd.fail("post_reddit_comment", {"thing_id": 5, "text": "x"}, "- thing_id: Input should be a valid string")


# -- edit_reddit_comment_or_post ----------------------------------------------------------------------
async def test_edit_comment_and_self_post() -> None:
    async with Reddit() as rd:
        cm = rd.my_comment(BRAND)
        post = rd.post(BRAND)
        result, diff = await rd.changes("edit_reddit_comment_or_post", {"thing_id": f"t1_{cm['id']}",
                                                                        "text": "Edit: we now ask it unaided."})
        assert [(c.path, c.fields) for c in diff] == [(f"posts[{post['id']}].comments[{cm['id']}]", ("body", "edited"))]
        [thing] = result["json"]["data"]["things"]
        assert thing["data"]["body"] == "Edit: we now ask it unaided." and thing["data"]["edited"] == float(NOW + 1)
        mine = rd.post(CHECKLIST)
        result, diff = await rd.changes("edit_reddit_comment_or_post", {"thing_id": f"t3_{mine['id']}",
                                                                        "text": "Update: thanks all, list below."})
        assert [(c.path, c.fields) for c in diff] == [(f"posts[{mine['id']}]", ("edited", "selftext"))]
        assert result["json"]["data"]["things"][0]["data"]["selftext"] == "Update: thanks all, list below."
        assert result["json"]["data"]["things"][0]["data"]["title"] == CHECKLIST


async def test_edit_errors() -> None:
    async with Reddit() as rd:
        other = rd.stranger_comment(BRAND)
        author = rd.data["users"][other["author_id"]]["name"]
        await rd.fail("edit_reddit_comment_or_post", {"thing_id": f"t1_{other['id']}", "text": "x"},
                      f"only the author can edit t1_{other['id']} (it was written by u/{author})", FORBIDDEN)
        await rd.fail("edit_reddit_comment_or_post", {"thing_id": f"t3_{rd.post(CPM)['id']}", "text": "x"},
                      "only the author can edit", FORBIDDEN)
        created = await rd.ok("create_reddit_post", {"subreddit": "socialmedia", "title": "Link", "kind": "link",
                                                     "url": "https://example.com/link"})
        name = created["json"]["data"]["name"]
        await rd.fail("edit_reddit_comment_or_post", {"thing_id": name, "text": "x"}, "is a link post",
                      errors(("NO_CHANGE_KIND", "can't change post type", "thing_id")))
        cm = rd.my_comment(BRAND)
        await rd.fail("edit_reddit_comment_or_post", {"thing_id": f"t1_{cm['id']}", "text": " "}, "NO_TEXT")
        await rd.fail("edit_reddit_comment_or_post", {"thing_id": f"t1_{cm['id']}", "text": "y" * 10001}, "TOO_LONG")
        await rd.fail("edit_reddit_comment_or_post", {"thing_id": f"t2_{rd.data['me']}", "text": "x"},
                      "is a account", BAD_REQUEST)
        await rd.fail("edit_reddit_comment_or_post", {"thing_id": "t1_zzzzzzz", "text": "x"}, "no comment",
                      NOT_FOUND)
        await rd.ok("delete_reddit_comment", {"id": f"t1_{cm['id']}"})
        await rd.fail("edit_reddit_comment_or_post", {"thing_id": f"t1_{cm['id']}", "text": "x"}, "DELETED_COMMENT",
                      errors(("DELETED_COMMENT", "that comment has been deleted", "thing_id")))
        await rd.fail("edit_reddit_comment_or_post", {"text": "x"}, "- thing_id: Field required")
        await rd.fail("edit_reddit_comment_or_post", {"thing_id": f"t1_{cm['id']}", "text": 1},
                      "- text: Input should be a valid string")


# -- delete_reddit_comment / delete_reddit_post -------------------------------------------------------
async def test_delete_reddit_comment() -> None:
    async with Reddit() as rd:
        cm = rd.my_comment(BRAND)
        post = rd.post(BRAND)
        result, diff = await rd.changes("delete_reddit_comment", {"id": f"t1_{cm['id']}"})
        assert result == {}
        path = f"posts[{post['id']}].comments[{cm['id']}]"
        assert [(c.path, c.fields) for c in diff] == [(path, ("body", "deleted"))]
        shown = await rd.ok("retrieve_specific_comment", {"id": f"t1_{cm['id']}"})
        data = shown["things"][0]["data"]
        assert data["author"] == "[deleted]" and data["body"] == "[deleted]" and data["author_fullname"] is None
        tree = await rd.ok("retrieve_post_comments", {"article": post["id"]})
        deleted = next(c["data"] for c in children(tree["listings"][1]) if c["data"]["id"] == cm["id"])
        assert children(deleted["replies"])[0]["data"]["body"] == "Do you ask it unaided or aided?"  # replies stay
        await rd.fail("delete_reddit_comment", {"id": f"t1_{cm['id']}"}, "DELETED_COMMENT",
                      errors(("DELETED_COMMENT", "that comment has been deleted", "id")))
        await rd.fail("post_reddit_comment", {"thing_id": f"t1_{cm['id']}", "text": "hi"}, "DELETED_COMMENT",
                      errors(("DELETED_COMMENT", "that comment has been deleted", "parent")))


async def test_delete_reddit_comment_errors() -> None:
    async with Reddit() as rd:
        other = rd.stranger_comment(CPM)
        await rd.fail("delete_reddit_comment", {"id": f"t1_{other['id']}"}, "only the author can delete", FORBIDDEN)
        mine = rd.post(CHECKLIST)
        await rd.fail("delete_reddit_comment", {"id": f"t3_{mine['id']}"},
                      f"id must name a comment (t1_), but t3_{mine['id']} is a post", BAD_REQUEST)
        await rd.fail("delete_reddit_comment", {"id": "t1_zzzzzzz"}, "no comment with fullname t1_zzzzzzz", NOT_FOUND)
        await rd.fail("delete_reddit_comment", {"id": "T1_ABC"}, "must be a Reddit fullname", BAD_REQUEST)
        await rd.fail("delete_reddit_comment", {}, "- id: Field required")
        await rd.fail("delete_reddit_comment", {"id": 3}, "- id: Input should be a valid string")


async def test_delete_reddit_post() -> None:
    async with Reddit() as rd:
        post = rd.post(DINNER)
        result, diff = await rd.changes("delete_reddit_post", {"id": f"t3_{post['id']}"})
        assert result == {}
        assert [(c.path, c.fields) for c in diff] == [(f"posts[{post['id']}]", ("deleted", "selftext"))]
        listing = await rd.ok("retrieve_reddit_post", {"subreddit": "shanghai", "limit": 100})
        assert DINNER not in titles(listing)
        found = await rd.ok("search_across_subreddits", {"search_query": "dinner Jing'an"})
        assert DINNER not in titles(found["search_results"])
        page = await rd.ok("retrieve_post_comments", {"article": post["id"]})
        head = children(page["listings"][0])[0]["data"]
        assert head["author"] == "[deleted]" and head["selftext"] == "[deleted]" and head["title"] == DINNER
        assert len(children(page["listings"][1])) == 2
        await rd.fail("delete_reddit_post", {"id": f"t3_{post['id']}"}, "DELETED_THING",
                      errors(("DELETED_THING", "that element has been deleted", "id")))
        await rd.fail("post_reddit_comment", {"thing_id": f"t3_{post['id']}", "text": "hi"}, "DELETED_LINK",
                      errors(("DELETED_LINK", "the link you are commenting on has been deleted", "parent")))
        await rd.fail("edit_reddit_comment_or_post", {"thing_id": f"t3_{post['id']}", "text": "x"}, "DELETED_THING")


async def test_delete_reddit_post_errors() -> None:
    async with Reddit() as rd:
        other = rd.post(CPM)
        await rd.fail("delete_reddit_post", {"id": f"t3_{other['id']}"}, "only the author can delete", FORBIDDEN)
        cm = rd.my_comment(BRAND)
        await rd.fail("delete_reddit_post", {"id": f"t1_{cm['id']}"},
                      f"id must name a post (t3_), but t1_{cm['id']} is a comment", BAD_REQUEST)
        await rd.fail("delete_reddit_post", {"id": "t3_zzzzzzz"}, "no post with fullname t3_zzzzzzz", NOT_FOUND)
        await rd.fail("delete_reddit_post", {"id": rd.post(CHECKLIST)["id"]}, "must be a Reddit fullname",
                      BAD_REQUEST)
        await rd.fail("delete_reddit_post", {}, "- id: Field required")
        await rd.fail("delete_reddit_post", {"id": {"t3": 1}}, "- id: Input should be a valid string")


async def test_other_personas() -> None:
    async with Reddit("lin_wei") as rd:
        assert rd.me["name"] == "lw_vision_lab"
        flair = await rd.ok("get_user_flair", {"subreddit": "MachineLearning"})
        assert flair["current"]["flair_text"] == "PhD Student"
        assert [c["flair_text"] for c in flair["choices"]] == ["Discussion", "Research", "Project"]
        await rd.fail("create_reddit_post", {"subreddit": "MachineLearning", "title": "[D] q", "kind": "self",
                                             "text": "q"}, "SUBMIT_VALIDATION_FLAIR_REQUIRED")
        await rd.ok("create_reddit_post", {"subreddit": "MachineLearning", "title": "[D] q", "kind": "self",
                                           "text": "q", "flair_id": flair["choices"][0]["flair_template_id"]})
    async with Reddit("maya_patel") as rd:
        mine = await rd.ok("search_across_subreddits", {"search_query": "author:maya_builds_things pre-mortem"})
        assert titles(mine["search_results"]) == ["How do you run a pre-mortem for a payments launch?"]
