"""Excel: spreadsheet workbooks in the style of haris-musa/excel-mcp-server.

Same tool names and arguments: ``create_workbook {filepath}``, ``create_worksheet {filepath,
sheet_name}``, ``write_data_to_excel {filepath, sheet_name, data, start_cell?}`` (``data`` is a list of
rows), ``read_data_from_excel {filepath, sheet_name, start_cell?, end_cell?}``, ``apply_formula
{filepath, sheet_name, cell, formula}``, ``validate_formula_syntax``, ``get_workbook_metadata
{filepath}``, ``rename_worksheet`` and ``delete_worksheet``. Workbooks live in the Context-Tree (keyed
by absolute file path), so every write is part of the episode's state and checkable.

Formulas (``=SUM(B2:B4)*1.1``, ``=AVERAGE(C2:C13)``, ``=B2-C2``) run through the shared safe evaluator:
A1 references and ranges on the same sheet, + - * / ^, and SUM, AVERAGE, MIN, MAX, COUNT, ROUND,
ABS and the other functions of ``mcp_persona.apps._live.calc``. Text in a range is skipped, as Excel
does; every formula of a sheet is recomputed after each write, so stored values stay current.
"""

from mcp_persona.apps.excel.tools import APP

__all__ = ["APP"]
