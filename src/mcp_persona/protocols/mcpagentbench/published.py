"""Published MCPAgentBench runs as runs of this platform.

The peer releases, per model, a result file: ``evaluation_summary`` (``model_score`` is its TEFS and
``ignore_parallel_score`` its TFS, in percent) and ``detailed_results``, per task the gold
(``expected_tools`` / ``expected_inputs``) and what the model called (``tools_used`` / ``inputs_used``), one
list per assistant turn. Each task that imports is replayed here by :class:`RecordedAgent`, whose turns are
the recorded calls, against the imported task's environment, and scored like any run: the paper's rules
(with its name-only tools, so the published numbers come out) beside ours, and why they differ.

The peer's candidate list of each task was not released, so the replayed pool lists the gold tools and the
tools the model called; the model's tokens and time are only released as totals (kept in the summary).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mcp_persona.environment import Environment
from mcp_persona.protocols.base import PoolSpec, ToolPool
from mcp_persona.protocols.mcpagentbench import MCPAgentBenchProtocol
from mcp_persona.protocols.mcpagentbench.importer import task_id
from mcp_persona.protocols.mcpagentbench.library import library
from mcp_persona.protocols.mcpagentbench.scoring import NAME_ONLY, Steps, peer_tefs, peer_tfs
from mcp_persona.tasks import Task
from mcp_persona.trajectory import ToolCallEvent, Trajectory

AGENT = "published"  # the agent name of an imported run: its label reads "published/MODEL"
SUITE = "mcpagentbench-peer"  # the folder the imported tasks are written to, beside the runs
_FILE_NAME = re.compile(r"^(?P<model>.+?)_(?:[A-Za-z]+_)?test_run(?P<run>\d+)_results$")


@dataclass(frozen=True)
class PublishedRun:
    path: Path
    model: str
    run: int | None
    summary: dict[str, Any]
    results: list[dict[str, Any]]

    @property
    def folder(self) -> str:
        """The run folder's name: the model, and the run number when the file name has one."""
        return self.model if self.run is None else f"{self.model}-run{self.run}"


def model_name(path: Path) -> tuple[str, int | None]:
    """The model and run number the peer writes into a result file's name
    (``openai_gpt-5_general_test_run1_results.json``); a file named otherwise is its own stem."""
    m = _FILE_NAME.match(path.stem)
    return (m.group("model"), int(m.group("run"))) if m else (path.stem, None)


def read_results(path: Path) -> PublishedRun:
    """A released result file; ValueError says what is wrong with one that is not."""
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ValueError(f"{path}: not a readable JSON file ({exc})") from exc
    if not isinstance(raw, dict) or not isinstance(raw.get("detailed_results"), list) \
            or not isinstance(raw.get("evaluation_summary"), dict):
        raise ValueError(f"{path}: not an MCPAgentBench result file (expected an object with "
                         "'evaluation_summary' and a 'detailed_results' list)")
    needed = ("task_id", "expected_tools", "expected_inputs", "tools_used", "inputs_used")
    seen: set[str] = set()
    for i, row in enumerate(raw["detailed_results"]):
        lacking = [k for k in needed if not isinstance(row, dict) or k not in row]
        if lacking:
            raise ValueError(f"{path}: detailed_results[{i}] lacks {', '.join(lacking)}")
        if row["task_id"] in seen:
            raise ValueError(f"{path}: task {row['task_id']} is listed twice")
        seen.add(row["task_id"])
    summary = raw["evaluation_summary"]
    for key in ("model_score", "ignore_parallel_score"):
        if not isinstance(summary.get(key), int | float):
            raise ValueError(f"{path}: evaluation_summary has no number {key!r}")
    model, run = model_name(path)
    return PublishedRun(path, model, run, summary, raw["detailed_results"])


def steps(tools: Any, inputs: Any) -> list[list[tuple[str, dict[str, Any]]]]:
    """Turns (or gold steps) of (tool, arguments) as the peer pairs them: a step's tools with its inputs
    position by position; a missing or non-object input is the peer's ``{}``."""
    out = []
    for i, names in enumerate(tools if isinstance(tools, list) else []):
        step_inputs = inputs[i] if isinstance(inputs, list) and i < len(inputs) and isinstance(inputs[i], list) else []
        out.append([(str(name), step_inputs[j] if j < len(step_inputs) and isinstance(step_inputs[j], dict) else {})
                    for j, name in enumerate(names if isinstance(names, list) else [])])
    return out


def weight(row: dict[str, Any]) -> int:
    return sum(len(s) for s in steps(row["expected_tools"], row["expected_inputs"]))


