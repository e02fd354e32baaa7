"""Reports over finished runs: loading, the HTML page (also in headless Chromium), Markdown, figures, compare."""

from __future__ import annotations

import fnmatch
import json
import os
import re
import shutil
import sqlite3
import subprocess
import xml.etree.ElementTree as ET
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import anyio
import pytest
from typer.testing import CliRunner

from mcp_persona.agents import ModelAgent
from mcp_persona.cli import app
from mcp_persona.llm.base import ChatResponse, ModelError
from mcp_persona.protocols import get_protocol, load_tasks
from mcp_persona.report import compare_runs, load_run, load_runs
from mcp_persona.report.html import CSP, render_html
from mcp_persona.report.load import RunLoadError
from mcp_persona.report.markdown import render_markdown
from mcp_persona.report.plots import failure_modes, pareto_frontier, save, write_plots
from mcp_persona.report.summary import build_summary, write_summary
from mcp_persona.runner import RunConfig, run_episode
from mcp_persona.store import RunStore
from mcp_persona.trajectory import RequestedCall, Usage

runner = CliRunner(env={"COLUMNS": "250", "NO_COLOR": "1", "TERM": "dumb"})
LIMIT = 4
HOSTILE_TOOL = "lark__x</script><img src=https://example.invalid/p.png>"
ZHAO = "ou_043b026c48bbf33feff9243a8f506b40"


def invoke(*args: str) -> tuple[int, str]:
    result = runner.invoke(app, list(args))
    return result.exit_code, result.output


