# The comparison standard (rgr_verify.claims.standards.comparison), written once: a paired advantage's interval per
# unit against the band [margin, inf) -- inside passes, wholly below fails, in between undecided; every unit or some
# unit. The claims that say "several heads beat one head" (Sec. 6.1 / Figure 5 quick analogues, Sec. 7.2 / Figure 6
# value retrieval, Sec. 7.3) are judged by it; their planted alternative (no head effect) is rejected.
import math

import numpy as np
import pytest
from scipy import stats as st

from rgr_verify.claims import get_claim
from rgr_verify.claims.base import CheckContext, Status
from rgr_verify.claims.standards import advantage_interval, decide, decide_advantage, picked_level
from rgr_verify.runs.plants import PLANTS

HOLDS, FAILS, OPEN = Status.HOLDS_EMPIRICALLY, Status.CONTRADICTED_EMPIRICALLY, Status.INCONCLUSIVE


@pytest.mark.parametrize("interval, expected", [
    ((0.2, 0.5), HOLDS),  # inside [0.1, inf)
    ((0.1, 0.3), HOLDS),  # the band's own end is inside
    ((-0.3, 0.05), FAILS),  # wholly below the margin
    ((0.0, 0.3), OPEN),  # straddles the margin: never a pass
    ((0.0, 0.1), OPEN),  # meets the margin from below: not wholly below
    ((-math.inf, math.inf), OPEN),  # no evidence
    ((0.0, 0.0), FAILS),  # no advantage at all
])
def test_one_unit_inside_passes_wholly_below_fails_else_undecided(interval, expected):
    status, res = decide_advantage({"u": interval}, 0.1)
    assert status is expected
    unit = res["units"]["u"]
    assert unit["band"] == [0.1, math.inf] and unit["interval"] == [float(x) for x in interval]
    assert (unit["held"], unit["failed"]) == (expected is HOLDS, expected is FAILS)
    assert res["held"] == (["u"] if expected is HOLDS else []) and res["failed"] == (["u"] if expected is FAILS else [])


@pytest.mark.parametrize("units, every_status, some_status", [
    ([(0.2, 0.4), (0.3, 0.5)], HOLDS, HOLDS),
    ([(0.2, 0.4), (0.0, 0.5)], OPEN, HOLDS),  # one undecided unit: "every" undecided, "some" held by the other
    ([(0.2, 0.4), (-0.2, 0.0)], FAILS, HOLDS),  # one unit wholly below: "every" fails
    ([(-0.1, 0.0), (0.0, 0.5)], FAILS, OPEN),  # "some" fails only when every unit fails
    ([(-0.1, 0.0), (-0.5, 0.05)], FAILS, FAILS),
    ([(0.0, 0.3), (0.05, 0.2)], OPEN, OPEN),
])
def test_every_unit_is_a_conjunction_and_some_unit_its_dual(units, every_status, some_status):
    assert decide_advantage(units, 0.1)[0] is every_status
    assert decide_advantage(units, 0.1, every=False)[0] is some_status
    _, res = decide_advantage(dict(zip("ab", units)), 0.1, level=0.0125)
    assert res["level"] == 0.0125 and res["every"] is True and res["margin"] == 0.1
    assert sorted(res["held"] + res["failed"] + res["undecided"]) == ["a", "b"]


def test_the_picked_comparison_fails_only_when_every_candidate_lies_below():
    # the best comparison by mean lies below the margin while a noisier one still reaches it: some-unit undecided
    best, noisy = (0.02, 0.08), (-0.2, 0.25)
    assert decide_advantage({"best": best}, 0.1)[0] is FAILS
    assert decide_advantage({"best": best, "noisy": noisy}, 0.1, every=False)[0] is OPEN


def test_a_strict_band_never_passes_equal_outcomes():
    # "lower" with no margin: the open band (0, inf); equal outcomes (no head effect) fail, never pass
    assert decide_advantage([(0.0, 0.0)], 0.0, strict=True)[0] is FAILS
    assert decide_advantage([(0.0, 0.0)], 0.0)[0] is HOLDS  # the closed band [0, inf) would pass them
    assert decide_advantage([(0.01, 0.2)], 0.0, strict=True)[0] is HOLDS
    assert decide_advantage([(0.0, 0.2)], 0.0, strict=True)[0] is OPEN
    assert decide_advantage([(-0.2, 0.0)], 0.0, strict=True)[0] is FAILS
    assert decide_advantage([(-0.2, 0.01)], 0.0, strict=True)[0] is OPEN
    _, res = decide_advantage({"u": (0.0, 0.0)}, 0.0, strict=True)
    assert res["strict"] is True and res["units"]["u"]["open"] is True


