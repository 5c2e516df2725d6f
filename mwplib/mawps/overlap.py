"""MAWPS's lexical and template overlap (Koncel-Kedziorski et al. 2016, §4; notebook 00_datasets).

* **Lexical overlap** (MAWPS §4.1): the average over all pairs of problems of the pairwise overlap of ``W(p)``,
  the set of unique unigrams and bigrams of ``p``. The pairwise formula was lost in the paper's text
  extraction; we use the Jaccard ratio ``|W(p) ∩ W(q)| / |W(p) ∪ W(q)|``. Tokens are
  :func:`mwplib.text.tokenize`'s lower-cased words and numbers, punctuation dropped.
* **Template overlap** (MAWPS §4.2): the fraction of pairs whose gold equations (as written in the source)
  share an ordered template. By default the k-th *distinct* number becomes ``a``, ``b``, …
  (:func:`mwplib.expr.ordered_template`); the paper leaves repeated numbers open, and the "positional" reading
  (each occurrence its own letter) is available too — it is the one that reproduces the paper's SingleOp claim.
* **Reduced-overlap subsets** (MAWPS §4.1–4.2): greedy remote-clique heuristic, see :func:`reduce_overlap`.

Every pairwise quantity is a sparse or dense matrix product, so a dataset of a few thousand problems takes
seconds.
"""
from __future__ import annotations

from collections import Counter
from functools import partial
from itertools import pairwise
from string import ascii_lowercase
from typing import Literal, Sequence

import numpy as np
import pandas as pd
from scipy import sparse

from .. import expr
from ..problem import Problem
from ..profiles import Profile
from ..outputs import paper_vs_ours
from ..text import tokenize
from .paper_numbers import NOT_REPRODUCIBLE, PAPER_CLAIMS, PAPER_ONLY

OverlapKind = Literal["lexical", "template"]
Letters = Literal["distinct", "positional"]


def mawps_template(problem: Problem, letters: Letters = "distinct") -> str:
    """The MAWPS paper's ordered template of the gold equation, e.g. ``( a * b ) + c = x``.

    "Numerical values are replaced by a consistent, ordered set of constant variables" does not say what
    happens to a repeated value, so both readings exist: ``"distinct"`` (:func:`mwplib.expr.ordered_template`:
    the k-th distinct value is the k-th letter, ``7 + 7`` → ``a + a``) and ``"positional"`` (every number
    occurrence takes the next letter, ``7 + 7`` → ``a + b``). The source equation string
    (``Problem.equation``) is used as written, as MAWPS does (so ``x = a - b`` and ``a - x = b`` differ); the
    unknown is lower-cased. An equation that does not parse raises, naming the problem.
    """
    try:
        lhs, rhs = expr.parse_equation(problem.equation)
    except expr.ExpressionError as err:
        raise ValueError(f"{problem.source}: cannot parse equation {problem.equation!r}: {err}") from err
    # Template both sides as one tree (lhs − rhs) so that letters are shared across the "=".
    both = expr.Node("-", (lhs, rhs))
    if letters == "distinct":
        both = expr.ordered_template(both)
    elif letters == "positional":
        names = iter(ascii_lowercase)
        both = expr.map_leaves(both, lambda t: expr.Node(next(names)) if expr.is_number(t) or expr.is_slot(t)
                               else None)
    else:
        raise ValueError(f"unknown template letters {letters!r}; choose 'distinct' or 'positional'")
    return f"{expr.to_infix(both.children[0])} = {expr.to_infix(both.children[1])}".lower()


def split_templatable(problems: Sequence[Problem]) -> tuple[list[Problem], list[str]]:
    """Problems with a parsable gold equation, and the error messages of those without (e.g. AddSub's
    ``X = 0.32 = 0.21``), so that template statistics can list what they leave out."""
    kept, errors = [], []
    for p in problems:
        try:
            mawps_template(p)
            kept.append(p)
        except ValueError as err:
            errors.append(str(err))
    return kept, errors


def seeded_sample(problems: Sequence[Problem], limit: int | None, seed: int) -> list[Problem]:
    """A seeded sample of `limit` problems in their order (all of them without a limit): the smoke profile's
    subsample of a statistic that costs quadratic time."""
    if limit is None or len(problems) <= limit:
        return list(problems)
    keep = np.sort(np.random.default_rng(seed).choice(len(problems), size=limit, replace=False))
    return [problems[i] for i in keep]


def lexical_overlap_matrix(problems: Sequence[Problem]) -> np.ndarray:
    """Pairwise Jaccard overlap of the unique unigram+bigram sets W(p) (diagonal = 1)."""
    sets = []
    for p in problems:
        words = [w for w in tokenize(p.text) if w[0].isalnum()]
        sets.append(set(words) | {f"{a} {b}" for a, b in pairwise(words)})
    vocab = {g: k for k, g in enumerate(sorted(set().union(*sets)))} if sets else {}
    rows = [i for i, s in enumerate(sets) for _ in s]
    cols = [vocab[g] for s in sets for g in s]
    x = sparse.csr_matrix((np.ones(len(rows)), (rows, cols)), shape=(len(sets), max(len(vocab), 1)))
    inter = (x @ x.T).toarray()
    sizes = np.array([len(s) for s in sets], dtype=float)
    union = sizes[:, None] + sizes[None, :] - inter
    with np.errstate(invalid="ignore"):
        return np.where(union > 0, inter / union, 0.0)


def lexical_overlap(problems: Sequence[Problem]) -> float:
    """MAWPS lexical overlap of a dataset: mean pairwise overlap over all unordered pairs."""
    return _mean_off_diagonal(lexical_overlap_matrix(problems))


