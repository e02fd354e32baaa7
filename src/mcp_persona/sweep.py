"""Sweeps: models × suites × a grid of run options × trials, one run folder per cell.

A sweep file (TOML, or YAML where PyYAML is installed) names the models (each with its settings), the
suites, the grid of options to vary and the run options every cell shares::

    name = "livemcp101-rounds"
    suites = ["livemcp101"]
    trials = 2
    concurrency = 4

    [[models]]
    model = "openai:gpt-4o-mini"
    temperature = 0

    [[models]]
    agent = "reference"

    [grid]
    max_rounds = [15, 20, 30, 50]

``vary = "one-at-a-time"`` varies each grid option alone, the others at their defaults (the papers'
ablations), instead of every combination. A grid option a suite's protocol does not take (``pool_size`` for
persona, say) is left out of that suite's cells, so one grid serves several suites. Each cell is one ordinary
run (``mcp-persona run``) in ``OUT/<suite>/<model>/<option=value,...>``: resumable on its own, reportable on
its own. Cells run one after another, so a model endpoint's request limit holds across the whole sweep.
"""

from __future__ import annotations

import itertools
import json
import re
import tomllib
from collections.abc import Sequence
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from mcp_persona.llm.settings import ModelSettings

# Options a grid may vary (as ``mcp-persona run`` spells them, with '_'): protocol options are checked per suite.
GENERIC_OPTIONS = ("max_rounds", "tools", "skills", "context_distractors")
# a model's generation settings, as ModelSettings names them (SweepModel declares each for validation)
MODEL_SETTINGS = tuple(f.name for f in fields(ModelSettings))
PRICES = ("price_in", "price_out", "price_cached_in")
Scalar = int | float | str


class SweepError(ValueError):
    """A sweep file that cannot be run; the message says what to fix."""


class SweepModel(BaseModel):
    """One model (or scripted agent) of the sweep, with the settings of its runs."""

    model_config = ConfigDict(extra="forbid")

    label: str | None = None  # names the cell folders; default: the model spec or the agent
    agent: Literal["reference", "noop", "model", "copilot"] = "model"
    model: str | None = None
    base_url: str | None = None
    api_key_env: str | None = None
    api_limits: Literal["auto", "openai", "anthropic", "compatible", "none"] | None = None
    max_requests: int | None = Field(default=None, ge=1)
    temperature: float | None = None
    top_p: float | None = None
    max_tokens: int | None = None
    seed: int | None = None
    reasoning_effort: str | None = None
    thinking_budget: int | None = None
    # the model's own prices, USD per million tokens (a self-hosted or unlisted model)
    price_in: float | None = Field(default=None, ge=0)
    price_out: float | None = Field(default=None, ge=0)
    price_cached_in: float | None = Field(default=None, ge=0)

    @model_validator(mode="after")
    def _agent_and_model(self) -> SweepModel:
        takes_model = self.agent in ("model", "copilot")
        if takes_model and not self.model:
            raise ValueError(f"agent {self.agent!r} needs a model (e.g. model = \"openai:gpt-4o-mini\")")
        if not takes_model and self.model:
            raise ValueError(f"agent {self.agent!r} takes no model (got {self.model!r})")
        return self

    @property
    def name(self) -> str:
        return self.label or self.model or self.agent

    def run_flags(self) -> dict[str, Any]:
        flags = {k: getattr(self, k) for k in ("agent", "model", "base_url", "api_key_env", "max_requests",
                                               *MODEL_SETTINGS, *PRICES) if getattr(self, k) is not None}
        if self.api_limits is not None:
            flags["api_limits"] = self.api_limits
        return flags


