# FusedAdamW (torch._fused_adamw_, one kernel per step) against the default StackedAdamW: the same AdamW, not
# bitwise. What differs, measured on CPU: the moments are bitwise equal; the parameters differ by the rounding of
# one square root. FusedAdamW is bitwise the stacked formula evaluated with a correctly rounded sqrt (IEEE), while
# StackedAdamW calls torch.sqrt, which on some CPU builds is not correctly rounded (torch 2.13+cpu on an AVX2 CPU:
# ~20% of float32 inputs 1 ulp off). A 1-ulp denominator changes the update by ~1 ulp of the update, which moves the
# parameter by at most one rounding (1 ulp of |theta|) per step.
import math

import numpy as np
import pytest
import torch

from rgr_verify.engine import FusedAdamW, RunConfig, StackedAdamW, train_runs
from rgr_verify.engine.optim import BETAS, EPS

LR = 1e-3
N_STEPS = 300


@pytest.fixture
def one_thread():
    # The CPU kernel's chunk boundaries depend on the thread count; one thread keeps every element on the
    # vectorised path, so the bitwise statements below do not depend on the machine's core count.
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


def _ieee_adamw_step(p, g, m, v, step, *, weight_decay):
    """stacked_adamw_step's operations (lerp, addcmul, / sqrt(bc2) + eps, addcdiv) with numpy's correctly rounded
    sqrt in place of torch.sqrt."""
    beta1, beta2 = BETAS
    if weight_decay != 0:
        p.mul_(1 - LR * weight_decay)
    m.lerp_(g, 1 - beta1)
    v.mul_(beta2).addcmul_(g, g, value=1 - beta2)
    denom = (torch.from_numpy(np.sqrt(v.numpy())) / math.sqrt(1 - beta2**step)).add_(EPS)
    p.addcdiv_(m, denom, value=-(LR / (1 - beta1**step)))


def _torch_sqrt_is_ieee(dtype) -> bool:
    x = torch.rand(100_000, generator=torch.Generator().manual_seed(5), dtype=dtype)
    return torch.equal(torch.sqrt(x), torch.from_numpy(np.sqrt(x.numpy())))


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("weight_decay", [0.0, 0.01])
def test_fused_update_sequence_against_stacked(dtype, weight_decay, one_thread):
    gen = torch.Generator().manual_seed(11)
    R, P = 8, 256
    theta0 = torch.randn(R, P, generator=gen, dtype=dtype)
    theta0[:, :5] = 0.0  # padding: zero parameters with zero gradients stay exactly zero
    thetas = {k: theta0.clone() for k in ("stacked", "stacked_dev", "fused", "fused_dev", "ieee")}
    opts = {k: cls(thetas[k], lr=LR, weight_decay=weight_decay, max_step=N_STEPS)
            for k, cls in (("stacked", StackedAdamW), ("stacked_dev", StackedAdamW), ("fused", FusedAdamW),
                           ("fused_dev", FusedAdamW))}
    for k in ("stacked_dev", "fused_dev"):
        assert opts[k].prepare_device(N_STEPS) is (k == "stacked_dev")  # fused: nothing to build, ever
        opts[k].set_device_step(0)
    m, v = torch.zeros_like(theta0), torch.zeros_like(theta0)
    for step in range(1, N_STEPS + 1):
        g = torch.randn(R, P, generator=gen, dtype=dtype)
        g[:, :5] = 0.0
        for k in ("stacked", "fused"):
            opts[k].step(thetas[k], g, step)
        for k in ("stacked_dev", "fused_dev"):
            opts[k].step_on_device(thetas[k], g.clone())
        _ieee_adamw_step(thetas["ieee"], g, m, v, step, weight_decay=weight_decay)
    fused, stacked = thetas["fused"], thetas["stacked"]
    # Host and device-step paths: bitwise, for both optimisers.
    assert torch.equal(thetas["fused_dev"], fused) and torch.equal(thetas["stacked_dev"], stacked)
    assert opts["fused_dev"].step_t.item() == N_STEPS
    # Bitwise where it is: the moments, and the parameters against the stacked formula with an IEEE sqrt.
    assert torch.equal(opts["fused"].exp_avg, opts["stacked"].exp_avg)
    assert torch.equal(opts["fused"].exp_avg_sq, opts["stacked"].exp_avg_sq)
    assert torch.equal(fused, thetas["ieee"])
    assert torch.all(fused[:, :5] == 0)
    # Not bitwise where torch.sqrt is not correctly rounded (so StackedAdamW's denominators differ by 1 ulp).
    if not _torch_sqrt_is_ieee(dtype):
        assert not torch.equal(fused, stacked)
    # Tolerance: the moments are equal, so the two parameter sequences see the same m and v; at each step the two
    # updates differ by a few ulps of the update (<= lr / (1 - b1^t) ~ 1e-2 here) and each result is rounded
    # once, so |difference| grows by at most ~1 ulp of max|theta| per step and weight decay only shrinks it:
    # bound N_STEPS * eps * max|theta| (linear accumulation, no cancellation assumed).
    eps = torch.finfo(dtype).eps
    bound = N_STEPS * eps * float(stacked.abs().max())
    diff = float((fused - stacked).abs().max())
    assert diff <= bound, (diff, bound)
    # In practice the errors do not accumulate (a few ulps of |theta| ~ 1 after 300 steps).
    assert diff <= 8 * eps * float(stacked.abs().max())


