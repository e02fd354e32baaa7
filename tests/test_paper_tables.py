"""The papers' results tables: each protocol's declared tables filled from a run in the paper's layout, the
paper's published per-model rows beneath (shipped as validated data), avg@k over trials."""

from __future__ import annotations

import fnmatch
import json
import re
from importlib import resources
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from typer.testing import CliRunner

from mcp_persona.cli import app
from mcp_persona.protocols import get_protocol, load_tasks, protocol_names
from mcp_persona.protocols.paper_tables import (
    OVERALL,
    PaperColumn,
    PaperTable,
    PublishedDataError,
    load_published,
)
from mcp_persona.protocols.persona.subsets import subset_figures, subset_of
from mcp_persona.report import load_run
from mcp_persona.report.html import render_html
from mcp_persona.report.markdown import render_markdown
from mcp_persona.score import Score

runner = CliRunner(env={"COLUMNS": "250", "NO_COLOR": "1", "TERM": "dumb"})
MARK = "(published, paper's task set)"

# a few tasks of each suite, spanning the groups of its paper tables
SAMPLES = {
    "persona": ("collab_lark_001,collab_lark_002,lark_x_016,hodge_001", 1),
    "livemcp101": ("finance_easy_01,finance_medium_01", 1),
    "mcpagentbench": ("day_single_01,day_parallel_01,pro_multi_01", 2),
    "livemcpbench": ("shopping_cheaper_stay_1,shopping_cheaper_stay_2", 1),
}


CONSOLE: dict[str, str] = {}  # what `run` printed, per suite


@pytest.fixture(scope="module")
def reference_runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("paper-runs")
    out = {}
    for suite, (tasks, trials) in SAMPLES.items():
        result = runner.invoke(app, ["run", "--suite", suite, "--agent", "reference", "--tasks", tasks,
                                     "--trials", str(trials), "--run-dir", str(root / suite)])
        assert result.exit_code == 0, result.output
        out[suite] = root / suite
        CONSOLE[suite] = result.output
    return out


def section(md: str, heading: str) -> list[str]:
    """The rows of the first table under a Markdown heading, its header row first."""
    lines = md.splitlines()[md.splitlines().index(heading) + 1:]
    start = next(i for i, line in enumerate(lines) if line.startswith("|"))
    end = next((i for i in range(start, len(lines)) if not lines[i].startswith("|")), len(lines))
    return lines[start:end]


def published_lines(suite: str, key: str) -> list[str]:
    """The Markdown rows the published data file should give, each value with the table's decimals."""
    protocol = get_protocol(suite)
    table = next(t for t in protocol.paper_tables if t.key == key)
    data = json.loads((resources.files(type(protocol).__module__) / "published_results.json").read_text())
    lines = []
    for row in data["tables"][key]["rows"]:
        cells = []
        for c in table.columns:
            v = row["values"].get(c.group, {}).get(c.metric)
            digits = table.decimals if c.decimals is None else c.decimals
            cells.append("–" if v is None else str(int(v)) if c.fmt == "int" else f"{v:.{digits}f}")
        lines.append(f"| {row['model']} {MARK} | " + " | ".join(cells) + " |")
    return lines


# -- the data files -----------------------------------------------------------------------------------
@pytest.mark.parametrize(("suite", "rows"), [
    ("livemcp101", {"table1": 21}), ("mcpagentbench", {"table1": 12, "table2": 12}),
    ("livemcpbench", {"table2": 10, "table3": 10}), ("persona", {"table3": 13, "table7": 1})])
def test_every_protocol_ships_its_papers_rows_and_they_validate(suite: str, rows: dict[str, int]) -> None:
    protocol = get_protocol(suite)
    published = protocol.published_results()
    assert {k: len(t.rows) for k, t in published.items()} == rows
    assert {t.key for t in protocol.paper_tables} == set(rows)
    for table in published.values():
        assert "paper's own" in table.note and table.table.startswith("Table ")


