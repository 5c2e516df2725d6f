"""The papers' findings, drawn again from our tables (the "What holds here" cells of notebooks 00–04 and 06).

The paper states each finding by comparing two of its numbers (§4.1, §4.2, §5.2). We make the same comparison
on the same cells of our tables, written as a difference the claim says is positive, with the paper's difference
beside ours. ``holds`` is "yes" when ours is positive (the claim's way) and, for a difference of two measured cells
where the paper's is positive, at least :data:`SIZE` of the paper's: an effect of a third of the paper's says
"smaller (0.33 of the paper's)", neither held nor not. A difference from a fixed share ("over half are solved"), a
rank ("the best model", "the lowest gap"), a direction ("in the paper's direction") or "marginally" is judged by its
sign, since the claim is about the share, the order or the direction, not the paper's margin.
A comparison missing one of our cells (a run not made or not evaluated) says "no result", not a verdict; one
against a fixed share whose accuracy lies within the 95 % interval of its test size says "within noise", and one
on a cell of fewer than :data:`MIN_PROBLEMS` problems "not shown". A difference of two accuracies carries the p of
a noise test (the ``p`` column; `mwplib.significance`) and reads "within noise" at p ≥ :data:`SIGNIFICANCE`:
McNemar's where both sides scored the same problems (two runs, or two metrics of one run), Fisher's where they
scored different ones (two test sets, two parts of one).
"""
from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import pandas as pd

from .baselines import MAJORITY as MAJORITY_TEMPLATE
from .papers import PAPER_SVAMP_CV, PAPER_TABLE_10
from .report import p_value
from .significance import unpaired_difference
from .svamp_tables import REMOVED_VS_REST, VS_MAJORITY, WITH_VS_WITHOUT, WITHOUT_SVAMP, first_best

#: The share of the paper's difference ours must reach for a two-cell finding to hold in size ("holds" means the
#: paper's effect is there, not only its sign); below it the verdict says "smaller" and gives the ratio.
SIZE = 0.5

#: The largest exact McNemar p-value at which a difference of two runs on one test set counts as a difference
#: (`significance.paired_difference`): above it the verdict reads "within noise", whatever its size.
SIGNIFICANCE = 0.05

#: How a base method trained as many optimizer steps as its +DA run is named in notebook 06's paired tests
#: ("GTS, equal steps", `compositional.experiments.equal_steps_runs`).
EQUAL_STEPS = ", equal steps"

#: "A large fraction" (§1, of question-removed problems) and "the majority" (§1, §4.2, of the bag-of-words
#: model's), read as over half, in %.
MAJORITY = 50.0

#: Fewest test problems a table cell needs to enter a finding: below it one problem moves the cell by over 5
#: points (Table 15's "4 numbers" cell of one ASDiv-A fold holds 5).
MIN_PROBLEMS = 20
#: The normal quantile of a two-sided 95 % interval.
Z95 = 1.96
#: The largest attention weight on one token that counts as attending "to a single word" (§4.2 gives no number).
ONE_HOT = 0.9
#: "Similar" average operators per problem (§5.2, Table 9): SVAMP's and ASDiv-A's differ by less than this (the
#: paper's by 0.01, MAWPS's from either by over 0.5).
SAME_OPERATORS = 0.1

Cell = tuple[pd.DataFrame, Mapping[str, Any]] | float


def _matching(table: pd.DataFrame, keys: Mapping[str, Any]) -> pd.DataFrame:
    """The rows of `table` whose key columns equal `keys`."""
    for key, value in keys.items():
        table = table[table[key] == value]
    return table


def cell(table: pd.DataFrame, column: str, **keys: Any) -> float:
    """The value of `column` in the one row of `table` whose key columns equal `keys`; NaN when no row does."""
    rows = _matching(table, keys)
    if len(rows) > 1:
        raise ValueError(f"{len(rows)} rows of the table match {keys}: a finding compares single cells")
    value = rows[column].iloc[0] if len(rows) else None
    return float("nan") if pd.isna(value) else float(value)


def _value(side: Cell, column: str) -> float:
    return side if isinstance(side, float) else cell(side[0], column, **side[1])


def _row(finding: str, label: str, paper: float, ours: float, sized: bool = False) -> dict[str, Any]:
    """A verdict on the sign of ours; with `sized`, :func:`_frame` then asks for the paper's size too (:data:`SIZE`)."""
    holds = "no result" if pd.isna(ours) else "yes" if ours > 0 else "no"
    return {"finding": finding, "comparison": label, "paper": paper, "ours": ours, "holds": holds, "sized": sized}


def comparison(finding: str, label: str, a: Cell, b: Cell, by_sign: bool = False) -> dict[str, Any]:
    """One row: a − b from the ``paper`` and the ``ours`` columns. Two cells are judged by size too, unless
    `by_sign` (a claim of rank, direction or "marginally": see the module's docstring); a float side is a fixed
    reference, judged by sign."""
    return _row(finding, label, _value(a, "paper") - _value(b, "paper"), _value(a, "ours") - _value(b, "ours"),
                sized=not by_sign and not isinstance(b, float))


