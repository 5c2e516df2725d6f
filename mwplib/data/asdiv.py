"""ASDiv-A (Miao et al. 2020): the 1,218 arithmetic problems of ASDiv and their official 5 folds, the seed
source of SVAMP (notebook 00_datasets: SVAMP Table 9; and the solver notebooks that train on ASDiv-A).

ASDiv.xml writes many quantities as words ("Seven red apples") and gives the gold as a `Formula` with
its result (``7+2=9``; floor/ceil divisions as ``200/28=7 r4``). Number words are rewritten as digits
with :func:`mwplib.numbers.words_to_numbers` before the formula is mapped onto the text; a formula number
still missing from the text stays a constant and is listed as a ``number-not-in-text`` issue.
"""
from __future__ import annotations

import functools
import math
import re
import xml.etree.ElementTree as ET

from mwplib.data.checksums import DataError, data_file
from mwplib.data.gold import (NO_EXPRESSION, UNREADABLE_ANSWER, issue_list, prefix_issues, school_grade, slot_prefix,
                              text_numbers)
from mwplib.expr import ExpressionError, parse_infix
from mwplib.numbers import words_to_numbers
from mwplib.problem import Problem, Split

ASDIV_XML = "asdiv/dataset/ASDiv.xml"
FOLD_FILE = "asdiv/dataset/nfolds/asdiv-a/fold{k}.txt"
N_FOLDS = 5

#: "9 (apples)", "3,484 (pieces)", "0.5": the leading number of an ASDiv answer
_ANSWER = re.compile(r"\s*(-?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?|-?\.\d+)(?:\s|\(|$)")


def _fold_ids() -> list[list[str]]:
    folds: list[list[str]] = []
    seen: dict[str, int] = {}
    for k in range(N_FOLDS):
        relpath = FOLD_FILE.format(k=k)
        ids = [line.strip() for line in data_file(relpath).read_text(encoding="utf-8").splitlines() if line.strip()]
        for problem_id in ids:
            if problem_id in seen:
                raise DataError(f"{relpath}: {problem_id} is already listed in fold {seen[problem_id]}")
            seen[problem_id] = k
        folds.append(ids)
    return folds


def _child_text(element: ET.Element, tag: str, source: str) -> str:
    """The element's text, whitespace normalised; blank is refused like missing (``<Question> </Question>`` loaded as a
    problem without a question)."""
    child = element.find(tag)
    text = " ".join((child.text or "").split()) if child is not None else ""
    if not text:
        raise DataError(f"{source}: <{tag}> missing or empty")
    return text


def _answer(raw: str) -> float | None:
    """The answer's number, or None (listed as unreadable) when it has none or one too large for a float."""
    match = _ANSWER.match(raw)
    value = float(match.group(1).replace(",", "")) if match and len(match.group(1)) <= 100 else None
    return value if value is not None and math.isfinite(value) else None


def _problem(element: ET.Element, fold: int) -> Problem:
    problem_id = element.get("ID", "")
    source = f"{ASDIV_XML}#{problem_id}"
    if not problem_id.strip():
        raise DataError(f"{ASDIV_XML}: a <Problem> without ID (Body {element.findtext('Body')!r})")
    body, body_words = words_to_numbers(_child_text(element, "Body", source))
    question, question_words = words_to_numbers(_child_text(element, "Question", source))
    formula, raw_answer = _child_text(element, "Formula", source), _child_text(element, "Answer", source)
    solution_type = _child_text(element, "Solution-Type", source)
    subtypes = element.find("Solution-Type").attrib  # type: ignore[union-attr]  # present: _child_text checked
    try:
        grade = school_grade(element.get("Grade", ""))
    except ValueError:
        raise DataError(f"{source}: Grade {element.get('Grade')!r:.40} is not a positive integer") from None
    numbers = text_numbers(f"{body} {question}", source)
    answer = _answer(raw_answer)
    issues = [] if answer is not None else [f"{UNREADABLE_ANSWER}: {raw_answer!r}"]
    prefix: tuple[str, ...] = ()
    steps = formula.split(";")
    try:
        if len(steps) != 1:
            raise ExpressionError(f"multi-step formula {formula!r}")
        expression, equals, _result = formula.partition("=")  # the result ("9", "7 r4") is the answer's
        if not equals:
            raise ExpressionError(f"formula {formula!r} has no '='")
        prefix = slot_prefix(parse_infix(expression), numbers)
    except ExpressionError as error:
        issues.append(f"{NO_EXPRESSION}: {error}")
    else:
        issues += prefix_issues(prefix, numbers, answer, report_constants=True)
    meta = {"source": source, "fold": fold, "grade": grade, "type": solution_type,
            "subtypes": dict(subtypes), "answer_raw": raw_answer, "origin": element.get("Source", ""),
            "number_words": tuple(body_words + question_words), "issues": tuple(issues)}
    return Problem(id=problem_id, body=body, question=question, equation=formula, answer=answer,
                   numbers=numbers, prefix=prefix, meta=meta)


@functools.lru_cache(maxsize=1)
def _asdiv_a() -> tuple[tuple[Problem, ...], ...]:
    folds = _fold_ids()
    fold_of = {problem_id: k for k, ids in enumerate(folds) for problem_id in ids}
    try:
        root = ET.parse(data_file(ASDIV_XML)).getroot()
    except ET.ParseError as error:
        raise DataError(f"{ASDIV_XML}: invalid XML ({error})") from None
    by_id = {element.get("ID"): element for element in root.iter("Problem")}
    missing = [problem_id for problem_id in fold_of if problem_id not in by_id]
    if missing:
        raise DataError(f"{FOLD_FILE.format(k='*')}: {len(missing)} ids not in {ASDIV_XML}, e.g. {missing[:3]}")
    return tuple(tuple(_problem(by_id[problem_id], k) for problem_id in ids) for k, ids in enumerate(folds))


def load_asdiv_a_problems() -> list[Problem]:
    """The 1,218 ASDiv-A problems (ids ``nluds-XXXX``, fold by fold in fold-file order).

    meta: ``fold``, ``grade``, ``type`` (ASDiv Solution-Type, SVAMP's operation type), ``subtypes``,
    ``answer_raw`` (with unit), ``origin`` (web source), ``number_words`` (number words left unconverted),
    ``source``, ``issues``.
    """
    return [problem for fold in _asdiv_a() for problem in fold]


def load_asdiv_a() -> list[Split]:
    """SVAMP's 5-fold cross-validation on ASDiv-A: split k tests on official fold k, trains on the rest."""
    folds = _asdiv_a()
    return [Split(name=f"asdiv-a-fold{k}", test=fold,
                  train=tuple(problem for j, other in enumerate(folds) if j != k for problem in other))
            for k, fold in enumerate(folds)]


def asdiv_issues() -> list[tuple[str, str]]:
    """(id, issue) for every ASDiv-A problem that does not fit cleanly (text-less formula numbers,
    floor/ceil answers, ...)."""
    return issue_list(load_asdiv_a_problems())
