"""The Lark tools over the Lark Context-Tree (see ``data/hierarchies/lark.json``)."""

from __future__ import annotations

import json
from datetime import datetime
from typing import Annotated, Any, Literal
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from pydantic import BaseModel, ConfigDict, Field

from mcp_persona.apps.base import App, AppEnv, FieldViolation, ToolFailure, unicode_json
from mcp_persona.apps.paging import page

# Lark's error codes (as returned by the open platform) for the failures simulated here.
INVALID_PARAMS = 190002  # calendar: invalid parameters in request
CALENDAR_NOT_FOUND = 191001
NO_CALENDAR_ACCESS = 191002
EVENT_NOT_FOUND = 193001
USER_NOT_FOUND = 41012
IM_INVALID_PARAM = 230001
NOT_IN_CHAT = 230002
CHAT_NOT_FOUND = 232010
FIELD_VALIDATION = 99992402


class LarkApp(App):
    def success_payload(self, tool: str, result: Any) -> Any:
        return {"code": 0, "msg": "success", "data": result}

    def error_payload(self, tool: str, failure: ToolFailure) -> Any:
        code = failure.code
        if code is None:
            code = {"not_found": INVALID_PARAMS, "internal": 1}.get(failure.kind, INVALID_PARAMS)
        return {"code": code, "msg": failure.message}

    def validation_payload(self, tool: str, violations: list[FieldViolation]) -> Any:
        return {
            "code": FIELD_VALIDATION,
            "msg": "field validation failed",
            "error": {"field_violations": [{"field": v.field, "description": v.message} for v in violations]},
        }


APP = LarkApp(
    "lark",
    title="Lark (Feishu)",
    category="collaboration",
    description="Lark calendars, contacts and instant messaging of the signed-in user.",
    real_server="larksuite/lark-openapi-mcp",
)

_OBJ = ConfigDict(extra="forbid")
UseUAT = Annotated[bool | None, Field(description="use the user access token (ignored by the simulator)")]
UserIdType = Literal["open_id", "user_id", "union_id"]


# -- shared argument shapes --------------------------------------------------------------------------
class TimeInfo(BaseModel):
    model_config = _OBJ
    timestamp: str | None = Field(None, pattern=r"^\d{9,11}$", description="unix seconds, as a string")
    date: str | None = Field(None, pattern=r"^\d{4}-\d{2}-\d{2}$", description="all-day events: YYYY-MM-DD")
    timezone: str | None = Field(None, description="IANA name, e.g. Asia/Shanghai")


class Location(BaseModel):
    model_config = _OBJ
    name: str | None = Field(None, max_length=512)
    address: str | None = Field(None, max_length=255)


# "primary" is the signed-in user's own calendar, as in Lark's open API: no lookup needed
CALENDAR_ID = ("a calendar_id from calendar_v4_calendar_list, or primary for the signed-in user's primary "
               "calendar")


class CalendarPath(BaseModel):
    model_config = _OBJ
    calendar_id: str = Field(min_length=1, description=CALENDAR_ID)


class EventPath(BaseModel):
    model_config = _OBJ
    calendar_id: str = Field(min_length=1, description=CALENDAR_ID)
    event_id: str = Field(min_length=1)


class UserIdParams(BaseModel):
    model_config = _OBJ
    user_id_type: UserIdType = "open_id"


# -- helpers ---------------------------------------------------------------------------------------
def _user_by(env: AppEnv, value: str, id_type: str) -> dict[str, Any] | None:
    if id_type == "open_id":
        return env.tree.top("user", value)
    if id_type == "email":  # emails are case-insensitive, as in contact_v3_user_batchGetId
        probe = value.strip().lower()
        return next((u for u in env.tree.list("users") if u.get("email", "").lower() == probe), None)
    field = {"user_id": "user_id", "union_id": "union_id", "mobile": "mobile"}[id_type]
    hits = env.tree.list("users", {field: value}, limit=1)
    return hits[0] if hits else None


def _user_ref(user: dict[str, Any], id_type: str) -> str:
    return user["open_id"] if id_type == "open_id" else user[id_type]


