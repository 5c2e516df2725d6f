"""DRAW-1K, ALG-514 and DOLPHIN-L with derivation annotations (Upadhyay & Chang 2017), as `Problem`s.

Each record's `meta` holds the annotated derivation: ``template`` (equation strings), ``alignment``
(slot -> (sentence, token) position), ``equiv`` (EquivTNum groups of positions), ``quantities`` (the
textual numbers Q(x), as `NumberToken`s) and ``solutions``. Positions index the release's own tokenisation:
`sQuestion` split on single spaces, a sentence ending after each ``.``, ``?`` or ``!`` token (every annotated
position resolves under this rule). Used by notebook 06.

A record is refused (`DataError` naming file and record) unless its solutions and annotated values are finite
numbers as written, its aligned slots are exactly its template's, and its equations hold at its solutions; a record
whose equations `mwplib.expr` cannot parse is loaded with ``meta["issues"]`` (see `UNPARSABLE_EQUATIONS`).
"""
from __future__ import annotations

import itertools
import json
import re
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from typing import Any

from mwplib.data.checksums import DataError, data_file
from mwplib.data.gold import finite_number
from mwplib.derivation.templates import parse_template
from mwplib.expr import ExpressionError, answers_match, evaluate, parse_equation, unknowns
from mwplib.numbers import DENOMINATORS, FRACTIONS, MULTIPLIERS, TENS, UNITS
from mwplib.problem import Problem, Split
from mwplib.text import split_sentences

FOLDER = "derivations_draw_alg514_dolphinl"
DATASETS = {"draw": "draw.json", "alg514": "kushman.json", "dolphin": "dolphin_t2_final.json"}
NAMES = {"draw": "DRAW-1K", "alg514": "ALG-514", "dolphin": "DOLPHIN-L"}

Position = tuple[int, int]  # (sentence id, token id) as in the release's Alignment/Equiv fields

#: Issue kind of a record whose lEquations `mwplib.expr` cannot parse (DRAW-1K 381652 and 272228 write ``2x`` and
#: ``2(x-y)``): it is loaded, but whether its equations hold at its lSolutions is unchecked.
UNPARSABLE_EQUATIONS = "unparsable-equations"

#: Most unknowns a record's equations may have, as in the release: their n! assignments to lSolutions are each
#: evaluated exactly, which for 6 unknowns took a crafted record minutes.
MAX_UNKNOWNS = 3

_WORDS: dict[str, int] = {**UNITS, **TENS}  # cardinal words up to ninety (a compound is one token: "twenty-five")
#: Words that stand for a number in these problems without being number words: coins in dollars, and the step 2
#: between consecutive odd or even numbers.
_IMPLIED = {"dimes": Fraction(1, 10), "nickels": Fraction(1, 20), "nickles": Fraction(1, 20),
            "pennies": Fraction(1, 100), "odd": Fraction(2), "even": Fraction(2)}
_LEXICON: dict[str, Fraction] = {
    **{w: Fraction(v) for w, v in {**_WORDS, **MULTIPLIERS}.items()}, **FRACTIONS, **_IMPLIED}
#: The denominators read in "two-thirds": the loader's own subset of `DENOMINATORS` (a token with another one, such as
#: "two-sevenths", reads as 2 like "four-legged": widening the subset would change what `number_value` reads).
_ORDINAL_DENOMINATORS = {w: DENOMINATORS[w] for w in
                         "half halves third thirds fourth fourths fifth fifths sixth sixths eighth tenth".split()}
_DIGITS = re.compile(r"^([-+]?)\$?(\d[\d,]*(?:\.\d+)?|\.\d+)%?(?:-?[a-zA-Z]+)?$")
_FRACTION = re.compile(r"^(\d+)/(\d+)$")


@dataclass(frozen=True)
class NumberToken:
    """A textual number q ∈ Q(x): where it is, its surface token and its exact value.

    Not a `mwplib.numbers.Quantity` (a numeral matched by character span under the package's number rules): q is a
    whole token of the release's tokenisation, identified by its (sentence, token) position, which the annotated
    alignments point at; it may be a word ("twice", "dimes") or a numeral with more around it ("$5", "10-dollar"),
    and its value may be the annotators' rather than read from the token."""

    position: Position
    token: str
    value: Fraction


