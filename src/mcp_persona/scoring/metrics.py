"""Suite-level metrics of MCP-Persona: Acc, SR-0.8 and Exec-Acc, overall and per category."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from math import comb
from typing import Any

SR_THRESHOLD = 0.8


@dataclass(frozen=True)
class EpisodeScore:
    task_id: str
    category: str
    acc: float
    exec_acc: float | None  # None: the task has no operate checkpoint
    strict: bool = False  # every checkpoint 1, no collateral, end state equivalent to the gold replay's


def suite_metrics(episodes: Sequence[EpisodeScore]) -> dict[str, Any]:
    """``acc`` = mean task Acc; ``sr_0_8`` = share of tasks with Acc > 0.8 (strictly, as in the
    paper); ``exec_acc`` = mean task Exec-Acc over the tasks that have operate checkpoints; ``strict_sr`` = share
    of tasks passed strictly (see :mod:`mcp_persona.scoring.strict`)."""
    n = len(episodes)
    execs = [e.exec_acc for e in episodes if e.exec_acc is not None]
    return {
        "n": n,
        "acc": sum(e.acc for e in episodes) / n if n else 0.0,
        "sr_0_8": sum(1 for e in episodes if e.acc > SR_THRESHOLD) / n if n else 0.0,
        "exec_acc": sum(execs) / len(execs) if execs else None,
        "n_exec": len(execs),
        "strict_sr": sum(1 for e in episodes if e.strict) / n if n else 0.0,
    }


def by_category(episodes: Sequence[EpisodeScore]) -> dict[str, dict[str, Any]]:
    groups: dict[str, list[EpisodeScore]] = defaultdict(list)
    for e in episodes:
        groups[e.category].append(e)
    return {cat: suite_metrics(items) for cat, items in sorted(groups.items())}


def pass_at_k(n: int, c: int, k: int) -> float:
    """Chance that at least one of k trials drawn from n (c of them successes) succeeds."""
    if not 0 <= c <= n or not 1 <= k <= n:
        raise ValueError(f"need 0 <= c <= n and 1 <= k <= n (n={n}, c={c}, k={k})")
    return 1.0 - comb(n - c, k) / comb(n, k)


def pass_hat_k(n: int, c: int, k: int) -> float:
    """pass^k (tau-bench): chance that all k trials drawn from n succeed, C(c, k) / C(n, k)."""
    if not 0 <= c <= n or not 1 <= k <= n:
        raise ValueError(f"need 0 <= c <= n and 1 <= k <= n (n={n}, c={c}, k={k})")
    return comb(c, k) / comb(n, k)


def trial_metrics(episodes: Sequence[EpisodeScore]) -> dict[str, Any]:
    """Over repeated trials of each task: pass@k and pass^k for k = 1..n (n = the fewest trials any task has)
    with success = Acc > 0.8, the same on the strict pass (``strict_pass@k``, ``strict_pass^k``), and
    avg@n = mean Acc over all trials."""
    groups: dict[str, list[EpisodeScore]] = defaultdict(list)
    for e in episodes:
        groups[e.task_id].append(e)
    if not groups:
        return {"trials": 0}
    n = min(len(g) for g in groups.values())
    out: dict[str, Any] = {"trials": n, f"avg@{n}": sum(e.acc for e in episodes) / len(episodes)}
    successes = [(len(g), sum(1 for e in g if e.acc > SR_THRESHOLD)) for g in groups.values()]
    strict = [(len(g), sum(1 for e in g if e.strict)) for g in groups.values()]
    for k in range(1, n + 1):
        for prefix, counts in (("", successes), ("strict_", strict)):
            out[f"{prefix}pass@{k}"] = sum(pass_at_k(m, c, k) for m, c in counts) / len(counts)
            out[f"{prefix}pass^{k}"] = sum(pass_hat_k(m, c, k) for m, c in counts) / len(counts)
    return out
