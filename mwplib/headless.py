"""Headless execution of the numbered notebooks (used by run_all.sh and the notebook tests)."""
from __future__ import annotations

import argparse
import ast
import json
import os
import sys
import time
from pathlib import Path
from typing import Any
from unittest import mock

from . import paths, quick_vs_full
from .profiles import DEFAULT_PROFILE, PROFILES


#: The parameters, beyond the defaults, with which each profile's committed tables were rendered from the committed
#: runs: `--from-records` renders them so, training nothing (`TRAIN_MISSING=False` where a notebook has it), and the
#: tests re-render them so and compare. `full`'s 05 shows its R rows and §5.3's 5-fold experiment.
COMMITTED_RENDERS: dict[str, dict[str, dict[str, Any]]] = {
    "full": {"05_svamp": {"EMBEDDINGS": ["scratch", "minilm"], "SVAMP_CV": True}},
}
#: matplotlib's backend in a notebook kernel: the inline one, whatever this process uses (tests run under Agg).
INLINE_BACKEND = "module://matplotlib_inline.backend_inline"


def notebooks(only: list[str] | None = None) -> list[Path]:
    """The numbered notebooks `NN_*.ipynb` in order, optionally only those whose number is in `only`."""
    found = sorted(paths.NOTEBOOKS.glob("[0-9][0-9]_*.ipynb"))
    if only:
        found = [nb for nb in found if nb.name[:2] in only]
    return found


def parameter_names(notebook: Path) -> set[str]:
    """The names the notebook's `parameters`-tagged cell assigns (what `-p NAME=VALUE` may override)."""
    cells = json.loads(notebook.read_text())["cells"]
    source = "".join(next((c["source"] for c in cells if "parameters" in c.get("metadata", {}).get("tags", [])), []))
    return {target.id for node in ast.parse(source).body if isinstance(node, ast.Assign)
            for target in node.targets if isinstance(target, ast.Name)}


def execute_notebook(stem: str, profile: str, *, progress: bool = False, **parameters: Any) -> Path:
    """Run notebooks/<stem>.ipynb with papermill into build/notebooks/<profile>/ and return the output path.

    `PROFILE` is always passed; other keyword arguments override the notebook's `parameters` cell.
    `progress` shows papermill's per-cell progress bar (run_all.sh), off for tests.
    """
    import papermill

    source = paths.NOTEBOOKS / f"{stem}.ipynb"
    if not source.exists():
        raise FileNotFoundError(f"no notebook {source}")
    out_dir = paths.BUILD / "notebooks" / profile
    out_dir.mkdir(parents=True, exist_ok=True)
    target = out_dir / source.name
    # The kernel inherits this process's environment: an MPLBACKEND=Agg there (a headless test process, a user's
    # shell) would keep its figures out of the notebook.
    with mock.patch.dict(os.environ, {"MPLBACKEND": INLINE_BACKEND}):
        papermill.execute_notebook(str(source), str(target), parameters={"PROFILE": profile, **parameters},
                                   kernel_name="python3", language="python", cwd=str(paths.NOTEBOOKS),
                                   progress_bar=progress)
    return target


def from_records(notebook: Path, profile: str) -> dict[str, Any]:
    """The parameters that render `notebook`'s committed tables of `profile` from the committed runs alone."""
    trains = {"TRAIN_MISSING": False} if "TRAIN_MISSING" in parameter_names(notebook) else {}
    return {**trains, **COMMITTED_RENDERS.get(profile, {}).get(notebook.stem, {})}


def parse_parameter(text: str) -> tuple[str, Any]:
    """"NAME=VALUE" → (NAME, the Python literal VALUE); parsed with `ast.literal_eval`, never executed."""
    name, sep, value = text.partition("=")
    if not sep or not name.isidentifier():
        raise argparse.ArgumentTypeError(f"expected NAME=VALUE, got {text!r}")
    try:
        return name, ast.literal_eval(value)
    except (ValueError, SyntaxError) as err:
        raise argparse.ArgumentTypeError(f"{name}: {value!r} is not a Python literal") from err


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Execute every numbered notebook headlessly.")
    parser.add_argument("--profile", default=DEFAULT_PROFILE, choices=sorted(PROFILES))
    parser.add_argument("only", nargs="*", help="notebook numbers to run (default: all), e.g. 00 05")
    parser.add_argument("-p", "--param", action="append", default=[], metavar="NAME=VALUE",
                        help="override a parameters-cell literal, e.g. -p TRAIN_MISSING=False "
                             "(render only recorded runs) or -p 'MODELS=[\"gts\"]'")
    parser.add_argument("--from-records", action="store_true",
                        help="render the committed tables from the committed runs, training nothing "
                             "(each notebook with the parameters its committed render used: COMMITTED_RENDERS)")
    args = parser.parse_args(argv)
    parameters = dict(parse_parameter(text) for text in args.param)

    todo = notebooks(args.only)
    unmatched = sorted(set(args.only) - {nb.name[:2] for nb in todo})
    if unmatched or not todo:
        print(f"no notebook numbered {', '.join(unmatched) or 'at all'} under {paths.NOTEBOOKS}", file=sys.stderr)
        return 2
    known = set().union(*(parameter_names(nb) for nb in todo)) - {"PROFILE"}
    unknown = sorted(set(parameters) - known)
    if unknown:  # papermill would only warn, and a misspelt TRAIN_MISSING=False would train for hours
        print(f"-p {', '.join(unknown)}: not a parameter of {', '.join(nb.stem for nb in todo)} "
              f"(they have {', '.join(sorted(known))}; the profile is --profile)", file=sys.stderr)
        return 2
    print(f"profile: {args.profile} (default {DEFAULT_PROFILE}); {len(todo)} notebooks", flush=True)
    rows: list[tuple[str, str, float]] = []
    for i, nb in enumerate(todo, 1):
        print(f"[{i}/{len(todo)}] {nb.stem} ...", flush=True)
        start = time.perf_counter()
        try:
            given = {**from_records(nb, args.profile), **parameters} if args.from_records else parameters
            execute_notebook(nb.stem, args.profile, progress=True, **given)
            status = "ok"
        except Exception as err:  # report every failure, keep running the others
            status = "FAILED"
            last_line = (str(err).strip().splitlines() or [""])[-1]
            print(f"    {nb.stem} failed: {type(err).__name__}: {last_line}", flush=True)
        rows.append((nb.stem, status, time.perf_counter() - start))
        print(f"    {status} in {rows[-1][2]:.0f} s", flush=True)

    width = max((len(r[0]) for r in rows), default=8)
    print(f"\n{'notebook':<{width}}  status  wall time")
    for stem, status, seconds in rows:
        print(f"{stem:<{width}}  {status:<6}  {seconds:8.1f} s")
    failed = [stem for stem, status, _ in rows if status != "ok"]
    if failed:
        print(f"\nFAILED: {', '.join(failed)} (executed copies under {paths.BUILD / 'notebooks' / args.profile})")
        return 1
    print(f"\nall {len(rows)} notebooks ok; outputs under {paths.BUILD / 'notebooks' / args.profile}")
    if beside := quick_vs_full.write():
        print(f"quick beside full: {beside}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
