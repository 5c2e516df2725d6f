"""Constituents of a math word problem and the similarity of two problems (Lan et al. 2022 §III-B).

The paper's *constituents* are the concepts of a problem's scenario: "we extract a collection of nouns, verbs
and measure units from the MWPs using existing toolkits" and compare "the token-level overlap". Here:

* English: spaCy lemmas, lower-cased, of tokens tagged NOUN, PROPN or VERB (a unit such as *books* in
  "56 books" is a noun already; *be*/*have*/*do* as auxiliaries are AUX and not counted);
* Chinese (Math23K): jieba.posseg words of the original text flagged noun (``n…``), verb (``v…``) or measure
  word (``q``), plus the word right after a numeral, which jieba often tags ``m`` (``24页`` → 页).

Similarity is the Jaccard overlap |A∩B| / |A∪B| of two constituent sets, so that a long donor text does not
win by length alone; it is 0 exactly when the problems share no constituent (the paper's abandon rule).
"""
from __future__ import annotations

from typing import Iterable

from ..nlp import jieba, spacy_pipeline
from ..problem import Problem
from .sentences import is_chinese

ENGLISH_POS = frozenset({"NOUN", "PROPN", "VERB"})
CHINESE_FLAGS = ("n", "v", "q")


def _chinese(text: str) -> frozenset[str]:
    words = [(pair.word, pair.flag) for pair in jieba().posseg.cut(text)]
    kept = {word for word, flag in words if flag.startswith(CHINESE_FLAGS)}
    kept |= {word for (before, _), (word, flag) in zip(words, words[1:]) if before.isdigit() and flag != "x"}
    return frozenset(kept)


#: text → its constituents: SD is synthesised from one pool several times (both readings, with and without the
#: preconditions), and tagging the same texts again is most of the cost
_ANALYSED: dict[str, frozenset[str]] = {}


def constituent_sets(problems: Iterable[Problem]) -> dict[str, frozenset[str]]:
    """Constituents of many problems, keyed by problem id (each text analysed once per process; English texts go
    through spaCy's `nlp.pipe` in one batch, with the parser off since only tags and lemmas are needed)."""
    texts = {problem.id: problem.text for problem in problems}
    new = list(dict.fromkeys(text for text in texts.values() if text not in _ANALYSED))
    _ANALYSED.update((text, _chinese(text)) for text in new if is_chinese(text))
    english = [text for text in new if not is_chinese(text)]
    if english:
        docs = spacy_pipeline(("ner", "parser")).pipe(english, batch_size=256)
        for text, doc in zip(english, docs):
            _ANALYSED[text] = frozenset(token.lemma_.lower() for token in doc if token.pos_ in ENGLISH_POS)
    return {pid: _ANALYSED[text] for pid, text in texts.items()}


def constituents(problem: Problem) -> frozenset[str]:
    """The nouns, verbs and measure units of one problem."""
    return constituent_sets([problem])[problem.id]


def similarity(a: frozenset[str], b: frozenset[str]) -> float:
    """Jaccard overlap of two constituent sets: 0 when they share nothing, 1 when equal."""
    union = a | b
    return len(a & b) / len(union) if union else 0.0
