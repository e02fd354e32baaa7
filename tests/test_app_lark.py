"""The Lark app through the real MCP path: every tool's success path and its four error classes.

Each call goes through ``mcp.Client`` against the app's ``MCPServer``; writes are checked against
``env.tree.data`` (and an entity-level diff), failures against the Lark error code, the message and an
unchanged state hash.
"""

from __future__ import annotations

import json
import re
from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

import pytest

from app_harness import AppSession
from mcp_persona.apps import get_app
from mcp_persona.apps.base import AppEnv
from mcp_persona.clock import TaskClock

pytestmark = pytest.mark.anyio


APP = get_app("lark")
SH = ZoneInfo("Asia/Shanghai")
NOW = 1773106200  # app_harness.CLOCK (Tuesday 2026-03-10, 09:30 in Shanghai) as unix seconds

FIELD_VALIDATION = 99992402
INVALID_PARAMS = 190002
CALENDAR_NOT_FOUND = 191001
NO_CALENDAR_ACCESS = 191002
EVENT_NOT_FOUND = 193001
USER_NOT_FOUND = 41012
IM_INVALID_PARAM = 230001
NOT_IN_CHAT = 230002
CHAT_NOT_FOUND = 232010

# -- chen_yu ----------------------------------------------------------------------------------------
ME = "ou_a4c123b1612dd272d1371c17149d4395"  # Chen Yu
SONG = "ou_28f219e9cb0eb53f16947ccf25ec84d8"  # Song Ke, director
ZHAO = "ou_043b026c48bbf33feff9243a8f506b40"  # Zhao Min, +8613800138000
LI = "ou_23c6f5da2cec255404e4fb440034d660"  # Li Minghui
WANG = "ou_68ef786e4d3cea27d26934b484e73cf5"  # Wang Fang
LIU = "ou_5d2802827283e0ad84173581569969e5"  # Liu Yang
ZHOU = "ou_58e08baa7196b50ac2f86702824c1c09"  # Zhou Jie, resigned
SUN = "ou_7efc2f91624a8940f1f836f99eee3692"  # Sun Lei
ZHAO_USER_ID = "7tfq7xkw"
SUN_USER_ID = "4bs3e62r"

PRIMARY = "feishu.cn_vzhmasqxezyex1rdrgdsjp@group.calendar.feishu.cn"
TEAM = "feishu.cn_r16umx1bz99nfd02is5d9i@group.calendar.feishu.cn"  # writer
HOLIDAYS = "feishu.cn_k40vstqqzpt49zhkken659@group.calendar.feishu.cn"  # reader

EV_SYNC = "5534a034-e800-4d90-b3f6-e53d3853933d_0"  # Tue 3/10 14:00-15:00, primary
EV_REVIEW = "27855798-394a-4be9-9bea-705ec879b663_0"  # Wed 3/11 10:00-11:30, primary
EV_ONE_ON_ONE = "6ba99d01-b7e4-4f36-968a-8c29b2217139_0"  # Thu 3/12 16:00-16:30, primary
EV_DENTIST = "b647e8a8-e5ee-4c91-b31b-bc4164b0bb14_0"  # Fri 3/13 09:00-10:00, primary
EV_LUMEN = "6b911f97-59f9-4b79-94ac-e1cb47a164e4_0"  # Mon 3/16 13:30-15:00, primary
EV_BUDGET = "b0882411-b775-40a4-bf16-8da7431dbc3f_0"  # Tue 3/17 10:00-11:00, team
EV_WORKSHOP = "ac9261f1-e429-487c-9ecc-7b5f75ff199d_0"  # Thu 3/19 14:00-17:00, team
EV_QINGMING = "080e31b0-3412-4822-93f3-88704fec0f40_0"  # Sat 4/4 all day, holidays

CHAT_SPRING = "oc_ff2d3c425c8d99d19bdd0b6cc60d5d32"  # group, 5 members, 4 messages
CHAT_DESIGN = "oc_8cb8cb4ba2e751989a01749ddb14f710"  # group, 4 members, 2 messages
CHAT_SONG = "oc_713a818d8962058765a6ca7cff00d796"  # p2p with Song Ke

MISSING_OPEN_ID = "ou_" + "0" * 32
MISSING_CHAT = "oc_" + "0" * 32
MISSING_CALENDAR = "feishu.cn_" + "a" * 22 + "@group.calendar.feishu.cn"
MISSING_EVENT = "00000000-0000-4000-8000-000000000000_0"

TOOLS = [
    "calendar_v4_calendar_list",
    "calendar_v4_calendar_primary",
    "calendar_v4_calendarEvent_list",
    "calendar_v4_calendarEvent_get",
    "calendar_v4_calendarEvent_create",
    "calendar_v4_calendarEvent_patch",
    "calendar_v4_calendarEventAttendee_create",
    "calendar_v4_freebusy_list",
    "contact_v3_user_batchGetId",
    "contact_v3_user_get",
    "im_v1_message_create",
    "im_v1_message_list",
    "im_v1_chat_get",
    "im_v1_chatMembers_get",
    "im_v1_chat_list",
    "im_v1_chat_create",
]


def ts(month: int, day: int, hour: int, minute: int = 0, *, year: int = 2026, tz: ZoneInfo = SH) -> str:
    return str(int(datetime(year, month, day, hour, minute, tzinfo=tz).timestamp()))


def text_msg(text: str) -> str:
    return json.dumps({"text": text})


class Lark(AppSession):
    """One episode of the Lark app and a connected client."""

    app = APP
    json_results = True

    async def ok(self, tool: str, args: dict[str, Any] | None = None) -> Any:
        body = await super().ok(tool, args)
        assert body["code"] == 0 and body["msg"] == "success", body
        return body["data"]

    async def fail(self, tool: str, args: dict[str, Any] | None, code: int, fragment: str) -> dict[str, Any]:
        """A rejected call: the error flag, Lark's code, ``fragment`` in the message, the state untouched."""
        body = await self.rejected(tool, args)
        assert body["code"] == code, body
        assert fragment in error_text(body), body
        return body


def error_text(body: dict[str, Any]) -> str:
    if body["code"] == FIELD_VALIDATION:
        assert body["msg"] == "field validation failed"
        return " | ".join(f"{v['field']}: {v['description']}" for v in body["error"]["field_violations"])
    return body["msg"]


def event_path(cal: str, ev: str) -> str:
    return f"calendars[{cal}].events[{ev}]"


# -- the server -------------------------------------------------------------------------------------
async def test_server_lists_exactly_the_sixteen_tools() -> None:
    async with Lark() as lark:
        listed = await lark.client.list_tools()
    assert sorted(t.name for t in listed.tools) == sorted(TOOLS)
    assert sorted(APP.tool_names) == sorted(TOOLS)


async def test_unknown_tool_and_unknown_top_level_argument() -> None:
    async with Lark() as lark:
        r = await lark.client.call_tool("calendar_v4_calendar_delete", {})
        assert r.is_error and "Unknown tool" in r.content[0].text
        await lark.fail("calendar_v4_calendar_list", {"page_size": 50}, FIELD_VALIDATION,
                        "page_size: Extra inputs are not permitted")


# -- calendar_v4_calendar_list ----------------------------------------------------------------------
async def test_calendar_list() -> None:
    async with Lark() as lark:
        data = await lark.ok("calendar_v4_calendar_list")
        assert data["has_more"] is False and data["page_token"] is None
        cals = {c["calendar_id"]: c for c in data["calendar_list"]}
        assert set(cals) == {PRIMARY, TEAM, HOLIDAYS}
        assert {cid: (c["type"], c["role"]) for cid, c in cals.items()} == {
            PRIMARY: ("primary", "owner"),
            TEAM: ("shared", "writer"),
            HOLIDAYS: ("shared", "reader"),
        }
        assert cals[TEAM]["summary"] == "Marketing Team" and cals[TEAM]["owner_id"] == SONG
        assert all("events" not in c for c in cals.values())
        same = await lark.ok("calendar_v4_calendar_list", {"params": {"page_size": 50}, "useUAT": True})
        assert same["calendar_list"] == data["calendar_list"]


# -- calendar_v4_calendar_primary -------------------------------------------------------------------
async def test_calendar_primary() -> None:
    async with Lark() as lark:
        data = await lark.ok("calendar_v4_calendar_primary")
        [entry] = data["calendars"]
        assert entry["user_id"] == ME
        assert entry["calendar"]["calendar_id"] == PRIMARY
        assert entry["calendar"]["role"] == "owner" and "events" not in entry["calendar"]
        by_user_id = await lark.ok("calendar_v4_calendar_primary", {"params": {"user_id_type": "user_id"}})
        assert by_user_id["calendars"][0]["user_id"] == "gmxg9edn"
        by_union = await lark.ok("calendar_v4_calendar_primary", {"params": {"user_id_type": "union_id"}})
        assert by_union["calendars"][0]["user_id"] == "on_fdaeeb975729fae923d5a4fd12aabfe2"


async def test_calendar_primary_missing_primary_calendar() -> None:
    async with Lark() as lark:
        lark.env.tree.delete(f"calendars[{PRIMARY}]")
        await lark.fail("calendar_v4_calendar_primary", {}, CALENDAR_NOT_FOUND, "calendar not found")


