"""Batched trainer for the App. A.1 protocol and its Sec. 7.1 / Sec. 7.2 / App. A.3 variants.

A *run* is a (:class:`RunConfig`, seed) pair. Everything random about a run comes from its seed through
``SeedSequence(seed).spawn``: the graph (permutation, App. A.1, or r-regular, App. A.3), the frozen unit-norm
Gaussian embeddings, the 500 validation and 2000 test contexts, the initial W_Q, W_K (and the frozen W_V of
Sec. 7.2) and the training stream (one context per optimisation step). Many runs are stacked along a leading
run dimension R and trained by one program:

* parameters ``W_Q, W_K: [R, H, d_model, d_k_max]`` (TransformerLens layout) with a column mask for runs whose
  d_k is smaller than the batch's and a head mask for runs with fewer heads, ``tau: [R]``;
* a hand-written AdamW over the stacked tensors, operation for operation the single-tensor
  ``torch.optim.AdamW`` (lerp, addcmul, sqrt / sqrt(bias correction 2) + eps, addcdiv), so that each run's slice
  is updated exactly as its own optimiser would update it;
* a stop mask: at every check (every 500 steps) finished runs leave the batch, so their parameters freeze.

Because every per-run quantity (data, initialisation, loss, gradient, update) only touches the run's own slice,
a run's result does not depend on which runs share its batch (tested against solo runs in float64).

Device: the uniforms that drive context sampling come from the per-run numpy generators on the host (so a run's
data do not depend on its batch or the device); the next 500-step segment's block is drawn in a background
thread while the current segment trains and copied to the device once per segment. Everything after them
(sampling, labels, gradients, AdamW, evaluation) is tensor code and runs on ``device="cuda"`` unchanged. On CUDA
the max variant's step reads its step-dependent AdamW scalars from device tables indexed by a device step counter
(:func:`_stacked_adamw_step_on_device`; bitwise equal to :func:`stacked_adamw_step` on CPU, tested), so a
100-step chunk is captured in a ``torch.cuda.CUDAGraph`` once per set of rows (after one eager warm-up chunk) and
replayed for the following chunks (graphs and eager launch the same kernels; ``RGR_VERIFY_CUDA_GRAPHS=0`` turns
graphs off, and a failed capture warns once and falls back to eager).
Between two checks the host never waits for the device: it copies the uniforms in at the start of a segment
(the stream is idle then) and the metrics out at each check; besides, each capture (once per chunk length and set
of rows) synchronises, and so does the test evaluation of runs that finish. Softmax and value variants run
eagerly. There is no fused optimiser kernel. None of the CUDA code has been run: no GPU was available when it was
written (the GPU tests in ``empirical/test_engine.py`` are marked ``gpu``).

Protocol (App. A.1): S^(k) = (X_C W_Q^(k))(X_C W_K^(k))^T; S_max = max_k S^(k); predict (p -> q) iff
S_max > tau; loss (1/ell^2) sum_{p,q} [softplus(-z) y w_+ + softplus(z)(1 - y)], z = alpha (S_max - tau),
w_+ = ell - 1 (permutations) or #neg/#pos per context (r-regular, Eq. (30)); AdamW(lr 1e-3, wd 0); validation
micro-F1 every 500 steps, stop after 5 consecutive checks > 0.995, step cap from Table 2; test micro-F1 with
the single learned tau. Sec. 7.1: S = sum_k softmax_q(S^(k) / sqrt(d_k)). Sec. 7.2: y_hat = S_max X_C W_V,
MSE Eq. (4) over valid positions, early stopping on validation MSE.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import math
import os
import warnings
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import nullcontext
from dataclasses import dataclass
from typing import Callable, Iterable, Sequence

import numpy as np
import torch
import torch.nn.functional as F

from ._checks import check_choice, check_int, check_probability, check_real
from .embeddings import gaussian_unit_norm_embeddings
from .graphs import Digraph, random_permutation_graph, random_regular_graph

__all__ = [
    "ENGINE_VERSION",
    "EQUIVALENT_ENGINE_VERSIONS",
    "RunConfig",
    "RunResult",
    "VARIANTS",
    "INITS",
    "run_key",
    "build_run_data",
    "sample_contexts_torch",
    "contexts_from_uniforms",
    "draw_uniforms",
    "labels_torch",
    "stacked_adamw_step",
    "cuda_graphs_enabled",
    "train_runs",
    "plan_batches",
]

# The semantic engine version: store keys include it, so records made by an engine that computes something else
# are never replayed. Bump it (and regenerate the evidence) whenever a change alters what a run computes: its
# data, initialisation, loss, optimiser, stopping rule or metrics. A refactor that leaves the results unchanged
# keeps it; the golden re-execution test (empirical/test_golden.py) retrains a sample of the stored evidence
# and fails until the version is bumped when the results move.
ENGINE_VERSION = "7"

# Earlier version strings whose records this engine reproduces (shown by the golden re-execution test against
# the records they produced), so their records replay under ENGINE_VERSION. "6-4c5541e7dfe3" is the
# source-hash key of commit c2c2b00, under which the full presets were first run on an H100.
EQUIVALENT_ENGINE_VERSIONS = ("6-4c5541e7dfe3",)

VARIANTS = ("max", "softmax", "value")
INITS = ("std", "variance")
_BETAS = (0.9, 0.999)
_EPS = 1e-8


@dataclass(frozen=True)
class RunConfig:
    """One training configuration (without its seed). Defaults are the App. A.1 protocol."""

    m: int  # number of items (vertices)
    d_model: int  # embedding dimension
    n_heads: int  # h
    d_head: int  # d_k; D_K = n_heads * d_head
    variant: str = "max"  # "max" (Sec. 6 / App. A.1), "softmax" (Sec. 7.1), "value" (Sec. 7.2)
    graph: str = "permutation"  # "permutation" (App. A.1) or "regular" (App. A.3)
    r: int = 1  # out-degree of the regular graph (1 for permutations)
    ell: int = 16  # context length
    rho: float = 0.5  # target-in-context rate
    alpha: float = 10.0  # logit sharpness
    lr: float = 1e-3  # AdamW learning rate
    weight_decay: float = 0.0  # AdamW weight decay
    max_steps: int = 20000  # step cap (Table 2)
    check_every: int = 500  # validation interval (steps)
    patience: int = 5  # consecutive passing (or non-improving, for "value") checks before stopping
    stop_f1: float = 0.995  # validation micro-F1 a check must exceed
    n_val: int = 500  # validation contexts
    n_test: int = 2000  # test contexts
    init: str = "std"  # "std": W ~ N(0, std^2 = 1/d_model); "variance": W ~ N(0, var = 1/sqrt(d_model))
    posweight: str = "auto"  # "auto" (ell-1 for permutation, neg/pos for regular), "ell-1", "neg/pos"
    d_msg: int = 0  # message dimension of the Sec. 7.2 value map (0: d_model)

    def __post_init__(self):
        check_int("m", self.m, min_value=2)
        check_int("d_model", self.d_model, min_value=1)
        check_int("n_heads", self.n_heads, min_value=1)
        check_int("d_head", self.d_head, min_value=1)
        check_choice("variant", self.variant, VARIANTS)
        check_choice("graph", self.graph, ("permutation", "regular"))
        check_int("r", self.r, min_value=1, max_value=self.m - 1)
        if self.graph == "permutation" and self.r != 1:
            raise ValueError(f"r must be 1 for permutation graphs, got {self.r}")
        check_int("ell", self.ell, min_value=2, max_value=self.m)
        check_probability("rho", self.rho)
        check_real("alpha", self.alpha, low=0, low_open=True)
        check_real("lr", self.lr, low=0, low_open=True)
        check_real("weight_decay", self.weight_decay, low=0)
        check_int("check_every", self.check_every, min_value=1)
        check_int("max_steps", self.max_steps, min_value=self.check_every)
        check_int("patience", self.patience, min_value=1)
        check_probability("stop_f1", self.stop_f1)
        check_int("n_val", self.n_val, min_value=1)
        check_int("n_test", self.n_test, min_value=1)
        check_choice("init", self.init, INITS)
        check_choice("posweight", self.posweight, ("auto", "ell-1", "neg/pos"))
        check_int("d_msg", self.d_msg, min_value=0)

    @property
    def D_K(self) -> int:
        """Total key dimension h * d_k."""
        return self.n_heads * self.d_head

    @property
    def pos_weight_mode(self) -> str:
        if self.posweight != "auto":
            return self.posweight
        return "ell-1" if self.graph == "permutation" else "neg/pos"

    @property
    def message_dim(self) -> int:
        return self.d_msg or self.d_model

    @property
    def init_std(self) -> float:
        """Standard deviation of the W_Q, W_K entries under the chosen reading of "N(0, 1/sqrt(d_model))"."""
        return 1.0 / math.sqrt(self.d_model) if self.init == "std" else self.d_model ** -0.25

    def to_dict(self) -> dict:
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}

    @classmethod
    def from_dict(cls, data: dict) -> "RunConfig":
        names = {f.name for f in dataclasses.fields(cls)}
        return cls(**{k: v for k, v in data.items() if k in names})

    def compat_key(self) -> tuple:
        """Runs with equal keys can share one batch: m, d_model, h and d_k may differ (zero padding)."""
        return (self.variant, self.graph, self.r, self.ell, self.rho, self.alpha, self.lr, self.weight_decay,
                self.check_every, self.n_val, self.n_test, self.pos_weight_mode)

    def shape_key(self) -> tuple:
        """The batch planner's grouping: :meth:`compat_key` plus d_model, kept apart because padding it would
        inflate the dominant X_C W product (m is padded for free)."""
        return self.compat_key() + (self.d_model,)


@dataclass(frozen=True)
class RunResult:
    """Outcome of one run. ``metric`` is test micro-F1 (max/softmax) or test MSE (value)."""

    config: RunConfig
    seed: int
    metric: float  # test micro-F1, or test MSE for the value variant
    steps: int  # optimisation steps taken
    stopped_early: bool  # True when the early-stopping rule fired before the cap
    tau: float  # learned threshold
    val_history: tuple  # validation metric at every check
    extra: dict = dataclasses.field(default_factory=dict)  # test TP/FP/FN or test MSE components

    def to_record(self) -> dict:
        return {"config": self.config.to_dict(), "seed": int(self.seed), "metric": float(self.metric),
                "steps": int(self.steps), "stopped_early": bool(self.stopped_early), "tau": float(self.tau),
                "val_history": [float(v) for v in self.val_history], "extra": dict(self.extra),
                "engine_version": ENGINE_VERSION}


def run_key(config: RunConfig, seed: int) -> str:
    """Store key: sha256 of (config, seed, engine version)."""
    payload = json.dumps({"config": config.to_dict(), "seed": int(seed), "v": ENGINE_VERSION}, sort_keys=True)
    return hashlib.sha256(payload.encode()).hexdigest()[:32]


# --------------------------------------------------------------------------------------------------------------
# Per-run data


@dataclass
class _RunData:
    """Frozen per-run tensors (numpy, float64) and the run's generators."""

    config: RunConfig
    graph: Digraph
    nbrs: np.ndarray  # [m, r] out-neighbours
    X: np.ndarray  # [m, d_model] embeddings
    val_seed: np.random.SeedSequence  # the validation contexts' stream
    test_seed: np.random.SeedSequence  # the test contexts' stream
    W_Q: np.ndarray  # [d_model, D_K] initial
    W_K: np.ndarray  # [d_model, D_K] initial
    W_V: np.ndarray | None  # [d_model, d_msg] frozen value map (variant "value")
    stream: np.random.Generator  # training-context stream

    @property
    def val(self) -> np.ndarray:
        """The fixed validation contexts ``[n_val, ell]`` (a batch draws the same ones, vectorised)."""
        return _sample_numpy(self.nbrs, self.config.n_val, self.config, np.random.default_rng(self.val_seed))

    @property
    def test(self) -> np.ndarray:
        """The fixed test contexts ``[n_test, ell]``."""
        return _sample_numpy(self.nbrs, self.config.n_test, self.config, np.random.default_rng(self.test_seed))


