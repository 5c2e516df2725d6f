"""SVAMP's tables and figures with the paper's values beside ours (notebooks 02_question_removal and
05_svamp), built from run records of `mwplib.runs` and evaluations of `mwplib.transfer` through the
prediction-level analyses of `mwplib.svamp.prediction_analysis`.

Paper values are the published numbers of `mwplib.svamp.paper_numbers` (RoBERTa for R); ours label a pretrained encoder R
with its name (MiniLM stands in for RoBERTa). Accuracies are pooled over the folds that were run, in %.
"""
from __future__ import annotations

import itertools
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Literal

import numpy as np
import pandas as pd

from .. import expr, metrics
from ..metrics import correctness, percent
from ..problem import Correctness, Problem
from ..outputs import BEST_TEST_EPOCH, BY_VALIDATION, by_validation, p_value, paper_vs_ours
from ..runs import SVAMP_DATASET, embedding_label, stand_in_note
from ..significance import paired_difference
from .paper_numbers import (PAPER_BEST_MODEL, PAPER_MAJORITY_BASELINE, PAPER_SVAMP_CV, PAPER_TABLE10, PAPER_TABLE11,
                            PAPER_TABLE12, PAPER_TABLE13, PAPER_TABLE14, PAPER_TABLE15, PAPER_TABLE3, PAPER_TABLE4,
                            PAPER_TABLE5)
from .prediction_analysis import (OPERATION_OF_TYPE, VARIATION_LABELS, accuracy_by_numbers, easy_hard_partition,
                                  removal_ablation, svamp_subset_ids)

#: Model names of `mwplib.models` → the paper's names.
MODEL_LABELS = {"seq2seq": "Seq2Seq", "gts": "GTS", "graph2tree": "Graph2Tree", "transformer": "Transformer",
                "constrained": "FFN + LSTM Decoder"}


#: (models, embeddings, datasets) whose every combination a table lists, run or not.
Grid = tuple[Sequence[str], Sequence[str], Sequence[str]]


def _run_key(record: Mapping[str, Any]) -> tuple[str, str, str]:
    spec = record["spec"]
    return spec["model"], spec["config"]["embedding"], spec["dataset"]


def group_runs(records: Iterable[Mapping[str, Any]], models: Sequence[str] = (), embeddings: Sequence[str] = (),
               datasets: Sequence[str] = ()) -> dict[tuple[str, str, str], list[Mapping[str, Any]]]:
    """Run records grouped by (model, embedding, dataset): the folds of one table cell (every table here).
    Each cell of `models` × `embeddings` × `datasets` is present even without runs (an empty list), so a table
    still shows the paper's value for it."""
    groups: dict[tuple[str, str, str], list[Mapping[str, Any]]] = {
        cell: [] for cell in itertools.product(models, embeddings, datasets)}
    for record in records:
        groups.setdefault(_run_key(record), []).append(record)
    return groups


def _evaluated(runs: Sequence[Mapping[str, Any]], *evaluations: Iterable[Mapping[str, Any]]
               ) -> tuple[list[Mapping[str, Any]], list[list[Mapping[str, Any]]]]:
    """The runs that have an evaluation (`mwplib.transfer.evaluate_on`) in every one of `evaluations`, and
    those evaluations in the runs' order. A run trained on another machine may have none: its cell then
    pools the other folds and says so (:func:`_folds_note`)."""
    by_run = [{e["run"]: e for e in evaluation} for evaluation in evaluations]
    kept = [r for r in runs if all(r["key"] in found for found in by_run)]
    return kept, [[found[r["key"]] for r in kept] for found in by_run]


def _folds_note(runs: Sequence[Mapping[str, Any]], kept: Sequence[Mapping[str, Any]]) -> str:
    """A cell's note: not run, folds left out for want of an evaluation, and whether its runs are stand-ins."""
    if not runs:
        return "not run"
    missing = (f"{len(runs) - len(kept)} of {len(runs)} folds not evaluated without questions "
               "(weights on the machine that trained them)") if len(kept) < len(runs) else ""
    return "; ".join(filter(None, (missing, stand_in_note(runs))))


