"""Run untrusted Python in a throw-away child process, without blocking the event loop.

The code interpreter server executes code a model wrote, so each run gets:

* a fresh ``python -I`` process (isolated: no user site, no environment, no cwd on the path) in its
  own process group, with a minimal environment; only the interpreter's own folders stay on ``sys.path``
  (an editable install would add the harness's source tree, tasks included);
* an audit hook (:mod:`~mcp_persona.apps._live.sandbox_child`): sockets, forking, starting programs,
  foreign calls through ``ctypes`` and signalling other processes are refused; reading is limited to a
  private temporary directory (also the working directory and the only place it may write) and the
  interpreter's folders;
* resource limits: CPU seconds (RLIMIT_CPU), address space (RLIMIT_AS), processes and threads
  (RLIMIT_NPROC), file size (RLIMIT_FSIZE), open files; a wall-clock timeout; stdout/stderr cut at a byte
  limit;
* below the hook, what the kernel enforces, decided once per process by :func:`isolation`:

  - harness not root: the harness's own uid, and ``unshare -rn`` (an empty network namespace) where it
    works. RLIMIT_NPROC holds: in the user namespace it counts from the run's first process (without one,
    the user's running threads are added to the allowance);
  - harness root: a fresh unprivileged uid and gid per run (no supplementary group), so RLIMIT_NPROC
    holds (the kernel never applies it to root, nor to root mapped into a user namespace: measured) and
    root-only files (``/etc/shadow``) are unreadable. Where root may make namespaces the run also gets
    private mount and network namespaces: every mount read-only and nosuid, only its directory writable,
    the harness's checkout hidden under an empty tmpfs, and the interpreter's folders bound read-only
    through any directory the uid could not cross (a Python in root's home). Where it may not, the uid
    alone (if it can reach the interpreter), else root with the hook alone (logged).

Afterwards the process group (and, with its own uid, every process of that uid: a child that left the
group too) is killed, so nothing outlives a run, and the directory is removed. Cancelling a run (the
episode is cancelled) does the same before the cancellation goes on.
"""

from __future__ import annotations

import contextlib
import logging
import marshal
import os
import secrets
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import BinaryIO

import anyio

log = logging.getLogger(__name__)

_CHILD = Path(__file__).with_name("sandbox_child.py").read_text(encoding="utf-8")
_UID_FIRST, _UID_COUNT = 1 << 30, 1 << 30  # far from real accounts; below 2**31, which some tools misread
_uids_in_use: set[int] = set()
# Killed processes die asynchronously; wait for the group to empty, 5 ms at a time, but 2 s at most: a zombie
# stays in it till reaped, and an orphan is never reaped where the harness is an init-less container's pid 1.
_REAP_TRIES = 400


@dataclass(frozen=True)
class Limits:
    cpu_seconds: int = 5
    wall_seconds: float = 10.0
    memory_bytes: int = 512 * 1024 * 1024
    extra_processes: int = 8  # processes or threads beyond the run's own
    file_bytes: int = 8 * 1024 * 1024
    output_bytes: int = 32 * 1024
    open_files: int = 64


@dataclass
class RunResult:
    stdout: str
    stderr: str
    exit_code: int | None
    error: str | None = None  # why the run was cut short (timeout, cpu, memory, processes), if it was
    truncated: bool = False
    files: list[str] = field(default_factory=list)
    network_namespace: bool = False


@dataclass(frozen=True)
class Isolation:
    """What confines a run below the audit hook on this machine."""

    own_uid: bool = False  # (harness root) a fresh unprivileged uid and gid per run
    namespaces: bool = False  # (with own_uid) private mount and network namespaces, read-only file system
    user_namespace: bool = False  # (otherwise) ``unshare -rn``: an empty network namespace

    @property
    def network_namespace(self) -> bool:
        return self.namespaces or self.user_namespace

    @property
    def process_limit(self) -> bool:
        """Whether the kernel applies RLIMIT_NPROC to a run (it never does to root)."""
        return self.own_uid or os.geteuid() != 0


