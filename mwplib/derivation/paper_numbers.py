"""Upadhyay & Chang 2017's published numbers ("Annotating Derivations: A New Evaluation Strategy and Dataset for
Algebra Word Problems"), in one place: notebook 06's tables print them beside ours (`experiments`), so each value is
typed, and checked against the paper, once.
"""
from __future__ import annotations

#: Table 2: ambiguity (%), vocabulary (printed in thousands: 2.21k), templates before and after reconciliation,
#: and "% reduction", as printed (rounded there).
PAPER_TABLE2 = {"draw": (21, 2210, 329, 224, 32), "alg514": (23, 1830, 30, 24, 20),
                "dolphin": (35, 330, 273, 203, 25)}
PAPER_TABLE3 = {("alg514", "TE"): (76.2, 72.7, 75.5), ("alg514", "TD"): (78.4, 73.9, 77.8),
                ("draw", "TE"): (52.0, 48.0, 48.0), ("draw", "TD"): (55.0, 48.0, 53.0),
                ("dolphin", "TE"): (55.1, 50.1, 44.2), ("dolphin", "TD"): (57.5, 36.8, 54.9)}
PAPER_TABLE4 = {("alg514", "TE"): (32.5, 31.5, 29.5), ("alg514", "TE*"): (60.5, 56.0, 54.0),
                ("alg514", "TD"): (62.0, 53.0, 59.5), ("dolphin", "TE"): (41.0, 37.5, 37.5),
                ("dolphin", "TE*"): (58.5, 55.5, 51.5), ("dolphin", "TD"): (60.0, 53.0, 58.0)}
PAPER_TABLE5 = {"alg514": (76.2, 68.7, 79.7, "ZDC"), "dolphin": (55.1, 37.5, 46.3, "SWLLR"),
                "draw": (52.0, 43.2, None, None)}

