"""``mcp-persona route``: the copilot's retrieval from the command line."""

from __future__ import annotations

import json
from typing import Annotated

import typer

from mcp_persona.cli.common import console, fail


def route(
    query: Annotated[str, typer.Argument(help="what the tool should do (or 'server: ... tool: ...')")],
    library: Annotated[str, typer.Option(help="the tool library to search")] = "livemcptool",
    top: Annotated[int, typer.Option(min=1, max=50, help="how many tools to return")] = 3,
    as_json: Annotated[bool, typer.Option("--json", help="a JSON list of {server, tool, score}")] = False,
    embeddings_url: Annotated[str | None, typer.Option(
        help="an OpenAI-compatible embeddings endpoint to use instead of BM25")] = None,
    embeddings_model: Annotated[str, typer.Option(help="the embedding model at --embeddings-url")] = "",
) -> None:
    """Rank a library's tools for a query (BM25, LiveMCPBench's server/tool weighting)."""
    from mcp_persona.retrieval import EmbeddingsError, get_router

    spec = json.dumps({"base_url": embeddings_url, "model": embeddings_model}) if embeddings_url else ""
    try:
        hits = get_router(library, spec).route(query, top=top)
    except KeyError as exc:
        raise fail(str(exc.args[0])) from exc
    except EmbeddingsError as exc:  # one line: the URL, what failed, what to do
        raise fail(str(exc)) from exc
    if as_json:
        typer.echo(json.dumps([h.to_dict() for h in hits], indent=2))
        return
    from mcp_persona.report.fit import Column, indented, print_table

    print_table(console, [Column("server"), Column("tool"), Column("score", "right")],
                [[h.server, h.tool, f"{h.score:.3f}"] for h in hits], title=f"{library}: {query}")
    indented(console, "score: how well the tool's description matches the query (higher ranks first)", indent=0)


def register(app: typer.Typer) -> None:
    app.command()(route)
