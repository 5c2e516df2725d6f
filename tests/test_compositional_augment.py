"""Iterative data augmentation (Lan et al. 2022 §IV): fragments, operations 1 and 2, the data ranker, Algorithm 1."""
from __future__ import annotations

import math
import time

import pytest

from mwplib.compositional.augment import augment, confidence, fragments, generate, rank
from mwplib.compositional.sentences import CompositionError, sentences, value
from mwplib.data import load_mawps_2373
from mwplib.data.gold import text_numbers
from mwplib.expr import evaluate, parse_prefix
from mwplib.models import build_model
from mwplib.problem import Problem
from test_models import fast_config, one_thread, toy_problems  # noqa: F401 (autouse fixture)


def _problem(problem_id: str, body: str, question: str, numbers: tuple[str, ...], prefix: tuple[str, ...]) -> Problem:
    return Problem(problem_id, body, question, "", float(value(prefix, numbers)), numbers, prefix)


# The paper's Fig. 4(a): "how many" (question of BASKETS) and "there are" (EATEN) share the environment "peaches".
BASKETS = _problem("baskets", "Mary picked 5 baskets of peaches. Each basket holds 9 peaches.",
                   "How many peaches does Mary have?", ("5", "9"), ("*", "N0", "N1"))
EATEN = _problem("eaten", "There are 36 peaches in the basket. Tom eats 4 peaches.", "How many peaches are left?",
                 ("36", "4"), ("-", "N0", "N1"))
# Fig. 4(b): "peaches" and "notebooks" share the environment "lily bought _ at the".
PEACHES = _problem("peaches", "Lily bought 4 peaches at the store. She gave 1 away.",
                   "How many peaches does Lily have left?", ("4", "1"), ("-", "N0", "N1"))
NOTEBOOKS = _problem("notebooks", "Lily bought 6 notebooks at the store. She lost 2 of them.",
                     "How many notebooks does Lily have now?", ("6", "2"), ("-", "N0", "N1"))


@pytest.fixture(scope="module")
def mawps() -> list[Problem]:
    return [p for p in load_mawps_2373() if p.prefix]


def _made(problems: list[Problem], operation: int, parents: tuple[str, ...], pair: tuple[str, str]) -> Problem:
    generation = generate(problems, (operation,), per_seed=100)
    [made] = [p for p in generation.problems if p.meta["parents"] == parents and p.meta["fragments"] == pair]
    return made


def test_alternative_fragments_share_an_environment() -> None:
    question, statement = "How many peaches does she have?", "There are 36 peaches in the basket."
    shared = {(f1, f2) for f1, e1 in fragments(question, 1) for f2, e2 in fragments(statement, 1) if e1 == e2}
    assert (("how", "many"), ("there", "are")) in shared
    assert dict(fragments(statement, 1))[("there", "are")] == ("<s>", "_", "peaches")  # the number is skipped
    assert dict(fragments("Joan has 9 blue balloons.", 2))[("joan",)] == ("<s>", "<s>", "_", "has", "blue")
    assert all(t.isalpha() for fragment, _ in fragments(statement, 1) for t in fragment)  # no number, no "."


def test_operation1_puts_the_question_narrative_in_place_of_a_quantity_sentence() -> None:
    made = _made([BASKETS, EATEN], 1, ("baskets", "eaten"), ("how many", "there are"))
    assert made.text == ("Mary picked 5 baskets of peaches. Each basket holds 9 peaches. Tom eats 4 peaches. "
                         "How many peaches are left?")
    assert (made.prefix, made.numbers, made.answer) == (("-", "*", "N0", "N1", "N2"), ("5", "9", "4"), 41.0)
    assert made.meta["replaced"] == 0 and made.id.rsplit("~", 1)[0] == "baskets~op1~eaten"


def test_operation1_renumbers_the_slots_around_a_later_sentence() -> None:
    made = _made([BASKETS, EATEN], 1, ("eaten", "baskets"), ("how many", "each basket holds"))
    assert made.text == ("Mary picked 5 baskets of peaches. There are 36 peaches in the basket. Tom eats 4 peaches. "
                         "How many peaches does Mary have?")
    assert (made.prefix, made.numbers, made.answer) == (("*", "N0", "-", "N1", "N2"), ("5", "36", "4"), 160.0)


def test_a_question_holding_a_number_its_expression_needs_gives_no_narrative() -> None:
    shelves = _problem("shelves", "Bryan bought 3 new shelves.",
                       "If each shelf holds 9 books, how many books are there?", ("3", "9"), ("*", "N0", "N1"))
    made = generate([shelves, BASKETS, EATEN], (1,), per_seed=100).problems
    assert made and not [p for p in made if p.meta["parents"][0] == "shelves"]


