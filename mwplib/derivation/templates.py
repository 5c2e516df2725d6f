"""Templates: un-grounded systems of linear equations with coefficient slots (Upadhyay & Chang 2017, §2).

A template such as ``["a * m + b * n = c", "m + n = d"]`` has slots a, b, … (filled by textual numbers)
and unknowns m, n, o. We parse it once, without `eval`, into an expression tree; grounding it with slot
values evaluates the tree to exact linear forms ``Σ_u coef_u·u = const`` (`fractions.Fraction`),
rejecting anything non-linear in the unknowns. Used by notebook 06.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from fractions import Fraction
from typing import Mapping, Sequence

#: Letters the released annotations use for unknowns; every other single letter is a coefficient slot.
UNKNOWNS = ("m", "n", "o")

_TOKEN = re.compile(r"\s*(?:(\d+\.?\d*|\.\d+)|([A-Za-z_]\w*)|(.))")

# A linear form in the unknowns once slots are grounded: unknown name ("" for the constant) -> value.
Linear = dict[str, Fraction]
# Parsed expression: ("num", Fraction) | ("slot", name) | ("unknown", name) | (op, left, right) | ("neg", x)
Node = tuple


class TemplateError(ValueError):
    """A template string that is not a system of linear equations over slots and unknowns."""


def _combine(op: str, x: Linear, y: Linear) -> Linear:
    """x op y for linear forms; raises TemplateError when the result would not be linear."""
    if op in "+-":
        sign = 1 if op == "+" else -1
        out = dict(x)
        for var, v in y.items():
            out[var] = out.get(var, Fraction(0)) + sign * v
        return out
    if op == "*":
        if any(x) and any(y):
            raise TemplateError("product of two expressions in the unknowns")
        scale, form = (x.get("", Fraction(0)), y) if not any(x) else (y.get("", Fraction(0)), x)
        return {var: v * scale for var, v in form.items()}
    if any(y):
        raise TemplateError("division by an expression in the unknowns")
    return {var: v / y.get("", Fraction(0)) for var, v in x.items()}  # ZeroDivisionError if y == 0


def _evaluate(node: Node, values: Mapping[str, Fraction]) -> Linear:
    kind = node[0]
    if kind == "num":
        return {"": node[1]}
    if kind == "slot":
        return {"": values[node[1]]}
    if kind == "unknown":
        return {node[1]: Fraction(1)}
    if kind == "neg":
        return {var: -v for var, v in _evaluate(node[1], values).items()}
    return _combine(kind, _evaluate(node[1], values), _evaluate(node[2], values))


class _Parser:
    """Recursive descent over + - * / ( ) numbers and names; division only by slot-free constants."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.tokens: list[tuple[str, str]] = []
        for num, name, other in _TOKEN.findall(text):
            if num:
                self.tokens.append(("num", num))
            elif name:
                self.tokens.append(("name", name))
            elif other.strip():
                if other not in "+-*/()=":
                    raise TemplateError(f"template equation {text!r}: unexpected character {other!r}")
                self.tokens.append(("op", other))
        self.pos = 0

    def peek(self) -> str | None:
        return self.tokens[self.pos][1] if self.pos < len(self.tokens) else None

    def take(self) -> tuple[str, str]:
        if self.pos >= len(self.tokens):
            raise TemplateError(f"template equation {self.text!r} ends unexpectedly")
        self.pos += 1
        return self.tokens[self.pos - 1]

    def equation(self) -> Node:
        left = self.expr()
        if self.take() != ("op", "="):
            raise TemplateError(f"template equation {self.text!r} has no single '='")
        right = self.expr()
        if self.pos != len(self.tokens):
            raise TemplateError(f"template equation {self.text!r}: trailing {self.tokens[self.pos][1]!r}")
        return ("-", left, right)  # left - right = 0

    def expr(self) -> Node:
        node = self.term()
        while self.peek() in ("+", "-"):
            node = (self.take()[1], node, self.term())
        return node

    def term(self) -> Node:
        node = self.factor()
        while self.peek() in ("*", "/"):
            node = (self.take()[1], node, self.factor())
        return node

    def factor(self) -> Node:
        kind, tok = self.take()
        if tok == "-":
            return ("neg", self.factor())
        if tok == "+":
            return self.factor()
        if tok == "(":
            node = self.expr()
            if self.take()[1] != ")":
                raise TemplateError(f"template equation {self.text!r}: unbalanced parenthesis")
            return node
        if kind == "num":
            return ("num", Fraction(tok))
        if kind == "name":
            return ("unknown", tok) if tok in UNKNOWNS else ("slot", tok)
        raise TemplateError(f"template equation {self.text!r}: unexpected {tok!r}")


