"""Repository rules that a reviewer would otherwise check by hand (nbdev/recommenders style)."""
import ast
import json
from pathlib import Path

import pytest

from mwplib import paths
from mwplib.profiles import PROFILES
from mwplib.headless import notebooks

NOTEBOOKS = notebooks()
LIBRARY = sorted((paths.ROOT / "mwplib").rglob("*.py"))


def test_every_notebook_is_numbered_and_found() -> None:
    assert NOTEBOOKS, f"no numbered notebooks under {paths.NOTEBOOKS}"
    assert sorted(paths.NOTEBOOKS.glob("*.ipynb")) == NOTEBOOKS, "a notebook not named NN_*.ipynb is never run"


def _cells(nb_path: Path) -> list[dict]:
    return json.loads(nb_path.read_text())["cells"]


@pytest.mark.parametrize("nb", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_committed_without_outputs(nb: Path) -> None:
    dirty = [i for i, c in enumerate(_cells(nb)) if c["cell_type"] == "code"
             and (c.get("outputs") or c.get("execution_count") is not None)]
    assert not dirty, f"{nb.name}: cells {dirty} carry outputs; strip them before committing"


@pytest.mark.parametrize("nb", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_has_literal_parameters_cell(nb: Path) -> None:
    tagged = [c for c in _cells(nb) if "parameters" in c.get("metadata", {}).get("tags", [])]
    assert len(tagged) == 1, f"{nb.name}: expected one cell tagged 'parameters', found {len(tagged)}"
    tree = ast.parse("".join(tagged[0]["source"]))
    names = set()
    for stmt in tree.body:
        assert isinstance(stmt, ast.Assign), f"{nb.name}: parameters cell holds only assignments"
        ast.literal_eval(stmt.value)  # raises if a value is not a literal
        names.update(t.id for t in stmt.targets if isinstance(t, ast.Name))
    assert {"PROFILE", "SEED"} <= names, f"{nb.name}: parameters cell must set PROFILE and SEED"
    profile = next(ast.literal_eval(s.value) for s in tree.body if any(getattr(t, "id", "") == "PROFILE"
                                                                       for t in s.targets))
    assert profile in PROFILES, f"{nb.name}: PROFILE {profile!r} is not one of {sorted(PROFILES)}"


@pytest.mark.parametrize("nb", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_records_metrics(nb: Path) -> None:
    code = "".join("".join(c["source"]) for c in _cells(nb) if c["cell_type"] == "code")
    assert f'record("{nb.stem}"' in code, f"{nb.name}: must call outputs.record(\"{nb.stem}\", profile, ...)"


@pytest.mark.parametrize("module", LIBRARY, ids=lambda p: str(p.relative_to(paths.ROOT)))
def test_library_never_evals(module: Path) -> None:
    for node in ast.walk(ast.parse(module.read_text())):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            assert node.func.id not in {"eval", "exec"}, f"{module}:{node.lineno} calls {node.func.id}()"


def test_notebooks_are_numbered_uniquely() -> None:
    numbers = [nb.name[:2] for nb in NOTEBOOKS]
    assert len(numbers) == len(set(numbers)), numbers