def _neighbour_table(graph: Digraph) -> np.ndarray:
    adj = graph.adjacency
    r = int(adj.sum(1).max())
    # Rows of a regular graph have exactly r ones; argsort puts them first, in increasing vertex order.
    return np.argsort(~adj, axis=1, kind="stable")[:, :r].astype(np.int64)


def build_run_data(config: RunConfig, seed: int) -> _RunData:
    """Build a run's graph, embeddings, validation/test contexts, initial weights and stream from its seed."""
    if not isinstance(config, RunConfig):
        raise ValueError(f"config must be a RunConfig, got {type(config).__name__}")
    seed = check_int("seed", seed, min_value=0, max_value=2**63 - 1)
    ss_graph, ss_emb, ss_val, ss_test, ss_init, ss_stream, ss_value = np.random.SeedSequence(seed).spawn(7)
    g_rng = np.random.default_rng(ss_graph)
    if config.graph == "permutation":
        graph = random_permutation_graph(config.m, rng=g_rng)
    else:
        graph = random_regular_graph(config.m, config.r, rng=g_rng)
    nbrs = _neighbour_table(graph)
    X = gaussian_unit_norm_embeddings(config.m, config.d_model, rng=np.random.default_rng(ss_emb))
    i_rng = np.random.default_rng(ss_init)
    W_Q = i_rng.standard_normal((config.d_model, config.D_K)) * config.init_std
    W_K = i_rng.standard_normal((config.d_model, config.D_K)) * config.init_std
    W_V = None
    if config.variant == "value":
        # Frozen random value map with i.i.d. N(0, 1/d_model) entries, so ||y_i|| is about sqrt(d_msg/d_model).
        W_V = np.random.default_rng(ss_value).standard_normal((config.d_model, config.message_dim)) / math.sqrt(
            config.d_model)
    return _RunData(config, graph, nbrs, X, ss_val, ss_test, W_Q, W_K, W_V, np.random.default_rng(ss_stream))


def _sample_numpy(nbrs: np.ndarray, n: int, config: RunConfig, rng: np.random.Generator) -> np.ndarray:
    u = draw_uniforms([rng], n, config.m, config.ell)
    t_nbrs = torch.as_tensor(nbrs)[None]
    return contexts_from_uniforms(t_nbrs, *u, rho=config.rho)[0].numpy()


# --------------------------------------------------------------------------------------------------------------
# Batched context sampler (App. A.1 / A.3), driven by per-run uniforms


def draw_uniforms(gens: Sequence[np.random.Generator], n: int, m: int, ell: int,
                  device: str | torch.device = "cpu") -> tuple[torch.Tensor, ...]:
    """The uniforms that drive ``n`` contexts per run, one numpy generator per run (batch-invariant).

    Returns float64 tensors ``u_set``, ``u_bern``, ``u_order``, ``u_slot``, ``u_tgt``, each ``[R, n, ell]``
    (``m`` is only validated: step 1 needs ell uniforms).
    """
    n = check_int("n", n, min_value=1)
    check_int("ell", ell, min_value=1, max_value=check_int("m", m, min_value=1))
    sizes = (ell, ell, ell, ell, ell)
    total = sum(sizes)
    blocks = np.stack([g.random((n, total)) for g in gens])  # [R, n, total]
    out, start = [], 0
    for size in sizes:
        out.append(blocks[:, :, start:start + size])
        start += size
    u_set, u_bern, u_order, u_slot, u_tgt = (torch.as_tensor(np.ascontiguousarray(a), device=device) for a in out)
    return u_set, u_bern, u_order, u_slot, u_tgt


