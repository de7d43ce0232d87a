# App. A.1, App. A.3: the context sampler and the in-context labels.
import numpy as np
from hypothesis import given
from hypothesis import strategies as st

import rgr_verify as R
from rgr_verify.core.strategies import contexts, permutation_graphs


def test_in_context_neighbours_hand_set():
    g = R.permutation_graph([1, 2, 0])
    assert R.in_context_neighbours(g, 0, [2, 0, 1]) == [1]
    assert R.in_context_neighbours(g, 0, [0, 2]) == []


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
