"""How a Sec. 7.3 sweep's batches fill device calls: a plan printed before training (``rgr-verify sec73 --plan-only``).

A device call trains for a bounded time (:data:`CALL_SECONDS`: a 10-minute call less the install, the table check,
the gpu tests and the start-up). :func:`call_plan` lays the sweep's batches (the v3 engine's mixed batches,
:func:`rgr_verify.runs.sec73_sweep.mixed_batches`, or the v1 engine's batches of one h) into calls the way the sweep
trains them under ``--stop-after``: a batch starts only if the last finished batch's duration says it ends in time;
under v3 a batch whose step rate says it would end after the deadline is dropped at its second evaluation (the
rate is measured between the first and the second, after the compile) and its runs are retried in batches of half
the size (so a too-large batch costs its set-up, its compile and two evaluation intervals, then trains smaller);
under v1 such a batch is dropped at the deadline.

Step times. Measured (docs/engine.md, thirteenth session): today's graphed step of one cell, 7 runs at the full
shapes (m = 6144, l = 16, d_model = 384, B = 256, bf16 autocast), on an H200, 1.89-1.95 ms with evaluations
(:data:`TODAY_STEP_MS`). For other batch sizes and for the v3 block there is no measurement yet, only a
**prediction**: memory-bound scaling, i.e. a step takes as long as today's measured step times the ratio of the
bytes the two steps read and write. The bytes were counted on a CPU (every aten op's traffic, views excluded, bf16
autocast, full shapes; 2026-11-28, torch 2.13.0+cpu; ``docs/sec73_step_bytes.py``) at R = 1 and 2 runs:
:data:`V1_BYTES_MB` and :data:`V3_BYTES_MB` (intercept, per run). A kernel is counted with what it touches (a
gather reads the rows it writes, a random fill writes once, an in-place scatter writes its index's elements, fused
AdamW reads four tensors and writes three), with no cache reuse and no fusion. Today's block moves about 468 MB a
run-step (the step ran at 3.3 GB / 1.95 ms = 1.7 TB/s); the v3 block about 326 MB (-30 %): the first layer's keys
are a few percent of it, and the rest of the saving is LayerNorm-1 folded into the weights, so that the attention
reads the inputs normalised once, without a gradient (neither the LN-1 output ``[B, L, d_model]`` nor its
gradient, nor the gain's and bias' elementwise kernels over them). What remains is the sampler's ``[B, m]``
keys, the gathered inputs and their normalisation, and the ``[B, m + 1]`` logits and cross-entropy, eager
kernel by kernel. ``torch.compile`` of the loss (on CUDA by default,
:func:`rgr_verify.models.transformer_v3.compile_enabled`) fuses those: :data:`V3_COMPILED_BYTES_MB` is the same
step with the loss's eager ops replaced by the kernels Inductor makes of them, as it fuses them for Triton (its
Triton scheduling run on CPU tensors, with the pointwise lowering of the inputs' concatenation it chooses on a GPU;
each kernel charged what its nodes touch; 2026-11-29, ``docs/sec73_step_bytes.py --triton``: 133 MB a run-step,
41 % of the eager v3 step's; fused for the CPU's C++ backend instead, 152 MB). The kernels were scheduled, not
compiled or timed on a device: an estimate. An independent re-derivation with its own script gave the same numbers.
A plan of the compiled step (``compiled``, the default when the engine is v3 and compiling is on for CUDA) predicts
with those bytes and charges each batch size's first batch in a call :data:`COMPILE_SECONDS`.
:func:`floor_step_ms` is the same bytes at the H200's peak bandwidth (:data:`PEAK_TB_S`): no step moving them can
be faster. ``step_ms`` replaces the model by a given step time, or by
times measured on the device (:func:`measure_step_ms`). Memory is no constraint: :data:`V3_MEMORY_MB` (measured
by :func:`rgr_verify.models.transformer_v3.memory_per_run_v3`) puts a batch of 56 runs near 3 GB.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable, Mapping

from ..basics.checks import check_int, check_real
from .sec73_presets import Sec73Preset
from .sec73_sweep import mixed_batches, mixed_layout, training_groups

__all__ = [
    "TODAY_STEP_MS",
    "TODAY_RUNS",
    "V1_BYTES_MB",
    "V3_BYTES_MB",
    "V3_COMPILED_BYTES_MB",
    "COMPILE_SECONDS",
    "V3_MEMORY_MB",
    "PEAK_TB_S",
    "CALL_SECONDS",
    "SETUP_SECONDS",
    "EVAL_MARGIN",
    "model_step_ms",
    "floor_step_ms",
    "PlannedBatch",
    "CallPlan",
    "call_plan",
    "format_call_plan",
    "measure_step_ms",
]

TODAY_STEP_MS = 1.95  # today's graphed step, 7 runs of one cell, full shapes, H200, evaluations included (measured)
TODAY_RUNS = 7
V1_BYTES_MB = (22.5, 467.7)  # MB a step reads and writes: intercept, per run (today's block, D_K = 512, h = 1)
V3_BYTES_MB = (22.8, 325.5)  # the v3 block, Dmax = 512, Hmax = 8 (every full-tier mixed batch of 8 cells)
V3_COMPILED_BYTES_MB = (33.0, 133.4)  # the same with the loss compiled (its kernels as Inductor fuses them for Triton)
# A compiled batch size's first step in a call (Dynamo, AOT autograd, Inductor): a guess. On this project's 2-core
# CPU at the full shapes, tracing took 1.4 s and Inductor's C++ forward and backward 14 s (2026-11-29); Triton's
# kernels on the device are unmeasured.
COMPILE_SECONDS = 20.0
V3_MEMORY_MB = (4.7, 53.5)  # MB a v3 step holds: a batch's own, per run (memory_per_run_v3 at the full shapes)
PEAK_TB_S = 4.8  # the H200's HBM bandwidth
# Training seconds of a 10-minute device call that runs no gpu tests (EXPECT set): END = 590 less about 70 s, the
# install, the table check and the sweep's start (40 s outside training and tests in the thirteenth session's first
# call) and the 20 s its deadline keeps clear. A call that runs the tests first has less: --first-call-seconds.
CALL_SECONDS = 520.0
SETUP_SECONDS = (3.0, 0.25)  # a batch's set-up (init, validation/test draws, capture): s + s a run (a guess)
EVAL_MARGIN = 1.03  # a measured step (no evaluations) times this: evaluations and margin


def _counted_shapes(preset: Sec73Preset) -> bool:
    """Whether ``preset`` has the shapes the bytes were counted at (the full tier on MiniLM, d_model 384)."""
    return (preset.source == "minilm" and (preset.task.m, preset.task.ell, preset.task.d_ff) == (6144, 16, 16)
            and preset.train.batch_size == 256)


def _bytes_mb(R: int, engine: str, compiled: bool = False) -> float:
    if compiled and engine != "v3":
        raise ValueError(f"only the v3 engine's loss is compiled, got engine {engine!r} with compiled=True")
    a, b = (V3_COMPILED_BYTES_MB if compiled else V3_BYTES_MB) if engine == "v3" else V1_BYTES_MB
    return a + b * R


def model_step_ms(R: int, engine: str = "v3", compiled: bool = False) -> float:
    """The predicted step time (ms, evaluations included) of a batch of R runs: today's measured step times the
    ratio of the bytes the two steps move (memory-bound scaling; a prediction, see the module docstring).
    ``compiled``: the v3 step with its loss compiled."""
    R = check_int("R", R, min_value=1)
    return TODAY_STEP_MS * _bytes_mb(R, engine, compiled) / _bytes_mb(TODAY_RUNS, "v1")


def floor_step_ms(R: int, engine: str = "v3", compiled: bool = False) -> float:
    """The step time (ms) of a batch of R runs if its bytes moved at the H200's peak bandwidth: a lower bound."""
    R = check_int("R", R, min_value=1)
    return _bytes_mb(R, engine, compiled) * 1e6 / (PEAK_TB_S * 1e12) * 1e3