class SweepSpec(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str
    suites: list[str] = Field(min_length=1)
    models: list[SweepModel] = Field(min_length=1)
    grid: dict[str, list[Scalar]] = Field(default_factory=dict)
    # product: every combination of the grid's values; one-at-a-time: each option varied alone, the others at
    # their defaults (the papers' ablations: far fewer cells)
    vary: Literal["product", "one-at-a-time"] = "product"
    trials: int = Field(default=1, ge=1, le=32)
    concurrency: int = Field(default=4, ge=1, le=64)
    tasks: str | None = None  # glob patterns of task ids, as --tasks
    sample: int | None = Field(default=None, ge=1)  # a seeded sample per suite, as --sample
    sample_seed: int = 0
    judge: str = "rules"

    @field_validator("grid")
    @classmethod
    def _grid(cls, grid: dict[str, list[Scalar]]) -> dict[str, list[Scalar]]:
        from mcp_persona.protocols import all_options

        known = {*GENERIC_OPTIONS, *(o.name for o in all_options())}
        for key, values in grid.items():
            if key not in known:
                raise ValueError(f"grid option {key!r} is not one a sweep varies (known: {', '.join(sorted(known))})")
            if not values or len(set(map(str, values))) != len(values):
                raise ValueError(f"grid option {key!r} needs distinct values (got {values!r})")
        return grid

    @model_validator(mode="after")
    def _unique_labels(self) -> SweepSpec:
        names = [m.name for m in self.models]
        if len(set(names)) != len(names):
            raise ValueError(f"two models share a label ({', '.join(sorted(n for n in names if names.count(n) > 1))})"
                             ": give each a label")
        return self


def load_sweep(path: Path) -> SweepSpec:
    """The sweep file at ``path``, validated; SweepError says what is wrong and where."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise SweepError(f"cannot read {path}: {exc.strerror or exc}") from exc
    try:
        if path.suffix.lower() in (".yaml", ".yml"):
            try:
                import yaml
            except ImportError as exc:
                raise SweepError("a YAML sweep file needs PyYAML (pip install pyyaml), or write it as TOML") from exc
            data = yaml.safe_load(text)
        else:
            data = tomllib.loads(text)
    except (tomllib.TOMLDecodeError, ValueError) as exc:
        if isinstance(exc, SweepError):
            raise
        raise SweepError(f"{path}: not valid {'YAML' if path.suffix in ('.yaml', '.yml') else 'TOML'}: {exc}") from exc
    if not isinstance(data, dict):
        raise SweepError(f"{path}: a sweep file is a table of settings (name, suites, models, grid)")
    try:
        return SweepSpec.model_validate(data)
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(map(str, e['loc'])) or 'file'}: {e['msg']}" for e in exc.errors())
        raise SweepError(f"{path}: {problems}") from exc


@dataclass(frozen=True)
class Cell:
    """One run of the sweep: a model on a suite with one value of each grid option that suite takes."""

    suite: str
    model: SweepModel
    options: tuple[tuple[str, Scalar], ...]
    folder: Path
    flags: dict[str, Any] = field(default_factory=dict)  # the ``mcp-persona run`` flags of the cell

    @property
    def label(self) -> str:
        opts = " ".join(f"{k}={v}" for k, v in self.options)
        return f"{self.suite} · {self.model.name}" + (f" · {opts}" if opts else "")


def _safe(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9._=,+-]+", "_", text).strip("_") or "_"


def cells(spec: SweepSpec, out: Path) -> list[Cell]:
    """Every cell of the sweep, in a stable order: suite, model, then the grid in its file order."""
    from mcp_persona.protocols import suite_protocol
    from mcp_persona.tasks.loader import bundled_suites

    found: list[Cell] = []
    unknown = [s for s in spec.suites if s not in bundled_suites() and not Path(s).exists()]
    if unknown:  # said before any cell runs (and by --dry-run), not when the sweep reaches it
        raise SweepError(f"unknown suite {unknown[0]!r}: neither a bundled suite ({', '.join(bundled_suites())}) "
                         "nor a task file or folder")
    taken: set[str] = set()
    for suite in spec.suites:
        try:
            protocol = suite_protocol(suite)
        except (KeyError, ValueError) as exc:
            raise SweepError(f"suite {suite!r}: {exc}") from exc
        # every protocol takes the round limit and the tool pool; skills and distractors only where its prompts
        # carry them
        takes = {"max_rounds", *protocol.honours, *(o.name for o in protocol.options)}
        if protocol.tools_problem("all") is None:  # MCPAgentBench's pool is its own draw: no --tools all
            takes.add("tools")
        keys = [k for k in spec.grid if k in takes]
        taken.update(keys)
        if spec.vary == "product":
            combos = [tuple(zip(keys, values, strict=True))
                      for values in itertools.product(*(spec.grid[k] for k in keys))]
        else:
            combos = [((k, v),) for k in keys for v in spec.grid[k]] or [()]
        for model in spec.models:
            if model.agent == "copilot" and protocol.route_library is None:
                continue  # the copilot needs a tool library: only where the protocol has one
            for options in combos:
                folder = out / _safe(suite) / _safe(model.name) / (
                    ",".join(f"{k}={_safe(str(v))}" for k, v in options) or "default")
                flags = {"suite": suite, **model.run_flags(), **dict(options), "trials": spec.trials,
                         "concurrency": spec.concurrency, "judge": spec.judge, "run_dir": folder}
                if spec.tasks is not None:
                    flags["only"] = spec.tasks
                if spec.sample is not None:
                    flags["sample"], flags["sample_seed"] = spec.sample, spec.sample_seed
                found.append(Cell(suite, model, options, folder, flags))
    dropped = [k for k in spec.grid if k not in taken]
    if dropped:
        raise SweepError(f"grid option {dropped[0]!r}: no suite of this sweep takes it "
                         f"({', '.join(spec.suites)}); vary it with a suite whose protocol has it, or leave it out")
    return found


def cell_state(cell: Cell) -> Literal["new", "unfinished", "done"]:
    """``done``: the cell's summary counts every episode and none errored; ``unfinished``: a store is there."""
    summary_path = cell.folder / "summary.json"
    if summary_path.is_file():
        try:
            summary = json.loads(summary_path.read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError):
            summary = {}
        expected = summary.get("n_tasks", 0) * summary.get("trials", 1)
        if expected and summary.get("n_episodes") == expected and not (summary.get("errors") or {}).get("n"):
            return "done"
    return "unfinished" if (cell.folder / "run.sqlite").is_file() else "new"


def spent_usd(folders: Sequence[Path]) -> tuple[float, int]:
    """(USD spent, episodes stored) over the runs in ``folders``, from their stores: what the budget counts.
    A model call of unknown price counts 0, so a budget over unpriced models never stops a sweep; say so."""
    from mcp_persona.store import STORE_FILE, RunStore

    cost, episodes = 0.0, 0
    for folder in folders:
        if not (folder / STORE_FILE).is_file():
            continue
        store = RunStore(folder)
        try:
            for record in store.records():
                cost += sum(c.cost_usd or 0.0 for c in record.trajectory.model_calls)
                episodes += 1
        finally:
            store.close()
    return cost, episodes