@pytest.mark.parametrize("strict", [False, True])
@pytest.mark.parametrize("intervals, margin", [
    ({"u": (0.3, 0.1)}, 0.1),  # reversed
    ({"u": (math.nan, 0.1)}, 0.1),
    ({"u": (0.0, math.nan)}, 0.1),
    ({"u": (0.0, 0.2)}, math.nan),
    ({"u": (0.0, 0.2)}, math.inf),
    ({}, 0.1),  # no unit
    ({"u": (0.0, 0.1, 0.2)}, 0.1),  # not an interval
])
def test_reversed_or_nan_input_is_refused(intervals, margin, strict):
    with pytest.raises(ValueError):
        decide_advantage(intervals, margin, strict=strict)


def test_the_interval_is_the_t_interval_whose_ends_are_one_sided_bounds_at_the_level():
    d = np.array([0.31, 0.52, 0.44, 0.28, 0.61])
    level = picked_level(0.05, 4)
    assert level == 0.0125
    mean, lo, hi = advantage_interval(d, level)
    half = st.t.ppf(1 - level, d.size - 1) * d.std(ddof=1) / math.sqrt(d.size)
    assert mean == pytest.approx(d.mean()) and lo == pytest.approx(d.mean() - half)
    assert hi == pytest.approx(d.mean() + half)
    assert advantage_interval([0.4], level)[1:] == (-math.inf, math.inf)  # one seed decides nothing
    assert advantage_interval([0.0, 0.0, 0.0], level)[1:] == (0.0, 0.0)
    for bad in ([0.1, math.nan], [0.1, math.inf]):
        with pytest.raises(ValueError):
            advantage_interval(bad, level)
    for lvl in (0.0, 0.5, -0.1):
        with pytest.raises(ValueError):
            advantage_interval(d, lvl)
    for a, k in ((0.05, 0), (0.0, 3), (1.0, 3), (0.05, 2.5), (0.05, True)):
        with pytest.raises(ValueError):
            picked_level(a, k)


# Sec. 7.3: decide_advantage calls the standard; its statuses are the ones of the rule it replaced.

def _sweep(preset, acc):
    from rgr_verify.runs.sec73_sweep import Sec73Results

    records = tuple({"D_K": D, "h": h, "seed_index": i, "test_acc": float(acc(D, h, i)), "test_null_rate": 0.0,
                     "source": preset.source} for D, h in preset.cells() for i in range(preset.seeds))
    return Sec73Results(preset, "synthetic", "cpu", records)


def _old_sec73_status(decision, preset, margin):
    """The rule before the standard, inline: established when lo >= margin, absent when hi < margin."""
    ivs = {int(k.split("=")[1]): v["confirmation_diff_mean_lo_hi"] for k, v in decision["measured"].items()}
    established = [D for D in preset.D_Ks if ivs[D][1] >= margin]
    absent = [D for D in preset.D_Ks if ivs[D][2] < margin]
    return decide(len(established) == len(preset.D_Ks), absent), absent


@pytest.mark.parametrize("tier", ["quick", "full"])
def test_sec73_decide_advantage_keeps_its_statuses(tier):
    from rgr_verify.claims.paper_sec7 import sec73_rules as S
    from rgr_verify.runs.sec73_presets import sec73_preset

    preset = sec73_preset(tier)
    rng = np.random.default_rng(37)
    jitter = rng.normal(0.0, 0.004, preset.seeds)
    shapes = [
        lambda D, h, i: 0.3 + (0.2 if h >= 2 else 0.0) + jitter[i],  # clear advantage everywhere
        lambda D, h, i: 0.5 - (0.2 if h >= 2 else 0.0) + jitter[i],  # reversed
        lambda D, h, i: 0.3 + (0.02 if h >= 2 else 0.0) + 3 * jitter[i] * (h == 4),  # straddling the margin
        lambda D, h, i: 0.3 + (0.2 if h >= 2 and D != preset.D_Ks[0] else 0.0) + jitter[i],  # absent at one D_K
    ]
    for _ in range(12):  # and sweeps of mixed effects
        eff = {c: rng.normal(0.0, 0.03) for c in preset.cells()}
        noise = {c: rng.normal(0.0, 0.02, preset.seeds) for c in preset.cells()}
        shapes.append(lambda D, h, i, eff=eff, noise=noise: 0.5 + eff[D, h] + noise[D, h][i])
    seen = set()
    for acc in shapes:
        d = S.decide_advantage(_sweep(preset, acc))
        old, absent = _old_sec73_status(d, preset, S.MARGIN)
        assert d["status"] is old
        assert d["witness"]["advantage_absent_at"] == absent
        seen.add(old)
    assert seen == {HOLDS, FAILS, OPEN}


