"""Notebook 07's tables and figures (Lan et al. 2022): Table I (splits), Tables II–IV (accuracy), Fig. 5 and the
findings, each beside the paper's numbers. What trains under a profile is `Profile.compositional`.

Table II prints both protocols: the test accuracy at the epoch validation chooses (ours) and the best test
epoch (the protocol of most MWP papers' code); the paper selects on a 20 % validation part (§V-B), so the first is its protocol
too. Math23K is its public 6,234 problems and says so; Table IV names the method that stands in for MathEN
where the profile trains none.
"""
from __future__ import annotations

import functools
import itertools
import math
import statistics
from collections import Counter
from typing import Any, Iterator, Mapping, Sequence

import pandas as pd

from .. import findings, outputs, runs
from ..metrics import percent
from ..problem import Problem, Split
from ..profiles import CompositionalPlan, Profile
from ..significance import gain_difference, paired_difference, rel_gap_difference
from ..text import tokenize
from ..train import split_validation
from . import atoms, audit, datasets, proofread, splits, synthesis, training
from .divergence import KEYSERS_ALPHAS
from .findings import EQUAL_STEPS
from .paper_numbers import (PAPER_ALPHA_SENTENCE, PAPER_REL_GAP, PAPER_SHARE, PAPER_TABLE1, PAPER_TABLE2,
                            PAPER_TABLE3, PAPER_TABLE4)
from .sentences import is_chinese

#: each pool's name as the paper's tables print it
PAPER_NAMES = {"mawps": "MAWPS", "math23k": "Math23K", "sd": "SD"}
TABLE2_COLUMNS = (("math23k", "I.I.D."), ("math23k", "ComDiv"), ("mawps", "I.I.D."), ("mawps", "ComDiv"),
                  ("sd", "valid"), ("sd", "test"))
#: methods of Table II that need a model hub or a Chinese encoder this project cannot load offline
UNAVAILABLE = {"BERTGen": "no pretrained encoder-decoder offline (MiniLM is English only; no Chinese BERT)",
               "GPT-2": "no model hub reachable"}
#: Table I's splits: I.I.D., ComDiv built on one k-means draw, and on several at once (`datasets.make_pooled_splits`)
TABLE1_SPLITS = {"iid": "I.I.D.", "comdiv": "ComDiv", "comdiv-pooled": "ComDiv, pooled draws"}
#: split name → Table II's column: a plan trains I.I.D. and one of the ComDiv splits (`CompositionalPlan.comdiv`)
SPLIT_NAMES = {"iid": "I.I.D.", "comdiv": "ComDiv", "comdiv-pooled": "ComDiv"}
#: the ladder's column of compound divergence re-measured under the held-out draws
REDRAWN = "DBCA^c re-drawn"


def table2_splits(plan: CompositionalPlan) -> tuple[str, str]:
    """The splits of a pool Table II trains under `plan`: I.I.D. and its ComDiv."""
    return "iid", plan.comdiv


def _is_comdiv(dataset: str) -> bool:
    """Whether a run dataset name (``mawps-comdiv-pooled``) is one of Table II's ComDiv columns."""
    return SPLIT_NAMES.get(dataset.partition("-")[2]) == "ComDiv"


# ---------------------------------------------------------------- data

#: SD's builds: proofread by hand (`proofread`), or as the synthesis builds it
SD_BUILDS = ("proofread", "as built")


@functools.cache
def sd_built(language: str, reading: str = "some", seed: int = 0, checked: bool = False) -> synthesis.SDSet:
    """SD as the synthesis builds it, from the Math23K public pool (``"zh"``, the paper's) or from MAWPS + ASDiv-A
    (``"en"``, ours); `checked` applies `coherence`'s preconditions (tried, not adopted)."""
    from .. import data

    if language == "zh":
        return synthesis.synthesize(data.load_math23k(), seed, reading, checked)
    if language == "en":
        return synthesis.synthesize([*data.load_mawps_2373(), *data.load_asdiv_a_problems()], seed, reading, checked)
    raise ValueError(f"unknown SD language {language!r}; choose zh or en")


@functools.cache
def sd_proofread(language: str) -> proofread.Proofread:
    """SD as built, through its committed proofreading table (`proofread`), and what proofreading removed."""
    return proofread.proofread(sd_built(language), language)


def sd_set(language: str, build: str = "proofread") -> synthesis.SDSet:
    """SD as notebook 07 uses it: ``"proofread"`` by hand (the paper's), or ``"as built"`` (`CompositionalPlan`)."""
    if build not in SD_BUILDS:
        raise ValueError(f"unknown SD build {build!r}; choose one of {SD_BUILDS}")
    return sd_proofread(language).made if build == "proofread" else sd_built(language)


def sd_split(language: str, seed: int = 0, build: str = "proofread") -> Split:
    """SD as a split, its validation part carved once from its training set (20 %, seeded)."""
    made = sd_set(language, build)
    fit, validation = split_validation(made.train, splits.VALIDATION_FRACTION, seed)
    return Split(f"sd-{language}", tuple(fit), made.test, tuple(validation))


def _limited(split: Split, profile: Profile) -> tuple[list[Problem], list[Problem], list[Problem]]:
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
    made = {language: sd_set(language, plan.sd_build) for language in plan.sd}
    out.update({f"sd-{language}": sd_split(language, seed, plan.sd_build) for language in plan.sd
                if made[language].train and made[language].test})  # an SD no problem passed: nothing to train
    return out


# ---------------------------------------------------------------- Table I

