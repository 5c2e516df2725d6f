"""The notebooks' lessons. One problem walked through a trained solver before the tables: what the model reads (its
words, every number masked to a slot), what it must write (the gold expression over those slots), what a recorded
run predicted, and why that counts as right or wrong. A table of accuracies hides all four; a student sees them
once here, on a problem of the test fold, read from the run's record (no weights needed). And the check of an
exercise (:func:`check`): the reader predicts, changes something, and runs the check."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable, Mapping, Sequence

import pandas as pd

from . import expr
from .problem import Problem
from .text import encode_text


@dataclass(frozen=True)
class Walkthrough:
    """The steps of one problem through one run, each a short string (see `table`)."""

    text: str
    masked: str  # what the scratch model reads: numbers replaced by their slots N0, N1, ...
    slots: str  # N0 = 5, N1 = 3, ...
    gold: str  # prefix over slots, and the same in infix
    predicted: str
    answer: str  # predicted value against the gold answer
    why: str


def _infix(prefix: Sequence[str]) -> str:
    try:
        return expr.to_infix(expr.parse_prefix(list(prefix)))
    except expr.ExpressionError:
        return "(not a well-formed expression)"


def _number(value: float | None) -> str:
    return "none" if value is None else f"{value:g}"


def _why(problem: Problem, predicted: Sequence[str], correct: bool) -> str:
    gold = list(problem.prefix)
    if list(predicted) == gold:
        return "right: the predicted expression is the gold one"
    if correct:
        return "right: another expression with the gold answer's value (answer accuracy does not check the equation)"
    try:
        same_shape = expr.template(expr.parse_prefix(list(predicted))) == expr.template(expr.parse_prefix(gold))
    except expr.ExpressionError:
        return "wrong: the prediction is not a well-formed expression"
    if same_shape:
        return "wrong: the right operators in the right shape, over the wrong numbers"
    return "wrong: another operation than the gold one"


def _readable(problem: Problem) -> bool:
    """Every number of the problem is in its text (a question-removed body may lack one the gold needs)."""
    try:
        encode_text(problem.text, problem.numbers, problem.source)
    except ValueError:
        return False
    return True


def walk(problem: Problem, prediction: Mapping[str, Any]) -> Walkthrough:
    """The walkthrough of `problem` through one recorded prediction (a record's ``predictions`` entry)."""
    encoded = encode_text(problem.text, problem.numbers, problem.source)
    slot_of = {position: k for k, position in enumerate(encoded.num_pos)}
    masked = " ".join(f"N{slot_of[i]}" if i in slot_of else word for i, word in enumerate(encoded.words))
    value = prediction.get("answer")
    return Walkthrough(
        text=problem.text, masked=masked,
        slots=", ".join(f"N{k} = {number}" for k, number in enumerate(problem.numbers)),
        gold=f"{' '.join(problem.prefix)}   (x = {_infix(problem.prefix)})",
        predicted=f"{' '.join(prediction['prefix'])}   (x = {_infix(prediction['prefix'])})",
        answer=f"{_number(value)} (gold {_number(problem.answer)})",
        why=_why(problem, prediction["prefix"], bool(prediction["correct"])))


def table(walkthrough: Walkthrough) -> pd.DataFrame:
    """The walkthrough as a two-column frame, one step per row, for a notebook to display."""
    return pd.DataFrame({"step": ["text", "what the model reads", "numbers", "gold expression", "predicted",
                                  "answer", "why"],
                         "value": [walkthrough.text, walkthrough.masked, walkthrough.slots, walkthrough.gold,
                                   walkthrough.predicted, walkthrough.answer, walkthrough.why]})


def right_and_wrong(problems: Sequence[Problem], record: Mapping[str, Any]) -> pd.DataFrame:
    """The first right and the first wrong prediction of the run of `record` on `problems` (test order), step by
    step side by side: what a notebook shows before its tables. A run that got every problem right (or none) shows
    the one column it has."""
    columns = {}
    for name, correct in (("right", True), ("wrong", False)):
        try:
            columns[name] = table(walk(*first(problems, record, correct=correct)))
        except ValueError:  # no such prediction: a tiny set, or a run of one epoch
            continue
    if not columns:
        raise ValueError(f"run {record.get('key')} has no prediction on a problem whose text holds its numbers")
    steps = next(iter(columns.values()))["step"]
    return pd.DataFrame({"step": steps, **{name: frame["value"] for name, frame in columns.items()}})


def first(problems: Iterable[Problem], record: Mapping[str, Any], correct: bool) -> tuple[Problem, dict[str, Any]]:
    """The first of `problems` (test order) that the run of `record` got right (`correct=True`) or wrong, with its
    prediction, skipping problems whose text lacks a number; ValueError when there is none."""
    predictions = {p["id"]: p for p in record["predictions"]}
    for problem in problems:
        prediction = predictions.get(problem.id)
        if prediction is not None and bool(prediction["correct"]) == correct and problem.prefix and _readable(problem):
            return problem, prediction
    raise ValueError(f"no {'right' if correct else 'wrong'} prediction among the run's test problems")


def check(answer: Any, expected: Any, *, tolerance: float = 0.0, hint: str = "") -> str:
    """An exercise's check, as the line a notebook prints: whether the reader's `answer` (None: not answered yet) is
    `expected` (a number within `tolerance`, else equal). A wrong answer gets `hint`, never `expected`: the
    exercise's folded solution gives that."""
    if answer is None:
        return "not answered yet: set `answer` above and run this cell again"
    numbers = all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in (answer, expected))
    right = abs(answer - expected) <= tolerance if numbers else (type(answer) is type(expected)
                                                                   and answer == expected)
    return "right" if right else "not yet" + (f": {hint}" if hint else "")
