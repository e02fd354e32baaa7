"""Generate a persona's Instagram professional account: profile, posts with comments, Direct threads.

Authentic corpora per persona: ``instagram_account_<persona>`` (the account), ``instagram_people_<persona>``
(outsiders: followers, brands, editors), ``instagram_media_<persona>`` (posts with their comment
threads) and ``instagram_threads_<persona>`` (Direct conversations, laid out with
:mod:`mcp_persona.apps._social.script` so that some are inside the 24-hour messaging window and some
are not). The people of the persona's circle get accounts too. Ids, counts, times, shortcodes and
URLs are generated.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from mcp_persona.apps._social import script
from mcp_persona.apps.instagram import ids as ig_ids
from mcp_persona.contextgen import Gen

CDN = "https://scontent.cdninstagram.com/v/t51.29350-15"


def generate(persona: str, gen: Gen) -> dict[str, Any]:
    now = script.now(gen)
    account = gen.authentic("account", f"instagram_account_{persona}", 1)[0]
    users: dict[str, dict[str, Any]] = {}
    ids: dict[str, str] = {}

    me = gen.new_id("user")
    ids[script.ME] = me
    users[me] = {
        "id": me, "username": account["username"], "name": account["name"], "account_type": account["account_type"],
        "category": account["category"], "biography": account["biography"], "website": account["website"],
        "profile_picture_url": _picture(gen), "followers_count": gen.enumerate("user.followers_count",
                                                                               range(*account["followers"])),
        "follows_count": gen.enumerate("user.follows_count", range(*account["follows"])), "is_verified": False,
    }
    for key, person in script.roster(gen).items():
        if key == script.ME:
            continue
        uid = _igsid(gen)
        ids[key] = uid
        h = person.handle
        users[uid] = {
            "id": uid, "username": gen.enumerate("user.username", [h, f"{h}.{person.city.lower()}", f"{h}_ig",
                                                                   f"its.{h}"]),
            "name": person.name, "account_type": "PERSONAL", "profile_picture_url": _picture(gen),
            "followers_count": gen.enumerate("user.followers_count", range(120, 1500)),
            "follows_me": True, "followed_by_me": gen.enumerate("user.followed_by_me", [True, False]),
            "is_verified": False, "in_circle": True,
        }
    for o in sorted(script.all_items(gen, "user", f"instagram_people_{persona}"), key=lambda o: o["key"]):
        uid = gen.new_id("user") if o["account_type"] != "PERSONAL" else _igsid(gen)
        ids[o["key"]] = uid
        users[uid] = {
            "id": uid, "username": o["username"], "name": o["name"], "account_type": o["account_type"],
            "profile_picture_url": _picture(gen),
            "followers_count": gen.enumerate("user.followers_count", range(*o["followers"])),
            "follows_me": o["follows_me"], "followed_by_me": o["followed_by_me"],
            "is_verified": bool(o.get("verified")),
        }

    media: dict[str, dict[str, Any]] = {}
    for post in sorted(script.all_items(gen, "media", f"instagram_media_{persona}"), key=lambda p: p["key"]):
        item = _post(gen, post, me, ids, now)
        media[item["id"]] = item

    conversations: dict[str, dict[str, Any]] = {}
    for thread in sorted(script.all_items(gen, "conversation", f"instagram_threads_{persona}"),
                         key=lambda t: t["with"]):
        conv = _conversation(gen, thread, me, ids)
        conversations[conv["id"]] = conv

    return {
        "context_id": persona,
        "description": gen.cast.personas[persona].description,
        "me": me,
        "users": users,
        "media": media,
        "conversations": conversations,
    }


def _igsid(gen: Gen) -> str:
    """An Instagram-scoped id, as the messaging and comment APIs show people with personal accounts."""
    return gen.random_id("user.id", gen.enumerate("user.id", "5679") + "{digits:15}")


def _picture(gen: Gen) -> str:
    return f"{CDN}/{gen.random_id('user.profile_picture_url', '{digits:9}_{digits:17}')}_n.jpg"


def graph_time(at: datetime) -> str:
    return at.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S+0000")


def _post(gen: Gen, post: dict[str, Any], me: str, ids: dict[str, str], now: datetime) -> dict[str, Any]:
    lo, hi = post["ago_days"]
    at = gen.moment(now - timedelta(days=hi), now - timedelta(days=lo), step_minutes=1)
    mid = gen.new_id("media")
    code = gen.random_id("media.shortcode", "D{upper:3}{alnum:7}")
    kind = "reel" if post["product"] == "REELS" else "p"
    item: dict[str, Any] = {
        "id": mid, "owner_id": me, "caption": post["caption"], "media_type": post["media_type"],
        "media_product_type": post["product"],
        "media_url": f"{CDN}/{gen.random_id('media.media_url', '{digits:9}_{digits:17}')}_n."
                     + ("mp4" if post["media_type"] == "VIDEO" else "jpg"),
        "permalink": f"https://www.instagram.com/{kind}/{code}/", "shortcode": code, "timestamp": graph_time(at),
        "like_count": gen.enumerate("media.like_count", range(*post["likes"])),
        "is_comment_enabled": post.get("comments_enabled", True),
    }
    end = min(at + timedelta(days=2), now - timedelta(minutes=20))
    times = sorted(gen.moment(at + timedelta(minutes=4), end, step_minutes=1) for _ in post["comments"])
    comments: dict[str, dict[str, Any]] = {}
    for (who, text, *rest), when in zip(post["comments"], times, strict=True):
        notes = rest[0] if rest else {}
        cid = gen.new_id("comment")
        comments[cid] = {"id": cid, "text": text, "from_id": ids[who], "timestamp": graph_time(when),
                         "like_count": notes.get("likes", 0), "hidden": bool(notes.get("hidden"))}
        reply_at = when
        for r_who, r_text in notes.get("replies", []):
            reply_at = gen.moment(reply_at + timedelta(minutes=3), reply_at + timedelta(hours=3), step_minutes=1)
            rid = gen.new_id("comment")
            comments[rid] = {"id": rid, "text": r_text, "from_id": ids[r_who], "timestamp": graph_time(reply_at),
                             "like_count": 0, "hidden": False, "parent_id": cid}
    item["comments"] = comments
    return item


def _conversation(gen: Gen, thread: dict[str, Any], me: str, ids: dict[str, str]) -> dict[str, Any]:
    other = ids[thread["with"]]
    cid = ig_ids.conversation_id(me, gen.random_id("conversation.id", "{digits:38}"))
    messages: dict[str, dict[str, Any]] = {}
    last = ""
    for line in script.lay_out(gen, thread, set(ids)):
        sender = ids[line.who]
        mid = ig_ids.message_id(me, gen.random_id("message.id", "{digits:30}"))
        last = graph_time(line.at)
        messages[mid] = {"id": mid, "message": line.text, "from_id": sender, "to_id": other if sender == me else me,
                         "created_time": last}
    return {"id": cid, "participant_ids": [me, other], "updated_time": last, "messages": messages}
