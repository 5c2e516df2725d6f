"""Notebook 02 (question removal) runs under smoke, and its Table 4 partitions the same test problems that
Table 3 scores (SVAMP §4.1)."""
from __future__ import annotations

import pandas as pd
import pytest
from notebook_runner import execute_notebook, recorded_accuracy, saved_findings

from mwplib import outputs, paths


@pytest.mark.slow
def test_notebook_02_smoke() -> None:
    metrics = execute_notebook("02_question_removal", "smoke")
    for model in ("seq2seq", "gts", "graph2tree", "transformer"):
        for emb in ("s", "r_minilm"):
            for dataset in ("mawps", "asdiv_a"):
                assert 0.0 <= metrics[f"without_question_{model}_{emb}_{dataset}"] <= 100.0
                expected = recorded_accuracy(model, "scratch" if emb == "s" else "minilm", dataset.replace("_", "-"))
                assert metrics[f"with_question_{model}_{emb}_{dataset}"] == pytest.approx(expected, abs=1e-4)
    saved = {name: pd.read_csv(paths.tables_dir("smoke") / f"{name}.csv")
             .rename(columns={outputs.BY_VALIDATION: "ours"})
             for name in ("table03_question_removed", "table04_easy_hard")}  # headed by protocol when saved
    table3, table4 = saved["table03_question_removed"], saved["table04_easy_hard"]
    assert len(table3) == 16 and len(table4) == 32  # 4 models × S/R × 2 datasets (× Easy/Hard)
    for _, row in table3.iterrows():
        parts = table4[(table4["model"] == row["model"]) & (table4["emb"] == row["emb"])
                       & (table4["dataset"] == row["dataset"])].set_index("part")
        easy, hard = parts.loc["Easy"], parts.loc["Hard"]
        assert easy["n"] + hard["n"] == row["n"]
        # Easy = solved without the question, so its share is the question-removed accuracy
        assert 100 * easy["n"] / row["n"] == pytest.approx(row["ours"])
        recombined = (easy["n"] * easy["ours"] if easy["n"] else 0) + (hard["n"] * hard["ours"] if hard["n"] else 0)
        assert recombined / row["n"] == pytest.approx(row["with question"])
    findings = saved_findings("02_findings", metrics)
    for _, row in table3.iterrows():
        easy = table4[(table4["model"] == row["model"]) & (table4["emb"] == row["emb"])
                      & (table4["dataset"] == row["dataset"]) & (table4["part"] == "Easy")].iloc[0]
        # correct Easy answers over all correct answers (with the question)
        correct = row["n"] * row["with question"] if row["n"] else 0
        share = 100 * (easy["n"] * easy["ours"] if easy["n"] else 0) / correct if correct else float("nan")
        beyond = " (beyond the paper)" if pd.isna(row["paper"]) else ""  # the paper's Table 3 tests R models only
        assert findings[f"{row['model']} {row['emb']} {row['dataset']}: Easy share of correct − 50 %{beyond}"] == (
            pytest.approx(share - 50, nan_ok=True))
