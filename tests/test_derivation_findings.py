"""Notebook 06's findings table (`experiments.findings`) from hand-made Tables 2–4, and its agreement with `claims`."""
import io
import math

import pandas as pd
import pytest

from mwplib import outputs
from mwplib.derivation import experiments

METRICS = ("solution", "equation", "derivation")


def _table2() -> pd.DataFrame:
    rows = [("DRAW-1K", "problems", 1000, 999), ("DRAW-1K", "templates before", 329, 354),
            ("DRAW-1K", "templates after", 224, 226), ("ALG-514", "templates before", 30, 24),
            ("ALG-514", "templates after", 24, 24)]  # ALG-514: no reduction of ours, a tie
    return outputs.paper_vs_ours([dict(zip(["dataset", "statistic", "paper", "ours"], row)) for row in rows],
                                 ["dataset", "statistic"])


def _accuracies(label: str, cells: dict[tuple[str, str], tuple[tuple, tuple]], better: str, worse: str
                ) -> pd.DataFrame:
    """A Table 3 or 4 as the notebook builds it: (name, setting) → (paper, ours) accuracies per metric, then the
    `better` − `worse` rows."""
    rows = [{label: name, "setting": setting, "metric": metric, "paper": paper[k], "ours": ours[k]}
            for (name, setting), (paper, ours) in cells.items() for k, metric in enumerate(METRICS)]
    for name in dict.fromkeys(name for name, _ in cells):
        (paper_b, ours_b), (paper_w, ours_w) = cells[(name, better)], cells[(name, worse)]
        rows += [{label: name, "setting": f"{better} - {worse}", "metric": metric, "paper": paper_b[k] - paper_w[k],
                  "ours": None if ours_b[k] is None else ours_b[k] - ours_w[k]} for k, metric in enumerate(METRICS)]
    return outputs.paper_vs_ours(rows, [label, "setting", "metric"])


def _table3() -> pd.DataFrame:
    return _accuracies("dataset", {
        ("ALG-514", "TE"): ((76.2, 72.7, 75.5), (70.0, 66.0, 68.0)),
        ("ALG-514", "TD"): ((78.4, 73.9, 77.8), (74.0, 65.0, 73.0)),
        ("DRAW-1K", "TE"): ((52.0, 48.0, 48.0), (50.0, 45.0, 50.0)),  # solution = derivation: a tie
        ("DRAW-1K", "TD"): ((55.0, 48.0, 53.0), (48.0, 44.0, 46.0))}, "TD", "TE")


def _table4() -> pd.DataFrame:
    return _accuracies("combined with", {
        ("ALG-514", "TE"): ((32.5, 31.5, 29.5), (30.0, 26.0, 26.0)),
        ("ALG-514", "TE*"): ((60.5, 56.0, 54.0), (54.5, 49.5, 50.5)),
        ("ALG-514", "TD"): ((62.0, 53.0, 59.5), (51.5, 44.0, 49.5)),
        ("DOLPHIN-L", "TE*"): ((58.5, 55.5, 51.5), (51.0, 44.0, 46.0)),
        ("DOLPHIN-L", "TD"): ((60.0, 53.0, 58.0), (57.0, 47.0, None))}, "TD", "TE*")  # a cell not evaluated


EXPECTED = {  # comparison: (paper, ours, holds)
    "DRAW-1K: templates before − after": (105.0, 128.0, "yes"),
    "ALG-514: templates before − after": (6.0, 0.0, "no"),
    "ALG-514 TE: solution − derivation": (0.7, 2.0, "yes"),
    "ALG-514 TD: solution − derivation": (0.6, 1.0, "yes"),
    "DRAW-1K TE: solution − derivation": (4.0, 0.0, "no"),
    "DRAW-1K TD: solution − derivation": (2.0, 2.0, "yes"),
    "ALG-514: TD − TE, derivation − solution": (0.1, 1.0, "yes"),
    "DRAW-1K: TD − TE, derivation − solution": (2.0, -2.0, "no"),
    "ALG-514: TE − TD, equation accuracy": (-1.2, 1.0, "yes"),
    "DRAW-1K: TE − TD, equation accuracy": (0.0, 1.0, "yes"),
    "ALG-514: TD − TE, derivation accuracy": (2.3, 5.0, "yes"),
    "DRAW-1K: TD − TE, derivation accuracy": (5.0, -4.0, "no"),
    "DRAW-1K + ALG-514: TE* − TE, derivation accuracy": (24.5, 24.5, "yes"),
    "DRAW-1K + DOLPHIN-L: TE* − TE, derivation accuracy": (math.nan, math.nan, "no result"),  # TE not in the table
    "DRAW-1K + ALG-514: TD − TE*, derivation accuracy": (5.5, -1.0, "no"),
    "DRAW-1K + DOLPHIN-L: TD − TE*, derivation accuracy": (6.5, math.nan, "no result"),
}


def _check(frame: pd.DataFrame) -> None:
    assert list(frame.columns) == ["finding", "comparison", "paper", "ours", "holds"]
    assert list(frame["comparison"]) == list(EXPECTED)
    assert frame["finding"].nunique() == 7  # Table 2, the four claims of Table 3, two of Table 4
    for (_, row), (paper, ours, holds) in zip(frame.iterrows(), EXPECTED.values()):
        assert row["paper"] == pytest.approx(paper, nan_ok=True), row["comparison"]
        assert row["ours"] == pytest.approx(ours, nan_ok=True), row["comparison"]
        assert row["holds"] == holds, row["comparison"]


