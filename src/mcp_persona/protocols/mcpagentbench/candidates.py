"""Candidate lists: the task's gold tools plus K - n distractors from the library, the same every run.

The draw is seeded by the task id, K and the mode through SHA-256 (Python's ``hash()`` changes per
process), so two runs with the same K show identical lists. ``uniform`` draws distractors uniformly, as
the peer's code does; ``confusable`` takes those nearest to the gold tools by name + description words.
"""

from __future__ import annotations

import hashlib
import math
import random
import re
from functools import cache
from typing import Literal

from mcp_persona.protocols.mcpagentbench.library import LibraryTool, library
from mcp_persona.tasks import Task

Mode = Literal["uniform", "confusable"]
SIZES = (10, 20, 30, 40)


def draw_seed(task_id: str, k: int, mode: str) -> int:
    return int.from_bytes(hashlib.sha256(f"{task_id}|{k}|{mode}".encode()).digest()[:8], "big")


def words(tool: LibraryTool) -> set[str]:
    """Name parts (snake_case and camelCase split) and description words, lower-cased, plural 's' dropped."""
    name = re.sub(r"([a-z])([A-Z])", r"\1 \2", tool.name).replace("_", " ")
    found = re.findall(r"[a-z0-9]+", f"{name} {tool.description}".lower())
    return {w[:-1] if len(w) > 4 and w.endswith("s") else w for w in found if len(w) > 2}


@cache
def _weights() -> dict[str, float]:
    """Inverse document frequency over the library: 'search' or 'get' says little, 'restaurant' a lot."""
    tools = library().values()
    df: dict[str, int] = {}
    for t in tools:
        for w in words(t):
            df[w] = df.get(w, 0) + 1
    return {w: math.log(len(tools) / n) for w, n in df.items()}


def similarity(a: LibraryTool, b: LibraryTool) -> float:
    """Weighted Jaccard of the two tools' words."""
    wa, wb, idf = words(a), words(b), _weights()
    union = sum(idf.get(w, 0.0) for w in wa | wb)
    return sum(idf.get(w, 0.0) for w in wa & wb) / union if union else 0.0


def gold_tools(task: Task) -> list[str]:
    return list(dict.fromkeys(c.tool for c in task.gold_calls))


def candidate_list(task: Task, k: int, mode: Mode = "uniform") -> list[str]:
    """Gold tools + (k - n) distractors, shuffled; n = the task's distinct gold tools."""
    lib = library()
    gold = gold_tools(task)
    missing = [g for g in gold if g not in lib]
    if missing:
        raise KeyError(f"task {task.id}: gold tools not in the library: {', '.join(missing)}")
    if k < len(gold):
        raise ValueError(f"task {task.id} needs {len(gold)} tools; K = {k} is too small")
    rng = random.Random(draw_seed(task.id, k, mode))
    others = sorted(n for n in lib if n not in gold)
    if mode == "uniform":
        picked = rng.sample(others, k - len(gold))
    else:
        rng.shuffle(others)  # ties are broken by the seeded order
        score = {o: max(similarity(lib[o], lib[g]) for g in gold) for o in others}
        picked = sorted(others, key=lambda o: -score[o])[: k - len(gold)]
    listed = gold + picked
    rng.shuffle(listed)
    return listed
