"""Notebook 07's tables and findings from hand-made run records: the cells, Rel. Gap and the claims' signs."""
import math

import pandas as pd
import pytest

from mwplib import findings
from mwplib.compositional import findings as compositional_findings
from mwplib.compositional import comparisons, experiments, grid, synthesis
from mwplib.compositional.paper_numbers import PAPER_TABLE4
from mwplib.profiles import get_profile


def record(correct: int, of: int = 10, peer: float | None = None, val: float = 0.9, n_train: int = 100) -> dict:
    """A one-member run record with `correct` of `of` test problems right."""
    return {"predictions": [{"id": f"p{i}", "correct": i < correct, "logprob": -1.0} for i in range(of)],
            "metrics": {"peer_test_accuracy": peer if peer is not None else correct / of, "best_epoch": 2},
            "history": [{"epoch": 1, "val_accuracy": 0.1}, {"epoch": 2, "val_accuracy": val}],
            "n_train": n_train, "timing": {"seconds_per_epoch": 2.0}}


@pytest.fixture()
def tables():
    runs = {("GTS", "mawps-iid"): [record(8)], ("GTS", "mawps-comdiv-pooled"): [record(5)], ("GTS", "sd-zh"): [record(1)],
            ("LSTM", "mawps-iid"): [record(7)], ("LSTM", "mawps-comdiv-pooled"): [record(2, peer=0.3)],
            ("LSTM", "sd-zh"): [record(1, val=0.8)], ("LSTM", "sd-en"): [record(4)]}
    da = {("GTS", "mawps-comdiv-pooled", "+DA"): [[record(5)], [record(6, n_train=120)]],
          ("GTS", "sd-zh", "+DA"): [[record(1)], [record(3, n_train=130)]]}
    table2 = experiments.table2(runs, da, get_profile("quick"), {"sd-zh": 10, "sd-en": 10})
    return runs, da, table2


def cell(table: pd.DataFrame, column: str = "ours", **keys) -> float:
    return findings.cell(table, column, **keys)


def test_table2_cells_protocols_and_rel_gap(tables):
    _, _, table2 = tables
    assert cell(table2, method="GTS", dataset="MAWPS", split="ComDiv") == 50.0
    assert cell(table2, method="GTS", dataset="MAWPS", split="ComDiv", column="paper") == 48.4
    assert cell(table2, method="LSTM", dataset="MAWPS", split="ComDiv", column="ours, best test epoch") == 30.0
    assert cell(table2, method="LSTM", dataset="SD", split="valid", **{"run dataset": "sd-zh"}) == 80.0
    assert cell(table2, column="n", method="LSTM", dataset="SD", split="valid", **{"run dataset": "sd-zh"}) == 10
    assert cell(table2, method="GTS+DA", dataset="SD", split="test") == 30.0
    assert cell(table2, method="GTS", dataset="MAWPS", split="Rel. Gap") == pytest.approx(80 / 50 - 1)
    # SD's Rel. Gap is the Chinese SD's (the paper's), even with an English SD beside it; no paper value there
    assert cell(table2, method="LSTM", dataset="SD", split="Rel. Gap") == pytest.approx(80 / 10 - 1)
    assert pd.isna(cell(table2, method="LSTM", dataset="SD", split="test", column="paper",
                        **{"run dataset": "sd-en"}))
    assert {"BERTGen", "GPT-2"} <= set(table2[table2["note"].str.startswith("unavailable")]["method"])
    assert not table2.duplicated(["method", "dataset", "split", "run dataset"]).any()


def test_findings_signs_follow_the_cells(tables):
    _, _, table2 = tables
    no_table = pd.DataFrame(columns=["method", "part", "paper", "ours"])
    claims = compositional_findings.compositional(table2, no_table, pd.DataFrame(), pd.DataFrame())
    by = claims.set_index("comparison")
    assert by.loc["GTS MAWPS: I.I.D. − ComDiv", "ours"] == pytest.approx(30.0)
    # two test sets of 10 problems each: 8 against 5 right is within noise by Fisher's exact test
    assert by.loc["GTS MAWPS: I.I.D. − ComDiv", "holds"] == "within noise (Fisher p = 0.35, n = 10 and 10)"
    assert by.loc["MAWPS: Rel. Gap LSTM − GTS", "ours"] == pytest.approx((70 / 20 - 1) - (80 / 50 - 1))
    assert by.loc["GTS+DA − GTS: SD test", "ours"] == pytest.approx(20.0)
    assert by.loc["GTS+DA: gain on SD test − gain on MAWPS ComDiv", "ours"] == pytest.approx(20.0 - 10.0)
    # +DA was not run on I.I.D.: that comparison has no result rather than a verdict, and keeps the paper's value
    no_result = claims[claims["holds"] == "no result"].set_index("comparison")
    assert no_result.loc["GTS+DA MAWPS: I.I.D. − ComDiv", "paper"] == pytest.approx(78.1 - 49.8)
    # every claim of the paper is listed, run or not: each printed method loses on Math23K, MAWPS and SD
    losses = claims[claims["finding"] == "every method loses on the compositional split (Table II)"]
    assert len(losses) == len(experiments.PAPER_TABLE2) * 3
    assert set(losses[losses["ours"].notna()]["comparison"]) == {
        f"{m} {d}: {a} − {b}" for m in ("LSTM", "GTS") for d, a, b in (("MAWPS", "I.I.D.", "ComDiv"),
                                                                     ("SD", "valid", "test"))} | {
        "GTS+DA SD: valid − test"}


