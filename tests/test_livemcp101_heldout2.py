"""LiveMCP-101 after its second held-out review: each pattern checked both ways on a task it covers (a right
answer in the solver's own words, calls or layout passes; a wrong one fails)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from mcp_persona.protocols import load_tasks
from mcp_persona.scoring.grounding import Evidence
from mcp_persona.trial import read_calls, try_task

LIVE = {t.id: t for t in load_tasks("livemcp101")}


def run(tid: str, answer: str, calls: list[dict[str, Any]] | None = None, tmp: Path | None = None) -> dict[str, Any]:
    planned = None
    if calls is not None:
        assert tmp is not None
        f = tmp / "calls.json"
        f.write_text(json.dumps(calls))
        planned = read_calls(f)
    score = try_task(LIVE[tid], answer=answer, calls=planned).score
    assert score is not None
    return score.values


def test_a_conversion_by_a_known_factor_is_grounded() -> None:
    ev = Evidence.of([], given="")
    assert ev.why_ungrounded("1082.68", "330 / 0.3048") is not None  # 330 was never shown
    ev = Evidence.of([], given="It is 330 m tall")
    assert ev.why_ungrounded("1082.68", "330 / 0.3048") is None
    assert ev.why_ungrounded("1082.68", "330 / 0.31") is not None  # no known factor


def test_a_rate_times_the_total_worked_out_by_the_agent_is_grounded(tmp_path: Path) -> None:
    calls = [{"server": "yahoo_finance", "tool": "get_stock_info", "arguments": {"ticker": k}}
             for k in ("AAPL", "MSFT", "NVDA")]
    calls.append({"server": "exchange_rate", "tool": "get_exchange_rate",
                  "arguments": {"base": "USD", "target": "EUR"}})
    v = run("finance_medium_01", "Your portfolio is worth $18,975.30, that's €17,483.84.", calls, tmp_path)
    assert v["strict"] is True
    v = run("finance_medium_01", "Your portfolio is worth $18,975.30, that's €17,843.84.", calls, tmp_path)
    assert v["strict"] is False


def gold_calls(tid: str) -> list[dict[str, Any]]:
    return [c for r in LIVE[tid].model_dump()["gold"] for c in r["calls"]]


def test_an_unnamed_sheet_may_have_any_name(tmp_path: Path) -> None:
    calls = []
    for c in gold_calls("math_hard_02"):
        c = json.loads(json.dumps(c).replace('"Sheet1"', '"Loans"'))
        calls.append(c)
        if c["tool"] == "create_workbook":
            calls.append({"server": "excel", "tool": "rename_worksheet", "arguments": {
                "filepath": c["arguments"]["filepath"], "old_name": "Sheet1", "new_name": "Loans"}})
    assert run("math_hard_02", LIVE["math_hard_02"].reference_answer, calls, tmp_path)["strict"] is True
    wrong = json.loads(json.dumps(calls).replace("=MIN(F2:F4)", "=MAX(F2:F4)"))
    assert run("math_hard_02", LIVE["math_hard_02"].reference_answer, wrong, tmp_path)["strict"] is False


@pytest.mark.parametrize(("total", "ok"), [("7543.21", True), ("7543.22", True), ("7534.21", False)])
def test_a_total_rounded_before_or_after_summing(tmp_path: Path, total: str, ok: bool) -> None:
    calls = gold_calls("office_hard_04")
    for c in calls:
        if c["tool"] == "write_data_to_excel" and total != "7543.22":  # the gold rounds each month first
            for r in c["arguments"]["data"][1:]:
                r[3] = r[1] * r[2]  # a column of formulas: unrounded products
        if c["tool"] == "write_file":
            c["arguments"]["content"] = c["arguments"]["content"].replace("7543.22", total)
    answer = f"Q1 total: S${total} (USD 1836.9, 1631.2, 2069.15 a month)."
    assert run("office_hard_04", answer, calls, tmp_path)["strict"] is ok


@pytest.mark.parametrize(("answer", "ok"), [
    ("The Boy and the Heron trails Spirited Away in profit by $132.4 million.", True),
    ("The Boy and the Heron made $244.2M profit, well behind Spirited Away's $376.6M.", True),
    ("Spirited Away made more profit than The Boy and the Heron.", True),
    ("Spirited Away trails The Boy and the Heron in profit.", False),
    ("The Boy and the Heron made more profit than Spirited Away.", False),
])
def test_a_name_with_and_in_it_is_one_name(answer: str, ok: bool) -> None:
    from mcp_persona.scoring.claims import claims_winner
    assert claims_winner(answer, "Spirited Away", ["The Boy and the Heron"], measure=["profit"])[0] is ok


@pytest.mark.parametrize(("answer", "ok"), [
    ('The latest release tag is 1.8.1. The most recent commit is "Fix typo in README" by octocat.', True),
    ('Latest release: **v1.8.1**. Most recent commit: "Fix typo in README" (octocat).', True),
    ('Releases: v1.8.1, v1.7.0, v1.6.4. The latest release is v1.7.0. The most recent commit is "Fix typo in '
     'README" by octocat.', False),
])
def test_the_latest_release_is_the_one_called_latest(answer: str, ok: bool) -> None:
    assert run("software_easy_01", answer)["strict"] is ok


def with_brief(content: str) -> list[dict[str, Any]]:
    calls = gold_calls("knowledge_hard_05")
    for c in calls:
        if c["tool"] == "write_file":
            c["arguments"]["content"] = content
    return calls


@pytest.mark.parametrize(("answer", "brief", "ok"), [
    ("It would take about 12 Eiffel Towers to reach the summit; Fuji is 3,446 m taller.",
     "# Fuji vs Eiffel (2026-03-12)\n\nIt would take about 12 Eiffel Towers stacked to reach the summit; Fuji is "
     "3,446 m taller.\n", True),
    # no ratio in the brief: the date's "12" is no ratio
    ("It would take about 12 Eiffel Towers to reach the summit; Fuji is 3,446 m taller.",
     "# Fuji vs Eiffel (2026-03-12)\n\nMount Fuji is 3,776 m high. Fuji is 3,446 m taller.\n", False),
    # a wrong difference in the answer is not made right by the brief's figure
    ("It would take 11.44 Eiffel Towers; Fuji is 3,466 m taller.",
     "# Fuji vs Eiffel\n\n11.4 towers are needed to reach the summit; the difference is 3,446 m.\n", False),
])
def test_a_figure_asked_for_is_told_and_filed_as_itself(tmp_path: Path, answer: str, brief: str, ok: bool) -> None:
    assert run("knowledge_hard_05", answer, with_brief(brief), tmp_path)["strict"] is ok


def test_a_total_used_in_a_conversion_is_not_told() -> None:
    assert run("finance_medium_01", "Your portfolio is worth about €17,483.84.")["strict"] is False
    assert run("finance_medium_01", "Your portfolio is worth $18,975.30, about €17,483.84.")["strict"] is True


def with_note(tid: str, content: str) -> list[dict[str, Any]]:
    calls = gold_calls(tid)
    for c in calls:
        if c["tool"] == "write_file":
            prs = c["arguments"]["content"].split("Open pull requests:\n")[1]
            c["arguments"]["content"] = content + "\nOpen pull requests:\n" + prs
    return calls


@pytest.mark.parametrize(("answer", "note", "ok"), [
    ("**#177** (22 comments, by priya-r)\nDocs: example for async context managers is outdated",
     "# triage\n\n**#177** (22 comments)\nDocs: example for async context managers is outdated\n", True),
    ("The most discussed open issue is #174 Support for Python 3.14; next is #177 Docs: example for async context "
     "managers is outdated.",
     "# triage\n\nMost discussed: #174 Support for Python 3.14\n\nOther open issues:\n- #177 Docs: example for "
     "async context managers is outdated\n", False),
])
def test_the_issue_picked_is_what_is_checked(tmp_path: Path, answer: str, note: str, ok: bool) -> None:
    assert run("software_medium_02", answer, with_note("software_medium_02", note), tmp_path)["strict"] is ok


def test_a_claim_operator_reads_a_file_as_an_answer() -> None:
    from mcp_persona.scoring.match import value_matches
    want = {"$claim": {"winner": "A thing", "rivals": ["B thing"], "aliases": {"A thing": ["#1"]}}}
    assert value_matches(want, "Most discussed: #1\nthen B thing")
    assert not value_matches(want, "Most discussed: B thing\nrunner-up: A thing")


HEADINGS = """# Hacker News digest 2026-03-10

