"""MCP-Persona: the task's own servers (or every server), personal context in the prompt, checkpoint
scoring (Acc, SR-0.8, Exec-Acc) with an optional LLM judge, failure modes."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from functools import cache
from typing import TYPE_CHECKING, Any

from mcp_persona.judges.parse import JudgeVerdict
from mcp_persona.protocols.base import (
    AgreementItems,
    PoolSpec,
    Protocol,
    ReferenceExecution,
    ToolPool,
    item_id,
    percent,
)
from mcp_persona.protocols.persona.distractors import distractors_for
from mcp_persona.protocols.persona.failures import (
    FailureClassification,
    FailureJudge,
    classify_failure,
    count_failure_modes,
    diagnose,
    is_failed,
)
from mcp_persona.protocols.persona.judge import CheckpointJudge, combine_scores, undecided_checkpoints
from mcp_persona.protocols.persona.paper import PAPER_TABLES
from mcp_persona.protocols.persona.prompts import system_prompt, user_prompt
from mcp_persona.protocols.persona.spec import PersonaSpec
from mcp_persona.protocols.persona.subsets import by_subset, subset_figures
from mcp_persona.score import Check, Score
from mcp_persona.scoring import EpisodeScore, by_category, score_episode, suite_metrics
from mcp_persona.scoring.metrics import SR_THRESHOLD, trial_metrics
from mcp_persona.scoring.strict import Signature, change_signatures, compare_end_states, strict_pass
from mcp_persona.tasks import OperateCheckpoint, Task

if TYPE_CHECKING:
    from mcp_persona.environment import Environment
    from mcp_persona.run_config import Judging, RunConfig
    from mcp_persona.store import EpisodeRecord
    from mcp_persona.trajectory import Trajectory


@cache
def suite_servers(suite: str) -> tuple[str, ...]:
    """Every server some task of the bundled ``suite`` uses, sorted."""
    from mcp_persona.protocols import load_tasks

    return tuple(sorted({name for task in load_tasks(suite) for name in task.server_names}))


class PersonaProtocol(Protocol):
    name = "persona"
    title = "MCP-Persona"
    report_group_metrics = ("acc", "exec_acc")
    report_intro = ("Acc, SR-0.8 (share of tasks with Acc > 0.8), Exec-Acc, Strict (every checkpoint 1, no collateral, "
                    "end state equivalent to the gold replay's, grounded answer)")
    mutation_tested = True
    honours = frozenset({"skills", "context_distractors"})  # skill guides; distractor facts in the user prompt
    report_columns = (
        ("Acc", "acc", "mean task Acc"),
        ("SR-0.8", "sr_0_8", "share of episodes with Acc > 0.8"),
        ("Exec-Acc", "exec_acc", "share of operate checkpoints fully passed"),
        ("Strict", "strict_sr", "share of episodes passed strictly: every checkpoint 1, no collateral, end state "
                                "equivalent to the gold replay's, grounded answer"),
    )
    report_groups = "by_category"
    paper_tables = PAPER_TABLES
    spec_model = PersonaSpec

    async def validate_task(self, task: Task) -> list[str]:
        from mcp_persona.protocols.persona.validate import check_task

        return await check_task(task, self)

    def pool(self, task: Task, settings: dict[str, Any], tools: ToolPool, epoch: int = 0) -> PoolSpec:
        if tools == "selected":
            return PoolSpec(task.server_names)
        # the paper's "all tools": every server of the protocol's own suite, the task's own first (not every
        # server the platform ships: the other suites' servers are no part of this benchmark)
        others = [n for n in suite_servers(self.name) if n not in task.server_names]
        return PoolSpec(task.server_names + others)

    def system_prompt(self, task: Task, env: Environment, skills: str | None = None) -> str:
        return system_prompt(task, skills)

    def user_prompt(self, task: Task) -> str:
        return user_prompt(task)

    def with_context_distractors(self, task: Task, n: int) -> Task:
        """The task with ``n`` seeded distractor paragraphs appended to its unnecessary context."""
        if n == 0 or "context_distractors" not in self.honours:  # a protocol built on this one may not take them
            return super().with_context_distractors(task, n)
        extra = distractors_for(task.id, n)
        spec = task.spec.model_copy(update={"unnecessary_context": [*task.spec.unnecessary_context, *extra]})
        return task.model_copy(update={"spec": spec})

    async def score(self, task: Task, trajectory: Trajectory, env: Environment,
                    reference: ReferenceExecution | None = None) -> Score:
        return self.scored(task, await self.rules(task, trajectory, env, reference))

    async def rules(self, task: Task, trajectory: Trajectory, env: Environment,
                    reference: ReferenceExecution | None = None) -> dict[str, Any]:
        """The rules' record of the episode: checkpoint scores, collateral, grounding, the end state.

        The strict pass compares end states with the reference's: the concurrent reference run's when there
        is one and it succeeded, else the memoised gold replay's (``end_state.source`` says which)."""
        score = score_episode(task, trajectory, env.initial, env.final_states()).to_dict()
        agent_changes = change_signatures(env.initial, env.final_states())
        if reference is not None and reference.ok:
            assert reference.env is not None
            gold: Counter[Signature] | None = change_signatures(reference.env.initial, reference.env.final_states())
            source = "reference run"
        else:
            gold = await gold_changes(task, env.pool_kind)
            source = "gold replay" if reference is None else "gold replay (the reference run failed)"
        score["end_state"] = (compare_end_states(gold, agent_changes).to_dict() if gold is not None
                              else {"equivalent": False, "missing": ["the gold chain does not replay"], "extra": [],
                                    "gold": []}) | {"source": source}
        return score

    async def judge(self, task: Task, record: EpisodeRecord, judging: Judging | None) -> EpisodeRecord:
        if record.score is None:
            return record
        return await judge_episode(self, task, record, judging)

    def checks(self, task: Task, detail: Mapping[str, Any]) -> list[Check]:
        """Each checkpoint, with what it asks, its score and the reason."""
        cps = task.spec.checkpoints
        return [Check(name=f"checkpoint {c['index']} [{c['type']}]"
                      + (f": {cps[c['index']].summary}" if c["index"] < len(cps) else ""),
                      score=c["score"], why=c.get("reason") or "") for c in detail.get("checkpoints") or []]

    def agreement_items(self, records: Sequence[EpisodeRecord]) -> AgreementItems:
        """Checkpoint by checkpoint (the paper's Table 7): the score, rules' or judge's, in {0, 0.5, 1}."""
        scores: dict[str, str] = {}
        categories: dict[str, str] = {}
        unusable: list[str] = []
        for r in records:
            if r.status != "ok" or r.score is None:
                continue
            for cp in r.score.detail["checkpoints"]:
                item = item_id(r.task_id, r.epoch, cp["index"])
                categories[item] = r.category
                if cp["score"] is None:
                    unusable.append(item)
                else:
                    scores[item] = f"{cp['score']:g}"
        return AgreementItems(scores, categories, unusable, ("0", "0.5", "1"), "checkpoint scores",
                              "TASK#CHECKPOINT_INDEX (TASK#EPOCH#INDEX for later trials)")

    def short_of_full(self, rules: Score) -> str | None:
        """Short of the strict pass the rules can tell (a checkpoint left to a judge does not count)."""
        score = rules.detail
        if strict_pass(score, undecided_passes=True):
            return None
        why = [f"checkpoint {c['index']} scores {c['score']}: {c['reason']}" for c in score["checkpoints"]
               if c["score"] not in (1.0, None)]
        why += [f"ungrounded {score['ungrounded']}"] if score.get("ungrounded") else []
        why += [f"dump ({score.get('dump_why')})"] if score.get("answer_dump") else []
        why += [f"collateral {score['collateral']}"] if score["collateral"] else []
        end = score.get("end_state") or {}
        if not end.get("equivalent"):
            why.append(f"end state differs (missing {end.get('missing')}, extra {end.get('extra')})")
        return "; ".join(why) or "no strict pass"

    def summarize(self, config: RunConfig, tasks: Sequence[Task], records: Sequence[EpisodeRecord]) -> dict[str, Any]:
        from mcp_persona.scoring.usage import usage_metrics

        by_id = {t.id: t for t in tasks}
        scores = [episode_score(r, by_id[r.task_id]) for r in records]
        n = len(records) or 1
        metrics = suite_metrics(scores) | usage_metrics(records) | {
            "collateral_rate": sum(1 for r in records if r.score and r.score.detail["collateral"]) / n,
            "n_undecided_checkpoints": sum(undecided(r) for r in records)}
        rows = [{"task_id": s.task_id, "epoch": r.epoch, "category": s.category, "acc": s.acc,
                 "exec_acc": s.exec_acc, "strict": s.strict, "undecided": undecided(r), "status": r.status,
                 "stop_reason": r.trajectory.stop_reason, "error": r.error}
                for s, r in zip(scores, records, strict=True)]
        episodes = [(by_id[r.task_id], r, s.acc) for s, r in zip(scores, records, strict=True)]
        return {
            **self.run_counts(config, tasks, records),
            "metrics": metrics,
            "uncertainty": self.uncertainty(rows),
            "by_category": by_category(scores),
            "by_subset": by_subset(episodes),  # the paper's per-app subsets (its Table 7)
            "subset_totals": subset_figures(episodes),
            "pass_k": trial_metrics(scores),
            "judge": judge_stats(config, records),
            "failure_modes": failure_modes(records, by_id),
            "failure_archetypes": failure_archetypes(records, by_id),
            "episodes": rows,
        }

    def headline_values(self, row: Mapping[str, Any]) -> dict[str, tuple[float, float]]:
        exec_acc = row.get("exec_acc")
        return {"acc": (float(row["acc"]), 1.0), "sr_0_8": (float(row["acc"] > SR_THRESHOLD), 1.0),
                "exec_acc": (float(exec_acc or 0.0), float(exec_acc is not None)),
                "strict_sr": (float(bool(row.get("strict"))), 1.0)}

    def passed(self, values: Mapping[str, float | None]) -> bool:
        """Passed as SR-0.8 counts it: Acc above 0.8."""
        return (values.get("acc") or 0.0) > SR_THRESHOLD

    def explain(self, score: Mapping[str, Any]) -> list[str]:
        why = [f"checkpoint {c['index']} ({c['type']}) scored {c['score']}: {c.get('reason') or '-'}"
               for c in score.get("checkpoints") or [] if c.get("score") != 1.0]
        why += [f"collateral change: {c}" for c in score.get("collateral") or []]
        if score.get("ungrounded"):
            why.append("values in the answer no tool showed: " + ", ".join(map(str, score["ungrounded"])))
        if score.get("answer_dump"):
            why.append(f"the answer pastes tool output instead of answering ({score.get('dump_why') or 'a dump'})")
        return why

    def summary_lines(self, summary: dict[str, Any]) -> list[str]:
        m = summary["metrics"]
        lines = [f"collateral damage (a change to the apps' records no checkpoint accounts for) in "
                 f"{percent(m['collateral_rate'])}% of episodes"]
        judge = summary.get("judge") or {}
        if judge.get("n_verdicts"):
            lines.append(f"judge {judge['spec']}: {judge['n_ok']}/{judge['n_verdicts']} verdicts used, "
                         f"{judge['n_unparseable']} unparseable, {judge['n_errors']} errored")
        return lines

