"""Console tables that fit the terminal without cutting a name or splitting a word.

A table is drawn as a grid when every column gets its full header and the longest word of its cells; a
column may declare a short alias for its header (explained in a legend under the table) to make it fit;
when even the aliases do not fit, every row is printed as a block of ``header: value`` lines instead.
Outside a terminal the width is the ``COLUMNS`` variable's, else 80.
"""

from __future__ import annotations

import textwrap
from collections.abc import Sequence
from dataclasses import dataclass

from rich.cells import cell_len
from rich.console import Console
from rich.markup import escape
from rich.table import Table
from rich.text import Text


@dataclass(frozen=True)
class Column:
    header: str
    justify: str = "left"
    alias: str | None = None  # a shorter header, explained in the legend when used
    wraps: bool = False  # free text: may wrap between words (never inside one)
    meaning: str = ""  # what the legend says the alias stands for (default: the header)


def _widest_word(text: str) -> int:
    return max((cell_len(w) for w in text.split()), default=0)


def _body_width(col: Column, cells: Sequence[str]) -> int:
    """The narrowest the column's cells can be: their longest word (free text) or line."""
    if col.wraps:
        return max((_widest_word(c) for c in cells), default=0)
    return max((max((cell_len(line) for line in c.splitlines()), default=0) for c in cells), default=0)


def _needed(columns: Sequence[Column], rows: Sequence[Sequence[str]], headers: Sequence[str]) -> int:
    total = 0
    for i, (col, head) in enumerate(zip(columns, headers, strict=True)):
        total += max(cell_len(head), _body_width(col, [str(r[i]) for r in rows]))
    return total + 3 * len(columns) + 1  # a space either side of each cell, a rule between and around


def fits(columns: Sequence[Column], rows: Sequence[Sequence[str]], width: int, *, aliases: bool = False) -> bool:
    headers = [(c.alias or c.header) if aliases else c.header for c in columns]
    return _needed(columns, rows, headers) <= width


def print_table(console: Console, columns: Sequence[Column], rows: Sequence[Sequence[str]], *,
                title: str | None = None, styles: Sequence[str | None] | None = None,
                one_per_line: bool = True, legend: bool = True) -> str:
    """Print ``rows`` (plain text cells) under ``columns`` as fits ``console``'s width; returns the layout
    used: ``full``, ``aliases`` or ``vertical``. ``one_per_line``: the vertical layout puts each
    ``header: value`` on a line of its own (a table of figures), else runs them on (a listing); ``legend``:
    say under the table what each alias used stands for."""
    width = console.width
    styles = list(styles) if styles is not None else [None] * len(rows)
    if title:
        console.print(Text(title, style="bold"))
    for layout, use_alias in (("full", False), ("aliases", True)):
        if layout == "aliases" and not any(c.alias for c in columns):
            break
        if fits(columns, rows, width, aliases=use_alias):
            table = Table()
            for i, col in enumerate(columns):
                head = (col.alias or col.header) if use_alias else col.header
                table.add_column(escape(head), justify=col.justify, no_wrap=not col.wraps,  # type: ignore[arg-type]
                                 min_width=max(cell_len(head), _body_width(col, [str(r[i]) for r in rows])),
                                 overflow="fold")
            for row, style in zip(rows, styles, strict=True):
                table.add_row(*(escape(str(c)) for c in row), style=style)
            console.print(table)
            if use_alias and legend:
                legend = [f"{c.alias} = {c.meaning or c.header}" for c in columns if c.alias]
                console.print(Text("; ".join(legend)))
            return layout
    for row, style in zip(rows, styles, strict=True):
        console.print(Text(str(row[0]), style=style or "bold"))
        pairs = [(c.header, str(v)) for c, v in zip(columns[1:], row[1:], strict=True)]
        if one_per_line:
            pad = max(cell_len(h) for h, _ in pairs) + 1 if pairs else 0
            for head, value in pairs:
                indented(console, f"{head + ':':<{pad}} {value}", hang=pad + 3)
        else:
            indented(console, " · ".join(f"{h}: {v}" for h, v in pairs))
    return "vertical"


def indented(console: Console, text: str, *, indent: int = 2, hang: int | None = None,
             lead: tuple[int, str] | None = None) -> None:
    """``text`` indented by ``indent`` spaces, wrapped between words at the console's width (its further
    lines indented by ``hang``, default ``indent``); a word longer than a line is left whole. ``lead``: the
    first N characters of the text in a style."""
    lines = textwrap.wrap(text, width=max(20, console.width), initial_indent=" " * indent,
                          subsequent_indent=" " * (indent if hang is None else hang), break_long_words=False,
                          break_on_hyphens=False) or [""]
    for i, line in enumerate(lines):
        text = Text(line)
        if lead and i == 0:
            text.stylize(lead[1], indent, indent + lead[0])
        console.print(text, highlight=False, soft_wrap=True)
