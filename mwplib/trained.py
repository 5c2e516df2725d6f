"""A trained solver by name, the one way to get one (README "I want to solve my own problem", ``python -m mwplib
solve``).

Weights are never committed, only run records. :func:`solver_for` finds the run of a model × embedding × dataset
under a profile, trains it here when its weights are not on this machine (saying first about how long that
takes) and loads them; the committed record is never changed (:func:`mwplib.runs.run` with `need_weights`).
"""
from __future__ import annotations

import math
import os
import sys
from dataclasses import replace
from typing import Any

from . import runs
from .problem import Split
from .profiles import DEFAULT_SOLVER, PROFILES, Profile
from .run_spec import RunSpec
from .solver import Solver
from .train import pick_device
from .transfer import MissingWeights

#: what `solver_for` trains when not told otherwise (`profiles.DEFAULT_SOLVER`: the command line's defaults too)
DEFAULT = DEFAULT_SOLVER
#: the fields of :data:`DEFAULT` that name its run; its ``epochs`` apply to that run only
DEFAULT_KEYS = ("model", "embedding", "dataset", "profile")


def from_run(record: dict[str, Any]) -> Solver:
    """The solver of a recorded run whose weights are on this machine, decoding with the beam its record was
    scored with; raises :class:`MissingWeights` naming :func:`solver_for` otherwise."""
    path = runs.weights_of(record, retrained_ok=True)
    if path is None:
        spec = record["spec"]
        raise MissingWeights(f"run {record['key']} ({spec['model']} {spec['config']['embedding']} {spec['dataset']}) "
                             "has no weights on this machine: mwplib.trained.solver_for(...) trains them")
    return Solver.load(path, beam=record["spec"]["beam"])


def _run_of(model: str, embedding: str, dataset: str, profile: Profile, fold: int, seed: int
            ) -> tuple[Split, RunSpec, dict[str, Any] | None]:
    """The split, the run spec and its record (None when not recorded) of a solver by name: the default solver
    at its own epochs (:data:`DEFAULT`), any other at its profile's."""
    split = runs.dataset_splits(dataset)[fold]
    spec = runs.spec_for(model, embedding, dataset, split.name, fold, profile, seed)
    if (model, embedding, dataset, profile.name, fold) == (*(DEFAULT[k] for k in DEFAULT_KEYS), 0):
        spec = replace(spec, epochs=DEFAULT["epochs"])
    return split, spec, runs.recorded(spec, split.train, split.test, profile)


def solver_for(model: str = DEFAULT["model"], embedding: str = DEFAULT["embedding"],
               dataset: str = DEFAULT["dataset"], profile: Profile = PROFILES[DEFAULT["profile"]], *, fold: int = 0,
               seed: int = 0, progress: bool = True) -> Solver:
    """The solver of `model` × `embedding` trained on `dataset` (a name of :func:`mwplib.runs.dataset_splits`) under
    `profile`, fold `fold`: loaded when its weights are here, else trained first (the time it will take is printed
    before it starts: the recorded run's own time on this kind of machine, else an estimate from other runs)."""
    split, spec, record = _run_of(model, embedding, dataset, profile, fold, seed)
    if record is None or runs.weights_of(record, retrained_ok=True) is None:
        same_machine = record is not None and record["device"] == str(pick_device())
        minutes = (record["timing"]["wall_seconds"] / 60 if same_machine  # its own recorded time: the best guess
                   else runs.estimate_minutes(spec, len(split.train), spec.epochs, runs.recorded_speeds()))
        print(f"training {model} {runs.embedding_label(embedding)} on {dataset} fold {fold} ({profile.name}, "
              f"{spec.epochs} epochs): " + (f"about {minutes:.0f} min on this machine" if not math.isnan(minutes)
                                            else "no recorded run to estimate its time from") + _load_note(),
              file=sys.stderr, flush=True)  # standard output is the answers
        record = runs.run(spec, split.train, split.test, profile, progress=progress, need_weights=True)
    return from_run(record)


def _load_note() -> str:
    """What the machine's load does to the estimate (which is an idle machine's): other processes already running on
    its cores share them with the training, which then takes longer, several-fold where they use every core too."""
    busy, cores = os.getloadavg()[0], os.cpu_count() or 1
    return (f", when idle: {busy:.1f} processes already compete for its {cores} cores, so expect longer"
            if busy >= 0.5 else "")


def describe(model: str = DEFAULT["model"], embedding: str = DEFAULT["embedding"], dataset: str = DEFAULT["dataset"],
             profile: Profile = PROFILES[DEFAULT["profile"]], *, fold: int = 0, seed: int = 0) -> str:
    """Which solver answers, in one line for its user: its run, its recorded test accuracy (SVAMP for the default
    dataset) and where its weights are on this machine."""
    _, spec, record = _run_of(model, embedding, dataset, profile, fold, seed)
    if record is None:
        return f"solver: {runs.run_label(spec.describe())} ({profile.name}): not trained yet"
    scored = "SVAMP" if dataset == runs.SVAMP_DATASET else f"{dataset} fold {fold}"
    weights = runs.weights_of(record, retrained_ok=True) or "not on this machine"
    return (f"solver: {runs.run_label(record['spec'])} ({profile.name}), "
            f"{100 * record['metrics']['test_accuracy']:.1f} % on {scored} (its run record); weights: {weights}")
