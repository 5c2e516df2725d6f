"""Notebook 00_datasets under the smoke profile: the recorded statistics are the ones we measured."""
import pytest
from notebook_runner import execute_notebook


@pytest.mark.slow
def test_notebook_00_records_dataset_statistics():
    m = execute_notebook("00_datasets", "smoke")

    # counts use every problem even under smoke
    assert (m["MAWPS_n_problems"], m["ASDiv-A_n_problems"], m["SVAMP_n_problems"]) == (2373, 1218, 1000)
    assert (m["MAWPS_n_templates"], m["ASDiv-A_n_templates"], m["SVAMP_n_templates"]) == (84, 20, 27)
    assert m["MAWPS_avg_operators"] == pytest.approx(1.4785, abs=1e-3)
    assert m["ASDiv-A_avg_operators"] == pytest.approx(1.2291, abs=1e-3)  # paper 1.23
    assert m["SVAMP_avg_operators"] == pytest.approx(1.236, abs=1e-3)  # paper 1.24

    # CLD on a 120-problem sample: higher than on the full sets, but SVAMP stays the least diverse
    for name in ("MAWPS", "ASDiv-A", "SVAMP"):
        assert 0.0 < m[f"{name}_cld"] <= 1.0
    assert m["SVAMP_cld"] < m["MAWPS_cld"] < m["ASDiv-A_cld"]

    # MAWPS subsets: lexical overlap near the paper's "around 7%", and the greedy half lowers both overlaps
    for subset in ("AddSub", "SingleOp", "MultiArith", "SingleEq"):
        assert 3.0 < m[f"{subset}_lexical_overlap"] < 10.0
        assert m[f"{subset}_lexical_overlap_reduced"] < m[f"{subset}_lexical_overlap"]
        assert m[f"{subset}_template_overlap_reduced"] < m[f"{subset}_template_overlap"]

    # the majority template baseline runs on the full data under every profile (paper: 17.7 / 21.2 / 11.7)
    assert m["majority_baseline_mawps"] == pytest.approx(18.80, abs=0.01)
    assert m["majority_baseline_asdiv_a"] == pytest.approx(21.69, abs=0.01)
    assert m["majority_baseline_svamp"] == pytest.approx(12.60, abs=0.01)
