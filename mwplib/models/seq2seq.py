"""Seq2Seq (SVAMP §3.2): BiLSTM encoder, LSTM decoder with Luong attention generating the prefix equation.

:class:`AttnDecoder` is shared with the Constrained model. Used by notebook 01_baselines.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import torch
from torch import nn
from torch.nn import functional as F

from ..text import OutputVocab
from .attention import Attention
from .base import Batch, Encoded, MWPModel, gather_numbers, slot_mask
from .config import ModelConfig, encoder_lr
from .dropout import Dropout
from .encoder import RNNEncoder


@dataclass(frozen=True)
class Seq2SeqConfig(ModelConfig):
    @classmethod
    def paper(cls, pretrained: bool, embedding: str = "minilm") -> "Seq2SeqConfig":
        if pretrained:
            return cls(embedding=embedding, hidden=256, lr=5e-4, emb_lr=encoder_lr(embedding, 1e-5), batch_size=8,
                       epochs=50)
        return cls(emb_dim=128, hidden=256, lr=1e-3, emb_lr=1e-3, batch_size=8, epochs=60)


class AttnDecoder(nn.Module):
    """LSTM over previous output tokens + Luong attention over encoder states → output-vocabulary scores."""

    def __init__(self, out_vocab: OutputVocab, key_dim: int, hidden: int, layers: int, dropout: float,
                 expose_attention: bool = False) -> None:
        super().__init__()
        self.out_vocab = out_vocab
        self.expose_attention = expose_attention  # predictions then carry the weights of every step
        self.sos = len(out_vocab)
        self.embedding = nn.Embedding(len(out_vocab) + 1, hidden)
        self.lstm = nn.LSTM(hidden, hidden, layers, batch_first=True, dropout=dropout if layers > 1 else 0.0)
        self.attention = Attention(hidden, key_dim, "general")
        self.combine = nn.Linear(hidden + key_dim, hidden)
        self.out = nn.Linear(hidden, len(out_vocab))
        self.dropout = Dropout(dropout)

    def logits(self, hidden: torch.Tensor, enc: Encoded) -> tuple[torch.Tensor, torch.Tensor]:
        """(B, L, H) decoder states → (B, L, V) scores and (B, L, T) attention weights."""
        context, weights = self.attention(hidden, enc.outputs, enc.mask)
        combined = torch.tanh(self.combine(self.dropout(torch.cat([hidden, context], -1))))
        return self.out(self.dropout(combined)), weights

    def loss(self, batch: Batch, enc: Encoded, init: tuple[torch.Tensor, torch.Tensor]) -> torch.Tensor:
        targets = batch.padded_targets()
        inputs = torch.cat([torch.full_like(targets[:, :1], self.sos), targets[:, :-1].clamp(min=0)], 1)
        hidden, _ = self.lstm(self.dropout(self.embedding(inputs)), init)
        logits, _ = self.logits(hidden, enc)
        logits = logits.masked_fill(~slot_mask(self.out_vocab, batch.n_numbers)[:, None, :], -1e9)
        return F.cross_entropy(logits.flatten(0, 1), targets.flatten())

    def start(self, enc: Encoded, init: tuple[torch.Tensor, torch.Tensor], beam: int) -> dict[str, Any]:
        rows = lambda t, dim: t.repeat_interleave(beam, dim)  # noqa: E731
        enc = Encoded(rows(enc.outputs, 0), rows(enc.mask, 0), rows(enc.root, 0), rows(enc.numbers, 0))
        state = {"enc": enc, "hc": (rows(init[0], 1), rows(init[1], 1))}
        return self._feed(state, torch.full((enc.mask.shape[0],), self.sos, dtype=torch.long,
                                            device=enc.mask.device))

    def _feed(self, state: dict[str, Any], tokens: torch.Tensor) -> dict[str, Any]:
        out, hc = self.lstm(self.embedding(tokens)[:, None, :], state["hc"])
        return {**state, "hc": hc, "out": out}

    def step(self, state: dict[str, Any]) -> tuple[torch.Tensor, torch.Tensor | None]:
        logits, weights = self.logits(state["out"], state["enc"])
        return torch.log_softmax(logits[:, 0], -1), weights[:, 0] if self.expose_attention else None

    def advance(self, state: dict[str, Any], parents: torch.Tensor, tokens: torch.Tensor,
                done: torch.Tensor) -> dict[str, Any]:
        h, c = state["hc"]
        return self._feed({**state, "hc": (h[:, parents].contiguous(), c[:, parents].contiguous())}, tokens)


class AttnDecoderModel(MWPModel):
    """A model whose `encode` returns (encoding, initial LSTM state) for the shared `AttnDecoder`
    (Seq2Seq and Constrained differ only in how they encode)."""

    decoder_net: AttnDecoder

    def encode(self, batch: Batch) -> tuple[Encoded, tuple[torch.Tensor, torch.Tensor]]:
        raise NotImplementedError

    def loss(self, batch: Batch) -> torch.Tensor:
        enc, init = self.encode(batch)
        return self.decoder_net.loss(batch, enc, init)

    def decoder(self, batch: Batch, beam: int) -> tuple[AttnDecoder, dict[str, Any]]:
        enc, init = self.encode(batch)
        return self.decoder_net, self.decoder_net.start(enc, init, beam)


class Seq2Seq(AttnDecoderModel):
    def __init__(self, config: Seq2SeqConfig, embedder: nn.Module, out_vocab: OutputVocab) -> None:
        super().__init__()
        self.config, self.embedder, self.out_vocab = config, embedder, out_vocab
        self.encoder = RNNEncoder(embedder.dim, config.hidden, config.layers, config.dropout,
                                  config.input_dropout(embedder.pretrained))
        self.decoder_net = AttnDecoder(out_vocab, config.hidden, config.hidden, config.layers, config.dropout)

    def encode(self, batch: Batch) -> tuple[Encoded, tuple[torch.Tensor, torch.Tensor]]:
        outputs, summary, hc = self.encoder(self.embedder(batch.inputs), batch.mask, final_state=True)
        return Encoded(outputs, batch.mask, summary, gather_numbers(outputs, batch)), hc

