"""Database tensors of "Paying Attention to Facts" (arXiv 2502.05076): the 2x2x2 case and rank inflation.

- the 2x2x2 case exactly: Cayley's hyperdeterminant (:func:`hyperdeterminant`) and the slice pencil
  det(x T_0 + y T_1), whose real roots decide between real rank 2 and 3 (:func:`pencil_polynomial`);
- argmax and softmax rank inflation: a rank-2 matrix whose row argmax is any permutation
  (:func:`circle_rank2_factors`), softmax of a rank-1 matrix of full rank (:func:`softmax_rank1_exact`),
  and how finite precision limits the first (:func:`circle_argmax_failures`);
- :func:`numerical_rank_upper_estimate`, a float SVD count, documented as an estimate of a matrix rank only.

Databases and certified rank bounds are in :mod:`rgr_verify.models.facts_tensors`.
"""

from __future__ import annotations

import numpy as np
import sympy as sp

from ..basics.checks import check_choice, check_int, check_real
from .facts_tensors import Database, permutation_array

__all__ = [
    "hyperdeterminant",
    "pencil_polynomial",
    "fibre_argmax_accuracy",
    "circle_rank2_factors",
    "softmax_rank1_exact",
    "softmax_threshold",
    "circle_argmax_failures",
    "numerical_rank_upper_estimate",
]

# --------------------------------------------------------------------------------------------------------------
# 2x2x2 tensors


def hyperdeterminant(T):
    """Cayley's hyperdeterminant of a 2x2x2 tensor (works on numbers and sympy expressions).

    Det(T) = t000^2 t111^2 + t001^2 t110^2 + t010^2 t101^2 + t100^2 t011^2
             - 2 (t000 t001 t110 t111 + t000 t010 t101 t111 + t000 t100 t011 t111
                  + t001 t010 t101 t110 + t001 t100 t011 t110 + t010 t100 t011 t101)
             + 4 (t000 t011 t101 t110 + t001 t010 t100 t111).
    Over R: Det > 0 gives rank 2, Det < 0 rank 3 (complex rank 2).
    """
    t = _as_2x2x2(T)
    a, b, c, d = t[0][0][0], t[0][0][1], t[0][1][0], t[0][1][1]
    e, f, g, h = t[1][0][0], t[1][0][1], t[1][1][0], t[1][1][1]
    # a=t000 b=t001 c=t010 d=t011 e=t100 f=t101 g=t110 h=t111
    return (a * a * h * h + b * b * g * g + c * c * f * f + e * e * d * d
            - 2 * (a * b * g * h + a * c * f * h + a * e * d * h + b * c * f * g + b * e * d * g + c * e * d * f)
            + 4 * (a * d * f * g + b * c * e * h))


def pencil_polynomial(T, x: sp.Symbol, y: sp.Symbol) -> sp.Expr:
    """det(x T[:, :, 0] + y T[:, :, 1]) for a 2x2x2 tensor (slices along the last mode), a binary quadratic form.

    If T = sum_{r<=2} a_r (x) b_r (x) c_r over a field F, every slice is A diag(c(i)) B^T, so this form is
    det(A) det(B) times a product of two linear forms over F: with real T and no real factorisation (negative
    discriminant) the real rank is at least 3.
    """
    t = _as_2x2x2(T)
    S0 = sp.Matrix(2, 2, lambda i, j: sp.nsimplify(t[i][j][0]))
    S1 = sp.Matrix(2, 2, lambda i, j: sp.nsimplify(t[i][j][1]))
    return sp.expand((x * S0 + y * S1).det())


def _as_2x2x2(T):
    if isinstance(T, np.ndarray):
        if T.shape != (2, 2, 2):
            raise ValueError(f"T must have shape (2, 2, 2), got {T.shape}")
        return T.tolist()
    try:
        ok = len(T) == 2 and all(len(r) == 2 and all(len(c) == 2 for c in r) for r in T)
    except TypeError:
        ok = False
    if not ok:
        raise ValueError("T must be a 2x2x2 array or nested lists")
    return T


# --------------------------------------------------------------------------------------------------------------
# Argmax and softmax rank inflation


def fibre_argmax_accuracy(db: Database, T) -> float:
    """Fraction of queried fibres (k, q) whose unique argmax over v of T[k, q, :] is a valid value (ties fail)."""
    if not isinstance(db, Database):
        raise ValueError(f"db must be a Database, got {type(db).__name__}")
    T = np.asarray(T)
    if T.shape != db.shape:
        raise ValueError(f"T must have the database's shape {db.shape}, got {T.shape}")
    fib = db.fibres()
    if not fib:
        return 1.0
    ok = 0
    for (k, q), vs in fib.items():
        row = T[k, q]
        top = np.flatnonzero(row == row.max())
        ok += int(top.size == 1 and int(top[0]) in vs)
    return ok / len(fib)