@dataclass(frozen=True)
class PlannedBatch:
    """One batch of a plan: its runs (D_K, h, seed index), the call it trains in (1-based), its predicted duration,
    and the larger batches tried before it in that call and dropped at their second evaluation ((runs, seconds))."""

    runs: tuple
    call: int
    seconds: float
    dropped: tuple = ()

    @property
    def cells(self) -> list:
        """Its (D_K, h) cells, in the order of its runs."""
        return list(dict.fromkeys((D, h) for D, h, _ in self.runs))

    @property
    def shape(self) -> tuple[int, int, int]:
        """(R, Dmax, Hmax)."""
        return len(self.runs), max(D for D, _, _ in self.runs), max(h for _, h, _ in self.runs)


@dataclass(frozen=True)
class CallPlan:
    """A sweep's batches laid into device calls (:func:`call_plan`)."""

    preset: Sec73Preset
    step_ms: Callable[[int], float]  # batch size -> step time (ms)
    step_source: str  # where the step times come from, in words
    call_seconds: float
    runs: int  # runs to train (the sweep's less those stored)
    batches: tuple  # PlannedBatch, in training order
    unplaced: int  # runs no call can train (a batch of one run longer than a call; v1: a batch longer than a call)
    compiled: bool = False  # the v3 step with its loss compiled: its bytes, and COMPILE_SECONDS a batch size a call
    first_call_seconds: float | None = None  # the training time of the first call, if not call_seconds

    @property
    def calls(self) -> int:
        """Calls the plan needs (0 when nothing is to train)."""
        return max((b.call for b in self.batches), default=0)


