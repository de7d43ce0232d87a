"""Sweeps of a preset's runs beyond one process: units, workers, shards, executors and progress.

- :mod:`~rgr_verify.runs.sweeps.units`: a preset planned into units (batches of runs of one shape; id = hash of the
  run keys), their status in a store, the ``--dry-run`` / ``--status`` tables;
- :mod:`~rgr_verify.runs.sweeps.worker`: the self-scheduling worker (one lock per unit, records appended as runs
  finish, to its own shard), :class:`SweepSpec`, and :func:`ensure_runs` (the in-process form the claims use);
- :mod:`~rgr_verify.runs.sweeps.executors`: ``inline`` and ``local`` executors, :func:`run_sweep`, :func:`run_preset`;
  :mod:`~rgr_verify.runs.sweeps.slurm` (submitit) and :mod:`~rgr_verify.runs.sweeps.ray_executor` (Ray), optional extras;
- :mod:`~rgr_verify.runs.sweeps.progress`: one bar over units and runs, fed from the store.

docs/cluster.md describes running them on many GPUs or a cluster, and what the locks need of a shared filesystem.
"""

from .executors import EXECUTORS, run_inline, run_local, run_preset, run_sweep
from .progress import SweepProgress, sweep_summary
from .units import Unit, UnitStatus, format_status, format_units, plan_units, unit_id, unit_status
from .worker import SweepSpec, ensure_runs, resolve_device, run_worker, shard_name, work_units

__all__ = ["EXECUTORS", "run_inline", "run_local", "run_preset", "run_sweep", "sweep_summary", "SweepProgress",
           "Unit", "UnitStatus", "format_status", "format_units", "plan_units", "unit_id", "unit_status",
           "SweepSpec", "ensure_runs", "resolve_device", "run_worker", "shard_name", "work_units"]
