"""The ``slurm`` executor: a Slurm job array of sweep workers, through submitit (``pip install 'rgr-verify[slurm]'``).

Each array task is one worker (:func:`rgr_verify.runs.sweeps.worker.run_worker`) with one GPU (none with ``device
cpu``), self-scheduling over the units and appending to its own shard of the store, so the results directory must
be on a filesystem every node mounts (docs/cluster.md says what its locks need). A task that is preempted or
reaches its time limit is checkpointed and requeued by submitit (the worker resumes: nothing stored is redone); a
task that fails while runs are missing is resubmitted, at most ``retries`` times per array index.
``cluster="local"`` runs the same jobs as local processes with submitit's LocalExecutor (no Slurm needed: what the
tests use).
"""

from __future__ import annotations

import time
from pathlib import Path

from ...basics.checks import check_choice, check_int, check_real
from ..store import ResultStore
from .progress import SweepProgress
from .worker import SweepSpec, run_worker

__all__ = ["SweepTask", "run_slurm", "CLUSTERS"]

CLUSTERS = ("slurm", "local")


def _submitit():
    try:
        import submitit
    except ImportError:
        raise ValueError("the slurm executor needs submitit: pip install 'rgr-verify[slurm]'") from None
    return submitit


class SweepTask:
    """The picklable job of one array task: runs a worker over ``spec``; checkpointable (requeued as is)."""

    def __init__(self, spec: SweepSpec):
        if not isinstance(spec, SweepSpec):
            raise ValueError(f"spec must be a SweepSpec, got {type(spec).__name__}")
        self.spec = spec

    def __call__(self, index: int) -> dict:
        return {**run_worker(self.spec), "index": int(index)}

    def checkpoint(self, index: int):
        """On preemption or timeout: requeue the same task (the worker resumes from the store)."""
        return _submitit().helpers.DelayedSubmission(SweepTask(self.spec), index)


def run_slurm(spec: SweepSpec, *, workers: int = 1, retries: int = 3, progress: bool = True,
              partition: str | None = None, time_min: int = 24 * 60, array_parallelism: int | None = None,
              cluster: str = "slurm", folder: str | None = None, gpus: int | None = None, poll: float = 2.0) -> dict:
    """Submit ``workers`` array tasks and wait for them, showing the store's progress.

    ``partition``: Slurm partition (None: the cluster's default); ``time_min``: time limit per task in minutes;
    ``array_parallelism``: most tasks running at once (None: all); ``cluster``: ``slurm`` or ``local`` (submitit's
    LocalExecutor); ``folder``: submitit's logs and pickles (default ``<results>/submitit``); ``gpus``: GPUs per
    task (None: 0 with device cpu, else 1, and 0 for ``local`` without CUDA). Returns the sweep summary; raises
    RuntimeError if runs are missing when every task has ended."""
    from .progress import sweep_summary

    check_choice("cluster", cluster, CLUSTERS)
    workers = check_int("workers", workers, min_value=1)
    retries = check_int("retries", retries, min_value=0)
    time_min = check_int("time_min", time_min, min_value=1)
    poll = check_real("poll", poll, low=0.0, low_open=True)
    if array_parallelism is not None:
        array_parallelism = check_int("array_parallelism", array_parallelism, min_value=1)
    if partition is not None and (not isinstance(partition, str) or not partition.strip()):
        raise ValueError(f"partition must be None or a non-empty string, got {partition!r}")
    if gpus is None:
        gpus = 0 if spec.device == "cpu" else 1
        if cluster == "local":
            import torch

            gpus = min(gpus, int(torch.cuda.is_available()))
    gpus = check_int("gpus", gpus, min_value=0)
    submitit = _submitit()
    folder = Path(folder) if folder is not None else Path(spec.results_dir) / "submitit"
    executor = submitit.AutoExecutor(folder=str(folder / "%j"), cluster=cluster, slurm_max_num_timeout=retries)
    params = dict(name=f"rgr-{spec.preset}-{spec.tier}", timeout_min=time_min, gpus_per_node=gpus,
                  cpus_per_task=spec.threads or 1, tasks_per_node=1, nodes=1,
                  slurm_array_parallelism=array_parallelism or workers)
    if partition is not None:
        params["slurm_partition"] = partition
    executor.update_parameters(**params)
    units = spec.units()
    store = ResultStore(spec.results_dir)
    before = sum(k in set(store.records()) for u in units for k in u.keys)
    task = SweepTask(spec)
    jobs = dict(enumerate(executor.map_array(task, list(range(workers)))))
    tries = dict.fromkeys(jobs, 0)
    failed: list[str] = []
    bar = SweepProgress(store, units, desc=f"{spec.preset} [{spec.tier}] slurm x{workers}", enabled=progress)
    try:
        while jobs:
            time.sleep(poll)
            bar.update()
            for index, job in list(jobs.items()):
                if not job.done():
                    continue
                del jobs[index]
                error = job.exception()
                if error is None or bar.update() == bar.total:  # done, or nothing left to resubmit it for
                    continue
                if tries[index] < retries:
                    tries[index] += 1
                    bar.note(f"task {index} (job {job.job_id}) failed; resubmitting it ({tries[index]} of {retries})")
                    jobs[index] = executor.submit(task, index)
                else:
                    failed.append(f"task {index} (job {job.job_id}) failed: {str(error).splitlines()[0]}")
    except BaseException:
        for job in jobs.values():
            job.cancel(check=False)
        raise
    finally:
        bar.close()
    summary = sweep_summary(spec, units, "slurm", before, workers=workers, resubmitted=sum(tries.values()),
                            folder=str(folder))
    if not summary["complete"]:
        missing = summary["total"] - summary["reused"] - summary["trained"]
        raise RuntimeError(f"slurm sweep of {spec.preset} [{spec.tier}] ended with {missing} runs missing: "
                           + "; ".join(failed or ["no task failed"]))
    return summary
