# Sec. 7.3: the keyless, mixed-cell block of rgr_verify.models.transformer_v3 against today's block of
# rgr_verify.models.transformer (the same function; any (D_K, h) in one batch; padding that stays exactly zero).
import contextlib
import math

import numpy as np
import pytest
import torch
import torch.nn.functional as F

import rgr_verify.models.transformer as T
from rgr_verify.models.embedding_sources import GaussianSource
from rgr_verify.models.transformer import RunSpec, block_inputs, block_logits, head_layout, init_block_params
from rgr_verify.models.transformer_task import moved_items, pack_runs, run_generator, sample_permutation, stack_examples
import rgr_verify.models.transformer_v3 as V3
from rgr_verify.models.transformer_v3 import (PARAM_NAMES, block_logits_v3, evaluate_v3, init_block_params_v3, layout_v3,
                                       train_step_v3)

# A mixed batch: h = 1, 2, 4 and 8, several D_K, some narrower than Dmax (padded key columns) and some with
# fewer heads than Hmax (unused head slots).
MIXED = [RunSpec(8, 1, 1), RunSpec(16, 8, 2), RunSpec(8, 2, 3), RunSpec(32, 4, 4), RunSpec(24, 8, 5),
         RunSpec(4, 1, 6), RunSpec(32, 2, 7)]
D_MODEL, D_FF, DMAX, HMAX = 16, 16, 32, 8


@pytest.fixture(autouse=True)
def one_thread():
    # As train_block_runs does on a CPU: one thread, so that sums do not depend on the machine's core count.
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


def _table(m, d, seed, dtype=torch.float32):
    return torch.tensor(GaussianSource(d).table(m, rng=np.random.default_rng(seed)).E, dtype=dtype)


def _packed(specs, m):
    perms = [sample_permutation(m, generator=run_generator(s.seed, 2)) for s in specs]
    return pack_runs(perms, [moved_items(p) for p in perms])


def _max_rel(a, b):
    """max |a - b| / max |b| (0 when both are zero)."""
    scale = b.abs().max().item()
    diff = (a - b).abs().max().item()
    return diff / scale if scale > 0 else diff


def _own(name, t, spec):
    """Run ``spec``'s own part of a v3 parameter block (its D_K key columns)."""
    return t[:, : spec.D_K] if name in ("W_Q", "W_K") else t


def _nontrivial_params(specs, seed=9):
    """float64 v3 parameters with a large init and random LayerNorm gains/biases and MLP biases."""
    p = {k: v.double() for k, v in init_block_params_v3(specs, D_MODEL, D_FF, DMAX, HMAX, init_std=0.5).items()}
    g = torch.Generator().manual_seed(seed)
    for k in p:
        if k.startswith("ln") or k.startswith("b_"):
            p[k] = p[k] + 0.3 * torch.randn(p[k].shape, generator=g, dtype=torch.float64)
    return p


def _identity_report(logits_fn, specs, p, X, E, label):
    """The largest relative differences between a v3 forward/backward (``logits_fn``) on the mixed batch and
    today's block on each run alone: {(run, 'logits' or parameter name): max relative difference}."""
    v3 = {k: v.clone().requires_grad_() for k, v in p.items()}
    layout = layout_v3(specs, DMAX, HMAX, D_MODEL).to(dtype=torch.float64)
    logits = logits_fn(v3, X, E, layout)
    R, B = label.shape
    F.cross_entropy(logits.reshape(R * B, -1), label.reshape(-1), reduction="sum").div(B).backward()
    out = {}
    for r, s in enumerate(specs):
        alone = {k: _own(k, p[k][r], s)[None].clone().requires_grad_() for k in PARAM_NAMES}
        G, scale = head_layout([s], s.D_K, "cpu")
        ref = block_logits(alone, X[r : r + 1], E, G.double(), scale)
        F.cross_entropy(ref[0], label[r], reduction="sum").div(B).backward()
        out[r, "logits"] = _max_rel(logits[r].detach(), ref[0].detach())
        for k in PARAM_NAMES:  # not vacuous: every parameter of every run carries gradient
            assert alone[k].grad.abs().max() > 1e-8, (r, k)
            grad = v3[k].grad
            out[r, k] = math.inf if grad is None else _max_rel(_own(k, grad[r], s), alone[k].grad[0])
    return out


