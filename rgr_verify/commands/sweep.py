"""``rgr-verify sweep PRESET``: train a preset's runs into the results store, resumably, with a progress bar."""

from __future__ import annotations

import argparse
import sys
import time

NAME = "sweep"
HELP = "train an experiment preset (sec6-grid, sec6-diagonal, a3-regular, sec71-softmax, sec72-value) into the store"
ORDER = 40


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from ..presets import PRESETS

    parser.add_argument("preset", choices=sorted(PRESETS), help="experiment preset")
    parser.add_argument("--tier", choices=("quick", "full"), default="quick", help="quick (CPU) or full (paper grid)")
    parser.add_argument("--device", default=None, help="cpu or cuda (default: cuda when available)")
    parser.add_argument("--results", default=None,
                        help="results directory (default: $RGR_VERIFY_RESULTS or ~/.cache/rgr-verify/results)")
    parser.add_argument("--threads", type=int, default=1,
                        help="torch CPU threads (default 1: the engine's many small ops gain nothing from more)")
    parser.add_argument("--max-batch", type=int, default=256, help="most runs trained together in one batch")
    parser.add_argument("--max-waste", type=float, default=4.0,
                        help="largest padded cost of a batch over its runs' own cost (>= 1; larger: fewer, wider "
                             "batches, for a launch-bound GPU)")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")


def run(args) -> int:
    from ..store import run_preset

    if args.threads < 1:
        raise ValueError(f"--threads must be >= 1, got {args.threads}")
    if args.max_batch < 1:
        raise ValueError(f"--max-batch must be >= 1, got {args.max_batch}")
    if not args.max_waste >= 1.0:
        raise ValueError(f"--max-waste must be >= 1, got {args.max_waste}")
    if args.device not in (None, "cpu") and not str(args.device).startswith("cuda"):
        raise ValueError(f"--device must be cpu or cuda, got {args.device!r}")
    if args.tier == "full" and args.device is None:
        import torch

        if not torch.cuda.is_available():
            raise ValueError("--tier full is sized for a GPU (days on a CPU); pass --device cpu to force it")

    t0 = time.perf_counter()
    summary = run_preset(args.preset, tier=args.tier, device=args.device, results_dir=args.results,
                         threads=args.threads, max_batch=args.max_batch,
                         max_waste=args.max_waste, progress=not args.no_progress)
    print(f"{args.preset} [{args.tier}]: {summary['total']} runs, {summary['trained']} trained now, "
          f"{summary['reused']} reused from {summary['store']} ({time.perf_counter() - t0:.1f} s)", file=sys.stdout)
    return 0
