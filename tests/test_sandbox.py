"""The code interpreter's sandbox: every limit holds, with a clear error, and nothing outlives a run.

Each hostile program first prints its process id (in its own pid namespace), uid and working directory;
afterwards the test checks that no process of the run is left (no sandboxed descendant of this process,
none of its uid when it had its own) and that its host folder is removed. The ``without_the_hook`` tests
turn the audit hook off, to prove that bwrap's walls and the kernel's limits hold on their own.
"""

from __future__ import annotations

import functools
import json
import os
import socket
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import anyio
import pytest
from mcp import Client

from app_harness import result_text
from mcp_persona.apps import get_app
from mcp_persona.apps._live import sandbox
from mcp_persona.apps._live.sandbox import Limits, RunResult, isolation, run_python

FAST = Limits(cpu_seconds=1, wall_seconds=3.0, memory_bytes=256 * 1024 * 1024, output_bytes=4096)
PROLOGUE = "import os\nprint(os.getpid(), os.getuid(), os.getcwd(), flush=True)\n"
PACKAGE = Path(sandbox.__file__).resolve().parents[2]  # src/mcp_persona: its data holds the tasks

needs_own_uid = pytest.mark.skipif(not isolation().own_uid, reason="runs get their own uid only under root, where "
                                   "the machine allows it")


