"""The run cache: reuse, invalidation by config or data, forced retraining, checkpoint round trip."""
from __future__ import annotations

import math

import subprocess
from dataclasses import asdict, replace

import pandas as pd
import pytest
import torch

from mwplib import batch, paths, runs, train, transfer
from mwplib.svamp import model_tables
from mwplib.models.base import collate
from mwplib.problem import Split
from mwplib.profiles import PROFILES, QUICK_RUNS
from mwplib.records import read_record, write_record
from mwplib.run_spec import RunSpec
from mwplib.solver import Solver, load_checkpoint
from test_models import fast_config, one_thread, toy_problems  # noqa: F401 (autouse fixture)

FULL, QUICK, SMOKE = PROFILES["full"], PROFILES["quick"], PROFILES["smoke"]


@pytest.fixture
def isolated(tmp_path, monkeypatch):
    monkeypatch.setattr(paths, "RESULTS", tmp_path / "results")
    monkeypatch.setattr(paths, "BUILD", tmp_path / "build")
    return tmp_path


def _spec(**overrides):
    return RunSpec("seq2seq", fast_config("seq2seq"), "toy", "toy", 0, 0, epochs=1, beam=1, **overrides)


def test_cached_run_is_reused_and_changed_config_is_not(isolated, monkeypatch) -> None:
    trained = []
    monkeypatch.setattr(runs, "train_model", lambda *a, **k: trained.append(a) or train.train_model(*a, **k))
    problems = toy_problems(12)
    first = runs.run(_spec(), problems, problems[:4], FULL, progress=False)
    path = runs.run_path(_spec(), first["key"], FULL)
    assert path.exists() and first["n_test"] == 4 and len(first["predictions"]) == 4 and len(trained) == 1
    assert runs.run(_spec(), problems, problems[:4], FULL, progress=False) == first
    assert len(trained) == 1  # not retrained
    changed = replace(_spec(), config=fast_config("seq2seq", hidden=64))
    assert runs.run(changed, problems, problems[:4], FULL, progress=False)["key"] != first["key"]
    other_data = runs.run(_spec(), problems[1:], problems[:4], FULL, progress=False)
    assert other_data["key"] != first["key"]
    evaluation = transfer.evaluate_on(first, problems[:4], FULL, "again")
    evaluations = list(path.parent.glob(f"{first['key']}-on-*"))
    assert len(evaluations) == 1 and evaluation["run"] == first["key"]
    runs.run(_spec(), problems, problems[:4], FULL, force=True, progress=False)
    assert len(trained) == 4  # the changed config, the other data, and the forced run
    assert not evaluations[0].exists()  # made with the replaced weights: it must not pair with the new run


def test_run_record_holds_predictions_and_both_protocols(isolated, monkeypatch) -> None:
    trained = []
    monkeypatch.setattr(runs, "train_model", lambda *a, **k: trained.append(a) or train.train_model(*a, **k))
    problems, spec = toy_problems(12), replace(_spec(), epochs=3)
    record = runs.run(spec, problems, problems[:4], FULL, progress=False)
    prediction = record["predictions"][0]
    assert set(prediction) >= {"id", "prefix", "answer", "correct", "logprob"}
    history, metrics = record["history"], record["metrics"]
    assert len(history) == 3
    assert metrics["peer_test_accuracy"] == max(h["test_accuracy"] for h in history)  # the peers' protocol
    chosen = next(h for h in history if h["epoch"] == metrics["best_epoch"])  # the epoch validation chose
    assert metrics["test_accuracy"] == chosen["test_accuracy"]
    assert metrics["test_accuracy"] == sum(p["correct"] for p in record["predictions"]) / 4
    assert read_record(runs.run_path(spec, record["key"], FULL))["key"] == record["key"]
    assert not list(paths.cache_dir("resume").iterdir())  # a finished run leaves no resume state behind
    assert runs.weights_of(record) == runs.checkpoint_path(record["key"])
    runs.checkpoint_path(record["key"]).write_bytes(b"weights of another training of this run")
    again = runs.run(spec, problems, problems[:4], FULL, progress=False, need_weights=True)
    assert len(trained) == 2  # retrained for its weights, with the same predictions
    assert again["predictions"] == record["predictions"] and runs.weights_of(again) is not None
    frame = model_tables.summarize([record])
    assert frame.loc[0, "accuracy"] == pytest.approx(100 * record["metrics"]["test_accuracy"])
    assert frame.loc[0, "devices"] == record["manifest"]["device"]


