"""How SVAMP was built and what answer accuracy misses (notebook 04; SVAMP §5.1, Table 7; Upadhyay & Chang 2017).

Seed selection (§5.1): ASDiv-A grouped by annotated type (Addition, Subtraction, Multiplication, Common-Division:
the types the paper keeps), problems of at most 40 words solved by one operator, k-means over sentence embeddings
within each group (RoBERTa in the paper; MiniLM or MPNet here, labelled), and the problem nearest each centroid
a seed; Table 7's seed counts per group. The authors' file marks their 100 seeds, so ours are compared with
theirs, against what a random draw from the same pools overlaps by.

Right answer, wrong equation: a solver is scored by its answer, but an answer can come from an equation that is
not the gold one (``12 - 5`` for ``12 / 2 + 1``). Equations are compared by exact evaluation on random numbers.
"""
from __future__ import annotations

import random
from collections.abc import Iterable, Iterator, Mapping, Sequence
from fractions import Fraction
from typing import Any

import numpy as np
import pandas as pd

from .. import expr
from ..problem import Problem
from .paper_numbers import PAPER_TABLE7
from .prediction_analysis import VARIATION_LABELS

#: ASDiv-A's annotated types that §5.1 keeps, with the group names of Table 7 (the others have under 20 examples,
#: are TVQ-Change / TVQ-Initial / Ceil- or Floor-Division, or, like Difference, need a modulus).
GROUPS = {"Addition": "Addition", "Subtraction": "Subtraction", "Multiplication": "Multiplication",
          "Common-Division": "Division"}
#: "we discard the few examples that are more than 40 words long".
MAX_WORDS = 40


def exclusion(problem: Problem) -> tuple[str, str]:
    """Why §5.1 would not take `problem` as a seed candidate, as (kind, reason): kind "type", "length" or
    "operators"; ("", "") when it would."""
    if problem.meta.get("type", "") not in GROUPS:
        return "type", f"type {problem.meta.get('type')!r} is not one of Table 7's groups"
    if len(problem.text.split()) > MAX_WORDS:
        return "length", f"{len(problem.text.split())} words (more than {MAX_WORDS})"
    if len(problem.prefix) != 3 or problem.prefix[0] not in expr.OPERATORS:
        return "operators", f"its gold expression {' '.join(problem.prefix) or '(none)'} is not one operator"
    return "", ""


def first_of_each(problems: Iterable[Problem]) -> pd.DataFrame:
    """The first problem kept and the first dropped for each reason: the filters walked through (notebook 04)."""
    first: dict[str, Problem] = {}
    for problem in problems:
        first.setdefault(exclusion(problem)[0] or "kept", problem)
    return pd.DataFrame([{"outcome": kind, "id": p.id, "text": p.text, "gold": " ".join(p.prefix),
                          "why": exclusion(p)[1]} for kind, p in first.items()])


def seed_pools(problems: Iterable[Problem], limit: int | None = None) -> dict[str, list[Problem]]:
    """The candidates of each Table 7 group, in load order (at most `limit` each: the `smoke` profile)."""
    pools: dict[str, list[Problem]] = {group: [] for group in PAPER_TABLE7}
    for problem in problems:
        if not exclusion(problem)[0]:
            pools[GROUPS[problem.meta["type"]]].append(problem)
    return {group: pool[:limit] for group, pool in pools.items()}


def sentence_vectors(texts: Sequence[str], encoder: str = "minilm", batch_size: int = 64) -> np.ndarray:
    """One unit-length vector per text: the encoder's token states mean-pooled, as its sentence-transformers
    recipe does (all-MiniLM-L6-v2 and all-mpnet-base-v2 both)."""
    import torch
    from transformers import AutoModel

    from ..models.embedders import _tokenizer, resolve_pretrained

    tokenizer, model = _tokenizer(encoder), AutoModel.from_pretrained(resolve_pretrained(encoder)).eval()
    out = []
    with torch.no_grad():
        for start in range(0, len(texts), batch_size):
            batch = tokenizer(list(texts[start:start + batch_size]), padding=True, truncation=True,
                              return_tensors="pt")
            states = model(**batch).last_hidden_state
            mask = batch["attention_mask"].unsqueeze(-1).float()
            pooled = (states * mask).sum(1) / mask.sum(1)
            out.append(torch.nn.functional.normalize(pooled, dim=1).numpy())
    return np.concatenate(out) if out else np.zeros((0, 0))


