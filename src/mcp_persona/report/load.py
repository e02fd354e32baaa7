"""Read finished runs back: ``summary.json`` plus every episode record of ``run.sqlite``.

Records are kept as the raw JSON dicts the store holds, so fields added to a record
later (``diff``, ``cost_usd`` per model call) are read when present and never
required. The store is opened read-only: reading a run never changes it.

Scores come from ``summary.json`` when it is there (it scores errored episodes as
the run did); a run without one (killed before the end) is scored from its records.
"""

from __future__ import annotations

import contextlib
import json
import sqlite3
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mcp_persona.score import Score
from mcp_persona.scoring import EpisodeScore, by_category, suite_metrics
from mcp_persona.store import connect_read_only, read_form

if TYPE_CHECKING:
    from mcp_persona.protocols import Protocol

STORE_FILE = "run.sqlite"
SUMMARY_FILE = "summary.json"
_SUMMARY_ONLY = {"n_tasks", "n_episodes", "n_errors", "n_internal_errors"}
DEFAULTS = {"tools": "selected", "max_rounds": 20, "context_distractors": 0, "skills": "none", "trials": 1}


class RunLoadError(ValueError):
    """A folder that is not a readable run; the message says what is wrong with it."""


@dataclass(frozen=True)
class TaskInfo:
    """What the report shows of a task: its instruction and each checkpoint's summary."""

    id: str
    category: str
    instruction: str
    checkpoints: list[dict[str, Any]]  # {"type", "summary"}
    necessary_context: dict[str, str] = field(default_factory=dict)


@dataclass
class Episode:
    """One stored episode with its score and the figures the report needs."""

    task_id: str
    epoch: int
    category: str
    status: str
    acc: float
    exec_acc: float | None
    record: dict[str, Any]

    @property
    def key(self) -> str:
        return f"{self.task_id}#{self.epoch}"

    @property
    def trajectory(self) -> dict[str, Any]:
        return self.record.get("trajectory") or {}

    @property
    def events(self) -> list[dict[str, Any]]:
        return list(self.trajectory.get("events") or [])

    @property
    def model_calls(self) -> list[dict[str, Any]]:
        return [e for e in self.events if e.get("kind") == "model"]

    @property
    def tool_calls(self) -> list[dict[str, Any]]:
        return [e for e in self.events if e.get("kind") == "tool"]

    @property
    def tool_errors(self) -> int:
        return sum(1 for e in self.tool_calls if e.get("is_error"))

    @property
    def input_tokens(self) -> int:
        return sum(int((e.get("usage") or {}).get("input_tokens") or 0) for e in self.model_calls)

    @property
    def output_tokens(self) -> int:
        return sum(int((e.get("usage") or {}).get("output_tokens") or 0) for e in self.model_calls)

    @property
    def cost(self) -> tuple[float, int]:
        """(sum of the known ``cost_usd`` of its model calls, number of model calls whose cost is unknown)."""
        known = [e["cost_usd"] for e in self.model_calls if e.get("cost_usd") is not None]
        return float(sum(known)), len(self.model_calls) - len(known)

    @property
    def cost_usd(self) -> float | None:
        total, unknown = self.cost
        return None if unknown else total

    @property
    def elapsed_s(self) -> float:
        return float(self.trajectory.get("elapsed_s") or 0.0)

    @property
    def stop_reason(self) -> str | None:
        return self.trajectory.get("stop_reason")

    @property
    def error(self) -> str | None:
        return self.record.get("error") or self.trajectory.get("error")

    @property
    def diff(self) -> list[str]:
        return list(self.record.get("diff") or [])

    @cached_property
    def score(self) -> Score | None:
        """The stored score (a record stored before scores were typed reads as one too)."""
        raw = self.record.get("score")
        return Score.model_validate(raw) if raw else None

    @property
    def checks(self) -> list[dict[str, Any]]:
        """The checks that decided the score: name, score, why."""
        return [c.model_dump() for c in self.score.checks] if self.score is not None else []

    @property
    def collateral(self) -> list[str]:
        return list(self.score.detail.get("collateral") or []) if self.score is not None else []

    @property
    def strict(self) -> bool:
        return self.score is not None and bool(self.score.value("strict"))

    @property
    def strict_failures(self) -> list[str]:
        """Why the strict pass failed: end-state paths that differ from the gold replay's, and answer faults."""
        score = self.score.detail if self.score is not None else {}
        end = score.get("end_state") or {}
        out = [f"missing vs gold: {m}" for m in end.get("missing") or []]
        out += [f"extra vs gold: {x}" for x in end.get("extra") or []]
        out += [f"reported but never retrieved by a tool: {v}" for v in score.get("ungrounded") or []]
        if score.get("answer_dump"):  # runs scored before the copy rule carry no dump_why
            out.append(f"the answer pastes tool output ({score.get('dump_why') or 'far longer than the task needs'})")
        return out


