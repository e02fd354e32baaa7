"""``mcp-persona sweep``: every cell of a sweep file, one run each; resumable; reported together."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any

import typer

from mcp_persona.cli.common import EXIT_ENDPOINT, EXIT_EPISODE_ERRORS, EXIT_USAGE, console, err, error_line, fail


class _GivenFlags:
    """A command context for a cell's in-process run: every flag counts as given, so a resumed cell never
    takes flags from its store in place of the sweep file's."""

    def get_parameter_source(self, name: str) -> Any:
        return _Given()


class _Given:
    name = "COMMANDLINE"


def sweep(
    sweep_file: Annotated[Path, typer.Argument(help="the sweep file (TOML, or YAML with PyYAML)")],
    out: Annotated[Path | None, typer.Option(help="the sweep's folder (default: runs/sweep-<name>)")] = None,
    resume: Annotated[bool, typer.Option(help="finish the unfinished cells; finished ones are never redone")] = False,
    max_cost: Annotated[float | None, typer.Option(
        min=0.0, help="stop before a cell that would take the spend (USD, list prices) past this")] = None,
    dry_run: Annotated[bool, typer.Option(help="list the cells and their state, run nothing")] = False,
    label: Annotated[str | None, typer.Option(
        help="a name for the sweep's runs: each cell's run is labelled 'NAME · its cell' in reports and compare")] = (
        None),
    report: Annotated[bool, typer.Option(help="write OUT/sweep.html and OUT/sweep.md at the end")] = True,
    executor: Annotated[str, typer.Option(
        help="where the cells' episodes run: local (this process) or ray (a Ray cluster)")] = "local",
    ray_address: Annotated[str | None, typer.Option(
        help="the Ray cluster (host:port, 'auto' for the one on this machine; default: start one)")] = None,
) -> None:
    """Run a sweep: models x suites x a grid of options x trials, one run folder per cell."""
    from mcp_persona.cli import run as run_cmd
    from mcp_persona.sweep import SweepError, cell_state, cells, load_sweep

    try:
        spec = load_sweep(sweep_file)
        out = out or Path("runs") / f"sweep-{spec.name}"
        plan = cells(spec, out)
    except SweepError as exc:
        raise fail(str(exc)) from exc
    if label and label.strip():
        for cell in plan:
            cell.flags["label"] = f"{label.strip()} · {cell.label}"
    if executor != "local":  # every cell's episodes on the cluster; the stores stay written here
        for cell in plan:
            cell.flags.update(executor=executor, ray_address=ray_address)
    states = {c.folder: cell_state(c) for c in plan}
    if not plan:
        raise fail(f"{sweep_file}: the sweep has no cell (does each suite take one of its models?)")
    if dry_run:
        for i, c in enumerate(plan, start=1):
            console.print(f"[{i}/{len(plan)}] {states[c.folder]:10} {c.label}  ->  {c.folder}", soft_wrap=True,
                          highlight=False)
        return
    started = [c for c in plan if states[c.folder] != "new"]
    if started and not resume:
        raise fail(f"{out} already holds {len(started)} of the sweep's {len(plan)} cells; pass --resume to "
                   "finish the sweep (finished cells are kept) or choose another --out")
    with run_cmd.terminate_as_interrupt() as caught:
        try:
            done = _run_cells(run_cmd, plan, sweep_file, out, max_cost, lambda: caught.requested)
        except KeyboardInterrupt:  # between two cells (inside one, the cell's run handles it)
            finished = sum(cell_state(c) == "done" for c in plan)
            err.print(f"interrupted: {finished} of {len(plan)} cells are finished; finish the sweep with: "
                      f"mcp-persona sweep {sweep_file} --out {out} --resume", soft_wrap=True, highlight=False)
            raise typer.Exit(caught.exit_code) from None
    if report:
        paths = write_sweep_report(out, plan)
        console.print("sweep report: " + ", ".join(str(p) for p in paths), soft_wrap=True)
    if done < len(plan):
        error_line(f"{len(plan) - done} of {len(plan)} cells have errored episodes; --resume runs them again")
        raise typer.Exit(EXIT_EPISODE_ERRORS)


