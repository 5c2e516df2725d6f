"""MAWPS, ASDiv-A and Math23K loaders and the generated data/README.md."""
from __future__ import annotations

import re

import pytest

from mwplib import paths
from mwplib.data.asdiv import asdiv_issues, load_asdiv_a, load_asdiv_a_problems
from mwplib.data.checksums import DataError
from mwplib.data.gold import ANSWER_MISMATCH, NO_EXPRESSION, NUMBER_NOT_IN_TEXT, issue_kind, issue_list
from mwplib.data.inventory import ORIGINS, data_inventory, manifest, origin, readme_markdown
from mwplib.data.math23k import (PUBLIC_TEST, load_math23k, load_math23k_public_test, math23k_issues,
                                 read_json_stream)
from mwplib.data.mawps import load_mawps_2373, load_mawps_subsets, mawps_issues
from mwplib.expr import answers_match, evaluate, is_slot, parse_prefix, slot_index
from mwplib.numbers import unmask
from mwplib.problem import Problem

# MAWPS problems (iIndex) whose unknown occurs more than once or whose equation is malformed.
MAWPS_NO_EXPRESSION = {f"mawps-{i}" for i in (
    "263 428 442 471 483 484 497 504 505 506 522 523 531 543 551 556 575 590 602 604 627 636 640 650 667 668 "
    "669 682 687 690 692 700 704 707 725 737 742 755 761 779 788 797 799 805 806 807 816 818 849 859 863 877 "
    "884 886 898 902 907 909 911 968 973 974 979 985 997 1023 1032 1036 1043 1057 1059 1061 1063 1064 1110 "
    "1114 1124 1128 1138 1173 1193 1463 1465 1467 1494 1495 1507 1508 1520 1528 1530 1532 1533 1541 1544 "
    "1562 1567 1569 1574 1595 1600 1601 1618 1619 1631 1637 1642 1660 1664 1681 1683 1684 1685 1689 1691 "
    "1695 1709 1712 1725 1738 1740 1744 1751 1759 1814 1829 1847 1857 1866 1870 1909 1916 1918 1924 1944 "
    "1968 1977 1982 1986 1999 3036").split()}
# MAWPS problems whose gold answer is rounded or wrong (e.g. 523+x=750 with answer 218).
MAWPS_ANSWER_MISMATCH = {f"mawps-{i}" for i in (
    "3340 730 3165 1967 1940 3177 3327 1716 1853 1656 3162 3307 3100 709 2004 1818 3124 1659 965 3298 1472 "
    "3071 899 3330 3253 1840").split()}
SUBSET_NO_EXPRESSION = {"addsub-264", "singleeq-191"}
SUBSET_ANSWER_MISMATCH = {f"singleeq-{i}" for i in (226, 255, 317, 320, 332, 408, 453, 462, 482, 485, 495)}


def _ids(issues: list[tuple[str, str]], kind: str) -> set[str]:
    return {problem_id for problem_id, issue in issues if issue_kind(issue) == kind}


def _wrong_answers(problems: list[Problem]) -> set[str]:
    """Problems with a prefix whose value on the text numbers misses the gold (computed independently of
    the loaders' own check: via numbers.unmask rather than slot bindings)."""
    wrong = set()
    for problem in problems:
        if problem.prefix and not answers_match(evaluate(unmask(parse_prefix(problem.prefix), problem.numbers)),
                                                problem.answer):
            wrong.add(problem.id)
    return wrong


def _subset_problems() -> list[Problem]:
    return [problem for problems in load_mawps_subsets().values() for problem in problems]


# ------------------------------------------------------------------------------------------------ counts

def test_mawps_2373_count_and_ids() -> None:
    problems = load_mawps_2373()
    assert len(problems) == 2373
    assert len({p.id for p in problems}) == 2373
    assert all(re.fullmatch(r"mawps-\d+", p.id) for p in problems)
    assert sum(p.meta["kept_by_graph2tree"] for p in problems) == 1921
    assert {p.meta["graph2tree_fold"] for p in problems if p.meta["kept_by_graph2tree"]} == {0, 1, 2, 3, 4}


def test_mawps_subset_counts() -> None:
    subsets = load_mawps_subsets()
    assert {name: len(problems) for name, problems in subsets.items()} == {
        "AddSub": 395, "SingleOp": 562, "MultiArith": 600, "SingleEq": 508}
    assert subsets["AddSub"][0].id == "addsub-1" and subsets["AddSub"][0].equation == "X = 70 - 27"


def test_asdiv_a_counts_and_folds() -> None:
    problems, splits = load_asdiv_a_problems(), load_asdiv_a()
    assert len(problems) == 1218 and len({p.id for p in problems}) == 1218
    assert [len(split.test) for split in splits] == [238, 238, 238, 238, 266]
    for k, split in enumerate(splits):
        assert len(split.train) + len(split.test) == 1218
        assert {p.meta["fold"] for p in split.test} == {k}
        assert k not in {p.meta["fold"] for p in split.train}


def test_math23k_counts() -> None:
    union, public = load_math23k(), load_math23k_public_test()
    assert len(union) == 6234 and len({p.id for p in union}) == 6234
    assert len(public) == 1000
    assert all(PUBLIC_TEST in p.meta["sources"] for p in public)
    assert sum(PUBLIC_TEST in p.meta["sources"] for p in union) == 1000


# ------------------------------------------------------------------------------------------- gold prefix

