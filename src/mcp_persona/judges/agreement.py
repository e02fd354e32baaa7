"""Judge-vs-human agreement: percent agreement and Cohen's kappa, overall and per category.

Human labels come from a CSV file (header ``id,label`` and optionally
``category``) or a JSONL file (one object per line with ``id``, ``label`` and
optionally ``category``). Labels are compared after normalization: numbers by
value (``1``, ``1.0`` and ``"1"`` are one label), text case-insensitively.

Cohen's kappa: ``(p_o - p_e) / (1 - p_e)``, with ``p_o`` the observed agreement and
``p_e`` the agreement expected from the two raters' marginals. The weighted kappa
for ordinal labels (checkpoint scores 0/0.5/1, Likert 1–5) is
``1 - Σ w_ij O_ij / Σ w_ij E_ij`` with ``E_ij = row_i · col_j / n`` and, for
quadratic weights, ``w_ij = (v_i - v_j)²`` over the label *values* (so a label
level neither rater used still spaces the others; the scale of ``w`` cancels).
A kappa is ``None`` where it is undefined (chance agreement 1, e.g. both raters
always gave the same single label).

MCP-Persona's Table 7 reports misaligned checkpoints per category; LiveMCP-101's
Fig. 6 reports quadratic-weighted kappa per model.
"""

from __future__ import annotations

import csv
import io
import json
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Literal

from mcp_persona.judges.parse import JudgeVerdict

Weights = Literal["linear", "quadratic"] | None
UNCATEGORIZED = "(none)"


class LabelFileError(ValueError):
    """A human-label file that cannot be read; the message names the file and line."""


@dataclass(frozen=True)
class HumanLabel:
    id: str
    label: str
    category: str | None = None


def normalize_label(value: Any) -> str:
    """One canonical text per label: numbers by value (``1.0`` → ``1``, ``"0.50"`` → ``0.5``), text lowercased."""
    if isinstance(value, bool):
        raise ValueError("a label cannot be true/false: use a number or a word")
    if isinstance(value, int | float):
        number = float(value)
    elif isinstance(value, str):
        text = value.strip()
        if not text:
            raise ValueError("a label is empty")
        try:
            number = float(text)
        except ValueError:
            return text.lower()
    else:
        raise ValueError(f"a label must be a number or a string, not {type(value).__name__}")
    if not math.isfinite(number):
        raise ValueError(f"a label must be a finite number, not {value!r}")
    return str(int(number)) if number.is_integer() else repr(number)


def _numeric(label: str) -> float | None:
    try:
        return float(label)
    except ValueError:
        return None


