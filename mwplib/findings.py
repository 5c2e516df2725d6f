"""The papers' findings, drawn again from our tables (the "What holds here" cells of notebooks 01–04 and 06).

The paper states each finding by comparing two of its numbers (§4.1, §4.2, §5.2). We make the same comparison
on the same cells of our tables, written as a difference the claim says is positive, with the paper's difference
beside ours. ``holds`` judges the sign only; the sizes stay in view, so the reader judges "barely" or "far".
A comparison missing one of our cells (a run not made or not evaluated) says "no result", not a verdict; one
against a fixed share whose accuracy lies within the 95 % interval of its test size says "within noise", and one
on a cell of fewer than :data:`MIN_PROBLEMS` problems "not shown".
"""
from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import pandas as pd

#: "A large fraction" (§1, of question-removed problems) and "the majority" (§1, §4.2, of the bag-of-words
#: model's), read as over half, in %.
MAJORITY = 50.0

#: Fewest test problems a table cell needs to enter a finding: below it one problem moves the cell by over 5
#: points (Table 15's "4 numbers" cell of one ASDiv-A fold holds 5).
MIN_PROBLEMS = 20
#: The normal quantile of a two-sided 95 % interval.
Z95 = 1.96

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


def _row(finding: str, label: str, paper: float, ours: float) -> dict[str, Any]:
    holds = "no result" if pd.isna(ours) else "yes" if ours > 0 else "no"
    return {"finding": finding, "comparison": label, "paper": paper, "ours": ours, "holds": holds}


def comparison(finding: str, label: str, a: Cell, b: Cell) -> dict[str, Any]:
    """One row: a − b from the ``paper`` and the ``ours`` columns (a float side is a fixed reference)."""
    return _row(finding, label, _value(a, "paper") - _value(b, "paper"), _value(a, "ours") - _value(b, "ours"))


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


def _frame(rows: list[dict[str, Any]]) -> pd.DataFrame:
    return pd.DataFrame(rows, columns=["finding", "comparison", "paper", "ours", "holds"])


def _distinct(table: pd.DataFrame, keys: list[str]) -> list[dict[str, Any]]:
    """The distinct values of `keys` in `table`, in table order."""
    return table[keys].drop_duplicates().to_dict("records")


def easy_share(without: float, easy: float, hard: float) -> float:
    """The share (%) of a model's correct answers that are Easy problems, from its accuracy without the question
    (the Easy part's size, Table 3) and its accuracy on the Easy and Hard parts (Table 4)."""
    solved_easy = without * easy if without else 0.0  # an empty part has no accuracy (NaN) and adds nothing
    solved_hard = (100 - without) * hard if without < 100 else 0.0
    solved = solved_easy + solved_hard
    return 100 * solved_easy / solved if solved else float("nan")


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
    """A row from a paired comparison on the same folds (`baselines.pretraining_effect`): "yes"/"no" only when its
    95 % interval leaves out 0, "within noise" otherwise."""
    rows = _matching(effect, keys)
    if rows.empty:  # a side not run, or no fold run with both
        return _row(finding, label, paper, float("nan"))
    found = rows.iloc[0]
    low, high = (float(x) for x in found["95 % interval"].strip("[]").split(","))
    row = _row(finding, f"{label}, paired on {found['folds']} fold(s)", paper, float(found["R − S"]))
    if low <= 0 <= high:
        row["holds"] = f"within noise (95 % interval {found['95 % interval']})"
    return row


