# App. A.1, App. A.3, Sec. 7.1, Sec. 7.2: the batched training engine (sampler, gradients, AdamW, batch invariance).
import dataclasses
import math
import warnings

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from scipy import stats

from rgr_verify.core.contexts import context_labels, sample_contexts
from rgr_verify.engine import (
    RunConfig,
    build_run_data,
    contexts_from_uniforms,
    draw_uniforms,
    labels_torch,
    plan_batches,
    run_key,
    sample_contexts_torch,
    stacked_adamw_step,
    train_batch,
    train_runs,
)
from rgr_verify.engine.batch import Batch
from rgr_verify.engine.loop import BatchTrainer
from rgr_verify.engine.model import GradBuffers, grad_max_step, grads, logistic_coefs
from rgr_verify.engine.optim import StackedAdamW, adamw_scalar_tables, stacked_adamw_step_on_device
from rgr_verify.engine.sampler import ordered_subset
from rgr_verify.core.graphs import random_permutation_graph, random_regular_graph
from rgr_verify.core.scoring import max_over_heads_scores, softmax_sum_scores, split_heads, value_readout

# False-alarm rate of each distributional test, fixed in advance; seeds are fixed, so the tests are deterministic.
ALPHA = 1e-4


def _nbrs(graph):
    return np.argsort(~graph.adjacency, axis=1, kind="stable")[:, : int(graph.adjacency.sum(1).max())]


@pytest.mark.parametrize("reading", ["literal", "protected"])
@pytest.mark.parametrize("kind", ["permutation", "regular3"])
def test_batched_sampler_matches_reference_distribution(kind, reading):
    # App. A.1 step 1-3 under both readings of step 3: positive-count and vertex-frequency distributions agree with
    # contexts.sample_contexts.
    rng = np.random.default_rng(7)
    graph = random_permutation_graph(40, rng=rng) if kind == "permutation" else random_regular_graph(40, 3, rng=rng)
    n, ell, rho = 6000, 12, 0.5
    ref = sample_contexts(graph, n, ell, rho, rng=np.random.default_rng(11), reading=reading)
    ours = sample_contexts_torch(_nbrs(graph), n, ell, rho, rng=np.random.default_rng(12), reading=reading)
    assert ours.shape == (n, ell)
    assert all(len(set(row)) == ell for row in ours.tolist())  # distinct vertices
    pos_ref = context_labels(graph, ref).sum((1, 2))
    pos_ours = context_labels(graph, ours).sum((1, 2))
    top = int(max(pos_ref.max(), pos_ours.max()))
    table = np.array([np.bincount(pos_ref, minlength=top + 1), np.bincount(pos_ours, minlength=top + 1)])
    table = table[:, table.sum(0) >= 10]  # chi-square validity: pool away empty tails
    assert stats.chi2_contingency(table).pvalue > ALPHA
    freq = np.array([np.bincount(ref.ravel(), minlength=40), np.bincount(ours.ravel(), minlength=40)])
    assert stats.chi2_contingency(freq).pvalue > ALPHA
    # Position of the first context slot is exchangeable too (order matters for the processing order).
    first = np.array([np.bincount(ref[:, 0], minlength=40), np.bincount(ours[:, 0], minlength=40)])
    assert stats.chi2_contingency(first).pvalue > ALPHA


def test_labels_torch_equals_context_labels():
    rng = np.random.default_rng(3)
    graph = random_regular_graph(20, 2, rng=rng)
    ctx = sample_contexts(graph, 50, 8, 0.5, rng=rng)
    ours = labels_torch(torch.as_tensor(_nbrs(graph))[None], torch.as_tensor(ctx)[None])[0].numpy()
    assert np.array_equal(ours, context_labels(graph, ctx))


@pytest.mark.parametrize("dtype", [torch.float64, torch.float32])
def test_stacked_adamw_equals_torch_adamw(dtype):
    gen = torch.Generator().manual_seed(5)
    R, P = 4, 37
    theta = torch.randn(R, P, generator=gen, dtype=dtype)
    refs = [torch.nn.Parameter(theta[r].clone()) for r in range(R)]
    opts = [torch.optim.AdamW([p], lr=1e-3, weight_decay=0.01) for p in refs]
    m, v = torch.zeros_like(theta), torch.zeros_like(theta)
    theta_b, m_b, v_b, buf = theta.clone(), m.clone(), v.clone(), torch.empty_like(theta)
    for step in range(1, 30):
        g = torch.randn(R, P, generator=gen, dtype=dtype)
        g[:, :3] = 0.0  # never-updated coordinates, like the engine's padding
        stacked_adamw_step([theta], [g], [m], [v], step, lr=1e-3, weight_decay=0.01)
        stacked_adamw_step([theta_b], [g], [m_b], [v_b], step, lr=1e-3, weight_decay=0.01, buffers=[buf])
        for r in range(R):
            refs[r].grad = g[r].clone()
            opts[r].step()
    for r in range(R):
        assert torch.equal(theta[r], refs[r].detach())  # bitwise: same ops in the same order
    assert torch.equal(theta_b, theta)  # the in-place (clamped-sqrt) path gives the same values


