"""LiveMCP-101: long multi-server tasks, each seen through a pool of 15 servers, scored on the result.

* pool: the task's own servers plus others drawn with a seed from SHA-256 of the task id until the pool
  holds ``--pool-size`` servers (default 15, as in the paper); the draw is stored with the episode;
* prompt: a ReAct-style instruction (think, act with one or more tool calls, observe, repeat, answer),
  with the task clock; 30 rounds by default;
* reference execution: as in the paper, the reference agent follows the validated plan concurrently with the
  tested agent, in an environment of its own over the same pool and start state (``reference_agent``); its
  answer, calls and end state are kept with the episode (``EpisodeRecord.reference``), and a failed reference
  run is recorded there (the episode is then scored against the memoised gold replay, and says so);
* score: the checkpoints of the persona protocol (the reference execution's facts and writes); the rule
  result score (the rules' stand-in for the result judge, :func:`rule_result_score`) is their mean rounded
  down to the paper's five-point scale 0 / .25 / .5 / .75 / 1, where an answer that guesses its values or
  pastes the tools' outputs reports nothing, and only a result with an answer of its own, no collateral and
  the reference's end state scores 1; the strict pass compares the agent's end state with the concurrent
  reference's, and a summary of the reference (plan, answer, changes, error) is kept in the score;
* judge (``--judge PROVIDER:MODEL``): the Likert result judge (the agent's answer against the reference
  run's answer) and trajectory judge (its calls against the reference run's calls), each 1..5 as (s - 1) / 4.
  The judge's result score replaces the rule one; an unparseable or failed verdict keeps the rule score (and
  says so), never a guess. Both result scores are kept, and the run reports their agreement; the summary
  counts the verdicts that did not parse (``judge_unparseable``, per judge in ``judge``) and the console
  says how many;
* run metrics: TSR (share of result score 1), ARS (mean result score), ATS (trajectory score: an LLM
  judge's, null under rules), by difficulty, and the failure modes of failed episodes: those short of the
  task success (result score below 1), not of persona's Acc.
"""

from __future__ import annotations

import hashlib
import math
import random
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from mcp_persona.apps import app_names, get_app
from mcp_persona.protocols.base import (
    AgreementItems,
    Option,
    PoolSpec,
    Protocol,
    ReferenceExecution,
    ToolPool,
    item_id,
)
from mcp_persona.protocols.livemcp101.paper import PAPER_TABLES
from mcp_persona.protocols.livemcp101.spec import LiveMCP101Spec
from mcp_persona.protocols.persona import PersonaProtocol, episode_score, failure_modes, verdict_stats
from mcp_persona.protocols.persona.failures import FAILURE_MODES
from mcp_persona.score import Score
from mcp_persona.scoring import by_category, suite_metrics
from mcp_persona.scoring.checkpoints import score_episode
from mcp_persona.tasks import Task

if TYPE_CHECKING:
    from mcp_persona.agents import Agent
    from mcp_persona.environment import Environment
    from mcp_persona.run_config import Judging, RunConfig
    from mcp_persona.store import EpisodeRecord
    from mcp_persona.trajectory import Trajectory

POOL_SIZE = 15
TOOL_BUDGET = 128  # the OpenAI API's limit per request; the paper's pools hold 76-125 tools for that reason
TIERS = ("easy", "medium", "hard")

SYSTEM = """You are an agent that completes the user's request with the tools of several servers.
Current time: {now}.
Work in a loop. Think about what is still unknown and which tool can tell you; act by calling one or more
tools (calls that do not depend on each other may go in the same turn); read what they return and decide
the next step. Use only values the request gives or a tool returned; never guess ids, prices or dates.
When a request asks you to save something, save it with a tool and say where. When everything the user
asked for is done, stop calling tools and give the final answer with the concrete figures."""


def pool_seed(task_id: str, size: int) -> int:
    return int.from_bytes(hashlib.sha256(f"livemcp101|{task_id}|{size}".encode()).digest()[:8], "big")


def tool_count(server: str) -> int:
    return len(get_app(server).tool_names)