def test_solver_refuses_bad_input_clearly_and_warns_what_it_ignored(isolated) -> None:
    problems = toy_problems(12)
    record = runs.run(_spec(), problems, problems[:4], FULL, progress=False)
    solver = Solver(*load_checkpoint(runs.checkpoint_path(record["key"])), beam=1)
    for bad in (None, 3, b"Tom has 3 apples", ["Tom has 3 apples"]):
        with pytest.raises(TypeError, match="text must be a str"):
            solver.solve(bad)
    for empty in ("", "   \n"):
        with pytest.raises(ValueError, match="no text to solve"):
            solver.solve(empty)
    assert solver.solve("Tom has 3 apples and 4 pears. How many fruits?").warnings == ()
    assert "no numbers" in solver.solve("How many apples are there?").warnings[0]
    many = solver.solve("Numbers " + " ".join(str(n) for n in range(1, 30)) + ". Sum?")
    assert any("can use the first" in w for w in many.warnings)
    assert any("'half'" in w for w in solver.solve("Tom ate half of 8 apples. How many are left?").warnings)
    # issue 48: a negative quantity keeps its sign; a form read as another number, or a percentage, is said
    assert solver.solve("The temperature was −5 degrees and rose by 12. What is it now?").numbers == ("-5", "12")
    assert solver.solve("It was –5 and fell by 3.").numbers == ("-5", "3")
    rich = solver.solve("A city of 2.5 million people has 5 quarters each. How many?")
    assert rich.numbers == ("2500000", "5") and rich.warnings == ()  # "million" is a number, "quarters" coins
    for text, said in (("A school has 1.2e3 students and 30 classes.", "'1.2e3'"), ("A room of 12² tiles.", "'12²'"),
                       ("Pour 2,5 liters into 3 cups.", "'2,5'"), ("Sam pays 50% of 80 dollars.", "'50%'")):
        assert any(said in w for w in solver.solve(text).warnings), text


@pytest.mark.parametrize("name", ["seq2seq", "gts", "graph2tree", "transformer", "constrained"])
def test_checkpoint_round_trip(isolated, name) -> None:
    problems = toy_problems(12)
    spec = replace(_spec(), model=name, config=fast_config(name))
    record = runs.run(spec, problems, problems[:4], FULL, progress=False)
    model, max_len = load_checkpoint(runs.checkpoint_path(record["key"]))
    solver = Solver(model, max_len, beam=1)
    assert len(record["predictions"]) == 4
    for problem, saved in zip(problems[:4], record["predictions"]):
        solution = solver.solve(problem.text, problem.numbers)
        assert list(solution.prefix) == saved["prefix"]
        assert solver.solve(problem.text).prefix == solution.prefix  # numbers found in the raw text
        assert solution.answer == saved["answer"]
        assert solution.logprob == pytest.approx(saved["logprob"], abs=1e-5)
    spelled = solver.solve("Tom has seven apples and 3 pears. How many fruits?")
    assert spelled.numbers == ("7", "3")  # number words become numbers, as in SVAMP's training CSVs
    assert spelled.tokens[:4] == ("tom", "has", "number0", "apples")
    batch = collate([model.prepare(problems[0])], model.embedder)
    with torch.no_grad():
        reloaded, _ = load_checkpoint(runs.checkpoint_path(record["key"]))
        assert torch.equal(model.loss(batch), reloaded.loss(batch))


def test_dataset_splits_names_every_notebook_dataset():
    from mwplib.runs import dataset_splits

    assert len(dataset_splits("asdiv-a")) == 5
    assert len(dataset_splits("mawps-asdiv-a_svamp")) == 1
    with pytest.raises(ValueError, match="unknown dataset"):
        dataset_splits("nope")


def test_recorded_only_grid_never_trains(isolated) -> None:
    problems = toy_problems(12)
    assert runs.recorded(_spec(), problems, problems[:4], FULL) is None
    record = runs.run(_spec(), problems, problems[:4], FULL, progress=False)
    assert runs.recorded(_spec(), problems, problems[:4], FULL) == record
    split = Split("toy", tuple(problems[4:]), tuple(problems[:4]))
    before = sorted(paths.RESULTS.rglob("*"))
    assert any(path.name == f"{record['key']}.json.gz" for path in before)
    assert runs.run_grid(["seq2seq"], ["scratch"], {"toy": [split]}, FULL, train_missing=False) == []
    assert sorted(paths.RESULTS.rglob("*")) == before