def pool_vectors(pools: Mapping[str, Sequence[Problem]], encoder: str = "minilm") -> dict[str, np.ndarray]:
    """:func:`sentence_vectors` of every group's problems (rows in pool order), the encoder loaded once."""
    texts = [p.text for pool in pools.values() for p in pool]
    vectors, start, out = sentence_vectors(texts, encoder), 0, {}
    for group, pool in pools.items():
        out[group], start = vectors[start:start + len(pool)], start + len(pool)
    return out


def select_seeds(pools: Mapping[str, Sequence[Problem]], counts: Mapping[str, int],
                 vectors: Mapping[str, np.ndarray], seed: int = 0) -> dict[str, list[str]]:
    """Per group, k-means with `counts[group]` clusters over its problems' `vectors` (rows in pool order) and the
    problem nearest each centroid (a problem nearest two centroids counts once, the next nearest fills in)."""
    from sklearn.cluster import KMeans

    chosen: dict[str, list[str]] = {}
    for group, problems in pools.items():
        k = min(counts[group], len(problems))
        if k == 0:
            chosen[group] = []
            continue
        kmeans = KMeans(n_clusters=k, random_state=seed, n_init=10).fit(vectors[group])
        distances = kmeans.transform(vectors[group])  # problems × centroids
        picked: list[int] = []
        for centroid in range(k):
            order = np.argsort(distances[:, centroid], kind="stable")
            picked.append(next(int(i) for i in order if int(i) not in picked))
        chosen[group] = [problems[i].id for i in picked]
    return chosen


def table7(problems: Sequence[Problem], pools: Mapping[str, Sequence[Problem]], ours: Mapping[str, Sequence[str]],
           theirs: Iterable[str | None], encoder: str) -> pd.DataFrame:
    """Table 7 beside the paper's, with how many of our seeds are SVAMP's own (`theirs`: their ASDiv-A ids) and how
    many a random draw of as many from the same candidates would share on average (hypergeometric mean)."""
    theirs = {i for i in theirs if i}
    rows = []
    for group, (paper_examples, paper_seeds) in PAPER_TABLE7.items():
        types = [t for t, g in GROUPS.items() if g == group]
        candidates = {p.id for p in pools[group]}
        in_group = sum(p.meta.get("type") in types for p in problems)
        real = len(theirs & candidates)
        rows.append({"group": group, "examples in ASDiv-A": in_group, "paper: examples": paper_examples,
                     "candidates (≤ 40 words, one operator)": len(candidates), "seeds": len(ours[group]),
                     "paper: seeds": paper_seeds, "SVAMP's seeds among the candidates": real,
                     "ours that are SVAMP's": len(theirs & set(ours[group])), "encoder": encoder,
                     "a random draw's, on average": len(ours[group]) * real / len(candidates) if candidates else 0.0})
    frame = pd.DataFrame(rows)
    total = frame.drop(columns=["group", "encoder"]).sum().to_dict()
    frame = pd.concat([frame, pd.DataFrame([{"group": "Total", **total, "encoder": encoder}])], ignore_index=True)
    counts = [c for c in frame.columns if c not in ("group", "encoder", "a random draw's, on average")]
    return frame.astype({c: int for c in counts})


# ------------------------------------------------------------------------------ right answer, wrong equation

def equivalent(first: Sequence[str], second: Sequence[str], slots: int, trials: int = 8, seed: int = 0) -> bool:
    """Whether two prefix expressions over slots ``N0``… are the same function of the numbers: equal, exactly, on
    `trials` random positive rationals (a draw where either cannot be evaluated, e.g. by dividing by zero, is
    redrawn; an expression that never evaluates equals only itself)."""
    if tuple(first) == tuple(second):
        return True
    try:
        trees = expr.parse_prefix(list(first)), expr.parse_prefix(list(second))
    except expr.ExpressionError:
        return False
    draw = random.Random(seed)
    agreed = 0
    for _ in range(trials * 4):
        bindings = {f"N{i}": Fraction(draw.randint(1, 997), draw.randint(1, 97)) for i in range(slots)}
        try:
            values = [expr.evaluate(tree, bindings) for tree in trees]
        except expr.ExpressionError:
            continue
        if values[0] != values[1]:
            return False
        agreed += 1
        if agreed == trials:
            return True
    return False


