"""The workbook tools over the workbooks in the Context-Tree (see ``data/hierarchies/excel.json``)."""

from __future__ import annotations

import re
from typing import Any

from pydantic import Field

from mcp_persona.apps._live import JsonApp, collection, fail
from mcp_persona.apps._live.calc import CalcError, evaluate, tidy
from mcp_persona.apps.base import AppEnv, ToolFailure

APP = JsonApp(
    "excel",
    title="Excel",
    category="utility",
    personalized=False,
    description="Create workbooks and worksheets, write rows of data, apply formulas and read ranges back.",
    real_server="haris-musa/excel-mcp-server",
)
MAX_ROWS, MAX_COLS = 1000, 50
_CELL = re.compile(r"^([A-Z]{1,3})([1-9]\d{0,6})$")
_REF = re.compile(r"(?<![A-Za-z_])(\$?[A-Z]{1,3}\$?[1-9]\d{0,6})(?::(\$?[A-Z]{1,3}\$?[1-9]\d{0,6}))?(?![A-Za-z_(\d])")
Path = Field(min_length=6, max_length=300, pattern=r"^/.+\.xlsx$", description="Absolute path of an .xlsx file")
Sheet = Field(min_length=1, max_length=31, pattern=r"^[^\\/?*\[\]:]+$", description="Worksheet name")
Cell = Field(pattern=r"^[A-Z]{1,3}[1-9]\d{0,6}$", description="A cell address, e.g. 'B2'")
Value = str | int | float | bool | None
Rows = Field(min_length=1, max_length=MAX_ROWS, description="Rows of values; the first row may be headers")


def cell_ref(addr: str) -> tuple[int, int]:
    """(row, column), 1-based, of an A1 address."""
    m = _CELL.match(addr.replace("$", ""))
    if not m:
        raise fail(f"'{addr}' is not a cell address like B2")
    col = 0
    for ch in m.group(1):
        col = col * 26 + ord(ch) - 64
    if col > 16384:
        raise fail(f"column of '{addr}' is beyond XFD")
    return int(m.group(2)), col


def cell_name(row: int, col: int) -> str:
    letters = ""
    while col:
        col, rem = divmod(col - 1, 26)
        letters = chr(65 + rem) + letters
    return f"{letters}{row}"


def _book(env: AppEnv, filepath: str) -> dict[str, Any]:
    book = collection(env, "workbooks").get(filepath)
    if book is None:
        raise ToolFailure(f"Workbook not found: {filepath}", kind="not_found")
    return book


def _sheet(env: AppEnv, filepath: str, name: str) -> dict[str, Any]:
    book = _book(env, filepath)
    sheet = (book.get("worksheets") or {}).get(name)
    if sheet is None:
        raise ToolFailure(f"Sheet '{name}' not found in {filepath} (sheets: "
                          f"{', '.join(book.get('worksheets') or {}) or 'none'})", kind="not_found")
    return sheet


def _path(filepath: str, name: str | None = None) -> str:
    base = f'workbooks["{filepath}"]'
    return base if name is None else f'{base}.worksheets["{name}"]'


def _compute(formula: str, cells: dict[str, Any], formulas: dict[str, str], seen: tuple[str, ...] = ()) -> Any:
    """The value of ``formula`` over ``cells``, computing referenced formulas first (no cycles)."""
    names: dict[str, Any] = {}

    def value_of(addr: str) -> Any:
        if addr in seen:
            raise CalcError(f"circular reference through {addr}")
        if addr in formulas:
            return _compute(formulas[addr], cells, formulas, (*seen, addr))
        return cells.get(addr)

    def swap(m: re.Match[str]) -> str:
        a, b = m.group(1).replace("$", ""), (m.group(2) or "").replace("$", "")
        token = f"r_{len(names)}"
        if b:
            (r1, c1), (r2, c2) = cell_ref(a), cell_ref(b)
            if (r2 - r1 + 1) * (c2 - c1 + 1) > MAX_ROWS * MAX_COLS or r2 < r1 or c2 < c1:
                raise CalcError(f"range {a}:{b} is reversed or too large")
            vals = [value_of(cell_name(r, c)) for r in range(r1, r2 + 1) for c in range(c1, c2 + 1)]
            names[token] = [v for v in vals if isinstance(v, int | float) and not isinstance(v, bool)]
        else:
            v = value_of(a)
            if v is None:
                v = 0
            if not isinstance(v, int | float) or isinstance(v, bool):
                raise CalcError(f"#VALUE! {a} holds text")
            names[token] = v
        return token

    body = formula[1:] if formula.startswith("=") else formula
    if "!" in body:
        raise CalcError("references to other sheets are not supported")
    return tidy(evaluate(_REF.sub(swap, body), names))


