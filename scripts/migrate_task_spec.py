"""Move each task file's protocol fields under ``spec`` (the task format's one-time change of layout).

Before the change a task carried every protocol's fields side by side (``category``, ``checkpoints``,
``type``, ``key_points``...); after it, the shared task holds id, suite, instruction, servers, clock, gold,
reference answer and seed, and everything its protocol adds sits in ``spec``, validated by that protocol's
spec model.

Three steps, so the check compares the two layouts as the code of each read them:

    python scripts/migrate_task_spec.py snapshot before.json   # on the code that reads the flat layout
    python scripts/migrate_task_spec.py migrate                 # rewrite the bundled task files
    python scripts/migrate_task_spec.py check before.json       # on the code that reads ``spec``

A suite of your own in the flat layout moves the same way: ``migrate PATH...`` (task files or folders of them;
a file already in the new layout is left as it is), then ``mcp-persona tasks --suite PATH`` to see it load.

``check`` loads every bundled suite, flattens each task back (shared fields plus spec fields) and compares it,
field by field, with the snapshot; then compares what the protocol finds wrong with each task (its load-time
checks and its replay validation). It exits 1 on the first difference it prints.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import anyio

SHARED = ("id", "suite", "instruction", "servers", "clock", "gold", "reference_answer", "seed", "spec")
TASKS = Path(__file__).resolve().parents[1] / "src" / "mcp_persona" / "data" / "tasks"


def _suites() -> list[str]:
    return sorted(p.name for p in TASKS.iterdir() if p.is_dir())


def _flat(task: Any) -> dict[str, Any]:
    data = task.model_dump(mode="json", exclude_defaults=True)
    spec = data.pop("spec", None)
    if isinstance(spec, dict):
        data |= spec
    return data


async def _fingerprint() -> dict[str, Any]:
    from mcp_persona.protocols import load_suite

    out: dict[str, Any] = {}
    for suite in _suites():
        protocol, tasks = load_suite(suite)
        for task in tasks:
            problems = protocol.task_problems(task) + await protocol.validate_task(task)
            out[f"{suite}/{task.id}"] = {"task": _flat(task), "problems": sorted(problems)}
        print(f"{suite}: {len(tasks)} tasks", file=sys.stderr)
    return out


def _nest(raw: dict[str, Any]) -> dict[str, Any]:
    if "spec" in raw:
        return raw
    shared = {k: v for k, v in raw.items() if k in SHARED}
    spec = {k: v for k, v in raw.items() if k not in SHARED}
    return {**shared, "spec": spec}


def _task_files(paths: list[Path]) -> list[Path]:
    out: list[Path] = []
    for p in paths:
        out += sorted(p.glob("*.json")) if p.is_dir() else [p]
    return [p for p in out if p.name != "suite.json"]


def migrate(paths: list[Path]) -> int:
    changed = 0
    for path in _task_files(paths or [TASKS / suite for suite in _suites()]):
        raw = json.loads(path.read_text(encoding="utf-8"))
        new = [_nest(t) for t in raw] if isinstance(raw, list) else _nest(raw)
        if new != raw:
            indent = 1 if isinstance(raw, list) else 2
            path.write_text(json.dumps(new, indent=indent, ensure_ascii=False) + "\n", encoding="utf-8")
            changed += 1
    print(f"{changed} task files rewritten")
    return 0


def check(snapshot: Path) -> int:
    before = json.loads(snapshot.read_text(encoding="utf-8"))
    after = anyio.run(_fingerprint)
    if sorted(before) != sorted(after):
        print(f"tasks differ: only before {sorted(set(before) - set(after))[:5]}, "
              f"only after {sorted(set(after) - set(before))[:5]}")
        return 1
    for key in before:
        if before[key] != after[key]:
            b, a = before[key], after[key]
            fields = sorted(k for k in set(b["task"]) | set(a["task"]) if b["task"].get(k) != a["task"].get(k))
            print(f"{key}: differs (fields {fields}; problems before {b['problems']}, after {a['problems']})")
            return 1
    print(f"{len(after)} tasks load and validate identically")
    return 0


def main(argv: list[str]) -> int:
    if len(argv) == 2 and argv[0] == "snapshot":
        Path(argv[1]).write_text(json.dumps(anyio.run(_fingerprint), ensure_ascii=False), encoding="utf-8")
        return 0
    if argv and argv[0] == "migrate":
        return migrate([Path(a) for a in argv[1:]])
    if len(argv) == 2 and argv[0] == "check":
        return check(Path(argv[1]))
    print(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