### 1. The hidden cost of microservices
Score: 1,249 points
First comment: Great write-up, thanks for sharing.

### 2. Postgres 18 released
Score: 1,247 points
First comment: Great write-up, thanks for sharing.

### 3. The Model Context Protocol, one year later
Score: 1,227 points
First comment: Great write-up, thanks for sharing.

## Poster
#1 was posted by {poster}

## Ask HN
- Best resources to learn Rust in 2026?
- How do you evaluate LLM agents in production?

Average score of the top 8: 1138.5
"""


def with_digest(content: str) -> list[dict[str, Any]]:
    calls = gold_calls("news_hard_03")
    for c in calls:
        if c["tool"] == "write_file":
            c["arguments"]["content"] = content
    return calls


@pytest.mark.parametrize(("answer", "poster", "ok"), [
    ("Top 3: The hidden cost of microservices (1,249), Postgres 18 released (1,247), The Model Context Protocol, "
     "one year later (1,227). #1 was posted by rustacean42 (85,391 karma). Average score 1138.5.",
     "rustacean42 (85,391 karma)", True),
    ("Top 3: The hidden cost of microservices (1,249), Postgres 18 released (1,247), The Model Context Protocol, "
     "one year later (1,227). #1 was posted by dang_it; rustacean42 (85391 karma) posted #3. Average score 1138.5.",
     "dang_it; rustacean42 (85391 karma) posted #3", False),
])
def test_a_digest_under_headings_and_the_poster_of_the_first_story(
        tmp_path: Path, answer: str, poster: str, ok: bool) -> None:
    calls = with_digest(HEADINGS.replace("{poster}", poster))
    assert run("news_hard_03", answer, calls, tmp_path)["strict"] is ok


@pytest.mark.parametrize(("answer", "ok"), [
    ("Interstellar, Oppenheimer, Perfect Days. It ends at 2:09 AM. Lead: Matthew McConaughey. Your Sydney friend "
     "starts at 8:45 PM.", True),
    ("Interstellar, Oppenheimer, Perfect Days. It ends at 20:45; Sydney start is 02:09. Lead: Matthew "
     "McConaughey.", False),
    ("Interstellar, Oppenheimer, Perfect Days. It ends at 02:09; Sydney start is 20:45. Lead: Anne Hathaway (with "
     "Matthew McConaughey in support).", False),
])
def test_each_time_and_the_lead_beside_what_they_answer(answer: str, ok: bool) -> None:
    assert run("leisure_hard_03", answer)["strict"] is ok


def test_a_name_bounding_a_stretch_starts_a_word() -> None:
    from mcp_persona.scoring.claims import said_beside
    assert said_beside("Your Sydney friend starts at 8:45 pm.", ["8:45 pm"], [["Sydney"]], ["end"])
    assert not said_beside("Sydney: 9 pm; it will end at 8:45 pm.", ["8:45 pm"], [["Sydney"]], ["end"])


@pytest.mark.parametrize(("answer", "ok"), [
    ("On March 2, MSFT closed at $405.69. It now trades at $417.43 with a trailing P/E of about 32.4 and a market "
     "cap of roughly $3.10 trillion.", True),
    ("MSFT closed at $417.43 on 2026-03-02, and its latest close is $405.69. Trailing P/E 32.38, market cap about "
     "$3.10 trillion.", False),
    ("MSFT closed at $32.38 on 2026-03-02; trailing P/E 405.69; market cap about $3.10 trillion.", False),
])
def test_the_close_beside_its_day(answer: str, ok: bool) -> None:
    assert run("finance_easy_06", answer)["strict"] is ok


@pytest.mark.parametrize(("city", "ok"), [("Hong Kong", True), ("Seoul", False)])
def test_the_pick_under_a_recommendation_heading(tmp_path: Path, city: str, ok: bool) -> None:
    calls = gold_calls("travel_hard_06")
    for c in calls:
        if c["tool"] == "write_file":
            head, pick = c["arguments"]["content"].rsplit("\n\nPick: ", 1)
            c["arguments"]["content"] = f"{head}\n\n## Recommendation\n{city} — {pick.split(' - ', 1)[1]}"
    assert run("travel_hard_06", LIVE["travel_hard_06"].reference_answer, calls, tmp_path)["strict"] is ok
