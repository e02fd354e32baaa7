"""Run untrusted Python in a throw-away sandbox built by bubblewrap, without blocking the event loop.

The code interpreter server executes code a model wrote. An audit hook is no boundary (PEP 578 says so:
``ctypes`` calls raise no event), so the boundary is the kernel's, set up by ``bwrap`` (Debian's
``bubblewrap``), a maintained tool:

* new mount, pid, network, IPC and UTS namespaces (and a user namespace when the harness is not root);
  ``--die-with-parent`` and ``--new-session``; the run sees only what is bound into it: ``/usr`` (and the
  host's ``/bin``, ``/lib`` ... links into it), the interpreter read-only, ``/proc`` of its own pid
  namespace, a minimal ``/dev``, its program read-only at ``/code/main.py``, and ``/box``, a size-limited
  tmpfs (its working directory, the only writable place, gone with the run). Not the checkout, the
  installed package's data (hidden under an empty tmpfs where the interpreter's site-packages holds it),
  the run folder, ``/tmp``, the home directory or any other episode;
* as its own user: a harness running as root gives each run a fresh unprivileged uid and gid (the child
  drops to it before the program runs, so the kernel applies RLIMIT_NPROC, which it never applies to
  root); a harness running as a user runs it as that user inside the user namespace, where the process
  count starts from the run;
* resource limits: CPU seconds, address space, processes and threads, file size, open files; a wall-clock
  timeout; stdout/stderr cut at a byte limit; the tmpfs's size is the run's disk quota;
* the audit hook of :mod:`~mcp_persona.apps._live.sandbox_child` stays as a second layer (clear messages
  for the common cases: sockets, forking, starting programs).

Where ``bwrap`` is missing or cannot make namespaces, a run is refused with a message saying how to enable
them: never a silently weaker sandbox. Afterwards the run's process group is killed (the pid namespace dies
with its first process, and with it everything the code started) and, with its own uid, every process of
that uid. Cancelling a run (the episode is cancelled) does the same before the cancellation goes on.
"""

from __future__ import annotations

import contextlib
import logging
import marshal
import os
import shutil
import signal
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import BinaryIO

import anyio

from mcp_persona import isolation as walls
from mcp_persona import scratch

log = logging.getLogger(__name__)

_CHILD = Path(__file__).with_name("sandbox_child.py").read_text(encoding="utf-8")
# Killed processes die asynchronously; wait for the group to empty, 5 ms at a time, but 2 s at most: a zombie
# stays in it till reaped, and an orphan is never reaped where the harness is an init-less container's pid 1.
_REAP_TRIES = 400
BOX = "/box"  # the run's working directory inside the sandbox
CODE = "/code/main.py"  # its program, read-only
FILE_LIST = "\x00mcpp-files:"  # the child's last line on stderr: the files the program left in BOX


@dataclass(frozen=True)
class Limits:
    cpu_seconds: int = 5
    wall_seconds: float = 10.0
    memory_bytes: int = 512 * 1024 * 1024
    extra_processes: int = 8  # processes or threads beyond the run's own
    file_bytes: int = 8 * 1024 * 1024
    disk_bytes: int = 32 * 1024 * 1024  # the size of the run's tmpfs: all it may write
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


class SandboxUnavailable(walls.IsolationUnavailable):
    """This machine cannot isolate a run (no ``bwrap``, or no namespaces); the message says how to fix it."""


@dataclass(frozen=True)
class Isolation:
    """How runs are confined on this machine: always bwrap's namespaces; ``own_uid`` when the harness is root
    (a fresh unprivileged uid per run), else the harness's uid inside a user namespace."""

    bwrap: str
    own_uid: bool
    network_namespace: bool = True  # always: every run is in a network namespace of its own


_decided: Isolation | SandboxUnavailable | None = None


def isolation() -> Isolation:
    """The isolation runs get here, tried out once per process (one trial run, ~50 ms); SandboxUnavailable
    when there is none."""
    global _decided
    if _decided is None:
        _decided = _decide()
    if isinstance(_decided, SandboxUnavailable):
        raise _decided
    return _decided


def _decide() -> Isolation | SandboxUnavailable:
    exe = shutil.which("bwrap")
    if exe is None:
        return SandboxUnavailable(f"the code interpreter needs bwrap, which is not installed: {walls.HOW_TO_ENABLE}")
    iso = Isolation(bwrap=exe, own_uid=os.geteuid() == 0)
    problem = _trial(iso)
    if problem is not None:
        log.error("sandbox: bwrap cannot start a run here: %s", problem)
        return SandboxUnavailable(f"bwrap cannot start a code run here ({problem}): {walls.HOW_TO_ENABLE}")
    return iso


