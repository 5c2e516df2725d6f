"""Notebook 07's tables and figures (Lan et al. 2022): Table I (splits), Tables II–IV (accuracy), Fig. 5, the
+DA rounds and the lesson's walkthrough, each beside the paper's numbers. What trains under a profile is `grid`
(`Profile.compositional` holds the plan); SD is `sd`; the tests of noise behind the findings are `comparisons`,
the audit tables `audit`.

Table II prints both protocols: the test accuracy at the epoch validation chooses (ours) and the best test
epoch (the protocol of most MWP papers' code); the paper selects on a 20 % validation part (§V-B), so the first
is its protocol too. Math23K is its public 6,234 problems and says so; Table IV names the method that stands in for MathEN
where the profile trains none.
"""
from __future__ import annotations

import statistics
from typing import Any, Mapping, Sequence

import pandas as pd

from .. import findings, outputs
from ..metrics import percent
from ..problem import Problem
from ..records import DamagedRecord
from ..profiles import Profile
from ..text import tokenize
from . import atoms, audit, datasets, grid, sd, synthesis, training
from .training import TABLE_VI
from .divergence import KEYSERS_ALPHAS
from .paper_numbers import (PAPER_ALPHA_SENTENCE, PAPER_NAMES, PAPER_REL_GAP, PAPER_TABLE1, PAPER_TABLE2,
                            PAPER_TABLE3, PAPER_TABLE4)
from .sentences import is_chinese

TABLE2_COLUMNS = (("math23k", "I.I.D."), ("math23k", "ComDiv"), ("mawps", "I.I.D."), ("mawps", "ComDiv"),
                  ("sd", "valid"), ("sd", "test"))
#: methods of Table II that need a model hub or a Chinese encoder this project cannot load offline
UNAVAILABLE = {"BERTGen": "no pretrained encoder-decoder offline (MiniLM is English only; no Chinese BERT)",
               "GPT-2": "no model hub reachable"}
#: Table I's splits: I.I.D., ComDiv built on one k-means draw, and on several at once (`datasets.make_pooled_splits`)
TABLE1_SPLITS = {"iid": "I.I.D.", "comdiv": "ComDiv", "comdiv-pooled": "ComDiv, pooled draws"}
#: Table II's note on a cell trained on the ComDiv split built on one k-means draw (Table I: under re-drawn
#: clusterings its compound divergence falls below the bound the pooled split keeps)
ONE_DRAW = "ComDiv built on one k-means draw (Table I)"
#: Table II's note on MathEN, whose members' best test epochs differ: the ensemble has none
ENSEMBLE = "best test epoch: none for a voted ensemble"
#: the ladder's column of compound divergence re-measured under the held-out draws
REDRAWN = "DBCA^c re-drawn"


# ---------------------------------------------------------------- Table I

def _length_ratio(train: Sequence[Problem], test: Sequence[Problem]) -> float:
    """LR: mean text length (words; characters for Chinese) of train over test."""
    def length(p: Problem) -> int:
        return len(p.text) if is_chinese(p.text) else len(tokenize(p.text))
    return statistics.mean(map(length, train)) / statistics.mean(map(length, test))


def table1(seed: int = 0) -> pd.DataFrame:
    """Table I beside the paper: sizes, NR = train / test size, LR, DBCA^a, DBCA^c for every split and SD; each DBCA
    also re-measured under the held-out k-means draws (`datasets.redrawn`; SD's `sd.sd_redrawn`: mean, s.d., worst)
    and, as re-measured, under the α convention of the implementation the paper cites (`divergence.KEYSERS_ALPHAS`)."""
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
                                 redrawn[redrawn["split"] == name])
    for language in ("zh", "en"):
        made = sd.sd_set(language)
        redrawn = None
        if made.train and made.test:
            measured = sd.sd_divergence(language, seed)
            ours = (len(made.train), len(made.test), _length_ratio(made.train, made.test), measured.atom_divergence,
                    measured.compound_divergence)
            redrawn = sd.sd_redrawn(language, seed)
        else:
            ours = (len(made.train), len(made.test), *(float("nan"),) * 3)
        paper = PAPER_TABLE1[("SD", "ComDiv")] if language == "zh" else (None,) * 5
        pool = "SD from Math23K, public 6,234" if language == "zh" else "SD from MAWPS + ASDiv-A (ours)"
        rows += _table1_rows(pool, "ComDiv", paper, ours, _audited(f"sd-{language}-after-proofreading"), redrawn)
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
    """One split's rows of Table I; with `redrawn` (rows of α convention, DBCA^a, DBCA^c per held-out draw), each
    divergence's spread over the draws and, as re-measured, the divergences under Keysers et al.'s α."""
    names = ("train", "test", "NR", "LR", "DBCA^a", "DBCA^c")
    paper_values = [*paper[:2], paper[0] / paper[1] if paper[0] else None, *paper[2:]]
    our_values = [*ours[:2], ours[0] / ours[1] if ours[1] else float("nan"), *ours[2:]]
    rows = []
    for n, p, o in zip(names, paper_values, our_values):
        spread = {}
        if redrawn is not None and n.startswith("DBCA"):
            spread = _spread(redrawn[redrawn["alpha"] == "paper"][n], n)
        rows.append({"dataset": pool, "split": split, "statistic": n, "paper": p, "ours": o, **spread, "note": note})
    if redrawn is not None:
        keysers = redrawn[redrawn["alpha"] == "Keysers"]
        for statistic, alpha in zip(("DBCA^a", "DBCA^c"), KEYSERS_ALPHAS):
            rows.append({"dataset": pool, "split": split, "statistic": f"{statistic}, α = {alpha} (Keysers et al.)",
                         "paper": None, "ours": keysers[statistic].mean(), **_spread(keysers[statistic], statistic),
                         "note": "mean of the re-drawn clusterings; the paper: " + PAPER_ALPHA_SENTENCE})
    return rows


