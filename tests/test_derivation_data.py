"""The loader and the metrics on the paper's case studies (§5.3), read from the released data."""
import json

import pytest

from mwplib.data import derivations as derivations_data
from mwplib.data.checksums import DataError
from mwplib.data.derivations import derivation_splits, duplicates, load_derivations, number_value
from mwplib.derivation.derivations import Derivation, first_equation_derivation, gold_derivation
from mwplib.derivation.experiments import same_equations, walkthrough
from mwplib.derivation.metrics import inconsistent_gold, score, solution_correct
from mwplib.derivation.solve import solve_linear


def _find(dataset, fragment):
    (problem,) = [p for p in load_derivations(dataset) if fragment in p.body]
    return problem


def test_sizes_and_splits_match_the_release():
    assert [len(load_derivations(d)) for d in ("draw", "alg514", "dolphin")] == [999, 514, 831]
    assert duplicates("draw") == ("draw:153934",)
    (draw,) = derivation_splits("draw")
    assert (len(draw.train), len(draw.dev), len(draw.test)) == (600, 199, 200)
    dolphin = derivation_splits("dolphin")
    assert [len(s.test) for s in dolphin] == [134, 131, 132, 132, 130]
    tested = set().union(*({p.id for p in s.test} for s in dolphin))
    assert all(len(s.train) + len(s.test) == 831 for s in dolphin) and len(tested) == 831 - 172


def test_number_words():
    assert number_value("1,200") == 1200 and number_value("twice") == 2 and number_value("-3") == -3
    assert number_value("two-thirds") * 3 == 2 and number_value("10-dollar") == 10
    assert number_value("numbers") is None


def test_sum_of_two_numbers_case_right_solution_wrong_derivation():
    problem = _find("dolphin", "The sum of 2 numbers is 25 . 12 less than 4 times one")
    gold = gold_derivation(problem)
    # the solver's derivation of §5.3: q1 m − q5 n = q7 + q3, m + n = q2
    predicted = Derivation(gold.template, {"a": (0, 3), "b": (1, 5), "c": (1, 13), "d": (1, 0), "e": (0, 6)})
    assert score(problem, predicted) == {"solution": True, "equation": False, "derivation": False}
    assert score(problem, gold)["derivation"] and score(problem, gold)["solution"]
    # the case-study classifier: 2m − n = 2 + 12 is not the gold 4m − 2n = 16 + 12, though it has its solution
    assert not same_equations(predicted, problem) and same_equations(first_equation_derivation(problem), problem)


def test_coffee_and_bagels_case_caught_by_derivation_not_equation_accuracy():
    problem = _find("alg514", "bagels and spent 12.75")
    approx = first_equation_derivation(problem)
    assert approx.alignment["d"] == (0, 7)  # the first "2" (bagels), not the second (cups of coffee)
    assert gold_derivation(problem).alignment["d"] == (1, 2)
    assert score(problem, approx) == {"solution": True, "equation": True, "derivation": False}


def test_solution_accuracy_matches_values_as_a_multiset():
    assert solution_correct(solve_linear([[1, 0], [0, 1]], [12, 13]), (13.0, 12.0))
    assert not solution_correct(solve_linear([[1, 0], [0, 1]], [13, 13]), (13.0, 12.0))
    assert not solution_correct(solve_linear([[1, 1], [1, 1]], [1, 1]), (0.5,))


@pytest.mark.parametrize("dataset, known", [("draw", []), ("alg514", []),
                                           ("dolphin", ["dolphin:2000661", "dolphin:2000334"])])
def test_gold_derivations_reproduce_the_reference_solution_but_two_annotation_errors(dataset, known):
    assert sorted(inconsistent_gold(load_derivations(dataset))) == sorted(known)


def test_derivation_induced_from_equations_turns_text_numbers_into_first_match_slots():
    from mwplib.derivation.derivations import induced_derivation

    problem = _find("alg514", "bagels and spent 12.75")
    induced = induced_derivation(problem)
    assert induced.template.key == "( a * m ) + ( b * n ) = c ; ( d * m ) + ( e * n ) = f"
    assert induced.alignment["d"] == (0, 7)  # the first 2 of the text
    assert score(problem, induced) == {"solution": True, "equation": True, "derivation": False}


_RECORD = {"sQuestion": "John has 3 apples.", "Template": ["a", "=", "m"], "lSolutions": [3.0], "Alignment": [],
           "Equiv": [], "iIndex": 7, "lEquations": ["x=3"]}


@pytest.mark.parametrize("content, message", [
    ("[{", r"draw\.json: not valid JSON"),
    ('{"iIndex": 7}', r"draw\.json: expected a JSON list of problems, got dict"),
    ("[1]", r"draw\.json record 0: expected an object, got int"),
    (json.dumps([_RECORD, {**_RECORD, "lSolutions": ["three"]}]),
     r"draw\.json record 1 \(iIndex 7\): malformed record \(ValueError"),
    (json.dumps([{**_RECORD, "Alignment": [["a", 0, 2]]}]), r"draw\.json record 0 \(iIndex 7\): malformed record"),
    (json.dumps([{k: v for k, v in _RECORD.items() if k != "Equiv"}]), r"record 0 \(iIndex 7\): missing field 'Equiv'"),
])
def test_a_malformed_file_or_record_raises_naming_the_file_and_record(tmp_path, monkeypatch, content, message):
    broken = tmp_path / "draw.json"
    broken.write_text(content, encoding="utf-8")
    monkeypatch.setattr(derivations_data, "data_file", lambda relpath: broken)
    derivations_data._load.cache_clear()
    try:
        with pytest.raises(DataError, match=message):
            load_derivations("draw")
    finally:
        derivations_data._load.cache_clear()


def test_a_split_line_that_is_not_an_index_raises_naming_file_and_line(tmp_path, monkeypatch):
    ids = tmp_path / "ids.txt"
    ids.write_text("7\nseven\n", encoding="utf-8")
    monkeypatch.setattr(derivations_data, "data_file", lambda relpath: ids)
    with pytest.raises(DataError, match=r"ids\.txt:2: 'seven' is not an iIndex"):
        derivations_data._ids("draw", "ids.txt", {"draw:7": None})


def test_walkthrough_shows_the_coffee_and_bagels_case_of_section_5_3():
    steps = walkthrough().set_index("step")["value"]
    assert "q2(2) * m + q5(5) * n = q6(14.00)" in steps["first-match derivation (equation accuracy's reference)"]
    assert "q4(2) * m" in steps["annotated derivation"]
    verdicts = [steps[f"{m} accuracy of a solver predicting the first match"] for m in ("solution", "equation",
                                                                                         "derivation")]
    assert verdicts == ["right", "right", "wrong"]
    with pytest.raises(ValueError, match="no problem 'nope' in alg514"):
        walkthrough("alg514", "nope")
