"""MCPAgentBench's published runs imported as runs: the published TFS / TEFS reproduced, ours beside them.

The data in tests/data/mcpagentbench/ is the peer's own (see its README): the published numbers asserted
here are the ``evaluation_summary`` the peer's code wrote into each result file.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from typer.testing import CliRunner

from mcp_persona.cli import app
from mcp_persona.protocols.mcpagentbench.published import model_name, peer_scores, read_results
from mcp_persona.protocols.mcpagentbench.scoring import peer_tefs, peer_tfs
from mcp_persona.report.load import load_run
from mcp_persona.report.markdown import render_markdown

DATA = Path(__file__).parent / "data" / "mcpagentbench"
TASKS = DATA / "tasks.json"
GPT5 = DATA / "openai_gpt-5_general_test_run1_results.json"
GEMINI = DATA / "gemini-3-pro-preview_general_test_run1_results.json"
runner = CliRunner()


def test_the_peer_rules_on_hand_made_calls() -> None:
    gold = [[("weather_tool", {"city": "Paris"})], [("book_hotel", {"city": "Paris", "nights": 2})]]
    # TFS ignores turns; TEFS wants one turn per step
    assert peer_tfs(gold, [[("weather_tool", {"city": "Paris"}), ("book_hotel", {"nights": "2", "city": "Paris"})]])
    assert not peer_tefs(gold, [[("weather_tool", {"city": "Paris"}), ("book_hotel", {"city": "Paris", "nights": 2})]])
    assert peer_tefs(gold, [[("weather_tool", {"city": "Paris"})], [("book_hotel", {"city": "Paris", "nights": 2})]])
    # a repeat is invisible to sets; an extra optional argument or 2.0 for 2 is not the same call
    assert peer_tfs(gold, [[("weather_tool", {"city": "Paris"})], [("weather_tool", {"city": "Paris"})],
                           [("book_hotel", {"city": "Paris", "nights": 2})]])
    assert not peer_tfs(gold, [[("weather_tool", {"city": "Paris", "units": None})],
                               [("book_hotel", {"city": "Paris", "nights": 2})]])
    assert not peer_tfs(gold, [[("weather_tool", {"city": "Paris"})],
                               [("book_hotel", {"city": "Paris", "nights": 2.0})]])
    # a name-only tool passes on its name, whatever its arguments
    code = [[("generate_code", {"prompt": "an IBAN validator"})]]
    assert peer_tfs(code, [[("generate_code", {"prompt": "print('hi')"})]])
    assert not peer_tfs(code, [[("generate_code", {"prompt": "print('hi')"})]], frozenset())


@pytest.mark.parametrize(("path", "tfs", "tefs"), [(GPT5, 59.71, 36.76), (GEMINI, 59.71, 41.47)])
def test_published_scores_recomputed_from_the_file(path: Path, tfs: float, tefs: float) -> None:
    run = read_results(path)
    assert (run.summary["ignore_parallel_score"], run.summary["model_score"]) == (tfs, tefs)  # what was published
    mine = peer_scores(run.results)
    assert mine["n_tasks"] == 180
    assert (round(100 * mine["tfs"], 2), round(100 * mine["tefs"], 2)) == (tfs, tefs)


def test_model_name_from_the_file_name() -> None:
    assert model_name(GPT5) == ("openai_gpt-5", 1)
    assert model_name(Path("my-model.json")) == ("my-model", None)


def _import(out: Path, *files: Path) -> object:
    return runner.invoke(app, ["import", "mcpagentbench-results", *map(str, files), "--tasks", str(TASKS),
                               "--out", str(out)])


@pytest.fixture(scope="module")
def imported(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("published")
    result = _import(out, GPT5, GEMINI)
    assert result.exit_code == 0, result.output
    return out


def test_import_reproduces_the_published_numbers_on_the_tasks_that_import(imported: Path) -> None:
    for folder, file in (("openai_gpt-5-run1", GPT5), ("gemini-3-pro-preview-run1", GEMINI)):
        summary = json.loads((imported / folder / "summary.json").read_text())
        pub, m = summary["published"], summary["metrics"]
        assert summary["agent"] == "published" and summary["model"] == file.name.split("_general")[0]
        assert m["n"] == 174 and len(pub["not_imported"]) == 6
        # the paper's rules on the replayed trajectories = the paper's rules on the file's own records
        assert m["tfs_paper"] == pytest.approx(pub["recomputed_imported_tasks"]["tfs"], abs=1e-12)
        assert m["tefs_paper"] == pytest.approx(pub["recomputed_imported_tasks"]["tefs"], abs=1e-12)
        assert round(100 * pub["recomputed_all_tasks"]["tfs"], 2) == round(100 * pub["reported"]["tfs"], 2)
        assert round(100 * pub["recomputed_all_tasks"]["tefs"], 2) == round(100 * pub["reported"]["tefs"], 2)
    gpt5 = json.loads((imported / "openai_gpt-5-run1" / "summary.json").read_text())
    m = gpt5["metrics"]
    assert (round(100 * m["tfs_paper"], 2), round(100 * m["tefs_paper"], 2)) == (60.24, 36.39)
    # the argument rule reads number words, articles and set-like lists as the same argument (49.54, 29.36 before)
    assert (round(100 * m["tfs"], 2), round(100 * m["tefs"], 2)) == (49.85, 29.66)
    # by outcome: calls that return what the gold call returns count ("Wolfgang Amadeus Mozart" for "Mozart")
    assert (round(100 * m["tfs_outcome"], 2), round(100 * m["tefs_outcome"], 2)) == (60.55, 34.25)
    not_imported = gpt5["published"]["not_imported"]
    assert "protask_3_seq_tools_19: not in the task file" in not_imported
    assert any(line.startswith("protask_1_tool_25: the task did not import (search_news") for line in not_imported)


def test_differences_between_the_paper_rule_and_ours_are_counted_by_reason(imported: Path) -> None:
    gpt5 = json.loads((imported / "openai_gpt-5-run1" / "summary.json").read_text())["paper_differences"]
    assert gpt5["tfs"]["paper_only"] == 20 and gpt5["tfs"]["ours_only"] == 2
    assert gpt5["tfs"]["by_reason"] == {"skip list": 20, "text and number forms": 2}
    # "270.00" for 270: the same transfer to us, another string to str(); and a number word read as its number
    ours = [e for e in gpt5["tfs"]["episodes"] if e["passes"] == "ours"]
    assert [e["task_id"] for e in ours] == ["peer_daytask_2_sequential_tools_10", "peer_protask_1_tool_29"]
    gemini = json.loads((imported / "gemini-3-pro-preview-run1" / "summary.json").read_text())["paper_differences"]
    assert gemini["tfs"]["by_reason"]["repeats hidden by sets"] == 6
    # a model that wrote /berlin where the gold says /Berlin did not call the same tool: not ours, not the paper's
    store = sqlite3.connect(imported / "gemini-3-pro-preview-run1" / "run.sqlite")
    (record,) = store.execute("SELECT record FROM episodes WHERE task_id = ?",
                              ("peer_protask_2_parallel_tools_20",)).fetchone()
    score = json.loads(record)["score"]["detail"]
    assert not score["finished"] and not score["paper_finished"]


def test_the_replayed_calls_are_the_recorded_ones_turn_by_turn(imported: Path) -> None:
    rows = {r["task_id"]: r for r in read_results(GPT5).results}
    store = sqlite3.connect(imported / "openai_gpt-5-run1" / "run.sqlite")
    for task_id, text in store.execute("SELECT task_id, record FROM episodes"):
        calls = [e for e in json.loads(text)["trajectory"]["events"] if e["kind"] == "tool"]
        row = rows[task_id.removeprefix("peer_")]
        turns = [[(c["tool"], c["arguments"]) for c in calls if c["round"] == r]
                 for r in sorted({c["round"] for c in calls})]
        assert turns == [list(zip(t, i, strict=True)) for t, i in zip(row["tools_used"], row["inputs_used"],
                                                                       strict=True)], task_id


def test_report_shows_published_runs_beside_a_users_own(imported: Path, tmp_path: Path) -> None:
    own = tmp_path / "own"
    result = runner.invoke(app, ["run", "--suite", str(imported / "mcpagentbench-peer"), "--agent", "reference",
                                 "--run-dir", str(own)])
    assert result.exit_code == 0, result.output
    published = load_run(imported / "openai_gpt-5-run1")
    assert published.label == "published/openai_gpt-5" and published.published is not None
    stats = published.stats()
    assert stats["avg_output_tokens"] == pytest.approx(668516 / 180)  # the peer's totals over its 180 tasks
    assert stats["cost_usd"] is None
    text = render_markdown([load_run(own), published])
    assert "| published/openai_gpt-5 | 174 | 49.8 | 29.7 | 60.2 | 36.4 |" in text
    assert "| reference | 174 | 100.0 | 100.0 | 100.0 | 100.0 |" in text
    assert "published run (openai_gpt-5_general_test_run1_results.json), replayed here, not run" in text
    result = runner.invoke(app, ["compare", str(own), str(imported / "openai_gpt-5-run1")])
    assert result.exit_code == 0 and "TFS-paper" in result.output and "174 tasks)" in result.output


def test_bad_input_is_refused_and_writes_nothing(tmp_path: Path, imported: Path) -> None:
    not_results = tmp_path / "x_results.json"
    not_results.write_text(json.dumps({"detailed_results": []}))
    result = _import(tmp_path / "out", not_results)
    assert result.exit_code != 0 and "not an MCPAgentBench result file" in result.output
    result = runner.invoke(app, ["import", "mcpagentbench-results", str(GPT5), "--out", str(tmp_path / "out")])
    assert result.exit_code != 0 and "needs --tasks" in result.output
    assert not (tmp_path / "out").exists()
    before = (imported / "openai_gpt-5-run1" / "summary.json").read_text()
    result = _import(imported, GPT5)
    assert result.exit_code != 0 and "already hold a run" in result.output
    assert (imported / "openai_gpt-5-run1" / "summary.json").read_text() == before
    result = runner.invoke(app, ["import", "mcpagentbench", str(TASKS), str(TASKS)])
    assert result.exit_code != 0 and "reads one task file" in result.output


def test_the_outcome_rule_passes_what_ours_passes_and_a_call_that_gets_the_gold_reply(imported: Path) -> None:
    gpt5 = json.loads((imported / "openai_gpt-5-run1" / "summary.json").read_text())
    episodes = gpt5["episodes"]
    assert all(e["outcome_finished"] for e in episodes if e["finished"])
    assert sum(e["outcome_finished"] and not e["finished"] for e in episodes) == 16
    # itunes_search(artist="Wolfgang Amadeus Mozart") where the gold says "Mozart": the same tracks come back
    store = sqlite3.connect(imported / "openai_gpt-5-run1" / "run.sqlite")
    (record,) = store.execute("SELECT record FROM episodes WHERE task_id = ?", ("peer_daytask_1_tool_12",)).fetchone()
    score = json.loads(record)["score"]["detail"]
    assert not score["finished"] and score["outcome_finished"] and score["outcome_via"] == {"0.0": "reply"}
    assert score["outcome_replay_diverged"] == []
