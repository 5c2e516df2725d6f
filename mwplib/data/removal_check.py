"""How closely `remove_question` reproduces SVAMP's released `*_without_questions` test files (notebooks 02
and 05): a module of its own because it joins the rule (`questions`) with the SVAMP loaders (`svamp`), which
build on `questions` themselves."""
from __future__ import annotations

from typing import Any, Literal

from mwplib.data import svamp
from mwplib.data.questions import remove_question
from mwplib.problem import Problem

RemovalDataset = Literal["mawps", "asdiv-a", "mawps-asdiv-a_svamp"]


def _test_pairs(dataset: RemovalDataset) -> list[tuple[Problem, Problem]]:
    """(full test problem, released body-only version) over every test file of `dataset`."""
    if dataset == "mawps-asdiv-a_svamp":
        full, bare = [svamp.load_mawps_asdiv_svamp()], [svamp.load_mawps_asdiv_svamp(without_questions=True)]
    elif dataset in ("mawps", "asdiv-a"):
        full, bare = svamp.load_cv(dataset), svamp.load_cv(dataset, without_questions=True)
    else:
        raise ValueError(f"unknown dataset {dataset!r}; choose from mawps, asdiv-a, mawps-asdiv-a_svamp")
    pairs = [(a, b) for fa, fb in zip(full, bare) for a, b in zip(fa.test, fb.test)]
    for a, b in pairs:
        if a.id != b.id:
            raise ValueError(f"{a.source} and {b.source}: rows out of step ({a.id} vs {b.id})")
    return pairs


def question_removal_agreement(dataset: RemovalDataset, examples: int = 5) -> dict[str, Any]:
    """How often `remove_question` on a normal test file gives exactly the body of SVAMP's released
    `*_without_questions` file (whitespace-normalised).

    Returns rows, agree, rate, `question_slots` (problems whose equation needs a number of the question)
    and up to `examples` mismatches as (source, ours, released).
    """
    pairs = _test_pairs(dataset)
    mismatches, question_slots = [], 0
    for full, released in pairs:
        ours = remove_question(full)
        question_slots += bool(ours.meta["question_slots"])
        if " ".join(ours.body.split()) != " ".join(released.body.split()):
            mismatches.append((full.source, ours.body, released.body))
    agree = len(pairs) - len(mismatches)
    return {"dataset": dataset, "rows": len(pairs), "agree": agree, "rate": agree / len(pairs),
            "question_slots": question_slots, "mismatches": mismatches[:examples],
            "n_mismatches": len(mismatches)}
