"""Notebook 07 (compositional generalization) under the smoke profile: Table I from the committed splits, SD's
sizes, and one training pass through every table."""
import math

import pytest
from notebook_runner import execute_notebook, saved_findings

from mwplib.compositional import datasets


@pytest.mark.slow
def test_notebook_07_smoke():
    m = execute_notebook("07_compositional", "smoke")

    # Table I uses whole pools under every profile: the committed split files, 80/20 of the usable problems
    assert (m["t1_mawps_i_i_d_train"], m["t1_mawps_i_i_d_test"]) == (1786, 446)
    assert (m["t1_math23k_public_6_234_comdiv_train"], m["t1_math23k_public_6_234_comdiv_test"]) == (4986, 1247)
    for pool, label in (("mawps", "mawps"), ("math23k", "math23k_public_6_234")):
        files = datasets.split_files(pool)
        assert m[f"t1_{label}_comdiv_dbca_c"] == round(files["comdiv"]["compound_divergence"], 4)
        # ComDiv: compounds diverge far more than under I.I.D., atoms stay close
        assert m[f"t1_{label}_comdiv_dbca_c"] > m[f"t1_{label}_i_i_d_dbca_c"] + 0.3
        assert m[f"t1_{label}_comdiv_dbca_a"] <= 0.02
    # SD from the public Math23K problems, proofread (built 978 / 682, kept 340 / 176; the paper 1,078 / 745)
    assert (m["t1_sd_from_math23k_public_6_234_comdiv_train"], m["t1_sd_from_math23k_public_6_234_comdiv_test"]) \
        == (340, 176)
    # one GTS run per dataset and a +DA round went through Table II
    for column in ("t2_gts_mawps_i_i_d_mawps_iid", "t2_gts_mawps_comdiv_mawps_comdiv_pooled", "t2_gts_sd_test_sd_zh",
                   "t2_gts_da_sd_test_sd_zh"):
        assert 0 <= m[column] <= 100
    # the claims were judged on those cells (their verdicts checked against their numbers and the recorded counts);
    # at smoke size, tens of test problems, most differences are within noise
    assert sum(not math.isnan(ours) for ours in saved_findings("07_findings", m).values()) >= 4
