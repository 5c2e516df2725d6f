"""What every solver shares: prepared examples, batches, the model interface and its prediction record.

Problems are turned into integer :class:`Example` s once (tokenisation stays out of the training loop);
:func:`collate` pads them into a :class:`Batch`. Used by `mwplib.train` for notebook 01_baselines.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

import torch
from torch import nn

from ..problem import Problem
from ..text import EncodedText, OutputVocab, Vocab, encode_text


@dataclass(frozen=True)
class Example:
    """One problem as integers: embedder inputs, word count, slot positions and target ids."""

    id: str
    n_words: int
    inputs: dict[str, list[int]]
    num_pos: tuple[int, ...]
    target: tuple[int, ...]
    graphs: tuple[tuple[tuple[int, int], ...], ...] = ()  # Graph2Tree: directed word edges per graph


@dataclass
class Batch:
    ids: list[str]
    inputs: dict[str, torch.Tensor]  # embedder inputs
    mask: torch.Tensor  # (B, T) True on words
    num_pos: torch.Tensor  # (B, N) word position of each slot (0 where absent)
    n_numbers: torch.Tensor  # (B,)
    targets: list[tuple[int, ...]]  # output-vocabulary ids per problem (may be empty at inference)
    adjacency: torch.Tensor | None = None  # (B, K, T, T) row-normalised, self-loops included (Graph2Tree)

    def to(self, device: torch.device) -> "Batch":
        return Batch(self.ids, {k: v.to(device) for k, v in self.inputs.items()}, self.mask.to(device),
                     self.num_pos.to(device), self.n_numbers.to(device), self.targets,
                     None if self.adjacency is None else self.adjacency.to(device))

    def padded_targets(self, fill: int = -100) -> torch.Tensor:
        """(B, L) target ids padded with `fill` (cross-entropy's ignore index)."""
        out = torch.full((len(self.targets), max(map(len, self.targets))), fill, dtype=torch.long)
        for b, target in enumerate(self.targets):
            out[b, :len(target)] = torch.tensor(target)
        return out.to(self.mask.device)


@dataclass(frozen=True)
class Prediction:
    """A decoded equation: output ids, its prefix tokens, log-probability and (if the model has one
    attention per step, e.g. Constrained) the attention weights over words, one row per output token."""

    id: str
    ids: tuple[int, ...]
    prefix: tuple[str, ...]
    logprob: float
    attention: list[list[float]] | None = None


@dataclass(frozen=True)
class Encoded:
    """Encoder output consumed by the decoders."""

    outputs: torch.Tensor  # (B, T, H)
    mask: torch.Tensor  # (B, T)
    root: torch.Tensor  # (B, H) problem summary: initial decoder state / root goal
    numbers: torch.Tensor  # (B, N, H) encoder state at each slot's word


class MWPModel(nn.Module):
    """Interface of every solver: `loss(batch)` for training, `decoder(batch)` for beam search."""

    embedder: nn.Module
    out_vocab: OutputVocab

    def prepare(self, problem: Problem, encoded: EncodedText | None = None, target: bool = True) -> Example:
        """Integer inputs of `problem`; with `target`, its gold prefix as output ids (training problems only:
        a test equation may use constants the training split never showed, and needs no target)."""
        encoded = encoded or encode_text(problem.text, problem.numbers, problem.source)
        target_ids = tuple(self.out_vocab.ids(problem.prefix, problem.source)) if target and problem.prefix else ()
        if self.config.indexed_numbers:
            inputs = self.embedder.prepare(encoded.indexed, encoded.indexed)
        else:
            inputs = self.embedder.prepare(encoded.masked, encoded.words)
        return Example(problem.id, len(encoded.words), inputs, encoded.num_pos, target_ids)

    def loss(self, batch: Batch) -> torch.Tensor:
        raise NotImplementedError

    def decoder(self, batch: Batch, beam: int) -> tuple[Any, Any]:
        """A :class:`mwplib.models.beam.StepDecoder` and its start state, `beam` rows per problem."""
        raise NotImplementedError

    @property
    def embedder_parameters(self) -> list[nn.Parameter]:
        return list(self.embedder.parameters())


def collate(examples: Sequence[Example], embedder: nn.Module) -> Batch:
    n_words = max(e.n_words for e in examples)
    n_slots = max(1, max(len(e.num_pos) for e in examples))
    mask = torch.zeros(len(examples), n_words, dtype=torch.bool)
    num_pos = torch.zeros(len(examples), n_slots, dtype=torch.long)
    for b, e in enumerate(examples):
        mask[b, :e.n_words] = True
        num_pos[b, :len(e.num_pos)] = torch.tensor(e.num_pos, dtype=torch.long)
    return Batch([e.id for e in examples], embedder.collate([e.inputs for e in examples], n_words), mask,
                 num_pos, torch.tensor([len(e.num_pos) for e in examples]), [e.target for e in examples],
                 _adjacency(examples, n_words) if examples[0].graphs else None)


def _adjacency(examples: Sequence[Example], n_words: int) -> torch.Tensor:
    """Dense (B, K, T, T) adjacency of each example's K graphs, with self-loops, rows summing to 1."""
    adjacency = torch.eye(n_words).repeat(len(examples), len(examples[0].graphs), 1, 1)
    for b, example in enumerate(examples):
        for k, edges in enumerate(example.graphs):
            for i, j in edges:
                adjacency[b, k, i, j] = 1.0
    return adjacency / adjacency.sum(-1, keepdim=True)


def gather_numbers(outputs: torch.Tensor, batch: Batch) -> torch.Tensor:
    """(B, T, H) encoder outputs → (B, N, H) the state at each slot's word; zeros for the slots a problem
    lacks, so that what a decoder computes for them (the tree decoder scores every slot, then masks) does not
    depend on which problems share the batch."""
    numbers = outputs.gather(1, batch.num_pos[:, :, None].expand(-1, -1, outputs.shape[-1]))
    present = torch.arange(numbers.shape[1], device=numbers.device)[None, :] < batch.n_numbers[:, None]
    return numbers * present[:, :, None]


def slot_mask(out_vocab: OutputVocab, n_numbers: torch.Tensor) -> torch.Tensor:
    """(B, V) True where an output id is usable by the problem (operators, constants, its own slots)."""
    ids = torch.arange(len(out_vocab), device=n_numbers.device)
    return (ids[None, :] < out_vocab.slot_offset) | (ids[None, :] - out_vocab.slot_offset < n_numbers[:, None])


def build_vocab(problems: Sequence[Problem], indexed_numbers: bool = False) -> tuple[Vocab, OutputVocab]:
    """Scratch word vocabulary (numbers as NUM, or as number0, number1, … with `indexed_numbers`) and output
    vocabulary, from the training problems only."""
    texts = (encode_text(p.text, p.numbers, p.source) for p in problems)
    words = (text.indexed if indexed_numbers else text.masked for text in texts)
    return Vocab.build(words), OutputVocab.from_problems(problems)
