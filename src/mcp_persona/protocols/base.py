"""What a protocol is: the four things a benchmark protocol decides, and nothing else.

A suite names its protocol (``data/tasks/<suite>/suite.json``). The protocol says

* how the tool pool of an episode is built (:meth:`Protocol.pool`, :meth:`Protocol.environment`),
* what the agent is told (:meth:`Protocol.system_prompt`, :meth:`Protocol.user_prompt`),
* how an episode is scored (:meth:`Protocol.score`, then :meth:`Protocol.judge` for LLM judging), and
  whether a reference execution runs beside the agent to score it against (:meth:`Protocol.reference_agent`),
* which metrics a run reports (:meth:`Protocol.summarize`), and which of them the console, the reports and
  ``compare`` show (:attr:`Protocol.report_columns`, :attr:`Protocol.report_groups`, :attr:`Protocol.report_extra`,
  :meth:`Protocol.summary_lines`, and the paper's own tables, :attr:`Protocol.paper_tables`): those are
  generated from the declarations, never written per protocol.

It may declare run options of its own (:attr:`Protocol.options`, e.g. ``--candidates``); the CLI
offers every declared option and rejects one given to a suite whose protocol does not declare it.
Runner, store, resume, trials, reports and CLI only ever call these methods.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from mcp_persona.environment import Environment, PoolSpec, ToolPool
from mcp_persona.score import Check, Score, numbers_of
from mcp_persona.tasks.models import Task, TaskSpec

if TYPE_CHECKING:
    from mcp_persona.agents import Agent
    from mcp_persona.protocols.paper_tables import PaperTable, PublishedTable
    from mcp_persona.run_config import Judging, RunConfig
    from mcp_persona.store import EpisodeRecord
    from mcp_persona.trajectory import Trajectory

@dataclass(frozen=True)
class Option:
    """A run option only some protocols use; its value lands in ``RunConfig.protocol_options``."""

    name: str  # the settings key; the CLI flag is --name with '_' as '-'
    default: int | str
    help: str
    choices: tuple[int | str, ...] = ()
    bounds: tuple[int, int] | None = None  # an integer option's smallest and largest value
    needs_judge: bool = False  # it decides how a judge's verdict counts: meaningless without --judge

    @property
    def flag(self) -> str:
        return "--" + self.name.replace("_", "-")

    def check(self, value: Any) -> int | str:
        if type(value) is not type(self.default):
            raise ValueError(f"{self.flag} takes a {type(self.default).__name__}, got {value!r}")
        if self.choices and value not in self.choices:
            raise ValueError(f"{self.flag} must be one of {', '.join(map(str, self.choices))} (got {value!r})")
        if self.bounds is not None and not self.bounds[0] <= value <= self.bounds[1]:
            raise ValueError(f"{self.flag} must be within {self.bounds[0]}..{self.bounds[1]} (got {value!r})")
        return value


@dataclass(frozen=True)
class AgreementItems:
    """What a run scored, as the items human labels are held against (``mcp-persona agree``): the run's label
    per item id, each item's category, the items it left unscored, and the label scale."""

    scores: dict[str, str]
    categories: dict[str, str]
    unusable: list[str]
    levels: tuple[str, ...]
    what: str  # what the items are, for the reader ("checkpoint scores", "task success", ...)
    id_form: str  # how a label file names an item


@dataclass(frozen=True)
class Verdict:
    """An episode as its protocol judges it: each headline metric (None where it does not apply), whether it
    passed, and what in its score decided that (what a report's episode view shows)."""

    values: dict[str, float | None]
    passed: bool
    why: list[str]


def item_id(task_id: str, epoch: int, part: str | int | None = None) -> str:
    """``TASK[#EPOCH][#PART]``: the epoch only for trials after the first."""
    return "#".join([task_id, *([str(epoch)] if epoch else []), *([str(part)] if part is not None else [])])


