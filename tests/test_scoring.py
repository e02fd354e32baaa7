"""Tests of the scoring functions against hand-computed values.

Every expected number below is written literally (worked out by hand from the rules in
``mcp_persona.scoring``), never recomputed with the code under test.
"""

from __future__ import annotations

import copy
import json
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

import mcp_persona
import mcp_persona.scoring.checkpoints as checkpoints_mod
from mcp_persona.apps import get_app
from mcp_persona.context_tree import Hierarchy, diff_states, is_ignored
from mcp_persona.protocols.persona.spec import PersonaTask
from mcp_persona.report.summary import build_summary
from mcp_persona.runner import RunConfig
from mcp_persona.scoring import EpisodeScore, by_category, score_episode, suite_metrics
from mcp_persona.scoring.checkpoints import check_operate, collateral
from mcp_persona.scoring.grounding import (
    PASTE_ANSWER_SHARE,
    PASTE_MIN_REPEATED,
    Evidence,
    Paste,
    answer_dump,
    derivation_problem,
)
from mcp_persona.scoring.match import fields_matched, value_matches
from mcp_persona.scoring.normalize import appears_in, normalize
from mcp_persona.store import EpisodeRecord
from mcp_persona.tasks import OperateCheckpoint, Task
from mcp_persona.trajectory import ModelCallEvent, ToolCallEvent, Trajectory, Usage

DATA = Path(mcp_persona.__file__).parent / "data"

# -- facts of the chen_yu Lark context (read off data/contexts/lark/chen_yu.json) --------------------
ME = "ou_a4c123b1612dd272d1371c17149d4395"
ZHAO = "ou_043b026c48bbf33feff9243a8f506b40"
PRIMARY = "feishu.cn_vzhmasqxezyex1rdrgdsjp@group.calendar.feishu.cn"  # type "primary"
SHARED = "feishu.cn_r16umx1bz99nfd02is5d9i@group.calendar.feishu.cn"  # type "shared"
WEEKLY = "5534a034-e800-4d90-b3f6-e53d3853933d_0"  # "Weekly marketing sync", location Room 3F-Aurora
ONE_ON_ONE = "6ba99d01-b7e4-4f36-968a-8c29b2217139_0"  # "1:1 with Song Ke", description "Monthly check-in."
DENTIST = "b647e8a8-e5ee-4c91-b31b-bc4164b0bb14_0"
SPRING_CHAT = "oc_ff2d3c425c8d99d19bdd0b6cc60d5d32"
WEEKLY_PATH = f"calendars[{PRIMARY}].events[{WEEKLY}]"
DENTIST_PATH = f"calendars[{PRIMARY}].events[{DENTIST}]"
NEW_EVENT = "11111111-2222-3333-4444-555555555555_0"
NEW_EVENT_PATH = f"calendars[{PRIMARY}].events[{NEW_EVENT}]"
NEW_ATTENDEE = "user_1234567890123456789"


@pytest.fixture(scope="module")
def lark_h() -> Hierarchy:
    return get_app("lark").hierarchy


@pytest.fixture
def before() -> dict[str, Any]:
    return get_app("lark").load_context("chen_yu")


@pytest.fixture
def after(before: dict[str, Any]) -> dict[str, Any]:
    return copy.deepcopy(before)


def make_task(checkpoints: list[dict[str, Any]], *, tid: str = "t1", category: str = "collaboration") -> Task:
    return PersonaTask.model_validate({
        "id": tid,
        "suite": "test",
        "instruction": "do the thing",
        "servers": [{"server": "lark", "context_id": "chen_yu"}],
        "clock": {"now": "2026-03-10T09:30:00", "timezone": "Asia/Shanghai"},
        "spec": {"category": category, "checkpoints": checkpoints},
    })


def call(tool: str, result: str = "{}", *, error: bool = False, rnd: int = 1, server: str | None = "lark",
         arguments: dict[str, Any] | None = None) -> ToolCallEvent:
    return ToolCallEvent(round=rnd, server=server, tool=tool, result=result, is_error=error, arguments=arguments)


def traj(*events: Any, answer: str = "", task_id: str = "t1") -> Trajectory:
    return Trajectory(task_id=task_id, agent="test", events=list(events), final_answer=answer)


def add_event(state: dict[str, Any], calendar: str, eid: str, summary: str, start: str, end: str) -> dict[str, Any]:
    event = {
        "event_id": eid,
        "summary": summary,
        "start_time": {"timestamp": start, "timezone": "Asia/Shanghai"},
        "end_time": {"timestamp": end, "timezone": "Asia/Shanghai"},
        "organizer_id": ME,
        "attendees": {},
    }
    state["calendars"][calendar]["events"][eid] = event
    return event


def add_attendee(event: dict[str, Any], aid: str, user_id: str) -> None:
    event["attendees"][aid] = {"attendee_id": aid, "type": "user", "user_id": user_id, "rsvp_status": "needs_action"}


CREATE_EVENT = {
    "type": "operate", "summary": "create the review", "server": "lark", "tool": "calendar_v4_calendarEvent_create",
    "operate_type": "create", "entity": "event",
    "expect": {"summary": "Poster print review", "start_time.timestamp": "1773212400",
               "end_time.timestamp": "1773216000"},
    "parent_expect": {"type": "primary"},
}
INVITE_ZHAO = {
    "type": "operate", "summary": "invite Zhao Min", "server": "lark",
    "tool": "calendar_v4_calendarEventAttendee_create", "operate_type": "create", "entity": "attendee",
    "expect": {"user_id": ZHAO}, "parent_expect": {"summary": "Poster print review"},
}


def op(spec: dict[str, Any]) -> OperateCheckpoint:
    return OperateCheckpoint.model_validate(spec)


# == normalize / appears_in =========================================================================
class TestNormalize:
    def test_nfkc_full_width(self) -> None:
        assert normalize("１２３") == "123"
        assert normalize("ＡＢＣ") == "abc"
        assert appears_in("2026", "会议定在２０２６年")

    def test_case_folding(self) -> None:
        assert normalize("Poster PRINT Review") == "poster print review"
        assert normalize("Straße") == "strasse"
        assert appears_in("ZHAO MIN", "invited zhao min")

    def test_whitespace_collapse(self) -> None:
        assert normalize("  Poster\t print\n\n review  ") == "poster print review"
        assert appears_in("Poster print review", "the Poster\u3000print   review event")  # ideographic space

    def test_thousands_separators(self) -> None:
        assert normalize("1,234,567") == "1234567"
        assert normalize("12,500.50 yuan") == "12500.50 yuan"
        assert normalize("1,5") == "1,5"  # not a thousands group
        assert normalize("a, b") == "a, b"
        assert appears_in("12500", "The budget is 12,500 yuan")
        assert appears_in("12,500", "The budget is 12500 yuan")

    def test_numbers_are_stringified(self) -> None:
        assert normalize(12500) == "12500"
        assert appears_in(200, "Lumen Retail wants 200 printed posters")

    def test_json_message_content_with_escaped_unicode(self) -> None:
        content = '{"text":"\\u6d77\\u62a5\\u5df2\\u5b8c\\u6210"}'  # 海报已完成, escaped as json.dumps does by default
        assert "海报" not in content
        assert appears_in("海报已完成", content)

    def test_nested_json_string_in_a_lark_envelope(self) -> None:
        inner = json.dumps({"text": 'He said "go" \u2014 ok'})
        envelope = json.dumps({"code": 0, "data": {"items": [{"body": {"content": inner}}]}})
        assert 'He said "go"' not in envelope  # the raw text holds escaped quotes only
        assert appears_in('he said "go" — ok', envelope)

    def test_not_json_stays_text(self) -> None:
        assert appears_in("{broken", "a {broken json")
        assert not appears_in("absent", '{"text": "present"}')

    def test_empty_needle_never_matches(self) -> None:
        assert not appears_in("", "anything at all")
        assert not appears_in("   ", "a b c")
        assert not appears_in("\u3000", "a\u3000b")
        assert not appears_in("", "")