def _length_ratio(train: Sequence[Problem], test: Sequence[Problem]) -> float:
    """LR: mean text length (words; characters for Chinese) of train over test."""
    def length(p: Problem) -> int:
        return len(p.text) if is_chinese(p.text) else len(tokenize(p.text))
    return statistics.mean(map(length, train)) / statistics.mean(map(length, test))


def sd_divergence(language: str, seed: int = 0) -> splits.SplitIds:
    """SD's atom and compound divergence, its quantities clustered with the k chosen for its source pool."""
    made = sd_set(language)
    problems = [*made.train, *made.test]
    k = datasets.split_files("math23k" if language == "zh" else "mawps", seed)["comdiv"]["k"]
    structs = atoms.structures(problems, atoms.cluster_quantities(problems, k, seed))
    return splits.measure(f"sd-{language}", [p.id for p in made.train], [p.id for p in made.test], structs)


def table1(seed: int = 0) -> pd.DataFrame:
    """Table I beside the paper: sizes, NR = train / test size, LR, DBCA^a, DBCA^c for every split; each DBCA also
    re-measured under the held-out k-means draws (`datasets.redrawn`: mean, s.d., worst) and, as re-measured, under
    the α convention of the implementation the paper cites (`divergence.KEYSERS_ALPHAS`)."""
    rows = []
    for pool in ("math23k", "mawps"):
        redrawn = pd.DataFrame(datasets.redrawn(pool, seed))
        for name, label in TABLE1_SPLITS.items():
            split, record = datasets.as_split(pool, name, seed), datasets.split_files(pool, seed)[name]
            train = [*split.train, *split.dev]  # the paper's train size includes its validation part
            ours = (len(train), len(split.test), _length_ratio(train, split.test),
                    record["atom_divergence"], record["compound_divergence"])
            built = f"k = {record['k']}, " + (f"built on draws {record['draws'][0]}–{record['draws'][-1]} pooled"
                                              if "draws" in record else f"built on draw {seed}")
            paper = PAPER_TABLE1[(PAPER_NAMES[pool], label.split(",")[0])]
            rows += _table1_rows(datasets.LABELS[pool], label, paper, ours, built,
                                 redrawn[(redrawn["split"] == name) & (redrawn["alpha"] == "paper")])
            keysers = redrawn[(redrawn["split"] == name) & (redrawn["alpha"] == "Keysers")]
            for statistic, alpha in zip(("DBCA^a", "DBCA^c"), KEYSERS_ALPHAS):
                rows.append({"dataset": datasets.LABELS[pool], "split": label,
                             "statistic": f"{statistic}, α = {alpha} (Keysers et al.)", "paper": None,
                             "ours": keysers[statistic].mean(), **_spread(keysers[statistic], statistic),
                             "note": "mean of the re-drawn clusterings; the paper: " + PAPER_ALPHA_SENTENCE})
    for language in ("zh", "en"):
        made = sd_set(language)
        if made.train and made.test:
            measured = sd_divergence(language, seed)
            ours = (len(made.train), len(made.test), _length_ratio(made.train, made.test), measured.atom_divergence,
                    measured.compound_divergence)
        else:
            ours = (len(made.train), len(made.test), *(float("nan"),) * 3)
        paper = PAPER_TABLE1[("SD", "ComDiv")] if language == "zh" else (None,) * 5
        pool = "SD from Math23K, public 6,234" if language == "zh" else "SD from MAWPS + ASDiv-A (ours)"
        rows += _table1_rows(pool, "ComDiv", paper, ours, _audited(f"sd-{language}-after-proofreading"))
    return pd.DataFrame(rows)


def _audited(name: str) -> str:
    """Table I's note on an SD set: proofread by hand, and its acceptable share in the audit of a fresh sample."""
    if not audit.path(name).exists():
        return "proofread by hand; not yet audited"
    table = audit.judged(name)
    share = audit.shares([table])["acceptable %"].iloc[0]
    return f"proofread by hand; audit of a fresh sample: {share:g} % of {len(table)} acceptable"


def _spread(values: pd.Series, statistic: str) -> dict[str, float]:
    """A divergence over re-drawn clusterings: mean, s.d. and the worst draw (the largest DBCA^a, the smallest
    DBCA^c)."""
    worst = values.max() if statistic.startswith("DBCA^a") else values.min()
    return {"re-drawn mean": values.mean(), "re-drawn s.d.": values.std(ddof=1), "re-drawn worst": worst}


def _table1_rows(pool: str, split: str, paper: Sequence[Any], ours: Sequence[float], note: str,
                 redrawn: pd.DataFrame | None = None) -> list[dict]:
    names = ("train", "test", "NR", "LR", "DBCA^a", "DBCA^c")
    paper_values = [*paper[:2], paper[0] / paper[1] if paper[0] else None, *paper[2:]]
    our_values = [*ours[:2], ours[0] / ours[1] if ours[1] else float("nan"), *ours[2:]]
    rows = []
    for n, p, o in zip(names, paper_values, our_values):
        spread = {}
        if redrawn is not None and n.startswith("DBCA"):
            spread = _spread(redrawn[n], n)
        rows.append({"dataset": pool, "split": split, "statistic": n, "paper": p, "ours": o, **spread, "note": note})
    return rows


def sd_sizes() -> pd.DataFrame:
    """SD's sizes without and with the preconditions (`coherence`), under both readings of the reformulation
    condition, and what was abandoned or ill formed."""
    rows = []
    for language in ("zh", "en"):
        for checked, reading in (*((False, r) for r in synthesis.READINGS), (True, "some")):
            made = sd_built(language, reading, checked=checked)
            kinds = [p.meta["composition"] for p in made.test]
            rows.append({"SD": language, "preconditions": "yes" if checked else "no", "reading": reading,
                         "train": len(made.train), "test": len(made.test),
                         "structural": kinds.count(synthesis.STRUCTURAL),
                         "lexical": kinds.count(synthesis.LEXICAL),
                         "abandoned": sum(made.abandoned.values()), "not well formed": sum(made.ill_formed.values())})
    return pd.DataFrame(rows)


