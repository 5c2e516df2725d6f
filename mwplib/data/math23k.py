"""Math23K (Wang et al. 2017; Chinese), as far as it is public: the distinct problems of four released files
(Lan et al. 2022 build compositional splits and their SD set of it: notebook 07; it also feeds the data inventory). The full
23,162-problem set is not available (data/SOURCES.md).

Equations are written ``x=<expression>`` with percentages (``24*150%``) and bracketed fractions
(``6/(2/5)-6``). A percentage becomes ``(p/100)``, so its numeral maps onto the text's ``p`` as
:mod:`mwplib.numbers` prescribes; a bracketed fraction that the text also writes (``(2/5)``) is one quantity
of the text and becomes one slot.
"""
from __future__ import annotations

import functools
import json
import re
from pathlib import Path
from typing import Any

from mwplib.data.checksums import DataError, data_file
from mwplib.data.gold import (NO_EXPRESSION, UNREADABLE_ANSWER, issue_list, prefix_issues, read_json, slot_prefix,
                              text_quantities)
from mwplib.expr import ExpressionError, Node, evaluate, parse_equation, parse_infix, solve_for
from mwplib.numbers import format_number
from mwplib.problem import Problem

PUBLIC_TEST = "math23k/public_test/math23k_test.json"
UNION = "math23k/derived/math23k_available_union.jsonl"
#: the released files the union was built from (`sources` of each union record names them)
SOURCES = (PUBLIC_TEST, "math23k/mwptoolkit/testset.json", "math23k/mwptoolkit/validset.json",
           "math23k/graph2tree/valid23k_processed.json")
#: fields every source file shares with the union
_FIELDS = ("original_text", "segmented_text", "equation", "ans")
#: the size of the full dataset (Wang et al. 2017; Lan et al. 2022 Table I: 18,543 + 4,619)
FULL_SIZE = 23162

_PERCENT = re.compile(r"(?<!\d)(\d+(?:\.\d+)?)%")
#: a mixed number as Math23K writes answers: 3((2)/(3)) = 3 + 2/3
_MIXED = re.compile(r"(?<!\d)(\d+)(\(\(\d+\)/\(\d+\)\))")


def read_json_stream(path: Path) -> list[Any]:
    """The JSON values of a file that concatenates them (Math23K's public test file is a stream of
    pretty-printed objects, not an array). Malformed input raises DataError naming file and offset."""
    text = path.read_text(encoding="utf-8")
    decoder, values, offset = json.JSONDecoder(), [], 0
    while True:
        while offset < len(text) and text[offset].isspace():
            offset += 1
        if offset == len(text):
            return values
        try:
            value, offset = decoder.raw_decode(text, offset)
        except json.JSONDecodeError as error:
            raise DataError(f"{path}: invalid JSON value {len(values)} at offset {error.pos} "
                            f"(line {error.lineno}, column {error.colno}): {error.msg}") from None
        values.append(value)


def _read_jsonl(relpath: str) -> list[dict[str, Any]]:
    rows = []
    for lineno, line in enumerate(data_file(relpath).read_text(encoding="utf-8").splitlines(), start=1):
        if line.strip():
            try:
                rows.append(json.loads(line))
            except json.JSONDecodeError as error:
                raise DataError(f"{relpath}:{lineno}: invalid JSON ({error.msg})") from None
    return rows


def _records(relpath: str) -> list[dict[str, Any]]:
    return read_json_stream(data_file(relpath)) if relpath == PUBLIC_TEST else read_json(relpath)


def to_infix(text: str) -> str:
    """Math23K notation → the infix grammar of :mod:`mwplib.expr`: ``p%`` → ``(p/100)``, mixed numbers
    ``a((b)/(c))`` → ``(a+((b)/(c)))``, ``[ ]`` kept as brackets."""
    return _PERCENT.sub(r"(\1/100)", _MIXED.sub(r"(\1+\2)", text))


def answer_value(answer: str) -> float:
    """The value of a Math23K answer string (``9``, ``12.5%``, ``((7)/(15))``, ``3((2)/(3))``)."""
    return float(evaluate(parse_infix(to_infix(answer))))


def _fractions_to_slots(node: Node, slots: dict[str, int]) -> Node:
    """Replace each ``a / b`` of two integer literals that the text writes as the fraction ``a/b`` by its slot."""
    if node.is_leaf:
        return node
    left, right = node.children
    if node.value == "/" and left.is_leaf and right.is_leaf and f"{left.value}/{right.value}" in slots:
        return Node(f"N{slots[f'{left.value}/{right.value}']}")
    return Node(node.value, tuple(_fractions_to_slots(child, slots) for child in node.children))