def _in_size(row: dict[str, Any]) -> dict[str, Any]:
    """`row` without its ``sized`` flag, judged "smaller" instead of "yes" when it is sized, the paper's difference
    is positive and ours is under :data:`SIZE` of it. Verdicts of noise, spread or cell size came first and stay."""
    row = dict(row)
    if row.pop("sized", False) and row["holds"] == "yes" and row["paper"] > 0 and row["ours"] < SIZE * row["paper"]:
        row["holds"] = f"smaller ({row['ours'] / row['paper']:.2f} of the paper's)"
    return row


def _counted(row: dict[str, Any], *sides: Cell) -> dict[str, Any]:
    """`row`, judged "not shown" instead when a side's ``n`` column (its test problems) is below
    :data:`MIN_PROBLEMS`."""
    n = min(_value(side, "n") for side in sides)
    if row["holds"] != "no result" and n < MIN_PROBLEMS:
        row["holds"] = f"not shown (n = {n:g} < {MIN_PROBLEMS})"
    return row


def _beyond_noise(row: dict[str, Any], side: Cell) -> dict[str, Any]:
    """`row` (an accuracy minus a fixed share), judged "within noise" instead when ours lies inside the 95 %
    binomial interval of an accuracy on the side's ``n`` test problems: one fold cannot tell it from the share."""
    if isinstance(side, float) or "n" not in side[0].columns:
        return row
    accuracy, n = _value(side, "ours"), _value(side, "n")
    if row["holds"] in ("yes", "no") and n > 0:
        half_width = 100 * Z95 * math.sqrt(accuracy / 100 * (1 - accuracy / 100) / n)
        if abs(row["ours"]) < half_width:
            row["holds"] = f"within noise (±{half_width:.1f}, n = {n:g})"
    return row


def _side_row(table: pd.DataFrame | None, keys: Mapping[str, Any]) -> pd.DataFrame:
    """The rows of a side table (paired tests, intervals) whose key columns equal `keys`; none without a table."""
    return _matching(table, keys) if table is not None and len(table) else pd.DataFrame()


def _tested(row: dict[str, Any], p: float, test: str) -> dict[str, Any]:
    """`row` with the p-value of its noise test (`test` names it and its sizes), judged "within noise" instead of
    a verdict when p ≥ :data:`SIGNIFICANCE`."""
    row = {**row, "p": p_value(p)}
    if row["holds"] in ("yes", "no") and p >= SIGNIFICANCE:
        row["holds"] = f"within noise ({test.format(p=f'{p:.2f}')})"
    return row


def _significant(row: dict[str, Any], paired: pd.DataFrame | None, column: str = "McNemar p", **keys: Any
                 ) -> dict[str, Any]:
    """`row` (two runs on one test set) with its McNemar p-value from `paired` (`column` of the row of `paired`
    whose key columns equal `keys`, a number or its text), judged "within noise" instead of a verdict when
    p ≥ :data:`SIGNIFICANCE`."""
    found = _side_row(paired, keys)
    p = found[column].iloc[0] if len(found) and column in found.columns else None
    if p is None or pd.isna(p) or p == "":  # no paired test: a side not run
        return row
    return _tested(row, float(p), f"McNemar p = {{p}}, n = {int(found['n'].iloc[0])}")


def _unpaired(row: dict[str, Any], a: Cell, b: Cell) -> dict[str, Any]:
    """`row` (accuracy a − accuracy b on different problems: two test sets, or two parts of one) with Fisher's exact
    p of the two shares, each side's size from its table's ``n`` column; "within noise" when p ≥
    :data:`SIGNIFICANCE`. A side without ``n`` (or a verdict of no result, or not shown) is left as it is."""
    sides = [(_value(side, "ours"), _value(side, "n")) for side in (a, b)
             if not isinstance(side, float) and "n" in side[0].columns]
    if len(sides) < 2 or row["holds"] not in ("yes", "no") or not min(n for _, n in sides) > 0:
        return row
    (rate_a, n_a), (rate_b, n_b) = sides
    test = unpaired_difference(round(rate_a * n_a / 100), int(n_a), round(rate_b * n_b / 100), int(n_b))
    return _tested(row, test["fisher_p"], f"Fisher p = {{p}}, n = {n_a:g} and {n_b:g}")


def _frame(rows: list[dict[str, Any]]) -> pd.DataFrame:
    """The findings table; a ``p`` column (a paired test's p-value, two significant digits; empty where a row
    has none) where any row has one."""
    paired = any("p" in row for row in rows)
    rows = [{"p": "", **row} for row in rows] if paired else rows
    columns = ["finding", "comparison", "paper", "ours", "holds"] + (["p"] if paired else [])
    return pd.DataFrame([_in_size(row) for row in rows], columns=columns)


def _distinct(table: pd.DataFrame, keys: list[str]) -> list[dict[str, Any]]:
    """The distinct values of `keys` in `table`, in table order."""
    return table[keys].drop_duplicates().to_dict("records")


