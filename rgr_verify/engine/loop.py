"""The batched training loop: segments of optimisation steps between checks, the stop mask, and the drivers
:func:`train_batch` (one batch) and :func:`train_runs` (any runs, batched by
:func:`~rgr_verify.engine.plan.plan_batches`).

Per step, per run: one fresh context from the run's own stream, the hand-written loss gradient
(:mod:`~rgr_verify.engine.model`), one optimiser step over the flat ``[R, P]`` buffer (:mod:`~rgr_verify.engine.optim`;
the optimiser is a parameter: ``optimiser=``). Every ``check_every`` steps the validation metric of all live runs
is computed at once (:mod:`~rgr_verify.engine.evaluate`); runs that stop are evaluated on their test set and leave
the batch, so their parameters freeze. On CUDA the steps count on the device and run in chunks captured as
CUDA graphs (:mod:`~rgr_verify.engine.capture`), and batches of different shapes train concurrently on their own
CUDA streams (:func:`train_runs` ``streams``).

Profiler labels (``torch.profiler.record_function``; labels only, results unchanged): ``rgr.setup`` (a batch's
state), ``rgr.sample`` (uniforms to the device, contexts, labels, embeddings, coefficients), ``rgr.train`` (a
chunk's optimisation steps, graph replay included), ``rgr.validate`` (validation metric and stopping rule),
``rgr.finish`` (test evaluation of the runs that stop, stop mask); :func:`rgr_verify.perf.bench.profile_engine` reports
time per label.
"""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from contextlib import nullcontext
from typing import Callable, Sequence

import torch
from torch.profiler import record_function

from ..basics.checks import check_int, check_torch_device
from .batch import Batch
from .capture import ChunkGraphs, cuda_graphs_enabled
from .config import RunConfig, RunResult
from .evaluate import EarlyStopping, finish, validate
from .model import GradBuffers, grad_max_step, grads, logistic_coefs
from .optim import Optimiser, StackedAdamW
from .plan import plan_batches
from .sampler import UniformStreams, contexts_from_uniforms, labels_torch

__all__ = ["BatchTrainer", "train_batch", "train_runs", "batch_cost", "DEFAULT_CUDA_STREAMS"]


