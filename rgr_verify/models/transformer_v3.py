"""The Sec. 7.3 pre-LN block of :mod:`rgr_verify.models.transformer`, computed without the first layer's keys, for
batches that mix key widths D_K and head counts h.

Same function. This module computes the same last-position logits as :func:`rgr_verify.models.transformer.block_logits`
(same parameters, same formulas, see that module's docstring); only the order of the sums changes.

Keys by associativity. Head k's score for position j is the dot product of the query's head-k columns with the
key's head-k columns, and the key is u_j W_K. Regrouping the sum,

    score[j, k] = sum_{c in head k} q[c] (u_j W_K)[c] = u_j . a_k,    a_k = W_K (q * G[:, k])     [d_model]

so each example needs one d_model-vector per head slot (``a``, ``[R, B, H, d_model]``) instead of the
``[R, B, L, D]`` key tensor: neither the keys nor their elementwise product with the query is formed. The
scores are one autograd function (:class:`_SlotScores`) whose backward pass recomputes ``a`` from the query,
so for the backward pass an example keeps its query (D numbers) where today's block keeps its keys (L D
numbers). Measured with saved-tensor hooks at the full shapes (B = 256, L = 18, d_model = 384, D = 512, H = 8,
float32): 24,103 floats saved per example against today's 33,175, 9,072 fewer (36 KB an example).

LayerNorm-1 folded. The attention reads the inputs normalised once (:func:`normed_inputs_v3`: a function of the
frozen table and the data, so no gradient flows into it), and LN-1's gain and bias enter through the weights
(:func:`block_logits_normed_v3`): the gain is folded into W_K and W_V, the bias enters the query and, as b W_V,
the values, and through the keys it adds one constant per slot, which the softmax ignores. So neither the LN-1
output ``u`` ``[R, B, L, d_model]`` nor its gradient is formed, nor the elementwise kernels of the gain and bias
over it and their backward (today's LN backward, which only yields the gain's and bias' gradients, is small).

Mixed cells. One layout (:class:`BlockLayoutV3`, built by :func:`layout_v3`) serves every (D_K, h) with
D_K <= Dmax and h <= Hmax:

* ``G [R, Dmax, Hmax]``: G[r, c, k] = 1 when key column c of run r belongs to its head k (head k owns columns
  k d_k .. (k + 1) d_k - 1, d_k = D_K / h, as today); columns >= D_K belong to no head and their W_Q / W_K
  entries are zero.
* ``GV [R, d_model, Hmax]``: GV[r, c, k] = 1 when value column c of run r belongs to its head k (head k owns
  columns k d_v .. (k + 1) d_v - 1, d_v = d_model / h, as today's view of W_V as ``[d, h, d_v]``).
* ``scale [R, Hmax]`` (float64): 1 / sqrt(d_k) on a run's h slots, 0 on its unused slots.
* ``slot_mask [R, Hmax]``: 1 on a run's h slots, 0 on the others.
* ``key_mask [R, 1, Dmax]``: 1 on a run's D_K real key columns (the training step re-applies it to W_Q and W_K).

An unused slot scores 0 at every position (its G column is zero and so is its scale), so its softmax is uniform
and finite, never NaN; its probabilities are then multiplied by 0 and its value columns are none (GV zero), so
it adds exactly 0 to the output and receives exactly 0 gradient. Padded key columns receive exactly zero
gradient too (they meet the layout's zeros in every product), so AdamW, whose update of a zero parameter with a
zero gradient is zero, keeps them at zero; the training step re-applies ``key_mask`` anyway, as today's does.

The value path computes every slot's z_k W_V over all d_model value columns (``[R, B, H, d_model]``) and keeps,
for each column, its own head's entry (GV); this costs H times today's value product for the last position
only, far less than the key product it replaces.

Initialisation. :func:`init_block_params_v3` draws each run's parameters exactly as
:func:`rgr_verify.models.transformer.init_block_params` draws them for that run alone (its generator, the same draws in
the same order, the same shapes for its own D_K) and places them in the padded layout; padding is exactly zero.

Training. :func:`train_block_runs_v3` is :func:`rgr_verify.models.transformer.train_block_runs` for this block: the same
per-run generators, data, evaluations, BlockRunResult fields, bf16 autocast on CUDA and deadlines, but batches are
consecutive chunks of the caller's runs whatever their (D_K, h), early stopping is per run (so no run's record
depends on its batch), a batch whose step rate says it would end after the deadline is dropped at that evaluation
(:class:`BatchOverrun`), and a failed CUDA graph capture retrains the batch eagerly instead of failing. On a CPU a
run trained alone and the same run in a mixed batch give the same results (per-step losses within a few float32
roundings; empirical/test_sec73_v3_trainer.py). :func:`time_steps_v3` times the step for planning a sweep
(:mod:`rgr_verify.runs.sec73_plan`). Memory traffic, not the keys, bounds the step on a GPU: the keys this block
does not form are a few percent of a run-step's bytes; the fold saves most of the 30 % v3 moves less than today's
block (docs/sec73_step_bytes.py). :class:`CompiledLoss` runs the step's loss through ``torch.compile`` (on CUDA by
default), falling back to eager with a warning if compiling or running it fails.
"""

from __future__ import annotations

import contextlib
import math
import os
import time
import warnings
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Callable, Sequence

import numpy as np
import torch
import torch.nn.functional as F

from ..basics.checks import check_choice, check_int, check_real
from ..engine.capture import cuda_graphs_enabled, graphed_step
from ..basics.settings import COMPILE_ENV, env
from .transformer import (BatchDeadline, BlockRunResult, DeadlineReached, RunSpec, TaskConfig, TrainConfig,
                          block_run_args)
from .transformer_task import moved_items, pack_runs, run_generator, sample_permutation, stack_examples

__all__ = [
    "BlockLayoutV3",
    "layout_v3",
    "init_block_params_v3",
    "block_logits_v3",
    "block_logits_normed_v3",
    "normed_inputs_v3",
    "train_step_v3",
    "block_loss_v3",
    "CompiledLoss",
    "compile_enabled",
    "evaluate_v3",
    "train_block_runs_v3",
    "GraphCaptureFailed",
    "BatchOverrun",
    "LATE_GRACE_S",
    "time_steps_v3",
    "memory_per_run_v3",
    "PARAM_NAMES",
]

# The block's parameters, in the order init_block_params_v3 returns them (the same names as today's block).
PARAM_NAMES = ("W_Q", "W_K", "W_V", "W_O", "W_in", "b_in", "W_out", "b_out",
               "ln1_w", "ln1_b", "ln2_w", "ln2_b", "lnf_w", "lnf_b")


