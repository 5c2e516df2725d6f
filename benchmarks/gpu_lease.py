"""Train notebook 06's `full` member runs side by side on a lent GPU until a deadline, and measure the card.

    python benchmarks/gpu_lease.py --deadline 480 Transformer:transformer:mawps-iid MathEN:convs2s:mawps-comdiv ...

Each METHOD:MODEL:DATASET is one member run of a Table II cell (`compositional.training.spec`), trained in its own
one-thread process (`runs.run`: the record lands atomically when the run ends, exactly as on a CPU). At the
deadline the unfinished ones are stopped; `build/lease/summary.json` then says, per run, whether it was recorded
and the wall seconds per epoch it showed side by side (from its resume state), and `build/lease/gpu.csv` holds
nvidia-smi's utilisation every 5 s. Those per-epoch times under load are what a whole-grid estimate needs
(`--plan-device cuda` times runs by recorded ones, which ran side by side too). A lease is short, and the
state of an unfinished run (~240 MB) is too big to bring back, so choose runs that end inside the deadline.
The lent machines' image has neither spaCy nor jieba: the DBCA splits load from results/splits/ without them,
but building an SD set needs spaCy (its English model too big to carry), so SD cells train elsewhere.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from mwplib import paths, runs  # noqa: E402
from mwplib.compositional import datasets, experiments, training  # noqa: E402
from mwplib.profiles import get_profile  # noqa: E402


def _member(label: str, profile_name: str) -> tuple[Any, list, list, list]:
    """The spec of one member run and the problems it sees (MathEN's normalised), from METHOD:MODEL:DATASET."""
    method, model, dataset = label.split(":")
    pool, name = dataset.split("-", 1)
    profile = get_profile(profile_name)
    split = experiments.sd_split(name) if pool == "sd" else datasets.as_split(pool, name, 0)
    train, validation, test = experiments._limited(split, profile)
    train, validation, test = training._as_seen(method, train, validation, test)
    return training.spec(method, model, dataset, profile), train, validation, test


def train_one(label: str, profile_name: str) -> None:
    spec, train, validation, test = _member(label, profile_name)
    runs.run(spec, train, test, get_profile(profile_name), progress=False, validation=validation)


def progress(label: str, profile_name: str, started: float) -> dict[str, Any]:
    """Whether the run is recorded, and the epochs and wall seconds per epoch it has saved so far (for an
    unfinished run: from the lease's start to its last saved epoch, so its start-up counts in)."""
    spec, train, validation, test = _member(label, profile_name)
    profile = get_profile(profile_name)
    record = runs.recorded(spec, train, test, profile, validation)
    if record is not None:
        history = record["history"]
        return {"recorded": True, "epochs": len(history), "wall_seconds": record["timing"]["wall_seconds"],
                "seconds_per_epoch": runs.epoch_seconds(record), "n_train": record["n_train"]}
    key = spec.key(runs._profiled(train, test, profile, validation)[2])
    path = runs.resume_path(key)
    if not path.exists():
        return {"recorded": False, "epochs": 0}
    import torch

    history = torch.load(path, map_location="cpu", weights_only=False)["history"]
    return {"recorded": False, "epochs": len(history), "n_train": len(train),
            "train_seconds_per_epoch": sum(h["seconds"] for h in history) / len(history),
            "seconds_per_epoch": (path.stat().st_mtime - started) / len(history)}


def _progress_or_error(label: str, profile_name: str, started: float) -> dict[str, Any]:
    """:func:`progress`, or the error that stopped it: one run that cannot be read (its worker failed on
    the same error, say a package the card's machine lacks) must not cost the summary of the others."""
    try:
        return progress(label, profile_name, started)
    except Exception as error:  # noqa: BLE001 (reported in the summary, beside its worker's log)
        return {"error": f"{type(error).__name__}: {error}"}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("runs", nargs="+", metavar="METHOD:MODEL:DATASET")
    parser.add_argument("--deadline", type=float, default=480, help="seconds from now to stop unfinished runs")
    parser.add_argument("--profile", default="full")
    parser.add_argument("--one", action="store_true", help=argparse.SUPPRESS)  # a worker: train runs[0]
    args = parser.parse_args()
    if args.one:
        train_one(args.runs[0], args.profile)
        return
    out = paths.BUILD / "lease"
    out.mkdir(parents=True, exist_ok=True)
    started = time.time()
    smi = shutil.which("nvidia-smi") and subprocess.Popen(["nvidia-smi", "--query-gpu=timestamp,utilization.gpu,memory.used",
                            "--format=csv,noheader", "-l", "5"], stdout=open(out / "gpu.csv", "w"),
                           stderr=subprocess.DEVNULL)
    env = {**os.environ, "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
    workers = {label: subprocess.Popen([sys.executable, __file__, "--one", "--profile", args.profile, label],
                                       stdout=open(out / f"{label.replace(':', '-')}.log", "w"),
                                       stderr=subprocess.STDOUT, env=env)
               for label in args.runs}
    ended: dict[str, float] = {}
    while len(ended) < len(workers) and time.time() - started < args.deadline:
        for label, worker in workers.items():
            if label not in ended and worker.poll() is not None:
                ended[label] = time.time() - started
                print(f"{label}: exit {worker.returncode} after {ended[label]:.0f} s", flush=True)
        time.sleep(2)
    for label, worker in workers.items():
        if worker.poll() is None:
            worker.terminate()
            worker.wait()
    if smi:
        smi.terminate()
    summary = {"elapsed_seconds": time.time() - started, "side_by_side": len(workers),
               "runs": {label: {**_progress_or_error(label, args.profile, started),
                                "ended_after_seconds": ended.get(label), "exit": workers[label].returncode}
                        for label in args.runs}}
    (out / "summary.json").write_text(json.dumps(summary, indent=1) + "\n")
    print(json.dumps(summary, indent=1))


if __name__ == "__main__":
    main()
