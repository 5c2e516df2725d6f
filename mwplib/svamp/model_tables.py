"""Notebook 01's tables and plots (SVAMP Tables 2, 16, 19/20 and the figures), from the records of `mwplib.runs`:
accuracies pooled over folds beside the paper's (`mwplib.svamp.paper_numbers`), the paired R − S effect, config probes listed
beside the paper's setting, learning curves and accuracy by operator count. Notebook 05 reuses the R − S table.
"""
from __future__ import annotations

import itertools
import json
from typing import Any, Iterable, Mapping, Sequence

import numpy as np
import pandas as pd

from .. import paths
from ..metrics import (accuracy_by, answer_correctness, correctness, majority_template,
                       majority_template_baseline_splits, majority_template_predictions, percent)
from ..models import paper_config
from ..models.config import ENCODER_LR
from ..problem import Correctness, Problem, Split
from ..profiles import Profile
from ..records import SUFFIX, read_records
from ..outputs import by_validation, paper_vs_ours
from ..run_spec import RunSpec, describe_config
from ..runs import ENCODER_NAMES, RUN_FIELDS, SVAMP_DATASET, embedding_label, spec_for, stand_in_note
from ..significance import paired_difference
from .paper_numbers import PAPER_ACCURACY, PAPER_MAJORITY_BASELINE, PAPER_SECONDS_PER_EPOCH, PAPER_TABLE10


def summarize(records: Iterable[dict[str, Any]]) -> pd.DataFrame:
    """One row per model × embedding × dataset: accuracies pooled over all test problems of its folds
    (honest = epoch selected on validation; the papers' protocol = best epoch on test, per fold); notebook 01."""
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


def variants(profile: Profile, datasets: Sequence[str]) -> pd.DataFrame:
    """Recorded runs on `datasets` whose config differs from the default (probes such as another learning rate),
    with what differs, beside the default-config run (:func:`mwplib.models.paper_config`: the paper's, with
    MiniLM's and MPNet's own encoder learning rates) of the same model, embedding, dataset, fold and seed. Compare them
    on validation accuracy (test accuracy must not pick a config). No exploratory result is hidden, and none can
    pass for the paper's setting (notebook 01_baselines). A default-config run whose epochs or patience are not
    the profile's plan (`quick` before its plan) is listed too, beside the plan's run of its cell."""
    def scores(rec: dict[str, Any]) -> tuple[float, float]:
        return 100 * max(h["val_accuracy"] for h in rec["history"]), 100 * rec["metrics"]["test_accuracy"]

    records = read_records((path for dataset in datasets
                            for path in sorted(paths.runs_dir(profile.name).glob(f"*/{dataset}/*{SUFFIX}"))
                            if "-on-" not in path.name), RUN_FIELDS)  # not the question-removed evaluations beside
    rows, default_runs = [], {}  # rows: (cell, what differs, scores, the cell of the default run beside it)
    for rec in records:
        spec, config = rec["spec"], rec["spec"]["config"]
        default = {**describe_config(paper_config(spec["model"], config["embedding"])),
                   "val_fraction": RunSpec.val_fraction}
        changed = {k: v for k, v in {**config, "val_fraction": spec["val_fraction"]}.items()
                   if k != "class" and default.get(k) != v}
        where = (spec["model"], embedding_label(config["embedding"]), spec["dataset"], spec["fold"], spec["epochs"])
        seed = spec["seed"]  # a probe is compared with the default run of its own seed
        if changed:
            rows.append((where, ", ".join(f"{k}={v}" for k, v in sorted(changed.items())), scores(rec),
                         (*where, spec.get("patience", 0), seed)))
            continue
        default_runs[(*where, spec.get("patience", 0), seed)] = scores(rec)
        planned = spec_for(spec["model"], config["embedding"], spec["dataset"], "", spec["fold"], profile)
        in_plan = profile.in_plan(spec["model"], config["embedding"], spec["dataset"])
        if profile.planned is not None and (not in_plan or (spec["epochs"], spec.get("patience", 0))
                                            != (planned.epochs, planned.patience)):
            what = (f"epochs={spec['epochs']}, patience={spec.get('patience', 0)} (the plan's: {planned.epochs}, "
                    f"{planned.patience})" if in_plan else f"epochs={spec['epochs']} (a cell {profile.name}'s "
                                                           "plan does not train)")
            rows.append((where, what, scores(rec),
                         (*where[:4], planned.epochs, planned.patience, seed) if in_plan else None))
    columns = ["model", "embedding", "dataset", "fold", "epochs", "changed", "val", "test", "default config: val",
               "default config: test"]
    return pd.DataFrame([(*where, changed, *score, *default_runs.get(beside, (None, None)))
                         for where, changed, score, beside in rows], columns=columns)


