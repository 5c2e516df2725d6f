"""Known errors in the released data, corrected explicitly and reversibly.

The raw files stay byte-identical (they are checksummed); corrections happen on the loaded `Problem`
records, from this one table, so every change is visible, justified and can be switched off
(`errata=False` in the loaders) to reproduce numbers computed on the uncorrected release.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, Iterable

from mwplib.data.checksums import DataError
from mwplib.problem import Problem

#: Problem attributes an erratum may change; any other field name refers to a key of `Problem.meta`.
_ATTRIBUTES = frozenset(f.name for f in dataclasses.fields(Problem)) - {"meta"}


@dataclass(frozen=True)
class Erratum:
    """One correction: in `dataset` (a data file, relative to data/), problem `id`, `field`: old → new."""

    dataset: str
    id: str
    field: str
    old: Any
    new: Any
    reason: str


ERRATA: tuple[Erratum, ...] = (
    Erratum("svamp/SVAMP.json", "chal-680", "answer", 1.0, 5.0,
            "Answer disagrees with the text and the Equation. Text: had 4 apples, picked 2, 3 new grew; "
            "Equation ( ( 4.0 - 2.0 ) + 3.0 ) = 5. The CSV version of this problem "
            "(mawps-asdiv-a_svamp/dev.csv row 152) has the numbers 2 and 4 swapped and answer 1; the text "
            "and equation were edited for SVAMP.json but the Answer was not. The answer field is wrong."),
    Erratum("svamp/SVAMP.json", "chal-967", "type", "Common-Divison", "Common-Division",
            "Typo in the operation type; all 165 other division problems are 'Common-Division'."),
)


def _current(problem: Problem, field: str) -> Any:
    return getattr(problem, field) if field in _ATTRIBUTES else problem.meta.get(field)


def _corrected(problem: Problem, erratum: Erratum) -> Problem:
    current = _current(problem, erratum.field)
    if current != erratum.old:
        raise DataError(f"{problem.source}: erratum expects {erratum.field}={erratum.old!r} but the data has "
                        f"{current!r}; the data changed, review data/errata ({erratum.reason[:60]}...)")
    if erratum.field in _ATTRIBUTES:
        return dataclasses.replace(problem, **{erratum.field: erratum.new})
    return dataclasses.replace(problem, meta={**problem.meta, erratum.field: erratum.new})


def _dataset(problem: Problem) -> str:
    """The data file a problem came from (`meta["source"]` is "<file>#<record>")."""
    return problem.source.partition("#")[0]


def apply_errata(problems: Iterable[Problem], enabled: bool = True) -> list[Problem]:
    """`problems` with every matching erratum applied (matched on source file and id), or as-is if disabled.

    Each corrected problem lists the fields it changed in `meta["errata"]`. Raises DataError when an
    erratum's old value does not match, since the correction would then be made against different data.
    """
    problems = list(problems)
    if not enabled:
        return problems
    by_key: dict[tuple[str, str], list[Erratum]] = {}
    for erratum in ERRATA:
        by_key.setdefault((erratum.dataset, erratum.id), []).append(erratum)
    out = []
    for problem in problems:
        for erratum in by_key.get((_dataset(problem), problem.id), ()):
            problem = _corrected(problem, erratum)
            problem = dataclasses.replace(
                problem, meta={**problem.meta, "errata": (*problem.meta.get("errata", ()), erratum.field)})
        out.append(problem)
    return out


def errata_markdown() -> str:
    """The errata table as Markdown, for the "Errata" section of data/README.md."""
    lines = ["| file | id | field | released | corrected | reason |", "|---|---|---|---|---|---|"]
    for e in ERRATA:
        reason = e.reason.replace("|", "\\|")
        lines.append(f"| `{e.dataset}` | {e.id} | {e.field} | `{e.old!r}` | `{e.new!r}` | {reason} |")
    return "\n".join(lines) + "\n"