def sentences(text: str) -> list[list[str]]:
    """The release's tokenisation: single-space tokens, cut into sentences by `mwplib.text.split_sentences`."""
    return split_sentences(text.split(" "))


def number_value(token: str) -> Fraction | None:
    """Value of a token read as a number ("1,200", "6%", "10-dollar", "twice", "two-thirds"), else None."""
    match = _DIGITS.match(token)
    if match:
        value = Fraction(match.group(2).replace(",", ""))
        return -value if match.group(1) == "-" else value
    match = _FRACTION.match(token)
    if match and int(match.group(2)):
        return Fraction(int(match.group(1)), int(match.group(2)))
    word = token.lower()
    if word in _LEXICON:
        return _LEXICON[word]
    head, _, tail = word.partition("-")
    if head in _WORDS and tail in _ORDINAL_DENOMINATORS:
        return Fraction(_WORDS[head], _ORDINAL_DENOMINATORS[tail])
    if head in _WORDS and tail in _WORDS and _WORDS[head] >= 20 and _WORDS[tail] < 10:
        return Fraction(_WORDS[head] + _WORDS[tail])
    if head in _WORDS and tail.isalpha() and tail not in _WORDS:
        return Fraction(_WORDS[head])  # "four-legged", "five-point"
    return None


def _annotated_value(value: Any, what: str, where: str) -> Fraction:
    """An annotated number read without coercion: `float` took ``"1110"`` and ``true`` as numbers."""
    return Fraction(finite_number(value, what, where)).limit_denominator(10**6)


def _close(a: Fraction, b: Fraction) -> bool:
    return abs(a - b) <= Fraction(1, 10**5) * max(1, abs(b))


def _quantities(tokens: list[list[str]], annotated: dict[Position, Fraction]
                ) -> tuple[tuple[NumberToken, ...], int]:
    """Q(x): rule-based numbers plus every annotated position (the annotation stands in for CoreNLP's
    quantity normaliser there; its value wins when ours differs). Returns Q(x) and #annotated overrides."""
    found, overrides = {}, 0
    for sid, sentence in enumerate(tokens):
        for tid, token in enumerate(sentence):
            value = number_value(token)
            if value is not None:
                found[(sid, tid)] = NumberToken((sid, tid), token, value)
    for pos, value in annotated.items():
        if pos not in found or not _close(found[pos].value, value):
            overrides += 1
            found[pos] = NumberToken(pos, tokens[pos[0]][pos[1]], value)
    return tuple(found[p] for p in sorted(found)), overrides


def _position(tokens: list[list[str]], sid: Any, tid: Any, where: str) -> Position:
    """(sentence, token) of an annotation; only non-negative integers that index a token (a float, a boolean or a
    negative index would be silently coerced or wrap around to another token)."""
    if not all(type(v) is int and v >= 0 for v in (sid, tid)) or sid >= len(tokens) or tid >= len(tokens[sid]):
        raise DataError(f"{where}: position ({sid!r}, {tid!r}) is not a token of sQuestion")
    return sid, tid


def _template_slots(template: list[str], where: str) -> set[str]:
    """The template's slots, which the alignment must cover exactly (else `gold_derivation` fails in notebook 06)."""
    if not template:
        raise DataError(f"{where}: Template is empty")
    try:
        return set(parse_template(template).slots)
    except (ValueError, RecursionError) as error:  # TemplateError, a literal past the digit limit, deep brackets
        raise DataError(f"{where}: Template {template!r:.80} is not a system of linear equations "
                        f"({type(error).__name__}: {str(error)[:80]})") from None