def test_a_loss_across_two_test_sets_holds_only_beyond_fishers_test():
    """I.I.D. − ComDiv, SD valid − test, lexical − structural and the ladder's two ends each compare two sets of
    problems: the row carries Fisher's p from the cells' ``n`` and reads "yes" only below 0.05."""
    runs = {("GTS", "mawps-iid"): [record(80, of=100)], ("GTS", "mawps-comdiv-pooled"): [record(50, of=100)],
            ("LSTM", "mawps-iid"): [record(55, of=100)], ("LSTM", "mawps-comdiv-pooled"): [record(50, of=100)]}
    table2 = experiments.table2(runs, {}, get_profile("quick"))
    assert cell(table2, column="n", method="GTS", dataset="MAWPS", split="ComDiv") == 100
    assert math.isnan(cell(table2, column="n", method="GTS", dataset="MAWPS", split="Rel. Gap"))  # no test set
    table3 = pd.DataFrame([{"method": "GTS", "part": "lexical", "n": 40, "paper": 51.3, "ours": 60.0},
                           {"method": "GTS", "part": "structural", "n": 60, "paper": 2.9, "ours": 50.0}])
    ladder = pd.DataFrame([{"dataset": "MAWPS", "split": "ladder-0.4", "DBCA^c re-drawn": 0.4, "accuracy": 70.0,
                            "n": 200},
                           {"dataset": "MAWPS", "split": "ladder-0.9", "DBCA^c re-drawn": 0.9, "accuracy": 40.0,
                            "n": 200}])
    claims = compositional_findings.compositional(table2, table3, pd.DataFrame(), ladder).set_index("comparison")
    assert claims.loc["GTS MAWPS: I.I.D. − ComDiv", "holds"] == "yes"
    assert float(claims.loc["GTS MAWPS: I.I.D. − ComDiv", "p"]) < 1e-4
    assert claims.loc["LSTM MAWPS: I.I.D. − ComDiv", "holds"].startswith("within noise (Fisher p = ")
    assert claims.loc["GTS: lexical − structural", "holds"].startswith("within noise (Fisher p = ")
    assert claims.loc["MAWPS: accuracy at re-drawn DBCA^c 0.40 − at 0.90", "holds"] == "yes"
    assert float(claims.loc["MAWPS: accuracy at re-drawn DBCA^c 0.40 − at 0.90", "p"]) < 1e-6


def test_da_helps_most_on_sd_only_where_the_gain_on_sd_is_beyond_noise(tables):
    runs, da, table2 = tables
    no_table = pd.DataFrame(columns=["method", "part", "paper", "ours"])
    paired = comparisons.paired_tests(da)  # 3 of 10 against 1 of 10, on 10 problems: p = 0.5
    claims = compositional_findings.compositional(table2, no_table, pd.DataFrame(), pd.DataFrame(), paired)
    claims = claims.set_index("comparison")
    assert claims.loc["GTS+DA − GTS: SD test", "holds"].startswith("within noise")
    own = claims.loc["GTS+DA − GTS: SD test", "holds"]  # "within noise (McNemar p = 0.50, n = 10)"
    assert claims.loc["GTS+DA: gain on SD test − gain on MAWPS ComDiv", "holds"] == (
        f"within noise (the SD test gain itself: {own[len('within noise ('):-1]})")
    unpaired = compositional_findings.compositional(table2, no_table, pd.DataFrame(), pd.DataFrame())
    unpaired = unpaired.set_index("comparison")
    assert unpaired.loc["GTS+DA: gain on SD test − gain on MAWPS ComDiv", "holds"] == "yes"


