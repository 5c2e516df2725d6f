import json
import math

import pandas as pd
import pytest

from mwplib import outputs, paths
from mwplib.profiles import PROFILES, get_profile

SMOKE = PROFILES["smoke"]


def test_paper_vs_ours_difference_and_order():
    frame = outputs.paper_vs_ours([{"model": "GTS", "paper": 30.8, "ours": 28.3},
                                  {"model": "new", "paper": None, "ours": 1.0, "note": "not in paper"}],
                                 keys=["model"])
    assert list(frame.columns) == ["model", "paper", "ours", "Δ", "note"]
    assert frame.loc[0, "Δ"] == pytest.approx(-2.5)
    assert math.isnan(frame.loc[1, "Δ"])


def test_save_table_writes_csv_markdown_and_manifest(tmp_root):
    frame = outputs.paper_vs_ours([{"k": "a", "paper": 1.0, "ours": 2.0}], keys=["k"])
    csv = outputs.save_table(frame, "t", SMOKE)
    assert csv.read_text().splitlines()[0] == "k,paper,ours,Δ"
    assert "| k" in csv.with_suffix(".md").read_text()
    outputs.save_table(frame, "u", SMOKE)
    manifest = json.loads((csv.parent / "MANIFEST.json").read_text())
    assert manifest["profile"] == "smoke" and set(manifest["tables"]) == {"t", "u"}  # each table's commit kept


def test_show_saves_the_table_and_returns_it_for_display(tmp_root):
    frame = outputs.paper_vs_ours([{"k": "a", "paper": 1.0, "ours": 2.5}], keys=["k"])
    shown = outputs.show(frame, "v", SMOKE, floatfmt=".1f")
    assert isinstance(shown, pd.DataFrame) and shown.equals(frame)
    table, markdown = paths.tables_dir("smoke"), (paths.tables_dir("smoke") / "v.md").read_text()
    assert (table / "v.csv").exists() and "2.5" in markdown and "2.50" not in markdown


def test_a_shown_table_displays_without_the_index_in_its_saved_format(tmp_root):
    """Issue 49: the book printed 18543.000000 and pandas' index column beside every table."""
    frame = pd.DataFrame({"k": ["a", "b"], "n": [18543, 7], "ours": [76.608187, float("nan")]})
    html = outputs.show(frame, "w", SMOKE, floatfmt=".1f")._repr_html_()
    assert "76.6<" in html and "76.608187" not in html and "18543<" in html and "nan" not in html
    assert ">0<" not in html and ">1<" not in html  # no index column
    assert outputs.show(frame, "w", SMOKE).iloc[:1]._repr_html_().count("<tr") == 2  # a slice stays a shown table


def test_a_displayed_table_renders_to_the_same_bytes_every_time(tmp_root):
    """Issue 49: pandas gave every styled table a random id and a plain text of its memory address, so no executed
    notebook under docs/book/ stayed the same from one render to the next."""
    frame = pd.DataFrame({"text": ["Ross had 6 marbles.\nHe sold 2.", "Joey"], "n": [1.5, 2.0]})
    shown, texts = outputs.show(frame, "w", SMOKE), outputs.Texts(frame)
    assert shown._repr_html_() == outputs.show(frame.copy(), "w", SMOKE)._repr_html_()
    assert texts._repr_html_() == outputs.Texts(frame.copy())._repr_html_() and "pre-wrap" in texts._repr_html_()
    assert repr(texts) == repr(frame)


def test_record_replaces_and_rejects_nan(tmp_root):
    outputs.record("nb", SMOKE, a=1, gone=2.0)
    outputs.record("nb", SMOKE, a=1, b=0.5)  # a rerun without the `gone` run must not keep its metric
    assert outputs.load_metrics("nb", SMOKE) == {"a": 1, "b": 0.5}
    with pytest.raises(ValueError, match="nan"):
        outputs.record("nb", SMOKE, c=float("nan"))
    with pytest.raises(FileNotFoundError):
        outputs.load_metrics("other", SMOKE)


