"""Run specs, the run cache and the k-fold grid (notebook 01_baselines; later notebooks train through here).

A run is identified by the hash of (model, config incl. embedding, dataset, split, fold, seed, epochs, beam,
validation fraction, checksum of the exact problems used). Its metrics, timing, per-epoch history and
per-problem predictions are saved as JSON under ``mwplib.paths.runs_dir(profile)``; the weights go to the
ignored checkpoint cache. Rerunning reuses finished runs (an interrupted grid resumes at the first
unfinished run); `force=True` retrains.
"""
from __future__ import annotations

import ast
import hashlib
import json
import os
import statistics
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, fields, replace
from pathlib import Path
from typing import Any, Iterable, Iterator, Sequence

import pandas as pd
import torch

from . import paths
from .analysis import correctness, paired_difference, percent
from .models import ModelConfig, build_model, paper_config
from .models.config import ADDED_FIELDS
from .problem import Problem, Split
from .profiles import PROFILES, Profile, get_profile
from .records import SUFFIX, read_record, read_records, record_path, write_record
from .repro import run_manifest
from .solver import save_checkpoint
from .train import pick_device, train_model


@dataclass(frozen=True)
class RunSpec:
    model: str
    config: ModelConfig
    dataset: str
    split: str
    fold: int
    seed: int
    epochs: int
    beam: int
    val_fraction: float = 0.1  # 0: the paper's protocol, training on the whole training fold
    patience: int = 0  # stop once validation has not improved for this many epochs; 0: train every epoch

    def describe(self) -> dict[str, Any]:
        """What the run's key hashes; a config field added later is left out at the value earlier runs used, and
        so is `patience` when it is off (runs recorded before it existed)."""
        config = {k: v for k, v in _as_declared(self.config).items() if k not in ADDED_FIELDS or v != ADDED_FIELDS[k]}
        return {**{k: v for k, v in _as_declared(self).items() if k != "config" and (k != "patience" or v)},
                "config": {"class": type(self.config).__name__, **config}}

    def key(self, data_checksum: str) -> str:
        blob = json.dumps({**self.describe(), "data": data_checksum}, sort_keys=True)
        return hashlib.sha256(blob.encode()).hexdigest()[:16]


def _as_declared(instance: Any) -> dict[str, Any]:
    """A dataclass's fields (nested ones as dicts), an int in a float field as a float: ``val_fraction=0`` and
    the CLI's ``0.0`` are one setting, so they must be one key."""
    values = asdict(instance)
    return {f.name: float(values[f.name]) if f.type in ("float", float) and type(values[f.name]) is int
            else values[f.name] for f in fields(instance)}


def data_checksum(train: Sequence[Problem], test: Sequence[Problem], validation: Sequence[Problem] | None = None
                  ) -> str:
    """Hash of everything a run reads from its problems, so changed data never reuse a stale run (a given
    validation set, instead of one carved from `train`, is part of it)."""
    def rows(problems: Sequence[Problem]) -> list[Any]:
        return [[p.id, p.text, list(p.numbers), list(p.prefix), p.answer] for p in problems]

    parts = [rows(train), rows(test)] + ([] if validation is None else [rows(validation)])
    return hashlib.sha256(json.dumps(parts).encode()).hexdigest()[:16]


def _with_fields(config: ModelConfig, overrides: dict[str, Any]) -> ModelConfig:
    return type(config)(**{**asdict(config), **overrides})


def spec_for(model: str, embedding: str, dataset: str, split: str, fold: int, profile: str | Profile,
             seed: int = 0, val_fraction: float = RunSpec.val_fraction, **config_overrides: Any) -> RunSpec:
    """The paper's config of `model` × `embedding`, with beam width from `profile` and epochs and patience from its
    plan's run for the cell, else its scaling of the paper's epochs."""
    prof = get_profile(profile)
    config = paper_config(model, embedding)
    if config_overrides:
        config = _with_fields(config, config_overrides)
    planned = prof.planned_run(model, embedding, dataset)
    epochs, patience = (planned.epochs, planned.patience) if planned else (prof.epochs(config.epochs), 0)
    return RunSpec(model, config, dataset, split, fold, seed, epochs, prof.beam_size, val_fraction, patience)


def _limit(problems: Sequence[Problem], limit: int | None) -> list[Problem]:
    return list(problems)[:limit] if limit is not None else list(problems)


def _profiled(train: Sequence[Problem], test: Sequence[Problem], prof: Profile,
              validation: Sequence[Problem] | None = None) -> tuple[list[Problem], list[Problem], str]:
    """The problems a profile trains and tests on, and their checksum (part of a run's key)."""
    train, test = _limit(train, prof.train_limit), _limit(test, prof.test_limit)
    if validation is not None:
        validation = _limit(validation, prof.test_limit)
    return train, test, data_checksum(train, test, validation)


def run_path(spec: RunSpec, key: str, profile: str) -> Path:
    return record_path(paths.runs_dir(profile) / spec.model / spec.dataset, key)


def checkpoint_path(key: str) -> Path:
    return paths.cache_dir("checkpoints") / f"{key}.pt"


def weights_checksum(path: Path) -> str:
    """Hash of a saved checkpoint, recorded with its run: weights left on a machine by another training of the
    same run (retrained elsewhere with `force`) are then told apart from the recorded ones."""
    with path.open("rb") as handle:
        return hashlib.file_digest(handle, "sha256").hexdigest()[:16]


