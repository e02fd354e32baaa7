"""``mcp-persona gen``: Persona-Gen, the task generation pipeline (paper §3.3).

* ``gen graph``: the tool dependency graph (nodes, edges, per server), as text or ``--json``;
* ``gen tasks``: sample tool chains, have a model write instructions, ground them in user contexts,
  fuzzify, validate, and write candidates to a review file (JSONL); a run that makes no candidate writes
  nothing and exits 1 with the reason and what to try;
* ``gen import``: validate the candidates a person accepted and write them to a suite folder.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import typer

from mcp_persona.cli.common import console, err, error_line, fail

gen_app = typer.Typer(no_args_is_help=True, help="Generate candidate tasks with a model, review them, import them.")


def _servers(spec: str | None) -> list[str] | None:
    if not spec:
        return None
    from mcp_persona.apps import app_names

    names = [s.strip() for s in spec.split(",") if s.strip()]
    unknown = [s for s in names if s not in app_names()]
    if unknown:
        raise fail(f"unknown server(s) {', '.join(unknown)} (known: {', '.join(app_names())})")
    return names


@gen_app.command("graph")
def graph(
    servers: Annotated[str | None, typer.Option(help="comma-separated servers (default: every app)")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="print the statistics as JSON")] = False,
    edges: Annotated[bool, typer.Option(help="also list the key edges")] = False,
    cache: Annotated[Path | None, typer.Option(help="JSON file to read the graph from / write it to")] = None,
    refresh: Annotated[bool, typer.Option(help="rebuild even if the cache holds these servers")] = False,
) -> None:
    """Build the tool dependency graph by observing each tool's outputs, and show its statistics."""
    from mcp_persona.persona_gen.graph import load_graph

    g = load_graph(_servers(servers), cache=cache, refresh=refresh)
    stats = g.stats()
    if as_json:
        if edges:
            stats["edges_list"] = [{"src": e.src, "dst": e.dst, "kind": e.kind, "links": sorted(e.names)}
                                   for e in g.edges if e.kind == "key"]
        console.print_json(json.dumps(stats))
        return
    console.print(f"{stats['nodes']} tools ({stats['observed_nodes']} with observed outputs, "
                  f"{stats['personalized_nodes']} personalized) on {stats['servers']} servers; "
                  f"{stats['edges']} edges ({stats['key_edges']} key, {stats['text_edges']} text, cross-server)")
    for server, n in stats["key_edges_per_server"].items():
        console.print(f"  {server}: {n} key edges")
    for s in stats["skipped"]:
        err.print(f"[yellow]skipped[/yellow] {s}")
    if edges:
        for e in g.edges:
            if e.kind == "key":
                console.print(f"{e.src} -> {e.dst} via {', '.join(sorted(e.names))}")


@gen_app.command("tasks")
def tasks(
    model: Annotated[str, typer.Option(help="the model that writes instructions: 'provider:name' or 'local'")],
    servers: Annotated[str, typer.Option(help="comma-separated servers to draw chains from")],
    n: Annotated[int, typer.Option(help="how many candidates to write", min=1)] = 20,
    seed: Annotated[int, typer.Option(help="sampling and grounding seed")] = 0,
    out: Annotated[Path, typer.Option(help="the review file (JSONL) to write")] = Path("review.jsonl"),
    max_len: Annotated[int, typer.Option(help="longest chain, in tool calls", min=1)] = 3,
    min_len: Annotated[int, typer.Option(help="shortest chain, in tool calls", min=1)] = 1,
    cross_server: Annotated[bool, typer.Option(help="allow chains that span servers")] = False,
    persona: Annotated[str | None, typer.Option(help="ground every task in this context id (default: seeded)")] = None,
    suite: Annotated[str, typer.Option(help="the suite name written into the tasks")] = "generated",
    realism_check: Annotated[bool, typer.Option(help="also ask the model whether each chain is realistic")] = False,
    valid_only: Annotated[bool, typer.Option(help="write only candidates that already pass validation")] = False,
    graph_cache: Annotated[Path | None, typer.Option(help="tool graph cache file")] = None,
    base_url: Annotated[str | None, typer.Option(help="OpenAI-compatible endpoint")] = None,
    api_key_env: Annotated[str | None, typer.Option(help="environment variable holding the API key")] = None,
    quiet: Annotated[bool, typer.Option(help="no line per chain, only the summary")] = False,
) -> None:
    """Generate candidate tasks into a review file; a person then marks each accepted or rejected. Exits 1
    (writing nothing) when no candidate was made, saying why."""
    import anyio

    from mcp_persona.llm import make_client
    from mcp_persona.persona_gen.graph import load_graph
    from mcp_persona.persona_gen.pipeline import Candidate, GenStats, generate
    from mcp_persona.persona_gen.review import write_review

    names = _servers(servers) or []
    if min_len > max_len:
        raise fail("--min-len is larger than --max-len")
    try:
        client = make_client(model, base_url=base_url, api_key_env=api_key_env)
    except ValueError as exc:
        raise fail(str(exc)) from exc
    g = load_graph(names, cache=graph_cache)

    def say(line: str) -> None:
        err.print(line, markup=False, highlight=False)

    async def go() -> tuple[list[Candidate], GenStats]:
        return await generate(client, servers=names, n=n, seed=seed, max_len=max_len, min_len=min_len,
                              cross_server=cross_server, graph=g, suite=suite, persona=persona,
                              realism_check=realism_check, progress=None if quiet else say)

    try:
        candidates, stats = anyio.run(go)
    except Exception as exc:  # a model endpoint failing mid-run
        raise fail(f"generation failed: {type(exc).__name__}: {exc}") from exc
    made = len(candidates)
    if valid_only:
        candidates = [c for c in candidates if not c.problems]
    info = stats.to_json()
    counts = (f"{info['chains']} chains sampled, {info['prototyped']} prototyped, {info['enriched']} grounded; "
              f"{info['valid']} pass validation as generated")
    if not candidates:  # nothing to review: say why, keep any earlier review file, fail
        console.print(counts, markup=False)
        for why, count in sorted(info["dropped"].items(), key=lambda kv: -kv[1]):
            console.print(f"  dropped {count}: {why}", markup=False)
        error_line(no_candidate_reason(info, made=made, valid_only=valid_only, servers=names, min_len=min_len,
                                       max_len=max_len, cross_server=cross_server) + f" ({out} not written)")
        raise typer.Exit(1)
    written = write_review(out, candidates)
    console.print(f"{counts}; wrote {written} candidates to {out}", markup=False)
    for why, count in sorted(info["dropped"].items(), key=lambda kv: -kv[1]):
        console.print(f"  dropped {count}: {why}", markup=False)


