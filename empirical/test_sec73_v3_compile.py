# Sec. 7.3, the v3 step beyond the block: its inputs normalised once (no gradient), torch.compile with an eager
# fallback, a dispatch trace with no host sync and no nondeterministic CUDA op, and the memory a run needs.
import contextlib
import dataclasses

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from torch.utils._python_dispatch import TorchDispatchMode

import rgr_verify.models.transformer_v3 as V3
from rgr_verify.models.embedding_sources import GaussianSource
from rgr_verify.basics.settings import COMPILE_ENV
from rgr_verify.models.transformer import RunSpec, TaskConfig, TrainConfig, block_inputs
from rgr_verify.models.transformer_task import moved_items, pack_runs, run_generator, sample_permutation, stack_examples
from rgr_verify.models.transformer_v3 import (CompiledLoss, block_loss_v3, compile_enabled, init_block_params_v3, layout_v3,
                                       normed_inputs_v3, train_block_runs_v3, train_step_v3)

from ._fixtures import V3_GPU_CFG, V3_GPU_SPECS, V3_GPU_TASK, v3_gpu_table

# torch.compile warns about torch's own deprecated internals (Dynamo instantiating the custom autograd Function,
# Inductor touching torch.jit.script_method): the project's warnings-as-errors setting would turn them into failures.
pytestmark = [pytest.mark.filterwarnings("ignore::DeprecationWarning"),
              pytest.mark.filterwarnings("ignore:TensorFloat32 tensor cores:UserWarning")]  # Inductor, CUDA, float32

MIXED = [RunSpec(8, 1, 1), RunSpec(16, 8, 2), RunSpec(8, 2, 3), RunSpec(32, 4, 4), RunSpec(24, 8, 5)]
D_MODEL, D_FF, DMAX, HMAX = 16, 16, 32, 8
TASK = TaskConfig(m=12, ell=2, d_ff=16)
CFG = TrainConfig(steps=12, batch_size=8, eval_every=4, patience=0, n_val=32, n_test=32, lr=1e-2)

# Ops that wait for the device (a host sync inside a CUDA graph is an error; outside, a stall every step) and ops
# whose CUDA kernels accumulate with atomics (results that change from run to run).
HOST_SYNC = {"_local_scalar_dense", "item", "nonzero", "one_hot", "unique", "_unique", "_unique2", "unique_dim",
             "unique_consecutive", "masked_select", "repeat_interleave", "equal", "is_nonzero"}
NONDETERMINISTIC = {"scatter_add", "scatter_add_", "index_add", "index_add_", "embedding_dense_backward",
                    "_embedding_bag_backward", "put_", "scatter_reduce", "scatter_reduce_"}


@pytest.fixture(autouse=True)
def one_thread(request):
    # Not for the gpu test: the thread count is part of the state Dynamo guards a compiled graph on, and the gpu
    # test reuses the trainer gpu tests' compile, made at the process's thread count.
    if request.node.get_closest_marker("gpu") is not None:
        yield
        return
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


def _table(m, seed=3, dtype=torch.float32):
    return torch.tensor(GaussianSource(D_MODEL).table(m, rng=np.random.default_rng(seed)).E, dtype=dtype)


def _batch_of(specs, m, ell, B):
    perms = [sample_permutation(m, generator=run_generator(s.seed, 2)) for s in specs]
    packed = pack_runs(perms, [moved_items(p) for p in perms])
    return packed, [run_generator(s.seed, 5) for s in specs]


def _setup(specs=MIXED, m=20, ell=3, B=8, init_std=0.3):
    E = _table(m)
    layout = layout_v3(specs, DMAX, HMAX, D_MODEL)
    init = init_block_params_v3(specs, D_MODEL, D_FF, DMAX, HMAX, init_std=init_std)
    packed, gens = _batch_of(specs, m, ell, B)
    return E, layout, init, stack_examples(packed, B, ell, gens)