_GOLD_CHANGES: dict[tuple[int, str, str], Counter[Signature] | None] = {}


async def gold_changes(task: Task, tools: ToolPool = "selected") -> Counter[Signature] | None:
    """The state changes of the task's gold replay on the same start state (None if the replay fails).

    Memoised per process on what decides the replay (gold chain, servers and contexts, clock, seed, pool),
    not on the task id: the replay is deterministic, so trials, mutants and re-runs of a task pay it once.
    """
    from mcp_persona.agents import ReferenceAgent
    from mcp_persona.environment import Environment
    from mcp_persona.trajectory import Trajectory

    key = (task.seed, tools, task.model_dump_json(include={"gold", "servers", "clock"}))
    if key not in _GOLD_CHANGES:
        trajectory = Trajectory(task_id=task.id, agent="reference")
        try:
            async with Environment(task, tools=tools, pool=PROTOCOL.pool(task, {}, tools)) as env:
                await ReferenceAgent().run(task, env, trajectory)
                failed = any(e.is_error for e in trajectory.tool_calls)
                _GOLD_CHANGES[key] = None if failed else change_signatures(env.initial, env.final_states())
        except Exception:  # a broken gold chain: no strict pass for anyone, validate reports the cause
            _GOLD_CHANGES[key] = None
    return _GOLD_CHANGES[key]


