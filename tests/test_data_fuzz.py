"""A seeded fuzz of the shipped loaders' record parsers in own-data mode (issue #35): every mutated record gives a
Problem or a DataError naming its source, never another exception, each in under a second; and a Problem that loads
without listed issues is a correct load of its record (`gold_faults` and the per-loader checks), never a silently
accepted bad one. docs/lab-notes/data-fuzz.md tabulates the outcomes."""
from __future__ import annotations

import copy
import itertools
import json
import math
import random
import re
import time
import xml.etree.ElementTree as ET
from collections import Counter
from typing import Any, Callable, Collection

import pytest

from mwplib.data import DataError, asdiv, math23k, mawps, svamp
from mwplib.data.gold import bindings, finite_number, text_numbers
from mwplib.derivation import datasets as derivations
from mwplib.derivation.derivations import gold_derivation
from mwplib.expr import (answers_match, evaluate, is_number, is_slot, parse_equation, parse_prefix, slot_index,
                         unknowns)
from mwplib.numbers import format_number, words_to_numbers
from mwplib.problem import Problem

HOSTILE: list[Any] = [None, True, False, 0, -1, float("inf"), float("nan"), 1e308, "", " ", "x", "9" * 5000, [], {},
                      [1], ["x=1"], "((((", "1e400", "NaN", "-5", "3/0", "x=x", "x = 1 = 2", "\x00", "💥" * 3]
TEXTS = ["", " ", "x", "9" * 5000, "((((", "1e400", "NaN", "-5", "3/0", "\xff", "💥", "number9", "1,000,000th"]

GOOD: dict[str, dict[str, Any]] = {
    "svamp csv": {"Question": "tom has number0 apples . how many ?", "Numbers": "3 4", "Equation": "+ number0 number1",
                  "Answer": "7", "Body": "tom has number0 apples and number1 pears .", "Ques": "how many ?",
                  "group_nums": "[1, 2]", "Grade": "2", "Type": "Addition"},
    "svamp json": {"ID": "chal-1", "Body": "Tom has 3 apples.", "Question": "How many?", "Equation": "( 3.0 )",
                   "Answer": 3.0, "Type": "Addition"},
    "mawps": {"iIndex": 7, "sQuestion": "Tom has 3 apples and 4 pears. How many?", "lEquations": ["x=3+4"],
              "lSolutions": [7.0]},
    "math23k": {"id": "10", "original_text": "小明有3个苹果，又买了4个，一共有多少个？",
                "segmented_text": "小明 有 3 个", "equation": "x=3+4", "ans": "7"},
    "derivations": {"sQuestion": "7 audio cassettes and 3 video cassettes cost rs 1110 .",
                    "lSolutions": [30.0, 300.0], "Template": ["a * m + b * n = c"],
                    "lEquations": ["(7.0*x)+(3.0*y)=1110.0"], "iIndex": 5484,
                    "Alignment": [{"coeff": "a", "SentenceId": 0, "Value": 7.0, "TokenId": 0},
                                  {"coeff": "b", "SentenceId": 0, "Value": 3.0, "TokenId": 4},
                                  {"coeff": "c", "SentenceId": 0, "Value": 1110.0, "TokenId": 9}],
                    "Equiv": [[[0, 0, 7.0]]]},
}
ASDIV_XML = ('<Problem ID="nluds-1" Grade="2" Source="x"><Body>Tom has 3 apples and 4 pears.</Body>'
             '<Question>How many?</Question><Solution-Type>Addition</Solution-Type><Answer>7 (fruits)</Answer>'
             '<Formula>3+4=7</Formula></Problem>')
#: A number written as text, read without coercion (no "1,2" → 12, no "1_000", no other scripts' digits).
_NUMERAL = re.compile(r"\s*-?(?:[0-9]{1,3}(?:,[0-9]{3})+|[0-9]+)(?:\.[0-9]+)?\s*|\s*-?\.[0-9]+\s*")


def _mutate(record: dict[str, Any], rng: random.Random, values: list[Any]) -> dict[str, Any]:
    out = copy.deepcopy(record)
    for _ in range(rng.randint(1, 3)):
        field = rng.choice(list(out))
        out[field] = rng.choice(values)
    return out


# ------------------------------------------------------------------------------- what a correct load is

