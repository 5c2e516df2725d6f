"""``python -m mwplib solve | check | install``: answer math word problems, check a file of your own, install an
optional encoder.

    python -m mwplib solve "Tom has 3 apples and buys 4 more. How many apples does he have?"
    python -m mwplib solve --file problems.jsonl [--out answers.jsonl] [--model gts --dataset mawps]
    python -m mwplib check my_problems.jsonl   # or .csv: each record loaded, or why not (mwplib.data.own)
    python -m mwplib install mpnet             # the RoBERTa-sized encoder, once (mwplib.models.mpnet)

A file holds one problem per line, as a JSON string or an object with ``text`` (and optionally ``id``); each line
gets one JSON line back: the equation, answer and warnings, or ``error`` saying why that line has no answer. The
solver is trained first when its weights are not on this machine (:func:`mwplib.trained.solver_for`).
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any, Iterator, Sequence

from .profiles import get_profile
from .solver import Solution, Solver, check_text

#: Lines decoded together: the batch of `Solver.solve_many`, small enough for the progress bar to move.
CHUNK = 64


def _answer(solution: Solution) -> dict[str, Any]:
    return {"equation": solution.equation, "answer": solution.answer, "warnings": list(solution.warnings)}


def _read(path: Path) -> Iterator[tuple[Any, Any]]:
    """(id, text or the reason there is none) per line of a JSON Lines file; the text is checked by the solver."""
    with path.open("rb") as handle:
        for number, raw in enumerate(handle, 1):
            where = f"{path}:{number}"
            try:
                item = json.loads(raw.decode("utf-8"))
            except UnicodeDecodeError:
                yield where, ValueError("not valid UTF-8")
                continue
            except json.JSONDecodeError as error:
                yield where, ValueError(f"not JSON ({error.msg})")
                continue
            if isinstance(item, dict):
                yield item.get("id", where), item.get("text", ValueError("no 'text' field"))
            else:
                yield where, item


def solve_lines(solver: Solver, items: Sequence[tuple[Any, Any]]) -> list[dict[str, Any]]:
    """One result per item: its answer, or the documented error (`TypeError`, `ValueError`) its text raised."""
    results: list[dict[str, Any] | None] = [None] * len(items)
    good = []
    for i, (key, text) in enumerate(items):
        try:
            if isinstance(text, Exception):
                raise text
            check_text(text)
            good.append(i)
        except (TypeError, ValueError) as error:
            results[i] = {"id": key, "error": f"{type(error).__name__}: {error}"}
    for i, solution in zip(good, solver.solve_many([items[i][1] for i in good])):
        results[i] = {"id": items[i][0], "text": items[i][1], **_answer(solution)}
    return [r for r in results if r is not None]


def check_file(path: Path) -> int:
    """Print each record of `path` as loaded or refused (file, line, id, reason); 1 when any was refused."""
    from .data import DataError, check_problems

    try:
        loaded, refused = check_problems(path)
    except DataError as error:
        print(f"refused as a whole: {error}")
        return 1
    lines = [(int(p.source.rsplit(":", 1)[1]), f"{p.source} (id {p.id!r}): loaded") for p in loaded]
    lines += [(r.line, f"{r}: REFUSED") for r in refused]
    for _, line in sorted(lines):
        print(line)
    print(f"{len(loaded)} loaded, {len(refused)} refused")
    return 1 if refused or not loaded else 0


def main(argv: Sequence[str] | None = None) -> int:
    from tqdm import tqdm

    from . import trained

    parser = argparse.ArgumentParser(prog="python -m mwplib", description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    solve = commands.add_parser("solve", help="answer problems given as text or in a JSON Lines file")
    solve.add_argument("text", nargs="?", help="one problem (or use --file)")
    solve.add_argument("--file", type=Path, help="JSON Lines: a string or {'id', 'text'} per line")
    solve.add_argument("--out", type=Path, help="write the answers here (default: standard output)")
    for name, value in trained.DEFAULT.items():
        solve.add_argument(f"--{name}", default=value, help=f"of the run whose solver answers (default {value})")
    check = commands.add_parser("check", help="check a file of your own problems (.jsonl or .csv)")
    check.add_argument("file", type=Path)
    install = commands.add_parser("install", help="install an optional encoder once (mpnet: about 400 MB)")
    install.add_argument("encoder", choices=["mpnet"])
    args = parser.parse_args(argv)
    if args.command == "check":
        return check_file(args.file)
    if args.command == "install":
        from .models import mpnet

        print(f"{mpnet.NAME} installed at {mpnet.install()}")
        return 0
    if (args.text is None) == (args.file is None):
        parser.error("give one problem text or --file, not both")
    solver = trained.solver_for(args.model, args.embedding, args.dataset, get_profile(args.profile))
    items = list(_read(args.file)) if args.file else [("text", args.text)]
    out = args.out.open("w") if args.out else sys.stdout
    try:
        for start in tqdm(range(0, len(items), CHUNK), desc="solving", unit="chunk", disable=len(items) <= CHUNK,
                          file=sys.stderr):
            for result in solve_lines(solver, items[start:start + CHUNK]):
                print(json.dumps(result, ensure_ascii=False), file=out, flush=True)
    finally:
        if args.out:
            out.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
