"""SVAMP-side loaders: counts, ids, gold equations, errata and checksums (mwplib.data.svamp)."""
from __future__ import annotations

import dataclasses
import shutil
from collections import Counter, defaultdict
from typing import Iterable

import pytest

from mwplib import paths
from mwplib.data import checksums
from mwplib.data.checksums import DataError, data_file
from mwplib.data.errata import ERRATA, Erratum, apply_errata, errata_markdown
from mwplib.data.svamp import (load_cv, load_cv_svamp_augmented, load_mawps_asdiv_svamp, load_svamp,
                               unjoined_rows)
from mwplib.data.svamp import _Candidate, _parse_row, _problems, _words
from mwplib.expr import ExpressionError, answers_match, evaluate, is_number, parse_prefix
from mwplib.problem import Problem

#: MAWPS problems whose released Answer is not what their equation gives (rounded or wrong golds in
#: MAWPS itself, e.g. mawps-3307 answer 134 vs equation 136); listed so that any change shows up.
MAWPS_ANSWER_MISMATCHES = {"mawps-1659", "mawps-1840", "mawps-1853", "mawps-1967", "mawps-2004", "mawps-3071",
                           "mawps-3253", "mawps-3298", "mawps-3307", "mawps-3327", "mawps-3330", "mawps-730"}


def _mismatches(problems: Iterable[Problem]) -> set[str]:
    """Ids of problems whose prefix, with numbers bound to slots, does not evaluate to the answer."""
    bad = set()
    for p in problems:
        try:
            value = evaluate(parse_prefix(p.prefix), {f"N{i}": n for i, n in enumerate(p.numbers)})
        except ExpressionError:
            bad.add(p.id)
            continue
        if not answers_match(value, p.answer):
            bad.add(p.id)
    return bad


def _everything(splits) -> list[Problem]:
    return [p for split in splits for p in (*split.train, *split.test)]


# ------------------------------------------------------------------------------------------------ SVAMP

def test_svamp_records() -> None:
    svamp = load_svamp()
    assert [p.id for p in svamp] == [f"chal-{i}" for i in range(1, 1001)]
    first = svamp[0]
    assert first.numbers == ("76", "25") and first.prefix == ("-", "N0", "N1") and first.answer == 51.0
    assert first.meta["variation_codes"] == ("21", "11")
    assert first.source == "svamp/SVAMP.json#chal-1"
    codes = Counter(code for p in svamp for code in set(p.meta["variation_codes"]))
    # SOURCES.md: per-code example counts of the derived variation file (paper Table 13: 264 for "21")
    assert codes == {"11": 325, "12": 69, "13": 74, "21": 265, "22": 149, "23": 255, "31": 107, "32": 152,
                     "33": 281}
    assert Counter(p.meta["type"] for p in svamp) == {"Subtraction": 531, "Addition": 195,
                                                     "Common-Division": 166, "Multiplication": 108}


def test_svamp_constants_only_where_the_text_lost_a_number() -> None:
    # chal-50's text says "now has 415 baseball cards and Ace cards left"; its equation uses 149
    with_constants = {p.id: p.prefix for p in load_svamp() if any(is_number(t) for t in p.prefix)}
    assert with_constants == {"chal-50": ("-", "N2", "149.0")}
    from mwplib.data import svamp_issues
    assert [(i, issue.partition(":")[0]) for i, issue in svamp_issues()] == [("chal-50", "number-not-in-text")]


def test_svamp_equations_give_answers_and_errata_switch() -> None:
    assert _mismatches(load_svamp()) == set()
    raw = load_svamp(errata=False)
    assert _mismatches(raw) == {"chal-680"}
    by_id = {p.id: p for p in raw}
    assert by_id["chal-967"].meta["type"] == "Common-Divison"
    fixed = {p.id: p for p in load_svamp()}
    assert fixed["chal-967"].meta["type"] == "Common-Division"
    assert fixed["chal-680"].answer == 5.0 and fixed["chal-680"].meta["errata"] == ("answer",)
    assert "errata" not in fixed["chal-1"].meta


def test_erratum_with_stale_old_value_raises() -> None:
    chal680 = next(p for p in load_svamp(errata=False) if p.id == "chal-680")
    changed = dataclasses.replace(chal680, answer=2.0)
    with pytest.raises(DataError, match="chal-680.*answer"):
        apply_errata([changed])
    assert apply_errata([changed], enabled=False) == [changed]


