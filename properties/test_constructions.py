# Algorithms 1-5 (Sec. 4, Sec. 8, App. B), Lemma B.8, Definition B.4: hand-set cases with exact expected
# output, properties over generated cases, input validation, and the construct/constants commands.
import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from rgr_verify.cli import main
from rgr_verify.analysis.minimal_constants import (
    certified_c_construction1,
    paper_c_theorem_b1,
    smallest_passing,
    union_bound_construction1,
)
from rgr_verify.models.constructions import (
    Construction,
    algorithm1,
    algorithm2,
    algorithm3,
    algorithm4,
    algorithm5,
    construction1,
    weights_from_blocks,
)
from rgr_verify.models.edge_coloring import (
    coloring_and_batching,
    equitable_edge_coloring,
    is_proper_edge_coloring,
    konig_edge_coloring,
)
from rgr_verify.core.embeddings import gaussian_unit_norm_embeddings
from rgr_verify.core.graphs import digraph_from_edges, permutation_graph, random_regular_graph
from rgr_verify.analysis.measurements import (
    aggregated_score_matrix,
    limit_score_matrix,
    noise_terms,
    normalised_margin,
    restricted_self_incoherence,
    separation_margins,
)
from rgr_verify.core.strategies import permutation_graphs, regular_graphs, seeds


def _hand_set_construction1():
    # m = 2, pi = (0 -> 1, 1 -> 0), one-hot X, W_sig rows w_0 = (1, 1), w_1 = (1, -1): W_Q[i] = w_pi(i), W_K = W_sig.
    g = permutation_graph([1, 0])
    W_sig = np.array([[1.0, 1.0], [1.0, -1.0]])
    W_Q = W_sig[[1, 0]][None]
    W_K = W_sig[None]
    blocks = (np.array([[0, 1], [1, 0]]),)
    return Construction(algorithm=3, graph=g, X=np.eye(2), X_inv=np.eye(2), W_sig=W_sig, W_Q=W_Q, W_K=W_K, tau=1.0,
                        aggregation="max", blocks=blocks, signatures="rademacher", block_size=2)


def test_hand_set_construction1_margins_exact():
    c = _hand_set_construction1()
    S = aggregated_score_matrix(c)
    assert S.tolist() == [[0.0, 2.0], [2.0, 0.0]]  # edges score d_k = 2, self-pairs w_1 . w_0 = 0
    mg = separation_margins(c)
    assert (mg.min_edge, mg.max_nonedge, mg.margin, mg.best_threshold, mg.best_margin) == (2.0, 0.0, 1.0, 1.0, 1.0)
    assert mg.n_failures == 0 and mg.separated
    t = noise_terms(c, 0)  # one-hot: no leakage, the score is all Signal
    assert t["Signal"].tolist() == S.tolist() and not np.any(t["N1"]) and not np.any(t["N2"]) and not np.any(t["N3"])
    # (26): ||U||_F ||V||_F = 2 * 2
    assert normalised_margin(c)["normalised_margin"] == pytest.approx(0.25)


def test_hand_set_algorithm1_weights():
    # X rows e_0, e_1, (e_0 + e_1)/sqrt 2, e_1; pi = [2, 3, 0, 1]; blocks of B = 2: V_1 = {0, 1}, V_2 = {2, 3}.
    s = 1 / math.sqrt(2)
    X = np.array([[1, 0], [0, 1], [s, s], [0, 1.0]])
    g = permutation_graph([2, 3, 0, 1])
    c = algorithm1(g, X, d_k=3, rng=np.random.default_rng(0))
    W = c.W_sig
    assert c.n_heads == 2 and c.tau == 1.5 and c.blocks[0].tolist() == [[0, 2], [1, 3]]
    np.testing.assert_allclose(c.W_Q[0], np.outer(X[0], W[2]) + np.outer(X[1], W[3]))
    np.testing.assert_allclose(c.W_K[0], np.outer(X[2], W[2]) + np.outer(X[3], W[3]))
    np.testing.assert_allclose(c.W_Q[1], np.outer(X[2], W[0]) + np.outer(X[3], W[1]))
    c2 = algorithm2(g, X, d_k=3, rng=np.random.default_rng(0))
    assert c2.tau == 0.5 and c2.aggregation == "softmax-sum" and np.array_equal(c2.W_Q, c.W_Q)
    assert np.allclose(aggregated_score_matrix(c2).sum(1), 2.0)  # each row of a softmax-sum adds to h
    # weights_from_blocks is X_inv times the one-hot-space templates of Algorithm 1, steps 6-9
    W_Q, W_K = weights_from_blocks(c.X_inv, c.W_sig, c.blocks)
    assert np.array_equal(W_Q, c.W_Q) and np.array_equal(W_K, c.W_K)
    for k in range(c.n_heads):
        WQp, WKp = c.templates(k)
        np.testing.assert_allclose(c.X_inv @ WQp, W_Q[k])
        np.testing.assert_allclose(c.X_inv @ WKp, W_K[k])