def _amp(on):
    return (lambda: torch.autocast("cpu", dtype=torch.bfloat16)) if on else contextlib.nullcontext


def _loss_and_grads(fn, init, E, layout, batch, amp):
    p = {k: v.clone().requires_grad_() for k, v in init.items()}
    with _amp(amp)():
        loss = fn(p, E, layout, *batch)
    loss.sum().backward()
    return loss.detach(), {k: v.grad for k, v in p.items()}


def _max_rel(a, b):
    scale = b.abs().max().item()
    return (a - b).abs().max().item() / scale if scale > 0 else (a - b).abs().max().item()


def test_sec73_mixed_normed_inputs_are_layer_norm_of_block_inputs_bit_for_bit():
    # The rows the v3 step normalises are today's block_inputs rows, bit for bit (pairs summed without the
    # [.., l, 2, d] gather), and they carry no gradient; x_last is E[q].
    E, _, _, (pairs, query, _) = _setup()
    X = block_inputs(E, pairs, query)
    n, x_last = normed_inputs_v3(E, pairs, query)
    assert torch.equal(n, F.layer_norm(X, X.shape[-1:])) and torch.equal(x_last, X[:, :, -1])
    assert not n.requires_grad
    # Planted alternative: the pair rows without their second item differ.
    assert not torch.equal(F.layer_norm(E[pairs[..., 0]], (D_MODEL,)), n[:, :, :-2])


@pytest.mark.parametrize("amp", [False, True])
def test_sec73_mixed_compile_fullgraph_matches_eager(amp):
    # torch.compile(fullgraph=True) of the loss (aot_eager here: the same graph capture and autograd tracing as
    # inductor, without a C++ compiler) gives the eager loss and gradients, with and without bf16 autocast.
    E, layout, init, batch = _setup()
    loss0, grads0 = _loss_and_grads(block_loss_v3, init, E, layout, batch, amp)
    compiled = CompiledLoss("aot_eager")
    loss1, grads1 = _loss_and_grads(compiled, init, E, layout, batch, amp)
    assert not compiled.eager  # no graph break, no fallback
    assert _max_rel(loss1, loss0) <= 1e-6
    for k in grads0:
        assert _max_rel(grads1[k], grads0[k]) <= 1e-5, k


@pytest.mark.slow
def test_sec73_mixed_compile_inductor_matches_eager():
    # Inductor on a CPU (about a minute of compiling on 2 cores): within float32 rounding of eager.
    E, layout, init, batch = _setup()
    for amp in (False, True):
        loss0, grads0 = _loss_and_grads(block_loss_v3, init, E, layout, batch, amp)
        compiled = CompiledLoss("inductor")
        loss1, grads1 = _loss_and_grads(compiled, init, E, layout, batch, amp)
        assert not compiled.eager
        assert _max_rel(loss1, loss0) <= 1e-5
        for k in grads0:
            assert _max_rel(grads1[k], grads0[k]) <= 1e-4, (amp, k)


def test_sec73_mixed_trainer_compiled_equals_eager():
    # The whole trainer with the compiled loss (aot_eager) gives the eager trainer's results field for field.
    E = _table(TASK.m, seed=5)
    eager = train_block_runs_v3(E, MIXED, TASK, CFG, compile=False)
    compiled = train_block_runs_v3(E, MIXED, TASK, CFG, compile="aot_eager")
    strip = [dataclasses.replace(r, seconds=0.0) for r in eager]
    assert [dataclasses.replace(r, seconds=0.0) for r in compiled] == strip
    assert max(r.test_acc for r in eager) > 0.0


