"""Is a difference of two accuracies more than test-set noise? The tests every notebook's findings rest on.

Two runs scored on the same problems are compared paired: McNemar's exact test counts only the problems one of
them solves (:func:`paired_difference`), a sign test (:func:`sign_test`, which tests any count split two ways
against half). Two accuracies on different problems (two test sets, or two disjoint parts of one) are compared
unpaired with Fisher's exact test (:func:`unpaired_difference`). A ratio of accuracies (Lan et al.'s Rel. Gap) gets
a bootstrap interval (:func:`rel_gap_difference`), and so does a difference of two gains, each on its own test set
(:func:`gain_difference`).
"""
from __future__ import annotations

from collections import Counter

import numpy as np

from .problem import Correctness


def sign_test(positive: int, negative: int) -> float:
    """Two-sided exact sign test: the chance of a split at least this uneven of `positive` + `negative` paired
    disagreements if each went either way with probability ½ (1.0 without disagreements). On right/wrong pairs it is
    McNemar's exact test; on any count split two ways it is the exact binomial test against half (the Easy against
    the Hard problems among a model's correct answers: can the Easy share be told from 50 %?)."""
    from scipy.stats import binomtest

    return float(binomtest(positive, positive + negative).pvalue) if positive + negative else 1.0


def unpaired_difference(correct_a: int, n_a: int, correct_b: int, n_b: int) -> dict[str, float | int]:
    """Accuracy a minus accuracy b (points) of `correct_a` of `n_a` and `correct_b` of `n_b` problems that are not the
    same problems, with Fisher's exact two-sided p-value: can the two shares be told apart at these sizes?"""
    from scipy.stats import fisher_exact

    if min(n_a, n_b) <= 0 or not (0 <= correct_a <= n_a and 0 <= correct_b <= n_b):
        raise ValueError(f"unpaired_difference: {correct_a} of {n_a} and {correct_b} of {n_b} are not two shares")
    p = fisher_exact([[correct_a, n_a - correct_a], [correct_b, n_b - correct_b]]).pvalue
    return {"difference": 100 * (correct_a / n_a - correct_b / n_b), "fisher_p": float(p), "n_a": n_a, "n_b": n_b}


def same_ids(a: Correctness, b: Correctness, what: str) -> None:
    """Refuse two correctness maps of different problems: a paired comparison of them would mean nothing."""
    if set(a) != set(b):
        only_a, only_b = sorted(set(a) - set(b)), sorted(set(b) - set(a))
        raise ValueError(f"{what}: predictions cover different problems ({len(only_a)} only in the first, "
                         f"e.g. {only_a[:3]}; {len(only_b)} only in the second, e.g. {only_b[:3]})")


def _paired_draws(first: Correctness, second: Correctness, rng: np.random.Generator, resamples: int, caller: str
                  ) -> tuple[int, int, np.ndarray]:
    """The problems only `first` and only `second` solve, and `resamples` bootstrap draws of `second` − `first`
    (points). Resampling problems only moves how many fall in each of the three kinds (only second right, only
    first right, agree), so drawing those counts is the same bootstrap without the n × resamples index array."""
    same_ids(first, second, caller)
    n = len(first)
    if n == 0:
        raise ValueError(f"{caller}: no problems to compare")
    only_first = sum(bool(first[i]) and not second[i] for i in first)
    only_second = sum(bool(second[i]) and not first[i] for i in first)
    counts = rng.multinomial(n, [only_second / n, only_first / n, 1 - (only_first + only_second) / n], size=resamples)
    return only_first, only_second, 100 * (counts[:, 0] - counts[:, 1]) / n


