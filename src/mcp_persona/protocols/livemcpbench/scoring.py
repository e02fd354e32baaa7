"""LiveMCPBench's rule scores: GT values in the final answer, output files, named tool calls.

A task succeeds under the rules when every check passes and the answer is not a dump (far too long, or mostly
copied from the episode's data calls: :func:`mcp_persona.scoring.grounding.answer_dump`). Files are read
from the episode's working folder with the library of their format, so a file that merely has the
right name but not the content, or that is not a valid document, fails.

An answer check passes only when every GT value is in the answer, read as every suite reads a checkpoint
(:func:`mcp_persona.scoring.checkpoints.reported`: a value with ``about`` stated beside its item, one with
``beside`` with what it asks said next to it, a claim the way it is asked), *and grounded*
(:mod:`mcp_persona.scoring.grounding`): shown by a successful tool call of the episode, or, for a value the
checkpoint declares ``derived`` (a sum, a difference), computed from numbers that calls showed or the
instruction states. Route calls (library descriptions) and the library's compute tools (a calculator: its
output is a function of its arguments) show nothing, so an answer pasted from memory, or a calculator fed
numbers no call fetched, fails. The check's ``why`` names the value no tool output held.
"""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mcp_persona.context_tree import get_field
from mcp_persona.livemcptool import catalogue
from mcp_persona.protocols.livemcpbench.spec import FileCheck, StateCheck
from mcp_persona.scoring.checkpoints import _search, reported
from mcp_persona.scoring.claims import claims_winner
from mcp_persona.scoring.grounding import Evidence
from mcp_persona.scoring.match import holds_all, value_matches
from mcp_persona.scoring.normalize import appears_in
from mcp_persona.scoring.outputs import OutputRefused, read_output
from mcp_persona.tasks import OtherCheckpoint, SearchCheckpoint, Task
from mcp_persona.trajectory import ToolCallEvent, Trajectory

if TYPE_CHECKING:
    from mcp_persona.store import EpisodeRecord


class FileReadError(ValueError):
    pass


def document_text(name: str, data: bytes) -> str:
    """Every piece of text a document (``data``, the file ``name``'s bytes) holds, one unit per line: a
    paragraph or a line of text, a table row or a sheet row (its cells joined by `` | ``), a slide (its shapes'
    texts joined). A spreadsheet cell reads as its value: a formula as what it computes (:func:`cell_values`)."""
    suffix = Path(name).suffix.lower()
    try:
        if suffix in (".xlsx", ".xlsm"):
            return "\n".join(" | ".join(_shown(v) for v in row if v is not None)
                             for rows in cell_values(data).values() for row in rows)
        if suffix == ".docx":
            from docx import Document

            doc = Document(io.BytesIO(data))
            parts = [p.text for p in doc.paragraphs]
            parts += [" | ".join(c.text for c in row.cells) for t in doc.tables for row in t.rows]
            return "\n".join(parts)
        if suffix == ".pptx":
            from pptx import Presentation

            return "\n".join(_slide_texts(Presentation(io.BytesIO(data))))
        if suffix == ".csv":
            rows = csv.reader(io.StringIO(data.decode("utf-8-sig")))
            return "\n".join(" | ".join(row) for row in rows)
        return data.decode("utf-8")
    except Exception as exc:  # a corrupt document is a failed check, with the reason kept
        raise FileReadError(f"{Path(name).name} is not a readable {suffix or 'text'} file: {type(exc).__name__}: "
                            f"{exc}") from exc


def _shown(value: Any) -> str:
    """A cell value as text: a whole float without its ``.0`` (1555.0 reads 1555, as a spreadsheet shows it)."""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _slide_texts(prs: Any) -> list[str]:
    """One line per slide: the texts of its shapes and table cells, in order."""
    out = []
    for slide in prs.slides:
        parts = []
        for shape in slide.shapes:
            if shape.has_text_frame:
                parts.append(" ".join(shape.text_frame.text.split()))
            if getattr(shape, "has_table", False) and shape.has_table:
                parts += [" | ".join(c.text for c in row.cells) for row in shape.table.rows]
        out.append(" | ".join(p for p in parts if p))
    return out


