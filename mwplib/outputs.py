"""The one place that writes tables, figures and recorded headline metrics.

Notebooks call :func:`paper_vs_ours` + :func:`save_table` for every reproduced table, :func:`save_figure`
for every figure, and :func:`record` (fed by :func:`headline`) for the numbers the notebook tests read back.
"""
from __future__ import annotations

import hashlib
import io
import json
import math
import re
import sys
from pathlib import Path
from typing import Any, Iterable, Mapping, Sequence

import pandas as pd

from . import paths
from .profiles import Profile
from .repro import run_manifest

#: A notebook shows whole cells: pandas cuts a string at 50 characters, which hides the end of a problem text or
#: the note a table's prose points the reader to. Set here because every notebook shows its tables through this
#: module; it changes only how tables print, never what is saved.
pd.set_option("display.max_colwidth", None)
#: What an empty saved table shows instead of pandas' "Empty DataFrame / Columns: […]"
EMPTY = "(no rows: nothing this table is drawn from is recorded under this profile)"

#: Heads of the ``ours`` column of a table of trained runs: the epoch chosen on validation (the protocol of every
#: ``ours`` column here), and the papers' protocol, each run's best test epoch, in a column of its own where the
#: records hold it (the per-problem predictions are kept for the validation epoch only).
BY_VALIDATION = "ours, epoch by validation"
BEST_TEST_EPOCH = "ours, best test epoch (the paper's protocol)"


def by_validation(frame: pd.DataFrame) -> pd.DataFrame:
    """`frame`, marked so that :func:`save_table` heads its ``ours`` column :data:`BY_VALIDATION`: nobody can take it
    for the papers' best-test-epoch number. In memory the column keeps its name, which findings and headlines read."""
    frame.attrs["ours"] = BY_VALIDATION
    return frame


def _headed(frame: pd.DataFrame) -> pd.DataFrame:
    return frame.rename(columns={"ours": frame.attrs["ours"]}) if frame.attrs.get("ours") else frame


def paper_vs_ours(rows: Iterable[Mapping[str, Any]], keys: list[str]) -> pd.DataFrame:
    """Build a table with columns `keys` + paper | ours | Δ (ours − paper) from dicts holding
    the key columns plus ``paper`` and ``ours`` (None where a side has no number), and optionally
    ``note`` for a deviation label (e.g. "MiniLM instead of RoBERTa")."""
    frame = pd.DataFrame(list(rows))
    for col in ("paper", "ours"):
        if col not in frame:
            frame[col] = None
        frame[col] = pd.to_numeric(frame[col], errors="coerce")
    frame["Δ"] = frame["ours"] - frame["paper"]
    extra = [c for c in frame.columns if c not in (*keys, "paper", "ours", "Δ")]
    return frame[[*keys, "paper", "ours", "Δ", *extra]]


def p_value(p: float | None) -> str:
    """A p-value as a table prints it: two significant digits ("" where there is none)."""
    return "" if p is None or pd.isna(p) else f"{p:.2g}"


def save_table(frame: pd.DataFrame, name: str, profile: Profile, *, floatfmt: str = ".2f") -> Path:
    """Write `frame` as CSV and Markdown under results/tables/<profile>/ and return the CSV path. A column of
    p-values already written as text (``p``, or a name ending in " p": two significant digits, :func:`p_value`) is
    written as it is, not through `floatfmt`: p = 0.00054 must not read 0.00."""
    out = paths.tables_dir(profile.name)
    out.mkdir(parents=True, exist_ok=True)
    frame = _headed(frame)
    frame.to_csv(out / f"{name}.csv", index=False)
    as_written = [i for i, column in enumerate(frame.columns) if len(frame)  # tabulate has no column without rows
                  and (column == "p" or str(column).endswith(" p")) and not pd.api.types.is_numeric_dtype(frame[column])]
    (out / f"{name}.md").write_text(frame.to_markdown(index=False, floatfmt=floatfmt, disable_numparse=as_written)
                                    + "\n")
    _write_manifest(out, profile, name)
    return out / f"{name}.csv"


class Shown(pd.DataFrame):
    """A saved table as a notebook (and the book) displays it: without pandas' index column, its numbers in the
    format the table was saved with, not pandas' six decimals (18543.000000). In every other way the DataFrame it
    is."""

    _metadata = ["floatfmt"]

    @property
    def _constructor(self) -> type:
        return Shown

    def __repr__(self) -> str:
        return EMPTY if self.empty else super().__repr__()

    def _repr_html_(self) -> str:
        if self.empty:
            return f"<p><em>{EMPTY}</em></p>"
        fmt = getattr(self, "floatfmt", None) or ".2f"
        floats = [c for c in self.columns if pd.api.types.is_float_dtype(self[c])]
        return _html(self.style.hide(axis="index").format(lambda x: "" if pd.isna(x) else format(x, fmt),
                                                          subset=floats))


class Texts(pd.DataFrame):
    """A table of problem texts as a notebook displays it: every cell wrapped at its line breaks and left-aligned
    (pandas runs a long text on one line). A DataFrame, not the pandas Styler that styles it: a Styler's plain-text
    form is its memory address, which would change the executed copy under docs/book/ at every render."""

    @property
    def _constructor(self) -> type:
        return Texts

    def _repr_html_(self) -> str:
        return _html(self.style.set_properties(**{"white-space": "pre-wrap", "text-align": "left"}))