def test_sec73_mixed_compile_failure_falls_back_to_the_eager_step():
    # Planted failure: a backend that raises. The step warns, runs eagerly on the same batch (parameters equal
    # to an eager step's bit for bit) and stays eager.
    def broken_backend(gm, example_inputs):
        raise RuntimeError("planted compiler failure")

    E, layout, init, batch = _setup()
    after = []
    for loss in (None, CompiledLoss(broken_backend)):
        p = {k: v.clone().requires_grad_() for k, v in init.items()}
        opt = torch.optim.AdamW(list(p.values()), lr=1e-2, fused=True)
        ctx = pytest.warns(RuntimeWarning, match="runs eagerly") if loss is not None else contextlib.nullcontext()
        with ctx:
            train_step_v3(p, opt, E, layout, batch, batch_size=8, loss=loss)
        after.append({k: v.detach().clone() for k, v in p.items()})
        if loss is not None:
            assert loss.eager and "planted compiler failure" in loss.reason
    assert all(torch.equal(after[0][k], after[1][k]) for k in after[0])


def test_sec73_mixed_compile_setting_and_bad_values(monkeypatch):
    monkeypatch.delenv(COMPILE_ENV, raising=False)
    assert compile_enabled("cuda") and not compile_enabled("cpu")
    monkeypatch.setenv(COMPILE_ENV, "1")
    assert compile_enabled("cpu")
    monkeypatch.setenv(COMPILE_ENV, "yes")
    with pytest.raises(ValueError, match="RGR_VERIFY_COMPILE"):
        compile_enabled("cuda")
    with pytest.raises(ValueError, match="compile must be"):
        train_block_runs_v3(_table(TASK.m), MIXED[:1], TASK, CFG, compile=3)


class _Ops(TorchDispatchMode):
    """Every aten op dispatched, with the accumulate flag of index_put."""

    def __init__(self):
        super().__init__()
        self.names = []

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        name = func.overloadpacket.__name__
        if name in ("index_put", "index_put_", "_index_put_impl_"):
            accumulate = (list(args) + [False, False])[3] if len(args) > 3 else (kwargs or {}).get("accumulate")
            if accumulate:
                name += "[accumulate]"
        self.names.append(name)
        return func(*args, **(kwargs or {}))


def _forbidden(step) -> set:
    ops = _Ops()
    with ops:
        step()
    assert len(ops.names) > 50  # the trace saw the step
    return {n for n in ops.names if n in HOST_SYNC or n in NONDETERMINISTIC or n.endswith("[accumulate]")}


@pytest.mark.parametrize("amp", [False, True])
def test_sec73_mixed_step_dispatches_no_host_sync_or_nondeterministic_op(amp):
    # The whole training step (the batched sampler, the block, the float32 cross-entropy, backward, fused AdamW,
    # the mask), traced op by op: nothing waits for the device and nothing accumulates with atomics.
    specs, m, ell, B = MIXED, 20, 3, 8
    E = _table(m)
    layout = layout_v3(specs, DMAX, HMAX, D_MODEL)
    p = {k: v.requires_grad_() for k, v in init_block_params_v3(specs, D_MODEL, D_FF, DMAX, HMAX).items()}
    opt = torch.optim.AdamW(list(p.values()), lr=1e-3, fused=True)
    packed, gens = _batch_of(specs, m, ell, B)

    def step():
        train_step_v3(p, opt, E, layout, stack_examples(packed, B, ell, gens), autocast=_amp(amp), batch_size=B)

    step()  # the optimiser's state exists from the second step on
    assert _forbidden(step) == set()

    # Planted alternatives: a step that reads a loss on the host, or accumulates with index_put, is caught.
    def syncing():
        step()
        float(p["W_Q"].detach().sum())

    def accumulating():
        step()
        torch.zeros(4).index_put_((torch.tensor([0, 0]),), torch.ones(2), accumulate=True)

    assert "_local_scalar_dense" in _forbidden(syncing)
    assert "index_put_[accumulate]" in _forbidden(accumulating)


