"""Judge-vs-human agreement: percent agreement and Cohen's kappa against values worked out by hand."""

from __future__ import annotations

from pathlib import Path

import pytest

from mcp_persona.judges import (
    JudgeVerdict,
    LabelFileError,
    agreement_report,
    cohen_kappa,
    judge_labels,
    load_labels,
    percent_agreement,
)
from mcp_persona.judges.agreement import confusion, normalize_label

# -- hand-computed kappas -------------------------------------------------------------------------
# A 2x2 table, n = 50 (rows: human, columns: judge):
#                 judge yes   judge no
#   human yes        20          5        (25)
#   human no         10         15        (25)
#                   (30)       (20)
# p_o = (20 + 15) / 50 = 0.7
# p_e = (25/50)(30/50) + (25/50)(20/50) = 0.3 + 0.2 = 0.5
# kappa = (0.7 - 0.5) / (1 - 0.5) = 0.4
HUMAN_2X2 = ["yes"] * 20 + ["yes"] * 5 + ["no"] * 10 + ["no"] * 15
JUDGE_2X2 = ["yes"] * 20 + ["no"] * 5 + ["yes"] * 10 + ["no"] * 15


def test_kappa_of_a_2x2_table() -> None:
    assert percent_agreement(HUMAN_2X2, JUDGE_2X2) == pytest.approx(0.7)
    assert cohen_kappa(HUMAN_2X2, JUDGE_2X2) == pytest.approx(0.4)
    assert confusion(HUMAN_2X2, JUDGE_2X2, ["no", "yes"]) == [[15, 10], [5, 20]]


# Three ordinal classes (checkpoint scores 0 / 0.5 / 1), n = 10:
#   human: 0 0 0   .5 .5 .5   1 1 1 1
#   judge: 0 0 .5  .5 .5 1    1 1 1 0
# Confusion O (rows human, cols judge, order 0, .5, 1):
#   [2 1 0]   row sums 3
#   [0 2 1]            3
#   [1 0 3]            4      column sums 3, 3, 4
# Unweighted: p_o = 7/10; p_e = (3*3 + 3*3 + 4*4)/100 = 0.34; kappa = 0.36/0.66 = 6/11.
# Quadratic weights over the values, in steps of 0.5: w = (step distance)^2 -> 0, 1, 4 (the scale cancels).
#   sum w*O = 1*O[0][1] + 1*O[1][2] + 4*O[2][0] = 1 + 1 + 4 = 6
#   E = row_i * col_j / 10 = [[.9 .9 1.2], [.9 .9 1.2], [1.2 1.2 1.6]]
#   sum w*E = 1*(.9 + .9 + 1.2 + 1.2) + 4*(1.2 + 1.2) = 4.2 + 9.6 = 13.8
#   kappa_w = 1 - 6/13.8 = 13/23
# Linear weights (step distance 0, 1, 2): sum w*O = 1 + 1 + 2 = 4; sum w*E = 4.2 + 2*2.4 = 9; kappa = 5/9.
HUMAN_3 = [0, 0, 0, 0.5, 0.5, 0.5, 1, 1, 1, 1]
JUDGE_3 = [0, 0, 0.5, 0.5, 0.5, 1, 1, 1, 1, 0]


def test_kappa_of_a_three_class_ordinal_table() -> None:
    assert percent_agreement(HUMAN_3, JUDGE_3) == pytest.approx(0.7)
    assert cohen_kappa(HUMAN_3, JUDGE_3) == pytest.approx(6 / 11)
    assert cohen_kappa(HUMAN_3, JUDGE_3, weights="quadratic") == pytest.approx(13 / 23)
    assert cohen_kappa(HUMAN_3, JUDGE_3, weights="linear") == pytest.approx(5 / 9)
    assert confusion([normalize_label(x) for x in HUMAN_3], [normalize_label(x) for x in JUDGE_3],
                     ["0", "0.5", "1"]) == [[2, 1, 0], [0, 2, 1], [1, 0, 3]]


