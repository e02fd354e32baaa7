"""State reset and capture between probes, where the server's state is reachable.

* ``memory-file``: the memory server keeps its graph in the JSONL file named by
  ``MEMORY_FILE_PATH`` and reads it on every call, so a probe starts from a *fresh file* holding
  the fixture (the old one is unlinked first); the file is the state that is captured.
* ``dir``: the filesystem server works inside its allowed directory; a probe starts from a fresh
  directory tree (everything inside the root removed and the fixture written again, with fixed
  modification and access times); the tree with contents, sizes, modes and those times is the
  state captured (read without touching access times). Creation times are not captured: Linux
  cannot set them, so they are the moment of the reset and differ from probe to probe.

Both expose placeholders for the command line and the seeds: ``{memory_file}``, ``{root}``.
"""

from __future__ import annotations

import base64
import json
import os
import shutil
import stat as stat_mod
from abc import ABC, abstractmethod
from datetime import datetime
from pathlib import Path
from typing import Any

Known = dict[str, list[str]]

DEFAULT_MTIME = "2026-03-10T09:30:00+00:00"


def fill(value: Any, mapping: dict[str, str]) -> Any:
    """Replace ``{key}`` placeholders in every string of ``value`` (JSON-shaped)."""
    if isinstance(value, str):
        for key, sub in mapping.items():
            value = value.replace("{" + key + "}", sub)
        return value
    if isinstance(value, list):
        return [fill(v, mapping) for v in value]
    if isinstance(value, dict):
        return {k: fill(v, mapping) for k, v in value.items()}
    return value


class StateAdapter(ABC):
    kind: str = "none"

    @abstractmethod
    def placeholders(self) -> dict[str, str]: ...

    @abstractmethod
    def reset(self, fixture: dict[str, Any] | None) -> None: ...

    @abstractmethod
    def capture(self) -> dict[str, Any]: ...

    @abstractmethod
    def known(self, fixture: dict[str, Any] | None) -> Known: ...

    def same(self, before: dict[str, Any], after: dict[str, Any]) -> bool:
        """Whether a call left the state as it was."""
        return before == after


# -- memory server ------------------------------------------------------------------------------------
def memory_file_text(fixture: dict[str, Any]) -> str:
    """The memory server's own file format: one JSON object a line, entities first, no final newline."""
    if "text" in fixture:
        return str(fixture["text"])
    lines = [json.dumps({"type": "entity", "name": e["name"], "entityType": e["entityType"],
                         "observations": list(e.get("observations", []))}, ensure_ascii=False,
                        separators=(",", ":")) for e in fixture.get("entities", [])]
    lines += [json.dumps({"type": "relation", "from": r["from"], "to": r["to"], "relationType": r["relationType"]},
                         ensure_ascii=False, separators=(",", ":")) for r in fixture.get("relations", [])]
    return "\n".join(lines)


class MemoryFileState(StateAdapter):
    kind = "memory-file"

    def __init__(self, path: Path) -> None:
        self.path = Path(path)

    def placeholders(self) -> dict[str, str]:
        return {"memory_file": str(self.path)}

    def reset(self, fixture: dict[str, Any] | None) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.path.unlink(missing_ok=True)
        text = memory_file_text(fixture or {})
        if text:
            self.path.write_text(text, encoding="utf-8")

    def capture(self) -> dict[str, Any]:
        try:
            text: str | None = self.path.read_text(encoding="utf-8")
        except FileNotFoundError:
            text = None
        return {"kind": "memory-file", "text": text}

    def known(self, fixture: dict[str, Any] | None) -> Known:
        fx = fixture or {}
        names = [e["name"] for e in fx.get("entities", [])]
        return {"name": names, "entity_type": sorted({e["entityType"] for e in fx.get("entities", [])})}


# -- filesystem server ---------------------------------------------------------------------------------
def _epoch(value: Any) -> float:
    if isinstance(value, int | float):
        return float(value)
    return datetime.fromisoformat(str(value)).timestamp()


