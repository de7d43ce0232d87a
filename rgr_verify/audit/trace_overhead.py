"""What recording a verdict's dependencies costs: the quick-tier symbolic claims run in one process without tracing,
with their checks traced (:func:`rgr_verify.claims.verdict_store.traced_files`), with a verdict store (traced, keyed,
hashed and recorded, every claim a miss), and without tracing again, after a warm-up pass; each pass starts from an
empty sympy cache.
``python -m rgr_verify.audit.trace_overhead`` prints the times and the ratios to the mean of the untraced passes.

It lives in audit/ (not perf/) because it runs claims, and perf/ sits below the claims in the layers.
"""

from __future__ import annotations

import tempfile
import time

from ..claims import all_claims
from ..claims.base import Kind, Tier
from ..claims.runner import run_claim
from ..claims.verdict_store import PACKAGE_ROOT, VerdictStore, traced_files

__all__ = ["trace_overhead"]


def _pass(claims, mode: str, directory: str) -> float:
    from sympy.core.cache import clear_cache

    clear_cache()
    store = VerdictStore(directory) if mode == "store" else None
    start = time.perf_counter()
    for claim in claims:
        if mode == "traced":
            with traced_files(PACKAGE_ROOT):
                run_claim(claim, tier="quick", device="cpu")
        else:
            run_claim(claim, tier="quick", device="cpu", store=store)
    return time.perf_counter() - start


def trace_overhead(claims=None) -> dict:
    """Seconds of each pass over ``claims`` (default: every quick-tier symbolic claim) in this process, after one
    untimed pass (imports, module caches), in the order plain, traced, store, plain (the store pass in a fresh
    temporary folder: every claim runs and is recorded), and the ratios of the traced and store passes to the mean
    of the two plain ones."""
    claims = [c for c in all_claims() if c.kind is Kind.SYMBOLIC and c.tier is Tier.QUICK] if claims is None \
        else list(claims)
    if not claims:
        raise ValueError("claims must name at least one claim")
    with tempfile.TemporaryDirectory() as tmp:
        _pass(claims, "plain", tmp)  # warm-up: the imports and module caches a first run fills
        seconds = {}
        for i, mode in enumerate(("plain", "traced", "store", "plain again")):
            seconds[mode] = _pass(claims, mode.split()[0], f"{tmp}/{i}")
    plain = (seconds["plain"] + seconds["plain again"]) / 2
    return {"claims": len(claims), "seconds": seconds, "traced_ratio": seconds["traced"] / plain,
            "store_ratio": seconds["store"] / plain}


if __name__ == "__main__":
    out = trace_overhead()
    print(f"{out['claims']} quick-tier symbolic claims: " + ", ".join(f"{k} {v:.2f} s" for k, v in
                                                                     out["seconds"].items()))
    print(f"traced / plain = {out['traced_ratio']:.3f}; with a verdict store (all misses) / plain = "
          f"{out['store_ratio']:.3f}")
