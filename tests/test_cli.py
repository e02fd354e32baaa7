"""The CLI end to end on the bundled suite: reference is perfect, noop is the floor, bad input is refused."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import anyio
import pytest
from typer.testing import CliRunner

from mcp_persona.agents import NoopAgent, ReferenceAgent
from mcp_persona.cli import app
from mcp_persona.protocols import load_tasks
from mcp_persona.runner import run_episode, run_suite
from mcp_persona.store import RunStore

runner = CliRunner(env={"COLUMNS": "250", "NO_COLOR": "1", "TERM": "dumb"})


def invoke(*args: str) -> tuple[int, str]:
    result = runner.invoke(app, list(args))
    return result.exit_code, result.output


def summary_of(run_dir: Path) -> dict:
    return json.loads((run_dir / "summary.json").read_text())


def test_reference_agent_scores_perfectly(tmp_path: Path) -> None:
    code, out = invoke("run", "--suite", "persona", "--agent", "reference", "--run-dir", str(tmp_path / "ref"),
                       "--concurrency", "4")
    assert code == 0, out
    s = summary_of(tmp_path / "ref")
    assert s["suite"] == "persona" and s["agent"] == "reference" and s["model"] is None
    assert s["n_tasks"] == len(load_tasks("persona")) >= 12
    assert s["metrics"]["acc"] == 1.0
    assert s["metrics"]["sr_0_8"] == 1.0
    assert s["metrics"]["exec_acc"] == 1.0
    assert s["n_errors"] == 0 and s["n_internal_errors"] == 0
    assert s["metrics"]["collateral_rate"] == 0.0
    assert set(s["by_category"]) == {t.spec.category for t in load_tasks("persona")}
    for cat in s["by_category"].values():
        assert 0.0 <= cat["acc"] <= 1.0


def test_noop_agent_is_the_floor(tmp_path: Path) -> None:
    code, out = invoke("run", "--agent", "noop", "--run-dir", str(tmp_path / "noop"))
    assert code == 0, out
    m = summary_of(tmp_path / "noop")["metrics"]
    assert m["acc"] < 0.05
    assert m["sr_0_8"] == 0.0
    assert m["exec_acc"] == 0.0
    assert m["avg_tool_calls"] == 0.0


def test_episodes_are_stored_with_full_trajectories(tmp_path: Path) -> None:
    code, out = invoke("run", "--agent", "reference", "--limit", "2", "--run-dir", str(tmp_path / "r"))
    assert code == 0, out
    db = sqlite3.connect(tmp_path / "r" / "run.sqlite")
    rows = db.execute("SELECT task_id, status, record FROM episodes").fetchall()
    assert len(rows) == 2
    record = json.loads(rows[0][2])
    calls = [e for e in record["trajectory"]["events"] if e["kind"] == "tool"]
    assert calls and all({"server", "tool", "arguments", "result", "is_error", "latency_s"} <= set(c) for c in calls)
    assert record["score"]["detail"]["checkpoints"] and record["score"]["checks"]


def test_rerun_into_same_dir_needs_resume(tmp_path: Path) -> None:
    run_dir = str(tmp_path / "r")
    assert invoke("run", "--agent", "noop", "--limit", "1", "--run-dir", run_dir)[0] == 0
    code, out = invoke("run", "--agent", "noop", "--limit", "1", "--run-dir", run_dir)
    assert code == 2 and "--resume" in out
    code, out = invoke("run", "--agent", "reference", "--limit", "1", "--run-dir", run_dir, "--resume")
    assert code == 2 and "agent" in out  # other settings than the stored run


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["run", "--agent", "model"], "--model"),
        (["run", "--agent", "noop", "--model", "local"], "only used with --agent model"),
        (["run", "--agent", "robot"], "robot"),
        (["run", "--limit", "0"], "greater than or equal to 1"),
        (["run", "--concurrency", "0"], "greater than or equal to 1"),
        (["run", "--tools", "some"], "some"),
        (["run", "--resume"], "--run-dir"),
        (["run", "--agent", "model", "--model", "gemini"], "unknown model"),
        (["run", "--suite", "no-such-suite"], "neither a bundled suite"),
        (["serve", "nosuch"], "unknown server"),
        (["serve", "lark", "--context", "nobody"], "has no context"),
    ],
)
def test_bad_flags_are_refused(args: list[str], message: str) -> None:
    code, out = invoke(*args)
    assert code == 2
    assert message in out


def test_bad_task_files_say_what_to_fix(tmp_path: Path) -> None:
    bad_json = tmp_path / "broken.json"
    bad_json.write_text('{"id": "x", ')
    code, out = invoke("tasks", "--suite", str(bad_json))
    assert code == 2 and "not valid JSON" in out

    task = json.loads(next(iter(sorted((Path(__file__).parents[1] / "src/mcp_persona/data/tasks/persona")
                                       .glob("lark_001.json")))).read_text())
    del task["instruction"]
    task["clock"]["timezone"] = "Mars/Olympus"
    missing = tmp_path / "missing.json"
    missing.write_text(json.dumps(task))
    code, out = invoke("tasks", "--suite", str(missing))
    assert code == 2
    assert "instruction" in out and "Field required" in out
    assert "Mars/Olympus" in out


def test_a_task_in_the_flat_layout_says_where_its_fields_go_and_the_script_moves_them(tmp_path: Path) -> None:
    import subprocess
    import sys

    root = Path(__file__).parents[1]
    task = json.loads((root / "src/mcp_persona/data/tasks/persona/lark_001.json").read_text())
    flat = {k: v for k, v in task.items() if k != "spec"} | task["spec"]  # as task files were written before
    (tmp_path / "suite.json").write_text('{"protocol": "persona"}')
    (tmp_path / "lark_001.json").write_text(json.dumps(flat))
    code, out = invoke("tasks", "--suite", str(tmp_path))
    assert code == 2 and 'go under "spec"' in out and "checkpoints" in out and "migrate_task_spec.py" in out
    moved = subprocess.run([sys.executable, str(root / "scripts/migrate_task_spec.py"), "migrate", str(tmp_path)],
                           capture_output=True, text=True, check=True)
    assert "1 task files rewritten" in moved.stdout
    assert json.loads((tmp_path / "lark_001.json").read_text()) == task
    code, out = invoke("tasks", "--suite", str(tmp_path), "--json")
    assert code == 0 and json.loads(out)[0]["id"] == "lark_001"


def test_servers_and_tasks_json(tmp_path: Path) -> None:
    code, out = invoke("servers", "--json")
    assert code == 0
    servers = {s["name"]: s for s in json.loads(out)}
    assert {"lark", "obsidian"} <= set(servers)
    assert "contact_v3_user_batchGetId" in servers["lark"]["tools"]
    assert servers["lark"]["personalized"] is True and servers["lark"]["category"] == "collaboration"
    code, out = invoke("tasks", "--json")
    assert code == 0
    rows = json.loads(out)
    assert {r["category"] for r in rows} >= {"collaboration", "content", "lark_centric"}


def test_validate_passes_on_the_bundled_suite() -> None:
    code, out = invoke("validate")
    assert code == 0, out
    assert "all valid" in out
    assert "mutants killed:" in out  # every task is mutation-tested, and no unexempted mutant survives
    assert "equivalents keeping the full score:" in out  # and equivalence-tested: every variant kept its score
    assert "fact-breaking rewrites losing the score:" in out and "(100.0%)" in out  # and every breaking one lost it


def test_validate_fails_loudly_on_an_unsolvable_task(tmp_path: Path) -> None:
    src = Path(__file__).parents[1] / "src/mcp_persona/data/tasks/persona/lark_003.json"
    task = json.loads(src.read_text())
    task["gold"][1]["calls"][0]["arguments"]["data"]["receive_id"] = "oc_doesnotexist"
    f = tmp_path / "t.json"
    f.write_text(json.dumps(task))
    code, out = invoke("validate", "--suite", str(f))
    assert code == 1
    assert "lark_003" in out and "returned an error" in out


def test_resume_after_interruption_neither_loses_nor_duplicates(tmp_path: Path) -> None:
    """Cancel a run part-way (as a kill would), then resume: every task exactly once."""
    tasks = load_tasks("persona")
    store = RunStore(tmp_path)
    store.begin({"suite": "persona", "agent": "reference"}, resume=False)

    async def interrupted() -> None:
        done = 0
        with anyio.CancelScope() as scope:
            def stop_after_three(_record: object) -> None:
                nonlocal done
                done += 1
                if done == 3:
                    scope.cancel()
            await run_suite(tasks, ReferenceAgent(), store, concurrency=1, on_done=stop_after_three)

    anyio.run(interrupted)
    first = {r.task_id for r in store.records()}
    assert len(first) == 3
    stamps = dict(sqlite3.connect(tmp_path / "run.sqlite").execute("SELECT task_id, finished_at FROM episodes"))

    store.begin({"suite": "persona", "agent": "reference"}, resume=True)
    ran = anyio.run(lambda: run_suite(tasks, ReferenceAgent(), store, concurrency=2))
    assert ran == len(tasks) - 3
    rows = sqlite3.connect(tmp_path / "run.sqlite").execute("SELECT task_id, finished_at FROM episodes").fetchall()
    assert sorted(r[0] for r in rows) == sorted(t.id for t in tasks)
    for task_id, stamp in rows:
        if task_id in stamps:
            assert stamp == stamps[task_id]  # finished episodes were not redone


def test_concurrent_episodes_have_isolated_state() -> None:
    """The same writing task run many times at once: every episode sees a fresh context."""
    task = next(t for t in load_tasks("persona") if t.id == "lark_007")

    async def many() -> list:
        results: list = []

        async def one() -> None:
            results.append(await run_episode(task, ReferenceAgent()))

        async with anyio.create_task_group() as tg:
            for _ in range(6):
                tg.start_soon(one)
        return results

    for record in anyio.run(many):
        assert record.score is not None and record.score.detail["exec_acc"] == 1.0
        assert record.score.detail["collateral"] == []


def test_noop_episode_leaves_state_untouched() -> None:
    task = load_tasks("persona")[0]
    record = anyio.run(lambda: run_episode(task, NoopAgent()))
    assert record.score is not None
    assert record.score.detail["collateral"] == []
    assert record.trajectory.final_answer


def test_all_tools_pool_keeps_the_reference_perfect(tmp_path: Path) -> None:
    """With every server in the pool, untouched extra servers add tools but no collateral damage."""
    code, out = invoke("run", "--agent", "reference", "--tools", "all", "--limit", "3", "--run-dir",
                       str(tmp_path / "all"))
    assert code == 0, out
    s = summary_of(tmp_path / "all")
    assert s["tools"] == "all"
    assert s["metrics"]["acc"] == 1.0 and s["metrics"]["collateral_rate"] == 0.0


def _task_file(tmp_path: Path, name: str, edit) -> Path:
    task = json.loads((Path(__file__).parents[1] / f"src/mcp_persona/data/tasks/persona/{name}.json").read_text())
    edit(task)
    f = tmp_path / f"{name}.json"
    f.write_text(json.dumps(task))
    return f


def test_validate_catches_a_wrong_gt_value(tmp_path: Path) -> None:
    def edit(t: dict) -> None:
        t["spec"]["checkpoints"][0]["gt_value"] = "ou_00000000000000000000000000000000"
        t["reference_answer"] += " ou_00000000000000000000000000000000"

    code, out = invoke("validate", "--suite", str(_task_file(tmp_path, "lark_001", edit)))
    assert code == 1 and "not in any gold tool output" in out


def test_validate_catches_an_unknowable_argument(tmp_path: Path) -> None:
    def edit(t: dict) -> None:  # drop the chat lookup: the chat id is now known to nobody
        t["gold"] = t["gold"][1:]

    code, out = invoke("validate", "--suite", str(_task_file(tmp_path, "lark_003", edit)))
    assert code == 1 and "'oc_ff2d3c425c8d99d19bdd0b6cc60d5d32' is not discoverable" in out


def test_validate_catches_a_gt_value_given_away_and_duplicates(tmp_path: Path) -> None:
    def edit(t: dict) -> None:
        t["instruction"] += " (That's the chat oc_ff2d3c425c8d99d19bdd0b6cc60d5d32.)"

    f = _task_file(tmp_path, "lark_003", edit)
    code, out = invoke("validate", "--suite", str(f))
    assert code == 1 and "already stated in the instruction" in out
    twin = json.loads(f.read_text())
    twin["id"] = "lark_003_copy"
    (tmp_path / "twin.json").write_text(json.dumps(twin))
    code, out = invoke("validate", "--suite", str(tmp_path))
    assert code == 1 and "same instruction and tool chain" in out


def test_trials_run_each_task_k_times_and_resume_per_trial(tmp_path: Path) -> None:
    run_dir = str(tmp_path / "t")
    code, out = invoke("run", "--agent", "reference", "--limit", "2", "--trials", "3", "--run-dir", run_dir)
    assert code == 0, out
    s = summary_of(tmp_path / "t")
    assert s["n_episodes"] == 6 and s["trials"] == 3 and s["pass_k"]["trials"] == 3
    assert s["pass_k"]["pass^3"] == 1.0 and s["pass_k"]["avg@3"] == 1.0
    rows = sqlite3.connect(tmp_path / "t" / "run.sqlite").execute("SELECT task_id, epoch FROM episodes").fetchall()
    assert sorted(e for _, e in rows) == [0, 0, 1, 1, 2, 2]


def test_tasks_filter_selects_by_glob(tmp_path: Path) -> None:
    code, out = invoke("run", "--agent", "noop", "--tasks", "lark_00[12],obsidian_005",
                       "--run-dir", str(tmp_path / "f"))
    assert code == 0, out
    assert sorted(e["task_id"] for e in summary_of(tmp_path / "f")["episodes"]) == ["lark_001", "lark_002",
                                                                                      "obsidian_005"]
    code, out = invoke("run", "--agent", "noop", "--tasks", "nothing_*", "--run-dir", str(tmp_path / "g"))
    assert code == 2 and "matches no task" in out


def test_agree_reports_kappa_against_human_labels(tmp_path: Path) -> None:
    run_dir = tmp_path / "n"
    assert invoke("run", "--agent", "noop", "--tasks", "lark_001,lark_002", "--run-dir", str(run_dir))[0] == 0
    # noop scores: lark_001 checkpoints 0,1,2 -> 0,0,0; lark_002 checkpoint 0 -> 0. Humans agree on 3 of 4.
    labels = tmp_path / "labels.csv"
    labels.write_text("id,label\nlark_001#0,0\nlark_001#1,0\nlark_001#2,1\nlark_002#0,0\n")
    code, out = invoke("agree", str(run_dir), "--labels", str(labels), "--json")
    assert code == 0, out
    report = json.loads(out)
    assert report["overall"]["n"] == 4 and report["overall"]["agreement"] == 0.75
    # the scorer gave one label only: expected agreement = 1 * 3/4, so kappa = (0.75 - 0.75) / (1 - 0.75) = 0
    assert report["overall"]["kappa"] == 0.0
    assert set(report["by_category"]) == {"collaboration"}
    bad = tmp_path / "bad.csv"
    bad.write_text("id\nx\n")
    code, out = invoke("agree", str(run_dir), "--labels", str(bad))
    assert code == 2
