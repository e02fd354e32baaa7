"""Summaries of a run: ``summary.json`` and the results table printed at the end."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from mcp_persona.judges.failures import FailureClassification, classify_failure, count_failure_modes, is_failed
from mcp_persona.runner import RunConfig
from mcp_persona.scoring import EpisodeScore, by_category, suite_metrics
from mcp_persona.scoring.metrics import trial_metrics
from mcp_persona.store import EpisodeRecord
from mcp_persona.tasks import OperateCheckpoint, Task
from mcp_persona.trajectory import Trajectory


def episode_score(record: EpisodeRecord, task: Task) -> EpisodeScore:
    """An errored episode scores 0 (its operate checkpoints too): errors are failures, not gaps."""
    if record.status == "ok" and record.score is not None:
        return EpisodeScore(task.id, task.category, record.score["acc"], record.score["exec_acc"],
                            bool(record.score.get("strict")))
    has_ops = any(isinstance(c, OperateCheckpoint) for c in task.checkpoints)
    return EpisodeScore(task.id, task.category, 0.0, 0.0 if has_ops else None)


def build_summary(config: RunConfig, tasks: Sequence[Task], records: Sequence[EpisodeRecord]) -> dict[str, Any]:
    by_id = {t.id: t for t in tasks}
    records = [r for r in records if r.task_id in by_id]
    scores = [episode_score(r, by_id[r.task_id]) for r in records]
    metrics = suite_metrics(scores)
    n = len(records) or 1
    trajs = [r.trajectory for r in records]
    tool_calls = [len(t.tool_calls) for t in trajs]
    metrics |= {
        "avg_tool_calls": sum(tool_calls) / n,
        "tool_error_rate": (sum(sum(e.is_error for e in t.tool_calls) for t in trajs) / sum(tool_calls))
        if sum(tool_calls) else 0.0,
        "avg_rounds": sum(t.rounds for t in trajs) / n,
        "avg_input_tokens": sum(t.usage.input_tokens for t in trajs) / n,
        "avg_output_tokens": sum(t.usage.output_tokens for t in trajs) / n,
        "collateral_rate": sum(1 for r in records if r.score and r.score["collateral"]) / n,
        "n_undecided_checkpoints": sum(undecided(r) for r in records),
        "avg_elapsed_s": sum(t.elapsed_s for t in trajs) / n,
        **tool_def_stats(trajs),
    }
    return {
        **config.to_dict(),
        "n_tasks": len(tasks),
        "n_episodes": len(records),
        "n_errors": sum(1 for r in records if r.status == "error"),
        "n_internal_errors": sum(len(r.internal_errors) for r in records),
        "metrics": metrics,
        "by_category": by_category(scores),
        "pass_k": trial_metrics(scores),
        "judge": judge_stats(config, records),
        "failure_modes": failure_modes(records, by_id),
        "episodes": [
            {"task_id": s.task_id, "epoch": r.epoch, "category": s.category, "acc": s.acc, "exec_acc": s.exec_acc,
             "strict": s.strict, "undecided": undecided(r), "status": r.status,
             "stop_reason": r.trajectory.stop_reason, "error": r.error}
            for s, r in zip(scores, records, strict=True)
        ],
    }


def tool_def_stats(trajs: Sequence[Trajectory]) -> dict[str, float]:
    """What the tool definitions cost per model request (mean over requests, and the largest)."""
    per_request = [(t.tool_def_chars, t.tool_def_tokens) for t in trajs for _ in t.model_calls]
    n = len(per_request) or 1
    return {
        "tool_def_chars_per_request": sum(c for c, _ in per_request) / n,
        "tool_def_tokens_per_request": sum(k for _, k in per_request) / n,
        "tool_def_tokens_max": max((k for _, k in per_request), default=0),
    }


def undecided(record: EpisodeRecord) -> int:
    """Checkpoints the rules could not decide and no judge decided (they never count as passed)."""
    return sum(1 for c in (record.score or {}).get("checkpoints", []) if c["score"] is None)


def judge_stats(config: RunConfig, records: Sequence[EpisodeRecord]) -> dict[str, Any]:
    """How the LLM judge fared: verdicts used, unparseable (never guessed), errored, retried; tokens."""
    verdicts = [v for r in records for v in r.verdicts]
    usage = [v.get("usage") or {} for v in verdicts]
    costs = [v.get("cost_usd") for v in verdicts]
    return {
        "spec": config.judge,
        "policy": config.judge_policy,
        "n_verdicts": len(verdicts),
        "n_ok": sum(1 for v in verdicts if v.get("status") == "ok"),
        "n_unparseable": sum(1 for v in verdicts if v.get("status") == "unparseable"),
        "n_errors": sum(1 for v in verdicts if v.get("status") == "error"),
        "n_retried": sum(1 for v in verdicts if v.get("status") == "ok" and len(v.get("attempts") or []) > 1),
        "input_tokens": sum(u.get("input_tokens", 0) for u in usage),
        "output_tokens": sum(u.get("output_tokens", 0) for u in usage),
        "cost_usd": sum(c for c in costs if c is not None) if any(c is not None for c in costs) else None,
    }


def failure_modes(records: Sequence[EpisodeRecord], tasks: dict[str, Task]) -> dict[str, int]:
    """LiveMCP-101's failure modes over the failed episodes (stored diagnoses; rules for older records)."""
    found = []
    for r in records:
        if r.status != "ok" or not is_failed(r.score):
            continue
        if r.failure is not None:
            found.append(FailureClassification(r.failure.get("mode"), r.failure.get("source", "rules"),
                                               r.failure.get("evidence") or []))
        else:
            assert r.score is not None
            found.append(classify_failure(tasks[r.task_id], r.trajectory, r.score))
    return count_failure_modes(found)


def write_summary(run_dir: Path, summary: dict[str, Any]) -> Path:
    path = run_dir / "summary.json"
    path.write_text(json.dumps(summary, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return path


def _pct(v: float | None) -> str:
    return "-" if v is None else f"{100 * v:.1f}"


def print_summary(summary: dict[str, Any], console: Console | None = None) -> None:
    console = console or Console()
    table = Table(title=f"{summary['suite']} · agent={summary['agent']} · model={summary['model'] or '-'} · "
                        f"tools={summary['tools']}")
    for col in ("category", "tasks", "Acc", "SR-0.8", "Exec-Acc", "Strict"):
        table.add_column(col, justify="left" if col == "category" else "right")
    for cat, m in summary["by_category"].items():
        table.add_row(cat, str(m["n"]), _pct(m["acc"]), _pct(m["sr_0_8"]), _pct(m["exec_acc"]), _pct(m["strict_sr"]))
    m = summary["metrics"]
    table.add_row("overall", str(m["n"]), _pct(m["acc"]), _pct(m["sr_0_8"]), _pct(m["exec_acc"]),
                  _pct(m["strict_sr"]), style="bold")
    console.print(table)
    console.print(
        f"tool calls/task {m['avg_tool_calls']:.1f} · tool errors {_pct(m['tool_error_rate'])}% · "
        f"output tokens/task {m['avg_output_tokens']:.0f} · collateral {_pct(m['collateral_rate'])}% · "
        f"errors {summary['n_errors']}"
    )
    judge = summary.get("judge") or {}
    if judge.get("n_verdicts"):
        console.print(f"judge {judge['spec']}: {judge['n_ok']}/{judge['n_verdicts']} verdicts used, "
                      f"{judge['n_unparseable']} unparseable, {judge['n_errors']} errored")
