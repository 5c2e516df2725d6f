"""Problem text → model inputs: tokens, number positions, vocabularies and sub-token alignment.

Used by every neural solver in `mwplib.models` (notebook 01_baselines and the notebooks that retrain
them). Tokenisation happens once per problem, outside the training loop. Also the one sentence splitter of
tokenised text (`split_sentences`), for the derivation datasets' positions and the SVAMP variations.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from fractions import Fraction
from typing import Iterable, Sequence

from .numbers import find_numbers, format_number, parse_number
from .problem import Problem

#: The binary operators a prefix equation may use, in output-vocabulary order.
OPERATORS: tuple[str, ...] = ("+", "-", "*", "/", "^")
#: The word that replaces every number for scratch embeddings (numbers enter the decoder via their slot).
NUM_TOKEN = "NUM"
PAD, UNK = "<pad>", "<unk>"

_WORD = re.compile(r"number\d+|[a-z]+(?:'[a-z]+)?|\d+[a-z]*|[^\sa-z\d]", re.IGNORECASE)
_MASKED = re.compile(r"number(\d+)", re.IGNORECASE)
_SLOT = re.compile(r"N(\d+)")


def _split(text: str) -> tuple[list[str], list[Fraction | None]]:
    """Words of `text` and, per word, its value if it is a quantity (rules of :mod:`mwplib.numbers`)."""
    words: list[str] = []
    values: list[Fraction | None] = []
    position = 0
    for quantity in [*find_numbers(text), None]:
        end = quantity.start if quantity else len(text)
        piece = [w.lower() for w in _WORD.findall(text[position:end])]
        words += piece
        values += [None] * len(piece)
        if quantity:
            words.append(quantity.text.replace(",", ""))
            values.append(quantity.value)
            position = quantity.end
    return words, values


#: Tokens that end a sentence.
SENTENCE_ENDS = frozenset({".", "?", "!"})


def split_sentences(tokens: Iterable[str]) -> list[list[str]]:
    """`tokens` cut after each sentence end, empty sentences dropped: one rule, so that the derivation datasets'
    (sentence, token) positions and the SVAMP variations' sentences count sentences alike."""
    out: list[list[str]] = [[]]
    for token in tokens:
        out[-1].append(token)
        if token in SENTENCE_ENDS:
            out.append([])
    return [sentence for sentence in out if sentence]


def tokenize(text: str) -> list[str]:
    """Lower-cased words, quantities (as :func:`mwplib.numbers.find_numbers` finds them) and punctuation;
    ``number3`` (the SVAMP CSVs' masks) stays one token."""
    return _split(text)[0]


@dataclass(frozen=True)
class EncodedText:
    """One problem's input: `words` (numbers as surface strings) and, per slot N_i, its word position."""

    words: tuple[str, ...]
    num_pos: tuple[int, ...]

    @property
    def masked(self) -> tuple[str, ...]:
        """Words with every slot number replaced by :data:`NUM_TOKEN` (the scratch embedder's input)."""
        slots = set(self.num_pos)
        return tuple(NUM_TOKEN if i in slots else w for i, w in enumerate(self.words))

    @property
    def indexed(self) -> tuple[str, ...]:
        """Words with slot k's number replaced by ``number{k}``, as SVAMP's data mask them: the token itself
        says which quantity it is, which a model blind to word order (Constrained) needs to tell them apart."""
        slot_of = {position: k for k, position in enumerate(self.num_pos)}
        return tuple(f"number{slot_of[i]}" if i in slot_of else w for i, w in enumerate(self.words))


def encode_text(text: str, numbers: Sequence[str], source: str = "<text>") -> EncodedText:
    """Tokenise `text` and find the word position of each of `numbers` (slot order).

    Masked tokens ``numberK`` map to slot K directly; otherwise the i-th slot is the next number token with
    the same value (or its negation right after a "-", as MAWPS writes negative numbers), scanning left to
    right (numbers the slots do not list stay ordinary words). A slot that
    cannot be found raises ValueError naming `source`.
    """
    words, values = _split(text)
    masked = {int(m.group(1)): i for i, w in enumerate(words) if (m := _MASKED.fullmatch(w))}
    if masked:
        missing = [k for k in range(len(numbers)) if k not in masked]
        if missing:
            raise ValueError(f"{source}: masked slots {missing} not in text {text!r}")
        positions = [masked[k] for k in range(len(numbers))]
        words = [numbers[int(m.group(1))] if (m := _MASKED.fullmatch(w)) and int(m.group(1)) < len(numbers)
                 else w for w in words]
        return EncodedText(tuple(words), tuple(positions))
    positions: list[int] = []
    for i, word in enumerate(words):
        if len(positions) < len(numbers) and values[i] is not None:
            wanted = parse_number(numbers[len(positions)])
            negated = i > 0 and words[i - 1] == "-" and values[i] == -wanted  # "-2": the sign is a word
            if values[i] == wanted or negated:
                positions.append(i)
    if len(positions) != len(numbers):
        raise ValueError(f"{source}: found {len(positions)} of {len(numbers)} numbers {list(numbers)} "
                         f"in text {text!r}")
    return EncodedText(tuple(words), tuple(positions))