def test_errata_only_touch_their_own_file() -> None:
    # the CSV version of chal-680 has other numbers and a consistent answer 1: it must stay as it is
    test = {p.id: p for p in load_mawps_asdiv_svamp().test}
    assert test["chal-680"].answer == 1.0 and "errata" not in test["chal-680"].meta


def test_errata_markdown_lists_every_erratum() -> None:
    table = errata_markdown()
    assert all(f"| {e.id} | {e.field} |" in table for e in ERRATA)
    assert isinstance(ERRATA[0], Erratum) and len(table.splitlines()) == len(ERRATA) + 2


# ------------------------------------------------------------------------------------------------- CV

def test_cv_mawps_folds_and_ids() -> None:
    folds = load_cv("mawps")
    assert [(len(s.train), len(s.test)) for s in folds] == [(1537, 384)] * 5
    everything = _everything(folds)
    assert all(p.id.startswith("mawps-") for p in everything) and unjoined_rows("mawps") == []
    assert len({p.id for p in everything}) == 1921
    assert len({p.id for s in folds for p in s.test}) == 1920  # one problem is in no test fold
    assert [p.meta["fold"] for p in folds[2].test[:1]] == [2]
    assert _mismatches(everything) == MAWPS_ANSWER_MISMATCHES


def test_cv_asdiv_a_folds_and_ids() -> None:
    folds = load_cv("asdiv-a")
    assert [len(s.test) for s in folds] == [238, 238, 238, 237, 266]
    assert [len(s.train) for s in folds] == [979, 979, 979, 980, 951]
    everything = _everything(folds)
    assert unjoined_rows("asdiv-a") == []
    assert len({p.id for s in folds for p in s.test}) == 1217
    assert folds[0].test[0].id == "nluds-0001" and folds[0].test[0].meta["grade"] == 1
    assert _mismatches(everything) == set()


@pytest.mark.parametrize("dataset", ["mawps", "asdiv-a"])
def test_same_problem_same_id_in_every_fold(dataset: str) -> None:
    content = defaultdict(set)
    for p in _everything(load_cv(dataset)):
        content[p.id].add((p.text.lower(), p.numbers, p.prefix))
    assert [i for i, versions in content.items() if len(versions) > 1] == []


def test_cv_row_is_unmasked_with_slots() -> None:
    first = load_cv("mawps")[0].test[0]
    assert first.id == "mawps-3238"
    assert first.body.endswith("If Bryan has 56 books in each of his 9 bookshelves ,")
    assert first.question == "how many books does he have in total ?"
    assert (first.numbers, first.prefix, first.answer) == (("56", "9"), ("*", "N0", "N1"), 504.0)
    assert first.source == "svamp/data/cv_mawps/fold0/dev.csv#row0"
    assert first.meta["group_nums"][:3] == (12, 13, 14)


@pytest.mark.parametrize("dataset", ["mawps", "asdiv-a"])
def test_cv_without_questions_keeps_ids_and_gold(dataset: str) -> None:
    full, bare = load_cv(dataset), load_cv(dataset, without_questions=True)
    for a, b in zip(full, bare):
        assert [p.id for p in a.test] == [p.id for p in b.test] and a.train == b.train
        assert all(p.question == "" and p.meta["question_removed"] for p in b.test)
        assert [(p.numbers, p.prefix) for p in a.test] == [(p.numbers, p.prefix) for p in b.test]
        # the released body-only text is exactly the Body column of the file with questions
        assert [p.body for p in a.test] == [p.body for p in b.test]


# ---------------------------------------------------------------------------------- MAWPS+ASDiv-A → SVAMP

def test_mawps_asdiv_to_svamp() -> None:
    split = load_mawps_asdiv_svamp()
    assert (len(split.train), len(split.test)) == (3138, 1000)
    assert Counter(p.id.split("-")[0] for p in split.train) == {"mawps": 1921, "nluds": 1217}
    assert unjoined_rows("mawps-asdiv-a_svamp") == []
    svamp = {p.id: p for p in load_svamp()}
    assert sorted(p.id for p in split.test) == sorted(svamp)
    # the row → id join agrees with SVAMP.json on the variation codes of every problem
    assert all(p.meta["variation_codes"] == svamp[p.id].meta["variation_codes"] for p in split.test)
    assert _mismatches(split.test) == set()
    assert _mismatches(split.train) == MAWPS_ANSWER_MISMATCHES
    bare = load_mawps_asdiv_svamp(without_questions=True)
    assert [p.id for p in bare.test] == [p.id for p in split.test]


