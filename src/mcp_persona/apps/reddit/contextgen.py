"""Context generation for reddit: one Reddit account per persona.

Reddit itself is shared: every persona's context holds the same communities (from
``reddit_subreddits.json``, including a restricted, a private and a link-only one) and the same
public threads (``reddit_threads.json``), written by accounts from ``reddit_usernames.json``; the
weekly threads are stickied posts of a moderator account. What is personal comes from
``reddit_mine_<persona>.json``: the account, its subscriptions and user flair, its posts (with the
replies they drew, some from two people of the persona's circle who are on Reddit too) and its
comments on public threads (with replies). Threads from months ago are archived.
"""

from __future__ import annotations

import json
from datetime import datetime
from importlib import resources
from typing import Any

from mcp_persona.contextgen import Gen

MODERATOR = "mod_team_bot"
RATIOS = [0.81, 0.86, 0.9, 0.93, 0.95, 0.97, 0.99]
FLAIR_COLORS = ["#0079D3", "#46D160", "#FF4500", "#FFD635", "#7193FF", "#DDBD37"]


def _corpus_size(name: str) -> int:
    path = resources.files("mcp_persona") / "data" / "corpus" / "authentic" / f"{name}.json"
    return len(json.loads(path.read_text(encoding="utf-8")))


def _all(gen: Gen, field: str, corpus: str) -> list[dict[str, Any]]:
    return gen.authentic(field, corpus, _corpus_size(corpus))


