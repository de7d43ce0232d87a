# Database tensors of "Paying Attention to Facts" (arXiv 2502.05076): hand-set cases, properties, bad input.
import numpy as np
import pytest
import sympy as sp
from hypothesis import given
from hypothesis import strategies as st

from rgr_verify.models.facts_tensors import (
    Database,
    cp_tensor,
    database_from_triples,
    distinct_value_database,
    flattening_lower_bound,
    graph_database,
    is_decomposition,
    modular_rank,
    permutation_database,
    prop21_bounds,
    random_functional_database,
    rank_bounds,
    single_value_diagonal_database,
    slice_decomposition,
)
from rgr_verify.models.facts_inflation import (
    circle_argmax_failures,
    circle_rank2_factors,
    fibre_argmax_accuracy,
    hyperdeterminant,
    numerical_rank_upper_estimate,
    pencil_polynomial,
    softmax_rank1_exact,
    softmax_threshold,
)
from rgr_verify.core.graphs import random_regular_graph


def test_database_tensor_hand_set():
    db = database_from_triples([(0, 0, 1), (1, 0, 0), (1, 1, 1)])
    assert db.shape == (2, 2, 2) and db.size == 3
    D = db.tensor()
    assert D.sum() == 3 and D[0, 0, 1] == 1 and D[1, 0, 0] == 1 and D[1, 1, 1] == 1
    assert prop21_bounds(db) == {"sum_k |V_k|": 3, "sum_q |V_q|": 3, "|D|": 3, "bound": 3}
    assert db.fibres() == {(0, 0): frozenset({1}), (1, 0): frozenset({0}), (1, 1): frozenset({1})}


def test_key_only_database_bound_below_size():
    # value depends on the key only: sum_k |V_k| = |K| < |D| = |K| |Q|, and the rank is exactly |K|
    db = database_from_triples([(k, q, k) for k in range(4) for q in range(3)])
    b = prop21_bounds(db)
    assert b["sum_k |V_k|"] == 4 and b["|D|"] == 12 and b["bound"] == 4
    rb = rank_bounds(db)
    assert rb.exact and rb.upper == 4


@given(st.integers(1, 60), st.integers(0, 2**32 - 1))
def test_permutation_database_rank_is_m(m, seed):
    rb = rank_bounds(permutation_database(np.random.default_rng(seed).permutation(m)))
    assert rb.exact and rb.lower == m


@given(st.integers(1, 6), st.integers(1, 6), st.integers(1, 6), st.integers(0, 2**32 - 1))
def test_slice_decompositions_reproduce_d(K, Q, V, seed):
    db = random_functional_database(K, Q, V, rng=np.random.default_rng(seed))
    for by in ("query", "key"):
        assert is_decomposition(db.tensor(), slice_decomposition(db, by=by))
    rb = rank_bounds(db)
    assert rb.lower <= rb.upper <= db.size


def test_distinct_and_diagonal_databases():
    assert rank_bounds(distinct_value_database(5, 3, rng=np.random.default_rng(0))).upper == 15
    db = single_value_diagonal_database(7)
    assert rank_bounds(db).exact and rank_bounds(db).upper == 7
    assert fibre_argmax_accuracy(db, np.ones(db.shape)) == 1.0  # effective rank 1


def test_modular_rank_hand_set():
    assert modular_rank(np.array([[1, 2], [2, 4]])) == 1
    assert modular_rank(np.eye(5, dtype=np.int64)) == 5
    assert modular_rank(np.zeros((3, 4), dtype=np.int64)) == 0
    assert modular_rank(np.array([[1, 1], [1, 1]]), p=2) == 1


