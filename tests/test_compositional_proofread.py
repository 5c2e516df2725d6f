"""SD proofread by hand: the table is checked against its build, fixes keep their numbers, groups stay whole."""
from __future__ import annotations

import pandas as pd
import pytest

from mwplib.compositional import proofread
from mwplib.compositional.synthesis import SDSet
from mwplib.problem import Problem


def _problem(pid: str, text: str, prefix: tuple[str, ...], numbers: tuple[str, ...], made_from: tuple[str, ...],
             rule: int, composition: str | None = None) -> Problem:
    meta = {"rule": rule, "made_from": made_from, **({"composition": composition} if composition else {})}
    return Problem(pid, text, "", " ".join(prefix), 0.0, numbers, prefix, meta)


# seed 7 decomposed (rule 3): its halves train, itself structural test; seed 9 reformulated (rule 11): itself
# train, its reformulation lexical test
HALF_A = _problem("sd-7-r3-a", "Tom has 4 bags of 5 apples. How many pencils?", ("*", "N0", "N1"), ("4", "5"),
                  ("7", "2"), 3)
HALF_B = _problem("sd-7-r3-b", "Tom has 20 apples and picks 3 more. How many apples?", ("+", "N0", "N1"),
                  ("20", "3"), ("7", "5"), 3)
SEED_7 = _problem("sd-7", "Tom has 4 bags of 5 apples and picks 3 more. How many apples?", ("+", "*", "N0", "N1", "N2"),
                  ("4", "5", "3"), ("7",), 3, "structural")
SEED_9 = _problem("sd-9", "Ann had 8 pens and lost 2. How many pens are left?", ("-", "N0", "N1"), ("8", "2"),
                  ("9",), 11)
REFORM_9 = _problem("sd-9-r11-a", "Ann had 8 pens and lost 2. How many ducks?", ("+", "N0", "N1"), ("8", "2"),
                    ("9", "4"), 11, "lexical")
MADE = SDSet((HALF_A, HALF_B, SEED_9), (SEED_7, REFORM_9))


def _table(**verdicts: tuple[str, str, str]) -> pd.DataFrame:
    """Every problem kept, except those given as id=(verdict, fixed, reason) (ids with "_" for "-")."""
    rows = proofread.rows(MADE)
    for row in rows:
        verdict, fixed, reason = verdicts.get(row["id"].replace("-", "_"), ("keep", "", ""))
        row.update(verdict=verdict, fixed=fixed, reason=reason)
    return pd.DataFrame(rows, columns=list(proofread.COLUMNS)).astype(str)


def test_a_fix_is_written_in_and_the_rest_kept_as_built():
    fixed = "Tom has 4 bags of 5 apples. How many apples are in the bags?"
    done = proofread.apply(MADE, _table(sd_7_r3_a=("fix", fixed, "answerable: asks about pencils")))
    assert [p.id for p in done.made.train] == ["sd-7-r3-a", "sd-7-r3-b", "sd-9"]
    assert done.made.train[0].text == fixed and done.made.train[0].prefix == HALF_A.prefix
    assert done.made.train[0].meta["as_built"] == HALF_A.text
    assert done.made.train[1] is HALF_B and done.made.test == MADE.test
    assert done.verdicts[("train", "fix")] == 1 and done.verdicts[("test lexical", "keep")] == 1


def test_a_drop_takes_its_whole_group_and_no_other():
    done = proofread.apply(MADE, _table(sd_7_r3_b=("drop", "", "fluent: garbled")))
    assert [p.id for p in done.made.train] == ["sd-9"] and [p.id for p in done.made.test] == ["sd-9-r11-a"]
    assert done.dropped_with_group == {"train": 1, "test structural": 1}
    done = proofread.apply(MADE, _table(sd_9_r11_a=("drop", "", "answerable: ducks")))
    assert [p.id for p in done.made.train] == ["sd-7-r3-a", "sd-7-r3-b"] and [p.id for p in done.made.test] == ["sd-7"]


def test_a_fix_that_changes_the_numbers_is_refused_and_drops_its_group():
    for text in ("Ann had 8 pens and lost 3. How many pens?", "Ann had 8.0 pens and lost 2.5. How many?",
                 "Ann had 2 pens and lost 8. How many pens in all?", "Ann had 8 pens. How many?"):
        done = proofread.apply(MADE, _table(sd_9_r11_a=("fix", text, "answerable: ducks")))
        assert done.refused_fixes == ("sd-9-r11-a",), text
        assert [p.id for p in done.made.test] == ["sd-7"]


@pytest.mark.parametrize("change, message", [
    (lambda t: t.iloc[1:], "not judged"),
    (lambda t: pd.concat([t, t.iloc[:1]]), "judged twice"),
    (lambda t: pd.concat([t, t.iloc[:1].assign(id="sd-1")]), "not a problem of this build"),
    (lambda t: t.assign(text=t["text"].str.replace("Tom", "Tim")), "not the one built"),
    (lambda t: t.assign(verdict="maybe"), "verdict 'maybe'"),
    (lambda t: t.assign(verdict="fix", reason="x"), "without a fixed text"),
    (lambda t: t.assign(verdict="drop"), "no reason"),
    (lambda t: t.drop(columns="fixed"), "no column 'fixed'"),
])
def test_a_table_that_does_not_fit_its_build_names_the_file_and_the_problem(tmp_path, change, message):
    file = tmp_path / "sd-xx-proofread.csv"
    change(_table()).to_csv(file, index=False)
    with pytest.raises(proofread.ProofreadError, match=message) as raised:
        proofread.load(file, MADE)
    assert str(file) in str(raised.value)


def test_the_committed_tables_judge_exactly_the_sd_built_today():
    from mwplib.compositional import sd

    for language in ("zh", "en"):
        done = sd.sd_proofread(language)
        built = sd.sd_built(language)
        assert sum(done.verdicts.values()) == len(built.train) + len(built.test)
        kept = [*done.made.train, *done.made.test]
        assert kept and all(p.answer is not None for p in kept)
        assert {p.meta["made_from"][0] for p in done.made.test} <= {p.meta["made_from"][0] for p in done.made.train}


def test_the_audit_of_the_proofread_sd_covers_exactly_the_sample_drawn_again():
    from mwplib.compositional import audit, sd

    for language in ("zh", "en"):
        table = audit.judged(f"sd-{language}-after-proofreading",
                             sd.sd_audit_rows(language, "proofread"))
        assert len(table) == audit.AUDIT_SAMPLE_SIZE