# == value_matches / fields_matched =================================================================
class TestValueMatches:
    def test_strings_normalized(self) -> None:
        assert value_matches("Poster Print Review", "poster  print review")
        assert value_matches("１５:００", "15:00")
        assert not value_matches("Poster print review", "Poster print")

    def test_numbers_and_numeric_strings(self) -> None:
        assert value_matches(1773212400, "1773212400")
        assert value_matches("1773212400", 1773212400)
        assert value_matches("1,000", 1000)
        assert value_matches(1.5, "1.50")
        assert value_matches("１５", 15)
        assert not value_matches("15", "16")
        assert not value_matches(15, "15 minutes")

    def test_bools_are_not_1_or_0(self) -> None:
        assert value_matches(True, True)
        assert value_matches(False, False)
        assert not value_matches(True, False)
        assert not value_matches(True, 1)
        assert not value_matches(1, True)
        assert not value_matches(False, 0)
        assert not value_matches(0, False)
        assert not value_matches("true", True)

    def test_none(self) -> None:
        assert value_matches(None, None)
        assert not value_matches(None, "")
        assert not value_matches(None, 0)
        assert not value_matches("", None)
        assert not value_matches("None", None)

    def test_non_finite_number_words_compare_as_text(self) -> None:
        assert value_matches("Nan", "Nan")  # a given name, not a float
        assert value_matches("nan", "NaN")
        assert value_matches("Infinity", "infinity")
        assert not value_matches("Nan", "Nana")

    def test_nested_dict_partial_match(self) -> None:
        actual = {"timestamp": "1773212400", "timezone": "Asia/Shanghai"}
        assert value_matches({"timestamp": 1773212400}, actual)
        assert value_matches({}, actual)
        assert not value_matches({"timestamp": "1773212400", "date": "2026-03-11"}, actual)
        assert not value_matches({"timestamp": "1773212400"}, "1773212400")
        assert value_matches({"location": {"name": "room 3f-aurora"}}, {"location": {"name": "Room 3F-Aurora"}})

    def test_lists_exact_length_and_order(self) -> None:
        assert value_matches(["a", 2], ["A", "2"])
        assert not value_matches(["a", "b"], ["a", "b", "c"])
        assert not value_matches(["a", "b", "c"], ["a", "b"])
        assert not value_matches(["a", "b"], ["b", "a"])
        assert not value_matches(["a"], "a")
        assert value_matches([], [])

    def test_contains(self) -> None:
        content = '{"text": "Poster v2 is ready, please review before Wednesday."}'
        assert value_matches({"$contains": "poster V2"}, content)
        assert value_matches({"$contains": "海报"}, '{"text":"\\u6d77\\u62a5 v3"}')
        assert value_matches({"$contains": "2026"}, 2026)  # a number field is read as its text
        assert not value_matches({"$contains": "2026"}, 20261)  # numbers compare as numbers: not a digit run
        assert not value_matches({"$contains": "poster v3"}, content)
        assert not value_matches({"$contains": "x"}, None)

    def test_in(self) -> None:
        assert value_matches({"$in": ["accept", "tentative"]}, "Accept")
        assert value_matches({"$in": [1, 2]}, "2")
        assert not value_matches({"$in": ["accept", "tentative"]}, "decline")
        assert not value_matches({"$in": []}, "accept")

    def test_all_and_alternatives(self) -> None:
        content = '{"text": "Visit moved to 13:00 on March 16"}'
        facts = {"$all": [{"$contains": "visit"}, {"$in": [{"$contains": "1 pm"}, {"$contains": "13:00"}]}]}
        assert value_matches(facts, content)
        assert not value_matches(facts, '{"text": "Visit moved"}')  # one fact missing
        assert not value_matches(facts, '{"text": "ok"}')
        assert value_matches({"$all": []}, "anything")  # no facts asked

    def test_has(self) -> None:
        assert value_matches({"$has": ZHAO}, [ME, ZHAO])
        assert value_matches({"$has": {"$contains": "zhao"}}, ["Chen Yu", "Zhao Min"])
        assert not value_matches({"$has": ZHAO}, [ME])
        assert not value_matches({"$has": ZHAO}, ZHAO)  # not a list
        assert not value_matches({"$has": "a"}, None)

    def test_absent(self) -> None:
        assert value_matches({"$absent": True}, None)
        assert not value_matches({"$absent": True}, "")
        assert not value_matches({"$absent": True}, 0)
        assert value_matches({"$absent": False}, "x")
        assert not value_matches({"$absent": False}, None)

    def test_two_keys_is_a_nested_dict_not_an_operator(self) -> None:
        assert value_matches({"$in": 1, "b": 2}, {"$in": 1, "b": 2, "c": 3})
        assert not value_matches({"$in": 1, "b": 2}, 1)

    def test_fields_matched_dotted_paths(self, before: dict[str, Any]) -> None:
        event = before["calendars"][PRIMARY]["events"][WEEKLY]
        expect = {
            "summary": "weekly marketing sync",  # yes
            "start_time.timestamp": 1773122400,  # yes (number vs numeric string)
            "start_time.timezone": "Asia/Shanghai",  # yes
            "location.name": "Room 5F-Nebula",  # no (Room 3F-Aurora)
            "location.address": {"$absent": True},  # yes (missing)
            "recurrence.rule": "FREQ=WEEKLY",  # no (missing)
        }
        assert fields_matched(expect, event) == 4
        assert fields_matched({}, event) == 0


# == search checkpoints ===========================================================================
def search_cp(values: list[str] | str, kind: str = "personalized_search") -> dict[str, Any]:
    return {"type": kind, "summary": "find it", "server": "lark", "gt_value": values}


