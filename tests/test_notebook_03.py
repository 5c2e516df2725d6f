"""Notebook 03 (the constrained model and its attention) runs under smoke and scores the paper's example
pairs and the Majority Template Baseline on the evaluated SVAMP problems."""
from __future__ import annotations

import pandas as pd
import pytest
from notebook_runner import execute_notebook, recorded_accuracy, saved_findings

from mwplib import expr, paths
from mwplib.data import load_mawps_asdiv_svamp
from mwplib.metrics import majority_template_baseline
from mwplib.profiles import get_profile


@pytest.mark.slow
def test_notebook_03_smoke() -> None:
    metrics = execute_notebook("03_attention_analysis", "smoke")
    assert metrics["pairs_pairs"] == 10 and metrics["pairs_pairs_gold_differs"] == 9
    assert 0 <= metrics["examples_correct"] <= 20
    weights = pd.read_csv(paths.tables_dir("smoke") / "03_max_attention_weight.csv")
    assert len(weights) == 4  # S and R (MiniLM) on MAWPS and ASDiv-A
    for _, row in weights.iterrows():
        name = f"max_weight_median_{row['emb']}_{row['dataset']}".lower().replace(" (", "_").replace(")", "")
        assert metrics[name.replace("-", "_")] == pytest.approx(row["median"], abs=1e-4)
        assert 0.0 < row["median"] <= 1.0
    examples = pd.read_csv(paths.tables_dir("smoke") / "table06_26_attention_examples.csv")
    assert len(examples) == 20 and examples["ours"].sum() == metrics["examples_correct"]
    for _, row in examples.iterrows():  # `ours` is 1 exactly when our answer is the gold equation's value
        gold = expr.evaluate(expr.parse_infix(row["gold"]))
        assert row["ours"] == int(expr.answers_match(row["our answer"], gold)), row["id"]
    assert examples["our top word"].notna().all()
    split = load_mawps_asdiv_svamp()
    evaluated = split.test[:get_profile("smoke").test_limit]
    assert metrics["table12_majority_template_baseline"] == pytest.approx(
        100 * majority_template_baseline(split.train, evaluated))
    for emb, embedding in (("s", "scratch"), ("r_minilm", "minilm")):
        for dataset in ("mawps", "asdiv-a"):
            assert metrics[f"table5_{emb}_{dataset.replace('-', '_')}"] == pytest.approx(
                recorded_accuracy("constrained", embedding, dataset), abs=1e-4)
    findings = saved_findings("03_findings", metrics)
    assert findings["S: MAWPS − SVAMP"] == pytest.approx(
        metrics["table5_s_mawps"] - metrics["table12_ffn_lstm_decoder_s"], abs=1e-3)
