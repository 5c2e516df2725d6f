"""Graph2Tree's two graphs (Zhang et al. 2020) built from a spaCy dependency parse of any text.

* Quantity-cell graph: each number is linked (both ways) to the words describing it — its dependency
  head, the head's compound/adjective/noun modifiers, and the verb governing the head.
* Quantity-comparison graph: number i → number j when value(i) > value(j) (and its transpose as a third
  graph, so the encoder sees both directions).

The released SVAMP CSVs carry precomputed cells (`group_nums`); :func:`cell_agreement` compares ours with
them. Parses are cached on disk (``build/cache/graphs``, keyed by the words and the parser), so graph building
stays out of the training loop. Used by the Graph2Tree model of notebook 01_baselines.

Deviations from Graph2Tree's released code (which reads `group_nums`): equal quantities get no comparison edge
(it links them both ways); the adjacency is row-normalised with self-loops, D⁻¹(A + I); the three graphs are
cell, > and <. Recorded runs are keyed without the builder's code, so a change to what this module builds must
bump Graph2Tree's stamp in `mwplib.run_spec.CODE_VERSIONS`, or the old runs would be reused.
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
from .records import write_atomically
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
    """(head index, dependency label, coarse POS) per word, cached by the word sequence and the parser (spaCy's
    and the model's versions: another parser must not reuse these parses)."""
    import spacy
    from spacy.tokens import Doc

    nlp = spacy_pipeline()
    parser = f"{spacy.__version__} {nlp.meta['name']} {nlp.meta['version']}"
    key = hashlib.sha256("\x1f".join([parser, *words]).encode()).hexdigest()[:24]
    path = paths.cache_dir("graphs") / f"{key}.json"
    if path.exists():
        return [tuple(row) for row in json.loads(path.read_text())]  # type: ignore[misc]
    doc = Doc(nlp.vocab, words=list(words))
    for _, component in nlp.pipeline:
        doc = component(doc)
    rows = [(t.head.i, t.dep_, t.pos_) for t in doc]
    write_atomically(path, lambda out: out.write(json.dumps(rows).encode()))  # runs side by side never read half
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
    """Agreement of our quantity cells with the CSVs' `group_nums` (word indices of the CSV text), over problems
    whose words are the CSV's position for position (numbers aside, e.g. "1,000"): mean Jaccard, precision and
    recall of the cell words other than the numbers themselves (both sides hold those, which would count as
    agreement for free), and how many problems were compared / skipped (notebook 01). An empty side agrees with
    an empty side."""
    jaccard = precision = recall = 0.0
    compared = skipped = 0
    for problem in problems:
        gold = set(problem.meta.get("group_nums", ()))
        encoded = encode_text(problem.text, problem.numbers, problem.source)
        numbers = set(encoded.num_pos)
        csv_words = problem.text.lower().split()
        shifted = len(encoded.words) != len(csv_words) or any(  # numbers may be written differently ("1,000")
            word != csv_word for i, (word, csv_word) in enumerate(zip(encoded.words, csv_words)) if i not in numbers)
        if not gold or shifted:
            skipped += 1
            continue
        ours = quantity_graphs(encoded.words, encoded.num_pos, problem.numbers).cell_words() - numbers
        gold -= numbers
        both = len(ours & gold)
        jaccard += both / len(ours | gold) if ours | gold else 1.0
        precision += both / len(ours) if ours else 1.0
        recall += both / len(gold) if gold else 1.0
        compared += 1
    n = max(compared, 1)
    return {"jaccard": jaccard / n, "precision": precision / n, "recall": recall / n, "compared": compared,
            "skipped": skipped}
