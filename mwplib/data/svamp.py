"""SVAMP and the train/test CSVs released with it (Patel et al. 2021; notebooks 00_datasets, 01_baselines).

SVAMP's CSVs mask numbers (``number0``…), have no problem ids and repeat problems across folds, so the
loaders un-mask the text and give every row the id of the underlying dataset problem (``mawps-<iIndex>``,
``nluds-XXXX``, ``chal-N``): the same problem then carries the same id in every fold, which lets `Split`
check train/test disjointness and lets results be compared per problem across experiments. A row whose Equation
does not give its Answer (MAWPS's wrong golds: up to 12 rows per training file) or uses a number its text does not
mention is kept and listed in `meta["issues"]`, as the dataset loaders do.
"""
from __future__ import annotations

import csv
import dataclasses
import functools
import hashlib
import json
import re
from dataclasses import dataclass
from typing import Any, Iterable, Literal, Sequence

from mwplib.data.asdiv import load_asdiv_a_problems
from mwplib.data.checksums import DataError, data_file
from mwplib.data.errata import apply_errata
from mwplib.data.gold import (NUMBER_NOT_IN_TEXT, finite_number, issue_list, prefix_issues, read_json, school_grade,
                              text_numbers)
from mwplib.data.mawps import load_mawps_2373
from mwplib.expr import ExpressionError, is_slot, parse_infix, parse_prefix, slot_index, to_prefix
from mwplib.numbers import SCALES, TENS, UNITS, format_number, map_equation
from mwplib.problem import Problem, Split

CvDataset = Literal["mawps", "asdiv-a"]

SVAMP_JSON = "svamp/SVAMP.json"
VARIATIONS_JSON = "svamp/derived/svamp_variation_types.json"
CSV_ROOT = "svamp/data"
COMBINED = "mawps-asdiv-a_svamp"
AUGMENTED = "cv_svamp_augmented"
N_FOLDS = 5

#: Minimum word-set Jaccard similarity for the last, fuzzy join step (texts edited between releases).
FUZZY_JOIN_THRESHOLD = 0.75

_MASK = re.compile(r"\bnumber(\d+)\b")
_WORD = re.compile(r"[a-z0-9]+(?:\.[0-9]+)?")
#: Spelled-out numbers: ASDiv.xml writes "seven" where SVAMP's CSVs write a masked digit; the text-only
#: join steps ignore both, for the number words that `numbers.words_to_numbers` leaves in the text: the cardinal
#: words up to "million", and "half".
_NUMBER_WORDS = frozenset([*UNITS, *TENS, *(SCALES.keys() - {"billion"}), "half"])
_EMPTY_BODY = "Empty"  # what some CSV rows hold in `Body` for question-only problems


# ---------------------------------------------------------------------------------------------- reading

@functools.lru_cache(maxsize=None)
def _read_csv(relpath: str) -> tuple[dict[str, str], ...]:
    with data_file(relpath).open(encoding="utf-8", newline="") as handle:
        reader = csv.DictReader(handle)
        try:
            rows = tuple(reader)
        except (UnicodeDecodeError, csv.Error) as error:
            raise DataError(f"{relpath}: unreadable ({type(error).__name__}: {error})") from None
    required = {"Question", "Numbers", "Equation", "Answer", "Body"}
    if rows and not required <= rows[0].keys():
        raise DataError(f"{relpath}: missing columns {sorted(required - rows[0].keys())}")
    for i, row in enumerate(rows):
        if None in row.values() or None in row:  # csv pads a short row with None, keeps a long row's extras
            fields = sum(len(v) if k is None else 1 for k, v in row.items() if v is not None)
            raise DataError(f"{relpath}#row{i}: {fields} fields, the header has {len(reader.fieldnames or ())}")
    return rows


def _csv_path(folder: str, fold: int | None, part: str) -> str:
    return f"{CSV_ROOT}/{folder}/" + (f"fold{fold}/" if fold is not None else "") + f"{part}.csv"


# -------------------------------------------------------------------------------------------- CSV rows