def draw_pool(task: Task, size: int, budget: int = TOOL_BUDGET) -> list[str]:
    """The task's servers, then others (never a protocol's private tool library) in a seeded order, each added
    while the pool stays within ``budget`` tools, until it holds ``size`` servers (fewer when no server left
    fits the budget). ValueError when the task's own servers alone are over the budget."""
    own = task.server_names
    count = sum(tool_count(n) for n in own)
    if count > budget:
        raise ValueError(f"task {task.id}: its own servers hold {count} tools, over the tool budget of {budget} "
                         "(--tool-budget)")
    others = sorted(n for n in app_names() if n not in own and get_app(n).library is None)
    pool = list(own)
    for name in random.Random(pool_seed(task.id, size)).sample(others, len(others)):
        if len(pool) >= size:
            break
        if count + tool_count(name) <= budget:
            pool.append(name)
            count += tool_count(name)
    return pool


def result_score(acc: float) -> float:
    """The checkpoint mean on the paper's five-point scale (Likert 1..5 as (s - 1) / 4), rounded down so
    that only a complete result scores 1."""
    return math.floor(acc * 4 + 1e-9) / 4


def rule_result_score(score: dict[str, Any]) -> float:
    """The rules' result score of a scored episode, on the five-point scale.

    The checkpoint mean, except that an answer whose found values no tool showed (``ungrounded``: a guess, or
    an answer known beforehand) or that pastes the tools' outputs (``answer_dump``) reports nothing: its mean
    is ``answer_blind_acc``, the checkpoints scored as if the answer were empty (values retrieved but not
    reported: 0.5; never retrieved: 0). And a result is complete (1) only with an answer of its own (neither
    of those), no collateral change and the reference's end state: a pasted answer beside a right file, a
    second copy of a write or a write to the wrong place is not the result asked for, though every
    checkpoint may see what it looks for."""
    blind = bool(score["ungrounded"] or score["answer_dump"])
    value = result_score(score["answer_blind_acc"] if blind else score["acc"])
    if blind or score["collateral"] or not (score.get("end_state") or {}).get("equivalent"):
        value = min(value, 0.75)
    return value


