"""The ``ray`` executor: sweep workers as Ray tasks (``pip install 'rgr-verify[ray]'``).

``workers`` tasks, each one worker (:func:`rgr_verify.runs.sweeps.worker.run_worker`) with ``num_gpus=1`` (0 with
device cpu, or when the Ray cluster has no GPU and no device was asked for), self-scheduling over the units and
appending to its own shard of the store (a filesystem every Ray node mounts). A task whose worker process dies,
or that raises, is retried by Ray (``max_retries=retries``). ``address``: an existing cluster (``ray start
--head`` / ``auto``); None starts a local one for the sweep and stops it after.
"""

from __future__ import annotations

from ...basics.checks import check_int, check_real
from ..store import ResultStore
from .progress import SweepProgress
from .worker import SweepSpec, run_worker

__all__ = ["run_ray", "ray_task"]


def _ray():
    try:
        import ray
    except ImportError:
        raise ValueError("the ray executor needs ray: pip install 'rgr-verify[ray]'") from None
    return ray


def ray_task(spec_json: str) -> dict:
    """The body of one Ray task: a worker over the spec (JSON of :class:`SweepSpec`)."""
    return run_worker(SweepSpec.from_json(spec_json))


def run_ray(spec: SweepSpec, *, workers: int = 1, retries: int = 3, progress: bool = True, address: str | None = None,
            poll: float = 1.0) -> dict:
    """Run ``workers`` worker tasks on Ray and wait for them, showing the store's progress; returns the summary.
    Raises RuntimeError if a task still fails after its retries or runs are missing at the end."""
    from .progress import sweep_summary

    workers = check_int("workers", workers, min_value=1)
    retries = check_int("retries", retries, min_value=0)
    poll = check_real("poll", poll, low=0.0, low_open=True)
    if address is not None and (not isinstance(address, str) or not address.strip()):
        raise ValueError(f"address must be None or a Ray address (host:port or 'auto'), got {address!r}")
    ray = _ray()
    started = not ray.is_initialized()
    if started:
        ray.init(address=address, include_dashboard=False, logging_level="warning")
    try:
        gpus_available = ray.cluster_resources().get("GPU", 0)
        if spec.device == "cpu" or (spec.device is None and not gpus_available):
            num_gpus = 0
        elif not gpus_available:
            raise ValueError("device cuda asked for, but the Ray cluster has no GPU")
        else:
            num_gpus = 1
        units = spec.units()
        store = ResultStore(spec.results_dir)
        before = sum(k in set(store.records()) for u in units for k in u.keys)
        remote = ray.remote(ray_task).options(num_gpus=num_gpus, num_cpus=spec.threads or 1, max_retries=retries,
                                              retry_exceptions=True)
        refs = [remote.remote(spec.to_json()) for _ in range(workers)]
        bar = SweepProgress(store, units, desc=f"{spec.preset} [{spec.tier}] ray x{workers}", enabled=progress)
        failed = []
        try:
            pending = list(refs)
            while pending:
                done, pending = ray.wait(pending, num_returns=len(pending), timeout=poll)
                bar.update()
                for ref in done:
                    try:
                        ray.get(ref)
                    except Exception as exc:  # a task that failed after its retries
                        failed.append(str(exc).splitlines()[0] if str(exc) else type(exc).__name__)
        except BaseException:
            for ref in refs:
                ray.cancel(ref, force=True)
            raise
        finally:
            bar.close()
    finally:
        if started:
            ray.shutdown()
    summary = sweep_summary(spec, units, "ray", before, workers=workers, num_gpus=num_gpus, failed=failed)
    if not summary["complete"]:
        missing = summary["total"] - summary["reused"] - summary["trained"]
        raise RuntimeError(f"ray sweep of {spec.preset} [{spec.tier}]: {missing} runs missing; "
                           + "; ".join(failed or ["no task failed"]))
    return summary