def sd_proofreading() -> pd.DataFrame:
    """What proofreading did to SD, per language and part: problems built, the verdicts, fixes refused (their
    numbers were not the original's), problems dropped with their group, and problems kept."""
    rows = []
    for language in ("zh", "en"):
        done = sd_proofread(language)
        final = Counter(part for _, part in synthesis.labelled(done.made))
        refused = Counter(part for p, part in synthesis.labelled(sd_built(language)) if p.id in done.refused_fixes)
        for name in ("train", "test structural", "test lexical"):
            verdicts = {v: done.verdicts[(name, v)] for v in proofread.VERDICTS}
            rows.append({"SD": language, "part": name, "built": sum(verdicts.values()), **verdicts,
                         "fix refused": refused[name], "dropped with its group": done.dropped_with_group[name],
                         "kept": final[name]})
    return pd.DataFrame(rows)


def sd_rejections(language: str) -> pd.DataFrame:
    """Under the preconditions (`coherence`), the seeds whose every donor failed one, per rule and the most similar
    donor's first failure."""
    made = sd_built(language, checked=True)
    return pd.DataFrame([{"rule": rule, "first failure": reason, "seeds": n}
                         for (rule, reason), n in sorted(made.incoherent.items())],
                        columns=["rule", "first failure", "seeds"])


def sd_sample(language: str, n: int = 6) -> pd.DataFrame:
    """A few proofread SD problems of each kind for the reader to judge, a fixed one beside its text as built."""
    made = sd_set(language)
    picked = [p for p in made.train if "-r" in p.id][:n // 2] + list(made.test[:n // 2])
    return pd.DataFrame([{"id": p.id, "part": "train" if p in made.train else "test", "rule": p.meta["rule"],
                          "composition": p.meta.get("composition", ""), "text": p.text,
                          "as built": p.meta.get("as_built", "(kept as built)"), "expression": proofread.shown(p)}
                         for p in picked])


# ---------------------------------------------------------------- runs

def method_runs(profile: Profile, seed: int = 0, train_missing: bool = True
                ) -> dict[tuple[str, str], list[dict[str, Any]]]:
    """(method, dataset) → its member runs, for every Table II cell the profile trains (missing ones left out
    when not `train_missing`)."""
    out = {}
    for dataset, split in datasets_for(profile, seed).items():
        train, validation, test = _limited(split, profile)
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
        problems = _limited(split, profile)
        for method in plan.da_methods:
            variants = ablations(plan) if _is_comdiv(dataset) and method == plan.da_methods[0] else {"+DA": {}}
            for variant, options in variants.items():
                yield method, dataset, variant, options, plan.ablation or variant == "+DA", problems


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
                                        train_missing=train_this) for grown in _round_sets(train, record, bool(options))]
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
    same epochs, so "DA helps" compares it with a base that made fewer updates. Where the epochs come out the
    base's own, round 0 is that run. A probe beside the grid (``python -m mwplib.compositional --equal-steps``),
    looked up unless `train_missing`."""
    out = {}
    for method, dataset, variant, _, _, (train, validation, test) in _da_cells(profile, seed):
        if variant != "+DA" or (method, dataset, variant) not in da:
            continue
        rounds = da[(method, dataset, variant)]
        epochs = equal_steps_epochs(rounds[-1], len(train))
        if epochs == rounds[0][0]["spec"]["epochs"]:
            out[(method, dataset)] = rounds[0]
        elif (base := training.train_method(method, dataset, train, validation, test, profile, seed,
                                            train_missing=train_missing, epochs=epochs)) is not None:
            out[(method, dataset)] = base
    return out


def equal_steps_table(da: dict, equal: dict) -> pd.DataFrame:
    """Each +DA cell beside its base at its own epochs and at equal optimizer steps (:func:`equal_steps_runs`):
    problems, epochs run and steps of each run, test accuracy (%, epoch by validation) and McNemar's p of +DA
    against the base at equal steps."""
    rows = []
    for (method, dataset), base in equal.items():
        rounds = da[(method, dataset, "+DA")]
        test = paired_difference(_correct(base), _correct(rounds[-1]))
        rows.append({"method": method, "run dataset": dataset,
                     "+DA problems": rounds[-1][0]["n_train"], "+DA epochs": len(rounds[-1][0]["history"]),
                     "+DA steps": steps(rounds[-1]), "base problems": base[0]["n_train"],
                     "base epochs": len(base[0]["history"]), "base steps": steps(base),
                     "+DA": percent(_correct(rounds[-1])), "base, own epochs": percent(_correct(rounds[0])),
                     "base, equal steps": percent(_correct(base)), "+DA − base, equal steps": test["difference"],
                     "McNemar p": outputs.p_value(test["mcnemar_p"])})
    return pd.DataFrame(rows, columns=["method", "run dataset", "+DA problems", "+DA epochs", "+DA steps",
                                       "base problems", "base epochs", "base steps", "+DA", "base, own epochs",
                                       "base, equal steps", "+DA − base, equal steps", "McNemar p"])


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
            train, validation, test = _limited(datasets.as_split(pool, name, seed), profile)
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
    A +DA cell whose augmentation is not made yet counts its rounds (T when ranked, 1 without the ranker), each
    at the size the rounds recorded under this plan grew to (`_growth`: one MAWPS round kept 57 % more problems),
    or at the base set's size where none is recorded (then a lower bound)."""
    plan_, speeds, rows = profile.compositional, runs.recorded_speeds(device), []
    cells = [(method, dataset, variant, options, parts,
              training.augmented(method, dataset, *parts, profile, seed, train_missing=False, **options))
             for method, dataset, variant, options, trains, parts in _da_cells(profile, seed) if trains]
    growth = _growth([(parts[0], record) for *_, parts, record in cells if record is not None])

    def add(part: str, method: str, dataset: str, parts: tuple[list, list, list]) -> None:
        """Rows for `method`'s missing runs on these problems."""
        for spec, done, minutes in training.unfinished(method, dataset, *parts, profile, speeds, seed):
            rows.append((part, method, dataset, spec.model, 1, spec.epochs, done, minutes))

    def add_pending(part: str, method: str, dataset: str, n_train: int, rounds: int) -> None:
        """Rows for the rounds of an augmentation not made yet, each timed at its expected grown size."""
        sizes = [n_train * (1 + growth) ** r for r in range(1, rounds + 1)]
        for model in training.METHODS[method].members:
            spec = training.spec(method, model, dataset, profile, seed)
            rows.append((part, method, dataset, model, rounds, spec.epochs, 0,
                         sum(runs.estimate_minutes(spec, round(n), spec.epochs, speeds) for n in sizes)))

    for dataset, split in datasets_for(profile, seed).items():
        for method in plan_.methods:
            add("table2", method, dataset, _limited(split, profile))
    for method, dataset, variant, options, (train, validation, test), record in cells:
        if record is None:
            add_pending(variant, method, dataset, len(train), plan_.da_iterations if options.get("ranked", True) else 1)
            continue
        for grown in _round_sets(train, record, bool(options))[1:]:
            add(variant, method, dataset, (grown, validation, test))
    for pool in plan_.pools if plan_.da_methods else ():
        method = plan_.da_methods[0]
        for name in ladder_splits(plan_):
            if name not in SPLIT_NAMES or method not in plan_.methods:  # else Table II's rows list these runs
                add("ladder", method, f"{pool}-{name}", _limited(datasets.as_split(pool, name, seed), profile))
    return pd.DataFrame(rows, columns=PLAN_COLUMNS)