def _mixed_inputs(specs, m=20, ell=3, B=6, dtype=torch.float64):
    E = _table(m, D_MODEL, 3, dtype)
    pairs, query, label = stack_examples(_packed(specs, m), B, ell, [run_generator(s.seed, 5) for s in specs])
    return block_inputs(E, pairs, query), E, label


def test_block_v3_float64_identity_mixed_batch():
    # Logits and every parameter gradient of each run of a mixed batch equal today's block on that run alone.
    specs = MIXED
    assert {1, 8} < {s.n_heads for s in specs} and len({s.D_K for s in specs}) >= 4
    p = _nontrivial_params(specs)
    X, E, label = _mixed_inputs(specs)
    report = _identity_report(block_logits_v3, specs, p, X, E, label)
    worst = max(report.values())
    assert worst <= 1e-12, {k: v for k, v in report.items() if v > 1e-12}
    # The comparison is not vacuous: the attention, the LayerNorms and the MLP all carry gradient in every run.
    assert len(report) == len(specs) * (len(PARAM_NAMES) + 1)


@pytest.mark.parametrize("dropped", ["ln1_b", "ln1_w"])
def test_block_v3_float64_identity_can_fail_on_a_dropped_ln1_term_mixed(dropped):
    # Planted alternatives: a v3 block that drops LayerNorm-1's bias (it enters the query and, through the folded
    # b W_V, the values) or its gain (folded into W_K and W_V) fails the same comparison.
    def dropped_term(params, X, E, layout):
        neutral = torch.zeros_like if dropped == "ln1_b" else torch.ones_like
        return block_logits_v3({**params, dropped: neutral(params[dropped])}, X, E, layout)

    specs = MIXED
    p = _nontrivial_params(specs)
    X, E, label = _mixed_inputs(specs)
    report = _identity_report(dropped_term, specs, p, X, E, label)
    for r in range(len(specs)):
        assert report[r, "logits"] > 1e-6 and report[r, dropped] == math.inf, r
        assert report[r, "W_Q"] > 1e-6 and report[r, "W_K"] > 1e-6, r


def test_block_v3_float64_slot_scores_gradcheck_mixed():
    # The keyless scores' hand-written backward against finite differences, on a mixed layout with padding.
    specs = [RunSpec(4, 1, 1), RunSpec(6, 3, 2), RunSpec(8, 2, 3)]
    layout = layout_v3(specs, 8, 4, 6).to(dtype=torch.float64)
    g = torch.Generator().manual_seed(0)
    u = torch.randn(3, 2, 5, 6, generator=g, dtype=torch.float64, requires_grad=True)
    q = torch.randn(3, 2, 8, generator=g, dtype=torch.float64, requires_grad=True)
    W = torch.randn(3, 6, 8, generator=g, dtype=torch.float64, requires_grad=True)
    Gt = layout.G.transpose(1, 2).contiguous()
    assert torch.autograd.gradcheck(lambda u, q, W: V3._SlotScores.apply(u, q, W, Gt), (u, q, W))
    # And against the keys formed explicitly.
    keys = torch.matmul(u, W[:, None])  # [R, B, L, D]
    explicit = torch.einsum("rbc,rblc,rck->rbkl", q, keys, layout.G)
    assert _max_rel(V3._SlotScores.apply(u, q, W, Gt), explicit) <= 1e-13


def _padding_violations(params, layout) -> int:
    """Non-zero entries of W_Q / W_K on key columns that belong to no head."""
    pad = layout.key_mask == 0  # [R, 1, Dmax]
    return sum(int(torch.count_nonzero(params[k].detach() * pad)) for k in ("W_Q", "W_K"))


PADDED = [RunSpec(8, 1, 11), RunSpec(16, 2, 12), RunSpec(24, 4, 13), RunSpec(32, 8, 14), RunSpec(4, 4, 15)]


