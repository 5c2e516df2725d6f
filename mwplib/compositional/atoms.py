"""Atoms and compounds of a math word problem (Lan et al. 2022 §III-A, Fig. 2).

An expression tree alone has no semantics: ``N0 + N1`` about apples and about trains is the same tree. So each
quantity is labelled by the cluster of its context: the `WINDOW` words on each side of it in the text (other
numbers masked as ``<num>``), as TF-IDF vectors (scikit-learn's ``TfidfVectorizer``), clustered by k-means.
The **atoms** of a problem are the nodes of its expression tree, quantities written ``q<cluster>``, operators
and constants as themselves. Its **compounds** are its sub-expression trees: each operator node with its
left and right components (an atom or a smaller sub-expression), written in prefix with brackets, e.g.
``(* q3 (- q1 q0))``; every operator node of a tree gives one. The paper does not give the window; 3 is ours.
Chinese text (Math23K) is cut into words by jieba, English by :func:`mwplib.text.tokenize`.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Mapping, Sequence

from ..expr import ExpressionError, Node, is_slot, parse_prefix, slot_index
from ..nlp import jieba
from ..numbers import find_numbers
from ..problem import Problem
from ..text import tokenize
from .sentences import CompositionError, is_chinese

#: words on each side of a quantity that make its context
WINDOW = 3
NUMBER = "<num>"


@dataclass(frozen=True)
class Structure:
    """What DBCA counts of one problem: its atoms and compounds (with repeats)."""

    atoms: tuple[str, ...]
    compounds: tuple[str, ...]


def _words(text: str) -> list[str]:
    if is_chinese(text):
        return [w for w in jieba().lcut(text) if w.strip()]
    return tokenize(text)


def _masked(words: list[str]) -> list[str]:
    return [NUMBER if find_numbers(w) else w for w in words]


def quantity_contexts(problem: Problem, window: int = WINDOW) -> list[list[str]]:
    """For each slot of `problem`, the words within `window` on either side of its number in the text."""
    text = problem.text
    quantities = find_numbers(text)
    if len(quantities) != len(problem.numbers):
        raise CompositionError(f"{problem.source}: the text has {len(quantities)} numbers, the problem lists "
                               f"{len(problem.numbers)}")
    return [_masked(_words(text[:q.start]))[-window:] + _masked(_words(text[q.end:]))[:window] for q in quantities]


def cluster_quantities(problems: Sequence[Problem], k: int, seed: int = 0, window: int = WINDOW
                       ) -> dict[str, tuple[int, ...]]:
    """Problem id → the cluster of each of its quantities (k-means with `k` clusters over TF-IDF contexts)."""
    from sklearn.cluster import KMeans
    from sklearn.feature_extraction.text import TfidfVectorizer

    contexts = {p.id: quantity_contexts(p, window) for p in problems}
    documents = [c for p in problems for c in contexts[p.id]]
    if len(documents) < k:
        raise CompositionError(f"{len(documents)} quantities cannot form {k} clusters")
    vectors = TfidfVectorizer(analyzer=lambda words: words).fit_transform(documents)
    labels = iter(KMeans(n_clusters=k, random_state=seed, n_init=4).fit_predict(vectors).tolist())
    return {p.id: tuple(next(labels) for _ in contexts[p.id]) for p in problems}


def _labelled(node: Node, clusters: Sequence[int], source: str) -> Node:
    if node.is_leaf:
        if not is_slot(node.value):
            return node
        index = slot_index(node.value)
        if index >= len(clusters):
            raise CompositionError(f"{source}: {node.value} names a number the text lacks")
        return Node(f"q{clusters[index]}")
    return Node(node.value, tuple(_labelled(child, clusters, source) for child in node.children))


def _bracketed(node: Node) -> str:
    return node.value if node.is_leaf else f"({node.value} {' '.join(_bracketed(c) for c in node.children)})"


def structure(prefix: Sequence[str], clusters: Sequence[int], source: str = "<problem>") -> Structure:
    """Atoms and compounds of a slot prefix whose slot i is labelled ``q{clusters[i]}``."""
    if not prefix:
        raise CompositionError(f"{source}: no expression")
    try:
        tree = _labelled(parse_prefix(list(prefix)), clusters, source)
    except ExpressionError as error:
        raise CompositionError(f"{source}: {' '.join(prefix)!r} is not a prefix expression: {error}") from None
    atoms, compounds, stack = [], [], [tree]
    while stack:
        node = stack.pop()
        atoms.append(node.value)
        if not node.is_leaf:
            compounds.append(_bracketed(node))
            stack.extend(reversed(node.children))
    return Structure(tuple(atoms), tuple(compounds))


def structures(problems: Sequence[Problem], clusters: dict[str, tuple[int, ...]]) -> dict[str, Structure]:
    """Problem id → its atoms and compounds under `clusters` (from :func:`cluster_quantities`)."""
    return {p.id: structure(p.prefix, clusters[p.id], p.source) for p in problems}


def totals(items: Sequence[Structure], part: str) -> Counter[str]:
    """Frequencies of the atoms (``part="atoms"``) or compounds of several problems together."""
    counts: Counter[str] = Counter()
    for item in items:
        counts.update(getattr(item, part))
    return counts


def pooled(labellings: Sequence[Mapping[str, Structure]]) -> dict[str, Structure]:
    """Each problem's atoms and compounds under several labellings (k-means draws) at once, tagged by draw.

    Every draw gives a problem the same number of items, so the Chernoff coefficient of the pooled counts is the
    mean of the draws' coefficients: a greedy split over the pooled structures maximises the mean divergence, and
    so does not exploit what one draw's clusters happen to separate."""
    return {pid: Structure(tuple(f"{d}:{a}" for d, labelling in enumerate(labellings) for a in labelling[pid].atoms),
                           tuple(f"{d}:{c}" for d, labelling in enumerate(labellings)
                                 for c in labelling[pid].compounds))
            for pid in labellings[0]}