def _reference_loss(cfg, X, ctx, W_Q, W_K, tau, W_V, y):
    """Loss of one run on one context via rgr_verify.core.scoring (autograd reference)."""
    Xc = X[ctx][None]  # [1, ell, d]
    Q, K = split_heads(W_Q, cfg.n_heads), split_heads(W_K, cfg.n_heads)
    ell = cfg.ell
    if cfg.variant == "value":
        S = max_over_heads_scores(Xc, Q, K)
        yhat = value_readout(S, Xc, W_V)[0]
        target = y @ (Xc[0] @ W_V)
        valid = y.any(-1)
        return ((yhat - target) ** 2).sum(-1)[valid].sum() / max(int(valid.sum()), 1)
    S = (softmax_sum_scores if cfg.variant == "softmax" else max_over_heads_scores)(Xc, Q, K)[0]
    z = cfg.alpha * (S - tau)
    if cfg.pos_weight_mode == "ell-1":
        w = ell - 1.0
    else:
        npos = y.sum()
        w = (ell * ell - npos) / npos if npos > 0 else 0.0
    return (F.softplus(-z) * y * w + F.softplus(z) * (1 - y)).mean()


@pytest.mark.parametrize("variant,graph,r", [("max", "permutation", 1), ("softmax", "permutation", 1),
                                             ("value", "permutation", 1), ("max", "regular", 3)])
def test_hand_gradient_equals_autograd_reference(variant, graph, r):
    # Mixed head counts and widths in one batch exercise the padding and head masks.
    # Mixed m and d_model too: the embedding and neighbour tables are zero-padded.
    shapes = [(1, 6, 24, 6), (2, 3, 30, 6), (4, 2, 24, 4), (3, 5, 20, 8)]
    runs = [(RunConfig(m=m, d_model=d, n_heads=h, d_k=dk, variant=variant, graph=graph, r=r, ell=8,
                       n_val=4, n_test=4, max_steps=500), s) for s, (h, dk, m, d) in enumerate(shapes)]
    batch = Batch(runs, device="cpu", dtype=torch.float64)
    with torch.no_grad():  # move tau off zero so its gradient path is exercised
        batch.theta[:, -1] = 0.05 if variant != "value" else 0.0
    rng = np.random.default_rng(0)
    ctx = torch.as_tensor(np.stack([sample_contexts(d.graph, 1, 8, 0.5, rng=rng) for d in batch.data]))  # [R,1,8]
    y = labels_torch(batch.nbrs, ctx)
    loss, grad = grads(batch, GradBuffers.like(batch.theta), batch.embed(ctx), y)
    for j, (cfg, _) in enumerate(runs):
        w = batch.weights_of(j)
        W_Q = torch.tensor(w["W_Q"], requires_grad=True)
        W_K = torch.tensor(w["W_K"], requires_grad=True)
        tau = torch.tensor(w["tau"], dtype=torch.float64, requires_grad=True)
        X = torch.as_tensor(batch.data[j].X)
        W_V = torch.as_tensor(batch.data[j].W_V) if variant == "value" else None
        ref = _reference_loss(cfg, X, ctx[j, 0], W_Q, W_K, tau, W_V, y[j, 0].double())
        assert math.isclose(float(loss[j]), float(ref.detach()), rel_tol=1e-10, abs_tol=1e-12)
        gq, gk = torch.autograd.grad(ref, [W_Q, W_K], retain_graph=True)
        G = grad[j, :-1].view(batch.d, 2, batch.H, batch.d_k_pad)
        ours_q = G[:cfg.d_model, 0, :cfg.n_heads, :cfg.d_k].reshape(cfg.d_model, cfg.D_K)
        ours_k = G[:cfg.d_model, 1, :cfg.n_heads, :cfg.d_k].reshape(cfg.d_model, cfg.D_K)
        torch.testing.assert_close(ours_q, gq, rtol=1e-9, atol=1e-12)
        torch.testing.assert_close(ours_k, gk, rtol=1e-9, atol=1e-12)
        pad = torch.ones_like(G, dtype=torch.bool)
        pad[:cfg.d_model, :, :cfg.n_heads, :cfg.d_k] = False
        assert bool((G[pad] == 0).all())  # padding gets exactly zero gradient
        if variant != "value":
            (gt,) = torch.autograd.grad(ref, [tau])
            assert math.isclose(float(grad[j, -1]), float(gt), rel_tol=1e-9, abs_tol=1e-12)


