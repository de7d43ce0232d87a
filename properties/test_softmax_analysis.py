# Sec. 8 and Sec. 9 measurements (rgr_verify.analysis.softmax_analysis, rgr_verify.analysis.lower_bound): hand-set cases and
# properties over generated ones.
import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rgr_verify.models.constructions import algorithm2
from rgr_verify.core.embeddings import gaussian_unit_norm_embeddings
from rgr_verify.core.graphs import permutation_graph, random_permutation_graph
from rgr_verify.analysis.lower_bound import (
    decision_function,
    graph_dependent_embedding_qk,
    nuclear_normalised_margin,
    two_way_softmax_score,
)
from rgr_verify.analysis.measurements import head_score_matrix
from rgr_verify.core.scoring import softmax_sum_scores
from rgr_verify.analysis.softmax_analysis import (
    all_head_logits,
    background_deviation,
    certify_all_contexts,
    gamma_softmax_psi1_norm,
    head_logits,
    lognormal_psi1_lower_bound,
    owner_mass_lower,
    raw_separation,
    scores_from_logits,
    signature_mean_masses,
    softmax_calibration_bound,
    source_owner_heads,
    source_row_scores,
)
from rgr_verify.core.strategies import seeds


def _construction(m, d_model, d_k, seed):
    rng = np.random.default_rng(seed)
    graph = random_permutation_graph(m, rng=rng)
    X = gaussian_unit_norm_embeddings(m, d_model, rng=rng)
    return algorithm2(graph, X, d_k=d_k, rng=rng)


def test_lemma_8_2_calibration_bound_hand_values():
    # Lemma 8.2: one item, or a zero gap against one distractor
    assert softmax_calibration_bound(1.0, 5.0, 1) == 1.0
    assert softmax_calibration_bound(2.0, 2.0, 2) == pytest.approx(0.5)
    assert softmax_calibration_bound(3.0, 1.0, 3) == pytest.approx(1 / (1 + 2 * math.exp(-2)))
    with pytest.raises(ValueError, match="ell"):
        softmax_calibration_bound(1.0, 0.0, 0)


def test_head_logits_are_scaled_head_scores():
    # Eq. (5): L^(k) = S^(k) / sqrt(d_k)
    c = _construction(16, 8, 5, 0)
    for k in range(c.n_heads):
        np.testing.assert_allclose(head_logits(c, k), head_score_matrix(c, k) / math.sqrt(5), rtol=1e-12)
    assert source_owner_heads(c).tolist() == [0] * 8 + [1] * 8


@settings(max_examples=25)
@given(seeds(), st.integers(1, 6))
def test_scores_from_logits_match_scoring(seed, ell):
    # Eq. (6) computed from precomputed logits equals the scoring module's softmax-sum
    c = _construction(12, 4, 3, seed)
    rng = np.random.default_rng(seed)
    ctx = np.stack([rng.permutation(12)[:ell] for _ in range(4)])
    L = all_head_logits(c)
    A = scores_from_logits(L, ctx)
    ref = softmax_sum_scores(c.X[ctx], c.W_Q, c.W_K).numpy()
    np.testing.assert_allclose(A, ref, atol=1e-12)
    np.testing.assert_allclose(source_row_scores(L, ctx), A[:, 0, :], atol=1e-12)


def _exact_extremes(c, ell):
    """Brute force over every context of length ell holding the source: (min true score, max wrong score)."""
    L = all_head_logits(c)
    perm = np.asarray(c.graph.perm)
    lo_true, hi_wrong = math.inf, -math.inf
    for i in range(c.m):
        others = [t for t in range(c.m) if t != i]
        for rest in itertools.combinations(others, ell - 1):
            ctx = np.array([[i, *rest]])
            row = source_row_scores(L, ctx)[0]
            for pos, t in enumerate(ctx[0]):
                if t == perm[i]:
                    lo_true = min(lo_true, row[pos])
                else:
                    hi_wrong = max(hi_wrong, row[pos])
    return lo_true, hi_wrong


@settings(max_examples=15)
@given(seeds(), st.integers(2, 4), st.sampled_from([1, 4, 30]))
def test_certificate_brackets_exhaustive_worst_case(seed, ell, d_k):
    # Theorem 8.1's conclusion over all contexts: the certificate's bounds bracket the exhaustive extremes
    c = _construction(6, 3, d_k, seed)
    cert = certify_all_contexts(c, ell)
    lo_true, hi_wrong = _exact_extremes(c, ell)
    assert cert.min_true_lower <= lo_true + 1e-12 <= cert.min_true_witness + 2e-12
    assert cert.max_wrong_witness <= hi_wrong + 1e-12 <= cert.max_wrong_upper + 2e-12
    assert float(owner_mass_lower(c, ell).min()) == pytest.approx(cert.min_true_lower, rel=1e-12)
    if cert.certified:
        assert lo_true > 0.5 > hi_wrong
    if cert.refuted:
        assert lo_true <= 0.5 or hi_wrong >= 0.5