def test_a_stand_in_fills_only_a_cell_without_a_run_of_the_papers_setting(isolated) -> None:
    problems = toy_problems(12)
    split = Split("toy", tuple(problems[4:]), tuple(problems[:4]))
    grid = ({"toy": [split]}, SMOKE)
    stand_in = runs.run_grid(["seq2seq"], ["scratch"], *grid, config_overrides=runs.STAND_IN, progress=False)[0]
    found = runs.run_grid(["seq2seq"], ["scratch"], *grid, train_missing=False, stand_in=runs.STAND_IN)
    assert [r["key"] for r in found] == [stand_in["key"]]
    assert runs.stand_in_note(found).startswith("trained with precision=bf16")
    assert runs.run_grid(["seq2seq"], ["scratch"], *grid, train_missing=False) == []  # asked for none
    paper = runs.run_grid(["seq2seq"], ["scratch"], *grid, progress=False)[0]  # trains the paper's setting
    found = runs.run_grid(["seq2seq"], ["scratch"], *grid, train_missing=False, stand_in=runs.STAND_IN)
    assert [r["key"] for r in found] == [paper["key"]] and runs.stand_in_note(found) == ""


def test_run_needing_weights_retrains_when_the_checkpoint_is_gone(isolated) -> None:
    problems = toy_problems(12)
    record = runs.run(_spec(), problems, problems[:4], FULL, progress=False)
    checkpoint = runs.checkpoint_path(record["key"])
    checkpoint.unlink()
    assert runs.run(_spec(), problems, problems[:4], FULL, progress=False) == record  # the record suffices
    assert not checkpoint.exists()
    path = runs.run_path(_spec(), record["key"], FULL)
    evaluation = path.with_name(f"{record['key']}-on-something.json.gz")
    evaluation.write_bytes(b"kept")
    # as if the run had been trained elsewhere: its recorded weights are not the ones a retraining here gives
    elsewhere = {**record, "weights": "0" * 16}
    write_record(path, elsewhere)
    committed = path.read_bytes()
    again = runs.run(_spec(), problems, problems[:4], FULL, progress=False, need_weights=True)
    assert checkpoint.exists() and again == elsewhere
    # the committed record and its evaluations are never replaced; the retrained weights are found when asked for
    assert path.read_bytes() == committed and evaluation.read_bytes() == b"kept"
    assert runs.weights_of(elsewhere) is None and runs.weights_of(elsewhere, retrained_ok=True) == checkpoint
    assert runs.run(_spec(), problems, problems[:4], FULL, progress=False, need_weights=True) == elsewhere


def test_variants_lists_non_paper_configs_beside_the_paper_run(isolated) -> None:
    problems = toy_problems(12)
    paper_spec = runs.spec_for("seq2seq", "scratch", "toy", "toy", 0, SMOKE)
    paper_run = runs.run(paper_spec, problems, problems[:4], FULL, progress=False)
    assert model_tables.variants(FULL, ["toy"]).empty
    probe = runs.spec_for("seq2seq", "scratch", "toy", "toy", 0, SMOKE, lr=0.01)
    probe_run = runs.run(probe, problems, problems[:4], FULL, progress=False)
    grid = runs.run_grid(["seq2seq"], ["scratch"], {"toy": [Split("toy", tuple(problems[4:]), tuple(problems[:4]))]},
                         SMOKE, config_overrides={"lr": 0.01}, progress=False)
    assert grid[0]["spec"]["config"]["lr"] == 0.01  # the grid (and `python -m mwplib.batch --set`) passes overrides on
    table = model_tables.variants(FULL, ["toy"])
    assert len(table) == 1 and table.loc[0, "changed"] == "lr=0.01"
    assert table.loc[0, "test"] == pytest.approx(100 * probe_run["metrics"]["test_accuracy"])
    assert table.loc[0, "default config: test"] == pytest.approx(100 * paper_run["metrics"]["test_accuracy"])


