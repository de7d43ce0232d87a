"""The stacked model: scores of every run of a :class:`~rgr_verify.engine.batch.Batch` at once, and the loss
gradient written out by hand (formulas in :func:`grads`, tested against autograd on the reference scoring
functions of :mod:`rgr_verify.core.scoring`).

App. A.1: S^(k) = (X_C W_Q^(k))(X_C W_K^(k))^T; S_max = max_k S^(k); predict (p -> q) iff S_max > tau; loss
(1/ell^2) sum_{p,q} [softplus(-z) y w_+ + softplus(z)(1 - y)], z = alpha (S_max - tau), w_+ = ell - 1
(permutations) or #neg/#pos per context (r-regular, Eq. (30)). Sec. 7.1: S = sum_k softmax_q(S^(k) / sqrt(d_k)).
Sec. 7.2: y_hat = S_max X_C W_V, MSE Eq. (4) over valid positions.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import torch
import torch.nn.functional as F

if TYPE_CHECKING:
    from .batch import Batch

__all__ = ["GradBuffers", "qk", "head_scores", "aggregate", "scores", "pos_weight", "logistic_coefs", "grads",
           "grad_max_step"]


@dataclass
class GradBuffers:
    """Per-step buffers of the gradient: ``grad [R, P]`` (like theta), ``gtau [R]``, and a 0-dim one. Allocated
    for a batch's rows before any CUDA graph capture, and again whenever the rows change."""

    grad: torch.Tensor
    gtau: torch.Tensor
    one: torch.Tensor
    # (theta, W [R, d, 2 H d_k] and tau [R, 1, 1] views of theta, the same views of grad, grad's tau column):
    # the views :func:`grad_max_step` reads every step, made once per theta (views only, no storage)
    views: tuple | None = None

    @classmethod
    def like(cls, theta: torch.Tensor) -> "GradBuffers":
        """Buffers for the parameter buffer ``theta [R, P]`` (its dtype and device)."""
        if not isinstance(theta, torch.Tensor) or theta.ndim != 2:
            raise ValueError(f"theta must be a [R, P] tensor, got {getattr(theta, 'shape', type(theta).__name__)}")
        return cls(torch.empty_like(theta), theta.new_empty(theta.shape[0]),
                   torch.ones((), device=theta.device, dtype=theta.dtype))

    def views_of(self, b: "Batch") -> tuple:
        """(W, tau, grad W, grad tau) views of ``b.theta`` and ``self.grad``: W ``[R, d, 2 H d_k]``, tau
        ``[R, 1, 1]``, grad tau ``[R]`` (made on the first call for this theta)."""
        theta = b.theta
        if self.views is None or self.views[0] is not theta:
            R, n = theta.shape[0], b.d * 2 * b.H * b.d_k_pad
            self.views = (theta, theta[:, :-1].view(R, b.d, n // b.d), theta[:, -1].view(R, 1, 1),
                          self.grad[:, :-1].view(R, b.d, n // b.d), self.grad[:, -1])
        return self.views[1:]


def qk(b: "Batch", Xc: torch.Tensor):
    """``Xc [R, B, ell, d] -> Q, K [R, B, H, ell, d_k]``."""
    R, B, ell, d = Xc.shape
    QK = (Xc.reshape(R, B * ell, d) @ b.theta[:, :-1].view(R, d, -1)).view(R, B, ell, 2, b.H, b.d_k_pad)
    return QK[:, :, :, 0].transpose(2, 3), QK[:, :, :, 1].transpose(2, 3)


def head_scores(b: "Batch", Q, K):
    """Per-head scores ``[R, B, H, ell, ell]``: softmax probabilities (Sec. 7.1), else raw scores with padded
    heads at -inf."""
    S = Q @ K.transpose(-1, -2)  # [R, B, H, ell, ell]
    if b.c0.variant == "softmax":
        return torch.softmax(S * b.inv_sqrt_dk[:, None, None, None, None], dim=-1)
    if not b.uniform_heads:
        S = S.masked_fill(~b.headmask[:, None, :, None, None], float("-inf"))
    return S


def aggregate(b: "Batch", S):
    """Per-head scores -> aggregated scores, and whether the max's gradient mask is needed."""
    if b.c0.variant == "softmax":
        A = S if b.uniform_heads else S * b.headmask[:, None, :, None, None]
        return A.sum(2), None
    if b.H == 1:
        return S[:, :, 0], None
    return S.amax(2), True


def scores(b: "Batch", Xc: torch.Tensor) -> torch.Tensor:
    """``Xc [R, B, ell, d] -> S [R, B, ell, ell]`` for the batch's variant."""
    Q, K = qk(b, Xc)
    return aggregate(b, head_scores(b, Q, K))[0]


def pos_weight(b: "Batch", yf: torch.Tensor) -> torch.Tensor:
    """w_+ per context ``[R, n]`` from labels ``yf [R, n, ell, ell]`` (float)."""
    ell = yf.shape[-1]
    if b.c0.pos_weight_mode == "ell-1":
        return torch.full(yf.shape[:2], float(ell - 1), device=b.device, dtype=b.dtype)
    npos = yf.sum((-1, -2))
    return torch.where(npos > 0, (ell * ell - npos) / npos.clamp_min(1.0), torch.zeros_like(npos))


def logistic_coefs(b: "Batch", y: torch.Tensor, n_contexts: int | None = None
                   ) -> tuple[torch.Tensor, torch.Tensor]:
    """(A, -B) with dL/dS_agg = sigmoid(z) A - B for contexts with labels ``y [R, n, ell, ell]`` when the
    loss averages over ``n_contexts`` contexts (default n): A = alpha (1 - y + y w_+) / (ell^2 n_contexts),
    B = alpha y w_+ / (ell^2 n_contexts)."""
    ell, nb = y.shape[-1], n_contexts or y.shape[1]
    scale = b.c0.alpha / (ell * ell * nb)
    # A label is 0 or 1, so each coefficient takes one of two values per context: those values are computed by the
    # formulas' very operations (y w_+ as yf * w, then 1 - yf + y w_+, then the scalings), on yf = 0 and 1 only,
    # and placed by the labels; elementwise, so every entry is bitwise what the formulas give on the full tensor.
    yf = (y.to(b.dtype) if b.c0.pos_weight_mode != "ell-1"  # ell - 1 reads only the shape: no copy
          else torch.zeros((), device=b.device, dtype=b.dtype).expand(y.shape))
    two = torch.arange(2, device=b.device, dtype=b.dtype)  # the two label values, 0 and 1 (made on the device)
    yw = two * pos_weight(b, yf)[..., None]  # [R, n, 2]
    A, negB = (1 - two + yw) * scale, yw * (-scale)
    return (torch.where(y, A[..., 1, None, None], A[..., 0, None, None]),
            torch.where(y, negB[..., 1, None, None], negB[..., 0, None, None]))


def grads(b: "Batch", bufs: GradBuffers, Xc: torch.Tensor, y: torch.Tensor, *, with_loss: bool = True, coef=None
          ) -> tuple[torch.Tensor | None, torch.Tensor]:
    """Per-run loss ``[R]`` (mean over the B contexts) and its gradient ``[R, P]`` w.r.t. theta (written into
    ``bufs.grad``, which is returned).

    Logistic variants: z = alpha (S - tau), dL/dz = (sigmoid(z)(1 - y) - sigmoid(-z) y w_+) / (ell^2 B)
    = (sigmoid(z)(1 - y + y w_+) - y w_+) / (ell^2 B), dL/dtau = -alpha sum dL/dz.
    Max: dL/dS^(k) = alpha dL/dz [k = argmax]. Softmax:
    dL/dS^(k) = A^(k) (g - sum_q g A^(k)) / sqrt(d_k) with g = alpha dL/dz. Value: with V = X_C W_V and
    e = S_max V - y V, dL/dS_max = 2 [valid] e V^T / (n_valid B). Then dQ^(k) = dS^(k) K^(k),
    dK^(k) = dS^(k)^T Q^(k), dW = X_C^T [dQ, dK].
    """
    R, B, ell, d = Xc.shape
    Q, K = qk(b, Xc)
    Sh = head_scores(b, Q, K)
    Sagg, arg = aggregate(b, Sh)
    yf = y.to(b.dtype)
    grad_tau = None
    if b.c0.variant == "value":
        V = Xc @ b.W_V[:, None]  # [R, B, ell, d_msg]
        err = Sagg @ V - yf @ V  # [R, B, ell, d_msg]
        valid = y.any(-1).to(b.dtype)  # [R, B, ell]
        nvalid = valid.sum(-1).clamp_min(1.0)  # [R, B]
        loss = (((err**2).sum(-1) * valid).sum(-1) / nvalid).mean(1) if with_loss else None
        g = (err * (2.0 * valid / (nvalid[..., None] * B))[..., None]) @ V.transpose(-1, -2)  # dL/dS_max
    else:
        if coef is None:
            coef = logistic_coefs(b, y)
        A, negB = coef
        z = (Sagg - b.tau[:, None, None, None]).mul_(b.c0.alpha)
        if with_loss:
            w = pos_weight(b, yf)[..., None, None]
            loss = (F.softplus(-z) * yf * w + F.softplus(z) * (1 - yf)).mean((-1, -2)).mean(1)
        else:
            loss = None
        g = torch.addcmul(negB, torch.sigmoid(z), A)  # dL/dS_agg = alpha dL/dz
        grad_tau = -g.sum((1, 2, 3))  # [R]
    if b.c0.variant == "softmax":
        A = Sh  # softmax probabilities [R, B, H, ell, ell]
        gh = g[:, :, None]
        dS = A * (gh - (gh * A).sum(-1, keepdim=True)) * b.inv_sqrt_dk[:, None, None, None, None]
        if not b.uniform_heads:
            dS = dS * b.headmask[:, None, :, None, None]
    elif arg is None:
        dS = g[:, :, None]
    else:  # the max's gradient goes to the head(s) attaining it (ties have probability zero)
        dS = g[:, :, None] * (Sh == Sagg[:, :, None])
    dQ = dS @ K  # [R, B, H, ell, d_k_pad]
    dK = dS.transpose(-1, -2) @ Q
    dQK = torch.stack((dQ, dK), dim=3)  # [R, B, H, 2, ell, d_k_pad]
    dQK = dQK.permute(0, 1, 4, 3, 2, 5).reshape(R, B * ell, -1)  # [R, B*ell, 2*H*d_k_pad]
    grad = bufs.grad
    torch.matmul(Xc.reshape(R, B * ell, d).transpose(1, 2), dQK, out=grad[:, :-1].view(R, d, -1))
    if grad_tau is None:
        grad[:, -1] = 0
    else:
        grad[:, -1] = grad_tau
    return loss, grad


def grad_max_step(b: "Batch", bufs: GradBuffers, Xc: torch.Tensor, A: torch.Tensor, negB: torch.Tensor
                  ) -> torch.Tensor:
    """:func:`grads` for the max variant and one context per run (``Xc [R, ell, d]``, coefficients
    ``[R, ell, ell]``), without the loss: the same formulas with 3-D bmm and head-major copies made once.
    Returns ``bufs.grad``.

    Bitwise the arithmetic of :func:`grads` in the same order; only the bookkeeping is cheaper: the views of theta
    and grad are made once per theta (:meth:`GradBuffers.views_of`), the max's mask heaviside(Sh - S) (1 where
    Sh - S >= 0 or = 0, 0 where < 0 or NaN) is the same 0/1 values as ``ge_(0)`` (a vectorised kernel; heaviside's
    is not), and -sum(g) is written into grad's tau column directly."""
    R, ell, d = Xc.shape
    H, d_k_pad = b.H, b.d_k_pad
    W, tau, gW, gtau = bufs.views_of(b)
    QK = torch.bmm(Xc, W).view(R, ell, 2, H, d_k_pad)
    # Head-major copies: Q [R H, ell, d_k_pad] and K^T [R H, d_k_pad, ell] (contiguous operands keep bmm on its fast path).
    Q = QK[:, :, 0].transpose(1, 2).reshape(R * H, ell, d_k_pad)
    KT = QK[:, :, 1].permute(0, 2, 3, 1).reshape(R * H, d_k_pad, ell)
    Sh = torch.bmm(Q, KT)  # [R H, ell, ell]
    if H == 1:
        S = Sh.view(R, ell, ell)
    else:
        Sh = Sh.view(R, H, ell, ell)
        if not b.uniform_heads:
            Sh = Sh.masked_fill(~b.headmask[:, :, None, None], float("-inf"))
        S = Sh.amax(1)  # [R, ell, ell]
    g = torch.addcmul(negB, torch.sigmoid((S - tau).mul_(b.c0.alpha)), A)
    if H == 1:
        dS = g
    else:  # the gradient goes to the head(s) attaining the max: g [Sh == S], as g * (Sh - S >= 0)
        dS = torch.sub(Sh, S[:, None]).ge_(0).mul_(g[:, None]).view(R * H, ell, ell)
    dQ = torch.bmm(dS, KT.transpose(1, 2)).view(R, H, ell, d_k_pad)
    dK = torch.bmm(dS.transpose(1, 2), Q).view(R, H, ell, d_k_pad)
    dQK = torch.stack((dQ, dK), dim=1).permute(0, 3, 1, 2, 4).reshape(R, ell, 2 * H * d_k_pad)
    gW.copy_(torch.bmm(Xc.transpose(1, 2), dQK))
    torch.sum(g, (1, 2), out=bufs.gtau)
    torch.neg(bufs.gtau, out=gtau)
    return bufs.grad
