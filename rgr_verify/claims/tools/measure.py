"""Measurements of the Sec. 6 / Sec. 7 / App. A claims, cached per process, and judgements against stated values.

A check here is split into a *measurement* that does not depend on the paper's stated values (records, thresholds,
fits, interval regressions; cached by :func:`memo`) and a *judgement* that compares it with ``ctx.expect(...)``.
``rgr-verify mutate`` then re-judges a cached measurement per mutant instead of re-measuring it, and an audit with
``--jobs 1`` shares one replay of a preset among its claims. No claims are defined here: this is the toolkit's,
shared by Sec. 6, Sec. 7 and App. A (moved out of ``paper_sec6/``, with the adaptive search's replay, in issue 42).
"""

from __future__ import annotations

import copy
import dataclasses
import math

import numpy as np

from ...analysis.fits import interval_regression, profile_interval, r2_range_through_origin
from ..base import Status, Verdict
from ..standards import conjunction, decide, decide_interval
from ..standards.tolerances import STATED_CONSTANT_FACTOR
from .cells import full_grid, slope_reading

__all__ = ["memo", "LOADER_FREE", "cached_full_grid", "adaptive_search", "exponent_fit", "measured_reading",
           "within_factor", "FACTOR2_TOL", "equivalence_status", "reading_verdict", "ladder_sigma_floor", "floored_fit",
           "r2_status", "conjunction_status", "R2_RANGE", "R2_RANGE_CAPPED", "R2_RANGE_ANY_HIT"]

# "A factor 2 must be detected": a measured value is read as agreeing with a stated one when it is closer (in log) to
# it than to its double or its half, i.e. within a factor sqrt(2).
FACTOR2_TOL = STATED_CONSTANT_FACTOR  # its first name, which other modules import (declared once: standards.tolerances)

_MEMO: dict = {}


def _ctx_key(ctx, with_seed: bool) -> tuple:
    return ((ctx.seed if with_seed else None), ctx.tier, ctx.device, str(ctx.results_dir), str(ctx.evidence_dir),
            bool(ctx.replay_only), ctx.leave_out_seed, getattr(ctx.plant, "__qualname__", ctx.plant), ctx.reading,
            ctx.seed_batch)


# The analysis choices a measurement may read through the threshold, tolerance and test code (the multiverse's
# dimensions, :meth:`rgr_verify.claims.base.CheckContext.applied`) and the context field that holds each.
_CHOICE_FIELDS = {"F1 target": "f1_target", "threshold rule": "threshold_rule", "tolerance": "tolerance_scale",
                  "test level": "level_scale"}


def _counters(reads: dict) -> dict:
    return {k: v for k, v in reads.items() if isinstance(v, int) and not isinstance(v, bool)}


