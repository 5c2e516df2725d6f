"""The scripts under benchmarks/ that a GPU lease runs: they read labels and records the way the package does."""
from __future__ import annotations

import importlib.util
import pickle
import tarfile
import time

import pytest

from mwplib import paths
from mwplib.compositional import datasets, grid, sd, training
from mwplib.problem import Problem, Split
from mwplib.profiles import get_profile


def _script(name: str):
    spec = importlib.util.spec_from_file_location(name, paths.ROOT / "benchmarks" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_gpu_lease_trains_the_member_a_label_names_on_the_problems_its_method_sees():
    lease = _script("gpu_lease")
    spec, train, validation, test = lease._member("MathEN:transformer:mawps-comdiv", "smoke")
    profile = get_profile("smoke")
    assert spec == training.spec("MathEN", "transformer", "mawps-comdiv", profile)
    seen = training._as_seen("MathEN", *grid.limited(datasets.as_split("mawps", "comdiv", 0), profile))
    assert [p.prefix for p in train] == [p.prefix for p in seen[0]]  # MathEN's normalised expressions
    assert (len(validation), len(test)) == (len(seen[1]), len(seen[2]))


def test_gpu_lease_reports_a_run_it_cannot_read_instead_of_failing():
    lease = _script("gpu_lease")
    report = lease._progress_or_error("NoSuchMethod:gts:mawps-iid", "smoke", time.time())
    assert report == {"error": "ValueError: unknown method 'NoSuchMethod'; choose one of ['GTS', 'LSTM', 'MathEN', "
                                "'Transformer']"}


def test_gpu_lease_reads_a_carried_sd_split_as_the_one_built_here(tmp_path, monkeypatch):
    lease = _script("gpu_lease")
    built = Split("sd-zh", (_problem("a"),), (_problem("b"),), (_problem("c"),))
    monkeypatch.setattr(sd, "sd_split", lambda language, seed=0: built)
    lease.write_sd(tmp_path, ["zh"])
    assert lease._sd_split("zh", tmp_path) == built
    (tmp_path / "sd-en.pkl").write_bytes(pickle.dumps(["not", "a", "split"]))
    with pytest.raises(TypeError, match="sd-en.pkl: not a Split but a list"):
        lease._sd_split("en", tmp_path)


def _problem(id_: str) -> Problem:
    return Problem(id_, "Tom has 3 apples and 2 pears.", "How many fruits?", "x=3+2", 5.0, ("3", "2"),
                   ("+", "N0", "N1"))


def test_gpu_lease_trains_each_run_once_though_two_labels_name_it(capsys):
    lease = _script("gpu_lease")
    before = {"LSTM:seq2seq:sd-zh": {"key": "k1"}, "MathEN:seq2seq:sd-zh": {"key": "k1"},
              "GTS:gts:sd-zh": {"key": "k2"}, "Bad:x:y": {"error": "ValueError: unknown method"}}
    assert lease._distinct_runs(before) == ["LSTM:seq2seq:sd-zh", "GTS:gts:sd-zh", "Bad:x:y"]
    assert "MathEN:seq2seq:sd-zh: the same run as LSTM:seq2seq:sd-zh (key k1)" in capsys.readouterr().out


def test_gpu_lease_bundles_the_records_it_made_and_leaves_out_those_made_before(tmp_path):
    lease = _script("gpu_lease")
    lease.ROOT = tmp_path
    for path in ("results/runs/full/gts/sd-zh/new.json.gz", "results/runs/full/gts/sd-zh/old.json.gz",
                 "build/lease/summary.json"):
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text(path)
    summary = {"runs": {"a": {"recorded": True, "recorded_before_lease": False,
                              "record": "results/runs/full/gts/sd-zh/new.json.gz"},
                        "b": {"recorded": True, "recorded_before_lease": True,
                              "record": "results/runs/full/gts/sd-zh/old.json.gz"},
                        "c": {"recorded": False}, "d": {"error": "ValueError: unknown method"}}}
    made = lease.bundle(summary, tmp_path / "build" / "lease", tmp_path / "out")
    assert made == ["results/runs/full/gts/sd-zh/new.json.gz"]
    with tarfile.open(tmp_path / "out" / "records.tgz") as records:
        assert records.getnames() == made
        assert records.extractfile(made[0]).read() == made[0].encode()
    with tarfile.open(tmp_path / "out" / "lease.tgz") as logs:
        assert "build/lease/summary.json" in logs.getnames()
