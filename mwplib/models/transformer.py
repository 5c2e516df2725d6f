"""Transformer encoder-decoder (SVAMP Appendix A, Table 16) generating the prefix equation.

Used by notebook 01_baselines. Beam search re-runs the decoder over each row's history (equations are
short, so this costs little and keeps the state trivially reorderable).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import torch
from torch import nn
from torch.nn import functional as F

from ..text import OutputVocab
from .base import Batch, MWPModel, slot_mask
from .config import ModelConfig, encoder_lr

MAX_POSITIONS = 512


@dataclass(frozen=True)
class TransformerConfig(ModelConfig):
    emb_dim: int = 256  # model width with scratch embeddings (pretrained: the encoder's width)
    hidden: int = 384  # feed-forward size
    heads: int = 4
    layers: int = 2  # encoder and decoder layers each
    lr: float = 1e-4
    emb_lr: float = 1e-4
    epochs: int = 100

    @classmethod
    def paper(cls, pretrained: bool, embedding: str = "minilm") -> "TransformerConfig":
        if pretrained:
            return cls(embedding=embedding, hidden=384, lr=1e-4, emb_lr=encoder_lr(embedding, 5e-6), batch_size=8,
                       epochs=100)
        return cls(emb_dim=256, hidden=384, lr=1e-4, emb_lr=1e-4, batch_size=8, epochs=100)


class Transformer(MWPModel):
    def __init__(self, config: TransformerConfig, embedder: nn.Module, out_vocab: OutputVocab) -> None:
        super().__init__()
        self.config, self.embedder, self.out_vocab = config, embedder, out_vocab
        width = embedder.dim
        self.sos = len(out_vocab)
        self.in_position = nn.Embedding(MAX_POSITIONS, width)
        self.out_embedding = nn.Embedding(len(out_vocab) + 1, width)
        self.out_position = nn.Embedding(MAX_POSITIONS, width)
        self.encoder = nn.TransformerEncoder(
            nn.TransformerEncoderLayer(width, config.heads, config.hidden, config.dropout, batch_first=True),
            config.layers, enable_nested_tensor=False)
        self.decoder_layers = nn.TransformerDecoder(
            nn.TransformerDecoderLayer(width, config.heads, config.hidden, config.dropout, batch_first=True),
            config.layers)
        self.out = nn.Linear(width, len(out_vocab))

    def _memory(self, batch: Batch) -> torch.Tensor:
        words = self.embedder(batch.inputs)
        positions = torch.arange(words.shape[1], device=words.device)
        return self.encoder(words + self.in_position(positions), src_key_padding_mask=~batch.mask)

    def _logits(self, memory: torch.Tensor, mask: torch.Tensor, history: torch.Tensor) -> torch.Tensor:
        positions = torch.arange(history.shape[1], device=history.device)
        causal = nn.Transformer.generate_square_subsequent_mask(history.shape[1], device=history.device)
        hidden = self.decoder_layers(self.out_embedding(history) + self.out_position(positions), memory,
                                  tgt_mask=causal, memory_key_padding_mask=~mask)
        return self.out(hidden)

    def loss(self, batch: Batch) -> torch.Tensor:
        targets = batch.padded_targets()
        history = torch.cat([torch.full_like(targets[:, :1], self.sos), targets[:, :-1].clamp(min=0)], 1)
        logits = self._logits(self._memory(batch), batch.mask, history)
        logits = logits.masked_fill(~slot_mask(self.out_vocab, batch.n_numbers)[:, None, :], -1e9)
        return F.cross_entropy(logits.flatten(0, 1), targets.flatten())

    def decoder(self, batch: Batch, beam: int) -> tuple["Transformer", dict[str, Any]]:
        memory = self._memory(batch).repeat_interleave(beam, 0)
        history = torch.full((memory.shape[0], 1), self.sos, dtype=torch.long, device=memory.device)
        return self, {"memory": memory, "mask": batch.mask.repeat_interleave(beam, 0), "history": history}

    def step(self, state: dict[str, Any]) -> tuple[torch.Tensor, None]:
        return torch.log_softmax(self._logits(state["memory"], state["mask"], state["history"])[:, -1], -1), None

    def advance(self, state: dict[str, Any], parents: torch.Tensor, tokens: torch.Tensor,
                done: torch.Tensor) -> dict[str, Any]:
        return {**state, "history": torch.cat([state["history"][parents], tokens[:, None]], 1)}