def test_da_helps_most_on_sd_holds_only_where_the_interval_of_the_two_gains_excludes_0(tables):
    """"DA helps most on SD" is a gain on SD test minus a gain on ComDiv: two test sets, each paired between base
    and +DA (`comparisons.da_gain_intervals`). Its interval, not the SD gain's own test, decides the verdict, shown
    the way the Rel. Gap rows show theirs; "yes" still needs half the paper's difference."""
    runs, da, table2 = tables
    no_table = pd.DataFrame(columns=["method", "part", "paper", "ours"])
    gains = comparisons.da_gain_intervals(da)  # +20 points on SD test against +10 on MAWPS ComDiv, 10 problems each
    assert gains[["method", "run dataset", "pool", "pool run dataset", "n", "pool n"]].values.tolist() == [
        ["GTS+DA", "sd-zh", "MAWPS", "mawps-comdiv-pooled", 10, 10]]
    assert gains["gain on SD − gain on pool"].iloc[0] == pytest.approx(10.0)
    low, high = gains[["ci_low", "ci_high"]].iloc[0]
    assert low < 0 < high
    paired = comparisons.paired_tests(da)
    claims = compositional_findings.compositional(table2, no_table, pd.DataFrame(), pd.DataFrame(), paired,
                                                  gains=gains).set_index("comparison")
    assert claims.loc["GTS+DA: gain on SD test − gain on MAWPS ComDiv", ["holds", findings.INTERVAL]].tolist() == [
        "within noise", f"{low:.3f} to {high:.3f}"]

    def chain(n: int, base: int, augmented: int) -> tuple[list[dict], list[dict]]:
        return [record(base, of=n)], [record(augmented, of=n, n_train=120)]

    def judged(sd_gain: int, comdiv_gain: int = 0) -> str:
        """The row's verdict, its interval checked in its own column, with +`sd_gain` of 2000 SD test problems against
        +`comdiv_gain` of 2000 ComDiv ones."""
        sd, comdiv = chain(2000, 100, 100 + sd_gain), chain(2000, 1000, 1000 + comdiv_gain)
        runs = {("GTS", "sd-zh"): sd[0], ("GTS", "mawps-comdiv-pooled"): comdiv[0]}
        da = {("GTS", "mawps-comdiv-pooled", "+DA"): list(comdiv), ("GTS", "sd-zh", "+DA"): list(sd)}
        table2 = experiments.table2(runs, da, get_profile("quick"))
        gains = comparisons.da_gain_intervals(da)
        interval = f"{gains['ci_low'].iloc[0]:.3f} to {gains['ci_high'].iloc[0]:.3f}"
        claims = compositional_findings.compositional(table2, no_table, pd.DataFrame(), pd.DataFrame(),
                                                      comparisons.paired_tests(da), gains=gains)
        by = claims.set_index("comparison")
        assert by.loc["GTS+DA − GTS: SD test", "holds"].startswith("within noise") == (not sd_gain)  # McNemar's alone
        row = by.loc["GTS+DA: gain on SD test − gain on MAWPS ComDiv"]
        assert row[findings.INTERVAL] == interval  # whatever the verdict: the evidence it rests on
        return row["holds"]

    assert judged(200) == "yes"  # 10 points of the paper's 14.2
    assert judged(100) == "smaller (0.35 of the paper's)"  # 5 points: beyond noise, under half the paper's
    # as under quick: no gain on SD, a loss on ComDiv: the difference is beyond noise, yet DA does not help on SD
    assert judged(0, comdiv_gain=-200) == "within noise (the SD test gain itself: McNemar p = 1.00, n = 2000)"


def test_the_committed_quick_grid_is_found_by_the_cli_plan(capsys):
    """Every run of `quick`'s notebook 07, and of its probes (the ablations, two more ladder rungs), has its
    committed record (a changed key would orphan it); a rung nobody trained is listed with a time."""
    from mwplib.compositional.__main__ import main

    main(["--profile", "quick", "--plan", "--ablation", "--ladder", "ladder-target0.50", "ladder-target0.70"])
    assert capsys.readouterr().out.startswith("every run is recorded\nabout 0.0 h for 0 runs")
    main(["--profile", "quick", "--plan", "--parts", "ladder", "--ladder", "ladder-target0.40"])
    out = capsys.readouterr().out.splitlines()
    assert out[1].split()[:6] == ["ladder", "GTS", "mawps-ladder-target0.40", "gts", "1", "10"]
    assert len(out) == 3 and "for 1 runs where a timing is recorded" in out[2]


