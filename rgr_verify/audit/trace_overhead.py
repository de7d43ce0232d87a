"""What recording a verdict's dependencies costs: claims run without a verdict store, with one (keyed, traced,
hashed and recorded, every claim a miss), and without one again, each pass in a process of its own (before Python
3.12 the first traced claim gives the package's functions their probes for the rest of the process, so an untraced
pass after it in the same process would not be untraced), each claim's passes side by side, timed in CPU seconds of
its process (``time.process_time``, so other work on the machine counts less than in wall time); each process runs
the claims once untimed first (imports, module state), and each timed claim starts from emptied caches (sympy's and
the package's own). The traced pass includes what giving the probes costs (at its first claim).
``python -m rgr_verify.audit.trace_overhead [--tier T] [--only PATTERN]`` prints each claim's seconds and the
ratio of the totals (traced / the mean of the two untraced passes); the default is every quick-tier symbolic
claim at the quick tier (sympy: many small Python calls, the dearest case for a trace function).

It lives in audit/ (not perf/) because it runs claims, and perf/ sits below the claims in the layers.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time

from ..claims import all_claims, get_claim, select_claims
from ..claims.base import TIERS, Kind, Tier
from ..claims.runner import run_claim
from ..claims.verdict_store import PACKAGE_ROOT, VerdictStore, clear_caches

__all__ = ["trace_overhead"]

PASSES = ("plain", "traced", "plain again")


def _once(claim, tier: str, store) -> float:
    from sympy.core.cache import clear_cache

    clear_cache()
    clear_caches(PACKAGE_ROOT)
    start = time.process_time()
    run_claim(claim, tier=tier, device="cpu", store=store)
    return time.process_time() - start


def _pass(ids: list, tier: str, traced: bool) -> list:
    """One pass in this process: an untimed untraced run of every claim, then each claim timed (CPU seconds), with a
    fresh verdict store when ``traced``."""
    claims = [get_claim(i) for i in ids]
    with tempfile.TemporaryDirectory() as tmp:
        store = VerdictStore(tmp, reuse=False) if traced else None
        for claim in claims:
            _once(claim, tier, None)  # warm-up
        return [_once(claim, tier, store) for claim in claims]


def trace_overhead(claims=None, *, tier: str = "quick") -> dict:
    """CPU seconds of each claim of ``claims`` (default: every quick-tier symbolic claim) untraced, traced with a
    fresh verdict store (``reuse=False``: it runs and is recorded), and untraced again, each pass in a new process
    of this interpreter; the per-claim rows and ``ratio``: total traced / mean total untraced."""
    if tier not in TIERS:
        raise ValueError(f"tier must be one of {', '.join(TIERS)}, got {tier!r}")
    claims = [c for c in all_claims() if c.kind is Kind.SYMBOLIC and c.tier is Tier.QUICK] if claims is None \
        else list(claims)
    if not claims:
        raise ValueError("claims must name at least one claim")
    ids = [c.id for c in claims]
    seconds = {}
    for name in PASSES:
        argv = [sys.executable, "-m", "rgr_verify.audit.trace_overhead", "--tier", tier, "--ids", ",".join(ids), "--pass", name]
        done = subprocess.run(argv, capture_output=True, text=True, check=False)
        if done.returncode != 0:
            raise RuntimeError(f"the {name} pass failed (exit {done.returncode}): {done.stderr.strip()[-2000:]}")
        seconds[name] = json.loads(done.stdout.strip().splitlines()[-1])
    rows = [{"claim": cid, **{name: seconds[name][i] for name in PASSES}} for i, cid in enumerate(ids)]
    plain = sum((r["plain"] + r["plain again"]) / 2 for r in rows)
    return {"claims": len(rows), "rows": rows, "plain": plain, "traced": sum(r["traced"] for r in rows),
            "ratio": sum(r["traced"] for r in rows) / plain if plain > 0 else float("nan"),
            "python": sys.version.split()[0], "tracer": "sys.monitoring" if hasattr(sys, "monitoring") else
            "function-entry probes"}


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m rgr_verify.audit.trace_overhead",
                                description="CPU cost of recording verdicts' dependencies, claim by claim")
    p.add_argument("--tier", default="quick", choices=TIERS, help="tier to run the claims at (default quick)")
    p.add_argument("--only", metavar="PATTERN", help="claims to run (globs on ids or references; default: every "
                   "quick-tier symbolic claim)")
    p.add_argument("--ids", help=argparse.SUPPRESS)  # one pass in this process (what trace_overhead starts)
    p.add_argument("--pass", dest="one_pass", choices=PASSES, help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.one_pass is not None:
        print(json.dumps(_pass(args.ids.split(","), args.tier, args.one_pass == "traced")))
        return 0
    try:
        claims = select_claims(args.only, tier=args.tier) if args.only else None
        out = trace_overhead(claims, tier=args.tier)
    except ValueError as exc:
        print(f"trace_overhead: error: {exc}", file=sys.stderr)
        return 2
    for r in out["rows"]:
        print(f"{r['claim']}: untraced {r['plain']:.2f} s, traced {r['traced']:.2f} s, untraced {r['plain again']:.2f} s")
    print(f"{out['claims']} claims at tier {args.tier} (Python {out['python']}, {out['tracer']}): untraced "
          f"{out['plain']:.1f} s, traced with a verdict store {out['traced']:.1f} s (CPU); ratio {out['ratio']:.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