@cache
def unshare_works() -> bool:
    """Whether ``unshare -rn`` can start a process here (it needs unprivileged user namespaces)."""
    exe = shutil.which("unshare")
    if not exe:
        return False
    try:
        return subprocess.run([exe, "-rn", "true"], capture_output=True, timeout=5).returncode == 0
    except (OSError, subprocess.SubprocessError):
        return False


_decided: Isolation | None = None


def isolation() -> Isolation:
    """The isolation runs get here, tried out once per process (a trial run as root: ~0.1 s)."""
    global _decided
    if _decided is None:
        _decided = _decide()
    return _decided


def _decide() -> Isolation:
    plain = Isolation(user_namespace=unshare_works())
    if os.geteuid() != 0:
        return plain
    candidates = [Isolation(own_uid=True, namespaces=True)]
    if not _blocking_dirs(_interpreter_dirs()):  # without a mount namespace the uid must reach the interpreter
        candidates.append(Isolation(own_uid=True))
    problem: str | None = None
    for candidate in candidates:
        problem = _trial(candidate)
        if problem is None:
            return candidate
        log.warning("sandbox: runs cannot get %s here: %s", candidate, problem)
    log.warning("sandbox: runs stay root, so only the audit hook stops a fork bomb (%s)", problem)
    return plain


def _trial(iso: Isolation) -> str | None:
    """Why a run under ``iso`` fails here (None: it works): imports after the set-up, writes a file."""
    run = _Run("import fractions\nopen('t.txt', 'w').write('x')\nprint(fractions.Fraction(2, 6))", Limits(), iso)
    try:
        with run.streams() as (out, err):
            proc = subprocess.Popen(run.cmd, cwd=run.box, env=run.env, stdin=subprocess.DEVNULL, stdout=out,
                                    stderr=err, start_new_session=True)
            try:
                code = proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                code = None
            finally:
                run.kill(proc.pid)
                proc.wait()
                for _ in range(_REAP_TRIES):
                    if not _group_exists(proc.pid):
                        break
                    time.sleep(0.005)
        result = run.result(code, timed_out=code is None)
    finally:
        run.remove()
    if result.exit_code == 0 and result.stdout == "1/3\n" and result.files == ["t.txt"]:
        return None
    return (result.stderr.strip().splitlines() or [f"exit code {result.exit_code}"])[-1]


async def run_python(code: str, limits: Limits = Limits(), *, audit_hook: bool = True) -> RunResult:
    """Run ``code`` under ``limits``; never raises for anything the code does.

    ``audit_hook=False`` is for tests only: it leaves the kernel's limits alone, to prove they hold.
    """
    iso = _decided or await anyio.to_thread.run_sync(isolation)
    run = _Run(code, limits, iso, audit_hook=audit_hook)
    try:
        with run.streams() as (out, err):
            with anyio.CancelScope(shield=True):  # once started, the process is always killed below
                proc = await anyio.open_process(run.cmd, cwd=run.box, env=run.env, stdin=subprocess.DEVNULL,
                                                stdout=out, stderr=err, start_new_session=True)
            exit_code: int | None = None
            try:
                with anyio.move_on_after(limits.wall_seconds) as deadline:
                    exit_code = await proc.wait()
            finally:  # also when the caller is cancelled: the code must not run on
                with anyio.CancelScope(shield=True):
                    run.kill(proc.pid)
                    await proc.wait()
                    for _ in range(_REAP_TRIES):  # so that nothing of the run is left when it returns
                        if not _group_exists(proc.pid):
                            break
                        await anyio.sleep(0.005)
        return run.result(exit_code, timed_out=deadline.cancelled_caught)
    finally:
        run.remove()


