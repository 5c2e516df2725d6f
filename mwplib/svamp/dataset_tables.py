"""Dataset statistics: SVAMP's Table 9 (templates, operators, CLD), notebook 00_datasets (MAWPS's overlaps are
`mwplib.mawps.overlap`). CLD is computed with sparse matrix products, so a dataset of a few thousand problems
takes seconds, not minutes.

Definitions (with where they may differ from the papers):

* **Equation template** (SVAMP §5.2): the gold equation in prefix form with every number masked by one meta
  symbol (:func:`mwplib.expr.template`).
* **Corpus Lexicon Diversity** (Miao et al. 2020, ASDiv §2.1, quoted by SVAMP Table 9): each problem's lexicon
  usage diversity is ``LD_i = 1 − max_{j≠i} (BLEU(P_i, P_j) + BLEU(P_j, P_i)) / 2`` and ``CLD = mean_i LD_i``.
  ASDiv's paper text is not in this repository; the formula is as described by two independent public
  re-implementations (one of which also documents the preprocessing). BLEU is Papineni et al.'s sentence BLEU
  with n-grams up to 4, uniform weights, brevity penalty, no smoothing. Preprocessing: ASDiv used CoreNLP
  tokens/POS and NLTK lemmas, removed stop words and normalised named entities and quantities; we use
  spaCy's small English model instead (lemmas, spaCy's stop list, PERSON entities → ``<person>``, numbers →
  ``<num>``), so values can differ from the published ones by tokeniser/lemmatiser/stop-list effects. Our
  MAWPS and SVAMP values lie a few hundredths above SVAMP's Table 9, ASDiv-A's far above it (see
  notebook 00_datasets).
"""
from __future__ import annotations

import hashlib
import inspect
import json
from collections import Counter
from importlib import metadata
from typing import Iterable, Sequence

import numpy as np
import pandas as pd
from scipy import sparse

from .. import expr, metrics, paths
from ..mawps.overlap import seeded_sample
from ..problem import Problem, Split
from ..records import write_atomically
from ..outputs import paper_vs_ours
from .paper_numbers import PAPER_TABLE9

BLEU_MAX_N = 4


# --------------------------------------------------------------------------------------- equation templates
def equation_template(problem: Problem) -> tuple[str, ...]:
    """SVAMP's Equation Template of a problem: its gold prefix with all numbers masked by one meta symbol."""
    _prefix_node(problem)  # a missing or malformed gold raises here, naming the problem
    return metrics.prefix_template(problem.prefix)


def n_operators(problem: Problem) -> int:
    """Operators in the gold equation (SVAMP's "# Avg Ops" averages this)."""
    return expr.count_operators(_prefix_node(problem))


def _prefix_node(problem: Problem) -> expr.Node:
    if not problem.prefix:
        raise ValueError(f"{problem.source}: no single-unknown gold equation (prefix is empty)")
    try:
        return expr.parse_prefix(problem.prefix)
    except expr.ExpressionError as err:
        raise ValueError(f"{problem.source}: malformed gold prefix {' '.join(problem.prefix)!r}: {err}") from err


# ------------------------------------------------------------------------------------------------ Table 9
def template_statistics(problems: Sequence[Problem]) -> dict:
    """#problems, #equation templates and average #operators (SVAMP Table 9 without CLD; notebook
    00_datasets). Templates and operators are counted over the problems with a single-unknown gold
    equation (``n_with_equation``); the others are counted here, not dropped."""
    with_eq = [p for p in problems if p.prefix]
    return {
        "n_problems": len(problems),
        "n_with_equation": len(with_eq),
        "n_templates": len({equation_template(p) for p in with_eq}),
        "avg_operators": float(np.mean([n_operators(p) for p in with_eq])) if with_eq else float("nan"),
    }


def distinct_problems(splits: Iterable[Split]) -> list[Problem]:
    """Every problem of a set of splits once (by id, first appearance), e.g. the 1,921 MAWPS problems of
    SVAMP's cross-validation folds (notebook 00_datasets)."""
    seen: dict[str, Problem] = {}
    for split in splits:
        for p in (*split.train, *split.dev, *split.test):
            seen.setdefault(p.id, p)
    return list(seen.values())


