import os
import sys
from pathlib import Path

import pytest

os.environ.setdefault("MPLBACKEND", "Agg")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
sys.path.insert(0, str(Path(__file__).parent))  # tests/notebook_runner.py


#: tests that write the shared smoke renders (results/, figures/, build/notebooks/) or read them: marked `renders`,
#: so that test.sh can run them in order in one process beside another running everything else. Notebook 06's
#: render from the committed records (a scratch copy, nothing shared) joins them, so that both take about as long.
_BALANCE = "tests/test_recorded_results.py::test_committed_metrics_are_what_the_committed_runs_give"
RENDERS = ("tests/test_notebook_", "tests/test_book.py", "tests/test_runner.py", f"{_BALANCE}[06_compositional-quick]")


def pytest_collection_modifyitems(items):
    """The browser test of the book reads the smoke renders the notebook tests make: run it last."""
    items.sort(key=lambda item: item.nodeid.startswith("tests/test_book.py::test_every_page"))
    for item in items:
        if item.nodeid.startswith(RENDERS):
            item.add_marker(pytest.mark.renders)


@pytest.fixture()
def tmp_root(tmp_path, monkeypatch):
    """Results and figures written under a temporary folder, not the committed ones."""
    from mwplib import paths

    monkeypatch.setattr(paths, "RESULTS", tmp_path / "results")
    monkeypatch.setattr(paths, "FIGURES", tmp_path / "figures")
    return tmp_path