def _calendar(env: AppEnv, calendar_id: str) -> dict[str, Any]:
    if calendar_id == "primary":
        for cal in env.tree.list("calendars"):
            if cal.get("type") == "primary" and cal.get("owner_id") == env.tree.data["me"]:
                return cal
    cal = env.tree.top("calendar", calendar_id)
    if cal is None:
        raise ToolFailure(f"calendar not found: {calendar_id}", kind="not_found", code=CALENDAR_NOT_FOUND)
    return cal


def _writable(env: AppEnv, cal: dict[str, Any]) -> None:
    if cal.get("role") not in ("owner", "writer"):
        raise ToolFailure(
            f"no calendar access_role: you are a {cal.get('role', 'reader')} of {cal['calendar_id']}",
            kind="permission",
            code=NO_CALENDAR_ACCESS,
        )


def _event(env: AppEnv, cal: dict[str, Any], event_id: str) -> dict[str, Any]:
    ev = cal.get("events", {}).get(event_id)
    if ev is None:
        raise ToolFailure(f"event not found: {event_id}", kind="not_found", code=EVENT_NOT_FOUND)
    return ev


def _seconds(t: TimeInfo, name: str, env: AppEnv) -> int:
    if (t.timestamp is None) == (t.date is None):
        raise ToolFailure(f"{name}: give exactly one of timestamp or date", kind="conflict", code=INVALID_PARAMS)
    if t.timestamp is not None:
        return int(t.timestamp)
    try:
        day = datetime.strptime(t.date or "", "%Y-%m-%d").date()
    except ValueError as exc:
        raise ToolFailure(f"{name}.date is not a real date: {t.date}", kind="range", code=INVALID_PARAMS) from exc
    return int(env.clock.at(day, 0).timestamp())


def _time_dict(t: TimeInfo, env: AppEnv) -> dict[str, str]:
    out = {"timestamp": t.timestamp} if t.timestamp is not None else {"date": t.date or ""}
    if t.timezone is not None:
        try:
            ZoneInfo(t.timezone)
        except (ZoneInfoNotFoundError, ValueError) as exc:
            raise ToolFailure(f"invalid timezone: {t.timezone!r}", kind="range", code=INVALID_PARAMS) from exc
    out["timezone"] = t.timezone or env.clock.timezone
    return out


def _event_view(cal: dict[str, Any], ev: dict[str, Any]) -> dict[str, Any]:
    view = {k: v for k, v in ev.items() if k != "attendees"}
    view["organizer_calendar_id"] = cal["calendar_id"]
    return view


def _check_interval(start: int, end: int) -> None:
    if end <= start:
        raise ToolFailure(
            "invalid parameters in request: end_time must be later than start_time",
            kind="conflict",
            code=INVALID_PARAMS,
        )


# -- calendar ----------------------------------------------------------------------------------------
class CalendarListParams(BaseModel):
    model_config = _OBJ
    page_size: int | None = Field(None, ge=50, le=1000, description="50-1000, default 500")
    page_token: str | None = None
    sync_token: str | None = None


@APP.tool()
def calendar_v4_calendar_list(
    env: AppEnv, params: CalendarListParams | None = None, useUAT: UseUAT = None
) -> dict[str, Any]:
    """List the calendars of the current user (primary, shared and subscribed)."""
    p = params or CalendarListParams()
    cals = [{k: v for k, v in c.items() if k != "events"} for c in env.tree.list("calendars")]
    items, more, token = page(cals, p.page_size or 500, p.page_token)
    return {"has_more": more, "page_token": token, "sync_token": "simulated", "calendar_list": items}


@APP.tool()
def calendar_v4_calendar_primary(
    env: AppEnv, params: UserIdParams | None = None, useUAT: UseUAT = None
) -> dict[str, Any]:
    """Get the primary calendar of the current user."""
    id_type = (params or UserIdParams()).user_id_type
    cal = _calendar(env, "primary")
    view = {k: v for k, v in cal.items() if k != "events"}
    me = env.tree.get(f"users[{env.tree.data['me']}]")
    return {"calendars": [{"calendar": view, "user_id": _user_ref(me, id_type)}]}


