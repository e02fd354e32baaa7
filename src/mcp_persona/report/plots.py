"""Figures of one or more runs, as PNG and SVG (matplotlib, Agg backend, no display needed).

* ``cost_accuracy``: total cost (or tokens, when any run's cost is unknown) against
  the protocol's primary score (Acc, TFS, TSR, success rate), one point per run,
  with the Pareto frontier (cheapest for its score).
* ``tokens_success``: tokens against Acc, one point per episode.
* ``tool_calls``: tool calls per task, one bar per run (a histogram for large suites).
* ``categories``: the primary score per group (persona: Acc per category), one bar per run.
* ``failure_modes``: a heatmap of run → failure mode → count, drawn from whatever
  mapping it is given (the failure classification fills it).

Figures are built with ``matplotlib.figure.Figure`` (no pyplot state), so plotting
is safe in a library and in tests running side by side.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # never a display, whatever MPLBACKEND says

from matplotlib.figure import Figure

from mcp_persona.report.load import Run, groups_of

FORMATS = ("png", "svg")
COLORS = ["#2563eb", "#dc2626", "#16a34a", "#9333ea", "#ea580c", "#0891b2", "#ca8a04", "#db2777", "#4b5563",
          "#65a30d"]
MAX_TASK_BARS = 40


def _color(i: int) -> str:
    return COLORS[i % len(COLORS)]


def _short(label: str, width: int = 28) -> str:
    return label if len(label) <= width else label[: width - 1] + "…"


def _fig(w: float = 7.0, h: float = 4.5) -> Figure:
    fig = Figure(figsize=(w, h), dpi=100, layout="constrained")
    fig.set_facecolor("white")
    return fig


def _pad_x(ax: object, xs: Sequence[float]) -> None:
    """A readable x range from 0, also when every value is 0 (runs without model calls)."""
    hi = max(xs, default=0.0)
    ax.set_xlim(-0.05 * (hi or 1.0), (hi or 1.0) * 1.15)  # type: ignore[attr-defined]


def pareto_frontier(points: Sequence[tuple[float, float]]) -> list[int]:
    """Indexes of the points no other point beats: lower or equal x with a strictly higher y.

    Returned in order of increasing x (and so increasing y): the frontier's steps."""
    order = sorted(range(len(points)), key=lambda i: (points[i][0], -points[i][1]))
    front: list[int] = []
    best = float("-inf")
    for i in order:
        if points[i][1] > best:
            front.append(i)
            best = points[i][1]
    return front


def cost_axis(runs: Sequence[Run]) -> tuple[str, list[float | None]]:
    """``("cost", dollars)`` when some run's cost is known (None for a run whose cost is not: it is left off the
    cost axis and named under it, rather than every run falling back to tokens), else ``("tokens", totals)``."""
    stats = [r.stats() for r in runs]
    known = [s["cost_usd"] is not None and not s["cost_partial"] for s in stats]
    if any(k and s["cost_usd"] for k, s in zip(known, stats, strict=True)):
        return "cost", [float(s["cost_usd"]) if k else None for k, s in zip(known, stats, strict=True)]
    return "tokens", [None if s["total_tokens"] is None else float(s["total_tokens"]) for s in stats]


def score_label(runs: Sequence[Run]) -> str:
    """The name of the runs' primary score (each protocol's first report column), e.g. "Acc", "TFS"."""
    labels: list[str] = []
    for r in runs:
        if r.primary[0] not in labels:
            labels.append(r.primary[0])
    return " / ".join(labels) or "Acc"


def cost_accuracy(runs: Sequence[Run]) -> Figure:
    """Cost (or tokens) against each run's primary score: Acc, TFS, TSR or success rate, as its protocol declares."""
    kind, all_xs = cost_axis(runs)
    unpriced = [r for r, x in zip(runs, all_xs, strict=True) if x is None]
    runs = [r for r, x in zip(runs, all_xs, strict=True) if x is not None]
    xs = [x for x in all_xs if x is not None]
    ys = [100 * (r.metrics.get(r.primary[1]) or 0.0) for r in runs]
    label = score_label(runs)
    fig = _fig()
    ax = fig.add_subplot()
    front = pareto_frontier(list(zip(xs, ys, strict=True)))
    # prices on a log axis, as LiveMCPBench draws them (costs span orders of magnitude); tokens from 0
    log = kind == "cost" and min(xs) > 0 and max(xs) / min(xs) > 3
    if log:
        ax.set_xscale("log")
        ax.set_xlim(min(xs) / 1.6, max(xs) * 1.6)
    else:
        _pad_x(ax, xs)
    if front:  # the best Acc reachable at each cost: a staircase through the frontier runs, on to the right edge
        right = ax.get_xlim()[1]
        fx, fy = [xs[i] for i in front] + [right], [ys[i] for i in front] + [ys[front[-1]]]
        ax.step(fx, fy, where="post", color="#9ca3af", linestyle="--", linewidth=1.2, label="Pareto frontier", zorder=1)
    for i, r in enumerate(runs):
        on = i in front
        ax.scatter([xs[i]], [ys[i]], s=80 if on else 50, color=_color(i), edgecolor="black" if on else "none",
                   label=_short(r.label), zorder=3)
        ax.annotate(_short(r.label, 22), (xs[i], ys[i]), textcoords="offset points", xytext=(6, 6), fontsize=8)
    if unpriced:
        what = "cost unknown" if kind == "cost" else "tokens unknown"
        fig.text(0.01, 0.01, f"not shown ({what}): " + ", ".join(_short(r.label, 22) for r in unpriced),
                 fontsize=7, color="#6b7280")
    ax.set_xlabel(("total cost (USD, log scale)" if log else "total cost (USD)") if kind == "cost"
                  else "total tokens (in + out; cost unknown)")
    ax.set_ylabel(f"{label} (%)")
    ax.set_ylim(-5, 112)
    ax.set_title(f"Cost vs {label}" if kind == "cost" else f"Tokens vs {label}")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8, loc="lower right")
    return fig


