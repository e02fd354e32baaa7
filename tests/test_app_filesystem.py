"""The filesystem app (a replica of @modelcontextprotocol/server-filesystem) through the real MCP path.

Every tool's success path, then the four error classes with the state unchanged. Expected texts
follow the real server's, as recorded in ``data/traces/filesystem.jsonl``; the default context's
allowed directory is ``/home/user/workspace``.
"""

from __future__ import annotations

import base64
import json
from typing import Any

import pytest
from mcp import Client

from app_harness import AppHarness
from mcp_persona.apps import get_app
from mcp_persona.apps.base import AppEnv
from mcp_persona.apps.filesystem import nodejs as js
from mcp_persona.apps.filesystem.tools import head_text, tail_text

pytestmark = pytest.mark.anyio

APP = get_app("filesystem")
ROOT = "/home/user/workspace"
PREFIX = "MCP error -32602: Input validation error: Invalid arguments for tool "
MARCH_10 = "Tue Mar 10 2026 01:30:00 GMT+0000 (Coordinated Universal Time)"  # 09:30 in Shanghai

H = AppHarness(APP, check_internal_errors=False)
call = H.outcome  # (text, is_error); replica=True for the replica server
env = H.env_fixture()


def node(env: AppEnv, rel: str) -> dict[str, Any] | None:
    return env.tree.data["nodes"].get(f"{ROOT}/{rel}" if rel else ROOT)


# -- success paths -------------------------------------------------------------------------------------------
async def test_lists_the_real_tools() -> None:
    async with Client(APP.server(APP.env("default"))) as c:
        tools = [t.name for t in (await c.list_tools()).tools]
    assert tools == ["read_file", "read_text_file", "read_media_file", "read_multiple_files", "write_file",
                     "edit_file", "create_directory", "list_directory", "list_directory_with_sizes",
                     "directory_tree", "move_file", "search_files", "get_file_info", "list_allowed_directories"]


async def test_reads(env: AppEnv) -> None:
    assert await call(env, "list_allowed_directories", {}) == (f"Allowed directories:\n{ROOT}", False)
    todo = "- [ ] draft launch email\n- [ ] review budget\n- [x] book venue\n"
    assert await call(env, "read_text_file", {"path": f"{ROOT}/notes/todo.md"}) == (todo, False)
    assert await call(env, "read_file", {"path": "notes/todo.md"}) == (todo, False)  # relative to the root
    assert await call(env, "read_text_file", {"path": f"{ROOT}/notes/meeting-2026-03-09.md", "head": 2}) == \
        ("Attendees: Ana, Ben\n", False)
    assert await call(env, "read_text_file", {"path": f"{ROOT}/data/budget.csv", "tail": 2}) == ("print,800\n", False)
    text, err = await call(env, "read_media_file", {"path": f"{ROOT}/_scratch.txt"})
    assert not err and json.loads(text) == {"type": "resource", "resource": {
        "uri": f"file://{ROOT}/_scratch.txt", "mimeType": "application/octet-stream",
        "blob": base64.b64encode(b"tmp\n").decode()}}
    text, err = await call(env, "read_multiple_files", {"paths": [f"{ROOT}/_scratch.txt", f"{ROOT}/nope.md"]})
    assert not err and text == (f"{ROOT}/_scratch.txt:\ntmp\n\n\n---\n{ROOT}/nope.md: Error - ENOENT: no such file or "
                                f"directory, open '{ROOT}/nope.md'")


async def test_listings(env: AppEnv) -> None:
    assert await call(env, "list_directory", {"path": ROOT}) == (
        "[FILE] README.md\n[FILE] Zeta.txt\n[FILE] _scratch.txt\n[DIR] archive\n[DIR] data\n[DIR] drafts\n[DIR] notes",
        False)  # libuv sorts by bytes: upper case first
    by_size, _ = await call(env, "list_directory_with_sizes", {"path": ROOT, "sortBy": "size"})
    assert by_size.split("\n")[:5] == ["[DIR] archive                        ", "[DIR] data                           ",
                                       "[DIR] drafts                         ", "[DIR] notes                          ",
                                       "[FILE] README.md                            53 B"]
    assert by_size.endswith("\n\nTotal: 3 files, 4 directories\nCombined size: 100 B")
    by_name, _ = await call(env, "list_directory_with_sizes", {"path": ROOT})
    assert [line.split()[1] for line in by_name.split("\n")[:7]] == \
        ["_scratch.txt", "archive", "data", "drafts", "notes", "README.md", "Zeta.txt"]  # localeCompare
    tree = json.loads((await call(env, "directory_tree", {"path": ROOT, "excludePatterns": ["archive", "*.csv"]}))[0])
    assert [e["name"] for e in tree] == ["README.md", "Zeta.txt", "_scratch.txt", "data", "drafts", "notes"]
    assert tree[3]["children"] == [{"name": "budget.csv", "type": "file"}]  # a glob with * matches whole paths
    tree = json.loads((await call(env, "directory_tree", {"path": f"{ROOT}/data", "excludePatterns": ["*.csv"]}))[0])
    assert tree == []
    assert await call(env, "search_files", {"path": ROOT, "pattern": "**/*.md"}) == (
        f"{ROOT}/README.md\n{ROOT}/notes/meeting-2026-03-09.md\n{ROOT}/notes/todo.md", False)
    assert await call(env, "search_files", {"path": ROOT, "pattern": "*.txt"}) == (
        f"{ROOT}/Zeta.txt\n{ROOT}/_scratch.txt", False)
    assert await call(env, "search_files", {"path": f"{ROOT}/data", "pattern": "*.pdf"}) == ("No matches found", False)
    assert await call(env, "get_file_info", {"path": f"{ROOT}/data/budget.csv"}) == (
        f"size: 45\ncreated: {MARCH_10}\nmodified: {MARCH_10}\naccessed: {MARCH_10}\n"
        "isDirectory: false\nisFile: true\npermissions: 644", False)


