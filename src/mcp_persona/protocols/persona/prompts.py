"""What the agent is told. Never the answer's shape: no tool count, no tool names to use."""

from __future__ import annotations

import random

from mcp_persona.tasks import Task

SYSTEM = """You are a personal assistant working in the user's own apps through tools.
Current time: {now}.
Use the tools to look up what you need and to carry out the request; information the user does not give
you can usually be found in their apps. When you are done, reply to the user with a short final answer that
states what you found and what you did."""


def system_prompt(task: Task, skills: str | None = None) -> str:
    prompt = SYSTEM.format(now=task.clock.describe())
    if skills:
        prompt += "\n\n# Skills\nGuides for the apps you can use:\n\n" + skills.strip()
    return prompt


def user_prompt(task: Task) -> str:
    """The instruction, then what the user's profile says (necessary facts mixed with distractors)."""
    facts = [f"{k}: {v}" for k, v in task.spec.necessary_context.items()] + list(task.spec.unnecessary_context)
    random.Random(task.id).shuffle(facts)  # seeded: the same order every run
    if not facts:
        return task.instruction
    lines = "\n".join(f"- {f}" for f in facts)
    return f"{task.instruction}\n\nWhat I know about you and your situation:\n{lines}"
