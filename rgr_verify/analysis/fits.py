"""Fits an expert would accept: D_K^* as an interval on the tested ladder, interval (censored) regression, competing
scaling laws compared by AIC/BIC and the grid-step range of the paper's through-origin slope (Sec. 6.1, Figs. 3, 4,
10; App. A.3, Eq. (32)).

* **D_K^* is an interval.** The ladder moves by up to 50 %, so a cell's threshold is only known to lie in
  (last tested D_K below it, first passing D_K] (:func:`dk_interval`). A cell whose first passing D_K is the smallest
  tested is *left-censored* (0, D]; a cell where no tested D_K passes is *right-censored* (max tested, inf).
* **Interval regression** (:func:`interval_regression`): log y_i ~ N(x_i beta + offset_i, sigma^2), observed only
  as an interval (log low_i, log high_i]; the log-likelihood of an interval is log[Phi((b - mu)/sigma) -
  Phi((a - mu)/sigma)], of a point (low = high) the normal log-density. Maximised with ``scipy.optimize.minimize``.
  Profile-likelihood 95 % intervals for a coefficient (:func:`profile_interval`).
* **Competing laws** (:data:`LAWS`, :func:`compare_laws`): D = a m ln m / d_model, D = a m / d_model, and the free
  power law D = a m^alpha / d_model^beta, fitted to the same intervals; AIC = 2k - 2 loglik, BIC = k ln n - 2 loglik
  (k counts sigma), Akaike weights exp(-dAIC/2) / sum.
* **Grid range of a through-origin slope** (:func:`slope_range_through_origin`): the least-squares slope
  sum x_i y_i / sum x_i^2 is increasing in every y_i (x_i >= 0), so the slopes at the intervals' low and high ends
  bound it exactly.

The exact permutation tests on per-seed thresholds live in :mod:`rgr_verify.core.stats`, the per-seed thresholds, step-cap
sensitivity and transition windows of the F1-D_K curves in :mod:`rgr_verify.analysis.capacity`; their names are re-exported
here.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Sequence

import numpy as np
from scipy import optimize as _opt
from scipy import special as _sp
from scipy import stats as _st

from ..basics.checks import check_choice, check_int, check_probability

__all__ = [
    "DKInterval",
    "dk_interval",
    "IntervalFit",
    "interval_regression",
    "profile_interval",
    "LAWS",
    "law_design",
    "LawFit",
    "compare_designs",
    "compare_laws",
    "preference",
    "slope_range_through_origin",
    "slope_range_affine",
]

_MIN_LOG_SIGMA = math.log(1e-3)  # sigma floor: intervals consistent with a line would otherwise drive sigma to 0


@dataclass(frozen=True)
class DKInterval:
    """The threshold of one cell as an interval (low, high] of D_K; ``kind`` says how it is bounded."""

    low: float  # last tested D_K below the first passing one; 0 when left-censored
    high: float  # first passing D_K; inf when right-censored
    kind: str  # "interval", "left-censored" (threshold at the grid's lowest D_K) or "right-censored" (none passes)

    @property
    def censored(self) -> bool:
        return self.kind != "interval"

    def as_dict(self) -> dict:
        return {"low": self.low, "high": None if math.isinf(self.high) else self.high, "kind": self.kind}


def dk_interval(tested: Sequence[int], central: int | None) -> DKInterval:
    """(last tested D_K below ``central``, ``central``] on the tested ladder; censored at either edge.

    ``tested``: every D_K tested in the cell (any h); ``central``: the App. A.2 central D_K^* (``None``: none passes).
    """
    grid = sorted({int(t) for t in tested})
    if not grid:
        raise ValueError("tested must be non-empty")
    if central is None:
        return DKInterval(float(grid[-1]), math.inf, "right-censored")
    if central not in grid:
        raise ValueError(f"central must be one of the tested D_K {grid}, got {central}")
    below = [t for t in grid if t < central]
    if not below:
        return DKInterval(0.0, float(central), "left-censored")
    return DKInterval(float(below[-1]), float(central), "interval")


@dataclass(frozen=True)
class IntervalFit:
    """Maximum-likelihood interval regression of log y on a design matrix (with an offset)."""

    beta: tuple  # coefficients
    sigma: float  # residual standard deviation on the log scale
    loglik: float
    n: int  # observations
    k: int  # parameters, sigma included
    aic: float
    bic: float
    censored: int  # observations that are censored (one end infinite)
    design: np.ndarray = field(repr=False, compare=False, default=None)
    offset: np.ndarray = field(repr=False, compare=False, default=None)
    low: np.ndarray = field(repr=False, compare=False, default=None)  # log scale
    high: np.ndarray = field(repr=False, compare=False, default=None)


def _log_likelihood(a: np.ndarray, b: np.ndarray):
    """``loglik(mu, sigma)`` of the interval observations (a_i, b_i] (exact where a_i = b_i) under N(mu_i, sigma^2):
    the masks and the observations' parts are computed once, since an optimiser calls it many times (each call is a
    few array operations on all intervals at once: the four log-tails in one ``log_ndtr``)."""
    point = a == b
    pt_idx, iv_idx = np.flatnonzero(point), np.flatnonzero(~point)
    has_point, has_iv = pt_idx.size > 0, iv_idx.size > 0
    a_pt = a[pt_idx]
    ab = np.stack([a[iv_idx], b[iv_idx]])  # [2, n_iv]: the intervals' ends
    half_log_2pi = math.sqrt(2 * math.pi)

    def interval_part(m):
        z = (ab - m) / sigma_box[0]  # rows: za, zb
        # log(Phi(zb) - Phi(za)) on whichever tail is accurate: lower tail when the interval lies left of the mean.
        tails = _sp.log_ndtr(np.concatenate((z[::-1], -z)))  # rows: zb, za, -za, -zb
        lo_hi = np.where(z[1] <= 0, tails[0:2], tails[2:4])  # rows: lower part, upper part
        with np.errstate(divide="ignore", invalid="ignore"):
            vals = lo_hi[0] + np.log1p(-np.minimum(np.exp(lo_hi[1] - lo_hi[0]), 1.0))
        return np.where(np.isfinite(vals), vals, -1e6)

    sigma_box = [1.0]

    def loglik(mu: np.ndarray, sigma: float) -> float:
        sigma_box[0] = sigma
        if not has_point:
            return float(np.add.reduce(interval_part(mu)))
        out = np.empty_like(mu)
        z = (a_pt - mu[pt_idx]) / sigma
        out[pt_idx] = -0.5 * z * z - math.log(sigma * half_log_2pi)
        if has_iv:
            out[iv_idx] = interval_part(mu[iv_idx])
        return float(np.add.reduce(out))

    return loglik


def _validate_intervals(low, high) -> tuple[np.ndarray, np.ndarray]:
    low = np.asarray(low, dtype=float)
    high = np.asarray(high, dtype=float)
    if low.ndim != 1 or low.shape != high.shape or low.size < 2:
        raise ValueError("low and high must be 1-d arrays of the same length >= 2")
    if np.any(np.isnan(low)) or np.any(np.isnan(high)) or np.any(low > high):
        raise ValueError("low and high must satisfy low <= high elementwise (no NaN)")
    if np.any(low == np.inf) or np.any(high == -np.inf):
        raise ValueError("low must be < inf and high > -inf")
    return low, high


# Fits already computed in this process, by their inputs (as :data:`_PROFILE_CACHE`, for the same reason: a
# multiverse refits the same data under choices that change no fit). Stored fits hold copies of their arrays.
_FIT_CACHE: dict = {}


def interval_regression(low, high, design, *, offset=None, fixed_sigma: float | None = None) -> IntervalFit:
    """Fit log y ~ N(design @ beta + offset, sigma^2) to interval observations (log low_i, log high_i].

    ``low``, ``high``: [n] bounds on the **log** scale (``-inf`` / ``inf`` for censored ends; equal ends are exact
    points); ``design``: [n, p] matrix; ``offset``: [n] or None. Returns an :class:`IntervalFit` (sigma >= 1e-3).
    A repeated call with the same inputs returns the stored fit (the maximisation is deterministic).
    """
    a, b = _validate_intervals(low, high)
    X = np.array(design, dtype=float)  # a copy: a stored fit never shares the caller's arrays
    off = None if offset is None else np.array(offset, dtype=float)
    key = None
    if X.ndim == 2 and (off is None or off.shape == a.shape):
        key = tuple((v.shape, v.tobytes()) for v in (a, b, X) + (() if off is None else (off,))) + (
            off is None, fixed_sigma)
        if key in _FIT_CACHE:
            return _FIT_CACHE[key]
    fit = _interval_regression(a.copy(), b.copy(), X, off, fixed_sigma)
    if key is not None:
        if len(_FIT_CACHE) >= _PROFILE_CACHE_SIZE:
            del _FIT_CACHE[next(iter(_FIT_CACHE))]
        _FIT_CACHE[key] = fit
    return fit


def _interval_regression(a, b, X, offset, fixed_sigma) -> IntervalFit:
    """:func:`interval_regression` on validated intervals, computed."""
    if X.ndim != 2 or X.shape[0] != a.size or X.shape[1] < 1 or not np.all(np.isfinite(X)):
        raise ValueError(f"design must be a finite [n, p] matrix with n = {a.size} rows and p >= 1")
    off = np.zeros(a.size) if offset is None else np.asarray(offset, dtype=float)
    if off.shape != a.shape or not np.all(np.isfinite(off)):
        raise ValueError("offset must be a finite array of the same length as low")
    if a.size <= X.shape[1]:
        raise ValueError(f"need more observations ({a.size}) than coefficients ({X.shape[1]})")
    # Start: least squares on a representative point per interval (midpoint; the finite end when censored).
    rep = np.where(np.isfinite(a) & np.isfinite(b), (a + b) / 2, np.where(np.isfinite(b), b, a))
    beta0 = np.linalg.lstsq(X, rep - off, rcond=None)[0]
    s0 = max(float(np.std(rep - off - X @ beta0)), 0.1)

    loglik = _log_likelihood(a, b)

    def nll(theta):
        beta = theta[: X.shape[1]]
        sigma = fixed_sigma if fixed_sigma is not None else math.exp(max(theta[-1], _MIN_LOG_SIGMA))
        return -loglik(X @ beta + off, sigma)

    theta0 = np.concatenate([beta0, [] if fixed_sigma is not None else [math.log(s0)]])
    best = None
    for method in ("Nelder-Mead", "Powell"):
        res = _opt.minimize(nll, theta0 if best is None else best.x, method=method,
                            options={"maxiter": 20000, "xatol": 1e-9, "fatol": 1e-10} if method == "Nelder-Mead"
                            else {"maxiter": 20000, "xtol": 1e-9, "ftol": 1e-12})
        if best is None or res.fun < best.fun:
            best = res
    beta = best.x[: X.shape[1]]
    sigma = fixed_sigma if fixed_sigma is not None else math.exp(max(best.x[-1], _MIN_LOG_SIGMA))
    ll = -float(best.fun)
    k = X.shape[1] + (0 if fixed_sigma is not None else 1)
    n = a.size
    cens = int(np.sum(~np.isfinite(a) | ~np.isfinite(b)))
    return IntervalFit(tuple(float(v) for v in beta), float(sigma), ll, n, k, 2 * k - 2 * ll, k * math.log(n) - 2 * ll,
                       cens, X, off, a, b)


def _max_over_sigma(loglik, mu: np.ndarray, start: float) -> float:
    """max over sigma >= 1e-3 of ``loglik(mu, sigma)`` (the means fixed), searched in log sigma within 3 of ``start``
    by Brent's bounded method to 1e-10 (about 25 evaluations); where the maximum sits at an end of that window (the
    likelihood prefers a sigma far from the fit's), Nelder-Mead from ``start`` decides, as a general search."""
    def nll(ls):
        return -loglik(mu, math.exp(max(ls, _MIN_LOG_SIGMA)))

    lo, hi = max(start - 3.0, _MIN_LOG_SIGMA), start + 3.0
    res = _opt.minimize_scalar(nll, bounds=(lo, hi), method="bounded", options={"xatol": 1e-10, "maxiter": 500})
    if res.success and lo + 1e-6 < res.x < hi - 1e-6:
        return -float(res.fun)
    res = _opt.minimize(lambda v: nll(v[0]), [start], method="Nelder-Mead", options={"xatol": 1e-10, "fatol": 1e-12})
    return -float(res.fun)