class LiveMCP101Protocol(PersonaProtocol):
    name = "livemcp101"
    title = "LiveMCP-101"
    report_columns = (
        ("TSR", "tsr", "task success rate: share of episodes whose result the judge scores 1"),
        ("ARS", "ars", "average result score"),
        ("ATS", "ats", "average trajectory score (judged episodes only)"),
    )
    report_groups = "by_difficulty"
    paper_tables = PAPER_TABLES
    spec_model = LiveMCP101Spec
    honours = frozenset({"skills"})  # the request alone is the user prompt
    options = (Option("pool_size", POOL_SIZE, "servers per task pool (the task's own plus seeded others)",
                      bounds=(1, 60)),
               Option("tool_budget", TOOL_BUDGET, "most tools a pool may hold (seeded servers are added only "
                                                  "within it)", bounds=(1, 10_000)))
    max_rounds = 30

    def pool(self, task: Task, settings: dict[str, Any], tools: ToolPool, epoch: int = 0) -> PoolSpec:
        chosen = self.settings(settings)
        size, budget = chosen["pool_size"], chosen["tool_budget"]
        servers = draw_pool(task, size, budget) if tools == "selected" else super().pool(task, settings, "all").servers
        return PoolSpec(servers, description={"servers": servers, "pool_size": size, "tool_budget": budget,
                                              "tools": sum(tool_count(n) for n in servers),
                                              "seed": pool_seed(task.id, size)})

    def system_prompt(self, task: Task, env: Environment, skills: str | None = None) -> str:
        return SYSTEM.format(now=task.clock.describe()) + (f"\n\n{skills}" if skills else "")

    def user_prompt(self, task: Task) -> str:
        return task.instruction

    def reference_agent(self, task: Task) -> Agent:
        """The paper's reference execution: the validated plan, run beside the agent on the same live state."""
        from mcp_persona.agents import ReferenceAgent

        return ReferenceAgent()

    async def rules(self, task: Task, trajectory: Trajectory, env: Environment,
                    reference: ReferenceExecution | None = None) -> dict[str, Any]:
        score = await super().rules(task, trajectory, env, reference)
        score["answer_blind_acc"] = score["acc"]
        if score["ungrounded"] or score["answer_dump"]:
            blind = trajectory.model_copy(update={"final_answer": ""})
            score["answer_blind_acc"] = score_episode(task, blind, env.initial, env.final_states()).acc
        score["result_score"] = score["rule_result_score"] = rule_result_score(score)
        score["result_source"] = "rules"
        ran = reference.trajectory if reference is not None and reference.ok else None
        score["reference"] = {  # a summary; the run itself (calls, arguments, results) is EpisodeRecord.reference
            "source": score["end_state"]["source"],
            "plan": executed_plan(ran) if ran is not None else [[c.qualified for c in s.calls] for s in task.gold],
            "answer": ran.final_answer if ran is not None else task.reference_answer,
            "changes": score["end_state"].get("gold", []),
            "error": reference.error if reference is not None else None}
        return score

    async def judge(self, task: Task, record: EpisodeRecord, judging: Judging | None) -> EpisodeRecord:
        from mcp_persona.protocols.persona.failures import FailureJudge, diagnose

        record = await super().judge(task, record, judging)  # checkpoint verdicts, strict pass, failure mode
        if record.score is None:
            return record
        if judging is not None:
            record = await self.judge_result(task, record, judging)
        assert record.score is not None
        if record.failure is None and failed(record.score.detail):
            # short of TSR with every checkpoint met: persona's pass (Acc below 1) never diagnosed it
            judge = judging.judge(FailureJudge) if judging is not None else None
            failure = (await diagnose(task, record.trajectory, record.score.detail, judge=judge)).to_dict()
            record = record.model_copy(update={"failure": failure})
        return record

    async def judge_result(self, task: Task, record: EpisodeRecord, judging: Judging) -> EpisodeRecord:
        """The record with the Likert result and trajectory verdicts merged into its (checkpoint-judged) score."""
        from mcp_persona.protocols.livemcp101.judges import LikertResultJudge, LikertTrajectoryJudge

        assert record.score is not None
        score = dict(record.score.detail)  # the checkpoint-judged score's
        # the checkpoint mean as the judge decided it (a guessed or pasted answer keeps its answer-blind mean)
        score["rule_result_score"] = rule_result_score(score)
        ran = record.reference if record.reference is not None and record.reference.status == "ok" else None
        # the concurrent reference run's answer and calls where there is one; the task's annotated ones otherwise
        result = await judging.judge(LikertResultJudge).judge(
            task, record.trajectory, reference_answer=ran.trajectory.final_answer if ran is not None else None)
        trajectory = await judging.judge(LikertTrajectoryJudge).judge(
            task, record.trajectory, reference=ran.trajectory if ran is not None else None)
        verdicts = [*record.verdicts, result.model_dump(mode="json"), trajectory.model_dump(mode="json")]
        score["judge_result_score"] = result.score if result.ok else None
        if result.ok:
            score["result_score"], score["result_source"] = result.score, "judge"
        else:  # an unreadable verdict is recorded, never guessed: the rule score stands
            score["result_score"], score["result_source"] = score["rule_result_score"], f"rules (judge {result.status})"
        score["trajectory_score"] = trajectory.score if trajectory.ok else None
        # the verdicts that could not be used, added to the checkpoint judge's counts (the summary adds them up)
        score["judge_unparseable"] = int(score.get("judge_unparseable") or 0) + sum(
            v.status == "unparseable" for v in (result, trajectory))
        score["judge_errors"] = int(score.get("judge_errors") or 0) + sum(
            v.status == "error" for v in (result, trajectory))
        return record.model_copy(update={"score": self.scored(task, score), "verdicts": verdicts})

    def agreement_items(self, records: Sequence[EpisodeRecord]) -> AgreementItems:
        """Task by task, as the paper validates its judge: the result score and the trajectory score each on
        the 1-5 Likert scale (quadratic kappa); a trajectory never judged (rules only) is unscored."""
        scores: dict[str, str] = {}
        categories: dict[str, str] = {}
        unusable: list[str] = []
        for r in records:
            if r.status != "ok" or r.score is None:
                continue
            for part in ("result", "trajectory"):
                item = item_id(r.task_id, r.epoch, part)
                categories[item] = part
                value = r.score.detail.get(f"{part}_score")
                if value is None:
                    unusable.append(item)
                else:
                    scores[item] = str(round(4 * value + 1))
        return AgreementItems(scores, categories, unusable, ("1", "2", "3", "4", "5"),
                              "result and trajectory scores (Likert 1-5)",
                              "TASK#result and TASK#trajectory (TASK#EPOCH#... for later trials)")

    def short_of_full(self, rules: Score) -> str | None:
        why = super().short_of_full(rules)
        if why is None and rules.detail["rule_result_score"] < 1.0:
            why = f"rule result score {rules.detail['rule_result_score']}"
        return why

    def summarize(self, config: RunConfig, tasks: Sequence[Task], records: Sequence[EpisodeRecord]) -> dict[str, Any]:
        from mcp_persona.scoring.usage import usage_metrics

        by_id = {t.id: t for t in tasks}
        rows = [episode_row(r, by_id[r.task_id]) for r in records]
        # the checkpoint metrics too, so reports and comparisons read a LiveMCP-101 run like any other
        scores = [episode_score(r, by_id[r.task_id]) for r in records]
        cats = by_category(scores)
        return {
            **self.run_counts(config, tasks, records),
            # episodes whose concurrent reference run failed (scored against the memoised gold replay instead)
            "n_reference_errors": sum(1 for r in records if r.reference is not None and r.reference.status == "error"),
            "metrics": suite_metrics(scores) | metrics(rows) | usage_metrics(records)
                       | {"result_agreement": result_agreement(records)},
            "uncertainty": self.uncertainty(rows),
            "by_difficulty": {d: metrics([r for r in rows if r["difficulty"] == d]) for d in TIERS},
            "by_category": {c: cats.get(c, {}) | metrics([r for r in rows if r["category"] == c])
                            for c in sorted({r["category"] for r in rows})},
            "failure_modes": failure_modes(records, by_id, failed=failed),
            "judge": judge_summary(config, records),
            "judge_unparseable": sum(unparseable(r) for r in records),
            "episodes": rows,
        }

    def headline_values(self, row: Mapping[str, Any]) -> dict[str, tuple[float, float]]:
        result, trajectory = float(row["result_score"]), row.get("trajectory_score")
        return {"tsr": (float(result == 1.0), 1.0), "ars": (result, 1.0),
                "ats": (float(trajectory or 0.0), float(trajectory is not None))}

    def passed(self, values: Mapping[str, float | None]) -> bool:
        return Protocol.passed(self, values)  # a complete result (TSR), not persona's Acc above 0.8

    def explain(self, score: Mapping[str, Any]) -> list[str]:
        """The result score that decides TSR, where it came from and why it is short, then the checkpoints'."""
        result = score.get("result_score")
        why = [f"result score {result} ({score.get('result_source') or 'rules'}); TSR counts only 1"]
        if result is not None and result < 1.0 and score.get("result_source", "rules").startswith("rules"):
            if score.get("ungrounded") or score.get("answer_dump"):
                why.append("the answer is scored as if empty: it states values no tool showed or pastes tool output")
            if score.get("collateral") or not (score.get("end_state") or {}).get("equivalent", True):
                why.append("the end state differs from the reference run's (a change too many or in the wrong place)")
        return why + super().explain(score)

    def summary_lines(self, summary: dict[str, Any]) -> list[str]:
        counts = summary["failure_modes"]
        modes = ", ".join(f"{k} {counts[k]}" for k in [*FAILURE_MODES, "undecided"] if counts.get(k)) or "none"
        how = f" (of {counts['failed']} failed: {counts['by_rules']} by rules, {counts['by_judge']} by a judge)" \
            if counts.get("failed") else ""
        lines = [f"failure modes: {modes}{how} · reference run errors {summary.get('n_reference_errors', 0)}"]
        judge = summary.get("judge") or {}
        if judge.get("n_verdicts"):
            which = ", ".join(f"{k} {v['unparseable']}" for k, v in judge["by_judge"].items() if v["unparseable"])
            lines.append(f"judge {judge['spec']}: {judge['n_ok']}/{judge['n_verdicts']} verdicts used · "
                         f"{judge['n_unparseable']} did not parse{f' ({which})' if which else ''}, recorded as "
                         f"unparseable, never guessed (the rule score stands) · {judge['n_errors']} errored")
        return lines