def test_batch_invariance_against_solo_runs():
    # A run's result must not depend on its batch-mates: each run of a mixed batch equals its solo run
    # (float64; tolerance 1e-9 on the weights, exact on the step count and the test counts).
    base = dict(ell=8, n_val=40, n_test=60, check_every=40, patience=2, stop_f1=0.9, max_steps=200)
    runs = [(RunConfig(m=24, d_model=8, n_heads=1, d_k=8, **base), 0),
            (RunConfig(m=24, d_model=8, n_heads=4, d_k=4, **base), 1),
            (RunConfig(m=24, d_model=8, n_heads=2, d_k=2, **base), 2),
            (RunConfig(m=32, d_model=4, n_heads=4, d_k=4, **base), 3)]  # other m, d_model: padded tables
    batched = train_batch(runs, dtype=torch.float64, keep_weights=True)
    for (cfg, seed), res in zip(runs, batched):
        solo = train_batch([(cfg, seed)], dtype=torch.float64, keep_weights=True)[0]
        assert res.steps == solo.steps and res.stopped_early == solo.stopped_early
        assert {k: res.extra[k] for k in ("tp", "fp", "fn")} == {k: solo.extra[k] for k in ("tp", "fp", "fn")}
        for name in ("W_Q", "W_K"):
            np.testing.assert_allclose(res.extra["weights"][name], solo.extra["weights"][name], rtol=0, atol=1e-9)
        assert abs(res.tau - solo.tau) <= 1e-9
        np.testing.assert_allclose(res.val_history, solo.val_history, rtol=0, atol=1e-12)


def test_stop_mask_freezes_finished_runs():
    # With an easy stopping rule some runs stop at the first possible check; they report that step count.
    base = dict(m=24, d_model=8, ell=8, n_val=40, n_test=60, check_every=50, patience=1, stop_f1=0.0, max_steps=400)
    res = train_batch([(RunConfig(n_heads=2, d_k=4, **base), s) for s in range(3)], dtype=torch.float64)
    assert all(r.stopped_early and r.steps == 50 for r in res)


def test_run_data_is_a_function_of_the_seed():
    cfg = RunConfig(m=30, d_model=8, n_heads=2, d_k=4, n_val=10, n_test=10)
    a, b = build_run_data(cfg, 4), build_run_data(cfg, 4)
    assert np.array_equal(a.X, b.X) and np.array_equal(a.val, b.val) and np.array_equal(a.W_Q, b.W_Q)
    other = build_run_data(RunConfig(m=30, d_model=8, n_heads=1, d_k=8, n_val=10, n_test=10), 4)
    assert np.array_equal(a.X, other.X) and np.array_equal(a.test, other.test)  # paired across head counts
    assert run_key(cfg, 4) != run_key(cfg, 5)


def test_sampler_readings_differ_and_literal_keys_are_kept():
    # The protected reading keeps the positive rate near rho where the literal one lets it fall; a literal run's key
    # is the key it had before the field existed (the committed evidence replays), a protected run's differs.
    rng = np.random.default_rng(3)
    graph = random_permutation_graph(256, rng=rng)
    rates = {r: context_labels(graph, sample_contexts_torch(_nbrs(graph), 3000, 16, 0.5, rng=np.random.default_rng(4),
                                                            reading=r)).any(axis=2).mean()
             for r in ("literal", "protected")}
    assert rates["protected"] > rates["literal"] + 0.1 and abs(rates["protected"] - 0.45) < 0.08
    cfg = RunConfig(m=64, d_model=16, n_heads=2, d_k=4)
    import hashlib
    import json

    from rgr_verify.engine.config import ENGINE_VERSION

    old = {("d_head" if k == "d_k" else k): v for k, v in cfg.to_dict().items() if k != "sampler"}
    payload = json.dumps({"config": old, "seed": 4, "v": ENGINE_VERSION}, sort_keys=True)
    assert run_key(cfg, 4) == hashlib.sha256(payload.encode()).hexdigest()[:32]
    assert run_key(dataclasses.replace(cfg, sampler="protected"), 4) != run_key(cfg, 4)
    with pytest.raises(ValueError, match="sampler"):
        RunConfig(m=64, d_model=16, n_heads=2, d_k=4, sampler="greedy")


def test_a_protected_run_trains_apart_from_literal_ones():
    from rgr_verify.engine import train_runs

    base = RunConfig(m=16, d_model=8, n_heads=2, d_k=2, ell=4, max_steps=20, check_every=10, n_val=8, n_test=8)
    prot = dataclasses.replace(base, sampler="protected")
    assert base.compat_key() != prot.compat_key()  # never batched together
    res = train_runs([(base, 0), (prot, 0)])
    assert [r.config.sampler for r in res] == ["literal", "protected"]
    assert res[1].to_record()["config"]["sampler"] == "protected"


