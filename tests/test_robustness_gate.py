"""The robustness gate of ``mcp-persona validate``: fair variants of every gold read are answered as the real
service would, or the suite fails; an empty success passes only where the app says in writing that its real
service is strict."""

from __future__ import annotations

from collections import Counter

import anyio
import pytest
from typer.testing import CliRunner

from mcp_persona.apps import get_app
from mcp_persona.apps._normalize import StrictNote
from mcp_persona.cli import app
from mcp_persona.protocols import load_tasks, suite_protocol
from mcp_persona.robustness import (
    GATE_PCT,
    ProbedCall,
    RobustnessReport,
    Variant,
    gate_verdict,
    instruction_phrase,
    note_problems,
    robustness_gate,
)
from mcp_persona.trajectory import ToolCallEvent

TELEGRAM = get_app("telegram")
# hodge_003's gold chain searches Telegram for "bug"; its plural "bugs" finds nothing there, as on Telegram
VALIDATE_HODGE_003 = ["validate", "--suite", "persona", "--tasks", "hodge_003", "--no-mutants", "--no-equivalents"]


def _validate(monkeypatch: pytest.MonkeyPatch, notes: tuple[StrictNote, ...]) -> tuple[int, str]:
    monkeypatch.setattr(TELEGRAM, "strict", notes)
    result = CliRunner().invoke(app, VALIDATE_HODGE_003)
    return result.exit_code, " ".join(result.output.split())  # validate wraps its figures at words


def test_an_empty_success_without_a_strict_note_fails_validate(monkeypatch: pytest.MonkeyPatch) -> None:
    code, out = _validate(monkeypatch, ())
    assert code == 1, out
    assert "hodge_003 telegram:search_messages plural query='bugs' succeeds with nothing" in out
    assert "add a StrictNote to the app" in out
    assert "silent 1" in out


def test_the_same_empty_success_passes_with_a_strict_note(monkeypatch: pytest.MonkeyPatch) -> None:
    note = StrictNote("search_messages", "query", ("plural",), "Telegram finds a word inside longer words only")
    code, out = _validate(monkeypatch, (note,))
    assert code == 0, out
    assert "robustness: 100.0% of" in out and "strict like the real service 1" in out
    assert "telegram 100.0% of" in out and "(1 strict)" in out  # the per-server line
    assert "all valid" in out


def test_a_note_excuses_only_the_kinds_it_names(monkeypatch: pytest.MonkeyPatch) -> None:
    note = StrictNote("search_messages", "query", ("qualifier",), "Telegram finds a word inside longer words only")
    code, out = _validate(monkeypatch, (note,))
    assert code == 1 and "plural query='bugs' succeeds with nothing" in out