class EventListParams(BaseModel):
    model_config = _OBJ
    page_size: int | None = Field(None, ge=50, le=1000, description="50-1000, default 500")
    anchor_time: str | None = Field(None, pattern=r"^\d{9,11}$")
    page_token: str | None = None
    sync_token: str | None = None
    start_time: str | None = Field(None, pattern=r"^\d{9,11}$", description="unix seconds")
    end_time: str | None = Field(None, pattern=r"^\d{9,11}$", description="unix seconds")


@APP.tool()
def calendar_v4_calendarEvent_list(
    env: AppEnv, path: CalendarPath, params: EventListParams | None = None, useUAT: UseUAT = None
) -> dict[str, Any]:
    """List the events of a calendar, optionally within [start_time, end_time] (unix seconds)."""
    p = params or EventListParams()
    cal = _calendar(env, path.calendar_id)
    lo = int(p.start_time) if p.start_time else None
    hi = int(p.end_time) if p.end_time else None
    if lo is not None and hi is not None:
        _check_interval(lo, hi)
    anchor = int(p.anchor_time) if p.anchor_time else None
    events = []
    for ev in cal.get("events", {}).values():
        start, end = _stored_seconds(env, ev["start_time"]), _stored_seconds(env, ev["end_time"])
        if (lo is not None and end <= lo) or (hi is not None and start >= hi) or (anchor and end <= anchor):
            continue
        events.append(_event_view(cal, ev))
    events.sort(key=lambda e: (_stored_seconds(env, e["start_time"]), e["event_id"]))
    items, more, token = page(events, p.page_size or 500, p.page_token)
    return {"has_more": more, "page_token": token, "items": items}


def _stored_seconds(env: AppEnv, t: dict[str, str]) -> int:
    if "timestamp" in t:
        return int(t["timestamp"])
    return int(env.clock.at(datetime.strptime(t["date"], "%Y-%m-%d").date(), 0).timestamp())


class EventGetParams(BaseModel):
    model_config = _OBJ
    need_attendee: bool | None = None
    user_id_type: UserIdType = "open_id"


@APP.tool()
def calendar_v4_calendarEvent_get(
    env: AppEnv, path: EventPath, params: EventGetParams | None = None, useUAT: UseUAT = None
) -> dict[str, Any]:
    """Get one event of a calendar."""
    p = params or EventGetParams()
    cal = _calendar(env, path.calendar_id)
    ev = _event(env, cal, path.event_id)
    view = _event_view(cal, ev)
    if p.need_attendee:
        view["attendees"] = [_attendee_view(env, a, p.user_id_type) for a in ev.get("attendees", {}).values()]
    return {"event": view}


class EventData(BaseModel):
    model_config = _OBJ
    summary: str | None = Field(None, max_length=1000)
    description: str | None = Field(None, max_length=40960)
    need_notification: bool | None = None
    start_time: TimeInfo
    end_time: TimeInfo
    visibility: Literal["default", "public", "private"] | None = None
    attendee_ability: Literal["none", "can_see_others", "can_invite_others", "can_modify_event"] | None = None
    free_busy_status: Literal["busy", "free"] | None = None
    location: Location | None = None
    color: int | None = None
    recurrence: str | None = None


class EventCreateParams(BaseModel):
    model_config = _OBJ
    idempotency_key: str | None = None
    user_id_type: UserIdType = "open_id"


@APP.tool(mutates=True)
def calendar_v4_calendarEvent_create(
    env: AppEnv,
    path: CalendarPath,
    data: EventData,
    params: EventCreateParams | None = None,
    useUAT: UseUAT = None,
) -> dict[str, Any]:
    """Create an event on a calendar. start_time/end_time take {timestamp (unix seconds string)} or
    {date (YYYY-MM-DD)} plus an optional timezone."""
    cal = _calendar(env, path.calendar_id)
    _writable(env, cal)
    _check_interval(_seconds(data.start_time, "start_time", env), _seconds(data.end_time, "end_time", env))
    body: dict[str, Any] = data.model_dump(exclude_none=True, exclude={"start_time", "end_time"})
    body |= {
        "start_time": _time_dict(data.start_time, env),
        "end_time": _time_dict(data.end_time, env),
        "status": "confirmed",
        "organizer_id": env.tree.data["me"],
        "create_time": str(env.now()),
        "attendees": {},
    }
    body.setdefault("visibility", "default")
    body.setdefault("attendee_ability", "none")
    body.setdefault("free_busy_status", "busy")
    ev = env.tree.create(f"calendars[{cal['calendar_id']}].events", body)
    return {"event": _event_view(cal, ev)}


