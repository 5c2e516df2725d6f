"""Iterative data augmentation (Lan et al. 2022 §IV, Algorithm 1), after GECA (Andreas 2020).

**Fragments and environments.** A sentence is cut into tokens by :func:`mwplib.text.tokenize`. A *fragment* is
1 to `LONGEST` consecutive *word* tokens (a token that starts with a letter and holds no digit: never a number,
never punctuation). Its *environment* is the sentence with the fragment cut out, seen through a window of a few
tokens on each side of the gap (``_``); numbers are skipped, the sentence ends are written ``<s>`` and ``</s>``,
and an environment without a word (only ends and punctuation) says nothing and is not kept. Two fragments are
*alternatives* when they share an environment. The window is one token for operation 1: so the pair of the
paper's Fig. 4(a) is found, "how many" in "How many peaches does she have?" and "there are" in "There are 36
peaches in the basket." sharing ``<s> _ peaches`` (the whole-sentence environments of GECA's default would never
match a question with a statement). It is two tokens for operation 2, whose one-token alternatives on MAWPS were
mostly nonsense ("kelly" / "each butterfly" in ``<s> _ has``); two-token ones are mostly names for names and
objects for objects ("joan" / "melanie", "building" / "bag"). `WINDOWS` holds both.

**Operation 1** (question narrative substitution). Seed q = s_1..s_k with e, other problem q' = s'_1..s'_l with
e': when a fragment of q's question s_k and a fragment of a non-question sentence s'_i are alternatives, the new
problem is s'_1..s'_{i-1}, s_1..s_{k-1}, s'_{i+1}..s'_l and its expression is e' with the quantity of s'_i replaced
by e. So s'_i must hold exactly one number and e' must use it; e may use only numbers of q's narrative
s_1..s_{k-1} (a question such as "If he has 9 shelves, how many ...?" holds a number e needs: q is no seed then).
Slots are renumbered to the new text's number order.

**Operation 2** (fragment replacement). A fragment f1 of a non-question sentence of q and an alternative f2: every
f1 in q is replaced by f2; the expression is unchanged. The paper's formula names only the sentence s_i, its
prose and Fig. 4(b) replace "all the 'peach' with 'notebook'" in the problem; we follow the prose, since a
problem about notebooks whose question still asks about peaches is not one. An occurrence of f1 is a whole-word,
case-blind match in the text ("Mary" also in "Mary's"); f2 is written in lower case, with a capital first letter
where the f1 it replaces had one (a sentence start, a name).

**Shared evidence** (ours, off by default). One shared environment is thin evidence that two fragments can stand
for each other: on MAWPS it pairs "pictures" with "cinnamon" ("… gallon of pictures"), and a proofreading audit
found 45 of 100 kept operation-2 problems acceptable. With `min_shared` > 0, operation 2 uses a pair (f1, f2)
only when the two fragments share at least that many environments of the index (names with names, fruit with
fruit), both name something (a Chinese fragment is a word jieba tags noun, verb or measure word, the paper's
constituents; an English one holds no pronoun: "Deborah … He has 80 cookies"), neither holds the other, neither
holds a number word (English, or a Chinese numeral character: "五" for "一" changes a grade, not a name), and f2
is not in the seed's text already (two people do not become one: "甲每小时加工54个，甲每小时加工45个").
Notebook 07's audit reads what it keeps.

Every new problem is built by :func:`~mwplib.compositional.sentences.assemble` and dropped, counted by reason,
when its numbers are not its parents' numbers in the expected order ("numbers moved") or its expression cannot
be evaluated ("unevaluable", e.g. a division by an expression worth 0); a text equal (token for token) to a
training problem or an earlier candidate is dropped as a duplicate (so is an operation 2 draft whose f1 the text
never shows as a whole word: it is its seed's text).

**Caps** (each bounds something that grows with the data; the index is built over the problems in a seeded random
order, so what a cap keeps is a seeded random sample): `LONGEST` tokens per fragment; `MAX_ALTERNATIVES`
fragments per environment for operation 2; `MAX_TARGETS` sentences per environment for operation 1; `per_seed`
candidates per seed problem and operation, sampled from all it could make.

**Data ranker.** A solver trained on the grown set scores each candidate by the log-probability of its own best
prediction (the log of the paper's accumulated product of probabilities); the top `keep` fraction (0.2, §V-B) is
kept. Without a ranker (the "− DataRanker" ablation of Table IV) a seeded random sample of the same size is kept.
Only the training set is ever read: test data stays out of the procedure.
"""
from __future__ import annotations