def no_candidate_reason(info: dict[str, Any], *, made: int, valid_only: bool, servers: list[str], min_len: int,
                        max_len: int, cross_server: bool) -> str:
    """One line for a ``gen tasks`` run that made no candidate: at which stage everything fell out, and what to
    try instead."""
    chains, dropped = int(info["chains"]), dict(info["dropped"])
    if made and valid_only:
        return (f"no candidate task: {made} were made but none passes validation, and --valid-only keeps only "
                "those that do; drop --valid-only to review and fix them, or try another --seed")
    if not chains:
        span = f"{min_len}" if min_len == max_len else f"{min_len} to {max_len}"
        return (f"no candidate task: no chain of {span} tool calls using a personalized tool could be sampled from "
                f"{', '.join(servers)}{'' if cross_server else ' (one server per chain)'}; try other or more "
                "--servers, --cross-server, or a wider --min-len/--max-len")
    if dropped.get("unrealistic", 0) >= chains:
        return (f"no candidate task: the model judged all {chains} sampled chains unrealistic; drop --realism-check, "
                "or try another --seed or more --servers")
    causes = ", ".join(f"{why} ({count})" for why, count in sorted(dropped.items(), key=lambda kv: -kv[1]))
    tips = []
    if any(why.startswith("model error") for why in dropped):
        tips.append("check the model endpoint (mcp-persona doctor --model ...)")
    if "malformed prototype" in dropped:
        tips.append("use a model that follows the JSON format")
    if "no shared persona" in dropped:
        tips.append("pick servers that share a persona or give --persona")
    tips.append("try another --seed or a larger --n")
    return f"no candidate task: all {chains} sampled chains were dropped ({causes or 'no reason recorded'}); " \
           + "; ".join(tips)


@gen_app.command("import")
def import_(
    review: Annotated[Path, typer.Argument(help="a review file written by 'gen tasks', with statuses set")],
    suite_dir: Annotated[Path, typer.Option(help="folder of task files to add the accepted tasks to")],
    overwrite: Annotated[bool, typer.Option(help="replace tasks of the same id already in the folder")] = False,
) -> None:
    """Validate each accepted candidate (gold replay, Acc = Exec-Acc = 1...) and write those that pass."""
    import anyio

    from mcp_persona.persona_gen.review import ReviewFileError, import_review

    if not review.is_file():
        raise fail(f"{review} is not a file")
    try:
        report = anyio.run(lambda: import_review(review, suite_dir, overwrite=overwrite))
    except ReviewFileError as exc:
        raise fail(str(exc)) from exc
    for path in report.written:
        console.print(f"[green]✓[/green] wrote {path}")
    for tid, problems in report.failed.items():
        err.print(f"[red]✗[/red] {tid}: refused")
        for p in problems:
            err.print(f"    {p}")
    console.print(f"{len(report.written)} written, {len(report.failed)} refused, {len(report.rejected)} rejected, "
                  f"{len(report.pending)} still pending")
    if report.failed:
        raise typer.Exit(1)


def register(app: typer.Typer) -> None:
    app.add_typer(gen_app, name="gen")