class EventPatchData(BaseModel):
    model_config = _OBJ
    summary: str | None = Field(None, max_length=1000)
    description: str | None = Field(None, max_length=40960)
    start_time: TimeInfo | None = None
    end_time: TimeInfo | None = None
    visibility: Literal["default", "public", "private"] | None = None
    attendee_ability: Literal["none", "can_see_others", "can_invite_others", "can_modify_event"] | None = None
    free_busy_status: Literal["busy", "free"] | None = None
    location: Location | None = None
    color: int | None = None


@APP.tool(mutates=True)
def calendar_v4_calendarEvent_patch(
    env: AppEnv,
    path: EventPath,
    data: EventPatchData | None = None,
    params: UserIdParams | None = None,
    useUAT: UseUAT = None,
) -> dict[str, Any]:
    """Update fields of an event; fields left out stay as they are."""
    cal = _calendar(env, path.calendar_id)
    _writable(env, cal)
    ev = _event(env, cal, path.event_id)
    if data is None:
        return {"event": _event_view(cal, ev)}
    changes: dict[str, Any] = data.model_dump(exclude_none=True, exclude={"start_time", "end_time"})
    if data.start_time is not None:
        changes["start_time"] = _time_dict(data.start_time, env)
        _seconds(data.start_time, "start_time", env)
    if data.end_time is not None:
        changes["end_time"] = _time_dict(data.end_time, env)
        _seconds(data.end_time, "end_time", env)
    start = _stored_seconds(env, changes.get("start_time", ev["start_time"]))
    end = _stored_seconds(env, changes.get("end_time", ev["end_time"]))
    _check_interval(start, end)
    env.tree.update(f"calendars[{cal['calendar_id']}].events[{ev['event_id']}]", changes)
    return {"event": _event_view(cal, ev)}


class AttendeeIn(BaseModel):
    model_config = _OBJ
    type: Literal["user", "chat", "resource", "third_party"]
    is_optional: bool | None = None
    user_id: str | None = None
    chat_id: str | None = None
    room_id: str | None = None
    third_party_email: str | None = None


class AttendeeData(BaseModel):
    model_config = _OBJ
    attendees: list[AttendeeIn] = Field(min_length=1, max_length=1000)
    need_notification: bool | None = None


@APP.tool(mutates=True)
def calendar_v4_calendarEventAttendee_create(
    env: AppEnv,
    path: EventPath,
    data: AttendeeData,
    params: UserIdParams | None = None,
    useUAT: UseUAT = None,
) -> dict[str, Any]:
    """Add attendees to an event. A user attendee is given by user_id in the user_id_type of params
    (default open_id); phone numbers and emails must first be resolved with contact_v3_user_batchGetId."""
    id_type = (params or UserIdParams()).user_id_type
    cal = _calendar(env, path.calendar_id)
    _writable(env, cal)
    ev = _event(env, cal, path.event_id)
    event_path = f"calendars[{cal['calendar_id']}].events[{ev['event_id']}]"
    added: list[dict[str, Any]] = []
    for i, a in enumerate(data.attendees):
        if a.type != "user":
            raise ToolFailure(
                f"attendees[{i}]: only type 'user' is supported in this tenant", kind="range", code=INVALID_PARAMS
            )
        if not a.user_id:
            raise ToolFailure(f"attendees[{i}]: user_id is required for type user", kind="missing",
                              code=INVALID_PARAMS)
        user = _user_by(env, a.user_id, id_type)
        if user is None:
            raise ToolFailure(
                f"attendees[{i}]: invalid user_id {a.user_id!r} for user_id_type {id_type}",
                kind="not_found",
                code=INVALID_PARAMS,
            )
        existing = [x for x in ev.get("attendees", {}).values() if x["user_id"] == user["open_id"]]
        if existing:  # Lark answers an existing attendee unchanged
            added.append(existing[0])
            continue
        added.append(
            env.tree.create(
                f"{event_path}.attendees",
                {
                    "type": "user",
                    "user_id": user["open_id"],
                    "display_name": user["name"],
                    "rsvp_status": "needs_action",
                    "is_optional": bool(a.is_optional),
                    "is_organizer": user["open_id"] == ev.get("organizer_id"),
                },
            )
        )
    return {"attendees": [_attendee_view(env, a, id_type) for a in added]}


