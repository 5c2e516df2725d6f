"""mwplib.numbers: quantities in text, number words, and mapping equations onto text numbers."""
import json
import re
import xml.etree.ElementTree as ET
from fractions import Fraction

import pytest

from mwplib import paths
from mwplib.expr import ExpressionError, evaluate, parse_infix, parse_prefix, to_prefix
from mwplib.numbers import (DENOMINATORS, SCALES, TENS, UNITS, constants, find_numbers, format_number, map_equation,
                            mask_numbers, parse_number, unmask, unmask_text, words_to_numbers)

SVAMP_NUMBER_NOT_IN_TEXT = {"chal-50": ["149.0"]}  # its equation uses 149, its text never says 149


def _svamp() -> list[dict]:
    return json.loads((paths.DATA / "svamp" / "SVAMP.json").read_text())


@pytest.mark.parametrize("text, found", [
    ("He has 56 books in each of his 9 shelves.", [("56", 56), ("9", 9)]),
    ("It snowed 0.32 inches, then .5 more.", [("0.32", Fraction(8, 25)), (".5", Fraction(1, 2))]),
    ("I have 1,000 apples and 3,4 and 5 pears.", [("1,000", 1000), ("3", 3), ("4", 4), ("5", 5)]),
    ("1,000,000 people and 12,345.5 kg", [("1,000,000", 10**6), ("12,345.5", Fraction(24691, 2))]),
    ("She ate 3/4 of a cake.", [("3/4", Fraction(3, 4))]),
    ("on 1/2/2020 and 1/0", [("1", 1), ("2", 2), ("2020", 2020), ("1", 1), ("0", 0)]),
    ("It costs $5.50, or 25% off.", [("5.50", Fraction(11, 2)), ("25", 25)]),
    ("the 5th and 21st and 2nd and 3rd", []),
    ("N0 and mp3 are not numbers, 5kg is", [("5", 5)]),
    ("a 10-year-old for 3-4 days", [("10", 10), ("3", 3), ("4", 4)]),
    ("costs 76. Then 2:30", [("76", 76), ("2", 2), ("30", 30)]),
])
def test_find_numbers(text, found):
    quantities = find_numbers(text)
    assert [(q.text, q.value) for q in quantities] == [(t, Fraction(v)) for t, v in found]
    assert all(text[q.start:q.end] == q.text for q in quantities)


@pytest.mark.parametrize("value, surface", [
    (56, "56"), (Fraction(1, 2), "0.5"), (Fraction(1, 8), "0.125"), (Fraction(1, 3), "1/3"),
    (Fraction(-7, 3), "-7/3"), (0.1, "0.1"), (-2.5, "-2.5"), (76.0, "76"), ("76.0", "76"), ("1,000", "1000"),
    ("0.50", "0.5"), ("3/4", "0.75"), ("2/6", "1/3"), (Fraction(0), "0"),
])
def test_format_number(value, surface):
    assert format_number(value) == surface
    assert parse_number(surface) == (parse_number(value) if isinstance(value, str) else Fraction(str(value)))


@pytest.mark.parametrize("text", ["abc", "", "1/0", "5%", "1.2.3", "$5"])
def test_parse_number_rejects(text):
    with pytest.raises(ValueError, match=re.escape(repr(text))):
        parse_number(text)


def test_mask_and_unmask_round_trip_on_svamp_texts():
    for record in _svamp():
        for text in (record["Body"], record["Question"]):
            masked, quantities = mask_numbers(text)
            assert unmask_text(masked, quantities) == text
            assert len(re.findall(r"\bN\d+\b", masked)) == len(quantities)
            assert not re.search(r"\d", re.sub(r"\bN\d+\b", "", masked)), masked


def test_svamp_equation_numbers_are_found_in_the_text():
    missing = {}
    for record in _svamp():
        numbers = find_numbers(f"{record['Body']} {record['Question']}")
        mapped = map_equation(parse_infix(record["Equation"]), [q.value for q in numbers])
        if constants(mapped):
            missing[record["ID"]] = constants(mapped)
        assert evaluate(mapped, {f"N{i}": q.value for i, q in enumerate(numbers)}) == \
            evaluate(parse_infix(record["Equation"]))
    assert missing == SVAMP_NUMBER_NOT_IN_TEXT