def extract_numbers(text: str) -> tuple[str, ...]:
    """All numbers of a new text, in order (the slots a solver may use when no annotation exists)."""
    return tuple(format_number(q.value) for q in find_numbers(text))


class Vocab:
    """Word ↔ id for scratch embeddings; words seen fewer than `min_count` times map to <unk>."""

    def __init__(self, words: Iterable[str]) -> None:
        self.itos: list[str] = [PAD, UNK, *sorted(set(words) - {PAD, UNK})]
        self.stoi = {w: i for i, w in enumerate(self.itos)}

    @classmethod
    def build(cls, texts: Iterable[Sequence[str]], min_count: int = 1) -> "Vocab":
        counts: dict[str, int] = {}
        for words in texts:
            for w in words:
                counts[w] = counts.get(w, 0) + 1
        return cls(w for w, c in counts.items() if c >= min_count)

    def ids(self, words: Sequence[str]) -> list[int]:
        return [self.stoi.get(w, 1) for w in words]

    def __len__(self) -> int:
        return len(self.itos)


class OutputVocab:
    """The decoder's targets: operators, then constants, then number slots N0..N{max_slots-1}.

    Constants are the equation tokens that are neither operators nor slots, learned from the training
    split (e.g. ``1``, ``100``, ``0.5``); the same layout serves sequence and tree decoders.
    """

    def __init__(self, constants: Sequence[str], max_slots: int) -> None:
        self.constants = tuple(constants)
        self.max_slots = max_slots
        self.itos: list[str] = [*OPERATORS, *self.constants, *(f"N{i}" for i in range(max_slots))]
        self.stoi = {t: i for i, t in enumerate(self.itos)}
        self.n_ops = len(OPERATORS)
        self.slot_offset = self.n_ops + len(self.constants)

    @classmethod
    def from_problems(cls, problems: Iterable[Problem]) -> "OutputVocab":
        problems = list(problems)
        constants = sorted({t for p in problems for t in p.prefix if t not in OPERATORS and not _SLOT.fullmatch(t)},
                           key=lambda c: (float(parse_number(c)), c))
        max_slots = max((len(p.numbers) for p in problems), default=1)
        return cls(constants, max(max_slots, 1))

    def ids(self, prefix: Sequence[str], source: str = "<equation>") -> list[int]:
        unknown = [t for t in prefix if t not in self.stoi]
        if unknown:
            raise ValueError(f"{source}: equation tokens {unknown} unknown to the output vocabulary "
                             f"(constants {list(self.constants)}, {self.max_slots} slots)")
        return [self.stoi[t] for t in prefix]

    def tokens(self, ids: Iterable[int]) -> tuple[str, ...]:
        return tuple(self.itos[i] for i in ids)

    def is_op(self, i: int) -> bool:
        return i < self.n_ops

    def state_dict(self) -> dict:
        return {"constants": list(self.constants), "max_slots": self.max_slots}

    def __len__(self) -> int:
        return len(self.itos)


@dataclass(frozen=True)
class SubwordAlignment:
    """A pretrained tokenizer's view of one word sequence: sub-token ids and, per sub-token, its word."""

    input_ids: tuple[int, ...]
    word_of: tuple[int, ...]  # word index of each sub-token, -1 for special tokens ([CLS], [SEP], <s>)


def align_subwords(tokenizer: object, words: Sequence[str], max_length: int = 512) -> SubwordAlignment:
    """Sub-tokenise `words` keeping each sub-token's word index (so number positions index words, never
    sub-tokens: the error of indexing word positions into sub-token outputs cannot happen)."""
    enc = tokenizer(list(words), is_split_into_words=True, truncation=True, max_length=max_length)
    word_of = tuple(-1 if w is None else w for w in enc.word_ids())
    covered = {w for w in word_of if w >= 0}
    if len(covered) != len(words):
        raise ValueError(f"sub-tokenisation lost words {sorted(set(range(len(words))) - covered)[:5]} "
                         f"of {len(words)} (text longer than {max_length} sub-tokens?)")
    return SubwordAlignment(tuple(enc["input_ids"]), word_of)
