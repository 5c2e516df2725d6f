"""SVAMP's tables built from hand-made run records (mwplib.svamp.robustness_tables): pooling over folds, Easy/Hard
cells, paper values beside ours, the best model and the ablation rows."""
from __future__ import annotations

import math

import pandas as pd
import pytest

from mwplib import outputs, paths
from mwplib.svamp import paper_numbers
from mwplib.svamp import robustness_tables as st
from mwplib.problem import Problem
from mwplib.profiles import PROFILES


def run(key: str, model: str, embedding: str, dataset: str, correct: dict[str, bool], best_test: float | None = None
        ) -> dict:
    """A run record; `best_test`: its accuracy at the best test epoch (default: as at the validation epoch)."""
    accuracy = sum(correct.values()) / len(correct) if correct else 0.0
    return {"key": key, "n_test": len(correct),
            "spec": {"model": model, "config": {"embedding": embedding}, "dataset": dataset},
            "metrics": {"test_accuracy": accuracy, "peer_test_accuracy": accuracy if best_test is None else best_test},
            "predictions": [{"id": i, "correct": c, "prefix": ["+", "N0", "N1"]} for i, c in correct.items()]}


def evaluation(record: dict, correct: dict[str, bool]) -> dict:
    return {"run": record["key"], "predictions": [{"id": i, "correct": c} for i, c in correct.items()]}


def test_tables_3_and_4_pool_folds() -> None:
    fold0 = run("k0", "seq2seq", "minilm", "asdiv-a", {"a": True, "b": True, "c": False})
    fold1 = run("k1", "seq2seq", "minilm", "asdiv-a", {"d": True, "e": False})
    without = [evaluation(fold0, {"a": True, "b": False, "c": False}), evaluation(fold1, {"d": False, "e": True})]
    table3 = st.table3([fold0, fold1], without).iloc[0]
    assert (table3["model"], table3["emb"], table3["folds"], table3["n"]) == ("Seq2Seq", "R (MiniLM)", 2, 5)
    assert table3["with question"] == pytest.approx(60.0) and table3["ours"] == pytest.approx(40.0)
    assert table3["paper"] == 58.7 and table3["Δ"] == pytest.approx(40.0 - 58.7)
    released = [evaluation(fold0, {"a": True, "b": True, "c": True}), evaluation(fold1, {"d": True, "e": False})]
    assert st.table3([fold0, fold1], without, released).loc[0, "released files"] == pytest.approx(80.0)
    table4 = st.table4([fold0, fold1], without).set_index("part")
    # Easy = {a, e}: with question a right, e wrong -> 50 %; Hard = {b, c, d}: b, d right -> 66.7 %
    assert table4.loc["Easy", "n"] == 2 and table4.loc["Easy", "ours"] == pytest.approx(50.0)
    assert table4.loc["Hard", "n"] == 3 and table4.loc["Hard", "ours"] == pytest.approx(200 / 3)
    assert (table4.loc["Easy", "paper"], table4.loc["Hard", "paper"]) == (91.3, 56.1)
    assert (table4["folds"] == 2).all()  # a cell pooling fewer folds than the paper's says so


