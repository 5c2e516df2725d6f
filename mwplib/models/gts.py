"""GTS (Xie & Sun 2019): BiLSTM encoder + goal-driven tree decoder. Used by notebook 01_baselines."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import torch
from torch import nn

from ..text import OutputVocab
from .base import Batch, Encoded, MWPModel, gather_numbers
from .config import ModelConfig, encoder_lr
from .encoder import RNNEncoder
from .tree_decoder import TreeDecoder


@dataclass(frozen=True)
class GTSConfig(ModelConfig):
    hidden: int = 512
    dropout: float = 0.5
    op_dim: int = 128  # operator embeddings of the tree decoder
    # "gru": the encoder of the original GTS (Xie & Sun 2019) and MWPToolkit's, 3 gates to the LSTM's 4; "lstm" is
    # SVAMP's code's and every recorded run's. A speed probe for a like-for-like race with MWPToolkit.
    encoder_cell: str = "lstm"

    @classmethod
    def paper(cls, pretrained: bool, embedding: str = "minilm") -> "GTSConfig":
        if pretrained:
            return cls(embedding=embedding, hidden=384, lr=8e-4, emb_lr=encoder_lr(embedding, 8e-6), batch_size=8,
                       epochs=50)
        return cls(emb_dim=128, hidden=512, lr=1e-3, emb_lr=1e-3, batch_size=16, epochs=60)


class GTS(MWPModel):
    def __init__(self, config: GTSConfig, embedder: nn.Module, out_vocab: OutputVocab) -> None:
        super().__init__()
        self.config, self.embedder, self.out_vocab = config, embedder, out_vocab
        self.encoder = RNNEncoder(embedder.dim, config.hidden, config.layers, config.dropout,
                                  config.input_dropout(embedder.pretrained), config.encoder_cell)
        self.tree = TreeDecoder(out_vocab, config.hidden, config.op_dim, config.dropout)

    def encode(self, batch: Batch) -> Encoded:
        outputs, summary, _ = self.encoder(self.embedder(batch.inputs), batch.mask)
        return Encoded(outputs, batch.mask, summary, gather_numbers(outputs, batch))

    def loss(self, batch: Batch) -> torch.Tensor:
        return self.tree.loss(batch, self.encode(batch))

    def decoder(self, batch: Batch, beam: int) -> tuple[TreeDecoder, dict[str, Any]]:
        return self.tree, self.tree.start(self.encode(batch), beam)