def retrained_path(key: str) -> Path:
    """Where a run retrained here only for its weights notes their checksum (ignored cache; see :func:`run`)."""
    return checkpoint_path(key).with_suffix(".retrained")


def weights_of(record: dict[str, Any], retrained_ok: bool = False) -> Path | None:
    """The checkpoint of the recorded run on this machine, or None if it is absent or from another training of
    the run (records written before checksums were kept trust the file). With `retrained_ok`, weights this machine
    retrained for the run (:func:`run` with `need_weights`) do too: the same run, not the recorded numbers."""
    path = checkpoint_path(record["key"])
    if not path.exists():
        return None
    found = weights_checksum(path)
    marker = retrained_path(record["key"])
    if "weights" in record and found != record["weights"] and not (
            retrained_ok and marker.exists() and marker.read_text().strip() == found):
        return None
    return path


def resume_path(key: str) -> Path:
    """Where an unfinished run keeps its state after each epoch, until it is recorded (ignored cache)."""
    return paths.cache_dir("resume") / f"{key}.pt"


def epochs_done(key: str) -> int:
    """How many epochs an unfinished run has saved (0 when none): a run that spans sessions resumes there."""
    path = resume_path(key)
    return len(torch.load(path, map_location="cpu", mmap=True, weights_only=False)["history"]) if path.exists() else 0


def recorded(spec: RunSpec, train: Sequence[Problem], test: Sequence[Problem], profile: str,
             validation: Sequence[Problem] | None = None) -> dict[str, Any] | None:
    """The recorded result of this run, or None if it has not been trained under `profile`."""
    prof = get_profile(profile)
    path = run_path(spec, spec.key(_profiled(train, test, prof, validation)[2]), prof.name)
    return read_record(path) if path.exists() else None


def run(spec: RunSpec, train: Sequence[Problem], test: Sequence[Problem], profile: str, *, force: bool = False,
        progress: bool = True, need_weights: bool = False, validation: Sequence[Problem] | None = None
        ) -> dict[str, Any]:
    """Train and evaluate one run, or load it from the cache. `train` may be any list of problems; `validation`,
    when given, chooses the epoch instead of a part carved from `train` (notebook 06: augmented training sets
    keep their split's validation part). With `need_weights`, a recorded run whose checkpoint is not on this
    machine (weights are not committed) is trained again, so its weights can be loaded; its record, and every
    evaluation of it, stays as committed (another machine or thread count may give other numbers), and
    ``weights_of(record, retrained_ok=True)`` finds the new weights."""
    if not force and (record := recorded(spec, train, test, profile, validation)) is not None:
        if not need_weights or weights_of(record, retrained_ok=True) is not None:
            return record
    prof = get_profile(profile)
    train, test, checksum = _profiled(train, test, prof, validation)
    if validation is not None:
        validation = _limit(validation, prof.test_limit)
    key = spec.key(checksum)
    path = run_path(spec, key, prof.name)
    model = build_model(spec.model, spec.config, [*train, *(validation or ())], spec.seed)
    manifest = run_manifest(prof.name, spec.seed)  # the commit training starts from, not the one it ends at
    started = time.perf_counter()
    resume = resume_path(key)
    if force:
        resume.unlink(missing_ok=True)
        retrained_path(key).unlink(missing_ok=True)
    result = train_model(model, train, test, spec.config, epochs=spec.epochs, seed=spec.seed, beam=spec.beam,
                         val_fraction=spec.val_fraction, validation=validation, patience=spec.patience,
                         progress=progress, resume=resume,
                         description=f"{spec.model}/{spec.config.embedding} {spec.dataset} fold {spec.fold}")
    model.load_state_dict(result.state)
    checkpoint = save_checkpoint(model, spec.model, max(len(p.prefix) for p in [*train, *(validation or ())]) + 2,
                                 checkpoint_path(key))
    record = {"key": key, "spec": spec.describe(), "data_checksum": checksum, "weights": weights_checksum(checkpoint),
              "n_train": len(train),
              "n_test": len(test), "device": str(pick_device()),
              "metrics": {"test_accuracy": result.test_accuracy, "best_epoch": result.best_epoch,
                          "peer_test_accuracy": result.peer_test_accuracy, "peer_epoch": result.peer_epoch},
              "timing": {"wall_seconds": time.perf_counter() - started,  # of this process: see resumed_after_epoch
                         "resumed_after_epoch": result.resumed_after,
                         "seconds_per_epoch": sum(h["seconds"] for h in result.history) / len(result.history),
                         "train_problems_per_s": result.train_problems_per_s,
                         "infer_problems_per_s": result.infer_problems_per_s},
              "history": result.history, "predictions": result.records, "manifest": manifest}
    resume.unlink(missing_ok=True)
    if path.exists() and not force:  # retrained for its weights only: the recorded result is never replaced
        retrained_path(key).write_text(record["weights"] + "\n")
        return read_record(path)
    for stale in path.parent.glob(f"{key}-on-*"):  # evaluations of the weights this run replaces
        stale.unlink()
    write_record(path, record)
    return record


