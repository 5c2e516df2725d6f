"""Graph2Tree's graphs from a spaCy parse, and their batching."""
from __future__ import annotations

import torch

from mwplib.graphs import cell_agreement, quantity_graphs
from mwplib.models.base import Example, collate
from mwplib.models.embedders import ScratchEmbedder
from mwplib.problem import Problem
from mwplib.text import Vocab, encode_text


def test_quantity_cells_and_comparisons() -> None:
    enc = encode_text("Gino has 63 popsicle sticks. I have 50 red apples.", ["63", "50"])
    graphs = quantity_graphs(enc.words, enc.num_pos, ["63", "50"])
    cells = [[enc.words[i] for i in cell] for cell in graphs.cells]
    assert cells[0][0] == "63" and {"sticks", "popsicle", "has"} <= set(cells[0])
    assert cells[1][0] == "50" and {"apples", "red", "have"} <= set(cells[1])
    cell_edges, greater, less = graphs.edges
    assert (enc.num_pos[0], enc.words.index("sticks")) in cell_edges
    assert greater == ((enc.num_pos[0], enc.num_pos[1]),) and less == ((enc.num_pos[1], enc.num_pos[0]),)


def test_agreement_with_released_cells_counts_matches() -> None:
    text = "gino has 63 popsicle sticks . i have 50 popsicle sticks ."
    problem = Problem("p", text, "", "", 113.0, ("63", "50"), ("+", "N0", "N1"),
                      meta={"group_nums": (1, 2, 3, 4, 7, 8, 9, 10)})
    perfect = cell_agreement([problem])
    assert perfect == {"jaccard": 1.0, "precision": 1.0, "recall": 1.0, "compared": 1, "skipped": 0}
    # the numbers themselves (2, 8) are on both sides: they must not count as agreement
    numbers_only = cell_agreement([Problem("q", text, "", "", 113.0, ("63", "50"), (), meta={"group_nums": (2, 8, 11)})])
    assert (numbers_only["jaccard"], numbers_only["precision"], numbers_only["recall"]) == (0.0, 0.0, 0.0)
    partial = cell_agreement([Problem("q", text, "", "", 113.0, ("63", "50"), (), meta={"group_nums": (1, 2, 8, 11)})])
    assert (partial["jaccard"], partial["precision"], partial["recall"]) == (1 / 7, 1 / 6, 1 / 2)
    # "sticks." is two words to us: the CSV's indices would not line up, so the problem is not compared
    shifted = Problem("s", "gino has 63 sticks. i have 50 sticks .", "", "", 0.0, ("63", "50"), (),
                      meta={"group_nums": (1,)})
    assert cell_agreement([shifted])["skipped"] == 1
    written = Problem("w", text.replace("63", "1,063"), "", "", 0.0, ("1063", "50"), (), meta={"group_nums": (1, 2)})
    assert cell_agreement([written])["compared"] == 1  # "1,063" is the number 1063 at the same position


def test_adjacency_is_row_normalised_with_self_loops() -> None:
    embedder = ScratchEmbedder(Vocab(["a"]), 4)
    examples = [Example("x", 3, {"ids": [2, 2, 2]}, (0,), (), (((0, 1),), (), ())),
                Example("y", 2, {"ids": [2, 2]}, (1,), (), ((), ((1, 0),), ()))]
    adjacency = collate(examples, embedder).adjacency
    assert adjacency.shape == (2, 3, 3, 3)
    assert torch.allclose(adjacency.sum(-1), torch.ones(2, 3, 3))
    assert adjacency[0, 0, 0, 1] == 0.5 and adjacency[0, 0, 1, 0] == 0 and adjacency[1, 1, 1, 0] == 0.5
