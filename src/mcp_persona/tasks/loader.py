"""Load task suites: a bundled suite by name, or a task file / folder by path."""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path
from typing import Any

from pydantic import TypeAdapter, ValidationError

from mcp_persona.tasks.models import Task


class TaskFileError(ValueError):
    """A task file that cannot be used; the message names the file and what to fix."""


_TASKS = TypeAdapter(list[Task])


def bundled_suites() -> list[str]:
    root = resources.files("mcp_persona") / "data" / "tasks"
    return sorted(p.name for p in root.iterdir() if p.is_dir())


def _suite_dir(name: str) -> Path:
    return Path(str(resources.files("mcp_persona") / "data" / "tasks" / name))


def load_tasks(source: str) -> list[Task]:
    """Tasks of a bundled suite (``persona``) or of a JSON file or folder of JSON files.

    A file holds one task object or a list of them. Ids must be unique.
    """
    path = Path(source)
    if source in bundled_suites():
        files = sorted(_suite_dir(source).glob("*.json"))
    elif path.is_dir():
        files = sorted(path.glob("*.json"))
        if not files:
            raise TaskFileError(f"{path}: folder has no .json task files")
    elif path.is_file():
        files = [path]
    else:
        raise TaskFileError(
            f"{source!r} is neither a bundled suite ({', '.join(bundled_suites())}) nor a task file or folder"
        )
    tasks: list[Task] = []
    for f in files:
        tasks.extend(_load_file(f))
    seen: dict[str, str] = {}
    for t in tasks:
        if t.id in seen:
            raise TaskFileError(f"task id {t.id!r} appears twice ({seen[t.id]})")
        seen[t.id] = t.suite
    return tasks


def _load_file(path: Path) -> list[Task]:
    try:
        raw: Any = json.loads(path.read_text(encoding="utf-8"))
    except UnicodeDecodeError as exc:
        raise TaskFileError(f"{path}: not UTF-8 text ({exc.reason})") from exc
    except json.JSONDecodeError as exc:
        raise TaskFileError(f"{path}: not valid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}") from exc
    items = raw if isinstance(raw, list) else [raw]
    try:
        return _TASKS.validate_python(items)
    except ValidationError as exc:
        lines = []
        for err in exc.errors(include_url=False)[:8]:
            loc = list(err["loc"])
            idx = loc.pop(0) if loc and isinstance(loc[0], int) else 0
            task_id = items[idx].get("id", f"#{idx}") if isinstance(items[idx], dict) else f"#{idx}"
            where = ".".join(str(p) for p in loc) or "(task)"
            lines.append(f"  task {task_id}: {where}: {err['msg']}")
        more = f"\n  ... and {exc.error_count() - 8} more" if exc.error_count() > 8 else ""
        raise TaskFileError(f"{path}: invalid task file:\n" + "\n".join(lines) + more) from exc
