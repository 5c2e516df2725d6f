"""The SD synthetic data set of Lan et al. 2022 (§III-B, Appendix A, Table V): rules that turn a seed problem
into simpler synthetic problems, so that train and test differ in one kind of composition only.

**Rule table.** :data:`RULES` is Table V as data. A template is written over ``n1, n2, …``, the i-th number of
the problem's text (our slot ``N{i-1}``); a pattern lists a problem's sentences: ``s<i>`` the seed's i-th,
``Δ`` the placeholder. The PDF extraction of Table V is partly garbled; reconstructed as follows:

* rules 2, 3, 4 lost their first synthetic pattern: it is ``{s1, s2, Δ}``, as in rules 6–8 with the same
  seed pattern (the first two numbers and a borrowed question);
* rule 9 lost its second: ``{Δ, s3, s4}``, as in rules 2–8 (a borrowed sentence holding the value of the
  first sub-expression, then the seed's third number and question);
* rule 1's second pattern is noise (``. , ,``): ``{s2, Δ}``, as in rule 5, whose seed has the same ``1 - n2``;
* the stray ``0`` before rule 6's template and the doubled ``12``/``13`` are the row labels; the rotated
  section labels ("Decomposition", "Reformulation") are spread over the rows as ``on siti bog Ĕ Q`` etc.

**Matching.** A seed matches a rule when its template equals the rule's seed template exactly (no commuting)
and its sentences are laid out as the pattern says: every sentence but the last holds one number, in order,
and the last (the question) none. A "sentence" here is one sentence of :func:`sentences.sentences` together
with the number-free sentences just before it (a preamble such as "Bryan took a look at his books." belongs
to the number it introduces; number-free sentences after the last number belong to the question). A
percentage is one quantity, as in Math23K's own equations (``25%``): a slot written ``Nk / 100`` in our
prefixes, where the text has ``%`` after number k, reads as ``nk`` and is written back as ``Nk / 100`` in a
synthetic problem whose text has that ``%``.

**Δ.** A synthetic problem's placeholder is the sentence of another problem of the pool (the *indexed corpus*,
problems keyed by template) with the synthetic problem's template: the sentence holding that problem's number
at Δ's position alone (``Δ`` in ``{Δ, s3, s4}`` holds n1), or its question when Δ is last. Among all such
problems the one most similar to the seed (:func:`constituents.similarity`) lends it; ties are broken by a
random draw from `seed`.

**Allocation.** Decomposition: the seed goes to test (``composition="structural"``), its two synthetic
problems to train, all or nothing: if either has no donor, a donor of similarity 0, or is not well formed,
the seed is abandoned (the first failure is the reason counted). Reformulation (after all decompositions, in
pool order): the seed goes to train and its reformulation to test (``"lexical"``) under the paper's condition
"if for any existing q'' ∈ D^p which has e'' = e' and the similarity score to q' is 0", which reads two ways
(:data:`READINGS`): ``"some"`` (the default), some training problem with the reformulation's template shares
no constituent with it; ``"every"``, none of them shares one (either way at least one training problem has the
template: the test is then new in its constituents, not its template) (so that this still holds for the final set, a
seed then also may not share a constituent with an earlier test reformulation of its own template). The
default is the reading that gives the paper's sizes: under ``"every"``, once the decompositions have put a few
hundred simple problems into train, one shared 有 or 是 abandons a Chinese reformulation, and Math23K yields
almost no lexical test problems. Notebook 07 prints the sizes under both.

**Well formed.** Every synthetic problem goes through :func:`sentences.assemble`; a candidate is not well
formed when joining its sentences changes their numbers, its expression cannot be evaluated (division by
zero) or its answer is negative. The paper proofread SD by hand; these are the checks a program can make.
"""
from __future__ import annotations

import random
from collections import Counter, defaultdict
from dataclasses import dataclass, field, replace
from typing import Iterator, Mapping, Sequence

from ..data.gold import ANSWER_MISMATCH, text_numbers
from ..expr import Node, is_slot, map_leaves, parse_infix, parse_prefix, slot_index, to_prefix
from ..numbers import find_numbers
from ..problem import Problem
from . import coherence
from .constituents import constituent_sets, similarity
from .sentences import CompositionError, Sentence, assemble, checked, join, sentences

