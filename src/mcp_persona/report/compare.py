"""Two runs of one suite, task by task, on the suite protocol's primary metric.

Each run's episodes are scored again from its store by its protocol (so an unfinished run compares too), and
each task gets the protocol's primary metric (the first of ``report_columns``: Acc, TSR, TFS, success) as
the weighted mean over its trials. A task is a *regression* when B's primary score is lower than A's, or the
same with a status that went from ok to error; improvements are the mirror image. The run-level difference is
the paired one, ``sum(w * (b - a)) / sum(w)`` over the tasks both runs have, with a percentile-bootstrap 95 %
interval over those tasks (:mod:`mcp_persona.scoring.uncertainty`); every headline metric gets the same
paired difference and a verdict (better, worse, or no difference at 95 %). A task *flips* pass -> fail when A had
the full primary score and B has not (fail -> pass the other way round).

Runs of different suites or protocols are not compared (:class:`CompareError`); settings that change the
score (K, pool size, distractors, rounds, tools, skills, model settings...) are reported when they differ.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields
from typing import Any, Literal

from mcp_persona.report.load import Run
from mcp_persona.scoring.uncertainty import bootstrap_interval

Change = Literal["regression", "improvement", "unchanged", "only_a", "only_b"]
ORDER: dict[str, int] = {"regression": 0, "improvement": 1, "only_a": 2, "only_b": 3, "unchanged": 4}
EPS = 1e-9
# Run settings that change what a score means: a pair of runs that differ in one is flagged.
SETTINGS = ("tools", "max_rounds", "context_distractors", "skills", "trials", "judge", "judge_policy")
USAGE = ("avg_tool_calls", "tool_error_rate", "avg_input_tokens", "avg_output_tokens", "cost_usd")


class CompareError(ValueError):
    """Two runs that cannot be compared; the message says why."""


@dataclass(frozen=True)
class TaskSide:
    score: float | None  # the primary metric over the task's trials (None: it applies to no trial)
    weight: float  # the task's weight in the primary metric (mean over trials)
    status: str  # ok when every trial ended normally, else error
    trials: int
    values: dict[str, float | None]  # every headline metric over the task's trials


@dataclass(frozen=True)
class TaskDiff:
    task_id: str
    change: Change
    a: TaskSide | None
    b: TaskSide | None

    @property
    def delta(self) -> float | None:
        """B's primary score minus A's."""
        if self.a is None or self.b is None or self.a.score is None or self.b.score is None:
            return None
        return self.b.score - self.a.score

    def to_dict(self) -> dict[str, Any]:
        return {"task_id": self.task_id, "change": self.change, "a": asdict(self.a) if self.a else None,
                "b": asdict(self.b) if self.b else None, "delta": self.delta}


@dataclass(frozen=True)
class Comparison:
    a: Run
    b: Run
    primary: tuple[str, str]  # (label, metric key)
    tasks: list[TaskDiff]
    metrics_a: dict[str, Any]
    metrics_b: dict[str, Any]
    settings: list[str]  # settings that differ, "name: A vs B"

    def of(self, change: Change) -> list[TaskDiff]:
        return [t for t in self.tasks if t.change == change]

    @property
    def regressions(self) -> list[TaskDiff]:
        return self.of("regression")

    @property
    def improvements(self) -> list[TaskDiff]:
        return self.of("improvement")

    @property
    def paired(self) -> list[TaskDiff]:
        return [t for t in self.tasks if t.delta is not None]

    def difference(self) -> dict[str, Any]:
        """The paired difference of the primary metric (B - A) over the tasks both runs scored, and its interval."""
        pairs = [(t.delta, t.a.weight) for t in self.paired if t.a is not None and t.delta is not None]
        total = sum(w for _, w in pairs)
        interval = bootstrap_interval([[(d, w)] for d, w in pairs])
        return {"metric": self.primary[1], "n_tasks": len(pairs),
                "delta": sum(d * w for d, w in pairs) / total if total else None,
                "ci95": None if interval is None else list(interval)}

    def differences(self) -> dict[str, dict[str, Any]]:
        """Every headline metric's paired difference (B - A) over the tasks both runs scored on it, each task
        weighted as in the primary metric, with its 95 % interval and the verdict it supports: ``better`` when
        the whole interval is above 0, ``worse`` when below, ``no difference`` when it holds 0, ``unknown``
        when there is no interval (fewer than two tasks)."""
        out = {}
        for label, key, _ in self.a.columns:
            pairs = [(b - a, t.a.weight) for t in self.tasks if t.a is not None and t.b is not None
                     and (a := t.a.values.get(key)) is not None and (b := t.b.values.get(key)) is not None]
            total = sum(w for _, w in pairs)
            interval = bootstrap_interval([[(d, w)] for d, w in pairs]) if len(pairs) > 1 else None
            delta = sum(d * w for d, w in pairs) / total if total else None
            verdict = ("unknown" if interval is None or delta is None else "better" if interval[0] > EPS
                       else "worse" if interval[1] < -EPS else "no difference")
            out[key] = {"label": label, "n_tasks": len(pairs), "delta": delta,
                        "ci95": None if interval is None else list(interval), "verdict": verdict}
        return out

    def flips(self) -> dict[str, list[str]]:
        """Tasks with the full primary score in one run and not in the other, pass -> fail first."""
        def full(side: TaskSide | None) -> bool:
            return side is not None and side.score is not None and side.score >= 1.0 - EPS

        paired = self.paired
        return {"pass_to_fail": [t.task_id for t in paired if full(t.a) and not full(t.b)],
                "fail_to_pass": [t.task_id for t in paired if full(t.b) and not full(t.a)]}

    def metric_deltas(self) -> dict[str, dict[str, float | None]]:
        """Every headline metric of both runs, then the usage figures."""
        keys = [key for _, key, _ in self.a.columns]
        out = {}
        for key in keys:
            va, vb = self.metrics_a.get(key), self.metrics_b.get(key)
            out[key] = {"a": va, "b": vb, "delta": None if va is None or vb is None else vb - va}
        sa, sb = self.a.stats(), self.b.stats()
        for key in USAGE:
            va, vb = sa.get(key), sb.get(key)
            out[key] = {"a": va, "b": vb, "delta": None if va is None or vb is None else vb - va}
        return out

    def to_dict(self) -> dict[str, Any]:
        return {
            "a": {"path": str(self.a.path), "label": self.a.label},
            "b": {"path": str(self.b.path), "label": self.b.label},
            "suite": self.a.config.get("suite"), "protocol": self.a.protocol.name,
            "primary": {"label": self.primary[0], "key": self.primary[1]},
            "difference": self.difference(),
            "verdicts": self.differences(),
            "flips": self.flips(),
            "settings_differ": self.settings,
            "metrics": self.metric_deltas(),
            "counts": {c: len(self.of(c)) for c in ORDER},  # type: ignore[arg-type]
            "tasks": [t.to_dict() for t in self.tasks],
        }


def setting_differences(a: dict[str, Any], b: dict[str, Any]) -> list[str]:
    """The score-changing settings two run configs do not share: the run settings, the protocol's options
    (K, distractor mode, pool size, tool budget) and the model's generation settings."""
    out = []
    for key in SETTINGS:
        if a.get(key) != b.get(key):
            out.append(f"{key}: {a.get(key)} vs {b.get(key)}")
    for group in ("protocol_options", "model_settings"):
        ga, gb = a.get(group) or {}, b.get(group) or {}
        out += [f"{key}: {ga.get(key)} vs {gb.get(key)}" for key in sorted(ga.keys() | gb.keys())
                if ga.get(key) != gb.get(key)]
    return out


