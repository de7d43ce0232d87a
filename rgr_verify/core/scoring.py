"""Key-query scoring models of RGR, batched over runs and contexts (Sec. 3, Sec. 7.2, Sec. 8).

Weights use the TransformerLens layout ``W_Q, W_K: [..., n_heads, d_model, d_k]`` (d_k the paper's per-head
width, D_K = n_heads * d_k), multiplying on the right: q = x W_Q. An optional leading run dimension ``R`` on the
weights is matched with a leading ``R`` on the context embeddings, so many independent runs are scored by one
program. Score tensors are ``[..., batch, head, query_pos, key_pos]``; aggregated scores drop the head axis.

Aggregations:
- max over heads (Sec. 3): S_max[p, q] = max_k q_p^(k) . k_q^(k); edge iff S_max > tau.
- softmax-sum (Sec. 8, Eqs. (5)-(6)): A[p, q] = sum_k softmax_q(S^(k)[p, :] / sqrt(d_k)); edge iff A > tau.
- linear sum (Sec. 3 remark): S_lin = sum_k S^(k), which equals one head with concatenated projections.
- value readout (Sec. 7.2, Eq. (3)): y_hat = S_max (X_C W_V).
"""

from __future__ import annotations

import math

import numpy as np
import torch

__all__ = [
    "as_tensor",
    "split_heads",
    "concat_heads",
    "context_embeddings",
    "head_scores",
    "max_over_heads_scores",
    "softmax_sum_scores",
    "linear_sum_scores",
    "aggregate_scores",
    "predict_edges",
    "value_readout",
    "AGGREGATIONS",
]

AGGREGATIONS = ("max", "softmax-sum", "linear-sum")


def as_tensor(name: str, value, *, dtype: torch.dtype | None = None) -> torch.Tensor:
    """Convert an array-like to a floating tensor, rejecting NaN/inf with a ValueError naming ``name``."""
    if isinstance(value, torch.Tensor):
        t = value
    else:
        try:
            t = torch.as_tensor(np.asarray(value))
        except (TypeError, ValueError) as exc:
            raise ValueError(f"{name} must be a numeric array or tensor") from exc
    if dtype is not None:
        t = t.to(dtype)
    elif not t.is_floating_point():
        t = t.to(torch.get_default_dtype())
    if not bool(torch.isfinite(t).all()):
        raise ValueError(f"{name} must contain only finite values (no NaN or inf)")
    return t


def split_heads(W, n_heads: int) -> torch.Tensor:
    """``[..., d_model, D_K] -> [..., n_heads, d_model, d_k]``: head k owns columns k*d_k .. (k+1)*d_k - 1.

    Raises ValueError if D_K is not divisible by ``n_heads``.
    """
    W = as_tensor("W", W)
    if W.ndim < 2:
        raise ValueError(f"W must have shape [..., d_model, D_K], got {tuple(W.shape)}")
    if isinstance(n_heads, bool) or not isinstance(n_heads, (int, np.integer)) or n_heads < 1:
        raise ValueError(f"n_heads must be an integer >= 1, got {n_heads!r}")
    d_model, D_K = W.shape[-2], W.shape[-1]
    if D_K % n_heads:
        raise ValueError(f"D_K must be divisible by n_heads: D_K={D_K}, n_heads={n_heads}")
    d_k = D_K // n_heads
    return W.reshape(*W.shape[:-2], d_model, n_heads, d_k).movedim(-2, -3)  # [..., h, d_model, d_k]


def concat_heads(W) -> torch.Tensor:
    """Inverse of :func:`split_heads`: ``[..., h, d_model, d_k] -> [..., d_model, h*d_k]`` (App. C's W^cat)."""
    W = as_tensor("W", W)
    if W.ndim < 3:
        raise ValueError(f"W must have shape [..., n_heads, d_model, d_k], got {tuple(W.shape)}")
    h, d_model, d_k = W.shape[-3:]
    return W.movedim(-3, -2).reshape(*W.shape[:-3], d_model, h * d_k)


def context_embeddings(X, contexts) -> torch.Tensor:
    """Gather context embeddings X_C.

    Args:
        X: ``[m, d_model]`` or per-run ``[R, m, d_model]``.
        contexts: integer ``[..., ell]``; with per-run X it must be ``[R, ..., ell]``.
    Returns:
        ``[..., ell, d_model]`` (with the leading R when X has one).
    """
    X = as_tensor("X", X)
    idx = torch.as_tensor(np.asarray(contexts) if not isinstance(contexts, torch.Tensor) else contexts)
    if idx.is_floating_point():
        raise ValueError("contexts must be an integer array")
    idx = idx.long().to(X.device)
    m = X.shape[-2]
    if idx.numel() and (int(idx.min()) < 0 or int(idx.max()) >= m):
        raise ValueError(f"contexts must hold vertex ids in [0, {m - 1}]")
    if X.ndim == 2:
        return X[idx]
    if X.ndim == 3:
        R = X.shape[0]
        if idx.ndim < 2 or idx.shape[0] != R:
            raise ValueError(f"with per-run X of shape {tuple(X.shape)}, contexts must have shape [R={R}, ..., ell]")
        runs = torch.arange(R, device=X.device).reshape(R, *([1] * (idx.ndim - 1)))
        return X[runs, idx]
    raise ValueError(f"X must have shape [m, d_model] or [R, m, d_model], got {tuple(X.shape)}")