async def judge_episode(protocol: Protocol, task: Task, record: EpisodeRecord, judging: Judging | None
                        ) -> EpisodeRecord:
    """The record with judge verdicts merged into a new score (rules first), the strict pass decided, and a
    failed episode diagnosed (``record`` is left as the rules scored it)."""
    assert record.score is not None
    detail, verdicts_kept, failure = dict(record.score.detail), record.verdicts, record.failure
    if judging is not None:
        wanted = None if judging.policy == "replace" else undecided_checkpoints(detail)
        verdicts = {} if wanted == [] else await judging.judge(CheckpointJudge).judge_task(
            task, record.trajectory, state_changes=record.diff, indexes=wanted)
        detail = combine_scores(detail, verdicts, policy=judging.policy)
        verdicts_kept = [v.model_dump(mode="json") for v in verdicts.values()]
    detail["strict"] = strict_pass(detail)
    if is_failed(detail):
        judge = judging.judge(FailureJudge) if judging is not None else None
        failure = (await diagnose(task, record.trajectory, detail, judge=judge)).to_dict()
    return record.model_copy(update={"score": protocol.scored(task, detail), "verdicts": verdicts_kept,
                                     "failure": failure})


def episode_score(record: EpisodeRecord, task: Task) -> EpisodeScore:
    """An errored episode scores 0 (its operate checkpoints too): errors are failures, not gaps."""
    if record.status == "ok" and record.score is not None:
        values = record.score.values
        return EpisodeScore(task.id, task.spec.category, values["acc"], values["exec_acc"],  # type: ignore[arg-type]
                            bool(values.get("strict")))
    has_ops = any(isinstance(c, OperateCheckpoint) for c in task.spec.checkpoints)
    return EpisodeScore(task.id, task.spec.category, 0.0, 0.0 if has_ops else None)