def rescored(run: Run) -> dict[str, Any]:
    """The run's summary computed again from its stored episodes by its protocol; the stored summary.json when
    the suite's tasks cannot be loaded."""
    from mcp_persona.protocols import load_tasks
    from mcp_persona.run_config import RunConfig
    from mcp_persona.store import EpisodeRecord
    from mcp_persona.tasks import TaskFileError

    try:
        tasks = load_tasks(str(run.config.get("suite")))
    except TaskFileError:
        return run.summary
    by_id = {t.id: t for t in tasks}
    records = [EpisodeRecord.model_validate(e.record) for e in run.episodes]
    records = [r for r in records if r.task_id in by_id]
    names = {f.name for f in fields(RunConfig)}
    config = RunConfig(**{k: v for k, v in run.config.items() if k in names})
    return run.protocol.summarize(config, tasks, records)


def _sides(run: Run, rows: list[dict[str, Any]]) -> dict[str, TaskSide]:
    protocol = run.protocol
    keys = [key for _, key, _ in run.columns]
    groups: dict[str, list[dict[str, Any]]] = {}
    for row in rows:
        groups.setdefault(str(row["task_id"]), []).append(row)
    out = {}
    for task_id, trials in groups.items():
        obs = [protocol.headline_values(r) for r in trials]
        values: dict[str, float | None] = {}
        for key in keys:
            total = sum(o[key][1] for o in obs)
            values[key] = sum(o[key][0] * o[key][1] for o in obs) / total if total else None
        primary = keys[0]
        out[task_id] = TaskSide(score=values[primary], weight=sum(o[primary][1] for o in obs) / len(obs),
                                status="ok" if all(r.get("status", "ok") == "ok" for r in trials) else "error",
                                trials=len(trials), values=values)
    return out