def failed(score: Mapping[str, Any]) -> bool:
    """Short of the task success TSR counts (a result score of 1): what LiveMCP-101's failure analysis covers."""
    return (score.get("result_score") or 0.0) < 1.0


def unparseable(record: EpisodeRecord) -> int:
    """The episode's judge verdicts that did not parse: its scores' and its failure diagnosis'."""
    from mcp_persona.report.summary import judge_verdicts

    return sum(1 for v in judge_verdicts(record) if v.get("status") == "unparseable")


def judge_summary(config: RunConfig, records: Sequence[EpisodeRecord]) -> dict[str, Any]:
    """How the run's LLM judges fared (checkpoint, result, trajectory, failure mode): verdicts used, unparseable
    (recorded as such; the rule score stands), errored, in all and per judge."""
    from mcp_persona.report.summary import judge_verdicts

    verdicts = [v for r in records for v in judge_verdicts(r)]
    by_judge: dict[str, dict[str, int]] = {}
    for v in verdicts:
        counts = by_judge.setdefault(str(v.get("judge") or "?"), {"n": 0, "ok": 0, "unparseable": 0, "error": 0})
        counts["n"] += 1
        if v.get("status") in counts:
            counts[v["status"]] += 1
    return verdict_stats(config, verdicts) | {"by_judge": by_judge}


