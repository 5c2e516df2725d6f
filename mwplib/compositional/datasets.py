"""The pools Lan et al. split, their compositional splits as committed files, and the `Split`s runs train on.

MAWPS is the 2,373-problem set; Math23K only its public 6,234 problems (the full training file is not public),
labelled so wherever it appears. A problem without a single expression over its numbers cannot be split or
solved: it is left out and listed (:func:`excluded`). Split files live in ``results/splits/compositional/``;
the first call makes one (seconds), later calls read it, so every run trains on exactly the committed ids.

A split built on one k-means draw can exploit what that draw's clusters happen to separate, so every split is also
re-measured under draws it was not built on (:func:`redrawn`, a committed file too), and ComDiv is also built on
several draws at once (``comdiv-pooled``, :func:`make_pooled_splits`).
"""
from __future__ import annotations

import functools
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .. import paths
from ..problem import Problem, Split
from . import atoms, splits
from .divergence import CONVENTIONS
from .paper_numbers import PAPER_COMDIV

#: the pools, by the dataset names runs are recorded under
LABELS = {"mawps": "MAWPS", "math23k": "Math23K, public 6,234"}
#: k-means cluster counts tried for the quantity contexts; the one reaching the highest DBCA^c is kept (§V-A)
KS = (5, 10, 20)
#: the ladder of Fig. 5a: compound divergences aimed at, between the I.I.D. split and the greedy maximum
LADDER_TARGETS = (0.4, 0.5, 0.6, 0.7, 0.8, 0.9)
#: k-means draws per split seed: a pooled split is built on the first `DRAWS` and every split is re-measured on the
#: next `DRAWS`, which no split was built on (seed s: draws 10 s … 10 s + 9; the one-draw splits use draw s)
DRAWS = 5
#: the atom bound a pooled split is built under: below `splits.MAX_ATOM_DIVERGENCE`, so that the bound still holds
#: under the draws it was not built on
POOLED_ATOM_BOUND = 0.015
SPLIT_DIR = paths.RESULTS / "splits" / "compositional"


def _loaded(dataset: str) -> list[Problem]:
    from .. import data

    loaders = {"mawps": data.load_mawps_2373, "math23k": data.load_math23k}
    if dataset not in loaders:
        raise ValueError(f"unknown pool {dataset!r}; choose one of {sorted(loaders)}")
    return loaders[dataset]()


def pool(dataset: str) -> list[Problem]:
    """The problems of `dataset` that have a single expression (those DBCA and the solvers can use)."""
    return [p for p in _loaded(dataset) if p.prefix]


def excluded(dataset: str) -> list[tuple[str, str]]:
    """(id, issue) of every problem of `dataset` left out of its pool for lack of a single expression."""
    return [(p.id, "; ".join(p.meta.get("issues", ())) or "no expression") for p in _loaded(dataset) if not p.prefix]


@dataclass(frozen=True)
class Clustering:
    """The quantity clusters chosen for a pool, and the atoms and compounds they give each problem."""

    k: int
    clusters: dict[str, tuple[int, ...]]  # problem id → the cluster of each of its quantities
    structures: dict[str, atoms.Structure]


@functools.cache
def clustering(dataset: str, seed: int = 0) -> Clustering:
    """The k of :data:`KS` whose greedy split reaches the highest compound divergence, with its structures."""
    problems = pool(dataset)
    n_test = splits.test_size(len(problems))
    best: tuple[float, Clustering] | None = None
    for k in KS:
        clusters = atoms.cluster_quantities(problems, k, seed)
        structs = atoms.structures(problems, clusters)
        reached = splits.greedy_split("max", structs, n_test, seed).compound_divergence
        if best is None or reached > best[0]:
            best = (reached, Clustering(k, clusters, structs))
    assert best is not None
    return best[1]


def _closest(dataset: str, structs: dict[str, atoms.Structure], n_test: int, aim: float, seed: int
             ) -> splits.SplitIds:
    """The greedy split whose compound divergence lands closest to `aim` (the greedy's last, forced steps move
    it off its target, so a few nearby targets are tried)."""
    tries = [splits.greedy_split(f"{dataset}-comdiv", structs, n_test, seed, target=aim + delta)
             for delta in (0.0, 0.03, 0.06, 0.09, 0.12)]
    return min(tries, key=lambda s: abs(s.compound_divergence - aim))


def make_splits(dataset: str, seed: int = 0) -> dict[str, splits.SplitIds]:
    """I.I.D., ComDiv (aimed at the paper's DBCA^c), the greedy maximum and the ladder of one pool."""
    structs = clustering(dataset, seed).structures
    n_test = splits.test_size(len(structs))
    made = {"iid": splits.iid_split(f"{dataset}-iid", structs, n_test, seed),
            "comdiv": _closest(dataset, structs, n_test, PAPER_COMDIV[dataset], seed),
            "max": splits.greedy_split(f"{dataset}-max", structs, n_test, seed)}
    for rung in splits.ladder(f"{dataset}-ladder", structs, n_test, LADDER_TARGETS, seed):
        made[rung.name.removeprefix(f"{dataset}-")] = rung
    return made


def draws(seed: int, held_out: bool = False) -> range:
    """The k-means draws a pooled split of `seed` is built on, or (`held_out`) those every split is re-measured on."""
    first = 10 * seed + (DRAWS if held_out else 0)
    return range(first, first + DRAWS)