# -- calendar_v4_calendarEvent_list -----------------------------------------------------------------
async def test_event_list_sorted_and_windowed() -> None:
    async with Lark() as lark:
        data = await lark.ok("calendar_v4_calendarEvent_list", {"path": {"calendar_id": PRIMARY}})
        assert [e["event_id"] for e in data["items"]] == [EV_SYNC, EV_REVIEW, EV_ONE_ON_ONE, EV_DENTIST, EV_LUMEN]
        assert data["has_more"] is False
        first = data["items"][0]
        assert first["summary"] == "Weekly marketing sync"
        assert first["start_time"] == {"timestamp": ts(3, 10, 14), "timezone": "Asia/Shanghai"}
        assert first["organizer_calendar_id"] == PRIMARY and "attendees" not in first
        # "primary" is an alias of the user's primary calendar; the window keeps overlapping events only
        window = await lark.ok("calendar_v4_calendarEvent_list", {
            "path": {"calendar_id": "primary"},
            "params": {"start_time": ts(3, 11, 0), "end_time": ts(3, 13, 0), "page_size": 50},
        })
        assert [e["event_id"] for e in window["items"]] == [EV_REVIEW, EV_ONE_ON_ONE]
        edge = await lark.ok("calendar_v4_calendarEvent_list", {
            "path": {"calendar_id": PRIMARY}, "params": {"start_time": ts(3, 10, 15), "end_time": ts(3, 11, 10)},
        })
        assert [e["event_id"] for e in edge["items"]] == []  # sync ends at 15:00, review starts at 10:00
        team = await lark.ok("calendar_v4_calendarEvent_list", {"path": {"calendar_id": TEAM}})
        assert [e["event_id"] for e in team["items"]] == [EV_BUDGET, EV_WORKSHOP]
        readonly = await lark.ok("calendar_v4_calendarEvent_list", {"path": {"calendar_id": HOLIDAYS}})
        assert [e["summary"] for e in readonly["items"]] == ["Qingming Festival"]


async def test_event_list_pages_at_lark_minimum_page_size() -> None:
    async with Lark() as lark:
        for i in range(52):  # 5 seeded + 52 = 57 events on the primary calendar
            day = 20 + i % 8
            await lark.ok("calendar_v4_calendarEvent_create", {
                "path": {"calendar_id": PRIMARY},
                "data": {"summary": f"focus {i}", "start_time": {"timestamp": ts(3, day, 8, i % 50)},
                         "end_time": {"timestamp": ts(3, day, 9, i % 50)}},
            })
        args: dict[str, Any] = {"path": {"calendar_id": PRIMARY}, "params": {"page_size": 50}}
        first = await lark.ok("calendar_v4_calendarEvent_list", args)
        assert len(first["items"]) == 50 and first["has_more"] is True and first["page_token"]
        args["params"]["page_token"] = first["page_token"]
        second = await lark.ok("calendar_v4_calendarEvent_list", args)
        assert len(second["items"]) == 7 and second["has_more"] is False
        ids = [e["event_id"] for e in first["items"] + second["items"]]
        assert len(set(ids)) == 57


# -- calendar_v4_calendarEvent_get ------------------------------------------------------------------
async def test_event_get_with_and_without_attendees() -> None:
    async with Lark() as lark:
        plain = await lark.ok("calendar_v4_calendarEvent_get",
                              {"path": {"calendar_id": PRIMARY, "event_id": EV_SYNC}})
        ev = plain["event"]
        assert ev["event_id"] == EV_SYNC and ev["summary"] == "Weekly marketing sync"
        assert ev["location"] == {"name": "Room 3F-Aurora"} and ev["organizer_id"] == ME
        assert "attendees" not in ev
        full = await lark.ok("calendar_v4_calendarEvent_get", {
            "path": {"calendar_id": PRIMARY, "event_id": EV_SYNC}, "params": {"need_attendee": True},
        })
        people = {a["user_id"]: a for a in full["event"]["attendees"]}
        assert set(people) == {ME, SONG, LI}
        assert people[ME]["is_organizer"] is True and people[SONG]["display_name"] == "Song Ke"
        short = await lark.ok("calendar_v4_calendarEvent_get", {
            "path": {"calendar_id": "primary", "event_id": EV_REVIEW},
            "params": {"need_attendee": True, "user_id_type": "user_id"},
        })
        assert {a["user_id"] for a in short["event"]["attendees"]} == {"gmxg9edn", ZHAO_USER_ID, "qns6puq8"}
        other = await lark.ok("calendar_v4_calendarEvent_get",
                              {"path": {"calendar_id": HOLIDAYS, "event_id": EV_QINGMING}})
        assert other["event"]["organizer_calendar_id"] == HOLIDAYS


# -- calendar_v4_calendarEvent_create ---------------------------------------------------------------
async def test_event_create_on_primary_writes_exactly_one_event() -> None:
    async with Lark() as lark:
        args = {
            "path": {"calendar_id": PRIMARY},
            "data": {
                "summary": "Campaign retro",
                "description": "What worked in the spring launch",
                "start_time": {"timestamp": ts(3, 11, 15)},
                "end_time": {"timestamp": ts(3, 11, 16), "timezone": "Asia/Shanghai"},
                "location": {"name": "Room 3F-Aurora"},
                "visibility": "public",
            },
        }
        data, changes = await lark.changes("calendar_v4_calendarEvent_create", args)
        ev = data["event"]
        assert re.fullmatch(r"[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}_0", ev["event_id"])
        [change] = changes
        assert (change.op, change.entity_type, change.path) == ("create", "event", event_path(PRIMARY, ev["event_id"]))
        stored = lark.data["calendars"][PRIMARY]["events"][ev["event_id"]]
        assert stored == {
            "event_id": ev["event_id"],
            "summary": "Campaign retro",
            "description": "What worked in the spring launch",
            "start_time": {"timestamp": ts(3, 11, 15), "timezone": "Asia/Shanghai"},
            "end_time": {"timestamp": ts(3, 11, 16), "timezone": "Asia/Shanghai"},
            "location": {"name": "Room 3F-Aurora"},
            "visibility": "public",
            "attendee_ability": "none",
            "free_busy_status": "busy",
            "status": "confirmed",
            "organizer_id": ME,
            "create_time": str(NOW + 1),  # the task clock, not the wall clock
            "attendees": {},
        }
        assert ev == {k: v for k, v in stored.items() if k != "attendees"} | {"organizer_calendar_id": PRIMARY}
        listed = await lark.ok("calendar_v4_calendarEvent_list", {
            "path": {"calendar_id": "primary"}, "params": {"start_time": ts(3, 11, 0), "end_time": ts(3, 12, 0)},
        })
        assert [e["summary"] for e in listed["items"]] == ["Spring campaign creative review", "Campaign retro"]


async def test_event_create_uses_the_task_clock_and_its_zone() -> None:
    sg = ZoneInfo("Asia/Singapore")
    clock = TaskClock(now=datetime(2026, 3, 10, 9, 30), timezone="Asia/Singapore")
    async with Lark("maya_patel", clock) as lark:
        first = await lark.ok("calendar_v4_calendarEvent_create", {
            "path": {"calendar_id": "primary"},
            "data": {"summary": "Launch FAQ review", "start_time": {"timestamp": ts(3, 12, 14, tz=sg)},
                     "end_time": {"timestamp": ts(3, 12, 15, tz=sg)}},
        })
        second = await lark.ok("calendar_v4_calendarEvent_create", {
            "path": {"calendar_id": "primary"},
            "data": {"summary": "Offsite", "start_time": {"date": "2026-03-23"}, "end_time": {"date": "2026-03-24"}},
        })
    assert first["event"]["start_time"] == {"timestamp": ts(3, 12, 14, tz=sg), "timezone": "Asia/Singapore"}
    assert first["event"]["create_time"] == str(clock.timestamp() + 1)
    assert second["event"]["create_time"] == str(clock.timestamp() + 2)
    assert second["event"]["start_time"] == {"date": "2026-03-23", "timezone": "Asia/Singapore"}


async def test_event_create_on_writer_calendar_and_all_day() -> None:
    async with Lark() as lark:
        data = await lark.ok("calendar_v4_calendarEvent_create", {
            "path": {"calendar_id": TEAM},
            "data": {"summary": "Team offsite", "start_time": {"date": "2026-03-20"},
                     "end_time": {"date": "2026-03-21"}, "free_busy_status": "free"},
        })
        ev = lark.data["calendars"][TEAM]["events"][data["event"]["event_id"]]
        assert ev["start_time"] == {"date": "2026-03-20", "timezone": "Asia/Shanghai"}
        assert ev["free_busy_status"] == "free" and ev["organizer_id"] == ME
        assert data["event"]["organizer_calendar_id"] == TEAM


# -- calendar_v4_calendarEvent_patch ----------------------------------------------------------------
async def test_event_patch_changes_only_the_given_fields() -> None:
    async with Lark() as lark:
        before = dict(lark.data["calendars"][PRIMARY]["events"][EV_SYNC])
        data, changes = await lark.changes("calendar_v4_calendarEvent_patch", {
            "path": {"calendar_id": PRIMARY, "event_id": EV_SYNC},
            "data": {"summary": "Weekly marketing sync (moved)", "start_time": {"timestamp": ts(3, 10, 16)},
                     "end_time": {"timestamp": ts(3, 10, 17)}},
        })
        [change] = changes
        assert (change.op, change.path) == ("modify", event_path(PRIMARY, EV_SYNC))
        assert set(change.fields) == {"summary", "start_time", "end_time"}
        after = lark.data["calendars"][PRIMARY]["events"][EV_SYNC]
        assert after["summary"] == "Weekly marketing sync (moved)"
        assert after["start_time"] == {"timestamp": ts(3, 10, 16), "timezone": "Asia/Shanghai"}
        assert after["end_time"] == {"timestamp": ts(3, 10, 17), "timezone": "Asia/Shanghai"}
        assert {k: v for k, v in after.items() if k not in change.fields} == {
            k: v for k, v in before.items() if k not in change.fields
        }
        assert data["event"]["summary"] == "Weekly marketing sync (moved)"
        # only end_time: checked against the stored start
        _, changes = await lark.changes("calendar_v4_calendarEvent_patch", {
            "path": {"calendar_id": PRIMARY, "event_id": EV_SYNC}, "data": {"end_time": {"timestamp": ts(3, 10, 18)}},
        })
        assert [c.fields for c in changes] == [("end_time",)]