# Likert 1-5, n = 5: human 1 2 3 4 5, judge 1 2 3 5 5.
# Rows are all 1; columns (1..5) = 1 1 1 0 2. Quadratic weights (i - j)^2.
#   sum w*O = (4 - 5)^2 = 1
#   sum w*E = (1/5) * sum_j c_j * sum_i (i - j)^2, where sum_i (i - j)^2 = 30, 15, 10, 15, 30 for j = 1..5
#           = (1/5) * (30 + 15 + 10 + 0 + 2*30) = 115 / 5 = 23
#   kappa_w = 1 - 1/23 = 22/23
def test_quadratic_kappa_on_a_likert_scale() -> None:
    assert cohen_kappa([1, 2, 3, 4, 5], [1, 2, 3, 5, 5], weights="quadratic") == pytest.approx(22 / 23)


def test_weighted_kappa_on_two_levels_equals_plain_kappa_and_unused_levels_keep_value_spacing() -> None:
    human = [0] * 20 + [0] * 5 + [1] * 10 + [1] * 15
    judge = [0] * 20 + [1] * 5 + [0] * 10 + [1] * 15
    plain = cohen_kappa(human, judge)
    assert plain == pytest.approx(0.4)
    assert cohen_kappa(human, judge, weights="quadratic") == pytest.approx(plain)
    # weights are taken from the values, so declaring the unused 0.5 level changes nothing
    assert cohen_kappa(human, judge, weights="quadratic", levels=[0, 0.5, 1]) == pytest.approx(plain)


def test_kappa_edge_cases() -> None:
    assert cohen_kappa([1, 0, 1], [1, 0, 1]) == pytest.approx(1.0)
    assert cohen_kappa(["success"] * 4, ["success"] * 4) is None  # chance agreement 1: undefined
    assert cohen_kappa([1, 1, 0, 0], [0, 0, 1, 1]) == pytest.approx(-1.0)
    with pytest.raises(ValueError, match="different numbers"):
        cohen_kappa([1, 0], [1])
    with pytest.raises(ValueError, match="no items"):
        percent_agreement([], [])
    with pytest.raises(ValueError, match="numeric"):
        cohen_kappa(["success", "failure"], ["success", "success"], weights="quadratic")


def test_labels_compare_by_value_and_case_insensitively() -> None:
    assert normalize_label(1) == normalize_label("1.0") == normalize_label(" 1 ") == "1"
    assert normalize_label(0.5) == normalize_label("0.50") == "0.5"
    assert normalize_label("Success") == normalize_label("success ")
    assert percent_agreement(["1", "0.5", "Failure"], [1.0, 0.5, "failure"]) == 1.0
    for bad in (True, None, "", float("nan"), [1]):
        with pytest.raises(ValueError):
            normalize_label(bad)


# -- reports per category -------------------------------------------------------------------------
def test_report_per_category_and_overall_like_table_7() -> None:
    human = {"a1": "1", "a2": "0.5", "a3": "0", "b1": "1", "b2": "1", "c1": "0"}
    cats = {"a1": "collaboration", "a2": "collaboration", "a3": "collaboration", "b1": "social", "b2": "social",
            "c1": "social"}
    judge = {"a1": 1, "a2": 1, "a3": 0, "b1": 1, "b2": 0.5, "c1": 0, "zz": 1}
    report = agreement_report(human, judge, categories=cats, levels=[0, 0.5, 1])
    assert report.overall.n == 6 and report.overall.n_agree == 4 and report.overall.n_misaligned == 2
    assert report.overall.agreement == pytest.approx(4 / 6)
    assert report.overall.weighted_kappa is not None  # numeric labels: ordinal by default
    collab, social = report.by_category["collaboration"], report.by_category["social"]
    assert (collab.n, collab.n_misaligned, social.n, social.n_misaligned) == (3, 1, 3, 1)
    assert collab.misaligned_ratio == pytest.approx(1 / 3)
    assert report.only_judge == ["zz"] and report.only_human == []
    as_dict = report.to_dict()
    assert as_dict["by_category"]["social"]["n_misaligned"] == 1
    assert as_dict["overall"]["levels"] == ["0", "0.5", "1"]


