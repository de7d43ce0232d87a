# Sec. 7.3, issue 38: the v3 trainer (rgr_verify.models.transformer_v3.train_block_runs_v3) trains runs of any (D_K, h)
# in one mixed batch with today's contract (rgr_verify.models.transformer.train_block_runs): a run's numbers do not depend
# on the runs it shares a batch with, they follow today's trainer, deadlines and on_batch behave as today's, bad
# inputs are refused. The gpu tests (run first in a device call, about 30 s) check the graphed step against the
# eager loop bit for bit, that a call repeats, that CUDA float32 follows the CPU, and the eager fallback.
import dataclasses
import math
import re
import time
import warnings

import numpy as np
import pytest
import torch

import rgr_verify.models.transformer_v3 as V3
from rgr_verify.models.embedding_sources import GaussianSource
from rgr_verify.models.transformer import (BatchDeadline, DeadlineReached, RunSpec, TaskConfig, TrainConfig,
                                    train_block_runs)
from rgr_verify.models.transformer_v3 import train_block_runs_v3

from ._fixtures import V3_GPU_CFG, V3_GPU_SPECS, V3_GPU_TASK, v3_gpu_table

# torch.compile warns about torch's own deprecated internals, which this project's warnings-as-errors would turn
# into a failed compile (and the fallback's warning into a failed test): Dynamo, tracing the loss's autograd
# Function, instantiates torch.autograd.Function; Inductor touches torch.jit.script_method. Inductor also warns on
# CUDA that TF32 is available but off, for float32 graphs.
pytestmark = [pytest.mark.filterwarnings("ignore:.*should not be instantiated:DeprecationWarning"),
              pytest.mark.filterwarnings("ignore:.*torch.jit.script_method.* is deprecated:DeprecationWarning"),
              pytest.mark.filterwarnings("ignore:TensorFloat32 tensor cores:UserWarning")]

# Mixed cells: every h of the full grid, key widths 4-32, padded key columns and unused head slots in one batch.
# d_model = d_ff = 16: each run's block of every parameter holds a multiple of 16 floats (the fused CPU AdamW
# kernel rounds the tail of a tensor differently, rgr_verify.models.transformer's docstring).
MIXED = [RunSpec(8, 1, 1), RunSpec(16, 8, 2), RunSpec(8, 2, 3), RunSpec(32, 4, 4), RunSpec(16, 2, 5),
         RunSpec(4, 4, 6), RunSpec(32, 1, 7)]
TASK = TaskConfig(12, 2, d_ff=16)
CFG = TrainConfig(steps=20, batch_size=32, lr=3e-2, eval_every=5, n_val=256, n_test=256, mixed_precision=False)


def _table(m=12, d=16, seed=5):
    return GaussianSource(d).table(m, rng=np.random.default_rng(seed)).E


def _strip(results):
    return [dataclasses.replace(r, seconds=0.0) for r in results]


def _recorded(monkeypatch, specs, task=TASK, cfg=CFG, E=None, **kwargs):
    """train_block_runs_v3, also returning each batch's per-run losses ``[steps, R]`` (by a spy on the step) and
    the parameters at every evaluation (by a spy on the evaluation, which a replayed graph does not bypass)."""
    losses, evals = [], []
    step, evaluate = V3.train_step_v3, V3.evaluate_v3

    def step_spy(*args, **kw):
        loss = step(*args, **kw)
        losses.append(loss.detach().cpu().clone())
        return loss

    def eval_spy(params, *args, **kw):
        evals.append({k: v.detach().cpu().clone() for k, v in params.items()})
        return evaluate(params, *args, **kw)

    with monkeypatch.context() as mp:
        mp.setattr(V3, "evaluate_v3", eval_spy)
        if not kwargs.get("cuda_graph"):  # a replayed graph never calls the step, and float() cannot be captured
            mp.setattr(V3, "train_step_v3", step_spy)
        res = train_block_runs_v3(_table() if E is None else E, specs, task, cfg, **kwargs)
    return res, (torch.stack(losses) if losses else None), evals


def test_sec73_mixed_batch_run_equals_the_run_alone(monkeypatch):
    # Each run alone (its own narrow layout) against the same run in the 7-run mixed batch: per-step losses within
    # 5e-6 relative (a few dozen float32 roundings of 1.2e-7: the padded sums run in another order, and LN-1's
    # gain is folded into W_K and W_V before they meet the padding; 1.4e-6 measured), every result field equal
    # (accuracies, best step, steps).
    mixed, loss_mixed, _ = _recorded(monkeypatch, MIXED)
    assert loss_mixed.shape == (CFG.steps, len(MIXED))
    worst = 0.0
    for r, spec in enumerate(MIXED):
        alone, loss_alone, _ = _recorded(monkeypatch, [spec])
        worst = max(worst, ((loss_alone[:, 0] - loss_mixed[:, r]).abs() / loss_mixed[:, r].abs()).max().item())
        assert _strip(alone) == [_strip(mixed)[r]], spec
    assert worst <= 5e-6, worst
    assert (loss_mixed[-1] < loss_mixed[0]).all()  # every run trains
    assert max(r.test_acc for r in mixed) > 2 / (TASK.m + 1)  # above chance: the comparison is not of zeros


def test_sec73_mixed_batch_composition_and_order_change_no_run(monkeypatch):
    # The same runs in other batches (other partners, other order, other Dmax and Hmax): the same results.
    ref = {r.spec: r for r in _strip(train_block_runs_v3(_table(), MIXED, TASK, CFG))}
    shuffled = [MIXED[i] for i in (6, 2, 0, 5, 3, 1, 4)]
    for max_batch_runs in (2, 3):
        got = _strip(train_block_runs_v3(_table(), shuffled, TASK, CFG, max_batch_runs=max_batch_runs))
        assert [r.spec for r in got] == shuffled  # results come back in the order of specs
        assert all(r == ref[r.spec] for r in got), max_batch_runs


