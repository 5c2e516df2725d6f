"""The one training loop and evaluation for every solver (notebook 01_baselines and the notebooks that
retrain the SVAMP models).

Adam with a separate learning rate for the embedder; per-epoch evaluation on a validation part carved
from the training problems (model selection, the honest default) *and* on the test problems (so that
the papers' protocol — best epoch on the test fold — can be reported beside it, clearly labelled). The model's
vocabularies (words, output constants) and the decoding length come from the whole training fold, validation
part included (`mwplib.runs.run` builds the model before the part is carved): a constant only validation
problems use can be decoded for them, which can only flatter the validation score; the test fold never leaks.
"""
from __future__ import annotations

import copy
import math
import random
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

import torch

from . import expr, metrics
from .models import MWPModel
from .models.base import Batch, Example, Prediction, collate
from .models.beam import beam_search
from .models.config import ModelConfig
from .problem import Problem
from .records import write_atomically
from .repro import seed_everything


#: Training precisions `train_step` knows (`ModelConfig.precision`).
PRECISIONS = ("fp32", "bf16")


class TrainingDiverged(RuntimeError):
    """The loss became NaN/inf: the run stops with where it happened instead of training on garbage."""


@dataclass
class TrainResult:
    history: list[dict[str, float]]  # per epoch: epoch, loss, seconds, val_accuracy, test_accuracy
    best_epoch: int  # selected on validation accuracy (earliest best)
    test_accuracy: float  # at `best_epoch` — the honest number
    peer_epoch: int  # best epoch on the test problems (the papers' protocol)
    peer_test_accuracy: float
    records: list[dict[str, Any]]  # per test problem at `best_epoch` (see :func:`score`)
    train_problems_per_s: float
    infer_problems_per_s: float
    state: dict[str, torch.Tensor] = field(repr=False, default_factory=dict)  # weights at `best_epoch`
    resumed_after: int = 0  # epochs already done when this call started (from a resume state)


def pick_device(device: str | None = None) -> torch.device:
    """CUDA when present, unless `device` says otherwise."""
    return torch.device(device or ("cuda" if torch.cuda.is_available() else "cpu"))


def split_validation(train: Sequence[Problem], fraction: float, seed: int) -> tuple[list[Problem], list[Problem]]:
    """Carve a seeded validation part (at least one problem when `fraction` > 0) out of `train`."""
    problems = list(train)
    if fraction <= 0:
        return problems, []
    order = list(range(len(problems)))
    random.Random(seed).shuffle(order)
    n_val = max(1, round(fraction * len(problems)))
    val = set(order[:n_val])
    return [p for i, p in enumerate(problems) if i not in val], [problems[i] for i in sorted(val)]


def predict(model: MWPModel, examples: Sequence[Example], *, beam: int, max_len: int, batch_size: int = 64
            ) -> list[Prediction]:
    """Beam-search predictions (well-formed prefix expressions only), in the order of `examples`."""
    model.eval()
    device = next(model.parameters()).device
    out: list[Prediction] = []
    with torch.no_grad():
        for start in range(0, len(examples), batch_size):
            batch = collate(examples[start:start + batch_size], model.embedder).to(device)
            decoder, state = model.decoder(batch, beam)
            out += beam_search(decoder, state, batch, model.out_vocab, beam, max_len)
    return out


def score(problems: Sequence[Problem], predictions: Sequence[Prediction]) -> list[dict[str, Any]]:
    """Per-problem record: id, predicted prefix and answer, correct?, log-probability (and attention)."""
    records = []
    for problem, pred in zip(problems, predictions, strict=True):
        answer = _value(pred.prefix, problem.numbers)
        record = {"id": problem.id, "prefix": list(pred.prefix), "answer": answer,
                  "correct": metrics.answer_correct(pred.prefix, problem.numbers, problem.answer),
                  "logprob": pred.logprob}
        if pred.attention is not None:
            record["attention"] = pred.attention
        records.append(record)
    return records


def _value(prefix: Sequence[str], numbers: Sequence[str]) -> float | None:
    """The predicted answer (None when it cannot be evaluated, e.g. division by zero)."""
    try:
        return float(expr.evaluate(expr.parse_prefix(list(prefix)), {f"N{i}": n for i, n in enumerate(numbers)}))
    except (expr.ExpressionError, OverflowError):
        return None


