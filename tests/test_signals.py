"""A run and a sweep stop on SIGTERM however they were started, including as a background job of a
non-interactive shell (``cmd &`` in a script, as schedulers and CI start them), which inherits SIGINT ignored:
each stops within seconds with exit code 143 and prints the command that finishes it."""

from __future__ import annotations

import os
import shlex
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

# every episode's agent sleeps: the signal always lands mid-episode
SLOW_AGENT = ["--agent", "external", "--agent-cmd", f"{sys.executable} -c 'import time; time.sleep(60)'"]


def _wait_for(ready: Callable[[], bool], shell: subprocess.Popen[str], cwd: Path, seconds: float = 120) -> None:
    deadline = time.monotonic() + seconds
    while not ready():
        err = cwd / "err.txt"
        assert time.monotonic() < deadline and shell.poll() is None, err.read_text() if err.exists() else ""
        time.sleep(0.05)


def _in_background(args: list[str], cwd: Path) -> tuple[subprocess.Popen[str], int]:
    """``args`` started as ``sh -c 'CMD &'`` starts them (so with SIGINT ignored; stderr to ``cwd/err.txt``,
    the exit code to ``cwd/code.txt``): the shell and the command's pid."""
    command = " ".join(shlex.quote(a) for a in args)
    shell = subprocess.Popen(["/bin/sh", "-c", f"{command} 2>err.txt & echo $! > pid.txt; wait $!; echo $? > code.txt"],
                             cwd=cwd, stdout=subprocess.DEVNULL, text=True, env=os.environ | {"COLUMNS": "200"})
    pid_file = cwd / "pid.txt"
    _wait_for(lambda: pid_file.exists() and pid_file.read_text().strip() != "", shell, cwd)
    return shell, int(pid_file.read_text())


def _ignores_sigint(pid: int) -> bool:
    """Whether ``pid`` ignores SIGINT, given a moment: the shell prints a job's pid right after the fork, before
    the child has set its signals and become the command."""
    deadline = time.monotonic() + 5
    while True:
        mask = next(line for line in Path(f"/proc/{pid}/status").read_text().splitlines()
                    if line.startswith("SigIgn:"))
        if int(mask.split()[1], 16) & (1 << (signal.SIGINT - 1)) or time.monotonic() > deadline:
            return bool(int(mask.split()[1], 16) & (1 << (signal.SIGINT - 1)))
        time.sleep(0.02)


def _stop_with_sigterm(shell: subprocess.Popen[str], pid: int, cwd: Path) -> tuple[int, float]:
    """SIGTERM to ``pid``; its exit code and the seconds until it exited."""
    os.kill(pid, signal.SIGTERM)
    sent = time.monotonic()
    shell.wait(60)  # the shell waits for the command, then writes its code
    took = time.monotonic() - sent
    return int((cwd / "code.txt").read_text()), took


def test_a_background_job_of_a_script_starts_with_sigint_ignored(tmp_path: Path) -> None:
    """What the tests below rely on (and what made a run ignore SIGTERM): such a job inherits SIGINT ignored."""
    shell, pid = _in_background(["sleep", "30"], tmp_path)
    try:
        assert _ignores_sigint(pid)
    finally:
        os.kill(pid, signal.SIGKILL)
        shell.wait(10)


def test_a_background_run_stops_on_sigterm_with_143_and_its_resume_command(tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    shell, pid = _in_background([sys.executable, "-m", "mcp_persona", "run", "--suite", "persona", "--limit", "2",
                                 *SLOW_AGENT, "--run-dir", str(run_dir)], tmp_path)
    _wait_for(lambda: (run_dir / "run.sqlite").exists(), shell, tmp_path)
    time.sleep(2)  # into the first episode
    code, took = _stop_with_sigterm(shell, pid, tmp_path)
    stderr = (tmp_path / "err.txt").read_text()
    assert code == 143, stderr
    assert took < 5, f"stopped {took:.1f} s after SIGTERM"
    assert "mcp-persona run --resume --run-dir" in stderr, stderr


def test_a_background_sweep_stops_on_sigterm_with_143_and_its_resume_command(tmp_path: Path) -> None:
    sweep = tmp_path / "sweep.toml"
    sweep.write_text('name = "long"\nsuites = ["mcpagentbench"]\n\n[[models]]\nagent = "reference"\n\n'
                     '[grid]\nmax_rounds = [10, 20]\n')  # 180 episodes a cell: the signal lands in the first
    out = tmp_path / "out"
    shell, pid = _in_background([sys.executable, "-m", "mcp_persona", "sweep", str(sweep), "--out", str(out)],
                                tmp_path)
    _wait_for(lambda: bool(list(out.rglob("run.sqlite"))), shell, tmp_path)
    time.sleep(1)
    code, took = _stop_with_sigterm(shell, pid, tmp_path)
    stderr = (tmp_path / "err.txt").read_text()
    assert code == 143, stderr
    assert took < 5, f"stopped {took:.1f} s after SIGTERM"
    assert "--resume" in stderr and f"--out {out}" in stderr.replace("\n", " "), stderr
