"""Graph2Tree (Zhang et al. 2020): BiLSTM + graph convolution over the quantity-cell and quantity-comparison
graphs (:mod:`mwplib.graphs`), then GTS's tree decoder. Used by notebook 01_baselines."""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

import torch
from torch import nn

from ..graphs import quantity_graphs
from ..problem import Problem
from ..text import EncodedText, OutputVocab, encode_text
from .base import Batch, Encoded, Example, MWPModel, gather_numbers
from .config import ModelConfig, encoder_lr
from .dropout import Dropout
from .encoder import RNNEncoder
from .tree_decoder import TreeDecoder

N_GRAPHS = 3  # quantity cell, comparison >, comparison <


@dataclass(frozen=True)
class Graph2TreeConfig(ModelConfig):
    hidden: int = 384
    dropout: float = 0.5
    op_dim: int = 128

    @classmethod
    def paper(cls, pretrained: bool, embedding: str = "minilm") -> "Graph2TreeConfig":
        if pretrained:
            return cls(embedding=embedding, hidden=384, lr=8e-4, emb_lr=encoder_lr(embedding, 8e-6), batch_size=8,
                       epochs=50)
        return cls(emb_dim=128, hidden=384, lr=1e-3, emb_lr=1e-3, batch_size=16, epochs=60)


class GraphConvolution(nn.Module):
    """Two graph-convolution layers per graph (one head each), heads concatenated and projected back,
    with a residual connection and layer norm, as Graph2Tree's graph module."""

    def __init__(self, hidden: int, n_graphs: int, dropout: float) -> None:
        super().__init__()
        self.first = nn.ModuleList(nn.Linear(hidden, hidden) for _ in range(n_graphs))
        self.second = nn.ModuleList(nn.Linear(hidden, hidden) for _ in range(n_graphs))
        self.merge = nn.Linear(n_graphs * hidden, hidden)
        self.norm = nn.LayerNorm(hidden)
        self.dropout = Dropout(dropout)

    def forward(self, x: torch.Tensor, adjacency: torch.Tensor) -> torch.Tensor:
        heads = []
        for k, (first, second) in enumerate(zip(self.first, self.second)):
            a = adjacency[:, k]
            h = torch.relu(a @ first(self.dropout(x)))
            heads.append(a @ second(self.dropout(h)))
        return self.norm(x + self.merge(torch.cat(heads, -1)))


class Graph2Tree(MWPModel):
    def __init__(self, config: Graph2TreeConfig, embedder: nn.Module, out_vocab: OutputVocab) -> None:
        super().__init__()
        self.config, self.embedder, self.out_vocab = config, embedder, out_vocab
        self.encoder = RNNEncoder(embedder.dim, config.hidden, config.layers, config.dropout,
                                  config.input_dropout(embedder.pretrained))
        self.graph = GraphConvolution(config.hidden, N_GRAPHS, config.dropout)
        self.tree = TreeDecoder(out_vocab, config.hidden, config.op_dim, config.dropout)

    def prepare(self, problem: Problem, encoded: EncodedText | None = None, target: bool = True) -> Example:
        """As every model, plus the problem's graphs (parsed once, cached on disk)."""
        encoded = encoded or encode_text(problem.text, problem.numbers, problem.source)
        graphs = quantity_graphs(encoded.words, encoded.num_pos, problem.numbers)
        return dataclasses.replace(super().prepare(problem, encoded, target), graphs=graphs.edges)

    def encode(self, batch: Batch) -> Encoded:
        outputs, summary, _ = self.encoder(self.embedder(batch.inputs), batch.mask)
        outputs = self.graph(outputs, batch.adjacency)
        return Encoded(outputs, batch.mask, summary, gather_numbers(outputs, batch))

    def loss(self, batch: Batch) -> torch.Tensor:
        return self.tree.loss(batch, self.encode(batch))

    def decoder(self, batch: Batch, beam: int) -> tuple[TreeDecoder, dict[str, Any]]:
        return self.tree, self.tree.start(self.encode(batch), beam)
