"""Notebook 01 (baselines) runs under smoke; its recorded numbers agree with the cached runs' predictions and
the majority-template baseline measured on fold 0."""
from __future__ import annotations

import pandas as pd
import pytest
from notebook_runner import execute_notebook, recorded_accuracy, saved_findings

from mwplib import paths, report

#: Fold 0's test problems whose template is its training part's most frequent one (measured; all data are
#: used under every profile).
MAJORITY = {"mawps": 100 * 68 / 384, "asdiv-a": 100 * 52 / 238}


@pytest.mark.slow
def test_notebook_01_smoke() -> None:
    recorded = execute_notebook("01_baselines", "smoke")
    assert recorded["runs"] == 4 * 2 * 2  # models × embeddings × datasets, fold 0
    for name in ("mawps", "asdiv-a"):
        assert recorded[f"majority_{name.replace('-', '_')}"] == pytest.approx(MAJORITY[name], abs=1e-4)
        assert 0.3 < recorded[f"cell_jaccard_{name}"] <= 1.0
        assert recorded[f"cell_precision_{name}"] >= recorded[f"cell_jaccard_{name}"]
        assert recorded[f"cell_compared_{name}"] > recorded[f"cell_skipped_{name}"]
    table2 = pd.read_csv(paths.tables_dir("smoke") / "table2_baselines.csv")
    assert report.BY_VALIDATION in table2.columns  # headed by protocol when saved
    table2 = table2.rename(columns={report.BY_VALIDATION: "ours"})
    assert set(table2["embedding"]) == {"S", "R (MiniLM)"}
    ran = table2.dropna(subset=["ours"])
    assert len(ran) == 12
    for row in ran.itertuples():  # the table's cells are the runs' pooled predictions
        embedding = "scratch" if row.embedding == "S" else "minilm"
        expected = recorded_accuracy(row.model, embedding, row.dataset)
        assert row.ours == pytest.approx(expected, abs=1e-4)
        assert recorded[f"{row.model}_{embedding}_{row.dataset.replace('-', '_')}"] == pytest.approx(expected, abs=1e-4)
    findings = saved_findings("01_findings", recorded)
    assert findings["transformer mawps: R (MiniLM) − S, paired on 1 fold(s)"] == pytest.approx(
        recorded_accuracy("transformer", "minilm", "mawps") - recorded_accuracy("transformer", "scratch", "mawps"))
    assert findings["gts S asdiv-a: model − majority template"] == pytest.approx(
        recorded_accuracy("gts", "scratch", "asdiv-a") - MAJORITY["asdiv-a"])
    speed = pd.read_csv(paths.tables_dir("smoke") / "01_speed.csv")
    assert len(speed) == 16 and (speed["ours"] > 0).all()
