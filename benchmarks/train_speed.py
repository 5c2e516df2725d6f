"""Training and inference throughput of every solver (problems/s, seconds per epoch).

Reference points (issue 3, this 2-core CPU, ASDiv-A fold 0, scratch embeddings, 2 threads): GTS 26/s
(MWPToolkit, batch 64, hidden 512), Seq2Seq 37/s (SVAMP code, batch 8, hidden 256, 2 layers),
Graph2Tree 22/s (SVAMP code, batch 8, hidden 384). Usage:

    .venv/bin/python benchmarks/train_speed.py --models gts --batch-size 64 --threads 2
    .venv/bin/python benchmarks/train_speed.py --models gts --embedding minilm --precision bf16

With a pretrained `--embedding` the paper's R config is timed (its own hidden size and batch), not the reference's.
"""
from __future__ import annotations

import argparse
import os
import platform
import random
import statistics
import time
from dataclasses import replace

import torch

from mwplib.data import load_cv
from mwplib.models import build_model, paper_config
from mwplib.models.base import collate
from mwplib.models.encoder import RNNEncoder
from mwplib.repro import device_name, seed_everything
from mwplib.train import PRECISIONS, accuracy, make_optimizer, pick_device, predict, score, train_step

#: Sizes the reference measurements used, per model (hidden, batch size).
REFERENCE = {"seq2seq": (256, 8), "gts": (512, 64), "graph2tree": (384, 8), "transformer": (256, 8),
             "constrained": (256, 8)}
#: `--bucketed chunks`: batches re-drawn each epoch among neighbours in length, from shuffled chunks of this many
#: batches (large enough to pad little, small enough that a batch's company changes from epoch to epoch)
CHUNK = 8


def matmul_peak_gflops(device: torch.device, size: int = 2048, repeats: int = 5) -> float:
    """fp32 GEMM throughput of the device that trains (at the current thread count on a CPU): the ceiling for
    the LSTM encoders."""
    a, b = torch.randn(size, size, device=device), torch.randn(size, size, device=device)
    a @ b
    sync = torch.cuda.synchronize if device.type == "cuda" else (lambda: None)
    sync()
    started = time.perf_counter()
    for _ in range(repeats):
        a @ b
    sync()
    return 2 * size ** 3 * repeats / (time.perf_counter() - started) / 1e9


def encoder_gflop(model: torch.nn.Module, examples: list) -> float:
    """Multiply-adds of the bidirectional RNN encoder over one epoch's real tokens, forward + backward (≈3×
    forward), in GFLOP; 0 for models without one. Padding is not counted: this is the work any implementation must
    do. An LSTM has 4 gates, a GRU 3."""
    encoder = getattr(model, "encoder", None)
    if not isinstance(encoder, RNNEncoder):
        return 0.0
    rnn, tokens, gates = encoder.rnn, sum(e.n_words for e in examples), 4 if encoder.cell == "lstm" else 3
    per_token = sum(2 * gates * rnn.hidden_size * (rnn.input_size if layer == 0 else 2 * rnn.hidden_size)
                    + 2 * gates * rnn.hidden_size * rnn.hidden_size for layer in range(rnn.num_layers))
    return 3 * 2 * per_token * tokens / 1e9  # 2 directions; 2 FLOP per multiply-add; ×3 for backward