def lucky(prediction: Mapping[str, Any], problem: Problem) -> bool:
    """A recorded prediction answered right with an equation not equivalent to the gold one."""
    return bool(prediction["correct"]) and not equivalent(prediction["prefix"], problem.prefix, len(problem.numbers))


def _first_of_value(prefix: Sequence[str], numbers: Sequence[str]) -> list[str]:
    """`prefix` with each slot replaced by the first slot holding the same number."""
    first = {}
    for i, number in enumerate(numbers):
        first.setdefault(expr.exact_value(number), f"N{i}")
    return [first[expr.exact_value(numbers[expr.slot_index(t)])] if expr.is_slot(t) and expr.slot_index(t) < len(numbers)
            else t for t in prefix]


def other_slot_only(prediction: Mapping[str, Any], problem: Problem) -> bool:
    """A lucky prediction that is the gold equation but for a number taken from another place holding the same
    value (two 5s in the text): the right operations, one quantity misplaced."""
    return equivalent(_first_of_value(prediction["prefix"], problem.numbers),
                      _first_of_value(problem.prefix, problem.numbers), len(problem.numbers))


def _predicted(record: Mapping[str, Any], tests: Mapping[tuple[str, int], Sequence[Problem]]
               ) -> Iterator[tuple[Mapping[str, Any], Problem]]:
    """Each prediction of a run record with its test problem (`tests` maps (dataset, fold) to the test problems)."""
    problems = {p.id: p for p in tests[(record["spec"]["dataset"], record["spec"]["fold"])]}
    return ((prediction, problems[prediction["id"]]) for prediction in record["predictions"])


def first_lucky(records: Sequence[Mapping[str, Any]], tests: Mapping[tuple[str, int], Sequence[Problem]],
                label: Any) -> dict[str, Any] | None:
    """The first recorded right answer from another equation, for the lesson of notebook 04 (None if none)."""
    for record in records:
        spec = record["spec"]
        for prediction, problem in _predicted(record, tests):
            if lucky(prediction, problem):
                return {"run": f"{spec['model']} {label(spec['config']['embedding'])} {spec['dataset']}",
                        "text": problem.text, "numbers": problem.numbers, "gold": " ".join(problem.prefix),
                        "predicted": " ".join(prediction["prefix"]), "answer": problem.answer}
    return None


def lucky_table(records: Sequence[Mapping[str, Any]], tests: Mapping[tuple[str, int], Sequence[Problem]],
                label: Any) -> pd.DataFrame:
    """Per model × embedding × dataset (pooled over its folds): answer accuracy, and how many right answers come
    from an equation that is not the gold one (and of those, how many only take a number from another place
    holding the same value: :func:`other_slot_only`). `tests` maps (dataset, fold) to the test problems; `label` names an
    embedding (`runs.embedding_label`)."""
    rows: dict[tuple[str, str, str], dict[str, Any]] = {}
    for record in records:
        spec = record["spec"]
        key = (spec["model"], label(spec["config"]["embedding"]), spec["dataset"])
        row = rows.setdefault(key, {"model": key[0], "emb": key[1], "dataset": key[2], "folds": 0, "n": 0,
                                    "right": 0, "right, other equation": 0, "of which a same-valued number": 0})
        row["folds"] += 1
        for prediction, problem in _predicted(record, tests):
            row["n"] += 1
            row["right"] += bool(prediction["correct"])
            if lucky(prediction, problem):
                row["right, other equation"] += 1
                row["of which a same-valued number"] += other_slot_only(prediction, problem)
    frame = pd.DataFrame(list(rows.values()))
    if frame.empty:
        return frame
    frame["answer accuracy"] = 100 * frame["right"] / frame["n"]
    frame["equation accuracy"] = 100 * (frame["right"] - frame["right, other equation"]) / frame["n"]
    frame["% of right answers"] = 100 * frame["right, other equation"] / frame["right"].where(frame["right"] > 0)
    return frame


