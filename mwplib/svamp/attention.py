"""What the constrained model attends to (SVAMP §4.3, Tables 6 and 26; notebook 03_attention_analysis).

The paper shows by example that the order-free constrained model puts almost all attention on one word and
keeps the same word — and the same equation — when an edit changes the gold equation. Here that is
measured: the largest attention weight of every prediction, the word it falls on, and over the paper's
example pairs how often the top word and the predicted equation stay the same although the gold changed.

An attention matrix is one row per decoded token over the problem's words (`mwplib.solver.Solution`);
padding columns beyond the words, if any, are ignored. The model cannot tell two copies of a word apart (same
embedding, same state, same score), so it splits its attention evenly over them: every statistic here sums the
copies first and speaks of tokens as the model reads them (slot numbers as ``number0``…, as in SVAMP's data).
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np
import pandas as pd

from .. import runs
from ..data import load_cv
from ..problem import Problem
from ..profiles import Profile
from ..outputs import paper_vs_ours, save_figure
from ..run_spec import RunSpec
from ..solver import Solution, Solver, solution_from
from ..text import encode_text
from .attention_examples import EXAMPLES, PaperExample

Attention = Sequence[Sequence[float]]


def token_attention(tokens: Sequence[str], attention: Attention) -> tuple[list[str], np.ndarray]:
    """The distinct tokens of a problem and the attention on each per decoding step (steps × tokens), the
    copies of a token summed."""
    matrix = np.atleast_2d(np.asarray(attention, dtype=float))[:, :len(tokens)]
    if matrix.size == 0:
        raise ValueError(f"empty attention matrix for {len(tokens)} tokens")
    distinct = list(dict.fromkeys(tokens))
    column = {token: i for i, token in enumerate(distinct)}
    summed = np.zeros((matrix.shape[0], len(distinct)))
    np.add.at(summed.T, [column[t] for t in tokens[:matrix.shape[1]]], matrix.T)
    return distinct, summed


def top_word(tokens: Sequence[str], attention: Attention) -> tuple[str, float]:
    """The token with the largest attention weight (copies summed) at any decoding step, and that weight."""
    distinct, summed = token_attention(tokens, attention)
    step, column = np.unravel_index(int(summed.argmax()), summed.shape)
    return distinct[column], float(summed[step, column])


def max_weights(predictions: Iterable[tuple[Sequence[str], Attention | None]]) -> np.ndarray:
    """The largest attention weight on one token (copies summed) of each (tokens, attention) prediction: the
    distribution the paper describes as "usually attends to a single word". A prediction without attention
    raises, since it is not the constrained model."""
    values = []
    for i, (tokens, attention) in enumerate(predictions):
        if attention is None or not len(attention):
            raise ValueError(f"prediction {i} has no attention weights (not a Constrained-model run?)")
        values.append(top_word(tokens, attention)[1])
    return np.asarray(values)


def weight_summary(weights: np.ndarray, thresholds: Sequence[float] = (0.5, 0.9, 0.99)) -> dict[str, float]:
    """Median largest weight and the share (%) of predictions whose largest weight reaches each threshold."""
    if len(weights) == 0:
        raise ValueError("no attention weights to summarise")
    return {"n": int(len(weights)), "median": float(np.median(weights)),
            **{f"share_ge_{t:g}": 100 * float(np.mean(weights >= t)) for t in thresholds}}


def recorded_examples(record: dict[str, Any], examples: Sequence[PaperExample]
                      ) -> tuple[pd.DataFrame, dict[str, Solution]]:
    """SVAMP Tables 6/26 from the run trained on all of ASDiv-A (:func:`all_asdiv_run`), whose test set is
    the examples: per example the predicted equation, answer, correctness and the most attended word, beside
    the paper's (`paper`/`ours` are 1 when correct); also each prediction as a `Solution` (for heatmaps). Read
    from the record, so the table is the recorded run's, whatever weights this machine holds."""
    rows, solutions = [], {}
    emb = runs.embedding_label(record["spec"]["config"]["embedding"])
    predictions = {p["id"]: p for p in record["predictions"]}
    for example in examples:
        problem = example.problem()
        pred = predictions[problem.id]
        solution = solution_from(pred["prefix"], pred["logprob"], pred.get("attention"), problem.numbers,
                                 encode_text(problem.text, problem.numbers, problem.source))
        solutions[example.id] = solution
        word, weight = top_word(solution.tokens, solution.attention) if solution.attention else (None, float("nan"))
        rows.append({"id": example.id, "emb": emb, "text": example.text, "gold": example.gold,
                     "paper": int(example.paper_correct), "ours": int(pred["correct"]),
                     "paper equation": example.paper_prediction, "our equation": solution.equation,
                     "our answer": solution.answer, "paper top word": example.paper_top_word,
                     "our top word": word, "weight": weight,
                     "gold slots": " ".join(problem.prefix), "predicted slots": " ".join(solution.prefix)})
    return paper_vs_ours(rows, keys=["id", "emb", "text", "gold"]), solutions