def _attendee_view(env: AppEnv, a: dict[str, Any], id_type: str) -> dict[str, Any]:
    view = dict(a)
    user = env.tree.top("user", a["user_id"])
    if user is not None:
        view["user_id"] = _user_ref(user, id_type)
    return view


class FreebusyData(BaseModel):
    model_config = _OBJ
    time_min: str = Field(description="RFC 3339, e.g. 2026-03-11T09:00:00+08:00")
    time_max: str = Field(description="RFC 3339")
    user_id: str | None = Field(None, description="whose free/busy to query (default: the current user)")
    room_id: str | None = None


@APP.tool()
def calendar_v4_freebusy_list(
    env: AppEnv, data: FreebusyData, params: UserIdParams | None = None, useUAT: UseUAT = None
) -> dict[str, Any]:
    """List busy intervals of a user between time_min and time_max (RFC 3339)."""
    id_type = (params or UserIdParams()).user_id_type
    lo, hi = _rfc3339(data.time_min, "time_min"), _rfc3339(data.time_max, "time_max")
    _check_interval(lo, hi)
    who = env.tree.data["me"]
    if data.user_id is not None:
        user = _user_by(env, data.user_id, id_type)
        if user is None:
            raise ToolFailure(f"invalid user_id {data.user_id!r}", kind="not_found", code=INVALID_PARAMS)
        who = user["open_id"]
    busy = []
    for _, _, ev in _events_of(env, who):
        if ev.get("status") == "cancelled" or ev.get("free_busy_status") == "free":
            continue
        s, e = _stored_seconds(env, ev["start_time"]), _stored_seconds(env, ev["end_time"])
        if e > lo and s < hi:
            busy.append((s, e))
    busy.sort()
    fmt = "%Y-%m-%dT%H:%M:%S%z"
    return {
        "freebusy_list": [
            {"start_time": _iso(env, s, fmt), "end_time": _iso(env, e, fmt)} for s, e in busy
        ]
    }


def _iso(env: AppEnv, ts: int, fmt: str) -> str:
    text = env.clock.from_timestamp(ts).strftime(fmt)
    return text[:-2] + ":" + text[-2:]


def _events_of(env: AppEnv, open_id: str) -> list[tuple[str, str, dict[str, Any]]]:
    """Events on ``open_id``'s primary calendar or that they attend. Owning or organizing on a shared
    calendar (a team or holiday calendar) does not make one busy."""
    out = []
    for cal in env.tree.list("calendars"):
        for ev in cal.get("events", {}).values():
            attending = any(a["user_id"] == open_id for a in ev.get("attendees", {}).values())
            owns = cal.get("type") == "primary" and cal.get("owner_id") == open_id
            if owns or attending:
                out.append((cal["calendar_id"], ev["event_id"], ev))
    return out


def _rfc3339(text: str, name: str) -> int:
    try:
        dt = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError as exc:
        raise ToolFailure(f"{name} is not RFC 3339: {text!r}", kind="type", code=INVALID_PARAMS) from exc
    if dt.tzinfo is None:
        raise ToolFailure(f"{name} needs a UTC offset: {text!r}", kind="range", code=INVALID_PARAMS)
    return int(dt.timestamp())


# -- contact -----------------------------------------------------------------------------------------
class BatchGetIdData(BaseModel):
    model_config = _OBJ
    emails: list[str] | None = Field(None, max_length=50)
    mobiles: list[str] | None = Field(None, max_length=50)
    include_resigned: bool | None = None