def test_sec73_mixed_v3_trainer_follows_todays_trainer():
    # Today's trainer (runs batched by h, keys formed) against the v3 trainer (one mixed batch, no keys) on the
    # same specs, float32 on the CPU: test accuracies within 2 examples of n_test; the best step equal, or the two
    # best validation accuracies within 2 examples of n_val (a near tie may pick another evaluation).
    cfg = dataclasses.replace(CFG, steps=20)
    today = train_block_runs(_table(), MIXED, TASK, cfg)
    v3 = train_block_runs_v3(_table(), MIXED, TASK, cfg)
    for a, b in zip(today, v3):
        assert a.spec == b.spec and a.steps == b.steps == cfg.steps
        assert abs(a.test_acc - b.test_acc) <= 2 / cfg.n_test, (a, b)
        assert abs(a.final_test_acc - b.final_test_acc) <= 2 / cfg.n_test, (a, b)
        assert a.best_step == b.best_step or abs(a.best_val_acc - b.best_val_acc) <= 2 / cfg.n_val, (a, b)
    assert sum(a.best_step == b.best_step for a, b in zip(today, v3)) >= len(MIXED) - 1


def test_sec73_mixed_patience_is_per_run(monkeypatch):
    # With patience, a run's record ends where it would end alone, whichever runs share its batch; the batch
    # stops when every run has stopped. Not vacuous: some runs stop early, at different steps.
    cfg = dataclasses.replace(CFG, steps=60, eval_every=2, patience=3)
    mixed = _strip(train_block_runs_v3(_table(), MIXED, TASK, cfg))
    alone = [_strip(train_block_runs_v3(_table(), [s], TASK, cfg))[0] for s in MIXED]
    assert mixed == alone
    steps = [r.steps for r in mixed]
    assert min(steps) < cfg.steps and len(set(steps)) > 1, steps
    for r in mixed:  # a stopped run's last evaluation is `patience` evaluations after its best
        assert r.steps - r.best_step <= cfg.patience * cfg.eval_every
        assert r.steps == cfg.steps or r.steps - r.best_step == cfg.patience * cfg.eval_every
    # the same rule as today's trainer for a batch of one run
    for s in MIXED[:3]:
        assert _strip(train_block_runs(_table(), [s], TASK, cfg))[0].steps == alone[MIXED.index(s)].steps


def _fake_clock(monkeypatch, jumps=(), first=0.0):
    """time.monotonic replaced by a clock that advances 0.5 s at each training step (``first`` s more at the
    first, as a compile would) and by ``jumps[k]`` s at the k-th evaluation of the call (progress callback)."""
    now, k, steps, step = [0.0], [0], [0], V3.train_step_v3
    monkeypatch.setattr(time, "monotonic", lambda: now[0])

    def timed_step(*args, **kwargs):
        now[0] += 0.5 + (first if steps[0] == 0 else 0.0)
        steps[0] += 1
        return step(*args, **kwargs)

    monkeypatch.setattr(V3, "train_step_v3", timed_step)

    def progress(at, specs, val, test):
        now[0] += jumps[k[0]] if k[0] < len(jumps) else 0.0
        k[0] += 1
    progress.now = now
    return progress


def test_sec73_mixed_deadline_and_on_batch(monkeypatch):
    cfg = dataclasses.replace(CFG, steps=6, eval_every=2)
    specs = MIXED[:4]
    seen = []
    res = train_block_runs_v3(_table(), specs, TASK, cfg, max_batch_runs=3,
                              on_batch=lambda idx, out: seen.append((idx, [r.spec for r in out])))
    assert seen == [([0, 1, 2], specs[:3]), ([3], specs[3:])]  # consecutive chunks in the order of specs
    assert [r.spec for r in res] == specs
    # the deadline passes in a batch's middle (a slow evaluation): the batch is dropped at that evaluation, no
    # on_batch; DeadlineReached says so
    with monkeypatch.context() as mp:
        progress, seen = _fake_clock(mp, jumps=(0.0, 9.0)), []
        with pytest.raises(DeadlineReached, match="deadline reached at step 4 .* batch dropped") as info:
            train_block_runs_v3(_table(), specs, TASK, cfg, max_batch_runs=3, progress=progress, deadline=10.0,
                                on_batch=lambda idx, out: seen.append(idx))
        assert seen == [] and not isinstance(info.value, V3.BatchOverrun)
    # the step rate says the batch would end after the deadline (1 s per 2 steps, 6 steps: 3 s > 2.5 s): dropped
    # at its second evaluation (its first projection), before the deadline (BatchOverrun, a DeadlineReached, with
    # the projected duration)
    with monkeypatch.context() as mp:
        progress, seen = _fake_clock(mp), []
        with pytest.raises(V3.BatchOverrun, match="would take about .* batch dropped") as info:
            train_block_runs_v3(_table(), specs, TASK, cfg, max_batch_runs=3, progress=progress, deadline=2.5,
                                on_batch=lambda idx, out: seen.append(idx))
        assert seen == [] and isinstance(info.value, DeadlineReached) and info.value.projected_s > 0
    # the first batch finishes (3 s, ending at 3.0 <= 3.5); the second is not started, since the first's duration
    # says it would end after the deadline; the finished batch was handed to on_batch
    with monkeypatch.context() as mp:
        progress, seen = _fake_clock(mp), []
        with pytest.raises(DeadlineReached, match="would end after the deadline"):
            train_block_runs_v3(_table(), specs, TASK, cfg, max_batch_runs=3, progress=progress,
                                deadline=BatchDeadline(3.5), on_batch=lambda idx, out: seen.append(idx))
        assert seen == [[0, 1, 2]]
    # a deadline already past: nothing starts
    with monkeypatch.context() as mp:
        _fake_clock(mp)
        with pytest.raises(DeadlineReached, match="before a batch started"):
            train_block_runs_v3(_table(), specs, TASK, cfg, deadline=-1.0)
    # a deadline far ahead changes nothing
    far = train_block_runs_v3(_table(), specs, TASK, cfg, max_batch_runs=3, deadline=time.monotonic() + 1e6)
    assert _strip(far) == _strip(res)


