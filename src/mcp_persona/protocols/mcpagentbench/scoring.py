"""Scoring an MCPAgentBench episode and a run.

**Finished**: the agent's calls, as a multiset, equal the gold calls: same tool names and arguments,
compared after :func:`normalize_arguments`. Every call counts, so a repeated or an extra call (even a
failed one) means not finished, and a call that failed (the server refused it: a file not found, a bad
value) stands for no gold call, whatever its arguments: the gold calls succeed. A gold argument
``{"$ref": "S.C:path"}`` takes its value from the agent's own result of the call that matched gold call (S, C).

**Efficiently finished**: finished, and the agent's assistant turns are the gold steps: the calls of
one gold step in one turn (parallel), the steps in order, one turn per step.

Normalisation of arguments: an argument left out and one given as its declared default (or null) are
the same; strings compare case-insensitively (a file path or a URL keeps its case: ``/Berlin`` is not
``/berlin`` on a case-sensitive disk) with runs of whitespace collapsed and closing punctuation
dropped (a prompt or a comment typed with or without its final period is the same text); a numeric string
and the number are equal (``"3"`` = ``3`` = ``3.0``); a list of numbers in a string is spaced one way
(``"0, 45, 0"`` = ``"0,45,0"``); a path or a URL's trailing slash does not count (``"charts/"`` = ``"charts"``);
in prose, articles, plurals and a number hyphenated to its unit do not count, nor a region after a place
and a number word is its number (``"six weeks"`` = ``"6 weeks"``, ``"two researchers"`` = ``"2 researchers"``)
(:func:`_words`); lists keep their order, but for a parameter whose schema says ``uniqueItems`` (a set: the
domains to monitor, the branches to check), which is sorted; objects compare by keys.

TFS / TEFS weight each task by its number of gold calls. ``tfs_paper`` / ``tefs_paper`` are the peer
code's rules (:func:`peer_tfs`, :func:`peer_tefs`), with its list of tools compared by name only
(:data:`NAME_ONLY`), so a published run re-scored here gives its published numbers. Where the paper rule
and ours disagree on an episode, :func:`difference_reasons` says why. ``tfs_outcome`` / ``tefs_outcome``
are ours with a call matched by what it returns rather than by its arguments (:mod:`.outcome`).
"""

from __future__ import annotations

import json
import re
from collections import Counter, defaultdict
from collections.abc import Sequence
from itertools import pairwise
from typing import Any

from mcp_persona.agents.reference import GoldReplayError, resolve_refs
from mcp_persona.apps._corpus.search import stem
from mcp_persona.apps._normalize import is_region
from mcp_persona.protocols.mcpagentbench.library import library
from mcp_persona.tasks import Task
from mcp_persona.trajectory import ToolCallEvent, Trajectory

UNPARSED = "<arguments not valid JSON>"
# The peer's evaluation config lists these tools as compared by name only: their arguments (free text a
# model writes itself: a query, a plan, code) are never checked, under TFS and TEFS alike.
NAME_ONLY = frozenset({
    "security_guidance", "search_news", "vector_search", "search_papers", "meshi_doko", "execute_bigquery",
    "search_academic_papers", "wolfram_query", "search_pubmed", "analyze_trends", "get_posts",
    "orchestrator_plan_task", "obtain_business_analysis", "generate_code", "system_architecture_designer",
    "UIUX_Expert", "generate_3d_assets", "strategy_guide", "create_ui", "dmagent_ask_narrative",
    "dmagent_ask_rule", "diceRoll", "Tester", "execute_python_code",
})
Steps = Sequence[Sequence[tuple[str, dict[str, Any] | None]]]  # turns (or gold steps) of (tool, arguments)
_CLOSING = " .!?;:,。！？；："  # punctuation that closes a phrase; a value of only these stays as it is
_PATH_OR_URL = re.compile(r"^\S*/\S*$")  # a path or a URL (one word with a slash): its case is kept
_NUMBER = re.compile(r"[-+]?\d+(?:\.\d+)?")
_NUMBER_LIST = re.compile(r"^[\[(]?\s*[-+]?\d+(?:\.\d+)?(?:\s*[,; ]\s*[-+]?\d+(?:\.\d+)?)+\s*[\])]?$")
_NUMBER_UNIT = re.compile(r"\b(\d+)-(?=[^\W\d_])")  # "3-year": a number hyphenated to its unit
_PROSE = re.compile(r"^[^\W_][\w\s,.'’&%-]*$")  # words, not code or a query (no = * ( { ; : / ...)
_ARTICLES = frozenset({"a", "an", "the"})
_NUMBER_WORDS = {w: str(i) for i, w in enumerate((
    "zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve",
    "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen", "twenty"))} | {
    "thirty": "30", "forty": "40", "fifty": "50", "sixty": "60", "hundred": "100", "dozen": "12"}