import functools
import math
import random
import re
import time
from collections import Counter
from dataclasses import dataclass, replace
from typing import Callable, Sequence

from ..data.gold import text_numbers
from ..models import MWPModel
from ..numbers import FRACTIONS, MULTIPLIERS, SCALES, TENS, UNITS
from ..problem import Problem
from ..text import tokenize
from ..train import predict
from .constituents import constituent_sets
from .sentences import CompositionError, Sentence, assemble, checked, is_chinese, join, remap, sentences, slots_of

#: per operation, the tokens of context on each side of a fragment's gap that make its environment
WINDOWS = {1: 1, 2: 2}
#: the longest fragment, in tokens
LONGEST = 3
#: distinct fragments an environment keeps for operation 2
MAX_ALTERNATIVES = 20
#: sentences an environment keeps as operation 1's targets
MAX_TARGETS = 20
#: candidates per seed problem and operation
PER_SEED = 2
#: fraction of the candidates the data ranker keeps (§V-B)
KEEP = 0.2
START, END, GAP = "<s>", "</s>", "_"
#: what the shared-evidence gate keeps out of operation 2's fragments: English number words and Chinese numerals
NUMBER_WORDS = frozenset([*UNITS, *TENS, *SCALES, *MULTIPLIERS, *FRACTIONS, "dozen", "dozens", "pair", "pairs"])
NUMERAL_CHARACTERS = frozenset("零〇一二两三四五六七八九十百千万亿半倍")
#: English words that name no one in particular: a fragment holding one is not swapped under the gate
PRONOUNS = frozenset("i me my mine we us our ours you your yours he him his she her hers it its they them their theirs "
                     "this that these those".split())
#: bump with any change to what `generate` makes, so committed augmentation records are not reused across it
VERSION = 2


def protocol(min_shared: int = 0) -> dict[str, object]:
    """Everything that decides the candidates and the kept share: part of an augmentation record's key
    (`min_shared` only when set, so the records made before it existed keep their keys)."""
    return {"version": VERSION, "windows": WINDOWS, "longest": LONGEST, "max_alternatives": MAX_ALTERNATIVES,
            "max_targets": MAX_TARGETS, "per_seed": PER_SEED, "keep": KEEP,
            **({"min_shared": min_shared} if min_shared else {})}

Fragment = tuple[str, ...]
Environment = tuple[str, ...]
Place = tuple[int, int]  # (problem, sentence) in the list of seeds
#: (the grown training set, the candidates) -> one score per candidate, from a solver trained on the grown set
ScoreFn = Callable[[Sequence[Problem], Sequence[Problem]], Sequence[float]]


def _is_number(token: str) -> bool:
    return any(c.isdigit() for c in token)


def fragments(text: str, window: int) -> list[tuple[Fragment, Environment]]:
    """Every fragment of the sentence `text` with its environment of `window` tokens a side (definitions in the
    module docstring)."""
    tokens = tokenize(text)
    number = [_is_number(t) for t in tokens]
    word = [not n and t[0].isalpha() for t, n in zip(tokens, number)]
    context = [START] * window + [t for t, n in zip(tokens, number) if not n] + [END] * window
    worded = [False] * window + [w for w, n in zip(word, number) if not n] + [False] * window
    found, at = [], window  # `at`: where tokens[i] sits in `context`
    for i in range(len(tokens)):
        if number[i]:
            continue
        for length in range(1, LONGEST + 1):
            if i + length > len(tokens) or not word[i + length - 1]:
                break
            after = at + length
            if any(worded[at - window:at]) or any(worded[after:after + window]):
                environment = (*context[at - window:at], GAP, *context[after:after + window])
                found.append((tuple(tokens[i:i + length]), environment))
        at += 1
    return found


