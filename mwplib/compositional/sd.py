"""SD, the paper's synthetic set (§III-B), as notebook 07 uses it: built by the synthesis (`synthesis`), proofread
by hand (`proofread`), as a split with its validation part, and SD's own tables (its divergence, its sizes with and
without the preconditions, what proofreading did, what the preconditions turned away, a sample to read) and the
sample of it an audit table judges. A module of its own because both what trains (`grid`) and the paper's tables
(`experiments`) read SD: building it is one job, done here once.
"""
from __future__ import annotations

import functools
from collections import Counter
from collections.abc import Iterable
from typing import Any

import pandas as pd

from ..problem import Split
from ..train import split_validation
from . import atoms, audit, datasets, proofread, splits, synthesis
from .divergence import CONVENTIONS

#: SD's builds: proofread by hand (`proofread`), or as the synthesis builds it
SD_BUILDS = ("proofread", "as built")


def sd_built(language: str, reading: str = "some", seed: int = 0, checked: bool = False) -> synthesis.SDSet:
    """SD as the synthesis builds it, from the Math23K public pool (``"zh"``, the paper's) or from MAWPS + ASDiv-A
    (``"en"``, ours); `checked` applies `coherence`'s preconditions (tried, not adopted). Built once per setting,
    however the call spells it (a cache keyed on the call's spelling would build it again, spaCy pass and all)."""
    return _sd_built(language, reading, seed, checked)


@functools.cache
def _sd_built(language: str, reading: str, seed: int, checked: bool) -> synthesis.SDSet:
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


def compositions(language: str, ids: Iterable[str]) -> dict[str, str]:
    """Each SD test problem's composition (`synthesis.STRUCTURAL` or `LEXICAL`) by id, for runs scored on SD test
    (an id's composition is the same proofread or as built). An id SD's test set lacks (a record scored on another
    build of SD) raises ValueError naming it."""
    kinds = {p.id: p.meta["composition"] for p in sd_built(language).test}
    if missing := [i for i in ids if i not in kinds]:
        raise ValueError(f"{len(missing)} problem(s) scored on SD-{language} test are not in its test set (first: "
                         f"{missing[0]!r}): the run was scored on another build of SD")
    return {i: kinds[i] for i in ids}


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


def _clustered(language: str, seed: int, draw: int) -> tuple[synthesis.SDSet, dict[str, atoms.Structure]]:
    """SD and its atoms and compounds, its quantities clustered under k-means `draw` with the k chosen for its
    source pool."""
    made = sd_set(language)
    problems = [*made.train, *made.test]
    k = datasets.chosen_k("math23k" if language == "zh" else "mawps", seed)
    return made, atoms.structures(problems, atoms.cluster_quantities(problems, k, draw))


def sd_divergence(language: str, seed: int = 0) -> splits.SplitIds:
    """SD's atom and compound divergence, its quantities clustered with the k chosen for its source pool."""
    made, structs = _clustered(language, seed, seed)
    return splits.measure(f"sd-{language}", [p.id for p in made.train], [p.id for p in made.test], structs)


def sd_redrawn(language: str, seed: int = 0) -> pd.DataFrame:
    """SD's divergences re-measured as Table I re-measures the pools' splits: its quantities clustered anew under
    each held-out k-means draw (`datasets.draws`), under both α conventions (`divergence.CONVENTIONS`); rows of
    draw, α, DBCA^a, DBCA^c."""
    rows = []
    for draw in datasets.draws(seed, held_out=True):
        made, structs = _clustered(language, seed, draw)
        for convention, alphas in CONVENTIONS.items():
            measured = splits.measure(f"sd-{language}", [p.id for p in made.train], [p.id for p in made.test],
                                      structs, alphas)
            rows.append({"draw": draw, "alpha": convention, "DBCA^a": measured.atom_divergence,
                         "DBCA^c": measured.compound_divergence})
    return pd.DataFrame(rows)


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


# ---------------------------------------------------------------- the audit sample

#: the SD builds an audit table can sample: as built, with `coherence`'s preconditions, proofread by hand
AUDITED_BUILDS = ("as built", "preconditions", "proofread")


def sd_audit_rows(language: str, build: str, seed: int = 0) -> list[dict[str, Any]]:
    """The seeded, stratified SD sample an audit table judges (all problems where fewer than the sample size)."""
    if build not in AUDITED_BUILDS:
        raise ValueError(f"unknown SD build {build!r}; choose one of {AUDITED_BUILDS}")
    made = sd_set(language) if build == "proofread" else sd_built(language, checked=build == "preconditions")
    group = {"as built": f"SD-{language}, without preconditions", "preconditions": f"SD-{language}, with preconditions",
             "proofread": f"SD-{language}, proofread"}[build]
    return audit.stratified(audit.sd_rows(made, group), "stratum", audit.AUDIT_SAMPLE_SIZE, seed)