def _number_list(text: str) -> str | None:
    """``"0, 45, 0"``, ``"(0 45 0)"``, ``"0,45,0.0"``: one spelling of a list of numbers (``"0,45,0"``)."""
    if not _NUMBER_LIST.match(text):
        return None
    return ",".join(str(normalize_value(float(n))) for n in _NUMBER.findall(text))


def _words(text: str) -> str:
    """Prose as one spelling: articles dropped (``"a poster for the webinar"`` = ``"poster for webinar"``), a
    number and its unit unhyphenated and singular (``"3-year"`` = ``"3 years"``), a number word its number
    (``"six weeks"`` = ``"6 weeks"``), every word singular (``"reports"`` = ``"report"``), a place's trailing
    region or country dropped (``"Seattle, WA"`` = ``"Seattle"``). Any other word, and the words' order, still
    counts: ``"click cancel"`` is not ``"click checkout"``, ``"5 years"`` not ``"3 years"``."""
    head, comma, tail = text.rpartition(",")
    if comma and head.strip() and is_region(tail):
        text = head
    text = _NUMBER_UNIT.sub(r"\1 ", text)
    words = [_NUMBER_WORDS.get(w, w) for w in text.split() if w not in _ARTICLES]
    return " ".join(stem(w) if w.isalpha() else w for w in words) or text


def normalize_value(value: Any) -> Any:
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, int | float):
        return int(value) if float(value).is_integer() else float(value)
    if isinstance(value, str):
        text = " ".join(value.split())
        if _PATH_OR_URL.match(text) and len(text) > 1 and not text.endswith("://"):
            text = text.removeprefix("./").rstrip("/") or text  # "charts/" = "./charts" = "charts"
        text = text if _PATH_OR_URL.match(text) else text.casefold()
        text = text.rstrip(_CLOSING) or text  # "...in #platform." = "...in #platform": one sentence, typed twice
        if (numbers := _number_list(text)) is not None:
            return numbers
        if (" " in text or _NUMBER_UNIT.search(text)) and _PROSE.match(text):
            text = _words(text)
        try:
            return normalize_value(float(text)) if text and text not in ("nan", "inf", "-inf") else text
        except ValueError:
            return text
    if isinstance(value, list):
        return [normalize_value(v) for v in value]
    if isinstance(value, dict):
        return {str(k): normalize_value(v) for k, v in sorted(value.items())}
    return str(value)


def normalize_arguments(tool: str, arguments: dict[str, Any] | None) -> str:
    """A canonical text of the arguments (see the module doc); equal texts mean equal calls."""
    if arguments is None:
        return UNPARSED
    spec = library().get(tool)
    defaults = {k: normalize_value(v) for k, v in (spec.defaults if spec else {}).items()}
    sets = spec.sets if spec else frozenset()
    kept = {}
    for key, value in arguments.items():
        norm = normalize_value(value)
        if key in sets and isinstance(norm, list):
            norm = [v for _, v in sorted({json.dumps(v, sort_keys=True): v for v in norm}.items())]
        if norm is None or (key in defaults and defaults[key] == norm):
            continue
        kept[key] = norm
    return json.dumps(kept, sort_keys=True, ensure_ascii=False)


def call_key(tool: str, arguments: dict[str, Any] | None) -> tuple[str, str]:
    return tool, normalize_arguments(tool, arguments)


