"""LiveMCPBench on the platform: route retrieval, the copilot agent, the protocol's scores and summary."""

from __future__ import annotations

import json
import statistics
import time
from collections.abc import Iterator
from functools import partial
from pathlib import Path
from typing import Any

import anyio
import pytest
from pydantic import ValidationError
from typer.testing import CliRunner

from mcp_persona.agents import CopilotAgent, NoopAgent, ReferenceAgent
from mcp_persona.cli import app
from mcp_persona.environment import Environment
from mcp_persona.livemcptool.real import NODE_PREFIX_ENV, SERVERS_DIR_ENV
from mcp_persona.mutants import PASTE_SENTENCES, ReplayAgent, gold_plan
from mcp_persona.protocols import get_protocol, load_tasks
from mcp_persona.protocols.livemcpbench.environment import LibraryEnvironment
from mcp_persona.protocols.livemcpbench.scoring import check_file, check_state
from mcp_persona.protocols.livemcpbench.spec import FileCheck, LiveMCPBenchTask
from mcp_persona.retrieval import get_router, tokenize
from mcp_persona.runner import Judging, RunConfig, run_episode
from mcp_persona.tasks import GoldCall, SearchCheckpoint, Task
from mcp_persona.trajectory import ToolCallEvent, Trajectory
from test_llm_faults import FaultServer, completion, tool_call

PROTOCOL = get_protocol("livemcpbench")
STAY = "shopping_cheaper_stay_1"  # two Airbnb searches, simulated servers only: fast


def task(task_id: str):
    return next(t for t in load_tasks("livemcpbench") if t.id == task_id)


@pytest.fixture
def endpoint() -> Iterator[FaultServer]:
    server = FaultServer()
    server.thread.start()
    try:
        yield server
    finally:
        server.close()


# -- retrieval ---------------------------------------------------------------------------------------
def test_route_finds_the_tool_a_need_names() -> None:
    router = get_router("livemcptool")
    hits = router.route("current share price of AAPL", top=3)
    assert (hits[0].server, hits[0].tool) == ("yahoo-finance", "get_current_stock_price")
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)
    assert router.route("write a paragraph into a Word docx report")[0].server == "word-document-server"
    assert len(router.route("stock price", top=7)) == 7
    assert router.route("zzzz qqqq") == []  # nothing shared with the library: no made-up match


def test_route_keeps_only_the_top_servers_and_splits_a_tagged_query() -> None:
    router = get_router("livemcptool")
    hits = router.route("price", top=50, top_servers=2)
    assert len({h.server for h in hits}) <= 2
    # the paper's two-part query: the server half picks the server even when the tool half is generic
    tagged = router.route("server: airbnb vacation rentals tool: search")
    assert {h.server for h in tagged} == {"airbnb"}


def test_tokenize_splits_code_names() -> None:
    assert tokenize("getStockPrices") == ["stock", "price"]
    assert tokenize("excel_read_sheet") == ["excel", "read", "sheet"]


def test_route_is_fast_over_the_whole_library() -> None:
    router = get_router("livemcptool")
    queries = [kp for t in load_tasks("livemcpbench") for kp in t.spec.key_points]
    times = []
    for q in queries:
        start = time.perf_counter()
        router.route(q)
        times.append(time.perf_counter() - start)
    assert statistics.median(times) < 0.005


def test_route_cli_prints_ranked_json() -> None:
    result = CliRunner().invoke(app, ["route", "train tickets between two stations", "--library", "livemcptool",
                                      "--top", "3", "--json"])
    assert result.exit_code == 0, result.output
    hits = json.loads(result.output)
    assert len(hits) == 3 and all(set(h) == {"server", "tool", "score"} for h in hits)
    assert hits[0]["server"] == "12306-mcp"
    bad = CliRunner().invoke(app, ["route", "x", "--library", "nope"])
    assert bad.exit_code == 2


def test_the_copilot_needs_a_suite_with_a_library() -> None:
    result = CliRunner().invoke(app, ["run", "--suite", "persona", "--agent", "copilot", "--model", "openai:x",
                                      "--limit", "1"])
    assert result.exit_code == 2 and "tool library" in result.output