def test_certificate_rejects_bad_ell():
    c = _construction(8, 4, 3, 1)
    with pytest.raises(ValueError, match="ell"):
        certify_all_contexts(c, 1)
    with pytest.raises(ValueError, match="ell"):
        certify_all_contexts(c, 9)


def test_raw_separation_identity_embedding_is_exact():
    # One-hot embeddings (d_model = m, one head): S_{i,pi(i)} = d_k exactly; Eq. (7)'s true half holds
    g = permutation_graph(np.array([1, 2, 3, 0]))
    c = algorithm2(g, np.eye(4), d_k=64, rng=np.random.default_rng(0))
    rs = raw_separation(c)
    assert rs.min_true == pytest.approx(1.0)
    assert 0.0 <= rs.fraction_sources <= 1.0


def test_background_deviation_on_one_head_is_constant():
    # with h = 1 there are no non-owner heads: B = 0, so |B - (h-1)/ell| = 0
    c = _construction(8, 8, 4, 2)
    out = background_deviation(c, np.arange(8)[None, :])
    assert out["max_deviation"] == 0.0 and out["required_C2"] == 0.0


def test_signature_mean_masses_sum_to_one():
    c = _construction(16, 4, 6, 3)
    mean, std = signature_mean_masses(c, 1, 0, [0, 5, 9, 13], n_draws=500, rng=np.random.default_rng(4))
    assert mean.sum() == pytest.approx(1.0)
    assert np.all(std >= 0)
    with pytest.raises(ValueError, match="head"):
        signature_mean_masses(c, 9, 0, [0, 1], n_draws=10, rng=np.random.default_rng(0))


def test_psi1_norm_uniform_case_matches_closed_form():
    # Lemma 8.3 at ell = 2, Z ~ Exp(1): p ~ U(0, 1) and E exp(|p - 1/2| / t) = 2t (e^{1/(2t)} - 1)
    from scipy.optimize import brentq

    exact = brentq(lambda t: 2 * t * (math.exp(1 / (2 * t)) - 1) - 2, 0.05, 10)
    assert gamma_softmax_psi1_norm(2, 1.0) == pytest.approx(exact, rel=1e-6)


def test_lognormal_has_no_psi1_scale():
    for t in (1.0, 1e3, 1e6):
        out = lognormal_psi1_lower_bound(1.0, t)
        assert out["exceeds_log2"] and out["log_lower_bound"] > math.log(2)


def test_decision_function_hand_case():
    # two heads of width 1: s_1 = 1 * 2, s_2 = 0.5 * 1; max = 2, sum = 2.5
    U = np.array([[1.0, 0.5]])
    V = np.array([[2.0, 1.0]])
    x = np.array([1.0])
    assert decision_function(U, V, 0.5, x, x, d_k=1) == pytest.approx(1.5)
    assert decision_function(U, V, 0.5, x, x, d_k=1, aggregation="sum") == pytest.approx(2.0)
    assert decision_function(U, V, 0.0, x, x, d_k=1, aggregation="logsumexp") == pytest.approx(
        math.log(math.exp(2) + math.exp(0.5)))
    with pytest.raises(ValueError, match="aggregation"):
        decision_function(U, V, 0.0, x, x, d_k=1, aggregation="mean")


def test_two_way_softmax_hand_case():
    # equal logits: each head gives sigma(0) = 1/2
    U = np.zeros((2, 4))
    V = np.zeros((2, 4))
    assert two_way_softmax_score(U, V, np.ones(2), np.ones(2), d_k=2) == pytest.approx(1.0)


def test_nuclear_normalisation_is_no_worse_than_frobenius():
    # ||W_Q W_K^T||_* <= ||W_Q||_F ||W_K||_F per head, and Cauchy-Schwarz across heads
    c = _construction(16, 4, 6, 5)
    out = nuclear_normalised_margin(c, 1.0)
    assert out["sum_nuclear_norms"] <= out["frobenius_product"] * (1 + 1e-12)
    assert out["normalised_margin_best"] >= out["normalised_margin_frobenius"]
    assert out["max_row_norm"] == pytest.approx(1.0)


def test_graph_dependent_embedding_recovers_and_is_normalised():
    g = random_permutation_graph(64, rng=np.random.default_rng(6))
    out = graph_dependent_embedding_qk(g, 2 * 40, rng=np.random.default_rng(7))
    assert out["margin"] > 0
    assert out["frobenius_U"] == pytest.approx(1.0) and out["frobenius_V"] == pytest.approx(1.0)
    np.testing.assert_allclose(np.linalg.norm(out["X"], axis=1), 1.0)
    S, A = out["scores"], g.adjacency
    assert S[A].min() > out["tau"] > S[~A].max()
    with pytest.raises(ValueError, match="d_model"):
        graph_dependent_embedding_qk(g, 7, rng=np.random.default_rng(0))