@dataclass
class Run:
    """A loaded run: where it is, how it was made, its metrics and its episodes."""

    path: Path
    config: dict[str, Any]
    summary: dict[str, Any]
    episodes: list[Episode]
    tasks: dict[str, TaskInfo]
    notes: list[str] = field(default_factory=list)  # what could not be read, for the reader
    label: str = ""

    @property
    def failure_modes(self) -> dict[str, int]:
        """LiveMCP-101 failure-mode counts of this run's failed episodes (from summary.json), modes only."""
        counts = self.summary.get("failure_modes") or {}
        skip = {"undecided", "by_rules", "by_judge", "judge_unparseable", "failed", "passed", "errored"}
        return {mode: n for mode, n in counts.items() if mode not in skip and isinstance(n, int)}

    @property
    def name(self) -> str:
        return self.path.name

    @property
    def published(self) -> dict[str, Any] | None:
        """What a peer published for an imported run (``mcp-persona import mcpagentbench-results``), else None."""
        return self.summary.get("published")

    @property
    def metrics(self) -> dict[str, Any]:
        return self.summary.get("metrics") or {}

    @property
    def categories(self) -> dict[str, dict[str, Any]]:
        return self.summary.get("by_category") or {}

    @property
    def protocol(self) -> Protocol:
        """The run's protocol (from its config); a run that names none or an unknown one reads as persona."""
        from mcp_persona.protocols import DEFAULT_PROTOCOL, get_protocol

        try:
            return get_protocol(str(self.config.get("protocol") or self.summary.get("protocol") or DEFAULT_PROTOCOL))
        except KeyError:
            return get_protocol(DEFAULT_PROTOCOL)

    @property
    def columns(self) -> tuple[tuple[str, str, str], ...]:
        """The protocol's headline score columns: (label, metric key, tooltip); the first is the primary score."""
        return self.protocol.report_columns

    @property
    def primary(self) -> tuple[str, str]:
        """(label, metric key) of the protocol's primary score."""
        label, key, _ = self.columns[0]
        return label, key

    @property
    def group_noun(self) -> str:
        """What the protocol's breakdown groups by: "category", "type", "difficulty", "domain"."""
        return self.protocol.report_groups.removeprefix("by_")

    @property
    def groups(self) -> dict[str, dict[str, Any]]:
        """The protocol's per-group breakdown from the summary (each group's metrics)."""
        return self.summary.get(self.protocol.report_groups) or {}

    @property
    def measured(self) -> bool:
        """Whether the run's tokens and cost were measured: an external agent's model calls are its own, unseen
        (its tokens and cost are unknown, never 0)."""
        return self.config.get("agent") != "external"

    def stats(self) -> dict[str, Any]:
        """The leaderboard figures of the run: scores from the summary, the rest from the records (tokens and
        cost None where they are unknown)."""
        eps = self.episodes
        n = len(eps) or 1
        calls = sum(len(e.tool_calls) for e in eps)
        costs = [e.cost for e in eps]
        unknown = sum(u for _, u in costs)
        model_calls = sum(len(e.model_calls) for e in eps)
        m = self.metrics
        return {
            "n": len(eps),
            "n_errors": sum(1 for e in eps if e.status == "error"),
            "scores": {key: m.get(key) for _, key, _ in self.columns},
            # a group without episodes (a domain the run drew no task from) has no score
            "by_group": {g: (v or {}).get(self.primary[1]) for g, v in self.groups.items() if (v or {}).get("n", 1)},
            "avg_input_tokens": sum(e.input_tokens for e in eps) / n if self.measured else None,
            "avg_output_tokens": sum(e.output_tokens for e in eps) / n if self.measured else None,
            "total_tokens": sum(e.input_tokens + e.output_tokens for e in eps) if self.measured else None,
            # None: not measured, or no model call of the run has a known cost; partial: some are unknown (a
            # lower bound)
            "cost_usd": (None if not self.measured or (model_calls and unknown == model_calls)
                         else sum(c for c, _ in costs)),
            "cost_partial": 0 < unknown < model_calls,
            "avg_tool_calls": calls / n,
            "tool_error_rate": sum(e.tool_errors for e in eps) / calls if calls else 0.0,
            "avg_elapsed_s": sum(e.elapsed_s for e in eps) / n,
            "total_elapsed_s": sum(e.elapsed_s for e in eps),
            "pass_k": self.summary.get("pass_k"),
        } | self._published_usage()

    def _published_usage(self) -> dict[str, Any]:
        """A published run's episodes are a replay: its tokens and time are the peer's (released only as totals,
        averaged here over the peer's tasks), its cost unknown."""
        reported = (self.published or {}).get("reported")
        if not reported:
            return {}
        n, eps = reported.get("n_tasks") or 0, len(self.episodes)

        def per_task(key: str) -> float | None:
            return reported[key] / n if n and isinstance(reported.get(key), int | float) else None

        tin, tout, time_s = per_task("input_tokens"), per_task("output_tokens"), per_task("time_s")
        return {"avg_input_tokens": tin, "avg_output_tokens": tout, "cost_usd": None, "cost_partial": False,
                "total_tokens": (tin or 0) * eps + (tout or 0) * eps, "avg_elapsed_s": time_s,
                "total_elapsed_s": None if time_s is None else time_s * eps}