class BatchTrainer:
    """One batch in training: its stacked state (:class:`~rgr_verify.engine.batch.Batch`), gradient buffers, the
    optimiser, the training streams, the CUDA graphs of the max variant's chunks, the stopping rule's state and
    the step count.

    ``optimiser``: a class implementing :class:`~rgr_verify.engine.optim.Optimiser` (default
    :class:`~rgr_verify.engine.optim.StackedAdamW`). ``device_step``: count steps on the device (default: on
    CUDA), so chunks can be captured; ``cuda_graphs``: capture them (needs ``device_step``); ``concurrent``: other
    batches train in other threads at the same time (see :class:`~rgr_verify.engine.capture.ChunkGraphs`).
    """

    def __init__(self, runs: Sequence[tuple[RunConfig, int]], *, device: str | torch.device = "cpu",
                 dtype: torch.dtype = torch.float32, optimiser: Callable[..., Optimiser] | None = None,
                 device_step: bool | None = None, cuda_graphs: bool = False, concurrent: bool = False):
        if optimiser is not None and not callable(optimiser):
            raise ValueError(f"optimiser must be an Optimiser class or None, got {optimiser!r}")
        if device_step is not None and not isinstance(device_step, bool):
            raise ValueError(f"device_step must be a bool or None, got {device_step!r}")
        if not isinstance(cuda_graphs, bool):
            raise ValueError(f"cuda_graphs must be a bool, got {cuda_graphs!r}")
        self.batch = b = Batch(runs, device=device, dtype=dtype)
        c0 = b.c0
        # Max variant on CUDA: step-dependent optimiser scalars read from device tables by a device step counter
        # (the same values as the host step; bitwise on CPU), so that chunks of steps can be graph-captured.
        self.device_step = b.device.type == "cuda" if device_step is None else device_step
        self.buffers = GradBuffers.like(b.theta)
        cap = max(c.max_steps for c in b.configs)
        last = -(-cap // c0.check_every) * c0.check_every  # the last step a run can take
        self.optimiser = (optimiser or StackedAdamW)(b.theta, lr=c0.lr, weight_decay=c0.weight_decay, max_step=last)
        self.uniforms = UniformStreams([dd.stream for dd in b.data], [c.m for c in b.configs], c0.ell)
        self.graphs = ChunkGraphs(b.device, enabled=self.device_step and cuda_graphs, concurrent=concurrent)
        self.stopping = EarlyStopping(b.configs)
        self.step = 0

    @torch.no_grad()
    def train_segment(self, n_steps: int, sub: int = 100, *, pool: ThreadPoolExecutor | None = None,
                      next_steps: int = 0) -> None:
        """``n_steps`` optimisation steps, one fresh context per run per step, in chunks of ``sub`` steps.

        With a ``pool`` and ``next_steps > 0``, the next segment's uniforms (``next_steps`` per run still in the
        batch) are drawn in the pool while this segment trains; the next call uses them (:meth:`keep` drops
        the rows of runs that leave in between; their streams are never read again)."""
        b = self.batch
        c = b.c0
        with record_function("rgr.sample"):
            u = tuple(x.to(b.device) for x in self.uniforms.take(n_steps))
            if pool is not None and next_steps > 0:
                self.uniforms.prefetch(pool, next_steps)
            ctx = contexts_from_uniforms(b.nbrs, *u, rho=c.rho, m=b.m_run,
                                         protected=c.sampler == "protected")  # [R, n_steps, ell]
        for s0 in range(0, n_steps, sub):
            with record_function("rgr.sample"):
                cs = ctx[:, s0:s0 + sub]
                y = labels_torch(b.nbrs, cs)  # [R, sub, ell, ell]
                Xc = b.embed(cs)  # [R, sub, ell, d]
                A, negB = logistic_coefs(b, y, 1) if c.variant != "value" else (None, None)
            with record_function("rgr.train"):
                self._train_chunk(Xc, y, A, negB)

    def _train_chunk(self, Xc: torch.Tensor, y: torch.Tensor, A, negB) -> None:
        """The optimisation steps of one chunk (one per context of ``Xc [R, K, ell, d]``): on the device (graph
        replay where captured) or with the host step count."""
        b = self.batch
        if self.device_step:
            self._device_chunk(self._chunk_inputs(Xc, y, A, negB))
            return
        if b.c0.variant == "max":
            for x, a, nb in zip(Xc.unbind(1), A.unbind(1), negB.unbind(1)):  # the step's views, made at once
                grad = grad_max_step(b, self.buffers, x, a, nb)
                self.step += 1
                self.optimiser.step(b.theta, grad, self.step)
            return
        for t in range(Xc.shape[1]):
            coef = None if A is None else (A[:, t:t + 1], negB[:, t:t + 1])
            _, grad = grads(b, self.buffers, Xc[:, t:t + 1], y[:, t:t + 1], with_loss=False, coef=coef)
            self.step += 1
            self.optimiser.step(b.theta, grad, self.step)

    def _chunk_inputs(self, Xc: torch.Tensor, y: torch.Tensor, A, negB) -> tuple[torch.Tensor, ...]:
        """The tensors a chunk of device steps reads: (Xc, A, -B) for the max variant (its gradient needs no
        labels), (Xc, y, A, -B) for softmax, (Xc, y) for value."""
        variant = self.batch.c0.variant
        if variant == "max":
            return Xc, A, negB
        return (Xc, y, A, negB) if variant == "softmax" else (Xc, y)

    def _device_chunk(self, inputs: tuple[torch.Tensor, ...]) -> None:
        """K = ``inputs[0].shape[1]`` steps with the step count on the device (captured and replayed as a CUDA
        graph when ``cuda_graphs``: :meth:`ChunkGraphs.run`)."""
        K = inputs[0].shape[1]
        if self.optimiser.prepare_device(self.step + K):
            self.graphs.drop_graphs()  # captured graphs read the old tensors
        self.optimiser.set_device_step(self.step)
        self.graphs.run(self._steps_on_device, inputs, rearm=lambda: self.optimiser.set_device_step(self.step))
        self.step += K

    def _steps_on_device(self, Xc: torch.Tensor, *rest: torch.Tensor) -> None:
        """One step per context of ``Xc [R, K, ell, d]`` (the other inputs of :meth:`_chunk_inputs` alike), the
        optimiser's device step; advances its device counter by K, not ``self.step``."""
        b = self.batch
        if b.c0.variant == "max":
            A, negB = rest
            for t in range(Xc.shape[1]):
                grad = grad_max_step(b, self.buffers, Xc[:, t], A[:, t], negB[:, t])
                self.optimiser.step_on_device(b.theta, grad)
            return
        y, coef = rest[0], rest[1:]
        for t in range(Xc.shape[1]):
            step_coef = (coef[0][:, t:t + 1], coef[1][:, t:t + 1]) if coef else None
            _, grad = grads(b, self.buffers, Xc[:, t:t + 1], y[:, t:t + 1], with_loss=False, coef=step_coef)
            self.optimiser.step_on_device(b.theta, grad)

    def keep(self, rows: Sequence[int]) -> None:
        """Stop mask: keep only batch rows ``rows`` (finished runs leave and their parameters freeze)."""
        idx = self.batch.keep(rows)
        self.optimiser.keep(idx)
        self.buffers = GradBuffers.like(self.batch.theta)
        self.uniforms.keep(rows)
        self.graphs.reset()  # graphs read the old rows

    def check(self, *, keep_weights: bool = False) -> list[tuple[int, RunResult]]:
        """A check: validation metric of the live runs, the stopping rule, the test results of the runs that
        stop (as (original index, result) pairs, early stoppers first), which then leave the batch."""
        b = self.batch
        with record_function("rgr.validate"):
            keep, done_stop, done_cap = self.stopping.check(b.alive, validate(b), self.step)
        out = []
        with record_function("rgr.finish"):
            for rows, stopped in ((done_stop, True), (done_cap, False)):
                out += finish(b, rows, stopped=stopped, step=self.step, history=self.stopping.history,
                              keep_weights=keep_weights)
            if len(keep) < len(b.alive):
                self.keep(keep)
        return out


def train_batch(runs: Sequence[tuple[RunConfig, int]], *, device: str = "cpu", dtype: torch.dtype = torch.float32,
                on_result: Callable[[RunResult], None] | None = None, keep_weights: bool = False,
                prefetch: bool = True, cuda_graphs: bool | None = None, stats: dict | None = None,
                optimiser: Callable[..., Optimiser] | None = None, concurrent: bool = False) -> list[RunResult]:
    """Train runs of one shape key together until each stops or reaches its cap. Results in input order.

    ``prefetch``: draw the next segment's uniforms in a worker thread while a segment trains (same results).
    ``cuda_graphs``: on CUDA, replay the max variant's 100-step chunks as CUDA graphs (default:
    :func:`~rgr_verify.engine.capture.cuda_graphs_enabled`; same kernels as eager, so the same results).
    ``stats``, if given, gets ``cuda_graph_replays`` (chunks replayed from a graph) added to it. ``optimiser``:
    an :class:`~rgr_verify.engine.optim.Optimiser` class (default: the stacked AdamW of the protocol; results of
    any other must not go into a results store, whose keys do not name it). ``concurrent``: other batches train in
    other threads meanwhile (:func:`train_runs` with ``streams > 1``).
    """
    if not isinstance(prefetch, bool):
        raise ValueError(f"prefetch must be a bool, got {prefetch!r}")
    if cuda_graphs is not None and not isinstance(cuda_graphs, bool):
        raise ValueError(f"cuda_graphs must be a bool or None, got {cuda_graphs!r}")
    if stats is not None and not isinstance(stats, dict):
        raise ValueError(f"stats must be a dict or None, got {type(stats).__name__}")
    graphs = cuda_graphs_enabled() if cuda_graphs is None else cuda_graphs  # validates the variable everywhere
    with record_function("rgr.setup"):
        trainer = BatchTrainer(runs, device=device, dtype=dtype, optimiser=optimiser, cuda_graphs=graphs,
                               concurrent=concurrent)
    b = trainer.batch
    results: dict[int, RunResult] = {}
    c0 = b.c0
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="rgr-uniforms") if prefetch else nullcontext() as pool:
        while b.alive:
            # A next segment exists only if some run's cap lies beyond this one (early stops may still end all).
            after = trainer.step + c0.check_every
            more = any(b.configs[j].max_steps > after for j in b.alive)
            trainer.train_segment(c0.check_every, pool=pool, next_steps=c0.check_every if more else 0)
            for idx, res in trainer.check(keep_weights=keep_weights):
                results[idx] = res
                if on_result is not None:
                    on_result(res)
    if stats is not None:
        stats["cuda_graph_replays"] = stats.get("cuda_graph_replays", 0) + trainer.graphs.replays
    return [results[j] for j in range(len(b.configs))]