def dataset_statistics(problems: Sequence[Problem], *, cld_sample: int | None = None, seed: int = 0) -> dict:
    """SVAMP Table 9 for one dataset (notebook 00_datasets): :func:`template_statistics` plus CLD.

    CLD is computed on all problems, or on a seeded sample of `cld_sample` of them (the smoke profile) —
    a sample has fewer near neighbours, so its CLD is biased upwards.
    """
    sample = seeded_sample(problems, cld_sample, seed)
    return {**template_statistics(problems), "cld": corpus_lexicon_diversity(sample), "cld_sample": len(sample)}


def template_frequencies(problems: Sequence[Problem]) -> pd.Series:
    """How many problems use each SVAMP equation template, most frequent first (notebook 00_datasets)."""
    counts = Counter(" ".join(equation_template(p)) for p in problems if p.prefix)
    return pd.Series(dict(counts.most_common()), name="problems", dtype=int)


def template_statistics_table(versions: dict[str, tuple[str, Sequence[Problem]]]) -> pd.DataFrame:
    """:func:`template_statistics` of several versions of the Table 9 datasets beside the paper
    (notebook 00_datasets). `versions` maps a label to (Table 9 dataset name, problems)."""
    rows = [{"version": label, "statistic": key, "paper": PAPER_TABLE9[dataset].get(key), "ours": value}
            for label, (dataset, problems) in versions.items()
            for key, value in template_statistics(problems).items()]
    return paper_vs_ours(rows, keys=["version", "statistic"])


def compare_templates(first: Sequence[Problem], second: Sequence[Problem]) -> pd.DataFrame:
    """Templates whose problem counts differ between two versions of a dataset, with the ids of the problems
    present in only one version or templated differently (notebook 00_datasets)."""
    def by_id(problems: Sequence[Problem]) -> dict[str, str]:
        return {p.id: " ".join(equation_template(p)) for p in problems if p.prefix}

    a, b = by_id(first), by_id(second)
    counts = pd.DataFrame({"first": pd.Series(Counter(a.values())), "second": pd.Series(Counter(b.values()))})
    counts = counts.fillna(0).astype(int)
    counts = counts[counts["first"] != counts["second"]].rename_axis("template").reset_index()
    changed = {i for i in a.keys() | b.keys() if a.get(i) != b.get(i)}
    counts["problems"] = [", ".join(sorted(i for i in changed if t in (a.get(i), b.get(i))))
                          for t in counts["template"]]
    return counts


def template_problems(problems: Sequence[Problem], template: str) -> pd.DataFrame:
    """The problems whose SVAMP template is `template` (e.g. ``"- n n"``), to inspect rare templates
    (notebook 00_datasets)."""
    rows = [{"id": p.id, "text": p.text, "equation": p.equation, "prefix": " ".join(p.prefix), "answer": p.answer}
            for p in problems if p.prefix and " ".join(equation_template(p)) == template]
    return pd.DataFrame(rows, columns=["id", "text", "equation", "prefix", "answer"])


def table9(datasets: dict[str, Sequence[Problem]], *, cld_sample: int | None = None,
           seed: int = 0) -> pd.DataFrame:
    """SVAMP Table 9, paper beside ours, one row per dataset and statistic (notebook 00_datasets).

    The note says how many problems the template/operator statistics cover and the CLD sample size.
    """
    rows = []
    for name, problems in datasets.items():
        ours = dataset_statistics(problems, cld_sample=cld_sample, seed=seed)
        paper = PAPER_TABLE9.get(name, {})
        for statistic in ("n_problems", "n_templates", "avg_operators", "cld"):
            note = (f"over {ours['n_with_equation']} problems with a single-unknown equation"
                    if statistic in ("n_templates", "avg_operators") else "")
            if statistic == "cld" and ours["cld_sample"] < ours["n_problems"]:
                note = f"seeded sample of {ours['cld_sample']} problems (biased upwards)"
            rows.append({"dataset": name, "statistic": statistic, "paper": paper.get(statistic),
                         "ours": ours[statistic], "note": note})
    return paper_vs_ours(rows, keys=["dataset", "statistic"])


def plot_template_frequencies(datasets: dict[str, Sequence[Problem]], top: int = 15):
    """Bar charts of the `top` most frequent SVAMP templates per dataset (notebook 00_datasets)."""
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, len(datasets), figsize=(4.5 * len(datasets), 4.5), squeeze=False)
    for ax, (name, problems) in zip(axes[0], datasets.items()):
        freq = template_frequencies(problems)
        shown = (freq / freq.sum()).head(top)[::-1]
        ax.barh(shown.index, shown.values)
        ax.set_title(f"{name}: {len(freq)} templates")
        ax.set_xlabel("share of problems")
        ax.tick_params(axis="y", labelsize=8)
    fig.tight_layout()
    return fig


