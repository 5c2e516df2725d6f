"""The executed notebooks as a static book (Sphinx + myst-nb), so that a student with only a browser reads every
table and figure without running anything.

Why this shape: the source notebooks stay output-free; `./run_all.sh` executes them into
``build/notebooks/<profile>/``, and this module copies those executed copies into a Sphinx project under
``build/book/<profile>/``, with a table of contents by paper and every code cell folded (a ``hide-input`` tag:
myst-nb shows it as a "Show code" toggle above the outputs). Nothing is executed here, so the book of the `full`
profile builds from the committed runs in seconds: ``python -m mwplib.book --profile full`` after
``./run_all.sh --profile full -p TRAIN_MISSING=False``. Sphinx, myst-nb and furo install from the package index;
no build step downloads a binary.

GitHub serves no HTML but shows a notebook with its outputs, so the executed notebooks of `quick` and `full` are
also committed, as a reader's copies (``docs/book/<profile>/``, :func:`write_copies`): the book a reader sees in
the repository without running anything. They are byte-stable: rendering a profile again from the same records
leaves them as they were.
"""
from __future__ import annotations

import argparse
import json
import re
import shutil
import sys
from pathlib import Path

from . import paths
from .profiles import DEFAULT_PROFILE, PROFILES
from .headless import notebooks

#: Table of contents: each paper and the notebooks (by number) that reproduce it, in reading order.
PARTS: dict[str, tuple[str, ...]] = {
    "MAWPS (Koncel-Kedziorski et al. 2016) and the datasets": ("00",),
    "SVAMP (Patel et al. 2021)": ("01", "02", "03", "04", "05"),
    "Annotating derivations (Upadhyay & Chang 2017)": ("06",),
    "Compositional generalization (Lan et al. 2022)": ("07",),
}
HIDE_INPUT = "hide-input"
#: The tag of a notebook's bookkeeping (its metrics record): run by every render, left out of the book (myst-nb).
BOOKKEEPING = "remove-cell"
#: The profiles whose executed notebooks are committed as reader's copies under ``docs/book/<profile>/``; `smoke`
#: is the tests' render, not one to read.
PUBLISHED = ("quick", "full")
#: A cell's metadata that differs from render to render: the kernel's timestamps, papermill's timings.
VOLATILE_CELL_METADATA = ("execution", "papermill")
#: papermill's tag of the cell it adds with the parameters given; its id is random, so a copy gives it this one.
INJECTED = "injected-parameters"
COPIES_INTRO = """# The book, as GitHub shows it

Every numbered notebook executed, with its tables and figures, under two profiles: `quick` (what a laptop CPU
trains) and `full` (the papers' setting). Written by `./run_all.sh --profile <profile>` once every notebook ran
(`--from-records` renders them from the committed runs, training nothing); not edited by hand. The same pages as
a static site: `build/book/<profile>/html/index.html`.
"""

CONF = '''"""Sphinx configuration of the notebook book (written by mwplib.book; not edited by hand)."""
project = "mwplib: four papers on math word problem solvers, reproduced ({profile} profile)"
html_title = project
extensions = ["myst_nb"]
html_theme = "furo"
html_show_copyright = False  # no holder to name: the data and papers are their authors' (data/SOURCES.md)
nb_execution_mode = "off"  # the notebooks were executed by run_all.sh; the book only shows them
nb_code_prompt_show = "Show code"
nb_code_prompt_hide = "Hide code"
exclude_patterns = ["_build"]
suppress_warnings = ["mystnb.unknown_mime_type"]
'''


class BookError(RuntimeError):
    """The book cannot be built: a notebook of the table of contents was not executed, or Sphinx failed."""


def executed_notebooks(profile: str) -> dict[str, Path]:
    """The executed notebooks of `profile` by number (what `./run_all.sh --profile <profile>` wrote), of the
    notebooks there are now: an execution left in build/ by a renamed or removed notebook (the renumbering left
    07_svamp_construction beside 07_compositional) must not stand for the notebook that now bears its number."""
    folder = paths.BUILD / "notebooks" / profile
    current = {nb.name for nb in notebooks()}
    return {nb.name[:2]: nb for nb in sorted(folder.glob("[0-9][0-9]_*.ipynb")) if nb.name in current}


def _folded(notebook: dict) -> dict:
    """The notebook with every code cell's input folded (outputs stay visible)."""
    for cell in notebook["cells"]:
        if cell["cell_type"] == "code":
            tags = cell.setdefault("metadata", {}).setdefault("tags", [])
            if HIDE_INPUT not in tags:
                tags.append(HIDE_INPUT)
    return notebook


def _index(profile: str, present: dict[str, Path]) -> str:
    lines = [f"# mwplib: four papers on math word problem solvers, reproduced ({profile} profile)", "",
             "Each chapter is one executed notebook: the paper's table beside ours, then what holds. Code cells are "
             "folded; open one with its *Show code* toggle. Numbers come from the run records under `results/`.", ""]
    for part, numbers in PARTS.items():
        chapters = [present[n].stem for n in numbers if n in present]
        if chapters:
            lines += ["```{toctree}", f":caption: {part}", ":maxdepth: 1", "", *chapters, "```", ""]
    return "\n".join(lines)


