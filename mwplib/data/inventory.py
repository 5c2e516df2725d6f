"""What is in data/: provenance, record count and checksum of every raw file, the loaders' counts against
the papers, and the known data issues — the content of data/README.md, generated so it cannot drift.

Regenerate the README after a data or loader change with ``python -m mwplib.data.inventory``.
"""
from __future__ import annotations

import csv
import json
import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import pandas as pd

from mwplib import outputs, paths
from mwplib.data.asdiv import asdiv_issues, load_asdiv_a
from mwplib.data.checksums import MANIFEST, DataError, data_file
from mwplib.data.errata import errata_markdown
from mwplib.data.gold import issue_kind, issue_list
from mwplib.data.math23k import FULL_SIZE, load_math23k, load_math23k_public_test, math23k_issues, read_json_stream
from mwplib.data.mawps import load_mawps_2373, load_mawps_subsets
from mwplib.data.svamp import svamp_issues

README = "README.md"
DERIVED = "DERIVED (computed here, see SOURCES.md)"


@dataclass(frozen=True)
class Origin:
    """Where the files under a path prefix of data/ were copied from (data/SOURCES.md has the detail)."""

    prefix: str
    repository: str
    commit: str
    licence: str


#: Most specific prefix first; every file of the manifest must match one (SOURCES.md is the authority).
ORIGINS: tuple[Origin, ...] = (
    Origin("svamp/derived/", DERIVED, "–", "–"),
    Origin("svamp/history/", "arkilpatel/SVAMP", "04df0ae782610032aac7e687b61d07a90176c993", "MIT License"),
    Origin("svamp/", "arkilpatel/SVAMP", "689d7ccac74b9983a2ac7cc3b264f441b99e7c53", "MIT License"),
    Origin("asdiv/", "chaochun/nlu-asdiv-dataset", "883f90a9a65bf00304ba8f37423910fe743abc47", "CC BY-NC 4.0"),
    Origin("derivations_draw_alg514_dolphinl/", "rlebras/wordproblems-dataset",
           "1cd06b415bc7eaec2e62ee684a5cf08aba8af68f", "none stated"),
    Origin("mawps/subsets/SingleOp.json", "purvanshi/operation-prediction",
           "a448e85d9a2d42f803b72fc480fef4e5d7190a63", "none stated"),
    Origin("mawps/subsets/", "Cansal7159/Multiple-Perspectives-Self-Correction",
           "a6dbe0a9cd56cc9fa9e9d88ebbdd6a30e59ee60a", "none stated"),
    Origin("mawps/mwptoolkit/", "LYH-YF/MWPToolkit", "0993beb336c286a0f974d58834e932cf65e32249", "MIT License"),
    Origin("mawps/graph2tree/", "2003pro/Graph2Tree", "05b48a1608b1ad8cd7a7246910d0ebfad63ff051", "none stated"),
    Origin("mawps/derived/", DERIVED, "–", "–"),
    Origin("math23k/public_test/", "SumbeeLei/Math_EN", "78156d60a362c2530a912e4e5034caca926eee0b", "none stated"),
    Origin("math23k/mwptoolkit/", "LYH-YF/MWPToolkit", "0993beb336c286a0f974d58834e932cf65e32249", "MIT License"),
    Origin("math23k/graph2tree/", "2003pro/Graph2Tree", "05b48a1608b1ad8cd7a7246910d0ebfad63ff051", "none stated"),
    Origin("math23k/derived/", DERIVED, "–", "–"),
)


def origin(relpath: str) -> Origin:
    """The provenance of one data file; a file no rule covers is an error (add it to SOURCES.md first)."""
    for rule in ORIGINS:
        if relpath.startswith(rule.prefix):
            return rule
    raise DataError(f"{paths.DATA / relpath}: no provenance rule in mwplib.data.inventory.ORIGINS")


