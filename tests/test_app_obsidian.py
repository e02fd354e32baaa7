"""The Obsidian app through the real MCP path: every tool's success path and its rejections."""

from __future__ import annotations

import json
from datetime import date, datetime
from typing import Any

import pytest

from app_harness import CLOCK, AppHarness
from app_harness import result_text as text
from mcp_persona.apps import get_app
from mcp_persona.apps.base import AppEnv
from mcp_persona.apps.obsidian.tools import dump_yaml, moment_format, note_tags, parse_yaml
from mcp_persona.clock import TaskClock

APP = get_app("obsidian")
FIRST_WRITE_MS = (CLOCK.timestamp() + 1) * 1000  # env.now() of the first write of an episode, in ms

H = AppHarness(APP, context="chen_yu")
make_env, call, ok, ok_json, changes = H.env, H.call, H.ok, H.ok_json, H.diff
env = H.env_fixture()


def note(env: AppEnv, path: str) -> dict[str, Any]:
    return env.tree.data["notes"][path]


# -- contexts --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("context", ["chen_yu", "lin_wei", "maya_patel"])
def test_context_loads_and_is_consistent(context: str) -> None:
    assert context in APP.context_ids()
    data = APP.load_context(context)
    assert {"context_id", "description", "vault_name", "periodic_notes", "notes"} <= set(data)
    assert data["context_id"] == context
    assert 12 <= len(data["notes"]) <= 25
    for path, n in data["notes"].items():
        assert n["path"] == path
        assert n["tags"] == note_tags(n["content"]), path
        assert n["ctime"] <= n["mtime"] <= CLOCK.timestamp() * 1000, path


@pytest.mark.parametrize(
    ("context", "daily", "weekly"),
    [
        ("chen_yu", "Daily/2026-03-10.md", "Weekly/2026-W11.md"),
        ("lin_wei", "Journal/2026/03/2026-03-10.md", "Journal/Weekly/2026-W11.md"),
        ("maya_patel", "Daily Notes/2026-03-10.md", None),
    ],
)
@pytest.mark.anyio
async def test_every_context_has_todays_periodic_notes(context: str, daily: str, weekly: str | None) -> None:
    env = make_env(context)
    meta = await ok_json(env, "obsidian_get_periodic_note", {"period": "daily", "type": "metadata"})
    assert meta["path"] == daily
    if weekly:
        meta = await ok_json(env, "obsidian_get_periodic_note", {"period": "weekly", "type": "metadata"})
        assert meta["path"] == weekly


# -- helpers with their own rules ------------------------------------------------------------------------
def test_moment_format_tokens() -> None:
    d = date(2026, 3, 10)
    assert moment_format("YYYY-MM-DD", d) == "2026-03-10"
    assert moment_format("YYYY/MM/YYYY-MM-DD", d) == "2026/03/2026-03-10"
    assert moment_format("GGGG-[W]WW", d) == "2026-W11"
    assert moment_format("gggg-[W]ww", d) == "2026-W11"  # en locale: weeks start on Sunday
    assert moment_format("YYYY-MM MMMM", d) == "2026-03 March"
    assert moment_format("YYYY-[Q]Q", d) == "2026-Q1"
    assert moment_format("dddd, MMMM D", d) == "Tuesday, March 10"
    assert moment_format("GGGG-[W]WW", date(2027, 1, 1)) == "2026-W53"  # ISO week-year differs from the year
    assert moment_format("gggg-[W]ww", date(2026, 12, 28)) == "2027-W01"  # the week holding Jan 1 is week 1


def test_yaml_subset_round_trip() -> None:
    fm = parse_yaml('status: in-progress\nbudget: 180000\nratio: 0.5\ndone: false\nnothing: ~\n'
                    'tags: [a, "b c"]\nitems:\n  - x\n  - 2\nmeta:\n  k: v\ntitle: "A: B"\n')
    assert fm == {"status": "in-progress", "budget": 180000, "ratio": 0.5, "done": False, "nothing": None,
                  "tags": ["a", "b c"], "items": ["x", 2], "meta": {"k": "v"}, "title": "A: B"}
    assert parse_yaml(dump_yaml(fm)) == fm
    assert dump_yaml({"when": "2026-03-25", "n": "42", "s": ""}) == 'when: 2026-03-25\nn: "42"\ns: ""'
    with pytest.raises(ValueError):
        parse_yaml("date: {{date}}")


def test_note_tags_rules() -> None:
    content = ("---\ntags: [project, '#work']\n---\n# Title #notatag\nText #inline and #nested/tag, #2026 "
               "is a number, a#b is not a tag.\n```\n#incode\n```\n`#alsocode` #project\n")
    assert note_tags(content) == ["project", "work", "notatag", "inline", "nested/tag"]
    assert note_tags("---\ntags: single\n---\nbody") == []  # only a frontmatter *list* counts


# -- listing ---------------------------------------------------------------------------------------------
@pytest.mark.anyio
async def test_list_files_in_vault(env: AppEnv) -> None:
    before = env.tree.hash()
    listing = await ok_json(env, "obsidian_list_files_in_vault", {})
    assert listing == ["Areas/", "Daily/", "Home.md", "Ideas/", "Inbox.md", "Meetings/", "Monthly/", "People/",
                       "Projects/", "Reading List.md", "Templates/", "Weekly/"]
    assert env.tree.hash() == before