def test_init_readings():
    std = build_run_data(RunConfig(m=64, d_model=16, n_heads=1, d_k=400, n_val=1, n_test=1), 0).W_Q.std()
    var = build_run_data(RunConfig(m=64, d_model=16, n_heads=1, d_k=400, n_val=1, n_test=1, init="variance"),
                         0).W_Q.std()
    assert abs(std - 0.25) < 0.02 and abs(var - 0.5) < 0.04


def test_plan_batches_groups_by_shape_and_bounds_padding():
    runs = [(RunConfig(m=32, d_model=8, n_heads=h, d_k=dk), 0) for h in (1, 2, 4) for dk in (2, 4, 8)]
    runs.append((RunConfig(m=64, d_model=8, n_heads=1, d_k=2), 0))
    batches = plan_batches(runs, max_waste=2.0)
    assert sorted(len(b) for b in batches) and sum(len(b) for b in batches) == len(runs)
    for b in batches:
        assert len({c.shape_key() for c, _ in b}) == 1
        H = max(c.n_heads for c, _ in b)
        dk = max(c.d_k for c, _ in b)
        assert len(b) == 1 or len(b) * H * dk <= 2.0 * sum(c.D_K for c, _ in b)


@pytest.mark.parametrize("kwargs", [dict(m=1), dict(d_model=0), dict(variant="relu"), dict(graph="permutation", r=2),
                                    dict(init="xavier"), dict(ell=100), dict(max_steps=10)])
def test_run_config_rejects_bad_values(kwargs):
    base = dict(m=32, d_model=8, n_heads=2, d_k=4)
    with pytest.raises(ValueError):
        RunConfig(**{**base, **kwargs})


def test_ordered_subset_is_uniform():
    # Step 1 of App. A.1: every ordered pair of distinct vertices of {0..4} equally likely (20 cells).
    u = torch.as_tensor(np.random.default_rng(1).random((20000, 2)))
    picks = ordered_subset(u, 5).numpy()
    assert np.all(picks[:, 0] != picks[:, 1]) and picks.min() >= 0 and picks.max() <= 4
    counts = np.bincount(picks[:, 0] * 5 + picks[:, 1], minlength=25)
    cells = counts[[a * 5 + b for a in range(5) for b in range(5) if a != b]]
    assert counts.sum() == cells.sum()
    assert stats.chisquare(cells).pvalue > ALPHA


def test_batch_draws_each_runs_own_validation_and_test_contexts():
    runs = [(RunConfig(m=m, d_model=8, n_heads=2, d_k=4, ell=8, n_val=30, n_test=40), s)
            for s, m in enumerate((20, 32, 24))]
    batch = Batch(runs, device="cpu", dtype=torch.float64)
    for j, (cfg, seed) in enumerate(runs):
        solo = build_run_data(cfg, seed)
        assert np.array_equal(batch.val[j].numpy(), solo.val) and np.array_equal(batch.test[j].numpy(), solo.test)


@pytest.mark.parametrize("shapes", [[(1, 6, 24, 6)], [(2, 3, 30, 6), (4, 2, 24, 4), (3, 5, 20, 8)],
                                    [(4, 4, 32, 8), (4, 4, 32, 8)]], ids=["one-head", "mixed", "uniform"])
def test_fast_max_training_step_equals_general_gradient(shapes):
    # The max variant's training step (grad_max_step) must compute exactly what grads() computes (grads is
    # itself tested against autograd above), including head masks and padding of mixed batches.
    runs = [(RunConfig(m=m, d_model=d, n_heads=h, d_k=dk, variant="max", ell=8, n_val=4, n_test=4,
                       max_steps=500), s) for s, (h, dk, m, d) in enumerate(shapes)]
    batch = Batch(runs, device="cpu", dtype=torch.float64)
    bufs = GradBuffers.like(batch.theta)
    with torch.no_grad():
        batch.theta[:, -1] = 0.05
    rng = np.random.default_rng(1)
    ctx = torch.as_tensor(np.stack([sample_contexts(d.graph, 1, 8, 0.5, rng=rng) for d in batch.data]))  # [R,1,8]
    y = labels_torch(batch.nbrs, ctx)
    Xc = batch.embed(ctx)
    A, negB = logistic_coefs(batch, y, 1)
    _, general = grads(batch, bufs, Xc, y, with_loss=False, coef=(A, negB))
    general = general.clone()
    fast = grad_max_step(batch, bufs, Xc[:, 0], A[:, 0], negB[:, 0])
    torch.testing.assert_close(fast, general, rtol=1e-12, atol=1e-14)


# ---- The optimiser seam ----------------------------------------------------------------------------------------

