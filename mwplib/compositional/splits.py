"""Compositional splits: the greedy DBCA split, the I.I.D. split and a ladder of rising compound divergence
(Lan et al. 2022 §III-A, Table I, Fig. 5a), saved as id lists so others can train on exactly them.

The greedy procedure follows Keysers et al. (2020, CFQ): start from one problem on each side, then repeatedly
add one remaining problem to the side furthest below its target size, choosing the problem that maximises the
compound divergence (or, for the ladder, brings it closest to a target) among those that keep the atom
divergence under a bound (if none does, the one with the smallest atom divergence). Ties go to a seeded
random order. CFQ also removes problems now and then to escape local optima; this does not.

Each step scores every remaining problem at once: with counts P (train) and Q (test) and
``S = Σ_i P_i^α Q_i^(1−α)``, adding a problem with counts c to the train side gives
``C = (S + Σ_i [(P_i + c_i)^α − P_i^α] Q_i^(1−α)) / ((|P| + |c|)^α |Q|^(1−α))``, a sum over that problem's own
atoms or compounds only (and symmetrically for the test side).
"""
from __future__ import annotations

import json
import random
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping, Sequence

import numpy as np

from ..problem import Problem
from ..train import split_validation
from .atoms import Structure, totals
from .divergence import ATOM_ALPHA, COMPOUND_ALPHA, divergence

#: the atom divergence a compositional split may not exceed (the paper's Table I reports 0.00–0.01)
MAX_ATOM_DIVERGENCE = 0.02
#: the share of each training set carved out for validation (the paper's §V-B)
VALIDATION_FRACTION = 0.2


@dataclass(frozen=True)
class SplitIds:
    """A train/test partition of a pool by problem id, with its divergences."""

    name: str
    train: tuple[str, ...]
    test: tuple[str, ...]
    atom_divergence: float
    compound_divergence: float


def measure(name: str, train: Sequence[str], test: Sequence[str], structs: Mapping[str, Structure],
            alphas: tuple[float, float] = (ATOM_ALPHA, COMPOUND_ALPHA)) -> SplitIds:
    """A split with its atom and compound divergence computed from scratch (under the α of atoms and compounds
    given: by default the paper's, :data:`divergence.KEYSERS_ALPHAS` the cited implementation's)."""
    def div(part: str, alpha: float) -> float:
        return divergence(totals([structs[i] for i in train], part), totals([structs[i] for i in test], part), alpha)

    return SplitIds(name, tuple(train), tuple(test), div("atoms", alphas[0]), div("compounds", alphas[1]))


def iid_split(name: str, structs: Mapping[str, Structure], n_test: int, seed: int = 0) -> SplitIds:
    """A seeded random partition with `n_test` test problems."""
    ids = sorted(structs)
    random.Random(seed).shuffle(ids)
    return measure(name, sorted(ids[n_test:]), sorted(ids[:n_test]), structs)


class _Counts:
    """One kind of item (atoms or compounds) of every pool problem, as flat (row, column, count) arrays."""

    def __init__(self, items: Sequence[Sequence[str]], alpha: float) -> None:
        vocab: dict[str, int] = {}
        rows, cols, counts = [], [], []
        for row, problem_items in enumerate(items):
            for item, count in sorted(Counter(problem_items).items()):
                rows.append(row)
                cols.append(vocab.setdefault(item, len(vocab)))
                counts.append(count)
        self.alpha, self.n = alpha, len(items)
        self.rows, self.cols = np.array(rows, dtype=np.int64), np.array(cols, dtype=np.int64)
        self.counts = np.array(counts, dtype=np.float64)
        self.size = np.bincount(self.rows, self.counts, minlength=self.n)
        self.sides = np.zeros((2, len(vocab)))  # counts on the train (0) and test (1) side

    def add(self, row: int, side: int) -> None:
        entries = self.rows == row
        np.add.at(self.sides[side], self.cols[entries], self.counts[entries])

    def coefficients(self, side: int) -> np.ndarray:
        """Per pool problem: the Chernoff coefficient if it were added to `side`."""
        a = self.alpha if side == 0 else 1 - self.alpha  # exponent of the side that grows
        grow, other = self.sides[side], self.sides[1 - side]
        g, o = grow[self.cols], other[self.cols]
        gain = ((g + self.counts) ** a - g ** a) * o ** (1 - a)
        base = float(np.sum(grow ** a * other ** (1 - a)))
        grown = grow.sum() + self.size
        with np.errstate(divide="ignore", invalid="ignore"):
            value = (base + np.bincount(self.rows, gain, minlength=self.n)) / (grown ** a * other.sum() ** (1 - a))
        return np.nan_to_num(value, nan=0.0, posinf=0.0)


