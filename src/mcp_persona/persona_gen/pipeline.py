"""Persona-Gen end to end: chains -> prototypes -> enriched drafts -> fuzzy tasks -> review candidates.

Each candidate is checked with :func:`mcp_persona.protocols.persona.validate.check_task` on the way out, so the review
file says which ones already pass; a person then accepts, edits or rejects them
(:mod:`mcp_persona.persona_gen.review`).
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from mcp_persona.apps import get_app
from mcp_persona.clock import DEFAULT_CLOCK, TaskClock
from mcp_persona.llm.base import ChatClient, ModelError
from mcp_persona.persona_gen.checkpoints import build_checkpoints, reference_answer
from mcp_persona.persona_gen.enrich import Draft, EnrichError, enrich
from mcp_persona.persona_gen.fuzzify import Fuzzed, fuzzify
from mcp_persona.persona_gen.graph import ToolGraph, build_graph
from mcp_persona.persona_gen.prototype import Prototype, PrototypeError, prototype
from mcp_persona.persona_gen.sample import Chain, llm_realism, sample_chains
from mcp_persona.protocols.persona.spec import PersonaSpec, PersonaTask
from mcp_persona.scoring.normalize import appears_in
from mcp_persona.tasks import Checkpoint, GoldCall, GoldStep, OtherCheckpoint, SearchCheckpoint, Task

SINGLE_CATEGORIES = ("collaboration", "content", "social", "email")


@dataclass
class Candidate:
    task: Task
    chain: Chain
    prototype: Prototype
    notes: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)  # from check_task; empty: the task already passes

    def to_json(self) -> dict[str, Any]:
        return {"id": self.task.id, "status": "pending", "notes": self.notes, "problems": self.problems,
                "chain": self.chain.to_json(), "prototype": self.prototype.to_json(),
                "task": task_to_json(self.task)}


def task_to_json(task: Task) -> dict[str, Any]:
    """The task as a task file holds it: fields (of the task and of its spec) left at their empty default are
    dropped."""
    data = task.model_dump(mode="json")
    spec = data["spec"]
    spec["checkpoints"] = [{k: v for k, v in cp.items() if v is not None} for cp in spec["checkpoints"]]
    data["spec"] = {k: v for k, v in spec.items() if v not in (None, [], {})}
    return {k: v for k, v in data.items() if v not in (None, [], {}) and not (k == "seed" and v == 0)}


@dataclass
class GenStats:
    chains: int = 0
    prototyped: int = 0
    enriched: int = 0
    candidates: int = 0
    valid: int = 0
    dropped: Counter[str] = field(default_factory=Counter)  # why chains fell out, by stage

    def to_json(self) -> dict[str, Any]:
        return {"chains": self.chains, "prototyped": self.prototyped, "enriched": self.enriched,
                "candidates": self.candidates, "valid": self.valid, "dropped": dict(self.dropped)}


def category_of(servers: Sequence[str]) -> str:
    if len(servers) == 1:
        cat = get_app(servers[0]).category
        return cat if cat in SINGLE_CATEGORIES else "other"
    if "lark" in servers:
        return "lark_centric"
    return "rednote_centric" if "rednote" in servers else "hodgepodge"


def contexts_for(chain: Chain, rng: random.Random, persona: str | None = None) -> dict[str, str] | None:
    """One persona for every personalized server of the chain (the same person everywhere)."""
    personal = [s for s in chain.servers if get_app(s).personalized]
    shared = sorted(set.intersection(*(set(get_app(s).context_ids()) for s in personal))) if personal else []
    if personal and not shared:
        return None
    pick = persona if persona in shared else (rng.choice(shared) if shared else None)
    out = {}
    for s in chain.servers:
        ids = get_app(s).context_ids()
        if not ids:
            return None
        out[s] = pick if s in personal else ids[0]
    return out  # type: ignore[return-value]


def assemble(draft: Draft, fuzzed: Fuzzed, checkpoints: list[Checkpoint], *, task_id: str, suite: str) -> Task:
    given = fuzzed.instruction + "\n" + "\n".join(fuzzed.necessary_context.values())
    kept = [cp for cp in checkpoints
            if not (isinstance(cp, SearchCheckpoint) and any(appears_in(v, given) for v in cp.gt_value))]
    if not kept:
        last = draft.steps[-1]
        kept = [OtherCheckpoint(summary=f"Call {last.tool} successfully", server=last.server, tool=last.tool)]
    n = len(draft.steps)
    spec = PersonaSpec(
        category=category_of([s.server for s in draft.servers]),  # type: ignore[arg-type]
        variant="long" if n >= 4 else "short", necessary_context=fuzzed.necessary_context,
        unnecessary_context=fuzzed.unnecessary_context, checkpoints=kept,
        difficulty="easy" if n <= 2 else "medium" if n <= 4 else "hard", implicit_context=fuzzed.implicit_context)
    return PersonaTask(
        id=task_id, suite=suite, instruction=fuzzed.instruction, servers=draft.servers, clock=draft.clock,
        gold=[GoldStep(calls=[GoldCall(server=s.server, tool=s.tool, arguments=s.arguments)]) for s in draft.steps],
        reference_answer=reference_answer(kept), spec=spec,
    )


async def make_candidate(client: ChatClient, graph: ToolGraph, chain: Chain, *, task_id: str, suite: str,
                         contexts: dict[str, str], clock: TaskClock = DEFAULT_CLOCK, seed: int = 0,
                         validate: bool = True, proto: Prototype | None = None) -> Candidate:
    """One chain through prototyping, enrichment, fuzzification and (optionally) validation. Raises
    :class:`PrototypeError` or :class:`EnrichError` when the chain cannot become a task."""
    proto = proto or await prototype(client, graph, chain)
    draft = await enrich(graph, chain, proto, contexts=contexts, clock=clock, seed=seed)
    cps = build_checkpoints(draft)
    gt = [v for cp in cps if isinstance(cp, SearchCheckpoint) for v in cp.gt_value]
    fuzzed = fuzzify(draft, keep=gt, seed=seed)
    task = assemble(draft, fuzzed, cps, task_id=task_id, suite=suite)
    notes = [f"prototype: {proto.template}", f"S_inst: {draft.instruction}", *fuzzed.notes]
    problems: list[str] = []
    if validate:
        from mcp_persona.protocols.persona.validate import check_task

        problems = await check_task(task)
    return Candidate(task, chain, proto, notes, problems)


async def generate(
    client: ChatClient,
    *,
    servers: Sequence[str],
    n: int,
    seed: int = 0,
    max_len: int = 3,
    min_len: int = 1,
    cross_server: bool = False,
    graph: ToolGraph | None = None,
    suite: str = "generated",
    persona: str | None = None,
    validate: bool = True,
    realism_check: bool = False,
    oversample: int = 3,
    progress: Callable[[str], None] | None = None,
) -> tuple[list[Candidate], GenStats]:
    """Up to ``n`` review candidates from chains over ``servers`` (sampling ``oversample * n`` chains,
    since some fall out on the way). ``progress`` gets one line per chain tried."""
    say = progress or (lambda _line: None)
    graph = graph or await build_graph(servers)
    rng = random.Random(seed)
    chains = sample_chains(graph, n=n * oversample, servers=servers, max_len=max_len, min_len=min_len, seed=seed,
                           cross_server=cross_server)
    stats = GenStats(chains=len(chains))
    if realism_check:
        chains = [c for c, _ in await llm_realism(client, graph, chains)]
        stats.dropped["unrealistic"] = stats.chains - len(chains)
    out: list[Candidate] = []
    prefix = f"gen_{'_'.join(servers)}_s{seed}"
    for k, chain in enumerate(chains, 1):
        if len(out) >= n:
            break
        label = f"[{k}/{len(chains)}] {' -> '.join(chain.tools)}"
        contexts = contexts_for(chain, rng, persona)
        if contexts is None:
            stats.dropped["no shared persona"] += 1
            say(f"{label}: dropped, no persona shared by its servers")
            continue
        try:
            proto = await prototype(client, graph, chain)
            stats.prototyped += 1
            cand = await make_candidate(client, graph, chain, task_id=f"{prefix}_{len(out) + 1:03d}", suite=suite,
                                        contexts=contexts, seed=rng.randrange(10**6), validate=validate, proto=proto)
        except PrototypeError as exc:
            stats.dropped["malformed prototype"] += 1
            say(f"{label}: dropped, {exc}")
            continue
        except EnrichError as exc:
            stats.dropped["enrichment: " + str(exc)[:80]] += 1
            say(f"{label}: dropped, {exc}")
            continue
        except ModelError as exc:  # one failed request loses one chain, not the run
            stats.dropped[f"model error: {getattr(exc, 'category', None) or 'other'}"] += 1
            say(f"{label}: dropped, model error: {exc}")
            continue
        stats.enriched += 1
        stats.valid += not cand.problems
        out.append(cand)
        say(f"{label}: {cand.task.id} " + ("passes validation" if not cand.problems
                                             else f"({len(cand.problems)} validation problems)"))
    stats.candidates = len(out)
    return out, stats
