"""The padded BiLSTM encoder equals nn.LSTM over packed sequences (outputs, summary, final states, gradients)."""
import pytest
import torch
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

from mwplib.models import encoder as encoder_module
from mwplib.models.encoder import RNNEncoder, _window_ends, reversal_index


def packed_reference(encoder: RNNEncoder, x: torch.Tensor, mask: torch.Tensor):
    lengths = mask.sum(1)
    packed = pack_padded_sequence(x, lengths, batch_first=True, enforce_sorted=False)
    out, (h, c) = encoder.lstm(packed)
    out, _ = pad_packed_sequence(out, batch_first=True, total_length=mask.shape[1])
    fwd, bwd = out[..., :encoder.hidden], out[..., encoder.hidden:]
    summary = fwd[torch.arange(x.shape[0]), lengths - 1] + bwd[:, 0]
    layers = h.shape[0] // 2
    return fwd + bwd, summary, (h.view(layers, 2, *h.shape[1:]).sum(1), c.view(layers, 2, *c.shape[1:]).sum(1))


def test_windows_trade_call_cost_against_padding():
    lengths = [9, 8, 7, 6, 5, 4, 3, 2]
    assert _window_ends(lengths, call_cost=0) == [2, 3, 4, 5, 6, 7, 8, 9]  # free calls: no padding at all
    assert _window_ends(lengths, call_cost=64) == [9]  # a small batch: one call
    assert _window_ends([100] * 4 + [10] * 60, call_cost=64) == [10, 100]  # a long tail of few rows: its own call
    assert _window_ends([0, 0], call_cost=64) == []


def test_reversal_index_keeps_padding_in_place():
    mask = torch.tensor([[True, True, True], [True, True, False]])
    assert reversal_index(mask).tolist() == [[2, 1, 0], [1, 0, 2]]


@pytest.mark.parametrize("call_cost", [0, 64])  # a window per length, or one window for all
@pytest.mark.parametrize("lengths", [[5, 3, 3, 1, 7], [4, 4], [1], [9, 2, 6, 6, 3, 8, 1, 4, 7, 5, 2]])
def test_encoder_matches_packed_lstm(lengths, call_cost, monkeypatch):
    monkeypatch.setattr(encoder_module, "CALL_COST", call_cost)
    torch.manual_seed(0)
    encoder = RNNEncoder(6, 8, layers=2, dropout=0.0).eval()
    mask = torch.arange(max(lengths))[None, :] < torch.tensor(lengths)[:, None]
    x = torch.randn(len(lengths), max(lengths), 6, requires_grad=True)
    ours = encoder(x, mask, final_state=True)
    ref = packed_reference(encoder, x, mask)
    torch.testing.assert_close(ours[0], ref[0])
    torch.testing.assert_close(ours[1], ref[1])
    torch.testing.assert_close(ours[2][0], ref[2][0])
    torch.testing.assert_close(ours[2][1], ref[2][1])
    fast = encoder(x, mask)
    torch.testing.assert_close(fast[0], ours[0])
    torch.testing.assert_close(fast[1], ours[1])
    assert fast[2] is None
    grad_ours = torch.autograd.grad(ours[0].sum() + ours[2][1].sum(), x)[0]
    grad_ref = torch.autograd.grad(ref[0].sum() + ref[2][1].sum(), x)[0]
    torch.testing.assert_close(grad_ours, grad_ref)


@pytest.mark.parametrize("lengths", [[3, 0], [0, 0], [0, 2, 0, 1]])
def test_rows_without_words_get_zero_outputs_and_states(lengths):
    encoder = RNNEncoder(6, 8, layers=2, dropout=0.0).eval()
    mask = torch.arange(3)[None, :] < torch.tensor(lengths)[:, None]
    outputs, summary, (h, c) = encoder(torch.randn(len(lengths), 3, 6), mask, final_state=True)
    for row, n in enumerate(lengths):
        parts = [outputs[row], summary[row], h[:, row], c[:, row]]
        assert all((part.abs().sum() > 0) == (n > 0) for part in parts)


@pytest.mark.parametrize("call_cost", [0, 64])
@pytest.mark.parametrize("lengths", [[5, 3, 3, 1, 7], [9, 2, 6, 6, 3, 8, 1, 4, 7, 5, 2], [3, 0]])
def test_gru_encoder_matches_packed_gru(lengths, call_cost, monkeypatch):
    monkeypatch.setattr(encoder_module, "CALL_COST", call_cost)
    torch.manual_seed(0)
    encoder = RNNEncoder(6, 8, layers=2, dropout=0.0, cell="gru").eval()
    mask = torch.arange(max(lengths))[None, :] < torch.tensor(lengths)[:, None]
    x = torch.randn(len(lengths), max(lengths), 6, requires_grad=True)
    outputs, summary, final = encoder(x, mask)
    worded = torch.tensor(lengths) > 0
    packed = pack_padded_sequence(x[worded], torch.tensor(lengths)[worded], batch_first=True, enforce_sorted=False)
    ref, _ = pad_packed_sequence(encoder.gru(packed)[0], batch_first=True, total_length=mask.shape[1])
    torch.testing.assert_close(outputs[worded], ref[..., :8] + ref[..., 8:])
    assert final is None and not outputs[~worded].any()
    grad = torch.autograd.grad(outputs.sum(), x)[0]
    ref_grad = torch.autograd.grad((ref[..., :8] + ref[..., 8:]).sum(), x)[0]
    torch.testing.assert_close(grad, ref_grad)
    with pytest.raises(ValueError, match="GRU encoder has no final"):
        encoder(x, mask, final_state=True)
    with pytest.raises(ValueError, match="unknown encoder cell 'rnn'"):
        RNNEncoder(6, 8, layers=1, dropout=0.0, cell="rnn")
