"""One pre-LN Transformer block on the permutation->matching retrieval task of Sec. 7.3, trained in batches of runs.

Task (Sec. 7.3). A run fixes a uniform permutation pi of the m items. An example draws a query q with
s = pi(q) != q, then 2l - 1 distinct items S, distinct from s and q; the 2l items S + {s} are split into l random
disjoint pairs (a perfect matching M) and the label is y = M(s). The input is

    X = [x_1, ..., x_l, E[NULL], E[q]],   x_i = E[a_i] + E[b_i]          (no positional embeddings),

with E the frozen ``[m + 1, d_model]`` table of :mod:`rgr_verify.models.embedding_sources` (NULL = row m).

Model (Sec. 7.3). One GPT-style pre-LN block, read out at the last position only:

    u   = LN_1(X)                                              [L, d_model]
    p_k = softmax_j( (u_L W_Q^k) . (u_j W_K^k) / sqrt(d_k) )   head k = 1..h, d_k = D_K / h
    a   = concat_k( sum_j p_kj u_j W_V^k ) W_O                 W_V^k: [d_model, d_v], d_v = d_model / h, no bias
    r   = X_L + a;   r' = r + W_2 GELU(W_1 LN_2(r) + b_1) + b_2     (d_ff hidden units)
    logits = LN_f(r') E^T                                      [m + 1]  (tied unembedding over items + NULL)

Only the last position's output is needed, so only its query is computed, and the value path averages u_j per
head before W_V (the same numbers as averaging u_j W_V^k, with an l-fold smaller cost).

Training. Runs that share the head count h are stacked along a leading run dimension R (seeds and key widths
D_K; narrower D_K are zero-padded, and their padded query/key columns get no score and no gradient), so one
``bmm`` serves every run; AdamW is elementwise, so stacked runs train as independent ones. Each run has its own
torch.Generator for initialisation and data, so on a CPU its result does not depend on which runs share its
batch, to the last bit when each run's block of every parameter holds a multiple of 16 floats (d_model and d_ff
multiples of 16, as in both presets; tested): the fused CPU AdamW kernel updates the last numel % (vector width)
elements of a tensor with scalar code that rounds differently. On a CPU a run trains on one thread, so that its
numbers do not depend on the caller's thread count. On CUDA, cuBLAS picks kernels by problem shape, so a run
batched differently may sum in another order and, training being chaotic, end with other numbers of the same
distribution; the same call on the same machine should repeat its numbers (a gpu-tier test checks it).
Cross-entropy on the last position; AdamW (weight decay 0.01) at a constant learning rate; the best validation
accuracy and the test accuracy at that evaluation are recorded.

Devices. Initialisation, permutations and the validation/test examples are drawn on the CPU (the same on every
device); training examples are drawn on the training device from a generator living there (a CUDA generator
draws another stream than a CPU one, so CUDA and CPU runs of one seed see other training examples). On CUDA,
``mixed_precision`` runs the block under bfloat16 autocast (no GradScaler: bfloat16 has float32's range);
LayerNorm, the attention softmax and the loss are computed in float32, and evaluation's logits are computed in
float32 too (an argmax over m + 1 bfloat16-rounded logits could tie). The training loop never waits for the
device: no tensor value reaches Python between evaluations. On CUDA the step is replayed as a CUDA graph by
default (:func:`_stepper`: the eager step's kernels and generator offsets, bit for bit the same runs).

Memory (the largest full-tier batch: R = 28, B = 256, l = 16, d_model = 768, D = 512, m = 6144): 0.4 GB per
float32 activation, 0.9 GB of parameters, gradients and AdamW state; measured on a CPU in float32, 3.3 GB after a
step and 6.8 GB after an evaluation chunk, far below a GPU's memory, so the vocabulary logits need no chunking.
"""

from __future__ import annotations

import contextlib
import math
import time
from dataclasses import dataclass
from typing import Callable, Sequence

import numpy as np
import torch
import torch.nn.functional as F