def written(raw: Any, text: bool = False) -> float | None:
    """`raw` as the finite number it is written as: a JSON number (not a boolean) or, with `text`, a decimal numeral;
    None where any reading would be a coercion (``true`` → 1.0, ``["30"]``, ``"1,2"`` → 12) or is not finite."""
    if text and isinstance(raw, str) and _NUMERAL.fullmatch(raw):
        raw = float(raw.replace(",", ""))
    if isinstance(raw, bool) or not isinstance(raw, (int, float)):
        return None
    try:
        value = float(raw)
    except OverflowError:
        return None
    return value if math.isfinite(value) else None


def gold_faults(problem: Any, answer: float | None, constants: Collection[str] | None = ()) -> list[str]:
    """Why `problem` (a Problem or a SVAMP CSV row) is not a correct load of a record whose answer is written as
    `answer` (None: not written as a number): its answer differs, its gold expression does not parse or give the
    answer, a slot's number is not in the text, or a constant is not in `constants` (None: any)."""
    faults = []
    if answer is None or problem.answer != answer:
        faults.append("answer not as written")
    try:
        if not answers_match(evaluate(parse_prefix(problem.prefix), bindings(problem.numbers)), problem.answer):
            faults.append("gold does not give the answer")
    except ValueError:  # ExpressionError, or a literal past Python's digit limit
        faults.append("gold cannot be evaluated")
    try:
        in_text = set(text_numbers(problem.text))
    except DataError:
        in_text = set()
    slots = [slot_index(t) for t in problem.prefix if is_slot(t)]
    if {problem.numbers[k] for k in slots if k < len(problem.numbers)} - in_text:
        faults.append("a number of the gold is not in the text")
    if constants is not None and any(is_number(t) and format_number(t) not in constants for t in problem.prefix):
        faults.append("a constant of the gold is not listed")
    return faults


def _norm(text: str) -> str:
    return " ".join(text.split())


def _grade(raw: str) -> int | None:
    """A grade as written: a positive integer."""
    return int(raw) if re.fullmatch(r"\s*[0-9]{1,3}\s*", raw) and int(raw) >= 1 else None


def _csv_faults(row: Any, record: dict[str, str]) -> list[str]:
    faults = gold_faults(row, written(record["Answer"], text=True), constants=None)
    numbers = tuple(format_number(n) for n in record["Numbers"].split())
    body = "" if record["Body"].strip() == "Empty" else record["Body"]
    texts = [_norm(re.sub(r"\bnumber(\d+)\b", lambda m: numbers[int(m[1])], t)) for t in (body, record["Ques"])]
    if row.numbers != numbers or [row.body, row.question] != texts:
        faults.append("numbers or text not as given")
    if record.get("Grade") and row.meta.get("grade") != _grade(record["Grade"]):
        faults.append("grade not as written")
    if record.get("Type") and row.meta.get("type") != record["Type"]:
        faults.append("type not as given")
    return faults


def _svamp_json_faults(problem: Problem, record: dict[str, Any]) -> list[str]:
    faults = gold_faults(problem, written(record["Answer"]))
    if [problem.id, problem.body, problem.question, problem.equation, problem.meta["type"]] != [
            record["ID"], _norm(record["Body"]), _norm(record["Question"]), record["Equation"], record["Type"]]:
        faults.append("id or text not as given")
    return faults


def _mawps_faults(problem: Problem, record: dict[str, Any]) -> list[str]:
    solutions = record["lSolutions"]
    faults = gold_faults(problem, written(solutions[0], text=True) if len(solutions) == 1 else None)
    if type(record["iIndex"]) is not int or problem.id != f"addsub-{record['iIndex']}":
        faults.append("id not made of an integer iIndex")
    if problem.text != _norm(record["sQuestion"]) or problem.equation != "; ".join(record["lEquations"]):
        faults.append("text not as given")
    return faults


def _asdiv_faults(problem: Problem, element: ET.Element) -> list[str]:
    raw = {tag: _norm(element.findtext(tag) or "") for tag in ("Body", "Question", "Solution-Type", "Answer")}
    faults = gold_faults(problem, written(raw["Answer"].partition("(")[0].strip(), text=True))
    if not element.get("ID", "").strip() or problem.id != element.get("ID"):
        faults.append("id blank or not as given")
    if not all(raw.values()) or [problem.body, problem.question, problem.meta["type"]] != [
            words_to_numbers(raw["Body"])[0], words_to_numbers(raw["Question"])[0], raw["Solution-Type"]]:
        faults.append("a text blank or not as given")
    if problem.meta["grade"] != _grade(element.get("Grade", "")):
        faults.append("grade not as written")
    return faults