def test_the_switch_turns_the_gate_off(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(TELEGRAM, "strict", ())
    result = CliRunner().invoke(app, [*VALIDATE_HODGE_003, "--no-robustness"])
    assert result.exit_code == 0, result.output
    assert "robustness" not in result.output


def test_a_strict_note_must_say_what_and_why() -> None:
    with pytest.raises(ValueError, match="25 characters"):
        StrictNote("search_messages", "query", ("plural",), "strict")
    with pytest.raises(ValueError, match="kinds must be some of"):
        StrictNote("search_messages", "query", ("flip",), "Telegram finds a word inside longer words only")
    with pytest.raises(ValueError, match="got none"):
        StrictNote("search_messages", "query", (), "Telegram finds a word inside longer words only")


def test_a_note_on_a_tool_or_argument_the_app_lacks_is_a_problem(monkeypatch: pytest.MonkeyPatch) -> None:
    reason = "Telegram finds a word inside longer words only"
    monkeypatch.setattr(TELEGRAM, "strict", (StrictNote("search_message", "query", ("plural",), reason),
                                             StrictNote("search_messages", "text", ("plural",), reason)))
    assert note_problems("telegram", TELEGRAM) == [
        "strict note 'plural search_message.query' of telegram: no tool 'search_message'",
        "strict note 'plural search_messages.text' of telegram: search_messages has no argument 'text'",
    ]


def test_every_shipped_strict_note_names_a_real_argument() -> None:
    from mcp_persona.apps import app_names

    noted = [name for name in app_names() if get_app(name).strict]
    assert {"gmail", "email163", "telegram", "obsidian"} <= set(noted)
    assert [p for name in noted for p in note_problems(name, get_app(name))] == []


def _probe(gold_result: str, needed: list[str]) -> ProbedCall:
    gold = ToolCallEvent(round=0, server="weather", tool="get_weather", arguments={"city": "Austin"},
                         result=gold_result)
    return ProbedCall("t", (0, 0), "weather", "get_weather", {"city": "Austin"}, gold, True, needed)


@pytest.mark.parametrize(("result", "is_error", "expected"), [
    ('{"city": "Austin", "temp": 31}', False, "robust"),
    ('{"city": "Austin, TX", "temp": null}', False, "lost"),
    ('{"results": []}', False, "silent"),
    ('{"error": "unknown city \'Austin, Texas\'; cities: Austin, Boston"}', True, "refused"),  # shows the form
    ('{"error": "city: give a city name without its state"}', True, "refused"),  # names the argument
    ('{"error": "internal failure"}', True, "error"),  # no cue what to send instead
])
def test_gate_verdicts(result: str, is_error: bool, expected: str) -> None:
    probe = _probe('{"city": "Austin", "temp": 31}', ["31"])
    variant = Variant("qualifier", "city", {"city": "Austin, Texas"})
    event = ToolCallEvent(round=0, server="weather", tool="get_weather", arguments=variant.args, result=result,
                          is_error=is_error)
    assert gate_verdict(probe, variant, event) == expected


def test_the_score_counts_robust_refused_and_strict_answers() -> None:
    report = RobustnessReport()
    report.by_server = {"a": Counter(robust=95, refused=1, strict=1, lost=3)}
    assert report.score("a") == 97.0 and report.score() == 97.0 and report.problems() == []
    report.by_server["a"]["lost"] += 1
    assert report.score() == pytest.approx(96.04, abs=0.01)
    assert report.problems() == ["robustness 96.0% is below 97% (fair variants of gold reads answered as the "
                                 "real service would); lowest: a 96.0%"]


@pytest.mark.parametrize(("value", "instruction", "phrase"), [
    ("Mount Fuji", "How tall is Mt. Fuji, in feet?", "Mt. Fuji"),
    ("budget", "Find the travel video about London on budgets.", "budgets"),
    ("restaurant Tokyo", "Book me a restaurant in Tokyo for Friday.", "restaurant in Tokyo"),
    ("Tokyo restaurant", "Book me a restaurant in Tokyo for Friday.", "restaurant in Tokyo"),
    ("restaurant Tokyo", "Book me a restaurant Tokyo style.", None),  # said the same way
    ("ramen Tokyo", "Book me a restaurant in Tokyo for Friday.", None),  # not said at all
    ("hawker centre visitors", "Pick a hawker centre to take visitors to.", None),  # only with other words
    ("VS Code", "Which Code extensions are installed?", None),  # a small word of the value dropped
    ("Kim Alex", "Ask Alex Kim.", "Alex Kim"),  # a sentence's full stop is no part of a name
    ("SELECT * FROM sales", "Select everything from sales.", None),  # code is not reworded
])
def test_the_instructions_own_phrase(value: str, instruction: str, phrase: str | None) -> None:
    assert instruction_phrase(value, instruction) == phrase


@pytest.mark.slow
@pytest.mark.parametrize("suite", ["persona", "mcpagentbench", "livemcp101", "livemcpbench"])
def test_every_suite_passes_the_robustness_gate(suite: str) -> None:
    report = anyio.run(robustness_gate, load_tasks(suite), suite_protocol(suite))
    assert sum(report.totals.values()) > 200
    assert (report.score() or 0) >= GATE_PCT, report.summary()
    assert report.problems() == []
    # every variant kind is tried on every suite but MCPAgentBench (whose library documents no defaults); the
    # instruction's own phrase only where an instruction words a gold value otherwise (LiveMCP-101's instructions
    # state them as the tools take them, since every literal must be discoverable)
    kinds = {"case", "qualifier", "plural", "reorder"} | ({"phrase"} if suite != "livemcp101" else set())
    assert set(report.by_kind) >= kinds
    if suite == "persona":  # every strict note shipped excuses a variant there: none is stale
        assert {s for s, c in report.by_server.items() if c["strict"]} == {"gmail", "email163", "telegram", "obsidian"}