# Profile intervals already computed in this process, by everything they depend on (the fit's data, its maximum,
# the coefficient, the confidence, the span): a multiverse re-runs a check under choices that leave many fits
# unchanged (a test level or a tolerance changes no fit; a left-out seed changes only the cells it touches), and each
# profile interval costs hundreds of refits. The result is a deterministic function of the key, so a hit returns
# exactly what the computation would. Bounded: the oldest entry goes first.
_PROFILE_CACHE: dict = {}
_PROFILE_CACHE_SIZE = 4096


def _profile_key(fit: IntervalFit, index: int, confidence: float, span: float) -> tuple:
    arrays = tuple(None if a is None else (a.shape, np.ascontiguousarray(a, dtype=float).tobytes())
                   for a in (fit.design, fit.offset, fit.low, fit.high))
    return (arrays, tuple(fit.beta), fit.sigma, fit.loglik, index, confidence, span)


def profile_interval(fit: IntervalFit, index: int = 0, *, confidence: float = 0.95, span: float = 5.0
                     ) -> tuple[float, float]:
    """Profile-likelihood interval of coefficient ``index``: {beta_j : 2 (loglik_max - loglik_profile) <= chi2_1}.

    The other coefficients and sigma are re-maximised at each trial value; the ends are found within
    ``span`` of the estimate (returned as +-inf when the interval reaches that far) by Brent's method, to 1e-9.
    A repeated call with the same fit, coefficient, confidence and span returns the stored result (the computation
    is deterministic).
    """
    check_probability("confidence", confidence, open_low=True, open_high=True)
    index = check_int("index", index, min_value=0, max_value=len(fit.beta) - 1)
    key = _profile_key(fit, index, float(confidence), float(span))
    if key not in _PROFILE_CACHE:
        if len(_PROFILE_CACHE) >= _PROFILE_CACHE_SIZE:
            del _PROFILE_CACHE[next(iter(_PROFILE_CACHE))]
        _PROFILE_CACHE[key] = _profile_interval(fit, index, confidence, span)
    return _PROFILE_CACHE[key]