def test_the_full_plan_counts_every_round_and_lists_each_run_once(monkeypatch):
    """`full` on MAWPS, nothing recorded: Table II's runs once each (the ladder's I.I.D. and ComDiv are the same
    runs), +DA's 7 rounds per member (1 without the ranker), each timed at the recorded speed."""
    from dataclasses import replace

    from mwplib import runs
    from mwplib.profiles import PROFILES

    monkeypatch.setattr(runs, "recorded_speeds", lambda device=None: {("gts", "scratch"): [0.01]})
    monkeypatch.setattr(runs, "run_path", lambda spec, key, profile: runs.paths.RESULTS / "nowhere" / key)
    monkeypatch.setattr(runs, "epochs_done", lambda key: 0)  # nor an interrupted attempt in this build/
    full = PROFILES["full"]
    profile = replace(full, compositional=replace(full.compositional, pools=("mawps",), sd=()))
    plan = grid.plan(profile)
    assert not plan.duplicated(["part", "method", "dataset", "model"]).any()
    mathen = plan[(plan["method"] == "MathEN") & (plan["dataset"] == f"mawps-{profile.compositional.comdiv}")]
    # MathEN's members are runs of their own (normalised targets), not LSTM's and the Transformer's
    assert sorted(mathen[mathen["part"] == "table2"]["model"]) == ["convs2s", "seq2seq", "transformer"]
    assert dict(zip(mathen["part"], mathen["runs"])) == {"table2": 1, "+DA": 7, "− DataRanker": 1}  # operation 2
    assert set(plan[plan["part"] == "ladder"]["dataset"]) == {f"mawps-{n}" for n in profile.compositional.ladder}
    gts = plan[(plan["method"] == "GTS") & (plan["dataset"] == "mawps-iid")].set_index("part")
    n_train = len(grid.datasets_for(profile)["mawps-iid"].train)
    assert gts.loc["table2", "estimated minutes"] == pytest.approx(0.01 * n_train * 100 / 60)
    assert gts.loc["+DA", "estimated minutes"] == pytest.approx(7 * 0.01 * n_train * 100 / 60)
    assert plan[plan["model"] != "gts"]["estimated minutes"].isna().all()  # no speed recorded for them


def test_a_pending_chain_without_the_ranker_is_timed_at_its_last_rounds_size(monkeypatch):
    """− DataRanker trains one run, on the set its T unranked rounds grew to (`grid._round_sets`), not on the first
    round's; the ranked +DA trains one run per round, each at its round's size."""
    from dataclasses import replace

    from mwplib import runs
    from mwplib.profiles import PROFILES

    monkeypatch.setattr(runs, "recorded_speeds", lambda device=None: {("seq2seq", "scratch"): [0.01]})
    monkeypatch.setattr(runs, "run_path", lambda spec, key, profile: runs.paths.RESULTS / "nowhere" / key)
    monkeypatch.setattr(runs, "epochs_done", lambda key: 0)
    monkeypatch.setattr(grid, "_growth", lambda chains: 0.5)  # each round keeps half as many problems again
    full = PROFILES["full"]
    profile = replace(full, compositional=replace(full.compositional, pools=("mawps",), sd=(), da_iterations=3))
    plan = grid.plan(profile)
    comdiv = f"mawps-{profile.compositional.comdiv}"
    seq2seq = plan[(plan["method"] == "MathEN") & (plan["dataset"] == comdiv) & (plan["model"] == "seq2seq")]
    minutes = seq2seq.set_index("part")["estimated minutes"]
    n = len(grid.datasets_for(profile)[comdiv].train)
    per_problem = 0.01 * 100 / 60  # the recorded speed × 100 epochs, in minutes
    assert minutes["− DataRanker"] == pytest.approx(round(n * 1.5 ** 3) * per_problem)
    assert minutes["+DA"] == pytest.approx(sum(round(n * 1.5 ** r) for r in (1, 2, 3)) * per_problem)


def test_quick_trains_only_its_plan_and_shows_what_else_is_recorded(monkeypatch):
    """From an empty results folder `quick` trains its plan's cells only; the ablations and the other ladder rungs
    are looked up (`train_missing=False`), so they are drawn when recorded and cost nothing when not."""
    from mwplib.compositional import training

    asked = []
    monkeypatch.setattr(training, "train_method", lambda method, dataset, *a, train_missing, **k:
                        asked.append(("run", method, dataset, train_missing)))
    monkeypatch.setattr(training, "augmented", lambda method, dataset, *a, train_missing, **options:
                        asked.append(("+DA", method, dataset, tuple(sorted(options.items())), train_missing)))
    profile = get_profile("quick")
    grid.da_runs(profile)
    grid.ladder_runs(profile)
    trained = {a[:-1] for a in asked if a[-1]}
    assert trained == {("+DA", "GTS", "mawps-comdiv-pooled", ()), ("+DA", "GTS", "sd-zh", ()),
                       *(("run", "GTS", f"mawps-{name}") for name in ("iid", "comdiv-pooled", "max"))}
    looked_up = {a[:-1] for a in asked if not a[-1]}
    assert len([a for a in looked_up if a[0] == "+DA"]) == 1  # − DataRanker: quick's +DA has operation 2 only
    assert {a[2] for a in looked_up if a[0] == "run"} == {"mawps-comdiv", *("mawps-ladder-target" + f"{t:.2f}"
                                                                          for t in (0.4, 0.5, 0.6, 0.7, 0.8, 0.9))}