def greedy_split(name: str, structs: Mapping[str, Structure], n_test: int, seed: int = 0, *,
                 target: float | None = None, max_atom_divergence: float = MAX_ATOM_DIVERGENCE) -> SplitIds:
    """The greedy DBCA split of the pool `structs` into len − `n_test` train and `n_test` test problems,
    maximising the compound divergence (or, with `target`, approaching it) under the atom bound."""
    ids = sorted(structs)
    if not 0 < n_test < len(ids):  # each side needs one problem: the first two placed
        raise ValueError(f"{name}: cannot put {n_test} of {len(ids)} problems in test")
    n_sides = (len(ids) - n_test, n_test)
    atoms = _Counts([structs[i].atoms for i in ids], ATOM_ALPHA)
    compounds = _Counts([structs[i].compounds for i in ids], COMPOUND_ALPHA)
    rank = np.empty(len(ids), dtype=np.int64)
    rank[np.random.default_rng(seed).permutation(len(ids))] = np.arange(len(ids))
    remaining = np.ones(len(ids), dtype=bool)
    members: tuple[list[int], list[int]] = ([], [])

    def place(row: int, side: int) -> None:
        atoms.add(row, side)
        compounds.add(row, side)
        members[side].append(row)
        remaining[row] = False

    first = np.argsort(rank)
    place(int(first[0]), 0)
    place(int(first[1]), 1)
    while remaining.any():
        side = 0 if len(members[0]) / n_sides[0] <= len(members[1]) / n_sides[1] else 1
        atom_div = 1 - atoms.coefficients(side)
        compound_div = 1 - compounds.coefficients(side)
        score = compound_div if target is None else -np.abs(compound_div - target)
        allowed = remaining & (atom_div <= max_atom_divergence)
        if allowed.any():
            candidates = np.flatnonzero(allowed)
            best = candidates[score[candidates] == score[candidates].max()]
        else:
            candidates = np.flatnonzero(remaining)
            best = candidates[atom_div[candidates] == atom_div[candidates].min()]
        place(int(best[np.argmin(rank[best])]), side)
    return measure(name, sorted(ids[r] for r in members[0]), sorted(ids[r] for r in members[1]), structs)


def ladder(name: str, structs: Mapping[str, Structure], n_test: int, targets: Sequence[float], seed: int = 0
           ) -> list[SplitIds]:
    """Splits of the same sizes aimed at rising compound divergences (Fig. 5a): one per target."""
    return [greedy_split(f"{name}-target{t:.2f}", structs, n_test, seed, target=t) for t in targets]


def test_size(n_pool: int, fraction: float = 0.2) -> int:
    """The paper's 80/20 ratio (MAWPS 1,899 / 474; Math23K 18,543 / 4,619: a test share of 0.1997) on a pool."""
    return round(fraction * n_pool)


def to_json(split: SplitIds, problems: Mapping[str, Problem], seed: int, **info: object) -> str:
    """The split file: train, validation (carved from train as the training loop carves it, seeded) and test
    ids, divergences and how it was made; byte-identical for the same inputs."""
    train = [problems[i] for i in split.train]
    fit, val = split_validation(train, VALIDATION_FRACTION, seed)
    payload = {"name": split.name, "seed": seed, **info,
               "atom_divergence": round(split.atom_divergence, 6),
               "compound_divergence": round(split.compound_divergence, 6),
               "sizes": {"train": len(fit), "validation": len(val), "test": len(split.test)},
               "train": [p.id for p in fit], "validation": [p.id for p in val], "test": list(split.test)}
    return json.dumps(payload, indent=1, ensure_ascii=False) + "\n"


def save(text: str, path: Path) -> Path:
    """Write a split file; an existing file with other content is refused (a committed split is never
    replaced: name a new one)."""
    if path.exists():
        if path.read_text(encoding="utf-8") != text:
            raise FileExistsError(f"{path} exists with other content; a committed split is not overwritten")
        return path
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path