DELTA = "Δ"
DECOMPOSITION, REFORMULATION = "decomposition", "reformulation"
STRUCTURAL, LEXICAL = "structural", "lexical"
#: the two readings of the reformulation condition (module docstring)
READINGS = ("some", "every")
PERCENT = ("%", "％")


def slot_template(template: str) -> tuple[str, ...]:
    """A paper template over n1, n2, … as our slot prefix: ``n1 * (1 - n2)`` → ``* N0 - 1 N1``."""
    node = map_leaves(parse_infix(template), lambda t: Node(f"N{int(t[1:]) - 1}") if t.startswith("n") else None)
    return tuple(to_prefix(node))


@dataclass(frozen=True)
class Shape:
    """One problem of a rule: its sentence pattern (``s<i>`` or ``Δ``) and its template over n1, n2, …"""

    parts: tuple[str, ...]
    template: str

    @property
    def prefix(self) -> tuple[str, ...]:
        return slot_template(self.template)


@dataclass(frozen=True)
class Rule:
    """A row of Table V: a seed shape and the one or two synthetic shapes it becomes."""

    number: int
    kind: str
    seed: Shape
    synthetic: tuple[Shape, ...]


def _shape(pattern: tuple[str, str]) -> Shape:
    return Shape(tuple(pattern[0].split()), pattern[1])


def _rule(number: int, seed: tuple[str, str], *synthetic: tuple[str, str]) -> Rule:
    kind = DECOMPOSITION if len(synthetic) == 2 else REFORMULATION
    return Rule(number, kind, _shape(seed), tuple(_shape(pattern) for pattern in synthetic))


#: Table V: nine decomposition rules (two synthetic problems each) and four reformulation rules (one).
RULES: tuple[Rule, ...] = (
    _rule(1, ("s1 s2 s3", "n1 * (1 - n2)"), ("s1 Δ s3", "n1 * n2"), ("s2 Δ", "1 - n1")),
    _rule(2, ("s1 s2 s3 s4", "n1 * n2 / n3"), ("s1 s2 Δ", "n1 * n2"), ("Δ s3 s4", "n1 / n2")),
    _rule(3, ("s1 s2 s3 s4", "n1 * n2 + n3"), ("s1 s2 Δ", "n1 * n2"), ("Δ s3 s4", "n1 + n2")),
    _rule(4, ("s1 s2 s3 s4", "n1 * n2 * n3"), ("s1 s2 Δ", "n1 * n2"), ("Δ s3 s4", "n1 * n2")),
    _rule(5, ("s1 s2 s3", "n1 / (1 - n2)"), ("s1 Δ s3", "n1 / n2"), ("s2 Δ", "1 - n1")),
    _rule(6, ("s1 s2 s3 s4", "(n1 - n2) / n3"), ("s1 s2 Δ", "n1 - n2"), ("Δ s3 s4", "n1 / n2")),
    _rule(7, ("s1 s2 s3 s4", "(n1 + n2) * n3"), ("s1 s2 Δ", "n1 + n2"), ("Δ s3 s4", "n1 * n2")),
    _rule(8, ("s1 s2 s3 s4", "n1 / n2 * n3"), ("s1 s2 Δ", "n1 / n2"), ("Δ s3 s4", "n1 * n2")),
    _rule(9, ("s1 s2 s3 s4", "n1 * n2 - n3"), ("s1 s2 Δ", "n1 * n2"), ("Δ s3 s4", "n1 - n2")),
    _rule(10, ("s1 s2 s3", "n1 + n2"), ("s1 s2 Δ", "n1 - n2")),
    _rule(11, ("s1 s2 s3", "n1 - n2"), ("s1 s2 Δ", "n1 + n2")),
    _rule(12, ("s1 s2 s3", "n1 * n2"), ("s1 s2 Δ", "n1 / n2")),
    _rule(13, ("s1 s2 s3", "n1 / n2"), ("s1 s2 Δ", "n1 * n2")),
)
_BY_SEED = {rule.seed.prefix: rule for rule in RULES}
#: the templates a seed or a donor can have; the other problems of a pool play no part
_USED = frozenset(_BY_SEED) | {shape.prefix for rule in RULES for shape in rule.synthetic}


