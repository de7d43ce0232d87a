"""App. A.2 analysis: F1-D_K curves, the minimum key dimension D_K^*, the optimal head count h^*, and fits.

* Curves: for each (m, d_model) and head count h, the per-seed test metric at each D_K, its mean and 95%
  t-interval (mean +- t_{0.975, n-1} s / sqrt(n)).
* D_K^* (App. A.2): central = min D_K with mean F1 >= 0.99 for some h; conservative = min D_K with the interval's
  lower end >= 0.99; optimistic = min D_K with its upper end >= 0.99. ``None`` when no tested D_K passes.
* h^*: the h attaining the central D_K^* (ties: larger mean F1). Pool: head counts with a tested D_K within 10% of
  D_K^*; a candidate is retained when a paired two-sided t-test on per-seed F1 against (h^*, D_K^*) gives
  p > 0.05; the interval spans the retained head counts (and h^*).
* Fits (scipy): slope through the origin y = a x with centred R^2 = 1 - SS_res / SS_tot (the uncentred
  1 - SS_res / sum y^2 is reported too), affine least squares (``scipy.stats.linregress``), percentile bootstrap
  intervals over seeds.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Callable, Iterable, Sequence

import numpy as np
from scipy import optimize as _opt
from scipy import stats as _st

from ._checks import check_int, check_probability
from .stats import paired_t_pvalue, t_interval

__all__ = [
    "CurvePoint",
    "Threshold",
    "Fit",
    "curves",
    "threshold",
    "thresholds",
    "fit_through_origin",
    "fit_affine",
    "bootstrap_slope",
    "compression_x",
]


@dataclass(frozen=True)
class CurvePoint:
    """Test metric of one (h, D_K) configuration over seeds."""

    h: int
    D_K: int
    seeds: tuple  # seeds, sorted
    values: tuple  # metric per seed, in seed order
    mean: float
    low: float  # 95% t-interval
    high: float


@dataclass(frozen=True)
class Threshold:
    """D_K^* (central, conservative, optimistic) and h^* of one (m, d_model[, r]) group."""

    central: int | None
    conservative: int | None
    optimistic: int | None
    h_star: int | None
    h_low: int | None  # h^* interval from the paired-t pool
    h_high: int | None
    d_k_star: float | None  # per-head width at the threshold, D_K^* / h^*
    max_tested: int  # largest D_K tested (the censoring point when central is None)


@dataclass(frozen=True)
class Fit:
    """y = slope x (+ intercept); R^2 centred; n points."""

    slope: float
    intercept: float
    r2: float
    r2_uncentred: float
    n: int
    x: tuple = field(default=())
    y: tuple = field(default=())


def curves(records: Iterable[dict], *, key: Callable[[dict], tuple] | None = None) -> dict[tuple, list[CurvePoint]]:
    """Group run records into curves: ``{group: [CurvePoint, ...]}`` sorted by (h, D_K).

    ``group`` is ``key(config_dict)``, by default ``(variant, graph, r, m, d_model)``.
    """
    key = key or (lambda c: (c["variant"], c["graph"], c["r"], c["m"], c["d_model"]))
    cells: dict[tuple, dict[tuple, dict[int, float]]] = {}
    for rec in records:
        c = rec["config"]
        cell = cells.setdefault(key(c), {}).setdefault((c["n_heads"], c["n_heads"] * c["d_head"]), {})
        cell[int(rec["seed"])] = float(rec["metric"])
    out = {}
    for g, by_cfg in cells.items():
        pts = []
        for (h, D), per_seed in sorted(by_cfg.items()):
            seeds = tuple(sorted(per_seed))
            vals = tuple(per_seed[s] for s in seeds)
            mean, low, high = t_interval(vals)
            pts.append(CurvePoint(h, D, seeds, vals, mean, low, high))
        out[g] = pts
    return out


def threshold(points: Sequence[CurvePoint], *, target: float = 0.99, pool: float = 0.10, alpha: float = 0.05,
              higher_is_better: bool = True) -> Threshold:
    """D_K^* and h^* of one group's curve points (App. A.2). For MSE use ``higher_is_better=False``."""
    check_probability("pool", pool)
    check_probability("alpha", alpha, open_low=True, open_high=True)
    if not points:
        raise ValueError("points must be non-empty")
    ok = (lambda v: v >= target) if higher_is_better else (lambda v: v <= target)

    def first(attr: str):
        passing = [p for p in points if ok(getattr(p, attr))]
        return min((p.D_K for p in passing), default=None)

    central = first("mean")
    conservative = first("low" if higher_is_better else "high")
    optimistic = first("high" if higher_is_better else "low")
    max_tested = max(p.D_K for p in points)
    if central is None:
        return Threshold(None, conservative, optimistic, None, None, None, None, max_tested)
    at = [p for p in points if p.D_K == central and ok(p.mean)]
    best = max(at, key=lambda p: p.mean if higher_is_better else -p.mean)
    retained = [best.h]
    for p in points:
        if p.h == best.h or abs(p.D_K - central) > pool * central:
            continue
        common = sorted(set(p.seeds) & set(best.seeds))
        if len(common) < 2:
            continue
        a = [p.values[p.seeds.index(s)] for s in common]
        b = [best.values[best.seeds.index(s)] for s in common]
        if paired_t_pvalue(a, b) > alpha:
            retained.append(p.h)
    return Threshold(central, conservative, optimistic, best.h, min(retained), max(retained), central / best.h,
                     max_tested)


