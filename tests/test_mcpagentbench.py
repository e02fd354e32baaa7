"""MCPAgentBench on the platform: the metric on hand-computed cases, the seeded candidate draw,
replay validation, protocol options, and the CLI end to end on a small subset."""

from __future__ import annotations

import hashlib
import json
import sqlite3
from pathlib import Path
from typing import Any

import anyio
import pytest
from typer.testing import CliRunner

from mcp_persona.cli import app
from mcp_persona.protocols import get_protocol, load_suite, load_tasks
from mcp_persona.protocols.mcpagentbench.candidates import candidate_list, draw_seed
from mcp_persona.protocols.mcpagentbench.library import library
from mcp_persona.protocols.mcpagentbench.scoring import normalize_arguments, run_metrics, score_calls
from mcp_persona.protocols.mcpagentbench.spec import MCPAgentBenchSpec, MCPAgentBenchTask
from mcp_persona.protocols.mcpagentbench.validate import check_task
from mcp_persona.tasks import Task, TaskFileError, read_tasks
from mcp_persona.trajectory import ToolCallEvent

runner = CliRunner(env={"COLUMNS": "250", "NO_COLOR": "1", "TERM": "dumb"})
MAB = get_protocol("mcpagentbench")
CLOCK = {"now": "2026-03-10T09:30:00", "timezone": "America/Chicago"}


def make_task(steps: list[list[tuple[str, dict[str, Any]]]], instruction: str = "x", typ: str = "multi") -> Task:
    lib = library()
    servers = list(dict.fromkeys(lib[t].server for step in steps for t, _ in step))
    return MCPAgentBenchTask.model_validate({
        "id": "t1", "suite": "mcpagentbench", "instruction": instruction,
        "servers": [{"server": s, "context_id": "default"} for s in servers], "clock": CLOCK,
        "gold": [{"calls": [{"server": lib[t].server, "tool": t, "arguments": a} for t, a in step]} for step in steps],
        "spec": {"type": typ, "domain": "daily"}})


def ev(rnd: int, tool: str, args: dict[str, Any] | None, result: Any = None) -> ToolCallEvent:
    return ToolCallEvent(round=rnd, tool=tool, arguments=args, result=json.dumps(result or {}))


A = ("weather_tool", {"city": "Seattle", "date": "2026-03-15"})
B = ("get_balance", {"account_type": "savings"})
SEARCH = ("search_imdb", {"primary_title": "Dune"})
DIRECTORS = ("get_directors", {"imdb_id": {"$ref": "0.0:results.0.imdb_id"}})


# -- the metric ---------------------------------------------------------------------------------------------
def test_parallel_step_in_one_turn_is_efficient_split_turns_only_finished() -> None:
    task = make_task([[A, B]])
    same = score_calls(task, [ev(0, *A), ev(0, *B)])
    assert same["finished"] and same["efficient"]
    reordered = score_calls(task, [ev(0, *B), ev(0, *A)])  # order inside a turn is free
    assert reordered["finished"] and reordered["efficient"]
    split = score_calls(task, [ev(0, *A), ev(1, *B)])
    assert split["finished"] and not split["efficient"]


def test_serial_steps_need_their_order_and_separate_turns() -> None:
    task = make_task([[SEARCH], [DIRECTORS]])
    out = {"results": [{"imdb_id": "tt1160419"}]}
    good = [ev(0, *SEARCH, result=out), ev(1, "get_directors", {"imdb_id": "tt1160419"})]
    assert score_calls(task, good)["efficient"]
    # the id comes from the agent's own result of the matched call, not from a stored gold value
    wrong_id = [ev(0, *SEARCH, result=out), ev(1, "get_directors", {"imdb_id": "tt0816692"})]
    assert not score_calls(task, wrong_id)["finished"]
    one_turn = [ev(0, *SEARCH, result=out), ev(0, "get_directors", {"imdb_id": "tt1160419"})]
    r = score_calls(task, one_turn)
    assert r["finished"] and not r["efficient"]
    without_search = [ev(0, "get_directors", {"imdb_id": "tt1160419"})]
    assert not score_calls(task, without_search)["finished"]