@functools.lru_cache(maxsize=4096)
def _pattern(fragment: Fragment, anywhere: bool = False) -> re.Pattern[str]:
    """Where `fragment` occurs in raw text: its tokens as whole words (not the "s" of "Mary's"), any case
    (cached: the same fragments come back for many problems). With `anywhere`, a Chinese fragment is found also
    beside a digit ("苹果" in "苹果3250千克", which whole-word matching misses: the shared-evidence gate's fix,
    left out of the paper's protocol so that its recorded runs stay as they were)."""
    words = r"\s*".join(map(re.escape, fragment))
    if anywhere and is_chinese("".join(fragment)):
        return re.compile(words)
    return re.compile(rf"(?<![A-Za-z0-9])(?<![A-Za-z0-9]')(?i:{words})(?![A-Za-z0-9])")


@dataclass(frozen=True)
class _Seed:
    """A training problem cut into sentences, with each sentence's fragments per operation (computed once)."""

    problem: Problem
    sentences: tuple[Sentence, ...]
    fragments: dict[int, tuple[tuple[tuple[Fragment, Environment], ...], ...]]

    @property
    def narrates(self) -> bool:
        """Operation 1 can use this problem's narrative: it has one, and its expression needs nothing else."""
        question = self.sentences[-1]
        return len(self.sentences) > 1 and all(s < question.first_slot for s in slots_of(self.problem.prefix))

    def replaceable(self, i: int) -> bool:
        """Sentence `i` can be replaced by operation 1: it holds one number, and the expression uses it."""
        sentence = self.sentences[i]
        return len(sentence.numbers) == 1 and sentence.first_slot in slots_of(self.problem.prefix)


def _seeds(train: Sequence[Problem], operations: set[int]) -> tuple[list[_Seed], int]:
    """The problems with an expression, checked, and how many had none; bad records raise CompositionError."""
    seeds, skipped = [], 0
    for problem in train:
        if not problem.prefix:
            skipped += 1
            continue
        checked(problem)
        parts = tuple(sentences(problem))
        found = {op: tuple(tuple(fragments(s.text, WINDOWS[op])) for s in parts) for op in operations}
        seeds.append(_Seed(problem, parts, found))
    return seeds, skipped


@dataclass(frozen=True)
class _Index:
    """Environment → the fragments of non-question sentences it holds (operation 2), environment → the
    replaceable sentences it occurs in, each with its fragment (operation 1), and fragment → every environment
    it occurs in (operation 2's shared evidence; uncapped)."""

    alternatives: dict[Environment, list[Fragment]]
    targets: dict[Environment, dict[Place, Fragment]]
    environments: dict[Fragment, set[Environment]]
    words: frozenset[str] = frozenset()  # the Chinese seeds' constituents (`constituents`), for the gate

    def shared(self, f1: Fragment, f2: Fragment) -> int:
        """How many environments `f1` and `f2` share."""
        return len(self.environments.get(f1, set()) & self.environments.get(f2, set()))


