"""Context generation for the Slack app: one workspace per persona's organization.

The workspace's channels, threads, DMs and reminders come from an authentic, sanitized
corpus per organization (``slack_workspace_<slug>.json``), whose texts name people by
cast id (``<@song_ke>``) and channels by name (``<#marketing>``); the generator turns
those into Slack mentions with the generated ids. Ids, message times, reaction users,
display names and statuses are drawn here.
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta
from typing import Any

from mcp_persona.contextgen import Gen, Person

# The workspace corpus of each organization of the cast.
_SLUG = {"Orbit Lab": "orbitlab", "Eastlake University": "eastlake", "Lumipay": "lumipay"}
_TZ_LABEL = {"Asia/Shanghai": "China Standard Time", "Asia/Singapore": "Singapore Standard Time"}
_STATUSES = [
    ("", ""),
    ("", ""),
    ("", ""),
    ("In meetings", ":spiral_calendar_pad:"),
    ("Focus time, slow to respond", ":headphones:"),
    ("Working remotely", ":house_with_garden:"),
    ("Commuting", ":bus:"),
]
_MENTION = re.compile(r"<@([a-z_]+)>")
_CHANNEL_REF = re.compile(r"<#([a-z0-9-]+)>")


def generate(persona: str, gen: Gen) -> dict[str, Any]:
    ws = gen.authentic("team", f"slack_workspace_{_SLUG[gen.me.organization]}", 1)[0]
    now = gen.local(2026, 3, 10, 9, 30)
    team_id = gen.random_id("team.id", "T{upper:10}")
    people = [gen.me, *gen.circle]
    uid = {p.id: gen.new_id("user") for p in people}
    users: dict[str, Any] = {}
    away = gen.link("user.profile.status_text", [p for p in gen.circle if not p.left_company], 1)[0]
    for p in people:
        users[uid[p.id]] = _person(gen, p, uid[p.id], team_id, ws, away=p is away)
    for bot in ws["bots"]:
        bot_id = gen.new_id("user")
        users[bot_id] = _bot(gen, bot, bot_id, team_id)

    active = [uid[p.id] for p in people if not p.left_company]
    left = {uid[p.id] for p in people if p.left_company}
    channels: dict[str, Any] = {}
    by_name: dict[str, str] = {}
    for spec in ws["channels"]:
        cid = gen.new_id("channel")
        by_name[spec["name"]] = cid
        members = active if spec["members"] == "all" else [uid[m] for m in spec["members"] if uid[m] not in left]
        created = _stamp(gen.moment(gen.local(2024, 3, 1), gen.local(2025, 12, 20), step_minutes=60))
        purpose_set = created + 60
        channels[cid] = {
            "id": cid,
            "name": spec["name"],
            "is_channel": True,
            "is_im": False,
            "is_mpim": False,
            "is_private": bool(spec.get("is_private")),
            "is_archived": bool(spec.get("is_archived")),
            "is_general": bool(spec.get("is_general")),
            "created": created,
            "creator": uid[spec["creator"]],
            "topic": {"value": spec["topic"], "creator": uid[spec["creator"]] if spec["topic"] else "",
                      "last_set": purpose_set if spec["topic"] else 0},
            "purpose": {"value": spec["purpose"], "creator": uid[spec["creator"]], "last_set": purpose_set},
            "members": members,
            "messages": {},
        }

    def text_of(raw: str) -> str:
        raw = _MENTION.sub(lambda m: f"<@{uid[m.group(1)]}>", raw)
        return _CHANNEL_REF.sub(lambda m: f"<#{by_name[m.group(1)]}|{m.group(1)}>", raw)

    for item in gen.authentic("message.text", f"slack_workspace_{_SLUG[gen.me.organization]}", 1)[0]["threads"]:
        ch = channels[by_name[item["channel"]]]
        start = _day_time(gen, item["day"], now)
        author = uid[item["by"]]
        msg: dict[str, Any] = {"ts": _ts(gen, start, ch["messages"]), "type": "message", "user": author,
                               "text": text_of(item["text"])}
        reactions = []
        for name in item.get("reactions", []):
            pool = [m for m in ch["members"] if m != author]
            k = gen.rng.randint(1, min(4, len(pool)))
            who = gen.link("message.reactions.users", pool, k)
            reactions.append({"name": name, "users": who, "count": len(who)})
        if reactions:
            msg["reactions"] = reactions
        replies: dict[str, Any] = {}
        last = min(start + timedelta(hours=5), now - timedelta(minutes=3))
        times = sorted(gen.moment(start + timedelta(minutes=2), last, step_minutes=1) for _ in item.get("replies", []))
        for when, rep in zip(times, item.get("replies", []), strict=True):
            ts = _ts(gen, when, replies, floor=msg["ts"])
            replies[ts] = {"ts": ts, "type": "message", "user": uid[rep["by"]], "text": text_of(rep["text"])}
        if replies:
            msg["replies"] = replies
        ch["messages"][msg["ts"]] = msg

    me = uid[gen.me.id]
    for dm in ws["dms"]:
        other = uid[dm["with"]]
        did = gen.random_id("channel.id", "D{upper:10}")
        messages: dict[str, Any] = {}
        times = sorted(_day_time(gen, m["day"], now) for m in dm["messages"])
        for when, m in zip(times, dm["messages"], strict=True):
            ts = _ts(gen, when, messages)
            messages[ts] = {"ts": ts, "type": "message", "user": uid[m["by"]], "text": text_of(m["text"])}
        channels[did] = {
            "id": did,
            "is_channel": False,
            "is_im": True,
            "is_mpim": False,
            "is_private": True,
            "is_archived": False,
            "user": other,
            "is_user_deleted": other in left,
            "created": _stamp(gen.moment(gen.local(2025, 1, 5), gen.local(2026, 2, 1), step_minutes=60)),
            "members": [me, other],
            "messages": messages,
        }

    reminders: dict[str, Any] = {}
    for spec in ws["reminders"]:
        rid = gen.new_id("reminder")
        at = _stamp(datetime.strptime(spec["at"], "%Y-%m-%d %H:%M").replace(tzinfo=gen.tz))
        rem: dict[str, Any] = {"id": rid, "creator": uid[spec["by"]], "user": uid[spec["for"]], "text": spec["text"],
                               "recurring": bool(spec.get("recurring"))}
        if spec.get("recurring"):
            rem["recurrence"] = {"frequency": "weekly", "weekdays": spec["recurring"]}
        rem["time"] = at
        rem["complete_ts"] = at + gen.rng.randint(1, 40) * 60 if spec.get("done") else 0
        reminders[rid] = rem

    return {
        "description": f"Slack workspace {ws['team_name']} of {gen.me.name} ({gen.me.title})",
        "me": me,
        "team": {"id": team_id, "name": ws["team_name"], "domain": ws["domain"]},
        "custom_emoji": ws["custom_emoji"],
        "users": users,
        "channels": channels,
        "reminders": reminders,
    }


def _stamp(dt: datetime) -> int:
    return int(dt.timestamp())


def _day_time(gen: Gen, day: str, now: datetime) -> datetime:
    d = datetime.strptime(day, "%Y-%m-%d")
    start = gen.local(d.year, d.month, d.day, 9, 0)
    end = min(gen.local(d.year, d.month, d.day, 18, 30), now - timedelta(minutes=20))
    if end <= start:  # the morning of "today": before the task's now
        start = gen.local(d.year, d.month, d.day, 8, 0)
    return gen.moment(start, end, step_minutes=1)


def _ts(gen: Gen, when: datetime, taken: dict[str, Any], floor: str = "") -> str:
    while True:
        ts = f"{_stamp(when)}.{gen.random_id('message.ts', '{digits:6}')}"
        if ts not in taken and ts > floor:
            return ts


def _person(gen: Gen, p: Person, user_id: str, team_id: str, ws: dict[str, Any], *, away: bool) -> dict[str, Any]:
    username = p.email.split("@")[0]
    display = gen.enumerate("user.profile.display_name", [p.name, p.handle, username])
    if p.left_company:
        status_text, status_emoji = "", ""
    elif away:
        day = gen.enumerate("user.profile.status_text.day", ["Mar 11", "Mar 12", "Mar 13", "Mar 16"])
        status_text, status_emoji = gen.free_form("user.profile.status_text", "slack_status", day=day), ":palm_tree:"
    else:
        status_text, status_emoji = gen.enumerate("user.profile.status_text", _STATUSES)
    avatar = gen.random_id("user.profile.avatar_hash", "{hex:12}")
    first, _, last = p.name.partition(" ")
    offset = int(gen.local(2026, 3, 10).utcoffset().total_seconds())  # type: ignore[union-attr]
    admins = ws["admins"]
    return {
        "id": user_id,
        "team_id": team_id,
        "name": username,
        "deleted": p.left_company,
        "real_name": p.name,
        "tz": p.timezone,
        "tz_label": _TZ_LABEL.get(p.timezone, p.timezone),
        "tz_offset": offset,
        "is_admin": p.id in admins,
        "is_owner": p.id == admins[0],
        "is_bot": False,
        "is_app_user": False,
        "updated": _stamp(gen.moment(gen.local(2025, 6, 1), gen.local(2026, 3, 1), step_minutes=60)),
        "profile": {
            "title": p.title,
            "phone": p.mobile,
            "real_name": p.name,
            "real_name_normalized": p.name,
            "display_name": display,
            "display_name_normalized": display,
            "first_name": first,
            "last_name": last,
            "email": p.email,
            "status_text": status_text,
            "status_emoji": status_emoji,
            "status_expiration": 0,
            "avatar_hash": avatar,
            "image_72": f"https://avatars.slack-edge.com/2025-06-01/{user_id.lower()}_{avatar}_72.png",
            "team": team_id,
        },
    }


def _bot(gen: Gen, bot: dict[str, str], user_id: str, team_id: str) -> dict[str, Any]:
    bot_id = gen.random_id("user.profile.bot_id", "B{upper:10}")
    app_id = gen.random_id("user.profile.api_app_id", "A{upper:10}")
    avatar = gen.random_id("user.profile.avatar_hash", "{hex:12}")
    return {
        "id": user_id,
        "team_id": team_id,
        "name": bot["name"],
        "deleted": False,
        "real_name": bot["real_name"],
        "tz": "America/Los_Angeles",
        "tz_label": "Pacific Standard Time",
        "tz_offset": -28800,
        "is_admin": False,
        "is_owner": False,
        "is_bot": True,
        "is_app_user": False,
        "updated": _stamp(gen.moment(gen.local(2025, 1, 1), gen.local(2026, 1, 1), step_minutes=60)),
        "profile": {
            "real_name": bot["real_name"],
            "real_name_normalized": bot["real_name"],
            "display_name": "",
            "display_name_normalized": "",
            "first_name": bot["real_name"],
            "last_name": "",
            "status_text": "",
            "status_emoji": "",
            "status_expiration": 0,
            "avatar_hash": avatar,
            "image_72": f"https://avatars.slack-edge.com/2025-01-01/{user_id.lower()}_{avatar}_72.png",
            "bot_id": bot_id,
            "api_app_id": app_id,
            "always_active": True,
            "team": team_id,
        },
    }
