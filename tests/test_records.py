"""Run records on disk: byte-stable, atomic under unique temporary names, and a damaged one named."""
from __future__ import annotations

import gzip
from concurrent.futures import ThreadPoolExecutor

import pytest
import torch

from mwplib import train
from mwplib.records import DamagedRecord, read_record, record_path, write_atomically, write_record


def test_two_writers_of_one_record_never_collide_and_leave_no_temporary(tmp_path) -> None:
    path = record_path(tmp_path / "runs", "abc")
    records = [{"key": "abc", "writer": i, "predictions": list(range(2000))} for i in range(16)]
    with ThreadPoolExecutor(8) as pool:
        list(pool.map(lambda r: write_record(path, r), records))
    assert read_record(path) in records and [p.name for p in path.parent.iterdir()] == [path.name]
    write_record(path, records[0])
    first = path.read_bytes()
    write_record(path, records[0])
    assert path.read_bytes() == first  # the same record, the same bytes


@pytest.mark.parametrize("content", [b"", b"not gzip", gzip.compress(b"{trunc")[:-4], gzip.compress(b"{bad json"),
                                     gzip.compress(b"[1, 2]"), gzip.compress(b"\xff\xfe")])
def test_a_damaged_record_is_named(tmp_path, content) -> None:
    path = tmp_path / "r.json.gz"
    path.write_bytes(content)
    with pytest.raises(DamagedRecord, match="r.json.gz: damaged record"):
        read_record(path)


def test_a_damaged_record_is_set_aside_and_the_rest_still_read(tmp_path) -> None:
    from mwplib.records import read_records

    good = record_path(tmp_path, "good")
    write_record(good, {"key": "good"})
    bad = tmp_path / "bad.json.gz"
    bad.write_bytes(b"truncated")
    with pytest.warns(UserWarning, match="bad.json.gz: damaged record"):
        assert read_records([bad, good]) == [{"key": "good"}]
    assert bad.read_bytes() == b"truncated"  # left for git to restore


def test_two_processes_saving_one_resume_state_never_collide(tmp_path) -> None:
    """The second save starts while the first is mid-write (two workers on one run, as an H200 lease had)."""
    path = tmp_path / "resume" / "abc.pt"

    def first(out) -> None:
        out.write(b"first")
        write_atomically(path, lambda inner: inner.write(b"second"))

    write_atomically(path, first)
    assert path.read_bytes() == b"first" and [p.name for p in path.parent.iterdir()] == [path.name]


def test_a_resume_state_is_saved_under_a_temporary_name_of_its_own(tmp_path) -> None:
    path = tmp_path / "abc.pt"
    path.with_suffix(".tmp").mkdir()  # where a shared temporary name would be: another process's, say
    train._save_atomically({"history": [1]}, path)
    assert torch.load(path)["history"] == [1]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["abc.pt", "abc.tmp"]


@pytest.mark.parametrize("content, why", [({}, "no key, spec, metrics, history, predictions"),
                                          ({"key": "k", "spec": {}, "metrics": {"test_accuracy": float("nan")},
                                            "history": [], "predictions": []}, "test accuracy nan"),
                                          ({"key": "k", "spec": {}, "metrics": [], "history": [],
                                            "predictions": []}, "test accuracy None")])
def test_a_run_record_without_its_fields_or_a_real_accuracy_is_damaged(tmp_path, content, why) -> None:
    """Issue 48: a gzip of {} passed `read_record` and `solve` died later with KeyError: 'key', naming no file."""
    from mwplib.runs import read_run

    path = record_path(tmp_path, "run")
    write_record(path, content)
    with pytest.raises(DamagedRecord, match=f"{path}: damaged record \\({why}"):
        read_run(path)


def test_a_temporary_left_by_a_killed_writer_is_swept_by_the_next_write(tmp_path) -> None:
    import os
    import time

    from mwplib.records import STALE_SECONDS

    path = record_path(tmp_path, "run")
    old, fresh = tmp_path / f".{path.name}.abc.tmp", tmp_path / f".{path.name}.def.tmp"
    for left in (old, fresh):
        left.write_bytes(b"half")
    os.utime(old, (time.time() - STALE_SECONDS - 1,) * 2)
    write_record(path, {"a": 1})
    assert not old.exists() and fresh.exists()  # a fresh one may be another writer's, still writing
