"""No import cycle among mwplib's modules, not even one hidden in a function: a cycle makes the import order
matter, and a function-level import that hides one is the next thing to break."""
from __future__ import annotations

import ast
import re
from collections.abc import Iterable, Mapping
from pathlib import Path

import mwplib

PACKAGE = Path(mwplib.__file__).resolve().parent


def module_name(path: Path, package: Path = PACKAGE) -> str:
    """``mwplib/data/svamp.py`` → ``mwplib.data.svamp``; a package's ``__init__.py`` is the package."""
    parts = path.relative_to(package.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imported_modules(source: str, module: str, is_package: bool, known: set[str]) -> set[str]:
    """The mwplib modules that `source` (module `module`) imports anywhere in it, functions included: for
    ``from X import name`` the submodule ``X.name`` where it is one, else X. Names a package resolves lazily at
    run time (`mwplib.data`'s ``_LAZY``) are no import statement, so they are not edges."""
    package = module if is_package else module.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names if alias.name.split(".")[0] == "mwplib")
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = ".".join(package.split(".")[:len(package.split(".")) - node.level + 1])
                base = f"{base}.{node.module}" if node.module else base
            else:
                base = node.module or ""
            if base.split(".")[0] != "mwplib":
                continue
            found.update(f"{base}.{alias.name}" if f"{base}.{alias.name}" in known else base for alias in node.names)
    return found & known


def import_graph(package: Path = PACKAGE) -> dict[str, set[str]]:
    """Each module of `package` → the modules of it that it imports."""
    files = {module_name(path, package): path for path in sorted(package.rglob("*.py"))}
    return {name: imported_modules(path.read_text(encoding="utf-8"), name, path.name == "__init__.py", set(files))
            for name, path in files.items()}


def cycles(graph: Mapping[str, Iterable[str]]) -> list[list[str]]:
    """The strongly connected components of `graph` with more than one node, and the nodes that import
    themselves, each sorted (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in graph.get(node, ()):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1 or node in graph.get(node, ()):
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return sorted(found)


def test_no_import_cycle_among_mwplib_modules() -> None:
    graph = import_graph()
    assert {"mwplib.runs", "mwplib.data", "mwplib.data.svamp"} <= set(graph)
    assert "mwplib.runs" in graph["mwplib.transfer"]  # the walk sees imports
    found = cycles(graph)
    report = "\n".join(" ↔ ".join(cycle) + ": " + "; ".join(
        f"{a} → {b}" for a in cycle for b in sorted(graph[a]) if b in cycle) for cycle in found)
    assert not found, f"import cycles among mwplib modules:\n{report}"


def test_cycle_finder_finds_cycles_and_self_imports_only() -> None:
    graph = {"a": {"b"}, "b": {"c", "x"}, "c": {"a"}, "d": {"d"}, "e": {"a"}, "x": set()}
    assert cycles(graph) == [["a", "b", "c"], ["d"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_imports_are_resolved_to_modules_wherever_they_are() -> None:
    known = {"mwplib", "mwplib.paths", "mwplib.data", "mwplib.data.svamp", "mwplib.data.own", "mwplib.runs"}
    source = '''
import os
import mwplib.runs
from . import svamp
from .. import paths
from mwplib.data import load_cv
from pandas import DataFrame

def later():
    from .own import load_problems
'''
    assert imported_modules(source, "mwplib.data.questions", False, known) == {
        "mwplib.runs", "mwplib.data.svamp", "mwplib.paths", "mwplib.data", "mwplib.data.own"}
    assert imported_modules("from .svamp import load_cv\nfrom . import own", "mwplib.data", True, known) == {
        "mwplib.data.svamp", "mwplib.data.own"}


#: The paper folders, each importing only the shared layers below it and the papers it builds on (SVAMP drew its
#: datasets from MAWPS and reads them with MAWPS's overlap code).
PAPERS = {"mwplib.mawps": set(), "mwplib.svamp": {"mwplib.mawps"}, "mwplib.derivation": set(),
          "mwplib.compositional": set()}
#: Edges from a shared layer up into a paper folder that stay, each with why: none now (the loader of the derivation
#: datasets, which parses their templates with `derivation/templates`, lives in the paper's folder as
#: `derivation/datasets`).
KNOWN_BACK_ARROWS: set[tuple[str, str]] = set()


def _paper(module: str) -> str | None:
    return next((paper for paper in PAPERS if module == paper or module.startswith(paper + ".")), None)


def test_paper_folders_are_imported_only_from_above():
    """A paper's folder is a layer of its own: the shared modules (data, models, runs, findings' verdict logic)
    never import it, and it imports no other paper's folder but the ones it builds on."""
    graph = import_graph()
    wrong = sorted((a, b) for a, targets in graph.items() for b in targets
                   if (target := _paper(b)) and _paper(a) != target
                   and target not in PAPERS.get(_paper(a) or "", set()) and (a, b) not in KNOWN_BACK_ARROWS)
    assert not wrong, "imports into a paper's folder from below or from another paper:\n" + "\n".join(
        f"{a} → {b}" for a, b in wrong)
    assert all(b in graph[a] for a, b in KNOWN_BACK_ARROWS), "a known back arrow is gone: drop it from the list"


