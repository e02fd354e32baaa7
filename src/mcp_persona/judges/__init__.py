"""LLM judges: pluggable alternatives and complements to the rule-based scorers.

Every judge is async, takes a :class:`~mcp_persona.llm.base.ChatClient`, and returns a
:class:`JudgeVerdict` holding the raw output of each attempt, the strictly parsed
verdict (or ``unparseable``: never guessed from free text), and the usage.

* :class:`CheckpointJudge` — MCP-Persona, one call per checkpoint → 0 / 0.5 / 1.
* :class:`LikertResultJudge`, :class:`LikertTrajectoryJudge` — LiveMCP-101, 1–5 → 0 … 1.
* :class:`KeyPointJudge`, :class:`KeyPointExtractor` — LiveMCPBench, success / failure on key points.
* :mod:`~mcp_persona.judges.agreement` — judge-vs-human agreement (percent, Cohen's kappa).
* :mod:`~mcp_persona.judges.failures` — LiveMCP-101's failure taxonomy, rules first.
* :mod:`~mcp_persona.judges.config` — ``--judge rules|provider:model`` and the self-judge refusal.
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
from mcp_persona.judges.checkpoint import CheckpointJudge, combine_scores, undecided_checkpoints
from mcp_persona.judges.config import SelfJudgeError, check_self_judge, is_self_judge, judge_spec
from mcp_persona.judges.failures import (
    FailureClassification,
    FailureJudge,
    RunFailures,
    classify_failure,
    classify_run,
    count_failure_modes,
    diagnose,
    is_failed,
)
from mcp_persona.judges.keypoint import KeyPointExtractor, KeyPointJudge, tool_descriptions_for
from mcp_persona.judges.likert import LikertResultJudge, LikertTrajectoryJudge
from mcp_persona.judges.parse import JudgeAttempt, JudgeVerdict, VerdictParseError, extract_json_object, parse_verdict
from mcp_persona.judges.render import Budgets
from mcp_persona.judges.schemas import FAILURE_MODES, FailureMode, likert_to_score

__all__ = [
    "FAILURE_MODES",
    "AgreementReport",
    "AgreementStats",
    "Budgets",
    "CheckpointJudge",
    "FailureClassification",
    "FailureJudge",
    "FailureMode",
    "HumanLabel",
    "JudgeAttempt",
    "JudgeVerdict",
    "KeyPointExtractor",
    "KeyPointJudge",
    "LabelFileError",
    "LikertResultJudge",
    "LikertTrajectoryJudge",
    "RunFailures",
    "SelfJudgeError",
    "VerdictParseError",
    "agreement_report",
    "check_self_judge",
    "classify_failure",
    "classify_run",
    "cohen_kappa",
    "combine_scores",
    "count_failure_modes",
    "diagnose",
    "extract_json_object",
    "is_failed",
    "is_self_judge",
    "judge_labels",
    "judge_spec",
    "likert_to_score",
    "load_labels",
    "parse_verdict",
    "percent_agreement",
    "tool_descriptions_for",
    "undecided_checkpoints",
]
