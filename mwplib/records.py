"""Run records on disk: gzip-compressed JSON (``<name>.json.gz``), written atomically.

Why compressed: the per-problem predictions (and the constrained model's attention) of every run are committed
under ``results/runs/``; as plain JSON they grew to 19 MB, a third of the repository, and a copy of the repository
has to stay small enough to travel to a lent GPU machine. gzip keeps them a fifth of that size and readable with
``zcat``. The gzip header carries no timestamp, so the same record always gives the same bytes.
"""
from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

SUFFIX = ".json.gz"


def record_path(folder: Path, name: str) -> Path:
    return folder / f"{name}{SUFFIX}"


def read_record(path: Path) -> dict[str, Any]:
    return json.loads(gzip.decompress(path.read_bytes()))


def write_record(path: Path, record: dict[str, Any]) -> None:
    """Write atomically: an interrupted run never leaves a half-written record."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_bytes(gzip.compress(json.dumps(record, separators=(",", ":")).encode(), mtime=0))
    tmp.replace(path)
