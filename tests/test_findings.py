import math

import pandas as pd
import pytest

from mwplib import findings
from mwplib.outputs import p_value
from mwplib.significance import sign_test
from mwplib.svamp import findings as svamp_findings


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


#: Notebook 05's other tables, empty (columns as committed): the findings of Tables 11 and 15 alone.
T10_COLUMNS = ["subset", "model", "emb", "paper", "ours", "Δ", "n", "note"]
ABLATION_COLUMNS = ["measure", "paper", "ours", "Δ", "model"]
CV_COLUMNS = ["model", "emb", "folds", "n", "paper", "ours", "Δ", svamp_findings.WITHOUT_SVAMP]
WEIGHT_COLUMNS = ["emb", "dataset", "n", "median", "share_ge_0.5", "share_ge_0.9", "share_ge_0.99"]
EXAMPLE_COLUMNS = ["id", "emb", "text", "gold", "paper", "ours", "Δ", "paper equation", "our equation", "our answer",
                   "paper top word", "our top word", "weight", "gold slots", "predicted slots"]
NO_OTHER_TABLES = (pd.DataFrame(columns=T10_COLUMNS), pd.DataFrame(columns=["removed category", *ABLATION_COLUMNS]),
                   pd.DataFrame(columns=["removed variation", *ABLATION_COLUMNS]), pd.DataFrame(columns=CV_COLUMNS))


def test_svamp_findings_from_tables_11_and_15():
    t11 = pd.DataFrame({"test set": ["SVAMP w/o questions", "ASDiv-A w/o questions"] * 2,
                        "model": ["GTS"] * 4, "emb": ["S", "S", "R (MiniLM)", "R (MiniLM)"],
                        "paper": [None, None, 28.6, 60.7], "ours": [18.0, 25.2, 19.8, None]})
    t15 = pd.DataFrame({"dataset": ["ASDiv-A"] * 4 + ["SVAMP"] * 4, "numbers": ["2", "3", "4", "other"] * 2,
                        "paper": [93.3, 59.0, 47.5, None, 78.3, 25.4, 25.4, None],
                        "ours": [80.0, 40.0, 45.0, 25.0, 60.0, 20.0, 65.0, 0.0],
                        "n": [171, 61, 40, 1, 351, 489, 153, 7]})
    frame = svamp_findings.svamp(t11, t15, *NO_OTHER_TABLES).set_index("comparison")
    row = frame.loc["GTS S: ASDiv-A − SVAMP, w/o questions (beyond the paper)"]  # its Table 11 prints R models
    assert row["ours"] == pytest.approx(7.2) and row["holds"] == "yes"
    r = frame.loc["GTS R (MiniLM): ASDiv-A − SVAMP, w/o questions"]
    assert r["paper"] == pytest.approx(32.1) and r["holds"] == "no result"
    assert frame.loc["SVAMP: 2 numbers − 4 numbers", ["paper", "ours", "holds"]].tolist() == [
        pytest.approx(52.9), -5.0, "within noise (Fisher p = 0.37, n = 351 and 153)"]  # 60 % against 65 %
    assert frame.loc["4 numbers: ASDiv-A − SVAMP", "ours"] == -20.0
    assert len(frame) == 2 + 4 + 3 + 2  # + the 5-fold and best-model rows, without results
    assert frame.iloc[-2:]["holds"].tolist() == ["no result", "no result"]
    noted = t11.assign(note=["trained with precision=bf16 (stand-in: no run of the paper's setting recorded)", "",
                             "", ""])
    assert ("GTS S: ASDiv-A − SVAMP, w/o questions (SVAMP side: trained with precision=bf16, a stand-in) "
            "(beyond the paper)") in set(
        svamp_findings.svamp(noted, t15, *NO_OTHER_TABLES)["comparison"])
    one_fold = t15.assign(n=[171, 61, 5, 1, 351, 489, 153, 7])  # quick's ASDiv-A fold 0 has five 4-number problems
    judged = svamp_findings.svamp(t11, one_fold, *NO_OTHER_TABLES).set_index("comparison")["holds"]
    assert judged["ASDiv-A: 2 numbers − 4 numbers"] == judged["4 numbers: ASDiv-A − SVAMP"] == "not shown (n = 5 < 20)"
    assert judged["ASDiv-A: 2 numbers − 3 numbers"] == "yes"


