"""The walls around what the model under test can make run: bubblewrap (``bwrap``) command lines.

Model-written code (the code interpreter) and the real MCP servers of LiveMCPBench each run inside their
own bwrap sandbox: new mount, pid, network, IPC and UTS namespaces, with only what is bound in visible.
This module builds the parts both share: the namespaces, the system's read-only folders, and read-only
binds of installations that live outside ``/usr`` (an interpreter under a home directory, the servers'
installs in the checkout) with their parent folders made crossable. What each adds (its writable folders,
its uid) is in :mod:`mcp_persona.apps._live.sandbox` and :mod:`mcp_persona.livemcptool.real`.
"""

from __future__ import annotations

import contextlib
import logging
import os
import secrets
import shutil
import signal
from collections.abc import Iterable, Iterator
from pathlib import Path

log = logging.getLogger(__name__)

HOW_TO_ENABLE = ("install bubblewrap (apt-get install bubblewrap) and allow user namespaces (where they are off: "
                 "sysctl -w kernel.unprivileged_userns_clone=1, or kernel.apparmor_restrict_unprivileged_userns=0)")


class IsolationUnavailable(RuntimeError):
    """bwrap is missing or cannot make namespaces here; the message says how to enable it."""


def bwrap() -> str:
    exe = shutil.which("bwrap")
    if exe is None:
        raise IsolationUnavailable(f"bwrap is not installed: {HOW_TO_ENABLE}")
    return exe


def namespaces(*, as_root: bool) -> list[str]:
    """Every namespace but the user's; a harness that is not root also gets a user namespace (that is how
    bwrap makes the others unprivileged), with further user namespaces refused inside."""
    args = ["--die-with-parent", "--unshare-ipc", "--unshare-pid", "--unshare-net", "--unshare-uts",
            "--unshare-cgroup-try", "--hostname", "sandbox"]
    return args + ([] if as_root else ["--unshare-user", "--disable-userns"])


def system() -> list[str]:
    """``/usr`` read-only and the host's top-level links into it (``/bin``, ``/lib`` ...), the account
    databases programs look users up in (``/etc/passwd``, ``/etc/group``: public, never ``/etc/shadow``),
    ``/proc`` of the sandbox's pid namespace, a minimal ``/dev``."""
    args: list[str] = []
    for name in ("bin", "sbin", "lib", "lib32", "lib64", "libx32"):
        host = f"/{name}"
        if os.path.islink(host):
            args += ["--symlink", os.readlink(host), host]
        elif os.path.isdir(host):
            args += ["--ro-bind", host, host]
    args += ["--perms", "0755", "--dir", "/etc"]  # crossable by the sandbox's own uid (programs look in /etc)
    for name in ("passwd", "group", "nsswitch.conf", "alternatives"):  # alternatives: where /usr/bin/awk points
        args += ["--ro-bind-try", f"/etc/{name}", f"/etc/{name}"]
    return [*args, "--ro-bind", "/usr", "/usr", *proc(), "--dev", "/dev"]


# The parts of /proc through which a process could change the host rather than itself (sysctls such as
# kernel/core_pattern, the magic SysRq key, interrupt and bus settings, file-system tunables): the host's own,
# bound read-only over the sandbox's fresh /proc. Unprivileged, they are refused anyway; read-only, they are
# refused whatever the uid, and the refusal says "read-only file system".
HOST_PROC = ("sys", "sysrq-trigger", "irq", "bus", "fs")


def proc() -> list[str]:
    """``/proc`` of the sandbox's pid namespace with :data:`HOST_PROC` read-only."""
    args = ["--proc", "/proc"]
    for name in HOST_PROC:
        args += ["--ro-bind-try", f"/proc/{name}", f"/proc/{name}"]
    return args


def drop_to(uid: int) -> list[str]:
    """The command prefix, run as root inside the sandbox, that becomes ``uid`` (and its own gid) with no
    supplementary groups, no capabilities in any set and no way to gain privileges (setuid programs stay
    unprivileged). The sandbox must keep CAP_SETUID, CAP_SETGID and CAP_SETPCAP for it: :func:`caps_for_drop`."""
    return ["/usr/bin/setpriv", f"--reuid={uid}", f"--regid={uid}", "--clear-groups", "--no-new-privs",
            "--inh-caps=-all", "--bounding-set=-all", "--"]


