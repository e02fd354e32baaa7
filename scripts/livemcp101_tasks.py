"""Write the ``livemcp101`` suite: realistic multi-server requests with validated execution plans.

Each task template runs its plan against the real simulated servers (under the task's clock) while it
is being written, so every id and number in the plan, the reference answer and the checkpoints comes
from an actual tool output. The templates are the source of the task files: change a template and
regenerate, never edit a task file by hand (a test rebuilds the suite and compares). Run
``python livemcp101_tasks.py [OUT]`` (default: the bundled suite's folder), then
``mcp-persona validate --suite livemcp101``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
from collections.abc import Awaitable, Callable
from contextlib import AsyncExitStack
from datetime import datetime
from pathlib import Path
from typing import Any

from annotate_asks import annotate
from mcp import Client
from suite_folder import clear

from mcp_persona.apps import get_app
from mcp_persona.clock import TaskClock

OUT = Path(__file__).resolve().parents[1] / "src" / "mcp_persona" / "data" / "tasks" / "livemcp101"
WS = "/home/user/workspace"
CONTEXT = {"filesystem": "default"}
SUITE = {
    "protocol": "livemcp101",
    "description": "LiveMCP-101: long multi-server tasks with validated execution plans, a 15-server pool per task, "
    "result and trajectory scores",
}


class Plan:
    """One task's execution plan, run step by step against fresh servers as it is written."""

    def __init__(self, stack: AsyncExitStack, now: str, tz: str) -> None:
        self.stack = stack
        self.clock = TaskClock(now=datetime.fromisoformat(now), timezone=tz)
        self.now, self.tz = now, tz
        self.gold: list[dict[str, Any]] = []
        self.clients: dict[str, Client] = {}
        self.servers: list[str] = []

    async def _client(self, server: str) -> Client:
        if server not in self.clients:
            app = get_app(server)
            env = app.env(CONTEXT.get(server, "default"), clock=self.clock)
            self.clients[server] = await self.stack.enter_async_context(Client(app.server(env)))
            self.servers.append(server)
        return self.clients[server]

    async def step(self, *calls: tuple[str, str, dict[str, Any]]) -> Any:
        """Run calls that do not depend on each other (one gold step); their parsed outputs."""
        outs = []
        for server, tool, args in calls:
            result = await (await self._client(server)).call_tool(tool, args)
            text = result.content[0].text if result.content else ""
            if result.is_error:
                raise RuntimeError(f"{server}.{tool}({args}) failed: {text}")
            try:
                outs.append(json.loads(text))
            except json.JSONDecodeError:
                outs.append(text)
        self.gold.append({"calls": [{"server": s, "tool": t, "arguments": a} for s, t, a in calls]})
        return outs[0] if len(outs) == 1 else outs

    def n_calls(self) -> int:
        return sum(len(s["calls"]) for s in self.gold)


def sole(scores: dict[str, Any], pick: Any = max) -> str:
    """The key with the best score; a tie would make the request ambiguous, so it stops the generator."""
    best = pick(scores.values())
    winners = [k for k, v in scores.items() if v == best]
    if len(winners) != 1:
        raise ValueError(f"ambiguous request: {winners} tie at {best}")
    return winners[0]