def test_a_repeated_call_is_not_free_though_the_paper_rule_lets_it_pass() -> None:
    task = make_task([[A]], typ="single")
    r = score_calls(task, [ev(0, *A), ev(1, *A)])
    assert not r["finished"] and r["extra"]
    assert r["paper_finished"]  # the peer compares sets: the repeat is invisible to it
    gold_twice = make_task([[A, A]])
    assert score_calls(gold_twice, [ev(0, *A), ev(0, *A)])["finished"]
    assert not score_calls(gold_twice, [ev(0, *A)])["finished"]


def test_extra_and_failed_calls_count_against_finished() -> None:
    task = make_task([[A]], typ="single")
    assert not score_calls(task, [ev(0, "get_time", {"timezone": ["UTC"]}), ev(1, *A)])["finished"]
    assert not score_calls(task, [ev(0, "weather_tool", None), ev(1, *A)])["finished"]  # unparseable arguments


def test_normalisation_case_space_numbers_and_defaults() -> None:
    assert normalize_arguments("weather_tool", {"city": "  seattle ", "date": "2026-03-15"}) == \
        normalize_arguments("weather_tool", {"city": "Seattle", "date": "2026-03-15"})
    assert normalize_arguments("diceRoll", {"sides": "20", "count": 2.0}) == \
        normalize_arguments("diceRoll", {"sides": 20, "count": 2})
    # pay_utility_bill declares method="online": leaving it out or saying it is the same call
    base = {"account_number": "UA-993014", "provider": "BrightGrid Electric", "amount": 93.16}
    plain = normalize_arguments("pay_utility_bill", base)
    assert plain == normalize_arguments("pay_utility_bill", base | {"method": "online"})
    assert plain != normalize_arguments("pay_utility_bill", base | {"method": "in_person"})
    assert normalize_arguments("get_time", {"timezone": ["A", "B"]}) != \
        normalize_arguments("get_time", {"timezone": ["B", "A"]})  # lists keep their order


def test_paper_rule_is_exact_about_key_sets_and_str() -> None:
    task = make_task([[("diceRoll", {"sides": 20, "count": 2, "modifier": 3, "roll_type": "normal"})]], typ="single")
    as_text = {"sides": "20", "count": "2", "modifier": "3", "roll_type": "normal"}
    r = score_calls(task, [ev(0, "diceRoll", as_text)])
    assert r["finished"] and r["paper_finished"]  # str(20) == "20"
    r = score_calls(task, [ev(0, "diceRoll", {"sides": 20.0, "count": 2, "modifier": 3, "roll_type": "normal"})])
    assert r["finished"] and not r["paper_finished_all_args"]  # str(20.0) == "20.0"
    assert r["paper_finished"]  # but diceRoll is on the peer's name-only list: its arguments are never compared
    r = score_calls(task, [ev(0, "diceRoll", {"sides": 6, "count": 2, "modifier": 3, "roll_type": "normal"})])
    assert not r["finished"] and r["paper_finished"] and r["paper_efficient"]  # a wrong die passes the paper
    assert r["paper_differs"] == {"tfs": ["skip list"], "tefs": ["skip list"]}


def test_tfs_and_tefs_are_weighted_by_gold_calls_and_efficiency_uses_the_tefs_score() -> None:
    rows = [{"weight": 1, "finished": True, "efficient": True, "paper_finished": True, "output_tokens": 500,
             "elapsed_s": 30.0},
            {"weight": 3, "finished": True, "efficient": False, "paper_finished": True, "output_tokens": 1500,
             "elapsed_s": 90.0},
            {"weight": 2, "finished": False, "efficient": False, "paper_finished": False, "output_tokens": 0,
             "elapsed_s": 0.0}]
    m = run_metrics(rows)
    assert m["tfs"] == pytest.approx(4 / 6) and m["tefs"] == pytest.approx(1 / 6)
    assert m["token_efficiency"] == pytest.approx(1 / 2.0)  # score 1 over 2k output tokens
    assert m["time_efficiency"] == pytest.approx(1 / 2.0)  # score 1 over 2 minutes
    assert run_metrics([r | {"output_tokens": 0} for r in rows])["token_efficiency"] is None


