"""LiveMCP-101's failure taxonomy: one constructed failing episode per mode, classified by the rules.

Output parsing errors need the answer read against the tool outputs, so only the judge (a scripted
test double here) assigns that mode; the rules leave such an episode undecided.
"""

from __future__ import annotations

import json
from typing import Any

import anyio
import pytest

from mcp_persona.environment import Environment
from mcp_persona.judges import FAILURE_MODES
from mcp_persona.llm.base import ChatResponse
from mcp_persona.protocols.persona.failures import (
    FailureJudge,
    classify_failure,
    classify_run,
    count_failure_modes,
    diagnose,
    is_failed,
)
from mcp_persona.protocols.persona.spec import PersonaTask
from mcp_persona.store import EpisodeRecord
from mcp_persona.trajectory import ModelCallEvent, ToolCallEvent, Trajectory, Usage

OPEN_ID = "ou_043b026c48bbf33feff9243a8f506b40"
BATCH, EVENT, ATTENDEE = "contact_v3_user_batchGetId", "calendar_v4_calendarEvent_create", \
    "calendar_v4_calendarEventAttendee_create"
FOUND = json.dumps({"code": 0, "data": {"user_list": [{"user_id": OPEN_ID}]}})
CREATED = json.dumps({"code": 0, "data": {"event": {"event_id": "ev_1", "summary": "Poster print review"}}})
# error texts as the lark app words them (see test_the_rules_read_the_real_apps_error_texts)
FIELD_ERROR = json.dumps({"code": 99992402, "msg": "field validation failed", "error": {"field_violations": [
    {"field": "data.start_time", "description": "Field required"}]}})
NOT_FOUND = json.dumps({"code": 193001, "msg": "event not found: ev_bogus"})

TASK = PersonaTask.model_validate({
    "id": "lark_f1", "suite": "test",
    "instruction": "Put 'Poster print review' on my primary calendar tomorrow 3-4 pm and invite Zhao Min.",
    "servers": [{"server": "lark", "context_id": "chen_yu"}],
    "clock": {"now": "2026-03-10T09:30:00", "timezone": "Asia/Shanghai"},
    "gold": [{"calls": [{"server": "lark", "tool": BATCH, "arguments": {}}]},
             {"calls": [{"server": "lark", "tool": EVENT, "arguments": {}}]},
             {"calls": [{"server": "lark", "tool": ATTENDEE, "arguments": {}}]}],
    "spec": {"category": "collaboration", "necessary_context": {"Zhao Min's phone number": "+86 13800138000"},
             "checkpoints": [
        {"summary": "Resolve Zhao Min's open_id", "type": "personalized_search", "gt_value": [OPEN_ID],
         "server": "lark"},
        {"summary": "Create the event", "type": "operate", "server": "lark", "tool": EVENT,
         "operate_type": "create", "entity": "event", "expect": {"summary": "Poster print review"}},
        {"summary": "Invite Zhao Min", "type": "operate", "server": "lark", "tool": ATTENDEE,
         "operate_type": "create", "entity": "attendee", "expect": {"user_id": OPEN_ID}},
    ]},
})


def call(tool: str, result: str, *, server: str | None = "lark", error: bool = False, rnd: int = 0,
         args: dict[str, Any] | None = None, raw: str | None = None) -> ToolCallEvent:
    return ToolCallEvent(round=rnd, server=server, tool=tool, arguments=args if raw is None else None,
                         raw_arguments=raw, result=result, is_error=error)


def traj(*calls: ToolCallEvent, answer: str = "Done.", stop: str = "answered") -> Trajectory:
    events: list[Any] = []
    for c in calls:
        events += [ModelCallEvent(round=c.round, latency_s=0.1), c]
    if stop == "answered":
        events.append(ModelCallEvent(round=len(calls), latency_s=0.1, content=answer))
    return Trajectory(task_id=TASK.id, agent="model", model="m", events=events,
                      final_answer=answer if stop == "answered" else "", stop_reason=stop)  # type: ignore[arg-type]


def score(search: float | None, event: float | None, attendee: float | None) -> dict[str, Any]:
    cps = [{"index": 0, "type": "personalized_search", "score": search, "reason": "search"},
           {"index": 1, "type": "operate", "score": event, "reason": "event check"},
           {"index": 2, "type": "operate", "score": attendee, "reason": "attendee check"}]
    vals = [c["score"] for c in cps if c["score"] is not None]
    return {"acc": sum(vals) / len(vals), "exec_acc": 0.0, "checkpoints": cps, "collateral": []}


FAILED = score(0.0, 0.0, 0.0)


# -- one episode per mode -------------------------------------------------------------------------
def test_overconfident_self_solving_no_tool_call_but_an_answer() -> None:
    result = classify_failure(TASK, traj(answer="I've scheduled it for 3pm and Zhao Min is invited."), FAILED)
    assert (result.mode, result.source) == ("overconfident_self_solving", "rules")
    assert "no tool call at all" in result.evidence
    assert "I've scheduled it" in result.evidence[1]