def template_overlap(problems: Sequence[Problem], letters: Letters = "distinct") -> float:
    """MAWPS template overlap of a dataset: the fraction of unordered pairs with the same ordered template
    (`letters`: see :func:`mawps_template`)."""
    n = len(problems)
    if n < 2:
        raise ValueError(f"overlap needs at least 2 problems, got {n}")
    counts = Counter(mawps_template(p, letters) for p in problems)
    return sum(c * (c - 1) for c in counts.values()) / (n * (n - 1))


def _mean_off_diagonal(matrix: np.ndarray) -> float:
    n = matrix.shape[0]
    if n < 2:
        raise ValueError(f"overlap needs at least 2 problems, got {n}")
    return float((matrix.sum() - np.trace(matrix)) / (n * (n - 1)))


def reduce_overlap(problems: Sequence[Problem], k: int, kind: OverlapKind = "lexical", seed: int = 0,
                   letters: Letters = "distinct") -> list[Problem]:
    """MAWPS's greedy reduced-overlap subset of size `k` (paper §4.1–4.2; notebook 00_datasets).

    Start from a singleton and repeatedly add the problem p ∉ D' minimising f(p, D') = Σ_{q∈D'} overlap(p, q)
    (equivalently the average, since |D'| is the same for all candidates). For templates this adds a new
    template while one is left, then the problem whose template is least frequent in D'. The paper's rule
    for the first problem was lost in extraction; we start from the problem with the least total overlap
    with D. Ties (common: template overlap is 0/1) go to the earliest problem in a seeded random order.
    f is updated incrementally, so the cost is O(n·k) after the pairwise matrix. `letters` applies to
    template overlap (:func:`mawps_template`).
    """
    n = len(problems)
    if not 1 <= k <= n:
        raise ValueError(f"subset size k={k} must be in 1..{n}")
    overlap = _pairwise(problems, kind, letters)
    np.fill_diagonal(overlap, 0.0)
    rank = np.random.default_rng(seed).permutation(n)  # tie-break order
    chosen = np.zeros(n, dtype=bool)
    score = overlap.sum(axis=1)  # first pick: least overlap with the whole dataset
    order: list[int] = []
    for step in range(k):
        masked = np.where(chosen, np.inf, score)
        best = masked.min()
        ties = np.flatnonzero(np.isclose(masked, best, rtol=0.0, atol=1e-12))
        pick = int(ties[np.argmin(rank[ties])])
        order.append(pick)
        chosen[pick] = True
        score = overlap[pick].copy() if step == 0 else score + overlap[pick]
    return [problems[i] for i in order]


def _pairwise(problems: Sequence[Problem], kind: OverlapKind, letters: Letters) -> np.ndarray:
    if kind == "lexical":
        return lexical_overlap_matrix(problems)
    if kind == "template":
        ids = pd.factorize(pd.Series([mawps_template(p, letters) for p in problems]))[0]
        return (ids[:, None] == ids[None, :]).astype(float)
    raise ValueError(f"unknown overlap kind {kind!r}; choose 'lexical' or 'template'")


def overlap_table(subsets: dict[str, list[Problem]], profile: Profile, seed: int = 0,
                  letters: Letters = "distinct") -> pd.DataFrame:
    """MAWPS Table 1 as far as it can be reproduced (notebook 00_datasets): per subset, lexical and template
    overlap (in %) of D and of the greedy subset D' at k = |D|/2, and the reduction (1 − D'/D) in %.

    The paper column holds the prose claims that apply (its table did not survive); subsets the paper
    reports but we cannot build are listed with a note. Under `profile.overlap_limit` each subset is first
    reduced to a seeded random sample of that size. Problems whose equation cannot be parsed are left out
    of the template rows and named in their note. `letters` selects the template reading
    (:func:`mawps_template`).
    """
    limit = profile.overlap_limit
    rows = []
    for name, problems in subsets.items():
        sample = seeded_sample(problems, limit, seed)
        templatable, errors = split_templatable(sample)
        for kind, measure, data in (("lexical", lexical_overlap, sample),
                                    ("template", partial(template_overlap, letters=letters), templatable)):
            full = 100 * measure(data)
            reduced = 100 * measure(reduce_overlap(data, len(data) // 2, kind, seed=seed, letters=letters))
            values = {f"{kind} overlap of D (%)": full, f"{kind} overlap of D' k=|D|/2 (%)": reduced,
                      f"{kind} overlap reduction (%)": 100 * (1 - reduced / full) if full else float("nan")}
            left_out = f"left out: {'; '.join(errors)}" if kind == "template" and errors else ""
            for statistic, ours in values.items():
                paper, claim = PAPER_CLAIMS.get((name, statistic), PAPER_CLAIMS.get((None, statistic),
                                                                                    (None, "")))
                rows.append({"subset": name, "n": len(data), "statistic": statistic, "paper": paper,
                             "ours": ours, "note": " | ".join(filter(None, (claim, left_out)))})
    for name, note in NOT_REPRODUCIBLE.items():
        paper = PAPER_ONLY.get((name, "template overlap reduction (%)"))
        rows.append({"subset": name, "n": None, "statistic": "template overlap reduction (%)", "paper": paper,
                     "ours": None, "note": note})
    return paper_vs_ours(rows, keys=["subset", "n", "statistic"])


__all__ = ["OverlapKind", "Letters", "mawps_template", "split_templatable", "seeded_sample", "lexical_overlap_matrix",
           "lexical_overlap", "template_overlap", "reduce_overlap", "overlap_table"]
