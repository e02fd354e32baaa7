"""LiveMCPBench: everyday tasks over a whole tool library (LiveMCPTool, 70 servers, 527 tools).

* Pool: every server of the library in one episode (simulated ones in-process, real ones over
  stdio in the episode's sandbox). The copilot agent reaches them through ``route`` / ``execute``;
  the model agent sees all tools at once (``server__tool``).
* Told: the task clock and the working folder; never which tools to use.
* Scored: rules first (GT values in the final answer, files left in the working folder, records
  left on simulated servers, named tool calls). An answer's GT value counts only when grounded:
  shown by a successful data call of the episode, or derived (as its checkpoint declares) from numbers
  such calls showed; an answer that pastes tool output (a dump: far too long, or mostly copied from the
  episode's data calls, see :mod:`mcp_persona.scoring.grounding`) fails (see
  :mod:`mcp_persona.protocols.livemcpbench.scoring`). With ``--judge`` the key-point judge too, whose
  verdict is read strictly (see :mod:`mcp_persona.protocols.livemcpbench.keypoint`). Without a judge an episode
  succeeds when the rules pass; with one, ``--success`` says what decides: ``judge`` (the paper's
  LiveMCPEval alone, the default), ``rules``, or ``both``. An unparseable verdict is a failure and is
  counted; rule and judge success are both reported whatever decides.
* Reported: success rate overall and per domain, the paper's efficiency table (steps, tools used,
  execute calls, route calls) and tokens / cost, and the failures in the paper's error taxonomy (query,
  retrieve, tool, other, and ours: answer; see :func:`~mcp_persona.protocols.livemcpbench.scoring.error_kind`);
  a failure that rests on an unusable judge verdict is ``unjudged``, in no kind.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, ClassVar

from mcp_persona.protocols.base import AgreementItems, Option, PoolSpec, Protocol, ReferenceExecution, ToolPool, item_id
from mcp_persona.protocols.livemcpbench.environment import LibraryEnvironment, suite_files
from mcp_persona.protocols.livemcpbench.paper import PAPER_TABLES
from mcp_persona.protocols.livemcpbench.scoring import (
    ERROR_KINDS,
    UNJUDGED,
    efficiency,
    error_kind,
    evidence,
    rule_checks,
)
from mcp_persona.protocols.livemcpbench.spec import DOMAINS, LiveMCPBenchSpec
from mcp_persona.score import Check, Score
from mcp_persona.scoring.grounding import answer_dump
from mcp_persona.tasks import Task

if TYPE_CHECKING:
    from mcp_persona.environment import Environment
    from mcp_persona.run_config import Judging, RunConfig
    from mcp_persona.store import EpisodeRecord
    from mcp_persona.trajectory import Trajectory

EFFICIENCY = ("steps", "tools_used", "execute_calls", "route_calls")

SYSTEM = """You are an assistant that completes everyday tasks with tools.
Current time: {now}.
Your working folder is {workdir}; files the user mentions are there, and files you are asked to make
must be saved there (use absolute paths inside it).
Find what you need with the tools rather than from memory. When you are done, reply with a short final
answer that states the values you found and what you did."""


def library_servers() -> list[str]:
    """Every server of the library that can run here (a real server not installed is left out)."""
    from mcp_persona.livemcptool import catalogue, missing_reason

    return [name for name, s in catalogue().items() if s.kind == "simulated" or missing_reason(name) is None]


class LiveMCPBenchProtocol(Protocol):
    name = "livemcpbench"
    title = "LiveMCPBench"
    report_columns = (
        ("Success", "success_rate", "share of episodes that succeeded (the rules, or with a judge as --success says: "
                                    "the judge, the rules, or both)"),
        ("Rule success", "rule_success_rate", "share of episodes the rule check passed"),
        ("Judge success", "judge_success_rate", "share of judged episodes the judge passed"),
    )
    report_aliases: ClassVar[dict[str, str]] = {"rule_success_rate": "Rules", "judge_success_rate": "Judge"}
    report_groups = "by_domain"
    paper_tables = PAPER_TABLES
    spec_model = LiveMCPBenchSpec
    honours = frozenset({"skills"})  # the request alone is the user prompt
    report_extra = (("Steps/task", "avg_steps", "num"), ("Tools/task", "avg_tools", "num"),
                    ("Execute calls/task", "avg_execute", "num"), ("Route calls/task", "avg_route", "num"),
                    ("Cost", "cost_usd", "money"))
    route_library = "livemcptool"
    options = (Option("success", "judge", "with --judge, what decides success: judge (the paper: the key-point "
                                          "judge alone), rules, or both (rules and judge)",
                      ("judge", "rules", "both"), needs_judge=True),)
    reads_documents = True

    def input_documents(self, task: Task) -> list[tuple[str, str, list[str]]]:
        from mcp_persona.protocols.livemcpbench.scoring import cell_values, document_text

        out = []
        for name in task.spec.input_files:
            data = (suite_files(task) / name).read_bytes()  # the suite's own input, not an episode's output
            sheets = list(cell_values(data)) if name.lower().endswith((".xlsx", ".xlsm")) else []
            out.append((name, document_text(name, data), sheets))
        return out

    async def validate_task(self, task: Task) -> list[str]:
        """The gold plan replays without a tool error and passes every rule (so its calls ground every GT
        value); its literals are discoverable; the instruction gives no GT value away; the noop agent and an
        agent that only states the reference answer fail."""
        from mcp_persona.agents import NoopAgent
        from mcp_persona.literals import ListingReference, literal_problems
        from mcp_persona.mutants import ReplayAgent
        from mcp_persona.runner import run_episode
        from mcp_persona.scoring.normalize import appears_in
        from mcp_persona.tasks import SearchCheckpoint

        problems = [f"input file {n} is missing" for n in task.spec.input_files
                    if not (suite_files(task) / n).exists()]
        for cp in task.spec.checkpoints:
            if isinstance(cp, SearchCheckpoint):
                # a comparison's winner is named by the question itself: its claim is the fact checked
                problems += [f"GT value {v!r} is given away by the instruction" for v in cp.gt_value
                             if appears_in(v, task.instruction) and not (cp.claim and v == cp.claim.winner)]
        if problems:
            return problems
        agent = ListingReference(self)
        record = await run_episode(task, agent, protocol=self)
        if record.status != "ok" or record.score is None:
            return [f"gold replay errored: {record.error}"]
        problems += [f"gold call {c.server}:{c.tool} failed: {c.result[:200]}"
                     for c in record.trajectory.tool_calls if c.is_error]
        problems += literal_problems(task, record.trajectory.tool_calls, agent.listing)
        problems += [f"gold replay fails a check: {c['summary']} ({c['why']})"
                     for c in record.score.detail["checks"] if not c["passed"]]
        if record.score.detail["answer_dump"]:
            problems.append(f"the reference answer counts as a dump: {record.score.detail['dump_why']}")
        for name, agent in (("noop", NoopAgent()), ("answer-only", ReplayAgent(()))):
            floor = await run_episode(task, agent, protocol=self)
            if floor.score is not None and floor.score.value("success"):
                problems.append(f"the {name} agent passes this task")
        return problems

    def pool(self, task: Task, settings: dict[str, Any], tools: ToolPool, epoch: int = 0) -> PoolSpec:
        servers = library_servers()
        # the success rule rides with the episode: the judge step reads it there
        return PoolSpec(servers, description={"library": "livemcptool", "servers": len(servers),
                                              "success": self.settings(settings)["success"]})

    def tool_count(self, spec: PoolSpec) -> int:
        from mcp_persona.livemcptool import catalogue

        entries = catalogue()
        return len(spec.tools) if spec.tools is not None else sum(len(entries[n].tool_names) for n in spec.servers)

    def gold_problems(self, task: Task) -> list[str]:
        from mcp_persona.livemcptool import catalogue

        entries, out = catalogue(), []
        for call in task.gold_calls:
            if call.server not in entries:
                out.append(f"gold call {call.qualified}: the library has no server {call.server!r}")
            elif entries[call.server].tool(call.tool) is None:
                out.append(f"gold call {call.qualified}: {call.server} has no tool {call.tool!r}")
        return out

    def environment(self, task: Task, tools: ToolPool, spec: PoolSpec) -> Environment:
        return LibraryEnvironment(task, tools=tools, library="livemcptool", pool=spec)

    def system_prompt(self, task: Task, env: Environment, skills: str | None = None) -> str:
        workdir = env.workdir if isinstance(env, LibraryEnvironment) else "(none)"
        prompt = SYSTEM.format(now=task.clock.describe(), workdir=workdir)
        return prompt + ("\n\n# Skills\n" + skills.strip() if skills else "")

    async def score(self, task: Task, trajectory: Trajectory, env: Environment,
                    reference: ReferenceExecution | None = None) -> Score:
        assert isinstance(env, LibraryEnvironment)
        # copied text is measured against the calls that may ground a value: route results (tool descriptions)
        # and compute tools are left out, as they are from the evidence
        seen = evidence(task, trajectory)
        checks = rule_checks(task, trajectory, env.workdir, env.records(), seen)
        passed = sum(c["passed"] for c in checks)
        dump = answer_dump(trajectory.final_answer, task.reference_answer, seen)
        rules_ok = bool(checks) and passed == len(checks) and dump is None
        return self.scored(task, {
            "acc": passed / len(checks) if checks else 0.0, "success": rules_ok, "rule_success": rules_ok,
            "judge_success": None, "domain": task.spec.category, "checks": checks,
            "ungrounded": [v for c in checks for v in c.get("ungrounded", [])], "answer_dump": dump is not None,
            "dump_why": dump, **efficiency(trajectory)})

    def checks(self, task: Task, detail: Mapping[str, Any]) -> list[Check]:
        """Each rule check (an answer value, a file, a record left on a server), then the key-point judge's
        verdict when one was asked."""
        out = [Check(name=f"{c['kind']}: {c['summary']}", score=float(bool(c["passed"])), why=c.get("why") or "")
               for c in detail.get("checks") or []]
        if detail.get("judge_status") is not None:
            out.append(Check(name="key-point judge", score=None if detail["judge_status"] != "ok"
                             else float(bool(detail.get("judge_success"))), why=str(detail["judge_status"])))
        return out

    async def judge(self, task: Task, record: EpisodeRecord, judging: Judging | None) -> EpisodeRecord:
        if judging is None or record.score is None:
            return record
        score = dict(record.score.detail)  # the rules' score stays as it was
        from mcp_persona.livemcptool import catalogue
        from mcp_persona.protocols.livemcpbench.keypoint import KeyPointJudge

        # the judge sees only executed tools (as LiveMCPBench shows it), with the library's descriptions
        trajectory = record.trajectory.model_copy(
            update={"events": [e for e in record.trajectory.events if getattr(e, "via", None) != "route"]})
        entries = catalogue()
        descriptions = {f"{c.server}:{c.tool}": t.description for c in trajectory.tool_calls
                        if c.server in entries and (t := entries[c.server].tool(c.tool)) is not None}
        verdict = await judging.judge(KeyPointJudge).judge(task, trajectory,
                                                                        tool_descriptions=descriptions)
        judged = verdict.status == "ok" and verdict.score == 1.0
        score["judge_success"] = judged
        score["judge_status"] = verdict.status
        mode = (record.pool or {}).get("success", "judge")
        score["success_rule"] = mode
        rules = bool(score["rule_success"])
        # the paper's LiveMCPEval decides alone; "both" also asks the rules; "rules" keeps the judge as a record
        score["success"] = {"judge": judged, "rules": rules, "both": rules and judged}[mode]
        return record.model_copy(update={"score": self.scored(task, score),
                                         "verdicts": [verdict.model_dump(mode="json")]})

    def agreement_items(self, records: Sequence[EpisodeRecord]) -> AgreementItems:
        """Task by task, as the paper validates LiveMCPEval: success or failure, by domain."""
        scores: dict[str, str] = {}
        categories: dict[str, str] = {}
        for r in records:
            if r.status == "ok" and r.score is not None:
                item = item_id(r.task_id, r.epoch)
                scores[item] = "success" if r.score.value("success") else "failure"
                categories[item] = r.category
        return AgreementItems(scores, categories, [], ("failure", "success"), "task success",
                              "TASK (TASK#EPOCH for later trials)")

    def short_of_full(self, rules: Score) -> str | None:
        score = rules.detail
        if score["rule_success"]:
            return None
        why = [f"{c['summary']}: {c['why']}" for c in score["checks"] if not c["passed"]]
        return "; ".join(why + ([f"dump ({score['dump_why']})"] if score["answer_dump"] else [])) or "no success"

    def summarize(self, config: RunConfig, tasks: Sequence[Task], records: Sequence[EpisodeRecord]) -> dict[str, Any]:
        from mcp_persona.protocols.persona import judge_stats
        from mcp_persona.scoring.usage import usage_metrics

        by_id = {t.id: t for t in tasks}
        rows = [episode_row(r, by_id[r.task_id]) for r in records]
        costs = [e.cost_usd for r in records for e in r.trajectory.model_calls if e.cost_usd is not None]
        metrics = aggregate(rows) | usage_metrics(records) | {"cost_usd": sum(costs) if costs else None}
        return {
            **self.run_counts(config, tasks, records),
            "metrics": metrics,
            "uncertainty": self.uncertainty(rows),
            "by_domain": {d: aggregate([x for x in rows if x["domain"] == d]) for d in DOMAINS},
            "judge": judge_stats(config, records),
            # why the failed episodes failed, in the paper's taxonomy (query, retrieve, tool, answer, other);
            # failures resting on an unusable judge verdict apart, in no kind
            "error_taxonomy": error_taxonomy(records, by_id),
            "unjudged_failures": sum(row["error_kind"] == UNJUDGED for row in rows),
            "episodes": rows,
        }

    def headline_values(self, row: Mapping[str, Any]) -> dict[str, tuple[float, float]]:
        judged = row.get("judge_success")
        return {"success_rate": (float(row["success"]), 1.0), "rule_success_rate": (float(row["rule_success"]), 1.0),
                "judge_success_rate": (float(judged or 0.0), float(judged is not None))}

    def explain(self, score: Mapping[str, Any]) -> list[str]:
        """The checks that failed and why, and the judge's verdict where one was asked."""
        why = [f"{c.get('kind')} check failed: {c.get('summary')} ({c.get('why') or 'not met'})"
               for c in score.get("checks") or [] if not c.get("passed")]
        if score.get("judge_status") is not None:
            why.append(f"key-point judge: {score['judge_status']}, success {score.get('judge_success')}")
        return why

    def summary_lines(self, summary: dict[str, Any]) -> list[str]:
        kinds = summary.get("error_taxonomy") or {}
        lines = []
        if any(kinds.values()):
            lines.append("failures by kind (LiveMCPBench's taxonomy): " + " · ".join(
                f"{KIND_LABELS.get(k, k)} {v}" for k, v in kinds.items()))
        if unjudged := summary.get("unjudged_failures"):
            lines.append(f"unjudged {unjudged}: failed only because the judge's verdict could not be read "
                         "(unparseable or errored); counted in no kind")
        return lines


