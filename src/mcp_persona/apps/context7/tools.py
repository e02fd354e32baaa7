"""The Context7 tools over the context7 Context-Tree (see ``data/hierarchies/context7.json``)."""

from __future__ import annotations

import re
from typing import Annotated, Any

from pydantic import Field

from mcp_persona.apps._corpus import Index, estimate_tokens, query_terms
from mcp_persona.apps.base import App, AppEnv, FieldViolation, ToolFailure

MINIMUM_TOKENS = 1000
DEFAULT_TOKENS = 5000
MAXIMUM_TOKENS = 100_000
SEPARATOR = "\n\n" + "-" * 40 + "\n\n"
NOT_FOUND = "The library you are trying to access does not exist. Please try with a different library ID."
PREAMBLE = """Available Libraries (top matches):

Each result lists:
- Library ID: the Context7-compatible identifier (/org/project)
- Name: the library or package name
- Description: a one-line summary
- Code Snippets: how many code examples are indexed
- Trust Score: how authoritative the source is (0-10)
- Versions: indexed versions, if any; use one only when the user asks for that version

Pick the library whose name fits best, preferring higher trust scores and more snippets.

----------

"""


class Context7App(App):
    def error_payload(self, tool: str, failure: ToolFailure) -> Any:
        return failure.message

    def validation_payload(self, tool: str, violations: list[FieldViolation]) -> Any:
        detail = "; ".join(f"{v.field}: {v.message}" for v in violations)
        return f"MCP error -32602: Invalid arguments for tool {tool}: {detail}"


APP = Context7App(
    "context7",
    title="Context7",
    category="information",
    personalized=False,
    description="Use this server to retrieve up-to-date documentation and code examples for any library.",
    real_server="upstash/context7",
)


def _norm(name: str) -> str:
    return re.sub(r"[^a-z0-9]", "", name.lower())


def resolve(env: AppEnv, name: str) -> list[dict[str, Any]]:
    """Libraries matching ``name``, best first (see the module docstring)."""
    libs = sorted(env.tree.list("libraries"), key=lambda lib: (-lib["trust_score"], lib["id"]))
    wanted = _norm(name)
    ranked: dict[str, tuple[int, int, float]] = {}
    for pos, lib in enumerate(libs):
        names = [_norm(n) for n in [lib["title"], *lib.get("aliases", [])]]
        if wanted and wanted in names:
            ranked[lib["id"]] = (0, pos, 0.0)
        elif wanted and any(wanted in n or n in wanted for n in names if n):
            ranked[lib["id"]] = (1, pos, 0.0)
    index = Index(
        (
            (
                lib["id"],
                {"title": lib["title"], "aliases": " ".join(lib.get("aliases", [])), "description": lib["description"]},
            )
            for lib in libs
        ),
        {"title": 3, "aliases": 3, "description": 1},
    )
    for pos, hit in enumerate(index.search(name, min_should_match=0.0)):
        ranked.setdefault(hit.key, (2, pos, -hit.score))
    by_id = {lib["id"]: lib for lib in libs}
    return [by_id[k] for k in sorted(ranked, key=lambda k: ranked[k])]


def _library_block(lib: dict[str, Any]) -> str:
    lines = [
        f"- Title: {lib['title']}",
        f"- Context7-compatible library ID: {lib['id']}",
        f"- Description: {lib['description']}",
        f"- Code Snippets: {lib['total_snippets']}",
        f"- Trust Score: {lib['trust_score']}",
    ]
    if lib.get("versions"):
        lines.append(f"- Versions: {', '.join(lib['versions'])}")
    return "\n".join(lines)


def _snippet_text(s: dict[str, Any]) -> str:
    return (
        f"TITLE: {s['title']}\nDESCRIPTION: {s['description']}\nSOURCE: {s['source']}\n\n"
        f"LANGUAGE: {s['language']}\nCODE:\n```{s['language']}\n{s['code']}\n```"
    )


