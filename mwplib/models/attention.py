"""Attention over encoder states, shared by every decoder (Luong 2015 "general", GTS's "concat").

Used by the models of notebook 01_baselines; the weights are returned so later notebooks can analyse them.
"""
from __future__ import annotations

import torch
from torch import nn


class Attention(nn.Module):
    """Scores each key against a query, softmax over unmasked keys; returns (context, weights).

    `kind="general"`: score = qᵀ W k (Luong). `kind="concat"`: score = vᵀ tanh(W [q; k]) (GTS's TreeAttn).
    Queries may be (R, Q) or (R, L, Q) for L decoding steps at once.
    """

    def __init__(self, query_dim: int, key_dim: int, kind: str = "general") -> None:
        super().__init__()
        if kind not in ("general", "concat"):
            raise ValueError(f"unknown attention kind {kind!r}")
        self.kind = kind
        if kind == "general":
            self.proj = nn.Linear(key_dim, query_dim, bias=False)
        else:
            self.query = nn.Linear(query_dim, query_dim)
            self.key = nn.Linear(key_dim, query_dim, bias=False)
            self.v = nn.Linear(query_dim, 1, bias=False)

    def project(self, keys: torch.Tensor) -> torch.Tensor:
        """The keys' projection, which callers that attend over the same keys many times compute once."""
        return self.proj(keys) if self.kind == "general" else self.key(keys)

    def forward(self, query: torch.Tensor, keys: torch.Tensor, mask: torch.Tensor,
                projected: torch.Tensor | None = None) -> tuple[torch.Tensor, torch.Tensor]:
        """`projected`: `self.project(keys)` when the caller already has it."""
        single = query.dim() == 2
        q = query[:, None, :] if single else query  # (R, L, Q)
        projected = self.project(keys) if projected is None else projected
        if self.kind == "general":
            scores = q @ projected.transpose(1, 2)  # (R, L, T)
        else:
            energy = torch.tanh(self.query(q)[:, :, None, :] + projected[:, None, :, :])
            scores = self.v(energy).squeeze(-1)
        scores = scores.masked_fill(~mask[:, None, :], float("-inf"))
        weights = torch.softmax(scores, dim=-1)
        context = weights @ keys
        return (context[:, 0], weights[:, 0]) if single else (context, weights)
