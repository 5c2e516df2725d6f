"""The template-first solver of §4.2, trained with an averaged structured perceptron (Collins 2002).

Inference: score every training template, keep the top k = 10, and for each search alignments of
textual numbers to its slots (numbers may stay unused) with a beam over slots; the best few complete
alignments per template are solved and rescored with the solution features. Training: decode, and on a
mistake add φ(reference) − φ(prediction). The reference is the annotated derivation (TD) or the one
recovered from the gold equations (TE). Used by notebook 06.
"""
from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Sequence

import numpy as np

from mwplib.derivation.derivations import Derivation
from mwplib.derivation.features import (ProblemFeatures, pair_keys, size_keys, slot_keys, slot_structure,
                                        solution_keys)
from mwplib.derivation.solve import solve
from mwplib.derivation.templates import Template
from mwplib.problem import Problem

TOP_K = 10  # templates kept per problem (the paper's k)
BEAM = 100  # partial alignments kept per template
RESCORE = 5  # complete alignments per template solved and rescored with solution features


@dataclass(frozen=True)
class Example:
    """A problem with its features and, for training, its reference (template id, quantity per slot)."""

    problem: Problem
    features: ProblemFeatures
    template: int = -1
    alignment: tuple[int, ...] = ()


class Weights:
    """Sparse perceptron weights with lazy averaging: w_avg = w − u / c (Daumé's trick).
    Template features are stored as one vector over templates per n-gram."""

    def __init__(self, n_templates: int) -> None:
        self.n_templates = n_templates
        self.scalar: dict[str, float] = {}
        self.scalar_acc: dict[str, float] = {}
        self.vector: dict[str, np.ndarray] = {}
        self.vector_acc: dict[str, np.ndarray] = {}
        self.step = 1

    def get(self, key: str) -> float:
        return self.scalar.get(key, 0.0)

    def update(self, keys: Sequence[str], grams: Sequence[str], template: int, delta: float) -> None:
        for key in keys:
            self.scalar[key] = self.scalar.get(key, 0.0) + delta
            self.scalar_acc[key] = self.scalar_acc.get(key, 0.0) + self.step * delta
        for gram in grams:
            if gram not in self.vector:
                self.vector[gram] = np.zeros(self.n_templates)
                self.vector_acc[gram] = np.zeros(self.n_templates)
            self.vector[gram][template] += delta
            self.vector_acc[gram][template] += self.step * delta

    def averaged(self) -> "Weights":
        out = Weights(self.n_templates)
        out.scalar = {k: v - self.scalar_acc[k] / self.step for k, v in self.scalar.items()}
        out.vector = {k: v - self.vector_acc[k] / self.step for k, v in self.vector.items()}
        return out