class TestSearch:
    def score(self, values: list[str] | str, trajectory: Trajectory) -> float | None:
        result = score_episode(make_task([search_cp(values)]), trajectory, {}, {})
        assert len(result.checkpoints) == 1
        return result.checkpoints[0].score

    def test_all_in_final_answer(self) -> None:
        t = traj(answer=f"Zhao Min's open_id is {ZHAO}; her phone is +86 13800138000.")
        assert self.score([ZHAO, "Zhao Min"], t) == 1.0

    def test_single_string_gt_value(self) -> None:
        assert self.score("Room 3F-Aurora", traj(answer="It is in room 3f-aurora.")) == 1.0

    def test_some_in_final_answer(self) -> None:
        t = traj(answer="It is Zhao Min.")
        assert self.score([ZHAO, "Zhao Min"], t) == 0.5

    def test_only_in_successful_tool_output(self) -> None:
        out = json.dumps({"code": 0, "data": {"user_list": [{"user_id": ZHAO, "mobile": "+8613800138000"}]}})
        t = traj(call("contact_v3_user_batchGetId", out), answer="Done.")
        assert self.score([ZHAO], t) == 0.5

    def test_values_spread_over_several_successful_outputs(self) -> None:
        t = traj(call("a", json.dumps({"name": "Zhao Min"})), call("b", json.dumps({"open_id": ZHAO})), answer="ok")
        assert self.score([ZHAO, "Zhao Min"], t) == 0.5

    def test_escaped_unicode_in_one_of_several_outputs(self) -> None:
        # json.dumps escapes non-ASCII by default: only decoding each output on its own finds the value
        out1 = json.dumps({"code": 0, "data": {"content": json.dumps({"text": "海报已完成"})}})
        out2 = json.dumps({"code": 0, "data": {}})
        assert "海报" not in out1
        t = traj(call("im_v1_message_list", out1), call("other", out2), answer="I looked.")
        assert self.score(["海报已完成"], t) == 0.5

    def test_only_in_error_output(self) -> None:
        t = traj(call("contact_v3_user_batchGetId", f"error: {ZHAO} is not allowed", error=True), answer="Sorry.")
        assert self.score([ZHAO], t) == 0.0

    def test_none_anywhere(self) -> None:
        t = traj(call("contact_v3_user_batchGetId", json.dumps({"user_list": []})), answer="I could not find her.")
        assert self.score([ZHAO], t) == 0.0

    def test_partly_retrieved_and_nothing_reported(self) -> None:
        t = traj(call("a", json.dumps({"name": "Zhao Min"})), answer="nothing")
        assert self.score([ZHAO, "Zhao Min"], t) == 0.0

    def test_used_in_a_successful_call_counts_as_found(self) -> None:
        t = traj(call("contact_v3_user_batchGetId", json.dumps({"user_list": [{"user_id": ZHAO}]})),
                 call("calendar_v4_calendarEventAttendee_create", "{}",
                      arguments={"data": {"attendees": [{"type": "user", "user_id": ZHAO}]}}),
                 answer="Invited her.")
        assert self.score([ZHAO], t) == 1.0

    def test_some_reported_rest_used(self) -> None:
        t = traj(call("lookup", json.dumps({"user_id": ZHAO})), call("x", "{}", arguments={"user_id": ZHAO}),
                 answer="I invited Zhao Min.")
        assert self.score([ZHAO, "Zhao Min"], t) == 1.0

    def test_used_before_any_output_showed_it_is_a_guess(self) -> None:
        t = traj(call("x", json.dumps({"ok": True, "user_id": ZHAO}), arguments={"user_id": ZHAO}), answer="Done.")
        assert self.score([ZHAO], t) == 0.5  # retrieved (echoed back) but never used after being found

    def test_used_only_in_a_failed_call_does_not_count(self) -> None:
        t = traj(call("x", "bad request", error=True, arguments={"user_id": ZHAO}), answer="It failed.")
        assert self.score([ZHAO], t) == 0.0

    def test_error_output_does_not_help_partial_answers(self) -> None:
        t = traj(call("x", f"error {ZHAO}", error=True), answer="Zhao Min")
        assert self.score([ZHAO, "Zhao Min"], t) == 0.5  # from the answer, not the error output

    def test_empty_gt_value_never_matches(self) -> None:
        assert self.score([""], traj(call("x", "anything"), answer="anything")) == 0.0


# == operate: create ==============================================================================
class TestCreate:
    def test_exact_match(self, lark_h: Hierarchy, before: dict[str, Any], after: dict[str, Any]) -> None:
        add_event(after, PRIMARY, NEW_EVENT, "Poster print review", "1773212400", "1773216000")
        r = check_operate(1, op(CREATE_EVENT), lark_h, before, after)
        assert r.score == 1.0
        assert r.claimed == [f"lark:{NEW_EVENT_PATH}"]

    def test_numeric_timestamps_match_strings(self, lark_h: Hierarchy, before: dict[str, Any],
                                              after: dict[str, Any]) -> None:
        ev = add_event(after, PRIMARY, NEW_EVENT, "poster print REVIEW", "0", "0")
        ev["start_time"]["timestamp"], ev["end_time"]["timestamp"] = 1773212400, 1773216000
        assert check_operate(1, op(CREATE_EVENT), lark_h, before, after).score == 1.0

    def test_partial_fields(self, lark_h: Hierarchy, before: dict[str, Any], after: dict[str, Any]) -> None:
        add_event(after, PRIMARY, NEW_EVENT, "Poster print review", "1773208800", "1773212400")  # 14-15 h
        r = check_operate(1, op(CREATE_EVENT), lark_h, before, after)
        assert r.score == 0.5
        assert r.reason == "best new event matches 2/4"
        assert r.claimed == [f"lark:{NEW_EVENT_PATH}"]

    def test_parent_expect_respected(self, lark_h: Hierarchy, before: dict[str, Any], after: dict[str, Any]) -> None:
        add_event(after, SHARED, NEW_EVENT, "Poster print review", "1773212400", "1773216000")  # not primary
        r = check_operate(1, op(CREATE_EVENT), lark_h, before, after)
        assert r.score == 0.5
        assert r.reason == "best new event matches 3/4"

    def test_nothing_matches(self, lark_h: Hierarchy, before: dict[str, Any], after: dict[str, Any]) -> None:
        add_event(after, SHARED, NEW_EVENT, "Lunch", "1", "2")
        assert check_operate(1, op(CREATE_EVENT), lark_h, before, after).score == 0.0

    def test_best_of_several_new_entities(self, lark_h: Hierarchy, before: dict[str, Any],
                                          after: dict[str, Any]) -> None:
        add_event(after, PRIMARY, "aaaaaaaa-0000-0000-0000-000000000000_0", "Poster print review", "1", "2")
        add_event(after, PRIMARY, NEW_EVENT, "Poster print review", "1773212400", "1773216000")
        r = check_operate(1, op(CREATE_EVENT), lark_h, before, after)
        assert r.score == 1.0
        assert r.claimed == [f"lark:{NEW_EVENT_PATH}"]

    def test_wrong_type(self, lark_h: Hierarchy, before: dict[str, Any], after: dict[str, Any]) -> None:
        after["chats"]["oc_" + "1" * 32] = {"chat_id": "oc_" + "1" * 32, "name": "Poster print review",
                                            "chat_mode": "group", "members": {}, "messages": {}}
        r = check_operate(1, op(CREATE_EVENT), lark_h, before, after)
        assert r.score == 0.0
        assert r.reason == "no new event created"
        assert r.claimed == []

    def test_nothing_created(self, lark_h: Hierarchy, before: dict[str, Any], after: dict[str, Any]) -> None:
        assert check_operate(1, op(CREATE_EVENT), lark_h, before, after).score == 0.0

    def test_entity_that_existed_before_is_not_counted(self, lark_h: Hierarchy, before: dict[str, Any],
                                                       after: dict[str, Any]) -> None:
        spec = {**CREATE_EVENT, "expect": {"summary": "Weekly marketing sync"}, "parent_expect": {}}
        assert check_operate(0, op(spec), lark_h, before, after).score == 0.0  # it exists, unchanged
        after["calendars"][PRIMARY]["events"][ONE_ON_ONE]["summary"] = "Poster print review"  # renamed, not new
        r = check_operate(1, op({**CREATE_EVENT, "parent_expect": {}}), lark_h, before, after)
        assert r.score == 0.0
        assert r.reason == "no new event created"

    def test_attendee_parent_is_the_event(self, lark_h: Hierarchy, before: dict[str, Any],
                                          after: dict[str, Any]) -> None:
        ev = add_event(after, PRIMARY, NEW_EVENT, "Poster print review", "1773212400", "1773216000")
        add_attendee(ev, NEW_ATTENDEE, ZHAO)
        r = check_operate(2, op(INVITE_ZHAO), lark_h, before, after)
        assert r.score == 1.0
        assert r.claimed == [f"lark:{NEW_EVENT_PATH}.attendees[{NEW_ATTENDEE}]"]

    def test_attendee_on_the_wrong_event(self, lark_h: Hierarchy, before: dict[str, Any],
                                         after: dict[str, Any]) -> None:
        add_attendee(after["calendars"][PRIMARY]["events"][WEEKLY], NEW_ATTENDEE, ZHAO)
        r = check_operate(2, op(INVITE_ZHAO), lark_h, before, after)
        assert r.score == 0.5
        assert r.reason == "best new attendee matches 1/2"

    def test_parent_expect_with_dotted_ids(self) -> None:
        # ids holding dots (file names, emails) must not be split when the parent is looked up
        h = Hierarchy.model_validate({"app": "tiny", "entities": {
            "folder": {"collection": "folders", "id_field": "name"},
            "note": {"collection": "notes", "parent": "folder", "id_field": "path"},
        }})
        before = {"folders": {"Daily": {"name": "Daily", "kind": "journal", "notes": {}}}}
        after = copy.deepcopy(before)
        after["folders"]["Daily"]["notes"]["2026-03-10.md"] = {"path": "2026-03-10.md", "content": "# Tue"}
        cp = op({"type": "operate", "summary": "note", "server": "tiny", "tool": "write", "operate_type": "create",
                 "entity": "note", "expect": {"content": {"$contains": "tue"}}, "parent_expect": {"kind": "journal"}})
        r = check_operate(0, cp, h, before, after)
        assert r.score == 1.0
        assert r.claimed == ["tiny:folders[Daily].notes[2026-03-10.md]"]


