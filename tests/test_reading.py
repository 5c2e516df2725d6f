"""Reading a new text's numbers (`mwplib.reading`, issue 48): signs, scale words, forms read as another number."""
from __future__ import annotations

import pytest

from mwplib.numbers import find_numbers
from mwplib.reading import ascii_signs, misreadings, read_numbers, scale_numerals, signed_numbers


def test_a_minus_sign_that_opens_a_number_is_its_sign_in_a_new_text() -> None:
    """Issue 48: "−5" was read as 5. Signed reading is for new texts; the shipped datasets' parse is unchanged."""
    text = "It was −5 at dawn, –2.5 at noon, (-3) at dusk, 3-4 days for a 10-year-old, and 7 - 2 = 5."
    assert [q.text for q in signed_numbers(text)] == ["-5", "-2.5", "-3", "3", "4", "10", "7", "2", "5"]
    assert [q.text for q in find_numbers(text)] == ["5", "2.5", "3", "3", "4", "10", "7", "2", "5"]
    assert ascii_signs(text).startswith("It was -5 at dawn, -2.5 at noon, (-3) at dusk, 3-4 days")


@pytest.mark.parametrize("text, said", [
    ("A school has 1.2e3 students.", "'1.2e3'"), ("It costs $1e3.", "'1e3'"), ("Tiles: 12² of them.", "'12²'"),
    ("Pour 2,5 liters.", "'2,5'"), ("Pour 2,50 liters.", "'2,50'"), ("It is 1,0000 far.", "'1,0000'")])
def test_forms_read_as_another_number_are_listed(text, said) -> None:
    found = misreadings(text)
    assert len(found) == 1 and said in found[0]


def test_plain_numbers_are_not_listed_and_percentages_only_when_asked() -> None:
    assert misreadings("Tom has 1,000 apples, 3.5 kg of pears and -5 dollars; 3,4 or 5? Gate E1 opens.") == [
        "'3,4' is read as two numbers (a list); write a decimal point if it is one number"]
    assert misreadings("He paid 50% of it.") == []
    assert "'50%'" in misreadings("He paid 50% of it.", percent=True)[0]


def test_scale_words_after_a_numeral_make_one_number() -> None:
    assert scale_numerals("A city of 2.5 million people, 3 thousand cars, 7 Billion stars.") == \
        "A city of 2500000 people, 3000 cars, 7000000000 stars."
    assert read_numbers("It was −5 and rose by 1,000.") == ("-5", "1000")