def generate(persona: str, gen: Gen) -> dict[str, Any]:
    rng = gen.rng
    now = int(gen.local(2026, 3, 10, 9, 30).timestamp())
    windows = {
        "day": (gen.local(2026, 3, 9, 10, 0), gen.local(2026, 3, 10, 8, 30)),
        "week": (gen.local(2026, 3, 3, 8, 0), gen.local(2026, 3, 9, 9, 0)),
        "month": (gen.local(2026, 2, 20, 8, 0), gen.local(2026, 3, 2, 22, 0)),
        "old": (gen.local(2025, 5, 1, 8, 0), gen.local(2025, 8, 31, 22, 0)),
    }
    users: dict[str, dict[str, Any]] = {}

    def account(name: str, created: datetime, link: int, comment: int, **extra: Any) -> str:
        uid = gen.new_id("user")
        users[uid] = {"id": uid, "name": name, "created_utc": int(created.timestamp()), "link_karma": link,
                      "comment_karma": comment, "is_gold": False, "is_mod": False, "verified": True,
                      "has_verified_email": True, "is_suspended": False,
                      "icon_img": "https://styles.redditmedia.com/t5_" + gen.random_id("user.icon_img", "{alnum:6}")
                                  + "/styles/profileIcon_" + gen.random_id("user.icon_img", "{alnum:12}") + ".png",
                      **extra}
        return uid

    mine = _all(gen, "me", f"reddit_mine_{persona}")
    profile = next(i for i in mine if i["kind"] == "profile")
    subscribed = next(i for i in mine if i["kind"] == "subscriptions")
    me = account(profile["name"], _day(gen, profile["created"]), profile["link_karma"], profile["comment_karma"],
                 cast_id=gen.me.id)
    circle = []
    for person in gen.people(2):
        name = gen.free_form("user.name", "reddit_handles", handle=person.handle,
                             num=gen.random_id("user.name", "{digits:2}"))
        circle.append(account(name, gen.moment(gen.local(2015, 1, 1), gen.local(2023, 12, 31), step_minutes=1440),
                              rng.randint(10, 900), rng.randint(50, 4000), cast_id=person.id))
    strangers = []
    moderator = ""
    for item in _all(gen, "user.name", "reddit_usernames"):
        uid = account(item["name"], gen.moment(gen.local(2011, 1, 1), gen.local(2024, 6, 30), step_minutes=1440),
                      rng.randint(1, 60000), rng.randint(10, 120000))
        if item["name"] == MODERATOR:
            moderator = uid
            users[uid]["is_mod"] = True
        else:
            strangers.append(uid)
    [suspended] = gen.link("user.is_suspended", sorted(strangers), 1)
    users[suspended]["is_suspended"] = True

    subreddits: dict[str, dict[str, Any]] = {}
    by_name: dict[str, dict[str, Any]] = {}
    for item in _all(gen, "subreddit", "reddit_subreddits"):
        sid = gen.new_id("subreddit")
        flairs = {}
        for position, (text, mod_only) in enumerate(item["flairs"]):
            fid = gen.new_id("flair")
            flairs[fid] = {"id": fid, "text": text, "mod_only": mod_only, "text_editable": False,
                           "css_class": text.lower().replace(" ", "-").replace("/", "").replace("?", ""),
                           "background_color": gen.enumerate("flair.background_color", FLAIR_COLORS),
                           "text_color": "light", "position": position}
        sr: dict[str, Any] = {
            "id": sid, "display_name": item["display_name"], "title": item["title"],
            "public_description": item["public_description"], "subscribers": item["subscribers"],
            "subreddit_type": item["subreddit_type"], "submission_type": item["submission_type"],
            "link_flair_required": item["link_flair_required"], "over18": False,
            "created_utc": int(_day(gen, item["created"]).timestamp()),
            "user_is_subscriber": item["display_name"] in subscribed["subreddits"],
            "user_is_contributor": False, "user_is_moderator": False, "user_is_banned": False,
            "flairs": flairs,
        }
        flair_text = subscribed["flairs"].get(item["display_name"])
        if flair_text:
            sr["user_flair"] = {"text": flair_text, "css_class": None,
                                "template_id": gen.random_id("subreddit.user_flair", "{uuid}")}
        subreddits[sid] = sr
        by_name[item["display_name"]] = sr

    posts: dict[str, dict[str, Any]] = {}

    def add_post(item: dict[str, Any], author: str, created: int, score: int) -> dict[str, Any]:
        sr = by_name[item["subreddit"]]
        pid = gen.new_id("post")
        post: dict[str, Any] = {
            "id": pid, "author_id": author, "subreddit_id": sr["id"], "title": item["title"],
            "is_self": "url" not in item, "created_utc": created, "score": score,
            "upvote_ratio": gen.enumerate("post.upvote_ratio", RATIOS), "locked": item.get("locked", False),
            "archived": item.get("age") == "old", "stickied": item.get("stickied", False), "over_18": False,
            "spoiler": False, "deleted": False, "edited": False,
        }
        if "url" in item:
            post["url"] = item["url"]
            post["domain"] = item["url"].split("/")[2].removeprefix("www.")
        else:
            post["selftext"] = item["selftext"]
        flair = next((f for f in sr["flairs"].values() if f["text"] == item.get("flair")), None)
        if flair is not None:
            post["link_flair_template_id"] = flair["id"]
            post["link_flair_text"] = flair["text"]
        post["comments"] = {}
        posts[pid] = post
        return post

    def add_comments(post: dict[str, Any], specs: list[dict[str, Any]], parent: str | None, after: int,
                     op: str) -> None:
        for spec in specs:
            if spec.get("op"):
                author = op
            elif spec.get("circle"):
                author = gen.link("comment.author_id", circle)[0]
            else:
                author = gen.link("comment.author_id", [s for s in strangers if s != post["author_id"]])[0]
            created = min(after + rng.randint(4, 300) * 60, now - 120)
            cid = gen.new_id("comment")
            comment: dict[str, Any] = {"id": cid, "author_id": author, "body": spec["body"], "created_utc": created,
                                       "score": rng.randint(1, 120), "edited": False, "deleted": False,
                                       "stickied": False}
            if parent:
                comment["parent_comment_id"] = parent
            post["comments"][cid] = comment
            add_comments(post, spec["replies"], cid, created, op)
            after = created

    for item in _all(gen, "post", "reddit_threads"):
        start, end = windows[item["age"]]
        created = int(gen.moment(start, end, step_minutes=1).timestamp())
        author = moderator if item["stickied"] else gen.link("post.author_id", strangers)[0]
        post = add_post(item, author, created, rng.randint(*item["score"]))
        add_comments(post, item["comments"], None, created, author)

    for item in (i for i in mine if i["kind"] == "post"):
        created = int(datetime.strptime(item["when"], "%Y-%m-%d %H:%M").replace(tzinfo=gen.tz).timestamp())
        post = add_post(item, me, created, item["score"])
        add_comments(post, item["comments"], None, created, me)

    for item in (i for i in mine if i["kind"] == "comment"):
        [post] = [p for p in posts.values() if p["title"] == item["on"]]
        created = int(datetime.strptime(item["when"], "%Y-%m-%d %H:%M").replace(tzinfo=gen.tz).timestamp())
        cid = gen.new_id("comment")
        post["comments"][cid] = {"id": cid, "author_id": me, "body": item["body"], "created_utc": created,
                                 "score": item["score"], "edited": False, "deleted": False, "stickied": False}
        add_comments(post, item["replies"], cid, created, me)

    return {
        "me": me,
        "users": users,
        "subreddits": subreddits,
        "posts": dict(sorted(posts.items(), key=lambda kv: (kv[1]["created_utc"], kv[0]))),
    }


def _day(gen: Gen, text: str) -> datetime:
    return datetime.strptime(text, "%Y-%m-%d").replace(tzinfo=gen.tz)
