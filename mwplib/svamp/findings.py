"""SVAMP's findings (Patel et al. 2021, §4.1, §4.2, §5.2), drawn again from our tables: the "What holds here" cells
of notebooks 00–03 and 05. How each comparison is judged (size, noise, spread) is `mwplib.findings`.
"""
from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import pandas as pd

from ..findings import (Cell, beyond_noise, cell, cell_value, comparison, distinct, frame, lead, margin, matching,
                        significant, tested, unpaired_comparison, verdict, within_spread)
from ..significance import sign_test
from .model_tables import MAJORITY as MAJORITY_TEMPLATE
from .paper_numbers import PAPER_SVAMP_CV, PAPER_TABLE10
from .robustness_tables import REMOVED_VS_REST, VS_MAJORITY, WITHOUT_SVAMP, WITH_VS_WITHOUT, first_best


#: "A large fraction" (§1, of question-removed problems) and "the majority" (§1, §4.2, of the bag-of-words
#: model's), read as over half, in %.
MAJORITY = 50.0

#: The largest attention weight on one token that counts as attending "to a single word" (§4.2 gives no number).
ONE_HOT = 0.9

#: "Similar" average operators per problem (§5.2, Table 9): SVAMP's and ASDiv-A's differ by less than this (the
#: paper's by 0.01, MAWPS's from either by over 0.5).
SAME_OPERATORS = 0.1


def easy_share(without: float, easy: float, hard: float) -> float:
    """The share (%) of a model's correct answers that are Easy problems, from its accuracy without the question
    (the Easy part's size, Table 3) and its accuracy on the Easy and Hard parts (Table 4)."""
    solved_easy = without * easy if without else 0.0  # an empty part has no accuracy (NaN) and adds nothing
    solved_hard = (100 - without) * hard if without < 100 else 0.0
    solved = solved_easy + solved_hard
    return 100 * solved_easy / solved if solved else float("nan")


def _split_tested(row: dict[str, Any], yes: float, no: float) -> dict[str, Any]:
    """`row` (the share of `yes` among `yes` + `no` counted things, minus 50 %) with the exact binomial p of that
    split against half (`significance.sign_test`; a count rebuilt from an accuracy is rounded): "within noise" at
    p ≥ `findings.SIGNIFICANCE`. Left as it is without counts (a cell not run)."""
    if pd.isna(yes) or pd.isna(no) or not yes + no > 0:
        return row
    yes, no = round(yes), round(no)
    return tested(row, sign_test(yes, no), f"binomial p = {{p}}, n = {yes + no}")


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
        return abs(cell_value(side(a, statistic), column) - cell_value(side(b, statistic), column))

    rows = []
    for statistic, claim, name in (("n_templates", "templates", "templates"),
                                   ("avg_operators", "operators per problem", "average operators")):
        rows += [comparison(f"SVAMP and ASDiv-A have considerably fewer {claim} than MAWPS (§5.2, Table 9)",
                            f"{name}: MAWPS − {dataset}", side("MAWPS", statistic), side(dataset, statistic))
                 for dataset in ("SVAMP", "ASDiv-A")]
    nearer = {c: pd.Series([gap("MAWPS", d, "n_templates", c) for d in ("SVAMP", "ASDiv-A")]).min(skipna=False)
              for c in ("paper", "ours")}  # a missing cell leaves no gap, not the other one
    rows += [verdict("SVAMP's and ASDiv-A's template counts are similar (§5.2, Table 9)",
                     "templates: min(|MAWPS − SVAMP|, |MAWPS − ASDiv-A|) − |SVAMP − ASDiv-A|",
                     *(nearer[c] - gap("SVAMP", "ASDiv-A", "n_templates", c) for c in ("paper", "ours"))),
             verdict("SVAMP has about as many operators per problem as ASDiv-A (§5.2, Table 9)",
                     f"average operators: {SAME_OPERATORS:g} − |SVAMP − ASDiv-A|",
                     *(SAME_OPERATORS - gap("SVAMP", "ASDiv-A", "avg_operators", c) for c in ("paper", "ours")))]
    rows += [comparison("SVAMP has a lower CLD than ASDiv-A (§5.2) and MAWPS (Table 9)", f"CLD: {dataset} − SVAMP",
                        side(dataset, "cld"), side("SVAMP", "cld")) for dataset in ("ASDiv-A", "MAWPS")]
    return frame(rows)


