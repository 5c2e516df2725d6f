"""Loaders turning the raw, checksummed files under data/ into `Problem` records and `Split`s.

Submodules are imported lazily, on first use of a name, so that `import mwplib.data` stays cheap and a
notebook pays only for the datasets it reads.
"""
from __future__ import annotations

import importlib
from typing import Any

from mwplib.data.checksums import DataError, data_file

#: public name -> submodule that defines it
_LAZY = {
    "load_svamp": "svamp",
    "load_cv": "svamp",
    "load_mawps_asdiv_svamp": "svamp",
    "load_cv_svamp_augmented": "svamp",
    "unjoined_rows": "svamp",
    "apply_errata": "errata",
    "errata_markdown": "errata",
    "ERRATA": "errata",
    "split_question": "questions",
    "remove_question": "questions",
    "question_removal_agreement": "removal_check",
    "load_mawps_2373": "mawps",
    "load_mawps_subsets": "mawps",
    "mawps_issues": "mawps",
    "load_asdiv_a": "asdiv",
    "load_asdiv_a_problems": "asdiv",
    "asdiv_issues": "asdiv",
    "load_math23k": "math23k",
    "load_math23k_public_test": "math23k",
    "math23k_issues": "math23k",
    "svamp_issues": "svamp",
    "svamp_seeds": "svamp",
    "svamp_seed_problems": "svamp",
    "data_inventory": "inventory",
    "load_problems": "own",
    "check_problems": "own",
    "own_splits": "own",
}

__all__ = ["DataError", "data_file", *_LAZY]


def __getattr__(name: str) -> Any:
    if name not in _LAZY:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{_LAZY[name]}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)
