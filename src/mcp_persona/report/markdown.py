"""A Markdown summary of one or more runs: the leaderboard and the scores per category.

Plain GitHub-flavoured tables, for CI logs, pull requests and papers. Percentages
have one decimal; a value that does not apply (no operate checkpoint) is ``–``; a
figure nobody measured (an external agent's tokens and cost, an unpriced model's
cost) is ``unknown``, never 0.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from mcp_persona.report.load import Run, by_protocol, groups_of
from mcp_persona.report.paper_tables import PUBLISHED_MARK, paper_grids

DASH = "–"
UNKNOWN = "unknown"  # a figure nobody measured; the CLI summary says the same (report.summary.UNKNOWN)


def pct(v: float | None) -> str:
    return DASH if v is None else f"{100 * v:.1f}"


def money(v: float | None, partial: bool = False) -> str:
    if v is None:
        return UNKNOWN
    text = "$0" if v == 0 else f"${v:.4f}" if v < 1 else f"${v:,.2f}"
    return f"≥{text}" if partial else text


def num(v: float | None, digits: int = 1) -> str:
    return DASH if v is None else f"{v:,.{digits}f}"


def tokens(v: float | None) -> str:
    """Tokens per task; ``unknown`` when they were not measured."""
    return UNKNOWN if v is None else num(v, 0)


def seconds(v: float | None) -> str:
    if v is None:
        return DASH
    return f"{v * 1000:.0f} ms" if v < 1 else f"{v:.1f} s"


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def table(header: Sequence[str], rows: Sequence[Sequence[str]], align: Sequence[str] | None = None) -> str:
    align = align or ["l"] + ["r"] * (len(header) - 1)
    rule = ["---:" if a == "r" else ":---" for a in align]
    lines = ["| " + " | ".join(_cell(h) for h in header) + " |", "| " + " | ".join(rule) + " |"]
    lines += ["| " + " | ".join(_cell(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


LEADERBOARD_HEADER = ["Run", "Episodes", "Acc", "SR-0.8", "Exec-Acc", "Strict", "Tokens in/task", "Tokens out/task",
                      "Cost", "Tool calls/task", "Tool errors %", "Time/task", "Errors"]  # a persona run's


def leaderboard_header(runs: Sequence[Run]) -> list[str]:
    """The leaderboard's columns: the scores the (first) run's protocol declares, then the common figures."""
    columns = runs[0].columns if runs else ()
    return ["Run", "Episodes", *[label for label, _, _ in columns], "Tokens in/task", "Tokens out/task", "Cost",
            "Tool calls/task", "Tool errors %", "Time/task", "Errors"]


def ranked(runs: Sequence[Run]) -> list[Run]:
    """Best first: by the protocol's first three scores (persona: Acc, then SR-0.8, then Exec-Acc)."""
    def key(r: Run) -> tuple[float, ...]:
        m = r.metrics
        return tuple(-(m.get(k) or 0.0) for _, k, _ in r.columns[:3])
    return sorted(runs, key=key)


def leaderboard_rows(runs: Sequence[Run]) -> list[list[str]]:
    rows = []
    for r in ranked(runs):
        s = r.stats()
        rows.append([r.label, str(s["n"]), *[pct(s["scores"].get(k)) for _, k, _ in r.columns],
                     tokens(s["avg_input_tokens"]), tokens(s["avg_output_tokens"]),
                     money(s["cost_usd"], s["cost_partial"]), num(s["avg_tool_calls"]), pct(s["tool_error_rate"]),
                     seconds(s["avg_elapsed_s"]), str(s["n_errors"])])
    return rows


def category_rows(runs: Sequence[Run], metric: str) -> list[list[str]]:
    """One row per group of the runs' protocol breakdown (persona: category), one cell per run."""
    rows = []
    for cat in groups_of(runs):
        cells = []
        for r in ranked(runs):
            m = r.groups.get(cat)
            cells.append(DASH if m is None or m.get("n") == 0 else f"{pct(m.get(metric))} ({m.get('n', 0)})")
        rows.append([cat, *cells])
    return rows


def _extra(value: Any, fmt: str) -> str:
    if fmt == "money":
        return money(value)
    if fmt == "pct":
        return pct(value)
    return num(value, 2)


# What the leaderboard's figures beside the scores are (the Markdown and the HTML report's header say it).
FIGURES = ("tokens, tool calls and time per episode (mean over the run's episodes); cost in US dollars for the whole "
           "run (≥ where some calls had no price). – where a figure does not apply; unknown where nobody measured "
           "it (an external agent's tokens and cost, a model without a price).")