def test_operation2_replaces_the_fragment_everywhere_and_keeps_the_expression() -> None:
    made = _made([PEACHES, NOTEBOOKS], 2, ("peaches",), ("peaches", "notebooks"))
    assert made.text == ("Lily bought 4 notebooks at the store. She gave 1 away. "
                         "How many notebooks does Lily have left?")
    assert (made.prefix, made.numbers, made.answer) == (PEACHES.prefix, PEACHES.numbers, PEACHES.answer)
    assert made.id.rsplit("~", 1)[0] == "peaches~op2" and made.meta["operation"] == 2


def test_an_ill_formed_candidate_is_counted_not_raised() -> None:
    nothing_left = _problem("pears", "Ann had 6 pears. She ate 6 pears.", "How many pears are left?", ("6", "6"),
                            ("-", "N0", "N1"))
    shared = _problem("share", "Bob has 12 apples. There are 4 pears in a box.",
                      "How many apples does each pear get?", ("12", "4"), ("/", "N0", "N1"))
    generation = generate([nothing_left, shared], (1,))  # 12 / (6 - 6)
    assert (generation.problems, generation.ill_formed) == ((), {"unevaluable": 1})


def test_bad_input_raises_naming_the_record() -> None:
    no_numbers = Problem("bad-1", "Ann has some apples.", "How many apples does she have?", "", 3.0, (), ("3",))
    missing = Problem("bad-2", "Ann has 5 apples.", "How many apples does she have?", "", 5.0, ("5",),
                      ("+", "N0", "N1"))
    for bad in (no_numbers, missing):
        with pytest.raises(CompositionError, match=bad.id):
            generate([BASKETS, bad])
    with pytest.raises(CompositionError, match="operations"):
        generate([BASKETS], (3,))
    with pytest.raises(CompositionError, match="baskets"):
        rank([BASKETS], [math.nan])
    with pytest.raises(CompositionError, match="2 scores for 1"):
        rank([BASKETS], [0.0, 1.0])


def test_a_problem_without_an_expression_is_skipped_and_counted() -> None:
    system = Problem("system", "Two numbers sum to 10.", "What are they?", "", None, ("10",), ())
    assert generate([BASKETS, EATEN, system]).skipped == 1


def test_the_ranker_keeps_exactly_the_top_fraction_with_ties_to_the_earlier() -> None:
    candidates = [Problem(f"c{i}", "", "", "", None) for i in range(10)]
    scores = [-5.0, -1.0, -1.0, -3.0, -1.0, -9.0, -2.0, -1.0, -8.0, -7.0]
    assert [p.id for p in rank(candidates, scores)] == ["c1", "c2"]
    assert [p.id for p in rank(candidates[::-1], scores[::-1])] == ["c7", "c4"]  # candidate order, earlier wins
    many = candidates + candidates[:3]  # round(keep × n), halves up: 1.4 → 1, 2.6 → 3, 1.5 → 2
    assert [len(rank(many[:n], [0.0] * n, keep)) for n, keep in ((7, 0.2), (13, 0.2), (3, 0.5))] == [1, 3, 2]


def test_generation_is_deterministic_under_a_seed(mawps: list[Problem]) -> None:
    def made(seed: int) -> list[tuple]:
        return [(p.id, p.text, p.prefix, dict(p.meta)) for p in generate(mawps[:300], seed=seed).problems]

    assert made(3) == made(3)
    assert made(3) != made(4)


def test_algorithm1_grows_the_training_set_by_the_ranked_or_sampled_candidates(mawps: list[Problem]) -> None:
    train = mawps[:200]
    scored: list[list[Problem]] = []
    grown_sizes: list[int] = []

    def shortest_first(grown, problems):
        grown_sizes.append(len(grown))
        scored.append(list(problems))
        return [-len(p.text) for p in problems]

    ranked, rounds = augment(train, 2, shortest_first, seed=1)
    assert len(scored) == 2 and all(r.ranked for r in rounds)
    assert grown_sizes == [200, 200 + rounds[0].kept]  # each round is ranked by a solver of the set so far
    assert [r.kept for r in rounds] == [math.floor(0.2 * len(c) + 0.5) for c in scored]
    assert ranked[:200] == train and len(ranked) == 200 + sum(r.kept for r in rounds)
    first = ranked[200:200 + rounds[0].kept]
    assert max(len(p.text) for p in first) <= min(len(p.text) for p in scored[0] if p not in first)
    sampled, random_rounds = augment(train, 2, None, seed=1)  # "− DataRanker": a random sample of the same size
    assert random_rounds[0].candidates == rounds[0].candidates and random_rounds[0].kept == rounds[0].kept
    assert all(r.kept == math.floor(0.2 * sum(r.candidates.values()) + 0.5) for r in random_rounds)
    assert sampled[:200] == train and not any(r.ranked for r in random_rounds)
    assert sampled != ranked and sampled == augment(train, 2, None, seed=1)[0]


