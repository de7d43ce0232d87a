"""App. A.2 analysis: F1-D_K curves, the minimum key dimension D_K^*, the optimal head count h^*, and fits.

* Curves: for each (m, d_model) and head count h, the per-seed test metric at each D_K, its mean and 95%
  t-interval (mean +- t_{0.975, n-1} s / sqrt(n)).
* D_K^* (App. A.2): central = min D_K with mean F1 >= 0.99 for some h; conservative = min D_K with the interval's
  lower end >= 0.99; optimistic = min D_K with its upper end >= 0.99. ``None`` when no tested D_K passes.
* h^*: the h attaining the central D_K^* (ties: larger mean F1). Pool: head counts with a tested D_K within 10% of
  D_K^*; a candidate is retained when a paired two-sided t-test on per-seed F1 against (h^*, D_K^*) gives
  p > 0.05; the interval spans the retained head counts (and h^*).
* Per-seed thresholds, step-cap sensitivity (whether D_K^* is set by the step cap rather than by capacity) and the
  sharp / gradual / undecided shape of each curve's rise (:func:`transition_windows`).
* Fits (scipy): slope through the origin y = a x with centred R^2 = 1 - SS_res / SS_tot (the uncentred
  1 - SS_res / sum y^2 is reported too), affine least squares (``scipy.stats.linregress``), percentile bootstrap
  intervals over seeds.
"""

from __future__ import annotations

import math
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Callable, Iterable, Sequence

import numpy as np
from scipy import optimize as _opt
from scipy import stats as _st

from ..basics.checks import check_int, check_probability
from ..core.stats import paired_t_pvalue, t_interval

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
    "per_seed_thresholds",
    "rising_at_cap",
    "could_pass_with_longer_cap",
    "cap_sensitivity",
    "transition_windows",
    "F1_TARGET",
    "THRESHOLD_RULES",
    "analysis_choices",
    "analysis_choice",
    "f1_target",
]

# App. A.2's bar: D_K* is the smallest D_K whose mean test micro-F1 is >= 0.99.
F1_TARGET = 0.99
# App. A.2's rules for D_K*: the mean at the bar (central), the 95% interval's lower end (conservative) or upper end
# (optimistic); :func:`threshold`'s central value follows the multiverse's "threshold rule" when an analysis sets one.
THRESHOLD_RULES = ("central", "conservative", "optimistic")

# The choices of one analysis of the multiverse (:mod:`rgr_verify.claims.tools.multiverse`) in force while a check
# runs: ``(choices, reads)``, ``choices`` {dimension: value or None (the default)}, ``reads`` {dimension: count} where
# every read of a choice is counted (so that the runner can tell a dimension the check never reads). None: no
# analysis is set, every choice is its default.
_CHOICES: ContextVar = ContextVar("rgr_verify_analysis_choices", default=None)


@contextmanager
def analysis_choices(choices: dict, reads: dict):
    """Within the block, :func:`analysis_choice` answers from ``choices`` ({dimension: value, None for the default})
    and counts each read in ``reads`` ({dimension: count}). Set by the runner around one analysis's check
    (:meth:`rgr_verify.claims.base.CheckContext.applied`)."""
    if not isinstance(choices, dict) or not isinstance(reads, dict):
        raise ValueError("choices and reads must be dicts")
    token = _CHOICES.set((dict(choices), reads))
    try:
        yield
    finally:
        _CHOICES.reset(token)


def analysis_choice(name: str, default):
    """The value of the analysis choice ``name`` in force (``default`` when no analysis sets it); the read is
    counted when an analysis is set."""
    got = _CHOICES.get()
    if got is None:
        return default
    choices, reads = got
    reads[name] = reads.get(name, 0) + 1
    value = choices.get(name)
    return default if value is None else value


def f1_target(stated: float | None = None) -> float:
    """The F1 bar of App. A.2's threshold in force: the multiverse's "F1 target" when an analysis sets one, else
    ``stated`` (a claim's declared value), else :data:`F1_TARGET`."""
    return float(analysis_choice("F1 target", F1_TARGET if stated is None else stated))


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
        cell = cells.setdefault(key(c), {}).setdefault((c["n_heads"], c["n_heads"] * c["d_k"]), {})
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


