"""``mcp-persona traverse`` and ``mcp-persona fidelity``: Tool-Traverse against real MCP servers.

``traverse`` probes a real server (over stdio or streamable HTTP) with a seed file's valid calls
and the adversarial calls derived from them, and writes the trace pool (JSONL).
``fidelity`` replays a pool against a simulated app (and the documentation-only baseline) and
prints the paper's Table 4: confusion matrix, behavioural alignment, response similarity.
"""

from __future__ import annotations

import json
import tempfile
from enum import StrEnum
from pathlib import Path
from typing import Annotated

import anyio
import typer
from rich.console import Console
from rich.table import Table

from mcp_persona.cli.common import console, err, fail


class ResetKind(StrEnum):
    memory_file = "memory-file"
    dir = "dir"
    none = "none"


class Baseline(StrEnum):
    vanilla = "vanilla"
    none = "none"


def _env_pairs(items: list[str]) -> dict[str, str]:
    out: dict[str, str] = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise fail(f"--env takes KEY=VALUE, got {item!r}")
        out[key] = value
    return out


def traverse(
    seeds: Annotated[Path, typer.Option(help="seed file (JSON or JSONL): valid calls, one per tool at least",
                                        exists=True, dir_okay=False)],
    out: Annotated[Path, typer.Option(help="where to write the trace pool (JSONL)")],
    stdio: Annotated[str | None, typer.Option(help="the server's command line, e.g. \"node dist/index.js {root}\"")]
    = None,
    url: Annotated[str | None, typer.Option(help="the server's streamable-HTTP URL")] = None,
    reference: Annotated[str | None, typer.Option(help="a bundled reference server: memory or filesystem "
                                                       "(from $MCP_PERSONA_NODE_PREFIX, default <repo>/.node)")] = None,
    env: Annotated[list[str] | None, typer.Option(help="KEY=VALUE for the server's environment (repeatable); "
                                                      "{memory_file} and {root} are filled in")] = None,
    reset: Annotated[ResetKind | None, typer.Option(help="how to reset the state before every probe "
                                                         "(default: the seed file's)")] = None,
    state_path: Annotated[Path | None, typer.Option(help="the memory file or root directory to use "
                                                         "(default: a fresh temporary one)")] = None,
    perturb: Annotated[bool, typer.Option(help="add the adversarial calls derived from each seed")] = True,
    judge_model: Annotated[str | None, typer.Option(help="label responses with a model judge "
                                                         "('local', 'openai:NAME', 'anthropic:NAME')")] = None,
    perturb_model: Annotated[str | None, typer.Option(help="add model-written adversarial calls")] = None,
    base_url: Annotated[str | None, typer.Option(help="OpenAI-compatible endpoint for the models")] = None,
) -> None:
    """Probe a real MCP server with seed calls and their perturbations; write the trace pool."""
    from mcp_persona.traverse.models import load_seeds
    from mcp_persona.traverse.perturb import ModelPerturber
    from mcp_persona.traverse.probe import Target
    from mcp_persona.traverse.probe import traverse as run_traverse
    from mcp_persona.traverse.servers import REFERENCE_SERVERS, missing_reason, reference_target
    from mcp_persona.traverse.state import make_state

    if sum(x is not None for x in (stdio, url, reference)) != 1:
        raise fail("give exactly one of --stdio, --url, --reference")
    try:
        seed_file = load_seeds(seeds)
    except (ValueError, OSError) as exc:
        raise fail(f"{seeds}: {exc}") from exc
    extra_env = _env_pairs(env or [])
    if reference is not None:
        if reference not in REFERENCE_SERVERS:
            raise fail(f"unknown reference server {reference!r} (known: {', '.join(REFERENCE_SERVERS)})")
        why = missing_reason(reference)
        if why:
            raise fail(why)
        target = reference_target(reference)
        target.env.update(extra_env)
        default_reset = REFERENCE_SERVERS[reference].reset
    elif stdio is not None:
        target = Target.stdio(stdio, extra_env)
        default_reset = "none"
    else:
        target = Target(url=url, env=extra_env)
        default_reset = "none"
    kind = reset.value if reset is not None else (seed_file.reset or default_reset)

    judge = make_model(judge_model, base_url) if judge_model else None
    model = ModelPerturber(make_model(perturb_model, base_url)) if perturb_model else None
    done = 0

    def tick(trace: object) -> None:
        nonlocal done
        done += 1
        if done % 25 == 0:
            err.print(f"  {done} probes")

    with tempfile.TemporaryDirectory(prefix="mcp-persona-traverse-") as tmp:
        state = make_state(kind, Path(tmp), state_path)
        try:
            pool = anyio.run(lambda: run_traverse(target, seed_file, state, server=seed_file.server or reference or "",
                                                  judge_client=judge, model=model, perturbations=perturb,
                                                  on_trace=tick, workdir=Path(tmp)))
        except ValueError as exc:
            raise fail(str(exc)) from exc
        except OSError as exc:
            raise fail(f"cannot start or reach the server: {exc}") from exc
    pool.dump(out)
    failing = sum(1 for t in pool.traces if t.label != "success")
    tools = {t.tool for t in pool.traces}
    classes = sorted({t.error_class for t in pool.traces if t.error_class})
    console.print(f"{len(pool.traces)} calls over {len(tools)}/{len(pool.header.tools)} tools, {failing} failing "
                  f"({100 * failing / max(1, len(pool.traces)):.0f}%), classes: {', '.join(classes) or '-'} -> {out}")