def question_removal(table3: pd.DataFrame, table4: pd.DataFrame) -> pd.DataFrame:
    """Notebook 02: over half the problems are solved without their question (Table 3), and "the bulk of their
    success is due to the Easy problems" (§4.1, Table 4): over half of a model's correct answers are Easy ones.
    `table4` has an ``n`` column (our Easy and Hard sizes); the paper's Easy share takes its size from Table 3. Our
    Easy share is tested by the exact binomial test of the Easy among our correct answers against half, each part's
    correct count rebuilt from its accuracy and ``n`` (as `findings.unpaired` does)."""
    rows = [beyond_noise(comparison("over half the problems are solved without their question (Table 3)",
                                    f"{k['model']} {k['emb']} {k['dataset']}: w/o question − {MAJORITY:g} %"
                                    + _beyond(table3, k), (table3, k), MAJORITY), (table3, k))
            for k in distinct(table3, ["model", "emb", "dataset"])]
    for k in distinct(table4, ["model", "emb", "dataset"]):
        n_easy, n_hard = cell(table4, "n", **k, part="Easy"), cell(table4, "n", **k, part="Hard")
        without = {"paper": cell(table3, "paper", **k),  # ours: the Easy part's size, from the same folds
                   "ours": 100 * n_easy / (n_easy + n_hard) if n_easy + n_hard else float("nan")}
        share = {column: easy_share(without[column], cell(table4, column, **k, part="Easy"),
                                    cell(table4, column, **k, part="Hard")) for column in ("paper", "ours")}
        easy, hard = (cell(table4, "ours", **k, part=part) * n / 100 if n > 0 else 0.0  # correct answers
                      for part, n in (("Easy", n_easy), ("Hard", n_hard)))
        row = verdict("the bulk of the correct answers are Easy problems (Tables 3, 4)",
                      f"{k['model']} {k['emb']} {k['dataset']}: Easy share of correct − {MAJORITY:g} %"
                      + _beyond(table3, k), share["paper"] - MAJORITY, share["ours"] - MAJORITY)
        rows.append(_split_tested(row, easy, hard))
    return frame(rows)


def _beyond(table: pd.DataFrame, keys: Mapping[str, Any]) -> str:
    """" (beyond the paper)" for a cell the paper does not print (its Tables 3 and 11 test the R models only): the
    claim is the paper's, the row is ours, judged by sign with no paper size to hold it to, and a "no" there does
    not contradict the paper."""
    return " (beyond the paper)" if math.isnan(cell(table, "paper", **keys)) else ""


def _paired(finding: str, label: str, paper: float, effect: pd.DataFrame, keys: Mapping[str, Any]
            ) -> dict[str, Any]:
    """A row from a paired comparison on the same folds (`model_tables.pretraining_effect`): "yes"/"no" only when
    McNemar's test on its test problems gives p < :data:`SIGNIFICANCE`, "within noise" otherwise."""
    rows = matching(effect, keys)
    if rows.empty:  # a side not run, or no fold run with both
        return verdict(finding, label, paper, float("nan"))
    found = rows.iloc[0]
    row = verdict(finding, f"{label}, paired on {found['folds']} fold(s)", paper, float(found["R − S"]), sized=True)
    return tested(row, float(found["McNemar p"]), f"McNemar p = {{p}}, n = {int(found['n'])}")