def table3(records: Sequence[Mapping[str, Any]], without: Sequence[Mapping[str, Any]],
           released: Sequence[Mapping[str, Any]] = (), grid: Grid = ((), (), ())) -> pd.DataFrame:
    """SVAMP Tables 3 and 17 (notebook 02): accuracy (%) without questions, trained with them, pooled over
    the folds run, beside the paper (which reports R models only). `ours` uses our question removal; given
    the evaluations on SVAMP's released body-only files, they are added as column ``released files``. Every
    cell of `grid` (models, embeddings, datasets) gets a row, run or not."""
    rows = []
    for (model, embedding, dataset), runs in group_runs(records, *grid).items():
        kept, (bare, *on_released) = _evaluated(runs, without, *([released] if released else []))
        row = {"model": MODEL_LABELS.get(model, model), "emb": embedding_label(embedding), "dataset": dataset,
               "folds": len(kept), "n": len(correctness(bare)), "with question": percent(correctness(kept)),
               "paper": PAPER_TABLE3.get((model, dataset)) if embedding != "scratch" else None,
               "ours": percent(correctness(bare))}
        if released:
            row["released files"] = percent(correctness(on_released[0]))
        row["note"] = _folds_note(runs, kept)
        rows.append(row)
    return by_validation(paper_vs_ours(rows, keys=["model", "emb", "dataset", "folds", "n", "with question"]))


def table4(records: Sequence[Mapping[str, Any]], without: Sequence[Mapping[str, Any]],
           grid: Grid = ((), (), ())) -> pd.DataFrame:
    """SVAMP Table 4 (notebook 02): accuracy (%) with the question on each model's Easy / Hard problems, pooled
    over the `folds` evaluated both ways; every cell of `grid` (models, embeddings, datasets) gets its rows, run
    or not."""
    rows = []
    for (model, embedding, dataset), runs in group_runs(records, *grid).items():
        kept, (bare,) = _evaluated(runs, without)
        cells = easy_hard_partition(correctness(kept), correctness(bare))
        paper = PAPER_TABLE4.get((model, dataset)) if embedding != "scratch" else None
        for i, part in enumerate(("easy", "hard")):
            rows.append({"model": MODEL_LABELS.get(model, model), "emb": embedding_label(embedding),
                         "dataset": dataset, "folds": len(kept), "part": part.capitalize(), "n": cells[f"{part}_n"],
                         "paper": paper[i] if paper else None, "ours": cells[f"{part}_accuracy"],
                         "note": _folds_note(runs, kept)})
    return by_validation(paper_vs_ours(rows, keys=["model", "emb", "dataset", "folds", "part", "n"]))


def plot_with_without(table3: pd.DataFrame) -> Any:
    """Figure of notebook 02 from its Table 3: accuracy with vs without the question, a panel per dataset, the
    paper's without-question value (RoBERTa) as a black tick. Only runs evaluated without questions are drawn:
    an empty slot would read as 0 %."""
    import matplotlib.pyplot as plt

    frame = table3[table3["folds"] > 0]
    datasets = list(dict.fromkeys(frame["dataset"]))
    fig, axes = plt.subplots(1, max(len(datasets), 1), squeeze=False, sharey=True,
                             figsize=(1.5 + 0.9 * max(len(frame), 1), 3.4))
    for ax, dataset in zip(axes[0], datasets):
        part = frame[frame["dataset"] == dataset]
        x = np.arange(len(part))
        ax.bar(x - 0.2, part["with question"], 0.4, label="with question")
        ax.bar(x + 0.2, part["ours"], 0.4, label="without question")
        ax.scatter(x + 0.2, part["paper"], marker="_", s=400, color="black", zorder=3,
                   label="paper, without question")
        ax.set_xticks(x, [f"{m}\n{e}\n{f} fold{'s' * (f > 1)}"
                          for m, e, f in zip(part["model"], part["emb"], part["folds"])], fontsize=7)
        ax.set_title(dataset, fontsize=9)
    if datasets:
        fig.legend(*axes[0][0].get_legend_handles_labels(), loc="upper center", ncol=3, fontsize=8)
    else:
        axes[0][0].text(0.5, 0.5, "no run evaluated without questions", ha="center", va="center")
    axes[0][0].set_ylabel("accuracy (%)")
    axes[0][0].set_ylim(0, 100)
    fig.tight_layout(rect=(0, 0, 1, 0.9))
    return fig


