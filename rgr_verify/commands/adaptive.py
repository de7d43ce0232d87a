"""``rgr-verify adaptive PRESET``: adaptive D_K* search per (m, d_model, h) cell against the preset's full ladder."""

from __future__ import annotations

import argparse
import json
import time

from ._options import (UsageError, add_device, add_json_path, add_replay_only, add_results, add_threads, add_tier,
                       usage_errors)

NAME = "adaptive"
HELP = "adaptive D_K* search per (m, d_model, h) cell (bracket on the ladder, bisect on multiples of h)"
ORDER = 42


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from ..runs.adaptive import BRACKETS
    from ..runs.presets import PRESETS

    parser.add_argument("preset", choices=sorted(PRESETS), help="experiment preset whose cells are searched")
    add_tier(parser, help="preset tier")
    parser.add_argument("--cells", nargs="+", default=None, metavar="M,D[,H]",
                        help="only these cells: m,d_model (every h) or m,d_model,h")
    add_results(parser)
    add_device(parser, indexed=True)
    add_threads(parser)
    parser.add_argument("--bracket", choices=BRACKETS, default="scan",
                        help="scan: rungs bottom-up, the ladder's D_K* exactly (default); bisect: fewer probes, "
                             "assumes pass/fail monotone on the ladder")
    add_replay_only(parser, help="train nothing: runs neither stored nor in the committed evidence are unknown")
    add_json_path(parser, help="also write the results as JSON here")


def _parse_cells(values) -> list[tuple]:
    out = []
    for raw in values:
        parts = raw.split(",")
        try:
            nums = tuple(int(p) for p in parts)
        except ValueError:
            nums = ()
        if len(nums) not in (2, 3) or any(n < 1 for n in nums):
            raise ValueError(f"--cells entries must be M,D or M,D,H with positive integers, got {raw!r}")
        out.append(nums)
    return out


def _ladder_dk(cell, ladder, seeds, have: dict):
    """The ladder threshold (App. A.2 central rule, :func:`rgr_verify.analysis.capacity.threshold`) when every ladder run
    of the cell is stored, else None and False."""
    import dataclasses

    from ..analysis.capacity import curves, threshold
    from ..engine import run_key

    recs = []
    for D in ladder:
        cfg = dataclasses.replace(cell, d_k=D // cell.n_heads)
        for s in seeds:
            rec = have.get(run_key(cfg, s))
            if rec is None:
                return None, False
            recs.append(rec)
    (pts,) = curves(recs).values()
    return threshold(pts).central, True


def validate(args) -> None:
    """Check the options (a ValueError names the option), the results store's lines among them."""
    from ..runs.store import validate_store

    if args.device is not None and args.device.startswith("cuda"):
        import torch

        if not torch.cuda.is_available():
            raise ValueError("--device cuda requested but CUDA is not available")
    if args.tier == "full" and args.device is None and not args.replay_only:
        import torch

        if not torch.cuda.is_available():
            raise ValueError("--tier full trains paper-scale runs (a GPU's work); pass --replay-only, or --device cpu "
                             "to force it")
    if args.cells:
        _parse_cells(args.cells)
    with usage_errors("--results"):  # a store with a bad line: refused before anything is trained (file and line)
        validate_store(args.results)


def _searched_cells(args) -> list[tuple]:
    """The preset's max and softmax cells, those --cells names when given (UsageError naming --cells otherwise)."""
    from ..runs.ladder import cells_of
    from ..runs.presets import get_preset

    cells = [t for t in cells_of(get_preset(args.preset, args.tier).runs) if t[0].variant in ("max", "softmax")]
    if not cells:
        raise UsageError(f"preset {args.preset} has no max or softmax cells (an F1 threshold is searched)")
    if args.cells:
        wanted = _parse_cells(args.cells)
        keys = {(c.m, c.d_model, c.n_heads) for c, _, _ in cells}
        unknown = [w for w in wanted if not any(k[:len(w)] == w for k in keys)]
        if unknown:
            raise UsageError(f"--cells {','.join(map(str, unknown[0]))} is not a cell of {args.preset} [{args.tier}]; "
                             f"cells (m,d_model): {sorted({k[:2] for k in keys})}")
        cells = [t for t in cells if any((t[0].m, t[0].d_model, t[0].n_heads)[:len(w)] == w for w in wanted)]
    return cells


def run(args) -> int:
    from ..runs.adaptive import adaptive_thresholds, store_probe
    from ..runs.evidence import evidence_records
    from ..runs.store import ResultStore

    with usage_errors():
        validate(args)
    cells = _searched_cells(args)
    stored, _ = evidence_records(args.preset, args.tier, adaptive=True)  # the ladder's and earlier searches' runs
    store = ResultStore(args.results)
    probe = store_probe(args.results, stored=stored, train=not args.replay_only, device=args.device,
                        threads=args.threads)
    t0 = time.perf_counter()
    results = adaptive_thresholds(cells, probe, bracket=args.bracket)
    seconds = time.perf_counter() - t0
    have = {**stored, **store.records()}
    rows = []
    print(f"{args.preset} [{args.tier}]: {len(results)} cells, bracket {args.bracket}, pass rule mean test F1 >= "
          f"{results[0].target} over the seeds ({seconds:.1f} s)")
    print(f"{'cell':>14} {'h':>3} {'ladder D_K*':>11} {'adaptive':>8} {'d_k*':>6} {'status':>12} {'probes':>6} "
          f"{'runs':>5} {'trained':>7} {'ladder runs':>11}")
    for res in results:
        c = res.cell
        lad, complete = _ladder_dk(c, res.ladder, res.seeds, have)
        lad_txt = ("censored" if lad is None else str(lad)) if complete else "not stored"
        dk_star_text = (res.dk_star if res.dk_star is not None
                        else f"({res.low},{res.high}]" if res.high is not None else "-")
        width = f"{res.width:.2f}".rstrip("0").rstrip(".") if res.width is not None else "-"
        label = f"({c.m},{c.d_model})" + (f" r={c.r}" if c.graph == "regular" else "")
        print(f"{label:>14} {c.n_heads:>3} {lad_txt:>11} {dk_star_text!s:>8} {width:>6} {res.status:>12} "
              f"{len(res.probes):>6} {res.runs_probed:>5} {res.runs_trained:>7} {res.ladder_runs:>11}")
        rows.append({**res.as_dict(), "ladder_threshold": lad if complete else None, "ladder_stored": complete})
    probed = sum(r.runs_probed for r in results)
    ladder = sum(r.ladder_runs for r in results)
    trained = sum(r.runs_trained for r in results)
    unknown = sum(r.runs_unknown for r in results)
    print(f"total: adaptive search {probed} runs ({trained} trained now, {probed - trained - unknown} stored, "
          f"{unknown} unknown), full ladder {ladder} runs ({probed / ladder:.2f}x)")
    if args.json_path is not None:
        from ..basics.files import atomic_write_text

        atomic_write_text(args.json_path, json.dumps({"preset": args.preset, "tier": args.tier, "bracket": args.bracket,
                                                 "seconds": seconds, "runs_probed": probed, "runs_trained": trained,
                                                 "runs_unknown": unknown, "ladder_runs": ladder, "cells": rows},
                                                indent=2))
    return 0
