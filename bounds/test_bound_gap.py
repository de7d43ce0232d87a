# App. A.3 (L860): the gap between the constructive upper bound and the information-theoretic lower bound grows with
# the degree r (appa3-sym-bound-gap-grows-with-degree). The rule is exact (every step's sign certified), it holds on
# the paper's formulas under every reading, and it fails on planted gaps that do not grow.
import pytest
import sympy as sp

from rgr_verify.core import formulas as F
from rgr_verify.claims import get_claim
from rgr_verify.claims.base import CheckContext, Status
from rgr_verify.claims.paper_appa.bound_gap import (A3_DEGREES, GAPS, LOWER_BOUNDS, UPPER_BOUNDS,
                                                    gap_grows_status)

RATIO, DIFF = GAPS
_mp = F.r * F.m
B10 = UPPER_BOUNDS["Corollary B.10's design: ceil(m'/d_model) C log m"]
RATE = LOWER_BOUNDS["Theorem 9.2's rate: (m'/d_model) log(m^2/m')"]


def test_every_reading_grows_at_every_step_of_the_a3_degrees():
    for U in UPPER_BOUNDS.values():
        for L in LOWER_BOUNDS.values():
            for gap in GAPS:
                status, rows = gap_grows_status(U, L, gap)
                assert status is Status.VERIFIED, (U, L, gap, rows)
                assert list(rows["steps"]) == ["r=1 -> 2", "r=2 -> 4", "r=4 -> 8", "r=8 -> 16"]


def test_the_ratio_of_corollary_b10_to_the_rate_is_log_m_over_log_m_over_r():
    _, rows = gap_grows_status(B10, RATE, RATIO)
    got = [rows["degrees"][f"r={r}"]["gap"] for r in A3_DEGREES]
    assert got == pytest.approx([1, 7 / 6, 7 / 5, 7 / 4, 7 / 3], abs=1e-6)


def test_a_planted_gap_that_shrinks_with_r_is_refuted():
    # the upper bound with log m and the lower with log m': their ratio log m / log(r m) falls with r
    shrinking_upper, larger_lower = _mp / F.d_model * sp.log(F.m), _mp / F.d_model * sp.log(_mp)
    status, rows = gap_grows_status(shrinking_upper, larger_lower, RATIO)
    assert status is Status.REFUTED
    assert all(step["does not grow"] for step in rows["steps"].values())


def test_a_planted_gap_that_stays_constant_is_refuted():
    # the upper bound a fixed multiple of the lower: the ratio is 2 at every degree, it does not grow
    status, rows = gap_grows_status(2 * RATE, RATE, RATIO)
    assert status is Status.REFUTED and rows["steps"]["r=1 -> 2"]["gap step"] == 0
    status, _ = gap_grows_status(RATE + 5, RATE, DIFF)  # a constant difference: no growth either
    assert status is Status.REFUTED


def test_a_difference_that_grows_only_for_some_constants_is_refuted():
    # C U - c L grows at C = c (the step at k = 1 is positive) but the upper bound falls, so for C / c large
    # enough the difference falls: the reading "for any constants with C >= c" does not hold
    falling_upper, falling_lower = 100 / F.r, -100 * F.r ** 2
    status, rows = gap_grows_status(falling_upper, falling_lower, DIFF, rs=(1, 2))
    assert rows["steps"]["r=1 -> 2"]["gap step"] == pytest.approx(-50 + 300)  # positive at C = c
    assert status is Status.REFUTED  # C = 7 c: 7 (-50) + 300 < 0
    status, _ = gap_grows_status(falling_upper, falling_lower, RATIO, rs=(1, 2))
    assert status is Status.VERIFIED  # the ratio reading alone grows here (-1 to -1/8): the readings can differ
    status, _ = gap_grows_status(200 - 1 / F.r, -(F.r ** 2), DIFF, rs=(1, 2))
    assert status is Status.VERIFIED  # the upper bound rises (by 1/2) and the step at k = 1 is positive


def test_bad_inputs_are_value_errors():
    with pytest.raises(ValueError):
        gap_grows_status(B10, RATE, "log-ratio")
    with pytest.raises(ValueError):
        gap_grows_status(B10, RATE, RATIO, rs=(4,))
    with pytest.raises(ValueError):
        gap_grows_status(B10, RATE, RATIO, rs=(2, 2))


def test_the_claim_is_verified_under_every_reading():
    v = get_claim("appa3-sym-bound-gap-grows-with-degree").check(CheckContext(seed=1))
    assert v.status is Status.VERIFIED and v.evidence_level == "exhaustive"
    assert len(v.measured_value["per reading"]) == len(UPPER_BOUNDS) * len(LOWER_BOUNDS) * len(GAPS) == 12
    assert set(v.measured_value["per reading"].values()) == {"verified"}
    assert v.params["refuted_under"] == "none"