@pytest.mark.slow
def test_the_full_grid_runs_end_to_end_at_smoke_size():
    """`full`'s plan (every method incl. MathEN's three members, both pools, both SD sets, +DA for MathEN and GTS,
    the ablations, the ladder's top rung: its others are the same code on other splits, 30 runs more) on smoke's
    few problems and one epoch: every cell of Tables II–IV gets a run."""
    from dataclasses import replace

    from mwplib.profiles import PROFILES

    plan = replace(PROFILES["full"].compositional, da_iterations=1, ladder=PROFILES["full"].compositional.ladder[-1:])
    profile = replace(get_profile("smoke"), compositional=plan)
    runs, da = grid.method_runs(profile), grid.da_runs(profile)
    assert len(runs) == 4 * 6  # LSTM, Transformer, MathEN, GTS × MAWPS / Math23K I.I.D. / ComDiv, SD zh / en
    assert {v for _, _, v in da} == set(grid.ablations(profile.compositional)) == {"+DA", "− DataRanker"}
    assert all(len(members) == 3 for (method, _), members in runs.items() if method == "MathEN")
    table4 = experiments.table4(da, profile)
    assert len(table4) == 2 * 4 and set(table4["method"]) == {"MathEN"}
    ladder = experiments.ladder_table(grid.ladder_runs(profile))
    # the plan's rungs per pool (I.I.D., ComDiv, the top), and any other rung a smoke run recorded before
    assert len(ladder) >= 2 * (2 + len(profile.compositional.ladder))
    assert (ladder.groupby("dataset")["split"].apply(lambda s: (s == "max").any())).all()
    claims = compositional_findings.compositional(experiments.table2(runs, da, profile), experiments.table3(runs, da),
                                                  table4, ladder)
    assert claims["finding"].nunique() == 8  # every claim of the paper that compositional_findings.compositional checks


def test_a_run_whose_validation_falls_below_half_its_best_is_noted_as_collapsed():
    fell = record(7)
    fell["spec"] = {"model": "transformer"}
    fell["history"] = [{"epoch": 1, "val_accuracy": 0.1}, {"epoch": 2, "val_accuracy": 0.72},
                       {"epoch": 3, "val_accuracy": 0.3}, {"epoch": 4, "val_accuracy": 0.01}]
    assert experiments.collapse([fell]) == "collapsed (transformer: 72.0 % validation at epoch 2, 1.0 % at epoch 4)"
    fell["history"][-1]["val_accuracy"] = 0.36  # exactly half: a fall, not a collapse
    assert experiments.collapse([fell]) == ""
    fell["history"][-1]["val_accuracy"] = 0.0
    table2 = experiments.table2({("Transformer", "mawps-iid"): [record(7)],
                                 ("Transformer", "mawps-comdiv-pooled"): [fell]}, {}, get_profile("quick"))
    notes = table2[(table2["method"] == "Transformer") & (table2["dataset"] == "MAWPS")].set_index("split")["note"]
    assert "collapsed" not in notes["I.I.D."] and "; collapsed (transformer: 72.0 %" in notes["ComDiv"]


def test_table2_labels_each_deviation_from_the_papers_setting_in_its_note():
    """Issue 47: quick's shorter training and full's one-draw ComDiv split were said only in the notebook's text."""
    quick = experiments.table2({("GTS", "mawps-iid"): [record(7)], ("GTS", "sd-zh"): [record(8)]}, {},
                               get_profile("quick")).set_index(["method", "run dataset", "split"])["note"]
    assert quick[("GTS", "mawps-iid", "I.I.D.")] == "10 epochs, stopped once validation has not improved for 2 (paper: 100)"
    assert quick[("GTS", "sd-zh", "test")] == "SD proofread; 30 epochs (paper: 100)"
    assert quick[("MathEN", "mawps-iid", "I.I.D.")] == "no run recorded"  # no training to describe
    full = experiments.table2({("GTS", "mawps-comdiv"): [record(7)]}, {}, get_profile("full"))
    note = full.set_index(["method", "run dataset", "split"])["note"][("GTS", "mawps-comdiv", "ComDiv")]
    assert note == experiments.ONE_DRAW  # the paper's 100 epochs: no epochs note