@dataclass(frozen=True)
class _Row:
    """One CSV row turned into text and gold, before it has an id."""

    source: str
    body: str
    question: str
    equation: str
    answer: float
    numbers: tuple[str, ...]
    prefix: tuple[str, ...]
    meta: dict[str, Any]

    @property
    def text(self) -> str:
        return f"{self.body} {self.question}".strip()


def _unmask(text: str, numbers: Sequence[str], source: str) -> str:
    def number(match: re.Match[str]) -> str:
        index = int(match.group(1))
        if index >= len(numbers):
            raise DataError(f"{source}: text mentions number{index} but Numbers has {len(numbers)} values")
        return numbers[index]

    return " ".join(_MASK.sub(number, text).split())


def _codes(raw: str) -> tuple[str, ...]:
    """SVAMP variation codes, latest applied first: "21, 11" → ("21", "11")."""
    return tuple(code.strip() for code in raw.split(",") if code.strip())


@functools.lru_cache(maxsize=1 << 16)
def _gold(numbers_field: str, equation_field: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(numbers, prefix over N-slots) of a CSV row; cached, as the folds repeat every row many times."""
    numbers = tuple(format_number(value) for value in numbers_field.split())
    prefix = tuple(f"N{slot_index(t)}" if is_slot(t) else t for t in equation_field.split())
    parse_prefix(prefix)
    return numbers, prefix


@functools.lru_cache(maxsize=1 << 16)
def _answer_issues(numbers: tuple[str, ...], prefix: tuple[str, ...], answer: float) -> tuple[str, ...]:
    """A row's answer-mismatch issue, if any (cached like `_gold`): the CSVs keep MAWPS's wrong golds, and a row whose
    Equation gives another answer, or none, was loaded as if it were right."""
    return tuple(prefix_issues(prefix, numbers, answer))


def _parse_row(row: dict[str, str], source: str, body_only: bool) -> _Row:
    answer = finite_number(row["Answer"], "Answer", source, written=True)
    try:
        numbers, prefix = _gold(row["Numbers"], row["Equation"])
        group_nums = json.loads(row["group_nums"]) if row.get("group_nums") else []
        grade = school_grade(row["Grade"]) if row.get("Grade") else None
    except (ExpressionError, ValueError, RecursionError) as error:
        raise DataError(f"{source}: cannot parse row ({error})") from None
    if not isinstance(group_nums, list):
        raise DataError(f"{source}: group_nums {row['group_nums']!r:.40} is not a JSON list")
    out_of_range = [t for t in prefix if is_slot(t) and slot_index(t) >= len(numbers)]
    if out_of_range:
        raise DataError(f"{source}: equation uses {out_of_range} but Numbers has {len(numbers)} values")
    question_column = "Ques_Statement" if "Ques_Statement" in row else "Ques"
    if body_only:  # the *_without_questions test files: `Question` holds the body alone
        body, question = row["Question"], ""
    else:
        body, question = row["Body"], row[question_column]
    if body.strip() == _EMPTY_BODY:
        body = ""
    issues = _answer_issues(numbers, prefix, answer)
    # the body-only files removed the question, and with it numbers the equation may use: not an issue there
    if not body_only and (unmentioned := sorted({slot_index(t) for t in prefix if is_slot(t)}
                                                - {int(k) for k in _MASK.findall(f"{body} {question}")})):
        issues = (f"{NUMBER_NOT_IN_TEXT}: the text does not mention {', '.join(f'number{k}' for k in unmentioned)}",
                  *issues)
    meta: dict[str, Any] = {"group_nums": tuple(group_nums), "source": source, "issues": issues}
    if grade is not None:
        meta["grade"] = grade
    if row.get("Type"):
        meta["type"] = row["Type"]
    if row.get("Variation Type"):
        meta["variation_codes"] = _codes(row["Variation Type"])
    if body_only:
        meta["question_removed"] = True
    return _Row(source, _unmask(body, numbers, source), _unmask(question, numbers, source), row["Equation"],
                answer, numbers, prefix, meta)


def _rows(relpath: str, body_only: bool = False) -> list[_Row]:
    return [_parse_row(row, f"{relpath}#row{i}", body_only) for i, row in enumerate(_read_csv(relpath))]


# -------------------------------------------------------------------------------------- joining to ids

@dataclass(frozen=True)
class _Candidate:
    """A problem of an underlying dataset that CSV rows are joined to."""

    id: str
    text: str
    numbers: tuple[str, ...]
    group: int | None  # its CV fold, where the dataset has one


@functools.lru_cache(maxsize=1 << 16)
def _words(text: str) -> tuple[str, ...]:
    """Words of `text` without any number (digits, masks or number words), for text-only joins."""
    return tuple(w for w in _WORD.findall(text.lower())
                 if not w[0].isdigit() and not _MASK.fullmatch(w) and w not in _NUMBER_WORDS)


@functools.lru_cache(maxsize=1 << 16)
def _text_key(text: str) -> str:
    # letters only: "did n't" / "didn't" and "mrs." / "mrs ." agree
    return "".join(_words(text)).replace("'", "")


def _join(rows: Sequence[_Row], pool: Sequence[_Candidate]) -> list[tuple[str | None, str]]:
    """(id, how) for each row: each candidate is used at most once, first by exact text and numbers,
    then by text alone (numbers edited or spelled out), then by the most similar unused text."""
    result: list[tuple[str | None, str]] = [(None, "unjoined")] * len(rows)
    used: set[str] = set()
    levels = (("exact", lambda t, n: (_text_key(t), n)), ("text", lambda t, n: _text_key(t)))
    for how, key in levels:
        index: dict[Any, list[str]] = {}
        for cand in pool:
            index.setdefault(key(cand.text, cand.numbers), []).append(cand.id)
        for i, row in enumerate(rows):
            if result[i][0] is None:
                free = [c for c in index.get(key(row.text, row.numbers), ()) if c not in used]
                if free:
                    result[i] = (free[0], how)
                    used.add(free[0])
    left = [c for c in pool if c.id not in used]
    left_words = [set(_words(c.text)) for c in left]
    for i, row in enumerate(rows):
        if result[i][0] is None:
            words = set(_words(row.text))
            scores = [len(words & w) / max(1, len(words | w)) for w in left_words]
            best = max(range(len(left)), key=scores.__getitem__, default=None)
            if best is not None and scores[best] >= FUZZY_JOIN_THRESHOLD and left[best].id not in used:
                result[i] = (left[best].id, "fuzzy")
                used.add(left[best].id)
    return result


@functools.lru_cache(maxsize=None)
def _mawps_pool() -> tuple[_Candidate, ...]:
    """The 1921 MAWPS problems kept by Graph2Tree's filter (SVAMP's cv_mawps), with their CV chunk."""
    return tuple(_Candidate(p.id, p.text, p.numbers, p.meta["graph2tree_fold"])
                 for p in load_mawps_2373() if p.meta["kept_by_graph2tree"])


@functools.lru_cache(maxsize=None)
def _asdiv_a_pool() -> tuple[_Candidate, ...]:
    """The 1218 ASDiv-A problems of the official folds, with their fold."""
    return tuple(_Candidate(p.id, p.text, p.numbers, p.meta["fold"]) for p in load_asdiv_a_problems())


#: The authors' own SVAMP file at commit 04df0ae, with each row's variation codes: "00" marks the 100 seeds.
SEED_HISTORY = "svamp/history/mawps-asdiv-a_svamp_dev_at_04df0ae.csv"


def svamp_seeds() -> list[tuple[str | None, str, str]]:
    """SVAMP's seed problems (the rows of variation type 00 in :data:`SEED_HISTORY`), each as (the ASDiv-A id it
    joins to, or None; how it joined: exact, text, fuzzy; its annotated Type): what §5.1's selection chose."""
    rows = [row for row in _rows(SEED_HISTORY) if row.meta.get("variation_codes") == ("00",)]
    return [(problem_id, how, row.meta.get("type", "")) for row, (problem_id, how) in
            zip(rows, _join(rows, _asdiv_a_pool()))]


