"""The training loop: determinism under a seed, divergence detection, validation carving."""
from __future__ import annotations

import math
from dataclasses import replace

import pytest
import torch

from mwplib import train
from mwplib.models import build_model, paper_config
from mwplib.models.base import collate
from mwplib.train import (TrainingDiverged, learning_rate_factor, make_optimizer, split_validation, warmup_factor,
                          train_model, train_step)
from test_models import fast_config, one_thread, toy_problems  # noqa: F401 (autouse fixture)


def _train(seed: int, name: str = "gts", epochs: int = 2, resume=None, device=None, **overrides):
    problems = toy_problems(12)
    config = fast_config(name, **overrides)
    return train_model(build_model(name, config, problems, seed), problems, problems[:6], config, epochs=epochs,
                       seed=seed, beam=2, val_fraction=0.25, progress=False, resume=resume, device=device)


def test_same_seed_gives_identical_results() -> None:
    first, second = _train(0), _train(0)
    assert [h["loss"] for h in first.history] == [h["loss"] for h in second.history]
    assert first.records == second.records
    assert all(torch.equal(first.state[k], second.state[k]) for k in first.state)
    other = _train(1)
    assert [h["loss"] for h in other.history] != [h["loss"] for h in first.history]


@pytest.mark.parametrize("name", ["gts", "seq2seq"])
def test_an_interrupted_run_resumes_as_if_it_had_not_stopped(name, tmp_path) -> None:
    straight = _train(0, name, epochs=3)
    _train(0, name, epochs=1, resume=tmp_path / "run.pt")  # "interrupted" after epoch 1
    resumed = _train(0, name, epochs=3, resume=tmp_path / "run.pt")
    assert (straight.resumed_after, resumed.resumed_after) == (0, 1)
    assert [h["loss"] for h in resumed.history] == [h["loss"] for h in straight.history]
    assert resumed.records == straight.records
    assert all(torch.equal(resumed.state[k], straight.state[k]) for k in straight.state)


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a GPU to write a GPU run's state")
def test_a_run_cut_off_on_a_gpu_resumes_on_a_cpu_box(tmp_path, monkeypatch) -> None:
    _train(0, epochs=1, resume=tmp_path / "run.pt", device="cuda")
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)  # as on a machine without one
    resumed = _train(0, epochs=2, resume=tmp_path / "run.pt", device="cpu")
    assert resumed.resumed_after == 1 and len(resumed.history) == 2


def test_validation_is_carved_from_training_and_seeded() -> None:
    problems = toy_problems(20)
    fit, val = split_validation(problems, 0.1, seed=3)
    assert len(val) == 2 and not {p.id for p in fit} & {p.id for p in val}
    assert split_validation(problems, 0.1, seed=3) == (fit, val)
    assert split_validation(problems, 0.0, seed=3) == (problems, [])


def test_nan_loss_stops_training_with_a_clear_error() -> None:
    problems = toy_problems(8)
    config = fast_config("seq2seq")
    model = build_model("seq2seq", config, problems)
    with torch.no_grad():
        model.decoder_net.out.bias[0] = float("nan")  # what an exploding update leaves behind
    with pytest.raises(TrainingDiverged, match="epoch"):
        train_model(model, problems, problems, config, epochs=5, seed=0, beam=1, val_fraction=0.0, progress=False)


def test_learning_rates_halve_every_period_scaled_to_the_run() -> None:
    config = replace(paper_config("gts"), epochs=60, lr_halving=20)
    assert [learning_rate_factor(config, 60, e) for e in (1, 20, 21, 40, 41, 60)] == [1, 1, .5, .5, .25, .25]
    assert [learning_rate_factor(config, 15, e) for e in (5, 6, 11)] == [1, .5, .25]  # quick: a quarter
    assert learning_rate_factor(paper_config("gts"), 60, 60) == 1.0  # the default: constant


def test_warm_up_raises_the_rates_linearly_over_whole_run_steps_and_resumes_exactly(tmp_path) -> None:
    config = replace(paper_config("transformer"), warmup_steps=4)
    assert [warmup_factor(config, step) for step in range(6)] == [.25, .5, .75, 1, 1, 1]
    assert warmup_factor(paper_config("transformer"), 0) == 1.0  # the default: none
    straight = _train(0, "transformer", epochs=2, warmup_steps=5)  # 9 fitting problems, batch 4: 3 steps an epoch
    assert [h["loss"] for h in straight.history] != [h["loss"] for h in _train(0, "transformer", epochs=2).history]
    _train(0, "transformer", epochs=1, resume=tmp_path / "run.pt", warmup_steps=5)
    resumed = _train(0, "transformer", epochs=2, resume=tmp_path / "run.pt", warmup_steps=5)
    assert [h["loss"] for h in resumed.history] == [h["loss"] for h in straight.history]