def thresholds(records: Iterable[dict], **kwargs) -> dict[tuple, Threshold]:
    """:func:`threshold` for every group of :func:`curves`."""
    return {g: threshold(pts, **kwargs) for g, pts in curves(records).items()}


def compression_x(m: int, d_model: int, *, base: str = "e", r: int = 1) -> float:
    """x = r m log(m) / d_model with natural log (``base="e"``) or log2 (``base="2"``)."""
    m = check_int("m", m, min_value=2)
    d_model = check_int("d_model", d_model, min_value=1)
    if base not in ("e", "2"):
        raise ValueError(f"base must be 'e' or '2', got {base!r}")
    return r * m * (math.log(m) if base == "e" else math.log2(m)) / d_model


def _r2(y: np.ndarray, resid: np.ndarray) -> tuple[float, float]:
    ss_res = float(np.sum(resid**2))
    ss_tot = float(np.sum((y - y.mean()) ** 2))
    ss_unc = float(np.sum(y**2))
    r2 = 1.0 - ss_res / ss_tot if ss_tot > 0 else float("nan")
    r2u = 1.0 - ss_res / ss_unc if ss_unc > 0 else float("nan")
    return r2, r2u


def fit_through_origin(x, y) -> Fit:
    """Least-squares slope through the origin (``scipy.optimize.lsq_linear``), with R^2 (centred and uncentred)."""
    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    if x.shape != y.shape or x.ndim != 1 or x.size < 2 or not (np.all(np.isfinite(x)) and np.all(np.isfinite(y))):
        raise ValueError("x and y must be finite 1-d arrays of the same length >= 2")
    slope = float(_opt.lsq_linear(x[:, None], y).x[0])
    r2, r2u = _r2(y, y - slope * x)
    return Fit(slope, 0.0, r2, r2u, int(x.size), tuple(x.tolist()), tuple(y.tolist()))


def fit_affine(x, y) -> Fit:
    """Ordinary least squares y = a x + b (``scipy.stats.linregress``)."""
    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    if x.shape != y.shape or x.ndim != 1 or x.size < 3 or not (np.all(np.isfinite(x)) and np.all(np.isfinite(y))):
        raise ValueError("x and y must be finite 1-d arrays of the same length >= 3")
    res = _st.linregress(x, y)
    r2, r2u = _r2(y, y - (res.slope * x + res.intercept))
    return Fit(float(res.slope), float(res.intercept), r2, r2u, int(x.size), tuple(x.tolist()), tuple(y.tolist()))


def bootstrap_slope(groups: dict[tuple, Sequence[CurvePoint]], xfun: Callable[[tuple], float], *,
                    rng: np.random.Generator, n_resamples: int = 1000, target: float = 0.99,
                    confidence: float = 0.95) -> tuple[float, float, int]:
    """Percentile bootstrap interval of the through-origin slope of D_K^* against ``xfun(group)``.

    Each resample draws, independently per group, seeds with replacement and recomputes every configuration's
    mean F1 over the drawn seeds, then D_K^* (central) per group, then the slope over groups with a finite
    D_K^*. Returns (low, high, resamples used).
    """
    n_resamples = check_int("n_resamples", n_resamples, min_value=10)
    prepared = []
    for g, pts in groups.items():
        seeds = sorted({s for p in pts for s in p.seeds})
        # [points, seeds] matrix of values (NaN where a point lacks a seed), so a resample is one column draw.
        vals = np.full((len(pts), len(seeds)), np.nan)
        for i, p in enumerate(pts):
            for s, v in zip(p.seeds, p.values):
                vals[i, seeds.index(s)] = v
        prepared.append((xfun(g), np.array([p.D_K for p in pts], dtype=float), vals))
    # Resamples vectorised: per group, a [n_resamples, n_seeds] draw, means over drawn seeds, first passing D_K.
    num = np.zeros(n_resamples)
    den = np.zeros(n_resamples)
    counted = np.zeros(n_resamples, dtype=int)
    for x, dks, vals in prepared:
        draw = rng.integers(0, vals.shape[1], size=(n_resamples, vals.shape[1]))
        sub = vals[:, draw]  # [points, n_resamples, seeds]
        counts = np.sum(~np.isnan(sub), axis=2)
        means = np.where(counts > 0, np.nansum(sub, axis=2) / np.maximum(counts, 1), -np.inf)
        cand = np.where(means >= target, dks[:, None], np.inf).min(axis=0)  # [n_resamples]
        ok = np.isfinite(cand)
        num[ok] += x * cand[ok]
        den[ok] += x * x
        counted[ok] += 1
    good = counted >= 2
    slopes = (num[good] / den[good]).tolist()
    if not slopes:
        return float("nan"), float("nan"), 0
    lo, hi = np.quantile(slopes, [(1 - confidence) / 2, (1 + confidence) / 2])
    return float(lo), float(hi), len(slopes)
