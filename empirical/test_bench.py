# The torch.func baseline of `rgr-verify bench` (rgr_verify.perf.bench.torchfunc_train, RunModel): it trains exactly the
# engine's runs (weights, tau, validation history and test F1 against the engine; per-step losses against a plain
# single-run autograd loop on the same contexts), and the bench reports its rate and the engine's ratio against it.
# The profile's phase breakdown and the floor of a stacked step (rgr_verify.perf.floor) are checked at the end (names
# contain "floor" or "phase": `pytest empirical/test_bench.py -k "floor or phase"`).
import json
import math

import numpy as np
import pytest
import torch
import torch.nn.functional as F

import rgr_verify.runs.presets as presets
from rgr_verify.perf.bench import PHASES, RunModel, engine_floor, profile_engine, run_bench, torchfunc_train
from rgr_verify.cli import main
from rgr_verify.engine import RunConfig, build_run_data, contexts_from_uniforms, draw_uniforms, labels_torch, train_runs
from rgr_verify.perf.floor import bytes_per_stacked_step, dispatch_floor, memory_bandwidth, step_floor
from rgr_verify.core.scoring import max_over_heads_scores, softmax_sum_scores, split_heads

_KW = dict(m=20, d_model=8, ell=8, n_val=30, n_test=30, check_every=10, max_steps=30, patience=10**6)
_CONFIGS = [RunConfig(n_heads=h, d_k=dk, variant=v, **_KW) for h, dk in ((1, 4), (2, 3), (4, 2))
            for v in ("max", "softmax")] + [
    RunConfig(**{**_KW, "m": 24}, n_heads=2, d_k=3, graph="regular", r=2),  # neg/pos weight, padded m
    RunConfig(**{**_KW, "m": 16}, n_heads=2, d_k=3)]  # shares a stack with (m=20, h=2, d_k=3)


@pytest.fixture(autouse=True)
def _one_thread():
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(threads)


@pytest.mark.parametrize("dtype, atol", [(torch.float64, 1e-12), (torch.float32, 2e-5)])
def test_torchfunc_baseline_trains_the_engines_runs(dtype, atol):
    runs = [(c, s) for c in _CONFIGS for s in (0, 1)]
    info: dict = {}
    got = torchfunc_train(runs, 30, dtype=dtype, info=info)
    want = train_runs(runs, dtype=dtype, keep_weights=True)
    assert info["optimizer"] in ("fused", "foreach") and info["compiled"] is False
    for a, b in zip(got, want):
        assert (a["config"], a["seed"]) == (b.config, b.seed) and a["steps"] == b.steps == 30
        w = b.extra["weights"]
        np.testing.assert_allclose(a["W_Q"], w["W_Q"], rtol=0, atol=atol)
        np.testing.assert_allclose(a["W_K"], w["W_K"], rtol=0, atol=atol)
        assert a["tau"] == pytest.approx(w["tau"], abs=atol)
        if dtype == torch.float64:  # same contexts and weights to 1e-12: the same predictions
            assert a["val_history"] == pytest.approx(b.val_history, abs=1e-12)
            assert a["metric"] == pytest.approx(b.metric)


@pytest.mark.parametrize("variant", ["max", "softmax"])
def test_torchfunc_losses_match_a_single_run_autograd_loop(variant):
    cfg = RunConfig(m=20, d_model=8, n_heads=2, d_k=3, ell=8, n_val=10, n_test=10, check_every=5, variant=variant)
    steps = 12  # not a multiple of check_every: both train to 15, as the engine does
    (got,) = torchfunc_train([(cfg, 3)], steps, dtype=torch.float64, record_losses=True)
    assert got["steps"] == 15 and got["losses"].shape == (15,)
    # Reference: one run, nn.Parameters, single-tensor AdamW, the scoring module, the engine's contexts.
    data = build_run_data(cfg, 3)
    nbrs = torch.as_tensor(data.nbrs)[None]
    ctx = torch.cat([contexts_from_uniforms(nbrs, *draw_uniforms([data.stream], 5, cfg.m, cfg.ell), rho=cfg.rho)
                     for _ in range(3)], dim=1)[0]
    y = labels_torch(nbrs, ctx[None])[0].double()
    X = torch.as_tensor(data.X)
    W_Q = torch.nn.Parameter(torch.as_tensor(data.W_Q))
    W_K = torch.nn.Parameter(torch.as_tensor(data.W_K))
    tau = torch.nn.Parameter(torch.zeros((), dtype=torch.float64))
    opt = torch.optim.AdamW([W_Q, W_K, tau], lr=cfg.lr, weight_decay=cfg.weight_decay, foreach=False)
    score = softmax_sum_scores if variant == "softmax" else max_over_heads_scores
    ref = []
    for t in range(15):
        S = score(X[ctx[t]][None], split_heads(W_Q, 2), split_heads(W_K, 2))[0]
        z = cfg.alpha * (S - tau)
        loss = (F.softplus(-z) * y[t] * (cfg.ell - 1) + F.softplus(z) * (1 - y[t])).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        ref.append(float(loss.detach()))
    np.testing.assert_allclose(got["losses"], ref, rtol=1e-10, atol=0)
    np.testing.assert_allclose(got["W_Q"], W_Q.detach().numpy(), rtol=0, atol=1e-12)


