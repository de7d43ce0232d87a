"""The stacked optimiser, and the seam where another one plugs in.

:func:`stacked_adamw_step` is a hand-written AdamW over stacked tensors, operation for operation the
single-tensor ``torch.optim.AdamW`` (lerp, addcmul, sqrt / sqrt(bias correction 2) + eps, addcdiv), so that each
run's slice is updated exactly as its own optimiser would update it (tested bitwise). Its graph-capturable twin
:func:`stacked_adamw_step_on_device` reads the step-dependent scalars from device tables
(:func:`adamw_scalar_tables`) indexed by a device step counter; it is bitwise equal on CPU (tested).

**Swapping the optimiser.** The training loop (:mod:`rgr_verify.engine.loop`) talks to its optimiser only
through :class:`Optimiser`: it builds one per batch as ``optimiser(theta, lr=..., weight_decay=..., max_step=...)``
and calls :meth:`~Optimiser.step` (host step count), or, on CUDA,
:meth:`~Optimiser.prepare_device` / :meth:`~Optimiser.set_device_step` / :meth:`~Optimiser.step_on_device`
(device step count, captured in CUDA graphs), and :meth:`~Optimiser.keep` when runs leave the batch. So another
optimiser is one class with these five methods, passed as ``train_runs(..., optimiser=MyOptimiser)``
(``empirical/test_engine.py`` trains plain SGD this way). :class:`StackedAdamW` is the default.
:class:`FusedAdamW` is an opt-in alternative: the same AdamW in one fused kernel per step (``torch._fused_adamw_``,
what ``torch.optim.AdamW(fused=True)`` runs: on CUDA one kernel plus the step increment, not about a dozen); it
is not bitwise :class:`StackedAdamW` (on CPU its moments are, its parameters differ by roundings of a square root:
``empirical/test_fused_adamw.py``). The store keys
(:func:`~rgr_verify.engine.config.run_key`) do not name the optimiser: results of another optimiser (FusedAdamW
included) must not be written to a results store.
"""

from __future__ import annotations

import math
from typing import Protocol, Sequence

import numpy as np
import torch

from ..basics.checks import check_int, check_real

__all__ = ["BETAS", "EPS", "stacked_adamw_step", "adamw_scalar_tables", "stacked_adamw_step_on_device",
           "Optimiser", "StackedAdamW", "FusedAdamW"]

BETAS = (0.9, 0.999)  # torch.optim.AdamW's defaults
EPS = 1e-8