@dataclass
class ReferenceExecution:
    """The reference run of an episode (:meth:`Protocol.reference_agent`), as scoring sees it: its trajectory
    and its own environment (still open while the episode is scored). ``env`` is None when that environment
    could not be opened; ``error`` says why the run failed, if it did."""

    trajectory: Trajectory
    env: Environment | None = None
    error: str | None = None

    @property
    def ok(self) -> bool:
        return self.error is None and self.env is not None


class Protocol:
    name: str = ""
    title: str = ""
    options: tuple[Option, ...] = ()
    route_library: str | None = None  # the tool library the copilot's route searches, if the pool is one
    max_rounds: int = 20  # an agent's rounds per episode unless the run sets --max-rounds
    # the ablations whose input reaches this protocol's prompts (a run refuses the others: they would change
    # nothing but the label); skills go into the system prompt, context distractors into the user prompt
    honours: frozenset[str] = frozenset()
    mutation_tested: bool = False  # validate tries mutants of each gold chain against the scoring (persona)
    scores_answer: bool = True  # whether the final answer is scored (MCPAgentBench scores the calls alone)
    reads_documents: bool = False  # whether checks read the files an episode leaves as their programs would
    # the headline scores of a report's leaderboard: (label, key in summary["metrics"], tooltip), each in 0..1;
    # the first is the primary score (ranking, the Pareto plot, the per-group columns)
    report_columns: tuple[tuple[str, str, str], ...] = (("Acc", "acc", "mean task Acc"),)
    # shorter headers of report_columns (by key) a console table uses when the full ones do not fit
    report_aliases: ClassVar[dict[str, str]] = {}
    report_groups: str = "by_category"  # the summary's per-group breakdown the report shows ("by_<group>")
    # more figures of summary["metrics"] a report lists in a table of their own ("## Efficiency"):
    # (label, key, format: "num" per episode, "money" in USD, "pct" a 0..1 share)
    report_extra: tuple[tuple[str, str, str], ...] = ()
    # what a report_extra figure is, by key, where its label alone does not say
    report_extra_help: ClassVar[dict[str, str]] = {}
    # the report_columns metrics a report also breaks down per group (default: the primary one)
    report_group_metrics: tuple[str, ...] = ()
    report_intro: str = ""  # the scores explained in a sentence for a report's header (default: the tooltips)
    # the paper's results tables in its layout, read from the summary (see :mod:`.paper_tables`); the rows the
    # paper published for them ship as ``published_results.json`` in the protocol's package
    paper_tables: tuple[PaperTable, ...] = ()
    report_trials: str = "pass_k"  # the summary key of the figures over repeated trials (pass@k, avg@k)
    spec_model: type[TaskSpec] = TaskSpec  # what this protocol's tasks add to the shared task (their ``spec``)

    # -- suites and tasks ------------------------------------------------------------------------
    @property
    def task_model(self) -> type[Task[Any]]:
        """The task model of this protocol's suites: the shared task with this protocol's spec."""
        return Task[self.spec_model]  # type: ignore[name-defined]

    def task_problems(self, task: Task) -> list[str]:
        """What makes ``task`` unusable under this protocol, checked when a suite loads: by default, a check that
        names words of the instruction (``asks``) the instruction does not say."""
        from mcp_persona.tasks.requests import asks_problems

        return asks_problems(task)

    async def validate_task(self, task: Task) -> list[str]:
        """What makes one task unusable under this protocol, found by replaying it (``mcp-persona validate``);
        a protocol with :attr:`mutation_tested` scoring then has its gold chain's mutants tried by validate."""
        raise NotImplementedError(f"the {self.name} protocol has no task validation")

    def input_documents(self, task: Task) -> list[tuple[str, str, list[str]]]:
        """(file name, text, sheet names) of each file the task hands the agent's working folder (what the
        agent can read there; none by default)."""
        return []

    def import_file(self, path: Path) -> tuple[list[Task], list[str]]:
        """Tasks read from a peer benchmark's own file format, and what could not be mapped (with why)."""
        raise NotImplementedError(f"the {self.name} protocol has no importer")

    def import_results(self, files: Sequence[Path], task_file: Path | None, out: Path) -> Iterator[tuple[bool, str]]:
        """A peer's published runs replayed into run folders under ``out`` (``mcp-persona import NAME-results``):
        progress as (is a warning, line); ValueError for files that cannot be imported (nothing written)."""
        raise NotImplementedError(f"the {self.name} protocol has no published results to import")

    def settings(self, given: dict[str, Any]) -> dict[str, Any]:
        """The protocol's options with defaults filled in; unknown or bad values raise ValueError."""
        known = {o.name: o for o in self.options}
        unknown = sorted(set(given) - set(known))
        if unknown:
            flags = ", ".join("--" + u.replace("_", "-") for u in unknown)
            raise ValueError(f"{flags} is not used by the {self.name} protocol"
                             + (f" (it takes {', '.join(o.flag for o in self.options)})" if self.options else ""))
        return {name: opt.check(given.get(name, opt.default)) for name, opt in known.items()}

    # -- an episode ------------------------------------------------------------------------------
    def tools_problem(self, tools: ToolPool) -> str | None:
        """Why this protocol builds no pool of kind ``tools`` (``--tools``), with what to use instead; None when
        it builds one. A protocol whose pool is its own draw (MCPAgentBench's candidate list) refuses ``all``
        rather than ignore it; its :meth:`pool` raises ValueError with the same words."""
        return None

    def pool(self, task: Task, settings: dict[str, Any], tools: ToolPool, epoch: int = 0) -> PoolSpec:
        raise NotImplementedError

    def tool_count(self, spec: PoolSpec) -> int:
        """How many tools a model offered the whole pool ``spec`` sees (what a provider's tool limit counts)."""
        from mcp_persona.apps import get_app

        if spec.tools is not None:
            return len(spec.tools)
        return sum(len(get_app(name).tool_names) for name in spec.servers)

    def gold_problems(self, task: Task) -> list[str]:
        """Gold calls naming a server or a tool that does not exist (``run`` refuses such a task before its first
        episode: its reference replay, scoring and mutants would all rest on a call no agent can make)."""
        from mcp_persona.apps import app_names, get_app

        out = []
        for call in task.gold_calls:
            if call.server not in app_names():
                out.append(f"gold call {call.qualified}: there is no server {call.server!r}")
            elif call.tool not in get_app(call.server).tool_names:
                out.append(f"gold call {call.qualified}: {call.server} has no tool {call.tool!r}")
        return out

    def environment(self, task: Task, tools: ToolPool, spec: PoolSpec) -> Environment:
        """The episode's environment over ``spec`` (a protocol with its own tool library opens that)."""
        return Environment(task, tools=tools, pool=spec)

    def system_prompt(self, task: Task, env: Environment, skills: str | None = None) -> str:
        raise NotImplementedError

    def user_prompt(self, task: Task) -> str:
        return task.instruction

    def with_context_distractors(self, task: Task, n: int) -> Task:
        """The task with ``n`` distractor facts added to what the user prompt tells (``--context-distractors``);
        only a protocol that honours ``context_distractors`` takes them."""
        if n:
            raise ValueError(f"the {self.name} protocol's prompts carry no user context: --context-distractors "
                             "would change nothing")
        return task

    def reference_agent(self, task: Task) -> Agent | None:
        """The agent of a reference execution the runner runs concurrently with the tested agent, in an
        environment of its own over the same pool and start state; None (the default): no reference run.

        Its outcome reaches :meth:`score` and is stored with the episode (``EpisodeRecord.reference``); a
        failed reference run is recorded there and the episode is scored all the same."""
        return None

    async def score(self, task: Task, trajectory: Trajectory, env: Environment,
                    reference: ReferenceExecution | None = None) -> Score:
        """The episode's score (most protocols build their record and return :meth:`scored` of it).
        ``reference``: the reference run, when :meth:`reference_agent` asked for one."""
        raise NotImplementedError

    def scored(self, task: Task, detail: dict[str, Any]) -> Score:
        """The typed score of the protocol's own record of an episode: its numbers as the values, the checks
        that decided them (:meth:`checks`) and why it is short of full (:meth:`explain`)."""
        return Score(values=numbers_of(detail), checks=self.checks(task, detail), explanation=self.explain(detail),
                     detail=detail)

    def checks(self, task: Task, detail: Mapping[str, Any]) -> list[Check]:
        """The checks in the protocol's record of an episode, each with its score and why (none by default)."""
        return []

    async def judge(self, task: Task, record: EpisodeRecord, judging: Judging | None) -> EpisodeRecord:
        """LLM judging after the rule score: the episode with its judged score, a new record (``record`` is
        left as the rules scored it). Protocols without a judge return the record as it is."""
        return record

    def agreement_items(self, records: Sequence[EpisodeRecord]) -> AgreementItems:
        """The run's scores as items to hold human labels against (its judged or judge-replacing scores)."""
        raise ValueError(f"the {self.title or self.name} protocol's scores are rule-based with no judge to "
                         "validate against human labels")

    def short_of_full(self, score: Score) -> str | None:
        """Why a rule score (of :meth:`score`) is short of the full score the gold replay gets, None when it is
        full: what equivalence testing asks of every equivalent form of the answer. By default: the headline
        metrics the score holds that are below 1."""
        short = [f"{label} {percent(value)}" for label, key, _ in self.report_columns
                 if isinstance(value := score.value(key), int | float) and value < 1.0]
        return ", ".join(short) or None

    # -- a run -----------------------------------------------------------------------------------
    def headline_values(self, row: Mapping[str, Any]) -> dict[str, tuple[float, float]]:
        """Each :attr:`report_columns` metric's (value, weight) in one episode row of the summary: the run's
        metric is ``sum(w * v) / sum(w)`` over its episodes. What intervals and ``compare`` are computed from.
        By default each metric is the row's own value with weight 1 (None: it does not apply, weight 0)."""
        values = {}
        for _, key, _ in self.report_columns:
            value = row.get(key)
            values[key] = (float(value), 1.0) if isinstance(value, int | float) else (0.0, 0.0)
        return values

    def episode_values(self, row: Mapping[str, Any]) -> dict[str, float | None]:
        """Each headline metric of one episode (its summary row), None where it does not apply to it."""
        return {key: (value if weight else None) for key, (value, weight) in self.headline_values(row).items()}

    def passed(self, values: Mapping[str, float | None]) -> bool:
        """Whether an episode with these headline values passed (by default: the full primary score)."""
        primary = values.get(self.report_columns[0][1])
        return primary is not None and primary >= 1.0 - 1e-9

    def explain(self, detail: Mapping[str, Any]) -> list[str]:
        """What in the protocol's record of an episode decided its verdict, one reason a line (the score's
        ``explanation``: what a report's episode view shows beside the scores); by default nothing more."""
        return []

    def verdict(self, row: Mapping[str, Any] | None, score: Score | None, error: str | None = None) -> Verdict:
        """The verdict of an episode from its summary row and stored score (an errored one: ``error``)."""
        values = self.episode_values(row) if row is not None else {}
        if error is not None or score is None:
            return Verdict(values, False, [f"the episode ended in an error: {error}"])
        # a record stored before scores were typed carries no explanation: worked out from its detail
        return Verdict(values, self.passed(values), list(score.explanation) or self.explain(score.detail))

    def group_of(self, task: Task) -> str:
        """The task's group in :attr:`report_groups` (by default the spec field it names: ``by_category``)."""
        return str(getattr(task.spec, self.report_groups.removeprefix("by_"), None) or "other")

    def episode_row(self, record: EpisodeRecord, task: Task) -> dict[str, Any]:
        """One episode's row of the summary: its group, status and the numbers of its score (an errored
        episode has none: every headline metric is then 0)."""
        ok = record.status == "ok" and record.score is not None
        values = record.score.values if ok and record.score is not None else {}
        row: dict[str, Any] = {"task_id": task.id, "epoch": record.epoch, "group": self.group_of(task),
                               "status": record.status, "error": record.error}
        row |= {key: 0.0 for _, key, _ in self.report_columns} if not ok else {}
        return row | values

    def aggregate(self, rows: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
        """The declared metrics over ``rows``: each the weighted mean of :meth:`headline_values`."""
        sums: dict[str, list[float]] = {key: [0.0, 0.0] for _, key, _ in self.report_columns}
        for row in rows:
            for key, (value, weight) in self.headline_values(row).items():
                sums[key][0] += value * weight
                sums[key][1] += weight
        return {"n": len(rows), **{key: (v / w if w else None) for key, (v, w) in sums.items()}}

    def primary_value(self, row: Mapping[str, Any]) -> tuple[float, float]:
        """The primary metric's (value, weight) in one episode row."""
        return self.headline_values(row)[self.report_columns[0][1]]

    def uncertainty(self, rows: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
        """The summary's ``uncertainty`` block: every headline metric's bootstrap 95 % interval, and flip rates
        across trials (see :mod:`mcp_persona.scoring.uncertainty`)."""
        from mcp_persona.scoring.uncertainty import uncertainty

        return uncertainty(rows, self.headline_values, [key for _, key, _ in self.report_columns])

    @staticmethod
    def run_counts(config: RunConfig, tasks: Sequence[Task], records: Sequence[EpisodeRecord]) -> dict[str, Any]:
        """What every summary starts with: the run's settings, then its tasks, episodes and errors."""
        return {**config.to_dict(), "n_tasks": len(tasks), "n_episodes": len(records),
                "n_errors": sum(1 for r in records if r.status == "error"),
                "n_internal_errors": sum(len(r.internal_errors) for r in records)}

    def summarize(self, config: RunConfig, tasks: Sequence[Task], records: Sequence[EpisodeRecord]) -> dict[str, Any]:
        """The run's summary from the declarations alone: the declared metrics overall and per group, the usage
        figures, the intervals, one row per episode. A protocol with more to say extends it."""
        from mcp_persona.scoring.usage import usage_metrics

        by_id = {t.id: t for t in tasks}
        rows = [self.episode_row(r, by_id[r.task_id]) for r in records]
        groups = sorted({row["group"] for row in rows})
        return {
            **self.run_counts(config, tasks, records),
            "metrics": self.aggregate(rows) | usage_metrics(records),
            "uncertainty": self.uncertainty(rows),
            self.report_groups: {g: self.aggregate([row for row in rows if row["group"] == g]) for g in groups},
            "episodes": rows,
        }

    def published_results(self) -> dict[str, PublishedTable]:
        """The published rows of this protocol's paper tables, from its package's data (by table key)."""
        from mcp_persona.protocols.paper_tables import published_results

        return published_results(type(self).__module__, self.paper_tables)

    def intro(self) -> str:
        """What a report says its scores are (a protocol may say it in its own words: :attr:`report_intro`)."""
        return self.report_intro or ", ".join(f"{label} ({tip})" for label, _, tip in self.report_columns)

    def summary_lines(self, summary: dict[str, Any]) -> list[str]:
        """What the console prints under the run's score table besides the declared metrics (failure modes, a
        judge's record, ...): plain lines."""
        return []


def percent(value: float | None) -> str:
    """A 0..1 share in % with one decimal ("-" where it does not apply)."""
    return "-" if value is None else f"{100 * value:.1f}"
