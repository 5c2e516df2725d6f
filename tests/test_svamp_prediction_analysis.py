"""Arithmetic of SVAMP Tables 4, 10, 13, 14 and 15 on hand-made prediction sets (mwplib.svamp.prediction_analysis)."""
from __future__ import annotations

import math

import pytest

from mwplib import metrics
from mwplib.svamp import prediction_analysis
from mwplib.problem import Problem


def svamp_problem(pid: str, codes: tuple[str, ...], *, prefix: tuple[str, ...] = ("+", "N0", "N1"),
                  numbers: tuple[str, ...] = ("1", "2"), type_: str = "Addition") -> Problem:
    categories = tuple(sorted({prediction_analysis.CATEGORIES[int(c[0]) - 1] for c in codes if c[0] in "123"}))
    return Problem(pid, "body", "question", "", 3.0, numbers, prefix,
                   {"variation_codes": codes, "variation_categories": categories, "type": type_})


def test_correctness_pools_folds_and_rejects_duplicates() -> None:
    fold0 = {"key": "a", "predictions": [{"id": "p1", "correct": True}, {"id": "p2", "correct": False}]}
    fold1 = {"key": "b", "predictions": [{"id": "p3", "correct": True}]}
    assert metrics.correctness([fold0, fold1]) == {"p1": True, "p2": False, "p3": True}
    with pytest.raises(ValueError, match="p1 predicted twice"):
        metrics.correctness([fold0, fold0])


def test_easy_hard_partition_counts_and_accuracies() -> None:
    # without question: p1, p2, p3 correct -> Easy; p4..p7 -> Hard
    without = {"p1": True, "p2": True, "p3": True, "p4": False, "p5": False, "p6": False, "p7": False}
    with_q = {"p1": True, "p2": True, "p3": False, "p4": True, "p5": False, "p6": False, "p7": False}
    cells = prediction_analysis.easy_hard_partition(with_q, without)
    assert (cells["easy_n"], cells["hard_n"], cells["easy_correct"], cells["hard_correct"]) == (3, 4, 2, 1)
    assert cells["easy_accuracy"] == pytest.approx(200 / 3)
    assert cells["hard_accuracy"] == pytest.approx(25.0)
    assert cells["with_question"] == pytest.approx(300 / 7)
    assert cells["without_question"] == pytest.approx(300 / 7)


def test_easy_hard_partition_empty_part_is_nan_and_mismatch_raises() -> None:
    cells = prediction_analysis.easy_hard_partition({"a": True}, {"a": False})
    assert cells["easy_n"] == 0 and math.isnan(cells["easy_accuracy"]) and cells["hard_accuracy"] == 100.0
    with pytest.raises(ValueError, match="different problems"):
        prediction_analysis.easy_hard_partition({"a": True}, {"b": True})


def test_removal_ablation_by_category_and_variation() -> None:
    problems = [svamp_problem("a", ("11",)), svamp_problem("b", ("21", "11")), svamp_problem("c", ("23",)),
                svamp_problem("d", ("33", "23")), svamp_problem("e", ("11", "11"))]
    correct = {"a": False, "b": False, "c": True, "d": True, "e": True}  # full accuracy 60 %
    by_cat = prediction_analysis.removal_ablation(problems, correct, by="category").set_index("group")
    # Question Sensitivity removes a, b, e -> c, d remain: 100 %
    assert by_cat.loc["Question Sensitivity", "removed"] == 3
    assert by_cat.loc["Question Sensitivity", "change"] == pytest.approx(40.0)
    # Reasoning Ability removes b, c, d -> a, e remain: 50 %
    assert by_cat.loc["Reasoning Ability", "removed"] == 3
    assert by_cat.loc["Reasoning Ability", "change"] == pytest.approx(-10.0)
    assert by_cat.loc["Structural Invariance", "removed"] == 1
    assert by_cat.loc["Structural Invariance", "change"] == pytest.approx(50 - 60)
    by_var = prediction_analysis.removal_ablation(problems, correct, by="variation").set_index("group")
    assert list(by_var.index) == list(prediction_analysis.VARIATION_LABELS)
    assert by_var.loc["11", "removed"] == 3  # "e" carries 11 twice but is removed once
    assert by_var.loc["23", "removed"] == 2 and by_var.loc["23", "change"] == pytest.approx(100 / 3 - 60)
    assert by_var.loc["12", "removed"] == 0 and by_var.loc["12", "change"] == pytest.approx(0.0)
    assert by_var.loc["23", "label"] == "Invert Operation"


def test_removal_ablation_rejects_missing_predictions_and_labels() -> None:
    with pytest.raises(KeyError, match="no prediction"):
        prediction_analysis.removal_ablation([svamp_problem("a", ("11",))], {}, by="variation")
    bare = Problem("x", "b", "q", "", 1.0, ("1",), ("N0",))
    with pytest.raises(KeyError, match="variation_codes"):
        prediction_analysis.removal_ablation([bare], {"x": True}, by="variation")
    with pytest.raises(ValueError, match="unknown variation"):
        prediction_analysis.removal_ablation([svamp_problem("a", ("44",))], {"a": True}, by="variation")


def test_svamp_subsets() -> None:
    problems = [svamp_problem("a", ("11",)),
                svamp_problem("b", ("11",), prefix=("-", "N0", "N1"), type_="Subtraction"),
                svamp_problem("c", ("11",), prefix=("*", "+", "N0", "N1", "N2"), numbers=("1", "2", "3"),
                              type_="Multiplication"),
                svamp_problem("d", ("11",), prefix=("/", "N0", "N1"), type_="Common-Divison")]
    subsets = prediction_analysis.svamp_subset_ids(problems)
    assert subsets == {"Full Set": ["a", "b", "c", "d"], "One-Op": ["a", "b", "d"], "Two-Op": ["c"], "ADD": ["a"],
                       "SUB": ["b"], "MUL": ["c"], "DIV": ["d"]}
    with pytest.raises(ValueError, match="not a SVAMP subset"):
        prediction_analysis.svamp_subset_ids([svamp_problem("e", ("11",), type_="Difference")])
    with pytest.raises(ValueError, match="3 operators"):
        prediction_analysis.svamp_subset_ids([svamp_problem("f", ("11",), prefix=("+", "+", "+", "N0", "N1", "N0", "N1"))])


def test_accuracy_by_numbers_lists_other_counts() -> None:
    problems = [svamp_problem("a", ("11",)), svamp_problem("b", ("11",)),
                svamp_problem("c", ("11",), numbers=("1", "2", "3")),
                svamp_problem("d", ("11",), numbers=("1", "2", "3", "4", "5"))]
    frame = prediction_analysis.accuracy_by_numbers(problems, {"a": True, "b": False, "c": False, "d": True}).set_index("numbers")
    assert frame.loc["2", "n"] == 2 and frame.loc["2", "accuracy"] == 50.0
    assert frame.loc["3", "n"] == 1 and frame.loc["3", "accuracy"] == 0.0
    assert frame.loc["4", "n"] == 0 and math.isnan(frame.loc["4", "accuracy"])
    assert frame.loc["other", "n"] == 1 and frame.loc["other", "accuracy"] == 100.0