def _profile_interval(fit: IntervalFit, index: int, confidence: float, span: float) -> tuple[float, float]:
    """:func:`profile_interval`, computed."""
    crit = _st.chi2.ppf(confidence, 1) / 2
    X = fit.design
    others = [j for j in range(X.shape[1]) if j != index]

    def prof(v):
        off = fit.offset + v * X[:, index]
        if others:
            sub = interval_regression(fit.low, fit.high, X[:, others], offset=off)
            return sub.loglik
        return _max_over_sigma(_log_likelihood(fit.low, fit.high), off, math.log(max(fit.sigma, 1e-3)))

    est = fit.beta[index]

    def inside(v):
        return fit.loglik - prof(v) <= crit

    ends = []
    for direction in (-1.0, 1.0):
        far = est + direction * span
        if inside(far):
            ends.append(direction * math.inf)
            continue
        # the end: the root of loglik_max - loglik_profile - crit between est (below: inside) and far (above)
        ends.append(float(_opt.brentq(lambda v: fit.loglik - prof(v) - crit, est, far, xtol=1e-9, rtol=1e-12)))
    return ends[0], ends[1]


LAWS = ("m ln m / d_model", "m / d_model", "m^alpha / d_model^beta")


def law_design(law: str, m, d_model, *, r=None) -> tuple[np.ndarray, np.ndarray]:
    """(design, offset) for log D = design @ beta + offset under ``law`` (``r``: degree, multiplies m as r m).

    One-parameter laws have design [1] (beta = log a) and the law's log as offset; the free law has columns
    [1, log m, -log d_model] (beta = log a, alpha, beta).
    """
    check_choice("law", law, LAWS)
    m = np.asarray(m, dtype=float)
    d = np.asarray(d_model, dtype=float)
    rr = np.ones_like(m) if r is None else np.asarray(r, dtype=float)
    if m.shape != d.shape or rr.shape != m.shape or np.any(m < 2) or np.any(d < 1) or np.any(rr < 1):
        raise ValueError("m (>= 2), d_model (>= 1) and r (>= 1) must be arrays of the same shape")
    ones = np.ones((m.size, 1))
    if law == "m ln m / d_model":
        return ones, np.log(rr * m * np.log(m) / d)
    if law == "m / d_model":
        return ones, np.log(rr * m / d)
    return np.column_stack([np.ones(m.size), np.log(rr * m), -np.log(d)]), np.zeros(m.size)