def _growth(chains: Sequence[tuple[Sequence[Problem], dict[str, Any]]]) -> float:
    """The mean share by which one +DA round grew its training set, over recorded (base set, augmentation record)
    chains; 0 when none is recorded."""
    shares = [len(grown) / len(before) - 1 for train, record in chains
              for before, grown in itertools.pairwise(training.grown_sets(train, record))]
    return statistics.fmean(shares) if shares else 0.0


# ---------------------------------------------------------------- accuracy

def accuracy(records: Sequence[dict[str, Any]], protocol: str = "ours") -> float:
    """A method's test accuracy (%): at the epoch validation chose (``ours``; MathEN: its ensemble there), or,
    for one model, at its best test epoch (``peer``)."""
    if protocol == "peer":
        return 100 * records[0]["metrics"]["peer_test_accuracy"] if len(records) == 1 else float("nan")
    return percent({r["id"]: r["correct"] for r in training.predictions(records)})


def validation_accuracy(records: Sequence[dict[str, Any]]) -> float:
    """Validation accuracy (%) at the chosen epoch (MathEN: the mean of its members'; the paper's SD valid)."""
    return 100 * statistics.mean(next(h["val_accuracy"] for h in r["history"] if h["epoch"] == r["metrics"]["best_epoch"])
                                 for r in records)


def collapse(records: Sequence[dict[str, Any]]) -> str:
    """A note for a run whose validation accuracy ends below half its best (Table VI's Transformer at lr 0.003
    falls to one repeated expression once its warm-up passes about 8e-4): the epoch chosen on validation then
    comes from before the fall, which the table must say. Empty when no member fell."""
    notes = []
    for record in records:
        history = [h for h in record["history"] if not pd.isna(h["val_accuracy"])]
        best = max(history, key=lambda h: h["val_accuracy"], default=None)
        if best is not None and history[-1]["val_accuracy"] < best["val_accuracy"] / 2:
            model = record.get("spec", {}).get("model", "a member")
            notes.append(f"{model}: {100 * best['val_accuracy']:.1f} % validation at epoch {best['epoch']}, "
                         f"{100 * history[-1]['val_accuracy']:.1f} % at epoch {history[-1]['epoch']}")
    return "collapsed (" + "; ".join(notes) + ")" if notes else ""


def _column(dataset: str) -> tuple[str, str]:
    """A run dataset name as Table II's (pool, column): ``mawps-comdiv-pooled`` → (mawps, ComDiv), ``sd-zh`` →
    (sd, zh)."""
    pool, _, name = dataset.partition("-")
    if pool != "sd" and name not in SPLIT_NAMES:
        raise ValueError(f"run dataset {dataset!r} is not a column of Table II")
    return (pool, SPLIT_NAMES[name]) if pool != "sd" else ("sd", name)


def validation_sizes(profile: Profile, seed: int = 0) -> dict[str, int]:
    """Each SD set's validation problems under `profile` (Table II's SD valid column is scored on them)."""
    return {dataset: len(_limited(split, profile)[1]) for dataset, split in datasets_for(profile, seed).items()
            if dataset.startswith("sd-")}