def _math23k_faults(problem: Problem, record: dict[str, Any]) -> list[str]:
    answer = record["ans"]
    try:
        value = math23k.answer_value(answer) if isinstance(answer, str) else written(answer)
    except ValueError:
        value = None
    faults = gold_faults(problem, value)
    if not isinstance(record["id"], str) or not record["id"].strip() or problem.id != record["id"]:
        faults.append("id blank or not as given")
    if problem.body != record["original_text"] or problem.meta["segmented_text"] != record["segmented_text"]:
        faults.append("text not as given")
    return faults


def _equations_hold(equations: list[str], solutions: list[float]) -> bool:
    """Whether the equations hold with their unknowns, in some order, set to the solutions (they do in each DRAW-1K,
    ALG-514 and DOLPHIN-L problem whose equations parse: 2,342 of 2,344)."""
    try:
        sides = [parse_equation(equation) for equation in equations]
        names = unknowns(*(side for pair in sides for side in pair))
        return bool(sides) and len(names) == len(solutions) and any(
            all(answers_match(evaluate(lhs, values), evaluate(rhs, values)) for lhs, rhs in sides)
            for values in (dict(zip(names, order)) for order in itertools.permutations(solutions)))
    except ValueError:  # ExpressionError: unparsable, or unbound
        return False


def _derivation_faults(problem: Problem, record: dict[str, Any]) -> list[str]:
    solutions = [written(s) for s in record["lSolutions"]]
    faults = []
    if not solutions or None in solutions or problem.answer != solutions[0]:
        faults.append("lSolutions empty or not numbers")
    elif not _equations_hold(record["lEquations"], solutions):
        faults.append("lEquations do not hold at lSolutions")
    try:
        gold_derivation(problem)
    except (ValueError, TypeError):  # slots not the template's; a slot that is not a name cannot even be sorted
        faults.append("alignment does not fit the template")
    if any(written(row.get("Value")) is None for row in record["Alignment"]):
        faults.append("an alignment Value is not a number")
    if problem.id != f"alg514:{record['iIndex']}" or problem.body != record["sQuestion"]:
        faults.append("id or text not as given")
    return faults


def _fuzz(parse: Callable[[Any], Any], records: list[Any], faults: Callable[[Any, Any], list[str]]) -> Counter:
    """Outcomes: refused (a DataError), listed (loaded with issues), loaded (correctly); a silently accepted bad
    record or any other exception fails the test."""
    outcomes: Counter = Counter()
    bad = []
    for record in records:
        started = time.perf_counter()
        try:
            problem = parse(record)
        except DataError as error:
            assert str(error), record
            outcomes["refused"] += 1
        else:  # a Problem (a CSV row: its parsed row), its issues listed where it has any
            assert problem.answer is None or abs(problem.answer) < float("inf")
            found = [] if problem.meta.get("issues") else faults(problem, record)
            if found:
                bad.append((found, record if not isinstance(record, ET.Element) else ET.tostring(record)))
            outcomes["listed" if problem.meta.get("issues") else "loaded"] += 1
        assert time.perf_counter() - started < 1.0, record
    assert not bad, f"{len(bad)} silently accepted bad records, e.g. {str(bad[0])[:300]}"
    return outcomes


# ----------------------------------------------------------------------------------- each loader's record path