def _library(env: AppEnv, library_id: str) -> tuple[dict[str, Any], str | None]:
    """The library an id names, and the version it asks for (None: latest)."""
    parts = [p for p in library_id.strip().split("/") if p]
    if len(parts) < 2:
        raise ToolFailure(NOT_FOUND, kind="not_found")
    lib = env.tree.top("library", f"/{parts[0]}/{parts[1]}")
    if lib is None:
        raise ToolFailure(NOT_FOUND, kind="not_found")
    if len(parts) == 2:
        return lib, None
    version = "/".join(parts[2:])
    if version not in lib.get("versions", []):
        raise ToolFailure(
            f"Version {version!r} of {lib['id']} is not indexed. Available versions: {', '.join(lib['versions'])}. "
            f"Use {lib['id']} for the latest documentation.",
            kind="conflict",
        )
    return lib, version


@APP.tool(name="resolve-library-id")
def resolve_library_id(
    env: AppEnv,
    libraryName: Annotated[
        str,
        Field(
            min_length=1,
            max_length=200,
            description=("Name of the library or package to look up, e.g. 'react' or 'fastapi'."),
        ),
    ],
) -> str:
    """Look up a package or product name and list the matching Context7 libraries with their Context7-compatible
    library IDs.

    Call this before 'get-library-docs' to get a valid library ID, unless the user already gave one in the form
    '/org/project' or '/org/project/version'. Prefer exact name matches, then the relevance of the description,
    documentation coverage (Code Snippets) and the Trust Score."""
    if not libraryName.strip():
        raise ToolFailure("libraryName must not be blank", kind="range")
    matches = resolve(env, libraryName)
    if not matches:
        raise ToolFailure("No documentation libraries found matching your query.", kind="not_found")
    return PREAMBLE + "\n----------\n".join(_library_block(lib) for lib in matches)


@APP.tool(name="get-library-docs")
def get_library_docs(
    env: AppEnv,
    context7CompatibleLibraryID: Annotated[
        str,
        Field(
            min_length=1,
            max_length=200,
            description=(
                "Exact Context7-compatible library ID, e.g. '/vercel/next.js' or "
                "'/vercel/next.js/v14.3.0-canary.87', as "
                "returned by 'resolve-library-id' or given by the user ('/org/project' or '/org/project/version')."
            ),
        ),
    ],
    topic: Annotated[
        str | None,
        Field(max_length=200, description=("Focus the documentation on a topic, e.g. 'hooks' or 'routing'.")),
    ] = None,
    tokens: Annotated[
        int | None,
        Field(
            le=MAXIMUM_TOKENS,
            description=(
                f"Upper bound on the documentation returned, in tokens (default {DEFAULT_TOKENS}; values below "
                f"{MINIMUM_TOKENS} count as {MINIMUM_TOKENS}). More tokens give more context."
            ),
        ),
    ] = None,
) -> str:
    """Fetch current documentation and code examples for a library. Needs the exact Context7-compatible library ID
    from 'resolve-library-id', unless the user gave an ID in the form '/org/project' or '/org/project/version'."""
    budget = DEFAULT_TOKENS if tokens is None else max(tokens, MINIMUM_TOKENS)
    lib, _version = _library(env, context7CompatibleLibraryID)
    snippets = sorted(lib.get("snippets", {}).values(), key=lambda s: s["snippet_id"])
    if topic and topic.strip():
        index = Index(
            (
                (
                    s["snippet_id"],
                    {
                        "title": s["title"],
                        "topics": " ".join(s["topics"]),
                        "description": s["description"],
                        "code": s["code"],
                    },
                )
                for s in snippets
            ),
            {"title": 3, "topics": 3, "description": 1, "code": 1},
        )
        hits = index.score_terms(query_terms(topic), min_should_match=0.0)
        if hits:
            by_id = {s["snippet_id"]: s for s in snippets}
            snippets = [by_id[h.key] for h in hits]
    parts: list[str] = []
    used = 0
    for s in snippets:
        text = _snippet_text(s)
        cost = estimate_tokens(text) + (estimate_tokens(SEPARATOR) if parts else 0)
        if parts and used + cost > budget:
            break
        parts.append(text)
        used += cost
    return SEPARATOR.join(parts)