@pytest.mark.anyio
async def test_list_files_in_dir() -> None:
    env = make_env("lin_wei")
    assert await ok_json(env, "obsidian_list_files_in_dir", {"dirpath": "Journal"}) == ["2026/", "Weekly/"]
    expected = ["2026-03-06.md", "2026-03-09.md", "2026-03-10.md"]
    assert await ok_json(env, "obsidian_list_files_in_dir", {"dirpath": "Journal/2026/03"}) == expected
    assert await ok_json(env, "obsidian_list_files_in_dir", {"dirpath": "/Journal/2026/03/"}) == expected
    assert await ok_json(env, "obsidian_list_files_in_dir", {"dirpath": "/"}) == await ok_json(
        env, "obsidian_list_files_in_vault", {})


# -- reading ---------------------------------------------------------------------------------------------
@pytest.mark.anyio
async def test_get_file_contents_returns_the_note_as_a_json_string(env: AppEnv) -> None:
    raw = await ok(env, "obsidian_get_file_contents", {"filepath": "Inbox.md"})
    assert raw.startswith('"# Inbox\\n')  # the real server json.dumps the text
    assert json.loads(raw) == note(env, "Inbox.md")["content"]
    assert json.loads(await ok(env, "obsidian_get_file_contents", {"filepath": "/Inbox.md"})) == json.loads(raw)


@pytest.mark.anyio
async def test_batch_get_file_contents_reports_missing_files_inline(env: AppEnv) -> None:
    before = env.tree.hash()
    out = await ok(env, "obsidian_batch_get_file_contents", {"filepaths": ["Inbox.md", "Nope.md", "Daily"]})
    inbox = note(env, "Inbox.md")["content"]
    assert out == (
        f"# Inbox.md\n\n{inbox}\n\n---\n\n"
        "# Nope.md\n\nError reading file: Error 40400: Not Found\nFile does not exist: Nope.md\n\n---\n\n"
        "# Daily\n\nError reading file: Error 40510: Request method is valid only for file paths, not "
        "directories.\n'Daily' is a directory, not a file\n\n---\n\n"
    )
    assert env.tree.hash() == before


@pytest.mark.anyio
async def test_get_frontmatter(env: AppEnv) -> None:
    fm = await ok_json(env, "obsidian_get_frontmatter", {"filepath": "Projects/Spring Campaign 2026.md"})
    assert fm == {"status": "in-progress", "owner": "Chen Yu", "sponsor": "Song Ke", "launch": "2026-03-25",
                  "budget_cny": 180000, "tags": ["project", "campaign/spring"]}
    assert await ok_json(env, "obsidian_get_frontmatter", {"filepath": "Inbox.md"}) == {}


# -- search ----------------------------------------------------------------------------------------------
@pytest.mark.anyio
async def test_simple_search_requires_every_word(env: AppEnv) -> None:
    hits = await ok_json(env, "obsidian_simple_search", {"query": "Lumen POSTERS", "context_length": 10})
    files = [h["filename"] for h in hits]
    assert "Projects/Lumen Retail partnership.md" in files
    assert "Daily/2026-03-10.md" in files
    for h in hits:
        content = note(env, h["filename"])["content"]
        assert "lumen" in content.lower() and "posters" in content.lower()
        assert h["score"] == -len(h["matches"])
        for m in h["matches"]:
            start, end = m["match_position"]["start"], m["match_position"]["end"]
            assert content[start:end].lower() in ("lumen", "posters")
            assert m["context"] == content[max(start - 10, 0): end + 10]
    assert [h["score"] for h in hits] == sorted(h["score"] for h in hits)
    every = await ok_json(env, "obsidian_simple_search", {"query": "lumen"})
    assert {h["filename"] for h in every} > set(files) - {""}
    assert all(not h["filename"].startswith("Templates") for h in every)
    exact = await ok_json(env, "obsidian_simple_search", {"query": "livestream", "context_length": 0})
    assert exact == [{"filename": "Projects/Spring Campaign 2026.md", "score": -1,
                      "matches": [{"context": "livestream", "match_position": exact[0]["matches"][0]
                                   ["match_position"]}]}]
    assert await ok_json(env, "obsidian_simple_search", {"query": "zebra crossing"}) == []


@pytest.mark.anyio
async def test_complex_search(env: AppEnv) -> None:
    def files(hits: list[dict[str, Any]]) -> list[str]:
        return [h["filename"] for h in hits]

    q: dict[str, Any] = {"glob": ["Meetings/*.md", {"var": "path"}]}
    assert files(await ok_json(env, "obsidian_complex_search", {"query": q})) == [
        "Meetings/2026-03-03 Spring campaign kickoff.md", "Meetings/2026-03-05 1-1 Song Ke.md",
        "Meetings/2026-03-09 Spring campaign status.md"]
    everything = await ok_json(env, "obsidian_complex_search", {"query": {"glob": ["*.md", {"var": "path"}]}})
    assert len(everything) == len(env.tree.data["notes"])  # '*' crosses folders
    assert everything[0] == {"filename": "Areas/Q1 marketing budget.md", "result": True}
    q = {"and": [{"in": ["campaign/spring", {"var": "tags"}]}, {"regexp": ["200 printed", {"var": "content"}]}]}
    assert files(await ok_json(env, "obsidian_complex_search", {"query": q})) == [
        "Meetings/2026-03-09 Spring campaign status.md", "Projects/Spring Campaign 2026.md"]
    q = {"or": [{"==": [{"var": "frontmatter.status"}, "active"]}, {"in": ["web", {"var": "tags"}]}]}
    assert files(await ok_json(env, "obsidian_complex_search", {"query": q})) == [
        "Projects/Landing page revamp.md", "Projects/Lumen Retail partnership.md"]
    since_today = int(CLOCK.at(CLOCK.today(), 0).timestamp() * 1000)
    q = {">=": [{"var": "stat.mtime"}, since_today]}
    assert files(await ok_json(env, "obsidian_complex_search", {"query": q})) == ["Daily/2026-03-10.md"]
    q = {"var": "frontmatter.owner"}  # non-boolean results are returned as they are
    hits = await ok_json(env, "obsidian_complex_search", {"query": q})
    assert {"filename": "Projects/Lumen Retail partnership.md", "result": "Wang Fang"} in hits
    q = {"some": [{"var": "tags"}, {"glob": ["campaign*", {"var": ""}]}]}
    assert len(await ok_json(env, "obsidian_complex_search", {"query": q})) == 4


