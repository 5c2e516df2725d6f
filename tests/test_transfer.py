"""Evaluating a trained run on another test set (mwplib.transfer): slots the text lost, caching."""
from __future__ import annotations

import pytest

from mwplib import paths, runs, transfer
from mwplib.data import load_cv, remove_question
from mwplib.models import build_model, paper_config
from mwplib.problem import Problem
from mwplib.profiles import PROFILES
from mwplib.solver import save_checkpoint

FULL = PROFILES["full"]

TRAIN = [Problem(f"t{i}", f"Tom has {a} apples and buys {b} more.", "How many apples does he have?", "", a + b,
                 (str(a), str(b)), ("+", "N0", "N1")) for i, (a, b) in enumerate([(3, 4), (5, 2), (7, 1)])]


def test_encode_present_keeps_the_slots_the_text_holds() -> None:
    problem = remove_question(Problem("q", "Ann bakes 4 pies.", "How many apples for 3 pies?", "", 12.0,
                                      ("4", "3"), ("*", "N0", "N1")))
    encoded, kept = transfer._encode_present(problem)
    assert kept == (0,) and encoded.words[encoded.num_pos[0]] == "4"
    assert transfer._to_own_slots(("*", "N0", "N0"), (2,)) == ("*", "N2", "N2")
    twice = remove_question(Problem("d", "Ann sold 57 cups in 3 days.", "How many were left of 57 cups?", "",
                                    0.0, ("57", "3", "57"), ("-", "N2", "N0")))
    assert transfer._encode_present(twice)[1] == (0, 1)  # the value occurs once in the body: one slot kept


def test_evaluate_on_scores_removed_questions_and_caches(tmp_path, monkeypatch) -> None:
    monkeypatch.setattr(paths, "RESULTS", tmp_path / "results")
    checkpoint = tmp_path / "run.pt"
    model = build_model("seq2seq", paper_config("seq2seq"), TRAIN, seed=0)
    save_checkpoint(model, "seq2seq", 5, checkpoint)
    monkeypatch.setattr(runs, "checkpoint_path", lambda key: checkpoint)
    record = {"key": "k", "spec": {"model": "seq2seq", "dataset": "toy", "split": "toy", "beam": 2, "seed": 0}}
    test = [remove_question(p) for p in TRAIN[:2]] + [
        remove_question(Problem("x", "Tom has 6 apples.", "How many for 2 days?", "", 12.0, ("6", "2"),
                                ("*", "N0", "N1")))]
    result = transfer.evaluate_on(record, test, FULL, "without_questions")
    assert result["n_test"] == 3 and result["n_missing_slots"] == 1
    assert [p["id"] for p in result["predictions"]] == ["t0", "t1", "x"]
    assert "N1" not in result["predictions"][2]["prefix"]  # the model never saw the question's number
    checkpoint.unlink()  # a second call must come from the cache
    assert transfer.evaluate_on(record, test, FULL, "without_questions") == result


def test_weights_from_another_training_of_the_run_are_refused(tmp_path, monkeypatch) -> None:
    monkeypatch.setattr(paths, "RESULTS", tmp_path / "results")
    checkpoint = tmp_path / "run.pt"
    save_checkpoint(build_model("seq2seq", paper_config("seq2seq"), TRAIN, seed=0), "seq2seq", 5, checkpoint)
    monkeypatch.setattr(runs, "checkpoint_path", lambda key: checkpoint)
    record = {"key": "k", "weights": runs.weights_checksum(checkpoint),
              "spec": {"model": "seq2seq", "dataset": "toy", "split": "toy", "beam": 2, "seed": 0}}
    test = [remove_question(p) for p in TRAIN]
    assert runs.weights_of(record) == checkpoint
    first = transfer.evaluate_on(record, test, FULL, "without_questions")
    assert first["weights"] == record["weights"]
    retrained = {**record, "weights": "0" * 16}  # the record of a training whose weights are not here
    assert runs.weights_of(retrained) is None
    with pytest.raises(transfer.MissingWeights, match="recorded weights"):
        transfer.evaluate_on(retrained, test, FULL, "without_questions")  # nor is the cached evaluation reused


def test_runs_trained_elsewhere_are_left_out_only_when_asked_and_named(tmp_path, monkeypatch, capsys) -> None:
    monkeypatch.setattr(paths, "RESULTS", tmp_path / "results")
    monkeypatch.setattr(runs, "checkpoint_path", lambda key: tmp_path / f"{key}.pt")  # no weights here
    monkeypatch.setattr(transfer, "question_removed_test", lambda record, released=False: TRAIN)
    record = {"key": "k", "spec": {"model": "seq2seq", "dataset": "mawps", "split": "cv_mawps/fold3",
                                   "config": {"embedding": "minilm"}, "beam": 2, "seed": 0}}
    with pytest.raises(transfer.MissingWeights, match="no checkpoint"):
        transfer.evaluate_without_questions([record], FULL)
    assert transfer.evaluate_without_questions([record], FULL, available_only=True) == []
    out = capsys.readouterr().out
    assert "1 of 1 runs have no weights here" in out and "seq2seq/minilm cv_mawps/fold3" in out


def test_question_removed_test_is_the_runs_test_fold_without_its_questions() -> None:
    record = {"spec": {"dataset": "asdiv-a", "fold": 2}}
    fold = load_cv("asdiv-a")[2].test
    ours = transfer.question_removed_test(record)
    assert [p.id for p in ours] == [p.id for p in fold]
    assert all(p.question == "" and p.text != q.text for p, q in zip(ours, fold))  # each lost its question
    released = transfer.question_removed_test(record, released=True)
    assert [p.id for p in released] == [p.id for p in fold] and all(p.question == "" for p in released)
    svamp = transfer.question_removed_test({"spec": {"dataset": "mawps-asdiv-a_svamp", "fold": 0}})
    assert len(svamp) == 1000
    with pytest.raises(ValueError, match="no question-removed test set for dataset 'cv_svamp_augmented'"):
        transfer.question_removed_test({"spec": {"dataset": "cv_svamp_augmented", "fold": 0}})
