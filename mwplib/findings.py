"""How a paper's finding is judged against our tables: the verdict logic every notebook's "What holds here" cell
uses (each paper's claims are its folder's `findings`: `mwplib.svamp.findings`, `mwplib.compositional.findings`,
`mwplib.derivation.experiments`).

A paper states each finding by comparing two of its numbers. We make the same comparison
on the same cells of our tables, written as a difference the claim says is positive, with the paper's difference
beside ours. ``holds`` is "yes" when ours is positive (the claim's way) and, for a difference of two measured cells
where the paper's is positive, at least :data:`SIZE` of the paper's: an effect of a third of the paper's says
"smaller (0.33 of the paper's)", neither held nor not. A difference from a fixed share ("over half are solved"), a
rank ("the best model", "the lowest gap"), a direction ("in the paper's direction") or "marginally" is judged by its
sign, since the claim is about the share, the order or the direction, not the paper's margin.
A comparison missing one of our cells (a run not made or not evaluated) says "no result", not a verdict; one
on a cell of fewer than :data:`MIN_PROBLEMS` problems "not shown". A verdict on an accuracy stands beside its
evidence, in one of two columns:

- ``p``: the p of a noise test (`mwplib.significance`, two significant digits), for a difference of two
  accuracies: McNemar's where both sides scored the same problems (two runs, or two metrics of one run), Fisher's
  where they scored different ones (two test sets, two parts of one); an exact binomial test for a count split
  two ways against half (the Easy among the correct answers). The row reads "within noise" at
  p ≥ :data:`SIGNIFICANCE`, its bracket naming the test and its sizes.
- ``95 % interval`` (:data:`INTERVAL`): "low to high", a 95 % interval of our difference itself, in the units of
  the ``ours`` column, so a verdict stands where it excludes 0 and "within noise" where it holds 0: a bootstrap
  interval over test problems for a difference that is no plain accuracy (a Rel. Gap, a difference of gains;
  :func:`within_interval`, three decimals), or an accuracy's binomial (normal) interval on its test size moved
  onto its difference from a fixed share (:func:`beyond_noise`, two decimals, like ``ours``).

Either column is empty on a row without that evidence, and absent from a table where no row has it.
"""
from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import pandas as pd

from .outputs import p_value
from .significance import unpaired_difference

#: The share of the paper's difference ours must reach for a two-cell finding to hold in size ("holds" means the
#: paper's effect is there, not only its sign); below it the verdict says "smaller" and gives the ratio.
SIZE = 0.5

#: The largest exact McNemar p-value at which a difference of two runs on one test set counts as a difference
#: (`significance.paired_difference`): above it the verdict reads "within noise", whatever its size.
SIGNIFICANCE = 0.05

#: Fewest test problems a table cell needs to enter a finding: below it one problem moves the cell by over 5
#: points (Table 15's "4 numbers" cell of one ASDiv-A fold holds 5).
MIN_PROBLEMS = 20
#: The normal quantile of a two-sided 95 % interval.
Z95 = 1.96
#: The evidence column of a finding judged by an interval of its difference (see the module's docstring).
INTERVAL = "95 % interval"


Cell = tuple[pd.DataFrame, Mapping[str, Any]] | float


def matching(table: pd.DataFrame, keys: Mapping[str, Any]) -> pd.DataFrame:
    """The rows of `table` whose key columns equal `keys`."""
    for key, value in keys.items():
        table = table[table[key] == value]
    return table


def cell(table: pd.DataFrame, column: str, **keys: Any) -> float:
    """The value of `column` in the one row of `table` whose key columns equal `keys`; NaN when no row does."""
    rows = matching(table, keys)
    if len(rows) > 1:
        raise ValueError(f"{len(rows)} rows of the table match {keys}: a finding compares single cells")
    value = rows[column].iloc[0] if len(rows) else None
    return float("nan") if pd.isna(value) else float(value)