def _run_cells(run_cmd: Any, plan: list[Any], sweep_file: Path, out: Path, max_cost: float | None,
               stop_requested: Callable[[], bool] = lambda: False) -> int:
    """Run the cells in order; how many are finished. typer.Exit when the sweep must stop; KeyboardInterrupt
    when a signal came between two cells (also one whose interrupt a finalizer swallowed)."""
    from mcp_persona.sweep import cell_state, spent_usd

    done = 0
    for i, cell in enumerate(plan, start=1):
        if stop_requested():
            raise KeyboardInterrupt
        state = cell_state(cell)
        if state == "done":
            done += 1
            console.print(f"[{i}/{len(plan)}] done already: {cell.label}", highlight=False, soft_wrap=True)
            continue
        if max_cost is not None:
            spent, episodes = spent_usd([c.folder for c in plan])
            ran = [c for c in plan if c.folder.exists()]
            estimate = spent / len(ran) if ran and spent else 0.0  # a cell's mean spend so far
            if spent + estimate > max_cost:
                err.print(f"budget: ${spent:.4f} spent over {episodes} episodes; the next cell ({cell.label}) "
                          f"would take it to about ${spent + estimate:.4f}, past --max-cost ${max_cost:g}. "
                          f"{done} of {len(plan)} cells are finished; raise the budget and pass --resume to go on.",
                          soft_wrap=True, highlight=False)
                raise typer.Exit(0 if done == len(plan) else EXIT_EPISODE_ERRORS)
        console.print(f"[{i}/{len(plan)}] {'resuming' if state == 'unfinished' else 'running'}: {cell.label}",
                      highlight=False, soft_wrap=True)
        code = _run_cell(run_cmd, cell.flags, resume=state == "unfinished")
        if code == EXIT_ENDPOINT:
            error_line(f"the sweep stops at cell {i} of {len(plan)}: its model endpoint failed (above); "
                       "fix it and pass --resume")
            raise typer.Exit(EXIT_ENDPOINT)
        if code in (EXIT_USAGE, 130, 143):  # a cell that cannot run, or Ctrl-C / SIGTERM: the sweep stops
            if code != EXIT_USAGE:
                err.print(f"the sweep stopped at cell {i} of {len(plan)}; finish it with: mcp-persona sweep "
                          f"{sweep_file} --out {out} --resume", soft_wrap=True, highlight=False)
            raise typer.Exit(code)
        done += code == 0
    return done


def _run_cell(run_module: Any, flags: dict[str, Any], *, resume: bool) -> int:
    """One cell as an ordinary run, in this process; its exit code (0 when it returned)."""
    kinds = {"agent": run_module.AgentKind, "tools": run_module.ToolsKind, "api_limits": run_module.ApiLimits}
    kwargs = {k: kinds[k](v) if k in kinds else v for k, v in flags.items()}
    try:
        run_module.run(_GivenFlags(), resume=resume, **kwargs)  # type: ignore[arg-type]
    except typer.Exit as exc:
        return int(exc.exit_code or 0)
    return 0


def write_sweep_report(out: Path, plan: list[Any]) -> list[Path]:
    """The leaderboards of every cell (one per suite's protocol) and the ablation figures."""
    from mcp_persona.report.html import write_html
    from mcp_persona.report.load import RunLoadError, load_runs
    from mcp_persona.report.markdown import render_markdown
    from mcp_persona.sweep_report import ablation_figures

    folders = [c.folder for c in plan if (c.folder / "run.sqlite").is_file()]
    if not folders:
        return []
    try:
        runs = load_runs(folders)
    except RunLoadError as exc:
        error_line(f"no sweep report: {exc}")
        return []
    figures = ablation_figures(plan, runs)
    html = write_html(runs, out / "sweep.html", title=f"Sweep {out.name}", extra_figures=figures)
    md = out / "sweep.md"
    md.write_text(render_markdown(runs), encoding="utf-8")
    return [html, md]


def register(app: typer.Typer) -> None:
    app.command()(sweep)
