"""The run cache, grids and plans: every neural solver of notebooks 01–03, 05 and 07 trains through here.

A run is identified by its key (`mwplib.run_spec`: the hash of its spec's description, by an explicit schema, and of
the checksum of the exact problems used). Its metrics, timing, per-epoch history and
per-problem predictions are saved as JSON under ``mwplib.paths.runs_dir(profile.name)``; the weights go to the
ignored checkpoint cache. Rerunning reuses finished runs (an interrupted grid resumes at the first
unfinished run); `force=True` retrains. The command line that trains a grid is `mwplib.batch`; notebook 01's
tables are `mwplib.svamp.model_tables`.
"""
from __future__ import annotations

import hashlib
import json
import statistics
import time
from dataclasses import asdict, replace
from pathlib import Path
from typing import Any, Iterable, Iterator, Mapping, Sequence

import pandas as pd
import torch

from . import paths
from .models import ModelConfig, build_model, paper_config
from .problem import Problem, Split
from .profiles import PROFILES, Profile
from .records import SUFFIX, DamagedRecord, read_record, read_records, record_path, write_record
from .repro import run_manifest
from .run_spec import RunSpec
from .solver import save_checkpoint
from .train import pick_device, train_model


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


def spec_for(model: str, embedding: str, dataset: str, split: str, fold: int, profile: Profile,
             seed: int = 0, val_fraction: float = RunSpec.val_fraction, **config_overrides: Any) -> RunSpec:
    """The paper's config of `model` × `embedding`, with beam width from `profile` and epochs and patience from its
    plan's run for the cell, else its scaling of the paper's epochs."""
    config = paper_config(model, embedding)
    if config_overrides:
        config = _with_fields(config, config_overrides)
    planned = profile.planned_run(model, embedding, dataset)
    epochs, patience = (planned.epochs, planned.patience) if planned else (profile.epochs(config.epochs), 0)
    return RunSpec(model, config, dataset, split, fold, seed, epochs, profile.beam_size, val_fraction, patience)


def _limit(problems: Sequence[Problem], limit: int | None) -> list[Problem]:
    return list(problems)[:limit] if limit is not None else list(problems)


def _profiled(train: Sequence[Problem], test: Sequence[Problem], profile: Profile,
              validation: Sequence[Problem] | None = None) -> tuple[list[Problem], list[Problem], str]:
    """The problems a profile trains and tests on, and their checksum (part of a run's key)."""
    train, test = _limit(train, profile.train_limit), _limit(test, profile.test_limit)
    if validation is not None:
        validation = _limit(validation, profile.test_limit)
    return train, test, data_checksum(train, test, validation)


def run_path(spec: RunSpec, key: str, profile: Profile) -> Path:
    return record_path(paths.runs_dir(profile.name) / spec.model / spec.dataset, key)


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


def recorded(spec: RunSpec, train: Sequence[Problem], test: Sequence[Problem], profile: Profile,
             validation: Sequence[Problem] | None = None) -> dict[str, Any] | None:
    """The recorded result of this run, or None if it has not been trained under `profile`."""
    path = run_path(spec, spec.key(_profiled(train, test, profile, validation)[2]), profile)
    return read_run(path) if path.exists() else None


#: what every training run record holds (a record without one is damaged: `records.DamagedRecord`)
RUN_FIELDS = ("key", "spec", "metrics", "history", "predictions")


def read_run(path: Path) -> dict[str, Any]:
    """The training run record at `path`, its fields and test accuracy checked; :class:`DamagedRecord` naming the
    file otherwise (a gzip of ``{}`` or a NaN accuracy is not a run)."""
    record = read_record(path, RUN_FIELDS)
    accuracy = record["metrics"].get("test_accuracy") if isinstance(record["metrics"], dict) else None
    if isinstance(accuracy, bool) or not isinstance(accuracy, (int, float)) or not 0 <= accuracy <= 1:
        raise DamagedRecord(f"{path}: damaged record (test accuracy {accuracy!r:.40}); restore it with git or move "
                            "it aside")
    return record