def test_report_on_binary_text_labels_has_no_weighted_kappa() -> None:
    report = agreement_report({"x": "success", "y": "failure"}, {"x": "Success", "y": "success"})
    assert report.overall.agreement == 0.5 and report.overall.weighted_kappa is None
    assert list(report.by_category) == ["(none)"]


def test_unusable_judge_verdicts_are_listed_not_scored() -> None:
    ok = JudgeVerdict(judge="keypoint", model="m", status="ok", label="success", score=1.0)
    bad = JudgeVerdict(judge="keypoint", model="m", status="unparseable")
    labels, unusable = judge_labels({"t1": ok, "t2": bad})
    assert labels == {"t1": "success"} and unusable == ["t2"]
    report = agreement_report({"t1": "success", "t2": "failure", "t3": "failure"}, labels, judge_unusable=unusable)
    assert report.overall.n == 1
    assert report.judge_unusable == ["t2"] and report.only_human == ["t3"]


def test_report_needs_overlapping_ids() -> None:
    with pytest.raises(ValueError, match="ids match"):
        agreement_report({"a": 1}, {"b": 1})


# -- label files ----------------------------------------------------------------------------------
def write(tmp_path: Path, name: str, text: str, encoding: str = "utf-8") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding=encoding)
    return path


def test_csv_labels_with_and_without_category(tmp_path: Path) -> None:
    path = write(tmp_path, "h.csv", "id,label,category\nlark_001#0,1,collaboration\n"
                                     '"lark_002#1",0.5,"social"\n\nlark_003#0,0,\n', encoding="utf-8-sig")
    labels = load_labels(path)
    assert list(labels) == ["lark_001#0", "lark_002#1", "lark_003#0"]
    assert labels["lark_002#1"].label == "0.5" and labels["lark_002#1"].category == "social"
    assert labels["lark_003#0"].category is None
    plain = load_labels(write(tmp_path, "p.csv", "label,id\nsuccess,t1\nFailure,t2\n"))
    assert plain["t2"].label == "failure" and plain["t1"].category is None


def test_jsonl_labels(tmp_path: Path) -> None:
    path = write(tmp_path, "h.jsonl", '{"id": "t1", "label": 4, "category": "hard"}\n\n'
                                      '{"id": "t2", "label": "2"}\n{"id": 7, "label": 5.0}\n')
    labels = load_labels(path)
    assert {k: (v.label, v.category) for k, v in labels.items()} == {
        "t1": ("4", "hard"), "t2": ("2", None), "7": ("5", None)}
    report = agreement_report(labels, {"t1": 4, "t2": 3, "7": 5})
    assert report.by_category["hard"].n == 1 and report.by_category["(none)"].n == 2


@pytest.mark.parametrize(("name", "text", "message"), [
    ("a.csv", "id,score\nt1,1\n", r"a\.csv:1: .*missing label"),
    ("a.csv", "", r"missing id, label"),
    ("a.csv", "id,label\n", "no labels"),
    ("a.csv", "id,label\nt1,1\nt2,0\nt1,0\n", r"a\.csv:4: id 't1' already labeled on line 2"),
    ("a.csv", "id,label\nt1,\n", r"a\.csv:2: bad label for 't1': a label is empty"),
    ("a.csv", "id,label\n,1\n", r"a\.csv:2: 'id' must be a non-empty string"),
    ("a.csv", "id,label\nt1,1,extra\n", r"a\.csv:2: more fields"),
    ("a.csv", "id,label\nt1\n", r"a\.csv:2: fewer fields"),
    ("a.jsonl", '{"id": "t1", "label": 1}\n{"id": "t2", "label": 1,}\n', r"a\.jsonl:2: not valid JSON"),
    ("a.jsonl", '["t1", 1]\n', r"a\.jsonl:1: each line must be a JSON object"),
    ("a.jsonl", '{"id": "t1"}\n', r"a\.jsonl:1: missing label"),
    ("a.jsonl", '{"id": "t1", "label": true}\n', r"a\.jsonl:1: bad label.*true/false"),
    ("a.jsonl", '{"id": "t1", "label": null}\n', r"a\.jsonl:1: bad label"),
    ("a.jsonl", '{"id": "t1", "label": 1, "category": 3}\n', r"a\.jsonl:1: 'category' must be a string"),
    ("a.json", '[{"id": "t1", "label": 1}]', r"unknown label file type '\.json'"),
])
def test_bad_label_files_fail_with_clear_errors(tmp_path: Path, name: str, text: str, message: str) -> None:
    with pytest.raises(LabelFileError, match=message):
        load_labels(write(tmp_path, name, text))


