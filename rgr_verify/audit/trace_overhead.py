"""What recording a verdict's dependencies costs: claims run in one process without tracing, traced with a verdict
store (keyed, traced, hashed and recorded, every claim a miss), and without tracing again, each claim's passes
side by side, timed in CPU seconds of this process (``time.process_time``, so other work on the machine counts
less than in wall time); each pass starts from emptied caches (sympy's and the package's own).
``python -m rgr_verify.audit.trace_overhead [--tier T] [--only PATTERN]`` prints each claim's seconds and the
ratio of the totals (traced / the mean of the two untraced passes); the default is every quick-tier symbolic
claim at the quick tier (sympy: many small Python calls, the dearest case before Python 3.12).

It lives in audit/ (not perf/) because it runs claims, and perf/ sits below the claims in the layers.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time

from ..claims import all_claims, select_claims
from ..claims.base import TIERS, Kind, Tier
from ..claims.runner import run_claim
from ..claims.verdict_store import PACKAGE_ROOT, VerdictStore, clear_caches

__all__ = ["trace_overhead"]


def _once(claim, tier: str, store) -> float:
    from sympy.core.cache import clear_cache

    clear_cache()
    clear_caches(PACKAGE_ROOT)
    start = time.process_time()
    run_claim(claim, tier=tier, device="cpu", store=store)
    return time.process_time() - start


def trace_overhead(claims=None, *, tier: str = "quick") -> dict:
    """CPU seconds of each claim of ``claims`` (default: every quick-tier symbolic claim) untraced, traced with a
    fresh verdict store (``reuse=False``: it runs and is recorded), and untraced again, after one untimed untraced
    pass of all (imports, module state); the per-claim rows and ``ratio``: total traced / mean total untraced."""
    if tier not in TIERS:
        raise ValueError(f"tier must be one of {', '.join(TIERS)}, got {tier!r}")
    claims = [c for c in all_claims() if c.kind is Kind.SYMBOLIC and c.tier is Tier.QUICK] if claims is None \
        else list(claims)
    if not claims:
        raise ValueError("claims must name at least one claim")
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        store = VerdictStore(tmp, reuse=False)
        for claim in claims:
            _once(claim, tier, None)  # warm-up
        for claim in claims:
            plain = _once(claim, tier, None)
            traced = _once(claim, tier, store)
            again = _once(claim, tier, None)
            rows.append({"claim": claim.id, "plain": plain, "traced": traced, "plain again": again})
    plain = sum((r["plain"] + r["plain again"]) / 2 for r in rows)
    return {"claims": len(rows), "rows": rows, "plain": plain, "traced": sum(r["traced"] for r in rows),
            "ratio": sum(r["traced"] for r in rows) / plain if plain > 0 else float("nan"),
            "python": sys.version.split()[0], "tracer": "sys.monitoring" if hasattr(sys, "monitoring") else
            "sys.settrace"}


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m rgr_verify.audit.trace_overhead",
                                description="CPU cost of recording verdicts' dependencies, claim by claim")
    p.add_argument("--tier", default="quick", choices=TIERS, help="tier to run the claims at (default quick)")
    p.add_argument("--only", metavar="PATTERN", help="claims to run (globs on ids or references; default: every "
                   "quick-tier symbolic claim)")
    args = p.parse_args(argv)
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
