"""Quantities in problem text: find them, normalise them, mask them as slots and map equations onto them.

What counts as a quantity (one rule set for every dataset, so that number slots mean the same everywhere):

* digits ``56``, decimals ``0.32`` / ``.5``, fractions ``3/4`` (one quantity, value 3/4);
* thousands separators: a comma followed by exactly three digits (and no fourth) is a separator
  (``1,000`` → 1000); any other comma separates list items (``3,4 and 5`` → 3, 4, 5);
* the quantity is the numeral only: ``$5`` → ``5`` and ``25%`` → ``25`` (value 25, the ``%`` stays in the
  text) because SVAMP/MAWPS equations apply the percent themselves (``* 0.01``, ``/ 100``);
* NOT quantities: ordinals (``5th``, ``1st``), digits glued to a preceding letter (``N0``, ``mp3``),
  and signs: ``-`` is never part of a number (``3-4 days``, ``10-year-old``); negatives are absent from
  these datasets' texts.

The English number words and their values (:data:`UNITS`, :data:`TENS`, :data:`SCALES`, :data:`DENOMINATORS`,
:data:`MULTIPLIERS`, :data:`FRACTIONS`) live here too, for every module that reads numbers written as words.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from fractions import Fraction
from typing import Sequence

from .expr import ExpressionError, Node, exact_value, is_number, is_slot, leaves, map_leaves, parse_infix, slot_index

_QUANTITY = re.compile(
    r"(?<![A-Za-z0-9_])(?![\d,]*\d(?:st|nd|rd|th)\b)(?:"  # no part of an ordinal (1,000,000th) either
    r"(?<!/)(?P<fraction>\d+/[1-9]\d*)(?![\d/]|\.\d)"  # 3/4 (a zero denominator is not a fraction)
    r"|(?P<decimal>(?:\d{1,3}(?:,\d{3})+(?!\d)|\d+)(?:\.\d+)?|\.\d+)"
    r")(?!\d)(?!(?:st|nd|rd|th)\b)",
    re.IGNORECASE,
)
_NUMBER_STRING = re.compile(r"-?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d*)?\Z|-?\.\d+\Z|-?\d+/\d+\Z")


@dataclass(frozen=True)
class Quantity:
    """A number as it appears in a text: surface `text`, exact `value` and character span (the derivation datasets'
    numbers are whole tokens found by position instead: `mwplib.derivation.datasets.NumberToken`)."""

    text: str
    value: Fraction
    start: int
    end: int


def parse_number(text: str) -> Fraction:
    """Exact value of a number string: ``56``, ``1,000``, ``0.5``, ``.5``, ``3/4``, ``-2``."""
    cleaned = text.strip()
    if not _NUMBER_STRING.match(cleaned):
        raise ValueError(f"not a number: {text!r}")
    try:
        return Fraction(cleaned.replace(",", ""))
    except ZeroDivisionError:
        raise ValueError(f"zero denominator in number {text!r}") from None


def find_numbers(text: str) -> list[Quantity]:
    """All quantities of `text` in order (rules in the module docstring)."""
    return [Quantity(m.group(), parse_number(m.group()), m.start(), m.end()) for m in _QUANTITY.finditer(text)]


def format_number(value: Fraction | float | int | str) -> str:
    """Normalised surface used for `Problem.numbers`: ``56``, ``0.5``, ``-2``, and ``1/3`` for fractions
    without a terminating decimal (exact, unlike ``0.333…``)."""
    exact = _exact(value)
    sign = "-" if exact < 0 else ""
    exact = abs(exact)
    if exact.denominator == 1:
        return f"{sign}{exact.numerator}"
    denominator, twos, fives = exact.denominator, 0, 0
    while denominator % 2 == 0:
        denominator, twos = denominator // 2, twos + 1
    while denominator % 5 == 0:
        denominator, fives = denominator // 5, fives + 1
    if denominator != 1:
        return f"{sign}{exact.numerator}/{exact.denominator}"
    places = max(twos, fives)
    digits = str(exact.numerator * 10**places // exact.denominator).rjust(places + 1, "0")
    return f"{sign}{digits[:-places]}.{digits[-places:]}"


def mask_numbers(text: str) -> tuple[str, list[Quantity]]:
    """Replace the i-th quantity by the slot ``N{i}``; returns the masked text and the quantities."""
    quantities = find_numbers(text)
    pieces, last = [], 0
    for index, quantity in enumerate(quantities):
        pieces += [text[last:quantity.start], f"N{index}"]
        last = quantity.end
    pieces.append(text[last:])
    return "".join(pieces), quantities


def unmask_text(masked: str, quantities: Sequence[Quantity]) -> str:
    """Inverse of :func:`mask_numbers` (a text that already contained ``N<k>`` words is not invertible)."""
    def restore(match: re.Match[str]) -> str:
        index = int(match.group(1))
        if index >= len(quantities):
            raise ValueError(f"slot N{index} but only {len(quantities)} quantities, in {masked!r}")
        return quantities[index].text

    return re.sub(r"(?<![A-Za-z0-9_])N(\d+)(?![0-9])", restore, masked)


def _exact(value: Fraction | float | int | str) -> Fraction:
    """Text surfaces through :func:`parse_number`, numbers exactly (floats as the decimal they print as)."""
    return parse_number(value) if isinstance(value, str) else exact_value(value)


def map_equation(node: Node, numbers: Sequence[str | Fraction]) -> Node:
    """Replace each numeric leaf equal to a text number by its slot ``N{i}``.

    Leaves are visited left to right; a value occurring several times in the text goes to its first
    occurrence not yet used, and once all are used, to the first one. Numeric leaves matching no text
    number stay constants (see :func:`constants`).
    """
    values = [_exact(number) for number in numbers]
    used: set[int] = set()

    def to_slot(token: str) -> Node | None:
        if not is_number(token):
            return None
        value = Fraction(token)
        positions = [i for i, number in enumerate(values) if number == value]
        if not positions:
            return None
        free = [i for i in positions if i not in used]
        index = free[0] if free else positions[0]
        used.add(index)
        return Node(f"N{index}")

    return map_leaves(node, to_slot)


def constants(node: Node) -> list[str]:
    """Numeric literals left in an equation (constants such as ``100`` or ``0.01``), in leaf order."""
    return [token for token in leaves(node) if is_number(token)]


def unmask(node: Node, numbers: Sequence[str | Fraction]) -> Node:
    """Replace slots ``N{i}`` / ``number{i}`` by ``numbers[i]`` (inverse of :func:`map_equation`).

    A number string that is a plain literal is kept verbatim; others are normalised by
    :func:`format_number`, so ``1,000`` becomes ``1000`` and ``2/3`` the subtree ``2 / 3``.
    """
    def to_number(token: str) -> Node | None:
        if not is_slot(token):
            return None
        index = slot_index(token)
        if index >= len(numbers):
            raise ExpressionError(f"slot {token} but only {len(numbers)} numbers {list(map(str, numbers))}")
        number = numbers[index]
        if isinstance(number, str) and is_number(number):
            return Node(number)
        return parse_infix(format_number(number))

    return map_leaves(node, to_number)


# --------------------------------------------------------------------------------------------- number words

# The English number words and their values, kept here only: `words_to_numbers` reads them, and the SVAMP join
# (`mwplib.data.svamp`) and the derivation datasets' `number_value` (`mwplib.derivation.datasets`) take their words from
# them, so a word added or corrected here reaches every reader.

#: Cardinal words below twenty, with their values.
UNITS: dict[str, int] = {word: value for value, word in enumerate(
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen "
    "sixteen seventeen eighteen nineteen".split())}
#: The multiples of ten from twenty, with their values.
TENS: dict[str, int] = {word: 10 * (value + 2) for value, word in enumerate(
    "twenty thirty forty fifty sixty seventy eighty ninety".split())}
#: Words that multiply the number before them ("three hundred", "a million"), with their factor: "hundred" within a
#: group of three digits, the others close one ("two hundred thousand").
SCALES: dict[str, int] = {"hundred": 100, "thousand": 10**3, "million": 10**6, "billion": 10**9}
#: Words for the denominator of a fraction ("two thirds", "one-half"), with the denominator they name.
DENOMINATORS: dict[str, int] = {"half": 2, "halves": 2, **{word: value for value, ordinal in enumerate(
    "third fourth fifth sixth seventh eighth ninth tenth".split(), 3) for word in (ordinal, f"{ordinal}s")}}
#: Words that multiply a quantity, with their factor ("twice as many").
MULTIPLIERS: dict[str, int] = {"twice": 2, "double": 2, "doubled": 2, "thrice": 3, "triple": 3, "tripled": 3}
#: Words that name a fraction on their own, with its value ("half of them").
FRACTIONS: dict[str, Fraction] = {"half": Fraction(1, 2), "quarter": Fraction(1, 4), "quarters": Fraction(1, 4),
                                  "third": Fraction(1, 3)}
#: Words that denote a number but are not rewritten (their meaning depends on the sentence); reported.
VAGUE_NUMBER_WORDS = frozenset(
    "half halves twice thrice double triple dozen dozens quarter quarters hundred hundreds thousand "
    "thousands million millions billion billions".split())
#: "one" after these words is a pronoun ("the one", "each one"), not a quantity.
_PRONOUN_ONE_AFTER = frozenset(
    "the this that each every no any which another other some last next same only".split())
_PHRASE_WORDS = frozenset([*UNITS, *TENS, *SCALES, "and"])
_WORD = re.compile(r"[A-Za-z]+")


def _phrase_value(words: list[str]) -> int | None:
    """Value of a complete cardinal phrase (``twenty five``, ``one hundred and one``), else None."""
    total, current, last_scale, last = 0, 0, None, None  # last: kind of the previous word
    for word in words:
        if word == "and":
            if last not in ("hundred", "scale"):
                return None
            last = "and"
        elif word in UNITS:
            value = UNITS[word]
            if last in ("unit", "teen") or (last == "tens" and not 1 <= value <= 9):
                return None
            current += value
            last = "teen" if value >= 10 else "unit"
        elif word in TENS:
            if last in ("unit", "teen", "tens"):
                return None
            current += TENS[word]
            last = "tens"
        elif word == "hundred":
            if last not in ("unit", "teen") or current % 100 == 0 or current >= 100:
                return None
            current *= SCALES[word]
            last = "hundred"
        elif word in SCALES:
            scale = SCALES[word]
            if current == 0 or (last_scale is not None and scale >= last_scale):
                return None
            total, current, last_scale, last = total + current * scale, 0, scale, "scale"
        else:
            return None
    return None if last in (None, "and") else total + current


def _joined(text: str, left: re.Match[str], right: re.Match[str]) -> bool:
    """Words of one number phrase are separated by exactly one space or hyphen."""
    return text[left.end():right.start()] in (" ", "-")


#: Longest number phrase read, in words ("nine hundred and ninety nine thousand nine hundred and ninety nine" has
#: 11): without a bound, "and and and …" made the search cubic in the text's length.
MAX_PHRASE_WORDS = 16


def _number_phrase(text: str, tokens: list[re.Match[str]], lower: list[str], i: int) -> tuple[int, int] | None:
    """Longest cardinal phrase starting at word `i` (``a hundred`` counts as one hundred):
    returns the index of its last word and its value."""
    if lower[i] not in _PHRASE_WORDS and lower[i] != "a" or lower[i] == "and":
        return None
    end = i
    while end + 1 < len(tokens) and end + 1 - i < MAX_PHRASE_WORDS and lower[end + 1] in _PHRASE_WORDS \
            and _joined(text, tokens[end], tokens[end + 1]):
        end += 1
    for last in range(end, i - 1, -1):
        words = lower[i:last + 1]
        if words[0] == "a":
            if len(words) < 2 or words[1] not in SCALES:
                continue
            words = ["one", *words[1:]]
        value = _phrase_value(words)
        if value is not None:
            return last, value
    return None


def words_to_numbers(text: str) -> tuple[str, list[str]]:
    """Rewrite cardinal number words as digits (ASDiv writes "Seven red apples", SVAMP "7 red apples").

    Converted: ``zero``…``nineteen``, tens, compounds joined by one space or hyphen (``twenty-five``,
    ``one hundred-twenty``, ``two hundred and five``), scales after a numeral or ``a``
    (``a hundred`` → 100). Not converted and returned in the second list (for per-record reporting):
    fraction phrases (``one-third``, ``two fifths``), multipliers and vague words (:data:`VAGUE_NUMBER_WORDS`:
    ``half``, ``twice``, ``dozen``, bare ``hundreds``…). Neither converted nor reported: ordinals
    (``third day``) and the pronoun ``one`` after a determiner (``each one``, ``one another``); an
    adjective before it is not detected (``the red one`` → ``the red 1``).
    """
    tokens = list(_WORD.finditer(text))
    lower = [token.group().lower() for token in tokens]
    pieces, unhandled, copied, i = [], [], 0, 0
    while i < len(tokens):
        phrase = _number_phrase(text, tokens, lower, i)
        if phrase is None:
            if lower[i] in VAGUE_NUMBER_WORDS:
                unhandled.append(tokens[i].group())
            i += 1
            continue
        end, value = phrase
        following = end + 1 if end + 1 < len(tokens) else None
        if following is not None and lower[following] in DENOMINATORS \
                and _joined(text, tokens[end], tokens[following]):
            unhandled.append(text[tokens[i].start():tokens[following].end()])
            i = following + 1
            continue
        pronoun = (i > 0 and lower[i - 1] in _PRONOUN_ONE_AFTER) or \
            (following is not None and lower[following] == "another")
        if end == i and lower[i] == "one" and pronoun:
            i += 1
            continue
        pieces += [text[copied:tokens[i].start()], str(value)]
        copied = tokens[end].end()
        i = end + 1
    pieces.append(text[copied:])
    return "".join(pieces), unhandled
