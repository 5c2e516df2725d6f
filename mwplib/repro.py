"""Seeds, the run manifest saved beside every table and run, and the hash of what a set of modules computes."""
from __future__ import annotations

import ast
import hashlib
import os
import platform
import random
import subprocess
from importlib import metadata
from pathlib import Path
from typing import Any, Iterable

from . import paths
from .profiles import Profile

_PACKAGES = ("torch", "transformers", "spacy", "numpy", "pandas", "sympy", "mwplib")


def seed_everything(seed: int) -> None:
    """Seed Python, NumPy and (if installed) PyTorch."""
    random.seed(seed)
    os.environ["PYTHONHASHSEED"] = str(seed)  # for child processes; run_all.sh and test.sh export it for this one
    try:
        import numpy as np

        np.random.seed(seed)
    except ImportError:
        pass
    try:
        import torch

        torch.manual_seed(seed)
    except ImportError:
        pass


#: what a render or a run writes: a change there does not make the code that wrote it "-dirty"
GENERATED = ("results", "figures", "docs/book")


def git_sha() -> str:
    """The commit of this checkout, ``-dirty`` when its code, notebooks or data differ from it (not its generated
    tables, figures and records, which every render rewrites); a copy without .git (e.g. sent to a GPU box)
    passes it in MWPLIB_GIT_SHA."""
    if sha := os.environ.get("MWPLIB_GIT_SHA"):
        return sha
    try:
        out = subprocess.run(["git", "rev-parse", "HEAD"], cwd=paths.ROOT, capture_output=True, text=True,
                             check=True, timeout=10)
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no", "--", ".",
                                *(f":(exclude){path}" for path in GENERATED)], cwd=paths.ROOT,
                               capture_output=True, text=True, timeout=10).stdout.strip()
        return out.stdout.strip() + ("-dirty" if dirty else "")
    except (OSError, subprocess.SubprocessError):
        return "unknown"


def device_name() -> str:
    """'cuda:<name>' when a GPU is visible to torch, else 'cpu:<processor>'."""
    try:
        import torch

        if torch.cuda.is_available():
            return f"cuda:{torch.cuda.get_device_name(0)}"
    except ImportError:
        pass
    return f"cpu:{platform.processor() or platform.machine()} x{os.cpu_count()}"


def package_versions() -> dict[str, str]:
    versions = {}
    for name in _PACKAGES:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = "absent"
    return versions


def run_manifest(profile: Profile, seed: int | None = None) -> dict[str, Any]:
    """Everything needed to say where a number came from, with the CPU thread count (one seed gives the same run
    only at the same count: float sums are split differently across threads) and the vector instructions torch's
    CPU kernels use, so that a retrain that differs from a record made elsewhere can be traced to the machine or
    ruled out (docs/lab-notes/compositional.md, 2026-11-29)."""
    import torch

    return {"git": git_sha(), "profile": profile.name, "seed": seed, "device": device_name(),
            "threads": torch.get_num_threads(), "cpu_capability": torch.backends.cpu.get_cpu_capability(),
            "python": platform.python_version(), "packages": package_versions()}


def _without_docstrings(tree: ast.AST) -> ast.AST:
    """`tree` with the docstring (a string constant as first statement) of its module, classes and functions
    removed, in place; a body left empty keeps a ``pass``."""
    for node in ast.walk(tree):
        if not isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        first = node.body[0] if node.body else None
        if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str):
            node.body = node.body[1:] or [ast.Pass()]
    return tree


def code_dump(source: str) -> str:
    """What a module's `source` computes, as text: its syntax tree without docstrings, comments, line or column
    numbers (`ast.dump`), so that only an edit of its code changes it."""
    return ast.dump(_without_docstrings(ast.parse(source)))


def code_digest(files: Iterable[Path]) -> str:
    """SHA-1 (hex) of the `code_dump` of each Python file in `files`, in their order."""
    digest = hashlib.sha1()
    for path in files:
        digest.update(code_dump(Path(path).read_text(encoding="utf-8")).encode() + b"\n")
    return digest.hexdigest()
