"""One standard to pass and to fail (issue 37, item 6): the experimental claims that passed when an interval merely met
their band, or on a point estimate while failing only on an interval, now pass only on an interval inside the band,
fail only on one wholly outside it, and are inconclusive in between. Each test builds the weak pass the old rule
granted and shows the new rule refuses it, beside a pass and a fail the new rule still gives."""

from __future__ import annotations

import math
from types import SimpleNamespace as NS

import numpy as np
import pytest

from rgr_verify.claims.base import CheckContext, Status
from rgr_verify.claims.paper_appa import results
from rgr_verify.analysis.fits import DKInterval

HOLDS, FAILS, OPEN = Status.HOLDS_EMPIRICALLY, Status.CONTRADICTED_EMPIRICALLY, Status.INCONCLUSIVE


def _th(h, lo, hi, D=None):
    return NS(h_star=h, h_low=lo, h_high=hi, central=D, d_k_star=None if D is None else D / h)


# --- fig4-diagonal-hstar-proportional-to-compression: intervals against [median / 2, 2 median] and [2, 8] ----------

def _diag_status(ratio_h, diag_h=((4, 4, 4),) * 5):
    from rgr_verify.claims.paper_sec6.diagonal import diagonal_heads_status

    ths = {(8 * d, d): _th(*h) for d, h in zip((16, 32, 64, 128, 256), diag_h)}
    ths[(1024, 32)] = _th(*ratio_h)
    return diagonal_heads_status(ths, sorted(k for k in ths if k[0] == 8 * k[1]), 2.0, 4.0)


def test_fig4_ratio_interval_merely_meeting_the_band_is_not_a_pass():
    # the committed case: (1024,32) h* in [32, 64] over the median 4 is [8, 16], meeting [2, 8] at 8 (the old rule held)
    status, med, off, ratio, inside = _diag_status((32, 32, 64))
    assert med == 4.0 and ratio == (8.0, 16.0) and status is OPEN and not inside
    assert _diag_status((16, 16, 16))[0] is HOLDS  # [4, 4] inside [2, 8]
    assert _diag_status((64, 64, 128))[0] is FAILS  # [16, 32] wholly above 8 (the old rule needed beyond 4x: 32)


def test_fig4_diagonal_interval_merely_meeting_its_band_is_not_a_pass():
    meets = ((4, 4, 4),) * 4 + ((4, 4, 16),)  # [4, 16] meets [2, 8]
    status, _, off, _, _ = _diag_status((16, 16, 16), meets)
    assert status is OPEN and off == [(2048, 256)]
    outside = ((4, 4, 4),) * 4 + ((16, 16, 16),)  # [16, 16] wholly above 8: fails (the old rule needed beyond 16)
    assert _diag_status((16, 16, 16), outside)[0] is FAILS


# --- Table 1 cell by cell, adaptive and at the threshold: grid ranges against [d_k / 2, 2 d_k] ----------------------

def _grid(monkeypatch, cells):
    """cached_full_grid replaced by cells {(m, d): (D_K* low, D_K* high, h*, h_low, h_high)}."""
    ths = {k: NS(h_star=h, h_low=hl, h_high=hh, central=hi, d_k_star=hi / h) for k, (lo, hi, h, hl, hh) in cells.items()}
    ivs = {k: DKInterval(lo, hi, "interval") for k, (lo, hi, h, hl, hh) in cells.items()}
    got = ([{}] * 10, {k: [] for k in cells}, ths, ivs, {}, None)
    monkeypatch.setattr(results, "cached_full_grid", lambda ctx: (got, ""))


def _ctx(**expects):
    return CheckContext(seed=7, tier="full", expects=expects)