def manifest() -> dict[str, str]:
    """relpath -> sha256 as listed in data/CHECKSUMS.sha256, in manifest order."""
    entries = {}
    for line in (paths.DATA / MANIFEST).read_text(encoding="utf-8").splitlines():
        if line.strip():
            digest, _, relpath = line.partition("  ")
            entries[relpath.strip()] = digest
    return entries


def _count_json(path: Path) -> int:
    try:
        value = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError:
        return len(read_json_stream(path))  # Math23K's public test file: a stream, not a document
    if isinstance(value, dict):  # the DERIVED files: a description plus a list of records
        lists = [key for key in ("rows", "examples") if isinstance(value.get(key), (list, dict))]
        if len(lists) != 1:
            raise DataError(f"{path}: cannot tell which field holds the records")
        return len(value[lists[0]])
    return len(value)


def _count_csv(path: Path) -> int:
    with path.open(encoding="utf-8", newline="") as handle:
        return sum(1 for _ in csv.DictReader(handle))


def _count_lines(path: Path) -> int:
    return sum(1 for line in path.read_text(encoding="utf-8").splitlines() if line.strip())


def _count_xml(path: Path) -> int:
    return sum(1 for _ in ET.parse(path).getroot().iter("Problem"))


_COUNTERS: dict[str, Callable[[Path], int]] = {
    ".json": _count_json, ".jsonl": _count_lines, ".csv": _count_csv, ".txt": _count_lines, ".xml": _count_xml}


def record_count(relpath: str) -> int:
    """Records in one data file: problems (JSON, XML), rows (CSV, without header), ids (fold files)."""
    path = data_file(relpath)
    counter = _COUNTERS.get(path.suffix)
    if counter is None:
        raise DataError(f"{path}: no record counter for {path.suffix} files")
    return counter(path)


def data_inventory() -> pd.DataFrame:
    """One row per checksummed data file: file, repository, commit, licence, records, sha256."""
    rows = []
    for relpath, digest in manifest().items():
        source = origin(relpath)
        rows.append({"file": relpath, "repository": source.repository, "commit": source.commit,
                     "licence": source.licence, "records": record_count(relpath), "sha256": digest})
    return pd.DataFrame(rows)


def loader_counts() -> pd.DataFrame:
    """Problems per loader beside the size the literature reports (paper | ours | Δ)."""
    subsets = load_mawps_subsets()
    published = {"AddSub": ("Hosseini et al. 2014", 395), "SingleOp": ("Roy et al. 2015", 562),
                 "MultiArith": ("Roy & Roth 2015", 600), "SingleEq": ("Koncel-Kedziorski et al. 2015", 508)}
    rows = [{"dataset": "MAWPS", "paper": 2373, "ours": len(load_mawps_2373()), "note": "SVAMP Table 9"}]
    rows += [{"dataset": f"MAWPS {name}", "paper": size, "ours": len(subsets[name]),
              "note": f"size published by {cite}"} for name, (cite, size) in published.items()]
    splits = load_asdiv_a()
    rows.append({"dataset": "ASDiv-A", "paper": 1218, "ours": len(splits[0].train) + len(splits[0].test),
                 "note": "SVAMP Table 9"})
    rows += [{"dataset": f"ASDiv-A fold {k}", "paper": None, "ours": len(split.test),
              "note": "official fold file"} for k, split in enumerate(splits)]
    rows.append({"dataset": "Math23K", "paper": FULL_SIZE, "ours": len(load_math23k()),
                 "note": "partial: the full set is not public (SOURCES.md)"})
    rows.append({"dataset": "Math23K public test", "paper": None, "ours": len(load_math23k_public_test()),
                 "note": "standard 1,000-problem test file"})
    return outputs.paper_vs_ours(rows, ["dataset"])


def _shorten(text: str, width: int = 90) -> str:
    return text if len(text) <= width else text[:width - 1] + "…"


