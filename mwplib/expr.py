"""Arithmetic expression trees: parse, print, solve, evaluate and template them — without ``eval``.

Every dataset of the project writes its gold equation differently (SVAMP infix over floats, SVAMP's CSVs
prefix over ``numberK``, MAWPS ``x=56*9`` / ``56*9=x`` / ``3*x+5=20``, models emit prefix over ``N0``…).
This module turns all of them into one :class:`Node` tree so that loaders, metrics and models share a
single, safe grammar. Dataset text is tokenised against a whitelist and never executed.

Conventions (fixed here, relied on elsewhere):

* Operators are binary: ``+ - * /`` (left-associative) and ``^`` (right-associative, binds tightest).
* Unary minus directly before a number literal makes a negative literal leaf (``-5`` → leaf ``"-5"``);
  before anything else it becomes ``0 - operand`` (``-(a+b)`` → ``("-", "0", a+b)``). It binds looser
  than ``^``: ``-2^2`` is ``0 - 2^2`` = -4, while ``2^-1`` is ``2 ^ (-1)``.
* Numbers are evaluated exactly as rationals from their decimal string (``"0.1"`` → 1/10).
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Callable, Iterator, Mapping, Sequence

OPERATORS = ("+", "-", "*", "/", "^")
PRECEDENCE = {"+": 1, "-": 1, "*": 2, "/": 2, "^": 3}
RIGHT_ASSOCIATIVE = frozenset({"^"})
_BRACKETS = {"(": ")", "[": "]"}

_UNSIGNED = r"(?:[0-9]+\.[0-9]*|\.[0-9]+|[0-9]+)"  # ASCII digits only: "٧" is not a number here
_NAME = r"[A-Za-z_][A-Za-z0-9_]*"
_NUMBER = re.compile(rf"-?{_UNSIGNED}\Z")
_SLOT = re.compile(r"(?:N|number)(\d+)\Z")
_IDENTIFIER = re.compile(rf"{_NAME}\Z")
_TOKEN = re.compile(rf"\s*(?:{_UNSIGNED}|{_NAME}|[-+*/^()\[\]])")

#: A number written as a string (:func:`exact_value`): ASCII digits, a sign, commas only between groups of three
#: digits, a decimal part and an exponent, or a fraction (``-1,000.5``, ``2.5e-3``, ``3/4``); never ``7,0``,
#: ``1_000`` or another script's digits, which Python's own readers would take as 70, 1000 and 7
_WRITTEN = re.compile(r"\s*[+-]?(?:(?:(?:[0-9]{1,3}(?:,[0-9]{3})+|[0-9]+)(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?"
                      r"|[0-9]+/[0-9]+)\s*\Z")

#: Tolerance for :func:`answers_match`, used both relatively and absolutely (see there).
ANSWER_TOLERANCE = 1e-4

#: Integer exponents beyond this are refused: ``10^10^10`` must not hang a model evaluation.
MAX_EXPONENT = 1024

#: Deepest tree accepted: every function here recurses over a tree, so a 1,000-term sum would otherwise end in a
#: RecursionError far from its input. The deepest gold expression of the datasets here has depth 10 or so.
MAX_DEPTH = 200

#: Exact powers, and any intermediate value, whose numerator or denominator would exceed this many bits are refused
#: too: each exponent of ``((10^1000)^1000)^1000`` is small, the result is not, and a sum of thirty 80,000-bit
#: fractions took 6 s (no answer in these datasets comes near 2^100000).
MAX_POWER_BITS = 100_000


class ExpressionError(ValueError):
    """Any malformed, unsafe or unevaluable expression; the message quotes the expression."""


@dataclass(frozen=True)
class Node:
    """One node of a binary expression tree: an operator with two children, or a leaf token."""

    value: str
    children: tuple["Node", ...] = ()
    depth: int = field(default=1, init=False, compare=False, repr=False)  # of the tree under this node

    def __post_init__(self) -> None:
        if self.value in OPERATORS:
            if len(self.children) != 2:
                raise ExpressionError(f"operator {self.value!r} needs 2 operands, got {len(self.children)}")
            depth = 1 + max(child.depth for child in self.children)
            if depth > MAX_DEPTH:
                raise ExpressionError(f"expression deeper than {MAX_DEPTH} operators")
            object.__setattr__(self, "depth", depth)
        elif self.children:
            raise ExpressionError(f"leaf {self.value!r} cannot have children")
        elif not (is_number(self.value) or _is_symbol(self.value)):
            raise ExpressionError(f"invalid leaf token {self.value!r}")

    @property
    def is_leaf(self) -> bool:
        return not self.children

    def __str__(self) -> str:
        return to_infix(self)


def is_number(token: str) -> bool:
    """A numeric literal as written in equations: ``56``, ``0.32``, ``.5``, ``5.``, ``-3``."""
    return bool(_NUMBER.match(token))


def is_slot(token: str) -> bool:
    """A number slot: ``N3`` (mwplib, models) or ``number3`` (SVAMP's CSVs)."""
    return bool(_SLOT.match(token))


def slot_index(token: str) -> int:
    """The index ``k`` of slot ``Nk`` / ``numberk``."""
    match = _SLOT.match(token)
    if match is None:
        raise ExpressionError(f"{token!r} is not a number slot (N<k> or number<k>)")
    return int(match.group(1))


def _is_symbol(token: str) -> bool:
    return bool(_IDENTIFIER.match(token))


# ----------------------------------------------------------------------------------------------- parsing

def tokenize(text: str) -> list[str]:
    """Split an infix expression into numbers, identifiers, operators and brackets; reject anything else."""
    tokens: list[str] = []
    pos = 0
    stripped_end = len(text.rstrip())
    while pos < stripped_end:
        match = _TOKEN.match(text, pos)
        if match is None:
            bad = text[pos:].lstrip()[:1]
            where = len(text) - len(text[pos:].lstrip())
            raise ExpressionError(f"unexpected character {bad!r} at position {where} in expression {text!r}")
        tokens.append(match.group().lstrip())
        pos = match.end()
    return tokens


class _InfixParser:
    """Recursive descent: sum := product (("+"|"-") product)*; product := signed (("*"|"/") signed)*;
    signed := "-" signed | power; power := atom ("^" signed)?; atom := number | name | bracketed sum."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.tokens = tokenize(text)
        self.pos = 0

    def error(self, reason: str) -> ExpressionError:
        return ExpressionError(f"{reason} in expression {self.text!r}")

    def peek(self) -> str | None:
        return self.tokens[self.pos] if self.pos < len(self.tokens) else None

    def take(self) -> str:
        token = self.peek()
        if token is None:
            raise self.error("unexpected end")
        self.pos += 1
        return token

    def parse(self) -> Node:
        if not self.tokens:
            raise ExpressionError(f"empty expression {self.text!r}")
        node = self.sum()
        if self.pos != len(self.tokens):
            raise self.error(f"unexpected token {self.tokens[self.pos]!r} at token {self.pos}")
        return node

    def binary_level(self, operators: str, operand: Callable[[], Node]) -> Node:
        node = operand()
        while self.peek() is not None and self.peek() in operators:
            op = self.take()
            node = Node(op, (node, operand()))
        return node

    def sum(self) -> Node:
        return self.binary_level("+-", self.product)

    def product(self) -> Node:
        return self.binary_level("*/", self.signed)

    def signed(self) -> Node:
        if self.peek() != "-":
            return self.power()
        self.take()
        operand = self.signed()
        if operand.is_leaf and is_number(operand.value) and not operand.value.startswith("-"):
            return Node("-" + operand.value)
        return Node("-", (Node("0"), operand))

    def power(self) -> Node:
        base = self.atom()
        if self.peek() == "^":
            self.take()
            return Node("^", (base, self.signed()))  # right-associative; allows 2^-1
        return base

    def atom(self) -> Node:
        token = self.take()
        if token in _BRACKETS:
            inner = self.sum()
            closing = self.peek()
            if closing != _BRACKETS[token]:
                found = "end" if closing is None else repr(closing)
                raise self.error(f"unbalanced brackets: {token!r} closed by {found}")
            self.take()
            return inner
        if is_number(token) or _is_symbol(token):
            return Node(token)
        raise self.error(f"unexpected token {token!r} at token {self.pos - 1}")


def parse_infix(text: str) -> Node:
    """Parse an infix expression such as ``( 76.0 - 25.0 )`` or ``3*[x+5]`` into a tree."""
    try:
        return _InfixParser(text).parse()
    except RecursionError:  # a pathologically deep input is an error of the input, not a crash
        raise ExpressionError(f"expression nested too deeply: {text[:80]!r}...") from None


def _as_tokens(tokens: Sequence[str] | str) -> list[str]:
    listed = tokens.split() if isinstance(tokens, str) else list(tokens)
    for token in listed:
        if not isinstance(token, str) or not (token in OPERATORS or is_number(token) or _is_symbol(token)):
            raise ExpressionError(f"invalid token {token!r} in expression {' '.join(map(str, listed))!r}")
    if not listed:
        raise ExpressionError("empty expression ''")
    return listed


def parse_prefix(tokens: Sequence[str] | str) -> Node:
    """Parse prefix (Polish) notation, e.g. ``- number0 number1`` or ``["*", "N0", "N1"]``: a stack read right to
    left, no recursion, any length."""
    listed = _as_tokens(tokens)
    text = " ".join(listed)
    stack: list[Node] = []
    for token in reversed(listed):
        if token in OPERATORS:
            if len(stack) < 2:
                raise ExpressionError(f"operator {token!r} lacks operands in prefix expression {text!r}")
            first, second = stack.pop(), stack.pop()
            stack.append(Node(token, (first, second)))
        else:
            stack.append(Node(token))
    if len(stack) != 1:
        raise ExpressionError(f"{len(stack) - 1} trailing operand(s) in prefix expression {text!r}")
    return stack[0]


def parse_equation(text: str) -> tuple[Node, Node]:
    """Split ``lhs = rhs`` on its single ``=`` and parse both sides (MAWPS ``lEquations``)."""
    parts = text.split("=")
    if len(parts) != 2:
        raise ExpressionError(f"an equation needs exactly one '=', found {len(parts) - 1} in {text!r}")
    try:
        return parse_infix(parts[0]), parse_infix(parts[1])
    except ExpressionError as error:
        raise ExpressionError(f"{error} (equation {text!r})") from None


# ---------------------------------------------------------------------------------------------- printing

def _needs_brackets(child: Node, parent: str, right: bool) -> bool:
    if child.is_leaf:
        # A negative literal as the base of ^ would re-parse as 0 - (base ^ e).
        return parent == "^" and not right and child.value.startswith("-")
    mine, theirs = PRECEDENCE[parent], PRECEDENCE[child.value]
    if theirs != mine:
        return theirs < mine
    # Equal precedence: only the side the operator associates towards may go bare, so that the
    # printed string parses back to the same tree (a - (b - c), (a ^ b) ^ c, even a + (b + c)).
    return right != (parent in RIGHT_ASSOCIATIVE)


def to_infix(node: Node) -> str:
    """Space-separated infix with the fewest brackets that still parse back to the same tree."""
    if node.is_leaf:
        return node.value
    parts = []
    for child, right in zip(node.children, (False, True)):
        text = to_infix(child)
        parts.append(f"( {text} )" if _needs_brackets(child, node.value, right) else text)
    return f"{parts[0]} {node.value} {parts[1]}"


def _walk(node: Node) -> Iterator[Node]:
    """Nodes in prefix (pre-order) order, iteratively."""
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        stack.extend(reversed(current.children))


def to_prefix(node: Node) -> list[str]:
    """Prefix tokens (the order tree decoders such as GTS / Graph2Tree emit)."""
    return [n.value for n in _walk(node)]


def leaves(node: Node) -> list[str]:
    """Leaf tokens left to right."""
    return [n.value for n in _walk(node) if n.is_leaf]


def count_operators(node: Node) -> int:
    """Number of operator nodes (SVAMP's and the derivation paper's equation-complexity measure)."""
    return sum(1 for n in _walk(node) if not n.is_leaf)


# ------------------------------------------------------------------------------------ rewriting the tree

def map_leaves(node: Node, rewrite: Callable[[str], Node | None]) -> Node:
    """Rebuild `node` with each leaf replaced by ``rewrite(token)`` (``None`` keeps the leaf)."""
    if node.is_leaf:
        replacement = rewrite(node.value)
        return node if replacement is None else replacement
    return Node(node.value, tuple(map_leaves(child, rewrite) for child in node.children))


def _as_node(value: str | Node) -> Node:
    if isinstance(value, Node):
        return value
    return Node(value) if is_number(value) or _is_symbol(value) else parse_infix(value)


def substitute(node: Node, mapping: Mapping[str, str | Node]) -> Node:
    """Replace leaves by `mapping`; a string value that is not a single token (``"3/4"``) is parsed."""
    converted = {key: _as_node(value) for key, value in mapping.items()}
    return map_leaves(node, converted.get)


def template(node: Node, meta: str = "n") -> Node:
    """SVAMP's "Equation Template" (§5.2): every number literal and slot masked by one meta symbol."""
    meta_leaf = Node(meta)
    return map_leaves(node, lambda token: meta_leaf if is_number(token) or is_slot(token) else None)


def _letters(index: int) -> str:
    """0 → a, 25 → z, 26 → aa, … (bijective base 26)."""
    name = ""
    index += 1
    while index:
        index, rest = divmod(index - 1, 26)
        name = chr(ord("a") + rest) + name
    return name


def ordered_template(node: Node) -> Node:
    """MAWPS's ordered template: the k-th distinct number (literal value or slot) in leaf order
    becomes the k-th letter ``a, b, c, …``; unknowns stay. Note: a symbol named like a letter would clash.
    """
    names: dict[object, Node] = {}

    def rename(token: str) -> Node | None:
        if is_number(token):
            key: object = Fraction(token)
        elif is_slot(token):
            key = ("slot", slot_index(token))
        else:
            return None
        return names.setdefault(key, Node(_letters(len(names))))

    return map_leaves(node, rename)


# ------------------------------------------------------------------------------------------------ solving

def _matches(token: str, var: str) -> bool:
    return token.casefold() == var.casefold()


def unknowns(*nodes: Node) -> list[str]:
    """Distinct symbols that are neither numbers nor slots, in leaf order (MAWPS names its unknowns
    freely: ``x``, ``X``, ``number``, ``next_quiz``)."""
    found: dict[str, None] = {}
    for node in nodes:
        for token in leaves(node):
            if _is_symbol(token) and not is_slot(token):
                found.setdefault(token, None)
    return list(found)


def _is_zero(node: Node) -> bool:
    """Whether `node` is a constant expression equal to 0 (one with a symbol is not known to be)."""
    try:
        return evaluate(node) == 0
    except ExpressionError:
        return False


def solve_for(lhs: Node, rhs: Node, var: str | None = "x") -> Node:
    """Rewrite ``lhs = rhs`` as an expression for `var` (matched case-insensitively) by inverting
    ``+ - * /`` along its path. `var` must occur exactly once; ``None`` means "the only unknown".
    Used to turn MAWPS/SingleEq equations (``56*9=x``, ``(x-5)/2=7``) into a target expression."""
    equation = f"{to_infix(lhs)} = {to_infix(rhs)}"
    if var is None:
        names = unknowns(lhs, rhs)
        if len({name.casefold() for name in names}) != 1:
            raise ExpressionError(f"expected exactly one unknown, found {names} in equation {equation!r}")
        var = names[0]
    count = sum(_matches(token, var) for side in (lhs, rhs) for token in leaves(side))
    if count != 1:
        raise ExpressionError(f"unknown {var!r} occurs {count} times (need exactly 1) in equation {equation!r}")
    target, other = (lhs, rhs) if any(_matches(t, var) for t in leaves(lhs)) else (rhs, lhs)
    while not target.is_leaf:
        op, (left, right) = target.value, target.children
        if op == "^":
            raise ExpressionError(f"cannot isolate {var!r} under '^' in equation {equation!r}")
        if any(_matches(t, var) for t in leaves(left)):
            if op in "*/" and _is_zero(right):
                raise ExpressionError(f"{var!r} is {'multiplied' if op == '*' else 'divided'} by zero in equation "
                                      f"{equation!r}: no single solution")
            inverse = {"+": "-", "-": "+", "*": "/", "/": "*"}[op]
            target, other = left, Node(inverse, (other, right))
        else:
            if op in "*/" and _is_zero(left):  # 0 * x, 0 / x: zero whatever x is
                raise ExpressionError(f"{var!r} is {'multiplied by' if op == '*' else 'under'} a zero "
                                      f"{'factor' if op == '*' else 'numerator'} in equation {equation!r}: no single "
                                      f"solution")
            target = right
            other = Node(op, (left, other)) if op in "-/" else Node({"+": "-", "*": "/"}[op], (other, left))
    return other


# --------------------------------------------------------------------------------------------- evaluating

def exact_value(value: Fraction | float | int | str) -> Fraction:
    """A number as an exact rational: floats as the decimal they print as (0.1 → 1/10, not the binary
    double), strings as written (``"3/4"``, ``"1,000"``, :data:`_WRITTEN`); bools, NaN and infinities are refused."""
    if isinstance(value, bool):
        raise ExpressionError(f"{value!r} is a bool, not a number")
    if isinstance(value, (Fraction, int)):
        return Fraction(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ExpressionError(f"{value!r} is not finite")
        return Fraction(repr(value))
    if isinstance(value, str):
        if not _WRITTEN.match(value):
            raise ExpressionError(f"{value[:40]!r} is not a number")
        written = value.replace(",", "").strip()
        scale = re.search(r"[eE]([+-]?\d+)\Z", written)
        digits = scale.group(1).lstrip("+-").lstrip("0") if scale else ""
        if len(digits) > 6 or digits and int(digits) > MAX_EXPONENT:
            raise ExpressionError(f"{value[:40]!r}: exponent beyond ±{MAX_EXPONENT}")  # 1e10000000: seconds
        try:
            return Fraction(written)
        except ZeroDivisionError:
            raise ExpressionError(f"{value[:40]!r} has a zero denominator") from None
        except ValueError:  # past Python's digit limit for int strings
            raise ExpressionError(f"{value[:40]!r}…: {len(written)} digits, more than Python reads") from None
    raise ExpressionError(f"{value!r} has unsupported type {type(value).__name__}")


def _shown(number: Fraction) -> str:
    """`number` for an error message: a huge one by its size (printing it can itself fail: Python's digit limit)."""
    bits = max(number.numerator.bit_length(), number.denominator.bit_length())
    return str(number) if bits <= 1000 else f"<a {bits}-bit number>"


def _power(base: Fraction, exponent: Fraction) -> Fraction:
    if exponent.denominator == 1:
        if abs(exponent) > MAX_EXPONENT:
            raise ExpressionError(f"exponent {_shown(exponent)} too large (> {MAX_EXPONENT})")
        if base == 0 and exponent < 0:
            raise ExpressionError(f"division by zero (0 ^ {exponent})")
        if abs(exponent) * max(base.numerator.bit_length(), base.denominator.bit_length()) > MAX_POWER_BITS:
            raise ExpressionError(f"{_shown(base)} ^ {exponent} too large (> {MAX_POWER_BITS} bits)")
        return base ** int(exponent)
    # Non-integer exponent: no exact rational in general, so computed in floating point (documented).
    if base < 0:
        raise ExpressionError(f"negative base {_shown(base)} with fractional exponent {_shown(exponent)}")
    try:
        return Fraction(float(base) ** float(exponent))
    except (OverflowError, ValueError, ZeroDivisionError):
        raise ExpressionError(f"cannot compute {_shown(base)} ^ {_shown(exponent)}") from None


def _value(node: Node, values: Mapping[str, Fraction]) -> Fraction:
    token = node.value
    if node.is_leaf:
        if is_number(token):
            return exact_value(token)  # an ExpressionError past Python's digit limit, not a bare ValueError
        if token not in values:
            raise ExpressionError(f"unbound symbol {token!r}")
        return values[token]
    left, right = (_value(child, values) for child in node.children)
    if token == "/" and right == 0:
        raise ExpressionError("division by zero")
    result = (left + right if token == "+" else left - right if token == "-" else left * right if token == "*"
              else left / right if token == "/" else _power(left, right))
    if max(result.numerator.bit_length(), result.denominator.bit_length()) > MAX_POWER_BITS:  # sums of big powers
        raise ExpressionError(f"an intermediate value of more than {MAX_POWER_BITS} bits")  # took seconds each
    return result


def _bound(name: str, value: Fraction | float | int | str) -> Fraction:
    try:
        return exact_value(value)
    except ExpressionError as error:
        raise ExpressionError(f"binding {name}: {error}") from None


def evaluate(node: Node, bindings: Mapping[str, Fraction | float | int | str] | None = None) -> Fraction:
    """Exact rational value of `node`; symbols (slots, unknowns) are looked up in `bindings`
    (floats are read as the decimal they print as, strings as exact numbers).

    ``^`` with an integer exponent is exact; a non-integer exponent is computed in floating point and
    converted back. Division by zero, unbound symbols and bad bindings raise :class:`ExpressionError`.
    """
    try:
        values = {name: _bound(name, value) for name, value in (bindings or {}).items()}
        return _value(node, values)
    except ExpressionError as error:
        raise ExpressionError(f"{error} in expression {to_infix(node)!r}") from None


def _answer_value(value: object) -> Fraction | None:
    if value is None:
        return None
    try:
        return exact_value(value)  # type: ignore[arg-type]
    except ExpressionError:
        return None


def answers_match(predicted: object, gold: object) -> bool:
    """Whether a predicted answer equals the gold answer up to :data:`ANSWER_TOLERANCE`.

    Golds are stored rounded (DRAW ``2.14285714286`` for 15/7, MAWPS ``0.16666666666666666``) and
    predictions are exact rationals, so equality needs a tolerance; 1e-4 relative *or* absolute
    accepts any gold rounded to ≥ 5 significant digits, while distinct answers of these datasets
    differ far more. None, NaN, infinities and unparsable strings never match.
    """
    pred, ref = _answer_value(predicted), _answer_value(gold)
    if pred is None or ref is None:
        return False
    tolerance = Fraction(ANSWER_TOLERANCE)
    return abs(pred - ref) <= max(tolerance, tolerance * max(abs(pred), abs(ref)))
