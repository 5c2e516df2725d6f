"""The bidirectional LSTM encoder shared by Seq2Seq, GTS and Graph2Tree (directions summed, as GTS)."""
from __future__ import annotations

import torch
from torch import nn
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence


class RNNEncoder(nn.Module):
    def __init__(self, in_dim: int, hidden: int, layers: int, dropout: float) -> None:
        super().__init__()
        self.hidden = hidden
        self.dropout = nn.Dropout(dropout)
        self.lstm = nn.LSTM(in_dim, hidden, layers, batch_first=True, bidirectional=True,
                            dropout=dropout if layers > 1 else 0.0)

    def forward(self, embedded: torch.Tensor, mask: torch.Tensor
                ) -> tuple[torch.Tensor, torch.Tensor, tuple[torch.Tensor, torch.Tensor]]:
        """Returns outputs (B, T, H), the problem summary (B, H) = last forward + first backward state,
        and the final (h, c) per layer with directions summed, (layers, B, H) each."""
        lengths = mask.sum(1).cpu()
        packed = pack_padded_sequence(self.dropout(embedded), lengths, batch_first=True, enforce_sorted=False)
        out, (h, c) = self.lstm(packed)
        out, _ = pad_packed_sequence(out, batch_first=True, total_length=mask.shape[1])
        fwd, bwd = out[..., :self.hidden], out[..., self.hidden:]
        last = (lengths - 1).to(out.device)
        summary = fwd[torch.arange(out.shape[0], device=out.device), last] + bwd[:, 0]
        layers = h.shape[0] // 2
        h = h.view(layers, 2, *h.shape[1:]).sum(1)
        c = c.view(layers, 2, *c.shape[1:]).sum(1)
        return fwd + bwd, summary, (h, c)
