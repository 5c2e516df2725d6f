"""The solvers of Lan et al.'s Table II with the hyper-parameters of their Table VI, trained through the
project's one training loop and run cache (`mwplib.runs`): a run on a compositional split is recorded like any
other, under the dataset name ``<pool>-<split>`` (e.g. ``mawps-comdiv``, ``sd-en``).

Table VI's LSTM is the project's BiLSTM Seq2Seq; its Transformer has no learning-rate warm-up here (a
deviation, labelled in the notebook). Validation is 20 % of each training set (§V-B).
"""
from __future__ import annotations

from typing import Any, Sequence

from .. import runs
from ..problem import Problem
from ..profiles import Profile
from .splits import VALIDATION_FRACTION

#: Table VI: the hyper-parameters each method deviates from its defaults with (scratch embeddings)
TABLE_VI: dict[str, dict[str, Any]] = {
    "seq2seq": {"batch_size": 32, "emb_dim": 128, "hidden": 512, "layers": 2, "lr": 1e-3, "emb_lr": 1e-3,
                "dropout": 0.5, "epochs": 100},
    "transformer": {"batch_size": 64, "emb_dim": 512, "hidden": 512, "layers": 4, "heads": 8, "lr": 3e-3,
                    "emb_lr": 3e-3, "epochs": 100},
    "gts": {"batch_size": 64, "emb_dim": 128, "hidden": 512, "lr": 1e-3, "emb_lr": 1e-3, "dropout": 0.5,
            "epochs": 100},
}
#: the paper's names of the project's models
NAMES = {"seq2seq": "LSTM", "transformer": "Transformer", "gts": "GTS"}


def spec(model: str, dataset: str, profile: Profile, seed: int = 0, **overrides: Any) -> runs.RunSpec:
    """The run of `model` with Table VI's settings on `dataset`, epochs from `profile`."""
    return runs.spec_for(model, "scratch", dataset, dataset, 0, profile, seed, VALIDATION_FRACTION,
                         **{**TABLE_VI[model], **overrides})


def train(model: str, dataset: str, train_set: Sequence[Problem], test_set: Sequence[Problem], profile: Profile,
          seed: int = 0, *, train_missing: bool = True, progress: bool = False, **overrides: Any
          ) -> dict[str, Any] | None:
    """The recorded run (trained first when missing and `train_missing`), or None."""
    run_spec = spec(model, dataset, profile, seed, **overrides)
    if not train_missing:
        return runs.recorded(run_spec, train_set, test_set, profile.name)
    return runs.run(run_spec, train_set, test_set, profile.name, progress=progress)
