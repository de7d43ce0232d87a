# Sec. 1, App. A.3: relational graphs (permutation graphs, directed r-regular graphs).
import numpy as np
import pytest
from hypothesis import given

import rgr_verify as R
from rgr_verify.core.strategies import regular_graphs


def test_permutation_graph_hand_set():
    g = R.permutation_graph([1, 2, 0])
    assert g.n_edges == 3 and g.kind == "permutation"
    assert g.edges.tolist() == [[0, 1], [1, 2], [2, 0]]
    assert g.adjacency.tolist() == [[False, True, False], [False, False, True], [True, False, False]]


@given(regular_graphs(max_size=40, max_degree=12))
def test_regular_graphs_are_regular_without_loops_or_multi_edges(g):
    assert np.all(g.in_degrees() == g.r) and np.all(g.out_degrees() == g.r)
    assert not np.any(np.diag(g.adjacency))
    assert g.n_edges == g.m * g.r == len({tuple(e) for e in g.edges.tolist()})


def test_regular_graph_dense_case_uses_exact_completion():
    g = R.random_regular_graph(9, 8, rng=np.random.default_rng(0))  # complete digraph minus loops
    assert np.array_equal(g.adjacency, ~np.eye(9, dtype=bool))


def test_derangement_and_transposition():
    from rgr_verify.core.graphs import random_derangement, transposition

    r = np.random.default_rng(0)
    for m in (2, 3, 17):
        p = random_derangement(m, rng=r)
        assert sorted(p) == list(range(m)) and not np.any(p == np.arange(m))
    t = transposition(5)
    assert list(t) == [1, 0, 2, 3, 4]
    with pytest.raises(ValueError, match="m"):
        random_derangement(1, rng=r)
    with pytest.raises(ValueError, match="m"):
        transposition(1)