def memo(name: str, ctx, compute, *, with_seed: bool = True, extra: tuple = (), free_of: tuple = ()):
    """``compute()`` once per (``name``, the context's seed/tier/device/stores, the analysis choices in force,
    ``extra``) in this process.

    What ``compute`` appended to ``ctx.provenance`` is replayed into the provenance of later contexts that hit the
    cache, so a verdict's evidence is the same on a hit, and so are the training seeds the records it read had (and
    how many a left-out seed, or a seed batch, removed, how many records another reading replaced, and how often it
    read each analysis choice: see :func:`rgr_verify.claims.tools.multiverse.run_analyses`). Every analysis choice
    (F1 target, threshold rule, tolerance, test level) keys the cache, whether the computation reads it or its inputs
    were computed under it, except those named in ``free_of`` (a measurement that reads no tolerance is shared by the
    tolerance analyses): reading one of those is a ValueError. ``with_seed=False`` shares the value among claims (use
    it only when ``compute`` draws nothing from ``ctx.rng``)."""
    if not isinstance(name, str) or not name:
        raise ValueError(f"name must be a non-empty string, got {name!r}")
    if not callable(compute):
        raise ValueError(f"compute must be callable, got {compute!r}")
    unknown = [c for c in free_of if c not in _CHOICE_FIELDS]
    if unknown:
        raise ValueError(f"free_of must name analysis choices of {sorted(_CHOICE_FIELDS)}, got {unknown}")
    key = (name, *_ctx_key(ctx, with_seed), *extra,
           tuple((c, getattr(ctx, f)) for c, f in _CHOICE_FIELDS.items() if c not in free_of))
    hit = _MEMO.get(key)
    book = ctx.seeds_read
    book.setdefault("reads", {})
    if hit is None:
        n = len(ctx.provenance)
        seeds, counts, reads = set(book["seeds"]), _counters(book), dict(book["reads"])
        book["seeds"] = set()
        value = compute()
        delta = ({k: v - counts.get(k, 0) for k, v in _counters(book).items()},
                 {k: v - reads.get(k, 0) for k, v in book["reads"].items()})
        wrong = [c for c in free_of if delta[1].get(c, 0) > 0]
        if wrong:
            raise ValueError(f"memo {name!r}: the computation read {wrong}, which free_of says it does not")
        read = set(book["seeds"])
        book["seeds"] = seeds | read
        hit = (value, list(ctx.provenance[n:]), (read, delta))
        _MEMO[key] = hit
    else:
        ctx.provenance.extend(hit[1])
        read, (counts, reads) = hit[2]
        book["seeds"] |= read
        for k, v in counts.items():
            book[k] = book.get(k, 0) + v
        for k, v in reads.items():
            book["reads"][k] = book["reads"].get(k, 0) + v
    return hit[0]


# a sweep's records and App. A.2 thresholds read no tolerance and no test
LOADER_FREE = _LOADER_FREE = ("tolerance", "test level")


def cached_full_grid(ctx, preset: str = "sec6-grid"):
    """:func:`rgr_verify.claims.tools.full_grid`, cached per process (it draws nothing from the claim's rng)."""
    return memo(f"full_grid:{preset}", ctx, lambda: full_grid(ctx, preset), with_seed=False, free_of=_LOADER_FREE)


def adaptive_search(ctx, keys):
    """``(results, manifests)`` of the committed adaptive search of sec6-grid (full) replayed on ``keys``, or None
    when the evidence holds none or the context reads App. A.1 otherwise. The evidence is read once per process; the records go through the context's
    record readers (a left-out seed, a plant), and a left-out seed leaves the search's seeds too."""
    from ...runs.replay import adaptive_thresholds, records_probe
    from ...runs.replay import evidence_records
    from ...runs.replay import cells_of
    from ...runs.presets import preset_runs

    if ctx.reading is not None:
        return None  # the adaptive search ran under the engine's readings only
    stored, used = memo("sec6-grid:adaptive-evidence", dataclasses.replace(ctx, leave_out_seed=None, plant=None),
                        lambda: evidence_records("sec6-grid", "full", ctx.evidence_dir, adaptive=True), with_seed=False,
                        free_of=("F1 target", "threshold rule", "tolerance", "test level"))
    if not any(m.adaptive for m in used):
        return None
    kept = ctx.keep_records(list(stored.values()))
    runs = [(c, s) for c, s in preset_runs("sec6-grid", "full") if s != ctx.leave_out_seed]
    cells = [t for t in cells_of(runs) if (t[0].m, t[0].d_model) in set(keys)]
    return adaptive_thresholds(cells, records_probe({r["key"]: r for r in kept})), used


