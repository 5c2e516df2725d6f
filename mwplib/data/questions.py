"""Question removal: the body-only test sets of SVAMP §4.1 (Table 3).

SVAMP shows that solvers answer many MAWPS / ASDiv-A problems from the body alone. The released
`*_without_questions` CSVs hold that ablation for three test sets; `split_question` re-derives it for
any problem so that the same ablation can be run on data SVAMP did not release
(`mwplib.data.removal_check` measures how closely it reproduces the released files).
"""
from __future__ import annotations

import dataclasses
import re

from mwplib.expr import is_slot, slot_index
from mwplib.numbers import find_numbers, parse_number
from mwplib.problem import Problem

#: Words that open the question clause anywhere in the asking sentence ("If he has 5 bags how many ..."),
#: and imperatives that open it only at the start of a sentence or clause ("..., find the total").
QUESTION_WORDS = ("about how", "how", "what")
IMPERATIVES = ("find", "calculate", "determine")

_SENTENCE_END = re.compile(r"(?<=[.?!])\s+(?=\S)")
_CUE = re.compile(r"(?<![\w'])(?P<cue>" + "|".join(QUESTION_WORDS) + r")(?!\w)"  # "what's" in raw text too
                  r"|(?:^|(?<=,)\s*)(?P<imperative>" + "|".join(IMPERATIVES) + r")(?![\w'])", re.IGNORECASE)


def _sentences(text: str) -> list[str]:
    """Sentences of raw ("a. b?") or tokenised ("a . b ?") text; a decimal point is not a boundary."""
    return [s for s in _SENTENCE_END.split(text.strip()) if s]


def _question_start(sentence: str) -> int | None:
    """Offset in `sentence` of its first question cue (where the question clause starts), or None."""
    match = _CUE.search(sentence)
    return match.start(match.lastgroup) if match else None


def split_question(text: str) -> tuple[str, str]:
    """(body, question) of a problem text; the question is the last asking sentence (or clause).

    The asking sentence is the last one ending in "?", else the last one holding a cue, else the last
    sentence. The question starts at its first cue, so a leading clause ("If she has 9 shelves how many ...")
    stays in the body, as in SVAMP's released CSVs; an asking sentence without a cue (cut after an
    abbreviation: "did j.t . have at first ?") is joined to the sentences before it until one has a cue.
    Sentences after the question (rare: "How many ...? Round to ...") belong to the question.
    """
    sentences = _sentences(text)
    if not sentences:
        return "", ""
    asking = [i for i, s in enumerate(sentences) if s.rstrip().endswith("?")] or \
             [i for i, s in enumerate(sentences) if _question_start(s) is not None] or [len(sentences) - 1]
    index = asking[-1]
    # a cue-less asking sentence is the tail of a sentence cut at an abbreviation ("did j.t . have ?")
    first = index
    while first > 0 and _question_start(" ".join(sentences[first:index + 1])) is None:
        first -= 1
    sentence = " ".join(sentences[first:index + 1])
    start = _question_start(sentence)
    if start is None:
        first, sentence, start = index, sentences[index], 0
    body = " ".join([*sentences[:first], sentence[:start].strip()]).strip()
    question = " ".join([sentence[start:].strip(), *sentences[index + 1:]]).strip()
    return body, question


def remove_question(problem: Problem) -> Problem:
    """`problem` reduced to its body (SVAMP §4.1): question "" and `numbers` / `prefix` unchanged.

    When the equation needs a number that only the removed question held ("... to make 3 pies?"), the
    problem is kept as it is in SVAMP's released `*_without_questions` files (same Numbers and Equation, so
    it stays in the test set and counts as unsolvable from the body) and the slots are listed in
    `meta["question_slots"]`; it is empty otherwise. The removed text is kept in `meta["removed_question"]`.
    """
    body, question = split_question(problem.text)
    body_values = {quantity.value for quantity in find_numbers(body)}
    needed = sorted({slot_index(t) for t in problem.prefix if is_slot(t)})
    question_slots = tuple(k for k in needed if k < len(problem.numbers)
                           and parse_number(problem.numbers[k]) not in body_values)
    meta = {**problem.meta, "question_removed": True, "removed_question": question, "question_slots": question_slots}
    return dataclasses.replace(problem, body=body, question="", meta=meta)
