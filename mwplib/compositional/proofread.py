"""SD proofread by hand, as the paper did (§V-A: "After the automatic synthesis procedure, we further do manual
proofreading to ensure the validity of this data set").

Every problem :func:`synthesis.synthesize` builds was read against the rubric of docs/proofreading.md and given
one verdict (:data:`VERDICTS`): ``keep`` (acceptable as written), ``fix`` (acceptable once words are changed:
the corrected text is in ``fixed``) or ``drop``. A fix may change words only: :func:`apply` refuses one whose
text does not hold the original's numbers in the same order, so a fixed problem keeps its expression and answer.
The verdicts are a table per language, committed under ``results/audit/sd-<language>-proofread.csv`` (columns
:data:`COLUMNS`); the table holds each problem's text as built, so it cannot silently judge another build.

SD's parts hang together, so a problem stays only with its group (all or nothing, as in the synthesis): a
decomposed seed (structural test) with both its halves (train), a reformulated seed (train) with its
reformulation (lexical test). A group is named by the seed it came from (``made_from[0]``).
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Sequence

import pandas as pd

from ..data.gold import text_numbers
from ..expr import parse_prefix, substitute, to_infix
from ..problem import Problem
from .audit import AUDIT_DIR
from .synthesis import SDSet, labelled

COLUMNS = ("id", "part", "rule", "text", "expression", "verdict", "fixed", "reason")
VERDICTS = ("keep", "fix", "drop")


class ProofreadError(ValueError):
    """A proofreading table that does not cover its SD build, or holds a malformed row (named by file and id)."""


def table_path(language: str) -> Path:
    return AUDIT_DIR / f"sd-{language}-proofread.csv"


def shown(problem: Problem) -> str:
    """The expression with its numbers filled in and its value, as the proofreader reads it: ``62 - 52 = 10``."""
    filled = substitute(parse_prefix(problem.prefix), {f"N{i}": n for i, n in enumerate(problem.numbers)})
    return f"{to_infix(filled)} = {problem.answer:g}"


def rows(made: SDSet) -> list[dict[str, Any]]:
    """The rows to proofread, in build order (train, then test)."""
    return [{"id": p.id, "part": part, "rule": p.meta["rule"], "text": p.text, "expression": shown(p)}
            for p, part in labelled(made)]


def load(file: Path, made: SDSet) -> pd.DataFrame:
    """The committed verdicts on `made`, checked: one row per problem of the build with its text as built, a
    verdict of :data:`VERDICTS`, a fixed text for every fix, a reason for every fix and drop."""
    table = pd.read_csv(file, dtype=str, keep_default_na=False)
    if missing := [c for c in COLUMNS if c not in table.columns]:
        raise ProofreadError(f"{file}: no column {missing[0]!r}")
    built = {row["id"]: row["text"] for row in rows(made)}
    if repeated := sorted(table["id"][table["id"].duplicated()]):
        raise ProofreadError(f"{file}: {repeated[0]} is judged twice")
    if absent := sorted(set(built) - set(table["id"])):
        raise ProofreadError(f"{file}: {len(absent)} problems of the build are not judged, e.g. {absent[0]}")
    if extra := sorted(set(table["id"]) - set(built)):
        raise ProofreadError(f"{file}: {extra[0]} is not a problem of this build")
    for row in table.itertuples(index=False):
        if row.text != built[row.id]:
            raise ProofreadError(f"{file}: {row.id}: its text is not the one built (a different build)")
        if row.verdict not in VERDICTS:
            raise ProofreadError(f"{file}: {row.id}: verdict {row.verdict!r}; expected one of {VERDICTS}")
        if row.verdict == "fix" and not row.fixed.strip():
            raise ProofreadError(f"{file}: {row.id}: a fix without a fixed text")
        if row.verdict != "keep" and not row.reason.strip():
            raise ProofreadError(f"{file}: {row.id}: judged {row.verdict} with no reason")
    return table


@dataclass(frozen=True)
class Proofread:
    """SD after proofreading, and what it cost: verdicts per part, fixes refused (their numbers differ from the
    original's), and problems dropped only because another member of their group was."""

    made: SDSet
    verdicts: Counter[tuple[str, str]]  # (part, verdict) -> problems
    refused_fixes: tuple[str, ...]
    dropped_with_group: Counter[str]  # part -> problems kept or fixed, dropped with their group


def _group(problem: Problem) -> str:
    return str(problem.meta["made_from"][0])


def apply(made: SDSet, table: pd.DataFrame) -> Proofread:
    """`made` with every drop removed and every fix written in, whole groups only (module docstring)."""
    verdicts = {row.id: row for row in table.itertuples(index=False)}
    counts: Counter[tuple[str, str]] = Counter()
    refused: list[str] = []
    written: dict[str, Problem | None] = {}
    for p, part in labelled(made):
        row = verdicts[p.id]
        counts[(part, row.verdict)] += 1
        if row.verdict == "keep":
            written[p.id] = p
        elif row.verdict == "fix" and text_numbers(row.fixed) == text_numbers(p.text):
            written[p.id] = replace(p, body=row.fixed.strip(), question="",
                                    meta={**p.meta, "proofread": "fixed", "as_built": p.text})
        else:
            refused += [p.id] if row.verdict == "fix" else []
            written[p.id] = None
    broken = {_group(p) for p in (*made.train, *made.test) if written[p.id] is None}
    with_group = Counter(part for p, part in labelled(made) if written[p.id] is not None and _group(p) in broken)

    def kept(problems: Sequence[Problem]) -> tuple[Problem, ...]:
        return tuple(q for p in problems if _group(p) not in broken and (q := written[p.id]) is not None)

    return Proofread(replace(made, train=kept(made.train), test=kept(made.test)), counts, tuple(refused), with_group)


def proofread(made: SDSet, language: str) -> Proofread:
    """`made` (SD in `language`, as built) through its committed proofreading table."""
    file = table_path(language)
    if not file.exists():
        raise ProofreadError(f"{file}: no proofreading table for SD-{language}")
    return apply(made, load(file, made))