# == operate: modify / delete =====================================================================
MODIFY_WEEKLY = {
    "type": "operate", "summary": "move the sync", "server": "lark", "tool": "calendar_v4_calendarEvent_patch",
    "operate_type": "modify", "target": WEEKLY_PATH,
    "expect": {"summary": "Weekly marketing sync", "location.name": "Room 5F-Nebula"},
}
DELETE_DENTIST = {
    "type": "operate", "summary": "drop the dentist", "server": "lark", "tool": "calendar_v4_calendarEvent_delete",
    "operate_type": "delete", "target": DENTIST_PATH,
}


class TestModifyDelete:
    def test_modify_all_fields(self, lark_h: Hierarchy, before: dict[str, Any], after: dict[str, Any]) -> None:
        after["calendars"][PRIMARY]["events"][WEEKLY]["location"] = {"name": "Room 5F-Nebula"}
        r = check_operate(0, op(MODIFY_WEEKLY), lark_h, before, after)
        assert r.score == 1.0
        assert r.claimed == [f"lark:{WEEKLY_PATH}"]

    def test_modify_partial_with_a_change(self, lark_h: Hierarchy, before: dict[str, Any],
                                          after: dict[str, Any]) -> None:
        after["calendars"][PRIMARY]["events"][WEEKLY]["location"] = {"name": "Room 6F"}  # changed, but wrong room
        r = check_operate(0, op(MODIFY_WEEKLY), lark_h, before, after)
        assert r.score == 0.5
        assert r.reason == "1/2 expected fields"
        assert r.claimed == [f"lark:{WEEKLY_PATH}"]

    def test_modify_no_change(self, lark_h: Hierarchy, before: dict[str, Any], after: dict[str, Any]) -> None:
        r = check_operate(0, op(MODIFY_WEEKLY), lark_h, before, after)  # summary already right: 1/2, unchanged
        assert r.score == 0.0
        assert r.reason == "1/2 expected fields"
        assert r.claimed == []

    def test_modify_change_but_no_expected_field(self, lark_h: Hierarchy, before: dict[str, Any],
                                                 after: dict[str, Any]) -> None:
        spec = {**MODIFY_WEEKLY, "expect": {"summary": "Marketing sync", "location.name": "Room 5F-Nebula"}}
        after["calendars"][PRIMARY]["events"][WEEKLY]["description"] = "changed"
        r = check_operate(0, op(spec), lark_h, before, after)
        assert r.score == 0.0
        assert r.claimed == [f"lark:{WEEKLY_PATH}"]

    def test_modify_target_missing(self, lark_h: Hierarchy, before: dict[str, Any], after: dict[str, Any]) -> None:
        del after["calendars"][PRIMARY]["events"][WEEKLY]
        r = check_operate(0, op(MODIFY_WEEKLY), lark_h, before, after)
        assert r.score == 0.0
        assert r.reason == f"{WEEKLY_PATH} not found at the end"

    def test_delete_gone(self, lark_h: Hierarchy, before: dict[str, Any], after: dict[str, Any]) -> None:
        del after["calendars"][PRIMARY]["events"][DENTIST]
        r = check_operate(0, op(DELETE_DENTIST), lark_h, before, after)
        assert r.score == 1.0
        assert r.claimed == [f"lark:{DENTIST_PATH}"]

    def test_delete_still_there(self, lark_h: Hierarchy, before: dict[str, Any], after: dict[str, Any]) -> None:
        r = check_operate(0, op(DELETE_DENTIST), lark_h, before, after)
        assert r.score == 0.0
        assert r.reason == "still present"
        assert r.claimed == []

    def test_delete_never_existed(self, lark_h: Hierarchy, before: dict[str, Any], after: dict[str, Any]) -> None:
        spec = {**DELETE_DENTIST, "target": f"calendars[{PRIMARY}].events[{NEW_EVENT}]"}
        r = check_operate(0, op(spec), lark_h, before, after)
        assert r.score == 0.0
        assert r.reason == "never existed"


# == other checkpoints ============================================================================
OTHER = {"type": "other", "summary": "send the message", "server": "lark", "tool": "im_v1_message_create"}


class TestOther:
    def test_called_successfully(self) -> None:
        t = traj(call("im_v1_message_create", "bad", error=True), call("im_v1_message_create", "{}", rnd=2))
        assert score_episode(make_task([OTHER]), t, {}, {}).checkpoints[0].score == 1.0

    def test_only_with_an_error(self) -> None:
        t = traj(call("im_v1_message_create", "bad", error=True), call("im_v1_chat_list", "{}"))
        assert score_episode(make_task([OTHER]), t, {}, {}).checkpoints[0].score == 0.0

    def test_other_server_does_not_count(self) -> None:
        t = traj(call("im_v1_message_create", "{}", server=None))
        assert score_episode(make_task([OTHER]), t, {}, {}).checkpoints[0].score == 0.0

    def test_no_tool_named_is_left_to_a_judge(self) -> None:
        task = make_task([{"type": "other", "summary": "be polite"}, search_cp("Zhao Min")])
        s = score_episode(task, traj(answer="Zhao Min, thank you"), {}, {})
        assert [c.score for c in s.checkpoints] == [None, 1.0]
        assert s.acc == 1.0  # the undecided checkpoint is excluded, not counted as 0
        assert s.exec_acc is None

    def test_only_undecided_checkpoints(self) -> None:
        s = score_episode(make_task([{"type": "other", "summary": "be polite"}]), traj(), {}, {})
        assert s.acc == 0.0
        assert s.exec_acc is None


