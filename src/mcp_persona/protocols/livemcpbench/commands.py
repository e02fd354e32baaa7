"""LiveMCPBench's own command, ``mcp-persona keypoints``: key points extracted from task descriptions by a
model (LiveMCPBench's LiveMCPEval step for tasks without annotated ones), read strictly; a reply that does not
parse is recorded as such, never turned into key points."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import anyio
import typer

from mcp_persona.cli.common import console, err, fail, load_suite


def keypoints(
    model: Annotated[str, typer.Option(help="the extracting model, 'provider:model' (or 'local')")],
    suite: Annotated[str, typer.Option(help="a bundled suite name or a task file/folder")] = "livemcpbench",
    only: Annotated[str | None, typer.Option("--tasks", help="only task ids matching these glob patterns")] = None,
    base_url: Annotated[str | None, typer.Option(help="OpenAI-compatible endpoint of the model")] = None,
    api_key_env: Annotated[str | None, typer.Option(help="environment variable with the API key")] = None,
    out: Annotated[Path | None, typer.Option(help="write JSONL here (default: stdout)")] = None,
) -> None:
    """Extract key points per task: one JSON line each, {task_id, status, key_points, annotated}, where
    ``annotated`` is the task's own key points for comparison; exits 1 if any reply was unusable."""
    from mcp_persona.llm import ModelError, make_client
    from mcp_persona.protocols.livemcpbench.keypoint import KeyPointExtractor

    tasks = load_suite(suite, only)
    try:
        extractor = KeyPointExtractor(make_client(model, base_url=base_url, api_key_env=api_key_env, scope="judge"))
    except (ValueError, ModelError) as exc:
        raise fail(str(exc)) from exc

    async def extract_all() -> list[dict[str, object]]:
        rows = []
        for task in tasks:
            verdict = await extractor.extract(task)
            rows.append({"task_id": task.id, "status": verdict.status,
                         "key_points": verdict.label if verdict.status == "ok" else None,
                         "annotated": list(task.spec.key_points)})
        return rows

    rows = anyio.run(extract_all)
    text = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows)
    if out is None:
        typer.echo(text, nl=False)
    else:
        out.write_text(text, encoding="utf-8")
        console.print(f"{len(rows)} tasks: {out}")
    bad = [r["task_id"] for r in rows if r["status"] != "ok"]
    if bad:
        err.print(f"unusable replies (recorded, not guessed): {', '.join(map(str, bad))}", soft_wrap=True)
        raise typer.Exit(1)


def register(app: typer.Typer) -> None:
    app.command()(keypoints)