def svamp_seed_problems() -> list[Problem]:
    """SVAMP's 100 seed problems as the authors' file writes them (lowercase, tokenised, like SVAMP's test CSV), each
    with the ASDiv-A problem it joins to in ``meta["asdiv_id"]`` (None where none) and its group in ``meta["type"]``:
    what SVAMP's variations were made from, and what :mod:`mwplib.svamp.variations` varies by rule."""
    rows = [row for row in _rows(SEED_HISTORY) if row.meta.get("variation_codes") == ("00",)]
    return [Problem(f"svamp-seed-{i}", row.body, row.question, row.equation, row.answer, row.numbers, row.prefix,
                    {**row.meta, "asdiv_id": asdiv_id})
            for i, (row, (asdiv_id, _)) in enumerate(zip(rows, _join(rows, _asdiv_a_pool())))]


@functools.lru_cache(maxsize=None)
def _svamp_csv_ids() -> tuple[str, ...]:
    """SVAMP.json id of each row of mawps-asdiv-a_svamp/dev.csv (the derived variation file's csv_row)."""
    examples = read_json(VARIATIONS_JSON)["examples"]
    ids: list[str | None] = [None] * len(_read_csv(_csv_path(COMBINED, None, "dev")))
    for example in examples:
        row = example["csv_row"]
        if not 0 <= row < len(ids) or ids[row] is not None:
            raise DataError(f"{VARIATIONS_JSON}#{example['ID']}: csv_row {row} out of range or used twice")
        ids[row] = example["ID"]
    if None in ids:
        missing = [i for i, problem_id in enumerate(ids) if problem_id is None]
        raise DataError(f"{VARIATIONS_JSON}: no SVAMP id for dev.csv rows {missing[:5]}")
    return tuple(ids)  # type: ignore[arg-type]


