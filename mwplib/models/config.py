"""Hyper-parameters every solver shares; each model subclasses it with the paper's defaults."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ModelConfig:
    """Hyper-parameters common to all solvers (SVAMP Table 19/20; scratch values unless `paper(True)`)."""

    embedding: str = "scratch"  # "scratch", "minilm", or any `transformers` name/path
    emb_dim: int = 128  # scratch only; a pretrained encoder brings its own size
    hidden: int = 256
    layers: int = 2
    dropout: float = 0.1
    lr: float = 1e-3
    emb_lr: float = 1e-3
    batch_size: int = 8
    epochs: int = 60