def _settings(config: dict[str, Any]) -> list[str]:
    parts = []
    defaults = dict(DEFAULTS)
    if config.get("protocol"):  # a protocol's own round limit is its default (LiveMCP-101: 30)
        from mcp_persona.protocols import get_protocol

        with contextlib.suppress(KeyError):
            defaults["max_rounds"] = get_protocol(str(config["protocol"])).max_rounds
    for key, default in defaults.items():
        value = config.get(key, default)
        if value is not None and value != default:
            short = "distractors" if key == "context_distractors" else key
            parts.append(f"{short}={Path(value).name if key == 'skills' else value}")
    # the protocol's options away from their defaults (K, distractors, pool size, tool budget), then the
    # generation settings that were set: runs that differ in either score differently
    protocol = config.get("protocol")
    if protocol:
        from mcp_persona.protocols import get_protocol

        try:
            defaults = {o.name: o.default for o in get_protocol(protocol).options}
        except KeyError:
            defaults = {}
        parts += [f"{k}={v}" for k, v in sorted((config.get("protocol_options") or {}).items())
                  if defaults.get(k) != v]
    parts += [f"{k}={v}" for k, v in (config.get("model_settings") or {}).items()]
    return parts


def run_label(config: dict[str, Any]) -> str:
    """``agent`` (or the model of a model agent) and the settings that differ from the defaults; a run given
    a ``--label`` is named by it first."""
    who = config.get("model") or config.get("agent") or "?"
    if config.get("model") and config.get("agent") not in (None, "model"):
        who = f"{config['agent']}/{who}"
    named = " · ".join([str(who), *_settings(config)])
    return f"{config['label']} ({named})" if config.get("label") else named