@functools.lru_cache(maxsize=None)
def _svamp_pool() -> tuple[_Candidate, ...]:
    """The 1000 SVAMP problems as the CSVs write them (texts differ slightly from SVAMP.json)."""
    rows = _rows(_csv_path(COMBINED, None, "dev"))
    return tuple(_Candidate(pid, row.text, row.numbers, None) for pid, row in zip(_svamp_csv_ids(), rows))


def _fallback_id(row: _Row, prefix: str, taken: set[str]) -> str:
    """Deterministic id of an unjoined row: a hash of its content, so it is the same in every fold."""
    digest = hashlib.sha1(f"{row.text}|{row.numbers}|{row.equation}".encode()).hexdigest()[:10]
    problem_id, n = f"{prefix}-unjoined-{digest}", 1
    while problem_id in taken:
        n += 1
        problem_id = f"{prefix}-unjoined-{digest}-{n}"
    return problem_id


def _problems(rows: Sequence[_Row], pool: Sequence[_Candidate], fallback: str,
              meta: dict[str, Any]) -> tuple[Problem, ...]:
    joined = _join(rows, pool)
    taken = {pid for pid, _ in joined if pid}
    problems = []
    for row, (pid, how) in zip(rows, joined):
        if pid is None:
            pid = _fallback_id(row, fallback, taken)
            taken.add(pid)
        problems.append(Problem(pid, row.body, row.question, row.equation, row.answer, row.numbers, row.prefix,
                                {**row.meta, **meta, "join": how}))
    return tuple(problems)


def _body_only(test: Sequence[Problem], relpath: str) -> tuple[Problem, ...]:
    """`test` with bodies from SVAMP's `*_without_questions` file `relpath`, whose rows are the same
    problems in the same order (checked: same numbers and equation); ids come from the full-text join."""
    rows = _rows(relpath, body_only=True)
    if len(rows) != len(test):
        raise DataError(f"{relpath}: {len(rows)} rows but the file with questions has {len(test)}")
    out = []
    for problem, row in zip(test, rows):
        if (row.numbers, row.prefix) != (problem.numbers, problem.prefix):
            raise DataError(f"{row.source}: numbers/equation differ from {problem.source}")
        out.append(dataclasses.replace(problem, body=row.body, question="",
                                       meta={**problem.meta, **row.meta, "full_source": problem.source}))
    return tuple(out)


# ---------------------------------------------------------------------------------------------- loaders

@functools.lru_cache(maxsize=None)
def _variation_meta() -> dict[str, dict[str, Any]]:
    return {e["ID"]: {"variation_codes": tuple(e["codes"]), "variation_categories": tuple(e["categories"])}
            for e in read_json(VARIATIONS_JSON)["examples"]}


