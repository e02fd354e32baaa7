"""Generate, write and check the committed contexts of the apps that have a generator."""

from __future__ import annotations

import importlib
import importlib.util
import json
from collections import Counter
from pathlib import Path
from typing import Any

from mcp_persona.apps import app_names, get_app
from mcp_persona.context_tree.validate import check_state
from mcp_persona.contextgen.cast import load_cast
from mcp_persona.contextgen.gen import Gen


def _module(app: str) -> Any | None:
    name = f"mcp_persona.apps.{app}.contextgen"
    return importlib.import_module(name) if importlib.util.find_spec(name) else None


def generated_apps() -> list[str]:
    """Apps whose contexts come from a generator (the rest are curated by hand)."""
    return [a for a in app_names() if _module(a) is not None]


def render(data: dict[str, Any]) -> str:
    return json.dumps(data, ensure_ascii=False, indent=1) + "\n"


def generate_app(app: str, logs: dict[str, Counter[str]] | None = None) -> dict[str, dict[str, Any]]:
    """context id -> generated context, for every persona of the cast; each validated. ``logs``, if
    given, receives per persona how many values each (field, method) produced."""
    module = _module(app)
    if module is None:
        raise ValueError(f"{app} has no context generator")
    cast, hierarchy = load_cast(), get_app(app).hierarchy
    prefix = getattr(module, "CONTEXT_PREFIX", "")  # apps that also keep curated contexts use e.g. "gen_"
    out: dict[str, dict[str, Any]] = {}
    for persona in cast.personas:
        gen = Gen(app, persona, cast, hierarchy)
        data = module.generate(persona, gen)
        problems = check_state(hierarchy, data)
        if problems:
            raise ValueError(f"generated {app}/{persona} is invalid: " + "; ".join(problems[:5]))
        out[prefix + persona] = data
        if logs is not None:
            logs[prefix + persona] = gen.log
    return out


def _folder(app: str) -> Path:
    return Path(str(get_app(app).contexts_dir))


def write_app(app: str) -> list[Path]:
    folder = _folder(app)
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for cid, data in generate_app(app).items():
        path = folder / f"{cid}.json"
        path.write_text(render(data), encoding="utf-8")
        written.append(path)
    return written


def check_app(app: str) -> list[str]:
    """Committed contexts that differ from what the generator makes now."""
    folder = _folder(app)
    problems = []
    for cid, data in generate_app(app).items():
        path = folder / f"{cid}.json"
        if not path.exists():
            problems.append(f"{app}/{cid}: not committed")
        elif path.read_text(encoding="utf-8") != render(data):
            problems.append(f"{app}/{cid}: differs from a fresh generation (run `mcp-persona contexts`)")
    return problems
