"""ConvS2S (Gehring et al. 2017, "Convolutional Sequence to Sequence Learning"), the convolutional member of
MathEN (Wang et al. 2018; evaluated by Lan et al. 2022, Table II), generating the prefix equation.

Encoder: word embeddings + learned positions, a linear map to the convolution width, stacked 1-D convolutions
with GLU and a residual connection scaled by √0.5 (padding zeroed before every convolution, so a problem's
states do not depend on its batchmates), and a map back to the embedding width. Its outputs are the attention
keys; keys + input embeddings (× √0.5) are the values. Decoder: output-token embeddings + positions, causal
convolutions with GLU, and Gehring's multi-step attention: every layer attends with its own query
(its state projected to the embedding width, plus the previous token's embedding), scales the context by
√(number of words) and adds it back to its state. Scores come from the project's `Attention` ("general":
qᵀ W k, of which Gehring's dot product qᵀ k is the case W = I).

Weights start as Gehring et al.'s (their §3.5): N(0, 0.1) embeddings (scratch word vectors included), a layer's
weights N(0, gain / fan-in) with gain 1 − dropout after a dropout (× 4 before a GLU) and zero biases, so that
activations keep their variance through MathEN's dropout of 0.5. The attention matrix W starts as the identity,
Gehring's dot product. Measured on the first 400 MAWPS problems (paper setting, 6 epochs, one thread): PyTorch's
default initialisation stalled the training loss (2.14 → 1.89), with N(0, 1) word vectors and this
initialisation otherwise it started at 12.5, and with this one it fell from 1.90 to 0.99.

Beam search decodes incrementally: a causal convolution of kernel k needs only its layer's last k − 1 inputs,
so each layer keeps them as a window and a step feeds only the newest token (training runs the same code with
zero windows, which is the convolution's causal padding); a test checks a step against the full decoder.
Not reproduced from Gehring et al.: weight normalisation and the encoder's gradient scaling (Adam at MathEN's
learning rate trains the 4 + 4 layers without them).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import torch
from torch import nn
from torch.nn import functional as F

from ..text import OutputVocab
from .attention import Attention
from .base import Batch, MWPModel, slot_mask
from .config import ModelConfig, encoder_lr
from .dropout import Dropout
from .transformer import MAX_POSITIONS

SQRT_HALF = math.sqrt(0.5)


@dataclass(frozen=True)
class ConvS2SConfig(ModelConfig):
    """MathEN's ConvS2S member. Lan et al. 2022 keep the original manuscript's hyper-parameters for MathEN; their
    Table VI (MathEN column) gives batch 32, embedding 128, hidden 512, lr 1e-3, dropout 0.5, 100 epochs, which we
    take for this member too. Its "2 layers" is the BiLSTM member's depth and fixes nothing for a convolution
    stack, so depth and kernel follow Gehring et al.'s small (IWSLT-sized) models: 4 encoder and 4 decoder layers
    of kernel 3 (each side's receptive field is 9 tokens; attention reaches the rest). `hidden` is the convolution
    width (each convolution outputs 2 × hidden for its GLU); `emb_dim` the width of embeddings, attention keys and
    values (a pretrained embedder brings its own)."""

    emb_dim: int = 128
    hidden: int = 512
    layers: int = 4  # encoder and decoder layers each
    kernel: int = 3  # odd: the encoder pads (kernel - 1) / 2 on either side
    dropout: float = 0.5
    lr: float = 1e-3
    emb_lr: float = 1e-3
    batch_size: int = 32
    epochs: int = 100

    def __post_init__(self) -> None:
        if self.kernel < 1 or self.kernel % 2 == 0:
            raise ValueError(f"ConvS2S kernel must be odd and positive (same-length encoder convolutions), "
                             f"got {self.kernel}")

    @classmethod
    def paper(cls, pretrained: bool, embedding: str = "minilm") -> "ConvS2SConfig":
        if pretrained:  # not in MathEN; the pretrained encoder fine-tunes at Seq2Seq's R rate
            return cls(embedding=embedding, emb_lr=encoder_lr(embedding, 1e-5))
        return cls()


@dataclass(frozen=True)
class Memory:
    """What the decoder attends to, per row: keys (R, T, E), values (R, T, E), word mask (R, T), each
    decoder layer's projection of the keys, and the context scale √(number of words) (R, 1, 1)."""

    keys: torch.Tensor
    values: torch.Tensor
    mask: torch.Tensor
    projected: tuple[torch.Tensor, ...]
    scale: torch.Tensor

    def repeat(self, beam: int) -> "Memory":
        """`beam` consecutive rows per problem (beam search's layout)."""
        rows = lambda t: t.repeat_interleave(beam, 0)  # noqa: E731
        return Memory(rows(self.keys), rows(self.values), rows(self.mask), tuple(map(rows, self.projected)),
                      rows(self.scale))


def _init(layer: nn.Linear | nn.Conv1d, gain: float) -> None:
    """Gehring et al.'s initialisation of a layer: weights N(0, gain / fan-in), biases zero."""
    nn.init.normal_(layer.weight, 0.0, math.sqrt(gain / layer.weight[0].numel()))
    if layer.bias is not None:
        nn.init.zeros_(layer.bias)


def _init_embedding(embedding: nn.Embedding) -> None:
    """Gehring et al.'s embeddings: N(0, 0.1), the padding row (if any) zero."""
    nn.init.normal_(embedding.weight, 0.0, 0.1)
    if embedding.padding_idx is not None:
        nn.init.zeros_(embedding.weight[embedding.padding_idx])


class ConvEncoder(nn.Module):
    """Embedded words (B, T, E) → attention keys and values (B, T, E)."""

    def __init__(self, width: int, hidden: int, layers: int, kernel: int, dropout: float,
                 input_dropout: float) -> None:
        super().__init__()
        self.position = nn.Embedding(MAX_POSITIONS, width)
        self.to_hidden = nn.Linear(width, hidden)
        self.convs = nn.ModuleList(nn.Conv1d(hidden, 2 * hidden, kernel, padding=kernel // 2) for _ in range(layers))
        self.to_width = nn.Linear(hidden, width)
        self.input_dropout, self.dropout = Dropout(input_dropout), Dropout(dropout)
        _init_embedding(self.position)
        _init(self.to_hidden, 1 - input_dropout)
        for conv in self.convs:
            _init(conv, 4 * (1 - dropout))
        _init(self.to_width, 1.0)

    def forward(self, words: torch.Tensor, mask: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        embedded = self.input_dropout(words + self.position(torch.arange(words.shape[1], device=words.device)))
        x = self.to_hidden(embedded)
        for conv in self.convs:
            inputs = self.dropout(x) * mask[:, :, None]  # padding reads as the zeros a lone problem is padded with
            x = (F.glu(conv(inputs.transpose(1, 2)), dim=1).transpose(1, 2) + x) * SQRT_HALF
        keys = self.to_width(x)
        return keys, (keys + embedded) * SQRT_HALF


class DecoderLayer(nn.Module):
    """A causal convolution with GLU, then attention: its query is the state in embedding width plus the
    previous token's embedding; the scaled context, mapped back to the convolution width, joins the state."""

    def __init__(self, width: int, hidden: int, kernel: int, dropout: float) -> None:
        super().__init__()
        self.conv = nn.Conv1d(hidden, 2 * hidden, kernel)
        self.query = nn.Linear(hidden, width)
        self.attention = Attention(width, width, "general")
        self.context = nn.Linear(width, hidden)
        _init(self.conv, 4 * (1 - dropout))
        _init(self.query, 1.0)
        nn.init.eye_(self.attention.proj.weight)
        _init(self.context, 1.0)

    def forward(self, inputs: torch.Tensor, target: torch.Tensor, memory: Memory,
                projected: torch.Tensor) -> torch.Tensor:
        """`inputs` (R, k − 1 + L, H): the window of earlier inputs, then this chunk's; `target` (R, L, E)."""
        x = F.glu(self.conv(inputs.transpose(1, 2)), dim=1).transpose(1, 2)  # (R, L, H)
        query = (self.query(x) + target) * SQRT_HALF
        _, weights = self.attention(query, memory.keys, memory.mask, projected)
        return (x + self.context(weights @ memory.values * memory.scale)) * SQRT_HALF


class ConvDecoder(nn.Module):
    """Output tokens fed so far → scores of the next output-vocabulary token at every position."""

    def __init__(self, out_vocab: OutputVocab, width: int, hidden: int, layers: int, kernel: int,
                 dropout: float) -> None:
        super().__init__()
        self.sos = len(out_vocab)
        self.hidden, self.context_size = hidden, kernel - 1
        self.embedding = nn.Embedding(len(out_vocab) + 1, width)
        self.position = nn.Embedding(MAX_POSITIONS, width)
        self.to_hidden = nn.Linear(width, hidden)
        self.layers = nn.ModuleList(DecoderLayer(width, hidden, kernel, dropout) for _ in range(layers))
        self.to_width = nn.Linear(hidden, width)
        self.out = nn.Linear(width, len(out_vocab))
        self.dropout = Dropout(dropout)
        for embedding in (self.embedding, self.position):
            _init_embedding(embedding)
        _init(self.to_hidden, 1 - dropout)
        _init(self.to_width, 1.0)
        _init(self.out, 1 - dropout)

    def memory(self, keys: torch.Tensor, values: torch.Tensor, mask: torch.Tensor) -> Memory:
        return Memory(keys, values, mask, tuple(layer.attention.project(keys) for layer in self.layers),
                      mask.sum(1).float().sqrt()[:, None, None])

    def empty_windows(self, rows: int, device: torch.device) -> list[torch.Tensor]:
        """Each layer's k − 1 earlier inputs before the first token: zeros, the causal padding."""
        return [torch.zeros(rows, self.context_size, self.hidden, device=device) for _ in self.layers]

    def forward(self, tokens: torch.Tensor, start: int, memory: Memory, windows: list[torch.Tensor]
                ) -> tuple[torch.Tensor, list[torch.Tensor]]:
        """`tokens` (R, L) at positions start … start + L − 1, after the tokens whose layer inputs `windows`
        hold → (R, L, V) scores and the windows after this chunk."""
        positions = torch.arange(start, start + tokens.shape[1], device=tokens.device)
        target = self.dropout(self.embedding(tokens) + self.position(positions))
        x, after = self.to_hidden(target), []
        for layer, window, projected in zip(self.layers, windows, memory.projected):
            inputs = torch.cat([window, self.dropout(x)], 1)
            after.append(inputs[:, inputs.shape[1] - self.context_size:])
            x = (layer(inputs, target, memory, projected) + x) * SQRT_HALF
        return self.out(self.dropout(self.to_width(x))), after

    def step(self, state: dict[str, Any]) -> tuple[torch.Tensor, None]:
        return state["logprobs"], None

    def advance(self, state: dict[str, Any], parents: torch.Tensor, tokens: torch.Tensor,
                done: torch.Tensor) -> dict[str, Any]:
        return self.feed({**state, "windows": [w[parents] for w in state["windows"]]}, tokens)

    def feed(self, state: dict[str, Any], tokens: torch.Tensor) -> dict[str, Any]:
        """Run the newest token (R,) through the layers; store the next log-probabilities."""
        logits, windows = self(tokens[:, None], state["position"], state["memory"], state["windows"])
        return {**state, "windows": windows, "position": state["position"] + 1,
                "logprobs": torch.log_softmax(logits[:, 0], -1)}


class ConvS2S(MWPModel):
    def __init__(self, config: ConvS2SConfig, embedder: nn.Module, out_vocab: OutputVocab) -> None:
        super().__init__()
        self.config, self.embedder, self.out_vocab = config, embedder, out_vocab
        self.encoder = ConvEncoder(embedder.dim, config.hidden, config.layers, config.kernel, config.dropout,
                                   config.input_dropout(embedder.pretrained))
        self.decoder_net = ConvDecoder(out_vocab, embedder.dim, config.hidden, config.layers, config.kernel,
                                       config.dropout)
        if not embedder.pretrained:  # scratch word vectors start at Gehring's scale too (nn.Embedding draws N(0, 1))
            _init_embedding(embedder.embedding)

    def _memory(self, batch: Batch) -> Memory:
        keys, values = self.encoder(self.embedder(batch.inputs), batch.mask)
        return self.decoder_net.memory(keys, values, batch.mask)

    def loss(self, batch: Batch) -> torch.Tensor:
        targets = batch.padded_targets()
        history = torch.cat([torch.full_like(targets[:, :1], self.decoder_net.sos), targets[:, :-1].clamp(min=0)], 1)
        windows = self.decoder_net.empty_windows(len(batch.ids), batch.mask.device)
        logits, _ = self.decoder_net(history, 0, self._memory(batch), windows)
        logits = logits.masked_fill(~slot_mask(self.out_vocab, batch.n_numbers)[:, None, :], -1e9)
        return F.cross_entropy(logits.flatten(0, 1), targets.flatten())

    def decoder(self, batch: Batch, beam: int) -> tuple[ConvDecoder, dict[str, Any]]:
        """Start state: the memory (`beam` rows per problem), zero windows, and the log-probabilities after the
        start token."""
        memory = self._memory(batch).repeat(beam)
        rows, device = memory.mask.shape[0], memory.mask.device
        state = {"memory": memory, "windows": self.decoder_net.empty_windows(rows, device), "position": 0}
        return self.decoder_net, self.decoder_net.feed(state, torch.full((rows,), self.decoder_net.sos,
                                                                         dtype=torch.long, device=device))