def _recalc(sheet: dict[str, Any]) -> dict[str, Any]:
    cells = dict(sheet.get("cells") or {})
    formulas = sheet.get("formulas") or {}
    for addr, f in formulas.items():
        try:
            cells[addr] = _compute(f, cells, formulas, (addr,))
        except (CalcError, ToolFailure) as exc:
            raise fail(f"formula {addr} {f} fails after this change: {exc}", "conflict") from exc
    return cells


@APP.tool(mutates=True)
def create_workbook(env: AppEnv, filepath: str = Path) -> dict[str, Any]:
    """Create a new workbook with one empty sheet, 'Sheet1'."""
    if filepath in collection(env, "workbooks"):
        raise fail(f"Workbook already exists: {filepath}", "conflict")
    env.tree.create("workbooks", {"filepath": filepath, "created": env.now()})
    env.tree.create(f"{_path(filepath)}.worksheets", {"name": "Sheet1", "index": 0, "cells": {}, "formulas": {}})
    return {"message": f"Created workbook at {filepath}", "filepath": filepath, "sheets": ["Sheet1"]}


@APP.tool(mutates=True)
def create_worksheet(env: AppEnv, filepath: str = Path, sheet_name: str = Sheet) -> dict[str, Any]:
    """Add an empty worksheet to a workbook."""
    book = _book(env, filepath)
    sheets = book.get("worksheets") or {}
    if any(n.lower() == sheet_name.lower() for n in sheets):
        raise fail(f"Sheet '{sheet_name}' already exists in {filepath}", "conflict")
    env.tree.create(f"{_path(filepath)}.worksheets", {"name": sheet_name, "index": len(sheets), "cells": {},
                                                       "formulas": {}})
    return {"message": f"Sheet '{sheet_name}' created", "sheets": [*sheets, sheet_name]}


@APP.tool(mutates=True)
def write_data_to_excel(env: AppEnv, filepath: str = Path, sheet_name: str = Sheet,
                        data: list[list[Value]] = Rows,
                        start_cell: str = Field("A1", pattern=r"^[A-Z]{1,3}[1-9]\d{0,6}$",
                                                description="Top-left cell of the data")) -> dict[str, Any]:
    """Write rows of values starting at a cell (overwriting values and formulas there)."""
    sheet = _sheet(env, filepath, sheet_name)
    r0, c0 = cell_ref(start_cell)
    if any(len(row) > MAX_COLS for row in data):
        raise fail(f"a row has more than {MAX_COLS} values")
    if not any(len(row) for row in data):
        raise fail("data has no values")
    cells = dict(sheet.get("cells") or {})
    formulas = dict(sheet.get("formulas") or {})
    for i, row in enumerate(data):
        for j, v in enumerate(row):
            addr = cell_name(r0 + i, c0 + j)
            formulas.pop(addr, None)
            if v is None:
                cells.pop(addr, None)
            else:
                cells[addr] = v
    merged = {**sheet, "cells": cells, "formulas": formulas}
    env.tree.update(_path(filepath, sheet_name), {"cells": _recalc(merged), "formulas": formulas})
    width = max(len(row) for row in data)
    end = cell_name(r0 + len(data) - 1, c0 + max(width, 1) - 1)
    return {"message": f"Data written to {sheet_name}", "range": f"{start_cell}:{end}"}


def _used(cells: dict[str, Any]) -> str | None:
    if not cells:
        return None
    refs = [cell_ref(a) for a in cells]
    return f"A1:{cell_name(max(r for r, _ in refs), max(c for _, c in refs))}"


@APP.tool()
def read_data_from_excel(env: AppEnv, filepath: str = Path, sheet_name: str = Sheet,
                         start_cell: str = Field("A1", pattern=r"^[A-Z]{1,3}[1-9]\d{0,6}$", description="First cell"),
                         end_cell: str | None = Field(None, pattern=r"^[A-Z]{1,3}[1-9]\d{0,6}$",
                                                      description="Last cell (default: end of the used range)")
                         ) -> dict[str, Any]:
    """Read a range as rows of values (formulas shown with their computed values)."""
    sheet = _sheet(env, filepath, sheet_name)
    cells = sheet.get("cells") or {}
    used = _used(cells)
    r1, c1 = cell_ref(start_cell)
    if end_cell is None:
        if used is None:
            return {"sheet": sheet_name, "range": None, "rows": []}
        end_cell = used.split(":")[1]
    r2, c2 = cell_ref(end_cell)
    if r2 < r1 or c2 < c1:
        raise fail(f"end_cell {end_cell} is before start_cell {start_cell}", "conflict")
    if (r2 - r1 + 1) > MAX_ROWS or (c2 - c1 + 1) > MAX_COLS:
        raise fail(f"read at most {MAX_ROWS} rows and {MAX_COLS} columns at once")
    rows = [[cells.get(cell_name(r, c)) for c in range(c1, c2 + 1)] for r in range(r1, r2 + 1)]
    formulas = {a: f for a, f in (sheet.get("formulas") or {}).items()
                if r1 <= cell_ref(a)[0] <= r2 and c1 <= cell_ref(a)[1] <= c2}
    return {"sheet": sheet_name, "range": f"{start_cell}:{end_cell}", "rows": rows, "formulas": formulas}


