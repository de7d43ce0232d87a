"""The floor of a stacked training step: a lower bound on what one optimisation step of every batch of a set of
runs (a "stacked step", as :func:`rgr_verify.perf.bench.profile_engine` counts it) could cost on this device.

Two bounds, each measured on the device at hand, and the floor is the larger:

* **Dispatch floor.** A stacked step issues N operations: N = the CUDA kernel launches per stacked step on CUDA,
  the top-level aten operators (dispatcher calls) per stacked step on a CPU, both as counted by the engine's
  profile. Whatever those operations compute, issuing N of them costs at least what N trivial ones cost: a chain
  of N in-place adds on an 8-element tensor, timed eagerly (Python, dispatcher, and on CUDA the launch), and on
  CUDA also captured once in a CUDA graph and replayed (the cheapest way to issue N kernels; it is the CUDA
  dispatch floor). Best of ``repeats``. On CUDA with concurrent batches (``train_runs(streams > 1)``) kernels of
  different batches may overlap, so this bound assumes one launch queue.
* **Bytes floor.** Per batch of the plan :func:`~rgr_verify.engine.plan_batches` makes (as :func:`train_runs`
  with its defaults), with ``R`` runs and the engine's flat parameter buffer ``[R, P]``, ``P = 2 H d_model d_k + 1``
  (padded to the batch's largest h, d_k and d_model, as the engine stores it): the AdamW update must read the
  gradient, theta, exp_avg and exp_avg_sq and write theta, exp_avg and exp_avg_sq, 7 R P elements; the step's
  contexts' embeddings ``[R, ell, d_model]`` must be read once, R ell d_model elements. Everything else a step
  touches (Q, K, scores, the gradient's intermediates) is counted as free, so this is a lower bound. Bytes =
  elements x the dtype's size, summed over batches, divided by the memory bandwidth measured by a large copy on
  the device (2 x size bytes moved, read and write; 256 MiB on CUDA, 64 MiB on a CPU; best of ``repeats``).

:func:`step_floor` returns both bounds, the floor, and which bound sets it.
"""

from __future__ import annotations

import time
from typing import Sequence

import torch

from ..basics.checks import check_int, check_real, check_torch_device
from ..engine import RunConfig, plan_batches

__all__ = ["bytes_per_stacked_step", "dispatch_floor", "memory_bandwidth", "step_floor"]


def _device(device) -> torch.device:
    return torch.device(check_torch_device("device", device))


def _sync(dev: torch.device) -> None:
    if dev.type == "cuda":
        torch.cuda.synchronize(dev)


def memory_bandwidth(device: str = "cpu", *, mib: int | None = None, repeats: int = 5) -> float:
    """Bytes per second of a ``mib`` MiB tensor copy on ``device`` (default 256 MiB on CUDA, 64 MiB on a CPU),
    counted as 2 x size (read and write), best of ``repeats`` after one warm-up copy."""
    dev = _device(device)
    mib = check_int("mib", (256 if dev.type == "cuda" else 64) if mib is None else mib, min_value=1,
                    max_value=1 << 14)
    repeats = check_int("repeats", repeats, min_value=1, max_value=1000)
    n = mib * (1 << 20) // 4
    src = torch.ones(n, dtype=torch.float32, device=dev)
    dst = torch.empty_like(src)
    dst.copy_(src)
    _sync(dev)
    best = float("inf")
    for _ in range(repeats):
        t0 = time.perf_counter()
        dst.copy_(src)
        _sync(dev)
        best = min(best, time.perf_counter() - t0)
    return 2.0 * src.numel() * src.element_size() / best


def _chain(x: torch.Tensor, n_ops: int) -> None:
    for _ in range(n_ops):
        x.add_(1.0)