def _parser(loader: str, monkeypatch: pytest.MonkeyPatch) -> Callable[[Any], Any]:
    """One record through the loader's own path to its Problem (a SVAMP CSV row: its parsed row)."""
    if loader == "svamp csv":
        return lambda row: svamp._parse_row(row, "x.csv#row0", False)
    if loader == "svamp json":  # load_svamp: the answer is checked after the errata
        monkeypatch.setattr(svamp, "_variation_meta", lambda: {"chal-1": {}})
        monkeypatch.setattr(svamp, "_svamp_json", svamp._svamp_json.__wrapped__)

        def parse_svamp(record: Any) -> Problem:
            monkeypatch.setattr(svamp, "read_json", lambda relpath: [record])
            return svamp.load_svamp()[0]
        return parse_svamp
    if loader == "mawps":  # a subset's record loop, where the id is made of iIndex
        monkeypatch.setattr(mawps, "SUBSETS", {"AddSub": "addsub"})

        def parse_mawps(record: Any) -> Problem:
            monkeypatch.setattr(mawps, "read_json", lambda relpath: [record])
            return mawps._subsets.__wrapped__()["AddSub"][0]
        return parse_mawps
    if loader == "asdiv":
        return lambda element: asdiv._problem(element, 0)
    return lambda record: math23k._problem(record, ("train",), "math23k#10")


def test_svamp_csv_rows(monkeypatch) -> None:
    rng = random.Random(1)
    rows = [_mutate(GOOD["svamp csv"], rng, TEXTS) for _ in range(200)]
    outcomes = _fuzz(_parser("svamp csv", monkeypatch), rows, _csv_faults)
    assert outcomes["refused"] > 50 and outcomes["listed"] > 0 and outcomes["loaded"] > 0


def test_svamp_json_records(monkeypatch) -> None:
    rng = random.Random(2)
    outcomes = _fuzz(_parser("svamp json", monkeypatch), [_mutate(GOOD["svamp json"], rng, HOSTILE)
                                                          for _ in range(200)], _svamp_json_faults)
    assert outcomes["refused"] > 100 and outcomes["loaded"] > 0 and outcomes["listed"] > 0


def test_mawps_records(monkeypatch) -> None:
    rng = random.Random(3)
    outcomes = _fuzz(_parser("mawps", monkeypatch), [_mutate(GOOD["mawps"], rng, HOSTILE) for _ in range(200)],
                     _mawps_faults)
    assert outcomes["refused"] > 50 and outcomes["loaded"] > 0


def _asdiv_element(changes: dict[str, str | None]) -> ET.Element:
    """The good ASDiv element with children's texts set (None: removed) and ``@attribute``s set."""
    root = ET.fromstring(ASDIV_XML)
    for name, value in changes.items():
        if name.startswith("@"):
            root.set(name[1:], value or "")
        elif value is None:
            root.remove(root.find(name))
        else:
            root.find(name).text = value
    return root


def test_asdiv_elements(monkeypatch) -> None:
    rng = random.Random(4)

    def element(_: int) -> ET.Element:
        root = ET.fromstring(ASDIV_XML)
        for _ in range(rng.randint(1, 3)):
            child = rng.choice([*root, None])
            if child is None:
                root.set(rng.choice(["Grade", "ID"]), rng.choice(TEXTS))
            elif rng.random() < 0.3:
                root.remove(child)
            else:
                child.text = rng.choice(TEXTS)
        return root

    outcomes = _fuzz(_parser("asdiv", monkeypatch), [element(i) for i in range(200)], _asdiv_faults)
    assert outcomes["refused"] > 20 and outcomes["loaded"] > 0


def test_math23k_records(monkeypatch) -> None:
    rng = random.Random(5)
    outcomes = _fuzz(_parser("math23k", monkeypatch), [_mutate(GOOD["math23k"], rng, HOSTILE) for _ in range(200)],
                     _math23k_faults)
    assert outcomes["refused"] > 20 and outcomes["loaded"] > 0