def test_question_removal_and_bag_of_words_findings():
    keys = {"model": "GTS", "emb": "S", "dataset": "asdiv-a"}
    t3 = pd.DataFrame([{**keys, "paper": None, "ours": 25.2}])
    t4 = pd.DataFrame([{**keys, "part": "Easy", "n": 252, "paper": None, "ours": 90.0},
                       {**keys, "part": "Hard", "n": 748, "paper": None, "ours": 60.0}])
    frame = svamp_findings.question_removal(t3, t4)
    # 25.2 % Easy solved at 90 %, 74.8 % Hard at 60 %: 2268 of 6756 correct answers are Easy (33.57 %)
    assert frame[["ours", "holds"]].values.tolist() == [[pytest.approx(-24.8), "no"],
                                                        [pytest.approx(100 * 2268 / 6756 - 50), "no"]]
    assert frame["paper"].isna().all()
    assert frame["comparison"].tolist() == ["GTS S asdiv-a: w/o question − 50 % (beyond the paper)",
                                            "GTS S asdiv-a: Easy share of correct − 50 % (beyond the paper)"]
    # the Easy share's noise test: 227 Easy (90 % of 252) against 449 Hard (60 % of 748) among the correct answers
    assert frame["p"].tolist() == ["", p_value(sign_test(227, 449))]
    bow = {"model": "FFN + LSTM Decoder", "emb": "S"}
    t5 = pd.DataFrame([{**bow, "dataset": "mawps", "paper": 75.1, "ours": 70.0}])
    t12 = pd.DataFrame([{**bow, "paper": 17.5, "ours": 13.4},
                        {"model": "Majority Template Baseline", "emb": "", "paper": 11.7, "ours": 12.6}])
    no_attention = pd.DataFrame(columns=WEIGHT_COLUMNS), pd.DataFrame(columns=EXAMPLE_COLUMNS)
    frame = svamp_findings.bag_of_words(t5, t12, *no_attention)
    assert frame["comparison"].tolist() == ["S: MAWPS − 50 %", "S: MAWPS − SVAMP", "S: SVAMP − majority template"]
    assert frame["ours"].tolist() == pytest.approx([20.0, 56.6, 0.8])
    assert frame["paper"].tolist() == pytest.approx([25.1, 57.6, 5.8])
    assert frame["holds"].tolist() == ["yes", "yes", "yes"]
    assert findings.counts(frame) == {"findings_held": 3, "findings_smaller": 0, "findings_not_held": 0}
    one_fold = pd.DataFrame([{**keys, "n": 238, "paper": None, "ours": 52.5},  # ±6.34 points around 52.5 %
                             {**keys, "dataset": "mawps", "n": 384, "paper": None, "ours": 64.6}])  # ±4.78
    judged = svamp_findings.question_removal(one_fold, t4.iloc[:0])
    assert judged[["holds", findings.INTERVAL]].values.tolist() == [["within noise (n = 238)", "-3.84 to 8.84"],
                                                                    ["yes", "9.82 to 19.38"]]  # a "yes" shows it too
    assert "p" not in judged.columns
    assert svamp_findings.bag_of_words(t5.assign(n=40, ours=55.0), t12, *no_attention)["holds"].tolist()[0].startswith(
        "within noise")


def test_an_easy_share_that_a_binomial_test_cannot_tell_from_half_is_within_noise():
    keys = {"model": "GTS", "emb": "R (MiniLM)", "dataset": "mawps"}
    t3 = pd.DataFrame([{**keys, "paper": 76.2, "ours": 50.0}])
    t4 = pd.DataFrame([{**keys, "part": "Easy", "n": 10, "paper": 92.6, "ours": 70.0},  # 7 Easy against 3 Hard
                       {**keys, "part": "Hard", "n": 10, "paper": 71.7, "ours": 30.0}])
    row = svamp_findings.question_removal(t3, t4).iloc[1]
    assert row["comparison"] == "GTS R (MiniLM) mawps: Easy share of correct − 50 %"  # a model the paper tests
    assert row["ours"] == pytest.approx(20.0)
    assert (row["holds"], row["p"]) == ("within noise (binomial p = 0.34, n = 10)", "0.34")  # 2 × P(X ≥ 7 of 10)


def test_easy_share_is_the_easy_part_of_the_correct_answers():
    # the paper's Seq2Seq on MAWPS: 77.4 % Easy, 86.8 % right there, 86.7 % on Hard (Tables 3, 4)
    assert svamp_findings.easy_share(77.4, 86.8, 86.7) == pytest.approx(100 * 77.4 * 86.8 / (77.4 * 86.8 + 22.6 * 86.7))
    assert svamp_findings.easy_share(50.0, 80.0, 20.0) == pytest.approx(80.0)
    assert svamp_findings.easy_share(100.0, 70.0, float("nan")) == 100.0  # no Hard problems
    assert svamp_findings.easy_share(0.0, float("nan"), 40.0) == 0.0  # no Easy problems
    assert math.isnan(svamp_findings.easy_share(30.0, 0.0, 0.0))  # nothing solved: no share
    assert math.isnan(svamp_findings.easy_share(float("nan"), 80.0, 20.0))  # not evaluated without the question


def test_baselines_findings_from_tables_2_16_and_the_majority_baseline():
    rows = [("seq2seq", "S", "mawps", 79.7, 77.0), ("seq2seq", "R (MiniLM)", "mawps", 86.7, 80.0),
            ("gts", "S", "mawps", 82.6, 82.0), ("gts", "R (MiniLM)", "mawps", 88.5, 81.0)]
    columns = ["model", "embedding", "dataset", "paper", "ours"]
    table2, table16 = pd.DataFrame(rows[:2], columns=columns), pd.DataFrame(rows[2:], columns=columns)
    majority = pd.DataFrame([("mawps", 17.7, 18.8)], columns=["dataset", "paper", "ours"])
    # R − S comes from the paired comparison on the same folds, not from the tables' pooled cells
    effect = pd.DataFrame([("seq2seq", "mawps", 2, 800, 3.5, 0.004), ("gts", "mawps", 5, 2000, -1.0, 0.12)],
                          columns=["model", "dataset", "folds", "n", "R − S", "McNemar p"])
    frame = svamp_findings.baselines(table2, table16, majority, effect).set_index("comparison")
    assert frame.loc["seq2seq mawps: R (MiniLM) − S, paired on 2 fold(s)", ["paper", "ours", "holds"]].tolist() == [
        pytest.approx(7.0), 3.5, "yes"]
    assert frame.loc["gts mawps: R (MiniLM) − S, paired on 5 fold(s)", ["ours", "holds"]].tolist() == [
        -1.0, "within noise (McNemar p = 0.12, n = 2000)"]
    unpaired = svamp_findings.baselines(table2, table16, majority, effect.iloc[:1]).set_index("comparison")
    assert unpaired.loc["gts mawps: R (MiniLM) − S", "holds"] == "no result"  # no fold run with both
    assert frame.loc["R (MiniLM) mawps: gts − seq2seq", "ours"] == 1.0
    assert frame.loc["S mawps: graph2tree − seq2seq", "holds"] == "no result"
    assert frame.loc["gts S mawps: model − majority template", "ours"] == pytest.approx(63.2)
    assert len(frame) == 2 + 4 + 4 + 1
    # Table 2 here has no Graph2Tree row, and Table 16's models are no rivals in it
    assert frame.loc["mawps: graph2tree R (MiniLM) − best other (seq2seq R (MiniLM))", "holds"] == "no result"


