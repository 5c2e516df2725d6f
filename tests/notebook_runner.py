"""Run a notebook under a profile and read back the metrics it recorded (recommenders-style tests)."""
from __future__ import annotations

from typing import Any

from mwplib.report import load_metrics
from mwplib.runner import execute_notebook as _execute


def recorded_accuracy(model: str, embedding: str, dataset: str, profile: str = "smoke") -> float:
    """Accuracy (%) pooled over the recorded runs of one grid cell, counted here from their per-problem
    predictions: what a notebook's table should show for that cell."""
    from mwplib import runs

    records = runs.run_grid([model], [embedding], {dataset: runs.dataset_splits(dataset)}, profile,
                            train_missing=False)
    predictions = [p for record in records for p in record["predictions"]]
    assert records and predictions, f"no recorded {profile} run of {model}/{embedding} on {dataset}"
    return 100 * sum(p["correct"] for p in predictions) / len(predictions)


def execute_notebook(stem: str, profile: str = "smoke", **parameters: Any) -> dict[str, Any]:
    """Execute notebooks/<stem>.ipynb with papermill and return its recorded headline metrics.

    The metrics file is removed first, so a notebook that stops recording fails its test.
    """
    from mwplib import paths

    stale = paths.metrics_dir(profile) / f"{stem}.json"
    stale.unlink(missing_ok=True)
    _execute(stem, profile, **parameters)
    return load_metrics(stem, profile)
