"""The code a sandboxed run starts with, inside bwrap's namespaces: its text is passed to ``python -I -c``
(never imported).

``sys.argv[1]`` holds the orders (a dict, marshalled and hex-encoded by :mod:`mcp_persona.apps._live.sandbox`:
``marshal`` is built in, where importing ``json`` would cost the run ~7 ms). In this order:

1. with ``uid`` set (the harness is root): become ``uid`` with the same gid and no supplementary group, so
   the kernel applies RLIMIT_NPROC and checks every file access as for a plain user (all capabilities go
   with the uid change);
2. set the resource limits: after step 1 on purpose, since a new uid counts processes from this one, so
   ``RLIMIT_NPROC`` is simply 1 + the allowance;
3. keep on ``sys.path`` only the interpreter's own folders and install the audit hook, a second layer with
   clear messages (a test may turn it off to prove the walls alone);
4. run the program from its working directory; then, when it gets there, name the files it left on the
   last line of stderr (the harness cannot see the run's tmpfs).
"""

from __future__ import annotations

import marshal
import os
import sys

TYPE_CHECKING = False  # not taken from typing: importing it would cost every run ~15 ms
if TYPE_CHECKING:
    from typing import Any

# The time zone database (zoneinfo's default search path): public data that date arithmetic needs.
_TZPATH = ("/usr/share/zoneinfo", "/usr/lib/zoneinfo", "/usr/share/lib/zoneinfo", "/etc/zoneinfo")


def become(uid: int) -> None:
    os.setgroups([])
    os.setresgid(uid, uid, uid)
    os.setresuid(uid, uid, uid)


def limit(limits: dict[str, list[int]]) -> None:
    import resource

    for name, (soft, hard) in limits.items():
        resource.setrlimit(getattr(resource, name), (soft, hard))


def guard(extra_reads: tuple[str, ...]) -> None:
    """Refuse, through an audit hook, whatever reaches outside the working directory and the library."""
    root = os.path.realpath(os.getcwd())
    read = tuple({os.path.realpath(p) for p in (*_prefixes(), *sys.path, *_TZPATH, *extra_reads)})
    real, sep = os.path.realpath, os.sep
    writing = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_APPEND | os.O_TRUNC
    deny = ("socket.", "subprocess.", "os.exec", "os.posix_spawn", "os.spawn", "os.system", "os.kill", "os.killpg",
            "os.startfile", "pty.", "os.fork", "os.forkpty", "ctypes.cdata", "ctypes.call_function",
            "ctypes.addressof")
    changes = ("os.remove", "os.rename", "os.rmdir", "os.mkdir", "os.chmod", "os.symlink", "os.link", "os.truncate",
               "os.utime", "shutil.rmtree", "os.chdir")

    def inside(p: str, roots: tuple[str, ...]) -> bool:
        p = real(p)
        return any(p == r or p.startswith(r.rstrip(sep) + sep) for r in roots)

    def hook(event: str, args: tuple[Any, ...]) -> None:
        if event == "ctypes.dlopen":  # compiled extensions (numpy) load their own libraries; nothing else
            name = args[0] if args else None
            if name is None or (isinstance(name, str | bytes) and inside(os.fsdecode(name), read)):
                return
            raise PermissionError(f"sandbox: loading the library {name!r} is not allowed")
        if event.startswith(deny):
            what = "network access" if event.startswith("socket.") else event
            raise PermissionError(f"sandbox: {what} is not allowed")
        if event == "open":
            path, mode, flags = args
            if not isinstance(path, str | bytes):
                return
            path = os.fsdecode(path)
            writes = (mode is not None and any(c in mode for c in "wax+")) or (mode is None and flags & writing)
            if inside(path, (root,)) or (not writes and inside(path, read)):
                return
            raise PermissionError(f"sandbox: {path} is outside the sandbox directory")
        if event in ("os.listdir", "os.scandir"):  # the import system lists the library folders
            path = args[0] if args and args[0] is not None else "."
            if isinstance(path, str | bytes) and not inside(os.fsdecode(path), (root, *read)):
                raise PermissionError(f"sandbox: {os.fsdecode(path)} is outside the sandbox directory")
            return
        if event in changes:
            path = args[0] if args else "."
            if isinstance(path, str | bytes) and not inside(os.fsdecode(path), (root,)):
                raise PermissionError(f"sandbox: {os.fsdecode(path)} is outside the sandbox directory")

    sys.addaudithook(hook)


def _prefixes() -> list[str]:
    return [os.path.realpath(p) for p in {sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix} if p]


def _left_files(box: str) -> list[str]:
    found = []
    for top, _dirs, names in os.walk(box):
        found += [os.path.relpath(os.path.join(top, n), box) for n in names]
    return found


def main(raw: str) -> None:
    orders = marshal.loads(bytes.fromhex(raw))
    if orders["uid"] is not None:
        become(orders["uid"])
    limit(orders["limits"])
    prefixes = tuple(p.rstrip(os.sep) + os.sep for p in _prefixes())
    sys.path[:] = [p for p in sys.path if os.path.realpath(p).startswith(prefixes)]
    with open(orders["code"], encoding="utf-8") as fh:
        source = fh.read()
    box, marker = orders["box"], orders["files_marker"]
    if orders["hook"]:
        guard((orders["code"],))
    sys.argv = ["main.py"]
    status: object = 0
    try:
        exec(compile(source, "main.py", "exec"), {"__name__": "__main__", "__builtins__": __builtins__})
    except SystemExit as exc:
        status = exc.code
    except BaseException:  # shown as Python shows an uncaught exception, before the file list
        import traceback

        traceback.print_exc()
        status = 1
    try:
        sys.stdout.flush()
    finally:
        sys.stderr.write(marker + "\x00".join(_left_files(box)) + "\n")
        sys.stderr.flush()
    sys.exit(status)


if __name__ == "__main__":
    main(sys.argv[1])
