"""Notebook 05 (SVAMP) runs under smoke, with the SVAMP 5-fold experiment switched on; its ablation counts
are the variation labels of the evaluated problems."""
from __future__ import annotations

import pandas as pd
import pytest
from notebook_runner import execute_notebook, recorded_accuracy, saved_findings

from mwplib import outputs, paths
from mwplib.data import load_mawps_asdiv_svamp
from mwplib.profiles import get_profile


@pytest.mark.slow
def test_notebook_05_smoke() -> None:
    metrics = execute_notebook("05_svamp", "smoke", SVAMP_CV=True)
    evaluated = load_mawps_asdiv_svamp().test[:get_profile("smoke").test_limit]
    for category in ("Question Sensitivity", "Reasoning Ability", "Structural Invariance"):
        key = f"table13_{category.lower().replace(' ', '_')}_removed"
        assert metrics[key] == sum(category in p.meta["variation_categories"] for p in evaluated)
    table10 = pd.read_csv(paths.tables_dir("smoke") / "table10_svamp_subsets.csv")
    table11 = pd.read_csv(paths.tables_dir("smoke") / "table11_svamp_without_questions.csv")
    full = table10[table10["subset"] == "Full Set"].set_index(["model", "emb"])[outputs.BY_VALIDATION]
    svamp_rows = table11[table11["test set"] == "SVAMP w/o questions"].set_index(["model", "emb"])
    assert full.to_dict() == pytest.approx(svamp_rows["with question"].to_dict())  # the same runs
    for model in ("seq2seq", "gts", "graph2tree", "transformer"):
        assert metrics[f"table10_full_set_{model}_s"] == pytest.approx(
            recorded_accuracy(model, "scratch", "mawps-asdiv-a_svamp"), abs=1e-4)
    assert metrics["svamp_5fold_seq2seq_s"] == pytest.approx(
        recorded_accuracy("seq2seq", "scratch", "cv_svamp_augmented"), abs=1e-4)
    assert {"table15_svamp_2", "table15_asdiv_a_2"} <= metrics.keys()
    findings = saved_findings("05_findings", metrics)
    assert findings["SVAMP: 2 numbers − 3 numbers"] == pytest.approx(
        metrics["table15_svamp_2"] - metrics["table15_svamp_3"], abs=1e-3)