def test_mawps_gold_matches_answers_except_listed() -> None:
    problems = load_mawps_2373()
    issues = issue_list(problems)
    assert {p.id for p in problems if not p.prefix} == _ids(issues, NO_EXPRESSION) == MAWPS_NO_EXPRESSION
    assert _wrong_answers(problems) == _ids(issues, ANSWER_MISMATCH) == MAWPS_ANSWER_MISMATCH
    # an equation number the text lacks is listed, e.g. "Sally saw 1 dozen birds": 1 * 12
    assert "mawps-3023" in _ids(issues, NUMBER_NOT_IN_TEXT)
    assert all(p.id in _ids(issues, NUMBER_NOT_IN_TEXT) for p in problems if any(
        not t.startswith("N") and t not in "+-*/^" for t in p.prefix))


def test_mawps_subsets_gold_matches_answers_except_listed() -> None:
    problems = _subset_problems()
    issues = issue_list(problems)
    assert {p.id for p in problems if not p.prefix} == _ids(issues, NO_EXPRESSION) == SUBSET_NO_EXPRESSION
    assert _wrong_answers(problems) == _ids(issues, ANSWER_MISMATCH) == SUBSET_ANSWER_MISMATCH
    assert set(mawps_issues()) == set(issue_list(load_mawps_2373())) | set(issues)


def test_asdiv_gold_matches_answers_except_floor_and_ceil_divisions() -> None:
    problems = load_asdiv_a_problems()
    issues = asdiv_issues()
    rounded = {p.id for p in problems if p.meta["type"] in ("Floor-Division", "Ceil-Division")}
    assert len(rounded) == 28
    assert all(p.prefix for p in problems) and not _ids(issues, NO_EXPRESSION)
    assert _wrong_answers(problems) == _ids(issues, ANSWER_MISMATCH) == rounded
    assert _ids(issues, NUMBER_NOT_IN_TEXT) == {"nluds-1358"}  # "Bob and his 4 friends": 8*(1+4)


def test_math23k_gold_matches_answers_except_listed() -> None:
    problems = load_math23k()
    issues = math23k_issues()
    assert {p.id for p in problems if not p.prefix} == _ids(issues, NO_EXPRESSION) == {"10431"}
    assert _wrong_answers(problems) == _ids(issues, ANSWER_MISMATCH) == {"9718"}


@pytest.mark.parametrize("load", [load_mawps_2373, _subset_problems, load_asdiv_a_problems, load_math23k],
                         ids=["mawps", "subsets", "asdiv-a", "math23k"])
def test_slots_point_at_text_numbers(load) -> None:
    for problem in load():
        slots = [slot_index(token) for token in problem.prefix if is_slot(token)]
        assert all(index < len(problem.numbers) for index in slots), problem.id


def test_asdiv_number_words_become_slots() -> None:
    problem = {p.id: p for p in load_asdiv_a_problems()}["nluds-0001"]
    assert problem.body == "7 red apples and 2 green apples are in the basket."
    assert problem.numbers == ("7", "2") and problem.prefix == ("+", "N0", "N1") and problem.answer == 9


def test_math23k_fraction_and_percent_map_onto_text() -> None:
    problems = {p.id: p for p in load_math23k()}
    fraction = problems["13031"]  # 一段布剪去6米，正好剪去这段布的(2/5) ... x=6/(2/5)-6
    assert fraction.numbers == ("6", "0.4") and fraction.prefix == ("-", "/", "N0", "N1", "N0")
    percent = problems["33"]  # x=35/((2/3)+45%-1)
    assert percent.numbers == ("2/3", "45", "35")
    assert percent.prefix == ("/", "N2", "-", "+", "N0", "/", "N1", "100", "1")


# ----------------------------------------------------------------------------------------- stream parser

def test_json_stream_reads_concatenated_objects(tmp_path) -> None:
    path = tmp_path / "stream.json"
    path.write_text('{\n "id": "1"\n}\n{\n "id": "2"\n}\n', encoding="utf-8")
    assert read_json_stream(path) == [{"id": "1"}, {"id": "2"}]


def test_json_stream_error_names_file_and_offset(tmp_path) -> None:
    path = tmp_path / "broken.json"
    path.write_text('{"id": "1"}\n{"id": 2,, "x": 1}\n', encoding="utf-8")
    with pytest.raises(DataError, match=rf"{re.escape(str(path))}: invalid JSON value 1 at offset 21"):
        read_json_stream(path)


# ---------------------------------------------------------------------------------------------- README

def test_every_manifest_file_has_a_provenance_found_in_sources() -> None:
    sources = (paths.DATA / "SOURCES.md").read_text(encoding="utf-8")
    for relpath in manifest():
        rule = origin(relpath)
        if rule.commit != "–":
            assert rule.repository in sources and rule.commit in sources, relpath
    assert all(any(relpath.startswith(rule.prefix) for relpath in manifest()) for rule in ORIGINS)


def test_readme_lists_every_file_with_its_checksum() -> None:
    readme = (paths.DATA / "README.md").read_text(encoding="utf-8")
    rows = {line.split("|")[1].strip(): line for line in readme.splitlines() if line.startswith("| ")}
    entries = manifest()
    assert len(entries) == 105
    for relpath, digest in entries.items():
        assert relpath in rows and digest in rows[relpath], relpath


def test_readme_is_up_to_date() -> None:
    assert (paths.DATA / "README.md").read_text(encoding="utf-8") == readme_markdown(), \
        "data/README.md is stale: run `python -m mwplib.data.inventory`"


def test_inventory_counts_records() -> None:
    inventory = data_inventory()
    counts = dict(zip(inventory["file"], inventory["records"]))
    assert counts["asdiv/dataset/ASDiv.xml"] == 2305
    assert counts["math23k/public_test/math23k_test.json"] == 1000
    assert counts["svamp/data/cv_mawps/fold0/dev.csv"] == 384
