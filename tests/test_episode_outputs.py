"""A scorer reads an episode's output files only as files the episode wrote: never through a link the model
planted (to the answer key in the installed package, to the harness's own /proc/self/environ), never a FIFO or
a device, never more than a size cap; each refusal is a failed check that says why."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from mcp_persona.protocols import load_tasks
from mcp_persona.protocols.livemcpbench.scoring import check_file
from mcp_persona.scoring.outputs import OutputRefused, read_output

TASK_FILE = Path(__file__).resolve().parents[1] / "src" / "mcp_persona" / "data" / "tasks" / "livemcpbench" / \
    "lifestyle.json"


def weather_check() -> object:
    task = next(t for t in load_tasks("livemcpbench") if t.id == "lifestyle_weather_note_1")
    return task.spec.file_checks[0]


def test_the_file_the_episode_wrote_is_read(tmp_path: Path) -> None:
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "a.txt").write_text("hello")
    assert read_output(tmp_path, "notes/a.txt") == b"hello"
    check = weather_check()
    (tmp_path / check.path).write_text("Tokyo: 246.39 mm this year")  # type: ignore[attr-defined]
    assert check_file(check, tmp_path) == (True, "ok")  # type: ignore[arg-type]


def test_a_link_planted_to_the_answer_key_fails_the_check_as_the_honest_empty_run_does(tmp_path: Path) -> None:
    check = weather_check()
    honest = check_file(check, tmp_path)  # type: ignore[arg-type]
    assert honest[0] is False and "does not exist" in honest[1]
    assert "246.39" in TASK_FILE.read_text()  # the gold the link would hand over
    (tmp_path / check.path).symlink_to(TASK_FILE)  # type: ignore[attr-defined]
    planted = check_file(check, tmp_path)  # type: ignore[arg-type]
    assert planted[0] is False and "symbolic link" in planted[1]


@pytest.mark.parametrize("target", ["/proc/self/environ", "/etc/hostname", "..", "/"])
def test_no_link_is_followed_at_the_file_or_on_the_way(tmp_path: Path, target: str) -> None:
    (tmp_path / "out.txt").symlink_to(target)
    (tmp_path / "dir").symlink_to(tmp_path.parent if target == ".." else target)
    for relative in ("out.txt", "dir/out.txt", "dir/hostname"):
        with pytest.raises(OutputRefused, match="symbolic link"):
            read_output(tmp_path, relative)


def test_special_files_and_escapes_are_refused_without_blocking(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "pipe.txt")  # opening it for reading would wait for a writer forever
    with pytest.raises(OutputRefused, match="named pipe"):
        read_output(tmp_path, "pipe.txt")
    (tmp_path / "folder.txt").mkdir()
    with pytest.raises(OutputRefused, match="a folder"):
        read_output(tmp_path, "folder.txt")
    for bad in ("../x", "/etc/passwd", "a/../../x", ""):
        with pytest.raises(OutputRefused, match="not a path inside"):
            read_output(tmp_path, bad)
    with pytest.raises(OutputRefused, match="does not exist"):
        read_output(tmp_path, "missing/x.txt")
    (tmp_path / "file").write_text("x")
    with pytest.raises(OutputRefused, match="not a folder"):
        read_output(tmp_path, "file/x.txt")


def test_a_file_over_the_cap_is_refused_with_its_size(tmp_path: Path) -> None:
    (tmp_path / "big.txt").write_bytes(b"x" * 2048)
    assert read_output(tmp_path, "big.txt", cap=2048) == b"x" * 2048
    with pytest.raises(OutputRefused, match="2049 bytes, more than the 2048"):
        (tmp_path / "big.txt").write_bytes(b"x" * 2049)
        read_output(tmp_path, "big.txt", cap=2048)