def test_fused_adamw_keep_and_validation():
    theta = torch.zeros(4, 6)
    opt = FusedAdamW(theta, lr=LR, weight_decay=0.0, max_step=10)
    opt.step(theta, torch.ones(4, 6), 1)
    opt.keep(torch.tensor([0, 2]))
    assert opt.exp_avg.shape == (2, 6) and opt.exp_avg_sq.shape == (2, 6)
    kept = theta[torch.tensor([0, 2])].contiguous()
    opt.step(kept, torch.ones(2, 6), 2)
    for kwargs in (dict(lr=0.0), dict(lr=-1e-3), dict(lr=float("nan")), dict(weight_decay=-0.1),
                   dict(weight_decay=float("inf")), dict(max_step=0), dict(max_step=2**24 + 1), dict(max_step=1.5)):
        args = {**dict(lr=LR, weight_decay=0.0, max_step=10), **kwargs}
        with pytest.raises(ValueError, match=next(iter(kwargs))):
            FusedAdamW(torch.zeros(2, 3), **args)
    for bad in (torch.zeros(3), torch.zeros(2, 3, 4), np.zeros((2, 3)), torch.zeros(2, 3, dtype=torch.long)):
        with pytest.raises(ValueError, match="theta"):
            FusedAdamW(bad, lr=LR, weight_decay=0.0, max_step=10)
    with pytest.raises(ValueError, match="step"):
        opt.step(kept, torch.ones(2, 6), 0)
    with pytest.raises(ValueError, match="step"):
        opt.set_device_step(-1)
    with pytest.raises(ValueError, match="last_step"):
        opt.prepare_device(0)
    with pytest.raises(ValueError, match="shape"):
        opt.step(kept, torch.ones(3, 6), 3)  # wrong rows (the kernel itself would read out of bounds)
    with pytest.raises(ValueError, match="contiguous"):
        opt.step(torch.zeros(6, 2).t(), torch.ones(2, 6), 3)
    # A strided gradient is copied, not misread (the CPU kernel walks raw memory).
    a, b = torch.zeros(2, 6), torch.zeros(2, 6)
    oa, ob = (FusedAdamW(x, lr=LR, weight_decay=0.0, max_step=10) for x in (a, b))
    g = torch.randn(6, 2, generator=torch.Generator().manual_seed(2)).t()
    oa.step(a, g, 1)
    ob.step(b, g.contiguous(), 1)
    assert torch.equal(a, b)


def _small_runs():
    """Two shapes x three variants, 1000-step caps, checks every 100: the max runs include an early stop."""
    base = dict(ell=8, n_val=40, n_test=60, check_every=100, patience=2, stop_f1=0.9, max_steps=1000)
    shapes = [dict(m=16, d_model=16, n_heads=2, d_k=8), dict(m=24, d_model=16, n_heads=4, d_k=4)]
    return [(RunConfig(variant=v, **s, **base), seed) for v in ("max", "softmax", "value")
            for seed, s in enumerate(shapes)]


def _weights_diff(a, b) -> float:
    return max(float(np.abs(a.extra["weights"][n] - b.extra["weights"][n]).max()) for n in ("W_Q", "W_K"))


def _float32_bound(a, b) -> float:
    """steps * eps32 * max(1, |tau|, max|W|): one float32 rounding of the largest parameter per step, accumulated
    linearly."""
    scale = max(1.0, abs(b.tau), *(float(np.abs(b.extra["weights"][n]).max()) for n in ("W_Q", "W_K")))
    return max(a.steps, b.steps) * torch.finfo(torch.float32).eps * scale


