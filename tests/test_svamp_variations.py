"""SVAMP's variations made by rule (mwplib.svamp.variations): each rule on a hand-made seed, the record checks, and
the comparison with SVAMP's own variations (svamp.construction.variation_accuracy / rank_agreement)."""
import pandas as pd
import pytest

from mwplib.svamp import construction as sc, variations as sv
from mwplib.expr import Node
from mwplib.problem import Problem


def seed(id_: str, body: str, question: str, numbers: tuple[str, ...], prefix: tuple[str, ...], answer: float | None,
         type_: str = "Subtraction") -> Problem:
    return Problem(id_, body, question, "", answer, numbers, prefix, {"type": type_, "source": f"test#{id_}"})


PACO = seed("paco", "paco had 35 cookies . he ate 6 of them .", "how many cookies did paco have left ?",
            ("35", "6"), ("-", "N0", "N1"), 29.0)
JACK = seed("jack", "jack had 142 pencils . jack gave 31 pencils to dorothy .", "how many pencils does jack have now ?",
            ("142", "31"), ("-", "N0", "N1"), 111.0)
JULIA = seed("julia", "julia played tag with 18 kids on monday . she played tag with 10 kids on tuesday .",
             "how many more kids did she play with on monday than on tuesday ?", ("18", "10"), ("-", "N0", "N1"), 8.0)
PEACHES = seed("peaches", "5 red peaches and 14 green peaches are in the basket .",
               "how many peaches are in the basket ?", ("5", "14"), ("+", "N0", "N1"), 19.0, "Addition")
CAMPERS = seed("campers", "35 campers went rowing in the morning . 27 campers went rowing in the afternoon .",
               "how many campers went rowing in all ?", ("35", "27"), ("+", "N0", "N1"), 62.0, "Addition")
BETH = seed("beth", "each pack has 10 crayons in it . beth has 4 packs .", "how many crayons does beth have ?",
            ("10", "4"), ("*", "N0", "N1"), 40.0, "Multiplication")
NAMES = {"paco": ("paco",), "jack": ("jack", "dorothy"), "julia": ("julia",), "beth": ("beth",)}
SEEDS = (PACO, JACK, JULIA, PEACHES, CAMPERS, BETH)


def made(problem: Problem, code: str) -> Problem:
    variations = sv.generate(SEEDS, NAMES, codes=[code])
    result = next(v for v in variations if v.seed is problem)
    assert result.outcome == "generated", result.reason
    assert result.problem is not None
    return result.problem


def test_same_object_different_structure_turns_a_comparison_into_a_total_and_back() -> None:
    total = made(JULIA, "11")
    assert total.question == "how many kids did she play with on monday and on tuesday ?"
    assert (total.prefix, total.answer) == (("+", "N0", "N1"), 28.0)
    difference = made(CAMPERS, "11")
    assert difference.question == "how many more campers went rowing in the morning than in the afternoon ?"
    assert (difference.prefix, difference.answer) == (("-", "N0", "N1"), 8.0)
    objects = made(PEACHES, "11")
    assert objects.question == "how many more green peaches than red peaches are in the basket ?"
    assert (objects.prefix, objects.answer) == (("-", "N1", "N0"), 9.0)
    assert objects.body == PEACHES.body  # question sensitivity keeps the body


def test_change_information_redraws_the_numbers_and_recomputes_the_answer() -> None:
    changed = made(PACO, "22")
    assert changed.numbers != PACO.numbers and changed.prefix == PACO.prefix
    assert changed.answer == int(changed.numbers[0]) - int(changed.numbers[1]) > 0
    assert [w for w in changed.text.split() if not w.isdigit()] == [w for w in PACO.text.split() if not w.isdigit()]
    assert made(PACO, "22") == changed  # seeded: the same draw every time


def test_invert_operation_gives_the_answer_and_asks_for_a_number() -> None:
    inverted = made(JACK, "23")
    assert inverted.text == ("jack had some pencils . jack gave 31 pencils to dorothy . "
                             "jack does have 111 pencils now . how many pencils did jack have at first ?")
    assert (inverted.prefix, inverted.answer) == (("+", "N1", "N0"), 142.0)
    per_pack = made(BETH, "23")
    assert per_pack.question == "how many crayons does each pack have in it ?"
    assert (per_pack.prefix, per_pack.answer) == (("/", "N1", "N0"), 10.0)


