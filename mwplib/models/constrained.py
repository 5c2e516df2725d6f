"""The Constrained bag-of-words model (SVAMP §4.2): no word order, attention weights exposed.

A feed-forward network maps each word embedding to its hidden state independently; the LSTM decoder
(shared with Seq2Seq) starts from their mean and attends over them. Numbers enter as ``number0``, ``number1``,
… (SVAMP's masking): without word order, a shared NUM token would leave the model no way to tell which quantity
is which. With pretrained embeddings only the
embedding matrix is used (non-contextual), as the paper does. Predictions carry the attention weights of
every decoding step (notebook 01_baselines trains it; the attention-analysis notebook reads them).
"""
from __future__ import annotations

from dataclasses import dataclass
import torch
from torch import nn

from ..text import OutputVocab
from .base import Batch, Encoded, gather_numbers
from .config import ModelConfig
from .dropout import Dropout
from .seq2seq import AttnDecoder, AttnDecoderModel


@dataclass(frozen=True)
class ConstrainedConfig(ModelConfig):
    layers: int = 1
    indexed_numbers: bool = True  # an order-blind model can tell the numbers apart only by their tokens

    @classmethod
    def paper(cls, pretrained: bool, embedding: str = "minilm") -> "ConstrainedConfig":
        if pretrained:
            return cls(embedding=embedding, hidden=256, lr=1e-3, emb_lr=1e-3, batch_size=8, epochs=50)
        return cls(emb_dim=128, hidden=256, lr=1e-3, emb_lr=1e-3, batch_size=8, epochs=60)


class Constrained(AttnDecoderModel):
    contextual_embeddings = False  # the embedding matrix only, never a contextual encoder

    def __init__(self, config: ConstrainedConfig, embedder: nn.Module, out_vocab: OutputVocab) -> None:
        super().__init__()
        self.config, self.embedder, self.out_vocab = config, embedder, out_vocab
        self.ffn = nn.Sequential(Dropout(config.dropout), nn.Linear(embedder.dim, config.hidden), nn.Tanh(),
                                 nn.Linear(config.hidden, config.hidden), nn.Tanh())
        self.decoder_net = AttnDecoder(out_vocab, config.hidden, config.hidden, config.layers, config.dropout,
                                       expose_attention=True)

    def encode(self, batch: Batch) -> tuple[Encoded, tuple[torch.Tensor, torch.Tensor]]:
        hidden = self.ffn(self.embedder(batch.inputs))
        mask = batch.mask[:, :, None].float()
        mean = (hidden * mask).sum(1) / mask.sum(1)
        h0 = mean[None].repeat(self.config.layers, 1, 1).contiguous()
        return Encoded(hidden, batch.mask, mean, gather_numbers(hidden, batch)), (h0, torch.zeros_like(h0))
