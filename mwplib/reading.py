"""Reading the numbers of a text nobody annotated: a problem given to the solver, or your own data.

The shipped datasets are read by :func:`mwplib.numbers.find_numbers`, whose rules fit their texts (no negative
numbers; ``-`` is a hyphen in ``3-4 days``). A new text may hold what those rules would misread, so here:

* a minus sign (``-``, ``−``, ``–``) that opens a word before a numeral is the number's sign ("it was −5 degrees"
  → -5; not ``3-4`` or ``10-year``), written ``-`` for the tokeniser (:func:`ascii_signs`);
* a numeral followed by a scale word is one number ("2.5 million" → 2500000);
* a form :func:`find_numbers` would read as another number is listed (:func:`misreadings`: ``1e3`` is read as 1,
  ``12²`` as 12, ``2,5`` as 2 and 5), so that the solver warns and your own data refuses it.

Kept apart from `mwplib.numbers` so that the shipped datasets' parse, and the stored runs hashed on it, do not move.
"""
from __future__ import annotations

import re
from fractions import Fraction

from .numbers import SCALES, Quantity, find_numbers, format_number

#: the minus signs a new text may write before a number: ASCII, U+2212 and the en dash
MINUS_SIGNS = "-\u2212\u2013"
#: a minus sign that opens a word before a numeral ("-5", "(−5", "= –5"; not "3-4", "10-year")
_SIGN = re.compile(rf"(?:^|(?<=[\s(\[:=]))[{MINUS_SIGNS}](?=\.?[0-9])")
_SCALED = re.compile(r"(?<![\w.,])([0-9]+(?:\.[0-9]+)?) (thousand|million|billion)\b", re.IGNORECASE)
#: written forms `find_numbers` reads as another number, each with what the reader is told
_MISREAD = (
    (re.compile(r"(?<![A-Za-z0-9_])(?:[0-9]+\.?[0-9]*|\.[0-9]+)[eE][+-]?[0-9]+\b"),
     "exponent notation is not read ({0!r} gives its digits before the e only): write it out in digits"),
    (re.compile(r"[0-9]+[\u00b2\u00b3\u00b9\u2070\u2074-\u2079]+"),
     "a superscript power is not read (only the base is): write {0!r} as a product or its value"),
    (re.compile(r"(?<![0-9,.])[0-9]+(?:,[0-9]{1,2}|,[0-9]{4,})(?![0-9,])"),
     "{0!r} is read as two numbers (a list); write a decimal point if it is one number"),
)
_PERCENT = (re.compile(r"[0-9.,]+\s?%"),
            "{0!r} is read as the number before %, as the datasets write it; the equation applies the percent")


def signed_numbers(text: str) -> list[Quantity]:
    """The quantities of `text` in order (`find_numbers`), a minus sign that opens a number part of it."""
    signs = {m.end() for m in _SIGN.finditer(text)}
    return [Quantity("-" + q.text, -q.value, q.start - 1, q.end) if q.start in signs else q
            for q in find_numbers(text)]


def read_numbers(text: str) -> tuple[str, ...]:
    """The numbers of a new text in order, normalised as `Problem.numbers` (the slots a solver fills)."""
    return tuple(format_number(q.value) for q in signed_numbers(text))


def ascii_signs(text: str) -> str:
    """`text` with each minus sign that opens a number written ``-`` (the tokeniser's and the datasets' sign)."""
    return _SIGN.sub("-", text)


def scale_numerals(text: str) -> str:
    """`text` with a numeral followed by a scale word written as one number ("3 million" → "3000000", "2.5
    thousand" → "2500"); the datasets write such numbers in digits already."""
    return _SCALED.sub(lambda m: format_number(Fraction(m[1]) * SCALES[m[2].lower()]), text)


def misreadings(text: str, percent: bool = False) -> list[str]:
    """What in `text` is not read as the number it writes, one message per place (see :data:`_MISREAD`); with
    `percent`, also each percentage (read as its number, which a solver's user may not expect)."""
    checks = (*_MISREAD, _PERCENT) if percent else _MISREAD
    return [message.format(m.group().strip()) for pattern, message in checks for m in pattern.finditer(text)]