async def test_event_patch_on_writer_calendar_and_empty_patch() -> None:
    async with Lark() as lark:
        _, changes = await lark.changes("calendar_v4_calendarEvent_patch", {
            "path": {"calendar_id": TEAM, "event_id": EV_WORKSHOP},
            "data": {"location": {"name": "Room 2F-Delta"}, "attendee_ability": "can_invite_others"},
        })
        assert [(c.path, c.fields) for c in changes] == [
            (event_path(TEAM, EV_WORKSHOP), ("attendee_ability", "location"))
        ]
        assert lark.data["calendars"][TEAM]["events"][EV_WORKSHOP]["location"] == {"name": "Room 2F-Delta"}
        h = lark.env.tree.hash()
        data = await lark.ok("calendar_v4_calendarEvent_patch", {"path": {"calendar_id": PRIMARY, "event_id": EV_SYNC}})
        assert data["event"]["event_id"] == EV_SYNC and lark.env.tree.hash() == h


# -- calendar_v4_calendarEventAttendee_create -------------------------------------------------------
async def test_attendee_create_links_the_open_id() -> None:
    async with Lark() as lark:
        data, changes = await lark.changes("calendar_v4_calendarEventAttendee_create", {
            "path": {"calendar_id": PRIMARY, "event_id": EV_SYNC},
            "data": {"attendees": [{"type": "user", "user_id": SUN, "is_optional": True}]},
        })
        [att] = data["attendees"]
        assert re.fullmatch(r"user_\d{19}", att["attendee_id"])
        [change] = changes
        assert (change.op, change.entity_type) == ("create", "attendee")
        assert change.path == f"{event_path(PRIMARY, EV_SYNC)}.attendees[{att['attendee_id']}]"
        stored = lark.data["calendars"][PRIMARY]["events"][EV_SYNC]["attendees"][att["attendee_id"]]
        assert stored == {
            "attendee_id": att["attendee_id"],
            "type": "user",
            "user_id": SUN,
            "display_name": "Sun Lei",
            "rsvp_status": "needs_action",
            "is_optional": True,
            "is_organizer": False,
        }
        assert att == stored
        # inviting someone already invited answers the existing attendee and writes nothing
        h = lark.env.tree.hash()
        again = await lark.ok("calendar_v4_calendarEventAttendee_create", {
            "path": {"calendar_id": PRIMARY, "event_id": EV_SYNC},
            "data": {"attendees": [{"type": "user", "user_id": SONG}]},
        })
        assert again["attendees"][0]["user_id"] == SONG and again["attendees"][0]["rsvp_status"] == "accept"
        assert lark.env.tree.hash() == h


async def test_attendee_create_by_user_id_type() -> None:
    async with Lark() as lark:
        data = await lark.ok("calendar_v4_calendarEventAttendee_create", {
            "path": {"calendar_id": TEAM, "event_id": EV_BUDGET},
            "params": {"user_id_type": "user_id"},
            "data": {"attendees": [{"type": "user", "user_id": SUN_USER_ID}]},
        })
        [att] = data["attendees"]
        assert att["user_id"] == SUN_USER_ID  # answered in the requested id type
        stored = lark.data["calendars"][TEAM]["events"][EV_BUDGET]["attendees"][att["attendee_id"]]
        assert stored["user_id"] == SUN  # stored as the open_id


async def test_phone_number_resolved_then_invited() -> None:
    """The implicit-context path: a phone number is not an attendee id; resolve it first."""
    async with Lark() as lark:
        await lark.fail("calendar_v4_calendarEventAttendee_create", {
            "path": {"calendar_id": PRIMARY, "event_id": EV_SYNC},
            "data": {"attendees": [{"type": "user", "user_id": "+86 13800138000"}]},
        }, INVALID_PARAMS, "invalid user_id '+86 13800138000' for user_id_type open_id")
        found = await lark.ok("contact_v3_user_batchGetId", {"data": {"mobiles": ["+86 13800138000"]}})
        assert found == {"user_list": [{"mobile": "+86 13800138000", "user_id": ZHAO}]}
        open_id = found["user_list"][0]["user_id"]
        _, changes = await lark.changes("calendar_v4_calendarEventAttendee_create", {
            "path": {"calendar_id": PRIMARY, "event_id": EV_SYNC},
            "data": {"attendees": [{"type": "user", "user_id": open_id}]},
        })
        [change] = changes
        assert change.op == "create" and change.after is not None
        assert change.after["user_id"] == ZHAO and change.after["display_name"] == "Zhao Min"
        ev = await lark.ok("calendar_v4_calendarEvent_get", {
            "path": {"calendar_id": PRIMARY, "event_id": EV_SYNC}, "params": {"need_attendee": True},
        })
        assert {a["user_id"] for a in ev["event"]["attendees"]} == {ME, SONG, LI, ZHAO}


async def test_attendee_batch_is_all_or_nothing() -> None:
    async with Lark() as lark:
        await lark.fail("calendar_v4_calendarEventAttendee_create", {
            "path": {"calendar_id": PRIMARY, "event_id": EV_SYNC},
            "data": {"attendees": [{"type": "user", "user_id": SUN}, {"type": "user", "user_id": MISSING_OPEN_ID}]},
        }, INVALID_PARAMS, "attendees[1]: invalid user_id")
        attendees = lark.data["calendars"][PRIMARY]["events"][EV_SYNC]["attendees"]
        assert SUN not in {a["user_id"] for a in attendees.values()}


# -- calendar_v4_freebusy_list ----------------------------------------------------------------------
def busy(*spans: tuple[str, str]) -> list[dict[str, str]]:
    return [{"start_time": f"2026-{s}:00+08:00", "end_time": f"2026-{e}:00+08:00"} for s, e in spans]


async def test_freebusy_of_me_and_of_others() -> None:
    async with Lark() as lark:
        today = await lark.ok("calendar_v4_freebusy_list", {
            "data": {"time_min": "2026-03-10T00:00:00+08:00", "time_max": "2026-03-11T00:00:00+08:00"},
        })
        assert today == {"freebusy_list": busy(("03-10T14:00", "03-10T15:00"))}
        week = await lark.ok("calendar_v4_freebusy_list", {
            "data": {"time_min": "2026-03-09T00:00:00+08:00", "time_max": "2026-03-21T00:00:00+08:00"},
        })
        assert week["freebusy_list"] == busy(
            ("03-10T14:00", "03-10T15:00"), ("03-11T10:00", "03-11T11:30"), ("03-12T16:00", "03-12T16:30"),
            ("03-13T09:00", "03-13T10:00"), ("03-16T13:30", "03-16T15:00"), ("03-17T10:00", "03-17T11:00"),
            ("03-19T14:00", "03-19T17:00"),
        )
        utc = await lark.ok("calendar_v4_freebusy_list", {
            "data": {"time_min": "2026-03-10T06:30:00Z", "time_max": "2026-03-10T06:45:00Z"},
        })
        assert utc["freebusy_list"] == busy(("03-10T14:00", "03-10T15:00"))
        liu = await lark.ok("calendar_v4_freebusy_list", {
            "data": {"time_min": "2026-03-09T00:00:00+08:00", "time_max": "2026-03-21T00:00:00+08:00",
                     "user_id": LIU},
        })
        assert liu["freebusy_list"] == busy(("03-19T14:00", "03-19T17:00"))
        zhao = await lark.ok("calendar_v4_freebusy_list", {
            "params": {"user_id_type": "user_id"},
            "data": {"time_min": "2026-03-11T00:00:00+08:00", "time_max": "2026-03-12T00:00:00+08:00",
                     "user_id": ZHAO_USER_ID},
        })
        assert zhao["freebusy_list"] == busy(("03-11T10:00", "03-11T11:30"))
        touching = await lark.ok("calendar_v4_freebusy_list", {  # [15:00, 10:00 next day): sync ended, review not begun
            "data": {"time_min": "2026-03-10T15:00:00+08:00", "time_max": "2026-03-11T10:00:00+08:00"},
        })
        assert touching["freebusy_list"] == []


async def test_freebusy_skips_events_marked_free() -> None:
    async with Lark() as lark:
        window = {"data": {"time_min": "2026-03-10T17:00:00+08:00", "time_max": "2026-03-10T20:00:00+08:00"}}
        for status, hour in (("free", 17), ("busy", 19)):
            await lark.ok("calendar_v4_calendarEvent_create", {
                "path": {"calendar_id": PRIMARY},
                "data": {"summary": f"{status} slot", "free_busy_status": status,
                         "start_time": {"timestamp": ts(3, 10, hour)}, "end_time": {"timestamp": ts(3, 10, hour, 30)}},
            })
        assert (await lark.ok("calendar_v4_freebusy_list", window))["freebusy_list"] == busy(
            ("03-10T19:00", "03-10T19:30"))


async def test_freebusy_ignores_shared_calendars_one_only_owns() -> None:
    """Song Ke owns the holiday calendar; a public holiday on it does not make her busy."""
    async with Lark() as lark:
        song = await lark.ok("calendar_v4_freebusy_list", {
            "data": {"time_min": "2026-04-04T00:00:00+08:00", "time_max": "2026-04-05T00:00:00+08:00",
                     "user_id": SONG},
        })
        assert song["freebusy_list"] == []
        # a new event counts for the people invited to it
        ev = await lark.ok("calendar_v4_calendarEvent_create", {
            "path": {"calendar_id": TEAM},
            "data": {"summary": "Budget prep", "start_time": {"timestamp": ts(3, 18, 9)},
                     "end_time": {"timestamp": ts(3, 18, 10)}},
        })
        args = {"data": {"time_min": "2026-03-18T00:00:00+08:00", "time_max": "2026-03-19T00:00:00+08:00",
                         "user_id": SUN}}
        assert (await lark.ok("calendar_v4_freebusy_list", args))["freebusy_list"] == []
        await lark.ok("calendar_v4_calendarEventAttendee_create", {
            "path": {"calendar_id": TEAM, "event_id": ev["event"]["event_id"]},
            "data": {"attendees": [{"type": "user", "user_id": SUN}]},
        })
        assert (await lark.ok("calendar_v4_freebusy_list", args))["freebusy_list"] == busy(
            ("03-18T09:00", "03-18T10:00"))