from ..basics.checks import check_choice, check_int, check_real
from ..engine.capture import cuda_graphs_enabled, graphed_step
from .transformer_task import (moved_items, pack_runs, run_generator, sample_examples, sample_permutation,
                               stack_examples)

__all__ = [
    "TaskConfig",
    "TrainConfig",
    "RunSpec",
    "BlockRunResult",
    "sample_permutation",
    "sample_examples",
    "block_inputs",
    "init_block_params",
    "block_logits",
    "head_layout",
    "train_block_runs",
    "block_run_args",
    "DeadlineReached",
    "BatchDeadline",
]


@dataclass(frozen=True)
class TaskConfig:
    """The retrieval task and the block's fixed sizes."""

    m: int  # number of items (rows of E less NULL)
    ell: int  # number of superposed pair slots l in the context
    d_ff: int = 16  # hidden width of the block's 2-layer GELU MLP

    def __post_init__(self):
        check_int("m", self.m, min_value=3)
        check_int("ell", self.ell, min_value=1)
        if 2 * self.ell + 1 > self.m:
            raise ValueError(f"ell must satisfy 2*ell + 1 <= m = {self.m} (q, s and 2l-1 distinct others), got {self.ell}")
        check_int("d_ff", self.d_ff, min_value=1)


@dataclass(frozen=True)
class TrainConfig:
    """Optimisation and evaluation protocol shared by all runs of a sweep."""

    steps: int  # maximum number of AdamW updates
    batch_size: int = 128  # examples per update and run
    lr: float = 1e-3  # constant learning rate
    weight_decay: float = 0.01  # AdamW decoupled weight decay (Sec. 7.3)
    eval_every: int = 250  # updates between validation evaluations
    n_val: int = 2048  # fixed validation examples per run
    n_test: int = 4096  # fixed held-out test examples per run
    patience: int = 0  # stop a batch of runs after this many evaluations without any run improving (0 = never)
    init_std: float = 0.02  # GPT-2 initialisation scale of the weight matrices
    mixed_precision: bool = True  # bfloat16 autocast, applied on CUDA only

    def __post_init__(self):
        check_int("steps", self.steps, min_value=1)
        check_int("batch_size", self.batch_size, min_value=1)
        check_real("lr", self.lr, low=0.0, low_open=True)
        check_real("weight_decay", self.weight_decay, low=0.0)
        check_int("eval_every", self.eval_every, min_value=1)
        check_int("n_val", self.n_val, min_value=1)
        check_int("n_test", self.n_test, min_value=1)
        check_int("patience", self.patience, min_value=0)
        check_real("init_std", self.init_std, low=0.0, low_open=True)


@dataclass(frozen=True)
class RunSpec:
    """One run: total key width D_K split into n_heads heads, and its seed."""

    D_K: int  # total query/key width h * d_k
    n_heads: int  # h
    seed: int  # the run's seed (initialisation, permutation, data)

    def __post_init__(self):
        check_int("D_K", self.D_K, min_value=1)
        check_int("n_heads", self.n_heads, min_value=1)
        check_int("seed", self.seed, min_value=0)
        if self.D_K % self.n_heads:
            raise ValueError(f"D_K must be a multiple of n_heads = {self.n_heads}, got {self.D_K}")


@dataclass(frozen=True)
class BlockRunResult:
    """Outcome of one run."""

    spec: RunSpec
    best_val_acc: float  # best validation accuracy over evaluations
    test_acc: float  # test accuracy at the evaluation of best validation accuracy
    test_null_rate: float  # fraction of test examples predicted NULL at that evaluation
    best_step: int  # update count of that evaluation
    final_test_acc: float  # test accuracy at the last evaluation
    steps: int  # updates performed
    seconds: float  # wall time of the batch the run trained in (shared by its batch)


