"""Speed benchmark: a naive per-run PyTorch loop against the batched engine, on the same configurations.

The naive loop is what a researcher would write for App. A.1: one model (``nn.Parameter`` W_Q, W_K, tau), one
``torch.optim.AdamW``, one context per step drawn by the reference sampler
(:func:`rgr_verify.contexts.sample_context`), the loss through :mod:`rgr_verify.scoring`, validation micro-F1
every ``check_every`` steps; runs one after another. Both sides run a fixed number of steps per run (no early
stopping, so they do the same work) and the benchmark reports run-steps per second of each and their ratio, and
whether the engine replayed CUDA graphs (``cuda_graphs``; only on CUDA, see :mod:`rgr_verify.engine`).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Sequence

import numpy as np
import torch
import torch.nn.functional as F

from ._checks import check_int
from .contexts import context_labels, sample_context
from .engine import RunConfig, build_run_data, train_runs
from .metrics import micro_f1
from .scoring import max_over_heads_scores, softmax_sum_scores, split_heads

__all__ = ["BenchResult", "naive_train", "profile_engine", "run_bench"]


@dataclass(frozen=True)
class BenchResult:
    """Run-steps per second of the naive loop and of the engine, and their ratio."""

    device: str
    n_runs: int  # runs the engine trained
    n_naive_runs: int  # runs the naive loop trained (a spread subset: it is slow)
    steps: int  # steps per run, both sides
    naive_steps_per_s: float
    engine_steps_per_s: float
    naive_seconds: float
    engine_seconds: float
    cuda_graphs: bool = False  # whether the engine replayed CUDA graphs (max variant on CUDA)

    @property
    def ratio(self) -> float:
        return self.engine_steps_per_s / self.naive_steps_per_s

    def to_dict(self) -> dict:
        d = dict(self.__dict__)
        d["ratio"] = self.ratio
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


def _fixed_length_runs(configs: Sequence[RunConfig], seeds: Sequence[int], steps: int) -> list[tuple[RunConfig, int]]:
    """Every (config, seed) of the max/softmax configs, made to train exactly ``steps`` steps (no early stop)."""
    configs = [c for c in configs if c.variant in ("max", "softmax")]
    if not configs:
        raise ValueError("configs must hold at least one 'max' or 'softmax' RunConfig")
    fixed = [RunConfig.from_dict({**c.to_dict(), "max_steps": steps, "check_every": min(c.check_every, steps),
                                  "patience": 10**6}) for c in configs]
    return [(c, int(s)) for c in fixed for s in seeds]


def run_bench(configs: Sequence[RunConfig], seeds: Sequence[int], *, steps: int = 1000, naive_runs: int = 4,
              device: str = "cpu") -> BenchResult:
    """Time the engine on every (config, seed) and the naive loop on ``naive_runs`` of them, ``steps`` each."""
    steps = check_int("steps", steps, min_value=1)
    naive_runs = check_int("naive_runs", naive_runs, min_value=1)
    runs = _fixed_length_runs(configs, seeds, steps)
    # A spread subset for the naive loop, so its rate is an average over the same shapes.
    pick = np.linspace(0, len(runs) - 1, min(naive_runs, len(runs))).round().astype(int)
    t0 = time.perf_counter()
    for i in pick:
        naive_train(runs[i][0], runs[i][1], steps, device=device)
    if device.startswith("cuda"):
        torch.cuda.synchronize()
    naive_s = time.perf_counter() - t0
    stats: dict = {}
    t0 = time.perf_counter()
    train_runs(runs, device=device, stats=stats)
    if device.startswith("cuda"):
        torch.cuda.synchronize()
    engine_s = time.perf_counter() - t0
    return BenchResult(device=device, n_runs=len(runs), n_naive_runs=len(pick), steps=steps,
                       naive_steps_per_s=len(pick) * steps / naive_s, engine_steps_per_s=len(runs) * steps / engine_s,
                       naive_seconds=naive_s, engine_seconds=engine_s,
                       cuda_graphs=stats.get("cuda_graph_replays", 0) > 0)


def profile_engine(configs: Sequence[RunConfig], seeds: Sequence[int], *, steps: int = 1000, device: str = "cpu",
                   row_limit: int = 15) -> dict:
    """Where the engine's time goes: train the runs of :func:`run_bench` (``steps`` each) under
    :mod:`torch.profiler` and return wall time, device-kernel time and launches per optimisation step (run-steps /
    runs), the fraction of the wall clock the device is busy, and the top ``row_limit`` operators by self device
    time (self CPU time on a CPU) as a text table. The profiler adds overhead: compare the wall time with
    :func:`run_bench`'s, which runs unprofiled."""
    from torch.autograd import DeviceType
    from torch.profiler import ProfilerActivity, profile

    steps = check_int("steps", steps, min_value=1)
    row_limit = check_int("row_limit", row_limit, min_value=1)
    runs = _fixed_length_runs(configs, seeds, steps)
    cuda = device.startswith("cuda")
    activities = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if cuda else [])
    stats: dict = {}
    with profile(activities=activities) as prof:
        t0 = time.perf_counter()
        train_runs(runs, device=device, stats=stats)
        if cuda:
            torch.cuda.synchronize()
        wall = time.perf_counter() - t0
    events = prof.key_averages()
    kernels = [e for e in events if getattr(e, "device_type", None) == DeviceType.CUDA]
    kernel_us = sum(getattr(e, "self_device_time_total", 0.0) for e in kernels)
    launches = sum(e.count for e in kernels)
    sort_by = "self_cuda_time_total" if cuda else "self_cpu_time_total"
    return {"device": device, "runs": len(runs), "steps": steps, "wall_s": wall,
            "wall_ms_per_step": 1e3 * wall / steps, "kernel_ms_per_step": 1e-3 * kernel_us / steps,
            "kernel_launches_per_step": launches / steps,
            "device_busy_fraction": (1e-6 * kernel_us / wall) if cuda and wall > 0 else None,
            "cuda_graph_replays": int(stats.get("cuda_graph_replays", 0)),
            "table": events.table(sort_by=sort_by, row_limit=row_limit)}
