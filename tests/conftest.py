import os
import sys
from pathlib import Path

import pytest

os.environ.setdefault("MPLBACKEND", "Agg")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
sys.path.insert(0, str(Path(__file__).parent))  # tests/notebook_runner.py


#: tests that write the shared smoke renders (results/, figures/, build/notebooks/) or read them: marked `renders`,
#: so that test.sh can run them in order in one process beside another running everything else. The smoke runs
#: are committed (results/runs/smoke/), so a fresh clone renders them rather than training every one again
#: (993 s beside the other process, 344 s alone: docs/lab-notes/performance.md); a run whose spec changed is
#: recorded beside.
RENDERS = ("tests/test_notebook_", "tests/test_book.py", "tests/test_headless.py", "tests/test_jupyterlab.py")
#: notebook tests that render into a scratch project of their own: they run beside the renders, not among them
SCRATCH = ("tests/test_notebook_01.py::test_notebook_01_trains_and_tabulates_your_own_file",)


def pytest_collection_modifyitems(items):
    """The browser test of the book reads the smoke renders the notebook tests make: run it last. The JupyterLab
    test runs notebook 01 under smoke again, through the UI: right after notebook 01's tests, it trains nothing."""
    items.sort(key=lambda item: item.nodeid.startswith("tests/test_book.py::test_every_page"))
    lab = [item for item in items if item.nodeid.startswith("tests/test_jupyterlab.py")]
    rest = [item for item in items if item not in lab]
    after = max((k + 1 for k, item in enumerate(rest) if item.nodeid.startswith("tests/test_notebook_01.py")),
                default=len(rest))
    items[:] = rest[:after] + lab + rest[after:]
    for item in items:
        if item.nodeid.startswith(RENDERS) and not item.nodeid.startswith(SCRATCH):
            item.add_marker(pytest.mark.renders)


@pytest.fixture()
def tmp_root(tmp_path, monkeypatch):
    """Results and figures written under a temporary folder, not the committed ones."""
    from mwplib import paths

    monkeypatch.setattr(paths, "RESULTS", tmp_path / "results")
    monkeypatch.setattr(paths, "FIGURES", tmp_path / "figures")
    return tmp_path