def frame(rows: list[dict[str, Any]]) -> pd.DataFrame:
    """A findings table of `comparison` rows, for findings drawn outside this module (notebook 05's)."""
    return _frame(rows)


def significant(row: dict[str, Any], tests: pd.DataFrame | None, **keys: Any) -> dict[str, Any]:
    """`row` judged by the McNemar p of the row of `tests` whose key columns equal `keys` (:func:`_significant`),
    for findings drawn outside this module (notebook 05's)."""
    return _significant(row, tests, **keys)


def distinct(table: pd.DataFrame, keys: list[str]) -> list[dict[str, Any]]:
    """The distinct values of `keys` in `table`, in table order, for findings drawn outside this module."""
    return _distinct(table, keys)


def easy_share(without: float, easy: float, hard: float) -> float:
    """The share (%) of a model's correct answers that are Easy problems, from its accuracy without the question
    (the Easy part's size, Table 3) and its accuracy on the Easy and Hard parts (Table 4)."""
    solved_easy = without * easy if without else 0.0  # an empty part has no accuracy (NaN) and adds nothing
    solved_hard = (100 - without) * hard if without < 100 else 0.0
    solved = solved_easy + solved_hard
    return 100 * solved_easy / solved if solved else float("nan")


def datasets(table9: pd.DataFrame) -> pd.DataFrame:
    """Notebook 00: SVAMP does not ask for harder equations than ASDiv-A: their template counts and average
    operators "are similar for SVAMP and ASDiv-A and are considerably smaller than for MAWPS" (§5.2); yet it is
    the less diverse in words: "a much lesser CLD than ASDiv-A" (§5.2), and below MAWPS too (Table 9, "less
    diverse", §5.3). The paper's own template counts differ by 7 (26 against 19), so "similar" is read as nearer
    each other than either is to MAWPS; operators as within :data:`SAME_OPERATORS`. `table9` has rows by
    ``dataset`` (MAWPS, ASDiv-A, SVAMP) and ``statistic`` (``n_templates``, ``avg_operators``, ``cld``)."""
    def side(dataset: str, statistic: str) -> Cell:
        return table9, {"dataset": dataset, "statistic": statistic}

    def gap(a: str, b: str, statistic: str, column: str) -> float:
        return abs(_value(side(a, statistic), column) - _value(side(b, statistic), column))

    rows = []
    for statistic, claim, name in (("n_templates", "templates", "templates"),
                                   ("avg_operators", "operators per problem", "average operators")):
        rows += [comparison(f"SVAMP and ASDiv-A have considerably fewer {claim} than MAWPS (§5.2, Table 9)",
                            f"{name}: MAWPS − {dataset}", side("MAWPS", statistic), side(dataset, statistic))
                 for dataset in ("SVAMP", "ASDiv-A")]
    nearer = {c: pd.Series([gap("MAWPS", d, "n_templates", c) for d in ("SVAMP", "ASDiv-A")]).min(skipna=False)
              for c in ("paper", "ours")}  # a missing cell leaves no gap, not the other one
    rows += [_row("SVAMP's and ASDiv-A's template counts are similar (§5.2, Table 9)",
                  "templates: min(|MAWPS − SVAMP|, |MAWPS − ASDiv-A|) − |SVAMP − ASDiv-A|",
                  *(nearer[c] - gap("SVAMP", "ASDiv-A", "n_templates", c) for c in ("paper", "ours"))),
             _row("SVAMP has about as many operators per problem as ASDiv-A (§5.2, Table 9)",
                  f"average operators: {SAME_OPERATORS:g} − |SVAMP − ASDiv-A|",
                  *(SAME_OPERATORS - gap("SVAMP", "ASDiv-A", "avg_operators", c) for c in ("paper", "ours")))]
    rows += [comparison("SVAMP has a lower CLD than ASDiv-A (§5.2) and MAWPS (Table 9)", f"CLD: {dataset} − SVAMP",
                        side(dataset, "cld"), side("SVAMP", "cld")) for dataset in ("ASDiv-A", "MAWPS")]
    return _frame(rows)


def question_removal(table3: pd.DataFrame, table4: pd.DataFrame) -> pd.DataFrame:
    """Notebook 02: over half the problems are solved without their question (Table 3), and "the bulk of their
    success is due to the Easy problems" (§4.1, Table 4): over half of a model's correct answers are Easy ones.
    `table4` has an ``n`` column (our Easy and Hard sizes); the paper's Easy share takes its size from Table 3."""
    rows = [_beyond_noise(comparison("over half the problems are solved without their question (Table 3)",
                                     f"{k['model']} {k['emb']} {k['dataset']}: w/o question − {MAJORITY:g} %",
                                     (table3, k), MAJORITY), (table3, k))
            for k in _distinct(table3, ["model", "emb", "dataset"])]
    for k in _distinct(table4, ["model", "emb", "dataset"]):
        n_easy, n_hard = cell(table4, "n", **k, part="Easy"), cell(table4, "n", **k, part="Hard")
        without = {"paper": cell(table3, "paper", **k),  # ours: the Easy part's size, from the same folds
                   "ours": 100 * n_easy / (n_easy + n_hard) if n_easy + n_hard else float("nan")}
        share = {column: easy_share(without[column], cell(table4, column, **k, part="Easy"),
                                    cell(table4, column, **k, part="Hard")) for column in ("paper", "ours")}
        rows.append(_row("the bulk of the correct answers are Easy problems (Tables 3, 4)",
                         f"{k['model']} {k['emb']} {k['dataset']}: Easy share of correct − {MAJORITY:g} %",
                         share["paper"] - MAJORITY, share["ours"] - MAJORITY))
    return _frame(rows)


