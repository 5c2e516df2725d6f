"""Run a notebook under a profile and read back the metrics it recorded (recommenders-style tests)."""
from __future__ import annotations

import functools
import json
import time
from pathlib import Path
from typing import Any

import pandas as pd

from mwplib import findings, paths, runs
from mwplib.metrics import correctness, percent
from mwplib.problem import Split
from mwplib.profiles import PROFILES
from mwplib.outputs import load_metrics
from mwplib.headless import execute_notebook as _execute


@functools.cache
def _splits(dataset: str) -> list[Split]:
    return runs.dataset_splits(dataset)


def recorded_accuracy(model: str, embedding: str, dataset: str, profile: str = "smoke") -> float:
    """Accuracy (%) pooled over the recorded runs of one grid cell, from their per-problem predictions: what a
    notebook's table should show for that cell."""
    records = runs.run_grid([model], [embedding], {dataset: _splits(dataset)}, PROFILES[profile],
                            train_missing=False)
    assert records, f"no recorded {profile} run of {model}/{embedding} on {dataset}"
    return percent(correctness(records))


def execute_notebook(stem: str, profile: str = "smoke", **parameters: Any) -> dict[str, Any]:
    """Execute notebooks/<stem>.ipynb with papermill and return its recorded headline metrics.

    The metrics file is removed first, so a notebook that stops recording fails its test.
    """
    stale = paths.metrics_dir(profile) / f"{stem}.json"
    stale.unlink(missing_ok=True)
    start = time.time() - 1  # file times may lag the clock a little
    executed = _execute(stem, profile, **parameters)
    saved = [png.name for png in paths.figures_dir(profile).glob("*.png") if png.stat().st_mtime >= start]
    problems = figure_output_problems(executed, saved)
    assert not problems, f"{stem}: " + "; ".join(problems)
    return load_metrics(stem, PROFILES[profile])


def figure_output_problems(executed: Path, saved: list[str]) -> list[str]:
    """What keeps an executed notebook from reading as a page with its figures: fewer image outputs than the
    figures (`saved`, PNG names) its run wrote, or an output that prints a path object or this machine's path of
    the repository (what a cell ending with a returned path shows in place of the figure). Standard error is not
    read: a library's warning names its own file, under .venv/."""
    outputs = [output for cell in json.loads(executed.read_text())["cells"] for output in cell.get("outputs", [])]
    images = sum("image/png" in output.get("data", {}) for output in outputs)
    problems = [f"{images} image outputs for {len(saved)} saved figures {sorted(saved)}"] if images < len(saved) else []
    for output in (output for output in outputs if output.get("name") != "stderr"):
        texts = [output.get("text", "")] + [value for mime, value in output.get("data", {}).items()
                                            if mime.startswith("text/")]
        text = "".join("".join(t) if isinstance(t, list) else t for t in texts)
        for bad in ("PosixPath(", str(paths.ROOT)):
            if bad in text:
                line = next(line for line in text.splitlines() if bad in line)
                problems.append(f"an output prints {bad!r}: {line.strip()[:200]}")
    return problems


def saved_findings(name: str, metrics: dict[str, Any], profile: str = "smoke") -> dict[str, float]:
    """Our column of the findings table (`mwplib.findings`) a notebook saved as `name`, by comparison; checks
    the table's verdicts against its numbers and against the counts the notebook recorded."""
    frame = pd.read_csv(paths.tables_dir(profile) / f"{name}.csv")
    verdicts = frame["holds"].map(findings.verdict_of)  # "within noise (McNemar p = …)" is "within noise"
    unjudged = verdicts.isin(["within noise", "not shown", "within seed spread"])
    smaller = frame["holds"].str.startswith("smaller (")
    assert set(verdicts[~unjudged & ~smaller]) <= {"yes", "no", "no result"}
    assert (verdicts == frame["holds"])[~unjudged & ~smaller].all()  # its evidence is in the p or interval column
    assert (verdicts == "yes").sum() == metrics["findings_held"]
    assert smaller.sum() == metrics["findings_smaller"]
    assert (verdicts == "no").sum() == metrics["findings_not_held"]
    judged = frame[verdicts.isin(["yes", "no"]) | smaller]
    assert ((judged["ours"] > 0) == (verdicts[judged.index] != "no")).all()
    short = frame[smaller]  # positive, under half the paper's difference
    assert ((short["ours"] > 0) & (short["ours"] < findings.SIZE * short["paper"])).all()
    assert frame.loc[frame["holds"] == "no result", "ours"].isna().all()
    return frame.set_index("comparison")["ours"].to_dict()