def test_run_model_scores_are_the_scoring_modules():
    g = torch.Generator().manual_seed(0)
    W_Q, W_K = torch.randn(8, 12, generator=g, dtype=torch.float64), torch.randn(8, 12, generator=g,
                                                                                 dtype=torch.float64)
    Xc = torch.randn(3, 6, 8, generator=g, dtype=torch.float64)
    for variant, fn in (("max", max_over_heads_scores), ("softmax", softmax_sum_scores)):
        model = RunModel(W_Q, W_K, n_heads=4, variant=variant)
        torch.testing.assert_close(model(Xc), fn(Xc, split_heads(W_Q, 4), split_heads(W_K, 4)))
    for kwargs, match in ((dict(variant="value"), "variant"), (dict(pos_weight="auto"), "pos_weight"),
                          (dict(n_heads=5), "divisible"), (dict(n_heads=0), "n_heads")):
        with pytest.raises(ValueError, match=match):
            RunModel(W_Q, W_K, **{"n_heads": 4, **kwargs})


@pytest.mark.parametrize("kwargs, match", [
    (dict(steps=0), "steps"), (dict(dtype=torch.float16), "dtype"), (dict(compile="yes"), "compile"),
    (dict(record_losses=1), "record_losses"), (dict(runs=[]), "runs"), (dict(device="tpu"), "device"),
    (dict(runs=[(RunConfig(m=20, d_model=8, n_heads=1, d_k=4, variant="value"), 0)]), "runs"),
    (dict(info=[]), "info")])
def test_torchfunc_train_validates_its_inputs(kwargs, match):
    args = {"runs": [(_CONFIGS[0], 0)], "steps": 10, **kwargs}
    with pytest.raises(ValueError, match=match):
        torchfunc_train(args.pop("runs"), args.pop("steps"), **args)


def test_run_bench_reports_three_rates_and_two_ratios():
    cfgs = [RunConfig(m=20, d_model=8, n_heads=h, d_k=4, ell=8, n_val=10, n_test=10, check_every=10) for h in (1, 2)]
    d = run_bench(cfgs, [0, 1], steps=20, naive_runs=1).to_dict()
    assert d["n_runs"] == d["n_torchfunc_runs"] == 4 and d["torchfunc_optimizer"] in ("fused", "foreach")
    assert d["torchfunc_steps_per_s"] > 0 and d["torchfunc_compiled"] is False
    assert d["ratio_torchfunc"] == pytest.approx(d["engine_steps_per_s"] / d["torchfunc_steps_per_s"])
    assert d["ratio"] == pytest.approx(d["engine_steps_per_s"] / d["naive_steps_per_s"])
    json.dumps(d)
    d = run_bench(cfgs[:1], [0], steps=10, naive_runs=1, torchfunc=False).to_dict()
    assert d["torchfunc_steps_per_s"] is None and d["ratio_torchfunc"] is None and d["n_torchfunc_runs"] == 0
    with pytest.raises(ValueError, match="torchfunc"):
        run_bench(cfgs, [0], steps=10, torchfunc="no")
    d = run_bench(cfgs, [0], steps=10, naive_runs=1, torchfunc=False, fused=True, max_waste=16).to_dict()
    assert d["max_waste"] == 16 and d["fused_steps_per_s"] > 0
    assert d["ratio_fused"] == pytest.approx(d["fused_steps_per_s"] / d["engine_steps_per_s"])
    assert run_bench(cfgs[:1], [0], steps=10, naive_runs=1, torchfunc=False).ratio_fused is None
    with pytest.raises(ValueError, match="fused"):
        run_bench(cfgs, [0], steps=10, torchfunc=False, fused=1)
    with pytest.raises(ValueError, match="max_waste"):
        run_bench(cfgs, [0], steps=10, torchfunc=False, max_waste=0.5)


