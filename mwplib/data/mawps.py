"""MAWPS (Koncel-Kedziorski et al. 2016): the 2,373-problem set used by SVAMP / Graph2Tree and four of
its subsets (notebook 00_datasets: SVAMP Table 9 and the MAWPS overlap statistics; and the solver
notebooks that train on MAWPS).

MAWPS writes one equation per problem with a freely named unknown, on either side (``56*9=x``,
``12*.01*paycheck=72.0``, ``4.0+(5.0*x)=29.0``) or not at all (``0.8 - 0.1``). The loaders isolate the
unknown with :func:`mwplib.expr.solve_for`; where it occurs more than once (``3*n-5=2*n+7``) no single
expression exists and the problem keeps ``prefix=()`` with a ``no-single-expression`` issue.
"""
from __future__ import annotations

import functools
from typing import Any, Mapping

from mwplib.data.checksums import DataError
from mwplib.data.gold import (NO_EXPRESSION, finite_number, issue_list, prefix_issues, read_json, slot_prefix,
                              text_numbers)
from mwplib.data.questions import split_question
from mwplib.expr import ExpressionError, Node, parse_equation, parse_infix, solve_for
from mwplib.problem import Problem

MAWPS_SOURCE = "mawps/mwptoolkit/mawps-single/mawps_source.json"
MAWPS_COMBINE = "mawps/graph2tree/mawps_combine.json"
MAWPS_MEMBERSHIP = "mawps/derived/mawps2373_subset_membership.json"
SUBSET_FILE = "mawps/subsets/{name}.json"
#: subset name -> id prefix of its problems
SUBSETS = {"AddSub": "addsub", "SingleOp": "singleop", "MultiArith": "multiarith", "SingleEq": "singleeq"}
#: the fields that must agree between the MWPToolkit and Graph2Tree copies of the 2,373 set
_SHARED_FIELDS = ("iIndex", "sQuestion", "lEquations", "lSolutions")


def unknown_expression(equation: str) -> Node:
    """The expression for the unknown of one MAWPS equation; a bare expression is its own answer."""
    if "=" not in equation:
        return parse_infix(equation)
    lhs, rhs = parse_equation(equation)
    return solve_for(lhs, rhs, var=None)


def _answer(record: Mapping[str, Any], source: str) -> float:
    solutions = record.get("lSolutions")
    if not isinstance(solutions, list) or len(solutions) != 1:
        raise DataError(f"{source}: expected a list of one solution, found {solutions!r:.60}")
    return finite_number(solutions[0], "solution", source, written=True)  # MAWPS writes some as strings


def _index(record: Any, where: str) -> int:
    """A record's iIndex, which its id is made of: an integer (the subsets made "addsub-None" of a missing one)."""
    index = record.get("iIndex") if isinstance(record, dict) else None
    if type(index) is not int:
        raise DataError(f"{where}: a record without an integer iIndex (got {index!r:.40})")
    return index


def _problem(record: Mapping[str, Any], problem_id: str, source: str, meta: Mapping[str, Any]) -> Problem:
    """One MAWPS-format record (``iIndex, sQuestion, lEquations, lSolutions``) as a Problem."""
    try:
        text, equations = " ".join(record["sQuestion"].split()), record["lEquations"]
    except (KeyError, AttributeError, TypeError) as error:
        raise DataError(f"{source}: malformed record ({error!r})") from None
    if not isinstance(equations, list) or not all(isinstance(e, str) for e in equations):
        raise DataError(f"{source}: lEquations must be a list of equations, got {equations!r:.60}")
    body, question = split_question(text)
    numbers = text_numbers(f"{body} {question}", source)
    answer = _answer(record, source)
    prefix: tuple[str, ...] = ()
    try:
        if len(equations) != 1:
            raise ExpressionError(f"{len(equations)} equations {equations!r}")
        prefix = slot_prefix(unknown_expression(equations[0]), numbers)
    except ExpressionError as error:
        issues = [f"{NO_EXPRESSION}: {error}"]
    else:
        issues = prefix_issues(prefix, numbers, answer, report_constants=True)
    if "templateNumber" in record:  # SingleEq's own template annotation
        meta = {**meta, "template_number": record["templateNumber"]}
    return Problem(id=problem_id, body=body, question=question, equation="; ".join(equations), answer=answer,
                   numbers=numbers, prefix=prefix,
                   meta={"source": source, **meta, "issues": tuple(issues)})