def test_unproductive_thinking_round_limit_with_repeated_identical_calls() -> None:
    same = [call(BATCH, FOUND, rnd=i, args={"data": {"mobiles": ["+8613800138000"]}}) for i in range(5)]
    result = classify_failure(TASK, traj(*same, stop="max_rounds"), score(0.5, 0.0, 0.0))
    assert result.mode == "unproductive_thinking"
    assert any(f"{BATCH} called 5 times with identical arguments" in e for e in result.evidence)


def test_unproductive_thinking_round_limit_without_a_single_call() -> None:
    t = Trajectory(task_id=TASK.id, agent="model", stop_reason="max_rounds",
                   events=[ModelCallEvent(round=i, latency_s=0.1, content="Let me plan...") for i in range(3)])
    result = classify_failure(TASK, t, FAILED)
    assert result.mode == "unproductive_thinking" and "3 model calls" in result.evidence[0]


def test_wrong_tool_selection_other_servers_and_the_gold_tools_never_tried() -> None:
    t = traj(call(BATCH, FOUND),
             call("API-post-page", json.dumps({"object": "page", "id": "p1"}), server="notion"),
             call("lark__calendar_create", "Error: there is no tool named 'lark__calendar_create'.", server=None,
                  error=True))
    result = classify_failure(TASK, t, score(1.0, 0.0, 0.0))
    assert result.mode == "wrong_tool_selection"
    assert any("notion:API-post-page: outside the task's tool chain (servers lark)" in e for e in result.evidence)
    assert any("a tool that does not exist" in e for e in result.evidence)
    assert f"gold tool lark:{EVENT} never called" in result.evidence


def test_syntactic_parameter_error_schema_violation_never_fixed() -> None:
    t = traj(call(BATCH, FOUND), call(EVENT, FIELD_ERROR, error=True, args={"data": {"summary": "Poster"}}),
             call(EVENT, FIELD_ERROR, error=True, rnd=2, args={"data": {"summary": "Poster print review"}}))
    result = classify_failure(TASK, t, score(1.0, 0.0, 0.0))
    assert result.mode == "syntactic_parameter_error"
    assert len(result.evidence) == 2 and "field validation failed" in result.evidence[0]


def test_syntactic_parameter_error_arguments_that_are_not_json() -> None:
    t = traj(call(BATCH, FOUND), call(EVENT, "Error: the arguments are not valid JSON (Expecting ',' delimiter).",
                                      error=True, raw='{"data": {"summary": "Poster"'))
    result = classify_failure(TASK, t, score(1.0, 0.0, 0.0))
    assert result.mode == "syntactic_parameter_error"
    assert "arguments were not valid JSON" in result.evidence[0]


def test_semantic_parameter_error_well_formed_call_on_an_unknown_id() -> None:
    t = traj(call(BATCH, FOUND), call(EVENT, CREATED),
             call(ATTENDEE, NOT_FOUND, error=True, args={"path": {"calendar_id": "primary", "event_id": "ev_bogus"},
                                                          "data": {"attendees": [{"user_id": OPEN_ID}]}}))
    result = classify_failure(TASK, t, score(1.0, 1.0, 0.0))
    assert result.mode == "semantic_parameter_error"
    assert "event not found: ev_bogus" in result.evidence[0] and "well-formed" in result.evidence[0]


def test_semantic_parameter_error_call_succeeded_with_the_wrong_content() -> None:
    t = traj(call(BATCH, FOUND), call(EVENT, CREATED), call(ATTENDEE, json.dumps({"code": 0})))
    result = classify_failure(TASK, t, score(1.0, 0.5, 1.0))
    assert result.mode == "semantic_parameter_error"
    assert "checkpoint 2 (Create the event) scored 0.5" in result.evidence[0]


def test_ignoring_requirement_operations_unmet_while_the_search_is_met() -> None:
    t = traj(call(BATCH, FOUND), answer=f"Zhao Min's open_id is {OPEN_ID}.")
    result = classify_failure(TASK, t, score(1.0, 0.0, 0.0))
    assert result.mode == "ignoring_requirement"
    assert f"checkpoint 2 (Create the event) unmet: {EVENT} never called" in result.evidence
    assert "every search checkpoint was met" in result.evidence