class PlainSGD:
    """theta <- theta - lr grad: the smallest rgr_verify.engine.optim.Optimiser (weight decay ignored)."""

    made: list = []

    def __init__(self, theta, *, lr, weight_decay, max_step):
        self.lr, self.max_step, self.rows, self.steps, self.device_steps = lr, max_step, theta.shape[0], [], 0
        PlainSGD.made.append(self)

    def step(self, theta, grad, step):
        self.steps.append(step)
        theta.sub_(grad * self.lr)

    def prepare_device(self, last_step):
        return False

    def set_device_step(self, step):
        self.steps.append(step)

    def step_on_device(self, theta, grad):
        self.device_steps += 1
        theta.sub_(grad * self.lr)

    def keep(self, idx):
        self.rows = len(idx)


def _first_context_gradient(cfg, seed):
    """The gradient of a fresh run at its initial parameters on its first training context, by hand."""
    ref = Batch([(cfg, seed)], device="cpu", dtype=torch.float64)
    u = draw_uniforms([build_run_data(cfg, seed).stream], 1, cfg.m, cfg.ell)
    ctx = contexts_from_uniforms(ref.nbrs, *u, rho=cfg.rho, m=ref.m_run)
    return ref.theta.clone(), grads(ref, GradBuffers.like(ref.theta), ref.embed(ctx), labels_torch(ref.nbrs, ctx))[1]


@pytest.mark.parametrize("variant", ["max", "softmax", "value"])
def test_optimiser_seam_trains_plain_sgd(variant, monkeypatch):
    # Swapping the optimiser is one class passed in: plain SGD trains through the same loop (stop mask, checks,
    # test results), and one step of it is exactly theta - lr grad on the run's first context.
    monkeypatch.setattr(PlainSGD, "made", [])
    cfg = RunConfig(m=24, d_model=8, n_heads=2, d_k=4, variant=variant, ell=8, n_val=4, n_test=4, max_steps=500)
    theta0, grad = _first_context_gradient(cfg, 3)
    trainer = BatchTrainer([(cfg, 3)], dtype=torch.float64, optimiser=PlainSGD)
    trainer.train_segment(1, sub=1)
    torch.testing.assert_close(trainer.batch.theta, theta0 - cfg.lr * grad, rtol=1e-12, atol=1e-15)
    assert not torch.equal(trainer.batch.theta, theta0)
    runs = [(dataclasses.replace(c, variant=variant), s) for c, s in _leaving_runs()]  # caps 80, 120, 200
    sgd = train_batch(runs, dtype=torch.float64, keep_weights=True, optimiser=PlainSGD)
    opt = PlainSGD.made[-1]
    assert opt.max_step == 200 and opt.steps == list(range(1, 201)) and opt.rows < len(runs)
    assert all(r.steps % 40 == 0 and r.steps <= c.max_steps for r, (c, _) in zip(sgd, runs))


def test_optimiser_seam_device_step_path():
    # The device-step path (max variant on CUDA; here on CPU with a Python "replay") drives the same optimiser
    # through set_device_step / step_on_device, and gives bitwise the host-step result.
    runs = _leaving_runs()[:3]
    host = BatchTrainer(runs, optimiser=PlainSGD)
    fake = BatchTrainer(runs, optimiser=PlainSGD, device_step=True, cuda_graphs=True)
    fake.graphs.record = lambda steps, static: (lambda: steps(*static))
    for b in (host, fake):
        b.train_segment(40, sub=10)
    assert fake.optimiser.device_steps == 40 and fake.optimiser.steps == [0, 10, 20, 30] and fake.graphs.replays == 3
    assert torch.equal(fake.batch.theta, host.batch.theta)


@pytest.mark.parametrize("dtype", [torch.float64, torch.float32])
def test_default_optimiser_is_torch_adamw_bitwise(dtype):
    # The default Optimiser, StackedAdamW, through its seam methods (host steps, rows leaving, then device steps)
    # is bitwise one torch.optim.AdamW per run.
    gen = torch.Generator().manual_seed(9)
    R, P = 4, 41
    theta = torch.randn(R, P, generator=gen, dtype=dtype)
    theta[:, :4] = 0.0
    refs = [torch.nn.Parameter(theta[r].clone()) for r in range(R)]
    opts = [torch.optim.AdamW([p], lr=1e-3, weight_decay=0.01) for p in refs]
    opt = StackedAdamW(theta, lr=1e-3, weight_decay=0.01, max_step=20)
    rows = list(range(R))
    for step in range(1, 41):
        if step == 21:
            rows = [0, 2, 3]
            idx = torch.as_tensor(rows)
            theta = theta[idx].contiguous()
            opt.keep(idx)
        g = torch.randn(len(rows), P, generator=gen, dtype=dtype)
        g[:, :4] = 0.0
        for k, r in enumerate(rows):
            refs[r].grad = g[k].clone()
            opts[r].step()
        if step <= 20:
            opt.step(theta, g, step)
        else:
            assert opt.prepare_device(40) is (step == 21)  # tables built once, covering step 40
            opt.set_device_step(step - 1)
            opt.step_on_device(theta, g.clone())
    for k, r in enumerate(rows):
        assert torch.equal(theta[k], refs[r].detach())
    with pytest.raises(ValueError, match="lr"):
        StackedAdamW(theta, lr=0.0, weight_decay=0.0, max_step=1)