def _read_store(path: Path) -> tuple[dict[str, Any] | None, list[dict[str, Any]]]:
    try:
        db = connect_read_only(path)
    except sqlite3.Error as exc:
        raise RunLoadError(f"{path}: cannot open the run store: {exc}") from exc
    try:
        tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        if "episodes" not in tables:
            raise RunLoadError(f"{path}: not a run store (no episodes table)")
        config = None
        if "meta" in tables:
            row = db.execute("SELECT value FROM meta WHERE key = 'config'").fetchone()
            config = json.loads(row[0]) if row else None
        rows = db.execute("SELECT record FROM episodes ORDER BY task_id, epoch").fetchall()
    except sqlite3.DatabaseError as exc:
        raise RunLoadError(f"{path}: not a readable run store: {exc}") from exc
    finally:
        db.close()
    records = []
    for (text,) in rows:
        try:
            records.append(read_form(json.loads(text)))  # the final answer where the store keeps it
        except json.JSONDecodeError as exc:
            raise RunLoadError(f"{path}: an episode record is not valid JSON: {exc.msg}") from exc
    return config, records


def load_task_infos(suite: str) -> dict[str, TaskInfo]:
    """The tasks of ``suite`` (a bundled name or a task file/folder); raises TaskFileError."""
    from mcp_persona.protocols import load_tasks
    from mcp_persona.tasks import checkpoints_of

    return {
        t.id: TaskInfo(t.id, t.spec.category, t.instruction,
                       [{"type": c.type, "summary": c.summary} for c in checkpoints_of(t)], t.spec.given_facts())
        for t in load_tasks(suite)
    }


def _episode_scores(summary: dict[str, Any]) -> dict[tuple[str, int], dict[str, Any]]:
    return {(e["task_id"], int(e.get("epoch") or 0)): e for e in summary.get("episodes") or [] if "task_id" in e}


def load_run(path: Path | str, *, suite: str | None = None) -> Run:
    """Read the run in folder ``path``. ``suite`` overrides where the task texts come from."""
    from mcp_persona.tasks import TaskFileError

    path = Path(path)
    if not path.exists():
        raise RunLoadError(f"{path}: no such folder")
    if not path.is_dir():
        raise RunLoadError(f"{path}: not a folder (pass the run's folder, the --run-dir of `mcp-persona run`)")
    store, summary_path = path / STORE_FILE, path / SUMMARY_FILE
    if not store.is_file():
        what = "only a summary.json" if summary_path.is_file() else "neither run.sqlite nor summary.json"
        raise RunLoadError(f"{path}: not a run folder ({what}; a run folder is the --run-dir of `mcp-persona run`)")
    stored_config, records = _read_store(store)
    notes: list[str] = []
    summary: dict[str, Any] = {}
    if summary_path.is_file():
        try:
            summary = json.loads(summary_path.read_text(encoding="utf-8"))
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            raise RunLoadError(f"{summary_path}: not valid JSON ({exc})") from exc
        if not isinstance(summary, dict):
            raise RunLoadError(f"{summary_path}: not a run summary (expected a JSON object)")
    else:
        notes.append("no summary.json (unfinished run?): scores computed from the stored episodes")
    config = stored_config or {k: v for k, v in summary.items()
                               if k not in _SUMMARY_ONLY and not isinstance(v, dict | list)}
    if not config:
        raise RunLoadError(f"{path}: the run store has no config (not made by `mcp-persona run`)")

    tasks: dict[str, TaskInfo] = {}
    source = suite or config.get("suite")
    if source:
        try:
            tasks = load_task_infos(str(source))
        except TaskFileError:
            notes.append(f"task texts unavailable: suite {source!r} not found (pass --suite FILE)")

    scored = _episode_scores(summary)
    episodes = []
    for rec in records:
        key = (rec.get("task_id", "?"), int(rec.get("epoch") or 0))
        s = scored.get(key)
        if s is not None and "acc" in s:  # (a summary row without acc: the record's own score below)
            acc, exec_acc = float(s.get("acc") or 0.0), s.get("exec_acc")
        elif rec.get("status") == "ok" and rec.get("score"):
            values = Score.model_validate(rec["score"]).values
            acc, exec_acc = float(values.get("acc") or 0.0), values.get("exec_acc")
        else:  # an errored episode scores 0, its operate checkpoints too
            info = tasks.get(key[0])
            has_ops = info is None or any(c["type"] == "operate" for c in info.checkpoints)
            acc, exec_acc = 0.0, 0.0 if has_ops else None
        episodes.append(Episode(key[0], key[1], rec.get("category") or "?", rec.get("status") or "?",
                                acc, exec_acc, rec))
    if summary.get("published"):
        pub = summary["published"]
        notes.append(f"published run ({pub.get('source')}), replayed here, not run: its tokens and time are the "
                     f"peer's averages over its {pub.get('reported', {}).get('n_tasks')} tasks; "
                     f"{len(pub.get('not_imported') or [])} of its tasks not imported")
    if summary.get("episodes") is not None and len(scored) != len(episodes):
        notes.append(f"summary.json lists {len(scored)} episodes, the store holds {len(episodes)}")
    if not summary:
        summary = _summary_from_store(config, str(source) if source else None, records) or {}
    if not summary:  # the tasks cannot be loaded: the checkpoint metrics every protocol's records carry
        scores = [EpisodeScore(e.task_id, e.category, e.acc, e.exec_acc, e.strict) for e in episodes]
        summary = {**config, "metrics": suite_metrics(scores), "by_category": by_category(scores),
                   "n_episodes": len(episodes)}
    return Run(path=path, config=config, summary=summary, episodes=episodes, tasks=tasks, notes=notes,
               label=run_label(config))


