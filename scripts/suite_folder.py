"""The folder a suite generator writes into (shared by the generator scripts)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path


def clear(out: Path, protocol: str) -> None:
    """An empty ``out`` to write into: a task whose template was renamed or dropped must not linger. Only an
    empty folder or one a generator wrote (its ``suite.json`` names ``protocol``) is cleared, never another."""
    if out.exists() and any(out.iterdir()):
        suite = out / "suite.json"
        named = json.loads(suite.read_text(encoding="utf-8")).get("protocol") if suite.is_file() else None
        if named != protocol:
            raise SystemExit(f"{out} is not empty and holds no {protocol} suite: not clearing it")
        shutil.rmtree(out)
    out.mkdir(parents=True, exist_ok=True)