def score_calls(task: Task, calls: Sequence[ToolCallEvent]) -> dict[str, Any]:
    """Finished / efficiently finished / the paper's rule, for one episode's tool calls."""
    keys = [call_key(c.tool, c.arguments) for c in calls]
    # a refused call stands for no gold call where the gold calls succeed (every bundled task, validated so);
    # an imported task set whose gold calls the library may refuse keeps the argument rule alone
    refused_may_count = bool(getattr(task.spec, "gold_may_fail", False))
    used: set[int] = set()
    matched: dict[tuple[int, int], ToolCallEvent] = {}
    match_index: dict[tuple[int, int], int] = {}
    missing: list[str] = []
    for si, step in enumerate(task.gold):
        for ci, gold in enumerate(step.calls):
            try:
                args = resolve_refs(gold.arguments, matched)
            except GoldReplayError:  # the call it depends on was never made (or failed)
                missing.append(f"{gold.tool} (needs the result of gold call {si}.{ci})")
                continue
            want = call_key(gold.tool, args)
            hit = next((i for i, k in enumerate(keys) if i not in used and k == want
                        and (not calls[i].is_error or refused_may_count)), None)
            if hit is None:
                missing.append(f"{gold.tool} {want[1]}")
                continue
            used.add(hit)
            matched[(si, ci)] = calls[hit]
            match_index[(si, ci)] = hit
    extra = [f"{keys[i][0]} {keys[i][1]}" for i in range(len(calls)) if i not in used]
    finished = not missing and not extra
    efficient = finished and same_turns(task, calls, match_index)
    gold, turns = resolved_gold(task, matched), turns_of(calls)
    result = {"finished": finished, "efficient": efficient, "missing": missing, "extra": extra,
              "paper_finished": peer_tfs(gold, turns), "paper_efficient": peer_tefs(gold, turns),
              "paper_finished_all_args": peer_tfs(gold, turns, frozenset()),
              "paper_efficient_all_args": peer_tefs(gold, turns, frozenset()), "turns": _turns(calls)}
    result["paper_differs"] = {m: why for m in ("tfs", "tefs")
                               if (why := difference_reasons(task, calls, result, m, matched, match_index))}
    return result


def _turns(calls: Sequence[ToolCallEvent]) -> list[list[str]]:
    by_round: dict[int, list[str]] = defaultdict(list)
    for c in calls:
        by_round[c.round].append(c.tool)
    return [by_round[r] for r in sorted(by_round)]


def same_turns(task: Task, calls: Sequence[ToolCallEvent], match_index: dict[tuple[int, int], int]) -> bool:
    """Each gold step's calls share one turn, and the steps' turns are distinct and in step order."""
    rounds = []
    for si, step in enumerate(task.gold):
        step_rounds = {calls[match_index[(si, ci)]].round for ci in range(len(step.calls))}
        if len(step_rounds) != 1:
            return False
        rounds.append(step_rounds.pop())
    return all(a < b for a, b in pairwise(rounds))


def _frozen(args: dict[str, Any] | None) -> frozenset[tuple[str, str]]:
    """The peer's view of a call's arguments: {key: str(value)}; unparseable arguments are {}."""
    return frozenset((k, str(v)) for k, v in (args or {}).items())


def peer_tfs(gold: Steps, used: Steps, name_only: frozenset[str] = NAME_ONLY) -> bool:
    """The peer code's TFS rule: the sets of tool names equal, and the sets of (tool, {k: str(v)}) equal
    over the tools not in ``name_only``; turns are ignored and sets hide repeats."""
    flat_gold = [(t, a) for step in gold for t, a in step]
    flat_used = [(t, a) for step in used for t, a in step]
    if {t for t, _ in flat_gold} != {t for t, _ in flat_used}:
        return False
    return ({(t, _frozen(a)) for t, a in flat_gold if t not in name_only}
            == {(t, _frozen(a)) for t, a in flat_used if t not in name_only})