def _optimisers():
    kinds = [("foreach=False", dict(foreach=False))]
    try:  # the project's choice (_train_group): the fused kernel, on CPUs too where torch has it
        torch.optim.AdamW([torch.zeros(1, requires_grad=True)], fused=True)
        kinds.append(("fused=True", dict(fused=True)))
    except (RuntimeError, ValueError):
        pass
    return kinds


def _train_unmasked(params, layout, E, specs, m, ell, B, steps, opt_kw):
    params = {k: v.clone().requires_grad_() for k, v in params.items()}
    opt = torch.optim.AdamW(list(params.values()), lr=1e-2, weight_decay=0.01, **opt_kw)
    packed, gens = _packed(specs, m), [run_generator(s.seed, 5) for s in specs]
    losses = []
    for _ in range(steps):
        batch = stack_examples(packed, B, ell, gens)
        losses.append(train_step_v3(params, opt, E, layout, batch, batch_size=B, reapply_mask=False))
    return params, torch.stack(losses)


def test_block_v3_padding_stays_zero_sec73():
    specs, m, ell, B = PADDED, 12, 2, 8
    E = _table(m, D_MODEL, 4)
    layout = layout_v3(specs, DMAX, HMAX, D_MODEL)
    init = init_block_params_v3(specs, D_MODEL, D_FF, DMAX, HMAX)
    assert _padding_violations(init, layout) == 0
    # One backward: padded key columns, unused head slots and the value columns a slot does not own get exactly
    # zero gradient.
    p = {k: v.clone().requires_grad_() for k, v in init.items()}
    pairs, query, label = stack_examples(_packed(specs, m), B, ell, [run_generator(s.seed, 5) for s in specs])
    keep = {}
    logits = block_logits_v3(p, block_inputs(E, pairs, query), E, layout, keep=keep)
    for t in keep.values():
        t.retain_grad()
    F.cross_entropy(logits.reshape(len(specs) * B, -1), label.reshape(-1)).backward()
    pad = layout.key_mask == 0
    for k in ("W_Q", "W_K"):
        assert torch.count_nonzero(p[k].grad * pad) == 0, k
        assert torch.count_nonzero(p[k].grad * ~pad) > 0, k  # the real columns do learn
    unused = (layout.slot_mask == 0)[:, None, :]  # [R, 1, H]
    assert bool(unused.any())
    for name in ("scores", "attn", "z", "y"):
        grad = keep[name].grad  # [R, B, H, ...]
        assert torch.count_nonzero(grad * unused[..., None]) == 0, name
    assert torch.count_nonzero(keep["attn"] * unused[..., None]) == 0  # unused slots carry no weight ...
    assert torch.isfinite(keep["scores"]).all() and torch.isfinite(logits).all()  # ... and no NaN
    not_owned = (layout.GV.transpose(1, 2) == 0)[:, None]  # [R, 1, H, d]: value column not owned by the slot
    assert torch.count_nonzero(keep["y"].grad * not_owned) == 0
    # 200+ AdamW steps without re-applying the mask: the padding stays exactly zero; a planted non-zero padded
    # column is detected.
    planted = {k: v.clone() for k, v in init.items()}
    planted["W_K"][0, 3, specs[0].D_K] = 1e-3
    assert _padding_violations(planted, layout) == 1
    for label_, kw in _optimisers():
        trained, losses = _train_unmasked(init, layout, E, specs, m, ell, B, 210, kw)
        assert torch.isfinite(losses).all() and all(torch.isfinite(v).all() for v in trained.values()), label_
        assert _padding_violations(trained, layout) == 0, label_
        assert losses[-10:].mean() < losses[:10].mean(), label_  # it trained
        bad, _ = _train_unmasked(planted, layout, E, specs, m, ell, B, 10, kw)  # a few steps: the plant survives
        assert _padding_violations(bad, layout) == 1, label_


