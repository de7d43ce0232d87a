"""``rgr-verify sweep-bench PRESET``: the same sweep inline (one process, one torch thread) and with the local
executor (N worker processes, one torch thread each) on this machine's CPU, timed in one run: both wall times and
their ratio (and the CPU seconds each side used, which tell a busy machine from a slow executor)."""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
from pathlib import Path

from ._options import add_json_path, add_tier, add_unit_max_batch, add_workers, usage_errors, writable_dir_target

NAME = "sweep-bench"
HELP = "time a preset's sweep inline (1 thread) against --executor local --workers N (1 thread each) on the CPU"
ORDER = 43


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from ..runs.presets import PRESETS

    parser.add_argument("preset", choices=sorted(PRESETS), help="experiment preset")
    add_tier(parser, help="preset tier")
    add_workers(parser, default=2, help="local executor's worker processes (default 2)")
    add_unit_max_batch(parser, default=256, help="most runs in a unit (both sides)")
    parser.add_argument("--keep", default=None,
                        help="keep the two results stores under this directory (inline/, local/); default: a "
                             "temporary directory, deleted after")
    add_json_path(parser)


def _cpus() -> int:
    """The CPUs this process may run on (its affinity, e.g. under taskset), else the machine's."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not on Linux
        return os.cpu_count() or 1


def _children_cpu() -> float:
    """CPU seconds (user + system) of this process's finished children (the local executor's workers)."""
    import resource

    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def validate(args) -> Path | None:
    """Check the options (a ValueError names the option); the folder --keep names (None: a temporary one)."""
    keep = writable_dir_target(args.keep, "--keep") if args.keep else None
    if keep is not None and any((keep / side).exists() for side in ("inline", "local")):
        raise ValueError(f"--keep: {str(keep)!r} already holds inline/ or local/ (the bench needs empty stores)")
    return keep


def run(args) -> int:
    from ..runs.store import ResultStore
    from ..runs.sweeps import SweepSpec, run_inline, run_local

    with usage_errors():
        keep = validate(args)
    json_path = args.json_path
    with tempfile.TemporaryDirectory(prefix="rgr-sweep-bench-") as tmp:
        root = keep if keep is not None else Path(tmp)
        specs = {side: SweepSpec(args.preset, args.tier, results_dir=str(root / side), device="cpu", threads=1,
                                 unit_max_batch=args.unit_max_batch) for side in ("inline", "local")}
        units = specs["inline"].units()
        print(f"{args.preset} [{args.tier}]: {sum(len(u.runs) for u in units)} runs in {len(units)} units; "
              f"{_cpus()} CPUs usable")
        t0, c0 = time.perf_counter(), time.process_time()
        run_inline(specs["inline"], progress=False)
        t_inline, c_inline = time.perf_counter() - t0, time.process_time() - c0
        print(f"inline, 1 process x 1 thread       : {t_inline:8.1f} s  (cpu {c_inline:.1f} s)", flush=True)
        t0, c0 = time.perf_counter(), _children_cpu()
        summary = run_local(specs["local"], workers=args.workers, progress=False)
        t_local, c_local = time.perf_counter() - t0, _children_cpu() - c0
        print(f"local, {args.workers} workers x 1 thread each   : {t_local:8.1f} s  (cpu {c_local:.1f} s, all workers)")
        keys = {side: set(ResultStore(spec.results_dir).records()) for side, spec in specs.items()}
        same = keys["inline"] == keys["local"]
        print(f"speed-up (inline / local)          : {t_inline / t_local:8.2f}x  (same run keys: {same})")
    result = {"preset": args.preset, "tier": args.tier, "workers": args.workers, "unit_max_batch": args.unit_max_batch,
              "units": len(units), "runs": summary["total"], "cpus": _cpus(), "inline_s": t_inline,
              "local_s": t_local, "ratio": t_inline / t_local, "inline_cpu_s": c_inline, "local_cpu_s": c_local,
              "same_keys": same}
    if json_path is not None:
        json_path.write_text(json.dumps(result, indent=2) + "\n")
    return 0 if same else 1
