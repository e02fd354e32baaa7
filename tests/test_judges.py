"""LLM judges, driven by a scripted judge client (a test double, never a real model).

Parsing is strict: a reply is one JSON object (optionally fenced) that fits the judge's schema,
or it is malformed. Malformed replies get one corrective retry, then the verdict is recorded as
``unparseable`` with every raw output kept; nothing is ever read out of free text (the
LiveMCPBench bug: a quoted "success" missed by the regex, then "success" searched for anywhere).
"""

from __future__ import annotations

import json
from typing import Any

import anyio
import pytest
from pydantic import BaseModel

from mcp_persona.judges import (
    Budgets,
    JudgeVerdict,
    VerdictParseError,
    extract_json_object,
    likert_to_score,
    parse_verdict,
)
from mcp_persona.judges.base import ask_judge
from mcp_persona.judges.render import CUT_MARK, clip
from mcp_persona.judges.schemas import CheckpointVerdict, KeyPointList, KeyPointVerdict, LikertVerdict
from mcp_persona.llm.base import ChatResponse, ModelError
from mcp_persona.protocols.livemcp101.judges import LikertResultJudge, LikertTrajectoryJudge
from mcp_persona.protocols.livemcpbench.keypoint import KeyPointExtractor, KeyPointJudge
from mcp_persona.protocols.persona.judge import CheckpointJudge, combine_scores, undecided_checkpoints
from mcp_persona.protocols.persona.spec import PersonaTask
from mcp_persona.tasks import Task
from mcp_persona.trajectory import ModelCallEvent, ToolCallEvent, Trajectory, Usage

OPEN_ID = "ou_043b026c48bbf33feff9243a8f506b40"