@functools.lru_cache(maxsize=None)
def _svamp_json() -> tuple[Problem, ...]:
    variations = _variation_meta()
    problems = []
    for i, record in enumerate(read_json(SVAMP_JSON)):
        if not isinstance(record, dict):
            raise DataError(f"{SVAMP_JSON}#record{i}: not an object ({type(record).__name__})")
        source = f"{SVAMP_JSON}#{record.get('ID', f'record{i}')}"
        try:
            if not all(isinstance(record[name], str) for name in ("Body", "Question", "Equation", "ID", "Type")):
                raise ValueError("Body, Question, Equation, ID and Type must be text")
            body, question = " ".join(record["Body"].split()), " ".join(record["Question"].split())
            numbers = text_numbers(f"{body} {question}", source)
            prefix = tuple(to_prefix(map_equation(parse_infix(record["Equation"]), numbers)))
            answer = finite_number(record["Answer"], "Answer", source)
            # numbers only: an answer erratum is applied later, so answers are checked after it, not here
            issues = tuple(prefix_issues(prefix, numbers, None, report_constants=True))
            meta = {"type": record["Type"], **variations[record["ID"]], "source": source, "issues": issues}
        except (KeyError, ValueError, TypeError, RecursionError) as error:  # ExpressionError is a ValueError
            raise DataError(f"{source}: cannot parse record ({type(error).__name__}: {error})") from None
        problems.append(Problem(record["ID"], body, question, record["Equation"], answer, numbers, prefix, meta))
    return tuple(problems)


def load_svamp(errata: bool = True) -> list[Problem]:
    """The 1000 SVAMP challenge problems (chal-1 … chal-1000) from SVAMP.json (notebook 00_datasets, Table 9).

    `numbers` are the quantities of Body + Question, `prefix` the Equation mapped onto them; an equation
    number missing from the text stays a constant and is listed in `meta["issues"]` (only chal-50, whose text lost
    "149"; :func:`svamp_issues`). meta: `type`, `variation_codes` (latest applied first), `variation_categories`
    (the set, sorted), `source`, `issues`.
    `errata=False` keeps the released values instead of the corrections in `mwplib.data.errata`. An Equation that
    does not give the Answer (after the errata: chal-680 with `errata=False`) is listed in `meta["issues"]` too.
    """
    return [_with_answer_issues(problem) for problem in apply_errata(_svamp_json(), enabled=errata)]


def _with_answer_issues(problem: Problem) -> Problem:
    """`problem` with an answer-mismatch issue where its equation does not give its answer: checked after the errata,
    as one may correct the answer; before this, an Equation such as "x" or one giving another number loaded clean."""
    issues = prefix_issues(problem.prefix, problem.numbers, problem.answer)
    if not issues:
        return problem
    return dataclasses.replace(problem, meta={**problem.meta, "issues": (*problem.meta["issues"], *issues)})


def svamp_issues() -> list[tuple[str, str]]:
    """(id, issue) for every SVAMP problem that does not fit cleanly (an equation number the text lacks)."""
    return issue_list(_svamp_json())


_CV_FOLDERS = {"mawps": "cv_mawps", "asdiv-a": "cv_asdiv-a"}
_CV_POOLS = {"mawps": _mawps_pool, "asdiv-a": _asdiv_a_pool}


@functools.lru_cache(maxsize=None)
def _cv(dataset: str, without_questions: bool) -> tuple[Split, ...]:
    if dataset not in _CV_FOLDERS:
        raise ValueError(f"unknown CV dataset {dataset!r}; choose from {sorted(_CV_FOLDERS)}")
    folder = _CV_FOLDERS[dataset]
    pool = _CV_POOLS[dataset]()
    splits = []
    for k in range(N_FOLDS):
        train_rows = _rows(_csv_path(folder, k, "train"))
        meta = {"fold": k}
        test = _problems(_rows(_csv_path(folder, k, "dev")), [c for c in pool if c.group == k], dataset, meta)
        if without_questions:
            test = _body_only(test, _csv_path(folder + "_without_questions", k, "dev"))
        # a problem of fold k's chunk that SVAMP left out of that fold's test file sits in its train file
        test_ids = {p.id for p in test}
        train = _problems(train_rows, [c for c in pool if c.id not in test_ids], dataset, meta)
        splits.append(Split(f"{folder}/fold{k}" + ("/without_questions" if without_questions else ""),
                            train, test))
    return tuple(splits)


