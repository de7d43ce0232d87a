"""Measurements for the lower bound (Sec. 9) and the graph-dependent embedding (Sec. 10).

- :func:`decision_function`: Lemma 9.3's S(u, v) - tau, with max, sum or log-sum-exp over the heads'
  x_u^T U_k V_k^T x_v.
- :func:`two_way_softmax_score`: A_ij on the length-2 context (i, j) (Eq. (28)).
- :func:`nuclear_normalised_margin`: the best margin of a construction under normalisation (26) over all
  factorisations of its heads (nuclear norms).
- :func:`graph_dependent_embedding_qk`: a "learned" (graph-dependent) embedding that recognises a permutation graph
  with one head of width d_model / 2 (Sec. 10).
"""

from __future__ import annotations

import math

import numpy as np
from scipy import special

from ..basics.checks import check_choice, check_finite_array, check_int, check_real, check_rng
from ..models.constructions import Construction, check_construction
from ..core.graphs import Digraph

__all__ = [
    "decision_function",
    "steepest_perturbation",
    "two_way_softmax_score",
    "nuclear_normalised_margin",
    "graph_dependent_embedding_qk",
]


def _pair_head_scores(U, V, xa, xb, *, d_k: int, names: tuple[str, str]) -> np.ndarray:
    """Per-head scores ``[h, 2, 2]`` on the length-2 context (x_a, x_b): entry [k, p, q] = x_p^T U_k V_k^T x_q, with
    U = [U_1 | ... | U_h] and V likewise ``[d_model, h d_k]`` (scored by :func:`rgr_verify.core.scoring.head_scores`)."""
    import torch

    from ..core.scoring import head_scores, split_heads

    U = check_finite_array("U", U, ndim=2)
    V = check_finite_array("V", V, ndim=2)
    d_k = check_int("d_k", d_k, min_value=1)
    if U.shape != V.shape or U.shape[1] % d_k:
        raise ValueError(f"U and V must share a shape [d_model, h * d_k] with d_k={d_k}, got {U.shape}, {V.shape}")
    xa = check_finite_array(names[0], xa, ndim=1)
    xb = check_finite_array(names[1], xb, ndim=1)
    if xa.shape[0] != U.shape[0] or xb.shape[0] != U.shape[0]:
        raise ValueError(f"{names[0]} and {names[1]} must have length d_model = {U.shape[0]}")
    h = U.shape[1] // d_k
    X_C = torch.as_tensor(np.stack([xa, xb]))[None]  # [1, 2, d_model]
    return head_scores(X_C, split_heads(U, h), split_heads(V, h))[0].numpy()  # [h, 2, 2]


def decision_function(U, V, tau: float, xu, xv, *, d_k: int, aggregation: str = "max") -> float:
    """S(u, v) - tau of Lemma 9.3: heads s_k = x_u^T U_k V_k^T x_v with U = [U_1 | ... | U_h] ``[d_model, h d_k]``.

    ``aggregation``: "max" (Eq. (25)), "sum" or "logsumexp" over heads (the remark after Lemma 9.3).
    """
    check_choice("aggregation", aggregation, ("max", "sum", "logsumexp"))
    tau = check_real("tau", tau)
    s = _pair_head_scores(U, V, xu, xv, d_k=d_k, names=("xu", "xv"))[:, 0, 1]
    if aggregation == "max":
        agg = s.max()
    elif aggregation == "sum":
        agg = s.sum()
    else:
        agg = float(special.logsumexp(s))
    return float(agg - tau)


def steepest_perturbation(U, V, tau, xu, xv, f_uv, eps, *, d_k: int, aggregation: str):
    """(U', V', tau') at distance eps in each of U, V and tau from (U, V, tau), moved along the steepest descent of
    |S(u, v) - tau| at the pair (u, v) (the worst direction to first order): the gradients of the heads' scores
    s_k = (x_u^T U_k) . (x_v^T V_k), weighted by the aggregation's derivative (the argmax head, every head, or the
    softmax of the scores). ``eps`` >= 0; U, V ``[d_model, h d_k]``, x_u, x_v ``[d_model]`` as in
    :func:`decision_function`."""
    check_choice("aggregation", aggregation, ("max", "sum", "logsumexp"))
    eps = check_real("eps", eps, low=0.0)
    f_uv = check_real("f_uv", f_uv)
    _pair_head_scores(U, V, xu, xv, d_k=d_k, names=("xu", "xv"))  # validates shapes, d_k and finiteness
    d_model, h = U.shape[0], U.shape[1] // d_k
    a = np.einsum("d,dhk->hk", xu, U.reshape(d_model, h, d_k))
    b = np.einsum("d,dhk->hk", xv, V.reshape(d_model, h, d_k))
    s = (a * b).sum(axis=1)
    w = (np.eye(h)[int(np.argmax(s))] if aggregation == "max" else np.ones(h) if aggregation == "sum"
         else special.softmax(s))
    g_u = np.einsum("d,hk->dhk", xu, w[:, None] * b).reshape(U.shape)
    g_v = np.einsum("d,hk->dhk", xv, w[:, None] * a).reshape(V.shape)
    sgn = 1.0 if f_uv > 0 else -1.0

    def step(G):
        n = np.linalg.norm(G)
        return G / n if n > 0 else G

    return U - sgn * eps * step(g_u), V - sgn * eps * step(g_v), tau + sgn * eps