def train_runs(runs: Sequence[tuple[RunConfig, int]], *, device: str = "cpu", dtype: torch.dtype = torch.float32,
               max_batch: int = 256, max_waste: float = 4.0, on_result: Callable[[RunResult], None] | None = None,
               keep_weights: bool = False, prefetch: bool = True, cuda_graphs: bool | None = None,
               stats: dict | None = None, optimiser: Callable[..., Optimiser] | None = None,
               streams: int | None = None) -> list[RunResult]:
    """Train many runs (any mix of shapes) batched by :func:`~rgr_verify.engine.plan.plan_batches`. Results in
    input order. ``prefetch``, ``cuda_graphs``, ``stats``, ``optimiser``: as in :func:`train_batch`.

    ``streams``: on CUDA, how many batches train at once, each in its own thread on its own CUDA stream (default
    :data:`DEFAULT_CUDA_STREAMS`; 1 on CPU, where it must be 1). A small batch's step is a chain of tiny kernels
    that leaves the GPU mostly idle, so independent batches overlap; each computes exactly what it computes alone.
    The costliest batches start first; ``on_result`` is called under a lock, from the thread that trained the run.
    """
    runs = [(c, int(s)) for c, s in runs]
    on_cuda = check_torch_device("device", device).startswith("cuda")
    if streams is None:
        streams = DEFAULT_CUDA_STREAMS if on_cuda else 1
    streams = check_int("streams", streams, min_value=1, max_value=64 if on_cuda else 1)
    batches = plan_batches(runs, max_batch=max_batch, max_waste=max_waste)
    out: dict[tuple, RunResult] = {}
    kw = dict(device=device, dtype=dtype, keep_weights=keep_weights, prefetch=prefetch, cuda_graphs=cuda_graphs,
              optimiser=optimiser)
    if streams == 1 or len(batches) == 1:
        for batch in batches:
            for res in train_batch(batch, on_result=on_result, stats=stats, **kw):
                out[(res.config, res.seed)] = res
        return [out[(c, s)] for c, s in runs]
    lock = threading.Lock()

    def report(res: RunResult) -> None:
        if on_result is not None:
            with lock:
                on_result(res)

    def work(batch) -> tuple[list[RunResult], dict]:
        own: dict = {}
        stream = torch.cuda.Stream(device=device)
        with torch.cuda.stream(stream):
            results = train_batch(batch, on_result=report, stats=own, concurrent=True, **kw)
        stream.synchronize()
        return results, own

    order = sorted(batches, key=batch_cost, reverse=True)  # longest first: the last to finish are short
    with ThreadPoolExecutor(max_workers=min(streams, len(batches)), thread_name_prefix="rgr-batch") as pool:
        for results, own in pool.map(work, order):
            for res in results:
                out[(res.config, res.seed)] = res
            if stats is not None:
                for key, value in own.items():
                    stats[key] = stats.get(key, 0) + value
    return [out[(c, s)] for c, s in runs]


DEFAULT_CUDA_STREAMS = 4  # measured on an H100: the full sec6-grid's 36 batches 1.96x faster with 4 than with 1


def batch_cost(batch: Sequence[tuple[RunConfig, int]]) -> int:
    """A batch's work in padded units: runs x heads x width x m x steps cap (the order in which to start them)."""
    H = max(c.n_heads for c, _ in batch)
    d_k_pad = max(c.d_k for c, _ in batch)
    m = max(c.m for c, _ in batch)
    return len(batch) * H * d_k_pad * m * max(c.max_steps for c, _ in batch)