@dataclass(frozen=True)
class LawFit:
    """One law fitted to the intervals, with its criterion values relative to the best law."""

    law: str
    fit: IntervalFit
    d_aic: float
    d_bic: float
    weight: float  # Akaike weight
    held_out: float = math.nan  # leave-one-out error on the log scale (0 when every held-out interval is hit)

    def summary(self) -> dict:
        f = self.fit
        out = {"loglik": round(f.loglik, 3), "k": f.k, "AIC": round(f.aic, 3), "BIC": round(f.bic, 3),
               "dAIC": round(self.d_aic, 3), "dBIC": round(self.d_bic, 3), "Akaike weight": round(self.weight, 4),
               "sigma (log scale)": round(f.sigma, 4),
               "leave-one-out log error": None if math.isnan(self.held_out) else round(self.held_out, 4)}
        if self.law == "m^alpha / d_model^beta":
            out.update({"a": math.exp(f.beta[0]), "alpha": f.beta[1], "beta": f.beta[2]})
        else:
            out["a"] = math.exp(f.beta[0])
        return out


def _held_out_error(intervals: Sequence[DKInterval], X: np.ndarray, off: np.ndarray) -> float:
    """Leave-one-out error of a law: for each observation, the law fitted to the others predicts log y there; the
    error is the distance (log scale) from that prediction to the held-out interval (0 inside it). Mean over
    observations."""
    with np.errstate(divide="ignore"):
        low = np.log(np.array([iv.low for iv in intervals], dtype=float))
        high = np.log(np.array([iv.high for iv in intervals], dtype=float))
    errs = []
    for i in range(len(intervals)):
        keep = np.arange(len(intervals)) != i
        if keep.sum() <= X.shape[1]:
            return math.nan
        f = interval_regression(low[keep], high[keep], X[keep], offset=off[keep])
        pred = float(X[i] @ np.array(f.beta) + off[i])
        errs.append(max(low[i] - pred, pred - high[i], 0.0))
    return float(np.mean(errs))