async def test_writes(env: AppEnv) -> None:
    assert await call(env, "write_file", {"path": "drafts/reply.txt", "content": "Thanks\n"}) == \
        ("Successfully wrote to drafts/reply.txt", False)  # the path as given
    assert node(env, "drafts/reply.txt")["content"] == "Thanks\n"  # type: ignore[index]
    assert node(env, "drafts/reply.txt")["parent"] == f"{ROOT}/drafts"  # type: ignore[index]
    assert await call(env, "create_directory", {"path": f"{ROOT}/reports/2026/q1"}) == \
        (f"Successfully created directory {ROOT}/reports/2026/q1", False)
    assert node(env, "reports/2026")["type"] == "directory"  # type: ignore[index]
    assert (await call(env, "create_directory", {"path": f"{ROOT}/archive"}))[1] is False  # exists: fine
    assert await call(env, "move_file", {"source": f"{ROOT}/notes", "destination": f"{ROOT}/archive/notes"}) == \
        (f"Successfully moved {ROOT}/notes to {ROOT}/archive/notes", False)
    assert node(env, "notes") is None and node(env, "archive/notes/todo.md")["parent"] == f"{ROOT}/archive/notes"  # type: ignore[index]


async def test_edit_file_answers_with_a_jsdiff_patch(env: AppEnv) -> None:
    path = f"{ROOT}/notes/todo.md"
    args = {"path": path, "edits": [{"oldText": "- [ ] review budget", "newText": "- [x] review budget"}]}
    expected = (f"```diff\nIndex: {path}\n{'=' * 67}\n--- {path}\toriginal\n+++ {path}\tmodified\n"
                "@@ -1,3 +1,3 @@\n - [ ] draft launch email\n-- [ ] review budget\n+- [x] review budget\n"
                " - [x] book venue\n```\n\n")
    assert await call(env, "edit_file", {**args, "dryRun": True}) == (expected, False)
    assert "- [ ] review budget" in node(env, "notes/todo.md")["content"]  # type: ignore[index]
    assert await call(env, "edit_file", args) == (expected, False)
    assert "- [x] review budget" in node(env, "notes/todo.md")["content"]  # type: ignore[index]


# -- the four error classes, state unchanged ------------------------------------------------------------------
@pytest.mark.parametrize(("tool", "args", "expected"), [
    # type mismatch
    ("read_text_file", {"path": 5}, PREFIX + "read_text_file: Invalid input: expected string, received number at path"),
    ("read_text_file", {"path": f"{ROOT}/README.md", "head": "x"},
     PREFIX + "read_text_file: Invalid input: expected number, received string at head"),
    ("edit_file", {"path": "a", "edits": [{"oldText": 1, "newText": "b"}]},
     PREFIX + "edit_file: Invalid input: expected string, received number at edits[0].oldText"),
    # schema violation
    ("write_file", {"path": f"{ROOT}/x.txt"}, PREFIX + "write_file: Invalid input: expected string, received "
                                                        "undefined at content"),
    ("list_allowed_directories", {"zz_extra": True}, PREFIX + 'list_allowed_directories: Unrecognized key: "zz_extra"'),
    # boundary
    ("read_multiple_files", {"paths": []},
     PREFIX + "read_multiple_files: Too small: expected array to have >=1 items at paths"),
    ("list_directory_with_sizes", {"path": ROOT, "sortBy": "date"},
     PREFIX + 'list_directory_with_sizes: Invalid option: expected one of "name"|"size" at sortBy'),
    ("write_file", {"path": "x" * 300, "content": ""}, f"ENAMETOOLONG: name too long, realpath '{ROOT}/{'x' * 300}'"),
    # semantic conflict
    ("read_text_file", {"path": "/etc/passwd"},
     f"Access denied - path outside allowed directories: /etc/passwd not in {ROOT}"),
    ("write_file", {"path": f"{ROOT}/../escape.txt", "content": "x"},
     f"Access denied - path outside allowed directories: /home/user/escape.txt not in {ROOT}"),
    ("read_text_file", {"path": f"{ROOT}/nope.md"}, f"ENOENT: no such file or directory, open '{ROOT}/nope.md'"),
    ("read_text_file", {"path": f"{ROOT}/notes"}, "EISDIR: illegal operation on a directory, read"),
    ("read_text_file", {"path": f"{ROOT}/README.md", "head": 1, "tail": 1},
     "Cannot specify both head and tail parameters simultaneously"),
    ("list_directory", {"path": f"{ROOT}/README.md"}, f"ENOTDIR: not a directory, scandir '{ROOT}/README.md'"),
    ("read_text_file", {"path": f"{ROOT}/README.md/x"}, f"ENOTDIR: not a directory, realpath '{ROOT}/README.md/x'"),
    ("create_directory", {"path": f"{ROOT}/README.md"}, f"EEXIST: file already exists, mkdir '{ROOT}/README.md'"),
    ("write_file", {"path": f"{ROOT}/missing/x.txt", "content": "x"},
     f"ENOENT: no such file or directory, open '{ROOT}/missing/x.txt'"),
    ("move_file", {"source": f"{ROOT}/Zeta.txt", "destination": f"{ROOT}/README.md"},
     f"Destination already exists: {ROOT}/README.md"),
    ("move_file", {"source": f"{ROOT}/nope", "destination": f"{ROOT}/b"},
     f"ENOENT: no such file or directory, rename '{ROOT}/nope' -> '{ROOT}/b'"),
    ("move_file", {"source": f"{ROOT}/notes", "destination": f"{ROOT}/notes/inner"},
     f"EINVAL: invalid argument, rename '{ROOT}/notes' -> '{ROOT}/notes/inner'"),
    ("edit_file", {"path": f"{ROOT}/README.md", "edits": [{"oldText": "zzz", "newText": "q"}]},
     "Could not find exact match for edit:\nzzz"),
    ("get_file_info", {"path": f"{ROOT}/nope"}, f"ENOENT: no such file or directory, stat '{ROOT}/nope'"),
])
async def test_errors_leave_the_tree_alone(env: AppEnv, tool: str, args: dict[str, Any], expected: str) -> None:
    before = env.tree.hash()
    assert await call(env, tool, args) == (expected, True)
    assert env.tree.hash() == before


