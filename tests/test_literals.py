"""Every literal of a gold chain is discoverable: told, shown by an earlier step, or documented by the tool."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anyio
import pytest

from mcp_persona.literals import Listing, ListingReference, undiscoverable
from mcp_persona.protocols import get_protocol, load_tasks
from mcp_persona.protocols.persona.spec import PersonaTask
from mcp_persona.protocols.persona.validate import check_task
from mcp_persona.runner import run_episode
from mcp_persona.tasks import Task, TaskSpec, suite_info
from mcp_persona.trajectory import ToolCallEvent

TASKS = Path(__file__).parents[1] / "src/mcp_persona/data/tasks"
# a vault with one project note; a city that is also known by its English name; a calendar of type primary
WORLD = {"files": {"Projects/Plan.md": {"path": "Projects/Plan.md", "content": "# Plan"}},
         "cities": {"310000": {"name": "上海", "aliases": ["Shanghai"]}},
         "calendars": {"cal_1": {"calendar_id": "cal_1", "type": "primary"}},
         "sheets": ["Sales"], "users": [{"mobile": "+8613800138000", "name": "Zhao Min"}],
         "events": [{"date": "2026-03-12", "seats": 40}]}


def task(*steps: list[tuple[str, dict[str, Any]]]) -> Task:
    return Task[TaskSpec].model_validate({
        "id": "t1", "suite": "persona", "instruction": "x",
        "servers": [{"server": "obsidian", "context_id": "default"}], "clock": {"now": "2026-03-10T09:00:00"},
        "gold": [{"calls": [{"server": "obsidian", "tool": tool, "arguments": args} for tool, args in step]}
                 for step in steps], "spec": {}})


def flagged(t: Task, told: str, replies: dict[str, Any] | None = None, doc: str = "",
            schema: dict[str, Any] | None = None, every_value: bool = False) -> list[tuple[str, str]]:
    tools = {("obsidian", c.tool): (doc, schema or {}) for c in t.gold_calls}
    events = [ToolCallEvent(round=0, call_id=label, tool="x", result=json.dumps(reply, ensure_ascii=False))
              for label, reply in (replies or {}).items()]
    listing = Listing.of(told, tools, [WORLD])
    return [(lit.argument, lit.value) for lit in undiscoverable(t, events, listing, every_value=every_value)]


LIST = ("obsidian_list_files_in_dir", {"dirpath": "Projects"})


def test_a_name_only_the_world_holds_is_undiscoverable_until_the_instruction_states_it() -> None:
    t = task([LIST])
    assert flagged(t, "Add a line to my plan.") == [("dirpath", "Projects")]
    assert flagged(t, "Add a line to the plan in projects.") == []  # case does not matter
    # a name is looked up exactly: "project" is not the folder "Projects" (only a search's words are stemmed)
    assert flagged(t, "Add a line to my project plan.") == [("dirpath", "Projects")]
    assert flagged(t, "Add a line to my plan.", doc="dirpath: a folder such as Projects") == []


def test_an_earlier_step_shows_it_but_not_a_call_of_the_same_step() -> None:
    read = ("obsidian_get_file_contents", {"filepath": "Projects/Plan.md"})
    reply = {"gold_0_0": ["Projects/Plan.md"]}
    told = "Read my plan; it is in Projects."
    assert flagged(task([LIST], [read]), told, reply) == []
    assert flagged(task([LIST, read]), told, reply) == [("filepath", "Projects/Plan.md")]
    # a path is known when its folder and its file name are
    assert flagged(task([read]), "Read Plan.md in my Projects folder.") == []


def test_the_tool_documents_an_alias_or_lists_the_value() -> None:
    t = task([("obsidian_list_files_in_dir", {"calendar_id": "primary"})])
    assert flagged(t, "What is on my calendar?") == [("calendar_id", "primary")]
    assert flagged(t, "What is on my calendar?", doc="calendar_id: an id, or primary for the user's own") == []
    assert flagged(t, "What is on my calendar?", schema={"properties": {"calendar_id": {"enum": ["primary"]}}}) == []


def test_free_choices_of_the_agent_are_no_literals() -> None:
    t = task([("obsidian_append_content", {"filepath": "Projects/New idea.md", "content": "Sales are up.\nPlan",
                                           "seats": 40, "date": "2026-03-12", "when": "1773216000"})])
    assert flagged(t, "Write down my new idea.") == []  # a new note, a text, a number, a date, a timestamp


def test_values_are_compared_as_written_not_as_characters() -> None:
    sheet = task([("obsidian_get_file_contents", {"sheet": "Sales"})])
    assert flagged(sheet, "Read the wholesale figures.") == [("sheet", "Sales")]  # whole words only
    assert flagged(sheet, "Read the SALES sheet.") == []
    phone = task([("obsidian_get_file_contents", {"mobile": "+8613800138000"})])
    assert flagged(phone, "Invite Zhao Min (+86 138 0013 8000).") == []
    city = task([("obsidian_get_file_contents", {"city": "上海"})])
    assert flagged(city, "A lunch place near the office in Shanghai.") == []  # the world's own alias
    assert flagged(city, "A lunch place near the office.") == [("city", "上海")]
    search = task([("obsidian_simple_search", {"query": "plans"})])
    assert flagged(search, "Find my plan.") == []  # not a world name: the agent's words
    folders = task([("obsidian_simple_search", {"query": "Projects"})])
    assert flagged(folders, "Look through my project notes.") == []  # a search's words are stemmed


def test_where_every_argument_is_scored_every_value_is_a_literal() -> None:
    dice = task([("obsidian_roll", {"sides": 20, "date": "2026-03-12"})])
    assert flagged(dice, "Roll a d20 for me on 2026-03-12.", every_value=True) == []
    assert flagged(dice, "Roll a die for me in 2026, mid-March.", every_value=True) == [
        ("sides", "20"), ("date", "2026-03-12")]


def _persona_task(task_id: str, **changes: Any) -> Task:
    data = json.loads((TASKS / "persona" / f"{task_id}.json").read_text(encoding="utf-8"))
    return PersonaTask.model_validate({**data, **changes})


def test_validate_fails_a_task_whose_first_step_guesses_a_folder() -> None:
    shipped = _persona_task("obsidian_003")
    assert "Projects folder" in shipped.instruction
    assert anyio.run(check_task, shipped) == []
    guessed = _persona_task("obsidian_003", instruction=shipped.instruction.replace(
        "spring campaign page in my Projects folder", "spring campaign project page"))
    problems = anyio.run(check_task, guessed)
    assert problems == ["gold step 0 obsidian:obsidian_list_files_in_dir: dirpath='Projects' is not discoverable: "
                        "not in the instruction, not shown by an earlier step, not documented by the tool"]


async def _undiscoverable(suite: str) -> list[str]:
    protocol = get_protocol(suite_info(suite).protocol)
    every_value = suite_info(suite).protocol == "mcpagentbench"
    found: list[str] = []
    limiter = anyio.CapacityLimiter(4)

    async def one(t: Task) -> None:
        async with limiter:
            agent = ListingReference(protocol)
            record = await run_episode(t, agent, protocol=protocol)
            found.extend(f"{t.id}: {lit.problem()}" for lit in undiscoverable(t, record.trajectory.tool_calls,
                                                                              agent.listing, every_value=every_value))

    async with anyio.create_task_group() as tg:
        for t in load_tasks(suite):
            tg.start_soon(one, t)
    return found


@pytest.mark.parametrize("suite", ["persona", "mcpagentbench", pytest.param("livemcp101", marks=pytest.mark.slow),
                                   pytest.param("livemcpbench", marks=pytest.mark.slow)])
def test_every_literal_of_every_shipped_suite_is_discoverable(suite: str) -> None:
    assert anyio.run(_undiscoverable, suite) == []