@functools.lru_cache(maxsize=1)
def _mawps_2373() -> tuple[Problem, ...]:
    records, combine = read_json(MAWPS_SOURCE), read_json(MAWPS_COMBINE)
    membership = read_json(MAWPS_MEMBERSHIP)["rows"]
    if not len(records) == len(combine) == len(membership):
        raise DataError(f"{MAWPS_SOURCE}, {MAWPS_COMBINE}, {MAWPS_MEMBERSHIP}: {len(records)}, {len(combine)} "
                        f"and {len(membership)} records; the three must list the same problems")
    problems = []
    for position, (record, copy, member) in enumerate(zip(records, combine, membership)):
        source = f"{MAWPS_SOURCE}#iIndex={_index(record, f'{MAWPS_SOURCE}#position{position}')}"
        differing = [name for name in _SHARED_FIELDS if record.get(name) != copy.get(name)]
        if differing:
            raise DataError(f"{source}: position {position} differs from {MAWPS_COMBINE} in {differing}")
        if member["iIndex"] != record["iIndex"] or member["position"] != position:
            raise DataError(f"{source}: position {position} is iIndex {member['iIndex']} in {MAWPS_MEMBERSHIP}")
        meta = {"position": position, "subsets": tuple(member["subsets_matched"]),
                "kept_by_graph2tree": bool(member["kept_by_graph2tree_filter"]),
                "graph2tree_fold": member["graph2tree_fold"]}
        problems.append(_problem(record, f"mawps-{record['iIndex']}", source, meta))
    _check_unique(problems, MAWPS_SOURCE)
    return tuple(problems)


def _check_unique(problems: list[Problem], relpath: str) -> None:
    seen: set[str] = set()
    for problem in problems:
        if problem.id in seen:
            raise DataError(f"{problem.source}: duplicate id {problem.id} in {relpath}")
        seen.add(problem.id)


def load_mawps_2373() -> list[Problem]:
    """The 2,373 MAWPS problems of SVAMP Table 9 (MWPToolkit's ``mawps_source.json``, checked record by
    record against Graph2Tree's ``mawps_combine.json``), ids ``mawps-<iIndex>``.

    meta: ``subsets`` (MAWPS subsets holding the same text), ``kept_by_graph2tree`` and ``graph2tree_fold``
    (Graph2Tree's single-equation filter and 5-fold CV chunk), ``position``, ``source``, ``issues``.
    """
    return list(_mawps_2373())


@functools.lru_cache(maxsize=1)
def _subsets() -> dict[str, tuple[Problem, ...]]:
    out = {}
    for name, prefix in SUBSETS.items():
        relpath = SUBSET_FILE.format(name=name)
        problems = []
        for position, record in enumerate(read_json(relpath)):
            index = _index(record, f"{relpath}#position{position}")
            problems.append(_problem(record, f"{prefix}-{index}", f"{relpath}#iIndex={index}", {"subset": name}))
        _check_unique(problems, relpath)
        out[name] = tuple(problems)
    return out


def load_mawps_subsets() -> dict[str, list[Problem]]:
    """AddSub (395), SingleOp (562), MultiArith (600) and SingleEq (508) as exported by MAWPS, ids
    ``addsub-<iIndex>`` etc.; `equation` holds the raw equation string for the template-overlap statistic
    of the MAWPS paper (notebook 00_datasets)."""
    return {name: list(problems) for name, problems in _subsets().items()}


def mawps_issues() -> list[tuple[str, str]]:
    """(id, issue) for every problem of the 2,373 set and the subsets that does not fit cleanly."""
    return issue_list([*_mawps_2373(), *(p for problems in _subsets().values() for p in problems)])