def test_output_parsing_error_is_left_undecided_by_the_rules_and_named_by_the_judge() -> None:
    t = traj(call(BATCH, FOUND), call(EVENT, CREATED), call(ATTENDEE, json.dumps({"code": 0})),
             answer="Invited Zhao Min (open_id ou_999).")
    only_search = score(0.5, 1.0, 1.0)
    rules = classify_failure(TASK, t, only_search)
    assert (rules.mode, rules.source) == (None, "undecided")

    judge_client = ScriptedJudge([json.dumps({"mode": "output_parsing_error",
                                              "evidence": f"call #1 returned {OPEN_ID}; the answer says ou_999"})])
    judged = anyio.run(lambda: diagnose(TASK, t, only_search, judge=FailureJudge(judge_client)))
    assert (judged.mode, judged.source) == ("output_parsing_error", "judge")
    assert "the answer says ou_999" in judged.evidence[0]
    assert judged.verdict is not None and judged.verdict.ok
    prompt = "\n".join(m["content"] for m in judge_client.seen[0])
    assert "output_parsing_error" in prompt and "score 0.5 (search)" in prompt and "ou_999" in prompt


# -- precedence, recovery and the judge's limits --------------------------------------------------
def test_an_error_fixed_by_a_later_successful_call_is_not_the_cause() -> None:
    t = traj(call(BATCH, FOUND), call(EVENT, FIELD_ERROR, error=True, args={}), call(EVENT, CREATED, rnd=2),
             answer="Created the event.")
    result = classify_failure(TASK, t, score(1.0, 1.0, 0.0))
    assert result.mode == "ignoring_requirement"  # the attendee step was never tried; the schema error was fixed


def test_an_extra_call_to_another_app_is_not_wrong_selection_when_the_chain_was_tried() -> None:
    t = traj(call("search", "[]", server="notion"), call(BATCH, FOUND), call(EVENT, CREATED),
             call(ATTENDEE, NOT_FOUND, error=True, args={"path": {"event_id": "ev_bogus"}}))
    assert classify_failure(TASK, t, score(1.0, 1.0, 0.0)).mode == "semantic_parameter_error"


def test_a_schema_error_comes_before_a_not_found_error() -> None:
    t = traj(call(BATCH, NOT_FOUND, error=True, args={"data": {"mobiles": ["x"]}}),
             call(EVENT, FIELD_ERROR, error=True, args={}))
    assert classify_failure(TASK, t, FAILED).mode == "syntactic_parameter_error"


def test_a_nonexistent_tool_is_not_a_parameter_error() -> None:
    t = traj(call("calendar_create", "Error: there is no tool named 'calendar_create'.", server=None, error=True))
    assert classify_failure(TASK, t, FAILED).mode == "wrong_tool_selection"


def test_an_unparseable_judge_verdict_leaves_the_episode_undecided() -> None:
    t = traj(call(BATCH, FOUND), answer="ou_999")
    client = ScriptedJudge(['The mode is "output_parsing_error".', '{"mode": "parsing", "evidence": "x"}'])
    result = anyio.run(lambda: diagnose(TASK, t, score(0.5, None, None), judge=FailureJudge(client)))
    assert (result.mode, result.source) == (None, "undecided")
    assert result.verdict is not None and result.verdict.status == "unparseable"
    assert count_failure_modes([result])["judge_unparseable"] == 1


def test_the_rules_read_the_real_apps_error_texts() -> None:
    async def real_errors() -> tuple[ToolCallEvent, ToolCallEvent]:
        async with Environment(TASK) as env:
            bad_shape = await env.call("lark", EVENT, {"path": {"calendar_id": "primary"}, "data": {"summary": 5}},
                                       round=0)
            bad_id = await env.call("lark", ATTENDEE, {"path": {"calendar_id": "primary", "event_id": "ev_bogus"},
                                                       "data": {"attendees": [{"type": "user", "user_id": OPEN_ID}]}},
                                    round=1)
            return bad_shape, bad_id

    bad_shape, bad_id = anyio.run(real_errors)
    assert bad_shape.is_error and bad_id.is_error
    assert classify_failure(TASK, traj(call(BATCH, FOUND), bad_shape), FAILED).mode == "syntactic_parameter_error"
    assert classify_failure(TASK, traj(call(BATCH, FOUND), call(EVENT, CREATED), bad_id),
                            score(1.0, 1.0, 0.0)).mode == "semantic_parameter_error"


# -- over a run -----------------------------------------------------------------------------------
def record(task_id: str, epoch: int, t: Trajectory, s: dict[str, Any] | None, status: str = "ok") -> EpisodeRecord:
    return EpisodeRecord(task_id=task_id, epoch=epoch, category="collaboration", status=status,  # type: ignore[arg-type]
                         trajectory=t, score=s)


def test_is_failed() -> None:
    assert is_failed(score(1.0, 1.0, 0.5)) and not is_failed(score(1.0, 1.0, 1.0))
    assert not is_failed(None)
    assert not is_failed(score(1.0, 1.0, 0.5), threshold=0.8)


