"""Train notebook 07's `full` member runs side by side on a lent GPU until a deadline, and measure the card.

    python benchmarks/gpu_lease.py --deadline 480 --bundle $OUT Transformer:transformer:mawps-iid GTS:gts:sd-zh ...

Each METHOD:MODEL:DATASET is one member run of a Table II cell (`compositional.training.spec`), trained in its own
one-thread process (`runs.run`: the record lands atomically when the run ends, exactly as on a CPU). At the
deadline the unfinished ones are stopped; `build/lease/summary.json` then says, per run, whether it was recorded
and the wall seconds per epoch it showed side by side (from its record, or its resume state), and
`build/lease/gpu.csv` holds nvidia-smi's utilisation every 5 s. A run's record keeps those per-epoch times, which
`--plan --plan-device cuda` estimates a grid by; they are times under this lease's load, not alone. A lease is short,
and the state of an unfinished run (~240 MB) is too big to bring back, so choose runs that end inside the deadline.
The lent machines' image has neither spaCy nor jieba: the DBCA splits load from results/splits/ without them,
but building an SD set needs spaCy (its English model too big to carry). So build the SD sets here and carry them:

    python benchmarks/gpu_lease.py --write-sd build/sd zh en     # here: pickles of the SD splits (a few MB)
    python benchmarks/gpu_lease.py --sd-from build/sd ... sd-zh  # there, with build/sd carried

A run's key hashes its problems, so a run on a carried SD set lands under the key it has here.
Bring the records back in the same call: the device tool copies the working tree again at every call, and a record
left under results/ there (a path this checkout lacks) is gone by the next one (a lease lost 15 records so).
`--bundle $OUT` packs the records this lease made (`records.tgz`, paths from the repository root) and its logs,
summary and utilisation (`lease.tgz`); unpack them here with `tar xzf records.tgz --skip-old-files`.
With `--side-by-side N` at most N runs train at once, the rest queued in the order given; a queued run starts only
while at least `--min-left` seconds remain before the deadline (the first starts regardless).
"""
from __future__ import annotations

import argparse
import contextlib
import json
import os
import pickle
import shutil
import signal
import subprocess
import sys
import tarfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from mwplib import paths, runs  # noqa: E402
from mwplib.compositional import datasets, grid, sd, training  # noqa: E402
from mwplib.problem import Split  # noqa: E402
from mwplib.profiles import get_profile  # noqa: E402


def write_sd(directory: Path, languages: list[str]) -> None:
    """Pickle each SD split (`sd.sd_split`) to DIRECTORY/sd-LANG.pkl, for a machine without spaCy."""
    directory.mkdir(parents=True, exist_ok=True)
    for language in languages:
        split = sd.sd_split(language)
        (directory / f"sd-{language}.pkl").write_bytes(pickle.dumps(split))
        print(f"sd-{language}: {len(split.train)} train, {len(split.dev)} validation, {len(split.test)} test")


def _sd_split(name: str, sd_from: Path | None) -> Split:
    """An SD split, built here or read from what `write_sd` pickled (our own file, carried with the tree)."""
    if sd_from is None:
        return sd.sd_split(name)
    split = pickle.loads((sd_from / f"sd-{name}.pkl").read_bytes())
    if not isinstance(split, Split):
        raise TypeError(f"{sd_from / f'sd-{name}.pkl'}: not a Split but a {type(split).__name__}")
    return split


def _member(label: str, profile_name: str, sd_from: Path | None = None) -> tuple[Any, list, list, list]:
    """The spec of one member run and the problems it sees (MathEN's normalised), from METHOD:MODEL:DATASET."""
    method, model, dataset = label.split(":")
    pool, name = dataset.split("-", 1)
    profile = get_profile(profile_name)
    split = _sd_split(name, sd_from) if pool == "sd" else datasets.as_split(pool, name, 0)
    train, validation, test = grid.limited(split, profile)
    train, validation, test = training._as_seen(method, train, validation, test)
    return training.spec(method, model, dataset, profile), train, validation, test