def _check_formula(formula: str) -> None:
    if not formula.startswith("="):
        raise fail("a formula must start with '='")
    if len(formula) > 500:
        raise fail("formula longer than 500 characters")


@APP.tool(mutates=True)
def apply_formula(env: AppEnv, filepath: str = Path, sheet_name: str = Sheet, cell: str = Cell,
                  formula: str = Field(min_length=2, max_length=500, description="e.g. '=SUM(B2:B4)'")
                  ) -> dict[str, Any]:
    """Put a formula in a cell; its value is computed and stored with it."""
    _check_formula(formula)
    sheet = _sheet(env, filepath, sheet_name)
    cell_ref(cell)
    formulas = {**(sheet.get("formulas") or {}), cell: formula}
    try:
        value = _compute(formula, sheet.get("cells") or {}, formulas, (cell,))
    except CalcError as exc:
        raise fail(f"Invalid formula {formula}: {exc}") from exc
    cells = _recalc({**sheet, "formulas": formulas})
    env.tree.update(_path(filepath, sheet_name), {"cells": cells, "formulas": formulas})
    return {"message": f"Applied formula '{formula}' to cell {cell}", "cell": cell, "value": value}


@APP.tool()
def validate_formula_syntax(env: AppEnv, filepath: str = Path, sheet_name: str = Sheet, cell: str = Cell,
                            formula: str = Field(min_length=2, max_length=500, description="The formula")
                            ) -> dict[str, Any]:
    """Check a formula against the sheet without writing it; gives the value it would have."""
    _check_formula(formula)
    sheet = _sheet(env, filepath, sheet_name)
    cell_ref(cell)
    try:
        value = _compute(formula, sheet.get("cells") or {}, {**(sheet.get("formulas") or {}), cell: formula},
                         (cell,))
    except CalcError as exc:
        return {"valid": False, "message": str(exc)}
    return {"valid": True, "value": value}


@APP.tool()
def get_workbook_metadata(env: AppEnv, filepath: str = Path) -> dict[str, Any]:
    """A workbook's sheets with their used ranges."""
    book = _book(env, filepath)
    sheets = sorted((book.get("worksheets") or {}).values(), key=lambda s: s["index"])
    return {"filepath": filepath, "sheets": [{"name": s["name"], "used_range": _used(s.get("cells") or {}),
                                              "formulas": len(s.get("formulas") or {})} for s in sheets]}


@APP.tool(mutates=True)
def rename_worksheet(env: AppEnv, filepath: str = Path, old_name: str = Sheet, new_name: str = Sheet
                     ) -> dict[str, Any]:
    """Rename a worksheet."""
    sheet = _sheet(env, filepath, old_name)
    book = _book(env, filepath)
    if any(n.lower() == new_name.lower() for n in book["worksheets"] if n != old_name):
        raise fail(f"Sheet '{new_name}' already exists in {filepath}", "conflict")
    if new_name == old_name:
        raise fail("new_name is the same as old_name", "conflict")
    env.tree.delete(_path(filepath, old_name))
    env.tree.create(f"{_path(filepath)}.worksheets", {**sheet, "name": new_name})
    return {"message": f"Sheet renamed from '{old_name}' to '{new_name}'"}


@APP.tool(mutates=True)
def delete_worksheet(env: AppEnv, filepath: str = Path, sheet_name: str = Sheet) -> dict[str, Any]:
    """Delete a worksheet (a workbook keeps at least one)."""
    _sheet(env, filepath, sheet_name)
    if len(_book(env, filepath)["worksheets"]) == 1:
        raise fail("cannot delete the only sheet of a workbook", "conflict")
    env.tree.delete(_path(filepath, sheet_name))
    return {"message": f"Sheet '{sheet_name}' deleted"}