def test_fused_training_float64_matches_default(one_thread):
    # Whole trainings (gradients now depend on the parameters, so the per-step ulp differences feed back). Measured
    # on CPU: |d tau| <= 6e-17, |d W| <= 7e-16 after 1000 steps. Bound 1e-9 (as CUDA vs CPU in test_engine.py):
    # seven orders above the measured drift, still far below any difference that could move a decision; the
    # decisions themselves (steps, stops, validation F1 history, test counts) must be identical.
    runs = _small_runs()
    fused = train_runs(runs, dtype=torch.float64, keep_weights=True, optimiser=FusedAdamW)
    default = train_runs(runs, dtype=torch.float64, keep_weights=True)
    assert any(r.stopped_early for r in default) and any(not r.stopped_early for r in default)
    for a, b in zip(fused, default, strict=True):
        assert (a.steps, a.stopped_early) == (b.steps, b.stopped_early)
        assert abs(a.tau - b.tau) <= 1e-9 and _weights_diff(a, b) <= 1e-9
        if a.config.variant == "value":  # MSEs: sums of squares of parameters that differ at rounding level
            np.testing.assert_allclose([a.metric, *a.val_history, a.extra["test_sse"]],
                                       [b.metric, *b.val_history, b.extra["test_sse"]], rtol=1e-9)
            assert a.extra["test_valid"] == b.extra["test_valid"]
        else:
            assert a.metric == b.metric and a.val_history == b.val_history
            assert {k: a.extra[k] for k in ("tp", "fp", "fn")} == {k: b.extra[k] for k in ("tp", "fp", "fn")}


def test_fused_training_float32_close_to_default(one_thread):
    # float32: the drift is ulps of float32 (measured on CPU: |d tau| <= 6e-8, |d W| <= 4e-7, test F1 and counts
    # identical, value MSE within 1e-7 relative). Loose stated bounds: |d tau|, |d W| <= _float32_bound (the linear
    # accumulation of one rounding of the largest parameter per step, ~1.2e-4 x scale at 1000 steps) and
    # |d test F1| <= 0.05 (a few of the 60 test contexts' pair decisions may flip when a score sits within float32
    # rounding of tau); value MSE within 1e-4 relative.
    runs = _small_runs()
    fused = train_runs(runs, keep_weights=True, optimiser=FusedAdamW)
    default = train_runs(runs, keep_weights=True)
    for a, b in zip(fused, default, strict=True):
        bound = _float32_bound(a, b)
        d_tau, d_w, d_metric = abs(a.tau - b.tau), _weights_diff(a, b), abs(a.metric - b.metric)
        print(f"{a.config.variant} seed {a.seed}: steps {a.steps}/{b.steps} d_tau {d_tau:.3g} d_W {d_w:.3g} "
              f"d_metric {d_metric:.3g}")
        assert d_tau <= bound and d_w <= bound
        if a.config.variant == "value":
            assert d_metric <= 1e-4 * abs(b.metric)
        else:
            assert d_metric <= 0.05


def _gpu_runs():
    base = dict(ell=8, n_val=40, n_test=60, check_every=100, patience=2, stop_f1=0.9, max_steps=600)
    return [(RunConfig(m=m, d_model=d, n_heads=h, d_k=16 // h, variant=v, **base), s)
            for v in ("max", "softmax", "value") for m, d in ((24, 16), (32, 8)) for h in (1, 4) for s in range(2)]


@pytest.mark.gpu
def test_fused_adamw_on_cuda_graphs_bitwise_and_close_to_stacked():
    # On CUDA: graph replay launches the fused kernel eager launches, reading the step from the same device tensor,
    # so float32 results with graphs on and off are bitwise equal. Against StackedAdamW on CUDA (its own kernels,
    # different roundings: the CUDA fused kernel need not even compute the moments as lerp does) the float32 bound
    # of test_fused_training_float32_close_to_default applies.
    runs = _gpu_runs()
    stats: dict = {}
    graphed = train_runs(runs, device="cuda", keep_weights=True, cuda_graphs=True, stats=stats, optimiser=FusedAdamW)
    assert stats["cuda_graph_replays"] > 0
    eager = train_runs(runs, device="cuda", keep_weights=True, cuda_graphs=False, optimiser=FusedAdamW)
    for a, b in zip(graphed, eager, strict=True):
        assert (a.steps, a.stopped_early, a.tau, a.metric, a.val_history) == (
            b.steps, b.stopped_early, b.tau, b.metric, b.val_history)
        assert _weights_diff(a, b) == 0.0
        assert {k: v for k, v in a.extra.items() if k != "weights"} == {
            k: v for k, v in b.extra.items() if k != "weights"}
    stacked = train_runs(runs, device="cuda", keep_weights=True)
    for a, b in zip(graphed, stacked, strict=True):
        bound = _float32_bound(a, b)
        assert abs(a.tau - b.tau) <= bound and _weights_diff(a, b) <= bound
        if a.config.variant == "value":
            assert abs(a.metric - b.metric) <= 1e-4 * abs(b.metric)
        else:
            assert abs(a.metric - b.metric) <= 0.05
