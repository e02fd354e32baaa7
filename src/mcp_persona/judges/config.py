"""Choosing a judge: ``--judge rules|provider:model``, and refusing to let a model judge itself.

A model grading its own episodes is a known bias (and LiveMCPBench's default); the
run refuses it unless explicitly allowed. Two specs name the same model when their
model names agree after dropping the provider and a dated snapshot suffix
(``openai:gpt-4o-2024-08-06`` and ``gpt-4o`` are one model; so are the same open
model behind two providers or endpoints).
"""

from __future__ import annotations

import re

RULES = "rules"
_SNAPSHOT = re.compile(r"(?:-\d{4}-\d{2}-\d{2}|-\d{8}|-latest)$")


class SelfJudgeError(ValueError):
    """The judge would be the agent's own model."""


def judge_spec(spec: str) -> str | None:
    """None for ``rules`` (deterministic scoring only), else the model spec (validated by the client factory)."""
    value = spec.strip()
    if not value:
        raise ValueError("--judge is empty: use 'rules' or 'provider:model'")
    return None if value.lower() == RULES else value


def model_identity(spec: str) -> str:
    """The model a spec or client name refers to, for comparison: provider and snapshot date dropped."""
    value = spec.strip().lower()
    if value == "local" or value.startswith("local:"):
        return "local"
    _, sep, model = value.partition(":")
    name = model if sep else value
    name = name.rsplit("/", 1)[-1]  # "meta-llama/Llama-3-8b" and "llama-3-8b" are one model
    return _SNAPSHOT.sub("", name)


def is_self_judge(agent_model: str | None, judge_model: str) -> bool:
    return agent_model is not None and model_identity(agent_model) == model_identity(judge_model)


def check_self_judge(agent_model: str | None, judge_model: str, *, allow: bool = False) -> None:
    """Raise :class:`SelfJudgeError` when the judge is the agent's model, unless ``allow``."""
    if not allow and is_self_judge(agent_model, judge_model):
        raise SelfJudgeError(
            f"the judge {judge_model!r} is the agent's own model ({agent_model!r}): a model grading itself is "
            "biased; choose another --judge, or pass --allow-self-judge to accept it"
        )


__all__ = ["RULES", "SelfJudgeError", "check_self_judge", "is_self_judge", "judge_spec", "model_identity"]
