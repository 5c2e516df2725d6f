"""The one-problem walkthrough the notebooks show before their tables (`mwplib.lesson`)."""
import pytest

from mwplib import lesson
from mwplib.problem import Problem

PROBLEM = Problem(id="p1", body="Tom has 7 apples and gives 3 to Ann.", question="How many are left?",
                  equation="x = 7 - 3", answer=4.0, numbers=("7", "3"), prefix=("-", "N0", "N1"))


def _prediction(prefix, answer, correct):
    return {"id": "p1", "prefix": list(prefix), "answer": answer, "correct": correct, "logprob": -0.1}


def test_walk_masks_numbers_to_slots_and_says_why_it_is_right():
    walk = lesson.walk(PROBLEM, _prediction(("-", "N0", "N1"), 4.0, True))
    assert walk.masked == "tom has N0 apples and gives N1 to ann . how many are left ?"  # lower-cased, as read
    assert walk.slots == "N0 = 7, N1 = 3"
    assert walk.gold == "- N0 N1   (x = N0 - N1)"
    assert walk.answer == "4 (gold 4)" and walk.why.startswith("right: the predicted expression is the gold one")
    frame = lesson.table(walk)
    assert list(frame["step"]) == ["text", "what the model reads", "numbers", "gold expression", "predicted",
                                   "answer", "why"]


@pytest.mark.parametrize("prefix, answer, correct, why", [
    (("-", "+", "N0", "N1", "+", "N1", "N1"), 4.0, True, "right: another expression"),
    (("-", "N1", "N0"), -4.0, False, "wrong: the right operators in the right shape, over the wrong numbers"),
    (("+", "N0", "N1"), 10.0, False, "wrong: another operation"),
    (("+", "N0"), None, False, "wrong: the prediction is not a well-formed expression"),
])
def test_why_names_what_differs_from_the_gold_expression(prefix, answer, correct, why):
    walk = lesson.walk(PROBLEM, _prediction(prefix, answer, correct))
    assert walk.why.startswith(why)
    if answer is None:
        assert walk.answer == "none (gold 4)" and "not a well-formed" in walk.predicted


def test_first_picks_in_test_order_and_says_when_there_is_none():
    record = {"predictions": [_prediction(("-", "N0", "N1"), 4.0, True)]}
    assert lesson.first([PROBLEM], record, correct=True) == (PROBLEM, record["predictions"][0])
    with pytest.raises(ValueError, match="no wrong prediction"):
        lesson.first([PROBLEM], record, correct=False)


def test_right_and_wrong_puts_both_walkthroughs_side_by_side():
    wrong_problem = Problem(id="p2", body="Ann has 9 pens and loses 4.", question="How many now?",
                            equation="x = 9 - 4", answer=5.0, numbers=("9", "4"), prefix=("-", "N0", "N1"))
    record = {"predictions": [_prediction(("-", "N0", "N1"), 4.0, True),
                              {**_prediction(("+", "N0", "N1"), 13.0, False), "id": "p2"}]}
    frame = lesson.right_and_wrong([PROBLEM, wrong_problem], record)
    assert list(frame.columns) == ["step", "right", "wrong"]
    assert frame.set_index("step").loc["answer"].tolist() == ["4 (gold 4)", "13 (gold 5)"]


def test_right_and_wrong_shows_the_one_column_a_run_has():
    record = {"key": "k", "predictions": [_prediction(("-", "N0", "N1"), 4.0, True)]}
    assert list(lesson.right_and_wrong([PROBLEM], record).columns) == ["step", "right"]
    with pytest.raises(ValueError, match="run k has no prediction"):
        lesson.right_and_wrong([PROBLEM], {"key": "k", "predictions": []})


def test_an_exercise_check_says_right_not_yet_or_not_answered_and_never_gives_the_answer_away():
    from mwplib.lesson import check

    assert check(None, 42) == "not answered yet: set `answer` above and run this cell again"
    assert check(42, 42) == "right" and check(41.6, 42, tolerance=0.5) == "right"
    assert check(40, 42, tolerance=0.5, hint="count the folds") == "not yet: count the folds"
    assert check("gts", "gts") == "right" and check("seq2seq", "gts") == "not yet"
    assert check(True, 1) == "not yet"  # a yes/no is not a number
    assert "42" not in check(7, 42, hint="look at the table")


def test_every_notebook_ends_with_exercises_each_with_a_check_and_a_folded_solution():
    """Issue 49: notebooks as lessons. Two or three exercises per notebook, each a question, a cell that prints
    `lesson.check(answer, ...)` with `answer = None` as shipped, and a `<details>` solution; before the bookkeeping."""
    import json
    from pathlib import Path

    for path in sorted(Path(__file__).resolve().parents[1].glob("notebooks/[0-9][0-9]_*.ipynb")):
        cells = json.loads(path.read_text())["cells"]
        sources = ["".join(c["source"]) for c in cells]
        start = next(i for i, s in enumerate(sources) if s.startswith("## Exercises"))
        titles = [i for i, s in enumerate(sources) if i >= start and "### Exercise" in s]
        assert 2 <= len(titles) <= 3, path.name
        for i in titles:
            check, solution = cells[i + 1], sources[i + 2]
            assert check["cell_type"] == "code" and "lesson.check(answer" in sources[i + 1], (path.name, i)
            assert "answer = None" in sources[i + 1], (path.name, i)
            assert solution.startswith("<details><summary>Solution</summary>"), (path.name, i)
        last_code = max(i for i, c in enumerate(cells) if c["cell_type"] == "code")
        assert "remove-cell" in cells[last_code]["metadata"].get("tags", []) and last_code > titles[-1], path.name


def test_every_notebook_opens_with_what_the_reader_will_learn_in_80_words_or_fewer():
    """Issue 49: caveats belong in a closing cell; the opening says what the lesson teaches."""
    import json
    from pathlib import Path

    for path in sorted(Path(__file__).resolve().parents[1].glob("notebooks/[0-9][0-9]_*.ipynb")):
        cells = json.loads(path.read_text())["cells"]
        title, _, body = "".join(cells[0]["source"]).partition("\n")
        assert title.startswith(f"# {path.name[:2]} · ") and "You will learn" in body, path.name
        assert len(body.split()) <= 80, (path.name, len(body.split()))
        assert any("".join(c["source"]).startswith("## Closing note") for c in cells), path.name
