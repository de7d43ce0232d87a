# Sec. 6 tooling: the sweep and bench commands, the benchmark and the plots (cheap smoke tests).
import json

import pytest
import torch

from rgr_verify.perf.bench import run_bench
from rgr_verify.analysis.capacity import curves, fit_through_origin, threshold
from rgr_verify.cli import main
from rgr_verify.engine import RunConfig
from rgr_verify.analysis.plots import plot_curves, plot_diagonal, plot_dk_star_fit, plot_h_star


@pytest.mark.parametrize("argv", [["sweep", "sec9-grid"], ["sweep", "sec6-grid", "--tier", "huge"],
                                  ["sweep", "sec6-grid", "--device", "tpu"], ["sweep", "sec6-grid", "--threads", "0"],
                                  ["bench", "--device", "tpu"], ["bench", "--steps", "0"]])
def test_bad_usage_exits_2(argv, capsys):
    assert main(argv) == 2
    assert "rgr-verify: error:" in capsys.readouterr().err


@pytest.mark.skipif(torch.cuda.is_available(), reason="with CUDA the full tier is a real sweep")
def test_full_tier_sweep_on_cpu_needs_explicit_device(capsys):
    assert main(["sweep", "sec6-grid", "--tier", "full"]) == 2
    assert "--device cpu to force" in capsys.readouterr().err


def test_run_bench_reports_both_rates():
    cfgs = [RunConfig(m=20, d_model=8, n_heads=h, d_k=4, ell=8, n_val=10, n_test=10, check_every=10)
            for h in (1, 2)]
    res = run_bench(cfgs, [0, 1], steps=20, naive_runs=2)
    d = res.to_dict()
    assert d["n_runs"] == 4 and d["n_naive_runs"] == 2 and d["steps"] == 20
    assert d["naive_steps_per_s"] > 0 and d["engine_steps_per_s"] > 0 and d["ratio"] == pytest.approx(
        d["engine_steps_per_s"] / d["naive_steps_per_s"])
    json.dumps(d)


def test_plots_write_pngs(tmp_path):
    recs = [{"config": {"variant": "max", "graph": "permutation", "r": 1, "m": 32, "d_model": 8, "n_heads": h,
                        "d_k": D // h}, "seed": s, "metric": min(1.0, 0.3 + 0.01 * D * h + 0.01 * s)}
            for h in (1, 2) for D in (8, 16, 32, 64) for s in range(3)]
    groups = curves(recs)
    th = threshold(next(iter(groups.values())))
    paths = [plot_curves(groups, tmp_path / "a.png", title="t"),
             plot_dk_star_fit([(1.0, th, "a"), (2.0, th, "b")], fit_through_origin([1.0, 2.0], [32, 32]),
                              tmp_path / "b.png", title="t", xlabel="x", paper_slope=1.19),
             plot_h_star([(1.0, th), (2.0, th)], tmp_path / "c.png", title="t", xlabel="x"),
             plot_diagonal([(128, th), (256, th)], tmp_path / "d.png", title="t")]
    for p in paths:
        assert p.exists() and p.read_bytes()[:4] == b"\x89PNG"