def measured_reading(keys, ivs, ths, xs, *, cap_limited=(), cap_any=()) -> dict:
    """The numbers of :func:`rgr_verify.claims.tools.slope_reading` that do not depend on the stated slope: the
    paper's estimator (slope, centred R^2, grid range) and the interval regressions. Its own verdict and band,
    computed against a placeholder slope, are dropped; :func:`reading_verdict` decides against the stated one."""
    inputs = (tuple(sorted(keys)), tuple(ivs[k] for k in sorted(keys)), tuple(ths[k] for k in sorted(keys)),
              tuple(xs[k] for k in sorted(keys)), frozenset(cap_limited), frozenset(cap_any))
    if inputs not in _READING_CACHE:  # the multiverse's analyses often fit the same thresholds
        out = slope_reading(keys, ivs, ths, xs, paper_slope=1.0, slope_factor=2.0, r2_min=0.0,
                            cap_limited=cap_limited, cap_any=cap_any)
        out.pop("verdict under this reading", None)
        out.pop("tolerance band for the slope", None)
        finite = [k for k in sorted(keys) if ths[k].central is not None]
        # the R^2 range under each treatment of the cells the Table 2 cap stopped: as intervals, or as (0, high]
        for name, capped in ((R2_RANGE, set()), (R2_RANGE_CAPPED, set(cap_limited)), (R2_RANGE_ANY_HIT, set(cap_any))):
            rng = r2_range_through_origin([xs[k] for k in finite], [0.0 if k in capped else ivs[k].low for k in finite],
                                          [ivs[k].high for k in finite]) if len(finite) >= 2 else None
            out[_PAPER_EST][name] = None if rng is None else _outward(rng)
        _READING_CACHE[inputs] = out
    return copy.deepcopy(_READING_CACHE[inputs])


_READING_CACHE: dict = {}
_PAPER_EST = "paper estimator (LS through origin, first passing D_K, uncensored cells)"
R2_RANGE = "grid range of the centred R2 (outer bound, cells anywhere in their D_K* interval)"
R2_RANGE_CAPPED = R2_RANGE + ", cap-limited cells as upper bounds"
R2_RANGE_ANY_HIT = R2_RANGE + ", cells where any threshold run hit the cap as upper bounds"


def _outward(rng, digits: int = 4) -> list:
    """A range rounded outwards to ``digits`` decimals (so that a rounded outer bound stays an outer bound)."""
    f = 10.0 ** digits
    return [rng[0] if not math.isfinite(rng[0]) else math.floor(rng[0] * f) / f,
            rng[1] if not math.isfinite(rng[1]) else math.ceil(rng[1] * f) / f]


def r2_status(est: dict, paper_r2: float | None, r2_tol: float, key: str = R2_RANGE) -> tuple[Status, str]:
    """The stated R^2 part of a reading, by the equivalence standard: the grid range of the paper estimator's centred
    R^2 (:func:`rgr_verify.analysis.fits.r2_range_through_origin`, an outer bound over the cells' D_K* intervals) wholly inside
    [paper_r2 - r2_tol, paper_r2 + r2_tol] holds, wholly outside is contradicted, otherwise inconclusive; with no
    range (fewer than 2 finite cells, or too many to bound) inconclusive. No stated R^2: holds. ``key``:
    :data:`R2_RANGE`, :data:`R2_RANGE_CAPPED` or :data:`R2_RANGE_ANY_HIT` (the treatment of the cells the cap
    stopped). Returns the status and what would decide it (empty when decided)."""
    if paper_r2 is None:
        return decide(True, False), ""  # no stated R^2: nothing for this part to contradict
    band = (paper_r2 - r2_tol, paper_r2 + r2_tol)
    rng = est.get(key)
    if rng is None:
        return Status.INCONCLUSIVE, "no grid range of the centred R^2 (fewer than 2 finite cells, or too many to bound)"
    st, _ = equivalence_status(rng, band)
    return st, ("" if st is not Status.INCONCLUSIVE else
                f"the grid range of the centred R^2 [{rng[0]:.3f}, {rng[1]:.3f}] straddles [{band[0]:.3g}, {band[1]:.3g}]")


def conjunction_status(statuses) -> Status:
    """The status of a statement made of parts, each judged by one standard: the standard conjunction
    (:func:`~rgr_verify.claims.standards.conjunction`: contradicted when any part is, holds when every part holds,
    otherwise inconclusive), and inconclusive when there is no part."""
    sts = list(statuses)
    if not sts:
        return Status.INCONCLUSIVE  # no part: nothing holds (the standard's conjunction needs at least one)
    return conjunction(sts)


