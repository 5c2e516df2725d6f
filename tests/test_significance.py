"""The noise tests every notebook's findings rest on, on constructed counts with known answers
(mwplib.significance)."""
from __future__ import annotations

import numpy as np
import pytest

from mwplib.significance import sign_test, unpaired_difference


def test_paired_difference_counts_disagreements_and_brackets_the_difference() -> None:
    from mwplib.significance import paired_difference

    first = {f"p{i}": i < 60 for i in range(100)}  # 60 % right
    second = {f"p{i}": i < 50 or 60 <= i < 80 for i in range(100)}  # 70 % right: 10 lost, 20 gained
    test = paired_difference(first, second)
    assert (test["n"], test["only_first"], test["only_second"]) == (100, 10, 20)
    assert test["difference"] == pytest.approx(10.0) and test["ci_low"] < 10.0 < test["ci_high"]
    assert test["mcnemar_p"] == pytest.approx(0.0987, abs=1e-4)  # two-sided exact binomial, 20 of 30
    same = paired_difference(first, first)
    assert (same["difference"], same["ci_low"], same["ci_high"], same["mcnemar_p"]) == (0.0, 0.0, 0.0, 1.0)
    with pytest.raises(ValueError, match="different problems"):
        paired_difference(first, {"p0": True})
    with pytest.raises(ValueError, match="no problems"):
        paired_difference({}, {})


def test_rel_gap_difference_is_the_gaps_difference_with_an_interval_that_shrinks_with_n() -> None:
    from mwplib.significance import rel_gap_difference

    def sides(n: int, a: int, b: int) -> tuple[dict, dict]:
        return ({i: i < a for i in range(n)}, {i: i < b for i in range(n)})

    small = rel_gap_difference(sides(20, 16, 16), sides(20, 8, 12))  # a: 0.8 / 0.4 − 1 = 1.0; b: 0.8 / 0.6 − 1
    assert small["difference"] == pytest.approx(1.0 - (0.8 / 0.6 - 1))
    assert small["ci_low"] < small["difference"] < small["ci_high"]
    large = rel_gap_difference(sides(2000, 1600, 1600), sides(2000, 800, 1200))
    assert large["ci_low"] > 0 and large["ci_high"] - large["ci_low"] < small["ci_high"] - small["ci_low"]
    # drawing the four kinds' counts is the bootstrap of problems: the interval of resampling problems by index
    rng, iid = np.random.default_rng(1), sides(60, 45, 40)
    comdiv = ({i: i % 3 > 0 for i in range(60)}, {i: i % 2 > 0 for i in range(60)})
    arrays = [np.array([[a[i], b[i]] for i in a], dtype=float) for a, b in (iid, comdiv)]
    draws = [m[rng.integers(0, 60, size=(20_000, 60))].mean(axis=1) for m in arrays]
    gaps = draws[0] / draws[1] - 1
    reference = np.percentile(gaps[:, 0] - gaps[:, 1], [2.5, 97.5])
    counted = rel_gap_difference(iid, comdiv, resamples=20_000)
    assert [counted["ci_low"], counted["ci_high"]] == pytest.approx(list(reference), abs=0.03)
    with pytest.raises(ValueError, match="solves no ComDiv problem"):
        rel_gap_difference(sides(20, 16, 16), sides(20, 0, 12))


def test_the_sign_test_is_an_exact_binomial_and_one_without_disagreements() -> None:
    assert sign_test(0, 0) == 1.0
    assert sign_test(5, 0) == pytest.approx(2 / 2**5)  # all five the same way: 2 × ½⁵
    assert sign_test(3, 3) == 1.0
    assert sign_test(20, 10) == sign_test(10, 20)
    assert sign_test(8, 1) == pytest.approx(0.0390625)  # 8 of 9 against half: 2 × (9 + 1) / 2⁹, the binomial test


def test_an_unpaired_difference_needs_more_than_its_size_to_be_told_from_noise() -> None:
    small = unpaired_difference(6, 10, 4, 10)  # 60 % against 40 % of ten problems each
    assert small["difference"] == pytest.approx(20.0) and small["fisher_p"] > 0.5
    large = unpaired_difference(600, 1000, 400, 1000)
    assert large["difference"] == pytest.approx(20.0) and large["fisher_p"] < 1e-15
    # a 2 × 2 table worked by hand: [[3, 0], [0, 3]] has p = 2 / C(6, 3) = 0.1 (two-sided)
    assert unpaired_difference(3, 3, 0, 3)["fisher_p"] == pytest.approx(0.1)
    with pytest.raises(ValueError, match="not two shares"):
        unpaired_difference(5, 4, 1, 2)
    with pytest.raises(ValueError, match="not two shares"):
        unpaired_difference(0, 0, 1, 2)


def test_gain_difference_brackets_a_difference_of_two_gains_each_paired_on_its_own_test_set() -> None:
    from mwplib.significance import gain_difference

    def runs(n: int, base: int, gained: int, lost: int = 0) -> tuple[dict, dict]:
        """(base, +DA) on `n` problems: the base solves the first `base`; +DA loses `lost` of them and gains
        `gained` more."""
        return ({f"q{i}": i < base for i in range(n)}, {f"q{i}": lost <= i < base + gained for i in range(n)})

    # SD: +30 points (60 gained of 200); ComDiv: 0 (10 gained, 10 lost of 300): far beyond noise
    wide = gain_difference(runs(200, 40, 60), runs(300, 100, 10, lost=10))
    assert wide["difference"] == pytest.approx(30.0) and 0 < wide["ci_low"] < 30.0 < wide["ci_high"]
    assert (wide["n_one"], wide["n_other"]) == (200, 300)
    # one problem gained of 20 against nothing on 20: 5 points, the interval holds 0
    close = gain_difference(runs(20, 5, 1), runs(20, 5, 0))
    assert close["difference"] == pytest.approx(5.0) and close["ci_low"] <= 0 <= close["ci_high"]
    # the same gain on both sets: nothing between them, however large each gain is
    same = gain_difference(runs(100, 10, 40), runs(100, 10, 40))
    assert same["difference"] == 0.0 and same["ci_low"] < 0 < same["ci_high"]
    assert gain_difference(runs(100, 10, 40), runs(100, 10, 40)) == same  # seeded: the same interval again
    with pytest.raises(ValueError, match="gain_difference: predictions cover different problems"):
        gain_difference(runs(20, 5, 1), ({"q0": True}, {"q1": True}))
    with pytest.raises(ValueError, match="no problems"):
        gain_difference(runs(20, 5, 1), ({}, {}))
