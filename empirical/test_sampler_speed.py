# App. A.1's rate-enforcing sampler: the "uniform" reading never enforces a rate, and the rule of
# appa1-rate-enforcing-sampler-trains-faster (per-seed log ratio of total steps, one-sided t-bounds, against ratio 1)
# passes, fails and stays inconclusive where it should, on synthetic records.
import math

import numpy as np
import pytest

from rgr_verify.claims.base import Status
from rgr_verify.claims.paper_appa.sampler import hoeffding_interval
from rgr_verify.claims.paper_appa.sampler_speed import seed_log_ratios, speed_pairs, speed_status, steps_to
from rgr_verify.core.contexts import READINGS, context_labels, sample_context, sample_contexts
from rgr_verify.core.graphs import random_permutation_graph
from rgr_verify.runs.plants import PLANTS
from rgr_verify.runs.presets import SPEED_HEADS, SPEED_RUNGS, preset_runs, table2_cap


def _rec(rho, seed, steps, *, d_model=16, h=4, D_K=24, f1=0.999, cap=20_000, history=None, old=False):
    config = {"m": 64, "d_model": d_model, "n_heads": h, "d_k": D_K // h, "variant": "max", "graph": "permutation",
              "r": 1, "ell": 16, "rho": rho, "max_steps": cap, "check_every": 500, "patience": 5, "stop_f1": 0.995}
    if not old:
        config["sampler"] = "literal"
    return {"config": config, "seed": seed, "steps": steps, "stopped_early": steps < cap, "metric": f1,
            "val_history": history if history is not None else [0.5] * (steps // 500 - 5) + [0.999] * 5,
            "extra": {}, "tau": 0.0}


def _pairs(uniform_steps, enforced_steps):
    """One config per seed: seed s has a uniform run of uniform_steps[s] and an enforced twin of enforced_steps[s]."""
    uni = [_rec(0.0, s, u) for s, u in enumerate(uniform_steps)]
    enf = [_rec(0.5, s, e, old=True) for s, e in enumerate(enforced_steps)]  # sec6-grid's records predate "sampler"
    return speed_pairs(uni, enf)


def _status(uniform_steps, enforced_steps, level=0.05):
    return speed_status(seed_log_ratios(_pairs(uniform_steps, enforced_steps), 0, 0.99).values(), level)[0]


# --- the "uniform" reading: step 1 alone -------------------------------------------------------------------------

def test_uniform_reading_is_step_one_alone():
    assert READINGS == ("literal", "protected", "uniform")
    g = random_permutation_graph(50, rng=np.random.default_rng(0))
    for seed in range(20):
        got = sample_context(g, 16, 0.5, rng=np.random.default_rng(seed), reading="uniform")
        want = np.random.default_rng(seed).choice(50, size=16, replace=False)
        assert np.array_equal(got, want) and got.dtype == np.int64
    # rho is not read: the same contexts at every rho
    a = sample_contexts(g, 30, 12, 0.0, rng=np.random.default_rng(3), reading="uniform")
    b = sample_contexts(g, 30, 12, 1.0, rng=np.random.default_rng(3), reading="uniform")
    assert np.array_equal(a, b)


@pytest.mark.parametrize("m", [64, 256])
def test_uniform_reading_never_enforces_a_rate(m):
    # the share of a context's sources whose target is in it stays the natural (ell - 1) / (m - 1) (a fixed point
    # always has its target: + its share); the enforcing readings lie above it
    ell = 16
    g = random_permutation_graph(m, rng=np.random.default_rng(m))
    pi = np.argmax(g.adjacency, axis=1)
    fixed = float(np.mean(pi == np.arange(m)))
    natural = fixed + (1 - fixed) * (ell - 1) / (m - 1)
    rates = {}
    for reading in ("uniform", "literal"):
        ctxs = sample_contexts(g, 4000, ell, 0.5, rng=np.random.default_rng(1), reading=reading)
        rates[reading] = hoeffding_interval(context_labels(g, ctxs).any(axis=2).mean(axis=1))
    mean, lo, hi = rates["uniform"]
    assert lo <= natural <= hi, (natural, rates["uniform"])
    assert rates["literal"][1] > hi  # the literal sampler enforces some rate: wholly above the natural one


# --- the preset ---------------------------------------------------------------------------------------------------

def test_the_uniform_preset_is_the_sec6_grid_slice_at_rho_zero():
    runs = preset_runs("sec6-grid-uniform", "full")
    assert all(c.rho == 0.0 and c.sampler == "literal" and c.max_steps == table2_cap(c.m, c.d_model) for c, _ in runs)
    assert {(c.m, c.d_model) for c, _ in runs} == set(SPEED_RUNGS)
    assert {c.n_heads for c, _ in runs} == set(SPEED_HEADS) and {s for _, s in runs} == set(range(10))
    grid = set(preset_runs("sec6-grid", "full"))
    import dataclasses

    assert all((dataclasses.replace(c, rho=0.5), s) in grid for c, s in runs)  # every twin is a sec6-grid run
    assert all(c.rho == 0.0 for c, _ in preset_runs("sec6-grid-uniform", "quick"))


# --- the rule ----------------------------------------------------------------------------------------------------

def test_slower_uniform_runs_hold():
    enforced = [8000 + 500 * s for s in range(10)]
    uniform = [int(1.6 * e) // 500 * 500 for e in enforced]
    assert _status(uniform, enforced) is Status.HOLDS_EMPIRICALLY


def test_faster_uniform_runs_contradict():
    enforced = [12000 + 500 * s for s in range(10)]
    uniform = [int(0.6 * e) // 500 * 500 for e in enforced]
    assert _status(uniform, enforced) is Status.CONTRADICTED_EMPIRICALLY


def test_equal_steps_never_hold():
    enforced = [9000 + 500 * s for s in range(10)]
    assert _status(enforced, enforced) is Status.CONTRADICTED_EMPIRICALLY  # ratio exactly 1: not shorter
    jitter = [e + (500 if s % 2 else -500) for s, e in enumerate(enforced)]  # the null with noise
    assert _status(jitter, enforced) is Status.INCONCLUSIVE


def test_a_mixed_or_small_sample_is_inconclusive():
    assert _status([12000, 6000, 13000, 7000, 10000], [9000, 9000, 9000, 9000, 9000]) is Status.INCONCLUSIVE
    assert _status([15000], [9000]) is Status.INCONCLUSIVE  # one seed decides nothing


def test_the_level_is_the_resolution():
    # a modest effect (ratio about 1.07): holds at 0.10 and 0.05 per end, inconclusive at 0.01
    enforced = [10000] * 10
    uniform = [10500, 11000, 9500, 11500, 10000, 12000, 10500, 9500, 11000, 11500]
    assert _status(uniform, enforced, 0.10) is Status.HOLDS_EMPIRICALLY
    assert _status(uniform, enforced, 0.05) is Status.HOLDS_EMPIRICALLY
    assert _status(uniform, enforced, 0.01) is Status.INCONCLUSIVE


def test_ratios_are_per_seed_totals_over_configs():
    uni = [_rec(0.0, 0, 10000), _rec(0.0, 0, 20000, D_K=32), _rec(0.0, 1, 6000)]
    enf = [_rec(0.5, 0, 5000), _rec(0.5, 0, 10000, D_K=32), _rec(0.5, 1, 6000)]
    pairs = speed_pairs(uni, enf)
    assert [(p["cell"], p["D_K"], p["h"], p["seed"]) for p in pairs] == [((64, 16), 24, 4, 0), ((64, 16), 32, 4, 0),
                                                                       ((64, 16), 24, 4, 1)]
    r = seed_log_ratios(pairs, 0, 0.99)
    assert r[0] == pytest.approx(math.log(2.0)) and r[1] == pytest.approx(0.0)


def test_a_capped_run_counts_its_cap_and_the_second_contrast_reads_the_history():
    capped = _rec(0.0, 0, 20_000, f1=0.9, history=[0.5] * 39 + [0.98])
    assert not capped["stopped_early"] and steps_to(capped, 0, 0.99) == 20_000
    assert steps_to(capped, 1, 0.99) == 20_000 and steps_to(capped, 1, 0.975) == 20_000
    run = _rec(0.5, 0, 6000, history=[0.2, 0.7, 0.991, 0.99, 0.996, 0.997, 0.998, 0.999, 0.999, 0.999, 0.999, 0.999])
    assert steps_to(run, 0, 0.99) == 6000 and steps_to(run, 1, 0.99) == 1500 and steps_to(run, 1, 0.995) == 2500
    with pytest.raises(ValueError):
        steps_to(run, 2, 0.99)


def test_a_uniform_run_without_its_twin_is_an_error():
    with pytest.raises(ValueError, match="twin"):
        speed_pairs([_rec(0.0, 0, 9000)], [_rec(0.5, 1, 9000)])
    with pytest.raises(ValueError, match="twin"):  # another config is no twin
        speed_pairs([_rec(0.0, 0, 9000)], [_rec(0.5, 0, 9000, h=2)])
    with pytest.raises(ValueError, match="no uniform run"):
        speed_pairs([_rec(0.5, 0, 9000)], [_rec(0.5, 0, 9000)])


def test_the_planted_alternative_copies_the_twins_and_is_not_held():
    enforced = [7000 + 1000 * s for s in range(10)]
    uni = [_rec(0.0, s, 2 * e if 2 * e < 20_000 else 20_000) for s, e in enumerate(enforced)]
    enf = [_rec(0.5, s, e) for s, e in enumerate(enforced)]
    assert _status([r["steps"] for r in uni], enforced) is Status.HOLDS_EMPIRICALLY
    planted = PLANTS["uniform_same_steps"](uni + enf)
    assert [r["steps"] for r in planted[:10]] == enforced and [r["config"]["rho"] for r in planted[:10]] == [0.0] * 10
    assert uni[0]["steps"] == 14000  # the stored records are untouched
    pairs = speed_pairs(planted[:10], planted[10:])
    assert speed_status(seed_log_ratios(pairs, 0, 0.99).values(), 0.05)[0] is not Status.HOLDS_EMPIRICALLY
