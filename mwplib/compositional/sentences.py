"""A problem as a list of sentences, each with the numbers (slots) it holds, and new problems assembled from
sentences: what the SD synthesis (`synthesis`) and the data augmentation (`augment`) cut and paste.

English splits after ``.``, ``?`` or ``!`` followed by a space (a decimal point is followed by a digit);
Chinese (Math23K) splits after ``，。？！；`` and their ASCII forms, the clauses the paper's rules index. The
last sentence is the question. A sentence's slots are found with the same number rules as the loaders
(:func:`mwplib.data.gold.text_numbers`), so a problem whose sentences do not hold exactly its numbers is
refused with a :class:`CompositionError`, never silently renumbered.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from fractions import Fraction
from typing import Mapping, Sequence

from ..data.gold import bindings, text_numbers
from ..expr import ExpressionError, evaluate, is_slot, parse_prefix, slot_index
from ..problem import Problem

CJK = re.compile(r"[\u4e00-\u9fff]")  # a Chinese character
#: a sentence ends after . ? ! and a space, but not after a title ("Mrs. Hilt")
_ENGLISH_END = re.compile(r"(?<!\bMr\.)(?<!\bMrs\.)(?<!\bMs\.)(?<!\bDr\.)(?<!\bSt\.)(?<=[.?!])\s+")
_CHINESE_END = re.compile(r"(?<=[，。？！；,;?!])(?!\d)")


class CompositionError(ValueError):
    """A problem cannot be cut into sentences, or an assembled problem is not well formed (names the record)."""


@dataclass(frozen=True)
class Sentence:
    """One sentence of a problem: its text, its numbers, and the problem slot of its first number."""

    text: str
    numbers: tuple[str, ...]
    first_slot: int

    @property
    def slots(self) -> range:
        """The problem's slots (indices into `Problem.numbers`) this sentence holds."""
        return range(self.first_slot, self.first_slot + len(self.numbers))


def is_chinese(text: str) -> bool:
    return bool(CJK.search(text))


def split_text(text: str) -> list[str]:
    """The sentences of `text` (empty pieces dropped), by the language's sentence ends."""
    pattern = _CHINESE_END if is_chinese(text) else _ENGLISH_END
    return [piece.strip() for piece in pattern.split(text.strip()) if piece.strip()]


def join(texts: Sequence[str]) -> str:
    """Sentences back into one text (Chinese without spaces)."""
    return ("" if any(is_chinese(t) for t in texts) else " ").join(t.strip() for t in texts)


def sentences(problem: Problem) -> list[Sentence]:
    """`problem` as sentences with their slots; raises CompositionError when they do not hold its numbers."""
    out, slot = [], 0
    for text in split_text(problem.text):
        numbers = text_numbers(text)
        out.append(Sentence(text, numbers, slot))
        slot += len(numbers)
    found = tuple(n for s in out for n in s.numbers)
    if found != tuple(problem.numbers):
        raise CompositionError(f"{problem.source}: its sentences hold the numbers {list(found)}, the problem "
                               f"{list(problem.numbers)}")
    return out


def slots_of(prefix: Sequence[str]) -> list[int]:
    """The slot indices a prefix expression uses, in order of appearance (repeats kept)."""
    return [slot_index(token) for token in prefix if is_slot(token)]


def remap(prefix: Sequence[str], mapping: Mapping[int, int]) -> tuple[str, ...]:
    """`prefix` with slot ``N{i}`` renamed ``N{mapping[i]}``; a slot missing from `mapping` is an error."""
    out = []
    for token in prefix:
        if is_slot(token):
            if slot_index(token) not in mapping:
                raise CompositionError(f"slot {token} of {' '.join(prefix)} has no place in the new problem")
            token = f"N{mapping[slot_index(token)]}"
        out.append(token)
    return tuple(out)


def value(prefix: Sequence[str], numbers: Sequence[str]) -> Fraction:
    """The exact value of a slot prefix over `numbers`; CompositionError if it cannot be evaluated."""
    bad = [i for i in slots_of(prefix) if not 0 <= i < len(numbers)]
    if bad:
        raise CompositionError(f"{' '.join(prefix)} uses N{bad[0]}, but the text has {len(numbers)} numbers")
    try:
        return evaluate(parse_prefix(list(prefix)), bindings(numbers))
    except (ExpressionError, ZeroDivisionError, OverflowError) as error:
        raise CompositionError(f"{' '.join(prefix)} over {list(numbers)}: {error}") from None


def checked(problem: Problem) -> Fraction:
    """The value of `problem`'s gold expression over its numbers: the check every problem passes before it is
    cut or recombined; CompositionError naming it when it has no numbers or the expression cannot be evaluated."""
    if not problem.numbers:
        raise CompositionError(f"{problem.source}: the text has no numbers")
    try:
        return value(problem.prefix, problem.numbers)
    except CompositionError as error:
        raise CompositionError(f"{problem.source}: {error}") from None


def assemble(problem_id: str, texts: Sequence[str], prefix: Sequence[str], meta: Mapping[str, object]) -> Problem:
    """A new problem from sentence texts and a slot prefix over the numbers those texts hold, in order. The
    answer is the prefix's value; a prefix over a number the text lacks, or one that cannot be evaluated
    (division by zero), raises CompositionError naming `problem_id`."""
    if not texts:
        raise CompositionError(f"{problem_id}: no sentences")
    text = join(texts)
    numbers = text_numbers(text)
    if not numbers:
        raise CompositionError(f"{problem_id}: the text has no numbers")
    try:
        answer = value(prefix, numbers)
    except CompositionError as error:
        raise CompositionError(f"{problem_id}: {error}") from None
    body, question = (text, "") if is_chinese(text) else (join(texts[:-1]), texts[-1].strip())
    return Problem(id=problem_id, body=body, question=question, equation=" ".join(prefix),
                   answer=float(answer), numbers=numbers, prefix=tuple(prefix), meta={"source": problem_id, **meta})