# ---- CUDA path: prefetched uniforms, device-scalar AdamW, CUDA graphs ----------------------------------------

def _leaving_runs():
    """A mixed max-variant batch whose runs leave at different checks (caps 80, 120, 200; early stops)."""
    base = dict(ell=8, n_val=40, n_test=60, check_every=40, patience=2, stop_f1=0.9)
    return [(RunConfig(m=24, d_model=8, n_heads=1, d_k=8, max_steps=200, **base), 0),
            (RunConfig(m=24, d_model=8, n_heads=4, d_k=4, max_steps=80, **base), 1),
            (RunConfig(m=24, d_model=8, n_heads=2, d_k=2, max_steps=200, **base), 2),
            (RunConfig(m=32, d_model=4, n_heads=4, d_k=4, max_steps=120, **base), 3)]


def _assert_same_results(got, want, atol=0.0):
    for a, b in zip(got, want, strict=True):
        assert (a.config, a.seed, a.steps, a.stopped_early) == (b.config, b.seed, b.steps, b.stopped_early)
        if a.config.variant == "value" and atol > 0:  # MSEs: sums of squares, equal up to summation order
            np.testing.assert_allclose([a.metric, *a.val_history, a.extra["test_sse"]],
                                       [b.metric, *b.val_history, b.extra["test_sse"]], rtol=atol)
            assert a.extra["test_valid"] == b.extra["test_valid"]
        else:
            assert {k: v for k, v in a.extra.items() if k != "weights"} == {
                k: v for k, v in b.extra.items() if k != "weights"}
            assert a.metric == b.metric and a.val_history == b.val_history
        assert abs(a.tau - b.tau) <= atol
        for name in ("W_Q", "W_K"):
            np.testing.assert_allclose(a.extra["weights"][name], b.extra["weights"][name], rtol=0, atol=atol)


def test_prefetched_uniforms_leave_results_unchanged(monkeypatch):
    # Drawing the next segment's uniforms in a worker thread (for every run still in the batch, then dropping
    # the rows of runs that leave) must not change any run's training contexts: results bitwise equal.
    dropped = []
    keep = BatchTrainer.keep

    def spy(self, rows):
        dropped.append(self.uniforms.prefetched is not None and len(rows) < len(self.batch.alive))
        keep(self, rows)

    monkeypatch.setattr(BatchTrainer, "keep", spy)
    runs = _leaving_runs()
    with_prefetch = train_batch(runs, keep_weights=True, prefetch=True)
    assert any(dropped)  # some prefetched block lost rows
    assert len({r.steps for r in with_prefetch}) > 1
    _assert_same_results(with_prefetch, train_batch(runs, keep_weights=True, prefetch=False))


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("weight_decay", [0.0, 0.01])
def test_device_scalar_adamw_equals_stacked_adamw_bitwise(dtype, weight_decay):
    # The graph-capturable AdamW (step counter and bias corrections as tensors) is bitwise the host-step AdamW.
    gen = torch.Generator().manual_seed(5)
    theta = torch.randn(3, 200, generator=gen, dtype=dtype)
    theta[:, :5] = 0.0  # padding: zero, with zero gradient
    m, v, buf = torch.zeros_like(theta), torch.zeros_like(theta), torch.empty_like(theta)
    theta_d, m_d, v_d, buf_d, g_d = theta.clone(), m.clone(), v.clone(), torch.empty_like(theta), torch.empty_like(theta)
    step = torch.zeros((), dtype=torch.long)
    tables = torch.as_tensor(adamw_scalar_tables(60, lr=1e-3), dtype=dtype)
    for t in range(1, 61):
        g = torch.randn(3, 200, generator=gen, dtype=dtype) * 10.0 ** (t % 7 - 5)  # gradients from 1e-5 to 10
        g[:, :5] = 0.0
        stacked_adamw_step([theta], [g], [m], [v], t, lr=1e-3, weight_decay=weight_decay, buffers=[buf])
        stacked_adamw_step_on_device(theta_d, g_d.copy_(g), m_d, v_d, step, tables, buf_d, lr=1e-3,
                                     weight_decay=weight_decay)
        assert torch.equal(theta_d, theta) and torch.equal(m_d, m) and torch.equal(v_d, v)
    assert int(step) == 60