def run(spec: RunSpec, train: Sequence[Problem], test: Sequence[Problem], profile: Profile, *, force: bool = False,
        progress: bool = True, need_weights: bool = False, validation: Sequence[Problem] | None = None
        ) -> dict[str, Any]:
    """Train and evaluate one run, or load it from the cache. `train` may be any list of problems; `validation`,
    when given, chooses the epoch instead of a part carved from `train` (notebook 07: augmented training sets
    keep their split's validation part). With `need_weights`, a recorded run whose checkpoint is not on this
    machine (weights are not committed) is trained again, so its weights can be loaded; its record, and every
    evaluation of it, stays as committed (another machine or thread count may give other numbers), and
    ``weights_of(record, retrained_ok=True)`` finds the new weights."""
    if not force and (record := recorded(spec, train, test, profile, validation)) is not None:
        if not need_weights or weights_of(record, retrained_ok=True) is not None:
            return record
    train, test, checksum = _profiled(train, test, profile, validation)
    if validation is not None:
        validation = _limit(validation, profile.test_limit)
    key = spec.key(checksum)
    path = run_path(spec, key, profile)
    model = build_model(spec.model, spec.config, [*train, *(validation or ())], spec.seed)
    manifest = run_manifest(profile, spec.seed)  # the commit training starts from, not the one it ends at
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
        return read_run(path)
    for stale in path.parent.glob(f"{key}-on-*"):  # evaluations of the weights this run replaces
        stale.unlink()
    write_record(path, record)
    return record


def _grid(models: Iterable[str], embeddings: Iterable[str], datasets: dict[str, Sequence[Split]], profile: Profile,
          seed: int, config_overrides: dict[str, Any] | None, folds: Sequence[int] | None = None,
          val_fraction: float = RunSpec.val_fraction) -> Iterator[tuple[RunSpec, Split]]:
    """Each run of a grid with its split that the profile's plan holds; a dataset given as one split runs once,
    whatever the folds. `folds` keeps only those of the profile's folds (to share a grid between machines)."""
    for model in models:
        for embedding in embeddings:
            for dataset, splits in datasets.items():
                if not profile.in_plan(model, embedding, dataset):
                    continue
                for fold in [f for f in profile.folds if f < len(splits) and (folds is None or f in folds)]:
                    split = splits[fold]
                    yield spec_for(model, embedding, dataset, split.name, fold, profile, seed, val_fraction,
                                   **(config_overrides or {})), split


def iter_grid(models: Iterable[str], embeddings: Iterable[str], datasets: dict[str, Sequence[Split]],
              profile: Profile, *, seed: int = 0, force: bool = False, progress: bool = True,
              train_missing: bool = True, config_overrides: dict[str, Any] | None = None,
              folds: Sequence[int] | None = None, val_fraction: float = RunSpec.val_fraction,
              stand_in: dict[str, Any] | None = None) -> Iterator[dict[str, Any]]:
    """Every model × embedding × dataset × profile fold, one record at a time as it is trained or found recorded
    (so a caller can use each run before the next one trains). A dataset given as a single split (a fixed
    train → test partition) runs once, whatever the profile's folds. With `train_missing=False` only recorded
    runs are yielded (render what exists, in seconds), and a run not recorded is looked up again with the fields
    of `stand_in` (e.g. :data:`STAND_IN`; tables label such runs with :func:`stand_in_note`);
    `config_overrides` replace fields of the paper's configs (a probe, listed by :func:`mwplib.svamp.model_tables.variants`);
    `val_fraction=0` trains on the whole training fold, as the paper does (its best test epoch is the paper's
    number; the last epoch is ours)."""
    for spec, split in _grid(models, embeddings, datasets, profile, seed, config_overrides, folds, val_fraction):
        if train_missing or force:
            yield run(spec, split.train, split.test, profile, force=force, progress=progress)
        elif (record := recorded(spec, split.train, split.test, profile)) is not None:
            yield record
        elif stand_in:
            substitute = replace(spec, config=_with_fields(spec.config, stand_in))
            if (record := recorded(substitute, split.train, split.test, profile)) is not None:
                yield record


