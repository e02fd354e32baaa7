"""Per-task differences between two runs: regressions first, then improvements.

A task's figures in a run are the mean over its trials (epochs); its status is
``ok`` when every trial ended normally, else ``error``. A task is a regression
when B is worse than A: a lower Acc, or the same Acc with a lower Exec-Acc or a
status that went from ok to error. Improvements are the mirror image.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, Literal

from mcp_persona.report.load import Episode, Run

Change = Literal["regression", "improvement", "unchanged", "only_a", "only_b"]
ORDER: dict[str, int] = {"regression": 0, "improvement": 1, "only_a": 2, "only_b": 3, "unchanged": 4}
EPS = 1e-9


@dataclass(frozen=True)
class TaskSide:
    acc: float
    exec_acc: float | None
    status: str
    trials: int


@dataclass(frozen=True)
class TaskDiff:
    task_id: str
    category: str
    change: Change
    a: TaskSide | None
    b: TaskSide | None

    @property
    def d_acc(self) -> float | None:
        return None if self.a is None or self.b is None else self.b.acc - self.a.acc

    @property
    def d_exec(self) -> float | None:
        if self.a is None or self.b is None or self.a.exec_acc is None or self.b.exec_acc is None:
            return None
        return self.b.exec_acc - self.a.exec_acc

    def to_dict(self) -> dict[str, Any]:
        return {"task_id": self.task_id, "category": self.category, "change": self.change,
                "a": asdict(self.a) if self.a else None, "b": asdict(self.b) if self.b else None,
                "d_acc": self.d_acc, "d_exec_acc": self.d_exec}


@dataclass(frozen=True)
class Comparison:
    a: Run
    b: Run
    tasks: list[TaskDiff]

    def of(self, change: Change) -> list[TaskDiff]:
        return [t for t in self.tasks if t.change == change]

    @property
    def regressions(self) -> list[TaskDiff]:
        return self.of("regression")

    @property
    def improvements(self) -> list[TaskDiff]:
        return self.of("improvement")

    def metric_deltas(self) -> dict[str, dict[str, float | None]]:
        out = {}
        sa, sb = self.a.stats(), self.b.stats()
        for key in ("acc", "sr_0_8", "exec_acc", "avg_tool_calls", "tool_error_rate", "avg_input_tokens",
                    "avg_output_tokens", "cost_usd"):
            va, vb = sa.get(key), sb.get(key)
            out[key] = {"a": va, "b": vb, "delta": None if va is None or vb is None else vb - va}
        for key in sa["scores"] if self.a.protocol.name == self.b.protocol.name else ():  # the protocol's own scores
            if key not in out:
                va, vb = sa["scores"].get(key), sb["scores"].get(key)
                out[key] = {"a": va, "b": vb, "delta": None if va is None or vb is None else vb - va}
        return out

    def to_dict(self) -> dict[str, Any]:
        return {
            "a": {"path": str(self.a.path), "label": self.a.label},
            "b": {"path": str(self.b.path), "label": self.b.label},
            "metrics": self.metric_deltas(),
            "counts": {c: len(self.of(c)) for c in ORDER},  # type: ignore[arg-type]
            "tasks": [t.to_dict() for t in self.tasks],
        }


def _sides(run: Run) -> dict[str, tuple[str, TaskSide]]:
    groups: dict[str, list[Episode]] = {}
    for e in run.episodes:
        groups.setdefault(e.task_id, []).append(e)
    out = {}
    for task_id, eps in groups.items():
        execs = [e.exec_acc for e in eps if e.exec_acc is not None]
        out[task_id] = (eps[0].category, TaskSide(
            acc=sum(e.acc for e in eps) / len(eps),
            exec_acc=sum(execs) / len(execs) if execs else None,
            status="ok" if all(e.status == "ok" for e in eps) else "error",
            trials=len(eps),
        ))
    return out


def _sign(x: float | None) -> int:
    if x is None or abs(x) < EPS:
        return 0
    return 1 if x > 0 else -1


def classify(a: TaskSide, b: TaskSide) -> Change:
    for s in (_sign(b.acc - a.acc),
              _sign(None if a.exec_acc is None or b.exec_acc is None else b.exec_acc - a.exec_acc),
              _sign((b.status == "ok") - (a.status == "ok"))):
        if s:
            return "improvement" if s > 0 else "regression"
    return "unchanged"


def compare_runs(a: Run, b: Run) -> Comparison:
    """Every task of either run, regressions first (largest drop first), then improvements."""
    sa, sb = _sides(a), _sides(b)
    diffs = []
    for task_id in sorted(sa.keys() | sb.keys()):
        cat_a, side_a = sa.get(task_id, (None, None))
        cat_b, side_b = sb.get(task_id, (None, None))
        if side_a is None:
            change: Change = "only_b"
        elif side_b is None:
            change = "only_a"
        else:
            change = classify(side_a, side_b)
        diffs.append(TaskDiff(task_id, cat_a or cat_b or "?", change, side_a, side_b))

    def key(t: TaskDiff) -> tuple[int, float, float, str]:
        d_acc, d_exec = t.d_acc or 0.0, t.d_exec or 0.0
        mag = -abs(d_acc) if t.change in ("regression", "improvement") else 0.0
        return ORDER[t.change], mag, -abs(d_exec), t.task_id

    return Comparison(a, b, sorted(diffs, key=key))
