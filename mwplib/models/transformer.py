"""Transformer encoder-decoder (SVAMP Appendix A, Table 16) generating the prefix equation.

Used by notebook 01_baselines. Beam search decodes incrementally: the cross-attention keys and values of the
memory are projected once per problem, and each layer caches its self-attention keys and values, so a step
feeds only the newest token (re-running the decoder over the whole history projected the memory again at
every step and cost about 30 % of an R epoch). Dropout is off at inference, so a step computes exactly what
`nn.TransformerDecoder` computes for the last position; a test checks the two agree.
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
        """Start state: per layer the memory's cross-attention (keys, values), empty self-attention caches,
        and the log-probabilities after the start token. Rows of one problem share its memory."""
        memory = self._memory(batch)
        rows, heads = memory.shape[0] * beam, self.config.heads
        cross = [tuple(_heads(kv, heads).repeat_interleave(beam, 0)
                       for kv in _project(layer.multihead_attn, memory, "kv")) for layer in self.decoder_layers.layers]
        empty = memory.new_zeros(rows, heads, 0, memory.shape[-1] // heads)
        state = {"cross": cross, "attend": batch.mask.repeat_interleave(beam, 0)[:, None, None, :],
                 "cache": [(empty, empty)] * len(cross)}
        return self, self._feed(state, torch.full((rows,), self.sos, dtype=torch.long, device=memory.device))

    def step(self, state: dict[str, Any]) -> tuple[torch.Tensor, None]:
        return state["logprobs"], None

    def advance(self, state: dict[str, Any], parents: torch.Tensor, tokens: torch.Tensor,
                done: torch.Tensor) -> dict[str, Any]:
        reordered = [(keys[parents], values[parents]) for keys, values in state["cache"]]
        return self._feed({**state, "cache": reordered}, tokens)

    def _feed(self, state: dict[str, Any], tokens: torch.Tensor) -> dict[str, Any]:
        """Run the newest token (R,) through every decoder layer (post-norm, as `nn.TransformerDecoderLayer`),
        extending each self-attention cache; store the next log-probabilities."""
        position = torch.full_like(tokens, state["cache"][0][0].shape[2])  # tokens fed so far
        x = (self.out_embedding(tokens) + self.out_position(position))[:, None, :]  # (R, 1, W)
        heads, cache = self.config.heads, []
        for layer, (keys, values), (cross_keys, cross_values) in zip(self.decoder_layers.layers, state["cache"],
                                                                   state["cross"]):
            query, key, value = (_heads(t, heads) for t in _project(layer.self_attn, x))
            keys, values = torch.cat([keys, key], 2), torch.cat([values, value], 2)
            cache.append((keys, values))
            x = layer.norm1(x + layer.self_attn.out_proj(_merge(F.scaled_dot_product_attention(query, keys, values))))
            query = _heads(_project(layer.multihead_attn, x, "q")[0], heads)
            attended = F.scaled_dot_product_attention(query, cross_keys, cross_values, attn_mask=state["attend"])
            x = layer.norm2(x + layer.multihead_attn.out_proj(_merge(attended)))
            x = layer.norm3(x + layer.linear2(layer.activation(layer.linear1(x))))
        logprobs = torch.log_softmax(self.out(x[:, 0]), -1)
        return {**state, "cache": cache, "logprobs": logprobs}


def _project(attention: nn.MultiheadAttention, x: torch.Tensor, parts: str = "qkv") -> tuple[torch.Tensor, ...]:
    """The projections of `x` (B, T, W) that `parts` names ("qkv", "q" or "kv"), with the module's packed
    input weights."""
    rows = slice("qkv".index(parts[0]) * attention.embed_dim, ("qkv".index(parts[-1]) + 1) * attention.embed_dim)
    return F.linear(x, attention.in_proj_weight[rows], attention.in_proj_bias[rows]).chunk(len(parts), -1)


def _heads(x: torch.Tensor, heads: int) -> torch.Tensor:
    """(B, T, W) → (B, heads, T, W / heads)."""
    return x.unflatten(-1, (heads, -1)).transpose(1, 2)


def _merge(x: torch.Tensor) -> torch.Tensor:
    """(B, heads, T, d) → (B, T, heads · d)."""
    return x.transpose(1, 2).flatten(2)