def train_one(label: str, profile_name: str, sd_from: Path | None = None) -> None:
    spec, train, validation, test = _member(label, profile_name, sd_from)
    runs.run(spec, train, test, get_profile(profile_name), progress=False, validation=validation)


def progress(label: str, profile_name: str, started: float, before: dict[str, Any] | None = None,
             sd_from: Path | None = None) -> dict[str, Any]:
    """Whether the run is recorded (and was before the lease, per `before`: this function's answer at its
    start), the epochs it has, and the wall seconds per epoch it ran here: a record's `runs.epoch_seconds`, or
    for an unfinished run the time from its start (`started`) to its last saved epoch over the epochs added
    since (start-up counts in)."""
    spec, train, validation, test = _member(label, profile_name, sd_from)
    profile = get_profile(profile_name)
    train, test, checksum = runs._profiled(train, test, profile, validation)
    key = spec.key(checksum)
    record = runs.recorded(spec, train, test, profile, validation)
    if record is not None:
        return {"key": key, "recorded": True, "record": str(runs.run_path(spec, key, profile).relative_to(ROOT)),
                "recorded_before_lease": bool(before and before.get("recorded")),
                "epochs": len(record["history"]), "wall_seconds": record["timing"]["wall_seconds"],
                "seconds_per_epoch": runs.epoch_seconds(record), "n_train": record["n_train"]}
    path = runs.resume_path(key)
    if not path.exists():
        return {"key": key, "recorded": False, "epochs": 0, "n_train": len(train)}
    import torch

    history = torch.load(path, map_location="cpu", weights_only=False)["history"]
    added = len(history) - (before or {}).get("epochs", 0)
    return {"key": key, "recorded": False, "epochs": len(history), "n_train": len(train),
            "train_seconds_per_epoch": sum(h["seconds"] for h in history) / len(history),
            "lease_wall_seconds_per_epoch": (path.stat().st_mtime - started) / added if added > 0 else None}


def _progress_or_error(label: str, profile_name: str, started: float, before: dict[str, Any] | None = None,
                       sd_from: Path | None = None) -> dict[str, Any]:
    """:func:`progress`, or the error that stopped it: one run that cannot be read (its worker failed on
    the same error, say a package the card's machine lacks) must not cost the summary of the others."""
    try:
        return progress(label, profile_name, started, before, sd_from)
    except Exception as error:  # noqa: BLE001 (reported in the summary, beside its worker's log)
        return {"error": f"{type(error).__name__}: {error}"}


def _distinct_runs(before: dict[str, dict[str, Any]]) -> list[str]:
    """The labels to train, one per run: a label whose run another label already names (MathEN's Seq2Seq member
    on SD is the LSTM run itself) is left out with a message, since two workers on one run only race."""
    first: dict[str, str] = {}
    for label, report in before.items():
        key = report.get("key", label)  # a label that cannot be read runs, and its worker's log says why
        if key in first:
            print(f"{label}: the same run as {first[key]} (key {key}); not trained twice", flush=True)
        else:
            first[key] = label
    return list(first.values())


