"""``rgr-verify sec73``: run (or replay) the Sec. 7.3 sweep of a tier, print its table and plot Figure 7."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from ..embedding_sources import SOURCE_NAMES

NAME = "sec73"
HELP = "Sec. 7.3 sweep: pre-LN block with frozen pretrained embeddings (quick CPU tier or full GPU tier)"
DESCRIPTION = (
    "Train (or replay from --results) every (D_K, h, seed) run of the sec73 preset and print mean test accuracy "
    "with 95% t-intervals per (D_K, h); --out writes the Figure 7 plot. The quick tier runs on a CPU in about a "
    "minute or two; the full tier (m = 6144, l = 16, 112 runs of up to 100k updates) needs a CUDA GPU."
)
ORDER = 60


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--tier", default="quick", choices=("quick", "full"), help="preset tier (default quick)")
    parser.add_argument("--source", default=None, choices=SOURCE_NAMES,
                        help="embedding source (default: minilm; full tier: gpt2 if $RGR_VERIFY_GPT2_DIR is set)")
    parser.add_argument("--gpt2-dir", default=None, help="local Hugging Face GPT-2 snapshot dir (model.safetensors)")
    parser.add_argument("--results", default=None, help="result store directory (default: the cache dir)")
    parser.add_argument("--out", default=None, help="directory for the Figure 7 plot")
    parser.add_argument("--device", default=None, choices=("cpu", "cuda"),
                        help="training device (default: cuda when available, else cpu)")
    parser.add_argument("--seed", type=int, default=None, help="root seed (default: $RGR_VERIFY_SEED or 20250926)")
    parser.add_argument("--replay-only", action="store_true", help="fail instead of training missing runs")
    parser.add_argument("--stop-after", type=float, default=None, metavar="SECONDS",
                        help="stop training after SECONDS: finished batches are stored, the batch in training at "
                             "the first evaluation past it is dropped; the same command resumes")


def _check_gpt2_dir(gpt2_dir) -> None:
    """The GPT-2 snapshot (--gpt2-dir, else $RGR_VERIFY_GPT2_DIR) is a directory holding model.safetensors."""
    from ..settings import GPT2_DIR_ENV, env

    option = "--gpt2-dir" if gpt2_dir is not None else f"${GPT2_DIR_ENV}"
    raw = gpt2_dir if gpt2_dir is not None else env(GPT2_DIR_ENV)
    if not raw:
        raise ValueError(f"--gpt2-dir: the gpt2 source needs a local snapshot directory (--gpt2-dir or "
                         f"${GPT2_DIR_ENV})")
    snap = Path(raw).expanduser()
    if not snap.is_dir():
        raise ValueError(f"{option}: {raw!r} is not an existing directory")
    if not (snap / "model.safetensors").is_file():
        raise ValueError(f"{option}: {raw!r} holds no model.safetensors (a Hugging Face GPT-2 snapshot)")


def _check_paths(args) -> None:
    """--gpt2-dir (when given), --results and --out, checked before anything is created."""
    from ._paths import writable_dir_target

    if args.gpt2_dir is not None:
        _check_gpt2_dir(args.gpt2_dir)
    if args.results is not None:
        if args.replay_only:
            if Path(args.results).exists() and not Path(args.results).is_dir():
                raise ValueError(f"--results: {args.results!r} exists and is not a directory")
        else:
            writable_dir_target(args.results, "--results")
    if args.out is not None:
        writable_dir_target(args.out, "--out")


def run(args) -> int:
    import torch

    from ..claims.runner import root_seed_from_env
    from ..plots import plot_fig7
    from ..runs.sec73_presets import sec73_preset
    from ..settings import GPT2_DIR_ENV, env
    from ..runs.sec73_sweep import run_sec73
    from ..stats import t_interval

    _check_paths(args)  # before anything is created: no results folder, no lock file
    preset = sec73_preset(args.tier, source=args.source or ("gpt2" if args.gpt2_dir else None))
    if preset.source == "gpt2" and args.gpt2_dir is None and env(GPT2_DIR_ENV):
        _check_gpt2_dir(None)  # the snapshot named by the environment, checked as --gpt2-dir is
    device = args.device or ("cuda" if torch.cuda.is_available() else "cpu")
    if device == "cuda" and not torch.cuda.is_available():
        raise ValueError("--device must be cpu on a machine without CUDA, got cuda")
    root_seed = args.seed if args.seed is not None else root_seed_from_env()
    if args.stop_after is not None:
        from .._checks import check_real

        check_real("--stop-after", args.stop_after, low=0.0, low_open=True)
        if args.replay_only:
            raise ValueError("--stop-after bounds training; it takes no --replay-only")
    t0 = time.perf_counter()

    def progress(step, specs, val, test):
        print(f"  h={specs[0].n_heads} runs={len(specs)} step={step} val acc in batch: best {float(val.max()):.3f} "
              f"median {float(val.median()):.3f} ({time.perf_counter() - t0:.0f} s)", file=sys.stderr, flush=True)

    res = run_sec73(preset, root_seed=root_seed, results_dir=args.results, device=device, gpt2_dir=args.gpt2_dir,
                    train_missing=not args.replay_only, progress=progress, stop_after=args.stop_after)
    if res is None and args.stop_after is not None:
        print(f"sec73 {preset.name} tier ({preset.source}) on {device}: stopped after --stop-after "
              f"({time.perf_counter() - t0:.0f} s); finished batches are stored, the same command resumes")
        return 0
    if res is None:
        raise ValueError("--replay-only was given but the result store lacks runs of this preset")
    p = res.preset
    print(f"sec73 {p.name} tier on {device}: {res.source_description}")
    print(f"m={p.task.m} l={p.task.ell} seeds={p.seeds} steps<={p.train.steps}; mean test acc [95% CI] (collapsed)")
    print("D_K  " + "".join(f"{'h=' + str(h):>24}" for h in p.heads))

    def cell(D, h):
        v = res.values(D, h)
        mean, lo, hi = t_interval(v)
        return f"{mean:.3f} [{lo:.3f},{hi:.3f}] ({int((v < 0.05).sum())})"

    for D in p.D_Ks:
        print(f"{D:<5}" + "".join(f"{cell(D, h):>24}" for h in p.heads))
    for D, h in p.extra_cells:
        print(f"{D:<5}" + f"h={h}: {cell(D, h)}  (extra cell)")
    if p.selection_seeds:
        print(f"seed indices 0..{p.selection_seeds - 1} pick winners in the claims; the others confirm them")
    if args.out:
        name = plot_fig7(res, Path(args.out))
        print(f"wrote {Path(args.out) / name}")
    return 0