def _ordered_subset(u: torch.Tensor, m) -> torch.Tensor:
    """A uniformly random ordered ell-subset of {0..m-1} from ``u [..., ell]`` uniforms (``m`` an int, or a
    per-run long tensor ``[R]`` when ``u`` is ``[R, n, ell]``).

    Draw i picks the floor(u_i (m - i))-th (0-based) vertex not chosen yet: starting from that rank, step over the
    already chosen vertices in increasing order. Exact, and it needs ell uniforms instead of m.
    """
    ell = u.shape[-1]
    picks: list[torch.Tensor] = []
    chosen = u.new_empty(u.shape[:-1] + (0,), dtype=torch.long)  # sorted ascending
    if isinstance(m, torch.Tensor):
        m = m.reshape(-1, *([1] * (u.ndim - 2)))  # [R, 1] against u[..., i] of shape [R, n]
    for i in range(ell):
        limit = m - i
        x = (u[..., i] * limit).long()
        x = torch.minimum(x, limit - 1) if isinstance(limit, torch.Tensor) else x.clamp_max(limit - 1)
        for j in range(i):
            x = x + (chosen[..., j] <= x).long()
        picks.append(x)
        chosen = torch.sort(torch.cat((chosen, x[..., None]), dim=-1), dim=-1).values
    return torch.stack(picks, dim=-1)


def contexts_from_uniforms(nbrs: torch.Tensor, u_set, u_bern, u_order, u_slot, u_tgt, *, rho: float,
                           m: torch.Tensor | None = None) -> torch.Tensor:
    """App. A.1's three-step sampler, vectorised over runs and contexts.

    (1) S = a uniformly random ordered ell-subset of the m vertices (:func:`_ordered_subset`); (2) each of ell processing slots
    is active with probability rho (so b ~ Binomial(ell, rho)), and slot t processes vertex S[order[t]] (so U is a
    uniform b-subset of S in uniformly random order); (3) for each active vertex i with no out-neighbour in the
    current context, a uniformly random position holding a vertex other than i receives a uniformly random
    out-neighbour of i. This is the distribution of :func:`rgr_verify.contexts.sample_contexts`.

    Args:
        nbrs: ``[R, m, r]`` out-neighbour tables (long).
        u_*: uniforms from :func:`draw_uniforms`.
        m: per-run vertex counts ``[R]`` when the tables are zero-padded to a common m (default: all m).
    Returns:
        long ``[R, n, ell]``.
    """
    R, n, ell = u_set.shape
    r = nbrs.shape[-1]
    ctx = _ordered_subset(u_set, nbrs.shape[-2] if m is None else m)  # [R, n, ell]
    chosen = torch.gather(ctx, -1, torch.argsort(u_order, dim=-1))  # U candidates in processing order
    active = u_bern < rho  # [R, n, ell]
    tgt_idx = (u_tgt * r).long().clamp_max(r - 1)  # [R, n, ell]
    flat = nbrs.reshape(R, -1)  # [R, m r]: vertex i's out-neighbours at i r ... i r + r - 1
    offs = torch.arange(r, device=ctx.device)
    for t in range(ell):
        i = chosen[..., t]  # [R, n]
        if r == 1:
            nb = torch.gather(flat, 1, i)[..., None]  # [R, n, 1]
            present = (ctx == nb).any(-1)  # [R, n]
        else:
            nb = torch.gather(flat, 1, (i[..., None] * r + offs).reshape(R, -1)).view(R, n, r)  # [R, n, r]
            present = (nb[..., :, None] == ctx[..., None, :]).any(-1).any(-1)  # [R, n]
        need = active[..., t] & ~present
        allowed = ctx != i[..., None]  # positions holding a vertex other than i
        cs = allowed.cumsum(-1)
        n_allowed = cs[..., -1]  # [R, n]
        k = torch.minimum((u_slot[..., t] * n_allowed).long(), n_allowed - 1)  # uniform rank among them
        # The (k+1)-th allowed position: the first where the running count reaches k + 1.
        slot = (cs <= k[..., None]).sum(-1, keepdim=True)  # [R, n, 1]
        target = torch.gather(nb, -1, tgt_idx[..., t:t + 1])  # [R, n, 1]
        new = torch.where(need[..., None], target, torch.gather(ctx, -1, slot))
        ctx = ctx.scatter(-1, slot, new)
    return ctx


def sample_contexts_torch(nbrs: np.ndarray, n: int, ell: int, rho: float, *, rng: np.random.Generator) -> np.ndarray:
    """``n`` contexts of one graph (given by its ``[m, r]`` neighbour table) from the batched sampler."""
    nbrs = np.asarray(nbrs)
    if nbrs.ndim != 2 or not np.issubdtype(nbrs.dtype, np.integer):
        raise ValueError(f"nbrs must be an integer [m, r] table, got shape {nbrs.shape}")
    m = nbrs.shape[0]
    check_int("ell", ell, min_value=1, max_value=m)
    check_probability("rho", rho)
    u = draw_uniforms([rng], check_int("n", n, min_value=1), m, ell)
    return contexts_from_uniforms(torch.as_tensor(nbrs, dtype=torch.long)[None], *u, rho=rho)[0].numpy()


def labels_torch(nbrs: torch.Tensor, ctx: torch.Tensor) -> torch.Tensor:
    """y[R, n, p, q] = (c_p -> c_q) in E, from ``nbrs [R, m, r]`` and ``ctx [R, n, ell]``. Returns bool."""
    R = ctx.shape[0]
    runs = torch.arange(R, device=ctx.device).reshape(R, *([1] * (ctx.ndim - 1)))
    out = nbrs[runs, ctx]  # [R, n, ell, r]
    return (out[..., :, None, :] == ctx[..., None, :, None]).any(-1)


# --------------------------------------------------------------------------------------------------------------
# Stacked AdamW


def stacked_adamw_step(params: Sequence[torch.Tensor], grads: Sequence[torch.Tensor], exp_avgs, exp_avg_sqs,
                       step: int, *, lr: float, weight_decay: float = 0.0, betas=_BETAS, eps: float = _EPS,
                       buffers: Sequence[torch.Tensor] | None = None) -> None:
    """One AdamW step over stacked tensors, op for op ``torch.optim.AdamW`` (single-tensor, amsgrad off).

    p <- p (1 - lr wd); m <- lerp(m, g, 1 - b1); v <- b2 v + (1 - b2) g^2;
    p <- p - (lr / (1 - b1^t)) m / (sqrt(v) / sqrt(1 - b2^t) + eps). ``step`` is t after incrementing (>= 1).
    Elementwise, so each run's slice gets exactly its own optimiser's update. ``buffers`` (one per parameter,
    same shape) hold the denominator in place of a fresh allocation per step (same values, tested bitwise).
    """
    step = check_int("step", step, min_value=1)
    beta1, beta2 = betas
    bias_correction1 = 1 - beta1**step
    bias_correction2 = 1 - beta2**step
    step_size = lr / bias_correction1
    bias_correction2_sqrt = math.sqrt(bias_correction2)
    with torch.no_grad():
        for k, (p, g, m, v) in enumerate(zip(params, grads, exp_avgs, exp_avg_sqs)):
            if weight_decay != 0:
                p.mul_(1 - lr * weight_decay)
            m.lerp_(g, 1 - beta1)
            v.mul_(beta2).addcmul_(g, g, value=1 - beta2)
            if buffers is None:
                denom = (v.sqrt() / bias_correction2_sqrt).add_(eps)
            else:
                # sqrt of exact zeros (the padding) takes a slow path on CPU, ~15x slower: clamp v below at the
                # smallest normal float first. Values are unchanged: any v it moves has sqrt < 1.1e-19, which
                # vanishes when eps (1e-8) is added.
                buf = torch.clamp(v, min=torch.finfo(v.dtype).tiny, out=buffers[k])
                denom = buf.sqrt_().div_(bias_correction2_sqrt).add_(eps)
            p.addcdiv_(m, denom, value=-step_size)


