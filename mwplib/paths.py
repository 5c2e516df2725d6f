"""Every path of the project derives from here (cookiecutter-data-science style)."""
from __future__ import annotations

import os
from pathlib import Path

#: Repository root. `MWPLIB_ROOT` overrides it (e.g. to run a notebook from a copy of the repo); a relative one is
#: resolved here and written back, so a notebook kernel started in notebooks/ finds the same root.
ROOT = Path(os.environ.get("MWPLIB_ROOT", Path(__file__).resolve().parent.parent)).resolve()
if "MWPLIB_ROOT" in os.environ:
    os.environ["MWPLIB_ROOT"] = str(ROOT)
DATA = ROOT / "data"  # raw data, immutable, checksummed (data/CHECKSUMS.sha256)
RESULTS = ROOT / "results"  # committed: finished runs (gzip JSON), tables, recorded metrics
FIGURES = ROOT / "figures"  # committed figures (PNG + PDF)
NOTEBOOKS = ROOT / "notebooks"
BUILD = ROOT / "build"  # ignored: executed notebooks, caches, checkpoints
BOOK = ROOT / "docs" / "book"  # committed: the executed notebooks of quick and full, as a reader on GitHub sees them


def tables_dir(profile: str) -> Path:
    return RESULTS / "tables" / profile


def metrics_dir(profile: str) -> Path:
    return RESULTS / "metrics" / profile


def figures_dir(profile: str) -> Path:
    return FIGURES / profile


def runs_dir(profile: str) -> Path:
    return RESULTS / "runs" / profile


def cache_dir(name: str) -> Path:
    """An ignored cache folder under build/ (parses, graphs, checkpoints)."""
    path = BUILD / "cache" / name
    path.mkdir(parents=True, exist_ok=True)
    return path