def threshold(points: Sequence[CurvePoint], *, target: float | None = None, pool: float = 0.10, alpha: float = 0.05,
              higher_is_better: bool = True) -> Threshold:
    """D_K^* and h^* of one group's curve points (App. A.2). For MSE use ``higher_is_better=False``. ``target``
    None: the F1 bar in force (:func:`f1_target`). ``central`` is App. A.2's rule (mean F1 >= target), or the
    conservative / optimistic variant when the analysis in force sets the multiverse's "threshold rule"."""
    if target is None:
        target = f1_target()
    check_probability("pool", pool)
    check_probability("alpha", alpha, open_low=True, open_high=True)
    if not points:
        raise ValueError("points must be non-empty")
    ok = (lambda v: v >= target) if higher_is_better else (lambda v: v <= target)

    def first(attr: str):
        passing = [p for p in points if ok(getattr(p, attr))]
        return min((p.D_K for p in passing), default=None)

    conservative = first("low" if higher_is_better else "high")
    optimistic = first("high" if higher_is_better else "low")
    # the rule of the central D_K* (App. A.2's mean; the multiverse's "threshold rule" may take the conservative or
    # the optimistic variant App. A.2 names, and h* is then picked among the h passing by that rule)
    rule = analysis_choice("threshold rule", "central") if higher_is_better else "central"
    if rule not in THRESHOLD_RULES:
        raise ValueError(f"threshold rule must be one of {THRESHOLD_RULES}, got {rule!r}")
    attr = {"central": "mean", "conservative": "low", "optimistic": "high"}[rule]
    central = first(attr)
    max_tested = max(p.D_K for p in points)
    if central is None:
        return Threshold(None, conservative, optimistic, None, None, None, None, max_tested)
    at = [p for p in points if p.D_K == central and ok(getattr(p, attr))]
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
                    rng: np.random.Generator, n_resamples: int = 1000, target: float | None = None,
                    confidence: float = 0.95) -> tuple[float, float, int]:
    """Percentile bootstrap interval of the through-origin slope of D_K^* against ``xfun(group)``.

    Each resample draws, independently per group, seeds with replacement and recomputes every configuration's
    mean F1 over the drawn seeds, then D_K^* (central) per group, then the slope over groups with a finite
    D_K^*. Returns (low, high, resamples used).
    """
    n_resamples = check_int("n_resamples", n_resamples, min_value=10)
    target = f1_target() if target is None else target
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


# ---------------------------------------------------------------------------------------------------------
# Per-seed thresholds, step-cap sensitivity and the shape of the F1-D_K transition


def per_seed_thresholds(records: Sequence[dict], *, target: float | None = None) -> dict[int, dict]:
    """Per seed of one cell: the smallest D_K where some h reaches ``target`` test F1, the h attaining it (ties:
    larger F1, then fewer heads), and whether that run stopped early. ``{seed: {"D_K", "h", "stopped_early"}}``
    with D_K = inf (h None) when no tested configuration passes for that seed. ``target`` None: :func:`f1_target`."""
    target = f1_target() if target is None else target
    by_seed: dict[int, list] = {}
    for rec in records:
        by_seed.setdefault(int(rec["seed"]), []).append(rec)
    out = {}
    for seed, recs in sorted(by_seed.items()):
        passing = [r for r in recs if float(r["metric"]) >= target]
        if not passing:
            out[seed] = {"D_K": math.inf, "h": None, "stopped_early": None}
            continue
        best = min(passing, key=lambda r: (r["config"]["n_heads"] * r["config"]["d_k"], -float(r["metric"]),
                                           r["config"]["n_heads"]))
        c = best["config"]
        out[seed] = {"D_K": c["n_heads"] * c["d_k"], "h": c["n_heads"], "stopped_early": bool(best["stopped_early"])}
    return out



def rising_at_cap(record: dict, *, window: int = 5, min_rise: float = 0.005) -> bool:
    """True when a run hit its step cap (did not stop early) with validation F1 still rising: the mean of its last
    ``window`` checks exceeds the mean of the ``window`` checks before them by at least ``min_rise``."""
    window = check_int("window", window, min_value=1)
    if record["stopped_early"]:
        return False
    hist = list(record.get("val_history") or [])
    if len(hist) < 2 * window:
        return True  # too short a history to say it has levelled off
    return float(np.mean(hist[-window:]) - np.mean(hist[-2 * window:-window])) >= min_rise



def could_pass_with_longer_cap(record: dict, *, factor: float = 2.0, target: float | None = None,
                               window: int = 5) -> bool:
    """True when a run that hit its cap below ``target`` would reach it within a cap ``factor`` times longer if its
    validation F1 kept rising at its current rate (mean of the last ``window`` checks minus the mean of the
    ``window`` before, per check; linear extrapolation, optimistic for saturating curves, so a run it rules out is
    very unlikely to pass). Runs that stopped early or already reach ``target`` return False. ``target`` None:
    :func:`f1_target`."""
    window = check_int("window", window, min_value=1)
    target = f1_target() if target is None else target
    if record["stopped_early"] or float(record["metric"]) >= target:
        return False
    hist = list(record.get("val_history") or [])
    if len(hist) < 2 * window:
        return True
    rate = float(np.mean(hist[-window:]) - np.mean(hist[-2 * window:-window])) / window
    more_checks = (factor - 1.0) * len(hist)
    return float(np.mean(hist[-window:])) + rate * more_checks >= target