@dataclass(frozen=True)
class BlockLayoutV3:
    """Where each run's key and value columns go (see the module docstring for each field's meaning)."""

    G: torch.Tensor  # [R, Dmax, Hmax] key column -> head slot
    GV: torch.Tensor  # [R, d_model, Hmax] value column -> head slot
    scale: torch.Tensor  # [R, Hmax] float64, 1 / sqrt(d_k) on used slots, 0 elsewhere
    slot_mask: torch.Tensor  # [R, Hmax] 1 on used slots
    key_mask: torch.Tensor  # [R, 1, Dmax] 1 on real key columns

    @property
    def shape(self) -> tuple[int, int, int, int]:
        """(R, Dmax, Hmax, d_model)."""
        R, D, H = self.G.shape
        return R, D, H, self.GV.shape[1]

    def to(self, device=None, dtype=None) -> "BlockLayoutV3":
        """This layout on ``device`` with its 0/1 tensors in ``dtype`` (the scale stays float64)."""
        def move(t, keep=False):
            return t.to(device=device, dtype=None if keep else dtype)
        return BlockLayoutV3(move(self.G), move(self.GV), move(self.scale, keep=True), move(self.slot_mask),
                             move(self.key_mask))


def _check_specs_v3(specs, Dmax: int, Hmax: int, d_model: int) -> list[RunSpec]:
    specs = list(specs) if not isinstance(specs, RunSpec) else [specs]
    if not specs or not all(isinstance(s, RunSpec) for s in specs):
        raise ValueError("specs must be a non-empty sequence of RunSpec")
    for s in specs:
        if s.D_K > Dmax:
            raise ValueError(f"every run's D_K must be <= Dmax = {Dmax}, got D_K = {s.D_K}")
        if s.n_heads > Hmax:
            raise ValueError(f"every run's n_heads must be <= Hmax = {Hmax}, got n_heads = {s.n_heads}")
        if d_model % s.n_heads:
            raise ValueError(f"every run's n_heads must divide d_model = {d_model} (d_v = d_model / h), "
                             f"got n_heads = {s.n_heads}")
    return specs