def test_map_equation_assigns_repeated_values_in_order_then_first():
    node = parse_infix("(76.0 - 25.0) * 76 + 76 + 100")
    mapped = map_equation(node, ["76", "25", "76.0"])
    assert to_prefix(mapped) == ["+", "+", "*", "-", "N0", "N1", "N2", "N0", "100"]
    assert constants(mapped) == ["100"]
    assert unmask(mapped, ["76.0", "25.0", "76"]) == parse_infix("(76.0 - 25.0) * 76 + 76.0 + 100")


def test_unmask():
    node = parse_prefix("/ number0 N1")
    assert unmask(node, ["1,000", Fraction(2, 3)]) == parse_infix("1000 / (2 / 3)")
    with pytest.raises(ExpressionError, match="N1"):
        unmask(node, ["5"])


@pytest.mark.parametrize("text, converted, unhandled", [
    ("Seven red apples and two green apples.", "7 red apples and 2 green apples.", []),
    ("twenty-eight left, one hundred one seeds, one hundred-twenty stickers",
     "28 left, 101 seeds, 120 stickers", []),
    ("two hundred and five friends, three and four", "205 friends, 3 and 4", []),
    ("one thousand two hundred thirty-four, fifteen hundred", "1234, 1500", []),
    ("a hundred people, hundreds of ants", "100 people, hundreds of ants", ["hundreds"]),
    ("One-third of it, two fifths, the third day", "One-third of it, two fifths, the third day",
     ["One-third", "two fifths"]),
    ("each one, the red one, one of them, one another", "each one, the red 1, 1 of them, one another", []),
    ("twice as many, half, a dozen eggs", "twice as many, half, a dozen eggs", ["twice", "half", "dozen"]),
    ("Brian has zero fewer oranges at twenty past seven", "Brian has 0 fewer oranges at 20 past 7", []),
    ("one two three", "1 2 3", []),
    ("Someone has nine tennis balls", "Someone has 9 tennis balls", []),
])
def test_words_to_numbers(text, converted, unhandled):
    assert words_to_numbers(text) == (converted, unhandled)


def test_words_to_numbers_reads_the_shared_number_words():
    """The lexicon's words and values are what the rewriting uses (the SVAMP join and `number_value` share them)."""
    for word, value in {**UNITS, **TENS}.items():
        assert words_to_numbers(f"Tom saw {word} cats") == (f"Tom saw {value} cats", [])
    for word, value in SCALES.items():
        assert words_to_numbers(f"Tom saw a {word} cats") == (f"Tom saw {value} cats", [])
    for word in DENOMINATORS:
        assert words_to_numbers(f"Tom ate two {word}") == ("Tom ate two " + word, [f"two {word}"])


def test_asdiv_formula_operands_are_recovered_from_number_words():
    """ASDiv writes numbers as words; after conversion most formula operands must be found in the text
    (the rest are world knowledge such as 60 minutes or 2 halves)."""
    root = ET.parse(paths.DATA / "asdiv" / "dataset" / "ASDiv.xml").getroot()
    problems = list(root.iter("Problem"))
    recovered = 0
    for problem in problems:
        text, _ = words_to_numbers(f"{problem.findtext('Body')} {problem.findtext('Question')}")
        values = {q.value for q in find_numbers(text)}
        operands = re.findall(r"\d+(?:\.\d+)?", (problem.findtext("Formula") or "").split("=")[0])
        recovered += all(parse_number(operand) in values for operand in operands)
    assert len(problems) == 2305
    assert recovered >= 0.85 * len(problems)


def test_ordinals_with_separators_and_runs_of_number_words() -> None:
    """Found by a fuzz (issue #35): no part of an ordinal is a quantity; a text of 5,000 'and's is read at once."""
    import time

    assert [q.text for q in find_numbers("the 1,000,000th visitor won 5 prizes")] == ["5"]
    assert [q.text for q in find_numbers("I have 1,000,000 coins")] == ["1,000,000"]
    started = time.perf_counter()
    assert words_to_numbers("and " * 5000)[0] == "and " * 5000
    assert words_to_numbers("one " * 2000)[0].split()[:2] == ["1", "1"]
    assert time.perf_counter() - started < 1.0
    assert words_to_numbers("nine hundred and ninety nine thousand nine hundred and ninety nine") == ("999999", [])