@pytest.mark.anyio
async def test_search_by_tag(env: AppEnv) -> None:
    assert await ok_json(env, "obsidian_search_by_tag", {"tag": "partner"}) == [
        "Daily/2026-03-09.md", "Ideas/Content ideas.md", "Projects/Lumen Retail partnership.md"]
    assert await ok_json(env, "obsidian_search_by_tag", {"tag": "partner", "dirpath": "Projects"}) == [
        "Projects/Lumen Retail partnership.md"]
    assert await ok_json(env, "obsidian_search_by_tag", {"tag": "campaign"}) == []  # hierarchical: exact only
    assert len(await ok_json(env, "obsidian_search_by_tag", {"tag": "campaign/spring"})) == 4
    assert await ok_json(env, "obsidian_search_by_tag", {"tag": "partner", "dirpath": "Archive"}) == []


# -- periodic notes and recent changes --------------------------------------------------------------------
@pytest.mark.anyio
async def test_get_periodic_note(env: AppEnv) -> None:
    daily = await ok(env, "obsidian_get_periodic_note", {"period": "daily"})
    assert daily == note(env, "Daily/2026-03-10.md")["content"]  # raw markdown, not JSON
    meta = await ok_json(env, "obsidian_get_periodic_note", {"period": "weekly", "type": "metadata"})
    weekly = note(env, "Weekly/2026-W11.md")
    assert meta == {"tags": ["weekly"], "frontmatter": {"week": "2026-W11", "tags": ["weekly"]},
                    "stat": {"ctime": weekly["ctime"], "mtime": weekly["mtime"],
                             "size": len(weekly["content"].encode())},
                    "path": "Weekly/2026-W11.md", "content": weekly["content"]}
    monthly = await ok_json(env, "obsidian_get_periodic_note", {"period": "monthly", "type": "metadata"})
    assert monthly["path"] == "Monthly/2026-03.md"
    maya = make_env("maya_patel")
    quarterly = await ok_json(maya, "obsidian_get_periodic_note", {"period": "quarterly", "type": "metadata"})
    assert quarterly["path"] == "Planning/2026-Q1.md"
    monthly = await ok_json(maya, "obsidian_get_periodic_note", {"period": "monthly", "type": "metadata"})
    assert monthly["path"] == "Planning/2026-03 March.md"


@pytest.mark.anyio
async def test_get_periodic_note_follows_the_task_clock() -> None:
    env = make_env(clock=TaskClock(now=datetime(2026, 3, 9, 23, 0), timezone="Asia/Shanghai"))
    meta = await ok_json(env, "obsidian_get_periodic_note", {"period": "daily", "type": "metadata"})
    assert meta["path"] == "Daily/2026-03-09.md"
    env = make_env(clock=TaskClock(now=datetime(2026, 3, 8, 12, 0), timezone="Asia/Shanghai"))
    meta = await ok_json(env, "obsidian_get_periodic_note", {"period": "weekly", "type": "metadata"})
    assert meta["path"] == "Weekly/2026-W10.md"  # Sunday still belongs to ISO week 10


@pytest.mark.anyio
async def test_get_recent_periodic_notes(env: AppEnv) -> None:
    notes = await ok_json(env, "obsidian_get_recent_periodic_notes", {"period": "daily"})
    assert [n["path"] for n in notes] == ["Daily/2026-03-10.md", "Daily/2026-03-09.md", "Daily/2026-03-06.md"]
    assert set(notes[0]) == {"path", "ctime", "mtime"}
    two = await ok_json(env, "obsidian_get_recent_periodic_notes",
                        {"period": "weekly", "limit": 1, "include_content": True})
    assert two == [{"path": "Weekly/2026-W11.md", "ctime": note(env, "Weekly/2026-W11.md")["ctime"],
                    "mtime": note(env, "Weekly/2026-W11.md")["mtime"],
                    "content": note(env, "Weekly/2026-W11.md")["content"]}]
    lin = await ok_json(make_env("lin_wei"), "obsidian_get_recent_periodic_notes", {"period": "daily", "limit": 2})
    assert [n["path"] for n in lin] == ["Journal/2026/03/2026-03-10.md", "Journal/2026/03/2026-03-09.md"]