def test_a_gap_no_wider_than_the_seed_spread_is_said_to_be_within_it():
    columns = ["model", "embedding", "dataset", "paper", "ours"]
    table2 = pd.DataFrame([("seq2seq", "S", "asdiv-a", 55.5, 52.0), ("gts", "S", "asdiv-a", 60.1, 55.0),
                           ("graph2tree", "S", "asdiv-a", 71.4, 65.0)], columns=columns)
    spread = pd.DataFrame([("seq2seq", "S", "asdiv-a", 0, 3, 1.5), ("gts", "S", "asdiv-a", 0, 3, 4.0)],
                          columns=["model", "embedding", "dataset", "fold", "seeds", "spread"])
    empty = pd.DataFrame(columns=["dataset", "paper", "ours"])
    effect = pd.DataFrame(columns=["model", "dataset", "folds", "n", "R − S", "McNemar p"])
    frame = svamp_findings.baselines(table2, table2.iloc[0:0], empty, effect, spread).set_index("comparison")
    assert frame.loc["S asdiv-a: gts − seq2seq", "holds"] == "within seed spread (4.0 points over 3 seeds, gts fold 0)"
    assert frame.loc["S asdiv-a: graph2tree − seq2seq", "holds"] == "yes"  # 13 points: wider than seq2seq's 1.5
    without = svamp_findings.baselines(table2, table2.iloc[0:0], empty, effect).set_index("comparison")
    assert without.loc["S asdiv-a: gts − seq2seq", "holds"] == "yes"


def test_baselines_best_model_is_graph2tree_r_against_the_runner_up_of_each_side():
    columns = ["model", "embedding", "dataset", "paper", "ours"]
    table2 = pd.DataFrame([("seq2seq", "S", "mawps", 79.7, 77.9), ("gts", "R (MiniLM)", "mawps", 88.5, 85.1),
                           ("graph2tree", "S", "mawps", 83.7, 86.4), ("graph2tree", "R (MiniLM)", "mawps", 88.7, 85.0),
                           ("gts", "R (MiniLM)", "asdiv-a", 81.2, 68.8), ("graph2tree", "S", "asdiv-a", 77.4, None),
                           ("graph2tree", "R (MiniLM)", "asdiv-a", 82.2, 72.6),
                           ("seq2seq", "S", "svamp", 24.2, 20.0), ("graph2tree", "R (MiniLM)", "svamp", 43.8, None)],
                          columns=columns)
    table16 = pd.DataFrame([("transformer", "R (MiniLM)", "mawps", 87.1, 99.0)], columns=columns)  # not in Table 2
    frame = svamp_findings.baselines(table2, table16, pd.DataFrame(columns=["dataset", "paper", "ours"]),
                               pd.DataFrame(columns=["model", "dataset", "folds", "n", "R − S", "McNemar p"]))
    best = frame[frame["finding"] == "the best model on each dataset is Graph2Tree R (Table 2)"]
    assert best["comparison"].tolist() == [
        "mawps: graph2tree R (MiniLM) − best other (paper: gts R (MiniLM); ours: graph2tree S)",
        "asdiv-a: graph2tree R (MiniLM) − best other (gts R (MiniLM))",  # a runner-up not run is no rival
        "svamp: graph2tree R (MiniLM) − best other (seq2seq S)"]
    assert best["paper"].tolist() == pytest.approx([0.2, 1.0, 19.6])
    assert best["ours"].tolist()[:2] == pytest.approx([85.0 - 86.4, 72.6 - 68.8])
    assert best["holds"].tolist() == ["no", "yes", "no result"]


def _table10(model, emb, paper, ours, n_two=237, note=""):
    """Table 10's Full Set, One-Op and Two-Op rows of one model: `paper` and `ours` give the three accuracies."""
    run = ours[0] is not None
    return [(subset, model, emb, p, o, None, n if run else 0, note)
            for subset, p, o, n in zip(("Full Set", "One-Op", "Two-Op"), paper, ours, (1000, 762, n_two))]


