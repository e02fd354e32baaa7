"""MCPAgentBench: pick the right tools from a candidate list with distractors and call them with the
right arguments, in the right serial / parallel order, at what token and time cost.

* pool: the task's gold tools + K - n seeded distractors (:mod:`.candidates`), under their real names;
* prompt: the request and the time; never how many tools to call;
* score: finished / efficiently finished (:mod:`.scoring`);
* run metrics: TFS, TEFS (weighted by gold calls), the paper's TFS and TEFS rules and why they differ
  from ours, TFS and TEFS by outcome (a call matched by what it returns: :mod:`.outcome`), token and time
  efficiency, per task type and domain, avg@k over trials.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from mcp_persona.protocols.base import Option, PoolSpec, Protocol, ReferenceExecution, ToolPool
from mcp_persona.protocols.mcpagentbench import scoring
from mcp_persona.protocols.mcpagentbench.candidates import SIZES, candidate_list, draw_seed
from mcp_persona.protocols.mcpagentbench.library import library
from mcp_persona.protocols.mcpagentbench.paper import PAPER_TABLES
from mcp_persona.protocols.mcpagentbench.spec import MCPAgentBenchSpec
from mcp_persona.score import Check, Score
from mcp_persona.tasks import Task

if TYPE_CHECKING:
    from mcp_persona.environment import Environment
    from mcp_persona.run_config import RunConfig
    from mcp_persona.store import EpisodeRecord
    from mcp_persona.trajectory import Trajectory

SYSTEM = """You are an assistant that carries out the user's request by calling tools.
Current time: {now}.
Choose the tools the request needs from the ones available and call them with arguments taken from the
request or from earlier tool results. Calls that do not depend on each other's results belong together in
one turn; a call that needs an earlier result waits for it. When you are done, reply with a short answer."""



def shape_problems(task: Task) -> list[str]:
    """The task's type must match its gold chain's shape."""
    sizes = [len(s.calls) for s in task.gold]
    expected = {"single": sizes == [1], "dual_serial": sizes == [1, 1], "dual_parallel": sizes == [2],
                "multi": sum(sizes) >= 3}
    if not expected[task.spec.type]:
        return [f"type {task.spec.type} does not match the gold steps {sizes}"]
    return []


class MCPAgentBenchProtocol(Protocol):
    name = "mcpagentbench"
    title = "MCPAgentBench"
    report_columns = (
        ("TFS", "tfs", "task finish score: weighted share of tasks finished"),
        ("TEFS", "tefs", "task efficiency finish score: finished without redundant calls"),
        ("TFS-paper", "tfs_paper", "TFS as the paper's checker counts it: its 24 name-only tools by name alone, "
                                   "any arguments passing"),
        ("TEFS-paper", "tefs_paper", "TEFS as the paper's checker counts it: its 24 name-only tools by name alone, "
                                     "any arguments passing"),
        ("TFS-outcome", "tfs_outcome", "TFS with a call matched by what it returns on the same state, not its "
                                       "arguments"),
        ("TEFS-outcome", "tefs_outcome", "TEFS with a call matched by what it returns on the same state, not its "
                                         "arguments"),
    )
    report_aliases: ClassVar[dict[str, str]] = {"tfs_paper": "TFS-p", "tefs_paper": "TEFS-p", "tfs_outcome": "TFS-o",
                                                "tefs_outcome": "TEFS-o"}
    report_groups = "by_type"
    paper_tables = PAPER_TABLES
    spec_model = MCPAgentBenchSpec
    report_trials = "avg_k"
    honours = frozenset()  # a fixed system prompt and the request alone
    scores_answer = False
    report_extra = (("Score per 1k output tokens", "token_efficiency", "num"),
                    ("Score per minute", "time_efficiency", "num"))
    report_extra_help: ClassVar[dict[str, str]] = {
        "token_efficiency": "TEFS points (gold calls of the tasks finished efficiently) per 1,000 output tokens; "
                            "- when no token was counted",
        "time_efficiency": "the same points per minute of episode time",
    }
    options = (
        Option("candidates", 20, "size K of the candidate tool list", SIZES),
        Option("distractors", "uniform", "how distractors are drawn", ("uniform", "confusable")),
    )

    def task_problems(self, task: Task) -> list[str]:
        lib = library()
        unknown = [c.tool for c in task.gold_calls if c.tool not in lib]
        wrong = [f"{c.tool} is served by {lib[c.tool].server}, not {c.server}" for c in task.gold_calls
                 if c.tool in lib and lib[c.tool].server != c.server]
        return shape_problems(task) + [f"gold tool {u} is not in the library" for u in unknown] + wrong

    async def validate_task(self, task: Task) -> list[str]:
        # no checkpoints to mutate: the score compares calls with the gold calls directly
        from mcp_persona.protocols.mcpagentbench.validate import check_task

        return await check_task(task, self)

    def import_file(self, path: Path) -> tuple[list[Task], list[str]]:
        from mcp_persona.protocols.mcpagentbench.importer import import_file

        return import_file(path)

    def import_results(self, files: Sequence[Path], task_file: Path | None, out: Path) -> Iterator[tuple[bool, str]]:
        from mcp_persona.protocols.mcpagentbench.published import import_results

        return import_results(files, task_file, out)

    def tools_problem(self, tools: ToolPool) -> str | None:
        if tools == "selected":
            return None
        return (f"--tools {tools} is not used by the {self.name} protocol: each task's pool is its candidate list, "
                "the gold tools and K - n distractors drawn from the whole tool library; set K with --candidates "
                f"({', '.join(map(str, SIZES))}) and the draw with --distractors (uniform, confusable), and leave "
                "--tools out")

    def pool(self, task: Task, settings: dict[str, Any], tools: ToolPool, epoch: int = 0) -> PoolSpec:
        if why := self.tools_problem(tools):
            raise ValueError(why)  # never a pool that silently is not the one asked for
        settings = self.settings(settings)
        k, mode = settings["candidates"], settings["distractors"]
        names = candidate_list(task, k, mode)
        lib = library()
        servers = list(dict.fromkeys([*task.server_names, *(lib[n].server for n in names)]))
        return PoolSpec(servers, [(lib[n].server, n) for n in names], bare_names=True,
                        description={"candidates": names, "k": k, "distractors": mode,
                                     "seed": draw_seed(task.id, k, mode)})

    def system_prompt(self, task: Task, env: Environment, skills: str | None = None) -> str:
        return SYSTEM.format(now=task.clock.describe())

    def user_prompt(self, task: Task) -> str:
        return task.instruction

    async def score(self, task: Task, trajectory: Trajectory, env: Environment,
                    reference: ReferenceExecution | None = None) -> Score:
        from mcp_persona.protocols.mcpagentbench.outcome import score_outcome

        detail = scoring.score_episode(task, trajectory) | await score_outcome(self, task, trajectory.tool_calls, env)
        return self.scored(task, detail)

    def checks(self, task: Task, detail: Mapping[str, Any]) -> list[Check]:
        """Finished (every gold call made), efficient (no call more), and finished as the outcome rule sees it."""
        def listed(calls: list[Any]) -> str:
            return ", ".join(map(str, calls))

        return [
            Check(name="every gold call made (arguments rule)", score=float(bool(detail.get("finished"))),
                  why=f"not made: {listed(detail['missing'])}" if detail.get("missing") else "all made"),
            Check(name="no call beyond the gold chain", score=float(bool(detail.get("efficient"))),
                  why=f"extra: {listed(detail['extra'])}" if detail.get("extra") else "none extra"),
            Check(name="every gold call made (outcome rule)", score=float(bool(detail.get("outcome_finished"))),
                  why="; ".join(
                      ([f"not made: {listed(detail['outcome_missing'])}"] if detail.get("outcome_missing") else [])
                      + ([f"extra: {listed(detail['outcome_extra'])}"] if detail.get("outcome_extra") else []))
                  or "all made"),
        ]

    def short_of_full(self, rules: Score) -> str | None:
        score = rules.detail
        if score["finished"] and score["efficient"]:
            return None
        return f"finished {score['finished']}, efficient {score['efficient']}: missing {score['missing']}, " \
               f"extra {score['extra']}"

    def summarize(self, config: RunConfig, tasks: Sequence[Task], records: Sequence[EpisodeRecord]) -> dict[str, Any]:
        from mcp_persona.scoring.usage import usage_metrics

        by_id = {t.id: t for t in tasks}
        rows = [episode_row(r, by_id[r.task_id]) for r in records]
        return {
            **self.run_counts(config, tasks, records),
            "metrics": scoring.run_metrics(rows) | usage_metrics(records),
            "uncertainty": self.uncertainty(rows),
            "by_type": {k: v for k, v in scoring.grouped(rows, "type").items()},
            "by_domain": scoring.grouped(rows, "domain"),
            "by_domain_type": scoring.grouped([r | {"cell": f"{r['domain']}/{r['type']}"} for r in rows], "cell"),
            "avg_k": scoring.trial_metrics(rows),
            "paper_differences": scoring.paper_differences(rows),
            "episodes": [{k: v for k, v in r.items() if k not in ("output_tokens", "paper_differs")} for r in rows],
        }

    def headline_values(self, row: Mapping[str, Any]) -> dict[str, tuple[float, float]]:
        weight = float(row["weight"])  # a task weighs as many gold calls as it has
        return {"tfs": (float(row["finished"]), weight), "tefs": (float(row["efficient"]), weight),
                "tfs_paper": (float(row["paper_finished"]), weight),
                "tefs_paper": (float(row.get("paper_efficient", False)), weight),
                "tfs_outcome": (float(row.get("outcome_finished", False)), weight),
                "tefs_outcome": (float(row.get("outcome_efficient", False)), weight)}

    def explain(self, score: Mapping[str, Any]) -> list[str]:
        """Which gold calls were missed and which calls were extra, by the argument rule and by outcome."""
        why = [f"gold call not made (arguments rule): {c}" for c in score.get("missing") or []]
        why += [f"extra call (not efficient): {c}" for c in score.get("extra") or []]
        if score.get("finished") != score.get("outcome_finished"):
            why.append("by outcome: " + ("finished" if score.get("outcome_finished") else "not finished"))
        return why

    def summary_lines(self, summary: dict[str, Any]) -> list[str]:
        lines = []
        for metric, d in (summary.get("paper_differences") or {}).items():
            if d["episodes"]:
                why = ", ".join(f"{k} {n}" for k, n in d["by_reason"].items())
                lines.append(f"{metric.upper()} paper rule vs ours: paper alone passes {d['paper_only']}, ours alone "
                             f"{d['ours_only']} ({why})")
        return lines

def episode_row(record: EpisodeRecord, task: Task) -> dict[str, Any]:
    """An errored episode is neither finished nor efficient."""
    ok = record.status == "ok" and record.score is not None
    score = record.score.detail if ok and record.score is not None else {}
    return {"task_id": task.id, "epoch": record.epoch, "acc": 1.0 if score.get("finished") else 0.0,
            "type": task.spec.type, "domain": task.spec.domain,
            "weight": len(task.gold_calls), "finished": bool(score.get("finished")),
            "efficient": bool(score.get("efficient")), "paper_finished": bool(score.get("paper_finished")),
            "paper_efficient": bool(score.get("paper_efficient")), "paper_differs": score.get("paper_differs") or {},
            "outcome_finished": bool(score.get("outcome_finished")),
            "outcome_efficient": bool(score.get("outcome_efficient")),
            "output_tokens": record.trajectory.usage.output_tokens, "elapsed_s": record.trajectory.elapsed_s,
            "status": record.status, "error": record.error}


PROTOCOL = MCPAgentBenchProtocol()