def test_hand_set_incoherence():
    s = 1 / math.sqrt(2)
    X = np.array([[1, 0], [0, 1], [s, s]])  # delta rows: (0, 0, s), (0, 0, s), (s, s, 0)
    ip1 = restricted_self_incoherence(X, 1)
    assert (ip1.eps_d, ip1.rho, ip1.gamma, ip1.gamma_offdiag) == pytest.approx((0.0, 0.5, 0.5, 0.5))
    ip2 = restricted_self_incoherence(X, 2)
    assert (ip2.rho, ip2.gamma, ip2.gamma_offdiag) == pytest.approx((1.0, 1.0, 0.5))


def test_hand_set_konig_and_batching():
    # a 2 x 2 complete bipartite digraph plus one edge: Delta = 2 (vertex 0 has out-degree 2, vertex 2 in-degree 2)
    g = digraph_from_edges(4, [(0, 2), (0, 3), (1, 2), (1, 3), (3, 1)])
    cols = konig_edge_coloring(g)
    assert is_proper_edge_coloring(g.edges, cols) and set(cols.tolist()) == {0, 1}
    Ms = coloring_and_batching(g, 2)
    assert sorted(len(M) for M in Ms) == [1, 2, 2] and len(Ms) <= math.ceil(5 / 2) + 2


def test_union_bound_certificate_hand_checked():
    # P[Bin(4, 1/2) >= 3] = 5/16; m(m-1)/2 = 1 pair at m = 2
    assert union_bound_construction1(2, 4) == pytest.approx(5 / 16)
    cert = certified_c_construction1(64)
    assert union_bound_construction1(64, cert["d_k"]) <= 64**-3 < union_bound_construction1(64, cert["d_k"] - 1)
    assert paper_c_theorem_b1(0.25)["C_paper"] == pytest.approx(max(3 / (0.25 * 0.5625 / 8), 2 / (0.25 * 0.5625 / 3.5)))


@given(regular_graphs(max_size=30, max_degree=6), st.integers(1, 12))
def test_equitable_coloring_balanced_and_proper(g, extra):
    k = g.max_degree + extra
    cols = equitable_edge_coloring(g, k)
    sizes = np.bincount(cols, minlength=k)
    assert is_proper_edge_coloring(g.edges, cols) and sizes.max() - sizes.min() <= 1


@given(permutation_graphs(min_size=2, max_size=24), st.integers(1, 8), st.integers(1, 8), seeds())
def test_constructions_share_the_scoring_layout(g, d, d_k, seed):
    rng = np.random.default_rng(seed)
    X = gaussian_unit_norm_embeddings(g.m, d, rng=rng)
    for c in (algorithm1(g, X, d_k=d_k, rng=rng), algorithm4(g, X, d_k=d_k, block_size=d, rng=rng),
              construction1(g, d_k=d_k, rng=rng), algorithm3(g, d_k=d_k, rng=rng)):
        assert c.W_Q.shape == (c.n_heads, c.d_model, d_k) and c.W_Q.dtype == np.float64
        own = c.owner_heads()
        assert np.array_equal(own >= 0, g.adjacency)  # every edge is served by exactly one head


@given(permutation_graphs(min_size=2, max_size=16), st.integers(1, 6), seeds())
def test_limit_matrix_is_the_mean_over_signatures(g, d, seed):
    # E[S / d_k | X] over Rademacher signatures equals the limit matrix; averaging many d_k columns approaches it.
    rng = np.random.default_rng(seed)
    X = gaussian_unit_norm_embeddings(g.m, d, rng=rng)
    c = algorithm1(g, X, d_k=1, rng=rng)
    lim = limit_score_matrix(c)
    big = algorithm1(g, X, d_k=20000, rng=rng)
    per_head = 0  # the first head's scores against its own limit
    Q, K = X @ big.W_Q[per_head], X @ big.W_K[per_head]
    U = X @ X.T
    blk = big.blocks[per_head]
    exact = U[:, blk[:, 0]] @ U[:, blk[:, 1]].T
    assert np.abs(Q @ K.T / 20000 - exact).max() < 0.2 * max(1.0, np.abs(exact).max())
    assert lim.shape == (g.m, g.m)


