"""The one record type every loader returns and every model, metric and table consumes, and what a run's answers to
those records come to (`Correctness`)."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping


#: Problem id → answered correctly? (what a run's predictions come to, and what the noise tests compare)
Correctness = Mapping[str, bool]


@dataclass(frozen=True)
class Problem:
    """One math word problem.

    `numbers` are the quantities of the text in order of appearance (surface strings normalised by
    `mwplib.numbers`, e.g. "56", "0.5", "3/4"); slot ``N{i}`` in `prefix` refers to ``numbers[i]``.
    `prefix` is the gold equation for x in prefix notation over slots, operators and constants
    (e.g. ``("-", "N0", "N1")``); it is empty for problems whose gold is a system of equations
    (DRAW-1K, ALG-514, DOLPHIN-L), whose annotations sit in `meta`.
    `equation` keeps the source's own equation string for provenance.
    """

    id: str
    body: str
    question: str
    equation: str
    answer: float | None
    numbers: tuple[str, ...] = ()
    prefix: tuple[str, ...] = ()
    meta: Mapping[str, Any] = field(default_factory=dict, compare=False)

    @property
    def text(self) -> str:
        """Body and question, as a reader sees the problem."""
        return f"{self.body} {self.question}".strip() if self.question else self.body

    @property
    def source(self) -> str:
        """Where the record came from (file and record), for error messages."""
        return str(self.meta.get("source", self.id))


@dataclass(frozen=True)
class Split:
    """A train/test partition as a paper defines it (one CV fold, or a fixed train → test split)."""

    name: str
    train: tuple[Problem, ...]
    test: tuple[Problem, ...]
    dev: tuple[Problem, ...] = ()

    def __post_init__(self) -> None:
        overlap = {p.id for p in self.train} & {p.id for p in self.test}
        if overlap:
            raise ValueError(f"split {self.name}: {len(overlap)} problem ids in both train and test, e.g. "
                             f"{sorted(overlap)[:3]}")