def _paired(finding: str, label: str, paper: float, effect: pd.DataFrame, keys: Mapping[str, Any]
            ) -> dict[str, Any]:
    """A row from a paired comparison on the same folds (`baselines.pretraining_effect`): "yes"/"no" only when
    McNemar's test on its test problems gives p < :data:`SIGNIFICANCE`, "within noise" otherwise."""
    rows = _matching(effect, keys)
    if rows.empty:  # a side not run, or no fold run with both
        return _row(finding, label, paper, float("nan"))
    found = rows.iloc[0]
    row = _row(finding, f"{label}, paired on {found['folds']} fold(s)", paper, float(found["R − S"]), sized=True)
    return _tested(row, float(found["McNemar p"]), f"McNemar p = {{p}}, n = {int(found['n'])}")


def _margin(values: Mapping[str, float], best: str) -> tuple[float, str]:
    """How far `best` leads the highest of the other `values` (NaN ones left out), and which that runner-up is:
    a claim that one model is best compares it with whichever model comes next, on each side."""
    others = {name: value for name, value in values.items() if name != best and not pd.isna(value)}
    if not others:
        return float("nan"), "none"
    runner_up = max(others, key=others.__getitem__)
    return float(values.get(best, float("nan"))) - others[runner_up], runner_up


def _lead(finding: str, label: str, paper: tuple[float, str], ours: tuple[float, str]) -> dict[str, Any]:
    """A row from the :func:`_margin` of each side, naming its runner-up (one name where both sides agree)."""
    against = paper[1] if paper[1] == ours[1] else f"paper: {paper[1]}; ours: {ours[1]}"
    return _row(finding, f"{label} − best other ({against})", paper[0], ours[0])


def _within_spread(row: dict[str, Any], spread: pd.DataFrame | None, *cells: Mapping[str, Any]) -> dict[str, Any]:
    """`row`, judged "within seed spread" instead when its difference is no larger than the widest spread over seeds
    of its cells (`baselines.seed_spread`: max − min accuracy of one fold trained with several seeds). The
    difference is pooled over the folds run and the spread is one fold's, so this reads the seed noise of a fold as
    a bound on a pooled gap: a rough guard, said as such."""
    if spread is None or spread.empty or row["holds"] not in ("yes", "no"):
        return row
    found = [part for k in cells if not (part := _matching(spread, k)).empty]
    if found:
        widest = max((part.loc[part["spread"].idxmax()] for part in found), key=lambda r: r["spread"])
        if abs(row["ours"]) <= widest["spread"]:
            row["holds"] = (f"within seed spread ({widest['spread']:.1f} points over {int(widest['seeds'])} seeds, "
                            f"{widest['model']} fold {int(widest['fold'])})")
    return row