def tokens_success(runs: Sequence[Run]) -> Figure:
    fig = _fig()
    ax = fig.add_subplot()
    for i, r in enumerate(runs):
        xs = [e.input_tokens + e.output_tokens for e in r.episodes]
        ys = [100 * e.acc for e in r.episodes]
        ax.scatter(xs, ys, s=22, alpha=0.7, color=_color(i), label=_short(r.label))
    _pad_x(ax, [e.input_tokens + e.output_tokens for r in runs for e in r.episodes])
    ax.axhline(80, color="#9ca3af", linestyle=":", linewidth=1, label="SR-0.8 threshold")
    ax.set_xlabel("tokens per episode (in + out)")
    ax.set_ylabel("episode Acc (%)")
    ax.set_ylim(-5, 105)
    ax.set_title("Tokens vs success")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    return fig


def _per_task_calls(run: Run) -> dict[str, float]:
    groups: dict[str, list[int]] = {}
    for e in run.episodes:
        groups.setdefault(e.task_id, []).append(len(e.tool_calls))
    return {t: sum(v) / len(v) for t, v in groups.items()}


def tool_calls(runs: Sequence[Run]) -> Figure:
    per_run = [_per_task_calls(r) for r in runs]
    tasks = sorted({t for d in per_run for t in d})
    if len(tasks) <= MAX_TASK_BARS:
        fig = _fig(max(7.0, 0.28 * len(tasks) * max(1, len(runs)) ** 0.5 + 2), 4.5)
        ax = fig.add_subplot()
        width = 0.8 / max(1, len(runs))
        for i, (r, d) in enumerate(zip(runs, per_run, strict=True)):
            xs = [j + (i - (len(runs) - 1) / 2) * width for j in range(len(tasks))]
            ax.bar(xs, [d.get(t, 0.0) for t in tasks], width=width, color=_color(i), label=_short(r.label))
        ax.set_xticks(range(len(tasks)), tasks, rotation=60, ha="right", fontsize=7)
        ax.set_ylabel("tool calls")
    else:
        fig = _fig()
        ax = fig.add_subplot()
        hi = max((v for d in per_run for v in d.values()), default=0)
        bins = [x - 0.5 for x in range(int(hi) + 2)]
        ax.hist([list(d.values()) for d in per_run], bins=bins, color=[_color(i) for i in range(len(runs))],
                label=[_short(r.label) for r in runs])
        ax.set_xlabel("tool calls per task")
        ax.set_ylabel("tasks")
    ax.set_title("Tool calls per task")
    ax.grid(alpha=0.3, axis="y")
    ax.legend(fontsize=8)
    return fig


def categories(runs: Sequence[Run]) -> Figure:
    """The primary score per group of the protocol's breakdown (persona: Acc per category)."""
    cats = groups_of(runs)
    label = score_label(runs)
    noun = runs[0].group_noun if runs and len({r.group_noun for r in runs}) == 1 else "group"
    fig = _fig(max(7.0, 1.1 * len(cats) + 2), 4.5)
    ax = fig.add_subplot()
    width = 0.8 / max(1, len(runs))
    for i, r in enumerate(runs):
        xs = [j + (i - (len(runs) - 1) / 2) * width for j in range(len(cats))]
        ys = [100 * ((r.groups.get(c) or {}).get(r.primary[1]) or 0.0) for c in cats]
        ax.bar(xs, ys, width=width, color=_color(i), label=_short(r.label))
    tilt = len(cats) > 4
    ax.set_xticks(range(len(cats)), cats, rotation=20 if tilt else 0, ha="right" if tilt else "center")
    ax.set_ylabel(f"{label} (%)")
    ax.set_ylim(0, 105)
    ax.set_title(f"{label} by {noun}")
    ax.grid(alpha=0.3, axis="y")
    ax.legend(fontsize=8)
    return fig


