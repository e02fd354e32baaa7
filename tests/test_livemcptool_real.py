"""The real LiveMCPTool servers: per-episode processes and sandboxes, isolation, faults, clean-up.

They run the servers ``scripts/install-real-servers.sh`` installs (the README's set-up does), and a
tiny misbehaving stdio server shipped in ``tests/data`` for the faults.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import anyio
import pytest

from mcp_persona.livemcptool import REAL_SERVERS, EpisodeError, missing_reason, open_episode

pytestmark = [pytest.mark.slow, pytest.mark.anyio]
MISBEHAVING = Path(__file__).parent / "data" / "misbehaving_server.py"


def _text(result: object) -> str:
    return "\n".join(getattr(c, "text", "") for c in getattr(result, "content", []))


def _processes_mentioning(marker: str) -> list[int]:
    """Live processes whose command line or working folder mentions ``marker``: the servers and what they
    started, not the bwrap processes that hold their sandboxes (their command lines mention it too)."""
    pids = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            cwd = os.readlink(entry / "cwd")
            state = next((x for x in (entry / "status").read_text().splitlines() if x.startswith("State:")), "")
        except OSError:
            continue
        if "zombie" not in state and (marker in cmdline or marker in cwd) and \
                os.path.basename(cmdline.split(" ", 1)[0]) != "bwrap":
            pids.append(int(entry.name))
    return pids


def _write_xlsx(path: Path, value: str) -> None:
    """The smallest workbook excelize opens: one sheet "S" with ``value`` in A1."""
    parts = {
        "[Content_Types].xml": '<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/'
        'package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.'
        'relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/xl/'
        'workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/>'
        '<Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.'
        'spreadsheetml.worksheet+xml"/></Types>',
        "_rels/.rels": '<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/'
        'package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/'
        '2006/relationships/officeDocument" Target="xl/workbook.xml"/></Relationships>',
        "xl/workbook.xml": '<?xml version="1.0" encoding="UTF-8"?><workbook xmlns="http://schemas.openxmlformats.org/'
        'spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships">'
        '<sheets><sheet name="S" sheetId="1" r:id="rId1"/></sheets></workbook>',
        "xl/_rels/workbook.xml.rels": '<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.'
        'openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.'
        'org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet1.xml"/></Relationships>',
        "xl/worksheets/sheet1.xml": '<?xml version="1.0" encoding="UTF-8"?><worksheet xmlns="http://schemas.'
        'openxmlformats.org/spreadsheetml/2006/main"><dimension ref="A1"/><sheetData><row r="1">'
        '<c r="A1" t="inlineStr"><is><t>'
        f'{value}</t></is></c></row></sheetData></worksheet>',
    }
    with zipfile.ZipFile(path, "w") as z:
        for name, body in parts.items():
            z.writestr(name, body)


def _git_repo(path: Path) -> None:
    path.mkdir()
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@x", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@x"}
    for cmd in (["git", "init", "-q", "-b", "main"], ["git", "commit", "-q", "--allow-empty", "-m", "start"]):
        subprocess.run(cmd, cwd=path, check=True, env=env)


def test_every_real_server_is_installed() -> None:
    problems = {name: why for name in REAL_SERVERS if (why := missing_reason(name))}
    assert not problems, f"run scripts/install-real-servers.sh: {problems}"


async def test_eight_concurrent_episodes_never_see_each_others_files(tmp_path: Path) -> None:
    inputs = tmp_path / "inputs"
    inputs.mkdir()
    _write_xlsx(inputs / "book.xlsx", "shared-input")
    _git_repo(inputs / "repo")
    seen: dict[int, dict[str, str]] = {}
    pids: list[int] = []

    async def episode(i: int) -> None:
        sandbox = tmp_path / f"ep{i}"
        async with open_episode(sandbox, servers=["filesystem", "git", "excel"],
                                inputs=[inputs / "book.xlsx", inputs / "repo"]) as ep:
            files = ep.files_dir
            secret = f"episode-{i}-secret"
            assert not (await ep.call("filesystem", "write_file", {"path": str(files / f"mine{i}.txt"),
                                                                    "content": secret})).is_error
            (files / "repo" / "note.txt").write_text(secret)
            assert not (await ep.call("git", "git_add", {"repo_path": str(files / "repo"),
                                                         "files": ["note.txt"]})).is_error
            assert not (await ep.call("git", "git_commit", {"repo_path": str(files / "repo"),
                                                            "message": secret})).is_error
            write = await ep.call("excel", "excel_write_to_sheet", {
                "fileAbsolutePath": str(files / "book.xlsx"), "sheetName": "S", "newSheet": False,
                "range": "B1:B1", "values": [[secret]]})
            assert not write.is_error, _text(write)
            await anyio.sleep(0.2)  # let the other episodes write before anyone reads
            other = tmp_path / f"ep{(i + 1) % 8}" / "files" / f"mine{(i + 1) % 8}.txt"
            pids.extend(_processes_mentioning(str(sandbox)))
            seen[i] = {
                "listing": _text(await ep.call("filesystem", "list_directory", {"path": str(files)})),
                "other": _text(await ep.call("filesystem", "read_text_file", {"path": str(other)})),
                "log": _text(await ep.call("git", "git_log", {"repo_path": str(files / "repo")})),
                "sheet": _text(await ep.call("excel", "excel_read_sheet", {
                    "fileAbsolutePath": str(files / "book.xlsx"), "sheetName": "S"})),
            }

    async with anyio.create_task_group() as tg:
        for i in range(8):
            tg.start_soon(episode, i)

    for i, got in seen.items():
        others = [f"episode-{j}-secret" for j in range(8) if j != i]
        assert f"mine{i}.txt" in got["listing"]
        assert not any(f"mine{j}.txt" in got["listing"] for j in range(8) if j != i)
        assert "Access denied" in got["other"] or "outside" in got["other"], got["other"]
        assert f"episode-{i}-secret" in got["log"] and not any(o in got["log"] for o in others)
        assert f"episode-{i}-secret" in got["sheet"] and "shared-input" in got["sheet"]
        assert not any(o in got["sheet"] for o in others)
    assert len(seen) == 8 and len(set(pids)) >= 8 * 3  # every episode ran its own three servers
    time.sleep(0.2)
    assert _processes_mentioning(str(tmp_path)) == [], "a real server outlived its episode"


# "hang+spawn": the server also starts a child, which must be stopped with it.
@pytest.mark.parametrize("mode", ["hang+spawn", "die", "garbage"])
async def test_a_misbehaving_server_fails_the_call_not_the_episode(mode: str, tmp_path: Path) -> None:
    marker = f"marker-{mode}-{os.getpid()}"
    argv = [sys.executable, str(MISBEHAVING), mode, marker]
    started = time.perf_counter()
    async with open_episode(tmp_path / "ep", servers=["calculator", "yahoo-finance"], call_timeout=1.5,
                            real_argv={"calculator": argv}) as ep:
        assert _text(await ep.call("calculator", "echo", {})) == "echo"
        assert len(_processes_mentioning(marker)) == (2 if "spawn" in mode else 1)
        bad = await ep.call("calculator", "misbehave", {})
        assert bad.is_error
        text = _text(bad)
        assert "real server calculator" in text
        if mode == "die":
            assert "failed during misbehave: the connection closed" in text
        else:
            assert "did not answer misbehave within 1.5 s" in text
        later = await ep.call("calculator", "echo", {})
        assert later.is_error and _text(later) == text  # the server is gone and every call says why
        ok = await ep.call("yahoo-finance", "get_current_stock_price", {"symbol": "AAPL"})
        assert not ok.is_error and "Apple" in _text(ok)  # the episode goes on
    assert time.perf_counter() - started < 20
    assert _processes_mentioning(marker) == [], "the server's processes outlived the episode"


# -- the episode's disk quota ------------------------------------------------------------------------------------
MB = 1024 * 1024


async def test_a_huge_file_stops_at_the_episode_quota_and_the_episode_goes_on(tmp_path: Path) -> None:
    if why := missing_reason("filesystem") or missing_reason("word-document-server"):
        pytest.skip(why)
    async with open_episode(tmp_path / "ep", servers=["filesystem", "word-document-server", "time"],
                            disk_bytes=MB) as ep:
        small = await ep.call("filesystem", "write_file", {"path": str(ep.files_dir / "small.txt"), "content": "hi"})
        assert not small.is_error, _text(small)  # under the quota, writing works
        big = await ep.call("filesystem", "write_file", {"path": str(ep.files_dir / "big.txt"),
                                                         "content": "x" * (3 * MB)})
        held = ep.quota.used()
        assert big.is_error and _text(big) == (
            f"filesystem.write_file: the episode's disk quota of 1 MB is used up (its folder holds "
            f"{held / MB:.2f} MB); real server filesystem was stopped")
        # the write itself was stopped at the limit (RLIMIT_FSIZE), not after the fact
        assert (ep.files_dir / "big.txt").stat().st_size == MB and MB < held < MB + 128 * 1024
        later = await ep.call("filesystem", "read_text_file", {"path": str(ep.files_dir / "small.txt")})
        assert later.is_error and _text(later) == _text(big)  # stopped, and every later call says why
        assert _processes_mentioning(str(ep.state_dir / "filesystem")) == []
        # the episode goes on: what writes nothing works, and what would write more is stopped as well
        now = await ep.call("time", "get_current_time", {"timezone": "UTC"})
        assert not now.is_error and '"timezone": "UTC"' in _text(now)
        listing = await ep.call("word-document-server", "list_available_documents", {"directory": str(ep.files_dir)})
        assert not listing.is_error
        doc = await ep.call("word-document-server", "create_document", {"filename": str(ep.files_dir / "a.docx")})
        assert doc.is_error and "disk quota of 1 MB is used up" in _text(doc)


async def test_a_call_too_large_to_carry_is_refused_and_the_server_goes_on(tmp_path: Path) -> None:
    """A 16 MB write_file killed the filesystem server ("the connection closed"): refused before it is sent,
    with the limit named, and the server keeps serving."""
    from mcp_persona.livemcptool.real import MAX_CALL_BYTES

    if why := missing_reason("filesystem"):
        pytest.skip(why)
    async with open_episode(tmp_path / "ep", servers=["filesystem"]) as ep:
        target = str(ep.files_dir / "big.txt")
        big = await ep.call("filesystem", "write_file", {"path": target, "content": "x" * (16 * MB)})
        assert big.is_error and _text(big).startswith("filesystem.write_file: the arguments take 16.00 MB; a call "
                                                       "may carry at most 8 MB")
        assert not (ep.files_dir / "big.txt").exists()
        fits = await ep.call("filesystem", "write_file", {"path": target, "content": "x" * (MAX_CALL_BYTES - 1000)})
        assert not fits.is_error, _text(fits)
        assert (ep.files_dir / "big.txt").stat().st_size == MAX_CALL_BYTES - 1000


async def test_a_call_that_keeps_writing_is_cut_short_at_the_quota(tmp_path: Path) -> None:
    argv = [sys.executable, str(MISBEHAVING), "fill"]
    started = time.perf_counter()
    async with open_episode(tmp_path / "ep", servers=["calculator", "yahoo-finance"], call_timeout=30,
                            real_argv={"calculator": argv}, disk_bytes=4 * MB) as ep:
        filling = await ep.call("calculator", "misbehave", {})
        held = ep.quota.used()
        assert filling.is_error
        assert "calculator.misbehave: the episode's disk quota of 4 MB is used up" in _text(filling)
        # cut short within a measurement or two (files of 256 KB every 10 ms), long before the call's timeout
        assert time.perf_counter() - started < 10 and 4 * MB < held < 10 * MB
        time.sleep(0.3)
        assert ep.quota.used() == held, "the server went on writing"
        ok = await ep.call("yahoo-finance", "get_current_stock_price", {"symbol": "AAPL"})
        assert not ok.is_error and "Apple" in _text(ok)


def test_a_disk_quota_too_small_to_hold_a_file_is_refused(tmp_path: Path) -> None:
    from mcp_persona.livemcptool.real import DiskQuota

    with pytest.raises(ValueError, match="disk quota of 100 bytes: must be at least 512"):
        DiskQuota(tmp_path, 100)


async def test_a_server_that_does_not_start_fails_the_episode_clearly(tmp_path: Path) -> None:
    argv = [sys.executable, str(MISBEHAVING), "nostart"]
    with pytest.raises(EpisodeError) as info:
        async with open_episode(tmp_path / "ep", servers=["calculator", "time"], real_argv={"calculator": argv}):
            pytest.fail("the episode must not start")
    message = str(info.value)
    assert "real server calculator did not start" in message
    assert "cannot open the configuration file" in message  # the server's own stderr
    assert _processes_mentioning(str(tmp_path)) == []


async def test_all_nine_real_servers_start_and_answer(tmp_path: Path) -> None:
    async with open_episode(tmp_path / "ep", servers=list(REAL_SERVERS)) as ep:
        tools = await ep.list_tools()
        assert set(tools) == set(REAL_SERVERS)
        assert all(tools[name] for name in REAL_SERVERS)
        assert set(ep.setup_seconds) == set(REAL_SERVERS) and all(v > 0 for v in ep.setup_seconds.values())
        calc = await ep.call("calculator", "calculate", {"expression": "6*7"})
        assert _text(calc).strip() == "42"
        now = await ep.call("time", "get_current_time", {"timezone": "Asia/Shanghai"})
        assert "Asia/Shanghai" in _text(now)
        await ep.call("memory", "create_entities", {"entities": [{"name": "Ada", "entityType": "person",
                                                                  "observations": ["likes tea"]}]})
        graph = await ep.call("memory", "read_graph", {})
        assert "Ada" in _text(graph)
        assert (ep.state_dir / "memory" / "memory.jsonl").is_file()  # private state, outside files/
        doc = await ep.call("word-document-server", "create_document", {"filename": str(ep.files_dir / "a.docx")})
        assert not doc.is_error and (ep.files_dir / "a.docx").is_file(), _text(doc)
        deck = await ep.call("ppt", "create_presentation", {})
        assert not deck.is_error, _text(deck)
        think = await ep.call("sequential-thinking", "sequentialthinking", {
            "thought": "first", "thoughtNumber": 1, "totalThoughts": 1, "nextThoughtNeeded": False})
        assert not think.is_error
    assert not (tmp_path / "ep" / ".state").exists() or _processes_mentioning(str(tmp_path)) == []


async def test_a_sandbox_the_library_makes_is_removed(tmp_path: Path) -> None:
    async with open_episode(servers=["filesystem"]) as ep:
        sandbox = ep.sandbox
        assert sandbox.is_dir()
    assert not sandbox.exists()