def test_the_top_level_stays_small():
    """The shared modules a newcomer reads first: at most 28 beside the package's __init__ (papers have folders)."""
    modules = [path.name for path in PACKAGE.glob("*.py") if path.name != "__init__.py"]
    assert len(modules) <= 28, sorted(modules)


def architecture_layers(text: str, units: set[str]) -> dict[str, set[int]]:
    """The layers each top-level module or package (`units`) is drawn in by ARCHITECTURE.md's diagram: a line
    ``N name  a · b/ · …`` names layer N's units (a following line without a number continues it); words in
    parentheses or backticks are comments, not units."""
    diagram = text.split("```text", 1)[1].split("```", 1)[0]
    layers: dict[str, set[int]] = {}
    layer = None
    for line in diagram.splitlines():
        numbered = re.match(r"\s*(\d)\s+\S+(?: \S+)*\s{2,}(.*)", line)
        if numbered:
            layer, rest = int(numbered.group(1)), numbered.group(2)
        elif layer is None or set(line.strip()) <= {"│"}:
            continue
        else:
            rest = line
        for word in re.findall(r"[A-Za-z_]+", re.sub(r"\([^)]*\)|`[^`]*`", "", rest)):
            if word in units:
                layers.setdefault(word, set()).add(layer)
    return layers


def _unit(module: str) -> str:
    """``mwplib.svamp.findings`` → ``svamp``; ``mwplib.runs`` → ``runs``."""
    return module.split(".")[1] if "." in module else module


def test_every_import_points_down_the_layers_architecture_draws():
    """ARCHITECTURE.md says a module imports only from its own layer and those below; this holds it to that, and
    to naming every module and package in exactly one layer."""
    graph = import_graph()
    units = {_unit(module) for module in graph if module != "mwplib"}
    drawn = architecture_layers((PACKAGE.parent / "ARCHITECTURE.md").read_text(encoding="utf-8"), units)
    assert set(drawn) == units, f"not in ARCHITECTURE's diagram: {sorted(units - set(drawn))}"
    assert all(len(found) == 1 for found in drawn.values()), {unit: found for unit, found in drawn.items()
                                                              if len(found) > 1}
    layers = {unit: min(found) for unit, found in drawn.items()}
    upward = sorted({(a, b) for a, targets in graph.items() for b in targets if a != "mwplib" and b != "mwplib"
                     and layers[_unit(a)] < layers[_unit(b)]})
    assert not upward, "imports from a lower layer up into a higher one:\n" + "\n".join(
        f"{a} (layer {layers[_unit(a)]}) → {b} (layer {layers[_unit(b)]})" for a, b in upward)


def test_the_layer_reader_reads_numbered_and_continued_lines():
    text = "x\n```text\n 1 top   a · b/ (uses c)\n        │\n 0 base  c\n         d\n```\n"
    assert architecture_layers(text, {"a", "b", "c", "d"}) == {"a": {1}, "b": {1}, "c": {0}, "d": {0}}