def test_cells_not_run_keep_their_paper_values() -> None:
    fold0 = run("k0", "seq2seq", "minilm", "asdiv-a", {"a": True, "b": False})
    without = [evaluation(fold0, {"a": False, "b": False})]
    grid = (["seq2seq", "gts"], ["minilm"], ["mawps", "asdiv-a"])
    table3 = st.table3([fold0], without, grid=grid).set_index(["model", "dataset"])
    assert len(table3) == 4 and table3.loc[("Seq2Seq", "asdiv-a"), "ours"] == 0.0
    assert table3.loc[("GTS", "mawps"), "folds"] == 0 and math.isnan(table3.loc[("GTS", "mawps"), "ours"])
    assert table3.loc[("GTS", "mawps"), "paper"] == 76.2 and table3.loc[("GTS", "mawps"), "note"] == "not run"
    assert len(st.table4([fold0], without, grid=grid)) == 8  # Easy and Hard per cell
    problems = [Problem("x", "b", "q", "", 3.0, ("1", "2"), ("+", "N0", "N1"), meta={"type": "Addition"})]
    svamp = run("s", "gts", "scratch", st.SVAMP_DATASET, {"x": True})
    table10 = st.table10([svamp], problems, ["gts", "graph2tree"], ["scratch"]).set_index(["subset", "model"])
    assert table10.loc[("Full Set", "GTS"), "ours"] == 100.0 and table10.loc[("MUL", "GTS"), "n"] == 0
    assert (table10.loc[("Full Set", "GTS"), "n"], table10.loc[("ADD", "GTS"), "n"]) == (1, 1)
    assert math.isnan(table10.loc[("Full Set", "Graph2Tree"), "ours"])
    assert set(table10.xs("Graph2Tree", level="model")["note"]) == {"not run"}  # not a subset's Type note
    assert table10.loc[("Full Set", "Graph2Tree"), "paper"] == paper_numbers.PAPER_TABLE10["graph2tree"]["Full Set"][0]
    typed = st.table10([svamp], problems, ["gts"], ["scratch"], json_types={"x": "Subtraction"})
    notes = typed.set_index("subset")["note"]  # SVAMP.json types problem x otherwise: the ADD row says so
    assert notes["ADD"] == "by the CSV's Type; SVAMP.json's gives n = 0" and notes["SUB"].endswith("n = 1")
    assert notes["Full Set"] == ""
    table11 = st.table11([evaluation(svamp, {"x": False})], [svamp], [], [], ["gts"], ["scratch"])
    assert table11["test set"].tolist() == ["SVAMP w/o questions", "ASDiv-A w/o questions"]


def test_a_stand_in_run_is_labelled_in_tables_10_and_11() -> None:
    problems = [Problem("x", "b", "q", "", 3.0, ("1", "2"), ("+", "N0", "N1"), meta={"type": "Addition"})]
    stand_in = run("s", "transformer", "minilm", st.SVAMP_DATASET, {"x": True})
    stand_in["spec"]["config"]["precision"] = "bf16"
    paper = run("p", "gts", "minilm", st.SVAMP_DATASET, {"x": False})
    table10 = st.table10([stand_in, paper], problems, ["gts", "transformer"], ["minilm"])
    notes = table10[table10["subset"] == "Full Set"].set_index("model")["note"]
    assert notes["Transformer"].startswith("trained with precision=bf16") and notes["GTS"] == ""
    table11 = st.table11([evaluation(stand_in, {"x": False})], [stand_in], [], [], ["transformer"], ["minilm"])
    assert table11.loc[0, "note"].startswith("trained with precision=bf16") and table11.loc[0, "ours"] == 0.0
    assert table11.loc[1, "note"] == "not run"  # the ASDiv-A side: no runs given


def test_scratch_rows_have_no_paper_value() -> None:
    record = run("k", "gts", "scratch", "mawps", {"a": True})
    table = st.table3([record], [evaluation(record, {"a": False})])
    assert math.isnan(table.loc[0, "paper"]) and table.loc[0, "emb"] == "S"


def test_folds_without_an_evaluation_are_left_out_and_said() -> None:
    """A fold trained on another machine has no evaluation here: the cell pools the others, on both sides."""
    fold0 = run("k0", "gts", "minilm", "asdiv-a", {"a": True, "b": True})
    fold1 = run("k1", "gts", "minilm", "asdiv-a", {"c": False, "d": False})
    without = [evaluation(fold0, {"a": True, "b": False})]
    table3 = st.table3([fold0, fold1], without).iloc[0]
    assert (table3["folds"], table3["n"], table3["with question"], table3["ours"]) == (1, 2, 100.0, 50.0)
    assert table3["note"] == "1 of 2 folds not evaluated without questions (weights on the machine that trained them)"
    table4 = st.table4([fold0, fold1], without).set_index("part")
    assert (table4.loc["Easy", "n"], table4.loc["Hard", "n"]) == (1, 1)  # fold 1's problems are in neither part
    alone = st.table3([fold1], [])
    assert alone.loc[0, "folds"] == 0 and math.isnan(alone.loc[0, "ours"])
    assert alone.loc[0, "note"].startswith("1 of 1 folds")
    table11 = st.table11([], [], without, [fold0, fold1], ["gts"], ["minilm"]).set_index("test set")
    assert table11.loc["ASDiv-A w/o questions", "ours"] == 50.0
    assert table11.loc["ASDiv-A w/o questions", "folds"] == 1
    assert table11.loc["ASDiv-A w/o questions", "note"].startswith("1 of 2")