def _intro(groups: Sequence[Sequence[Run]]) -> str:
    protocols = [g[0].protocol for g in groups]
    rest = FIGURES
    if len(protocols) == 1:
        return f"Scores in %: {protocols[0].intro()}; tool errors in % of tool calls; {rest}"
    scores = "; ".join(f"{p.title or p.name}: {p.intro()}" for p in protocols)
    return f"Scores in % ({scores}) and tool errors in % of tool calls; {rest}"


def _protocol_sections(runs: Sequence[Run], suffix: str) -> list[str]:
    """Leaderboard, scores per group and the protocol's extra figures of the runs of one protocol."""
    order = ranked(runs)
    first = runs[0]
    parts = [f"## Leaderboard{suffix}", "", table(leaderboard_header(runs), leaderboard_rows(runs)), ""]
    noun = first.group_noun
    header = [noun.capitalize(), *[r.label for r in order]]
    labels = {k: label for label, k, _ in first.columns}
    for key in first.protocol.report_group_metrics or (first.primary[1],):
        if key != first.primary[1] and not any(m.get(key) is not None for r in runs for m in r.groups.values()):
            continue  # a breakdown with nothing in it (no task has the checkpoint it counts)
        parts += [f"## {labels[key]} by {noun}{suffix}", "", f"{labels[key]} in % (episodes); – where it does not "
                  "apply.", "", table(header, category_rows(runs, key)), ""]
    extra = first.protocol.report_extra
    if extra:
        rows = [[r.label, *[_extra(r.metrics.get(k), fmt) for _, k, fmt in extra]] for r in order]
        parts += [f"## Efficiency{suffix}", "",
                  "The protocol's efficiency figures: per task averaged over the run, cost in total.", "",
                  table(["Run", *[lbl for lbl, _, _ in extra]], rows), ""]
    return parts + _paper_sections(order, suffix)


def _paper_sections(runs: Sequence[Run], suffix: str) -> list[str]:
    """The protocol's paper tables in their layout, the paper's published rows beneath the runs."""
    parts = []
    for grid in paper_grids(runs):
        rows = [[f"{r.label} ({PUBLISHED_MARK})" if r.published else r.label, *r.cells] for r in grid.rows]
        parts += [f"## {grid.heading}{suffix}", "", grid.caption, "", table(grid.markdown_header(), rows), ""]
    return parts


def render_markdown(runs: Sequence[Run], title: str = "MCP-Persona report") -> str:
    """The whole summary: per protocol a leaderboard of its scores and its scores per group, then notes."""
    groups = by_protocol(runs)
    suites = sorted({str(r.config.get("suite")) for r in runs})
    parts = [f"# {title}", "",
             f"{len(runs)} run{'s' * (len(runs) != 1)} on suite{'s' * (len(suites) != 1)} {', '.join(suites)}. "
             + _intro(groups), ""]
    for g in groups:
        p = g[0].protocol
        parts += _protocol_sections(g, f" · {p.title or p.name}" if len(groups) > 1 else "")
    order = [r for g in groups for r in ranked(g)]
    interval_rows = _interval_rows(order)
    if interval_rows:
        parts += ["## 95 % intervals", "", "Bootstrap over tasks (and over trials within a task), from each run's "
                  "summary: two runs whose intervals overlap may not differ (`mcp-persona compare` pairs them).", "",
                  table(["Run", "Metric", "Value", "95 % interval"], interval_rows), ""]
    trials = trial_rows(order)
    if trials:
        parts += ["## Trials", "", table(["Run", "Trials", "Metric", "Value"], trials), ""]
    notes = [f"- {r.label}: {n}" for r in order for n in r.notes]
    if notes:
        parts += ["## Notes", "", *notes, ""]
    return "\n".join(parts)


def _interval_rows(runs: Sequence[Run]) -> list[list[str]]:
    rows = []
    for r in runs:
        intervals = (r.summary.get("uncertainty") or {}).get("intervals") or {}
        for label, key, _ in r.columns:
            ci = intervals.get(key)
            if isinstance(ci, list) and len(ci) == 2:
                rows.append([r.label, label, pct(r.metrics.get(key)), f"{pct(ci[0])}–{pct(ci[1])}"])
    return rows


def trial_rows(runs: Sequence[Run]) -> list[list[str]]:
    """The figures over repeated trials the run's protocol reports (pass@k and pass^k, avg@k, each trial's)."""
    rows = []
    for r in runs:
        t: Any = r.summary.get(r.protocol.report_trials)
        if isinstance(t, dict) and (t.get("trials") or 1) > 1:
            for k, v in t.items():
                if k != "trials" and isinstance(v, int | float):
                    rows.append([r.label, str(t["trials"]), k, pct(v)])
                elif isinstance(v, list) and all(isinstance(x, int | float) for x in v):
                    rows.append([r.label, str(t["trials"]), k, " · ".join(pct(x) for x in v)])
    return rows
