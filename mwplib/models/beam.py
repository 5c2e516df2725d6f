"""Beam search that can only emit well-formed prefix expressions, for sequence and tree decoders alike.

A decoder exposes `step(state) -> (log-probs (R, V), attention (R, T) | None)` and
`advance(state, parents, tokens) -> state` over R = problems × beam rows. The grammar mask allows an
operator only while the expression can still be closed within `max_len` tokens, a slot only if the problem
has that number, and stops a row once its expression is complete. Used by every model of notebook 01.

A step's log-probabilities are normalised over the whole output vocabulary and the slots a problem lacks are
masked afterwards, not renormalised. Training masks them before its softmax, so a beam's score is not the
trained conditional: a path on which the model wants a number the problem lacks loses that mass. Every recorded
run decodes this way; renormalising cost 7.6 points on a Transformer R fold (see ARCHITECTURE.md).
"""
from __future__ import annotations

from typing import Any, Protocol

import torch

from ..text import OutputVocab
from .base import Batch, Prediction, slot_mask


class StepDecoder(Protocol):
    def step(self, state: Any) -> tuple[torch.Tensor, torch.Tensor | None]: ...

    def advance(self, state: Any, parents: torch.Tensor, tokens: torch.Tensor, done: torch.Tensor) -> Any: ...


def beam_search(decoder: StepDecoder, state: Any, batch: Batch, out_vocab: OutputVocab, beam: int,
                max_len: int) -> list[Prediction]:
    """Best complete expression per problem. Rows of problem b are b*beam … b*beam+beam-1."""
    device = batch.mask.device
    n_problems, vocab = len(batch.ids), len(out_vocab)
    rows = n_problems * beam
    usable = slot_mask(out_vocab, batch.n_numbers).repeat_interleave(beam, 0)  # (R, V)
    is_op = torch.arange(vocab, device=device) < out_vocab.n_ops
    score = torch.full((n_problems, beam), float("-inf"), device=device)
    score[:, 0] = 0.0
    score = score.view(rows)
    need = torch.ones(rows, dtype=torch.long, device=device)  # operands still missing
    length = torch.zeros(rows, dtype=torch.long, device=device)
    history = torch.zeros(rows, 0, dtype=torch.long, device=device)
    attention: list[torch.Tensor] = []
    for _ in range(max_len):
        done = need == 0
        if bool(done.all()):
            break
        logprobs, attn = decoder.step(state)
        allowed = usable & ~(is_op[None, :] & (length + need + 2 > max_len)[:, None])
        logprobs = logprobs.masked_fill(~allowed, float("-inf"))
        stay = torch.full((rows, 1), float("-inf"), device=device)
        logprobs = torch.where(done[:, None], float("-inf"), logprobs)
        stay[done] = 0.0
        candidates = (score[:, None] + torch.cat([logprobs, stay], 1)).view(n_problems, beam * (vocab + 1))
        top, index = candidates.topk(beam, dim=1)
        parents = (index // (vocab + 1) + torch.arange(n_problems, device=device)[:, None] * beam).view(rows)
        tokens = (index % (vocab + 1)).view(rows)
        score = top.view(rows)
        finished = (tokens == vocab) | torch.isinf(score)  # staying, or a dead row
        tokens = tokens.masked_fill(finished, 0)
        need = need[parents]
        need = torch.where(finished, torch.zeros_like(need), need + torch.where(is_op[tokens], 1, -1))
        length = length[parents] + (~finished).long()
        history = torch.cat([history[parents], torch.where(finished, -1, tokens)[:, None]], 1)
        if attn is not None:
            attention = [a[parents] for a in attention] + [attn[parents]]
        state = decoder.advance(state, parents, tokens, finished)
    best = score.view(n_problems, beam).argmax(1) + torch.arange(n_problems, device=device) * beam
    predictions = []
    for b, row in enumerate(best.tolist()):
        ids = tuple(t for t in history[row].tolist() if t >= 0)
        n_words = int(batch.mask[b].sum())
        attn_rows = [attention[t][row, :n_words].tolist() for t in range(len(attention))
                     if history[row, t] >= 0] if attention else None
        predictions.append(Prediction(batch.ids[b], ids, out_vocab.tokens(ids), float(score[row]), attn_rows))
    return predictions