#: Records each loader took as correct before issue #35's last audit, and what it does with them now: refused with
#: these words, or listed with an issue of this kind.
SILENT_BEFORE = [
    ("svamp csv", {"Equation": "NaN"}, "listed", "answer-mismatch: equation cannot be evaluated"),
    ("svamp csv", {"Equation": "-5"}, "listed", "answer-mismatch: equation gives -5"),
    ("svamp csv", {"Answer": "-5"}, "listed", "answer-mismatch"),
    ("svamp csv", {"Body": "x"}, "listed", "number-not-in-text: the text does not mention number0"),
    ("svamp csv", {"Equation": "+ number0 " + "9" * 5000}, "listed", "answer-mismatch: equation cannot be evaluated"),
    ("svamp csv", {"Grade": "-5"}, "refused", "not a positive integer"),
    ("svamp csv", {"Answer": "7,0"}, "refused", "Answer '7,0' is not a number"),  # was read as 70
    ("svamp csv", {"Answer": "7_0"}, "refused", "is not a number"),
    ("svamp json", {"Equation": "x"}, "listed", "answer-mismatch: equation cannot be evaluated"),
    ("svamp json", {"Answer": 0}, "listed", "answer-mismatch: equation gives 3"),
    ("mawps", {"iIndex": None}, "refused", "position0: a record without an integer iIndex"),
    ("mawps", {"iIndex": "7"}, "refused", "integer iIndex"),
    ("mawps", {"iIndex": True}, "refused", "integer iIndex"),
    ("mawps", {"lSolutions": ["٧"]}, "refused", "is not a number"),  # an Arabic-Indic 7
    ("asdiv", {"Question": " "}, "refused", "nluds-1: <Question> missing or empty"),
    ("asdiv", {"Solution-Type": " "}, "refused", "<Solution-Type> missing or empty"),
    ("asdiv", {"@ID": " "}, "refused", "without ID"),
    ("asdiv", {"@Grade": "-5"}, "refused", "nluds-1: Grade '-5' is not a positive integer"),
    ("math23k", {"id": None}, "refused", "math23k#10: id, original_text"),
    ("math23k", {"id": 1e308}, "refused", "must be text"),
    ("math23k", {"id": " "}, "refused", "blank id"),
]


@pytest.mark.parametrize("loader, change, outcome, words", SILENT_BEFORE,
                         ids=[f"{loader}-{change}"[:60] for loader, change, _, _ in SILENT_BEFORE])
def test_what_loaded_silently_is_refused_or_listed(monkeypatch, loader, change, outcome, words) -> None:
    parse = _parser(loader, monkeypatch)
    record = _asdiv_element(change) if loader == "asdiv" else {**GOOD[loader], **change}
    if outcome == "refused":
        with pytest.raises(DataError, match=re.escape(words)):
            parse(record)
    else:
        assert any(issue.startswith(words) for issue in parse(record).meta["issues"])


def test_good_records_load_correctly(monkeypatch, tmp_path) -> None:
    """The unmutated records load without issues and pass the checks: the checks themselves accept a correct load."""
    checks = {"svamp csv": _csv_faults, "svamp json": _svamp_json_faults, "mawps": _mawps_faults,
              "math23k": _math23k_faults}
    for loader, faults in checks.items():
        problem = _parser(loader, monkeypatch)(GOOD[loader])
        assert not problem.meta["issues"] and faults(problem, GOOD[loader]) == [], loader
    element = _asdiv_element({})
    assert _asdiv_faults(_parser("asdiv", monkeypatch)(element), element) == []
    assert finite_number(" 1,000.5 ", "Answer", "x.csv#row0", written=True) == 1000.5
    problem = _derivation_parser(monkeypatch, tmp_path)(GOOD["derivations"])
    assert "issues" not in problem.meta and _derivation_faults(problem, GOOD["derivations"]) == []


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


def _derivation_parser(monkeypatch: pytest.MonkeyPatch, tmp_path: Any) -> Callable[[Any], Problem]:
    """A record through the derivation loader's own record loop (`_load`)."""
    file = tmp_path / "records.json"
    monkeypatch.setattr(derivations, "data_file", lambda relpath: file)

    def parse(record: Any) -> Problem:
        file.write_text(json.dumps([record]), encoding="utf-8")
        return derivations._load.__wrapped__("alg514")[0][0]
    return parse


def test_derivation_records(monkeypatch, tmp_path) -> None:
    """DRAW-1K / ALG-514 / DOLPHIN-L records through the loader's own record loop (`_load`), top-level fields
    and alignment rows mutated alike; what loads without issues has no fault (all 200 are refused now)."""
    rng = random.Random(6)
    records = []
    for _ in range(200):
        record = _mutate(GOOD["derivations"], rng, HOSTILE)
        rows = record.get("Alignment")
        if rng.random() < 0.5 and isinstance(rows, list) and rows and all(isinstance(r, dict) for r in rows):
            row = rng.randrange(len(rows))
            rows[row] = _mutate(rows[row], rng, HOSTILE)
        records.append(record)
    outcomes = _fuzz(_derivation_parser(monkeypatch, tmp_path), records, _derivation_faults)
    assert outcomes["refused"] > 100

