"""Evaluate an already trained run on another test set, without retraining (notebooks 02_question_removal
and 05_svamp: "train on the normal folds, test on the question-removed folds", SVAMP Tables 3, 11, 17).

`mwplib.runs` trains and tests in one go; this module loads a finished run's checkpoint and predicts on a
second test set (e.g. the same fold with its questions removed). The result is cached as JSON beside the
run, keyed by the run and a checksum of the new test problems, so a rerun takes seconds.

A test problem may list a number that its text no longer holds (the removed question held it): the model
then sees only the numbers of the text — it cannot copy the missing one — and its prediction is mapped back
onto the problem's own slots, so such a problem counts as unsolvable rather than being dropped. How many
problems lost slots this way is stored with the evaluation (``n_missing_slots``).
"""
from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from typing import Any

import pandas as pd

from . import expr, paths
from .data import load_cv, load_mawps_asdiv_svamp, question_removal_agreement, remove_question
from .models.base import Prediction
from .numbers import find_numbers, parse_number
from .problem import Problem
from .records import read_record, record_path, write_record
from .profiles import Profile
from .repro import run_manifest
from .runs import checkpoint_path, data_checksum, weights_of
from .solver import load_checkpoint
from .text import EncodedText, encode_text
from .train import accuracy, predict, score


def _encode_present(problem: Problem) -> tuple[EncodedText, tuple[int, ...]]:
    """The problem's encoding and which of its slots the text holds (all of them, unless a number is gone).

    Slots are matched to the text's quantities in order, as `encode_text` does; a slot whose value does
    not occur after the previous match is the one the text lost."""
    try:
        return encode_text(problem.text, problem.numbers, problem.source), tuple(range(len(problem.numbers)))
    except ValueError:
        values = [quantity.value for quantity in find_numbers(problem.text)]
        kept, start = [], 0
        for k, number in enumerate(problem.numbers):
            value = parse_number(number)
            if value in values[start:]:
                start = values.index(value, start) + 1
                kept.append(k)
        # raises, naming the problem, if even the numbers the text holds cannot be placed
        return encode_text(problem.text, tuple(problem.numbers[k] for k in kept), problem.source), tuple(kept)


def _to_own_slots(prefix: Sequence[str], kept: Sequence[int]) -> tuple[str, ...]:
    return tuple(f"N{kept[expr.slot_index(t)]}" if expr.is_slot(t) else t for t in prefix)


class MissingWeights(FileNotFoundError):
    """A run's weights are not on this machine (it trained elsewhere, e.g. on a GPU box) and the evaluation
    asked for is not recorded."""


def evaluate_on(record: dict[str, Any], test: Sequence[Problem], profile: Profile, name: str) -> dict[str, Any]:
    """Predictions of the trained run `record` (from :func:`mwplib.runs.run`) on `test`, named `name`
    (e.g. "without_questions"); cached. Returns a dict with ``predictions`` in the format of `mwplib.train.score`,
    ``accuracy`` (fraction), ``n_test``, ``n_missing_slots`` and ``n_empty_text`` (unsolved, not run)."""
    test = list(test)[:profile.test_limit]
    checksum = data_checksum([], test)
    spec = record["spec"]
    folder = paths.runs_dir(profile.name) / spec["model"] / spec["dataset"]
    path = record_path(folder, f"{record['key']}-on-{name}-{checksum}")
    if path.exists():
        cached = read_record(path)
        if cached.get("weights") == record.get("weights"):  # evaluated with the recorded run's weights
            return cached
    checkpoint = weights_of(record)
    if checkpoint is None:
        raise MissingWeights(f"run {record['key']} ({spec['model']} on {spec['split']}) has no checkpoint of its "
                             f"recorded weights at {checkpoint_path(record['key'])}: they stayed on the machine that "
                             "trained it, and weights retrained here are another training, whose evaluation would "
                             "not be this run's")
    model, max_len = load_checkpoint(checkpoint)
    encoded = [_encode_present(p) for p in test]
    # a text left with no words (the question was all of it) gives the model nothing to read: unsolved
    readable = [i for i, (enc, _) in enumerate(encoded) if enc.words]
    examples = [model.prepare(dataclasses.replace(test[i], numbers=tuple(test[i].numbers[k] for k in encoded[i][1])),
                              encoded[i][0], target=False) for i in readable]
    predictions = [Prediction(p.id, (), (), float("-inf")) for p in test]
    for i, pred in zip(readable, predict(model, examples, beam=spec["beam"], max_len=max_len)):
        predictions[i] = dataclasses.replace(pred, prefix=_to_own_slots(pred.prefix, encoded[i][1]))
    records = score(test, predictions)
    result = {"run": record["key"], "weights": record.get("weights"), "test": name, "data_checksum": checksum,
              "n_test": len(test),
              "n_empty_text": len(test) - len(readable),
              "n_missing_slots": sum(len(kept) < len(p.numbers) for p, (_, kept) in zip(test, encoded)),
              "accuracy": accuracy(records), "predictions": records,
              "manifest": run_manifest(profile, spec["seed"])}
    write_record(path, result)
    return result