def test_change_order_of_objects_and_of_phrases_keep_the_answer() -> None:
    objects = made(PEACHES, "31")
    assert objects.body == "14 green peaches and 5 red peaches are in the basket ."
    assert (objects.prefix, objects.answer) == (("+", "N1", "N0"), 19.0)
    phrases = made(JULIA, "32")
    assert phrases.body == "julia played tag with 10 kids on tuesday . she played tag with 18 kids on monday ."
    assert (phrases.prefix, phrases.answer) == (("-", "N1", "N0"), 8.0)
    assert made(BETH, "32").body == "beth has 4 packs . each pack has 10 crayons in it ."


def test_add_irrelevant_information_swaps_in_another_person_and_a_number_of_the_same_group() -> None:
    distracted = made(JACK, "33")
    first, rest = distracted.body.split(" . ", 1)
    assert rest == JACK.body and distracted.question == JACK.question
    name, verb, number, noun = first.split()
    assert name in ("paco", "julia") and (verb, noun) == ("had", "pencils")
    assert number in {"35", "6", "18", "10"} - set(JACK.numbers)  # from a seed of its group, not its own
    assert distracted.answer == 111.0 and distracted.prefix == ("-", "N1", "N2")


def test_rules_that_do_not_fit_are_counted_not_raised() -> None:
    no_numbers = seed("empty", "nothing here .", "how many ?", (), (), None)
    variations = sv.generate((*SEEDS, no_numbers), NAMES)
    counts = sv.counts(variations).set_index("code")
    assert (counts["seeds"] == len(SEEDS) + 1).all()
    assert (counts["generated"] + counts["not applicable"] + counts["discarded"] == counts["seeds"]).all()
    assert all(v.outcome == "not applicable" and "test#empty" in v.reason for v in variations if v.seed is no_numbers)
    assert sv.of_seed(variations, "paco")["code"].tolist() == list(sv.RULE_CODES)


def test_a_made_problem_must_use_its_own_numbers_and_answer_positively() -> None:
    with pytest.raises(sv.Discarded, match="not in its text"):
        sv.make_problem(PACO, "22", PACO.body.split(), PACO.question.split(), Node("-", (Node("35"), Node("7"))), "t")
    with pytest.raises(sv.Discarded, match="not positive"):
        sv.make_problem(PACO, "22", PACO.body.split(), PACO.question.split(), Node("-", (Node("6"), Node("35"))), "t")
    with pytest.raises(sv.Discarded, match="not whole"):
        sv.make_problem(PACO, "22", PACO.body.split(), PACO.question.split(), Node("/", (Node("35"), Node("6"))), "t")


def test_script_example_masks_persons_and_numbers_as_table_23() -> None:
    text = ("Beth has 4 packs of crayons. Each pack has 10 crayons in it. She also has 6 extra crayons. "
            "How many crayons does Beth have altogether?")
    assert sv.script_example(text) == ("[NAME1] has [NUM1] packs of crayons. Each pack has [NUM2] crayons in it. She "
                                       "also has [NUM3] extra crayons. How many crayons does [NAME1] have altogether?")


def test_variation_accuracy_and_rank_agreement() -> None:
    generated = [made(PACO, "22"), made(JULIA, "32"), made(PEACHES, "31")]
    svamp = [Problem(f"chal-{i}", "b", "q", "", 1.0, meta={"variation_codes": codes})
             for i, codes in enumerate([("22",), ("32",), ("31",), ("22", "11")])]

    def run(model: str, ours: list[bool], theirs: list[bool]) -> tuple[dict, dict]:
        record = {"spec": {"model": model, "config": {"embedding": "scratch"}},
                  "predictions": [{"id": p.id, "correct": c} for p, c in zip(svamp, theirs)]}
        return record, {"predictions": [{"id": p.id, "correct": c} for p, c in zip(generated, ours)]}

    evaluated = [run("a", [True, True, False], [True, True, False, False]),
                 run("b", [True, False, False], [False, False, False, True]),
                 run("c", [False, False, False], [False, False, False, False])]
    frame = sc.variation_accuracy(evaluated, generated, svamp, lambda e: "S")
    a = frame[frame["run"] == "a S"].set_index("code")
    assert a.loc["22", "rule-made: accuracy"] == 100 and a.loc["22", "SVAMP: n"] == 1  # "22, 11" is not 22 alone
    assert a.loc["all", "rule-made: n"] == 3 and a.loc["all", "SVAMP: accuracy"] == 50
    agreement = sc.rank_agreement(frame).set_index("run")
    assert agreement.loc["a S", "Spearman rho"] == pytest.approx(1.0)
    assert agreement.loc["a S, b S, c S", "Spearman rho"] == pytest.approx(1.0)
    assert pd.isna(agreement.loc["c S", "Spearman rho"])  # every type wrong: no ranking to compare
    assert sc.rank_agreement(frame.iloc[0:0]).empty