def test_algorithm5_regular_graph_heads_bound():
    g = random_regular_graph(40, 3, rng=np.random.default_rng(1))
    X = gaussian_unit_norm_embeddings(40, 8, rng=np.random.default_rng(2))
    c = algorithm5(g, X, d_k=4, rng=np.random.default_rng(3))
    assert c.n_heads <= math.ceil(g.n_edges / 8) + g.max_degree == c.metadata["lemma_b8_H"]
    assert max(len(b) for b in c.blocks) <= 8


@pytest.mark.parametrize("call, message", [
    (lambda: algorithm1(random_regular_graph(6, 2, rng=np.random.default_rng(0)), np.eye(6), d_k=2,
                        rng=np.random.default_rng(0)), "graph must be a permutation graph"),
    (lambda: algorithm1(permutation_graph([1, 0]), np.eye(3), d_k=2, rng=np.random.default_rng(0)), "X must have m = 2"),
    (lambda: algorithm1(permutation_graph([1, 0]), np.eye(2), d_k=0, rng=np.random.default_rng(0)), "d_k must be"),
    (lambda: algorithm3(permutation_graph([1, 0]), d_k=2, p=0.6, rng=np.random.default_rng(0)), "p must be"),
    (lambda: algorithm4(permutation_graph([1, 0]), np.eye(2), d_k=2, block_size=1, p=0.2,
                        rng=np.random.default_rng(0)), "p must be"),
    (lambda: algorithm1(permutation_graph([1, 0]), np.eye(2), d_k=2, rng=0), "rng must be"),
    (lambda: restricted_self_incoherence(np.eye(3), 0), "B must be an integer >= 1"),
    (lambda: equitable_edge_coloring(random_regular_graph(6, 3, rng=np.random.default_rng(0)), 2), "n_colors must be"),
])
def test_bad_input_names_the_parameter(call, message):
    with pytest.raises(ValueError, match=message):
        call()


def test_construct_command(capsys, tmp_path):
    assert main(["construct", "--algorithm", "3", "--m", "16", "--d-k", "200", "--seed", "1"]) == 0
    out = capsys.readouterr().out
    assert "Algorithm 3" in out and "separates" in out
    f = tmp_path / "edges.txt"
    f.write_text("0 1\n1 2\n2 0\n0 2\n")
    assert main(["construct", "--algorithm", "5", "--graph", "edges", str(f), "--d-model", "3", "--d-k", "8",
                 "--json"]) == 0
    assert '"algorithm": 5' in capsys.readouterr().out
    assert main(["construct", "--algorithm", "1", "--m", "8"]) == 2  # d_model missing
    assert "d_model must be given" in capsys.readouterr().err


def test_constants_command(capsys):
    assert main(["constants", "--theorem", "I", "--m", "16", "--draws", "1"]) == 0
    assert "certified_C" in capsys.readouterr().out
    assert main(["constants", "--theorem", "nope"]) == 2


@given(lo=st.integers(-50, 50), width=st.integers(1, 200), data=st.data())
def test_smallest_passing_finds_the_first_true_value(lo, width, data):
    hi = lo + width
    first = data.draw(st.integers(lo + 1, hi))  # ok is false below `first`, true from it on
    calls = []

    def ok(n):
        calls.append(n)
        return n >= first

    assert smallest_passing(ok, lo, hi) == first
    assert all(lo < n < hi for n in calls)  # the ends are taken as given, never evaluated
    assert len(calls) <= math.ceil(math.log2(width)) + 1


def test_smallest_passing_rejects_an_empty_range():
    with pytest.raises(ValueError, match="hi must be an integer >= 4"):
        smallest_passing(lambda n: True, 3, 3)


def test_smallest_passing_rejects_a_non_callable():
    with pytest.raises(ValueError, match="ok must be a callable"):
        smallest_passing(3, 0, 5)
