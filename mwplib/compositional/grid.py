"""What notebook 07 trains under a profile, and what of it is recorded: the run datasets of Table II (the pools'
I.I.D. and ComDiv splits and SD, by run dataset name), the methods' runs on them, the +DA chains and Table IV's
ablations, the base at equal optimizer steps, Fig. 5a's ladder, and `plan` (what is missing, with a rough time; the
``--plan`` of ``python -m mwplib.compositional``). The tables (`experiments`, `comparisons`) read these runs; what a
profile's plan holds is `Profile.compositional`.
"""
from __future__ import annotations

import itertools
import math
import statistics
from typing import Any, Iterator, Sequence

import pandas as pd

from .. import runs
from ..problem import Problem, Split
from ..profiles import CompositionalPlan, Profile
from . import datasets, sd, training

#: split name → Table II's column: a plan trains I.I.D. and one of the ComDiv splits (`CompositionalPlan.comdiv`)
SPLIT_NAMES = {"iid": "I.I.D.", "comdiv": "ComDiv", "comdiv-pooled": "ComDiv"}


def table2_splits(plan: CompositionalPlan) -> tuple[str, str]:
    """The splits of a pool Table II trains under `plan`: I.I.D. and its ComDiv."""
    return "iid", plan.comdiv


def is_comdiv(dataset: str) -> bool:
    """Whether a run dataset name (``mawps-comdiv-pooled``) is one of Table II's ComDiv columns."""
    return SPLIT_NAMES.get(dataset.partition("-")[2]) == "ComDiv"


def column(dataset: str) -> tuple[str, str]:
    """A run dataset name as Table II's (pool, column): ``mawps-comdiv-pooled`` → (mawps, ComDiv), ``sd-zh`` →
    (sd, zh)."""
    pool, _, name = dataset.partition("-")
    if pool != "sd" and name not in SPLIT_NAMES:
        raise ValueError(f"run dataset {dataset!r} is not a column of Table II")
    return (pool, SPLIT_NAMES[name]) if pool != "sd" else ("sd", name)


def limited(split: Split, profile: Profile) -> tuple[list[Problem], list[Problem], list[Problem]]:
    """The training, validation and test problems a profile uses (smoke: the first few; the run cache cuts a
    training set to the same length again, so under smoke a +DA run never sees its augmented problems)."""
    limit = profile.train_limit or None
    return list(split.train)[:limit], list(split.dev)[:profile.test_limit or None], list(split.test)[
        :profile.test_limit or None]


def datasets_for(profile: Profile, seed: int = 0) -> dict[str, Split]:
    """Every dataset Table II trains on under `profile`, by run dataset name."""
    plan = profile.compositional
    out = {f"{pool}-{name}": datasets.as_split(pool, name, seed)
           for pool in plan.pools for name in table2_splits(plan)}
    made = {language: sd.sd_set(language, plan.sd_build) for language in plan.sd}
    out.update({f"sd-{language}": sd.sd_split(language, seed, plan.sd_build) for language in plan.sd
                if made[language].train and made[language].test})  # an SD no problem passed: nothing to train
    return out


def validation_sizes(profile: Profile, seed: int = 0) -> dict[str, int]:
    """Each SD set's validation problems under `profile` (Table II's SD valid column is scored on them)."""
    return {dataset: len(limited(split, profile)[1]) for dataset, split in datasets_for(profile, seed).items()
            if dataset.startswith("sd-")}


# ---------------------------------------------------------------- runs

def method_runs(profile: Profile, seed: int = 0, train_missing: bool = True
                ) -> dict[tuple[str, str], list[dict[str, Any]]]:
    """(method, dataset) → its member runs, for every Table II cell the profile trains (missing ones left out
    when not `train_missing`)."""
    out = {}
    for dataset, split in datasets_for(profile, seed).items():
        train, validation, test = limited(split, profile)
        for method in profile.compositional.methods:
            records = training.train_method(method, dataset, train, validation, test, profile, seed,
                                            train_missing=train_missing)
            if records is not None:
                out[(method, dataset)] = records
    return out


def ablations(plan: CompositionalPlan) -> dict[str, dict[str, Any]]:
    """Table IV's variants under `plan`, as `training.augmented` options: +DA, +DA without the ranker, and +DA
    without each of its operations where another remains (a plan with one operation has no such row)."""
    out: dict[str, dict[str, Any]] = {"+DA": {}, "− DataRanker": {"ranked": False}}
    for operation in (1, 2):
        rest = tuple(o for o in plan.da_operations if o != operation)
        if operation in plan.da_operations and rest:
            out[f"− Operation {operation}"] = {"operations": rest}
    return out