def baselines(table2: pd.DataFrame, table16: pd.DataFrame, majority: pd.DataFrame, effect: pd.DataFrame
              ) -> pd.DataFrame:
    """Notebook 01: pretrained embeddings beat scratch ones for every model (Tables 2, 16), GTS and Graph2Tree beat
    Seq2Seq (Table 2), and every model beats the Majority Template Baseline by far (§3.2). Tables 2 and 16 have
    rows by ``model``, ``embedding``, ``dataset``; `majority` one row per ``dataset``; R − S is read from
    `effect` (`baselines.pretraining_effect`: R and S on the same folds and test problems, with its interval), since
    the tables may pool R and S over different folds."""
    keys = ["model", "embedding", "dataset"]
    table2 = pd.concat([table2, table16], ignore_index=True)
    pretrained = [e for e in table2["embedding"].drop_duplicates() if e != "S"]
    rows = [_paired("R beats S for every model (Tables 2, 16)", f"{k['model']} {k['dataset']}: {r} − S",
                    _value((table2, {**k, "embedding": r}), "paper") - _value((table2, {**k, "embedding": "S"}),
                                                                               "paper"), effect, k)
            for k in _distinct(table2, ["model", "dataset"]) for r in pretrained]
    rows += [comparison("GTS and Graph2Tree beat Seq2Seq (Table 2)", f"{k['embedding']} {k['dataset']}: {m} − seq2seq",
                        (table2, {**k, "model": m}), (table2, {**k, "model": "seq2seq"}))
             for k in _distinct(table2, ["embedding", "dataset"]) for m in ("gts", "graph2tree")]
    rows += [comparison("every model beats the Majority Template Baseline (§3.2)",
                        f"{k['model']} {k['embedding']} {k['dataset']}: model − majority template", (table2, k),
                        (majority, {"dataset": k["dataset"]})) for k in _distinct(table2, keys)]
    return _frame(rows)


def bag_of_words(table5: pd.DataFrame, table12: pd.DataFrame) -> pd.DataFrame:
    """Notebook 03: an order-blind model solves over half of MAWPS (Table 5), far fewer of SVAMP's, where it is
    only a little better than the Majority Template Baseline (Table 12)."""
    baseline = (table12, {"model": "Majority Template Baseline"})
    rows = []
    for k in _distinct(table12[table12["emb"] != ""], ["model", "emb"]):
        mawps = (table5, {**k, "dataset": "mawps"})
        rows += [_beyond_noise(comparison("an order-blind model solves over half of MAWPS (Table 5)",
                                          f"{k['emb']}: MAWPS − {MAJORITY:g} %", mawps, MAJORITY), mawps),
                 comparison("it solves far fewer SVAMP problems (Tables 5, 12)", f"{k['emb']}: MAWPS − SVAMP", mawps,
                            (table12, k)),
                 comparison("on SVAMP it beats the majority template, marginally (Table 12)",
                            f"{k['emb']}: SVAMP − majority template", (table12, k), baseline)]
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


def svamp(table11: pd.DataFrame, table15: pd.DataFrame) -> pd.DataFrame:
    """Notebook 04: without questions SVAMP falls far below ASDiv-A (Table 11); accuracy collapses beyond two
    numbers in the text, and SVAMP stays below ASDiv-A at every count (Table 15). A Table 15 cell of fewer than
    :data:`MIN_PROBLEMS` problems (`table15`'s ``n``) judges nothing."""
    rows = [comparison("without questions SVAMP falls far below ASDiv-A (Table 11)",
                       f"{k['model']} {k['emb']}: ASDiv-A − SVAMP, w/o questions"
                       + _stand_in(table11, {**k, "test set": "SVAMP w/o questions"}),
                       (table11, {**k, "test set": "ASDiv-A w/o questions"}),
                       (table11, {**k, "test set": "SVAMP w/o questions"}))
            for k in _distinct(table11, ["model", "emb"])]
    def by_count(finding: str, label: str, a: Cell, b: Cell) -> dict[str, Any]:
        return _counted(comparison(finding, label, a, b), a, b)

    for dataset in ("ASDiv-A", "SVAMP"):
        rows += [by_count("accuracy collapses beyond two numbers (Table 15)",
                          f"{dataset}: 2 numbers − {n} numbers", (table15, {"dataset": dataset, "numbers": "2"}),
                          (table15, {"dataset": dataset, "numbers": n})) for n in ("3", "4")]
    rows += [by_count("SVAMP is harder than ASDiv-A at the same count (Table 15)",
                      f"{n} numbers: ASDiv-A − SVAMP", (table15, {"dataset": "ASDiv-A", "numbers": n}),
                      (table15, {"dataset": "SVAMP", "numbers": n})) for n in ("2", "3", "4")]
    return _frame(rows)