@pytest.mark.anyio
async def test_get_recent_changes(env: AppEnv) -> None:
    recent = await ok_json(env, "obsidian_get_recent_changes", {"limit": 3})
    assert recent == [
        {"filename": "Daily/2026-03-10.md", "result": {"file.mtime": "2026-03-10T09:05:00.000+08:00"}},
        {"filename": "Inbox.md", "result": {"file.mtime": "2026-03-09T21:40:00.000+08:00"}},
        {"filename": "Projects/Lumen Retail partnership.md", "result": {"file.mtime": "2026-03-09T19:25:00.000+08:00"}},
    ]
    one_day = await ok_json(env, "obsidian_get_recent_changes", {"limit": 100, "days": 1})
    cutoff = int(CLOCK.at(date(2026, 3, 9), 0).timestamp() * 1000)
    expected = sorted((n for n in env.tree.data["notes"].values() if n["mtime"] >= cutoff),
                      key=lambda n: -n["mtime"])
    assert [r["filename"] for r in one_day] == [n["path"] for n in expected]
    assert len(await ok_json(env, "obsidian_get_recent_changes", {})) == 10
    everything = await ok_json(env, "obsidian_get_recent_changes", {"limit": 100, "days": 3650})
    default = await ok_json(env, "obsidian_get_recent_changes", {"limit": 100})
    assert len(default) < len(everything)  # the 90-day default leaves the old templates out
    await ok(env, "obsidian_append_content", {"filepath": "People/Zhao Min.md", "content": "- Met on Wednesday"})
    top = await ok_json(env, "obsidian_get_recent_changes", {"limit": 1})
    assert top == [{"filename": "People/Zhao Min.md", "result": {"file.mtime": "2026-03-10T09:30:01.000+08:00"}}]


# -- writing ---------------------------------------------------------------------------------------------
@pytest.mark.anyio
async def test_append_content_to_an_existing_note(env: AppEnv) -> None:
    before = env.tree.snapshot()
    old = dict(note(env, "Inbox.md"))
    out = await ok(env, "obsidian_append_content", {"filepath": "Inbox.md", "content": "- Call the print vendor #todo"})
    assert out == "Successfully appended content to Inbox.md"
    new = note(env, "Inbox.md")
    assert new["content"] == old["content"] + "- Call the print vendor #todo"
    assert new["tags"] == ["idea", "todo"]
    assert new["mtime"] == FIRST_WRITE_MS and new["ctime"] == old["ctime"]
    assert changes(env, before) == [("modify", "notes[Inbox.md]", ("content", "mtime", "tags"))]


@pytest.mark.anyio
async def test_append_content_adds_a_newline_and_creates_missing_files(env: AppEnv) -> None:
    await ok(env, "obsidian_put_content", {"filepath": "Scratch.md", "content": "first line"})
    await ok(env, "obsidian_append_content", {"filepath": "Scratch.md", "content": "second line\n"})
    assert note(env, "Scratch.md")["content"] == "first line\nsecond line\n"
    before = env.tree.snapshot()
    out = await ok(env, "obsidian_append_content", {"filepath": "Archive/2026/Old ideas.md", "content": "# Old"})
    assert out == "Successfully appended content to Archive/2026/Old ideas.md"
    created = note(env, "Archive/2026/Old ideas.md")
    assert created == {"path": "Archive/2026/Old ideas.md", "content": "# Old", "tags": [],
                       "ctime": FIRST_WRITE_MS + 2000, "mtime": FIRST_WRITE_MS + 2000}
    assert changes(env, before) == [("create", "notes[Archive/2026/Old ideas.md]", ())]
    assert "Archive/" in await ok_json(env, "obsidian_list_files_in_vault", {})


@pytest.mark.anyio
async def test_put_content_creates_and_overwrites(env: AppEnv) -> None:
    before = env.tree.snapshot()
    body = "---\ntags: [meeting]\n---\n# Creative review\n\n## Decisions\n- Poster v2 approved #campaign/spring\n"
    out = await ok(env, "obsidian_put_content", {"filepath": "Meetings/2026-03-11 Creative review.md",
                                                 "content": body})
    assert out == "Successfully uploaded content to Meetings/2026-03-11 Creative review.md"
    assert note(env, "Meetings/2026-03-11 Creative review.md") == {
        "path": "Meetings/2026-03-11 Creative review.md", "content": body, "tags": ["meeting", "campaign/spring"],
        "ctime": FIRST_WRITE_MS, "mtime": FIRST_WRITE_MS}
    assert changes(env, before) == [("create", "notes[Meetings/2026-03-11 Creative review.md]", ())]
    before = env.tree.snapshot()
    await ok(env, "obsidian_put_content", {"filepath": "Inbox.md", "content": "# Inbox\n"})
    assert note(env, "Inbox.md")["content"] == "# Inbox\n"
    assert note(env, "Inbox.md")["tags"] == []
    assert changes(env, before) == [("modify", "notes[Inbox.md]", ("content", "mtime", "tags"))]


@pytest.mark.anyio
async def test_delete_file(env: AppEnv) -> None:
    before = env.tree.snapshot()
    out = await ok(env, "obsidian_delete_file", {"filepath": "Inbox.md", "confirm": True})
    assert out == "Successfully deleted Inbox.md"
    assert "Inbox.md" not in env.tree.data["notes"]
    assert changes(env, before) == [("delete", "notes[Inbox.md]", ())]
    await ok(env, "obsidian_delete_file", {"filepath": "Templates/Daily.md", "confirm": True})
    await ok(env, "obsidian_delete_file", {"filepath": "Templates/Weekly.md", "confirm": True})
    assert "Templates/" not in await ok_json(env, "obsidian_list_files_in_vault", {})  # folders are implied


