"""Generate a persona's Telegram account: people, dialogs and their histories.

Who talks with whom, and what is said, comes from two authentic corpora per persona
(``telegram_people_<persona>``: outsiders met on Telegram; ``telegram_chats_<persona>``:
scripted dialogs naming the speakers, see :mod:`mcp_persona.apps._social.script`). Ids,
phone numbers, send times and usernames are generated; unread counts follow from the
scripts (everything after your own last message is unread).
"""

from __future__ import annotations

from typing import Any

from mcp_persona.apps._social import script
from mcp_persona.contextgen import Gen, Person

# total digits of a phone number (country code included), by country code
_PHONE_LEN = {"86": 13, "81": 12, "90": 12, "1": 11, "351": 12, "65": 10}


def generate(persona: str, gen: Gen) -> dict[str, Any]:
    people = script.roster(gen)
    outsiders = {o["key"]: o for o in script.all_items(gen, "user", f"telegram_people_{persona}")}
    taken: set[str] = set()
    users: dict[str, dict[str, Any]] = {}
    ids: dict[str, str] = {}  # roster key -> user id

    for key, person in people.items():
        uid = _user_id(gen, taken)
        ids[key] = uid
        users[uid] = _cast_user(gen, uid, person, me=key == script.ME)
    for key in sorted(outsiders):
        uid = _user_id(gen, taken)
        ids[key] = uid
        users[uid] = _outsider(gen, uid, outsiders[key])

    chats: dict[str, dict[str, Any]] = {}
    known = set(ids)
    for thread in sorted(script.all_items(gen, "chat", f"telegram_chats_{persona}"), key=lambda t: t["key"]):
        chat = _chat(gen, thread, ids, known, taken)
        chats[chat["id"]] = chat

    return {
        "context_id": persona,
        "description": gen.cast.personas[persona].description,
        "me": ids[script.ME],
        "users": users,
        "chats": chats,
    }


def _user_id(gen: Gen, taken: set[str]) -> str:
    while True:
        lead = gen.enumerate("user.id", "15678")
        uid = gen.random_id("user.id", lead + "{digits:9}")
        if uid not in taken:
            taken.add(uid)
            return uid


def _cast_user(gen: Gen, uid: str, person: Person, *, me: bool) -> dict[str, Any]:
    first, _, last = person.name.partition(" ")
    h = person.handle
    user: dict[str, Any] = {
        "id": uid,
        "first_name": first,
        "last_name": last,
        "username": gen.enumerate("user.username", [h, f"{h}_{person.city.lower()[:2]}", f"{h}_tg", f"{h}{uid[-2:]}"]),
        "phone_number": person.mobile.lstrip("+"),
        "is_contact": not me,
        "is_bot": False,
        "is_deleted": False,
    }
    user["bio"] = gen.free_form("user.bio", "telegram_bios", title=person.title, org=person.organization,
                                city=person.city)
    return user


def _outsider(gen: Gen, uid: str, o: dict[str, Any]) -> dict[str, Any]:
    user: dict[str, Any] = {"id": uid, "first_name": o["first_name"]}
    if o.get("last_name"):
        user["last_name"] = o["last_name"]
    if o.get("username"):
        user["username"] = o["username"]
    prefix = o.get("phone_prefix")
    if prefix:
        code = next(c for c in sorted(_PHONE_LEN, key=len, reverse=True) if prefix.startswith(c))
        rest = _PHONE_LEN[code] - len(prefix)
        user["phone_number"] = gen.random_id("user.phone_number", f"{prefix}{{digits:{rest}}}")
    if o.get("bio"):
        user["bio"] = o["bio"]
    user |= {"is_contact": bool(o.get("contact")), "is_bot": False, "is_deleted": bool(o.get("deleted"))}
    return user


def _chat(gen: Gen, thread: dict[str, Any], ids: dict[str, str], known: set[str], taken: set[str]) -> dict[str, Any]:
    kind = thread["type"]
    chat: dict[str, Any] = {"type": kind}
    if kind == "private":
        peer = ids[thread["with"]]
        chat |= {"id": peer, "user_id": peer, "member_ids": [ids[script.ME], peer]}
    else:
        while True:
            if kind == "group":
                cid = gen.random_id("chat.id", "-4{digits:9}")
            else:
                cid = gen.random_id("chat.id", "-100" + gen.enumerate("chat.id", "123") + "{digits:9}")
            if cid not in taken:
                taken.add(cid)
                break
        members = [ids[k] for k in thread["members"]]
        chat |= {"id": cid, "title": thread["title"]}
        if thread.get("username"):
            chat["username"] = thread["username"]
        if thread.get("description"):
            chat["description"] = thread["description"]
        chat |= {"member_ids": members, "member_count": thread.get("member_count", len(members)),
                 "my_status": thread["my_status"]}
        if kind != "channel":
            chat["permissions"] = dict(thread["permissions"])
    chat["has_protected_content"] = bool(thread.get("protected"))

    lines = script.lay_out(gen, thread, known)
    top = gen.enumerate("message.message_id", range(40, 900)) if kind != "private" else gen.enumerate(
        "message.message_id", range(2, 120))
    messages: dict[str, dict[str, Any]] = {}
    for line in lines:
        mid = str(top + line.index)
        msg: dict[str, Any] = {"message_id": mid, "from_id": ids[line.who], "date": int(line.at.timestamp()),
                               "text": line.text}
        if "reply" in line.notes:
            msg["reply_to_message_id"] = top + line.notes["reply"]
        messages[mid] = msg
    mine = [line.index for line in lines if line.who == script.ME]
    unread = 0 if thread.get("read") else len(lines) - (mine[-1] + 1 if mine else 0)
    last_id = top + len(lines) - 1
    chat |= {
        "pinned_message_ids": [top + i for i in thread.get("pinned", [])],
        "unread_count": unread,
        "read_inbox_max_id": last_id - unread,
        "messages": messages,
    }
    return chat