def paired_difference(first: Correctness, second: Correctness, *, resamples: int = 10_000, seed: int = 0
                      ) -> dict[str, float | int]:
    """Accuracy of `second` minus `first` (points) on the same problems, with a paired bootstrap 95 % interval
    (problems resampled) and McNemar's exact p-value (two-sided), so a claim such as "R beats S" (notebook
    01_baselines) can be told from test-set noise."""
    only_first, only_second, draws = _paired_draws(first, second, np.random.default_rng(seed), resamples,
                                                   "paired_difference")
    low, high = np.percentile(draws, [2.5, 97.5])
    n = len(first)
    p = sign_test(only_second, only_first)
    return {"n": n, "difference": 100 * (only_second - only_first) / n, "ci_low": float(low), "ci_high": float(high),
            "only_first": only_first, "only_second": only_second, "mcnemar_p": float(p)}


def rel_gap_difference(iid: tuple[Correctness, Correctness], comdiv: tuple[Correctness, Correctness], *,
                       resamples: int = 10_000, seed: int = 0) -> dict[str, float]:
    """Rel. Gap (Acc_I.I.D. / Acc_ComDiv − 1) of method a minus method b, each pair scored on one I.I.D. and one
    ComDiv test set, with a 95 % bootstrap interval: both test sets resampled (independently of each other,
    paired between the methods), so a rank of two gaps (Lan et al.'s "GTS has the lowest Rel. Gap") can be told
    from test-set noise. Resampling problems only moves how many fall in each of four kinds (both right, only a,
    only b, neither), so the counts are drawn, as in `_paired_draws`. A draw in which a method solves no ComDiv
    problem has no gap and is left out of the interval; a method that solves none at all raises ValueError."""
    rng = np.random.default_rng(seed)
    rates = []
    for a, b in (iid, comdiv):
        same_ids(a, b, "rel_gap_difference")
        if not a:
            raise ValueError("rel_gap_difference: no problems to compare")
        both_ways = Counter((bool(a[i]), bool(b[i])) for i in a)
        kinds = [both_ways[k] for k in ((True, True), (True, False), (False, True), (False, False))]
        counts = rng.multinomial(len(a), np.array(kinds) / len(a), size=resamples)
        both, only_a, only_b = counts[:, 0], counts[:, 1], counts[:, 2]
        rates.append((np.array([kinds[0] + kinds[1], kinds[0] + kinds[2]]) / len(a),
                      np.stack([both + only_a, both + only_b], axis=1) / len(a)))  # (a, b): whole, resampled
    (iid_rate, iid_draws), (comdiv_rate, comdiv_draws) = rates
    if not comdiv_rate.all():
        raise ValueError("rel_gap_difference: a method solves no ComDiv problem, so its Rel. Gap is undefined")
    with np.errstate(divide="ignore", invalid="ignore"):
        gaps = iid_draws / comdiv_draws - 1
        spread = gaps[:, 0] - gaps[:, 1]
    low, high = np.percentile(spread[np.isfinite(spread)], [2.5, 97.5])
    gap = iid_rate / comdiv_rate - 1
    return {"difference": float(gap[0] - gap[1]), "ci_low": float(low), "ci_high": float(high)}


def gain_difference(one: tuple[Correctness, Correctness], other: tuple[Correctness, Correctness], *,
                    resamples: int = 10_000, seed: int = 0) -> dict[str, float | int]:
    """The gain (points) of a second run over a first (+DA over its base) on one test set minus the same gain on
    another test set, with a 95 % bootstrap interval: each test set resampled independently of the other, paired
    between its two runs, so a claim that a change helps more on one test set than on another (Lan et al.'s "DA
    helps most on SD") can be told from test-set noise; each gain alone is McNemar's (:func:`paired_difference`)."""
    rng = np.random.default_rng(seed)
    gains, draws = [], []
    for first, second in (one, other):
        only_first, only_second, drawn = _paired_draws(first, second, rng, resamples, "gain_difference")
        gains.append(100 * (only_second - only_first) / len(first))
        draws.append(drawn)
    low, high = np.percentile(draws[0] - draws[1], [2.5, 97.5])
    return {"difference": gains[0] - gains[1], "ci_low": float(low), "ci_high": float(high),
            "n_one": len(one[0]), "n_other": len(other[0])}