class _Run:
    """One run's directories, command and clean-up."""

    def __init__(self, code: str, limits: Limits, iso: Isolation, *, audit_hook: bool = True) -> None:
        self.limits = limits
        self.iso = iso
        self.workdir = Path(tempfile.mkdtemp(prefix="mcpp-sandbox-"))
        self.outdir = Path(tempfile.mkdtemp(prefix="mcpp-sandbox-out-"))  # outside the child's reach
        self.box = self.workdir / "box"
        self.box.mkdir(mode=0o700)
        (self.box / "main.py").write_text(code, encoding="utf-8")
        self.uid: int | None = None
        if iso.own_uid:
            self.uid = _fresh_uid()
            os.chmod(self.workdir, 0o711)  # the uid crosses it to its box, never lists it
            os.chown(self.box, self.uid, self.uid)
        if iso.own_uid or iso.user_namespace:
            nproc = 1 + limits.extra_processes  # the count starts at this run's first process
        else:
            nproc = _user_threads(os.getuid()) + limits.extra_processes
        cpu, mem, size, files = limits.cpu_seconds, limits.memory_bytes, limits.file_bytes, limits.open_files
        orders: dict[str, object] = {
            "uid": self.uid, "namespaces": iso.namespaces, "box": str(self.box), "hook": audit_hook,
            "parent": os.getpid(),
            "limits": {"RLIMIT_CPU": [cpu, cpu + 1], "RLIMIT_AS": [mem, mem], "RLIMIT_NPROC": [nproc, nproc],
                       "RLIMIT_FSIZE": [size, size], "RLIMIT_NOFILE": [files, files], "RLIMIT_CORE": [0, 0]},
        }
        if iso.namespaces:
            hide, expose = _layout()
            orders["hide"] = hide
            orders["expose"] = sorted([[d, False] for d in expose] + [[str(self.box), True]])
        self.cmd = [sys.executable, "-I", "-c", _CHILD, marshal.dumps(orders).hex()]
        if iso.user_namespace:
            self.cmd = [shutil.which("unshare") or "unshare", "-rn", *self.cmd]
        self.env = {"PATH": "/usr/bin:/bin", "HOME": str(self.box), "TMPDIR": str(self.box),
                    "PYTHONHASHSEED": "0", "PYTHONDONTWRITEBYTECODE": "1", "LANG": "C.UTF-8"}

    @contextlib.contextmanager
    def streams(self) -> Iterator[tuple[BinaryIO, BinaryIO]]:
        with open(self.outdir / "out", "wb") as out, open(self.outdir / "err", "wb") as err:
            yield out, err

    def kill(self, pid: int) -> None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(pid, signal.SIGKILL)
        if self.uid is not None:  # a process that left the group (setsid) is still this uid's
            _kill_user(self.uid)

    def result(self, exit_code: int | None, *, timed_out: bool) -> RunResult:
        limits = self.limits
        stdout, cut_out = _read_capped(self.outdir / "out", limits.output_bytes)
        stderr, cut_err = _read_capped(self.outdir / "err", limits.output_bytes)
        files = sorted(str(p.relative_to(self.box)) for p in self.box.rglob("*")
                       if p.is_file() and p.name != "main.py")
        error: str | None = None
        if timed_out:
            exit_code = None
            error = f"timed out after {limits.wall_seconds:g} s of wall time"
        # EAGAIN from fork (os.fork, subprocess) or from starting a thread; anywhere in stderr, since the
        # processes of a fork bomb share it and any of them may have written last
        limited = "BlockingIOError: [Errno 11]" in stderr or "can't start new thread" in stderr
        if limited and exit_code != 0:
            error = (f"process limit reached: the code may not start more than {limits.extra_processes} processes "
                     f"or threads ({error or 'stopped'})")
        elif error is None and exit_code is not None and exit_code < 0:
            sig = -exit_code
            if sig in (signal.SIGXCPU, signal.SIGKILL):
                error = f"CPU time limit of {limits.cpu_seconds} s exceeded"
            else:
                error = f"killed by signal {signal.Signals(sig).name}"
        elif error is None and "MemoryError" in stderr:
            error = f"memory limit of {limits.memory_bytes // (1024 * 1024)} MB exceeded"
        return RunResult(stdout, stderr, exit_code, error, cut_out or cut_err, files, self.iso.network_namespace)

    def remove(self) -> None:
        shutil.rmtree(self.workdir, ignore_errors=True)
        shutil.rmtree(self.outdir, ignore_errors=True)
        if self.uid is not None:
            _uids_in_use.discard(self.uid)