# -- contact_v3_user_batchGetId ---------------------------------------------------------------------
async def test_batch_get_id_by_mobile_and_email() -> None:
    async with Lark() as lark:
        data = await lark.ok("contact_v3_user_batchGetId", {
            "data": {"mobiles": ["13800138000", "+8613700001111", "+86 139 0000 0000"],
                     "emails": ["Song.Ke@OrbitLab.cn", "nobody@orbitlab.cn"]},
        })
        assert data["user_list"] == [
            {"email": "Song.Ke@OrbitLab.cn", "user_id": SONG},
            {"email": "nobody@orbitlab.cn"},
            {"mobile": "13800138000", "user_id": ZHAO},
            {"mobile": "+8613700001111", "user_id": SONG},
            {"mobile": "+86 139 0000 0000"},
        ]
        short = await lark.ok("contact_v3_user_batchGetId", {
            "params": {"user_id_type": "user_id"}, "data": {"emails": ["zhao.min@orbitlab.cn"]},
        })
        assert short["user_list"] == [{"email": "zhao.min@orbitlab.cn", "user_id": ZHAO_USER_ID}]


async def test_batch_get_id_hides_resigned_users_unless_asked() -> None:
    async with Lark() as lark:
        hidden = await lark.ok("contact_v3_user_batchGetId", {"data": {"emails": ["zhou.jie@orbitlab.cn"]}})
        assert hidden["user_list"] == [{"email": "zhou.jie@orbitlab.cn"}]
        shown = await lark.ok("contact_v3_user_batchGetId",
                              {"data": {"emails": ["zhou.jie@orbitlab.cn"], "include_resigned": True}})
        assert shown["user_list"] == [{"email": "zhou.jie@orbitlab.cn", "user_id": ZHOU}]


# -- contact_v3_user_get ----------------------------------------------------------------------------
async def test_user_get() -> None:
    async with Lark() as lark:
        data = await lark.ok("contact_v3_user_get", {"path": {"user_id": ZHAO}})
        user = data["user"]
        assert user["name"] == "Zhao Min" and user["email"] == "zhao.min@orbitlab.cn"
        assert user["mobile"] == "+8613800138000" and user["department"] == "Design"
        assert user["job_title"] == "Senior Designer" and user["open_id"] == ZHAO
        by_short = await lark.ok("contact_v3_user_get",
                                 {"path": {"user_id": SUN_USER_ID}, "params": {"user_id_type": "user_id"}})
        assert by_short["user"]["open_id"] == SUN and by_short["user"]["name"] == "Sun Lei"
        resigned = await lark.ok("contact_v3_user_get", {"path": {"user_id": ZHOU}})
        assert resigned["user"]["is_resigned"] is True


# -- im_v1_message_create ---------------------------------------------------------------------------
async def test_message_create_in_a_group_chat() -> None:
    async with Lark() as lark:
        content = json.dumps({"text": "Poster v2 looks great — approved! 👍"}, ensure_ascii=False)
        data, changes = await lark.changes("im_v1_message_create", {
            "params": {"receive_id_type": "chat_id"},
            "data": {"receive_id": CHAT_SPRING, "msg_type": "text", "content": content},
        })
        [change] = changes
        assert (change.op, change.entity_type) == ("create", "message")
        assert change.path == f"chats[{CHAT_SPRING}].messages[{data['message_id']}]"
        assert re.fullmatch(r"om_[0-9a-f]{32}", data["message_id"])
        stored = lark.data["chats"][CHAT_SPRING]["messages"][data["message_id"]]
        assert stored["sender_id"] == ME and stored["msg_type"] == "text"
        assert stored["create_time"] == str((NOW + 1) * 1000)  # ms, from the task clock
        assert isinstance(stored["content"], str)
        assert json.loads(stored["content"]) == {"text": "Poster v2 looks great — approved! 👍"}
        assert data == {
            "message_id": data["message_id"],
            "msg_type": "text",
            "create_time": str((NOW + 1) * 1000),
            "chat_id": CHAT_SPRING,
            "sender": {"id": ME, "id_type": "open_id", "sender_type": "user"},
            "body": {"content": stored["content"]},
        }


async def test_message_to_a_user_reuses_the_existing_p2p_chat() -> None:
    async with Lark() as lark:
        data, changes = await lark.changes("im_v1_message_create", {
            "params": {"receive_id_type": "open_id"},
            "data": {"receive_id": SONG, "msg_type": "text", "content": text_msg("Summary sent.")},
        })
        assert data["chat_id"] == CHAT_SONG
        assert [(c.op, c.entity_type) for c in changes] == [("create", "message")]
        assert len(lark.data["chats"]) == 3


async def test_first_message_to_a_user_creates_the_p2p_chat() -> None:
    async with Lark() as lark:
        data, changes = await lark.changes("im_v1_message_create", {
            "params": {"receive_id_type": "email"},
            "data": {"receive_id": "Zhao.Min@orbitlab.cn", "msg_type": "text", "content": text_msg("Hi Zhao!")},
        })
        chat_id = data["chat_id"]
        assert chat_id not in (CHAT_SPRING, CHAT_DESIGN, CHAT_SONG)
        assert re.fullmatch(r"oc_[0-9a-f]{32}", chat_id)
        [change] = changes  # the new chat covers its members and the message
        assert (change.op, change.entity_type, change.path) == ("create", "chat", f"chats[{chat_id}]")
        chat = lark.data["chats"][chat_id]
        assert {k: v for k, v in chat.items() if k not in ("members", "messages")} == {
            "chat_id": chat_id,
            "name": "Zhao Min",
            "description": "",
            "chat_mode": "p2p",
            "chat_type": "private",
            "owner_id": ME,
            "create_time": str(NOW + 1),
        }
        assert chat["members"] == {
            ME: {"member_id": ME, "name": "Chen Yu"},
            ZHAO: {"member_id": ZHAO, "name": "Zhao Min"},
        }
        [msg] = chat["messages"].values()
        assert msg["create_time"] == str((NOW + 2) * 1000) and json.loads(msg["content"]) == {"text": "Hi Zhao!"}
        # the second message goes to the same chat
        again = await lark.ok("im_v1_message_create", {
            "params": {"receive_id_type": "user_id"},
            "data": {"receive_id": ZHAO_USER_ID, "msg_type": "text", "content": text_msg("Also: poster sizes?")},
        })
        assert again["chat_id"] == chat_id and len(lark.data["chats"][chat_id]["messages"]) == 2
        assert len(lark.data["chats"]) == 4
        listed = await lark.ok("im_v1_chat_list")
        assert chat_id in [c["chat_id"] for c in listed["items"]]


# -- im_v1_message_list -----------------------------------------------------------------------------
SPRING_MESSAGES = [
    "om_cbe54014c2b54b95523cf6941fa1c257",
    "om_c6f561c5cb347611a3ce9d97dcbee500",
    "om_fe7ee5fc324bdb2e1142a21c402364f9",
    "om_572b85a8e48f687ab165c58ac5831be3",
]


async def test_message_list_order_window_and_pages() -> None:
    async with Lark() as lark:
        base = {"container_id_type": "chat", "container_id": CHAT_SPRING}
        data = await lark.ok("im_v1_message_list", {"params": base})
        assert [m["message_id"] for m in data["items"]] == SPRING_MESSAGES and data["has_more"] is False
        first = data["items"][0]
        assert first["chat_id"] == CHAT_SPRING and first["sender"]["id"] == LI
        assert json.loads(first["body"]["content"])["text"] == "Draft copy for the launch post is in the shared folder."
        desc = await lark.ok("im_v1_message_list", {"params": base | {"sort_type": "ByCreateTimeDesc"}})
        assert [m["message_id"] for m in desc["items"]] == SPRING_MESSAGES[::-1]
        window = await lark.ok("im_v1_message_list", {
            "params": base | {"start_time": ts(3, 9, 11), "end_time": ts(3, 9, 18)},
        })
        assert [m["message_id"] for m in window["items"]] == SPRING_MESSAGES[1:3]
        page1 = await lark.ok("im_v1_message_list", {"params": base | {"page_size": 3}})
        assert [m["message_id"] for m in page1["items"]] == SPRING_MESSAGES[:3] and page1["has_more"] is True
        page2 = await lark.ok("im_v1_message_list", {"params": base | {"page_size": 3,
                                                                        "page_token": page1["page_token"]}})
        assert [m["message_id"] for m in page2["items"]] == SPRING_MESSAGES[3:] and page2["has_more"] is False
        sent = await lark.ok("im_v1_message_create", {
            "params": {"receive_id_type": "chat_id"},
            "data": {"receive_id": CHAT_SPRING, "msg_type": "text", "content": text_msg("Noted.")},
        })
        latest = await lark.ok("im_v1_message_list", {"params": base | {"sort_type": "ByCreateTimeDesc",
                                                                         "page_size": 1}})
        assert latest["items"][0]["message_id"] == sent["message_id"]


# -- im_v1_chat_get / im_v1_chatMembers_get / im_v1_chat_list ---------------------------------------
async def test_chat_get() -> None:
    async with Lark() as lark:
        data = await lark.ok("im_v1_chat_get", {"path": {"chat_id": CHAT_SPRING}})
        assert data == {
            "chat_id": CHAT_SPRING,
            "name": "Spring Campaign 2026",
            "description": "Everything about the spring campaign launch",
            "chat_mode": "group",
            "chat_type": "private",
            "owner_id": ME,
            "create_time": "1767574800",
            "user_count": "5",
        }
        p2p = await lark.ok("im_v1_chat_get", {"path": {"chat_id": CHAT_SONG}})
        assert p2p["chat_mode"] == "p2p" and p2p["user_count"] == "2"


async def test_chat_members_get() -> None:
    async with Lark() as lark:
        data = await lark.ok("im_v1_chatMembers_get", {"path": {"chat_id": CHAT_DESIGN}})
        assert data["member_total"] == 4 and data["has_more"] is False
        assert {(m["member_id"], m["name"]) for m in data["items"]} == {
            (ZHAO, "Zhao Min"), (ME, "Chen Yu"), (LIU, "Liu Yang"), (SUN, "Sun Lei"),
        }
        assert all(m["member_id_type"] == "open_id" for m in data["items"])
        short = await lark.ok("im_v1_chatMembers_get", {
            "path": {"chat_id": CHAT_DESIGN}, "params": {"member_id_type": "user_id", "page_size": 3},
        })
        assert [m["member_id"] for m in short["items"]] == [ZHAO_USER_ID, "gmxg9edn", "rwbqcab6"]
        assert short["has_more"] is True and short["member_total"] == 4
        rest = await lark.ok("im_v1_chatMembers_get", {
            "path": {"chat_id": CHAT_DESIGN},
            "params": {"member_id_type": "user_id", "page_size": 3, "page_token": short["page_token"]},
        })
        assert [m["member_id"] for m in rest["items"]] == [SUN_USER_ID] and rest["has_more"] is False