class DirState(StateAdapter):
    kind = "dir"

    def __init__(self, root: Path) -> None:
        self.root = Path(root)

    def placeholders(self) -> dict[str, str]:
        return {"root": str(self.root)}

    def reset(self, fixture: dict[str, Any] | None) -> None:
        fx = fixture or {}
        self.root.mkdir(parents=True, exist_ok=True)
        for child in list(self.root.iterdir()):
            if child.is_dir() and not child.is_symlink():
                shutil.rmtree(child)
            else:
                child.unlink()
        when = _epoch(fx.get("mtime", DEFAULT_MTIME))
        made: list[Path] = []
        self._write(self.root, fx.get("tree", {}), made)
        for p in [*reversed(made), self.root]:  # children first: writing a child touches its parent
            os.utime(p, (when, when))

    def _write(self, base: Path, tree: dict[str, Any], made: list[Path]) -> None:
        for name, value in tree.items():
            p = base / name
            if isinstance(value, dict):
                p.mkdir()
                made.append(p)
                self._write(p, value, made)
            else:
                p.write_text(str(value), encoding="utf-8")
                made.append(p)

    def capture(self) -> dict[str, Any]:
        entries: list[dict[str, Any]] = [self._entry(self.root, "")]
        self._walk(self.root, "", entries)
        return {"kind": "dir", "root": str(self.root), "entries": entries}

    def _walk(self, base: Path, rel: str, out: list[dict[str, Any]]) -> None:
        before = base.lstat()
        names = sorted(os.listdir(base))  # node's readdir (libuv scandir) is sorted the same way
        os.utime(base, ns=(before.st_atime_ns, before.st_mtime_ns))  # listing is not an access to report
        for name in names:
            p = base / name
            r = f"{rel}/{name}" if rel else name
            out.append(self._entry(p, r))
            if p.is_dir() and not p.is_symlink():
                self._walk(p, r, out)

    @staticmethod
    def _entry(p: Path, rel: str) -> dict[str, Any]:
        st = p.lstat()
        is_dir = stat_mod.S_ISDIR(st.st_mode)
        entry: dict[str, Any] = {"path": rel, "type": "directory" if is_dir else "file", "size": st.st_size,
                                 "mode": oct(st.st_mode & 0o777)[2:], "mtime": st.st_mtime, "atime": st.st_atime}
        if not is_dir:
            raw = _read_noatime(p)
            try:
                entry["content"] = raw.decode("utf-8")
            except UnicodeDecodeError:
                entry["content_b64"] = base64.b64encode(raw).decode("ascii")
        return entry

    def same(self, before: dict[str, Any], after: dict[str, Any]) -> bool:
        """Equal but for access times: a read moves a file's atime, which is not a change of state."""
        def strip(state: dict[str, Any]) -> Any:
            return [{k: v for k, v in e.items() if k != "atime"} for e in state.get("entries", [])]

        return before.get("root") == after.get("root") and strip(before) == strip(after)

    def known(self, fixture: dict[str, Any] | None) -> Known:
        files: list[str] = []
        dirs: list[str] = [str(self.root)]

        def walk(base: str, tree: dict[str, Any]) -> None:
            for name, value in tree.items():
                p = f"{base}/{name}"
                if isinstance(value, dict):
                    dirs.append(p)
                    walk(p, value)
                else:
                    files.append(p)

        walk(str(self.root), (fixture or {}).get("tree", {}))
        return {"file": files, "dir": dirs, "root": [str(self.root)]}


def _read_noatime(p: Path) -> bytes:
    """The file's bytes without touching its access time (which get_file_info reports)."""
    flags = os.O_RDONLY | getattr(os, "O_NOATIME", 0)
    try:
        fd = os.open(p, flags)
    except PermissionError:  # O_NOATIME needs ownership
        fd = os.open(p, os.O_RDONLY)
    try:
        chunks = []
        while chunk := os.read(fd, 1 << 16):
            chunks.append(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)


class NoState(StateAdapter):
    """A server whose state the prober cannot reach: no reset, nothing captured."""

    kind = "none"

    def placeholders(self) -> dict[str, str]:
        return {}

    def reset(self, fixture: dict[str, Any] | None) -> None:
        return None

    def capture(self) -> dict[str, Any]:
        return {"kind": "none"}

    def known(self, fixture: dict[str, Any] | None) -> Known:
        return {}


def make_state(kind: str | None, workdir: Path, state_path: Path | None = None) -> StateAdapter:
    """The adapter for ``kind``; its file or directory is ``state_path``, else one under ``workdir``.

    A directory given as ``state_path`` is emptied before every probe, so it must be empty or absent
    to begin with: the prober never wipes a directory it did not fill itself.
    """
    if kind == "dir" and state_path is not None and Path(state_path).is_dir() and any(Path(state_path).iterdir()):
        raise ValueError(f"{state_path} is not empty; the prober empties its root before every probe, "
                         "so give it an empty or new directory")
    if kind in (None, "none"):
        return NoState()
    if kind == "memory-file":
        return MemoryFileState(state_path or workdir / "memory.jsonl")
    if kind == "dir":
        return DirState(state_path or workdir / "workspace")
    raise ValueError(f"unknown reset kind {kind!r} (memory-file, dir, none)")