def speed_table(summary: pd.DataFrame) -> pd.DataFrame:
    """Seconds per training epoch of each model × embedding × dataset (mean over its folds, on the devices its
    runs trained on), beside the paper's P100 figure (RoBERTa for R, MiniLM here); notebook 01."""
    frame = summary[["model", "embedding", "dataset", "seconds_per_epoch", "devices"]].copy()
    frame.insert(3, "paper (P100, RoBERTa for R)", [PAPER_SECONDS_PER_EPOCH.get((m, embedding_label(e)[0]))
                                                    for m, e in zip(frame["model"], frame["embedding"])])
    return frame.rename(columns={"seconds_per_epoch": "ours"})


#: Column of Tables 2/16 for runs trained as the paper trains: on the whole training fold, reporting the best
#: test epoch (``--val-fraction 0``).
PAPER_PROTOCOL = "ours, paper's protocol (whole fold, best test epoch)"


def comparison_rows(summary: pd.DataFrame, models: Sequence[str], embeddings: Sequence[str],
                    datasets: Sequence[str], whole_fold: pd.DataFrame | None = None) -> list[dict[str, Any]]:
    """Rows for :func:`mwplib.outputs.paper_vs_ours`: every model × embedding × dataset the paper reports,
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
                notes = ([f"{ENCODER_NAMES[embedding]} instead of RoBERTa, encoder lr "
                          f"{paper_config(model, embedding).emb_lr:g}"] if embedding in ENCODER_LR else [])
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


def paper_table(summary: pd.DataFrame, models: Sequence[str], embeddings: Sequence[str], datasets: Sequence[str],
                whole_fold: pd.DataFrame | None = None) -> pd.DataFrame:
    """SVAMP Table 2 or 16 (notebook 01): :func:`comparison_rows` beside the paper, its ``ours`` column headed as
    chosen on validation (`outputs.by_validation`)."""
    return by_validation(paper_vs_ours(comparison_rows(summary, models, embeddings, datasets, whole_fold),
                                       ["model", "embedding", "dataset"]))


def paper_pretraining_gain(model: str, dataset: str) -> float | None:
    """The paper's R (RoBERTa) − S accuracy, in points: Tables 2/16, or Table 10/18 for SVAMP."""
    if dataset == SVAMP_DATASET:
        scratch, tuned = PAPER_TABLE10[model]["Full Set"] if model in PAPER_TABLE10 else (None, None)
    else:
        scratch, tuned = (PAPER_ACCURACY.get((model, e, dataset)) for e in "SR")
    return None if scratch is None or tuned is None else round(tuned - scratch, 1)


def _runs_by_fold(records: Sequence[dict[str, Any]]) -> dict[tuple[str, str, str], dict[int, dict[str, Any]]]:
    """(model, embedding, dataset) → fold → its run record."""
    by_cell: dict[tuple[str, str, str], dict[int, dict[str, Any]]] = {}
    for rec in records:
        spec = rec["spec"]
        by_cell.setdefault((spec["model"], spec["config"]["embedding"], spec["dataset"]), {})[spec["fold"]] = rec
    return by_cell


def _correct_by_fold(runs: Mapping[int, dict[str, Any]]) -> dict[int, Correctness]:
    """Fold → which test problems the cell's run of that fold answered right."""
    return {fold: correctness([record]) for fold, record in runs.items()}