def test_whole_fold_runs_are_the_papers_protocol_and_a_column_of_their_own(isolated) -> None:
    problems = toy_problems(12)
    folds = {"toy": [Split("toy", tuple(problems[4:]), tuple(problems[:4]))]}
    honest = runs.run_grid(["seq2seq"], ["scratch"], folds, SMOKE, progress=False)
    whole = runs.run_grid(["seq2seq"], ["scratch"], folds, SMOKE, progress=False, val_fraction=0.0)
    assert whole[0]["key"] != honest[0]["key"] and whole[0]["spec"]["val_fraction"] == 0.0
    assert whole[0]["n_train"] == 8 and all(math.isnan(h["val_accuracy"]) for h in whole[0]["history"])
    assert runs.run_grid(["seq2seq"], ["scratch"], folds, SMOKE, train_missing=False) == honest  # kept apart
    rows = model_tables.comparison_rows(model_tables.summarize(honest), ["seq2seq"], ["scratch"], ["toy"],
                                     whole_fold=model_tables.summarize(whole))
    assert rows[0][model_tables.PAPER_PROTOCOL] == pytest.approx(100 * whole[0]["metrics"]["peer_test_accuracy"])
    assert "paper's protocol: 1 fold(s)" in rows[0]["note"]
    for none in (None, model_tables.summarize([])):  # no such runs: no such column
        assert model_tables.PAPER_PROTOCOL not in model_tables.comparison_rows(model_tables.summarize(honest), ["seq2seq"],
                                                                         ["scratch"], ["toy"], none)[0]
    assert model_tables.variants(SMOKE, ["toy"])["changed"].tolist() == ["val_fraction=0.0"]


def test_plan_lists_unrecorded_runs_with_a_time_from_recorded_ones(isolated) -> None:
    problems = toy_problems(12)
    folds = [Split("toy", tuple(problems[4:]), tuple(problems[:4])),
             Split("toy", tuple(problems[:8]), tuple(problems[8:]))]
    one_epoch = {"epochs": 1}
    done = runs.run_grid(["seq2seq"], ["scratch"], {"toy": folds[:1]}, FULL, config_overrides=one_epoch,
                         progress=False)[0]
    on_gpu = {**done, "device": "cuda", "timing": {**done["timing"], "wall_seconds": 1e6}}
    write_record(runs.run_path(runs.spec_for("seq2seq", "scratch", "toy", "toy", 1, FULL, epochs=1), "gpu", FULL),
                 on_gpu)  # timed on another kind of device: not used on this CPU
    missing = runs.plan(["seq2seq", "transformer"], ["scratch"], {"toy": folds}, FULL, config_overrides=one_epoch)
    assert list(zip(missing["model"], missing["fold"])) == [("seq2seq", 1), ("transformer", 0), ("transformer", 1)]
    # by wall time per epoch (training, evaluation, saving), not training alone
    assert missing.loc[0, "estimated minutes"] == pytest.approx(done["timing"]["wall_seconds"] / 60)
    assert done["timing"]["wall_seconds"] > done["timing"]["seconds_per_epoch"]
    assert missing["estimated minutes"][1:].isna().all()  # no transformer run recorded to time it by
    on_cuda = runs.plan(["seq2seq"], ["scratch"], {"toy": folds}, FULL, config_overrides=one_epoch, device="cuda")
    assert on_cuda.loc[0, "estimated minutes"] == pytest.approx(1e6 / 60)  # a GPU lease planned from this CPU
    elsewhere = runs.plan(["seq2seq"], ["scratch"], {"other": folds}, FULL, config_overrides=one_epoch)
    assert elsewhere.loc[0, "estimated minutes"] == pytest.approx(done["timing"]["wall_seconds"] / 60)
    assert list(runs.plan(["transformer"], ["scratch"], {"toy": folds}, FULL, folds=[1])["fold"]) == [1]


def test_plan_counts_the_epochs_an_interrupted_run_saved(isolated) -> None:
    problems = toy_problems(12)
    split = Split("toy", tuple(problems[4:]), tuple(problems[:4]))
    runs.run_grid(["seq2seq"], ["scratch"], {"other": [split]}, FULL, config_overrides={"epochs": 2},
                  progress=False)  # a timing to plan by
    spec = runs.spec_for("seq2seq", "scratch", "toy", "toy", 0, FULL, epochs=2)
    before = runs.plan(["seq2seq"], ["scratch"], {"toy": [split]}, FULL, config_overrides={"epochs": 2})
    assert before.loc[0, "epochs done"] == 0
    model = runs.build_model(spec.model, spec.config, split.train, spec.seed)
    train.train_model(model, split.train, split.test, spec.config, epochs=1, seed=spec.seed, beam=spec.beam,
                      progress=False, resume=runs.resume_path(spec.key(runs.data_checksum(split.train, split.test))))
    after = runs.plan(["seq2seq"], ["scratch"], {"toy": [split]}, FULL, config_overrides={"epochs": 2})
    assert after.loc[0, "epochs done"] == 1  # stopped after epoch 1 of 2: half the time is left
    assert after.loc[0, "estimated minutes"] == pytest.approx(before.loc[0, "estimated minutes"] / 2)


