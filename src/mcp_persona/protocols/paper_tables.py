"""A benchmark paper's results tables, as its protocol declares them, and the per-model results the paper
printed in them.

A :class:`PaperTable` says where each cell of the paper's layout lives in a run's ``summary.json``: the
breakdown its groups come from (``by_difficulty``, ``by_domain_type``, ...) and, per column, the group and the
metric key. A report reads a run's cells from that declaration alone, then prints beneath the runs the rows
the paper published, from ``published_results.json`` in the protocol's package. Those numbers were measured
on the paper's own task set with its own harness: they are a reference, never a run of this platform.

The file is validated on load (:func:`published_results`): a table, group or metric its rows name must be
one of the declared table's cells, so a typo cannot silently print as an empty cell.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

OVERALL = "overall"  # the group of a cell read from the run's whole figures (the table's ``overall`` key)
PUBLISHED_FILE = "published_results.json"
Format = Literal["pct", "num", "int"]


@dataclass(frozen=True)
class PaperColumn:
    """One column of a paper's table. ``fmt``: ``pct`` a 0..1 share a run stores and the paper prints in %,
    ``num`` a figure per episode, ``int`` a count. ``band``: the header spanning adjacent columns
    ("Easy", "Daily", "Single-Server"); ``decimals``: as the paper prints the column, when not as the table."""

    label: str
    metric: str
    group: str = OVERALL
    band: str = ""
    fmt: Format = "pct"
    decimals: int | None = None  # None: the table's


@dataclass(frozen=True)
class PaperTable:
    """A results table of a paper, in its layout.

    Rows are runs (then the paper's models) and each column reads ``(group, metric)``; or, when ``group_rows``
    is given, rows are those groups of the breakdown, as (group key, label), and each run (then each published
    model) gets the columns, which then name no group of their own.
    """

    key: str  # how the published file names the table
    title: str  # what the table shows, short
    source: str  # the paper and table number ("LiveMCP-101, Table 1")
    breakdown: str  # the summary key of the per-group figures (``by_<group>``)
    columns: tuple[PaperColumn, ...]
    group_rows: tuple[tuple[str, str], ...] = ()
    overall: str = "metrics"  # the summary key of the run's whole figures (the OVERALL group)
    decimals: int = 2  # as the paper prints them
    note: str = ""  # how a run's cells relate to the paper's, for the reader
    trials_label: bool = False  # a run's row says over how many trials its cells are averaged (avg@k)

    def __post_init__(self) -> None:
        if self.group_rows and any(c.group != OVERALL for c in self.columns):
            raise ValueError(f"paper table {self.key}: its rows are groups, so its columns name no group")

    def cells(self) -> set[tuple[str, str]]:
        """Every (group, metric) the table shows."""
        if self.group_rows:
            return {(g, c.metric) for g, _ in self.group_rows for c in self.columns}
        return {(c.group, c.metric) for c in self.columns}

    def value(self, summary: Mapping[str, Any], group: str, metric: str) -> float | None:
        """A run's cell; None where the run has no such figure or the group no episode."""
        figures = summary.get(self.overall) if group == OVERALL else (summary.get(self.breakdown) or {}).get(group)
        if not isinstance(figures, Mapping) or figures.get("n", 1) == 0:
            return None
        value = figures.get(metric)
        return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


class PublishedRow(BaseModel):
    """One model's numbers as the paper printed them: group -> metric -> value (percent for a ``pct`` column)."""

    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)

    model: str = Field(min_length=1)
    values: dict[str, dict[str, float]]


class PublishedTable(BaseModel):
    model_config = ConfigDict(extra="forbid")

    paper: str = Field(min_length=1, description="the paper, as a reader finds it")
    table: str = Field(min_length=1, description="the table's number in the paper")
    note: str = Field(min_length=1, description="what the numbers were measured on: the paper's own task set")
    rows: list[PublishedRow] = Field(min_length=1)


class PublishedResults(BaseModel):
    model_config = ConfigDict(extra="forbid")

    tables: dict[str, PublishedTable]


class PublishedDataError(ValueError):
    """A protocol's published results file that does not fit its declared paper tables."""


def check_published(data: PublishedResults, tables: tuple[PaperTable, ...], where: str) -> None:
    """Every table, group and metric ``data`` names must be a declared cell; every model is listed once."""
    declared = {t.key: t for t in tables}
    for key, published in data.tables.items():
        if key not in declared:
            raise PublishedDataError(f"{where}: table {key!r} is not one the protocol declares "
                                     f"(declared: {', '.join(sorted(declared)) or 'none'})")
        cells = declared[key].cells()
        seen: set[str] = set()
        for row in published.rows:
            if row.model in seen:
                raise PublishedDataError(f"{where}: table {key!r} lists {row.model!r} twice")
            seen.add(row.model)
            unknown = sorted(f"{g}/{m}" for g, metrics in row.values.items() for m in metrics if (g, m) not in cells)
            if unknown:
                raise PublishedDataError(f"{where}: table {key!r}, {row.model}: {', '.join(unknown)} is no cell of "
                                         "the table")
            bad = [f"{g}/{m}" for g, metrics in row.values.items() for m, v in metrics.items()
                   if not math.isfinite(v) or v < 0]
            if bad:
                raise PublishedDataError(f"{where}: table {key!r}, {row.model}: {', '.join(bad)} is not a number "
                                         "a paper prints")


def load_published(text: str, tables: tuple[PaperTable, ...], where: str) -> dict[str, PublishedTable]:
    """The published tables of a results file's text, validated against ``tables``."""
    try:
        data = PublishedResults.model_validate(json.loads(text))
    except json.JSONDecodeError as exc:
        raise PublishedDataError(f"{where}: not valid JSON ({exc})") from exc
    except ValidationError as exc:
        raise PublishedDataError(f"{where}: {exc}") from exc
    check_published(data, tables, where)
    return dict(data.tables)


@cache
def _published(module: str, tables: tuple[PaperTable, ...]) -> dict[str, PublishedTable]:
    path = resources.files(module) / PUBLISHED_FILE
    if not path.is_file():
        return {}
    return load_published(path.read_text(encoding="utf-8"), tables, f"{module}/{PUBLISHED_FILE}")


def published_results(module: str, tables: tuple[PaperTable, ...]) -> dict[str, PublishedTable]:
    """The published rows of the paper tables a protocol of ``module`` declares, by table key (none when its
    package ships no file); see :meth:`Protocol.published_results`."""
    if not tables:
        return {}
    return _published(module, tables)