def stacked_adamw_step(params: Sequence[torch.Tensor], grads: Sequence[torch.Tensor], exp_avgs, exp_avg_sqs,
                       step: int, *, lr: float, weight_decay: float = 0.0, betas=BETAS, eps: float = EPS,
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


def adamw_scalar_tables(n_steps: int, *, lr: float, betas=BETAS) -> np.ndarray:
    """``[n_steps + 1, 2]`` float64: row t holds (-lr / (1 - b1^t), sqrt(1 - b2^t)), the step-dependent scalars of
    :func:`stacked_adamw_step` at step t, computed by the same Python expressions (row 0 is NaN: unused)."""
    n_steps = check_int("n_steps", n_steps, min_value=1)
    out = np.full((n_steps + 1, 2), np.nan)
    beta1, beta2 = betas
    for step in range(1, n_steps + 1):
        out[step, 0] = -(lr / (1 - beta1**step))
        out[step, 1] = math.sqrt(1 - beta2**step)
    return out


def stacked_adamw_step_on_device(p: torch.Tensor, g: torch.Tensor, m: torch.Tensor, v: torch.Tensor,
                                 step: torch.Tensor, tables: torch.Tensor, denom: torch.Tensor, *, lr: float,
                                 weight_decay: float, betas=BETAS, eps: float = EPS) -> None:
    """:func:`stacked_adamw_step` (with ``buffers``) for one stacked tensor, with the step count on the device.

    ``step`` (0-dim long, the step count before this step) is incremented in place and indexes ``tables``
    (:func:`adamw_scalar_tables` in p's dtype, ``[T, 2]``), so no host value depends on the step and K
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


class Optimiser(Protocol):
    """What the training loop needs of an optimiser: the state of one batch's runs, row for row.

    A class implementing it is constructed as ``Cls(theta, *, lr, weight_decay, max_step)``: ``theta [R, P]`` the
    batch's flat parameter buffer (one run per row; pass-through for shapes, dtype and device), ``lr`` and
    ``weight_decay`` the runs' shared :class:`~rgr_verify.engine.config.RunConfig` values, ``max_step`` the last
    step any run of the batch can take. Updates must be elementwise per row (a run's update must not depend on
    its batch-mates) and in place on the ``theta`` passed to each call (the loop keeps the tensor).
    """

    def step(self, theta: torch.Tensor, grad: torch.Tensor, step: int) -> None:
        """One update of ``theta`` from ``grad [R, P]``; ``step`` is the step count after this step (>= 1)."""

    def prepare_device(self, last_step: int) -> bool:
        """Before a chunk of :meth:`step_on_device` calls that ends at ``last_step``: allocate what those calls
        read. True when it replaced a tensor that earlier chunks read (captured CUDA graphs must then be
        dropped)."""

    def set_device_step(self, step: int) -> None:
        """Set the device step counter to ``step`` (the step count before the next :meth:`step_on_device`)."""

    def step_on_device(self, theta: torch.Tensor, grad: torch.Tensor) -> None:
        """:meth:`step` with the step count read from and advanced on the device, so that calls can be captured
        in a CUDA graph (no host value may depend on the step); may overwrite ``grad``."""

    def keep(self, idx: torch.Tensor) -> None:
        """Keep only the rows ``idx`` (long tensor on the batch's device): runs that left the batch."""


class _AdamWMoments:
    """What both AdamW optimisers hold: the validated constants and the per-row moments ``exp_avg``,
    ``exp_avg_sq`` (zeros like ``theta [R, P]``); :meth:`keep` keeps the moments of the rows that stay."""

    _MAX_STEP: int | None = None  # the largest step count the update can represent (None: no limit)

    def __init__(self, theta: torch.Tensor, *, lr: float, weight_decay: float, max_step: int):
        if not isinstance(theta, torch.Tensor) or theta.ndim != 2:
            raise ValueError(f"theta must be a [R, P] tensor, got {getattr(theta, 'shape', type(theta).__name__)}")
        if not theta.is_floating_point():
            raise ValueError(f"theta must be a floating-point tensor, got dtype {theta.dtype}")
        check_real("lr", lr, low=0, low_open=True)
        check_real("weight_decay", weight_decay, low=0)
        self.lr, self.weight_decay = lr, weight_decay  # as given: the update's arithmetic uses these very values
        self.max_step = check_int("max_step", max_step, min_value=1, max_value=self._MAX_STEP)
        self.exp_avg = torch.zeros_like(theta)
        self.exp_avg_sq = torch.zeros_like(theta)

    def keep(self, idx: torch.Tensor) -> None:
        """Keep the moments of rows ``idx``."""
        self.exp_avg = self.exp_avg[idx].contiguous()
        self.exp_avg_sq = self.exp_avg_sq[idx].contiguous()


class StackedAdamW(_AdamWMoments):
    """The default :class:`Optimiser`: :func:`stacked_adamw_step` over the flat buffer (host step count), or
    :func:`stacked_adamw_step_on_device` (device step count), bitwise the same updates as one
    ``torch.optim.AdamW`` per run."""

    def __init__(self, theta: torch.Tensor, *, lr: float, weight_decay: float, max_step: int):
        super().__init__(theta, lr=lr, weight_decay=weight_decay, max_step=max_step)
        self.denom = torch.empty_like(theta)  # the denominator's buffer (overwritten every step)
        self.step_t = torch.zeros((), dtype=torch.long, device=theta.device)  # device step counter
        # Device scalar tables (adamw_scalar_tables in theta's dtype), built by the first prepare_device: a host-step
        # batch never needs them.
        self.tables: torch.Tensor | None = None

    def step(self, theta: torch.Tensor, grad: torch.Tensor, step: int) -> None:
        """:func:`stacked_adamw_step` on ``theta`` with this optimiser's moments and denominator buffer."""
        stacked_adamw_step([theta], [grad], [self.exp_avg], [self.exp_avg_sq], step, lr=self.lr,
                           weight_decay=self.weight_decay, buffers=[self.denom])

    def prepare_device(self, last_step: int) -> bool:
        """Build the scalar tables, covering ``max_step`` (rounded by the caller) and ``last_step``, unless they
        already cover ``last_step``. True when they were (re)built."""
        if self.tables is not None and self.tables.shape[0] > last_step:
            return False
        n = max(last_step, self.max_step)
        self.tables = torch.as_tensor(adamw_scalar_tables(n, lr=self.lr), dtype=self.exp_avg.dtype,
                                      device=self.exp_avg.device)
        return True

    def set_device_step(self, step: int) -> None:
        """Set the device step counter (before a chunk, and again after a failed capture)."""
        self.step_t.fill_(step)

    def step_on_device(self, theta: torch.Tensor, grad: torch.Tensor) -> None:
        """:func:`stacked_adamw_step_on_device` (``grad`` is used as scratch)."""
        stacked_adamw_step_on_device(theta, grad, self.exp_avg, self.exp_avg_sq, self.step_t, self.tables,
                                     self.denom, lr=self.lr, weight_decay=self.weight_decay)

    def keep(self, idx: torch.Tensor) -> None:
        """Keep the moments of rows ``idx``; a fresh denominator buffer of the new shape."""
        super().keep(idx)
        self.denom = torch.empty_like(self.exp_avg)


# The fused kernel reads the step count from a float32 tensor (what torch.optim.AdamW(fused=True) keeps), exact for
# integers up to 2**24.
_FUSED_MAX_STEP = 2**24


class FusedAdamW(_AdamWMoments):
    """An opt-in :class:`Optimiser`: AdamW (amsgrad off, betas :data:`BETAS`, eps :data:`EPS`) as one fused kernel
    per step, ``torch._fused_adamw_`` (the kernel of ``torch.optim.AdamW(fused=True)``, on CPU and CUDA), over the
    flat buffer: elementwise, so each row gets its own run's update.

    Not bitwise :class:`StackedAdamW`. On CPU the moments are bitwise equal and the parameters are bitwise the
    formula of :func:`stacked_adamw_step` with a correctly rounded square root, while ``torch.sqrt`` (which
    :class:`StackedAdamW` and ``torch.optim.AdamW`` call) is not correctly rounded on some CPU builds, so parameters
    differ by about one rounding per step; CUDA's kernel rounds in its own way. Tolerance-tested in
    ``empirical/test_fused_adamw.py`` (small whole trainings on CPU: the same decisions, weights within 1e-15 in
    float64 and within float32 rounding in float32, measured). Its results must not go into a results store.
    The step count lives in a 0-dim float32 tensor on theta's device that the kernel reads: :meth:`step` sets it,
    :meth:`step_on_device` increments it in place before the call, so no host value depends on the step
    (CUDA-graph capturable).
    """

    _MAX_STEP = _FUSED_MAX_STEP

    def __init__(self, theta: torch.Tensor, *, lr: float, weight_decay: float, max_step: int):
        super().__init__(theta, lr=lr, weight_decay=weight_decay, max_step=max_step)
        self.step_t = torch.zeros((), dtype=torch.float32, device=theta.device)  # the step count the kernel reads

    def _update(self, theta: torch.Tensor, grad: torch.Tensor) -> None:
        """One fused AdamW update of ``theta`` in place at the step count in ``step_t`` (already advanced).

        The CPU kernel walks raw memory (a strided tensor would be misread silently), so theta must be contiguous
        and of the moments' shape and dtype; a strided ``grad`` is copied."""
        m = self.exp_avg
        if theta.shape != m.shape or grad.shape != m.shape or theta.dtype != m.dtype or grad.dtype != m.dtype:
            raise ValueError(f"theta and grad must be {m.dtype} tensors of shape {tuple(m.shape)}, got "
                             f"{theta.dtype} {tuple(theta.shape)} and {grad.dtype} {tuple(grad.shape)}")
        if not theta.is_contiguous():
            raise ValueError("theta must be contiguous (it is updated in place)")
        if not grad.is_contiguous():
            grad = grad.contiguous()
        torch._fused_adamw_([theta], [grad], [self.exp_avg], [self.exp_avg_sq], [], [self.step_t], lr=float(self.lr),
                            beta1=BETAS[0], beta2=BETAS[1], weight_decay=float(self.weight_decay), eps=EPS,
                            amsgrad=False, maximize=False)

    def step(self, theta: torch.Tensor, grad: torch.Tensor, step: int) -> None:
        """Set the step count to ``step`` (>= 1, the count after this step), then one fused update."""
        self.step_t.fill_(check_int("step", step, min_value=1, max_value=_FUSED_MAX_STEP))
        self._update(theta, grad)

    def prepare_device(self, last_step: int) -> bool:
        """Nothing to build (the kernel computes its scalars from the step count): never replaces a tensor."""
        check_int("last_step", last_step, min_value=1, max_value=_FUSED_MAX_STEP)
        return False

    def set_device_step(self, step: int) -> None:
        """Set the device step count (before a chunk, and again after a failed capture)."""
        self.step_t.fill_(check_int("step", step, min_value=0, max_value=_FUSED_MAX_STEP - 1))

    def step_on_device(self, theta: torch.Tensor, grad: torch.Tensor) -> None:
        """Increment the device step count in place, then one fused update (``grad`` is only read)."""
        self.step_t.add_(1)
        self._update(theta, grad)