def scored_problems(problems: Sequence[Problem], correct: Correctness) -> list[Problem]:
    """The problems that have a prediction — all of them, unless the profile's `test_limit` evaluated only a
    prefix of the test set. A prediction for a problem not in `problems` raises, and so does a gap (a problem
    without a prediction before one with), so a record missing predictions cannot shrink a table unnoticed."""
    ids = {p.id for p in problems}
    stray = sorted(set(correct) - ids)
    if stray:
        raise KeyError(f"predictions for {len(stray)} problems not in the test set, e.g. {stray[:3]}")
    kept = [p for p in problems if p.id in correct]
    gaps = [p.id for p in problems[:len(kept)] if p.id not in correct]
    if gaps:
        raise KeyError(f"no prediction for {len(gaps)} problems inside the evaluated prefix of the test set, "
                       f"e.g. {gaps[:3]}")
    return kept


def table10(records: Sequence[Mapping[str, Any]], problems: Sequence[Problem], models: Sequence[str] = (),
            embeddings: Sequence[str] = (), json_types: Mapping[str, str] | None = None) -> pd.DataFrame:
    """SVAMP Tables 10 and 18 (notebook 05): every model trained on MAWPS + ASDiv-A, accuracy (%) on SVAMP's
    subsets, beside the paper (S and R); a ``No-Op`` row (no paper value) holds SVAMP's operator-less problem.
    Every model × embedding asked for gets its rows, run or not; the Full Set row adds the best test epoch's accuracy
    (the paper's protocol; a subset's is not recorded); ``note`` labels a stand-in run, and, given
    `json_types` (id → SVAMP.json's ``Type``), an ADD/SUB/MUL/DIV subset whose size SVAMP.json puts otherwise:
    the subsets follow the training CSV's ``Type``, which differs from SVAMP.json's for five problems. A model not
    run reads "not run", whatever else its subset's note would say."""
    by_json = dict.fromkeys(OPERATION_OF_TYPE.values(), 0) if json_types else {}
    for problem in problems:
        if json_types and (operation := OPERATION_OF_TYPE.get(json_types.get(problem.id, ""))):
            by_json[operation] = by_json.get(operation, 0) + 1
    rows = []
    for (model, embedding, _), runs in group_runs(records, models, embeddings, [SVAMP_DATASET]).items():
        correct = correctness(runs)
        paper = PAPER_TABLE10.get(model)
        for subset, ids in svamp_subset_ids(scored_problems(problems, correct)).items():
            typed = (f"by the CSV's Type; SVAMP.json's gives n = {by_json[subset]}"
                     if subset in by_json and by_json[subset] != len(ids) else "")
            rows.append({"subset": subset, "model": MODEL_LABELS.get(model, model), "emb": embedding_label(embedding),
                         "paper": paper[subset][embedding != "scratch"] if paper and subset in paper else None,
                         "ours": percent(correct, ids),
                         BEST_TEST_EPOCH: best_test_epoch(runs) if subset == "Full Set" else None, "n": len(ids),
                         "note": "; ".join(filter(None, (stand_in_note(runs), typed))) if runs else "not run"})
    return by_validation(paper_vs_ours(rows, keys=["subset", "model", "emb"]))


def table10_paired_tests(records: Sequence[Mapping[str, Any]], models: Sequence[str] = (),
                         embeddings: Sequence[str] = ()) -> pd.DataFrame:
    """Every two of Table 10's cells compared on the SVAMP problems both scored: accuracy a − b (points) and
    McNemar's exact p, each pair in both orders (as `model_tables.paired_tests` for Table 2). A cell is named
    "Model emb" as Table 10's ``model`` and ``emb`` columns give it (a stand-in's name carries no suffix), so that
    "the best model on SVAMP" (`findings._best_on_svamp`), a lead of one run over another on one test set, can
    be told from noise (notebook 05)."""
    cells = {f"{MODEL_LABELS.get(model, model)} {embedding_label(embedding)}": correctness(runs)
             for (model, embedding, _), runs in group_runs(records, models, embeddings, [SVAMP_DATASET]).items()
             if runs}
    rows = []
    for a, b in itertools.permutations(cells, 2):
        both = cells[a].keys() & cells[b].keys()
        if both:
            test = paired_difference({i: cells[b][i] for i in both}, {i: cells[a][i] for i in both})  # a − b
            rows.append((a, b, test["n"], test["difference"], test["mcnemar_p"]))
    return pd.DataFrame(rows, columns=["a", "b", "n", "a − b", "McNemar p"])


