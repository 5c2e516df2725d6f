"""Your own problems: one documented format, a loader that checks every record, and its report.

A file is JSON Lines (``.jsonl``: one object per line) or CSV (``.csv``: a header row), with fields

- ``id`` (text, unique in the file);
- ``text``, or ``body`` and ``question`` (not both: one would be ignored);
- ``equation``: infix over the text's numbers, for the unknown (``x = 12 - 5``) or as a bare expression
  (``12 - 5``); a number of the equation that the text does not hold must be listed in ``constants``;
- ``answer``: a finite number (a JSON number, or a CSV cell such as ``7`` or ``0.25``);
- optional: ``type`` (text), ``fold`` (an integer ≥ 0: :func:`own_splits` makes one cross-validation split
  per fold), ``constants`` (JSON: a list of numbers; CSV: numbers separated by spaces).

Numbers in the text are read as written: a minus sign that opens a number is its sign (``-5``, ``−5``: written
``-5`` in the loaded text), and a form that would be read as another number (``1e3``, ``12²``, ``2,5``:
`reading.misreadings`) refuses the record.

Other fields are ignored. Every record is checked: the file is UTF-8, the fields have these types, the equation
parses, each of its numbers is in the text or a listed constant, it evaluates to the answer (within
`expr.ANSWER_TOLERANCE`), and ids are unique. A record that fails is never coerced: it is refused with its file,
line, id and reason (:class:`Refusal`). :func:`load_problems` raises :class:`DataError` listing the refusals
(``strict``, for training) or returns the loaded records beside them (for evaluation); ``python -m mwplib check
FILE`` prints the report.
"""
from __future__ import annotations

import csv
import io
import json
import re
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator

from mwplib.data.checksums import DataError
from mwplib.data.gold import finite_number, prefix_issues, slot_prefix, text_numbers
from mwplib.data.questions import split_question
from mwplib.expr import ExpressionError, Node, parse_equation, parse_infix, solve_for
from mwplib.numbers import constants, format_number
from mwplib.problem import Problem, Split
from mwplib.reading import ascii_signs, misreadings

#: Fields a record must have (``text`` may instead be ``body`` + ``question``).
REQUIRED = ("id", "equation", "answer")
#: The longest text or equation read, in characters: longer is refused, not parsed for seconds.
MAX_CHARS = 5000
#: The most constants a record may list (an equation of MAX_CHARS characters holds fewer numbers).
MAX_CONSTANTS = 1000


@dataclass(frozen=True)
class Refusal:
    """A record not loaded: where it is and why."""

    file: str
    line: int
    id: str | None
    reason: str

    def __str__(self) -> str:
        return f"{self.file}:{self.line} (id {self.id!r}): {self.reason}"


class _Refused(ValueError):
    """Why one record is refused (internal: becomes a :class:`Refusal`)."""


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """A JSON object whose keys are unique: ``{"answer": 8, "answer": 7}`` would otherwise keep 7 silently."""
    record = dict(pairs)
    if len(record) != len(pairs):
        counts = Counter(key for key, _ in pairs)
        raise _Refused(f"gives {sorted(key for key, n in counts.items() if n > 1)[:5]} twice")
    return record


def _rows(path: Path) -> Iterator[tuple[int, Any]]:
    """(line number, record as read) per record; a record that cannot be read is an exception in its place."""
    raw = path.read_bytes().removeprefix(b"\xef\xbb\xbf")  # a byte-order mark, as a CSV may start with
    if path.suffix == ".jsonl":
        for number, line in enumerate(raw.split(b"\n"), 1):
            if not line.strip():
                continue
            try:
                yield number, json.loads(line.decode("utf-8"), object_pairs_hook=_unique_keys)
            except _Refused as refused:
                yield number, refused
            except UnicodeDecodeError:
                yield number, _Refused("not valid UTF-8")
            except (ValueError, RecursionError) as error:  # JSONDecodeError, or an int past Python's digit limit
                yield number, _Refused(f"not JSON ({getattr(error, 'msg', None) or error})")
        return
    if path.suffix != ".csv":
        raise DataError(f"{path}: expected a .jsonl or .csv file")
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        line = raw[:error.start].count(b"\n") + 1
        raise DataError(f"{path}:{line}: not valid UTF-8") from None
    reader = csv.reader(io.StringIO(text, newline=""))
    header = next(reader, None)
    if not header:
        raise DataError(f"{path}: no header row")
    if duplicated := sorted({name for name in header if header.count(name) > 1}):
        raise DataError(f"{path}: the header repeats {duplicated}")
    for row in reader:
        if not any(cell.strip() for cell in row):
            continue
        if len(row) != len(header):
            yield reader.line_num, _Refused(f"{len(row)} cells for {len(header)} columns")
        else:
            yield reader.line_num, dict(zip(header, row))


