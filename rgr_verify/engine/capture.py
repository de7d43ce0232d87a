"""CUDA graph capture of chunks of training steps.

With the step count on the device (:meth:`~rgr_verify.engine.optim.Optimiser.step_on_device`), no host value of a
chunk of K steps depends on the step, so :class:`ChunkGraphs` runs a chunk length eagerly the first time it is
seen for the current rows (the warm-up, on the capture stream as torch recommends), then captures it once in a
``torch.cuda.CUDAGraph`` on static inputs and replays it, the chunk's inputs copied into the static ones. Graphs
and eager launch the same kernels, so the results are the same. A failed capture warns once and the batch trains
eagerly from then on. ``RGR_VERIFY_CUDA_GRAPHS=0`` turns graphs off (:func:`cuda_graphs_enabled`).
"""

from __future__ import annotations

import threading
import warnings
from typing import Callable

import torch
from ..basics.settings import CUDA_GRAPHS_ENV, env

__all__ = ["cuda_graphs_enabled", "ChunkGraphs", "graphed_step"]


def cuda_graphs_enabled() -> bool:
    """Whether the engine may capture CUDA graphs: ``$RGR_VERIFY_CUDA_GRAPHS`` "1" (default) or "0"."""
    value = env(CUDA_GRAPHS_ENV, "1").strip()
    if value not in ("0", "1"):
        raise ValueError(f"RGR_VERIFY_CUDA_GRAPHS must be '0' or '1', got {value!r}")
    return value == "1"


Steps = Callable[..., None]  # runs one chunk of steps on its input tensors
_CAPTURE_LOCK = threading.Lock()  # one capture at a time in this process (batches may train in several threads)


