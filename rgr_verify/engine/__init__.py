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
every variant's step reads its step-dependent AdamW scalars from device tables indexed by a device step counter
(:func:`~rgr_verify.engine.optim.stacked_adamw_step_on_device`; bitwise equal to :func:`stacked_adamw_step` on
CPU, tested), so a 100-step chunk is captured in a ``torch.cuda.CUDAGraph`` once per set of rows (after one eager
warm-up chunk) and replayed for the following chunks (graphs and eager launch the same kernels;
``RGR_VERIFY_CUDA_GRAPHS=0`` turns graphs off, and a failed capture warns once and falls back to eager); and
:func:`train_runs` trains up to ``streams`` batches at once, each in its own thread on its own CUDA stream (a
batch computes exactly what it computes alone: tested bitwise on an H100).
Between two checks the host never waits for the device: it copies the uniforms in at the start of a segment
(the stream is idle then) and the metrics out at each check; besides, each capture (once per chunk length and set
of rows) synchronises, and so does the test evaluation of runs that finish. The default optimiser is not fused
(bitwise one ``torch.optim.AdamW`` per run); :class:`~rgr_verify.engine.optim.FusedAdamW` (``torch._fused_adamw_``,
one kernel per step) is an opt-in, tolerance-tested alternative (``train_runs(..., optimiser=FusedAdamW)``).
The GPU tests in ``empirical/test_engine.py`` are marked ``gpu``.

Protocol (App. A.1): S^(k) = (X_C W_Q^(k))(X_C W_K^(k))^T; S_max = max_k S^(k); predict (p -> q) iff
S_max > tau; loss (1/ell^2) sum_{p,q} [softplus(-z) y w_+ + softplus(z)(1 - y)], z = alpha (S_max - tau),
w_+ = ell - 1 (permutations) or #neg/#pos per context (r-regular, Eq. (30)); AdamW(lr 1e-3, wd 0); validation
micro-F1 every 500 steps, stop after 5 consecutive checks > 0.995, step cap from Table 2; test micro-F1 with
the single learned tau. Sec. 7.1: S = sum_k softmax_q(S^(k) / sqrt(d_k)). Sec. 7.2: y_hat = S_max X_C W_V,
MSE Eq. (4) over valid positions, early stopping on validation MSE.

Modules, one concept each: :mod:`.config` (RunConfig, RunResult, run_key, ENGINE_VERSION), :mod:`.sampler`
(per-run data, neighbour tables, uniforms, contexts, labels), :mod:`.optim` (the stacked AdamW and the
:class:`~rgr_verify.engine.optim.Optimiser` seam: another optimiser is one class passed as ``optimiser=``),
:mod:`.batch` (the stacked state of a batch), :mod:`.model` (scores and hand-written gradients),
:mod:`.evaluate` (evaluation, early stopping, test results), :mod:`.capture` (CUDA graphs of chunks of
steps), :mod:`.loop` (the training loop, :func:`train_batch`, :func:`train_runs`), :mod:`.plan`
(:func:`plan_batches`). This package re-exports the public API.
"""

from .capture import cuda_graphs_enabled
from .config import EQUIVALENT_ENGINE_VERSIONS, ENGINE_VERSION, INITS, VARIANTS, RunConfig, RunResult, run_key
from .loop import BatchTrainer, train_batch, train_runs
from .optim import FusedAdamW, Optimiser, StackedAdamW, stacked_adamw_step
from .plan import plan_batches
from .sampler import (
    RunData,
    build_run_data,
    contexts_from_uniforms,
    draw_uniforms,
    labels_torch,
    sample_contexts_torch,
)

__all__ = [
    "ENGINE_VERSION",
    "EQUIVALENT_ENGINE_VERSIONS",
    "RunConfig",
    "RunResult",
    "VARIANTS",
    "INITS",
    "run_key",
    "RunData",
    "build_run_data",
    "sample_contexts_torch",
    "contexts_from_uniforms",
    "draw_uniforms",
    "labels_torch",
    "stacked_adamw_step",
    "Optimiser",
    "StackedAdamW",
    "FusedAdamW",
    "cuda_graphs_enabled",
    "BatchTrainer",
    "train_batch",
    "train_runs",
    "plan_batches",
]
