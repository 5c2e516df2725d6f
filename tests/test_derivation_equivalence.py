"""Algorithm 1, Solve and reconciliation on the paper's own examples (Upadhyay & Chang 2017)."""
from fractions import Fraction

import pytest

from mwplib.derivation.derivations import Derivation
from mwplib.derivation.equivalence import (alignments_equivalent, derivations_equivalent, reliable,
                                          template_equivalences)
from mwplib.derivation.reconcile import reconcile
from mwplib.derivation.solve import INFINITE, NONE, UNIQUE, solve, solve_linear
from mwplib.derivation.templates import TemplateError, parse_template

# Templates (2) and (3) of §2, slots A, B, C written a, b, c.
T2 = parse_template(["m = a + b * n", "m = c - n"])
T3 = parse_template(["m + n = a", "m - c * n = b"])


def test_paper_templates_2_and_3_are_equivalent_under_the_stated_renaming():
    renamings = template_equivalences(T2, T3)
    assert (("a", "b"), ("b", "c"), ("c", "a")) in renamings  # (A, B, C) -> (B, C, A)
    assert len(renamings) == 1


def test_paper_alignment_example():
    gammas = template_equivalences(T2, T3)
    q1, q3, q4 = (0, 1), (0, 3), (0, 4)
    assert alignments_equivalent(gammas, {"a": q1, "b": q3, "c": q4}, {"b": q1, "c": q3, "a": q4})
    assert not alignments_equivalent(gammas, {"a": q1, "b": q3, "c": q4}, {"a": q1, "b": q3, "c": q4})
    d2 = Derivation(T2, {"a": q1, "b": q3, "c": q4})
    assert derivations_equivalent(d2, Derivation(T3, {"b": q1, "c": q3, "a": q4}))
    assert not derivations_equivalent(d2, Derivation(T3, {"a": q1, "b": q3, "c": q4}))


def test_equiv_tnum_lets_an_equivalent_number_match():
    t = parse_template(["a * m + b * n = c", "m + n = d"])
    gold = {"a": (0, 1), "b": (0, 2), "c": (0, 3), "d": (0, 4)}
    other = {**gold, "a": (1, 7)}
    gammas = template_equivalences(t, t)
    assert not alignments_equivalent(gammas, other, gold)
    assert alignments_equivalent(gammas, other, gold, (frozenset({(0, 1), (1, 7)}),))


def test_coincidentally_equal_solution_on_one_input_is_rejected():
    add, mul = parse_template(["m = a + b"]), parse_template(["m = a * b"])
    two = {"a": Fraction(2), "b": Fraction(2)}
    assert solve(add, two) == solve(mul, two)  # they agree here ...
    assert template_equivalences(add, mul) == ()  # ... but not on random inputs


def test_renamed_unknowns_and_rearranged_equations_are_equivalent():
    t1 = parse_template(["m + n = a", "m - n = b"])
    t2 = parse_template(["n - m = b", "a = n + m"])  # unknowns swapped, sides swapped
    assert template_equivalences(t1, t2)
    assert not template_equivalences(t1, parse_template(["m + n = a", "m - 2 * n = b"]))


def test_solve_is_exact_and_reports_singular_systems():
    assert solve_linear([[1, 1], [1, -1]], [25, 1]).values == (13, 12)
    assert solve_linear([[3, 0], [0, 3]], [1, 2]).values == (Fraction(1, 3), Fraction(2, 3))
    assert solve_linear([[1, 1], [2, 2]], [1, 2]).status == INFINITE
    assert solve_linear([[1, 1], [2, 2]], [1, 3]).status == NONE
    t = parse_template(["a * m + b * n = c", "d * m + e * n = f"])
    singular = dict(zip("abcdef", map(Fraction, (1, 2, 3, 2, 4, 6))))
    assert solve(t, singular).status == INFINITE
    assert solve(parse_template(["m / a = b"]), {"a": Fraction(0), "b": Fraction(1)}).status == NONE
    assert solve(t, {**singular, "e": Fraction(5)}).status == UNIQUE


def test_parser_rejects_nonlinear_templates_without_eval():
    with pytest.raises(TemplateError):
        parse_template(["m * n = a"])
    with pytest.raises(TemplateError):
        parse_template(["a / m = b"])
    with pytest.raises(TemplateError):
        parse_template(["__import__('os') = a"])
    assert parse_template(["0.01 * a * m + 1 / b * m = c"]).slots == ("a", "b", "c")


@pytest.mark.parametrize("first, second", [
    # with every slot equal (the probes), the first has infinitely many solutions, the second divides by zero
    (["a * m + b * n = c * d", "m + n = c"], ["m = c * (d - b) / (a - b)", "n = c - m"]),
    # both mean m = c; with a = b the first reads 0 = 0, the second still solves
    (["a * m - b * m = a * c - b * c"], ["a * m + b * m = a * c + b * c"]),
])
def test_equivalence_survives_a_degenerate_probe(first, second):
    t1, t2 = parse_template(first), parse_template(second)
    assert not reliable(t1) or not reliable(t2)
    assert any(dict(gamma) == {s: s for s in t1.slots} for gamma in template_equivalences(t1, t2))
    assert len(reconcile([t1, t2]).classes) == 1


def test_reconcile_groups_only_equivalent_templates():
    templates = [T2, T3, parse_template(["m + n = a", "m - n = b"]), parse_template(["m = a * b"])]
    result = reconcile(templates)
    assert len(result.classes) == 3
    assert result.representative[T3.key] == T2
    mapped = result.apply(Derivation(T3, {"b": (0, 1), "c": (0, 3), "a": (0, 4)}))
    assert mapped.template == T2 and mapped.alignment == {"a": (0, 1), "b": (0, 3), "c": (0, 4)}


def test_canonical_form_catches_rewriting_but_not_renaming():
    from mwplib.derivation.templates import canonical_form

    assert canonical_form(parse_template(["m + n = a"])) == canonical_form(parse_template(["a - n = m"]))
    assert canonical_form(T2) != canonical_form(T3)  # only TEMPLEQUIV's renaming search unites them