async def test_chat_list() -> None:
    async with Lark() as lark:
        data = await lark.ok("im_v1_chat_list")
        assert [c["chat_id"] for c in data["items"]] == [CHAT_SPRING, CHAT_DESIGN, CHAT_SONG]
        assert [c["user_count"] for c in data["items"]] == ["5", "4", "2"]
        assert all("members" not in c and "messages" not in c for c in data["items"])
        page = await lark.ok("im_v1_chat_list", {"params": {"page_size": 2}})
        assert len(page["items"]) == 2 and page["has_more"] is True
        lark.env.tree.delete(f"chats[{CHAT_DESIGN}].members[{ME}]")  # left the design chat
        left = await lark.ok("im_v1_chat_list")
        assert [c["chat_id"] for c in left["items"]] == [CHAT_SPRING, CHAT_SONG]


# -- im_v1_chat_create ------------------------------------------------------------------------------
async def test_chat_create() -> None:
    async with Lark() as lark:
        data, changes = await lark.changes("im_v1_chat_create", {
            "data": {"name": "Poster print run", "description": "Lumen Retail posters",
                     "user_id_list": [ZHAO, WANG, ZHAO, ME]},
        })
        chat_id = data["chat_id"]
        [change] = changes
        assert (change.op, change.entity_type, change.path) == ("create", "chat", f"chats[{chat_id}]")
        chat = lark.data["chats"][chat_id]
        assert {k: v for k, v in chat.items() if k not in ("members", "messages")} == {
            "chat_id": chat_id,
            "name": "Poster print run",
            "description": "Lumen Retail posters",
            "owner_id": ME,
            "chat_mode": "group",
            "chat_type": "private",
            "create_time": str(NOW + 1),
        }
        assert chat["members"] == {
            ME: {"member_id": ME, "name": "Chen Yu"},
            ZHAO: {"member_id": ZHAO, "name": "Zhao Min"},
            WANG: {"member_id": WANG, "name": "Wang Fang"},
        }
        assert data["user_count"] == "3" and data["name"] == "Poster print run"
        msg = await lark.ok("im_v1_message_create", {
            "params": {"receive_id_type": "chat_id"},
            "data": {"receive_id": chat_id, "msg_type": "text", "content": text_msg("Kick-off!")},
        })
        assert msg["chat_id"] == chat_id


async def test_chat_create_with_owner_and_user_id_type() -> None:
    async with Lark() as lark:
        data = await lark.ok("im_v1_chat_create", {
            "params": {"user_id_type": "user_id"},
            "data": {"name": "Data sync", "owner_id": SUN_USER_ID, "user_id_list": [SUN_USER_ID],
                     "chat_type": "public"},
        })
        chat = lark.data["chats"][data["chat_id"]]
        assert chat["owner_id"] == SUN and set(chat["members"]) == {ME, SUN} and chat["chat_type"] == "public"


# -- errors: type mismatch, missing field, out of range, semantic conflict, for every tool ----------
EV_SYNC_PATH = {"calendar_id": PRIMARY, "event_id": EV_SYNC}
TIMES = {"start_time": {"timestamp": ts(3, 11, 15)}, "end_time": {"timestamp": ts(3, 11, 16)}}
FB = {"time_min": "2026-03-10T00:00:00+08:00", "time_max": "2026-03-11T00:00:00+08:00"}
TO_SPRING = {"receive_id": CHAT_SPRING, "msg_type": "text"}
CHAT_PARAMS = {"receive_id_type": "chat_id"}
SPRING = {"container_id_type": "chat", "container_id": CHAT_SPRING}


def invite(*attendees: dict[str, Any]) -> dict[str, Any]:
    return {"path": EV_SYNC_PATH, "data": {"attendees": list(attendees)}}


def leave_design_chat(env: AppEnv) -> None:
    env.tree.delete(f"chats[{CHAT_DESIGN}].members[{ME}]")


def case(tool: str, args: dict[str, Any], code: int, fragment: str, *, id: str, setup: Any = None) -> Any:
    return pytest.param(tool, args, code, fragment, setup, id=id)