def test_headline_names_cells_by_their_keys_and_skips_missing():
    import pandas as pd

    frame = pd.DataFrame({"model": ["GTS", "Graph2Tree"], "dataset": ["ASDiv-A", "MAWPS"],
                          "ours": [41.23456, float("nan")], "with question": [50.0, 60.0]})
    assert outputs.headline(frame, ["model", "dataset"], "t3") == {"t3_gts_asdiv_a": 41.2346}
    assert outputs.headline(frame, ["model", "dataset"], column="with question") == {
        "gts_asdiv_a": 50.0, "graph2tree_mawps": 60.0}
    with pytest.raises(ValueError, match="'t3_gts'"):  # two rows, one name: one metric would overwrite the other
        outputs.headline(frame.assign(model="GTS"), ["model"], "t3", column="with question")


def test_save_figure_png_and_pdf(tmp_root):
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots()
    ax.plot([0, 1], [0, 1])
    assert outputs.save_figure(fig, "line", SMOKE) is None  # a cell ending with it shows the figure, not a path
    png = paths.figures_dir("smoke") / "line.png"
    assert png.exists() and png.with_suffix(".pdf").exists()
    assert plt.fignum_exists(fig.number)  # outside a kernel nothing is shown, and the caller's figure stays open


def test_profiles_are_ordered_by_cost():
    smoke, quick, full = (PROFILES[n] for n in ("smoke", "quick", "full"))
    assert smoke.epochs(80) <= quick.epochs(80) <= full.epochs(80) == 80
    assert len(full.folds) == 5
    assert get_profile("quick") is quick
    with pytest.raises(ValueError, match="unknown profile"):
        get_profile("huge")


def test_a_relative_root_is_resolved_for_every_process(tmp_path):
    import os
    import subprocess
    import sys

    (tmp_path / "copy").mkdir()
    code = "import os, mwplib.paths as p; print(p.ROOT, os.environ['MWPLIB_ROOT'])"
    out = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env={**os.environ, "MWPLIB_ROOT": "copy"},
                         capture_output=True, text=True, check=True).stdout.split()
    assert out == [str(tmp_path / "copy")] * 2  # a kernel started elsewhere inherits the absolute path


def test_a_findings_p_value_is_written_as_it_is_not_rounded_to_the_tables_format(tmp_root):
    frame = pd.DataFrame([{"finding": "a", "ours": 1.234, "p": "0.00054"}, {"finding": "b", "ours": 2.0, "p": ""}])
    outputs.save_table(frame, "f", SMOKE)
    markdown = (paths.tables_dir("smoke") / "f.md").read_text()
    assert "0.00054" in markdown and "1.23" in markdown and "0.00 " not in markdown


def test_a_column_of_p_values_as_text_is_written_as_it_is_and_a_numeric_one_through_the_format(tmp_root):
    frame = pd.DataFrame([{"cell": "a", "vs majority template, McNemar p": outputs.p_value(0.00054),
                           "McNemar p": 0.5}, {"cell": "b", "vs majority template, McNemar p": outputs.p_value(None),
                                               "McNemar p": 0.25}])
    outputs.save_table(frame, "g", SMOKE)
    markdown = (paths.tables_dir("smoke") / "g.md").read_text()
    assert "| 0.00054 " in markdown and "0.50" in markdown and "0.25" in markdown
    outputs.save_table(frame.iloc[:0], "g", SMOKE)  # no rows: the columns are written, nothing to format
    assert (paths.tables_dir("smoke") / "g.md").read_text().startswith("| cell ")


def test_an_empty_shown_table_says_so_and_long_cells_print_whole(tmp_root):
    empty = outputs.show(pd.DataFrame(columns=["k", "paper", "ours"]), "w", SMOKE)
    assert repr(empty) == outputs.EMPTY and outputs.EMPTY in empty._repr_html_()
    assert (paths.tables_dir("smoke") / "w.csv").read_text().strip() == "k,paper,ours"  # saved as it is
    note = "a note far longer than fifty characters, whose end is the part that matters: 2 folds"
    assert note in repr(outputs.show(pd.DataFrame([{"k": "a", "note": note}]), "x", SMOKE))
