"""How predictions are scored: execution (answer) accuracy, equation/template match, breakdowns, and
SVAMP's majority-template baseline.

Used by every notebook that evaluates a solver (01_baselines onwards). Accuracies are *pooled*: the number
of correctly answered test problems divided by the number of test problems, over all problems passed in
(for cross-validation, pass the union of the folds' test problems — not a mean of per-fold accuracies).
"""
from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from itertools import count
from typing import Any

import pandas as pd

from . import expr
from .problem import Correctness, Problem, Split

Prefix = Sequence[str]
GroupKey = Callable[[Problem], Hashable] | str

#: Built-in grouping keys of :func:`accuracy_by`; any other string is read from ``Problem.meta``.
BUILTIN_KEYS = ("n_operators", "n_numbers", "variation_code", "type")


def answer_correct(pred_prefix: Prefix, numbers: Sequence[str], gold_answer: float | None) -> bool:
    """Execution accuracy for one problem: does the predicted prefix, evaluated with slot ``N{i}`` bound to
    ``numbers[i]``, give the gold answer (within :data:`mwplib.expr.ANSWER_TOLERANCE`)?

    A malformed, unevaluable (division by zero, unknown slot) or empty prediction is simply wrong; it
    never raises, because models do emit such sequences. A missing gold answer is never matched.
    """
    bindings = {f"N{i}": number for i, number in enumerate(numbers)}
    try:
        value = expr.evaluate(expr.parse_prefix(list(pred_prefix)), bindings)
    except expr.ExpressionError:
        return False
    return expr.answers_match(value, gold_answer)


def answer_correctness(problems: Iterable[Problem], predictions: Mapping[str, Prefix]) -> dict[str, bool]:
    """Per problem id, whether its prediction is answer-correct (:func:`answer_correct`).

    Every problem must have a prediction (an empty one counts as wrong): a missing id is a bug upstream
    and raises, naming the ids, instead of being silently scored or skipped.
    """
    problems = list(problems)
    missing = [p.id for p in problems if p.id not in predictions]
    if missing:
        raise KeyError(f"no prediction for {len(missing)} of {len(problems)} problems, e.g. {missing[:5]}")
    return {p.id: answer_correct(predictions[p.id], p.numbers, p.answer) for p in problems}


def answer_accuracy(problems: Iterable[Problem], predictions: Mapping[str, Prefix]) -> float:
    """Pooled execution accuracy (fraction of `problems` answered correctly), as every paper reports."""
    correct = answer_correctness(problems, predictions)
    if not correct:
        raise ValueError("answer accuracy of an empty problem set")
    return sum(correct.values()) / len(correct)


def equation_exact_match(pred_prefix: Prefix, gold_prefix: Prefix) -> bool:
    """Token-for-token equality of predicted and gold prefix (stricter than execution accuracy:
    ``+ N0 N1`` and ``+ N1 N0`` differ)."""
    return tuple(pred_prefix) == tuple(gold_prefix)


def template_match(pred_prefix: Prefix, gold_prefix: Prefix) -> bool:
    """Whether prediction and gold share SVAMP's equation template (all numbers masked); malformed → False."""
    try:
        return prefix_template(pred_prefix) == prefix_template(gold_prefix)
    except expr.ExpressionError:
        return False


def prefix_template(prefix: Prefix) -> tuple[str, ...]:
    """SVAMP's equation template of a prefix equation: every number and slot masked by the meta symbol ``n``
    (§5.2); raises :class:`mwplib.expr.ExpressionError` on a malformed prefix."""
    return tuple(expr.to_prefix(expr.template(expr.parse_prefix(list(prefix)))))


def _group_values(problem: Problem, key: GroupKey) -> list[Hashable]:
    """The group(s) a problem belongs to; a SVAMP problem with several variation codes is in each."""
    if callable(key):
        return [key(problem)]
    if key == "n_operators":
        return [expr.count_operators(expr.parse_prefix(list(problem.prefix)))] if problem.prefix else [None]
    if key == "n_numbers":
        return [len(problem.numbers)]
    name = "variation_codes" if key == "variation_code" else key
    if name not in problem.meta:
        raise KeyError(f"{problem.source}: no meta field {name!r} to group by (meta has {sorted(problem.meta)})")
    value = problem.meta[name]
    if key == "variation_code":  # SVAMP repeats a code in a few problems ("11, 23, 11"): count it once
        return list(dict.fromkeys(value)) if value else [None]
    return [value]