def cell_value(side: Cell, column: str) -> float:
    return side if isinstance(side, float) else cell(side[0], column, **side[1])


def verdict(finding: str, label: str, paper: float, ours: float, sized: bool = False) -> dict[str, Any]:
    """A verdict on the sign of ours; with `sized`, :func:`frame` then asks for the paper's size too (:data:`SIZE`)."""
    holds = "no result" if pd.isna(ours) else "yes" if ours > 0 else "no"
    return {"finding": finding, "comparison": label, "paper": paper, "ours": ours, "holds": holds, "sized": sized}


def comparison(finding: str, label: str, a: Cell, b: Cell, by_sign: bool = False) -> dict[str, Any]:
    """One row: a − b from the ``paper`` and the ``ours`` columns. Two cells are judged by size too, unless
    `by_sign` (a claim of rank, direction or "marginally": see the module's docstring); a float side is a fixed
    reference, judged by sign."""
    return verdict(finding, label, cell_value(a, "paper") - cell_value(b, "paper"), cell_value(a, "ours") - cell_value(b, "ours"),
                   sized=not by_sign and not isinstance(b, float))


def verdict_of(holds: str) -> str:
    """The verdict of a ``holds`` text without what follows it in brackets: "within noise (McNemar p = 0.50,
    n = 100)" is "within noise", "smaller (0.33 of the paper's)" is "smaller"."""
    return holds.split(" (", 1)[0]


def detail_of(holds: str) -> str:
    """What a ``holds`` text says in its brackets: "McNemar p = 0.50, n = 100" of "within noise (McNemar p = 0.50,
    n = 100)"; the whole text where it has none."""
    _, _, detail = holds.partition(" (")
    return detail[:-1] if detail.endswith(")") else holds


def _in_size(row: dict[str, Any]) -> dict[str, Any]:
    """`row` without its ``sized`` flag, judged "smaller" instead of "yes" when it is sized, the paper's difference
    is positive and ours is under :data:`SIZE` of it. Verdicts of noise, spread or cell size came first and stay."""
    row = dict(row)
    sized = row.pop("sized", False)
    if sized and row["holds"] == "yes" and row["paper"] > 0 and row["ours"] < SIZE * row["paper"]:
        row["holds"] = f"smaller ({row['ours'] / row['paper']:.2f} of the paper's)"
    return row


def counted(row: dict[str, Any], *sides: Cell) -> dict[str, Any]:
    """`row`, judged "not shown" instead when a side's ``n`` column (its test problems) is below
    :data:`MIN_PROBLEMS`."""
    n = min(cell_value(side, "n") for side in sides)
    if row["holds"] != "no result" and n < MIN_PROBLEMS:
        row["holds"] = f"not shown (n = {n:g} < {MIN_PROBLEMS})"
    return row


def _span(low: float, high: float, digits: int) -> str:
    """An interval as the :data:`INTERVAL` column writes it: "low to high"."""
    return f"{low:.{digits}f} to {high:.{digits}f}"


def beyond_noise(row: dict[str, Any], side: Cell) -> dict[str, Any]:
    """`row` (an accuracy minus a fixed share) with the 95 % binomial interval of an accuracy on the side's ``n``
    test problems around its difference (the :data:`INTERVAL` column), judged "within noise" instead when that
    interval holds 0: one fold cannot tell the accuracy from the share."""
    if isinstance(side, float) or "n" not in side[0].columns:
        return row
    accuracy, n = cell_value(side, "ours"), cell_value(side, "n")
    if row["holds"] not in ("yes", "no") or not n > 0:
        return row
    half_width = 100 * Z95 * math.sqrt(accuracy / 100 * (1 - accuracy / 100) / n)
    row = {**row, INTERVAL: _span(row["ours"] - half_width, row["ours"] + half_width, 2)}
    if abs(row["ours"]) < half_width:
        row["holds"] = f"within noise (n = {n:g})"
    return row