def baselines(table2: pd.DataFrame, table16: pd.DataFrame, majority: pd.DataFrame, effect: pd.DataFrame,
              spread: pd.DataFrame | None = None, paired: pd.DataFrame | None = None,
              pairs: pd.DataFrame | None = None) -> pd.DataFrame:
    """Notebook 01: pretrained embeddings beat scratch ones for every model (Tables 2, 16), GTS and Graph2Tree beat
    Seq2Seq (Table 2), every model beats the Majority Template Baseline by far (§3.2), and "Graph2Tree with RoBERTa
    embeddings achieves the state-of-the-art for both datasets" (§3.2, Table 2: Table 16's Transformer is not in
    it). Tables 2 and 16 have rows by ``model``, ``embedding``, ``dataset``; `majority` one row per ``dataset``;
    R − S is read from `effect` (`model_tables.pretraining_effect`: R and S on the same folds and test problems, with
    McNemar's p), since the tables may pool R and S over different folds. With `spread` (`model_tables.seed_spread`),
    a model-against-model difference no larger than its cells' seed spread says so; with `paired`
    (`model_tables.model_effect`), one whose McNemar p is :data:`SIGNIFICANCE` or more reads "within noise"; `pairs`
    (`model_tables.paired_tests`) tests the same way a model against the majority template and the best model
    against the runner-up."""
    keys = ["model", "embedding", "dataset"]
    both = pd.concat([table2, table16], ignore_index=True)
    pretrained = [e for e in both["embedding"].drop_duplicates() if e != "S"]
    rows = [_paired("R beats S for every model (Tables 2, 16)", f"{k['model']} {k['dataset']}: {r} − S",
                    cell_value((both, {**k, "embedding": r}), "paper") - cell_value((both, {**k, "embedding": "S"}),
                                                                                    "paper"), effect, k)
            for k in distinct(both, ["model", "dataset"]) for r in pretrained]
    rows += [significant(within_spread(comparison("GTS and Graph2Tree beat Seq2Seq (Table 2)",
                                                  f"{k['embedding']} {k['dataset']}: {m} − seq2seq",
                                                  (both, {**k, "model": m}), (both, {**k, "model": "seq2seq"})),
                                       spread, {**k, "model": m}, {**k, "model": "seq2seq"}),
                         paired, **{**k, "model": m})
             for k in distinct(both, ["embedding", "dataset"]) for m in ("gts", "graph2tree")]
    rows += [significant(comparison("every model beats the Majority Template Baseline (§3.2)",
                                    f"{k['model']} {k['embedding']} {k['dataset']}: model − majority template",
                                    (both, k), (majority, {"dataset": k["dataset"]})),
                         pairs, a=f"{k['model']} {k['embedding']}", b=MAJORITY_TEMPLATE, dataset=k["dataset"])
             for k in distinct(both, keys)]
    for dataset, part in table2.groupby("dataset", sort=False):
        names = part["model"] + " " + part["embedding"]
        for r in pretrained:
            best = f"graph2tree {r}"
            paper, ours = (margin(dict(zip(names, part[c])), best) for c in ("paper", "ours"))
            rows.append(significant(lead("the best model on each dataset is Graph2Tree R (Table 2)",
                                         f"{dataset}: {best}", paper, ours),
                                    pairs, a=best, b=ours[1], dataset=dataset))
    return frame(rows)


def _same_top_word(examples: pd.DataFrame) -> tuple[int, int]:
    """How many of the example pairs (``…a``/``…b`` ids) whose gold equation differs at the slot level keep the
    same top word in both, and how many such pairs there are (`attention.pair_statistics`): only where the edit
    changed the equation does keeping the word show a shortcut."""
    by_id = examples.set_index("id")
    pairs = [(a, a[:-1] + "b") for a in by_id.index if a.endswith("a") and a[:-1] + "b" in by_id.index]
    changed = [(a, b) for a, b in pairs if by_id.at[a, "gold slots"] != by_id.at[b, "gold slots"]]
    same = sum(by_id.at[a, "our top word"] == by_id.at[b, "our top word"] for a, b in changed)
    return same, len(changed)