def _grid(models: Iterable[str], embeddings: Iterable[str], datasets: dict[str, Sequence[Split]], prof: Profile,
          seed: int, config_overrides: dict[str, Any] | None, folds: Sequence[int] | None = None,
          val_fraction: float = RunSpec.val_fraction) -> Iterator[tuple[RunSpec, Split]]:
    """Each run of a grid with its split that the profile's plan holds; a dataset given as one split runs once,
    whatever the folds. `folds` keeps only those of the profile's folds (to share a grid between machines)."""
    for model in models:
        for embedding in embeddings:
            for dataset, splits in datasets.items():
                if not prof.in_plan(model, embedding, dataset):
                    continue
                for fold in [f for f in prof.folds if f < len(splits) and (folds is None or f in folds)]:
                    split = splits[fold]
                    yield spec_for(model, embedding, dataset, split.name, fold, prof, seed, val_fraction,
                                   **(config_overrides or {})), split


def iter_grid(models: Iterable[str], embeddings: Iterable[str], datasets: dict[str, Sequence[Split]],
              profile: str, *, seed: int = 0, force: bool = False, progress: bool = True,
              train_missing: bool = True, config_overrides: dict[str, Any] | None = None,
              folds: Sequence[int] | None = None, val_fraction: float = RunSpec.val_fraction,
              stand_in: dict[str, Any] | None = None) -> Iterator[dict[str, Any]]:
    """Every model × embedding × dataset × profile fold, one record at a time as it is trained or found recorded
    (so a caller can use each run before the next one trains). A dataset given as a single split (a fixed
    train → test partition) runs once, whatever the profile's folds. With `train_missing=False` only recorded
    runs are yielded (render what exists, in seconds), and a run not recorded is looked up again with the fields
    of `stand_in` (e.g. :data:`STAND_IN`; tables label such runs with :func:`stand_in_note`);
    `config_overrides` replace fields of the paper's configs (a probe, listed by :func:`variants`);
    `val_fraction=0` trains on the whole training fold, as the paper does (its best test epoch is the paper's
    number; the last epoch is ours)."""
    prof = get_profile(profile)
    for spec, split in _grid(models, embeddings, datasets, prof, seed, config_overrides, folds, val_fraction):
        if train_missing or force:
            yield run(spec, split.train, split.test, prof.name, force=force, progress=progress)
        elif (record := recorded(spec, split.train, split.test, prof.name)) is not None:
            yield record
        elif stand_in:
            substitute = replace(spec, config=_with_fields(spec.config, stand_in))
            if (record := recorded(substitute, split.train, split.test, prof.name)) is not None:
                yield record


#: Config fields with which a table cell may be filled when no run of the paper's setting is recorded: a
#: Transformer R (MiniLM) run on MAWPS + ASDiv-A → SVAMP takes about 3 h in fp32 on a 2-core CPU, longer than a
#: session, and under 2 h with a bf16 forward pass. Notebook 04 renders with it; a stand-in is never preferred to
#: a run of the paper's setting, and its table rows say what it is (:func:`stand_in_note`).
STAND_IN: dict[str, Any] = {"precision": "bf16"}


def stand_in_note(records: Iterable[dict[str, Any]]) -> str:
    """"trained with precision=bf16" etc. when any of `records` was recorded with a :data:`STAND_IN` field
    instead of the paper's setting, "" otherwise: the label a table puts on such a cell (notebook 04)."""
    found = sorted({f"{field}={value}" for rec in records for field, value in STAND_IN.items()
                    if rec["spec"]["config"].get(field) == value})
    return f"trained with {', '.join(found)} (stand-in: no run of the paper's setting recorded)" if found else ""


def run_grid(*args: Any, **kwargs: Any) -> list[dict[str, Any]]:
    """:func:`iter_grid` as a list (resuming from the cache; notebooks 01–04)."""
    return list(iter_grid(*args, **kwargs))


def recorded_speeds(device: str | None = None) -> dict[tuple[str, ...], list[float]]:
    """Seconds per training problem and epoch of every recorded run on `device`'s kind (default: this machine's),
    by (model, embedding, dataset) and by (model, embedding): what :func:`estimate_minutes` times a run by."""
    device = str(pick_device(device))
    seconds: dict[tuple[str, ...], list[float]] = {}
    whole = [path for path in (paths.RESULTS / "runs").glob(f"*/*/*/*{SUFFIX}")  # smoke: overhead dominates
             if path.parents[2].name in PROFILES and get_profile(path.parents[2].name).train_limit is None]
    for rec in read_records(whole):
        if "spec" in rec and "timing" in rec and rec["device"] == device:
            model, embedding = rec["spec"]["model"], rec["spec"]["config"]["embedding"]
            for where in ((model, embedding, rec["spec"]["dataset"]), (model, embedding)):
                seconds.setdefault(where, []).append(rec["timing"]["seconds_per_epoch"] / rec["n_train"])
    return seconds


def estimate_minutes(spec: RunSpec, n_train: int, epochs: int, speeds: dict[tuple[str, ...], list[float]]) -> float:
    """`epochs` of `spec` on `n_train` problems at the median recorded speed of its model, embedding and dataset
    (else any dataset) in `speeds` (:func:`recorded_speeds`); NaN where none is recorded."""
    per_problem = (speeds.get((spec.model, spec.config.embedding, spec.dataset))
                   or speeds.get((spec.model, spec.config.embedding)))
    return statistics.median(per_problem) * n_train * epochs / 60 if per_problem else float("nan")


