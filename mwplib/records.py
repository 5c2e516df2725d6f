"""Run records on disk: gzip-compressed JSON (``<name>.json.gz``), written atomically.

Why compressed: the per-problem predictions (and the constrained model's attention) of every run are committed
under ``results/runs/``; as plain JSON they grew to 19 MB, a third of the repository, and a copy of the repository
has to stay small enough to travel to a lent GPU machine. gzip keeps them a fifth of that size and readable with
``zcat``. The gzip header carries no timestamp, so the same record always gives the same bytes.
"""
from __future__ import annotations

import gzip
import json
import os
import tempfile
import time
import warnings
import zlib
from pathlib import Path
from typing import Any, BinaryIO, Callable, Iterable

SUFFIX = ".json.gz"
#: a temporary file of `write_atomically` older than this belongs to no live writer (writing a record takes
#: seconds) and is removed by the next write of its file
STALE_SECONDS = 3600


class DamagedRecord(ValueError):
    """A record file that is not a gzip of a JSON object (truncated, overwritten, not a record)."""


def record_path(folder: Path, name: str) -> Path:
    return folder / f"{name}{SUFFIX}"


def read_record(path: Path, fields: Iterable[str] = ()) -> dict[str, Any]:
    """The record at `path`; :class:`DamagedRecord` naming the file when it cannot be one or lacks one of
    `fields`."""
    try:
        record = json.loads(gzip.decompress(path.read_bytes()))
    except (EOFError, OSError, zlib.error, UnicodeDecodeError, ValueError) as error:
        raise DamagedRecord(f"{path}: damaged record ({type(error).__name__}: {error}); restore it with git "
                            "or move it aside") from None
    if not isinstance(record, dict):
        raise DamagedRecord(f"{path}: damaged record (a JSON {type(record).__name__}, not an object)")
    if missing := [name for name in fields if name not in record]:
        raise DamagedRecord(f"{path}: damaged record (no {', '.join(missing)}); restore it with git or move it aside")
    return record


def read_records(paths: Iterable[Path], fields: Iterable[str] = ()) -> list[dict[str, Any]]:
    """The records at `paths` that can be read; each damaged one is set aside with a warning naming it (a table
    over many records still renders; the damaged file stays for git to restore, and no run is trained over it)."""
    records, fields = [], tuple(fields)
    for path in paths:
        try:
            records.append(read_record(path, fields))
        except DamagedRecord as error:
            warnings.warn(str(error), stacklevel=2)
    return records


def write_record(path: Path, record: dict[str, Any]) -> None:
    """Write a record atomically (:func:`write_atomically`)."""
    write_atomically(path, lambda out: out.write(gzip.compress(json.dumps(record, separators=(",", ":")).encode(),
                                                               mtime=0)))


def write_atomically(path: Path, write: Callable[[BinaryIO], Any]) -> None:
    """Call `write` on a temporary file of its own beside `path`, then move it there: an interrupted run never
    leaves a half-written file, and two processes finishing the same run (a grid shared between workers) never
    write into one file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    for stale in path.parent.glob(f".{path.name}.*.tmp"):  # left by a writer killed mid-write (kill -9)
        try:
            if time.time() - stale.stat().st_mtime > STALE_SECONDS:
                stale.unlink()
        except FileNotFoundError:  # another writer's, just moved into place
            pass
    handle, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(handle, "wb") as out:
            write(out)
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