def _adamw_scalar_tables(n_steps: int, *, lr: float, betas=_BETAS) -> np.ndarray:
    """``[n_steps + 1, 2]`` float64: row t holds (-lr / (1 - b1^t), sqrt(1 - b2^t)), the step-dependent scalars of
    :func:`stacked_adamw_step` at step t, computed by the same Python expressions (row 0 is NaN: unused)."""
    out = np.full((n_steps + 1, 2), np.nan)
    beta1, beta2 = betas
    for step in range(1, n_steps + 1):
        out[step, 0] = -(lr / (1 - beta1**step))
        out[step, 1] = math.sqrt(1 - beta2**step)
    return out


def _stacked_adamw_step_on_device(p: torch.Tensor, g: torch.Tensor, m: torch.Tensor, v: torch.Tensor,
                                  step: torch.Tensor, tables: torch.Tensor, denom: torch.Tensor, *, lr: float,
                                  weight_decay: float, betas=_BETAS, eps: float = _EPS) -> None:
    """:func:`stacked_adamw_step` (with ``buffers``) for one stacked tensor, with the step count on the device.

    ``step`` (0-dim long, the step count before this step) is incremented in place and indexes ``tables``
    (:func:`_adamw_scalar_tables` in p's dtype, ``[T, 2]``), so no host value depends on the step and K
    consecutive calls can be captured in one CUDA graph. The last update p + (-s) m / denom (``addcdiv``, whose
    CPU kernel computes self + (value * t1) / t2) is written as mul, div, add with the scalar a one-element
    tensor: the same roundings, so on CPU the result is bitwise that of :func:`stacked_adamw_step` (tested).
    ``g`` is overwritten (used as scratch once m and v have read it); ``denom`` is a buffer like p.
    """
    beta1, beta2 = betas
    step.add_(1)
    row = torch.index_select(tables, 0, step.view(1))  # [1, 2]: (-step_size, sqrt(bias correction 2))
    if weight_decay != 0:
        p.mul_(1 - lr * weight_decay)
    m.lerp_(g, 1 - beta1)
    v.mul_(beta2).addcmul_(g, g, value=1 - beta2)
    buf = torch.clamp(v, min=torch.finfo(v.dtype).tiny, out=denom)  # see stacked_adamw_step
    buf.sqrt_().div_(row[:, 1]).add_(eps)
    torch.mul(m, row[:, 0], out=g).div_(buf)
    p.add_(g)


def cuda_graphs_enabled() -> bool:
    """Whether the engine may capture CUDA graphs: ``$RGR_VERIFY_CUDA_GRAPHS`` "1" (default) or "0"."""
    value = os.environ.get("RGR_VERIFY_CUDA_GRAPHS", "1").strip()
    if value not in ("0", "1"):
        raise ValueError(f"RGR_VERIFY_CUDA_GRAPHS must be '0' or '1', got {value!r}")
    return value == "1"


# --------------------------------------------------------------------------------------------------------------
# The batch


