"""Generate a persona's Lark tenant (paper §3.2): the contact directory, calendars with events and attendees,
group and one-to-one chats with members and messages.

The hand-curated contexts (``chen_yu`` ...) stay as they are; generated ones are ``gen_<persona>``. Values
come from the four methods: Enumerate (calendar permissions and colours, RSVP states, locations, visibility),
Free-Form (calendar descriptions, direct messages), Random (open_id, user_id, union_id, calendar, event,
attendee, chat and message ids in Lark's formats) and Authentic (events, group chats and their messages, the
topics people talk about, for the persona's line of work). People are the shared cast, with their names,
emails and mobiles; coworkers who left the company are resigned users.
"""

from __future__ import annotations

import json
from datetime import datetime, timedelta
from typing import Any

from mcp_persona.contextgen.cast import Person
from mcp_persona.contextgen.gen import Gen

CONTEXT_PREFIX = "gen_"
DOMAINS = {"Orbit Lab": "marketing", "Eastlake University": "research", "Lumipay": "product"}
TEAMS = {"marketing": "Marketing", "research": "Vision & Language Lab", "product": "Payments"}
ORG_CALENDARS = {"marketing": "Company Events", "research": "CS Department Seminars",
                 "product": "Lumipay Company Events"}
COLORS = (-1, -14513409, -5321505, -2448128, -11645262)
WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday")


def _ts(dt: datetime) -> str:
    return str(int(dt.timestamp()))


def _slots(gen: Gen, first: int, last: int) -> list[datetime]:
    """Meeting start times on the weekdays of March ``first``..``last`` (local time)."""
    out = []
    for day in range(first, last + 1):
        d = gen.local(2026, 3, day)
        if d.weekday() < 5:
            out += [gen.local(2026, 3, day, h, m) for h, m in ((10, 0), (11, 0), (14, 0), (15, 30), (16, 30))]
    return out


