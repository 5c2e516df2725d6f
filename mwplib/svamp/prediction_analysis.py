"""Prediction-level analyses of SVAMP §4–5: Easy/Hard partition, variation-removal ablations and accuracy
breakdowns (notebooks 02_question_removal and 05_svamp).

Everything here works on *correctness maps* — problem id → answered correctly? — built from the per-problem
predictions that `mwplib.runs` stores, so every table is recomputed from saved predictions, never retrained.
Accuracies are pooled (correct / problems) and reported in percent, as the paper does.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

import pandas as pd

from .. import expr, metrics
from ..metrics import percent
from ..problem import Correctness, Problem
from ..significance import same_ids, unpaired_difference

#: SVAMP's variation codes (data/SOURCES.md) → the paper's Table 14 label.
VARIATION_LABELS: dict[str, str] = {
    "11": "Same Obj, Diff Struct", "12": "Diff Obj, Same Struct", "13": "Diff Obj, Diff Struct",
    "21": "Add Rel Info", "22": "Change Info", "23": "Invert Operation",
    "31": "Change order of Obj", "32": "Change order of Phrases", "33": "Add Irrel Info"}
CATEGORIES = ("Question Sensitivity", "Reasoning Ability", "Structural Invariance")

#: SVAMP's `Type` field → the operation columns of Tables 10/18 ("Common-Divison" is a typo in SVAMP.json).
OPERATION_OF_TYPE = {"Addition": "ADD", "Subtraction": "SUB", "Multiplication": "MUL",
                     "Common-Division": "DIV", "Common-Divison": "DIV"}
SUBSETS = ("Full Set", "One-Op", "Two-Op", "ADD", "SUB", "MUL", "DIV")


# -------------------------------------------------------------------------------- Table 4: Easy / Hard

def easy_hard_partition(with_question: Correctness, without_question: Correctness) -> dict[str, float | int]:
    """SVAMP Table 4 for one model: Easy = test problems it answers correctly *without* the question, Hard =
    the rest; the accuracy (%) of the same model *with* the question on each part (notebook 02).

    Both maps must cover the same problems (a mismatch means the two evaluations are not of the same test set)."""
    same_ids(with_question, without_question, "easy_hard_partition")
    easy = [i for i in with_question if without_question[i]]
    hard = [i for i in with_question if not without_question[i]]
    return {"n": len(with_question), "easy_n": len(easy), "hard_n": len(hard),
            "easy_correct": sum(with_question[i] for i in easy), "hard_correct": sum(with_question[i] for i in hard),
            "easy_accuracy": percent(with_question, easy), "hard_accuracy": percent(with_question, hard),
            "with_question": percent(with_question), "without_question": percent(without_question)}


# ------------------------------------------------------------------------- Tables 13 and 14: ablations

def _labels(problem: Problem, by: str) -> tuple[str, ...]:
    field = {"category": "variation_categories", "variation": "variation_codes"}[by]
    if field not in problem.meta:
        raise KeyError(f"{problem.source}: no {field!r} in meta (needs SVAMP's variation labels)")
    return tuple(dict.fromkeys(problem.meta[field]))  # a code applied twice removes the problem once


def removal_ablation(problems: Sequence[Problem], correct: Correctness,
                     by: Literal["category", "variation"] = "category") -> pd.DataFrame:
    """SVAMP Tables 13/14: for each variation category (or each of the nine variation types), the change in
    accuracy (percentage points) when every problem made with it is removed, and how many were removed
    (notebook 05). A problem made with several variations is removed with each of them.

    Columns: ``group`` (category name or code), ``label``, ``removed``, ``remaining``, ``accuracy_remaining``,
    ``change`` (= accuracy on the remaining problems − accuracy on all `problems`), ``fisher_p`` (Fisher's exact
    test of the removed problems' accuracy against the rest's: the change is nonzero exactly when they differ).
    """
    if by not in ("category", "variation"):
        raise ValueError(f"by must be 'category' or 'variation', not {by!r}")
    missing = [p.id for p in problems if p.id not in correct]
    if missing:
        raise KeyError(f"no prediction for {len(missing)} problems, e.g. {missing[:3]}")
    full = percent(correct, [p.id for p in problems])
    groups = CATEGORIES if by == "category" else tuple(VARIATION_LABELS)
    labels = {p.id: _labels(p, by) for p in problems}
    unknown = sorted({g for ls in labels.values() for g in ls} - set(groups))
    if unknown:
        raise ValueError(f"unknown variation {by} labels {unknown}")
    rows = []
    for group in groups:
        kept = [p.id for p in problems if group not in labels[p.id]]
        removed = [p.id for p in problems if group in labels[p.id]]
        right_kept, right_removed = (sum(bool(correct[i]) for i in ids) for ids in (kept, removed))
        p = (unpaired_difference(right_kept, len(kept), right_removed, len(removed))["fisher_p"]
             if kept and removed else float("nan"))
        rows.append({"group": group, "label": VARIATION_LABELS.get(group, group), "removed": len(removed),
                     "remaining": len(kept), "accuracy_remaining": percent(correct, kept),
                     "change": percent(correct, kept) - full, "fisher_p": p})
    return pd.DataFrame(rows)


# ------------------------------------------------------------------ Tables 10, 15, 18: breakdowns

def svamp_subset_ids(problems: Sequence[Problem]) -> dict[str, list[str]]:
    """The problem ids of SVAMP's subsets of Tables 10/18: Full Set, One-Op / Two-Op (operators of the gold
    equation) and ADD / SUB / MUL / DIV (SVAMP's `Type` field; the paper does not define these, and a two-operator
    problem carries one type, e.g. 71 "Subtraction" and 19 "Addition" problems use both + and −).

    SVAMP's CSV gives one problem (chal-555) the bare equation ``number0``: problems without an operator
    are in Full Set and their type, and in an extra subset ``No-Op`` (present only when such a problem is
    scored), so the One-Op and Two-Op sizes stay exact. A type outside SVAMP's four or more than two
    operators raises: SVAMP has neither, so such a problem means the wrong data were passed."""
    subsets: dict[str, list[str]] = {name: [] for name in SUBSETS}
    for problem in problems:
        operation = OPERATION_OF_TYPE.get(problem.meta.get("type", ""))
        n_ops = expr.count_operators(expr.parse_prefix(list(problem.prefix))) if problem.prefix else 0
        if operation is None or n_ops > 2:
            raise ValueError(f"{problem.source}: type {problem.meta.get('type')!r} / {n_ops} operators is not a "
                             f"SVAMP subset")
        for name in ("Full Set", ("No-Op", "One-Op", "Two-Op")[n_ops], operation):
            subsets.setdefault(name, []).append(problem.id)
    return subsets


def accuracy_by_numbers(problems: Sequence[Problem], correct: Correctness,
                        counts: Sequence[int] = (2, 3, 4)) -> pd.DataFrame:
    """SVAMP Table 15: accuracy (%) by how many numbers the problem text holds (notebook 05).

    One row per count in `counts` (columns ``numbers, n, accuracy``; NaN accuracy where no problem has
    that count) and a last row ``other`` counting the problems with any other count, which the paper's
    table leaves out — so nothing disappears silently."""
    frame = metrics.accuracy_by(problems, correct, "n_numbers").set_index("group")
    rows = [{"numbers": str(k), "n": int(frame.loc[k, "n"]) if k in frame.index else 0,
             "accuracy": 100 * float(frame.loc[k, "accuracy"]) if k in frame.index else float("nan")}
            for k in counts]
    others = frame.loc[~frame.index.isin(list(counts))]
    rows.append({"numbers": "other", "n": int(others["n"].sum()),
                 "accuracy": 100 * float(others["correct"].sum() / others["n"].sum()) if len(others) else float("nan")})
    return pd.DataFrame(rows)
