"""What a synthetic problem must satisfy before SD keeps it: the preconditions a proofreader checks, made
explicit (issue 47; the paper proofread SD by hand, §III-B).

A synthetic problem joins sentences of a seed with one *borrowed* piece (Δ: a sentence or the question of
another problem). Read by a careful reader, it fails in three ways, each a check here:

* **agreement** — the borrowed piece is about another object, person or unit ("…打0.8销售，这台语言复读机原价
  =多少元"): every noun and measure word of the borrowed piece must occur in the sentences it joins;
* **asks** — the question does not ask for what the equation computes ("…吃了(1/3)，还剩多少kg没吃？" = 120 × ⅓):
  a question with an operation cue (a remainder, a difference, a total, a share or rate) admits only the
  operations that cue implies, and a remainder question over a product needs a sentence that states the
  remaining part;
* **contradiction** — the question asks for a quantity the text already states ("甲数是56，…，求甲数"), or, in a
  reformulation, the kept sentences already relate their numbers (a comparison, a change, a rate) in a way the
  new question's operation contradicts ("Angela has 11 tickets. Annie gives Angela 4 more. How many …" as a
  difference): a reformulation's sentences must state their numbers plainly and its question must carry the new
  operation's cue.

The cue lists are short and written out below; a candidate is judged on them, not on a model. What they miss is
measured by the proofreading audit (`audit`, docs/proofreading.md).
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Sequence

from ..nlp import spacy_pipeline
from .sentences import CJK, is_chinese

#: operation cues of a question, by what they ask for; each admits the operations after it
_ASKS = {
    "remainder": (re.compile(r"剩|余下|其余|还有多少|还要|还需|再[修读看走运做]|没[有吃读看卖修用]"),
                  re.compile(r"\b(left|remain|remaining|rest|still)\b", re.I), frozenset("-")),
    "difference": (re.compile(r"[多少大小长短高矮重轻贵快慢远近][多几]少|相差|差多少|多几|少几"),
                   re.compile(r"\bhow (many|much) (more|less|fewer|longer|shorter|taller|heavier|older|younger|"
                              r"further|farther)\b|\bdifference\b|\bthan\b", re.I), frozenset("-")),
    "total": (re.compile(r"一共|总共|共[有计用需要花卖运]|合计|总数|和是|两[天次人]共"),
              re.compile(r"\b(in all|altogether|total|together|combined|sum)\b", re.I), frozenset("+*")),
    "share": (re.compile(r"平均|每[个人天小时份袋箱次件本]|几倍|多少倍|几分之几|百分之几"),
              re.compile(r"\b(each|per|average|how many times)\b", re.I), frozenset("/-")),
}
#: cues by which a sentence relates its number to another (a comparison, a change, a rate, a part)
_RELATES = (re.compile(r"比|倍|又|再|增加|减少|降低|提高|用去|用了|卖出|卖了|吃了|运走|剩|还有|占|的[\d(（]|打|折|每|平均"
                       r"|[%％]"),
            re.compile(r"\b(more|less|fewer|times|gave|gives|give|lost|loses|lose|ate|eats|spent|spends|sold|sells|"
                       r"each|every|per|left|another|again|then|later|twice|half|of the|as many|as much)\b", re.I))
#: a comparison between two quantities (not a part used up: no remainder follows from it)
_COMPARES = (re.compile(r"比"), re.compile(r"\b(more|less|fewer) than\b", re.I))
#: a sentence stating the remaining part (what a remainder question over a product needs)
_STATES_REST = (re.compile(r"剩|余下|其余|还有|还要|还需"), re.compile(r"\b(left|remain|remaining|rest)\b", re.I))
#: English nouns that name no object of their own
_GENERIC = frozenset({"number", "total", "amount", "sum", "time", "lot", "all", "rest", "part", "fraction"})
#: Chinese characters that carry no object: particles, pronouns, numerals, question words and operation cues
_FUNCTION_CHARACTERS = frozenset("的了是有多少几个还剩下余共一二两三四五六七八九十百千万亿零半总平均每求问么那这它他她们和与及"
                                 "比又再就可以能要需将把被给到在为从对该其各另原现已经再才都也则而且或若倍差相同样没"
                                 "分之数")


@dataclass(frozen=True)
class Piece:
    """One sentence of a synthetic problem: its text, its nouns and measure words (lemmas in English)."""

    text: str
    nouns: frozenset[str]


def noun_sets(texts: Sequence[str]) -> list[frozenset[str]]:
    """What each text is about. English: spaCy lemmas (NOUN, PROPN) lower-cased, minus :data:`_GENERIC`.
    Chinese: its content characters (CJK, minus :data:`_FUNCTION_CHARACTERS`): jieba's tags miss the measure word
    after 多少 (多少吨 → m) and cut 一本书 as 一 + 本书 (r), so characters are the sturdier unit."""
    out: list[frozenset[str] | None] = [None] * len(texts)
    english = []
    for i, text in enumerate(texts):
        if is_chinese(text):
            out[i] = frozenset(CJK.findall(text)) - _FUNCTION_CHARACTERS
        else:
            english.append(i)
    if english:
        for i, doc in zip(english, spacy_pipeline(("ner", "parser")).pipe((texts[i] for i in english),
                                                                          batch_size=256)):
            out[i] = frozenset(t.lemma_.lower() for t in doc if t.pos_ in ("NOUN", "PROPN")) - _GENERIC
    return [nouns or frozenset() for nouns in out]


def _pick(pair: tuple[re.Pattern[str], re.Pattern[str]], text: str) -> re.Pattern[str]:
    return pair[0] if is_chinese(text) else pair[1]


def _occurs(noun: str, kept: Sequence[Piece]) -> bool:
    """A noun (English) or content character (Chinese) of a borrowed piece found in the kept sentences."""
    return any(noun in piece.nouns for piece in kept)


def asks_for(question: str) -> frozenset[str]:
    """The operations a question admits by its cues (every operation when it carries none)."""
    allowed = frozenset("+-*/")
    for zh, en, operations in _ASKS.values():
        if _says((zh, en), question):
            allowed &= operations
    return allowed


def _says(pair: tuple[re.Pattern[str], re.Pattern[str]], text: str) -> bool:
    """Whether `text` has the cue of `pair` in its language."""
    return bool(_pick(pair, text).search(text))


def _cued(question: str) -> bool:
    return any(_says((zh, en), question) for zh, en, _ in _ASKS.values())


def relates(text: str) -> bool:
    """Whether a sentence relates its number to another (a comparison, a change, a rate or a part)."""
    return _says(_RELATES, text)


def problems_with(pieces: Sequence[Piece], borrowed: int, operation: str, reformulation: bool) -> str | None:
    """The first precondition a synthetic problem fails, as a reason to count, or None when it passes.
    `pieces` are its sentences in order (the last is the question), `borrowed` the index of Δ, `operation` the
    root operator of its expression; a `reformulation` changes the seed's question only."""
    question, body = pieces[-1], pieces[:-1]
    kept = [piece for i, piece in enumerate(pieces) if i != borrowed]
    what = "question" if borrowed == len(pieces) - 1 else "sentence"
    if not all(_occurs(noun, kept) for noun in pieces[borrowed].nouns):
        return f"borrowed {what} about another object or unit"
    if what == "sentence" and not pieces[borrowed].nouns:
        return "borrowed sentence about no object"
    remainder = _says(_ASKS["remainder"][:2], question.text)
    states_rest = any(_says(_STATES_REST, piece.text) for piece in body)
    if remainder and operation != "-" and not states_rest:
        return "a remainder question with no sentence stating the remainder"
    if operation not in asks_for(question.text) and not (remainder and states_rest):
        return "the question asks for another operation"
    if remainder and any(_says(_COMPARES, piece.text) for piece in body):
        return "a remainder question over a comparison"
    if not _cued(question.text) and question.nouns and any(
            all(_occurs(noun, [piece]) for noun in question.nouns) and not relates(piece.text) for piece in body):
        return "the question asks for a quantity the text states"
    if reformulation and not _cued(question.text):
        return "a reformulated question without its operation's cue"
    if reformulation and any(relates(piece.text) for piece in body):
        return "a reformulation whose sentences already relate their numbers"
    return None