def test_published_numbers_are_the_papers() -> None:
    def value(suite: str, key: str, model: str, group: str, metric: str) -> float:
        rows = get_protocol(suite).published_results()[key].rows
        return next(r for r in rows if r.model == model).values[group][metric]

    assert value("livemcp101", "table1", "GPT-5", OVERALL, "tsr") == 58.42
    assert value("livemcp101", "table1", "Llama-3.1-8B-Instruct", "hard", "ars") == 0.0
    assert value("livemcp101", "table1", "Claude-4-Sonnet", "hard", "tsr") == 12.20
    assert value("mcpagentbench", "table1", "o4-mini", "professional/multi", "tfs_paper") == 13.89
    assert value("mcpagentbench", "table2", "gpt-5", "daily/dual_parallel", "tefs_paper") == 0.0
    assert value("mcpagentbench", "table2", "Average of the 11 models", "professional/multi", "tefs_paper") == 17.59
    assert value("livemcpbench", "table2", "Qwen3-32B", OVERALL, "success_rate") == 30.53
    assert value("livemcpbench", "table3", "Claude-Opus-4", OVERALL, "avg_steps") == 25.53
    assert value("persona", "table3", "Claude-Sonnet-4.5", "hodgepodge", "acc") == 12.50
    assert value("persona", "table3", "Qwen3-Coder", OVERALL, "exec_acc") == 20.14
    assert value("persona", "table7", "GPT-5", OVERALL, "checkpoints") == 970
    assert value("persona", "table7", "GPT-5", "Obsidian_Long", "misaligned_ratio") == 14.29


TABLES = (PaperTable("t1", "a table", "Paper, Table 1", "by_x", (PaperColumn("A", "a", "g1"),
                                                                  PaperColumn("All", "a"))),)
GOOD = {"paper": "Paper", "table": "Table 1", "note": "measured on the paper's own tasks",
        "rows": [{"model": "m", "values": {"g1": {"a": 10.5}, "overall": {"a": 9.0}}}]}


@pytest.mark.parametrize(("change", "error"), [
    (lambda d: d["tables"].update(t2=d["tables"]["t1"]), "table 't2' is not one the protocol declares"),
    (lambda d: d["tables"]["t1"]["rows"][0]["values"].update(g2={"a": 1}), "g2/a is no cell of the table"),
    (lambda d: d["tables"]["t1"]["rows"][0]["values"]["g1"].update(b=1), "g1/b is no cell of the table"),
    (lambda d: d["tables"]["t1"]["rows"].append(d["tables"]["t1"]["rows"][0]), "lists 'm' twice"),
    (lambda d: d["tables"]["t1"]["rows"][0]["values"]["g1"].update(a=-1), "g1/a is not a number a paper prints"),
    (lambda d: d["tables"]["t1"]["rows"][0]["values"]["g1"].update(a="ten"), "valid number"),
    (lambda d: d["tables"]["t1"].pop("note"), "note"),
    (lambda d: d["tables"]["t1"].update(rows=[]), "at least 1 item"),
])
def test_a_published_file_that_does_not_fit_the_declaration_is_refused(change: Any, error: str) -> None:
    assert set(load_published(json.dumps({"tables": {"t1": GOOD}}), TABLES, "f.json")) == {"t1"}
    data = json.loads(json.dumps({"tables": {"t1": GOOD}}))
    change(data)
    with pytest.raises(PublishedDataError) as info:
        load_published(json.dumps(data), TABLES, "f.json")
    assert str(info.value).startswith("f.json: ") and error in str(info.value)
    with pytest.raises(PublishedDataError, match="not valid JSON"):
        load_published("{", TABLES, "f.json")


def test_a_table_whose_rows_are_groups_names_no_group_in_its_columns() -> None:
    with pytest.raises(ValueError, match="its rows are groups"):
        PaperTable("t", "t", "P", "by_x", (PaperColumn("A", "a", "g1"),), group_rows=(("g1", "G1"),))


def test_every_protocol_declares_paper_tables_and_the_package_ships_their_data() -> None:
    root = Path(__file__).parents[1]
    patterns = re.findall(r'"([^"]+)"', re.search(r"mcp_persona = \[(.*)\]", (root / "pyproject.toml").read_text())[1])
    for name in protocol_names():
        protocol = get_protocol(name)
        assert protocol.paper_tables, name
        data = Path(str(resources.files(type(protocol).__module__) / "published_results.json"))
        where = data.relative_to(root / "src" / "mcp_persona").as_posix()
        assert data.is_file() and any(fnmatch.fnmatch(where, p) for p in patterns), where  # package data


# -- MCP-Persona's per-app subsets ---------------------------------------------------------------------
def test_persona_tasks_fall_into_the_papers_per_app_subsets() -> None:
    tasks = {t.id: t for t in load_tasks("persona")}
    assert [subset_of(tasks[i]) for i in ("collab_lark_001", "collab_lark_002", "lark_x_016", "hodge_001",
                                          "email_gmail_001", "lark_obsidian_001")] == \
        ["Lark_Short", "Lark_Long", "Lark_Other", "Hodgepodge", "Email", "Lark_Obsidian"]
    rednote_lark = next(t for t in tasks.values()
                        if t.spec.category == "rednote_centric" and "lark" in t.server_names)
    assert subset_of(rednote_lark) == "Lark_Rednote"  # the pair counts once, whichever app is the hub


