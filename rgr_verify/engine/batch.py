"""The stacked state of a batch: runs of one shape key along a leading run dimension R.

All trainable parameters of a run live in one row of a flat buffer ``theta [R, P]`` with
``P = 2 H d_model d_k_max + 1``: ``W [R, d_model, 2, H, d_k_max]`` (index 0 = W_Q, 1 = W_K; head k of a run is
column block k of the paper's W in R^{d_model x D_K}; TransformerLens layout) followed by tau. Padding (heads
beyond a run's h, columns beyond its d_k) starts at exactly zero and receives exactly zero gradient
(:mod:`~rgr_verify.engine.model`), so it stays zero. Runs of different m and d_model share the batch through zero
padding of the neighbour and embedding tables. A head mask keeps padded heads out of the max/sum.
"""

from __future__ import annotations

import copy
import math
from typing import Sequence

import numpy as np
import torch

from .config import RunConfig
from .sampler import build_run_data, contexts_from_uniforms, draw_uniforms, labels_torch, pair_counts

__all__ = ["Batch"]


class Batch:
    """Runs of one :meth:`~rgr_verify.engine.config.RunConfig.compat_key`, stacked: tables, fixed validation and
    test contexts, parameters, masks, and which runs are still in the batch (``alive``: original indices of the
    rows). Every attribute is created here; :meth:`keep` replaces the row-indexed ones (never in place)."""

    def __init__(self, runs: Sequence[tuple[RunConfig, int]], *, device: str | torch.device, dtype: torch.dtype):
        runs = list(runs)
        if not runs:
            raise ValueError("runs must hold at least one (RunConfig, seed) pair, got none")
        self.configs = [c for c, _ in runs]
        self.seeds = [int(s) for _, s in runs]
        c0 = self.configs[0]
        if any(c.compat_key() != c0.compat_key() for c in self.configs):
            raise ValueError("runs of one batch must share RunConfig.compat_key()")
        self.c0 = c0
        self.device = torch.device(device)
        self.dtype = dtype
        self.data = [build_run_data(c, s) for c, s in runs]
        R = len(runs)
        self.H = H = max(c.n_heads for c in self.configs)
        self.d_k_pad = d_k_pad = max(c.d_k for c in self.configs)  # padded per-head width (not D_K)
        self.d = d = max(c.d_model for c in self.configs)
        m_max = max(c.m for c in self.configs)
        kw = dict(device=self.device, dtype=dtype)
        # Runs of different m and d_model share the batch through zero padding: padded table rows are never
        # indexed, and padded embedding coordinates are zero, so the matching W rows get zero gradient.
        nb = np.zeros((R, m_max, c0.r), dtype=np.int64)
        Xp = np.zeros((R, m_max, d))
        for j, (c, dd) in enumerate(zip(self.configs, self.data)):
            nb[j, :c.m] = dd.nbrs
            Xp[j, :c.m, :c.d_model] = dd.X
        self.nbrs = torch.as_tensor(nb, device=self.device)  # [R, m_max, r]
        self.X = torch.as_tensor(Xp, **kw)  # [R, m_max, d_max]
        self.m_run = torch.as_tensor([c.m for c in self.configs], device=self.device)  # [R]
        # Validation and test contexts of all runs in vectorised calls (same contexts as dd.val / dd.test). Runs
        # with the same (m, seed) have the same graph and the same validation and test streams (a seed's spawned
        # streams do not depend on h, d_k or d_model; the protocol fields are shared by the batch), hence the same
        # contexts, labels and pair counts: these are computed once per distinct (m, seed) and indexed out. They
        # are integers (counts exact in float64) and every operation is row by row, so the result is bitwise that
        # of computing every row (tested).
        first: dict[tuple[int, int], int] = {}
        for j, (c, s) in enumerate(zip(self.configs, self.seeds)):
            first.setdefault((c.m, s), j)
        uniq = list(first.values())
        pos = {key: i for i, key in enumerate(first)}
        inv = torch.as_tensor([pos[(c.m, s)] for c, s in zip(self.configs, self.seeds)], device=self.device)
        u_nbrs, u_m = self.nbrs[uniq], self.m_run[uniq]
        m_min = min(c.m for c in self.configs)

        def contexts(seeds, n):  # [U, n, ell] for the distinct runs
            return contexts_from_uniforms(u_nbrs, *draw_uniforms(
                [np.random.default_rng(seeds[j]) for j in uniq], n, m_min, c0.ell, device=self.device),
                rho=c0.rho, m=u_m, protected=c0.sampler == "protected")

        u_val = contexts([dd.val_seed for dd in self.data], c0.n_val)
        u_test = contexts([dd.test_seed for dd in self.data], c0.n_test)
        spread = (lambda t: t) if len(uniq) == R else (lambda t: t.index_select(0, inv).contiguous())
        self.val, self.test = spread(u_val), spread(u_test)  # [R, n_val, ell], [R, n_test, ell]
        self.val_y = spread(labels_torch(u_nbrs, u_val))  # [R, n_val, ell, ell], fixed
        # Max variant: a context set enters the metric only through its ordered vertex-pair counts, split by label
        # (fixed per run; see sampler.pair_counts); used when the tables are smaller than the sets.
        self.val_pairs: torch.Tensor | None = None  # [R, 2, m_max^2]
        self.test_pairs: torch.Tensor | None = None
        if c0.variant == "max" and m_max * m_max * 4 <= c0.n_val * c0.ell * c0.ell:
            self.val_pairs = spread(pair_counts(u_nbrs, u_val))
            self.test_pairs = spread(pair_counts(u_nbrs, u_test))
        theta = np.zeros((R, d, 2, H, d_k_pad))
        headmask = np.zeros((R, H), dtype=bool)
        for j, (c, dd) in enumerate(zip(self.configs, self.data)):
            theta[j, :c.d_model, 0, :c.n_heads, :c.d_k] = dd.W_Q.reshape(c.d_model, c.n_heads, c.d_k)
            theta[j, :c.d_model, 1, :c.n_heads, :c.d_k] = dd.W_K.reshape(c.d_model, c.n_heads, c.d_k)
            headmask[j, :c.n_heads] = True
        flat = np.concatenate([theta.reshape(R, -1), np.zeros((R, 1))], axis=1)  # tau = 0 at start
        self.theta = torch.as_tensor(flat, **kw).contiguous()
        self.headmask = torch.as_tensor(headmask, device=self.device)
        self.uniform_heads = bool(self.headmask.all())
        self.inv_sqrt_dk = torch.as_tensor([1.0 / math.sqrt(c.d_k) for c in self.configs], **kw)
        self.W_V: torch.Tensor | None = None
        if c0.variant == "value":  # [R, d_max, d_msg_max], frozen; zero padding adds nothing to the MSE
            dm = max(c.message_dim for c in self.configs)
            WV = np.zeros((R, d, dm))
            for j, (c, dd) in enumerate(zip(self.configs, self.data)):
                WV[j, :c.d_model, :c.message_dim] = dd.W_V
            self.W_V = torch.as_tensor(WV, **kw)
        self.alive = list(range(R))  # original indices of the rows still in the batch

    @property
    def W(self) -> torch.Tensor:
        """``[R, d_model, 2, H, d_k_max]`` view of theta."""
        R = self.theta.shape[0]
        return self.theta[:, :-1].view(R, self.d, 2, self.H, self.d_k_pad)

    @property
    def tau(self) -> torch.Tensor:
        """The learned thresholds ``[R]`` (a view of theta's last column)."""
        return self.theta[:, -1]

    def embed(self, ctx: torch.Tensor) -> torch.Tensor:
        """Each run's embeddings of its contexts: ``ctx [R, B, ell] -> X_C [R, B, ell, d_model]``."""
        runs = torch.arange(ctx.shape[0], device=ctx.device).reshape(-1, *([1] * (ctx.ndim - 1)))
        return self.X[runs, ctx]  # [R, B, ell, d]

    def keep(self, rows: Sequence[int]) -> torch.Tensor:
        """Stop mask: keep only batch rows ``rows`` (finished runs leave and their parameters freeze). Returns the
        rows as a long tensor on the device, for the state that other objects hold per row."""
        idx = torch.as_tensor(list(rows), dtype=torch.long, device=self.device)
        for name in ("nbrs", "X", "m_run", "val", "val_y", "test", "headmask", "inv_sqrt_dk", "theta"):
            setattr(self, name, getattr(self, name)[idx].contiguous())
        if self.val_pairs is not None:
            self.val_pairs = self.val_pairs[idx].contiguous()
            self.test_pairs = self.test_pairs[idx].contiguous()
        if self.W_V is not None:
            self.W_V = self.W_V[idx]
        self.alive = [self.alive[i] for i in rows]
        self.uniform_heads = bool(self.headmask.all())
        return idx

    def subset(self, rows: Sequence[int]) -> "Batch":
        """A shallow copy holding only ``rows`` (for evaluating finished runs without disturbing the batch)."""
        other = copy.copy(self)
        other.keep(rows)
        return other

    def weights_of(self, row: int) -> dict:
        """Row ``row``'s W_Q, W_K as ``[d_model, D_K]`` float64 arrays and its tau."""
        cfg = self.configs[self.alive[row]]
        W = self.W[row].double().cpu().numpy()  # [d, 2, H, d_k_pad]
        out = {name: W[:cfg.d_model, k, :cfg.n_heads, :cfg.d_k].reshape(cfg.d_model, cfg.D_K)
               for k, name in enumerate(("W_Q", "W_K"))}
        out["tau"] = float(self.tau[row])
        return out
