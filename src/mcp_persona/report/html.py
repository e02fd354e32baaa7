"""One self-contained HTML report of one or more runs.

Everything is inline: the CSS, the script, the data (a JSON block), and the
figures (``data:`` PNGs). A Content-Security-Policy meta tag forbids every fetch
(``default-src 'none'``), so the page works from a file, offline, and cannot leak
what it shows. The leaderboard is rendered here (readable without script); the
episode list, its filters and the trajectory viewer are drawn by the page's script
from the JSON block, always as text nodes, so a tool result holding markup stays
text.
"""

from __future__ import annotations

import base64
import io
import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from jinja2 import Environment, PackageLoader, select_autoescape

from mcp_persona.report.load import Episode, Run, by_protocol, categories_of, groups_of
from mcp_persona.report.markdown import DASH, FIGURES, money, num, pct, ranked, seconds, tokens, trial_rows
from mcp_persona.report.paper_tables import grid_dict, paper_grids

CSP = "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:"
MAX_TEXT = 200_000  # longest tool result / model text kept in the file; the viewer truncates far earlier


def _clip(text: str | None) -> str | None:
    if text is None or len(text) <= MAX_TEXT:
        return text
    return text[:MAX_TEXT] + f"\n… [{len(text) - MAX_TEXT:,} more characters not kept in the report]"


def _event(e: dict[str, Any]) -> dict[str, Any]:
    out = dict(e)
    for key in ("result", "content", "raw_arguments"):
        if isinstance(out.get(key), str):
            out[key] = _clip(out[key])
    return out


def _verdict(run: Run, e: Episode) -> dict[str, Any]:
    """The episode's scores as its protocol declares them, whether it passed, and the reasons that decided it
    (the result score of LiveMCP-101, the missed calls of MCPAgentBench, the failed checks of LiveMCPBench)."""
    protocol = run.protocol
    rows = {(r.get("task_id"), r.get("epoch", 0)): r for r in run.summary.get("episodes") or []}
    v = protocol.verdict(rows.get((e.task_id, e.epoch)), e.score,
                         None if e.status == "ok" else e.error or "error")
    return {"scores": [[label, v.values.get(key)] for label, key, _ in protocol.report_columns],
            "primary": v.values.get(protocol.report_columns[0][1]), "passed": v.passed, "why": v.why}


def _episode(run_index: int, run: Run, e: Episode, suite: str) -> dict[str, Any]:
    total, unknown = e.cost
    return {
        "run": run_index,
        "suite": suite,
        "task_id": e.task_id,
        "epoch": e.epoch,
        "category": e.category,
        "status": e.status,
        "acc": e.acc,
        **_verdict(run, e),
        "strict": e.score.value("strict") if e.score is not None else None,  # None: no strict pass
        "strict_failures": e.strict_failures,
        "stop_reason": e.stop_reason,
        "error": e.error,
        "final_answer": _clip(e.trajectory.get("final_answer") or ""),
        "events": [_event(x) for x in e.events],
        "diff": e.diff,
        "checks": e.checks,
        "collateral": e.collateral,
        "internal_errors": list(e.record.get("internal_errors") or []),
        "elapsed_s": e.elapsed_s,
        "rounds": len({x.get("round") for x in e.events}),
        # None: not measured (an external agent's); the page shows "unknown"
        "tokens_in": e.input_tokens if run.measured else None,
        "tokens_out": e.output_tokens if run.measured else None,
        "cost_usd": None if not run.measured or (e.model_calls and unknown == len(e.model_calls)) else total,
        "cost_partial": 0 < unknown < len(e.model_calls),
        "tool_calls": len(e.tool_calls),
        "tool_errors": e.tool_errors,
    }


def report_data(runs: Sequence[Run]) -> dict[str, Any]:
    """Everything the page's script needs, JSON-ready."""
    tasks: dict[str, dict[str, Any]] = {}
    for r in runs:
        suite = str(r.config.get("suite"))
        bucket = tasks.setdefault(suite, {})
        for tid, t in r.tasks.items():
            bucket.setdefault(tid, {"instruction": t.instruction, "category": t.category,
                                    "checkpoints": t.checkpoints, "necessary_context": t.necessary_context})
    return {
        "runs": [{"label": r.label, "name": r.name, "path": str(r.path), "config": r.config, "stats": r.stats(),
                  "notes": r.notes} for r in runs],
        "categories": categories_of(runs),
        "tasks": tasks,
        "episodes": [_episode(i, r, e, str(r.config.get("suite"))) for i, r in enumerate(runs) for e in r.episodes],
    }


def script_json(data: Any) -> str:
    """JSON safe inside a <script> element: no ``</script>``, no ``<!--``, no line separators."""
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"), allow_nan=False, default=str)
    return (text.replace("&", "\\u0026").replace("<", "\\u003c").replace(">", "\\u003e")
            .replace("\u2028", "\\u2028").replace("\u2029", "\\u2029"))