def baselines(table2: pd.DataFrame, table16: pd.DataFrame, majority: pd.DataFrame, effect: pd.DataFrame,
              spread: pd.DataFrame | None = None, paired: pd.DataFrame | None = None,
              pairs: pd.DataFrame | None = None) -> pd.DataFrame:
    """Notebook 01: pretrained embeddings beat scratch ones for every model (Tables 2, 16), GTS and Graph2Tree beat
    Seq2Seq (Table 2), every model beats the Majority Template Baseline by far (§3.2), and "Graph2Tree with RoBERTa
    embeddings achieves the state-of-the-art for both datasets" (§3.2, Table 2: Table 16's Transformer is not in
    it). Tables 2 and 16 have rows by ``model``, ``embedding``, ``dataset``; `majority` one row per ``dataset``;
    R − S is read from `effect` (`baselines.pretraining_effect`: R and S on the same folds and test problems, with
    McNemar's p), since the tables may pool R and S over different folds. With `spread` (`baselines.seed_spread`),
    a model-against-model difference no larger than its cells' seed spread says so; with `paired`
    (`baselines.model_effect`), one whose McNemar p is :data:`SIGNIFICANCE` or more reads "within noise"; `pairs`
    (`baselines.paired_tests`) tests the same way a model against the majority template and the best model
    against the runner-up."""
    keys = ["model", "embedding", "dataset"]
    both = pd.concat([table2, table16], ignore_index=True)
    pretrained = [e for e in both["embedding"].drop_duplicates() if e != "S"]
    rows = [_paired("R beats S for every model (Tables 2, 16)", f"{k['model']} {k['dataset']}: {r} − S",
                    _value((both, {**k, "embedding": r}), "paper") - _value((both, {**k, "embedding": "S"}),
                                                                             "paper"), effect, k)
            for k in _distinct(both, ["model", "dataset"]) for r in pretrained]
    rows += [_significant(_within_spread(comparison("GTS and Graph2Tree beat Seq2Seq (Table 2)",
                                                    f"{k['embedding']} {k['dataset']}: {m} − seq2seq",
                                                    (both, {**k, "model": m}), (both, {**k, "model": "seq2seq"})),
                                         spread, {**k, "model": m}, {**k, "model": "seq2seq"}),
                          paired, **{**k, "model": m})
             for k in _distinct(both, ["embedding", "dataset"]) for m in ("gts", "graph2tree")]
    rows += [_significant(comparison("every model beats the Majority Template Baseline (§3.2)",
                                     f"{k['model']} {k['embedding']} {k['dataset']}: model − majority template",
                                     (both, k), (majority, {"dataset": k["dataset"]})),
                          pairs, a=f"{k['model']} {k['embedding']}", b=MAJORITY_TEMPLATE, dataset=k["dataset"])
             for k in _distinct(both, keys)]
    for dataset, part in table2.groupby("dataset", sort=False):
        names = part["model"] + " " + part["embedding"]
        for r in pretrained:
            best = f"graph2tree {r}"
            paper, ours = (_margin(dict(zip(names, part[c])), best) for c in ("paper", "ours"))
            rows.append(_significant(_lead("the best model on each dataset is Graph2Tree R (Table 2)",
                                           f"{dataset}: {best}", paper, ours),
                                     pairs, a=best, b=ours[1], dataset=dataset))
    return _frame(rows)


def _same_top_word(examples: pd.DataFrame) -> tuple[float, int]:
    """The share (%) of the example pairs (``…a``/``…b`` ids) whose gold equation differs at the slot level but
    whose top word is the same in both, and how many such pairs there are (`attention_analysis.pair_statistics`):
    only where the edit changed the equation does keeping the word show a shortcut."""
    by_id = examples.set_index("id")
    pairs = [(a, a[:-1] + "b") for a in by_id.index if a.endswith("a") and a[:-1] + "b" in by_id.index]
    changed = [(a, b) for a, b in pairs if by_id.at[a, "gold slots"] != by_id.at[b, "gold slots"]]
    same = sum(by_id.at[a, "our top word"] == by_id.at[b, "our top word"] for a, b in changed)
    return (100 * same / len(changed) if changed else float("nan")), len(changed)


def bag_of_words(table5: pd.DataFrame, table12: pd.DataFrame, weights: pd.DataFrame, examples: pd.DataFrame
                 ) -> pd.DataFrame:
    """Notebook 03: an order-blind model solves over half of MAWPS (Table 5), far fewer of SVAMP's, where it is
    only a little better than the Majority Template Baseline (Table 12); it "usually attends to a single word"
    (§4.2): the median largest attention weight (`weights`, `attention_analysis.weight_table`) is near one, a
    threshold the paper does not give; and in each pair of Tables 6/26 (`examples`,
    `attention_analysis.recorded_examples`) it keeps that word when an edit changes the equation, as in every
    pair the paper shows (100 %)."""
    baseline = (table12, {"model": "Majority Template Baseline"})
    rows = []
    for k in _distinct(table12[table12["emb"] != ""], ["model", "emb"]):
        mawps = (table5, {**k, "dataset": "mawps"})
        rows += [_beyond_noise(comparison("an order-blind model solves over half of MAWPS (Table 5)",
                                          f"{k['emb']}: MAWPS − {MAJORITY:g} %", mawps, MAJORITY), mawps),
                 _unpaired(comparison("it solves far fewer SVAMP problems (Tables 5, 12)",
                                      f"{k['emb']}: MAWPS − SVAMP", mawps, (table12, k)), mawps, (table12, k)),
                 _significant(comparison("on SVAMP it beats the majority template, marginally (Table 12)",
                                         f"{k['emb']}: SVAMP − majority template", (table12, k), baseline,
                                         by_sign=True), table12, VS_MAJORITY, **k)]
    rows += [_row("the constrained model's attention is near one-hot (§4.2, Table 6)",
                  f"{k['emb']} {k['dataset']}: median largest attention weight − {ONE_HOT:g} (paper: no number)",
                  float("nan"), cell(weights, "median", **k) - ONE_HOT) for k in _distinct(weights, ["emb", "dataset"])]
    for emb, part in examples.groupby("emb", sort=False):
        share, pairs = _same_top_word(part)
        rows.append(_row("the same word wins in each Table 6 pair (§4.2, Tables 6, 26)",
                         f"{emb}: % of the {pairs} pairs whose equation changes with the same top word"
                         f" − {MAJORITY:g} %", 100 - MAJORITY, share - MAJORITY))
    return _frame(rows)


