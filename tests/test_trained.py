"""Getting a solver by name, batched solving, and `python -m mwplib solve` on hostile input."""
from __future__ import annotations

import json

import pytest

from mwplib import paths, runs, trained
from mwplib.__main__ import main
from mwplib.profiles import PROFILES
from mwplib.runkey import RunSpec
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
    assert "training seq2seq S on asdiv-a fold 0 (smoke, 1 epochs)" in capsys.readouterr().out
    split = runs.dataset_splits("asdiv-a")[0]
    smoke = PROFILES["smoke"]
    record = runs.recorded(runs.spec_for("seq2seq", "scratch", "asdiv-a", split.name, 0, smoke), split.train,
                           split.test, smoke)
    assert solver.beam == record["spec"]["beam"] == 1  # decodes as its record was scored
    again = trained.solver_for("seq2seq", "scratch", "asdiv-a", PROFILES["smoke"])
    assert capsys.readouterr().out == "" and again.solve("Tom has 3 apples and 4 pears. How many?").answer is not None
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
    assert main(["solve", "--file", str(problems), "--out", str(out), "--profile", "smoke"]) == 0
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
    assert "answer" in json.loads(capsys.readouterr().out.splitlines()[-1])