# -- the candidate list ---------------------------------------------------------------------------------------
def test_candidate_draw_is_seeded_by_task_and_k_and_holds_the_gold_tools() -> None:
    task = make_task([[SEARCH], [DIRECTORS]])
    assert draw_seed("t1", 20, "uniform") == int.from_bytes(hashlib.sha256(b"t1|20|uniform").digest()[:8], "big")
    for k in (10, 20, 30, 40):
        listed = candidate_list(task, k)
        assert len(listed) == len(set(listed)) == k
        assert {"search_imdb", "get_directors"} <= set(listed)
        assert listed == candidate_list(task, k)
    assert candidate_list(task, 20) != candidate_list(task, 20, "confusable")
    assert set(candidate_list(task, 10)) != set(candidate_list(task.model_copy(update={"id": "t2"}), 10))
    with pytest.raises(ValueError, match="too small"):
        candidate_list(make_task([[A, B, SEARCH]]), 2)


def test_confusable_distractors_are_nearer_the_gold_tools_than_uniform_ones() -> None:
    from mcp_persona.protocols.mcpagentbench.candidates import similarity

    task = make_task([[("search_restaurant", {"location": "Austin", "cuisineTypes": "Mexican"})]], typ="single")
    lib = library()

    def mean_sim(names: list[str]) -> float:
        others = [n for n in names if n != "search_restaurant"]
        return sum(similarity(lib[n], lib["search_restaurant"]) for n in others) / len(others)

    confusable = candidate_list(task, 10, "confusable")
    assert mean_sim(confusable) > mean_sim(candidate_list(task, 10, "uniform"))
    # nearest first: no tool left out is nearer than a tool taken
    taken = min(similarity(lib[n], lib["search_restaurant"]) for n in confusable if n != "search_restaurant")
    left = max(similarity(lib[n], lib["search_restaurant"]) for n in lib if n not in confusable)
    assert taken >= left
    assert "get_restaurant_details" in confusable


# -- protocol options and suite files ---------------------------------------------------------------------------
def test_protocol_options_are_checked_per_protocol() -> None:
    assert MAB.settings({}) == {"candidates": 20, "distractors": "uniform"}
    with pytest.raises(ValueError, match="--candidates must be one of 10, 20, 30, 40"):
        MAB.settings({"candidates": 15})
    with pytest.raises(ValueError, match="--candidates is not used by the persona protocol"):
        get_protocol("persona").settings({"candidates": 20})


def test_suite_file_names_a_known_protocol(tmp_path: Path) -> None:
    (tmp_path / "suite.json").write_text('{"protocol": "nope"}')
    (tmp_path / "t.json").write_text("[]")
    with pytest.raises(TaskFileError, match="unknown protocol 'nope'"):
        load_suite(str(tmp_path))
    (tmp_path / "suite.json").write_text('{"protocol": "mcpagentbench"}')
    bad = make_task([[A]], typ="dual_serial").model_dump(mode="json")
    (tmp_path / "t.json").write_text(json.dumps([bad]))
    with pytest.raises(TaskFileError, match="does not match the gold steps"):
        load_suite(str(tmp_path))
    # the file format alone is the loader's; the fit, the suite's
    assert read_tasks(str(tmp_path), MCPAgentBenchSpec)[0].id == bad["id"]


def test_the_bundled_suite_has_the_papers_shape() -> None:
    tasks = load_tasks("mcpagentbench")
    for domain in ("daily", "professional"):
        counts = {t: sum(1 for x in tasks if x.spec.domain == domain and x.spec.type == t)
                  for t in ("single", "dual_serial", "dual_parallel", "multi")}
        assert counts["single"] >= 30 and min(counts.values()) >= 20, counts
    assert len(library()) >= 140


# -- validation -----------------------------------------------------------------------------------------------
def test_validation_rejects_an_argument_the_agent_cannot_know() -> None:
    known = make_task([[A]], "What's the weather in Seattle on 2026-03-15?", typ="single")
    assert anyio.run(check_task, known, MAB) == []
    unknown = make_task([[A]], "What's the weather in Seattle mid-month?", typ="single")
    problems = anyio.run(check_task, unknown, MAB)
    assert any("date='2026-03-15' is not discoverable" in p for p in problems), problems