def test_svamp_findings_from_tables_10_13_14_and_the_5_fold_table():
    t11, t15 = pd.DataFrame(columns=["test set", "model", "emb", "paper", "ours"]), pd.DataFrame(
        columns=["dataset", "numbers", "paper", "ours", "n"])
    stand_in = "trained with precision=bf16 (stand-in: no run of the paper's setting recorded)"
    t10 = pd.DataFrame(_table10("Graph2Tree", "S", (36.5, 42.9, 16.1), (33.0, 37.0, 19.0))
                       + _table10("Graph2Tree", "R (MiniLM)", (43.8, 51.9, 17.8), (30.0, 30.0, 31.0))
                       + _table10("GTS", "S", (30.8, 31.7, 27.9), (None, None, None))
                       + _table10("Seq2Seq", "S", (24.2, 25.4, 20.3), (20.0, 25.0, 6.0), n_two=5)
                       + _table10("Transformer", "R (MiniLM)", (38.9, 40.5, 33.9), (35.0, 36.0, 20.0), note=stand_in),
                       columns=T10_COLUMNS)
    t13 = pd.DataFrame([("Question Sensitivity", "# removed", 462, 462, 0, "Graph2Tree (S)"),
                        ("Question Sensitivity", "change in accuracy", 13.7, 10.0, -3.7, "Graph2Tree (S)"),
                        ("Reasoning Ability", "change in accuracy", -3.3, 1.0, 4.3, "Graph2Tree (S)"),
                        ("Structural Invariance", "change in accuracy", 4.5, None, None, "Graph2Tree (S)")],
                       columns=["removed category", *ABLATION_COLUMNS])
    t14 = pd.DataFrame([("Invert Operation", "change in accuracy", -10.2, -6.8, 3.4, "Graph2Tree (S)")],
                       columns=["removed variation", *ABLATION_COLUMNS])
    cv = pd.DataFrame([("Graph2Tree", "S", 5, 1000, 65.0, 40.4, -24.6, 32.8),
                       ("Seq2Seq", "S", 1, 200, None, 30.0, None, 31.0)], columns=CV_COLUMNS)
    frame = svamp_findings.svamp(t11, t15, t10, t13, t14, cv).set_index("comparison")
    assert frame.loc["Graph2Tree S: One-Op − Two-Op", ["paper", "ours", "holds"]].tolist() == [
        pytest.approx(42.9 - 16.1), 18.0, "yes"]
    assert frame.loc["Graph2Tree R (MiniLM): One-Op − Two-Op", ["paper", "ours", "holds"]].tolist() == [
        pytest.approx(34.1), -1.0, "within noise (Fisher p = 0.87, n = 762 and 237)"]
    assert frame.loc["GTS S: One-Op − Two-Op", "holds"] == "no result"
    assert frame.loc["Seq2Seq S: One-Op − Two-Op", "holds"] == "not shown (n = 5 < 20)"
    assert "Transformer R (MiniLM): One-Op − Two-Op (SVAMP side: trained with precision=bf16, a stand-in)" in set(
        frame.index)
    ablation = frame[frame["finding"].str.startswith("every removal ablation")]
    assert ablation.index.tolist() == ["Graph2Tree (S) without Question Sensitivity: change in accuracy",
                                       "Graph2Tree (S) without Reasoning Ability: −change in accuracy",
                                       "Graph2Tree (S) without Structural Invariance: change in accuracy",
                                       "Graph2Tree (S) without Invert Operation: −change in accuracy"]
    assert ablation["paper"].tolist() == pytest.approx([13.7, 3.3, 4.5, 10.2])
    assert ablation["ours"].tolist()[:2] == [10.0, -1.0] and ablation["ours"].tolist()[3] == pytest.approx(6.8)
    assert ablation["holds"].tolist() == ["yes", "no", "no result", "yes"]
    cv_rows = frame[frame["finding"].str.startswith("SVAMP 5-fold")]
    assert cv_rows.index.tolist() == [
        "Graph2Tree S, 5 fold(s): 5-fold with SVAMP − trained without, same problems (paper: 65 − Graph2Tree R's 43.8)",
        "Seq2Seq S, 1 fold(s): 5-fold with SVAMP − trained without, same problems"]
    assert cv_rows["paper"].iloc[0] == pytest.approx(21.2) and math.isnan(cv_rows["paper"].iloc[1])
    assert cv_rows["ours"].tolist() == pytest.approx([7.6, -1.0])
    assert cv_rows["holds"].tolist() == ["smaller (0.36 of the paper's)", "no"]  # 7.6 of 21.2 points
    best = frame.loc["Full Set: Graph2Tree R (MiniLM) − best other (paper: gts R; ours: Transformer R (MiniLM) "
                     "(a stand-in))"]
    assert (best["paper"], best["ours"], best["holds"]) == (pytest.approx(43.8 - 41.0), -5.0, "no")
    g2t_r = (t10["model"] == "Graph2Tree") & (t10["emb"] == "R (MiniLM)")
    t10.loc[g2t_r & (t10["subset"] == "Full Set"), "ours"] = 40.0
    best = svamp_findings.svamp(t11, t15, t10, t13, t14, cv).iloc[-1]
    assert (best["ours"], best["holds"]) == (5.0, "yes")
    not_run = svamp_findings.svamp(t11, t15, t10[t10["emb"] == "S"], t13, t14, cv[CV_COLUMNS[:-1]].iloc[:0])
    assert not_run.iloc[-2:][["comparison", "paper", "holds"]].values.tolist() == [
        ["no 5-fold run: 5-fold with SVAMP − trained without, same problems", pytest.approx(21.2), "no result"],
        ["Full Set: Graph2Tree R − best other (paper: gts R; ours: Graph2Tree S)", pytest.approx(2.8), "no result"]]
    unpaired = svamp_findings.svamp(t11, t15, t10, t13, t14, cv[CV_COLUMNS[:-1]])  # no run without SVAMP to pair with
    assert unpaired[unpaired["finding"].str.startswith("SVAMP 5-fold")]["holds"].tolist() == ["no result"] * 2