V = FIELD_VALIDATION
ERROR_CASES = [
    # calendar_v4_calendar_list
    case("calendar_v4_calendar_list", {"params": {"page_size": "many"}}, V,
         "params.page_size: Input should be a valid integer", id="calendar_list-type"),
    case("calendar_v4_calendar_list", {"params": {"page_size": 10}}, V,
         "params.page_size: Input should be greater than or equal to 50", id="calendar_list-range-low"),
    case("calendar_v4_calendar_list", {"params": {"page_size": 1001}}, V,
         "params.page_size: Input should be less than or equal to 1000", id="calendar_list-range-high"),
    case("calendar_v4_calendar_list", {"params": {"limit": 50}}, V,
         "params.limit: Extra inputs are not permitted", id="calendar_list-extra"),
    case("calendar_v4_calendar_list", {"params": {"page_token": "garbage!"}}, INVALID_PARAMS,
         "invalid page_token", id="calendar_list-bad-token"),
    # calendar_v4_calendar_primary
    case("calendar_v4_calendar_primary", {"params": "open_id"}, V, "params: Input should be",
         id="calendar_primary-type"),
    case("calendar_v4_calendar_primary", {"params": {"user_id_type": "email"}}, V,
         "params.user_id_type: Input should be 'open_id', 'user_id' or 'union_id'", id="calendar_primary-range"),
    case("calendar_v4_calendar_primary", {"useUAT": "perhaps"}, V, "useUAT: Input should be a valid boolean",
         id="calendar_primary-type-uat"),
    # calendar_v4_calendarEvent_list
    case("calendar_v4_calendarEvent_list", {"path": {"calendar_id": 123}}, V,
         "path.calendar_id: Input should be a valid string", id="event_list-type"),
    case("calendar_v4_calendarEvent_list", {}, V, "path: Field required", id="event_list-missing"),
    case("calendar_v4_calendarEvent_list", {"path": {}}, V, "path.calendar_id: Field required",
         id="event_list-missing-id"),
    case("calendar_v4_calendarEvent_list", {"path": {"calendar_id": PRIMARY}, "params": {"page_size": 10}}, V,
         "params.page_size: Input should be greater than or equal to 50", id="event_list-range"),
    case("calendar_v4_calendarEvent_list", {"path": {"calendar_id": PRIMARY},
                                            "params": {"start_time": "2026-03-10"}}, V,
         "params.start_time: String should match pattern", id="event_list-range-time-format"),
    case("calendar_v4_calendarEvent_list", {"path": {"calendar_id": MISSING_CALENDAR}}, CALENDAR_NOT_FOUND,
         f"calendar not found: {MISSING_CALENDAR}", id="event_list-unknown-calendar"),
    case("calendar_v4_calendarEvent_list", {"path": {"calendar_id": "Marketing Team"}}, CALENDAR_NOT_FOUND,
         "calendar not found: Marketing Team", id="event_list-name-not-id"),
    case("calendar_v4_calendarEvent_list", {"path": {"calendar_id": PRIMARY},
                                            "params": {"start_time": ts(3, 12, 0), "end_time": ts(3, 11, 0)}},
         INVALID_PARAMS, "end_time must be later than start_time", id="event_list-end-before-start"),
    # calendar_v4_calendarEvent_get
    case("calendar_v4_calendarEvent_get", {"path": {"calendar_id": PRIMARY, "event_id": ["x"]}}, V,
         "path.event_id: Input should be a valid string", id="event_get-type"),
    case("calendar_v4_calendarEvent_get", {"path": {"calendar_id": PRIMARY}}, V, "path.event_id: Field required",
         id="event_get-missing"),
    case("calendar_v4_calendarEvent_get", {"path": {"calendar_id": PRIMARY, "event_id": ""}}, V,
         "path.event_id: String should have at least 1 character", id="event_get-range"),
    case("calendar_v4_calendarEvent_get", {"path": EV_SYNC_PATH, "params": {"need_attendee": "of course"}}, V,
         "params.need_attendee: Input should be a valid boolean", id="event_get-type-bool"),
    case("calendar_v4_calendarEvent_get", {"path": {"calendar_id": PRIMARY, "event_id": MISSING_EVENT}},
         EVENT_NOT_FOUND, f"event not found: {MISSING_EVENT}", id="event_get-unknown-event"),
    case("calendar_v4_calendarEvent_get", {"path": {"calendar_id": PRIMARY, "event_id": EV_BUDGET}},
         EVENT_NOT_FOUND, "event not found", id="event_get-event-of-other-calendar"),
    case("calendar_v4_calendarEvent_get", {"path": {"calendar_id": MISSING_CALENDAR, "event_id": EV_SYNC}},
         CALENDAR_NOT_FOUND, "calendar not found", id="event_get-unknown-calendar"),
    # calendar_v4_calendarEvent_create
    case("calendar_v4_calendarEvent_create", {"path": {"calendar_id": PRIMARY},
                                              "data": {"summary": 42, **TIMES}}, V,
         "data.summary: Input should be a valid string", id="event_create-type"),
    case("calendar_v4_calendarEvent_create", {"path": {"calendar_id": PRIMARY},
                                              "data": {"start_time": {"timestamp": 1773212400},
                                                       "end_time": TIMES["end_time"]}}, V,
         "data.start_time.timestamp: Input should be a valid string", id="event_create-type-timestamp"),
    case("calendar_v4_calendarEvent_create", {"path": {"calendar_id": PRIMARY},
                                              "data": {"summary": "x", "end_time": TIMES["end_time"]}}, V,
         "data.start_time: Field required", id="event_create-missing-start"),
    case("calendar_v4_calendarEvent_create", {"path": {"calendar_id": PRIMARY}}, V, "data: Field required",
         id="event_create-missing-data"),
    case("calendar_v4_calendarEvent_create", {"path": {"calendar_id": PRIMARY},
                                              "data": {"summary": "x" * 1001, **TIMES}}, V,
         "data.summary: String should have at most 1000 characters", id="event_create-range-summary"),
    case("calendar_v4_calendarEvent_create", {"path": {"calendar_id": PRIMARY},
                                              "data": {"visibility": "secret", **TIMES}}, V,
         "data.visibility: Input should be 'default', 'public' or 'private'", id="event_create-range-enum"),
    case("calendar_v4_calendarEvent_create", {"path": {"calendar_id": PRIMARY},
                                              "data": {"attendees": [SONG], **TIMES}}, V,
         "data.attendees: Extra inputs are not permitted", id="event_create-extra-attendees"),
    case("calendar_v4_calendarEvent_create", {"path": {"calendar_id": PRIMARY},
                                              "data": {"summary": "x", "start_time": TIMES["end_time"],
                                                       "end_time": TIMES["start_time"]}},
         INVALID_PARAMS, "end_time must be later than start_time", id="event_create-end-before-start"),
    case("calendar_v4_calendarEvent_create", {"path": {"calendar_id": PRIMARY},
                                              "data": {"summary": "x", "start_time": TIMES["start_time"],
                                                       "end_time": TIMES["start_time"]}},
         INVALID_PARAMS, "end_time must be later than start_time", id="event_create-zero-length"),
    case("calendar_v4_calendarEvent_create", {"path": {"calendar_id": HOLIDAYS}, "data": {"summary": "x", **TIMES}},
         NO_CALENDAR_ACCESS, f"you are a reader of {HOLIDAYS}", id="event_create-read-only-calendar"),
    case("calendar_v4_calendarEvent_create", {"path": {"calendar_id": MISSING_CALENDAR},
                                              "data": {"summary": "x", **TIMES}},
         CALENDAR_NOT_FOUND, "calendar not found", id="event_create-unknown-calendar"),
    case("calendar_v4_calendarEvent_create", {"path": {"calendar_id": PRIMARY},
                                              "data": {"start_time": {"timestamp": ts(3, 11, 15), "date": "2026-03-11"},
                                                       "end_time": TIMES["end_time"]}},
         INVALID_PARAMS, "start_time: give exactly one of timestamp or date", id="event_create-both-time-forms"),
    case("calendar_v4_calendarEvent_create", {"path": {"calendar_id": PRIMARY},
                                              "data": {"start_time": {"timezone": "Asia/Shanghai"},
                                                       "end_time": TIMES["end_time"]}},
         INVALID_PARAMS, "start_time: give exactly one of timestamp or date", id="event_create-no-time"),
    case("calendar_v4_calendarEvent_create", {"path": {"calendar_id": PRIMARY},
                                              "data": {"start_time": {"date": "2026-02-30"},
                                                       "end_time": {"date": "2026-03-02"}}},
         INVALID_PARAMS, "start_time.date is not a real date: 2026-02-30", id="event_create-unreal-date"),
    case("calendar_v4_calendarEvent_create", {"path": {"calendar_id": PRIMARY},
                                              "data": {"start_time": {"timestamp": ts(3, 11, 15),
                                                                      "timezone": "Shanghai time"},
                                                       "end_time": TIMES["end_time"]}},
         INVALID_PARAMS, "invalid timezone: 'Shanghai time'", id="event_create-unknown-timezone"),
    # calendar_v4_calendarEvent_patch
    case("calendar_v4_calendarEvent_patch", {"path": EV_SYNC_PATH, "data": {"summary": 5}}, V,
         "data.summary: Input should be a valid string", id="event_patch-type"),
    case("calendar_v4_calendarEvent_patch", {"path": {"calendar_id": PRIMARY}, "data": {"summary": "x"}}, V,
         "path.event_id: Field required", id="event_patch-missing"),
    case("calendar_v4_calendarEvent_patch", {"path": EV_SYNC_PATH, "data": {"attendee_ability": "everything"}}, V,
         "data.attendee_ability: Input should be", id="event_patch-range"),
    case("calendar_v4_calendarEvent_patch", {"path": EV_SYNC_PATH, "data": {"location": {"name": "x" * 513}}}, V,
         "data.location.name: String should have at most 512 characters", id="event_patch-range-location"),
    case("calendar_v4_calendarEvent_patch", {"path": EV_SYNC_PATH, "data": {"status": "cancelled"}}, V,
         "data.status: Extra inputs are not permitted", id="event_patch-extra"),
    case("calendar_v4_calendarEvent_patch", {"path": EV_SYNC_PATH, "data": {"end_time": {"timestamp": ts(3, 10, 13)}}},
         INVALID_PARAMS, "end_time must be later than start_time", id="event_patch-end-before-stored-start"),
    case("calendar_v4_calendarEvent_patch", {"path": {"calendar_id": HOLIDAYS, "event_id": EV_QINGMING},
                                             "data": {"summary": "Day off"}},
         NO_CALENDAR_ACCESS, "no calendar access_role", id="event_patch-read-only-calendar"),
    case("calendar_v4_calendarEvent_patch", {"path": {"calendar_id": PRIMARY, "event_id": MISSING_EVENT},
                                             "data": {"summary": "x"}},
         EVENT_NOT_FOUND, "event not found", id="event_patch-unknown-event"),
    case("calendar_v4_calendarEvent_patch", {"path": {"calendar_id": TEAM, "event_id": EV_SYNC},
                                             "data": {"summary": "x"}},
         EVENT_NOT_FOUND, "event not found", id="event_patch-event-of-other-calendar"),
    case("calendar_v4_calendarEvent_patch", {"path": EV_SYNC_PATH,
                                             "data": {"start_time": {"timestamp": ts(3, 10, 16),
                                                                     "timezone": "GMT+8"}}},
         INVALID_PARAMS, "invalid timezone", id="event_patch-unknown-timezone"),
    # calendar_v4_calendarEventAttendee_create
    case("calendar_v4_calendarEventAttendee_create", {"path": EV_SYNC_PATH, "data": {"attendees": "Zhao Min"}}, V,
         "data.attendees: Input should be a valid list", id="attendee_create-type"),
    case("calendar_v4_calendarEventAttendee_create", invite({"type": "user", "user_id": 13800138000}), V,
         "data.attendees.0.user_id: Input should be a valid string", id="attendee_create-type-user-id"),
    case("calendar_v4_calendarEventAttendee_create", {"path": EV_SYNC_PATH, "data": {}}, V,
         "data.attendees: Field required", id="attendee_create-missing"),
    case("calendar_v4_calendarEventAttendee_create", {"path": EV_SYNC_PATH, "data": {"attendees": [{"user_id": ZHAO}]}},
         V, "data.attendees.0.type: Field required", id="attendee_create-missing-type"),
    case("calendar_v4_calendarEventAttendee_create", {"path": EV_SYNC_PATH, "data": {"attendees": [{"type": "user"}]}},
         INVALID_PARAMS, "attendees[0]: user_id is required for type user", id="attendee_create-missing-user-id"),
    case("calendar_v4_calendarEventAttendee_create", {"path": EV_SYNC_PATH, "data": {"attendees": []}}, V,
         "data.attendees: List should have at least 1 item", id="attendee_create-range-empty"),
    case("calendar_v4_calendarEventAttendee_create", {"path": EV_SYNC_PATH,
                                                      "data": {"attendees": [{"type": "robot", "user_id": ZHAO}]}},
         V, "data.attendees.0.type: Input should be", id="attendee_create-range-type"),
    case("calendar_v4_calendarEventAttendee_create", invite({"type": "chat", "chat_id": CHAT_SPRING}),
         INVALID_PARAMS, "attendees[0]: only type 'user' is supported", id="attendee_create-chat-attendee"),
    case("calendar_v4_calendarEventAttendee_create", {"path": EV_SYNC_PATH,
                                                      "data": {"attendees": [{"type": "user", "user_id": "Zhao Min"}]}},
         INVALID_PARAMS, "invalid user_id 'Zhao Min' for user_id_type open_id", id="attendee_create-name-not-id"),
    case("calendar_v4_calendarEventAttendee_create", {"path": EV_SYNC_PATH, "params": {"user_id_type": "user_id"},
                                                      "data": {"attendees": [{"type": "user", "user_id": ZHAO}]}},
         INVALID_PARAMS, "for user_id_type user_id", id="attendee_create-id-type-mismatch"),
    case("calendar_v4_calendarEventAttendee_create", {"path": {"calendar_id": HOLIDAYS, "event_id": EV_QINGMING},
                                                      "data": {"attendees": [{"type": "user", "user_id": ZHAO}]}},
         NO_CALENDAR_ACCESS, "no calendar access_role", id="attendee_create-read-only-calendar"),
    case("calendar_v4_calendarEventAttendee_create", {"path": {"calendar_id": PRIMARY, "event_id": MISSING_EVENT},
                                                      "data": {"attendees": [{"type": "user", "user_id": ZHAO}]}},
         EVENT_NOT_FOUND, "event not found", id="attendee_create-unknown-event"),
    # calendar_v4_freebusy_list
    case("calendar_v4_freebusy_list", {"data": {"time_min": 1773072000, "time_max": FB["time_max"]}}, V,
         "data.time_min: Input should be a valid string", id="freebusy-type"),
    case("calendar_v4_freebusy_list", {"data": {"time_min": FB["time_min"]}}, V, "data.time_max: Field required",
         id="freebusy-missing"),
    case("calendar_v4_freebusy_list", {"data": {"time_min": "2026-03-10T00:00:00", "time_max": FB["time_max"]}},
         INVALID_PARAMS, "time_min needs a UTC offset", id="freebusy-range-naive"),
    case("calendar_v4_freebusy_list", {"data": {"time_min": "next Tuesday", "time_max": FB["time_max"]}},
         INVALID_PARAMS, "time_min is not RFC 3339", id="freebusy-not-rfc3339"),
    case("calendar_v4_freebusy_list", {"data": {"time_min": FB["time_max"], "time_max": FB["time_min"]}},
         INVALID_PARAMS, "end_time must be later than start_time", id="freebusy-max-before-min"),
    case("calendar_v4_freebusy_list", {"data": {**FB, "user_id": "+8613800138000"}}, INVALID_PARAMS,
         "invalid user_id '+8613800138000'", id="freebusy-unknown-user"),
    # contact_v3_user_batchGetId
    case("contact_v3_user_batchGetId", {"data": {"mobiles": "13800138000"}}, V,
         "data.mobiles: Input should be a valid list", id="batch_get_id-type"),
    case("contact_v3_user_batchGetId", {"data": {}}, INVALID_PARAMS, "emails and mobiles cannot both be empty",
         id="batch_get_id-missing"),
    case("contact_v3_user_batchGetId", {}, INVALID_PARAMS, "emails and mobiles cannot both be empty",
         id="batch_get_id-missing-data"),
    case("contact_v3_user_batchGetId", {"data": {"emails": [f"u{i}@orbitlab.cn" for i in range(51)]}}, V,
         "data.emails: List should have at most 50 items", id="batch_get_id-range"),
    case("contact_v3_user_batchGetId", {"data": {"phones": ["13800138000"]}}, V,
         "data.phones: Extra inputs are not permitted", id="batch_get_id-extra"),
    case("contact_v3_user_batchGetId", {"params": {"user_id_type": "mobile"}, "data": {"mobiles": ["13800138000"]}},
         V, "params.user_id_type: Input should be", id="batch_get_id-range-id-type"),
    # contact_v3_user_get
    case("contact_v3_user_get", {"path": {"user_id": 7}}, V, "path.user_id: Input should be a valid string",
         id="user_get-type"),
    case("contact_v3_user_get", {"path": {}}, V, "path.user_id: Field required", id="user_get-missing"),
    case("contact_v3_user_get", {"path": {"user_id": ""}}, V, "path.user_id: String should have at least 1 character",
         id="user_get-range"),
    case("contact_v3_user_get", {"path": {"user_id": MISSING_OPEN_ID}}, USER_NOT_FOUND,
         f"user not found: {MISSING_OPEN_ID} (open_id)", id="user_get-unknown"),
    case("contact_v3_user_get", {"path": {"user_id": ZHAO}, "params": {"user_id_type": "user_id"}}, USER_NOT_FOUND,
         "(user_id)", id="user_get-id-type-mismatch"),
    case("contact_v3_user_get", {"path": {"user_id": "zhao.min@orbitlab.cn"}}, USER_NOT_FOUND, "user not found",
         id="user_get-email-not-id"),
    # im_v1_message_create
    case("im_v1_message_create", {"params": CHAT_PARAMS, "data": {**TO_SPRING, "content": {"text": "hi"}}}, V,
         "data.content: Input should be a valid string", id="message_create-type-content-object"),
    case("im_v1_message_create", {"params": CHAT_PARAMS,
                                  "data": {"receive_id": CHAT_SPRING, "content": text_msg("hi")}}, V,
         "data.msg_type: Field required", id="message_create-missing-msg-type"),
    case("im_v1_message_create", {"data": {**TO_SPRING, "content": text_msg("hi")}}, V, "params: Field required",
         id="message_create-missing-params"),
    case("im_v1_message_create", {"params": CHAT_PARAMS, "data": {**TO_SPRING, "msg_type": "markdown",
                                                                   "content": text_msg("hi")}},
         V, "data.msg_type: Input should be", id="message_create-range-msg-type"),
    case("im_v1_message_create", {"params": {"receive_id_type": "mobile"},
                                  "data": {**TO_SPRING, "receive_id": "+8613800138000", "content": text_msg("hi")}},
         V, "params.receive_id_type: Input should be", id="message_create-range-receive-id-type"),
    case("im_v1_message_create", {"params": CHAT_PARAMS, "data": {**TO_SPRING, "content": ""}}, V,
         "data.content: String should have at least 1 character", id="message_create-range-empty"),
    case("im_v1_message_create", {"params": CHAT_PARAMS, "data": {**TO_SPRING, "content": "Poster approved"}},
         IM_INVALID_PARAM, "content is not a valid JSON string", id="message_create-content-not-json"),
    case("im_v1_message_create", {"params": CHAT_PARAMS, "data": {**TO_SPRING, "content": '["hi"]'}},
         IM_INVALID_PARAM, "content must be a JSON object string", id="message_create-content-not-object"),
    case("im_v1_message_create", {"params": CHAT_PARAMS, "data": {**TO_SPRING, "content": '{"txt": "hi"}'}},
         IM_INVALID_PARAM, 'text message content needs a non-empty "text"', id="message_create-content-no-text"),
    case("im_v1_message_create", {"params": CHAT_PARAMS, "data": {**TO_SPRING, "receive_id": MISSING_CHAT,
                                                                   "content": text_msg("hi")}},
         IM_INVALID_PARAM, f"chat {MISSING_CHAT} not found", id="message_create-unknown-chat"),
    case("im_v1_message_create", {"params": CHAT_PARAMS, "data": {**TO_SPRING, "receive_id": CHAT_DESIGN,
                                                                   "content": text_msg("hi")}},
         NOT_IN_CHAT, "the operator is not in the chat", id="message_create-not-a-member",
         setup=leave_design_chat),
    case("im_v1_message_create", {"params": {"receive_id_type": "open_id"},
                                  "data": {**TO_SPRING, "receive_id": "+8613800138000", "content": text_msg("hi")}},
         IM_INVALID_PARAM, "invalid receive_id '+8613800138000' for receive_id_type open_id",
         id="message_create-phone-not-open-id"),
    case("im_v1_message_create", {"params": {"receive_id_type": "open_id"},
                                  "data": {**TO_SPRING, "receive_id": CHAT_SPRING, "content": text_msg("hi")}},
         IM_INVALID_PARAM, "for receive_id_type open_id", id="message_create-chat-id-as-open-id"),
    case("im_v1_message_create", {"params": {"receive_id_type": "open_id"},
                                  "data": {**TO_SPRING, "receive_id": ME, "content": text_msg("note to self")}},
         IM_INVALID_PARAM, "cannot send a message to yourself", id="message_create-to-self"),
    # im_v1_message_list
    case("im_v1_message_list", {"params": SPRING | {"page_size": "two"}}, V,
         "params.page_size: Input should be a valid integer", id="message_list-type"),
    case("im_v1_message_list", {"params": {"container_id_type": "chat"}}, V, "params.container_id: Field required",
         id="message_list-missing"),
    case("im_v1_message_list", {}, V, "params: Field required", id="message_list-missing-params"),
    case("im_v1_message_list", {"params": SPRING | {"page_size": 51}}, V,
         "params.page_size: Input should be less than or equal to 50", id="message_list-range"),
    case("im_v1_message_list", {"params": SPRING | {"sort_type": "Newest"}}, V, "params.sort_type: Input should be",
         id="message_list-range-sort"),
    case("im_v1_message_list", {"params": SPRING | {"container_id_type": "thread"}}, IM_INVALID_PARAM,
         "only container_id_type 'chat' is supported", id="message_list-thread"),
    case("im_v1_message_list", {"params": SPRING | {"container_id": MISSING_CHAT}}, CHAT_NOT_FOUND,
         f"chat not found: {MISSING_CHAT}", id="message_list-unknown-chat"),
    case("im_v1_message_list", {"params": SPRING | {"container_id": "Spring Campaign 2026"}}, CHAT_NOT_FOUND,
         "chat not found", id="message_list-name-not-id"),
    case("im_v1_message_list", {"params": SPRING | {"container_id": CHAT_DESIGN}}, NOT_IN_CHAT,
         "the operator is not in the chat", id="message_list-not-a-member", setup=leave_design_chat),
    case("im_v1_message_list", {"params": SPRING | {"start_time": ts(3, 10, 0), "end_time": ts(3, 9, 0)}},
         IM_INVALID_PARAM, "end_time must not be earlier than start_time", id="message_list-end-before-start"),
    case("im_v1_message_list", {"params": SPRING | {"start_time": "1773021900000"}}, V,
         "params.start_time: String should match pattern", id="message_list-range-ms-not-s"),
    case("im_v1_message_list", {"params": SPRING | {"page_token": "not-a-token"}}, INVALID_PARAMS,
         "invalid page_token", id="message_list-bad-token"),
    # im_v1_chat_get
    case("im_v1_chat_get", {"path": {"chat_id": None}}, V, "path.chat_id: Input should be a valid string",
         id="chat_get-type"),
    case("im_v1_chat_get", {}, V, "path: Field required", id="chat_get-missing"),
    case("im_v1_chat_get", {"path": {"chat_id": ""}}, V, "path.chat_id: String should have at least 1 character",
         id="chat_get-range"),
    case("im_v1_chat_get", {"path": {"chat_id": MISSING_CHAT}}, CHAT_NOT_FOUND, "chat not found",
         id="chat_get-unknown"),
    case("im_v1_chat_get", {"path": {"chat_id": CHAT_DESIGN}}, NOT_IN_CHAT, "the operator is not in the chat",
         id="chat_get-not-a-member", setup=leave_design_chat),
    # im_v1_chatMembers_get
    case("im_v1_chatMembers_get", {"path": {"chat_id": CHAT_DESIGN}, "params": {"page_size": 2.5}}, V,
         "params.page_size: Input should be a valid integer", id="chat_members-type"),
    case("im_v1_chatMembers_get", {"params": {"page_size": 20}}, V, "path: Field required", id="chat_members-missing"),
    case("im_v1_chatMembers_get", {"path": {"chat_id": CHAT_DESIGN}, "params": {"page_size": 101}}, V,
         "params.page_size: Input should be less than or equal to 100", id="chat_members-range"),
    case("im_v1_chatMembers_get", {"path": {"chat_id": CHAT_DESIGN}, "params": {"member_id_type": "email"}}, V,
         "params.member_id_type: Input should be", id="chat_members-range-id-type"),
    case("im_v1_chatMembers_get", {"path": {"chat_id": MISSING_CHAT}}, CHAT_NOT_FOUND, "chat not found",
         id="chat_members-unknown"),
    case("im_v1_chatMembers_get", {"path": {"chat_id": CHAT_DESIGN}}, NOT_IN_CHAT, "the operator is not in the chat",
         id="chat_members-not-a-member", setup=leave_design_chat),
    # im_v1_chat_list
    case("im_v1_chat_list", {"params": {"page_size": "all"}}, V, "params.page_size: Input should be a valid integer",
         id="chat_list-type"),
    case("im_v1_chat_list", {"params": {"page_size": 0}}, V,
         "params.page_size: Input should be greater than or equal to 1", id="chat_list-range"),
    case("im_v1_chat_list", {"params": {"sort_type": "ByName"}}, V, "params.sort_type: Input should be",
         id="chat_list-range-sort"),
    case("im_v1_chat_list", {"params": {"query": "design"}}, V, "params.query: Extra inputs are not permitted",
         id="chat_list-extra"),
    case("im_v1_chat_list", {"params": {"page_token": "bz:99"}}, INVALID_PARAMS, "invalid page_token",
         id="chat_list-bad-token"),
    # im_v1_chat_create
    case("im_v1_chat_create", {"data": {"name": 2026}}, V, "data.name: Input should be a valid string",
         id="chat_create-type"),
    case("im_v1_chat_create", {"data": {"name": "x", "user_id_list": ZHAO}}, V,
         "data.user_id_list: Input should be a valid list", id="chat_create-type-list"),
    case("im_v1_chat_create", {"data": {"user_id_list": [ZHAO]}}, V, "data.name: Field required",
         id="chat_create-missing"),
    case("im_v1_chat_create", {"data": {"name": "x" * 61}}, V, "data.name: String should have at most 60 characters",
         id="chat_create-range-name"),
    case("im_v1_chat_create", {"data": {"name": "x", "chat_mode": "p2p"}}, V, "data.chat_mode: Input should be 'group'",
         id="chat_create-range-mode"),
    case("im_v1_chat_create", {"data": {"name": "x", "user_id_list": [ZHAO] * 51}}, V,
         "data.user_id_list: List should have at most 50 items", id="chat_create-range-members"),
    case("im_v1_chat_create", {"data": {"name": "x", "user_id_list": [ZHAO], "owner_id": SONG}}, IM_INVALID_PARAM,
         "owner_id must be a member of the new chat", id="chat_create-owner-not-member"),
    case("im_v1_chat_create", {"data": {"name": "x", "owner_id": MISSING_OPEN_ID}}, IM_INVALID_PARAM,
         "owner_id must be a member of the new chat", id="chat_create-owner-unknown"),
    case("im_v1_chat_create", {"data": {"name": "x", "user_id_list": [ZHAO, "zhao.min@orbitlab.cn"]}},
         IM_INVALID_PARAM, "user_id_list: invalid user id 'zhao.min@orbitlab.cn' (open_id)",
         id="chat_create-unknown-member"),
]