# -- the CLI end to end ---------------------------------------------------------------------------------------
SUBSET = "day_single_0[12],day_serial_01,day_parallel_01,pro_multi_0[1],pro_multi_13,pro_multi_18"


def run(tmp: Path, name: str, *extra: str) -> dict[str, Any]:
    result = runner.invoke(app, ["run", "--suite", "mcpagentbench", "--tasks", SUBSET, "--run-dir", str(tmp / name),
                                 *extra])
    assert result.exit_code == 0, result.output
    return json.loads((tmp / name / "summary.json").read_text())


def pools(run_dir: Path) -> dict[str, list[str]]:
    with sqlite3.connect(run_dir / "run.sqlite") as db:
        rows = db.execute("SELECT task_id, record FROM episodes").fetchall()
    return {tid: json.loads(rec)["pool"]["candidates"] for tid, rec in rows}


def test_cli_reference_one_call_per_turn_and_noop(tmp_path: Path) -> None:
    ref = run(tmp_path, "ref", "--agent", "reference", "--candidates", "10")
    assert ref["suite"] == "mcpagentbench" and ref["n_tasks"] == 7
    assert ref["metrics"]["tfs"] == ref["metrics"]["tefs"] == 1.0
    assert ref["metrics"]["tfs_outcome"] == ref["metrics"]["tefs_outcome"] == 1.0
    assert ref["uncertainty"]["intervals"]["tfs_outcome"] == [1.0, 1.0]
    assert set(ref["by_type"]) == {"single", "dual_serial", "dual_parallel", "multi"}
    assert set(ref["by_domain"]) == {"daily", "professional"}
    assert ref["protocol_options"] == {"candidates": 10, "distractors": "uniform"}
    again = run(tmp_path, "again", "--agent", "reference", "--candidates", "10")
    assert pools(tmp_path / "ref") == pools(tmp_path / "again")
    assert all(len(c) == 10 for c in pools(tmp_path / "ref").values())
    assert again["metrics"]["tfs"] == 1.0

    split = run(tmp_path, "split", "--agent", "reference", "--one-call-per-turn")
    has_parallel = {t.id for t in load_tasks("mcpagentbench") if any(len(s.calls) > 1 for s in t.gold)}
    for e in split["episodes"]:
        assert e["finished"]
        assert e["efficient"] == (e["task_id"] not in has_parallel), e
    assert split["metrics"]["tfs"] == 1.0 and split["metrics"]["tefs"] < 1.0
    assert split["metrics"]["tfs_outcome"] == 1.0 and split["metrics"]["tefs_outcome"] == split["metrics"]["tefs"]

    noop = run(tmp_path, "noop", "--agent", "noop")
    assert noop["metrics"]["tfs"] == noop["metrics"]["tefs"] == noop["metrics"]["tfs_paper"] == 0.0
    assert noop["metrics"]["tfs_outcome"] == noop["metrics"]["tefs_outcome"] == 0.0


def test_cli_rejects_protocol_options_the_suite_does_not_use() -> None:
    result = runner.invoke(app, ["run", "--suite", "persona", "--candidates", "10", "--limit", "1"])
    assert result.exit_code == 2
    assert "--candidates is not used by the persona protocol" in result.output
    result = runner.invoke(app, ["run", "--suite", "mcpagentbench", "--candidates", "12", "--limit", "1"])
    assert result.exit_code == 2 and "must be one of 10, 20, 30, 40" in result.output


def test_cli_lists_tasks_with_type_and_domain() -> None:
    result = runner.invoke(app, ["tasks", "--suite", "mcpagentbench", "--json"])
    rows = json.loads(result.output)
    assert len(rows) >= 180
    assert {r["type"] for r in rows} == {"single", "dual_serial", "dual_parallel", "multi"}
    assert {r["domain"] for r in rows} == {"daily", "professional"}