# -- the suite -------------------------------------------------------------------------------------
def test_suite_has_six_domains_and_office_files() -> None:
    tasks = load_tasks("livemcpbench")
    by_domain: dict[str, int] = {}
    for t in tasks:
        by_domain[t.spec.category] = by_domain.get(t.spec.category, 0) + 1
    assert set(by_domain) == {"office", "lifestyle", "leisure", "finance", "travel", "shopping"}
    assert len(tasks) >= 95 and by_domain["office"] >= 31 and by_domain["lifestyle"] >= 15
    assert all(t.spec.key_points and len(t.gold_calls) >= 2 for t in tasks)
    suffixes = {Path(f).suffix for t in tasks for f in t.spec.input_files}
    assert {".xlsx", ".docx", ".csv"} <= suffixes
    outputs = {Path(c.path).suffix for t in tasks for c in t.spec.file_checks}
    assert {".xlsx", ".docx", ".pptx", ".csv", ".txt"} <= outputs


# -- episodes -------------------------------------------------------------------------------------
def test_reference_passes_and_noop_fails_with_efficiency_counts() -> None:
    t = task(STAY)
    ref = anyio.run(lambda: run_episode(t, ReferenceAgent(), protocol=PROTOCOL))
    noop = anyio.run(lambda: run_episode(t, NoopAgent(), protocol=PROTOCOL))
    assert ref.score is not None and ref.score.detail["success"] is True
    assert ref.score.values["execute_calls"] == 2 and ref.score.values["steps"] == 1
    assert ref.score.values["route_calls"] == 0
    assert noop.score is not None and noop.score.detail["success"] is False and noop.score.detail["acc"] == 0.0


def test_office_output_files_are_read_from_the_working_folder(tmp_path: Path) -> None:
    t = task("office_csv_filter_1")
    ref = anyio.run(lambda: run_episode(t, ReferenceAgent(), protocol=PROTOCOL))
    assert ref.score is not None and ref.score.detail["success"], ref.score
    check = t.spec.file_checks[0]
    kept = ", ".join(check.contains)
    # a sloppy copy that keeps every row fails the same check the gold file passes
    (tmp_path / check.path).write_text("item,price\n" + "\n".join(f"{x},1" for x in check.contains + check.absent))
    ok, why = check_file(check, tmp_path)
    assert not ok and "should not hold" in why, kept
    (tmp_path / "broken.xlsx").write_text("not a workbook")
    ok, why = check_file(FileCheck(path="broken.xlsx", summary="s", contains=["x"]), tmp_path)
    assert not ok and "not a readable" in why


def test_a_note_missing_a_value_fails_the_state_check() -> None:
    t = task("lifestyle_dinner_note_1")
    ref = anyio.run(lambda: run_episode(t, ReferenceAgent(), protocol=PROTOCOL))
    assert ref.score is not None and ref.score.detail["success"]
    assert [c["kind"] for c in ref.score.detail["checks"]] == ["answer", "state"]
    check = t.spec.state_checks[0]
    note = {"created_by": "write_note", "fields": {"title": check.contains[0], "content": check.contains[1]}}
    ok, why = check_state(check, {"basic-memory": [note]})
    assert not ok and "holds all" in why
    ok, _ = check_state(check, {"basic-memory": [note | {"created_by": "edit_note"}]})
    assert not ok


# -- honest scoring: values from working tools, no dumps ----------------------------------------------
# simulated lookups then a calculator; a search then a lookup by the id found; a real server's file read
GROUNDED = ("finance_stock_gap_1", "leisure_ygo_card_1", "office_sum_1")


class PasteEverything(ReferenceAgent):
    """Plays the gold chain and more lookups of the same kind, then answers with every output pasted."""

    name = "paste-everything"

    def __init__(self, extra: list[GoldCall]) -> None:
        super().__init__()
        self.extra = extra

    async def run(self, task: Task, env: Environment, trajectory: Trajectory) -> None:
        await super().run(task, env, trajectory)
        for i, c in enumerate(self.extra):
            trajectory.events.append(await env.call(c.server, c.tool, c.arguments, round=99, call_id=f"more_{i}"))
        trajectory.final_answer = "\n".join(c.result for c in trajectory.tool_calls)


async def broken_call(self: LibraryEnvironment, server: str, tool: str, arguments: dict[str, Any], *, round: int,
                      call_id: str = "") -> ToolCallEvent:
    return ToolCallEvent(round=round, call_id=call_id, server=server, tool=tool, arguments=arguments,
                         result="Error: the server stopped responding.", is_error=True)


def play(t: Task, agent: Any) -> dict[str, Any]:
    record = anyio.run(lambda: run_episode(t, agent, protocol=PROTOCOL))
    assert record.score is not None, record.error
    return record.score.detail


