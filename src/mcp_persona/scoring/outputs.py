"""Reading what an episode wrote, the way a scorer must: the model chose what lies in its folder.

A server the model drives can make a link (the filesystem server, git, a document written at a path of its
choosing). Followed, a link at an output's place would hand the scorer the answer key out of the installed
package, or the harness's own ``/proc/self/environ``, as if the episode had written it. So an output is opened
component by component below the episode's folder, never through a link (``O_NOFOLLOW`` at every step, each
folder by the descriptor of its parent), only as a regular file (a FIFO or device is refused before it is
read, without blocking), and at most :data:`MAX_OUTPUT_BYTES` of it. Anything else is a failed check that
says why.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path, PurePosixPath

MAX_OUTPUT_BYTES = 64 * 1024 * 1024  # an episode's documents are a few MB; its whole quota is 256 MB


class OutputRefused(ValueError):
    """The output cannot be read as the episode's own file; the message says why (for the check's ``why``)."""


def read_output(folder: Path, relative: str, *, cap: int = MAX_OUTPUT_BYTES) -> bytes:
    """The bytes of ``folder/relative``, a regular file the episode left there, read without following a link.
    OutputRefused when it is missing, a link (anywhere on the way), not a regular file, or larger than ``cap``."""
    parts = PurePosixPath(relative).parts
    if not parts or PurePosixPath(relative).is_absolute() or any(p in ("..", ".") for p in parts):
        raise OutputRefused(f"{relative}: not a path inside the episode's folder")
    try:
        fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    except OSError as exc:
        raise OutputRefused(f"{relative} does not exist (the episode's folder is missing: {exc.strerror})") from None
    try:
        for depth, part in enumerate(parts, start=1):
            last = depth == len(parts)
            flags = os.O_NONBLOCK if last else os.O_DIRECTORY  # a FIFO's open must not wait for a writer
            child = _step(fd, part, relative if last else "/".join(parts[:depth]), os.O_RDONLY | os.O_NOFOLLOW | flags)
            os.close(fd)
            fd = child
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise OutputRefused(f"{relative} is {_kind(info.st_mode)}, not a file the episode wrote")
        if info.st_size > cap:
            raise OutputRefused(f"{relative} holds {info.st_size} bytes, more than the {cap} a check reads")
        chunks, left = [], cap + 1
        while left > 0 and (chunk := os.read(fd, min(left, 1 << 20))):
            chunks.append(chunk)
            left -= len(chunk)
        data = b"".join(chunks)
        if len(data) > cap:  # grew while read
            raise OutputRefused(f"{relative} holds more than the {cap} bytes a check reads")
        return data
    finally:
        os.close(fd)


def _step(parent: int, name: str, shown: str, flags: int) -> int:
    """Open ``name`` in the folder ``parent``; its descriptor."""
    try:
        return os.open(name, flags, dir_fd=parent)
    except OSError as exc:
        if exc.errno == errno.ENOENT:
            raise OutputRefused(f"{shown} does not exist") from None
        if exc.errno == errno.ELOOP or (exc.errno == errno.ENOTDIR and _is_link(parent, name)):
            raise OutputRefused(f"{shown} is a symbolic link, not a file the episode wrote: a check never "
                                "follows one") from None
        if exc.errno == errno.ENOTDIR:
            raise OutputRefused(f"{shown} is not a folder") from None
        raise OutputRefused(f"{shown} cannot be read: {exc.strerror}") from None


def _is_link(parent: int, name: str) -> bool:
    try:
        return stat.S_ISLNK(os.stat(name, dir_fd=parent, follow_symlinks=False).st_mode)
    except OSError:
        return False


def _kind(mode: int) -> str:
    for test, name in ((stat.S_ISDIR, "a folder"), (stat.S_ISFIFO, "a named pipe"), (stat.S_ISSOCK, "a socket"),
                       (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device")):
        if test(mode):
            return name
    return "a special file"
