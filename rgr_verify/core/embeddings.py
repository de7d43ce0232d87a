"""Item embeddings X in R^{m x d_model}, one row per vertex (Sec. 4, App. A.1, App. B.3).

Builders: one-hot (Construction I), Gaussian unit-norm (rows drawn i.i.d. N(0, I/d_model) then L2-normalised;
Construction II and the experiments), random binary compressive (i.i.d. Bernoulli(p_B) entries; Construction
III), and a user-supplied matrix. Restricted self-incoherence (Definition B.4) is measured with the
constructions.
"""

from __future__ import annotations

import numpy as np

from ..basics.checks import check_finite_array, check_int, check_probability, check_rng

__all__ = [
    "one_hot_embeddings",
    "gaussian_unit_norm_embeddings",
    "binary_compressive_embeddings",
    "embeddings_from_matrix",
]


def one_hot_embeddings(m: int) -> np.ndarray:
    """X = I_m: row i is e_i, so d_model = m (Construction I). Returns float64 ``[m, m]``."""
    m = check_int("m", m, min_value=1)
    return np.eye(m)


def gaussian_unit_norm_embeddings(m: int, d_model: int, *, rng: np.random.Generator) -> np.ndarray:
    """Rows x_i = x~_i / ||x~_i||_2 with x~_i ~ N(0, I/d_model) i.i.d. (Sec. 4, App. A.1).

    Returns float64 ``[m, d_model]`` with unit-norm rows.
    """
    m = check_int("m", m, min_value=1)
    d_model = check_int("d_model", d_model, min_value=1)
    check_rng(rng)
    raw = rng.standard_normal((m, d_model)) / np.sqrt(d_model)  # [m, d_model]
    norms = np.linalg.norm(raw, axis=1, keepdims=True)
    # A zero row has probability zero; redraw it rather than divide by zero.
    while np.any(norms == 0):  # pragma: no cover
        bad = norms[:, 0] == 0
        raw[bad] = rng.standard_normal((int(bad.sum()), d_model)) / np.sqrt(d_model)
        norms = np.linalg.norm(raw, axis=1, keepdims=True)
    return raw / norms


def binary_compressive_embeddings(m: int, d_model: int, p: float, *, rng: np.random.Generator) -> np.ndarray:
    """X with i.i.d. Bernoulli(p) entries in {0, 1} (random binary compressive embeddings, App. B.3).

    All-zero rows are redrawn so every item has a nonzero embedding. Returns float64 ``[m, d_model]``.
    """
    m = check_int("m", m, min_value=1)
    d_model = check_int("d_model", d_model, min_value=1)
    p = check_probability("p", p, open_low=True)
    check_rng(rng)
    X = (rng.random((m, d_model)) < p).astype(float)
    zero = ~X.any(axis=1)
    while np.any(zero):
        X[zero] = (rng.random((int(zero.sum()), d_model)) < p).astype(float)
        zero = ~X.any(axis=1)
    return X


def embeddings_from_matrix(X, *, m: int | None = None) -> np.ndarray:
    """Validate a user-supplied embedding matrix: 2-d, finite, no zero-norm row, optional row count m."""
    arr = check_finite_array("X", X, ndim=2)
    if arr.shape[0] < 1 or arr.shape[1] < 1:
        raise ValueError(f"X must have at least one row and one column, got shape {arr.shape}")
    if m is not None:
        m = check_int("m", m, min_value=1)
        if arr.shape[0] != m:
            raise ValueError(f"X must have m = {m} rows, got {arr.shape[0]}")
    zero = np.flatnonzero(np.linalg.norm(arr, axis=1) == 0)
    if zero.size:
        raise ValueError(f"X must have no zero-norm rows (embedding of an item), rows {zero[:5].tolist()} are zero")
    return arr.copy()