def test_best_run_and_ablation_table() -> None:
    problems = [Problem(pid, "b", "q", "", 1.0, ("1", "2"), ("+", "N0", "N1"),
                        {"variation_codes": codes, "variation_categories": cats, "type": "Addition"})
                for pid, codes, cats in (("a", ("11",), ("Question Sensitivity",)),
                                         ("b", ("23",), ("Reasoning Ability",)),
                                         ("c", ("33", "11"), ("Question Sensitivity", "Structural Invariance")))]
    weak = run("w", "seq2seq", "scratch", "svamp", {"a": False, "b": False, "c": True})
    strong = run("s", "gts", "scratch", "svamp", {"a": True, "b": False, "c": True})
    best = st.best_run([weak, strong])
    assert st.describe_run(best) == "GTS (S) on svamp" and st.model_of(best) == ("gts", "scratch")
    assert st.best_by_protocol([weak, strong]) == {st.BOTH_PROTOCOLS: best}
    table = st.table_ablation({st.BOTH_PROTOCOLS: best}, problems, "category").set_index(["removed category",
                                                                                         "measure"])
    assert table.loc[("Question Sensitivity", "# removed"), "ours"] == 2
    assert (table["model"] == "GTS (S)").all()  # the paper's best model is another: ours is named
    assert table.loc[("Question Sensitivity", "# removed"), "paper"] == 462
    assert table.loc[("Question Sensitivity", "change in accuracy"), "ours"] == pytest.approx(0 - 200 / 3)
    assert table.loc[("Reasoning Ability", "change in accuracy"), "ours"] == pytest.approx(100 - 200 / 3)
    assert outputs.headline(table.reset_index(), ["removed category", "measure"], "t13")[
        "t13_question_sensitivity_removed"] == 2


def test_tables_13_to_15_give_each_protocol_its_best_model_where_they_differ() -> None:
    problems = [Problem(pid, "b", "q", "", 1.0, ("1", "2"), ("+", "N0", "N1"),
                        {"variation_codes": ("11",), "variation_categories": ("Question Sensitivity",)})
                for pid in "ab"]
    by_validation = run("s", "gts", "scratch", "svamp", {"a": True, "b": True}, best_test=1.0)
    by_test_epoch = run("w", "seq2seq", "scratch", "svamp", {"a": True, "b": False}, best_test=1.0 + 1e-9)
    best = st.best_by_protocol([by_validation, by_test_epoch])
    assert {k: st.model_of(v) for k, v in best.items()} == {st.CHOSEN_BY["validation"]: ("gts", "scratch"),
                                                            st.CHOSEN_BY["best test epoch"]: ("seq2seq", "scratch")}
    table = st.table_ablation(best, problems, "category")
    assert table.groupby("best model by")["model"].first().to_dict() == {
        st.CHOSEN_BY["validation"]: "GTS (S)", st.CHOSEN_BY["best test epoch"]: "Seq2Seq (S)"}
    assert st.first_best(table)["model"].unique().tolist() == ["GTS (S)"]  # the findings judge ours


def test_best_run_skips_a_model_without_predictions() -> None:
    empty = run("e", "seq2seq", "scratch", "svamp", {})
    some = run("s", "gts", "scratch", "svamp", {"a": False})
    assert st.model_of(st.best_run([empty, some])) == ("gts", "scratch")  # NaN accuracy first used to win
    with pytest.raises(ValueError, match="no runs with predictions"):
        st.best_run([empty])


def test_scored_problems_keeps_a_prefix_and_refuses_gaps() -> None:
    problems = [Problem(pid, "b", "q", "", 1.0, ("1", "2"), ("+", "N0", "N1"), {}) for pid in "abcd"]
    assert [p.id for p in st.scored_problems(problems, {"a": True, "b": False})] == ["a", "b"]  # test_limit 2
    with pytest.raises(KeyError, match="inside the evaluated prefix"):
        st.scored_problems(problems, {"a": True, "c": False})  # "b" lost from the record
    with pytest.raises(KeyError, match="not in the test set"):
        st.scored_problems(problems, {"z": True})