# -- the importer ---------------------------------------------------------------------------------------------
def test_import_maps_the_peer_format_and_lists_what_it_cannot(tmp_path: Path) -> None:
    peer = [
        {"id": "daytask_2_parallel_tools_3", "content": "Weather in Seattle on 2026-03-15, and my savings balance.",
         "tools": [["weather_tool", "get_balance"]],
         "inputs": [[{"city": "Seattle", "date": "2026-03-15"}, {"account_type": "savings"}]]},
        {"id": "protask_1_tool_9", "content": "x", "tools": [["no_such_tool"]], "inputs": [[{}]]},
        {"id": "daytask_1_tool_4", "content": "x", "tools": [["weather_tool"]], "inputs": [[{"town": "Seattle"}]]},
    ]
    src = tmp_path / "tasks.json"
    src.write_text(json.dumps(peer))
    result = runner.invoke(app, ["import", "mcpagentbench", str(src), "--out", str(tmp_path / "suite")])
    assert result.exit_code == 0, result.output
    assert "1 tasks mapped, 2 not mapped" in result.output
    assert "protask_1_tool_9: tool 'no_such_tool' is not in the library" in result.output
    assert "arguments ['town'] are not parameters of our weather_tool" in result.output
    (task,) = load_tasks(str(tmp_path / "suite"))
    assert (task.spec.type, task.spec.domain) == ("dual_parallel", "daily")
    assert [[c.tool for c in s.calls] for s in task.gold] == [["weather_tool", "get_balance"]]
    assert anyio.run(check_task, task, MAB) == []
    result = runner.invoke(app, ["import", "persona", str(src)])
    assert result.exit_code == 2 and "has no importer" in result.output


# -- the paper's tables, and --tools ------------------------------------------------------------------------
def test_paper_tables_show_the_paper_rule_where_it_differs_from_ours() -> None:
    """Tables 1 and 2 sit beside the published rows, counted by the paper's checker: a run's cells are its
    tfs_paper / tefs_paper, not its (stricter) tfs / tefs."""
    from mcp_persona.protocols.mcpagentbench.published import RecordedAgent
    from mcp_persona.report.paper_tables import protocol_grids
    from mcp_persona.run_config import RunConfig
    from mcp_persona.runner import run_episode

    task = next(t for t in load_tasks("mcpagentbench") if t.id == "day_single_10")  # weather_tool(Seattle, date)
    (call,) = task.gold_calls
    twice = RecordedAgent("scripted", {task.id: [[(call.tool, call.arguments), (call.tool, call.arguments)]]})
    record = anyio.run(lambda: run_episode(task, twice, protocol=MAB))
    summary = MAB.summarize(RunConfig(suite="mcpagentbench", agent="scripted", model=None, protocol=MAB.name),
                            [task], [record])
    cell = summary["by_domain_type"]["daily/single"]
    assert (cell["tfs"], cell["tefs"], cell["tfs_paper"], cell["tefs_paper"]) == (0.0, 0.0, 1.0, 1.0)
    assert summary["avg_k"]["tfs_paper_avg@1"] == summary["avg_k"]["tefs_paper_avg@1"] == 1.0
    grids = {g.table.key: g for g in protocol_grids(MAB, [("scripted", summary)])}
    for key in ("table1", "table2"):
        grid = grids[key]
        assert grid.header[1] == "Single" and grid.bands[0].label == "Daily"
        run_row, *published = grid.rows
        assert run_row.cells[0] == "100.00" and run_row.cells[1:] == ["–"] * 7
        assert published and all(r.published for r in published)
        assert "paper's rule" in grid.caption


def test_tools_all_is_refused_with_what_to_use_instead(tmp_path: Path) -> None:
    """The protocol draws its own candidate list: --tools all would change nothing, so it is refused (K is
    --candidates), by the protocol's pool and by the run."""
    why = MAB.tools_problem("all")
    assert why is not None and "--candidates" in why and "--distractors" in why
    assert MAB.tools_problem("selected") is None
    assert get_protocol("persona").tools_problem("all") is None  # its 'all tools' pool is a real one
    task = load_tasks("mcpagentbench")[0]
    with pytest.raises(ValueError, match="--candidates"):
        MAB.pool(task, {}, "all")
    assert MAB.pool(task, {}, "selected").description["k"] == 20
    result = runner.invoke(app, ["run", "--suite", "mcpagentbench", "--agent", "reference", "--tools", "all",
                                 "--tasks", "day_single_01", "--run-dir", str(tmp_path / "all")])
    assert result.exit_code != 0
    assert "--tools all is not used by the mcpagentbench protocol" in result.output
    assert "--candidates" in result.output
