"""Write each check's ``asks`` (the request of the instruction it traces to) into a suite's task files.

A check that already names its words is left alone. Otherwise, where the instruction makes one request, the
check traces to it and that is written; where it makes several, the request sharing the most words with the
check (``tasks.requests.likely_request``) is only a guess (about one in five is wrong on the persona suite), so
the check is listed with that guess for a person to trace by hand (``mcp-persona show TASK``). The task files
keep their layout (their JSON indent); run it again after regenerating a suite:

    python scripts/annotate_asks.py persona            # report only
    python scripts/annotate_asks.py persona --write    # write the decided ones
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from mcp_persona.protocols import get_protocol
from mcp_persona.tasks.loader import SUITE_FILE, read_tasks
from mcp_persona.tasks.requests import checks_of, likely_request, requests

DATA = Path(__file__).resolve().parents[1] / "src" / "mcp_persona" / "data" / "tasks"


def annotate(suite: str, *, write: bool, folder: Path | None = None) -> tuple[int, int, list[str]]:
    """(checks already traced, checks traced now, the checks left for a person), over the suite's bundled task
    files or those in ``folder`` (a generator's output: the generators call this last)."""
    spec = get_protocol(suite).spec_model
    kept = traced = 0
    left: list[str] = []
    for path in sorted(p for p in (folder or DATA / suite).glob("*.json") if p.name != SUITE_FILE):
        text = path.read_text(encoding="utf-8")
        raw = json.loads(text)
        second = text.split("\n", 2)[1] if "\n" in text else ""
        indent = (len(second) - len(second.lstrip(" "))) or 2  # the file's own
        items: list[dict[str, Any]] = raw if isinstance(raw, list) else [raw]
        tasks = {t.id: t for t in read_tasks(str(path), spec)}
        changed = False
        for item in items:
            task = tasks[item["id"]]
            asked = requests(task.instruction)
            for check in checks_of(task):
                if check.asks:
                    kept += 1
                    continue
                if len(asked) != 1:
                    guess = likely_request(check, asked)
                    left.append(f"{task.id}: {check.name}: {check.summary}"
                                + (f"\n      likely: {guess}" if guess else ""))
                    continue
                request = asked[0]
                field, index = check.where
                item["spec"][field][index]["asks"] = request
                traced += 1
                changed = True
        if write and changed:
            path.write_text(json.dumps(raw, indent=indent, ensure_ascii=False) + "\n", encoding="utf-8")
    return kept, traced, left


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("suite", help="a bundled suite with checks: persona, livemcp101 or livemcpbench")
    parser.add_argument("--write", action="store_true", help="write the decided asks into the task files")
    args = parser.parse_args()
    kept, traced, left = annotate(args.suite, write=args.write)
    print(f"{args.suite}: {kept} checks already traced, {traced} traced {'now' if args.write else 'if written'}, "
          f"{len(left)} left for a person")
    for line in left:
        try:
            print("  " + line)
        except BrokenPipeError:  # piped into head
            break


if __name__ == "__main__":
    main()