def test_sec73_mixed_first_step_compile_is_not_a_slow_step(monkeypatch):
    # The first step of a batch carries one-time costs (torch.compile of the loss, tens of seconds on a device; the
    # graph's capture): the rate that may drop a batch is measured from the end of the first evaluation after it,
    # and first projected at the second. Here the first step takes 50 s more than the others (0.5 s each): 6 steps
    # end at 53 s, inside a deadline at 54 s, so the batch trains. Planted alternative: the rate measured from the
    # loop's start (51 s over 2 steps at the first evaluation) projects about 153 s and drops the batch.
    cfg = dataclasses.replace(CFG, steps=6, eval_every=2)
    specs = MIXED[:3]
    plain = train_block_runs_v3(_table(), specs, TASK, cfg)
    with monkeypatch.context() as mp:
        progress = _fake_clock(mp, first=50.0)
        out = train_block_runs_v3(_table(), specs, TASK, cfg, progress=progress, deadline=54.0)
        assert progress.now[0] == 53.0 and _strip(out) == _strip(plain)
    # a batch whose steady rate does overrun (deadline 52.5 s; it would end at 53 s) is still dropped, at its
    # second evaluation, projected from the steady rate (0.5 s a step), not from the compile
    with monkeypatch.context() as mp:
        progress = _fake_clock(mp, first=50.0)
        with pytest.raises(V3.BatchOverrun, match=r"\(500\.00 ms a step at step 4\)") as info:
            train_block_runs_v3(_table(), specs, TASK, cfg, progress=progress, deadline=52.5)
        assert info.value.projected_s < 60


def test_sec73_mixed_kept_batch_is_not_dropped_for_seconds_late(monkeypatch):
    # A batch kept by its first projection (at its second evaluation) is dropped later only if it would end more
    # than LATE_GRACE_S after the deadline: 0.5 s a step, 8 steps, an evaluation every 2, deadline 4.0 s (the first
    # projection, at step 4: ends at 4.0, kept); then an evaluation takes 2 s, so at step 6 the clock reads 5.0 s,
    # past the deadline, and the mean rate since the first evaluation (1 s a step) puts the end at 7.0 s, inside
    # the grace: it finishes (at 6.0 s). Planted alternative: no grace, and the batch is dropped at step 6 after 5 s
    # of its 6. An evaluation of 5 s instead (ends at 11.5 s, past the grace) drops it there.
    assert V3.LATE_GRACE_S == 5.0
    cfg = dataclasses.replace(CFG, steps=8, eval_every=2)
    specs = MIXED[:3]
    with monkeypatch.context() as mp:
        progress = _fake_clock(mp, jumps=(0.0, 0.0, 2.0))
        out = train_block_runs_v3(_table(), specs, TASK, cfg, progress=progress, deadline=4.0)
        assert progress.now[0] == 6.0 and all(r.steps == cfg.steps for r in out)
    with monkeypatch.context() as mp:
        progress = _fake_clock(mp, jumps=(0.0, 0.0, 5.0))
        with pytest.raises(DeadlineReached, match="deadline reached at step 6"):
            train_block_runs_v3(_table(), specs, TASK, cfg, progress=progress, deadline=4.0)


def test_sec73_mixed_brief_pause_does_not_drop_a_kept_batch(monkeypatch):
    # Only the first projection (at the second evaluation) can drop a batch that has time left: a 1 s pause at
    # the third evaluation of a batch of 20 steps (0.5 s each, deadline 10 s, kept at step 4) does not drop it; it
    # ends at 11 s, inside the grace. Planted alternative: a projection at every evaluation from the last
    # interval's rate (1 s a step at step 6) would put the end at 18 s and drop it with 14 of its 20 steps to go,
    # and even the mean rate since the first evaluation (0.75 s a step) would put it at 14.5 s, past the deadline.
    cfg = dataclasses.replace(CFG, steps=20, eval_every=2)
    with monkeypatch.context() as mp:
        progress = _fake_clock(mp, jumps=(0.0, 0.0, 1.0))
        out = train_block_runs_v3(_table(), MIXED[:3], TASK, cfg, progress=progress, deadline=10.0)
        assert progress.now[0] == 11.0 and all(r.steps == cfg.steps for r in out)


def test_sec73_mixed_batches_laid_out_at_one_shape(monkeypatch):
    # shape=(Dmax, Hmax) lays out every batch at that width and number of head slots (one compiled graph a batch
    # size on the device) instead of each batch's own largest; the padding is zeros, so losses agree within float
    # rounding and results within an example. A shape narrower than a run's D_K or h is refused. Not vacuous: the
    # two batches' own layouts differ ((16, 8) and (32, 4)).
    cfg = dataclasses.replace(CFG, steps=10, eval_every=5)
    seen, layout = [], V3.layout_v3

    def spy(specs, Dmax, Hmax, d_model, device="cpu"):
        seen.append((len(specs), Dmax, Hmax))
        return layout(specs, Dmax, Hmax, d_model, device)

    monkeypatch.setattr(V3, "layout_v3", spy)
    own, own_loss, _ = _recorded(monkeypatch, MIXED[:6], cfg=cfg, max_batch_runs=3)
    assert seen == [(3, 16, 8), (3, 32, 4)]
    seen.clear()
    wide, wide_loss, _ = _recorded(monkeypatch, MIXED[:6], cfg=cfg, max_batch_runs=3, shape=(48, 8))
    assert seen == [(3, 48, 8), (3, 48, 8)]
    np.testing.assert_allclose(wide_loss.numpy(), own_loss.numpy(), rtol=1e-5)
    for a, b in zip(wide, own):
        assert a.spec == b.spec and abs(a.final_test_acc - b.final_test_acc) <= 1 / cfg.n_test
    for shape in ((16, 8), (32, 4), (32,), "wide"):
        with pytest.raises(ValueError, match="shape"):
            train_block_runs_v3(_table(), MIXED, TASK, cfg, shape=shape)