@pytest.fixture(autouse=True)
def private_tempdir(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """Runs keep their host folders in a temporary directory of this test's own, so that the folders another
    process makes meanwhile are not taken for a run's leftovers."""
    saved = tempfile.tempdir
    tempfile.tempdir = str(tmp_path_factory.mktemp("runs"))
    try:
        yield
    finally:
        tempfile.tempdir = saved


def run(body: str, limits: Limits = FAST, *, hook: bool = True) -> tuple[RunResult, int, Path]:
    before = _workdirs()
    result = anyio.run(functools.partial(run_python, PROLOGUE + body, limits, audit_hook=hook))
    pid, uid, cwd = result.stdout.split("\n", 1)[0].split(" ", 2)
    _uid_of_run[int(pid)] = int(uid)
    _new_workdirs[int(pid)] = _workdirs() - before
    return result, int(pid), Path(cwd)


_uid_of_run: dict[int, int] = {}  # the uid each run reported (its own one when it had one)
_new_workdirs: dict[int, set[str]] = {}


def _workdirs() -> set[str]:
    return {e.name for e in os.scandir(tempfile.gettempdir()) if e.name.startswith("mcpp-sandbox-")}


def sandboxed(parent: int | None = None) -> list[int]:
    """Live descendants of ``parent`` (default: this process) inside a sandbox: a root other than ours."""
    ours = os.stat("/").st_ino, os.stat("/").st_dev
    parents: dict[int, int] = {}
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            try:
                stat = Path(f"/proc/{entry.name}/stat").read_text()
            except OSError:
                continue
            state, ppid = stat.rsplit(")", 1)[1].split()[:2]
            if state != "Z":
                parents[int(entry.name)] = int(ppid)
    top = os.getpid() if parent is None else parent
    found = []
    for pid in parents:
        up, seen = pid, 0
        while up in parents and up != top and seen < 64:
            up, seen = parents[up], seen + 1
        if up != top or pid == top:
            continue
        try:
            root = os.stat(f"/proc/{pid}/root")
        except OSError:
            continue
        if (root.st_ino, root.st_dev) != ours:
            found.append(pid)
    return found


def left_over(pid: int) -> list[int]:
    """Live processes of the run that printed ``pid``: sandboxed descendants, or of its own uid."""
    found = sandboxed()
    if isolation().own_uid:
        uid = _uid_of_run[pid]
        for entry in os.scandir("/proc"):
            if entry.name.isdigit():
                try:
                    status = Path(f"/proc/{entry.name}/status").read_text()
                except OSError:
                    continue
                owner = int(next(line for line in status.splitlines() if line.startswith("Uid:")).split()[1])
                if owner == uid and "\nState:\tZ" not in status:
                    found.append(int(entry.name))
    return found


def assert_cleaned(pid: int, cwd: Path) -> None:
    assert not left_over(pid), f"processes of the run were left: {left_over(pid)}"
    assert str(cwd) == "/box"  # a tmpfs of the run's own: gone with it
    left = {d for d in _new_workdirs[pid] if (Path(tempfile.gettempdir()) / d).exists()}
    assert not left, f"host folders of the run were left: {left}"


def uid_of(result: RunResult) -> int:
    return int(result.stdout.split()[1])


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


def test_as_root_a_run_has_its_own_unprivileged_uid() -> None:
    result, pid, cwd = run("print(os.getgid(), os.getgroups())")
    if os.geteuid() == 0 and isolation().own_uid:
        uid = uid_of(result)
        assert uid >= 1 << 30 and result.stdout.splitlines()[1] == f"{uid} []"
        assert uid != uid_of(run("pass")[0])  # a fresh one per run
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


def test_without_the_hook_a_fork_bomb_hits_the_process_limit() -> None:
    result, pid, cwd = run("while True:\n    os.fork()", Limits(extra_processes=4, wall_seconds=5.0), hook=False)
    assert result.exit_code == 1
    assert result.error is not None and result.error.startswith(
        "process limit reached: the code may not start more than 4 processes or threads"), result.error
    assert "BlockingIOError: [Errno 11] Resource temporarily unavailable" in result.stderr
    assert_cleaned(pid, cwd)


def test_without_the_hook_spawning_programs_hits_the_process_limit() -> None:
    body = "import subprocess\nkids = []\nwhile True:\n    kids.append(subprocess.Popen(['sleep', '30']))\n"
    result, pid, cwd = run(body, Limits(extra_processes=4, wall_seconds=5.0), hook=False)
    assert result.exit_code == 1
    assert result.error is not None and result.error.startswith("process limit reached"), result.error
    assert_cleaned(pid, cwd)


def test_without_the_hook_a_process_that_leaves_the_group_is_killed_too() -> None:
    # setsid takes the grandchild out of the run's session and group: its pid namespace still holds it
    body = "import time\nif os.fork() == 0:\n    os.setsid()\n    time.sleep(30)\nprint('parent done')\n"
    result, pid, cwd = run(body, hook=False)
    assert result.exit_code == 0 and "parent done" in result.stdout
    assert_cleaned(pid, cwd)


def test_the_process_limit_stops_threads_beyond_the_allowance() -> None:
    # threads count against RLIMIT_NPROC: a thread bomb stalls at the limit (the hook does not stop threads)
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
    # Outside its directory a run reads only the interpreter's own folders: not the system's files, and not the
    # harness's source (an editable install puts it on sys.path), whose data holds the tasks and their answers.
    secret = Path(tempfile.mkdtemp()) / "secret.txt"
    secret.write_text("do not read", encoding="utf-8")
    task = next((PACKAGE / "data" / "tasks").rglob("*.json"))
    try:
        for attempt in (f"print(open({str(secret)!r}).read())", "print(os.listdir('/'))",
                        "open('../escape.txt', 'w').write('x')", "print(open('/etc/hostname').read())",
                        "print(open('/etc/shadow').read())", f"print(open({str(task)!r}).read())"):
            result, pid, cwd = run(attempt)
            assert result.exit_code == 1, attempt
            assert "is outside the sandbox directory" in result.stderr, (attempt, result.stderr)
            assert "do not read" not in result.stdout
            assert_cleaned(pid, cwd)
    finally:
        secret.unlink()
        secret.parent.rmdir()


def test_time_zones_work_and_their_database_stays_read_only() -> None:
    body = ("import datetime, zoneinfo\n"
            "at = datetime.datetime(2026, 3, 10, 12, tzinfo=zoneinfo.ZoneInfo('America/New_York'))\n"
            "print(at.utcoffset(), at.astimezone(zoneinfo.ZoneInfo('Asia/Tokyo')).isoformat())\n")
    result, pid, cwd = run(body)
    assert result.exit_code == 0, result.stderr
    assert result.stdout.splitlines()[1] == "-1 day, 20:00:00 2026-03-11T01:00:00+09:00"  # EDT from March 8
    if Path("/usr/share/zoneinfo/UTC").exists():
        result, pid, cwd = run("open('/usr/share/zoneinfo/UTC', 'a').write('x')")
        assert result.exit_code == 1 and "outside the sandbox directory" in result.stderr
    assert_cleaned(pid, cwd)


def test_the_harness_package_is_not_importable() -> None:
    result, pid, cwd = run("import mcp_persona")
    assert result.exit_code == 1 and "ModuleNotFoundError: No module named 'mcp_persona'" in result.stderr
    assert_cleaned(pid, cwd)


def test_without_the_hook_the_kernel_keeps_files_out_of_reach() -> None:
    # As its own uid a run cannot read root's files; in its mount namespace the harness's checkout is hidden
    # and nothing but its directory is writable (the world-writable /tmp included). Readable stays what is
    # readable by everyone and not the harness's (system libraries, /etc/hostname): no secret lives there.
    task = next((PACKAGE / "data" / "tasks").rglob("*.json"))
    reads = ["/etc/shadow", str(task)]
    writes = ["/tmp/mcpp-escape.txt", "/var/tmp/mcpp-escape.txt", "../escape.txt"]
    body = (f"for path in {reads!r}:\n    try:\n        open(path).read(1)\n        print('READ', path)\n"
            f"    except OSError as exc:\n        print('refused', path, type(exc).__name__)\n"
            f"for path in {writes!r}:\n    try:\n        open(path, 'w').write('x')\n        print('WROTE', path)\n"
            f"    except OSError as exc:\n        print('refused', path, type(exc).__name__)\n"
            "open('mine.txt', 'w').write('x')\nprint(open('mine.txt').read())\n")
    result, pid, cwd = run(body, hook=False)
    assert result.exit_code == 0, result.stderr
    lines = result.stdout.splitlines()[1:]
    assert [line.split()[1] for line in lines[:-1] if line.startswith("refused")] == reads + writes, lines
    assert lines[-1] == "x" and result.files == ["mine.txt"]
    assert not Path("/tmp/mcpp-escape.txt").exists() and not Path("/var/tmp/mcpp-escape.txt").exists()
    assert_cleaned(pid, cwd)


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


def test_files_under_the_size_limit_still_stop_at_the_disk_quota() -> None:
    """Each file under the per-file limit, together over the run's tmpfs: the quota stops the writes, the run
    says so, and none of it is left anywhere (the tmpfs goes with the run)."""
    mb = 1024 * 1024
    result, pid, cwd = run("for i in range(10):\n    open(f'part{i}.bin', 'wb').write(b'x' * (3 * 1024 * 1024))",
                           Limits(file_bytes=4 * mb, disk_bytes=8 * mb, wall_seconds=5.0))
    assert result.exit_code == 1 and result.error == "disk quota of 8 MB exceeded", result.stderr
    assert "No space left on device" in result.stderr
    assert result.files == ["part0.bin", "part1.bin", "part2.bin"]  # 9 MB asked for the third: cut at 8
    assert_cleaned(pid, cwd)


def test_output_is_cut_at_the_limit() -> None:
    result, pid, cwd = run("print('x' * 100_000)")
    assert result.truncated and len(result.stdout) == FAST.output_bytes
    assert_cleaned(pid, cwd)


def test_every_run_has_its_own_network_namespace() -> None:
    result, _, _ = run("print(sorted(os.listdir('/sys/class/net')) if os.path.isdir('/sys/class/net') else 'no sys')",
                       hook=False)
    assert result.network_namespace is True and isolation().network_namespace


# -- runs do not block the event loop ---------------------------------------------------------------------------
def sandbox_pids(parent: int | None = None) -> list[int]:
    """The runs in flight under ``parent`` (default: this process): its sandboxed descendants."""
    return sandboxed(parent)


async def wait_for_a_run() -> list[int]:
    with anyio.fail_after(10):
        while not (pids := sandbox_pids()):
            await anyio.sleep(0.02)
    return pids


@pytest.mark.anyio
async def test_a_slow_run_does_not_hold_up_other_calls() -> None:
    code_app, time_app = get_app("code_interpreter"), get_app("time")
    slow_env, other_env = code_app.env("default"), time_app.env("default")
    slow_code = {"code": "import time\ntime.sleep(2)\nprint('slept')"}
    async with Client(code_app.server(slow_env)) as code, Client(time_app.server(other_env)) as clock, \
            anyio.create_task_group() as tg:
        started = time.monotonic()
        slow: list[str] = []

        async def call_slow() -> None:
            result = await code.call_tool("execute_python_code", slow_code)
            slow.append(result_text(result))

        tg.start_soon(call_slow)
        await wait_for_a_run()
        # while it sleeps: the same server runs another program, another episode's server answers
        quick = await code.call_tool("execute_python_code", {"code": "print(6 * 7)"})
        now = await clock.call_tool("get_current_time", {"timezone": "Asia/Tokyo"})
        elapsed = time.monotonic() - started
        assert not quick.is_error and json.loads(result_text(quick))["stdout"] == "42\n"
        assert not now.is_error
        assert elapsed < 1.0, f"other calls waited {elapsed:.2f} s for the sleeping run"
        assert not slow
    assert json.loads(slow[0])["stdout"] == "slept\n" and time.monotonic() - started >= 2


@pytest.mark.anyio
async def test_cancelling_a_run_kills_its_process() -> None:
    with anyio.move_on_after(20):
        async with anyio.create_task_group() as tg:
            tg.start_soon(run_python, "import time\ntime.sleep(30)")
            before = _workdirs()
            pids = await wait_for_a_run()
            tg.cancel_scope.cancel()
    assert not [pid for pid in pids if _alive(pid)], "the run's process outlived its cancellation"
    assert not sandboxed() and not _workdirs() - before


@pytest.mark.anyio
async def test_an_episode_cancelled_mid_call_leaves_no_process() -> None:
    app = get_app("code_interpreter")
    async with Client(app.server(app.env("default"))) as client:
        pids: list[int] = []

        async def watch() -> None:
            pids.extend(await wait_for_a_run())

        async with anyio.create_task_group() as tg:
            tg.start_soon(watch)
            with anyio.move_on_after(1.0) as scope:  # the episode's time is up while the code sleeps
                await client.call_tool("execute_python_code", {"code": "import time\ntime.sleep(30)"})
        assert scope.cancelled_caught and pids
    assert not [pid for pid in pids if _alive(pid)]


def _alive(pid: int) -> bool:
    try:
        return "zombie" not in Path(f"/proc/{pid}/status").read_text().lower()
    except OSError:
        return False


_HARNESS = """
import anyio, sys
from mcp_persona.apps._live.sandbox import Limits, isolation, run_python
isolation()  # decided by trial runs: done before the run the test looks for
print("starting", flush=True)
anyio.run(run_python, "import time\\ntime.sleep(30)", Limits(wall_seconds=30.0))
"""


def test_a_killed_harness_takes_its_run_with_it() -> None:
    """SIGKILL gives the harness no chance to clean up: the run dies with it (the parent-death signal), rather
    than running on until a wall limit nobody is left to enforce."""
    import signal
    import subprocess
    import sys

    harness = subprocess.Popen([sys.executable, "-c", _HARNESS], stdout=subprocess.PIPE, text=True,
                               env=os.environ | {"PYTHONPATH": str(Path(__file__).parents[1] / "src")})
    try:
        assert harness.stdout is not None and harness.stdout.readline().strip() == "starting"
        deadline = time.monotonic() + 10
        while not (runs := sandbox_pids(harness.pid)):
            assert time.monotonic() < deadline, "the run never started"
            time.sleep(0.02)
        os.kill(harness.pid, signal.SIGKILL)
        harness.wait(5)
        deadline = time.monotonic() + 3
        while any(_alive(pid) for pid in runs):
            assert time.monotonic() < deadline, "the run outlived its harness"
            time.sleep(0.02)
    finally:
        harness.kill()
        harness.wait(5)