# == Acc / Exec-Acc of an episode =================================================================
class TestEpisode:
    def test_acc_is_the_mean(self) -> None:
        task = make_task([search_cp("Zhao Min"), search_cp(["Song Ke", "Li Minghui"]), search_cp("Wang Fang")])
        s = score_episode(task, traj(answer="Zhao Min and Song Ke"), {}, {})
        assert [c.score for c in s.checkpoints] == [1.0, 0.5, 0.0]
        assert s.acc == 0.5
        assert s.exec_acc is None

    def test_lark_001_perfect(self, before: dict[str, Any], after: dict[str, Any]) -> None:
        task = PersonaTask.model_validate_json((DATA / "tasks/persona/lark_001.json").read_text(encoding="utf-8"))
        ev = add_event(after, PRIMARY, NEW_EVENT, "Poster print review", "1773212400", "1773216000")
        add_attendee(ev, NEW_ATTENDEE, ZHAO)
        t = traj(answer=f"Created it and invited Zhao Min ({ZHAO}).")
        s = score_episode(task, t, {"lark": before}, {"lark": after})
        assert [c.score for c in s.checkpoints] == [1.0, 1.0, 1.0]
        assert s.acc == 1.0
        assert s.exec_acc == 1.0
        assert s.collateral == []

    def test_lark_001_wrong_calendar(self, before: dict[str, Any], after: dict[str, Any]) -> None:
        task = PersonaTask.model_validate_json((DATA / "tasks/persona/lark_001.json").read_text(encoding="utf-8"))
        ev = add_event(after, SHARED, NEW_EVENT, "Poster print review", "1773212400", "1773216000")
        add_attendee(ev, NEW_ATTENDEE, ZHAO)
        t = traj(call("contact_v3_user_batchGetId", json.dumps({"user_list": [{"user_id": ZHAO}]})), answer="Done.")
        s = score_episode(task, t, {"lark": before}, {"lark": after})
        assert [c.score for c in s.checkpoints] == [0.5, 0.5, 1.0]
        assert s.acc == pytest.approx(2 / 3)  # (0.5 + 0.5 + 1) / 3
        assert s.exec_acc == 0.5  # one of two operate checkpoints fully passes
        assert s.collateral == []

    def test_exec_acc_counts_only_full_passes(self, before: dict[str, Any], after: dict[str, Any]) -> None:
        task = make_task([MODIFY_WEEKLY, DELETE_DENTIST, CREATE_EVENT])
        after["calendars"][PRIMARY]["events"][WEEKLY]["location"] = {"name": "Room 6F"}  # 0.5
        del after["calendars"][PRIMARY]["events"][DENTIST]  # 1
        s = score_episode(task, traj(), {"lark": before}, {"lark": after})  # nothing created: 0
        assert [c.score for c in s.checkpoints] == [0.5, 1.0, 0.0]
        assert s.acc == 0.5
        assert s.exec_acc == pytest.approx(1 / 3)

    def test_to_dict(self) -> None:
        s = score_episode(make_task([search_cp("x")]), traj(answer="x"), {}, {})
        assert s.to_dict() == {"acc": 1.0, "exec_acc": None, "collateral": [], "checkpoints": [
            {"index": 0, "type": "personalized_search", "score": 1.0, "reason": "all GT values in the final answer"}],
            "ungrounded": ["x"], "answer_dump": False, "dump_why": None}  # "x" answered, never returned

    def test_grounded_answers_and_dumps(self) -> None:
        task = make_task([search_cp("Room 3F-Aurora")])
        seen = score_episode(task, traj(call("get", result='{"location": "Room 3F-Aurora"}'),
                                        answer="It is in Room 3F-Aurora."), {}, {})
        assert seen.ungrounded == [] and seen.answer_dump is False
        guessed = score_episode(task, traj(answer="It is in Room 3F-Aurora."), {}, {})
        assert guessed.acc == 1.0 and guessed.ungrounded == ["Room 3F-Aurora"]  # Acc as in the paper
        # reference answer "" -> the limit is 1500 characters
        dump = score_episode(task, traj(call("get", result="Room 3F-Aurora"), answer="Room 3F-Aurora " + "x" * 1500),
                             {}, {})
        assert dump.acc == 1.0 and dump.answer_dump is True
        assert dump.dump_why == "answer is 1515 characters, over max(1500, 4 x the reference's)"
        short = score_episode(task, traj(call("get", result="Room 3F-Aurora"), answer="Room 3F-Aurora " + "x" * 1400),
                              {}, {})
        assert short.answer_dump is False


class TestGrounding:
    def test_an_echo_of_the_arguments_grounds_nothing(self) -> None:
        echo = call("note_create", '{"content": "Room 3F-Aurora"}', arguments={"content": "Room 3F-Aurora"})
        ev = Evidence.of([echo])
        assert ev.why_ungrounded("Room 3F-Aurora") == "Room 3F-Aurora was not found in any tool output"
        # a number is handed over as a number, not as digits inside a path or a name
        ev = Evidence.of([call("get", '{"price": 58}', arguments={"path": "/tmp/run-ttwv58c/a", "sku": "Q58"})])
        assert ev.why_ungrounded("58") is None
        assert Evidence.of([call("get", '{"price": 58}', error=True)]).why_ungrounded("58") is not None

    def test_a_derived_value_needs_its_numbers_fetched_or_given(self) -> None:
        prices = call("quote", '{"AAPL": 183.1, "META": 125.1}')
        calc = call("calculate", "58.0", arguments={"expression": "183.1-125.1"})
        assert Evidence.of([prices]).why_ungrounded("58", "183.1-125.1") is None  # done in the head: fine
        # a calculator fed numbers nobody fetched: its output is no evidence
        assert Evidence.of([calc]).why_ungrounded("58", "183.1-125.1") == (
            "58 = 183.1-125.1, but no tool output nor the instruction holds 183.1, 125.1")
        night = call("listing", '{"price": 153.16}')
        assert Evidence.of([night], given="What would 3 nights cost?").why_ungrounded("459.48", "153.16*3") is None
        assert Evidence.of([night], given="a few nights").why_ungrounded("459.48", "153.16*3") is not None

    def test_derivations_are_checked_when_a_task_loads(self) -> None:
        ok = make_task([search_cp(["183.1", "58"]) | {"derived": {"58": "183.1-125.1"}}])
        assert ok.spec.checkpoints[0].derived == {"58": "183.1-125.1"}  # type: ignore[union-attr]
        assert derivation_problem("8666.67", "26000/3") is None
        assert derivation_problem("8667", "26000/3") is not None  # a coarser value says so: round(26000/3)
        with pytest.raises(ValueError, match="not 59"):
            make_task([search_cp(["59"]) | {"derived": {"59": "183.1-125.1"}}])

    def test_persona_reads_derivations_too(self) -> None:
        task = make_task([search_cp(["58"]) | {"derived": {"58": "183.1-125.1"}}])
        fetched = traj(call("get", '{"a": 183.1, "b": 125.1}'), answer="58")
        assert score_episode(task, fetched, {}, {}).ungrounded == []
        calculated = traj(call("calc", "58", arguments={"expression": "183.1-125.1"}), answer="58")
        assert score_episode(task, calculated, {}, {}).ungrounded == ["58"]


