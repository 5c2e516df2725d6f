"""run_all.sh's engine: every numbered notebook in order, a final table, non-zero exit naming failures."""
import argparse

import nbformat
import pytest

from mwplib import headless, paths


def _notebook(path, code: str, parameters: str = 'PROFILE = "quick"') -> None:
    params = nbformat.v4.new_code_cell(parameters)
    params.metadata["tags"] = ["parameters"]
    nb = nbformat.v4.new_notebook(cells=[params, nbformat.v4.new_code_cell(code)])
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(nb, path)


@pytest.fixture()
def project(tmp_path, monkeypatch):
    monkeypatch.setattr(paths, "NOTEBOOKS", tmp_path / "notebooks")
    monkeypatch.setattr(paths, "BUILD", tmp_path / "build")
    monkeypatch.setattr(paths, "RESULTS", tmp_path / "results")
    paths.NOTEBOOKS.mkdir()
    _notebook(paths.NOTEBOOKS / "00_ok.ipynb", "assert PROFILE == 'smoke'")
    _notebook(paths.NOTEBOOKS / "01_broken.ipynb", "raise RuntimeError('boom in cell 2')")
    (paths.NOTEBOOKS / "scratch.ipynb").write_text("not numbered, never run")
    return tmp_path


def test_headless_reports_and_names_failures(project, capsys):
    assert [nb.name for nb in headless.notebooks()] == ["00_ok.ipynb", "01_broken.ipynb"]
    assert headless.main(["--profile", "smoke"]) == 1
    out = capsys.readouterr().out
    assert "01_broken failed: PapermillExecutionError" in out and "boom in cell 2" in out
    assert "FAILED: 01_broken" in out
    assert (project / "build" / "notebooks" / "smoke" / "00_ok.ipynb").exists()


def test_headless_only_selects_by_number(project, capsys):
    assert headless.main(["--profile", "smoke", "00"]) == 0
    assert "all 1 notebooks ok" in capsys.readouterr().out


def test_headless_passes_literal_parameters(project, capsys):
    _notebook(paths.NOTEBOOKS / "02_param.ipynb", "assert TRAIN_MISSING is False and MODELS == ['gts']",
              'PROFILE = "quick"\nMODELS = ["seq2seq"]\nTRAIN_MISSING = True')
    assert headless.main(["--profile", "smoke", "-p", "TRAIN_MISSING=False", "-p", "MODELS=['gts']", "02"]) == 0


def test_headless_refuses_what_it_would_silently_ignore(project, capsys):
    _notebook(paths.NOTEBOOKS / "02_param.ipynb", "pass", 'PROFILE = "quick"\nTRAIN_MISSING = True')
    assert headless.main(["--profile", "smoke", "-p", "TRAIN_MISING=False", "02"]) == 2  # misspelt: would train
    assert "TRAIN_MISING: not a parameter of 02_param" in capsys.readouterr().err
    assert headless.main(["--profile", "smoke", "-p", "PROFILE='full'", "02"]) == 2  # --profile names the output
    assert headless.main(["--profile", "smoke", "-p", "TRAIN_MISSING=False", "00", "02"]) == 0  # one of them has it
    assert headless.main(["--profile", "smoke", "07"]) == 2
    assert "no notebook numbered 07" in capsys.readouterr().err


@pytest.mark.parametrize("text", ["MODELS", "1X=2", "X=__import__('os')", "X=open('f')"])
def test_parameters_are_literals_only(text):
    with pytest.raises(argparse.ArgumentTypeError):
        headless.parse_parameter(text)


def test_from_records_renders_each_notebook_as_its_committed_tables_were(project, monkeypatch):
    _notebook(paths.NOTEBOOKS / "05_svamp.ipynb", "assert TRAIN_MISSING is False and SVAMP_CV is True",
              'PROFILE = "quick"\nTRAIN_MISSING = True\nSVAMP_CV = False\nEMBEDDINGS = ["scratch"]')
    monkeypatch.setitem(headless.COMMITTED_RENDERS, "smoke", {"05_svamp": {"SVAMP_CV": True}})
    assert headless.from_records(paths.NOTEBOOKS / "05_svamp.ipynb", "smoke") == {"TRAIN_MISSING": False,
                                                                               "SVAMP_CV": True}
    assert headless.from_records(paths.NOTEBOOKS / "00_ok.ipynb", "smoke") == {}  # it trains nothing: no parameter
    assert headless.main(["--profile", "smoke", "--from-records", "00", "05"]) == 0
    assert headless.main(["--profile", "smoke", "05"]) == 1  # without it: the notebook's own defaults
    assert headless.from_records(paths.NOTEBOOKS / "05_svamp.ipynb", "full")["EMBEDDINGS"] == ["scratch", "minilm"]