def table11(svamp_without: Sequence[Mapping[str, Any]], svamp_records: Sequence[Mapping[str, Any]],
            asdiv_without: Sequence[Mapping[str, Any]], asdiv_records: Sequence[Mapping[str, Any]],
            models: Sequence[str] = (), embeddings: Sequence[str] = ()) -> pd.DataFrame:
    """SVAMP Tables 11 and 17 (notebook 05): accuracy (%) without questions on SVAMP (trained on MAWPS +
    ASDiv-A) beside ASDiv-A 5-fold without questions, per model; the paper reports R models only. Every
    model × embedding asked for gets its rows, run or not."""
    rows = []
    for name, dataset, records, without, column in (("SVAMP", SVAMP_DATASET, svamp_records, svamp_without, 0),
                                                    ("ASDiv-A", "asdiv-a", asdiv_records, asdiv_without, 1)):
        for (model, embedding, _), runs in group_runs(records, models, embeddings, [dataset]).items():
            paper = PAPER_TABLE11.get(model) if embedding != "scratch" else None
            kept, (bare,) = _evaluated(runs, without)
            scored = correctness(bare)
            rows.append({"test set": f"{name} w/o questions", "model": MODEL_LABELS.get(model, model),
                         "emb": embedding_label(embedding), "folds": len(kept), "n": len(scored),
                         "with question": percent(correctness(kept)),
                         "paper": paper[column] if paper else None, "ours": percent(scored),
                         "note": _folds_note(runs, kept)})
    return by_validation(paper_vs_ours(rows, keys=["test set", "model", "emb", "folds", "n", "with question"]))


def best_run(records: Sequence[Mapping[str, Any]], protocol: Literal["validation", "best test epoch"] = "validation"
             ) -> list[Mapping[str, Any]]:
    """The runs (folds) of the model × embedding with the highest pooled accuracy — the paper's "best model"
    of Tables 13–15 and Appendix E (notebook 05) — under our protocol (each run's epoch chosen on validation) or the
    paper's (each run's best test epoch)."""
    groups = [runs for runs in group_runs(records).values() if correctness(runs)]
    if not groups:
        raise ValueError("no runs with predictions to choose the best model from")
    if protocol == "validation":
        return max(groups, key=lambda runs: percent(correctness(runs)))
    return max(groups, key=lambda runs: best_test_epoch(runs) or 0.0)


#: How Tables 13–15 name the protocol that chose their best model.
CHOSEN_BY = {"validation": "epoch by validation", "best test epoch": "best test epoch (the paper's protocol)"}
BOTH_PROTOCOLS = "both protocols"


def best_by_protocol(records: Sequence[Mapping[str, Any]]) -> dict[str, list[Mapping[str, Any]]]:
    """The best model's runs under each protocol, by :data:`CHOSEN_BY` label; one entry, :data:`BOTH_PROTOCOLS`,
    when both choose the same model. Tables 13–15 are computed for each (from the predictions recorded at each run's
    validation epoch, the only ones kept)."""
    chosen = {label: best_run(records, protocol) for protocol, label in CHOSEN_BY.items()}
    first, second = chosen.values()
    return {BOTH_PROTOCOLS: first} if _run_key(first[0]) == _run_key(second[0]) else chosen


def best_test_epoch(runs: Sequence[Mapping[str, Any]]) -> float | None:
    """Accuracy (%) of `runs` pooled at each run's best test epoch (the papers' protocol; :data:`BEST_TEST_EPOCH`)."""
    n = sum(r["n_test"] for r in runs)
    return 100 * sum(r["metrics"]["peer_test_accuracy"] * r["n_test"] for r in runs) / n if n else None


def best_models(records: Sequence[Mapping[str, Any]]) -> pd.DataFrame:
    """Every model × embedding tested on SVAMP under both protocols, and which is best under each (notebook 05):
    ours (epoch chosen on validation: Tables 13–15 use this one, the only epoch whose per-problem predictions are
    recorded) and the paper's protocol (each run's best test epoch)."""
    rows = [{"model": model_label(runs), "n": sum(r["n_test"] for r in runs), BY_VALIDATION: percent(correctness(runs)),
             BEST_TEST_EPOCH: best_test_epoch(runs)} for runs in group_runs(records).values()]
    frame = pd.DataFrame(rows)
    if frame.empty:
        return frame
    for column, best in ((BY_VALIDATION, "best, ours"), (BEST_TEST_EPOCH, "best, paper's protocol")):
        frame[best] = frame[column] == frame[column].max()
    frame["paper's best"] = PAPER_BEST_MODEL
    return frame