#: Config fields with which a table cell may be filled when no run of the paper's setting is recorded: a
#: Transformer R (MiniLM) run on MAWPS + ASDiv-A → SVAMP takes about 3 h in fp32 on a 2-core CPU, longer than a
#: session, and under 2 h with a bf16 forward pass. Notebook 05 renders with it; a stand-in is never preferred to
#: a run of the paper's setting, and its table rows say what it is (:func:`stand_in_note`).
STAND_IN: dict[str, Any] = {"precision": "bf16"}


def stand_in_note(records: Iterable[dict[str, Any]]) -> str:
    """"trained with precision=bf16" etc. when any of `records` was recorded with a :data:`STAND_IN` field
    instead of the paper's setting, "" otherwise: the label a table puts on such a cell (notebook 05)."""
    found = sorted({f"{field}={value}" for rec in records for field, value in STAND_IN.items()
                    if rec["spec"]["config"].get(field) == value})
    return f"trained with {', '.join(found)} (stand-in: no run of the paper's setting recorded)" if found else ""


def run_grid(*args: Any, **kwargs: Any) -> list[dict[str, Any]]:
    """:func:`iter_grid` as a list (resuming from the cache; notebooks 01–05)."""
    return list(iter_grid(*args, **kwargs))


#: The offline encoders' names in tables (any other embedding is named as given, e.g. a hub name).
ENCODER_NAMES = {"minilm": "MiniLM", "mpnet": "MPNet"}


def embedding_label(embedding: str) -> str:
    """"S" for scratch; "R (MiniLM)" etc. for a pretrained encoder, so no table passes MiniLM off as RoBERTa."""
    return "S" if embedding == "scratch" else f"R ({ENCODER_NAMES.get(embedding, embedding)})"


def run_label(spec: Mapping[str, Any]) -> str:
    """A recorded run's spec in words, e.g. "gts S asdiv-a fold 0" (progress lines, notebook lessons)."""
    return f"{spec['model']} {embedding_label(spec['config']['embedding'])} {spec['dataset']} fold {spec['fold']}"


def epoch_seconds(rec: Mapping[str, Any]) -> float:
    """Wall seconds per epoch of a recorded run: training, the evaluation every epoch and saving (its training
    alone takes `timing.seconds_per_epoch`); a resumed run's wall time covers only the epochs it ran."""
    timing = rec["timing"]
    return timing["wall_seconds"] / max(1, len(rec["history"]) - timing.get("resumed_after_epoch", 0))


#: The config fields that set a run's cost per problem (its width and batch), beyond its model and embedding.
WIDTH = ("emb_dim", "hidden", "layers", "heads", "batch_size")


def _width(config: Mapping[str, Any]) -> str:
    return ",".join(f"{field}={config.get(field)}" for field in WIDTH)


def _speed_keys(model: str, embedding: str, config: Mapping[str, Any], dataset: str) -> list[tuple[str, ...]]:
    """Where a run's speed is looked up, most alike first: same width and dataset, same width, same dataset, any.
    A width matters more than a dataset: MathEN's Seq2Seq (hidden 512, batch 64) runs at several times the cost
    per problem of SVAMP's (hidden 256, batch 8)."""
    width = _width(config)
    return [(model, embedding, width, dataset), (model, embedding, width), (model, embedding, dataset),
            (model, embedding)]