# == copied tool output ===========================================================================
ROOMS = json.dumps({"code": 0, "data": {"rooms": [
    {"room_id": f"omm_{i:04d}", "name": f"Room {i}F-{name}", "capacity": 4 + i, "building": "Orbit Tower, 88 Keyuan Rd"}
    for i, name in enumerate(["Aurora", "Nebula", "Comet", "Zenith", "Halo"], start=2)]}})


class TestPaste:
    """An answer mostly copied from tool output is a dump, however short; quotes and the agent's own text are not."""

    def test_an_output_pasted_as_the_answer_is_a_dump(self) -> None:
        ev = Evidence.of([call("meeting_room_list", ROOMS)])
        assert ev.pasted(ROOMS).answer_share == 1.0 and ev.pasted(ROOMS).output_share == 1.0
        why = answer_dump(ROOMS, "Room 3F-Nebula seats 7.", ev)
        assert why is not None and why.startswith("answer is 100% pasted tool output")
        # re-indented and re-cased, or re-serialised without spaces: the same text
        rooms = json.loads(ROOMS)
        for again in (json.dumps(rooms, indent=2).upper(), json.dumps(rooms, separators=(",", ":"))):
            assert ev.pasted(again).answer_share == 1.0
        # written out anew, field by field, it is no verbatim copy: that is an answer (or a long one)
        listing = "\n".join(f"{r['name']} ({r['room_id']}): {r['building']}, seats {r['capacity']}"
                            for r in rooms["data"]["rooms"])
        assert ev.pasted(listing).copied == 0

    def test_a_paste_inside_a_sentence_repeats_what_the_tools_returned(self) -> None:
        ev = Evidence.of([call("meeting_room_list", ROOMS)])
        answer = ("I looked at every meeting room in the building for you and compared what they offer. This is "
                  "the whole list the room service gave me, so you can pick one yourself:\n" + ROOMS + "\nI would "
                  "take the Nebula room on the third floor, since it seats everyone in your team comfortably.")
        paste = ev.pasted(answer)
        assert paste.answer_share < PASTE_ANSWER_SHARE and paste.output_share == 1.0
        assert paste.why_dump() == f"answer repeats 100% of what the tools returned ({paste.repeated} of " \
                                   f"{paste.output} characters)"

    def test_quotes_and_short_confirmations_are_answers(self) -> None:
        ev = Evidence.of([call("meeting_room_list", ROOMS)])
        quoted = "Book Room 3F-Nebula (omm_0003) in Orbit Tower, 88 Keyuan Rd: it seats 7."
        assert ev.pasted(quoted).copied == 0  # names, ids, an address: every common run is under 40 characters
        assert answer_dump(quoted, "", ev) is None
        sent = Evidence.of([call("send", "Message sent successfully. Message ID: 1480739475902998491")])
        answer = "Posted it. The server said: Message sent successfully. Message ID: 1480739475902998491."
        assert sent.pasted(answer).output_share == 1.0 and sent.pasted(answer).repeated < PASTE_MIN_REPEATED
        assert answer_dump(answer, "", sent) is None  # all it returned, but a single line: a quote
        short = Evidence.of([call("delete", "Successfully deleted Inbox.md")])  # a whole output under 40 characters
        assert short.pasted("Successfully deleted Inbox.md, as you asked.").copied == 27  # characters but spaces

    def test_the_agents_own_text_echoed_back_is_not_copied(self) -> None:
        text = "Launch checklist: freeze the build on Friday, send the release notes to QA, book the war room."
        echo = call("message_create", json.dumps({"code": 0, "data": {"message_id": "om_1", "body": {
            "content": json.dumps({"text": text})}}}), arguments={"content": json.dumps({"text": text})})
        ev = Evidence.of([echo], echoes=True)  # grounding may count echoes; copying never does
        assert ev.pasted(f"I sent it: {text}").copied == 0
        assert answer_dump(f"I sent it: {text}", "", ev) is None

    def test_copies_are_measured_in_linear_time(self) -> None:
        # a run repeated on both sides is marked once, not once per pair (28 million marks here)
        ev = Evidence.of([call("get", "ab" * 20_000)])
        start = time.perf_counter()
        assert ev.pasted("ab" * 700) == Paste(1400, 1400, 40_000, 40_000)
        assert time.perf_counter() - start < 1.0  # ~20 ms; pairwise it took seconds


