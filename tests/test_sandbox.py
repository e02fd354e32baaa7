"""The code interpreter's sandbox: every limit holds, with a clear error, and nothing outlives a run.

Each hostile program first prints its process id and working directory, so the test can check that
the process is gone and the directory removed afterwards.
"""

from __future__ import annotations

import os
import socket
import tempfile
import threading
import time
from pathlib import Path

import pytest

from mcp_persona.apps._live.sandbox import Limits, RunResult, run_python, unshare_works

FAST = Limits(cpu_seconds=1, wall_seconds=3.0, memory_bytes=256 * 1024 * 1024, output_bytes=4096)
PROLOGUE = "import os\nprint(os.getpid(), os.getcwd(), flush=True)\n"


def run(body: str, limits: Limits = FAST) -> tuple[RunResult, int, Path]:
    result = run_python(PROLOGUE + body, limits)
    pid, cwd = result.stdout.split("\n", 1)[0].split(" ", 1)
    return result, int(pid), Path(cwd)


def assert_cleaned(pid: int, cwd: Path) -> None:
    assert not Path(f"/proc/{pid}").exists() or "zombie" in Path(f"/proc/{pid}/status").read_text().lower()
    assert not cwd.exists(), f"{cwd} was left behind"
    assert cwd.name == "box" and cwd.parent.name.startswith("mcpp-sandbox-")


def test_a_plain_program_runs_and_its_files_are_listed_then_removed() -> None:
    result, pid, cwd = run("open('out.txt', 'w').write('x')\nimport statistics\nprint(statistics.mean([1, 2, 6]))")
    assert result.exit_code == 0 and result.error is None
    assert result.stdout.splitlines()[1] == "3"
    assert result.files == ["out.txt"]
    assert_cleaned(pid, cwd)


def test_an_exception_is_output_not_a_failure() -> None:
    result, pid, cwd = run("raise ValueError('boom')")
    assert result.exit_code == 1 and result.error is None
    assert "ValueError: boom" in result.stderr
    assert_cleaned(pid, cwd)


@pytest.mark.slow
def test_an_infinite_loop_hits_the_cpu_limit() -> None:
    started = time.monotonic()
    result, pid, cwd = run("while True:\n    pass")
    assert result.error == "CPU time limit of 1 s exceeded"
    assert time.monotonic() - started < FAST.wall_seconds + 1
    assert_cleaned(pid, cwd)


@pytest.mark.slow
def test_sleeping_hits_the_wall_time_limit() -> None:
    result, pid, cwd = run("import time\ntime.sleep(60)", Limits(wall_seconds=1.0))
    assert result.error == "timed out after 1 s of wall time"
    assert result.exit_code is None
    assert_cleaned(pid, cwd)


def test_a_fork_bomb_is_refused_and_leaves_no_process() -> None:
    result, pid, cwd = run("while True:\n    os.fork()")
    assert result.exit_code == 1
    assert "sandbox: os.fork is not allowed" in result.stderr
    assert_cleaned(pid, cwd)


@pytest.mark.skipif(os.geteuid() == 0, reason="the kernel does not apply RLIMIT_NPROC to root")
def test_the_process_limit_stops_threads_beyond_the_allowance() -> None:
    # threads count against RLIMIT_NPROC: a thread bomb stalls at the limit instead of at the fork ban
    body = "import threading, time\nn = 0\ntry:\n    while True:\n        threading.Thread(target=time.sleep, " \
           "args=(5,), daemon=True).start()\n        n += 1\nexcept RuntimeError as exc:\n    print('stopped', n)\n"
    result, pid, cwd = run(body, Limits(extra_processes=4, wall_seconds=3.0))
    assert "stopped" in result.stdout and int(result.stdout.split()[-1]) <= 4
    assert_cleaned(pid, cwd)


def test_a_huge_allocation_hits_the_memory_limit() -> None:
    result, pid, cwd = run("x = bytearray(2 * 1024 ** 3)")
    assert result.error == "memory limit of 256 MB exceeded"
    assert "MemoryError" in result.stderr
    assert_cleaned(pid, cwd)


def test_reading_outside_the_directory_is_refused() -> None:
    secret = Path(tempfile.mkdtemp()) / "secret.txt"
    secret.write_text("do not read", encoding="utf-8")
    try:
        for attempt in (f"print(open({str(secret)!r}).read())", "print(os.listdir('/'))",
                        "open('../escape.txt', 'w').write('x')", "print(open('/etc/hostname').read())"):
            result, pid, cwd = run(attempt)
            assert result.exit_code == 1, attempt
            assert "is outside the sandbox directory" in result.stderr, (attempt, result.stderr)
            assert "do not read" not in result.stdout
            assert_cleaned(pid, cwd)
    finally:
        secret.unlink()
        secret.parent.rmdir()


@pytest.mark.slow
def test_opening_a_socket_is_refused() -> None:
    # a listener on this machine proves the refusal is the sandbox's, not a missing route
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(1)
    accepted: list[object] = []
    port = server.getsockname()[1]
    waiter = threading.Thread(target=lambda: accepted.append(_accept(server)), daemon=True)
    waiter.start()
    try:
        result, pid, cwd = run(f"import socket\nsocket.create_connection(('127.0.0.1', {port}), timeout=1)")
        assert result.exit_code == 1
        assert "sandbox: network access is not allowed" in result.stderr
        assert_cleaned(pid, cwd)
    finally:
        server.close()
        waiter.join(2)
    assert accepted in ([], [None])


def _accept(server: socket.socket) -> object:
    server.settimeout(1)
    try:
        conn, _ = server.accept()
    except OSError:
        return None
    conn.close()
    return "connected"


def test_starting_programs_and_foreign_calls_are_refused() -> None:
    for attempt, needle in (("import subprocess\nsubprocess.run(['id'])", "subprocess.Popen is not allowed"),
                            ("os.system('id')", "os.system is not allowed"),
                            ("import ctypes\nctypes.CDLL('libc.so.6')", "loading the library 'libc.so.6'")):
        result, pid, cwd = run(attempt)
        assert result.exit_code == 1 and needle in result.stderr, (attempt, result.stderr)
        assert_cleaned(pid, cwd)


def test_a_huge_file_hits_the_file_size_limit() -> None:
    result, pid, cwd = run("open('big.bin', 'wb').write(b'x' * (3 * 1024 * 1024))",
                           Limits(file_bytes=1024 * 1024, wall_seconds=3.0))
    assert result.exit_code == 1 and "File too large" in result.stderr
    assert_cleaned(pid, cwd)


def test_output_is_cut_at_the_limit() -> None:
    result, pid, cwd = run("print('x' * 100_000)")
    assert result.truncated and len(result.stdout) == FAST.output_bytes
    assert_cleaned(pid, cwd)


def test_the_network_namespace_is_used_when_available() -> None:
    result, _, _ = run("pass")
    assert result.network_namespace is unshare_works()
