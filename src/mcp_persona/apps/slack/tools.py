"""The Slack tools over the Slack Context-Tree (see ``data/hierarchies/slack.json``).

Every answer is a Slack Web API body: ``{"ok": true, ...}`` on success and
``{"ok": false, "error": "<slack_error>"}`` on failure, with Slack's own error strings.
The context's user is the caller (a user token): messages, reactions and reminders are
made in their name.
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta
from typing import Annotated, Any, Literal

from pydantic import Field

from mcp_persona.apps._normalize import matches_all
from mcp_persona.apps.base import App, AppEnv, FailureKind, FieldViolation, ToolFailure
from mcp_persona.apps.paging import page as cursor_page
from mcp_persona.context_tree.ids import generate_id

MAX_TEXT = 40000  # chat.postMessage: longer texts are rejected with msg_too_long
PAGE_CAP = 200  # the reference server sends min(limit, 200) to conversations.list and users.list
MAX_DM_USERS = 8
FIVE_YEARS = 5 * 366 * 86400
_TS = re.compile(r"\d{10}\.\d{6}")
_EMOJI_NAME = re.compile(r"[a-z0-9_+'-]+")
_SKIN_TONE = re.compile(r"(.+)::skin-tone-[2-6]")

# Standard emoji short names accepted by reactions.add (a common subset), and the aliases
# Slack stores under another name.
_EMOJI_NAMES = """
+1 -1 100 alarm_clock angry apple art astonished balloon bar_chart beers bell blush books boom bow bug bulb bus
cake calendar camera champagne chart_with_downwards_trend chart_with_upwards_trend checkered_flag clap clipboard
coffee confetti_ball confused construction cookie cry crossed_fingers crown dart disappointed dog dizzy
exclamation eyes face_palm face_with_thermometer fire fireworks flushed four_leaf_clover gift globe_with_meridians
grimacing grin grinning handshake hankey headphones heart heart_eyes heavy_check_mark heavy_plus_sign hugging_face
hourglass house_with_garden hushed innocent joy key kissing_heart laughing link lock loudspeaker mag mega memo
moneybag mountain muscle nerd_face no_entry ok ok_hand open_mouth package palm_tree paperclip partying_face pencil
pencil2 pizza point_down point_left point_right point_up poultry_leg pray pushpin question raised_hands ramen
relaxed relieved robot_face rocket rolling_on_the_floor_laughing rotating_light scissors scream see_no_evil shrug
slightly_smiling_face smile smiley smirk sob sparkles speech_balloon spiral_calendar_pad squirrel star star-struck
stew sunglasses sweat_smile tada thinking_face thought_balloon trophy turtle two_hearts unamused v warning wave
white_check_mark wink writing_hand x yum zap zzz
"""
STANDARD_EMOJI = frozenset(_EMOJI_NAMES.split())
EMOJI_ALIASES = {
    "thumbsup": "+1",
    "thumbsdown": "-1",
    "satisfied": "laughing",
    "shipit": "squirrel",
    "poop": "hankey",
    "shit": "hankey",
    "facepalm": "face_palm",
    "simple_smile": "slightly_smiling_face",
}


class SlackApp(App):
    def success_payload(self, tool: str, result: Any) -> Any:
        return {"ok": True, **result}

    def error_payload(self, tool: str, failure: ToolFailure) -> Any:
        if isinstance(failure.code, str):
            return {"ok": False, "error": failure.code}
        if failure.kind == "internal":
            return {"ok": False, "error": "internal_error"}
        if failure.message.startswith("Unknown tool"):
            return {"ok": False, "error": "unknown_method"}
        return {"ok": False, "error": "invalid_arguments", "response_metadata": {"messages": [
            f"[ERROR] {failure.message}"]}}

    def validation_payload(self, tool: str, violations: list[FieldViolation]) -> Any:
        lines = []
        for v in violations:
            if v.kind == "missing":
                lines.append(f"[ERROR] missing required field: {v.field}")
            elif v.kind == "extra":
                lines.append(f"[ERROR] unknown field: {v.field}")
            elif v.kind == "range":
                lines.append(f"[ERROR] invalid value for field {v.field}: {v.message}")
            else:
                lines.append(f"[ERROR] invalid type for field {v.field}: {v.message}")
        return {"ok": False, "error": "invalid_arguments", "response_metadata": {"messages": lines}}


APP = SlackApp(
    "slack",
    title="Slack",
    category="collaboration",
    description="The Slack workspace of the signed-in user: channels, messages, threads, reactions, people, "
    "DMs and reminders, through the Slack Web API.",
    real_server="modelcontextprotocol/servers (src/slack) + hosted Slack tools",
)


def _fail(error: str, kind: FailureKind) -> ToolFailure:
    """A Slack error: ``error`` is both the message and the ``error`` string of the envelope."""
    return ToolFailure(error, kind=kind, code=error)


# -- argument types -----------------------------------------------------------------------------------
ChannelId = Annotated[str, Field(description="The ID of the channel (C..., or D... for a DM)")]
Ts = Annotated[str, Field(description="A message timestamp in the format '1234567890.123456'")]
Limit = Annotated[int, Field(ge=1, le=1000, description="Maximum number of items to return (default 100, max 200)")]
Cursor = Annotated[str | None, Field(description="Pagination cursor (response_metadata.next_cursor of the previous "
                                                 "page)")]


# -- lookups ------------------------------------------------------------------------------------------
def _me(env: AppEnv) -> str:
    return env.tree.data["me"]


def _team(env: AppEnv) -> str:
    return env.tree.data["team"]["id"]


def _conversation(env: AppEnv, channel_id: str, *, write: bool = False) -> dict[str, Any]:
    """The conversation the user may see (and, with ``write``, post or react in).

    Private channels and DMs the user is not in do not exist for them (channel_not_found);
    a public channel they have not joined can be read but not written (not_in_channel).
    """
    ch = env.tree.top("channel", channel_id.strip())
    me = _me(env)
    if ch is None or (ch.get("is_private") and me not in ch.get("members", [])):
        raise _fail("channel_not_found", "not_found")
    if write:
        if ch.get("is_archived") or ch.get("is_user_deleted"):  # a DM with a deactivated user is archived
            raise _fail("is_archived", "conflict")
        if me not in ch.get("members", []):
            raise _fail("not_in_channel", "permission")
    return ch


def _user(env: AppEnv, user_id: str) -> dict[str, Any]:
    user = env.tree.top("user", user_id.strip())
    if user is None:
        raise _fail("user_not_found", "not_found")
    return user


def _locate(ch: dict[str, Any], ts: str) -> tuple[str, dict[str, Any], dict[str, Any] | None]:
    """(tree path, message, its thread parent or None) of the message ``ts`` of a conversation."""
    base = f"channels[{ch['id']}].messages"
    msgs = ch.get("messages", {})
    if ts in msgs:
        return f"{base}[{ts}]", msgs[ts], None
    for parent in msgs.values():
        if ts in parent.get("replies", {}):
            return f"{base}[{parent['ts']}].replies[{ts}]", parent["replies"][ts], parent
    raise _fail("message_not_found", "not_found")


def _check_text(text: str) -> str:
    if not text.strip():
        raise _fail("no_text", "missing")
    if len(text) > MAX_TEXT:
        raise _fail("msg_too_long", "range")
    return text


def _new_ts(env: AppEnv, taken: dict[str, Any]) -> str:
    sec = env.now()
    while True:
        ts = f"{sec}.{generate_id('{digits:6}', env.tree.rng)}"
        if ts not in taken:
            return ts


def _ts_key(ts: str) -> tuple[int, int]:
    sec, _, micro = ts.partition(".")
    return int(sec), int(micro or 0)


# -- views --------------------------------------------------------------------------------------------
def _message_view(env: AppEnv, msg: dict[str, Any], parent: dict[str, Any] | None = None) -> dict[str, Any]:
    view: dict[str, Any] = {"type": "message", "user": msg["user"], "text": msg["text"], "ts": msg["ts"],
                            "team": _team(env)}
    if parent is not None:
        view["thread_ts"] = parent["ts"]
        view["parent_user_id"] = parent["user"]
    else:
        replies = sorted(msg.get("replies", {}).values(), key=lambda r: _ts_key(r["ts"]))
        if replies:
            users = list(dict.fromkeys(r["user"] for r in replies))
            view |= {"thread_ts": msg["ts"], "reply_count": len(replies), "reply_users_count": len(users),
                     "latest_reply": replies[-1]["ts"], "reply_users": users}
    if msg.get("reactions"):
        view["reactions"] = [dict(r, users=list(r["users"])) for r in msg["reactions"]]
    return view


def _channel_view(env: AppEnv, ch: dict[str, Any]) -> dict[str, Any]:
    skip = {"messages", "members"}
    view = {k: (dict(v) if isinstance(v, dict) else v) for k, v in ch.items() if k not in skip}
    if ch.get("is_im"):
        return view
    view["is_group"] = False
    view["name_normalized"] = ch.get("name", "")
    view["is_shared"] = False
    view["is_org_shared"] = False
    view["context_team_id"] = _team(env)
    view["is_member"] = _me(env) in ch.get("members", [])
    view["num_members"] = len(ch.get("members", []))
    return view


def _paged(items: list[Any], limit: int, cursor: str | None) -> tuple[list[Any], str]:
    try:
        chunk, _, token = cursor_page(items, min(limit, PAGE_CAP), cursor or None)
    except ToolFailure as exc:
        raise _fail("invalid_cursor", "range") from exc
    return chunk, token or ""


# -- conversations ------------------------------------------------------------------------------------
@APP.tool()
def slack_list_channels(env: AppEnv, limit: Limit = 100, cursor: Cursor = None) -> dict[str, Any]:
    """List public channels in the workspace with pagination (archived channels are left out).
    Pass response_metadata.next_cursor back as cursor for the next page."""
    public = [c for c in env.tree.list("channels")
              if c.get("is_channel") and not c.get("is_private") and not c.get("is_archived")]
    public.sort(key=lambda c: (c["created"], c["id"]))
    chunk, token = _paged([_channel_view(env, c) for c in public], limit, cursor)
    return {"channels": chunk, "response_metadata": {"next_cursor": token}}


@APP.tool(mutates=True)
def slack_post_message(
    env: AppEnv, channel_id: ChannelId, text: Annotated[str, Field(description="The message text to post")]
) -> dict[str, Any]:
    """Post a new message to a Slack channel (or a DM opened with slack_open_dm)."""
    ch = _conversation(env, channel_id, write=True)
    _check_text(text)
    msg = {"ts": _new_ts(env, ch.get("messages", {})), "type": "message", "user": _me(env), "text": text}
    msg = env.tree.create(f"channels[{ch['id']}].messages", msg)
    return {"channel": ch["id"], "ts": msg["ts"], "message": _message_view(env, msg)}


@APP.tool(mutates=True)
def slack_reply_to_thread(
    env: AppEnv,
    channel_id: ChannelId,
    thread_ts: Annotated[str, Field(description="The timestamp of the parent message in the format "
                                                "'1234567890.123456'. Timestamps in the format without the period "
                                                "can be converted by adding the period such that 6 numbers come "
                                                "after it.")],
    text: Annotated[str, Field(description="The reply text")],
) -> dict[str, Any]:
    """Reply to a specific message thread in Slack."""
    ch = _conversation(env, channel_id, write=True)
    if not _TS.fullmatch(thread_ts.strip()):
        raise _fail("invalid_thread_ts", "type")
    parent = ch.get("messages", {}).get(thread_ts.strip())
    if parent is None:  # unknown, or the ts of a reply rather than of the thread's parent
        raise _fail("thread_not_found", "not_found")
    _check_text(text)
    path = f"channels[{ch['id']}].messages[{parent['ts']}].replies"
    reply = {"ts": _new_ts(env, parent.get("replies", {})), "type": "message", "user": _me(env), "text": text}
    reply = env.tree.create(path, reply)
    return {"channel": ch["id"], "ts": reply["ts"], "message": _message_view(env, reply, parent)}


@APP.tool(mutates=True)
def slack_add_reaction(
    env: AppEnv,
    channel_id: ChannelId,
    timestamp: Annotated[str, Field(description="The timestamp of the message to react to")],
    reaction: Annotated[str, Field(description="The name of the emoji reaction (without ::): a standard short "
                                                "name such as thumbsup, eyes or white_check_mark (✅)")],
) -> dict[str, Any]:
    """Add a reaction emoji to a message (a channel message or a thread reply)."""
    ch = _conversation(env, channel_id, write=True)
    if not _TS.fullmatch(timestamp.strip()):
        raise _fail("bad_timestamp", "type")
    path, msg, _ = _locate(ch, timestamp.strip())
    name = _emoji(env, reaction)
    me = _me(env)
    reactions = [dict(r, users=list(r["users"])) for r in msg.get("reactions", [])]
    entry = next((r for r in reactions if r["name"] == name), None)
    if entry is None:
        reactions.append({"name": name, "users": [me], "count": 1})
    elif me in entry["users"]:
        raise _fail("already_reacted", "conflict")
    else:
        entry["users"].append(me)
        entry["count"] = len(entry["users"])
    env.tree.update(path, {"reactions": reactions})
    return {}


def _emoji(env: AppEnv, raw: str) -> str:
    name = raw.strip()
    base, tone = name, ""
    m = _SKIN_TONE.fullmatch(name)
    if m:
        base, tone = m.group(1), name[len(m.group(1)):]
    if not _EMOJI_NAME.fullmatch(base):  # e.g. ":thumbsup:" with the colons
        raise _fail("invalid_name", "type")
    base = EMOJI_ALIASES.get(base, base)
    if base not in STANDARD_EMOJI and base not in env.tree.data.get("custom_emoji", []):
        raise _fail("invalid_name", "not_found")
    return base + tone


@APP.tool()
def slack_get_channel_history(
    env: AppEnv,
    channel_id: ChannelId,
    limit: Annotated[int, Field(ge=1, le=1000, description="Number of messages to retrieve (default 10)")] = 10,
) -> dict[str, Any]:
    """Get recent messages from a channel, newest first. Thread replies are not included: threads show
    reply_count and latest_reply; read them with slack_get_thread_replies."""
    ch = _conversation(env, channel_id)
    msgs = sorted(ch.get("messages", {}).values(), key=lambda m: _ts_key(m["ts"]), reverse=True)
    return {
        "messages": [_message_view(env, m) for m in msgs[:limit]],
        "has_more": len(msgs) > limit,
        "pin_count": 0,
        "channel_actions_ts": None,
        "channel_actions_count": 0,
    }


@APP.tool()
def slack_get_thread_replies(
    env: AppEnv,
    channel_id: ChannelId,
    thread_ts: Annotated[str, Field(description="The timestamp of the parent message in the format "
                                                "'1234567890.123456'. Timestamps in the format without the period "
                                                "can be converted by adding the period such that 6 numbers come "
                                                "after it.")],
) -> dict[str, Any]:
    """Get all replies in a message thread: the parent message first, then the replies, oldest first."""
    ch = _conversation(env, channel_id)
    parent = ch.get("messages", {}).get(thread_ts.strip()) if _TS.fullmatch(thread_ts.strip()) else None
    if parent is None:
        raise _fail("thread_not_found", "not_found")
    replies = sorted(parent.get("replies", {}).values(), key=lambda r: _ts_key(r["ts"]))
    return {
        "messages": [_message_view(env, parent)] + [_message_view(env, r, parent) for r in replies],
        "has_more": False,
        "response_metadata": {"next_cursor": ""},
    }


# -- people -------------------------------------------------------------------------------------------
@APP.tool()
def slack_get_users(env: AppEnv, cursor: Cursor = None, limit: Limit = 100) -> dict[str, Any]:
    """Get a list of all users in the workspace with their basic profile information (deactivated users
    have deleted: true)."""
    users = sorted(env.tree.list("users"), key=lambda u: u["id"])
    chunk, token = _paged([_user_view(u) for u in users], limit, cursor)
    return {"members": chunk, "cache_ts": env.clock.timestamp(), "response_metadata": {"next_cursor": token}}


def _user_view(user: dict[str, Any]) -> dict[str, Any]:
    return {k: (dict(v) if isinstance(v, dict) else v) for k, v in user.items()}


@APP.tool()
def slack_get_user_profile(
    env: AppEnv, user_id: Annotated[str, Field(description="The ID of the user")]
) -> dict[str, Any]:
    """Get detailed profile information for a specific user."""
    return {"profile": dict(_user(env, user_id)["profile"])}


@APP.tool(mutates=True)
def slack_open_dm(
    env: AppEnv,
    users: Annotated[str, Field(description="Comma separated list of user IDs: one user for a direct message, "
                                            "2-8 for a group DM")],
) -> dict[str, Any]:
    """Open (or resume) a direct message or multi-person direct message; post to it with slack_post_message
    using the returned channel.id."""
    ids = list(dict.fromkeys(u.strip() for u in users.split(",") if u.strip()))
    if not ids:
        raise _fail("users_list_not_supplied", "missing")
    if len(ids) > MAX_DM_USERS:
        raise _fail("too_many_users", "range")
    me = _me(env)
    for uid in ids:
        if _user(env, uid).get("deleted"):
            raise _fail("user_disabled", "conflict")
    others = [u for u in ids if u != me]
    if len(others) <= 1:
        other = others[0] if others else me
        existing = next((c for c in env.tree.list("channels") if c.get("is_im") and c.get("user") == other), None)
        if existing is not None:
            return {"no_op": True, "already_open": True, "channel": {"id": existing["id"]}}
        cid = _fresh_id(env, "D{upper:10}")
        env.tree.create("channels", {
            "id": cid, "is_channel": False, "is_im": True, "is_mpim": False, "is_private": True,
            "is_archived": False, "user": other, "is_user_deleted": False, "created": env.now(),
            "members": [me] if other == me else [me, other],
        })
        return {"channel": {"id": cid}}
    members = [me, *others]
    existing = next((c for c in env.tree.list("channels")
                     if c.get("is_mpim") and set(c.get("members", [])) == set(members)), None)
    if existing is not None:
        return {"no_op": True, "already_open": True, "channel": {"id": existing["id"]}}
    names = "--".join(_user(env, u)["name"] for u in members)
    cid = _fresh_id(env, "G{upper:10}")
    env.tree.create("channels", {
        "id": cid, "name": f"mpdm-{names}-1", "is_channel": False, "is_im": False, "is_mpim": True,
        "is_private": True, "is_archived": False, "created": env.now(), "creator": me, "members": members,
    })
    return {"channel": {"id": cid}}


def _fresh_id(env: AppEnv, fmt: str) -> str:
    while True:
        cid = generate_id(fmt, env.tree.rng)
        if env.tree.top("channel", cid) is None:
            return cid


# -- reminders ----------------------------------------------------------------------------------------
@APP.tool(mutates=True)
def slack_create_reminder(
    env: AppEnv,
    text: Annotated[str, Field(description="The content of the reminder")],
    time: Annotated[str | int, Field(description="When the reminder should happen: a Unix timestamp, the number "
                                                 "of seconds until the reminder (within 24 hours), or a natural "
                                                 "description such as 'in 15 minutes', 'tomorrow at 9am', "
                                                 "'2026-03-12 14:00' or 'every monday at 10:00'")],
    user: Annotated[str | None, Field(description="The user who will receive the reminder (default: you)")] = None,
) -> dict[str, Any]:
    """Create a reminder for yourself or for another member; times are in your time zone."""
    if not text.strip():
        raise _fail("invalid_arguments", "missing")
    me = _me(env)
    target = _user(env, user) if user is not None else _user(env, me)
    if target.get("is_bot"):
        raise _fail("cannot_add_bot", "conflict")
    if target.get("deleted"):
        raise _fail("user_not_found", "not_found")
    at, weekdays = parse_reminder_time(str(time), env.clock.current())
    body: dict[str, Any] = {"creator": me, "user": target["id"], "text": text, "recurring": weekdays is not None}
    if weekdays is not None:
        body["recurrence"] = {"frequency": "daily" if len(weekdays) == 7 else "weekly", "weekdays": weekdays}
    body |= {"time": at, "complete_ts": 0}
    rem = env.tree.create("reminders", body)
    return {"reminder": dict(rem)}


@APP.tool()
def slack_list_reminders(env: AppEnv) -> dict[str, Any]:
    """List the reminders created by you or for you, soonest first (completed ones have complete_ts > 0)."""
    me = _me(env)
    mine = [dict(r) for r in env.tree.list("reminders") if me in (r.get("creator"), r.get("user"))]
    mine.sort(key=lambda r: (r["time"], r["id"]))
    return {"reminders": mine}


_WEEKDAYS = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]
_UNITS = {"second": 1, "sec": 1, "minute": 60, "min": 60, "hour": 3600, "hr": 3600, "day": 86400, "week": 604800}
_CLOCK = r"(noon|midnight|\d{1,2}(?::\d{2})?\s*(?:am|pm)|\d{1,2}:\d{2})"
_MONTHS = {m: i + 1 for i, m in enumerate(["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct",
                                           "nov", "dec"])}


def parse_reminder_time(raw: str, now: datetime) -> tuple[int, list[str] | None]:
    """(unix time of the (next) reminder, weekdays if recurring) for a reminders.add ``time``; raises
    cannot_parse for phrasing it does not understand or for a time that is not in the future."""
    text = " ".join(raw.strip().lower().replace(",", " ").split())
    stamp = int(now.timestamp())
    if re.fullmatch(r"\d+", text):
        value = int(text)
        at = stamp + value if value <= 86400 else value
        return _future(at, stamp), None
    m = re.fullmatch(r"in (\d+|an?|one) (second|sec|minute|min|hour|hr|day|week)s?", text)
    if m:
        n = 1 if m.group(1) in ("a", "an", "one") else int(m.group(1))
        return _future(stamp + n * _UNITS[m.group(2)], stamp), None
    if text.startswith("every "):
        return _recurring(text[6:], now)
    day_part, clock = _split_clock(text)
    hour, minute = clock if clock is not None else (9, 0)
    day = _day(day_part, now)
    if day is None:
        raise _fail("cannot_parse", "type")
    if day == "next":  # only a clock time: the next time it comes around
        at = now.replace(hour=hour, minute=minute, second=0, microsecond=0)
        if at <= now:
            at += timedelta(days=1)
        return int(at.timestamp()), None
    if isinstance(day, tuple):  # a weekday: its next occurrence in the future
        target = day[0]
        at = now.replace(hour=hour, minute=minute, second=0, microsecond=0)
        at += timedelta(days=(target - now.weekday()) % 7)
        if at <= now:
            at += timedelta(days=7)
        return int(at.timestamp()), None
    at = datetime(day.year, day.month, day.day, hour, minute, tzinfo=now.tzinfo)
    return _future(int(at.timestamp()), stamp), None


def _future(at: int, stamp: int) -> int:
    if at <= stamp or at > stamp + FIVE_YEARS:
        raise _fail("cannot_parse", "range")
    return at


def _split_clock(text: str) -> tuple[str, tuple[int, int] | None]:
    """Split '<day words> at 9:30am' (or '9:30am <day words>') into the day words and (hour, minute).
    A bare number is a time only after "at" ("march 12" is a date, "at 12" a time)."""
    m = re.search(rf"(?:^|\s)(?:at\s+)?{_CLOCK}$", text) or re.search(r"(?:^|\s)at\s+(\d{1,2})$", text)
    if m:
        return text[: m.start()].strip(), _clock(m.group(1))
    m = re.match(rf"(?:at\s+)?{_CLOCK}(?:\s+|$)", text)
    if m:
        return text[m.end():].strip(), _clock(m.group(1))
    return text, None


def _clock(token: str) -> tuple[int, int]:
    if token == "noon":
        return 12, 0
    if token == "midnight":
        return 0, 0
    m = re.fullmatch(r"(\d{1,2})(?::(\d{2}))?\s*(am|pm)?", token)
    assert m is not None
    hour, minute, half = int(m.group(1)), int(m.group(2) or 0), m.group(3)
    if half:
        if not 1 <= hour <= 12:
            raise _fail("cannot_parse", "range")
        hour = hour % 12 + (12 if half == "pm" else 0)
    if hour > 23 or minute > 59:
        raise _fail("cannot_parse", "range")
    return hour, minute


def _day(words: str, now: datetime) -> Any:
    words = words.removeprefix("on ").strip()
    if words == "":
        return "next"
    if words == "today":
        return now.date()
    if words == "tomorrow":
        return (now + timedelta(days=1)).date()
    words = words.removeprefix("next ").strip()
    if words in _WEEKDAYS:
        return (_WEEKDAYS.index(words),)
    try:
        return datetime.strptime(words, "%Y-%m-%d").date()
    except ValueError:
        pass
    m = re.fullmatch(r"([a-z]{3})[a-z]* (\d{1,2})", words)
    if m and m.group(1) in _MONTHS:
        try:
            return datetime(now.year, _MONTHS[m.group(1)], int(m.group(2))).date()
        except ValueError as exc:
            raise _fail("cannot_parse", "range") from exc
    return None


def _recurring(spec: str, now: datetime) -> tuple[int, list[str]]:
    words, clock = _split_clock(spec)
    hour, minute = clock if clock is not None else (9, 0)
    if words == "day":
        days = list(_WEEKDAYS)
    elif words == "weekday":
        days = _WEEKDAYS[:5]
    else:
        parts = [w for w in re.split(r"\s+and\s+|\s+", words) if w]
        if not parts or any(p not in _WEEKDAYS for p in parts):
            raise _fail("cannot_parse", "type")
        days = [d for d in _WEEKDAYS if d in parts]
    base = now.replace(hour=hour, minute=minute, second=0, microsecond=0)
    for offset in range(8):
        at = base + timedelta(days=offset)
        if at > now and _WEEKDAYS[at.weekday()] in days:
            return int(at.timestamp()), days
    raise _fail("cannot_parse", "type")  # pragma: no cover - a week always has the day


# -- search -------------------------------------------------------------------------------------------
_TOKEN = re.compile(r'"([^"]*)"|(\S+)')


@APP.tool()
def slack_search_messages(
    env: AppEnv,
    query: Annotated[str, Field(description="Search query. Supports \"exact phrases\" and the modifiers "
                                            "in:#channel-name (or in:<channel id>), from:@display-name (or "
                                            "from:<user id>, from:me), before:/after:/on:YYYY-MM-DD")],
    count: Annotated[int, Field(ge=1, le=100, description="Number of matches per page (default 20)")] = 20,
    page: Annotated[int, Field(ge=1, le=100, description="Page number of results (default 1)")] = 1,
    sort: Annotated[Literal["score", "timestamp"], Field(description="score (default) or timestamp")] = "score",
    sort_dir: Annotated[Literal["asc", "desc"], Field(description="desc (default) or asc")] = "desc",
) -> dict[str, Any]:
    """Search messages (channel messages and thread replies) in the conversations you can see."""
    if not query.strip():
        raise _fail("no_query", "missing")
    terms, filters = _parse_query(env, query)
    matches: list[tuple[int, tuple[int, int], dict[str, Any]]] = []
    me = _me(env)
    for ch in env.tree.list("channels"):
        if ch.get("is_private") and me not in ch.get("members", []):
            continue
        if "in" in filters and ch["id"] != filters["in"]:
            continue
        for msg in ch.get("messages", {}).values():
            for m, parent in [(msg, None), *((r, msg) for r in msg.get("replies", {}).values())]:
                score = _score(m, terms, filters, env)
                if score is not None:
                    matches.append((score, _ts_key(m["ts"]), _match_view(env, ch, m, parent)))
    if sort == "score":
        matches.sort(key=lambda x: (x[0], x[1]), reverse=sort_dir == "desc")
    else:
        matches.sort(key=lambda x: x[1], reverse=sort_dir == "desc")
    total = len(matches)
    pages = max(1, -(-total // count))
    chunk = [m[2] for m in matches[(page - 1) * count: page * count]]
    first = (page - 1) * count + 1 if chunk else 0
    return {
        "query": query,
        "messages": {
            "total": total,
            "matches": chunk,
            "pagination": {"total_count": total, "page": page, "per_page": count, "page_count": pages,
                           "first": first, "last": first + len(chunk) - 1 if chunk else 0},
            "paging": {"count": count, "total": total, "page": page, "pages": pages},
        },
    }


def _parse_query(env: AppEnv, query: str) -> tuple[list[str], dict[str, Any]]:
    terms: list[str] = []
    filters: dict[str, Any] = {}
    for m in _TOKEN.finditer(query):
        if m.group(1) is not None:
            if m.group(1).strip():
                terms.append(m.group(1).lower())
            continue
        word = m.group(2)
        key, sep, value = word.partition(":")
        key = key.lower()
        if sep and value and key == "in":
            filters["in"] = _resolve_channel(env, value)
        elif sep and value and key == "from":
            filters["from"] = _resolve_user(env, value)
        elif sep and value and key in ("before", "after", "on"):
            filters[key] = _resolve_day(env, value)
        else:
            terms.append(word.lower())
    return terms, filters


def _resolve_channel(env: AppEnv, value: str) -> str:
    value = value.strip("<>").split("|")[0].lstrip("#")
    if env.tree.top("channel", value) is not None:
        return value
    hit = next((c for c in env.tree.list("channels") if c.get("name") == value), None)
    return hit["id"] if hit else "(none)"


def _resolve_user(env: AppEnv, value: str) -> str:
    value = value.strip("<>").lstrip("@")
    if value == "me":
        return _me(env)
    if env.tree.top("user", value) is not None:
        return value
    low = value.lower()
    for u in env.tree.list("users"):
        p = u.get("profile", {})
        if low in (u["name"].lower(), p.get("display_name", "").lower(), u.get("real_name", "").lower()):
            return u["id"]
    return "(none)"


def _resolve_day(env: AppEnv, value: str) -> tuple[int, int] | None:
    try:
        day = datetime.strptime(value, "%Y-%m-%d").date()
    except ValueError:
        return None
    start = int(env.clock.at(day, 0).timestamp())
    return start, start + 86400


def _score(msg: dict[str, Any], terms: list[str], filters: dict[str, Any], env: AppEnv) -> int | None:
    if "from" in filters and msg["user"] != filters["from"]:
        return None
    sec = _ts_key(msg["ts"])[0]
    for key in ("before", "after", "on"):
        if key in filters:
            span = filters[key]
            if span is None:
                return None
            if (key == "before" and sec >= span[0]) or (key == "after" and sec < span[1]) or (
                    key == "on" and not span[0] <= sec < span[1]):
                return None
    text = msg["text"].lower()
    # a word also matches its singular or plural, as Slack's search does; a quoted phrase matches as written
    counts = [text.count(t) or int(" " not in t and matches_all(t, text)) for t in terms]
    if not all(counts):
        return None
    return sum(counts)


def _match_view(env: AppEnv, ch: dict[str, Any], msg: dict[str, Any], parent: dict[str, Any] | None) -> dict[str, Any]:
    user = env.tree.top("user", msg["user"]) or {}
    name = ch.get("name") or ch.get("user", "")
    domain = env.tree.data["team"]["domain"]
    link = f"https://{domain}.slack.com/archives/{ch['id']}/p{msg['ts'].replace('.', '')}"
    if parent is not None:
        link += f"?thread_ts={parent['ts']}&cid={ch['id']}"
    view = {
        "type": "message",
        "channel": {"id": ch["id"], "name": name, "is_channel": bool(ch.get("is_channel")),
                    "is_private": bool(ch.get("is_private")), "is_im": bool(ch.get("is_im")),
                    "is_mpim": bool(ch.get("is_mpim"))},
        "user": msg["user"],
        "username": user.get("name", ""),
        "ts": msg["ts"],
        "text": msg["text"],
        "team": _team(env),
        "permalink": link,
    }
    if parent is not None:
        view["thread_ts"] = parent["ts"]
    return view