def pair_statistics(table: pd.DataFrame) -> dict[str, Any]:
    """Over the example pairs whose gold equation differs at the slot level (what the model must output):
    how often our top word is the same in both, and how often our predicted equation is (notebook 03).
    `table` is the frame of :func:`recorded_examples`."""
    by_id = table.set_index("id")
    pairs = [(i[:-1] + "a", i[:-1] + "b") for i in by_id.index if i.endswith("a")]
    differing = [(a, b) for a, b in pairs if by_id.loc[a, "gold slots"] != by_id.loc[b, "gold slots"]]
    if not differing:
        raise ValueError("no example pair has differing gold equations")
    same_word = sum(by_id.loc[a, "our top word"] == by_id.loc[b, "our top word"] for a, b in differing)
    same_eq = sum(by_id.loc[a, "predicted slots"] == by_id.loc[b, "predicted slots"] for a, b in differing)
    return {"pairs": len(pairs), "pairs_gold_differs": len(differing),
            "same_top_word": 100 * same_word / len(differing), "same_prediction": 100 * same_eq / len(differing)}


def plot_attention(solution: Solution, title: str = "") -> Any:
    """Heatmap of one prediction's attention: words (rows) × decoding steps (columns, the predicted tokens)."""
    import matplotlib.pyplot as plt

    if not solution.attention:
        raise ValueError("this solution has no attention weights (not the Constrained model?)")
    matrix = np.asarray(solution.attention, dtype=float)[:, :len(solution.words)].T
    fig, ax = plt.subplots(figsize=(1.0 + 0.6 * matrix.shape[1], 0.25 * len(solution.words) + 1.0))
    image = ax.imshow(matrix, aspect="auto", cmap="Blues", vmin=0.0, vmax=1.0)
    ax.set_yticks(range(len(solution.words)), solution.words, fontsize=7)
    ax.set_xticks(range(matrix.shape[1]), solution.prefix[:matrix.shape[1]])
    ax.set_xlabel("decoding step (predicted token)")
    ax.set_title(title or solution.equation, fontsize=8)
    fig.colorbar(image, ax=ax, shrink=0.6)
    return fig


def plot_max_weights(weights: dict[tuple[str, str], np.ndarray], title: str = "") -> Any:
    """Histograms (share of predictions) of the largest attention weight per prediction, one per (embedding,
    dataset) of :func:`run_max_weights`."""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(5.5, 3))
    for (emb, dataset), values in weights.items():
        # a sum of copies can pass 1 by rounding, and hist drops what falls outside its bins
        ax.hist(np.clip(values, 0.0, 1.0), bins=np.linspace(0, 1, 21), histtype="step", linewidth=1.5,
                label=f"{emb}, {dataset}", weights=np.full(len(values), 100 / len(values)))
    ax.set_xlabel("largest attention weight on one token")
    ax.set_ylabel("predictions (%)")
    ax.set_title(title, fontsize=9)
    ax.legend(fontsize=7)
    return fig


