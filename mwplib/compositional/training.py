"""The methods of Lan et al.'s Table II with the hyper-parameters of their Table VI, trained through the
project's one training loop and run cache (`mwplib.runs`), and Algorithm 1 run with them (+DA).

A run on a compositional split is recorded like any other, under the dataset name ``<pool>-<split>`` (e.g.
``mawps-comdiv``) or ``sd-<language>``; a +DA iteration's run is the same run on the grown training set (its
data checksum tells them apart). The problems each +DA iteration kept are committed too
(``results/runs/<profile>/augmentation/``), so the tables render from records without the weights that ranked
them. Table VI's LSTM is the project's BiLSTM Seq2Seq; its Transformer warms its learning rate up linearly over
Table VI's 1500 steps (the paper does not say how; without a warm-up it never left its first state).
Validation is 20 % of each training set (§V-B), carved once per split (the split file's validation ids; SD's
carved with the same seed) and passed to every run of that split: +DA generates from the rest and adds to it,
so no augmented problem, nor one made from a validation problem, ever validates.
"""
from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass, replace
from typing import Any, Sequence

from .. import paths, runs
from ..models import paper_config
from ..problem import Correctness, Problem
from ..profiles import Profile
from ..records import DamagedRecord, read_record, record_path, write_record
from ..repro import run_manifest
from ..run_spec import RunSpec
from ..solver import load_checkpoint
from . import mathen
from .augment import ScoreFn, augment, confidence, protocol
from .splits import VALIDATION_FRACTION

#: Table VI: the hyper-parameters each method deviates from its defaults with (scratch embeddings); MathEN's
#: column applies to each of its members
TABLE_VI: dict[str, dict[str, Any]] = {
    "LSTM": {"batch_size": 32, "emb_dim": 128, "hidden": 512, "layers": 2, "lr": 1e-3, "emb_lr": 1e-3,
             "dropout": 0.5, "epochs": 100},
    "Transformer": {"batch_size": 64, "emb_dim": 512, "hidden": 512, "layers": 4, "heads": 8, "lr": 3e-3,
                    "emb_lr": 3e-3, "warmup_steps": 1500, "epochs": 100},
    "MathEN": {"batch_size": 32, "emb_dim": 128, "hidden": 512, "layers": 2, "lr": 1e-3, "emb_lr": 1e-3,
               "dropout": 0.5, "epochs": 100},
    "GTS": {"batch_size": 64, "emb_dim": 128, "hidden": 512, "lr": 1e-3, "emb_lr": 1e-3, "dropout": 0.5,
            "epochs": 100},
}


@dataclass(frozen=True)
class Method:
    """A row of Table II: the models it trains (several: an ensemble) and whether its targets are normalised."""

    members: tuple[str, ...]
    normalize: bool = False


METHODS = {"LSTM": Method(("seq2seq",)), "Transformer": Method(("transformer",)),
           "MathEN": Method(mathen.MEMBERS, normalize=True), "GTS": Method(("gts",))}


def _method(name: str) -> Method:
    if name not in METHODS:
        raise ValueError(f"unknown method {name!r}; choose one of {sorted(METHODS)}")
    return METHODS[name]


def spec(method: str, model: str, dataset: str, profile: Profile, seed: int = 0, epochs: int | None = None
         ) -> RunSpec:
    """The run of one member `model` of `method` with Table VI's settings on `dataset`, epochs (and early
    stopping) from `profile` (SD's own when the plan sets `sd_epochs`), or exactly `epochs` where given, without
    early stopping (a control run: the base model trained as many optimizer steps as a +DA run, which stopping
    early would cut short)."""
    config, plan = paper_config(model), profile.compositional
    own_depth = {"layers"} if model == "convs2s" else set()  # Table VI's 2 layers are the BiLSTM's
    overrides = {k: v for k, v in TABLE_VI[method].items() if hasattr(config, k) and k not in own_depth}
    made = runs.spec_for(model, "scratch", dataset, dataset, 0, profile, seed, VALIDATION_FRACTION, **overrides)
    if dataset.startswith("sd-") and plan.sd_epochs:
        return replace(made, epochs=epochs or plan.sd_epochs, patience=0)
    if epochs:
        return replace(made, epochs=epochs, patience=0)
    return replace(made, epochs=min(made.epochs, plan.max_epochs) if plan.max_epochs else made.epochs,
                   patience=plan.patience)


def _as_seen(method: str, *parts: Sequence[Problem]) -> list[Sequence[Problem]]:
    """`parts` as `method`'s runs see them: with normalised expressions for MathEN (its runs' keys hash them)."""
    return [[mathen.normalized(p) for p in part] for part in parts] if _method(method).normalize else list(parts)


def train_method(method: str, dataset: str, train: Sequence[Problem], validation: Sequence[Problem],
                 test: Sequence[Problem], profile: Profile, seed: int = 0, *, train_missing: bool = True,
                 need_weights: bool = False, epochs: int | None = None) -> list[dict[str, Any]] | None:
    """The recorded run of each member (trained when missing and `train_missing`), or None if one is missing;
    `epochs` as in :func:`spec`."""
    train, validation, test = _as_seen(method, train, validation, test)
    records = []
    for model in _method(method).members:
        run_spec = spec(method, model, dataset, profile, seed, epochs)
        record = (runs.run(run_spec, train, test, profile, progress=False, need_weights=need_weights,
                           validation=validation)
                  if train_missing else runs.recorded(run_spec, train, test, profile, validation))
        if record is None:
            return None
        records.append(record)
    return records