def test_bench_command_prints_and_writes_both_ratios(tmp_path, monkeypatch, capsys):
    runs = tuple((RunConfig(m=20, d_model=8, n_heads=h, d_k=4, ell=8, n_val=10, n_test=10, check_every=10), s)
                 for h in (1, 2) for s in (0, 1))
    monkeypatch.setattr(presets, "get_preset", lambda name, tier: presets.Preset(name, tier, "tiny", runs))
    out = tmp_path / "bench.json"
    assert main(["bench", "--steps", "10", "--naive-runs", "1", "--json", str(out)]) == 0
    text = capsys.readouterr().out
    assert "torch.func :" in text and "x engine / torch.func" in text and "x engine / naive loop" in text
    d = json.loads(out.read_text())
    assert d["n_torchfunc_runs"] == 4 and d["ratio_torchfunc"] > 0 and d["ratio"] > 0
    assert main(["bench", "--steps", "10", "--naive-runs", "1", "--no-torchfunc", "--fused"]) == 0
    assert "fused AdamW:" in capsys.readouterr().out


@pytest.mark.parametrize("argv", [["bench", "--no-torchfunc", "--compile"], ["bench", "--steps", "0"],
                                  ["bench", "--max-waste", "0.5"]])
def test_bench_bad_usage_exits_2(argv, capsys):
    assert main(argv) == 2
    assert capsys.readouterr().err.startswith("rgr-verify: error:")


_TINY = [RunConfig(m=20, d_model=8, n_heads=h, d_k=4, ell=8, n_val=10, n_test=10, check_every=10) for h in (1, 2)]


def test_profile_phases_cover_the_wall_clock():
    prof = profile_engine(_TINY, [0, 1], steps=40)
    ph = prof["phases"]
    assert set(ph) == set(PHASES) | {"other"}
    for name in PHASES:
        d = ph[name]
        assert d["ms_per_step"] > 0 and math.isfinite(d["ms_per_step"]) and 0 < d["share"] < 1
        assert d["device_ms_per_step"] is None and d["host_syncs_per_step"] is None  # CPU
    assert ph["train"]["ops_per_step"] > 0 and ph["sample"]["ops_per_step"] > 0
    labelled = sum(ph[p]["ms_per_step"] for p in PHASES)
    wall = prof["wall_ms_per_step"]
    # Labels do not nest and lie inside the timed call (profiler and perf_counter clocks: 1 % slack).
    assert labelled <= 1.01 * wall and labelled >= 0.8 * wall
    assert sum(ph[p]["share"] for p in PHASES) + ph["other"]["share"] == pytest.approx(1.0, abs=0.01)
    assert prof["dispatch_ops_per_step"] == prof["aten_ops_per_step"] > 0
    assert prof["host_syncs_per_step"] is None and prof["kernel_launches_per_step"] == 0
    json.dumps({k: v for k, v in prof.items() if k != "table"})


def test_floor_is_positive_and_below_the_engine_step():
    steps = 40
    prof = profile_engine(_TINY, [0, 1], steps=steps)
    res = run_bench(_TINY, [0, 1], steps=steps, naive_runs=1, torchfunc=False)
    engine_ms = 1e3 * res.engine_seconds / steps
    fl = engine_floor(_TINY, [0, 1], steps=steps, ops_per_step=prof["dispatch_ops_per_step"],
                      engine_ms_per_step=engine_ms, repeats=3)
    for key in ("dispatch_eager_ms", "dispatch_ms", "bytes_ms", "floor_ms", "bandwidth_gb_s", "ratio",
                "ops_per_step", "bytes", "optimiser_bytes", "context_bytes"):
        assert fl[key] > 0 and math.isfinite(fl[key]), key
    assert fl["dispatch_graph_ms"] is None and fl["dispatch_ms"] == fl["dispatch_eager_ms"]  # CPU: no graphs
    assert fl["floor_ms"] == max(fl["dispatch_ms"], fl["bytes_ms"]) and fl["bound"] in ("dispatch", "bytes")
    assert fl["floor_ms"] <= engine_ms and fl["ratio"] == pytest.approx(engine_ms / fl["floor_ms"])
    json.dumps(fl)


def test_floor_bytes_follow_the_stated_model():
    # One batch (same compat key and d_model): R = 4, H = 2, d_k = 4, d_model = 8, ell = 8, float32.
    got = bytes_per_stacked_step([(c, s) for c in _TINY for s in (0, 1)])
    P = 2 * 2 * 8 * 4 + 1
    assert got == {"batches": 1, "optimiser_bytes": 7 * 4 * P * 4, "context_bytes": 4 * 8 * 8 * 4,
                   "bytes": 7 * 4 * P * 4 + 4 * 8 * 8 * 4}
    assert bytes_per_stacked_step([(_TINY[0], 0)], dtype=torch.float64)["bytes"] == 7 * (2 * 8 * 4 + 1) * 8 + 8 * 8 * 8
    assert memory_bandwidth(mib=4, repeats=2) > 0
    d = dispatch_floor(50, repeats=2)
    assert d["n_ops"] == 50 and d["eager_ms"] > 0 and d["graph_ms"] is None


