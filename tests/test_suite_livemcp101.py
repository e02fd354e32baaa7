"""The livemcp101 suite: its shape (the paper's tiers, domains and plan lengths), its server universe, and a
replay of one task per tier through the validator (the full suite is ``mcp-persona validate --suite
livemcp101``)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path
from statistics import mean
from typing import Any

import anyio
import pytest
from typer.testing import CliRunner

import mcp_persona
from mcp_persona.apps import app_names, get_app
from mcp_persona.cli import app
from mcp_persona.protocols import load_tasks
from mcp_persona.protocols.persona.validate import check_task
from mcp_persona.store import RunStore
from mcp_persona.tasks import OperateCheckpoint, SearchCheckpoint

TASKS = load_tasks("livemcp101")
SUITE_DIR = Path(mcp_persona.__file__).parent / "data" / "tasks" / "livemcp101"
GENERATOR = Path(__file__).resolve().parents[1] / "scripts" / "livemcp101_tasks.py"
DOMAINS = {"travel_lifestyle", "leisure_entertainment", "finance_markets", "web_search_news", "knowledge_research",
           "software_development", "office", "mathematics"}


def test_tiers_domains_and_plan_lengths() -> None:
    tiers = Counter(t.spec.difficulty for t in TASKS)
    assert len(TASKS) >= 101 and tiers["easy"] >= 30 and tiers["medium"] >= 30 and tiers["hard"] >= 41
    assert {t.spec.category for t in TASKS} == DOMAINS
    assert all(t.suite == "livemcp101" for t in TASKS)
    calls = {t.id: len(t.gold_calls) for t in TASKS}
    assert mean(calls.values()) >= 5
    assert sum(n >= 12 for n in calls.values()) >= 5
    by_tier = {d: mean(calls[t.id] for t in TASKS if t.spec.difficulty == d) for d in ("easy", "medium", "hard")}
    assert by_tier["easy"] < by_tier["medium"] < by_tier["hard"]
    # most tasks combine servers, and the hard ones all look up, compute and write
    assert sum(len(t.servers) > 1 for t in TASKS) >= 60
    for t in TASKS:
        if t.spec.difficulty == "hard":
            assert any(isinstance(c, OperateCheckpoint) for c in t.spec.checkpoints), t.id
            assert any(isinstance(c, SearchCheckpoint) for c in t.spec.checkpoints), t.id


def test_written_files_and_sheets_are_checked_for_facts() -> None:
    for t in TASKS:
        for c in t.spec.checkpoints:
            if isinstance(c, OperateCheckpoint) and c.server == "filesystem":
                # a value, the facts of one line in any layout, a value beside its subject or under its heading, a
                # claim, or several such facts (or alternatives of them): never the gold file's sentence
                assert set(c.expect["content"]) <= {"$contains", "$line", "$all", "$in"}
                assert c.expect["path"].startswith("/home/user/")
                assert _operators(c.expect["content"]) <= {"$contains", "$line", "$all", "$in", "$beside", "$section",
                                                           "$claim"}, t.id
                sentence = str(c.expect["content"].get("$contains", ""))  # no table row, label or "city: time"
                assert not re.match(r"\| |\w+: [A-Z]|[\w/]+: \d\d:\d\d|stay \$", sentence), (t.id, sentence)
            if isinstance(c, OperateCheckpoint) and c.server == "excel":
                assert any(k.startswith("cells") for k in c.expect), t.id


def _operators(expect: object) -> set[str]:
    if isinstance(expect, dict):
        return {k for k in expect if k.startswith("$")} | {o for v in expect.values() for o in _operators(v)}
    if isinstance(expect, list):
        return {o for v in expect for o in _operators(v)}
    return set()


def test_the_protocol_universe_has_41_servers_and_260_tools() -> None:
    assert len(app_names()) >= 41
    assert sum(len(get_app(a).tool_names) for a in app_names()) >= 260


def test_tasks_json_lists_difficulty() -> None:
    result = CliRunner().invoke(app, ["tasks", "--suite", "livemcp101", "--json"])
    assert result.exit_code == 0, result.output
    rows = json.loads(result.output)
    assert Counter(r["difficulty"] for r in rows) == Counter(t.spec.difficulty for t in TASKS)


@pytest.mark.parametrize("task_id", ["finance_easy_01", "office_medium_01", "travel_hard_01"])
def test_one_task_per_tier_replays_cleanly(task_id: str) -> None:
    task = next(t for t in TASKS if t.id == task_id)
    assert anyio.run(check_task, task) == []



def _generate(out: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(GENERATOR), str(out)], capture_output=True, text=True, timeout=300)


@pytest.mark.slow
def test_the_generator_reproduces_every_committed_task_file(tmp_path: Path) -> None:
    # the templates are the source of the task files: a hand edit of the JSON (or a template change left
    # unregenerated) shows up here as the files that differ
    out = tmp_path / "livemcp101"
    done = _generate(out)
    assert done.returncode == 0, done.stderr
    written = {f.name: f.read_bytes() for f in out.iterdir()}
    committed = {f.name: f.read_bytes() for f in SUITE_DIR.iterdir()}
    assert sorted(written) == sorted(committed)
    assert len(written) == len(TASKS) + 1  # and suite.json
    assert sorted(n for n in committed if written[n] != committed[n]) == []


@pytest.mark.slow
def test_the_generator_clears_only_a_suite_folder(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("mine", encoding="utf-8")
    done = _generate(tmp_path)
    assert done.returncode != 0 and "holds no livemcp101 suite" in done.stderr
    assert [f.name for f in tmp_path.iterdir()] == ["notes.txt"]


# -- the protocol ------------------------------------------------------------------------------------------
def test_pool_holds_the_task_servers_and_a_seeded_draw() -> None:
    from mcp_persona.protocols import get_protocol
    from mcp_persona.protocols.livemcp101 import draw_pool

    proto = get_protocol("livemcp101")
    task = next(t for t in TASKS if t.id == "travel_hard_01")
    spec = proto.pool(task, {}, "selected")
    assert len(spec.servers) == 15 and spec.servers[:len(task.servers)] == task.server_names
    assert len(set(spec.servers)) == 15 and not any(get_app(s).library for s in spec.servers)
    assert spec.description["servers"] == spec.servers == proto.pool(task, {}, "selected").servers
    assert draw_pool(task, 10) == proto.pool(task, {"pool_size": 10}, "selected").servers
    other = next(t for t in TASKS if t.id == "travel_hard_02")
    assert proto.pool(other, {}, "selected").servers[len(other.servers):] != spec.servers[len(task.servers):]
    with pytest.raises(ValueError, match="--pool-size"):
        proto.settings({"pool_size": 0})
    assert proto.max_rounds == 30


def test_result_score_is_the_five_point_scale() -> None:
    from mcp_persona.protocols.livemcp101 import result_score

    assert [result_score(a) for a in (0.0, 0.2, 0.25, 0.6, 0.74, 0.75, 0.99, 1.0)] == [
        0.0, 0.0, 0.25, 0.5, 0.5, 0.75, 0.75, 1.0]


@pytest.mark.parametrize("agent, tsr", [("reference", 1.0), ("noop", 0.0)])
def test_run_summary_reports_tsr_ars_by_difficulty(tmp_path, agent: str, tsr: float) -> None:
    result = CliRunner().invoke(app, ["run", "--suite", "livemcp101", "--agent", agent, "--tasks",
                                      "finance_easy_01,office_medium_01,news_hard_01", "--pool-size", "8",
                                      "--run-dir", str(tmp_path)])
    assert result.exit_code == 0, result.output
    s = json.loads((tmp_path / "summary.json").read_text())
    assert s["suite"] == "livemcp101" and s["n_tasks"] == 3 and s["max_rounds"] == 30
    assert s["metrics"]["tsr"] == tsr and s["metrics"]["ars"] == tsr and s["metrics"]["ats"] is None
    assert {d: m["n"] for d, m in s["by_difficulty"].items()} == {"easy": 1, "medium": 1, "hard": 1}
    assert all(len(e["pool"]) == 8 for e in s["episodes"])
    assert s["failure_modes"]["failed"] == (0 if agent == "reference" else 3)
    # every episode keeps the reference execution that ran beside it, and the strict pass used its end state
    store = RunStore(tmp_path)
    records = store.records()
    store.close()
    assert s["n_reference_errors"] == 0 and len(records) == 3
    for r in records:
        task = next(t for t in TASKS if t.id == r.task_id)
        assert r.reference is not None and r.reference.status == "ok"
        assert r.reference.trajectory.final_answer == task.reference_answer
        assert len(r.reference.trajectory.tool_calls) == len(task.gold_calls)
        assert r.score is not None and r.score.detail["end_state"]["source"] == "reference run"
        assert r.score.detail["end_state"]["equivalent"] == (agent == "reference" or not r.reference.diff)
    again = CliRunner().invoke(app, ["run", "--suite", "livemcp101", "--agent", agent, "--tasks",
                                     "finance_easy_01,office_medium_01,news_hard_01", "--pool-size", "8",
                                     "--run-dir", str(tmp_path), "--resume"])
    assert again.exit_code == 0, again.output
    assert json.loads((tmp_path / "summary.json").read_text())["metrics"] == s["metrics"]


# -- the judges and the rule result score on hand-made episodes ---------------------------------------------
class _Judge:
    """A judge endpoint that answers every request with one fixed text."""

    name = "judge-model"

    def __init__(self, reply: str) -> None:
        self.reply = reply

    async def complete(self, messages: list[dict], tools: list[dict]) -> object:
        from mcp_persona.llm.base import ChatResponse

        return ChatResponse(content=self.reply)


def _episode(task_id: str, drop_last_step: bool = False, judge: str | None = None):
    from mcp_persona.mutants import ReplayAgent, gold_plan
    from mcp_persona.protocols import get_protocol
    from mcp_persona.runner import Judging, run_episode

    proto = get_protocol("livemcp101")
    task = next(t for t in TASKS if t.id == task_id)
    plan = gold_plan(task)
    if drop_last_step:
        plan = tuple(p for p in plan if p.label[0] < len(task.gold) - 1)
    judging = Judging.with_client(_Judge(judge)) if judge is not None else None  # type: ignore[arg-type]
    return anyio.run(lambda: run_episode(task, ReplayAgent(plan), protocol=proto, judging=judging))


def test_rule_result_score_drops_with_a_missing_step() -> None:
    full = _episode("office_medium_01")
    partial = _episode("office_medium_01", drop_last_step=True)
    assert full.score.detail["result_score"] == 1.0 and full.score.detail["result_source"] == "rules"
    assert partial.score.detail["result_score"] < 1.0
    assert full.score.detail["reference"]["changes"]  # the reference execution's end state is kept with the episode


def _base(**kw: Any) -> dict[str, Any]:
    return {"acc": 1.0, "answer_blind_acc": 1.0, "ungrounded": [], "answer_dump": False, "collateral": [],
            "end_state": {"equivalent": True}} | kw


@pytest.mark.parametrize(("score", "expected"), [
    (_base(), 1.0),
    (_base(acc=0.8), 0.75),
    # the answer guesses (or knew) its values: scored as if it said nothing, never complete
    (_base(ungrounded=["265"], answer_blind_acc=0.0), 0.0),
    (_base(ungrounded=["265"], answer_blind_acc=1.0), 0.75),
    # a paste of the outputs: values retrieved but not reported are worth half each
    (_base(answer_dump=True, answer_blind_acc=0.5), 0.5),
    # every checkpoint sees what it looks for, but the state is not the reference's
    (_base(collateral=["filesystem:/notes/a.md"]), 0.75),
    (_base(end_state={"equivalent": False}), 0.75),
    (_base(acc=0.5, collateral=["x"]), 0.5),
])
def test_rule_result_score_by_hand(score: dict[str, Any], expected: float) -> None:
    from mcp_persona.protocols.livemcp101 import rule_result_score

    assert rule_result_score(score) == expected


def _sloppy(task_id: str, *, answer_only: bool = False, paste: bool = False, twice: bool = False):
    from mcp_persona.mutants import ReplayAgent, gold_plan
    from mcp_persona.protocols import get_protocol
    from mcp_persona.runner import run_episode

    task = next(t for t in TASKS if t.id == task_id)
    plan = () if answer_only else gold_plan(task)
    if twice:
        plan = tuple(x for p in plan for x in (p, p))
    agent = ReplayAgent(plan, paste_outputs=paste)
    return anyio.run(lambda: run_episode(task, agent, protocol=get_protocol("livemcp101"))).score.detail


def test_an_answer_without_the_work_or_a_paste_is_no_result() -> None:
    """The reference answer with no tool call has every value the checkpoints look for (Acc 1); the rules'
    result score is 0 all the same: nothing was found. A paste of every output is not a complete result."""
    guessed = _sloppy("finance_easy_01", answer_only=True)
    assert guessed["acc"] == 1.0 and guessed["ungrounded"]
    assert guessed["answer_blind_acc"] == 0.0 and guessed["result_score"] == 0.0
    pasted = _sloppy("finance_easy_01", paste=True)
    # the outputs hold every value, but make no claim of which day gives more: the comparison's check fails
    assert pasted["acc"] == 0.5 and pasted["answer_dump"]
    assert pasted["answer_blind_acc"] == 0.25 and pasted["result_score"] <= 0.5  # retrieved, never reported
    assert _sloppy("finance_easy_01")["result_score"] == 1.0


def test_a_second_issue_is_not_the_result_asked_for() -> None:
    task = next(t for t in TASKS if any(c.tool == "create_issue" for s in t.gold for c in s.calls))
    doubled = _sloppy(task.id, twice=True)
    assert doubled["acc"] == 1.0 and doubled["result_score"] == 0.75 and not doubled["strict"]


def test_likert_judges_score_result_and_trajectory_and_agreement_is_reported() -> None:
    from mcp_persona.protocols import get_protocol
    from mcp_persona.runner import RunConfig

    record = _episode("office_medium_01", judge='{"likert": 4, "feedback": "one figure is rounded"}')
    s = record.score.detail
    assert s["rule_result_score"] == 1.0 and s["judge_result_score"] == 0.75
    assert s["result_score"] == 0.75 and s["result_source"] == "judge" and s["trajectory_score"] == 0.75
    assert {v["judge"] for v in record.verdicts} >= {"likert_result", "likert_trajectory"}
    proto = get_protocol("livemcp101")
    task = next(t for t in TASKS if t.id == "office_medium_01")
    summary = proto.summarize(RunConfig(suite="livemcp101", agent="reference", model=None, protocol="livemcp101"),
                              [task], [record])
    assert summary["metrics"]["tsr"] == 0.0 and summary["metrics"]["ars"] == 0.75
    assert summary["metrics"]["ats"] == 0.75
    assert summary["metrics"]["result_agreement"]["n"] == 1
    assert summary["metrics"]["result_agreement"]["percent"] == 0.0


def test_an_unparseable_verdict_keeps_the_rule_score_and_is_never_guessed() -> None:
    record = _episode("office_medium_01", judge="Looks great, 5/5!")
    s = record.score.detail
    assert s["result_score"] == 1.0 and s["result_source"] == "rules (judge unparseable)"
    assert s["judge_result_score"] is None and s["trajectory_score"] is None