def executed_plan(trajectory: Trajectory) -> list[list[str]]:
    """The calls a run made as ``server:tool``, one list per round (calls in one round ran in parallel)."""
    rounds: dict[int, list[str]] = {}
    for call in trajectory.tool_calls:
        rounds.setdefault(call.round, []).append(f"{call.server}:{call.tool}")
    return [rounds[r] for r in sorted(rounds)]


def episode_row(record: EpisodeRecord, task: Task) -> dict[str, Any]:
    """An errored episode scores 0."""
    score = record.score.detail if record.status == "ok" and record.score is not None else {}
    return {"task_id": task.id, "epoch": record.epoch, "difficulty": task.spec.difficulty,
            "category": task.spec.category,
            "result_score": score.get("result_score", 0.0), "acc": score.get("acc", 0.0),
            "trajectory_score": score.get("trajectory_score"), "pool": (record.pool or {}).get("servers", []),
            "status": record.status, "stop_reason": record.trajectory.stop_reason, "error": record.error}


def result_agreement(records: Sequence[EpisodeRecord]) -> dict[str, Any] | None:
    """Rule vs judge result scores over the episodes that have both: share equal and quadratic kappa."""
    from mcp_persona.judges.agreement import cohen_kappa, percent_agreement

    details = [r.score.detail for r in records if r.score is not None]
    pairs = [(d["rule_result_score"], d["judge_result_score"]) for d in details
             if d.get("judge_result_score") is not None and "rule_result_score" in d]
    if not pairs:
        return None
    rules, judge = [a for a, _ in pairs], [b for _, b in pairs]
    levels = [0.0, 0.25, 0.5, 0.75, 1.0]
    return {"n": len(pairs), "percent": percent_agreement(rules, judge),
            "kappa_quadratic": cohen_kappa(rules, judge, weights="quadratic", levels=levels)}


def metrics(rows: Sequence[dict[str, Any]]) -> dict[str, Any]:
    n = len(rows)
    judged = [r["trajectory_score"] for r in rows if r["trajectory_score"] is not None]
    return {"n": n, "tsr": sum(r["result_score"] == 1.0 for r in rows) / n if n else 0.0,
            "ars": sum(r["result_score"] for r in rows) / n if n else 0.0,
            "ats": sum(judged) / len(judged) if judged else None}


PROTOCOL = LiveMCP101Protocol()