def test_findings_compare_the_cells_of_tables_2_3_and_4():
    _check(experiments.findings(_table2(), _table3(), _table4()))


def test_findings_read_the_same_from_the_saved_csvs():
    def reread(frame: pd.DataFrame) -> pd.DataFrame:
        return pd.read_csv(io.StringIO(frame.to_csv(index=False)))

    _check(experiments.findings(reread(_table2()), reread(_table3()), reread(_table4())))


def test_findings_agree_with_claims_on_the_same_runs():
    def run(solution: int, equation: int, derivation: int) -> list[dict]:  # 4 test problems, k right per metric
        return [{"predictions": {i: {"solution": i < solution, "equation": i < equation, "derivation": i < derivation}
                                 for i in range(4)}}]

    no_table = {"2": pd.DataFrame(columns=["dataset", "statistic", "paper", "ours"]),
                "4": pd.DataFrame(columns=["combined with", "setting", "metric", "paper", "ours"])}
    runs3 = {(d, "TE"): run(3, 2, 1) for d in experiments.DATASETS}
    runs3 |= {(d, "TD"): run(4, 3, 3) for d in experiments.DATASETS}  # no tie: `claims` passes one, findings not
    cases = [({}, [True, True, False, True]),
             ({("draw", "TD"): run(4, 1, 1)}, [True, False, True, False])]  # DRAW-1K: TD no better under derivation
    for change, expected in cases:
        runs3 |= change
        table3 = outputs.paper_vs_ours(experiments.table3(runs3), ["dataset", "setting", "metric"])
        holds = experiments.findings(no_table["2"], table3, no_table["4"]).groupby("finding", sort=False)["holds"]
        every, some = holds.apply(lambda h: (h == "yes").all()), holds.apply(lambda h: (h == "yes").any())
        assert [every.iloc[0], every.iloc[1], some.iloc[2], every.iloc[3]] == expected
        assert list(experiments.claims(runs3).values()) == expected


def test_each_accuracy_finding_carries_a_paired_sign_test_on_the_same_problems():
    """`paired_tests`: two metrics of one run or two runs, problem by problem; a difference of a few problems reads
    "within noise", one the test tells apart keeps its verdict with its p."""
    def run(n: int, solution: range, equation: range, derivation: range) -> list[dict]:
        return [{"predictions": {f"p{i}": {"solution": i in solution, "equation": i in equation,
                                           "derivation": i in derivation} for i in range(n)}}]

    te, td = run(40, range(30), range(25), range(20)), run(40, range(31), range(24), range(30))
    runs3 = {(d, s): r for d in experiments.DATASETS for s, r in (("TE", te), ("TD", td))}
    runs4 = {("alg514", "TE"): te, ("alg514", "TE*"): td, ("alg514", "TD"): td}
    tests = experiments.paired_tests(runs3, runs4).set_index(["dataset", "comparison"])
    # TE: solution right on p0–p29, derivation on p0–p19: 10 disagreements, all one way: p = 2 / 2¹⁰
    assert tests.loc[("ALG-514", "TE: solution − derivation"), "McNemar p"] == pytest.approx(2 / 2**10)
    assert tests.loc[("ALG-514", "TE − TD, equation accuracy"), "McNemar p"] == 1.0  # p24 alone: 1 of 1
    # per problem, (TD − TE) under derivation minus under solution: +1 on p20–p29, −1 on p30: 10 against 1,
    # two-sided 2 × (1 + 11) / 2¹¹
    assert tests.loc[("ALG-514", "TD − TE, derivation − solution"), "McNemar p"] == pytest.approx(24 / 2**11)
    assert tests.loc[("ALG-514", "TD − TE*, derivation accuracy"), "McNemar p"] == 1.0  # the same run: no difference
    assert len(tests) == 3 * 5 + 2
    table3 = outputs.paper_vs_ours(experiments.table3(runs3), ["dataset", "setting", "metric"])
    table4 = outputs.paper_vs_ours(experiments.table4(runs4), ["combined with", "setting", "metric"])
    no_table2 = pd.DataFrame(columns=["dataset", "statistic", "paper", "ours"])
    frame = experiments.findings(no_table2, table3, table4, experiments.paired_tests(runs3, runs4))
    frame = frame.set_index("comparison")
    assert frame.loc["ALG-514 TE: solution − derivation", ["holds", "p"]].tolist() == ["yes", "0.002"]
    assert frame.loc["ALG-514: TE − TD, equation accuracy", "holds"] == "within noise (McNemar p = 1.00, n = 40)"
    assert frame.loc["ALG-514 TD: solution − derivation", "holds"].startswith("within noise")  # p30 alone


def test_the_speed_note_shows_a_bound_that_held_and_the_seconds_of_one_that_did_not():
    """Notebook 06's wall times differ at every render; what its page shows must not, unless a bound broke."""
    assert experiments.speed(11.2, 1.6) == experiments.speed(14.5, 0.3)
    assert list(experiments.speed(75.0, 1.6).values()) == ["75 s, over its 60 s bound", "under 10 s"]