def cap_sensitivity(runs: dict[tuple, Sequence[dict]], points: Sequence, central: int | None, h_star: int | None, *,
                    min_early: float = 0.9, near: float = 0.9, target: float | None = None) -> dict:
    """Whether a cell's D_K^* is set by the step cap rather than by capacity.

    ``runs``: ``{(h, D_K): [records]}`` of the cell; ``points``: its :class:`~rgr_verify.analysis.capacity.CurvePoint` list.
    Reports the share of runs at (h^*, D_K^*) that stopped early (flagged when below ``min_early``; the cell counts
    as *cap-limited* when at most half did, i.e. most runs there hit the cap; the stricter reading flags any run
    there that hit the cap), and, at the tested D_K just below
    D_K^*, every h (mean test F1 at least ``near``) most of whose runs would reach ``target`` with a cap twice as long
    at their current rate (:func:`could_pass_with_longer_cap`): such an h could pass, so D_K^* could move down.
    """
    check_probability("min_early", min_early)
    target = f1_target() if target is None else target
    if central is None:
        return {"stopped early at (h*, D_K*)": None, "below 90%": None, "cap-limited": None,
                "any threshold run hit the cap": None, "could move down with a longer cap": None, "candidates": []}
    at = runs.get((h_star, central), [])
    frac = sum(bool(r["stopped_early"]) for r in at) / len(at) if at else float("nan")
    below = [p.D_K for p in points if p.D_K < central]
    cands = []
    if below:
        prev = max(below)
        for p in points:
            if p.D_K != prev or not near <= p.mean < target:
                continue
            rs = runs.get((p.h, p.D_K), [])
            movable = sum(could_pass_with_longer_cap(r, target=target) for r in rs)
            if rs and movable > len(rs) / 2:
                cands.append({"h": p.h, "D_K": p.D_K, "mean F1": round(p.mean, 4),
                              "runs reaching 0.99 with a 2x cap at their current rate": f"{movable}/{len(rs)}"})
    return {"stopped early at (h*, D_K*)": round(frac, 3), "below 90%": bool(frac < min_early),
            "cap-limited": bool(frac <= 0.5), "any threshold run hit the cap": bool(frac < 1),
            "could move down with a longer cap": bool(cands), "candidates": cands}



def transition_windows(points: Sequence, *, low: float = 0.5, high: float | None = None, factor: float = 4.0,
                       alpha: float = 0.05) -> list[dict]:
    """Classify each head count's F1-D_K curve that reaches mean F1 >= ``high`` as sharp, gradual or undecided.

    With one-sided t-bounds at level ``alpha`` per point (over the seeds of the point):
    * **sharp**: some D_lo with upper bound <= ``low`` and some D_hi <= ``factor`` D_lo with lower bound >= ``high``
      (the rise from ``low`` to ``high`` provably happens within a factor ``factor`` of D_K);
    * **gradual**: some D_a with lower bound > ``low`` and some D_b >= ``factor`` D_a with upper bound < ``high``
      (the rise provably takes more than a factor ``factor``);
    * otherwise **undecided**. Curves that never reach ``high`` (plateaus) are not classified.
    If every bound holds (probability >= 1 - alpha x #points by the union bound), a curve is never misclassified.
    ``high`` None: App. A.2's F1 bar in force (:func:`f1_target`).
    """
    check_probability("alpha", alpha, open_low=True, open_high=True)
    high = f1_target() if high is None else high
    out = []
    for h in sorted({p.h for p in points}):
        line = sorted((p for p in points if p.h == h), key=lambda p: p.D_K)
        if not any(p.mean >= high for p in line):
            continue
        bounds = []
        for p in line:
            n = len(p.values)
            if n >= 2:
                half = _st.t.ppf(1 - alpha, n - 1) * float(np.std(p.values, ddof=1)) / math.sqrt(n)
            else:
                half = math.inf
            bounds.append((p.D_K, p.mean - half, p.mean + half, p.mean))
        sharp = [(a[0], b[0]) for a in bounds for b in bounds if a[0] < b[0] <= factor * a[0] and a[2] <= low
                 and b[1] >= high]
        gradual = [(a[0], b[0]) for a in bounds for b in bounds if b[0] >= factor * a[0] and a[1] > low
                   and b[2] < high]
        kind = "gradual" if gradual else "sharp" if sharp else "undecided"
        out.append({"h": h, "kind": kind, "witness": (gradual or sharp or [None])[0],
                    "means": {d: round(mean, 4) for d, _, _, mean in bounds}})
    return out