def _trial(iso: Isolation) -> str | None:
    """Why a run under ``iso`` fails here (None: it works): imports after the set-up, writes a file."""
    run = _Run("import fractions\nopen('t.txt', 'w').write('x')\nprint(fractions.Fraction(2, 6))", Limits(), iso)
    try:
        with run.streams() as (out, err):
            proc = subprocess.Popen(run.cmd, env=run.env, stdin=subprocess.DEVNULL, stdout=out, stderr=err,
                                    start_new_session=True)
            try:
                code = proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                code = None
            finally:
                run.kill(proc.pid)
                proc.wait()
        result = run.result(code, timed_out=code is None)
    finally:
        run.remove()
    if result.exit_code == 0 and result.stdout == "1/3\n" and result.files == ["t.txt"]:
        return None
    return (result.stderr.strip().splitlines() or [f"exit code {result.exit_code}"])[-1]


async def run_python(code: str, limits: Limits = Limits(), *, audit_hook: bool = True) -> RunResult:
    """Run ``code`` under ``limits``; never raises for anything the code does. On a machine that cannot isolate
    a run, nothing is run: SandboxUnavailable says how to enable the sandbox (the harness's fault, recorded as
    an internal error of the episode, never the model's).

    ``audit_hook=False`` is for tests only: it leaves the kernel's walls alone, to prove they hold.
    """
    iso = _decided if isinstance(_decided, Isolation) else await anyio.to_thread.run_sync(isolation)
    run = _Run(code, limits, iso, audit_hook=audit_hook)
    try:
        with run.streams() as (out, err):
            with anyio.CancelScope(shield=True):  # once started, the process is always killed below
                proc = await anyio.open_process(run.cmd, env=run.env, stdin=subprocess.DEVNULL, stdout=out,
                                                stderr=err, start_new_session=True)
            exit_code: int | None = None
            try:
                with anyio.move_on_after(limits.wall_seconds) as deadline:
                    exit_code = await proc.wait()
            finally:  # also when the caller is cancelled: the code must not run on
                with anyio.CancelScope(shield=True):
                    run.kill(proc.pid)
                    await proc.wait()
                    for _ in range(_REAP_TRIES):  # so that nothing of the run is left when it returns
                        if not _group_exists(proc.pid) and not any(map(_alive, run.killed)):
                            break
                        await anyio.sleep(0.005)
        return run.result(exit_code, timed_out=deadline.cancelled_caught)
    finally:
        run.remove()


