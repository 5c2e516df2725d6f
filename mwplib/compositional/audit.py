"""The proofreading audit of generated problems (issue 47): a seeded, stratified sample of SD problems and of the
problems data augmentation kept, each read against the rubric of docs/proofreading.md, the judgements committed
as a table under ``results/audit/``, and the acceptable share per group beside the paper's.

The sampling (`stratified`, `per_operation`) is here, so that anyone can redraw it and check that the committed
judgements cover exactly it; the verdicts are a reader's, not a program's. A judgement table has the columns of
:data:`COLUMNS`; its verdict is one of :data:`VERDICTS`, and a reason is required for every problem judged flawed.
:data:`AUDITS` names the committed tables notebook 07 reads (`audit_shares`, `audit_flawed`), :data:`IN_USE` those of
the data Tables I–IV use; SD's sample is drawn by `sd.sd_audit_rows`.
"""
from __future__ import annotations

import random
from collections import defaultdict
from pathlib import Path
from typing import Any, Iterable, Mapping, Sequence

import pandas as pd

from ..paths import ROOT
from .paper_numbers import PAPER_SHARE
from .synthesis import SDSet, labelled

AUDIT_DIR = ROOT / "results" / "audit"
COLUMNS = ("id", "group", "stratum", "text", "expression", "answer", "verdict", "reason")
VERDICTS = ("acceptable", "flawed")


class AuditError(ValueError):
    """A judgement table that does not cover its sample, or holds a verdict outside :data:`VERDICTS`."""


def stratified(rows: Sequence[Mapping[str, Any]], stratum: str, n: int, seed: int) -> list[Mapping[str, Any]]:
    """Exactly `n` rows (all when there are fewer), drawn round-robin over the strata, each shuffled by `seed`, so
    that every stratum is represented when `n` is at least their number; returned in the rows' own order."""
    groups: dict[Any, list[int]] = defaultdict(list)
    for i, row in enumerate(rows):
        groups[row[stratum]].append(i)
    rng = random.Random(seed)
    queues = [rng.sample(members, len(members)) for _, members in sorted(groups.items(), key=lambda kv: str(kv[0]))]
    picked: list[int] = []
    while len(picked) < min(n, len(rows)):
        for queue in queues:
            if queue and len(picked) < n:
                picked.append(queue.pop())
    return [rows[i] for i in sorted(picked)]


def sd_rows(made: SDSet, group: str) -> list[dict[str, Any]]:
    """SD problems as audit rows, stratified by rule and part (train; structural or lexical test)."""
    return [{"id": p.id, "group": group, "stratum": f"rule {p.meta['rule']}, {part}", "text": p.text,
             "expression": " ".join(p.prefix), "answer": p.answer} for p, part in labelled(made)]


def augmentation_rows(kept: Iterable[Mapping[str, Any]], group: str) -> list[dict[str, Any]]:
    """Kept augmented problems (an augmentation record's ``kept``) as audit rows, stratified by operation."""
    return [{"id": row["id"], "group": group, "stratum": f"operation {row['meta'].get('operation')}",
             "text": f"{row['body']} {row['question']}".strip(), "expression": " ".join(row["prefix"]),
             "answer": row["answer"]} for row in kept]


def per_operation(rows: Sequence[Mapping[str, Any]], n: int, seed: int) -> list[Mapping[str, Any]]:
    """`n` rows of every operation (all of them where fewer were kept): a sample per operation, not one shared."""
    by_operation: dict[str, list[Mapping[str, Any]]] = defaultdict(list)
    for row in rows:
        by_operation[row["stratum"]].append(row)
    return [row for _, part in sorted(by_operation.items()) for row in stratified(part, "stratum", n, seed)]


def path(name: str) -> Path:
    return AUDIT_DIR / f"{name}.csv"


def write_sample(name: str, rows: Sequence[Mapping[str, Any]]) -> Path:
    """The sample to judge, verdict and reason empty; refuses to overwrite a judged table (records are kept)."""
    out = path(name)
    if out.exists():
        raise FileExistsError(f"{out}: a judged table exists; a new sample needs a new name")
    out.parent.mkdir(parents=True, exist_ok=True)
    pd.DataFrame([{**row, "verdict": "", "reason": ""} for row in rows], columns=list(COLUMNS)).to_csv(out, index=False)
    return out


def judged(name: str, sample: Sequence[Mapping[str, Any]] | None = None) -> pd.DataFrame:
    """The committed judgements of `name`, checked: every verdict one of :data:`VERDICTS`, a reason for every
    flawed problem, and (given the redrawn `sample`) exactly the sample's ids, so a table cannot drift from it."""
    file = path(name)
    table = pd.read_csv(file, dtype={"reason": str}, keep_default_na=False)
    if missing := [c for c in COLUMNS if c not in table.columns]:
        raise AuditError(f"{file}: no column {missing[0]!r}")
    if bad := sorted(set(table["verdict"]) - set(VERDICTS)):
        raise AuditError(f"{file}: verdict {bad[0]!r}; expected one of {VERDICTS}")
    if len(unexplained := table[(table["verdict"] == "flawed") & (table["reason"].str.strip() == "")]):
        raise AuditError(f"{file}: {unexplained['id'].iloc[0]} is judged flawed with no reason")
    if sample is not None and list(table["id"]) != [row["id"] for row in sample]:
        raise AuditError(f"{file}: its ids are not those of the sample drawn again (a different build or seed)")
    return table