def test_sec73_mixed_trainer_rejects_bad_input(monkeypatch):
    E = _table()
    cases = [
        (dict(specs=[]), "specs"),
        (dict(specs=[(8, 1, 1)]), "RunSpec"),
        (dict(task="t"), "TaskConfig"),
        (dict(cfg=None), "TrainConfig"),
        (dict(device="tpu"), "device"),
        (dict(max_batch_runs=0), "max_batch_runs"),
        (dict(E=E[:-1]), "E must have shape"),
        (dict(E=np.full_like(E, np.nan)), "finite"),
        (dict(specs=[RunSpec(8, 1, 1), RunSpec(6, 3, 2)]), "divide d_model"),
        (dict(cuda_graph="yes"), "cuda_graph"),
        (dict(cuda_graph=1), "cuda_graph"),
        (dict(deadline="soon"), "deadline"),
        (dict(deadline=float("nan")), "deadline"),
        (dict(progress=3), "progress"),
        (dict(on_batch="x"), "on_batch"),
    ]
    if not torch.cuda.is_available():
        cases.append((dict(device="cuda"), "CUDA is not available"))
    for change, match in cases:
        kw = dict(E=E, specs=MIXED[:2], task=TASK, cfg=CFG)
        kw.update(change)
        args = [kw.pop(k) for k in ("E", "specs", "task", "cfg")]
        with pytest.raises(ValueError, match=match):
            train_block_runs_v3(*args, **kw)
    # the bad head count is refused before any batch trains (not after the first batch's runs)
    trained = []
    with pytest.raises(ValueError, match="divide d_model"):
        train_block_runs_v3(E, [RunSpec(8, 1, 1), RunSpec(6, 3, 2)], TASK, CFG, max_batch_runs=1,
                            on_batch=lambda idx, out: trained.append(idx))
    assert trained == []


def test_sec73_mixed_cuda_graph_flag_is_ignored_on_a_cpu(monkeypatch):
    plain = _strip(train_block_runs_v3(_table(), MIXED[:3], TASK, CFG, cuda_graph=False))
    assert _strip(train_block_runs_v3(_table(), MIXED[:3], TASK, CFG, cuda_graph=True)) == plain
    monkeypatch.setenv("RGR_VERIFY_CUDA_GRAPHS", "yes")  # read only for CUDA
    assert _strip(train_block_runs_v3(_table(), MIXED[:3], TASK, CFG)) == plain


def test_sec73_mixed_trainer_keeps_the_callers_thread_count():
    before = torch.get_num_threads()
    train_block_runs_v3(_table(), MIXED[:1], TASK, dataclasses.replace(CFG, steps=2))
    assert torch.get_num_threads() == before


# GPU tests: small shapes, each a few seconds; run first in a device call (docs/device-sec73.sh, ENGINE=v3). Those
# about the step the sweep trains compile its loss as the sweep does (compile=True) at one shape, GPU_SPECS, so that
# one compile serves them all (Dynamo's cache); the others run eagerly (compile=False): the first minute of a call
# compiles the loss at a few shapes only (tens of seconds each on a device; Dynamo refuses a 9th shape of one function
# under fullgraph, and the fallback's warning would fail the test), whatever RGR_VERIFY_COMPILE says.

GPU_SPECS, GPU_TASK, GPU_CFG = V3_GPU_SPECS, V3_GPU_TASK, V3_GPU_CFG  # shared with the compile gpu test


def test_sec73_mixed_gpu_tests_say_whether_they_compile():
    # Every trainer call of a gpu test names compile= (checked on the source, where no GPU is needed): a call that
    # left it to RGR_VERIFY_COMPILE (set to 1 by the device script) would compile at its own shape, and a CPU run
    # inside a gpu test would compile C++ on the device machine. Not vacuous: the gpu tests make such calls.
    import ast
    import inspect
    import sys

    tree = ast.parse(inspect.getsource(sys.modules[__name__]))
    calls = 0
    for fn in tree.body:
        if not isinstance(fn, ast.FunctionDef) or not any("gpu" in ast.unparse(d) for d in fn.decorator_list):
            continue
        for node in ast.walk(fn):
            if isinstance(node, ast.Call) and ast.unparse(node.func) in (
                    "_recorded", "train_block_runs_v3", "time_steps_v3"):
                calls += 1
                assert "compile" in {k.arg for k in node.keywords}, (fn.name, ast.unparse(node)[:80])
    assert calls >= 8


def test_sec73_mixed_gpu_tests_compile_under_this_files_warning_filters():
    # The gpu tests' compiled trainer call, on the CPU with the aot_eager backend (Dynamo's trace and AOT autograd,
    # no code generation: about a second): under this file's filters the compile succeeds, no fallback warns, and
    # the results are the eager trainer's. Planted alternative: without the module's DeprecationWarning filter
    # the compile fails, and the fallback's RuntimeWarning fails this test.
    cfg = dataclasses.replace(GPU_CFG, steps=4, eval_every=2, mixed_precision=False)
    eager = train_block_runs_v3(_gpu_table(), GPU_SPECS, GPU_TASK, cfg, compile=False)
    traced = train_block_runs_v3(_gpu_table(), GPU_SPECS, GPU_TASK, cfg, compile="aot_eager")
    assert [(r.spec, r.steps) for r in traced] == [(r.spec, r.steps) for r in eager]
    for a, b in zip(traced, eager):
        assert abs(a.final_test_acc - b.final_test_acc) <= 2 / cfg.n_test


def _gpu_table():
    return v3_gpu_table()