def test_misaligned_checkpoints_are_those_judge_and_rules_scored_differently() -> None:
    task = next(t for t in load_tasks("persona") if t.id == "collab_lark_002")  # 4 checkpoints
    scored = SimpleNamespace(status="ok", score=Score(detail={"checkpoints": [
        {"rule_score": 1.0, "judge_score": 1.0}, {"rule_score": 0.0, "judge_score": 1.0},
        {"rule_score": 1.0, "judge_score": None}, {"rule_score": None, "judge_score": 0.5}]}))
    errored = SimpleNamespace(status="error", score=None)
    figures = subset_figures([(task, scored, 0.75), (task, errored, 0.0)])  # type: ignore[list-item]
    assert figures == {"n": 2, "acc": 0.375, "checkpoints": 8, "compared": 2, "misaligned": 1,
                       "misaligned_ratio": 0.5}
    unjudged = subset_figures([(task, errored, 0.0)])  # type: ignore[list-item]
    assert unjudged["misaligned"] is None and unjudged["misaligned_ratio"] is None


# -- the reports ---------------------------------------------------------------------------------------
def test_livemcp101_table1_in_its_layout(reference_runs: dict[str, Path]) -> None:
    run = load_run(reference_runs["livemcp101"])
    md = render_markdown([run])
    lines = section(md, "## LiveMCP-101, Table 1: TSR and ARS overall and by difficulty")
    assert lines[0] == ("| Model | Overall · TSR | Overall · ARS | Easy · TSR | Easy · ARS | Medium · TSR "
                        "| Medium · ARS | Hard · TSR | Hard · ARS "
                        "| Tokens in/task | Tokens out/task | Tool calls/task |")
    # one easy and one medium task, both passed; no hard task; the reference plays their 2 and 5 gold calls
    assert lines[2] == "| reference | 100.00 | 100.00 | 100.00 | 100.00 | 100.00 | 100.00 | – | – | 0 | 0 | 3.5 |"
    assert lines[3] == ("| GPT-5 (published, paper's task set) | 58.42 | 73.02 | 86.67 | 89.17 | 56.67 | 72.50 | 39.02 "
                        "| 61.59 | – | – | – |")
    assert lines[2 + 1:] == published_lines("livemcp101", "table1")
    # the report command prints the same Markdown
    result = runner.invoke(app, ["report", str(reference_runs["livemcp101"])])
    assert result.exit_code == 0 and lines[3] in result.output.splitlines()


def test_mcpagentbench_tables_1_and_2_in_their_layout_and_avg_at_k(reference_runs: dict[str, Path]) -> None:
    run = load_run(reference_runs["mcpagentbench"])
    md = render_markdown([run])
    for key, metric in (("table1", "TFS"), ("table2", "TEFS")):
        lines = section(md, f"## MCPAgentBench, Table {key[-1]}: {metric} avg@k by task category")
        assert lines[0] == ("| Model | Daily · Single | Daily · Dual Serial | Daily · Dual Parallel | Daily · Multi "
                            "| Professional · Single | Professional · Dual Serial | Professional · Dual Parallel "
                            "| Professional · Multi |")
        assert lines[2] == "| reference · trials=2 (avg@2) | 100.00 | – | 100.00 | – | – | – | – | 100.00 |"
        assert lines[3:] == published_lines("mcpagentbench", key)
    assert lines[-1] == ("| Average of the 11 models (published, paper's task set) | 91.04 | 57.81 | 47.08 | 24.06 "
                         "| 85.90 | 36.77 | 36.46 | 17.59 |")
    trials = section(md, "## Trials")
    assert "| reference · trials=2 | 2 | tfs_avg@2 | 100.0 |" in trials
    assert "| reference · trials=2 | 2 | tefs_avg@2 | 100.0 |" in trials
    assert "| reference · trials=2 | 2 | tfs_per_trial | 100.0 · 100.0 |" in trials
    assert "| reference · trials=2 | 2 | tfs_outcome_avg@2 | 100.0 |" in trials  # the outcome rule's too
    assert "| reference · trials=2 | 2 | tefs_outcome_avg@2 | 100.0 |" in trials
    assert "over 2 trials: tfs_avg@2 100.0 · tefs_avg@2 100.0" in CONSOLE["mcpagentbench"]  # the run's own summary
    html = render_html([run], figures=False)
    assert ('<tr><td>reference · trials=2</td><td class="num">2</td><td>tefs_avg@2</td><td class="num">100.0</td></tr>'
            in html)


