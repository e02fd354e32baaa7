"""Semantic equivalence testing: an answer built from a task's facts alone keeps the score, and rewrites that
break a fact (one value off, a comparison turned round) lose it; a breaking rewrite that keeps the score is a
validate problem."""

from __future__ import annotations

import anyio

from mcp_persona.equivalents import (
    EquivalentResult,
    TaskEquivalence,
    equivalence_problems,
    equivalence_test,
    facts_answer,
    semantic_rewrites,
)
from mcp_persona.mutants import gold_plan
from mcp_persona.protocols import get_protocol, load_tasks
from mcp_persona.scoring.claims import claims_winner
from mcp_persona.scoring.normalize import appears_in
from mcp_persona.tasks import SearchCheckpoint
from mcp_persona.tasks.models import Claim


def _task(suite: str, task_id: str):  # type: ignore[no-untyped-def]
    return next(t for t in load_tasks(suite) if t.id == task_id)


def test_the_facts_answer_holds_every_value_and_no_sentence_of_the_reference() -> None:
    task = _task("livemcpbench", "office_docx_read_1")
    facts = facts_answer(task)
    assert facts is not None
    values = [v for cp in task.spec.checkpoints if isinstance(cp, SearchCheckpoint) for v in cp.gt_value]
    assert all(appears_in(v, facts) for v in values)
    reference = [s.strip() for s in task.reference_answer.replace("\n", ". ").split(". ") if len(s.strip()) > 12]
    assert not any(s in facts for s in reference)


def test_a_value_off_and_a_swapped_claim_break_the_facts() -> None:
    task = _task("livemcpbench", "office_docx_read_1")
    cp = task.spec.checkpoints[0]
    claimed = cp.model_copy(update={"claim": Claim(winner="Design", rivals=["Marketing"])})
    task = task.model_copy(update={"spec": task.spec.model_copy(update={
        "checkpoints": [claimed, *task.spec.checkpoints[1:]]})})
    kinds = {e.kind: e.answer for e in semantic_rewrites(task, gold_plan(task))}
    assert set(kinds) == {"facts", "value_off", "swapped_claim"}
    values = [v for c in task.spec.checkpoints if isinstance(c, SearchCheckpoint) for v in c.gt_value]
    off = [v for v in values if not appears_in(v, kinds["value_off"])]
    assert len(off) == 1  # exactly one value changed
    assert claims_winner(kinds["facts"], "Design", ["Marketing"])[0]
    assert not claims_winner(kinds["swapped_claim"], "Design", ["Marketing"])[0]


def test_the_rewrites_score_as_they_should_through_the_suites_own_scorers() -> None:
    task = _task("livemcpbench", "office_docx_read_1")
    result = anyio.run(equivalence_test, task, get_protocol("livemcpbench"))
    by_kind = {r.kind: r for r in result.results}
    assert by_kind["facts"].kept and by_kind["value_off"].kept is False
    assert all(r.right for r in result.results) and not result.failures


def test_a_breaking_rewrite_that_keeps_the_score_is_a_problem() -> None:
    task = _task("livemcpbench", "office_docx_read_1")
    result = TaskEquivalence(task.id, task.spec.category, [EquivalentResult("value_off", True, ""),
                                                             EquivalentResult("facts", False, "lost checkpoint 1")])
    problems = equivalence_problems(task, result)
    assert any("fact-breaking rewrite keeps the full score (value_off)" in p for p in problems)
    assert any("an equivalent answer loses the score (facts" in p for p in problems)