def compositional(table2: pd.DataFrame, table3: pd.DataFrame, table4: pd.DataFrame, ladder: pd.DataFrame
                  ) -> pd.DataFrame:
    """Notebook 06 (Lan et al. 2022, §V-C, §V-D): every method loses from I.I.D. to ComDiv and from SD valid to
    SD test; GTS has the lowest Rel. Gap; DA helps, more on SD test than on ComDiv; structural compositions are
    harder than lexical
    ones; accuracy falls as DBCA^c rises; removing the ranker or either operation lowers DA's result. Table II's
    rows are keyed by ``method``, ``dataset``, ``split`` and ``run dataset`` (the SD rows from Math23K only)."""
    zh = table2[table2["run dataset"].isin(["", "sd-zh"]) | ~table2["dataset"].eq("SD")]
    rows = []
    for k in _distinct(zh[zh["split"].isin(["ComDiv", "test"])], ["method", "dataset"]):
        first = "I.I.D." if k["dataset"] != "SD" else "valid"
        rows.append(comparison("every method loses on the compositional split (Table II)",
                               f"{k['method']} {k['dataset']}: {first} − {'ComDiv' if first == 'I.I.D.' else 'test'}",
                               (zh, {**k, "split": first}), (zh, {**k, "split": "ComDiv" if first == "I.I.D."
                                                                   else "test"})))
    gaps = zh[zh["split"] == "Rel. Gap"]
    for k in _distinct(gaps[gaps["method"].isin(["LSTM", "Transformer", "MathEN"])], ["method", "dataset"]):
        if k["dataset"] != "SD":
            rows.append(comparison("GTS has the lowest Rel. Gap on Math23K and MAWPS (Table II)",
                                   f"{k['dataset']}: Rel. Gap {k['method']} − GTS", (gaps, k),
                                   (gaps, {**k, "method": "GTS"})))
    for k in _distinct(zh[zh["method"].str.endswith("+DA") & zh["split"].isin(["ComDiv", "test"])],
                       ["method", "dataset", "split"]):
        base = k["method"].removesuffix("+DA")
        rows.append(comparison("data augmentation helps (Table II)", f"{k['method']} − {base}: {k['dataset']} "
                               f"{k['split']}", (zh, k), (zh, {**k, "method": base})))
        if k["dataset"] == "SD":
            comdiv = zh[(zh["method"] == k["method"]) & (zh["split"] == "ComDiv")]
            for pool in comdiv["dataset"].drop_duplicates():
                gain = {column: (cell(zh, column, **k) - cell(zh, column, **{**k, "method": base}))
                        - (cell(zh, column, method=k["method"], dataset=pool, split="ComDiv")
                           - cell(zh, column, method=base, dataset=pool, split="ComDiv"))
                        for column in ("paper", "ours")}
                rows.append(_row("DA helps most on SD (Table II)", f"{k['method']}: gain on SD test − gain on "
                                 f"{pool} ComDiv", gain["paper"], gain["ours"]))
    for k in _distinct(table3, ["method"]):
        rows.append(comparison("structural compositions are harder than lexical ones (Table III)",
                               f"{k['method']}: lexical − structural", (table3, {**k, "part": "lexical"}),
                               (table3, {**k, "part": "structural"})))
    for dataset, part in ladder.groupby("dataset", sort=False) if len(ladder) else ():
        low, high = part.iloc[0], part.iloc[-1]
        rows.append(_row("accuracy falls as DBCA^c rises (Fig. 5a)",
                         f"{dataset}: accuracy at DBCA^c {low['DBCA^c']:.2f} − at {high['DBCA^c']:.2f}",
                         float("nan"), low["accuracy"] - high["accuracy"]))
    for _, row in table4.iterrows() if len(table4) else ():
        full = table4[(table4["dataset"] == row["dataset"]) & (table4["variant"] == "+DA")]
        if row["variant"] != "+DA" and len(full):
            rows.append(_row("removing the ranker or an operation lowers +DA (Table IV)",
                             f"{row['dataset']}: +DA − ({row['variant']})",
                             full["paper (MathEN)"].iloc[0] - row["paper (MathEN)"], full["ours"].iloc[0] - row["ours"]))
    return _frame(rows)


def counts(frame: pd.DataFrame) -> dict[str, int]:
    """How many comparisons of a findings table hold and how many do not, as the notebooks record them (those
    within noise or not shown are neither)."""
    return {"findings_held": int((frame["holds"] == "yes").sum()),
            "findings_not_held": int((frame["holds"] == "no").sum())}
