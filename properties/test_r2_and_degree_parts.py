"""The stated R^2 of Figure 3 / Sec. 6.1 and the per-degree part of Eq. (32) / App. A.3, each held by one standard
to pass and to fail: an outer bound on R^2 over the ladder's intervals, and each degree's D_K* interval against the
band around the stated constant. Each test plants the alternative the rule must reject."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rgr_verify.analysis.capacity import fit_through_origin
from rgr_verify.claims.base import Status
from rgr_verify.claims.paper_appa.a3_rules import degree_band_part
from rgr_verify.claims.tools.measure import R2_RANGE, conjunction_status, r2_status, reading_verdict
from rgr_verify.analysis.fits import DKInterval, r2_range_through_origin

_EST = "paper estimator (LS through origin, first passing D_K, uncensored cells)"


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(2, 9))
def test_r2_range_is_an_outer_bound(seed, n):
    rng = np.random.default_rng(seed)
    x = rng.uniform(0.5, 5.0, n)
    lo = 2 * x + rng.normal(0, 1.5, n)
    hi = lo + rng.uniform(0, 2.0, n) * (rng.random(n) < 0.8)  # some cells are points
    r_lo, r_hi = r2_range_through_origin(x, lo, hi)
    assert r_lo <= r_hi <= 1.0
    for y in [lo, hi, *(rng.uniform(lo, hi) for _ in range(100))]:
        r2 = fit_through_origin(x, y).r2
        if math.isfinite(r2):
            assert r_lo - 1e-9 <= r2 <= r_hi + 1e-9


def test_r2_range_of_points_is_their_r2():
    x, y = np.array([1.0, 2.0, 3.0, 4.0]), np.array([1.1, 2.3, 2.8, 4.4])
    r2 = fit_through_origin(x, y).r2
    assert r2_range_through_origin(x, y, y) == pytest.approx((r2, r2), abs=1e-12)


def test_r2_range_rejects_bad_input_and_declines_many_cells():
    with pytest.raises(ValueError, match="low must be <= high"):
        r2_range_through_origin([1.0, 2.0], [2.0, 1.0], [1.0, 3.0])
    with pytest.raises(ValueError, match="x must be"):
        r2_range_through_origin([0.0, 2.0], [1.0, 1.0], [1.0, 3.0])
    assert r2_range_through_origin(np.arange(1.0, 23.0), np.arange(1.0, 23.0), np.arange(2.0, 24.0)) is None


def _reading(r2, r2_range, ci=(0.9, 1.3)):
    return {_EST: {"slope": 1.2, "R2 centred": r2, "grid range of the slope (cells anywhere in their D_K* interval)":
                   [1.0, 1.4], R2_RANGE: r2_range},
            "interval regression, censored cells as intervals": {"slope": 1.1, "95% profile": list(ci)}}


def test_stated_r2_is_held_by_one_standard():
    est = _reading(0.98, [0.85, 0.999])[_EST]
    assert r2_status(est, 0.944, 0.1)[0] is Status.HOLDS_EMPIRICALLY
    for wrong in (1.888, 0.472):  # the planted alternatives: a doubled or halved R^2
        assert r2_status(est, wrong, 0.1)[0] is Status.CONTRADICTED_EMPIRICALLY
    st_, why = r2_status(est, 0.8, 0.1)
    assert st_ is Status.INCONCLUSIVE and "straddles" in why
    assert r2_status(est, None, 0.1)[0] is Status.HOLDS_EMPIRICALLY


def test_without_a_range_the_r2_part_decides_nothing():
    est = _reading(0.98, None)[_EST]  # a point R^2 cannot pass on its own (one standard to pass and to fail)
    for stated in (0.944, 0.472):
        assert r2_status(est, stated, 0.1)[0] is Status.INCONCLUSIVE


def test_a_wrong_r2_contradicts_a_reading_whose_slope_is_undecided():
    r = _reading(0.98, [0.85, 0.999], ci=(0.6, 0.93))  # slope interval straddles [1.19/sqrt2, 1.19 sqrt2]
    assert reading_verdict(r, paper_slope=1.19, slope_factor=math.sqrt(2), paper_r2=0.944).status is Status.INCONCLUSIVE
    v = reading_verdict(r, paper_slope=1.19, slope_factor=math.sqrt(2), paper_r2=1.888)
    assert v.status is Status.CONTRADICTED_EMPIRICALLY
    assert v.measured_value["parts"] == {"slope": "inconclusive", "R2": "contradicted-empirically"}


def test_parts_combine_as_a_conjunction():
    H, C, I = Status.HOLDS_EMPIRICALLY, Status.CONTRADICTED_EMPIRICALLY, Status.INCONCLUSIVE
    assert conjunction_status((H, H)) is H
    assert conjunction_status((I, C)) is C and conjunction_status((C, H)) is C
    assert conjunction_status((H, I)) is I and conjunction_status((I, I)) is I
    assert conjunction_status(()) is I  # no part: nothing holds


_BAND = "against [slope x / sqrt2, slope x * sqrt2]"


def _ivs(pairs):
    return {r: DKInterval(lo, hi, "interval") for r, (lo, hi) in pairs.items()}


def test_degree_band_part_contradicts_a_constant_off_by_two():
    xs = {1: 28.0, 2: 56.0, 4: 112.0, 8: 224.0, 16: 448.0}
    ivs = _ivs({1: (16, 24), 2: (32, 48), 4: (48, 64), 8: (96, 128), 16: (128, 192)})
    st_, rows = degree_band_part(sorted(xs), ivs, {4}, 0.46, xs)
    assert st_ is Status.INCONCLUSIVE and rows["r=8"][_BAND] == Status.HOLDS_EMPIRICALLY.value
    assert rows["r=4"]["ratio of the interval to the prediction"][0] == 0.0  # cap-limited: an upper bound only
    for wrong in (0.92, 0.23):  # the planted alternatives
        st_, rows = degree_band_part(sorted(xs), ivs, {4}, wrong, xs)
        assert st_ is Status.CONTRADICTED_EMPIRICALLY
        assert any(r[_BAND] == Status.CONTRADICTED_EMPIRICALLY.value for r in rows.values())


def test_degree_band_part_holds_only_when_every_interval_is_inside():
    xs = {1: 10.0, 2: 20.0}
    assert degree_band_part([1, 2], _ivs({1: (9, 11), 2: (18, 22)}), set(), 1.0, xs)[0] is Status.HOLDS_EMPIRICALLY
    # a cap-limited degree is (0, high]: never inside, so the part cannot pass on it
    assert degree_band_part([1, 2], _ivs({1: (9, 11), 2: (18, 22)}), {2}, 1.0, xs)[0] is Status.INCONCLUSIVE


def test_an_analysis_that_bounds_capped_cells_bounds_them_in_r2_too():
    from rgr_verify.claims.paper_sec6.grid import fig3_analyses
    from rgr_verify.claims.tools.measure import R2_RANGE_ANY_HIT, R2_RANGE_CAPPED

    r = _reading(0.98, [0.85, 0.999], ci=(1.0, 1.3))
    r[_EST][R2_RANGE_CAPPED] = [-1.8, 0.999]  # the cap-limited cell anywhere in (0, high]
    r[_EST][R2_RANGE_ANY_HIT] = [-24.0, 0.9999]
    r["interval regression, cap-limited cells as upper bounds"] = {"slope": 1.1, "95% profile": [1.0, 1.3]}
    out = fig3_analyses({"ln": r, "log2": r}, paper_slope=1.19, slope_factor=math.sqrt(2), paper_r2=0.472, r2_tol=0.1)
    by = {a["choices"]["estimator"]: a["status"] for a in out if a["choices"]["log base"] == "ln"}
    assert by["interval regression, censored cells as intervals"] is Status.CONTRADICTED_EMPIRICALLY
    assert by["interval regression, cap-limited cells as upper bounds"] is Status.INCONCLUSIVE  # no false alarm
    assert by["interval regression, cells where any threshold run hit the cap as upper bounds"] is Status.INCONCLUSIVE
