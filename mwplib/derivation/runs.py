"""The cache of perceptron runs for notebook 06: each run is trained once and stored as compact JSON
(config, metrics, per-problem predictions) under ``results/runs/<profile>/derivation/<run>-<code>.json.gz``.

A stored run is reused only when its configuration, test ids and code version (a hash of what this package
computes, its loader `datasets` included and the presentation modules excepted) all match; a record is named by
its code hash too, so one made by other code stays beside the new one.
"""
from __future__ import annotations

import random
import time
from dataclasses import asdict, dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, Sequence

from mwplib import numbers, paths, text
from mwplib.records import read_record, record_path, write_record
from mwplib.repro import code_digest
from mwplib.derivation.datasets import load_derivations
from mwplib.derivation.derivations import (Derivation, first_equation_derivation, gold_derivation,
                                           induced_derivation)
from mwplib.derivation.features import parse_problems, problem_features
from mwplib.derivation.metrics import METRICS, score
from mwplib.derivation.perceptron import Example, Solver
from mwplib.derivation.reconcile import reconcile
from mwplib.derivation.templates import TemplateError
from mwplib.problem import Problem


@dataclass(frozen=True)
class RunConfig:
    """One perceptron run: `name` says the data (e.g. "alg514-fold0", "draw+dolphin"), `supervision` is
    TD, TE or TE-eq (see `_reference`), `reconciled` whether training templates were reconciled first."""

    name: str
    supervision: str
    reconciled: bool
    epochs: int
    train_limit: int | None
    test_limit: int | None
    seed: int
    code: str  # hash of the solver and evaluation sources: a stored run is reused only for the same code

    @property
    def key(self) -> str:
        """The record's name: the run's data and supervision, then its code hash, so a retrain under new code
        writes a new record beside the old one instead of over it."""
        return f"{self.name}-{self.supervision}{'' if self.reconciled else '-naive'}-{self.code}"


def _subsample(problems: Sequence[Problem], limit: int | None, seed: int) -> list[Problem]:
    if limit is None or limit >= len(problems):
        return list(problems)
    return random.Random(seed).sample(list(problems), limit)


def _features(problems: Sequence[Problem]) -> dict[str, Any]:
    tagged = {}
    for dataset in sorted({p.meta["dataset"] for p in problems}):
        tagged.update(parse_problems(load_derivations(dataset), dataset))
    return {p.id: problem_features(p, tagged[p.id]) for p in problems}


def _reference(problem: Problem, supervision: str) -> Derivation | None:
    """The training derivation. TD: the annotated one. TE: the annotated template with the first-match
    alignment recovered from the gold equations. TE-eq: template and alignment recovered from the
    equations alone, in their source's own style (naive TE of Table 4); None when they cannot be read."""
    if supervision == "TD":
        return gold_derivation(problem)
    if supervision == "TE":
        return first_equation_derivation(problem)
    try:
        return induced_derivation(problem)
    except TemplateError:
        return None


def _train_examples(train: Sequence[Problem], config: RunConfig,
                    features: dict) -> tuple[list, list[Example], list[str]]:
    """Solver templates, training examples, and the ids skipped because no reference could be built."""
    references = [_reference(p, config.supervision) for p in train]
    skipped = [p.id for p, ref in zip(train, references) if ref is None]
    train = [p for p, ref in zip(train, references) if ref is not None]
    references = [ref for ref in references if ref is not None]
    if config.reconciled:
        rec = reconcile(d.template for d in references)
        references = [rec.apply(d) for d in references]
    templates = list({d.template.key: d.template for d in references}.values())
    index = {t.key: i for i, t in enumerate(templates)}
    examples = []
    for problem, ref in zip(train, references):
        position = {q.position: i for i, q in enumerate(problem.meta["quantities"])}
        alignment = tuple(position[ref.alignment[s]] for s in ref.template.slots)
        examples.append(Example(problem, features[problem.id], index[ref.template.key], alignment))
    return templates, examples, skipped


def run(config: RunConfig, train: Sequence[Problem], test: Sequence[Problem], profile: str) -> dict[str, Any]:
    """Train and evaluate one configuration, or read the stored run with the same configuration."""
    train = _subsample(train, config.train_limit, config.seed)
    test = _subsample(test, config.test_limit, config.seed)
    path = record_path(paths.runs_dir(profile) / "derivation", config.key)
    stored = read_record(path) if path.exists() else None
    if stored and stored["config"] == asdict(config) and stored["test_ids"] == [p.id for p in test]:
        return stored
    start = time.perf_counter()
    features = _features([*train, *test])
    templates, examples, skipped = _train_examples(train, config, features)
    solver = Solver(templates)
    solver.train(examples, config.epochs, seed=config.seed)
    predictions = {}
    for problem in test:
        derivation = solver.predict(Example(problem, features[problem.id]))
        scores = score(problem, derivation)
        predictions[problem.id] = {
            "template": list(derivation.template.equations) if derivation else None,
            "alignment": {s: list(p) for s, p in derivation.alignment.items()} if derivation else None,
            **{m: int(v) for m, v in scores.items()}}
    metrics = {m: 100 * sum(p[m] for p in predictions.values()) / max(1, len(predictions)) for m in METRICS}
    result = {"config": asdict(config), "test_ids": [p.id for p in test], "n_train": len(examples),
              "skipped_train": skipped, "n_templates": len(templates), "seconds": time.perf_counter() - start, "metrics": metrics,
              "predictions": predictions}
    write_record(path, result)
    return result


def pooled(results: Sequence[dict]) -> dict[str, float]:
    """Accuracy over all test problems of all folds (folds are near equal in size)."""
    total = sum(len(r["predictions"]) for r in results)
    return {m: 100 * sum(p[m] for r in results for p in r["predictions"].values()) / max(1, total)
            for m in METRICS}


#: the folder's modules no stored run computes with: the tables and claims, and the paper's printed values
PRESENTATION = ("experiments.py", "paper_numbers.py")


@lru_cache(maxsize=1)
def code_version() -> str:
    """Short hash of what the modules a stored run depends on compute: this package (the loader `datasets` with it),
    the number words and the sentence splitter it reads Q(x) and positions with (`mwplib.numbers`, `mwplib.text`).

    It hashes their syntax trees without docstrings (`repro.code_digest`), not their bytes: a stored run is reused
    only under the same hash, so an edit of a docstring or a comment (e.g. a notebook renumbered in one) must
    not retrain the 40 committed runs, while an edit of their code must."""
    files = [Path(module.__file__) for module in (numbers, text)]
    files += sorted(f for f in Path(__file__).parent.glob("*.py") if f.name not in PRESENTATION)
    return code_digest(files)[:10]
