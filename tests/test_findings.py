import math

import pandas as pd
import pytest

from mwplib import findings


def _table(rows, keys):
    return pd.DataFrame(rows, columns=[*keys, "paper", "ours"])


def test_cell_finds_one_row_nan_when_absent_and_refuses_two():
    table = _table([("a", 1, 10.0, 20.0), ("b", 1, 30.0, 40.0), ("b", 1, 50.0, 60.0)], ["k", "j"])
    assert findings.cell(table, "ours", k="a") == 20.0
    assert math.isnan(findings.cell(table, "paper", k="c"))
    with pytest.raises(ValueError, match="2 rows"):
        findings.cell(table, "ours", k="b", j=1)


def test_comparison_subtracts_both_columns_and_judges_the_sign_of_ours():
    table = _table([("x", 60.0, 55.0), ("y", 30.0, 58.0)], ["k"])
    row = findings.comparison("f", "x − y", (table, {"k": "x"}), (table, {"k": "y"}))
    assert (row["paper"], row["ours"], row["holds"]) == (30.0, -3.0, "no")
    row = findings.comparison("f", "x − 50", (table, {"k": "x"}), 50.0)
    assert (row["paper"], row["ours"], row["holds"]) == (10.0, 5.0, "yes")
    assert findings.comparison("f", "z − 50", (table, {"k": "z"}), 50.0)["holds"] == "no result"


def test_svamp_findings_from_tables_11_and_15():
    t11 = pd.DataFrame({"test set": ["SVAMP w/o questions", "ASDiv-A w/o questions"] * 2,
                        "model": ["GTS"] * 4, "emb": ["S", "S", "R (MiniLM)", "R (MiniLM)"],
                        "paper": [None, None, 28.6, 60.7], "ours": [18.0, 25.2, 19.8, None]})
    t15 = pd.DataFrame({"dataset": ["ASDiv-A"] * 4 + ["SVAMP"] * 4, "numbers": ["2", "3", "4", "other"] * 2,
                        "paper": [93.3, 59.0, 47.5, None, 78.3, 25.4, 25.4, None],
                        "ours": [80.0, 40.0, 45.0, 25.0, 60.0, 20.0, 65.0, 0.0]})
    frame = findings.svamp(t11, t15).set_index("comparison")
    row = frame.loc["GTS S: ASDiv-A − SVAMP, w/o questions"]
    assert row["ours"] == pytest.approx(7.2) and row["holds"] == "yes"
    r = frame.loc["GTS R (MiniLM): ASDiv-A − SVAMP, w/o questions"]
    assert r["paper"] == pytest.approx(32.1) and r["holds"] == "no result"
    assert frame.loc["SVAMP: 2 numbers − 4 numbers", ["paper", "ours", "holds"]].tolist() == [
        pytest.approx(52.9), -5.0, "no"]
    assert frame.loc["4 numbers: ASDiv-A − SVAMP", "ours"] == -20.0
    assert len(frame) == 2 + 4 + 3


def test_question_removal_and_bag_of_words_findings():
    keys = {"model": "GTS", "emb": "S", "dataset": "asdiv-a"}
    t3 = pd.DataFrame([{**keys, "paper": None, "ours": 25.2}])
    t4 = pd.DataFrame([{**keys, "part": "Easy", "paper": None, "ours": 90.0},
                       {**keys, "part": "Hard", "paper": None, "ours": 60.0}])
    frame = findings.question_removal(t3, t4)
    assert frame[["ours", "holds"]].values.tolist() == [[pytest.approx(-24.8), "no"], [30.0, "yes"]]
    bow = {"model": "FFN + LSTM Decoder", "emb": "S"}
    t5 = pd.DataFrame([{**bow, "dataset": "mawps", "paper": 75.1, "ours": 70.0}])
    t12 = pd.DataFrame([{**bow, "paper": 17.5, "ours": 13.4},
                        {"model": "Majority Template Baseline", "emb": "", "paper": 11.7, "ours": 12.6}])
    frame = findings.bag_of_words(t5, t12)
    assert frame["comparison"].tolist() == ["S: MAWPS − 50 %", "S: MAWPS − SVAMP", "S: SVAMP − majority template"]
    assert frame["ours"].tolist() == pytest.approx([20.0, 56.6, 0.8])
    assert frame["paper"].tolist() == pytest.approx([25.1, 57.6, 5.8])
    assert frame["holds"].tolist() == ["yes", "yes", "yes"]
    assert findings.counts(frame) == {"findings_held": 3, "findings_not_held": 0}
