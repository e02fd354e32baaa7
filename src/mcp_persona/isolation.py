"""The walls around what the model under test can make run: bubblewrap (``bwrap``) command lines.

Model-written code (the code interpreter) and the real MCP servers of LiveMCPBench each run inside their
own bwrap sandbox: new mount, pid, network, IPC and UTS namespaces, with only what is bound in visible.
This module builds the parts both share: the namespaces, the system's read-only folders, and read-only
binds of installations that live outside ``/usr`` (an interpreter under a home directory, the servers'
installs in the checkout) with their parent folders made crossable. What each adds (its writable folders,
its uid) is in :mod:`mcp_persona.apps._live.sandbox` and :mod:`mcp_persona.livemcptool.real`.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterable
from pathlib import Path

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
    for name in ("passwd", "group", "nsswitch.conf"):
        args += ["--ro-bind-try", f"/etc/{name}", f"/etc/{name}"]
    return [*args, "--ro-bind", "/usr", "/usr", "--proc", "/proc", "--dev", "/dev"]


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