# -- patching --------------------------------------------------------------------------------------------
async def patch(env: AppEnv, filepath: str, operation: str, target_type: str, target: str, content: str) -> str:
    return await ok(env, "obsidian_patch_content", {"filepath": filepath, "operation": operation,
                                                    "target_type": target_type, "target": target,
                                                    "content": content})


@pytest.mark.anyio
async def test_patch_heading_append_goes_after_the_last_line_of_the_section(env: AppEnv) -> None:
    before = env.tree.snapshot()
    old = note(env, "Daily/2026-03-10.md")["content"]
    out = await patch(env, "Daily/2026-03-10.md", "append", "heading", "Tuesday, March 10::Tasks",
                      "- [ ] Send the Q1 summary to Song Ke")
    assert out == "Successfully patched content in Daily/2026-03-10.md"
    anchor = "- [ ] Book a meeting room for the creative review\n"
    assert note(env, "Daily/2026-03-10.md")["content"] == old.replace(
        anchor, anchor + "- [ ] Send the Q1 summary to Song Ke\n")
    assert note(env, "Daily/2026-03-10.md")["mtime"] == FIRST_WRITE_MS
    assert changes(env, before) == [("modify", "notes[Daily/2026-03-10.md]", ("content", "mtime"))]


@pytest.mark.anyio
async def test_patch_heading_bare_name_empty_section_prepend_and_replace(env: AppEnv) -> None:
    path = "Weekly/2026-W11.md"
    old = note(env, path)["content"]
    await patch(env, path, "append", "heading", "notes", "- Poster v2 approved")  # bare, case-insensitive
    assert note(env, path)["content"] == old.replace("## Notes\n\n", "## Notes\n- Poster v2 approved\n\n")
    await patch(env, path, "prepend", "heading", "Week 11 (Mar 9 – Mar 15)::Goals", "- [ ] Book the print run")
    assert "## Goals\n- [ ] Book the print run\n- [ ] Approve spring" in note(env, path)["content"]
    await patch(env, path, "replace", "heading", "Schedule", "- Wed 10:00 Creative review (moved to room 5A)")
    assert "## Schedule\n- Wed 10:00 Creative review (moved to room 5A)\n\n## Notes" in note(env, path)["content"]
    assert "Dentist" not in note(env, path)["content"]


@pytest.mark.anyio
async def test_patch_nested_heading_replace(env: AppEnv) -> None:
    path = "Projects/Spring Campaign 2026.md"
    await patch(env, path, "replace", "heading", "Spring Campaign 2026::Channels::Offline",
                "300 printed posters for Lumen Retail stores.")
    content = note(env, path)["content"]
    assert "### Offline\n300 printed posters for Lumen Retail stores.\n\n## Budget" in content
    assert "200 printed posters for Lumen Retail stores" not in content


@pytest.mark.anyio
async def test_patch_block(env: AppEnv) -> None:
    path = "Projects/Spring Campaign 2026.md"
    await patch(env, path, "append", "block", "launch-date", " Press release on March 24.")
    assert ("Launch date: March 25, 2026 (locked on March 9). Press release on March 24. ^launch-date\n"
            in note(env, path)["content"])
    await patch(env, path, "replace", "block", "launch-date", "Launch date: March 26, 2026.")
    assert "\nLaunch date: March 26, 2026. ^launch-date\n" in note(env, path)["content"]
    lin = make_env("lin_wei")
    await patch(lin, "Thesis/Chapter 3 - Method.md", "prepend", "block", "block-scoring", "(Revised) ")
    assert "(Revised) Blocks of 64 tokens are scored" in note(lin, "Thesis/Chapter 3 - Method.md")["content"]


@pytest.mark.anyio
async def test_patch_frontmatter(env: AppEnv) -> None:
    path = "Projects/Spring Campaign 2026.md"
    body = note(env, path)["content"].split("---\n", 2)[2]
    before = env.tree.snapshot()
    await patch(env, path, "replace", "frontmatter", "status", "launched")
    await patch(env, path, "append", "frontmatter", "tags", "q1")
    await patch(env, path, "replace", "frontmatter", "budget_cny", "200000")
    fm = await ok_json(env, "obsidian_get_frontmatter", {"filepath": path})
    assert fm == {"status": "launched", "owner": "Chen Yu", "sponsor": "Song Ke", "launch": "2026-03-25",
                  "budget_cny": 200000, "tags": ["project", "campaign/spring", "q1"]}
    assert note(env, path)["content"] == (
        "---\nstatus: launched\nowner: Chen Yu\nsponsor: Song Ke\nlaunch: 2026-03-25\nbudget_cny: 200000\n"
        "tags:\n  - project\n  - campaign/spring\n  - q1\n---\n" + body)
    assert note(env, path)["tags"] == ["project", "campaign/spring", "q1"]
    assert note(env, path)["mtime"] == FIRST_WRITE_MS + 2000
    assert changes(env, before) == [("modify", f"notes[{path}]", ("content", "mtime", "tags"))]
    await patch(env, path, "prepend", "frontmatter", "owner", "Ms. ")
    await patch(env, path, "prepend", "frontmatter", "tags", '["urgent"]')
    fm = await ok_json(env, "obsidian_get_frontmatter", {"filepath": path})
    assert fm["owner"] == "Ms. Chen Yu"
    assert fm["tags"] == note(env, path)["tags"] == ["urgent", "project", "campaign/spring", "q1"]