def bundle(summary: dict[str, Any], lease: Path, directory: Path) -> list[str]:
    """Pack the records this lease made into DIRECTORY/records.tgz and the lease's folder (logs, summary,
    utilisation) into DIRECTORY/lease.tgz, each path relative to the repository root; the records' paths."""
    made = [report["record"] for report in summary["runs"].values()
            if report.get("recorded") and not report.get("recorded_before_lease")]
    directory.mkdir(parents=True, exist_ok=True)
    with tarfile.open(directory / "records.tgz", "w:gz") as records:
        for path in made:
            records.add(ROOT / path, arcname=path)
    with tarfile.open(directory / "lease.tgz", "w:gz") as logs:
        logs.add(lease, arcname=str(lease.relative_to(ROOT)))
    return made


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("runs", nargs="*", metavar="METHOD:MODEL:DATASET")
    parser.add_argument("--deadline", type=float, default=480, help="seconds from now to stop unfinished runs")
    parser.add_argument("--profile", default="full")
    parser.add_argument("--side-by-side", type=int, default=0, help="at most this many runs at once (0: all)")
    parser.add_argument("--min-left", type=float, default=0,
                        help="start a queued run only while this many seconds remain before the deadline")
    parser.add_argument("--sd-from", type=Path, help="read SD splits from what --write-sd pickled there")
    parser.add_argument("--write-sd", type=Path, metavar="DIR",
                        help="build the SD splits of the languages given as positionals (zh, en) into DIR, and stop")
    parser.add_argument("--bundle", type=Path, metavar="DIR",
                        help="at the end, pack the records this lease made and its logs into DIR (the device's $OUT)")
    parser.add_argument("--one", action="store_true", help=argparse.SUPPRESS)  # a worker: train runs[0]
    args = parser.parse_args()
    if args.write_sd:
        write_sd(args.write_sd, args.runs)
        return
    if not args.runs:
        parser.error("name at least one METHOD:MODEL:DATASET")
    if args.side_by_side < 0 or args.min_left >= args.deadline:
        parser.error("--side-by-side must be >= 0 and --min-left below --deadline")
    if args.one:  # a terminated worker unwinds, so a resume state it was writing leaves no temporary file
        signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
        train_one(args.runs[0], args.profile, args.sd_from)
        return
    out = paths.BUILD / "lease"
    out.mkdir(parents=True, exist_ok=True)
    started = time.time()
    before = {label: _progress_or_error(label, args.profile, started, sd_from=args.sd_from)
              for label in dict.fromkeys(args.runs)}
    labels = _distinct_runs(before)
    env = {**os.environ, "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
    sd_args = ["--sd-from", str(args.sd_from)] if args.sd_from else []
    queue, workers, launched, ended = labels, {}, {}, {}
    with contextlib.ExitStack() as files:
        smi = shutil.which("nvidia-smi") and subprocess.Popen(
            ["nvidia-smi", "--query-gpu=timestamp,utilization.gpu,memory.used", "--format=csv,noheader", "-l", "5"],
            stdout=files.enter_context(open(out / "gpu.csv", "w")), stderr=subprocess.DEVNULL)

        def launch() -> None:
            while queue and (not args.side_by_side or len(workers) - len(ended) < args.side_by_side) and (
                    not workers or args.deadline - (time.time() - started) >= args.min_left):
                label = queue.pop(0)
                launched[label] = time.time()
                workers[label] = subprocess.Popen(
                    [sys.executable, __file__, "--one", "--profile", args.profile, *sd_args, label],
                    stdout=files.enter_context(open(out / f"{label.replace(':', '-')}.log", "w")),
                    stderr=subprocess.STDOUT, env=env)

        def poll() -> None:
            for label, worker in workers.items():
                if label not in ended and worker.poll() is not None:
                    ended[label] = time.time() - started
                    print(f"{label}: exit {worker.returncode}, {ended[label]:.0f} s into the lease", flush=True)

        launch()
        while len(ended) < len(workers) and time.time() - started < args.deadline:
            poll()
            launch()
            time.sleep(2)
        poll()  # one that ended in the last sleep
        for worker in workers.values():
            if worker.poll() is None:
                worker.terminate()
                worker.wait()
        if smi:
            smi.terminate()
            smi.wait()
    summary = {"elapsed_seconds": time.time() - started, "side_by_side": min(args.side_by_side or len(workers),
                                                                           len(workers)),
               "never_started": queue,
               "runs": {label: {**_progress_or_error(label, args.profile, launched[label], before[label], args.sd_from),
                                "started_after_seconds": launched[label] - started,
                                "ended_after_seconds": ended.get(label), "exit": workers[label].returncode}
                        for label in workers}}
    (out / "summary.json").write_text(json.dumps(summary, indent=1) + "\n")
    print(json.dumps(summary, indent=1))
    if args.bundle:
        made = bundle(summary, out, args.bundle)
        print(f"{len(made)} records packed into {args.bundle / 'records.tgz'}", flush=True)


if __name__ == "__main__":
    main()