def first_best(table: pd.DataFrame) -> pd.DataFrame:
    """Tables 13–15's rows for their first best model (chosen on validation, or by both protocols): what the
    findings judge and the figure shows; a table without a ``best model by`` column is returned whole."""
    if "best model by" not in table.columns or table.empty:
        return table
    return table[table["best model by"] == table["best model by"].iloc[0]]


def same_model(records: Sequence[Mapping[str, Any]], runs: Sequence[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """The runs among `records` of the model × embedding of `runs` (notebook 05: the best SVAMP model's
    ASDiv-A folds for Table 15)."""
    model, embedding, _ = _run_key(runs[0])
    found = [r for r in records if _run_key(r)[:2] == (model, embedding)]
    if not found:
        raise KeyError(f"no run of {model} ({embedding}) among the {len(records)} records")
    return found


def model_of(runs: Sequence[Mapping[str, Any]]) -> tuple[str, str]:
    """(model, embedding) of a group of runs (notebook 05: which model the SVAMP 5-fold experiment trains)."""
    return _run_key(runs[0])[:2]


def model_label(runs: Sequence[Mapping[str, Any]]) -> str:
    """"Model (emb)" for a group of runs (the model column of Tables 13–15)."""
    model, embedding, _ = _run_key(runs[0])
    return f"{MODEL_LABELS.get(model, model)} ({embedding_label(embedding)})"


def describe_run(runs: Sequence[Mapping[str, Any]]) -> str:
    """"Model (emb) on dataset" for a group of runs (notebook 05 names its best model)."""
    return f"{model_label(runs)} on {_run_key(runs[0])[2]}"


def table_ablation(best: Mapping[str, Sequence[Mapping[str, Any]]], problems: Sequence[Problem],
                   by: Literal["category", "variation"]) -> pd.DataFrame:
    """SVAMP Table 13 (`by="category"`) or 14 (`by="variation"`) for the best model under each protocol (`best`:
    :func:`best_by_protocol`; notebook 05): the number of removed examples and the change in accuracy (points), each
    beside the paper (whose best model is Graph2Tree with RoBERTa); column ``model`` names ours, and a change its
    Fisher p (the removed problems' accuracy against the rest's: can this test set tell them apart?)."""
    paper = PAPER_TABLE13 if by == "category" else PAPER_TABLE14
    rows = []
    for chosen_by, runs in best.items():
        correct = correctness(runs)
        frame = removal_ablation(scored_problems(problems, correct), correct, by=by)
        for _, row in frame.iterrows():
            for i, measure in enumerate(("# removed", "change in accuracy")):
                rows.append({"best model by": chosen_by, "model": model_label(runs), "removed " + by: row["label"],
                             "measure": measure, "paper": paper[row["group"]][i],
                             "ours": row["removed"] if i == 0 else row["change"],
                             REMOVED_VS_REST: "" if i == 0 else p_value(row["fisher_p"])})
    return by_validation(paper_vs_ours(rows, keys=["best model by", "model", "removed " + by, "measure"]))


def table15(best: Mapping[str, Sequence[Mapping[str, Any]]], svamp: Sequence[Problem],
            asdiv_records: Sequence[Mapping[str, Any]], asdiv: Sequence[Problem]) -> pd.DataFrame:
    """SVAMP Table 15 (notebook 05): accuracy (%) by the number of numbers in the text, SVAMP (trained on
    MAWPS + ASDiv-A) vs ASDiv-A cross-validation (the same model's runs among `asdiv_records`), for the best model
    under each protocol (`best`: :func:`best_by_protocol`); the paper's model is Graph2Tree (R)."""
    rows = []
    for chosen_by, svamp_runs in best.items():
        for name, runs, problems in (("ASDiv-A", same_model(asdiv_records, svamp_runs), asdiv),
                                     ("SVAMP", svamp_runs, svamp)):
            correct = correctness(runs)
            frame = accuracy_by_numbers(scored_problems(problems, correct), correct)
            for _, row in frame.iterrows():
                rows.append({"best model by": chosen_by, "dataset": name, "model": model_label(runs),
                             "numbers": row["numbers"], "n": row["n"],
                             "paper": PAPER_TABLE15[name].get(row["numbers"]), "ours": row["accuracy"]})
    return by_validation(paper_vs_ours(rows, keys=["best model by", "dataset", "model", "numbers", "n"]))


#: Column of the §5.3 table: McNemar's p of the 5-fold runs against the same model trained without SVAMP.
WITH_VS_WITHOUT = "with vs without SVAMP, McNemar p"

#: Column of Tables 13 and 14: Fisher's p of the removed problems' accuracy against the remaining ones'.
REMOVED_VS_REST = "removed vs rest, Fisher p"

#: Column of Table 12: McNemar's p of a model against the Majority Template Baseline on the same problems.
VS_MAJORITY = "vs majority template, McNemar p"

#: Column of the §5.3 table: the same test problems, solved by the same model trained on MAWPS + ASDiv-A only.
WITHOUT_SVAMP = "same problems, trained without SVAMP"


def svamp_cv_table(records: Sequence[Mapping[str, Any]],
                   svamp_records: Sequence[Mapping[str, Any]] = ()) -> pd.DataFrame:
    """§5.3 (notebook 05): 5-fold CV on SVAMP, training on MAWPS + ASDiv-A + the other SVAMP folds; pooled
    accuracy (%) per model, the paper's "about 65 %" for its best model beside our best (an empty table when the
    experiment was not run). With `svamp_records` (Table 10's runs, trained without SVAMP), a column gives the
    same model's accuracy on the same test problems: what SVAMP in the training data adds, paired, with McNemar's
    p of the two."""
    keys = ["model", "emb", "folds", "n"]
    without = {(m, e): correctness(runs) for (m, e, _), runs in group_runs(svamp_records).items()}
    rows = []
    for (m, e, _), runs in group_runs(records).items():
        tested = correctness(runs)
        baseline = without.get((m, e), {})
        row = {"model": MODEL_LABELS.get(m, m), "emb": embedding_label(e), "folds": len(runs), "n": len(tested),
               "paper": None, "ours": percent(tested), BEST_TEST_EPOCH: best_test_epoch(runs)}
        if svamp_records:
            same = {i: baseline[i] for i in tested} if set(tested) <= set(baseline) else None
            row[WITHOUT_SVAMP] = percent(same) if same else None
            row[WITH_VS_WITHOUT] = p_value(paired_difference(same, tested)["mcnemar_p"]) if same else ""
        rows.append(row)
    if rows:  # the paper gives one number, for its best model: it goes beside ours
        max(rows, key=lambda row: row["ours"])["paper"] = PAPER_SVAMP_CV
    return by_validation(paper_vs_ours(rows, keys=keys) if rows else
                         pd.DataFrame(columns=[*keys, "paper", "ours", "Δ", BEST_TEST_EPOCH]))


def failures_by_variation(runs: Sequence[Mapping[str, Any]], problems: Sequence[Problem],
                          per_variation: int = 3) -> pd.DataFrame:
    """Appendix E (notebook 05): SVAMP problems the best model fails, with gold and predicted equation,
    `per_variation` per variation type (a problem is listed under its latest variation)."""
    predicted = {p["id"]: p for r in runs for p in r["predictions"]}
    rows = []
    for code, label in VARIATION_LABELS.items():
        failed = [p for p in problems if p.id in predicted and not predicted[p.id]["correct"]
                  and p.meta.get("variation_codes", ("",))[0] == code]
        for problem in failed[:per_variation]:
            prediction = predicted[problem.id]["prefix"]
            rows.append({"variation": label, "id": problem.id, "text": problem.text,
                         "gold": _infix(problem.prefix, problem.numbers),
                         "predicted": _infix(prediction, problem.numbers)})
    return pd.DataFrame(rows)


def _infix(prefix: Sequence[str], numbers: Sequence[str]) -> str:
    """An equation with the problem's numbers filled in (the raw tokens if it does not parse)."""
    if not prefix:
        return "(no prediction)"
    try:
        node = expr.substitute(expr.parse_prefix(list(prefix)), {f"N{i}": n for i, n in enumerate(numbers)})
        return expr.to_infix(node)
    except expr.ExpressionError:
        return " ".join(prefix)


def plot_by_variation(runs: Sequence[Mapping[str, Any]], problems: Sequence[Problem]) -> Any:
    """Figure of notebook 05: the best model's accuracy on SVAMP per variation type."""
    import matplotlib.pyplot as plt

    correct = correctness(runs)
    frame = metrics.accuracy_by(scored_problems(problems, correct), correct, "variation_code")
    fig, ax = plt.subplots(figsize=(7, 3))
    ax.bar([VARIATION_LABELS.get(str(g), str(g)) for g in frame["group"]], 100 * frame["accuracy"])
    ax.set_ylabel("accuracy (%)")
    ax.set_title(describe_run(runs), fontsize=9)
    ax.tick_params(axis="x", labelrotation=45, labelsize=7)
    return fig


def plot_by_numbers(table: pd.DataFrame) -> Any:
    """Figure of notebook 05: accuracy by numbers in the text, ours (bars) and the paper's (markers), for Table 15's
    first best model (chosen by validation, or by both protocols)."""
    import matplotlib.pyplot as plt

    table = first_best(table)
    table = table[table["numbers"] != "other"]
    fig, ax = plt.subplots(figsize=(5, 3))
    for i, (dataset, part) in enumerate(table.groupby("dataset", sort=False)):
        x = np.arange(len(part)) + (i - 0.5) * 0.4
        ax.bar(x, part["ours"], 0.4, label=f"{dataset} (ours)")
        ax.scatter(x, part["paper"], marker="_", s=200, color="black", label="paper" if i else None)
    ax.set_xticks(np.arange(len(part)), [f"{n} nums" for n in part["numbers"]])
    ax.set_ylabel("accuracy (%)")
    ax.legend(fontsize=8)
    return fig


def table5(records: Sequence[Mapping[str, Any]], embeddings: Sequence[str] = ("scratch", "minilm"),
           datasets: Sequence[str] = tuple(PAPER_TABLE5)) -> pd.DataFrame:
    """SVAMP Table 5 (notebook 03): the constrained model's cross-validation accuracy (%) per embedding and
    dataset, every cell listed, run or not."""
    rows = [{"model": MODEL_LABELS.get(m, m), "emb": embedding_label(e), "dataset": d, "folds": len(runs),
             "n": sum(r["n_test"] for r in runs),
             "paper": PAPER_TABLE5[d][e != "scratch"] if d in PAPER_TABLE5 else None,
             "ours": percent(correctness(runs)), BEST_TEST_EPOCH: best_test_epoch(runs)}
            for (m, e, d), runs in group_runs(records, ["constrained"], embeddings, datasets).items()]
    return by_validation(paper_vs_ours(rows, keys=["model", "emb", "dataset", "folds", "n"]))


def table12(records: Sequence[Mapping[str, Any]], train: Sequence[Problem], test: Sequence[Problem],
            embeddings: Sequence[str] = ("scratch", "minilm")) -> pd.DataFrame:
    """SVAMP Table 12 (notebook 03): the constrained model on SVAMP beside the Majority Template Baseline
    (`mwplib.metrics`, computed on the same evaluated test problems); every embedding listed, run or not. Each
    model row carries McNemar's p against the baseline on those problems: the paper's "marginally" better is a
    difference of two runs on one test set."""
    groups = group_runs(records, ["constrained"], embeddings, [SVAMP_DATASET])  # all on the same test problems
    run = next((runs for runs in groups.values() if runs), [])
    evaluated = scored_problems(test, correctness(run)) if run else list(test)
    majority = metrics.answer_correctness(evaluated, metrics.majority_template_predictions(train, evaluated))
    rows = []
    for (m, e, _), runs in groups.items():
        correct = correctness(runs)
        paired = paired_difference(majority, correct) if runs else {"mcnemar_p": None}
        rows.append({"model": MODEL_LABELS.get(m, m), "emb": embedding_label(e), "n": len(correct),
                     "paper": PAPER_TABLE12[e != "scratch"], "ours": percent(correct),
                     BEST_TEST_EPOCH: best_test_epoch(runs), VS_MAJORITY: p_value(paired["mcnemar_p"])})
    rows.append({"model": "Majority Template Baseline", "emb": "", "n": len(evaluated),
                 "paper": PAPER_MAJORITY_BASELINE["svamp"], "ours": percent(majority), VS_MAJORITY: ""})
    return by_validation(paper_vs_ours(rows, keys=["model", "emb", "n"]))
