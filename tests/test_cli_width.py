"""What the commands print, read at 80 columns (the width outside a terminal): no name cut, no word split,
every score named; and runs told apart by their --label."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from rich.console import Console
from typer.testing import CliRunner

from mcp_persona.cli import app
from mcp_persona.protocols import get_protocol, load_tasks
from mcp_persona.report.fit import Column, print_table

narrow = CliRunner(env={"COLUMNS": "80", "NO_COLOR": "1", "TERM": "dumb"})


def invoke(*args: str) -> tuple[int, str]:
    result = narrow.invoke(app, list(args))
    return result.exit_code, result.stdout


def words_whole(out: str, names: list[str]) -> None:
    """Every line fits 80 columns (but a command or path to copy, kept on one line), nothing is cut with an
    ellipsis, and each name appears whole."""
    assert all(len(line) <= 80 for line in out.splitlines() if "/" not in line), out
    assert "…" not in out, out
    for name in names:
        assert re.search(rf"(?<![\w-]){re.escape(name)}(?![\w-])", out), (name, out)


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[Path, str]]:
    root = tmp_path_factory.mktemp("width")
    out = {}
    for suite, tasks in (("persona", "collab_lark_00[12]"), ("mcpagentbench", "day_parallel_0[12]"),
                         ("livemcpbench", "finance_stock_gap_[12]"), ("livemcp101", "finance_easy_01")):
        folder = root / suite
        code, text = invoke("run", "--suite", suite, "--agent", "reference", "--tasks", tasks, "--run-dir",
                            str(folder))
        assert code == 0, text
        out[suite] = (folder, text)
    return out


@pytest.mark.parametrize("suite", ["persona", "mcpagentbench", "livemcpbench", "livemcp101"])
def test_the_run_summary_fits_80_columns_and_defines_its_scores(runs: dict[str, tuple[Path, str]],
                                                                suite: str) -> None:
    folder, out = runs[suite]
    protocol = get_protocol(suite)
    # a column's full header where the table fits with it, else its alias
    labels = [label if f" {label} ┃" in out else protocol.report_aliases[key]
              for label, key, _ in protocol.report_columns]
    summary = json.loads((folder / "summary.json").read_text())
    groups = [g for g, m in summary[protocol.report_groups].items() if m.get("n")]
    words_whole(out, [*labels, *groups, "overall"])
    assert "scores in % (0-100" in out
    for label, _, tip in protocol.report_columns:  # each score defined where it appears
        assert " ".join(tip.split()[:3]) in " ".join(out.split()), (label, out)


def test_mcpagentbench_summary_uses_aliases_with_a_legend(runs: dict[str, tuple[Path, str]]) -> None:
    _, out = runs["mcpagentbench"]
    assert "TFS-p = TFS-paper:" in out and "TEFS-o = TEFS-outcome:" in out
    assert "dual_parallel" in out
    assert "Score per minute: the same points per minute of episode time" in " ".join(out.split())


@pytest.mark.parametrize("suite", ["persona", "mcpagentbench", "livemcp101", "livemcpbench"])
def test_task_listings_fit_80_columns(suite: str) -> None:
    code, out = invoke("tasks", "--suite", suite)
    assert code == 0, out
    tasks = load_tasks(suite)
    labels = {str(v) for t in tasks for v in t.spec.listing().values() if isinstance(v, str)} - {"other"}
    words_whole(out, [*(t.id for t in tasks), *labels])


@pytest.mark.parametrize("library", ["persona", "livemcptool"])
def test_server_listings_fit_80_columns(library: str) -> None:
    code, out = invoke("servers", "--library", library)
    assert code == 0, out
    code, listing = invoke("servers", "--library", library, "--json")
    rows = json.loads(listing)
    words_whole(out, [r["name"] for r in rows] + [tool for r in rows[:5] for tool in r["tools"]])


def test_route_fits_80_columns() -> None:
    code, out = invoke("route", "stock price of a company")
    assert code == 0, out
    words_whole(out, ["server", "tool", "score"])
    assert "score: how well" in out


def test_a_table_too_wide_for_aliases_prints_a_block_per_row() -> None:
    console = Console(width=40, record=True, color_system=None)
    columns = [Column("group"), Column("tasks", "right"), Column("a long metric name", "right", alias="long"),
               Column("another long metric", "right", alias="other")]
    rows = [["rednote_centric", "20", "100.0", "50.0"], ["overall", "20", "100.0", "50.0"]]
    assert print_table(console, columns, rows) == "vertical"
    text = console.export_text()
    assert "rednote_centric\n  tasks:               20\n  a long metric name:  100.0\n" in text
    wide = Console(width=60, record=True, color_system=None)
    assert print_table(wide, columns, rows) == "aliases"
    assert "long = a long metric name; other = another long metric" in wide.export_text()
    assert print_table(Console(width=120, record=True), columns, rows) == "full"


def test_runs_of_one_agent_are_told_apart_by_their_label(tmp_path: Path) -> None:
    folders = []
    for label in ("baseline", "with skills"):
        folder = tmp_path / label.replace(" ", "-")
        code, out = invoke("run", "--agent", "reference", "--tasks", "collab_lark_00[12]", "--label", label,
                           "--run-dir", str(folder))
        assert code == 0, out
        assert f"persona · label={label} · agent=reference" in out
        assert json.loads((folder / "summary.json").read_text())["label"] == label
        folders.append(folder)
    code, out = invoke("compare", *map(str, folders))
    assert code == 0, out
    assert out.splitlines()[:2] == ["A = baseline (reference) (baseline)", "B = with skills (reference) (with-skills)"]
    code, out = invoke("report", *map(str, folders))
    assert code == 0, out
    assert "baseline (reference)" in out and "with skills (reference)" in out


def test_validate_says_what_it_is_for_shows_its_progress_and_explains_its_figures() -> None:
    result = narrow.invoke(app, ["validate", "--tasks", "collab_lark_00[12]"])
    assert result.exit_code == 0, result.output
    said = " ".join(result.stderr.split())
    assert "validate: checking the 2 tasks of 'persona'" in said and "you may skip it" in said
    assert re.search(r"loaded \d+ contexts · \d+ s", said), said  # a line per phase, with the time so far
    assert "checked 1/2 tasks" in said and "checked 2/2 tasks" in said and "probed 2/2 tasks" in said
    assert said.index("checked 2/2") < said.index("probed 1/2")
    out = result.stdout
    words_whole(out, ["mutants killed", "equivalents keeping the full score", "all valid"])
    flat = " ".join(out.split())
    assert "mutants killed: " in flat and "a mutant is the gold calls changed in one way" in flat
    assert "each must keep the full score" in flat and "The gate is 97 %" in flat


def test_help_lists_a_studys_commands_first_in_the_order_it_uses_them() -> None:
    code, out = invoke("--help")
    assert code == 0, out
    words_whole(out, ["run", "report", "compare", "export", "sweep", "doctor", "validate"])
    study, others = out.split("Commands, in the order of a study:")[1].split("Other commands:")
    names = [line.split()[0] for line in study.splitlines() if line.startswith("  ") and not line.startswith("   ")]
    assert names == ["run", "report", "compare", "export", "sweep", "doctor"]
    assert "  tasks " in others and "  validate " in others
    assert "..." not in study + others  # each summary whole, wrapped


def test_run_help_groups_its_options_and_describes_every_agent() -> None:
    from mcp_persona.cli.run import RUN_PANELS, AgentKind

    code, out = invoke("run", "--help")
    assert code == 0, out
    panels = [line[:-1] for line in out.splitlines() if line.endswith(":") and not line.startswith(" ")]
    assert panels == [*RUN_PANELS, "One suite's own options", "Other options"]

    def panel_of(flag: str) -> str:
        at = out.index(f"\n  {flag} ")
        return max((p for p in panels if out.index(f"\n{p}:\n") < at), key=lambda p: out.index(f"\n{p}:\n"))

    assert panel_of("--agent") == panel_of("--agent-cmd") == "The agent and its model"
    assert panel_of("--temperature") == panel_of("--seed") == "Model settings"
    assert panel_of("--judge") == panel_of("--judge-price-in") == "Judge"
    assert panel_of("--run-dir") == panel_of("--label") == "Where the run goes"
    assert panel_of("--pool-size") == panel_of("--candidates") == "One suite's own options"
    agent = " ".join(out[out.index("\n  --agent "):out.index("\n  --model ")].split())
    for kind in AgentKind:
        assert f"{kind.value}: " in agent, kind
