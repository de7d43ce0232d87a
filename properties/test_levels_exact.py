"""Levels raised where an exact argument exists (issue 37, item 6; review of 2026-11-28, section 1).

- constr1-normalised-margin-26 / def91-constructions-normalised-margin: Construction I's margin under (26) is <= 1/m
  for every draw, d_k, tau and factorisation (paper_sec4.constructions.construction1_margin_26, margin_bound_verdict);
  no scheme at all beats paper_sec9.theorem92.any_scheme_margin_bound on given embeddings;
- eq1-n3-sqrt-dk: E[N3 | X] = d_k c and Var[N3 | X] = d_k v exactly (paper_sec5.n3_exact_statistics,
  n3_exact_verdict).

Each rule is run on the claim's own instances and on planted alternatives it must not refute (a bound that does not
decay, a claimed exponent the exact bound cannot exclude, statistics with a zero mean), and each exact formula is
checked against an independent computation (enumeration of sign patterns, an explicit optimal scheme).
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np
import pytest
import sympy as sp

from rgr_verify.claims.base import DEFAULT_SEED, CheckContext, Status, claim_seed
from rgr_verify.claims.paper_sec4.constructions import (C1_MARGIN_BOUND_26, M_SYM, construction1_margin_26,
                                                        margin_bound_verdict)
from rgr_verify.claims.paper_sec5 import n3_exact_statistics, n3_exact_verdict, rademacher_moments_proof
from rgr_verify.claims.paper_sec9.theorem92 import any_scheme_margin_bound
from rgr_verify.claims.registry import get_claim
from rgr_verify.claims.runner import run_claim
from rgr_verify.models.constructions import algorithm1, construction1
from rgr_verify.core.embeddings import gaussian_unit_norm_embeddings
from rgr_verify.core.graphs import permutation_graph, random_derangement, random_permutation_graph
from rgr_verify.analysis.lower_bound import graph_dependent_embedding_qk


def _c1(m, d_k, seed):
    r = np.random.default_rng(seed)
    return construction1(random_permutation_graph(m, rng=r), d_k=d_k, rng=r)


# --- Construction I under (26) ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("m,d_k,seed", [(3, 1, 0), (8, 3, 1), (40, 7, 2), (64, 40, 3), (200, 5, 4)])
def test_construction1_margin_is_exactly_at_most_one_over_m(m, d_k, seed):
    c = _c1(m, d_k, seed)
    row = construction1_margin_26(c)
    if "gamma_26" not in row:  # pi = identity: no loop-free edge
        return
    assert row["nuclear_is_m_dk"] and row["nuclear_norm"] == m * d_k
    # independent: the best margin from the float scores, the nuclear norm from an SVD
    S = c.W_Q[0] @ c.W_K[0].T
    perm = np.asarray(c.graph.perm)
    moved = perm != np.arange(m)
    non = ~c.graph.adjacency & ~np.eye(m, dtype=bool)
    best = (S[np.arange(m)[moved], perm[moved]].min() - S[non].max()) / 2
    nuc = np.linalg.svd(S, compute_uv=False).sum()
    assert abs(best / nuc - float(row["gamma_26"])) < 1e-12
    assert row["gamma_26"] <= Fraction(1, m) and row["le_1_over_m"]
    assert row["gamma_26_with_self"] <= row["gamma_26"]  # self-pairs only add constraints


def test_construction1_premises_are_checked():
    c = _c1(16, 4, 0)
    import dataclasses

    with pytest.raises(ValueError, match="Construction I"):
        construction1_margin_26(dataclasses.replace(c, W_Q=c.W_Q * 1.5))
    with pytest.raises(ValueError, match="Construction I"):
        construction1_margin_26(dataclasses.replace(c, X=c.X * 0.5))


def _rows(ms=(16, 32, 64)):
    return [construction1_margin_26(_c1(m, 9, m)) for m in ms]


def test_margin_bound_rule_refutes_a_constant_margin_and_verifies_its_mirror():
    rows = _rows()
    low = margin_bound_verdict(rows, exponent=0, direction=">=")
    assert low.status is Status.REFUTED and low.evidence_level == "proved"
    high = margin_bound_verdict(rows, exponent=0, direction="<=")
    assert high.status is Status.VERIFIED and high.evidence_level == "proved"
    # gamma >~ m^e is refuted for every e > -1, and the bound is silent at e = -1 (gamma ~ 1/m is consistent)
    assert margin_bound_verdict(rows, exponent=-0.5, direction=">=").status is Status.REFUTED
    assert margin_bound_verdict(rows, exponent=-1, direction=">=") is None


def test_margin_bound_rule_plants():
    rows = _rows()
    # a bound that does not decay can neither refute a constant margin nor verify it
    assert margin_bound_verdict(rows, exponent=0, direction=">=", bound=sp.Rational(1, 4) + 0 * M_SYM) is None
    # an instance above the bound: its premises failed, never a verdict on the statement
    bad = [dict(rows[0], gamma_26=Fraction(2, rows[0]["m"]))] + rows[1:]
    v = margin_bound_verdict(bad, exponent=0, direction=">=")
    assert v.status is Status.INCONCLUSIVE
    assert sp.limit(C1_MARGIN_BOUND_26, M_SYM, sp.oo) == 0


# --- any scheme under (26) ---------------------------------------------------------------------------------------------

def _best_margin(X, A_list, perm):
    """Best Definition 9.1 margin of scores max_k x_i^T A_k x_j (loop-free) for the permutation graph of perm."""
    S = np.max([X @ A @ X.T for A in A_list], axis=0)
    m = len(perm)
    moved = perm != np.arange(m)
    edge = np.zeros((m, m), dtype=bool)
    edge[np.arange(m), perm] = True
    non = ~edge & ~np.eye(m, dtype=bool)
    return (S[np.arange(m)[moved], perm[moved]].min() - S[non].max()) / 2


@pytest.mark.parametrize("m", [5, 12, 40])
def test_any_scheme_bound_on_one_hot_inputs_is_nearly_attained(m):
    perm = random_derangement(m, rng=np.random.default_rng(m))
    P = np.zeros((m, m))
    P[np.arange(m), perm] = 1.0
    A = P - np.ones((m, m)) / m  # the optimal scheme: margin 1/2, nuclear norm m - 1
    gamma = _best_margin(np.eye(m), [A], perm) / np.linalg.svd(A, compute_uv=False).sum()
    bound = any_scheme_margin_bound(np.eye(m), perm)
    assert gamma == pytest.approx(1 / (2 * (m - 1)))
    assert gamma <= bound == pytest.approx(1 / (2 * (m - 2)), rel=1e-8)


@pytest.mark.parametrize("seed", range(4))
def test_any_scheme_bound_holds_for_separating_schemes(seed):
    m, d = 64, 32
    g = random_permutation_graph(m, rng=np.random.default_rng(seed))
    out = graph_dependent_embedding_qk(g, d, rng=np.random.default_rng(100 + seed))  # ||U||_F = ||V||_F = 1
    A = out["W_Q"][0] @ out["W_K"][0].T
    gamma = _best_margin(out["X"], [A], np.asarray(g.perm))
    bound = any_scheme_margin_bound(out["X"], g.perm)
    if gamma > 0:
        assert gamma <= bound
    # Algorithm 1 on Gaussian X, normalised by its sum of nuclear norms (the best factorisation)
    X = gaussian_unit_norm_embeddings(m, d, rng=np.random.default_rng(seed))
    c = algorithm1(g, X, d_k=8, rng=np.random.default_rng(seed))
    As = [c.W_Q[k] @ c.W_K[k].T for k in range(c.n_heads)]
    nuc = sum(np.linalg.svd(a, compute_uv=False).sum() for a in As)
    assert _best_margin(X, As, np.asarray(g.perm)) / nuc <= any_scheme_margin_bound(X, g.perm)


def test_any_scheme_bound_rejects_degenerate_input():
    with pytest.raises(ValueError):
        any_scheme_margin_bound(np.eye(4), np.arange(4))


# --- N3: exact conditional moments --------------------------------------------------------------------------------------

def test_rademacher_moment_identities():
    assert rademacher_moments_proof(3)
    assert rademacher_moments_proof(4)


def test_n3_mean_and_variance_match_enumeration_of_every_sign_pattern():
    m, d = 7, 3
    r = np.random.default_rng(5)
    g = random_permutation_graph(m, rng=r)
    X = gaussian_unit_norm_embeddings(m, d, rng=r)
    c = algorithm1(g, X, d_k=1, rng=r)
    blk = c.blocks[0]
    D = X @ X.T - np.eye(m)
    Ds, Dt = D[:, blk[:, 0]], D[:, blk[:, 1]]
    vals = []
    for w in itertools.product((-1.0, 1.0), repeat=len(blk)):
        w = np.array(w)
        vals.append(np.outer(Ds @ w, Dt @ w))  # N3 of one signature column
    vals = np.array(vals)
    C = Ds @ Dt.T
    V = np.outer((Ds ** 2).sum(1), (Dt ** 2).sum(1)) + C ** 2 - 2 * (Ds ** 2) @ (Dt ** 2).T
    np.testing.assert_allclose(vals.mean(axis=0), C, atol=1e-14)
    np.testing.assert_allclose(vals.var(axis=0), V, atol=1e-13)


def test_n3_exact_rule_and_its_plants():
    stats = n3_exact_statistics(claim_seed(DEFAULT_SEED, "eq1-n3-sqrt-dk"))
    assert stats["c_lower"] > 0 and stats["rounding_bound"] < 1e-6 * stats["c_star"]
    whole = n3_exact_verdict(stats, claimed=0.5, tol=0.15, reading="whole")
    assert whole.status is Status.REFUTED and whole.evidence_level == "certified"
    assert n3_exact_verdict(stats, claimed=1.0, tol=0.15, reading="whole").status is Status.VERIFIED  # linear: holds
    zero = dict(stats, c_star=0.0, c_lower=-1e-12)  # a zero conditional mean: no refutation
    assert n3_exact_verdict(zero, claimed=0.5, tol=0.15, reading="whole").status is Status.INCONCLUSIVE
    fl = n3_exact_verdict(stats, claimed=0.5, tol=0.15, reading="fluctuation")
    assert fl.status is Status.VERIFIED
    fallback = object()
    assert n3_exact_verdict(stats, claimed=0.0, tol=0.15, reading="fluctuation", fallback=fallback) is fallback


def test_n3_exact_mean_matches_the_noise_terms_of_the_claims_construction():
    from rgr_verify.analysis.measurements import noise_terms

    stats = n3_exact_statistics(claim_seed(DEFAULT_SEED, "eq1-n3-sqrt-dk"))
    m, d = stats["m"], stats["d_model"]
    r = np.random.default_rng(np.random.SeedSequence([claim_seed(DEFAULT_SEED, "eq1-n3-sqrt-dk"), 0]))
    g = random_permutation_graph(m, rng=r)
    X = gaussian_unit_norm_embeddings(m, d, rng=r)
    t = noise_terms(algorithm1(g, X, d_k=3, rng=r), 0)
    assert float(np.abs(t["E_N3"]).max()) / 3 == pytest.approx(stats["c_star"], rel=1e-12)


# --- the claims as the audit runs them ----------------------------------------------------------------------------------

@pytest.mark.parametrize("cid,level", [("constr1-normalised-margin-26", "proved"),
                                       ("def91-constructions-normalised-margin", "proved")])
def test_margin_claims_rest_on_the_exact_bound(cid, level):
    v = run_claim(get_claim(cid), device="cpu").verdict
    assert v.status is Status.REFUTED and v.evidence_level == level
    assert any(k.startswith("fitted (supporting") for k in v.params)
    assert all(r["le_1_over_m"] for r in v.params["instances"])


def test_margin_claim_mutant_direction_is_verified():
    c = get_claim("constr1-normalised-margin-26")
    ctx = CheckContext(seed=claim_seed(DEFAULT_SEED, c.id), expects={**c.stated_values(), "margin_trend": "<="})
    assert c.check(ctx).status is Status.VERIFIED


def test_def91_weaker_exponent_falls_back_to_the_fit():
    c = get_claim("def91-constructions-normalised-margin")
    ctx = CheckContext(seed=claim_seed(DEFAULT_SEED, c.id), expects={**c.stated_values(), "margin_exponent": -1})
    v = c.check(ctx)
    assert v.evidence_level == "fitted" and "instances" not in v.params
    for row in v.measured_value["table"]:  # the proof's granted margin obeys the any-scheme bound on the same X
        assert row["gamma_normalised_best"] <= row["any_scheme_bound_on_X"]
        assert math.isfinite(row["any_scheme_bound_times_d_model"])