def test_collapse_reads_members_apart_and_skips_epochs_without_validation():
    steady, fell = record(7), record(7)
    fell["history"] = [{"epoch": 1, "val_accuracy": float("nan")}, {"epoch": 2, "val_accuracy": 0.6},
                       {"epoch": 3, "val_accuracy": 0.1}]
    assert experiments.collapse([steady, fell]) == ("collapsed (a member: 60.0 % validation at epoch 2, "
                                                     "10.0 % at epoch 3)")
    assert experiments.collapse([{"history": [{"epoch": 1, "val_accuracy": None}]}]) == ""


def test_a_pending_da_chain_is_timed_at_the_sizes_recorded_rounds_grew_to(monkeypatch):
    """Issue 47: every round of a 7-round chain was timed at the base set's size, though one round grew MAWPS's
    training set 1.57-fold."""
    from mwplib.compositional import training

    monkeypatch.setattr(training, "grown_sets", lambda train, record: [[0] * n for n in record["sizes"]])
    assert grid._growth([([], {"sizes": [10, 12, 15]})]) == pytest.approx((0.2 + 0.25) / 2)
    assert grid._growth([]) == 0.0


def test_a_plan_with_one_operation_has_no_operation_ablation_and_table4_says_why():
    from dataclasses import replace

    quick = get_profile("quick")
    assert list(grid.ablations(quick.compositional)) == ["+DA", "− DataRanker"]
    both = replace(quick.compositional, da_operations=(1, 2))  # the paper's protocol
    assert list(grid.ablations(both)) == list(experiments.PAPER_TABLE4)
    da = {("GTS", "mawps-comdiv-pooled", "+DA"): [[record(4)], [record(6)]],
          ("GTS", "mawps-comdiv-pooled", "− DataRanker"): [[record(4)], [record(5)]]}
    table = experiments.table4(da, quick)
    table = table[table["dataset"] == "MAWPS"].set_index("variant")
    assert list(table.index) == list(experiments.PAPER_TABLE4)  # every printed variant has its row
    assert table.loc["+DA", "ours"] == 60.0 and table.loc["− DataRanker", "note"] == ""
    assert table.loc["− Operation 1", "note"] == "not run: this profile's +DA uses operation 2 only"
    assert math.isnan(table.loc["− Operation 2", "ours"]) and table.loc["− Operation 2", "paper (MathEN)"] == 41.6


def test_sd_runs_train_the_plans_own_epochs_without_early_stopping():
    from mwplib.compositional import training

    quick = get_profile("quick")
    sd, mawps = (training.spec("GTS", "gts", d, quick) for d in ("sd-zh", "mawps-comdiv-pooled"))
    assert (sd.epochs, sd.patience) == (30, 0) and (mawps.epochs, mawps.patience) == (10, 2)


def test_the_base_stands_in_for_its_equal_steps_control_only_if_it_ran_those_epochs(monkeypatch):
    """Round 0 is reused as the control only when it made the steps the control must: a round 0 that stopped early
    at 6 of its 10 configured epochs is not a 10-epoch control, so the control is looked up (here: trained)."""
    from mwplib.compositional import training

    quick = get_profile("quick")
    grown = {**record(6, n_train=1429), "spec": {"config": {"batch_size": 64}, "epochs": 10}}
    grown["history"] = [{"epoch": e, "val_accuracy": 0.5} for e in range(1, 11)]  # 10 epochs of the base's size
    cell = ("GTS", "mawps-comdiv-pooled", "+DA", {}, True, ([None] * 1429, [], []))
    monkeypatch.setattr(grid, "_da_cells", lambda profile, seed: iter([cell]))
    asked = []
    monkeypatch.setattr(training, "train_method", lambda *args, epochs, **kw: asked.append(epochs) or ["control"])

    def control(epochs_run: int) -> list:
        base = {**record(5, n_train=1429), "spec": {"config": {"batch_size": 64}, "epochs": 10}}
        base["history"] = [{"epoch": e, "val_accuracy": 0.5} for e in range(1, epochs_run + 1)]
        return grid.equal_steps_runs({("GTS", "mawps-comdiv-pooled", "+DA"): [[base], [grown]]}, quick)[
            ("GTS", "mawps-comdiv-pooled")]

    assert control(10)[0]["history"][-1]["epoch"] == 10 and asked == []  # round 0 made the steps: it is the control
    assert control(6) == ["control"] and asked == [10]  # stopped early at 6: a control of 10 epochs is looked up