def test_table1_cell_range_meeting_the_band_is_undecided_not_agreeing(monkeypatch):
    table = {(64, 16): 10, (64, 32): 10}
    # both ranges [4, 8] against [5, 20]: they reach within a factor 2 of 10 (the old rule's agreement), not inside
    _grid(monkeypatch, {k: (4, 8, 1, 1, 1) for k in table})
    v = results._check_table1_cells(_ctx(table1=table))
    assert v.status is OPEN and v.measured_value["decided cells"] == 0
    assert all(r["verdict"].startswith("undecided") for r in v.measured_value["cells"].values())
    _grid(monkeypatch, {k: (6, 12, 1, 1, 1) for k in table})  # [6, 12] inside [5, 20]
    assert results._check_table1_cells(_ctx(table1=table)).status is HOLDS
    _grid(monkeypatch, {k: (1, 4, 1, 1, 1) for k in table})  # [1, 4] wholly below 5
    assert results._check_table1_cells(_ctx(table1=table)).status is FAILS


def _adaptive(monkeypatch, pools):
    """adaptive_search replaced by exact D_K*(h) per cell, {(m, d): {h: D_K*}}."""
    res = [NS(cell=NS(m=m, d_model=d), h=h, status="exact", dk_star=D, low=D - h, mean_at_star=1.0, runs_probed=1)
           for (m, d), pool in pools.items() for h, D in pool.items()]
    monkeypatch.setattr(results, "adaptive_search", lambda ctx, keys: (res, [NS(adaptive=True, runs=len(res))]))


def test_table1_adaptive_width_range_meeting_the_band_is_undecided(monkeypatch):
    table = {(64, 16): 10, (64, 32): 10}
    _adaptive(monkeypatch, {k: {1: 4, 2: 8} for k in table})  # widths [4, 4]: wholly below [5, 20]
    assert results._check_table1_adaptive(_ctx(table1=table)).status is FAILS
    _adaptive(monkeypatch, {k: {1: 22, 2: 22} for k in table})  # widths [11, 22]: meets [5, 20], the old rule agreed
    v = results._check_table1_adaptive(_ctx(table1=table))
    assert v.params["robustness"]["curve"][0]["status"] == OPEN.value and v.measured_value["deciding"] == 0
    _adaptive(monkeypatch, {k: {1: 12, 2: 22} for k in table})  # widths [11, 12] inside [5, 20]
    assert results._check_table1_adaptive(_ctx(table1=table)).status is HOLDS


def test_table1_at_threshold_point_inside_with_grid_interval_meeting_is_not_a_pass(monkeypatch):
    stated = {"lo": 5, "hi": 24, "median": 11}
    # points (D_K* / h*) 6, 12, 24: inside their bands (the old rule held); the grid ranges [2, 6], [6, 12], [12, 24]
    # give the smallest [2, 6] (meets [3.54, 7.07]) and the median [6, 12] (meets [7.78, 15.56])
    cells = {(64, 16): (2, 6, 1, 1, 1), (64, 32): (6, 12, 1, 1, 1), (64, 64): (12, 24, 1, 1, 1)}
    _grid(monkeypatch, cells)
    v = results._check_table1(_ctx(**stated))
    assert (v.measured_value["smallest"], v.measured_value["median"], v.measured_value["largest"]) == (6, 12, 24)
    assert v.status is OPEN
    _grid(monkeypatch, {(64, 16): (5, 6, 1, 1, 1), (64, 32): (11, 12, 1, 1, 1), (64, 64): (20, 24, 1, 1, 1)})
    assert results._check_table1(_ctx(**stated)).status is HOLDS
    _grid(monkeypatch, {(64, 16): (1, 2, 1, 1, 1), (64, 32): (11, 12, 1, 1, 1), (64, 64): (20, 24, 1, 1, 1)})
    assert results._check_table1(_ctx(**stated)).status is FAILS  # smallest [1, 2] wholly below 3.54


# --- fig10-hstar-linear-in-compression: grid intervals of slope, intercept, R^2 ------------------------------------