def peer_scores(rows: Sequence[dict[str, Any]], name_only: frozenset[str] = NAME_ONLY) -> dict[str, Any]:
    """TFS / TEFS of result rows computed from the file alone with the peer's rules (fractions, unrounded)."""
    total = tfs = tefs = 0
    for row in rows:
        gold, used = steps(row["expected_tools"], row["expected_inputs"]), steps(row["tools_used"], row["inputs_used"])
        w = weight(row)
        total += w
        tfs += w * peer_tfs(gold, used, name_only)
        tefs += w * peer_tefs(gold, used, name_only)
    return {"n_tasks": len(rows), "tfs": tfs / total if total else 0.0, "tefs": tefs / total if total else 0.0}


class RecordedAgent:
    """A scripted agent whose turns are a published run's recorded calls: turn by turn, each call sent to
    the environment as the model sent it (a tool this platform lacks is recorded as a failed call)."""

    name = AGENT

    def __init__(self, model: str, turns: dict[str, Steps]) -> None:
        self.model = model
        self.turns = turns

    async def run(self, task: Task, env: Environment, trajectory: Trajectory) -> None:
        lib = library()
        for rnd, turn in enumerate(self.turns[task.id]):
            for i, (tool, args) in enumerate(turn):
                call_id = f"recorded_{rnd}_{i}"
                if tool not in lib:
                    trajectory.events.append(ToolCallEvent(round=rnd, call_id=call_id, tool=tool, arguments=args,
                                                           result=f"Unknown tool: {tool}", is_error=True))
                    continue
                trajectory.events.append(await env.call(lib[tool].server, tool, args or {}, round=rnd,
                                                        call_id=call_id))
        trajectory.stop_reason = "replayed"


class ReplayProtocol(MCPAgentBenchProtocol):
    """MCPAgentBench whose pool is what a published run could call: the gold tools and the recorded ones
    (the peer's own candidate list of the run was not released)."""

    def __init__(self, turns: dict[str, Steps]) -> None:
        self.turns = turns

    def pool(self, task: Task, settings: dict[str, Any], tools: ToolPool, epoch: int = 0) -> PoolSpec:
        lib = library()
        called = [t for turn in self.turns.get(task.id, []) for t, _ in turn]
        names = list(dict.fromkeys(n for n in [*(c.tool for c in task.gold_calls), *called] if n in lib))
        servers = list(dict.fromkeys([*task.server_names, *(lib[n].server for n in names)]))
        return PoolSpec(servers, [(lib[n].server, n) for n in names], bare_names=True,
                        description={"candidates": names, "source": "published run: the gold tools and the tools "
                                     "the model called (the peer's candidate list was not released)"})


@dataclass(frozen=True)
class Matched:
    tasks: list[Task]  # the imported tasks the file has a result for
    turns: dict[str, Steps]  # our task id -> the recorded turns
    rows: list[dict[str, Any]]  # the result rows of those tasks
    not_imported: list[str]  # "peer id: why" for every result row that is not replayed


def match(run: PublishedRun, tasks: Sequence[Task], unmapped: Sequence[tuple[str, str]]) -> Matched:
    """Pair the file's results with the imported tasks; a result whose task did not import, or whose gold
    is not the task file's, is listed with why."""
    by_id = {t.id: t for t in tasks}
    why_not = dict(unmapped)
    kept, turns, rows, skipped = [], {}, [], []
    for row in run.results:
        peer_id = str(row["task_id"])
        task = by_id.get(task_id(peer_id))
        if task is None:
            skipped.append(f"{peer_id}: " + (f"the task did not import ({why_not[peer_id]})" if peer_id in why_not
                                             else "not in the task file"))
            continue
        gold = [[(c.tool, c.arguments) for c in s.calls] for s in task.gold]
        if steps(row["expected_tools"], row["expected_inputs"]) != gold:
            skipped.append(f"{peer_id}: the result's gold calls differ from the task file's")
            continue
        kept.append(task)
        turns[task.id] = steps(row["tools_used"], row["inputs_used"])
        rows.append(row)
    return Matched(kept, turns, rows, skipped)


def published_block(run: PublishedRun, matched: Matched) -> dict[str, Any]:
    """What the peer published for the file, its numbers recomputed from the file with its rules (over all its
    tasks, then over the tasks replayed here), and the tasks not replayed, with why."""
    s = run.summary
    return {
        "source": run.path.name,
        "model": run.model,
        "run": run.run,
        "reported": {"n_tasks": s.get("total_tasks"), "tfs": s["ignore_parallel_score"] / 100,
                     "tefs": s["model_score"] / 100, "output_tokens": s.get("total_completion_tokens"),
                     "input_tokens": s.get("total_prompt_tokens"), "time_s": s.get("total_test_time")},
        "recomputed_all_tasks": peer_scores(run.results),
        "recomputed_imported_tasks": peer_scores(matched.rows),
        "not_imported": matched.not_imported,
        "pool": "the gold tools and the tools the model called (the peer's candidate list was not released)",
    }