@pytest.mark.gpu
def test_sec73_mixed_cuda_compiled_step_matches_eager_and_syncs_nothing():
    # On CUDA (the first minute of a device call): the compiled loss within float32 rounding of eager, with bf16
    # autocast through Inductor (the sweep's configuration: Triton's kernels) and without it through aot_eager
    # (Dynamo's graph and AOT autograd on CUDA); and the eager CUDA step dispatches no host sync and no atomic
    # accumulation. At the trainer gpu tests' shape (V3_GPU_*), whose compile of the loss, run before this test in
    # the device call, Dynamo's cache then serves: no cold compile of its own.
    dev = torch.device("cuda")
    specs, task, cfg = V3_GPU_SPECS, V3_GPU_TASK, V3_GPU_CFG
    Dmax, Hmax = max(s.D_K for s in specs), max(s.n_heads for s in specs)
    E = torch.tensor(v3_gpu_table(), dtype=torch.float32, device=dev)
    d = E.shape[1]
    layout = layout_v3(specs, Dmax, Hmax, d, dev)
    init = {k: v.to(dev) for k, v in init_block_params_v3(specs, d, task.d_ff, Dmax, Hmax,
                                                           init_std=cfg.init_std).items()}
    packed, gens = _batch_of(specs, task.m, task.ell, cfg.batch_size)
    batch = tuple(t.to(dev) for t in stack_examples(packed, cfg.batch_size, task.ell, gens))
    for amp in (False, True):
        # the trainer's autocast (no cast cache, a state Dynamo guards): its compile serves this one
        ctx = ((lambda: torch.autocast("cuda", dtype=torch.bfloat16, cache_enabled=False)) if amp
               else contextlib.nullcontext)
        out = []
        for fn in (block_loss_v3, CompiledLoss("inductor" if amp else "aot_eager")):
            p = {k: v.clone().requires_grad_() for k, v in init.items()}
            with ctx():
                loss = fn(p, E, layout, *batch)
            loss.sum().backward()
            out.append((loss.detach(), {k: v.grad for k, v in p.items()}))
            if isinstance(fn, CompiledLoss):
                assert not fn.eager, fn.reason
        tol = 2e-2 if amp else 1e-4
        assert _max_rel(out[1][0], out[0][0]) <= tol, amp
        for k in out[0][1]:
            assert _max_rel(out[1][1][k], out[0][1][k]) <= 10 * tol, (amp, k)
    m, ell, B = task.m, task.ell, cfg.batch_size
    p = {k: v.clone().requires_grad_() for k, v in init.items()}
    opt = torch.optim.AdamW(list(p.values()), lr=1e-3, fused=True)
    perms = [sample_permutation(m, generator=run_generator(s.seed, 2)) for s in specs]
    packed = tuple(x.to(dev) if isinstance(x, torch.Tensor) else x
                   for x in pack_runs(perms, [moved_items(q) for q in perms]))
    gens = [run_generator(s.seed, 5, device=dev) for s in specs]

    def step():
        train_step_v3(p, opt, E, layout, stack_examples(packed, B, ell, gens),
                      autocast=lambda: torch.autocast("cuda", dtype=torch.bfloat16), batch_size=B)

    step()
    assert _forbidden(step) == set()


def test_sec73_mixed_memory_per_run_fits_the_probes_largest_batch():
    # The plan's memory line is this measurement at the full shapes (within 10 %), and the probe's largest batch
    # (56 runs) needs a few GB: far inside an 80 GB H100 with the allocator's slack.
    from rgr_verify.runs.sec73_plan import V3_MEMORY_MB
    from rgr_verify.runs.sec73_presets import sec73_preset

    from rgr_verify.models.transformer_v3 import memory_per_run_v3

    preset = sec73_preset("full", source="minilm", engine="v3")
    own, per_run = memory_per_run_v3(preset.task, preset.train, 384, 512, 8)
    assert abs(per_run / 1e6 - V3_MEMORY_MB[1]) <= 0.1 * V3_MEMORY_MB[1], per_run
    assert (own + preset.max_batch_runs * per_run) < 0.1 * 80e9
    # Not vacuous: the sampler's keys alone are B m 4 bytes a run, and the estimate holds more than that.
    assert per_run > preset.train.batch_size * preset.task.m * 4