def test_da_is_also_tested_against_its_base_trained_as_many_optimizer_steps(tables):
    """Issue 47: "DA helps" compared a +DA run that made more updates than its base; the control trains the base for
    the steps the +DA run made, and its finding is a row of its own, tested like the others."""
    from mwplib.compositional import training

    quick = get_profile("quick")
    grown = record(6, n_train=1543)
    grown["spec"] = {"config": {"batch_size": 64}, "epochs": 10}
    grown["history"] = [{"epoch": e, "val_accuracy": 0.5} for e in range(1, 11)]
    assert grid.steps([grown]) == 10 * 25  # ⌈1543 / 64⌉ batches an epoch
    control = training.spec("GTS", "gts", "mawps-comdiv-pooled", quick, epochs=11)
    assert (control.epochs, control.patience) == (11, 0)  # early stopping would cut the steps it must match
    same = {**record(7, n_train=1429), "spec": grown["spec"]}
    same["history"] = [{"epoch": e, "val_accuracy": 0.5} for e in range(1, 12)]
    runs, da, table2 = tables
    da = {**da, ("GTS", "mawps-comdiv-pooled", "+DA"): [[record(5)], [grown]]}
    table = comparisons.equal_steps_table(da, {("GTS", "mawps-comdiv-pooled"): [same]}, quick).set_index("run dataset")
    assert table.loc["sd-zh", "note"].startswith(("no +DA run recorded", "no base run at equal steps"))
    table = table.loc["mawps-comdiv-pooled"]
    assert (table["+DA steps"], table["base steps"]) == (250, 11 * 23)  # 253: within a batch's worth per epoch
    assert (table["+DA"], table["base, own epochs"], table["base, equal steps"]) == (60.0, 50.0, 70.0)
    assert table["+DA − base, equal steps"] == -10.0 and table["McNemar p"] == "1"  # p6 alone: 1 of 1
    paired = comparisons.paired_tests(da, {("GTS", "mawps-comdiv-pooled"): [same]})
    equal_steps = "GTS" + compositional_findings.EQUAL_STEPS
    assert paired[["a", "b"]].values.tolist()[:2] == [["GTS+DA", "GTS"], ["GTS+DA", equal_steps]]
    no_table3 = pd.DataFrame(columns=["method", "part", "n", "paper", "ours"])
    claims = compositional_findings.compositional(table2, no_table3, pd.DataFrame(), pd.DataFrame(), paired)
    row = claims[claims["finding"].str.contains("equal optimizer steps")].iloc[0]
    assert row["comparison"] == "GTS+DA − GTS trained as many steps: MAWPS ComDiv"
    assert (row["ours"], row["holds"]) == (-10.0, "within noise (McNemar p = 1.00, n = 10)")


def test_table4_counts_each_operations_kept_problems_and_lists_every_printed_cell():
    """Issue 47: Table IV shows how many kept problems each operation contributed; every variant the paper prints
    has its row on both pools, with why where none ran."""
    quick = get_profile("quick")
    chain = [[record(5)], [record(6, peer=0.7)]]
    kept = [{"meta": {"operation": op}} for op in (2, 2, 1)]
    table = experiments.table4({("GTS", "mawps-comdiv-pooled", "+DA"): chain}, quick,
                               {("GTS", "mawps-comdiv-pooled", "+DA"): {"kept": kept}})
    row = table.set_index(["dataset", "variant"]).loc[("MAWPS", "+DA")]
    assert (row["ours"], row["ours, best test epoch"], row["ours without DA"]) == (60.0, 70.0, 50.0)
    assert (row["kept, operation 1"], row["kept, operation 2"]) == (1, 2)
    assert len(table) == 2 * len(PAPER_TABLE4)
    math23k = table[table["dataset"].str.startswith("Math23K")]
    assert set(math23k["note"]) == {"not run: this profile trains no Math23K"}


def test_da_benefiting_structural_compositions_more_is_judged_by_its_interval():
    """Lan et al. §V-D: "data augmentation benefits more to MWPs with new compound expression templates" (Table
    III): the +DA gain on the structural part minus the gain on the lexical part, a difference over two parts of
    one test set, judged by its bootstrap interval, "not shown" where a part is too small."""
    rows = [("GTS", "structural", 100, 2.9, 10.0), ("GTS", "lexical", 40, 51.3, 50.0),
            ("GTS+DA", "structural", 100, 16.8, 30.0), ("GTS+DA", "lexical", 40, 63.8, 52.5)]
    table3 = pd.DataFrame(rows, columns=["method", "part", "n", "paper", "ours"])
    parts = pd.DataFrame([{"method": "GTS+DA", "structural gain": 20.0, "structural McNemar p": 0.01,
                           "ci_low": 4.0, "ci_high": 30.0}])
    no_table2 = pd.DataFrame(columns=["method", "dataset", "split", "run dataset"])

    def judged(parts: pd.DataFrame) -> pd.Series:
        claims = compositional_findings.compositional(no_table2, table3, pd.DataFrame(), pd.DataFrame(), parts=parts)
        return claims.set_index("comparison").loc["GTS+DA: gain on structural − gain on lexical"]

    row = judged(parts)
    assert row["paper"] == pytest.approx(13.9 - 12.5) and row["ours"] == pytest.approx(20.0 - 2.5)
    assert (row["holds"], row[findings.INTERVAL]) == ("yes", "4.000 to 30.000")
    # a gain on structural within noise (or a loss) cannot carry the claim: a loss on lexical would make it alone
    assert judged(parts.assign(**{"structural McNemar p": 0.3}))["holds"] == (
        "within noise (the structural gain itself: McNemar p = 0.30)")
    assert judged(parts.assign(**{"structural gain": -5.0}))["holds"] == "no (DA lowers structural)"
    table3.loc[table3["part"] == "lexical", "n"] = 12
    assert judged(parts)["holds"] == "not shown (n = 12 < 20)"