def side_rows(table: pd.DataFrame | None, keys: Mapping[str, Any]) -> pd.DataFrame:
    """The rows of a side table (paired tests, intervals) whose key columns equal `keys`; none without a table."""
    return matching(table, keys) if table is not None and len(table) else pd.DataFrame()


def tested(row: dict[str, Any], p: float, test: str) -> dict[str, Any]:
    """`row` with the p-value of its noise test (`test` names it and its sizes), judged "within noise" instead of
    a verdict when p ≥ :data:`SIGNIFICANCE`."""
    row = {**row, "p": p_value(p)}
    if row["holds"] in ("yes", "no") and p >= SIGNIFICANCE:
        row["holds"] = f"within noise ({test.format(p=f'{p:.2f}')})"
    return row


def significant(row: dict[str, Any], paired: pd.DataFrame | None, column: str = "McNemar p", **keys: Any
                ) -> dict[str, Any]:
    """`row` (two runs on one test set) with its McNemar p-value from `paired` (`column` of the row of `paired`
    whose key columns equal `keys`, a number or its text), judged "within noise" instead of a verdict when
    p ≥ :data:`SIGNIFICANCE`."""
    found = side_rows(paired, keys)
    p = found[column].iloc[0] if len(found) and column in found.columns else None
    if p is None or pd.isna(p) or p == "":  # no paired test: a side not run
        return row
    return tested(row, float(p), f"McNemar p = {{p}}, n = {int(found['n'].iloc[0])}")


def unpaired(row: dict[str, Any], a: Cell, b: Cell, column: str = "ours") -> dict[str, Any]:
    """`row` (accuracy a − accuracy b on different problems: two test sets, or two parts of one) with Fisher's exact
    p of the two shares (`column` of each side, in %), each side's size from its table's ``n`` column; "within
    noise" when p ≥ :data:`SIGNIFICANCE`. A side without ``n`` (or a verdict of no result, or not shown) is left as
    it is."""
    sides = [(cell_value(side, column), cell_value(side, "n")) for side in (a, b)
             if not isinstance(side, float) and "n" in side[0].columns]
    if len(sides) < 2 or row["holds"] not in ("yes", "no") or not min(n for _, n in sides) > 0:
        return row
    (rate_a, n_a), (rate_b, n_b) = sides
    test = unpaired_difference(round(rate_a * n_a / 100), int(n_a), round(rate_b * n_b / 100), int(n_b))
    return tested(row, test["fisher_p"], f"Fisher p = {{p}}, n = {n_a:g} and {n_b:g}")


def unpaired_comparison(finding: str, label: str, a: Cell, b: Cell, gated: bool = False) -> dict[str, Any]:
    """A `comparison` of two accuracies on different problems, tested by Fisher's exact test (:func:`unpaired`); with
    `gated`, "not shown" first where a side has under :data:`MIN_PROBLEMS` problems (:func:`counted`)."""
    row = comparison(finding, label, a, b)
    return unpaired(counted(row, a, b) if gated else row, a, b)

def frame(rows: list[dict[str, Any]]) -> pd.DataFrame:
    """The findings table; an evidence column, ``p`` (a noise test's p-value, two significant digits) or
    :data:`INTERVAL`, where any row has one, empty where a row has none."""
    evidence = [column for column in ("p", INTERVAL) if any(column in row for row in rows)]
    rows = [{**dict.fromkeys(evidence, ""), **row} for row in rows]
    columns = ["finding", "comparison", "paper", "ours", "holds", *evidence]
    return pd.DataFrame([_in_size(row) for row in rows], columns=columns)


def distinct(table: pd.DataFrame, keys: list[str]) -> list[dict[str, Any]]:
    """The distinct values of `keys` in `table`, in table order."""
    return table[keys].drop_duplicates().to_dict("records")