# == collateral damage ============================================================================
class TestCollateral:
    def test_unrelated_deleted_event_is_reported(self, before: dict[str, Any], after: dict[str, Any]) -> None:
        add_event(after, PRIMARY, NEW_EVENT, "Poster print review", "1773212400", "1773216000")
        del after["calendars"][PRIMARY]["events"][DENTIST]
        s = score_episode(make_task([CREATE_EVENT]), traj(), {"lark": before}, {"lark": after})
        assert s.checkpoints[0].score == 1.0
        assert s.collateral == [f"lark: delete event {DENTIST_PATH}"]

    def test_unrelated_modification_is_reported(self, before: dict[str, Any], after: dict[str, Any]) -> None:
        del after["calendars"][PRIMARY]["events"][DENTIST]
        after["calendars"][PRIMARY]["events"][ONE_ON_ONE]["description"] = "x"
        s = score_episode(make_task([DELETE_DENTIST]), traj(), {"lark": before}, {"lark": after})
        assert s.collateral == [
            f"lark: modify event calendars[{PRIMARY}].events[{ONE_ON_ONE}] (description: 'Monthly check-in.' -> 'x')"
        ]

    def test_own_entities_are_not_reported(self, before: dict[str, Any], after: dict[str, Any]) -> None:
        ev = add_event(after, PRIMARY, NEW_EVENT, "Poster print review", "1773212400", "1773216000")
        add_attendee(ev, NEW_ATTENDEE, ZHAO)
        after["calendars"][PRIMARY]["events"][WEEKLY]["location"] = {"name": "Room 5F-Nebula"}
        del after["calendars"][PRIMARY]["events"][DENTIST]
        task = make_task([CREATE_EVENT, INVITE_ZHAO, MODIFY_WEEKLY, DELETE_DENTIST])
        s = score_episode(task, traj(), {"lark": before}, {"lark": after})
        assert [c.score for c in s.checkpoints] == [1.0, 1.0, 1.0, 1.0]
        assert s.collateral == []

    def test_no_checkpoint_everything_is_reported(self, before: dict[str, Any], after: dict[str, Any]) -> None:
        add_event(after, PRIMARY, NEW_EVENT, "Poster print review", "1773212400", "1773216000")
        s = score_episode(make_task([search_cp("x")]), traj(answer="x"), {"lark": before}, {"lark": after})
        assert s.collateral == [f"lark: create event {NEW_EVENT_PATH}"]

    def test_p2p_chat_created_with_a_claimed_message(self, before: dict[str, Any], after: dict[str, Any]) -> None:
        chat_id, msg_id = "oc_" + "a" * 32, "om_" + "b" * 32
        after["chats"][chat_id] = {
            "chat_id": chat_id, "name": "Zhao Min", "description": "", "chat_mode": "p2p", "chat_type": "private",
            "owner_id": ME, "create_time": "1773106200",
            "members": {ME: {"member_id": ME, "name": "Chen Yu"}, ZHAO: {"member_id": ZHAO, "name": "Zhao Min"}},
            "messages": {msg_id: {"message_id": msg_id, "msg_type": "text", "sender_id": ME,
                                  "content": json.dumps({"text": "Please bring the final poster files"}),
                                  "create_time": "1773106200000"}},
        }
        cp = {"type": "operate", "summary": "message Zhao Min", "server": "lark", "tool": "im_v1_message_create",
              "operate_type": "create", "entity": "message", "expect": {"content": {"$contains": "final poster"}},
              "parent_expect": {"chat_mode": "p2p", "members": {ZHAO: {"name": "Zhao Min"}}}}
        s = score_episode(make_task([cp]), traj(), {"lark": before}, {"lark": after})
        assert s.checkpoints[0].score == 1.0
        assert s.checkpoints[0].claimed == [f"lark:chats[{chat_id}].messages[{msg_id}]"]
        assert s.collateral == []

    def test_message_in_an_existing_chat_leaves_the_chat_alone(self, before: dict[str, Any],
                                                               after: dict[str, Any]) -> None:
        msg_id = "om_" + "c" * 32
        after["chats"][SPRING_CHAT]["messages"][msg_id] = {"message_id": msg_id, "msg_type": "text", "sender_id": ME,
                                                           "content": json.dumps({"text": "hi"})}
        cp = {"type": "operate", "summary": "say hi", "server": "lark", "tool": "im_v1_message_create",
              "operate_type": "create", "entity": "message", "expect": {"content": {"$contains": "hi"}}}
        s = score_episode(make_task([cp]), traj(), {"lark": before}, {"lark": after})
        assert s.checkpoints[0].score == 1.0
        assert s.collateral == []

    def test_ignore_changes_of_the_hierarchy(self, monkeypatch: pytest.MonkeyPatch, before: dict[str, Any],
                                             after: dict[str, Any]) -> None:
        raw = json.loads((DATA / "hierarchies/lark.json").read_text(encoding="utf-8"))
        h = Hierarchy.model_validate({**raw, "ignore_changes": ["chats[*].messages[*].is_read"]})
        monkeypatch.setattr(checkpoints_mod, "get_app", lambda name: SimpleNamespace(hierarchy=h))
        msg = after["chats"][SPRING_CHAT]["messages"]["om_c6f561c5cb347611a3ce9d97dcbee500"]
        msg["is_read"] = True
        assert collateral({"lark": before}, {"lark": after}, []) == []
        msg["content"] = json.dumps({"text": "edited"})  # a real change next to the ignored one
        out = collateral({"lark": before}, {"lark": after}, [])
        assert len(out) == 1
        assert out[0].startswith(
            f"lark: modify message chats[{SPRING_CHAT}].messages[om_c6f561c5cb347611a3ce9d97dcbee500] (content: ")

    def test_is_ignored_app_free(self) -> None:
        h = Hierarchy.model_validate({
            "app": "tiny",
            "entities": {"chat": {"collection": "chats", "id_field": "id"},
                         "message": {"collection": "messages", "parent": "chat", "id_field": "id"}},
            "ignore_changes": ["chats[*].messages[*].is_read", "last_seen"],
        })
        before = {"last_seen": 1, "chats": {"c1": {"id": "c1", "title": "A", "messages": {
            "m1": {"id": "m1", "text": "hi", "is_read": False}}}}}
        after = copy.deepcopy(before)
        after["last_seen"] = 2
        after["chats"]["c1"]["messages"]["m1"]["is_read"] = True
        changes = diff_states(h, before, after)
        assert [(c.op, c.path, c.fields) for c in changes] == [
            ("modify", "", ("last_seen",)), ("modify", "chats[c1].messages[m1]", ("is_read",))]
        assert all(is_ignored(c, h.ignore_changes) for c in changes)
        after["chats"]["c1"]["messages"]["m1"]["text"] = "edited"
        after["chats"]["c1"]["title"] = "B"
        verdicts = {c.path: is_ignored(c, h.ignore_changes) for c in diff_states(h, before, after)}
        assert verdicts == {"": True, "chats[c1]": False, "chats[c1].messages[m1]": False}
        deleted = copy.deepcopy(before)
        del deleted["chats"]["c1"]["messages"]["m1"]
        assert [is_ignored(c, h.ignore_changes) for c in diff_states(h, before, deleted)] == [False]


# == suite metrics ================================================================================
class TestSuiteMetrics:
    def test_values(self) -> None:
        eps = [
            EpisodeScore("a", "collaboration", 1.0, 1.0),
            EpisodeScore("b", "collaboration", 0.8, None),  # exactly 0.8: not a success
            EpisodeScore("c", "lark_centric", 0.5, 0.0),
            EpisodeScore("d", "lark_centric", 0.9, 0.5),
        ]
        m = suite_metrics(eps)
        assert m["n"] == 4
        assert m["acc"] == pytest.approx(0.8)  # (1 + 0.8 + 0.5 + 0.9) / 4
        assert m["sr_0_8"] == 0.5  # a and d
        assert m["exec_acc"] == 0.5  # (1 + 0 + 0.5) / 3, b has no operate checkpoint
        assert m["n_exec"] == 3

    def test_sr_is_strict(self) -> None:
        assert suite_metrics([EpisodeScore("a", "x", 0.8, None)])["sr_0_8"] == 0.0
        assert suite_metrics([EpisodeScore("a", "x", 0.81, None)])["sr_0_8"] == 1.0

    def test_no_operate_tasks(self) -> None:
        m = suite_metrics([EpisodeScore("a", "x", 0.25, None), EpisodeScore("b", "x", 0.75, None)])
        assert m == {"n": 2, "acc": 0.5, "sr_0_8": 0.0, "exec_acc": None, "n_exec": 0, "strict_sr": 0.0}

    def test_empty(self) -> None:
        assert suite_metrics([]) == {"n": 0, "acc": 0.0, "sr_0_8": 0.0, "exec_acc": None, "n_exec": 0,
                                    "strict_sr": 0.0}
        assert by_category([]) == {}

    def test_by_category(self) -> None:
        eps = [
            EpisodeScore("a", "collaboration", 1.0, 1.0, strict=True),
            EpisodeScore("b", "lark_centric", 0.5, None),
            EpisodeScore("c", "collaboration", 0.5, 0.0),
            EpisodeScore("d", "lark_centric", 1.0, None),  # Acc 1 but not strict (say, a message sent twice)
        ]
        cats = by_category(eps)
        assert list(cats) == ["collaboration", "lark_centric"]
        assert cats["lark_centric"] == {"n": 2, "acc": 0.75, "sr_0_8": 0.5, "exec_acc": None, "n_exec": 0,
                                        "strict_sr": 0.0}
        assert cats["collaboration"] == {"n": 2, "acc": 0.75, "sr_0_8": 0.5, "exec_acc": 0.5, "n_exec": 2,
                                         "strict_sr": 0.5}