def test_fig10_ranges_hold_every_fit_in_the_box():
    rng = np.random.default_rng(3)
    x = np.array([1.0, 2.0, 4.0, 8.0, 16.0])
    lo = np.array([1.0, 2.0, 4.0, 8.0, 16.0])
    hi = lo * np.array([1, 2, 1, 2, 2])
    s = results.intercept_range_affine(x, lo, hi)
    r2 = results.r2_outer_range_affine(x, lo, hi)
    for _ in range(2000):
        y = lo + rng.random(lo.size) * (hi - lo)
        b, a = np.polyfit(x, y, 1)
        r = 1 - np.sum((y - (b * x + a)) ** 2) / np.sum((y - y.mean()) ** 2)
        assert s[0] - 1e-9 <= a <= s[1] + 1e-9 and r2[0] - 1e-9 <= r <= r2[1] + 1e-9
    assert results.r2_outer_range_affine(x, np.ones(5), np.full(5, 2.0))[0] == 0.0  # a constant y in the box


def _fig10(monkeypatch, slope_rng, icpt_rng, r2_rng, point=(1.65, -6.64, 0.824)):
    known = [(64, 16), (128, 16), (256, 16)]
    _grid(monkeypatch, {k: (1, 2, 1, 1, 1) for k in known})
    meas = {"known": known, "fit": NS(slope=point[0], intercept=point[1], r2=point[2]), "range": slope_rng,
            "intercept range": icpt_rng, "r2 range": r2_rng, "laws": None, "rates": None}
    monkeypatch.setattr(results, "memo", lambda name, ctx, compute, **kw: meas)
    monkeypatch.setattr(results, "cell_rows", lambda *a, **k: {})
    return results._check_fig10(_ctx(slope=1.65, intercept=-6.64, r2=0.824))


def test_fig10_point_fit_inside_with_intervals_meeting_is_not_a_pass(monkeypatch):
    # the point fit equals the paper's numbers (the old rule held on it); the slope's grid range [1.5, 3] meets
    # [1.65 / sqrt2, 1.65 sqrt2] = [1.17, 2.33] (STATED_CONSTANT_FACTOR) and does not lie inside: inconclusive
    # R^2's interval (0.8, 0.85) lies inside 0.824 +- 0.1 (standards.tolerances.R2_HALF_WIDTH) in every case but one
    assert _fig10(monkeypatch, (1.5, 3.0), (-7.0, -6.0), (0.8, 0.85)).status is OPEN
    assert _fig10(monkeypatch, (1.5, 2.0), (-12.0, -6.0), (0.8, 0.85)).status is OPEN  # intercept meets its band
    assert _fig10(monkeypatch, (1.5, 2.0), (-7.0, -6.0), (0.5, 1.0)).status is OPEN  # R^2 meets [0.724, 0.924]
    assert _fig10(monkeypatch, (1.5, 2.0), (-7.0, -6.0), (0.8, 0.85)).status is HOLDS
    assert _fig10(monkeypatch, (1.5, 2.0), (1.0, 2.0), (0.8, 0.85)).status is FAILS  # intercept of the other sign


# --- fig7 (GPT-2): the plateau near 0.81 and near-perfect retrieval at D_K = 512 ------------------------------------

def _sec73(acc):
    """A synthetic full-preset sweep; ``acc(D, h, i)`` the test accuracy of seed i."""
    from rgr_verify.runs.sec73_presets import sec73_preset
    from rgr_verify.runs.sec73_sweep import Sec73Results

    p = sec73_preset("full")
    recs = tuple({"D_K": D, "h": h, "seed_index": i, "test_acc": acc(D, h, i), "test_null_rate": 0.0,
                  "source": p.source} for D, h in p.cells() for i in range(p.seeds))
    return Sec73Results(p, "synthetic", "cpu", recs)