def gt_values(t: Task) -> set[str]:
    return {v for cp in t.spec.checkpoints if isinstance(cp, SearchCheckpoint) for v in cp.gt_value}


@pytest.mark.parametrize("task_id", GROUNDED)
def test_only_values_from_working_tools_count(task_id: str, monkeypatch: pytest.MonkeyPatch) -> None:
    t = task(task_id)
    gold = play(t, ReferenceAgent())  # does it right
    answer_only = play(t, ReplayAgent(()))  # the reference answer, no tool call
    with monkeypatch.context() as m:
        m.setattr(LibraryEnvironment, "call", broken_call)
        failed = play(t, ReplayAgent(gold_plan(t)))  # the right calls, every one failing
    assert (gold["success"], answer_only["success"], failed["success"]) == (True, False, False)
    assert gold["ungrounded"] == [] and gold["answer_dump"] is False
    assert failed["execute_calls"] > 0 and len(failed["checks"]) == len(gold["checks"])
    for score in (answer_only, failed):
        assert score["acc"] == 0.0
        assert set(score["ungrounded"]) == gt_values(t)  # every value stated, none obtained
        for c in score["checks"]:
            assert "not found in any tool output" in c["why"] or "no tool output nor the instruction" in c["why"]


@pytest.mark.parametrize(("task_id", "more"), [
    ("finance_stock_gap_1", [GoldCall(server="yahoo-finance", tool="get_current_stock_price", arguments={"symbol": s})
                             for s in ("NVDA", "TSLA", "MSFT", "AMZN", "GOOGL", "BABA", "JPM", "KO")]),
    ("leisure_ygo_card_1", [GoldCall(server="ygocdb", tool="search_cards", arguments={"query": q})
                            for q in ("Pot of Greed", "White Dragon", "Black Dragon", "Ash Blossom")]),
])
def test_an_answer_that_pastes_every_output_fails(task_id: str, more: list[GoldCall]) -> None:
    t = task(task_id)
    score = play(t, PasteEverything(more))
    assert score["success"] is False
    assert all(c["passed"] for c in score["checks"])  # every value is there, and grounded
    assert score["answer_dump"] is True


# per domain, the task whose outputs pasted with a sentence around them are the least copied share of the
# answer (short outputs: a memo, two forecasts, two prices); every pasted answer here is under 1500 characters
PASTED = ("finance_stock_gap_4", "leisure_wuwa_pair_1", "lifestyle_weather_note_1", "office_docx_read_1",
          "shopping_cheaper_stay_1", "travel_airbnb_stay_6")


@pytest.mark.parametrize("task_id", PASTED)
def test_outputs_pasted_as_the_answer_fail_however_short(task_id: str) -> None:
    t = task(task_id)
    gold = play(t, ReferenceAgent())
    assert gold["success"] is True and gold["answer_dump"] is False and gold["dump_why"] is None
    for around in (("", ""), PASTE_SENTENCES):  # the outputs verbatim; with a sentence before and after
        paster = ReplayAgent(gold_plan(t), paste_outputs=True, around=around)
        record = anyio.run(partial(run_episode, t, paster, protocol=PROTOCOL))
        score = record.score.detail
        assert score is not None and len(record.trajectory.final_answer) < 1500  # under the length rule
        # every value is there, and grounded (a comparison's claim aside: pasted outputs claim nothing; nor do they
        # say what a figure is, a month's or a night's, where a check asks it said beside the figure)
        said = {cp.summary for cp in t.spec.checkpoints if getattr(cp, "claim", None) or getattr(cp, "beside", None)}
        assert all(c["passed"] for c in score["checks"] if c["summary"] not in said)
        assert score["success"] is False and score["answer_dump"] is True
        assert score["dump_why"].startswith(("answer is ", "answer repeats ")), score["dump_why"]
        assert "% pasted tool output" in score["dump_why"] or "% of what the tools returned" in score["dump_why"]