def plot_count_distributions(datasets: dict[str, Sequence[Problem]]):
    """Share of problems by number of quantities in the text and by number of operators in the gold
    equation, per dataset, over the problems with a single-unknown equation (notebook 00_datasets)."""
    import matplotlib.pyplot as plt

    measures = {"numbers in the text": lambda p: len(p.numbers),
                "operators in the equation": n_operators}
    fig, axes = plt.subplots(1, len(measures), figsize=(11, 3.8))
    width = 0.8 / max(len(datasets), 1)
    for ax, (label, measure) in zip(axes, measures.items()):
        for d, (name, problems) in enumerate(datasets.items()):
            values = pd.Series([measure(p) for p in problems if p.prefix]).value_counts(normalize=True)
            ax.bar(values.index + (d - (len(datasets) - 1) / 2) * width, values.values, width=width, label=name)
        ax.set_xlabel(label)
        ax.set_ylabel("share of problems")
        ax.legend()
    fig.tight_layout()
    return fig


# ---------------------------------------------------------------------------- Corpus Lexicon Diversity
def cld_tokens(problems: Sequence[Problem], *, remove_stop_words: bool = True) -> list[tuple[str, ...]]:
    """ASDiv-style normalised tokens per problem: lower-cased lemmas without punctuation (and, as ASDiv
    does, without stop words), numbers as ``<num>``, person names as ``<person>``.

    spaCy parses are cached under build/cache/cld with each token's stop-word flag, so both variants cost
    one parse (the slow part); the cache key holds the texts, spaCy's version and the parsing code.
    """
    texts = [p.text for p in problems]
    parser = inspect.getsource(_parse_for_cld)
    key = hashlib.sha256(json.dumps([metadata.version("spacy"), parser, texts]).encode()).hexdigest()[:16]
    cache = paths.cache_dir("cld") / f"{key}.json"
    if cache.exists():
        parsed = json.loads(cache.read_text())
    else:
        parsed = _parse_for_cld(texts)
        write_atomically(cache, lambda out: out.write(json.dumps(parsed).encode()))  # tests side by side
    return [tuple(token for token, stop in doc if not (stop and remove_stop_words)) for doc in parsed]


def _parse_for_cld(texts: list[str]) -> list[list[tuple[str, bool]]]:
    from ..nlp import spacy_pipeline

    nlp = spacy_pipeline(disable=())  # the entity recogniser finds the person names
    out = []
    for doc in nlp.pipe(texts, batch_size=128):
        tokens: list[tuple[str, bool]] = []
        for tok in doc:
            if tok.ent_type_ == "PERSON":
                if tok.ent_iob_ == "B":
                    tokens.append(("<person>", False))
            elif tok.like_num or tok.pos_ == "NUM":
                tokens.append(("<num>", False))
            elif not (tok.is_punct or tok.is_space):
                tokens.append((tok.lemma_.lower(), tok.is_stop))
        out.append(tokens)
    return out


def lexicon_diversity(token_lists: Sequence[Sequence[str]]) -> np.ndarray:
    """Per-problem LD_i = 1 − max_{j≠i} mean(BLEU(i→j), BLEU(j→i)) over pre-normalised token lists.

    BLEU(h→r) = BP · exp(mean_n log p_n), p_n = clipped n-gram matches / n-grams of h (n = 1..4),
    BP = 1 if |h| > |r| else exp(1 − |r|/|h|); a hypothesis without any 4-gram, or with a zero precision,
    scores 0. Clipped matches Σ_g min(c_h(g), c_r(g)) for all pairs at once via
    min(a, b) = Σ_{t≥1} [a≥t]·[b≥t], i.e. a sum of sparse binary matrix products.
    """
    n = len(token_lists)
    if n < 2:
        raise ValueError(f"lexicon diversity needs at least 2 problems, got {n}")
    lengths = np.array([len(t) for t in token_lists], dtype=float)
    mean_log_match = np.zeros((n, n))
    mean_log_total = np.zeros(n)
    for order in range(1, BLEU_MAX_N + 1):
        counts = _ngram_count_matrix(token_lists, order)
        totals = np.asarray(counts.sum(axis=1)).ravel()
        matches = np.zeros((n, n))
        for t in range(1, int(counts.max()) + 1 if counts.nnz else 1):
            at_least = (counts >= t).astype(np.float64)
            matches += (at_least @ at_least.T).toarray()
        with np.errstate(divide="ignore"):
            mean_log_match += np.log(matches) / BLEU_MAX_N
            mean_log_total += np.log(totals) / BLEU_MAX_N
    # BLEU(i→j): hypothesis i (rows), reference j (columns)
    with np.errstate(divide="ignore", invalid="ignore"):
        brevity = np.where(lengths[:, None] > lengths[None, :], 1.0,
                           np.exp(1.0 - lengths[None, :] / lengths[:, None]))
        bleu = brevity * np.exp(mean_log_match - mean_log_total[:, None])
    bleu = np.nan_to_num(bleu, nan=0.0, posinf=0.0)  # no 4-gram in the hypothesis (-inf - -inf)
    similarity = (bleu + bleu.T) / 2
    np.fill_diagonal(similarity, -np.inf)
    return 1.0 - np.clip(similarity.max(axis=1), 0.0, 1.0)