@dataclass(frozen=True)
class SDSet:
    """The synthetic data set and how it came about: seeds matched per rule number, seeds abandoned per reason,
    synthetic candidates not well formed per reason, pool problems skipped per reason, and seeds whose every
    donor failed a precondition of :mod:`coherence`, per rule and the most similar donor's first failure."""

    train: tuple[Problem, ...]
    test: tuple[Problem, ...]
    seeds: Counter[int] = field(default_factory=Counter)
    abandoned: Counter[str] = field(default_factory=Counter)
    ill_formed: Counter[str] = field(default_factory=Counter)
    skipped: Counter[str] = field(default_factory=Counter)
    incoherent: Counter[tuple[int, str]] = field(default_factory=Counter)


def labelled(made: SDSet) -> Iterator[tuple[Problem, str]]:
    """Each problem of `made`, train then test, with its part: ``train``, ``test structural`` or ``test lexical``."""
    yield from ((p, "train") for p in made.train)
    yield from ((p, f"test {p.meta.get('composition', '')}") for p in made.test)


@dataclass(frozen=True)
class _Entry:
    """A pool problem as the synthesis sees it: its sentences (see the module docstring), its template with
    percentages as one quantity, and its constituents."""

    problem: Problem
    units: tuple[Sentence, ...]
    template: tuple[str, ...]
    constituents: frozenset[str]
    pieces: tuple[coherence.Piece, ...]  # the units with their nouns, for the preconditions


class _Abandoned(Exception):
    """A seed cannot be used; the message is the reason counted."""


class _IllFormed(_Abandoned):
    """A synthetic candidate is not well formed."""


def _percent_slots(text: str) -> frozenset[int]:
    return frozenset(i for i, q in enumerate(find_numbers(text)) if text[q.end:q.end + 1] in PERCENT)


def _collapse(node: Node, percents: frozenset[int]) -> Node:
    """`node` with ``Nk / 100`` read as the quantity ``Nk`` for every percent slot k."""
    if node.is_leaf:
        return node
    left, right = node.children
    if node.value == "/" and is_slot(left.value) and slot_index(left.value) in percents and right.value == "100":
        return left
    return Node(node.value, (_collapse(left, percents), _collapse(right, percents)))


def _expand(prefix: Sequence[str], percents: frozenset[int]) -> tuple[str, ...]:
    """The inverse of :func:`_collapse`: a percent slot ``Nk`` becomes ``Nk / 100``."""
    node = map_leaves(parse_prefix(list(prefix)), lambda t: Node("/", (Node(t), Node("100")))
                      if is_slot(t) and slot_index(t) in percents else None)
    return tuple(to_prefix(node))


def units(problem: Problem) -> tuple[Sentence, ...]:
    """The problem's sentences with every number-free sentence joined to the next (or to the question)."""
    out, pending = [], []
    for sentence in sentences(problem):
        pending.append(sentence.text)
        if sentence.numbers:
            out.append(Sentence(join(pending), sentence.numbers, sentence.first_slot))
            pending = []
    if pending:
        out.append(Sentence(join(pending), (), len(problem.numbers)))
    return tuple(out)


def quantity_template(problem: Problem) -> tuple[str, ...]:
    """The problem's slot prefix with percentages as one quantity; CompositionError for a problem without
    numbers or whose expression uses a number its text lacks."""
    checked(problem)
    return tuple(to_prefix(_collapse(parse_prefix(list(problem.prefix)), _percent_slots(problem.text))))


def _skip_reason(problem: Problem) -> str | None:
    if not problem.prefix:
        return "no single expression"
    if any(issue.startswith(ANSWER_MISMATCH) for issue in problem.meta.get("issues", ())):
        return "gold answer mismatch"
    return None


def _laid_out(entry: _Entry, shape: Shape) -> bool:
    """One number per sentence in order, and a number-free question last."""
    return [len(unit.numbers) for unit in entry.units] == [1] * (len(shape.parts) - 1) + [0]


def _slot_sentence(entry: _Entry, slot: int, question: bool) -> int | None:
    """The index of the donor's sentence for Δ: its question, or the sentence holding number `slot` alone."""
    if question:
        return len(entry.units) - 1 if not entry.units[-1].numbers else None
    return next((i for i, u in enumerate(entry.units) if u.first_slot == slot and len(u.numbers) == 1), None)


