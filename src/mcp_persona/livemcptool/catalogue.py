"""LiveMCPTool's servers and tools as shipped data (``data/livemcptool/catalogue.json``).

Server keys, categories, tool names and input schemas are LiveMCPTool's; the descriptions are
this project's own (see ``scripts/build_livemcptool_catalogue.py``). Each server is ``real`` (an
installed server run over stdio, :mod:`.real`) or ``simulated`` (the shared engine, :mod:`.engine`);
each simulated tool carries the behaviour kind the engine gives it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any, Literal

ServerKind = Literal["real", "simulated"]
Behaviour = Literal["search", "lookup", "create", "update", "delete", "compute"]


@dataclass(frozen=True)
class ToolEntry:
    name: str
    description: str
    input_schema: dict[str, Any]
    behaviour: Behaviour


@dataclass(frozen=True)
class ServerEntry:
    name: str
    category: str
    kind: ServerKind
    description: str
    tools: tuple[ToolEntry, ...]

    @property
    def tool_names(self) -> list[str]:
        return [t.name for t in self.tools]

    def tool(self, name: str) -> ToolEntry | None:
        return next((t for t in self.tools if t.name == name), None)


@cache
def catalogue() -> dict[str, ServerEntry]:
    """Every server by its LiveMCPTool key, in the catalogue's order."""
    path = resources.files("mcp_persona") / "data" / "livemcptool" / "catalogue.json"
    raw = json.loads(path.read_text(encoding="utf-8"))
    out: dict[str, ServerEntry] = {}
    for s in raw["servers"]:
        tools = tuple(ToolEntry(t["name"], t["description"], t["input_schema"], t["behaviour"]) for t in s["tools"])
        out[s["name"]] = ServerEntry(s["name"], s["category"], s["kind"], s["description"], tools)
    return out


def server_names(kind: ServerKind | None = None) -> list[str]:
    return [name for name, s in catalogue().items() if kind is None or s.kind == kind]