def test_fig7_plateau_mean_inside_as_a_point_with_its_interval_meeting_is_not_a_pass():
    from rgr_verify.claims.paper_sec7.sec73_rules import decide_plateau

    spread = [0.66, 0.96, 0.70, 0.92, 0.74, 0.88, 0.81]  # mean 0.81, t-interval about [0.71, 0.91]: meets [0.76, 0.86]
    out = decide_plateau(_sec73(lambda D, h, i: spread[i]))
    assert abs(out["measured"]["non_collapsed_mean_lo_hi"][0] - 0.81) < 0.01 and out["status"] is OPEN
    assert decide_plateau(_sec73(lambda D, h, i: 0.81 + 0.001 * i))["status"] is HOLDS
    # a gain of 0.02 as a point (below 0.03: the old rule held) whose interval reaches above 0.03
    noisy = [0.0, 0.06, -0.06, 0.04, -0.04, 0.02, -0.02]
    out = decide_plateau(_sec73(lambda D, h, i: 0.80 + (0.02 if D == 512 else 0.0) + noisy[i]))
    gain = next(v for k, v in out["measured"].items() if k.startswith("gain_"))
    assert gain[0] < 0.03 < gain[2] and out["status"] is OPEN
    assert decide_plateau(_sec73(lambda D, h, i: 0.50 + 0.001 * i))["status"] is FAILS


def test_fig7_near_perfect_mean_above_095_with_interval_reaching_below_is_not_a_pass():
    from rgr_verify.claims.paper_sec7.sec73_rules import decide_near_perfect

    wide = [1.0, 1.0, 0.99, 1.0, 0.90, 1.0, 0.92]  # confirmation seeds 2-6: mean 0.964, interval reaches below 0.95
    out = decide_near_perfect(_sec73(lambda D, h, i: wide[i] if h >= 2 else 0.5))
    mean, lo, hi = out["measured"]["confirmation_acc_mean_lo_hi"]
    assert mean >= 0.95 > lo and out["status"] is OPEN
    assert decide_near_perfect(_sec73(lambda D, h, i: 0.99 + 0.001 * i if h >= 2 else 0.5))["status"] is HOLDS
    # wholly below 0.95 fails (the old rule needed the upper end below 0.9)
    out = decide_near_perfect(_sec73(lambda D, h, i: 0.92 + 0.001 * i if h >= 2 else 0.5))
    assert out["measured"]["confirmation_acc_mean_lo_hi"][2] > 0.9 and out["status"] is FAILS


def test_figure7_rules_vary_their_own_dimension_at_the_full_tier():
    """Issue 37: the full-tier Figure 7 rules vary a choice of their own besides the runner's (left-out seeds, test
    level, tolerance): which seeds pick the winners (disjoint blocks, the declared one first), and the growth rule
    read per head as well as on the average over h >= 2. A planted sweep where only the average grows is decided
    differently by the two readings."""
    from rgr_verify.claims.paper_sec7.sec73 import own_analyses
    from rgr_verify.claims.paper_sec7.sec73_rules import decide_advantage, decide_grows

    res = _sec73(lambda D, h, i: 0.5 + 0.01 * i)
    dim, variants = own_analyses(decide_advantage, res)
    k = res.preset.selection_seeds
    assert dim == "selection seeds" and variants[0][0].endswith("(declared)") and variants[0][1] is not res
    picked = [frozenset(r["test_acc"] for r in v.records if r["seed_index"] < k and r["D_K"] == 64 and r["h"] == 1)
              for _, v, _ in variants]  # the accuracy names the seed here
    assert len(picked) == res.preset.seeds // k and all(len(s) == k for s in picked)
    assert len(frozenset().union(*picked)) == k * len(picked)  # disjoint blocks
    dim, variants = own_analyses(decide_grows, res)
    assert dim == "contrast" and [kw for _, _, kw in variants] == [{}, {"per_head": True}]
    # h = 2 does not grow (noise around 0), h = 4 and h = 8 grow a lot: the average grows, h = 2 alone cannot be shown to
    noise = [0.03, -0.02, 0.01, -0.03, 0.02, -0.01, 0.0]
    grows = _sec73(lambda D, h, i: 0.5 + (noise[i] * (D == 512) if h == 2 else (0.3 if D == 512 else 0.0) + 0.001 * i))
    assert decide_grows(grows)["status"] is HOLDS
    assert decide_grows(grows, per_head=True)["status"] is Status.INCONCLUSIVE
