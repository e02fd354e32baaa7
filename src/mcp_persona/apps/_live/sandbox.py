"""Run untrusted Python in a throw-away child process.

The code interpreter server executes code a model wrote, so each run gets:

* a fresh ``python -I`` process (isolated: no user site, no environment, no cwd on the path) in its
  own process group, with a minimal environment;
* no network: an audit hook refuses every socket operation, and when ``unshare -rn`` works on this
  machine the process also runs in an empty network namespace (without it, the hook alone stands);
* a private temporary directory, its working directory and the only place it may write; reading is
  limited to that directory and the interpreter's own library folders (the hook checks ``open`` and
  directory listings); forking, starting programs, foreign calls through ``ctypes`` and signalling
  other processes are refused;
* resource limits: CPU seconds (RLIMIT_CPU), address space (RLIMIT_AS), processes (RLIMIT_NPROC, a
  few above what the user already runs: the backstop behind the fork ban; the kernel does not apply
  it to root, so under root the hook alone stops a fork bomb), file size (RLIMIT_FSIZE), open files;
  a wall-clock timeout; stdout/stderr cut at a byte limit.

Afterwards the whole process group is killed (nothing outlives a run) and the directory removed.
"""

from __future__ import annotations

import contextlib
import os
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

# The hook runs inside the child before the user's code; it only uses names bound at install time.
_BOOT = r'''
import os, sys
_ROOT = os.path.realpath(os.getcwd())
_READ = tuple(os.path.realpath(p) for p in {sys.prefix, sys.base_prefix, sys.exec_prefix, *sys.path} if p)
_real, _sep, _W = os.path.realpath, os.sep, os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_APPEND | os.O_TRUNC
def _inside(p, roots):
    p = _real(p)
    return any(p == r or p.startswith(r.rstrip(_sep) + _sep) for r in roots)
_DENY = ("socket.", "subprocess.", "os.exec", "os.posix_spawn", "os.spawn", "os.system", "os.kill",
         "os.killpg", "os.startfile", "pty.", "os.fork", "os.forkpty", "ctypes.cdata", "ctypes.call_function",
         "ctypes.addressof")
def _hook(event, args):
    if event == "ctypes.dlopen":  # compiled extensions (numpy) load their own libraries; nothing else
        name = args[0] if args else None
        if name is None or (isinstance(name, (str, bytes)) and _inside(os.fsdecode(name), _READ)):
            return
        raise PermissionError(f"sandbox: loading the library {name!r} is not allowed")
    if event.startswith(_DENY):
        what = "network access" if event.startswith("socket.") else event
        raise PermissionError(f"sandbox: {what} is not allowed")
    if event == "open":
        path, mode, flags = args
        if not isinstance(path, (str, bytes)):
            return
        path = os.fsdecode(path)
        writes = (mode is not None and any(c in mode for c in "wax+")) or (mode is None and flags & _W)
        if _inside(path, (_ROOT,)) or (not writes and _inside(path, _READ)):
            return
        raise PermissionError(f"sandbox: {path} is outside the sandbox directory")
    if event in ("os.listdir", "os.scandir"):  # the import system lists the library folders
        path = args[0] if args and args[0] is not None else "."
        if isinstance(path, (str, bytes)) and not _inside(os.fsdecode(path), (_ROOT, *_READ)):
            raise PermissionError(f"sandbox: {os.fsdecode(path)} is outside the sandbox directory")
        return
    if event in ("os.remove", "os.rename", "os.rmdir", "os.mkdir", "os.chmod",
                 "os.symlink", "os.link", "os.truncate", "os.utime", "shutil.rmtree", "os.chdir"):
        path = args[0] if args else "."
        if isinstance(path, (str, bytes)) and not _inside(os.fsdecode(path), (_ROOT,)):
            raise PermissionError(f"sandbox: {os.fsdecode(path)} is outside the sandbox directory")
sys.addaudithook(_hook)
del _hook
__name__ = "__main__"
_src = open("main.py", encoding="utf-8").read()
exec(compile(_src, "main.py", "exec"), {"__name__": "__main__", "__builtins__": __builtins__})
'''


@dataclass(frozen=True)
class Limits:
    cpu_seconds: int = 5
    wall_seconds: float = 10.0
    memory_bytes: int = 512 * 1024 * 1024
    extra_processes: int = 8
    file_bytes: int = 8 * 1024 * 1024
    output_bytes: int = 32 * 1024
    open_files: int = 64


