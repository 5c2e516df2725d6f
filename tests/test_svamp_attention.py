"""Attention statistics (mwplib.svamp.attention) and the typed-in paper examples (mwplib.svamp.attention_examples)."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from mwplib.svamp import attention as aa
from mwplib import expr
from mwplib.svamp import attention_examples as examples


def test_top_word_ignores_padding_and_finds_global_maximum() -> None:
    words = ["john", "delivered", "number0", "every"]
    attention = [[0.1, 0.2, 0.3, 0.4, 0.0], [0.0, 0.05, 0.05, 0.5, 0.95]]  # last column is padding
    assert aa.top_word(words, attention) == ("every", 0.5)
    with pytest.raises(ValueError, match="empty"):
        aa.top_word(words, [])


def test_top_word_sums_the_copies_of_a_word() -> None:
    # the order-blind model splits its attention evenly over the three "marbles"
    tokens = ["marbles", "sold", "number0", "marbles", "marbles"]
    distinct, summed = aa.token_attention(tokens, [[0.2, 0.3, 0.05, 0.2, 0.25]])
    assert distinct == ["marbles", "sold", "number0"] and summed[0].tolist() == pytest.approx([0.65, 0.3, 0.05])
    assert aa.top_word(tokens, [[0.2, 0.3, 0.05, 0.2, 0.25]]) == ("marbles", pytest.approx(0.65))


def test_max_weights_and_summary() -> None:
    weights = aa.max_weights([(["a", "b"], [[0.2, 0.8]]), (["a", "b"], [[1.0, 0.0], [0.3, 0.7]]),
                              (["a", "b", "a"], [[0.4, 0.35, 0.25]])])
    assert weights.tolist() == pytest.approx([0.8, 1.0, 0.65])
    summary = aa.weight_summary(weights)
    assert summary["n"] == 3 and summary["median"] == 0.8
    assert summary["share_ge_0.5"] == 100.0
    assert summary["share_ge_0.9"] == pytest.approx(100 / 3)
    with pytest.raises(ValueError, match="no attention"):
        aa.max_weights([(["a"], None)])
    table = aa.weight_table({("S", "mawps"): weights, ("R (MiniLM)", "asdiv-a"): np.array([0.5])})
    assert table.set_index(["emb", "dataset"]).loc[("S", "mawps"), "n"] == 3


def test_pair_statistics_counts_only_pairs_whose_gold_differs() -> None:
    table = pd.DataFrame([
        {"id": "t1-1a", "gold slots": "* N0 N1", "predicted slots": "* N0 N1", "our top word": "every"},
        {"id": "t1-1b", "gold slots": "/ N1 N0", "predicted slots": "* N0 N1", "our top word": "every"},
        {"id": "t1-2a", "gold slots": "- N0 N1", "predicted slots": "- N0 N1", "our top word": "left"},
        {"id": "t1-2b", "gold slots": "+ N0 N1", "predicted slots": "+ N0 N1", "our top word": "more"},
        {"id": "t1-3a", "gold slots": "- N0 N1", "predicted slots": "- N0 N1", "our top word": "rest"},
        {"id": "t1-3b", "gold slots": "- N0 N1", "predicted slots": "/ N0 N1", "our top word": "rest"}])
    stats = aa.pair_statistics(table)
    assert stats == {"pairs": 3, "pairs_gold_differs": 2, "same_top_word": 50.0, "same_prediction": 50.0}


def test_paper_examples_are_consistent() -> None:
    assert len(examples.EXAMPLES) == 20 and len(examples.pairs()) == 10
    assert len({e.id for e in examples.EXAMPLES}) == 20
    for example in examples.EXAMPLES:
        problem = example.problem()
        # the paper's reported answer is its reported equation evaluated (rounded to 2 decimals),
        # except t26-6b, printed as 0.33 for 3 / 10 in the paper
        assert example.id == "t26-6b" or float(expr.evaluate(expr.parse_infix(example.paper_prediction))) == \
            pytest.approx(example.paper_answer, abs=0.005), example.id
        # the paper marks an answer correct exactly when it equals our gold answer
        assert (abs(example.paper_answer - problem.answer) < 0.005) == example.paper_correct, example.id
        assert all(t.startswith("N") or t in "+-*/" for t in problem.prefix), example.id
    differing = [a.id for a, b in examples.pairs() if a.problem().prefix != b.problem().prefix]
    assert len(differing) == 9  # only Table 6's apples pair keeps the same slot equation


def test_attention_heatmap_has_one_row_per_word() -> None:
    from mwplib.solver import Solution

    solution = Solution(("a", "b", "3"), ("3",), ("N0",), "3", 3.0, -0.1, [[0.1, 0.2, 0.7]])
    fig = aa.plot_attention(solution)
    assert len(fig.axes[0].get_yticklabels()) == 3
    assert np.asarray(fig.axes[0].images[0].get_array()).shape == (3, 1)


def test_max_weight_histogram_counts_every_prediction() -> None:
    weights = {("S", "mawps"): np.array([0.3, 1.0 + 1e-7, 1.0])}  # copies summed can pass 1 by rounding
    fig = aa.plot_max_weights(weights)
    heights = fig.axes[0].patches[0].get_xy()[:, 1]
    assert heights.max() == pytest.approx(200 / 3)  # the two ~1.0 predictions share the last bin


def test_tables_6_and_26_are_read_from_the_recorded_run() -> None:
    """No weights needed: each example's prediction and attention come from the record (a fresh clone renders
    the committed table)."""
    from mwplib.svamp.attention import recorded_examples
    from mwplib.svamp.attention_examples import EXAMPLES
    from mwplib.text import encode_text

    predictions = []
    for example in EXAMPLES:
        problem = example.problem()
        width = len(encode_text(problem.text, problem.numbers).words)
        predictions.append({"id": example.id, "prefix": list(problem.prefix), "correct": True, "logprob": -0.5,
                            "attention": [[1.0] + [0.0] * (width - 1)] * len(problem.prefix)})
    record = {"spec": {"config": {"embedding": "minilm"}}, "predictions": predictions}
    table, solutions = recorded_examples(record, EXAMPLES)
    assert len(table) == len(EXAMPLES) and set(table["ours"]) == {1} and set(table["emb"]) == {"R (MiniLM)"}
    first = EXAMPLES[0].problem()
    assert table.loc[0, "our top word"] == solutions[EXAMPLES[0].id].tokens[0] and table.loc[0, "weight"] == 1.0
    assert table.loc[0, "our answer"] == pytest.approx(first.answer)
    assert table.loc[0, "predicted slots"] == " ".join(first.prefix)
