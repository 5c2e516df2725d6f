"""The executed notebooks as a static book (Sphinx + myst-nb), so that a student with only a browser reads every
table and figure without running anything.

Why this shape: the source notebooks stay output-free; `./run_all.sh` executes them into
``build/notebooks/<profile>/``, and this module copies those executed copies into a Sphinx project under
``build/book/<profile>/``, with a table of contents by paper and every code cell folded (a ``hide-input`` tag:
myst-nb shows it as a "Show code" toggle above the outputs). Nothing is executed here, so the book of the `full`
profile builds from the committed runs in seconds: ``python -m mwplib.book --profile full`` after
``./run_all.sh --profile full -p TRAIN_MISSING=False``. Sphinx, myst-nb and furo install from the package index;
no build step downloads a binary.
"""
from __future__ import annotations

import argparse
import json
import shutil
import sys
from pathlib import Path

from . import paths
from .profiles import DEFAULT_PROFILE, PROFILES

#: Table of contents: each paper and the notebooks (by number) that reproduce it, in reading order.
PARTS: dict[str, tuple[str, ...]] = {
    "MAWPS (Koncel-Kedziorski et al. 2016) and the datasets": ("00",),
    "SVAMP (Patel et al. 2021)": ("01", "02", "03", "04", "07"),
    "Annotating derivations (Upadhyay & Chang 2017)": ("05",),
    "Compositional generalization (Lan et al. 2022)": ("06",),
}
HIDE_INPUT = "hide-input"
#: The tag of a notebook's bookkeeping (its metrics record): run by every render, left out of the book (myst-nb).
BOOKKEEPING = "remove-cell"

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
    """The executed notebooks of `profile` by number (what `./run_all.sh --profile <profile>` wrote)."""
    folder = paths.BUILD / "notebooks" / profile
    return {nb.name[:2]: nb for nb in sorted(folder.glob("[0-9][0-9]_*.ipynb"))}


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
    shutil.rmtree(source, ignore_errors=True)
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


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Build the book of the executed notebooks (no execution).")
    parser.add_argument("--profile", default=DEFAULT_PROFILE, choices=sorted(PROFILES))
    parser.add_argument("only", nargs="*", help="notebook numbers to include (default: all), e.g. 00 05")
    args = parser.parse_args(argv)
    try:
        index = build_book(args.profile, args.only)
    except BookError as err:
        print(f"book: {err}", file=sys.stderr)
        return 1
    print(f"book: {index}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