def table2(runs: dict, da: dict, profile: Profile, validation: Mapping[str, int] | None = None) -> pd.DataFrame:
    """Table II beside the paper, both protocols, Rel. Gap = Acc_IID / Acc_ComDiv − 1 per pool and SD. Every cell the
    paper prints has its row, ours empty and noted where no run is recorded (or the method is unavailable here); a
    run the paper has no cell for (SD from English) has its row too. ``n`` is a cell's test problems, or for SD
    valid its `validation` size (`validation_sizes`; none without it), so that a loss from one to the other can be
    tested."""
    validation = validation or {}
    rows = []
    cells = {(m, d): r for (m, d), r in runs.items()}
    cells.update({(f"{m}+DA", d): rounds[-1] for (m, d, v), rounds in da.items() if v == "+DA"})
    printed = [f"{pool}-{name}" for pool in ("math23k", "mawps") for name in table2_splits(profile.compositional)]
    for method in dict.fromkeys([*PAPER_TABLE2, *(m for m, _ in cells)]):
        missing = f"unavailable: {UNAVAILABLE[method]}" if method in UNAVAILABLE else "no run recorded"
        ran = sorted(d for m, d in cells if m == method and d not in (*printed, "sd-zh"))
        for dataset in [*printed, "sd-zh", *ran] if method in PAPER_TABLE2 else sorted(d for m, d in cells
                                                                                       if m == method):
            records = cells.get((method, dataset))
            pool, column = _column(dataset)
            paper = dict(zip(TABLE2_COLUMNS, PAPER_TABLE2.get(method, (None,) * 6) if dataset != "sd-en"
                             else (None,) * 6))
            note = "; ".join(filter(None, ["SD from MAWPS + ASDiv-A (ours)" if dataset == "sd-en" else
                                           "Math23K, public 6,234" if pool == "math23k" else "",
                                           f"SD {profile.compositional.sd_build}" if pool == "sd" else "",
                                           collapse(records) if records else missing]))
            ours, peer = (accuracy(records), accuracy(records, "peer")) if records else (float("nan"),) * 2
            if pool == "sd":
                rows.append(_row(method, "SD", "valid", paper[("sd", "valid")],
                                 validation_accuracy(records) if records else float("nan"), float("nan"), note,
                                 dataset, validation.get(dataset) if records else None))
                column = "test"
            key = ("sd", "test") if pool == "sd" else (pool, column)
            rows.append(_row(method, pool, column, paper[key], ours, peer, note, dataset,
                             len(training.predictions(records)) if records else None))
    frame = pd.DataFrame(rows)
    frame = pd.concat([frame, _gaps(frame)], ignore_index=True) if len(frame) else frame
    return frame.astype({"n": "Int64"}) if len(frame) else frame


def _row(method: str, pool: str, column: str, paper: float | None, ours: float, peer: float, note: str,
         dataset: str, n: int | None) -> dict[str, Any]:
    label = PAPER_NAMES.get(pool, pool)
    return {"method": method, "dataset": label, "split": column, "paper": paper, "ours": ours,
            "ours, best test epoch": peer, "n": n, "note": note, "run dataset": dataset}


def _gaps(frame: pd.DataFrame) -> pd.DataFrame:
    """Rel. Gap rows: I.I.D. / ComDiv − 1 (MAWPS, Math23K), valid / test − 1 (SD), for each method."""
    rows = []
    pairs = {"MAWPS": ("I.I.D.", "ComDiv"), "Math23K": ("I.I.D.", "ComDiv"), "SD": ("valid", "test")}
    for (method, dataset), part in frame.groupby(["method", "dataset"], sort=False):
        part = part[part["run dataset"] != "sd-en"]  # the paper's SD is the Chinese one
        if dataset not in pairs:
            continue
        first, second = (part[part["split"] == c] for c in pairs[dataset])
        if len(first) and len(second):
            values = {col: first[col].iloc[0] / second[col].iloc[0] - 1 if second[col].iloc[0] else float("nan")
                      for col in ("ours", "ours, best test epoch")}
            paper = PAPER_REL_GAP.get(method, {}).get(dataset)  # as printed (MathEN SD: 11.7, recomputed 11.6)
            rows.append({"method": method, "dataset": dataset, "split": "Rel. Gap", "paper": paper, **values,
                         "n": None, "note": "", "run dataset": ""})
    return pd.DataFrame(rows)


def table3(runs: dict, da: dict, language: str = "zh") -> pd.DataFrame:
    """Table III: accuracy on SD test's structural (decomposition) and lexical (reformulation) parts."""
    kinds = {p.id: p.meta["composition"] for p in sd_built(language).test}  # an id's kind is the same proofread
    cells = {m: r for (m, d), r in runs.items() if d == f"sd-{language}"}
    cells.update({f"{m}+DA": rounds[-1] for (m, d, v), rounds in da.items() if d == f"sd-{language}" and v == "+DA"})
    rows = []
    for method, records in cells.items():
        correct = {r["id"]: r["correct"] for r in training.predictions(records)}
        paper = PAPER_TABLE3.get(method, (None, None))
        for kind, value in zip((synthesis.STRUCTURAL, synthesis.LEXICAL), paper):
            ids = [i for i in correct if kinds[i] == kind]
            rows.append({"method": method, "part": kind, "n": len(ids), "paper": value,
                         "ours": percent(correct, ids) if ids else float("nan")})
    return pd.DataFrame(rows, columns=["method", "part", "n", "paper", "ours"])


