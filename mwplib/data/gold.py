"""Raw records → gold slot prefixes, shared by the MAWPS, ASDiv-A and Math23K loaders.

The three datasets write their gold differently (MAWPS ``56*9=x`` or ``3*x+5=20``, ASDiv ``7+2=9``, Math23K
``x=6/(2/5)-6``), but every loader ends the same way: the expression for the unknown is mapped onto the
quantities of the text (slots ``N0``…) and checked against the gold answer. Records that do not fit are
kept and annotated in ``meta["issues"]`` (one ``"<kind>: <detail>"`` string each) rather than dropped, so
that every count the notebooks report can be traced back to the records behind it.
"""
from __future__ import annotations

import json
import math
import re
from typing import Any, Iterable, Sequence

from mwplib.data.checksums import DataError, data_file
from mwplib.expr import ExpressionError, Node, answers_match, evaluate, is_number, map_leaves, parse_prefix, to_prefix
from mwplib.numbers import Quantity, constants, find_numbers, format_number, map_equation
from mwplib.problem import Problem
from mwplib.reading import signed_numbers

#: The unknown cannot be isolated as one expression (it occurs twice, the equation is malformed, ...):
#: the problem keeps ``prefix=()``.
NO_EXPRESSION = "no-single-expression"
#: The prefix, evaluated on the text's numbers, differs from the gold answer (rounded or wrong gold,
#: floor/ceil division in ASDiv).
ANSWER_MISMATCH = "answer-mismatch"
#: A number of the gold equation occurs nowhere in the text; it stays a constant in the prefix.
NUMBER_NOT_IN_TEXT = "number-not-in-text"
#: The gold answer itself could not be read as a number (``answer=None``).
UNREADABLE_ANSWER = "unreadable-answer"

#: A number written as text: ASCII digits, thousands commas in threes, decimals, an exponent ("7", "1,000", "0.25",
#: "2e3"). `float` alone read "1,2" as 12 (once commas were dropped), "1_000" as 1000 and other scripts' digits.
_WRITTEN_NUMBER = re.compile(r"-?(?:[0-9]{1,3}(?:,[0-9]{3})+|[0-9]+)(?:\.[0-9]*)?(?:[eE][-+]?[0-9]+)?"
                             r"|-?\.[0-9]+(?:[eE][-+]?[0-9]+)?")


def read_json(relpath: str) -> Any:
    """A checksum-verified JSON data file; malformed JSON raises DataError naming the file and position."""
    with data_file(relpath).open(encoding="utf-8") as handle:
        try:
            return json.load(handle)
        except json.JSONDecodeError as error:
            raise DataError(f"{relpath}: invalid JSON ({error})") from None
        except (UnicodeDecodeError, ValueError, RecursionError) as error:  # not UTF-8, an int past the digit limit
            raise DataError(f"{relpath}: unreadable ({type(error).__name__}: {str(error)[:80]})") from None


def finite_number(value: Any, what: str, source: str, *, written: bool = False) -> float:
    """A record's number as a finite float: a JSON number (never a boolean) or, with `written`, one written as text
    (CSV cells, MAWPS's string solutions); anything else raises :class:`DataError` naming the source. Without this,
    ``true`` was read as 1.0 and NaN or 1e400 passed as answers."""
    where = f"{source}: " if source else ""
    if written and isinstance(value, str) and len(value) <= 100:
        try:
            read = float(value.replace(",", ""))
        except ValueError:
            raise DataError(f"{where}{what} {value!r} is not a number") from None
        if math.isfinite(read) and not _WRITTEN_NUMBER.fullmatch(value.strip()):
            raise DataError(f"{where}{what} {value!r} is not a number")
        value = read  # "nan", "inf" and "1e400" are refused below as not finite
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise DataError(f"{where}{what} must be a number, got {type(value).__name__} {str(value)[:40]!r}")
    try:
        number = float(value)
    except OverflowError:
        raise DataError(f"{where}{what} is too large for a float") from None
    if not math.isfinite(number):
        raise DataError(f"{where}{what} must be finite, got {number}")
    return number


def text_quantities(text: str, source: str = "", signed: bool = False) -> list[Quantity]:
    """The quantities of `text` in order (`numbers.find_numbers`; with `signed`, a new text's, `reading`); a numeral
    past Python's digit limit for numbers (4,300 digits) is a :class:`DataError` naming `source`, not a crash."""
    try:
        return signed_numbers(text) if signed else find_numbers(text)
    except ValueError as error:
        where = f"{source}: " if source else f"{text[:60]!r}: "
        raise DataError(f"{where}a number of the text cannot be read ({str(error)[:80]})") from None


def text_numbers(text: str, source: str = "", signed: bool = False) -> tuple[str, ...]:
    """The quantities of `text` in order, normalised as `Problem.numbers` expects (see `text_quantities`)."""
    return tuple(format_number(quantity.value) for quantity in text_quantities(text, source, signed))


def slot_prefix(target: Node, numbers: Sequence[str]) -> tuple[str, ...]:
    """Prefix tokens of `target` with every number that occurs in the text replaced by its slot; the
    remaining constants are normalised (``.01``, ``0.01`` → ``0.01``; ``100.0`` → ``100``) so that a model
    sees one output token per constant."""
    mapped = map_equation(target, numbers)
    return tuple(to_prefix(map_leaves(mapped, lambda token: Node(format_number(token)) if is_number(token)
                                      else None)))


def bindings(numbers: Sequence[str]) -> dict[str, str]:
    """``{"N0": numbers[0], ...}``: what a slot prefix is evaluated with."""
    return {f"N{index}": number for index, number in enumerate(numbers)}


def prefix_issues(prefix: Sequence[str], numbers: Sequence[str], answer: float | None,
                  *, report_constants: bool = False) -> list[str]:
    """Issues of a record whose prefix was built: answer mismatch, and (if asked) text-less numbers."""
    issues = []
    if report_constants and (missing := constants(parse_prefix(prefix))):
        issues.append(f"{NUMBER_NOT_IN_TEXT}: {', '.join(missing)} not among the text numbers {list(numbers)}")
    if answer is None:
        return issues
    try:
        value = evaluate(parse_prefix(prefix), bindings(numbers))
        if answers_match(value, answer):
            return issues
        shown = f"{float(value):.6g}"
    except ExpressionError as error:
        return [*issues, f"{ANSWER_MISMATCH}: equation cannot be evaluated ({error})"]
    except (ValueError, OverflowError) as error:  # a value past a float's range
        return [*issues, f"{ANSWER_MISMATCH}: the equation's value cannot be compared with the answer ({error})"]
    return [*issues, f"{ANSWER_MISMATCH}: equation gives {shown}, gold answer is {answer:.6g}"]


def school_grade(raw: str) -> int:
    """A grade level as written ("3"): ASCII digits, at least 1; raises ValueError otherwise (`int` alone took
    "-5", "3_0" and other scripts' digits)."""
    if not re.fullmatch(r"\s*[0-9]+\s*", raw) or int(raw) < 1:
        raise ValueError(f"grade {raw!r:.40} is not a positive integer")
    return int(raw)


def issue_list(problems: Iterable[Problem]) -> list[tuple[str, str]]:
    """(problem id, issue) for every issue of every problem, in load order."""
    return [(problem.id, issue) for problem in problems for issue in problem.meta.get("issues", ())]


def issue_kind(issue: str) -> str:
    """The kind of an issue string (``NO_EXPRESSION``, ``ANSWER_MISMATCH``, ...)."""
    return issue.partition(":")[0]
