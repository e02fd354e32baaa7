"""MCP-Persona's per-app subsets (the rows of the paper's Table 7) and a run's figures per subset.

A single-server task belongs to its personalized app, split by instruction length where the paper splits it
(Lark, Rednote, Notion, Obsidian); a Lark- or Rednote-centric task to its hub and the other personalized app it
pairs with (Rednote, Obsidian, Notion, else Other); a hodgepodge task to Hodgepodge. Information servers
(weather, maps, search) never decide a subset: the paper's tool chains add them to any task.

Per subset a run reports its episodes, mean Acc, the checkpoints of its tasks, and where an LLM judge scored
checkpoints the rules scored too, how many of those the two scored differently (the paper's Table 7 compares
the judge with human labels; here the rules' deterministic checks stand where the human labels stood).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from mcp_persona.apps import get_app

if TYPE_CHECKING:
    from mcp_persona.store import EpisodeRecord
    from mcp_persona.tasks import Task

SINGLE_SERVER = ("collaboration", "content", "social", "email")
HUBS = {"lark_centric": "lark", "rednote_centric": "rednote"}
SPLIT_BY_LENGTH = ("lark", "rednote", "notion", "obsidian")
APP_NAMES = {"lark": "Lark", "rednote": "Rednote", "notion": "Notion", "obsidian": "Obsidian", "email163": "Email",
             "gmail": "Email", "wecom": "Wecom", "reddit": "Reddit", "instagram": "Instagram", "slack": "Slack",
             "telegram": "Telegram", "discord": "Discord"}
# the paper's order; Telegram and Discord are this suite's apps beyond the paper's twelve servers
SUBSETS = ("Lark_Short", "Lark_Long", "Rednote_Short", "Rednote_Long", "Notion_Short", "Notion_Long",
           "Obsidian_Short", "Obsidian_Long", "Email", "Wecom", "Reddit", "Instagram", "Slack", "Telegram", "Discord",
           "Lark_Rednote", "Lark_Obsidian", "Lark_Notion", "Lark_Other", "Rednote_Obsidian", "Rednote_Notion",
           "Rednote_Other", "Hodgepodge")


def _name(app: str) -> str:
    return APP_NAMES.get(app, app.capitalize())


def subset_of(task: Task) -> str:
    """The task's per-app subset (one of :data:`SUBSETS`, or ``Other`` for a task of no paper group)."""
    personal = [s for s in task.server_names if get_app(s).personalized]
    if task.spec.category == "hodgepodge":
        return "Hodgepodge"
    if task.spec.category in SINGLE_SERVER and len(personal) == 1:
        app = personal[0]
        variant = task.spec.variant
        return f"{_name(app)}_{variant.capitalize()}" if app in SPLIT_BY_LENGTH and variant else _name(app)
    hub = HUBS.get(task.spec.category)
    if hub is not None:
        partners = set(personal) - {hub}
        if ({"lark", "rednote"} - {hub}) & partners:
            return "Lark_Rednote"
        for partner in ("obsidian", "notion"):
            if partner in partners:
                return f"{_name(hub)}_{_name(partner)}"
        return f"{_name(hub)}_Other"
    return "Other"


def subset_figures(episodes: Sequence[tuple[Task, EpisodeRecord, float]]) -> dict[str, Any]:
    """Figures of (task, record, episode Acc) triples: episodes, mean Acc, checkpoints, and the checkpoints both
    the rules and a judge scored (``compared``), those they scored differently (``misaligned``) and its share
    (None when no checkpoint was scored by both)."""
    checkpoints = compared = misaligned = 0
    for task, record, _ in episodes:
        checkpoints += len(task.spec.checkpoints)
        scored = record.score.detail.get("checkpoints", []) if record.status == "ok" and record.score else []
        for cp in scored:
            rule, judge = cp.get("rule_score"), cp.get("judge_score")
            if rule is not None and judge is not None:
                compared += 1
                misaligned += rule != judge
    n = len(episodes)
    return {"n": n, "acc": sum(acc for _, _, acc in episodes) / n if n else 0.0, "checkpoints": checkpoints,
            "compared": compared, "misaligned": misaligned if compared else None,
            "misaligned_ratio": misaligned / compared if compared else None}


def by_subset(episodes: Sequence[tuple[Task, EpisodeRecord, float]]) -> dict[str, dict[str, Any]]:
    """:func:`subset_figures` per subset, in the paper's order (subsets without an episode left out)."""
    groups: dict[str, list[tuple[Task, EpisodeRecord, float]]] = defaultdict(list)
    for episode in episodes:
        groups[subset_of(episode[0])].append(episode)
    order = [s for s in SUBSETS if s in groups] + sorted(set(groups) - set(SUBSETS))
    return {s: subset_figures(groups[s]) for s in order}