def _da_cells(profile: Profile, seed: int) -> Iterator[tuple[str, str, str, dict[str, Any], bool,
                                                             tuple[list[Problem], list[Problem], list[Problem]]]]:
    """Each +DA cell: (method, dataset, variant, its `training.augmented` options, whether the profile trains it,
    the problems). "+DA" on every dataset (the I.I.D. ones when `da_on_iid`); on ComDiv, the first +DA method's
    Table IV ablations too, trained when the profile has them, else shown when recorded."""
    plan = profile.compositional
    for dataset, split in datasets_for(profile, seed).items():
        if dataset.endswith("iid") and not plan.da_on_iid:
            continue
        problems = limited(split, profile)
        for method in plan.da_methods:
            variants = ablations(plan) if is_comdiv(dataset) and method == plan.da_methods[0] else {"+DA": {}}
            for variant, options in variants.items():
                yield method, dataset, variant, options, plan.ablation or variant == "+DA", problems


def da_cells(profile: Profile, seed: int = 0) -> list[tuple[str, str]]:
    """(method, dataset) of each +DA cell the profile trains (Table II's +DA rows), recorded or not."""
    return [(method, dataset) for method, dataset, variant, *_ in _da_cells(profile, seed) if variant == "+DA"]


def _round_sets(train: Sequence[Problem], record: dict[str, Any], ablation: bool) -> list[list[Problem]]:
    """The training sets whose runs a +DA cell reads: every round's (round 0 = without DA), or for an ablation
    (Table IV) round 0 and its last round only."""
    grown_sets = training.grown_sets(train, record)
    return [grown_sets[0], grown_sets[-1]] if ablation else grown_sets


def da_runs(profile: Profile, seed: int = 0, train_missing: bool = True
            ) -> dict[tuple[str, str, str], list[list[dict[str, Any]]]]:
    """(method, dataset, variant) → the member runs after each +DA round (round 0 = without DA), for every cell
    of `_da_cells` (an ablation the profile leaves out is a probe beside the grid: ``python -m
    mwplib.compositional --parts da --ablation``)."""
    out = {}
    for method, dataset, variant, options, trains, (train, validation, test) in _da_cells(profile, seed):
        train_this = train_missing and trains
        record = training.augmented(method, dataset, train, validation, test, profile, seed,
                                    train_missing=train_this, **options)
        if record is None:
            continue
        rounds = [training.train_method(method, dataset, grown, validation, test, profile, seed,
                                        train_missing=train_this)
                  for grown in _round_sets(train, record, bool(options))]
        if all(r is not None for r in rounds):
            out[(method, dataset, variant)] = rounds
    return out


def steps(records: Sequence[dict[str, Any]]) -> int:
    """Optimizer steps a method's (first member's) run made: epochs run (early stopping included) × batches of its
    training set."""
    record = records[0]
    return len(record["history"]) * math.ceil(record["n_train"] / record["spec"]["config"]["batch_size"])


def equal_steps_epochs(grown: Sequence[dict[str, Any]], n_train: int) -> int:
    """The epochs that make a run on `n_train` problems (the base set) take as many optimizer steps as the run
    `grown` (a +DA round's, on more problems) made, rounded."""
    per_epoch = math.ceil(n_train / grown[0]["spec"]["config"]["batch_size"])
    return max(1, round(steps(grown) / per_epoch))


def equal_steps_runs(da: dict, profile: Profile, seed: int = 0, train_missing: bool = False
                     ) -> dict[tuple[str, str], list[dict[str, Any]]]:
    """(method, run dataset) → the base method (round 0's training set) trained for the epochs that make as many
    optimizer steps as its last +DA round (`da`: :func:`da_runs`) made: a +DA run trains on more problems for the
    same epochs, so "DA helps" compares it with a base that made fewer updates. Where round 0 itself ran those
    epochs (the same steps), it is that run. A probe beside the grid (``python -m mwplib.compositional --equal-steps``),
    looked up unless `train_missing`."""
    out = {}
    for method, dataset, variant, _, _, (train, validation, test) in _da_cells(profile, seed):
        if variant != "+DA" or (method, dataset, variant) not in da:
            continue
        rounds = da[(method, dataset, variant)]
        epochs = equal_steps_epochs(rounds[-1], len(train))
        if epochs == len(rounds[0][0]["history"]):  # epochs run, not configured: early stopping may cut them
            out[(method, dataset)] = rounds[0]
        elif (base := training.train_method(method, dataset, train, validation, test, profile, seed,
                                            train_missing=train_missing, epochs=epochs)) is not None:
            out[(method, dataset)] = base
    return out