def generate(persona: str, gen: Gen) -> dict[str, Any]:
    me = gen.me
    domain = DOMAINS.get(me.organization, "product")
    tz = gen.cast.personas[persona].timezone

    # -- the directory: the persona and every coworker of the circle ----------------------------------
    users: dict[str, dict[str, Any]] = {}
    open_ids: dict[str, str] = {}
    for p in [me, *gen.circle]:
        oid = gen.new_id("user")
        open_ids[p.id] = oid
        users[oid] = {
            "open_id": oid, "user_id": gen.random_id("user.user_id", "{alnum:8}"),
            "union_id": gen.random_id("user.union_id", "on_{hex:32}"), "name": p.name, "en_name": p.name,
            "email": p.email, "mobile": p.mobile, "department": p.department, "job_title": p.title,
            "is_resigned": p.left_company, "city": p.city,
        }
    me_id = open_ids[me.id]
    active = [p for p in gen.circle if not p.left_company]
    lead = next((p for p in active if any(w in p.title for w in ("Director", "Head", "Professor", "Manager"))),
                active[0])

    # -- calendars --------------------------------------------------------------------------------------
    created = _ts(gen.local(2026, 1, 5, 9))
    primary = gen.new_id("calendar")
    team_cal = gen.new_id("calendar")
    org_cal = gen.new_id("calendar")
    team_name = TEAMS[domain]
    calendars: dict[str, dict[str, Any]] = {
        primary: {"calendar_id": primary, "summary": me.name, "description": "", "type": "primary", "role": "owner",
                  "permissions": gen.enumerate("calendar.permissions", ["show_only_free_busy", "private"]),
                  "owner_id": me_id, "color": -1, "events": {}},
        team_cal: {"calendar_id": team_cal, "summary": team_name,
                   "description": gen.free_form("calendar.description", "lark_calendar_description", team=team_name),
                   "type": "shared", "role": "writer", "permissions": "public", "owner_id": open_ids[lead.id],
                   "color": gen.enumerate("calendar.color", COLORS), "events": {}},
        org_cal: {"calendar_id": org_cal, "summary": ORG_CALENDARS[domain], "description": "",
                  "type": "shared", "role": "reader", "permissions": "public", "owner_id": open_ids[lead.id],
                  "color": gen.enumerate("calendar.color", COLORS), "events": {}},
    }

    def event(cal: str, item: dict[str, Any], start: datetime, organizer: Person, people: list[Person]) -> None:
        eid = gen.new_id("event")
        end = start + timedelta(minutes=item["minutes"])
        attendees: dict[str, dict[str, Any]] = {}
        for p in people:
            aid = gen.new_id("attendee")
            rsvp = "accept" if p.id in (me.id, organizer.id) else gen.enumerate(
                "attendee.rsvp_status", ["accept", "accept", "tentative", "needs_action"])
            attendees[aid] = {"attendee_id": aid, "type": "user", "user_id": open_ids[p.id], "display_name": p.name,
                              "rsvp_status": rsvp, "is_optional": False, "is_organizer": p.id == organizer.id}
        calendars[cal]["events"][eid] = {
            "event_id": eid, "summary": item["summary"], "description": item["description"],
            "start_time": {"timestamp": _ts(start), "timezone": tz},
            "end_time": {"timestamp": _ts(end), "timezone": tz},
            "location": {"name": item["location"]} if item["location"] else {}, "status": "confirmed",
            "organizer_id": open_ids[organizer.id],
            "visibility": gen.enumerate("event.visibility", ["default", "default", "default", "private"]),
            "attendee_ability": "can_see_others",
            "free_busy_status": "busy" if item["kind"] != "org" else "free",
            "create_time": _ts(gen.moment(start - timedelta(days=20), start - timedelta(days=3), step_minutes=60)),
            "attendees": attendees,
        }

    items = gen.authentic("event", f"lark_events_{domain}", k=7)
    slots = sorted(gen.link("event.start_time", _slots(gen, 5, 20), k=len(items) + 3))
    org_slots, slots = slots[-3:-1], slots[:-3] + slots[-1:]
    for item, start in zip(items, slots, strict=False):
        people = [me, lead] if item["one_on_one"] else [me, *gen.people(gen.rng.randint(1, 4))]
        if item["kind"] == "team":
            organizer = gen.link("event.organizer_id", [me, lead], k=1)[0]
            event(team_cal, item, start, organizer, people if organizer in people else [*people, organizer])
        else:
            event(primary, item, start, me, people)
    personal = gen.enumerate("event.summary", ["Dentist", "Pick up passport", "Gym with a friend", "Parent meeting"])
    event(primary, {"summary": personal, "description": "", "minutes": 60, "kind": "primary",
                    "location": gen.enumerate("event.location", ["", "Downtown clinic", "City centre"])},
          slots[-1].replace(hour=8, minute=0), me, [me])
    for item, start in zip(gen.authentic("org_event", f"lark_org_events_{domain}", k=2), org_slots, strict=True):
        event(org_cal, item, start, lead, [])

    # -- chats ------------------------------------------------------------------------------------------
    chats: dict[str, dict[str, Any]] = {}

    def chat(name: str, description: str, mode: str, owner: Person, members: list[Person],
             lines: list[tuple[Person, str]], start: datetime) -> None:
        cid = gen.new_id("chat")
        msgs: dict[str, dict[str, Any]] = {}
        when = start
        for sender, text in lines:
            mid = gen.new_id("message")
            msgs[mid] = {"message_id": mid, "msg_type": "text", "content": _json_text(text),
                         "sender_id": open_ids[sender.id], "create_time": str(int(when.timestamp()) * 1000)}
            when = gen.moment(when + timedelta(minutes=2), when + timedelta(minutes=75), step_minutes=1)
        chats[cid] = {"chat_id": cid, "name": name, "description": description, "chat_mode": mode,
                      "chat_type": "private", "owner_id": open_ids[owner.id], "create_time": created,
                      "members": {open_ids[p.id]: {"member_id": open_ids[p.id], "name": p.name} for p in members},
                      "messages": msgs}

    for item in gen.authentic("chat", f"lark_chats_{domain}", k=2):
        members = [me, *gen.people(gen.rng.randint(3, 5))]
        lines = [(gen.link("message.sender_id", members, k=1)[0], text) for text in item["messages"]]
        day = gen.link("chat.day", [5, 6, 9], k=1)[0]
        start = gen.moment(gen.local(2026, 3, day, 9), gen.local(2026, 3, day, 12), step_minutes=5)
        owner = gen.link("chat.owner_id", members, k=1)[0]
        chat(item["name"], item["description"], "group", owner, members, lines, start)
    topic = gen.authentic("message.topic", f"lark_topics_{domain}", k=1)[0]["topic"]
    day = gen.enumerate("message.day", WEEKDAYS)
    ask = gen.free_form("message.content", "lark_dm_ask", topic=topic, day=day)
    reply = gen.free_form("message.content", "lark_dm_reply", topic=topic, day=day)
    start = gen.moment(gen.local(2026, 3, 9, 9), gen.local(2026, 3, 9, 17), step_minutes=5)
    chat(lead.name, "", "p2p", me, [me, lead], [(lead, ask), (me, reply)], start)

    return {
        "context_id": CONTEXT_PREFIX + persona,
        "description": f"{gen.cast.personas[persona].description}: generated Lark tenant with {len(users)} users, "
                       f"{len(calendars)} calendars and {len(chats)} chats",
        "me": me_id,
        "tenant": me.organization,
        "users": users,
        "calendars": calendars,
        "chats": chats,
    }


def _json_text(text: str) -> str:
    return json.dumps({"text": text}, ensure_ascii=False)