def _examples(rows):
    """Tables 6/26 rows from (id, gold slots, our top word), the other columns filled."""
    return pd.DataFrame([{**dict.fromkeys(EXAMPLE_COLUMNS), "id": i, "emb": "R (MiniLM)", "gold slots": gold,
                          "our top word": word} for i, gold, word in rows], columns=EXAMPLE_COLUMNS)


def test_bag_of_words_attention_findings():
    t5 = pd.DataFrame(columns=["model", "emb", "dataset", "paper", "ours"])
    t12 = pd.DataFrame([{"model": "Majority Template Baseline", "emb": "", "paper": 11.7, "ours": 12.6}])
    weights = pd.DataFrame([("S", "mawps", 1920, 1.0, 100.0, 99.9, 99.8),
                            ("R (MiniLM)", "asdiv-a", 238, 0.6, 60.0, 20.0, 5.0)], columns=WEIGHT_COLUMNS)
    examples = _examples([("t6-1a", "* N0 N1", "every"), ("t6-1b", "/ N1 N0", "every"),  # changed, kept: counted
                          ("t6-2a", "/ N0 N1", "sam"), ("t6-2b", "* N0 N1", "sam"),
                          ("t6-3a", "- N0 N1", "green"), ("t6-3b", "- N0 N1", "red"),  # same gold: left out
                          ("t26-4a", "- N0 N1", "lost"), ("t26-4b", "+ N0 N1", "bob")])  # changed, moved
    frame = svamp_findings.bag_of_words(t5, t12, weights, examples)
    assert frame["comparison"].tolist() == [
        "S mawps: median largest attention weight − 0.9 (paper: no number)",
        "R (MiniLM) asdiv-a: median largest attention weight − 0.9 (paper: no number)",
        "R (MiniLM): % of the 3 pairs whose equation changes with the same top word − 50 %"]
    assert frame["paper"].tolist()[2] == 50.0 and frame["paper"].iloc[:2].isna().all()
    assert frame["ours"].tolist() == pytest.approx([0.1, -0.3, 100 * 2 / 3 - 50])
    # the attention weights are no accuracy: judged by sign; 2 of 3 pairs cannot be told from half (p = 1)
    assert frame["holds"].tolist() == ["yes", "no", "within noise (binomial p = 1.00, n = 3)"]
    assert frame["p"].tolist() == ["", "", "1"]
    moved = examples.assign(**{"our top word": ["every", "houses", "sam", "lawn", "green", "green", "lost", "bob"]})
    assert svamp_findings.bag_of_words(t5, t12, weights.iloc[:0], moved)[["ours", "holds", "p"]].values.tolist() == [
        [pytest.approx(-50.0), "within noise (binomial p = 0.25, n = 3)", "0.25"]]  # 0 of 3: 2 × ⅛
    nine = _examples([(f"t6-{i}{side}", gold, word)  # 9 changed pairs, the same word in 8 of them
                      for i in range(9) for side, gold, word in (("a", "* N0 N1", "every"),
                                                                 ("b", "/ N1 N0", "every" if i else "houses"))])
    row = svamp_findings.bag_of_words(t5, t12, weights.iloc[:0], nine).iloc[0]
    assert (row["ours"], row["holds"], row["p"]) == (pytest.approx(100 * 8 / 9 - 50), "yes", "0.039")  # p = 0.0390625
    unchanged = examples[examples["id"].str.startswith("t6-3")]
    row = svamp_findings.bag_of_words(t5, t12, weights.iloc[:0], unchanged).iloc[0]
    assert (row["comparison"], row["holds"]) == (
        "R (MiniLM): % of the 0 pairs whose equation changes with the same top word − 50 %", "no result")


def test_datasets_findings_from_table_9():
    rows = [("MAWPS", "n_templates", 39.0, 30.0), ("MAWPS", "avg_operators", 1.78, 1.48), ("MAWPS", "cld", 0.26, 0.31),
            ("ASDiv-A", "n_templates", 19.0, 20.0), ("ASDiv-A", "avg_operators", 1.23, 1.23),
            ("ASDiv-A", "cld", 0.50, 0.86), ("SVAMP", "n_templates", 26.0, 27.0),
            ("SVAMP", "avg_operators", 1.24, 1.40), ("SVAMP", "cld", 0.22, None)]
    table9 = pd.DataFrame([(*r, None, "") for r in rows],
                          columns=["dataset", "statistic", "paper", "ours", "Δ", "note"])
    frame = svamp_findings.datasets(table9)
    assert frame["comparison"].tolist() == [
        "templates: MAWPS − SVAMP", "templates: MAWPS − ASDiv-A", "average operators: MAWPS − SVAMP",
        "average operators: MAWPS − ASDiv-A", "templates: min(|MAWPS − SVAMP|, |MAWPS − ASDiv-A|) − |SVAMP − ASDiv-A|",
        "average operators: 0.1 − |SVAMP − ASDiv-A|", "CLD: ASDiv-A − SVAMP", "CLD: MAWPS − SVAMP"]
    # the paper's: 26 and 19 templates are nearer each other (7) than SVAMP's is to MAWPS's 39 (13)
    assert frame["paper"].tolist() == pytest.approx([13.0, 20.0, 0.54, 0.55, 6.0, 0.09, 0.28, 0.04])
    assert frame["ours"].tolist()[:6] == pytest.approx([3.0, 10.0, 0.08, 0.25, 3.0 - 7.0, 0.1 - 0.17])
    assert frame["holds"].tolist() == ["smaller (0.23 of the paper's)", "yes", "smaller (0.15 of the paper's)",
                                       "smaller (0.45 of the paper's)", "no", "no", "no result", "no result"]
    assert findings.counts(frame) == {"findings_held": 1, "findings_smaller": 3, "findings_not_held": 2}
    missing = svamp_findings.datasets(table9[~((table9["dataset"] == "ASDiv-A") & (table9["statistic"] == "n_templates"))])
    assert missing["holds"].tolist()[4] == "no result"  # not the gap to SVAMP alone


