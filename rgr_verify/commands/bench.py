"""``rgr-verify bench``: the batched engine against a naive per-run PyTorch loop and a torch.func baseline (stacked
module state, ``functional_call`` under ``vmap``, stock AdamW), run-steps per second and the engine's ratios."""

from __future__ import annotations

import argparse
import json

from ._options import UsageError, add_device, add_json_path, add_max_waste, add_threads, add_tier, usage_errors

NAME = "bench"
HELP = "benchmark the batched training engine against a naive per-run loop and a torch.func baseline"
ORDER = 41


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_device(parser, default="cpu", indexed=True, help="cpu or cuda")
    parser.add_argument("--preset", default="sec6-grid", help="preset whose configurations are benchmarked")
    add_tier(parser, choices=("quick", "full", "both"),
             help="preset tier; 'both' benches the quick shapes, then the full ones (JSON: one entry per tier)")
    parser.add_argument("--steps", type=int, default=2000, help="training steps per run (both sides)")
    parser.add_argument("--naive-runs", type=int, default=3, help="runs timed with the naive loop")
    add_threads(parser, help="torch CPU threads, every side (default 1)")
    parser.add_argument("--no-torchfunc", dest="torchfunc", action="store_false",
                        help="skip the torch.func baseline (vmap over stacked module state, stock AdamW)")
    parser.add_argument("--compile", action="store_true",
                        help="run the torch.func baseline's loss under torch.compile (compile time included; off by "
                             "default: slow to compile, and on a CPU it needs a C++ compiler)")
    parser.add_argument("--profile", action="store_true",
                        help="also profile the engine (torch.profiler): time and kernel launches per stacked step, "
                             "time per phase (setup, sample, train, validate, finish), host syncs (CUDA), top "
                             "operators")
    parser.add_argument("--floor", action="store_true",
                        help="also measure the floor of a stacked step (implies --profile): N trivial ops issued "
                             "(N = kernel launches on CUDA, replayed as a CUDA graph; top-level aten ops on a CPU, "
                             "eager) and the bytes the AdamW update and the contexts must move at the copy "
                             "bandwidth measured here; prints engine step time / floor (see rgr_verify.perf.floor)")
    parser.add_argument("--profile-steps", type=int, default=None,
                        help="steps per run of the profiled run (default: --steps; fewer keep the full grid's "
                             "profile small)")
    parser.add_argument("--fused", action="store_true",
                        help="also time the engine with the opt-in FusedAdamW (torch._fused_adamw_, one kernel per "
                             "optimiser step; tolerance-tested, not bitwise the default) right after the default "
                             "engine, and print the ratio")
    add_max_waste(parser, help="the engine's batch planning for every engine timing (>= 1, default 4; larger: fewer, "
                               "wider batches, for a launch-bound GPU)")
    add_json_path(parser)


def validate(args) -> None:
    """Check the options (a ValueError names the option)."""
    from ..basics.checks import check_int, check_torch_device
    from ..runs.presets import get_preset

    check_torch_device("--device", args.device)
    check_int("--steps", args.steps, min_value=1)
    check_int("--naive-runs", args.naive_runs, min_value=1)
    if args.compile and not args.torchfunc:
        raise ValueError("--compile applies to the torch.func baseline; drop --no-torchfunc")
    if args.profile_steps is not None and args.profile_steps < 1:
        raise ValueError(f"--profile-steps must be >= 1, got {args.profile_steps}")
    for tier in _tiers(args):
        with usage_errors("--preset"):
            get_preset(args.preset, tier)


def _tiers(args) -> tuple:
    return ("quick", "full") if args.tier == "both" else (args.tier,)


def run(args) -> int:
    import torch

    with usage_errors():
        validate(args)
    torch.set_num_threads(args.threads)
    out = {tier: _bench_tier(args, tier) for tier in _tiers(args)}
    if args.json_path:
        try:
            args.json_path.write_text(json.dumps(out if args.tier == "both" else out[args.tier], indent=2))
        except OSError as exc:  # writable when parsed, not now
            raise UsageError(f"--json path {str(args.json_path)!r} is not writable: {exc}") from None
    return 0


