"""A run's identity by an explicit schema: added, renamed and retired fields and code versions keep recorded keys."""
from __future__ import annotations

from dataclasses import dataclass, replace

import pytest
import torch

from mwplib import run_spec
from mwplib.models import TransformerConfig, build_model
from mwplib.run_spec import RunSpec
from mwplib.solver import load_checkpoint, save_checkpoint
from test_models import fast_config, one_thread, toy_problems  # noqa: F401 (autouse fixture)


def _spec(config=None, model="gts") -> RunSpec:
    return RunSpec(model, config or fast_config(model), "toy", "toy", 0, 0, epochs=1, beam=1)


def test_a_description_rebuilds_its_spec_and_key() -> None:
    spec = _spec(replace(fast_config("gts"), weight_decay=1e-5))
    described = spec.describe()
    assert described["config"]["weight_decay"] == 1e-5 and "precision" not in described["config"]
    assert run_spec.spec_of(described) == spec
    assert run_spec.key(described, "data") == spec.key("data") != spec.key("other data")


def test_fields_added_later_stay_out_of_the_key_at_their_earlier_value() -> None:
    spec = _spec()
    assert "patience" not in spec.describe() and "max_grad_norm" not in spec.describe()["config"]
    assert replace(spec, patience=2).key("x") != spec.key("x")
    assert _spec(replace(spec.config, max_grad_norm=0.25)).key("x") != spec.key("x")


@dataclass(frozen=True)
class ToyConfig:  # a config whose field `hidden` was renamed to say what it is
    embedding: str = "scratch"
    ffn_width: int = 384


def test_a_renamed_field_keeps_its_recorded_name_and_key(monkeypatch) -> None:
    monkeypatch.setitem(run_spec.CONFIG_CLASSES, "ToyConfig", ToyConfig)
    recorded = {"model": "toy", "dataset": "toy", "split": "toy", "fold": 0, "seed": 0, "epochs": 1, "beam": 1,
                "val_fraction": 0.1, "config": {"class": "ToyConfig", "embedding": "scratch", "hidden": 384}}
    before = run_spec.key(recorded, "x")  # the key of a run recorded before the rename
    monkeypatch.setitem(run_spec.RENAMED, "ToyConfig", {"ffn_width": "hidden"})
    spec = run_spec.spec_of(recorded)
    assert spec.config == ToyConfig(ffn_width=384)
    assert spec.describe() == recorded and spec.key("x") == before


def test_a_retired_field_is_dropped_when_a_config_is_rebuilt() -> None:
    values = {"class": "TransformerConfig", "embedding": "minilm", "in_position_std": 0.02, "graph_version": 1}
    assert run_spec.config_from("TransformerConfig", values) == TransformerConfig(embedding="minilm")


def test_an_unknown_field_or_class_is_named() -> None:
    with pytest.raises(ValueError, match="TransformerConfig has no field colour: list it in mwplib.run_spec"):
        run_spec.config_from("TransformerConfig", {"colour": "red"})
    with pytest.raises(ValueError, match="unknown config class 'NoConfig'"):
        run_spec.config_from("NoConfig", {})


def test_a_code_version_bump_retrains_only_that_model(monkeypatch) -> None:
    gts, seq2seq = _spec(), _spec(model="seq2seq")
    before = gts.key("x"), seq2seq.key("x")
    monkeypatch.setitem(run_spec.CODE_VERSIONS, "gts", 2)
    assert gts.describe()["code_version"] == 2 and "code_version" not in seq2seq.describe()
    assert gts.key("x") != before[0] and seq2seq.key("x") == before[1]
    assert run_spec.spec_of(gts.describe()) == gts


def test_a_checkpoint_saved_with_a_retired_field_loads(tmp_path) -> None:
    model = build_model("transformer", fast_config("transformer"), toy_problems(6))
    path = save_checkpoint(model, "transformer", 8, tmp_path / "old.pt")
    saved = torch.load(path, weights_only=True)
    saved["config"]["in_position_std"] = 0.02  # what the probe's checkpoint holds
    torch.save(saved, path)
    loaded, _ = load_checkpoint(path)
    assert loaded.config == model.config