def table4(da: dict, profile: Profile) -> pd.DataFrame:
    """Table IV: the +DA gain of the first +DA method and its ablations on the ComDiv splits; a variant the paper
    prints and the plan has no run for has its row, with why."""
    rows = []
    plan = profile.compositional
    method = plan.da_methods[0]
    for (m, dataset, variant), rounds in da.items():
        if m != method or not _is_comdiv(dataset):
            continue
        pool = dataset.split("-")[0]
        paper = PAPER_TABLE4[variant][0 if pool == "math23k" else 1]
        rows.append({"method": method, "dataset": datasets.LABELS[pool], "variant": variant,
                     "paper (MathEN)": paper, "ours": accuracy(rounds[-1]),
                     "ours without DA": accuracy(rounds[0]), "run dataset": dataset, "note": ""})
    ran = {(row["dataset"], row["variant"]) for row in rows}
    for pool in plan.pools:
        label = datasets.LABELS[pool]
        for variant, values in PAPER_TABLE4.items():
            if (label, variant) not in ran:
                operation = variant.removeprefix("− Operation ")
                why = (f"not run: this profile's +DA uses operation {plan.da_operations[0]} only"
                       if operation.isdigit() and len(plan.da_operations) == 1 else "no run recorded")
                rows.append({"method": method, "dataset": label, "variant": variant,
                             "paper (MathEN)": values[0 if pool == "math23k" else 1], "ours": float("nan"),
                             "ours without DA": float("nan"), "run dataset": "", "note": why})
    return pd.DataFrame(rows, columns=["method", "dataset", "variant", "paper (MathEN)", "ours", "ours without DA",
                                       "run dataset", "note"])


def da_pairs(da: dict) -> dict[tuple[str, str], tuple[list[dict[str, Any]], list[dict[str, Any]]]]:
    """(method, run dataset) → (its base's runs, its +DA runs) for each +DA chain of `da` (:func:`da_runs`): round 0
    of the chain (the same seed and test problems; Table II's base cell) and its last round (Table II's +DA cell).
    One pairing for "data augmentation helps" (:func:`paired_tests`) and "DA helps most on SD"
    (:func:`da_gain_intervals`)."""
    return {(m, d): (rounds[0], rounds[-1]) for (m, d, v), rounds in da.items() if v == "+DA"}


def paired_tests(runs: dict, da: dict, equal: dict | None = None) -> pd.DataFrame:
    """Exact McNemar tests of every pair of Table II / IV cells scored on one test set that a finding compares:
    each +DA method against its base (:func:`da_pairs`) and, where `equal` (:func:`equal_steps_runs`) has it,
    against the base at equal optimizer steps; and each Table IV ablation against the full +DA. A finding on such a
    pair holds only when p < 0.05 (`findings.SIGNIFICANCE`)."""
    rows = []
    chains = da_pairs(da)
    full = {cell: augmented for cell, (_, augmented) in chains.items()}
    for (method, dataset, variant), rounds in da.items():
        pairs = []
        if variant == "+DA":
            base, augmented = chains[(method, dataset)]
            pairs.append((f"{method}+DA", method, augmented, base))
        if variant == "+DA" and (method, dataset) in (equal or {}):
            pairs.append((f"{method}+DA", method + EQUAL_STEPS, rounds[-1], equal[(method, dataset)]))
        if variant != "+DA" and (method, dataset) in full:
            pairs.append(("+DA", variant, full[(method, dataset)], rounds[-1]))
        for a, b, first, second in pairs:
            test = paired_difference(_correct(second), _correct(first))  # first's accuracy minus second's
            rows.append({"a": a, "b": b, "run dataset": dataset, "n": test["n"], "a − b": test["difference"],
                         "only a right": test["only_second"], "only b right": test["only_first"],
                         "McNemar p": test["mcnemar_p"]})
    return pd.DataFrame(rows, columns=["a", "b", "run dataset", "n", "a − b", "only a right", "only b right",
                                       "McNemar p"])


def rel_gap_intervals(runs: dict, pools: Sequence[str] = ("mawps", "math23k")) -> pd.DataFrame:
    """For "GTS has the lowest Rel. Gap": each other method's Rel. Gap minus GTS's on a pool where both ran on its
    I.I.D. and ComDiv splits, with a 95 % bootstrap interval over the test problems (`significance.rel_gap_difference`)."""
    rows = []
    cells = {(m, d.partition("-")[0], _column(d)[1]): r for (m, d), r in runs.items() if not d.startswith("sd-")}
    for pool in pools:
        for method in ("LSTM", "Transformer", "MathEN"):
            sides = [(cells.get((m, pool, "I.I.D.")), cells.get((m, pool, "ComDiv"))) for m in (method, "GTS")]
            if all(r is not None for side in sides for r in side):
                test = rel_gap_difference(*[tuple(_correct(side[k]) for side in sides) for k in (0, 1)])
                rows.append({"dataset": PAPER_NAMES[pool], "a": method, "b": "GTS",
                             "Rel. Gap a − b": test["difference"], "ci_low": test["ci_low"],
                             "ci_high": test["ci_high"]})
    return pd.DataFrame(rows, columns=["dataset", "a", "b", "Rel. Gap a − b", "ci_low", "ci_high"])


