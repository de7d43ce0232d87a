"""Speed benchmark: the batched engine against two baselines on the same configurations, seeds and steps.

* The **naive loop** is what a hurried researcher would write for App. A.1: one model (``nn.Parameter`` W_Q, W_K,
  tau), one ``torch.optim.AdamW``, one context per step drawn by the reference sampler
  (:func:`rgr_verify.core.contexts.sample_context`), the loss through :mod:`rgr_verify.core.scoring`, validation micro-F1
  every ``check_every`` steps; runs one after another (timed on a spread subset of the runs: it is slow).
* The **torch.func baseline** is what an expert would write (:func:`torchfunc_train`): one :class:`RunModel` per
  run, stacked with ``torch.func.stack_module_state``, the loss of all runs by ``functional_call`` under ``vmap``,
  one stock ``torch.optim.AdamW`` (fused where available, else foreach) on the stacked parameters, optionally
  under ``torch.compile``. Runs of equal parameter shapes (d_model, h, d_k) and protocol share a stack (vmap needs
  equal shapes; m may differ: contexts are embedded before the call). Contexts are the engine's: the same per-run
  uniforms (:func:`rgr_verify.engine.draw_uniforms`) through the same batched sampler, so it trains exactly the
  engine's runs (tested against the engine in float64).

Every side runs a fixed number of steps per run (no early stopping, so they do the same work) with validation
every ``check_every`` steps and a test evaluation at the end; the benchmark reports run-steps per second of each,
the ratios engine / naive and engine / torch.func, and whether the engine replayed CUDA graphs (``cuda_graphs``;
only on CUDA, see :mod:`rgr_verify.engine`).
"""

from __future__ import annotations

import copy
import math
import time
import warnings
from dataclasses import dataclass
from typing import Sequence

import numpy as np
import torch
import torch.nn.functional as F

from ..basics.checks import check_int, check_real, check_torch_device
from ..core.contexts import context_labels, sample_context
from ..engine import RunConfig, build_run_data, contexts_from_uniforms, draw_uniforms, labels_torch, train_runs
from ..core.metrics import micro_f1
from ..core.scoring import max_over_heads_scores, softmax_sum_scores, split_heads

__all__ = ["BenchResult", "PHASES", "RunModel", "engine_floor", "naive_train", "profile_engine", "run_bench",
           "torchfunc_train"]


@dataclass(frozen=True)
class BenchResult:
    """Run-steps per second of the naive loop, the torch.func baseline and the engine, and the engine's ratios."""

    device: str
    n_runs: int  # runs the engine trained
    n_naive_runs: int  # runs the naive loop trained (a spread subset: it is slow)
    steps: int  # steps per run, every side
    naive_steps_per_s: float
    engine_steps_per_s: float
    naive_seconds: float
    engine_seconds: float
    cuda_graphs: bool = False  # whether the engine replayed CUDA graphs (max variant on CUDA)
    n_torchfunc_runs: int = 0  # runs the torch.func baseline trained (all, when measured)
    torchfunc_steps_per_s: float | None = None  # None: not measured
    torchfunc_seconds: float | None = None
    torchfunc_compiled: bool = False  # whether its loss ran under torch.compile
    torchfunc_optimizer: str | None = None  # "fused" or "foreach" AdamW
    max_waste: float = 4.0  # the engine's batch planning (plan_batches), every engine timing
    fused_steps_per_s: float | None = None  # the engine again with optimiser=FusedAdamW (None: not measured)
    fused_seconds: float | None = None

    @property
    def ratio(self) -> float:
        """Engine run-steps/s over the naive loop's."""
        return self.engine_steps_per_s / self.naive_steps_per_s

    @property
    def ratio_torchfunc(self) -> float | None:
        """Engine run-steps/s over the torch.func baseline's (None when it was not measured)."""
        return None if self.torchfunc_steps_per_s is None else self.engine_steps_per_s / self.torchfunc_steps_per_s

    @property
    def ratio_fused(self) -> float | None:
        """The engine with FusedAdamW over the engine with its default optimiser (None: not measured)."""
        return None if self.fused_steps_per_s is None else self.fused_steps_per_s / self.engine_steps_per_s

    def to_dict(self) -> dict:
        d = dict(self.__dict__)
        d["ratio"] = self.ratio
        d["ratio_torchfunc"] = self.ratio_torchfunc
        d["ratio_fused"] = self.ratio_fused
        return d