def measure(name: str, batch_size: int | None, epochs: int, beam: int, dataset: str, device: str | None,
            embedding: str = "scratch", precision: str = "fp32", fold: int = 0, bucketed: str = "",
            cell: str = "lstm") -> dict[str, float]:
    seed_everything(1)
    split = load_cv(dataset)[fold]
    config = replace(paper_config(name, embedding), precision=precision)
    if cell != "lstm":
        config = replace(config, encoder_cell=cell)  # GTS's field; other models refuse it by name
    if embedding == "scratch":
        hidden, ref_batch = REFERENCE[name]
        config = replace(config, hidden=hidden, batch_size=batch_size or ref_batch)
    elif batch_size:
        config = replace(config, batch_size=batch_size)
    target = pick_device(device)
    model = build_model(name, config, split.train).to(target)
    examples = [model.prepare(p) for p in split.train]
    model.embedder.tune_only(e.inputs for e in examples)
    optimizer = make_optimizer(model, config)
    model.train()
    order, shuffle = list(range(len(examples))), random.Random(1).shuffle
    def cut(ids: list[int], size: int) -> list[list[int]]:
        return [ids[start:start + size] for start in range(0, len(ids), size)]

    def by_length(ids: list[int]) -> list[int]:
        return sorted(ids, key=lambda i: examples[i].n_words)

    fixed = cut(by_length(order), config.batch_size)  # --bucketed fixed: the same batches of similar lengths
    epoch_seconds = []
    for _ in range(epochs):  # shuffled every epoch, as `train_model` and the peers do; collating is timed too
        started = time.perf_counter()
        if bucketed == "fixed":
            shuffle(fixed)
            batches = fixed
        elif bucketed == "chunks":  # each shuffled chunk of CHUNK batches sorted by length, cut, batches shuffled
            shuffle(order)
            order = [i for chunk in cut(order, CHUNK * config.batch_size) for i in by_length(chunk)]
            batches = cut(order, config.batch_size)
            shuffle(batches)
        else:
            shuffle(order)
            batches = cut(order, config.batch_size)
        for ids in batches:
            batch = collate([examples[i] for i in ids], model.embedder)
            train_step(model, optimizer, batch.to(target), precision=precision)
        epoch_seconds.append(time.perf_counter() - started)
    steady = epoch_seconds[1:] or epoch_seconds  # the first epoch allocates and picks kernels
    train_seconds = statistics.median(steady)
    test = [model.prepare(p, target=False) for p in split.test]
    started = time.perf_counter()
    predictions = predict(model, test, beam=beam, max_len=max(len(p.prefix) for p in split.train) + 2)
    infer_seconds = time.perf_counter() - started
    return {"batch": config.batch_size, "hidden": config.hidden, "seconds_per_epoch": train_seconds,
            "epoch_range": (min(steady), max(steady)), "test_accuracy": accuracy(score(split.test, predictions)),
            "encoder_gflop": encoder_gflop(model, examples),
            "train_problems_per_s": len(examples) / train_seconds, "infer_problems_per_s": len(test) / infer_seconds}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", nargs="+", default=list(REFERENCE))
    parser.add_argument("--batch-size", type=int, default=None, help="default: the reference's batch size")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--epochs", type=int, default=3,
                        help="epochs trained; the median of all but the first is reported (epochs on a shared machine "
                             "vary by 10-20 %%), and test accuracy after the last")
    parser.add_argument("--beam", type=int, default=5)
    parser.add_argument("--dataset", default="asdiv-a")
    parser.add_argument("--device", default=None)
    parser.add_argument("--embedding", default="scratch", help="scratch (S) or a pretrained encoder, e.g. minilm")
    parser.add_argument("--precision", default="fp32", choices=PRECISIONS, help="of the training forward pass")
    parser.add_argument("--bucketed", choices=["fixed", "chunks"], default="",
                        help="batches of problems of similar length, a probe (other batches than `train_model` forms): "
                             "fixed ones, their order shuffled each epoch, or re-drawn each epoch by sorting shuffled "
                             f"chunks of {CHUNK} batches by length")
    parser.add_argument("--cell", choices=["lstm", "gru"], default="lstm",
                        help="GTS's encoder cell (gru: MWPToolkit's and the original GTS's; a labelled variant)")
    parser.add_argument("--folds", type=int, nargs="+", default=[0],
                        help="cross-validation folds, each measured from the same seed (e.g. 0 1 2 3 4 to compare "
                             "precisions' accuracy fold by fold)")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    peak = matmul_peak_gflops(pick_device(args.device))
    print(f"machine: {platform.platform()}, {os.cpu_count()} CPUs, device {device_name()}, "
          f"torch threads {torch.get_num_threads()}, dataset {args.dataset}, embedding {args.embedding}, "
          f"training precision {args.precision}{f', length-bucketed batches ({args.bucketed})' if args.bucketed else ''}, "
          f"encoder cell {args.cell}, "
          f"fp32 matmul peak {peak:.0f} GFLOP/s")
    for name, fold in ((name, fold) for name in args.models for fold in args.folds):
        row = measure(name, args.batch_size, args.epochs, args.beam, args.dataset, args.device, args.embedding,
                      args.precision, fold, args.bucketed, args.cell)
        print(f"{name:12s} fold {fold} batch {row['batch']:3d} hidden {row['hidden']:3d}: "
              f"train {row['train_problems_per_s']:7.1f} problems/s ({row['seconds_per_epoch']:6.1f} s/epoch, "
              f"{row['epoch_range'][0]:.1f}-{row['epoch_range'][1]:.1f} after the first), "
              f"inference (beam {args.beam}) {row['infer_problems_per_s']:7.1f} problems/s, "
              f"test accuracy after {args.epochs} epochs {100 * row['test_accuracy']:.1f} %")
        if row["encoder_gflop"]:
            floor = row["encoder_gflop"] / peak
            print(f"{'':12s} Bi{args.cell.upper()} encoder: {row['encoder_gflop']:.0f} GFLOP/epoch, "
                  f"at least {floor:.1f} s/epoch "
                  f"at the matmul peak ({100 * floor / row['seconds_per_epoch']:.0f} % of the measured epoch)")


if __name__ == "__main__":
    main()