@pytest.mark.gpu
def test_sec73_mixed_cuda_graph_replays_the_eager_loop_bit_for_bit(monkeypatch):
    # The captured v3 step (sampler with the runs' registered generators, forward, backward, fused AdamW, mask) on
    # a mixed batch with bf16 autocast: every parameter at every evaluation and every result equal to the eager
    # loop's, to the last bit. Planted alternative: unregistered generators replay one batch's draws every step.
    eager, _, w_eager = _recorded(monkeypatch, GPU_SPECS, GPU_TASK, GPU_CFG, _gpu_table(), device="cuda",
                                  cuda_graph=False, compile=True)
    graph, _, w_graph = _recorded(monkeypatch, GPU_SPECS, GPU_TASK, GPU_CFG, _gpu_table(), device="cuda",
                                  cuda_graph=True, compile=True)
    assert len(w_eager) == len(w_graph) == 2 * GPU_CFG.steps // GPU_CFG.eval_every
    assert all(torch.equal(a[k], b[k]) for a, b in zip(w_eager, w_graph) for k in a)
    assert _strip(eager) == _strip(graph)
    with monkeypatch.context() as mp:
        mp.setattr(torch.cuda.CUDAGraph, "register_generator_state", lambda self, g: None)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            _, _, w_frozen = _recorded(mp, GPU_SPECS, GPU_TASK, GPU_CFG, _gpu_table(), device="cuda",
                                       cuda_graph=True, compile=True)
        if any("capture of the Sec. 7.3 v3 step failed" in str(w.message) for w in caught):
            return  # capture refused the unregistered generators: the batch retrained eagerly (tested below)
    assert not all(torch.equal(a[k], b[k]) for a, b in zip(w_eager, w_frozen) for k in a)


@pytest.mark.gpu
def test_sec73_mixed_cuda_bf16_calls_repeat_and_are_finite(monkeypatch):
    # Two identical graphed calls give identical results and parameters; every per-run loss of the eager loop is
    # finite; results in range.
    first, _, w_first = _recorded(monkeypatch, GPU_SPECS, GPU_TASK, GPU_CFG, _gpu_table(), device="cuda",
                                  cuda_graph=True, compile=True)
    again, _, w_again = _recorded(monkeypatch, GPU_SPECS, GPU_TASK, GPU_CFG, _gpu_table(), device="cuda",
                                  cuda_graph=True, compile=True)
    assert _strip(first) == _strip(again)
    assert all(torch.equal(a[k], b[k]) for a, b in zip(w_first, w_again) for k in a)
    _, losses, _ = _recorded(monkeypatch, GPU_SPECS, GPU_TASK, GPU_CFG, _gpu_table(), device="cuda",
                             cuda_graph=False, compile=True)
    assert losses.shape == (GPU_CFG.steps, len(GPU_SPECS)) and torch.isfinite(losses).all()
    for r in first:
        assert r.steps == GPU_CFG.steps and 0 <= r.test_acc <= 1 and 0 <= r.test_null_rate <= 1
        assert r.best_step in (10, 20, 30, 40)


@pytest.mark.gpu
def test_sec73_mixed_cuda_step_timer_runs_the_graphed_step():
    # The probe of the device call (rgr-verify sec73 --plan-only --probe-steps): the graphed v3 step, timed.
    from rgr_verify.models.transformer_v3 import time_steps_v3

    for graph in (True, False):
        seconds = time_steps_v3(_gpu_table(), GPU_SPECS, GPU_TASK, GPU_CFG, device="cuda", steps=20, cuda_graph=graph,
                                compile=True)
        assert 0 < seconds < 1, graph


def _cpu_drawn_training_data(mp):
    # Training examples from CPU generators on every device, so a CUDA run sees the CPU run's batches.
    gen, sample = V3.run_generator, V3.stack_examples
    mp.setattr(V3, "run_generator", lambda seed, *keys, device="cpu": gen(seed, *keys))
    mp.setattr(V3, "stack_examples", lambda packed, n, ell, gens: tuple(
        t.to(packed[0].device) for t in sample(tuple(x.cpu() if torch.is_tensor(x) else x for x in packed), n, ell,
                                               gens)))


@pytest.mark.gpu
def test_sec73_mixed_cuda_float32_follows_the_cpu(monkeypatch):
    # Same seeds, same (CPU-drawn) batches, float32 without TF32: CUDA's per-run losses within rtol 1e-4 of the
    # CPU's, accuracies within 2 examples of n.
    monkeypatch.setattr(torch.backends.cuda.matmul, "allow_tf32", False)
    cfg = dataclasses.replace(CFG, steps=8, eval_every=4, lr=1e-3)  # a small step: rounding differences stay small
    out = {}
    for device in ("cpu", "cuda"):
        with monkeypatch.context() as mp:
            _cpu_drawn_training_data(mp)
            out[device] = _recorded(mp, MIXED, TASK, cfg, device=device, cuda_graph=False, compile=False)
    (res_cpu, loss_cpu, _), (res_gpu, loss_gpu, _) = out["cpu"], out["cuda"]
    np.testing.assert_allclose(loss_gpu.numpy(), loss_cpu.numpy(), rtol=1e-4)
    for a, b in zip(res_cpu, res_gpu):
        assert a.spec == b.spec and a.steps == b.steps == cfg.steps
        assert abs(a.best_val_acc - b.best_val_acc) <= 2 / cfg.n_val
        assert abs(a.final_test_acc - b.final_test_acc) <= 2 / cfg.n_test


@pytest.mark.gpu
def test_sec73_mixed_failed_capture_retrains_the_batch_eagerly(monkeypatch):
    # A capture that fails (planted: record raises) warns once and retrains the batch from its start eagerly: the
    # eager loop's results, bit for bit; the later batches of the call train eagerly (record is not tried again).
    from rgr_verify.engine.capture import ChunkGraphs

    eager = _strip(train_block_runs_v3(_gpu_table(), GPU_SPECS, GPU_TASK, GPU_CFG, device="cuda", cuda_graph=False,
                                       max_batch_runs=3, compile=False))
    tries = []

    def broken(self, steps, static, *, generators=()):
        tries.append(1)
        raise RuntimeError("planted capture failure")

    monkeypatch.setattr(ChunkGraphs, "record", broken)
    with pytest.warns(RuntimeWarning, match="restarts eagerly"):
        got = train_block_runs_v3(_gpu_table(), GPU_SPECS, GPU_TASK, GPU_CFG, device="cuda", cuda_graph=True,
                                  max_batch_runs=3, compile=False)
    assert _strip(got) == eager and len(tries) == 1
    assert math.isfinite(sum(r.test_acc for r in got))


