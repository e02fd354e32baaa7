"""``mcp-persona export``: a run's episodes as JSON lines in the OpenAI message format, or a dataset folder."""

from __future__ import annotations

import sys
from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer

from mcp_persona.cli.common import console, fail


class Format(StrEnum):
    jsonl = "jsonl"
    hf = "hf"


def export(
    run_dir: Annotated[Path, typer.Argument(help="the run's folder (the --run-dir of `mcp-persona run`)",
                                            metavar="RUN_DIR", show_default=False)],
    format: Annotated[Format, typer.Option(
        "--format", help="jsonl: one episode per line; hf: a folder with the lines and a dataset card")] = Format.jsonl,
    out: Annotated[Path | None, typer.Option(
        help="the file (jsonl; '-' for stdout) or folder (hf) to write (default: RUN_DIR/episodes.jsonl, "
             "RUN_DIR/hf)")] = None,
) -> None:
    """Export a run's episodes (messages, tool calls and results, scores, settings) for datasets or pandas."""
    from mcp_persona.export import episode_rows, write_hf, write_jsonl
    from mcp_persona.report.load import RunLoadError, load_run

    try:
        run = load_run(run_dir)
    except RunLoadError as exc:
        raise fail(str(exc)) from exc
    try:
        if format is Format.hf:
            folder = out or run_dir / "hf"
            if folder.exists() and not folder.is_dir():
                raise fail(f"--out {folder}: --format hf writes a folder, and that is a file")
            n = write_hf(run, folder)
            console.print(f"{n} episodes: {folder / 'episodes.jsonl'} (dataset card {folder / 'README.md'})")
        elif str(out) == "-":
            write_jsonl(episode_rows(run), sys.stdout)
        else:
            path = out or run_dir / "episodes.jsonl"
            if path.is_dir():
                raise fail(f"--out {path}: --format jsonl writes a file, and that is a folder")
            path.parent.mkdir(parents=True, exist_ok=True)
            with path.open("w", encoding="utf-8") as f:
                n = write_jsonl(episode_rows(run), f)
            console.print(f"{n} episodes: {path}")
    except OSError as exc:
        raise fail(f"cannot write the export: {exc.strerror or exc}") from exc
    if str(out) != "-":
        console.print("acc: each episode's primary score on a 0..1 scale (the reports print it in %, 0-100); "
                      "tokens and cost_usd: null where nobody measured them", highlight=False)


def register(app: typer.Typer) -> None:
    app.command()(export)
