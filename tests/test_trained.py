"""Getting a solver by name, batched solving, and `python -m mwplib solve` on hostile input."""
from __future__ import annotations

import json

import pytest

from mwplib import paths, runs, trained
from mwplib.__main__ import main
from mwplib.profiles import PROFILES
from mwplib.run_spec import RunSpec
from mwplib.solver import Solver, load_checkpoint
from mwplib.transfer import MissingWeights
from test_models import fast_config, one_thread, toy_problems  # noqa: F401 (autouse fixture)


@pytest.fixture
def isolated(tmp_path, monkeypatch):
    monkeypatch.setattr(paths, "RESULTS", tmp_path / "results")
    monkeypatch.setattr(paths, "BUILD", tmp_path / "build")
    return tmp_path


def test_solve_many_is_solve_batched(isolated) -> None:
    problems = toy_problems(12)
    spec = RunSpec("gts", fast_config("gts"), "toy", "toy", 0, 0, epochs=1, beam=2)
    record = runs.run(spec, problems, problems[:4], PROFILES["full"], progress=False)
    solver = Solver(*load_checkpoint(runs.checkpoint_path(record["key"])), beam=2)
    texts = [p.text for p in problems] + ["How many apples are there?"]
    for batched, alone in zip(solver.solve_many(texts), [solver.solve(t) for t in texts], strict=True):
        assert (batched.prefix, batched.answer, batched.warnings) == (alone.prefix, alone.answer, alone.warnings)
        assert batched.logprob == pytest.approx(alone.logprob, abs=1e-4)  # padding changes float sums only
    with pytest.raises(TypeError, match="text must be a str"):  # checked before anything is decoded
        solver.solve_many(["Tom has 3 apples.", None])


def test_solver_for_trains_once_then_loads_and_from_run_needs_weights(isolated, capsys) -> None:
    solver = trained.solver_for("seq2seq", "scratch", "asdiv-a", PROFILES["smoke"], progress=False)
    assert "training seq2seq S on asdiv-a fold 0 (smoke, 1 epochs)" in capsys.readouterr().err
    split = runs.dataset_splits("asdiv-a")[0]
    smoke = PROFILES["smoke"]
    record = runs.recorded(runs.spec_for("seq2seq", "scratch", "asdiv-a", split.name, 0, smoke), split.train,
                           split.test, smoke)
    assert solver.beam == record["spec"]["beam"] == 1  # decodes as its record was scored
    again = trained.solver_for("seq2seq", "scratch", "asdiv-a", PROFILES["smoke"])
    assert capsys.readouterr().err == "" and again.solve("Tom has 3 apples and 4 pears. How many?").answer is not None
    runs.checkpoint_path(record["key"]).unlink()
    with pytest.raises(MissingWeights, match="solver_for"):
        trained.from_run(record)


def test_the_command_line_answers_every_line_or_says_why_not(isolated, tmp_path, capsys) -> None:
    lines = [json.dumps("Tom has 3 apples and buys 4 more. How many apples does he have?").encode(),
             json.dumps({"id": "p2", "text": "A shop sold 12 pens on Monday and 8 on Tuesday. How many pens?"}).encode(),
             json.dumps({"id": "p3", "text": "How many apples are there?"}).encode(),  # no numbers: a warning
             json.dumps({"id": "p4", "text": "He had " + "9" * 400 + " coins and lost 1. How many?"}).encode(),
             b'""', b'"   "', b"null", b"5", b"[1, 2]", json.dumps({"id": "p10"}).encode(),
             b"{not json", b"\xff\xfe broken bytes"]
    problems = tmp_path / "problems.jsonl"
    problems.write_bytes(b"\n".join(lines) + b"\n")
    out = tmp_path / "answers.jsonl"
    assert main(["solve", "--file", str(problems), "--out", str(out), "--profile", "smoke"]) == 1  # a line failed
    answers = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(answers) == len(lines)
    assert all("answer" in a for a in answers[:4]) and answers[1]["id"] == "p2"
    assert any("no numbers" in w for w in answers[2]["warnings"])
    assert [a["error"].split(":")[0] for a in answers[4:]] == ["ValueError"] * 2 + ["TypeError"] * 3 + [
        "ValueError"] * 3
    assert answers[9]["id"] == "p10" and "no 'text' field" in answers[9]["error"]
    assert answers[10]["id"].endswith("problems.jsonl:11") and "not JSON" in answers[10]["error"]
    assert "UTF-8" in answers[11]["error"]
    assert main(["solve", "Sam has 5 cats and 2 dogs. How many pets?", "--profile", "smoke"]) == 0
    printed = capsys.readouterr()
    assert "answer" in json.loads(printed.out.splitlines()[-1])
    assert "solver: gts S mawps-asdiv-a_svamp fold 0 (smoke)" in printed.err and "on SVAMP" in printed.err
    assert "weights: " in printed.err