def bag_of_words(table5: pd.DataFrame, table12: pd.DataFrame, weights: pd.DataFrame, examples: pd.DataFrame
                 ) -> pd.DataFrame:
    """Notebook 03: an order-blind model solves over half of MAWPS (Table 5), far fewer of SVAMP's, where it is
    only a little better than the Majority Template Baseline (Table 12); it "usually attends to a single word"
    (§4.2): the median largest attention weight (`weights`, `attention.weight_table`) is near one, a
    threshold the paper does not give; and in each pair of Tables 6/26 (`examples`,
    `attention.recorded_examples`) it keeps that word when an edit changes the equation, as in every
    pair the paper shows (100 %): a share of a few pairs, tested against half by the exact binomial test."""
    baseline = (table12, {"model": "Majority Template Baseline"})
    rows = []
    for k in distinct(table12[table12["emb"] != ""], ["model", "emb"]):
        mawps = (table5, {**k, "dataset": "mawps"})
        rows += [beyond_noise(comparison("an order-blind model solves over half of MAWPS (Table 5)",
                                         f"{k['emb']}: MAWPS − {MAJORITY:g} %", mawps, MAJORITY), mawps),
                 unpaired_comparison("it solves far fewer SVAMP problems (Tables 5, 12)",
                                     f"{k['emb']}: MAWPS − SVAMP", mawps, (table12, k)),
                 significant(comparison("on SVAMP it beats the majority template, marginally (Table 12)",
                                        f"{k['emb']}: SVAMP − majority template", (table12, k), baseline,
                                        by_sign=True), table12, VS_MAJORITY, **k)]
    rows += [verdict("the constrained model's attention is near one-hot (§4.2, Table 6)",
                     f"{k['emb']} {k['dataset']}: median largest attention weight − {ONE_HOT:g} (paper: no number)",
                     float("nan"), cell(weights, "median", **k) - ONE_HOT) for k in distinct(weights, ["emb", "dataset"])]
    for emb, part in examples.groupby("emb", sort=False):
        same, pairs = _same_top_word(part)
        share = 100 * same / pairs if pairs else float("nan")
        row = verdict("the same word wins in each Table 6 pair (§4.2, Tables 6, 26)",
                      f"{emb}: % of the {pairs} pairs whose equation changes with the same top word − {MAJORITY:g} %",
                      100 - MAJORITY, share - MAJORITY)
        rows.append(_split_tested(row, same, pairs - same))
    return frame(rows)


def _stand_in(table: pd.DataFrame, keys: Mapping[str, Any]) -> str:
    """" (SVAMP side: trained with precision=bf16, a stand-in)" when the cell's ``note`` says its run is a
    `runs.STAND_IN` (`runs.stand_in_note`), "" otherwise: a finding must not pass a stand-in off as the setting."""
    if "note" not in table.columns:
        return ""
    rows = matching(table, keys)
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
            row = verdict("every removal ablation changes accuracy in the paper's direction (Tables 13, 14)", label,
                          abs(change["paper"]), sign * change["ours"])  # a direction
            p = change.get(REMOVED_VS_REST, "")
            rows.append(row if pd.isna(p) or p == "" else
                        tested(row, float(p), "Fisher p = {p}, the removed problems against the rest"))
    return rows


def _svamp_cv(cv: pd.DataFrame) -> list[dict[str, Any]]:
    """§5.3: what four SVAMP folds in the training data add on the same test problems (`cv`,
    `robustness_tables.svamp_cv_table`). The paper's "about 65 %" is its best model's, against 43.8 % for its best
    trained without SVAMP (Graph2Tree R, Table 10); a row the table gives no paper value to has none."""
    finding = "SVAMP 5-fold accuracy is far above the no-SVAMP training's (§5.3)"
    without = PAPER_TABLE10["graph2tree"]["Full Set"][1]
    label = "5-fold with SVAMP − trained without, same problems"
    if cv.empty:  # the experiment was not run
        return [verdict(finding, f"no 5-fold run: {label}", PAPER_SVAMP_CV - without, float("nan"))]
    rows = []
    for k in distinct(cv, ["model", "emb"]):
        paper = cell(cv, "paper", **k)
        ours = cell(cv, "ours", **k) - (cell(cv, WITHOUT_SVAMP, **k) if WITHOUT_SVAMP in cv.columns else float("nan"))
        rows.append(significant(verdict(finding, f"{k['model']} {k['emb']}, {cell(cv, 'folds', **k):g} fold(s): "
                                        f"{label}" + ("" if pd.isna(paper) else
                                                      f" (paper: {paper:g} − Graph2Tree R's {without:g})"),
                                        paper - without, ours, sized=True),
                                cv if WITH_VS_WITHOUT in cv.columns else None, WITH_VS_WITHOUT, **k))
    return rows


#: How `_best_on_svamp` marks a stand-in cell's name; `robustness_tables.table10_paired_tests` names it without.
STAND_IN_SUFFIX = " (a stand-in)"