# The sweep's v3 engine (issue 38): its own records, keys and plan; batches in the order that retrains the v1
# engine's committed cells first; a batch too long for the time left retried in halves; the plan of the calls.

def _tiny_v3(**changes):
    """A 2 x 2-cell Gaussian preset small enough for a CPU, trained by the v3 engine (d_model = d_ff = 16)."""
    from rgr_verify.runs.sec73_presets import Sec73Preset

    base = Sec73Preset(name="quick", source="gaussian", task=TaskConfig(m=12, ell=2, d_ff=16), D_Ks=(4, 8),
                       heads=(1, 2), seeds=2, train=TrainConfig(steps=4, batch_size=8, eval_every=2, n_val=16,
                                                                n_test=16), device="cpu", gaussian_d_model=16,
                       engine="v3", max_batch_runs=3)
    return dataclasses.replace(base, **changes)


def test_sec73_mixed_sweep_stores_v3_records_under_their_own_keys(tmp_path, monkeypatch):
    from rgr_verify.runs.sec73_sweep import STORE_NAME, code_version, run_sec73, source_table, training_groups

    v3 = _tiny_v3()
    res = run_sec73(v3, root_seed=3, results_dir=tmp_path)
    assert len(res.records) == 8 and {r["engine"] for r in res.records} == {"v3"}
    assert {r["code"] for r in res.records} == {code_version("v3")} and code_version("v3") != code_version()
    # the stored numbers are the trainer's for those runs, trained in any other batch (here: all 8 in one)
    specs = [RunSpec(r["D_K"], r["h"], r["seed"]) for r in res.records]
    alone = train_block_runs_v3(source_table(v3, root_seed=3).E, specs, v3.task, v3.train, max_batch_runs=8)
    assert [(a.test_acc, a.best_val_acc, a.best_step) for a in alone] == \
        [(r["test_acc"], r["best_val_acc"], r["best_step"]) for r in res.records]
    # replayed, never retrained: the trainer is not called again
    monkeypatch.setattr(V3, "train_block_runs_v3", lambda *a, **k: pytest.fail("a stored v3 run was retrained"))
    again = run_sec73(v3, root_seed=3, results_dir=tmp_path)
    assert [r["key"] for r in again.records] == [r["key"] for r in res.records]
    # the v1 engine does not replay them (its runs train), nor does the v3 engine replay v1 records
    v1 = dataclasses.replace(v3, engine="v1", max_batch_runs=64)
    assert run_sec73(v1, root_seed=3, results_dir=tmp_path, train_missing=False) is None
    old = run_sec73(v1, root_seed=3, results_dir=tmp_path)
    assert {r["key"] for r in old.records}.isdisjoint(r["key"] for r in res.records)
    assert all("engine" not in r and r["code"] == code_version() for r in old.records)  # v1 records as before
    assert len((tmp_path / STORE_NAME).read_text().splitlines()) == 16
    # the groups: batches of 3 runs, one lock each, partitioning the runs
    groups = training_groups(v3, "cpu")
    assert [len(g) for _, g in groups] == [3, 3, 2] and len({n for n, _ in groups}) == 3
    assert sorted(r for _, g in groups for r in g) == sorted((D, h, i) for D, h in v3.cells() for i in range(2))


def test_sec73_mixed_full_plan_retrains_the_committed_cells_first():
    from rgr_verify.runs.sec73_presets import SEC73_PRESETS, sec73_preset
    from rgr_verify.runs.sec73_sweep import mixed_batches, planned_runs

    full = sec73_preset("full", source="minilm", engine="v3")
    v1 = sec73_preset("full", source="minilm")
    assert v1 == SEC73_PRESETS["full"] and v1.engine == "v1"  # v1 unchanged
    same = ("task", "train", "D_Ks", "heads", "seeds", "source")
    assert [getattr(full, f) for f in same] == [getattr(v1, f) for f in same]
    batches = mixed_batches(full)
    assert [len(b) for b in batches] == [56, 56]
    runs = [r for b in batches for r in b]
    assert sorted(runs) == sorted((D, h, i) for D, h in full.cells() for i in range(7))
    committed = [(64, 1), (128, 1), (64, 4), (64, 8), (256, 1)]  # the v1 engine's 35 committed runs
    assert [r[:2] for r in runs[:35]] == [c for c in committed for _ in range(7)]
    assert [r[:2] for r in runs[35:42]] == [(512, 1)] * 7
    assert [r[2] for r in runs[:7]] == list(range(7))
    # plans: v3 runs have their own keys, disjoint from every v1 key (current or equivalent code versions)
    plan = planned_runs("sec73v3:full:minilm:cuda:20250926")
    old = planned_runs("sec73:full:minilm:cuda:20250926", adopted=True)
    assert len(plan) == 112 and set(plan).isdisjoint(old)
    assert sorted(plan.values()) == sorted(runs)
    for bad in ("sec73v2:full:minilm:cuda:1", "sec73v3:full:minilm:tpu:1", "sec73v3:full:minilm:cuda"):
        with pytest.raises(ValueError):
            planned_runs(bad)
    with pytest.raises(ValueError, match="engine"):
        sec73_preset("full", engine="v2")
    with pytest.raises(ValueError, match="engine"):
        dataclasses.replace(full, engine="v2")