def _board_rows(runs: Sequence[Run], cats: Sequence[str], index: Mapping[int, int]) -> list[dict[str, Any]]:
    rows = []
    columns = runs[0].columns if runs else ()
    for rank, r in enumerate(ranked(runs), start=1):
        s = r.stats()
        cells = [
            *[(label, pct(s["scores"].get(key)), s["scores"].get(key)) for label, key, _ in columns],
            *[(f"cat:{c}", pct(s["by_group"].get(c)), s["by_group"].get(c)) for c in cats],
            ("Tokens in", tokens(s["avg_input_tokens"]), s["avg_input_tokens"]),
            ("Tokens out", tokens(s["avg_output_tokens"]), s["avg_output_tokens"]),
            ("Cost", money(s["cost_usd"], s["cost_partial"]), s["cost_usd"]),
            ("Tool calls", num(s["avg_tool_calls"]), s["avg_tool_calls"]),
            ("Tool errors", pct(s["tool_error_rate"]), s["tool_error_rate"]),
            ("Time", seconds(s["avg_elapsed_s"]), s["avg_elapsed_s"]),
        ]
        all_cells = [{"key": k, "text": t, "sort": "" if v is None else v} for k, t, v in cells]
        # the headline scores' 95 % intervals (the run summary's), as each cell's tooltip
        intervals = (r.summary.get("uncertainty") or {}).get("intervals") or {}
        for cell, (_, key, _) in zip(all_cells, columns, strict=False):
            if isinstance(ci := intervals.get(key), list) and len(ci) == 2:
                cell["title"] = f"95 % interval {pct(ci[0])}–{pct(ci[1])}"
        rows.append({"rank": rank, "index": index[id(r)], "run": r, "stats": s,
                     "cells": all_cells})
    # the best value of each score column (the protocol's scores and its groups) is marked
    for col in range(len(columns) + len(cats)):
        values = [row["cells"][col]["sort"] for row in rows if row["cells"][col]["sort"] != ""]
        if len(values) > 1 and max(values) > min(values):
            for row in rows:
                row["cells"][col]["best"] = row["cells"][col]["sort"] == max(values)
    # the leaderboard shows the headline scores and costs; the scores by group go to a table of their own
    for row in rows:
        row["group_cells"] = row["cells"][len(columns):len(columns) + len(cats)]
        row["cells"] = row["cells"][:len(columns)] + row["cells"][len(columns) + len(cats):]
    return rows


def _boards(runs: Sequence[Run]) -> list[dict[str, Any]]:
    """One leaderboard per protocol among the runs, each with that protocol's score columns and groups."""
    index = {id(r): i for i, r in enumerate(runs)}
    groups = by_protocol(runs)
    boards = []
    for n, group in enumerate(groups):
        p = group[0].protocol
        cats = groups_of(group)
        boards.append({"id": "leaderboard" if n == 0 else f"leaderboard-{p.name}",
                       "title": p.title or p.name if len(groups) > 1 else "",
                       "columns": group[0].columns, "primary": group[0].primary[0], "noun": group[0].group_noun,
                       "groups": cats, "rows": _board_rows(group, cats, index),
                       "paper_tables": [grid_dict(g) for g in paper_grids(ranked(group))],
                       "trials": trial_rows(ranked(group))})
    return boards


def _intro(runs: Sequence[Run]) -> str:
    """The header's explanation of the scores, in each protocol's words."""
    protocols = [g[0].protocol for g in by_protocol(runs)]
    if len(protocols) == 1:
        scores = protocols[0].intro()
    else:
        scores = "; ".join(f"{p.title or p.name}: {p.intro()}" for p in protocols)
    return f"Scores in % ({scores}) and tool errors in % of tool calls; {FIGURES}"


def _figures(runs: Sequence[Run], failure_counts: Mapping[str, Mapping[str, int]] | None) -> list[dict[str, str]]:
    from mcp_persona.report import plots

    score = plots.score_label(runs)
    noun = runs[0].group_noun if runs and len({r.group_noun for r in runs}) == 1 else "group"
    titles = {"cost_accuracy": "Cost (or tokens) vs accuracy" if score == "Acc" else f"Cost (or tokens) vs {score}",
              "tokens_success": "Tokens vs success", "tool_calls": "Tool calls per task",
              "categories": f"{score} by {noun}", "failure_modes": "Failure modes"}
    out = []
    for stem, fig in plots.figures(runs, failure_counts).items():
        buf = io.BytesIO()
        fig.savefig(buf, format="png", dpi=90, metadata={"Software": None})
        out.append({"title": titles.get(stem, stem), "src": "data:image/png;base64,"
                    + base64.b64encode(buf.getvalue()).decode("ascii")})
    return out


def render_html(runs: Sequence[Run], *, title: str = "MCP-Persona report", figures: bool = True,
                failure_counts: Mapping[str, Mapping[str, int]] | None = None,
                extra_figures: Sequence[Mapping[str, str]] = ()) -> str:
    """The report as one HTML string. ``figures`` embeds the plots (needs matplotlib); ``extra_figures``
    (title and data URL each, e.g. a sweep's ablation curves) go first."""
    env = Environment(loader=PackageLoader("mcp_persona.report", "templates"),
                      autoescape=select_autoescape(["html", "j2"]), trim_blocks=True, lstrip_blocks=True)
    cats = categories_of(runs)
    return env.get_template("report.html.j2").render(
        title=title,
        csp=CSP,
        runs=runs,
        categories=cats,
        boards=_boards(runs),
        intro=_intro(runs),
        figures=[*extra_figures, *(_figures(runs, failure_counts) if figures else [])],
        suites=sorted({str(r.config.get("suite")) for r in runs}),
        data_json=script_json(report_data(runs)),
        dash=DASH,
    )


def write_html(runs: Sequence[Run], path: Path, **kwargs: Any) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(render_html(runs, **kwargs), encoding="utf-8")
    return path