def make_model(spec: str, base_url: str | None):  # type: ignore[no-untyped-def]
    from mcp_persona.llm import make_client

    try:
        return make_client(spec, base_url=base_url)
    except ValueError as exc:
        raise fail(str(exc)) from exc


def fidelity(
    pool: Annotated[Path, typer.Option(help="a trace pool written by 'traverse'", exists=True, dir_okay=False)],
    simulator: Annotated[str, typer.Option(help="the simulated app to replay against, e.g. memory, filesystem")],
    baseline: Annotated[Baseline, typer.Option(help="the documentation-only baseline to compare with")]
    = Baseline.vanilla,
    strict: Annotated[bool, typer.Option(help="replay against the app's strict (benchmark) server instead of its "
                                              "replica mode")] = False,
    include_unverified: Annotated[bool, typer.Option(help="also replay traces labelled unexpected_failure")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="machine-readable output")] = False,
) -> None:
    """Replay a trace pool against a simulator: the paper's Table 4 (fidelity)."""
    from mcp_persona.apps import app_names, get_app
    from mcp_persona.traverse.fidelity import HEADERS, AppSimulator, evaluate, table_rows, to_json
    from mcp_persona.traverse.models import load_pool
    from mcp_persona.traverse.vanilla import VanillaSimulator

    if simulator not in app_names():
        raise fail(f"unknown simulator {simulator!r} (known: {', '.join(app_names())})")
    try:
        loaded = load_pool(pool)
    except (ValueError, OSError) as exc:
        raise fail(f"{pool}: {exc}") from exc

    async def go():  # type: ignore[no-untyped-def]
        sims = []
        if baseline is Baseline.vanilla:
            sims.append(VanillaSimulator(loaded.header.tools))
        sims.append(AppSimulator(get_app(simulator), replica=not strict))
        return [await evaluate(loaded, s, include_unverified=include_unverified) for s in sims]

    reports = anyio.run(go)
    if as_json:
        typer.echo(to_json(loaded, reports))
        return
    failing = sum(1 for t in loaded.traces if t.label != "success")
    wide = Console(width=max(console.width, 150))
    table = Table(title=f"Simulation fidelity on {loaded.header.server} ({reports[-1].n} traces, "
                        f"{failing} failing in the pool)")
    for h in HEADERS:
        table.add_column(h, justify="left" if h == "Method" else "right")
    for row in table_rows(reports):
        table.add_row(*row)
    wide.print(table)
    for r in reports:
        console.print(f"[dim]{r.simulator}: {r.note}[/dim]")
    console.print(f"[dim]METEOR: {reports[-1].meteor_mode}; State: share of replays whose post-call state "
                  f"matches the real one; {reports[-1].excluded} unverified traces left out[/dim]")
    mismatched = [o for o in reports[-1].outcomes if not o.agree]
    if mismatched:
        console.print(json.dumps([{"trace": o.trace_id, "tool": o.tool, "rule": o.rule} for o in mismatched]))


def register(app: typer.Typer) -> None:
    app.command()(traverse)
    app.command()(fidelity)
