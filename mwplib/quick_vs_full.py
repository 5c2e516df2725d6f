"""Every finding under `quick` beside `full`: does the laptop profile point the paper's way where `full` does?

`quick` is designed as the smallest experiment that still shows each claim (docs/lab-notes/quick-profile.md), so its
findings tables must agree with `full`'s in sign. This module reads both profiles' committed findings tables
(`results/tables/<profile>/NN_findings.csv`, written by the notebooks' "What holds here" cells), sets them side by
side, each with its evidence (a noise test's p or a 95 % interval), and reduces each verdict to its sign: "yes" and
"smaller" both point the claim's way, "no" does not, "within noise" and "not shown" leave it open, and "no result"
means the profile does not run that cell. A row where both
profiles judge and they disagree is either listed in :data:`CANNOT_SHOW`, with the reason one `quick` run cannot
settle it, or is a regression of `quick` (`tests/test_quick_vs_full.py` fails on it).

    python -m mwplib.quick_vs_full        # rewrite results/tables/quick_vs_full_findings.md (run_all.sh does too)
"""
from __future__ import annotations

import re
from pathlib import Path

import pandas as pd

from . import paths
from .findings import INTERVAL
from .outputs import p_value
from .profiles import PROFILES, CompositionalPlan

#: Rows that both profiles judge where `quick` cannot settle the sign, keyed by (notebook, comparison), with why.
#: None since every two-accuracy finding carries a noise test: a `quick` tie (06's DRAW-1K + DOLPHIN-L TD − TE*,
#: 2 perceptron epochs) now reads "within noise", an open verdict, not a "no".
CANNOT_SHOW: dict[tuple[str, str], str] = {}


def not_like_for_like() -> dict[str, str]:
    """By notebook, where the two profiles' plans give different data beyond epochs and folds (notebook 07: the
    ComDiv split, the SD build, the +DA protocol), said under the table's count: those rows compare different
    things."""
    quick, full = (PROFILES[name].compositional for name in ("quick", "full"))
    differ = [f"{what}: quick {mine}, full {theirs}" for what, mine, theirs in (
        ("ComDiv split", f"`{quick.comdiv}`", f"`{full.comdiv}`"),
        ("SD", quick.sd_build, full.sd_build),
        ("+DA", _protocol(quick), _protocol(full))) if mine != theirs]
    return {"07": "; ".join(differ) + " (their rows compare different data)"} if differ else {}


def _protocol(plan: CompositionalPlan) -> str:
    operations = " and ".join(map(str, plan.da_operations))
    return f"operation{'s' if len(plan.da_operations) > 1 else ''} {operations}" + (
        f", shared evidence ≥ {plan.da_min_shared}" if plan.da_min_shared else "")


VERDICTS = {"yes": "holds", "smaller": "holds", "no": "fails", "within noise": "open", "not shown": "open",
            "no result": "missing"}
#: Where run_all.sh writes the table, under the results' tables folder.
NAME = "quick_vs_full_findings.md"


def verdict(holds: str) -> str:
    """A findings row's ``holds`` reduced to its sign: holds, fails, open or missing."""
    word = re.sub(r"\s*\(.*", "", str(holds)).strip()
    if word not in VERDICTS:
        raise ValueError(f"unknown verdict {holds!r}; expected one of {sorted(VERDICTS)}, with or without a '(…)'")
    return VERDICTS[word]


def agreement(quick: str, full: str) -> str:
    """"yes" when both profiles judge alike, "no" when they judge differently, "open" when one leaves the sign
    open, and "" when one of them does not run the cell."""
    signs = {verdict(quick), verdict(full)}
    if "missing" in signs:
        return ""
    if "open" in signs:
        return "open"
    return "yes" if len(signs) == 1 else "no"


def evidence(findings: pd.DataFrame) -> pd.Series:
    """Each row of a findings table's evidence as one text: "p = 0.62" from its ``p`` column, else its
    :data:`findings.INTERVAL` ("0.286 to 0.971"), else ""."""
    none = pd.Series(float("nan"), index=findings.index)
    p = pd.to_numeric(findings.get("p", none), errors="coerce")
    interval = findings.get(INTERVAL, none).astype(object).fillna("").astype(str)
    return pd.Series([f"p = {p_value(x)}" if not pd.isna(x) else i for x, i in zip(p, interval)], index=findings.index,
                     dtype=object)


def beside(notebook: str, quick: pd.DataFrame, full: pd.DataFrame) -> pd.DataFrame:
    """One notebook's findings, `quick` beside `full`, rows in `full`'s order then those only `quick` has."""
    quick, full = (side.assign(evidence=evidence(side)) for side in (quick, full))
    rows = full.merge(quick, on=["finding", "comparison"], how="outer", suffixes=(" full", " quick"), sort=False)
    rows = rows.fillna({"holds full": "no result", "holds quick": "no result", "evidence full": "",
                        "evidence quick": ""})
    rows.insert(0, "notebook", notebook)
    rows["paper"] = rows["paper full"].combine_first(rows["paper quick"])
    rows["agree"] = [agreement(q, f) for q, f in zip(rows["holds quick"], rows["holds full"])]
    rows["why quick cannot show it"] = [CANNOT_SHOW.get((notebook, c), "") for c in rows["comparison"]]
    return rows[["notebook", "finding", "comparison", "paper", "ours full", "holds full", "evidence full", "ours quick",
                 "holds quick", "evidence quick", "agree", "why quick cannot show it"]]


def table(root: Path) -> pd.DataFrame:
    """Every notebook whose findings both profiles have committed under `root`, quick beside full (empty if none)."""
    frames = [beside(path.name[:2], pd.read_csv(path), pd.read_csv(root / "full" / path.name))
              for path in sorted((root / "quick").glob("*_findings.csv")) if (root / "full" / path.name).exists()]
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()


def markdown(frame: pd.DataFrame) -> str:
    """The table with a count of each agreement on top."""
    counted = frame["agree"].replace("", "not both run").value_counts()
    head = ", ".join(f"{counted.get(k, 0)} {k}" for k in ("yes", "no", "open", "not both run"))
    differ = "".join(f"- notebook {notebook}: {why}\n" for notebook, why in not_like_for_like().items()
                     if notebook in set(frame["notebook"]))
    return (f"Findings under `quick` beside `full` (agree: {head}; `python -m mwplib.quick_vs_full`)\n\n"
            + (f"Not like for like:\n{differ}\n" if differ else "")
            + frame.to_markdown(index=False, floatfmt=".2f") + "\n")


def write(root: Path | None = None) -> Path | None:
    """Rewrite ROOT/quick_vs_full_findings.md (ROOT: results/tables) from both profiles' findings; None when
    they have none in common to set side by side."""
    root = root or paths.RESULTS / "tables"
    frame = table(root)
    if frame.empty:
        return None
    (root / NAME).write_text(markdown(frame))
    return root / NAME


if __name__ == "__main__":
    print(write())
