"""Executors of a sweep: where its workers run.

``inline`` (the default): one worker in this process, appending to the main store file (today's ``rgr-verify
sweep``). ``local``: one worker process per GPU (``devices``, each with its ``CUDA_VISIBLE_DEVICES``) or per CPU
slot (``workers``), self-scheduling over the units, each appending to its own shard; a worker that dies is
restarted (up to ``retries`` times per slot) and costs only its in-flight runs. ``slurm`` (submitit, optional
extra) and ``ray`` (optional extra) are in :mod:`rgr_verify.runs.sweeps.slurm` and :mod:`rgr_verify.runs.sweeps.ray_executor`.
Every executor shows one progress bar fed from the store (:class:`~rgr_verify.runs.sweeps.progress.SweepProgress`) and
returns the same summary dict.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from dataclasses import dataclass
from typing import Callable, Sequence

from ...basics.checks import check_choice, check_int, check_real
from ..store import ResultStore
from .progress import SweepProgress, sweep_summary
from .units import Unit
from .worker import PARENT_ENV, SweepSpec, resolve_device, work_units

__all__ = ["EXECUTORS", "EXECUTOR_OBJECTS", "Executor", "run_sweep", "run_inline", "run_local", "run_preset"]

EXECUTORS = ("inline", "local", "slurm", "ray")


def _stored(spec: SweepSpec, units: Sequence[Unit]) -> int:
    have = set(ResultStore(spec.results_dir).records())
    return sum(k in have for u in units for k in u.keys)


def run_inline(spec: SweepSpec, *, progress: bool = True, stop_after: float | None = None) -> dict:
    """The inline executor: one worker in this process (torch threads ``spec.threads``), appending to the main
    store file; concurrent sweeps of the same store split the units between them. ``stop_after``: seconds after
    which no unit is started (:func:`~rgr_verify.runs.sweeps.worker.work_units`); the summary's ``complete`` says
    whether every run is stored."""
    import torch

    if spec.threads is not None:
        torch.set_num_threads(spec.threads)
    store = ResultStore(spec.results_dir)
    units = spec.units()
    before = _stored(spec, units)
    bar = SweepProgress(store, units, desc=f"{spec.preset} [{spec.tier}]", enabled=progress)
    try:
        work_units(units, store, device=resolve_device(spec.device), dtype=spec.dtype, max_batch=spec.max_batch,
                   max_waste=spec.max_waste, on_record=bar.update, stop_after=stop_after)
    finally:
        bar.close()
    return sweep_summary(spec, units, "inline", before)


def run_local(spec: SweepSpec, *, workers: int | None = None, devices: Sequence[str] | None = None,
              retries: int = 3, progress: bool = True, poll: float = 0.5) -> dict:
    """The local executor: worker processes on this machine (``python -m rgr_verify.runs.sweeps SPEC_JSON``).

    ``devices``: GPU ids, one worker each (``CUDA_VISIBLE_DEVICES=<id>``, device ``cuda``); or ``workers``: that
    many CPU-slot workers (device ``spec.device``, torch threads ``spec.threads`` each). A worker that exits
    abnormally while runs are missing is restarted, at most ``retries`` times per slot. The workers are killed if
    this process dies or is interrupted. Raises RuntimeError if runs are still missing when every worker has ended."""
    if (workers is None) == (devices is None):
        raise ValueError("pass exactly one of workers (CPU slots) and devices (GPU ids)")
    if devices is not None:
        devices = [str(d).strip() for d in devices]
        if not devices or not all(d.isdigit() for d in devices) or len(set(devices)) != len(devices):
            raise ValueError(f"devices must be distinct GPU ids (non-negative integers), got {devices!r}")
        if spec.device == "cpu":
            raise ValueError("devices (GPU ids) need device cuda or None, got device 'cpu'")
        spec = SweepSpec(**{**spec.__dict__, "device": "cuda"})
        slots = len(devices)
    else:
        slots = check_int("workers", workers, min_value=1)
    retries = check_int("retries", retries, min_value=0)
    poll = check_real("poll", poll, low=0.0, low_open=True)
    units = spec.units()
    store = ResultStore(spec.results_dir)
    before = _stored(spec, units)
    argv = [sys.executable, "-m", "rgr_verify.runs.sweeps", spec.to_json()]

    # the workers import this process's copy of the package, wherever they start
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
    path = os.pathsep.join([root, *filter(None, [os.environ.get("PYTHONPATH")])])

    def start(slot: int) -> subprocess.Popen:
        env = {**os.environ, PARENT_ENV: str(os.getpid()), "PYTHONPATH": path}
        if devices is not None:
            env["CUDA_VISIBLE_DEVICES"] = devices[slot]
        elif spec.threads is not None:  # CPU slots: no BLAS / OpenMP pool wider than the worker's threads
            for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
                env.setdefault(var, str(spec.threads))
        return subprocess.Popen(argv, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL)

    bar = SweepProgress(store, units, desc=f"{spec.preset} [{spec.tier}] x{slots}", enabled=progress)
    procs = {slot: start(slot) for slot in range(slots)}
    restarts = dict.fromkeys(range(slots), 0)
    failed: list[str] = []
    try:
        while procs:
            time.sleep(poll)
            bar.update()
            for slot, proc in list(procs.items()):
                rc = proc.poll()
                if rc is None:
                    continue
                del procs[slot]
                if rc == 0 or bar.update() == bar.total:  # a finished worker, or nothing left to restart it for
                    continue
                if restarts[slot] < retries:
                    restarts[slot] += 1
                    bar.note(f"worker {slot} exited with status {rc}; restarting it ({restarts[slot]} of {retries})")
                    procs[slot] = start(slot)
                else:
                    failed.append(f"worker {slot} exited with status {rc} after {retries} restarts")
    finally:
        for proc in procs.values():
            proc.kill()
        for proc in procs.values():
            proc.wait()
        bar.close()
    summary = sweep_summary(spec, units, "local", before, workers=slots, restarts=sum(restarts.values()))
    if not summary["complete"]:
        missing = summary["total"] - summary["reused"] - summary["trained"]
        raise RuntimeError(f"local sweep of {spec.preset} [{spec.tier}] ended with {missing} runs missing: "
                           + "; ".join(failed or ["no worker failed"]))
    return summary


@dataclass(frozen=True)
class Executor:
    """One way to run a sweep's units (the protocol every executor follows): ``run(spec, workers=, devices=,
    retries=, progress=, stop_after=, **options)`` returns the summary (:func:`sweep_summary`). What it accepts is
    declared, so :func:`run_sweep` refuses the rest by name: ``workers`` / ``devices`` / ``stop_after`` (bools)
    and its own ``options`` (names)."""

    name: str
    run: Callable[..., dict]
    workers: bool = True
    devices: bool = False
    stop_after: bool = False
    options: tuple = ()


def _inline(spec, *, workers, devices, retries, progress, stop_after, **options):
    return run_inline(spec, progress=progress, stop_after=stop_after)


def _local(spec, *, workers, devices, retries, progress, stop_after, **options):
    return run_local(spec, workers=workers, devices=devices, retries=retries, progress=progress)


def _slurm(spec, *, workers, devices, retries, progress, stop_after, **options):
    from .slurm import run_slurm

    return run_slurm(spec, workers=workers or 1, retries=retries, progress=progress, **options)


def _ray(spec, *, workers, devices, retries, progress, stop_after, **options):
    from .ray_executor import run_ray

    return run_ray(spec, workers=workers or 1, retries=retries, progress=progress, **options)


EXECUTOR_OBJECTS = {e.name: e for e in (
    Executor("inline", _inline, workers=False, stop_after=True),
    Executor("local", _local, devices=True),
    Executor("slurm", _slurm, options=("partition", "time_min", "array_parallelism", "cluster", "folder")),
    Executor("ray", _ray, options=("address",)),
)}


def run_sweep(spec: SweepSpec, executor: str = "inline", *, workers: int | None = None,
              devices: Sequence[str] | None = None, retries: int = 3, progress: bool = True,
              stop_after: float | None = None, **options) -> dict:
    """Run a sweep with ``executor`` (one of :data:`EXECUTORS`, an :class:`Executor` of
    :data:`EXECUTOR_OBJECTS`); ``options`` are the executor's own (slurm: partition, time_min, array_parallelism,
    cluster, folder; ray: address). ``stop_after``: inline only (see :func:`run_inline`). Returns the summary
    dict; ValueError naming what the executor does not take."""
    if not isinstance(spec, SweepSpec):
        raise ValueError(f"spec must be a SweepSpec, got {type(spec).__name__}")
    check_choice("executor", executor, EXECUTORS)
    ex = EXECUTOR_OBJECTS[executor]
    if not ex.workers and workers not in (None, 1):
        raise ValueError(f"the {executor} executor takes no workers")
    if not ex.devices and devices is not None:
        raise ValueError(f"devices are for the local executor; the {executor} executor takes "
                         + ("workers" if ex.workers else "no devices"))
    if not ex.stop_after and stop_after is not None:
        raise ValueError(f"stop_after is for the inline executor (and --worker), not {executor}")
    unknown = sorted(set(options) - set(ex.options))
    if unknown:
        raise ValueError(f"the {executor} executor takes no options {unknown}")
    return ex.run(spec, workers=workers, devices=devices, retries=retries, progress=progress, stop_after=stop_after,
                  **options)


def run_preset(name: str, *, tier: str = "quick", device: str | None = None, results_dir=None,
               threads: int | None = None, max_batch: int = 256, max_waste: float = 4.0,
               progress: bool = False) -> dict:
    """Train (or reuse) every run of a preset inline (units of at most ``max_batch`` runs); returns the summary
    dict of :func:`sweep_summary` with the ``records`` in the preset's run order."""
    spec = SweepSpec(name, tier, results_dir=results_dir, device=device, threads=threads, unit_max_batch=max_batch,
                     max_batch=max_batch, max_waste=max_waste)
    summary = run_inline(spec, progress=progress)
    recs = ResultStore(spec.results_dir).lookup(spec.runs())
    if any(r is None for r in recs):  # pragma: no cover - would mean a lost append
        raise RuntimeError("results store lost a record")
    return {**summary, "records": recs}