def layout_v3(specs: Sequence[RunSpec], Dmax: int, Hmax: int, d_model: int, device="cpu") -> BlockLayoutV3:
    """The layout of R runs with any D_K <= Dmax and h <= Hmax (h dividing d_model), float32 0/1 tensors and a
    float64 scale on ``device``."""
    Dmax = check_int("Dmax", Dmax, min_value=1)
    Hmax = check_int("Hmax", Hmax, min_value=1)
    d_model = check_int("d_model", d_model, min_value=1)
    specs = _check_specs_v3(specs, Dmax, Hmax, d_model)
    R = len(specs)
    G = torch.zeros(R, Dmax, Hmax)
    GV = torch.zeros(R, d_model, Hmax)
    scale = torch.zeros(R, Hmax, dtype=torch.float64)
    slot = torch.zeros(R, Hmax)
    for r, s in enumerate(specs):
        h, d_k, dv = s.n_heads, s.D_K // s.n_heads, d_model // s.n_heads
        G[r, torch.arange(s.D_K), torch.arange(s.D_K) // d_k] = 1.0
        GV[r, torch.arange(d_model), torch.arange(d_model) // dv] = 1.0
        scale[r, :h] = 1.0 / math.sqrt(d_k)
        slot[r, :h] = 1.0
    key_mask = (G.sum(-1) > 0).to(G.dtype)[:, None, :]
    return BlockLayoutV3(G, GV, scale, slot, key_mask).to(device)


def init_block_params_v3(specs: Sequence[RunSpec], d_model: int, d_ff: int, Dmax: int, Hmax: int, *,
                         init_std: float = 0.02) -> dict:
    """Stacked parameters of R runs with mixed (D_K, h), float32 on the CPU.

    Shapes as :func:`rgr_verify.models.transformer.init_block_params` with D = Dmax: W_Q, W_K ``[R, d, Dmax]`` (columns
    >= the run's D_K exactly zero); W_V, W_O ``[R, d, d]``; W_in ``[R, d, d_ff]``, b_in ``[R, d_ff]``, W_out
    ``[R, d_ff, d]``, b_out ``[R, d]``; LayerNorm gains (ones) and biases (zeros) ``[R, d]``. Run r's entries
    are drawn from ``run_generator(seed, 1)`` in today's order, so they equal what today's function gives that
    run alone, bit for bit. No parameter depends on h: the head split lives in the layout only.
    """
    d_model = check_int("d_model", d_model, min_value=1)
    d_ff = check_int("d_ff", d_ff, min_value=1)
    Dmax = check_int("Dmax", Dmax, min_value=1)
    Hmax = check_int("Hmax", Hmax, min_value=1)
    init_std = check_real("init_std", init_std, low=0.0, low_open=True)
    specs = _check_specs_v3(specs, Dmax, Hmax, d_model)
    R = len(specs)
    p = {name: torch.zeros(R, *shape) for name, shape in
         [("W_Q", (d_model, Dmax)), ("W_K", (d_model, Dmax)), ("W_V", (d_model, d_model)),
          ("W_O", (d_model, d_model)), ("W_in", (d_model, d_ff)), ("b_in", (d_ff,)), ("W_out", (d_ff, d_model)),
          ("b_out", (d_model,))]}
    for r, s in enumerate(specs):
        # The same draws, in the same order and shapes, as init_block_params for this run alone.
        g = run_generator(s.seed, 1)
        p["W_Q"][r, :, : s.D_K] = torch.randn(d_model, s.D_K, generator=g) * init_std
        p["W_K"][r, :, : s.D_K] = torch.randn(d_model, s.D_K, generator=g) * init_std
        p["W_V"][r] = torch.randn(d_model, d_model, generator=g) * init_std
        p["W_O"][r] = torch.randn(d_model, d_model, generator=g) * init_std / math.sqrt(2)
        p["W_in"][r] = torch.randn(d_model, d_ff, generator=g) * init_std
        p["W_out"][r] = torch.randn(d_ff, d_model, generator=g) * init_std / math.sqrt(2)
    for ln in ("ln1", "ln2", "lnf"):
        p[f"{ln}_w"] = torch.ones(R, d_model)
        p[f"{ln}_b"] = torch.zeros(R, d_model)
    return {k: p[k] for k in PARAM_NAMES}


def _ln(x: torch.Tensor, w: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """LayerNorm over the last dim with per-run gain and bias ``[R, d]`` (today's formula)."""
    shape = (w.shape[0],) + (1,) * (x.ndim - 2) + (w.shape[1],)
    return F.layer_norm(x, x.shape[-1:]) * w.view(shape) + b.view(shape)


def _check_block_args(params, X, E, layout) -> None:
    """Shape checks only (no value is read, so nothing waits for the device)."""
    if not isinstance(params, dict) or any(k not in params for k in PARAM_NAMES):
        raise ValueError(f"params must be a dict holding {', '.join(PARAM_NAMES)}")
    if not isinstance(layout, BlockLayoutV3):
        raise ValueError(f"layout must be a BlockLayoutV3 (from layout_v3), got {type(layout).__name__}")
    if not isinstance(X, torch.Tensor) or X.ndim != 4:
        raise ValueError(f"X must be a [R, B, L, d_model] tensor, got {getattr(X, 'shape', type(X).__name__)}")
    R, _, _, d = X.shape
    if not isinstance(E, torch.Tensor) or E.ndim != 2 or E.shape[1] != d:
        raise ValueError(f"E must be a [m + 1, d_model = {d}] tensor, got {getattr(E, 'shape', type(E).__name__)}")
    Rl, D, H, dl = layout.shape
    if Rl != R or dl != d:
        raise ValueError(f"layout is for R = {Rl} runs of d_model = {dl}, but X has R = {R}, d_model = {d}")
    want = {"W_Q": (R, d, D), "W_K": (R, d, D), "W_V": (R, d, d), "W_O": (R, d, d)}
    for k, shape in want.items():
        if tuple(params[k].shape) != shape:
            raise ValueError(f"params[{k!r}] must have shape {shape} (layout and X), got {tuple(params[k].shape)}")


class _SlotScores(torch.autograd.Function):
    """scores[r, b, k, j] = u[r, b, j] . (W_K[r] (q[r, b] * G[r, :, k])), all inputs of one dtype.

    Saves only its inputs (u, the query q, W_K and the layout) for the backward pass, which recomputes the
    slot vectors a = W_K (q * G_k) ``[R, B, H, d]`` and their ``[R, B, H, D]`` query-times-layout factor; so
    beyond u, which the value path keeps anyway, an example keeps D numbers (its query) instead of the
    ``[L, D]`` keys of today's block.
    """

    @staticmethod
    def forward(ctx, u, q, W_K, Gt):
        R, B, L, d = u.shape
        H, D = Gt.shape[1], Gt.shape[2]
        qg = q[:, :, None, :] * Gt[:, None]  # [R, B, H, D]: each slot's query columns, zero elsewhere
        a = torch.bmm(qg.reshape(R, B * H, D), W_K.transpose(1, 2)).reshape(R, B, H, d)  # a_k = W_K (q * G_k)
        ctx.save_for_backward(u, q, W_K, Gt)
        return torch.matmul(a, u.transpose(-1, -2))  # [R, B, H, L]

    @staticmethod
    def backward(ctx, g):
        u, q, W_K, Gt = ctx.saved_tensors
        # A contiguous copy ([R, B, H, L], small): under torch.compile the incoming gradient's strides at run time
        # may differ from the traced ones (CPU bf16 autocast), and the traced matmul views it; contiguous() would
        # be traced away.
        g = g.clone(memory_format=torch.contiguous_format)
        R, B, L, d = u.shape
        H, D = Gt.shape[1], Gt.shape[2]
        qg = (q[:, :, None, :] * Gt[:, None]).reshape(R, B * H, D)  # recomputed, bit for bit the forward's
        grad_u = grad_q = grad_W = None
        if ctx.needs_input_grad[0]:
            a = torch.bmm(qg, W_K.transpose(1, 2)).reshape(R, B, H, d)
            grad_u = torch.matmul(g.transpose(-1, -2), a)  # [R, B, L, d]
        if ctx.needs_input_grad[1] or ctx.needs_input_grad[2]:
            grad_a = torch.matmul(g, u).reshape(R, B * H, d)  # [R, B * H, d]
            if ctx.needs_input_grad[1]:
                grad_q = (torch.bmm(grad_a, W_K).reshape(R, B, H, D) * Gt[:, None]).sum(2)  # [R, B, D]
            if ctx.needs_input_grad[2]:
                grad_W = torch.bmm(grad_a.transpose(1, 2), qg)  # [R, d, D]; zero on columns of no slot
        return grad_u, grad_q, grad_W, None


def _slot_scores(u: torch.Tensor, q: torch.Tensor, W_K: torch.Tensor, G: torch.Tensor) -> torch.Tensor:
    """Every slot's scores ``[R, B, H, L]`` (see :class:`_SlotScores`). Under autocast the inputs are cast to
    the autocast dtype here (as autocast's matmuls would cast them) and the products run in that dtype."""
    dev = u.device.type
    Gt = G.transpose(1, 2)  # [R, H, D]
    if torch.is_autocast_enabled(dev):
        dt = torch.get_autocast_dtype(dev)
        with torch.autocast(dev, enabled=False):
            return _SlotScores.apply(u.to(dt), q.to(dt), W_K.to(dt), Gt.to(dt))
    dt = torch.promote_types(torch.promote_types(u.dtype, q.dtype), W_K.dtype)
    return _SlotScores.apply(u.to(dt), q.to(dt), W_K.to(dt), Gt.to(dt))


def normed_inputs_v3(E: torch.Tensor, pairs: torch.Tensor, query: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """The block's inputs as this block reads them: ``n`` ``[..., L, d]``, the rows of
    :func:`rgr_verify.models.transformer.block_inputs` normalised without LayerNorm-1's gain and bias (a function of the
    frozen table and the data only, so no gradient flows into it), and ``x_last`` ``[..., d]``, the last
    position's input row E[q] (the residual stream's start). The rows equal block_inputs' bit for bit; each pair
    row is the sum of two gathered rows, without the ``[..., l, 2, d]`` gather in between."""
    null = E.shape[0] - 1
    x = E[pairs[..., 0]] + E[pairs[..., 1]]  # [..., l, d]: the same sum as E[pairs].sum(-2)
    x_last = E[query]
    X = torch.cat([x, E[torch.full_like(query, null)][..., None, :], x_last[..., None, :]], dim=-2)
    return F.layer_norm(X, X.shape[-1:]), x_last


def block_logits_v3(params: dict, X: torch.Tensor, E: torch.Tensor, layout: BlockLayoutV3, *,
                    float32_logits: bool = False, keep: dict | None = None) -> torch.Tensor:
    """Last-position logits ``[R, B, m + 1]`` of R stacked runs with mixed (D_K, h), without the keys.

    Args: params from :func:`init_block_params_v3`; X ``[R, B, L, d]`` (from
    :func:`rgr_verify.models.transformer.block_inputs`); E ``[m + 1, d]``; layout from :func:`layout_v3`;
    ``float32_logits``: the unembedding in float32 even under autocast (as today's); ``keep``: a dict that
    receives the intermediate tensors ``scores``, ``attn``, ``z`` and ``y`` (for tests that inspect them; None in
    training). Training calls :func:`block_logits_normed_v3` on :func:`normed_inputs_v3` instead.
    """
    _check_block_args(params, X, E, layout)
    n = F.layer_norm(X, X.shape[-1:])
    return block_logits_normed_v3(params, n, X[:, :, -1], E, layout, float32_logits=float32_logits, keep=keep)


def block_logits_normed_v3(params: dict, n: torch.Tensor, x_last: torch.Tensor, E: torch.Tensor,
                           layout: BlockLayoutV3, *, float32_logits: bool = False,
                           keep: dict | None = None) -> torch.Tensor:
    """:func:`block_logits_v3` from the normalised inputs ``n`` ``[R, B, L, d]`` and the last input row
    ``x_last`` ``[R, B, d]`` (:func:`normed_inputs_v3`).

    LayerNorm-1's gain and bias are folded into the weights (the same function; only the order of the sums
    changes). With u_j = n_j * w + b (w, b: LN-1's gain and bias):

    * score_jk = u_j . a_k = n_j . (w * a_k) + b . a_k: the gain goes into W_K (w * W_K is a [d, D] matrix a
      run), and b . a_k is the same for every position j of slot k, which the softmax ignores;
    * z_k W_V = sum_j attn_jk u_j W_V = (sum_j attn_jk n_j) (w * W_V) + b W_V, since a used slot's weights sum
      to 1, and each value column belongs to exactly one used slot.

    So the ``[R, B, L, d]`` tensor the attention reads is ``n``, which needs no gradient: neither the LN-1 output
    nor its ``[R, B, L, d]`` gradient is formed, nor the gain's and bias' elementwise kernels over it. Under autocast
    ``n`` is cast once to the autocast dtype and every product reads that copy.
    """
    R, B, L, d = n.shape
    H = layout.G.shape[-1]
    dev = n.device.type
    if torch.is_autocast_enabled(dev):  # one low-precision copy, read by the scores and the weighted sum
        n = n.to(torch.get_autocast_dtype(dev))
    w1, b1 = params["ln1_w"], params["ln1_b"]
    u_last = n[:, :, -1] * w1[:, None] + b1[:, None]  # [R, B, d]: LN-1's output at the query position
    q = torch.bmm(u_last, params["W_Q"])  # [R, B, D]
    scores = _slot_scores(n, q, w1[:, :, None] * params["W_K"], layout.G)  # [R, B, H, L]: n_j . (w * a_k)
    # Softmax in at least float32 (autocast may hand bfloat16 scores), over the L positions; unused slots score 0.
    wide = torch.promote_types(scores.dtype, torch.float32)
    attn = torch.softmax(scores.to(wide) * layout.scale.view(R, 1, H, 1).to(wide), dim=-1).to(n.dtype)
    attn = attn * layout.slot_mask.view(R, 1, H, 1).to(n.dtype)  # unused slots: exactly zero weight
    z = torch.matmul(attn, n)  # [R, B, H, d]: per-slot average of n_j
    y = torch.bmm(z.reshape(R, B * H, d), w1[:, :, None] * params["W_V"]).reshape(R, B, H, d)  # every slot, all of W_V
    v = torch.einsum("rbhc,rch->rbc", y, layout.GV.to(y.dtype))  # [R, B, d]: column c from its own head
    v = v + torch.bmm(b1[:, None], params["W_V"])  # + b W_V: each column's head weights sum to 1
    r1 = x_last + torch.bmm(v, params["W_O"])  # [R, B, d]
    hid = F.gelu(torch.bmm(_ln(r1, params["ln2_w"], params["ln2_b"]), params["W_in"]) + params["b_in"][:, None])
    r2 = r1 + torch.bmm(hid, params["W_out"]) + params["b_out"][:, None]  # [R, B, d]
    out = _ln(r2, params["lnf_w"], params["lnf_b"])  # [R, B, d]
    if keep is not None:
        keep.update(scores=scores, attn=attn, z=z, y=y)
    if float32_logits:
        with torch.autocast(n.device.type, enabled=False):
            return torch.matmul(out.float(), E.float().T)  # [R, B, m + 1]
    return torch.matmul(out, E.T)  # [R, B, m + 1]


def block_loss_v3(params: dict, E: torch.Tensor, layout: BlockLayoutV3, pairs: torch.Tensor, query: torch.Tensor,
                  label: torch.Tensor) -> torch.Tensor:
    """The step's loss: each run's mean float32 cross-entropy ``[R]`` of the last-position logits on the batch
    (pairs ``[R, B, l, 2]``, query and label ``[R, B]``), the block under whatever autocast the caller entered and
    the cross-entropy outside it. The function :class:`CompiledLoss` compiles."""
    n, x_last = normed_inputs_v3(E, pairs, query)  # [R, B, L, d], [R, B, d]; no gradient flows into them
    logits = block_logits_normed_v3(params, n, x_last, E, layout)
    R, B = label.shape
    with torch.autocast(E.device.type, enabled=False):
        flat = logits.float().reshape(R * B, logits.shape[-1])  # [R * B, m + 1]
        return F.cross_entropy(flat, label.reshape(-1), reduction="none").reshape(R, B).sum(1) / B


def compile_enabled(device: str) -> bool:
    """Whether the v3 step's loss goes through ``torch.compile``: ``$RGR_VERIFY_COMPILE`` "1" or "0"; unset, on
    CUDA only (on a CPU compiling costs more than it saves, and needs a C++ compiler)."""
    value = env(COMPILE_ENV)
    if value is None:
        return device == "cuda"
    if value.strip() not in ("0", "1"):
        raise ValueError(f"RGR_VERIFY_COMPILE must be '0' or '1', got {value!r}")
    return value.strip() == "1"


class CompiledLoss:
    """:func:`block_loss_v3` through ``torch.compile(fullgraph=True, dynamic=False)`` (``backend``: inductor by
    default), with an automatic eager fallback: :func:`train_step_v3` runs the compiled forward and backward inside
    a guard, and if either raises (a graph break under ``fullgraph``, a compiler or kernel failure, at the first
    step or later), it warns once (RuntimeWarning), discards that step's gradients and runs the same step eagerly;
    every later step is eager (``eager`` is then True). No parameter has changed when the fallback runs (the
    optimiser steps after the backward pass), so the fallen-back step is the eager step on the same batch
    (independent review: parameters, losses and AdamW state bit for bit an eager run's, for failures planted at
    compile, in the backward's compile, in the backward and in a later step). Each batch shape (R, Dmax, Hmax)
    compiles the function once (Dynamo's cache serves later batches of the shape); Dynamo's recompile limit (8
    shapes of one function in one process) makes a 9th shape fall back, with the warning. The sweep lays every
    batch at the preset's widest layout, so a device call compiles once a batch size: one or two, the probe two."""

    def __init__(self, backend="inductor"):
        self.backend = backend
        self.eager = False
        self.reason: str | None = None
        self._fn = torch.compile(block_loss_v3, fullgraph=True, dynamic=False, backend=backend)

    def __call__(self, *args):
        return block_loss_v3(*args) if self.eager else self._fn(*args)

    def fall_back(self, exc: BaseException) -> None:
        """Eager from now on, with a warning naming the failure."""
        self.eager = True
        self.reason = f"{type(exc).__name__}: {' '.join(str(exc).split())[:300]}"
        warnings.warn(f"the compiled Sec. 7.3 v3 loss failed ({self.reason}); the step runs eagerly from now on "
                      "(the same function, without fusion; an error of the step itself then raises from the eager "
                      "rerun)", RuntimeWarning, stacklevel=3)


def train_step_v3(params: dict, opt, E: torch.Tensor, layout: BlockLayoutV3, batch, *, autocast=None,
                  batch_size: int, reapply_mask: bool = True, loss: CompiledLoss | None = None) -> torch.Tensor:
    """One optimiser update of every stacked run on ``batch`` = (pairs ``[R, B, l, 2]``, query, label ``[R, B]``).

    As today's step: the block under ``autocast()`` (a context factory; None = none), float32 cross-entropy on
    the last position, the loss summed over runs of each run's mean (so the runs' gradients stay independent),
    one ``opt.step()``, then the padded key columns of W_Q and W_K set to zero again (``reapply_mask``). ``loss``:
    a :class:`CompiledLoss` (None: :func:`block_loss_v3` eagerly). Returns each run's mean loss ``[R]``,
    detached, on the device (reading it waits for the device).
    """
    batch_size = check_int("batch_size", batch_size, min_value=1)
    pairs, query, label = batch
    if label.ndim != 2 or label.shape[1] != batch_size:
        raise ValueError(f"label must have shape [R, batch_size = {batch_size}], got {tuple(label.shape)}")

    def forward_backward(fn):
        with (autocast() if autocast is not None else contextlib.nullcontext()):
            per_run = fn(params, E, layout, pairs, query, label)  # [R]
        opt.zero_grad(set_to_none=True)
        per_run.sum().backward()
        return per_run

    if loss is not None and not loss.eager:
        try:
            per_run = forward_backward(loss)
        except Exception as exc:  # compiling or running the compiled graph failed: this step again, eagerly
            if E.device.type == "cuda" and torch.cuda.is_current_stream_capturing():
                raise  # a failure inside a CUDA graph capture is the capture's (GraphCaptureFailed), not compile's
            loss.fall_back(exc)
            per_run = forward_backward(block_loss_v3)
    else:
        per_run = forward_backward(block_loss_v3)
    opt.step()
    if reapply_mask:
        with torch.no_grad():  # padded key columns get no gradient; this also guards against decay or drift
            params["W_Q"].mul_(layout.key_mask.to(params["W_Q"].dtype))
            params["W_K"].mul_(layout.key_mask.to(params["W_K"].dtype))
    return per_run.detach()


@torch.no_grad()
def evaluate_v3(params: dict, E: torch.Tensor, layout: BlockLayoutV3, data, *, autocast=None, chunk: int = 1024):
    """Accuracy ``[R]`` and NULL-prediction rate ``[R]`` on fixed examples ``data`` = (pairs, query, label)."""
    chunk = check_int("chunk", chunk, min_value=1)
    pairs, query, label = data
    R, n = label.shape
    correct = torch.zeros(R, device=E.device)
    null = torch.zeros(R, device=E.device)
    for lo in range(0, n, chunk):
        with (autocast() if autocast is not None else contextlib.nullcontext()):
            normed, x_last = normed_inputs_v3(E, pairs[:, lo : lo + chunk], query[:, lo : lo + chunk])
            pred = block_logits_normed_v3(params, normed, x_last, E, layout, float32_logits=True).argmax(-1)  # [R, b]
        correct += (pred == label[:, lo : lo + chunk]).sum(1)
        null += (pred == E.shape[0] - 1).sum(1)
    return correct / n, null / n


# ----------------------------------------------------------------------------------------------------------------
# The trainer: train_block_runs's contract, with runs of any (D_K, h) in one batch.


class BatchOverrun(DeadlineReached):
    """Raised by :func:`train_block_runs_v3` when a batch's step rate says it would end after the deadline: the
    batch is dropped at that evaluation instead of at the deadline (``projected_s``: its projected duration)."""

    def __init__(self, message: str, projected_s: float):
        super().__init__(message)
        self.projected_s = projected_s


class GraphCaptureFailed(RuntimeError):
    """The CUDA graph capture of the v3 training step failed (a capture runs nothing; the warm-up steps did):
    :func:`train_block_runs_v3` then retrains the batch from its start eagerly, so its runs are the eager loop's."""


_WARMUP = 3  # eager steps before the capture (graphed_step's warm-up)
# Seconds past the deadline a kept batch may be projected to end (the first projection allows none): the device
# script kills the sweep 15 s after its --stop-after deadline, less the sweep's start-up.
LATE_GRACE_S = 5.0


def _stepper_v3(params, opt, E, layout, packed, batch_size, ell, gens, *, autocast, graph: bool,
                warmup: int = _WARMUP, loss: CompiledLoss | None = None) -> Callable[[], None]:
    """One training step per call (the batched sampler, then :func:`train_step_v3`). With ``graph`` (CUDA):
    ``warmup`` eager calls on the capture stream, then the whole step captured by the engine's
    ``ChunkGraphs.record`` with the runs' generators registered (so each replay draws what the next eager step
    would), and replayed from then on, as :mod:`rgr_verify.models.transformer` does for today's block. A failed capture
    raises :class:`GraphCaptureFailed`."""

    def eager():
        batch = stack_examples(packed, batch_size, ell, gens)
        train_step_v3(params, opt, E, layout, batch, autocast=autocast, batch_size=batch_size, loss=loss)

    if not graph:
        return eager
    return graphed_step(eager, opt, gens, E.device, warmup=warmup, failure=lambda exc: GraphCaptureFailed(
        f"CUDA graph capture of the Sec. 7.3 v3 step failed ({type(exc).__name__}: {exc})"))


def _fixed_examples(perms, moved, n, ell, purpose, specs, device):
    """The validation (``purpose`` 3) or test (4) examples of every run, drawn on the CPU run by run from its own
    generator: the same tensors as one stacked draw (each run's examples are those it would draw alone,
    :func:`rgr_verify.models.transformer_task.stack_examples`), with memory bounded by one run's ``[n, m]`` keys instead of
    R of them (56 runs of the full tier: 11 GB at once). For a CUDA batch the runs are drawn in parallel threads
    (each from its own generator, so the draws do not depend on the threads); on a CPU one after the other."""

    def one(r):
        g = run_generator(specs[r].seed, purpose)
        return stack_examples(pack_runs([perms[r]], [moved[r]]), n, ell, [g])

    R = len(specs)
    if device.type == "cuda" and R > 1:
        with ThreadPoolExecutor(max_workers=min(R, 8, os.cpu_count() or 1)) as pool:
            parts = list(pool.map(one, range(R)))
    else:
        parts = [one(r) for r in range(R)]
    return tuple(torch.cat([p[i] for p in parts]) for i in range(3))


@dataclass
class _Batch:
    """A mixed batch ready to train: parameters on the device, layout, optimiser, sampler state, autocast."""

    params: dict
    layout: BlockLayoutV3
    opt: torch.optim.Optimizer
    perms: list
    moved: list
    packed: tuple
    gens: list
    autocast: Callable
    loss: CompiledLoss | None


def _compile_backend(compile, device: str) -> str | None:
    """The torch.compile backend of ``compile`` (None: :func:`compile_enabled`; True: inductor; False: none; a
    string: that backend, e.g. ``"aot_eager"`` in tests), or None for the eager loss."""
    if compile is None:
        compile = compile_enabled(device)
    if compile is True:
        return "inductor"
    if compile is False:
        return None
    if isinstance(compile, str) and compile:
        return compile
    raise ValueError(f"compile must be a bool, None or a torch.compile backend name, got {compile!r}")


def _set_up_batch(E, specs, task, cfg, device, backend=None, shape=None) -> _Batch:
    """Dmax and Hmax are ``shape`` or else the batch's largest D_K and h. Initialisation and permutations are drawn on
    the CPU, the training data on the device, each run from its own generators (keyed by its seed and a purpose), as
    today."""
    d = E.shape[1]
    Dmax, Hmax = shape if shape is not None else (max(s.D_K for s in specs), max(s.n_heads for s in specs))
    init = init_block_params_v3(specs, d, task.d_ff, Dmax, Hmax, init_std=cfg.init_std)
    params = {k: v.to(device).requires_grad_() for k, v in init.items()}
    layout = layout_v3(specs, Dmax, Hmax, d, device)
    perms = [sample_permutation(task.m, generator=run_generator(s.seed, 2)) for s in specs]
    moved = [moved_items(p) for p in perms]
    if any(q.numel() == 0 for q in moved):  # probability 1/m!: a seed whose permutation is the identity
        raise ValueError(f"the permutation of some seed in {[s.seed for s in specs]} moves no item; use another seed")
    packed = tuple(x.to(device) if isinstance(x, torch.Tensor) else x for x in pack_runs(perms, moved))
    gens = [run_generator(s.seed, 5, device=device) for s in specs]
    opt = torch.optim.AdamW(list(params.values()), lr=cfg.lr, weight_decay=cfg.weight_decay, fused=True)
    use_amp = cfg.mixed_precision and device.type == "cuda"

    def autocast():
        # No cast cache, graphed or not: torch's rule under graphs, and the same state eagerly, since Dynamo guards
        # the flag: the compiled loss is then one graph for the graphed step, its eager warm-up, the eager retrain
        # of a failed capture and an eager loop. The cache only saves recasting a weight used twice in a forward.
        if not use_amp:
            return contextlib.nullcontext()
        return torch.autocast("cuda", dtype=torch.bfloat16, cache_enabled=False)

    return _Batch(params, layout, opt, perms, moved, packed, gens, autocast,
                  CompiledLoss(backend) if backend is not None else None)


def _train_batch_v3(E, specs, task, cfg, device, progress, deadline, cuda_graph, backend=None,
                    shape=None) -> list[BlockRunResult]:
    """One mixed batch: Dmax and Hmax are ``shape`` or else its runs' largest D_K and h."""
    t0 = time.perf_counter()
    b = _set_up_batch(E, specs, task, cfg, device, backend, shape)
    params, layout, autocast = b.params, b.layout, b.autocast
    Dmax, Hmax = layout.G.shape[1], layout.G.shape[2]
    # As today's trainer: validation and test sets drawn on the CPU (device-independent).
    val = [x.to(device) for x in _fixed_examples(b.perms, b.moved, cfg.n_val, task.ell, 3, specs, device)]
    test = [x.to(device) for x in _fixed_examples(b.perms, b.moved, cfg.n_test, task.ell, 4, specs, device)]
    R = len(specs)
    best_val = torch.full((R,), -1.0)
    best_test, best_null = torch.zeros(R), torch.zeros(R)
    best_step, last_step = torch.zeros(R, dtype=torch.long), torch.zeros(R, dtype=torch.long)
    final_test = torch.zeros(R)
    stale = torch.zeros(R, dtype=torch.long)  # evaluations since the run last improved
    stopped = torch.zeros(R, dtype=torch.bool)  # runs whose record is final (patience reached)
    graph = cuda_graph and device.type == "cuda"
    one_step = _stepper_v3(params, b.opt, E, layout, b.packed, cfg.batch_size, task.ell, b.gens, autocast=autocast,
                           graph=graph, loss=b.loss)
    # The step rate that may drop the batch is measured from the end of the first evaluation after the steps that
    # compile and capture (the first step; with a graph, the warm-up steps and the capture): one-time costs (a
    # compile of tens of seconds, the capture, the first evaluation's allocations) must not read as slow steps, since
    # a rate is multiplied by every step left (a second's stall over 1 000 steps would move a 100 000-step batch's
    # projected end by 100 s). The rate is the mean since then, evaluations included, so a brief pause later weighs
    # little.
    settled = min(cfg.steps, _WARMUP + 1 if graph else 1)
    start = None  # (step, time) at the end of the first evaluation after the settled step
    projected_before = False  # whether an evaluation has projected the batch's end (see LATE_GRACE_S)
    for step in range(1, cfg.steps + 1):
        one_step()
        if step % cfg.eval_every == 0 or step == cfg.steps:  # the only point where the loop waits for the device
            v_acc, _ = evaluate_v3(params, E, layout, val, autocast=autocast)
            t_acc, t_null = evaluate_v3(params, E, layout, test, autocast=autocast)
            v_acc, t_acc, t_null = v_acc.cpu(), t_acc.cpu(), t_null.cpu()
            live = ~stopped
            improved = live & (v_acc > best_val)
            best_val = torch.where(improved, v_acc, best_val)
            best_test = torch.where(improved, t_acc, best_test)
            best_null = torch.where(improved, t_null, best_null)
            best_step = torch.where(improved, torch.tensor(step), best_step)
            final_test = torch.where(live, t_acc, final_test)
            last_step = torch.where(live, torch.tensor(step), last_step)
            stale = torch.where(improved, torch.zeros_like(stale), stale + live.long())
            if progress is not None:
                progress(step, specs, v_acc, t_acc)
            if cfg.patience:  # per run: a run's record ends where it would end if it trained alone
                stopped = stopped | (stale >= cfg.patience)
                if bool(stopped.all()):
                    break
            now = time.monotonic()
            # The step rate (above) says when the batch would end. Its first projection decides whether the batch
            # is kept: past the deadline, it is dropped now rather than at the deadline (its time left goes to
            # smaller batches). A kept batch runs on; it is dropped only when the deadline has passed and it would
            # end more than LATE_GRACE_S after it, so that a batch nearly done is not thrown away for a pause or
            # the noise of a rate (the caller's hard limit lies beyond that grace).
            rate = (now - start[1]) / (step - start[0]) if start is not None and step > start[0] else None
            end = now + rate * (cfg.steps - step) if rate is not None else None
            grace = LATE_GRACE_S if projected_before else 0.0
            late = deadline is not None and step < cfg.steps
            if late and now > deadline and (end is None or end > deadline + grace):
                raise DeadlineReached(f"deadline reached at step {step} of a mixed batch of {R} runs (D_K <= {Dmax}, "
                                      f"h <= {Hmax}) after {time.perf_counter() - t0:.1f} s; batch dropped")
            first_projection = end is not None and not projected_before
            projected_before = projected_before or end is not None
            if late and first_projection and end > deadline:
                projected = time.perf_counter() - t0 + rate * (cfg.steps - step)
                raise BatchOverrun(f"a mixed batch of {R} runs (D_K <= {Dmax}, h <= {Hmax}) would take about "
                                   f"{projected:.0f} s ({1000 * rate:.2f} ms a step at step {step}) and end "
                                   f"{end - deadline:.0f} s after the deadline; batch dropped", projected)
            if start is None and step >= settled:
                start = (step, time.monotonic())
    seconds = time.perf_counter() - t0
    return [BlockRunResult(s, float(best_val[r]), float(best_test[r]), float(best_null[r]), int(best_step[r]),
                           float(final_test[r]), int(last_step[r]), seconds) for r, s in enumerate(specs)]


def train_block_runs_v3(
    E,
    specs: Sequence[RunSpec],
    task: TaskConfig,
    cfg: TrainConfig,
    *,
    device: str = "cpu",
    max_batch_runs: int = 64,
    progress: Callable | None = None,
    deadline: float | BatchDeadline | None = None,
    on_batch: Callable | None = None,
    cuda_graph: bool | None = None,
    compile: bool | str | None = None,
    shape: tuple[int, int] | None = None,
) -> list[BlockRunResult]:
    """Train every run of ``specs`` on the Sec. 7.3 task with the frozen table ``E`` ``[m + 1, d_model]``, with
    the keyless block of this module, runs of any (D_K, h) in one batch.

    The contract of :func:`rgr_verify.models.transformer.train_block_runs`: the same per-run generators (initialisation,
    permutation, validation and test sets, training data), the same evaluation cadence and fields of
    :class:`~rgr_verify.models.transformer.BlockRunResult`, bf16 autocast on CUDA (``cfg.mixed_precision``) with the
    cross-entropy and the evaluation logits in float32, one CPU thread on a CPU, and the same ``deadline``,
    ``progress(step, specs, val_acc, test_acc)`` and ``on_batch(indices, results)`` semantics. Differences:

    * Batches are consecutive chunks of ``specs`` in the given order, ``max_batch_runs`` runs each, whatever their
      D_K and h (a batch's Dmax and Hmax are its runs' largest); the caller picks the order.
    * Early stopping (``cfg.patience``) is per run: a run's record (best and final accuracies, ``steps``) ends at
      the evaluation where it has gone ``patience`` evaluations without improving, the batch stops when every run
      has; so a run's result does not depend on the runs it shares a batch with (today's trainer stops a batch when
      no run of it has improved, which is the same rule for a batch of one run).
    * Besides the deadline's rules, a batch whose step rate says it would end after the deadline is dropped at its
      second evaluation after its compile and capture (:class:`BatchOverrun`, a DeadlineReached with the projected
      duration; the rate is measured from the end of the first), not at the deadline: the caller may retry its
      runs in smaller batches. A batch kept then is dropped only when the deadline has passed and it would end
      more than :data:`LATE_GRACE_S` after it.
    * On CUDA the step is replayed as a CUDA graph (``cuda_graph``, default ``RGR_VERIFY_CUDA_GRAPHS``); a failed
      capture warns (RuntimeWarning), retrains that batch from its start eagerly and trains the later batches of
      the call eagerly: the eager loop's runs, never half of each.
    * ``compile`` (default ``RGR_VERIFY_COMPILE``, on CUDA only; True = inductor, or a backend's name): the loss
      through :class:`CompiledLoss`, which falls back to the eager loss with a warning if compiling or running it
      fails (:func:`train_step_v3`). Compiled and eager steps compute the same function in another order of
      operations, so their runs agree within float rounding, not bit for bit.
    * ``shape`` (Dmax, Hmax): every batch laid out at that key width and number of head slots (at least every
      run's D_K and h) instead of its own runs' largest, so that batches of one size have one shape (one compiled
      graph; torch.compile here does not generalise over shapes). The padding is exact zeros that stay zero, so a
      run's result changes by float rounding at most.

    Returns one BlockRunResult per spec, in the order of ``specs``.
    """
    E, specs, deadline, cuda_graph, max_batch_runs, dev = block_run_args(
        E, specs, task, cfg, device=device, max_batch_runs=max_batch_runs, deadline=deadline, cuda_graph=cuda_graph,
        progress=progress, on_batch=on_batch)
    backend = _compile_backend(compile, device)
    if shape is not None:
        if not (isinstance(shape, tuple) and len(shape) == 2):
            raise ValueError(f"shape must be a (Dmax, Hmax) pair, got {shape!r}")
        shape = (check_int("shape's Dmax", shape[0], min_value=max(s.D_K for s in specs)),
                 check_int("shape's Hmax", shape[1], min_value=max(s.n_heads for s in specs)))
    bad = sorted({s.n_heads for s in specs if E.shape[1] % s.n_heads})
    if bad:  # checked before any batch trains
        raise ValueError(f"every run's n_heads must divide d_model = {E.shape[1]} (d_v = d_model / h), got {bad}")
    results: dict[int, BlockRunResult] = {}
    threads = torch.get_num_threads()
    if dev.type == "cpu":  # as today's trainer: one thread, so a run's numbers do not depend on the caller's
        torch.set_num_threads(1)
    graph = cuda_graph
    try:
        for lo in range(0, len(specs), max_batch_runs):
            chunk = list(range(lo, min(lo + max_batch_runs, len(specs))))
            batch = [specs[i] for i in chunk]
            start = deadline.start() if deadline is not None else None
            at = deadline.at if deadline is not None else None
            try:
                out = _train_batch_v3(E, batch, task, cfg, dev, progress, at, graph, backend, shape)
            except GraphCaptureFailed as exc:
                warnings.warn(f"{exc}; the batch of {len(batch)} runs restarts eagerly (the same runs, slower), and "
                              "later batches of this call train eagerly", RuntimeWarning, stacklevel=2)
                if dev.type == "cuda":
                    torch.cuda.synchronize(dev)
                graph = False
                out = _train_batch_v3(E, batch, task, cfg, dev, progress, at, False, backend, shape)
            if deadline is not None:
                deadline.finished(start)
            for i, res in zip(chunk, out):
                results[i] = res
            if on_batch is not None:
                on_batch(chunk, out)
    finally:
        torch.set_num_threads(threads)
    return [results[i] for i in range(len(specs))]


def time_steps_v3(E, specs: Sequence[RunSpec], task: TaskConfig, cfg: TrainConfig, *, device: str = "cpu",
                  steps: int = 200, cuda_graph: bool | None = None, compile: bool | str | None = None) -> float:
    """Seconds a training step of the mixed batch ``specs`` takes (one batch, whatever its size): the step of
    :func:`train_block_runs_v3` (graphed on CUDA as there), timed over ``steps`` steps after the warm-up and the
    capture, without evaluations. For planning a sweep's batches (rgr_verify.runs.sec73_plan); trains nothing
    that is kept. ``compile`` as in :func:`train_block_runs_v3` (the compilation happens in the warm-up)."""
    if cuda_graph is None:
        cuda_graph = device == "cuda" and cuda_graphs_enabled()
    if not isinstance(cuda_graph, bool):
        raise ValueError(f"cuda_graph must be a bool or None, got {cuda_graph!r}")
    steps = check_int("steps", steps, min_value=1)
    check_choice("device", device, ("cpu", "cuda"))
    specs = list(specs)
    if not specs or not all(isinstance(s, RunSpec) for s in specs):
        raise ValueError("specs must be a non-empty sequence of RunSpec")
    if not isinstance(task, TaskConfig) or not isinstance(cfg, TrainConfig):
        raise ValueError("task must be a TaskConfig and cfg a TrainConfig")
    dev = torch.device(device)
    if dev.type == "cuda" and not torch.cuda.is_available():
        raise ValueError("device must be 'cpu' when CUDA is not available, got 'cuda'")
    E = torch.as_tensor(np.asarray(E, dtype=np.float32) if not isinstance(E, torch.Tensor) else E,
                        dtype=torch.float32).to(dev)
    if E.ndim != 2 or E.shape[0] != task.m + 1:
        raise ValueError(f"E must have shape [m + 1 = {task.m + 1}, d_model], got {tuple(E.shape)}")
    graph = cuda_graph and dev.type == "cuda"
    b = _set_up_batch(E, specs, task, cfg, dev, _compile_backend(compile, device))
    one_step = _stepper_v3(b.params, b.opt, E, b.layout, b.packed, cfg.batch_size, task.ell, b.gens,
                           autocast=b.autocast, graph=graph, loss=b.loss)
    sync = torch.cuda.synchronize if dev.type == "cuda" else (lambda: None)
    for _ in range(_WARMUP + 2):  # the warm-up steps (the compile in the first), the capture, one replay
        one_step()
    sync()
    t = time.perf_counter()
    for _ in range(steps):
        one_step()
    sync()
    return (time.perf_counter() - t) / steps


def memory_per_run_v3(task: TaskConfig, cfg: TrainConfig, d_model: int, Dmax: int, Hmax: int) -> tuple[float, float]:
    """Bytes a v3 training step holds at once, as (a batch's own, each run's): measured on the CPU at R = 1 and 2
    runs of (Dmax, Hmax) at ``task``/``cfg``'s shapes under bf16 autocast (as on CUDA), with a random table.

    Counted: the tensors the backward pass keeps (saved-tensor hooks, each storage once), the parameters, their
    gradients and AdamW's two moments, the sampler's ``[B, m]`` keys, and three float32 ``[B, m + 1]`` buffers of
    the cross-entropy (its log-probabilities, their gradient and one cast). A caching allocator adds its own slack,
    so a device call should keep a batch's estimate well below the device's memory (the probe's largest batch of
    the full tier needs a few GB; ``rgr-verify sec73 --plan-only`` prints it)."""
    d_model = check_int("d_model", d_model, min_value=1)

    def measure(R):
        specs = [RunSpec(Dmax, Hmax, s) for s in range(R)]
        p = {k: v.requires_grad_() for k, v in init_block_params_v3(specs, d_model, task.d_ff, Dmax, Hmax).items()}
        layout = layout_v3(specs, Dmax, Hmax, d_model)
        E = torch.randn(task.m + 1, d_model, generator=torch.Generator().manual_seed(0))
        g = torch.Generator().manual_seed(1)
        pairs = torch.randint(0, task.m, (R, cfg.batch_size, task.ell, 2), generator=g)
        query = torch.randint(0, task.m, (R, cfg.batch_size), generator=g)
        label = torch.randint(0, task.m, (R, cfg.batch_size), generator=g)
        seen: dict = {}

        def pack(t):
            st = t.untyped_storage()
            seen[st.data_ptr()] = st.nbytes()
            return t

        with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
            with torch.autocast("cpu", dtype=torch.bfloat16):
                loss = block_loss_v3(p, E, layout, pairs, query, label)
        del loss
        state = 4 * sum(v.numel() * v.element_size() for v in p.values())  # parameters, gradients, two moments
        transient = R * cfg.batch_size * (task.m * 4 + 3 * (task.m + 1) * 4)
        return sum(seen.values()) + state + transient

    one, two = measure(1), measure(2)
    return float(2 * one - two), float(two - one)