def test_device_step_training_equals_host_step_on_cpu():
    # The CUDA training loop (device-scalar AdamW; graph capture replaced by a Python replay of the same steps on
    # the static inputs) run on CPU gives bitwise the host-step parameters, across chunk lengths 15 and 5 and
    # a change of the batch's rows (which must drop the recorded chunks).
    runs = [(RunConfig(m=m, d_model=d, n_heads=h, d_k=dk, ell=8, n_val=4, n_test=4, max_steps=500), s)
            for s, (h, dk, m, d) in enumerate([(2, 3, 30, 6), (4, 2, 24, 4), (1, 5, 20, 8)])]
    host = BatchTrainer(runs, device="cpu", dtype=torch.float32)
    eager = BatchTrainer(runs, device="cpu", dtype=torch.float32, device_step=True)
    fake = BatchTrainer(runs, device="cpu", dtype=torch.float32, device_step=True, cuda_graphs=True)
    fake.graphs.record = lambda steps, static: (lambda: steps(*static))
    # a capture that fails: warn once, train eagerly
    broken = BatchTrainer(runs, device="cpu", dtype=torch.float32, device_step=True, cuda_graphs=True)

    def refuse(steps, static):
        raise RuntimeError("capture refused")

    broken.graphs.record = refuse
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for rows in (None, [0, 2]):
            for b in (host, eager, fake, broken):
                if rows is not None:
                    b.keep(rows)
                for _ in range(2):
                    b.train_segment(35, sub=15)
    assert [str(w.message) for w in caught] == [
        "CUDA graph capture failed (RuntimeError: capture refused); training eagerly"]
    for b in (eager, fake, broken):
        assert b.step == host.step == 140 and int(b.optimiser.step_t) == host.step
        assert torch.equal(b.batch.theta, host.batch.theta)
        for name in ("exp_avg", "exp_avg_sq"):
            assert torch.equal(getattr(b.optimiser, name), getattr(host.optimiser, name)), name
    # Per row set: chunks 15, 15, 5 | 15, 15, 5, of which all but the first of each length are replays.
    assert fake.graphs.replays == 8 and eager.graphs.replays == broken.graphs.replays == 0


def test_cuda_graphs_switch(monkeypatch):
    from rgr_verify.engine import cuda_graphs_enabled

    monkeypatch.delenv("RGR_VERIFY_CUDA_GRAPHS", raising=False)
    assert cuda_graphs_enabled()
    monkeypatch.setenv("RGR_VERIFY_CUDA_GRAPHS", "0")
    assert not cuda_graphs_enabled()
    monkeypatch.setenv("RGR_VERIFY_CUDA_GRAPHS", "yes")
    with pytest.raises(ValueError, match="RGR_VERIFY_CUDA_GRAPHS"):
        cuda_graphs_enabled()
    monkeypatch.setenv("RGR_VERIFY_CUDA_GRAPHS", "1")
    for kwargs in (dict(prefetch=1), dict(cuda_graphs="no"), dict(stats=[])):
        with pytest.raises(ValueError, match=next(iter(kwargs))):
            train_batch(_leaving_runs(), **kwargs)


def test_bench_reports_cuda_graphs_off_on_cpu():
    from rgr_verify.perf.bench import run_bench

    res = run_bench([RunConfig(m=20, d_model=8, n_heads=2, d_k=4, ell=8, n_val=10, n_test=10, check_every=10)],
                    [0], steps=20, naive_runs=1)
    assert res.to_dict()["cuda_graphs"] is False


@pytest.mark.gpu
@pytest.mark.parametrize("variant", ["max", "softmax", "value"])
@pytest.mark.parametrize("graphs", [True, False], ids=["graphs", "eager"])
def test_cuda_training_matches_cpu_float64(graphs, variant):
    # The CUDA path (device sampling and labels, device-scalar AdamW, CUDA graphs or not) against the CPU run,
    # both in float64: contexts are the same integers (same uniforms, exact float64 products and comparisons);
    # only summation orders differ, so weights and tau agree within 1e-9 (as batch-mates do in
    # test_batch_invariance_against_solo_runs), and step counts, test counts and validation F1 exactly.
    runs = [(dataclasses.replace(c, variant=variant), s) for c, s in _leaving_runs()]
    stats: dict = {}
    got = train_batch(runs, device="cuda", dtype=torch.float64, keep_weights=True, cuda_graphs=graphs, stats=stats)
    assert (stats["cuda_graph_replays"] > 0) == graphs
    _assert_same_results(got, train_batch(runs, dtype=torch.float64, keep_weights=True), atol=1e-9)


