"""Derivations z = (T, A): a template plus an alignment of its slots to textual numbers (by position).

`gold_derivation` reads the human annotation (what TD trains on and derivation accuracy compares with);
`first_equation_derivation` aligns the annotated template from the gold equations' values alone (Kushman
et al.'s "first match") — the reference that TE trains on and equation accuracy uses; `induced_derivation`
also induces the template from the equations, as before annotation (Table 2's "before", Table 4's naive
TE). Used by notebook 06.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from typing import Mapping

from mwplib.derivation.datasets import NumberToken, Position
from mwplib.derivation.solve import Solution, solve
from mwplib.derivation.templates import Template, TemplateError, parse_template
from mwplib.problem import Problem


@dataclass(frozen=True)
class Derivation:
    """z = (T, A); numbers are identified by position, so two equal values are different numbers."""

    template: Template
    alignment: Mapping[str, Position]  # slot -> position of the textual number

    def values(self, problem: Problem) -> dict[str, Fraction]:
        """Slot values under this alignment (the grounded coefficients)."""
        by_position = quantities_by_position(problem)
        return {slot: by_position[pos].value for slot, pos in self.alignment.items()}

    def solution(self, problem: Problem) -> Solution:
        return solve(self.template, self.values(problem))

    def render(self, problem: Problem) -> str:
        """Equations with slots shown as ``q<k>(<token>)``, k = 1-based index in Q(x) (as in §5.3)."""
        index = {q.position: k for k, q in enumerate(problem.meta["quantities"], 1)}
        tokens = quantities_by_position(problem)
        return self.template.render({s: f"q{index[p]}({tokens[p].token})" for s, p in self.alignment.items()})


@lru_cache(maxsize=None)
def template_of(equations: tuple[str, ...]) -> Template:
    """Parsed template, cached by its equation strings (each distinct template is parsed once)."""
    return parse_template(equations)


def quantities_by_position(problem: Problem) -> dict[Position, NumberToken]:
    return {q.position: q for q in problem.meta["quantities"]}


def gold_derivation(problem: Problem) -> Derivation:
    """The annotated derivation; raises ValueError naming the record if a slot is unaligned."""
    template = template_of(problem.meta["template"])
    alignment = dict(problem.meta["alignment"])
    if set(alignment) != set(template.slots):
        raise ValueError(f"{problem.source}: alignment slots {sorted(alignment)} != template slots "
                         f"{list(template.slots)}")
    return Derivation(template, alignment)


def first_equation_derivation(problem: Problem) -> Derivation:
    """The approximate reference derivation (TE supervision, equation accuracy): the gold template with
    each slot aligned to the first textual number carrying the gold equations' value for it.

    Like Kushman et al.'s first match it may reuse a number for two slots: §5.3's coffee/bagels case
    (q2 fills both b and d) shows the paper's approximation does."""
    gold = gold_derivation(problem)
    values = gold.values(problem)
    quantities = problem.meta["quantities"]
    return Derivation(gold.template, {slot: next(q.position for q in quantities if q.value == values[slot])
                                      for slot in gold.template.slots})


def has_alignment_ambiguity(problem: Problem) -> bool:
    """Table 2: some number of the gold equation system has several textual numbers with its value."""
    gold = gold_derivation(problem)
    values = set(gold.values(problem).values())
    counts = [sum(q.value == v for q in problem.meta["quantities"]) for v in values]
    return any(c > 1 for c in counts)


_EQUATION_TOKEN = re.compile(r"\s*(?:(\d+\.?\d*|\.\d+)|([A-Za-z_]\w*)|(\S))")
_INDUCED_SLOTS = "abcdefghijklpqrstuvwxyz"  # skips the unknowns m, n, o


def induced_derivation(problem: Problem) -> Derivation:
    """The derivation a solver trained on equations only (TE) recovers (Kushman et al. 2014 style): each
    number of the gold equations whose value occurs in the text becomes a new slot aligned to the first
    textual number with that value; other numbers stay constants; variables become m, n, o in order of
    appearance. Raises TemplateError for equations we cannot parse (e.g. implicit products "2(x-y)")."""
    first: dict[Fraction, Position] = {}
    for q in problem.meta["quantities"]:
        first.setdefault(q.value, q.position)
    variables: dict[str, str] = {}
    slots = iter(_INDUCED_SLOTS)
    equations, alignment = [], {}
    for equation in problem.equation.split(" ; "):
        out = []
        for number, name, other in _EQUATION_TOKEN.findall(equation):
            if number and Fraction(number) in first:
                slot = next(slots)
                alignment[slot] = first[Fraction(number)]
                out.append(slot)
            elif number:
                out.append(str(Fraction(number)))
            elif name:
                if name not in variables:
                    if len(variables) == 3:
                        raise TemplateError(f"{problem.source}: more than three unknowns in {problem.equation!r}")
                    variables[name] = "mno"[len(variables)]
                out.append(variables[name])
            else:
                out.append(other)
        equations.append(" ".join(out))
    return Derivation(template_of(tuple(equations)), alignment)
