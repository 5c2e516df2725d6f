"""The bidirectional LSTM (or GRU) encoder shared by Seq2Seq, GTS and Graph2Tree (directions summed, as GTS).

Why not `nn.LSTM` over packed sequences: on CPU, packed input falls back to a loop of small matrix products per
time step, while a padded batch runs in one oneDNN kernel call per layer and direction, 2–3× faster forward and
backward. Plain padding, though, wastes work: a random batch of 64 ASDiv-A problems is padded to 2.2× its real
tokens. This module keeps the packed semantics exactly (tested against it) and most of its economy:

- the backward direction reads each sequence reversed *within its own length*, so real tokens always come first
  and padding never reaches a real position's state;
- each layer and direction runs in a few time windows, each over only the rows still running, chosen by a cost
  model (`_window_ends`): a call has a large fixed cost, so small batches run in one call;
- where the final (h, c) per layer are needed (Seq2Seq's decoder starts from them) padded steps are made inert
  (`_inert_padding`), so every sequence's state is the one after its own last token.

The parameters live in an ordinary bidirectional `nn.LSTM`, so initialisation and checkpoints are those of it.
"""
from __future__ import annotations

import torch
from torch import nn
from torch.nn import functional as F

from .dropout import Dropout, dropout


def reversal_index(mask: torch.Tensor) -> torch.Tensor:
    """(B, T) index that reverses each row's first `length` positions and leaves its padding in place."""
    positions = torch.arange(mask.shape[1], device=mask.device).expand_as(mask)
    lengths = mask.sum(1, keepdim=True)
    return torch.where(mask, lengths - 1 - positions, positions)


def _take(x: torch.Tensor, index: torch.Tensor) -> torch.Tensor:
    return x.gather(1, index[..., None].expand(-1, -1, x.shape[-1]))


def _lstm(x: torch.Tensor, state: tuple[torch.Tensor, torch.Tensor], weights: list[torch.Tensor],
          training: bool) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """One layer, one direction, over a padded (B, T, D) batch: outputs (B, T, H) and the state after step T."""
    return torch.lstm(x, state, weights, True, 1, 0.0, training, False, True)


def _gru(x: torch.Tensor, state: tuple[torch.Tensor], weights: list[torch.Tensor], training: bool
         ) -> tuple[torch.Tensor, torch.Tensor]:
    """As :func:`_lstm` for a GRU, whose state is h alone."""
    return torch.gru(x, state[0], weights, True, 1, 0.0, training, False, True)


#: What one oneDNN LSTM call (forward + backward) costs beyond its arithmetic, in row-steps (one row advanced one
#: time step). Measured on this project's 2-core CPU: 54 (hidden 256) to 86 (hidden 512, input 1024) — most of it
#: handles the weights, so splitting a batch into many small calls loses more than the padding it saves.
CALL_COST = 64
#: Added to the input and forget gates at padded steps when exact final states are needed: sigmoid saturates to
#: 0 and 1, so the cell state passes through padding unchanged (and so does its gradient).
_INERT = 1e4


def _window_ends(sorted_lengths: list[int], call_cost: float) -> list[int]:
    """The time windows of `_rnn_by_length` (their ends, ascending) that minimise the modelled cost: each call
    costs `call_cost` plus its row-steps, a window running every row that has not ended before it starts."""
    ends = sorted(set(sorted_lengths) - {0})
    starts = [0] + ends
    active = [sum(1 for n in sorted_lengths if n > s) for s in starts]
    best, previous = [0.0], [0]
    for j, end in enumerate(ends, 1):  # best[j]: cheapest cover of steps 0..ends[j-1] by windows
        i = min(range(j), key=lambda i: best[i] + (end - starts[i]) * active[i])
        best.append(best[i] + call_cost + (end - starts[i]) * active[i])
        previous.append(i)
    chosen, j = [], len(ends)
    while j:
        chosen.append(ends[j - 1])
        j = previous[j]
    return chosen[::-1]


def _inert_padding(x: torch.Tensor, lengths: torch.Tensor, weights: list[torch.Tensor]
                   ) -> tuple[torch.Tensor, list[torch.Tensor]]:
    """Append a padding flag to the inputs and a weight column that closes the input gate and opens the forget
    gate where it is set (gate order i, f, g, o), so each row's cell state after the window is its own final one."""
    flag = torch.arange(x.shape[1], device=x.device)[None, :] >= lengths[:, None]
    hidden = weights[1].shape[1]
    column = torch.cat([-torch.ones(hidden), torch.ones(hidden), torch.zeros(2 * hidden)]).to(x) * _INERT
    return (torch.cat([x, flag[..., None].to(x)], -1),
            [torch.cat([weights[0], column[:, None]], 1), *weights[1:]])


