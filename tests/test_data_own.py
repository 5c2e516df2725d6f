"""Your own problems: the documented format loads, every bad record is refused by name, and a fuzz finds no crash and
no silently accepted bad record."""
from __future__ import annotations

import json
import random
import time

import pytest

from mwplib import runs
from mwplib.__main__ import main
from mwplib.data import DataError, check_problems, load_problems, own_splits
from mwplib.numbers import format_number
from mwplib.problem import Problem

from test_data_fuzz import gold_faults, written

GOOD = {"id": "p1", "text": "Sam has 12 marbles. He gives 5 marbles to Ann. How many marbles does Sam have now?",
        "equation": "x = 12 - 5", "answer": 7, "fold": 0}


def _jsonl(tmp_path, *records, name="mine.jsonl"):
    path = tmp_path / name
    path.write_bytes(b"\n".join(r if isinstance(r, bytes) else json.dumps(r).encode() for r in records) + b"\n")
    return path


def test_the_documented_format_loads_as_the_shipped_loaders_do(tmp_path) -> None:
    path = _jsonl(tmp_path, GOOD, {"id": "p2", "body": "A box holds 4 rows of 6 eggs.", "question": "How many eggs?",
                                   "equation": "4 * 6", "answer": 24.0, "type": "Multiplication", "fold": 1},
                  {"id": "p3", "text": "Tom has 3 dollars. How many cents is that?",
                   "equation": "x = 3 * 100", "answer": 300, "constants": [100], "fold": 1})
    first, second, third = load_problems(path)
    assert first.question.startswith("How many") and first.numbers == ("12", "5")
    assert first.prefix == ("-", "N0", "N1") and first.meta["fold"] == 0 and first.source.endswith("mine.jsonl:1")
    assert second.prefix == ("*", "N0", "N1") and second.meta["type"] == "Multiplication"
    assert third.prefix == ("*", "N0", "100")
    splits = own_splits(path)
    assert [s.name for s in splits] == ["mine-fold0", "mine-fold1"] and [len(s.test) for s in splits] == [1, 2]
    assert runs.dataset_key(str(path)) == "mine" and runs.dataset_splits(str(path)) == splits
    csv_path = tmp_path / "mine.csv"
    csv_path.write_text("id,text,body,question,equation,answer,fold\np1,\"Sam has 12 marbles, gives 5 away. How many "
                        "left?\",,,12 - 5,7,0\np2,Sam has 12 marbles.,,,12 - 5,\"7,0\",1\n")
    loaded, refused = check_problems(csv_path)  # empty cells are no value; "7,0" is no number (it was read as 70)
    assert [p.answer for p in loaded] == [7.0] and "answer '7,0' is not a number" in refused[0].reason