def compare_designs(intervals: Sequence[DKInterval], designs: dict[str, tuple[np.ndarray, np.ndarray]], *,
                    held_out: bool = True) -> list[LawFit]:
    """Fit every ``{name: (design, offset)}`` to the same intervals (log scale) and rank them by AIC, best first;
    with ``held_out`` also each law's leave-one-out error (:func:`_held_out_error`)."""
    if len(intervals) < 2:
        raise ValueError(f"intervals must hold at least 2 observations, got {len(intervals)}")
    with np.errstate(divide="ignore"):
        low = np.log(np.array([iv.low for iv in intervals], dtype=float))
        high = np.log(np.array([iv.high for iv in intervals], dtype=float))
    fits = [(name, interval_regression(low, high, X, offset=off),
             _held_out_error(intervals, np.asarray(X, float), np.asarray(off, float)) if held_out else math.nan)
            for name, (X, off) in designs.items()]
    best_aic = min(f.aic for _, f, _ in fits)
    best_bic = min(f.bic for _, f, _ in fits)
    w = np.array([math.exp(-(f.aic - best_aic) / 2) for _, f, _ in fits])
    w = w / w.sum()
    out = [LawFit(name, f, f.aic - best_aic, f.bic - best_bic, float(wi), loo)
           for (name, f, loo), wi in zip(fits, w)]
    return sorted(out, key=lambda lf: lf.fit.aic)