def caps_for_drop() -> list[str]:
    """bwrap's capability options under a root harness when the sandboxed command starts with :func:`drop_to`:
    every capability dropped but the three setpriv needs to drop to the uid, which leave with it."""
    return ["--cap-drop", "ALL", "--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID", "--cap-add", "CAP_SETPCAP"]


def read_only(paths: Iterable[str | Path], made: set[str] | None = None) -> list[str]:
    """Read-only binds of ``paths`` at their own place, each parent folder made first with mode 0755 (a bind
    would make it 0700, which the sandbox's user may not cross). ``made``: folders already made."""
    made = made if made is not None else {"/", "/usr"}
    args: list[str] = []
    for raw in sorted({os.path.realpath(p) for p in paths}):
        if raw == "/usr" or raw.startswith("/usr/") or raw in made:
            continue
        args += [*_parents(raw, made), "--ro-bind", raw, raw]
    return args


def crossable(folder: str) -> list[str]:
    """Make ``folder`` and its parents in the sandbox, each mode 0755 (bwrap makes a bind's missing parents
    0700, which the sandbox's own uid may not cross)."""
    folders = [*reversed(Path(folder).parents), Path(folder)][1:]  # not "/"
    return [a for p in folders for a in ("--perms", "0755", "--dir", str(p))]


def _parents(path: str, made: set[str]) -> list[str]:
    """Make ``path``'s missing parent folders crossable (mode 0755); note them and ``path`` in ``made``."""
    args: list[str] = []
    for parent in list(reversed(Path(path).parents))[1:]:
        if str(parent) not in made:
            made.add(str(parent))
            args += ["--perms", "0755", "--dir", str(parent)]
    made.add(path)
    return args


def writable(paths: Iterable[str | Path], made: set[str] | None = None) -> list[str]:
    """Read-write binds of ``paths`` at their own place (parents made as in :func:`read_only`)."""
    made = made if made is not None else {"/", "/usr"}
    args: list[str] = []
    for raw in [os.path.realpath(p) for p in paths]:
        args += [*_parents(raw, made), "--bind", raw, raw]
    return args


def venv_base(venv: Path) -> str | None:
    """The installation a virtual environment was made from (its ``pyvenv.cfg`` ``home``), if any."""
    try:
        for line in (venv / "pyvenv.cfg").read_text(encoding="utf-8").splitlines():
            key, _, value = line.partition("=")
            if key.strip() == "home":
                return str(Path(value.strip()).parent)
    except OSError:
        return None
    return None


# -- a uid of its own ------------------------------------------------------------------------------------------
# Under a root harness every sandbox runs as a fresh unprivileged uid: far from real accounts, below 2**31
# (which some tools misread), random rather than counted (harness processes on one machine, or containers
# sharing a kernel, must not share one: a uid's processes are counted and killed together).
_UID_FIRST, _UID_COUNT = 1 << 30, 1 << 30
_uids_in_use: set[int] = set()


def fresh_uid() -> int:
    """A uid no live sandbox of this process holds; give it back with :func:`release_uid`."""
    while True:
        uid = _UID_FIRST + secrets.randbelow(_UID_COUNT)
        if uid not in _uids_in_use:
            _uids_in_use.add(uid)
            return uid


def release_uid(uid: int) -> None:
    kill_user(uid)
    _uids_in_use.discard(uid)


def give(paths: Iterable[Path], uid: int) -> None:
    """Make ``uid`` (and its gid) the owner of ``paths`` and of everything under them (links themselves, never
    what they point to)."""
    for top in paths:
        for path in [top, *top.rglob("*")] if top.is_dir() else [top]:
            with contextlib.suppress(FileNotFoundError):
                os.chown(path, uid, uid, follow_symlinks=False)


def processes() -> Iterator[tuple[int, int, int]]:
    """(pid, real uid, threads) of every live process, from ``/proc/<pid>/status`` (raw reads: this runs
    after every code run as root, so it is kept cheap, ~1 ms for a hundred processes)."""
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


def kill_user(uid: int) -> None:
    """SIGKILL every process of ``uid`` (a sandbox's own uid: nothing else runs as it)."""
    for _ in range(100):  # RLIMIT_NPROC keeps the count small; each sweep kills all there are
        pids = [pid for pid, owner, _ in processes() if owner == uid]
        if not pids:
            return
        for pid in pids:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
    log.error("isolation: processes of uid %d survived 100 sweeps", uid)
