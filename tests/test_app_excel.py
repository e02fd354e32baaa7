"""The workbook server through the real MCP path: the state after each write, formulas, rejections."""

from __future__ import annotations

import pytest

from app_harness import AppHarness
from mcp_persona.apps import get_app
from mcp_persona.apps.base import AppEnv

APP = get_app("excel")
H = AppHarness(APP)
env = H.env_fixture()
BOOK = "/home/user/workspace/trip.xlsx"
Q1 = "/home/user/workspace/expenses_q1.xlsx"


def sheet(env: AppEnv, path: str, name: str) -> dict:
    return env.tree.data["workbooks"][path]["worksheets"][name]


@pytest.mark.anyio
async def test_create_write_formula_read(env: AppEnv) -> None:
    await H.ok_json(env, "create_workbook", {"filepath": BOOK})
    assert sheet(env, BOOK, "Sheet1")["cells"] == {}
    await H.ok_json(env, "create_worksheet", {"filepath": BOOK, "sheet_name": "Costs"})
    assert [s["index"] for s in env.tree.data["workbooks"][BOOK]["worksheets"].values()] == [0, 1]
    body = await H.ok_json(env, "write_data_to_excel", {"filepath": BOOK, "sheet_name": "Costs", "data": [
        ["City", "Nights", "Rate"], ["Tokyo", 3, 120.5], ["Seoul", 2, 80]]})
    assert body["range"] == "A1:C3"
    assert sheet(env, BOOK, "Costs")["cells"] == {"A1": "City", "B1": "Nights", "C1": "Rate", "A2": "Tokyo",
                                                  "B2": 3, "C2": 120.5, "A3": "Seoul", "B3": 2, "C3": 80}
    body = await H.ok_json(env, "apply_formula", {"filepath": BOOK, "sheet_name": "Costs", "cell": "D2",
                                                  "formula": "=B2*C2"})
    assert body["value"] == 361.5
    await H.ok_json(env, "apply_formula", {"filepath": BOOK, "sheet_name": "Costs", "cell": "D4",
                                           "formula": "=SUM(D2:D3)+ROUND(AVERAGE(C2:C3), 0)"})
    assert sheet(env, BOOK, "Costs")["cells"]["D4"] == 361.5 + 100
    # a later write recomputes the formulas that depend on it
    await H.ok_json(env, "write_data_to_excel", {"filepath": BOOK, "sheet_name": "Costs", "data": [[4]],
                                                 "start_cell": "B2"})
    cells = sheet(env, BOOK, "Costs")["cells"]
    assert cells["D2"] == 482 and cells["D4"] == 582
    read = await H.ok_json(env, "read_data_from_excel", {"filepath": BOOK, "sheet_name": "Costs",
                                                         "start_cell": "A2", "end_cell": "D2"})
    assert read["rows"] == [["Tokyo", 4, 120.5, 482]] and read["formulas"] == {"D2": "=B2*C2"}


@pytest.mark.anyio
async def test_existing_workbook_metadata_rename_delete(env: AppEnv) -> None:
    meta = await H.ok_json(env, "get_workbook_metadata", {"filepath": Q1}, read_only=True)
    assert meta["sheets"] == [{"name": "Summary", "used_range": "A1:D4", "formulas": 0}]
    await H.rejected(env, "delete_worksheet", {"filepath": Q1, "sheet_name": "Summary"}, "only sheet")
    await H.ok_json(env, "rename_worksheet", {"filepath": Q1, "old_name": "Summary", "new_name": "Q1"})
    assert list(env.tree.data["workbooks"][Q1]["worksheets"]) == ["Q1"]
    await H.ok_json(env, "create_worksheet", {"filepath": Q1, "sheet_name": "Notes"})
    await H.ok_json(env, "delete_worksheet", {"filepath": Q1, "sheet_name": "Notes"})
    assert list(env.tree.data["workbooks"][Q1]["worksheets"]) == ["Q1"]


@pytest.mark.anyio
async def test_rejections_leave_the_workbooks_alone(env: AppEnv) -> None:
    args = {"filepath": Q1, "sheet_name": "Summary"}
    await H.rejected(env, "create_workbook", {"filepath": Q1}, "already exists")
    await H.rejected(env, "create_workbook", {"filepath": "relative.xlsx"}, "filepath")
    await H.rejected(env, "create_worksheet", {"filepath": Q1, "sheet_name": "summary"}, "already exists")
    await H.rejected(env, "write_data_to_excel", {**args, "data": []}, "data")
    await H.rejected(env, "write_data_to_excel", {**args, "data": [[1]], "start_cell": "a1"}, "start_cell")
    await H.rejected(env, "apply_formula", {**args, "cell": "E1", "formula": "SUM(B2:B4)"}, "must start with '='")
    await H.rejected(env, "apply_formula", {**args, "cell": "E1", "formula": "=E1+1"}, "circular reference")
    await H.rejected(env, "apply_formula", {**args, "cell": "E1", "formula": "=A2*2"}, "#VALUE! A2 holds text")
    await H.rejected(env, "apply_formula", {**args, "cell": "E1", "formula": "=__import__('os')"}, "unknown function")
    await H.rejected(env, "apply_formula", {**args, "cell": "E1", "formula": "=Other!A1"}, "other sheets")
    await H.rejected(env, "read_data_from_excel", {**args, "start_cell": "C3", "end_cell": "A1"}, "before start_cell")
    await H.rejected(env, "read_data_from_excel", {"filepath": Q1, "sheet_name": "Nope"}, "Sheet 'Nope' not found")
    await H.rejected(env, "rename_worksheet", {"filepath": Q1, "old_name": "Summary", "new_name": "Summary"},
                     "same as old_name")
    check = await H.ok_json(env, "validate_formula_syntax", {**args, "cell": "E5", "formula": "=SUM(B2:D4)"},
                            read_only=True)
    assert check == {"valid": True, "value": 5537.25}