@pytest.mark.parametrize("call, match", [
    (lambda: dispatch_floor(0), "n_ops"), (lambda: dispatch_floor(10, "tpu"), "device"),
    (lambda: dispatch_floor(10, repeats=0), "repeats"), (lambda: dispatch_floor(10, graph="yes"), "graph"),
    (lambda: memory_bandwidth(mib=0), "mib"), (lambda: memory_bandwidth(repeats=-1), "repeats"),
    (lambda: bytes_per_stacked_step([]), "runs"), (lambda: bytes_per_stacked_step([(_TINY[0], 0)],
                                                                                  dtype=torch.float16), "dtype"),
    (lambda: step_floor([(_TINY[0], 0)], 0), "ops_per_step"), (lambda: step_floor([(_TINY[0], 0)], True),
                                                                "ops_per_step"),
    (lambda: step_floor([(_TINY[0], 0)], float("nan")), "ops_per_step"),
    (lambda: engine_floor(_TINY, [0], steps=10, ops_per_step=10, engine_ms_per_step=-1.0), "engine_ms_per_step"),
    (lambda: engine_floor(_TINY, [0], steps=0, ops_per_step=10), "steps")])
def test_floor_validates_its_inputs(call, match):
    with pytest.raises(ValueError, match=match):
        call()


def test_bench_command_floor_and_both_tiers(tmp_path, monkeypatch, capsys):
    runs = tuple((c, s) for c in _TINY for s in (0, 1))
    monkeypatch.setattr(presets, "get_preset", lambda name, tier: presets.Preset(name, tier, "tiny", runs))
    out = tmp_path / "bench.json"
    assert main(["bench", "--steps", "20", "--naive-runs", "1", "--no-torchfunc", "--tier", "both", "--floor",
                 "--profile-steps", "10", "--json", str(out)]) == 0
    text = capsys.readouterr().out
    assert "x engine step" in text and "floor      :" in text and "  train    :" in text
    d = json.loads(out.read_text())
    assert set(d) == {"quick", "full"}
    for tier in ("quick", "full"):
        assert d[tier]["tier"] == tier and d[tier]["profile"]["steps"] == 10
        assert d[tier]["floor"]["ratio"] > 0 and d[tier]["floor"]["floor_ms"] > 0
    assert main(["bench", "--profile-steps", "0"]) == 2


@pytest.mark.gpu
def test_cuda_floor_replays_a_graph_and_profiles_phases():
    d = dispatch_floor(200, "cuda", repeats=3)
    assert d["graph_ms"] > 0 and math.isfinite(d["graph_ms"]) and d["eager_ms"] > 0
    assert memory_bandwidth("cuda", mib=64, repeats=2) > 1e10  # any GPU copies faster than 10 GB/s
    prof = profile_engine(_TINY, [0, 1], steps=200, device="cuda")
    assert prof["kernel_launches_per_step"] > 0 and prof["dispatch_ops_per_step"] == prof["kernel_launches_per_step"]
    assert prof["phases"]["train"]["device_ms_per_step"] >= 0 and prof["host_syncs_per_step"] > 0
    fl = engine_floor(_TINY, [0, 1], steps=200, device="cuda", ops_per_step=prof["dispatch_ops_per_step"],
                      engine_ms_per_step=prof["wall_ms_per_step"], repeats=3)
    assert fl["dispatch_graph_ms"] is not None and fl["dispatch_ms"] == fl["dispatch_graph_ms"]
    assert 0 < fl["floor_ms"] <= fl["engine_ms_per_step"]


@pytest.mark.parametrize("call", [lambda: run_bench(_TINY, [0], steps=10, device="tpu"),
                                  lambda: engine_floor(_TINY, [0], steps=10, ops_per_step=5, device="gpu")])
def test_the_torch_device_is_checked_in_one_place(call):
    # bench, floor and train_runs share one validator (rgr_verify.basics.checks.check_torch_device)
    with pytest.raises(ValueError, match="device must be 'cpu' or 'cuda'"):
        call()
    if not torch.cuda.is_available():
        with pytest.raises(ValueError, match="CUDA is not available"):
            run_bench(_TINY, [0], steps=10, device="cuda")