def test_hyperdeterminant_and_pencil():
    x, y = sp.symbols("x y")
    T = np.stack([np.eye(2, dtype=np.int64), np.array([[0, -1], [1, 0]])], axis=2)
    assert hyperdeterminant(T.tolist()) == -4
    assert pencil_polynomial(T, x, y) == x**2 + y**2
    W = np.zeros((2, 2, 2), dtype=np.int64)
    W[0, 0, 1] = W[0, 1, 0] = W[1, 0, 0] = 1
    assert hyperdeterminant(W.tolist()) == 0
    generic = np.zeros((2, 2, 2), dtype=np.int64)
    generic[0, 0, 0] = generic[1, 1, 1] = 1  # e0e0e0 + e1e1e1: rank 2, Det = 1
    assert hyperdeterminant(generic.tolist()) == 1


def test_cp_tensor_and_decomposition_check():
    A, B, C = np.eye(2, dtype=np.int64), np.eye(2, dtype=np.int64), np.eye(2, dtype=np.int64)
    T = cp_tensor(A, B, C)
    assert is_decomposition(T, (A, B, C))
    assert not is_decomposition(T + 1, (A, B, C))
    assert is_decomposition(T + 1e-12, (A, B, C), atol=1e-9)


@given(st.integers(3, 200), st.integers(0, 2**32 - 1))
def test_circle_matrix_rank2_argmax_is_permutation(m, seed):
    perm = np.random.default_rng(seed).permutation(m)
    U, V = circle_rank2_factors(perm)
    M = U @ V.T
    assert numerical_rank_upper_estimate(M) <= 2
    assert np.array_equal(M.argmax(1), perm)


def test_circle_precision_limits():
    assert circle_argmax_failures(4096, dtype=np.float32) == 0
    assert circle_argmax_failures(65536, dtype=np.float32) > 0
    assert circle_argmax_failures(65536, dtype=np.float64) == 0


def test_softmax_rank1_exact_full_rank_and_threshold():
    S = softmax_rank1_exact(6)
    assert S.rank() == 6 and all(sp.simplify(sum(S.row(i)) - 1) == 0 for i in range(6))
    hot = softmax_threshold(np.array([[10.0, 0.0, 0.0], [0.0, 0.0, 0.0]]), 0.9)
    assert hot.tolist() == [[1, 0, 0], [0, 0, 0]]


def test_graph_database_of_regular_graph():
    g = random_regular_graph(12, 3, rng=np.random.default_rng(1))
    db = graph_database(g)
    b = prop21_bounds(db)
    assert db.size == 36 and b["sum_k |V_k|"] == 36 and b["bound"] == 12  # edges vs min(r m, m)
    assert flattening_lower_bound(db.tensor()) <= 12


@pytest.mark.parametrize("call, name", [
    (lambda: Database(np.array([[0, 0, 5]]), 2, 2, 2), "value ids"),
    (lambda: Database(np.array([[0, 0, 0], [0, 0, 0]]), 1, 1, 1), "distinct"),
    (lambda: Database(np.zeros((2, 2), dtype=np.int64), 1, 1, 1), "shape"),
    (lambda: Database(np.zeros((0, 3), dtype=np.int64), 0, 1, 1), "n_keys"),
    (lambda: permutation_database(np.array([0, 0, 1])), "perm"),
    (lambda: random_functional_database(2, 2, 2, rng=0), "rng"),
    (lambda: slice_decomposition(permutation_database(np.arange(3)), by="value"), "by"),
    (lambda: modular_rank(np.ones((2, 2))), "M"),
    (lambda: hyperdeterminant(np.zeros((2, 2))), "T"),
    (lambda: softmax_threshold(np.zeros((2, 2)), 0.0), "tau"),
    (lambda: circle_argmax_failures(2, dtype=np.float32), "m"),
    (lambda: circle_rank2_factors(np.arange(4), dtype=np.int64), "dtype"),
    (lambda: numerical_rank_upper_estimate(np.ones((2, 2), dtype=np.int64)), "M"),
    (lambda: softmax_rank1_exact(0), "n"),
])
def test_bad_input_raises_value_error_naming_parameter(call, name):
    with pytest.raises(ValueError, match=name):
        call()
