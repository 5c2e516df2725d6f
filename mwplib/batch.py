"""Train what a grid lacks from the command line (``python -m mwplib.batch``), so the notebooks then render it in
seconds: one run after another, `--jobs N` one-thread processes side by side (a GPU or many-core box) or Ray tasks
(`--backend ray`, `mwplib.distributed`). Kept out of `mwplib.runs`, which `mwplib.transfer` builds on: a run
evaluated without questions as soon as it is trained (`--without-questions`) needs both.
"""
from __future__ import annotations

import argparse
import ast
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Sequence

from . import paths
from .problem import Split
from .profiles import PROFILES, Profile, get_profile
from .run_spec import RunSpec
from .runs import (_grid, dataset_key, dataset_splits, embedding_label, iter_grid, plan, recorded, run,
                   run_label)
from .transfer import QUESTION_REMOVED, MissingWeights, evaluate_without_questions


def _unrecorded(args: Any, profile: Profile, grid: dict[str, Sequence[Split]], overrides: dict[str, Any]
                ) -> list[tuple[RunSpec, Split]]:
    """The runs of the command line's grid not recorded yet (what `--jobs` and `--backend ray` train)."""
    return [(spec, split) for spec, split in _grid(args.models, args.embeddings, grid, profile, args.seed, overrides,
                                                  args.folds, args.val_fraction)
            if recorded(spec, split.train, split.test, profile) is None]


