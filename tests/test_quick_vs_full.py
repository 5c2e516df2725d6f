"""quick beside full: each verdict reduced to its sign, and the committed tables agreeing wherever both judge."""
import pandas as pd
import pytest

from mwplib import paths, quick_vs_full


@pytest.mark.parametrize("holds, sign", [("yes", "holds"), ("smaller (0.37 of the paper's)", "holds"), ("no", "fails"),
                                         ("within noise (n = 238)", "open"), ("within noise", "open"),
                                         ("not shown (n = 5 < 20)", "open"),
                                         ("no result", "missing")])
def test_a_verdict_reduces_to_its_sign(holds, sign):
    assert quick_vs_full.verdict(holds) == sign


def test_an_unknown_verdict_is_refused_by_name():
    with pytest.raises(ValueError, match="unknown verdict 'maybe'"):
        quick_vs_full.verdict("maybe")


def test_rows_agree_by_sign_not_by_size():
    assert quick_vs_full.agreement("smaller (0.4 of the paper's)", "yes") == "yes"
    assert quick_vs_full.agreement("no", "yes") == "no"
    assert quick_vs_full.agreement("within noise (±2)", "no") == "open"
    assert quick_vs_full.agreement("no result", "yes") == ""


def test_beside_keeps_rows_of_either_profile_and_names_why_quick_cannot_show_one(monkeypatch):
    monkeypatch.setitem(quick_vs_full.CANNOT_SHOW, ("09", "b"), "one fold")
    full = pd.DataFrame({"finding": ["f", "f"], "comparison": ["a", "b"], "paper": [1.0, 2.0], "ours": [0.8, 1.5],
                         "holds": ["yes", "yes"]})
    quick = pd.DataFrame({"finding": ["f", "f"], "comparison": ["b", "c"], "paper": [2.0, 3.0], "ours": [-0.1, 2.0],
                          "holds": ["no", "yes"]})
    rows = quick_vs_full.beside("09", quick, full).set_index("comparison")
    assert list(rows.index) == ["a", "b", "c"]
    assert list(rows["agree"]) == ["", "no", ""]
    assert list(rows["paper"]) == [1.0, 2.0, 3.0]
    assert list(rows["why quick cannot show it"]) == ["", "one fold", ""]
    assert list(rows["holds full"]) == ["yes", "yes", "no result"]
    assert list(rows["evidence full"]) == ["", "", ""]  # neither side tested: no evidence, and no column needed


def test_beside_carries_each_sides_evidence_a_p_or_an_interval():
    """Each side's findings CSV gives its p (read back as a number) or its 95 % interval; beside each other they
    read as one text a side, so a quick "within noise" shows how far its test was from full's."""
    full = pd.DataFrame({"finding": ["f", "f"], "comparison": ["a", "b"], "paper": [1.0, 2.0], "ours": [0.8, 1.5],
                         "holds": ["yes", "yes"], "p": [0.00049, None], "95 % interval": [None, "0.284 to 0.629"]})
    quick = pd.DataFrame({"finding": ["f", "f"], "comparison": ["a", "b"], "paper": [1.0, 2.0], "ours": [0.5, 0.1],
                          "holds": ["within noise (McNemar p = 0.25, n = 100)", "within noise"], "p": [0.25, None],
                          "95 % interval": [None, "-0.003 to 0.185"]})
    rows = quick_vs_full.beside("07", quick, full).set_index("comparison")
    assert list(rows["evidence full"]) == ["p = 0.00049", "0.284 to 0.629"]
    assert list(rows["evidence quick"]) == ["p = 0.25", "-0.003 to 0.185"]
    assert list(rows["agree"]) == ["open", "open"]


def test_the_committed_tables_agree_wherever_both_profiles_judge():
    """Goal 1 of the performance issue: quick points the paper's way wherever full does, save the listed rows."""
    root = paths.RESULTS / "tables"
    rows = quick_vs_full.table(root)
    disagree = set(zip(rows.loc[rows["agree"] == "no", "notebook"], rows.loc[rows["agree"] == "no", "comparison"]))
    assert disagree == set(quick_vs_full.CANNOT_SHOW)  # none unexplained, and no stale excuse
    assert (root / quick_vs_full.NAME).read_text() == quick_vs_full.markdown(rows), \
        "results/tables/quick_vs_full_findings.md is stale: run python -m mwplib.quick_vs_full"