def da_gain_intervals(da: dict) -> pd.DataFrame:
    """For "DA helps most on SD": each +DA method's gain over its base (:func:`da_pairs`) on an SD test set minus
    its gain on a pool's ComDiv test set, in points, with a 95 % bootstrap interval (each test set resampled on its
    own, paired between base and +DA: `significance.gain_difference`); one row per SD set and ComDiv pool that
    both have a +DA chain. Each gain alone is McNemar's (:func:`paired_tests`); their difference spans two test
    sets, so it needs an interval of its own."""
    chains = da_pairs(da)
    rows = []
    for (method, sd), sd_runs in chains.items():
        if not sd.startswith("sd-"):
            continue
        for (other, comdiv), comdiv_runs in chains.items():
            if other == method and _is_comdiv(comdiv):
                test = gain_difference(tuple(map(_correct, sd_runs)), tuple(map(_correct, comdiv_runs)))
                rows.append({"method": f"{method}+DA", "run dataset": sd, "pool": PAPER_NAMES[_column(comdiv)[0]],
                             "pool run dataset": comdiv, "n": test["n_one"], "pool n": test["n_other"],
                             "gain on SD − gain on pool": test["difference"], "ci_low": test["ci_low"],
                             "ci_high": test["ci_high"]})
    return pd.DataFrame(rows, columns=["method", "run dataset", "pool", "pool run dataset", "n", "pool n",
                                       "gain on SD − gain on pool", "ci_low", "ci_high"])


def _correct(records: Sequence[dict[str, Any]]) -> dict[str, bool]:
    return {r["id"]: bool(r["correct"]) for r in training.predictions(records)}


def iterations(da: dict) -> pd.DataFrame:
    """Fig. 5b's data: accuracy and mean seconds per training epoch after each +DA round."""
    rows = []
    for (method, dataset, variant), rounds in da.items():
        if variant != "+DA":
            continue
        for i, records in enumerate(rounds):
            rows.append({"method": method, "dataset": dataset, "iteration": i,
                         "train problems": records[0]["n_train"], "accuracy": accuracy(records),
                         "seconds per epoch": sum(r["timing"]["seconds_per_epoch"] for r in records)})
    return pd.DataFrame(rows)


def ladder_table(ladder: dict, seed: int = 0) -> pd.DataFrame:
    """Fig. 5a's data: each split's compound divergence as built and as re-measured under the held-out k-means draws
    (their mean, `datasets.redrawn`; the order of the rows), and the method's accuracy on it."""
    rows = []
    for (pool, name), records in ladder.items():
        record = datasets.split_files(pool, seed)[name]
        redrawn = [r["DBCA^c"] for r in datasets.redrawn(pool, seed) if r["split"] == name and r["alpha"] == "paper"]
        rows.append({"dataset": datasets.LABELS[pool], "split": name, "DBCA^c": record["compound_divergence"],
                     REDRAWN: statistics.fmean(redrawn), "accuracy": accuracy(records),
                     "n": len(training.predictions(records))})
    return pd.DataFrame(rows).sort_values(["dataset", REDRAWN], ignore_index=True) if rows else pd.DataFrame()


def augmentation_records(profile: Profile, da: dict, seed: int = 0) -> dict[tuple[str, str, str], dict[str, Any]]:
    """(method, dataset, variant) → the committed augmentation record behind each +DA chain of `da`."""
    out = {}
    for method, dataset, variant in da:
        train, validation, test = _limited(datasets_for(profile, seed)[dataset], profile)
        out[(method, dataset, variant)] = training.augmented(method, dataset, train, validation, test, profile, seed,
                                                             train_missing=False,
                                                             **ablations(profile.compositional)[variant])
    return out


def augmentation_sample(records: dict[tuple[str, str, str], dict[str, Any]], n: int = 6) -> pd.DataFrame:
    """A few problems the ranker kept in the first +DA chain's first round, half made by each operation (as the
    paper's Fig. 6)."""
    record = next((r for (_, _, variant), r in records.items() if variant == "+DA"), None)
    if record is None:
        return pd.DataFrame()
    kept = [row for operation in (1, 2)
            for row in [r for r in record["kept"] if r["meta"].get("operation") == operation][:n // 2]]
    return pd.DataFrame([{"operation": row["meta"].get("operation"), "text": f"{row['body']} {row['question']}".strip(),
                          "expression": " ".join(row["prefix"]), "answer": row["answer"]} for row in kept])


def augmentation_rounds(records: dict[tuple[str, str, str], dict[str, Any]]) -> pd.DataFrame:
    """Each +DA round as recorded: candidates by operation, kept, and the seconds generation and ranking took
    (ranking: decoding every candidate with the round's solver; training is not counted)."""
    return pd.DataFrame([{"method": method, "dataset": dataset, "variant": variant, "round": i,
                          **{f"operation {op}": n for op, n in round_["candidates"].items()},
                          "kept": round_["kept"], "seconds generating": round(round_["seconds_generating"], 1),
                          "seconds ranking": round(round_["seconds_ranking"], 1)}
                         for (method, dataset, variant), record in records.items()
                         for i, round_ in enumerate(record["rounds"], start=1)])


def headline(table1_: pd.DataFrame, table2_: pd.DataFrame, claims: pd.DataFrame) -> dict[str, float]:
    """The numbers notebook 07 records (read back by its test)."""
    return {**outputs.headline(table1_, ["dataset", "split", "statistic"], "t1"),
            **outputs.headline(table2_, ["method", "dataset", "split", "run dataset"], "t2"),
            **findings.counts(claims)}


# ---------------------------------------------------------------- lesson and figures

def walkthrough(pool: str = "mawps", index: int = 8, seed: int = 0) -> tuple[Problem, pd.DataFrame, atoms.Structure]:
    """One problem through §III-A: each quantity's context and cluster, then its atoms and compounds."""
    problem = datasets.pool(pool)[index]
    clustering = datasets.clustering(pool, seed)
    frame = pd.DataFrame({"slot": [f"N{i}" for i in range(len(problem.numbers))], "number": problem.numbers,
                          "context": [" ".join(c) for c in atoms.quantity_contexts(problem)],
                          "cluster": [f"q{c}" for c in clustering.clusters[problem.id]]})
    return problem, frame, clustering.structures[problem.id]


def ladder_figure(ladder: pd.DataFrame) -> Any:
    """Fig. 5a: accuracy against the compound divergence of each split, one line per pool."""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(5, 3.2))
    for dataset, part in ladder.groupby("dataset", sort=False):
        ax.plot(part[REDRAWN], part["accuracy"], marker="o", label=dataset)
    ax.set_xlabel(f"compound divergence DBCA^c of the split\n(mean of {datasets.DRAWS} re-drawn clusterings)")
    ax.set_ylabel("test accuracy (%)")
    ax.legend()
    return fig


def iterations_figure(table: pd.DataFrame) -> Any:
    """Fig. 5b: accuracy (left axis) and seconds per training epoch (right) after each +DA round."""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(5, 3.2))
    right = ax.twinx()
    for (method, dataset), part in table.groupby(["method", "dataset"], sort=False):
        ax.plot(part["iteration"], part["accuracy"], marker="o", label=f"{method} {dataset}: accuracy")
        right.plot(part["iteration"], part["seconds per epoch"], marker="x", linestyle="--",
                   label=f"{method} {dataset}: s/epoch")
    ax.set_xlabel("+DA iteration")
    ax.set_ylabel("test accuracy (%)")
    right.set_ylabel("seconds per epoch")
    ax.legend(loc="upper left", fontsize=7)
    right.legend(loc="lower right", fontsize=7)
    return fig