def _best_on_svamp(table10: pd.DataFrame, pairs: pd.DataFrame | None = None) -> dict[str, Any]:
    """"The best performing Graph2Tree model" (§5.3): Graph2Tree R's Full Set accuracy against the next model's,
    the paper's from all of Tables 10/18 (`table10` may hold S rows only), ours from `table10`. Both are runs on
    SVAMP's one test set: with `pairs` (`robustness_tables.table10_paired_tests`, keyed by the names without
    :data:`STAND_IN_SUFFIX`) the lead is "yes"/"no" only at McNemar p < :data:`SIGNIFICANCE`, else "within noise"."""
    paper = {f"{model} {emb}": values["Full Set"][i] for model, values in PAPER_TABLE10.items()
             for i, emb in enumerate("SR")}
    full = table10[table10["subset"] == "Full Set"]
    stand_in = full.get("note", pd.Series("", index=full.index)).astype(str).str.contains("stand-in")
    names = full["model"] + " " + full["emb"] + stand_in.map({True: STAND_IN_SUFFIX, False: ""})
    best = next((name for name in names if name.startswith("Graph2Tree R")), "Graph2Tree R")
    ours = margin(dict(zip(names, full["ours"])), best)
    row = lead("the best model on SVAMP is Graph2Tree R (§5.3, Table 10)", f"Full Set: {best}",
               margin(paper, "graph2tree R"), ours)
    return significant(row, pairs, a=best.removesuffix(STAND_IN_SUFFIX), b=ours[1].removesuffix(STAND_IN_SUFFIX))


def svamp(table11: pd.DataFrame, table15: pd.DataFrame, table10: pd.DataFrame, table13: pd.DataFrame,
          table14: pd.DataFrame, cv: pd.DataFrame, pairs: pd.DataFrame | None = None) -> pd.DataFrame:
    """Notebook 05: without questions SVAMP falls far below ASDiv-A (Table 11); accuracy collapses beyond two
    numbers in the text, and SVAMP stays below ASDiv-A at every count (Table 15). A Table 15 cell of fewer than
    :data:`MIN_PROBLEMS` problems (`table15`'s ``n``) judges nothing. Then: Two-Op problems are far harder than
    One-Op ones (Table 10, its ``n`` gating the same way); every removal ablation moves accuracy the paper's way
    (Tables 13, 14); training on SVAMP too lifts SVAMP accuracy far (§5.3, `cv`: the SVAMP 5-fold table); and
    Graph2Tree R is the best model on SVAMP (Table 10), a lead tested by McNemar's p against the runner-up where
    `pairs` (`robustness_tables.table10_paired_tests`) is given. Tables 13–15 are judged on their first best model
    (`robustness_tables.first_best`)."""
    table13, table14, table15 = first_best(table13), first_best(table14), first_best(table15)
    rows = [unpaired_comparison("without questions SVAMP falls far below ASDiv-A (Table 11)",
                                f"{k['model']} {k['emb']}: ASDiv-A − SVAMP, w/o questions"
                                + _stand_in(table11, {**k, "test set": "SVAMP w/o questions"})
                                + _beyond(table11, {**k, "test set": "SVAMP w/o questions"}),
                                (table11, {**k, "test set": "ASDiv-A w/o questions"}),
                                (table11, {**k, "test set": "SVAMP w/o questions"}))
            for k in distinct(table11, ["model", "emb"])]

    for dataset in ("ASDiv-A", "SVAMP"):
        rows += [unpaired_comparison("accuracy collapses beyond two numbers (Table 15)",
                                     f"{dataset}: 2 numbers − {n} numbers", (table15, {"dataset": dataset, "numbers": "2"}),
                                     (table15, {"dataset": dataset, "numbers": n}), gated=True) for n in ("3", "4")]
    rows += [unpaired_comparison("SVAMP is harder than ASDiv-A at the same count (Table 15)",
                                 f"{n} numbers: ASDiv-A − SVAMP", (table15, {"dataset": "ASDiv-A", "numbers": n}),
                                 (table15, {"dataset": "SVAMP", "numbers": n}), gated=True) for n in ("2", "3", "4")]
    rows += [unpaired_comparison("Two-Op far below One-Op (Table 10)",
                                 f"{k['model']} {k['emb']}: One-Op − Two-Op" + _stand_in(table10, {**k, "subset": "One-Op"}),
                                 (table10, {**k, "subset": "One-Op"}), (table10, {**k, "subset": "Two-Op"}), gated=True)
             for k in distinct(table10, ["model", "emb"])]
    return frame([*rows, *_ablations(table13, table14), *_svamp_cv(cv), _best_on_svamp(table10, pairs)])