def _summary_from_store(config: dict[str, Any], suite: str | None,
                        records: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The summary the run would have written, from its stored episodes and its protocol (an unfinished run's
    report then shows its own protocol's scores); None when its tasks cannot be loaded."""
    import dataclasses

    from mcp_persona.protocols import load_tasks
    from mcp_persona.report.summary import build_summary
    from mcp_persona.run_config import RunConfig
    from mcp_persona.store import EpisodeRecord
    from mcp_persona.tasks import TaskFileError

    if not suite:
        return None
    try:
        tasks = load_tasks(suite)
        known = {f.name for f in dataclasses.fields(RunConfig)}
        run_config = RunConfig(**{k: v for k, v in config.items() if k in known})
        stored = [EpisodeRecord.model_validate(r) for r in records]
        done = {r.task_id for r in stored}
        return build_summary(run_config, [t for t in tasks if t.id in done], stored)
    except (TaskFileError, TypeError, ValueError, KeyError):
        return None


def load_runs(paths: Iterable[Path | str], *, suite: str | None = None) -> list[Run]:
    """Read every run; labels that would be ambiguous get the folder name added."""
    runs = [load_run(p, suite=suite) for p in paths]
    label_runs(runs)
    return runs


def label_runs(runs: Sequence[Run]) -> None:
    counts: dict[str, int] = {}
    for r in runs:
        counts[r.label] = counts.get(r.label, 0) + 1
    suites = {r.config.get("suite") for r in runs}
    for r in runs:
        if len(suites) > 1:
            r.label = f"{r.config.get('suite')} · {r.label}"
        if counts[run_label(r.config)] > 1:
            r.label = f"{r.label} ({r.name})"


def categories_of(runs: Sequence[Run]) -> list[str]:
    return sorted({c for r in runs for c in r.categories} | {e.category for r in runs for e in r.episodes})


def groups_of(runs: Sequence[Run]) -> list[str]:
    """The groups of the runs' protocol breakdown (runs of one protocol); categories for persona-style runs."""
    if all(r.protocol.report_groups == "by_category" for r in runs):
        return categories_of(runs)
    return sorted({g for r in runs for g, v in r.groups.items() if (v or {}).get("n", 1)})


def by_protocol(runs: Sequence[Run]) -> list[list[Run]]:
    """The runs split by protocol, in order of each protocol's first run."""
    out: dict[str, list[Run]] = {}
    for r in runs:
        out.setdefault(r.protocol.name, []).append(r)
    return list(out.values())