def lucky_by_category(records: Sequence[Mapping[str, Any]], problems: Sequence[Problem], label: Any
                      ) -> pd.DataFrame:
    """For the runs tested on SVAMP (`problems`): per run and variation category, answer accuracy and the share of
    right answers from another equation (a problem counts in each category it carries)."""
    by_id = {p.id: p for p in problems}
    rows = []
    for record in records:
        counts: dict[str, list[int]] = {}
        for prediction in record["predictions"]:
            problem = by_id[prediction["id"]]
            for category in problem.meta.get("variation_categories", ()) or ("(none)",):
                n_right_other = counts.setdefault(category, [0, 0, 0])
                n_right_other[0] += 1
                n_right_other[1] += bool(prediction["correct"])
                n_right_other[2] += lucky(prediction, problem)
        run = f"{record['spec']['model']} {label(record['spec']['config']['embedding'])}"
        rows += [{"run": run, "category": c, "n": n, "answer accuracy": 100 * right / n,
                  "right, other equation": other, "% of right answers": 100 * other / right if right else None}
                 for c, (n, right, other) in sorted(counts.items())]
    return pd.DataFrame(rows)


# --------------------------------------------------------------------- rule-made variations beside SVAMP's own

def variation_accuracy(evaluated: Sequence[tuple[Mapping[str, Any], Mapping[str, Any]]],
                       generated: Sequence[Problem], svamp: Sequence[Problem], label: Any) -> pd.DataFrame:
    """Per SVAMP-trained run and variation type: accuracy on the rule-made variations (`evaluated`: each run with its
    evaluation on `generated`, `transfer.evaluate_available`) beside its accuracy on SVAMP's problems made by that
    variation alone (the human-made ones of the same type; the run's own predictions); "all" rows: every generated
    problem, and all of SVAMP."""
    code_of = {p.id: p.meta["variation_codes"][0] for p in generated}
    svamp_codes = {p.id: tuple(p.meta.get("variation_codes", ())) for p in svamp}
    rows = []
    for record, evaluation in evaluated:
        run = f"{record['spec']['model']} {label(record['spec']['config']['embedding'])}"
        ours = [(code_of[p["id"]], bool(p["correct"])) for p in evaluation["predictions"]]
        theirs = [(svamp_codes[p["id"]], bool(p["correct"])) for p in record["predictions"]]
        for code in [*sorted({c for c, _ in ours}), "all"]:
            mine = [right for c, right in ours if code in (c, "all")]
            human = [right for codes, right in theirs if code == "all" or codes == (code,)]
            rows.append({"run": run, "code": code, "variation": VARIATION_LABELS.get(code, "all"),
                         "rule-made: n": len(mine), "rule-made: accuracy": 100 * float(np.mean(mine)) if mine else None,
                         "SVAMP: n": len(human),
                         "SVAMP: accuracy": 100 * float(np.mean(human)) if human else None})
    return pd.DataFrame(rows, columns=["run", "code", "variation", "rule-made: n", "rule-made: accuracy", "SVAMP: n",
                                       "SVAMP: accuracy"])


def rank_agreement(frame: pd.DataFrame) -> pd.DataFrame:
    """Whether the rule-made set ranks what SVAMP ranks (Spearman's rho, from :func:`variation_accuracy`): the
    variation types, per run, and the runs, by their accuracy on all problems. ``items`` says how many were ranked:
    with six types and three runs, a rho is a coarse reading."""
    from scipy.stats import spearmanr

    def rho(part: pd.DataFrame) -> float | None:
        part = part.dropna(subset=["rule-made: accuracy", "SVAMP: accuracy"])
        if len(part) < 3 or part["rule-made: accuracy"].nunique() < 2 or part["SVAMP: accuracy"].nunique() < 2:
            return None  # too few items, or one side does not rank them at all
        return float(spearmanr(part["rule-made: accuracy"], part["SVAMP: accuracy"]).statistic)

    if frame.empty:
        return pd.DataFrame(columns=["ranks", "run", "items", "Spearman rho"])
    rows = [{"ranks": "variation types", "run": run, "items": int((part["code"] != "all").sum()),
             "Spearman rho": rho(part[part["code"] != "all"])} for run, part in frame.groupby("run", sort=False)]
    overall = frame[frame["code"] == "all"]
    rows.append({"ranks": "runs (all problems)", "run": ", ".join(overall["run"]), "items": len(overall),
                 "Spearman rho": rho(overall)})
    return pd.DataFrame(rows)