def compare_laws(intervals: Sequence[DKInterval], m, d_model, *, r=None, laws: Sequence[str] = LAWS
                 ) -> list[LawFit]:
    """Fit every law of :data:`LAWS` (or ``laws``) to the same intervals and rank them by AIC (best first)."""
    return compare_designs(intervals, {law: law_design(law, m, d_model, r=r) for law in laws})


def preference(ranked: Sequence[LawFit], law: str) -> dict:
    """How strongly the data prefer the best law over ``law`` (and over the runner-up): dAIC, dBIC, evidence words
    (Burnham & Anderson: dAIC <= 2 substantial support, 4-7 considerably less, > 10 essentially none)."""
    names = [lf.law for lf in ranked]
    check_choice("law", law, tuple(names))
    best = ranked[0]
    target = ranked[names.index(law)]

    def words(delta):
        return ("indistinguishable (dAIC <= 2)" if delta <= 2 else "weak (2 < dAIC <= 4)" if delta <= 4
                else "considerable (4 < dAIC <= 10)" if delta <= 10 else "strong (dAIC > 10)")

    by_loo = min(ranked, key=lambda lf: math.inf if math.isnan(lf.held_out) else lf.held_out)
    return {"preferred": best.law, "preferred by leave-one-out error": by_loo.law,
            "runner-up": ranked[1].law if len(ranked) > 1 else None,
            "dAIC to runner-up": round(ranked[1].d_aic, 3) if len(ranked) > 1 else None,
            f"dAIC of {law}": round(target.d_aic, 3), f"dBIC of {law}": round(target.d_bic, 3),
            "strength": words(ranked[1].d_aic) if len(ranked) > 1 else None,
            f"evidence against {law}": words(target.d_aic) if target is not best else "none (it is preferred)"}


def slope_range_through_origin(x, low, high) -> tuple[float, float]:
    """Exact range of the least-squares slope through the origin, sum x y / sum x^2, when each y_i may lie
    anywhere in [low_i, high_i] (finite; x_i >= 0, not all zero)."""
    x = np.asarray(x, dtype=float)
    lo = np.asarray(low, dtype=float)
    hi = np.asarray(high, dtype=float)
    if x.ndim != 1 or x.shape != lo.shape or x.shape != hi.shape or x.size < 1:
        raise ValueError("x, low and high must be 1-d arrays of the same length >= 1")
    if np.any(x < 0) or not np.any(x > 0) or not (np.all(np.isfinite(lo)) and np.all(np.isfinite(hi))):
        raise ValueError("x must be >= 0 (not all zero) and low, high finite")
    if np.any(lo > hi):
        raise ValueError("low must be <= high elementwise")
    sxx = float(np.sum(x * x))
    return float(np.sum(x * lo) / sxx), float(np.sum(x * hi) / sxx)


def slope_range_affine(x, low, high) -> tuple[float, float]:
    """Exact range of the ordinary least-squares slope of y on x (with intercept), sum (x_i - xbar) y_i / Sxx, when
    each y_i may lie anywhere in [low_i, high_i]: each term takes the end that its weight's sign favours."""
    x = np.asarray(x, dtype=float)
    lo = np.asarray(low, dtype=float)
    hi = np.asarray(high, dtype=float)
    if x.ndim != 1 or x.shape != lo.shape or x.shape != hi.shape or x.size < 2:
        raise ValueError("x, low and high must be 1-d arrays of the same length >= 2")
    if not (np.all(np.isfinite(x)) and np.all(np.isfinite(lo)) and np.all(np.isfinite(hi))) or np.any(lo > hi):
        raise ValueError("x, low, high must be finite with low <= high")
    w = (x - x.mean()) / float(np.sum((x - x.mean()) ** 2))
    return float(np.sum(np.minimum(w * lo, w * hi))), float(np.sum(np.maximum(w * lo, w * hi)))