class ScriptedJudge:
    """Replies from a list of texts (or exceptions); records every conversation it was sent."""

    name = "scripted:judge"

    def __init__(self, replies: list[str | Exception | None]) -> None:
        self.replies = list(replies)
        self.seen: list[list[dict[str, Any]]] = []

    async def complete(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> ChatResponse:
        assert tools == [], "a judge is never offered tools"
        self.seen.append([dict(m) for m in messages])
        if not self.replies:
            raise AssertionError("the judge was called more often than scripted")
        reply = self.replies.pop(0)
        if isinstance(reply, Exception):
            raise reply
        return ChatResponse(content=reply, usage=Usage(input_tokens=1000, output_tokens=50))

    @property
    def prompt(self) -> str:
        return "\n".join(m["content"] for m in self.seen[0])


def make_task(**over: Any) -> Task:
    data: dict[str, Any] = {
        "id": "lark_t1",
        "suite": "test",
        "instruction": "Put 'Poster print review' on my primary calendar tomorrow 3-4 pm and invite Zhao Min.",
        "servers": [{"server": "lark", "context_id": "chen_yu"}],
        "clock": {"now": "2026-03-10T09:30:00", "timezone": "Asia/Shanghai"},
        "gold": [
            {"calls": [{"server": "lark", "tool": "contact_v3_user_batchGetId",
                        "arguments": {"data": {"mobiles": ["+8613800138000"]}}}]},
            {"calls": [{"server": "lark", "tool": "calendar_v4_calendarEvent_create",
                        "arguments": {"path": {"calendar_id": "primary"},
                                      "data": {"summary": "Poster print review"}}}]},
            {"calls": [{"server": "lark", "tool": "calendar_v4_calendarEventAttendee_create",
                        "arguments": {"path": {"event_id": {"$ref": "1.0:data.event.event_id"}},
                                      "data": {"attendees": [
                                          {"user_id": {"$ref": "0.0:data.user_list.0.user_id"}}]}}}]},
        ],
        "reference_answer": "Created 'Poster print review' for Mar 11 15:00-16:00 and invited Zhao Min.",
    }
    spec: dict[str, Any] = {
        "category": "collaboration",
        "necessary_context": {"Zhao Min's phone number": "+86 13800138000"},
        "checkpoints": [
            {"summary": "Resolve Zhao Min's open_id from her phone number", "type": "personalized_search",
             "gt_value": [OPEN_ID], "server": "lark"},
            {"summary": "Create 'Poster print review' tomorrow 15:00-16:00", "type": "operate", "server": "lark",
             "tool": "calendar_v4_calendarEvent_create", "operate_type": "create", "entity": "event",
             "expect": {"summary": "Poster print review", "start_time.timestamp": "1773212400"}},
            {"summary": "Tell the user the meeting is set", "type": "other"},
        ],
        "key_points": ["Create the event 'Poster print review' tomorrow 15:00-16:00", "Invite Zhao Min"],
    }
    data.update({k: v for k, v in over.items() if k in data})
    spec.update({k: v for k, v in over.items() if k not in data})
    return PersonaTask.model_validate(data | {"spec": spec})


def make_trajectory(answer: str = "Done: the event is created and Zhao Min is invited.") -> Trajectory:
    return Trajectory(task_id="lark_t1", agent="model", model="agent-model", final_answer=answer,
                      stop_reason="answered", events=[
        ModelCallEvent(round=0, latency_s=0.1),
        ToolCallEvent(round=0, server="lark", tool="contact_v3_user_batchGetId",
                      arguments={"data": {"mobiles": ["+8613800138000"]}},
                      result=json.dumps({"code": 0, "data": {"user_list": [{"user_id": OPEN_ID}]}})),
        ModelCallEvent(round=1, latency_s=0.1),
        ToolCallEvent(round=1, server="lark", tool="calendar_v4_calendarEvent_create",
                      arguments={"path": {"calendar_id": "primary"}, "data": {"summary": "Poster print review"}},
                      result=json.dumps({"code": 0, "data": {"event": {"event_id": "ev_1"}}})),
    ])


def run(coro_fn, *args, **kwargs):
    return anyio.run(lambda: coro_fn(*args, **kwargs))


# -- the parser -----------------------------------------------------------------------------------
OK_CHECKPOINT = '{"reason": "found and reported", "score": 1}'


@pytest.mark.parametrize("text", [
    OK_CHECKPOINT,
    "\n\n  " + OK_CHECKPOINT + "  \n",
    "```json\n" + OK_CHECKPOINT + "\n```",
    "```\n" + OK_CHECKPOINT + "\n```",
    "  ```json\n  " + OK_CHECKPOINT + "  \n```\n",
    '{\n  "reason": "found and reported",\n  "score": 1.0\n}',
])
def test_one_json_object_bare_fenced_or_padded_parses_exactly(text: str) -> None:
    verdict = parse_verdict(text, CheckpointVerdict)
    assert isinstance(verdict, CheckpointVerdict)
    assert verdict.score == 1.0 and verdict.reason == "found and reported"


MALFORMED_KEYPOINT = {
    # the LiveMCPBench case: a quoted verdict inside prose
    "quoted success in prose": 'Thoughts: the agent created the file.\nStatus: "success"',
    # reasoning that says "successfully", then a failure verdict, in prose: not a success, not a failure either
    "successfully then failure in prose":
        'Thoughts: The agent successfully called the search tool, but never wrote the file.\nStatus: "failure"',
    "prose before the object": 'Here is my verdict: {"key_points_met": [true], "reason": "ok", "status": "success"}',
    "prose after the object": '{"key_points_met": [true], "reason": "ok", "status": "success"}\nHope this helps!',
    "two objects": '{"key_points_met": [false], "reason": "no", "status": "failure"} '
                   '{"key_points_met": [true], "reason": "ok", "status": "success"}',
    "two fenced blocks": '```json\n{"key_points_met": [true], "reason": "ok", "status": "success"}\n```\n'
                         '```json\n{"key_points_met": [false], "reason": "no", "status": "failure"}\n```',
    "prose before a fence": 'Verdict:\n```json\n{"key_points_met": [true], "reason": "ok", "status": "success"}\n```',
    "prose after a fence": '```json\n{"key_points_met": [true], "reason": "ok", "status": "success"}\n```\nDone.',
    "unclosed fence": '```json\n{"key_points_met": [true], "reason": "ok", "status": "success"}',
    "trailing comma": '{"key_points_met": [true], "reason": "ok", "status": "success",}',
    "single quotes": "{'key_points_met': [true], 'reason': 'ok', 'status': 'success'}",
    "missing field": '{"key_points_met": [true], "reason": "ok"}',
    "extra field": '{"key_points_met": [true], "reason": "ok", "status": "success", "confidence": 0.9}',
    "wrong case": '{"key_points_met": [true], "reason": "ok", "status": "Success"}',
    "a word that contains success": '{"key_points_met": [true], "reason": "ok", "status": "successful"}',
    "wrong type for met": '{"key_points_met": ["yes"], "reason": "ok", "status": "success"}',
    "duplicate keys": '{"key_points_met": [true], "reason": "ok", "status": "failure", "status": "success"}',
    "success with an unmet key point": '{"key_points_met": [false], "reason": "ok", "status": "success"}',
    "wrong number of key points": '{"key_points_met": [true, true], "reason": "ok", "status": "success"}',
    "a list, not an object": '[{"key_points_met": [true], "reason": "ok", "status": "success"}]',
    "the bare word": "success",
    "empty": "   ",
    "no content": None,
}


@pytest.mark.parametrize("text", list(MALFORMED_KEYPOINT.values()), ids=list(MALFORMED_KEYPOINT))
def test_malformed_verdicts_are_rejected_never_guessed(text: str | None) -> None:
    with pytest.raises(VerdictParseError):
        parse_verdict(text, KeyPointVerdict, context={"n_key_points": 1})


def test_successfully_in_the_reasoning_does_not_make_a_failure_a_success() -> None:
    text = ('{"key_points_met": [true, false], "reason": "The agent successfully called search_files and '
            'the status of the call was success, but the summary was never written.", "status": "failure"}')
    verdict = parse_verdict(text, KeyPointVerdict, context={"n_key_points": 2})
    assert isinstance(verdict, KeyPointVerdict)
    assert verdict.status == "failure"


@pytest.mark.parametrize("text", [
    '{"reason": "r", "score": 0.7}',  # not rounded to 0.5 or 1
    '{"reason": "r", "score": 0.49}',
    '{"reason": "r", "score": 2}',
    '{"reason": "r", "score": -1}',
    '{"reason": "r", "score": "1"}',  # a string is not a number
    '{"reason": "r", "score": true}',  # a boolean is not 1
    '{"reason": "r", "score": null}',
    '{"reason": "r", "score": NaN}',
    '{"reason": "", "score": 1}',
    '{"score": 1}',
])
def test_checkpoint_scores_outside_0_half_1_are_invalid(text: str) -> None:
    with pytest.raises(VerdictParseError):
        parse_verdict(text, CheckpointVerdict)


@pytest.mark.parametrize(("raw", "expected"), [("0", 0.0), ("0.5", 0.5), ("1", 1.0), ("0.0", 0.0), ("1.0", 1.0)])
def test_checkpoint_scores_0_half_1_parse_exactly(raw: str, expected: float) -> None:
    verdict = parse_verdict(f'{{"reason": "r", "score": {raw}}}', CheckpointVerdict)
    assert isinstance(verdict, CheckpointVerdict) and verdict.score == expected


@pytest.mark.parametrize("raw", ['"4"', "4.0", "4.5", "true", "0", "6"])
def test_likert_must_be_an_integer_1_to_5(raw: str) -> None:
    with pytest.raises(VerdictParseError):
        parse_verdict(f'{{"feedback": "f", "likert": {raw}}}', LikertVerdict)


def test_parse_errors_say_what_is_wrong() -> None:
    with pytest.raises(VerdictParseError, match="text after the JSON object"):
        extract_json_object('{"a": 1} and more')
    with pytest.raises(VerdictParseError, match="does not start with a JSON object"):
        extract_json_object('Verdict: {"a": 1}')
    with pytest.raises(VerdictParseError, match="not valid JSON"):
        extract_json_object('{"a": 1,}')
    with pytest.raises(VerdictParseError, match="twice"):
        extract_json_object('{"a": 1, "a": 2}')
    with pytest.raises(VerdictParseError, match="empty"):
        extract_json_object("")
    with pytest.raises(VerdictParseError, match=r"score: .*0, 0\.5 or 1"):
        parse_verdict('{"reason": "r", "score": 0.7}', CheckpointVerdict)
    with pytest.raises(VerdictParseError, match="status: Field required"):
        parse_verdict('{"key_points_met": [], "reason": "r"}', KeyPointVerdict)


# -- the retry path -------------------------------------------------------------------------------
def ask(client: ScriptedJudge, schema: type[BaseModel] = CheckpointVerdict, **kw: Any) -> JudgeVerdict:
    msgs = [{"role": "system", "content": "judge"}, {"role": "user", "content": "evidence"}]
    return run(ask_judge, client, msgs, schema, judge="t", label=lambda v: v.score, score=lambda v: v.score, **kw)


def test_first_malformed_second_valid_is_ok_and_keeps_both_raw_outputs() -> None:
    first = 'Thoughts: all good.\nScore: "1"'
    client = ScriptedJudge([first, '{"reason": "all GT values reported", "score": 1}'])
    verdict = ask(client)
    assert verdict.status == "ok" and verdict.ok
    assert verdict.label == 1.0 and verdict.score == 1.0
    assert verdict.parsed == {"reason": "all GT values reported", "score": 1.0}
    assert verdict.raw_outputs == [first, '{"reason": "all GT values reported", "score": 1}']
    assert verdict.attempts[0].error and "does not start with a JSON object" in verdict.attempts[0].error
    assert verdict.attempts[1].error is None
    assert verdict.usage == Usage(input_tokens=2000, output_tokens=100)
    # the second attempt sees its malformed reply and a corrective message naming the problem and the shape
    second = client.seen[1]
    assert second[:2] == client.seen[0]
    assert second[2] == {"role": "assistant", "content": first}
    assert second[3]["role"] == "user"
    assert "does not start with a JSON object" in second[3]["content"]
    assert '"score": <0 or 0.5 or 1>' in second[3]["content"]


def test_both_attempts_malformed_is_unparseable_with_nothing_guessed() -> None:
    replies = ['Status: "success" — score 1', '{"reason": "mostly there", "score": 0.7}', OK_CHECKPOINT]
    client = ScriptedJudge(replies)
    verdict = ask(client)
    assert verdict.status == "unparseable" and not verdict.ok
    assert verdict.parsed is None and verdict.label is None and verdict.score is None
    assert verdict.raw_outputs == replies[:2]
    assert all(a.error for a in verdict.attempts)
    assert "0, 0.5 or 1" in (verdict.error or "")
    assert len(client.seen) == 2 and client.replies == [OK_CHECKPOINT]  # exactly two attempts


def test_an_endpoint_failure_is_an_error_verdict_not_a_guess() -> None:
    verdict = ask(ScriptedJudge([ModelError("HTTP 503")]))
    assert verdict.status == "error" and verdict.parsed is None and verdict.score is None
    assert "HTTP 503" in (verdict.error or "")


def test_a_verdict_round_trips_through_json_for_storage() -> None:
    client = ScriptedJudge(["nope", '{"reason": "half", "score": 0.5}'])
    verdict = ask(client)
    again = JudgeVerdict.model_validate_json(verdict.model_dump_json())
    assert again == verdict and again.raw_outputs == ["nope", '{"reason": "half", "score": 0.5}']
    assert again.cost_usd is None and again.model == "scripted:judge"


# -- truncation -----------------------------------------------------------------------------------
def test_clip_keeps_head_and_tail_and_says_how_much_was_cut() -> None:
    text = "A" * 600 + "B" * 400
    out = clip(text, 300)
    assert out.startswith("A" * 200) and out.endswith("B" * 100)
    assert CUT_MARK.format(n=700) in out
    assert clip("short", 300) == "short"


# -- the checkpoint judge -------------------------------------------------------------------------
def test_checkpoint_judge_prompt_has_budgets_gt_and_evidence() -> None:
    client = ScriptedJudge(['{"reason": "open_id found and used", "score": 1}'])
    verdict = run(CheckpointJudge(client).judge, make_task(), make_trajectory(), 0)
    assert verdict.ok and verdict.label == 1.0 and verdict.score == 1.0
    assert verdict.judge == "checkpoint" and verdict.subject == "lark_t1#checkpoint0"
    prompt = client.prompt
    for budget in ("3000", "12000", "1500", "300", "4000"):  # instruction, section, relevant, other, answer
        assert budget in prompt
    assert "truncated" in prompt and CUT_MARK.format(n="N") in prompt
    assert OPEN_ID in prompt and "Ground truth value(s)" in prompt
    assert "Resolve Zhao Min's open_id" in prompt
    assert "Poster print review" in prompt and "+86 13800138000" in prompt
    assert "lark:contact_v3_user_batchGetId" in prompt
    assert "Done: the event is created" in prompt
    assert '"score": <0 or 0.5 or 1>' in prompt


def test_checkpoint_judge_cuts_long_outputs_to_the_budgets_it_states() -> None:
    traj = make_trajectory()
    traj.events.append(ToolCallEvent(round=2, server="lark", tool="im_v1_message_list", arguments={},
                                     result="L" * 5000))
    traj.events.append(ToolCallEvent(round=2, server="notion", tool="search", arguments={}, result="N" * 5000))
    budgets = Budgets(tool_output=700, other_output=120, tool_calls=20000)
    client = ScriptedJudge(['{"reason": "r", "score": 0}'])
    run(CheckpointJudge(client, budgets=budgets).judge, make_task(), traj, 0)
    prompt = client.prompt
    assert "700" in prompt and "120" in prompt  # the stated budgets are the ones applied
    assert "L" * 700 not in prompt and "L" * 466 in prompt  # a relevant (lark) output: 700 characters
    assert CUT_MARK.format(n=5000 - 700) in prompt
    assert "N" * 121 not in prompt and CUT_MARK.format(n=5000 - 120) in prompt  # another app's output: 120


def test_checkpoint_judge_gives_operations_their_gt_fields_and_state_changes() -> None:
    client = ScriptedJudge(['{"reason": "created, wrong time", "score": 0.5}'])
    verdict = run(CheckpointJudge(client).judge, make_task(), make_trajectory(), 1,
                  state_changes=["lark: created calendars[cal_1].events[ev_1]"])
    assert verdict.score == 0.5
    prompt = client.prompt
    assert "Ground truth (expected fields)" in prompt and "1773212400" in prompt
    assert "calendar_v4_calendarEvent_create" in prompt and "operation: create" in prompt
    assert "created calendars[cal_1].events[ev_1]" in prompt
    assert "state changes 3000" in prompt


def test_checkpoint_judge_never_rounds_a_0_7() -> None:
    client = ScriptedJudge(['{"reason": "r", "score": 0.7}', '{"reason": "r", "score": 0.75}'])
    verdict = run(CheckpointJudge(client).judge, make_task(), make_trajectory(), 2)
    assert verdict.status == "unparseable" and verdict.score is None
    assert verdict.raw_outputs == ['{"reason": "r", "score": 0.7}', '{"reason": "r", "score": 0.75}']


def test_checkpoint_judge_rejects_a_checkpoint_the_task_does_not_have() -> None:
    with pytest.raises(IndexError):
        CheckpointJudge(ScriptedJudge([])).messages(make_task(), make_trajectory(), 3)


def test_judge_task_asks_once_per_checkpoint() -> None:
    client = ScriptedJudge(['{"reason": "r", "score": 1}'] * 3)
    verdicts = run(CheckpointJudge(client, concurrency=1).judge_task, make_task(), make_trajectory())
    assert list(verdicts) == [0, 1, 2] and all(v.score == 1.0 for v in verdicts.values())
    assert len(client.seen) == 3
    assert [v.subject for v in verdicts.values()] == [f"lark_t1#checkpoint{i}" for i in range(3)]


RULES = {"acc": 0.75, "exec_acc": 0.0, "collateral": [], "checkpoints": [
    {"index": 0, "type": "personalized_search", "score": 1.0, "reason": "in answer"},
    {"index": 1, "type": "operate", "score": 0.5, "reason": "1/2 fields"},
    {"index": 2, "type": "other", "score": None, "reason": "no tool named: left to a judge"},
]}


def verdict_of(status: str, score: float | None = None) -> JudgeVerdict:
    parsed = {"reason": "judged", "score": score} if status == "ok" else None
    return JudgeVerdict(judge="checkpoint", model="m", status=status, parsed=parsed, label=score, score=score)


def test_combine_complement_fills_only_undecided_checkpoints() -> None:
    assert undecided_checkpoints(RULES) == [2]
    out = combine_scores(RULES, {1: verdict_of("ok", 1.0), 2: verdict_of("ok", 1.0)}, policy="complement")
    assert [c["score"] for c in out["checkpoints"]] == [1.0, 0.5, 1.0]
    assert [c["source"] for c in out["checkpoints"]] == ["rules", "rules", "judge"]
    assert out["acc"] == pytest.approx(2.5 / 3) and out["rule_acc"] == 0.75 and out["exec_acc"] == 0.0
    assert out["checkpoints"][1]["judge_score"] == 1.0  # kept alongside, not used


def test_combine_replace_uses_the_judge_and_falls_back_on_unusable_verdicts() -> None:
    out = combine_scores(RULES, {0: verdict_of("ok", 0.0), 1: verdict_of("unparseable"), 2: verdict_of("error")},
                         policy="replace")
    assert [c["score"] for c in out["checkpoints"]] == [0.0, 0.5, 0.0]
    assert [c["source"] for c in out["checkpoints"]] == ["judge", "rules (judge unparseable)", "unjudged (judge error)"]
    assert out["judge_unparseable"] == 1 and out["judge_errors"] == 1
    assert out["acc"] == pytest.approx(0.5 / 3)
    assert RULES["checkpoints"][0]["score"] == 1.0  # the rule score dict is not mutated


# -- the Likert judges ----------------------------------------------------------------------------
@pytest.mark.parametrize(("likert", "score"), [(1, 0.0), (2, 0.25), (3, 0.5), (4, 0.75), (5, 1.0)])
def test_likert_result_judge_maps_1_to_5_onto_0_to_1(likert: int, score: float) -> None:
    client = ScriptedJudge([f'{{"feedback": "compared with the reference", "likert": {likert}}}'])
    verdict = run(LikertResultJudge(client).judge, make_task(), make_trajectory())
    assert verdict.ok and verdict.label == likert and verdict.score == score == likert_to_score(likert)


def test_likert_to_score_rejects_anything_but_1_to_5() -> None:
    for bad in (0, 6, True, 2.5):
        with pytest.raises(ValueError):
            likert_to_score(bad)  # type: ignore[arg-type]


def test_likert_result_judge_sees_query_reference_answer_and_agent_answer() -> None:
    client = ScriptedJudge(['{"feedback": "f", "likert": 4}'])
    run(LikertResultJudge(client).judge, make_task(), make_trajectory("It is booked."),
        reference_answer="REFERENCE RUN: booked for 15:00")
    prompt = client.prompt
    assert make_task().instruction in prompt
    assert "REFERENCE RUN: booked for 15:00" in prompt and "It is booked." in prompt
    assert "reference 4000" in prompt and "final answer 4000" in prompt


def test_likert_result_judge_needs_a_reference_answer() -> None:
    with pytest.raises(ValueError, match="no reference answer"):
        LikertResultJudge(ScriptedJudge([])).messages(make_task(reference_answer=""), make_trajectory())


def test_likert_trajectory_judge_sees_the_plan_and_the_calls() -> None:
    client = ScriptedJudge(['{"feedback": "no attendee step", "likert": 3}'])
    verdict = run(LikertTrajectoryJudge(client).judge, make_task(), make_trajectory())
    assert verdict.score == 0.5 and verdict.subject == "lark_t1#trajectory"
    prompt = client.prompt
    assert "step 3: lark:calendar_v4_calendarEventAttendee_create" in prompt
    assert "<result of step 2, call 1: data.event.event_id>" in prompt  # $ref made readable
    assert "#2 (round 2) lark:calendar_v4_calendarEvent_create" in prompt
    assert "tool-call section (all calls together) 12000" in prompt


def test_likert_trajectory_judge_can_see_the_reference_execution_instead_of_the_plan() -> None:
    reference = make_trajectory("reference answer")
    reference.events.append(ToolCallEvent(round=1, server="lark", tool="calendar_v4_calendarEventAttendee_create",
                                          arguments={"path": {"event_id": "ev_1"}}, result='{"code": 0}'))
    prompt = LikertTrajectoryJudge(ScriptedJudge([])).messages(make_task(), make_trajectory(),
                                                               reference=reference)[1]["content"]
    assert "Reference execution" in prompt and "<result of" not in prompt  # concrete values, not the plan's refs
    assert 'step 2.2: lark:calendar_v4_calendarEventAttendee_create {"path": {"event_id": "ev_1"}}' in prompt
    assert 'result (ok): {"code": 0}' in prompt
    # results that would push steps out of the budget are left out, never the steps
    long = reference.model_copy(deep=True)
    for call in long.tool_calls:
        call.result = "x" * 5000
    tight = LikertTrajectoryJudge(ScriptedJudge([]), budgets=Budgets(reference=400, other_output=300))
    prompt = tight.messages(make_task(), make_trajectory(), reference=long)[1]["content"]
    assert "step 2.2: lark:calendar_v4_calendarEventAttendee_create" in prompt and "xxx" not in prompt


# -- the key-point judge and extractor ------------------------------------------------------------
def test_keypoint_judge_prompt_has_key_points_history_and_tool_descriptions() -> None:
    reply = ('{"key_points_met": [true, false], "reason": "The agent successfully created the event but never '
             'invited Zhao Min.", "status": "failure"}')
    client = ScriptedJudge([reply])
    verdict = run(KeyPointJudge(client).judge, make_task(), make_trajectory())
    assert verdict.ok and verdict.label == "failure" and verdict.score == 0.0
    prompt = client.prompt
    assert "1. Create the event 'Poster print review' tomorrow 15:00-16:00" in prompt
    assert "2. Invite Zhao Min" in prompt
    assert "lark:calendar_v4_calendarEvent_create" in prompt
    # descriptions looked up in the bundled lark app for the tools the trajectory used
    assert "- lark:contact_v3_user_batchGetId: " in prompt
    assert "tool descriptions 6000" in prompt


def test_keypoint_judge_success_with_given_key_points_and_descriptions() -> None:
    client = ScriptedJudge(['{"key_points_met": [true], "reason": "done", "status": "success"}'])
    verdict = run(KeyPointJudge(client).judge, make_task(key_points=[]), make_trajectory(),
                  key_points=["Create the event"], tool_descriptions={"lark:x": "DESCRIPTION-X"})
    assert verdict.label == "success" and verdict.score == 1.0
    assert "DESCRIPTION-X" in client.prompt


def test_keypoint_judge_a_success_with_an_unmet_point_is_retried_then_unparseable() -> None:
    bad = '{"key_points_met": [true, false], "reason": "close enough", "status": "success"}'
    client = ScriptedJudge([bad, bad])
    verdict = run(KeyPointJudge(client).judge, make_task(), make_trajectory())
    assert verdict.status == "unparseable" and verdict.score is None
    assert "not met" in client.seen[1][-1]["content"]


def test_keypoint_judge_needs_key_points() -> None:
    with pytest.raises(ValueError, match="no key points"):
        KeyPointJudge(ScriptedJudge([])).messages(make_task(key_points=[]), make_trajectory())


def test_keypoint_extractor_returns_the_list_and_retries_an_empty_one() -> None:
    client = ScriptedJudge(['{"key_points": []}', '```json\n{"key_points": ["Create the event", "Invite Zhao"]}\n```'])
    verdict = run(KeyPointExtractor(client).extract, make_task())
    assert verdict.ok and verdict.label == ["Create the event", "Invite Zhao"]
    assert len(verdict.attempts) == 2 and verdict.score is None
    assert make_task().instruction in client.prompt
    assert parse_verdict('{"key_points": [" a "]}', KeyPointList).key_points == ["a"]  # type: ignore[attr-defined]


def test_every_judge_states_when_the_request_was_made() -> None:
    when = "Tuesday, 2026-03-10 09:30 (Asia/Shanghai"
    task, traj = make_task(), make_trajectory()
    for msgs in (CheckpointJudge(ScriptedJudge([])).messages(task, traj, 0),
                 LikertResultJudge(ScriptedJudge([])).messages(task, traj),
                 LikertTrajectoryJudge(ScriptedJudge([])).messages(task, traj),
                 KeyPointJudge(ScriptedJudge([])).messages(task, traj, tool_descriptions={})):
        assert when in msgs[1]["content"]


class _PricedResponse:
    """A response as a pricing client returns it (read by duck typing: content, usage, cost_usd)."""

    def __init__(self, content: str, cost: float | None) -> None:
        self.content, self.usage, self.cost_usd = content, Usage(input_tokens=10, output_tokens=5), cost


class PricedJudge(ScriptedJudge):
    def __init__(self, replies: list[tuple[str, float | None]]) -> None:
        super().__init__([])
        self.priced = list(replies)

    async def complete(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> Any:
        self.seen.append(messages)
        return _PricedResponse(*self.priced.pop(0))


def test_verdict_cost_sums_the_priced_attempts_and_stays_none_when_unpriced() -> None:
    verdict = ask(PricedJudge([("bad", 0.002), ('{"reason": "r", "score": 0}', 0.003)]))
    assert verdict.ok and verdict.cost_usd == pytest.approx(0.005)
    assert [a.cost_usd for a in verdict.attempts] == [0.002, 0.003]
    assert ask(PricedJudge([('{"reason": "r", "score": 0}', None)])).cost_usd is None


def test_state_changes_are_shown_only_when_known() -> None:
    judge = CheckpointJudge(ScriptedJudge([]))
    unknown = judge.messages(make_task(), make_trajectory(), 1)[1]["content"]
    assert "State changes" not in unknown and "state changes 3000" not in unknown
    nothing = judge.messages(make_task(), make_trajectory(), 1, state_changes=[])[1]["content"]
    assert "## State changes in the apps at the end of the episode\n(nothing changed)" in nothing
    search = judge.messages(make_task(), make_trajectory(), 0, state_changes=["lark: x"])[1]["content"]
    assert "State changes" not in search  # only operations are judged on the end state


def test_deeply_nested_json_is_malformed_not_a_crash() -> None:
    with pytest.raises(VerdictParseError, match="nested too deeply"):
        extract_json_object('{"a": ' + "[" * 100_000 + "]" * 100_000 + "}")


def test_judge_spec_and_the_self_judge_refusal() -> None:
    from mcp_persona.judges import SelfJudgeError, check_self_judge, is_self_judge, judge_spec

    assert judge_spec("rules") is None and judge_spec(" RULES ") is None
    assert judge_spec("openai:gpt-4o-mini") == "openai:gpt-4o-mini"
    with pytest.raises(ValueError):
        judge_spec("  ")
    assert is_self_judge("openai:gpt-4o", "openai:gpt-4o")
    assert is_self_judge("openai:gpt-4o-2024-08-06", "openai:gpt-4o")  # a dated snapshot is the same model
    assert is_self_judge("openai:meta-llama/Llama-3.1-8B", "anthropic:llama-3.1-8b")  # same model, other endpoint
    assert is_self_judge("local", "local:SmolLM2-135M-Instruct")
    assert not is_self_judge("openai:gpt-4o", "openai:gpt-4o-mini")
    assert not is_self_judge(None, "openai:gpt-4o")  # the reference / noop agents have no model
    with pytest.raises(SelfJudgeError, match="--allow-self-judge"):
        check_self_judge("openai:gpt-4o", "openai:gpt-4o")
    check_self_judge("openai:gpt-4o", "openai:gpt-4o", allow=True)
    check_self_judge("openai:gpt-4o", "anthropic:claude-sonnet-4")
