"""Summaries of a run: ``summary.json`` and the results table printed at the end.

What a summary holds is the suite protocol's to say (:meth:`Protocol.summarize`); the run's usage
figures every protocol reports are computed here once.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from rich.console import Console

from mcp_persona.protocols import DEFAULT_PROTOCOL, get_protocol
from mcp_persona.run_config import RunConfig
from mcp_persona.store import EpisodeRecord
from mcp_persona.tasks import Task


def build_summary(config: RunConfig, tasks: Sequence[Task], records: Sequence[EpisodeRecord]) -> dict[str, Any]:
    by_id = {t.id for t in tasks}
    records = [r for r in records if r.task_id in by_id]
    summary = get_protocol(config.protocol).summarize(config, tasks, records)
    if config.label:
        summary["label"] = config.label
    summary["n_scored"] = sum(1 for r in records if r.status == "ok")
    summary["errors"] = error_classes(records)
    summary["cost"] = cost_summary(config, records)
    return summary


def episode_cost(record: EpisodeRecord) -> float | None:
    """What an episode's model calls cost, the agent's and the judge's; None when one of them is unpriced
    (never a partial sum passed as whole). No call costs nothing."""
    agent = record.trajectory.cost_usd if record.trajectory.model_calls else 0.0
    judge = [v.get("cost_usd") for v in judge_verdicts(record) if _spent_tokens(v)]
    if agent is None or any(c is None for c in judge):
        return None
    return agent + sum(c for c in judge if c is not None)


def judge_verdicts(record: EpisodeRecord) -> list[dict[str, Any]]:
    """Every judge verdict of an episode: its scores' and its failure diagnosis'."""
    diagnosis = (record.failure or {}).get("verdict")
    return [*record.verdicts, *([diagnosis] if isinstance(diagnosis, dict) else [])]


def _spent_tokens(verdict: dict[str, Any]) -> bool:
    usage = verdict.get("usage") or {}
    return bool(usage.get("input_tokens") or usage.get("output_tokens"))


def cost_summary(config: RunConfig, records: Sequence[EpisodeRecord]) -> dict[str, Any]:
    """The run's cost in all and per task (mean over a task's trials), where its prices came from, and why a
    cost is unknown (null) when it is."""
    from mcp_persona.llm.pricing import unpriced_reason

    by_task: dict[str, list[float | None]] = {}
    for r in records:
        by_task.setdefault(r.task_id, []).append(episode_cost(r))
    costs = [c for cs in by_task.values() for c in cs]
    known = bool(costs) and all(c is not None for c in costs)
    total = sum(c for c in costs if c is not None) if known else None
    why: list[str] = []
    if costs and not known:
        flags = config.flags or {}
        agent_unpriced = any(r.trajectory.model_calls and r.trajectory.cost_usd is None for r in records)
        judge_unpriced = any(_spent_tokens(v) and v.get("cost_usd") is None for r in records for v in judge_verdicts(r))
        for unpriced, model, base_url in ((agent_unpriced, config.model, flags.get("base_url")),
                                          (judge_unpriced, config.judge, flags.get("judge_base_url"))):
            if unpriced:
                why.append(unpriced_reason(model, base_url=base_url) or (
                    f"some calls of {model} have no price (cached tokens, and no cached-input price); "
                    "pass --price-in/--price-out"))
    return {
        "usd": total,
        "per_task_usd": total / len(by_task) if total is not None and by_task else None,
        "by_task_usd": {task: (sum(c for c in cs if c is not None) / len(cs)) if None not in cs else None
                        for task, cs in by_task.items()},
        "pricing": config.pricing,
        "unknown_because": why,
    }


def error_class(record: EpisodeRecord) -> str:
    """Why an errored episode erred, in a word: the model endpoint's failure category (``auth``,
    ``connection``, ``request_limit``, ...), else ``environment`` (the task's servers could not open) or
    ``agent`` (the agent crashed)."""
    if record.trajectory.error_category:
        return record.trajectory.error_category
    return "environment" if (record.error or "").startswith("environment") else "agent"


def error_classes(records: Sequence[EpisodeRecord]) -> dict[str, Any]:
    """Errored episodes by class, with the first line of the first message of each class (the whole message
    stays with the episode in the run store)."""
    counts: dict[str, int] = {}
    first: dict[str, str] = {}
    for r in records:
        if r.status == "error":
            cls = error_class(r)
            counts[cls] = counts.get(cls, 0) + 1
            first.setdefault(cls, (r.error or "").split("\n", 1)[0][:600])  # the first line says what failed
    return {"n": sum(counts.values()), "by_class": dict(sorted(counts.items(), key=lambda kv: -kv[1])),
            "first": first}


def write_summary(run_dir: Path, summary: dict[str, Any]) -> Path:
    path = run_dir / "summary.json"
    path.write_text(json.dumps(summary, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return path


def pct(v: float | None) -> str:
    return "-" if v is None else f"{100 * v:.1f}"


UNKNOWN = "unknown"  # a figure nobody measured (an external agent's tokens, an unpriced model's cost): never 0


def tokens_known(summary: dict[str, Any]) -> bool:
    """Whether the run's token counts were measured: an external agent's model calls are its own, unseen."""
    return summary.get("agent") != "external"


def print_summary(summary: dict[str, Any], console: Console | None = None) -> None:
    """The run's scores on the console, from what its protocol declares: a table of the headline metrics per
    group and overall (short aliases, or a block per group, when it is wider than the console), what each
    score means, the protocol's extra figures, its own lines (:meth:`Protocol.summary_lines`), and the
    intervals."""
    from mcp_persona.report.fit import Column, indented, print_table

    console = console or Console()
    protocol = get_protocol(summary.get("protocol") or DEFAULT_PROTOCOL)
    opts = summary.get("protocol_options") or {}
    title = " · ".join([str(summary.get("suite")), *([f"label={summary['label']}"] if summary.get("label") else []),
                        f"agent={summary.get('agent')}", f"model={summary.get('model') or '-'}",
                        f"tools={summary.get('tools')}", *(f"{k}={v}" for k, v in opts.items())])
    noun = protocol.report_groups.removeprefix("by_").replace("_", " × ")
    columns = [Column(noun), Column("tasks", "right"),
               *(Column(label, "right", alias=protocol.report_aliases.get(key))
                 for label, key, _ in protocol.report_columns)]
    groups: dict[str, Any] = summary.get(protocol.report_groups) or {}
    named = [*((k, v) for k, v in groups.items() if v.get("n")), ("overall", summary.get("metrics") or {})]
    rows = [[str(name), str(m.get("n", 0)), *(pct(m.get(key)) for _, key, _ in protocol.report_columns)]
            for name, m in named]
    layout = print_table(console, columns, rows, title=title, legend=False,
                         styles=["bold" if n == "overall" else None for n, _ in named])
    console.print("scores in % (0-100; - where none applies):", highlight=False)
    for label, key, tip in protocol.report_columns:
        alias = protocol.report_aliases.get(key) if layout == "aliases" else None
        indented(console, f"{alias} = {label}: {tip}" if alias else f"{label}: {tip}", hang=4)
    metrics = summary.get("metrics") or {}
    extra = [f"{label} {figure(metrics.get(key), fmt)}" for label, key, fmt in protocol.report_extra]
    tokens = figure(metrics.get("avg_output_tokens"), "num") if tokens_known(summary) else UNKNOWN
    common = [f"tool calls/task {figure(metrics.get('avg_tool_calls'), 'num')}",
              f"tool errors {pct(metrics.get('tool_error_rate'))}% of calls",
              f"output tokens/task {tokens}",
              f"errored episodes {summary.get('n_errors', 0)}"]
    indented(console, " · ".join([*extra, *common]), indent=0)
    for key, words in protocol.report_extra_help.items():
        label = next((lbl for lbl, k, _ in protocol.report_extra if k == key), key)
        indented(console, f"{label}: {words}", indent=0, hang=2)
    for line in protocol.summary_lines(summary):
        indented(console, line, indent=0, hang=2)
    for line in (uncertainty_line(summary, protocol.report_columns),
                 trials_line(summary.get(protocol.report_trials))):
        if line:
            indented(console, line, indent=0, hang=2)


def trials_line(block: Any) -> str | None:
    """The figures over repeated trials (pass@k, pass^k, avg@k) in one line; None for a single trial."""
    if not isinstance(block, dict) or (block.get("trials") or 1) < 2:
        return None
    figures = [f"{k} {pct(v)}" for k, v in block.items() if k != "trials" and isinstance(v, int | float)]
    return f"over {block['trials']} trials: " + " · ".join(figures) if figures else None


def figure(value: Any, fmt: str) -> str:
    """One figure as a declared format shows it: ``pct`` a 0..1 share in %, ``money`` USD, ``num`` a number."""
    if value is None:
        return UNKNOWN if fmt == "money" else "-"  # a cost nobody measured; else a figure that does not apply
    if fmt == "pct":
        return pct(value) + "%"
    if fmt == "money":
        return f"${value:.4f}"
    return f"{value:,.2f}" if abs(value) < 100 else f"{value:,.0f}"


def uncertainty_line(summary: dict[str, Any], columns: Sequence[tuple[str, str, str]]) -> str | None:
    """The headline metrics with their intervals (and flip rates across trials), in one line."""
    block = summary.get("uncertainty") or {}
    intervals, metrics = block.get("intervals") or {}, summary.get("metrics") or {}
    parts = [f"{label} {pct(metrics.get(key))} [{pct(intervals[key][0])}, {pct(intervals[key][1])}]"
             for label, key, _ in columns if intervals.get(key) is not None]
    if not parts:
        return None
    what = f"{block['n_tasks']} tasks" + (f" x {block['trials']} trials" if block.get("trials", 1) > 1 else "")
    line = f"{round(100 * block['level'])}% CI (bootstrap over {what}): " + " · ".join(parts)
    rates = block.get("flip_rate") or {}
    flips = [f"{label} {pct(rates[key])}" for label, key, _ in columns if rates.get(key) is not None]
    return line + (f"; tasks flipping across trials: {' · '.join(flips)}" if flips else "")