def block_inputs(E: torch.Tensor, pairs: torch.Tensor, query: torch.Tensor) -> torch.Tensor:
    """X = [E[a_1] + E[b_1], ..., E[a_l] + E[b_l], E[NULL], E[q]] for each example.

    Args: E ``[m + 1, d]`` (NULL = last row); pairs ``[..., l, 2]``; query ``[...]``.
    Returns ``[..., l + 2, d]``.
    """
    null = E.shape[0] - 1
    x = E[pairs].sum(-2)  # [..., l, d]
    tail = torch.stack([torch.full_like(query, null), query], dim=-1)  # [..., 2]
    return torch.cat([x, E[tail]], dim=-2)


def init_block_params(specs: Sequence[RunSpec], d_model: int, d_ff: int, *, init_std: float = 0.02) -> dict:
    """Stacked parameters of len(specs) runs that share n_heads (GPT-2 initialisation, per-run generators).

    Shapes (R runs, D = max D_K): W_Q, W_K ``[R, d, D]`` (columns >= the run's D_K are zero); W_V, W_O
    ``[R, d, d]``; W_in ``[R, d, d_ff]``, b_in ``[R, d_ff]``, W_out ``[R, d_ff, d]``, b_out ``[R, d]``; LayerNorm
    gains/biases ln1_*, ln2_*, lnf_* ``[R, d]``. W_O and W_out use init_std / sqrt(2) (GPT-2's residual scaling
    for one block). All float32 on the CPU.
    """
    specs = _check_specs(specs)
    d_model = check_int("d_model", d_model, min_value=1)
    d_ff = check_int("d_ff", d_ff, min_value=1)
    init_std = check_real("init_std", init_std, low=0.0, low_open=True)
    h = specs[0].n_heads
    if d_model % h:
        raise ValueError(f"n_heads must divide d_model = {d_model} (d_v = d_model / h), got {h}")
    D = max(s.D_K for s in specs)
    R = len(specs)
    p = {name: torch.zeros(R, *shape) for name, shape in
         [("W_Q", (d_model, D)), ("W_K", (d_model, D)), ("W_V", (d_model, d_model)), ("W_O", (d_model, d_model)),
          ("W_in", (d_model, d_ff)), ("b_in", (d_ff,)), ("W_out", (d_ff, d_model)), ("b_out", (d_model,))]}
    for r, s in enumerate(specs):
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
    return p