def _paired_on_folds(first: Mapping[int, Correctness], second: Mapping[int, Correctness]
                     ) -> tuple[list[int], Correctness, Correctness, dict[str, Any]] | None:
    """Two cells (fold → correctness) on the folds both were run on, over the test problems both scored there: the
    folds, each side's correctness and `second` − `first` paired (:func:`mwplib.significance.paired_difference`);
    None when they share no problem."""
    folds = sorted(set(first) & set(second))
    a: dict[str, bool] = {}
    b: dict[str, bool] = {}
    for fold in folds:
        both = first[fold].keys() & second[fold].keys()
        a |= {i: first[fold][i] for i in both}
        b |= {i: second[fold][i] for i in both}
    return (folds, a, b, paired_difference(a, b)) if a else None


def pretraining_effect(records: Sequence[dict[str, Any]], models: Sequence[str], datasets: Sequence[str],
                       pretrained: str = "minilm") -> pd.DataFrame:
    """R − S per model and dataset on the folds both were run on, paired over the same test problems, beside the
    paper's R − S: does the pretrained encoder help beyond fold noise? (notebooks 01_baselines and 05_svamp; the
    paper claims R beats S for every model.)"""
    by_cell = _runs_by_fold(records)
    columns = ["model", "dataset", "folds", "n", "S", embedding_label(pretrained), "R − S", "paper R − S",
               "95 % interval", "only S right", "only R right", "McNemar p", "note"]
    rows = []
    for model in models:
        for dataset in datasets:
            scratch, tuned = by_cell.get((model, "scratch", dataset), {}), by_cell.get((model, pretrained, dataset), {})
            if (paired := _paired_on_folds(_correct_by_fold(scratch), _correct_by_fold(tuned))) is None:
                continue
            folds, s, r, test = paired
            rows.append((model, dataset, len(folds), test["n"], percent(s), percent(r), test["difference"],
                         paper_pretraining_gain(model, dataset), f"[{test['ci_low']:+.1f}, {test['ci_high']:+.1f}]",
                         test["only_first"], test["only_second"], test["mcnemar_p"],
                         stand_in_note([*scratch.values(), *tuned.values()])))
    return pd.DataFrame(rows, columns=columns)


def model_effect(records: Sequence[dict[str, Any]], models: Sequence[str], datasets: Sequence[str],
                 baseline: str = "seq2seq") -> pd.DataFrame:
    """Each model − `baseline` per embedding and dataset on the folds both were run on, paired over the same test
    problems: "GTS and Graph2Tree beat Seq2Seq" holds only where McNemar's test on the problems one of the two
    solves tells the two runs apart (notebook 01, `findings.baselines`)."""
    by_cell = _runs_by_fold(records)
    columns = ["model", "embedding", "dataset", "folds", "n", f"model − {baseline}", "95 % interval", "McNemar p"]
    rows = []
    for dataset in datasets:
        for embedding in sorted({e for _, e, _ in by_cell}):
            for model in models:
                if model == baseline or (model, embedding, dataset) not in by_cell:
                    continue
                paired = _paired_on_folds(_correct_by_fold(by_cell.get((baseline, embedding, dataset), {})),
                                          _correct_by_fold(by_cell[(model, embedding, dataset)]))
                if paired is None:
                    continue
                folds, *_, test = paired
                rows.append((model, embedding_label(embedding), dataset, len(folds), test["n"], test["difference"],
                             f"[{test['ci_low']:+.1f}, {test['ci_high']:+.1f}]", test["mcnemar_p"]))
    return pd.DataFrame(rows, columns=columns)


#: The Majority Template Baseline's name among the cells of :func:`paired_tests`.
MAJORITY = "majority template"