def run_parallel(args: Any, profile: Profile, grid: dict[str, Sequence[Split]], overrides: dict[str, Any]) -> int:
    """Train each unrecorded run of the grid in its own process, `args.jobs` at a time, one CPU thread each:
    on a many-core or GPU box small solvers train best side by side. Each run logs to build/logs/ and, with
    `--without-questions`, is evaluated so as soon as it is trained (a lease may end before the grid does).
    Returns how many runs failed."""
    todo = [spec for spec, _ in _unrecorded(args, profile, grid, overrides)]
    logs = paths.BUILD / "logs"
    logs.mkdir(parents=True, exist_ok=True)
    named = {dataset_key(name): name for name in args.datasets}  # your own file travels by its path

    def train(spec: RunSpec) -> bool:
        name = f"{spec.model}-{spec.config.embedding}-{spec.dataset}-{spec.fold}" + (
            f"-val{spec.val_fraction:g}" if spec.val_fraction != RunSpec.val_fraction else "")
        command = [sys.executable, "-m", "mwplib.batch", "--profile", profile.name, "--models", spec.model,
                   "--embeddings", spec.config.embedding, "--datasets", named[spec.dataset], "--folds", str(spec.fold),
                   "--seed", str(args.seed), "--val-fraction", str(args.val_fraction),
                   *(["--without-questions"] if args.without_questions else []),
                   *(["--set", *args.set] if args.set else [])]
        with open(logs / f"{profile.name}-{name}.log", "w") as log:
            code = subprocess.run(command, stdout=log, stderr=subprocess.STDOUT,
                                  env={**os.environ, "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}).returncode
        print(f"{name}: {'done' if code == 0 else f'FAILED (exit {code}), see {log.name}'}", flush=True)
        return code == 0

    print(f"{len(todo)} runs to train, {args.jobs} at a time; logs in {logs}", flush=True)
    with ThreadPoolExecutor(args.jobs) as pool:
        return sum(not ok for ok in pool.map(train, todo))


def train_recorded(spec: RunSpec, split: Split, profile: Profile) -> str:
    """Train (or find) one run and say where its record is: what a Ray task runs (`mwplib.distributed`)."""
    record = run(spec, split.train, split.test, profile, progress=False)
    return f"{100 * record['metrics']['test_accuracy']:.1f} %, recorded as {record['key']}"


def run_on_ray(args: Any, profile: Profile, grid: dict[str, Sequence[Split]], overrides: dict[str, Any]) -> int:
    """Each unrecorded run of the grid as a Ray task (``--backend ray``); returns how many failed."""
    from .distributed import run_on_ray as submit

    tasks = [(f"{spec.model} {embedding_label(spec.config.embedding)} {spec.dataset} fold {spec.fold}", train_recorded,
              (spec, split, profile)) for spec, split in _unrecorded(args, profile, grid, overrides)]
    return submit(tasks, address=args.address, cpus_per_task=args.cpus_per_run, gpus_per_task=args.gpus_per_run,
                  num_cpus=args.jobs if args.address is None else None)


def main(argv: Sequence[str] | None = None) -> None:
    """Train whatever of a grid is not recorded yet (the notebooks then render it in seconds), e.g. on a GPU box:
    ``python -m mwplib.batch --profile full --models gts graph2tree --embeddings scratch minilm --jobs 12``."""
    parser = argparse.ArgumentParser(description=main.__doc__.splitlines()[0])
    parser.add_argument("--profile", default="quick", choices=sorted(PROFILES))
    parser.add_argument("--models", nargs="+", default=["seq2seq", "gts", "graph2tree", "transformer"])
    parser.add_argument("--embeddings", nargs="+", default=["scratch"])
    parser.add_argument("--datasets", nargs="+", default=["mawps", "asdiv-a"],
                        help="shipped datasets by name, or your own .jsonl/.csv files (README: I have my own data)")
    parser.add_argument("--folds", nargs="+", type=int, default=None, help="only these of the profile's folds")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--val-fraction", type=float, default=RunSpec.val_fraction,
                        help="validation part of each training fold; 0 = the paper's protocol (whole fold)")
    parser.add_argument("--set", nargs="+", default=[], metavar="FIELD=VALUE",
                        help="override a config field with a Python literal, e.g. --set emb_lr=5e-5 (a probe)")
    parser.add_argument("--plan", action="store_true",
                        help="train nothing: list the runs not recorded yet, with a rough time for each")
    parser.add_argument("--plan-device", default=None, help="with --plan: time by runs recorded on cpu or cuda")
    parser.add_argument("--jobs", type=int, default=1,
                        help="train this many runs at once, each in its own one-thread process")
    parser.add_argument("--backend", choices=["local", "ray"], default="local",
                        help="ray: each missing run is a Ray task (optional extra; --jobs CPUs for a local instance)")
    parser.add_argument("--address", default=None, help="with --backend ray: a running Ray cluster, HOST:PORT")
    parser.add_argument("--cpus-per-run", type=int, default=1, help="with --backend ray: CPU threads per run")
    parser.add_argument("--gpus-per-run", type=float, default=0.0,
                        help="with --backend ray: GPU share per run, e.g. 0.25 for four runs per card")
    parser.add_argument("--without-questions", action="store_true",
                        help="then evaluate each recorded run with weights here on its question-removed test sets")
    args = parser.parse_args(argv)
    profile = get_profile(args.profile)
    overrides = {field: ast.literal_eval(value) for field, value in (item.split("=", 1) for item in args.set)}
    grid = {dataset_key(dataset): dataset_splits(dataset) for dataset in args.datasets}
    if args.plan:
        missing = plan(args.models, args.embeddings, grid, profile, seed=args.seed, config_overrides=overrides,
                       folds=args.folds, val_fraction=args.val_fraction, device=args.plan_device)
        print(missing.to_string(index=False, float_format="{:.0f}".format) if len(missing)
              else "every run of this grid is recorded")
        print(f"about {missing['estimated minutes'].sum() / 60:.1f} h where a timing is recorded; "
              f"{missing['estimated minutes'].isna().sum()} runs without one")
        return
    if args.backend == "ray":
        if failed := run_on_ray(args, profile, grid, overrides):
            sys.exit(f"{failed} run(s) failed")
    elif args.jobs > 1:
        if failed := run_parallel(args, profile, grid, overrides):
            sys.exit(f"{failed} run(s) failed")
    for record in iter_grid(args.models, args.embeddings, grid, profile, seed=args.seed,
                            train_missing=args.jobs == 1 and args.backend == "local", config_overrides=overrides,
                            folds=args.folds, val_fraction=args.val_fraction):  # --jobs, Ray: workers recorded them
        spec = record["spec"]
        where = run_label(spec)
        print(f"{where}: {100 * record['metrics']['test_accuracy']:.1f} % "
              f"({record['timing']['seconds_per_epoch']:.1f} s/epoch)", flush=True)
        if args.without_questions:  # now, before the next run trains: a session or lease may end first
            evaluate_without_questions_here(record, profile, where)


def evaluate_without_questions_here(record: dict[str, Any], profile: Profile, where: str) -> None:
    """Evaluate a recorded run on its question-removed test sets, ours and SVAMP's released ones (Tables 3, 11,
    17), where its weights are: on a GPU box, so the weights need not travel back."""
    if record["spec"]["dataset"] not in QUESTION_REMOVED:
        return
    try:  # a recorded evaluation needs no weights
        ours, released = [evaluate_without_questions([record], profile, released=r)[0] for r in (False, True)]
    except MissingWeights:
        print(f"{where}: no weights on this machine, not evaluated without questions", flush=True)
        return
    print(f"{where} without questions: {100 * ours['accuracy']:.1f} % "
          f"(SVAMP's released files: {100 * released['accuracy']:.1f} %)", flush=True)


if __name__ == "__main__":
    main()