def two_way_softmax_score(U, V, xi, xj, *, d_k: int) -> float:
    """A_ij on the length-2 context (i, j) (Eq. (28)): sum_k sigma(L^(k)_ij - L^(k)_ii), L = x^T U_k V_k^T x / sqrt(d_k)."""
    S = _pair_head_scores(U, V, xi, xj, d_k=d_k, names=("xi", "xj"))
    return float(special.expit((S[:, 0, 1] - S[:, 0, 0]) / math.sqrt(d_k)).sum())


def nuclear_normalised_margin(c: Construction, margin: float) -> dict:
    """Best margin under normalisation (26) over all factorisations of the heads' A_k = W_Q^(k) W_K^(k)T.

    Scaling (U, V, tau) -> (U / a, V / b, tau / (a b)) keeps every decision; over all factorisations U_k V_k^T = A_k
    the smallest achievable ||U||_F ||V||_F is sum_k ||A_k||_* (balanced SVD factors), so the largest margin
    attainable under ||U||_F, ||V||_F <= 1 is margin / sum_k ||A_k||_*. Also returns the margin normalised by the
    construction's own ||W_Q||_F ||W_K||_F and the largest row norm of X (must be <= 1).
    """
    c = check_construction(c)
    margin = check_real("margin", margin)
    nuclear = 0.0
    for k in range(c.n_heads):
        A = c.W_Q[k] @ c.W_K[k].T  # [d_model, d_model]
        nuclear += float(np.linalg.svd(A, compute_uv=False).sum())
    frob = float(np.linalg.norm(c.W_Q) * np.linalg.norm(c.W_K))
    return {"sum_nuclear_norms": nuclear, "frobenius_product": frob, "margin": margin,
            "normalised_margin_best": margin / nuclear, "normalised_margin_frobenius": margin / frob,
            "tau_normalised": float(c.tau) / nuclear, "max_row_norm": float(np.linalg.norm(c.X, axis=1).max())}


def graph_dependent_embedding_qk(graph: Digraph, d_model: int, *, rng: np.random.Generator) -> dict:
    """A "learned" (graph-dependent) embedding and one QK head that recognise a permutation graph (Sec. 10).

    With d = d_model / 2 and random sign codes r_v in {+-1}^d / sqrt(d), embed x_v = [r_{pi(v)} ; r_v] / sqrt(2)
    (unit norm) and use one head of width d with U = [I_d ; 0] / sqrt(d), V = [0 ; I_d] / sqrt(d) (so
    ||U||_F = ||V||_F = 1, normalisation (26)). Then s(u, v) = <r_{pi(u)}, r_v> / (2 d): 1 / (2 d) on edges and
    O(sqrt(log m / d) / d) elsewhere. Returns X ``[m, d_model]``, W_Q, W_K ``[1, d_model, d]``, the scores
    ``[m, m]``, tau (midpoint of the gap) and the margin of Definition 9.1 (negative if not separated).
    """
    if not isinstance(graph, Digraph) or graph.perm is None:
        raise ValueError("graph must be a permutation graph (a Digraph with perm)")
    d_model = check_int("d_model", d_model, min_value=2)
    if d_model % 2:
        raise ValueError(f"d_model must be even, got {d_model}")
    check_rng(rng)
    d = d_model // 2
    m = graph.m
    perm = np.asarray(graph.perm)
    R = rng.choice(np.array([-1.0, 1.0]), size=(m, d)) / math.sqrt(d)  # [m, d] unit rows
    X = np.concatenate([R[perm], R], axis=1) / math.sqrt(2.0)  # [m, d_model]
    U = np.concatenate([np.eye(d), np.zeros((d, d))], axis=0) / math.sqrt(d)  # [d_model, d]
    V = np.concatenate([np.zeros((d, d)), np.eye(d)], axis=0) / math.sqrt(d)
    S = (X @ U) @ (X @ V).T  # [m, m]
    A = graph.adjacency
    min_edge, max_non = float(S[A].min()), float(S[~A].max())
    tau = (min_edge + max_non) / 2
    return {"X": X, "W_Q": U[None], "W_K": V[None], "scores": S, "tau": tau, "margin": (min_edge - max_non) / 2,
            "D_K": d, "frobenius_U": float(np.linalg.norm(U)), "frobenius_V": float(np.linalg.norm(V))}
