"""Run a notebook under a profile and read back the metrics it recorded (recommenders-style tests)."""
from __future__ import annotations

from typing import Any

from mwplib.report import load_metrics
from mwplib.runner import execute_notebook as _execute


def execute_notebook(stem: str, profile: str = "smoke", **parameters: Any) -> dict[str, Any]:
    """Execute notebooks/<stem>.ipynb with papermill and return its recorded headline metrics.

    The metrics file is removed first, so a notebook that stops recording fails its test.
    """
    from mwplib import paths

    stale = paths.metrics_dir(profile) / f"{stem}.json"
    stale.unlink(missing_ok=True)
    _execute(stem, profile, **parameters)
    return load_metrics(stem, profile)
