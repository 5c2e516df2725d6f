"""Distribution-based compositional assessment (DBCA; Keysers et al. 2020, as Lan et al. 2022 §III-A use it).

The α values are Lan et al.'s (§V-A: 0.1 for atoms, 0.5 for compounds). Keysers et al. chose the other way round
(0.5 for atoms; 0.1 for compounds, so that a test compound counts as soon as training lacks it), and so does the
NQG code Lan et al. cite; the paper may have swapped them, but its text is what is reproduced here.

Two data sets are compared through the frequency distributions P (train) and Q (test) of their atoms or
compounds: ``DBCA = 1 − C_α(P‖Q)`` with the Chernoff coefficient ``C_α(P‖Q) = Σ_i p_i^α q_i^(1−α)``. A small α
(0.1 for atoms) makes the coefficient close to "is every test atom seen in training at all", so atom
divergence stays low while training covers the test's atoms; α = 0.5 (compounds) weighs both sides
equally (the Bhattacharyya coefficient).
"""
from __future__ import annotations

from typing import Mapping

#: α of the atom divergence and of the compound divergence (Lan et al. §V-A, after Keysers et al.)
ATOM_ALPHA = 0.1
COMPOUND_ALPHA = 0.5
#: (atoms, compounds) as Keysers et al. and the code Lan et al. cite choose them; Table I prints both conventions
KEYSERS_ALPHAS = (0.5, 0.1)
#: Table I's two conventions by name, each (atoms, compounds)
CONVENTIONS = {"paper": (ATOM_ALPHA, COMPOUND_ALPHA), "Keysers": KEYSERS_ALPHAS}


def chernoff_coefficient(p: Mapping[str, float], q: Mapping[str, float], alpha: float) -> float:
    """``Σ_i p_i^α q_i^(1−α)`` over two frequency maps (normalised here), in [0, 1]."""
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must lie strictly between 0 and 1, got {alpha}")
    total_p, total_q = sum(p.values()), sum(q.values())
    if total_p <= 0 or total_q <= 0:
        raise ValueError("a distribution is empty (no atoms or compounds on one side)")
    return sum((count / total_p) ** alpha * (q[key] / total_q) ** (1 - alpha)
               for key, count in p.items() if count > 0 and q.get(key, 0) > 0)


def divergence(train: Mapping[str, float], test: Mapping[str, float], alpha: float) -> float:
    """``1 − C_α(P‖Q)``: 0 for identical distributions, 1 for disjoint ones."""
    return 1.0 - chernoff_coefficient(train, test, alpha)
