"""The preconditions a synthetic SD problem passes (`coherence`), on hand-made positive and negative examples in
English and Chinese, and the proofreading audit's sampling and table checks (`audit`)."""
from __future__ import annotations

import pandas as pd
import pytest

from mwplib.compositional import audit
from mwplib.compositional.coherence import Piece, asks_for, noun_sets, problems_with


def pieces(*texts: str) -> list[Piece]:
    return [Piece(text, nouns) for text, nouns in zip(texts, noun_sets(list(texts)))]


@pytest.mark.parametrize("texts, borrowed, operation, reformulation, reason", [
    # a borrowed question about the same objects passes; about others it fails (the examples)
    (("Tom has 12 apples.", "Ann has 8 apples.", "How many apples do they have in all?"), 2, "+", False, None),
    (("Mrs. Hilt bought 6 hot dogs.", "Each hot dog cost 50 cents.", "How many pencils can she buy?"), 2, "/", True,
     "borrowed question about another object or unit"),
    (("一件衣服原价是80元，", "打0.8销售，", "这台语言复读机原价=多少元？"), 2, "*", False,
     "borrowed question about another object or unit"),
    (("水果店有30筐生梨，", "苹果的筐数是生梨的2倍，", "苹果有多少筐？"), 2, "*", False, None),
    # a remainder question over a product needs a sentence stating the remainder
    (("有苹果120kg，", "吃了(1/3)，", "还剩多少kg没吃？"), 1, "*", False,
     "a remainder question with no sentence stating the remainder"),
    (("有苹果120kg，", "还剩下(2/3)没吃，", "还剩多少kg没吃？"), 1, "*", False, None),
    # the question must admit the operation: a total is not a difference
    (("Tom has 12 apples.", "Ann has 8 apples.", "How many apples do they have in all?"), 2, "-", True,
     "the question asks for another operation"),
    # asking for a quantity the text states
    (("甲数是685，", "乙数是523，", "乙数=？"), 2, "+", False, "the question asks for a quantity the text states"),
    # a reformulation whose sentences already relate their numbers contradicts a new operation
    (("Angela has 11 tickets.", "Annie gives Angela 4 more tickets.", "How many more tickets does Angela have than "
      "Annie?"), 2, "-", True, "a reformulation whose sentences already relate their numbers"),
    (("Tom has 12 apples.", "Ann has 8 apples.", "How many more apples does Tom have than Ann?"), 2, "-", True, None),
    # a borrowed sentence must be about something the problem talks about
    (("一个数是(15/16)，", "飞机的速度是火车的4倍，", "飞机的速度=？"), 0, "*", False, "borrowed sentence about no object"),
])
def test_preconditions_on_hand_made_examples(texts, borrowed, operation, reformulation, reason):
    assert problems_with(pieces(*texts), borrowed, operation, reformulation) == reason


def test_cues_admit_their_operations():
    assert asks_for("How many are left?") == {"-"}
    assert asks_for("一共有多少个？") == {"+", "*"}
    assert asks_for("What is it?") == {"+", "-", "*", "/"}


def test_stratified_sample_covers_every_stratum_and_is_seeded():
    rows = [{"id": f"{s}{i}", "stratum": s} for s in "abc" for i in range(40 if s == "a" else 3)]
    sample = audit.stratified(rows, "stratum", 10, seed=0)
    assert len(sample) == 10 and {r["stratum"] for r in sample} == {"a", "b", "c"}
    assert sample == audit.stratified(rows, "stratum", 10, seed=0) != audit.stratified(rows, "stratum", 10, seed=1)
    assert len(audit.stratified(rows, "stratum", 500, seed=0)) == len(rows)


def test_a_judged_table_must_cover_its_sample_with_known_verdicts(tmp_path, monkeypatch):
    monkeypatch.setattr(audit, "AUDIT_DIR", tmp_path)
    rows = [{"id": "p1", "group": "g", "stratum": "s", "text": "t", "expression": "+ N0 N1", "answer": 3.0}]
    audit.write_sample("x", rows)
    with pytest.raises(FileExistsError):
        audit.write_sample("x", rows)
    table = pd.read_csv(audit.path("x"))
    for verdict, reason, error in (("maybe", "", "verdict 'maybe'"), ("flawed", "", "no reason")):
        table.assign(verdict=verdict, reason=reason).to_csv(audit.path("x"), index=False)
        with pytest.raises(audit.AuditError, match=error):
            audit.judged("x")
    table.assign(verdict="acceptable", reason="").to_csv(audit.path("x"), index=False)
    assert audit.shares([audit.judged("x", rows)])["acceptable %"].tolist() == [100.0]
    with pytest.raises(audit.AuditError, match="not those of the sample"):
        audit.judged("x", [{**rows[0], "id": "p2"}])


def test_the_committed_sd_audit_tables_cover_exactly_the_samples_drawn_again():
    from mwplib.compositional import sd

    for language in ("zh", "en"):
        assert [r["id"] for r in sd.sd_audit_rows(language, "as built")] == list(
            audit.judged(f"sd-{language}-unchecked")["id"])
    checked = pd.concat([audit.judged("sd-zh-checked"), audit.judged("sd-zh-checked-added")])
    assert sorted(r["id"] for r in sd.sd_audit_rows("zh", "preconditions")) == sorted(checked["id"])
    # what the preconditions turned away, per rule: the table notebook 07 shows beside that audit
    rejected = sd.sd_rejections("zh")
    turned_away = sd.sd_built("zh", checked=True).incoherent
    assert len(rejected) and rejected["seeds"].sum() == sum(turned_away.values())