def explain(solver: Solver, text: str) -> dict[str, Any]:
    """The teaching cell of notebook 03: solve `text`, return equation, answer, the most attended word and
    the attention heatmap."""
    solution = solver.solve(text)
    word, weight = top_word(solution.tokens, solution.attention) if solution.attention else (None, float("nan"))
    return {"equation": solution.equation, "answer": solution.answer, "top word": word, "weight": weight,
            "figure": plot_attention(solution, text) if solution.attention else None}


def _all_asdiv(embedding: str, profile: Profile, seed: int) -> tuple[RunSpec, list[Problem], list[Problem]]:
    """§4.3's run: the constrained model trained on all of ASDiv-A (the union of SVAMP's five ASDiv-A test
    folds), tested on the paper's example problems."""
    problems = [p for split in load_cv("asdiv-a") for p in split.test]
    spec = runs.spec_for("constrained", embedding, "asdiv-a-all", "cv_asdiv-a/all", 0, profile, seed)
    return spec, problems, [e.problem() for e in EXAMPLES]


def all_asdiv_run(embedding: str, profile: Profile, seed: int = 0, train_missing: bool = True
                  ) -> dict[str, Any] | None:
    """The record of §4.3's run (trained when missing and `train_missing`; None when not recorded otherwise):
    Tables 6/26 come from it (:func:`recorded_examples`)."""
    spec, train, test = _all_asdiv(embedding, profile, seed)
    if train_missing:
        return runs.run(spec, train, test, profile, progress=False)
    return runs.recorded(spec, train, test, profile)


def all_asdiv_solver(embedding: str, profile: Profile, seed: int = 0) -> Solver:
    """A `Solver` of §4.3's run for typing in problems, with the profile's beam width: its weights, retrained
    here when this machine lacks them (the recorded run, and the tables from it, stay as they are)."""
    spec, train, test = _all_asdiv(embedding, profile, seed)
    record = runs.run(spec, train, test, profile, progress=False, need_weights=True)
    return Solver.load(runs.weights_of(record, retrained_ok=True), beam=profile.beam_size)


def run_max_weights(records: Iterable[dict[str, Any]]) -> dict[tuple[str, str], np.ndarray]:
    """The largest attention weight of every test prediction of the given Constrained-model cross-validation
    runs, per (embedding label, dataset); each test problem is re-encoded for the tokens its attention covers."""
    out: dict[tuple[str, str], list[np.ndarray]] = {}
    for record in records:
        spec = record["spec"]
        problems = {p.id: p for p in load_cv(spec["dataset"])[spec["fold"]].test}
        tokens = {i: encode_text(p.text, p.numbers, p.source).indexed for i, p in problems.items()}
        group = (runs.embedding_label(spec["config"]["embedding"]), spec["dataset"])
        out.setdefault(group, []).append(max_weights((tokens[p["id"]], p.get("attention"))
                                                     for p in record["predictions"]))
    return {group: np.concatenate(parts) for group, parts in out.items()}


def weight_table(weights: dict[tuple[str, str], np.ndarray]) -> pd.DataFrame:
    """:func:`weight_summary` per (embedding, dataset) of :func:`run_max_weights` (notebook 03)."""
    return pd.DataFrame([{"emb": emb, "dataset": dataset, **weight_summary(values)}
                         for (emb, dataset), values in weights.items()])


def save_heatmaps(solutions: dict[str, Solution], ids: Sequence[str], profile: Profile) -> None:
    """Save (and in a notebook show) the attention heatmap of each example in `ids` as figure
    ``03_attention_<id>``."""
    import matplotlib.pyplot as plt

    for example_id in ids:
        fig = plot_attention(solutions[example_id], f"{example_id}: {solutions[example_id].equation}")
        save_figure(fig, f"03_attention_{example_id}", profile)
        plt.close(fig)