def test_part_gain_intervals_split_sd_test_by_composition(monkeypatch):
    from types import SimpleNamespace

    kinds = {f"p{i}": synthesis.STRUCTURAL if i < 6 else synthesis.LEXICAL for i in range(10)}
    built = SimpleNamespace(test=[SimpleNamespace(id=i, meta={"composition": k}) for i, k in kinds.items()])
    monkeypatch.setattr(comparisons.sd, "sd_built", lambda language: built)
    # base right on p0; +DA right on p0–p3 (structural gain 3 of 6) and p6 (lexical gain 1 of 4)
    base = {"predictions": [{"id": f"p{i}", "correct": i == 0} for i in range(10)]}
    with_da = {"predictions": [{"id": f"p{i}", "correct": i in (0, 1, 2, 3, 6)} for i in range(10)]}
    table = comparisons.part_gain_intervals({("GTS", "sd-zh", "+DA"): [[base], [with_da]]}).iloc[0]
    assert (table["method"], table["structural n"], table["lexical n"]) == ("GTS+DA", 6, 4)
    assert table["gain on structural − gain on lexical"] == pytest.approx(50.0 - 25.0)
    assert table["ci_low"] <= 25.0 <= table["ci_high"]
    assert table["structural gain"] == pytest.approx(50.0) and table["structural McNemar p"] == 0.25  # 3 of 3
    stranger = {"predictions": [*base["predictions"], {"id": "p99", "correct": True}]}  # scored on another SD build
    with pytest.raises(ValueError, match="1 problem.*SD-zh test are not in its test set.*'p99'"):
        comparisons.part_gain_intervals({("GTS", "sd-zh", "+DA"): [[stranger], [with_da]]})


def test_table1_rows_carry_the_spread_over_redrawn_clusterings_under_both_conventions():
    """Issue 47: each split's divergences (SD's too) as mean ± s.d. over re-drawn clusterings, both α conventions."""
    redrawn = pd.DataFrame([{"draw": d, "alpha": a, "DBCA^a": x, "DBCA^c": y}
                            for d, (a, x, y) in enumerate([("paper", 0.01, 0.8), ("paper", 0.02, 0.6),
                                                           ("Keysers", 0.03, 0.5), ("Keysers", 0.05, 0.7)])])
    rows = pd.DataFrame(experiments._table1_rows("SD", "ComDiv", (10, 5, 0.7, 0.0, 0.8), (10, 5, 0.7, 0.01, 0.7),
                                                 "note", redrawn)).set_index("statistic")
    assert rows.loc["DBCA^c", "re-drawn mean"] == pytest.approx(0.7)
    assert rows.loc["DBCA^c", "re-drawn worst"] == 0.6 and rows.loc["DBCA^a", "re-drawn worst"] == 0.02
    assert rows.loc["DBCA^c, α = 0.1 (Keysers et al.)", "ours"] == pytest.approx(0.6)
    assert rows.loc["DBCA^a, α = 0.5 (Keysers et al.)", "re-drawn worst"] == 0.05


def test_damaged_augmentation_and_run_records_are_named_not_raw_errors():
    from mwplib.compositional import training
    from mwplib.records import DamagedRecord

    with pytest.raises(DamagedRecord, match=r"augmentation record k1 \(sd-zh\): damaged \(KeyError"):
        training.grown_sets([], {"key": "k1", "dataset": "sd-zh", "kept": [{"id": "a"}], "rounds": [{"kept": 1}]})
    with pytest.raises(DamagedRecord, match=r"augmentation record k2 \(sd-zh\): damaged \(KeyError: 'rounds'"):
        training.grown_sets([], {"key": "k2", "dataset": "sd-zh", "kept": []})
    run = {**record(5), "key": "r1"}
    run["metrics"] = {**run["metrics"], "best_epoch": 7}  # an epoch its history lacks
    with pytest.raises(DamagedRecord, match="run r1: no history entry for its chosen epoch 7"):
        experiments.validation_accuracy([run])
    assert experiments.validation_accuracy([record(5)]) == pytest.approx(90.0)
