"""Where an episode's temporary folders go: under its run folder while a run is on, so nothing outlives it.

``run_suite`` opens :func:`under` with ``<run folder>/scratch``: every temporary folder an episode makes
(:func:`make_dir`) lands there. A harness killed mid-run (SIGKILL, a power cut) leaves them behind; the next
run on that folder (``--resume``) sweeps them before it starts, and a run that ends removes the folder.
Outside a run (tests, the library used directly) they go to the system's temporary directory as before.
"""

from __future__ import annotations

import contextlib
import shutil
import tempfile
from collections.abc import Iterator
from contextvars import ContextVar
from pathlib import Path

SCRATCH = "scratch"
_root: ContextVar[Path | None] = ContextVar("scratch_root", default=None)


@contextlib.contextmanager
def under(folder: Path) -> Iterator[Path]:
    """Make temporary folders under ``folder`` inside this block (tasks started here inherit it). Whatever an
    earlier, killed harness left there is removed first; the folder is removed at the end."""
    folder = folder.resolve()  # servers are pointed at these folders from elsewhere: never a relative path
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(mode=0o700, parents=True)
    token = _root.set(folder)
    try:
        yield folder
    finally:
        _root.reset(token)
        shutil.rmtree(folder, ignore_errors=True)


def make_dir(prefix: str) -> Path:
    """A fresh private folder: under the current run's scratch folder, else the system's temporary directory."""
    return Path(tempfile.mkdtemp(prefix=prefix, dir=_root.get()))