@APP.tool()
def contact_v3_user_batchGetId(
    env: AppEnv, data: BatchGetIdData | None = None, params: UserIdParams | None = None, useUAT: UseUAT = None
) -> dict[str, Any]:
    """Resolve users' ids from their emails and/or mobile numbers (e.g. +8613800138000)."""
    id_type = (params or UserIdParams()).user_id_type
    d = data or BatchGetIdData()
    if not d.emails and not d.mobiles:
        raise ToolFailure("emails and mobiles cannot both be empty", kind="missing", code=INVALID_PARAMS)
    out = []
    for kind, values in (("email", d.emails or []), ("mobile", d.mobiles or [])):
        for value in values:
            probe = value.strip().lower() if kind == "email" else _norm_mobile(value)
            hit = next(
                (
                    u for u in env.tree.list("users")
                    if (u.get("email", "").lower() if kind == "email" else _norm_mobile(u.get("mobile", ""))) == probe
                    and (d.include_resigned or not u.get("is_resigned"))
                ),
                None,
            )
            entry = {kind: value}
            if hit is not None:
                entry["user_id"] = _user_ref(hit, id_type)
            out.append(entry)
    return {"user_list": out}


def _norm_mobile(value: str) -> str:
    digits = "".join(ch for ch in value if ch.isdigit())
    return digits[2:] if digits.startswith("86") and len(digits) == 13 else digits


class UserPath(BaseModel):
    model_config = _OBJ
    user_id: str = Field(min_length=1)


class UserGetParams(BaseModel):
    model_config = _OBJ
    user_id_type: UserIdType = "open_id"
    department_id_type: Literal["department_id", "open_department_id"] | None = None


@APP.tool()
def contact_v3_user_get(
    env: AppEnv, path: UserPath, params: UserGetParams | None = None, useUAT: UseUAT = None
) -> dict[str, Any]:
    """Get a user's profile by id (open_id by default; set params.user_id_type for user_id)."""
    id_type = (params or UserGetParams()).user_id_type
    user = _user_by(env, path.user_id, id_type)
    if user is None:
        raise ToolFailure(f"user not found: {path.user_id} ({id_type})", kind="not_found", code=USER_NOT_FOUND)
    return {"user": dict(user)}


# -- im ----------------------------------------------------------------------------------------------
class MessageCreateParams(BaseModel):
    model_config = _OBJ
    receive_id_type: Literal["open_id", "user_id", "union_id", "email", "chat_id"]


class MessageCreateData(BaseModel):
    model_config = _OBJ
    receive_id: str = Field(min_length=1)
    msg_type: Literal["text", "post", "image", "file", "audio", "media", "sticker", "interactive", "share_chat",
                      "share_user"]
    content: str = Field(min_length=1, max_length=150000, description='a JSON string, e.g. "{\\"text\\":\\"hi\\"}"')
    uuid: str | None = Field(None, max_length=50)


@APP.tool(mutates=True)
def im_v1_message_create(
    env: AppEnv, params: MessageCreateParams, data: MessageCreateData, useUAT: UseUAT = None
) -> dict[str, Any]:
    """Send a message to a user or a chat. content is a JSON string: for text, '{"text":"..."}'."""
    content = _check_content(data.msg_type, data.content)
    me = env.tree.data["me"]
    if params.receive_id_type == "chat_id":
        chat = env.tree.top("chat", data.receive_id)
        if chat is None:
            raise ToolFailure(f"invalid receive_id: chat {data.receive_id} not found", kind="not_found",
                              code=IM_INVALID_PARAM)
        if me not in chat.get("members", {}):
            raise ToolFailure("the operator is not in the chat", kind="permission", code=NOT_IN_CHAT)
    else:
        user = _user_by(env, data.receive_id, params.receive_id_type)
        if user is None:
            raise ToolFailure(
                f"invalid receive_id {data.receive_id!r} for receive_id_type {params.receive_id_type}",
                kind="not_found",
                code=IM_INVALID_PARAM,
            )
        if user["open_id"] == me:
            raise ToolFailure("invalid receive_id: cannot send a message to yourself", kind="conflict",
                              code=IM_INVALID_PARAM)
        chat = _p2p_chat(env, user)
    ts = str(env.now() * 1000)
    msg = env.tree.create(
        f"chats[{chat['chat_id']}].messages",
        {"msg_type": data.msg_type, "content": unicode_json(content), "sender_id": me,
         "create_time": ts},
    )
    return _message_view(chat, msg)


