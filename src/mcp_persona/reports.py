"""Summaries of a run: ``summary.json`` and the results table printed at the end."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from mcp_persona.runner import RunConfig
from mcp_persona.scoring import EpisodeScore, by_category, suite_metrics
from mcp_persona.scoring.metrics import trial_metrics
from mcp_persona.store import EpisodeRecord
from mcp_persona.tasks import OperateCheckpoint, Task


def episode_score(record: EpisodeRecord, task: Task) -> EpisodeScore:
    """An errored episode scores 0 (its operate checkpoints too): errors are failures, not gaps."""
    if record.status == "ok" and record.score is not None:
        return EpisodeScore(task.id, task.category, record.score["acc"], record.score["exec_acc"])
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
        "avg_elapsed_s": sum(t.elapsed_s for t in trajs) / n,
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
        "episodes": [
            {"task_id": s.task_id, "epoch": r.epoch, "category": s.category, "acc": s.acc, "exec_acc": s.exec_acc,
             "status": r.status, "stop_reason": r.trajectory.stop_reason, "error": r.error}
            for s, r in zip(scores, records, strict=True)
        ],
    }


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
    for col in ("category", "tasks", "Acc", "SR-0.8", "Exec-Acc"):
        table.add_column(col, justify="left" if col == "category" else "right")
    for cat, m in summary["by_category"].items():
        table.add_row(cat, str(m["n"]), _pct(m["acc"]), _pct(m["sr_0_8"]), _pct(m["exec_acc"]))
    m = summary["metrics"]
    table.add_row("overall", str(m["n"]), _pct(m["acc"]), _pct(m["sr_0_8"]), _pct(m["exec_acc"]), style="bold")
    console.print(table)
    console.print(
        f"tool calls/task {m['avg_tool_calls']:.1f} · tool errors {_pct(m['tool_error_rate'])}% · "
        f"output tokens/task {m['avg_output_tokens']:.0f} · collateral {_pct(m['collateral_rate'])}% · "
        f"errors {summary['n_errors']}"
    )
