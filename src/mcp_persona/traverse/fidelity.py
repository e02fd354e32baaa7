"""Simulation fidelity (paper §4.3, Table 4): replay a trace pool against a simulator.

For every trace the simulator starts from the trace's own pre-call state (context
reconstruction, :mod:`.reconstruct`) and gets the recorded arguments; its answer is compared with
the real one:

* **behavioural alignment**: a confusion matrix with real success as the positive class (TP both
  succeed, TN both fail, FP the simulator accepts what the real server rejected, FN it rejects
  what the real server accepted), and accuracy, precision, recall, F1. Success is the
  discriminator's rule label (:mod:`.discriminator`) of each side; traces the prober labelled
  ``unexpected_failure`` are left out (they are not verified calls);
* **response similarity**: TF-IDF cosine, ROUGE-L, BLEU and METEOR over canonical JSON
  (:mod:`.similarity`), averaged over the traces;
* **state match** (an addition to the paper's table): of the traces whose post-call state the
  prober captured, the share where the simulator's post-call state means the same (same graph;
  same paths, types and contents).
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import asdict, dataclass, field
from typing import Any, Protocol

from mcp import Client

from mcp_persona.apps.base import App, AppEnv
from mcp_persona.traverse.discriminator import classify
from mcp_persona.traverse.models import Pool, Trace
from mcp_persona.traverse.probe import response_text
from mcp_persona.traverse.reconstruct import deconstruct, load_env, reconstruct, state_view
from mcp_persona.traverse.similarity import Scorer, meteor_mode


class Simulator(Protocol):
    name: str
    note: str

    async def call(self, trace: Trace) -> tuple[str, bool, dict[str, Any] | None]:
        """(response text, is_error, post-call state in the real server's form or None)."""
        ...


class AppSimulator:
    """A simulated app of the library, fed each trace's reconstructed pre-call state.

    ``replica=True`` (the default for the reference-server replicas) drops unknown top-level
    arguments the way the real zod-validated server does; see :mod:`mcp_persona.apps._reference`.
    """

    def __init__(self, app: App, *, name: str = "Tool-Traversal", replica: bool = True) -> None:
        self.app = app
        self.name = name
        self.replica = replica
        self._client: Client | None = None
        self._live: Any = None
        self.note = f"the {app.name} app" + (" in replica mode (unknown top-level arguments dropped)"
                                             if replica and _has_replica(app) else "")

    def _env(self, trace: Trace) -> AppEnv:
        data = reconstruct(trace.pre_state, app=self.app)
        if data is None:
            ids = self.app.context_ids()
            data = self.app.load_context(ids[0]) if ids else {}
        return load_env(self.app, data)

    def _server(self, env: AppEnv) -> Any:
        if self.replica and _has_replica(self.app):
            return self.app.server(env, replica=True)  # type: ignore[call-arg]
        return self.app.server(env)

    @asynccontextmanager
    async def session(self) -> AsyncIterator[None]:
        """One server and client for a whole replay; each call swaps in its trace's state."""
        self._live = self._server(self._env_placeholder())
        async with Client(self._live) as client:
            self._client = client
            try:
                yield
            finally:
                self._client = None
                self._live = None

    def _env_placeholder(self) -> AppEnv:
        return load_env(self.app, {})

    async def call(self, trace: Trace) -> tuple[str, bool, dict[str, Any] | None]:
        env = self._env(trace)
        if self._client is not None and self._live is not None:
            self._live.env = env
            result = await self._client.call_tool(trace.tool, trace.arguments)
        else:
            async with Client(self._server(env)) as client:
                result = await client.call_tool(trace.tool, trace.arguments)
        post = deconstruct(trace.pre_state["kind"], env.tree.data) if trace.pre_state else None
        return response_text(result), bool(result.is_error), post


def _has_replica(app: App) -> bool:
    from mcp_persona.apps._reference import ReferenceApp

    return isinstance(app, ReferenceApp)


@dataclass
class Outcome:
    trace_id: str
    tool: str
    error_class: str | None
    rule: str
    real_success: bool
    sim_success: bool
    real: str
    sim: str
    state_match: bool | None = None
    tfidf: float = 0.0
    rouge: float = 0.0
    rouge_recall: float = 0.0
    bleu: float = 0.0
    meteor: float = 0.0

    @property
    def agree(self) -> bool:
        return self.real_success == self.sim_success


@dataclass
class Report:
    simulator: str
    note: str
    n: int
    tp: int
    tn: int
    fp: int
    fn: int
    accuracy: float
    precision: float
    recall: float
    f1: float
    tfidf: float
    rouge: float
    bleu: float
    meteor: float
    rouge_recall: float = 0.0
    state_match: float | None = None
    state_checked: int = 0
    meteor_mode: str = ""
    excluded: int = 0
    outcomes: list[Outcome] = field(default_factory=list)

    def summary(self) -> dict[str, Any]:
        d = asdict(self)
        d.pop("outcomes")
        d["mismatches"] = [{"trace": o.trace_id, "tool": o.tool, "rule": o.rule, "real_success": o.real_success,
                            "sim_success": o.sim_success} for o in self.outcomes if not o.agree]
        return d


@asynccontextmanager
async def _nothing() -> AsyncIterator[None]:
    yield


def confusion(pairs: list[tuple[bool, bool]]) -> tuple[int, int, int, int]:
    """(TP, TN, FP, FN) of (real success, simulated success) pairs; real success is positive."""
    tp = sum(1 for r, s in pairs if r and s)
    tn = sum(1 for r, s in pairs if not r and not s)
    fp = sum(1 for r, s in pairs if not r and s)
    fn = sum(1 for r, s in pairs if r and not s)
    return tp, tn, fp, fn


def rates(tp: int, tn: int, fp: int, fn: int) -> tuple[float, float, float, float]:
    """(accuracy, precision, recall, F1); 0 where a denominator is 0."""
    n = tp + tn + fp + fn
    acc = (tp + tn) / n if n else 0.0
    prec = tp / (tp + fp) if tp + fp else 0.0
    rec = tp / (tp + fn) if tp + fn else 0.0
    f1 = 2 * prec * rec / (prec + rec) if prec + rec else 0.0
    return acc, prec, rec, f1


async def evaluate(pool: Pool, simulator: Simulator, *, include_unverified: bool = False) -> Report:
    traces = [t for t in pool.traces if include_unverified or t.label != "unexpected_failure"]
    excluded = len(pool.traces) - len(traces)
    outcomes: list[Outcome] = []
    session = getattr(simulator, "session", None)
    async with session() if session is not None else _nothing():
        results = [await simulator.call(t) for t in traces]
    for t, (text, is_error, post) in zip(traces, results, strict=True):
        state_match = None
        if post is not None and t.pre_state is not None:
            real_post = t.post_state if t.post_state is not None else t.pre_state
            state_match = state_view(real_post) == state_view(post)
        outcomes.append(Outcome(t.id, t.tool, t.error_class, t.rule, t.label == "success",
                                classify(text, is_error) == "success", t.response, text, state_match))
    scorer = Scorer([(o.real, o.sim) for o in outcomes])
    for i, o in enumerate(outcomes):
        s = scorer.score(i)
        o.tfidf, o.rouge, o.rouge_recall, o.bleu, o.meteor = s.tfidf, s.rouge, s.rouge_recall, s.bleu, s.meteor
    tp, tn, fp, fn = confusion([(o.real_success, o.sim_success) for o in outcomes])
    acc, prec, rec, f1 = rates(tp, tn, fp, fn)
    n = len(outcomes)

    def mean(attr: str) -> float:
        return sum(getattr(o, attr) for o in outcomes) / n if n else 0.0

    checked = [o.state_match for o in outcomes if o.state_match is not None]
    return Report(simulator.name, simulator.note, n, tp, tn, fp, fn, acc, prec, rec, f1, mean("tfidf"),
                  mean("rouge"), mean("bleu"), mean("meteor"), rouge_recall=mean("rouge_recall"),
                  state_match=sum(checked) / len(checked) if checked else None, state_checked=len(checked),
                  meteor_mode=meteor_mode(), excluded=excluded, outcomes=outcomes)


def table_rows(reports: list[Report]) -> list[list[str]]:
    rows = []
    for r in reports:
        rows.append([r.simulator, str(r.tp), str(r.tn), str(r.fp), str(r.fn), f"{100 * r.accuracy:.1f}",
                     f"{100 * r.precision:.1f}", f"{100 * r.recall:.1f}", f"{100 * r.f1:.1f}", f"{r.tfidf:.4f}",
                     f"{r.rouge:.4f}", f"{r.bleu:.4f}", f"{r.meteor:.4f}",
                     "-" if r.state_match is None else f"{100 * r.state_match:.1f}"])
    return rows


HEADERS = ["Method", "TP", "TN", "FP", "FN", "Acc", "Prec", "Rec", "F1", "TF-IDF", "ROUGE", "BLEU", "METEOR",
           "State"]


def markdown(reports: list[Report], title: str = "") -> str:
    lines = [f"**{title}**", ""] if title else []
    lines.append("| " + " | ".join(HEADERS) + " |")
    lines.append("|" + "---|" * len(HEADERS))
    lines += ["| " + " | ".join(row) + " |" for row in table_rows(reports)]
    return "\n".join(lines)


def to_json(pool: Pool, reports: list[Report]) -> str:
    return json.dumps({"server": pool.header.server, "traces": len(pool.traces),
                       "failing": sum(1 for t in pool.traces if t.label != "success"),
                       "reports": [r.summary() for r in reports]}, indent=2, ensure_ascii=False)