def ladder_splits(plan: CompositionalPlan) -> tuple[str, ...]:
    """The splits of Fig. 5a's ladder a plan trains: I.I.D., ComDiv and `plan.ladder`."""
    return (*table2_splits(plan), *plan.ladder)


def ladder_runs(profile: Profile, seed: int = 0, train_missing: bool = True) -> dict[tuple[str, str], Any]:
    """(pool, split name) → the first +DA method's runs on each split of Fig. 5a's ladder. The plan's splits (I.I.D.,
    ComDiv and `plan.ladder`) are trained when missing; every other split of the ladder is shown when recorded (a
    probe beside the grid: ``python -m mwplib.compositional --parts ladder --ladder NAME ...``)."""
    plan, out = profile.compositional, {}
    method = plan.da_methods[0]
    for pool in plan.pools:
        for name in datasets.split_names():
            train, validation, test = limited(datasets.as_split(pool, name, seed), profile)
            dataset = f"{pool}-{name}"
            records = training.train_method(method, dataset, train, validation, test, profile, seed,
                                            train_missing=train_missing and name in ladder_splits(plan))
            if records is not None:
                out[(pool, name)] = records
    return out


PLAN_COLUMNS = ["part", "method", "dataset", "model", "runs", "epochs", "epochs done", "estimated minutes"]


def plan(profile: Profile, seed: int = 0, device: str | None = None) -> pd.DataFrame:
    """Every run notebook 07 trains under `profile` that is not recorded yet, with a rough time on `device`'s kind
    (`runs.recorded_speeds`; "cuda" plans a GPU lease from a CPU box), NaN where no run of that model is timed.
    A +DA cell whose augmentation is not made yet counts the runs it trains (one per round, T, when ranked; without
    the ranker, one on the last round's set), each at the size the rounds recorded under this plan grew to
    (`_growth`: one MAWPS round kept 57 % more problems), or at the base set's size where none is recorded (then a
    lower bound)."""
    plan_, speeds, rows = profile.compositional, runs.recorded_speeds(device), []
    cells = [(method, dataset, variant, options, parts,
              training.augmented(method, dataset, *parts, profile, seed, train_missing=False, **options))
             for method, dataset, variant, options, trains, parts in _da_cells(profile, seed) if trains]
    growth = _growth([(parts[0], record) for *_, parts, record in cells if record is not None])

    def add(part: str, method: str, dataset: str, parts: tuple[list, list, list]) -> None:
        """Rows for `method`'s missing runs on these problems."""
        for spec, done, minutes in training.unfinished(method, dataset, *parts, profile, speeds, seed):
            rows.append((part, method, dataset, spec.model, 1, spec.epochs, done, minutes))

    def add_pending(part: str, method: str, dataset: str, n_train: int, ranked: bool) -> None:
        """Rows for the runs of an augmentation not made yet (`_round_sets`), each timed at its expected grown
        size."""
        grown = [n_train * (1 + growth) ** r for r in range(1, plan_.da_iterations + 1)]
        sizes = grown if ranked else grown[-1:]
        for model in training.METHODS[method].members:
            spec = training.spec(method, model, dataset, profile, seed)
            rows.append((part, method, dataset, model, len(sizes), spec.epochs, 0,
                         sum(runs.estimate_minutes(spec, round(n), spec.epochs, speeds) for n in sizes)))

    for dataset, split in datasets_for(profile, seed).items():
        for method in plan_.methods:
            add("table2", method, dataset, limited(split, profile))
    for method, dataset, variant, options, (train, validation, test), record in cells:
        if record is None:
            add_pending(variant, method, dataset, len(train), options.get("ranked", True))
            continue
        for grown in _round_sets(train, record, bool(options))[1:]:
            add(variant, method, dataset, (grown, validation, test))
    for pool in plan_.pools if plan_.da_methods else ():
        method = plan_.da_methods[0]
        for name in ladder_splits(plan_):
            if name not in SPLIT_NAMES or method not in plan_.methods:  # else Table II's rows list these runs
                add("ladder", method, f"{pool}-{name}", limited(datasets.as_split(pool, name, seed), profile))
    return pd.DataFrame(rows, columns=PLAN_COLUMNS)


def _growth(chains: Sequence[tuple[Sequence[Problem], dict[str, Any]]]) -> float:
    """The mean share by which one +DA round grew its training set, over recorded (base set, augmentation record)
    chains; 0 when none is recorded."""
    shares = [len(grown) / len(before) - 1 for train, record in chains
              for before, grown in itertools.pairwise(training.grown_sets(train, record))]
    return statistics.fmean(shares) if shares else 0.0