class _Synthesis:
    """One `synthesize` call: the indexed corpus, the random seed, the sets being built and the counts."""

    def __init__(self, entries: Sequence[_Entry], seed: int, checked: bool) -> None:
        self.corpus: dict[tuple[str, ...], list[_Entry]] = defaultdict(list)
        for entry in entries:
            self.corpus[entry.template].append(entry)
        self.seed = seed
        self.checked = checked
        self.train: list[Problem] = []
        self.test: list[Problem] = []
        self.abandoned: Counter[str] = Counter()
        self.ill_formed: Counter[str] = Counter()
        self.incoherent: Counter[tuple[int, str]] = Counter()

    def build(self, pid: str, origin: _Entry, rule: Rule, shape: Shape, meta: Mapping[str, object]) -> Problem:
        """One synthetic problem: the seed's sentences of `shape` with Δ lent by the most similar donor whose
        piece passes the preconditions of :mod:`coherence` (the first failure of the most similar is counted)."""
        delta = shape.parts.index(DELTA)
        question = delta == len(shape.parts) - 1
        # Every seed sentence before Δ holds one number, so Δ holds the synthetic problem's number `delta`.
        lent = [(donor, i) for donor in self.corpus.get(shape.prefix, ())
                if (i := _slot_sentence(donor, delta, question)) is not None]
        if not lent:
            raise _Abandoned("no corpus problem with the synthetic template")
        rng = random.Random(f"{self.seed}/{pid}")
        ranked = sorted(((similarity(origin.constituents, donor.constituents), rng.random(), donor, i)
                         for donor, i in lent), key=lambda t: t[:2], reverse=True)
        first_failure = None
        for score, _, donor, i in ranked:
            if not score:
                break
            pieces = [donor.pieces[i] if part == DELTA else origin.pieces[int(part[1:]) - 1] for part in shape.parts]
            failure = coherence.problems_with(pieces, delta, shape.prefix[0], rule.kind == REFORMULATION
                                              ) if self.checked else None
            if failure is None:
                return self._assemble(pid, origin, donor, rule, shape, donor.units[i], meta)
            first_failure = first_failure or failure
        if first_failure is None:
            raise _Abandoned("most similar donor shares no constituent with the seed")
        self.incoherent[(rule.number, first_failure)] += 1
        raise _Abandoned("no donor passes the preconditions")

    def _assemble(self, pid: str, origin: _Entry, donor: _Entry, rule: Rule, shape: Shape, borrowed: Sentence,
                  meta: Mapping[str, object]) -> Problem:
        parts = [borrowed if part == DELTA else origin.units[int(part[1:]) - 1] for part in shape.parts]
        texts = [part.text for part in parts]
        text = join(texts)
        if text_numbers(text) != tuple(n for part in parts for n in part.numbers):
            raise _IllFormed("joining the sentences changes their numbers")
        try:
            problem = assemble(pid, texts, _expand(shape.prefix, _percent_slots(text)),
                               {"rule": rule.number, "template": shape.template,
                                "made_from": (origin.problem.id, donor.problem.id), **meta})
        except CompositionError:
            raise _IllFormed("expression cannot be evaluated") from None
        if problem.answer is not None and problem.answer < 0:
            raise _IllFormed("negative answer")
        return problem

    def apply(self, origin: _Entry, rule: Rule) -> list[Problem]:
        """The rule's synthetic problems of one seed, or none (counted) when the seed must be abandoned."""
        meta = {} if rule.kind == DECOMPOSITION else {"composition": LEXICAL}
        try:
            return [self.build(f"sd-{origin.problem.id}-r{rule.number}-{letter}", origin, rule, shape, meta)
                    for letter, shape in zip("ab", rule.synthetic)]
        except _IllFormed as error:
            self.ill_formed[str(error)] += 1
            self.abandoned["a synthetic problem is not well formed"] += 1
        except _Abandoned as error:
            self.abandoned[str(error)] += 1
        return []

    def reformulate(self, candidates: Sequence[tuple[_Entry, Rule, Problem]], reading: str) -> None:
        """Allocate (seed → train, reformulation → test) pairs, in order, under the condition's `reading`."""
        constituents = constituent_sets([*self.train, *(problem for _, _, problem in candidates)])
        seen: dict[str, list[frozenset[str]]] = defaultdict(list)
        for problem in self.train:
            seen[problem.meta["template"]].append(constituents[problem.id])
        tested: dict[str, set[str]] = defaultdict(set)
        for origin, rule, reformulated in candidates:
            target, words = rule.synthetic[0].template, constituents[reformulated.id]
            if not seen[target]:
                self.abandoned["no training problem has the reformulation's template"] += 1
            elif not reformulation_allowed(words, seen[target], reading):
                self.abandoned[f"{'a' if reading == 'every' else 'every'} training problem of the reformulation's "
                               f"template shares a constituent"] += 1
            elif reading == "every" and tested[rule.seed.template] & origin.constituents:
                self.abandoned["the seed shares a constituent with a test problem of its template"] += 1
            else:
                self.train.append(_seed_copy(origin, rule))
                self.test.append(reformulated)
                seen[rule.seed.template].append(origin.constituents)
                tested[target] |= words


