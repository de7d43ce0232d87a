"""The Figure 6 shape rules (rgr_verify.claims.paper_sec7.value_shape) pass, fail and stay inconclusive by one
standard: small synthetic value-retrieval records (test MSE per run) with a pass, a fail and an undecided case each,
and the error-to-rising map the sharp-transition rule reads them through."""

from __future__ import annotations

import math

import pytest

from rgr_verify.analysis.capacity import CurvePoint
from rgr_verify.claims.base import Status
from rgr_verify.claims.paper_sec7.value_shape import mse_drop_verdict, single_head_plateau, value_curves
from rgr_verify.claims.tools.sharp import rising_points
from rgr_verify.runs.plants import PLANTS

H, C, I = Status.HOLDS_EMPIRICALLY, Status.CONTRADICTED_EMPIRICALLY, Status.INCONCLUSIVE
SEEDS = range(10)


def _records(curves_by_h, *, d_model=16, spread=0.004, stopped=True):
    """Engine-shaped value records: ``curves_by_h`` {h: {D_K: mean MSE}}; per seed the mean plus a fixed offset
    (seed s: spread * (s - 4.5) / 4.5, the same for every point, so paired differences are exact)."""
    out = []
    for h, means in curves_by_h.items():
        for D, m in means.items():
            for s in SEEDS:
                out.append({"config": {"variant": "value", "graph": "permutation", "r": 1, "m": 64,
                                       "d_model": d_model, "n_heads": h, "d_k": D // h, "max_steps": 20000},
                            "seed": s, "metric": m + spread * (s - 4.5) / 4.5, "stopped_early": stopped,
                            "steps": 5000, "val_history": [m], "extra": {}, "tau": 0.0})
    return out


def _noisy(recs, every=0.05):
    """``recs`` with an offset of +-``every`` (alternating by seed) on the h = 1 runs above D_K = 8: the paired
    falls from D_K = 8 get wide."""
    def jolt(r):
        c = r["config"]
        if c["n_heads"] != 1 or c["d_k"] == 8:
            return r
        return {**r, "metric": r["metric"] + (every if r["seed"] % 2 else -every)}
    return [jolt(r) for r in recs]


_LADDER = (8, 16, 32, 64, 128)
_MULTI = {4: {8: 0.6, 16: 0.5, 32: 0.42, 64: 0.4, 128: 0.41}, 16: {16: 0.52, 32: 0.43, 64: 0.36, 128: 0.31}}


def _plateau(pts, margin=0.1):
    return single_head_plateau(pts, 4, margin, 0.05)


def test_single_head_plateau_passes_on_a_flat_high_curve():
    pts, _ = value_curves(_records({1: {8: 0.68, 16: 0.66, 32: 0.66, 64: 0.68, 128: 0.74}, **_MULTI}), 16)
    status, res = _plateau(pts)
    assert status is H and res["no material fall"]["status"] == H.value and res["high"]["status"] == H.value
    assert res["high"]["pick"] == {"h": 16, "D_K": 128, "mean MSE": pytest.approx(0.31)}


def test_single_head_plateau_fails_when_one_head_falls_as_far_as_the_best():
    # the alternative: h = 1 does as well as the best head count (both parts fail)
    pts, _ = value_curves(_records({1: {8: 0.6, 16: 0.5, 32: 0.42, 64: 0.36, 128: 0.31}, **_MULTI}), 16)
    status, res = _plateau(pts)
    assert status is C
    assert res["no material fall"]["failed"] == ["D_K 8 -> 32", "D_K 8 -> 64", "D_K 8 -> 128"]
    assert "h=1, D_K=128" in res["high"]["failed"]
    # a flat curve that ends on the best multi-head MSE fails on 'high' alone: the conjunction fails
    pts, _ = value_curves(_records({1: {8: 0.35, 16: 0.34, 32: 0.33, 64: 0.32, 128: 0.31}, **_MULTI}), 16)
    status, res = _plateau(pts)
    assert status is C and res["no material fall"]["status"] == H.value and res["high"]["status"] == C.value


def test_single_head_plateau_is_inconclusive_where_the_interval_meets_the_margin():
    # a mean fall of 0.09 at D_K 16 (inside 0.1 as a point) whose interval straddles 0.1: neither part decides it
    recs = _noisy(_records({1: {8: 0.75, 16: 0.66, 32: 0.7, 64: 0.7, 128: 0.72}, **_MULTI}))
    pts, _ = value_curves(recs, 16)
    status, res = _plateau(pts)
    falls = res["no material fall"]["fall from the smallest D_K (mean, interval)"]
    assert status is I and falls["D_K 8 -> 16"]["mean"] < 0.1 < falls["D_K 8 -> 16"]["interval"][1]
    assert not falls["D_K 8 -> 16"]["inside"] and not falls["D_K 8 -> 16"]["wholly above"]
    with pytest.raises(ValueError):
        single_head_plateau([p for p in pts if p.h != 1], 4, 0.1, 0.05)


def test_rising_points_map_an_error_onto_the_rising_scale():
    p = CurvePoint(4, 32, (0, 1), (0.2, 0.4), 0.3, 0.1, 0.5)
    (q,) = rising_points([p], 2.0)
    assert q.values == pytest.approx((0.9, 0.8)) and q.mean == pytest.approx(0.85)
    assert (q.low, q.high) == pytest.approx((0.75, 0.95)) and (q.h, q.D_K, q.seeds) == (4, 32, (0, 1))
    for bad in (0.0, -1.0, math.inf, math.nan):
        with pytest.raises(ValueError):
            rising_points([p], bad)


def _drop(curves_by_h, stopped=True):
    pts, st = value_curves(_records(curves_by_h, spread=0.0008, stopped=stopped), 16)
    return mse_drop_verdict(pts, st, 4, 10 * sum(len(c) for c in curves_by_h.values()))


def test_mse_drop_holds_when_every_curve_drops_sharply_to_the_bar():
    v = _drop({4: {8: 0.9, 16: 0.9, 32: 0.004, 64: 0.003}, 8: {8: 0.95, 16: 0.6, 32: 0.005, 64: 0.004},
               1: {8: 0.7, 16: 0.7, 32: 0.7, 64: 0.7}})  # h = 1 is not judged (the cut h >= 4)
    assert v.status is H and v.measured_value["sharp"] == 2 and v.measured_value["curves"] == 2
    assert set(v.measured_value["MSE curves"]) == {"h=4", "h=8"}


def test_mse_drop_fails_on_a_gradual_curve_that_reaches_the_bar():
    # the gradual_transition plant on a long ladder (MSE = 1 - 0.12 log2 D_K, down to 0.001 from D_K = 512): the fall
    # from MSE 0.5 to 0.01 takes a factor of about 16 in D_K; runs not capped
    ladder = (8, 16, 32, 64, 128, 256, 512, 1024)
    planted = PLANTS["gradual_transition"](_records({4: {D: 0.5 for D in ladder}}))
    pts, st = value_curves([{**r, "stopped_early": True} for r in planted], 16)
    v = mse_drop_verdict(pts, st, 4, len(planted))
    assert v.status is C and v.measured_value["gradual"] == 1 and v.witness
    # the same curve in a cap-limited cell (its runs hit the step cap, as the plant marks them) is censored
    pts, st = value_curves(planted, 16)
    v = mse_drop_verdict(pts, st, 4, len(planted))
    assert v.status is I and v.measured_value["gradual in cap-limited cells (not counted)"] == 1


def test_mse_drop_is_inconclusive_when_no_curve_reaches_the_bar():
    v = _drop(_MULTI)  # the committed evidence's shape: MSE 0.6 -> 0.31, far above 0.01
    assert v.status is I and v.measured_value["curves"] == 0 and "to_decide" in v.params
    assert not any(r["reaches the MSE bar"] for r in v.measured_value["MSE curves"].values())
    # and on the gradual_transition plant of that ladder (MSE down to 0.16): still plateaus, never a pass
    planted = PLANTS["gradual_transition"](_records({4: {D: 0.5 for D in _LADDER}}))
    pts, st = value_curves(planted, 16)
    assert mse_drop_verdict(pts, st, 4, len(planted)).status is I
