"""``mcp-persona import PROTOCOL FILE``: a peer benchmark's task file into our task format;
``mcp-persona import mcpagentbench-results FILE... --tasks TASKS``: the peer's published runs as run folders."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from mcp_persona.cli.common import console, err, fail

RESULTS = "mcpagentbench-results"


def import_tasks(
    protocol: Annotated[str, typer.Argument(help=f"the protocol whose peer format FILE is in (mcpagentbench), "
                                                 f"or {RESULTS}: the peer's published result files",
                                        metavar="PROTOCOL")],
    files: Annotated[list[Path], typer.Argument(exists=True, dir_okay=False,
                                                help="the peer's task file; with mcpagentbench-results, its "
                                                     "result files (*_results.json)",
                                                metavar="FILE", show_default=False)],
    out: Annotated[Path | None, typer.Option(help="a suite folder to write (suite.json + tasks.json); with "
                                                  "mcpagentbench-results, the folder of the runs and their "
                                                  "suite (default runs/published-mcpagentbench)")] = None,
    tasks: Annotated[Path | None, typer.Option(exists=True, dir_okay=False,
                                               help="with mcpagentbench-results: the peer's task file the "
                                                    "results are of (its tasks.json)")] = None,
) -> None:
    """Read a peer benchmark's tasks, or its published runs; list what could not be mapped and why."""
    from mcp_persona.protocols import get_protocol, protocol_names

    if protocol == RESULTS:
        import_results(files, tasks, out or Path("runs") / "published-mcpagentbench")
        return
    if protocol not in protocol_names():
        raise fail(f"unknown protocol {protocol!r} (known: {', '.join(protocol_names())}, or {RESULTS})")
    if tasks is not None:
        raise fail(f"--tasks is for {RESULTS} only")
    if len(files) != 1:
        raise fail(f"import {protocol} reads one task file, got {len(files)}")
    try:
        mapped, unmapped = get_protocol(protocol).import_file(files[0])
    except (NotImplementedError, ValueError, json.JSONDecodeError) as exc:
        raise fail(str(exc)) from exc
    for line in unmapped:
        err.print(f"[yellow]not mapped[/yellow] {line}")
    console.print(f"{len(mapped)} tasks mapped, {len(unmapped)} not mapped")
    if out is not None:
        write_suite(out, protocol, files[0], mapped)
        console.print(f"written: {out}; check it with mcp-persona validate --suite {out}")


def write_suite(out: Path, protocol: str, source: Path, tasks: list) -> None:
    out.mkdir(parents=True, exist_ok=True)
    (out / "suite.json").write_text(json.dumps({"protocol": protocol, "description": f"imported from {source.name}"},
                                               indent=2) + "\n", encoding="utf-8")
    rows = [t.model_dump(mode="json", exclude_defaults=True) for t in tasks]
    (out / "tasks.json").write_text(json.dumps(rows, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


def import_results(files: list[Path], task_file: Path | None, out: Path) -> None:
    """Every result file checked before anything is written; then the tasks as a suite folder in OUT and one
    replayed run folder per file beside it."""
    import anyio

    from mcp_persona.protocols.mcpagentbench.importer import read_tasks
    from mcp_persona.protocols.mcpagentbench.published import SUITE, match, read_results, replay
    from mcp_persona.store import STORE_FILE

    if task_file is None:
        raise fail(f"import {RESULTS} needs --tasks: the peer's task file the results are of (its tasks.json); "
                   "the result files hold each request cut to 100 characters")
    try:
        tasks, unmapped = read_tasks(task_file)
        runs = [read_results(f) for f in files]
    except (ValueError, json.JSONDecodeError) as exc:
        raise fail(str(exc)) from exc
    folders = [r.folder for r in runs]
    twice = sorted({f for f in folders if folders.count(f) > 1})
    if twice:
        raise fail(f"two result files would import into the same run folder: {', '.join(twice)} "
                   "(import them into different --out folders)")
    taken = [out / f for f in folders if (out / f / STORE_FILE).exists()]
    if taken:
        raise fail(f"{', '.join(map(str, taken))} already hold a run; remove it or choose another --out")
    def pct(v: float) -> str:  # the peer publishes percentages to the hundredth
        return f"{100 * v:.2f}"

    suite_dir = out / SUITE
    write_suite(suite_dir, "mcpagentbench", task_file, tasks)
    for r in runs:
        matched = match(r, tasks, unmapped)
        for line in matched.not_imported:
            err.print(f"[yellow]not imported[/yellow] {r.model}: {line}")
        summary = anyio.run(replay, r, matched, out / r.folder, SUITE)
        m, pub = summary["metrics"], summary["published"]
        file_scores = pub["recomputed_imported_tasks"]
        console.print(
            f"{r.model}: {len(matched.tasks)} of {len(r.results)} tasks replayed into {out / r.folder} · published "
            f"TFS {pct(pub['reported']['tfs'])} TEFS {pct(pub['reported']['tefs'])} ({pub['reported']['n_tasks']} "
            f"tasks) · on the replayed tasks: the file by the paper's rules TFS {pct(file_scores['tfs'])} "
            f"TEFS {pct(file_scores['tefs'])}, replayed here by the paper's rules TFS {pct(m['tfs_paper'])} "
            f"TEFS {pct(m['tefs_paper'])}, ours TFS {pct(m['tfs'])} TEFS {pct(m['tefs'])}, by outcome TFS "
            f"{pct(m['tfs_outcome'])} TEFS {pct(m['tefs_outcome'])}")
        for metric, d in summary["paper_differences"].items():
            why = ", ".join(f"{k} {n}" for k, n in d["by_reason"].items()) or "none"
            console.print(f"  {metric.upper()}: the paper alone passes {d['paper_only']} tasks, ours alone "
                          f"{d['ours_only']} (by reason: {why})")
    console.print(f"tasks written to {suite_dir}: run a model on them with --suite {suite_dir}, then "
                  f"mcp-persona report {' '.join(str(out / f) for f in folders)} YOUR_RUN")


def register(app: typer.Typer) -> None:
    app.command(name="import")(import_tasks)
