"""Where an episode's temporary folders go: under its run folder while a run is on, so nothing outlives it.

``run_suite`` opens :func:`under` with ``<run folder>/scratch``: it makes a folder of its own there, holds a
lock on it for as long as it runs, and every temporary folder an episode makes (:func:`make_dir`) lands in it.
A harness killed mid-run (SIGKILL, a power cut) leaves its folder behind, and the kernel drops its lock; the
next run on that run folder (``--resume``) sweeps every folder whose lock nobody holds before it starts (never
one a live harness is using), and a run that ends removes its own. Outside a run (tests, the library used
directly) the folders go to the system's temporary directory as before.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import shutil
import tempfile
import time
from collections.abc import Iterator
from contextvars import ContextVar
from pathlib import Path

SCRATCH = "scratch"
LOCK = ".lock"
_UNLOCKED_GRACE = 60.0  # seconds: a folder without its lock file yet may be a harness's being made
_root: ContextVar[Path | None] = ContextVar("scratch_root", default=None)


@contextlib.contextmanager
def under(folder: Path) -> Iterator[Path]:
    """Make temporary folders under a locked folder of this harness's own in ``folder`` inside this block (tasks
    started here inherit it), after sweeping what dead harnesses left in ``folder``; removed at the end."""
    folder = folder.resolve()  # servers are pointed at these folders from elsewhere: never a relative path
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    sweep(folder)
    mine = Path(tempfile.mkdtemp(prefix="harness-", dir=folder))
    lock = os.open(mine / LOCK, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(lock, fcntl.LOCK_EX)  # held until this process ends, however it ends
        token = _root.set(mine)
        try:
            yield mine
        finally:
            _root.reset(token)
            shutil.rmtree(mine, ignore_errors=True)
            with contextlib.suppress(OSError):
                folder.rmdir()  # when no other harness has a folder there
    finally:
        os.close(lock)


def sweep(folder: Path) -> list[Path]:
    """Remove every folder in ``folder`` that no live harness holds; return them."""
    removed = []
    for entry in sorted(folder.iterdir()) if folder.is_dir() else []:
        if entry.is_dir() and not _held(entry):
            shutil.rmtree(entry, ignore_errors=True)
            removed.append(entry)
    return removed


def _held(entry: Path) -> bool:
    try:
        fd = os.open(entry / LOCK, os.O_RDWR)
    except FileNotFoundError:  # left half-made, or being made right now
        try:
            return time.time() - entry.stat().st_mtime < _UNLOCKED_GRACE
        except OSError:
            return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    finally:
        os.close(fd)
    return False


def make_dir(prefix: str) -> Path:
    """A fresh private folder: under the current run's scratch folder, else the system's temporary directory."""
    return Path(tempfile.mkdtemp(prefix=prefix, dir=_root.get()))