# -- rejections: type mismatch, missing field, out of range, semantic conflict ------------------------------
PATCH_OK = {"filepath": "Daily/2026-03-10.md", "operation": "append", "target_type": "heading", "target": "Tasks",
            "content": "- [ ] new"}
CHEN = "chen_yu"

REJECTIONS: list[tuple[str, str, dict[str, Any], list[str]]] = [
    # obsidian_list_files_in_vault takes no arguments: only an unknown one can be wrong
    (CHEN, "obsidian_list_files_in_vault", {"dirpath": "Daily"}, ["dirpath: Extra inputs are not permitted"]),
    (CHEN, "obsidian_list_files_in_dir", {"dirpath": 7}, ["dirpath: Input should be a valid string"]),
    (CHEN, "obsidian_list_files_in_dir", {}, ["dirpath: Field required"]),
    (CHEN, "obsidian_list_files_in_dir", {"dirpath": ""}, ["dirpath: String should have at least 1 character"]),
    (CHEN, "obsidian_list_files_in_dir", {"dirpath": "Home.md"},
     ["Caught Exception. Error: Error 40400: Not Found", "'Home.md' is a file, not a directory"]),
    (CHEN, "obsidian_list_files_in_dir", {"dirpath": "Archive"}, ["Error 40400", "Directory does not exist: Archive"]),
    (CHEN, "obsidian_list_files_in_dir", {"dirpath": "../other-vault"},
     ["Error 40021: Path traversal is not allowed", "'../other-vault' points outside the vault"]),
    (CHEN, "obsidian_get_file_contents", {"filepath": ["Inbox.md"]}, ["filepath: Input should be a valid string"]),
    (CHEN, "obsidian_get_file_contents", {}, ["Input validation error: filepath: Field required"]),
    (CHEN, "obsidian_get_file_contents", {"filepath": ""}, ["filepath: String should have at least 1 character"]),
    (CHEN, "obsidian_get_file_contents", {"filepath": "Inbox.md", "path": "x"}, ["path: Extra inputs"]),
    (CHEN, "obsidian_get_file_contents", {"filepath": "Daily"},
     ["Error 40510: Request method is valid only for file paths, not directories.", "'Daily' is a directory"]),
    (CHEN, "obsidian_get_file_contents", {"filepath": "Daily/"}, ["Error 40510"]),
    (CHEN, "obsidian_get_file_contents", {"filepath": "Daily/../../secrets.md"}, ["Error 40021"]),
    (CHEN, "obsidian_get_file_contents", {"filepath": "Daily/2026-03-11.md"},
     ["Error 40400: Not Found", "File does not exist: Daily/2026-03-11.md"]),
    (CHEN, "obsidian_batch_get_file_contents", {"filepaths": "Inbox.md"}, ["filepaths: Input should be a valid list"]),
    (CHEN, "obsidian_batch_get_file_contents", {}, ["filepaths: Field required"]),
    (CHEN, "obsidian_batch_get_file_contents", {"filepaths": []}, ["filepaths: List should have at least 1 item"]),
    (CHEN, "obsidian_batch_get_file_contents", {"filepaths": ["Inbox.md", " "]}, ["filepaths[1] is empty"]),
    (CHEN, "obsidian_batch_get_file_contents", {"filepaths": ["Inbox.md", "../x.md"]}, ["Error 40021", "'../x.md'"]),
    (CHEN, "obsidian_simple_search", {"query": "poster", "context_length": "wide"},
     ["context_length: Input should be a valid integer"]),
    (CHEN, "obsidian_simple_search", {"context_length": 10}, ["query: Field required"]),
    (CHEN, "obsidian_simple_search", {"query": "poster", "context_length": -1},
     ["context_length: Input should be greater than or equal to 0"]),
    (CHEN, "obsidian_simple_search", {"query": "   "}, ["query must contain at least one non-space character"]),
    (CHEN, "obsidian_complex_search", {"query": "path is Daily"}, ["query: Input should be a valid dictionary"]),
    (CHEN, "obsidian_complex_search", {}, ["query: Field required"]),
    (CHEN, "obsidian_complex_search", {"query": {}}, ["Error 40070", "exactly one operator"]),
    (CHEN, "obsidian_complex_search", {"query": {"glob": ["*.md", {"var": "path"}], "in": ["a", "abc"]}},
     ["Error 40070", "exactly one operator"]),
    (CHEN, "obsidian_complex_search", {"query": {"near": ["Daily", {"var": "path"}]}},
     ["Error 40070: The query you provided could not be processed.", "Unrecognized operation near (while "
      "processing Areas/Q1 marketing budget.md)"]),
    (CHEN, "obsidian_complex_search", {"query": {"regexp": ["(unclosed", {"var": "content"}]}},
     ["Error 40070", "Invalid regular expression: /(unclosed/"]),
    (CHEN, "obsidian_patch_content", {**PATCH_OK, "target": ["Tasks"]}, ["target: Input should be a valid string"]),
    (CHEN, "obsidian_patch_content", {k: v for k, v in PATCH_OK.items() if k != "target_type"},
     ["target_type: Field required"]),
    (CHEN, "obsidian_patch_content", {**PATCH_OK, "operation": "insert"},
     ["operation: Input should be 'append', 'prepend' or 'replace'"]),
    (CHEN, "obsidian_patch_content", {**PATCH_OK, "target_type": "line"},
     ["target_type: Input should be 'heading', 'block' or 'frontmatter'"]),
    (CHEN, "obsidian_patch_content", {**PATCH_OK, "content": ""}, ["content: String should have at least 1"]),
    (CHEN, "obsidian_patch_content", {**PATCH_OK, "target": "Minutes"},
     ["Error 40080: The patch you provided could not be applied to the target content.",
      "invalid-target: heading 'Minutes' not found in Daily/2026-03-10.md", "Tuesday, March 10::Tasks"]),
    (CHEN, "obsidian_patch_content", {**PATCH_OK, "content": "- [ ] Book a meeting room for the creative review"},
     ["Error 40080", "content-already-preexists-in-target"]),
    (CHEN, "obsidian_patch_content", {**PATCH_OK, "filepath": "Daily/2026-03-11.md"},
     ["Error 40400", "File does not exist: Daily/2026-03-11.md"]),
    (CHEN, "obsidian_patch_content", {**PATCH_OK, "filepath": "Daily"}, ["Error 40510"]),
    (CHEN, "obsidian_patch_content", {**PATCH_OK, "target_type": "block", "target": "nope"},
     ["Error 40080", "invalid-target: no block ^nope in Daily/2026-03-10.md"]),
    (CHEN, "obsidian_patch_content", {**PATCH_OK, "target_type": "frontmatter", "target": "mood"},
     ["Error 40080", "frontmatter field 'mood' does not exist in Daily/2026-03-10.md (fields: date, tags)"]),
    (CHEN, "obsidian_patch_content", {"filepath": "Projects/Spring Campaign 2026.md", "operation": "append",
                                      "target_type": "frontmatter", "target": "budget_cny", "content": "5000 more"},
     ["Error 40080", "content-not-mergeable: cannot append a str to the int field 'budget_cny'"]),
    (CHEN, "obsidian_patch_content", {"filepath": "Templates/Daily.md", "operation": "replace",
                                      "target_type": "frontmatter", "target": "date", "content": "x"},
     ["Error 40005: Document frontmatter could not be parsed."]),
    (CHEN, "obsidian_append_content", {"filepath": "Inbox.md", "content": 5}, ["content: Input should be a valid "
                                                                               "string"]),
    (CHEN, "obsidian_append_content", {"filepath": "Inbox.md"}, ["content: Field required"]),
    (CHEN, "obsidian_append_content", {"filepath": "", "content": "x"}, ["filepath: String should have at least"]),
    (CHEN, "obsidian_append_content", {"filepath": "Daily", "content": "x"}, ["Error 40510", "'Daily' is a directory"]),
    (CHEN, "obsidian_append_content", {"filepath": "Home.md/Sub.md", "content": "x"},
     ["Error 50020", "'Home.md' is a file, so it cannot contain 'Home.md/Sub.md'"]),
    (CHEN, "obsidian_append_content", {"filepath": "../Outside.md", "content": "x"}, ["Error 40021"]),
    (CHEN, "obsidian_put_content", {"filepath": "New.md", "content": None}, ["content: Input should be a valid "
                                                                             "string"]),
    (CHEN, "obsidian_put_content", {"content": "x"}, ["filepath: Field required"]),
    (CHEN, "obsidian_put_content", {"filepath": "Ideas/", "content": "x"}, ["Error 40510", "'Ideas/' is a directory"]),
    (CHEN, "obsidian_put_content", {"filepath": "Ideas/What?.md", "content": "x"},
     ["Error 50020", "File name cannot contain any of the following characters", "(found ?)"]),
    (CHEN, "obsidian_put_content", {"filepath": "/../../etc/passwd", "content": "x"}, ["Error 40021"]),
    (CHEN, "obsidian_delete_file", {"filepath": "Inbox.md", "confirm": "yes"}, ["confirm: Input should be a valid "
                                                                                "boolean"]),
    (CHEN, "obsidian_delete_file", {"filepath": "Inbox.md"}, ["confirm: Field required"]),
    (CHEN, "obsidian_delete_file", {"filepath": "", "confirm": True}, ["filepath: String should have at least"]),
    (CHEN, "obsidian_delete_file", {"filepath": "Inbox.md", "confirm": False},
     ["Caught Exception. Error: confirm must be set to true to delete a file"]),
    (CHEN, "obsidian_delete_file", {"filepath": "People", "confirm": True}, ["Error 40510", "'People' is a directory"]),
    (CHEN, "obsidian_delete_file", {"filepath": "Inbox (old).md", "confirm": True},
     ["Error 40400", "File does not exist: Inbox (old).md"]),
    (CHEN, "obsidian_get_periodic_note", {"period": 1}, ["period: Input should be 'daily', 'weekly', 'monthly', "
                                                         "'quarterly' or 'yearly'"]),
    (CHEN, "obsidian_get_periodic_note", {}, ["period: Field required"]),
    (CHEN, "obsidian_get_periodic_note", {"period": "hourly"}, ["period: Input should be 'daily'"]),
    (CHEN, "obsidian_get_periodic_note", {"period": "daily", "type": "html"}, ["type: Input should be 'content' or "
                                                                               "'metadata'"]),
    (CHEN, "obsidian_get_periodic_note", {"period": "yearly"},
     ["Error 40060: Specified period is not enabled.", "yearly notes are not enabled in this vault"]),
    ("maya_patel", "obsidian_get_periodic_note", {"period": "weekly"}, ["Error 40060"]),
    (CHEN, "obsidian_get_recent_periodic_notes", {"period": "daily", "limit": "five"},
     ["limit: Input should be a valid integer"]),
    (CHEN, "obsidian_get_recent_periodic_notes", {"period": "daily", "include_content": "yes"},
     ["include_content: Input should be a valid boolean"]),
    (CHEN, "obsidian_get_recent_periodic_notes", {"limit": 3}, ["period: Field required"]),
    (CHEN, "obsidian_get_recent_periodic_notes", {"period": "daily", "limit": 0},
     ["limit: Input should be greater than or equal to 1"]),
    (CHEN, "obsidian_get_recent_periodic_notes", {"period": "daily", "limit": 51},
     ["limit: Input should be less than or equal to 50"]),
    (CHEN, "obsidian_get_recent_periodic_notes", {"period": "quarterly"}, ["Error 40060", "quarterly notes are not "
                                                                           "enabled"]),
    (CHEN, "obsidian_get_recent_changes", {"days": "a week"}, ["days: Input should be a valid integer"]),
    (CHEN, "obsidian_get_recent_changes", {"limit": 0}, ["limit: Input should be greater than or equal to 1"]),
    (CHEN, "obsidian_get_recent_changes", {"days": 0}, ["days: Input should be greater than or equal to 1"]),
    (CHEN, "obsidian_get_recent_changes", {"limit": 101}, ["limit: Input should be less than or equal to 100"]),
    (CHEN, "obsidian_get_recent_changes", {"since": "2026-03-01"}, ["since: Extra inputs are not permitted"]),
    (CHEN, "obsidian_search_by_tag", {"tag": 3}, ["tag: Input should be a valid string"]),
    (CHEN, "obsidian_search_by_tag", {"dirpath": "Projects"}, ["tag: Field required"]),
    (CHEN, "obsidian_search_by_tag", {"tag": ""}, ["tag: String should have at least 1 character"]),
    (CHEN, "obsidian_search_by_tag", {"tag": "#partner"}, ["pass the tag without the leading '#': use 'partner'"]),
    (CHEN, "obsidian_search_by_tag", {"tag": "partner", "dirpath": "Home.md"},
     ["Error 40400", "dirpath 'Home.md' is a file, not a directory"]),
    (CHEN, "obsidian_search_by_tag", {"tag": "partner", "dirpath": "../elsewhere"}, ["Error 40021"]),
    (CHEN, "obsidian_get_frontmatter", {"filepath": 12}, ["filepath: Input should be a valid string"]),
    (CHEN, "obsidian_get_frontmatter", {}, ["filepath: Field required"]),
    (CHEN, "obsidian_get_frontmatter", {"filepath": ""}, ["filepath: String should have at least 1 character"]),
    (CHEN, "obsidian_get_frontmatter", {"filepath": "Projects"}, ["Error 40510"]),
    (CHEN, "obsidian_get_frontmatter", {"filepath": "Projects/Spring campaign 2026.md"},
     ["Error 40400", "File does not exist: Projects/Spring campaign 2026.md"]),  # paths are case-sensitive
    (CHEN, "obsidian_get_frontmatter", {"filepath": "Templates/Daily.md"},
     ["Error 40005", "Templates/Daily.md: cannot read the map item"]),
]