@dataclass
class RunResult:
    stdout: str
    stderr: str
    exit_code: int | None
    error: str | None = None  # why the run was cut short (timeout, cpu, memory), if it was
    truncated: bool = False
    files: list[str] = field(default_factory=list)
    network_namespace: bool = False


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


def _user_processes() -> int:
    uid = str(os.getuid())
    count = 0
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/status", encoding="ascii", errors="replace") as fh:
                for line in fh:
                    if line.startswith("Uid:"):
                        count += line.split()[1] == uid
                        break
        except OSError:
            continue
    return count


def _limiter(limits: Limits, nproc: int):
    def apply() -> None:
        resource.setrlimit(resource.RLIMIT_CPU, (limits.cpu_seconds, limits.cpu_seconds + 1))
        resource.setrlimit(resource.RLIMIT_AS, (limits.memory_bytes, limits.memory_bytes))
        resource.setrlimit(resource.RLIMIT_NPROC, (nproc, nproc))
        resource.setrlimit(resource.RLIMIT_FSIZE, (limits.file_bytes, limits.file_bytes))
        resource.setrlimit(resource.RLIMIT_NOFILE, (limits.open_files, limits.open_files))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    return apply


def _read_capped(path: Path, cap: int) -> tuple[str, bool]:
    with open(path, "rb") as fh:
        data = fh.read(cap + 1)
    return data[:cap].decode("utf-8", errors="replace"), len(data) > cap


def run_python(code: str, limits: Limits = Limits()) -> RunResult:
    """Run ``code`` under ``limits``; never raises for anything the code does."""
    workdir = Path(tempfile.mkdtemp(prefix="mcpp-sandbox-"))
    outdir = Path(tempfile.mkdtemp(prefix="mcpp-sandbox-out-"))  # outside the child's reach
    box = workdir / "box"
    box.mkdir()
    (box / "main.py").write_text(code, encoding="utf-8")
    use_ns = unshare_works()
    cmd = [sys.executable, "-I", "-c", _BOOT]
    if use_ns:
        cmd = [shutil.which("unshare") or "unshare", "-rn", *cmd]
    env = {"PATH": "/usr/bin:/bin", "HOME": str(box), "TMPDIR": str(box), "PYTHONHASHSEED": "0",
           "PYTHONDONTWRITEBYTECODE": "1", "LANG": "C.UTF-8"}
    nproc = _user_processes() + limits.extra_processes
    error: str | None = None
    exit_code: int | None = None
    try:
        with open(outdir / "out", "wb") as out, open(outdir / "err", "wb") as err:
            proc = subprocess.Popen(cmd, cwd=box, env=env, stdin=subprocess.DEVNULL, stdout=out, stderr=err,
                                    start_new_session=True, preexec_fn=_limiter(limits, nproc))
            try:
                exit_code = proc.wait(timeout=limits.wall_seconds)
            except subprocess.TimeoutExpired:
                error = f"timed out after {limits.wall_seconds:g} s of wall time"
            finally:
                _kill_group(proc.pid)
                proc.wait()
        stdout, cut_out = _read_capped(outdir / "out", limits.output_bytes)
        stderr, cut_err = _read_capped(outdir / "err", limits.output_bytes)
        files = sorted(str(p.relative_to(box)) for p in box.rglob("*") if p.is_file() and p.name != "main.py")
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
        shutil.rmtree(outdir, ignore_errors=True)
    if "BlockingIOError" in stderr and "fork" in stderr:
        error = f"process limit reached: the code may not start more processes ({error or 'stopped'})"
    elif error is None and exit_code is not None and exit_code < 0:
        sig = -exit_code
        if sig in (signal.SIGXCPU, signal.SIGKILL):
            error = f"CPU time limit of {limits.cpu_seconds} s exceeded"
        else:
            error = f"killed by signal {signal.Signals(sig).name}"
    elif error is None and "MemoryError" in stderr:
        error = f"memory limit of {limits.memory_bytes // (1024 * 1024)} MB exceeded"
    return RunResult(stdout, stderr, exit_code, error, cut_out or cut_err, files, use_ns)


def _kill_group(pgid: int) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(pgid, signal.SIGKILL)