def dispatch_floor(n_ops: int, device: str = "cpu", *, repeats: int = 5, graph: bool = True) -> dict:
    """Milliseconds to issue a chain of ``n_ops`` trivial operations (in-place adds on an 8-element tensor) on
    ``device``: ``eager_ms`` (issued from Python, waited for on CUDA) and, on CUDA with ``graph``, ``graph_ms``
    (the chain captured once in a CUDA graph, one replay; None on a CPU). Best of ``repeats`` each."""
    dev = _device(device)
    n_ops = check_int("n_ops", n_ops, min_value=1, max_value=10**6)
    repeats = check_int("repeats", repeats, min_value=1, max_value=1000)
    if not isinstance(graph, bool):
        raise ValueError(f"graph must be a bool, got {graph!r}")
    x = torch.zeros(8, device=dev)
    _chain(x, min(n_ops, 100))  # warm-up
    _sync(dev)
    eager = float("inf")
    for _ in range(repeats):
        t0 = time.perf_counter()
        _chain(x, n_ops)
        _sync(dev)
        eager = min(eager, time.perf_counter() - t0)
    out = {"n_ops": n_ops, "eager_ms": 1e3 * eager, "graph_ms": None}
    if dev.type == "cuda" and graph:
        side = torch.cuda.Stream(device=dev)
        side.wait_stream(torch.cuda.current_stream(dev))
        with torch.cuda.stream(side):  # warm-up on the capture stream, as the engine does
            _chain(x, 3)
        torch.cuda.current_stream(dev).wait_stream(side)
        g = torch.cuda.CUDAGraph()
        with torch.cuda.graph(g):
            _chain(x, n_ops)
        g.replay()
        _sync(dev)
        replays = 10
        best = float("inf")
        for _ in range(repeats):
            t0 = time.perf_counter()
            for _ in range(replays):
                g.replay()
            _sync(dev)
            best = min(best, (time.perf_counter() - t0) / replays)
        out["graph_ms"] = 1e3 * best
    return out


def bytes_per_stacked_step(runs: Sequence[tuple[RunConfig, int]], *, dtype: torch.dtype = torch.float32,
                           max_batch: int = 256, max_waste: float = 4.0) -> dict:
    """The bytes floor's numerator (module docstring) for ``runs`` batched as :func:`train_runs` batches them:
    ``optimiser_bytes`` (7 R P elements per batch), ``context_bytes`` (R ell d_model), their sum ``bytes``, and
    ``batches``."""
    runs = [(c, s) for c, s in runs]
    if not runs or any(not isinstance(c, RunConfig) for c, _ in runs):
        raise ValueError("runs must be a non-empty sequence of (RunConfig, seed) pairs")
    if dtype not in (torch.float32, torch.float64):
        raise ValueError(f"dtype must be torch.float32 or torch.float64, got {dtype!r}")
    size = torch.empty((), dtype=dtype).element_size()
    batches = plan_batches(runs, max_batch=max_batch, max_waste=max_waste)
    opt = ctx = 0
    for batch in batches:
        R = len(batch)
        H = max(c.n_heads for c, _ in batch)
        d_k_pad = max(c.d_k for c, _ in batch)
        d = max(c.d_model for c, _ in batch)
        opt += 7 * R * (2 * H * d * d_k_pad + 1) * size
        ctx += R * batch[0][0].ell * d * size
    return {"batches": len(batches), "optimiser_bytes": opt, "context_bytes": ctx, "bytes": opt + ctx}


def step_floor(runs: Sequence[tuple[RunConfig, int]], ops_per_step: float, *, device: str = "cpu",
               dtype: torch.dtype = torch.float32, repeats: int = 5, max_waste: float = 4.0) -> dict:
    """The floor of one stacked step of ``runs`` (module docstring) given ``ops_per_step`` (kernel launches on
    CUDA, top-level aten operators on a CPU, per stacked step; rounded to the nearest integer, at least 1), the
    runs batched with ``max_waste`` (:func:`~rgr_verify.engine.plan_batches`).

    Returns ``ops_per_step``, ``dispatch_eager_ms``, ``dispatch_graph_ms`` (CUDA; None on a CPU),
    ``dispatch_ms`` (the graph time on CUDA, eager on a CPU), ``bytes`` (with ``optimiser_bytes``,
    ``context_bytes``, ``batches``), ``bandwidth_gb_s`` (1e9 bytes/s), ``bytes_ms``, ``floor_ms`` (the larger)
    and ``bound`` ("dispatch" or "bytes")."""
    ops_per_step = check_real("ops_per_step", ops_per_step, low=0.0, high=1e6, low_open=True)
    dev = _device(device)
    moved = bytes_per_stacked_step(runs, dtype=dtype, max_waste=max_waste)
    disp = dispatch_floor(max(1, round(ops_per_step)), str(dev), repeats=repeats)
    bandwidth = memory_bandwidth(str(dev), repeats=repeats)
    dispatch_ms = disp["graph_ms"] if disp["graph_ms"] is not None else disp["eager_ms"]
    bytes_ms = 1e3 * moved["bytes"] / bandwidth
    return {"ops_per_step": float(ops_per_step), "dispatch_eager_ms": disp["eager_ms"],
            "dispatch_graph_ms": disp["graph_ms"], "dispatch_ms": dispatch_ms, **moved,
            "bandwidth_gb_s": bandwidth / 1e9, "bytes_ms": bytes_ms, "floor_ms": max(dispatch_ms, bytes_ms),
            "bound": "dispatch" if dispatch_ms >= bytes_ms else "bytes"}
