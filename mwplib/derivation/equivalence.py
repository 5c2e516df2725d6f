"""Algorithm 1 of Upadhyay & Chang (2017): TEMPLEQUIV, ALIGNEQUIV and derivation equivalence.

TEMPLEQUIV tries every 1-1 renaming γ of slots and keeps those under which both templates have the same
solution on R random coefficient vectors (a Monte-Carlo test). We prune the renamings with a *slot
fingerprint* (the solution when that slot alone gets a second value, all others sharing one), so the
permutation search runs only over slots that could correspond. A true renaming preserves the fingerprints
only where both templates have a unique solution at every probe: the probes are not random, and at a
degenerate one (all slots equal makes ``a - b`` vanish) two templates that agree on random coefficients can
fail differently, or one fail where the other solves. A template with such a probe is *unreliable*: it is
compared with every template of the same counts, over every renaming. Unknowns may be named differently in
the two templates: solutions are compared under one consistent renaming of unknowns. Used by notebook 06.
"""
from __future__ import annotations

import itertools
import random
from collections import defaultdict
from fractions import Fraction
from functools import lru_cache
from typing import Iterator, Mapping

from mwplib.derivation.derivations import Derivation, Position
from mwplib.derivation.solve import UNIQUE, Solution, solve
from mwplib.derivation.templates import Template

ROUNDS = 10  # R of Algorithm 1 (the paper found larger R made no difference)
_BASE, _PROBE = Fraction(7919, 3), Fraction(-104729, 11)  # shared inputs for the renaming-invariant probes


def _canonical(solution: Solution) -> tuple:
    """A solution with the order of unknowns forgotten (invariant under renaming unknowns)."""
    return (solution.status, tuple(sorted(solution.values)))


@lru_cache(maxsize=None)
def slot_fingerprints(template: Template) -> tuple[tuple, ...]:
    """Per slot (in `template.slots` order): the solution when every slot is `_BASE` except this one.

    A renaming γ under which two templates agree maps each slot to one with the same fingerprint."""
    out = []
    for slot in template.slots:
        values = dict.fromkeys(template.slots, _BASE)
        values[slot] = _PROBE
        out.append(_canonical(solve(template, values)))
    return tuple(out)


def counts(template: Template) -> tuple[int, int, int]:
    """Slot, unknown and equation counts: equivalent templates share them."""
    return len(template.slots), len(template.unknowns), len(template.equations)


@lru_cache(maxsize=None)
def signature(template: Template) -> tuple:
    """The counts, the solution with all slots equal, and the multiset of slot fingerprints: reliable
    equivalent templates share it (see :func:`reliable`)."""
    equal = _canonical(solve(template, dict.fromkeys(template.slots, _BASE)))
    return (*counts(template), equal, tuple(sorted(slot_fingerprints(template), key=repr)))


@lru_cache(maxsize=None)
def reliable(template: Template) -> bool:
    """Whether every probe of :func:`signature` has a unique solution, so that an equivalent template that is
    reliable too has the same signature and fingerprints."""
    return signature(template)[3][0] == UNIQUE and all(fp[0] == UNIQUE for fp in slot_fingerprints(template))


def may_be_equivalent(t1: Template, t2: Template) -> bool:
    """False only when the cheap invariants prove the templates are not equivalent."""
    if counts(t1) != counts(t2):
        return False
    return signature(t1) == signature(t2) or not (reliable(t1) and reliable(t2))


def _candidate_renamings(t1: Template, t2: Template) -> Iterator[dict[str, str]]:
    """All 1-1 slot maps t1 → t2 that respect slot fingerprints (every map when a template is unreliable)."""
    if not (reliable(t1) and reliable(t2)):
        for targets in itertools.permutations(t2.slots):
            yield dict(zip(t1.slots, targets))
        return
    groups1, groups2 = defaultdict(list), defaultdict(list)
    for slot, fp in zip(t1.slots, slot_fingerprints(t1)):
        groups1[repr(fp)].append(slot)
    for slot, fp in zip(t2.slots, slot_fingerprints(t2)):
        groups2[repr(fp)].append(slot)
    if {k: len(v) for k, v in groups1.items()} != {k: len(v) for k, v in groups2.items()}:
        return
    keys = sorted(groups1)
    for choice in itertools.product(*(itertools.permutations(groups2[k]) for k in keys)):
        gamma = {}
        for key, targets in zip(keys, choice):
            gamma.update(zip(groups1[key], targets))
        yield gamma


def _orders_matching(s1: Solution, s2: Solution, orders: set[tuple[int, ...]]) -> set[tuple[int, ...]]:
    """The unknown renamings π (s2.values[π[i]] == s1.values[i]) among `orders` that this round keeps."""
    if s1.status != s2.status:
        return set()
    if not s1.unique:
        return orders
    return {pi for pi in orders if all(s2.values[j] == v for j, v in zip(pi, s1.values))}


@lru_cache(maxsize=100_000)
def template_equivalences(t1: Template, t2: Template, rounds: int = ROUNDS, seed: int = 0,
                          first_only: bool = False) -> tuple[tuple[tuple[str, str], ...], ...]:
    """TEMPLEQUIV(T1, T2): every slot renaming γ (as sorted (slot1, slot2) pairs) under which the templates
    give the same solutions on `rounds` seeded random coefficient vectors; empty iff not equivalent.
    `first_only` stops at the first γ (enough for reconciliation)."""
    if not may_be_equivalent(t1, t2):
        return ()
    rng = random.Random(seed)
    vectors = [{s: Fraction(rng.randint(2, 10**6), rng.randint(1, 97)) for s in t1.slots} for _ in range(rounds)]
    first = [solve(t1, v) for v in vectors]
    found = []
    for gamma in _candidate_renamings(t1, t2):
        orders = set(itertools.permutations(range(len(t1.unknowns))))
        for v, s1 in zip(vectors, first):
            orders = _orders_matching(s1, solve(t2, {gamma[c]: x for c, x in v.items()}), orders)
            if not orders:
                break
        if orders:
            found.append(tuple(sorted(gamma.items())))
            if first_only:
                break
    return tuple(found)


def canonical_position(position: Position, equiv: tuple[frozenset[Position], ...]) -> Position:
    """The representative (first in text order) of `position`'s EquivTNum group, or itself."""
    for group in equiv:
        if position in group:
            return min(group)
    return position


def alignments_equivalent(renamings: tuple[tuple[tuple[str, str], ...], ...], a1: Mapping[str, Position],
                          a2: Mapping[str, Position], equiv: tuple[frozenset[Position], ...] = ()) -> bool:
    """ALIGNEQUIV(Γ, A1, A2): some γ ∈ Γ maps every slot c to γ(c) aligned to the same textual number,
    or to one marked equivalent in EquivTNum (`equiv`, groups of positions)."""
    for gamma in renamings:
        if all(canonical_position(a1[c], equiv) == canonical_position(a2[c2], equiv) for c, c2 in gamma):
            return True
    return False


def derivations_equivalent(predicted: Derivation, gold: Derivation,
                           equiv: tuple[frozenset[Position], ...] = ()) -> bool:
    """Algorithm 1: equivalent templates (TEMPLEQUIV) and equivalent alignments (ALIGNEQUIV)."""
    if len(predicted.template.slots) != len(gold.template.slots):
        return False
    renamings = template_equivalences(predicted.template, gold.template)
    return bool(renamings) and alignments_equivalent(renamings, predicted.alignment, gold.alignment, equiv)