def undecided(record: EpisodeRecord) -> int:
    """Checkpoints the rules could not decide and no judge decided (they never count as passed)."""
    detail = record.score.detail if record.score is not None else {}
    return sum(1 for c in detail.get("checkpoints", []) if c["score"] is None)


def judge_stats(config: RunConfig, records: Sequence[EpisodeRecord]) -> dict[str, Any]:
    """How the LLM judge fared: verdicts used, unparseable (never guessed), errored, retried; tokens."""
    return verdict_stats(config, [v for r in records for v in r.verdicts])


def verdict_stats(config: RunConfig, verdicts: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """:func:`judge_stats` over the given stored verdicts (a protocol may count more judges than the
    checkpoint judge's)."""
    usage = [v.get("usage") or {} for v in verdicts]
    costs = [v.get("cost_usd") for v in verdicts]
    return {
        "spec": config.judge,
        "policy": config.judge_policy,
        "n_verdicts": len(verdicts),
        "n_ok": sum(1 for v in verdicts if v.get("status") == "ok"),
        "n_unparseable": sum(1 for v in verdicts if v.get("status") == "unparseable"),
        "n_errors": sum(1 for v in verdicts if v.get("status") == "error"),
        "n_retried": sum(1 for v in verdicts if v.get("status") == "ok" and len(v.get("attempts") or []) > 1),
        "input_tokens": sum(u.get("input_tokens", 0) for u in usage),
        "output_tokens": sum(u.get("output_tokens", 0) for u in usage),
        "cost_usd": sum(c for c in costs if c is not None) if any(c is not None for c in costs) else None,
    }


def failure_modes(records: Sequence[EpisodeRecord], tasks: dict[str, Task],
                  failed: Callable[[Mapping[str, Any]], bool] = is_failed) -> dict[str, int]:
    """LiveMCP-101's failure modes over the failed episodes (stored diagnoses; rules for older records and for
    episodes never diagnosed). ``failed``: which scored episodes failed, by the protocol's own success (persona:
    Acc below 1)."""
    found = []
    for r in records:
        if r.status != "ok" or r.score is None or not failed(r.score.detail):
            continue
        if r.failure is not None:
            # the stored verdict too: without it an unparseable failure-mode verdict counted as none (read as
            # stored, unvalidated: a record of an older version still counts)
            verdict = r.failure.get("verdict")
            found.append(FailureClassification(r.failure.get("mode"), r.failure.get("source", "rules"),
                                               r.failure.get("evidence") or [],
                                               JudgeVerdict.model_construct(**verdict) if verdict else None))
        else:
            assert r.score is not None
            found.append(classify_failure(tasks[r.task_id], r.trajectory, r.score.detail))
    return count_failure_modes(found)


ARCHETYPES = ("under_exploration", "skipped_dependent_step", "over_long_context", "unclassified")
# Tool output an agent read in one episode past which the paper's "over long context" applies: ~15k tokens,
# several times what the gold chains of the suite return (at most ~46 KB, the digest of five notes).
LONG_CONTEXT_CHARS = 60_000


def archetypes_of(task: Task, record: EpisodeRecord) -> list[str]:
    """Which of the paper's failure archetypes (its section 4.6) a failed episode shows, from its calls alone:

    * ``under_exploration``: it never touched a server the gold chain needs, or wrote to one the gold chain
      never writes to (the paper's message sent on the wrong platform to a guessed recipient);
    * ``skipped_dependent_step``: it made a gold write without a read the gold chain makes before it on that
      server (the paper's user id never resolved from the phone number);
    * ``over_long_context``: the tool output it read passed ``LONG_CONTEXT_CHARS``.
    An episode may show several; one that shows none is ``unclassified``."""
    calls = [c for c in record.trajectory.tool_calls if c.server is not None]
    made = {(c.server, c.tool) for c in calls}
    found: list[str] = []
    gold_servers = {c.server for c in task.gold_calls}
    gold_writers = {c.server for c in task.gold_calls if _writes(c.server, c.tool)}
    wrote = {c.server for c in calls if _writes(c.server, c.tool) and not c.is_error}
    if gold_servers - {c.server for c in calls} or wrote - gold_writers:
        found.append("under_exploration")
    reads_before: set[tuple[str, str]] = set()
    for step in task.gold:
        for call in step.calls:
            if _writes(call.server, call.tool) and (call.server, call.tool) in made and any(
                    (s, t) not in made for s, t in reads_before if s == call.server):
                found.append("skipped_dependent_step")
                break
        else:
            reads_before |= {(c.server, c.tool) for c in step.calls if not _writes(c.server, c.tool)}
            continue
        break
    if sum(len(c.result) for c in record.trajectory.tool_calls) > LONG_CONTEXT_CHARS:
        found.append("over_long_context")
    return found or ["unclassified"]


def _writes(server: str, tool: str) -> bool:
    """Whether the tool changes its server's state (a server or tool this platform does not know: no)."""
    from mcp_persona.apps import get_app

    try:
        return get_app(server).mutates(tool)
    except KeyError:
        return False


def failure_archetypes(records: Sequence[EpisodeRecord], tasks: dict[str, Task]) -> dict[str, int]:
    """How many failed episodes (not a strict pass) show each archetype of :func:`archetypes_of`."""
    counts = dict.fromkeys(ARCHETYPES, 0)
    for r in records:
        if r.status == "ok" and r.score is not None and not r.score.values.get("strict"):
            for kind in archetypes_of(tasks[r.task_id], r):
                counts[kind] += 1
    return counts


PROTOCOL = PersonaProtocol()
