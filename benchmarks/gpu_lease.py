"""Train notebook 06's `full` member runs side by side on a lent GPU until a deadline, and measure the card.

    python benchmarks/gpu_lease.py --deadline 480 Transformer:transformer:mawps-iid MathEN:convs2s:mawps-comdiv ...

Each METHOD:MODEL:DATASET is one member run of a Table II cell (`compositional.training.spec`), trained in its own
one-thread process (`runs.run`: the record lands atomically when the run ends, exactly as on a CPU). At the
deadline the unfinished ones are stopped; `build/lease/summary.json` then says, per run, whether it was recorded
and the wall seconds per epoch it showed side by side (from its record, or its resume state), and
`build/lease/gpu.csv` holds nvidia-smi's utilisation every 5 s. A run's record keeps those per-epoch times, which
`--plan --plan-device cuda` estimates a grid by; they are times under this lease's load, not alone. A lease is short, and the
state of an unfinished run (~240 MB) is too big to bring back, so choose runs that end inside the deadline.
The lent machines' image has neither spaCy nor jieba: the DBCA splits load from results/splits/ without them,
but building an SD set needs spaCy (its English model too big to carry), so SD cells train elsewhere.
"""
from __future__ import annotations

import argparse
import contextlib
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


def progress(label: str, profile_name: str, started: float, before: dict[str, Any] | None = None) -> dict[str, Any]:
    """Whether the run is recorded (and was before the lease, per `before`: this function's answer at its
    start), the epochs it has, and the wall seconds per epoch it ran here: a record's `runs.epoch_seconds`, or
    for an unfinished run the lease's time to its last saved epoch over the epochs added since (start-up
    counts in)."""
    spec, train, validation, test = _member(label, profile_name)
    profile = get_profile(profile_name)
    train, test, checksum = runs._profiled(train, test, profile, validation)
    record = runs.recorded(spec, train, test, profile, validation)
    if record is not None:
        return {"recorded": True, "recorded_before_lease": bool(before and before.get("recorded")),
                "epochs": len(record["history"]), "wall_seconds": record["timing"]["wall_seconds"],
                "seconds_per_epoch": runs.epoch_seconds(record), "n_train": record["n_train"]}
    path = runs.resume_path(spec.key(checksum))
    if not path.exists():
        return {"recorded": False, "epochs": 0, "n_train": len(train)}
    import torch

    history = torch.load(path, map_location="cpu", weights_only=False)["history"]
    added = len(history) - (before or {}).get("epochs", 0)
    return {"recorded": False, "epochs": len(history), "n_train": len(train),
            "train_seconds_per_epoch": sum(h["seconds"] for h in history) / len(history),
            "lease_wall_seconds_per_epoch": (path.stat().st_mtime - started) / added if added > 0 else None}


def _progress_or_error(label: str, profile_name: str, started: float, before: dict[str, Any] | None = None
                       ) -> dict[str, Any]:
    """:func:`progress`, or the error that stopped it: one run that cannot be read (its worker failed on
    the same error, say a package the card's machine lacks) must not cost the summary of the others."""
    try:
        return progress(label, profile_name, started, before)
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
    before = {label: _progress_or_error(label, args.profile, started) for label in args.runs}
    env = {**os.environ, "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
    with contextlib.ExitStack() as files:
        smi = shutil.which("nvidia-smi") and subprocess.Popen(
            ["nvidia-smi", "--query-gpu=timestamp,utilization.gpu,memory.used", "--format=csv,noheader", "-l", "5"],
            stdout=files.enter_context(open(out / "gpu.csv", "w")), stderr=subprocess.DEVNULL)
        workers = {label: subprocess.Popen(
            [sys.executable, __file__, "--one", "--profile", args.profile, label],
            stdout=files.enter_context(open(out / f"{label.replace(':', '-')}.log", "w")), stderr=subprocess.STDOUT,
            env=env) for label in args.runs}
        ended: dict[str, float] = {}

        def poll() -> None:
            for label, worker in workers.items():
                if label not in ended and worker.poll() is not None:
                    ended[label] = time.time() - started
                    print(f"{label}: exit {worker.returncode} after {ended[label]:.0f} s", flush=True)

        while len(ended) < len(workers) and time.time() - started < args.deadline:
            poll()
            time.sleep(2)
        poll()  # one that ended in the last sleep
        for worker in workers.values():
            if worker.poll() is None:
                worker.terminate()
                worker.wait()
        if smi:
            smi.terminate()
            smi.wait()
    summary = {"elapsed_seconds": time.time() - started, "side_by_side": len(workers),
               "runs": {label: {**_progress_or_error(label, args.profile, started, before[label]),
                                "ended_after_seconds": ended.get(label), "exit": workers[label].returncode}
                        for label in args.runs}}
    (out / "summary.json").write_text(json.dumps(summary, indent=1) + "\n")
    print(json.dumps(summary, indent=1))


if __name__ == "__main__":
    main()