class _Run:
    """One run's host folder (its program and captured output, never visible to it), command and clean-up."""

    def __init__(self, code: str, limits: Limits, iso: Isolation, *, audit_hook: bool = True) -> None:
        self.limits = limits
        self.iso = iso
        # under the run folder during a run (swept on --resume if a killed harness leaves it), else in /tmp
        self.workdir = scratch.make_dir("mcpp-sandbox-")
        (self.workdir / "main.py").write_text(code, encoding="utf-8")
        self.uid: int | None = walls.fresh_uid() if iso.own_uid else None
        if self.uid is not None:
            os.chmod(self.workdir, 0o711)
            os.chmod(self.workdir / "main.py", 0o644)  # bound read-only; the run's uid reads it
        # the process count starts at the run's first process: its own uid, or its own user namespace
        nproc = 1 + limits.extra_processes
        cpu, mem, size, files = limits.cpu_seconds, limits.memory_bytes, limits.file_bytes, limits.open_files
        orders: dict[str, object] = {
            "uid": self.uid, "box": BOX, "code": CODE, "hook": audit_hook, "files_marker": FILE_LIST,
            "limits": {"RLIMIT_CPU": [cpu, cpu + 1], "RLIMIT_AS": [mem, mem], "RLIMIT_NPROC": [nproc, nproc],
                       "RLIMIT_FSIZE": [size, size], "RLIMIT_NOFILE": [files, files], "RLIMIT_CORE": [0, 0]},
        }
        self.cmd = [*bwrap_args(iso, limits, self.workdir / "main.py"), _python(), "-I", "-c", _CHILD,
                    marshal.dumps(orders).hex()]
        self.env = {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"}
        self.killed: list[int] = []

    @contextlib.contextmanager
    def streams(self) -> Iterator[tuple[BinaryIO, BinaryIO]]:
        with open(self.workdir / "out", "wb") as out, open(self.workdir / "err", "wb") as err:
            yield out, err

    def kill(self, pid: int) -> None:
        """SIGKILL bwrap and everything under it (its namespace runs in a session of its own, so not in bwrap's
        group: the tree is walked), and, with its own uid, anything of that uid; return once all are gone."""
        tree = _tree(pid)
        with contextlib.suppress(ProcessLookupError):
            os.killpg(pid, signal.SIGKILL)
        for member in tree:
            with contextlib.suppress(ProcessLookupError):
                os.kill(member, signal.SIGKILL)
        if self.uid is not None:  # belt and braces: anything of the run's uid
            walls.kill_user(self.uid)
        self.killed = tree

    def result(self, exit_code: int | None, *, timed_out: bool) -> RunResult:
        limits = self.limits
        stdout, cut_out = _read_capped(self.workdir / "out", limits.output_bytes)
        stderr, cut_err = _read_capped(self.workdir / "err", limits.output_bytes + 64 * 1024)
        stderr, files = _split_file_list(stderr)
        if len(stderr) > limits.output_bytes:
            stderr, cut_err = stderr[:limits.output_bytes], True
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
        elif error is None and exit_code is not None and exit_code >= 128 and exit_code - 128 in (
                signal.SIGXCPU, signal.SIGKILL):  # bwrap reports its child's death by signal as 128 + signal
            error = f"CPU time limit of {limits.cpu_seconds} s exceeded"
        elif error is None and "MemoryError" in stderr:
            error = f"memory limit of {limits.memory_bytes // (1024 * 1024)} MB exceeded"
        elif error is None and "[Errno 28] No space left on device" in stderr:
            error = f"disk quota of {limits.disk_bytes // (1024 * 1024)} MB exceeded"
        return RunResult(stdout, stderr, exit_code, error, cut_out or cut_err, files, self.iso.network_namespace)

    def remove(self) -> None:
        shutil.rmtree(self.workdir, ignore_errors=True)
        if self.uid is not None:
            walls.release_uid(self.uid)


def _split_file_list(stderr: str) -> tuple[str, list[str]]:
    """The program's stderr, and the files it left (the child's last line, when it got to write it)."""
    at = stderr.rfind(FILE_LIST)
    if at < 0:
        return stderr, []
    listed = stderr[at + len(FILE_LIST):].strip()
    return stderr[:at], sorted(name for name in listed.split("\x00") if name)


@cache
def _python() -> str:
    """The interpreter a run starts: this environment's (its packages, but not the harness: see
    :func:`bwrap_args`), by the path the environment knows it by."""
    return sys.executable


def _prefixes() -> list[str]:
    """The interpreter's folders: the environment and the base installation it was made from."""
    return sorted({os.path.realpath(p) for p in (sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix)}
                  | {os.path.dirname(os.path.dirname(os.path.realpath(sys.executable)))})


def _package_dirs() -> list[str]:
    """The harness's own package in a site-packages the run can see (a regular install: its data holds the
    tasks and their answers), to be hidden under an empty tmpfs. An editable install lives in the checkout,
    which is never bound."""
    package = os.path.realpath(Path(__file__).resolve().parents[2])
    return [package] if any(package.startswith(p.rstrip("/") + "/") for p in _prefixes()) else []


def bwrap_args(iso: Isolation, limits: Limits, program: Path) -> list[str]:
    """The ``bwrap`` command line of a run (before the interpreter's), as described in the module's docstring."""
    made = {"/", "/usr"}
    args = [iso.bwrap, *walls.namespaces(as_root=iso.own_uid), "--new-session", *walls.system(),
            *walls.read_only(_prefixes(), made)]
    for package in _package_dirs():
        args += ["--perms", "0755", "--size", "4096", "--tmpfs", package]
    args += ["--perms", "1777" if iso.own_uid else "0700", "--size", str(limits.disk_bytes), "--tmpfs", BOX,
             "--perms", "0755", "--dir", os.path.dirname(CODE), "--ro-bind", str(program), CODE, "--chdir", BOX,
             "--clearenv", "--setenv", "PATH", "/usr/bin:/bin", "--setenv", "HOME", BOX, "--setenv", "TMPDIR", BOX,
             "--setenv", "PYTHONHASHSEED", "0", "--setenv", "PYTHONDONTWRITEBYTECODE", "1",
             "--setenv", "LANG", "C.UTF-8",
             # the rest read-only: under a user harness the run owns the sandbox's own directories
             "--remount-ro", "/", "--remount-ro", "/dev", "--"]
    return args


def _tree(pid: int) -> list[int]:
    """``pid``'s live descendants, from ``/proc``."""
    children: dict[int, list[int]] = {}
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            try:
                with open(f"/proc/{entry.name}/stat", "rb") as fh:
                    ppid = int(fh.read().rsplit(b")", 1)[1].split()[1])
            except (OSError, ValueError, IndexError):
                continue
            children.setdefault(ppid, []).append(int(entry.name))
    found, todo = [], [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            return fh.read().rsplit(b")", 1)[1].split()[0] not in (b"Z", b"X")
    except OSError:
        return False


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
