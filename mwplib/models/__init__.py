"""Neural math-word-problem solvers of the SVAMP paper (notebook 01_baselines and later notebooks).

:func:`build_model` makes any of them from a config and the training problems (vocabularies come from the
training split only); :func:`paper_config` gives the paper's hyper-parameters for scratch (S) or
pretrained (R) embeddings.
"""
from __future__ import annotations

from typing import Sequence

from ..problem import Problem
from ..repro import seed_everything
from ..text import OutputVocab, Vocab
from .base import MWPModel, build_vocab
from .config import ModelConfig
from .embedders import MINILM, build_embedder
from .constrained import Constrained, ConstrainedConfig
from .convs2s import ConvS2S, ConvS2SConfig
from .graph2tree import Graph2Tree, Graph2TreeConfig
from .gts import GTS, GTSConfig
from .seq2seq import Seq2Seq, Seq2SeqConfig
from .transformer import Transformer, TransformerConfig

#: name → (model class, config class)
MODELS: dict[str, tuple[type[MWPModel], type[ModelConfig]]] = {
    "seq2seq": (Seq2Seq, Seq2SeqConfig),
    "gts": (GTS, GTSConfig),
    "graph2tree": (Graph2Tree, Graph2TreeConfig),
    "transformer": (Transformer, TransformerConfig),
    "constrained": (Constrained, ConstrainedConfig),
    "convs2s": (ConvS2S, ConvS2SConfig),
}


def paper_config(model: str, embedding: str = "scratch") -> ModelConfig:
    """The paper's setting of `model` for `embedding` ("scratch" = S, anything else = R with that encoder); MiniLM
    and MPNet fine-tune with their own encoder learning rates (:data:`mwplib.models.config.ENCODER_LR`)."""
    _, config_class = _lookup(model)
    pretrained = embedding != "scratch"
    return config_class.paper(pretrained, embedding) if pretrained else config_class.paper(False)


def build_model(model: str, config: ModelConfig, train: Sequence[Problem], seed: int = 0) -> MWPModel:
    """A fresh (untrained) model whose vocabularies come from `train`, initialised from `seed`."""
    seed_everything(seed)
    return assemble(model, config, *build_vocab(train, config.indexed_numbers))


def assemble(model: str, config: ModelConfig, vocab: Vocab, out_vocab: OutputVocab) -> MWPModel:
    """A fresh model over given vocabularies (also how a saved checkpoint is rebuilt)."""
    model_class, config_class = _lookup(model)
    if not isinstance(config, config_class):
        raise TypeError(f"{model} needs a {config_class.__name__}, got {type(config).__name__}")
    embedder = build_embedder(config.embedding, vocab, config.emb_dim,
                              contextual=getattr(model_class, "contextual_embeddings", True))
    return model_class(config, embedder, out_vocab)


def _lookup(model: str) -> tuple[type[MWPModel], type[ModelConfig]]:
    if model not in MODELS:
        raise ValueError(f"unknown model {model!r}; choose one of {sorted(MODELS)}")
    return MODELS[model]


__all__ = ["MINILM", "MODELS", "MWPModel", "ModelConfig", "assemble", "build_model", "paper_config"]