class _Batch:
    """Runs of one shape key, stacked along a leading run dimension R.

    All trainable parameters of a run live in one row of a flat buffer ``theta [R, P]`` with
    ``P = 2 H d_model d_k_max + 1``: ``W [R, d_model, 2, H, d_k_max]`` (index 0 = W_Q, 1 = W_K; head k of a run is
    column block k of the paper's W in R^{d_model x D_K}) followed by tau. Padding (heads beyond a run's h,
    columns beyond its d_k) starts at exactly zero and receives exactly zero gradient, so it stays zero. The
    loss gradient is written out by hand (formulas in :meth:`grads`) and tested against autograd on the
    reference scoring functions; one AdamW step then updates the whole buffer with five elementwise ops.
    """

    def __init__(self, runs: Sequence[tuple[RunConfig, int]], *, device: str, dtype: torch.dtype):
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
        self.dk = dk = max(c.d_head for c in self.configs)
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
        # Validation and test contexts of all runs in one vectorised call (same contexts as dd.val / dd.test).
        self.val = contexts_from_uniforms(self.nbrs, *draw_uniforms(
            [np.random.default_rng(dd.val_seed) for dd in self.data], c0.n_val, min(c.m for c in self.configs),
            c0.ell, device=self.device), rho=c0.rho, m=self.m_run)  # [R, n_val, ell]
        self.test = contexts_from_uniforms(self.nbrs, *draw_uniforms(
            [np.random.default_rng(dd.test_seed) for dd in self.data], c0.n_test, min(c.m for c in self.configs),
            c0.ell, device=self.device), rho=c0.rho, m=self.m_run)  # [R, n_test, ell]
        self.val_y = labels_torch(self.nbrs, self.val)  # [R, n_val, ell, ell], fixed
        # Max variant: a pair's score S_max(c_p, c_q) depends only on the two vertices, so a context set enters
        # the metric only through its ordered vertex-pair counts, split by label (fixed per run; see evaluate).
        self.pair_names: tuple = ()
        if c0.variant == "max" and m_max * m_max * 4 <= c0.n_val * c0.ell * c0.ell:  # tables smaller than the sets
            self.val_pairs = self._pair_counts(self.val)
            self.test_pairs = self._pair_counts(self.test)
            self.pair_names = ("val_pairs", "test_pairs")
        theta = np.zeros((R, d, 2, H, dk))
        headmask = np.zeros((R, H), dtype=bool)
        for j, (c, dd) in enumerate(zip(self.configs, self.data)):
            theta[j, :c.d_model, 0, :c.n_heads, :c.d_head] = dd.W_Q.reshape(c.d_model, c.n_heads, c.d_head)
            theta[j, :c.d_model, 1, :c.n_heads, :c.d_head] = dd.W_K.reshape(c.d_model, c.n_heads, c.d_head)
            headmask[j, :c.n_heads] = True
        flat = np.concatenate([theta.reshape(R, -1), np.zeros((R, 1))], axis=1)  # tau = 0 at start
        self.theta = torch.as_tensor(flat, **kw).contiguous()
        self.exp_avg = torch.zeros_like(self.theta)
        self.exp_avg_sq = torch.zeros_like(self.theta)
        self.headmask = torch.as_tensor(headmask, device=self.device)
        self.inv_sqrt_dk = torch.as_tensor([1.0 / math.sqrt(c.d_head) for c in self.configs], **kw)
        self.W_V = None
        if c0.variant == "value":  # [R, d_max, d_msg_max], frozen; zero padding adds nothing to the MSE
            dm = max(c.message_dim for c in self.configs)
            WV = np.zeros((R, d, dm))
            for j, (c, dd) in enumerate(zip(self.configs, self.data)):
                WV[j, :c.d_model, :c.message_dim] = dd.W_V
            self.W_V = torch.as_tensor(WV, **kw)
        self.streams = [dd.stream for dd in self.data]
        # Uniforms of the next segment being drawn in a worker thread: (future, rows of the block that are still
        # in the batch, steps), or None. A stream is only ever read by that draw or by train_segment.
        self._prefetched: tuple[Future, list[int], int] | None = None
        # Max variant on CUDA: step-dependent AdamW scalars read from device tables by a device step counter
        # (the same values as the host step; bitwise on CPU), so that chunks of steps can be graph-captured.
        self.device_step = self.device.type == "cuda"
        self.cuda_graphs = False  # capture and replay CUDA graphs (set by train_batch; needs device_step)
        self.graph_replays = 0  # chunks run by replaying a graph
        self._graphs: dict[int, tuple[Callable[[], None], tuple]] = {}  # chunk length -> (replay, static inputs)
        self._warm: set[int] = set()  # chunk lengths run eagerly since the last change of the batch's rows
        self._graph_failed = False
        self.step = 0
        self.history: list[list[float]] = [[] for _ in range(R)]
        self.streak = np.zeros(R, dtype=np.int64)
        self.best = np.full(R, np.inf)
        self.alive = list(range(R))  # original indices of the rows still in the batch
        self._refresh()

    def _pair_counts(self, ctx: torch.Tensor) -> torch.Tensor:
        """``[R, 2, M^2]`` float64: how often each ordered vertex pair (i, j) occurs as (c_p, c_q) over the
        contexts ``ctx [R, n, ell]`` (all ell^2 position pairs, p = q included), split into positive pairs
        (i -> j an edge: row 0) and negative pairs (row 1). M is the batch's padded m."""
        R, M = ctx.shape[0], self.nbrs.shape[1]
        base = torch.arange(R, device=ctx.device)[:, None, None, None] * (M * M)
        counts = torch.zeros(R * M * M, dtype=torch.float64, device=ctx.device)
        for start in range(0, ctx.shape[1], 250):
            c = ctx[:, start:start + 250]
            idx = c[..., :, None] * M + c[..., None, :] + base  # [R, chunk, ell, ell]
            counts += torch.bincount(idx.reshape(-1), minlength=R * M * M)
        counts = counts.view(R, M * M)
        verts = torch.arange(M, device=ctx.device).expand(R, 1, M)
        adj = labels_torch(self.nbrs, verts).reshape(R, M * M)  # y for the pair (i, j), as labels_torch gives it
        return torch.stack((counts * adj, counts * ~adj), dim=1)

    def _refresh(self) -> None:
        self.uniform_heads = bool(self.headmask.all())
        self.h_range = torch.arange(self.H, device=self.device)

    @property
    def W(self) -> torch.Tensor:
        """``[R, d_model, 2, H, d_k_max]`` view of theta."""
        R = self.theta.shape[0]
        return self.theta[:, :-1].view(R, self.d, 2, self.H, self.dk)

    @property
    def tau(self) -> torch.Tensor:
        return self.theta[:, -1]

    # ---- model --------------------------------------------------------------------------------------------
    def _qk(self, Xc: torch.Tensor):
        """``Xc [R, B, ell, d] -> Q, K [R, B, H, ell, d_k]``."""
        R, B, ell, d = Xc.shape
        QK = (Xc.reshape(R, B * ell, d) @ self.theta[:, :-1].view(R, d, -1)).view(R, B, ell, 2, self.H, self.dk)
        return QK[:, :, :, 0].transpose(2, 3), QK[:, :, :, 1].transpose(2, 3)

    def _head_scores(self, Q, K):
        S = Q @ K.transpose(-1, -2)  # [R, B, H, ell, ell]
        if self.c0.variant == "softmax":
            return torch.softmax(S * self.inv_sqrt_dk[:, None, None, None, None], dim=-1)
        if not self.uniform_heads:
            S = S.masked_fill(~self.headmask[:, None, :, None, None], float("-inf"))
        return S

    def _aggregate(self, S):
        """Per-head scores -> aggregated scores, and whether the max's gradient mask is needed."""
        if self.c0.variant == "softmax":
            A = S if self.uniform_heads else S * self.headmask[:, None, :, None, None]
            return A.sum(2), None
        if self.H == 1:
            return S[:, :, 0], None
        return S.amax(2), True

    def scores(self, Xc: torch.Tensor) -> torch.Tensor:
        """``Xc [R, B, ell, d] -> S [R, B, ell, ell]`` for the batch's variant."""
        Q, K = self._qk(Xc)
        return self._aggregate(self._head_scores(Q, K))[0]

    def _embed(self, ctx: torch.Tensor) -> torch.Tensor:
        runs = torch.arange(ctx.shape[0], device=ctx.device).reshape(-1, *([1] * (ctx.ndim - 1)))
        return self.X[runs, ctx]  # [R, B, ell, d]

    def _pos_weight(self, yf: torch.Tensor) -> torch.Tensor:
        ell = yf.shape[-1]
        if self.c0.pos_weight_mode == "ell-1":
            return torch.full(yf.shape[:2], float(ell - 1), device=self.device, dtype=self.dtype)
        npos = yf.sum((-1, -2))
        return torch.where(npos > 0, (ell * ell - npos) / npos.clamp_min(1.0), torch.zeros_like(npos))

    def logistic_coefs(self, y: torch.Tensor, n_contexts: int | None = None) -> tuple[torch.Tensor, torch.Tensor]:
        """(A, -B) with dL/dS_agg = sigmoid(z) A - B for contexts with labels ``y [R, n, ell, ell]`` when the
        loss averages over ``n_contexts`` contexts (default n): A = alpha (1 - y + y w_+) / (ell^2 n_contexts),
        B = alpha y w_+ / (ell^2 n_contexts)."""
        yf = y.to(self.dtype)
        ell, nb = y.shape[-1], n_contexts or y.shape[1]
        scale = self.c0.alpha / (ell * ell * nb)
        yw = yf * self._pos_weight(yf)[..., None, None]
        return (1 - yf + yw) * scale, yw * (-scale)

    def grads(self, Xc: torch.Tensor, y: torch.Tensor, *, with_loss: bool = True, coef=None
              ) -> tuple[torch.Tensor | None, torch.Tensor]:
        """Per-run loss ``[R]`` (mean over the B contexts) and its gradient ``[R, P]`` w.r.t. theta.

        Logistic variants: z = alpha (S - tau), dL/dz = (sigmoid(z)(1 - y) - sigmoid(-z) y w_+) / (ell^2 B)
        = (sigmoid(z)(1 - y + y w_+) - y w_+) / (ell^2 B), dL/dtau = -alpha sum dL/dz.
        Max: dL/dS^(k) = alpha dL/dz [k = argmax]. Softmax:
        dL/dS^(k) = A^(k) (g - sum_q g A^(k)) / sqrt(d_k) with g = alpha dL/dz. Value: with V = X_C W_V and
        e = S_max V - y V, dL/dS_max = 2 [valid] e V^T / (n_valid B). Then dQ^(k) = dS^(k) K^(k),
        dK^(k) = dS^(k)^T Q^(k), dW = X_C^T [dQ, dK].
        """
        R, B, ell, d = Xc.shape
        Q, K = self._qk(Xc)
        Sh = self._head_scores(Q, K)
        Sagg, arg = self._aggregate(Sh)
        yf = y.to(self.dtype)
        grad_tau = None
        if self.c0.variant == "value":
            V = Xc @ self.W_V[:, None]  # [R, B, ell, d_msg]
            err = Sagg @ V - yf @ V  # [R, B, ell, d_msg]
            valid = y.any(-1).to(self.dtype)  # [R, B, ell]
            nvalid = valid.sum(-1).clamp_min(1.0)  # [R, B]
            loss = (((err**2).sum(-1) * valid).sum(-1) / nvalid).mean(1) if with_loss else None
            g = (err * (2.0 * valid / (nvalid[..., None] * B))[..., None]) @ V.transpose(-1, -2)  # dL/dS_max
        else:
            if coef is None:
                coef = self.logistic_coefs(y)
            A, negB = coef
            z = (Sagg - self.tau[:, None, None, None]).mul_(self.c0.alpha)
            if with_loss:
                w = self._pos_weight(yf)[..., None, None]
                loss = (F.softplus(-z) * yf * w + F.softplus(z) * (1 - yf)).mean((-1, -2)).mean(1)
            else:
                loss = None
            g = torch.addcmul(negB, torch.sigmoid(z), A)  # dL/dS_agg = alpha dL/dz
            grad_tau = -g.sum((1, 2, 3))  # [R]
        if self.c0.variant == "softmax":
            A = Sh  # softmax probabilities [R, B, H, ell, ell]
            gh = g[:, :, None]
            dS = A * (gh - (gh * A).sum(-1, keepdim=True)) * self.inv_sqrt_dk[:, None, None, None, None]
            if not self.uniform_heads:
                dS = dS * self.headmask[:, None, :, None, None]
        elif arg is None:
            dS = g[:, :, None]
        else:  # the max's gradient goes to the head(s) attaining it (ties have probability zero)
            dS = g[:, :, None] * (Sh == Sagg[:, :, None])
        dQ = dS @ K  # [R, B, H, ell, dk]
        dK = dS.transpose(-1, -2) @ Q
        dQK = torch.stack((dQ, dK), dim=3)  # [R, B, H, 2, ell, dk]
        dQK = dQK.permute(0, 1, 4, 3, 2, 5).reshape(R, B * ell, -1)  # [R, B*ell, 2*H*dk]
        self._ensure_buffers()
        grad = self._grad_buf
        torch.matmul(Xc.reshape(R, B * ell, d).transpose(1, 2), dQK, out=grad[:, :-1].view(R, d, -1))
        if grad_tau is None:
            grad[:, -1] = 0
        else:
            grad[:, -1] = grad_tau
        return loss, grad

    def _ensure_buffers(self) -> None:
        """Allocate the per-step buffers (gradient, AdamW denominator, tau gradient) for the current rows, once per
        change of the batch's rows (on the current stream: before any graph capture)."""
        if getattr(self, "_grad_buf", None) is None or self._grad_buf.shape != self.theta.shape:
            self._grad_buf = torch.empty_like(self.theta)
            self._denom_buf = torch.empty_like(self.theta)
            self._gtau_buf = self.theta.new_empty(self.theta.shape[0])

    def _one(self) -> torch.Tensor:
        if getattr(self, "_one_t", None) is None:
            self._one_t = torch.ones((), device=self.device, dtype=self.dtype)
        return self._one_t

    def _step_buffers(self, last_step: int) -> None:
        """Allocate the max step's persistent buffers (before any capture, on the current stream), and AdamW
        scalar tables covering steps up to ``last_step``."""
        self._ensure_buffers()
        self._one()
        if getattr(self, "_step_t", None) is None:
            self._step_t = torch.zeros((), dtype=torch.long, device=self.device)
        if getattr(self, "_adam_tables", None) is None or self._adam_tables.shape[0] <= last_step:
            cap = max(c.max_steps for c in self.configs)
            n = max(last_step, -(-cap // self.c0.check_every) * self.c0.check_every)  # the last step a run can take
            self._adam_tables = torch.as_tensor(_adamw_scalar_tables(n, lr=self.c0.lr), dtype=self.dtype,
                                                device=self.device)
            self._graphs = {}  # captured graphs read the old tables

    def _max_steps_on_device(self, Xc: torch.Tensor, A: torch.Tensor, negB: torch.Tensor) -> None:
        """Max variant: one step per context of ``Xc [R, K, ell, d]`` (coefficients ``[R, K, ell, ell]``),
        AdamW by :func:`_stacked_adamw_step_on_device`; advances ``_step_t`` by K, not ``self.step``."""
        c = self.c0
        for t in range(Xc.shape[1]):
            grad = self._grad_max_step(Xc[:, t], A[:, t], negB[:, t])
            _stacked_adamw_step_on_device(self.theta, grad, self.exp_avg, self.exp_avg_sq, self._step_t,
                                          self._adam_tables, self._denom_buf, lr=c.lr, weight_decay=c.weight_decay)

    def _side_stream(self):
        """The stream that warms up and captures graphs (CUDA only)."""
        if getattr(self, "_stream", None) is None:
            self._stream = torch.cuda.Stream(device=self.device)
        return self._stream

    def _record_chunk(self, static: tuple) -> Callable[[], None]:
        """Capture :meth:`_max_steps_on_device` on the static inputs in a CUDA graph; returns its replay."""
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph, stream=self._side_stream()):
            self._max_steps_on_device(*static)
        return graph.replay

    def _max_chunk(self, Xc: torch.Tensor, A: torch.Tensor, negB: torch.Tensor) -> None:
        """K = ``Xc.shape[1]`` max-variant steps with device scalars: eagerly the first time a chunk length is
        seen for the current rows (the warm-up), then by capturing them once in a CUDA graph (when
        ``cuda_graphs``) and replaying it with the chunk copied into its static inputs. Same kernels either way."""
        K = Xc.shape[1]
        self._step_buffers(self.step + K)
        self._step_t.fill_(self.step)
        use_graphs = self.cuda_graphs and not self._graph_failed
        entry = self._graphs.get(K) if use_graphs else None
        if entry is None and use_graphs and K in self._warm:
            static = (Xc.clone(), A.clone(), negB.clone())  # the graph's inputs: copied into before each replay
            main = torch.cuda.current_stream(self.device) if self.device.type == "cuda" else None
            try:
                entry = self._graphs[K] = (self._record_chunk(static), static)
            except Exception as exc:  # any capture failure: fall back to the eager path
                self._graph_failed = True
                warnings.warn(f"CUDA graph capture failed ({type(exc).__name__}: {exc}); training eagerly",
                              RuntimeWarning, stacklevel=2)
                if main is not None:  # torch.cuda.graph may leave the capture stream current when capture_end fails
                    torch.cuda.set_stream(main)
                    torch.cuda.synchronize(self.device)
                self._step_t.fill_(self.step)  # a capture runs nothing; re-arm the counter all the same
        if entry is not None:
            replay, static = entry
            for dst, src in zip(static, (Xc, A, negB)):
                dst.copy_(src)
            replay()
            self.graph_replays += 1
        elif use_graphs and self.device.type == "cuda":  # warm-up on the capture stream, as torch recommends
            side, main = self._side_stream(), torch.cuda.current_stream(self.device)
            side.wait_stream(main)
            with torch.cuda.stream(side):
                self._max_steps_on_device(Xc, A, negB)
            main.wait_stream(side)
            self._warm.add(K)
        else:
            self._max_steps_on_device(Xc, A, negB)
            self._warm.add(K)
        self.step += K

    def _grad_max_step(self, Xc: torch.Tensor, A: torch.Tensor, negB: torch.Tensor) -> torch.Tensor:
        """:meth:`grads` for the max variant and one context per run (``Xc [R, ell, d]``, coefficients
        ``[R, ell, ell]``), without the loss: the same formulas with 3-D bmm and head-major copies made once."""
        R, ell, d = Xc.shape
        H, dk = self.H, self.dk
        self._ensure_buffers()
        grad = self._grad_buf
        QK = torch.bmm(Xc, self.theta[:, :-1].view(R, d, 2 * H * dk)).view(R, ell, 2, H, dk)
        # Head-major copies: Q [R H, ell, dk] and K^T [R H, dk, ell] (contiguous operands keep bmm on its fast path).
        Q = QK[:, :, 0].transpose(1, 2).reshape(R * H, ell, dk)
        KT = QK[:, :, 1].permute(0, 2, 3, 1).reshape(R * H, dk, ell)
        Sh = torch.bmm(Q, KT)  # [R H, ell, ell]
        if H == 1:
            S = Sh.view(R, ell, ell)
        else:
            Sh = Sh.view(R, H, ell, ell)
            if not self.uniform_heads:
                Sh = Sh.masked_fill(~self.headmask[:, :, None, None], float("-inf"))
            S = Sh.amax(1)  # [R, ell, ell]
        g = torch.addcmul(negB, torch.sigmoid((S - self.tau[:, None, None]).mul_(self.c0.alpha)), A)
        if H == 1:
            dS = g
        else:  # the gradient goes to the head(s) attaining the max: g [Sh == S], as g * (Sh - S >= 0)
            dS = torch.sub(Sh, S[:, None])
            dS = torch.heaviside(dS, self._one(), out=dS).mul_(g[:, None]).view(R * H, ell, ell)
        dQ = torch.bmm(dS, KT.transpose(1, 2)).view(R, H, ell, dk)
        dK = torch.bmm(dS.transpose(1, 2), Q).view(R, H, ell, dk)
        dQK = torch.stack((dQ, dK), dim=1).permute(0, 3, 1, 2, 4).reshape(R, ell, 2 * H * dk)
        grad[:, :-1].view(R, d, 2 * H * dk).copy_(torch.bmm(Xc.transpose(1, 2), dQK))
        torch.sum(g, (1, 2), out=self._gtau_buf).neg_()
        grad[:, -1] = self._gtau_buf
        return grad

    # ---- evaluation ---------------------------------------------------------------------------------------
    @torch.no_grad()
    def evaluate(self, ctx: torch.Tensor, labels: torch.Tensor | None = None, chunk: int = 250
                 ) -> tuple[np.ndarray, np.ndarray]:
        """Micro-F1 (or MSE) per run over contexts ``[R, n, ell]`` (labels ``[R, n, ell, ell]`` if known);
        also returns the raw counts ``[R, 3]``."""
        R, n, _ = ctx.shape
        acc = torch.zeros(R, 3, dtype=torch.float64, device=self.device)
        for start in range(0, n, chunk):
            c = ctx[:, start:start + chunk]
            y = labels_torch(self.nbrs, c) if labels is None else labels[:, start:start + chunk]
            Xc = self._embed(c)
            S = self.scores(Xc)
            if self.c0.variant == "value":
                V = Xc @ self.W_V[:, None]
                err = ((S @ V - y.to(self.dtype) @ V) ** 2).sum(-1)
                valid = y.any(-1)
                acc[:, 0] += (err * valid).sum((1, 2)).double()
                acc[:, 1] += valid.sum((1, 2)).double()
            else:
                pred = S > self.tau[:, None, None, None]
                acc[:, 0] += (pred & y).sum((1, 2, 3)).double()
                acc[:, 1] += (pred & ~y).sum((1, 2, 3)).double()
                acc[:, 2] += (~pred & y).sum((1, 2, 3)).double()
        acc = acc.cpu().numpy()
        if self.c0.variant == "value":
            metric = acc[:, 0] / np.maximum(acc[:, 1], 1.0)
        else:
            num = 2 * acc[:, 0]
            den = num + acc[:, 1] + acc[:, 2]
            metric = np.where(den > 0, num / np.maximum(den, 1.0), 1.0)
        return metric, acc

    @torch.no_grad()
    def evaluate_pairs(self, pairs: torch.Tensor) -> tuple[np.ndarray, np.ndarray]:
        """Max variant: micro-F1 per run and counts ``[R, 3]`` from pair counts ``[R, 2, M^2]``
        (:meth:`_pair_counts`). The same numbers as :meth:`evaluate` on those contexts: S_max over the
        vertex-pair table X W_Q^(k) (X W_K^(k))^T, thresholded at tau, weighted by how often each pair occurs."""
        R, M = self.theta.shape[0], self.X.shape[1]
        Q, K = self._qk(self.X[:, None])  # [R, 1, H, M, dk]
        S = self._aggregate(self._head_scores(Q, K))[0][:, 0]  # [R, M, M]
        pred = (S > self.tau[:, None, None]).reshape(R, 1, M * M).double()
        tp_fp = (pairs * pred).sum(-1)  # [R, 2]
        acc = torch.stack((tp_fp[:, 0], tp_fp[:, 1], pairs[:, 0].sum(-1) - tp_fp[:, 0]), dim=1).cpu().numpy()
        num = 2 * acc[:, 0]
        den = num + acc[:, 1] + acc[:, 2]
        return np.where(den > 0, num / np.maximum(den, 1.0), 1.0), acc

    # ---- training -----------------------------------------------------------------------------------------
    def _segment_uniforms(self, n_steps: int) -> tuple[torch.Tensor, ...]:
        """This segment's uniforms (host tensors ``[R, n_steps, ell]``): the prefetched block, less the rows of
        runs that left the batch since it was drawn, or else drawn now. Either way each run's values are the
        next ``n_steps`` rows of its own stream."""
        pending, self._prefetched = self._prefetched, None
        if pending is None:
            return draw_uniforms(self.streams, n_steps, self._m_min(), self.c0.ell)  # host tensors
        future, rows, n = pending
        u = future.result()
        if n != n_steps:
            raise RuntimeError(f"uniforms were prefetched for {n} steps, but the segment has {n_steps}")
        if rows != list(range(u[0].shape[0])):
            idx = torch.as_tensor(rows, dtype=torch.long)
            u = tuple(x.index_select(0, idx) for x in u)
        return u

    def _m_min(self) -> int:
        """Smallest m of the rows still in the batch, from the host configs (no device read)."""
        return min(self.configs[j].m for j in self.alive)

    @torch.no_grad()
    def train_segment(self, n_steps: int, sub: int = 100, *, pool: ThreadPoolExecutor | None = None,
                      next_steps: int = 0) -> None:
        """``n_steps`` optimisation steps, one fresh context per run per step.

        With a ``pool`` and ``next_steps > 0``, the next segment's uniforms (``next_steps`` per run still in the
        batch) are drawn in the pool while this segment trains; the next call uses them (:meth:`keep` drops
        the rows of runs that leave in between; their streams are never read again)."""
        c = self.c0
        u = tuple(x.to(self.device) for x in self._segment_uniforms(n_steps))
        if pool is not None and next_steps > 0:
            self._prefetched = (pool.submit(draw_uniforms, list(self.streams), next_steps, self._m_min(), c.ell),
                                list(range(len(self.streams))), next_steps)
        ctx = contexts_from_uniforms(self.nbrs, *u, rho=c.rho, m=self.m_run)  # [R, n_steps, ell]
        for s0 in range(0, n_steps, sub):
            cs = ctx[:, s0:s0 + sub]
            y = labels_torch(self.nbrs, cs)  # [R, sub, ell, ell]
            Xc = self._embed(cs)  # [R, sub, ell, d]
            A, negB = self.logistic_coefs(y, 1) if c.variant != "value" else (None, None)
            if c.variant == "max" and self.device_step:
                self._max_chunk(Xc, A, negB)
                continue
            if c.variant == "max":
                for t in range(cs.shape[1]):
                    grad = self._grad_max_step(Xc[:, t], A[:, t], negB[:, t])
                    self.step += 1
                    stacked_adamw_step([self.theta], [grad], [self.exp_avg], [self.exp_avg_sq], self.step,
                                       lr=c.lr, weight_decay=c.weight_decay, buffers=[self._denom_buf])
                continue
            for t in range(cs.shape[1]):
                coef = None if A is None else (A[:, t:t + 1], negB[:, t:t + 1])
                _, grad = self.grads(Xc[:, t:t + 1], y[:, t:t + 1], with_loss=False, coef=coef)
                self.step += 1
                stacked_adamw_step([self.theta], [grad], [self.exp_avg], [self.exp_avg_sq], self.step, lr=c.lr,
                                   weight_decay=c.weight_decay, buffers=[self._denom_buf])

    def keep(self, rows: Sequence[int]) -> None:
        """Stop mask: keep only batch rows ``rows`` (finished runs leave and their parameters freeze)."""
        idx = torch.as_tensor(list(rows), dtype=torch.long, device=self.device)
        for name in ("nbrs", "X", "m_run", "val", "val_y", "test", "headmask", "inv_sqrt_dk", "theta", "exp_avg",
                     "exp_avg_sq") + self.pair_names:
            setattr(self, name, getattr(self, name)[idx].contiguous())
        if self.W_V is not None:
            self.W_V = self.W_V[idx]
        self.streams = [self.streams[i] for i in rows]
        self.alive = [self.alive[i] for i in rows]
        if self._prefetched is not None:
            future, prows, n = self._prefetched
            self._prefetched = (future, [prows[i] for i in rows], n)
        # New objects, not cleared in place: subset() copies share the old ones. Graphs read the old rows.
        self._graphs, self._warm = {}, set()
        self._refresh()

    def subset(self, rows: Sequence[int]) -> "_Batch":
        """A shallow copy holding only ``rows`` (for evaluating finished runs without disturbing the batch)."""
        other = object.__new__(_Batch)
        other.__dict__.update(self.__dict__)
        other.keep(rows)
        return other

    def weights_of(self, row: int) -> dict:
        """Row ``row``'s W_Q, W_K as ``[d_model, D_K]`` float64 arrays and its tau."""
        cfg = self.configs[self.alive[row]]
        W = self.W[row].double().cpu().numpy()  # [d, 2, H, dk]
        out = {name: W[:cfg.d_model, k, :cfg.n_heads, :cfg.d_head].reshape(cfg.d_model, cfg.D_K)
               for k, name in enumerate(("W_Q", "W_K"))}
        out["tau"] = float(self.tau[row])
        return out


def _finish(batch: _Batch, rows: Sequence[int], stopped: bool, keep_weights: bool) -> list:
    if not rows:
        return []
    sub = batch.subset(rows)
    metric, acc = sub.evaluate_pairs(sub.test_pairs) if sub.pair_names else sub.evaluate(sub.test)
    taus = sub.tau.double().cpu().numpy()  # one copy for all finished rows (float32 -> float64 is exact)
    results = []
    for k, row in enumerate(rows):
        j = batch.alive[row]
        cfg = batch.configs[j]
        extra = ({"test_sse": float(acc[k, 0]), "test_valid": float(acc[k, 1])} if cfg.variant == "value"
                 else {"tp": int(acc[k, 0]), "fp": int(acc[k, 1]), "fn": int(acc[k, 2])})
        if keep_weights:
            extra["weights"] = batch.weights_of(row)
        results.append((j, RunResult(cfg, batch.seeds[j], float(metric[k]), batch.step, stopped,
                                     float(taus[k]), tuple(batch.history[j]), extra)))
    return results


def train_batch(runs: Sequence[tuple[RunConfig, int]], *, device: str = "cpu", dtype: torch.dtype = torch.float32,
                on_result: Callable[[RunResult], None] | None = None, keep_weights: bool = False,
                prefetch: bool = True, cuda_graphs: bool | None = None, stats: dict | None = None
                ) -> list[RunResult]:
    """Train runs of one shape key together until each stops or reaches its cap. Results in input order.

    ``prefetch``: draw the next segment's uniforms in a worker thread while a segment trains (same results).
    ``cuda_graphs``: on CUDA, replay the max variant's 100-step chunks as CUDA graphs (default:
    :func:`cuda_graphs_enabled`; same kernels as eager, so the same results). ``stats``, if given, gets
    ``cuda_graph_replays`` (chunks replayed from a graph) added to it.
    """
    if not isinstance(prefetch, bool):
        raise ValueError(f"prefetch must be a bool, got {prefetch!r}")
    if cuda_graphs is not None and not isinstance(cuda_graphs, bool):
        raise ValueError(f"cuda_graphs must be a bool or None, got {cuda_graphs!r}")
    if stats is not None and not isinstance(stats, dict):
        raise ValueError(f"stats must be a dict or None, got {type(stats).__name__}")
    graphs = cuda_graphs_enabled() if cuda_graphs is None else cuda_graphs  # validates the variable everywhere
    batch = _Batch(runs, device=device, dtype=dtype)
    batch.cuda_graphs = batch.device_step and graphs
    results: dict[int, RunResult] = {}
    c0 = batch.c0
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="rgr-uniforms") if prefetch else nullcontext() as pool:
        while batch.alive:
            # A next segment exists only if some run's cap lies beyond this one (early stops may still end all).
            after = batch.step + c0.check_every
            more = any(batch.configs[j].max_steps > after for j in batch.alive)
            batch.train_segment(c0.check_every, pool=pool, next_steps=c0.check_every if more else 0)
            metric, _ = (batch.evaluate_pairs(batch.val_pairs) if batch.pair_names
                         else batch.evaluate(batch.val, batch.val_y))
            keep, done_stop, done_cap = [], [], []
            for row, j in enumerate(batch.alive):
                cfg = batch.configs[j]
                v = float(metric[row])
                batch.history[j].append(v)
                if cfg.variant == "value":
                    improved = v < batch.best[j]
                    batch.best[j] = min(batch.best[j], v)
                    batch.streak[j] = 0 if improved else batch.streak[j] + 1
                else:
                    batch.streak[j] = batch.streak[j] + 1 if v > cfg.stop_f1 else 0
                if batch.streak[j] >= cfg.patience:
                    done_stop.append(row)
                elif batch.step >= cfg.max_steps:
                    done_cap.append(row)
                else:
                    keep.append(row)
            for res_list in (_finish(batch, done_stop, True, keep_weights),
                             _finish(batch, done_cap, False, keep_weights)):
                for idx, res in res_list:
                    results[idx] = res
                    if on_result is not None:
                        on_result(res)
            if len(keep) < len(batch.alive):
                batch.keep(keep)
    if stats is not None:
        stats["cuda_graph_replays"] = stats.get("cuda_graph_replays", 0) + batch.graph_replays
    return [results[j] for j in range(len(runs))]