def test_warm_up_counts_steps_over_the_whole_run(monkeypatch) -> None:
    """The step a warm-up sees runs on across epochs (a counter reset every epoch would warm up every epoch)."""
    seen = []
    monkeypatch.setattr(train, "warmup_factor", lambda config, step: seen.append(step) or 1.0)
    _train(0, "transformer", epochs=2, warmup_steps=5)
    assert seen == list(range(6))  # 3 steps an epoch


def test_the_reference_codes_recipe_changes_training_and_resumes_exactly(tmp_path) -> None:
    """Weight decay, halving (here after epoch 1: 30 of the paper's 60 epochs in a run of 2) and no clipping."""
    recipe = {"weight_decay": 1e-2, "lr_halving": 30, "max_grad_norm": 0.0}
    straight = _train(0, epochs=2, **recipe)
    assert [h["loss"] for h in straight.history] != [h["loss"] for h in _train(0, epochs=2).history]
    _train(0, epochs=1, resume=tmp_path / "run.pt", **recipe)
    resumed = _train(0, epochs=2, resume=tmp_path / "run.pt", **recipe)
    assert resumed.resumed_after == 1
    assert [h["loss"] for h in resumed.history] == [h["loss"] for h in straight.history]


def test_a_finite_loss_with_infinite_gradients_makes_no_update() -> None:
    """sqrt at 0 has a finite value and an infinite slope: the step reports NaN and leaves the weights alone."""
    problems = toy_problems(4)
    config = fast_config("seq2seq", max_grad_norm=0.0)
    model = build_model("seq2seq", config, problems)
    optimizer = make_optimizer(model, config)
    before = {k: v.clone() for k, v in model.state_dict().items()}
    weight = next(model.parameters())
    model.loss = lambda batch: torch.sqrt(weight - weight.detach()).sum()
    batch = collate([model.prepare(p) for p in problems], model.embedder)
    assert math.isnan(train_step(model, optimizer, batch))
    assert all(torch.equal(before[k], v) for k, v in model.state_dict().items())


@pytest.mark.parametrize("name", ["seq2seq", "gts", "graph2tree", "transformer", "constrained"])
def test_a_bf16_step_computes_the_same_loss_roughly_and_keeps_fp32_weights(name: str) -> None:
    """Mixed precision changes the rounding, not the model: the first loss agrees with fp32 within 2 %, and
    the weights the optimizer updates stay fp32."""
    problems = toy_problems(8)
    config = fast_config(name)
    losses = []
    for precision in ("fp32", "bf16"):
        model = build_model(name, config, problems, 0)
        batch = collate([model.prepare(p) for p in problems], model.embedder)
        losses.append(train_step(model, make_optimizer(model, config), batch, precision=precision))
        assert all(p.dtype == torch.float32 for p in model.parameters())
    assert losses[0] != losses[1] and losses[1] == pytest.approx(losses[0], rel=0.02)


def test_bf16_training_still_learns_and_an_unknown_precision_is_refused() -> None:
    problems = toy_problems()
    config = fast_config("gts", precision="bf16")
    result = train_model(build_model("gts", config, problems), problems, problems, config, epochs=20, seed=0,
                         beam=1, val_fraction=0.0, progress=False)
    assert result.peer_test_accuracy == 1.0, result.history
    model = build_model("gts", config, problems)
    batch = collate([model.prepare(p) for p in problems[:4]], model.embedder)
    with pytest.raises(ValueError, match="fp16"):
        train_step(model, make_optimizer(model, config), batch, precision="fp16")


def test_patience_stops_once_validation_stops_improving() -> None:
    problems = toy_problems(12)
    config = fast_config("gts", lr=0.0, emb_lr=0.0)  # nothing learns: validation never improves after epoch 1
    result = train_model(build_model("gts", config, problems, 0), problems, problems[:6], config, epochs=10, seed=0,
                         beam=2, val_fraction=0.25, patience=2, progress=False)
    assert [h["epoch"] for h in result.history] == [1, 2, 3] and result.best_epoch == 1
    assert len(_train(0, epochs=4).history) == 4  # no patience: every epoch


def test_a_given_validation_set_replaces_the_carved_part(monkeypatch) -> None:
    import mwplib.train as train_module
    from mwplib.runs import data_checksum

    problems = toy_problems(12)
    config = fast_config("gts")
    given = problems[9:]
    prepared: list[tuple[str, bool]] = []
    model = build_model("gts", config, problems, 0)
    original = model.prepare
    monkeypatch.setattr(model, "prepare", lambda p, *a, target=True, **k: prepared.append((p.id, target))
                        or original(p, *a, target=target, **k))
    monkeypatch.setattr(train_module, "split_validation", lambda *a: pytest.fail("carved a validation part"))
    train_model(model, problems[:9], problems[:6], config, epochs=1, seed=0, beam=2, validation=given,
                progress=False)
    assert {i for i, target in prepared if target} == {p.id for p in problems[:9]}  # all of train fits
    assert {p.id for p in given} <= {i for i, target in prepared if not target}
    assert data_checksum(problems[:9], problems[:6], given) != data_checksum(problems[:9], problems[:6])
