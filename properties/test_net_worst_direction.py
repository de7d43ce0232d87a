"""Theorem 9.2's net radius gamma/4 against the steepest perturbation (rgr_verify.analysis.lower_bound.steepest_perturbation):
it never flips a decision at gamma/4 (Lemma 9.3's bound (27) allows at most 3 eps + eps^2 < gamma), and it does flip
one at gamma/2 on the worst case, which random directions do not find: the planted alternative."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rgr_verify.analysis.lower_bound import decision_function, steepest_perturbation


def _after(U, V, tau, xu, xv, radius, aggregation, d_k=1):
    f = decision_function(U, V, tau, xu, xv, d_k=d_k, aggregation=aggregation)
    U2, V2, tau2 = steepest_perturbation(U, V, tau, xu, xv, f, radius * abs(f), d_k=d_k, aggregation=aggregation)
    assert np.linalg.norm(U2 - U) == pytest.approx(radius * abs(f)) or np.linalg.norm(U2 - U) == 0
    return f, decision_function(U2, V2, tau2, xu, xv, d_k=d_k, aggregation=aggregation)


@pytest.mark.parametrize("aggregation", ["max", "sum", "logsumexp"])
def test_the_worst_case_flips_at_half_the_margin_and_not_at_a_quarter(aggregation):
    one = np.ones((1, 1))
    x = np.ones(1)
    f, f_quarter = _after(one, one, 0.5, x, x, 0.25, aggregation)  # one head: max = sum = logsumexp = s
    assert f == pytest.approx(0.5) and f_quarter > 0
    _, f_half = _after(one, one, 0.5, x, x, 0.5, aggregation)
    assert f_half < 0  # U = V = 0.75, tau = 0.75: s = 0.5625 < tau


@settings(max_examples=150, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 4), st.integers(1, 3), st.integers(1, 3),
       st.sampled_from(["max", "sum", "logsumexp"]))
def test_a_quarter_of_the_margin_never_flips_under_26(seed, d_model, h, d_k, aggregation):
    rng = np.random.default_rng(seed)
    U, V = (M / max(1.0, np.linalg.norm(M)) for M in rng.standard_normal((2, d_model, h * d_k)))
    xu, xv = (x / max(1.0, np.linalg.norm(x)) for x in rng.standard_normal((2, d_model)))
    f, f2 = _after(U, V, float(rng.uniform(-1, 1)), xu, xv, 0.25, aggregation, d_k=d_k)
    if abs(f) > 1e-9:
        assert (f > 0) == (f2 > 0)
        assert abs(f2) >= abs(f) - 3 * 0.25 * abs(f) - (0.25 * f) ** 2 - 1e-12


def test_steepest_perturbation_rejects_bad_input():
    one, x = np.ones((1, 1)), np.ones(1)
    with pytest.raises(ValueError, match="aggregation"):
        steepest_perturbation(one, one, 0.5, x, x, 0.5, 0.1, d_k=1, aggregation="mean")
    with pytest.raises(ValueError, match="eps"):
        steepest_perturbation(one, one, 0.5, x, x, 0.5, -0.1, d_k=1, aggregation="max")
    with pytest.raises(ValueError, match="d_k"):
        steepest_perturbation(np.ones((1, 3)), np.ones((1, 3)), 0.5, x, x, 0.5, 0.1, d_k=2, aggregation="max")