def test_sec73_mixed_evidence_add_takes_the_v3_plan(tmp_path, capsys):
    from rgr_verify.cli import main
    from rgr_verify.runs.evidence import add_store_evidence
    from rgr_verify.runs.sec73_sweep import STORE_NAME, missing_cells, planned_runs
    from rgr_verify.runs.store import JsonlStore

    plan_v3, plan_v1 = "sec73v3:full:minilm:cuda:20250926", "sec73:full:minilm:cuda:20250926"

    def records(plan, cells):
        return [{"key": k, "code": "test", "engine": "v3", "preset": "full", "source": "minilm",
                 "source_description": "synthetic", "device": "cuda", "D_K": D, "h": h, "seed": 1000 + i,
                 "seed_index": i, "m": 6144, "ell": 16, "test_acc": 0.5, "final_test_acc": 0.5, "best_val_acc": 0.5,
                 "best_step": 1000, "steps": 2000, "seconds": 1.0, "test_null_rate": 0.0}
                for k, (D, h, i) in planned_runs(plan).items() if (D, h) in cells]

    src = tmp_path / "src"
    JsonlStore(src, STORE_NAME).append(records(plan_v3, [(64, 1), (128, 1)]))
    man = add_store_evidence(src, STORE_NAME, name="sec73v3-minilm-full", label="sec73 v3", directory=tmp_path / "ev",
                             plan=plan_v3)
    assert (man.runs, man.preset_runs, man.plan) == (14, 112, plan_v3)
    keys = list(JsonlStore(src, STORE_NAME).read())
    assert len(missing_cells(plan_v3, keys)) == 14 and (64, 1, 7) not in missing_cells(plan_v3, keys)
    assert len(missing_cells(plan_v1, keys)) == 16  # v3 runs are no runs of the v1 plan ...
    with pytest.raises(ValueError, match="not runs of the plan"):  # ... and are refused as its evidence
        add_store_evidence(src, STORE_NAME, name="x", label="x", directory=tmp_path / "ev", plan=plan_v1)
    assert main(["evidence", "add", str(src), "--store", STORE_NAME, "--preset", "sec73 v3", "--name", "s",
                 "--plan", plan_v3, "--evidence", str(tmp_path / "ev2")]) == 0
    assert "14 of 112 runs" in capsys.readouterr().out


def test_sec73_mixed_sweep_halves_a_batch_that_would_overrun(tmp_path, monkeypatch):
    # A batch dropped for a projected overrun (planted: batches of more than 2 runs overrun) is retried in halves;
    # every run is then stored, and the sweep's note says what happened. Every batch, retried or not, is laid out
    # at the preset's widest layout (one compiled graph a batch size).
    from rgr_verify.runs.sec73_sweep import mixed_layout, run_sec73

    v3, real, sizes, notes, shapes = _tiny_v3(max_batch_runs=4), V3.train_block_runs_v3, [], [], set()

    def overrunning(E, specs, *a, max_batch_runs, **k):
        sizes.append(max_batch_runs)
        shapes.add(k.get("shape"))
        if max_batch_runs > 2:
            raise V3.BatchOverrun("planted: the batch would end after the deadline; batch dropped", 99.0)
        return real(E, specs, *a, max_batch_runs=max_batch_runs, **k)

    monkeypatch.setattr(V3, "train_block_runs_v3", overrunning)
    res = run_sec73(v3, root_seed=3, results_dir=tmp_path, stop_after=1e6, note=notes.append)
    assert res is not None and len(res.records) == 8
    assert sizes == [4, 2, 4, 2] and len(notes) == 2 and "retried in batches of 2" in notes[0]
    assert shapes == {mixed_layout(v3)} == {(8, 2)}


def test_sec73_mixed_command_plan_and_bad_options(tmp_path, capsys, monkeypatch):
    from rgr_verify.cli import main

    monkeypatch.delenv("RGR_VERIFY_COMPILE", raising=False)  # the default on CUDA: the v3 loss compiled
    base = ["sec73", "--tier", "full", "--engine", "v3", "--source", "minilm", "--device", "cuda", "--plan-only",
            "--results", str(tmp_path / "none")]
    assert main(base + ["--step-ms", "4.3"]) == 0
    out = capsys.readouterr().out
    assert "0 runs stored, 112 to train" in out and "GIVEN: 4.3 ms at R = 56" in out
    assert "total: 112 runs in 2 calls (fits in 2 calls)" in out and "recommended: --max-batch-runs 56" in out
    assert "compiling: 20 s" in out and "margin: 2 calls hold for steps up to" in out
    assert main(base) == 0  # the model's prediction for the compiled step: two calls, with a thin margin
    out = capsys.readouterr().out
    assert "PREDICTED" in out and "loss compiled" in out and "total: 112 runs in 2 calls (fits in 2 calls)" in out
    margin = float(re.search(r"margin: 2 calls hold for steps up to [0-9.]+ ms at R = 56 \(([0-9.]+) x", out)[1])
    assert 1.0 <= margin < 1.1
    monkeypatch.setenv("RGR_VERIFY_COMPILE", "0")  # the eager step's bytes: it does not fit two calls
    assert main(base) == 0
    out = capsys.readouterr().out
    assert "PREDICTED" in out and "eager step" in out and "does NOT fit in 2 calls" in out
    assert "2 calls need a step of at most" in out and "compiling:" not in out
    assert not (tmp_path / "none").exists()  # a plan creates nothing
    for argv, option in [(["--engine", "v2"], "--engine"), (["--max-batch-runs", "3"], "--max-batch-runs"),
                         (["--engine", "v3", "--max-batch-runs", "0"], "--max-batch-runs"),
                         (["--step-ms", "2"], "--step-ms"), (["--plan-only", "--step-ms", "-1"], "--step-ms"),
                         (["--plan-only", "--probe-steps", "10"], "--probe-steps"),
                         (["--engine", "v3", "--plan-only", "--probe-steps", "0"], "--probe-steps"),
                         (["--plan-only", "--calls", "0"], "--calls"),
                         (["--plan-only", "--call-seconds", "nan"], "--call-seconds"),
                         (["--plan-only", "--first-call-seconds", "-5"], "--first-call-seconds"),
                         (["--first-call-seconds", "300"], "--first-call-seconds"),
                         (["--plan-only", "--stop-after", "5"], "--plan-only")]:
        assert main(["sec73", "--tier", "full", "--results", str(tmp_path / "none"), *argv]) == 2, argv
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and option in err[0], (argv, err)
    assert not (tmp_path / "none").exists()