def _fresh_uid() -> int:
    # random rather than counted: harness processes on one machine (or containers sharing a kernel) must not
    # share a uid, since a uid's processes are counted and killed together
    while True:
        uid = _UID_FIRST + secrets.randbelow(_UID_COUNT)
        if uid not in _uids_in_use:
            _uids_in_use.add(uid)
            return uid


def _processes() -> Iterator[tuple[int, int, int]]:
    """(pid, real uid, threads) of every live process, from ``/proc/<pid>/status`` (raw reads: this runs
    after every run as root, so it is kept cheap, ~1 ms for a hundred processes)."""
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            fd = os.open(f"/proc/{entry.name}/status", os.O_RDONLY)
        except OSError:
            continue
        try:
            status = os.read(fd, 8192)
        except OSError:
            continue
        finally:
            os.close(fd)
        state, uid, threads = (_field(status, key) for key in (b"\nState:", b"\nUid:", b"\nThreads:"))
        if uid is not None and state not in (b"Z", b"X"):  # a zombie is dead, whoever reaps it
            yield int(entry.name), int(uid), int(threads or 1)


def _field(status: bytes, key: bytes) -> bytes | None:
    at = status.find(key)
    if at < 0:
        return None
    words = status[at + len(key):status.find(b"\n", at + 1)].split()
    return words[0] if words else None


def _user_threads(uid: int) -> int:
    """Threads the user runs now: RLIMIT_NPROC counts threads, not processes."""
    return sum(threads for _, owner, threads in _processes() if owner == uid)


def _kill_user(uid: int) -> None:
    for _ in range(100):  # RLIMIT_NPROC keeps the count small; each sweep kills all there are
        pids = [pid for pid, owner, _ in _processes() if owner == uid]
        if not pids:
            return
        for pid in pids:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
    log.error("sandbox: processes of uid %d survived 100 sweeps", uid)


def _group_exists(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    return True


def _read_capped(path: Path, cap: int) -> tuple[str, bool]:
    with open(path, "rb") as fh:
        data = fh.read(cap + 1)
    return data[:cap].decode("utf-8", errors="replace"), len(data) > cap


# -- the file system of a run in its own mount namespace ------------------------------------------------------
def _interpreter_dirs() -> list[str]:
    return sorted({os.path.realpath(p) for p in (sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix)})


def _blocking_dirs(paths: list[str]) -> list[str]:
    """For each path, the outermost directory on its way that others may not cross (none: reachable)."""
    found: list[str] = []
    for path in paths:
        here = Path("/")
        for part in Path(path).parts[1:]:
            here = here / part
            try:
                if not os.stat(here).st_mode & stat.S_IXOTH:
                    found.append(str(here))
                    break
            except OSError:
                break
    return found


def _checkout() -> str:
    """The harness's source checkout (its tasks, gold answers and scripts), else its installed package."""
    package = Path(__file__).resolve().parents[2]
    for root in (package.parent.parent, package.parent):  # src layout, flat layout
        if (root / "pyproject.toml").is_file():
            return str(root)
    return str(package)


def _outermost(paths: list[str]) -> list[str]:
    keep: list[str] = []
    for path in sorted(set(paths), key=len):
        if not any(path == k or path.startswith(k.rstrip("/") + "/") for k in keep):
            keep.append(path)
    return keep


@cache
def _layout() -> tuple[list[str], list[str]]:
    """(directories hidden under an empty tmpfs, interpreter folders bound read-only into them)."""
    dirs = _outermost(_interpreter_dirs())
    hide = _outermost([*_blocking_dirs(dirs), _checkout()])
    expose = [d for d in dirs if any(d.startswith(h.rstrip("/") + "/") for h in hide)]
    return hide, expose
