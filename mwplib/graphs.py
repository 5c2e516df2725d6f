"""Graph2Tree's two graphs (Zhang et al. 2020) built from a spaCy dependency parse of any text.

* Quantity-cell graph: each number is linked (both ways) to the words describing it — its dependency
  head, the head's compound/adjective/noun modifiers, and the verb governing the head.
* Quantity-comparison graph: number i → number j when value(i) > value(j) (and its transpose as a third
  graph, so the encoder sees both directions).

The released SVAMP CSVs carry precomputed cells (`group_nums`); :func:`cell_agreement` compares ours with
them. Parses are cached on disk (``build/cache/graphs``), so graph building stays out of the training
loop. Used by the Graph2Tree model of notebook 01_baselines.
"""
from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Iterable, Sequence

from . import paths
from .nlp import spacy_pipeline
from .numbers import parse_number
from .problem import Problem
from .text import encode_text

_MODIFIERS = {"compound", "amod", "nmod", "poss", "npadvmod"}
_VERBS = {"VERB", "AUX"}
_NOUNS = {"NOUN", "PROPN"}


@dataclass(frozen=True)
class QuantityGraphs:
    cells: tuple[tuple[int, ...], ...]  # per slot: the word positions of its quantity cell (number first)
    edges: tuple[tuple[tuple[int, int], ...], ...]  # cell graph, comparison >, comparison <

    def cell_words(self) -> set[int]:
        return {i for cell in self.cells for i in cell}


def _parse(words: Sequence[str]) -> list[tuple[int, str, str]]:
    """(head index, dependency label, coarse POS) per word, cached by the word sequence."""
    key = hashlib.sha256("\x1f".join(words).encode()).hexdigest()[:24]
    path = paths.cache_dir("graphs") / f"{key}.json"
    if path.exists():
        return [tuple(row) for row in json.loads(path.read_text())]  # type: ignore[misc]
    from spacy.tokens import Doc

    nlp = spacy_pipeline()
    doc = Doc(nlp.vocab, words=list(words))
    for _, component in nlp.pipeline:
        doc = component(doc)
    rows = [(t.head.i, t.dep_, t.pos_) for t in doc]
    path.write_text(json.dumps(rows))
    return rows


def quantity_graphs(words: Sequence[str], num_pos: Sequence[int], numbers: Sequence[str]) -> QuantityGraphs:
    """Both graphs of one tokenised problem (word positions as in :class:`mwplib.text.EncodedText`)."""
    parse = _parse(words)
    children: dict[int, list[int]] = {}
    for i, (head, _, _) in enumerate(parse):
        if head != i:
            children.setdefault(head, []).append(i)
    cells = []
    for pos in num_pos:
        head = parse[pos][0]
        cell = [pos]
        if head != pos and parse[head][2] not in ("PUNCT", "NUM"):
            cell.append(head)
            cell += [c for c in children.get(head, []) if c != pos and
                     (parse[c][1] in _MODIFIERS or parse[c][2] in _NOUNS)]
            governor = parse[head][0]
            if parse[governor][2] in _VERBS and governor != head:
                cell.append(governor)
        cells.append(tuple(dict.fromkeys(cell)))
    cell_edges = {(a, b) for cell in cells for w in cell[1:] for a, b in ((cell[0], w), (w, cell[0]))}
    values = [parse_number(n) for n in numbers]
    greater = {(num_pos[i], num_pos[j]) for i, vi in enumerate(values) for j, vj in enumerate(values) if vi > vj}
    return QuantityGraphs(tuple(cells), (tuple(sorted(cell_edges)), tuple(sorted(greater)),
                                         tuple(sorted((b, a) for a, b in greater))))


def cell_agreement(problems: Iterable[Problem]) -> dict[str, float]:
    """Agreement of our quantity cells with the CSVs' `group_nums` (word indices of the masked CSV text),
    over problems whose tokenisation matches the CSV's word count: mean Jaccard, precision and recall of
    the cell words, and how many problems were compared / skipped (notebook 01)."""
    jaccard = precision = recall = 0.0
    compared = skipped = 0
    for problem in problems:
        gold = set(problem.meta.get("group_nums", ()))
        encoded = encode_text(problem.text, problem.numbers, problem.source)
        if not gold or len(encoded.words) != len(problem.text.split()):
            skipped += 1
            continue
        ours = quantity_graphs(encoded.words, encoded.num_pos, problem.numbers).cell_words()
        both = len(ours & gold)
        jaccard += both / len(ours | gold)
        precision += both / len(ours)
        recall += both / len(gold)
        compared += 1
    n = max(compared, 1)
    return {"jaccard": jaccard / n, "precision": precision / n, "recall": recall / n, "compared": compared,
            "skipped": skipped}