async def replay(run: PublishedRun, matched: Matched, run_dir: Path, suite: str,
                 concurrency: int = 4) -> dict[str, Any]:
    """Replay the matched tasks into a run folder (``run.sqlite`` + ``summary.json``); return the summary."""
    from mcp_persona.report.summary import build_summary, write_summary
    from mcp_persona.runner import RunConfig, run_suite
    from mcp_persona.store import RunStore

    protocol = ReplayProtocol(matched.turns)
    config = RunConfig(suite=suite, agent=AGENT, model=run.model, protocol=protocol.name,
                       protocol_options=protocol.settings({}), flags={"published": run.path.name})
    store = RunStore(run_dir)
    try:
        store.begin(config.to_dict(), resume=False)
        await run_suite(matched.tasks, RecordedAgent(run.model, matched.turns), store, concurrency=concurrency,
                        protocol=protocol)
        summary = build_summary(config, matched.tasks, store.records())
    finally:
        store.close()
    # the replay's time and (absent) tokens are not the model's: the published totals are in the block below
    for m in [summary["metrics"], *(g for key in ("by_type", "by_domain", "by_domain_type")
                                    for g in summary[key].values())]:
        m |= {"token_efficiency": None, "time_efficiency": None}
    summary["published"] = published_block(run, matched)
    write_summary(run_dir, summary)
    return summary


def import_results(files: Sequence[Path], task_file: Path | None, out: Path) -> Iterator[tuple[bool, str]]:
    """Every result file checked before anything is written; then the tasks as a suite folder in OUT and one
    replayed run folder per file beside it. Progress as (is a warning, line)."""
    import anyio

    from mcp_persona.protocols.mcpagentbench.importer import read_tasks
    from mcp_persona.store import STORE_FILE
    from mcp_persona.tasks import write_suite

    if task_file is None:
        raise ValueError("import mcpagentbench-results needs --tasks: the peer's task file the results are of (its "
                         "tasks.json); the result files hold each request cut to 100 characters")
    tasks, unmapped = read_tasks(task_file)
    runs = [read_results(f) for f in files]
    folders = [r.folder for r in runs]
    twice = sorted({f for f in folders if folders.count(f) > 1})
    if twice:
        raise ValueError(f"two result files would import into the same run folder: {', '.join(twice)} "
                         "(import them into different --out folders)")
    taken = [out / f for f in folders if (out / f / STORE_FILE).exists()]
    if taken:
        raise ValueError(f"{', '.join(map(str, taken))} already hold a run; remove it or choose another --out")

    def pct(v: float) -> str:  # the peer publishes percentages to the hundredth
        return f"{100 * v:.2f}"

    suite_dir = out / SUITE
    write_suite(suite_dir, "mcpagentbench", task_file, tasks)
    for r in runs:
        matched = match(r, tasks, unmapped)
        for line in matched.not_imported:
            yield True, f"{r.model}: {line}"
        summary = anyio.run(replay, r, matched, out / r.folder, SUITE)
        m, pub = summary["metrics"], summary["published"]
        file_scores = pub["recomputed_imported_tasks"]
        yield False, (
            f"{r.model}: {len(matched.tasks)} of {len(r.results)} tasks replayed into {out / r.folder} · published "
            f"TFS {pct(pub['reported']['tfs'])} TEFS {pct(pub['reported']['tefs'])} ({pub['reported']['n_tasks']} "
            f"tasks) · on the replayed tasks: the file by the paper's rules TFS {pct(file_scores['tfs'])} "
            f"TEFS {pct(file_scores['tefs'])}, replayed here by the paper's rules TFS {pct(m['tfs_paper'])} "
            f"TEFS {pct(m['tefs_paper'])}, ours TFS {pct(m['tfs'])} TEFS {pct(m['tefs'])}, by outcome TFS "
            f"{pct(m['tfs_outcome'])} TEFS {pct(m['tefs_outcome'])}")
        for metric, d in summary["paper_differences"].items():
            why = ", ".join(f"{k} {n}" for k, n in d["by_reason"].items()) or "none"
            yield False, (f"  {metric.upper()}: the paper alone passes {d['paper_only']} tasks, ours alone "
                          f"{d['ours_only']} (by reason: {why})")
    yield False, (f"tasks written to {suite_dir}: run a model on them with --suite {suite_dir}, then "
                  f"mcp-persona report {' '.join(str(out / f) for f in folders)} YOUR_RUN")