def unfinished(method: str, dataset: str, train: Sequence[Problem], validation: Sequence[Problem],
               test: Sequence[Problem], profile: Profile, speeds: dict[tuple[str, ...], list[float]], seed: int = 0
               ) -> list[tuple[RunSpec, int, float]]:
    """Each member run of `method` on `dataset` not recorded yet, with the epochs an interrupted attempt saved and
    a rough time in minutes for the rest (`runs.unfinished`): what ``--plan`` lists."""
    train, validation, test = _as_seen(method, train, validation, test)
    out = []
    for model in _method(method).members:
        run_spec = spec(method, model, dataset, profile, seed)
        if (left := runs.unfinished(run_spec, train, test, profile, speeds, validation)) is not None:
            out.append((run_spec, *left))
    return out


def predictions(records: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """A method's per-problem predictions: its one member's, or MathEN's choice among its members'."""
    return list(records[0]["predictions"]) if len(records) == 1 else mathen.ensemble(
        [r["predictions"] for r in records])


def correctness(records: Sequence[dict[str, Any]]) -> Correctness:
    """A method's test problems → answered right, from its :func:`predictions` (what accuracies and paired tests
    read)."""
    return {r["id"]: bool(r["correct"]) for r in predictions(records)}


def scorer(method: str, dataset: str, validation: Sequence[Problem], test: Sequence[Problem], profile: Profile,
           seed: int) -> ScoreFn:
    """The data ranker of Algorithm 1: train `method` on the grown set (or find it recorded, with its weights)
    and score each candidate by its members' best log-probability of their own prediction."""
    def score(grown: Sequence[Problem], candidates: Sequence[Problem]) -> list[float]:
        records = train_method(method, dataset, grown, validation, test, profile, seed, need_weights=True)
        assert records is not None
        (candidates,) = _as_seen(method, candidates)
        best = [float("-inf")] * len(candidates)
        for record in records:
            path = runs.weights_of(record, retrained_ok=True)
            assert path is not None, "train_method(need_weights=True) leaves each member's weights here"
            model, max_len = load_checkpoint(path)
            scores = confidence(model, candidates, beam=profile.beam_size, max_len=max_len)
            best = [max(a, b) for a, b in zip(best, scores)]
        return best
    return score


def _problem_dict(problem: Problem) -> dict[str, Any]:
    return {**asdict(problem), "meta": dict(problem.meta)}


def _problem(row: dict[str, Any]) -> Problem:
    return Problem(**{**row, "numbers": tuple(row["numbers"]), "prefix": tuple(row["prefix"])})


def augmented(method: str, dataset: str, train: Sequence[Problem], validation: Sequence[Problem],
              test: Sequence[Problem], profile: Profile, seed: int = 0, *, operations: tuple[int, ...] | None = None,
              ranked: bool = True, train_missing: bool = True) -> dict[str, Any] | None:
    """Algorithm 1 with `method` as the ranker (``ranked=False``: a random sample of the same size) over the
    profile's iterations, with its operations (`operations`, else the plan's) and shared evidence: the committed
    augmentation record (the kept problems and each round's counts), made first when missing and
    `train_missing`, else None."""
    plan = profile.compositional
    iterations, operations = plan.da_iterations, operations or plan.da_operations
    blob = json.dumps({"method": method, "dataset": dataset, "operations": list(operations), "ranked": ranked,
                       "iterations": iterations, "seed": seed, "protocol": protocol(plan.da_min_shared),
                       "data": runs.data_checksum(train, test, validation),
                       "spec": [spec(method, m, dataset, profile, seed).describe() for m in _method(method).members]},
                      sort_keys=True)
    key = hashlib.sha256(blob.encode()).hexdigest()[:16]
    path = record_path(paths.runs_dir(profile.name) / "augmentation" / dataset, key)
    if path.exists():
        return read_record(path, ("kept", "rounds"))
    if not train_missing:
        return None
    score = scorer(method, dataset, validation, test, profile, seed) if ranked else None
    grown, rounds = augment(list(train), iterations, score, operations=operations, seed=seed,
                            min_shared=plan.da_min_shared)
    record = {"key": key, "method": method, "dataset": dataset, "operations": list(operations), "ranked": ranked,
              "iterations": iterations, "seed": seed, "rounds": [asdict(r) for r in rounds],
              "kept": [_problem_dict(p) for p in grown[len(train):]], "manifest": run_manifest(profile, seed)}
    write_record(path, record)
    return record


def grown_sets(train: Sequence[Problem], record: dict[str, Any]) -> list[list[Problem]]:
    """The training set after each round of an augmentation record (round 0: `train` itself); `DamagedRecord`
    naming the record when its kept problems or rounds cannot be read."""
    try:
        kept, sets, start = [_problem(row) for row in record["kept"]], [list(train)], 0
        for round_ in record["rounds"]:
            start += round_["kept"]
            sets.append(list(train) + kept[:start])
    except (KeyError, TypeError) as error:
        raise DamagedRecord(f"augmentation record {record.get('key', '?')} ({record.get('dataset', '?')}): damaged "
                            f"({type(error).__name__}: {error}); restore it with git") from None
    return sets