def _bench_tier(args, tier: str) -> dict:
    import torch

    from ..perf.bench import run_bench
    from ..runs.presets import get_preset

    preset = get_preset(args.preset, tier)
    configs = sorted({c for c, _ in preset.runs}, key=lambda c: (c.m, c.d_model, c.n_heads, c.d_k))
    seeds = sorted({s for _, s in preset.runs})
    res = run_bench(configs, seeds, steps=args.steps, naive_runs=args.naive_runs, device=args.device,
                    torchfunc=args.torchfunc, compile=args.compile, fused=args.fused, max_waste=args.max_waste)
    print(f"{args.preset} {tier}: device {res.device} ({torch.get_num_threads()} threads), {res.steps} steps per run")
    print(f"naive loop : {res.naive_steps_per_s:12.1f} run-steps/s  ({res.n_naive_runs} runs, "
          f"{res.naive_seconds:.1f} s)")
    if res.torchfunc_steps_per_s is not None:
        how = f"{res.torchfunc_optimizer} AdamW" + (", torch.compile" if res.torchfunc_compiled else "")
        print(f"torch.func : {res.torchfunc_steps_per_s:12.1f} run-steps/s  ({res.n_torchfunc_runs} runs, "
              f"{res.torchfunc_seconds:.1f} s; vmap, {how})")
    print(f"engine     : {res.engine_steps_per_s:12.1f} run-steps/s  ({res.n_runs} runs, {res.engine_seconds:.1f} s"
          + (f"; max_waste {res.max_waste:g}" if res.max_waste != 4.0 else "") + ")")
    if res.fused_steps_per_s is not None:
        print(f"fused AdamW: {res.fused_steps_per_s:12.1f} run-steps/s  ({res.n_runs} runs, {res.fused_seconds:.1f} s; "
              f"{res.ratio_fused:.2f}x the default engine, {res.fused_steps_per_s / res.naive_steps_per_s:.1f}x the "
              "naive loop)")
    print(f"ratio      : {res.ratio:12.1f}x engine / naive loop")
    if res.ratio_torchfunc is not None:
        print(f"ratio      : {res.ratio_torchfunc:12.1f}x engine / torch.func")
    print(f"cuda graphs: {'used' if res.cuda_graphs else 'not used'}")
    prof = floor = None
    if args.profile or args.floor:
        from ..perf.bench import PHASES, profile_engine

        psteps = args.steps if args.profile_steps is None else args.profile_steps
        prof = profile_engine(configs, seeds, steps=psteps, device=args.device, max_waste=args.max_waste)
        busy = prof["device_busy_fraction"]
        print(f"profile    : {prof['wall_ms_per_step']:.3f} ms wall per stacked step (profiled, {psteps} steps), "
              f"{prof['kernel_ms_per_step']:.3f} ms of device kernels, {prof['kernel_launches_per_step']:.1f} kernel "
              f"launches, {prof['aten_ops_per_step']:.1f} top-level aten ops per stacked step"
              + (f", device busy {100 * busy:.1f} % of the wall clock" if busy is not None else ""))
        for name in PHASES + ("other",):
            d = prof["phases"][name]
            extra = "" if d["device_ms_per_step"] is None else (
                f", device {d['device_ms_per_step']:.3f} ms, {d['host_syncs_per_step']:.3f} host syncs")
            print(f"  {name:9s}: {d['ms_per_step']:8.3f} ms host per stacked step ({100 * d['share']:5.1f} %), "
                  f"{d['ops_per_step']:7.1f} aten ops{extra}")
        if prof["host_syncs_per_step"] is not None:
            print(f"host syncs : {prof['host_syncs_per_step']:.3f} per stacked step, "
                  f"{prof['host_sync_ms_per_step']:.3f} ms waiting")
        print(prof["table"])
    if args.floor:
        from ..perf.bench import engine_floor

        floor = engine_floor(configs, seeds, steps=args.steps, device=args.device,
                             ops_per_step=prof["dispatch_ops_per_step"],
                             engine_ms_per_step=1e3 * res.engine_seconds / res.steps, max_waste=args.max_waste)
        graph = "" if floor["dispatch_graph_ms"] is None else f", graph replay {floor['dispatch_graph_ms']:.3f} ms"
        print(f"floor      : dispatch {floor['ops_per_step']:.0f} trivial ops: eager "
              f"{floor['dispatch_eager_ms']:.3f} ms"
              f"{graph}; bytes {floor['bytes'] / 1e6:.2f} MB at {floor['bandwidth_gb_s']:.1f} GB/s: "
              f"{floor['bytes_ms']:.3f} ms; floor {floor['floor_ms']:.3f} ms per stacked step ({floor['bound']}-bound)")
        print(f"ratio      : {floor['ratio']:12.1f}x engine step ({floor['engine_ms_per_step']:.3f} ms, "
              "unprofiled) / floor")
    return {**res.to_dict(), "threads": torch.get_num_threads(), "preset": args.preset, "tier": tier,
            "profile": prof, "floor": floor}
