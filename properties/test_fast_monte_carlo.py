# The fast paths of the Monte Carlo theory checks give exactly the old results: Konig's colouring (plain lists),
# Definition B.4's gamma (screened, then the candidates recomputed exactly), and the separation decision of
# Algorithms 1 and 5 (a Gram-matrix path guarded by a rounding bound, falling back to the full scores). Each is
# compared with a reference copy of the old computation on small inputs.
import copy
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rgr_verify.analysis import minimal_constants
from rgr_verify.models.constructions import algorithm1, algorithm5, permutation_blocks, signature_matrix
from rgr_verify.models.edge_coloring import konig_edge_coloring
from rgr_verify.core.embeddings import binary_compressive_embeddings, gaussian_unit_norm_embeddings
from rgr_verify.analysis.minimal_constants import algorithm1_separates, algorithm5_separates, max_heads_decision
from rgr_verify.core.graphs import Digraph, random_permutation_graph, random_regular_graph
from rgr_verify.analysis.measurements import restricted_self_incoherence, separation_margins


def _old_konig(graph):
    """Reference: konig_edge_coloring before the speed-up (numpy element access), verbatim."""
    m, E = graph.m, graph.edges
    delta = graph.max_degree
    colors = np.full(len(E), -1, dtype=np.int64)
    if len(E) == 0:
        return colors
    at = [np.full((m, delta), -1, dtype=np.int64), np.full((m, delta), -1, dtype=np.int64)]
    for e, (i, j) in enumerate(E):
        a = int(np.flatnonzero(at[0][i] < 0)[0])
        b = int(np.flatnonzero(at[1][j] < 0)[0])
        if at[1][j, a] >= 0:
            path = []
            side, v, c = 1, j, a
            while True:
                f = int(at[side][v, c])
                if f < 0:
                    break
                path.append(f)
                side = 1 - side
                v = int(E[f, 0] if side == 0 else E[f, 1])
                c = b if c == a else a
            for f in path:
                at[0][E[f, 0], colors[f]] = -1
                at[1][E[f, 1], colors[f]] = -1
            for f in path:
                colors[f] = b if colors[f] == a else a
                at[0][E[f, 0], colors[f]] = f
                at[1][E[f, 1], colors[f]] = f
        colors[e] = a
        at[0][i, a] = e
        at[1][j, a] = e
    return colors


def _old_top_sum(vals, B):
    v = np.maximum(vals, 0.0)
    if B >= v.shape[1]:
        return v.sum(axis=1)
    part = np.partition(v, v.shape[1] - B, axis=1)[:, v.shape[1] - B:]
    return part.sum(axis=1)


def _old_incoherence(X, B, chunk=64):
    """Reference: restricted_self_incoherence before the speed-up (every pair, exactly), verbatim."""
    m = X.shape[0]
    mu = float(np.mean(np.sum(X * X, axis=1)))
    U = X @ X.T / mu
    D = U - np.eye(m)
    eps_d = float(np.max(np.abs(np.diag(U) - 1.0)))
    D2 = D ** 2
    np.fill_diagonal(D2, 0.0)
    rho_rows = _old_top_sum(D2, B)
    gamma, g_off, arg = 0.0, 0.0, (0, 0)
    for s in range(0, m, chunk):
        P = D[s:s + chunk, None, :] * D[None, :, :]
        P = P.reshape(-1, m)
        best = np.maximum(_old_top_sum(P, B), _old_top_sum(-P, B)).reshape(-1, m)
        gamma = max(gamma, float(best.max()))
        rows = np.arange(s, min(s + chunk, m))
        best[np.arange(len(rows)), rows] = -np.inf
        idx = np.unravel_index(int(np.argmax(best)), best.shape)
        if best[idx] > g_off:
            g_off, arg = float(best[idx]), (int(rows[idx[0]]), int(idx[1]))
    return {"mu": mu, "B": B, "eps_d": eps_d, "rho": float(rho_rows.max()), "gamma": gamma, "gamma_offdiag": g_off,
            "argmax_rho": int(np.argmax(rho_rows)), "argmax_gamma": arg}


@st.composite
def _digraphs(draw, max_m=24):
    m = draw(st.integers(1, max_m))
    pairs = draw(st.lists(st.tuples(st.integers(0, m - 1), st.integers(0, m - 1)), max_size=4 * m, unique=True))
    return Digraph(m=m, edges=np.asarray(pairs, dtype=np.int64).reshape(-1, 2))


@settings(max_examples=80, deadline=None)
@given(st.one_of(_digraphs(), st.builds(lambda m, r, s: random_regular_graph(m, min(r, m - 1),
                                                                            rng=np.random.default_rng(s)),
                                        st.integers(2, 40), st.integers(1, 8), st.integers(0, 2**32 - 1))))
def test_konig_matches_old(g):
    assert np.array_equal(konig_edge_coloring(g), _old_konig(g))


def test_konig_matches_old_at_audit_size():
    for s in range(3):
        g = random_regular_graph(512, 2, rng=np.random.default_rng(s))
        assert np.array_equal(konig_edge_coloring(g), _old_konig(g))