def test_classify_run_counts_every_mode_passed_and_errored() -> None:
    records = [
        record(TASK.id, 0, traj(answer="It's done."), FAILED),
        record(TASK.id, 1, traj(call(BATCH, FOUND), answer=OPEN_ID), score(1.0, 0.0, 0.0)),
        record(TASK.id, 2, traj(call(BATCH, FOUND), call(EVENT, FIELD_ERROR, error=True, args={})), FAILED),
        record(TASK.id, 3, traj(call(BATCH, FOUND), call(EVENT, CREATED), call(ATTENDEE, "{}")), score(1, 1, 1)),
        record(TASK.id, 4, traj(), None, status="error"),
        record(TASK.id, 5, traj(call(BATCH, FOUND), answer="ou_999"), score(0.5, None, None)),
    ]
    run = anyio.run(lambda: classify_run(records, {TASK.id: TASK}))
    counts = run.counts()
    assert set(FAILURE_MODES) <= set(counts)
    assert counts["overconfident_self_solving"] == 1 and counts["ignoring_requirement"] == 1
    assert counts["syntactic_parameter_error"] == 1 and counts["undecided"] == 1
    assert counts["wrong_tool_selection"] == counts["output_parsing_error"] == 0
    assert (counts["failed"], counts["passed"], counts["errored"], counts["by_rules"]) == (4, 1, 1, 3)
    assert list(run.episodes) == [f"{TASK.id}#{e}" for e in (0, 1, 2, 5)]
    stored = json.loads(json.dumps(run.to_dict()))
    assert stored["episodes"][f"{TASK.id}#2"]["mode"] == "syntactic_parameter_error"


class ScriptedJudge:
    """A judge model test double: replies from a list, records what it was sent."""

    name = "scripted:judge"

    def __init__(self, replies: list[str]) -> None:
        self.replies = list(replies)
        self.seen: list[list[dict[str, Any]]] = []

    async def complete(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> ChatResponse:
        self.seen.append([dict(m) for m in messages])
        return ChatResponse(content=self.replies.pop(0), usage=Usage(input_tokens=100, output_tokens=20))


@pytest.mark.parametrize("mode", FAILURE_MODES)
def test_the_judge_prompt_defines_every_mode(mode: str) -> None:
    prompt = FailureJudge(ScriptedJudge([])).messages(TASK, traj(), FAILED)[0]["content"]
    assert f"- {mode}:" in prompt


# -- MCP-Persona's failure archetypes (its section 4.6) ------------------------------------------------------
def test_failure_archetypes_of_the_persona_paper() -> None:
    from mcp_persona.protocols import load_tasks
    from mcp_persona.protocols.persona import LONG_CONTEXT_CHARS, archetypes_of
    from mcp_persona.store import EpisodeRecord
    from mcp_persona.trajectory import ToolCallEvent, Trajectory

    task = next(t for t in load_tasks("persona") if t.id == "collab_lark_002")
    gold = [c for step in task.gold for c in step.calls]
    reads, writes = gold[:2], gold[2:]

    def record(calls: list[tuple[str, str]], result: str = "{}") -> EpisodeRecord:
        events = [ToolCallEvent(round=i, server=s, tool=t, result=result) for i, (s, t) in enumerate(calls)]
        return EpisodeRecord(task_id=task.id, epoch=0, category=task.spec.category, status="ok",
                             trajectory=Trajectory(task_id=task.id, agent="x", events=events))

    every = [(c.server, c.tool) for c in gold]
    assert archetypes_of(task, record(every)) == ["unclassified"]  # failed for another reason (its arguments)
    assert archetypes_of(task, record([(c.server, c.tool) for c in writes])) == ["skipped_dependent_step"]
    assert archetypes_of(task, record([])) == ["under_exploration"]  # never looked at Lark
    assert archetypes_of(task, record([*every, ("wecom", "send_text")])) == ["under_exploration"]
    assert archetypes_of(task, record(every, "x" * (LONG_CONTEXT_CHARS // len(every) + 1))) == ["over_long_context"]
    assert reads and all(c.server == "lark" for c in gold)


def test_a_persona_summary_counts_the_archetypes_of_failed_episodes() -> None:
    import anyio

    from mcp_persona.agents import NoopAgent, ReferenceAgent
    from mcp_persona.protocols import get_protocol, load_tasks
    from mcp_persona.runner import RunConfig, run_episode

    tasks = load_tasks("persona")[:3]
    protocol = get_protocol("persona")
    records = [anyio.run(run_episode, t, NoopAgent()) for t in tasks[:2]] + [anyio.run(run_episode, tasks[2],
                                                                                        ReferenceAgent())]
    summary = protocol.summarize(RunConfig(suite="persona", agent="x", model=None), tasks, records)
    assert summary["failure_archetypes"]["under_exploration"] == 2  # the two that did nothing
    assert sum(summary["failure_archetypes"].values()) == 2  # the reference passed