def circle_rank2_factors(perm, *, dtype=np.float64) -> tuple[np.ndarray, np.ndarray]:
    """Factors ``U [m, 2]``, ``V [m, 2]`` of the rank-2 matrix M = U V^T, M[i, j] = cos(phi_perm[i] - phi_j).

    phi_j = 2 pi j / m. Row i peaks at column perm[i] with value 1; every other entry is <= cos(2 pi / m), so the
    row argmax is the permutation (one-hot argmax matrix of rank m) at margin 1 - cos(2 pi / m) ~ 2 pi^2 / m^2.
    Angles are computed in float64 and the factors cast to ``dtype``.
    """
    arr = permutation_array(perm)
    m = arr.size
    check_choice("dtype", np.dtype(dtype), (np.dtype(np.float32), np.dtype(np.float64)))
    phi = 2 * np.pi * np.arange(m) / m
    V = np.stack([np.cos(phi), np.sin(phi)], axis=1)
    return V[arr].astype(dtype), V.astype(dtype)


def circle_argmax_failures(m: int, *, dtype, rows=None) -> int:
    """How many rows (of ``rows``, default all) of the identity-permutation circle matrix computed in ``dtype``
    fail to have their true column as the strict maximum.

    Only the two circle neighbours j +- 1 can compete (every other entry is below cos(4 pi / m), far under the
    rounding error), so row i compares M[i, i] with M[i, i +- 1], each computed as u0 v0 + u1 v1 in ``dtype``.
    """
    m = check_int("m", m, min_value=3)
    dt = np.dtype(dtype)
    check_choice("dtype", dt, (np.dtype(np.float32), np.dtype(np.float64)))
    idx = np.arange(m) if rows is None else np.asarray(rows, dtype=np.int64)
    if idx.ndim != 1 or (idx.size and (idx.min() < 0 or idx.max() >= m)):
        raise ValueError(f"rows must be a 1-d array of row ids in [0, {m - 1}]")

    def factor(j):
        phi = 2 * np.pi * (j % m) / m
        return np.cos(phi).astype(dt), np.sin(phi).astype(dt)

    c0, s0 = factor(idx)
    own = c0 * c0 + s0 * s0
    bad = np.zeros(idx.size, dtype=bool)
    for shift in (-1, 1):
        c1, s1 = factor(idx + shift)
        bad |= (c0 * c1 + s0 * s1) >= own
    return int(bad.sum())


def softmax_rank1_exact(n: int) -> sp.Matrix:
    """Row-softmax of the rank-1 matrix (ln 2) u u^T with u = (0, 1, ..., n-1), exactly: S[i, j] = 2^(ij) / Z_i.

    S = diag(1 / Z) W with W[i, j] = (2^i)^j a Vandermonde matrix on the distinct nodes 2^i, so S has full rank n.
    """
    n = check_int("n", n, min_value=1, max_value=64)
    W = sp.Matrix(n, n, lambda i, j: sp.Integer(2) ** (i * j))
    Z = [sum(W.row(i)) for i in range(n)]
    return sp.Matrix(n, n, lambda i, j: W[i, j] / Z[i])


def softmax_threshold(logits, tau: float, *, axis: int = -1) -> np.ndarray:
    """softmax>=tau: 1 where softmax(logits) along ``axis`` is at least tau, else 0 (float64 softmax)."""
    tau = check_real("tau", tau, low=0.0, high=1.0, low_open=True)
    z = np.asarray(logits, dtype=np.float64)
    z = z - z.max(axis=axis, keepdims=True)
    p = np.exp(z)
    p /= p.sum(axis=axis, keepdims=True)
    return (p >= tau).astype(np.int64)


def numerical_rank_upper_estimate(M, *, rtol: float | None = None) -> int:
    """Count of singular values above ``rtol * sigma_max`` (default: max(shape) * eps of the dtype).

    A numerical estimate of a *matrix* rank in floating point (what a computation at that precision can
    distinguish), not a certified rank; for tensors use :func:`rank_bounds`.
    """
    M = np.asarray(M)
    if M.ndim != 2 or not np.issubdtype(M.dtype, np.floating):
        raise ValueError(f"M must be a 2-d float array, got shape {M.shape}, dtype {M.dtype}")
    if rtol is None:
        rtol = max(M.shape) * np.finfo(M.dtype).eps
    rtol = check_real("rtol", rtol, low=0.0)
    s = np.linalg.svd(M, compute_uv=False)
    return int((s > rtol * s[0]).sum()) if s.size and s[0] > 0 else 0