def _equation_issues(equations: list[str], solutions: tuple[float, ...], where: str) -> list[str]:
    """[] when the equations hold with their unknowns set to the solutions in some order (the release does not say
    which solution is which unknown); an `UNPARSABLE_EQUATIONS` issue when `mwplib.expr` cannot parse them, so that
    the check cannot run; DataError when they do not hold."""
    try:
        sides = [parse_equation(equation) for equation in equations]
    except ExpressionError as error:
        return [f"{UNPARSABLE_EQUATIONS}: {error}"]
    if not sides:
        raise DataError(f"{where}: lEquations is empty")
    names = unknowns(*(side for pair in sides for side in pair))
    if len(names) != len(solutions):
        raise DataError(f"{where}: lEquations have the unknowns {names!r:.60}, lSolutions {len(solutions)} values")
    if len(names) > MAX_UNKNOWNS:
        raise DataError(f"{where}: lEquations have {len(names)} unknowns, more than the release's {MAX_UNKNOWNS} "
                        "(each order of lSolutions is tried)")
    for order in itertools.permutations(solutions):
        values = dict(zip(names, order))
        try:
            if all(answers_match(evaluate(lhs, values), evaluate(rhs, values)) for lhs, rhs in sides):
                return []
        except ValueError:  # ExpressionError (division by zero at these values), a literal past the digit limit
            continue
    raise DataError(f"{where}: lEquations {equations!r:.80} do not hold at lSolutions {list(solutions)!r:.80}")


def _problem(dataset: str, record: dict[str, Any], where: str) -> Problem:
    try:
        text, template, solutions = record["sQuestion"], record["Template"], record["lSolutions"]
        alignment_rows, equiv_rows, index = record["Alignment"], record["Equiv"], record["iIndex"]
        equations = record["lEquations"]
    except KeyError as err:
        raise DataError(f"{where}: missing field {err}") from err
    lists = {"Template": template, "lEquations": equations, "lSolutions": solutions, "Alignment": alignment_rows,
             "Equiv": equiv_rows}
    wrong = [name for name, value in lists.items() if not isinstance(value, list)]
    if not isinstance(text, str) or type(index) is not int or wrong:
        raise DataError(f"{where}: expected a string sQuestion, an integer iIndex and lists, not "
                        f"{', '.join(wrong) or 'these'} of another type")
    if not all(isinstance(line, str) for line in (*template, *equations)):
        raise DataError(f"{where}: Template and lEquations must hold equation strings")
    if not solutions:
        raise DataError(f"{where}: lSolutions is empty")
    values = tuple(finite_number(value, f"lSolutions[{k}]", where) for k, value in enumerate(solutions))
    tokens = sentences(text)
    alignment, annotated = {}, {}
    for row in alignment_rows:
        slot = row.get("coeff")
        if not isinstance(slot, str):
            raise DataError(f"{where}: alignment coeff {str(slot)[:40]!r} is not a slot name")
        pos = _position(tokens, row.get("SentenceId"), row.get("TokenId"), where)
        if slot in alignment:
            raise DataError(f"{where}: slot {slot!r} aligned twice")
        alignment[slot] = pos
        annotated[pos] = _annotated_value(row.get("Value"), f"alignment Value of slot {slot!r:.40}", where)
    slots = _template_slots(template, where)
    if set(alignment) != slots:
        raise DataError(f"{where}: aligned slots {sorted(alignment)!r:.80} are not the Template's slots "
                        f"{sorted(slots)!r:.80}")
    issues = _equation_issues(equations, values, where)
    equiv = []
    for group in equiv_rows:
        positions = []
        for entry in group:
            if len(entry) != 3:
                raise DataError(f"{where}: Equiv entry {entry!r} is not [SentenceId, TokenId, Value]")
            pos = _position(tokens, entry[0], entry[1], where)
            annotated.setdefault(pos, _annotated_value(entry[2], "Equiv value", where))
            positions.append(pos)
        equiv.append(frozenset(positions))
    quantities, overrides = _quantities(tokens, annotated)
    return Problem(
        id=f"{dataset}:{index}", body=text, question="", equation=" ; ".join(equations),
        answer=values[0], numbers=tuple(q.token for q in quantities),
        meta={"source": where, "dataset": dataset, "iIndex": index, "template": tuple(template),
              "alignment": alignment, "equiv": tuple(equiv), "quantities": quantities, "solutions": values,
              "value_overrides": overrides, **({"issues": tuple(issues)} if issues else {})})