@pytest.mark.parametrize(("tool", "args", "code", "fragment", "setup"), ERROR_CASES)
async def test_rejected_calls(tool: str, args: dict[str, Any], code: int, fragment: str, setup: Any) -> None:
    async with Lark() as lark:
        if setup is not None:
            setup(lark.env)
        await lark.fail(tool, args, code, fragment)


def test_error_cases_cover_every_tool() -> None:
    covered = {p.values[0] for p in ERROR_CASES}
    assert covered == set(TOOLS)


async def test_failed_write_then_success_keeps_state_consistent() -> None:
    """A rejected write leaves nothing behind: no half-made p2p chat, no attendee, no event."""
    async with Lark() as lark:
        start = lark.env.tree.hash()
        await lark.fail("im_v1_message_create", {
            "params": {"receive_id_type": "open_id"},
            "data": {"receive_id": ZHAO, "msg_type": "text", "content": "hi Zhao"},
        }, IM_INVALID_PARAM, "content is not a valid JSON string")
        await lark.fail("calendar_v4_calendarEvent_create", {
            "path": {"calendar_id": HOLIDAYS}, "data": {"summary": "x", **TIMES},
        }, NO_CALENDAR_ACCESS, "no calendar access_role")
        assert lark.env.tree.hash() == start
        assert len(lark.data["chats"]) == 3


