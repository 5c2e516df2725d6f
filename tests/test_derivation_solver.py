"""The structured perceptron on tiny synthetic problems (no spaCy: tags are given)."""
import itertools
from fractions import Fraction

from mwplib.derivation.datasets import NumberToken, sentences
from mwplib.derivation.features import problem_features
from mwplib.derivation.perceptron import Example, Solver
from mwplib.derivation.templates import parse_template
from mwplib.problem import Problem

PLUS, MINUS = parse_template(["m = a + b"]), parse_template(["m = a - b"])


def _example(i: int, x: int, y: int, op: str) -> Example:
    text = f"Tom has {x} apples and {'gets' if op == '+' else 'loses'} {y} more . How many now ?"
    words = sentences(text)
    quantities = (NumberToken((0, 2), str(x), Fraction(x)), NumberToken((0, 6), str(y), Fraction(y)))
    problem = Problem(id=f"syn:{i}", body=text, question="", equation="", answer=None,
                      meta={"quantities": quantities, "source": f"synthetic {i}"})
    features = problem_features(problem, [(w.lower(), "NUM" if w.isdigit() else "X") for s in words for w in s])
    return Example(problem, features, 0 if op == "+" else 1, (0, 1))


def _data(start: int, n: int) -> list[Example]:
    return [_example(i, 10 + 3 * i, 1 + i % 7, "+-"[i % 2]) for i in range(start, start + n)]


def test_perceptron_learns_template_choice_and_alignment():
    solver = Solver([PLUS, MINUS])
    untrained = sum(solver.decode(e) == (e.template, e.alignment) for e in _data(100, 20))
    solver.train(_data(0, 40), epochs=3, seed=0)
    trained = sum(solver.decode(e) == (e.template, e.alignment) for e in _data(100, 20))
    assert trained == 20 and untrained < 20


def test_beam_search_finds_the_best_scoring_alignment():
    solver = Solver([PLUS, MINUS], beam=1000)
    solver.train(_data(0, 10), epochs=1, seed=0)
    example = _data(50, 1)[0]
    tid, alignment = solver.decode(example)
    best = max(solver.score(example, t, a) for t in (0, 1) for a in itertools.permutations(range(2), 2))
    assert abs(solver.score(example, tid, alignment) - best) < 1e-9


def test_claims_are_read_from_the_pooled_table3_accuracies():
    from mwplib.derivation.experiments import DATASETS, claims

    def run(solution: int, equation: int, derivation: int) -> list[dict]:  # 4 test problems, k right per metric
        return [{"predictions": {i: {"solution": i < solution, "equation": i < equation, "derivation": i < derivation}
                                 for i in range(4)}}]

    runs3 = {(d, "TE"): run(3, 2, 1) for d in DATASETS} | {(d, "TD"): run(3, 3, 3) for d in DATASETS}
    assert list(claims(runs3).values()) == [True, True, False, True]
    runs3[("draw", "TD")] = run(4, 1, 1)  # DRAW-1K: TD no better under derivation, better under solution
    assert list(claims(runs3).values()) == [True, False, True, False]


def test_vocabulary_counts_distinct_lowercased_words_only():
    from mwplib.derivation.experiments import vocabulary

    problems = [Problem(id="a", body="Tom has 3 apples . tom eats 2 .", question="", equation="", answer=None,
                        numbers=()),
                Problem(id="b", body="Apples cost $ 4 each ?", question="", equation="", answer=None, numbers=())]
    assert vocabulary(problems) == len({"tom", "has", "apples", "eats", "cost", "each"})