def test_two_cells_hold_only_with_half_the_papers_difference():
    """"Holds" means the paper's effect in size: under `SIZE` of its difference, a two-cell finding says "smaller";
    a difference from a fixed share, or one the paper itself does not show, is judged by its sign alone."""
    table = pd.DataFrame({"k": ["a", "b", "c"], "paper": [60.0, 40.0, 50.0], "ours": [50.0, 45.0, 44.0]})
    judged = findings.frame([findings.comparison("f", f"a − {other}", (table, {"k": "a"}), (table, {"k": other}))
                             for other in ("b", "c")] + [findings.comparison("f", "a − 49", (table, {"k": "a"}), 49.0)])
    assert judged["holds"].tolist() == ["smaller (0.25 of the paper's)", "yes", "yes"]  # 5 of 20; 6 of 10
    table.loc[2, "ours"] = 45.0  # exactly half the paper's: holds
    assert findings.comparison("f", "x", (table, {"k": "a"}), (table, {"k": "c"}))["ours"] == 5.0
    assert findings.frame([findings.comparison("f", "x", (table, {"k": "a"}), (table, {"k": "c"}))])["holds"][0] == "yes"
    by_sign = findings.comparison("f", "x", (table, {"k": "a"}), (table, {"k": "b"}), by_sign=True)
    assert findings.frame([by_sign])["holds"][0] == "yes"
    no_paper = pd.DataFrame({"k": ["a", "b"], "paper": [None, -3.0], "ours": [50.0, 49.0]})
    assert findings.frame([findings.comparison("f", "a − b", (no_paper, {"k": "a"}), (no_paper, {"k": "b"}))]
                          )["holds"][0] == "yes"  # no paper difference (NaN): nothing to reach
    against = no_paper.assign(paper=[2.0, 5.0])  # the paper's own difference is negative: sign only
    assert findings.frame([findings.comparison("f", "a − b", (against, {"k": "a"}), (against, {"k": "b"}))]
                          )["holds"][0] == "yes"


def test_a_model_gap_whose_paired_test_cannot_tell_the_runs_apart_is_within_noise():
    from mwplib.svamp import model_tables

    def run(model: str, right: int) -> dict:
        return {"spec": {"model": model, "config": {"embedding": "scratch"}, "dataset": "asdiv-a", "fold": 0},
                "predictions": [{"id": f"p{i}", "correct": i < right} for i in range(40)]}

    # GTS solves 3 problems Seq2Seq does not (p = 0.25); Graph2Tree 12 (p = 0.00049)
    paired = model_tables.model_effect([run("seq2seq", 20), run("gts", 23), run("graph2tree", 32)],
                                    ["seq2seq", "gts", "graph2tree"], ["asdiv-a"])
    assert paired["model"].tolist() == ["gts", "graph2tree"] and paired["model − seq2seq"].tolist() == [7.5, 30.0]
    columns = ["model", "embedding", "dataset", "paper", "ours"]
    table2 = pd.DataFrame([("seq2seq", "S", "asdiv-a", 55.5, 50.0), ("gts", "S", "asdiv-a", 60.1, 57.5),
                           ("graph2tree", "S", "asdiv-a", 71.4, 80.0)], columns=columns)
    empty = pd.DataFrame(columns=["dataset", "paper", "ours"])
    effect = pd.DataFrame(columns=["model", "dataset", "folds", "n", "R − S", "McNemar p"])
    frame = svamp_findings.baselines(table2, table2.iloc[0:0], empty, effect, None, paired).set_index("comparison")
    assert frame.loc["S asdiv-a: gts − seq2seq", "holds"] == "within noise (McNemar p = 0.25, n = 40)"
    assert frame.loc["S asdiv-a: graph2tree − seq2seq", "holds"] == "yes"
    assert frame.loc["S asdiv-a: graph2tree − seq2seq", "p"] == "0.00049"


