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

from ..claims import TIERS, root_seed_from_env, select_claims
from ._options import (add_device, add_jobs, add_json_path, add_only, add_paper, add_results, add_seed, add_tier,
                       results_given, usage_errors, writable_dir_target)

NAME = "mutate"
HELP = "mutation score: re-run claims with wrong stated values and count the mutants each one kills"
ORDER = 15


def add_arguments(p):
    add_only(p, help="comma-separated globs on claim ids or references, e.g. 'sec3-*,App. C'")
    add_paper(p)
    add_tier(p, choices=TIERS, help="quick (CPU), full or gpu")
    add_json_path(p, dest="json", help="write the JSON record here")
    add_jobs(p)
    add_seed(p)
    add_device(p)
    add_results(p, help="results store for empirical claims (replayed when present)")


def validate(args) -> dict:
    """Check the options (a ValueError names the option); the keywords of the mutation run."""
    seed = args.seed if args.seed is not None else root_seed_from_env()
    jobs = args.jobs if args.jobs is not None else min(os.cpu_count() or 1, 256)
    if args.device == "cuda":
        import torch

        if not torch.cuda.is_available():
            raise ValueError("--device cuda: no CUDA device is available on this machine")
    if results_given(args):
        writable_dir_target(args.results, "--results")
    claims = select_claims(args.only, tier="gpu", paper=args.paper)  # above --tier: skipped as not run
    return dict(claims=claims, tier=args.tier, root_seed=seed, jobs=jobs, device=args.device,
                results_dir=args.results)


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
    with usage_errors():
        opts = validate(args)
    json_path = args.json
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