def _check_content(msg_type: str, raw: str) -> dict[str, Any]:
    try:
        content = json.loads(raw)
    except json.JSONDecodeError as exc:
        raise ToolFailure(f"content is not a valid JSON string: {exc.msg}", kind="type",
                          code=IM_INVALID_PARAM) from exc
    if not isinstance(content, dict):
        raise ToolFailure("content must be a JSON object string", kind="type", code=IM_INVALID_PARAM)
    if msg_type == "text" and not (isinstance(content.get("text"), str) and content["text"].strip()):
        raise ToolFailure('text message content needs a non-empty "text"', kind="missing", code=IM_INVALID_PARAM)
    return content


def _p2p_chat(env: AppEnv, user: dict[str, Any]) -> dict[str, Any]:
    me = env.tree.data["me"]
    for chat in env.tree.list("chats", {"chat_mode": "p2p"}):
        if set(chat.get("members", {})) == {me, user["open_id"]}:
            return chat
    chat = env.tree.create(
        "chats",
        {"name": user["name"], "description": "", "chat_mode": "p2p", "chat_type": "private", "owner_id": me,
         "create_time": str(env.now())},
    )
    for uid in (me, user["open_id"]):
        member = env.tree.get(f"users[{uid}]")
        env.tree.create(f"chats[{chat['chat_id']}].members", {"member_id": uid, "name": member["name"]})
    return chat


def _message_view(chat: dict[str, Any], msg: dict[str, Any]) -> dict[str, Any]:
    return {
        "message_id": msg["message_id"],
        "msg_type": msg["msg_type"],
        "create_time": msg["create_time"],
        "chat_id": chat["chat_id"],
        "sender": {"id": msg["sender_id"], "id_type": "open_id", "sender_type": "user"},
        "body": {"content": msg["content"]},
    }


class MessageListParams(BaseModel):
    model_config = _OBJ
    container_id_type: Literal["chat", "thread"]
    container_id: str = Field(min_length=1)
    start_time: str | None = Field(None, pattern=r"^\d{9,11}$", description="unix seconds")
    end_time: str | None = Field(None, pattern=r"^\d{9,11}$", description="unix seconds")
    sort_type: Literal["ByCreateTimeAsc", "ByCreateTimeDesc"] | None = None
    page_size: int | None = Field(None, ge=1, le=50, description="1-50, default 20")
    page_token: str | None = None


@APP.tool()
def im_v1_message_list(env: AppEnv, params: MessageListParams, useUAT: UseUAT = None) -> dict[str, Any]:
    """List the messages of a chat, oldest first by default."""
    if params.container_id_type != "chat":
        raise ToolFailure("only container_id_type 'chat' is supported", kind="range", code=IM_INVALID_PARAM)
    chat = _chat(env, params.container_id)
    lo = int(params.start_time) * 1000 if params.start_time else None
    hi = int(params.end_time) * 1000 if params.end_time else None
    if lo is not None and hi is not None and hi < lo:
        raise ToolFailure("end_time must not be earlier than start_time", kind="conflict", code=IM_INVALID_PARAM)
    msgs = [
        m for m in chat.get("messages", {}).values()
        if (lo is None or int(m["create_time"]) >= lo) and (hi is None or int(m["create_time"]) <= hi)
    ]
    msgs.sort(key=lambda m: (int(m["create_time"]), m["message_id"]),
              reverse=params.sort_type == "ByCreateTimeDesc")
    items, more, token = page([_message_view(chat, m) for m in msgs], params.page_size or 20, params.page_token)
    return {"has_more": more, "page_token": token, "items": items}


def _chat(env: AppEnv, chat_id: str) -> dict[str, Any]:
    chat = env.tree.top("chat", chat_id)
    if chat is None:
        raise ToolFailure(f"chat not found: {chat_id}", kind="not_found", code=CHAT_NOT_FOUND)
    if env.tree.data["me"] not in chat.get("members", {}):
        raise ToolFailure("the operator is not in the chat", kind="permission", code=NOT_IN_CHAT)
    return chat


class ChatPath(BaseModel):
    model_config = _OBJ
    chat_id: str = Field(min_length=1)


