"""Features of the template-first solver (§4.2), from cached spaCy lemmas and POS tags.

Template features: lemma and POS unigrams/bigrams, conjoined with the template and with |Q(x)|, |C(T)|.
Alignment tuple features: for two aligned slots, whether they share an equation / an unknown (and
whether text order follows slot order), with the lemmas of nouns and verbs between the two numbers when
they are in one sentence. Solution features: integer, negative, non-negative, fractional.
Added to the paper's list (our deviation, so single numbers can be told apart): the lemmas around each
number conjoined with its slot. Used by notebook 06.
"""
from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from typing import Iterable, Sequence

from mwplib import paths
from mwplib.derivation.datasets import sentences
from mwplib.derivation.solve import Solution
from mwplib.derivation.templates import Template, names_in
from mwplib.problem import Problem

_CONTENT_POS = {"NOUN", "PROPN", "VERB"}


def parse_problems(problems: Sequence[Problem], name: str) -> dict[str, list[tuple[str, str]]]:
    """(lemma, POS) per release token for each problem, parsed once and cached as JSON under
    build/cache/spacy/ (keyed by problem id and a hash of the text)."""
    cache_file = paths.cache_dir("spacy") / f"derivations_{name}.json"
    cache = json.loads(cache_file.read_text()) if cache_file.exists() else {}
    todo = [p for p in problems if cache.get(p.id, {}).get("hash") != _hash(p.body)]
    if todo:
        from spacy.tokens import Doc

        from mwplib.nlp import spacy_pipeline

        nlp = spacy_pipeline(("ner", "parser"))
        docs = (Doc(nlp.vocab, words=[t for s in sentences(p.body) for t in s]) for p in todo)
        for problem, doc in zip(todo, nlp.pipe(docs, batch_size=64)):
            cache[problem.id] = {"hash": _hash(problem.body), "tokens": [[t.lemma_, t.pos_] for t in doc]}
        cache_file.write_text(json.dumps(cache, separators=(",", ":")))
    return {p.id: [tuple(t) for t in cache[p.id]["tokens"]] for p in problems}


def _hash(text: str) -> str:
    return hashlib.sha1(text.encode()).hexdigest()[:12]


@dataclass(frozen=True)
class ProblemFeatures:
    """Everything the solver needs from one problem, computed once per run."""

    ngrams: tuple[str, ...]
    contexts: tuple[tuple[str, ...], ...]  # per quantity of Q(x)
    between: dict[tuple[int, int], tuple[str, ...]]  # per quantity pair i < j


def problem_features(problem: Problem, tagged: list[tuple[str, str]]) -> ProblemFeatures:
    quantities = problem.meta["quantities"]
    flat, offset = [], {}
    for sid, sentence in enumerate(sentences(problem.body)):
        offset[sid] = len(flat)
        flat.extend(sentence)
    if len(tagged) != len(flat):
        raise ValueError(f"{problem.source}: cached parse has {len(tagged)} tokens, text has {len(flat)}")
    index = [offset[s] + t for s, t in (q.position for q in quantities)]
    numeric = set(index)
    lemmas = ["<num>" if i in numeric else lemma.lower() for i, (lemma, _) in enumerate(tagged)]
    tags = [pos for _, pos in tagged]
    grams = {f"l:{w}" for w in lemmas} | {f"p:{t}" for t in tags}
    grams |= {f"ll:{a}_{b}" for a, b in zip(lemmas, lemmas[1:])} | {f"pp:{a}_{b}" for a, b in zip(tags, tags[1:])}
    contexts = []
    for q, i in zip(quantities, index):
        ctx = [f"w-1={lemmas[i - 1] if i else '<s>'}", f"w+1={lemmas[i + 1] if i + 1 < len(lemmas) else '</s>'}",
               f"w+2={lemmas[i + 2] if i + 2 < len(lemmas) else '</s>'}", f"p+1={tags[i + 1] if i + 1 < len(tags) else ''}"]
        if not q.token[:1].isdigit():
            ctx.append(f"tok={q.token.lower()}")
        contexts.append(tuple(ctx))
    between = {}
    for a, (qa, ia) in enumerate(zip(quantities, index)):
        for b in range(a + 1, len(quantities)):
            qb, ib = quantities[b], index[b]
            if qa.position[0] != qb.position[0]:
                between[(a, b)] = ("diffsent",)
            else:
                words = {lemmas[k] for k in range(ia + 1, ib) if tags[k] in _CONTENT_POS}
                between[(a, b)] = ("samesent", *sorted(f"b={w}" for w in words))
    return ProblemFeatures(tuple(sorted(grams)), tuple(contexts), between)


@dataclass(frozen=True)
class SlotStructure:
    """Per template: each slot's role and the type of each slot pair (same equation, same unknown)."""

    roles: tuple[str, ...]
    pair_types: dict[tuple[int, int], int]  # slot index pair i < j -> 0..3


@lru_cache(maxsize=None)
def slot_structure(template: Template) -> SlotStructure:
    """Which equations each slot occurs in and which unknowns' coefficients it changes (found by
    grounding twice, so it holds for any way the template is written)."""
    base = {s: Fraction(3 + 2 * k, 7 + k) for k, s in enumerate(template.slots)}
    try:
        matrix0, rhs0 = template.ground(base)
    except ZeroDivisionError:
        matrix0, rhs0 = None, None
    equations, unknowns, roles = [], [], []
    for slot in template.slots:
        equations.append({e for e, tree in enumerate(template.trees) if slot in names_in(tree, "slot")})
        moved = set()
        if matrix0 is not None:
            try:
                matrix1, rhs1 = template.ground({**base, slot: base[slot] + 5})
                moved = {u for row0, row1 in zip(matrix0, matrix1) for u, (x, y) in enumerate(zip(row0, row1)) if x != y}
                const = any(x != y for x, y in zip(rhs0, rhs1))
            except ZeroDivisionError:
                const = False
        else:
            const = False
        unknowns.append(moved)
        roles.append("coef" if moved else "const" if const else "other")
    pair_types = {}
    n = len(template.slots)
    for i in range(n):
        for j in range(i + 1, n):
            pair_types[(i, j)] = 2 * bool(equations[i] & equations[j]) + bool(unknowns[i] & unknowns[j])
    return SlotStructure(tuple(roles), pair_types)


def slot_keys(tid: int, template: Template, slot: int, context: Iterable[str]) -> list[str]:
    role = slot_structure(template).roles[slot]
    return [k for c in context for k in (f"s|{tid}|{slot}|{c}", f"r|{role}|{c}")]


def pair_keys(pair_type: int, in_order: bool, between: Iterable[str]) -> list[str]:
    return [f"a|{pair_type}|{int(in_order)}|{b}" for b in between]


def solution_keys(solution: Solution) -> list[str]:
    values = solution.values
    keys = ["sol:int" if all(v.denominator == 1 for v in values) else "sol:frac"]
    keys.append("sol:neg" if any(v < 0 for v in values) else "sol:nonneg")
    return keys


def size_keys(ngrams: Iterable[str], n_quantities: int, n_slots: int) -> list[str]:
    return [f"g|{g}|{n_quantities}|{n_slots}" for g in ngrams]