def cell_values(data: bytes) -> dict[str, list[list[Any]]]:
    """Each sheet's rows of cell values, a formula read as what it computes: the value the spreadsheet program
    cached when it saved the file, else the formula evaluated as the simulated Excel server evaluates it
    (same-sheet references and ranges, + - * / ^, SUM, AVERAGE, MIN, MAX, ROUND, ...; None when it cannot be)."""
    from openpyxl import load_workbook

    raw = load_workbook(io.BytesIO(data), data_only=False)
    cached = load_workbook(io.BytesIO(data), data_only=True)
    return {ws.title: _sheet_values(ws, cached[ws.title]) for ws in raw.worksheets}


def _sheet_values(ws: Any, saved: Any) -> list[list[Any]]:
    from mcp_persona.apps._live.calc import CalcError
    from mcp_persona.apps.base import ToolFailure
    from mcp_persona.apps.excel.tools import _compute

    cells = {c.coordinate: c.value for row in ws.iter_rows() for c in row}
    # a writer that stores a formula with its "=" (excelize does) reads "==...": the same formula all the same
    formulas = {k: "=" + v.lstrip("=") for k, v in cells.items() if isinstance(v, str) and v.startswith("=")}
    plain = {k: v for k, v in cells.items() if k not in formulas}

    def value(ref: str) -> Any:
        if ref not in formulas:
            return cells[ref]
        if saved[ref].value is not None:
            return saved[ref].value
        try:
            return _compute(formulas[ref], plain, formulas, (ref,))
        except (CalcError, ToolFailure):
            return None

    return [[value(c.coordinate) for c in row] for row in ws.iter_rows()]


def _cell(data: bytes, ref: str) -> Any:
    from openpyxl.utils.cell import column_index_from_string, coordinate_from_string

    sheet, _, cell = ref.rpartition("!")
    sheets = cell_values(data)
    rows = sheets[sheet] if sheet else next(iter(sheets.values()))
    col, row = coordinate_from_string(cell.upper())
    try:
        return rows[row - 1][column_index_from_string(col) - 1]
    except IndexError:
        return None


def check_file(check: FileCheck, workdir: Path) -> tuple[bool, str]:
    """(passed, why) for one file check. Values are looked for as answers are
    (:func:`~mcp_persona.scoring.normalize.appears_in`: numbers as numbers, markdown emphasis dropped); a
    group of ``together`` must share one line of :func:`document_text` (a row, a slide)."""
    try:
        data = read_output(workdir, check.path)  # never through a link the model planted
        text = document_text(check.path, data)
        missing = [v for v in check.contains if not appears_in(v, text)]
        if missing:
            return False, f"{check.path} lacks {missing}"
        lines = text.splitlines()
        apart = [g for g in check.together if not any(holds_all(g, line) for line in lines)]
        if apart:
            return False, f"{check.path} has no line (row, slide) holding all of {apart[0]}"
        present = [v for v in check.absent if appears_in(v, text)]
        if present:
            return False, f"{check.path} should not hold {present}"
        if check.claim is not None:
            c = check.claim
            ok, why = claims_winner(text, c.winner, c.rivals, up=c.up, aliases=c.aliases)
            if not ok:
                return False, f"{check.path}: {why.replace('the answer', 'the document')}"
        for ref, want in check.cells.items():
            got = _cell(data, ref)
            if not value_matches(want, got):
                return False, f"{check.path} {ref} is {got!r}, expected {want!r}"
        if check.min_slides is not None:
            from pptx import Presentation

            n = len(Presentation(io.BytesIO(data)).slides)
            if n < check.min_slides:
                return False, f"{check.path} has {n} slides, expected at least {check.min_slides}"
    except (FileReadError, OutputRefused, KeyError) as exc:
        return False, str(exc)
    return True, "ok"