def build_book(profile: str = DEFAULT_PROFILE, only: list[str] | None = None) -> Path:
    """Copy the executed notebooks of `profile` (those numbered in `only`, default all) into a Sphinx project and
    build it; returns the book's ``index.html``. Raises `BookError` naming what is missing or what failed."""
    from sphinx.cmd.build import build_main

    present = executed_notebooks(profile)
    wanted = [n for numbers in PARTS.values() for n in numbers if not only or n in only]
    missing = [n for n in wanted if n not in present]
    if missing:
        raise BookError(f"no executed notebook {', '.join(missing)} under {paths.BUILD / 'notebooks' / profile}: "
                        f"run ./run_all.sh --profile {profile} first")
    root = paths.BUILD / "book" / profile
    source, html = root / "source", root / "html"
    for built in (source, html, root / "doctrees"):  # Sphinx keeps the page of a notebook renamed since
        shutil.rmtree(built, ignore_errors=True)
    source.mkdir(parents=True)
    chosen = {n: present[n] for n in wanted}
    for path in chosen.values():
        notebook = _folded(json.loads(path.read_text()))
        (source / path.name).write_text(json.dumps(notebook, ensure_ascii=False, indent=1) + "\n")
    (source / "index.md").write_text(_index(profile, chosen))
    (source / "conf.py").write_text(CONF.format(profile=profile))
    code = build_main(["-q", "-b", "html", "-d", str(root / "doctrees"), str(source), str(html)])
    if code:
        raise BookError(f"sphinx-build failed (exit {code}) on {source}")
    return html / "index.html"


def reader_copy(notebook: dict) -> dict:
    """An executed notebook as a reader's copy: without its bookkeeping cells (as the book), and without what changes
    from one render of the same records to the next or names this machine: papermill's metadata (timings, the
    paths it read and wrote), each cell's execution timestamps, the injected cell's random id, Python's patch
    version, and where the kernel's flushes split a cell's printing (`_coalesced`)."""
    cells = [cell for cell in notebook["cells"] if BOOKKEEPING not in cell["metadata"].get("tags", [])]
    for cell in cells:
        if "outputs" in cell:
            cell["outputs"] = _coalesced(cell["outputs"])
        for key in VOLATILE_CELL_METADATA:
            cell["metadata"].pop(key, None)
        if INJECTED in cell["metadata"].get("tags", []):
            cell["id"] = INJECTED
    metadata = {key: value for key, value in notebook["metadata"].items() if key != "papermill"}
    if "language_info" in metadata:
        metadata["language_info"] = {k: v for k, v in metadata["language_info"].items() if k != "version"}
    return {**notebook, "cells": cells, "metadata": metadata}


def _coalesced(outputs: list[dict]) -> list[dict]:
    """A cell's outputs with each run of printing to one stream as one output, its text in lines: the kernel sends
    what a cell prints in chunks that differ from run to run (a render of notebook 01 split one line in two),
    and Jupyter shows them joined."""
    merged: list[dict] = []
    for output in outputs:
        if output["output_type"] == "stream":
            text = "".join(output["text"])
            if merged and merged[-1]["output_type"] == "stream" and merged[-1]["name"] == output["name"]:
                text = "".join(merged.pop()["text"]) + text
            output = {**output, "text": text.splitlines(keepends=True)}
        merged.append(output)
    return merged


def machine_path(text: str) -> str | None:
    """The first line of `text` naming a path of this machine (the repository, the Python environment, the home
    folder), or None. A copy that names one is refused: it would differ on every other machine, and the output that
    prints it shows the reader nothing they can open."""
    roots = {str(paths.ROOT), str(Path(sys.prefix).resolve()), str(Path.home())} - {"/"}
    pattern = re.compile("|".join(rf"(?<![\w.-]){re.escape(root)}(?![\w.-])" for root in sorted(roots)))
    return next((line.strip() for line in text.splitlines() if pattern.search(line)), None)


def write_copies(profile: str, only: list[str] | None = None) -> Path:
    """Write the reader's copies of `profile`'s executed notebooks (those numbered in `only`, default all) under
    ``docs/book/<profile>/``, remove a copy whose notebook is gone, and rewrite the index ``docs/book/README.md``;
    returns the folder. Raises `BookError` where a copy would name a path of this machine (nothing is written)."""
    present = {n: path for n, path in executed_notebooks(profile).items() if not only or n in only}
    texts = {}
    for path in present.values():
        text = json.dumps(reader_copy(json.loads(path.read_text())), indent=1, sort_keys=True, ensure_ascii=False)
        if line := machine_path(text):
            raise BookError(f"{path.name} names a path of this machine, so no copy is written: {line[:200]}")
        texts[path.name] = text + "\n"
    folder = paths.BOOK / profile
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in texts.items():
        (folder / name).write_text(text)
    for stale in folder.glob("*.ipynb"):
        if not (paths.NOTEBOOKS / stale.name).exists():
            stale.unlink()
    (paths.BOOK / "README.md").write_text(_copies_index())
    return folder


def _copies_index() -> str:
    """docs/book/README.md: one line per notebook and published profile, linked relatively, titled by the
    notebook's first heading."""
    lines = [COPIES_INTRO]
    for profile in PUBLISHED:
        lines += [f"## {profile}", ""]
        for notebook in notebooks():
            heading = next(c for c in json.loads(notebook.read_text())["cells"] if c["cell_type"] == "markdown")
            title = "".join(heading["source"]).splitlines()[0].lstrip("# ")
            lines.append(f"- [{title}]({profile}/{notebook.name})")
        lines.append("")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Build the book of the executed notebooks (no execution).")
    parser.add_argument("--profile", default=DEFAULT_PROFILE, choices=sorted(PROFILES))
    parser.add_argument("only", nargs="*", help="notebook numbers to include (default: all), e.g. 00 05")
    args = parser.parse_args(argv)
    try:
        index = build_book(args.profile, args.only)
        copies = write_copies(args.profile, args.only) if args.profile in PUBLISHED else None
    except BookError as err:
        print(f"book: {err}", file=sys.stderr)
        return 1
    print(f"book: {index}")
    if copies:
        print(f"reader's copies: {copies.relative_to(paths.ROOT)}/")
    return 0


if __name__ == "__main__":
    sys.exit(main())