# -- a scripted model run: model turns, tool errors, an errored episode, costs ---------------------
class Scripted:
    """A test double of a chat model that replies from a list."""

    name = "scripted-test"

    def __init__(self, replies: list[ChatResponse | Exception]) -> None:
        self.replies = list(replies)

    async def complete(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> ChatResponse:
        reply = self.replies.pop(0) if self.replies else ChatResponse(content="(out of script)")
        if isinstance(reply, Exception):
            raise reply
        return reply


def calls(*specs: tuple[str, Any]) -> ChatResponse:
    return ChatResponse(
        tool_calls=[RequestedCall(id=f"c{i}", name=n, arguments=json.dumps(a)) for i, (n, a) in enumerate(specs)],
        usage=Usage(input_tokens=1000, output_tokens=50),
    )


def say(text: str) -> ChatResponse:
    return ChatResponse(content=text, usage=Usage(input_tokens=1200, output_tokens=80), finish_reason="stop")


def scripts(tasks: dict[str, Any]) -> dict[str, list[ChatResponse | Exception]]:
    return {
        "lark_001": [  # creates the event, never invites: partial
            calls(("lark__contact_v3_user_batchGetId", {"data": {"mobiles": ["+86 13800138000"]}})),
            calls(("lark__calendar_v4_calendarEvent_create", {
                "path": {"calendar_id": "primary"},
                "data": {"summary": "Poster print review", "start_time": {"timestamp": "1773212400"},
                         "end_time": {"timestamp": "1773216000"}}})),
            say(f"Created the event; Zhao Min is {ZHAO}."),
        ],
        "lark_002": [  # a hostile unknown tool name (an error whose text holds markup), then the right answer
            calls((HOSTILE_TOOL, {})),
            say(tasks["lark_002"].reference_answer + " <b>bold</b> </script>"),
        ],
        "lark_003": [calls(("lark__calendar_v4_calendar_list", {})), ModelError("HTTP 503 from the endpoint")],
        "lark_004": [say("I could not do it.")],
    }


TASKS = "lark_00[1-4]"


def suite_tasks() -> list[Any]:
    return [t for t in load_tasks("persona") if fnmatch.fnmatchcase(t.id, TASKS)]


def make_model_run(run_dir: Path, costs: bool = True) -> None:
    tasks = suite_tasks()
    by_id = {t.id: t for t in tasks}
    config = RunConfig(suite="persona", agent="model", model=Scripted.name, tools="selected", max_rounds=20)
    store = RunStore(run_dir)
    store.begin(config.to_dict(), resume=False)
    for task_id, replies in scripts(by_id).items():
        agent = ModelAgent(Scripted(replies), max_rounds=5)
        store.write(anyio.run(lambda t=by_id[task_id], a=agent: run_episode(t, a)))
    write_summary(run_dir, build_summary(config, tasks, store.records()))
    store.close()
    if costs:  # the cost field records will carry: added to the stored JSON as the runner will write it
        db = sqlite3.connect(run_dir / "run.sqlite")
        for task_id, epoch, text in db.execute("SELECT task_id, epoch, record FROM episodes").fetchall():
            rec = json.loads(text)
            for e in rec["trajectory"]["events"]:
                if e["kind"] == "model":
                    u = e["usage"]
                    e["cost_usd"] = (u["input_tokens"] * 1e-6 + u["output_tokens"] * 4e-6)
            db.execute("UPDATE episodes SET record = ? WHERE task_id = ? AND epoch = ?",
                       (json.dumps(rec), task_id, epoch))
        db.commit()
        db.close()


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("runs")
    out = {}
    for agent in ("reference", "noop"):
        code, text = invoke("run", "--agent", agent, "--tasks", TASKS, "--run-dir", str(root / agent))
        assert code == 0, text
        out[agent] = root / agent
    make_model_run(root / "model")
    out["model"] = root / "model"
    return out


# -- loading --------------------------------------------------------------------------------------
def test_runs_load_with_labels_scores_and_records(runs: dict[str, Path]) -> None:
    ref, noop, model = load_runs([runs["reference"], runs["noop"], runs["model"]])
    assert [r.label for r in (ref, noop, model)] == ["reference", "noop", "scripted-test"]
    assert [len(r.episodes) for r in (ref, noop, model)] == [LIMIT] * 3
    assert ref.stats()["scores"]["acc"] == 1.0 and noop.stats()["scores"]["acc"] == 0.0
    s = model.stats()
    summary = json.loads((runs["model"] / "summary.json").read_text())
    assert s["scores"]["acc"] == summary["metrics"]["acc"] and 0 < s["scores"]["acc"] < 1
    assert s["n_errors"] == 1
    # 4 tool calls (one unknown), 5 successful model calls
    assert s["avg_tool_calls"] == 4 / LIMIT and s["tool_error_rate"] == 1 / 4
    assert s["avg_input_tokens"] == (1000 + 1000 + 1200 + 1000 + 1200 + 1000 + 1200) / LIMIT
    assert s["cost_usd"] == pytest.approx(sum(i * 1e-6 + o * 4e-6 for i, o in [
        (1000, 50), (1000, 50), (1200, 80), (1000, 50), (1200, 80), (1000, 50), (1200, 80)]))
    assert ref.stats()["cost_usd"] == 0.0  # no model call costs nothing
    errored = next(e for e in model.episodes if e.task_id == "lark_003")
    assert errored.status == "error" and "HTTP 503" in (errored.error or "") and errored.acc == 0.0
    created = next(e for e in ref.episodes if e.task_id == "lark_001")
    assert any("create" in d for d in created.diff)
    assert ref.tasks["lark_001"].instruction and ref.tasks["lark_001"].checkpoints[0]["summary"]


def test_unknown_costs_are_unknown_or_a_lower_bound(runs: dict[str, Path], tmp_path: Path) -> None:
    bare = tmp_path / "bare"
    make_model_run(bare, costs=False)
    assert load_run(bare).stats()["cost_usd"] is None
    partial = tmp_path / "partial"
    shutil.copytree(runs["model"], partial)
    db = sqlite3.connect(partial / "run.sqlite")
    rec = json.loads(db.execute("SELECT record FROM episodes WHERE task_id = 'lark_004'").fetchone()[0])
    for e in rec["trajectory"]["events"]:
        e["cost_usd"] = None
    db.execute("UPDATE episodes SET record = ? WHERE task_id = 'lark_004'", (json.dumps(rec),))
    db.commit()
    db.close()
    s = load_run(partial).stats()
    assert s["cost_partial"] and s["cost_usd"] < load_run(runs["model"]).stats()["cost_usd"]
    assert "| ≥$" in render_markdown([load_run(partial)])


def test_a_run_without_summary_is_scored_from_its_records(runs: dict[str, Path], tmp_path: Path) -> None:
    copy = tmp_path / "unfinished"
    shutil.copytree(runs["model"], copy)
    (copy / "summary.json").unlink()
    full, bare = load_run(runs["model"]), load_run(copy)
    assert bare.stats()["scores"]["acc"] == pytest.approx(full.stats()["scores"]["acc"])
    assert bare.stats()["scores"]["exec_acc"] == pytest.approx(full.stats()["scores"]["exec_acc"])
    assert any("no summary.json" in n for n in bare.notes)


def test_folders_that_are_not_runs_are_refused_clearly(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    (tmp_path / "onlysummary").mkdir()
    (tmp_path / "onlysummary" / "summary.json").write_text("{}")
    (tmp_path / "junk").mkdir()
    (tmp_path / "junk" / "run.sqlite").write_text("this is not sqlite " * 100)
    (tmp_path / "file.txt").write_text("x")
    cases = {"missing": "no such folder", "empty": "not a run folder", "onlysummary": "only a summary.json",
             "junk": "run store", "file.txt": "not a folder"}
    for name, message in cases.items():
        with pytest.raises(RunLoadError, match=message):
            load_run(tmp_path / name)
        code, out = invoke("report", str(tmp_path / name))
        assert code == 2 and message in " ".join(out.split()), out
    code, out = invoke("compare", str(tmp_path / "empty"), str(tmp_path / "junk"))
    assert code == 2 and "not a run folder" in out


# -- HTML -------------------------------------------------------------------------------------------
class Page(HTMLParser):
    """The leaderboard rows, every src/href, the CSP and the scripts of a page."""

    def __init__(self) -> None:
        super().__init__()
        self.rows: list[list[str]] = []
        self.refs: list[str] = []
        self.csp: str | None = None
        self.scripts: list[tuple[dict[str, str | None], str]] = []
        self._in_lb = self._in_row = self._in_cell = False
        self._script: dict[str, str | None] | None = None
        self._text = ""

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        self.refs += [v for k, v in attrs if k in ("src", "href", "action", "srcset", "poster", "data") and v]
        if tag == "meta" and (a.get("http-equiv") or "").lower() == "content-security-policy":
            self.csp = a.get("content")
        if tag == "table" and a.get("id") == "leaderboard":
            self._in_lb = True
        if self._in_lb and tag == "tr" and "data-run" in a:
            self._in_row = True
            self.rows.append([])
        if self._in_row and tag == "td":
            self._in_cell, self._text = True, ""
        if tag == "script":
            self._script, self._text = a, ""

    def handle_endtag(self, tag: str) -> None:
        if tag == "td" and self._in_cell:
            self.rows[-1].append(" ".join(self._text.split()))
            self._in_cell = False
        if tag == "tr":
            self._in_row = False
        if tag == "table":
            self._in_lb = False
        if tag == "script" and self._script is not None:
            self.scripts.append((self._script, self._text))
            self._script = None

    def handle_data(self, data: str) -> None:
        if self._in_cell or self._script is not None:
            self._text += data


def label_cell(text: str) -> str:
    """The run label of a leaderboard Run cell ("<run number> · <label> <folder>")."""
    number, _, rest = text.partition(" · ")
    assert number.isdigit(), text
    return rest.split()[0]


def parse(html: str) -> Page:
    page = Page()
    page.feed(html)
    return page


def assert_offline(html: str, page: Page) -> None:
    """Nothing on the page can reach the network: a CSP that forbids it, and no reference to fetch anyway."""
    assert page.csp == CSP
    assert "default-src 'none'" in page.csp and "connect-src" not in page.csp
    assert all(r.startswith(("data:", "#")) for r in page.refs), page.refs
    assert not re.search(r"url\(\s*['\"]?(https?:)?//", html)
    assert not re.search(r"@import", html)
    assert all(not a.get("src") for a, _ in page.scripts)
    assert not re.search(r"<(link|iframe|object|embed|base|audio|video|source)\b", html, re.I)


def test_html_leaderboard_rows_and_numbers(runs: dict[str, Path]) -> None:
    loaded = load_runs([runs["noop"], runs["model"], runs["reference"]])
    html = render_html(loaded)
    page = parse(html)
    assert_offline(html, page)
    cats = sorted({t.spec.category for t in suite_tasks()})
    assert [label_cell(r[1]) for r in page.rows] == ["reference", "scripted-test", "noop"]  # ranked by Acc
    ref_row, model_row, noop_row = page.rows
    # rank, run, episodes, Acc, SR-0.8, Exec-Acc, Strict, tokens in, tokens out, cost, calls, errors, time (the
    # categories have a table of their own)
    assert ref_row[0] == "1" and ref_row[2] == str(LIMIT) and ref_row[3:7] == ["100.0", "100.0", "100.0", "100.0"]
    assert noop_row[3:7] == ["0.0", "0.0", "0.0", "0.0"]
    assert "1 err" in model_row[2]
    m = loaded[1].stats()
    assert model_row[3] == f"{100 * m['scores']['acc']:.1f}" and model_row[5] == f"{100 * m['scores']['exec_acc']:.1f}"
    k = 7
    assert 'id="leaderboard-groups"' in html and all(f">{c}</th>" in html for c in cats)
    assert model_row[k:k + 2] == [f"{m['avg_input_tokens']:,.0f}", f"{m['avg_output_tokens']:,.0f}"]
    assert model_row[k + 2] == f"${m['cost_usd']:.4f}" and ref_row[k + 2] == "$0"
    assert model_row[k + 3] == "1.0" and model_row[k + 4] == "25.0"
    # the data block: every episode, markup in tool results kept as escaped text
    data_scripts = [t for a, t in page.scripts if a.get("type") == "application/json"]
    assert len(data_scripts) == 1
    data = json.loads(data_scripts[0])
    assert len(data["episodes"]) == 3 * LIMIT and len(data["runs"]) == 3
    assert "</script>" not in data_scripts[0] and "<img" not in data_scripts[0]
    hostile = next(e for e in data["episodes"] if e["task_id"] == "lark_002" and e["run"] == 1)
    assert hostile["events"][1]["tool"] == HOSTILE_TOOL and hostile["events"][1]["is_error"]
    assert hostile["cost_usd"] > 0
    assert data["tasks"]["persona"]["lark_001"]["checkpoints"][0]["summary"]


def test_cli_report_writes_every_output(runs: dict[str, Path], tmp_path: Path) -> None:
    out = tmp_path / "out"
    code, text = invoke("report", str(runs["reference"]), str(runs["noop"]), "--html", str(out / "r.html"),
                        "--markdown", str(out / "r.md"), "--plots", str(out / "plots"), "--no-figures")
    assert code == 0, text
    html = (out / "r.html").read_text()
    assert "<img" not in html and "reference" in html
    assert (out / "r.md").read_text().startswith("# MCP-Persona report")
    assert sorted(p.name for p in (out / "plots").iterdir()) == sorted(  # noop's failures give the heatmap
        f"{s}.{x}" for s in ("cost_accuracy", "tokens_success", "tool_calls", "categories", "failure_modes")
        for x in ("png", "svg"))
    code, text = invoke("report", str(runs["reference"]))  # no output named: Markdown on stdout
    assert code == 0 and "## Leaderboard" in text and "| reference |" in text


# -- Markdown ---------------------------------------------------------------------------------------
def test_markdown_leaderboard_and_categories(runs: dict[str, Path]) -> None:
    loaded = load_runs([runs["noop"], runs["reference"], runs["model"]])
    md = render_markdown(loaded)
    lines = md.splitlines()
    head = lines.index("## Leaderboard")
    table = lines[head + 2: head + 7]
    assert table[0].startswith("| Run | Episodes | Acc | SR-0.8 | Exec-Acc |")
    assert set(table[1].replace("|", "").split()) <= {":---", "---:"}
    assert table[2].startswith(f"| reference | {LIMIT} | 100.0 | 100.0 | 100.0 |")
    assert table[3].startswith("| scripted-test |") and table[4].startswith(f"| noop | {LIMIT} | 0.0 | 0.0 | 0.0 |")
    assert all(line.count("|") == table[0].count("|") for line in table)
    cat = lines[lines.index("## Acc by category"):]
    assert cat[4] == "| Category | reference | scripted-test | noop |"
    cats = [t.spec.category for t in suite_tasks()]
    for c in set(cats):
        assert f"| {c} | 100.0 ({cats.count(c)}) |" in md
    assert "## Exec-Acc by category" in md


# -- figures ----------------------------------------------------------------------------------------
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def check_png(path: Path) -> tuple[int, int]:
    assert path.read_bytes()[:8] == PNG_SIGNATURE
    try:
        from PIL import Image
    except ImportError:
        import matplotlib.image as mpimg

        h, w = mpimg.imread(path).shape[:2]
        return w, h
    with Image.open(path) as img:
        img.verify()
    with Image.open(path) as img:
        return img.size


def check_svg(path: Path) -> None:
    root = ET.parse(path).getroot()
    assert root.tag == "{http://www.w3.org/2000/svg}svg"
    assert len(list(root.iter())) > 20


def test_plots_are_valid_png_and_svg(runs: dict[str, Path], tmp_path: Path) -> None:
    loaded = load_runs([runs["reference"], runs["noop"], runs["model"]])
    paths = write_plots(loaded, tmp_path / "plots",
                        failure_counts={"scripted-test": {"wrong tool": 2, "gave up": 1}, "noop": {"gave up": 4}})
    names = {p.name for p in paths}
    for stem in ("cost_accuracy", "tokens_success", "tool_calls", "categories", "failure_modes"):
        assert {f"{stem}.png", f"{stem}.svg"} <= names
    for p in paths:
        if p.suffix == ".png":
            w, h = check_png(p)
            assert w >= 400 and h >= 200
        else:
            check_svg(p)
    svg = (tmp_path / "plots" / "cost_accuracy.svg").read_text()
    assert "Pareto frontier" in svg and "total cost (USD)" in svg  # every cost known: the cost axis
    assert "wrong tool" in (tmp_path / "plots" / "failure_modes.svg").read_text()
    # deterministic: the same runs give the same bytes
    again = write_plots(loaded, tmp_path / "again")
    for p in again:
        assert p.read_bytes() == (tmp_path / "plots" / p.name).read_bytes(), p.name


def test_tokens_stand_in_for_unknown_cost_and_empty_heatmap(tmp_path: Path, runs: dict[str, Path]) -> None:
    make_model_run(tmp_path / "bare", costs=False)
    loaded = load_runs([runs["reference"], tmp_path / "bare"])
    paths = write_plots(loaded, tmp_path / "p", formats=("svg",))
    assert "total tokens" in (tmp_path / "p" / "cost_accuracy.svg").read_text()
    assert all(p.suffix == ".svg" for p in paths)
    save(failure_modes({}), tmp_path / "p", "empty_modes", ("png",))
    check_png(tmp_path / "p" / "empty_modes.png")


def test_one_unpriced_run_keeps_the_others_on_the_cost_axis(monkeypatch: pytest.MonkeyPatch) -> None:
    """Priced runs stay on the (log) cost axis; the run whose cost is unknown is left off and named under it,
    rather than every run falling back to tokens."""
    from types import SimpleNamespace

    from mcp_persona.report import plots

    def run(name: str, cost: float | None, acc: float) -> SimpleNamespace:
        return SimpleNamespace(metrics={"acc": acc}, primary=("Acc", "acc"), label=name, stats=lambda: {
            "cost_usd": cost, "cost_partial": False, "total_tokens": 1000})

    fig = plots.cost_accuracy([run("cheap", 0.01, 0.4), run("dear", 2.0, 0.8), run("self-hosted", None, 0.6)])
    ax = fig.axes[0]
    assert ax.get_xscale() == "log" and ax.get_xlabel() == "total cost (USD, log scale)"
    assert sorted(float(x) for c in ax.collections for x, _ in c.get_offsets()) == [0.01, 2.0]
    assert any("not shown (cost unknown): self-hosted" in t.get_text() for t in fig.texts)


def test_large_suites_get_a_histogram_of_tool_calls(runs: dict[str, Path], tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    from mcp_persona.report import plots

    monkeypatch.setattr(plots, "MAX_TASK_BARS", 2)
    fig = plots.tool_calls(load_runs([runs["reference"], runs["model"]]))
    assert fig.axes[0].get_xlabel() == "tool calls per task"
    save(fig, tmp_path, "hist", ("svg",))
    check_svg(tmp_path / "hist.svg")


def test_pareto_frontier() -> None:
    pts = [(10.0, 50.0), (5.0, 40.0), (20.0, 45.0), (30.0, 90.0), (5.0, 30.0), (1.0, 40.0)]
    assert pareto_frontier(pts) == [5, 0, 3]


# -- compare ----------------------------------------------------------------------------------------
def test_compare_lists_regressions_first(runs: dict[str, Path]) -> None:
    noop, model, ref = (load_run(runs[k]) for k in ("noop", "model", "reference"))
    cmp = compare_runs(noop, model)
    changes = [t.change for t in cmp.tasks]
    assert changes == sorted(changes, key=["regression", "improvement", "only_a", "only_b", "unchanged"].index)
    assert [t.task_id for t in cmp.regressions] == ["lark_003"]  # same Acc 0, but ok → error
    assert cmp.regressions[0].b.status == "error" and cmp.regressions[0].a.status == "ok"
    improved = [t.task_id for t in cmp.improvements]
    assert "lark_001" in improved and "lark_002" in improved
    deltas = [t.delta for t in cmp.improvements]
    assert deltas == sorted(deltas, reverse=True)  # largest gain first
    down = compare_runs(ref, noop)
    assert len(down.regressions) == LIMIT and not down.improvements
    assert all(t.delta == -1.0 for t in down.regressions)
    assert not compare_runs(ref, ref).regressions and not compare_runs(ref, ref).improvements


def test_cli_compare_json_and_exit_code(runs: dict[str, Path]) -> None:
    code, out = invoke("compare", str(runs["noop"]), str(runs["model"]), "--json")
    assert code == 0, out
    data = json.loads(out)
    assert data["tasks"][0]["change"] == "regression" and data["tasks"][0]["task_id"] == "lark_003"
    assert data["counts"]["regression"] == 1 and data["metrics"]["acc"]["delta"] > 0
    assert data["primary"] == {"label": "Acc", "key": "acc"} and data["difference"]["delta"] > 0
    code, out = invoke("compare", str(runs["noop"]), str(runs["model"]))
    assert code == 0 and "1 regression, 2 improvements" in out and out.index("regression") < out.index("improvement")
    code, _ = invoke("compare", str(runs["reference"]), str(runs["noop"]), "--fail-on-regression")
    assert code == 1
    code, _ = invoke("compare", str(runs["noop"]), str(runs["reference"]), "--fail-on-regression")
    assert code == 0


# -- in a browser ------------------------------------------------------------------------------------
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
# Placed right after the CSP meta tag of a copy of the page: records every fetch the page starts and every
# request the policy blocks, into attributes that --dump-dom shows.
PROBE = """<script>
(function () {
  const seen = [];
  document.addEventListener("securitypolicyviolation", (e) => seen.push(e.blockedURI || e.violatedDirective));
  window.addEventListener("load", () => setTimeout(() => {
    const fetched = performance.getEntriesByType("resource").map((r) => r.name).filter((n) => !n.startsWith("data:"));
    document.documentElement.setAttribute("data-fetched", JSON.stringify(fetched));
    document.documentElement.setAttribute("data-blocked", JSON.stringify(seen));
  }, 0));
})();
</script>"""


def dump_dom(html_path: Path, profile: Path, fragment: str = "") -> str:
    assert CHROMIUM is not None
    cmd = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
           "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-extensions",
           f"--user-data-dir={profile}", '--host-resolver-rules=MAP * ~NOTFOUND', "--virtual-time-budget=5000",
           "--dump-dom", html_path.as_uri() + fragment]
    env = {k: v for k, v in os.environ.items() if not k.startswith(("http_proxy", "https_proxy", "HTTP", "ALL"))}
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=120, env=env, check=False)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return proc.stdout


@pytest.mark.slow
@pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed (apt-get install chromium); CI installs it")
def test_the_page_renders_in_chromium_without_any_request(runs: dict[str, Path], tmp_path: Path) -> None:
    loaded = load_runs([runs["reference"], runs["noop"], runs["model"]])
    html = render_html(loaded)
    meta = re.search(r'<meta http-equiv="Content-Security-Policy" content="[^"]*">', html)
    assert meta is not None and parse(html).csp == CSP
    meta = meta.group(0)
    page = tmp_path / "report.html"
    page.write_text(html.replace(meta, meta + PROBE), encoding="utf-8")
    # the model run is run 2; lark_002 holds the hostile tool name and the markup in its answer
    dom = dump_dom(page, tmp_path / "profile", "#ep=2:lark_002:0")
    assert 'data-ready="1"' in dom, dom[-3000:]
    assert 'data-fetched="[]"' in dom and 'data-blocked="[]"' in dom
    lb = parse(dom)
    assert [label_cell(r[1]) for r in lb.rows] == ["reference", "scripted-test", "noop"]
    rows = re.findall(r'<tr data-index="\d+"', dom)
    assert len(rows) == 3 * LIMIT
    view = dom[dom.index('<div id="trajectory">'):]
    assert 'data-task="lark_002"' in view
    instruction = next(t for t in load_tasks("persona") if t.id == "lark_002").instruction
    from html import escape

    assert escape(instruction, quote=False) in view
    assert "&lt;/script&gt;&lt;img src=https://example.invalid/p.png&gt;" in view  # text, never markup
    assert "<img src=" not in view and "<b>bold</b>" not in view
    assert 'class="event tool err"' in view and "State diff" in view and "no state change" in view
    assert "Checks" in view and "GT values" in view  # a checkpoint's verdict and its reason
    summary = next(t for t in load_tasks("persona") if t.id == "lark_002").spec.checkpoints[0].summary
    assert escape(summary, quote=False) in view
    # the first episode opens by default; a state change is listed
    dom = dump_dom(page, tmp_path / "profile2")
    view = dom[dom.index('<div id="trajectory">'):]
    assert 'data-task="lark_001"' in view and "lark: create" in view


def test_trials_are_averaged_per_task_and_same_labels_told_apart(runs: dict[str, Path], tmp_path: Path) -> None:
    twice = tmp_path / "twice"
    shutil.copytree(runs["reference"], twice)
    db = sqlite3.connect(twice / "run.sqlite")
    for task_id, cat, text in db.execute("SELECT task_id, category, record FROM episodes").fetchall():
        rec = json.loads(text)
        score = rec["score"]  # a second, worse trial
        rec |= {"epoch": 1, "score": score | {"values": {**score["values"], "acc": 0.5},
                                              "detail": {**score["detail"], "acc": 0.5}}}
        db.execute("INSERT INTO episodes (task_id, epoch, category, status, score_values, record, finished_at) "
                   "VALUES (?, 1, ?, 'ok', ?, ?, 0)", (task_id, cat, json.dumps(rec["score"]["values"]),
                                                        json.dumps(rec)))
    db.commit()
    db.close()
    ref, again = load_runs([runs["reference"], twice])
    assert ref.label == f"reference ({runs['reference'].name})" and again.label == "reference (twice)"
    assert len(again.episodes) == 2 * LIMIT and {e.key.split("#")[1] for e in again.episodes} == {"0", "1"}
    assert any("lists 4 episodes, the store holds 8" in n for n in again.notes)
    cmp = compare_runs(ref, again)
    assert len(cmp.regressions) == LIMIT
    assert all(t.b.score == 0.75 and t.b.trials == 2 for t in cmp.regressions)
    data = json.loads(re.search(r'id="report-data">(.*?)</script>', render_html([ref, again], figures=False),
                                re.S).group(1))
    assert sorted({(e["run"], e["epoch"]) for e in data["episodes"]}) == [(0, 0), (1, 0), (1, 1)]


def test_report_command_draws_the_runs_failure_modes(runs: dict[str, Path], tmp_path: Path) -> None:
    code, text = invoke("report", str(runs["reference"]), str(runs["noop"]), "--plots", str(tmp_path / "p"))
    assert code == 0, text
    svg = (tmp_path / "p" / "failure_modes.svg").read_text()
    assert "overconfident_self_solving" in svg  # the noop run's failures, classified by the rules
    noop = load_runs([runs["noop"]])[0]
    assert noop.failure_modes["overconfident_self_solving"] == 4 and sum(noop.failure_modes.values()) == 4


# -- other protocols: the report shows the scores the run's protocol declares ----------------------
PERSONA_COLUMNS = ("| Acc |", "| SR-0.8 |", "| Exec-Acc |", "| Strict |")


@pytest.fixture(scope="module")
def protocol_runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("protocol-runs")
    out = {}
    # livemcpbench: tasks on simulated servers only, so the report needs no real server installed
    for suite, tasks in (("mcpagentbench", "day_single_0[12]"), ("livemcpbench", "shopping_cheaper_stay_[12]")):
        code, text = invoke("run", "--suite", suite, "--agent", "reference", "--tasks", tasks,
                            "--run-dir", str(root / suite))
        assert code == 0, text
        out[suite] = root / suite
    return out


@pytest.mark.parametrize(("suite", "labels", "group"), [
    ("mcpagentbench", ["TFS", "TEFS", "TFS-paper", "TEFS-paper", "TFS-outcome", "TEFS-outcome"], "type"),
    ("livemcpbench", ["Success", "Rule success", "Judge success"], "domain"),
])
def test_reports_show_the_protocols_columns(protocol_runs: dict[str, Path], suite: str, labels: list[str],
                                            group: str) -> None:
    run = load_run(protocol_runs[suite])
    assert run.protocol.name == suite and [c[0] for c in run.columns] == labels
    md = render_markdown([run])
    lines = md.splitlines()
    table = lines[lines.index("## Leaderboard") + 2:]
    assert table[0].startswith("| Run | Episodes | " + " | ".join(labels) + " | Tokens in/task |")
    assert table[2].startswith("| reference | 2 | 100.0 | 100.0 |")
    assert not any(c in md for c in PERSONA_COLUMNS) and "## Acc by" not in md and "Exec-Acc" not in md
    assert f"## {labels[0]} by {group}" in md
    assert "## Efficiency" in md  # livemcpbench: steps, tools, calls, cost; mcpagentbench: score per 1k tokens, minute
    if suite == "livemcpbench":
        eff = lines[lines.index("## Efficiency") + 4:]
        assert eff[0] == "| Run | Steps/task | Tools/task | Execute calls/task | Route calls/task | Cost |"
        assert eff[2].startswith("| reference | ")

    html = render_html([run], figures=False)
    page = parse(html)
    assert_offline(html, page)
    (row,) = page.rows
    assert label_cell(row[1]) == "reference" and row[3] == "100.0"
    heads = re.findall(r'<th class="num sortable" data-col="\d+" data-type="num" title="[^"]*">([^<]*)</th>', html)
    assert heads[1:1 + len(labels)] == labels and not {"Acc", "SR-0.8", "Exec-Acc", "Strict"} & set(heads)


def test_mixed_protocols_get_a_leaderboard_each_and_the_plot_their_primary_score(
        protocol_runs: dict[str, Path], runs: dict[str, Path], tmp_path: Path) -> None:
    loaded = load_runs([runs["reference"], protocol_runs["mcpagentbench"], protocol_runs["livemcpbench"]])
    md = render_markdown(loaded)
    for title, first in (("MCP-Persona", "Acc"), ("MCPAgentBench", "TFS"), ("LiveMCPBench", "Success")):
        lines = md.splitlines()
        table = lines[lines.index(f"## Leaderboard · {title}") + 2:]
        assert table[0].startswith(f"| Run | Episodes | {first} |")
    html = render_html(loaded, figures=False)
    assert all(f'id="{i}"' in html for i in ("leaderboard", "leaderboard-mcpagentbench", "leaderboard-livemcpbench"))

    from mcp_persona.report.plots import categories, cost_accuracy
    for run, label in ((loaded[1], "TFS"), (loaded[2], "Success")):
        ax = cost_accuracy([run]).axes[0]
        assert ax.get_ylabel() == f"{label} (%)"
        assert [float(y) for c in ax.collections for _, y in c.get_offsets()] == [100.0]
        assert categories([run]).axes[0].get_title().startswith(f"{label} by ")


def test_cost_is_drawn_on_a_log_axis_when_it_spans_orders_of_magnitude(monkeypatch: pytest.MonkeyPatch) -> None:
    from types import SimpleNamespace

    from mcp_persona.report import plots

    runs = [SimpleNamespace(metrics={"acc": a}, primary=("Acc", "acc"), label=n)
            for n, a in (("small", 0.2), ("large", 0.9))]
    monkeypatch.setattr(plots, "cost_axis", lambda _runs: ("cost", [0.01, 4.0]))
    ax = plots.cost_accuracy(runs).axes[0]  # type: ignore[arg-type]
    assert ax.get_xscale() == "log" and "log scale" in ax.get_xlabel()
    monkeypatch.setattr(plots, "cost_axis", lambda _runs: ("tokens", [0.0, 4000.0]))
    assert plots.cost_accuracy(runs).axes[0].get_xscale() == "linear"  # type: ignore[arg-type]


def test_livemcp101_figures_tsr_vs_ars_and_a_correct_column(tmp_path: Path) -> None:
    from mcp_persona.cli.report import failure_counts
    from mcp_persona.report import plots

    for agent in ("reference", "noop"):
        code, text = invoke("run", "--suite", "livemcp101", "--agent", agent, "--tasks", "finance_easy_0[12]",
                            "--run-dir", str(tmp_path / agent))
        assert code == 0, text
    runs = load_runs([tmp_path / "reference", tmp_path / "noop"])
    counts = failure_counts(runs)
    assert counts is not None
    ref, noop = (counts[r.label] for r in runs)
    assert ref["correct"] == 2 and noop["correct"] == 0 and sum(v for k, v in noop.items() if k != "correct") == 2
    assert next(iter(noop)) == "correct"  # the first column, as the paper's heatmap
    made = plots.figures(runs, counts)
    assert "tsr_ars" in made and made["tsr_ars"].axes[0].get_xlabel() == "TSR (%)"


def test_reports_show_the_intervals_of_the_headline_scores(runs: dict[str, Path]) -> None:
    loaded = load_runs([runs["reference"], runs["noop"]])
    md = render_markdown(loaded)
    block = md[md.index("## 95 % intervals"):]
    assert "| reference | Acc | 100.0 | 100.0–100.0 |" in block and "| noop | Acc | 0.0 | 0.0–0.0 |" in block
    assert 'title="95 % interval 100.0–100.0"' in render_html(loaded, figures=False)


def test_an_unfinished_run_reports_its_own_protocols_scores(tmp_path: Path) -> None:
    code, text = invoke("run", "--suite", "livemcp101", "--agent", "reference", "--tasks", "finance_easy_0[12]",
                        "--run-dir", str(tmp_path / "run"))
    assert code == 0, text
    (tmp_path / "run" / "summary.json").unlink()  # as a killed run leaves it
    run = load_runs([tmp_path / "run"])[0]
    assert run.metrics["tsr"] == 1.0 and run.metrics["ars"] == 1.0
    assert "| reference | 2 | 100.0 | 100.0 |" in render_markdown([run])  # TSR, ARS; the label has no defaults


# -- the episode view's verdict, per protocol -------------------------------------------------------
@pytest.mark.parametrize(("suite", "task", "scores", "why"), [
    ("livemcp101", "finance_easy_01", [["TSR", 0.0], ["ARS", 0.0], ["ATS", None]], "result score 0.0 (rules)"),
    ("mcpagentbench", "day_parallel_01", None, "gold call not made (arguments rule)"),
    ("livemcpbench", "finance_stock_gap_1", None, "answer check failed"),
])
def test_episode_view_shows_the_protocols_verdict_and_why(tmp_path: Path, suite: str, task: str,
                                                          scores: list[list[Any]] | None, why: str) -> None:
    """A failed episode shows its protocol's own scores (not a persona Acc) and the reasons that decided it."""
    from mcp_persona.report.html import report_data

    runner = CliRunner(env={"COLUMNS": "250"})
    for agent in ("noop", "reference"):
        result = runner.invoke(app, ["run", "--suite", suite, "--agent", agent, "--tasks", task,
                                     "--run-dir", str(tmp_path / agent)])
        assert result.exit_code == 0, result.output
    data = report_data(load_runs([tmp_path / "noop", tmp_path / "reference"]))
    failed, passed = data["episodes"]
    labels = [label for label, _, _ in get_protocol(suite).report_columns]
    assert [label for label, _ in failed["scores"]] == labels
    if scores is not None:
        assert failed["scores"] == scores
    assert failed["primary"] == 0.0 and not failed["passed"]
    assert any(why in line for line in failed["why"]), failed["why"]
    assert passed["primary"] == 1.0 and passed["passed"]
    if suite != "livemcp101":  # LiveMCP-101 keeps persona's strict pass beside its own scores
        assert failed["strict"] is None is passed["strict"]
