"""Tool-chain sampling over the dependency graph, under the paper's five constraints (§3.3).

1. *Dependency*: chains are built from units, each a connected single / pair / triple of tools of one
   server (a pair A->B; a triple A->B->C or A->B, A->C), never from loose tools.
2. *Personalization*: every chain has at least one tool of a personalized app.
3. *Deduplication*: no two chains have the same tool sequence.
4. *Coherence*: every tool after the first has an input fed by an earlier tool's output (an edge);
   with ``complete=True`` (the default) every required key input (ids, paths; not values a person
   can state, like an email) must be fed within the chain, so the chain is solvable from the request.
5. *Realism*: a filter hook (any callable), by default :func:`plausible`; :func:`llm_realism` asks a
   model as a second pass.

Sampling is seeded: the same graph, arguments and seed give the same chains.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from mcp_persona.llm.base import ChatClient
from mcp_persona.persona_gen.fields import GIVABLE, TEXT
from mcp_persona.persona_gen.graph import Link, ToolGraph


@dataclass(frozen=True)
class Feed:
    src: int  # index of the producing tool in the chain
    dst: int
    link: Link
    kind: str  # "key" or "text"


@dataclass(frozen=True)
class Chain:
    tools: tuple[str, ...]  # "server:tool"
    units: tuple[int, ...]  # sizes of the units the chain was assembled from, in order
    feeds: tuple[Feed, ...]

    @property
    def servers(self) -> list[str]:
        return list(dict.fromkeys(t.split(":", 1)[0] for t in self.tools))

    def feeds_into(self, i: int) -> list[Feed]:
        return [f for f in self.feeds if f.dst == i]

    def to_json(self) -> dict[str, object]:
        return {"tools": list(self.tools), "units": list(self.units),
                "feeds": [{"src": f.src, "dst": f.dst, "out": f.link.out_path, "in": f.link.in_path,
                           "link": f.link.name, "kind": f.kind} for f in self.feeds]}

    @classmethod
    def from_json(cls, data: dict[str, object]) -> Chain:
        feeds = tuple(Feed(int(f["src"]), int(f["dst"]), Link(f["out"], f["in"], f["link"]), f["kind"])
                      for f in data["feeds"])  # type: ignore[index, union-attr, attr-defined]
        return cls(tuple(data["tools"]), tuple(data["units"]), feeds)  # type: ignore[arg-type]


RealismCheck = Callable[[Chain], bool]

# account plumbing and tools no user asks for in a personal task
_PLUMBING = re.compile(r"login|cookie|setup_email|configure_email|test_email|supported_providers|bot_user|"
                       r"kill_process|list_categories")


_DELETE = re.compile(r"delete|remove")


def plausible(chain: Chain) -> bool:
    """The default realism filter: no account plumbing, and nothing done on a server after deleting there."""
    if any(_PLUMBING.search(t) for t in chain.tools):
        return False
    for i, t in enumerate(chain.tools):
        server = t.split(":", 1)[0]
        if _DELETE.search(t.split(":", 1)[1]) and any(u.startswith(server + ":") for u in chain.tools[i + 1:]):
            return False
    return True


def feeds_for(graph: ToolGraph, tools: Sequence[str], *, cross_text: bool = True) -> list[Feed]:
    """Every feed between ``tools`` (earlier to later), key links first."""
    feeds: list[Feed] = []
    for j in range(1, len(tools)):
        for i in range(j):
            edge = graph.edge(tools[i], tools[j])
            if edge is None or (edge.kind == TEXT and not cross_text):
                continue
            feeds.extend(Feed(i, j, lk, edge.kind) for lk in edge.links)
    return feeds


def is_coherent(graph: ToolGraph, tools: Sequence[str]) -> bool:
    fed = {f.dst for f in feeds_for(graph, tools)}
    return all(j in fed for j in range(1, len(tools)))


def is_complete(graph: ToolGraph, tools: Sequence[str]) -> bool:
    """Every required key input of every tool is fed by an earlier tool, or can be stated by a person."""
    feeds = feeds_for(graph, tools, cross_text=False)
    for j, key in enumerate(tools):
        node = graph.nodes[key]
        fed = {f.link.in_path for f in feeds if f.dst == j}
        for f in node.inputs:
            keys = set(f.links) - {TEXT}
            if f.required and keys and not keys & GIVABLE and f.path not in fed:
                return False
    return True


def units_of(graph: ToolGraph, servers: Sequence[str]) -> list[tuple[str, ...]]:
    """Connected singles, pairs and triples of tools of one server, in a stable order."""
    allowed = set(servers)
    nodes = sorted(k for k, n in graph.nodes.items() if n.server in allowed)
    units: list[tuple[str, ...]] = [(k,) for k in nodes]
    key_edges = sorted((e.src, e.dst) for e in graph.edges if e.kind == "key"
                       and e.src in graph.nodes and graph.nodes[e.src].server in allowed
                       and graph.nodes[e.src].server == graph.nodes[e.dst].server)
    units.extend(key_edges)
    for a, b in key_edges:
        for c in nodes:
            if c in (a, b) or graph.nodes[c].server != graph.nodes[a].server:
                continue
            ec, bc = graph.edge(a, c), graph.edge(b, c)
            if (ec and ec.kind == "key") or (bc and bc.kind == "key"):
                units.append((a, b, c))
    return units


def sample_chains(
    graph: ToolGraph,
    *,
    n: int,
    servers: Sequence[str] | None = None,
    max_len: int = 3,
    min_len: int = 1,
    seed: int = 0,
    cross_server: bool = False,
    complete: bool = True,
    realism: RealismCheck | None = plausible,
    exclude: Sequence[Sequence[str]] = (),
    max_tries: int | None = None,
) -> list[Chain]:
    """Up to ``n`` distinct chains of ``min_len..max_len`` tools of ``servers`` (default: all)."""
    if not 1 <= min_len <= max_len:
        raise ValueError("need 1 <= min_len <= max_len")
    rng = random.Random(seed)
    units = units_of(graph, servers or graph.servers())
    if not units:
        return []
    seen: set[tuple[str, ...]] = {tuple(x) for x in exclude}
    chains: list[Chain] = []
    for _ in range(n * 200 if max_tries is None else max_tries):
        if len(chains) >= n:
            break
        target = rng.randint(min_len, max_len)
        chain = _assemble(graph, units, target, rng, cross_server)
        if chain is None or chain.tools in seen:
            continue
        if not any(graph.nodes[t].personalized for t in chain.tools):
            continue
        if complete and not is_complete(graph, chain.tools):
            continue
        if realism is not None and not realism(chain):
            continue
        seen.add(chain.tools)
        chains.append(chain)
    return chains


def _assemble(graph: ToolGraph, units: list[tuple[str, ...]], target: int, rng: random.Random,
              cross_server: bool) -> Chain | None:
    """A chain of ``target`` tools: a first unit, then units fed by the chain so far. Single tools are units
    only for a one-tool chain or to fill the last place."""
    first = [u for u in units if len(u) <= target and (len(u) > 1 or target == 1)]
    by_server: dict[str, list[tuple[str, ...]]] = {}
    for u in first:
        by_server.setdefault(graph.nodes[u[0]].server, []).append(u)
    if not by_server:
        return None
    tools = list(rng.choice(by_server[rng.choice(sorted(by_server))]))  # servers equally likely
    sizes = [len(tools)]
    while len(tools) < target:
        room = target - len(tools)
        options = [u for u in units if len(u) <= room and (len(u) > 1 or room == 1) and not set(u) & set(tools)
                   and (cross_server or graph.nodes[u[0]].server == graph.nodes[tools[0]].server)
                   and any(graph.edge(t, u[0]) for t in tools)]
        if cross_server:  # when crossing is allowed, cross when possible
            here = {graph.nodes[t].server for t in tools}
            options = [u for u in options if graph.nodes[u[0]].server not in here] or options
        if not options:
            return None
        unit = rng.choice(options)
        tools.extend(unit)
        sizes.append(len(unit))
    if not is_coherent(graph, tools):
        return None
    return Chain(tuple(tools), tuple(sizes), tuple(feeds_for(graph, tools)))


# -- realism by a model ---------------------------------------------------------------------------------------------
REALISM_PROMPT = """You judge candidate tasks for a benchmark of personal assistant agents.
A candidate is a chain of app tools called in order. Say whether a real person would plausibly ask an
assistant for something that needs exactly this chain, in their own apps. Answer with one JSON object
and nothing else: {"realistic": true or false, "reason": "<one short sentence>"}"""


async def llm_realism(client: ChatClient, graph: ToolGraph, chains: Sequence[Chain]) -> list[tuple[Chain, str]]:
    """The chains a model calls realistic, each with its reason. An unreadable verdict keeps the chain
    (people review every candidate anyway) with the reason "unreadable verdict"."""
    kept: list[tuple[Chain, str]] = []
    for chain in chains:
        lines = [f"{i + 1}. {t}: {graph.nodes[t].description[:200]}" for i, t in enumerate(chain.tools)]
        messages = [{"role": "system", "content": REALISM_PROMPT},
                    {"role": "user", "content": "Chain:\n" + "\n".join(lines)}]
        resp = await client.complete(messages, [])
        try:
            verdict = json.loads(_strip_fence(resp.content or ""))
            ok, reason = bool(verdict["realistic"]), str(verdict.get("reason", ""))
        except (json.JSONDecodeError, KeyError, TypeError):
            ok, reason = True, "unreadable verdict"
        if ok:
            kept.append((chain, reason))
    return kept


def _strip_fence(text: str) -> str:
    m = re.fullmatch(r"\s*```(?:json)?\s*(.*?)\s*```\s*", text, re.DOTALL)
    return m.group(1) if m else text.strip()