@pytest.mark.parametrize(
    ("context", "tool", "args", "needles"),
    REJECTIONS,
    ids=[f"{tool.removeprefix('obsidian_')}-{i}" for i, (_, tool, _, _) in enumerate(REJECTIONS)],
)
@pytest.mark.anyio
async def test_rejected_calls_leave_the_vault_unchanged(
    context: str, tool: str, args: dict[str, Any], needles: list[str]
) -> None:
    env = make_env(context)
    before = env.tree.hash()
    result = await call(env, tool, args)
    assert result.is_error, text(result)
    for needle in needles:
        assert needle in text(result), text(result)
    assert env.tree.hash() == before


def test_every_tool_has_rejection_cases() -> None:
    covered = {tool for _, tool, _, _ in REJECTIONS}
    assert covered == set(APP.tool_names)
    assert len(APP.tool_names) == 15


@pytest.mark.anyio
async def test_ambiguous_bare_heading(env: AppEnv) -> None:
    body = "# Trip\n## Day 1\n### Notes\n- a\n## Day 2\n### Notes\n- b\n"
    await ok(env, "obsidian_put_content", {"filepath": "Trip.md", "content": body})
    before = env.tree.hash()
    result = await call(env, "obsidian_patch_content", {"filepath": "Trip.md", "operation": "append",
                                                        "target_type": "heading", "target": "Notes", "content": "- c"})
    assert result.is_error
    assert text(result) == ("Caught Exception. Error: Ambiguous heading 'Notes'. Candidates: Trip::Day 1::Notes, "
                            "Trip::Day 2::Notes. Specify the qualified path with '::' delimiter.")
    assert env.tree.hash() == before
    await patch(env, "Trip.md", "append", "heading", "Trip::Day 2::Notes", "- c")
    assert note(env, "Trip.md")["content"] == body + "- c\n"


@pytest.mark.anyio
async def test_periodic_note_missing_for_the_current_period() -> None:
    env = make_env(clock=TaskClock(now=datetime(2026, 3, 11, 9, 0), timezone="Asia/Shanghai"))
    before = env.tree.hash()
    result = await call(env, "obsidian_get_periodic_note", {"period": "daily"})
    assert result.is_error
    assert text(result) == ("Caught Exception. Error: Error 40461: Periodic note does not exist for the specified "
                            "period.\nthe current daily note Daily/2026-03-11.md has not been created")
    assert env.tree.hash() == before
