"""A trained solver for notebooks and teaching: save/load a checkpoint, `solve("text")`.

Notebook 01_baselines trains the models (through `mwplib.runs`, which saves each run's checkpoint);
later notebooks load them here to solve new or perturbed texts and, for the Constrained model, read the
attention weights per decoding step.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Sequence

import torch

from . import expr
from .models import MODELS, MWPModel, assemble
from .numbers import words_to_numbers
from .problem import Problem
from .reading import ascii_signs, misreadings, read_numbers, scale_numerals
from .run_spec import config_from
from .text import EncodedText, OutputVocab, Vocab, encode_text
from .train import predict


def save_checkpoint(model: MWPModel, name: str, max_len: int, path: Path) -> Path:
    """Everything needed to rebuild `model` without its training data (config, vocabularies, weights)."""
    vocab = getattr(model.embedder, "vocab", None)
    torch.save({"model": name, "config": asdict(model.config), "vocab": vocab.itos[2:] if vocab else [],
                "out_vocab": model.out_vocab.state_dict(), "max_len": max_len,
                "state": {k: v.cpu() for k, v in model.state_dict().items()}}, path)
    return path


def load_checkpoint(path: Path) -> tuple[MWPModel, int]:
    """The model saved by :func:`save_checkpoint` (in eval mode) and its maximum output length."""
    saved = torch.load(path, map_location="cpu", weights_only=True)
    _, config_class = MODELS[saved["model"]]
    out_vocab = OutputVocab(saved["out_vocab"]["constants"], saved["out_vocab"]["max_slots"])
    config = config_from(config_class.__name__, saved["config"])  # a retired field (an initialisation) dropped
    model = assemble(saved["model"], config, Vocab(saved["vocab"]), out_vocab)
    model.load_state_dict(saved["state"])
    return model.eval(), int(saved["max_len"])


#: The longest text solved, in characters (a problem of the datasets has a few hundred): a 1 MB line took minutes.
MAX_CHARS = 5000


def check_text(text: object) -> None:
    """The errors :meth:`Solver.solve` documents: TypeError for anything but a string, ValueError for one without
    words or longer than :data:`MAX_CHARS`."""
    if not isinstance(text, str):
        raise TypeError(f"text must be a str, got {type(text).__name__}")
    if not text.strip():
        raise ValueError("no text to solve")
    if len(text) > MAX_CHARS:
        raise ValueError(f"the text has {len(text)} characters; at most {MAX_CHARS} are solved")


def read_text(text: str) -> tuple[str, tuple[str, ...], list[str]]:
    """A new text as the solver reads it: number words as digits ("seven" → 7, "3 million" → 3000000), a minus
    sign that opens a number its sign, and the numbers in order, with a warning for each form it would misread or
    number word it does not convert. Raises ValueError for a numeral it cannot read (past Python's digit limit)."""
    text, unconverted = words_to_numbers(scale_numerals(ascii_signs(text)))
    try:
        numbers = read_numbers(text)
    except ValueError as error:
        raise ValueError(f"a number of the text cannot be read ({str(error)[:60]})") from None
    warnings = [f"number word not understood: {word!r}" for word in unconverted
                if word.lower() != "quarters"]  # coins, as the datasets use the word: read as a word
    return text, numbers, warnings + misreadings(text, percent=True)


@dataclass(frozen=True)
class Solution:
    words: tuple[str, ...]
    numbers: tuple[str, ...]
    prefix: tuple[str, ...]  # over slots N0.., constants and operators
    equation: str  # infix with the numbers filled in
    answer: float | None  # None when the predicted expression cannot be evaluated
    logprob: float
    attention: list[list[float]] | None  # Constrained model: one row over `words` per output token
    tokens: tuple[str, ...] = ()  # `words` with slot numbers as number0…: what the Constrained model reads
    warnings: tuple[str, ...] = ()  # what the solver did not understand (no numbers, numbers it cannot use, …)


def solution_from(prefix: Sequence[str], logprob: float, attention: list[list[float]] | None,
                  numbers: tuple[str, ...], encoded: EncodedText, warnings: Sequence[str] = ()) -> Solution:
    """A decoded prefix as a :class:`Solution` (also a recorded prediction: notebook 03's examples)."""
    warnings = list(warnings)
    try:
        node = expr.parse_prefix(list(prefix))
        bindings = {f"N{i}": n for i, n in enumerate(numbers)}
        equation = expr.to_infix(expr.substitute(node, bindings))
        answer: float | None = float(expr.evaluate(node, bindings))
    except (expr.ExpressionError, OverflowError) as error:
        equation, answer = " ".join(prefix), None
        warnings.append(f"the predicted expression cannot be evaluated: {error}")
    return Solution(encoded.words, numbers, tuple(prefix), equation, answer, logprob, attention, encoded.indexed,
                    tuple(warnings))


class Solver:
    """A trained model plus its decoding settings."""

    def __init__(self, model: MWPModel, max_len: int, beam: int = 5) -> None:
        self.model, self.max_len, self.beam = model.eval(), max_len, beam

    @classmethod
    def load(cls, path: Path, beam: int = 5) -> "Solver":
        model, max_len = load_checkpoint(path)
        return cls(model, max_len, beam)

    def solve(self, text: str, numbers: tuple[str, ...] | None = None) -> Solution:
        """Predict the equation of `text`; its numbers are found automatically unless given, after number words
        become digits ("seven" → 7), as SVAMP's training CSVs write them. Raises TypeError when `text` is not a
        string and ValueError when it has no words. A minus sign that opens a number is its sign ("−5" → -5). An
        answer the model cannot ground (no numbers in the text, more numbers than it has slots, number words it
        does not convert, numbers written in a form it misreads: 1e3, 12², 2,5) or a percentage (read as its
        number) comes with `warnings` saying so."""
        return self.solve_many([text], None if numbers is None else [numbers])[0]

    def solve_many(self, texts: Sequence[str], numbers: Sequence[tuple[str, ...]] | None = None) -> list[Solution]:
        """:meth:`solve` for many texts, decoded in batches as evaluation does (several times faster than one call
        per text). Every text is checked before any is decoded."""
        prepared = [self._prepare(text, None if numbers is None else numbers[i]) for i, text in enumerate(texts)]
        examples = [self.model.prepare(Problem("input", text, "", "", None, found), encoded, target=False)
                    for text, found, encoded, _ in prepared]
        predictions = predict(self.model, examples, beam=self.beam, max_len=self.max_len)
        return [solution_from(pred.prefix, pred.logprob, pred.attention, found, encoded, warnings)
                for (_, found, encoded, warnings), pred in zip(prepared, predictions)]

    def _prepare(self, text: str, numbers: tuple[str, ...] | None
                 ) -> tuple[str, tuple[str, ...], EncodedText, list[str]]:
        """The text as the model reads it, its numbers, its encoding and what the solver could not use."""
        check_text(text)
        warnings: list[str] = []
        if numbers is None:
            text, numbers, warnings = read_text(text)
        if not numbers:
            warnings.append("the text has no numbers: any answer comes from the model's constants alone")
        slots = self.model.out_vocab.max_slots
        if len(numbers) > slots:
            warnings.append(f"the text has {len(numbers)} numbers; the model can use the first {slots} only")
        return text, tuple(numbers), encode_text(text, numbers), warnings
