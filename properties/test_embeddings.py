# Sec. 4, App. A.1, App. B.3: item embeddings (Gaussian unit-norm, binary compressive) and their strategy.
import numpy as np
from hypothesis import given
from hypothesis import strategies as st

import rgr_verify as R
from rgr_verify.core.strategies import embedding_matrices, seeds


@given(st.integers(1, 30), st.integers(1, 40), seeds())
def test_gaussian_unit_norm_rows(m, d, seed):
    X = R.gaussian_unit_norm_embeddings(m, d, rng=np.random.default_rng(seed))
    assert X.shape == (m, d)
    np.testing.assert_allclose(np.linalg.norm(X, axis=1), 1.0, rtol=1e-12)


def test_binary_compressive_has_no_zero_rows():
    X = R.binary_compressive_embeddings(200, 3, 0.05, rng=np.random.default_rng(1))
    assert set(np.unique(X)) <= {0.0, 1.0} and X.any(axis=1).all()


@given(st.data(), st.integers(1, 12))
def test_embedding_matrices_strategy_draws_unit_norm_rows(data, m):
    X = data.draw(embedding_matrices(m, min_dim=2, max_dim=9))
    assert X.shape[0] == m and 2 <= X.shape[1] <= 9
    np.testing.assert_allclose(np.linalg.norm(X, axis=1), 1.0, rtol=1e-12)
