"""Human review of generated tasks (paper §3.3, "Rigorous Filtering and Human Verification").

:func:`write_review` exports candidates as JSONL, one per line::

    {"id": ..., "status": "pending", "notes": [...], "problems": [...], "chain": {...}, "prototype": {...},
     "task": {...the task file JSON...}}

A person edits the ``task`` as needed and sets ``status`` to ``accepted`` or ``rejected``.
:func:`import_review` then passes each accepted task through the validation gate
(MCP-Persona's :func:`~mcp_persona.protocols.persona.validate.static_problems` and
:func:`~mcp_persona.protocols.persona.validate.check_task`, plus
duplicates against the suite folder) and writes the ones that pass to ``<suite_dir>/<id>.json``;
rejected, pending and failing candidates are not written, and the report says why.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from mcp_persona.persona_gen.pipeline import Candidate, task_to_json
from mcp_persona.protocols.persona.spec import PersonaTask
from mcp_persona.tasks import Task

STATUSES = ("pending", "accepted", "rejected")


class ReviewFileError(ValueError):
    """A review file that cannot be read; the message names the line."""


@dataclass
class ReviewItem:
    line: int
    id: str
    status: str
    notes: list[str]
    raw: dict[str, Any]  # the whole line, for round trips

    @property
    def task_json(self) -> Any:
        return self.raw.get("task")


@dataclass
class ImportReport:
    written: list[Path] = field(default_factory=list)
    failed: dict[str, list[str]] = field(default_factory=dict)  # id -> why
    rejected: list[str] = field(default_factory=list)
    pending: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.failed


def write_review(path: Path, candidates: Iterable[Candidate]) -> int:
    lines = [json.dumps(c.to_json(), ensure_ascii=False) for c in candidates]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return len(lines)


def read_review(path: Path) -> list[ReviewItem]:
    items: list[ReviewItem] = []
    for n, text in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not text.strip():
            continue
        try:
            raw = json.loads(text)
        except json.JSONDecodeError as exc:
            raise ReviewFileError(f"{path}:{n}: not valid JSON ({exc.msg})") from exc
        if not isinstance(raw, dict):
            raise ReviewFileError(f"{path}:{n}: expected a JSON object")
        status = raw.get("status", "pending")
        if status not in STATUSES:
            raise ReviewFileError(f"{path}:{n}: status {status!r} is not one of {', '.join(STATUSES)}")
        task = raw.get("task")
        tid = raw.get("id") or (task.get("id") if isinstance(task, dict) else None) or f"line{n}"
        notes = raw.get("notes", [])
        items.append(ReviewItem(n, str(tid), status, list(notes) if isinstance(notes, list) else [str(notes)], raw))
    return items


async def import_review(path: Path, suite_dir: Path, *, overwrite: bool = False) -> ImportReport:
    """Validate every accepted candidate of a review file and write the ones that pass to ``suite_dir``."""
    from mcp_persona.protocols import load_tasks
    from mcp_persona.protocols.persona.validate import check_task, static_problems
    from mcp_persona.tasks import TaskFileError
    from mcp_persona.validate import duplicate_tasks

    report = ImportReport()
    existing: list[Task] = []
    if suite_dir.is_dir() and any(suite_dir.glob("*.json")):
        try:
            existing = load_tasks(str(suite_dir))
        except TaskFileError as exc:
            raise ReviewFileError(f"the suite folder {suite_dir} does not load: {exc}") from exc
    accepted: list[Task] = []
    for item in read_review(path):
        if item.status == "rejected":
            report.rejected.append(item.id)
            continue
        if item.status == "pending":
            report.pending.append(item.id)
            continue
        try:
            task = PersonaTask.model_validate(item.task_json)
        except ValidationError as exc:
            report.failed[item.id] = [f"invalid task: {e['loc']}: {e['msg']}" for e in exc.errors(include_url=False)]
            continue
        others = [t for t in existing if not (overwrite and t.id == task.id)] + accepted
        problems = [p for p in duplicate_tasks([*others, task]) if p.startswith(f"task {task.id}:")]
        if any(t.id == task.id for t in others):
            problems.append(f"task id {task.id!r} already in {suite_dir}" + ("" if overwrite else
                                                                                " (import with overwrite)"))
        problems += static_problems(task) or await check_task(task)  # check_task repeats the static checks
        if problems:
            report.failed[item.id] = list(dict.fromkeys(problems))
            continue
        accepted.append(task)
    suite_dir.mkdir(parents=True, exist_ok=True)
    for task in accepted:
        target = suite_dir / f"{task.id}.json"
        target.write_text(json.dumps(task_to_json(task), ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
        report.written.append(target)
    return report
