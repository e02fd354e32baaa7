"""Context generation for the WeCom app: the group bots of one persona's organization.

Groups, their messages, the local files the bot server can read and earlier uploads come from
an authentic, sanitized corpus per organization (``wecom_workspace_<slug>.json``); ids,
webhook keys, message times, the corp id and creation times are drawn here.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from mcp_persona.contextgen import Gen, Person

_SLUG = {"Orbit Lab": "orbitlab", "Eastlake University": "eastlake", "Lumipay": "lumipay"}
ACTIVE, EXITED = 1, 5  # WeCom member status: activated / left the corp


def userid(p: Person) -> str:
    """WeCom userids are set by the corp admin; these corps use the name in CamelCase."""
    return "".join(part.capitalize() for part in p.name.split())


def generate(persona: str, gen: Gen) -> dict[str, Any]:
    corpus = f"wecom_workspace_{_SLUG[gen.me.organization]}"
    ws = gen.authentic("corp", corpus, 1)[0]
    now = gen.local(2026, 3, 10, 9, 30)
    people = {p.id: p for p in [gen.me, *gen.circle]}
    uid = {pid: userid(p) for pid, p in people.items()}
    users = {
        uid[pid]: {
            "userid": uid[pid],
            "name": p.name,
            "mobile": p.mobile,
            "email": p.email,
            "department": p.department,
            "position": p.title,
            "status": EXITED if p.left_company else ACTIVE,
        }
        for pid, p in people.items()
    }

    groups: dict[str, Any] = {}
    by_name: dict[str, str] = {}
    default_key = ""
    for spec in gen.authentic("group", corpus, 1)[0]["groups"]:
        chat_id = gen.new_id("group")
        key = gen.random_id("group.webhook_key", "{uuid}")
        by_name[spec["name"]] = chat_id
        if spec.get("default"):
            default_key = key
        messages: dict[str, Any] = {}
        times = sorted(_day_time(gen, m["day"], now) for m in spec["messages"])
        for when, m in zip(times, spec["messages"], strict=True):
            msgid = gen.new_id("message")
            messages[msgid] = _message(m, msgid, int(when.timestamp()), uid, spec["bot_name"])
        groups[chat_id] = {
            "chat_id": chat_id,
            "name": spec["name"],
            "owner": uid[spec["owner"]],
            "member_list": [uid[m] for m in spec["members"] if not people[m].left_company],
            "create_time": int(gen.moment(gen.local(2024, 9, 1), gen.local(2026, 1, 31), step_minutes=60).timestamp()),
            "notice": spec["notice"],
            "bot_name": spec["bot_name"],
            "webhook_key": key,
            "messages": messages,
        }

    home = ws["home"]
    local_files = {}
    for f in gen.authentic("local_file", corpus, 1)[0]["local_files"]:
        path = f"{home}/{f['path']}"
        modified = gen.moment(gen.local(2026, 2, 20), gen.local(2026, 3, 9, 23), step_minutes=1)
        local_files[path] = {"path": path, "size": f["size"], "modified": int(modified.timestamp())}

    media = {}
    for up in ws["uploads"]:
        media_id = gen.new_id("media")
        at = datetime.strptime(up["at"], "%Y-%m-%d %H:%M").replace(tzinfo=gen.tz)
        path = f"{home}/{up['file']}"
        media[media_id] = {
            "media_id": media_id,
            "type": "file",
            "filename": path.rsplit("/", 1)[-1],
            "size": local_files[path]["size"],
            "file_path": path,
            "created_at": int(at.timestamp()),
            "webhook_key": groups[by_name[up["group"]]]["webhook_key"],
        }

    return {
        "description": f"WeCom group bots of {gen.me.name} ({ws['corp_name']})",
        "me": uid[gen.me.id],
        "corp": {"corpid": gen.random_id("corp.corpid", "ww{hex:16}"), "name": ws["corp_name"]},
        "default_key": default_key,
        "users": users,
        "groups": groups,
        "media": media,
        "local_files": local_files,
    }


def _day_time(gen: Gen, day: str, now: datetime) -> datetime:
    d = datetime.strptime(day, "%Y-%m-%d")
    start = gen.local(d.year, d.month, d.day, 9, 0)
    end = min(gen.local(d.year, d.month, d.day, 19, 0), now - timedelta(minutes=15))
    if end <= start:
        start = gen.local(d.year, d.month, d.day, 8, 0)
    return gen.moment(start, end, step_minutes=1)


def _message(m: dict[str, Any], msgid: str, at: int, uid: dict[str, str], bot_name: str) -> dict[str, Any]:
    msg: dict[str, Any] = {"msgid": msgid, "msgtype": m["msgtype"], "send_time": at}
    if m["by"] == "bot":
        msg |= {"sender_type": "bot", "bot_name": bot_name}
    else:
        msg |= {"sender_type": "user", "sender": uid[m["by"]]}
    if m["msgtype"] == "text":
        msg["text"] = {"content": m["content"], "mentioned_list": [uid[p] for p in m.get("mentioned", [])],
                       "mentioned_mobile_list": []}
    elif m["msgtype"] == "markdown":
        msg["markdown"] = {"content": m["content"]}
    elif m["msgtype"] == "news":
        msg["news"] = {"articles": [{"title": m["title"], "description": m["description"], "url": m["url"],
                                     "picurl": m["picurl"]}]}
    else:
        raise ValueError(f"corpus message type {m['msgtype']!r} is not generated")
    return msg