def majority_baseline_table(splits: Mapping[str, Sequence[Split]]) -> pd.DataFrame:
    """Majority template baseline (%) per dataset (any case: "MAWPS" or "mawps") beside SVAMP's Tables 2 and 12,
    with the prefix template it predicts (the distinct ones over the folds, joined by "|"; notebooks 00_datasets
    and 01_baselines)."""
    rows = [{"dataset": name, "splits": len(folds), "test problems": sum(len(s.test) for s in folds),
             "paper": PAPER_MAJORITY_BASELINE.get(name.lower()),
             "ours": 100 * majority_template_baseline_splits(folds),
             "template": " | ".join(sorted({" ".join(majority_template(s.train)) for s in folds}))}
            for name, folds in splits.items()]
    return paper_vs_ours(rows, keys=["dataset", "splits", "test problems"])


def majority_by_fold(splits: Mapping[str, Sequence[Split]], folds: Sequence[int]) -> dict[str, dict[int, Correctness]]:
    """Dataset → fold → which test problems the Majority Template Baseline (that fold's training template) answers
    right: the baseline as one more run, so a model can be compared with it problem by problem."""
    return {dataset: {f: answer_correctness(by_fold[f].test, majority_template_predictions(by_fold[f].train,
                                                                                           by_fold[f].test))
                      for f in folds} for dataset, by_fold in splits.items()}


def paired_tests(records: Sequence[dict[str, Any]], datasets: Sequence[str],
                 majority: Mapping[str, Mapping[int, Correctness]] | None = None) -> pd.DataFrame:
    """Every two cells of a dataset (``model embedding`` as Table 2 names them, and :data:`MAJORITY` where
    `majority` (:func:`majority_by_fold`) is given) compared on the folds both ran, over the test problems both
    scored: accuracy a − b and McNemar's p, each pair in both orders. The noise test of every two-run finding of
    notebook 01 (`findings.baselines`)."""
    cells: dict[str, dict[str, Mapping[int, Correctness]]] = {}
    for (model, embedding, dataset), runs in _runs_by_fold(records).items():
        cells.setdefault(dataset, {})[f"{model} {embedding_label(embedding)}"] = _correct_by_fold(runs)
    for dataset, by_fold in (majority or {}).items():
        cells.setdefault(dataset, {})[MAJORITY] = by_fold
    rows = []
    for dataset in datasets:
        for a, b in itertools.permutations(cells.get(dataset, {}), 2):
            if (paired := _paired_on_folds(cells[dataset][b], cells[dataset][a])) is not None:
                test = paired[-1]
                rows.append((a, b, dataset, test["n"], test["difference"], test["mcnemar_p"]))
    return pd.DataFrame(rows, columns=["a", "b", "dataset", "n", "a − b", "McNemar p"])


def seed_spread(records: Sequence[dict[str, Any]]) -> pd.DataFrame:
    """Test accuracy (%, epoch by validation) of each cell (model × embedding × dataset × fold, one setting: config,
    epochs and patience) trained with several seeds, with their mean and spread (max − min): how far a cell moves
    with the seed alone, so a gap between two cells can be told from noise (notebook 01). Cells run with one seed
    are left out."""
    by_cell: dict[tuple[Any, ...], dict[int, float]] = {}
    for rec in records:
        spec = rec["spec"]
        setting = json.dumps(spec["config"], sort_keys=True), spec.get("patience", 0)
        key = (spec["model"], embedding_label(spec["config"]["embedding"]), spec["dataset"], spec["fold"],
               spec["epochs"], *setting)
        by_cell.setdefault(key, {})[spec["seed"]] = 100 * rec["metrics"]["test_accuracy"]
    rows = [{"model": model, "embedding": embedding, "dataset": dataset, "fold": fold, "epochs": epochs,
             "seeds": len(found), "accuracy by seed": ", ".join(f"{found[seed]:.1f}" for seed in sorted(found)),
             "mean": float(np.mean(list(found.values()))), "spread": max(found.values()) - min(found.values())}
            for (model, embedding, dataset, fold, epochs, *_), found in by_cell.items() if len(found) > 1]
    return pd.DataFrame(rows, columns=["model", "embedding", "dataset", "fold", "epochs", "seeds",
                                       "accuracy by seed", "mean", "spread"])


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

