"""Load task suites: a bundled suite by name, or a task file / folder by path."""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError

from mcp_persona.tasks.models import Task, TaskSpec

SUITE_FILE = "suite.json"


class TaskFileError(ValueError):
    """A task file that cannot be used; the message names the file and what to fix."""


@cache
def _tasks_of(spec: type[TaskSpec]) -> TypeAdapter[list[Task[Any]]]:
    return TypeAdapter(list[Task[spec]])  # type: ignore[valid-type]


def bundled_suites() -> list[str]:
    root = resources.files("mcp_persona") / "data" / "tasks"
    return sorted(p.name for p in root.iterdir() if p.is_dir())


def _suite_dir(name: str) -> Path:
    return Path(str(resources.files("mcp_persona") / "data" / "tasks" / name))


class SuiteInfo(BaseModel):
    """``suite.json`` in a suite folder: which protocol its tasks follow (none: the platform's default)."""

    model_config = ConfigDict(extra="forbid")
    protocol: str | None = None
    description: str = Field("", description="one line on what the suite measures")


def _folder(source: str) -> Path | None:
    if source in bundled_suites():
        return _suite_dir(source)
    path = Path(source)
    return path if path.is_dir() else path.parent if path.is_file() else None


def suite_info(source: str) -> SuiteInfo:
    """The suite's ``suite.json`` (a task file uses its folder's); none names no protocol."""
    folder = _folder(source)
    path = folder / SUITE_FILE if folder is not None else None
    if path is None or not path.is_file():
        return SuiteInfo()
    try:
        info = SuiteInfo.model_validate_json(path.read_text(encoding="utf-8"))
    except ValidationError as exc:
        raise TaskFileError(f"{path}: invalid suite file: {exc.errors(include_url=False)[0]['msg']}") from exc
    return info


def read_tasks(source: str, spec: type[TaskSpec]) -> list[Task[Any]]:
    """Tasks of a bundled suite (``persona``) or of a JSON file or folder of JSON files, each with a ``spec``
    of the given model (the suite's protocol's: :func:`mcp_persona.protocols.load_suite` reads a suite so).

    A file holds one task object or a list of them. Ids must be unique.
    """
    path = Path(source)
    if source in bundled_suites():
        files = sorted(f for f in _suite_dir(source).glob("*.json") if f.name != SUITE_FILE)
    elif path.is_dir():
        files = sorted(f for f in path.glob("*.json") if f.name != SUITE_FILE)
        if not files:
            raise TaskFileError(f"{path}: folder has no .json task files")
    elif path.is_file():
        files = [path]
    else:
        raise TaskFileError(
            f"{source!r} is neither a bundled suite ({', '.join(bundled_suites())}) nor a task file or folder"
        )
    tasks: list[Task[Any]] = []
    for f in files:
        tasks.extend(_load_file(f, spec))
    seen: dict[str, str] = {}
    for t in tasks:
        if t.id in seen:
            raise TaskFileError(f"task id {t.id!r} appears twice ({seen[t.id]})")
        seen[t.id] = t.suite
    return tasks


def _load_file(path: Path, spec: type[TaskSpec]) -> list[Task[Any]]:
    try:
        raw: Any = json.loads(path.read_text(encoding="utf-8"))
    except UnicodeDecodeError as exc:
        raise TaskFileError(f"{path}: not UTF-8 text ({exc.reason})") from exc
    except json.JSONDecodeError as exc:
        raise TaskFileError(f"{path}: not valid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}") from exc
    except RecursionError:
        raise TaskFileError(f"{path}: JSON nested too deeply to be a task file") from None
    except OSError as exc:
        raise TaskFileError(f"{path}: cannot read it ({exc.strerror or exc})") from None
    items = raw if isinstance(raw, list) else [raw]
    _refuse_flat_layout(path, items, spec)
    try:
        return _tasks_of(spec).validate_python(items)
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


def _refuse_flat_layout(path: Path, items: list[Any], spec: type[TaskSpec]) -> None:
    """A task written before the protocol's fields moved under ``spec`` says so and how to move them, rather than
    listing each of them as an unknown field."""
    shared = set(Task.model_fields)
    for i, item in enumerate(items):
        if not isinstance(item, dict) or "spec" in item:
            continue
        flat = sorted(set(item) - shared)
        if flat and set(flat) <= set(spec.model_fields):
            raise TaskFileError(
                f"{path}: task {item.get('id', f'#{i}')}: {', '.join(flat)} go under \"spec\" (what the suite's "
                "protocol adds to the shared task; see 'Task files' in docs/reference.md); "
                "scripts/migrate_task_spec.py migrate PATH moves them")


def write_suite(out: Path, protocol: str, source: Path, tasks: list[Task[Any]]) -> None:
    """A suite folder: ``suite.json`` naming the protocol and where the tasks came from, and ``tasks.json``."""
    out.mkdir(parents=True, exist_ok=True)
    (out / SUITE_FILE).write_text(json.dumps({"protocol": protocol, "description": f"imported from {source.name}"},
                                             indent=2) + "\n", encoding="utf-8")
    rows = [t.model_dump(mode="json", exclude_defaults=True) for t in tasks]
    (out / "tasks.json").write_text(json.dumps(rows, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