def test_the_command_line_answers_hostile_lines_one_by_one(isolated, tmp_path, capsys) -> None:
    """Issue 48: each of these ended the command in a traceback, losing the other lines' answers."""
    hostile = [json.dumps({"id": "big", "text": "He had " + "9" * 4400 + " coins. How many?"}),
               json.dumps({"id": "\ud800", "text": "Tom has 3 apples\ud800 and 4 more. How many?"}),
               "[" * 100000, json.dumps("x" * 6000), json.dumps("It was −5 degrees and rose by 12. How warm now?")]
    problems = tmp_path / "hostile.jsonl"
    problems.write_text("\n".join(hostile) + "\n")
    assert main(["solve", "--file", str(problems), "--profile", "smoke"]) == 1
    answers = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert len(answers) == len(hostile)
    assert "cannot be read" in answers[0]["error"] and "answer" in answers[1] and "not JSON" in answers[2]["error"]
    assert "at most 5000" in answers[3]["error"] and answers[4]["text"].startswith("It was −5")
    assert main(["solve", "   ", "--profile", "smoke"]) == 1


@pytest.mark.parametrize("argv, said", [
    (["solve", "--file", "no/such.jsonl"], "no such file"), (["solve", "--file", "."], "not a file"),
    (["solve", "x", "--out", "no/such/folder/a.jsonl"], "no folder"), (["solve", "x", "--model", "gpt"], "--model"),
    (["solve", "x", "--profile", "fast"], "--profile"), (["solve", "x", "--embedding", "roberta"], "--embedding"),
    (["solve"], "give one problem text or --file")])
def test_a_bad_argument_fails_before_anything_is_trained(isolated, argv, said, capsys, monkeypatch) -> None:
    monkeypatch.setattr(trained, "solver_for", lambda *a, **k: pytest.fail("trained before checking its arguments"))
    with pytest.raises(SystemExit) as exited:
        main(argv)
    assert exited.value.code == 2 and said in capsys.readouterr().err


def test_the_command_line_names_what_the_library_has() -> None:
    """`python -m mwplib` checks names without importing torch, from lists kept beside the library's own."""
    from mwplib.models import MODELS
    from mwplib.profiles import DEFAULT_SOLVER, MODEL_NAMES

    assert MODEL_NAMES == tuple(MODELS) and DEFAULT_SOLVER["dataset"] == runs.SVAMP_DATASET
    assert trained.DEFAULT is DEFAULT_SOLVER


def test_the_default_solver_trains_its_own_epochs_and_no_other_run_does(isolated) -> None:
    """Issue 48: the default is GTS S at 8 epochs (its `quick` run chose epoch 8 of 10 on validation); the same
    model asked for under another profile, or another model, trains its profile's epochs."""
    quick = PROFILES["quick"]
    _, spec, _ = trained._run_of("gts", "scratch", runs.SVAMP_DATASET, quick, 0, 0)
    assert (spec.model, spec.epochs) == ("gts", trained.DEFAULT["epochs"]) == ("gts", 8)
    _, other, _ = trained._run_of("seq2seq", "scratch", runs.SVAMP_DATASET, quick, 0, 0)  # the plan's
    assert other.epochs == 10
    _, smoke, _ = trained._run_of("gts", "scratch", runs.SVAMP_DATASET, PROFILES["smoke"], 0, 0)
    assert smoke.epochs == 1