def test_block_v3_init_matches_today_per_run_mixed():
    specs = MIXED + [RunSpec(16, 1, 1), RunSpec(16, 4, 1)]  # one seed at several cells: same draws, own shapes
    for init_std in (0.02, 0.5):
        v3 = init_block_params_v3(specs, D_MODEL, D_FF, DMAX, HMAX, init_std=init_std)
        assert tuple(v3) == PARAM_NAMES
        for r, s in enumerate(specs):
            today = init_block_params([s], D_MODEL, D_FF, init_std=init_std)
            assert set(today) == set(v3)
            for k in PARAM_NAMES:
                assert v3[k].dtype == today[k].dtype == torch.float32
                assert torch.equal(_own(k, v3[k][r], s), today[k][0]), (r, k)
            for k in ("W_Q", "W_K"):
                assert torch.count_nonzero(v3[k][r][:, s.D_K :]) == 0, (r, k)


def test_block_v3_rejects_bad_input_mixed():
    with pytest.raises(ValueError, match="Dmax"):
        layout_v3([RunSpec(64, 2, 0)], 32, 8, 16)
    with pytest.raises(ValueError, match="Hmax"):
        layout_v3([RunSpec(16, 8, 0)], 32, 4, 16)
    with pytest.raises(ValueError, match="divide d_model"):
        init_block_params_v3([RunSpec(12, 3, 0)], 16, 8, 32, 8)
    with pytest.raises(ValueError, match="RunSpec"):
        layout_v3([], 32, 8, 16)
    with pytest.raises(ValueError, match="Hmax must be an integer >= 1"):
        layout_v3([RunSpec(8, 1, 0)], 32, 0, 16)
    specs = [RunSpec(8, 1, 0), RunSpec(16, 4, 1)]
    p = init_block_params_v3(specs, 16, 8, 32, 8)
    E = torch.zeros(10, 16)
    with pytest.raises(ValueError, match="layout is for R = 2"):
        block_logits_v3(p, torch.zeros(3, 2, 4, 16), E, layout_v3(specs, 32, 8, 16))
    with pytest.raises(ValueError, match="W_Q"):
        block_logits_v3(p, torch.zeros(2, 2, 4, 16), E, layout_v3(specs, 24, 8, 16))
    with pytest.raises(ValueError, match="X must be"):
        block_logits_v3(p, torch.zeros(2, 4, 16), E, layout_v3(specs, 32, 8, 16))
    with pytest.raises(ValueError, match="params must be a dict"):
        block_logits_v3({"W_Q": p["W_Q"]}, torch.zeros(2, 2, 4, 16), E, layout_v3(specs, 32, 8, 16))


SIXTEEN = [RunSpec(D_K, h, 100 + 4 * i + j) for i, D_K in enumerate((8, 16, 24, 32))
           for j, h in enumerate((1, 2, 4, 8))]


def _train_v3(specs, E, m, ell, B, steps, n_eval, Dmax, Hmax):
    """Per-run losses ``[steps, R]`` and eval accuracy ``[R]`` of v3 trained as _train_group does (fused AdamW)."""
    layout = layout_v3(specs, Dmax, Hmax, E.shape[1])
    params = {k: v.requires_grad_() for k, v in init_block_params_v3(specs, E.shape[1], D_FF, Dmax, Hmax).items()}
    opt = torch.optim.AdamW(list(params.values()), lr=1e-3, weight_decay=0.01, fused=True)
    packed, gens = _packed(specs, m), [run_generator(s.seed, 5) for s in specs]
    losses = [train_step_v3(params, opt, E, layout, stack_examples(packed, B, ell, gens), batch_size=B)
              for _ in range(steps)]
    evals = stack_examples(packed, n_eval, ell, [run_generator(s.seed, 3) for s in specs])
    acc, _ = evaluate_v3(params, E, layout, evals)
    return torch.stack(losses), acc


