"""mwplib: the shared library behind the mwplib notebooks (see ARCHITECTURE.md)."""
import os
import warnings

# No model hub here: fail fast instead of waiting a minute on DNS. Users with a hub can set it to 0.
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", os.environ["HF_HUB_OFFLINE"])
# No progress bars from transformers or huggingface_hub (loading a model draws one on stderr): its rate differs at
# every render, and the executed notebooks committed under docs/book/ must not.
os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")

# transformers and huggingface_hub import tqdm.auto, which in a kernel without ipywidgets warns "IProgress not
# found" on stderr with a path of this machine; mwplib shows no progress bars in notebooks, so the widget is not
# missed. Matched by message, so that tqdm need not be imported here.
warnings.filterwarnings("ignore", message="IProgress not found")

__version__ = "0.1.0"