BAD = [  # (record, the reason's words)
    ({**GOOD, "answer": 8}, "gold answer is 8"),
    ({**GOOD, "answer": float("nan")}, "finite"),
    ({**GOOD, "answer": True}, "must be a number"),
    ({**GOOD, "answer": "7"}, "must be a number"),
    ({**GOOD, "equation": "x = 12 - 4"}, "4 is not in the text"),
    ({**GOOD, "equation": "x = 12 -"}, "cannot be used"),
    ({**GOOD, "equation": ["12 - 5"]}, "equation must be text"),
    ({**GOOD, "text": None}, "text must be text"),
    ({**GOOD, "fold": -1}, "fold must be an integer"),
    ({**GOOD, "fold": "0"}, "fold must be an integer"),
    ({**GOOD, "fold": None}, "fold must be an integer >= 0, got None"),  # loaded as if no fold had been given
    ({**GOOD, "body": ""}, "gives text and body: give text, or body and question, not both"),  # body was ignored
    ({**GOOD, "question": "How many?"}, "gives text and question"),
    ({**GOOD, "constants": "0.25"}, "constants must be a list"),
    ({k: v for k, v in GOOD.items() if k != "answer"}, "missing answer"),
    ({k: v for k, v in GOOD.items() if k != "text"}, "missing text (or body and question)"),
    ({**GOOD, "id": 7}, "id must be text"),
    ({**GOOD, "equation": "x = " + "+".join(["12"] * 1500)}, "cannot be used"),  # too deep to recurse into
    ([GOOD], "expected an object"),
    (b"{broken", "not JSON"),
    (b"\xff\xfe", "not valid UTF-8"),
    (b"[" * 100000, "not JSON"),
    (b'{"id": "big", "answer": ' + b"9" * 5000 + b"}", "not JSON"),
    ({**GOOD, "text": "Sam has " + "9" * 4400 + " marbles."}, "cannot be read"),
    # issue 48: forms read as another number (1.2e3 as 1.2, 12² as 12, 2,5 as 2 and 5) are refused, not misread
    ({**GOOD, "text": "A school has 1.2e3 students and 30 classes.", "equation": "x = 1.2 / 30", "answer": 0.04},
     "exponent notation is not read"),
    ({**GOOD, "text": "A square of 12² tiles loses 5.", "equation": "x = 12 - 5"}, "superscript power"),
    ({**GOOD, "text": "Pour 2,5 liters and 5 more.", "equation": "x = 2 + 5"}, "'2,5' is read as two numbers"),
    ({**GOOD, "constants": [1] * 1001}, "at most 1000"),
    (b'{"id": "d", "text": "Sam has 12 marbles and gives 5.", "equation": "x = 12 - 5", "answer": 8, "answer": 7}',
     "gives ['answer'] twice"),
]


@pytest.mark.parametrize("record, reason", BAD, ids=[r for _, r in BAD])
def test_each_bad_record_is_refused_with_its_file_line_id_and_reason(tmp_path, record, reason) -> None:
    path = _jsonl(tmp_path, {**GOOD, "id": "ok"}, record)
    loaded, refused = check_problems(path)
    assert [p.id for p in loaded] == ["ok"] and len(refused) == 1
    assert refused[0].line == 2 and reason in refused[0].reason, refused[0]
    with pytest.raises(DataError, match=r"mine.jsonl: 1 of 2 records refused"):
        load_problems(path)
    assert load_problems(path, strict=False) == loaded


def test_whole_file_faults_and_duplicates(tmp_path) -> None:
    path = _jsonl(tmp_path, GOOD, GOOD)
    assert "already used on line 1" in check_problems(path)[1][0].reason
    (tmp_path / "dup.csv").write_text("id,text,equation,answer,answer\np,Tom has 3 apples.,3,3,4\n")
    for name, message in [("dup.csv", "repeats \\['answer'\\]"), ("nothing.jsonl", "no such file"),
                          ("mine.txt", "expected a .jsonl or .csv")]:
        if name == "mine.txt":
            (tmp_path / name).write_text("x")
        with pytest.raises(DataError, match=message):
            check_problems(tmp_path / name)
    (tmp_path / "bad.csv").write_bytes(b"id,text,equation,answer\np,Tom \xff has 3.,3,3\n")
    with pytest.raises(DataError, match="bad.csv:2: not valid UTF-8"):
        check_problems(tmp_path / "bad.csv")
    with pytest.raises(DataError, match="no fold"):
        own_splits(_jsonl(tmp_path, {k: v for k, v in GOOD.items() if k != "fold"}, name="nofold.jsonl"))


