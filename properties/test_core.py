# Sec. 1, Sec. 3, App. A.1, App. A.3: the RGR core (graphs, embeddings, contexts, scoring, micro-F1).
import numpy as np
import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st

import rgr_verify as R
from rgr_verify.strategies import contexts, permutation_graphs, regular_graphs, seeds


def test_permutation_graph_hand_set():
    g = R.permutation_graph([1, 2, 0])
    assert g.n_edges == 3 and g.kind == "permutation"
    assert g.edges.tolist() == [[0, 1], [1, 2], [2, 0]]
    assert g.adjacency.tolist() == [[False, True, False], [False, False, True], [True, False, False]]
    assert R.in_context_neighbours(g, 0, [2, 0, 1]) == [1]
    assert R.in_context_neighbours(g, 0, [0, 2]) == []


@given(regular_graphs(max_size=40, max_degree=12))
def test_regular_graphs_are_regular_without_loops_or_multi_edges(g):
    assert np.all(g.in_degrees() == g.r) and np.all(g.out_degrees() == g.r)
    assert not np.any(np.diag(g.adjacency))
    assert g.n_edges == g.m * g.r == len({tuple(e) for e in g.edges.tolist()})


def test_regular_graph_dense_case_uses_exact_completion():
    g = R.random_regular_graph(9, 8, rng=np.random.default_rng(0))  # complete digraph minus loops
    assert np.array_equal(g.adjacency, ~np.eye(9, dtype=bool))


@given(st.integers(1, 30), st.integers(1, 40), seeds())
def test_gaussian_unit_norm_rows(m, d, seed):
    X = R.gaussian_unit_norm_embeddings(m, d, rng=np.random.default_rng(seed))
    assert X.shape == (m, d)
    np.testing.assert_allclose(np.linalg.norm(X, axis=1), 1.0, rtol=1e-12)


def test_binary_compressive_has_no_zero_rows():
    X = R.binary_compressive_embeddings(200, 3, 0.05, rng=np.random.default_rng(1))
    assert set(np.unique(X)) <= {0.0, 1.0} and X.any(axis=1).all()


@given(st.data(), permutation_graphs(min_size=1, max_size=40))
def test_contexts_are_distinct_vertices(data, g):
    c = data.draw(contexts(g))
    assert len(set(c.tolist())) == len(c) and c.min() >= 0 and c.max() < g.m


def test_sampler_rho_one_small_case():
    # m = ell: every vertex is in the context whatever step 3 does, so every source has its target.
    g = R.permutation_graph([1, 2, 3, 0])
    c = R.sample_context(g, 4, 1.0, rng=np.random.default_rng(3))
    assert sorted(c.tolist()) == [0, 1, 2, 3]
    assert R.context_labels(g, c).sum() == 4


def test_sampler_raises_positive_rate():
    # With rho = 0.5 the mean number of in-context positives must exceed the uniform (rho = 0) baseline:
    # uniform gives ell*(ell-1)/(m-1) ~ 0.24 for m = 1000, ell = 16.
    g = R.random_permutation_graph(1000, rng=np.random.default_rng(0))
    rng = np.random.default_rng(1)
    pos0 = R.context_labels(g, R.sample_contexts(g, 300, 16, 0.0, rng=rng)).sum(axis=(1, 2)).mean()
    pos5 = R.context_labels(g, R.sample_contexts(g, 300, 16, 0.5, rng=rng)).sum(axis=(1, 2)).mean()
    assert pos0 < 1.0 and 3.0 < pos5 < 5.0  # literal step 3: rate ~0.25, not rho (claim appa1-sampler-positive-rate)


def test_regular_sampler_selected_sources_get_a_neighbour():
    g = R.random_regular_graph(64, 4, rng=np.random.default_rng(0))
    c = R.sample_contexts(g, 200, 16, 1.0, rng=np.random.default_rng(5))
    # at rho = 1 every source picked had a neighbour placed; most rows must have a positive
    rows_with_pos = R.context_labels(g, c).any(axis=2).mean()
    assert rows_with_pos > 0.6


def test_scoring_shapes_with_run_dimension():
    rng = np.random.default_rng(0)
    X = torch.as_tensor(rng.standard_normal((3, 10, 8)))  # [R, m, d_model]
    ctx = torch.as_tensor(rng.integers(0, 10, size=(3, 5, 4)))  # [R, B, ell]
    W_Q = torch.as_tensor(rng.standard_normal((3, 2, 8, 4)))  # [R, h, d_model, d_k]
    XC = R.context_embeddings(X, ctx)
    assert XC.shape == (3, 5, 4, 8)
    assert R.head_scores(XC, W_Q, W_Q).shape == (3, 5, 2, 4, 4)
    S = R.max_over_heads_scores(XC, W_Q, W_Q)
    assert R.predict_edges(S, torch.zeros(3)).shape == (3, 5, 4, 4)
    W_V = torch.as_tensor(rng.standard_normal((3, 8, 6)))
    assert R.value_readout(S, XC, W_V).shape == (3, 5, 4, 6)


def test_per_run_scores_equal_solo_scores():
    rng = np.random.default_rng(1)
    X = torch.as_tensor(rng.standard_normal((2, 6, 4)))
    ctx = torch.as_tensor(rng.integers(0, 6, size=(2, 3, 5)))
    W = torch.as_tensor(rng.standard_normal((2, 3, 4, 2)))
    batched = R.max_over_heads_scores(R.context_embeddings(X, ctx), W, W)
    for r in range(2):
        solo = R.max_over_heads_scores(R.context_embeddings(X[r], ctx[r]), W[r], W[r])
        torch.testing.assert_close(batched[r], solo)


def test_split_and_concat_heads_are_inverse():
    W = torch.arange(24.0).reshape(2, 12)
    heads = R.split_heads(W, 3)
    assert heads.shape == (3, 2, 4)
    assert torch.equal(heads[1], W[:, 4:8])
    assert torch.equal(R.concat_heads(heads), W)


def test_micro_f1_hand_set():
    pred = torch.tensor([[True, True], [False, False]])
    lab = torch.tensor([[True, False], [True, False]])
    # TP=1, FP=1, FN=1 -> 2/(2+1+1)
    assert float(R.micro_f1(pred, lab)) == pytest.approx(0.5)
    assert float(R.micro_f1(torch.zeros(2, 2, dtype=bool), torch.zeros(2, 2, dtype=bool))) == 1.0
    per_run = R.micro_f1(torch.stack([pred, lab]), torch.stack([lab, lab]), run_dims=1)
    assert per_run.tolist() == pytest.approx([0.5, 1.0])
