"""``rgr-verify sweep PRESET``: train a preset's runs into the results store, resumably, on one process, many GPUs
or a cluster (``--executor inline|local|slurm|ray``), with one progress bar fed from the store.

The preset is planned into units (batches of runs of one shape, ids stable across resumes); ``--dry-run`` lists
them, ``--status`` shows each one done / partial / missing in the store, ``--worker`` is one executor-free worker
that any job script may start N times (docs/cluster.md)."""

from __future__ import annotations

import argparse
import sys
import time

from ._options import (add_device, add_max_waste, add_results, add_stop_after, add_threads, add_tier,
                       add_unit_max_batch, add_workers, usage_errors)

NAME = "sweep"
HELP = ("train an experiment preset (sec6-grid, sec6-diagonal, a3-regular, sec71-softmax, sec72-value; ours: "
        "sec6-grid-protected, sec6-grid-init-variance, sec6-grid-uniform, table2-cap2x; micro) into the store, on one process, many "
        "GPUs or a cluster")
ORDER = 40

_SLURM_OPTIONS = ("partition", "time", "array_parallelism", "submitit_cluster", "submitit_folder")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from ..runs.presets import PRESETS
    from ..runs.sweeps import EXECUTORS

    parser.add_argument("preset", choices=sorted(PRESETS), help="experiment preset")
    add_tier(parser, help="quick (CPU) or full (paper grid)")
    add_device(parser, indexed=True, help="cpu or cuda (default: cuda where the worker finds one)")
    add_results(parser)
    add_threads(parser, help="torch CPU threads per worker (default 1: the engine's many small ops gain nothing from "
                             "more)")
    parser.add_argument("--max-batch", type=int, default=256, help="most runs trained together in one batch")
    add_max_waste(parser, help="largest padded cost of a batch over its runs' own cost (>= 1; larger: fewer, wider "
                               "batches, for a launch-bound GPU)")
    add_unit_max_batch(parser, help="most runs in a unit, the work one worker takes at a time (default: --max-batch); "
                                    "keep it the same across resumes, unit ids depend on it")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    add_stop_after(parser, help="inline or --worker: start no new unit after this many seconds; the unit in training "
                                "finishes and is stored, the rest is left for the same command run again (for a job's "
                                "time limit; nothing is lost)")
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--dry-run", action="store_true",
                      help="list the units (id, runs, capped cost, shape); train nothing")
    mode.add_argument("--status", action="store_true", help="show each unit done / partial / missing in the store")
    mode.add_argument("--worker", action="store_true",
                      help="be one executor-free worker (own shard of the store, one lock per unit); job scripts "
                           "may start any number")
    mode.add_argument("--adaptive", action="store_true",
                      help="train only what the adaptive D_K* search needs: per (m, d_model, h) cell, scan the "
                           "preset's ladder up to the first passing D_K, then bisect on multiples of h (inline; the "
                           "same as `rgr-verify adaptive PRESET`, whose options give more control)")
    ex = parser.add_argument_group("executors")
    ex.add_argument("--executor", choices=EXECUTORS, default="inline",
                    help="inline (this process, the default), local (worker processes here), slurm (submitit job "
                         "array), ray (Ray tasks)")
    add_workers(ex, help="local: CPU-slot worker processes; slurm: array tasks; ray: tasks (default 1)")
    ex.add_argument("--devices", default=None, help="local: GPU ids, one worker each, e.g. 0,1,2,3")
    ex.add_argument("--retries", type=int, default=3,
                    help="restarts of a dead worker (local), resubmissions of a failed task (slurm), Ray task "
                         "retries (ray); default 3")
    ex.add_argument("--partition", default=None, help="slurm: partition (default: the cluster's)")
    ex.add_argument("--time", type=int, default=None, help="slurm: time limit per task in minutes (default 1440)")
    ex.add_argument("--array-parallelism", type=int, default=None, help="slurm: most array tasks running at once")
    ex.add_argument("--submitit-cluster", choices=("slurm", "local"), default=None,
                    help="slurm: 'local' runs the job array as local processes (submitit's LocalExecutor), no Slurm")
    ex.add_argument("--submitit-folder", default=None,
                    help="slurm: submitit logs and pickles (default RESULTS/submitit)")
    ex.add_argument("--ray-address", default=None, help="ray: cluster address (default: start a local Ray)")