def plan_batches(runs: Iterable[tuple[RunConfig, int]], *, max_batch: int = 256, max_waste: float = 4.0
                 ) -> list[list[tuple[RunConfig, int]]]:
    """Group runs by shape key, then cut each group (sorted by heads, width) into batches whose padded cost
    R * H_max * d_k_max stays within ``max_waste`` times the sum of the runs' own h * d_k."""
    max_batch = check_int("max_batch", max_batch, min_value=1)
    max_waste = check_real("max_waste", max_waste, low=1.0)
    groups: dict[tuple, list] = {}
    for cfg, seed in runs:
        groups.setdefault(cfg.shape_key(), []).append((cfg, int(seed)))
    batches = []
    for key in sorted(groups, key=repr):
        items = sorted(groups[key], key=lambda cs: (cs[0].n_heads, cs[0].d_head, cs[0].max_steps, cs[1]))
        cur: list = []
        for item in items:
            trial = cur + [item]
            H = max(c.n_heads for c, _ in trial)
            dk = max(c.d_head for c, _ in trial)
            cost = len(trial) * H * dk
            own = sum(c.n_heads * c.d_head for c, _ in trial)
            if cur and (len(trial) > max_batch or cost > max_waste * own):
                batches.append(cur)
                cur = [item]
            else:
                cur = trial
        if cur:
            batches.append(cur)
    return batches


