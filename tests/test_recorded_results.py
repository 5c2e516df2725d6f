"""The committed numbers come from the committed runs: a notebook re-rendered from results/runs/<profile>/ alone
(nothing trained, into a scratch copy of the project) records exactly the metrics and tables committed beside them.

Fails when a change to the analysis code, or a run added or removed without re-rendering, makes the committed
tables and metrics disagree with what the committed runs give. The parameters are those of
`./run_all.sh --from-records` (`headless.COMMITTED_RENDERS`). The committed derivation runs are stored under the code
hash `derivation.runs.code_version`, which a code edit changes and a docstring or comment edit does not.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from mwplib import headless, paths
from mwplib.derivation.runs import code_version
from mwplib.records import read_record
from mwplib.repro import code_digest

RENDERS = [("02_question_removal", "full"), ("05_svamp", "full"), ("01_baselines", "quick"),
           ("02_question_removal", "quick"), ("03_attention_analysis", "quick"), ("05_svamp", "quick"),
           ("07_compositional", "quick"), ("04_svamp_construction", "quick")]


def _scratch_project(root: Path) -> None:
    """A project at `root` that shares the committed data, notebooks, runs, splits and audit tables and writes
    everything else."""
    for name in ("data", "notebooks"):
        (root / name).symlink_to(paths.ROOT / name)
    (root / "results").mkdir()
    for name in ("runs", "splits", "audit"):
        (root / "results" / name).symlink_to(paths.RESULTS / name)


@pytest.mark.slow
@pytest.mark.parametrize("stem, profile", RENDERS, ids=[f"{s}-{p}" for s, p in RENDERS])
def test_committed_metrics_are_what_the_committed_runs_give(stem, profile, tmp_path, monkeypatch) -> None:
    committed = json.loads((paths.metrics_dir(profile) / f"{stem}.json").read_text())
    _scratch_project(tmp_path)
    monkeypatch.setenv("MWPLIB_ROOT", str(tmp_path))  # read by the notebook's kernel
    monkeypatch.setattr(paths, "BUILD", tmp_path / "build")  # no checkpoint of this machine is used
    headless.execute_notebook(stem, profile, **headless.from_records(paths.NOTEBOOKS / f"{stem}.ipynb", profile))
    rendered = json.loads((tmp_path / "results" / "metrics" / profile / f"{stem}.json").read_text())
    assert rendered == committed
    tables = sorted((tmp_path / "results" / "tables" / profile).glob("*.csv"))
    assert tables
    differ = [t.name for t in tables if t.read_bytes() != (paths.tables_dir(profile) / t.name).read_bytes()]
    assert not differ, f"re-rendered tables differ from the committed ones: {differ}"


@pytest.mark.parametrize("profile", ["full", "quick", "smoke"])
def test_committed_derivation_runs_were_made_by_this_code(profile) -> None:
    """Notebook 06 reuses a stored derivation run only when its code hash matches, so a run whose every record was
    made by older code would be retrained by the next render: re-run notebook 06 and commit its runs. A record is
    named by its code hash (`RunConfig.key`), so the older ones stay beside the new."""
    stored = sorted((paths.runs_dir(profile) / "derivation").glob("*.json.gz"))
    assert stored, f"no committed {profile} derivation runs"
    misnamed = [p.name for p in stored if not p.name.endswith(f"-{read_record(p)['config']['code']}.json.gz")]
    assert not misnamed, f"named by another code hash than the one they hold: {misnamed}"
    runs = {p.name.rsplit("-", 1)[0] for p in stored}
    current = {p.name.rsplit("-", 1)[0] for p in stored if p.name.endswith(f"-{code_version()}.json.gz")}
    assert current == runs, f"made by other code than {code_version()} only: {sorted(runs - current)}"


_MODULE = '''"""A module."""
SCALE = 2  # a factor


class Box:
    """A box."""


def area(a, b):
    """The area."""
    return a * b * SCALE


async def fetch():
    """Nothing yet."""
    return None
'''


def _digest(tmp_path: Path, source: str) -> str:
    """`code_digest` of `source` written to a file of its own, as `code_version` reads its modules."""
    path = tmp_path / f"module{len(list(tmp_path.iterdir()))}.py"
    path.write_text(source, encoding="utf-8")
    return code_digest([path])


@pytest.mark.parametrize("old, new", [
    ('"""A module."""', '"""A module, of notebook 05 (now 06)."""'),
    ('"""A box."""', '"""A box, with more to say\n    over two lines."""'),
    ('"""The area."""', "'The area of a rectangle.'"),
    ('"""Nothing yet."""', '"""Nothing yet (moved: see `mwplib.derivation.datasets`)."""'),
    ('    """The area."""\n', ""),
    ('    """A box."""\n', "    pass\n"),
    ("  # a factor", "  # a factor of two, see mwplib/derivation/datasets.py"),
    ("SCALE = 2", "# a comment of its own\nSCALE = 2"),
], ids=["module", "class", "function", "async", "docstring-removed", "docstring-to-pass", "comment", "comment-line"])
def test_a_docstring_or_comment_edit_keeps_the_derivation_code_hash(tmp_path, old, new) -> None:
    """`code_version` hashes what its modules compute (`repro.code_digest`): an edit of their prose must not retrain
    the 40 committed derivation runs."""
    assert old in _MODULE
    assert _digest(tmp_path, _MODULE.replace(old, new, 1)) == _digest(tmp_path, _MODULE)


@pytest.mark.parametrize("old, new", [
    ("SCALE = 2", "SCALE = 3"), ("a * b * SCALE", "a * b + SCALE"), ("return None", "return 0"),
    ("def area(a, b)", "def area(b, a)"), ('    """A box."""\n', '    """A box."""\n    side = 1\n'),
    ('    """Nothing yet."""\n', '    """Nothing yet."""\n    "A second string is code."\n'),
], ids=["constant", "operator", "returned", "arguments", "class-body", "second-string"])
def test_a_code_edit_changes_the_derivation_code_hash(tmp_path, old, new) -> None:
    assert old in _MODULE
    assert _digest(tmp_path, _MODULE.replace(old, new, 1)) != _digest(tmp_path, _MODULE)


def _training_records() -> list[Path]:
    """Every committed training run record (not evaluations `-on-`, augmentation or derivation records)."""
    return [p for p in sorted(paths.RESULTS.glob("runs/*/*/*/*.json.gz"))
            if "-on-" not in p.name and p.parts[-3] not in ("augmentation", "derivation")]


def test_every_committed_run_record_is_keyed_by_its_spec() -> None:
    """A record's spec rebuilt as a `RunSpec` (with today's config classes, `run_spec.spec_of`) hashes to its key and
    file name: so no schema change (a field renamed, a default changed) silently orphans a recorded run. A record
    of a retired field keeps its key by its description."""
    from mwplib import run_spec

    checked, retired = 0, 0
    for path in _training_records():
        record = read_record(path)
        described = record["spec"]
        assert run_spec.key(described, record["data_checksum"]) == record["key"] == path.name.removesuffix(".json.gz")
        spec = run_spec.spec_of(described)
        if set(described["config"]) & set(run_spec.RETIRED):
            retired += 1
            continue
        assert spec.describe() == described, path
        assert spec.key(record["data_checksum"]) == record["key"], path
        checked += 1
    assert checked > 200 and retired == 1  # the in_position_std probe