def head_layout(specs: Sequence[RunSpec], D: int, device) -> tuple[torch.Tensor, torch.Tensor]:
    """The head layout that :func:`block_logits` takes for R stacked runs with equal h and key widths up to ``D``.

    G ``[R, D, h]``: G[r, c, k] = 1 if key coordinate c of run r belongs to head k (0 on padding);
    scale ``[R]`` = 1 / sqrt(d_k)."""
    specs = _check_specs(specs)
    D = check_int("D", D, min_value=max(s.D_K for s in specs))
    h = specs[0].n_heads
    G = torch.zeros(len(specs), D, h)
    for r, s in enumerate(specs):
        d_k = s.D_K // h
        G[r, torch.arange(s.D_K), torch.arange(s.D_K) // d_k] = 1.0
    scale = torch.tensor([1.0 / math.sqrt(s.D_K // h) for s in specs], dtype=torch.float64)
    return G.to(device), scale.to(device)


def _ln(x: torch.Tensor, w: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """LayerNorm over the last dim with per-run gain/bias ``[R, d]`` broadcast over the middle dims of x."""
    shape = (w.shape[0],) + (1,) * (x.ndim - 2) + (w.shape[1],)
    return F.layer_norm(x, x.shape[-1:]) * w.view(shape) + b.view(shape)


def block_logits(params: dict, X: torch.Tensor, E: torch.Tensor, G: torch.Tensor, scale: torch.Tensor, *,
                 float32_logits: bool = False) -> torch.Tensor:
    """Last-position logits of the pre-LN block (formulas in the module docstring) for R stacked runs.

    Args: params from :func:`init_block_params`; X ``[R, B, L, d]``; E ``[m + 1, d]``; G ``[R, D, h]`` and
    scale ``[R]`` from the head layout; ``float32_logits``: compute the unembedding in float32 even under
    autocast (without autocast it changes nothing). Returns ``[R, B, m + 1]``.
    """
    R, B, L, d = X.shape
    h = G.shape[-1]
    u = _ln(X, params["ln1_w"], params["ln1_b"])  # [R, B, L, d]
    q = torch.bmm(u[:, :, -1], params["W_Q"])  # [R, B, D]
    k = torch.bmm(u.reshape(R, B * L, d), params["W_K"]).view(R, B, L, -1)  # [R, B, L, D]
    scores = torch.matmul(q[:, :, None, :] * k, G[:, None])  # [R, B, L, h]
    # Softmax in at least float32 (autocast may hand bfloat16 scores), over the L positions.
    wide = torch.promote_types(scores.dtype, torch.float32)
    attn = torch.softmax(scores.to(wide) * scale.view(R, 1, 1, 1).to(wide), dim=2).to(u.dtype)
    z = torch.einsum("rblh,rbld->rbhd", attn, u)  # [R, B, h, d]: per-head average of u_j
    Wv = params["W_V"].view(R, d, h, d // h)  # head k's columns are k*d_v..(k+1)*d_v
    v = torch.einsum("rbhd,rdhv->rbhv", z, Wv).reshape(R, B, d)  # [R, B, d] = concat of the heads
    r1 = X[:, :, -1] + torch.bmm(v, params["W_O"])  # [R, B, d]
    hid = F.gelu(torch.bmm(_ln(r1, params["ln2_w"], params["ln2_b"]), params["W_in"]) + params["b_in"][:, None])
    r2 = r1 + torch.bmm(hid, params["W_out"]) + params["b_out"][:, None]  # [R, B, d]
    out = _ln(r2, params["lnf_w"], params["lnf_b"])  # [R, B, d]
    if float32_logits:
        with torch.autocast(X.device.type, enabled=False):
            return torch.matmul(out.float(), E.float().T)  # [R, B, m + 1]
    return torch.matmul(out, E.T)  # [R, B, m + 1]


def _train_step(params, opt, E, G, scale, mask, batch, *, autocast, batch_size: int) -> torch.Tensor:
    """One AdamW update of every stacked run on ``batch`` = (pairs ``[R, B, l, 2]``, query, label ``[R, B]``).

    Returns the summed per-run mean losses as a detached scalar on the device (reading it waits for the device).
    """
    pairs, query, label = batch
    X = block_inputs(E, pairs, query)  # [R, B, L, d]
    with autocast():
        logits = block_logits(params, X, E, G, scale)
    # Sum over runs of each run's mean loss: the runs' gradients stay independent.
    flat = logits.float().reshape(-1, logits.shape[-1])  # [R * B, m + 1]
    loss = F.cross_entropy(flat, label.reshape(-1), reduction="sum") / batch_size
    opt.zero_grad(set_to_none=True)
    loss.backward()
    opt.step()
    with torch.no_grad():  # padded key columns stay exactly zero (they get no gradient; this guards decay too)
        params["W_Q"].mul_(mask)
        params["W_K"].mul_(mask)
    return loss.detach()


@torch.no_grad()
def _evaluate(params, E, G, scale, data, *, autocast, chunk: int = 1024):
    """Accuracy ``[R]`` and NULL-prediction rate ``[R]`` on fixed examples ``data``."""
    pairs, query, label = data
    R, n = label.shape
    correct = torch.zeros(R, device=E.device)
    null = torch.zeros(R, device=E.device)
    for lo in range(0, n, chunk):
        X = block_inputs(E, pairs[:, lo : lo + chunk], query[:, lo : lo + chunk])
        with autocast():
            pred = block_logits(params, X, E, G, scale, float32_logits=True).argmax(-1)  # [R, b]
        correct += (pred == label[:, lo : lo + chunk]).sum(1)
        null += (pred == E.shape[0] - 1).sum(1)
    return correct / n, null / n


def _stepper(params, opt, E, G, scale, mask, packed, batch_size, ell, gens, *, autocast, graph: bool,
             warmup: int = 3) -> Callable[[], None]:
    """One training step per call. With ``graph`` (CUDA): ``warmup`` eager calls on the capture stream, then the
    whole step (sampler, forward, backward, AdamW, mask) captured by the engine's ChunkGraphs.record with the runs'
    generators registered, and replayed: the eager step's kernels, tensors and generator offsets. Unlike the
    engine's chunks, a failed capture is an error, never a silent switch to eager; one CUDA caller per process."""

    def eager():
        batch = stack_examples(packed, batch_size, ell, gens)
        _train_step(params, opt, E, G, scale, mask, batch, autocast=autocast, batch_size=batch_size)

    if not graph:
        return eager
    return graphed_step(eager, opt, gens, E.device, warmup=warmup, failure=lambda exc: RuntimeError(
        f"CUDA graph capture of the Sec. 7.3 step failed ({type(exc).__name__}: {exc}); "
        "set RGR_VERIFY_CUDA_GRAPHS=0 (or cuda_graph=False) to train eagerly"))


class BatchDeadline:
    """A :func:`time.monotonic` deadline shared by a sweep's batches across calls of :func:`train_block_runs`: no
    batch starts after it, nor one that the last finished batch's duration says would end after it."""

    def __init__(self, at: float):
        self.at = check_real("deadline", at)
        self.last: float | None = None  # seconds the last finished batch took

    def start(self) -> float:
        """The start time of a batch allowed to start; DeadlineReached otherwise."""
        now = time.monotonic()
        if now > self.at:
            raise DeadlineReached("deadline reached before a batch started")
        if self.last is not None and now + self.last > self.at:
            raise DeadlineReached(f"the next batch would end after the deadline (the last one took {self.last:.0f} s, "
                                  f"{self.at - now:.0f} s are left); not started")
        return now

    def finished(self, start: float) -> None:
        self.last = time.monotonic() - start


class DeadlineReached(RuntimeError):
    """Raised by :func:`train_block_runs` at a deadline: the batch in training is dropped, finished ones are kept."""


def _train_group(E, specs, task, cfg, device, progress, deadline=None, cuda_graph=False):
    t0 = time.perf_counter()
    d = E.shape[1]
    init = init_block_params(specs, d, task.d_ff, init_std=cfg.init_std)
    params = {k: v.to(device).requires_grad_() for k, v in init.items()}
    G, scale = head_layout(specs, params["W_Q"].shape[-1], device)
    mask = (G.sum(-1) > 0).to(params["W_Q"].dtype)[:, None, :]  # [R, 1, D]: real key columns
    perms = [sample_permutation(task.m, generator=run_generator(s.seed, 2)) for s in specs]
    moved = [moved_items(p) for p in perms]
    if any(q.numel() == 0 for q in moved):  # probability 1/m!: a seed whose permutation is the identity
        raise ValueError(f"the permutation of some seed in {[s.seed for s in specs]} moves no item; use another seed")
    # Validation and test sets are drawn on the CPU (device-independent); training data on the device.
    gv, gt = [run_generator(s.seed, 3) for s in specs], [run_generator(s.seed, 4) for s in specs]
    packed = pack_runs(perms, moved)
    val = [x.to(device) for x in stack_examples(packed, cfg.n_val, task.ell, gv)]
    test = [x.to(device) for x in stack_examples(packed, cfg.n_test, task.ell, gt)]
    packed = tuple(x.to(device) if isinstance(x, torch.Tensor) else x for x in packed)
    gens = [run_generator(s.seed, 5, device=device) for s in specs]
    # The fused kernel is several times faster than the foreach one on a CPU and exists on CUDA too. On CUDA it
    # applies the same arithmetic to every element; on a CPU see the module docstring (vector width, tail).
    opt = torch.optim.AdamW(list(params.values()), lr=cfg.lr, weight_decay=cfg.weight_decay, fused=True)
    use_amp = cfg.mixed_precision and device.type == "cuda"

    # No cast cache under graphs (torch's rule): no value changes while block_logits casts each weight once.
    def autocast():
        return (torch.autocast("cuda", dtype=torch.bfloat16, cache_enabled=not cuda_graph) if use_amp
                else contextlib.nullcontext())

    R = len(specs)
    best_val = torch.full((R,), -1.0)
    best = {"test": torch.zeros(R), "null": torch.zeros(R), "step": torch.zeros(R, dtype=torch.long)}
    final_test = torch.zeros(R)
    stale = 0
    step = 0
    one_step = _stepper(params, opt, E, G, scale, mask, packed, cfg.batch_size, task.ell, gens, autocast=autocast,
                        graph=cuda_graph and device.type == "cuda")
    for step in range(1, cfg.steps + 1):
        one_step()
        if step % cfg.eval_every == 0 or step == cfg.steps:  # the only point where the loop waits for the device
            v_acc, _ = _evaluate(params, E, G, scale, val, autocast=autocast)
            t_acc, t_null = _evaluate(params, E, G, scale, test, autocast=autocast)
            v_acc, t_acc, t_null = v_acc.cpu(), t_acc.cpu(), t_null.cpu()
            improved = v_acc > best_val
            best_val = torch.where(improved, v_acc, best_val)
            best["test"] = torch.where(improved, t_acc, best["test"])
            best["null"] = torch.where(improved, t_null, best["null"])
            best["step"] = torch.where(improved, torch.tensor(step), best["step"])
            final_test = t_acc
            stale = 0 if bool(improved.any()) else stale + 1
            if progress is not None:
                progress(step, specs, v_acc, t_acc)
            if cfg.patience and stale >= cfg.patience:
                break
            if deadline is not None and time.monotonic() > deadline and step < cfg.steps:
                raise DeadlineReached(f"deadline reached at step {step} of a batch of {R} runs (h = "
                                      f"{specs[0].n_heads}) after {time.perf_counter() - t0:.1f} s; batch dropped")
    seconds = time.perf_counter() - t0
    return [BlockRunResult(s, float(best_val[r]), float(best["test"][r]), float(best["null"][r]), int(best["step"][r]),
                      float(final_test[r]), step, seconds) for r, s in enumerate(specs)]


def block_run_args(E, specs, task, cfg, *, device, max_batch_runs, deadline, cuda_graph, progress=None,
                   on_batch=None) -> tuple:
    """The checked arguments of a Sec. 7.3 trainer (:func:`train_block_runs`, and
    :func:`rgr_verify.models.transformer_v3.train_block_runs_v3`): ``(E on the device as float32, specs as a list,
    deadline as a BatchDeadline or None, cuda_graph as a bool, max_batch_runs, the torch device)``. ValueError naming
    the argument for a bad one; ``cuda_graph`` None reads ``RGR_VERIFY_CUDA_GRAPHS`` (on CUDA only)."""
    if cuda_graph is None:  # the setting is read only where it matters
        cuda_graph = device == "cuda" and cuda_graphs_enabled()
    if not isinstance(cuda_graph, bool):
        raise ValueError(f"cuda_graph must be a bool or None, got {cuda_graph!r}")
    check_choice("device", device, ("cpu", "cuda"))
    deadline = deadline if deadline is None or isinstance(deadline, BatchDeadline) else BatchDeadline(deadline)
    specs = list(specs) if not isinstance(specs, RunSpec) else [specs]
    if not specs:
        raise ValueError("specs must hold at least one RunSpec")
    for s in specs:
        if not isinstance(s, RunSpec):
            raise ValueError(f"specs must hold RunSpec objects, got {type(s).__name__}")
    if not isinstance(task, TaskConfig) or not isinstance(cfg, TrainConfig):
        raise ValueError("task must be a TaskConfig and cfg a TrainConfig")
    max_batch_runs = check_int("max_batch_runs", max_batch_runs, min_value=1)
    if progress is not None and not callable(progress):
        raise ValueError(f"progress must be callable or None, got {type(progress).__name__}")
    if on_batch is not None and not callable(on_batch):
        raise ValueError(f"on_batch must be callable or None, got {type(on_batch).__name__}")
    E = torch.as_tensor(np.asarray(E, dtype=np.float32) if not isinstance(E, torch.Tensor) else E, dtype=torch.float32)
    if E.ndim != 2 or E.shape[0] != task.m + 1:
        raise ValueError(f"E must have shape [m + 1 = {task.m + 1}, d_model], got {tuple(E.shape)}")
    if not torch.isfinite(E).all():
        raise ValueError("E must contain only finite values")
    dev = torch.device(device)
    if dev.type == "cuda" and not torch.cuda.is_available():
        raise ValueError("device must be 'cpu' when CUDA is not available, got 'cuda'")
    return E.to(dev), specs, deadline, cuda_graph, max_batch_runs, dev


def train_block_runs(
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
) -> list[BlockRunResult]:
    """Train every run of ``specs`` on the Sec. 7.3 task with the frozen table ``E`` ``[m + 1, d_model]``.

    Runs sharing n_heads are stacked (at most ``max_batch_runs`` at a time, padded to their largest D_K); each
    run is independent of the others in its batch. ``progress(step, specs, val_acc, test_acc)`` is called at
    every evaluation; ``on_batch(indices, results)`` after each finished batch (indices into ``specs``).
    ``deadline`` (a :func:`time.monotonic` value, or a :class:`BatchDeadline` that a sweep shares between calls)
    stops training at the first evaluation past it by raising :class:`DeadlineReached` (the batch in training is
    dropped; no batch starts after the deadline, nor one that the last batch's duration says would end after it).
    ``cuda_graph``: on CUDA, replay the training step as a CUDA graph (:func:`_stepper`; bit for bit the eager
    numbers, measured on an H200, docs/engine.md); default ``RGR_VERIFY_CUDA_GRAPHS``; ignored on a CPU.
    Returns one :class:`BlockRunResult` per spec, in the order of ``specs``.
    """
    E, specs, deadline, cuda_graph, max_batch_runs, dev = block_run_args(
        E, specs, task, cfg, device=device, max_batch_runs=max_batch_runs, deadline=deadline, cuda_graph=cuda_graph,
        progress=progress, on_batch=on_batch)
    results: dict[int, BlockRunResult] = {}
    # Training is chaotic: a different summation order (another CPU thread count) changes every run's numbers.
    # One thread on the CPU makes a run's result the same under pytest-xdist, plain pytest and the CLI.
    threads = torch.get_num_threads()
    if dev.type == "cpu":
        torch.set_num_threads(1)
    try:
        for h in sorted({s.n_heads for s in specs}):
            idx = sorted((i for i, s in enumerate(specs) if s.n_heads == h), key=lambda i: specs[i].D_K)
            for lo in range(0, len(idx), max_batch_runs):
                chunk = idx[lo : lo + max_batch_runs]
                start = deadline.start() if deadline is not None else None
                out = _train_group(E, [specs[i] for i in chunk], task, cfg, dev, progress,
                                   deadline.at if deadline is not None else None, cuda_graph)
                if deadline is not None:
                    deadline.finished(start)
                for i, res in zip(chunk, out):
                    results[i] = res
                if on_batch is not None:
                    on_batch(chunk, out)
    finally:
        torch.set_num_threads(threads)
    return [results[i] for i in range(len(specs))]


def _check_specs(specs) -> list[RunSpec]:
    specs = list(specs)
    if not specs or not all(isinstance(s, RunSpec) for s in specs):
        raise ValueError("specs must be a non-empty sequence of RunSpec")
    if len({s.n_heads for s in specs}) != 1:
        raise ValueError("specs must share n_heads to be stacked in one batch")
    return specs
