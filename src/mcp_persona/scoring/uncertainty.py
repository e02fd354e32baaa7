"""How sure a score is: bootstrap confidence intervals and flip rates across trials.

Every headline metric of every protocol is a weighted mean over episodes, ``sum(w * v) / sum(w)``: a plain
mean (Acc, ARS) has weight 1, a share (SR-0.8, strict, TSR, success) a 0/1 value, a mean over the episodes a
metric applies to (Exec-Acc over tasks with operate checkpoints, ATS over judged episodes) weight 0
elsewhere, and MCPAgentBench's TFS weighs a task by its gold calls. A protocol says, per episode, the
(value, weight) of each of its metrics; everything here works on that alone.

The interval is a percentile bootstrap: resample the tasks with replacement and, when a task was run more than
once, its trials within it (two-stage, so that both the choice of tasks and the noise between identical runs
count), recompute the metric, and take the 2.5th and 97.5th percentiles. Seeded: the same run always prints
the same interval. A task *flips* on a metric when its trials do not all score the same.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

LEVEL = 0.95
RESAMPLES = 2000
SEED = 0

Observation = tuple[float, float]  # (value, weight) of one metric in one episode


def bootstrap_interval(by_task: Sequence[Sequence[Observation]], *, resamples: int = RESAMPLES, seed: int = SEED,
                       level: float = LEVEL) -> tuple[float, float] | None:
    """The ``level`` percentile-bootstrap interval of ``sum(w * v) / sum(w)``; ``by_task`` holds each task's
    trials. None when no episode has weight (the metric applies to none)."""
    return _intervals({"m": by_task}, resamples=resamples, seed=seed, level=level)["m"]


def _intervals(metrics: Mapping[str, Sequence[Sequence[Observation]]], *, resamples: int, seed: int,
               level: float) -> dict[str, tuple[float, float] | None]:
    """Every metric's interval over the same resamples (the metrics of one run share the tasks drawn)."""
    if resamples < 1:
        raise ValueError(f"resamples must be >= 1, got {resamples}")
    if not 0 < level < 1:
        raise ValueError(f"level must be between 0 and 1, got {level}")
    first = next(iter(metrics.values()), [])
    trials = np.array([len(t) for t in first], dtype=np.int64)
    if any(len(t) != len(first) or [len(x) for x in t] != trials.tolist() for t in metrics.values()):
        raise ValueError("every metric needs the same tasks and trials")
    if not len(trials) or (trials < 1).any():
        return dict.fromkeys(metrics)
    rng = np.random.default_rng(seed)
    n_tasks, most = len(trials), int(trials.max())
    tasks = rng.integers(0, n_tasks, size=(resamples, n_tasks))  # stage 1: the tasks drawn
    picked = trials[tasks]
    # stage 2: within each drawn task, as many trials as it has, drawn from its own (padding weighs nothing)
    runs = np.floor(rng.random((resamples, n_tasks, most)) * picked[..., None]).astype(np.int64)
    used = np.arange(most)[None, None, :] < picked[..., None]
    out: dict[str, tuple[float, float] | None] = {}
    tail = 100 * (1 - level) / 2
    for key, by_task in metrics.items():
        values = np.zeros((n_tasks, most))
        weights = np.zeros((n_tasks, most))
        for i, task in enumerate(by_task):
            for j, (v, w) in enumerate(task):
                values[i, j], weights[i, j] = v, w
        if not weights.sum():
            out[key] = None
            continue
        w = weights[tasks[..., None], runs] * used
        total = w.sum(axis=(1, 2))
        stats = (values[tasks[..., None], runs] * w).sum(axis=(1, 2))[total > 0] / total[total > 0]
        low, high = np.percentile(stats, [tail, 100 - tail])
        out[key] = (float(low), float(high))
    return out


def flipped(by_task: Mapping[str, Sequence[Observation]]) -> tuple[list[str], int]:
    """Tasks whose trials (those the metric applies to) do not all score the same, and how many tasks had two
    or more such trials."""
    out, counted = [], 0
    for task_id, trials in by_task.items():
        values = [v for v, w in trials if w]
        if len(values) >= 2:
            counted += 1
            if max(values) - min(values) > 1e-9:
                out.append(task_id)
    return sorted(out), counted


def uncertainty(rows: Sequence[Mapping[str, Any]], values: Callable[[Mapping[str, Any]], Mapping[str, Observation]],
                keys: Sequence[str], *, resamples: int = RESAMPLES, seed: int = SEED,
                level: float = LEVEL) -> dict[str, Any]:
    """The ``uncertainty`` block of a run summary: each metric of ``keys`` with its interval, and when a task
    was run more than once, each metric's flip rate (share of tasks whose trials disagree) and, for the first
    (primary) metric, the tasks that flipped.

    ``rows`` are the summary's episode rows (``task_id`` each); ``values(row)`` gives each metric's (value,
    weight) in that episode."""
    by_task: dict[str, list[Mapping[str, Observation]]] = {}
    for row in rows:
        by_task.setdefault(str(row["task_id"]), []).append(values(row))
    per_metric = {k: [[obs[k] for obs in trials] for trials in by_task.values()] for k in keys}
    bounds = _intervals(per_metric, resamples=resamples, seed=seed, level=level)
    trials = max((len(t) for t in by_task.values()), default=0)
    out: dict[str, Any] = {
        "level": level, "resamples": resamples, "seed": seed,
        "resampled": "tasks, then trials within a task" if trials > 1 else "tasks",
        "n_tasks": len(by_task), "trials": trials,
        "intervals": {k: None if b is None else [b[0], b[1]] for k, b in bounds.items()},
    }
    if trials > 1:
        rates: dict[str, float | None] = {}
        for i, k in enumerate(keys):
            tasks, counted = flipped({t: [obs[k] for obs in tr] for t, tr in by_task.items()})
            rates[k] = len(tasks) / counted if counted else None
            if i == 0:
                out["flipped"] = tasks
        out["flip_rate"] = rates
    return out


__all__ = ["LEVEL", "RESAMPLES", "SEED", "Observation", "bootstrap_interval", "flipped", "uncertainty"]
