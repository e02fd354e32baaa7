"""Suite-level metrics of MCP-Persona: Acc, SR-0.8 and Exec-Acc, overall and per category."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

SR_THRESHOLD = 0.8


@dataclass(frozen=True)
class EpisodeScore:
    task_id: str
    category: str
    acc: float
    exec_acc: float | None  # None: the task has no operate checkpoint


def suite_metrics(episodes: Sequence[EpisodeScore]) -> dict[str, Any]:
    """``acc`` = mean task Acc; ``sr_0_8`` = share of tasks with Acc > 0.8 (strictly, as in the
    paper); ``exec_acc`` = mean task Exec-Acc over the tasks that have operate checkpoints."""
    n = len(episodes)
    execs = [e.exec_acc for e in episodes if e.exec_acc is not None]
    return {
        "n": n,
        "acc": sum(e.acc for e in episodes) / n if n else 0.0,
        "sr_0_8": sum(1 for e in episodes if e.acc > SR_THRESHOLD) / n if n else 0.0,
        "exec_acc": sum(execs) / len(execs) if execs else None,
        "n_exec": len(execs),
    }


def by_category(episodes: Sequence[EpisodeScore]) -> dict[str, dict[str, Any]]:
    groups: dict[str, list[EpisodeScore]] = defaultdict(list)
    for e in episodes:
        groups[e.category].append(e)
    return {cat: suite_metrics(items) for cat, items in sorted(groups.items())}