def test_cv_svamp_augmented_covers_svamp_once() -> None:
    folds = load_cv_svamp_augmented()
    assert [len(s.test) for s in folds] == [206, 218, 227, 165, 184]
    assert [len(s.train) for s in folds] == [3932, 3920, 3911, 3973, 3954]
    test_ids = [p.id for s in folds for p in s.test]
    assert sorted(test_ids) == sorted(f"chal-{i}" for i in range(1, 1001))
    assert unjoined_rows("cv_svamp_augmented") == []
    assert all(len([p for p in s.train if p.id.startswith("chal-")]) == 1000 - len(s.test) for s in folds)


def test_unjoinable_rows_get_stable_fallback_ids() -> None:
    row = {"Question": "", "Numbers": "3 4", "Equation": "+ number0 number1", "Answer": "7.0", "group_nums": "[]",
           "Body": "ann has number0 red pens and number1 blue pens .", "Ques_Statement": "how many pens ?"}
    rows = [_parse_row(row, f"test.csv#row{i}", body_only=False) for i in range(3)]
    assert rows[0].text == "ann has 3 red pens and 4 blue pens . how many pens ?"
    pool = [_Candidate("x-1", "Ann has 3 red pens and 4 blue pens. How many pens?", ("3", "4"), None),
            _Candidate("x-2", "Bob sold 9 kites at the fair today .", ("9",), None)]
    problems = _problems(rows, pool, "x", {})
    assert [p.meta["join"] for p in problems] == ["exact", "unjoined", "unjoined"]
    assert problems[0].id == "x-1"
    fallback = [p.id for p in problems[1:]]
    assert fallback[0].startswith("x-unjoined-") and fallback[1] == fallback[0] + "-2"
    assert [p.id for p in _problems(rows, pool, "x", {})] == [p.id for p in problems]


def test_text_only_join_drops_masks_digits_and_number_words() -> None:
    """ASDiv spells out numbers that SVAMP's CSVs mask: the cardinal words up to "million" and "half" are dropped."""
    words = _words("Seven hundred and half a Million, number0 or 12 billion eggs")
    assert words == ("and", "a", "or", "billion", "eggs")


def test_unknown_dataset_is_rejected() -> None:
    with pytest.raises(ValueError, match="unknown"):
        load_cv("math23k")  # type: ignore[arg-type]


# -------------------------------------------------------------------------------------------- checksums

@pytest.fixture
def data_copy(tmp_path, monkeypatch):
    """A copy of the manifest and SVAMP.json under a temporary DATA root."""
    (tmp_path / "svamp").mkdir()
    shutil.copy(paths.DATA / checksums.MANIFEST, tmp_path / checksums.MANIFEST)
    shutil.copy(paths.DATA / "svamp/SVAMP.json", tmp_path / "svamp/SVAMP.json")
    monkeypatch.setattr(paths, "DATA", tmp_path)
    return tmp_path


def test_checksum_accepts_intact_copy(data_copy) -> None:
    assert data_file("svamp/SVAMP.json") == data_copy / "svamp/SVAMP.json"


def test_checksum_rejects_tampered_file(data_copy) -> None:
    target = data_copy / "svamp/SVAMP.json"
    target.write_bytes(target.read_bytes().replace(b'"Answer": 51.0', b'"Answer": 52.0', 1))
    with pytest.raises(DataError, match=r"SVAMP\.json.*expected sha256 [0-9a-f]{64}, actual [0-9a-f]{64}"
                                        r".*data/README\.md"):
        data_file("svamp/SVAMP.json")


def test_checksum_rejects_missing_and_unlisted_files(data_copy) -> None:
    with pytest.raises(DataError, match="cv_mawps/fold0/dev.csv: data file missing"):
        data_file("svamp/data/cv_mawps/fold0/dev.csv")
    (data_copy / "svamp/extra.json").write_text("{}")
    with pytest.raises(DataError, match="not listed"):
        data_file("svamp/extra.json")


