"""The tool library every MCPAgentBench candidate list is drawn from: every tool of every server whose
app belongs to this protocol's library, by its real (bare) name."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Any

from mcp_persona.apps import app_names, get_app

LIBRARY = "mcpagentbench"


@dataclass(frozen=True)
class LibraryTool:
    server: str
    name: str
    description: str
    schema: dict[str, Any]

    @property
    def defaults(self) -> dict[str, Any]:
        return {k: p["default"] for k, p in self.schema.get("properties", {}).items() if "default" in p}

    @property
    def sets(self) -> frozenset[str]:
        """The list parameters that are sets (``uniqueItems``): their order does not count."""
        return frozenset(k for k, p in self.schema.get("properties", {}).items()
                         if any(b.get("uniqueItems") for b in [p, *p.get("anyOf", [])]))

    @property
    def enums(self) -> dict[str, list[Any]]:
        out = {}
        for k, p in self.schema.get("properties", {}).items():
            for branch in [p, *p.get("anyOf", [])]:
                if "enum" in branch:
                    out[k] = branch["enum"]
        return out


@cache
def library() -> dict[str, LibraryTool]:
    """Tool name -> tool; names are unique across the library (checked here, once)."""
    tools: dict[str, LibraryTool] = {}
    for name in app_names():
        app = get_app(name)
        if app.library != LIBRARY:
            continue
        for t in app.sdk_tools:
            if t.name in tools:
                raise ValueError(f"tool {t.name!r} is in both {tools[t.name].server} and {name}")
            tools[t.name] = LibraryTool(name, t.name, t.description or "", t.parameters)
    return tools