def check_state(check: StateCheck, records: dict[str, list[dict[str, Any]]]) -> tuple[bool, str]:
    """(passed, why): some record ``check.tool`` created on ``check.server`` holds every value and matches every
    field the check names."""
    created = [r for r in records.get(check.server, []) if r.get("created_by") == check.tool]
    if not created:
        return False, f"no record created by {check.server}:{check.tool}"
    holding = [r for r in created
               if holds_all(check.contains, json.dumps(r.get("fields", {}), ensure_ascii=False))]
    if not holding:
        return False, f"no record created by {check.server}:{check.tool} holds all of {check.contains}"
    if any(all(value_matches(want, get_field(r.get("fields", {}), k)) for k, want in check.fields.items())
           for r in holding):
        return True, "ok"
    return False, f"the record holding {check.contains} does not have {check.fields}"


def shows_data(call: ToolCallEvent) -> bool:
    """Whether a call's output may ground a value: an executed library tool that looks data up or changes
    it, not a route call (tool descriptions) nor a compute tool (its output follows from its arguments)."""
    if call.via == "route" or call.server is None:
        return False
    entry = catalogue().get(call.server)
    tool = entry.tool(call.tool) if entry is not None else None
    return tool is None or tool.behaviour != "compute"


def evidence(task: Task, trajectory: Trajectory) -> Evidence:
    return Evidence.of(trajectory.tool_calls, given=task.instruction, counts=shows_data)


def rule_checks(task: Task, trajectory: Trajectory, workdir: Path,
                records: dict[str, list[dict[str, Any]]] | None = None,
                seen: Evidence | None = None) -> list[dict[str, Any]]:
    """One entry per check: ``{kind, summary, passed, why}``; an answer check also lists its
    ``ungrounded`` values. ``records``: each simulated server's records at the end of the episode;
    ``seen``: the episode's :func:`evidence`, when the caller has it already."""
    out: list[dict[str, Any]] = []
    answer = trajectory.final_answer or ""
    seen = seen if seen is not None else evidence(task, trajectory)
    for cp in task.spec.checkpoints:
        if isinstance(cp, SearchCheckpoint):
            # the values and the claim are read as every suite reads them (binding a value to what it is
            # about, or to what is said beside it); only the grounding below is this suite's own
            verdict = _search(0, cp, answer, [], set())
            if verdict.score != 1.0:
                missing = [v for v in cp.gt_value if v not in reported(cp, answer)]
                out.append({"kind": "answer", "summary": cp.summary, "passed": False,
                            "why": _lacks(cp, missing) if missing else verdict.reason, "ungrounded": []})
                continue
            stated = {v: [f for f in cp.forms(v) if appears_in(f, answer)] for v in cp.gt_value}
            # grounded when some form the answer states is (an alternative of a tie: its own evidence)
            # a comparison's winner is named by the question: its claim, checked above, is the fact
            why = {v: "; ".join(ws) for v, forms in stated.items() if not (cp.claim and v == cp.claim.winner)
                   and all(ws := [seen.why_ungrounded(f, cp.derived.get(f)) or "" for f in forms])}
            out.append({"kind": "answer", "summary": cp.summary, "passed": not why,
                        "why": "; ".join(why.values()) if why else "ok", "ungrounded": list(why)})
        elif isinstance(cp, OtherCheckpoint):
            ok = any(c.server == cp.server and c.tool == cp.tool and not c.is_error for c in trajectory.tool_calls)
            out.append({"kind": "tool", "summary": cp.summary, "passed": ok,
                        "why": "ok" if ok else f"no successful {cp.server}:{cp.tool} call"})
        else:
            out.append({"kind": "unsupported", "summary": cp.summary, "passed": False,
                        "why": "operate checkpoints are not used under livemcpbench"})
    for fc in task.spec.file_checks:
        ok, why = check_file(fc, workdir)
        out.append({"kind": "file", "summary": fc.summary, "passed": ok, "why": why})
    for sc in task.spec.state_checks:
        ok, why = check_state(sc, records or {})
        out.append({"kind": "state", "summary": sc.summary, "passed": ok, "why": why})
    return out