@pytest.mark.gpu
@pytest.mark.parametrize("variant", ["max", "softmax", "value"])
@pytest.mark.parametrize("which", ["leaving", "bench-shape"])
def test_cuda_graph_replay_equals_cuda_eager_exactly(which, variant):
    # Graph replay launches the kernels the eager device-scalar path launches, on the same inputs: float32
    # results must be bitwise equal. "bench-shape" uses the sweep's chunk of 100 steps and 500-step segments.
    if which == "leaving":
        runs = _leaving_runs()
    else:
        runs = [(RunConfig(m=64, d_model=32, n_heads=h, d_k=32 // h, max_steps=1000, patience=10**6), s)
                for h in (1, 4) for s in range(4)]
    runs = [(dataclasses.replace(c, variant=variant), s) for c, s in runs]
    stats: dict = {}
    graphed = train_batch(runs, device="cuda", keep_weights=True, cuda_graphs=True, stats=stats)
    assert stats["cuda_graph_replays"] > 0
    _assert_same_results(graphed, train_batch(runs, device="cuda", keep_weights=True, cuda_graphs=False))


@pytest.mark.parametrize("variant", ["softmax", "value"])
def test_device_step_path_all_variants_bitwise_on_cpu(variant):
    # On CUDA every variant now trains with the step count on the device, in captured chunks; on CPU (a Python
    # "replay" standing in for the graph) that path gives bitwise the host-step path's parameters.
    runs = [(dataclasses.replace(c, variant=variant), s) for c, s in _leaving_runs()[:3]]
    host = BatchTrainer(runs)
    dev = BatchTrainer(runs, device_step=True, cuda_graphs=True)
    dev.graphs.record = lambda steps, static: (lambda: steps(*static))
    for b in (host, dev):
        b.train_segment(40, sub=10)
    assert dev.graphs.replays == 3
    assert torch.equal(dev.batch.theta, host.batch.theta)


def test_train_runs_streams_validated():
    runs = _leaving_runs()[:2]
    with pytest.raises(ValueError, match="streams"):
        train_runs(runs, streams=2)  # several streams need CUDA
    with pytest.raises(ValueError, match="streams"):
        train_runs(runs, streams=0)


@pytest.mark.gpu
def test_cuda_streams_equal_one_stream_exactly():
    # Batches trained at once on their own CUDA streams (threads, relaxed capture mode, one capture at a time)
    # compute exactly what they compute one after another.
    runs = [(RunConfig(m=m, d_model=d, n_heads=h, d_k=16 // h, max_steps=1000, patience=10**6), s)
            for m, d in ((32, 16), (64, 32), (64, 8)) for h in (1, 4) for s in range(3)]
    assert len(plan_batches(runs)) == 3  # one batch per d_model
    seen: list = []
    stats: dict = {}
    many = train_runs(runs, device="cuda", streams=3, keep_weights=True, on_result=seen.append, stats=stats)
    one = train_runs(runs, device="cuda", streams=1, keep_weights=True)
    _assert_same_results(many, one)
    assert sorted((r.config.m, r.config.d_model, r.config.n_heads, r.seed) for r in seen) == sorted(
        (c.m, c.d_model, c.n_heads, s) for c, s in runs)
    assert stats["cuda_graph_replays"] > 0


@pytest.mark.parametrize("variant", ["max", "softmax"])
def test_batch_shares_the_fixed_sets_of_runs_with_one_m_and_seed_bitwise(variant):
    # Runs with the same (m, seed) share validation/test contexts, labels and pair counts, computed once and
    # indexed out: every row must equal that run's own batch (mixed m: padded rows compared on their m x m block).
    kw = dict(d_model=8, ell=8, n_val=40, n_test=60, variant=variant)
    runs = [(RunConfig(m=20, n_heads=1, d_k=4, **kw), 0), (RunConfig(m=20, n_heads=2, d_k=2, **kw), 0),
            (RunConfig(m=16, n_heads=1, d_k=4, **kw), 0), (RunConfig(m=20, n_heads=1, d_k=3, **kw), 1),
            (RunConfig(m=16, n_heads=2, d_k=4, **kw), 0)]
    b = Batch(runs, device="cpu", dtype=torch.float32)
    M = b.nbrs.shape[1]
    for j, run in enumerate(runs):
        solo = Batch([run], device="cpu", dtype=torch.float32)
        for name in ("val", "test", "val_y"):
            assert torch.equal(getattr(b, name)[j], getattr(solo, name)[0]), (j, name)
        if variant == "max":
            m = run[0].m
            for name in ("val_pairs", "test_pairs"):
                got = getattr(b, name)[j].view(2, M, M)
                assert torch.equal(got[:, :m, :m], getattr(solo, name)[0].view(2, m, m)) and got.sum() == got[:, :m, :m].sum()
        else:
            assert b.val_pairs is None