def head_scores(X_C, W_Q, W_K) -> torch.Tensor:
    """Per-head raw scores S^(k)[p, q] = (x_p W_Q^(k)) . (x_q W_K^(k)).

    Args:
        X_C: context embeddings ``[..., batch, ell, d_model]``.
        W_Q, W_K: ``[..., n_heads, d_model, d_k]``; leading dims broadcast with those of X_C before batch.
    Returns:
        ``[..., batch, n_heads, ell, ell]``.
    """
    X_C, W_Q, W_K = _check_qk(X_C, W_Q, W_K)
    q = torch.einsum("...bld,...hdk->...bhlk", X_C, W_Q)  # [..., B, h, ell, d_k]
    k = torch.einsum("...bld,...hdk->...bhlk", X_C, W_K)  # [..., B, h, ell, d_k]
    return q @ k.transpose(-1, -2)  # [..., B, h, ell, ell]


def max_over_heads_scores(X_C, W_Q, W_K) -> torch.Tensor:
    """S_max = max_k S^(k) (Sec. 3). Returns ``[..., batch, ell, ell]``."""
    return head_scores(X_C, W_Q, W_K).amax(dim=-3)


def softmax_sum_scores(X_C, W_Q, W_K) -> torch.Tensor:
    """A[p, q] = sum_k softmax over q in C of S^(k)[p, q] / sqrt(d_k) (Sec. 8, Eqs. (5)-(6)).

    Returns ``[..., batch, ell, ell]``; every row sums to n_heads.
    """
    S = head_scores(X_C, W_Q, W_K)
    d_k = W_Q.shape[-1]
    return torch.softmax(S / math.sqrt(d_k), dim=-1).sum(dim=-3)


def linear_sum_scores(X_C, W_Q, W_K) -> torch.Tensor:
    """S_lin = sum_k S^(k): the fully linear aggregation of the Sec. 3 remark. Returns ``[..., batch, ell, ell]``."""
    return head_scores(X_C, W_Q, W_K).sum(dim=-3)


def aggregate_scores(X_C, W_Q, W_K, aggregation: str) -> torch.Tensor:
    """Dispatch on ``aggregation`` in :data:`AGGREGATIONS`."""
    if aggregation == "max":
        return max_over_heads_scores(X_C, W_Q, W_K)
    if aggregation == "softmax-sum":
        return softmax_sum_scores(X_C, W_Q, W_K)
    if aggregation == "linear-sum":
        return linear_sum_scores(X_C, W_Q, W_K)
    raise ValueError(f"aggregation must be one of {', '.join(map(repr, AGGREGATIONS))}, got {aggregation!r}")


def predict_edges(scores, tau) -> torch.Tensor:
    """Edge decisions scores > tau.

    Args:
        scores: ``[..., batch, ell, ell]``.
        tau: a scalar, or one threshold per run ``[R]`` matching the leading run dimension of ``scores``.
    """
    scores = as_tensor("scores", scores)
    tau = as_tensor("tau", tau, dtype=scores.dtype).to(scores.device)
    if tau.ndim == 0:
        return scores > tau
    if tau.ndim != 1 or scores.ndim < 4 or scores.shape[0] != tau.shape[0]:
        raise ValueError(
            f"tau must be a scalar or have shape [R] matching scores' leading run dim; "
            f"got tau {tuple(tau.shape)} and scores {tuple(scores.shape)}"
        )
    return scores > tau.reshape(-1, *([1] * (scores.ndim - 1)))


def value_readout(S, X_C, W_V) -> torch.Tensor:
    """Predicted neighbour messages y_hat = S (X_C W_V) with raw scores as mixing weights (Sec. 7.2, Eq. (3)).

    Args:
        S: aggregated scores ``[..., batch, ell, ell]``.
        X_C: ``[..., batch, ell, d_model]``.
        W_V: ``[..., d_model, d_msg]``.
    Returns:
        ``[..., batch, ell, d_msg]``.
    """
    S = as_tensor("S", S)
    X_C = as_tensor("X_C", X_C)
    W_V = as_tensor("W_V", W_V)
    if W_V.ndim < 2 or W_V.shape[-2] != X_C.shape[-1]:
        raise ValueError(f"W_V must have shape [..., d_model={X_C.shape[-1]}, d_msg], got {tuple(W_V.shape)}")
    if S.shape[-1] != X_C.shape[-2] or S.shape[-2] != X_C.shape[-2]:
        raise ValueError(f"S must be [..., ell, ell] with ell={X_C.shape[-2]}, got {tuple(S.shape)}")
    V = torch.einsum("...bld,...dm->...blm", X_C, W_V)  # [..., B, ell, d_msg]
    return S @ V


def _check_qk(X_C, W_Q, W_K):
    X_C = as_tensor("X_C", X_C)
    W_Q = as_tensor("W_Q", W_Q, dtype=X_C.dtype)
    W_K = as_tensor("W_K", W_K, dtype=X_C.dtype)
    if X_C.ndim < 3:
        raise ValueError(f"X_C must have shape [..., batch, ell, d_model], got {tuple(X_C.shape)}")
    for name, W in (("W_Q", W_Q), ("W_K", W_K)):
        if W.ndim < 3:
            raise ValueError(f"{name} must have shape [..., n_heads, d_model, d_k], got {tuple(W.shape)}")
        if W.shape[-2] != X_C.shape[-1]:
            raise ValueError(f"{name} must have d_model={X_C.shape[-1]} rows per head, got {W.shape[-2]}")
    if W_Q.shape != W_K.shape:
        raise ValueError(f"W_Q and W_K must have the same shape, got {tuple(W_Q.shape)} and {tuple(W_K.shape)}")
    return X_C, W_Q, W_K
