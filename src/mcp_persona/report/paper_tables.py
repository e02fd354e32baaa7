"""The papers' results tables of a report, in each paper's layout.

Built from the declarations alone (:attr:`Protocol.paper_tables`): every cell of a run is read from its
``summary.json`` where the table says, and the rows the paper published (:meth:`Protocol.published_results`) follow the
runs, marked: they were measured on the paper's own task set, so they are a point of reference for the runs'
numbers, never a result of this platform. The Markdown and HTML reports render the same :class:`PaperGrid`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from mcp_persona.protocols.paper_tables import PaperColumn, PaperTable, PublishedTable

if TYPE_CHECKING:
    from mcp_persona.protocols import Protocol
    from mcp_persona.report.load import Run

# a run as a paper table reads it: its label and its summary
Source = tuple[str, Mapping[str, Any]]

DASH = "–"
UNKNOWN = "unknown"  # a figure nobody measured, as the leaderboard shows it
PUBLISHED_MARK = "published, paper's task set"


@dataclass(frozen=True)
class PaperRow:
    label: str
    cells: list[str]
    published: bool = False  # a row of the paper's own numbers


@dataclass(frozen=True)
class Band:
    """A header spanning ``span`` adjacent columns (the first column, the row labels, has one of its own)."""

    label: str
    span: int
    published: bool = False  # the columns of a published model (a table whose rows are groups)


@dataclass
class PaperGrid:
    table: PaperTable
    published: PublishedTable | None
    header: list[str]
    rows: list[PaperRow]
    bands: list[Band] = field(default_factory=list)  # none: a single header row

    @property
    def heading(self) -> str:
        return f"{self.table.source}: {self.table.title}"

    @property
    def caption(self) -> str:
        """What the runs' cells are, and where the published numbers come from and what they were measured on."""
        parts = [f"In the layout of {self.table.source}."]
        if self.table.note:
            parts.append(f"Runs: {self.table.note}.")
        if self.published is not None:
            where = "Columns" if self.table.group_rows else "Rows"
            parts.append(f"{where} marked \u201c{PUBLISHED_MARK}\u201d: as printed in {self.published.paper}, "
                         f"{self.published.table}; {self.published.note}.")
        return " ".join(parts)

    def markdown_header(self) -> list[str]:
        """One header row: each column's band before its label (Markdown tables have no spanning cells)."""
        if not self.bands:
            return self.header
        labels = [self.header[0]]
        i = 1
        for band in self.bands:
            prefix = f"{band.label} · " if band.label else ""
            labels += [prefix + h for h in self.header[i:i + band.span]]
            i += band.span
        return labels


def _decimals(table: PaperTable, col: PaperColumn) -> int:
    return table.decimals if col.decimals is None else col.decimals


def run_cell(table: PaperTable, col: PaperColumn, value: float | None) -> str:
    """A run's figure as the paper prints it: a share in % (the summary holds 0..1), a figure, a count."""
    if value is None:
        return DASH
    if col.fmt == "int":
        return str(round(value))
    return f"{(100 * value if col.fmt == 'pct' else value):,.{_decimals(table, col)}f}"


UNMEASURED = ("avg_input_tokens", "avg_output_tokens", "cost_usd")


def _run_value(table: PaperTable, col: PaperColumn, summary: dict[str, Any], group: str) -> str:
    """A run's cell; its tokens and cost read ``unknown`` when nobody measured them (an external agent's)."""
    if col.metric in UNMEASURED and summary.get("agent") == "external":
        return UNKNOWN
    return run_cell(table, col, table.value(summary, group, col.metric))


def published_cell(table: PaperTable, col: PaperColumn, value: float | None) -> str:
    """A published number, in the unit the paper printed it."""
    if value is None:
        return DASH
    return str(round(value)) if col.fmt == "int" else f"{value:,.{_decimals(table, col)}f}"


def _run_label(source: Source, table: PaperTable) -> str:
    label, summary = source
    return f"{label} (avg@{summary.get('trials') or 1})" if table.trials_label else label


def _published_value(values: dict[str, dict[str, float]], group: str, metric: str) -> float | None:
    return (values.get(group) or {}).get(metric)


def _bands(columns: Sequence[PaperColumn]) -> list[Band]:
    """Adjacent columns of one band share a spanning header; none when no column names a band."""
    if not any(c.band for c in columns):
        return []
    bands: list[Band] = []
    for c in columns:
        if bands and bands[-1].label == c.band:
            bands[-1] = Band(c.band, bands[-1].span + 1)
        else:
            bands.append(Band(c.band, 1))
    return bands


def paper_grid(table: PaperTable, runs: Sequence[Source], published: PublishedTable | None) -> PaperGrid:
    """``table`` filled from ``runs`` (in the given order), the published rows (or columns) after them."""
    cols = table.columns
    models = published.rows if published is not None else []
    if not table.group_rows:
        rows = [PaperRow(_run_label(r, table), [_run_value(table, c, r[1], c.group) for c in cols]) for r in runs]
        rows += [PaperRow(m.model, [published_cell(table, c, _published_value(m.values, c.group, c.metric))
                                    for c in cols], published=True) for m in models]
        return PaperGrid(table, published, ["Model", *(c.label for c in cols)], rows, _bands(cols))
    # rows are groups: each run, then each published model, gets the columns
    bands = [Band(_run_label(r, table), len(cols)) for r in runs]
    bands += [Band(f"{m.model} ({PUBLISHED_MARK})", len(cols), published=True) for m in models]
    rows = []
    for group, label in table.group_rows:
        cells = [_run_value(table, c, r[1], group) for r in runs for c in cols]
        cells += [published_cell(table, c, _published_value(m.values, group, c.metric)) for m in models for c in cols]
        rows.append(PaperRow(label, cells))
    noun = table.breakdown.removeprefix("by_").replace("_", " ").capitalize()
    header = [noun, *(c.label for _ in range(len(runs) + len(models)) for c in cols)]
    return PaperGrid(table, published, header, rows, bands)


def protocol_grids(protocol: Protocol, runs: Sequence[Source], *, published: bool = True) -> list[PaperGrid]:
    """Every paper table of ``protocol`` filled from ``runs`` (of that protocol), with the published rows."""
    shipped = protocol.published_results() if published else {}
    return [paper_grid(t, runs, shipped.get(t.key)) for t in protocol.paper_tables]


def paper_grids(runs: Sequence[Run]) -> list[PaperGrid]:
    """Every paper table of the runs' protocol (runs of one protocol), with its published rows."""
    if not runs:
        return []
    return protocol_grids(runs[0].protocol, [(r.label, r.summary) for r in runs])


def grid_dict(grid: PaperGrid) -> dict[str, Any]:
    """What the HTML template draws of a grid."""
    published_cols: set[int] = set()
    i = 0
    for band in grid.bands:
        if band.published:
            published_cols |= set(range(i, i + band.span))
        i += band.span
    return {"heading": grid.heading, "caption": grid.caption, "bands": grid.bands, "header": grid.header,
            "rows": [{"label": r.label, "published": r.published,
                      "cells": [{"text": c, "published": j in published_cols} for j, c in enumerate(r.cells)]}
                     for r in grid.rows],
            "mark": PUBLISHED_MARK}