# the report's label of each error kind (the summary's "failures by kind" line)
KIND_LABELS = {
    "query": "query (the route query did not describe a needed tool)",
    "retrieve": "retrieve (described, the retriever did not return it)",
    "tool": "tool (found, never run successfully)",
    "answer": "answer (every needed tool ran, the result is wrong; the paper's other)",
    "other": "other (errored, or out of rounds)",
}


def episode_row(record: EpisodeRecord, task: Task) -> dict[str, Any]:
    """An errored episode is a failure with the efficiency of whatever it did. ``error_kind``: why a failed
    episode failed (:func:`~mcp_persona.protocols.livemcpbench.scoring.error_kind`; ``unjudged`` when the judge's
    verdict could not be read), None for a success."""
    score = record.score.detail if record.status == "ok" and record.score is not None else None
    eff = efficiency(record.trajectory)
    return {"task_id": task.id, "epoch": record.epoch, "domain": task.spec.category,
            "success": bool(score and score["success"]), "rule_success": bool(score and score["rule_success"]),
            "judge_success": score.get("judge_success") if score else None, "acc": score["acc"] if score else 0.0,
            "status": record.status, "error": record.error, "error_kind": error_kind(task, record), **eff}


def aggregate(rows: Sequence[dict[str, Any]]) -> dict[str, Any]:
    n = len(rows)

    def mean(key: str) -> float:
        return sum(float(r[key]) for r in rows) / n if n else 0.0

    judged = [r for r in rows if r["judge_success"] is not None]
    return {"n": n, "success_rate": mean("success"), "rule_success_rate": mean("rule_success"),
            "judge_success_rate": sum(r["judge_success"] for r in judged) / len(judged) if judged else None,
            "avg_steps": mean("steps"), "avg_tools": mean("tools_used"), "avg_execute": mean("execute_calls"),
            "avg_route": mean("route_calls")}


PROTOCOL = LiveMCPBenchProtocol()


def error_taxonomy(records: Sequence[EpisodeRecord], tasks: dict[str, Task]) -> dict[str, int]:
    """Failed episodes by error kind; those whose failure rests on an unusable judge verdict are in none."""
    counts = dict.fromkeys(ERROR_KINDS, 0)
    for r in records:
        if (kind := error_kind(tasks[r.task_id], r)) in counts:
            counts[kind] += 1
    return counts