def test_sec73_mixed_plan_model_and_probe():
    from rgr_verify.runs.sec73_plan import (COMPILE_SECONDS, TODAY_STEP_MS, call_plan, floor_step_ms,
                                            measure_step_ms, model_step_ms)
    from rgr_verify.runs.sec73_presets import sec73_preset

    assert model_step_ms(7, "v1") == pytest.approx(TODAY_STEP_MS)
    assert model_step_ms(56) > 7 * model_step_ms(7) and floor_step_ms(56) < model_step_ms(56)
    assert model_step_ms(56, compiled=True) < 0.5 * model_step_ms(56)  # the compiled loss moves fewer bytes
    assert floor_step_ms(56, compiled=True) < model_step_ms(56, compiled=True)
    full = sec73_preset("full", source="minilm", engine="v3")
    two = call_plan(full, step_ms=4.5, compiled=False)
    assert (two.calls, two.runs, two.unplaced) == (2, 112, 0) and [len(b.runs) for b in two.batches] == [56, 56]
    done = {r for r in two.batches[0].runs}
    rest = call_plan(full, step_ms=4.5, done=done, compiled=False)
    assert rest.runs == 56 and rest.calls == 1 and not done & set(rest.batches[0].runs)
    # compiled, each call's first batch of a size compiles (COMPILE_SECONDS; a call is a new process), so 4.9 ms
    # no longer fits a call of 520 s (4.9 ms without the compile would), and 4.3 ms does
    eager, fused = call_plan(full, step_ms=4.3, compiled=False), call_plan(full, step_ms=4.3, compiled=True)
    assert [b.call for b in fused.batches] == [1, 2]
    assert [b.seconds for b in fused.batches] == pytest.approx([b.seconds + COMPILE_SECONDS for b in eager.batches])
    assert call_plan(full, step_ms=4.9, compiled=True).calls > 2 and call_plan(full, step_ms=4.9,
                                                                                compiled=False).calls == 2
    slow = call_plan(full, compiled=False)  # the eager model: 56-run batches overrun a call, dropped and halved
    assert slow.calls > 2 and slow.batches[0].dropped and sum(len(b.runs) for b in slow.batches) == 112
    fused = call_plan(full, compiled=True)  # the compiled model: two calls of one 56-run batch each
    assert fused.compiled and fused.calls == 2 and [len(b.runs) for b in fused.batches] == [56, 56]
    assert "loss compiled" in fused.step_source
    # the first call has less time (its tests ran): a 56-run batch that does not fit it is dropped and halved
    # there, and later calls have the full time; a batch no first call can hold but a later one can is placed
    assert call_plan(full, compiled=True, first_call_seconds=545).calls == 2
    short = call_plan(full, compiled=True, first_call_seconds=450)
    assert short.calls == 3 and short.batches[0].call == 1 and short.batches[0].dropped
    assert len(short.batches[0].runs) < 56 and short.first_call_seconds == 450.0
    v1 = call_plan(sec73_preset("full", source="minilm"), first_call_seconds=100.0)
    assert v1.unplaced == 0 and v1.batches[0].call == 2
    with pytest.raises(ValueError, match="first_call_seconds"):
        call_plan(full, first_call_seconds=0.0)
    measured = call_plan(full, step_ms={56: 4.0, 28: 2.1})
    assert measured.calls == 2 and "MEASURED" in measured.step_source
    with pytest.raises(ValueError):
        call_plan(full, step_ms=-1.0)
    with pytest.raises(ValueError, match="compiled"):
        call_plan(sec73_preset("full", source="minilm"), compiled=True)  # the v1 engine compiles nothing
    tiny = _tiny_v3()
    got = measure_step_ms(tiny, _table(d=16), device="cpu", sizes=[3, 1], steps=2)
    assert sorted(got) == [1, 3] and all(v > 0 for v in got.values())
    with pytest.raises(ValueError, match="v3"):
        measure_step_ms(dataclasses.replace(tiny, engine="v1"), _table(d=16), device="cpu", sizes=[1])


def test_sec73_mixed_fixed_sets_drawn_run_by_run_equal_one_stacked_draw():
    # The validation/test sets of a batch are drawn run by run (threads on CUDA): the same tensors as one stacked
    # draw, on the threaded path too (exercised here on CPU tensors).
    from rgr_verify.models.transformer_task import moved_items, pack_runs, run_generator, sample_permutation, stack_examples

    specs = MIXED[:5]
    perms = [sample_permutation(40, generator=run_generator(s.seed, 2)) for s in specs]
    moved = [moved_items(p) for p in perms]
    ref = stack_examples(pack_runs(perms, moved), 64, 3, [run_generator(s.seed, 3) for s in specs])
    for device in ("cpu", "cuda"):  # "cuda": the threaded path, on CPU tensors
        got = V3._fixed_examples(perms, moved, 64, 3, 3, specs, torch.device(device))
        assert all(torch.equal(a, b) for a, b in zip(got, ref)), device


def test_sec73_command_prints_the_measured_step_time_after_the_first_evaluation(tmp_path, capsys, monkeypatch):
    # The sweep's progress lines carry the step time measured since the batch's last evaluation (what a device call
    # prints beside its plan's prediction), from a batch's second evaluation on: the first interval holds the
    # compile and the capture. Batches are told apart by their runs.
    import rgr_verify.runs.sec73_sweep as sweep
    from rgr_verify.cli import main

    clock = iter([0.0, 10.0, 12.5, 15.0, 20.0, 21.0])
    monkeypatch.setattr(time, "perf_counter", lambda: next(clock))
    val = torch.tensor([0.5, 0.25])

    def fake_sweep(preset, *, progress, **kwargs):
        for specs in (MIXED[:2], MIXED[2:4]):
            for step in (1000, 2000):
                progress(step, specs, val, val)
        return None

    monkeypatch.setattr(sweep, "run_sec73", fake_sweep)
    assert main(["sec73", "--tier", "quick", "--engine", "v3", "--source", "gaussian", "--results", str(tmp_path),
                 "--stop-after", "100"]) == 0
    lines = [line for line in capsys.readouterr().err.splitlines() if "step=" in line]
    assert len(lines) == 4 and "ms a step" not in lines[0] and "ms a step" not in lines[2]
    assert lines[1].endswith("(12 s, 2.50 ms a step)") and lines[3].endswith("(20 s, 5.00 ms a step)"), lines