def test_parallel_grid_gives_each_unrecorded_run_its_own_one_thread_process(isolated, monkeypatch) -> None:
    problems = toy_problems(12)
    folds = [Split("toy", tuple(problems[4:]), tuple(problems[:4])),
             Split("toy", tuple(problems[:8]), tuple(problems[8:]))]
    runs.run_grid(["seq2seq"], ["scratch"], {"toy": folds[:1]}, FULL, config_overrides={"epochs": 1},
                  progress=False)
    launched = []

    def fake_run(command, stdout, stderr, env):
        launched.append((command, env["OMP_NUM_THREADS"]))
        return subprocess.CompletedProcess(command, 0)

    monkeypatch.setattr(batch, "dataset_splits", lambda name: folds)
    monkeypatch.setattr(batch.subprocess, "run", fake_run)
    batch.main(["--profile", "full", "--models", "seq2seq", "--datasets", "toy", "--set", "epochs=1", "--jobs", "2"])
    assert len(launched) == 1  # fold 0 is recorded
    command, threads = launched[0]
    assert threads == "1"
    assert command[command.index("--folds") + 1] == "1" and command[-2:] == ["--set", "epochs=1"]
    assert "--without-questions" not in command
    assert (paths.BUILD / "logs" / "full-seq2seq-scratch-toy-1.log").exists()
    batch.main(["--profile", "full", "--models", "seq2seq", "--datasets", "toy", "--set", "epochs=1", "--jobs", "2",
                "--without-questions"])
    assert "--without-questions" in launched[-1][0]  # each run is evaluated as soon as it is trained
    monkeypatch.setattr(batch.subprocess, "run", lambda command, **_: subprocess.CompletedProcess(command, 1))
    with pytest.raises(SystemExit, match="1 run"):  # a failed run fails the command
        batch.main(["--profile", "full", "--models", "seq2seq", "--datasets", "toy", "--set", "epochs=1",
                    "--jobs", "2"])


def test_a_copy_without_git_records_the_commit_it_was_given(monkeypatch) -> None:
    from mwplib.repro import git_sha

    monkeypatch.setenv("MWPLIB_GIT_SHA", "b9888fb")
    assert git_sha() == "b9888fb"


def test_a_record_names_the_commit_its_training_started_from(isolated, monkeypatch) -> None:
    """A commit made while a run trains (hours on a CPU) is not the code that trained it."""
    monkeypatch.setenv("MWPLIB_GIT_SHA", "start")
    train_model = runs.train_model

    def commit_meanwhile(*args, **kwargs):
        monkeypatch.setenv("MWPLIB_GIT_SHA", "later")
        return train_model(*args, **kwargs)

    monkeypatch.setattr(runs, "train_model", commit_meanwhile)
    problems = toy_problems(12)
    assert runs.run(_spec(), problems, problems[:4], FULL, progress=False)["manifest"]["git"] == "start"


def test_records_are_compressed_byte_stable_and_round_trip(tmp_path) -> None:
    from mwplib.records import record_path

    record = {"key": "abc", "predictions": [{"id": "p1", "logprob": -0.1234567890123, "correct": True}]}
    path = record_path(tmp_path / "runs", "abc")
    write_record(path, record)
    first = path.read_bytes()
    write_record(path, record)
    assert path.read_bytes() == first  # no timestamp in the gzip header: recommitting changes nothing
    assert read_record(path) == record
    assert [p.name for p in path.parent.iterdir()] == ["abc.json.gz"]  # no temporary file left behind