# ---------------------------------------------------------------- proofreading audit

#: the problems an audit table draws from: SD per language, built without and with the preconditions
AUDIT_SAMPLE_SIZE = 100
#: the SD builds an audit table can sample: as built, with `coherence`'s preconditions, proofread by hand
AUDITED_BUILDS = ("as built", "preconditions", "proofread")


def sd_audit_rows(language: str, build: str, seed: int = 0) -> list[dict[str, Any]]:
    """The seeded, stratified SD sample an audit table judges (all problems where fewer than the sample size)."""
    if build not in AUDITED_BUILDS:
        raise ValueError(f"unknown SD build {build!r}; choose one of {AUDITED_BUILDS}")
    made = sd_set(language) if build == "proofread" else sd_built(language, checked=build == "preconditions")
    group = {"as built": f"SD-{language}, without preconditions", "preconditions": f"SD-{language}, with preconditions",
             "proofread": f"SD-{language}, proofread"}[build]
    return audit.stratified(audit.sd_rows(made, group), "stratum", AUDIT_SAMPLE_SIZE, seed)


def augmentation_audit_rows(record: dict[str, Any], min_shared: int = 0, seed: int = 0) -> list[dict[str, Any]]:
    """The kept augmented problems of a +DA record's first round an audit table judges, per operation;
    `min_shared`: the shared evidence the record was made with (its plan's, part of its key)."""
    group = f"augmented {record['dataset']}" + (f", shared evidence ≥ {min_shared}" if min_shared else "")
    return audit.per_operation(audit.augmentation_rows(record["kept"], group), AUDIT_SAMPLE_SIZE, seed)


#: the committed audit tables (`results/audit/`), by name: first the data notebook 07 trains on now (SD proofread,
#: the problems the gated +DA kept), then what was judged before (SD as built and with the preconditions, the
#: problems the paper's protocol kept). ``sd-zh-checked`` judged the build of the preconditions before two
#: refinements (no 没 as content, a stated remainder admitting a product), which added the three problems judged in
#: ``sd-zh-checked-added``: together they cover that build.
AUDITS = ("sd-zh-after-proofreading", "sd-en-after-proofreading", "augmented-quick-gated-mawps-comdiv-pooled",
          "augmented-quick-gated-sd-zh", "sd-zh-unchecked", "sd-en-unchecked", "sd-zh-checked", "sd-zh-checked-added",
          "augmented-quick-mawps-comdiv", "augmented-quick-sd-zh")


def _audit_tables() -> list[pd.DataFrame]:
    return [audit.judged(name) for name in AUDITS if audit.path(name).exists()]


def audit_shares() -> pd.DataFrame:
    """The acceptable share of every audited group and of its parts (SD: train, structural and lexical test;
    augmentation: each operation), beside what the paper reports for its own."""
    tables = _audit_tables()
    if not tables:
        return pd.DataFrame()
    parts = [t.assign(part=t["stratum"].str.split(", ").str[-1]) for t in tables]
    out = pd.concat([audit.shares(tables), audit.shares(parts, ("group", "part"))], ignore_index=True)
    out["part"] = out["part"].fillna("all")
    order = {name: i for i, name in enumerate(dict.fromkeys(out["group"]))}
    out = out.sort_values("group", key=lambda g: g.map(order), kind="stable", ignore_index=True)
    out["group"] = [f"{g}, the paper's protocol" if g.startswith("augmented") and "shared" not in g else g
                    for g in out["group"]]
    out["paper"] = [PAPER_SHARE["augmentation" if g.startswith("augmented") else "SD"] for g in out["group"]]
    return out[["group", "part", "judged", "acceptable", "acceptable %", "paper"]]


def audit_flawed(n: int = 6, seed: int = 0) -> pd.DataFrame:
    """A seeded handful of the problems the audit judged flawed, with the reason, for the reader to check."""
    tables = _audit_tables()
    flawed = pd.concat(tables, ignore_index=True) if tables else pd.DataFrame(columns=list(audit.COLUMNS))
    flawed = flawed[flawed["verdict"] == "flawed"]
    return flawed.sample(min(n, len(flawed)), random_state=seed)[["group", "text", "expression", "reason"]]