class Solver:
    """Ranks `templates` (the training set's template classes) and aligns numbers to their slots."""

    def __init__(self, templates: Sequence[Template], top_k: int = TOP_K, beam: int = BEAM) -> None:
        self.templates = list(templates)
        self.top_k, self.beam = top_k, beam
        self.weights = Weights(len(self.templates))
        self.n_slots = np.array([len(t.slots) for t in self.templates])

    # ---- features of one derivation (must mirror `decode`'s decomposition of the score) ----
    def features(self, example: Example, template: int, alignment: tuple[int, ...]) -> list[str]:
        t, pf = self.templates[template], example.features
        keys = size_keys(pf.ngrams, len(pf.contexts), len(t.slots))
        for c, q in enumerate(alignment):
            keys += slot_keys(template, t, c, pf.contexts[q])
        types = slot_structure(t).pair_types
        for (i, j), kind in types.items():
            a, b = alignment[i], alignment[j]
            between = ("samenum",) if a == b else pf.between[(min(a, b), max(a, b))]
            keys += pair_keys(kind, a < b, between)
        solution = solve(t, self._values(example, t, alignment))
        if solution.unique:
            keys += solution_keys(solution)
        return keys

    def score(self, example: Example, template: int, alignment: tuple[int, ...]) -> float:
        """w · φ(x, z), computed from the explicit feature list (`decode` computes it by parts)."""
        weights = self.weights
        vector = sum(weights.vector[g][template] for g in example.features.ngrams if g in weights.vector)
        return float(vector + sum(weights.get(k) for k in self.features(example, template, alignment)))

    @staticmethod
    def _values(example: Example, template: Template, alignment: tuple[int, ...]) -> dict:
        quantities = example.problem.meta["quantities"]
        return {slot: quantities[q].value for slot, q in zip(template.slots, alignment)}

    def _template_scores(self, weights: Weights, pf: ProblemFeatures) -> np.ndarray:
        scores = np.zeros(len(self.templates))
        for gram in pf.ngrams:
            vec = weights.vector.get(gram)
            if vec is not None:
                scores += vec
        for n in set(self.n_slots.tolist()):
            scores[self.n_slots == n] += sum(weights.get(k) for k in size_keys(pf.ngrams, len(pf.contexts), n))
        return scores

    def _pair_matrices(self, weights: Weights, pf: ProblemFeatures) -> np.ndarray:
        n = len(pf.contexts)
        out = np.zeros((4, n, n))
        for (a, b), between in pf.between.items():
            for kind in range(4):
                out[kind, a, b] = sum(weights.get(k) for k in pair_keys(kind, True, between))
                out[kind, b, a] = sum(weights.get(k) for k in pair_keys(kind, False, between))
        return out

    def decode(self, example: Example, weights: Weights | None = None) -> tuple[int, tuple[int, ...]] | None:
        """The best derivation (template id, quantity index per slot) among the top-k templates, or None
        when no candidate has a unique solution."""
        weights = weights or self.weights
        pf = example.features
        n = len(pf.contexts)
        template_scores = self._template_scores(weights, pf)
        feasible = np.flatnonzero(self.n_slots <= n)
        top = feasible[np.argsort(-template_scores[feasible], kind="stable")[: self.top_k]]
        pairs = self._pair_matrices(weights, pf)
        best, best_score = None, -np.inf
        for tid in top.tolist():
            t = self.templates[tid]
            for alignment, score in self._align(weights, example, tid, pairs):
                solution = solve(t, self._values(example, t, alignment))
                if not solution.unique:
                    continue
                total = template_scores[tid] + score + sum(weights.get(k) for k in solution_keys(solution))
                if total > best_score:
                    best, best_score = (tid, alignment), total
        return best

    def _align(self, weights: Weights, example: Example, tid: int, pairs: np.ndarray):
        """Beam search over slots; yields the RESCORE best injective alignments with their scores."""
        t, pf = self.templates[tid], example.features
        n, k = len(pf.contexts), len(t.slots)
        if k == 0:
            return [((), 0.0)]
        slot_scores = np.array([[sum(weights.get(key) for key in slot_keys(tid, t, c, pf.contexts[q]))
                                 for q in range(n)] for c in range(k)])
        types = slot_structure(t).pair_types
        beams = np.zeros((1, 0), dtype=int)
        scores = np.zeros(1)
        for j in range(k):
            grid = scores[:, None] + slot_scores[j][None, :]
            for i in range(j):
                grid = grid + pairs[types[(i, j)]][beams[:, i], :]
                grid[np.arange(len(beams)), beams[:, i]] = -np.inf  # each number fills one slot at most
            flat = grid.ravel()
            keep = min(self.beam, int(np.isfinite(flat).sum()))
            idx = np.argpartition(-flat, keep - 1)[:keep] if keep < len(flat) else np.arange(len(flat))
            idx = idx[np.isfinite(flat[idx])]
            rows, cols = np.divmod(idx, n)
            beams = np.concatenate([beams[rows], cols[:, None]], axis=1)
            scores = flat[idx]
        order = np.argsort(-scores, kind="stable")[:RESCORE]
        return [(tuple(beams[i].tolist()), float(scores[i])) for i in order]

    def train(self, examples: Sequence[Example], epochs: int, seed: int = 0) -> None:
        """Averaged structured perceptron; examples are visited in a seeded random order each epoch."""
        rng = random.Random(seed)
        order = list(examples)
        for _ in range(epochs):
            rng.shuffle(order)
            for example in order:
                predicted = self.decode(example)
                if predicted != (example.template, example.alignment):
                    gold_keys = self.features(example, example.template, example.alignment)
                    gold_grams = example.features.ngrams
                    self.weights.update(gold_keys, gold_grams, example.template, 1.0)
                    if predicted is not None:
                        self.weights.update(self.features(example, *predicted), example.features.ngrams,
                                            predicted[0], -1.0)
                self.weights.step += 1
        self.weights = self.weights.averaged()

    def predict(self, example: Example) -> Derivation | None:
        """The predicted derivation, its alignment given by positions in the text."""
        found = self.decode(example)
        if found is None:
            return None
        tid, alignment = found
        t, quantities = self.templates[tid], example.problem.meta["quantities"]
        return Derivation(t, {slot: quantities[q].position for slot, q in zip(t.slots, alignment)})