@dataclass(frozen=True)
class Template:
    """A parsed template; `key` is its source text (equations joined by ' ; '), used for identity."""

    equations: tuple[str, ...]
    slots: tuple[str, ...]
    unknowns: tuple[str, ...]
    trees: tuple[Node, ...]

    @property
    def key(self) -> str:
        return " ; ".join(self.equations)

    def ground(self, values: Mapping[str, Fraction]) -> tuple[list[list[Fraction]], list[Fraction]]:
        """The grounded system ``A·u = b`` (rows per equation, columns per unknown) for slot values;
        ZeroDivisionError when the values divide by zero."""
        matrix, rhs = [], []
        for tree in self.trees:
            form = _evaluate(tree, values)
            matrix.append([form.get(u, Fraction(0)) for u in self.unknowns])
            rhs.append(-form.get("", Fraction(0)))
        return matrix, rhs

    def render(self, values: Mapping[str, object]) -> str:
        """The equations with each slot replaced by `values[slot]` (for case studies)."""
        slots = set(self.slots)
        return " ; ".join(re.sub(r"\b([a-z])\b", lambda m: str(values[m.group(1)]) if m.group(1) in slots
                                 else m.group(1), eq) for eq in self.equations)


def names_in(node: Node, kind: str) -> set[str]:
    """The slot ("slot") or unknown ("unknown") names occurring in a parsed equation."""
    if node[0] in ("num", "slot", "unknown"):
        return {node[1]} if node[0] == kind else set()
    return set().union(*(names_in(child, kind) for child in node[1:]))


def parse_template(equations: Sequence[str]) -> Template:
    """Parse a template's equation strings (no `eval`); raises TemplateError on non-linear input."""
    if isinstance(equations, str):
        raise TypeError("parse_template takes a sequence of equation strings, not one string")
    trees = tuple(_Parser(text).equation() for text in equations)
    slots = sorted(set().union(*(names_in(t, "slot") for t in trees)))
    unknowns = sorted(set().union(*(names_in(t, "unknown") for t in trees)))
    for text, tree in zip(equations, trees):
        try:  # linearity is structural: one grounding with non-zero values finds any violation
            _evaluate(tree, dict.fromkeys(slots, Fraction(1)))
        except TemplateError as err:
            raise TemplateError(f"template equation {text!r}: {err}") from None
        except ZeroDivisionError:
            pass
    return Template(tuple(equations), tuple(slots), tuple(unknowns), trees)


def canonical_form(template: Template) -> str:
    """A symbolic normal form (each equation as expanded ``lhs − rhs`` up to sign, equations sorted),
    built with sympy from the parse tree, no `eval`: the Kushman et al. (2014) style of de-duplicating
    templates, which unlike TEMPLEQUIV does not try slot renamings."""
    import sympy

    def build(node: Node):
        kind = node[0]
        if kind == "num":
            return sympy.Rational(node[1].numerator, node[1].denominator)
        if kind in ("slot", "unknown"):
            return sympy.Symbol(node[1])
        if kind == "neg":
            return -build(node[1])
        left, right = build(node[1]), build(node[2])
        return {"+": left + right, "-": left - right, "*": left * right, "/": left / right}[kind]

    forms = []
    for tree in template.trees:
        expr = sympy.expand(sympy.together(build(tree)).as_numer_denom()[0])
        forms.append(min(str(expr), str(sympy.expand(-expr))))
    return " ; ".join(sorted(forms))