class ChunkGraphs:
    """Capture and replay of chunks of device-step training steps for one batch (``enabled``: capture at all).

    Graphs bake in the tensors they read (parameters, optimiser state, buffers), so :meth:`reset` must be called
    whenever the batch's rows change and :meth:`drop_graphs` whenever the optimiser replaces a tensor it reads.
    """

    def __init__(self, device: str | torch.device, *, enabled: bool, concurrent: bool = False):
        if not isinstance(enabled, bool):
            raise ValueError(f"enabled must be a bool, got {enabled!r}")
        if not isinstance(concurrent, bool):
            raise ValueError(f"concurrent must be a bool, got {concurrent!r}")
        self.device = torch.device(device)
        self.enabled = enabled
        # Other batches train in other threads meanwhile: their synchronising calls (metrics copied to the host)
        # must not invalidate this thread's capture, so captures use CUDA's "relaxed" capture mode.
        self.concurrent = concurrent
        self.failed = False  # a capture failed: eager from then on
        self.replays = 0  # chunks run by replaying a graph
        self._graphs: dict[int, tuple[Callable[[], None], tuple]] = {}  # chunk length -> (replay, static inputs)
        self._warm: set[int] = set()  # chunk lengths run eagerly since the last change of the batch's rows
        self._stream: torch.cuda.Stream | None = None  # the capture stream, created on first use (CUDA only)

    def reset(self) -> None:
        """Forget graphs and warm-ups (the batch's rows changed). New objects, not cleared in place."""
        self._graphs, self._warm = {}, set()

    def drop_graphs(self) -> None:
        """Forget the captured graphs (they read tensors that were replaced)."""
        self._graphs = {}

    def side_stream(self) -> torch.cuda.Stream:
        """The stream that warms up and captures graphs (CUDA only)."""
        if self._stream is None:
            self._stream = torch.cuda.Stream(device=self.device)
        return self._stream

    def record(self, steps: Steps, static: tuple, *, generators=()) -> Callable[[], None]:
        """Capture ``steps(*static)`` in a CUDA graph; returns its replay. One capture at a time per process.
        ``generators``: CUDA torch.Generators that ``steps`` draws from, registered with the graph so that each
        replay draws what the next eager call would (the capture itself consumes no offset)."""
        graph = torch.cuda.CUDAGraph()
        for g in generators:
            graph.register_generator_state(g)
        mode = "relaxed" if self.concurrent else "global"
        with _CAPTURE_LOCK, torch.cuda.graph(graph, stream=self.side_stream(), capture_error_mode=mode):
            steps(*static)
        return graph.replay

    def run(self, steps: Steps, inputs: tuple[torch.Tensor, ...], rearm: Callable[[], None]) -> None:
        """Run ``steps(*inputs)``, a chunk of K = ``inputs[0].shape[1]`` steps: eagerly the first time K is seen
        for the current rows (the warm-up), then by capturing it once in a CUDA graph (when ``enabled``) and
        replaying it with the inputs copied into its static inputs. Same kernels either way. ``rearm`` resets the
        device step counter (called after a failed capture, which runs nothing)."""
        K = inputs[0].shape[1]
        use_graphs = self.enabled and not self.failed
        entry = self._graphs.get(K) if use_graphs else None
        if entry is None and use_graphs and K in self._warm:
            static = tuple(x.clone() for x in inputs)  # the graph's inputs: copied into before each replay
            main = torch.cuda.current_stream(self.device) if self.device.type == "cuda" else None
            try:
                entry = self._graphs[K] = (self.record(steps, static), static)
            except Exception as exc:  # any capture failure: fall back to the eager path
                self.failed = True
                warnings.warn(f"CUDA graph capture failed ({type(exc).__name__}: {exc}); training eagerly",
                              RuntimeWarning, stacklevel=3)
                if main is not None:  # torch.cuda.graph may leave the capture stream current when capture_end fails
                    torch.cuda.set_stream(main)
                    torch.cuda.synchronize(self.device)
                rearm()  # a capture runs nothing; re-arm the counter all the same
        if entry is not None:
            replay, static = entry
            for dst, src in zip(static, inputs):
                dst.copy_(src)
            replay()
            self.replays += 1
        elif use_graphs and self.device.type == "cuda":  # warm-up on the capture stream, as torch recommends
            side, main = self.side_stream(), torch.cuda.current_stream(self.device)
            side.wait_stream(main)
            with torch.cuda.stream(side):
                steps(*inputs)
            main.wait_stream(side)
            self._warm.add(K)
        else:
            steps(*inputs)
            self._warm.add(K)


def graphed_step(eager: Callable[[], None], opt, generators, device, *, warmup: int = 3,
                 failure: Callable[[Exception], Exception]) -> Callable[[], None]:
    """``eager`` (one whole training step: sampler, forward, backward, optimiser) run ``warmup`` times on a side
    stream, then captured once as a CUDA graph with ``generators`` registered (each replay draws what the next eager
    call would) and replayed at every later call. ``opt``'s param groups are marked capturable (fused AdamW: the
    flag only lifts torch's capture check, the kernel is the same). A failed capture raises ``failure(exc)`` from
    the exception (never a silent switch to eager). Shared by the Sec. 7.3 trainers (today's block and v3)."""
    graphs = ChunkGraphs(device, enabled=True)
    state = {"calls": 0, "replay": None}

    def run():
        if state["replay"] is not None:
            state["replay"]()
            return
        side, main = graphs.side_stream(), torch.cuda.current_stream(device)
        if state["calls"] < warmup:
            side.wait_stream(main)
            with torch.cuda.stream(side):
                eager()
            main.wait_stream(side)
            state["calls"] += 1
            return
        for group in opt.param_groups:
            group["capturable"] = True
        try:
            state["replay"] = graphs.record(eager, (), generators=generators)
        except Exception as exc:
            torch.cuda.set_stream(main)  # torch.cuda.graph may leave the capture stream current when capture_end fails
            raise failure(exc) from exc
        state["replay"]()  # the capture ran nothing: this call's step

    return run