def shares(tables: Iterable[pd.DataFrame], by: Sequence[str] = ("group",)) -> pd.DataFrame:
    """Judged and acceptable counts, and the acceptable share (%), per `by`."""
    table = pd.concat(list(tables), ignore_index=True)
    out = table.groupby(list(by), sort=False)["verdict"].agg(
        judged="size", acceptable=lambda v: int((v == "acceptable").sum())).reset_index()
    out["acceptable %"] = (100 * out["acceptable"] / out["judged"]).round(1)
    return out


# ---------------------------------------------------------------- notebook 07's audit tables

#: problems judged per audit table and group (all of them where fewer): the rubric's sample of at least 100
AUDIT_SAMPLE_SIZE = 100


def augmentation_audit_rows(record: dict[str, Any], min_shared: int = 0, seed: int = 0) -> list[dict[str, Any]]:
    """The kept augmented problems of a +DA record's first round an audit table judges, per operation;
    `min_shared`: the shared evidence the record was made with (its plan's, part of its key)."""
    group = f"augmented {record['dataset']}" + (f", shared evidence ≥ {min_shared}" if min_shared else "")
    return per_operation(augmentation_rows(record["kept"], group), AUDIT_SAMPLE_SIZE, seed)


#: the committed audit tables (`results/audit/`), by name: first the data notebook 07 trains on now (SD proofread,
#: the problems the gated +DA kept), then what was judged before (SD as built and with the preconditions, the
#: problems the paper's protocol kept). ``sd-zh-checked`` judged the build of the preconditions before two
#: refinements (no 没 as content, a stated remainder admitting a product), which added the three problems judged in
#: ``sd-zh-checked-added``: together they cover that build.
AUDITS = ("sd-zh-after-proofreading", "sd-en-after-proofreading", "augmented-quick-gated-mawps-comdiv-pooled",
          "augmented-quick-gated-sd-zh", "sd-zh-unchecked", "sd-en-unchecked", "sd-zh-checked", "sd-zh-checked-added",
          "augmented-quick-mawps-comdiv", "augmented-quick-sd-zh")
#: the audit tables of the data Tables I–IV use now (the first of :data:`AUDITS`); the others judged data since
#: superseded (SD before proofreading, the augmented problems of the paper's protocol, before the gate)
IN_USE = AUDITS[:4]


def _audit_tables(names: Iterable[str] = AUDITS) -> list[pd.DataFrame]:
    return [judged(name) for name in names if path(name).exists()]


def _group_label(group: str) -> str:
    """A group as the audit's tables print it: the augmented problems made without the gate are the paper's protocol."""
    return f"{group}, the paper's protocol" if group.startswith("augmented") and "shared" not in group else group


def audit_shares() -> pd.DataFrame:
    """The acceptable share of every audited group and of its parts (SD: train, structural and lexical test;
    augmentation: each operation), beside what the paper reports for its own."""
    tables = _audit_tables()
    if not tables:
        return pd.DataFrame()
    parts = [t.assign(part=t["stratum"].str.split(", ").str[-1]) for t in tables]
    out = pd.concat([shares(tables), shares(parts, ("group", "part"))], ignore_index=True)
    out["part"] = out["part"].fillna("all")
    order = {name: i for i, name in enumerate(dict.fromkeys(out["group"]))}
    out = out.sort_values("group", key=lambda g: g.map(order), kind="stable", ignore_index=True)
    out["group"] = [_group_label(g) for g in out["group"]]
    out["paper"] = [PAPER_SHARE["augmentation" if g.startswith("augmented") else "SD"] for g in out["group"]]
    return out[["group", "part", "judged", "acceptable", "acceptable %", "paper"]]


#: the most flawed problems of the groups in use `audit_flawed` lists whole; beyond it, a seeded sample of this many
FLAWED_IN_USE_MAX = 12


def _data(name: str, profile: str) -> str:
    """Whether audit `name` judged data `profile`'s tables use: SD's proofread build is every profile's; a gated
    augmentation is the +DA run of the profile its name says (``augmented-quick-…``), and no other's."""
    if name not in IN_USE:
        return "superseded"
    owner = name.split("-")[1] if name.startswith("augmented-") else profile
    return "in use" if owner == profile else f"{owner}'s +DA only"


def _flawed(names: Iterable[str], profile: str) -> pd.DataFrame:
    tables = [judged(name).assign(data=_data(name, profile)) for name in names if path(name).exists()]
    table = pd.concat(tables, ignore_index=True) if tables else pd.DataFrame(columns=[*COLUMNS, "data"])
    return table[table["verdict"] == "flawed"]


def audit_flawed(profile: str = "quick", n: int = 6, seed: int = 0) -> pd.DataFrame:
    """The problems the audit judged flawed, with the first criterion each fails, for the reader to check: every
    one of the groups Tables I–IV use (:data:`IN_USE`; a seeded :data:`FLAWED_IN_USE_MAX` of them were there more),
    then a seeded `n` of the superseded groups', each row labelled by its group and whether `profile`'s tables use
    its data (a gated augmentation belongs to the profile whose +DA run made it)."""
    in_use = _flawed(IN_USE, profile)
    if len(in_use) > FLAWED_IN_USE_MAX:
        in_use = in_use.sample(FLAWED_IN_USE_MAX, random_state=seed).sort_index()
    superseded = _flawed((name for name in AUDITS if name not in IN_USE), profile)
    superseded = superseded.sample(min(n, len(superseded)), random_state=seed)
    out = pd.concat([in_use, superseded], ignore_index=True)
    out["group"] = [_group_label(g) for g in out["group"]]
    return out[["data", "group", "text", "expression", "reason"]]