def peer_tefs(gold: Steps, used: Steps, name_only: frozenset[str] = NAME_ONLY) -> bool:
    """The peer code's TEFS rule: as many turns as gold steps, each turn's tool-name set equal to its
    step's, and each turn's set of {k: str(v)} (tool names dropped, name-only tools left out) equal."""
    if len(used) != len(gold):
        return False
    for got, want in zip(used, gold, strict=True):
        if {t for t, _ in got} != {t for t, _ in want}:
            return False
        if {_frozen(a) for t, a in got if t not in name_only} != {_frozen(a) for t, a in want if t not in name_only}:
            return False
    return True


def resolved_gold(task: Task, matched: dict[tuple[int, int], ToolCallEvent]) -> list[list[tuple[str, dict[str, Any]]]]:
    """The gold steps with references resolved as far as the agent's calls allow (else the raw reference)."""
    steps = []
    for step in task.gold:
        calls = []
        for call in step.calls:
            try:
                args = resolve_refs(call.arguments, matched)
            except GoldReplayError:
                args = call.arguments
            calls.append((call.tool, args))
        steps.append(calls)
    return steps


def turns_of(calls: Sequence[ToolCallEvent]) -> list[list[tuple[str, dict[str, Any] | None]]]:
    """The agent's calls as the peer sees them: one step per assistant turn that called tools."""
    by_round: dict[int, list[tuple[str, dict[str, Any] | None]]] = defaultdict(list)
    for c in calls:
        by_round[c.round].append((c.tool, c.arguments))
    return [by_round[r] for r in sorted(by_round)]


def _nested(*values: Any) -> bool:
    return any(isinstance(v, dict | list) for v in values)


def _argument_reasons(gold: dict[str, Any], got: dict[str, Any] | None) -> set[str]:
    """Why the peer's {k: str(v)} of two calls we count as the same call differ."""
    got = got or {}
    reasons = set()
    if set(gold) != set(got):
        reasons.add("optional arguments")  # one side omits an argument the other gives at its default or null
    for key in set(gold) & set(got):
        if str(gold[key]) != str(got[key]):
            # a nested value's str() differs with its keys' order alone; any other difference is in its text
            same_json = json.dumps(gold[key], sort_keys=True) == json.dumps(got[key], sort_keys=True)
            reasons.add("str() of nested values" if _nested(gold[key], got[key]) and same_json
                        else "text and number forms")
    return reasons


def difference_reasons(task: Task, calls: Sequence[ToolCallEvent], result: dict[str, Any], metric: str,
                       matched: dict[tuple[int, int], ToolCallEvent],
                       match_index: dict[tuple[int, int], int]) -> list[str]:
    """Why the paper rule (``paper_finished`` / ``paper_efficient``) and ours (``finished`` / ``efficient``)
    disagree on ``metric`` ('tfs' or 'tefs'); [] when they agree."""
    paper, ours = (result["paper_finished"], result["finished"]) if metric == "tfs" else \
        (result["paper_efficient"], result["efficient"])
    if paper == ours:
        return []
    gold = resolved_gold(task, matched)
    reasons: set[str] = set()
    if paper:  # the paper passes what we fail
        if metric == "tfs" and not result["paper_finished_all_args"]:
            reasons.add("skip list")
        if metric == "tefs" and not result["paper_efficient_all_args"]:
            reasons.add("skip list")
        flat_gold = Counter((t, _frozen(a)) for step in gold for t, a in step)
        flat_used = Counter((c.tool, _frozen(c.arguments)) for c in calls)
        if flat_gold != flat_used and set(flat_gold) == set(flat_used):
            reasons.add("repeats hidden by sets")
        if not reasons:
            pairs = [(a, c.arguments) for (t, a) in (x for s in gold for x in s) for c in calls if c.tool == t]
            reasons.add("str() of nested values" if any(_nested(*(a or {}).values(), *(b or {}).values())
                                                          for a, b in pairs) else "text and number forms")
    else:  # we pass (the calls match ours one to one) what the paper fails
        for (si, ci), i in match_index.items():
            reasons |= _argument_reasons(gold[si][ci][1], calls[i].arguments)
        if not reasons:
            reasons.add("other")
    return sorted(reasons)