def _min_sq_distance(x: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> float:
    """min over b of sum_i dist(b x_i, [lo_i, hi_i])^2 (x_i > 0): the least residual sum of squares of a line through
    the origin when each y_i may lie anywhere in its interval. Exact: the function of b is convex and quadratic
    between the breakpoints lo_i / x_i, hi_i / x_i, so its minimum is a piece's stationary point (clipped to the
    piece) or a breakpoint."""
    bps = np.unique(np.concatenate([lo / x, hi / x]))

    def f(b: float) -> float:
        t = b * x
        return float(np.sum(np.maximum(lo - t, 0.0) ** 2 + np.maximum(t - hi, 0.0) ** 2))

    best = min(f(float(b)) for b in bps)
    edges = [-math.inf, *bps.tolist(), math.inf]
    for a, c in zip(edges[:-1], edges[1:]):
        probe = (a + c) / 2 if math.isfinite(a) and math.isfinite(c) else (
            c - 1.0 - abs(c) if math.isfinite(c) else a + 1.0 + abs(a))
        t = probe * x
        below, above = lo > t, t > hi
        w = float(np.sum(x[below | above] ** 2))
        if w == 0:
            continue
        b = (float(np.sum(x[below] * lo[below])) + float(np.sum(x[above] * hi[above]))) / w
        best = min(best, f(min(max(b, a), c)))
    return best


def r2_range_through_origin(x, low, high, *, max_cells: int = 20) -> tuple[float, float] | None:
    """An outer bound on the centred R^2 of the least-squares line through the origin (:func:`fit_through_origin`)
    when each y_i may lie anywhere in [low_i, high_i] (finite; x_i > 0): the range of R^2 over that box lies inside
    the returned (lo, hi). R^2 = 1 - SS_res / SS_tot, and both SS_res (the squared distance of y from the line through
    x) and SS_tot (the squared distance of y from its mean) are convex in y: their maxima over the box are at a vertex
    (all 2^n enumerated) and their minima are exact one-dimensional convex minimisations
    (:func:`_min_sq_distance`), so lo = 1 - max SS_res / min SS_tot and hi = 1 - min SS_res / max SS_tot.
    ``None`` when more than ``max_cells`` cells (2^n vertices) are given; lo is -inf when the box holds a constant y."""
    x = np.asarray(x, dtype=float)
    lo = np.asarray(low, dtype=float)
    hi = np.asarray(high, dtype=float)
    if x.ndim != 1 or x.shape != lo.shape or x.shape != hi.shape or x.size < 2:
        raise ValueError("x, low and high must be 1-d arrays of the same length >= 2")
    if np.any(x <= 0) or not np.all(np.isfinite(x)) or not (np.all(np.isfinite(lo)) and np.all(np.isfinite(hi))):
        raise ValueError("x must be finite and > 0, low and high finite")
    if np.any(lo > hi):
        raise ValueError("low must be <= high elementwise")
    n = x.size
    if n > max_cells:
        return None
    sxx = float(np.sum(x * x))
    res_max = tot_max = 0.0
    rows = np.arange(1 << min(n, 16), dtype=np.int64)
    for start in range(0, 1 << n, rows.size):
        bits = (((start + rows)[:, None] >> np.arange(n)) & 1).astype(bool)
        y = np.where(bits, hi, lo)
        ss = np.sum(y * y, axis=1)
        res_max = max(res_max, float(np.max(ss - (y @ x) ** 2 / sxx)))
        tot_max = max(tot_max, float(np.max(ss - np.sum(y, axis=1) ** 2 / n)))
    res_min = _min_sq_distance(x, lo, hi)
    tot_min = _min_sq_distance(np.ones(n), lo, hi)
    r2_lo = 1.0 - res_max / tot_min if tot_min > 0 else -math.inf
    r2_hi = min(1.0 - res_min / tot_max if tot_max > 0 else 1.0, 1.0)
    return min(r2_lo, r2_hi), r2_hi  # min: equal bounds (every cell a point) may differ by a rounding error
