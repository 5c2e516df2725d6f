"""SVAMP's seed selection (§5.1, Table 7) and right answers from other equations, on hand-made cases."""
from __future__ import annotations

import numpy as np
import pytest

from mwplib.svamp import construction as sc
from mwplib.problem import Problem


def _problem(pid: str, text: str, prefix: tuple[str, ...], numbers: tuple[str, ...], answer: float,
             kind: str = "Addition") -> Problem:
    return Problem(pid, text, "", "", answer, numbers, prefix, {"type": kind})


def test_equations_are_compared_as_functions_of_the_numbers() -> None:
    assert sc.equivalent(["+", "N0", "N1"], ["+", "N1", "N0"], 2)
    assert sc.equivalent(["/", "*", "N0", "N1", "N1"], ["N0"], 2)  # N1 cancels wherever it is not 0
    assert not sc.equivalent(["-", "N0", "N1"], ["/", "N0", "2"], 2)  # 12 - 6 = 12 / 2, but not in general
    assert not sc.equivalent(["+", "N0"], ["N0"], 1)  # malformed: equal to nothing else
    right = {"correct": True, "prefix": ["-", "N0", "N1"]}
    problem = _problem("p", "Tom has 12 apples and 6 pears.", ("/", "N0", "2"), ("12", "6"), 6.0)
    assert sc.lucky(right, problem) and not sc.lucky({**right, "prefix": ["/", "N0", "2"]}, problem)
    record = {"spec": {"model": "gts", "config": {"embedding": "scratch"}, "dataset": "toy", "fold": 0},
              "predictions": [{"id": "p", **right}]}
    table = sc.lucky_table([record], {("toy", 0): [problem]}, lambda e: "S")
    assert table.loc[0, ["answer accuracy", "equation accuracy", "% of right answers"]].tolist() == [100.0, 0.0, 100.0]
    assert sc.first_lucky([record], {("toy", 0): [problem]}, lambda e: "S")["predicted"] == "- N0 N1"


def test_the_filters_of_section_5_1() -> None:
    kept = _problem("a", "Tom has 3 apples and buys 4 more. How many?", ("+", "N0", "N1"), ("3", "4"), 7.0)
    two_ops = _problem("b", "Tom has 3 apples, buys 4 and 5. How many?", ("+", "+", "N0", "N1", "N2"), ("3", "4", "5"),
                       12.0)
    long = _problem("c", "word " * 41 + "3 and 4?", ("+", "N0", "N1"), ("3", "4"), 7.0)
    other = _problem("d", "Tom has 3 apples and 4 pears.", ("-", "N1", "N0"), ("3", "4"), 1.0, "Difference")
    assert [sc.exclusion(p)[0] for p in (kept, two_ops, long, other)] == ["", "operators", "length", "type"]
    assert sc.first_of_each([kept, two_ops, long, other])["outcome"].tolist() == ["kept", "operators", "length", "type"]
    pools = sc.seed_pools([kept, two_ops, long, other])
    assert [p.id for p in pools["Addition"]] == ["a"] and pools["Division"] == []


def test_seeds_are_the_problems_nearest_their_centroids_and_table_7_counts_them() -> None:
    problems = [_problem(f"p{i}", f"Tom has {i} apples and 1 more.", ("+", "N0", "N1"), (str(i), "1"), i + 1.0)
                for i in range(6)]
    vectors = {"Addition": np.array([[0, 0], [0.1, 0], [0, 0.2], [10, 10], [10.1, 10], [9.8, 10]], dtype=float)}
    pools = {"Addition": problems, "Subtraction": [], "Multiplication": [], "Division": []}
    seeds = sc.select_seeds(pools, {"Addition": 2, "Subtraction": 1, "Multiplication": 1, "Division": 1}, vectors)
    assert sorted(seeds["Addition"]) == ["p0", "p3"]  # nearest each centroid, (0.03, 0.07) and (9.97, 10)
    table = sc.table7(problems, pools, seeds, ["p0", "p2", None], "minilm").set_index("group")
    assert table.loc["Addition", ["examples in ASDiv-A", "seeds", "ours that are SVAMP's"]].tolist() == [6, 2, 1]
    assert table.loc["Addition", "a random draw's, on average"] == pytest.approx(2 * 2 / 6)
    assert table.loc["Total", "paper: seeds"] == 100 and table.loc["Total", "paper: examples"] == 1004


def test_a_right_answer_from_a_same_valued_number_is_told_apart() -> None:
    problem = _problem("p", "Ann has 5 cups, uses 3, and buys 5 more.", ("-", "N2", "N1"), ("5", "3", "5"), 2.0)
    misplaced = {"correct": True, "prefix": ["-", "N0", "N1"]}  # the other 5: right operations
    assert sc.lucky(misplaced, problem) and sc.other_slot_only(misplaced, problem)
    assert not sc.other_slot_only({"correct": True, "prefix": ["-", "N0", "2"]}, problem)
    record = {"spec": {"model": "gts", "config": {"embedding": "scratch"}, "dataset": "toy", "fold": 0},
              "predictions": [{"id": "p", **misplaced}]}
    row = sc.lucky_table([record], {("toy", 0): [problem]}, lambda e: "S").iloc[0]
    assert (row["right, other equation"], row["of which a same-valued number"]) == (1, 1)


def test_pool_vectors_embed_each_group_in_order_with_one_encoder() -> None:
    problems = [_problem(f"p{i}", text, ("+", "N0", "N1"), ("1", "2"), 3.0) for i, text in
                enumerate(["Tom has 1 apple and 2 pears.", "A red car drove 2 miles.", "She baked 1 cake."])]
    vectors = sc.pool_vectors({"Addition": problems[:2], "Division": problems[2:]})
    alone = sc.sentence_vectors([p.text for p in problems])
    assert [v.shape for v in vectors.values()] == [(2, 384), (1, 384)]
    assert np.allclose(np.concatenate(list(vectors.values())), alone, atol=1e-5)
    assert np.allclose(np.linalg.norm(alone, axis=1), 1.0, atol=1e-5)