async def test_writing_over_a_directory_fails_like_the_atomic_rename(env: AppEnv) -> None:
    before = env.tree.hash()
    text, err = await call(env, "write_file", {"path": f"{ROOT}/archive", "content": "x"})
    assert err and text.startswith(f"EISDIR: illegal operation on a directory, rename '{ROOT}/archive.")
    assert text.endswith(f".tmp' -> '{ROOT}/archive'") and env.tree.hash() == before


async def test_boundaries_the_real_server_accepts(env: AppEnv) -> None:
    before = env.tree.hash()
    path = f"{ROOT}/notes/meeting-2026-03-09.md"
    assert await call(env, "read_text_file", {"path": path, "head": -1}) == ("", False)
    assert (await call(env, "read_text_file", {"path": path, "head": 1.5}))[0] == "Attendees: Ana, Ben\n"
    assert (await call(env, "read_text_file", {"path": f"{ROOT}/data/budget.csv", "tail": 1.5}))[0] == ""
    assert (await call(env, "list_directory", {"path": ""}))[0].startswith("[FILE] README.md")  # "" is the root
    text, err = await call(env, "read_text_file", {"path": f"{ROOT}/README.md", "zz": 1}, replica=True)
    assert not err and text.startswith("# Workspace")  # the real server drops unknown keys
    assert env.tree.hash() == before


# -- Node.js semantics ---------------------------------------------------------------------------------------
def test_head_and_tail_readers() -> None:
    text = "a\nb\nc\n"
    assert [head_text(text, n) for n in (1, 2, 5, -1, 0.5)] == ["a", "a\nb", "a\nb\nc", "", "a"]
    assert [tail_text(text, n) for n in (1, 2, 1e9, -1)] == ["", "c\n", "a\nb\nc\n", ""]


def test_node_helpers() -> None:
    assert js.resolve("/a/b", "../c") == "/a/c" and js.resolve("/a", "") == "/a" and js.resolve("//x/") == "/x"
    assert js.relative("/a/b", "/a/b/c/d") == "c/d" and js.join("notes", "x.md") == "notes/x.md"
    assert js.minimatch("notes/todo.md", "**/*.md") and js.minimatch("README.md", "**/*.md")
    assert not js.minimatch("notes/todo.md", "*.md") and js.minimatch("a.txt", "*.{md,txt}")
    assert js.minimatch(".hidden", "*") and not js.minimatch("x", "#x") and js.minimatch("b", "!a")
    assert js.format_size(0) == "0 B" and js.format_size(1023) == "1023 B" and js.format_size(1152) == "1.13 KB"
    assert js.js_date(1773135000) == "Tue Mar 10 2026 09:30:00 GMT+0000 (Coordinated Universal Time)"
    assert js.two_files_patch("f", "a\n", "a\n") == f"Index: f\n{'=' * 67}\n--- f\toriginal\n+++ f\tmodified\n"
    assert js.two_files_patch("f", "a", "b").endswith("@@ -1,1 +1,1 @@\n-a\n\\ No newline at end of file\n+b\n"
                                                       "\\ No newline at end of file\n")