def _stand_in(table: pd.DataFrame, keys: Mapping[str, Any]) -> str:
    """" (SVAMP side: trained with precision=bf16, a stand-in)" when the cell's ``note`` says its run is a
    `runs.STAND_IN` (`runs.stand_in_note`), "" otherwise: a finding must not pass a stand-in off as the setting."""
    if "note" not in table.columns:
        return ""
    rows = _matching(table, keys)
    note = str(rows["note"].iloc[0]) if len(rows) else ""
    trained = next((part.split(" (stand-in")[0] for part in note.split("; ") if "stand-in" in part), "")
    return f" (SVAMP side: {trained}, a stand-in)" if trained else ""


def _ablations(table13: pd.DataFrame, table14: pd.DataFrame) -> list[dict[str, Any]]:
    """Tables 13/14: each removal changes accuracy the way the paper's did, up (the removed examples were the
    harder) or down: our change times the sign of the paper's, beside the paper's size of it; "within noise" where
    the removed problems' accuracy cannot be told from the rest's (the table's Fisher p, `REMOVED_VS_REST`)."""
    rows = []
    for table, group in ((table13, "removed category"), (table14, "removed variation")):
        for _, change in table[table["measure"] == "change in accuracy"].iterrows():
            sign = math.copysign(1.0, change["paper"])
            label = f"{change['model']} without {change[group]}: {'' if sign > 0 else '−'}change in accuracy"
            row = _row("every removal ablation changes accuracy in the paper's direction (Tables 13, 14)", label,
                       abs(change["paper"]), sign * change["ours"])  # a direction
            p = change.get(REMOVED_VS_REST, "")
            rows.append(row if pd.isna(p) or p == "" else
                        _tested(row, float(p), "Fisher p = {p}, the removed problems against the rest"))
    return rows


def _svamp_cv(cv: pd.DataFrame) -> list[dict[str, Any]]:
    """§5.3: what four SVAMP folds in the training data add on the same test problems (`cv`,
    `svamp_tables.svamp_cv_table`). The paper's "about 65 %" is its best model's, against 43.8 % for its best
    trained without SVAMP (Graph2Tree R, Table 10); a row the table gives no paper value to has none."""
    finding = "SVAMP 5-fold accuracy is far above the no-SVAMP training's (§5.3)"
    without = PAPER_TABLE_10["graph2tree"]["Full Set"][1]
    label = "5-fold with SVAMP − trained without, same problems"
    if cv.empty:  # the experiment was not run
        return [_row(finding, f"no 5-fold run: {label}", PAPER_SVAMP_CV - without, float("nan"))]
    rows = []
    for k in _distinct(cv, ["model", "emb"]):
        paper = cell(cv, "paper", **k)
        ours = cell(cv, "ours", **k) - (cell(cv, WITHOUT_SVAMP, **k) if WITHOUT_SVAMP in cv.columns else float("nan"))
        rows.append(_significant(_row(finding, f"{k['model']} {k['emb']}, {cell(cv, 'folds', **k):g} fold(s): "
                                      f"{label}" + ("" if pd.isna(paper) else
                                                    f" (paper: {paper:g} − Graph2Tree R's {without:g})"),
                                      paper - without, ours, sized=True),
                                 cv if WITH_VS_WITHOUT in cv.columns else None, WITH_VS_WITHOUT, **k))
    return rows


def _best_on_svamp(table10: pd.DataFrame) -> dict[str, Any]:
    """"The best performing Graph2Tree model" (§5.3): Graph2Tree R's Full Set accuracy against the next model's,
    the paper's from all of Tables 10/18 (`table10` may hold S rows only), ours from `table10`."""
    paper = {f"{model} {emb}": values["Full Set"][i] for model, values in PAPER_TABLE_10.items()
             for i, emb in enumerate("SR")}
    full = table10[table10["subset"] == "Full Set"]
    stand_in = full.get("note", pd.Series("", index=full.index)).astype(str).str.contains("stand-in")
    names = full["model"] + " " + full["emb"] + stand_in.map({True: " (a stand-in)", False: ""})
    best = next((name for name in names if name.startswith("Graph2Tree R")), "Graph2Tree R")
    return _lead("the best model on SVAMP is Graph2Tree R (§5.3, Table 10)", f"Full Set: {best}",
                 _margin(paper, "graph2tree R"), _margin(dict(zip(names, full["ours"])), best))


