"""Scoring: execution accuracy, equation/template match, breakdowns, majority-template baseline."""
import pytest

from mwplib import metrics
from mwplib.svamp import model_tables, paper_numbers
from mwplib.problem import Problem, Split


def make(pid: str, numbers: tuple[str, ...], prefix: tuple[str, ...], answer: float | None, **meta) -> Problem:
    return Problem(id=pid, body=f"problem {pid}", question="", equation="", answer=answer, numbers=numbers,
                   prefix=prefix, meta={"source": f"test#{pid}", **meta})


@pytest.mark.parametrize("prefix, numbers, gold, expected", [
    (("+", "N0", "N1"), ("5", "3"), 8.0, True),
    (("+", "N1", "N0"), ("5", "3"), 8.0, True),  # execution accuracy ignores the order of commutative ops
    (("-", "N0", "N1"), ("5", "3"), 8.0, False),
    (("/", "N0", "N1"), ("15", "7"), 2.14285714286, True),  # rounded gold matches the exact 15/7
    (("/", "N0", "N1"), ("15", "0"), 0.0, False),  # division by zero is wrong, not a crash
    (("+", "N0", "N5"), ("5", "3"), 8.0, False),  # slot the problem does not have
    (("+", "N0"), ("5", "3"), 5.0, False),  # malformed prefix
    ((), ("5",), 5.0, False),  # empty prediction
    (("+", "N0", "N1"), ("5", "3"), None, False),  # no gold answer never matches
    (("*", "N0", "0.5"), ("3/4",), 0.375, True),  # fraction numbers and constants
])
def test_answer_correct(prefix, numbers, gold, expected):
    assert metrics.answer_correct(prefix, numbers, gold) is expected


def test_answer_accuracy_is_pooled_and_requires_every_prediction():
    problems = [make("a", ("2", "3"), ("+", "N0", "N1"), 5.0), make("b", ("2", "3"), ("*", "N0", "N1"), 6.0),
                make("c", ("9", "3"), ("/", "N0", "N1"), 3.0)]
    predictions = {"a": ("+", "N0", "N1"), "b": ("+", "N0", "N1"), "c": ("/", "N0", "N1")}
    assert metrics.answer_accuracy(problems, predictions) == pytest.approx(2 / 3)
    assert metrics.answer_correctness(problems, predictions) == {"a": True, "b": False, "c": True}
    with pytest.raises(KeyError, match="c"):
        metrics.answer_accuracy(problems, {"a": ("+", "N0", "N1"), "b": ()})


def test_equation_and_template_match():
    assert metrics.equation_exact_match(["-", "N0", "N1"], ("-", "N0", "N1"))
    assert not metrics.equation_exact_match(("-", "N1", "N0"), ("-", "N0", "N1"))
    assert metrics.template_match(("-", "N1", "N0"), ("-", "N0", "N1"))
    assert metrics.template_match(("*", "N0", "100"), ("*", "N2", "N1"))  # constants are numbers too
    assert not metrics.template_match(("+", "N0", "N1"), ("-", "N0", "N1"))
    assert not metrics.template_match(("+", "N0"), ("+", "N0", "N1"))


def test_accuracy_by_builtin_keys_meta_and_callables():
    problems = [make("a", ("1", "2"), ("+", "N0", "N1"), 3.0, type="Addition", variation_codes=("11", "21")),
                make("b", ("1", "2", "3"), ("+", "N0", "*", "N1", "N2"), 7.0, type="Addition",
                     variation_codes=("21",)),
                make("c", ("4", "2"), ("/", "N0", "N1"), 2.0, type="Common-Division", variation_codes=("33",))]
    correct = {"a": True, "b": False, "c": True}
    by_code = metrics.accuracy_by(problems, correct, "variation_code").set_index("group")
    assert by_code.loc["21", "n"] == 2 and by_code.loc["21", "correct"] == 1  # "a" counts in 11 and in 21
    assert by_code["n"].sum() == 4
    repeated = [make("d", ("1", "2"), ("+", "N0", "N1"), 3.0, type="Addition", variation_codes=("11", "23", "11"))]
    assert list(metrics.accuracy_by(repeated, {"d": True}, "variation_code")["n"]) == [1, 1]  # SVAMP's chal-64
    by_ops = metrics.accuracy_by(problems, correct, "n_operators").set_index("group")
    assert by_ops.loc[1, "accuracy"] == 1.0 and by_ops.loc[2, "accuracy"] == 0.0
    assert list(metrics.accuracy_by(problems, correct, "n_numbers")["n"]) == [2, 1]
    by_length = metrics.accuracy_by(problems, correct, lambda p: {"a": 10, "b": 2, "c": 9}[p.id])
    assert list(by_length["group"]) == [2, 9, 10]  # numeric groups in numeric order
    by_type = metrics.accuracy_by(problems, correct, "type").set_index("group")
    assert by_type.loc["Addition", "accuracy"] == 0.5
    by_fn = metrics.accuracy_by(problems, correct, lambda p: p.answer > 2.5).set_index("group")
    assert by_fn.loc[True, "n"] == 2
    with pytest.raises(KeyError, match="grade"):
        metrics.accuracy_by(problems, correct, "grade")
    with pytest.raises(KeyError, match="c"):
        metrics.accuracy_by(problems, {"a": True, "b": True}, "type")


def test_majority_template_baseline_fills_numbers_in_text_order():
    train = [make("t1", ("9", "4"), ("-", "N0", "N1"), 5.0), make("t2", ("9", "4"), ("-", "N1", "N0"), -5.0),
             make("t3", ("2", "3"), ("+", "N0", "N1"), 5.0)]
    assert metrics.majority_template(train) == ("-", "n", "n")
    test = [make("a", ("10", "4"), ("-", "N0", "N1"), 6.0),  # filled as N0 - N1: right
            make("b", ("4", "10"), ("-", "N1", "N0"), 6.0),  # same template, other order: wrong
            make("c", ("7",), ("+", "N0", "1"), 8.0),  # fewer numbers than slots: wrong
            make("d", ("2", "3"), ("+", "N0", "N1"), 5.0)]  # other template: wrong
    assert metrics.majority_template_predictions(train, test)["b"] == ("-", "N0", "N1")
    assert metrics.majority_template_baseline(train, test) == pytest.approx(1 / 4)
    table = model_tables.majority_baseline_table({"ASDiv-A": [Split("f0", tuple(train), tuple(test)),
                                                         Split("f1", tuple(train[2:]), tuple(test))]})
    row = table.iloc[0]
    assert (row["paper"], row["splits"], row["test problems"]) == (paper_numbers.PAPER_MAJORITY_BASELINE["asdiv-a"], 2, 8)
    assert row["ours"] == pytest.approx(100 * 2 / 8)  # pooled over both folds: 1 of 4, then d of 4
    assert row["template"] == "+ n n | - n n"  # the distinct templates over the folds


def test_majority_template_ties_go_to_first_seen_and_empty_training_raises():
    train = [make("t1", ("2", "3"), ("*", "N0", "N1"), 6.0), make("t2", ("9", "4"), ("-", "N0", "N1"), 5.0)]
    assert metrics.majority_template(train) == ("*", "n", "n")
    assert metrics.fill_template(("+", "n", "*", "n", "n")) == ("+", "N0", "*", "N1", "N2")
    with pytest.raises(ValueError, match="undefined"):
        metrics.majority_template([make("x", ("1",), (), 1.0)])