def _sign(x: float | None) -> int:
    if x is None or abs(x) < EPS:
        return 0
    return 1 if x > 0 else -1


def classify(a: TaskSide, b: TaskSide) -> Change:
    """The primary score decides; with the same score, a status that went from ok to error is a regression."""
    delta = None if a.score is None or b.score is None else b.score - a.score
    for s in (_sign(delta), _sign((b.status == "ok") - (a.status == "ok"))):
        if s:
            return "improvement" if s > 0 else "regression"
    return "unchanged"


def compare_runs(a: Run, b: Run) -> Comparison:
    """Every task of either run, regressions first (largest drop first), then improvements; raises
    :class:`CompareError` for runs of different suites or protocols."""
    if a.protocol.name != b.protocol.name:
        raise CompareError(f"runs of different protocols cannot be compared: {a.path} is {a.protocol.name}, "
                           f"{b.path} is {b.protocol.name}")
    if a.config.get("suite") != b.config.get("suite"):
        raise CompareError(f"runs of different suites cannot be compared: {a.path} ran {a.config.get('suite')!r}, "
                           f"{b.path} ran {b.config.get('suite')!r}")
    summary_a, summary_b = rescored(a), rescored(b)
    sa, sb = _sides(a, summary_a.get("episodes") or []), _sides(b, summary_b.get("episodes") or [])
    diffs = []
    for task_id in sorted(sa.keys() | sb.keys()):
        side_a, side_b = sa.get(task_id), sb.get(task_id)
        if side_a is None:
            change: Change = "only_b"
        elif side_b is None:
            change = "only_a"
        else:
            change = classify(side_a, side_b)
        diffs.append(TaskDiff(task_id, change, side_a, side_b))

    def key(t: TaskDiff) -> tuple[int, float, str]:
        mag = -abs(t.delta or 0.0) if t.change in ("regression", "improvement") else 0.0
        return ORDER[t.change], mag, t.task_id

    return Comparison(a, b, a.primary, sorted(diffs, key=key), summary_a.get("metrics") or {},
                      summary_b.get("metrics") or {}, setting_differences(a.config, b.config))


__all__ = ["ORDER", "CompareError", "Comparison", "TaskDiff", "TaskSide", "compare_runs", "setting_differences"]