def test_cli_evaluates_recorded_runs_without_questions_where_their_weights_are(isolated, monkeypatch, capsys) -> None:
    from mwplib import transfer
    from mwplib.data import remove_question

    problems = toy_problems(12)
    folds = [Split("mawps", tuple(problems[4:]), tuple(problems[:4])),
             Split("mawps", tuple(problems[:8]), tuple(problems[8:]))]
    records = runs.run_grid(["seq2seq"], ["scratch"], {"mawps": folds}, FULL, config_overrides={"epochs": 1},
                            progress=False)
    runs.checkpoint_path(records[1]["key"]).unlink()  # fold 1 was trained elsewhere
    monkeypatch.setattr(batch, "dataset_splits", lambda name: folds)
    monkeypatch.setattr(transfer, "question_removed_test",
                        lambda record, released=False: [remove_question(p) for p in folds[record["spec"]["fold"]].test])
    command = ["--profile", "full", "--models", "seq2seq", "--datasets", "mawps", "--set", "epochs=1",
               "--without-questions"]
    batch.main(command)
    out = capsys.readouterr().out
    assert "seq2seq S mawps fold 0 without questions:" in out
    assert "seq2seq S mawps fold 1: no weights on this machine" in out
    evaluations = sorted(p.name for p in paths.runs_dir("full").glob("seq2seq/mawps/*-on-*.json.gz"))
    assert len(evaluations) == 2 and all(name.startswith(records[0]["key"]) for name in evaluations)
    runs.checkpoint_path(records[0]["key"]).unlink()  # recorded evaluations need no weights
    batch.main(command)
    assert "seq2seq S mawps fold 0 without questions:" in capsys.readouterr().out


def test_cli_evaluates_each_run_without_questions_before_the_next_one_trains(isolated, monkeypatch) -> None:
    problems = toy_problems(12)
    folds = [Split("mawps", tuple(problems[4:]), tuple(problems[:4])),
             Split("mawps", tuple(problems[:8]), tuple(problems[8:]))]
    events = []
    train = runs.run
    monkeypatch.setattr(batch, "dataset_splits", lambda name: folds)
    monkeypatch.setattr(runs, "run", lambda spec, *a, **k: events.append(f"train {spec.fold}") or train(spec, *a, **k))
    monkeypatch.setattr(batch, "evaluate_without_questions",
                        lambda records, profile, released=False: events.append(
                            f"evaluate {records[0]['spec']['fold']}") or [{"accuracy": 0.5}])
    batch.main(["--profile", "full", "--models", "seq2seq", "--datasets", "mawps", "--set", "epochs=1",
                "--without-questions"])
    assert events == ["train 0", "evaluate 0", "evaluate 0", "train 1", "evaluate 1", "evaluate 1"]  # ours, released


def test_pretraining_effect_pairs_r_and_s_on_their_common_folds() -> None:
    def record(embedding: str, fold: int, correct: list[bool]) -> dict:
        return {"spec": {"model": "gts", "config": {"embedding": embedding}, "dataset": "toy", "fold": fold},
                "predictions": [{"id": f"{fold}-{i}", "correct": c} for i, c in enumerate(correct)]}

    records = [record("scratch", 0, [True, False, False, True]), record("minilm", 0, [True, True, True, False]),
               record("scratch", 1, [True, True, True, True])]  # fold 1 has no R run: left out of the pairing
    row = model_tables.pretraining_effect(records, ["gts", "seq2seq"], ["toy"]).iloc[0]
    assert (row["folds"], row["n"], row["S"], row["R (MiniLM)"], row["R − S"]) == (1, 4, 50.0, 75.0, 25.0)
    assert (row["only S right"], row["only R right"]) == (1, 2)
    assert len(model_tables.pretraining_effect(records, ["gts", "seq2seq"], ["toy"])) == 1  # seq2seq: not run
    assert row["paper R − S"] is None  # the paper has no "toy"
    assert model_tables.paper_pretraining_gain("gts", "asdiv-a") == 9.8  # Table 2: 81.2 − 71.4
    assert model_tables.paper_pretraining_gain("graph2tree", runs.SVAMP_DATASET) == 7.3  # Table 10: 43.8 − 36.5


def test_seed_spread_lists_cells_run_with_several_seeds() -> None:
    def record(model: str, seed: int, accuracy: float, lr: float = 1e-3) -> dict:
        return {"spec": {"model": model, "config": {"embedding": "scratch", "lr": lr}, "dataset": "asdiv-a",
                         "fold": 0, "seed": seed, "epochs": 10}, "metrics": {"test_accuracy": accuracy}}

    records = [record("gts", 0, 0.60), record("gts", 1, 0.55), record("gts", 2, 0.62), record("seq2seq", 0, 0.5),
               record("gts", 1, 0.10, lr=1.0)]  # a probe of another setting is no seed of this cell
    spread = model_tables.seed_spread(records)
    assert spread[["model", "seeds", "accuracy by seed"]].values.tolist() == [["gts", 3, "60.0, 55.0, 62.0"]]
    assert spread.loc[0, "spread"] == pytest.approx(7.0) and spread.loc[0, "mean"] == pytest.approx(59.0)


