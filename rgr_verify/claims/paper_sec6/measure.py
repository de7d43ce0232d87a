"""Measurements of the Sec. 6 / Sec. 7 / App. A claims, cached per process, and judgements against stated values.

A check here is split into a *measurement* that does not depend on the paper's stated values (records, thresholds,
fits, interval regressions; cached by :func:`memo`) and a *judgement* that compares it with ``ctx.expect(...)``.
``rgr-verify mutate`` then re-judges a cached measurement per mutant instead of re-measuring it, and an audit with
``--jobs 1`` shares one replay of a preset among its claims. No module of this package defines claims here.
"""

from __future__ import annotations

import math

from ..tools import full_grid, slope_reading

__all__ = ["memo", "cached_full_grid", "measured_reading", "judge_reading", "within_factor", "FACTOR2_TOL"]

# "A factor 2 must be detected": a measured value is read as agreeing with a stated one when it is closer (in log) to
# it than to its double or its half, i.e. within a factor sqrt(2).
FACTOR2_TOL = math.sqrt(2.0)

_MEMO: dict = {}


def _ctx_key(ctx, with_seed: bool) -> tuple:
    return ((ctx.seed if with_seed else None), ctx.tier, ctx.device, str(ctx.results_dir), str(ctx.evidence_dir),
            bool(ctx.replay_only))


def memo(name: str, ctx, compute, *, with_seed: bool = True, extra: tuple = ()):
    """``compute()`` once per (``name``, the context's seed/tier/device/stores, ``extra``) in this process.

    What ``compute`` appended to ``ctx.provenance`` is replayed into the provenance of later contexts that hit the
    cache, so a verdict's evidence is the same on a hit. ``with_seed=False`` shares the value among claims (use it
    only when ``compute`` draws nothing from ``ctx.rng``)."""
    if not isinstance(name, str) or not name:
        raise ValueError(f"name must be a non-empty string, got {name!r}")
    if not callable(compute):
        raise ValueError(f"compute must be callable, got {compute!r}")
    key = (name, *_ctx_key(ctx, with_seed), *extra)
    hit = _MEMO.get(key)
    if hit is None:
        n = len(ctx.provenance)
        hit = (compute(), list(ctx.provenance[n:]))
        _MEMO[key] = hit
    else:
        ctx.provenance.extend(hit[1])
    return hit[0]


def cached_full_grid(ctx, preset: str = "sec6-grid"):
    """:func:`rgr_verify.claims.tools.full_grid`, cached per process (it draws nothing from the claim's rng)."""
    return memo(f"full_grid:{preset}", ctx, lambda: full_grid(ctx, preset), with_seed=False)


def measured_reading(keys, ivs, ths, xs, *, cap_limited=()) -> dict:
    """The numbers of :func:`rgr_verify.claims.tools.slope_reading` that do not depend on the stated slope: the
    paper's estimator (slope, centred R^2, grid range) and the interval regressions. Its own verdict and band,
    computed against a placeholder slope, are dropped; :func:`judge_reading` decides against the stated one."""
    out = slope_reading(keys, ivs, ths, xs, paper_slope=1.0, slope_factor=2.0, r2_min=0.0, cap_limited=cap_limited)
    out.pop("verdict under this reading", None)
    out.pop("tolerance band for the slope", None)
    return out


def judge_reading(reading: dict, *, paper_slope: float, slope_factor: float, paper_r2: float | None = None,
                  r2_tol: float = 0.1, r2_floor: float | None = None) -> dict:
    """The rule of :func:`~rgr_verify.claims.tools.slope_reading` on a :func:`measured_reading`, plus a two-sided R^2:
    *holds* when the paper's estimator is within a factor ``slope_factor`` of ``paper_slope``, its centred R^2 within
    ``r2_tol`` of ``paper_r2`` (when the paper states one) and >= ``r2_floor`` (when given), and the 95% profile
    interval (censored cells included) meets the band; *contradicted* when both the estimator's grid
    range and that interval miss the band; otherwise *inconclusive*. Returns the reading with its verdict and band."""
    if not slope_factor > 1:
        raise ValueError(f"slope_factor must be > 1, got {slope_factor!r}")
    if not paper_slope > 0:
        raise ValueError(f"paper_slope must be > 0, got {paper_slope!r}")
    est = reading["paper estimator (LS through origin, first passing D_K, uncensored cells)"]
    ci = reading["interval regression, censored cells as intervals"]["95% profile"]
    s_lo, s_hi = est["grid range of the slope (cells anywhere in their D_K* interval)"]
    lo_b, hi_b = paper_slope / slope_factor, paper_slope * slope_factor
    in_band = lo_b <= est["slope"] <= hi_b
    r2 = est["R2 centred"]
    r2_ok = (paper_r2 is None or abs(r2 - paper_r2) <= r2_tol) and (r2_floor is None or r2 >= r2_floor)
    ci_meets = ci[1] >= lo_b and ci[0] <= hi_b
    grid_misses = s_hi < lo_b or s_lo > hi_b
    status = ("holds" if in_band and r2_ok and ci_meets
              else "contradicted" if grid_misses and not ci_meets else "inconclusive")
    r2_text = ("" if paper_r2 is None else f"; centred R2 within {r2_tol:g} of {paper_r2:g}") + (
        "" if r2_floor is None else f"; centred R2 >= {r2_floor:g}")
    return {"verdict under this reading": status, **reading,
            "tolerance band for the slope": f"[{lo_b:.3g}, {hi_b:.3g}]{r2_text}"}


def within_factor(measured: float, stated: float, factor: float = FACTOR2_TOL) -> bool:
    """Whether ``measured`` lies within a factor ``factor`` (> 1) of ``stated`` (both > 0)."""
    if not factor > 1:
        raise ValueError(f"factor must be > 1, got {factor!r}")
    if not (measured > 0 and stated > 0):
        return False
    return stated / factor <= measured <= stated * factor
