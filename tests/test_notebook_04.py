"""Notebook 04 (how SVAMP was built; right answers from other equations) under the smoke profile."""
import pandas as pd
import pytest
from notebook_runner import execute_notebook

from mwplib import paths
from mwplib.profiles import get_profile
from mwplib.svamp.paper_numbers import PAPER_TABLE7


@pytest.mark.slow
def test_notebook_04_smoke():
    m = execute_notebook("04_svamp_construction", "smoke")
    table7 = pd.read_csv(paths.tables_dir("smoke") / "table07_seed_selection.csv").set_index("group")
    # the paper's group sizes are ASDiv-A's own (1,218 problems): ours must match them exactly
    for group, (examples, seeds) in PAPER_TABLE7.items():
        assert table7.loc[group, "examples in ASDiv-A"] == table7.loc[group, "paper: examples"] == examples
        assert m[f"table7_seeds_{group.lower()}"] == table7.loc[group, "seeds"] <= seeds
        assert 0 <= table7.loc[group, "ours that are SVAMP's"] <= table7.loc[group, "seeds"]
    assert table7.loc["Total", "SVAMP's seeds among the candidates"] <= 100
    counts = pd.read_csv(paths.tables_dir("smoke") / "04_variation_counts.csv", dtype={"code": str}).set_index("code")
    assert (counts["generated"] + counts["not applicable"] + counts["discarded"] == counts["seeds"]).all()
    assert counts.loc["22", "generated"] == counts.loc["33", "generated"] == 100  # these rules fit every seed
    assert m["rule_made_22"] == 100
    accuracy = pd.read_csv(paths.tables_dir("smoke") / "04_variation_accuracy.csv", dtype={"code": str})
    # every evaluated run answered the rule-made problems once each, up to smoke's test limit
    answered = min(counts["generated"].sum(), get_profile("smoke").test_limit)
    assert (accuracy[accuracy["code"] == "all"]["rule-made: n"] == answered).all()
