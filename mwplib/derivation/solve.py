"""`Solve`: exact Gaussian elimination over the rationals (the paper's Solve routine, §2).

Exact arithmetic matters: TEMPLEQUIV declares two templates equivalent when their solutions are *equal*
on random inputs, which floating point cannot promise. Singular systems are reported, not guessed.
Used by notebook 06.
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Mapping, Sequence

from mwplib.derivation.templates import Template

UNIQUE, NONE, INFINITE = "unique", "none", "infinite"


@dataclass(frozen=True)
class Solution:
    """`status` is one of UNIQUE / NONE (inconsistent) / INFINITE (under-determined); `values` is set
    only for UNIQUE, in the order of the template's unknowns."""

    status: str
    values: tuple[Fraction, ...] = ()

    @property
    def unique(self) -> bool:
        return self.status == UNIQUE


def solve_linear(matrix: Sequence[Sequence[Fraction]], rhs: Sequence[Fraction]) -> Solution:
    """Solve ``matrix · u = rhs`` exactly (any number of equations and unknowns)."""
    rows = [list(map(Fraction, row)) + [Fraction(b)] for row, b in zip(matrix, rhs)]
    n_unknowns = len(matrix[0]) if matrix else 0
    pivot_cols: list[int] = []
    r = 0
    for col in range(n_unknowns):
        pivot = next((i for i in range(r, len(rows)) if rows[i][col] != 0), None)
        if pivot is None:
            continue
        rows[r], rows[pivot] = rows[pivot], rows[r]
        lead = rows[r][col]
        rows[r] = [v / lead for v in rows[r]]
        for i in range(len(rows)):
            if i != r and rows[i][col] != 0:
                factor = rows[i][col]
                rows[i] = [a - factor * b for a, b in zip(rows[i], rows[r])]
        pivot_cols.append(col)
        r += 1
    if any(all(v == 0 for v in row[:-1]) and row[-1] != 0 for row in rows[r:]):
        return Solution(NONE)
    if r < n_unknowns:
        return Solution(INFINITE)
    values = [Fraction(0)] * n_unknowns
    for i, col in enumerate(pivot_cols):
        values[col] = rows[i][-1]
    return Solution(UNIQUE, tuple(values))


def solve(template: Template, values: Mapping[str, Fraction]) -> Solution:
    """Ground `template` with slot `values` and solve it (a division by zero has no solution)."""
    try:
        matrix, rhs = template.ground(values)
    except ZeroDivisionError:
        return Solution(NONE)
    return solve_linear(matrix, rhs)