def svamp(table11: pd.DataFrame, table15: pd.DataFrame, table10: pd.DataFrame, table13: pd.DataFrame,
          table14: pd.DataFrame, cv: pd.DataFrame) -> pd.DataFrame:
    """Notebook 04: without questions SVAMP falls far below ASDiv-A (Table 11); accuracy collapses beyond two
    numbers in the text, and SVAMP stays below ASDiv-A at every count (Table 15). A Table 15 cell of fewer than
    :data:`MIN_PROBLEMS` problems (`table15`'s ``n``) judges nothing. Then: Two-Op problems are far harder than
    One-Op ones (Table 10, its ``n`` gating the same way); every removal ablation moves accuracy the paper's way
    (Tables 13, 14); training on SVAMP too lifts SVAMP accuracy far (§5.3, `cv`: the SVAMP 5-fold table); and
    Graph2Tree R is the best model on SVAMP (Table 10). Tables 13–15 are judged on their first best model
    (`svamp_tables.first_best`)."""
    table13, table14, table15 = first_best(table13), first_best(table14), first_best(table15)
    def unpaired(finding: str, label: str, a: Cell, b: Cell) -> dict[str, Any]:
        return _unpaired(comparison(finding, label, a, b), a, b)

    def by_count(finding: str, label: str, a: Cell, b: Cell) -> dict[str, Any]:
        return _unpaired(_counted(comparison(finding, label, a, b), a, b), a, b)

    rows = [unpaired("without questions SVAMP falls far below ASDiv-A (Table 11)",
                     f"{k['model']} {k['emb']}: ASDiv-A − SVAMP, w/o questions"
                     + _stand_in(table11, {**k, "test set": "SVAMP w/o questions"}),
                     (table11, {**k, "test set": "ASDiv-A w/o questions"}),
                     (table11, {**k, "test set": "SVAMP w/o questions"}))
            for k in _distinct(table11, ["model", "emb"])]

    for dataset in ("ASDiv-A", "SVAMP"):
        rows += [by_count("accuracy collapses beyond two numbers (Table 15)",
                          f"{dataset}: 2 numbers − {n} numbers", (table15, {"dataset": dataset, "numbers": "2"}),
                          (table15, {"dataset": dataset, "numbers": n})) for n in ("3", "4")]
    rows += [by_count("SVAMP is harder than ASDiv-A at the same count (Table 15)",
                      f"{n} numbers: ASDiv-A − SVAMP", (table15, {"dataset": "ASDiv-A", "numbers": n}),
                      (table15, {"dataset": "SVAMP", "numbers": n})) for n in ("2", "3", "4")]
    rows += [by_count("Two-Op far below One-Op (Table 10)",
                      f"{k['model']} {k['emb']}: One-Op − Two-Op" + _stand_in(table10, {**k, "subset": "One-Op"}),
                      (table10, {**k, "subset": "One-Op"}), (table10, {**k, "subset": "Two-Op"}))
             for k in _distinct(table10, ["model", "emb"])]
    return _frame([*rows, *_ablations(table13, table14), *_svamp_cv(cv), _best_on_svamp(table10)])


def _within_interval(row: dict[str, Any], intervals: pd.DataFrame | None, **keys: Any) -> dict[str, Any]:
    """`row` with the 95 % bootstrap interval of its difference from `intervals` (the row matching `keys`): "within
    noise" instead of a verdict when the interval holds 0, else the verdict with the interval beside it."""
    found = _side_row(intervals, keys)
    if found.empty or row["holds"] not in ("yes", "no"):
        return row
    low, high = float(found["ci_low"].iloc[0]), float(found["ci_high"].iloc[0])
    interval = f"95 % interval {low:.3f} to {high:.3f}"
    return {**row, "holds": f"within noise ({interval})" if low <= 0 <= high else f"{row['holds']} ({interval})"}