#: The datasets whose test problems have a question-removed version (ours and SVAMP's released files).
QUESTION_REMOVED = ("mawps", "asdiv-a", "mawps-asdiv-a_svamp")


def question_removed_test(record: dict[str, Any], released: bool = False) -> list[Problem]:
    """The test problems of `record`'s split with their questions removed: by
    :func:`mwplib.data.remove_question` (SVAMP §4.1), or, with `released=True`, as in SVAMP's released
    `*_without_questions` files (their agreement: :func:`removal_agreement`)."""
    spec = record["spec"]
    dataset, fold = spec["dataset"], spec["fold"]
    if dataset in ("mawps", "asdiv-a"):
        test = load_cv(dataset, without_questions=released)[fold].test  # type: ignore[arg-type]
    elif dataset == "mawps-asdiv-a_svamp":
        test = load_mawps_asdiv_svamp(without_questions=released).test
    else:
        raise ValueError(f"no question-removed test set for dataset {dataset!r}")
    return list(test) if released else [remove_question(p) for p in test]


def evaluate_without_questions(records: Sequence[dict[str, Any]], profile: Profile, released: bool = False, *,
                               available_only: bool = False) -> list[dict[str, Any]]:
    """:func:`evaluate_on` every run of `records` on its question-removed test set (notebooks 02 and 05).
    With `available_only`, a run whose weights are elsewhere and whose evaluation is not recorded is left out
    and named in a printed line; the tables then say how many folds they pool."""
    name = "released_without_questions" if released else "without_questions"
    if not available_only:
        return [evaluate_on(record, question_removed_test(record, released), profile, name) for record in records]
    return [evaluation for _, evaluation in
            evaluate_available(records, lambda record: question_removed_test(record, released), profile, name)]


def evaluate_available(records: Sequence[dict[str, Any]], test_of: Callable[[dict[str, Any]], Sequence[Problem]],
                       profile: Profile, name: str) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """(run, :func:`evaluate_on` it on ``test_of(run)``) for every run of `records` whose weights are here or whose
    evaluation is recorded; the others are left out and named in a printed line."""
    pairs, elsewhere = [], []
    for record in records:
        try:
            pairs.append((record, evaluate_on(record, test_of(record), profile, name)))
        except MissingWeights:
            spec = record["spec"]
            elsewhere.append(f"{spec['model']}/{spec['config']['embedding']} {spec['split']}")
    if elsewhere:
        print(f"{len(elsewhere)} of {len(records)} runs have no weights here and no recorded {name} evaluation, "
              f"left out: {', '.join(elsewhere)}")
    return pairs


def removal_agreement(datasets: Sequence[str]) -> pd.DataFrame:
    """How closely our question removal reproduces SVAMP's released body-only test files, per dataset
    (:func:`mwplib.data.question_removal_agreement`; notebooks 02 and 05)."""
    rows = []
    for dataset in datasets:
        result = question_removal_agreement(dataset)  # type: ignore[arg-type]
        rows.append({"dataset": dataset, "test problems": result["rows"], "same body": result["agree"],
                     "agreement (%)": 100 * result["rate"], "need a question number": result["question_slots"]})
    return pd.DataFrame(rows)