def test_config_fields_added_later_leave_recorded_keys_unchanged() -> None:
    """A field at the value every earlier run used stays out of the key: the committed records are still found."""
    split = runs.dataset_splits("asdiv-a")[2]
    spec = runs.spec_for("graph2tree", "scratch", "asdiv-a", split.name, 2, FULL)
    assert "weight_decay" not in spec.describe()["config"]
    assert runs.recorded(spec, split.train, split.test, FULL) is not None  # trained before the fields existed
    probe = runs.spec_for("graph2tree", "scratch", "asdiv-a", split.name, 2, FULL, weight_decay=1e-5)
    assert probe.describe()["config"]["weight_decay"] == 1e-5 and probe.key("x") != spec.key("x")


def test_patience_off_leaves_recorded_keys_unchanged() -> None:
    spec = runs.spec_for("gts", "scratch", "mawps", "mawps-fold0", 0, QUICK)
    assert "patience" not in spec.describe()
    assert replace(spec, patience=3).key("x") != spec.key("x") == replace(spec, patience=0).key("x")


def test_an_integer_in_a_float_field_gives_the_same_key() -> None:
    """`val_fraction=0` (a script) and `--val-fraction 0` (the CLI, 0.0) are one run."""
    as_int = runs.spec_for("gts", "scratch", "asdiv-a", "f", 0, FULL, val_fraction=0, dropout=0)
    as_float = runs.spec_for("gts", "scratch", "asdiv-a", "f", 0, FULL, val_fraction=0.0, dropout=0.0)
    assert as_int.key("x") == as_float.key("x")
    assert as_int.key("x") != runs.spec_for("gts", "scratch", "asdiv-a", "f", 0, FULL, val_fraction=0.0).key("x")


def test_speed_table_puts_the_papers_seconds_per_epoch_beside_ours() -> None:
    summary = pd.DataFrame({"model": ["gts", "transformer", "toy"], "embedding": ["minilm", "scratch", "scratch"],
                            "dataset": ["mawps"] * 3, "seconds_per_epoch": [33.8, 2.5, 1.0],
                            "devices": ["cpu:x86_64 x2"] * 3, "accuracy": [85.1, 76.8, 1.0]})
    table = model_tables.speed_table(summary)
    assert table.columns.tolist() == ["model", "embedding", "dataset", "paper (P100, RoBERTa for R)", "ours", "devices"]
    assert table["paper (P100, RoBERTa for R)"].tolist()[:2] == [120, 10]  # Tables 19, 20
    assert pd.isna(table["paper (P100, RoBERTa for R)"].iloc[2]) and table["ours"].tolist() == [33.8, 2.5, 1.0]


def test_operations_figure_leaves_out_rare_operator_counts_and_prints_n() -> None:
    rows = [{"dataset": "mawps", "group": g, "n": n, "accuracy": a, "model": m, "embedding": "S"}
            for m, n1 in (("gts", 40), ("seq2seq", 12)) for g, n, a in ((1, n1, 0.5), (2, 30, 0.25), (3, 4, 1.0))]
    fig = model_tables.plot_accuracy_by_operations(pd.DataFrame(rows))
    ax, = fig.axes
    assert [t.get_text() for t in ax.get_xticklabels()] == ["1\nn = 12–40", "2\nn = 30"]  # 3: fewer than 10
    assert [p.get_height() for p in ax.patches] == [50.0, 25.0, 50.0, 25.0]  # percent, a bar per model and count


