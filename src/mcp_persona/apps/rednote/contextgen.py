"""Context generation for rednote: one Xiaohongshu account per persona.

The public side of the site (creators, casual commenters, their notes and comment threads) comes
from shared authentic corpora; the persona's own profile, notes and local media from
``rednote_mine_<persona>.json``; three people of the persona's circle have accounts (mutual follows)
and author the notes posted from the persona's city. The home feed recommends the topics the persona
cares about. Every note gets its own xsec_token; one note the persona favorited has since been deleted
by its author, and one note in the feed has comments closed.
"""

from __future__ import annotations

import json
from datetime import datetime
from importlib import resources
from typing import Any

from mcp_persona.apps.rednote.tools import CDN, XSEC_FORMAT
from mcp_persona.contextgen import Gen, Person

INTERESTS = {
    "chen_yu": {"food", "travel", "work", "life"},
    "lin_wei": {"study", "tech", "food", "travel"},
    "maya_patel": {"sg", "work", "travel", "food"},
}
HOME = {"chen_yu": "上海", "lin_wei": "杭州", "maya_patel": "新加坡"}
# the IP location the site shows (province level in China)
PROVINCE = {"上海": "上海", "杭州": "浙江", "北京": "北京", "云南": "云南", "新加坡": "新加坡", "日本": "日本",
            "Shanghai": "上海", "Hangzhou": "浙江", "Singapore": "新加坡"}
IMAGE_SIZES = [(1080, 1440), (1080, 1350), (1440, 1080), (1080, 1080)]


def _corpus_size(name: str) -> int:
    path = resources.files("mcp_persona") / "data" / "corpus" / "authentic" / f"{name}.json"
    return len(json.loads(path.read_text(encoding="utf-8")))


def _all(gen: Gen, field: str, corpus: str) -> list[dict[str, Any]]:
    return gen.authentic(field, corpus, _corpus_size(corpus))


def _ms(moment: datetime) -> int:
    return int(moment.timestamp()) * 1000