def failure_modes(counts: Mapping[str, Mapping[str, int]]) -> Figure:
    """A heatmap of failure-mode counts: rows are runs, columns modes (in first-seen order)."""
    rows = list(counts)
    modes: list[str] = []
    for per in counts.values():
        modes += [m for m in per if m not in modes]
    grid = [[int(counts[r].get(m, 0)) for m in modes] for r in rows]
    fig = _fig(max(6.0, 1.0 * len(modes) + 3), max(2.5, 0.5 * len(rows) + 1.8))
    ax = fig.add_subplot()
    if not rows or not modes:
        ax.text(0.5, 0.5, "no failures classified", ha="center", va="center", transform=ax.transAxes)
        ax.set_axis_off()
        return fig
    top = max(max(r) for r in grid) or 1
    im = ax.imshow(grid, cmap="Reds", vmin=0, vmax=top, aspect="auto")
    ax.set_xticks(range(len(modes)), modes, rotation=30, ha="right", fontsize=8)
    ax.set_yticks(range(len(rows)), [_short(r, 36) for r in rows], fontsize=8)
    for y, row in enumerate(grid):
        for x, v in enumerate(row):
            ax.text(x, y, str(v), ha="center", va="center", fontsize=8, color="white" if v > top * 0.6 else "black")
    fig.colorbar(im, ax=ax, label="episodes")
    ax.set_title("Failure modes")
    return fig


def tsr_ars(runs: Sequence[Run]) -> Figure:
    """LiveMCP-101's Fig. 4a: each run's task success rate against its average result score, coloured by its
    average trajectory score (grey where no judge scored trajectories)."""
    fig = _fig(6.5, 4.5)
    ax = fig.add_subplot()
    from matplotlib import colormaps

    cmap = colormaps["viridis"]
    for r in runs:
        m = r.metrics
        tsr, ars, ats = 100 * (m.get("tsr") or 0.0), 100 * (m.get("ars") or 0.0), m.get("ats")
        ax.scatter([tsr], [ars], s=70, color=cmap(ats) if ats is not None else "#9ca3af", edgecolor="black",
                   zorder=3)
        ax.annotate(_short(r.label, 22), (tsr, ars), textcoords="offset points", xytext=(6, 4), fontsize=8)
    ax.set_xlim(-3, 103)
    ax.set_ylim(-3, 103)
    ax.set_xlabel("TSR (%)")
    ax.set_ylabel("ARS (%)")
    ax.grid(alpha=0.3)
    from matplotlib.cm import ScalarMappable
    from matplotlib.colors import Normalize

    fig.colorbar(ScalarMappable(Normalize(0, 1), cmap), ax=ax, label="ATS (grey: not judged)")
    ax.set_title("TSR vs ARS, coloured by ATS")
    return fig


def save(fig: Figure, out_dir: Path, stem: str, formats: Iterable[str] = FORMATS) -> list[Path]:
    out_dir.mkdir(parents=True, exist_ok=True)
    paths = []
    for fmt in formats:
        path = out_dir / f"{stem}.{fmt}"
        # no timestamps or tool versions in the files: the same run gives the same bytes
        meta = {"Date": None} if fmt == "svg" else {"Software": None}
        # SVG text stays text (searchable, editable in a paper's figure), not outlines
        with matplotlib.rc_context({"svg.fonttype": "none", "svg.hashsalt": stem}):
            fig.savefig(path, format=fmt, metadata=meta, dpi=100 if fmt == "png" else None)
        paths.append(path)
    return paths


def figures(runs: Sequence[Run], failure_counts: Mapping[str, Mapping[str, int]] | None = None) -> dict[str, Figure]:
    """Every figure by file stem; the failure-mode heatmap only when counts are given."""
    out = {
        "cost_accuracy": cost_accuracy(runs),
        "tokens_success": tokens_success(runs),
        "tool_calls": tool_calls(runs),
        "categories": categories(runs),
    }
    scored = [r for r in runs if "tsr" in r.metrics and "ars" in r.metrics]
    if scored:  # LiveMCP-101 runs
        out["tsr_ars"] = tsr_ars(scored)
    if failure_counts:
        out["failure_modes"] = failure_modes(failure_counts)
    return out


def write_plots(runs: Sequence[Run], out_dir: Path, *, formats: Iterable[str] = FORMATS,
                failure_counts: Mapping[str, Mapping[str, int]] | None = None) -> list[Path]:
    """Write every figure to ``out_dir`` in each format; return the files written."""
    formats = tuple(formats)
    paths: list[Path] = []
    for stem, fig in figures(runs, failure_counts).items():
        paths += save(fig, out_dir, stem, formats)
    return paths