def naive_train(config: RunConfig, seed: int, steps: int, *, device: str = "cpu") -> float:
    """Train one run the naive way for ``steps`` steps; returns its final validation micro-F1."""
    steps = check_int("steps", steps, min_value=1)
    data = build_run_data(config, seed)
    dev = torch.device(device)
    X = torch.as_tensor(data.X, dtype=torch.float32, device=dev)
    W_Q = torch.nn.Parameter(torch.as_tensor(data.W_Q, dtype=torch.float32, device=dev))
    W_K = torch.nn.Parameter(torch.as_tensor(data.W_K, dtype=torch.float32, device=dev))
    tau = torch.nn.Parameter(torch.zeros((), device=dev))
    opt = torch.optim.AdamW([W_Q, W_K, tau], lr=config.lr, weight_decay=config.weight_decay)
    rng = data.stream
    ell = config.ell
    val_y = torch.as_tensor(context_labels(data.graph, data.val), device=dev)
    score_fn = softmax_sum_scores if config.variant == "softmax" else max_over_heads_scores
    f1 = float("nan")
    for step in range(1, steps + 1):
        ctx = sample_context(data.graph, ell, config.rho, rng=rng)
        y = torch.as_tensor(context_labels(data.graph, ctx), dtype=torch.float32, device=dev)
        S = score_fn(X[ctx][None], split_heads(W_Q, config.n_heads), split_heads(W_K, config.n_heads))[0]
        z = config.alpha * (S - tau)
        loss = (F.softplus(-z) * y * (ell - 1) + F.softplus(z) * (1 - y)).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step % config.check_every == 0:
            with torch.no_grad():
                Sv = score_fn(X[torch.as_tensor(data.val, device=dev)], split_heads(W_Q, config.n_heads),
                              split_heads(W_K, config.n_heads))
                f1 = float(micro_f1(Sv > tau, val_y))
    return f1


