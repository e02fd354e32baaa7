"""LLM judges: pluggable alternatives and complements to the rule-based scorers.

Every judge is async, takes a :class:`~mcp_persona.llm.base.ChatClient`, and returns a
:class:`JudgeVerdict` holding the raw output of each attempt, the strictly parsed
verdict (or ``unparseable``: never guessed from free text), and the usage.

This package holds what every judge shares: :mod:`~mcp_persona.judges.base` (the model call with strict
parsing and retries), :mod:`~mcp_persona.judges.render` (the trajectory as a judge reads it, within budgets),
:mod:`~mcp_persona.judges.parse`, the verdict :mod:`~mcp_persona.judges.schemas`,
:mod:`~mcp_persona.judges.agreement` (judge-vs-human agreement: percent, Cohen's kappa) and
:mod:`~mcp_persona.judges.config` (``--judge rules|provider:model`` and the self-judge refusal). Each protocol's
own judges live in its package: MCP-Persona's checkpoint judge and failure taxonomy
(``protocols/persona/judge.py``, ``failures.py``), LiveMCP-101's Likert judges (``protocols/livemcp101/judges.py``),
LiveMCPBench's key-point judge and extractor (``protocols/livemcpbench/keypoint.py``).
"""

from mcp_persona.judges.agreement import (
    AgreementReport,
    AgreementStats,
    HumanLabel,
    LabelFileError,
    agreement_report,
    cohen_kappa,
    judge_labels,
    load_labels,
    percent_agreement,
)
from mcp_persona.judges.config import SelfJudgeError, check_self_judge, is_self_judge, judge_spec
from mcp_persona.judges.parse import JudgeAttempt, JudgeVerdict, VerdictParseError, extract_json_object, parse_verdict
from mcp_persona.judges.render import Budgets
from mcp_persona.judges.schemas import FAILURE_MODES, FailureMode, likert_to_score

__all__ = [
    "FAILURE_MODES",
    "AgreementReport",
    "AgreementStats",
    "Budgets",
    "FailureMode",
    "HumanLabel",
    "JudgeAttempt",
    "JudgeVerdict",
    "LabelFileError",
    "SelfJudgeError",
    "VerdictParseError",
    "agreement_report",
    "check_self_judge",
    "cohen_kappa",
    "extract_json_object",
    "is_self_judge",
    "judge_labels",
    "judge_spec",
    "likert_to_score",
    "load_labels",
    "parse_verdict",
    "percent_agreement",
]
