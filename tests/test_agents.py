"""The agent loop's harness logic, driven by a scripted model (a test double, never a user-facing model)."""

from __future__ import annotations

import json
from typing import Any

import anyio
import pytest

from mcp_persona.agents import ModelAgent, NoopAgent, ReferenceAgent
from mcp_persona.agents.reference import GoldReplayError, resolve_refs
from mcp_persona.agents.tool_schema import compact_schema
from mcp_persona.environment import Environment
from mcp_persona.llm.base import ChatResponse, ModelError
from mcp_persona.llm.local import parse_tool_calls, render_messages
from mcp_persona.protocols import get_protocol, load_tasks
from mcp_persona.protocols.persona.prompts import system_prompt, user_prompt
from mcp_persona.runner import run_episode
from mcp_persona.trajectory import RequestedCall, ToolCallEvent, Usage

ZHAO = "ou_043b026c48bbf33feff9243a8f506b40"


class ScriptedClient:
    """Replies from a list; records what it was sent."""

    name = "scripted"

    def __init__(self, replies: list[ChatResponse | Exception]) -> None:
        self.replies = list(replies)
        self.seen: list[list[dict[str, Any]]] = []
        self.tools: list[dict[str, Any]] = []

    async def complete(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> ChatResponse:
        self.seen.append([dict(m) for m in messages])
        self.tools = tools
        reply = self.replies.pop(0) if self.replies else ChatResponse(content="(out of script)")
        if isinstance(reply, Exception):
            raise reply
        return reply


def calls(*specs: tuple[str, Any]) -> ChatResponse:
    return ChatResponse(
        tool_calls=[RequestedCall(id=f"c{i}", name=n, arguments=a if isinstance(a, str) else json.dumps(a))
                    for i, (n, a) in enumerate(specs)],
        usage=Usage(input_tokens=100, output_tokens=10),
    )


def task(task_id: str = "lark_001"):
    return next(t for t in load_tasks("persona") if t.id == task_id)


def run(client: ScriptedClient, max_rounds: int = 20, task_id: str = "lark_001"):
    return anyio.run(lambda: run_episode(task(task_id), ModelAgent(client, max_rounds=max_rounds)))


def test_a_scripted_perfect_run_scores_like_the_reference() -> None:
    client = ScriptedClient([
        calls(("lark__contact_v3_user_batchGetId", {"data": {"mobiles": ["+86 13800138000"]}})),
        calls(("lark__calendar_v4_calendarEvent_create", {
            "path": {"calendar_id": "primary"},
            "data": {"summary": "Poster print review", "start_time": {"timestamp": "1773212400"},
                     "end_time": {"timestamp": "1773216000"}}})),
        ChatResponse(content="Created; now inviting."),
    ])
    record = run(client)
    assert record.score is not None
    assert record.score.detail["checkpoints"][1]["score"] == 1.0  # event created
    assert record.score.detail["checkpoints"][2]["score"] == 0.0  # Zhao never invited
    assert record.score.detail["exec_acc"] == 0.5
    assert record.trajectory.stop_reason == "answered"
    assert record.trajectory.final_answer == "Created; now inviting."
    assert record.trajectory.usage == Usage(input_tokens=200, output_tokens=20)
    # the tool result was fed back to the model as a tool message with the call id
    tool_msgs = [m for m in client.seen[1] if m["role"] == "tool"]
    assert tool_msgs[0]["tool_call_id"] == "c0" and ZHAO in tool_msgs[0]["content"]


def test_max_rounds_stops_the_loop() -> None:
    client = ScriptedClient([calls(("lark__calendar_v4_calendar_list", {}))] * 10)
    record = run(client, max_rounds=3)
    assert record.trajectory.stop_reason == "max_rounds"
    assert len(record.trajectory.model_calls) == 3 and len(record.trajectory.tool_calls) == 3
    assert record.trajectory.final_answer == ""


def test_unparseable_arguments_are_not_executed_and_not_guessed() -> None:
    client = ScriptedClient([calls(("lark__calendar_v4_calendar_list", "{not json")), ChatResponse(content="ok")])
    record = run(client)
    event = record.trajectory.tool_calls[0]
    assert event.is_error and event.arguments is None and event.raw_arguments == "{not json"
    assert "not valid JSON" in event.result


def test_unknown_tool_and_non_object_arguments_are_errors() -> None:
    client = ScriptedClient([calls(("slack__send", {}), ("lark__calendar_v4_calendar_list", "[1, 2]")),
                             ChatResponse(content="done")])
    record = run(client)
    unknown, listy = record.trajectory.tool_calls
    assert unknown.is_error and unknown.server is None and "no tool named" in unknown.result
    assert listy.is_error and "JSON object" in listy.result


def test_parallel_calls_share_a_round() -> None:
    client = ScriptedClient([
        calls(("lark__calendar_v4_calendar_list", {}), ("lark__im_v1_chat_list", {})),
        ChatResponse(content="done"),
    ])
    record = run(client)
    assert [e.round for e in record.trajectory.tool_calls] == [0, 0]
    assert record.trajectory.rounds == 2


def test_model_failure_ends_the_episode_as_an_error() -> None:
    client = ScriptedClient([calls(("lark__calendar_v4_calendar_list", {})), ModelError("HTTP 503")])
    record = run(client)
    assert record.status == "error" and "HTTP 503" in (record.error or "")
    assert record.score is None


def test_the_prompt_states_the_task_clock_and_never_the_answer_shape() -> None:
    t = task("lark_006")
    system, user = system_prompt(t), user_prompt(t)
    assert "Tuesday, 2026-03-10 09:30 (Asia/Shanghai" in system
    assert "sun.lei@orbitlab.cn" in user  # necessary context is given
    for leak in ("calendar_v4", "exactly", str(len(t.gold_calls)) + " tool"):
        assert leak not in system + user
    assert user_prompt(t) == user  # seeded shuffle: the same order every time


def test_compact_schema_inlines_refs_and_drops_noise() -> None:
    schema = {
        "$defs": {"P": {"title": "P", "type": "object", "properties": {"id": {"title": "Id", "type": "string"}}}},
        "properties": {"path": {"$ref": "#/$defs/P"},
                       "opt": {"anyOf": [{"type": "integer"}, {"type": "null"}], "default": None, "title": "Opt"}},
        "required": ["path"], "title": "Args", "type": "object",
    }
    assert compact_schema(schema) == {
        "properties": {"path": {"type": "object", "properties": {"id": {"type": "string"}}},
                       "opt": {"type": "integer"}},
        "required": ["path"], "type": "object",
    }


def test_local_tool_call_parsing_is_strict() -> None:
    text = 'Let me check.<tool_call>{"name": "lark__im_v1_chat_list", "arguments": {"params": {}}}</tool_call>'
    content, parsed = parse_tool_calls(text)
    assert content == "Let me check."
    assert [(c.name, json.loads(c.arguments)) for c in parsed] == [("lark__im_v1_chat_list", {"params": {}})]
    content, parsed = parse_tool_calls('<tool_call>{"name": lark}</tool_call>')
    assert parsed[0].name == "" and parsed[0].arguments == '{"name": lark}'
    content, parsed = parse_tool_calls("Your meeting is at 4 pm.")
    assert parsed == [] and content == "Your meeting is at 4 pm."


def test_local_rendering_carries_tools_calls_and_results() -> None:
    tools = [{"type": "function", "function": {"name": "lark__x", "description": "Does x.",
                                               "parameters": {"type": "object"}}}]
    msgs = [{"role": "system", "content": "Be helpful."}, {"role": "user", "content": "Hi"},
            {"role": "assistant", "content": None, "tool_calls": [
                {"id": "c0", "type": "function", "function": {"name": "lark__x", "arguments": '{"a": 1}'}}]},
            {"role": "tool", "tool_call_id": "c0", "name": "lark__x", "content": "RESULT"}]
    out = render_messages(msgs, tools)
    assert "lark__x: Does x." in out[0]["content"] and "<tool_call>" in out[0]["content"]
    call = '<tool_call>{"name": "lark__x", "arguments": {"a": 1}}</tool_call>'
    assert out[2] == {"role": "assistant", "content": call}
    assert out[3] == {"role": "user", "content": "<tool_response>\nRESULT\n</tool_response>"}


def test_local_tool_listing_is_full_when_it_fits_and_compact_when_not() -> None:
    schema = {"type": "object", "required": ["params", "data"], "$defs": {"Kind": {"enum": ["a", "b"]}},
              "properties": {
                  "params": {"type": "object", "properties": {"kind": {"$ref": "#/$defs/Kind"}}},
                  "data": {"type": "object", "required": ["text"],
                           "properties": {"text": {"type": "string"}, "tags": {"type": "array", "items": {
                               "type": "object", "properties": {"x": {"type": "integer"}}}}}},
                  "limit": {"anyOf": [{"type": "integer"}, {"type": "null"}]}}}
    tools = [{"type": "function", "function": {"name": "lark__x", "description": "Sends x. Then more words.",
                                               "parameters": schema}}]
    msgs = [{"role": "system", "content": "Be helpful."}, {"role": "user", "content": "Hi"}]
    full = render_messages(msgs, tools)[0]["content"]
    assert '"$defs"' in full and "Then more words." in full
    assert render_messages(msgs, tools, tool_budget=10_000, count_tokens=len)[0]["content"] == full  # it fits
    compact = render_messages(msgs, tools, tool_budget=600, count_tokens=len)[0]["content"]
    assert len(full) > 600 + len("Be helpful.")
    assert ('- lark__x(params: {kind?: "a"|"b"}, data: {text: string, tags?: array of object}, limit?: integer): '
            "Sends x.\n") in compact
    assert "Then more words" not in compact and "<tool_call>" in compact
    names = render_messages(msgs, tools, tool_budget=100, count_tokens=len)[0]["content"]
    assert "- lark__x(params, data, limit?)\n" in names and "Sends x" not in names and "<tool_call>" in names
    assert render_messages(msgs, tools, tool_budget=1, count_tokens=len)[0]["content"] == names  # nothing fits


def test_reference_refs_resolve_and_fail_loudly() -> None:
    ok = ToolCallEvent(round=0, tool="t", result=json.dumps({"data": {"items": [{"id": "X"}]}}))
    bad = ToolCallEvent(round=0, tool="t", result="boom", is_error=True)
    assert resolve_refs({"a": [{"$ref": "0.0:data.items.0.id"}]}, {(0, 0): ok}) == {"a": ["X"]}
    with pytest.raises(GoldReplayError, match="failed"):
        resolve_refs({"$ref": "0.0:data"}, {(0, 0): bad})
    with pytest.raises(GoldReplayError, match="not run yet"):
        resolve_refs({"$ref": "1.0:data"}, {(0, 0): ok})
    with pytest.raises(GoldReplayError, match="no 'nope'"):
        resolve_refs({"$ref": "0.0:data.nope"}, {(0, 0): ok})


def test_environment_pools() -> None:
    async def pools() -> tuple[set[str], set[str]]:
        persona = get_protocol("persona")
        t = task("lark_001")
        async with Environment(t, tools="selected") as sel, \
                Environment(t, tools="all", pool=persona.pool(t, {}, "all")) as everything:
            return {t.server for t in sel.pool}, {t.server for t in everything.pool}

    selected, everything = anyio.run(pools)
    assert selected == {"lark"}
    assert everything >= {"lark", "obsidian"}


def test_reference_agent_replays_parallel_steps() -> None:
    record = anyio.run(lambda: run_episode(task("lark_006"), ReferenceAgent()))
    assert [e.round for e in record.trajectory.tool_calls] == [0, 0, 1, 2]
    assert record.score is not None and record.score.detail["acc"] == 1.0


def test_context_distractors_are_seeded_and_appended() -> None:
    from mcp_persona.protocols import get_protocol
    from mcp_persona.protocols.persona.distractors import POOL_SIZE, build_pool, distractors_for, load_pool

    pool = load_pool()
    assert len(pool) == POOL_SIZE >= 2000
    assert all(40 <= len(p.split()) <= 100 for p in pool) and len(set(pool)) == len(pool)
    assert list(pool) == build_pool()  # the shipped pool is exactly what the generator makes
    t = task("lark_001")
    with_distractors = get_protocol("persona").with_context_distractors
    more = with_distractors(t, 5)
    assert more.spec.unnecessary_context[: len(t.spec.unnecessary_context)] == t.spec.unnecessary_context
    assert more.spec.unnecessary_context[len(t.spec.unnecessary_context):] == distractors_for("lark_001", 5)
    assert distractors_for("lark_001", 5) == distractors_for("lark_001", 5) != distractors_for("lark_002", 5)
    assert with_distractors(t, 0) is t
    with pytest.raises(ValueError):
        distractors_for("x", -1)
    # a protocol whose prompts carry no user context refuses them rather than changing nothing
    with pytest.raises(ValueError, match="--context-distractors"):
        get_protocol("mcpagentbench").with_context_distractors(t, 5)
    assert get_protocol("livemcp101").with_context_distractors(t, 0) is t


def test_skills_reach_the_system_prompt(tmp_path) -> None:
    from mcp_persona.agents.skills import Skills, SkillsError

    doc = tmp_path / "lark.md"
    doc.write_text("Resolve phone numbers with contact_v3_user_batchGetId first.")
    client = ScriptedClient([ChatResponse(content="ok")])
    anyio.run(lambda: run_episode(task("lark_001"), ModelAgent(client), skills=Skills(str(doc))))
    assert "Resolve phone numbers" in client.seen[0][0]["content"]
    client = ScriptedClient([ChatResponse(content="ok")])
    anyio.run(lambda: run_episode(task("lark_001"), ModelAgent(client)))
    assert "# Skills" not in client.seen[0][0]["content"]
    with pytest.raises(SkillsError):
        Skills("/no/such/file.md")


def test_judge_replaces_checkpoint_scores_and_unparseable_verdicts_never_pass(tmp_path) -> None:
    from mcp_persona.report.summary import build_summary
    from mcp_persona.runner import Judging, RunConfig, run_suite
    from mcp_persona.store import RunStore

    t = task("lark_002")  # one personalized_search checkpoint; the noop agent fails it by rules
    judge = ScriptedClient([ChatResponse(content='{"score": 1, "reason": "the answer names the meeting"}')])
    store = RunStore(tmp_path)
    anyio.run(lambda: run_suite([t], NoopAgent(), store, judging=Judging.with_client(judge, "replace")))
    record = store.records()[0]
    assert record.score is not None and record.score.detail["acc"] == 1.0  # the judge's verdict replaced the rule 0
    cp = record.score.detail["checkpoints"][0]
    assert cp["rule_score"] == 0.0 and cp["judge_score"] == 1.0 and cp["source"] == "judge"
    assert record.verdicts[0]["status"] == "ok"
    assert "the answer names the meeting" in record.verdicts[0]["attempts"][0]["raw"]

    garbled = ScriptedClient([ChatResponse(content="The agent successfully found it. Score: 1"),
                              ChatResponse(content="success!")])
    store2 = RunStore(tmp_path / "b")
    anyio.run(lambda: run_suite([t], NoopAgent(), store2, judging=Judging.with_client(garbled, "replace")))
    record = store2.records()[0]
    assert record.score is not None and record.score.detail["acc"] == 0.0  # never guessed into a pass
    assert record.verdicts[0]["status"] == "unparseable" and len(record.verdicts[0]["attempts"]) == 2
    summary = build_summary(RunConfig(suite="s", agent="noop", model=None, judge="scripted", judge_policy="replace"),
                            [t], store2.records())
    assert summary["judge"]["n_unparseable"] == 1 and summary["judge"]["n_ok"] == 0
    assert summary["failure_modes"]["failed"] == 1


def test_a_model_may_not_judge_itself_unless_allowed() -> None:
    from typer.testing import CliRunner

    from mcp_persona.cli import app

    result = CliRunner(env={"COLUMNS": "250"}).invoke(
        app, ["run", "--agent", "model", "--model", "local", "--judge", "local", "--limit", "1"])
    assert result.exit_code == 2 and "allow-self-judge" in result.output