def test_svamp_cv_table_is_empty_without_runs() -> None:
    assert st.svamp_cv_table([]).empty


def test_svamp_cv_table_pairs_each_model_with_its_run_trained_without_svamp() -> None:
    fold0 = run("c0", "gts", "scratch", "cv_svamp_augmented", {"a": True, "b": True})
    fold1 = run("c1", "gts", "scratch", "cv_svamp_augmented", {"c": True, "d": False})
    trained_without = run("s", "gts", "scratch", "mawps-asdiv-a_svamp", {"a": True, "b": False, "c": False,
                                                                          "d": False, "e": True})
    row = st.svamp_cv_table([fold0, fold1], [trained_without]).iloc[0]
    assert (row["folds"], row["n"], row["paper"]) == (2, 4, 65.0)
    assert row["ours"] == pytest.approx(75.0) and row[st.WITHOUT_SVAMP] == pytest.approx(25.0)
    other = run("t", "transformer", "scratch", "cv_svamp_augmented", {"a": True})
    assert st.svamp_cv_table([other], [trained_without])[st.WITHOUT_SVAMP].isna().all()  # no such run
    weaker = run("t", "transformer", "scratch", "cv_svamp_augmented", {"a": False})
    both = st.svamp_cv_table([fold0, fold1, weaker]).set_index("model")
    assert both.loc["GTS", "paper"] == 65.0 and math.isnan(both.loc["Transformer", "paper"])  # best beside best


def test_tables_5_and_12() -> None:
    folds = [run("a0", "constrained", "scratch", "mawps", {"a": True, "b": False}),
             run("a1", "constrained", "scratch", "mawps", {"c": True, "d": True})]
    table5 = st.table5(folds).set_index(["emb", "dataset"])
    assert tuple(table5.loc[("S", "mawps"), ["folds", "n", "ours", "paper"]]) == (2, 4, 75.0, 75.1)
    assert len(table5) == 4  # S and R × MAWPS and ASDiv-A, run or not
    assert table5.loc[("R (MiniLM)", "asdiv-a"), "folds"] == 0 and pd.isna(table5.loc[("R (MiniLM)", "asdiv-a"), "ours"])
    assert table5.loc[("R (MiniLM)", "asdiv-a"), "paper"] == 51.2
    train = [Problem(f"t{i}", "b", "q", "", 3.0, ("1", "2"), prefix) for i, prefix in
             enumerate([("+", "N0", "N1"), ("+", "N0", "N1"), ("-", "N0", "N1")])]
    test = [Problem("x", "b", "q", "", 5.0, ("2", "3"), ("+", "N0", "N1")),
            Problem("y", "b", "q", "", 1.0, ("3", "2"), ("-", "N0", "N1"))]
    svamp = run("s", "constrained", "minilm", "mawps-asdiv-a_svamp", {"x": False, "y": True})
    scratch = run("s0", "constrained", "scratch", "mawps-asdiv-a_svamp", {"x": False, "y": False})
    table12 = st.table12([svamp, scratch], train, test).set_index(["model", "emb"])
    assert table12.loc[("FFN + LSTM Decoder", "R (MiniLM)"), "ours"] == 50.0
    assert table12.loc[("FFN + LSTM Decoder", "R (MiniLM)"), "paper"] == 18.3
    assert table12.loc[("FFN + LSTM Decoder", "S"), ["ours", "paper"]].tolist() == [0.0, 17.5]
    only_s = st.table12([scratch], train, test).set_index(["model", "emb"])
    assert pd.isna(only_s.loc[("FFN + LSTM Decoder", "R (MiniLM)"), "ours"])
    table12 = table12.reset_index("emb")
    # majority template "+ n n" filled with each problem's numbers: right on x only
    assert table12.loc["Majority Template Baseline", "ours"] == 50.0
    assert table12.loc["Majority Template Baseline", "paper"] == 11.7


