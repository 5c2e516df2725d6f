"""Notebook 01 (baselines) runs under smoke; its recorded numbers agree with the cached runs' predictions and
the majority-template baseline measured on fold 0."""
from __future__ import annotations

import pandas as pd
import pytest
from notebook_runner import execute_notebook, recorded_accuracy, saved_findings

from mwplib import outputs, paths

#: Fold 0's test problems whose template is its training part's most frequent one (measured; all data are
#: used under every profile).
MAJORITY = {"mawps": 100 * 68 / 384, "asdiv-a": 100 * 52 / 238}


@pytest.mark.slow
def test_notebook_01_smoke() -> None:
    recorded = execute_notebook("01_baselines", "smoke")
    assert recorded["runs"] == 4 * 2 * 2  # models × embeddings × datasets, fold 0
    for name in ("mawps", "asdiv-a"):
        assert recorded[f"majority_{name.replace('-', '_')}"] == pytest.approx(MAJORITY[name], abs=1e-4)
        assert 0.3 < recorded[f"cell_jaccard_{name}"] <= 1.0
        assert recorded[f"cell_precision_{name}"] >= recorded[f"cell_jaccard_{name}"]
        assert recorded[f"cell_compared_{name}"] > recorded[f"cell_skipped_{name}"]
    table2 = pd.read_csv(paths.tables_dir("smoke") / "table2_baselines.csv")
    assert outputs.BY_VALIDATION in table2.columns  # headed by protocol when saved
    table2 = table2.rename(columns={outputs.BY_VALIDATION: "ours"})
    assert set(table2["embedding"]) == {"S", "R (MiniLM)"}
    ran = table2.dropna(subset=["ours"])
    assert len(ran) == 12
    for row in ran.itertuples():  # the table's cells are the runs' pooled predictions
        embedding = "scratch" if row.embedding == "S" else "minilm"
        expected = recorded_accuracy(row.model, embedding, row.dataset)
        assert row.ours == pytest.approx(expected, abs=1e-4)
        assert recorded[f"{row.model}_{embedding}_{row.dataset.replace('-', '_')}"] == pytest.approx(expected, abs=1e-4)
    findings = saved_findings("01_findings", recorded)
    assert findings["transformer mawps: R (MiniLM) − S, paired on 1 fold(s)"] == pytest.approx(
        recorded_accuracy("transformer", "minilm", "mawps") - recorded_accuracy("transformer", "scratch", "mawps"))
    assert findings["gts S asdiv-a: model − majority template"] == pytest.approx(
        recorded_accuracy("gts", "scratch", "asdiv-a") - MAJORITY["asdiv-a"])
    speed = pd.read_csv(paths.tables_dir("smoke") / "01_speed.csv")
    assert len(speed) == 16 and (speed["ours"] > 0).all()


@pytest.mark.slow
def test_notebook_01_trains_and_tabulates_your_own_file(tmp_path, monkeypatch):
    """A teacher's own problem set in place of MAWPS / ASDiv-A: notebook 01 cross-validates on its folds (in a
    scratch project, so no record lands in results/)."""
    import json

    from mwplib import headless

    problems = [{"id": f"p{i}", "text": f"Sam has {i + 5} marbles. He gives {i % 4 + 1} to Ann. How many does he have?",
                 "equation": f"x = {i + 5} - {i % 4 + 1}", "answer": i + 5 - (i % 4 + 1), "fold": i % 2}
                for i in range(24)]
    own = tmp_path / "class_homework.jsonl"
    own.write_text("".join(json.dumps(p) + "\n" for p in problems))
    for name in ("data", "notebooks"):
        (tmp_path / name).symlink_to(paths.ROOT / name)
    monkeypatch.setenv("MWPLIB_ROOT", str(tmp_path))
    monkeypatch.setattr(paths, "BUILD", tmp_path / "build")
    headless.execute_notebook("01_baselines", "smoke", DATASETS=[str(own)], MODELS=["seq2seq"], EMBEDDINGS=["scratch"])
    table2 = pd.read_csv(tmp_path / "results" / "tables" / "smoke" / "table2_baselines.csv")
    row = table2[(table2["model"] == "seq2seq") & (table2["dataset"] == "class_homework")].iloc[0]
    assert 0 <= row[outputs.BY_VALIDATION] <= 100 and pd.isna(row["paper"])  # the paper has no value for it
    recorded = list((tmp_path / "results" / "runs" / "smoke" / "seq2seq" / "class_homework").glob("*.json.gz"))
    assert len(recorded) == 1  # smoke trains fold 0 of the file's two
