"""A seeded fuzz of the shipped loaders' record parsers in own-data mode (issue #35): every mutated record gives a
Problem or a DataError naming its source, never another exception, each in under a second."""
from __future__ import annotations

import copy
import json
import random
import time
import xml.etree.ElementTree as ET
from collections import Counter
from typing import Any, Callable

import pytest

from mwplib.data import DataError, asdiv, derivations, math23k, mawps, svamp
from mwplib.problem import Problem

HOSTILE: list[Any] = [None, True, False, 0, -1, float("inf"), float("nan"), 1e308, "", " ", "x", "9" * 5000, [], {},
                      [1], ["x=1"], "((((", "1e400", "NaN", "-5", "3/0", "x=x", "x = 1 = 2", "\x00", "💥" * 3]
TEXTS = ["", " ", "x", "9" * 5000, "((((", "1e400", "NaN", "-5", "3/0", "\xff", "💥", "number9", "1,000,000th"]


def _mutate(record: dict[str, Any], rng: random.Random, values: list[Any]) -> dict[str, Any]:
    out = copy.deepcopy(record)
    for _ in range(rng.randint(1, 3)):
        field = rng.choice(list(out))
        out[field] = rng.choice(values)
    return out


def _fuzz(parse: Callable[[Any], Any], records: list[Any]) -> Counter:
    outcomes: Counter = Counter()
    for record in records:
        started = time.perf_counter()
        try:
            problem = parse(record)
        except DataError as error:
            assert str(error), record
            outcomes["refused"] += 1
        else:  # a Problem (a CSV row: its parsed row), its issues listed where it has any
            assert problem.answer is None or abs(problem.answer) < float("inf")
            outcomes["listed" if problem.meta.get("issues") else "loaded"] += 1
        assert time.perf_counter() - started < 1.0, record
    return outcomes


def test_svamp_csv_rows(monkeypatch) -> None:
    rng = random.Random(1)
    good = {"Question": "tom has number0 apples . how many ?", "Numbers": "3 4", "Equation": "+ number0 number1",
            "Answer": "7", "Body": "tom has number0 apples and number1 pears .", "Ques": "how many ?",
            "group_nums": "[1, 2]", "Grade": "2", "Type": "Addition"}
    rows = [_mutate(good, rng, TEXTS) for _ in range(200)]
    outcomes = _fuzz(lambda row: svamp._parse_row(row, "x.csv#row0", False), rows)
    assert outcomes["refused"] > 50


def test_svamp_json_records(monkeypatch) -> None:
    rng = random.Random(2)
    good = {"ID": "chal-1", "Body": "Tom has 3 apples.", "Question": "How many?", "Equation": "( 3.0 )",
            "Answer": 3.0, "Type": "Addition"}
    monkeypatch.setattr(svamp, "_variation_meta", lambda: {"chal-1": {}})

    def parse(record: Any) -> Problem:
        monkeypatch.setattr(svamp, "read_json", lambda relpath: [record])
        return svamp._svamp_json.__wrapped__()[0]

    outcomes = _fuzz(parse, [_mutate(good, rng, HOSTILE) for _ in range(200)])
    assert outcomes["refused"] > 100 and outcomes["loaded"] + outcomes["listed"] > 0


def test_mawps_records() -> None:
    rng = random.Random(3)
    good = {"iIndex": 7, "sQuestion": "Tom has 3 apples and 4 pears. How many?", "lEquations": ["x=3+4"],
            "lSolutions": [7.0]}
    outcomes = _fuzz(lambda record: mawps._problem(record, "mawps-7", "m#7", {}),
                     [_mutate(good, rng, HOSTILE) for _ in range(200)])
    assert outcomes["refused"] > 50


