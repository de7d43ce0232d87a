"""``rgr-verify sec73``: run (or replay) the Sec. 7.3 sweep of a tier, print its table and plot Figure 7."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from ..models.embedding_sources import SOURCE_NAMES
from ._options import (UsageError, add_device, add_out, add_replay_only, add_results, add_seed, add_stop_after,
                       add_tier, results_given, usage_errors, writable_dir_target)

NAME = "sec73"
HELP = "Sec. 7.3 sweep: pre-LN block with frozen pretrained embeddings (quick CPU tier or full GPU tier)"
DESCRIPTION = (
    "Train (or replay from --results) every (D_K, h, seed) run of the sec73 preset and print mean test accuracy "
    "with 95% t-intervals per (D_K, h); --out writes the Figure 7 plot. The quick tier runs on a CPU in about a "
    "minute or two; the full tier (m = 6144, l = 16, 112 runs of up to 100k updates) needs a CUDA GPU."
)
ORDER = 60


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_tier(parser, help="preset tier")
    parser.add_argument("--source", default=None, choices=SOURCE_NAMES,
                        help="embedding source (default: minilm; full tier: gpt2 if $RGR_VERIFY_GPT2_DIR is set)")
    parser.add_argument("--gpt2-dir", default=None, help="local Hugging Face GPT-2 snapshot dir (model.safetensors)")
    add_results(parser, help="result store directory")
    add_out(parser, help="directory for the Figure 7 plot")
    add_device(parser, help="training device (default: cuda when available, else cpu)")
    add_seed(parser, help="root seed (default: $RGR_VERIFY_SEED or 20250926)")
    add_replay_only(parser, help="fail instead of training missing runs")
    add_stop_after(parser, help="stop training after SECONDS: finished batches are stored, the batch in training at "
                                "the first evaluation past it is dropped; the same command resumes")
    parser.add_argument("--engine", default="v1", choices=("v1", "v3"),
                        help="trainer: v1 (default; today's block, runs of one h a batch) or v3 (the keyless block, "
                             "runs of any (D_K, h) in mixed batches; its records have their own keys and plan, "
                             "sec73v3:TIER:SOURCE:DEVICE:SEED)")
    parser.add_argument("--max-batch-runs", type=int, default=None, metavar="N",
                        help="with --engine v3: runs a mixed batch (default: the preset's, 56 on the full tier)")
    parser.add_argument("--plan-only", action="store_true",
                        help="print the batches of the runs still missing and how they fill device calls "
                             "(rgr_verify.runs.sec73_plan), with a recommended --max-batch-runs; train nothing")
    parser.add_argument("--step-ms", type=float, default=None, metavar="MS",
                        help="with --plan-only: the step time of a full batch (default: the memory-bound model's "
                             "prediction from today's measured step)")
    parser.add_argument("--probe-steps", type=int, default=None, metavar="N",
                        help="with --plan-only and --engine v3: measure the step on --device over N steps at the "
                             "full batch size and its halves, and plan with the measured times")
    parser.add_argument("--call-seconds", type=float, default=None, metavar="S",
                        help="with --plan-only: training seconds of one device call (default 520: one that runs no "
                             "gpu tests)")
    parser.add_argument("--first-call-seconds", type=float, default=None, metavar="S",
                        help="with --plan-only: training seconds of the first call, the one the plan is printed in "
                             "(default --call-seconds; the device script passes the time it has left)")
    parser.add_argument("--calls", type=int, default=2, metavar="N",
                        help="with --plan-only: the number of calls the plan is checked against (default 2)")


def _check_gpt2_dir(gpt2_dir) -> None:
    """The GPT-2 snapshot (--gpt2-dir, else $RGR_VERIFY_GPT2_DIR) is a directory holding model.safetensors."""
    from ..basics.settings import GPT2_DIR_ENV, env

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
    """--gpt2-dir (when given) and --results, checked before anything is created (--out is, as it is parsed)."""
    from ..runs.store import validate_store

    if args.gpt2_dir is not None:
        _check_gpt2_dir(args.gpt2_dir)
    if results_given(args):
        if not args.replay_only:
            writable_dir_target(args.results, "--results")
        elif args.results.exists() and not args.results.is_dir():
            raise ValueError(f"--results: {str(args.results)!r} exists and is not a directory")
    with usage_errors("--results"):  # a store with a bad line: refused before anything runs (file and line)
        validate_store(args.results)


def _check_engine_options(args) -> None:
    """--max-batch-runs, --plan-only and its options: values in range, and only where they apply."""
    from ..basics.checks import check_int, check_real

    if args.max_batch_runs is not None:
        if args.engine != "v3":
            raise ValueError("--max-batch-runs sizes the mixed batches of --engine v3; v1 batches one cell's seeds")
        check_int("--max-batch-runs", args.max_batch_runs, min_value=1)
    plan_options = {"--step-ms": args.step_ms, "--probe-steps": args.probe_steps, "--call-seconds": args.call_seconds,
                    "--first-call-seconds": args.first_call_seconds}
    if not args.plan_only:
        given = [name for name, value in plan_options.items() if value is not None]
        given += ["--calls"] if args.calls != 2 else []
        if given:
            raise ValueError(f"{given[0]} applies to --plan-only")
        return
    if args.replay_only or args.stop_after is not None or args.out is not None:
        raise ValueError("--plan-only trains and replays nothing; it takes no --replay-only, --stop-after or --out")
    if args.step_ms is not None:
        check_real("--step-ms", args.step_ms, low=0.0, low_open=True)
        if args.probe_steps is not None:
            raise ValueError("--step-ms gives the step time that --probe-steps would measure; give one of them")
    if args.probe_steps is not None:
        if args.engine != "v3":
            raise ValueError("--probe-steps measures the v3 step; it needs --engine v3")
        check_int("--probe-steps", args.probe_steps, min_value=1, max_value=100_000)
    if args.call_seconds is not None:
        check_real("--call-seconds", args.call_seconds, low=0.0, low_open=True)
    if args.first_call_seconds is not None:
        check_real("--first-call-seconds", args.first_call_seconds, low=0.0, low_open=True)
    check_int("--calls", args.calls, min_value=1, max_value=99)


def _plan_only(args, preset, device, root_seed) -> int:
    """Print the plan of the runs still missing (stored ones left out) and a recommended --max-batch-runs."""
    import dataclasses

    from ..runs.sec73_plan import (CALL_SECONDS, EVAL_MARGIN, call_plan, format_call_plan, measure_step_ms,
                                   model_step_ms)
    from ..runs.sec73_keys import plan_name
    from ..runs.sec73_sweep import stored_runs

    if args.max_batch_runs is not None:
        preset = dataclasses.replace(preset, max_batch_runs=args.max_batch_runs)
    call_s = args.call_seconds if args.call_seconds is not None else CALL_SECONDS
    done = stored_runs(preset, root_seed=root_seed, results_dir=args.results, device=device)
    full = preset.max_batch_runs
    # candidate batch sizes: the full one and its halves (v3); v1 has its preset's
    sizes = sorted({max(1, full >> k) for k in range(4)}, reverse=True) if preset.engine == "v3" else [full]
    step_ms, compiled = args.step_ms, None  # None: the plan's default (v3 compiled when compiling is on for CUDA)
    if args.probe_steps is not None:
        from ..runs.sec73_sweep import source_table

        from ..models.transformer_v3 import compile_enabled

        table = source_table(preset, root_seed=root_seed, gpt2_dir=args.gpt2_dir)
        # a compiled step compiles once per batch size (tens of seconds each): probe the full size and its half
        compiled = compile_enabled(device)
        probe = sizes[:2] if compiled else sizes

        def measured(R, ms):
            predicted = model_step_ms(R, preset.engine, compiled) / EVAL_MARGIN
            print(f"measured: {ms:.3f} ms a step at R = {R} ({args.probe_steps} steps, no evaluations); predicted "
                  f"{predicted:.3f} ms ({'compiled' if compiled else 'eager'} bytes, evaluations left out): "
                  f"{ms / predicted:.2f} x the prediction", flush=True)

        step_ms = measure_step_ms(preset, table.E, device=device, sizes=probe, steps=args.probe_steps,
                                  progress=measured)
    print(f"plan {plan_name(preset, device, root_seed)}: {len(done)} runs stored, "
          f"{preset.seeds * len(preset.cells()) - len(done)} to train")
    plan = call_plan(preset, step_ms=step_ms, call_seconds=call_s, done=done, compiled=compiled,
                     first_call_seconds=args.first_call_seconds)
    print(format_call_plan(plan, calls=args.calls))
    # the size that trains every run in the fewest calls, then the most runs in the first call, then the least time
    # lost to batches dropped for their length, then the largest
    best = None
    for R in sizes:
        alt_ms = step_ms  # None (the model) or measured sizes; a given time is the full size's: scaled by the model
        if isinstance(step_ms, (int, float)):
            alt_ms = step_ms * model_step_ms(R, preset.engine, plan.compiled) / model_step_ms(full, preset.engine,
                                                                                                plan.compiled)
        alt = plan if R == full else call_plan(dataclasses.replace(preset, max_batch_runs=R), step_ms=alt_ms,
                                               call_seconds=call_s, done=done, compiled=plan.compiled,
                                               first_call_seconds=args.first_call_seconds)
        first = sum(len(b.runs) for b in alt.batches if b.call == 1)
        wasted = sum(s for b in alt.batches for _, s in b.dropped)  # batches too large for their call's time
        score = (alt.unplaced, alt.calls, -first, round(wasted), -R)
        if best is None or score < best[0]:
            best = (score, R, alt)
    if best is not None and plan.runs:
        _, R, alt = best
        print(f"recommended: --max-batch-runs {R}" if preset.engine == "v3" else f"batches of {R} runs (v1)")
        if R != full:
            print(f"  (at {R} runs a batch: {alt.calls} calls, "
                  f"{sum(len(b.runs) for b in alt.batches if b.call == 1)} runs in the first)")
    return 0


def validate(args) -> tuple:
    """Check the options (a ValueError names the option) before anything is created: (preset, device, root seed)."""
    import torch

    from ..claims.runner import root_seed_from_env
    from ..runs.sec73_presets import sec73_preset
    from ..basics.settings import GPT2_DIR_ENV, env

    _check_engine_options(args)
    _check_paths(args)  # before anything is created: no results folder, no lock file
    preset = sec73_preset(args.tier, source=args.source or ("gpt2" if args.gpt2_dir else None), engine=args.engine)
    if preset.source == "gpt2" and args.gpt2_dir is None and env(GPT2_DIR_ENV):
        _check_gpt2_dir(None)  # the snapshot named by the environment, checked as --gpt2-dir is
    device = args.device or ("cuda" if torch.cuda.is_available() else "cpu")
    # a plan without a probe only names the runs of the device's keys: it runs nothing there
    if device == "cuda" and not torch.cuda.is_available() and not (args.plan_only and args.probe_steps is None):
        raise ValueError("--device must be cpu on a machine without CUDA, got cuda")
    root_seed = args.seed if args.seed is not None else root_seed_from_env()
    if args.stop_after is not None and args.replay_only:
        raise ValueError("--stop-after bounds training; it takes no --replay-only")
    if preset.source == "minilm" and _builds_table(args, preset, device, root_seed):
        from ..models.embedding_sources import minilm_model_dir, wordfreq_ranks

        minilm_model_dir()  # a missing package is the user's to install: the message gives the command
        wordfreq_ranks()
    return preset, device, root_seed


def _builds_table(args, preset, device, root_seed) -> bool:
    """Whether the run builds the embedding table: a probe of the step, or a sweep with runs to train (a replay
    needs no embedding files)."""
    from ..runs.sec73_sweep import stored_runs

    if args.plan_only or args.replay_only:
        return args.plan_only and args.probe_steps is not None
    done = stored_runs(preset, root_seed=root_seed, results_dir=args.results, device=device)
    return len(done) < preset.seeds * len(preset.cells())


def run(args) -> int:
    from ..analysis.plots import plot_fig7
    from ..runs.sec73_sweep import run_sec73
    from ..core.stats import t_interval

    with usage_errors():
        preset, device, root_seed = validate(args)
    if args.plan_only:
        return _plan_only(args, preset, device, root_seed)
    t0 = time.perf_counter()

    last = {}  # a batch's last evaluation: (step, time)

    def progress(step, specs, val, test):
        heads = {s.n_heads for s in specs}
        what = (f"h={specs[0].n_heads}" if len(heads) == 1
                else f"cells={len({(s.D_K, s.n_heads) for s in specs})}")
        now, key = time.perf_counter(), tuple(specs)
        before = last.get(key)
        last[key] = (step, now)
        # the step time since the batch's last evaluation (evaluation included): measured, beside the plan's
        # prediction; not after the first evaluation, whose interval holds the compile and the capture
        rate = (f", {1000 * (now - before[1]) / (step - before[0]):.2f} ms a step"
                if before is not None and step > before[0] else "")
        print(f"  {what} runs={len(specs)} step={step} val acc in batch: best {float(val.max()):.3f} "
              f"median {float(val.median()):.3f} ({now - t0:.0f} s{rate})", file=sys.stderr, flush=True)

    def note(message):
        print(f"  {message}", file=sys.stderr, flush=True)

    res = run_sec73(preset, root_seed=root_seed, results_dir=args.results, device=device, gpt2_dir=args.gpt2_dir,
                    train_missing=not args.replay_only, progress=progress, stop_after=args.stop_after,
                    max_batch_runs=args.max_batch_runs, note=note)
    if res is None and args.stop_after is not None:
        print(f"sec73 {preset.name} tier ({preset.source}) on {device}: stopped after --stop-after "
              f"({time.perf_counter() - t0:.0f} s); finished batches are stored, the same command resumes")
        return 0
    if res is None:
        raise UsageError("--replay-only was given but the result store lacks runs of this preset")
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