def accuracy(records: Sequence[dict[str, Any]]) -> float:
    return sum(r["correct"] for r in records) / len(records) if records else float("nan")


def make_optimizer(model: MWPModel, config: ModelConfig) -> torch.optim.Adam:
    """Adam with the embedder's own learning rate; the fused kernel is ~3.5× faster per step on CPU."""
    embedder_ids = {id(p) for p in model.embedder_parameters}
    return torch.optim.Adam([
        {"params": [p for p in model.parameters() if id(p) not in embedder_ids], "lr": config.lr},
        {"params": model.embedder_parameters, "lr": config.emb_lr}], weight_decay=config.weight_decay, fused=True)


def learning_rate_factor(config: ModelConfig, epochs: int, epoch: int) -> float:
    """The factor on both learning rates in `epoch` (1-based) of a run of `epochs`: halved every
    `config.lr_halving` of the paper's `config.epochs`, a period scaled to the run's length (so a `quick` run
    halves as often, relative to its length, as the paper's)."""
    if config.lr_halving <= 0:
        return 1.0
    period = max(1, round(config.lr_halving * epochs / config.epochs))
    return 0.5 ** ((epoch - 1) // period)


def warmup_factor(config: ModelConfig, step: int) -> float:
    """The factor on both learning rates at optimiser step `step` (0-based, counted over the whole run) of a linear
    warm-up over `config.warmup_steps` (1 without one): a high rate applied to random weights can fix a model in
    a state it never leaves (Table VI's Transformer at 0.003 without it predicted one expression for 100 epochs)."""
    return min(1.0, (step + 1) / config.warmup_steps) if config.warmup_steps > 0 else 1.0


def train_step(model: MWPModel, optimizer: torch.optim.Optimizer, batch: Batch, max_grad_norm: float = 5.0,
               precision: str = "fp32") -> float:
    """One update (gradient norm clipped to `max_grad_norm` unless 0); returns the batch loss, or NaN when the loss
    or the gradient is not finite (the caller stops; no update is made, so the weights stay sound). With
    `precision="bf16"` the forward pass runs under bfloat16 autocast: matrix products in bf16, weights, gradients
    and the update in fp32 (bf16 keeps fp32's exponent range, so no loss scaling is needed)."""
    if precision not in PRECISIONS:
        raise ValueError(f"precision {precision!r}: expected one of {PRECISIONS}")
    device_type = next(model.parameters()).device.type
    with torch.autocast(device_type, dtype=torch.bfloat16, enabled=precision == "bf16"):
        loss = model.loss(batch)
    if not math.isfinite(loss.item()):
        return loss.item()
    optimizer.zero_grad()
    loss.backward()
    norm = torch.nn.utils.clip_grad_norm_(model.parameters(), max_grad_norm if max_grad_norm > 0 else math.inf)
    if not math.isfinite(norm.item()):
        return math.nan
    optimizer.step()
    return loss.item()


def train_model(model: MWPModel, train: Sequence[Problem], test: Sequence[Problem], config: ModelConfig, *,
                epochs: int, seed: int, beam: int, val_fraction: float = 0.1,
                validation: Sequence[Problem] | None = None, patience: int = 0, device: str | None = None,
                progress: bool = True, description: str = "", resume: Path | None = None) -> TrainResult:
    """Train `model` on `train` (minus a validation part carved from it by `val_fraction`, unless `validation`
    is given) for `epochs`, evaluating every epoch; with `patience`
    (and a validation part), stop once validation accuracy has not improved for that many epochs. With `resume`,
    the state after each epoch is saved there, and a run interrupted after epoch k restarts at epoch k + 1
    exactly as if it had not stopped (random generators included)."""
    from tqdm.auto import tqdm

    seed_everything(seed)
    model.to(pick_device(device))
    fit, val = split_validation(train, val_fraction, seed) if validation is None else (list(train), list(validation))
    fit_ex = [model.prepare(p) for p in fit]
    model.embedder.tune_only(ex.inputs for ex in fit_ex)
    val_ex, test_ex = ([model.prepare(p, target=False) for p in part] for part in (val, test))
    max_len = max(len(p.prefix) for p in [*fit, *val]) + 2
    optimizer = make_optimizer(model, config)
    order_rng = random.Random(seed)
    history: list[dict[str, float]] = []
    best: tuple[float, int, list[dict[str, Any]], dict[str, torch.Tensor]] | None = None
    train_seconds = infer_seconds = 0.0
    resumed_after = 0
    if resume is not None and resume.exists():
        saved = torch.load(resume, map_location="cpu", weights_only=False)  # a GPU box's state resumes anywhere
        model.load_state_dict(saved["model"])
        optimizer.load_state_dict(saved["optimizer"])
        order_rng.setstate(saved["order_rng"])
        torch.set_rng_state(saved["torch_rng"])
        if saved["cuda_rng"] is not None and torch.cuda.is_available():
            torch.cuda.set_rng_state_all(saved["cuda_rng"])
        history, best, (train_seconds, infer_seconds) = saved["history"], saved["best"], saved["seconds"]
        resumed_after = len(history)
    for epoch in tqdm(range(len(history) + 1, epochs + 1), desc=description or "epochs", disable=not progress,
                      leave=False, initial=len(history), total=epochs):
        if patience and val and best is not None and epoch - best[1] > patience:
            break
        model.train()
        factor = learning_rate_factor(config, epochs, epoch)
        order = list(range(len(fit_ex)))
        order_rng.shuffle(order)
        started, total = time.perf_counter(), 0.0
        steps_per_epoch = math.ceil(len(order) / config.batch_size)
        for step, start in enumerate(range(0, len(order), config.batch_size)):
            if step == 0 or config.warmup_steps:
                warmup = warmup_factor(config, (epoch - 1) * steps_per_epoch + step)
                for group, base in zip(optimizer.param_groups, (config.lr, config.emb_lr)):
                    group["lr"] = base * factor * warmup
            batch = collate([fit_ex[i] for i in order[start:start + config.batch_size]], model.embedder)
            loss = train_step(model, optimizer, batch.to(next(model.parameters()).device), config.max_grad_norm,
                              config.precision)
            if not math.isfinite(loss):
                raise TrainingDiverged(f"{description}: loss {loss} (or a non-finite gradient) at epoch {epoch}, "
                                       f"batch {step}")
            total += loss * len(batch.ids)
        seconds = time.perf_counter() - started
        train_seconds += seconds
        started = time.perf_counter()
        test_records = score(test, predict(model, test_ex, beam=beam, max_len=max_len))
        val_acc = accuracy(score(val, predict(model, val_ex, beam=beam, max_len=max_len))) if val else float("nan")
        infer_seconds += time.perf_counter() - started
        history.append({"epoch": epoch, "loss": total / len(fit_ex), "seconds": seconds,
                        "val_accuracy": val_acc, "test_accuracy": accuracy(test_records)})
        selection = val_acc if val else float(epoch)  # without validation: the last epoch
        if best is None or selection > best[0]:
            best = (selection, epoch, test_records, copy.deepcopy(model.state_dict()))
        if resume is not None:
            _save_atomically({"model": model.state_dict(), "optimizer": optimizer.state_dict(), "history": history,
                              "best": best, "order_rng": order_rng.getstate(), "torch_rng": torch.get_rng_state(),
                              "cuda_rng": torch.cuda.get_rng_state_all() if torch.cuda.is_available() else None,
                              "seconds": (train_seconds, infer_seconds)}, resume)
    assert best is not None, "epochs must be >= 1"
    peer = max(history, key=lambda h: (h["test_accuracy"], -h["epoch"]))
    return TrainResult(history, best[1], accuracy(best[2]), int(peer["epoch"]), peer["test_accuracy"], best[2],
                       train_problems_per_s=len(fit_ex) * len(history) / train_seconds,
                       infer_problems_per_s=(len(test_ex) + len(val_ex)) * len(history) / infer_seconds,
                       state=best[3], resumed_after=resumed_after)


def _save_atomically(state: dict[str, Any], path: Path) -> None:
    """A kill mid-save leaves the previous epoch's state intact; two processes on one run never share a file."""
    write_atomically(path, lambda out: torch.save(state, out))