def chosen_k(dataset: str, seed: int = 0) -> int:
    """The k chosen for the pool's one-draw splits (§V-A's choice, saved in their files)."""
    return read_split_file(split_path(dataset, "comdiv", seed), ("k",))["k"]


def labellings(dataset: str, seed: int, held_out: bool) -> list[dict[str, atoms.Structure]]:
    """The pool's atoms and compounds under each of :func:`draws`, at the k chosen for its one-draw splits."""
    problems, k = pool(dataset), chosen_k(dataset, seed)
    return [atoms.structures(problems, atoms.cluster_quantities(problems, k, draw)) for draw in draws(seed, held_out)]


def make_pooled_splits(dataset: str, seed: int = 0) -> dict[str, splits.SplitIds]:
    """ComDiv built on :data:`DRAWS` clusterings at once (`atoms.pooled`): the greedy maximum of their mean compound
    divergence under :data:`POOLED_ATOM_BOUND`, measured (as saved) under the pooled counts."""
    structs = atoms.pooled(labellings(dataset, seed, held_out=False))
    return {"comdiv-pooled": splits.greedy_split(f"{dataset}-comdiv-pooled", structs, splits.test_size(len(structs)),
                                                 seed, max_atom_divergence=POOLED_ATOM_BOUND)}


def split_path(dataset: str, name: str, seed: int = 0) -> Path:
    return SPLIT_DIR / f"{dataset}-{name}-seed{seed}.json"


ONE_DRAW = ["iid", "comdiv", "max", *(f"ladder-target{t:.2f}" for t in LADDER_TARGETS)]
POOLED = ["comdiv-pooled"]


def split_names() -> list[str]:
    return [*ONE_DRAW, *POOLED]


class SplitFileError(ValueError):
    """A committed split file (``results/splits/compositional/``) that is not a JSON object with the fields read."""


def read_split_file(path: Path, fields: tuple[str, ...]) -> dict[str, Any]:
    """The split file at `path`; :class:`SplitFileError` naming it when it is not JSON or lacks one of `fields`
    (restore it with git: a split file is never made again over an existing one)."""
    try:
        made = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as error:
        raise SplitFileError(f"{path}: unreadable split file ({type(error).__name__}: {error})") from None
    if not isinstance(made, dict) or (missing := [f for f in fields if f not in made]):
        what = f"no {', '.join(missing)}" if isinstance(made, dict) else f"a JSON {type(made).__name__}"
        raise SplitFileError(f"{path}: damaged split file ({what}); restore it with git")
    return made


def split_files(dataset: str, seed: int = 0) -> dict[str, dict[str, Any]]:
    """Every split file of a pool (made and saved the first time), by split name."""
    families = ((ONE_DRAW, make_splits, lambda: {"k": clustering(dataset, seed).k}),
                (POOLED, make_pooled_splits, lambda: {"k": chosen_k(dataset, seed), "draws": list(draws(seed)),
                                                      "atom_bound": POOLED_ATOM_BOUND}))
    for names, make, about in families:
        if not all(split_path(dataset, name, seed).exists() for name in names):
            problems = {p.id: p for p in pool(dataset)}
            made, info = make(dataset, seed), about()
            for name, split in made.items():
                splits.save(splits.to_json(split, problems, seed, dataset=dataset, pool=LABELS[dataset], **info),
                            split_path(dataset, name, seed))
    return {name: read_split_file(split_path(dataset, name, seed), ("train", "validation", "test"))
            for name in split_names()}


def redrawn_path(dataset: str, seed: int = 0) -> Path:
    return SPLIT_DIR / f"{dataset}-redrawn-seed{seed}.json"


def redrawn(dataset: str, seed: int = 0) -> list[dict[str, Any]]:
    """Every split of the pool re-measured under each held-out draw (:func:`draws`) and both α conventions: rows of
    split, draw, α ("paper" or "Keysers"), DBCA^a, DBCA^c. Measured and saved the first time (a minute for
    Math23K), read later; a saved file is never replaced."""
    path = redrawn_path(dataset, seed)
    if not path.exists():
        files = split_files(dataset, seed)
        rows = []
        for draw, structs in zip(draws(seed, held_out=True), labellings(dataset, seed, held_out=True)):
            for name, record in files.items():
                train = [*record["train"], *record["validation"]]
                for convention, alphas in CONVENTIONS.items():
                    measured = splits.measure(name, train, record["test"], structs, alphas)
                    rows.append({"split": name, "draw": draw, "alpha": convention,
                                 "DBCA^a": round(measured.atom_divergence, 6),
                                 "DBCA^c": round(measured.compound_divergence, 6)})
        splits.save(json.dumps({"dataset": dataset, "seed": seed, "k": chosen_k(dataset, seed), "rows": rows},
                               indent=1) + "\n", path)
    return read_split_file(path, ("rows",))["rows"]


def as_split(dataset: str, name: str, seed: int = 0) -> Split:
    """A split file as the `Split` runs train on: train, validation (`dev`) and test as the file lists them."""
    record = split_files(dataset, seed)[name]
    by_id = {p.id: p for p in pool(dataset)}
    missing = [i for part in ("train", "validation", "test") for i in record[part] if i not in by_id]
    if missing:
        raise ValueError(f"{split_path(dataset, name, seed)}: {len(missing)} ids not in the {dataset} pool, "
                         f"e.g. {missing[:3]}")
    train, dev, test = (tuple(by_id[i] for i in record[part]) for part in ("train", "validation", "test"))
    return Split(f"{dataset}-{name}", train, test, dev)