def test_confidence_is_the_log_probability_of_the_models_own_prediction() -> None:
    problems = toy_problems(6)
    model = build_model("seq2seq", fast_config("seq2seq"), problems)
    scores = confidence(model, problems, beam=2, max_len=7)
    assert len(scores) == 6 and all(-math.inf < s <= 0 for s in scores)


def test_on_mawps_every_candidate_is_its_parents_arithmetic_and_a_pass_is_fast(mawps: list[Problem]) -> None:
    start = time.perf_counter()
    generation = generate(mawps, seed=0)
    assert time.perf_counter() - start < 60
    by_id = {p.id: p for p in mawps}
    assert all(generation.by_operation[op] > 500 for op in (1, 2)) and len(generation.problems) <= 4 * len(mawps)
    assert len({p.id for p in generation.problems} | set(by_id)) == len(generation.problems) + len(mawps)
    for made in generation.problems:
        assert text_numbers(made.text) == made.numbers and float(value(made.prefix, made.numbers)) == made.answer
        seed = by_id[made.meta["parents"][0]]
        if made.meta["operation"] == 2:
            assert value(made.prefix, made.numbers) == value(seed.prefix, seed.numbers)
            continue
        other = by_id[made.meta["parents"][1]]
        j = sentences(other)[made.meta["replaced"]].first_slot
        bindings = {f"N{i}": n for i, n in enumerate(other.numbers)} | {f"N{j}": value(seed.prefix, seed.numbers)}
        assert value(made.prefix, made.numbers) == evaluate(parse_prefix(list(other.prefix)), bindings)


def _names(text_by_id: dict[str, str]) -> list[Problem]:
    return [_problem(pid, body, "How many apples are left?", ("9", "4"), ("-", "N0", "N1"))
            for pid, body in text_by_id.items()]


def _pairs(problems: list[Problem], min_shared: int) -> set[tuple[str, str]]:
    return {p.meta["fragments"] for p in generate(problems, (2,), per_seed=100, min_shared=min_shared).problems}


def test_the_shared_evidence_gate_swaps_only_fragments_that_stand_for_each_other_often() -> None:
    # "joan" and "fred" share three environments ("<s> <s> _ has apples", "… _ eats of", "… _ picked apples");
    # "joan" and "cinnamon" one; "she" and "he" one ("<s> <s> _ sold </s>")
    problems = _names({"a": "Joan has 9 apples. Joan eats 4 of them.", "b": "Fred has 9 apples. Fred eats 4 of them.",
                       "c": "Joan picked 9 apples. She sold 4.", "d": "Fred picked 9 apples. He sold 4.",
                       "e": "Cinnamon has 9 apples. It is 4 days old."})
    ungated = _pairs(problems, 0)
    assert {("joan", "cinnamon"), ("joan", "fred"), ("she", "he")} <= ungated
    assert ("she", "he") not in _pairs(problems, 1) and ("joan", "cinnamon") in _pairs(problems, 1)  # no pronoun
    gated = _pairs(problems, 3)
    assert ("joan", "fred") in gated and ("fred", "joan") in gated
    assert not any("cinnamon" in pair for pair in gated)


def test_the_gate_keeps_numerals_and_merged_people_out() -> None:
    problems = [_problem(pid, body, "乙数是多少？", ("9", "4"), ("-", "N0", "N1")) for pid, body in {
        "a": "甲数是9，甲数比乙数多4。", "b": "乙数是9，乙数比甲数多4。", "c": "甲数是9，它比丙数多4。",
        "d": "丙数是9，丙数比甲数多4。", "e": "一年级有9人，五年级有4人。", "f": "五年级有9人，一年级有4人。"}.items()]

    def swaps(min_shared: int) -> set[tuple[str, str, str]]:
        return {(p.meta["parents"][0], *p.meta["fragments"])
                for p in generate(problems, (2,), per_seed=100, min_shared=min_shared).problems}

    merged = ("a", "甲 数", "乙 数")  # 甲数是9，甲数比乙数多4 → 乙数是9，乙数比乙数多4: two numbers become one
    numeral = {s for s in swaps(0) if set("一五") & set(s[1] + s[2])}
    assert merged in swaps(0) and numeral  # what the paper's one shared environment allows
    assert merged not in swaps(1) and not {s for s in swaps(1) if set("一五") & set(s[1] + s[2])}
    assert ("a", "甲 数", "丙 数") in swaps(1)  # the same swap to a number the text does not hold yet
