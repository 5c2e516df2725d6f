"""MathEN (Wang et al. 2018, "Translating a Math Word Problem to an Expression Tree"), as Lan et al. 2022
evaluate it (Table II): BiLSTM Seq2Seq, ConvS2S and Transformer members trained on normalised equations, and
an ensemble that answers each problem with the member whose prediction has the highest generation probability.

Equation normalisation gives equivalent duplicated equations one target, so that maximum likelihood is not
split between, e.g., ``N0 + N1`` and ``N1 + N0``: bottom-up, each chain of ``+`` (or of ``*``) is flattened, its
operands are sorted by their leaves (slots by index, i.e. by position in the text, then constants by value)
and regrouped from the left. Wang et al. order the numbers of a ``+`` / ``×`` chain by their position in the
text and drop the brackets associativity makes redundant (their released preprocessing sorts the slots of
``a + b + c`` chains); here the rule covers chains whose operands are subexpressions too.
"""
from __future__ import annotations

import math
from dataclasses import replace
from fractions import Fraction
from functools import reduce
from typing import Any, Mapping, Sequence

from .. import expr
from ..data.gold import bindings
from ..problem import Problem

#: The members MathEN combines (names in `mwplib.models.MODELS`).
MEMBERS = ("seq2seq", "convs2s", "transformer")

#: Operators whose operands may be reordered and regrouped without changing the value.
COMMUTATIVE = frozenset({"+", "*"})


def normalize_prefix(prefix: Sequence[str]) -> tuple[str, ...]:
    """The canonical prefix of an equation over slots (``N0``…) and constants; raises
    :class:`mwplib.expr.ExpressionError` on a malformed prefix or a leaf that is neither."""
    return tuple(expr.to_prefix(_normal(expr.parse_prefix(list(prefix)))))


def _normal(node: expr.Node) -> expr.Node:
    """Children first; a ``+`` / ``*`` chain becomes its sorted operands, grouped from the left."""
    if node.is_leaf:
        _leaf_key(node.value)  # validates the leaf
        return node
    children = tuple(_normal(child) for child in node.children)
    if node.value not in COMMUTATIVE:
        return expr.Node(node.value, children)
    operands = sorted((o for child in children for o in _chain(child, node.value)), key=_key)
    return reduce(lambda left, right: expr.Node(node.value, (left, right)), operands)


def _chain(node: expr.Node, operator: str) -> list[expr.Node]:
    """The operands of a chain of `operator` rooted at `node` (just `node` when it is something else)."""
    if node.value != operator:
        return [node]
    return [operand for child in node.children for operand in _chain(child, operator)]


def _key(node: expr.Node) -> tuple[tuple[tuple[int, Fraction], ...], tuple[str, ...]]:
    """Order of operands: their leaves' keys left to right, then (equal leaves, different operators) the prefix."""
    return tuple(_leaf_key(leaf) for leaf in expr.leaves(node)), tuple(expr.to_prefix(node))


def _leaf_key(token: str) -> tuple[int, Fraction]:
    """Slots by index, then constants by value."""
    if expr.is_slot(token):
        return 0, Fraction(expr.slot_index(token))
    if expr.is_number(token):
        return 1, Fraction(token)
    raise expr.ExpressionError(f"leaf {token!r} is neither a number slot nor a constant")


def normalized(problem: Problem) -> Problem:
    """`problem` with its gold prefix normalised (a problem without one, e.g. a system of equations, as it is).
    Raises ValueError naming the record when its equation does not parse or evaluate over its numbers, or when
    the normalised one would take another value."""
    if not problem.prefix:
        return problem
    slots = bindings(problem.numbers)
    try:
        prefix = normalize_prefix(problem.prefix)
        before, after = (expr.evaluate(expr.parse_prefix(list(p)), slots) for p in (problem.prefix, prefix))
    except (expr.ExpressionError, OverflowError) as error:
        raise ValueError(f"{problem.source}: cannot normalise {' '.join(problem.prefix)!r}: {error}") from None
    if before != after:
        raise ValueError(f"{problem.source}: normalising {' '.join(problem.prefix)!r} to {' '.join(prefix)!r} "
                         f"changed its value from {before} to {after}")
    return replace(problem, prefix=prefix)


def ensemble(members: Sequence[Sequence[Mapping[str, Any]]]) -> list[dict[str, Any]]:
    """Per problem, the record of the member whose prediction has the highest ``logprob`` (ties: the earlier
    member), with ``member`` set to that member's index in `members`.

    Each member's records are those of :func:`mwplib.train.score` for the same problems, in any order; the result
    follows the first member's order. Raises ValueError when there is no member, when a record lacks an id or a
    log-probability (NaN included) or repeats an id, or when the members' problem ids differ."""
    if not members:
        raise ValueError("an ensemble needs at least one member")
    tables = [_by_id(m, records) for m, records in enumerate(members)]
    for m, table in enumerate(tables[1:], 1):
        if table.keys() != tables[0].keys():
            missing, extra = sorted(tables[0].keys() - table.keys()), sorted(table.keys() - tables[0].keys())
            raise ValueError(f"ensemble member {m} has other problems than member 0: {len(missing)} missing "
                             f"(e.g. {missing[:3]}), {len(extra)} extra (e.g. {extra[:3]})")
    chosen = []
    for record in members[0]:
        best = max(range(len(tables)), key=lambda m: (tables[m][record["id"]]["logprob"], -m))
        chosen.append({**tables[best][record["id"]], "member": best})
    return chosen


def _by_id(member: int, records: Sequence[Mapping[str, Any]]) -> dict[str, Mapping[str, Any]]:
    table: dict[str, Mapping[str, Any]] = {}
    for position, record in enumerate(records):
        if "id" not in record:
            raise ValueError(f"ensemble member {member}, record {position}: no 'id'")
        name = f"ensemble member {member}, problem {record['id']!r}"
        if record["id"] in table:
            raise ValueError(f"{name}: appears twice")
        logprob = record.get("logprob")
        if not isinstance(logprob, (int, float)) or math.isnan(logprob):
            raise ValueError(f"{name}: log-probability {logprob!r} is not a number")
        table[record["id"]] = record
    return table