def _rnn_by_length(x: torch.Tensor, lengths: torch.Tensor, weights: list[torch.Tensor], training: bool,
                    exact_state: bool, cell: str = "lstm"
                    ) -> tuple[torch.Tensor, tuple[torch.Tensor, torch.Tensor] | None]:
    """One layer, one direction over rows whose real tokens come first: the rows, sorted longest first, run in time
    windows (`_window_ends`), each only over the rows that have not ended before it. Outputs at real positions are
    exact; with `exact_state` (an LSTM's only) padding is inert, so each row's (h, c) is the one after its own last
    token. A GRU (`cell="gru"`) runs the same windows over its one state."""
    batch, steps, hidden = x.shape[0], x.shape[1], weights[1].shape[1]
    order = torch.argsort(lengths, descending=True, stable=True)
    x, lengths = x[order], lengths[order]
    sorted_lengths = lengths.tolist()
    if exact_state:
        x, weights = _inert_padding(x, lengths, weights)
    worded = sum(1 for n in sorted_lengths if n > 0)  # rows without words (an emptied text) never run
    step, parts = (_lstm, 2) if cell == "lstm" else (_gru, 1)
    state = tuple(x.new_zeros(1, worded, hidden) for _ in range(parts))
    outputs, finished_c = [], []
    start, active = 0, worded
    for end in _window_ends(sorted_lengths, CALL_COST):
        out, *last = step(x[:active, start:end], state, weights, training)
        outputs.append(F.pad(out, (0, 0, 0, 0, 0, batch - active)))
        still = sum(1 for n in sorted_lengths[:active] if n > end)
        finished_c.append(last[-1][:, still:active])
        state, start, active = tuple(part[:, :still] for part in last), end, still
    out = torch.cat(outputs, 1) if outputs else x.new_zeros(batch, 0, hidden)
    out = F.pad(out, (0, 0, 0, steps - out.shape[1]))
    inverse = torch.argsort(order)
    if not exact_state:
        return out[inverse], None
    c = torch.cat([*finished_c[::-1], x.new_zeros(1, batch - worded, hidden)], 1)
    h = out[torch.arange(batch, device=x.device), (lengths - 1).clamp(min=0)] * (lengths > 0)[:, None]
    return out[inverse], (h[None, inverse], c[:, inverse])


class RNNEncoder(nn.Module):
    def __init__(self, in_dim: int, hidden: int, layers: int, dropout: float, input_dropout: float | None = None,
                 cell: str = "lstm") -> None:
        """`input_dropout` (default: `dropout`) applies to the embeddings fed in, `dropout` between layers. `cell`
        "gru" (the original GTS's, and MWPToolkit's) has no cell state, so it gives no `final_state`."""
        super().__init__()
        if cell not in ("lstm", "gru"):
            raise ValueError(f"unknown encoder cell {cell!r}; choose lstm or gru")
        self.hidden, self.layers, self.cell = hidden, layers, cell
        self.dropout = Dropout(dropout if input_dropout is None else input_dropout)
        rnn = nn.LSTM if cell == "lstm" else nn.GRU  # kept under its own name: checkpoints say `lstm.` or `gru.`
        setattr(self, cell, rnn(in_dim, hidden, layers, batch_first=True, bidirectional=True,
                                dropout=dropout if layers > 1 else 0.0))

    @property
    def rnn(self) -> nn.LSTM | nn.GRU:
        return getattr(self, self.cell)

    def _weights(self, layer: int, suffix: str) -> list[torch.Tensor]:
        return [getattr(self.rnn, f"{name}_l{layer}{suffix}")
                for name in ("weight_ih", "weight_hh", "bias_ih", "bias_hh")]

    def forward(self, embedded: torch.Tensor, mask: torch.Tensor, final_state: bool = False
                ) -> tuple[torch.Tensor, torch.Tensor, tuple[torch.Tensor, torch.Tensor] | None]:
        """Returns outputs (B, T, H), the problem summary (B, H) = last forward + first backward state, and,
        if `final_state`, the final (h, c) per layer with directions summed, (layers, B, H) each."""
        if final_state and self.cell != "lstm":
            raise ValueError("a GRU encoder has no final (h, c): Seq2Seq's decoder needs an LSTM encoder")
        lengths = mask.sum(1)
        reverse = reversal_index(mask)
        x = self.dropout(embedded)
        finals: list[tuple[torch.Tensor, torch.Tensor]] = []
        for layer in range(self.layers):
            if layer:
                x = dropout(x, self.rnn.dropout, self.training)
            directions = []
            for suffix, inputs in (("", x), ("_reverse", _take(x, reverse))):
                out, hc = _rnn_by_length(inputs, lengths, self._weights(layer, suffix), self.training, final_state,
                                          self.cell)
                directions.append(out)
                if hc is not None:
                    finals.append(hc)
            fwd, bwd = directions[0], _take(directions[1], reverse)
            x = torch.cat([fwd, bwd], -1)
        last = lengths - 1
        summary = fwd[torch.arange(x.shape[0], device=x.device), last] + bwd[:, 0]
        outputs = (fwd + bwd) * mask[..., None]  # zero at padding, as packed sequences give
        if not final_state:
            return outputs, summary, None
        h = torch.cat([finals[2 * i][0] + finals[2 * i + 1][0] for i in range(self.layers)])
        c = torch.cat([finals[2 * i][1] + finals[2 * i + 1][1] for i in range(self.layers)])
        return outputs, summary, (h, c)
