"""The comparisons notebook 07's findings judge, each with its test of noise: exact McNemar tests of the pairs of Table
II / IV cells scored on one test set (+DA against its base, at its own epochs and at equal optimizer steps; each
ablation against +DA), and bootstrap intervals of a Rel. Gap difference, of a +DA gain on SD minus one on ComDiv and
of a +DA gain on SD's structural part minus one on its lexical part.
Apart from the tables (`experiments`) because they pair runs (`grid`) problem by problem, where a table reads one
cell at a time; `findings` takes what they return.
"""
from __future__ import annotations

from typing import Any, Sequence

import pandas as pd

from .. import outputs
from ..metrics import percent
from ..profiles import Profile
from ..significance import gain_difference, paired_difference, rel_gap_difference
from . import grid, sd, synthesis
from .training import correctness
from .findings import EQUAL_STEPS
from .paper_numbers import PAPER_NAMES


def equal_steps_table(da: dict, equal: dict, profile: Profile, seed: int = 0) -> pd.DataFrame:
    """Each +DA cell the profile trains beside its base at its own epochs and at equal optimizer steps
    (:func:`grid.equal_steps_runs`): problems, epochs run and steps of each run, test accuracy (%, epoch by
    validation) and McNemar's p of +DA against the base at equal steps; a cell without both runs says which is
    missing."""
    rows = []
    for method, dataset in grid.da_cells(profile, seed):
        rounds, base = da.get((method, dataset, "+DA")), equal.get((method, dataset))
        if rounds is None or base is None:
            rows.append({"method": method, "run dataset": dataset,
                         "note": "no +DA run recorded" if rounds is None else
                         "no base run at equal steps recorded (python -m mwplib.compositional --equal-steps)"})
            continue
        test = paired_difference(correctness(base), correctness(rounds[-1]))
        rows.append({"method": method, "run dataset": dataset,
                     "+DA problems": rounds[-1][0]["n_train"], "+DA epochs": len(rounds[-1][0]["history"]),
                     "+DA steps": grid.steps(rounds[-1]), "base problems": base[0]["n_train"],
                     "base epochs": len(base[0]["history"]), "base steps": grid.steps(base),
                     "+DA": percent(correctness(rounds[-1])), "base, own epochs": percent(correctness(rounds[0])),
                     "base, equal steps": percent(correctness(base)), "+DA − base, equal steps": test["difference"],
                     "McNemar p": outputs.p_value(test["mcnemar_p"]), "note": ""})
    return pd.DataFrame(rows, columns=["method", "run dataset", "+DA problems", "+DA epochs", "+DA steps",
                                       "base problems", "base epochs", "base steps", "+DA", "base, own epochs",
                                       "base, equal steps", "+DA − base, equal steps", "McNemar p", "note"])


def da_pairs(da: dict) -> dict[tuple[str, str], tuple[list[dict[str, Any]], list[dict[str, Any]]]]:
    """(method, run dataset) → (its base's runs, its +DA runs) for each +DA chain of `da` (:func:`grid.da_runs`):
    round 0 of the chain (the same seed and test problems; Table II's base cell) and its last round (Table II's +DA
    cell). One pairing for "data augmentation helps" (:func:`paired_tests`) and "DA helps most on SD"
    (:func:`da_gain_intervals`)."""
    return {(m, d): (rounds[0], rounds[-1]) for (m, d, v), rounds in da.items() if v == "+DA"}


def paired_tests(da: dict, equal: dict | None = None) -> pd.DataFrame:
    """Exact McNemar tests of every pair of Table II / IV cells scored on one test set that a finding compares:
    each +DA method against its base (:func:`da_pairs`) and, where `equal` (:func:`grid.equal_steps_runs`) has it,
    against the base at equal optimizer steps; and each Table IV ablation against the full +DA. A finding on such a
    pair holds only when p < 0.05 (`findings.SIGNIFICANCE`)."""
    rows = []
    chains = da_pairs(da)
    full = {cell: augmented for cell, (_, augmented) in chains.items()}
    for (method, dataset, variant), rounds in da.items():
        pairs = []
        if variant == "+DA":
            base, augmented = chains[(method, dataset)]
            pairs.append((f"{method}+DA", method, augmented, base))
        if variant == "+DA" and (method, dataset) in (equal or {}):
            pairs.append((f"{method}+DA", method + EQUAL_STEPS, rounds[-1], equal[(method, dataset)]))
        if variant != "+DA" and (method, dataset) in full:
            pairs.append(("+DA", variant, full[(method, dataset)], rounds[-1]))
        for a, b, first, second in pairs:
            test = paired_difference(correctness(second), correctness(first))  # first's accuracy minus second's
            rows.append({"a": a, "b": b, "run dataset": dataset, "n": test["n"], "a − b": test["difference"],
                         "only a right": test["only_second"], "only b right": test["only_first"],
                         "McNemar p": test["mcnemar_p"]})
    return pd.DataFrame(rows, columns=["a", "b", "run dataset", "n", "a − b", "only a right", "only b right",
                                       "McNemar p"])


