"""The tool dependency graph: nodes are (server, tool); A -> B when an output of A can feed an input of B.

Inputs come from the tools' JSON input schemas, outputs from observation
(:mod:`mcp_persona.persona_gen.observe`): a tool whose results were never seen has no outgoing edge.
Within a server an edge needs a key link (ids, tokens, paths: ``chat_id``, ``filepath``...); between
servers free text may also flow (an event's summary into a note's content), as a ``text`` edge.
Nothing is built at import time: :func:`build_graph` builds on demand, :func:`load_graph` caches the
result in a JSON file.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from mcp_persona.apps import app_names, get_app
from mcp_persona.persona_gen.fields import TEXT, InField, OutField, input_fields
from mcp_persona.persona_gen.observe import observe

GRAPH_VERSION = 1


@dataclass(frozen=True)
class ToolNode:
    server: str
    tool: str
    personalized: bool
    mutates: bool
    description: str
    inputs: tuple[InField, ...]
    outputs: tuple[OutField, ...]
    observed: bool  # a successful call was seen

    @property
    def key(self) -> str:
        return f"{self.server}:{self.tool}"

    def required_links(self) -> set[str]:
        return {link for f in self.inputs if f.required for link in f.links if link != TEXT}


@dataclass(frozen=True)
class Link:
    out_path: str
    in_path: str
    name: str  # the link name the two fields share


@dataclass(frozen=True)
class Edge:
    src: str
    dst: str
    kind: str  # "key" (ids, paths) or "text" (free text, between servers only)
    links: tuple[Link, ...]

    @property
    def names(self) -> set[str]:
        return {lk.name for lk in self.links}


@dataclass
class ToolGraph:
    nodes: dict[str, ToolNode]
    edges: list[Edge]
    skipped: list[str] = field(default_factory=list)
    _out: dict[str, list[Edge]] = field(default_factory=dict, repr=False)
    _pair: dict[tuple[str, str], Edge] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        for e in self.edges:
            self._out.setdefault(e.src, []).append(e)
            self._pair[(e.src, e.dst)] = e

    def edge(self, src: str, dst: str) -> Edge | None:
        return self._pair.get((src, dst))

    def successors(self, key: str) -> list[Edge]:
        return self._out.get(key, [])

    def servers(self) -> list[str]:
        return sorted({n.server for n in self.nodes.values()})

    def stats(self) -> dict[str, Any]:
        kinds = Counter(e.kind for e in self.edges)
        per_server = Counter(self.nodes[e.src].server for e in self.edges if e.kind == "key")
        return {"nodes": len(self.nodes), "edges": len(self.edges), "key_edges": kinds["key"],
                "text_edges": kinds["text"], "observed_nodes": sum(n.observed for n in self.nodes.values()),
                "personalized_nodes": sum(n.personalized for n in self.nodes.values()),
                "servers": len(self.servers()), "key_edges_per_server": dict(sorted(per_server.items())),
                "skipped": list(self.skipped)}

    # -- persistence ---------------------------------------------------------------------------------------------
    def to_json(self) -> dict[str, Any]:
        return {"version": GRAPH_VERSION, "servers": self.servers(), "skipped": self.skipped,
                "nodes": [asdict(n) for n in self.nodes.values()], "edges": [asdict(e) for e in self.edges]}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> ToolGraph:
        if data.get("version") != GRAPH_VERSION:
            raise ValueError(f"tool graph version {data.get('version')!r}, expected {GRAPH_VERSION}")
        nodes = {}
        for n in data["nodes"]:
            node = ToolNode(**{**n, "inputs": tuple(InField(f["path"], tuple(f["links"]), f["required"])
                                                    for f in n["inputs"]),
                               "outputs": tuple(OutField(f["path"], tuple(f["links"])) for f in n["outputs"])})
            nodes[node.key] = node
        edges = [Edge(e["src"], e["dst"], e["kind"], tuple(Link(**lk) for lk in e["links"])) for e in data["edges"]]
        return cls(nodes, edges, list(data.get("skipped", [])))


def connect(nodes: Iterable[ToolNode]) -> list[Edge]:
    """Every edge between ``nodes`` (no self-loops)."""
    node_list = list(nodes)
    edges: list[Edge] = []
    for a in node_list:
        for b in node_list:
            if a.key == b.key:
                continue
            same = a.server == b.server
            links = [Link(o.path, i.path, name) for i in b.inputs for o in a.outputs
                     for name in sorted(set(o.links) & set(i.links)) if name != TEXT]
            kind = "key"
            if not links and not same and not a.mutates:  # a write's confirmation is not content
                links = [Link(o.path, i.path, TEXT) for i in b.inputs for o in a.outputs
                         if TEXT in o.links and TEXT in i.links][:4]
                kind = "text"
            if links:
                edges.append(Edge(a.key, b.key, kind, tuple(_dedupe(links))))
    return edges


def _dedupe(links: list[Link]) -> list[Link]:
    seen: set[tuple[str, str]] = set()
    out = []
    for lk in links:
        if (lk.in_path, lk.name) not in seen:  # one producer path per input field and link is enough
            seen.add((lk.in_path, lk.name))
            out.append(lk)
    return out


async def build_graph(servers: Sequence[str] | None = None, *, probe_rounds: int = 2) -> ToolGraph:
    """Observe the tools of ``servers`` (default: every app) and connect them."""
    names = list(servers) if servers else app_names()
    obs = await observe(names, probe_rounds=probe_rounds)
    nodes: dict[str, ToolNode] = {}
    for name in names:
        if any(s.startswith(f"{name}:") for s in obs.skipped):
            continue
        app = get_app(name)
        for t in app.sdk_tools:
            key = f"{name}:{t.name}"
            nodes[key] = ToolNode(name, t.name, app.personalized, app.mutates(t.name), (t.description or "").strip(),
                                  tuple(f for f in input_fields(t.parameters, tool=t.name) if f.links),
                                  tuple(obs.outputs.get(key, {}).values()), obs.calls.get(key, 0) > 0)
    return ToolGraph(nodes, connect(nodes.values()), list(obs.skipped))


def load_graph(servers: Sequence[str] | None = None, *, cache: Path | None = None, probe_rounds: int = 2,
               refresh: bool = False) -> ToolGraph:
    """The graph of ``servers``, read from ``cache`` when it holds exactly these servers' tools, else built
    (and written there). Synchronous: for CLIs and scripts; async code awaits :func:`build_graph`."""
    import anyio

    names = sorted(servers) if servers else app_names()
    if cache is not None and cache.is_file() and not refresh:
        try:
            graph = ToolGraph.from_json(json.loads(cache.read_text(encoding="utf-8")))
            skipped = {s.split(":")[0] for s in graph.skipped}
            tools = {f"{n}:{t}" for n in names if n not in skipped for t in get_app(n).tool_names}
            if set(graph.nodes) == tools:  # same servers, same tools: still current
                return graph
        except (ValueError, KeyError, TypeError, json.JSONDecodeError):
            pass
    graph = anyio.run(lambda: build_graph(names, probe_rounds=probe_rounds))
    if cache is not None:
        cache.parent.mkdir(parents=True, exist_ok=True)
        cache.write_text(json.dumps(graph.to_json(), ensure_ascii=False, indent=1), encoding="utf-8")
    return graph
