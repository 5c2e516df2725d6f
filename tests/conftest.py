import os
import sys
from pathlib import Path

os.environ.setdefault("MPLBACKEND", "Agg")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
sys.path.insert(0, str(Path(__file__).parent))  # tests/notebook_runner.py


def pytest_collection_modifyitems(items):
    """The browser test of the book reads the smoke renders the notebook tests make: run it last."""
    items.sort(key=lambda item: item.nodeid.startswith("tests/test_book.py::test_every_page"))