def _index(seeds: Sequence[_Seed], rng: random.Random) -> _Index:
    """One pass over the non-question sentences, in a seeded random order (so the caps keep a random sample)."""
    order = list(range(len(seeds)))
    rng.shuffle(order)
    alternatives: dict[Environment, list[Fragment]] = {}
    targets: dict[Environment, dict[Place, Fragment]] = {}
    environments: dict[Fragment, set[Environment]] = {}
    for p in order:
        seed = seeds[p]
        for found in seed.fragments.get(2, ())[:-1]:
            for fragment, environment in found:
                environments.setdefault(fragment, set()).add(environment)
                known = alternatives.setdefault(environment, [])
                if fragment not in known and len(known) < MAX_ALTERNATIVES:
                    known.append(fragment)
        for i, found in enumerate(seed.fragments.get(1, ())[:-1]):
            if seed.replaceable(i):
                for fragment, environment in found:
                    places = targets.setdefault(environment, {})
                    if (p, i) not in places and len(places) < MAX_TARGETS:
                        places[(p, i)] = fragment
    return _Index(alternatives, targets, environments)


@dataclass(frozen=True)
class _Draft:
    """A candidate before checking: sentence texts, expression, the numbers the texts must hold, and provenance
    (`name`: the id without its counter)."""

    name: str
    texts: tuple[str, ...]
    prefix: tuple[str, ...]
    numbers: tuple[str, ...]
    meta: dict[str, object]


def _operation1(seed: _Seed, other: _Seed, i: int, f1: Fragment, f2: Fragment) -> _Draft:
    """`other` with its sentence `i` replaced by `seed`'s narrative; its quantity's slot replaced by `seed`'s
    expression; every slot renumbered to the new text's order."""
    narrative = seed.sentences[:-1]
    told = seed.sentences[-1].first_slot  # numbers in the narrative
    j = other.sentences[i].first_slot  # the one number of the replaced sentence
    inner = remap(seed.problem.prefix, {m: j + m for m in range(told)})
    outer = {t: t if t < j else t - 1 + told for t in range(len(other.problem.numbers)) if t != j}
    prefix: list[str] = []
    for token in other.problem.prefix:
        prefix += inner if token == f"N{j}" else remap((token,), outer)
    texts = [s.text for s in (*other.sentences[:i], *narrative, *other.sentences[i + 1:])]
    numbers = (*other.problem.numbers[:j], *seed.problem.numbers[:told], *other.problem.numbers[j + 1:])
    meta = {"operation": 1, "parents": (seed.problem.id, other.problem.id), "fragments": (" ".join(f1), " ".join(f2)),
            "replaced": i}
    return _Draft(f"{seed.problem.id}~op1~{other.problem.id}", tuple(texts), tuple(prefix), numbers, meta)


def _operation2(seed: _Seed, f1: Fragment, f2: Fragment, gated: bool = False) -> _Draft:
    """`seed` with every `f1` replaced by `f2` (capitalised where that `f1` was; `gated`: see `_pattern`)."""
    lower, pattern = ("" if is_chinese("".join(f2)) else " ").join(f2), _pattern(f1, gated)
    texts = [pattern.sub(lambda m: lower[:1].upper() + lower[1:] if m.group()[0].isupper() else lower, s.text)
             for s in seed.sentences]
    meta = {"operation": 2, "parents": (seed.problem.id,), "fragments": (" ".join(f1), " ".join(f2))}
    return _Draft(f"{seed.problem.id}~op2", tuple(texts), seed.problem.prefix, seed.problem.numbers, meta)


def _holds(outer: Fragment, inner: Fragment) -> bool:
    """Whether `inner` occurs in `outer` token for token ("will plant" in "will plant more")."""
    return any(outer[i:i + len(inner)] == inner for i in range(len(outer) - len(inner) + 1))


def _names_something(fragment: Fragment, words: frozenset[str]) -> bool:
    """A Chinese fragment that is one of `words` (the seeds' constituents), an English one without a pronoun."""
    joined = "".join(fragment)
    return joined in words if is_chinese(joined) else not PRONOUNS.intersection(fragment)


def _evidenced(seed: _Seed, f1: Fragment, f2: Fragment, index: _Index, min_shared: int) -> bool:
    """Operation 2's pair passes the shared-evidence gate (module docstring)."""
    return (index.shared(f1, f2) >= min_shared and not _holds(f1, f2) and not _holds(f2, f1)
            and _names_something(f1, index.words) and _names_something(f2, index.words)
            and not any(token in NUMBER_WORDS or NUMERAL_CHARACTERS & set(token) for token in (*f1, *f2))
            and not _pattern(f2, True).search(seed.problem.text))