def score_episode(task: Task, trajectory: Trajectory) -> dict[str, Any]:
    result = score_calls(task, trajectory.tool_calls)
    return {"acc": 1.0 if result["finished"] else 0.0, "exec_acc": None, "weight": len(task.gold_calls), **result}


# -- a run ---------------------------------------------------------------------------------------------
def weighted(items: Sequence[tuple[int, bool]]) -> float:
    total = sum(w for w, _ in items)
    return sum(w for w, ok in items if ok) / total if total else 0.0


def paper_differences(rows: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Episodes where the paper rule and ours disagree, per metric: how many the paper passes and we fail
    (and the reverse), the episodes counted by reason (one episode may have several), and each episode."""
    out: dict[str, Any] = {}
    for metric in ("tfs", "tefs"):
        listed = [r for r in rows if metric in (r.get("paper_differs") or {})]
        paper_key, ours_key = ("paper_finished", "finished") if metric == "tfs" else ("paper_efficient", "efficient")
        reasons = Counter(why for r in listed for why in r["paper_differs"][metric])
        out[metric] = {
            "paper_only": sum(1 for r in listed if r[paper_key] and not r[ours_key]),
            "ours_only": sum(1 for r in listed if r[ours_key] and not r[paper_key]),
            "by_reason": dict(reasons.most_common()),
            "episodes": [{"task_id": r["task_id"], "epoch": r["epoch"], "weight": r["weight"],
                          "passes": "paper" if r[paper_key] else "ours", "reasons": r["paper_differs"][metric]}
                         for r in listed],
        }
    return out


def run_metrics(rows: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """rows: one per episode with weight, finished, efficient, paper_finished, output_tokens, elapsed_s.

    Token efficiency = TEFS total score (sum of weights of efficiently finished episodes) per 1k output
    tokens; time efficiency = the same score per minute of episode time (None when nothing was spent)."""
    score = sum(r["weight"] for r in rows if r["efficient"])
    tokens = sum(r["output_tokens"] for r in rows)
    minutes = sum(r["elapsed_s"] for r in rows) / 60
    return {
        "n": len(rows),
        "tfs": weighted([(r["weight"], r["finished"]) for r in rows]),
        "tefs": weighted([(r["weight"], r["efficient"]) for r in rows]),
        "tfs_paper": weighted([(r["weight"], r["paper_finished"]) for r in rows]),
        "tefs_paper": weighted([(r["weight"], r.get("paper_efficient", False)) for r in rows]),
        "tfs_outcome": weighted([(r["weight"], r.get("outcome_finished", False)) for r in rows]),
        "tefs_outcome": weighted([(r["weight"], r.get("outcome_efficient", False)) for r in rows]),
        "total_score": score,
        "token_efficiency": score / (tokens / 1000) if tokens else None,
        "time_efficiency": score / minutes if minutes else None,
    }


def grouped(rows: Sequence[dict[str, Any]], key: str) -> dict[str, dict[str, Any]]:
    groups: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for r in rows:
        groups[r[key]].append(r)
    return {k: run_metrics(v) for k, v in sorted(groups.items())}


def trial_metrics(rows: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """avg@k: TFS / TEFS of each trial (epoch) and their mean, over the tasks every trial has; then the same
    by the paper's rule (the avg@k its Tables 1 and 2 print) and by the outcome rule."""
    epochs = sorted({r["epoch"] for r in rows})
    per = [run_metrics([r for r in rows if r["epoch"] == e]) for e in epochs]
    k = len(epochs)
    if not k:
        return {"trials": 0}
    out: dict[str, Any] = {"trials": k, "tfs_per_trial": [p["tfs"] for p in per],
                           "tefs_per_trial": [p["tefs"] for p in per]}
    for metric in ("tfs", "tefs", "tfs_paper", "tefs_paper", "tfs_outcome", "tefs_outcome"):
        out[f"{metric}_avg@{k}"] = sum(p[metric] for p in per) / k
    return out