# == build_summary ================================================================================
class TestBuildSummary:
    def test_summary(self) -> None:
        t_ops = make_task([CREATE_EVENT], tid="ops", category="collaboration")
        t_search = make_task([search_cp("x")], tid="srch", category="content")

        def model(rnd: int, inp: int, out: int) -> ModelCallEvent:
            return ModelCallEvent(round=rnd, latency_s=0.1, usage=Usage(input_tokens=inp, output_tokens=out))

        def rec(task: Task, status: str, events: list[Any], score: dict[str, Any] | None,
                elapsed: float = 0.0) -> EpisodeRecord:
            tr = Trajectory(task_id=task.id, agent="test", events=events, elapsed_s=elapsed,
                            stop_reason="error" if status == "error" else "answered",
                            error="boom" if status == "error" else None)
            return EpisodeRecord(task_id=task.id, category=task.spec.category, status=status, trajectory=tr,
                                 score=score, error=tr.error)

        records = [
            rec(t_ops, "ok", [model(1, 100, 10), call("a", rnd=1), call("b", error=True, rnd=1), model(2, 200, 20),
                              call("c", rnd=2)],
                {"acc": 1.0, "exec_acc": 1.0, "checkpoints": [], "collateral": [], "strict": True}, elapsed=4.0),
            rec(t_ops, "error", [call("a", error=True, rnd=1)], None),
            rec(t_search, "error", [], None),
            rec(t_search, "ok", [call("a", rnd=1), call("b", rnd=1)],
                {"acc": 0.5, "exec_acc": None, "checkpoints": [], "collateral": ["lark: delete event x"]},
                elapsed=2.0),
            rec(make_task([search_cp("x")], tid="unknown"), "ok", [call("z")],  # a task not in the suite
                {"acc": 1.0, "exec_acc": None, "checkpoints": [], "collateral": ["y"]}),
        ]
        s = build_summary(RunConfig(suite="test", agent="test", model=None), [t_ops, t_search], records)
        assert s["n_tasks"] == 2
        assert s["n_episodes"] == 4
        assert s["n_errors"] == 2
        m = s["metrics"]
        assert m["n"] == 4
        assert m["acc"] == 0.375  # (1 + 0 + 0 + 0.5) / 4: errored episodes count 0
        assert m["sr_0_8"] == 0.25
        assert m["exec_acc"] == 0.5  # (1 + 0) / 2: the errored ops task counts 0, search tasks are left out
        assert m["n_exec"] == 2
        assert m["avg_tool_calls"] == 1.5  # (3 + 1 + 0 + 2) / 4
        assert m["tool_error_rate"] == pytest.approx(1 / 3)  # 2 errors in 6 calls
        assert m["avg_rounds"] == 1.0  # (2 + 1 + 0 + 1) / 4
        assert m["avg_input_tokens"] == 75.0  # 300 / 4
        assert m["avg_output_tokens"] == 7.5  # 30 / 4
        assert m["collateral_rate"] == 0.25
        assert m["avg_elapsed_s"] == 1.5  # (4 + 0 + 0 + 2) / 4
        assert s["by_category"] == {
            "content": {"n": 2, "acc": 0.25, "sr_0_8": 0.0, "exec_acc": None, "n_exec": 0, "strict_sr": 0.0},
            "collaboration": {"n": 2, "acc": 0.5, "sr_0_8": 0.5, "exec_acc": 0.5, "n_exec": 2, "strict_sr": 0.5},
        }
        assert m["strict_sr"] == 0.25  # only the first episode passed strictly
        assert [(e["task_id"], e["acc"], e["exec_acc"], e["strict"], e["status"]) for e in s["episodes"]] == [
            ("ops", 1.0, 1.0, True, "ok"), ("ops", 0.0, 0.0, False, "error"), ("srch", 0.0, None, False, "error"),
            ("srch", 0.5, None, False, "ok")]
        assert s["episodes"][1]["error"] == "boom"
        assert s["episodes"][1]["stop_reason"] == "error"

    def test_empty(self) -> None:
        s = build_summary(RunConfig(suite="test", agent="test", model=None), [], [])
        assert s["n_episodes"] == 0
        assert s["n_errors"] == 0
        assert s["metrics"]["acc"] == 0.0
        assert s["metrics"]["avg_tool_calls"] == 0.0
        assert s["metrics"]["tool_error_rate"] == 0.0
        assert s["by_category"] == {}


class TestTrials:
    def test_pass_at_k_and_pass_hat_k_by_hand(self) -> None:
        from mcp_persona.scoring.metrics import pass_at_k, pass_hat_k

        # n=4 trials, c=2 successes: pass@1 = 1 - C(2,1)/C(4,1) = 0.5; pass@2 = 1 - C(2,2)/C(4,2) = 1 - 1/6
        assert pass_at_k(4, 2, 1) == 0.5
        assert pass_at_k(4, 2, 2) == pytest.approx(5 / 6)
        assert pass_at_k(4, 2, 3) == 1.0
        # pass^k = C(c,k)/C(n,k): C(2,1)/C(4,1) = 0.5; C(2,2)/C(4,2) = 1/6; C(2,3) = 0
        assert pass_hat_k(4, 2, 1) == 0.5
        assert pass_hat_k(4, 2, 2) == pytest.approx(1 / 6)
        assert pass_hat_k(4, 2, 3) == 0.0
        with pytest.raises(ValueError):
            pass_hat_k(2, 3, 1)

    def test_trial_metrics_over_tasks(self) -> None:
        from mcp_persona.scoring.metrics import trial_metrics

        eps = [EpisodeScore("a", "c", acc, None) for acc in (1.0, 0.5)] + [EpisodeScore("b", "c", 1.0, None)] * 2
        m = trial_metrics(eps)
        assert m["trials"] == 2
        assert m["avg@2"] == pytest.approx((1.0 + 0.5 + 1.0 + 1.0) / 4)
        assert m["pass@1"] == pytest.approx((0.5 + 1.0) / 2)
        assert m["pass^2"] == pytest.approx((0.0 + 1.0) / 2)
        assert m["pass@2"] == pytest.approx((1.0 + 1.0) / 2)

    def test_trial_metrics_on_the_strict_pass(self) -> None:
        from mcp_persona.scoring.metrics import trial_metrics

        # task a: both trials Acc 1, one strict (the other wrote twice); task b: Acc 1, never strict
        eps = [EpisodeScore("a", "c", 1.0, None, strict=True), EpisodeScore("a", "c", 1.0, None, strict=False),
               EpisodeScore("b", "c", 1.0, None), EpisodeScore("b", "c", 1.0, None)]
        m = trial_metrics(eps)
        assert m["pass^2"] == 1.0 and m["pass@1"] == 1.0  # Acc alone sees no difference
        assert m["strict_pass@1"] == pytest.approx((0.5 + 0.0) / 2)
        assert m["strict_pass@2"] == pytest.approx((1.0 + 0.0) / 2)
        assert m["strict_pass^2"] == 0.0