def corpus_lexicon_diversity(problems: Sequence[Problem], *, remove_stop_words: bool = True) -> float:
    """CLD of a set of problems (mean of :func:`lexicon_diversity` over ASDiv-style tokens)."""
    return float(lexicon_diversity(cld_tokens(problems, remove_stop_words=remove_stop_words)).mean())


def cld_sensitivity(datasets: dict[str, Sequence[Problem]], *, cld_sample: int | None = None,
                    seed: int = 0) -> pd.DataFrame:
    """CLD with ASDiv's stop-word removal (our default) and with stop words kept, beside SVAMP Table 9
    (notebook 00_datasets): shows how much the preprocessing, which ASDiv describes only in words, moves it.
    The last column is the share of problems whose every BLEU is 0 (LD = 1) after stop-word removal:
    unsmoothed BLEU-4 needs a shared 4-gram."""
    rows = []
    for name, problems in datasets.items():
        sample = seeded_sample(problems, cld_sample, seed)
        rows.append({"dataset": name, "problems": len(sample), "paper": PAPER_TABLE9.get(name, {}).get("cld"),
                     "stop words removed": corpus_lexicon_diversity(sample),
                     "stop words kept": corpus_lexicon_diversity(sample, remove_stop_words=False),
                     "no neighbour sharing a 4-gram (%)":
                         100 * float(np.mean(lexicon_diversity(cld_tokens(sample)) >= 1.0))})
    return pd.DataFrame(rows)


def _ngram_count_matrix(token_lists: Sequence[Sequence[str]], order: int) -> sparse.csr_matrix:
    """Problems × distinct n-grams of one order, holding counts."""
    vocab: dict[tuple[str, ...], int] = {}
    rows, cols, vals = [], [], []
    for i, tokens in enumerate(token_lists):
        grams = Counter(tuple(tokens[k:k + order]) for k in range(len(tokens) - order + 1))
        for gram, c in grams.items():
            rows.append(i)
            cols.append(vocab.setdefault(gram, len(vocab)))
            vals.append(c)
    return sparse.csr_matrix((vals, (rows, cols)), shape=(len(token_lists), max(len(vocab), 1)), dtype=np.int64)


def headline_metrics(table9: pd.DataFrame, overlap: pd.DataFrame) -> dict[str, float]:
    """Flat metric names for outputs.record (notebook 00_datasets): ``<dataset>_<statistic>`` from Table 9 and
    ``<subset>_<kind>_overlap`` / ``..._overlap_reduced`` (in %) from the overlap table."""
    out: dict[str, float] = {f"{row.dataset}_{row.statistic}": int(row.ours) if row.statistic.startswith("n_")
                             else float(row.ours) for row in table9.itertuples()}
    renames = {"overlap of D (%)": "overlap", "overlap of D' k=|D|/2 (%)": "overlap_reduced"}
    for row in overlap.dropna(subset=["ours"]).itertuples():
        kind, _, rest = row.statistic.partition(" ")
        if rest in renames:
            out[f"{row.subset}_{kind}_{renames[rest]}"] = float(row.ours)
    return out


__all__ = ["equation_template", "n_operators", "template_statistics", "distinct_problems", "dataset_statistics",
           "template_frequencies", "template_statistics_table", "compare_templates", "template_problems", "table9",
           "plot_template_frequencies", "plot_count_distributions", "cld_tokens", "lexicon_diversity",
           "corpus_lexicon_diversity", "cld_sensitivity", "headline_metrics"]