def test_malformed_manifest_line_is_named(data_copy) -> None:
    manifest_path = data_copy / checksums.MANIFEST
    lines = manifest_path.read_text().splitlines()
    manifest_path.write_text("\n".join([*lines, "not-a-digest svamp/x.json"]) + "\n")
    with pytest.raises(DataError, match=rf"CHECKSUMS\.sha256:{len(lines) + 1}: malformed line"):
        checksums.manifest()


def test_a_short_or_long_csv_row_is_named(tmp_path, monkeypatch) -> None:
    from mwplib.data import svamp

    header = "Question,Numbers,Equation,Answer,Body\n"
    for row, fields in (("q,1 2,+ number0 number1,3\n", 4), ("q,1 2,+ number0 number1,3,b,x,y\n", 7)):
        path = tmp_path / "rows.csv"
        path.write_text(header + "q,1 2,+ number0 number1,3,b\n" + row)
        monkeypatch.setattr(svamp, "data_file", lambda relpath: path)
        with pytest.raises(DataError, match=rf"x\.csv#row1: {fields} fields, the header has 5"):
            svamp._read_csv("x.csv")


def test_hostile_records_in_own_data_mode_are_named_data_errors(monkeypatch) -> None:
    """A copy of data/ with its checksums rewritten (own data) must fail by name, never with a raw KeyError /
    TypeError, and never pass a bad answer through (issue #35's fuzz)."""
    from mwplib.data import mawps, svamp
    from mwplib.derivation import datasets as derivations

    good = {"Question": "q", "Numbers": "1 2", "Equation": "+ number0 number1", "Answer": "3", "Body": "b"}
    for field, value, reason in [("Answer", "nan", "finite"), ("Answer", "true", "not a number"),
                                 ("Answer", "1e400", "finite"), ("group_nums", "null", "not a JSON list"),
                                 ("Grade", "x", "cannot parse row")]:
        with pytest.raises(DataError, match=rf"rows\.csv#row0: .*{reason}"):
            svamp._parse_row({**good, field: value}, "rows.csv#row0", False)
    record = {"ID": "chal-1", "Body": "Tom has 3 apples.", "Question": "How many?", "Equation": "( 3.0 )",
              "Answer": 3.0, "Type": "Addition"}
    monkeypatch.setattr(svamp, "_variation_meta", lambda: {"chal-1": {}})
    for hostile, reason in [({**record, "Body": None}, "must be text"), ({**record, "Answer": True}, "must be a number"),
                            ({**record, "Answer": float("nan")}, "finite"), ("chal-1", "not an object")]:
        monkeypatch.setattr(svamp, "read_json", lambda relpath, hostile=hostile: [hostile])
        with pytest.raises(DataError, match=reason):
            svamp._svamp_json.__wrapped__()
    mawps_record = {"iIndex": 7, "sQuestion": "Tom has 3 apples. How many?", "lEquations": ["x=3"], "lSolutions": [3]}
    for hostile, reason in [({**mawps_record, "lEquations": "x=3"}, "list of equations"),
                            ({**mawps_record, "lSolutions": "30"}, "list of one solution"),
                            ({**mawps_record, "lSolutions": [True]}, "must be a number"),
                            ({**mawps_record, "lSolutions": [1e308 * 10]}, "finite"),
                            ({**mawps_record, "sQuestion": None}, "malformed record")]:
        with pytest.raises(DataError, match=reason):
            mawps._problem(hostile, "mawps-7", "mawps.json#iIndex=7", {})
    assert mawps._problem(mawps_record, "mawps-7", "m", {}).answer == 3.0
    for value in ("inf", "nan", True, None, float("inf")):
        with pytest.raises(DataError, match="draw.json#1: alignment Value must be (a number|finite)"):
            derivations._annotated_value(value, "alignment Value", "draw.json#1")


def test_an_invalid_utf8_csv_is_named(tmp_path, monkeypatch) -> None:
    from mwplib.data import svamp

    path = tmp_path / "rows.csv"
    path.write_bytes(b"Question,Numbers,Equation,Answer,Body\nq \xff,1 2,+ number0 number1,3,b\n")
    monkeypatch.setattr(svamp, "data_file", lambda relpath: path)
    with pytest.raises(DataError, match=r"x\.csv: unreadable \(UnicodeDecodeError"):
        svamp._read_csv("x.csv")
