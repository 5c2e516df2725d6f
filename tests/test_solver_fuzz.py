"""A seeded fuzz of how the solver reads a new text (`solver.read_text`, `solver.check_text`): every number read as
written or warned about, every bad input one documented error, nothing slow. The tally is
docs/lab-notes/data-fuzz.md's table (run ``python tests/test_solver_fuzz.py`` to print it)."""
from __future__ import annotations

import random
import time
from collections import Counter

import pytest

from mwplib.solver import MAX_CHARS, check_text, read_text

#: pieces of text, each with the numbers it must be read as (None: any, but then a warning is owed) and whether a
#: warning is owed; issue 48's reproducers among them
PIECES: list[tuple[str, tuple[str, ...] | None, bool]] = [
    ("12 apples", ("12",), False), ("3.5 kg of flour", ("3.5",), False), ("1,200 people", ("1200",), False),
    ("−5 degrees", ("-5",), False), ("-7 points", ("-7",), False), ("–2 meters", ("-2",), False),
    ("(−3 in the morning)", ("-3",), False), ("seven birds", ("7",), False), ("2.5 million dollars", ("2500000",), False),
    ("3 thousand steps", ("3000",), False), ("3/4 of a pie", ("0.75",), False), ("a 10-year-old", ("10",), False),
    ("pages 3-4", ("3", "4"), False), ("$4.50 each", ("4.5",), False), ("5 quarters", ("5",), False),
    ("1e3 grams", None, True), ("1.2e3 students", None, True), ("12² tiles", None, True), ("2,5 liters", None, True),
    ("50% of them", ("50",), True), ("half of the cake", None, True), ("a dozen eggs", None, True),
    ("the 3rd place", (), False), ("how many are left", (), False),
]
#: inputs that must be refused with one documented error (TypeError for a non-string, ValueError else)
REFUSED: list[object] = [None, 12, b"12 apples", ["12"], "", "   \n\t", "9" * 5000, "x" * (MAX_CHARS + 1)]
FILLERS = ["Sam has", "and then", "How many", "in all?", ".", ",", "\ud800", "\x00", "[[[[", "ünïcödé", "数"]
SLOW = 1.0  # seconds: anything slower is a hang


def _text(rng: random.Random) -> tuple[str, tuple[str, ...] | None, bool]:
    """A seeded text of 1–4 pieces among fillers, with the numbers it must be read as and whether a warning is
    owed."""
    parts, expected, warn = [], [], False
    for _ in range(rng.randint(1, 4)):
        text, numbers, owed = rng.choice(PIECES)
        parts += [rng.choice(FILLERS), text]
        expected = None if numbers is None or expected is None else [*expected, *numbers]
        warn |= owed
    return " ".join(parts), None if expected is None else tuple(expected), warn


def outcome(given: object, expected: tuple[str, ...] | None = None, warn: bool = False) -> str:
    """How the solver's reading met one input: "refused, named", "read right", "misread" (another number, no
    warning), "silent bad" (a warning owed and none given), "crash" (an undocumented error) or "hang"."""
    start = time.perf_counter()
    try:
        check_text(given)
        _, numbers, warnings = read_text(given)  # type: ignore[arg-type]
    except (TypeError, ValueError) as error:
        result = "refused, named" if str(error) else "crash"
    except Exception:  # noqa: BLE001 (what the fuzz is there to count)
        result = "crash"
    else:
        if expected is not None and numbers != expected and not warnings:
            result = "misread"
        elif warn and not warnings:
            result = "silent bad"
        else:
            result = "read right"
    return "hang" if time.perf_counter() - start > SLOW else result


def tally(seed: int = 0, n: int = 500) -> Counter[str]:
    """The outcomes of the fixed pieces, the refused inputs and `n` seeded random texts."""
    rng = random.Random(seed)
    cases = [*((text, numbers, owed) for text, numbers, owed in PIECES), *((g, None, False) for g in REFUSED),
             *(_text(rng) for _ in range(n))]
    return Counter(outcome(*case) for case in cases)


@pytest.mark.parametrize("text, numbers, owed", PIECES)
def test_each_piece_is_read_as_written_or_warned_about(text, numbers, owed):
    assert outcome(text, numbers, owed) == "read right"


@pytest.mark.parametrize("given", REFUSED)
def test_bad_input_is_one_documented_error(given):
    assert outcome(given) == "refused, named"


def test_seeded_texts_hold_no_misreading_crash_or_hang():
    counts = tally()
    assert sum(counts.values()) == len(PIECES) + len(REFUSED) + 500
    assert {k: counts[k] for k in ("misread", "silent bad", "crash", "hang")} == dict.fromkeys(
        ("misread", "silent bad", "crash", "hang"), 0)


if __name__ == "__main__":
    print(dict(tally()))