class RunModel(torch.nn.Module):
    """One run's model of App. A.1 as an ``nn.Module``: W_Q, W_K ``[d_model, D_K]`` (head k owns column block k, as
    in :func:`rgr_verify.core.scoring.split_heads`) and the threshold tau (starts at 0).

    ``forward(Xc)`` gives the aggregated scores ``[B, ell, ell]`` of contexts ``Xc [B, ell, d_model]``: max over heads
    (Sec. 6) or, for ``variant="softmax"``, sum over heads of softmax_q(S^(k) / sqrt(d_k)) (Sec. 7.1), the values of
    :func:`rgr_verify.core.scoring.max_over_heads_scores` / :func:`~rgr_verify.core.scoring.softmax_sum_scores`.
    ``forward(Xc, y)`` gives the engine's loss: the mean over contexts of
    (1/ell^2) sum_{p,q} [softplus(-z) y w_+ + softplus(z)(1 - y)], z = alpha (S - tau), with w_+ = ell - 1
    (``pos_weight="ell-1"``) or #neg/#pos per context (``"neg/pos"``). Plain tensor ops only, so it runs under
    ``torch.func.vmap``.
    """

    def __init__(self, W_Q: torch.Tensor, W_K: torch.Tensor, *, n_heads: int, variant: str = "max",
                 alpha: float = 10.0, pos_weight: str = "ell-1"):
        super().__init__()
        if variant not in ("max", "softmax"):
            raise ValueError(f"variant must be 'max' or 'softmax', got {variant!r}")
        if pos_weight not in ("ell-1", "neg/pos"):
            raise ValueError(f"pos_weight must be 'ell-1' or 'neg/pos', got {pos_weight!r}")
        n_heads = check_int("n_heads", n_heads, min_value=1)
        if not (isinstance(W_Q, torch.Tensor) and isinstance(W_K, torch.Tensor)) or W_Q.ndim != 2 or (
                W_Q.shape != W_K.shape or W_Q.shape[1] % n_heads):
            raise ValueError("W_Q and W_K must be tensors of one shape [d_model, D_K] with D_K divisible by n_heads")
        self.W_Q = torch.nn.Parameter(W_Q.clone())
        self.W_K = torch.nn.Parameter(W_K.clone())
        self.tau = torch.nn.Parameter(W_Q.new_zeros(()))
        self.n_heads, self.variant, self.pos_weight = n_heads, variant, pos_weight
        self.alpha = float(alpha)
        self.inv_sqrt_dk = 1.0 / math.sqrt(W_Q.shape[1] // n_heads)

    def forward(self, Xc: torch.Tensor, y: torch.Tensor | None = None) -> torch.Tensor:
        Q = (Xc @ self.W_Q).unflatten(-1, (self.n_heads, -1)).transpose(-2, -3)  # [B, h, ell, d_k]
        K = (Xc @ self.W_K).unflatten(-1, (self.n_heads, -1)).transpose(-2, -3)
        S = Q @ K.transpose(-1, -2)  # [B, h, ell, ell]
        S = torch.softmax(S * self.inv_sqrt_dk, dim=-1).sum(-3) if self.variant == "softmax" else S.amax(-3)
        if y is None:
            return S
        yf = y.to(S.dtype)
        ell = y.shape[-1]
        if self.pos_weight == "ell-1":
            w = float(ell - 1)
        else:
            npos = yf.sum((-1, -2), keepdim=True)
            w = torch.where(npos > 0, (ell * ell - npos) / npos.clamp_min(1.0), torch.zeros_like(npos))
        z = (S - self.tau) * self.alpha
        return (F.softplus(-z) * yf * w + F.softplus(z) * (1 - yf)).mean((-1, -2)).mean()


def _adamw(params: list, config: RunConfig) -> tuple[torch.optim.Optimizer, str]:
    """Stock AdamW on the stacked parameters: fused where this torch supports it for the device, else foreach."""
    try:
        return torch.optim.AdamW(params, lr=config.lr, weight_decay=config.weight_decay, fused=True), "fused"
    except (RuntimeError, TypeError, ValueError):
        return torch.optim.AdamW(params, lr=config.lr, weight_decay=config.weight_decay, foreach=True), "foreach"


def _f1_counts(forward, params, Xc_all: torch.Tensor, y_all: torch.Tensor, chunk: int = 100) -> np.ndarray:
    """Micro-F1 per run of stacked models over contexts (``[R, n, ell, d]`` embedded, labels ``[R, n, ell, ell]``)."""
    counts = torch.zeros(Xc_all.shape[0], 3, dtype=torch.float64, device=Xc_all.device)
    tau = params["tau"].detach()[:, None, None, None]
    for start in range(0, Xc_all.shape[1], chunk):
        pred = forward(params, Xc_all[:, start:start + chunk]) > tau
        y = y_all[:, start:start + chunk]
        counts += torch.stack(((pred & y).sum((1, 2, 3)), (pred & ~y).sum((1, 2, 3)), (~pred & y).sum((1, 2, 3))),
                              dim=1).double()
    c = counts.cpu().numpy()
    den = 2 * c[:, 0] + c[:, 1] + c[:, 2]
    return np.where(den > 0, 2 * c[:, 0] / np.maximum(den, 1.0), 1.0)


def _torchfunc_group(runs: list, steps: int, device: torch.device, dtype: torch.dtype, compile: bool,
                     record_losses: bool) -> tuple[list[dict], str]:
    from torch.func import functional_call, stack_module_state, vmap

    c0 = runs[0][0]
    data = [build_run_data(c, s) for c, s in runs]
    R, m_max = len(runs), max(c.m for c, _ in runs)
    nb = np.zeros((R, m_max, c0.r), dtype=np.int64)
    Xp = np.zeros((R, m_max, c0.d_model))
    for j, ((c, _), dd) in enumerate(zip(runs, data)):
        nb[j, :c.m], Xp[j, :c.m] = dd.nbrs, dd.X
    nbrs = torch.as_tensor(nb, device=device)
    X = torch.as_tensor(Xp, dtype=dtype, device=device)
    m_run = torch.as_tensor([c.m for c, _ in runs], device=device)
    rows = torch.arange(R, device=device)[:, None, None]

    def embed(ctx):  # [R, n, ell] -> [R, n, ell, d]
        return X[rows, ctx]

    val = torch.as_tensor(np.stack([dd.val for dd in data]), device=device)
    test = torch.as_tensor(np.stack([dd.test for dd in data]), device=device)
    models = [RunModel(torch.as_tensor(dd.W_Q, dtype=dtype, device=device),
                       torch.as_tensor(dd.W_K, dtype=dtype, device=device), n_heads=c.n_heads, variant=c.variant,
                       alpha=c.alpha, pos_weight=c.pos_weight_mode) for (c, _), dd in zip(runs, data)]
    params, buffers = stack_module_state(models)
    base = copy.deepcopy(models[0])  # a template: functional_call swaps in the stacked parameters

    def scores(p, Xc):
        return vmap(lambda pp, xx: functional_call(base, (pp, buffers), (xx,)))(p, Xc)

    losses_of = vmap(lambda pp, xx, yy: functional_call(base, (pp, buffers), (xx, yy)))
    if compile:  # static shapes: one compilation per stack (dynamic shapes fail under vmap in torch 2.11)
        torch.compiler.reset()
        losses_of = torch.compile(losses_of, dynamic=False)
    opt, kind = _adamw(list(params.values()), c0)
    streams = [dd.stream for dd in data]
    history: list[list[float]] = [[] for _ in runs]
    losses: list = []
    m_min = min(c.m for c, _ in runs)
    step = 0
    while step < steps:  # segments of check_every steps, as the engine trains them (a check ends each)
        n = c0.check_every
        ctx = contexts_from_uniforms(nbrs, *draw_uniforms(streams, n, m_min, c0.ell, device=device), rho=c0.rho,
                                     m=m_run)
        y = labels_torch(nbrs, ctx)
        Xc = embed(ctx)
        for t in range(n):
            loss = losses_of(params, Xc[:, t:t + 1], y[:, t:t + 1])  # [R]
            opt.zero_grad(set_to_none=True)
            loss.sum().backward()
            opt.step()
            if record_losses:
                losses.append(loss.detach())
        step += n
        with torch.no_grad():
            for j, f1 in enumerate(_f1_counts(scores, params, embed(val), labels_torch(nbrs, val))):
                history[j].append(float(f1))
    with torch.no_grad():
        test_f1 = _f1_counts(scores, params, embed(test), labels_torch(nbrs, test))
    loss_rows = torch.stack(losses, dim=1).double().cpu().numpy() if record_losses else None
    out = []
    for j, (c, s) in enumerate(runs):
        res = {"config": c, "seed": s, "W_Q": params["W_Q"][j].detach().double().cpu().numpy(),
               "W_K": params["W_K"][j].detach().double().cpu().numpy(), "tau": float(params["tau"][j].detach()),
               "val_history": tuple(history[j]), "metric": float(test_f1[j]), "steps": step}
        if record_losses:
            res["losses"] = loss_rows[j]
        out.append(res)
    return out, kind


def torchfunc_train(runs: Sequence[tuple[RunConfig, int]], steps: int, *, device: str = "cpu",
                    dtype: torch.dtype = torch.float32, compile: bool = False, record_losses: bool = False,
                    info: dict | None = None) -> list[dict]:
    """Train max/softmax runs for ``steps`` steps each (no early stopping) the torch.func way (module docstring).

    Runs with equal (protocol, d_model, h, d_k) form one stack; each segment of ``check_every`` steps draws the
    engine's contexts, each step calls the vmapped loss, backpropagates its sum (each run's gradient is its own) and
    steps the stacked AdamW; validation micro-F1 after each segment, test micro-F1 at the end. Like the engine,
    training continues to the next multiple of ``check_every`` when ``steps`` is not one. Returns per run, in input
    order: ``config``, ``seed``, ``W_Q``, ``W_K`` (float64 ``[d_model, D_K]``), ``tau``, ``val_history``, ``metric``
    (test micro-F1), ``steps`` and, with ``record_losses``, ``losses`` (the training loss at every step).
    ``info``, if given, gets ``optimizer`` ("fused"/"foreach") and ``compiled``.
    """
    steps = check_int("steps", steps, min_value=1)
    if dtype not in (torch.float32, torch.float64):
        raise ValueError(f"dtype must be torch.float32 or torch.float64, got {dtype!r}")
    for name, flag in (("compile", compile), ("record_losses", record_losses)):
        if not isinstance(flag, bool):
            raise ValueError(f"{name} must be a bool, got {flag!r}")
    if info is not None and not isinstance(info, dict):
        raise ValueError(f"info must be a dict or None, got {type(info).__name__}")
    check_torch_device("device", device)
    runs = [(c, int(s)) for c, s in runs]
    if not runs or any(not isinstance(c, RunConfig) or c.variant not in ("max", "softmax") for c, _ in runs):
        raise ValueError("runs must be a non-empty sequence of (RunConfig, seed) with variant 'max' or 'softmax'")
    groups: dict[tuple, list[int]] = {}
    for i, (c, _) in enumerate(runs):
        groups.setdefault(c.compat_key() + (c.d_model, c.n_heads, c.d_k), []).append(i)
    out: list = [None] * len(runs)
    kind = None
    for idx in groups.values():
        res, kind = _torchfunc_group([runs[i] for i in idx], steps, torch.device(device), dtype, compile,
                                     record_losses)
        for i, r in zip(idx, res):
            out[i] = r
    if info is not None:
        info.update(optimizer=kind, compiled=compile)
    return out


def _fixed_length_runs(configs: Sequence[RunConfig], seeds: Sequence[int], steps: int) -> list[tuple[RunConfig, int]]:
    """Every (config, seed) of the max/softmax configs, made to train exactly ``steps`` steps (no early stop)."""
    configs = [c for c in configs if c.variant in ("max", "softmax")]
    if not configs:
        raise ValueError("configs must hold at least one 'max' or 'softmax' RunConfig")
    fixed = [RunConfig.from_dict({**c.to_dict(), "max_steps": steps, "check_every": min(c.check_every, steps),
                                  "patience": 10**6}) for c in configs]
    return [(c, int(s)) for c in fixed for s in seeds]


def run_bench(configs: Sequence[RunConfig], seeds: Sequence[int], *, steps: int = 1000, naive_runs: int = 4,
              device: str = "cpu", torchfunc: bool = True, compile: bool = False, fused: bool = False,
              max_waste: float = 4.0) -> BenchResult:
    """Time the engine on every (config, seed), the naive loop on ``naive_runs`` of them and (``torchfunc``) the
    torch.func baseline on every one, ``steps`` each; ``compile``: the baseline's loss under ``torch.compile``
    (compilation time included in its time). ``fused``: time the engine a second time, right after the first, with
    :class:`~rgr_verify.engine.FusedAdamW` (opt-in, tolerance-tested) in place of the default optimiser.
    ``max_waste``: the engine's batch planning (:func:`~rgr_verify.engine.plan_batches`; larger: fewer, wider
    batches)."""
    device = check_torch_device("device", device)
    steps = check_int("steps", steps, min_value=1)
    naive_runs = check_int("naive_runs", naive_runs, min_value=1)
    max_waste = check_real("max_waste", max_waste, low=1.0)
    for name, flag in (("torchfunc", torchfunc), ("compile", compile), ("fused", fused)):
        if not isinstance(flag, bool):
            raise ValueError(f"{name} must be a bool, got {flag!r}")
    runs = _fixed_length_runs(configs, seeds, steps)
    # A spread subset for the naive loop, so its rate is an average over the same shapes.
    pick = np.linspace(0, len(runs) - 1, min(naive_runs, len(runs))).round().astype(int)
    t0 = time.perf_counter()
    for i in pick:
        naive_train(runs[i][0], runs[i][1], steps, device=device)
    if device.startswith("cuda"):
        torch.cuda.synchronize()
    naive_s = time.perf_counter() - t0
    tf: dict = {}
    if torchfunc:
        t0 = time.perf_counter()
        torchfunc_train(runs, steps, device=device, compile=compile, info=tf)
        if device.startswith("cuda"):
            torch.cuda.synchronize()
        tf.update(seconds=time.perf_counter() - t0)
    stats: dict = {}
    t0 = time.perf_counter()
    train_runs(runs, device=device, stats=stats, max_waste=max_waste)
    if device.startswith("cuda"):
        torch.cuda.synchronize()
    engine_s = time.perf_counter() - t0
    fused_s = None
    if fused:
        from ..engine import FusedAdamW

        t0 = time.perf_counter()
        train_runs(runs, device=device, max_waste=max_waste, optimiser=FusedAdamW)
        if device.startswith("cuda"):
            torch.cuda.synchronize()
        fused_s = time.perf_counter() - t0
    return BenchResult(device=device, n_runs=len(runs), n_naive_runs=len(pick), steps=steps,
                       naive_steps_per_s=len(pick) * steps / naive_s, engine_steps_per_s=len(runs) * steps / engine_s,
                       naive_seconds=naive_s, engine_seconds=engine_s,
                       cuda_graphs=stats.get("cuda_graph_replays", 0) > 0,
                       n_torchfunc_runs=len(runs) if torchfunc else 0,
                       torchfunc_steps_per_s=len(runs) * steps / tf["seconds"] if torchfunc else None,
                       torchfunc_seconds=tf.get("seconds"), torchfunc_compiled=bool(tf.get("compiled", False)),
                       torchfunc_optimizer=tf.get("optimizer"), max_waste=max_waste,
                       fused_steps_per_s=None if fused_s is None else len(runs) * steps / fused_s,
                       fused_seconds=fused_s)


PHASES = ("setup", "sample", "train", "validate", "finish")  # the engine's profiler labels, "rgr." + phase
_SYNC_CALLS = ("cudaStreamSynchronize", "cudaDeviceSynchronize", "cudaEventSynchronize", "cudaMemcpy")


def _phase_of(event) -> str:
    """The engine phase (label without "rgr.") an event ran under, "other" outside every label."""
    e = event.cpu_parent
    while e is not None:
        if e.name.startswith("rgr."):
            return e.name[4:]
        e = e.cpu_parent
    return "other"


def _breakdown(prof, steps: int, wall: float, cuda: bool) -> dict:
    """Per stacked step, from the profiler's raw events: per phase the host (CPU) time inside its label, its
    share of the wall clock, the device time of the kernels it launched (CUDA), the top-level aten operators
    (dispatcher calls not made from inside another aten operator) and the host synchronisations (CUDA runtime
    sync calls and synchronous copies); and the totals."""
    from torch.autograd import DeviceType

    ph = {p: {"ms_per_step": 0.0, "share": 0.0, "device_ms_per_step": 0.0 if cuda else None, "ops_per_step": 0.0,
              "host_syncs_per_step": 0.0 if cuda else None} for p in PHASES + ("other",)}
    syncs = sync_us = 0.0
    for e in prof.events():
        if e.device_type != DeviceType.CPU:
            continue
        name = e.name
        if name.startswith("rgr.") and name[4:] in PHASES:
            d = ph[name[4:]]
            d["ms_per_step"] += 1e-3 * e.cpu_time_total / steps
            d["share"] += 1e-6 * e.cpu_time_total / wall
            if cuda:
                d["device_ms_per_step"] += 1e-3 * e.device_time_total / steps
        elif name.startswith("aten::") and (e.cpu_parent is None or not e.cpu_parent.name.startswith("aten::")):
            ph[_phase_of(e)]["ops_per_step"] += 1.0 / steps
        elif cuda and name.startswith(_SYNC_CALLS) and not name.startswith("cudaMemcpyAsync"):
            ph[_phase_of(e)]["host_syncs_per_step"] += 1.0 / steps
            syncs += 1
            sync_us += e.cpu_time_total
    labelled = sum(ph[p]["ms_per_step"] for p in PHASES)
    ph["other"]["ms_per_step"] = max(0.0, 1e3 * wall / steps - labelled)
    ph["other"]["share"] = max(0.0, 1.0 - sum(ph[p]["share"] for p in PHASES))
    return {"phases": ph, "aten_ops_per_step": sum(d["ops_per_step"] for d in ph.values()),
            "host_syncs_per_step": syncs / steps if cuda else None,
            "host_sync_ms_per_step": 1e-3 * sync_us / steps if cuda else None}


def profile_engine(configs: Sequence[RunConfig], seeds: Sequence[int], *, steps: int = 1000, device: str = "cpu",
                   row_limit: int = 15, max_waste: float = 4.0) -> dict:
    """Where the engine's time goes: train the runs of :func:`run_bench` (``steps`` each) under
    :mod:`torch.profiler` and return wall time, device-kernel time and launches per optimisation step (run-steps /
    runs), the fraction of the wall clock the device is busy, and the top ``row_limit`` operators by self device
    time (self CPU time on a CPU) as a text table. The profiler adds overhead: compare the wall time with
    :func:`run_bench`'s, which runs unprofiled.

    Also, from the engine's profiler labels (:mod:`rgr_verify.engine.loop`), ``phases``: for each of
    :data:`PHASES` and "other" (outside every label: planning, threads), ``ms_per_step`` (host time inside the
    label per stacked step; CPU time on a CPU), ``share`` (of the profiled wall clock), ``device_ms_per_step``
    (CUDA: kernel time the profiler attributes to the label; None on a CPU), ``ops_per_step`` (top-level aten
    operators) and ``host_syncs_per_step`` (CUDA: runtime sync calls and synchronous copies; None on a CPU);
    ``aten_ops_per_step``, ``host_syncs_per_step``, ``host_sync_ms_per_step`` (totals) and
    ``dispatch_ops_per_step`` (kernel launches on CUDA, top-level aten operators on a CPU: the N of
    :func:`rgr_verify.perf.floor.dispatch_floor`). With concurrent batches (CUDA, ``streams > 1``) the labels of
    different threads overlap in time, so the shares can sum past 1."""
    from torch.autograd import DeviceType
    from torch.profiler import ProfilerActivity, profile

    device = check_torch_device("device", device)
    steps = check_int("steps", steps, min_value=1)
    row_limit = check_int("row_limit", row_limit, min_value=1)
    max_waste = check_real("max_waste", max_waste, low=1.0)
    runs = _fixed_length_runs(configs, seeds, steps)
    cuda = device.startswith("cuda")
    activities = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if cuda else [])
    stats: dict = {}
    # torch 2.11 on CUDA warns on entering a profile without a schedule that only one cycle's events are kept (the
    # profile here is one cycle): that warning alone is silenced.
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*Profiler clears events", category=UserWarning)
        with profile(activities=activities) as prof:
            t0 = time.perf_counter()
            train_runs(runs, device=device, stats=stats, max_waste=max_waste)
            if cuda:
                torch.cuda.synchronize()
            wall = time.perf_counter() - t0
    events = prof.key_averages()
    kernels = [e for e in events  # kernels only: the labels' device-side spans are not kernels
               if getattr(e, "device_type", None) == DeviceType.CUDA and not e.key.startswith("rgr.")]
    kernel_us = sum(getattr(e, "self_device_time_total", 0.0) for e in kernels)
    launches = sum(e.count for e in kernels)
    sort_by = "self_cuda_time_total" if cuda else "self_cpu_time_total"
    br = _breakdown(prof, steps, wall, cuda)
    return {"device": device, "runs": len(runs), "steps": steps, "wall_s": wall,
            "wall_ms_per_step": 1e3 * wall / steps, "kernel_ms_per_step": 1e-3 * kernel_us / steps,
            "kernel_launches_per_step": launches / steps,
            "device_busy_fraction": (1e-6 * kernel_us / wall) if cuda and wall > 0 else None,
            "cuda_graph_replays": int(stats.get("cuda_graph_replays", 0)), **br,
            "dispatch_ops_per_step": launches / steps if cuda else br["aten_ops_per_step"],
            "table": events.table(sort_by=sort_by, row_limit=row_limit)}


def engine_floor(configs: Sequence[RunConfig], seeds: Sequence[int], *, steps: int, device: str = "cpu",
                 ops_per_step: float, engine_ms_per_step: float | None = None, repeats: int = 5,
                 max_waste: float = 4.0) -> dict:
    """:func:`rgr_verify.perf.floor.step_floor` for the runs :func:`run_bench` trains (``steps`` each), given the
    profile's ``dispatch_ops_per_step``; with ``engine_ms_per_step`` (the engine's wall time per stacked step)
    also ``engine_ms_per_step`` and ``ratio`` = that / ``floor_ms``."""
    from .floor import step_floor

    device = check_torch_device("device", device)
    steps = check_int("steps", steps, min_value=1)
    if engine_ms_per_step is not None:
        engine_ms_per_step = check_real("engine_ms_per_step", engine_ms_per_step, low=0.0, low_open=True)
    out = step_floor(_fixed_length_runs(configs, seeds, steps), ops_per_step, device=device, repeats=repeats,
                     max_waste=max_waste)
    if engine_ms_per_step is not None:
        out.update(engine_ms_per_step=float(engine_ms_per_step), ratio=engine_ms_per_step / out["floor_ms"])
    return out