def _problem(record: dict[str, Any], sources: tuple[str, ...], source: str) -> Problem:
    fields = ("id", "original_text", "segmented_text", "equation", "ans")
    if not isinstance(record, dict) or (missing := [f for f in fields if f not in record]):
        raise DataError(f"{source}: not a Math23K record (missing {missing if isinstance(record, dict) else fields})")
    if not all(isinstance(record[f], str) for f in fields[:4]) or isinstance(record["ans"], (bool, list, dict)):
        # an id of another type became its str(): "None", "True", "1e+308"
        raise DataError(f"{source}: id, original_text, segmented_text and equation must be text, ans a number or text")
    if not record["id"].strip():
        raise DataError(f"{source}: blank id")
    text, equation, raw_answer = record["original_text"], record["equation"], str(record["ans"])
    quantities = text_quantities(text, source)
    numbers = tuple(format_number(quantity.value) for quantity in quantities)
    fractions = {quantity.text: index for index, quantity in enumerate(quantities) if "/" in quantity.text}
    issues: list[str] = []
    try:
        answer: float | None = answer_value(raw_answer)
    except (ExpressionError, ValueError):
        answer, issues = None, [f"{UNREADABLE_ANSWER}: {raw_answer!r}"]
    prefix: tuple[str, ...] = ()
    try:
        lhs, rhs = parse_equation(to_infix(equation))
        prefix = slot_prefix(_fractions_to_slots(solve_for(lhs, rhs, "x"), fractions), numbers)
    except ExpressionError as error:
        issues.append(f"{NO_EXPRESSION}: {error}")
    else:
        issues += prefix_issues(prefix, numbers, answer, report_constants=True)
    meta = {"source": source, "sources": sources, "segmented_text": record["segmented_text"],
            "answer_raw": raw_answer, "issues": tuple(issues)}
    return Problem(id=record["id"], body=text, question="", equation=equation, answer=answer,
                   numbers=numbers, prefix=prefix, meta=meta)


@functools.lru_cache(maxsize=1)
def _union() -> tuple[Problem, ...]:
    released = {relpath: {str(r["id"]): r for r in _records(relpath)} for relpath in SOURCES}
    problems, seen = [], set()
    for lineno, row in enumerate(_read_jsonl(UNION), start=1):
        source = f"{UNION}:{lineno}"
        problem_id = str(row.get("id"))
        if problem_id in seen:
            raise DataError(f"{source}: duplicate id {problem_id}")
        seen.add(problem_id)
        sources = tuple(f"math23k/{name}" for name in row.get("sources", ()))
        if not sources:
            raise DataError(f"{source}: id {problem_id} names no source file")
        for relpath in sources:
            original = released.get(relpath, {}).get(problem_id)
            if original is None:
                raise DataError(f"{source}: id {problem_id} not found in its source {relpath}")
            differing = [f for f in _FIELDS if str(original.get(f)) != str(row.get(f))]
            if differing:
                raise DataError(f"{source}: id {problem_id} differs from {relpath} in {differing}")
        problems.append(_problem(row, sources, source))
    return tuple(problems)


def load_math23k() -> list[Problem]:
    """The 6,234 available Math23K problems (ids are Math23K's), each checked against every released file
    it occurs in. meta: ``sources`` (those files), ``segmented_text`` (the released word segmentation),
    ``answer_raw``, ``source``, ``issues``. `body` is the whole Chinese text; `question` is empty."""
    return list(_union())


def load_math23k_public_test() -> list[Problem]:
    """The 1,000-problem public test set (``math23k_test.json``), as records of :func:`load_math23k`."""
    wanted = [str(record["id"]) for record in _records(PUBLIC_TEST)]
    by_id = {problem.id: problem for problem in _union()}
    missing = [problem_id for problem_id in wanted if problem_id not in by_id]
    if missing:
        raise DataError(f"{PUBLIC_TEST}: {len(missing)} ids missing from {UNION}, e.g. {missing[:3]}")
    return [by_id[problem_id] for problem_id in wanted]


def math23k_issues() -> list[tuple[str, str]]:
    """(id, issue) for every available Math23K problem that does not fit cleanly."""
    return issue_list(_union())