def test_livemcpbench_success_by_domain_beside_its_efficiency(reference_runs: dict[str, Path]) -> None:
    run = load_run(reference_runs["livemcpbench"])
    md = render_markdown([run])
    success = section(md, "## LiveMCPBench, Table 2: Task success rate by domain")
    assert success[0] == "| Model | Office | Leisure | Travel | Lifestyle | Finance | Shopping | Overall (%) |"
    assert success[2] == "| reference | – | – | – | – | – | 100.00 | 100.00 |"
    assert success[3:] == published_lines("livemcpbench", "table2")
    efficiency = section(md, "## LiveMCPBench, Table 3: Efficiency")
    assert efficiency[0] == "| Model | Steps | Tools | Execute | Route | Overall (%) |"
    # each task's gold: two airbnb_search calls in one turn, no route (the reference calls tools directly)
    assert efficiency[2] == "| reference | 1.00 | 1.00 | 2.00 | 0.00 | 100.00 |"
    assert efficiency[3] == "| Claude-Sonnet-4 (published, paper's task set) | 20.09 | 2.71 | 5.59 | 2.98 | 78.95 |"
    assert efficiency[3:] == published_lines("livemcpbench", "table3")


def test_persona_tables_3_and_7_in_their_layout(reference_runs: dict[str, Path]) -> None:
    run = load_run(reference_runs["persona"])
    md = render_markdown([run])
    t3 = section(md, "## MCP-Persona, Table 3: Acc by task group; Acc, SR-0.8 and Exec-Acc overall")
    assert t3[0].startswith("| Model | Single-Server · Collaboration Platform | Single-Server · Content Management |")
    # two collaboration tasks, one Lark-centric, one hodgepodge, all passed
    assert t3[2] == "| reference | 100.00 | – | – | – | 100.00 | – | 100.00 | 100.00 | 100.00 | 100.00 |"
    assert t3[-1] == ("| Qwen3-Coder (published, paper's task set) | 23.50 | 13.18 | 31.34 | 8.29 | 29.80 | 23.57 "
                      "| 6.25 | 23.93 | 3.65 | 20.14 |")
    assert t3[3:] == published_lines("persona", "table3")

    t7 = section(md, "## MCP-Persona, Table 7: Checkpoints a judge scored differently, by per-app subset")
    assert t7[0] == ("| Subset | reference · Misaligned Ckpt | reference · Total Ckpt | reference · Ratio (%) "
                     "| reference · Acc | GPT-5 (published, paper's task set) · Misaligned Ckpt "
                     "| GPT-5 (published, paper's task set) · Total Ckpt | GPT-5 (published, paper's task set) · "
                     "Ratio (%) | GPT-5 (published, paper's task set) · Acc |")
    rows = {line.split(" | ")[0].removeprefix("| "): line for line in t7[2:]}
    # no judge: nothing to misalign; the checkpoints are the tasks' (2, 4, 3 and 4)
    assert rows["Lark_Short"] == "| Lark_Short | – | 2 | – | 100.00 | 2 | 20 | 10.00 | – |"
    assert rows["Lark_Long"] == "| Lark_Long | – | 4 | – | 100.00 | 4 | 79 | 5.06 | – |"
    assert rows["Lark_Other"] == "| Lark_Other | – | 3 | – | 100.00 | 6 | 73 | 8.22 | – |"
    assert rows["Hodgepodge"] == "| Hodgepodge | – | 4 | – | 100.00 | 7 | 84 | 8.33 | – |"
    assert rows["Telegram"] == "| Telegram | – | – | – | – | – | – | – | – |"  # beyond the paper's servers
    assert rows["Overall"] == "| Overall | – | 13 | – | 100.00 | 82 | 970 | 8.45 | – |"


@pytest.mark.parametrize("suite", list(SAMPLES))
def test_html_report_draws_the_paper_tables_with_the_published_rows_marked(reference_runs: dict[str, Path],
                                                                           suite: str) -> None:
    run = load_run(reference_runs[suite])
    html = render_html([run], figures=False)
    protocol = get_protocol(suite)
    published = protocol.published_results()
    for table in protocol.paper_tables:
        assert f"<summary>{table.source}: {table.title}</summary>" in html
    # a published row per model of the tables whose rows are runs; published columns where rows are groups
    row_tables = [t for t in protocol.paper_tables if not t.group_rows]
    assert html.count('<tr class="published"') == sum(len(published[t.key].rows) for t in row_tables)
    if suite == "persona":
        assert '<th class="band" colspan="4">Single-Server</th><th class="band" colspan="3">Cross-Server</th>' in html
        assert '<th class="band published" colspan="4">GPT-5 (published, paper&#39;s task set)</th>' in html
    if suite == "livemcp101":
        assert ('<td>GPT-5 <span class="badge">published, paper&#39;s task set</span></td><td class="num">58.42</td>'
                in html)