def plan(models: Iterable[str], embeddings: Iterable[str], datasets: dict[str, Sequence[Split]], profile: str, *,
         seed: int = 0, config_overrides: dict[str, Any] | None = None, folds: Sequence[int] | None = None,
         val_fraction: float = RunSpec.val_fraction, device: str | None = None) -> pd.DataFrame:
    """The runs of a grid not recorded yet under `profile`, each with the epochs an interrupted attempt saved here
    and a rough time for the rest (:func:`estimate_minutes`) on `device`'s kind (default: this machine's; "cuda"
    plans a GPU lease from a CPU box). NaN where none is recorded.
    Recorded timings depend on the machine and on what ran beside them, so this is a guide for sharing a grid
    between sessions or machines, not a measurement (``python -m mwplib.runs --plan``)."""
    prof = get_profile(profile)
    speeds = recorded_speeds(device)
    rows = []
    for spec, split in _grid(models, embeddings, datasets, prof, seed, config_overrides, folds, val_fraction):
        train, _, checksum = _profiled(split.train, split.test, prof)
        key = spec.key(checksum)
        if not run_path(spec, key, prof.name).exists():
            done = epochs_done(key)
            rows.append((spec.model, embedding_label(spec.config.embedding), spec.dataset, spec.fold, spec.epochs,
                         done, estimate_minutes(spec, len(train), spec.epochs - done, speeds)))
    return pd.DataFrame(rows, columns=["model", "embedding", "dataset", "fold", "epochs", "epochs done",
                                       "estimated minutes"])


def planned_runs(profile: str | Profile, models: Iterable[str], embeddings: Iterable[str], datasets: Iterable[str]
                 ) -> pd.DataFrame:
    """What a notebook's grid trains under `profile`, per fold: each cell's epochs and patience and, under a plan
    (`quick`), the claim it is there to show; a cell the plan leaves out is not listed (its table rows say "not
    run")."""
    prof = get_profile(profile)
    rows = []
    for model in models:
        for embedding in embeddings:
            for dataset in datasets:
                if prof.in_plan(model, embedding, dataset):
                    spec = spec_for(model, embedding, dataset, "", 0, prof)
                    planned = prof.planned_run(model, embedding, dataset)
                    rows.append((model, embedding_label(embedding), dataset, spec.epochs, spec.patience,
                                 planned.shows if planned else "the paper's setting"))
    return pd.DataFrame(rows, columns=["model", "embedding", "dataset", "epochs", "patience", "shows"])


#: The dataset name of the runs trained on MAWPS + ASDiv-A and tested on SVAMP.
SVAMP_DATASET = "mawps-asdiv-a_svamp"


#: Suffixes of your own problem files (`mwplib.data.own`), given as a dataset by path.
OWN_SUFFIXES = (".jsonl", ".csv")


def dataset_key(name: str) -> str:
    """The name runs of dataset `name` are recorded under: your own file's stem (``my/problems.jsonl`` →
    ``problems``), a shipped dataset's own name."""
    return Path(name).stem if name.endswith(OWN_SUFFIXES) else name


def dataset_splits(name: str) -> list[Split]:
    """The splits the notebooks train on, by the dataset name their runs are recorded under, or of your own file
    (``.jsonl``/``.csv`` with a ``fold`` per record: :func:`mwplib.data.own_splits`)."""
    from . import data

    if name.endswith(OWN_SUFFIXES):
        return data.own_splits(name)
    loaders = {"mawps": lambda: data.load_cv("mawps"), "asdiv-a": lambda: data.load_cv("asdiv-a"),
               SVAMP_DATASET: lambda: [data.load_mawps_asdiv_svamp()],
               "cv_svamp_augmented": data.load_cv_svamp_augmented}
    if name not in loaders:
        raise ValueError(f"unknown dataset {name!r}; choose one of {sorted(loaders)}")
    return loaders[name]()


def _unrecorded(args: Any, grid: dict[str, Sequence[Split]], overrides: dict[str, Any]
                ) -> list[tuple[RunSpec, Split]]:
    """The runs of the command line's grid not recorded yet (what `--jobs` and `--backend ray` train)."""
    prof = get_profile(args.profile)
    return [(spec, split) for spec, split in _grid(args.models, args.embeddings, grid, prof, args.seed, overrides,
                                                  args.folds, args.val_fraction)
            if recorded(spec, split.train, split.test, prof.name) is None]