def _chat_view(chat: dict[str, Any]) -> dict[str, Any]:
    view = {k: v for k, v in chat.items() if k not in ("members", "messages")}
    view["user_count"] = str(len(chat.get("members", {})))
    return view


@APP.tool()
def im_v1_chat_get(env: AppEnv, path: ChatPath, params: UserIdParams | None = None,
                   useUAT: UseUAT = None) -> dict[str, Any]:
    """Get a chat's information."""
    return _chat_view(_chat(env, path.chat_id))


class MembersParams(BaseModel):
    model_config = _OBJ
    member_id_type: UserIdType = "open_id"
    page_size: int | None = Field(None, ge=1, le=100, description="1-100, default 20")
    page_token: str | None = None


@APP.tool()
def im_v1_chatMembers_get(
    env: AppEnv, path: ChatPath, params: MembersParams | None = None, useUAT: UseUAT = None
) -> dict[str, Any]:
    """List the members of a chat."""
    p = params or MembersParams()
    chat = _chat(env, path.chat_id)
    members = []
    for m in chat.get("members", {}).values():
        user = env.tree.get(f"users[{m['member_id']}]")
        members.append({"member_id_type": p.member_id_type, "member_id": _user_ref(user, p.member_id_type),
                        "name": m["name"], "tenant_key": "736588c9260f175d"})
    items, more, token = page(members, p.page_size or 20, p.page_token)
    return {"items": items, "member_total": len(members), "has_more": more, "page_token": token}


class ChatListParams(BaseModel):
    model_config = _OBJ
    user_id_type: UserIdType = "open_id"
    sort_type: Literal["ByCreateTimeAsc", "ByActiveTimeDesc"] | None = None
    page_size: int | None = Field(None, ge=1, le=100, description="1-100, default 20")
    page_token: str | None = None


@APP.tool()
def im_v1_chat_list(env: AppEnv, params: ChatListParams | None = None, useUAT: UseUAT = None) -> dict[str, Any]:
    """List the chats (groups and one-to-one) the current user is in."""
    p = params or ChatListParams()
    me = env.tree.data["me"]
    chats = [_chat_view(c) for c in env.tree.list("chats") if me in c.get("members", {})]
    items, more, token = page(chats, p.page_size or 20, p.page_token)
    return {"items": items, "has_more": more, "page_token": token}


class ChatCreateData(BaseModel):
    model_config = _OBJ
    name: str = Field(min_length=1, max_length=60)
    description: str | None = Field(None, max_length=100)
    owner_id: str | None = None
    user_id_list: list[str] | None = Field(None, max_length=50)
    chat_mode: Literal["group"] | None = None
    chat_type: Literal["private", "public"] | None = None


@APP.tool(mutates=True)
def im_v1_chat_create(
    env: AppEnv, data: ChatCreateData, params: UserIdParams | None = None, useUAT: UseUAT = None
) -> dict[str, Any]:
    """Create a group chat with the current user and the users of user_id_list."""
    id_type = (params or UserIdParams()).user_id_type
    me = env.tree.data["me"]
    members = [me]
    for uid in data.user_id_list or []:
        user = _user_by(env, uid, id_type)
        if user is None:
            raise ToolFailure(f"user_id_list: invalid user id {uid!r} ({id_type})", kind="not_found",
                              code=IM_INVALID_PARAM)
        if user["open_id"] not in members:
            members.append(user["open_id"])
    owner = me
    if data.owner_id is not None:
        owner_user = _user_by(env, data.owner_id, id_type)
        if owner_user is None or owner_user["open_id"] not in members:
            raise ToolFailure("owner_id must be a member of the new chat", kind="conflict",
                              code=IM_INVALID_PARAM)
        owner = owner_user["open_id"]
    chat = env.tree.create(
        "chats",
        {"name": data.name, "description": data.description or "", "owner_id": owner, "chat_mode": "group",
         "chat_type": data.chat_type or "private", "create_time": str(env.now())},
    )
    for uid in members:
        env.tree.create(f"chats[{chat['chat_id']}].members",
                        {"member_id": uid, "name": env.tree.get(f"users[{uid}]")["name"]})
    return _chat_view(chat)