def _text(record: dict[str, Any], name: str) -> str:
    value = record[name]
    if not isinstance(value, str):
        raise _Refused(f"{name} must be text, got {type(value).__name__}")
    if len(value) > MAX_CHARS:
        raise _Refused(f"{name} is longer than {MAX_CHARS} characters")
    return " ".join(value.split())


def _number(value: Any, name: str, csv_cell: bool) -> float:
    """A finite number: a JSON number (not a boolean) or, from a CSV cell, its decimal text (`gold.finite_number`)."""
    try:
        return finite_number(value, name, "", written=csv_cell)
    except DataError as error:
        raise _Refused(str(error)) from None


def _constants(record: dict[str, Any], csv_cell: bool) -> set[str]:
    listed = record.get("constants", [] if not csv_cell else "")
    if csv_cell and isinstance(listed, str):
        listed = listed.split()
    if not isinstance(listed, list):
        raise _Refused(f"constants must be a list of numbers, got {type(listed).__name__}")
    if len(listed) > MAX_CONSTANTS:
        raise _Refused(f"{len(listed)} constants: at most {MAX_CONSTANTS}")
    return {format_number(_number(c, "a constant", csv_cell)) for c in listed}


def _given(record: dict[str, Any], name: str, csv_cell: bool) -> bool:
    """Whether the record gives field `name`: a JSON key (even null, which is not "no value" but a wrong one), or a
    CSV cell that is not empty (a CSV row has every column)."""
    return name in record and not (csv_cell and record[name] == "")


def _fold(record: dict[str, Any], csv_cell: bool) -> int | None:
    if not _given(record, "fold", csv_cell):
        return None
    fold = record["fold"]
    if csv_cell and isinstance(fold, str) and re.fullmatch(r"[0-9]{1,5}", fold):  # not "²" or "٣" (str.isdigit)
        fold = int(fold)
    if isinstance(fold, bool) or not isinstance(fold, int) or fold < 0:
        raise _Refused(f"fold must be an integer >= 0, got {fold!r:.40}")
    return fold


def _expression(equation: str) -> Node:
    """The expression for the unknown: ``x = 12 - 5`` (any single unknown) or the bare ``12 - 5``."""
    if "=" not in equation:
        return parse_infix(equation)
    return solve_for(*parse_equation(equation), var=None)


