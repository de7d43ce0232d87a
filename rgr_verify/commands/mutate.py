"""``rgr-verify mutate``: the mutation score of the audit: do the claims tell the paper's stated values from wrong ones?

Each claim that declares the values the paper states (``Claim.expects``) runs once as declared (the baseline) and
once per mutant (each value and constant x2 and x1/2, each exponent +1 and -1, each relation's opposite direction;
a one-sided bound only the side its baseline leaves open: the stricter one after a pass, the weaker after a fail);
a mutant is killed when its status differs from the baseline's. Mutants whose check errors or cannot run here are
excluded (neither killed nor counted), and so are the mutants of a claim whose baseline errors or cannot run.
Prints a table per claim, the score (killed / mutants) and the survivors; ``--json PATH`` writes
``{"score", "mutants", "killed", "survivors", "by_claim", "excluded", ...}``. See ``docs/mutation.md``.

Exit status 0 (the score is a measurement, not a gate), 2 on bad usage.
"""

from __future__ import annotations

import json
import os
import sys
import time

from ..basics.checks import check_int
from ..claims import TIERS, root_seed_from_env, select_claims
from ._paths import writable_dir_target, writable_file_target

NAME = "mutate"
HELP = "mutation score: re-run claims with wrong stated values and count the mutants each one kills"
ORDER = 15


def add_arguments(p):
    p.add_argument("--only", metavar="PATTERN", help="comma-separated globs on claim ids or references, e.g. 'sec3-*,App. C'")
    p.add_argument("--paper", metavar="ID", help="only claims concerning this paper (2509.22840, 2502.05076), cross-paper ones included")
    p.add_argument("--tier", default="quick", help="quick (CPU, default), full or gpu")
    p.add_argument("--json", metavar="PATH", help="write the JSON record here")
    p.add_argument("--jobs", metavar="N", type=int, default=None,
                   help="worker processes (default: the number of CPU cores; 1 runs in this process)")
    p.add_argument("--seed", metavar="N", help="root seed (default: $RGR_VERIFY_SEED or the built-in one)")
    p.add_argument("--device", help="cpu or cuda (default: cuda when available)")
    p.add_argument("--results", metavar="DIR", help="results store for empirical claims (replayed when present)")


def _options(args) -> dict:
    if args.tier not in TIERS:
        raise ValueError(f"--tier must be one of {', '.join(TIERS)}, got {args.tier!r}")
    if args.seed is not None:
        try:
            seed = int(args.seed)
        except ValueError:
            raise ValueError(f"--seed must be an integer in [0, 4294967295], got {args.seed!r}") from None
        seed = check_int("--seed", seed, min_value=0, max_value=2**32 - 1)
    else:
        seed = root_seed_from_env()
    jobs = check_int("--jobs", args.jobs if args.jobs is not None else (os.cpu_count() or 1), min_value=1, max_value=256)
    if args.device is not None and args.device not in ("cpu", "cuda"):
        raise ValueError(f"--device must be 'cpu' or 'cuda', got {args.device!r}")
    if args.device == "cuda":
        import torch

        if not torch.cuda.is_available():
            raise ValueError("--device cuda: no CUDA device is available on this machine")
    json_path = writable_file_target(args.json, "--json") if args.json else None
    results = writable_dir_target(args.results, "--results") if args.results else None
    claims = select_claims(args.only, tier="gpu", paper=args.paper)  # above --tier: skipped as not run
    return dict(claims=claims, tier=args.tier, root_seed=seed, jobs=jobs, device=args.device, results_dir=results,
                json_path=json_path)


def _value(v) -> str:
    return repr(v) if isinstance(v, str) else f"{v:g}" if isinstance(v, float) else str(v)


def _print(result) -> None:
    if not result.rows:
        print(f"no selected claim declares stated values (Claim.expects): nothing to mutate, score None "
              f"({len(result.without_expects)} claims without expects)")
        return
    width = max(len("claim"), *(len(r.claim_id) for r in result.rows))
    print(f"{'claim':<{width}}  {'baseline':<24} {'mutants':>7} {'killed':>6} {'survived':>8} {'excluded':>8}")
    for r in result.rows:
        base = r.baseline.value if r.baseline else "-"
        excluded = len(r.planned) if r.skipped else len(r.excluded)
        print(f"{r.claim_id:<{width}}  {base:<24} {r.counted:>7} {r.killed:>6} {len(r.survivors):>8} "
              f"{excluded:>8}" + (f"  skipped: {r.skipped}" if r.skipped else ""))
    excluded = sum(len(r.planned) if r.skipped else len(r.excluded) for r in result.rows)
    skipped = sum(1 for r in result.rows if r.skipped)
    score = "None" if result.score is None else f"{result.score:.3f}"
    print(f"score: {score} ({result.killed} killed of {result.mutants} mutants, over {len(result.rows)} claims with "
          f"stated values; {len(result.without_expects)} selected claims declare none)")
    parts = result.by_baseline()
    if parts:
        print("by the baseline's status: " + ", ".join(f"{b} {k}/{n}" for b, (k, n) in parts.items()))
    print(f"not counted: {excluded} mutants whose check errors or cannot run here (or whose claim's baseline "
          f"does), {skipped} claims skipped")
    survivors = result.survivors
    print(f"survivors ({len(survivors)}):" if survivors else "survivors: none")
    for s in survivors:
        print(f"  {s['id']}  ({s['kind']} {s['name']}: {_value(s['original'])} -> {_value(s['mutated'])}, "
              f"status stays {s['baseline']})")
    if result.excluded:
        print("excluded, not counted (a claim skipped takes its mutants with it; a stated value gives fewer mutants):")
    for e in result.excluded:
        size = f" ({len(e['mutants'])} mutants)" if e["what"] == "claim" else ""
        print(f"  {e['what']} {e['id']}{size}: {e['reason']}")


def run(args) -> int:
    from ..basics.files import atomic_write_text
    from ..claims.tools import register_profiles
    from ..audit.mutate import run_mutation

    register_profiles()  # $HYPOTHESIS_PROFILE scales property checks exactly as under pytest and audit
    opts = _options(args)
    json_path = opts.pop("json_path")
    from tqdm import tqdm

    # on a terminal a bar over the checks; off one (CI logs, where tqdm would print nothing) a line a finished claim
    live = sys.stderr.isatty()
    bar = tqdm(total=0, desc="checks", unit="check", file=sys.stderr, disable=not live, dynamic_ncols=True)
    started = time.perf_counter()

    def advance(done: int, total: int) -> None:
        bar.total = total
        bar.update(done - bar.n)

    def finished(row) -> None:
        what = f"skipped ({row.skipped})" if row.skipped else f"killed {row.killed} survived {len(row.survivors)}"
        print(f"{row.claim_id} {what} {row.seconds:.1f}s", file=sys.stderr, flush=True)

    try:
        result = run_mutation(progress=advance, on_claim=None if live else finished, **opts)
    finally:
        bar.close()
    if not live:
        print(f"mutate: {len(result.rows)} claims, {result.killed} of {result.mutants} mutants killed in "
              f"{time.perf_counter() - started:.1f} s", file=sys.stderr, flush=True)
    _print(result)
    if json_path is not None:
        atomic_write_text(json_path, json.dumps(result.to_json(), indent=2) + "\n")
        print(f"JSON: {json_path}")
    return 0