def _html(styler: Any) -> str:
    """A pandas Styler's HTML with its element ids drawn from the table's content instead of at random: the same
    table renders to the same bytes."""
    return styler.set_uuid(hashlib.sha1(styler.data.to_csv().encode()).hexdigest()[:5]).to_html()


def show(frame: pd.DataFrame, name: str, profile: Profile, *, floatfmt: str = ".2f") -> Shown:
    """Save `frame` as table `name` (`save_table`) and return it as saved (its ``ours`` column headed by protocol), so
    a notebook cell ends with one call that both records the table and displays it, in the saved format."""
    save_table(frame, name, profile, floatfmt=floatfmt)
    shown = Shown(_headed(frame))
    shown.floatfmt = floatfmt
    return shown


def save_figure(fig: Any, name: str, profile: Profile) -> None:
    """Save a matplotlib figure as PNG and PDF under figures/<profile>/ and, in a notebook kernel, show it there.

    Returns nothing: a cell ending with this call shows the figure, not a path of this machine. What it shows is
    the saved PNG itself, so the notebook (and the book made from it) shows exactly the committed figure."""
    out = paths.figures_dir(profile.name)
    out.mkdir(parents=True, exist_ok=True)
    png = out / f"{name}.png"
    fig.savefig(png, dpi=150, bbox_inches="tight")
    # No creation date: re-running a notebook must not change a committed figure that did not change.
    fig.savefig(out / f"{name}.pdf", bbox_inches="tight", metadata={"CreationDate": None})
    if _in_kernel():
        _display_png(fig, png.read_bytes())


def show_figure(fig: Any) -> None:
    """Show a figure that is not saved (e.g. notebook 03's "Try it" heatmap) inline in a notebook kernel; a no-op
    elsewhere. A figure inside a dict or list would only print as ``<Figure size ...>``."""
    if _in_kernel():
        buffer = io.BytesIO()
        fig.savefig(buffer, format="png", bbox_inches="tight")
        _display_png(fig, buffer.getvalue())


def _in_kernel() -> bool:
    """Whether this runs in a Jupyter kernel (papermill's too): only there does `display` reach a notebook; a plain
    script or test (headless, MPLBACKEND=Agg) must neither print a repr nor close the caller's figure."""
    ipython = sys.modules.get("IPython")  # a kernel has imported it; a plain script need not import it here
    shell = ipython.get_ipython() if ipython is not None else None
    return getattr(shell, "kernel", None) is not None


def _display_png(fig: Any, png: bytes) -> None:
    """Display `png` as an image output, then close `fig`: the inline backend would otherwise show it a second
    time at the end of the cell. A PNG rather than the figure object, so it shows whatever MPLBACKEND the kernel
    was started with (under Agg a displayed figure is only its text repr)."""
    import matplotlib.pyplot as plt
    from IPython.display import Image, display

    display(Image(data=png, format="png"))
    plt.close(fig)


def record(notebook: str, profile: Profile, **metrics: float | int | str) -> None:
    """Write a notebook's headline metrics to results/metrics/<profile>/<notebook>.json (read back by the tests).

    The file is replaced, not merged: a notebook records everything in one call, and a metric of a run since
    removed must not outlive it. Returns nothing: the notebook's last cell ends with it, and must not print a path
    of this machine."""
    for key, value in metrics.items():
        if isinstance(value, float) and not math.isfinite(value):
            raise ValueError(f"metric {key} of {notebook} is {value}")
    out = paths.metrics_dir(profile.name)
    out.mkdir(parents=True, exist_ok=True)
    (out / f"{notebook}.json").write_text(json.dumps(metrics, indent=1, sort_keys=True) + "\n")


def headline(frame: pd.DataFrame, keys: Sequence[str], prefix: str = "", column: str = "ours") -> dict[str, float]:
    """One column of a table as flat metric names for :func:`record`, e.g. ``table3_seq2seq_s_mawps`` from the
    key columns; NaN cells (not run, or no problem in the group) are left out (notebooks 00–05)."""
    out = {}
    for _, row in frame.iterrows():
        if pd.notna(row[column]):
            name = "_".join([prefix, *(str(row[k]) for k in keys)]).lower()
            key = re.sub(r"[^0-9a-z]+", "_", name).strip("_")
            if key in out:
                raise ValueError(f"two rows of the table give the metric name {key!r}: add a key column")
            out[key] = round(float(row[column]), 4)
    return out


def load_metrics(notebook: str, profile: Profile) -> dict[str, Any]:
    path = paths.metrics_dir(profile.name) / f"{notebook}.json"
    if not path.exists():
        raise FileNotFoundError(f"no recorded metrics for {notebook} under profile {profile.name}: {path}")
    return json.loads(path.read_text())


def _write_manifest(folder: Path, profile: Profile, table: str) -> None:
    """The folder's MANIFEST.json: the environment of the latest render, and under ``tables`` the commit each
    table was written at (notebooks render at different commits into one folder)."""
    path = folder / "MANIFEST.json"
    tables = json.loads(path.read_text()).get("tables", {}) if path.exists() else {}
    manifest = run_manifest(profile)
    manifest["tables"] = {**tables, table: manifest["git"]}
    path.write_text(json.dumps(manifest, indent=1, sort_keys=True) + "\n")