def issue_summary(examples: int = 3) -> pd.DataFrame:
    """Issues per dataset and kind, with the first few (id: issue) examples."""
    subsets = [problem for problems in load_mawps_subsets().values() for problem in problems]
    rows = []
    for dataset, issues in (("MAWPS 2373", issue_list(load_mawps_2373())), ("MAWPS subsets", issue_list(subsets)),
                            ("ASDiv-A", asdiv_issues()), ("Math23K (available)", math23k_issues()),
                            ("SVAMP", svamp_issues())):
        by_kind: dict[str, list[tuple[str, str]]] = {}
        for problem_id, issue in issues:
            by_kind.setdefault(issue_kind(issue), []).append((problem_id, issue))
        for kind, listed in by_kind.items():
            shown = "; ".join(f"{i}: {_shorten(issue.partition(': ')[2])}" for i, issue in listed[:examples])
            rows.append({"dataset": dataset, "kind": kind, "problems": len({i for i, _ in listed}),
                         "examples": shown.replace("|", "\\|")})
    return pd.DataFrame(rows, columns=["dataset", "kind", "problems", "examples"])


def _table(frame: pd.DataFrame) -> str:
    missing_as_none = frame.astype(object).where(frame.notna(), None)
    return missing_as_none.to_markdown(index=False, floatfmt=".0f", missingval="–") + "\n"


def uncopied_folders() -> list[str]:
    """Top-level folders that SOURCES.md describes but that hold no checksummed file."""
    described = re.findall(r"^## (\S+)/", (paths.DATA / "SOURCES.md").read_text(encoding="utf-8"), re.MULTILINE)
    copied = {relpath.split("/")[0] for relpath in manifest()}
    return [folder for folder in described if folder not in copied]


def _uncopied_note() -> list[str]:
    folders = uncopied_folders()
    return [f"Described in SOURCES.md but not present here: {', '.join(f'`{f}/`' for f in folders)}."] \
        if folders else []


def readme_markdown() -> str:
    """The full text of data/README.md."""
    return "\n".join([
        "# Data",
        "",
        "Raw data of the mwplib compendium, copied unchanged from public repositories (files under `*/derived/`",
        "were computed here from the copied files). Provenance in detail: [SOURCES.md](SOURCES.md); checksums:",
        "[CHECKSUMS.sha256](CHECKSUMS.sha256), verified on first read by `mwplib.data.checksums.data_file`.",
        "Code reads these files only through `mwplib.paths.DATA`. This file is generated by",
        "`python -m mwplib.data.inventory`; edit that module, not this file.",
        "",
        "## Files",
        "",
        "Records: problems (JSON/XML), rows without header (CSV), ids (fold/split files).",
        *_uncopied_note(),
        "",
        _table(data_inventory()),
        "## Loaders: problem counts, paper vs ours",
        "",
        _table(loader_counts()),
        "## Known data issues",
        "",
        "Records that do not fit cleanly are kept, annotated in `Problem.meta[\"issues\"]` and listed by",
        "`mawps_issues()`, `asdiv_issues()` and `math23k_issues()` (modules `mwplib.data.mawps`, `.asdiv`,",
        "`.math23k`). Kinds: `no-single-expression` (the unknown occurs more than once or the equation is",
        "malformed: `prefix=()`), `answer-mismatch` (the equation on the text's numbers does not give the gold",
        "answer: rounded or wrong gold, ASDiv floor/ceil divisions), `number-not-in-text` (an ASDiv formula",
        "number absent from the text, kept as a constant).",
        "",
        _table(issue_summary()),
        "## Errata",
        "",
        "Corrections applied by the loaders (`mwplib.data.errata`; `errata=False` gives the release as is).",
        "",
        errata_markdown(),
    ])


def write_readme() -> Path:
    """Regenerate data/README.md."""
    path = paths.DATA / README
    path.write_text(readme_markdown(), encoding="utf-8")
    return path


if __name__ == "__main__":
    print(write_readme())