# -- the other contexts -----------------------------------------------------------------------------
@pytest.mark.parametrize("context", ["chen_yu", "lin_wei", "maya_patel"])
def test_context_shape(context: str) -> None:
    data = APP.load_context(context)
    users = data["users"]
    assert 7 <= len(users) <= 10 and data["me"] in users
    assert sum(bool(u["is_resigned"]) for u in users.values()) == 1
    for oid, u in users.items():
        assert re.fullmatch(r"ou_[0-9a-f]{32}", oid) and u["open_id"] == oid
        assert re.fullmatch(r"[a-z0-9]{8}", u["user_id"]) and re.fullmatch(r"on_[0-9a-f]{32}", u["union_id"])
        assert u["name"] and "@" in u["email"] and re.fullmatch(r"\+(86|65)\d{8,11}", u["mobile"])
        assert u["department"] and u["job_title"]
    cals = list(data["calendars"].values())
    assert sorted(c["role"] for c in cals) == ["owner", "reader", "writer"]
    assert [c["owner_id"] for c in cals if c["role"] == "owner"] == [data["me"]]
    events = [e for c in cals for e in c["events"].values()]
    assert 4 <= len(events) <= 8
    for c in cals:
        assert re.fullmatch(r"feishu\.cn_[a-z0-9]{22}@group\.calendar\.feishu\.cn", c["calendar_id"])
        for e in c["events"].values():
            assert re.fullmatch(r"[0-9a-f-]{36}_0", e["event_id"])
            assert int(e["end_time"]["timestamp"]) > int(e["start_time"]["timestamp"])
            for aid, a in e["attendees"].items():
                assert re.fullmatch(r"user_\d{19}", aid) and a["user_id"] in users
    chats = list(data["chats"].values())
    assert sorted(c["chat_mode"] for c in chats) == ["group", "group", "p2p"]
    for chat in chats:
        assert re.fullmatch(r"oc_[0-9a-f]{32}", chat["chat_id"]) and data["me"] in chat["members"]
        assert 2 <= len(chat["messages"]) <= 6
        for mid, m in chat["messages"].items():
            assert re.fullmatch(r"om_[0-9a-f]{32}", mid) and m["sender_id"] in chat["members"]
            assert isinstance(m["content"], str) and json.loads(m["content"])["text"]
            assert re.fullmatch(r"\d{13}", m["create_time"]) and int(m["create_time"]) <= NOW * 1000


async def test_lin_wei_context_through_the_tools() -> None:
    async with Lark("lin_wei") as lark:
        me = lark.data["me"]
        primary = await lark.ok("calendar_v4_calendar_primary")
        assert primary["calendars"][0]["user_id"] == me
        advisor = await lark.ok("contact_v3_user_batchGetId", {"data": {"emails": ["he.jun@eastlake.edu.cn"]}})
        he_jun = advisor["user_list"][0]["user_id"]
        assert (await lark.ok("contact_v3_user_get", {"path": {"user_id": he_jun}}))["user"]["name"] == "He Jun"
        cals = (await lark.ok("calendar_v4_calendar_list"))["calendar_list"]
        lab = next(c for c in cals if c["role"] == "writer")
        meetings = await lark.ok("calendar_v4_calendarEvent_list", {"path": {"calendar_id": lab["calendar_id"]}})
        assert [e["summary"] for e in meetings["items"]].count("Group meeting") == 2
        chats = (await lark.ok("im_v1_chat_list"))["items"]
        p2p = next(c for c in chats if c["chat_mode"] == "p2p")
        assert p2p["name"] == "He Jun"
        sent = await lark.ok("im_v1_message_create", {
            "params": {"receive_id_type": "open_id"},
            "data": {"receive_id": he_jun, "msg_type": "text", "content": text_msg("Draft attached.")},
        })
        assert sent["chat_id"] == p2p["chat_id"]  # the existing p2p chat with the advisor
        reader = next(c for c in cals if c["role"] == "reader")
        await lark.fail("calendar_v4_calendarEvent_create", {
            "path": {"calendar_id": reader["calendar_id"]}, "data": {"summary": "x", **TIMES},
        }, NO_CALENDAR_ACCESS, "no calendar access_role")


async def test_maya_patel_context_through_the_tools() -> None:
    clock = TaskClock(now=datetime(2026, 3, 10, 9, 30), timezone="Asia/Singapore")
    async with Lark("maya_patel", clock) as lark:
        found = await lark.ok("contact_v3_user_batchGetId", {"data": {"mobiles": ["+65 9876 5432"]}})
        daniel = found["user_list"][0]["user_id"]
        user = (await lark.ok("contact_v3_user_get", {"path": {"user_id": daniel}}))["user"]
        assert user["name"] == "Daniel Tan" and user["job_title"] == "Head of Product"
        chats = (await lark.ok("im_v1_chat_list"))["items"]
        standup = next(c for c in chats if c["name"] == "Payments Eng Standup")
        msgs = await lark.ok("im_v1_message_list", {
            "params": {"container_id_type": "chat", "container_id": standup["chat_id"]},
        })
        times = [int(m["create_time"]) for m in msgs["items"]]
        assert len(times) == 5 and times == sorted(times)
        cals = (await lark.ok("calendar_v4_calendar_list"))["calendar_list"]
        launch = next(c for c in cals if c["role"] == "writer")
        events = await lark.ok("calendar_v4_calendarEvent_list", {"path": {"calendar_id": launch["calendar_id"]}})
        assert all(e["start_time"]["timezone"] == "Asia/Singapore" for e in events["items"])
        resigned = await lark.ok("contact_v3_user_batchGetId", {"data": {"emails": ["ravi.kumar@lumipay.sg"]}})
        assert "user_id" not in resigned["user_list"][0]
