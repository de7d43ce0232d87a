"""Faster versions of exact computations give the answers of the code they replaced (kept here as reference).

- ``edge_coloring.equitable_edge_coloring``: union-find on plain lists and the component counts in one bincount
  (was: numpy scalar indexing and one ``np.sum`` per component): the same colouring, bit for bit.
- ``fits._log_likelihood``: the four log-tails in one ``log_ndtr`` call: the same log-likelihood, bit for bit.
- ``fits.profile_interval`` (one coefficient): sigma re-maximised by Brent's bounded method instead of Nelder-Mead:
  the same profile and interval ends to 1e-12 (both optimisers stop far inside the precision the verdicts read).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import optimize as _opt
from scipy import special as _sp

from rgr_verify.analysis import fits
from rgr_verify.models.edge_coloring import equitable_edge_coloring, konig_edge_coloring
from rgr_verify.core.graphs import random_regular_graph


def _reference_equitable(graph, n_colors):
    colors = konig_edge_coloring(graph)
    E = graph.edges
    while True:
        sizes = np.bincount(colors, minlength=n_colors) if len(colors) else np.zeros(n_colors, int)
        a, b = int(np.argmax(sizes)), int(np.argmin(sizes))
        if sizes[a] - sizes[b] <= 1:
            return colors
        sel = np.flatnonzero((colors == a) | (colors == b))
        parent = np.arange(2 * graph.m)

        def find(x):
            while parent[x] != x:
                parent[x] = parent[parent[x]]
                x = parent[x]
            return x

        for f in sel:
            ra, rb = find(E[f, 0]), find(graph.m + E[f, 1])
            if ra != rb:
                parent[ra] = rb
        comp = np.array([find(E[f, 0]) for f in sel])
        for root in np.unique(comp):
            members = sel[comp == root]
            if np.sum(colors[members] == a) > np.sum(colors[members] == b):
                colors[members] = np.where(colors[members] == a, b, a)
                break


@pytest.mark.parametrize("m,r", [(16, 3), (32, 4), (64, 4), (96, 7)])
def test_equitable_coloring_matches_reference(m, r):
    for seed in range(3):
        g = random_regular_graph(m, r, rng=np.random.default_rng(seed))
        for n_colors in sorted({r, r + 1, r + 3, 2 * r, 3 * r}):
            assert np.array_equal(equitable_edge_coloring(g, n_colors), _reference_equitable(g, n_colors))


def _reference_loglik(a, b):
    point = a == b
    iv = ~point
    has_point, has_iv = bool(np.any(point)), bool(np.any(iv))
    a_pt, a_iv, b_iv = a[point], a[iv], b[iv]
    half_log_2pi = math.sqrt(2 * math.pi)

    def loglik(mu, sigma):
        out = np.empty_like(mu)
        if has_point:
            z = (a_pt - mu[point]) / sigma
            out[point] = -0.5 * z * z - math.log(sigma * half_log_2pi)
        if has_iv:
            m = mu[iv]
            za = (a_iv - m) / sigma
            zb = (b_iv - m) / sigma
            left = zb <= 0
            lo_part = np.where(left, _sp.log_ndtr(zb), _sp.log_ndtr(-za))
            hi_part = np.where(left, _sp.log_ndtr(za), _sp.log_ndtr(-zb))
            with np.errstate(divide="ignore", invalid="ignore"):
                diff = np.exp(hi_part - lo_part)
                vals = lo_part + np.log1p(-np.minimum(diff, 1.0))
            out[iv] = np.where(np.isfinite(vals), vals, -1e6)
        return float(np.sum(out))

    return loglik


def _intervals(rng, n, *, points=False):
    x = np.exp(rng.uniform(0, 5, n))
    y = np.log(rng.uniform(0.5, 5) * x) + rng.normal(0, rng.uniform(0.02, 0.6), n)
    w = rng.uniform(0.05, 0.5, n)
    lo = y - w * rng.random(n)
    hi = lo + w
    lo[rng.random(n) < 0.1] = -np.inf
    hi[(rng.random(n) < 0.08) & np.isfinite(lo)] = np.inf
    if points:
        lo = np.where((rng.random(n) < 0.5) & np.isfinite(hi), hi, lo)
    return lo, hi, np.log(x)


def test_log_likelihood_bit_identical():
    rng = np.random.default_rng(11)
    for trial in range(300):
        lo, hi, _ = _intervals(rng, int(rng.integers(2, 50)), points=trial % 3 == 0)
        new, ref = fits._log_likelihood(lo, hi), _reference_loglik(lo, hi)
        for _ in range(10):
            mu = rng.normal(3, 3, lo.size) * rng.choice([0.1, 1.0, 10.0])
            sigma = math.exp(rng.normal(0, 2))
            assert new(mu, sigma) == ref(mu, sigma)


def _reference_profile_one(fit, confidence=0.95, span=5.0):
    crit = fits._st.chi2.ppf(confidence, 1) / 2
    X = fit.design

    def prof(v):
        off = fit.offset + v * X[:, 0]
        loglik = _reference_loglik(fit.low, fit.high)

        def nll(ls):
            return -loglik(off, math.exp(max(ls[0], fits._MIN_LOG_SIGMA)))

        res = _opt.minimize(nll, [math.log(max(fit.sigma, 1e-3))], method="Nelder-Mead",
                            options={"xatol": 1e-10, "fatol": 1e-12})
        return -float(res.fun)

    est, ends = fit.beta[0], []
    for direction in (-1.0, 1.0):
        far = est + direction * span
        if fit.loglik - prof(far) <= crit:
            ends.append(direction * math.inf)
            continue
        ends.append(float(_opt.brentq(lambda v: fit.loglik - prof(v) - crit, est, far, xtol=1e-9, rtol=1e-12)))
    return tuple(ends)


def test_profile_interval_matches_nelder_mead_reference():
    rng = np.random.default_rng(5)
    checked = 0
    for trial in range(60):
        lo, hi, off = _intervals(rng, int(rng.integers(4, 30)), points=trial % 4 == 0)
        if not (np.all(lo < np.inf) and np.all(hi > -np.inf)):
            continue
        fit = fits.interval_regression(lo, hi, np.ones((lo.size, 1)), offset=off)
        new, ref = fits.profile_interval(fit, 0), _reference_profile_one(fit)
        for u, v in zip(new, ref):
            assert u == v if math.isinf(v) else abs(u - v) <= 1e-12
        checked += 1
    assert checked >= 40


def test_max_over_sigma_far_from_start_falls_back():
    """An optimum outside the bounded window (start far too small) is found by the Nelder-Mead fallback."""
    rng = np.random.default_rng(2)
    lo, hi, off = _intervals(rng, 20)
    lo, hi = np.where(np.isinf(lo), hi - 1, lo), np.where(np.isinf(hi), lo + 1, hi)
    ll = fits._log_likelihood(lo, hi)
    mu = off + 40.0  # means far off: the best sigma is about 40, far above the window around sigma = 0.01
    got = fits._max_over_sigma(ll, mu, math.log(0.01))
    ref = _opt.minimize(lambda v: -ll(mu, math.exp(max(v[0], fits._MIN_LOG_SIGMA))), [math.log(0.01)],
                        method="Nelder-Mead", options={"xatol": 1e-10, "fatol": 1e-12})
    assert got == -float(ref.fun)
    assert got > ll(mu, 0.01) + 100


def test_repeated_fits_and_profiles_are_served_whole_and_never_share_the_callers_arrays():
    """A multiverse refits the same data under choices that change no fit: interval_regression and profile_interval
    keep what they computed (keyed by every input), so a repeat returns exactly the first result, and a caller that
    changes its arrays afterwards changes neither the stored fit nor what a new call with the new values returns."""
    rng = np.random.default_rng(3)
    x = np.linspace(0.0, 2.0, 9)
    y = 0.7 + 1.3 * x + rng.normal(0, 0.2, x.size)
    low, high = y - 0.3, y + 0.3
    design = np.column_stack([np.ones_like(x), x])
    first = fits.interval_regression(low, high, design)
    again = fits.interval_regression(low.copy(), high.copy(), design.copy())
    assert again is first  # served from the store
    iv = fits.profile_interval(first, 1)
    assert fits.profile_interval(again, 1) == iv
    design[:, 1] *= 2.0  # the caller reuses its array: the stored fit is a copy
    assert first.design[0, 1] == x[0] and first.design[-1, 1] == x[-1]
    moved = fits.interval_regression(low, high, design)
    assert moved is not first and moved.beta[1] == pytest.approx(first.beta[1] / 2, rel=1e-4)
    assert fits.profile_interval(first, 1, confidence=0.9) != iv  # another confidence is another key
