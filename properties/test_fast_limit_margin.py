# The fast predicate of minimal_c0_algorithm1 gives exactly the old answer: algorithm1_limit_separates (float32
# scores guarded by a rigorous rounding bound, early exit, the reference computed when the bound leaves it open)
# equals algorithm1_limit_margin(...)["margin"] > 0 for every draw, and advances the generator in the same way.
import copy

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rgr_verify.analysis import measurements, minimal_constants
from rgr_verify.models.constructions import algorithm1, permutation_blocks
from rgr_verify.core.embeddings import gaussian_unit_norm_embeddings
from rgr_verify.core.graphs import random_permutation_graph
from rgr_verify.analysis.measurements import limit_score_matrix, limit_separation_decision, separation_margins
from rgr_verify.analysis.minimal_constants import algorithm1_limit_margin, algorithm1_limit_separates


def _old(m, d, seed, block_size=None):
    return algorithm1_limit_margin(m, d, rng=np.random.default_rng(seed), block_size=block_size)["margin"] > 0


def _same(m, d, seed, block_size=None):
    """The fast answer equals the old one, and both leave the generator in the same state."""
    r_new, r_old = np.random.default_rng(seed), np.random.default_rng(seed)
    new = algorithm1_limit_separates(m, d, rng=r_new, block_size=block_size)
    old = algorithm1_limit_margin(m, d, rng=r_old, block_size=block_size)["margin"] > 0
    assert new == old, (m, d, seed, block_size)
    assert r_new.random() == r_old.random()
    return old


def test_matches_old_on_random_sizes():
    r = np.random.default_rng(20250926)
    for _ in range(60):
        m = int(r.integers(16, 301))
        _same(m, int(r.integers(2, m + 1)), int(r.integers(0, 2**63 - 1)))


def test_matches_old_near_the_threshold():
    # d_model around the separation threshold (c0 = d_model / ln m about 35-45 at these m): both answers occur
    seen = set()
    for m in (200, 256, 300):
        for frac in (0.6, 0.8, 1.0):
            for seed in range(3):
                seen.add(_same(m, int(frac * m), seed))
    assert seen == {True, False}


@settings(max_examples=40, deadline=None)
@given(st.integers(16, 160), st.floats(0.0, 1.0), st.sampled_from([None, 7, 64]), st.integers(0, 2**63 - 1))
def test_matches_old_hypothesis(m, frac, block_size, seed):
    _same(m, max(2, int(frac * m)), seed, block_size)


def _draw(m, d, seed):
    r = np.random.default_rng(seed)
    g = random_permutation_graph(m, rng=r)
    X = gaussian_unit_norm_embeddings(m, d, rng=r)
    c = algorithm1(g, X, d_k=1, rng=r)
    return g, X, c, limit_score_matrix(c)


@pytest.mark.parametrize("gram32", [True, False])
def test_decision_never_contradicts_old_at_tight_thresholds(gram32):
    # thresholds at, and one ulp beside, the largest non-edge and the smallest edge score: the decision is either
    # the reference's or None (the rounding bound is what keeps it from answering here)
    decided = 0
    for s in range(6):
        m = 40 + 40 * s
        g, X, c, S = _draw(m, m, s)
        mg = separation_margins(c, scores=S, tau=0.5)
        for t in (mg.max_nonedge, mg.min_edge, 0.5):
            for tau in (np.nextafter(t, -np.inf), t, np.nextafter(t, np.inf)):
                ref = separation_margins(c, scores=S, tau=float(tau)).margin > 0
                ans = limit_separation_decision(g, X, c.blocks, tau=float(tau), gram32=gram32)
                assert ans is None or ans == ref, (m, s, tau)
                decided += ans is not None
    assert decided > 0


def test_decision_decides_away_from_tau_and_leaves_open_at_it():
    g, X, c, S = _draw(256, 256, 0)
    mg = separation_margins(c, scores=S, tau=0.5)
    assert mg.best_margin > 1e-3  # a threshold half-way between edges and non-edges separates, and is decided
    assert limit_separation_decision(g, X, c.blocks, tau=mg.best_threshold) is True
    assert limit_separation_decision(g, X, c.blocks, tau=mg.max_nonedge) is None  # a score exactly at tau
    assert limit_separation_decision(g, X, c.blocks, tau=mg.min_edge) is None


def test_fallback_gives_old(monkeypatch):
    # a band wide enough that nothing is decided: both guarded passes give up and the reference answers
    monkeypatch.setattr(measurements, "_LIMIT_GUARD", 1e12)
    calls = []
    ref = minimal_constants.algorithm1_limit_margin

    def counting(*a, **k):
        calls.append(a)
        return ref(*a, **k)

    monkeypatch.setattr(minimal_constants, "algorithm1_limit_margin", counting)
    seen = set()
    for m, d, seed in ((24, 20, 0), (64, 40, 1), (256, 230, 1), (256, 256, 0), (300, 270, 3)):
        r_new, r_old = np.random.default_rng(seed), np.random.default_rng(seed)
        old = ref(m, d, rng=r_old)["margin"] > 0
        assert algorithm1_limit_separates(m, d, rng=r_new) == old
        assert r_new.random() == r_old.random()
        seen.add(old)
    assert len(calls) == 5 and seen == {True, False}


def test_minimal_c0_unchanged(monkeypatch):
    # the bisection with the fast predicate returns what it returns with the old one
    rng = np.random.default_rng(7)
    fast = minimal_constants.minimal_c0_algorithm1(256, n_draws=2, rng=copy.deepcopy(rng))
    monkeypatch.setattr(minimal_constants, "algorithm1_limit_separates",
                        lambda m, d, *, rng, block_size=None: _old_rng(m, d, rng, block_size))
    assert minimal_constants.minimal_c0_algorithm1(256, n_draws=2, rng=rng) == fast


def _old_rng(m, d, rng, block_size):
    return algorithm1_limit_margin(m, d, rng=rng, block_size=block_size)["margin"] > 0


def test_not_a_permutation_graph_is_left_open():
    g, X, c, _ = _draw(20, 10, 0)
    blocks = permutation_blocks(g, 10)
    half = type("G", (), {"edges": g.edges[:10]})()
    assert limit_separation_decision(half, X, blocks) is None