def _problem(record: Any, source: str, csv_cell: bool) -> Problem:
    if isinstance(record, Exception):
        raise record
    if not isinstance(record, dict):
        raise _Refused(f"expected an object, got {type(record).__name__}")
    missing = [name for name in REQUIRED if name not in record]
    if "text" not in record and not {"body", "question"} <= record.keys():
        missing.append("text (or body and question)")
    if missing:
        raise _Refused(f"missing {', '.join(missing)}")
    if "text" in record and (both := [name for name in ("body", "question") if _given(record, name, csv_cell)]):
        raise _Refused(f"gives text and {' and '.join(both)}: give text, or body and question, not both")
    problem_id = _text(record, "id")
    if not problem_id:
        raise _Refused("empty id")
    if "text" in record:
        body, question = split_question(_text(record, "text"))
    else:
        body, question = _text(record, "body"), _text(record, "question")
    if not (body or question):
        raise _Refused("empty text")
    body, question = ascii_signs(body), ascii_signs(question)  # "−5" is -5, written as the tokeniser reads it
    if misread := misreadings(f"{body} {question}"):
        raise _Refused(f"the text {misread[0]}")
    equation, answer = _text(record, "equation"), _number(record["answer"], "answer", csv_cell)
    try:
        numbers = text_numbers(f"{body} {question}", source, signed=True)
    except DataError as error:  # a numeral past Python's digit limit
        raise _Refused(str(error).removeprefix(f"{source}: ")) from None
    try:
        target = _expression(equation)
        prefix = slot_prefix(target, numbers)
    except (ExpressionError, ValueError, OverflowError) as error:  # trees deeper than expr.MAX_DEPTH included
        raise _Refused(f"equation {equation!r:.80} cannot be used: {error}") from None
    listed = _constants(record, csv_cell)
    if unlisted := [c for c in constants(target) if format_number(c) not in {*numbers, *listed}]:  # 2.50 is 2.5
        raise _Refused(f"the equation's {', '.join(unlisted)} is not in the text and not listed in constants")
    if issues := prefix_issues(prefix, numbers, answer):
        raise _Refused(issues[0])
    meta: dict[str, Any] = {"source": source, "issues": ()}
    if (fold := _fold(record, csv_cell)) is not None:
        meta["fold"] = fold
    if "type" in record:
        meta["type"] = _text(record, "type")
    return Problem(problem_id, body, question, equation, answer, numbers, prefix, meta)


def check_problems(path: str | Path) -> tuple[list[Problem], list[Refusal]]:
    """Every record of `path` loaded or refused, in file order (what ``python -m mwplib check`` reports). A file
    that cannot be read as a whole (missing, not .jsonl/.csv, a CSV that is not UTF-8 or repeats a column)
    raises :class:`DataError`."""
    path = Path(path)
    if not path.is_file():
        raise DataError(f"{path}: no such file")
    loaded: list[Problem] = []
    refused: list[Refusal] = []
    seen: dict[str, int] = {}
    for line, record in _rows(path):
        source = f"{path}:{line}"
        raw_id = record.get("id") if isinstance(record, dict) else None
        try:
            problem = _problem(record, source, path.suffix == ".csv")
            if problem.id in seen:
                raise _Refused(f"id {problem.id!r} already used on line {seen[problem.id]}")
        except _Refused as why:
            refused.append(Refusal(str(path), line, raw_id if isinstance(raw_id, str) else None, str(why)))
            continue
        seen[problem.id] = line
        loaded.append(problem)
    return loaded, refused


def load_problems(path: str | Path, strict: bool = True) -> list[Problem]:
    """The problems of your file (format: module docstring). `strict` (for training): any refused record raises
    :class:`DataError` listing the refusals; otherwise they are left out (see :func:`check_problems` for them)."""
    loaded, refused = check_problems(path)
    if strict and refused:
        listed = "\n".join(f"  {r}" for r in refused[:20])
        more = f"\n  … and {len(refused) - 20} more" if len(refused) > 20 else ""
        raise DataError(f"{path}: {len(refused)} of {len(loaded) + len(refused)} records refused "
                        f"(python -m mwplib check {path} lists them all):\n{listed}{more}")
    if not loaded:
        raise DataError(f"{path}: no problem loaded")
    return loaded


def own_splits(path: str | Path) -> list[Split]:
    """One cross-validation split per value of the records' ``fold`` (test: that fold; train: the others), for
    training on your file like on the shipped datasets; every record must have a fold."""
    problems = load_problems(path)
    if unfolded := [p.id for p in problems if "fold" not in p.meta]:
        raise DataError(f"{path}: {len(unfolded)} records have no fold, e.g. {unfolded[:3]}: give each a 'fold'")
    folds = sorted({p.meta["fold"] for p in problems})
    if len(folds) < 2:
        raise DataError(f"{path}: every record is in fold {folds[0]}; cross-validation needs two folds or more")
    name = Path(path).stem
    return [Split(f"{name}-fold{f}", tuple(p for p in problems if p.meta["fold"] != f),
                  tuple(p for p in problems if p.meta["fold"] == f)) for f in folds]