def test_missing_and_non_utf8_label_files(tmp_path: Path) -> None:
    with pytest.raises(LabelFileError, match="no such file"):
        load_labels(tmp_path / "absent.csv")
    path = tmp_path / "latin.csv"
    path.write_bytes("id,label\ncafé,1\n".encode("latin-1"))
    with pytest.raises(LabelFileError, match="not UTF-8"):
        load_labels(path)


# -- agree on a run of every suite ------------------------------------------------------------------
class HalfGold:
    """Replays the gold chain on the first and third task and does nothing on the others."""

    name = "half-gold"
    model = None

    def __init__(self, gold_ids: set[str]) -> None:
        from mcp_persona.agents import NoopAgent, ReferenceAgent

        self.gold_ids, self.gold, self.noop = gold_ids, ReferenceAgent(), NoopAgent()

    async def run(self, task, env, trajectory) -> None:  # type: ignore[no-untyped-def]
        await (self.gold if task.id in self.gold_ids else self.noop).run(task, env, trajectory)


@pytest.mark.slow
@pytest.mark.parametrize("suite", ["persona", "livemcp101", "livemcpbench"])
def test_agree_works_on_every_suite(suite: str, tmp_path: Path) -> None:
    import json

    import anyio
    from typer.testing import CliRunner

    from mcp_persona.cli import app
    from mcp_persona.protocols import load_tasks, suite_protocol
    from mcp_persona.runner import RunConfig, run_suite
    from mcp_persona.store import RunStore

    tasks = load_tasks(suite)[:4]
    protocol = suite_protocol(suite)
    store = RunStore(tmp_path / "run")
    store.begin(RunConfig(suite=suite, agent="half-gold", model=None, protocol=protocol.name).to_dict(), resume=False)
    agent = HalfGold({tasks[0].id, tasks[2].id})
    anyio.run(lambda: run_suite(tasks, agent, store, protocol=protocol))  # type: ignore[arg-type]
    store.close()
    labels = Path(__file__).parent / "data" / "labels" / f"{suite}.csv"
    result = CliRunner().invoke(app, ["agree", str(tmp_path / "run"), "--labels", str(labels), "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    assert report["overall"]["agreement"] == 1.0 and report["overall"]["kappa"] == 1.0
    if suite == "livemcp101":  # rules give no trajectory score: those labels are listed, not scored
        assert report["overall"]["weighted_kappa"] == 1.0 and len(report["judge_unusable"]) == 4
        assert set(report["by_category"]) == {"result"}
    wrong = tmp_path / "wrong.csv"
    wrong.write_text("id,label\n" + "\n".join(f"nothing_{i},1" for i in range(3)) + "\n")
    result = CliRunner().invoke(app, ["agree", str(tmp_path / "run"), "--labels", str(wrong)])
    assert result.exit_code == 2 and "named" in result.output  # says how this run's items are named


def test_agree_refuses_a_protocol_without_a_judge(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from mcp_persona.cli import app

    run = tmp_path / "run"
    assert CliRunner().invoke(app, ["run", "--suite", "mcpagentbench", "--agent", "noop", "--limit", "1",
                                    "--run-dir", str(run)]).exit_code == 0
    labels = tmp_path / "l.csv"
    labels.write_text("id,label\nx,1\n")
    result = CliRunner().invoke(app, ["agree", str(run), "--labels", str(labels)])
    assert result.exit_code == 2 and "rule-based" in result.output
