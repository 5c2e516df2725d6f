"""Notebook 01 (baselines) runs under smoke; its recorded numbers agree with the cached runs and the
majority-template baseline recomputed here."""
from __future__ import annotations

import pandas as pd
import pytest
from notebook_runner import execute_notebook

from mwplib import data, metrics, paths


@pytest.mark.slow
def test_notebook_01_smoke() -> None:
    recorded = execute_notebook("01_baselines", "smoke")
    assert recorded["runs"] == 4 * 2 * 2  # models × embeddings × datasets, fold 0
    for name in ("mawps", "asdiv-a"):
        expected = 100 * metrics.majority_template_baseline_splits([data.load_cv(name)[0]])
        assert recorded[f"majority_{name.replace('-', '_')}"] == pytest.approx(expected, abs=1e-4)
        assert 0.3 < recorded[f"cell_jaccard_{name}"] <= 1.0
        assert recorded[f"cell_precision_{name}"] >= recorded[f"cell_jaccard_{name}"]
        assert recorded[f"cell_compared_{name}"] > recorded[f"cell_skipped_{name}"]
    table2 = pd.read_csv(paths.tables_dir("smoke") / "table2_baselines.csv")
    assert set(table2["embedding"]) == {"S", "R (MiniLM)"}
    ran = table2.dropna(subset=["ours"])
    assert len(ran) == 12 and ran["ours"].between(0, 100).all()
    for row in ran.itertuples():
        key = f"{row.model}_{'scratch' if row.embedding == 'S' else 'minilm'}_{row.dataset.replace('-', '_')}"
        assert recorded[key] == pytest.approx(row.ours, abs=1e-4)