# The claims judged by it reject their planted alternative (no head effect) and hold on a clear advantage.

def _cells_records(f1, *, variant="max", m=64, d_model=16, cap=12000):
    return [{"config": {"variant": variant, "graph": "permutation", "r": 1, "m": m, "d_model": d_model,
                        "n_heads": h, "d_k": D // h, "max_steps": cap}, "seed": s, "metric": float(f1(h, D, s)),
             "val_history": [0.5], "stopped_early": False, "steps": cap}
            for h in (1, 2, 4) for D in (8, 16, 32) for s in range(4)]


def _value_records(mse):
    return [{"config": {"variant": "value", "graph": "permutation", "r": 1, "m": 32, "d_model": 8, "n_heads": h,
                        "d_k": D // h, "max_steps": 3000}, "seed": s, "metric": float(mse(h, D, s)),
             "val_history": [0.5], "stopped_early": False, "steps": 3000}
            for h in (1, 4) for D in (16, 32) for s in range(3)]


def _run(monkeypatch, cid, module, records):
    import importlib

    monkeypatch.setattr(importlib.import_module(module), "sweep_records", lambda preset, tier, ctx: (records, ""))
    return get_claim(cid).check(CheckContext(seed=0, tier="quick"))


@pytest.mark.parametrize("cid", ["sec61-multihead-advantage-quick", "fig5-softmax-multihead-advantage-quick"])
def test_the_cells_rule_holds_on_an_advantage_and_rejects_no_head_effect(monkeypatch, cid):
    variant = "softmax" if cid.startswith("fig5") else "max"
    jit = [0.0, 0.01, -0.01, 0.005]
    clear = _cells_records(lambda h, D, s: (0.9 if h > 1 else 0.4) + jit[s], variant=variant)
    v = _run(monkeypatch, cid, "rgr_verify.claims.tools.cells", clear)
    assert v.status is HOLDS, v.measured_value
    planted = _run(monkeypatch, cid, "rgr_verify.claims.tools.cells", PLANTS["no_head_effect"](clear))
    assert planted.status is FAILS and planted.witness == ["(64,16)"]
    close = _cells_records(lambda h, D, s: (0.5 + 0.1 * (h > 1) + [0.0, 0.08, -0.06, 0.02][s] * (h > 1)),
                           variant=variant)  # mean gap 0.11 with wide intervals: undecided, never a pass
    assert _run(monkeypatch, cid, "rgr_verify.claims.tools.cells", close).status is OPEN


def test_the_value_rule_holds_on_lower_mse_and_rejects_no_head_effect(monkeypatch):
    cid, module = "sec72-value-multihead-advantage-quick", "rgr_verify.claims.paper_sec7.value"
    jit = [0.0, 0.01, -0.01]
    clear = _value_records(lambda h, D, s: (0.4 if h > 1 else 0.75) + jit[s])
    v = _run(monkeypatch, cid, module, clear)
    assert v.status is HOLDS, v.measured_value
    assert v.params["candidates"] == 2 and v.params["one-sided level (Bonferroni)"] == pytest.approx(0.025)
    planted = _run(monkeypatch, cid, module, PLANTS["no_head_effect"](clear))
    assert planted.status is FAILS and planted.witness  # equal MSEs are not lower
    worse = _value_records(lambda h, D, s: (0.9 if h > 1 else 0.75) + jit[s])
    assert _run(monkeypatch, cid, module, worse).status is FAILS
    # lower than h = 1 at its own D_K but not than h = 1's best D_K: undecided at best, never a pass
    mixed = _value_records(lambda h, D, s: {(1, 16): 0.5, (1, 32): 0.9, (4, 16): 0.95, (4, 32): 0.6}[h, D]
                           + [0.0, 0.15, -0.12][s] * (h == 4))
    assert _run(monkeypatch, cid, module, mixed).status is not HOLDS
