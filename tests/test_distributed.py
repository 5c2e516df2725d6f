"""`python -m mwplib.batch --backend ray`: a local Ray instance trains a grid's missing runs, recorded as locally."""
from __future__ import annotations

import pytest

from mwplib import batch, paths
from mwplib.records import read_record

ray = pytest.importorskip("ray")


def _project(root, monkeypatch):
    """A project at `root` sharing the committed data, with results and build of its own (for Ray's workers too)."""
    root.mkdir()
    (root / "data").symlink_to(paths.DATA)
    monkeypatch.setenv("MWPLIB_ROOT", str(root))
    for name, path in {"ROOT": root, "RESULTS": root / "results", "BUILD": root / "build"}.items():
        monkeypatch.setattr(paths, name, path)


@pytest.mark.slow
def test_ray_records_each_missing_run_as_a_local_grid_does(tmp_path, monkeypatch, capsys) -> None:
    grid = ["--profile", "smoke", "--models", "seq2seq", "transformer", "--datasets", "asdiv-a"]
    _project(tmp_path / "local", monkeypatch)
    batch.main([*grid, "--jobs", "2"])  # one-thread processes, as Ray's tasks
    local = {p.name: read_record(p) for p in (tmp_path / "local" / "results").rglob("*.json.gz")}
    _project(tmp_path / "ray", monkeypatch)
    try:
        batch.main([*grid, "--backend", "ray", "--jobs", "2"])
        assert "2 tasks submitted to Ray" in capsys.readouterr().out
        on_ray = {p.name: read_record(p) for p in (tmp_path / "ray" / "results").rglob("*.json.gz")}
        assert sorted(on_ray) == sorted(local) and len(on_ray) == 2  # the same keys
        for name, record in on_ray.items():
            assert record["predictions"] == local[name]["predictions"] and record["manifest"]["threads"] == 1
        batch.main([*grid, "--backend", "ray"])  # resumable: nothing left to train
        assert "0 tasks submitted" in capsys.readouterr().out
    finally:
        ray.shutdown()