# -- loading ---------------------------------------------------------------------------------------
def load_labels(path: str | Path) -> dict[str, HumanLabel]:
    """Human labels by id from ``.csv`` or ``.jsonl`` (``.ndjson``); :class:`LabelFileError` on any problem."""
    p = Path(path)
    if not p.is_file():
        raise LabelFileError(f"{p}: no such file")
    suffix = p.suffix.lower()
    try:
        text = p.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError as exc:
        raise LabelFileError(f"{p}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    if suffix == ".csv":
        rows = _csv_rows(p, text)
    elif suffix in (".jsonl", ".ndjson"):
        rows = _jsonl_rows(p, text)
    else:
        raise LabelFileError(f"{p}: unknown label file type {suffix!r}; use .csv (id,label[,category]) or .jsonl")
    out: dict[str, HumanLabel] = {}
    first_line: dict[str, int] = {}
    for line, raw_id, raw_label, raw_cat in rows:
        where = f"{p}:{line}"
        if isinstance(raw_id, bool) or not isinstance(raw_id, str | int) or not str(raw_id).strip():
            raise LabelFileError(f"{where}: 'id' must be a non-empty string")
        item_id = str(raw_id).strip()
        try:
            label = normalize_label(raw_label)
        except ValueError as exc:
            raise LabelFileError(f"{where}: bad label for {item_id!r}: {exc}") from None
        if raw_cat is not None and not isinstance(raw_cat, str):
            raise LabelFileError(f"{where}: 'category' must be a string")
        category = (raw_cat.strip() or None) if isinstance(raw_cat, str) else None
        if item_id in out:
            raise LabelFileError(f"{where}: id {item_id!r} already labeled on line {first_line[item_id]}")
        out[item_id] = HumanLabel(item_id, label, category)
        first_line[item_id] = line
    if not out:
        raise LabelFileError(f"{p}: no labels in the file")
    return out


def _csv_rows(p: Path, text: str) -> list[tuple[int, Any, Any, Any]]:
    reader = csv.DictReader(io.StringIO(text, newline=""))
    header = [h.strip() for h in (reader.fieldnames or [])]
    missing = [c for c in ("id", "label") if c not in header]
    if missing:
        raise LabelFileError(f"{p}:1: the header must have columns id,label (and optionally category); "
                             f"missing {', '.join(missing)} in {header or '(empty file)'}")
    reader.fieldnames = header
    rows = []
    for row in reader:
        line = reader.line_num
        if None in row:
            raise LabelFileError(f"{p}:{line}: more fields than the header has")
        if all((v or "").strip() == "" for v in row.values()):
            continue
        if row.get("label") is None:
            raise LabelFileError(f"{p}:{line}: fewer fields than the header has")
        rows.append((line, row["id"], row["label"], row.get("category")))
    return rows


def _jsonl_rows(p: Path, text: str) -> list[tuple[int, Any, Any, Any]]:
    rows = []
    for line, raw in enumerate(text.splitlines(), 1):
        if not raw.strip():
            continue
        try:
            obj = json.loads(raw)
        except json.JSONDecodeError as exc:
            raise LabelFileError(f"{p}:{line}: not valid JSON ({exc.msg})") from None
        if not isinstance(obj, dict):
            raise LabelFileError(f"{p}:{line}: each line must be a JSON object with id and label")
        missing = [k for k in ("id", "label") if k not in obj]
        if missing:
            raise LabelFileError(f"{p}:{line}: missing {', '.join(missing)}")
        rows.append((line, obj["id"], obj["label"], obj.get("category")))
    return rows


def judge_labels(verdicts: Mapping[str, JudgeVerdict]) -> tuple[dict[str, str], list[str]]:
    """Labels of the usable verdicts by id, and the ids whose verdict was unparseable or errored."""
    labels: dict[str, str] = {}
    unusable: list[str] = []
    for item_id, verdict in verdicts.items():
        if verdict.ok and verdict.label is not None:
            labels[item_id] = normalize_label(verdict.label)
        else:
            unusable.append(item_id)
    return labels, sorted(unusable)


# -- statistics ------------------------------------------------------------------------------------
def _check_pairs(a: Sequence[Any], b: Sequence[Any]) -> tuple[list[str], list[str]]:
    if len(a) != len(b):
        raise ValueError(f"the two raters labeled different numbers of items ({len(a)} vs {len(b)})")
    if not a:
        raise ValueError("no items to compare")
    return [normalize_label(x) for x in a], [normalize_label(x) for x in b]


def percent_agreement(a: Sequence[Any], b: Sequence[Any]) -> float:
    """Share of items with equal labels, in [0, 1]."""
    x, y = _check_pairs(a, b)
    return sum(1 for u, v in zip(x, y, strict=True) if u == v) / len(x)


def label_order(labels: Iterable[str]) -> list[str]:
    """Numeric labels by value, then the others alphabetically."""
    uniq = set(labels)
    nums = sorted((lab for lab in uniq if _numeric(lab) is not None), key=lambda lab: float(lab))
    return nums + sorted(lab for lab in uniq if _numeric(lab) is None)


def confusion(a: Sequence[str], b: Sequence[str], levels: Sequence[str]) -> list[list[int]]:
    """Counts with rows = first rater's label, columns = second rater's, both in ``levels`` order."""
    index = {lab: i for i, lab in enumerate(levels)}
    matrix = [[0] * len(levels) for _ in levels]
    for u, v in zip(a, b, strict=True):
        matrix[index[u]][index[v]] += 1
    return matrix


def cohen_kappa(
    a: Sequence[Any], b: Sequence[Any], *, weights: Weights = None, levels: Sequence[Any] | None = None
) -> float | None:
    """Cohen's kappa of two raters over the same items (plain, or linear/quadratic-weighted for numbers).

    ``levels``: the label set, for weighted kappa over a scale with levels nobody used (only their values
    matter). ``None`` when kappa is undefined (chance agreement is 1).
    """
    x, y = _check_pairs(a, b)
    order = label_order([*x, *y, *(normalize_label(v) for v in (levels or []))])
    matrix = confusion(x, y, order)
    n = len(x)
    rows = [sum(r) for r in matrix]
    cols = [sum(matrix[i][j] for i in range(len(order))) for j in range(len(order))]
    if weights is None:
        p_o = sum(matrix[i][i] for i in range(len(order))) / n
        p_e = sum(rows[i] * cols[i] for i in range(len(order))) / (n * n)
        return None if math.isclose(p_e, 1.0) else (p_o - p_e) / (1 - p_e)
    values = [_numeric(lab) for lab in order]
    if any(v is None for v in values):
        bad = [lab for lab, v in zip(order, values, strict=True) if v is None]
        raise ValueError(f"weighted kappa needs numeric (ordinal) labels; got {bad}")
    power = 2 if weights == "quadratic" else 1
    w = [[abs(vi - vj) ** power for vj in values] for vi in values]  # type: ignore[operator]
    observed = sum(w[i][j] * matrix[i][j] for i in range(len(order)) for j in range(len(order)))
    expected = sum(w[i][j] * rows[i] * cols[j] / n for i in range(len(order)) for j in range(len(order)))
    if math.isclose(expected, 0.0, abs_tol=1e-12):
        return None
    return 1 - observed / expected


@dataclass
class AgreementStats:
    n: int
    n_agree: int
    agreement: float  # percent agreement, in [0, 1]
    kappa: float | None
    weighted_kappa: float | None  # quadratic; None for non-ordinal labels
    levels: list[str]
    confusion: list[list[int]]  # rows: human, columns: judge

    @property
    def n_misaligned(self) -> int:
        return self.n - self.n_agree

    @property
    def misaligned_ratio(self) -> float:
        return self.n_misaligned / self.n


@dataclass
class AgreementReport:
    overall: AgreementStats
    by_category: dict[str, AgreementStats]
    only_human: list[str] = field(default_factory=list)  # labeled by humans, no judge label
    only_judge: list[str] = field(default_factory=list)  # judged, no human label
    judge_unusable: list[str] = field(default_factory=list)  # human-labeled, judge verdict unparseable/errored

    def to_dict(self) -> dict[str, Any]:
        def stats(s: AgreementStats) -> dict[str, Any]:
            return asdict(s) | {"n_misaligned": s.n_misaligned, "misaligned_ratio": s.misaligned_ratio}

        return {
            "overall": stats(self.overall),
            "by_category": {k: stats(v) for k, v in self.by_category.items()},
            "only_human": self.only_human,
            "only_judge": self.only_judge,
            "judge_unusable": self.judge_unusable,
        }


def _stats(human: list[str], judge: list[str], *, ordinal: bool, levels: Sequence[str]) -> AgreementStats:
    order = label_order([*human, *judge, *levels])
    agree = sum(1 for u, v in zip(human, judge, strict=True) if u == v)
    return AgreementStats(
        n=len(human), n_agree=agree, agreement=agree / len(human),
        kappa=cohen_kappa(human, judge),
        weighted_kappa=cohen_kappa(human, judge, weights="quadratic", levels=levels) if ordinal else None,
        levels=order, confusion=confusion(human, judge, order),
    )


def agreement_report(
    human: Mapping[str, HumanLabel | Any],
    judge: Mapping[str, Any],
    *,
    ordinal: bool | None = None,
    levels: Sequence[Any] = (),
    categories: Mapping[str, str] | None = None,
    judge_unusable: Iterable[str] = (),
) -> AgreementReport:
    """Align human and judge labels by id and report agreement overall and per category.

    ``human``: :func:`load_labels` output (or id → label). ``judge``: id → label (see :func:`judge_labels`).
    ``ordinal``: compute the quadratic-weighted kappa too; by default when every label is numeric.
    ``levels``: the full label scale (e.g. ``[0, 0.5, 1]`` or ``[1, 2, 3, 4, 5]``). ``categories``: id →
    category, overriding the human file's. Ids on one side only are listed, never scored.
    """
    items = {k: v if isinstance(v, HumanLabel) else HumanLabel(k, normalize_label(v)) for k, v in human.items()}
    judged = {k: normalize_label(v) for k, v in judge.items()}
    unusable = set(judge_unusable)
    common = sorted(set(items) & set(judged))
    if not common:
        raise ValueError("no item has both a human and a judge label (check that the ids match)")
    norm_levels = [normalize_label(v) for v in levels]
    all_labels = [items[k].label for k in common] + [judged[k] for k in common] + norm_levels
    if ordinal is None:
        ordinal = all(_numeric(lab) is not None for lab in all_labels)

    def category(k: str) -> str:
        if categories is not None and k in categories:
            return categories[k]
        return items[k].category or UNCATEGORIZED

    groups: dict[str, list[str]] = {}
    for k in common:
        groups.setdefault(category(k), []).append(k)
    by_category = {
        cat: _stats([items[k].label for k in ids], [judged[k] for k in ids], ordinal=ordinal, levels=norm_levels)
        for cat, ids in sorted(groups.items())
    }
    overall = _stats([items[k].label for k in common], [judged[k] for k in common], ordinal=ordinal,
                     levels=norm_levels)
    return AgreementReport(
        overall=overall,
        by_category=by_category,
        only_human=sorted(set(items) - set(judged) - unusable),
        only_judge=sorted(set(judged) - set(items)),
        judge_unusable=sorted(unusable & set(items)),
    )


__all__ = [
    "AgreementReport",
    "AgreementStats",
    "HumanLabel",
    "LabelFileError",
    "agreement_report",
    "cohen_kappa",
    "confusion",
    "judge_labels",
    "load_labels",
    "normalize_label",
    "percent_agreement",
]
