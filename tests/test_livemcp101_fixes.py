"""LiveMCP-101 scoring and reporting: the failure heatmap's ``correct`` column by each protocol's own verdict,
unparseable judge verdicts counted and said, and the result judge's tolerance for values read moments apart."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import anyio
import pytest
from rich.console import Console

from mcp_persona.agents import Agent, NoopAgent
from mcp_persona.llm.base import ChatResponse
from mcp_persona.mutants import ReplayAgent, gold_plan
from mcp_persona.protocols import get_protocol, load_tasks
from mcp_persona.protocols.livemcp101.judges import (
    RESULT_SYSTEM,
    RESULT_VERSION,
    VALUE_TOLERANCE,
    LikertResultJudge,
)
from mcp_persona.report.load import load_runs
from mcp_persona.report.summary import build_summary, print_summary, write_summary
from mcp_persona.run_config import Judging, RunConfig
from mcp_persona.runner import run_episode, run_suite
from mcp_persona.store import EpisodeRecord, RunStore
from mcp_persona.tasks import Task
from mcp_persona.trajectory import Trajectory

LIVE = {t.id: t for t in load_tasks("livemcp101")}


def drop_last(task: Task) -> ReplayAgent:
    """The gold chain without its last step (the answer is still the reference's)."""
    return ReplayAgent(tuple(p for p in gold_plan(task) if p.label[0] < len(task.gold) - 1))


def make_run(path: Path, suite: str, tasks: Sequence[Task], agent: Callable[[Task], Agent], label: str) -> Path:
    """A finished run folder (store and summary.json) of ``agent(task)`` on each of ``tasks``."""
    protocol = get_protocol(suite)
    config = RunConfig(suite=suite, agent=label, model=None, protocol=suite,
                       max_rounds=protocol.max_rounds)
    store = RunStore(path)
    store.begin(config.to_dict(), resume=False)
    try:
        for task in tasks:
            anyio.run(lambda t=task: run_suite([t], agent(t), store, protocol=protocol))  # type: ignore[misc]
        write_summary(path, build_summary(config, list(tasks), store.records()))
    finally:
        store.close()
    return path


# -- 1. the heatmap's "correct": each protocol's own pass ------------------------------------------------------
def test_livemcp101_correct_is_the_task_success_not_acc(tmp_path: Path) -> None:
    """Drop the last step and keep the reference answer: every checkpoint sees its value (Acc 1), yet the result is
    short of complete (TSR 0) on two of the three tasks: only one episode is correct."""
    from mcp_persona.cli.report import correct, failure_counts

    tasks = [LIVE["finance_easy_01"], LIVE["finance_medium_01"], LIVE["leisure_medium_01"]]
    make_run(tmp_path / "drop", "livemcp101", tasks, drop_last, "drop-last")
    (run,) = load_runs([tmp_path / "drop"])
    rows = {e["task_id"]: e for e in run.summary["episodes"]}
    assert all(e.acc == 1.0 for e in run.episodes)  # what the old count read as "all correct"
    assert [rows[t.id]["result_score"] == 1.0 for t in tasks] == [False, False, True]
    assert run.metrics["tsr"] == pytest.approx(1 / 3)
    assert correct(run) == 1
    # the failure analysis covers the same failures: the two episodes short of TSR
    assert run.summary["failure_modes"]["failed"] == 2
    counts = failure_counts([run])
    assert counts is not None and counts[run.label]["correct"] == 1
    assert counts[run.label]["overconfident_self_solving"] == 1  # finance_easy_01: no call left, an answer


def test_each_protocol_decides_its_own_correct_in_a_combined_report(tmp_path: Path) -> None:
    """MCPAgentBench has no failure modes: its episodes were all "correct" (scored and not failed), a noop run's
    too. Its own verdict (a finished task) decides now, beside a LiveMCP-101 run's TSR."""
    from mcp_persona.cli.report import correct, failure_counts

    mab = [t for t in load_tasks("mcpagentbench") if t.id == "day_parallel_01"]
    make_run(tmp_path / "mab-noop", "mcpagentbench", mab, lambda t: NoopAgent(), "noop")
    make_run(tmp_path / "mab-ref", "mcpagentbench", mab, lambda t: ReplayAgent(gold_plan(t)), "replay")
    make_run(tmp_path / "live-noop", "livemcp101", [LIVE["finance_easy_01"]], lambda t: NoopAgent(), "noop")
    runs = load_runs([tmp_path / "mab-noop", tmp_path / "mab-ref", tmp_path / "live-noop"])
    mab_noop, mab_ref, live_noop = runs
    assert mab_noop.metrics["tfs"] == 0.0 and mab_ref.metrics["tfs"] == 1.0
    assert [correct(r) for r in runs] == [0, 1, 0]
    counts = failure_counts(runs)
    assert counts is not None
    assert counts[mab_noop.label] == {"correct": 0} and counts[mab_ref.label] == {"correct": 1}
    assert counts[live_noop.label]["correct"] == 0 and sum(counts[live_noop.label].values()) == 1


# -- 2. unparseable judge verdicts: recorded, counted, said ------------------------------------------------------
class ScriptedJudge:
    """A judge endpoint replying by which judge asks (its system prompt), in order for each; records the prompts."""

    name = "scripted-judge"

    def __init__(self, result: Sequence[str], trajectory: Sequence[str], other: str = "no idea") -> None:
        self.replies = {"result": list(result), "trajectory": list(trajectory)}
        self.other = other
        self.seen: list[list[dict[str, Any]]] = []

    async def complete(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> ChatResponse:
        self.seen.append(messages)
        system = messages[0]["content"]
        kind = ("result" if system.startswith("You rate how well an AI agent's final answer") else
                "trajectory" if system.startswith("You rate the quality of the tool-call trajectory") else None)
        queue = self.replies.get(kind or "", [])
        return ChatResponse(content=queue.pop(0) if queue else self.other)


def judged_episode(task: Task, agent: Agent, judge: ScriptedJudge) -> EpisodeRecord:
    judging = Judging.with_client(judge)  # type: ignore[arg-type]
    return anyio.run(lambda: run_episode(task, agent, protocol=get_protocol("livemcp101"), judging=judging))


def summarized(task: Task, records: list[EpisodeRecord]) -> dict[str, Any]:
    config = RunConfig(suite="livemcp101", agent="reference", model=None, protocol="livemcp101",
                       judge="scripted:judge")
    return build_summary(config, [task], records)


def printed(summary: dict[str, Any]) -> str:
    console = Console(record=True, width=250)
    print_summary(summary, console)
    return console.export_text()


def test_unparseable_verdicts_are_recorded_counted_and_printed() -> None:
    task = LIVE["office_medium_01"]
    judge = ScriptedJudge(result=["Looks great, 5/5!", "5"], trajectory=["The trajectory is fine. Score: 4", "4/5"])
    record = judged_episode(task, ReplayAgent(gold_plan(task)), judge)
    s = record.score.detail  # type: ignore[union-attr]
    # nothing guessed: the rule score stands and says why, the trajectory stays unscored
    assert s["result_score"] == s["rule_result_score"] == 1.0 and s["result_source"] == "rules (judge unparseable)"
    assert s["judge_result_score"] is None and s["trajectory_score"] is None
    assert s["judge_unparseable"] == 2
    kept = {v["judge"]: v for v in record.verdicts}
    assert kept["likert_result"]["status"] == kept["likert_trajectory"]["status"] == "unparseable"
    assert len(kept["likert_result"]["attempts"]) == 2  # both raw replies kept
    summary = summarized(task, [record])
    assert summary["judge_unparseable"] == 2
    assert summary["judge"]["n_unparseable"] == 2 and summary["judge"]["n_ok"] == 0
    assert summary["judge"]["by_judge"]["likert_result"]["unparseable"] == 1
    assert summary["judge"]["by_judge"]["likert_trajectory"]["unparseable"] == 1
    assert summary["metrics"]["ats"] is None and summary["metrics"]["tsr"] == 1.0
    text = printed(summary)
    assert "2 did not parse (likert_result 1, likert_trajectory 1)" in text
    assert "0/2 verdicts used" in text


def test_one_unparseable_verdict_beside_a_used_one_and_the_failure_judge() -> None:
    """A result verdict used and the trajectory's unparseable; then an episode short of TSR with every checkpoint
    met, whose failure-mode verdict does not parse: counted too (it was counted under failure_modes alone)."""
    ok = '{"likert": 5, "feedback": "same figures as the reference"}'
    task = LIVE["office_medium_01"]
    record = judged_episode(task, ReplayAgent(gold_plan(task)), ScriptedJudge(result=[ok], trajectory=["?", "?"]))
    assert record.score.detail["result_source"] == "judge"  # type: ignore[union-attr]
    assert record.score.detail["judge_unparseable"] == 1  # type: ignore[union-attr]
    short = LIVE["finance_medium_01"]
    poor = '{"likert": 2, "feedback": "the last figure is missing"}'
    failed = judged_episode(short, drop_last(short), ScriptedJudge(result=[poor], trajectory=[poor]))
    assert failed.score.detail["acc"] == 1.0 and failed.score.detail["result_score"] == 0.25  # type: ignore[union-attr]
    assert failed.failure is not None and failed.failure["verdict"]["status"] == "unparseable"
    config = RunConfig(suite="livemcp101", agent="x", model=None, protocol="livemcp101", judge="scripted:judge")
    summary = build_summary(config, [task, short], [record, failed])
    assert summary["failure_modes"]["failed"] == 1 and summary["failure_modes"]["judge_unparseable"] == 1
    assert summary["judge_unparseable"] == 2 == summary["judge"]["n_unparseable"]
    assert summary["judge"]["by_judge"]["failure_mode"] == {"n": 1, "ok": 0, "unparseable": 1, "error": 0}
    assert "2 did not parse (likert_trajectory 1, failure_mode 1)" in printed(summary)


def test_a_rules_only_run_prints_no_judge_line() -> None:
    task = LIVE["office_medium_01"]
    record = anyio.run(lambda: run_episode(task, ReplayAgent(gold_plan(task)), protocol=get_protocol("livemcp101")))
    summary = build_summary(RunConfig(suite="livemcp101", agent="reference", model=None, protocol="livemcp101"),
                            [task], [record])
    assert summary["judge_unparseable"] == 0 and summary["judge"]["n_verdicts"] == 0
    assert "did not parse" not in printed(summary)


# -- 3. the result judge's tolerance: at least the paper's ---------------------------------------------------
def test_the_result_judge_tolerates_the_papers_example() -> None:
    """The paper's judge takes $118 for a reference $120 (1.7% apart); the prompt states a 2% tolerance and that
    example, and a changed prompt has a new version."""
    assert VALUE_TOLERANCE >= 0.02 and abs(118 - 120) / 120 <= VALUE_TOLERANCE
    assert "up to 2% of the reference" in RESULT_SYSTEM and "1%" not in RESULT_SYSTEM
    assert "$118 where the reference says $120 matches" in RESULT_SYSTEM
    assert RESULT_VERSION == "likert-result/2"
    task = LIVE["finance_easy_01"]
    sent = LikertResultJudge(ScriptedJudge([], [])).messages(  # type: ignore[arg-type]
        task, Trajectory(task_id=task.id, agent="x", final_answer="$118"), reference_answer="$120")
    system = sent[0]["content"]
    assert "up to 2% of the reference" in system and "$118 where the reference says $120" in system