def _v1_groups(preset: Sec73Preset) -> list[list]:
    """The v1 engine's training groups as runs, each in the order train_block_runs batches them (by h, then D_K)."""
    out = []
    for _, cells in training_groups(preset, "cuda"):
        runs = [(D, h, i) for D, h in preset.cells() if (D, h) in cells for i in range(preset.seeds)]
        out.append(sorted(runs, key=lambda r: (r[1], r[0])))
    return out


def _step_function(preset: Sec73Preset, step_ms, compiled: bool) -> tuple[Callable[[int], float], str]:
    engine, full = preset.engine, preset.max_batch_runs

    def model(R):
        return model_step_ms(R, engine, compiled)

    if step_ms is None:
        what = ("the bytes of the step with its loss compiled (its kernels as Inductor fuses them for Triton)"
                if compiled else "the bytes of the eager step")
        return model, (f"PREDICTED by memory-bound scaling of today's measured {TODAY_STEP_MS} ms at R = {TODAY_RUNS} "
                       f"(H200) to {what}; not measured")
    if isinstance(step_ms, Mapping):
        measured = {check_int("measured batch size", R, min_value=1): check_real("measured step_ms", v, low=0.0,
                                                                                  low_open=True)
                    for R, v in step_ms.items()}
        if not measured:
            raise ValueError("step_ms must hold at least one measured batch size")

        def step(R):
            if R in measured:
                return measured[R] * EVAL_MARGIN
            near = min(measured, key=lambda m: (abs(m - R), -m))  # the nearest measured size scales by the model
            return measured[near] * EVAL_MARGIN * model(R) / model(near)

        sizes = ", ".join(f"{measured[R]:.2f} ms at R = {R}" for R in sorted(measured, reverse=True))
        return step, f"MEASURED on the device ({sizes}; times {EVAL_MARGIN} for evaluations)"
    x = check_real("step_ms", step_ms, low=0.0, low_open=True)
    return (lambda R: x * model(R) / model(full)), (
        f"GIVEN: {x} ms at R = {full} (other sizes scaled by the memory-bound model)")


def _setup_seconds(R: int) -> float:
    return SETUP_SECONDS[0] + SETUP_SECONDS[1] * R