def _drafts(p: int, operation: int, seeds: Sequence[_Seed], index: _Index, rng: random.Random,
            per_seed: int, min_shared: int) -> list[_Draft]:
    """Up to `per_seed` drafts of `operation` with seed `p`, sampled from every draft the index allows (operation
    2: from pairs sharing at least `min_shared` environments)."""
    seed = seeds[p]
    if operation == 1:
        places: dict[Place, tuple[Fragment, Fragment]] = {}
        if seed.narrates:
            for f1, environment in seed.fragments[1][-1]:
                for place, f2 in index.targets.get(environment, {}).items():
                    if place[0] != p and f2 != f1:
                        places.setdefault(place, (f1, f2))
        chosen = rng.sample(list(places.items()), min(per_seed, len(places)))
        return [_operation1(seed, seeds[q], i, f1, f2) for (q, i), (f1, f2) in chosen]
    pairs: dict[tuple[Fragment, Fragment], None] = {}  # a dict keeps the order a set would lose
    for found in seed.fragments[2][:-1]:
        for f1, environment in found:
            for f2 in index.alternatives.get(environment, []):
                if f2 != f1 and (f1, f2) not in pairs and (not min_shared or _evidenced(seed, f1, f2, index,
                                                                                          min_shared)):
                    pairs[(f1, f2)] = None
    return [_operation2(seed, f1, f2, gated=min_shared > 0)
            for f1, f2 in rng.sample(list(pairs), min(per_seed, len(pairs)))]


@dataclass(frozen=True)
class Generation:
    """One pass of the augmentation protocol over a training set."""

    problems: tuple[Problem, ...]  # the well-formed new candidates, in seed order
    by_operation: dict[int, int]  # how many of them each operation made
    ill_formed: dict[str, int]  # dropped drafts by reason ("numbers moved", "unevaluable")
    duplicates: int  # dropped drafts whose text a training problem or an earlier candidate already has
    skipped: int  # training problems without a single expression (empty prefix), not used
    seconds: float


def _fresh_id(base: str, taken: set[str]) -> str:
    n = 0
    while f"{base}~{n}" in taken:
        n += 1
    return f"{base}~{n}"


def generate(train: Sequence[Problem], operations: Sequence[int] = (1, 2), seed: int = 0, *,
             per_seed: int = PER_SEED, min_shared: int = 0) -> Generation:
    """New candidate problems from `train` by the given operations (the ablations "− operation 1" and
    "− operation 2" are ``(2,)`` and ``(1,)``), operation 2 on pairs sharing `min_shared` environments. Ids are
    ``<q id>~op1~<q' id>~<n>`` and ``<q id>~op2~<n>`` (n: the first not taken); `meta` holds the operation, the
    parents' ids, the two fragments and, for operation 1, the index of the sentence of q' that was replaced."""
    if not operations or not set(operations) <= {1, 2}:
        raise CompositionError(f"operations must be a non-empty subset of (1, 2), got {tuple(operations)}")
    start = time.perf_counter()
    rng = random.Random(seed)
    seeds, skipped = _seeds(train, set(operations))
    index = _index(seeds, rng)
    if min_shared:
        chinese = [s.problem for s in seeds if is_chinese(s.problem.text)]
        index = replace(index, words=frozenset().union(*constituent_sets(chinese).values()))
    taken = {problem.id for problem in train}
    seen = {tuple(tokenize(s.problem.text)) for s in seeds}
    problems: list[Problem] = []
    ill_formed: Counter[str] = Counter()
    duplicates = 0
    for p in range(len(seeds)):
        for operation in sorted(set(operations)):
            for draft in _drafts(p, operation, seeds, index, rng, per_seed, min_shared):
                if text_numbers(join(draft.texts)) != draft.numbers:
                    ill_formed["numbers moved"] += 1
                    continue
                problem_id = _fresh_id(draft.name, taken)
                try:
                    problem = assemble(problem_id, draft.texts, draft.prefix, draft.meta)
                except CompositionError:
                    ill_formed["unevaluable"] += 1
                    continue
                key = tuple(tokenize(problem.text))
                if key in seen:
                    duplicates += 1
                    continue
                seen.add(key)
                taken.add(problem_id)
                problems.append(problem)
    by_operation = Counter(p.meta["operation"] for p in problems)
    return Generation(tuple(problems), {op: by_operation[op] for op in sorted(set(operations))}, dict(ill_formed),
                      duplicates, skipped, time.perf_counter() - start)