def test_without_its_real_servers_the_reference_fails(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv(NODE_PREFIX_ENV, str(tmp_path))
    monkeypatch.setenv(SERVERS_DIR_ENV, str(tmp_path))
    office = play(task("office_sum_1"), ReferenceAgent())  # excel (and the calculator) missing: nothing read
    assert office["success"] is False
    assert "no tool output nor the instruction holds 351.4, 94.6, 208.8" in office["checks"][0]["why"]
    # the prices come from simulated servers; the difference of two fetched prices needs no calculator
    assert play(task("finance_stock_gap_1"), ReferenceAgent())["success"] is True


def test_a_derivation_must_hold_when_a_task_loads() -> None:
    data = task("finance_stock_gap_1").model_dump(mode="json")
    cp = data["spec"]["checkpoints"][-1]  # the difference, after each stock's own price
    assert cp["derived"] == {"58": "183.1-125.1"}
    for derived, problem in [({"58": "183.1-124.1"}, "= 59, not 58"), ({"57": "183.1-125.1"}, "not one of the GT"),
                             ({"58": "AAPL-META"}, "unknown name")]:
        with pytest.raises(ValidationError, match=problem):
            spec = data["spec"] | {"checkpoints": [data["spec"]["checkpoints"][0], cp | {"derived": derived}]}
            LiveMCPBenchTask.model_validate(data | {"spec": spec})


def scripted_run(endpoint: FaultServer, answer: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict:
    t = task(STAY)
    a, b = (c.arguments["location"] for c in t.gold_calls)
    endpoint.script.extend([
        ("json", completion("OK")),  # the run's preflight request
        ("json", completion(None, [tool_call("route", json.dumps({"query": "airbnb listing price per night"}))])),
        ("json", completion(None, [
            tool_call("execute", json.dumps({"server_name": "airbnb", "tool_name": "airbnb_search",
                                             "params": {"location": a}}), "call_a"),
            tool_call("execute", json.dumps({"server_name": "airbnb", "tool_name": "airbnb_search",
                                             "params": json.dumps({"location": b})}), "call_b")])),
        ("json", completion(answer)),
    ])
    monkeypatch.setenv("SCRIPTED_KEY", "test")
    run_dir = tmp_path / "run"
    result = CliRunner().invoke(app, [
        "run", "--suite", "livemcpbench", "--agent", "copilot", "--model", "openai:scripted", "--base-url",
        endpoint.url, "--api-key-env", "SCRIPTED_KEY", "--tasks", STAY, "--run-dir", str(run_dir)])
    assert result.exit_code == 0, result.output
    return json.loads((run_dir / "summary.json").read_text())


def test_copilot_routes_and_executes_end_to_end(endpoint: FaultServer, tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    t = task(STAY)
    summary = scripted_run(endpoint, t.reference_answer, tmp_path, monkeypatch)
    m = summary["metrics"]
    assert summary["suite"] == "livemcpbench" and summary["n_tasks"] == 1
    assert m["success_rate"] == 1.0 and m["avg_route"] == 1 and m["avg_execute"] == 2 and m["avg_tools"] == 1
    assert m["avg_steps"] == 2
    assert set(summary["by_domain"]) == {"office", "lifestyle", "leisure", "finance", "travel", "shopping"}
    assert summary["by_domain"]["shopping"]["n"] == 1
    # the model saw only the two meta-tools, and the route result named the listing search
    first = endpoint.requests[1]  # after the preflight's
    assert [f["function"]["name"] for f in first["tools"]] == ["route", "execute"]
    routed = json.loads(endpoint.requests[2]["messages"][-1]["content"])
    search = next(r for r in routed if r["tool_name"] == "airbnb_search")
    assert search["server_name"] == "airbnb" and search["parameters"]["location"].startswith("(Required, string)")


def test_a_copilot_that_reports_half_the_answer_fails(endpoint: FaultServer, tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    summary = scripted_run(endpoint, "The first listing is cheaper.", tmp_path, monkeypatch)
    assert summary["metrics"]["success_rate"] == 0.0
    assert summary["episodes"][0]["execute_calls"] == 2


def test_copilot_rejects_bad_meta_calls_without_running_them() -> None:
    agent = CopilotAgent(client=None)  # type: ignore[arg-type]

    class Env:
        library = "livemcptool"

        async def call(self, *a: Any, **k: Any) -> ToolCallEvent:  # pragma: no cover - must not be reached
            raise AssertionError("executed")

    async def go(name: str, raw: str) -> ToolCallEvent:
        return await agent.execute(Env(), name, raw, 0, "c")  # type: ignore[arg-type]

    assert anyio.run(go, "execute", '{"server_name": "airbnb"').is_error  # not JSON
    assert "params" in anyio.run(go, "execute", '{"server_name": "airbnb", "tool_name": "x", "params": 3}').result
    assert anyio.run(go, "route", '{"query": ""}').is_error
    assert anyio.run(go, "airbnb_search", "{}").is_error  # only the meta-tools exist


# -- the key-point judge ----------------------------------------------------------------------------
class JudgeClient:
    name = "judge-model"

    def __init__(self, reply: str) -> None:
        self.reply = reply

    async def complete(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> Any:
        from mcp_persona.llm.base import ChatResponse

        return ChatResponse(content=self.reply)


@pytest.mark.parametrize(("reply", "success"), [
    ('{"key_points_met": [true, true, true], "reason": "all met", "status": "success"}', True),
    # LiveMCPBench's bug: a "failure" verdict that mentions "success" was counted as a success
    ('{"key_points_met": [false, true, true], "reason": "no success on the first", "status": "failure"}', False),
    ("the agent achieved success", False),  # not JSON: unparseable, never a success
])
def test_judge_verdicts_are_read_strictly(reply: str, success: bool) -> None:
    t = task(STAY)
    record = anyio.run(lambda: run_episode(t, ReferenceAgent(), protocol=PROTOCOL))
    judging = Judging.with_client(JudgeClient(reply))  # type: ignore[arg-type]
    rules = record
    record = anyio.run(lambda: PROTOCOL.judge(t, rules, judging))
    assert record.score is not None and record.score.detail["success"] is success
    assert rules.score is not None and rules.score.detail["judge_success"] is None  # a new score; the rules' one stays
    assert record.verdicts and record.verdicts[0]["judge"] == "keypoint"
    summary = PROTOCOL.summarize(RunConfig(suite="livemcpbench", agent="reference", model=None,
                                           protocol="livemcpbench"), [t], [record])
    assert summary["metrics"]["judge_success_rate"] == (1.0 if success else 0.0)


def test_the_model_agent_sees_every_tool_of_the_library() -> None:
    from mcp_persona.agents import ModelAgent
    from mcp_persona.llm.base import ChatResponse
    from test_agents import ScriptedClient, calls

    t = task(STAY)
    a, b = (c.arguments["location"] for c in t.gold_calls)
    client = ScriptedClient([calls(("airbnb__airbnb_search", {"location": a}), ("airbnb__airbnb_search",
                                                                                 {"location": b})),
                             ChatResponse(content=t.reference_answer)])
    record = anyio.run(lambda: run_episode(t, ModelAgent(client), protocol=PROTOCOL))
    names = [f["function"]["name"] for f in client.tools]
    assert len(names) == len(set(names)) >= 500  # the whole library, one flat namespace
    assert "Ant_Design_Components__list-components" in names  # server keys made function-name safe
    assert record.score is not None and record.score.detail["success"] and record.score.detail["route_calls"] == 0


@pytest.mark.slow
def test_copilot_with_the_local_model(tmp_path: Path) -> None:
    """One short smoke run of the bundled model as the copilot: it runs end to end and is scored."""
    run_dir = tmp_path / "run"
    result = CliRunner().invoke(app, ["run", "--suite", "livemcpbench", "--agent", "copilot", "--model", "local",
                                      "--tasks", STAY, "--max-rounds", "3", "--run-dir", str(run_dir)])
    assert result.exit_code == 0, result.output
    summary = json.loads((run_dir / "summary.json").read_text())
    assert summary["agent"] == "copilot" and summary["model"].startswith("local:")
    assert summary["n_episodes"] == 1 and summary["n_errors"] == 0
    assert 0.0 <= summary["metrics"]["success_rate"] <= 1.0


def test_embedding_scores_come_from_an_openai_compatible_endpoint(endpoint: FaultServer) -> None:
    from mcp_persona.retrieval import Router, ToolDoc

    def vectors(*rows: list[float]) -> tuple[str, dict[str, Any]]:
        return ("json", {"object": "list", "model": "emb", "usage": {"prompt_tokens": 1, "total_tokens": 1},
                         "data": [{"object": "embedding", "index": i, "embedding": v} for i, v in enumerate(rows)]})

    # corpus: server descriptions, server summaries, tools; then the query, embedded once for all three
    endpoint.script.extend([
        vectors([1, 0], [0, 1]), vectors([1, 0], [0, 1]), vectors([1, 0], [0.6, 0.8], [0, 1]), vectors([0, 1]),
    ])
    router = Router({"maps": ("maps", "maps"), "stocks": ("stocks", "stocks")},
                    [ToolDoc("maps", "route", "", {}), ToolDoc("stocks", "history", "", {}),
                     ToolDoc("stocks", "quote", "", {})],
                    embeddings={"base_url": endpoint.url, "model": "emb"})
    hits = router.route("share price")
    assert [(h.server, h.tool) for h in hits] == [("stocks", "quote"), ("stocks", "history")]
    assert hits[0].score == pytest.approx(1.0)
    assert len(endpoint.requests) == 4 and endpoint.requests[-1]["input"] == ["share price"]
    assert all(p.endswith("/embeddings") for p in endpoint.paths)


class OfficeCopilotClient:
    """A scripted copilot for office_csv_filter_1 that reads its working folder from the system prompt;
    ``sloppy`` copies every row instead of filtering."""

    name = "scripted-office"

    def __init__(self, sloppy: bool) -> None:
        self.sloppy = sloppy
        self.turn = 0

    async def complete(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> Any:
        import re

        from mcp_persona.llm.base import ChatResponse
        from mcp_persona.trajectory import RequestedCall

        workdir = re.search(r"working folder is (\S+?);", messages[0]["content"]).group(1)  # type: ignore[union-attr]
        t = task("office_csv_filter_1")
        self.turn += 1
        if self.turn == 1:
            args = {"query": "read a CSV file"}
            return ChatResponse(tool_calls=[RequestedCall(id="r", name="route", arguments=json.dumps(args))])
        if self.turn == 2:
            args = {"server_name": "filesystem", "tool_name": "read_file",
                    "params": {"path": f"{workdir}/{t.spec.input_files[0]}"}}
            return ChatResponse(tool_calls=[RequestedCall(id="x", name="execute", arguments=json.dumps(args))])
        if self.turn == 3:
            original = messages[-1]["content"]
            content = original if self.sloppy else t.gold[1].calls[0].arguments["content"]
            args = {"server_name": "filesystem", "tool_name": "write_file",
                    "params": {"path": f"{workdir}/{t.spec.file_checks[0].path}", "content": content}}
            return ChatResponse(tool_calls=[RequestedCall(id="w", name="execute", arguments=json.dumps(args))])
        return ChatResponse(content=t.reference_answer)


@pytest.mark.parametrize("sloppy", [False, True])
def test_a_copilot_office_run_is_scored_on_the_file_it_leaves(sloppy: bool) -> None:
    t = task("office_csv_filter_1")
    record = anyio.run(lambda: run_episode(t, CopilotAgent(OfficeCopilotClient(sloppy)), protocol=PROTOCOL))  # type: ignore[arg-type]
    assert record.score is not None, record.error
    assert [c.via for c in record.trajectory.tool_calls] == ["route", "execute", "execute"]
    assert not any(c.is_error for c in record.trajectory.tool_calls)
    file_check = next(c for c in record.score.detail["checks"] if c["kind"] == "file")
    assert file_check["passed"] is not sloppy and record.score.detail["success"] is not sloppy


@pytest.mark.parametrize(("rules_pass", "judge_says", "mode", "success"), [
    (True, "failure", "judge", False), (True, "failure", "rules", True), (True, "failure", "both", False),
    (False, "success", "judge", True), (False, "success", "rules", False), (False, "success", "both", False),
    (True, "success", "both", True),
])
def test_success_is_decided_as_the_run_says(rules_pass: bool, judge_says: str, mode: str, success: bool) -> None:
    from mcp_persona.agents import NoopAgent

    t = task(STAY)
    agent = ReferenceAgent() if rules_pass else NoopAgent()
    settings = {"success": mode}
    record = anyio.run(lambda: run_episode(t, agent, protocol=PROTOCOL, settings=settings))
    assert record.score is not None and record.score.detail["rule_success"] is rules_pass
    met = json.dumps([judge_says == "success"] * len(t.spec.key_points))
    reply = f'{{"key_points_met": {met}, "reason": "read", "status": "{judge_says}"}}'
    record = anyio.run(lambda: PROTOCOL.judge(t, record, Judging.with_client(JudgeClient(reply))))  # type: ignore[arg-type]
    assert record.score.detail["success"] is success and record.score.detail["success_rule"] == mode
    assert record.score.detail["judge_success"] is (judge_says == "success")


def test_success_without_a_judge_is_refused(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["run", "--suite", "livemcpbench", "--success", "both", "--limit", "1",
                                      "--run-dir", str(tmp_path / "r")])
    assert result.exit_code == 2 and "--judge" in result.output
    result = CliRunner().invoke(app, ["run", "--suite", "persona", "--success", "both", "--judge", "openai:x",
                                      "--limit", "1", "--run-dir", str(tmp_path / "r")])
    assert result.exit_code == 2 and "not used by the persona protocol" in result.output


class PaperEndpoint:
    """One loopback server for the paper's setting: an embeddings endpoint (bag-of-words vectors: a text's
    words hashed into 64 dimensions) beside a chat endpoint that plays a script, then a judge's verdicts."""

    def __init__(self, script: list[dict[str, Any]]) -> None:
        import threading
        from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

        self.script, self.embedded = list(script), 0
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)))
                if self.path.endswith("/embeddings"):
                    texts = body["input"] if isinstance(body["input"], list) else [body["input"]]
                    outer.embedded += len(texts)
                    answer: dict[str, Any] = {"object": "list", "model": body.get("model", "emb"),
                                              "usage": {"prompt_tokens": 1, "total_tokens": 1},
                                              "data": [{"object": "embedding", "index": i, "embedding": _bag(t)}
                                                       for i, t in enumerate(texts)]}
                else:
                    answer = outer.script.pop(0)
                payload = json.dumps(answer).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


def _bag(text: str) -> list[float]:
    import hashlib
    import math
    import re

    vec = [0.0] * 64
    for word in re.findall(r"[a-z]+", text.lower()):
        vec[int(hashlib.md5(word.encode()).hexdigest(), 16) % 64] += 1.0
    norm = math.sqrt(sum(v * v for v in vec)) or 1.0
    return [v / norm for v in vec]


def test_the_papers_setting_end_to_end_embeddings_route_and_the_judge_decides(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The copilot routes with embeddings (not BM25) and the key-point judge alone decides success: an answer
    the rules fail (it reports half the task) succeeds when the judge says so, as in the paper."""
    from mcp_persona.retrieval import get_router

    t = task(STAY)
    a, b = (c.arguments["location"] for c in t.gold_calls)
    met = json.dumps([True] * len(t.spec.key_points))
    script = [
        completion("OK"),  # the agent's preflight
        completion("OK"),  # the judge's
        completion(None, [tool_call("route", json.dumps({"query": "airbnb listing price per night"}))]),
        completion(None, [tool_call("execute", json.dumps({"server_name": "airbnb", "tool_name": "airbnb_search",
                                                           "params": {"location": x}}), f"c{i}")
                          for i, x in enumerate((a, b))]),
        completion("The first listing is cheaper."),  # the rules want the prices: they fail this answer
        completion(f'{{"key_points_met": {met}, "reason": "judged", "status": "success"}}'),
    ]
    server = PaperEndpoint(script)
    monkeypatch.setenv("SCRIPTED_KEY", "test")
    get_router.cache_clear()
    try:
        run_dir = tmp_path / "run"
        result = CliRunner().invoke(app, [
            "run", "--suite", "livemcpbench", "--agent", "copilot", "--model", "openai:scripted", "--base-url",
            server.url, "--api-key-env", "SCRIPTED_KEY", "--tasks", STAY, "--embeddings-url", server.url,
            "--embeddings-model", "bag", "--judge", "openai:judge", "--judge-base-url", server.url,
            "--judge-api-key-env", "SCRIPTED_KEY", "--run-dir", str(run_dir)])
        assert result.exit_code == 0, result.output
    finally:
        server.close()
        get_router.cache_clear()
    summary = json.loads((run_dir / "summary.json").read_text())
    episode = summary["episodes"][0] if "episodes" in summary else None
    assert server.embedded > 500  # the library (its servers twice, its 527 tools) and the query, embedded
    assert not server.script
    m = summary["metrics"]
    assert m["rule_success_rate"] == 0.0 and m["judge_success_rate"] == 1.0 and m["success_rate"] == 1.0
    assert episode is None or episode.get("success") is True


def test_keypoints_are_extracted_strictly(endpoint: FaultServer, tmp_path: Path,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SCRIPTED_KEY", "test")
    first, second = sorted(t.id for t in load_tasks("livemcpbench"))[:2]
    endpoint.script.extend([
        ("json", completion('{"key_points": ["find the price", "report it"]}')),
        ("json", completion("the key points are: find it")),  # not JSON: unusable, twice
        ("json", completion("still prose")),
    ])
    out = tmp_path / "kp.jsonl"
    result = CliRunner().invoke(app, ["keypoints", "--model", "openai:extractor", "--base-url", endpoint.url,
                                      "--api-key-env", "SCRIPTED_KEY", "--tasks", f"{first},{second}",
                                      "--out", str(out)])
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert [r["task_id"] for r in rows] == [first, second]
    assert rows[0]["status"] == "ok" and rows[0]["key_points"] == ["find the price", "report it"]
    assert rows[0]["annotated"]  # the task's own, beside them
    assert rows[1]["status"] == "unparseable" and rows[1]["key_points"] is None
    assert result.exit_code == 1 and second in result.output


def test_failures_are_sorted_into_the_papers_error_taxonomy() -> None:
    from mcp_persona.protocols.livemcpbench.scoring import error_kind
    from mcp_persona.store import EpisodeRecord
    from mcp_persona.trajectory import ToolCallEvent, Trajectory

    t = task(STAY)
    gold = [(c.server, c.tool) for c in t.gold_calls]

    def record(events: list[ToolCallEvent], *, status: str = "ok", stop: str = "answered",
               success: bool = False) -> EpisodeRecord:
        traj = Trajectory(task_id=t.id, agent="copilot", events=events, stop_reason=stop)  # type: ignore[arg-type]
        return EpisodeRecord(task_id=t.id, epoch=0, category=t.spec.category, status=status,  # type: ignore[arg-type]
                             trajectory=traj, score={"success": success} if status == "ok" else None)

    routed = ToolCallEvent(round=0, tool="route", via="route", result=json.dumps(
        [{"server_name": s, "tool_name": n} for s, n in gold]))
    elsewhere = ToolCallEvent(round=0, tool="route", via="route", result=json.dumps(
        [{"server_name": "weather", "tool_name": "forecast"}]))
    ran = [ToolCallEvent(round=1, server=s, tool=n, via="execute", result="{}") for s, n in gold]
    failed = [e.model_copy(update={"is_error": True}) for e in ran]
    asked = elsewhere.model_copy(update={"arguments": {"query": "search airbnb listings"}})
    assert error_kind(t, record([routed, *ran], success=True)) is None
    assert error_kind(t, record([elsewhere])) == "query"  # never found, never asked for
    assert error_kind(t, record([asked])) == "retrieve"  # asked for, the retriever missed it
    assert error_kind(t, record([routed])) == "tool"  # found, never run
    assert error_kind(t, record([routed, *failed])) == "tool"  # found, run wrongly
    assert error_kind(t, record([routed, *ran])) == "answer"  # run right, answered wrong
    assert error_kind(t, record([routed, *ran], stop="max_rounds")) == "other"
    assert error_kind(t, record([], status="error", stop="error")) == "other"
    summary = PROTOCOL.summarize(RunConfig(suite="livemcpbench", agent="copilot", model=None,
                                           protocol="livemcpbench"), [t],
                                 [record([elsewhere]).model_copy(update={"score": None, "status": "error"})])
    assert summary["error_taxonomy"] == {"query": 0, "retrieve": 0, "tool": 0, "answer": 0, "other": 1}
    # (each kind in detail, and unreadable judge verdicts: tests/test_livemcpbench_taxonomy.py)


@pytest.mark.slow
def test_the_generator_reproduces_the_committed_suite(tmp_path: Path) -> None:
    # the script is the source of the suite: a hand edit of the JSON (or a change left unregenerated) shows up
    # here; office files are compared by what they hold (their zip carries the time they were written)
    import subprocess
    import sys

    from mcp_persona.protocols.livemcpbench.scoring import cell_values, document_text

    root = Path(__file__).resolve().parents[1]
    committed = root / "src/mcp_persona/data/tasks/livemcpbench"
    out = tmp_path / "livemcpbench"
    done = subprocess.run([sys.executable, str(root / "scripts/build_livemcpbench.py"), str(out)],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert sorted(f.name for f in out.iterdir()) == sorted(f.name for f in committed.iterdir())
    differ = [f.name for f in committed.glob("*.json") if (out / f.name).read_bytes() != f.read_bytes()]
    assert differ == []
    inputs = sorted(f.name for f in (committed / "files").iterdir())
    assert sorted(f.name for f in (out / "files").iterdir()) == inputs
    for name in inputs:
        ours, theirs = out / "files" / name, committed / "files" / name
        if ours.suffix in (".xlsx", ".xlsm"):
            assert cell_values(ours.read_bytes()) == cell_values(theirs.read_bytes()), name
        else:
            assert document_text(name, ours.read_bytes()) == document_text(name, theirs.read_bytes()), name
