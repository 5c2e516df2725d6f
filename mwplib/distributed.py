"""A grid that outgrows one machine, on Ray (``python -m mwplib.batch --backend ray [--address HOST:PORT]``).

Each missing run becomes one Ray task asking for its CPUs and a fraction of a GPU, so many small solvers share a
card. The task calls the same function a local grid does (`batch.train_recorded`): the record it writes is the
same, a run interrupted mid-way resumes from its saved epochs, and two workers finishing one run write it
atomically under temporary names of their own (`records.write_record`). Workers write under the project root
passed to them (`MWPLIB_ROOT`), so on a cluster they share the checkout or their `results/` is gathered afterwards.
Ray is an optional extra (``pip install ray``); the local process pool (``--jobs``) stays the default.
"""
from __future__ import annotations

from typing import Any, Callable, Sequence

from . import paths


def _ray() -> Any:
    try:
        import ray
    except ImportError:
        raise ImportError("--backend ray needs Ray: .venv/bin/pip install ray (an optional extra of mwplib)") from None
    return ray


def _call(function: Callable[..., str], args: tuple[Any, ...], threads: int) -> str:
    """One task in a Ray worker (a process of its own), with `threads` CPU threads."""
    import torch

    torch.set_num_threads(threads)
    return function(*args)


def run_on_ray(tasks: Sequence[tuple[str, Callable[..., str], tuple[Any, ...]]], *, address: str | None = None,
               cpus_per_task: int = 1, gpus_per_task: float = 0.0, num_cpus: int | None = None) -> int:
    """Run each (label, function, args) of `tasks` as a Ray task on the cluster at `address` (None: a local Ray
    instance with `num_cpus`), printing each result as it lands; returns how many failed. `function` must be
    importable by name (a module-level function), so workers run this project's code, not a pickled copy."""
    ray = _ray()
    ray.init(address=address, num_cpus=num_cpus if address is None else None, include_dashboard=False,
             ignore_reinit_error=True, log_to_driver=False,
             runtime_env={"env_vars": {"MWPLIB_ROOT": str(paths.ROOT), "OMP_NUM_THREADS": str(cpus_per_task)}})
    remote = ray.remote(_call).options(num_cpus=cpus_per_task, num_gpus=gpus_per_task, max_retries=0)
    pending = {remote.remote(function, args, cpus_per_task): label for label, function, args in tasks}
    print(f"{len(pending)} tasks submitted to Ray ({cpus_per_task} CPU, {gpus_per_task:g} GPU each)", flush=True)
    failed = 0
    while pending:
        (done,), _ = ray.wait(list(pending), num_returns=1)
        label = pending.pop(done)
        try:
            print(f"{label}: {ray.get(done)}", flush=True)
        except ray.exceptions.RayError as error:
            failed += 1
            print(f"{label}: FAILED ({type(error).__name__}: {str(error).strip().splitlines()[0]})", flush=True)
    return failed