def load_cv(dataset: CvDataset, without_questions: bool = False) -> list[Split]:
    """SVAMP's 5-fold cross-validation of MAWPS (1921) or ASDiv-A (1217); test = each fold's dev.csv
    (notebook 01_baselines, SVAMP Table 2).

    `without_questions=True` takes the test problems from SVAMP's `*_without_questions` files (body only,
    SVAMP Table 3); the training problems are unchanged, as in the paper.
    """
    return list(_cv(dataset, without_questions))


@functools.lru_cache(maxsize=None)
def _combined(without_questions: bool) -> Split:
    train = _problems(_rows(_csv_path(COMBINED, None, "train")), _mawps_pool() + _asdiv_a_pool(),
                      "mawps-asdiv-a", {})
    variations = _variation_meta()
    test = tuple(Problem(pid, row.body, row.question, row.equation, row.answer, row.numbers, row.prefix,
                         {**row.meta, "variation_categories": variations[pid]["variation_categories"],
                          "join": "csv_row"})
                 for pid, row in zip(_svamp_csv_ids(), _rows(_csv_path(COMBINED, None, "dev"))))
    if without_questions:
        test = _body_only(test, _csv_path(COMBINED + "_without_questions", None, "dev"))
    return Split(COMBINED + ("_without_questions" if without_questions else ""), train, test)


def load_mawps_asdiv_svamp(without_questions: bool = False) -> Split:
    """Train on MAWPS + ASDiv-A (3138), test on SVAMP (1000): SVAMP Table 10 (notebook 01_baselines).

    Test rows are the CSV's versions of the SVAMP problems (texts and numbers differ slightly from SVAMP.json,
    e.g. chal-680) and carry the SVAMP.json ids, `type`, `variation_codes` and `variation_categories`.
    `without_questions=True` takes the test bodies from SVAMP's body-only file.
    """
    return _combined(without_questions)


@functools.lru_cache(maxsize=None)
def _augmented() -> tuple[Split, ...]:
    svamp = _svamp_pool()
    base = _mawps_pool() + _asdiv_a_pool()
    variations = _variation_meta()
    splits = []
    for k in range(N_FOLDS):
        test = _problems(_rows(_csv_path(AUGMENTED, k, "dev")), svamp, "svamp", {"fold": k})
        test = tuple(dataclasses.replace(p, meta={**p.meta, "variation_categories": variations[p.id][
            "variation_categories"]}) if p.id in variations else p for p in test)
        test_ids = {p.id for p in test}
        train = _problems(_rows(_csv_path(AUGMENTED, k, "train")),
                          base + tuple(c for c in svamp if c.id not in test_ids), "svamp-augmented", {"fold": k})
        splits.append(Split(f"{AUGMENTED}/fold{k}", train, test))
    return tuple(splits)


def load_cv_svamp_augmented() -> list[Split]:
    """SVAMP's 5-fold CV on SVAMP itself, training on MAWPS + ASDiv-A + the other SVAMP folds (§5.3, notebook 05)."""
    return list(_augmented())


def _all_problems(dataset: str) -> Iterable[Problem]:
    if dataset in _CV_FOLDERS:
        splits = load_cv(dataset)  # type: ignore[arg-type]
    elif dataset == COMBINED:
        splits = [load_mawps_asdiv_svamp()]
    elif dataset == AUGMENTED:
        splits = load_cv_svamp_augmented()
    else:
        raise ValueError(f"unknown dataset {dataset!r}; choose from {[*_CV_FOLDERS, COMBINED, AUGMENTED]}")
    return (p for split in splits for p in (*split.train, *split.test))


def unjoined_rows(dataset: str) -> list[str]:
    """Sources ("<csv>#row<i>") of the rows of `dataset` ("mawps", "asdiv-a", "mawps-asdiv-a_svamp",
    "cv_svamp_augmented") that could not be joined to a dataset id and carry a fallback id."""
    return [p.source for p in _all_problems(dataset) if p.meta["join"] == "unjoined"]
