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
    # How SVAMP's released code optimises (not in the paper's text): its GTS and Graph2Tree use weight decay 1e-5,
    # halve both learning rates every 20 epochs and do not clip; its Seq2Seq, Transformer and Constrained clip at
    # 0.25 (its Transformer also uses AdamW's decoupled decay of 0.01, which `weight_decay`, Adam's L2, is not).
    # Our defaults below are what every recorded run trained with; `--set` probes the code's recipe.
    weight_decay: float = 0.0  # Adam's L2 penalty
    lr_halving: int = 0  # halve both learning rates every this many of `epochs` (scaled with a profile); 0: never
    # Raise both learning rates linearly from 1/warmup_steps of their value to all of it over the first this many
    # optimiser steps (Lan et al.'s Table VI: 1500 for their Transformer at 0.003; the paper names the steps, not the
    # schedule's shape); 0: none.
    warmup_steps: int = 0
    max_grad_norm: float = 5.0  # clip the gradient norm to this; 0: no clipping
    # "bf16": the forward pass of training runs under bfloat16 autocast (fp32 weights, gradients and optimizer;
    # evaluation stays fp32). Not the paper's setting: a speed probe for CPUs with bf16 matrix units.
    precision: str = "fp32"
    # Input numbers as slot-naming tokens (number0, number1, ... as in SVAMP's CSVs) instead of one shared NUM
    # (scratch) or their digits (pretrained). A model that outputs slots from its vocabulary (Seq2Seq,
    # Transformer) must otherwise count the numbers to know which is N1; the tree decoders copy from the encoder.
    indexed_numbers: bool = False
    # Whether the RNN encoders (Seq2Seq, GTS, Graph2Tree) apply `dropout` to a pretrained embedder's outputs, as to
    # scratch embeddings; SVAMP's code does not (MiniLM has its own dropout, and GTS's 0.5 comes on top).
    pretrained_input_dropout: bool = True

    def input_dropout(self, pretrained: bool) -> float:
        """Dropout on the embeddings an RNN encoder reads (see `pretrained_input_dropout`)."""
        return self.dropout if self.pretrained_input_dropout or not pretrained else 0.0


#: Encoder learning rate of MiniLM-L6 fine-tuned inside Seq2Seq, GTS, Graph2Tree and the Transformer. The paper's
#: values (5e-6 to 1e-5) were tuned for RoBERTa-base; at 5e-5 MiniLM scored higher on validation for all four
#: (ASDiv-A fold 0, `quick`: +6.1, +2.1, +2.1, +10.2 points; notebook 01, "Recorded variants"). A deviation,
#: labelled in the tables.
MINILM_ENCODER_LR = 5e-5

#: Encoder learning rate of MPNet-base, chosen on validation among 5e-6 (the paper's Transformer rate), 2e-5 and
#: 5e-5 for the Transformer R (ASDiv-A fold 0, `quick`'s cell: best validation 74.5, 82.7 and 80.6 %;
#: docs/lab-notes/encoders.md). Not probed for the other three models, which take it too. A deviation, labelled in
#: the tables.
MPNET_ENCODER_LR = 2e-5

#: Encoders whose fine-tuning rate is ours, not the paper's (any other encoder, RoBERTa included, takes the paper's).
ENCODER_LR = {"minilm": MINILM_ENCODER_LR, "mpnet": MPNET_ENCODER_LR}


def encoder_lr(embedding: str, paper: float) -> float:
    """The paper's encoder learning rate for `embedding`, or ours for an encoder in :data:`ENCODER_LR`."""
    return ENCODER_LR.get(embedding, paper)
