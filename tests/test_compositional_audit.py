"""The proofreading audit as notebook 07 shows it (`compositional.audit`): the flawed problems a reader can check
include those of the data Tables I–IV use, not only of data since superseded."""
from __future__ import annotations

import pandas as pd

from mwplib.compositional import audit
from mwplib.profiles import get_profile


def test_the_audit_tables_in_use_are_those_of_the_data_the_tables_train_on():
    plan = get_profile("quick").compositional
    assert plan.sd_build == "proofread" and plan.da_min_shared == 3
    groups = set(pd.concat([audit.judged(name) for name in audit.IN_USE])["group"])
    assert groups == {"SD-zh, proofread", "SD-en, proofread", "augmented mawps-comdiv-pooled, shared evidence ≥ 3",
                      "augmented sd-zh, shared evidence ≥ 3"}


def test_every_flawed_problem_of_the_data_in_use_is_shown_labelled_by_its_group():
    shown = audit.audit_flawed()
    committed = pd.concat([audit.judged(name) for name in audit.IN_USE])
    flawed = committed[committed["verdict"] == "flawed"]
    assert 0 < len(flawed) <= audit.FLAWED_IN_USE_MAX  # few: all of them are shown
    in_use = shown[shown["data"] == "in use"]
    assert sorted(zip(in_use["group"], in_use["text"])) == sorted(zip(flawed["group"], flawed["text"]))
    assert set(in_use["group"]) >= {"SD-zh, proofread", "augmented mawps-comdiv-pooled, shared evidence ≥ 3"}
    superseded = shown[shown["data"] == "superseded"]
    assert len(superseded) == 6 and not set(superseded["group"]) & set(committed["group"])
    # the superseded augmented groups are named as the shares table names them
    assert set(superseded["group"]) <= set(audit.audit_shares()["group"])
    assert (shown["reason"].str.strip() != "").all()


def test_many_flawed_problems_in_use_are_sampled_and_the_superseded_sample_is_seeded(tmp_path, monkeypatch):
    monkeypatch.setattr(audit, "AUDIT_DIR", tmp_path)
    monkeypatch.setattr(audit, "AUDITS", ("now", "before"))
    monkeypatch.setattr(audit, "IN_USE", ("now",))
    for name, group, n in (("now", "SD-zh, proofread", 30), ("before", "augmented sd-zh", 10)):
        pd.DataFrame([{"id": f"{name}{i}", "group": group, "stratum": "operation 2", "text": f"{name} {i}",
                       "expression": "+ N0 N1", "answer": 3, "verdict": "flawed", "reason": "fluent: x"}
                      for i in range(n)], columns=list(audit.COLUMNS)).to_csv(audit.path(name), index=False)
    shown = audit.audit_flawed(n=4, seed=1)
    assert list(shown["data"]) == ["in use"] * audit.FLAWED_IN_USE_MAX + ["superseded"] * 4
    assert set(shown["group"]) == {"SD-zh, proofread", "augmented sd-zh, the paper's protocol"}
    assert shown.equals(audit.audit_flawed(n=4, seed=1))
    assert not shown.equals(audit.audit_flawed(n=4, seed=2))


def test_quicks_gated_augmentations_are_not_in_use_under_a_profile_without_their_run():
    quick, full = audit.audit_flawed("quick"), audit.audit_flawed("full")
    augmented = full["group"].str.startswith("augmented") & full["group"].str.contains("shared evidence")
    assert augmented.any() and set(full.loc[augmented, "data"]) == {"quick's +DA only"}
    assert set(quick.loc[augmented, "data"]) == {"in use"}  # the same rows: the sample does not depend on profile
    assert set(full.loc[full["group"].str.startswith("SD"), "data"]) - {"superseded"} == {"in use"}


def test_each_augmentation_audit_covers_exactly_the_sample_drawn_again_from_a_committed_record():
    """The module's promise: anyone can redraw an audit's sample and check that the judgements cover exactly it.
    Each augmented table is the per-operation sample (`audit.augmentation_audit_rows`) of the first round of one
    committed +DA record of `quick` (gated with shared evidence ≥ 3, or the paper's protocol without)."""
    from mwplib import paths
    from mwplib.records import read_record

    records = [read_record(f) for f in sorted((paths.runs_dir("quick") / "augmentation").glob("*/*.json.gz"))]
    names = [name for name in audit.AUDITS if name.startswith("augmented-")]
    assert len(names) == 4 and records
    for name in names:
        gated = "-gated-" in name
        ids = list(audit.judged(name)["id"])
        samples = [audit.augmentation_audit_rows(record, 3 if gated else 0) for record in records]
        drawn = [rows for rows in samples if [row["id"] for row in rows] == ids]
        assert drawn, f"{name}: no committed +DA record's sample has its ids"
        audit.judged(name, drawn[0])  # the checks of `judged` against the sample drawn again
        assert drawn[0][0]["group"] == audit.judged(name)["group"].iloc[0]
