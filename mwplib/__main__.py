"""``python -m mwplib solve | check | install``: answer math word problems, check a file of your own, install an
optional encoder.

    python -m mwplib solve "Tom has 3 apples and buys 4 more. How many apples does he have?"
    python -m mwplib solve --file problems.jsonl [--out answers.jsonl] [--model gts --dataset mawps]
    python -m mwplib check my_problems.jsonl   # or .csv: each record loaded, or why not (mwplib.data.own)
    python -m mwplib install mpnet             # the RoBERTa-sized encoder, once (mwplib.models.mpnet)

A file holds one problem per line, as a JSON string or an object with ``text`` (and optionally ``id``); each line
gets one JSON line back, as it is read: the equation, answer and warnings, or ``error`` saying why that line has no
answer (the exit status is then 1). The arguments are checked first; the solver is trained when its weights are not
on this machine (:func:`mwplib.trained.solver_for`), and standard error says which solver answers, its accuracy
on SVAMP and where its weights are.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
from contextlib import nullcontext
from itertools import islice
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterator, Sequence

from .profiles import DEFAULT_SOLVER, MODEL_NAMES, PROFILES, get_profile

if TYPE_CHECKING:  # the solver imports torch: seconds that a mistyped argument should not wait for
    from .solver import Solution, Solver

#: Lines decoded together (the batch of `Solver.solve_many`); their answers are written before the next are read.
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
            except (ValueError, RecursionError) as error:  # also 100,000 "[" and an int past Python's digit limit
                yield where, ValueError(f"not JSON ({getattr(error, 'msg', None) or type(error).__name__})")
                continue
            if isinstance(item, dict):
                yield item.get("id", where), item.get("text", ValueError("no 'text' field"))
            else:
                yield where, item


def solve_lines(solver: Solver, items: Sequence[tuple[Any, Any]]) -> list[dict[str, Any]]:
    """One result per item: its answer, or the documented error (`TypeError`, `ValueError`) its text raised."""
    from .solver import check_text

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
    try:
        solutions = solver.solve_many([items[i][1] for i in good])
    except (TypeError, ValueError):  # one text the solver cannot read: each alone, so only it gets the error
        solutions = []
        for i in good:
            try:
                solutions.append(solver.solve(items[i][1]))
            except (TypeError, ValueError) as error:
                solutions.append(error)
    for i, solution in zip(good, solutions):
        results[i] = ({"id": items[i][0], "error": f"{type(solution).__name__}: {solution}"}
                      if isinstance(solution, Exception) else
                      {"id": items[i][0], "text": items[i][1], **_answer(solution)})
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


#: the embeddings `solve` trains with, by their names in the tables and on the command line
EMBEDDINGS = {"S": "scratch", "scratch": "scratch", "R (MiniLM)": "minilm", "minilm": "minilm", "R (MPNet)": "mpnet",
              "mpnet": "mpnet"}
#: the datasets `solve` trains on: the notebooks' (a file of your own is trained with `mwplib.runs`)
DATASETS = {"MAWPS + ASDiv-A, scored on SVAMP": DEFAULT_SOLVER["dataset"], "mawps": "mawps", "asdiv-a": "asdiv-a"}


def _line(result: dict[str, Any]) -> str:
    """A result as one JSON line: UTF-8 as written, or escaped where the text holds what UTF-8 cannot encode (a
    lone surrogate from a JSON ``"\\ud800"``)."""
    line = json.dumps(result, ensure_ascii=False)
    try:
        line.encode("utf-8")
    except UnicodeEncodeError:
        return json.dumps(result)
    return line


def _checked(parser: argparse.ArgumentParser, args: argparse.Namespace) -> argparse.Namespace:
    """`solve`'s arguments checked before any training: a mistyped path or name fails in a second, not after
    minutes of training."""
    if (args.text is None) == (args.file is None):
        parser.error("give one problem text or --file, not both")
    if args.file is not None and not args.file.is_file():
        parser.error(f"--file {args.file}: " + ("not a file" if args.file.exists() else "no such file"))
    if args.out is not None and not args.out.parent.is_dir():
        parser.error(f"--out {args.out}: no folder {args.out.parent}")
    if args.embedding not in EMBEDDINGS and os.environ.get("HF_HUB_OFFLINE") == "1":  # a hub name needs a hub
        labels = sorted(set(EMBEDDINGS) - set(EMBEDDINGS.values()))
        parser.error(f"--embedding {args.embedding!r}: choose one of {labels} (a model-hub name such as roberta-base "
                     "needs HF_HUB_OFFLINE unset and a reachable hub)")
    if args.profile not in PROFILES:
        parser.error(f"--profile {args.profile!r}: choose one of {sorted(PROFILES)}")
    return argparse.Namespace(**{**vars(args), "embedding": EMBEDDINGS.get(args.embedding, args.embedding),
                                 "dataset": DATASETS.get(args.dataset, args.dataset)})


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m mwplib", description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)
    solve = commands.add_parser("solve", help="answer problems given as text or in a JSON Lines file")
    solve.add_argument("text", nargs="?", help="one problem (or use --file)")
    solve.add_argument("--file", type=Path, help="JSON Lines: a string or {'id', 'text'} per line")
    solve.add_argument("--out", type=Path, help="write the answers here (default: standard output)")
    solve.add_argument("--model", default=DEFAULT_SOLVER["model"], choices=MODEL_NAMES,
                       help=f"the solver (default {DEFAULT_SOLVER['model']})")
    solve.add_argument("--embedding", default="S", metavar="{S,R (MiniLM),R (MPNet)}",
                       help="S: trained from scratch; R: a pretrained encoder, or a model-hub name (default S)")
    solve.add_argument("--dataset", default=next(iter(DATASETS)),
                       choices=list(dict.fromkeys([*DATASETS, *DATASETS.values()])),
                       help="what it is trained on (default: %(default)s)")
    solve.add_argument("--profile", default=DEFAULT_SOLVER["profile"],
                       help=f"how long it trains: quick (minutes) or full (default {DEFAULT_SOLVER['profile']})")
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
    args = _checked(solve, args)
    from . import trained  # torch: after the arguments are checked

    try:
        solver = trained.solver_for(args.model, args.embedding, args.dataset, get_profile(args.profile))
    except OSError as error:  # an encoder neither installed nor reachable on a model hub
        print(f"python -m mwplib solve: cannot load the {args.embedding} encoder: {error}", file=sys.stderr)
        return 2
    print(trained.describe(args.model, args.embedding, args.dataset, get_profile(args.profile)), file=sys.stderr)
    items = _read(args.file) if args.file else iter([("text", args.text)])
    failed = False
    with args.out.open("w", encoding="utf-8") if args.out else nullcontext(sys.stdout) as out:
        while chunk := list(islice(items, CHUNK)):  # answered as read: a bad line never costs the others theirs
            for result in solve_lines(solver, chunk):
                failed |= "error" in result
                print(_line(result), file=out, flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