def accuracy_by(problems: Iterable[Problem], correct: Mapping[str, bool], key: GroupKey) -> pd.DataFrame:
    """Accuracy per group: columns ``group, n, correct, accuracy`` sorted by group.

    `key` is a function of the problem, one of :data:`BUILTIN_KEYS` ("variation_code" counts a problem in
    every code it carries, so the groups' n can sum to more than the problems), or a ``Problem.meta`` name.
    Each group's accuracy is pooled over its problems. Problems without an entry in `correct` raise.
    """
    rows = []
    for problem in problems:
        if problem.id not in correct:
            raise KeyError(f"{problem.source}: no correctness entry for problem {problem.id}")
        rows.extend({"group": g, "correct": bool(correct[problem.id])} for g in _group_values(problem, key))
    if not rows:
        raise ValueError("accuracy_by over an empty problem set")
    frame = pd.DataFrame(rows).groupby("group", dropna=False)["correct"].agg(n="size", correct="sum")
    frame["accuracy"] = frame["correct"] / frame["n"]
    frame = frame.reset_index()
    try:
        frame = frame.sort_values("group")
    except TypeError:  # mixed group types (e.g. None beside codes): order by their text
        frame = frame.sort_values("group", key=lambda s: s.astype(str))
    return frame.reset_index(drop=True)


def correctness(records: Iterable[Mapping[str, Any]]) -> dict[str, bool]:
    """Problem id → correct, pooled over run records of `mwplib.runs` (e.g. the five folds of one model).

    A problem id predicted twice (the same problem in two folds' test sets) raises: pooling would count it
    twice."""
    out: dict[str, bool] = {}
    for record in records:
        for prediction in record["predictions"]:
            if prediction["id"] in out:
                raise ValueError(f"problem {prediction['id']} predicted twice (run {record.get('key')})")
            out[prediction["id"]] = bool(prediction["correct"])
    return out


def percent(correct: Correctness, ids: Iterable[str] | None = None) -> float:
    """Pooled accuracy in % over `ids` (default: all of `correct`); NaN for an empty set."""
    ids = list(correct) if ids is None else list(ids)
    return 100 * sum(bool(correct[i]) for i in ids) / len(ids) if ids else float("nan")


def majority_template(train: Iterable[Problem]) -> tuple[str, ...]:
    """The most frequent SVAMP equation template (meta symbol ``n``) among training problems with a gold
    prefix; ties go to the template seen first in training order."""
    counts = Counter(prefix_template(p.prefix) for p in train if p.prefix)
    if not counts:
        raise ValueError("no training problem has a gold prefix; the majority template is undefined")
    return counts.most_common(1)[0][0]


def fill_template(template_prefix: Prefix, meta: str = "n") -> tuple[str, ...]:
    """Fill a template's meta symbols left to right (prefix order) with slots ``N0, N1, …``: the test
    problem's numbers in their order of appearance in the text."""
    slots = count()
    return tuple(f"N{next(slots)}" if token == meta else token for token in template_prefix)


def majority_template_predictions(train: Iterable[Problem], test: Iterable[Problem]) -> dict[str, tuple[str, ...]]:
    """SVAMP's Majority Template Baseline as predictions: every test problem gets the training set's most
    frequent template, filled with its own numbers in text order (Table 2 footnote: "the accuracy when the
    model always predicts the most frequent Equation Template"; §5.2 for templates). Filling in text order
    is our reading — the paper does not say how numbers enter the template. A test problem with fewer
    numbers than the template's slots is answered wrongly."""
    filled = fill_template(majority_template(train))
    return {p.id: filled for p in test}


def majority_template_baseline(train: Iterable[Problem], test: Iterable[Problem]) -> float:
    """Pooled answer accuracy of :func:`majority_template_predictions` on `test` (SVAMP Tables 2 and 12)."""
    test = list(test)
    return answer_accuracy(test, majority_template_predictions(train, test))


def majority_template_baseline_splits(splits: Iterable[Split]) -> float:
    """The baseline over several splits (cross-validation folds): each fold's test problems get that fold's
    training majority template, and accuracy is pooled over all test problems (notebook 00_datasets)."""
    test: list[Problem] = []
    predictions: dict[str, tuple[str, ...]] = {}
    for split in splits:
        test.extend(split.test)
        predictions.update(majority_template_predictions(split.train, split.test))
    return answer_accuracy(test, predictions)


__all__ = ["correctness", "percent", "answer_correct", "answer_correctness", "answer_accuracy", "equation_exact_match",
           "template_match", "prefix_template", "accuracy_by", "majority_template", "fill_template",
           "majority_template_predictions", "majority_template_baseline", "majority_template_baseline_splits",
           "BUILTIN_KEYS"]