def margin(values: Mapping[str, float], best: str) -> tuple[float, str]:
    """How far `best` leads the highest of the other `values` (NaN ones left out), and which that runner-up is:
    a claim that one model is best compares it with whichever model comes next, on each side."""
    others = {name: value for name, value in values.items() if name != best and not pd.isna(value)}
    if not others:
        return float("nan"), "none"
    runner_up = max(others, key=others.__getitem__)
    return float(values.get(best, float("nan"))) - others[runner_up], runner_up


def lead(finding: str, label: str, paper: tuple[float, str], ours: tuple[float, str]) -> dict[str, Any]:
    """A row from the :func:`margin` of each side, naming its runner-up (one name where both sides agree)."""
    against = paper[1] if paper[1] == ours[1] else f"paper: {paper[1]}; ours: {ours[1]}"
    return verdict(finding, f"{label} − best other ({against})", paper[0], ours[0])


def within_spread(row: dict[str, Any], spread: pd.DataFrame | None, *cells: Mapping[str, Any]) -> dict[str, Any]:
    """`row`, judged "within seed spread" instead when its difference is no larger than the widest spread over seeds
    of its cells (`svamp.model_tables.seed_spread`: max − min accuracy of one fold trained with several seeds). The
    difference is pooled over the folds run and the spread is one fold's, so this reads the seed noise of a fold as
    a bound on a pooled gap: a rough guard, said as such."""
    if spread is None or spread.empty or row["holds"] not in ("yes", "no"):
        return row
    found = [part for k in cells if not (part := matching(spread, k)).empty]
    if found:
        widest = max((part.loc[part["spread"].idxmax()] for part in found), key=lambda r: r["spread"])
        if abs(row["ours"]) <= widest["spread"]:
            row["holds"] = (f"within seed spread ({widest['spread']:.1f} points over {int(widest['seeds'])} seeds, "
                            f"{widest['model']} fold {int(widest['fold'])})")
    return row


def within_interval(row: dict[str, Any], intervals: pd.DataFrame | None, **keys: Any) -> dict[str, Any]:
    """`row` with the 95 % bootstrap interval of its difference from `intervals` (the row matching `keys`) in the
    :data:`INTERVAL` column: "within noise" instead of a verdict when the interval holds 0."""
    found = side_rows(intervals, keys)
    if found.empty or row["holds"] not in ("yes", "no"):
        return row
    low, high = float(found["ci_low"].iloc[0]), float(found["ci_high"].iloc[0])
    return {**row, "holds": "within noise" if low <= 0 <= high else row["holds"], INTERVAL: _span(low, high, 3)}


#: the verdicts a findings table gives, in the order :func:`summary` lists them
VERDICTS = ("yes", "smaller", "within noise", "no", "not shown", "no result")


def summary(frame: pd.DataFrame) -> pd.DataFrame:
    """One row per finding of a findings table, in its order: how many of its comparisons read each verdict
    (:data:`VERDICTS`; the brackets after a verdict dropped), so a reader sees at a glance what held."""
    verdicts = frame.assign(verdict=frame["holds"].map(verdict_of))
    if unknown := sorted(set(verdicts["verdict"]) - set(VERDICTS)):
        raise ValueError(f"a findings row reads {unknown[0]!r}, not one of {VERDICTS}")
    table = pd.crosstab(pd.Categorical(verdicts["finding"], categories=list(dict.fromkeys(frame["finding"]))),
                        pd.Categorical(verdicts["verdict"], categories=VERDICTS), dropna=False)
    return table.rename_axis(index="finding", columns=None).reset_index()


def counts(frame: pd.DataFrame) -> dict[str, int]:
    """How many comparisons of a findings table hold, how many hold in sign but fall short of the paper's size, and
    how many do not, as the notebooks record them (those within noise or not shown are none of these)."""
    verdicts = frame["holds"].map(verdict_of)
    return {"findings_held": int((verdicts == "yes").sum()), "findings_smaller": int((verdicts == "smaller").sum()),
            "findings_not_held": int((verdicts == "no").sum())}
