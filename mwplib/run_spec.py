"""A training run's identity: the explicit schema its cache key hashes.

A run's key is the hash of its *description* (the run's settings and its model's config, under the names and at
the values this module decides) and of the checksum of its problems. The description is written into the run's
record as its `spec`. It is not simply "every field a config class has today", so the classes can change without
orphaning the recorded runs:

* a field added after runs were recorded is left out at the value those runs trained with (:data:`ADDED`);
* a renamed field keeps its recorded name in the description (:data:`RENAMED`);
* a field that only a probe used, and that the model API no longer has, stays in that probe's record and is
  dropped when its config is rebuilt (:data:`RETIRED`);
* a change to a model's code that changes its results bumps the model's stamp in :data:`CODE_VERSIONS`, so runs
  recorded with the older code are not reused (version 1, every recorded run's, is left out of the description).

`tests/test_recorded_results.py` rebuilds every committed record's spec from its description (:func:`spec_of`) and
checks that it hashes to the record's key and file name.
"""
from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass, fields
from typing import Any, Mapping

from .models import MODELS, ModelConfig

#: Fields added after runs were recorded, with the value every earlier run trained with: a run at that value leaves
#: the field out of its description, so adding a field changes no recorded key. Run-level and config-level fields
#: share the table (no name is both).
ADDED: dict[str, object] = {"patience": 0, "weight_decay": 0.0, "lr_halving": 0, "max_grad_norm": 5.0,
                            "precision": "fp32", "indexed_numbers": False, "pretrained_input_dropout": True,
                            "warmup_steps": 0, "encoder_cell": "lstm"}

#: Renamed config fields, per config class: today's attribute name -> the name descriptions keep (none yet; e.g.
#: ``{"TransformerConfig": {"ffn_width": "hidden"}}`` would let the Transformer's feed-forward width say so).
RENAMED: dict[str, dict[str, str]] = {}

#: Fields no config class has any more, with why: a recorded run that used one keeps it in its description (and so
#: its key), and rebuilding that run's config, or loading its checkpoint, drops it. Each shaped only training.
RETIRED: dict[str, str] = {
    "in_position_std": "a one-run Transformer probe: the initial scale of the learned input positions",
    "graph_version": "Graph2Tree's graph builder version, now CODE_VERSIONS['graph2tree']",
}

#: Version of each model's code, by model name (1 when absent): bump it with a change that alters the results of
#: runs already recorded (e.g. to what `mwplib.graphs` builds for Graph2Tree), so those runs train again.
CODE_VERSIONS: dict[str, int] = {}

CONFIG_CLASSES: dict[str, type[ModelConfig]] = {config.__name__: config for _, config in MODELS.values()}
_ABSENT = object()


@dataclass(frozen=True)
class RunSpec:
    """Everything that decides a run's result, except its problems (whose checksum joins the key)."""

    model: str
    config: ModelConfig
    dataset: str
    split: str
    fold: int
    seed: int
    epochs: int
    beam: int
    val_fraction: float = 0.1  # 0: the paper's protocol, training on the whole training fold
    patience: int = 0  # stop once validation has not improved for this many epochs; 0: train every epoch

    def describe(self) -> dict[str, Any]:
        """The run's description by this module's schema: what its key hashes and its record keeps as `spec`."""
        run = {k: v for k, v in _as_declared(self).items() if k != "config" and ADDED.get(k, _ABSENT) != v}
        version = CODE_VERSIONS.get(self.model, 1)
        return {**run, **({"code_version": version} if version != 1 else {}), "config": describe_config(self.config)}

    def key(self, data_checksum: str) -> str:
        return key(self.describe(), data_checksum)


def key(described: Mapping[str, Any], data_checksum: str) -> str:
    """The cache key of a run described by `described` (:meth:`RunSpec.describe`, or a record's `spec`)."""
    blob = json.dumps({**described, "data": data_checksum}, sort_keys=True)
    return hashlib.sha256(blob.encode()).hexdigest()[:16]


def describe_config(config: ModelConfig) -> dict[str, Any]:
    """A config's part of a description: its class name and fields under their recorded names, added fields at
    their earlier value left out."""
    renamed = RENAMED.get(type(config).__name__, {})
    return {"class": type(config).__name__, **{renamed.get(k, k): v for k, v in _as_declared(config).items()
                                                if ADDED.get(k, _ABSENT) != v}}


def config_from(class_name: str, values: Mapping[str, Any]) -> ModelConfig:
    """A config of today's class `class_name` from recorded values (a description's or a checkpoint's): recorded
    names mapped to today's, retired fields dropped. Raises ValueError for a class or field the schema does not
    know, naming it."""
    if class_name not in CONFIG_CLASSES:
        raise ValueError(f"unknown config class {class_name!r}; known: {sorted(CONFIG_CLASSES)}")
    config_class = CONFIG_CLASSES[class_name]
    today = {recorded: name for name, recorded in RENAMED.get(class_name, {}).items()}
    values = {today.get(k, k): v for k, v in values.items() if k != "class" and k not in RETIRED}
    if unknown := sorted(set(values) - {f.name for f in fields(config_class)}):
        raise ValueError(f"{class_name} has no field {', '.join(unknown)}: list it in mwplib.run_spec.RENAMED or "
                         "RETIRED")
    return config_class(**values)


def spec_of(described: Mapping[str, Any]) -> RunSpec:
    """The spec a description (a record's `spec`) was made from, with today's config class and the model's code
    version today. ``spec_of(d).describe() == d`` unless `d` has a retired field or an older code version."""
    run = {k: v for k, v in described.items() if k not in ("config", "code_version")}
    return RunSpec(**run, config=config_from(described["config"]["class"], described["config"]))


def _as_declared(instance: Any) -> dict[str, Any]:
    """A dataclass's fields (nested ones as dicts), an int in a float field as a float: ``val_fraction=0`` and
    the CLI's ``0.0`` are one setting, so they must be one key."""
    values = asdict(instance)
    return {f.name: float(values[f.name]) if f.type in ("float", float) and type(values[f.name]) is int
            else values[f.name] for f in fields(instance)}
