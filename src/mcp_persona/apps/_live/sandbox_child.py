"""The code a sandboxed run starts with, inside the child: its text is passed to ``python -I -c`` (never imported).

``sys.argv[1]`` holds the orders (a dict, marshalled and hex-encoded by :mod:`mcp_persona.apps._live.sandbox`:
``marshal`` is built in, where importing ``json`` would cost the run ~7 ms). In this order:

1. with ``uid`` set (the harness is root): optionally enter fresh mount and network namespaces and lay out the
   file system there (every mount read-only and nosuid, private directories under empty tmpfs, the
   interpreter's folders bound read-only and the run's directory writable), then become ``uid`` with the same
   gid and no supplementary group. As a plain user the kernel applies RLIMIT_NPROC and checks every file
   access; root would ignore the former and pass the latter.
2. die with the harness (the parent-death signal; the uid change of step 1 would clear it);
3. set the resource limits: after step 1 on purpose, since a new uid (or a user namespace) counts processes
   from this one, so ``RLIMIT_NPROC`` is simply 1 + the allowance;
4. keep on ``sys.path`` only the interpreter's own folders (an editable install of the harness puts its
   source tree there, which holds the tasks) and install the audit hook (a test may turn it off to prove the
   kernel's limits alone);
5. run ``main.py`` from the working directory.
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
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC = 1, 2, 4, 8  # statvfs's ST_* bits for these are the same numbers
MS_REMOUNT, MS_BIND, MS_REC, MS_PRIVATE = 32, 4096, 16384, 1 << 18
CLONE_NEWNS, CLONE_NEWNET = 0x00020000, 0x40000000


def enter(orders: dict[str, Any]) -> None:
    """Namespaces and file-system layout (when asked), then the unprivileged uid. Runs as root."""
    if orders["namespaces"]:
        _layout(orders)
    uid = orders["uid"]
    os.setgroups([])
    os.setresgid(uid, uid, uid)
    os.setresuid(uid, uid, uid)


def _layout(orders: dict[str, Any]) -> None:
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)

    def check(ret: int, what: str) -> None:
        if ret != 0:
            err = ctypes.get_errno()
            raise OSError(err, f"sandbox set-up: {what}: {os.strerror(err)}")

    def mount(source: str | None, target: str, fstype: str | None, flags: int, data: str | None = None) -> None:
        def enc(s: str | None) -> bytes | None:
            return None if s is None else os.fsencode(s)

        check(libc.mount(enc(source), enc(target), enc(fstype), ctypes.c_ulong(flags), enc(data)), f"mount {target}")

    def protect(target: str, writable: bool) -> None:
        kept = os.statvfs(target).f_flag & (MS_NOSUID | MS_NODEV | MS_NOEXEC)
        mount(None, target, None, MS_REMOUNT | MS_BIND | MS_NOSUID | MS_NODEV | kept | (0 if writable else MS_RDONLY))

    check(libc.unshare(CLONE_NEWNS | CLONE_NEWNET), "unshare")
    mount(None, "/", None, MS_REC | MS_PRIVATE)  # nothing done below reaches the host's mounts
    # held open first: hiding a parent directory must not lose them
    held = [(os.open(path, os.O_PATH | os.O_DIRECTORY), path, writable) for path, writable in orders["expose"]]
    with open("/proc/self/mountinfo", encoding="utf-8") as fh:  # field 5: the mount point, octal-escaped
        points = [_unescape(line.split()[4]) for line in fh]
    for point in dict.fromkeys(points):  # all read-only: the world-writable /tmp, /var/tmp, /dev/shm, ... too
        try:
            protect(point, writable=False)
        except FileNotFoundError:  # a mount point deleted since ("... (deleted)"): nothing to reach there
            continue
    for path in orders["hide"]:
        mount("tmpfs", path, "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755,size=1m")
    for fd, path, writable in held:
        os.makedirs(path, exist_ok=True)  # inside a hiding tmpfs, the way to the folder is made anew
        mount(f"/proc/self/fd/{fd}", path, None, MS_BIND | MS_REC)
        protect(path, writable)
        os.close(fd)
    os.chdir(orders["box"])  # through its writable mount: the old working directory lies on a read-only one


def _unescape(field: str) -> str:
    head, *rest = field.split("\\")
    return head + "".join(chr(int(part[:3], 8)) + part[3:] for part in rest)


def limit(limits: dict[str, list[int]]) -> None:
    import resource

    for name, (soft, hard) in limits.items():
        resource.setrlimit(getattr(resource, name), (soft, hard))


def guard() -> None:
    """Refuse, through an audit hook, whatever reaches outside the working directory and the library."""
    root = os.path.realpath(os.getcwd())
    read = tuple({os.path.realpath(p) for p in (*_prefixes(), *sys.path, *_TZPATH)})
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


def tie_to_parent(parent: int) -> None:
    """Die with the harness: a killed harness must not leave a run going until its wall limit.

    Set after the uid change, which clears it; the harness may have died before it was set, hence the check."""
    import ctypes

    pr_set_pdeathsig, sigkill = 1, 9
    ctypes.CDLL(None).prctl(pr_set_pdeathsig, sigkill)
    if os.getppid() != parent:
        os._exit(137)


def main(raw: str) -> None:
    orders = marshal.loads(bytes.fromhex(raw))
    if orders["uid"] is not None:
        enter(orders)
    tie_to_parent(orders["parent"])
    limit(orders["limits"])
    prefixes = tuple(p.rstrip(os.sep) + os.sep for p in _prefixes())
    sys.path[:] = [p for p in sys.path if os.path.realpath(p).startswith(prefixes)]
    if orders["hook"]:
        guard()
    sys.argv = ["main.py"]
    with open("main.py", encoding="utf-8") as fh:
        source = fh.read()
    exec(compile(source, "main.py", "exec"), {"__name__": "__main__", "__builtins__": __builtins__})


if __name__ == "__main__":
    main(sys.argv[1])