def compositional(table2: pd.DataFrame, table3: pd.DataFrame, table4: pd.DataFrame, ladder: pd.DataFrame,
                  paired: pd.DataFrame | None = None, gaps: pd.DataFrame | None = None) -> pd.DataFrame:
    """Notebook 06 (Lan et al. 2022, §V-C, §V-D): every method loses from I.I.D. to ComDiv and from SD valid to
    SD test; GTS has the lowest Rel. Gap; DA helps, more on SD test than on ComDiv; structural compositions are
    harder than lexical
    ones; accuracy falls as DBCA^c rises; removing the ranker or either operation lowers DA's result. Table II's
    rows are keyed by ``method``, ``dataset``, ``split`` and ``run dataset`` (the SD rows from Math23K only).
    `paired` (`compositional.experiments.paired_tests`) gives the McNemar p of each +DA cell against its base (and
    against the base trained as many optimizer steps, :data:`EQUAL_STEPS`, a row of its own where recorded) and of
    each Table IV ablation against +DA: those findings hold only at p < :data:`SIGNIFICANCE`. `gaps`
    (`compositional.experiments.rel_gap_intervals`) gives a bootstrap interval of each Rel. Gap difference: a rank
    whose interval holds 0 is "within noise". A Table III part of fewer than :data:`MIN_PROBLEMS` test problems
    (proofreading leaves SD-zh few lexical ones) judges nothing."""
    zh = table2[table2["run dataset"].isin(["", "sd-zh"]) | ~table2["dataset"].eq("SD")]
    rows = []
    for k in _distinct(zh[zh["split"].isin(["ComDiv", "test"])], ["method", "dataset"]):
        first = "I.I.D." if k["dataset"] != "SD" else "valid"
        rows.append(comparison("every method loses on the compositional split (Table II)",
                               f"{k['method']} {k['dataset']}: {first} − {'ComDiv' if first == 'I.I.D.' else 'test'}",
                               (zh, {**k, "split": first}), (zh, {**k, "split": "ComDiv" if first == "I.I.D."
                                                                   else "test"})))
    rel_gaps = zh[zh["split"] == "Rel. Gap"]
    for k in _distinct(rel_gaps[rel_gaps["method"].isin(["LSTM", "Transformer", "MathEN"])], ["method", "dataset"]):
        if k["dataset"] != "SD":
            rows.append(_within_interval(
                comparison("GTS has the lowest Rel. Gap on Math23K and MAWPS (Table II)",
                           f"{k['dataset']}: Rel. Gap {k['method']} − GTS", (rel_gaps, k),
                           (rel_gaps, {**k, "method": "GTS"}), by_sign=True),  # a rank
                gaps, dataset=k["dataset"], a=k["method"]))
    for k in _distinct(zh[zh["method"].str.endswith("+DA") & zh["split"].isin(["ComDiv", "test"])],
                       ["method", "dataset", "split"]):
        base = k["method"].removesuffix("+DA")
        run_dataset = _cell_dataset(zh, k)
        helps = _significant(comparison("data augmentation helps (Table II)", f"{k['method']} − {base}: "
                                        f"{k['dataset']} {k['split']}", (zh, k), (zh, {**k, "method": base})),
                             paired, a=k["method"], b=base, **{"run dataset": run_dataset})
        rows.append(helps)
        equal = {"a": k["method"], "b": base + EQUAL_STEPS, "run dataset": run_dataset}
        if not (same_steps := _side_row(paired, equal)).empty:
            rows.append(_significant(_row("data augmentation helps at equal optimizer steps (our control, §V-D)",
                                          f"{k['method']} − {base} trained as many steps: {k['dataset']} "
                                          f"{k['split']}", helps["paper"], float(same_steps["a − b"].iloc[0]),
                                          sized=True), paired, **equal))
        if k["dataset"] == "SD":
            comdiv = zh[(zh["method"] == k["method"]) & (zh["split"] == "ComDiv")]
            for pool in comdiv["dataset"].drop_duplicates():
                gain = {column: (cell(zh, column, **k) - cell(zh, column, **{**k, "method": base}))
                        - (cell(zh, column, method=k["method"], dataset=pool, split="ComDiv")
                           - cell(zh, column, method=base, dataset=pool, split="ComDiv"))
                        for column in ("paper", "ours")}
                row = _row("DA helps most on SD (Table II)", f"{k['method']}: gain on SD test − gain on "
                           f"{pool} ComDiv", gain["paper"], gain["ours"], sized=True)
                if helps["holds"].startswith("within noise") and row["holds"] in ("yes", "no"):
                    row["holds"] = "within noise (the gain on SD test is)"  # the most of a gain that may be none
                rows.append(row)
    for k in _distinct(table3, ["method"]):
        lexical, structural = (table3, {**k, "part": "lexical"}), (table3, {**k, "part": "structural"})
        rows.append(_counted(comparison("structural compositions are harder than lexical ones (Table III)",
                                        f"{k['method']}: lexical − structural", lexical, structural),
                             lexical, structural))
    for dataset, part in ladder.groupby("dataset", sort=False) if len(ladder) else ():
        low, high = part.iloc[0], part.iloc[-1]
        rows.append(_row("accuracy falls as DBCA^c rises (Fig. 5a)",
                         f"{dataset}: accuracy at re-drawn DBCA^c {low['DBCA^c re-drawn']:.2f} − at "
                         f"{high['DBCA^c re-drawn']:.2f}",
                         float("nan"), low["accuracy"] - high["accuracy"]))
    for _, row in table4.iterrows() if len(table4) else ():
        full = table4[(table4["dataset"] == row["dataset"]) & (table4["variant"] == "+DA")]
        if row["variant"] != "+DA" and len(full):
            rows.append(_significant(_row("removing the ranker or an operation lowers +DA (Table IV)",
                                          f"{row['dataset']}: +DA − ({row['variant']})",
                                          full["paper (MathEN)"].iloc[0] - row["paper (MathEN)"],
                                          full["ours"].iloc[0] - row["ours"], sized=True),
                                     paired, a="+DA", b=row["variant"], **{"run dataset": row["run dataset"]}))
    return _frame(rows)


def _cell_dataset(table: pd.DataFrame, keys: Mapping[str, Any]) -> str:
    """The ``run dataset`` of the one row of `table` matching `keys` ("" when none does)."""
    rows = _matching(table, keys)
    return str(rows["run dataset"].iloc[0]) if len(rows) else ""


def counts(frame: pd.DataFrame) -> dict[str, int]:
    """How many comparisons of a findings table hold, how many hold in sign but fall short of the paper's size, and
    how many do not, as the notebooks record them (those within noise or not shown are none of these)."""
    return {"findings_held": int((frame["holds"] == "yes").sum()),
            "findings_smaller": int(frame["holds"].str.startswith("smaller").sum()),
            "findings_not_held": int((frame["holds"] == "no").sum())}