def test_every_two_run_finding_of_notebook_01_is_tested_against_the_other_run_problem_by_problem():
    """The majority template and the best model's lead are two runs on one test set too: `model_tables.paired_tests`
    pairs them problem by problem, and a lead the test cannot tell from noise says so."""
    from mwplib.svamp import model_tables

    def run(model: str, embedding: str, right: set[int]) -> dict:
        return {"spec": {"model": model, "config": {"embedding": embedding}, "dataset": "asdiv-a", "fold": 0},
                "predictions": [{"id": f"p{i}", "correct": i in right} for i in range(100)]}

    records = [run("graph2tree", "minilm", set(range(62))), run("graph2tree", "scratch", set(range(60))),
               run("seq2seq", "scratch", set(range(2, 52)))]
    majority = {"asdiv-a": {0: {f"p{i}": i >= 90 for i in range(100)}, 1: {"q0": True}}}  # fold 1: not run
    pairs = model_tables.paired_tests(records, ["asdiv-a"], majority).set_index(["a", "b"])
    assert len(pairs) == 4 * 3  # four cells, each pair in both orders
    lead = pairs.loc[("graph2tree R (MiniLM)", "graph2tree S")]
    assert (lead["n"], lead["a − b"], lead["McNemar p"]) == (100, 2.0, 0.5)  # 2 of 2 disagreements
    assert pairs.loc[("graph2tree S", "graph2tree R (MiniLM)"), "a − b"] == -2.0
    # Seq2Seq solves p2–p51, the majority template p90–p99: 50 against 10 disagreements
    assert pairs.loc[("seq2seq S", model_tables.MAJORITY), "a − b"] == 40.0
    assert pairs.loc[("seq2seq S", model_tables.MAJORITY), "McNemar p"] < 1e-6
    columns = ["model", "embedding", "dataset", "paper", "ours"]
    table2 = pd.DataFrame([("seq2seq", "S", "asdiv-a", 55.5, 50.0), ("graph2tree", "S", "asdiv-a", 71.4, 60.0),
                           ("graph2tree", "R (MiniLM)", "asdiv-a", 72.0, 62.0)], columns=columns)
    majority_table = pd.DataFrame([("asdiv-a", 21.2, 10.0)], columns=["dataset", "paper", "ours"])
    effect = pd.DataFrame(columns=["model", "dataset", "folds", "n", "R − S", "McNemar p"])
    frame = svamp_findings.baselines(table2, table2.iloc[0:0], majority_table, effect, pairs=pairs.reset_index())
    frame = frame.set_index("comparison")
    best = frame.loc["asdiv-a: graph2tree R (MiniLM) − best other (graph2tree S)"]
    assert (best["ours"], best["holds"], best["p"]) == (2.0, "within noise (McNemar p = 0.50, n = 100)", "0.5")
    assert frame.loc["seq2seq S asdiv-a: model − majority template", "holds"] == "yes"
    assert float(frame.loc["seq2seq S asdiv-a: model − majority template", "p"]) < 1e-6


def test_two_accuracies_on_different_problems_hold_only_beyond_fishers_test():
    """Notebook 05 compares accuracies of different problems (two test sets, two parts of one): Fisher's exact
    test on each side's n decides between a verdict and "within noise"; a part too small is not shown at all."""
    t15 = pd.DataFrame({"dataset": ["SVAMP"] * 3, "numbers": ["2", "3", "4"], "paper": [78.3, 25.4, 25.4],
                        "ours": [40.0, 30.0, 20.0], "n": [50, 40, 10]})
    t11 = pd.DataFrame({"test set": ["SVAMP w/o questions", "ASDiv-A w/o questions"], "model": ["GTS"] * 2,
                        "emb": ["S"] * 2, "n": [1000, 1218], "paper": [None, None], "ours": [20.0, 30.0]})
    frame = svamp_findings.svamp(t11, t15, *NO_OTHER_TABLES).set_index("comparison")
    # 20 of 50 against 12 of 40: Fisher's two-sided p = 0.38
    row = frame.loc["SVAMP: 2 numbers − 3 numbers"]
    assert row["ours"] == pytest.approx(10.0) and row["holds"] == "within noise (Fisher p = 0.38, n = 50 and 40)"
    assert frame.loc["SVAMP: 2 numbers − 4 numbers", "holds"] == "not shown (n = 10 < 20)"
    # 365 of 1218 against 200 of 1000
    assert frame.loc["GTS S: ASDiv-A − SVAMP, w/o questions (beyond the paper)", "holds"] == "yes"
    assert float(frame.loc["GTS S: ASDiv-A − SVAMP, w/o questions (beyond the paper)", "p"]) < 1e-6


def test_an_ablation_or_a_5_fold_gain_the_test_cannot_tell_from_noise_is_within_it():
    t11, t15 = pd.DataFrame(columns=["test set", "model", "emb", "paper", "ours"]), pd.DataFrame(
        columns=["dataset", "numbers", "paper", "ours", "n"])
    columns = ["removed category", *ABLATION_COLUMNS, svamp_findings.REMOVED_VS_REST]
    t13 = pd.DataFrame([("Question Sensitivity", "change in accuracy", 13.7, 10.0, -3.7, "GTS (S)", "1e-08"),
                        ("Reasoning Ability", "change in accuracy", 3.3, 0.6, -2.7, "GTS (S)", "0.71")],
                       columns=columns)
    t14 = pd.DataFrame(columns=["removed variation", *ABLATION_COLUMNS])
    cv = pd.DataFrame([("GTS", "S", 5, 1000, 65.0, 40.4, -24.6, 38.0, "0.09")],
                      columns=[*CV_COLUMNS, svamp_findings.WITH_VS_WITHOUT])
    frame = svamp_findings.svamp(t11, t15, pd.DataFrame(columns=T10_COLUMNS), t13, t14, cv).set_index("comparison")
    assert frame.loc["GTS (S) without Question Sensitivity: change in accuracy", "holds"] == "yes"
    assert frame.loc["GTS (S) without Reasoning Ability: change in accuracy", "holds"] == (
        "within noise (Fisher p = 0.71, the removed problems against the rest)")
    gain = frame[frame["finding"].str.startswith("SVAMP 5-fold")].iloc[0]
    assert (gain["ours"], gain["holds"]) == (pytest.approx(2.4), "within noise (McNemar p = 0.09, n = 1000)")