def found(
    summary: str,
    *values: Any,
    server: str | None = None,
    derived: dict[Any, str] | None = None,
    alternatives: dict[Any, list[Any]] | None = None,
    claim: tuple[str, list[str], bool] | None = None,
    reading: dict[str, Any] | None = None,
    beside: tuple[list[str], list[str]] | None = None,
    whole_word: bool = False,
    next_to: dict[Any, list[Any]] | None = None,
    apart: list[str] | None = None,
    reported: bool = False,
) -> dict[str, Any]:
    """A value to find. ``derived`` gives the arithmetic of a value the agent works out from numbers the tools
    showed (the calculator's expression, a sum it adds up), so its grounding is checked on those numbers;
    ``alternatives`` the other values the data or the wording makes right. Keys are GT values, as ``values``.
    ``claim``: (winner, rivals, up) for a comparison or a choice: the answer must put the winner on top (``up``)
    or at the bottom, not merely name it (mcp_persona.scoring.claims); ``reading``: how the claim is read (its
    ``aliases``, ``measure``, ``other_measures``, ``by_lead``). ``beside``: (names, siblings' names): the values
    are stated beside what they are about (the checkpoint's ``about``); ``whole_word``: each value as a word of
    its own. ``next_to``: for a value, what must be said next to it (a text, or a list of texts any of which
    will do: its date, its unit, "latest"), the checkpoint's per-value ``beside``; ``apart``: other names its
    stretch never reaches past (the other dates, the other releases). A value with ``next_to`` counts only in
    the answer, never because a later call used it."""
    cp: dict[str, Any] = {"type": "generic_search", "summary": summary, "gt_value": [str(v) for v in values]}
    if next_to:
        cp["beside"] = {str(v): [x if isinstance(x, str) else [str(a) for a in x] for x in items]
                        for v, items in next_to.items()}
    if apart:
        cp["apart"] = [str(a) for a in apart]
    if reported:  # the user asked to be told: a value used in a later call (converted, written) is not told
        cp["reported"] = True
    if claim:
        cp["claim"] = {"winner": claim[0], "rivals": list(claim[1])} | ({} if claim[2] else {"up": False})
        cp["claim"] |= reading or {}
    if beside:
        cp["about"] = {"names": list(beside[0]), "others": list(beside[1])}
    if whole_word:
        cp["whole_word"] = True
    if server:
        cp["server"] = server
    if derived:
        cp["derived"] = {str(v): expression for v, expression in derived.items()}
    if alternatives and any(alternatives.values()):
        cp["alternatives"] = {str(v): [str(a) for a in alts] for v, alts in alternatives.items() if alts}
    return cp


def _file_check(path: str, content: dict[str, Any], what: str) -> dict[str, Any]:
    return {
        "type": "operate",
        "summary": f"Write {path} with {what}",
        "server": "filesystem",
        "tool": "write_file",
        "operate_type": "create",
        "entity": "node",
        "expect": {"path": path, "content": content},
    }


def file_has(path: str, needle: str, what: str) -> dict[str, Any]:
    return _file_check(path, {"$contains": needle}, what)


def file_line(path: str, facts: list[Any], what: str) -> dict[str, Any]:
    """Some line of the file holds every fact, in any order and wording (``Tokyo`` and ``00:00`` whether the
    line reads ``Asia/Tokyo: 00:00`` or ``Tokyo - 00:00``); a fact may be ``{"$in": [...]}``, words that say
    the same thing."""
    return _file_check(path, {"$line": facts}, what)


def sheet_has(book: str, sheet: str, needle: str, what: str, tool: str = "write_data_to_excel") -> dict[str, Any]:
    return {
        "type": "operate",
        "summary": f"Sheet '{sheet}' of {book} holds {what}",
        "server": "excel",
        "tool": tool,
        "operate_type": "create",
        "entity": "worksheet",
        "expect": {"name": sheet, "cells": {"$contains": needle}},
        "parent_expect": {"filepath": book},
    }


def sheet_cells(
    book: str, sheet: str, cells: dict[str, Any], what: str, tool: str = "write_data_to_excel", new: bool = True,
    named: bool = False,
) -> dict[str, Any]:
    """Values of named cells (``cells.B7``): a number with decimals as ``$approx`` (any value that rounds to it at
    the decimals it is written with: a formula's unrounded result, or more decimals, is the same figure); a
    whole number or a text exactly. A new sheet's name is checked only when the instruction ``named`` it: any
    sheet of the workbook will do otherwise ("Sheet1", "Loan comparison")."""
    cp: dict[str, Any] = {
        "type": "operate",
        "summary": f"Sheet '{sheet}' of {book} holds {what}",
        "server": "excel",
        "tool": tool,
        "operate_type": "create" if new else "modify",
        "expect": {f"cells.{k}": {"$approx": v} if isinstance(v, float) and not v.is_integer() else v
                   for k, v in cells.items()},
    }
    if new:
        cp |= {"entity": "worksheet", "parent_expect": {"filepath": book}}
        if named:
            cp["expect"]["name"] = sheet
    else:
        cp["target"] = f'workbooks["{book}"].worksheets["{sheet}"]'
    return cp