def _train_today_alone(spec, E, m, ell, B, steps, n_eval):
    """Today's block on one run alone: losses ``[steps]`` and eval accuracy, with today's step and evaluation."""
    params = {k: v.requires_grad_() for k, v in init_block_params([spec], E.shape[1], D_FF).items()}
    G, scale = head_layout([spec], spec.D_K, "cpu")
    mask = (G.sum(-1) > 0).float()[:, None, :]
    opt = torch.optim.AdamW(list(params.values()), lr=1e-3, weight_decay=0.01, fused=True)
    packed, gens = _packed([spec], m), [run_generator(spec.seed, 5)]
    losses = [T._train_step(params, opt, E, G, scale, mask, stack_examples(packed, B, ell, gens),
                            autocast=contextlib.nullcontext, batch_size=B) for _ in range(steps)]
    evals = stack_examples(packed, n_eval, ell, [run_generator(spec.seed, 3)])
    acc, _ = T._evaluate(params, E, G, scale, evals, autocast=contextlib.nullcontext)
    return torch.stack(losses), acc[0]


def test_block_v3_float32_trajectory_sec73():
    # float32, identical data: a 16-cell mixed v3 batch follows today's block run by run (losses within 1e-4,
    # accuracies within 2 examples of 256), and a run alone in v3 follows the same run inside the batch.
    m, ell, B, steps, n_eval = 24, 3, 16, 8, 256
    E = _table(m, D_MODEL, 5)
    assert len({(s.D_K, s.n_heads) for s in SIXTEEN}) == 16
    loss_v3, acc_v3 = _train_v3(SIXTEEN, E, m, ell, B, steps, n_eval, DMAX, HMAX)
    assert loss_v3.shape == (steps, 16)
    worst_loss = worst_acc = 0.0
    for r, s in enumerate(SIXTEEN):
        loss_today, acc_today = _train_today_alone(s, E, m, ell, B, steps, n_eval)
        worst_loss = max(worst_loss, (loss_v3[:, r] - loss_today).abs().max().item())
        worst_acc = max(worst_acc, abs(acc_v3[r].item() - acc_today.item()))
    assert worst_loss <= 1e-4 and worst_acc <= 2 / 256, (worst_loss, worst_acc)
    for r in (0, 6, 15):  # h = 1, D_K = 8; h = 4, D_K = 16; h = 8, D_K = 32: alone, in its own narrow layout
        s = SIXTEEN[r]
        loss_alone, acc_alone = _train_v3([s], E, m, ell, B, steps, n_eval, s.D_K, s.n_heads)
        assert (loss_alone[:, 0] - loss_v3[:, r]).abs().max().item() <= 1e-4, s
        assert abs(acc_alone[0].item() - acc_v3[r].item()) <= 2 / 256, s
    assert (loss_v3[-1] < loss_v3[0]).float().mean() > 0.5  # the runs do train


def test_block_v3_bf16_autocast_step_is_finite_and_keeps_padding_sec73():
    # The autocast branch (CPU bfloat16 here; CUDA in training): finite, close to float32, padding untouched.
    specs, m, ell, B = PADDED, 12, 2, 8
    E = _table(m, D_MODEL, 6)
    layout = layout_v3(specs, DMAX, HMAX, D_MODEL)
    init = init_block_params_v3(specs, D_MODEL, D_FF, DMAX, HMAX, init_std=0.3)
    pairs, query, label = stack_examples(_packed(specs, m), B, ell, [run_generator(s.seed, 5) for s in specs])
    X = block_inputs(E, pairs, query)
    full = block_logits_v3(init, X, E, layout)
    p = {k: v.clone().requires_grad_() for k, v in init.items()}
    with torch.autocast("cpu", dtype=torch.bfloat16):
        low = block_logits_v3(p, X, E, layout)
    assert low.dtype == torch.bfloat16
    assert _max_rel(low.float(), full) < 5e-2
    F.cross_entropy(low.float().reshape(len(specs) * B, -1), label.reshape(-1)).backward()
    for k in PARAM_NAMES:
        assert p[k].grad is not None and p[k].grad.dtype == torch.float32 and torch.isfinite(p[k].grad).all(), k
    pad = layout.key_mask == 0
    assert torch.count_nonzero(p["W_K"].grad * pad) == 0 and torch.count_nonzero(p["W_Q"].grad * pad) == 0
