"""What an instruction asks and which check covers each request (``mcp-persona show``); a check's ``asks`` must
be words of the instruction (checked when the suite loads)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from typer.testing import CliRunner

from mcp_persona.cli import app
from mcp_persona.protocols import load_tasks
from mcp_persona.tasks.requests import coverage, requests

runner = CliRunner(env={"COLUMNS": "250", "NO_COLOR": "1", "TERM": "dumb"})
PERSONA = Path(__file__).resolve().parents[1] / "src" / "mcp_persona" / "data" / "tasks" / "persona"


def test_questions_and_imperatives_are_requests_and_context_is_not() -> None:
    text = ("I'm about to call a friend in Tokyo. What time is it there right now? Save the forecast to notes.md; "
            "also tell me who posted it. The meeting was moved last week.")
    assert requests(text) == ["What time is it there right now?", "Save the forecast to notes.md",
                              "also tell me who posted it."]


def test_each_request_lists_the_checks_that_cover_it() -> None:
    task = next(t for t in load_tasks("livemcpbench") if t.id == "office_docx_read_1")
    asked, _ = coverage(task)
    assert asked[0].text.startswith("What budget does memo_1.docx")
    assert [c.name for c, _ in asked[0].covered_by] == ["checkpoint 0"]


def test_show_prints_the_instruction_requests_checks_and_gold() -> None:
    result = runner.invoke(app, ["show", "collab_lark_005"])
    assert result.exit_code == 0, result.output
    out = result.output
    assert "Instruction" in out and "Block the hour right before that deadline" in out
    assert "<- checkpoint 1: Block Friday March 13" in out and "[words " in out
    assert "Gold (5 calls)" in out and "lark:calendar_v4_calendarEvent_create" in out
    data = json.loads(runner.invoke(app, ["show", "collab_lark_005", "--json"]).output)
    assert data["id"] == "collab_lark_005" and len(data["gold"]) == 5 and data["requests"]
    missing = runner.invoke(app, ["show", "no_such_task"])
    assert missing.exit_code == 2 and "no task 'no_such_task'" in missing.output


def test_a_check_whose_asks_the_instruction_does_not_say_is_refused_at_load(tmp_path: Path) -> None:
    folder = tmp_path / "tasks"
    folder.mkdir()
    shutil.copy(PERSONA / "suite.json", folder / "suite.json") if (PERSONA / "suite.json").exists() else None
    task = json.loads((PERSONA / "collab_lark_001.json").read_text())
    first = task[0] if isinstance(task, list) else task
    first["spec"]["checkpoints"][1]["asks"] = "a proper rich-text post"
    (folder / "ok.json").write_text(json.dumps(first))
    assert runner.invoke(app, ["tasks", "--suite", str(folder)]).exit_code == 0
    first["spec"]["checkpoints"][1]["asks"] = "a haiku about the weather"
    (folder / "ok.json").write_text(json.dumps(first))
    result = runner.invoke(app, ["tasks", "--suite", str(folder)])
    assert result.exit_code == 2
    assert "checkpoint 1 asks 'a haiku about the weather', which the instruction does not say" in result.output


def test_show_answer_scores_a_written_answer_and_calls_by_the_tasks_rules(tmp_path: Path) -> None:
    task = next(t for t in load_tasks("persona") if t.id == "collab_lark_005")
    right = json.loads(runner.invoke(app, ["show", task.id, "--answer", task.reference_answer, "--json"]).output)
    assert right["values"]["acc"] == 1.0 and all(c["score"] == 1.0 for c in right["checks"])
    silent = json.loads(runner.invoke(app, ["show", task.id, "--answer", "Done.", "--json"]).output)
    assert silent["values"]["acc"] < 1.0  # who brought it up is asked and not said
    none = tmp_path / "none.json"
    none.write_text("[]")
    idle = json.loads(runner.invoke(app, ["show", task.id, "--answer", task.reference_answer, "--calls", str(none),
                                          "--json"]).output)
    assert idle["values"]["acc"] < 1.0  # the event the task asks to block was never made
    text = runner.invoke(app, ["show", task.id, "--answer", "Done."])
    assert text.exit_code == 0 and "checkpoint 0" in text.output and "values: acc" in text.output
    bad = tmp_path / "bad.json"
    bad.write_text('[{"server": "lark"}]')
    refused = runner.invoke(app, ["show", task.id, "--answer", "x", "--calls", str(bad)])
    assert refused.exit_code == 2 and "call 0.0: tool: Field required" in refused.output
    alone = runner.invoke(app, ["show", task.id, "--calls", str(bad)])
    assert alone.exit_code == 2 and "--calls needs --answer" in alone.output