def text_cells(rows: list[list[Any]], row0: int = 1) -> dict[str, Any]:
    """The text cells (headers, labels) of rows written from A``row0``, by address."""
    return {
        f"{chr(65 + j)}{row0 + i}": v for i, row in enumerate(rows) for j, v in enumerate(row) if isinstance(v, str)
    }


def sheet_now_has(book: str, sheet: str, needle: str, what: str) -> dict[str, Any]:
    return {
        "type": "operate",
        "summary": f"Sheet '{sheet}' of {book} now holds {what}",
        "server": "excel",
        "tool": "write_data_to_excel",
        "operate_type": "modify",
        "target": f'workbooks["{book}"].worksheets["{sheet}"]',
        "expect": {"cells": {"$contains": needle}},
    }


def money(x: float) -> str:
    return f"{x:,.2f}"


def cut(x: float, digits: int) -> str:
    """``x`` truncated (not rounded) to ``digits`` decimals: a prefix of the tool's longer figure, so an answer
    that rounds it the usual way still contains it."""
    text = f"{x:.12f}"
    whole, frac = text.split(".")
    return whole if digits == 0 else f"{whole}.{frac[:digits]}"


Template = Callable[[Plan], Awaitable[dict[str, Any]]]
TASKS: list[tuple[str, str, str, str, str, Template]] = []  # id, category, difficulty, now, tz, template


def task(
    tid: str, category: str, difficulty: str, now: str = "2026-03-12T09:00:00", tz: str = "Asia/Shanghai"
) -> Callable[[Template], Template]:
    def register(fn: Template) -> Template:
        TASKS.append((tid, category, difficulty, now, tz, fn))
        return fn

    return register


async def build(tid: str, category: str, difficulty: str, now: str, tz: str, fn: Template) -> dict[str, Any]:
    async with AsyncExitStack() as stack:
        plan = Plan(stack, now, tz)
        spec = await fn(plan)
    servers = list(dict.fromkeys(plan.servers + spec.pop("extra_servers", [])))
    return {
        "id": tid,
        "suite": "livemcp101",
        "instruction": spec["instruction"],
        "servers": [{"server": s, "context_id": CONTEXT.get(s, "default")} for s in servers],
        "clock": {"now": now, "timezone": tz},
        "gold": plan.gold,
        "reference_answer": spec["answer"],
        "spec": {
            "category": category,
            "checkpoints": spec["checkpoints"],
            "difficulty": difficulty,
            "key_points": spec.get("key_points", []),
        },
    }


async def main(out: Path = OUT) -> None:
    import livemcp101_templates  # noqa: F401  (registers the templates on the imported copy of this module)
    from livemcp101_tasks import TASKS as registered

    clear(out, SUITE["protocol"])
    (out / "suite.json").write_text(json.dumps(SUITE, indent=2) + "\n", encoding="utf-8")
    counts: dict[str, int] = {}
    for entry in registered:
        t = await build(*entry)
        (out / f"{t['id']}.json").write_text(json.dumps(t, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
        counts[t["spec"]["difficulty"]] = counts.get(t["spec"]["difficulty"], 0) + 1
    print(len(registered), counts)
    _, traced, left = annotate("livemcp101", write=True, folder=out)  # each check's request, where it is sure
    print(f"asks written for {traced} checks; {len(left)} checks of several-request instructions left to trace")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="Write the livemcp101 suite's task files.")
    parser.add_argument("out", nargs="?", type=Path, default=OUT, help="folder to write (default: the bundled suite)")
    asyncio.run(main(parser.parse_args().out))