def _simulate(preset, groups, step, T, max_calls, compiled=False, first=None):
    """Lay the groups' runs into calls as run_sec73 trains them under --stop-after T (the first call: ``first``,
    if given; see the module docstring); ``compiled``: a batch size's first batch in a call compiles
    (COMPILE_SECONDS more)."""
    steps, every, full = preset.train.steps, preset.train.eval_every, preset.max_batch_runs
    v3 = preset.engine != "v1"
    out, unplaced = [], 0
    pending = [list(g) for g in groups if g]
    call, t, last, dropped, shapes = 1, 0.0, None, [], set()
    while pending and call <= max_calls:
        g = pending[0]
        size = full if v3 else preset.max_batch_runs
        next_call = False
        limit = first if call == 1 and first is not None else T
        while g:
            n = min(size, len(g))
            compile_s = COMPILE_SECONDS if compiled and n not in shapes else 0.0
            seconds = _setup_seconds(n) + compile_s + steps * step(n) / 1000.0
            if t > limit or (last is not None and t + last > limit):  # the batch does not start: the call is over
                next_call = True
                break
            if t + seconds > limit:
                if v3 and n > 1:  # dropped at its second evaluation, its runs retried in halves
                    cost = _setup_seconds(n) + compile_s + 2 * every * step(n) / 1000.0
                    shapes.add(n)
                    dropped.append((n, cost))
                    t += cost
                    size = max(1, n // 2)
                    continue
                if t == 0.0 and seconds > T:  # no call can train it
                    unplaced += len(g)
                    g.clear()
                    break
                next_call = True  # v1: dropped at the deadline; v3 (one run): dropped early; the call is over
                break
            out.append(PlannedBatch(tuple(g[:n]), call, seconds, tuple(dropped)))
            shapes.add(n)
            dropped = []
            t += seconds
            last = seconds
            del g[:n]
        if next_call:  # a call is a new process: its batch sizes compile again
            call, t, last, dropped, shapes = call + 1, 0.0, None, [], set()
        if not g:
            pending.pop(0)
    unplaced += sum(len(g) for g in pending)
    return out, unplaced


def call_plan(preset: Sec73Preset, *, step_ms=None, call_seconds: float = CALL_SECONDS, done=(),
              max_calls: int = 99, compiled: bool | None = None,
              first_call_seconds: float | None = None) -> CallPlan:
    """The batches of ``preset``'s sweep and the device calls they train in.

    ``step_ms``: None (the memory-bound model's prediction, :func:`model_step_ms`), a number (the step time of a
    batch of ``preset.max_batch_runs`` runs; other sizes scaled by the model), or {batch size: ms} measured on the
    device (:func:`measure_step_ms`). ``call_seconds``: the training time of one call; ``first_call_seconds``: of
    the first, if it differs (the call the plan is printed in, after its tests: the time it has left). ``done``: runs
    (D_K, h, seed index) already stored, left out. A call's batches start as the sweep starts them (module
    docstring); ``max_calls`` bounds the plan. ``compiled``: the v3 step with its loss compiled (None: when the
    engine is v3 and compiling is on for CUDA, :func:`rgr_verify.models.transformer_v3.compile_enabled`)."""
    if not isinstance(preset, Sec73Preset):
        raise ValueError(f"preset must be a Sec73Preset, got {type(preset).__name__}")
    call_seconds = check_real("call_seconds", call_seconds, low=0.0, low_open=True)
    if first_call_seconds is not None:
        first_call_seconds = check_real("first_call_seconds", first_call_seconds, low=0.0, low_open=True)
    max_calls = check_int("max_calls", max_calls, min_value=1)
    if compiled is None:
        from ..models.transformer_v3 import compile_enabled

        compiled = preset.engine == "v3" and compile_enabled("cuda")
    if not isinstance(compiled, bool) or (compiled and preset.engine != "v3"):
        raise ValueError(f"compiled must be a bool, and True only for the v3 engine, got {compiled!r} "
                         f"(engine {preset.engine})")
    step, source = _step_function(preset, step_ms, compiled)
    done = set(done)
    groups = mixed_batches(preset) if preset.engine != "v1" else _v1_groups(preset)
    groups = [[r for r in g if r not in done] for g in groups]
    batches, unplaced = _simulate(preset, groups, step, call_seconds, max_calls, compiled, first_call_seconds)
    return CallPlan(preset, step, source, call_seconds, sum(len(g) for g in groups), tuple(batches), unplaced,
                    compiled, first_call_seconds)


def _scale_to_fit(plan: CallPlan, calls: int) -> float | None:
    """The largest factor on the plan's step times under which its runs fit ``calls`` calls (None: none does; at
    most 10)."""
    groups = (mixed_batches(plan.preset) if plan.preset.engine != "v1" else _v1_groups(plan.preset))
    todo = {r for b in plan.batches for r in b.runs}
    groups = [[r for r in g if r in todo] for g in groups]

    def fits(scale):
        out, unplaced = _simulate(plan.preset, groups, lambda R: scale * plan.step_ms(R), plan.call_seconds, calls,
                                  plan.compiled, plan.first_call_seconds)
        return unplaced == 0 and sum(len(b.runs) for b in out) == len(todo)

    if not todo:
        return 1.0
    if fits(1.0):  # how much slower the steps may be: the plan's margin
        if fits(10.0):
            return 10.0
        lo, hi = 1.0, 10.0
    elif not fits(1e-6):
        return None
    else:
        lo, hi = 0.0, 1.0
    for _ in range(40):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if fits(mid) else (lo, mid)
    return lo


def format_call_plan(plan: CallPlan, *, calls: int = 2) -> str:
    """The plan in words: the step times, each batch (its call, runs, cells, shape, predicted seconds, the larger
    batches dropped before it), the calls needed, and the step time ``calls`` calls would need."""
    p = plan.preset
    full = p.max_batch_runs
    sizes = sorted({full, *(len(b.runs) for b in plan.batches)}, reverse=True)
    lines = [f"sec73 plan, engine {p.engine}: {p.name} tier on {p.source}; {plan.runs} runs to train, batches of up to "
             f"{full} runs, up to {p.train.steps} steps a run, {plan.call_seconds:.0f} s of training a call"
             + (f" (the first: {plan.first_call_seconds:.0f} s)" if plan.first_call_seconds is not None else ""),
             f"step time: {plan.step_source}",
             *([] if _counted_shapes(p) else ["  (the bytes were counted at the full tier's shapes on MiniLM, "
                                              "d_model 384: for this preset the model and the floor are rougher)"]),
             "  " + "; ".join(f"R = {R}: {plan.step_ms(R):.2f} ms (floor at {PEAK_TB_S} TB/s "
                              f"{floor_step_ms(R, p.engine, plan.compiled):.2f})" for R in sizes),
             *([f"memory: about {V3_MEMORY_MB[1]:.0f} MB a run, {(V3_MEMORY_MB[0] + V3_MEMORY_MB[1] * full) / 1e3:.1f} "
                f"GB at R = {full} (estimate at the full shapes)"] if p.engine == "v3" and _counted_shapes(p) else [])]
    for k, b in enumerate(plan.batches, 1):
        R, Dmax, Hmax = (b.shape[0], *mixed_layout(p)) if p.engine == "v3" else b.shape  # the sweep's layout
        cells = " ".join(f"({D},{h})x{sum(1 for r in b.runs if r[:2] == (D, h))}" for D, h in b.cells)
        drop = "".join(f"; first tried {n} runs, dropped at the second evaluation ({s:.0f} s)" for n, s in b.dropped)
        lines.append(f"batch {k} (call {b.call}): {R} runs, Dmax {Dmax}, Hmax {Hmax}, {b.seconds:.0f} s: {cells}{drop}")
    placed = sum(len(b.runs) for b in plan.batches)
    verdict = f"{placed} runs in {plan.calls} calls"
    if plan.unplaced:
        verdict += f"; {plan.unplaced} runs fit no call"
    lines.append(f"total: {verdict} ({'fits' if plan.calls <= calls and not plan.unplaced else 'does NOT fit'} "
                 f"in {calls} calls)")
    scale = _scale_to_fit(plan, calls)
    if plan.compiled:
        lines.append(f"compiling: {COMPILE_SECONDS:.0f} s for each batch size's first batch in a call (a guess)")
    if scale is not None and scale < 1.0:
        lines.append(f"{calls} calls need a step of at most {scale * plan.step_ms(full):.2f} ms at R = {full} "
                     f"({scale:.2f} x these step times; the floor at {PEAK_TB_S} TB/s is "
                     f"{floor_step_ms(full, p.engine, plan.compiled):.2f} ms)")
    elif scale is not None and plan.runs and plan.calls <= calls and not plan.unplaced:
        lines.append(f"margin: {calls} calls hold for steps up to {scale * plan.step_ms(full):.2f} ms at R = {full} "
                     f"({scale:.2f} x these step times{'; or more' if scale >= 10.0 else ''})")
    elif scale is None:
        lines.append(f"no step time makes it fit {calls} calls (the set-up alone is too long)")
    return "\n".join(lines)


def measure_step_ms(preset: Sec73Preset, E, *, device: str, sizes, steps: int = 100,
                    progress: Callable[[int, float], None] | None = None) -> dict[int, float]:
    """Step times (ms, no evaluations) of ``preset``'s v3 step at each batch size in ``sizes``, measured with
    :func:`rgr_verify.models.transformer_v3.time_steps_v3` on ``device`` with the table ``E``. A probe batch of R runs
    takes the sweep's cells in the order of its batches, one run a cell, cycling: from 8 runs on the full tier's
    probes have Dmax = 512 and Hmax = 8, as every full mixed batch. ``progress(R, ms)`` after each size."""
    from ..models.transformer import RunSpec
    from .sec73_sweep import mixed_batches as batches_of

    if preset.engine == "v1":
        raise ValueError("measure_step_ms times the v3 step: the preset's engine must be v3")
    sizes = sorted({check_int("size", R, min_value=1) for R in sizes}, reverse=True)
    if not sizes:
        raise ValueError("sizes must name at least one batch size")
    from ..models.transformer_v3 import time_steps_v3

    cells = list(dict.fromkeys((D, h) for b in batches_of(preset) for D, h, _ in b))
    out = {}
    for R in sizes:
        specs = [RunSpec(D, h, 1 + k) for k, (D, h) in enumerate((cells * math.ceil(R / len(cells)))[:R])]
        out[R] = 1000.0 * time_steps_v3(E, specs, preset.task, preset.train, device=device, steps=steps)
        if progress is not None:
            progress(R, out[R])
    return out