def test_asdiv_elements() -> None:
    rng = random.Random(4)
    xml = ('<Problem ID="nluds-1" Grade="2" Source="x"><Body>Tom has 3 apples and 4 pears.</Body>'
           '<Question>How many?</Question><Solution-Type>Addition</Solution-Type><Answer>7 (fruits)</Answer>'
           '<Formula>3+4=7</Formula></Problem>')

    def element(_: int) -> ET.Element:
        root = ET.fromstring(xml)
        for _ in range(rng.randint(1, 3)):
            child = rng.choice([*root, None])
            if child is None:
                root.set(rng.choice(["Grade", "ID"]), rng.choice(TEXTS))
            elif rng.random() < 0.3:
                root.remove(child)
            else:
                child.text = rng.choice(TEXTS)
        return root

    outcomes = _fuzz(lambda el: asdiv._problem(el, 0), [element(i) for i in range(200)])
    assert outcomes["refused"] > 20


def test_math23k_records() -> None:
    rng = random.Random(5)
    good = {"id": "10", "original_text": "小明有3个苹果，又买了4个，一共有多少个？", "segmented_text": "小明 有 3 个",
            "equation": "x=3+4", "ans": "7"}
    outcomes = _fuzz(lambda record: math23k._problem(record, ("train",), "math23k#10"),
                     [_mutate(good, rng, HOSTILE) for _ in range(200)])
    assert outcomes["refused"] > 20


@pytest.mark.parametrize("loader", ["svamp csv", "mawps", "asdiv", "math23k"])
def test_loader_names_its_source(loader) -> None:
    """The refusals above name where the record came from (the source given to the parser; SVAMP.json's: above)."""
    cases = {"svamp csv": lambda: svamp._parse_row({"Question": "q", "Numbers": "1", "Equation": "+ number0",
                                                   "Answer": "x", "Body": "b"}, "x.csv#row0", False),
             "mawps": lambda: mawps._problem({"sQuestion": None}, "mawps-7", "m#7", {}),
             "math23k": lambda: math23k._problem({"id": 1}, ("train",), "math23k#1"),
             "asdiv": lambda: asdiv._problem(ET.fromstring('<Problem ID="nluds-1"/>'), 0)}
    with pytest.raises(DataError, match=r"x\.csv#row0|m#7|math23k#1|nluds-1"):
        cases[loader]()


def test_derivation_records(monkeypatch, tmp_path) -> None:
    """DRAW-1K / ALG-514 / DOLPHIN-L records through the loader's own record loop (`_load`), top-level fields
    and alignment rows mutated alike."""
    rng = random.Random(6)
    good = {"sQuestion": "7 audio cassettes and 3 video cassettes cost rs 1110 .", "lSolutions": [30.0, 300.0],
            "Template": ["a * m + b * n = c"], "lEquations": ["(7.0*x)+(3.0*y)=1110.0"], "iIndex": 5484,
            "Alignment": [{"coeff": "a", "SentenceId": 0, "Value": 7.0, "TokenId": 0},
                          {"coeff": "b", "SentenceId": 0, "Value": 3.0, "TokenId": 4},
                          {"coeff": "c", "SentenceId": 0, "Value": 1110.0, "TokenId": 9}],
            "Equiv": [[[0, 0, 7.0]]]}
    file = tmp_path / "records.json"
    monkeypatch.setattr(derivations, "data_file", lambda relpath: file)

    def parse(record: Any) -> Problem:
        file.write_text(json.dumps([record]), encoding="utf-8")
        return derivations._load.__wrapped__("alg514")[0][0]

    records = []
    for _ in range(200):
        record = _mutate(good, rng, HOSTILE)
        rows = record.get("Alignment")
        if rng.random() < 0.5 and isinstance(rows, list) and rows and all(isinstance(r, dict) for r in rows):
            row = rng.randrange(len(rows))
            rows[row] = _mutate(rows[row], rng, HOSTILE)
        records.append(record)
    outcomes = _fuzz(parse, records)
    assert outcomes["refused"] > 100 and outcomes["loaded"] > 0