def reformulation_allowed(words: frozenset[str], seen: Sequence[frozenset[str]], reading: str) -> bool:
    """The paper's condition on a reformulation with constituents `words`, given those of the training problems
    with its template (at least one: a template unseen in training would make it a structural test)."""
    apart = [not (words & other) for other in seen]
    return bool(apart) and (all(apart) if reading == "every" else any(apart))


def _seed_copy(entry: _Entry, rule: Rule, **meta: object) -> Problem:
    problem = entry.problem
    return replace(problem, id=f"sd-{problem.id}", meta={**problem.meta, "rule": rule.number,
                                                          "template": rule.seed.template,
                                                          "made_from": (problem.id,), **meta})


def _index(pool: Sequence[Problem], checked: bool) -> tuple[list[_Entry], Counter[str]]:
    """The pool problems that can be seeds or donors, and the count of those skipped per reason; their sentences'
    nouns (`coherence.noun_sets`, a spaCy pass) only when `checked` asks for the preconditions."""
    ids = Counter(problem.id for problem in pool)
    if repeated := [pid for pid, count in ids.items() if count > 1]:
        raise CompositionError(f"problem id {repeated[0]} occurs {ids[repeated[0]]} times in the pool")
    skipped: Counter[str] = Counter()
    usable = []
    for problem in pool:
        if reason := _skip_reason(problem):
            skipped[reason] += 1
        else:
            usable.append(problem)
    templates = {p.id: quantity_template(p) for p in usable}
    used = [p for p in usable if templates[p.id] in _USED]
    constituents = constituent_sets(used)
    cut = {p.id: units(p) for p in used}
    texts = [u.text for p in used for u in cut[p.id]]
    nouns = iter(coherence.noun_sets(texts) if checked else [frozenset()] * len(texts))
    return [_Entry(p, cut[p.id], templates[p.id], constituents[p.id],
                   tuple(coherence.Piece(u.text, next(nouns)) for u in cut[p.id])) for p in used], skipped


def synthesize(pool: Sequence[Problem], seed: int = 0, reading: str = "some", checked: bool = False) -> SDSet:
    """The SD set from `pool` (also the indexed corpus); `seed` breaks ties between equally similar donors,
    `reading` is the reformulation condition's (:data:`READINGS`). Δ comes from the most similar donor, as the
    paper's rule reads before its manual proofreading; with `checked`, from the most similar donor that passes
    :mod:`coherence`'s preconditions (not the default: its output fails the proofreading audit more often, see
    docs/proofreading.md).
    Problems without a single expression or whose gold answer mismatches their expression are skipped and
    counted; bad input (no numbers, a slot the text lacks, a repeated id) raises CompositionError."""
    if reading not in READINGS:
        raise ValueError(f"reading {reading!r}: expected one of {READINGS}")
    entries, skipped = _index(pool, checked)
    run = _Synthesis(entries, seed, checked)
    matched = [(entry, _BY_SEED[entry.template]) for entry in entries
               if entry.template in _BY_SEED and _laid_out(entry, _BY_SEED[entry.template].seed)]
    candidates = []
    for origin, rule in matched:
        made = run.apply(origin, rule)
        if made and rule.kind == DECOMPOSITION:
            run.test.append(_seed_copy(origin, rule, composition=STRUCTURAL))
            run.train.extend(made)
        elif made:
            candidates.append((origin, rule, made[0]))
    run.reformulate(candidates, reading)
    return SDSet(tuple(run.train), tuple(run.test), Counter(rule.number for _, rule in matched), run.abandoned,
                 run.ill_formed, skipped, run.incoherent)
