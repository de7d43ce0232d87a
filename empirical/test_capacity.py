# App. A.2: D_K* (central / conservative / optimistic), h* with the 10% pool and paired t-tests, and the fits.
import math

import numpy as np
import pytest

from rgr_verify.analysis.capacity import (
    bootstrap_slope,
    cap_sensitivity,
    compression_x,
    could_pass_with_longer_cap,
    curves,
    fit_affine,
    fit_through_origin,
    per_seed_thresholds,
    threshold,
    transition_windows,
)
from rgr_verify.analysis.fits import (
    DKInterval,
    compare_laws,
    dk_interval,
    interval_regression,
    preference,
    profile_interval,
    slope_range_affine,
    slope_range_through_origin,
)
from rgr_verify.core.stats import permutation_pvalue, stratified_permutation_pvalue


def _rec(m, d, h, D, seed, metric):
    return {"config": {"variant": "max", "graph": "permutation", "r": 1, "m": m, "d_model": d, "n_heads": h,
                       "d_k": D // h}, "seed": seed, "metric": metric}


def _records():
    # Hand-set curves: h=1 never passes; h=4 passes at D_K=32 (mean 0.995), h=2 at 32 is just below 0.99 on
    # average but its interval reaches 0.99; at D_K=64 everything of h>1 passes.
    table = {(1, 16): [0.3, 0.32, 0.31], (1, 32): [0.5, 0.52, 0.5], (1, 64): [0.6, 0.61, 0.62],
             (2, 16): [0.6, 0.7, 0.65], (2, 32): [0.98, 0.995, 0.99], (2, 64): [1.0, 1.0, 1.0],
             (4, 16): [0.7, 0.75, 0.72], (4, 32): [0.99, 1.0, 0.995], (4, 64): [1.0, 1.0, 1.0]}
    return [_rec(64, 16, h, D, s, v) for (h, D), vals in table.items() for s, v in enumerate(vals)]


def test_threshold_hand_set():
    (key, pts), = curves(_records()).items()
    assert key == ("max", "permutation", 1, 64, 16)
    th = threshold(pts)
    assert th.central == 32 and th.h_star == 4 and th.d_k_star == 8
    assert th.optimistic == 32  # h=2's interval reaches 0.99 at 32 as well
    # h=4 at 32: values 0.99, 1.0, 0.995 -> the t lower end is below 0.99, so conservative moves to 64.
    assert th.conservative == 64
    assert th.h_low == 2 and th.h_high == 4  # h=2 at D_K=32 is within 10% and not significantly different
    assert th.max_tested == 64


def test_threshold_censored_and_mse_direction():
    pts = [p for p in curves(_records())[("max", "permutation", 1, 64, 16)] if p.h == 1]
    th = threshold(pts)
    assert th.central is None and th.h_star is None and th.max_tested == 64
    th_mse = threshold(pts, target=0.55, higher_is_better=False)  # "MSE <= 0.55"
    assert th_mse.central == 16  # the smallest D_K with mean <= 0.55


def test_fits_recover_exact_lines():
    x = np.array([1.0, 2.0, 4.0, 8.0])
    f = fit_through_origin(x, 1.19 * x)
    assert math.isclose(f.slope, 1.19, rel_tol=1e-9) and math.isclose(f.r2, 1.0)
    g = fit_affine(x, 1.65 * x - 6.64)
    assert math.isclose(g.slope, 1.65, rel_tol=1e-9) and math.isclose(g.intercept, -6.64, rel_tol=1e-9)
    assert math.isclose(compression_x(64, 16), 64 * math.log(64) / 16)
    assert math.isclose(compression_x(128, 32, base="2", r=4), 4 * 128 * 7 / 32)


def test_bootstrap_slope_brackets_point_estimate():
    recs = []
    for m, d in ((32, 8), (64, 8), (64, 16)):
        dstar = 8 * round(compression_x(m, d) / 8 + 0.5)
        for D in (8, 16, 24, 32, 40, 48, 56, 64, 72, 80, 88, 96):
            for s in range(4):
                recs.append(_rec(m, d, 1, D, s, 1.0 if D >= dstar else 0.5))
    groups = {g[3:]: pts for g, pts in curves(recs).items()}
    lo, hi, n = bootstrap_slope(groups, lambda g: compression_x(*g), rng=np.random.default_rng(0), n_resamples=50)
    assert n == 50 and lo == hi  # no seed variability: a degenerate interval at the point estimate


@pytest.mark.parametrize("bad", [dict(pool=2.0), dict(alpha=0.0)])
def test_threshold_rejects_bad_args(bad):
    pts = curves(_records())[("max", "permutation", 1, 64, 16)]
    with pytest.raises(ValueError):
        threshold(pts, **bad)


@pytest.mark.parametrize("seed", range(20))
def test_threshold_estimates_are_ordered(seed):
    # App. A.2's three D_K* estimates are ordered optimistic <= central <= conservative by construction (the
    # t-interval brackets the mean); this guards our implementation of that construction on random F1 tables.
    rng = np.random.default_rng(seed)
    recs = [_rec(64, 16, h, D, s, float(np.clip(rng.normal(0.9 + 0.03 * np.log2(D / 8) + 0.01 * h, 0.02), 0, 1)))
            for h in (1, 2, 4) for D in (8, 16, 32, 64) for s in range(4)]
    (_, pts), = curves(recs).items()
    th = threshold(pts)
    val = [math.inf if v is None else v for v in (th.optimistic, th.central, th.conservative)]
    assert val[0] <= val[1] <= val[2]


# rgr_verify.analysis.fits: D_K* intervals, interval (censored) regression, competing laws, grid ranges; rgr_verify.core.stats:
# permutation tests; rgr_verify.analysis.capacity: per-seed thresholds, step-cap sensitivity, transition windows.


def test_dk_interval_hand_set_and_censoring():
    assert dk_interval([4, 6, 8, 12], 8) == DKInterval(6.0, 8.0, "interval")
    assert dk_interval([4, 6, 8, 12], 4).kind == "left-censored" and dk_interval([4, 6], 4).low == 0.0
    right = dk_interval([4, 6, 8], None)
    assert right.kind == "right-censored" and right.low == 8.0 and math.isinf(right.high) and right.censored
    with pytest.raises(ValueError, match="central"):
        dk_interval([4, 6], 5)


def test_interval_regression_recovers_points_exactly():
    # Exact points (low == high) on a line: ordinary least squares with sigma -> the residual scale.
    x = np.linspace(0, 3, 8)
    y = 0.5 + 2.0 * x + np.array([0.1, -0.1] * 4)
    fit = interval_regression(y, y, np.column_stack([np.ones_like(x), x]))
    ols = np.linalg.lstsq(np.column_stack([np.ones_like(x), x]), y, rcond=None)[0]
    assert np.allclose(fit.beta, ols, atol=1e-4)
    assert math.isclose(fit.sigma, float(np.sqrt(np.mean((y - np.column_stack([np.ones_like(x), x]) @ ols) ** 2))),
                        rel_tol=1e-3)


def test_interval_regression_censored_case_known_answer():
    # log y = log a + log x, intervals (x a / 1.3, x a * 1.1] with a = 1.5 and one right-censored cell whose
    # lower end (2 x a) is above the line: the line through every interval is consistent, so the profile
    # interval of log a is the intersection of the intervals' constraints, here [log(1.5/1.3), log(1.5 * 1.1)]
    # with the censored point tightening the bound only if it binds (it does not: its lower end is above).
    x = np.array([2.0, 4.0, 8.0, 16.0, 32.0])
    a = 1.5
    low = np.log(a * x / 1.3)
    high = np.log(a * x * 1.1)
    low[-1], high[-1] = math.log(a * x[-1] * 0.5), math.inf  # right-censored: y > 0.5 a x
    fit = interval_regression(low, high, np.ones((5, 1)), offset=np.log(x))
    assert fit.censored == 1 and fit.loglik > -1e-6  # every interval is hit
    lo, hi = profile_interval(fit, 0)
    assert math.isclose(math.exp(lo), a / 1.3, rel_tol=2e-2) and math.isclose(math.exp(hi), a * 1.1, rel_tol=2e-2)


def test_interval_regression_rejects_bad_input():
    with pytest.raises(ValueError, match="low and high"):
        interval_regression([1.0, 2.0], [0.0, 3.0], np.ones((2, 1)))
    with pytest.raises(ValueError, match="design"):
        interval_regression([1.0, 2.0, 3.0], [1.5, 2.5, 3.5], np.ones((2, 1)))


def test_compare_laws_prefers_the_generating_law():
    m = np.array([64, 128, 256, 512, 64, 128, 256, 512])
    d = np.array([16, 16, 32, 32, 64, 64, 16, 64])
    true = 1.2 * m * np.log(m) / d
    ivs = [DKInterval(t / 1.3, t * 1.1, "interval") for t in true]
    ranked = compare_laws(ivs, m, d)
    assert ranked[0].law == "m ln m / d_model" and math.isclose(ranked[0].d_aic, 0.0)
    assert {lf.law: lf for lf in ranked}["m / d_model"].d_aic > 2
    pref = preference(ranked, "m / d_model")
    assert pref["preferred"] == "m ln m / d_model" and pref["dAIC of m / d_model"] > 2
    with pytest.raises(ValueError, match="law"):
        preference(ranked, "m^2")


def test_slope_ranges_are_exact():
    x = np.array([1.0, 2.0, 4.0])
    lo, hi = slope_range_through_origin(x, [1, 2, 4], [2, 4, 8])
    assert math.isclose(lo, 1.0) and math.isclose(hi, 2.0)
    a_lo, a_hi = slope_range_affine(x, [0, 0, 0], [1, 1, 1])
    # weights (x - xbar) / Sxx = (-4/3, -1/3, 5/3) / (14/3): the extreme slopes take y = 1 where the weight is positive
    assert math.isclose(a_hi, (5 / 3) / (14 / 3)) and math.isclose(a_lo, -(5 / 3) / (14 / 3))
    with pytest.raises(ValueError, match="low must be <= high"):
        slope_range_through_origin(x, [2, 2, 2], [1, 1, 1])


def test_permutation_pvalues_exact():
    assert math.isclose(permutation_pvalue([1, 1, 1, 1], [2, 2, 2, 2]), 1 / 70)
    assert math.isclose(permutation_pvalue([8, 8, 8], [math.inf] * 3), 1 / 20)
    # identical samples: of the 6 splits only the one giving b both low values is less extreme than observed
    assert math.isclose(permutation_pvalue([1, 2], [1, 2]), 5 / 6)
    assert math.isclose(permutation_pvalue([2, 2, 2], [1, 1, 1], alternative="less"), 1 / 20)
    assert math.isclose(stratified_permutation_pvalue([([1, 1, 1], [2, 2, 2]), ([5, 5, 5], [9, 9, 9])]), 1 / 400)
    with pytest.raises(ValueError, match="alternative"):
        permutation_pvalue([1], [2], alternative="two")


def _run(seed, h, D, metric, early=True, hist=()):
    return {"config": {"n_heads": h, "d_k": D // h}, "seed": seed, "metric": metric, "stopped_early": early,
            "val_history": list(hist)}


def test_per_seed_thresholds_and_cap_sensitivity():
    runs = [_run(0, 1, 8, 0.5, False), _run(0, 2, 8, 0.995, True), _run(0, 1, 16, 1.0, True),
            _run(1, 1, 8, 0.4, False), _run(1, 2, 8, 0.9, False), _run(1, 1, 16, 0.995, False)]
    per = per_seed_thresholds(runs)
    assert per[0] == {"D_K": 8, "h": 2, "stopped_early": True}
    assert per[1] == {"D_K": 16, "h": 1, "stopped_early": False}
    # cap sensitivity: threshold (h=1, D=16); below it (D=8) h=2 at mean 0.96 with both runs rising at the cap.
    rising = [0.5] * 5 + [0.9] * 5
    grid = [_rec(64, 16, h, D, s, v) for (s, h, D, v) in ((0, 1, 8, 0.5), (1, 1, 8, 0.5), (0, 2, 8, 0.96),
                                                           (1, 2, 8, 0.96), (0, 1, 16, 1.0), (1, 1, 16, 1.0))]
    (_, pts), = curves(grid).items()
    by_cfg = {(2, 8): [_run(0, 2, 8, 0.96, False, rising), _run(1, 2, 8, 0.96, False, rising)],
              (1, 8): [_run(0, 1, 8, 0.5, False, [0.5] * 10)] * 2,
              (1, 16): [_run(0, 1, 16, 1.0, True), _run(1, 1, 16, 1.0, False)]}
    cap = cap_sensitivity(by_cfg, pts, 16, 1)
    assert cap["stopped early at (h*, D_K*)"] == 0.5 and cap["below 90%"] and cap["cap-limited"]
    assert cap["could move down with a longer cap"] and cap["candidates"][0]["h"] == 2


def test_transition_windows_sharp_gradual_and_plateau():
    def pts(table):
        recs = [_rec(64, 16, h, D, s, v + 0.001 * s) for (h, D), v in table.items() for s in range(6)]
        return curves(recs)[("max", "permutation", 1, 64, 16)]

    sharp = pts({(1, 8): 0.3, (1, 16): 0.6, (1, 32): 0.999})
    gradual = pts({(1, 8): 0.6, (1, 16): 0.7, (1, 32): 0.8, (1, 64): 0.9, (1, 128): 0.999})
    plateau = pts({(1, 8): 0.3, (1, 16): 0.4})
    assert transition_windows(sharp)[0]["kind"] == "sharp"
    assert transition_windows(gradual)[0]["kind"] == "gradual"
    assert transition_windows(plateau) == []


def test_could_pass_with_longer_cap_extrapolates_linearly():
    slow = _run(0, 1, 8, 0.58, False, [0.55] * 5 + [0.57] * 5)  # +0.004 per check: 0.57 + 0.04 after 10 more checks
    fast = _run(0, 1, 8, 0.93, False, [0.80] * 5 + [0.90] * 5)  # +0.02 per check: 0.90 + 0.2 >= 0.99
    assert not could_pass_with_longer_cap(slow) and could_pass_with_longer_cap(fast)
    assert not could_pass_with_longer_cap(_run(0, 1, 8, 0.5, True, [0.1, 0.9] * 5))  # stopped early: not capped


def test_fits_holds_its_own_names_only():
    # the capacity and statistics names live in their own modules and are imported from there (no re-exports)
    from rgr_verify.analysis import capacity, fits
    from rgr_verify.core import stats

    assert all(hasattr(fits, name) for name in fits.__all__)
    for name in ("permutation_pvalue", "stratified_permutation_pvalue"):
        assert not hasattr(fits, name) and hasattr(stats, name)
    for name in ("per_seed_thresholds", "rising_at_cap", "could_pass_with_longer_cap", "cap_sensitivity",
                 "transition_windows"):
        assert not hasattr(fits, name) and hasattr(capacity, name)


def test_bootstrap_interval_covers_the_sample_mean():
    from rgr_verify.core.stats import bootstrap_interval

    data = np.random.default_rng(0).normal(0.9, 0.02, size=12)
    lo, hi = bootstrap_interval(data, np.mean, rng=np.random.default_rng(1), n_resamples=200)
    assert lo <= data.mean() <= hi and hi - lo < 0.05
    with pytest.raises(ValueError, match="n_resamples"):
        bootstrap_interval(data, np.mean, rng=np.random.default_rng(1), n_resamples=5)