def rel_gap_intervals(runs: dict, pools: Sequence[str] = ("mawps", "math23k")) -> pd.DataFrame:
    """For "GTS has the lowest Rel. Gap": each other method's Rel. Gap minus GTS's on a pool where both ran on its
    I.I.D. and ComDiv splits, with a 95 % bootstrap interval over the test problems
    (`significance.rel_gap_difference`)."""
    rows = []
    cells = {(m, d.partition("-")[0], grid.column(d)[1]): r for (m, d), r in runs.items() if not d.startswith("sd-")}
    for pool in pools:
        for method in ("LSTM", "Transformer", "MathEN"):
            sides = [(cells.get((m, pool, "I.I.D.")), cells.get((m, pool, "ComDiv"))) for m in (method, "GTS")]
            if all(r is not None for side in sides for r in side):
                test = rel_gap_difference(*[tuple(correctness(side[k]) for side in sides) for k in (0, 1)])
                rows.append({"dataset": PAPER_NAMES[pool], "a": method, "b": "GTS",
                             "Rel. Gap a − b": test["difference"], "ci_low": test["ci_low"],
                             "ci_high": test["ci_high"]})
    return pd.DataFrame(rows, columns=["dataset", "a", "b", "Rel. Gap a − b", "ci_low", "ci_high"])


def da_gain_intervals(da: dict) -> pd.DataFrame:
    """For "DA helps most on SD": each +DA method's gain over its base (:func:`da_pairs`) on an SD test set minus
    its gain on a pool's ComDiv test set, in points, with a 95 % bootstrap interval (each test set resampled on its
    own, paired between base and +DA: `significance.gain_difference`); one row per SD set and ComDiv pool that
    both have a +DA chain. Each gain alone is McNemar's (:func:`paired_tests`); their difference spans two test
    sets, so it needs an interval of its own."""
    chains = da_pairs(da)
    rows = []
    for (method, sd_set), sd_runs in chains.items():
        if not sd_set.startswith("sd-"):
            continue
        for (other, comdiv), comdiv_runs in chains.items():
            if other == method and grid.is_comdiv(comdiv):
                test = gain_difference(tuple(map(correctness, sd_runs)), tuple(map(correctness, comdiv_runs)))
                rows.append({"method": f"{method}+DA", "run dataset": sd_set,
                             "pool": PAPER_NAMES[grid.column(comdiv)[0]], "pool run dataset": comdiv,
                             "n": test["n_one"], "pool n": test["n_other"],
                             "gain on SD − gain on pool": test["difference"], "ci_low": test["ci_low"],
                             "ci_high": test["ci_high"]})
    return pd.DataFrame(rows, columns=["method", "run dataset", "pool", "pool run dataset", "n", "pool n",
                                       "gain on SD − gain on pool", "ci_low", "ci_high"])


def part_gain_intervals(da: dict, language: str = "zh") -> pd.DataFrame:
    """For "DA benefits structural compositions more" (Table III): each +DA method's gain over its base
    (:func:`da_pairs`) on SD test's structural part minus its gain on the lexical part, in points, with a 95 %
    bootstrap interval (`significance.gain_difference`: the two parts are different problems), and the gain on
    the structural part alone with its McNemar p: the claim needs that gain beyond noise too."""
    rows = []
    for (method, dataset), runs in da_pairs(da).items():
        if dataset != f"sd-{language}":
            continue
        scored = [correctness(r) for r in runs]
        kinds = sd.compositions(language, scored[0])
        parts = [tuple({i: c[i] for i in c if kinds[i] == kind} for c in scored)
                 for kind in (synthesis.STRUCTURAL, synthesis.LEXICAL)]
        if all(part[0] for part in parts):
            test, structural = gain_difference(*parts), paired_difference(*parts[0])
            rows.append({"method": f"{method}+DA", "run dataset": dataset, "structural n": test["n_one"],
                         "lexical n": test["n_other"], "structural gain": structural["difference"],
                         "structural McNemar p": structural["mcnemar_p"],
                         "gain on structural − gain on lexical": test["difference"],
                         "ci_low": test["ci_low"], "ci_high": test["ci_high"]})
    return pd.DataFrame(rows, columns=["method", "run dataset", "structural n", "lexical n", "structural gain",
                                       "structural McNemar p", "gain on structural − gain on lexical", "ci_low",
                                       "ci_high"])