def test_quick_trains_only_its_plan_with_each_runs_epochs_and_patience() -> None:
    """`quick` trains the cells of `profiles.QUICK_RUNS` and no other; `full` every cell at the paper's epochs."""
    from mwplib.models import paper_config

    folds = {name: [Split(f"{name}-fold0", (), ())] for name in ("mawps", "asdiv-a", runs.SVAMP_DATASET)}
    models, embeddings = ["seq2seq", "gts", "graph2tree", "transformer", "constrained"], ["scratch", "minilm"]
    quick = {(s.model, s.config.embedding, s.dataset): (s.epochs, s.patience)
             for s, _ in runs._grid(models, embeddings, folds, QUICK, 0, None)}
    assert quick == {(p.model, p.embedding, p.dataset): (p.epochs, p.patience) for p in QUICK_RUNS
                     if p.dataset in folds}
    assert ("gts", "minilm", "mawps") not in quick and quick[("transformer", "minilm", "mawps")] == (8, 5)
    full = list(runs._grid(models, embeddings, folds, FULL, 0, None))
    assert len(full) == len(models) * len(embeddings) * len(folds)
    assert all(s.epochs == paper_config(s.model, s.config.embedding).epochs and s.patience == 0 for s, _ in full)
    assert all(p.dataset in {"mawps", "asdiv-a", runs.SVAMP_DATASET, "cv_svamp_augmented", "asdiv-a-all"}
               and paper_config(p.model, p.embedding) and p.shows for p in QUICK_RUNS)


def test_variants_lists_the_recorded_runs_that_quicks_plan_does_not_train(isolated) -> None:
    """Runs recorded under `quick` before its plan stay visible, named for what they are."""
    problems = toy_problems(12)
    split = Split("mawps", tuple(problems[4:]), tuple(problems[:4]))
    for model in ("seq2seq", "gts"):  # MAWPS: Seq2Seq S is in the plan (10 epochs, patience 5), GTS S is not
        runs.run(runs.spec_for(model, "scratch", "mawps", "mawps", 0, SMOKE), split.train, split.test, QUICK,
                 progress=False)
    table = model_tables.variants(QUICK, ["mawps"]).set_index("model")["changed"]
    assert table.to_dict() == {"seq2seq": "epochs=1, patience=0 (the plan's: 10, 5)",
                               "gts": "epochs=1 (a cell quick's plan does not train)"}
    assert runs.run_grid(["gts"], ["scratch"], {"mawps": [split]}, QUICK, train_missing=False) == []
    assert runs.planned_runs(QUICK, ["gts"], ["scratch"], ["mawps", "own"])["dataset"].tolist() == ["own"]


def test_one_seed_and_one_thread_count_give_the_same_record(isolated) -> None:
    """What README promises of a retrain: the same run trained twice on one machine is the same run (its
    manifest records the thread count and the CPU's vector instructions that this holds for)."""
    problems = toy_problems(12)
    spec = replace(_spec(), epochs=2)
    first = runs.run(spec, problems, problems[:4], FULL, progress=False)
    again = runs.run(spec, problems, problems[:4], FULL, progress=False, force=True)
    assert again["predictions"] == first["predictions"] and again["weights"] == first["weights"]
    assert [h["val_accuracy"] for h in again["history"]] == [h["val_accuracy"] for h in first["history"]]
    assert first["manifest"]["threads"] == torch.get_num_threads() == 1  # the suite trains on one thread
    assert first["manifest"]["cpu_capability"] == torch.backends.cpu.get_cpu_capability()  # e.g. AVX512, AVX2


def test_a_plan_times_a_run_by_runs_of_its_width_before_runs_of_its_dataset() -> None:
    """MathEN's Seq2Seq (hidden 512, batch 64) on a new split: timed by Seq2Seq runs of that width, not by SVAMP's
    other_widther ones; with none of its width, by its dataset's; with neither, by any run of its model."""
    spec = _spec()
    config = asdict(spec.config)
    other_width = {**config, "hidden": config["hidden"] * 2}
    speeds: dict = {}
    for cfg, dataset, seconds in ((config, "other", 0.5), (other_width, "toy", 0.1), (other_width, "other", 0.1)):
        for key in runs._speed_keys("seq2seq", cfg["embedding"], cfg, dataset):
            speeds.setdefault(key, []).append(seconds)
    assert runs.estimate_minutes(spec, 60, 2, speeds) == pytest.approx(0.5 * 60 * 2 / 60)
    del speeds[runs._speed_keys("seq2seq", config["embedding"], config, "other")[1]]
    assert runs.estimate_minutes(spec, 60, 2, speeds) == pytest.approx(0.1 * 60 * 2 / 60)  # its dataset's
    assert math.isnan(runs.estimate_minutes(replace(spec, model="gts"), 60, 2, speeds))