def train_runs(runs: Sequence[tuple[RunConfig, int]], *, device: str = "cpu", dtype: torch.dtype = torch.float32,
               max_batch: int = 256, max_waste: float = 4.0, on_result: Callable[[RunResult], None] | None = None,
               keep_weights: bool = False, prefetch: bool = True, cuda_graphs: bool | None = None,
               stats: dict | None = None) -> list[RunResult]:
    """Train many runs (any mix of shapes) batched by :func:`plan_batches`. Results in input order.
    ``prefetch``, ``cuda_graphs``, ``stats``: as in :func:`train_batch`."""
    runs = [(c, int(s)) for c, s in runs]
    if device not in ("cpu", "cuda") and not str(device).startswith("cuda"):
        raise ValueError(f"device must be 'cpu' or 'cuda', got {device!r}")
    if str(device).startswith("cuda") and not torch.cuda.is_available():
        raise ValueError("device 'cuda' requested but CUDA is not available")
    out: dict[tuple, RunResult] = {}
    for batch in plan_batches(runs, max_batch=max_batch, max_waste=max_waste):
        for res in train_batch(batch, device=device, dtype=dtype, on_result=on_result, keep_weights=keep_weights,
                               prefetch=prefetch, cuda_graphs=cuda_graphs, stats=stats):
            out[(res.config, res.seed)] = res
    return [out[(c, s)] for c, s in runs]