# ---------------------------------------------------------------- accuracy

def accuracy(records: Sequence[dict[str, Any]], protocol: str = "ours") -> float:
    """A method's test accuracy (%): at the epoch validation chose (``ours``; MathEN: its ensemble there), or,
    for one model, at its best test epoch (``peer``)."""
    if protocol == "peer":
        return 100 * records[0]["metrics"]["peer_test_accuracy"] if len(records) == 1 else float("nan")
    return percent(training.correctness(records))


def validation_accuracy(records: Sequence[dict[str, Any]]) -> float:
    """Validation accuracy (%) at the chosen epoch (MathEN: the mean of its members'; the paper's SD valid)."""
    return 100 * statistics.mean(_chosen(r)["val_accuracy"] for r in records)


def _chosen(record: dict[str, Any]) -> dict[str, Any]:
    """The history entry of the epoch validation chose; `DamagedRecord` naming the run when it has none."""
    best = record["metrics"].get("best_epoch")
    if (entry := next((h for h in record["history"] if h.get("epoch") == best), None)) is None:
        raise DamagedRecord(f"run {record.get('key', '?')}: no history entry for its chosen epoch {best!r}; "
                            "restore its record with git")
    return entry


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


def table2(runs: dict, da: dict, profile: Profile, validation: Mapping[str, int] | None = None) -> pd.DataFrame:
    """Table II beside the paper, both protocols, Rel. Gap = Acc_IID / Acc_ComDiv − 1 per pool and SD. Every cell the
    paper prints has its row, ours empty and noted where no run is recorded (or the method is unavailable here); a
    run the paper has no cell for (SD from English) has its row too. ``n`` is a cell's test problems, or for SD
    valid its `validation` size (`grid.validation_sizes`; none without it), so that a loss from one to the other can be
    tested."""
    validation = validation or {}
    rows = []
    cells = {(m, d): r for (m, d), r in runs.items()}
    cells.update({(f"{m}+DA", d): rounds[-1] for (m, d, v), rounds in da.items() if v == "+DA"})
    printed = [f"{pool}-{name}" for pool in ("math23k", "mawps") for name in grid.table2_splits(profile.compositional)]
    for method in dict.fromkeys([*PAPER_TABLE2, *(m for m, _ in cells)]):
        missing = f"unavailable: {UNAVAILABLE[method]}" if method in UNAVAILABLE else "no run recorded"
        ran = sorted(d for m, d in cells if m == method and d not in (*printed, "sd-zh"))
        for dataset in [*printed, "sd-zh", *ran] if method in PAPER_TABLE2 else sorted(d for m, d in cells
                                                                                       if m == method):
            records = cells.get((method, dataset))
            pool, column = grid.column(dataset)
            paper = dict(zip(TABLE2_COLUMNS, PAPER_TABLE2.get(method, (None,) * 6) if dataset != "sd-en"
                             else (None,) * 6))
            note = "; ".join(filter(None, ["SD from MAWPS + ASDiv-A (ours)" if dataset == "sd-en" else
                                           "Math23K, public 6,234" if pool == "math23k" else "",
                                           f"SD {profile.compositional.sd_build}" if pool == "sd" else "",
                                           *(_trained_notes(method, dataset, records, profile) if records
                                             else [missing])]))
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


def _trained_notes(method: str, dataset: str, records: Sequence[dict[str, Any]], profile: Profile) -> list[str]:
    """What Table II says of a recorded cell: where its setting departs from the paper's (a one-draw split, the
    profile's epochs), an ensemble's missing best test epoch, a collapse."""
    return [ONE_DRAW if dataset.endswith("-comdiv") else "", _epochs_note(method.removesuffix("+DA"), dataset, profile),
            ENSEMBLE if len(records) > 1 else "", collapse(records)]