def run_parallel(args: Any, grid: dict[str, Sequence[Split]], overrides: dict[str, Any]) -> int:
    """Train each unrecorded run of the grid in its own process, `args.jobs` at a time, one CPU thread each:
    on a many-core or GPU box small solvers train best side by side. Each run logs to build/logs/ and, with
    `--without-questions`, is evaluated so as soon as it is trained (a lease may end before the grid does).
    Returns how many runs failed."""
    prof = get_profile(args.profile)
    todo = [spec for spec, _ in _unrecorded(args, grid, overrides)]
    logs = paths.BUILD / "logs"
    logs.mkdir(parents=True, exist_ok=True)
    named = {dataset_key(name): name for name in args.datasets}  # your own file travels by its path

    def train(spec: RunSpec) -> bool:
        name = f"{spec.model}-{spec.config.embedding}-{spec.dataset}-{spec.fold}" + (
            f"-val{spec.val_fraction:g}" if spec.val_fraction != RunSpec.val_fraction else "")
        command = [sys.executable, "-m", "mwplib.runs", "--profile", prof.name, "--models", spec.model,
                   "--embeddings", spec.config.embedding, "--datasets", named[spec.dataset], "--folds", str(spec.fold),
                   "--seed", str(args.seed), "--val-fraction", str(args.val_fraction),
                   *(["--without-questions"] if args.without_questions else []),
                   *(["--set", *args.set] if args.set else [])]
        with open(logs / f"{prof.name}-{name}.log", "w") as log:
            code = subprocess.run(command, stdout=log, stderr=subprocess.STDOUT,
                                  env={**os.environ, "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}).returncode
        print(f"{name}: {'done' if code == 0 else f'FAILED (exit {code}), see {log.name}'}", flush=True)
        return code == 0

    print(f"{len(todo)} runs to train, {args.jobs} at a time; logs in {logs}", flush=True)
    with ThreadPoolExecutor(args.jobs) as pool:
        return sum(not ok for ok in pool.map(train, todo))


def train_recorded(spec: RunSpec, split: Split, profile: str) -> str:
    """Train (or find) one run and say where its record is: what a Ray task runs (`mwplib.distributed`)."""
    record = run(spec, split.train, split.test, profile, progress=False)
    return f"{100 * record['metrics']['test_accuracy']:.1f} %, recorded as {record['key']}"


def run_on_ray(args: Any, grid: dict[str, Sequence[Split]], overrides: dict[str, Any]) -> int:
    """Each unrecorded run of the grid as a Ray task (``--backend ray``); returns how many failed."""
    from .distributed import run_on_ray as submit

    tasks = [(f"{spec.model} {embedding_label(spec.config.embedding)} {spec.dataset} fold {spec.fold}", train_recorded,
              (spec, split, args.profile)) for spec, split in _unrecorded(args, grid, overrides)]
    return submit(tasks, address=args.address, cpus_per_task=args.cpus_per_run, gpus_per_task=args.gpus_per_run,
                  num_cpus=args.jobs if args.address is None else None)


def main(argv: Sequence[str] | None = None) -> None:
    """Train whatever of a grid is not recorded yet (the notebooks then render it in seconds), e.g. on a GPU box:
    ``python -m mwplib.runs --profile full --models gts graph2tree --embeddings scratch minilm --jobs 12``."""
    import argparse

    parser = argparse.ArgumentParser(description=main.__doc__.splitlines()[0])
    parser.add_argument("--profile", default="quick", choices=sorted(PROFILES))
    parser.add_argument("--models", nargs="+", default=["seq2seq", "gts", "graph2tree", "transformer"])
    parser.add_argument("--embeddings", nargs="+", default=["scratch"])
    parser.add_argument("--datasets", nargs="+", default=["mawps", "asdiv-a"],
                        help="shipped datasets by name, or your own .jsonl/.csv files (README: Your own problems)")
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
    overrides = {field: ast.literal_eval(value) for field, value in (item.split("=", 1) for item in args.set)}
    grid = {dataset_key(dataset): dataset_splits(dataset) for dataset in args.datasets}
    if args.plan:
        missing = plan(args.models, args.embeddings, grid, args.profile, seed=args.seed, config_overrides=overrides,
                       folds=args.folds, val_fraction=args.val_fraction, device=args.plan_device)
        print(missing.to_string(index=False, float_format="{:.0f}".format) if len(missing)
              else "every run of this grid is recorded")
        print(f"about {missing['estimated minutes'].sum() / 60:.1f} h where a timing is recorded; "
              f"{missing['estimated minutes'].isna().sum()} runs without one")
        return
    if args.backend == "ray":
        if failed := run_on_ray(args, grid, overrides):
            sys.exit(f"{failed} run(s) failed")
    elif args.jobs > 1:
        if failed := run_parallel(args, grid, overrides):
            sys.exit(f"{failed} run(s) failed")
    for record in iter_grid(args.models, args.embeddings, grid, args.profile, seed=args.seed,
                            train_missing=args.jobs == 1 and args.backend == "local", config_overrides=overrides,
                            folds=args.folds, val_fraction=args.val_fraction):  # with --jobs or Ray the workers recorded them
        spec = record["spec"]
        where = f"{spec['model']} {embedding_label(spec['config']['embedding'])} {spec['dataset']} fold {spec['fold']}"
        print(f"{where}: {100 * record['metrics']['test_accuracy']:.1f} % "
              f"({record['timing']['seconds_per_epoch']:.1f} s/epoch)", flush=True)
        if args.without_questions:  # now, before the next run trains: a session or lease may end first
            evaluate_without_questions_here(record, args.profile, where)


def evaluate_without_questions_here(record: dict[str, Any], profile: str, where: str) -> None:
    """Evaluate a recorded run on its question-removed test sets, ours and SVAMP's released ones (Tables 3, 11,
    17), where its weights are: on a GPU box, so the weights need not travel back."""
    from .transfer import QUESTION_REMOVED, MissingWeights, evaluate_without_questions  # transfer imports runs

    if record["spec"]["dataset"] not in QUESTION_REMOVED:
        return
    try:  # a recorded evaluation needs no weights
        ours, released = [evaluate_without_questions([record], profile, released=r)[0] for r in (False, True)]
    except MissingWeights:
        print(f"{where}: no weights on this machine, not evaluated without questions", flush=True)
        return
    print(f"{where} without questions: {100 * ours['accuracy']:.1f} % "
          f"(SVAMP's released files: {100 * released['accuracy']:.1f} %)", flush=True)


def summarize(records: Iterable[dict[str, Any]]) -> pd.DataFrame:
    """One row per model × embedding × dataset: accuracies pooled over all test problems of its folds
    (honest = epoch selected on validation; peers' protocol = best epoch on test, per fold); notebook 01."""
    rows: dict[tuple[str, str, str], dict[str, Any]] = {}
    for rec in records:
        spec = rec["spec"]
        key = (spec["model"], spec["config"]["embedding"], spec["dataset"])
        row = rows.setdefault(key, {"model": key[0], "embedding": key[1], "dataset": key[2], "folds": 0,
                                    "n_test": 0, "correct": 0, "peer_correct": 0.0, "seconds_per_epoch": 0.0,
                                    "devices": set()})
        row["folds"] += 1
        row["devices"].add(rec["manifest"]["device"])
        row["n_test"] += rec["n_test"]
        row["correct"] += sum(p["correct"] for p in rec["predictions"])
        row["peer_correct"] += rec["metrics"]["peer_test_accuracy"] * rec["n_test"]
        row["seconds_per_epoch"] += rec["timing"]["seconds_per_epoch"]
    frame = pd.DataFrame(list(rows.values()))
    if frame.empty:
        return frame
    frame["accuracy"] = 100 * frame["correct"] / frame["n_test"]
    frame["peer_accuracy"] = 100 * frame["peer_correct"] / frame["n_test"]
    frame["seconds_per_epoch"] = frame["seconds_per_epoch"] / frame["folds"]
    frame["devices"] = frame["devices"].map(lambda devices: ", ".join(sorted(devices)))  # seconds depend on it
    return frame.drop(columns=["correct", "peer_correct"])


def variants(profile: str, datasets: Sequence[str]) -> pd.DataFrame:
    """Recorded runs on `datasets` whose config differs from the default (probes such as another learning rate),
    with what differs, beside the default-config run (:func:`mwplib.models.paper_config`: the paper's, with
    MiniLM's own encoder learning rate) of the same model, embedding, dataset and fold. Compare them
    on validation accuracy (test accuracy must not pick a config). No exploratory result is hidden, and none can
    pass for the paper's setting (notebook 01_baselines). A default-config run whose epochs or patience are not
    the profile's plan (`quick` before its plan) is listed too, beside the plan's run of its cell."""
    def scores(rec: dict[str, Any]) -> tuple[float, float]:
        return 100 * max(h["val_accuracy"] for h in rec["history"]), 100 * rec["metrics"]["test_accuracy"]

    prof = get_profile(profile)
    records = read_records(path for dataset in datasets
                           for path in sorted(paths.runs_dir(profile).glob(f"*/{dataset}/*{SUFFIX}")))
    rows, default_runs = [], {}  # rows: (cell, what differs, scores, the cell of the default run beside it)
    for rec in (r for r in records if "spec" in r):  # the same folders hold question-removed evaluations
        spec, config = rec["spec"], rec["spec"]["config"]
        default = {**asdict(paper_config(spec["model"], config["embedding"])), "val_fraction": RunSpec.val_fraction}
        changed = {k: v for k, v in {**config, "val_fraction": spec["val_fraction"]}.items()
                   if k != "class" and default.get(k) != v}
        where = (spec["model"], embedding_label(config["embedding"]), spec["dataset"], spec["fold"], spec["epochs"])
        if changed:
            rows.append((where, ", ".join(f"{k}={v}" for k, v in sorted(changed.items())), scores(rec),
                         (*where, spec.get("patience", 0))))
            continue
        default_runs[(*where, spec.get("patience", 0))] = scores(rec)
        planned = spec_for(spec["model"], config["embedding"], spec["dataset"], "", spec["fold"], prof)
        in_plan = prof.in_plan(spec["model"], config["embedding"], spec["dataset"])
        if prof.planned is not None and (not in_plan or (spec["epochs"], spec.get("patience", 0)) != (planned.epochs, planned.patience)):
            what = (f"epochs={spec['epochs']}, patience={spec.get('patience', 0)} (the plan's: {planned.epochs}, "
                    f"{planned.patience})" if in_plan else f"epochs={spec['epochs']} (a cell {prof.name}'s plan "
                                                           "does not train)")
            rows.append((where, what, scores(rec), (*where[:4], planned.epochs, planned.patience) if in_plan else None))
    columns = ["model", "embedding", "dataset", "fold", "epochs", "changed", "val", "test", "default config: val",
               "default config: test"]
    return pd.DataFrame([(*where, changed, *score, *default_runs.get(beside, (None, None)))
                         for where, changed, score, beside in rows], columns=columns)


#: SVAMP Table 2 (5-fold CV accuracy, %) and Table 16 (Transformer): (model, "S"|"R", dataset) → paper value.
PAPER_ACCURACY: dict[tuple[str, str, str], float] = {
    ("seq2seq", "S", "mawps"): 79.7, ("seq2seq", "S", "asdiv-a"): 55.5,
    ("seq2seq", "R", "mawps"): 86.7, ("seq2seq", "R", "asdiv-a"): 76.9,
    ("gts", "S", "mawps"): 82.6, ("gts", "S", "asdiv-a"): 71.4,
    ("gts", "R", "mawps"): 88.5, ("gts", "R", "asdiv-a"): 81.2,
    ("graph2tree", "S", "mawps"): 83.7, ("graph2tree", "S", "asdiv-a"): 77.4,
    ("graph2tree", "R", "mawps"): 88.7, ("graph2tree", "R", "asdiv-a"): 82.2,
    ("transformer", "S", "mawps"): 77.9, ("transformer", "S", "asdiv-a"): 52.1,
    ("transformer", "R", "mawps"): 87.1, ("transformer", "R", "asdiv-a"): 77.7,
}


#: SVAMP Tables 19/20, "Avg Time/Epoch" (s) on the authors' P100 GPUs, dataset unstated: (model, "S"|"R") → s.
PAPER_SECONDS_PER_EPOCH: dict[tuple[str, str], float] = {
    ("seq2seq", "S"): 10, ("seq2seq", "R"): 40, ("gts", "S"): 60, ("gts", "R"): 120, ("graph2tree", "S"): 60,
    ("graph2tree", "R"): 120, ("constrained", "S"): 10, ("constrained", "R"): 15, ("transformer", "S"): 10,
    ("transformer", "R"): 30,
}


def speed_table(summary: pd.DataFrame) -> pd.DataFrame:
    """Seconds per training epoch of each model × embedding × dataset (mean over its folds, on the devices its
    runs trained on), beside the paper's P100 figure (RoBERTa for R, MiniLM here); notebook 01."""
    frame = summary[["model", "embedding", "dataset", "seconds_per_epoch", "devices"]].copy()
    frame.insert(3, "paper (P100, RoBERTa for R)", [PAPER_SECONDS_PER_EPOCH.get((m, embedding_label(e)[0]))
                                                    for m, e in zip(frame["model"], frame["embedding"])])
    return frame.rename(columns={"seconds_per_epoch": "ours"})


def embedding_label(embedding: str) -> str:
    """"S" for scratch; "R (MiniLM)" etc. for a pretrained encoder, so no table passes MiniLM off as RoBERTa."""
    if embedding == "scratch":
        return "S"
    return {"minilm": "R (MiniLM)", "mpnet": "R (MPNet)"}.get(embedding, f"R ({embedding})")


#: Column of Tables 2/16 for runs trained as the paper trains: on the whole training fold, reporting the best
#: test epoch (``--val-fraction 0``).
PAPER_PROTOCOL = "ours, paper's protocol (whole fold, best test epoch)"


def comparison_rows(summary: pd.DataFrame, models: Sequence[str], embeddings: Sequence[str],
                    datasets: Sequence[str], whole_fold: pd.DataFrame | None = None) -> list[dict[str, Any]]:
    """Rows for :func:`mwplib.report.paper_vs_ours`: every model × embedding × dataset the paper reports,
    ours where a run exists (None otherwise) with its best test epoch beside it, and a note on the embedding and
    folds. `whole_fold` (a :func:`summarize` of runs with ``val_fraction=0``), if not empty, adds column
    :data:`PAPER_PROTOCOL`."""
    def find(frame: pd.DataFrame, model: str, embedding: str, dataset: str) -> pd.DataFrame:
        return frame[(frame["model"] == model) & (frame["embedding"] == embedding)
                     & (frame["dataset"] == dataset)] if not frame.empty else frame

    rows = []
    for model in models:
        for embedding in embeddings:
            label = embedding_label(embedding)
            for dataset in datasets:
                found = find(summary, model, embedding, dataset)
                notes = ([f"MiniLM instead of RoBERTa, encoder lr {paper_config(model, embedding).emb_lr:g}"]
                         if embedding == "minilm" else [])
                ours = peer = None
                if len(found):
                    row = found.iloc[0]
                    ours, peer = float(row["accuracy"]), float(row["peer_accuracy"])
                    notes.append(f"{int(row['folds'])} fold(s), {int(row['n_test'])} test problems, "
                                 f"trained on {row['devices']}")
                else:
                    notes.append("not run")
                row = {"model": model, "embedding": label, "dataset": dataset,
                       "paper": PAPER_ACCURACY.get((model, label[0], dataset)), "ours": ours,
                       "ours, best test epoch (fold minus validation)": peer}
                if whole_fold is not None and not whole_fold.empty:
                    whole = find(whole_fold, model, embedding, dataset)
                    row[PAPER_PROTOCOL] = None
                    if len(whole):
                        row[PAPER_PROTOCOL] = float(whole.iloc[0]["peer_accuracy"])
                        notes.append(f"paper's protocol: {int(whole.iloc[0]['folds'])} fold(s), "
                                     f"trained on {whole.iloc[0]['devices']}")
                rows.append({**row, "note": "; ".join(notes)})
    return rows


def paper_pretraining_gain(model: str, dataset: str) -> float | None:
    """The paper's R (RoBERTa) − S accuracy, in points: Tables 2/16, or Table 10/18 for SVAMP."""
    if dataset == SVAMP_DATASET:
        from .svamp_tables import PAPER_TABLE_10  # imported here: svamp_tables builds on this module

        scratch, tuned = PAPER_TABLE_10[model]["Full Set"] if model in PAPER_TABLE_10 else (None, None)
    else:
        scratch, tuned = (PAPER_ACCURACY.get((model, e, dataset)) for e in "SR")
    return None if scratch is None or tuned is None else round(tuned - scratch, 1)


def pretraining_effect(records: Sequence[dict[str, Any]], models: Sequence[str], datasets: Sequence[str],
                       pretrained: str = "minilm") -> pd.DataFrame:
    """R − S per model and dataset on the folds both were run on, paired over the same test problems
    (:func:`mwplib.analysis.paired_difference`), beside the paper's R − S: does the pretrained encoder help
    beyond fold noise? (notebooks 01_baselines and 04_svamp; the paper claims R beats S for every model.)"""
    by_cell: dict[tuple[str, str, str], dict[int, dict[str, Any]]] = {}
    for rec in records:
        spec = rec["spec"]
        by_cell.setdefault((spec["model"], spec["config"]["embedding"], spec["dataset"]), {})[spec["fold"]] = rec
    columns = ["model", "dataset", "folds", "n", "S", embedding_label(pretrained), "R − S", "paper R − S",
               "95 % interval", "only S right", "only R right", "McNemar p", "note"]
    rows = []
    for model in models:
        for dataset in datasets:
            scratch, tuned = by_cell.get((model, "scratch", dataset), {}), by_cell.get((model, pretrained, dataset), {})
            folds = sorted(set(scratch) & set(tuned))
            if not folds:
                continue
            s, r = (correctness(runs[f] for f in folds) for runs in (scratch, tuned))
            test = paired_difference(s, r)
            rows.append((model, dataset, len(folds), test["n"], percent(s), percent(r), test["difference"],
                         paper_pretraining_gain(model, dataset), f"[{test['ci_low']:+.1f}, {test['ci_high']:+.1f}]",
                         test["only_first"], test["only_second"], test["mcnemar_p"],
                         stand_in_note([*scratch.values(), *tuned.values()])))
    return pd.DataFrame(rows, columns=columns)


def learning_curves(records: Sequence[dict[str, Any]]) -> Any:
    """Validation and test accuracy per epoch of every run (fold 0 where several), one panel per dataset
    (notebook 01's figure)."""
    import matplotlib.pyplot as plt

    datasets = sorted({r["spec"]["dataset"] for r in records})
    fig, axes = plt.subplots(1, max(1, len(datasets)), figsize=(5 * max(1, len(datasets)), 3.5), squeeze=False)
    for ax, dataset in zip(axes[0], datasets):
        for rec in records:
            spec = rec["spec"]
            if spec["dataset"] != dataset or spec["fold"] != min(r["spec"]["fold"] for r in records):
                continue
            epochs = [h["epoch"] for h in rec["history"]]
            line, = ax.plot(epochs, [100 * h["test_accuracy"] for h in rec["history"]],
                            label=f"{spec['model']} {embedding_label(spec['config']['embedding'])}")
            ax.plot(epochs, [100 * h["val_accuracy"] for h in rec["history"]], ls=":", color=line.get_color())
        ax.set(title=f"{dataset} (solid: test, dotted: validation)", xlabel="epoch", ylabel="accuracy (%)")
        ax.legend(fontsize=7)
    return fig


def accuracy_by_operations(records: Sequence[dict[str, Any]], problems: Sequence[Problem]) -> pd.DataFrame:
    """Test accuracy by number of operators in the gold equation, per model × embedding × dataset (pooled
    over folds), via :func:`mwplib.metrics.accuracy_by` (notebook 01's figure)."""
    from .metrics import accuracy_by

    by_id = {p.id: p for p in problems}
    groups: dict[tuple[str, str, str], dict[str, bool]] = {}
    for rec in records:
        spec = rec["spec"]
        key = (spec["model"], embedding_label(spec["config"]["embedding"]), spec["dataset"])
        groups.setdefault(key, {}).update({p["id"]: p["correct"] for p in rec["predictions"]})
    frames = []
    for (model, label, dataset), correct in groups.items():
        frame = accuracy_by([by_id[i] for i in correct], correct, "n_operators")
        frames.append(frame.assign(model=model, embedding=label, dataset=dataset))
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()


#: Operator counts with fewer test problems than this are left out of the figure: their bars are noise.
MIN_GROUP = 10


def plot_accuracy_by_operations(by_ops: pd.DataFrame) -> Any:
    """Figure of notebook 01 from :func:`accuracy_by_operations`: a panel per dataset, accuracy (%) per operator
    count in the gold equation, a bar per model × embedding; each count's n is printed under it (a range where
    the models pooled different folds), and counts with fewer than `MIN_GROUP` problems are left out."""
    import matplotlib.pyplot as plt

    datasets = sorted(set(by_ops["dataset"])) if len(by_ops) else []
    fig, axes = plt.subplots(1, max(1, len(datasets)), figsize=(5.5 * max(1, len(datasets)), 3.6), squeeze=False,
                             sharey=True)
    for ax, dataset in zip(axes[0], datasets):
        part = by_ops[by_ops["dataset"] == dataset]
        sizes = part.groupby("group")["n"].agg(["min", "max"])
        groups = [g for g in sizes.index if sizes.loc[g, "max"] >= MIN_GROUP]
        bars = list(dict.fromkeys(zip(part["model"], part["embedding"])))
        width = 0.8 / len(bars)
        for i, (model, label) in enumerate(bars):
            cell = part[(part["model"] == model) & (part["embedding"] == label)].set_index("group")["accuracy"]
            ax.bar([k + (i - (len(bars) - 1) / 2) * width for k in range(len(groups))],
                   [100 * cell.get(g, float("nan")) for g in groups], width, label=f"{model} {label}")
        ticks = [f"{g}\nn = {sizes.loc[g, 'max']}" if sizes.loc[g, "min"] == sizes.loc[g, "max"]
                 else f"{g}\nn = {sizes.loc[g, 'min']}–{sizes.loc[g, 'max']}" for g in groups]
        ax.set_xticks(range(len(groups)), ticks, fontsize=8)
        ax.set(title=dataset, xlabel="operators in the gold equation")
    axes[0][0].set(ylabel="accuracy (%)", ylim=(0, 100))
    if datasets:
        fig.legend(*axes[0][0].get_legend_handles_labels(), loc="upper center", ncol=4, fontsize=7)
    fig.tight_layout(rect=(0, 0, 1, 0.86))
    return fig


if __name__ == "__main__":
    main()