def validate(args) -> None:
    """Check the options (a ValueError names the option): values in range, and only where they apply."""
    if args.max_batch < 1:
        raise ValueError(f"--max-batch must be >= 1, got {args.max_batch}")
    if args.retries < 0:
        raise ValueError(f"--retries must be >= 0, got {args.retries}")
    if args.time is not None and args.time < 1:
        raise ValueError(f"--time must be >= 1 (minutes), got {args.time}")
    if args.array_parallelism is not None and args.array_parallelism < 1:
        raise ValueError(f"--array-parallelism must be >= 1, got {args.array_parallelism}")
    executor = args.executor
    if args.worker and executor != "inline":
        raise ValueError("--worker is the executor-free worker: it takes no --executor")
    if (args.workers is not None or args.devices is not None) and executor == "inline":
        raise ValueError("--workers and --devices need --executor local, slurm or ray")
    if args.devices is not None:
        if executor != "local":
            raise ValueError("--devices is for --executor local")
        if args.workers is not None:
            raise ValueError("pass --devices (one worker per GPU) or --workers (CPU slots), not both")
        ids = [d.strip() for d in args.devices.split(",")]
        if not all(d.isdigit() for d in ids) or len(set(ids)) != len(ids):
            raise ValueError(f"--devices must be distinct GPU ids separated by commas, got {args.devices!r}")
    if executor == "local" and args.workers is None and args.devices is None:
        raise ValueError("--executor local needs --workers N (CPU slots) or --devices 0,1,... (GPUs)")
    given = [f"--{o.replace('_', '-')}" for o in _SLURM_OPTIONS if getattr(args, o) is not None]
    if given and executor != "slurm":
        raise ValueError(f"{given[0]} is for --executor slurm")
    if args.ray_address is not None and executor != "ray":
        raise ValueError("--ray-address is for --executor ray")
    if args.stop_after is not None and (executor != "inline" or args.dry_run or args.status or args.adaptive):
        raise ValueError("--stop-after is for an inline sweep or --worker (not --executor local/slurm/ray, "
                         "--dry-run, --status or --adaptive)")
    if (args.dry_run or args.status) and executor != "inline":
        raise ValueError("--dry-run and --status read the plan and the store; they take no --executor")
    if args.adaptive and executor != "inline":
        raise ValueError(f"--adaptive trains inline; --executor must be inline, got {executor!r}")
    if args.tier == "full" and args.device is None and executor in ("inline", "local") and not args.dry_run \
            and not args.status and args.devices is None:
        import torch

        if not torch.cuda.is_available():
            raise ValueError("--tier full is sized for a GPU (days on a CPU); pass --device cpu to force it")
    if not args.dry_run and not args.adaptive:  # (--adaptive: the search checks the store itself)
        from ..runs.store import validate_store

        with usage_errors("--results"):  # a store with a malformed line: refused before anything runs
            validate_store(args.results)


def run(args) -> int:
    from ..runs.store import ResultStore
    from ..runs.sweeps import SweepSpec, format_status, format_units, run_sweep, run_worker, unit_status

    with usage_errors():
        validate(args)
    if args.adaptive:
        from argparse import Namespace

        from .adaptive import run as run_adaptive

        return run_adaptive(Namespace(preset=args.preset, tier=args.tier, cells=None, results=args.results,
                                      device=args.device, threads=args.threads, bracket="scan", replay_only=False,
                                      json_path=None))
    spec = SweepSpec(args.preset, args.tier, results_dir=args.results, device=args.device, threads=args.threads,
                     unit_max_batch=args.unit_max_batch or args.max_batch, max_batch=args.max_batch,
                     max_waste=args.max_waste)
    if args.dry_run:
        print(format_units(spec.units()))
        return 0
    if args.status:  # reads only: a results folder that does not exist holds nothing and is not created
        print(format_status(unit_status(spec.units(), ResultStore(spec.results_dir, create=False).records())))
        return 0
    t0 = time.perf_counter()
    if args.worker:
        summary = run_worker(spec, stop_after=args.stop_after)
        has = (f"has all {summary['runs']} runs" if not summary["missing"] else
               f"misses {summary['missing']} of {summary['runs']} runs (stopped after --stop-after; run it again)")
        print(f"worker {summary['shard']}: {summary['trained']} runs trained; {args.preset} [{args.tier}] {has} in "
              f"{spec.results_dir} ({time.perf_counter() - t0:.1f} s)")
        return 0
    options = {}
    if args.executor == "slurm":
        options = {"partition": args.partition, "time_min": args.time or 24 * 60,
                   "array_parallelism": args.array_parallelism, "cluster": args.submitit_cluster or "slurm",
                   "folder": args.submitit_folder}
    elif args.executor == "ray":
        options = {"address": args.ray_address}
    devices = args.devices.split(",") if args.devices is not None else None
    try:
        summary = run_sweep(spec, args.executor, workers=args.workers, devices=devices, retries=args.retries,
                            progress=not args.no_progress, stop_after=args.stop_after, **options)
    except RuntimeError as exc:
        print(f"rgr-verify: error: {str(exc).splitlines()[0]}", file=sys.stderr)
        return 1
    how = "" if args.executor == "inline" else f" [{args.executor}, {summary.get('workers', 1)} workers]"
    print(f"{args.preset} [{args.tier}]: {summary['total']} runs in {summary['units']} units, {summary['trained']} "
          f"trained now, {summary['reused']} reused from {summary['store']}{how} ({time.perf_counter() - t0:.1f} s)",
          file=sys.stdout)
    if not summary["complete"]:
        missing = summary["total"] - summary["reused"] - summary["trained"]
        print(f"stopped after --stop-after: {missing} runs left; the same command resumes", file=sys.stdout)
    return 0