def _epochs_note(method: str, dataset: str, profile: Profile) -> str:
    """How the profile's epochs for `method` on `dataset` differ from Table VI's ("" where they do not): `quick`
    stops MAWPS runs early and trains SD a fixed 30 epochs."""
    if method not in TABLE_VI:  # a method unavailable here
        return ""
    paper = TABLE_VI[method]["epochs"]
    run = training.spec(method, training.METHODS[method].members[0], dataset, profile)
    if run.epochs == paper and not run.patience:
        return ""
    stopping = f", stopped once validation has not improved for {run.patience}" if run.patience else ""
    return f"{run.epochs} epochs{stopping} (paper: {paper})"


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
    """Table III: accuracy on SD test's structural (decomposition) and lexical (reformulation) parts, for every
    method run and every method the paper prints (ours empty, noted, where no run is recorded). Ours only at the
    epoch chosen on validation: a record keeps that epoch's predictions, so a part's best test epoch is unknown."""
    cells = {m: r for (m, d), r in runs.items() if d == f"sd-{language}"}
    cells.update({f"{m}+DA": rounds[-1] for (m, d, v), rounds in da.items() if d == f"sd-{language}" and v == "+DA"})
    scored = {m: training.correctness(r) for m, r in cells.items()}
    test = next(iter(scored.values()), {p.id: False for p in sd.sd_set(language).test})  # the runs' test set
    kinds = sd.compositions(language, test)
    rows = []
    for method in [m for m in dict.fromkeys([*PAPER_TABLE2, *cells]) if m in cells or m in PAPER_TABLE3]:
        paper = PAPER_TABLE3.get(method, (None, None))
        for kind, value in zip((synthesis.STRUCTURAL, synthesis.LEXICAL), paper):
            ids = [i for i in test if kinds[i] == kind]
            rows.append({"method": method, "part": kind, "n": len(ids), "paper": value,
                         "ours": percent(scored[method], ids) if method in scored and ids else float("nan"),
                         "note": "" if method in scored else "no run recorded"})
    return pd.DataFrame(rows, columns=["method", "part", "n", "paper", "ours", "note"])


def table4(da: dict, profile: Profile, augmentations: Mapping[tuple[str, str, str], dict[str, Any]] | None = None
           ) -> pd.DataFrame:
    """Table IV: the +DA gain of the first +DA method and its ablations on the ComDiv splits, both protocols, and
    how many problems each operation added over all rounds (from `augmentations`, :func:`augmentation_records`).
    Every variant the paper prints has its row on every pool, ours empty and noted where no run is recorded."""
    plan = profile.compositional
    method = plan.da_methods[0]
    ran = {(dataset.split("-")[0], variant): (dataset, rounds) for (m, dataset, variant), rounds in da.items()
           if m == method and grid.is_comdiv(dataset)}
    rows = []
    for pool in ("math23k", "mawps"):
        for variant, values in PAPER_TABLE4.items():
            row = {"method": method, "dataset": datasets.LABELS[pool], "variant": variant,
                   "paper (MathEN)": values[0 if pool == "math23k" else 1], "run dataset": ""}
            if (pool, variant) in ran:
                dataset, rounds = ran[(pool, variant)]
                kept = ((augmentations or {}).get((method, dataset, variant)) or {}).get("kept")
                rows.append({**row, "ours": accuracy(rounds[-1]), "ours, best test epoch": accuracy(rounds[-1], "peer"),
                             "ours without DA": accuracy(rounds[0]), "run dataset": dataset,
                             **{f"kept, operation {op}": None if kept is None else
                                sum(problem["meta"].get("operation") == op for problem in kept) for op in (1, 2)},
                             "note": ENSEMBLE if len(rounds[-1]) > 1 else ""})
                continue
            operation = variant.removeprefix("− Operation ")
            rows.append({**row, "note": "not run: this profile trains no " + PAPER_NAMES[pool] if pool not in plan.pools
                         else f"not run: this profile's +DA uses operation {plan.da_operations[0]} only"
                         if operation.isdigit() and len(plan.da_operations) == 1 else "no run recorded"})
    return pd.DataFrame(rows, columns=["method", "dataset", "variant", "paper (MathEN)", "ours",
                                       "ours, best test epoch", "ours without DA", "kept, operation 1",
                                       "kept, operation 2", "run dataset", "note"]
                        ).astype({"kept, operation 1": "Int64", "kept, operation 2": "Int64"})


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
        train, validation, test = grid.limited(grid.datasets_for(profile, seed)[dataset], profile)
        out[(method, dataset, variant)] = training.augmented(method, dataset, train, validation, test, profile, seed,
                                                             train_missing=False,
                                                             **grid.ablations(profile.compositional)[variant])
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
