"""mwplib: the shared library behind the mwplib notebooks (see ARCHITECTURE.md)."""
import os

# No model hub here: fail fast instead of waiting a minute on DNS. Users with a hub can set it to 0.
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", os.environ["HF_HUB_OFFLINE"])

__version__ = "0.1.0"
