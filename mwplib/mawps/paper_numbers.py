"""The MAWPS paper's published numbers (Koncel-Kedziorski et al. 2016, "MAWPS: A Math Word Problem Repository"),
in one place: notebook 00 prints them beside our overlaps (`mwplib.mawps.overlap`).
"""
from __future__ import annotations

# MAWPS Table 1's numbers did not survive text extraction; only these prose claims (§5) remain.
PAPER_CLAIMS: dict[tuple[str | None, str], tuple[float, str]] = {
    (None, "lexical overlap of D (%)"): (7.0, "prose: 'most datasets having overlap value of around 7%'"),
    (None, "lexical overlap reduction (%)"): (20.0, "prose: 'around 20% reduction in most cases'"),
    ("SingleOp", "template overlap reduction (%)"): (2.8, "prose: 'ranging from 2.8% for SingleOp'"),
}
NOT_REPRODUCIBLE = {
    "SimulEq-S": "not reproduced: the MAWPS SimulEq-S export is not public (ALG-514 is its basis)",
    "SimulEq-L": "not reproduced: no public copy; paper prose: template-overlap reduction 97%",
    "grammatical (ERG)": "not reproduced: needs the English Resource Grammar (ERG) parser",
}
PAPER_ONLY = {("SimulEq-L", "template overlap reduction (%)"): 97.0}
