"""Checksum-verified access to the raw data (data/CHECKSUMS.sha256).

Every loader opens its files through `data_file`, so a result can never silently come from an altered
or partially copied file: the first access to each file in a process compares its sha256 with the
manifest committed beside the data.
"""
from __future__ import annotations

import hashlib
from pathlib import Path

from mwplib import paths

MANIFEST = "CHECKSUMS.sha256"
_RESTORE = "restore it from the source listed in data/README.md"

#: (data root, relpath) pairs already verified in this process; keyed by root so tests may swap DATA.
_verified: set[tuple[Path, str]] = set()


class DataError(ValueError):
    """A raw data file is missing, altered, or holds a record we cannot parse."""


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for chunk in iter(lambda: handle.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def manifest(root: Path | None = None) -> dict[str, str]:
    """relpath -> expected sha256, in manifest order, from `root`/CHECKSUMS.sha256 (default: the data root).

    Malformed lines raise DataError naming the line, so a damaged manifest cannot silently skip checks.
    """
    path = Path(paths.DATA if root is None else root) / MANIFEST
    if not path.is_file():
        raise DataError(f"{path}: checksum manifest missing; {_RESTORE}")
    expected: dict[str, str] = {}
    for lineno, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        digest, sep, relpath = line.partition("  ")
        if not sep or len(digest) != 64:
            raise DataError(f"{path}:{lineno}: malformed line {line!r} (expected '<sha256>  <path>')")
        expected[relpath.strip()] = digest
    return expected


def data_file(relpath: str) -> Path:
    """Path of `relpath` under `mwplib.paths.DATA`, verified once per process against the manifest.

    Raises DataError naming the file (and expected vs actual sha256) when the file is missing, altered,
    or not listed in the manifest.
    """
    root = Path(paths.DATA)
    relpath = Path(relpath).as_posix()
    path = root / relpath
    if (root, relpath) in _verified:
        return path
    expected = manifest(root).get(relpath)
    if expected is None:
        raise DataError(f"{path}: not listed in {root / MANIFEST}; only checksummed raw data may be read")
    if not path.is_file():
        raise DataError(f"{path}: data file missing (expected sha256 {expected}); {_RESTORE}")
    actual = _sha256(path)
    if actual != expected:
        raise DataError(f"{path}: checksum mismatch, expected sha256 {expected}, actual {actual}; "
                        f"the file was altered — {_RESTORE}")
    _verified.add((root, relpath))
    return path