def test_with_without_figure_draws_only_evaluated_runs_a_panel_per_dataset() -> None:
    fold0 = run("k0", "gts", "minilm", "mawps", {"a": True, "b": True, "c": False, "d": True})
    other = run("k1", "gts", "scratch", "asdiv-a", {"e": True})  # trained, never evaluated without questions
    table3 = st.table3([fold0, other], [evaluation(fold0, {"a": True, "b": False, "c": False, "d": False})])
    fig = st.plot_with_without(table3)
    assert [ax.get_title() for ax in fig.axes] == ["mawps"]  # no empty asdiv-a panel
    bars = [patch.get_height() for patch in fig.axes[0].patches]
    assert bars == [pytest.approx(75.0), pytest.approx(25.0)]  # with, without the question
    assert fig.axes[0].collections[0].get_offsets()[0][1] == 76.2  # the paper's GTS R on MAWPS, Table 3
    assert "no run evaluated" in st.plot_with_without(table3[table3["folds"] == 0]).axes[0].texts[0].get_text()


def test_the_best_model_is_named_under_both_protocols() -> None:
    """The paper chose its best model at the best test epoch; ours is chosen on validation: both are named."""
    weak_now = run("w", "graph2tree", "minilm", "svamp", {"a": True, "b": False, "c": False, "d": False})
    steady = run("s", "graph2tree", "scratch", "svamp", {"a": True, "b": True, "c": False, "d": False})
    weak_now["metrics"], steady["metrics"] = {"peer_test_accuracy": 0.75}, {"peer_test_accuracy": 0.5}
    table = st.best_models([weak_now, steady]).set_index("model")
    assert table.loc["Graph2Tree (S)", ["ours, epoch by validation", "best, ours"]].tolist() == [50.0, True]
    assert table.loc["Graph2Tree (R (MiniLM))", ["ours, best test epoch (the paper's protocol)",
                                                 "best, paper's protocol"]].tolist() == [75.0, True]
    assert not table.loc["Graph2Tree (S)", "best, paper's protocol"]


def test_tables_head_ours_by_protocol_and_add_the_best_test_epoch_where_recorded(tmp_root) -> None:
    runs = [run("a", "constrained", "scratch", "mawps", {"p1": True, "p2": False}, best_test=1.0),
            run("b", "constrained", "scratch", "mawps", {"p3": True, "p4": True}, best_test=1.0)]
    table5 = st.table5(runs, embeddings=["scratch"], datasets=["mawps"])
    row = table5.iloc[0]
    assert (row["ours"], row[outputs.BEST_TEST_EPOCH]) == (75.0, 100.0)  # pooled over the two folds, each way
    shown = outputs.show(table5, "t5", PROFILES["smoke"])
    assert outputs.BY_VALIDATION in shown.columns and "ours" not in shown.columns
    assert "ours" in table5.columns  # findings and headlines read the frame as built
    saved = pd.read_csv(paths.tables_dir("smoke") / "t5.csv")
    assert list(saved.columns) == list(shown.columns)


def test_table10_paired_tests_compares_every_two_cells_on_the_problems_both_scored() -> None:
    """Named as Table 10 names its cells (a stand-in without a suffix), each pair in both orders, over the SVAMP
    problems both runs scored; a cell not run pairs with nothing."""
    g2t_r = run("r", "graph2tree", "minilm", st.SVAMP_DATASET, {f"p{i}": i < 12 for i in range(20)})
    stand_in = run("t", "transformer", "minilm", st.SVAMP_DATASET, {f"p{i}": i < 2 for i in range(15)})
    stand_in["spec"]["config"]["precision"] = "bf16"
    pairs = st.table10_paired_tests([g2t_r, stand_in], ["graph2tree", "transformer"], ["minilm", "scratch"])
    assert pairs[["a", "b"]].values.tolist() == [["Graph2Tree R (MiniLM)", "Transformer R (MiniLM)"],
                                                 ["Transformer R (MiniLM)", "Graph2Tree R (MiniLM)"]]
    lead = pairs.iloc[0]  # p0–p14: 12 against 2 right, the 10 disagreements all Graph2Tree's
    assert (lead["n"], lead["a − b"]) == (15, pytest.approx(100 * 10 / 15))
    assert lead["McNemar p"] == pytest.approx(2 / 2**10)
    assert pairs.iloc[1]["a − b"] == pytest.approx(-100 * 10 / 15)
    assert st.table10_paired_tests([g2t_r]).empty  # one cell: no pair
