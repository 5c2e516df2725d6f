"""Lan et al. 2022's findings (§V-C, §V-D), drawn again from notebook 07's tables. How each comparison is judged
(size, noise, intervals) is `mwplib.findings`.
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pandas as pd

from ..findings import (SIGNIFICANCE, cell, comparison, counted, detail_of, distinct, frame, matching, side_rows,
                        significant, unpaired, unpaired_comparison, verdict, within_interval)


#: How a base method trained as many optimizer steps as its +DA run is named in notebook 07's paired tests
#: ("GTS, equal steps", `compositional.grid.equal_steps_runs`).
EQUAL_STEPS = ", equal steps"


def compositional(table2: pd.DataFrame, table3: pd.DataFrame, table4: pd.DataFrame, ladder: pd.DataFrame,
                  paired: pd.DataFrame | None = None, gaps: pd.DataFrame | None = None,
                  gains: pd.DataFrame | None = None, parts: pd.DataFrame | None = None) -> pd.DataFrame:
    """Notebook 07 (Lan et al. 2022, §V-C, §V-D): every method loses from I.I.D. to ComDiv and from SD valid to
    SD test; GTS has the lowest Rel. Gap; DA helps, more on SD test than on ComDiv; structural compositions are
    harder than lexical ones, and DA helps them more; accuracy falls as DBCA^c rises; removing the ranker or either
    operation lowers DA's result. Table II's rows are keyed by ``method``, ``dataset``, ``split`` and ``run
    dataset`` (the SD rows from Math23K only).
    `paired` (`compositional.comparisons.paired_tests`) gives the McNemar p of each +DA cell against its base (and
    against the base trained as many optimizer steps, :data:`EQUAL_STEPS`, a row of its own where recorded) and of
    each Table IV ablation against +DA: those findings hold only at p < :data:`SIGNIFICANCE`. `gaps`
    (`compositional.comparisons.rel_gap_intervals`) gives a bootstrap interval of each Rel. Gap difference: a rank
    whose interval holds 0 is "within noise"; `gains` (`compositional.comparisons.da_gain_intervals`) one of each
    +DA gain on SD test minus its gain on a ComDiv, which "DA helps most on SD" needs the same way; and a "yes"
    there needs a gain on SD beyond noise too (else "within noise": the most of a gain that may be none; a loss on
    ComDiv alone would make the difference). `parts` (`compositional.comparisons.part_gain_intervals`) gives
    the interval of each +DA gain on SD's structural part minus its gain on the lexical part, which "DA benefits
    structural compositions more" needs. A Table III part of fewer
    than :data:`MIN_PROBLEMS` test problems (proofreading leaves SD-zh few lexical ones) judges nothing."""
    zh = table2[table2["run dataset"].isin(["", "sd-zh"]) | ~table2["dataset"].eq("SD")]
    rows = []
    for k in distinct(zh[zh["split"].isin(["ComDiv", "test"])], ["method", "dataset"]):
        first, second = ("I.I.D.", "ComDiv") if k["dataset"] != "SD" else ("valid", "test")
        a, b = (zh, {**k, "split": first}), (zh, {**k, "split": second})  # two test sets: Fisher's test
        rows.append(unpaired_comparison("every method loses on the compositional split (Table II)",
                                        f"{k['method']} {k['dataset']}: {first} − {second}", a, b))
    rel_gaps = zh[zh["split"] == "Rel. Gap"]
    for k in distinct(rel_gaps[rel_gaps["method"].isin(["LSTM", "Transformer", "MathEN"])], ["method", "dataset"]):
        if k["dataset"] != "SD":
            rows.append(within_interval(
                comparison("GTS has the lowest Rel. Gap on Math23K and MAWPS (Table II)",
                           f"{k['dataset']}: Rel. Gap {k['method']} − GTS", (rel_gaps, k),
                           (rel_gaps, {**k, "method": "GTS"}), by_sign=True),  # a rank
                gaps, dataset=k["dataset"], a=k["method"]))
    for k in distinct(zh[zh["method"].str.endswith("+DA") & zh["split"].isin(["ComDiv", "test"])],
                      ["method", "dataset", "split"]):
        base = k["method"].removesuffix("+DA")
        run_dataset = _cell_dataset(zh, k)
        helps = significant(comparison("data augmentation helps (Table II)", f"{k['method']} − {base}: "
                                       f"{k['dataset']} {k['split']}", (zh, k), (zh, {**k, "method": base})),
                            paired, a=k["method"], b=base, **{"run dataset": run_dataset})
        rows.append(helps)
        equal = {"a": k["method"], "b": base + EQUAL_STEPS, "run dataset": run_dataset}
        if not (same_steps := side_rows(paired, equal)).empty:
            rows.append(significant(verdict("data augmentation helps at equal optimizer steps (our control, §V-D)",
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
                row = verdict("DA helps most on SD (Table II)", f"{k['method']}: gain on SD test − gain on "
                              f"{pool} ComDiv", gain["paper"], gain["ours"], sized=True)
                interval = {"method": k["method"], "run dataset": run_dataset, "pool": pool}
                if not side_rows(gains, interval).empty:  # two gains on two test sets: the interval tests them
                    row = within_interval(row, gains, **interval)
                if helps["holds"].startswith("within noise") and row["holds"] == "yes":
                    # the most of a gain that may be none: say whose noise, with its own test
                    row["holds"] = f"within noise (the SD test gain itself: {detail_of(helps['holds'])})"
                rows.append(row)
    for k in distinct(table3, ["method"]):
        lexical, structural = (table3, {**k, "part": "lexical"}), (table3, {**k, "part": "structural"})
        rows.append(unpaired_comparison("structural compositions are harder than lexical ones (Table III)",
                                        f"{k['method']}: lexical − structural", lexical, structural, gated=True))
    for k in distinct(table3[table3["method"].str.endswith("+DA")], ["method"]):
        base = k["method"].removesuffix("+DA")
        gain = {column: sum(sign * (cell(table3, column, **k, part=part) - cell(table3, column, method=base, part=part))
                            for sign, part in ((1, "structural"), (-1, "lexical")))
                for column in ("paper", "ours")}
        row = counted(verdict("DA benefits structural compositions more than lexical ones (Table III, §V-D)",
                              f"{k['method']}: gain on structural − gain on lexical", gain["paper"], gain["ours"],
                              sized=True), (table3, {**k, "part": "lexical"}), (table3, {**k, "part": "structural"}))
        row = within_interval(row, parts, method=k["method"])  # two parts of one test set: an interval
        found = side_rows(parts, {"method": k["method"]})
        if row["holds"] == "yes" and not found.empty:  # a loss on lexical alone must not make it
            gain, p = found["structural gain"].iloc[0], found["structural McNemar p"].iloc[0]
            if p >= SIGNIFICANCE:
                row["holds"] = f"within noise (the structural gain itself: McNemar p = {p:.2f})"
            elif gain < 0:
                row["holds"] = "no (DA lowers structural)"
        rows.append(row)
    for dataset, part in ladder.groupby("dataset", sort=False) if len(ladder) else ():
        ends = part.iloc[[0, -1]]
        low, high = ((ladder, {"dataset": dataset, "split": split}) for split in ends["split"])
        divergence, accuracy = ends["DBCA^c re-drawn"].tolist(), ends["accuracy"].tolist()
        rows.append(unpaired(verdict("accuracy falls as DBCA^c rises (Fig. 5a)",
                                     f"{dataset}: accuracy at re-drawn DBCA^c {divergence[0]:.2f} − at "
                                     f"{divergence[1]:.2f}", float("nan"), accuracy[0] - accuracy[1]),
                             low, high, column="accuracy"))  # two test sets: Fisher's test
    for _, row in table4.iterrows() if len(table4) else ():
        full = table4[(table4["dataset"] == row["dataset"]) & (table4["variant"] == "+DA")]
        if row["variant"] != "+DA" and len(full):
            rows.append(significant(verdict("removing the ranker or an operation lowers +DA (Table IV)",
                                            f"{row['dataset']}: +DA − ({row['variant']})",
                                            full["paper (MathEN)"].iloc[0] - row["paper (MathEN)"],
                                            full["ours"].iloc[0] - row["ours"], sized=True),
                                    paired, a="+DA", b=row["variant"], **{"run dataset": row["run dataset"]}))
    return frame(rows)


def _cell_dataset(table: pd.DataFrame, keys: Mapping[str, Any]) -> str:
    """The ``run dataset`` of the one row of `table` matching `keys` ("" when none does)."""
    rows = matching(table, keys)
    return str(rows["run dataset"].iloc[0]) if len(rows) else ""