def recorded_speeds(device: str | None = None) -> dict[tuple[str, ...], list[float]]:
    """Wall seconds (`epoch_seconds`) per training problem and epoch of every recorded run on `device`'s kind
    (default: this machine's), under each of its :func:`_speed_keys`: what :func:`estimate_minutes` times a run by."""
    device = str(pick_device(device))
    seconds: dict[tuple[str, ...], list[float]] = {}
    whole = [path for path in (paths.RESULTS / "runs").glob(f"*/*/*/*{SUFFIX}")  # smoke: overhead dominates
             if path.parents[2].name in PROFILES and PROFILES[path.parents[2].name].train_limit is None]
    for rec in read_records(whole):
        if "spec" in rec and "timing" in rec and rec["device"] == device:
            spec = rec["spec"]
            for where in _speed_keys(spec["model"], spec["config"]["embedding"], spec["config"], spec["dataset"]):
                seconds.setdefault(where, []).append(epoch_seconds(rec) / rec["n_train"])
    return seconds


def estimate_minutes(spec: RunSpec, n_train: int, epochs: int, speeds: dict[tuple[str, ...], list[float]]) -> float:
    """`epochs` of `spec` on `n_train` problems at the median recorded speed of the most alike runs in `speeds`
    (:func:`recorded_speeds`, :func:`_speed_keys`); NaN where no run of its model and embedding is recorded."""
    keys = _speed_keys(spec.model, spec.config.embedding, asdict(spec.config), spec.dataset)
    per_problem = next((speeds[key] for key in keys if speeds.get(key)), None)
    return statistics.median(per_problem) * n_train * epochs / 60 if per_problem else float("nan")


def unfinished(spec: RunSpec, train: Sequence[Problem], test: Sequence[Problem], profile: Profile,
               speeds: dict[tuple[str, ...], list[float]], validation: Sequence[Problem] | None = None
               ) -> tuple[int, float] | None:
    """For a run not recorded yet: the epochs an interrupted attempt saved here and a rough time in minutes for the
    rest (:func:`estimate_minutes`); None when it is recorded. What every ``--plan`` lists."""
    train, test, checksum = _profiled(train, test, profile, validation)
    key = spec.key(checksum)
    if run_path(spec, key, profile).exists():
        return None
    done = epochs_done(key)
    return done, estimate_minutes(spec, len(train), spec.epochs - done, speeds)


def plan(models: Iterable[str], embeddings: Iterable[str], datasets: dict[str, Sequence[Split]], profile: Profile, *,
         seed: int = 0, config_overrides: dict[str, Any] | None = None, folds: Sequence[int] | None = None,
         val_fraction: float = RunSpec.val_fraction, device: str | None = None) -> pd.DataFrame:
    """The runs of a grid not recorded yet under `profile`, each with the epochs an interrupted attempt saved here
    and a rough time for the rest (:func:`estimate_minutes`) on `device`'s kind (default: this machine's; "cuda"
    plans a GPU lease from a CPU box). NaN where none is recorded.
    Recorded timings depend on the machine and on what ran beside them, so this is a guide for sharing a grid
    between sessions or machines, not a measurement (``python -m mwplib.batch --plan``)."""
    speeds = recorded_speeds(device)
    rows = []
    for spec, split in _grid(models, embeddings, datasets, profile, seed, config_overrides, folds, val_fraction):
        if (left := unfinished(spec, split.train, split.test, profile, speeds)) is not None:
            rows.append((spec.model, embedding_label(spec.config.embedding), spec.dataset, spec.fold, spec.epochs,
                         *left))
    return pd.DataFrame(rows, columns=["model", "embedding", "dataset", "fold", "epochs", "epochs done",
                                       "estimated minutes"])


def planned_runs(profile: Profile, models: Iterable[str], embeddings: Iterable[str], datasets: Iterable[str]
                 ) -> pd.DataFrame:
    """What a notebook's grid trains under `profile`, per fold: each cell's epochs and patience and, under a plan
    (`quick`), the claim it is there to show; a cell the plan leaves out is not listed (its table rows say "not
    run")."""
    rows = []
    for model in models:
        for embedding in embeddings:
            for dataset in datasets:
                if profile.in_plan(model, embedding, dataset):
                    spec = spec_for(model, embedding, dataset, "", 0, profile)
                    planned = profile.planned_run(model, embedding, dataset)
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