@lru_cache(maxsize=None)
def _load(dataset: str) -> tuple[tuple[Problem, ...], tuple[str, ...]]:
    if dataset not in DATASETS:
        raise ValueError(f"unknown derivation dataset {dataset!r}; choose one of {sorted(DATASETS)}")
    relpath = f"{FOLDER}/{DATASETS[dataset]}"
    try:
        records = json.loads(data_file(relpath).read_text(encoding="utf-8"))
    except json.JSONDecodeError as err:
        raise DataError(f"{relpath}: not valid JSON ({err})") from err
    if not isinstance(records, list):
        raise DataError(f"{relpath}: expected a JSON list of problems, got {type(records).__name__}")
    problems: dict[str, Problem] = {}
    raw: dict[str, dict] = {}
    duplicates = []
    for i, record in enumerate(records):
        if not isinstance(record, dict):
            raise DataError(f"{relpath} record {i}: expected an object, got {type(record).__name__}")
        where = f"{relpath} record {i} (iIndex {record.get('iIndex')})"
        try:
            problem = _problem(dataset, record, where)
        except DataError:
            raise
        except (KeyError, TypeError, ValueError, AttributeError) as err:  # a field of the wrong shape or type
            raise DataError(f"{where}: malformed record ({type(err).__name__}: {err})") from err
        if problem.id in problems:
            if raw[problem.id] != record:
                raise DataError(f"{where}: iIndex repeated with different content")
            duplicates.append(problem.id)
            continue
        problems[problem.id], raw[problem.id] = problem, record
    return tuple(problems.values()), tuple(duplicates)


def load_derivations(dataset: str) -> tuple[Problem, ...]:
    """All problems of 'draw', 'alg514' or 'dolphin'; identical duplicate rows merged (see `duplicates`)."""
    return _load(dataset)[0]


def duplicates(dataset: str) -> tuple[str, ...]:
    """Problem ids that occurred more than once, with identical content, and were merged (DRAW: 153934)."""
    return _load(dataset)[1]


def _ids(dataset: str, filename: str, known: dict[str, Problem]) -> list[str]:
    relpath = f"{FOLDER}/{filename}"
    ids = []
    for lineno, line in enumerate(data_file(relpath).read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            pid = f"{dataset}:{int(line)}"
        except ValueError as err:
            raise DataError(f"{relpath}:{lineno}: {line.strip()!r} is not an iIndex") from err
        if pid not in known:
            raise DataError(f"{relpath}:{lineno}: iIndex {line.strip()} is not in {DATASETS[dataset]}")
        if pid not in ids:
            ids.append(pid)
    return ids


def derivation_splits(dataset: str, folds: tuple[int, ...] = (0, 1, 2, 3, 4)) -> list[Split]:
    """The paper's splits: DRAW-1K train/dev/test (one split, `folds` ignored); ALG-514 and DOLPHIN-L
    5-fold CV test folds, training on everything else (DOLPHIN-L's 172 unfolded problems always train)."""
    problems = {p.id: p for p in load_derivations(dataset)}
    if dataset == "draw":
        parts = {part: tuple(problems[i] for i in _ids(dataset, f"draw-{part}.txt", problems))
                 for part in ("train", "dev", "test")}
        return [Split("draw", parts["train"], parts["test"], parts["dev"])]
    prefix = {"alg514": "kushman-fold", "dolphin": "dolphin-t2-fold-new"}[dataset]
    splits = []
    for fold in folds:
        test = set(_ids(dataset, f"{prefix}-{fold}.txt", problems))
        splits.append(Split(f"{dataset}-fold{fold}", tuple(p for i, p in problems.items() if i not in test),
                            tuple(problems[i] for i in problems if i in test)))
    return splits