@settings(max_examples=60, deadline=None)
@given(st.integers(2, 48), st.integers(1, 24), st.integers(1, 12), st.integers(1, 20), st.booleans(),
       st.sampled_from([True, None, False]), st.integers(0, 2**32 - 1))
def test_gamma_matches_old(m, d, B, chunk, binary, screen, seed):
    r = np.random.default_rng(seed)
    X = (binary_compressive_embeddings(m, max(d, 2), 0.3, rng=r) if binary
         else gaussian_unit_norm_embeddings(m, d, rng=r))
    if not np.all(np.sum(X * X, axis=1) > 0) and binary:
        X = X + np.eye(m, X.shape[1])  # no all-zero rows
    got = restricted_self_incoherence(X, B, chunk=chunk, screen=screen).as_dict()
    assert got == _old_incoherence(X, B, chunk=chunk)


@pytest.mark.parametrize("m,d,B,binary", [(400, 64, 4, False), (384, 32, 1, False), (400, 48, 4, True)])
def test_gamma_matches_old_on_default_screened_path(m, d, B, binary):
    r = np.random.default_rng(m + d + B)
    X = (binary_compressive_embeddings(m, d, 2 * math.log(m) / d, rng=r) if binary
         else gaussian_unit_norm_embeddings(m, d, rng=r))
    mu = float(np.mean(np.sum(X * X, axis=1)))
    got = restricted_self_incoherence(X, B, mu=mu, chunk=16).as_dict()  # m >= 384, B <= 8: screened
    assert got == _old_incoherence(X, B, chunk=16)


def _old_separates(c):
    """Reference: the Monte Carlo trials' old test, on the full scores."""
    return separation_margins(c, max_failures=1).margin > 0


@settings(max_examples=60, deadline=None)
@given(st.integers(4, 40), st.integers(1, 40), st.integers(1, 120), st.sampled_from([1, 5]), st.integers(1, 3),
       st.integers(0, 2**32 - 1))
def test_separates_matches_old(m, d, d_k, alg, r_, seed):
    d = min(d, m)
    r = np.random.default_rng(seed)
    if alg == 1:
        g = random_permutation_graph(m, rng=r)
    else:
        g = random_regular_graph(m, min(r_, m - 1), rng=r)
    X = gaussian_unit_norm_embeddings(m, d, rng=r)
    r_old = copy.deepcopy(r)
    old = _old_separates((algorithm1 if alg == 1 else algorithm5)(g, X, d_k=d_k, rng=r_old))
    new = (algorithm1_separates if alg == 1 else algorithm5_separates)(g, X, d_k=d_k, rng=r)
    assert new == old
    assert r.random() == r_old.random()  # the generator advanced exactly as the construction advances it


def test_separates_matches_old_at_audit_size():
    # (512, 384) as in thm41-separation-whp / thmb9-separation-whp, at d_k where draws fail and where they pass
    seen = set()
    for alg, build, sep in ((1, algorithm1, algorithm1_separates), (5, algorithm5, algorithm5_separates)):
        for s, d_k in ((0, 20), (1, 300), (2, 1560)):
            r = np.random.default_rng([alg, s])
            g = random_permutation_graph(512, rng=r) if alg == 1 else random_regular_graph(512, 2, rng=r)
            X = gaussian_unit_norm_embeddings(512, 384, rng=r)
            r_old = copy.deepcopy(r)
            old = _old_separates(build(g, X, d_k=d_k, rng=r_old))
            assert sep(g, X, d_k=d_k, rng=r) == old
            seen.add(old)
    assert seen == {True, False}  # both outcomes exercised


def test_decision_never_contradicts_old():
    for s in range(40):
        r = np.random.default_rng(s)
        m = int(r.integers(4, 30))
        d_k = int(r.integers(1, 60))
        g = random_permutation_graph(m, rng=r)
        X = gaussian_unit_norm_embeddings(m, int(r.integers(1, m + 1)), rng=r)
        blocks = permutation_blocks(g, X.shape[1])
        W = signature_matrix(m, d_k, rng=copy.deepcopy(r))
        ans = max_heads_decision(g, X, X.T.copy(), W, blocks, d_k / 2)
        old = _old_separates(algorithm1(g, X, d_k=d_k, rng=r))
        assert ans is None or ans == old


def test_fallback_gives_old(monkeypatch):
    monkeypatch.setattr(minimal_constants, "max_heads_decision", lambda *a, **k: None)
    for s in range(6):
        r = np.random.default_rng(s)
        g = random_regular_graph(24, 2, rng=r)
        X = gaussian_unit_norm_embeddings(24, 8, rng=r)
        r_old = copy.deepcopy(r)
        assert algorithm5_separates(g, X, d_k=3 + 10 * s, rng=r) == _old_separates(algorithm5(g, X, d_k=3 + 10 * s,
                                                                                               rng=r_old))
        assert r.random() == r_old.random()