def _kept_count(n: int, keep: float) -> int:
    """round(keep × n), halves up."""
    if not 0 <= keep <= 1:
        raise CompositionError(f"keep must be a fraction in [0, 1], got {keep}")
    return math.floor(keep * n + 0.5)


def rank(candidates: Sequence[Problem], scores: Sequence[float], keep: float = KEEP) -> list[Problem]:
    """The data ranker: the round(keep × n) (halves up) best-scored candidates, in candidate order; equal scores
    are ranked by candidate order, so the earlier candidate wins a tie at the cut."""
    if len(scores) != len(candidates):
        raise CompositionError(f"{len(scores)} scores for {len(candidates)} candidates")
    for problem, score in zip(candidates, scores):
        if math.isnan(score):
            raise CompositionError(f"{problem.source}: its score is NaN")
    best = sorted(range(len(candidates)), key=lambda i: -scores[i])[:_kept_count(len(candidates), keep)]
    return [candidates[i] for i in sorted(best)]


def confidence(model: MWPModel, problems: Sequence[Problem], *, beam: int, max_len: int) -> list[float]:
    """Each problem's score for :func:`rank`: the log-probability of the model's own best prediction."""
    examples = [model.prepare(problem, target=False) for problem in problems]
    return [prediction.logprob for prediction in predict(model, examples, beam=beam, max_len=max_len)]


@dataclass(frozen=True)
class Iteration:
    """What one round of Algorithm 1 did."""

    candidates: dict[int, int]  # well-formed new candidates by operation
    ill_formed: dict[str, int]
    duplicates: int
    kept: int
    ranked: bool  # False: the "− DataRanker" ablation kept a seeded random sample of the same size
    seconds_generating: float
    seconds_ranking: float


def augment(train: Sequence[Problem], iterations: int, score_fn: ScoreFn | None, *,
            operations: Sequence[int] = (1, 2), keep: float = KEEP, seed: int = 0,
            per_seed: int = PER_SEED, min_shared: int = 0) -> tuple[list[Problem], list[Iteration]]:
    """Algorithm 1: `iterations` rounds of generating candidates from the grown set and keeping the best `keep`
    fraction by `score_fn(grown, candidates)` (the caller trains a solver on the grown set, or finds it recorded,
    and scores the candidates with it),
    or, with ``score_fn=None``, a seeded random sample of the same size. Returns the grown set and each round."""
    rng = random.Random(seed)
    grown, rounds = list(train), []
    for _ in range(iterations):
        generation = generate(grown, operations, rng.randrange(2**32), per_seed=per_seed, min_shared=min_shared)
        start = time.perf_counter()
        candidates = generation.problems
        if score_fn is None:
            picked = rng.sample(range(len(candidates)), _kept_count(len(candidates), keep))
            kept = [candidates[i] for i in sorted(picked)]
        else:
            kept = rank(candidates, list(score_fn(grown, candidates)), keep)
        grown = grown + kept  # a new list: a score_fn may keep the one it was given
        rounds.append(Iteration(generation.by_operation, generation.ill_formed, generation.duplicates, len(kept),
                                score_fn is not None, generation.seconds, time.perf_counter() - start))
    return grown, rounds