def _lacks(cp: SearchCheckpoint, missing: list[str]) -> str:
    """Why an answer check failed for want of ``missing`` values: where the answer had to state them."""
    if cp.about is not None:
        return f"answer lacks {missing} beside {cp.about.names[0]}"
    bound = [v for v in missing if v in cp.beside]
    if bound:
        said = [i if isinstance(i, str) else i[0] for i in cp.beside[bound[0]]]
        return f"answer lacks {missing} said with {', '.join(said)} beside {bound[0]}"
    return f"answer lacks {missing}"


def efficiency(trajectory: Trajectory) -> dict[str, int]:
    """The paper's efficiency counts: agent steps (turns that called tools), distinct tools executed,
    execute calls and route calls. An agent without meta-tools executes every tool call directly."""
    calls = trajectory.tool_calls
    executed = [c for c in calls if c.via != "route"]
    return {
        "steps": len({c.round for c in calls}),
        "tools_used": len({(c.server, c.tool) for c in executed if c.server is not None}),
        "execute_calls": len(executed),
        "route_calls": sum(1 for c in calls if c.via == "route"),
    }


# LiveMCPBench's error taxonomy (its §Error Analysis), each failed episode in exactly one kind; ``answer`` is
# ours: the paper's annotators put such a failure under "other" (see :func:`error_kind`)
ERROR_KINDS = ("query", "retrieve", "tool", "answer", "other")
UNJUDGED = "unjudged"  # not an error kind: the failure rests on a judge verdict that could not be read


def error_kind(task: Task, record: EpisodeRecord) -> str | None:
    """Why a failed episode failed, in LiveMCPBench's taxonomy (None for a success), from its record alone.
    The tools a task needs are its gold calls' tools; the first stage that went wrong decides:

    * ``unjudged`` (:data:`UNJUDGED`, not an error kind): success was the judge's to decide (``--success
      judge``, or ``both`` with the rules passed) and its verdict was unparseable or errored: nobody said
      the episode failed, so it is not classified;
    * ``other``: the episode errored, or ended without an answer (out of rounds);
    * ``query``: a needed tool was never found (no route result named it, never called) and no route query of
      the episode described it (:func:`mcp_persona.retrieval.describes`: a plain keyword search would rank it
      among the library's first five for that query); an agent that never routed never asked for it;
    * ``retrieve``: every needed tool not found was described by some route query, yet the route results
      never named it: the retriever missed it;
    * ``tool``: every needed tool was found, but one never ran successfully (a wrong call, refused arguments);
    * ``answer``: every needed tool ran, and the answer (or the files it made) is still wrong.
    """
    if record.status == "ok" and record.score is not None and record.score.value("success"):
        return None
    from mcp_persona.retrieval import describes

    detail = record.score.detail if record.status == "ok" and record.score is not None else {}
    if detail.get("judge_status") not in (None, "ok"):
        rule = detail.get("success_rule") or "judge"
        if rule == "judge" or (rule == "both" and detail.get("rule_success")):
            return UNJUDGED
    trajectory = record.trajectory
    if record.status != "ok" or trajectory.stop_reason != "answered":
        return "other"
    needed = list(dict.fromkeys((c.server, c.tool) for c in task.gold_calls))
    queries: list[str] = []
    found: set[tuple[str, str]] = set()
    ran: set[tuple[str, str]] = set()
    for call in trajectory.tool_calls:
        if call.via == "route":
            query = (call.arguments or {}).get("query")
            if isinstance(query, str) and query.strip():
                queries.append(query)
            if call.is_error:
                continue
            try:
                hits = json.loads(call.result)
            except json.JSONDecodeError:
                hits = []
            if isinstance(hits, list):
                found |= {(h.get("server_name"), h.get("tool_name")) for h in hits if isinstance(h, dict)}
        elif call.server is not None:
            found.add((call.server, call.tool))
            if not call.is_error:
                ran.add((call.server, call.tool))
    missing = [t for t in needed if t not in found]
    if missing:
        asked = all(any(describes(q, server, tool) for q in queries) for server, tool in missing)
        return "retrieve" if asked else "query"
    if any(t not in ran for t in needed):
        return "tool"
    return "answer"