def within_factor(measured: float, stated: float, factor: float = FACTOR2_TOL) -> bool:
    """Whether ``measured`` lies within a factor ``factor`` (> 1) of ``stated`` (both > 0)."""
    if not factor > 1:
        raise ValueError(f"factor must be > 1, got {factor!r}")
    if not (measured > 0 and stated > 0):
        return False
    return stated / factor <= measured <= stated * factor


def equivalence_status(ci, band) -> tuple[Status, dict]:
    """One standard to pass and to fail, on an interval ``ci`` = (lo, hi) against a tolerance ``band`` = (lo, hi):
    holds-empirically when the whole interval lies inside the band, contradicted-empirically when it lies wholly
    outside, inconclusive otherwise. Returns the status and the resolution reached (the interval's half-width on the
    log scale for positive quantities is not assumed: half-widths are in the interval's own units)."""
    lo, hi = float(ci[0]), float(ci[1])
    b_lo, b_hi = float(band[0]), float(band[1])
    if not b_lo < b_hi:
        raise ValueError(f"band must have lo < hi, got {band!r}")
    if not lo <= hi:
        raise ValueError(f"interval must have lo <= hi, got {ci!r}")
    status, _ = decide_interval((lo, hi), (b_lo, b_hi))
    res = {"interval": [lo, hi], "band": [b_lo, b_hi], "half_width": (hi - lo) / 2}
    if status is Status.INCONCLUSIVE:
        mid = (lo + hi) / 2 if math.isfinite(lo + hi) else None
        gap = None if mid is None else min(abs(mid - b_lo), abs(mid - b_hi))
        res["half_width_to_decide"] = gap
        res["to_decide"] = ("the interval is unbounded on one side: data that bound it (uncensored cells at the "
                            "ends of the range) are needed" if gap is None else
                            f"the interval half-width must fall from {(hi - lo) / 2:.3g} to below {gap:.3g} "
                            f"(about {((hi - lo) / 2 / gap) ** 2 if gap > 0 else math.inf:.3g}x the cells at the same "
                            "spread, or a wider range)")
    return status, res


def reading_verdict(reading: dict, *, paper_slope: float, slope_factor: float, paper_r2: float | None = None,
                    r2_tol: float = 0.1, level: str = "fitted") -> Verdict:
    """The verdict of one log reading of a through-origin law D_K* = a x (a :func:`measured_reading`), by the
    equivalence standard: the 95% profile interval of the interval-regression slope (censored cells included) is held
    to the band [paper_slope / slope_factor, paper_slope * slope_factor] by :func:`equivalence_status`. The paper's
    R^2 (when stated) is a second part held to the same standard (:func:`r2_status`: the grid range of the paper
    estimator's centred R^2 against [paper_r2 - r2_tol, paper_r2 + r2_tol]); the parts combine by
    :func:`~rgr_verify.claims.standards.conjunction` (contradicted when either is, holds when both hold)."""
    if not slope_factor > 1:
        raise ValueError(f"slope_factor must be > 1, got {slope_factor!r}")
    if not paper_slope > 0:
        raise ValueError(f"paper_slope must be > 0, got {paper_slope!r}")
    est = reading[_PAPER_EST]
    ci = reading["interval regression, censored cells as intervals"]["95% profile"]
    band = (paper_slope / slope_factor, paper_slope * slope_factor)
    slope_st, res = equivalence_status(ci, band)
    r2 = est["R2 centred"]
    r2_st, r2_why = r2_status(est, paper_r2, r2_tol)
    status = conjunction((slope_st, r2_st))
    if status is Status.INCONCLUSIVE and r2_why and slope_st is not Status.INCONCLUSIVE:
        res["to_decide"] = r2_why
    params = {"resolution": {k: v for k, v in res.items() if k != "to_decide"}}
    if "to_decide" in res:
        params["to_decide"] = res["to_decide"]
    measured = {"slope 95% profile interval": [round(v, 4) for v in ci],
                "band": [round(v, 4) for v in band], "paper estimator slope": est["slope"], "centred R2": r2,
                **({} if est.get(R2_RANGE) is None else {"centred R2 grid range": est[R2_RANGE]}),
                "parts": {"slope": slope_st.value, "R2": r2_st.value}}
    return Verdict(status, measured_value=measured, params=params, evidence_level=level,
                   paper_value=f"slope {paper_slope} within a factor {slope_factor:.3g}"
                               + ("" if paper_r2 is None else f", R2 within {r2_tol:g} of {paper_r2}"),
                   evidence="censored-Gaussian interval regression of log D_K* with the offset log x; 95% "
                            "profile-likelihood interval of the slope against the band (equivalence test)")