def test_the_best_model_on_svamp_holds_only_beyond_mcnemars_test_against_the_runner_up():
    """Graph2Tree R's lead on SVAMP is two runs on one test set: `robustness_tables.table10_paired_tests` gives
    McNemar's p against the runner-up (found under its name without " (a stand-in)"); without a p, as before."""
    from mwplib.problem import Problem
    from mwplib.svamp import robustness_tables

    problems = [Problem(f"p{i}", "b", "q", "", 3.0, ("1", "2"), ("+", "N0", "N1"), meta={"type": "Addition"})
                for i in range(100)]

    def run(model: str, embedding: str, right: int, precision: str = "fp32") -> dict:
        correct = {p.id: i < right for i, p in enumerate(problems)}
        return {"key": model + embedding, "n_test": 100, "metrics": {"peer_test_accuracy": right / 100},
                "spec": {"model": model, "config": {"embedding": embedding, "precision": precision},
                         "dataset": robustness_tables.SVAMP_DATASET},
                "predictions": [{"id": i, "correct": c} for i, c in correct.items()]}

    def best(*records: dict, paired: bool = True) -> pd.Series:
        args = records, ["graph2tree", "transformer"], ["scratch", "minilm"]
        pairs = robustness_tables.table10_paired_tests(*args) if paired else None
        t11, t15 = pd.DataFrame(columns=["test set", "model", "emb", "paper", "ours"]), pd.DataFrame(
            columns=["dataset", "numbers", "paper", "ours", "n"])
        return svamp_findings.svamp(t11, t15, robustness_tables.table10(*args[:1], problems, *args[1:]),
                                    *NO_OTHER_TABLES[1:], pairs).iloc[-1]

    scratch, stand_in = run("graph2tree", "scratch", 30), run("transformer", "minilm", 42, precision="bf16")
    close = best(run("graph2tree", "minilm", 40), scratch, stand_in)  # 2 disagreements, both the stand-in's
    assert close["comparison"] == ("Full Set: Graph2Tree R (MiniLM) − best other (paper: gts R; ours: Transformer R "
                                   "(MiniLM) (a stand-in))")
    assert (close["ours"], close["holds"], close["p"]) == (pytest.approx(-2.0),
                                                           "within noise (McNemar p = 0.50, n = 100)", "0.5")
    assert best(run("graph2tree", "minilm", 40), scratch, stand_in, paired=False)["holds"] == "no"
    ahead = best(run("graph2tree", "minilm", 60), scratch, stand_in)  # 18 disagreements, all Graph2Tree R's
    assert (ahead["ours"], ahead["holds"]) == (pytest.approx(18.0), "yes") and float(ahead["p"]) < 1e-4
    assert best(scratch, stand_in)["holds"] == "no result"  # Graph2Tree R not run: nothing to test


def test_a_verdict_judged_by_an_interval_has_it_in_its_own_column_and_is_counted_and_sized_as_that_verdict():
    """`within_interval` writes its interval into the :data:`findings.INTERVAL` column and only the verdict into
    ``holds``: the notebooks' counts take a "yes" for a "yes", and a sized row under half the paper's difference
    says "smaller"; a row without an interval leaves the column empty."""
    intervals = pd.DataFrame({"k": ["a", "b", "c"], "ci_low": [2.0, -1.0, 0.5], "ci_high": [9.0, 3.0, 1.5]})
    rows = [findings.within_interval(findings.verdict("f", k, 10.0, ours, sized=True), intervals, k=k)
            for k, ours in (("a", 6.0), ("b", 1.0), ("c", 1.0), ("d", 2.0))]
    frame = findings.frame(rows)
    assert frame.columns.tolist() == ["finding", "comparison", "paper", "ours", "holds", "95 % interval"]
    assert frame["holds"].tolist() == ["yes", "within noise", "smaller (0.10 of the paper's)", "smaller (0.20 of the "
                                                                                              "paper's)"]
    assert frame[findings.INTERVAL].tolist() == ["2.000 to 9.000", "-1.000 to 3.000", "0.500 to 1.500", ""]
    assert findings.counts(frame) == {"findings_held": 1, "findings_smaller": 2, "findings_not_held": 0}
    assert findings.verdict_of("smaller (0.33 of the paper's)") == "smaller"
    both = findings.frame([rows[0], findings.tested(findings.verdict("f", "e", 1.0, 2.0), 0.01, "McNemar p = {p}")])
    assert both.columns.tolist()[-2:] == ["p", "95 % interval"]
    assert both[["p", findings.INTERVAL]].values.tolist() == [["", "2.000 to 9.000"], ["0.01", ""]]


def test_the_summary_counts_each_findings_verdicts_in_order():
    frame = pd.DataFrame({"finding": ["b claim", "b claim", "a claim", "b claim"],
                          "holds": ["yes", "within noise (McNemar p = 0.50, n = 10)", "no result",
                                    "no (DA lowers structural)"]})
    table = findings.summary(frame).set_index("finding")
    assert list(table.index) == ["b claim", "a claim"] and list(table.columns) == list(findings.VERDICTS)
    assert table.loc["b claim"].tolist() == [1, 0, 1, 1, 0, 0] and table.loc["a claim", "no result"] == 1
    with pytest.raises(ValueError, match="'maybe', not one of"):
        findings.summary(pd.DataFrame({"finding": ["c"], "holds": ["maybe"]}))
