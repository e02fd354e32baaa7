"""A sweep's ablation figures: the primary score of each model against one varied option, the rest fixed
(LiveMCP-101's score vs max rounds and vs pool size, MCPAgentBench's vs K, MCP-Persona's vs skills or
distractors), with the 95 % interval of each point where the run's summary carries one."""

from __future__ import annotations

import base64
import io
from collections.abc import Sequence
from typing import Any

from mcp_persona.report.load import Run


def _interval(run: Run, key: str) -> tuple[float, float] | None:
    """The summary's 95 % interval of metric ``key`` (``uncertainty.intervals``: [low, high]), if it has one."""
    found = ((run.summary.get("uncertainty") or {}).get("intervals") or {}).get(key)
    if isinstance(found, list | tuple) and len(found) == 2 and all(isinstance(v, int | float) for v in found):
        return float(found[0]), float(found[1])
    return None


def ablation_series(plan: Sequence[Any], runs: Sequence[Run]) -> list[dict[str, Any]]:
    """One entry per (suite, varied option): for each model (and each setting of the other options), the
    points (value, score, interval) in the grid's order. Only options with two or more values count."""
    by_folder = {r.path.resolve(): r for r in runs}
    series: dict[tuple[str, str], dict[str, Any]] = {}
    for cell in plan:
        run = by_folder.get(cell.folder.resolve())
        if run is None or not cell.options:
            continue
        label, key = run.primary
        for i, (option, value) in enumerate(cell.options):
            others = cell.options[:i] + cell.options[i + 1:]
            entry = series.setdefault((cell.suite, option), {"suite": cell.suite, "option": option, "score": label,
                                                             "lines": {}})
            name = cell.model.name + ("".join(f" · {k}={v}" for k, v in others))
            score = run.metrics.get(key)
            entry["lines"].setdefault(name, []).append((value, score, _interval(run, key)))
    return [e for e in series.values() if any(len(points) > 1 for points in e["lines"].values())]


def ablation_figures(plan: Sequence[Any], runs: Sequence[Run]) -> list[dict[str, str]]:
    """The series as embedded PNG figures (title and data URL), for the HTML report."""
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib.figure import Figure

    out = []
    for entry in ablation_series(plan, runs):
        fig = Figure(figsize=(6.5, 4.0))
        ax = fig.subplots()
        for name, points in entry["lines"].items():
            numeric = all(isinstance(v, int | float) for v, _, _ in points)
            xs = [v if numeric else str(v) for v, _, _ in points]
            ys = [100 * s if isinstance(s, int | float) else float("nan") for _, s, _ in points]
            low = [max(0.0, y - 100 * ci[0]) if ci else 0.0 for y, (_, _, ci) in zip(ys, points, strict=True)]
            high = [max(0.0, 100 * ci[1] - y) if ci else 0.0 for y, (_, _, ci) in zip(ys, points, strict=True)]
            ax.errorbar(xs, ys, yerr=[low, high], marker="o", capsize=3, label=name)
        ax.set_xlabel(entry["option"])
        ax.set_ylabel(f"{entry['score']} (%)")
        ax.set_ylim(-2, 102)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
        title = f"{entry['suite']}: {entry['score']} vs {entry['option']}"
        ax.set_title(title, fontsize=10)
        buf = io.BytesIO()
        fig.savefig(buf, format="png", dpi=90, metadata={"Software": None})
        out.append({"title": title, "src": "data:image/png;base64," + base64.b64encode(buf.getvalue()).decode()})
    return out