def ladder_sigma_floor(ivs, keys) -> float:
    """The residual scale the ladder can resolve: the standard deviation of a uniform spread over one ladder step on
    the log scale (median log(high / low) over the bounded cells, over sqrt(12)). A threshold known only to a ladder
    step cannot pin the law's scatter below this; a fitted sigma below it means the interval likelihood threads every
    interval and its profile intervals are too narrow."""
    steps = [math.log(ivs[k].high / ivs[k].low) for k in keys
             if ivs[k].low > 0 and math.isfinite(ivs[k].high) and ivs[k].high > ivs[k].low]
    if not steps:
        raise ValueError("no bounded D_K* interval to read the ladder step from")
    return float(np.median(steps)) / math.sqrt(12.0)


def floored_fit(lo, hi, X, ivs, keys) -> tuple:
    """The censored-Gaussian interval regression of ``(lo, hi]`` on ``X`` with sigma held at least at
    :func:`ladder_sigma_floor` of ``ivs`` over ``keys``: ``(fit, free fit, floor)`` (the free fit is kept when its
    sigma is already above the floor)."""
    free = interval_regression(lo, hi, X)
    floor = ladder_sigma_floor(ivs, keys)
    return (free if free.sigma >= floor else interval_regression(lo, hi, X, fixed_sigma=floor)), free, floor


def exponent_fit(keys, ivs, *, m_of=lambda k: k[0], d_of=lambda k: k[1], cap_limited=()) -> dict:
    """log D_K* = c + alpha log(m ln m) - beta log d_model by censored-Gaussian interval regression, sigma held at
    least at :func:`ladder_sigma_floor`; cells in ``cap_limited`` enter as upper bounds only. Returns the fit, the 95%
    profile intervals of alpha and beta, and the sigma used (the log base only shifts c)."""
    keys = sorted(keys)
    lows = [0.0 if k in cap_limited else ivs[k].low for k in keys]
    inputs = (tuple((m_of(k), d_of(k)) for k in keys), tuple(lows), tuple(ivs[k].high for k in keys),
              ladder_sigma_floor(ivs, keys))
    if inputs not in _EXPONENT_FIT_CACHE:  # the multiverse's analyses often fit the same intervals
        _EXPONENT_FIT_CACHE[inputs] = _exponent_fit(keys, ivs, lows, m_of, d_of)
    return copy.deepcopy(_EXPONENT_FIT_CACHE[inputs])


_EXPONENT_FIT_CACHE: dict = {}


def _exponent_fit(keys, ivs, lows, m_of, d_of) -> dict:
    m = np.array([m_of(k) for k in keys], dtype=float)
    d = np.array([d_of(k) for k in keys], dtype=float)
    with np.errstate(divide="ignore"):
        lo = np.log(np.array(lows, dtype=float))
        hi = np.log(np.array([ivs[k].high for k in keys], dtype=float))
    X = np.column_stack([np.ones(len(keys)), np.log(m * np.log(m)), -np.log(d)])
    free = interval_regression(lo, hi, X)
    floor = ladder_sigma_floor(ivs, keys)
    fit = free if free.sigma >= floor else interval_regression(lo, hi, X, fixed_sigma=floor)
    return {"alpha": float(fit.beta[1]), "beta": float(fit.beta[2]),
            "alpha 95% profile": list(profile_interval(fit, 1)), "beta 95% profile": list(profile_interval(fit, 2)),
            "sigma (log) fitted freely": float(free.sigma), "sigma floor (ladder)": floor,
            "sigma used": float(fit.sigma if fit is free else floor), "n": len(keys)}