def test_the_check_command_reports_every_record(tmp_path, capsys) -> None:
    path = _jsonl(tmp_path, GOOD, {**GOOD, "id": "p2", "answer": 9})
    assert main(["check", str(path)]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out[0].endswith("(id 'p1'): loaded") and "REFUSED" in out[1] and out[-1] == "1 loaded, 1 refused"


def _mutations(rng: random.Random) -> list:
    values = [None, True, -1, 0, 1e308, float("inf"), "", " ", "x", "12 - 5", "1/0", "((((", "9" * 400, [], {}, [1],
              "x = x", "x = 12 / 0", "x = 12 - 5 = 7", "\u0000", "💥", 10 ** 30]
    out = []
    for _ in range(300):
        record = dict(GOOD)
        for _ in range(rng.randint(1, 3)):
            field = rng.choice([*GOOD, "body", "question", "constants", "type"])
            if rng.random() < 0.2:
                record.pop(field, None)
            else:
                record[field] = rng.choice(values)
        out.append(record)
    return out


def _faults(problem: Problem, record: dict) -> list[str]:
    """Why `problem` is not a correct load of `record` (test_data_fuzz.gold_faults, and the fields as given)."""
    listed = record.get("constants", [])
    faults = gold_faults(problem, written(record["answer"]), {format_number(c) for c in listed})
    given = record["text"].split() if "text" in record else [*record["body"].split(), *record["question"].split()]
    if problem.id != " ".join(record["id"].split()) or problem.text.split() != given:
        faults.append("id or text not as given")
    if "text" in record and {"body", "question"} & record.keys():
        faults.append("body or question ignored beside text")
    if problem.meta.get("fold", "none") != record.get("fold", "none"):
        faults.append("fold not as given")
    if "type" in record and problem.meta["type"] != " ".join(record["type"].split()):
        faults.append("type not as given")
    return faults


def test_a_fuzz_of_records_loads_correctly_or_refuses_each_within_a_second(tmp_path) -> None:
    outcomes = {"loaded": 0, "refused": 0}
    for record in _mutations(random.Random(0)):
        path = _jsonl(tmp_path, record, name="fuzz.jsonl")
        started = time.perf_counter()
        loaded, refused = check_problems(path)  # never another exception
        assert time.perf_counter() - started < 1.0, record
        assert len(loaded) + len(refused) == 1 and all(r.reason for r in refused)
        assert all(_faults(problem, record) == [] for problem in loaded), (_faults(loaded[0], record), record)
        outcomes["loaded" if loaded else "refused"] += 1
    assert outcomes["loaded"] > 10 and outcomes["refused"] > 200  # both ways are exercised


def test_a_negative_number_in_the_text_is_read_with_its_sign(tmp_path) -> None:
    """Issue 48: "−5 degrees" was read as 5, so `x = -5 + 12` did not match its text."""
    record = {"id": "t", "text": "The temperature was −5 degrees and rose by 12. How warm is it now?",
              "equation": "x = -5 + 12", "answer": 7}
    problem = load_problems(_jsonl(tmp_path, record))[0]
    assert problem.numbers == ("-5", "12") and problem.prefix == ("+", "N0", "N1") and "-5 degrees" in problem.text


def test_records_read_as_written(tmp_path) -> None:
    """Issue 48: a byte-order mark lost a JSONL file's first record; a CSV fold "²" raised a bare ValueError and
    "٣" loaded as fold 3; an equation's 2.50 was refused as "not in the text" beside the text's "2.50"."""
    path = tmp_path / "bom.jsonl"
    path.write_bytes(b"\xef\xbb\xbf" + json.dumps(GOOD).encode() + b"\n")
    assert [p.id for p in load_problems(path)] == ["p1"]
    for fold in ("\u00b2", "\u0663"):
        (tmp_path / "f.csv").write_text(f"id,text,equation,answer,fold\np1,Sam has 12 marbles and gives 5. How many?,"
                                        f"x = 12 - 5,7,{fold}\n", encoding="utf-8")
        assert "fold must be an integer" in check_problems(tmp_path / "f.csv")[1][0].reason
    priced = {"id": "c", "text": "A pen costs 2.50 dollars. How much do 4 pens cost?", "equation": "x = 2.50 * 4",
              "answer": 10}
    assert load_problems(_jsonl(tmp_path, priced, name="priced.jsonl"))[0].prefix == ("*", "N0", "N1")
