"""Bootstrap intervals and flip rates: hand-computed cases and a percentile bootstrap done here by hand."""

from __future__ import annotations

import random

import pytest

from mcp_persona.protocols import get_protocol
from mcp_persona.scoring.uncertainty import bootstrap_interval, flipped, uncertainty


def once(*values: float) -> list[list[tuple[float, float]]]:
    return [[(v, 1.0)] for v in values]


def test_a_constant_score_has_a_point_interval() -> None:
    assert bootstrap_interval(once(1, 1, 1, 1)) == (1.0, 1.0)
    assert bootstrap_interval(once(0, 0, 0)) == (0.0, 0.0)
    assert bootstrap_interval(once(0.4)) == (0.4, 0.4)  # one task, one trial: nothing to resample


def test_a_metric_that_applies_to_no_episode_has_no_interval() -> None:
    assert bootstrap_interval([[(0.0, 0.0)], [(1.0, 0.0)]]) is None
    assert bootstrap_interval([]) is None


def test_two_tasks_of_different_weight() -> None:
    # draws: (A, A) -> 1, (B, B) -> 0, mixed -> 1/(1+3) = 0.25; each pure draw has chance 1/4 > 2.5 %
    assert bootstrap_interval([[(1.0, 1.0)], [(0.0, 3.0)]]) == (0.0, 1.0)


def test_trials_are_resampled_within_a_task() -> None:
    # one task, trials 1 and 0: over tasks alone nothing varies; within it the mean is 0, 0.5 or 1
    assert bootstrap_interval([[(1.0, 1.0), (0.0, 1.0)]]) == (0.0, 1.0)


def test_the_interval_matches_a_percentile_bootstrap_done_by_hand() -> None:
    sample = [0.13, 0.57, 0.91, 0.42, 0.99, 0.04, 0.71, 0.36, 0.83, 0.62, 0.27, 0.48]
    rng = random.Random(7)
    means = sorted(sum(rng.choice(sample) for _ in sample) / len(sample) for _ in range(20000))
    low, high = means[int(0.025 * len(means))], means[int(0.975 * len(means)) - 1]
    got = bootstrap_interval(once(*sample))
    assert got is not None
    assert got[0] == pytest.approx(low, abs=0.02) and got[1] == pytest.approx(high, abs=0.02)
    assert got[0] < sum(sample) / len(sample) < got[1]
    assert bootstrap_interval(once(*sample)) == got  # seeded
    assert bootstrap_interval(once(*sample), seed=1) != got


def test_bad_settings_are_refused() -> None:
    with pytest.raises(ValueError, match="resamples"):
        bootstrap_interval(once(1, 0), resamples=0)
    with pytest.raises(ValueError, match="level"):
        bootstrap_interval(once(1, 0), level=1.5)


def test_flips_count_tasks_whose_trials_disagree() -> None:
    assert flipped({"a": [(1, 1), (0, 1)], "b": [(1, 1), (1, 1)], "c": [(1, 1)]}) == (["a"], 2)
    assert flipped({"a": [(1, 0), (0, 1)]}) == ([], 0)  # one trial the metric applies to: nothing to flip


def test_a_summary_block_for_a_protocol() -> None:
    persona = get_protocol("persona")
    rows = [{"task_id": "t1", "acc": 1.0, "exec_acc": None, "strict": True},
            {"task_id": "t1", "acc": 0.5, "exec_acc": None, "strict": False},
            {"task_id": "t2", "acc": 1.0, "exec_acc": 1.0, "strict": True},
            {"task_id": "t2", "acc": 1.0, "exec_acc": 1.0, "strict": True}]
    block = persona.uncertainty(rows)
    assert (block["level"], block["resamples"], block["trials"], block["n_tasks"]) == (0.95, 2000, 2, 2)
    assert block["resampled"] == "tasks, then trials within a task"
    assert set(block["intervals"]) == {"acc", "sr_0_8", "exec_acc", "strict_sr"}
    assert block["intervals"]["exec_acc"] == [1.0, 1.0]  # only t2 has operate checkpoints
    low, high = block["intervals"]["acc"]
    assert 0.5 <= low < 0.875 < high <= 1.0
    assert block["flip_rate"] == {"acc": 0.5, "sr_0_8": 0.5, "exec_acc": 0.0, "strict_sr": 0.5}
    assert block["flipped"] == ["t1"]
    single = uncertainty(rows[::2], persona.headline_values, ["acc"])
    assert "flip_rate" not in single and single["resampled"] == "tasks"
