"""Solution, equation and derivation accuracy of one predicted derivation (§4.1). Used by notebook 06."""
from __future__ import annotations

from typing import Iterable, Sequence

from mwplib.derivation.derivations import Derivation, first_equation_derivation, gold_derivation
from mwplib.derivation.equivalence import derivations_equivalent
from mwplib.derivation.solve import Solution
from mwplib.problem import Problem

METRICS = ("solution", "equation", "derivation")
REL_TOL = 1e-4  # the release stores solutions rounded to ~11 significant digits


def solution_correct(predicted: Solution, reference: Sequence[float]) -> bool:
    """Every reference value appears in the predicted solution, order ignored (Kushman et al. 2014);
    matched as multisets, so one predicted value cannot stand for two reference values."""
    if not predicted.unique:
        return False
    remaining = [float(v) for v in predicted.values]
    for ref in reference:
        hit = next((i for i, v in enumerate(remaining) if abs(v - ref) <= REL_TOL * max(1.0, abs(ref))), None)
        if hit is None:
            return False
        remaining.pop(hit)
    return True


def score(problem: Problem, predicted: Derivation | None) -> dict[str, bool]:
    """The three metrics: derivation accuracy against the annotated derivation (with EquivTNum);
    equation accuracy against the first derivation reproducing the gold equations (no annotations)."""
    if predicted is None:
        return dict.fromkeys(METRICS, False)
    return {
        "solution": solution_correct(predicted.solution(problem), problem.meta["solutions"]),
        "equation": derivations_equivalent(predicted, first_equation_derivation(problem)),
        "derivation": derivations_equivalent(predicted, gold_derivation(problem), problem.meta["equiv"]),
    }


def inconsistent_gold(problems: Iterable[Problem]) -> list[str]:
    """Ids whose annotated derivation does not reproduce the released solution (annotation errors;
    listed in notebook 06, kept in the data)."""
    return [p.id for p in problems if not solution_correct(gold_derivation(p).solution(p), p.meta["solutions"])]