def generate(persona: str, gen: Gen) -> dict[str, Any]:
    now = gen.local(2026, 3, 10, 9, 30)
    windows = {
        "day": (gen.local(2026, 3, 9, 10, 0), gen.local(2026, 3, 10, 9, 0)),
        "week": (gen.local(2026, 3, 3, 8, 0), gen.local(2026, 3, 9, 9, 0)),
        "month": (gen.local(2026, 2, 20, 8, 0), gen.local(2026, 3, 2, 22, 0)),
        "old": (gen.local(2025, 6, 1, 8, 0), gen.local(2025, 8, 31, 22, 0)),
    }
    users: dict[str, dict[str, Any]] = {}
    rng = gen.rng

    def account(nickname: str, desc: str, ip: str, gender: int, *, followed: bool, fans: tuple[int, int],
                **extra: Any) -> str:
        uid = gen.new_id("user")
        fan_count = rng.randint(*fans)
        users[uid] = {
            "user_id": uid,
            "nickname": nickname,
            "desc": desc,
            "red_id": gen.random_id("user.red_id", "{digits:10}"),
            "gender": gender,
            "ip_location": ip,
            "avatar": "https://sns-avatar-qc.xhscdn.com/avatar/" + gen.random_id("user.avatar", "{hex:24}")
                      + ".jpg?imageView2/2/w/120/format/jpg",
            "xsec_token": gen.random_id("user.xsec_token", XSEC_FORMAT),
            "follows": rng.randint(30, 400),
            "fans": fan_count,
            "interaction": fan_count * rng.randint(3, 12),
            "followed": followed,
            "follows_me": False,
            "fav_public": True,
            "liked_public": True,
            "liked_note_ids": [],
            "collected_note_ids": [],
            **extra,
        }
        return uid

    mine = _all(gen, "me.profile", f"rednote_mine_{persona}")
    profile = next(i for i in mine if i["kind"] == "profile")
    me = account(profile["nickname"], profile["desc"], profile["ip_location"], profile["gender"], followed=False,
                 fans=(180, 1200), cast_id=gen.me.id)

    circle: list[str] = []
    for person in gen.people(3):
        circle.append(_circle_account(gen, account, person))
    creators = {}
    for item in _all(gen, "user.creator", "rednote_creators"):
        uid = account(item["nickname"], item["desc"], item["ip_location"], item["gender"],
                      followed=gen.enumerate("user.followed", [True, False, False]), fans=(8000, 260000))
        creators[uid] = item["topics"]
    commenters = [account(c["nickname"], "", c["ip_location"], c["gender"], followed=False, fans=(0, 300))
                  for c in _all(gen, "user.commenter", "rednote_commenters")]
    crowd = commenters + list(creators) + circle

    notes: dict[str, dict[str, Any]] = {}

    def add_note(item: dict[str, Any], author: str, when: datetime, *, liked: tuple[int, int],
                 ip: str, who: dict[str, list[str]]) -> dict[str, Any]:
        nid = gen.new_id("note")
        stamp = f"{when:%Y%m%d%H%M}"
        images = []
        for _ in range(item["images"]):
            width, height = gen.enumerate("note.images.size", IMAGE_SIZES)
            images.append({"url": f"{CDN}/{stamp}/{gen.random_id('note.images', '{hex:32}')}/"
                                  f"{gen.random_id('note.images', '1040g{alnum:27}')}!nd_dft_wlteh_webp_3",
                           "width": width, "height": height})
        likes = rng.randint(*liked)
        threads = item.get("comments", [])
        total = sum(1 + len(t["replies"]) for t in threads)
        note: dict[str, Any] = {
            "note_id": nid,
            "author_id": author,
            "type": item["type"],
            "title": item["title"],
            "desc": item["desc"],
            "tags": item["tags"],
            "time": _ms(when),
            "ip_location": ip,
            "images": images,
            "liked_count": likes,
            "collected_count": likes * rng.randint(20, 90) // 100,
            "comment_count": max(total, likes * rng.randint(2, 12) // 100),
            "shared_count": likes * rng.randint(1, 15) // 100,
            "liked": False,
            "collected": False,
            "viewed": False,
            "xsec_token": gen.random_id("note.xsec_token", XSEC_FORMAT),
            "status": "normal",
            "visibility": item.get("visibility", "公开可见"),
            "in_homefeed": False,
            "comments_disabled": False,
            "publish_status": "published",
        }
        if item["type"] == "video":
            stream = gen.random_id("note.video", "{hex:32}")
            note["video"] = {"duration": item["duration"], "width": 1080, "height": 1920,
                             "url": f"https://sns-video-bd.xhscdn.com/stream/{stream}.mp4"}
        note["comments"] = _comments(gen, note, threads, author, who, users, now)
        notes[nid] = note
        return note

    home = HOME[persona]
    for item in _all(gen, "note", "rednote_notes"):
        start, end = windows[item["age"]]
        when = gen.moment(start, end)
        local_author = item["city"] == home and gen.enumerate("note.author_kind", ["circle", "creator", "creator"])
        if local_author == "circle":
            author = gen.link("note.author_id", circle)[0]
        else:
            province = PROVINCE.get(item["city"], item["city"])
            topical = [u for u, topics in creators.items() if item["topic"] in topics]
            fitting = [u for u in topical if users[u]["ip_location"] == province] or topical or list(creators)
            author = gen.link("note.author_id", fitting)[0]
        pool = [u for u in crowd if u != author]
        note = add_note(item, author, when, liked=(40, 26000), ip=PROVINCE.get(item["city"], item["city"]),
                        who={"any": pool, "circle": [c for c in circle if c != author] or pool})
        if item["topic"] in INTERESTS[persona]:
            note["in_homefeed"] = True
            note["viewed"] = gen.enumerate("note.viewed", [True, False, False])
            note["liked"] = gen.enumerate("note.liked", [True, False, False])
            note["collected"] = gen.enumerate("note.collected", [True, False, False, False])

    feed = [n for n in notes.values() if n["in_homefeed"]]
    rng.shuffle(feed)
    for rank, note in enumerate(feed):
        note["feed_rank"] = rank
    outside = sorted((n for n in notes.values() if not n["in_homefeed"]), key=lambda n: n["note_id"])
    [gone] = gen.link("note.status", outside, 1)
    gone.update(status="deleted", collected=True, in_homefeed=False)
    [closed] = gen.link("note.comments_disabled", sorted(feed, key=lambda n: n["note_id"]), 1)
    closed["comments_disabled"] = True

    for item in (i for i in mine if i["kind"] == "note"):
        when = datetime.strptime(item["when"], "%Y-%m-%d %H:%M").replace(tzinfo=gen.tz)
        note = add_note(item, me, when, liked=tuple(item["likes"]), ip=profile["ip_location"],
                        who={"any": commenters + list(creators), "circle": circle})
        note["viewed"] = True

    others = sorted(n["note_id"] for n in notes.values() if n["status"] == "normal" and n["author_id"] != me)
    for uid in circle:
        users[uid]["liked_note_ids"] = sorted(gen.link("user.liked_note_ids", others, 4))
        users[uid]["collected_note_ids"] = sorted(gen.link("user.collected_note_ids", others, 3))

    local_files = []
    for item in (i for i in mine if i["kind"] == "media"):
        entry = {"path": item["path"], "kind": item["media"]}
        if item["media"] == "video":
            entry["duration"] = item["duration"]
        local_files.append(entry)
    local_files.sort(key=lambda f: f["path"])

    return {
        "me": me,
        "local_files": local_files,
        "sessions": {"web": {"session_id": "web", "user_id": me, "logged_in": True,
                             "cookie_path": "/tmp/cookies.json"}},
        "users": users,
        "notes": dict(sorted(notes.items(), key=lambda kv: (kv[1]["time"], kv[0]))),
    }


def _circle_account(gen: Gen, account: Any, person: Person) -> str:
    city = PROVINCE.get(person.city, person.city)
    return account(
        gen.free_form("user.nickname", "rednote_nicknames", handle=person.handle),
        gen.free_form("user.desc", "rednote_bios", city=city, title=person.title),
        city,
        gen.enumerate("user.gender", [0, 1]),
        followed=True,
        fans=(60, 900),
        follows_me=True,
        fav_public=gen.enumerate("user.fav_public", [True, False]),
        liked_public=gen.enumerate("user.liked_public", [True, True, False]),
        cast_id=person.id,
    )


def _comments(gen: Gen, note: dict[str, Any], threads: list[dict[str, Any]], author: str,
              who: dict[str, list[str]], users: dict[str, dict[str, Any]], now: datetime) -> dict[str, Any]:
    """The note's comment threads: top-level comments by the crowd, replies by the author or others."""
    out: dict[str, Any] = {}
    cursor = note["time"]
    end = _ms(now) - 60_000
    for thread in threads:
        [uid] = gen.link("comment.user_id", who[thread.get("who", "any")])
        cursor = min(cursor + gen.rng.randint(5, 600) * 60_000, end)
        root = _comment(gen, uid, thread["text"], cursor, users, like=(0, 400))
        out[root["comment_id"]] = root
        for reply in thread["replies"]:
            replier = author if reply["author"] else gen.link("comment.user_id", [u for u in who["any"] if u != uid])[0]
            cursor = min(cursor + gen.rng.randint(3, 300) * 60_000, end)
            sub = _comment(gen, replier, reply["text"], cursor, users, like=(0, 60))
            sub.update(root_comment_id=root["comment_id"], target_comment_id=root["comment_id"], target_user_id=uid)
            out[sub["comment_id"]] = sub
    return out


def _comment(gen: Gen, uid: str, text: str, when_ms: int, users: dict[str, dict[str, Any]],
             like: tuple[int, int]) -> dict[str, Any]:
    cid = gen.new_id("comment")
    return {"comment_id": cid, "user_id": uid, "content": text, "create_time": when_ms,
            "ip_location": users[uid]["ip_location"], "like_count": gen.rng.randint(*like), "liked": False}
