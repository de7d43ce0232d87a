# App. A.3 / Figure 11's plateau (appa3-few-heads-plateau-well-below-perfect): the rule on synthetic F1 values (one
# standard to pass and to fail: every rung's interval under the well-below ceiling holds, one rung's interval wholly
# above it contradicts, in between is inconclusive), the ceiling derived from App. A.2's bar, and the records read.
import pytest

from rgr_verify.analysis.capacity import F1_TARGET
from rgr_verify.claims import get_claim
from rgr_verify.claims.base import CheckContext, Status
from rgr_verify.claims.paper_appa.regular_plateau import (PLATEAU_CURVES, WELL_BELOW_FACTOR, curve_values,
                                                          plateau_status, well_below_ceiling)

H, C, I = Status.HOLDS_EMPIRICALLY, Status.CONTRADICTED_EMPIRICALLY, Status.INCONCLUSIVE
ALPHA = 0.05


def _ladder(means, spread=0.01, seeds=5):
    """{D_K: per-seed values}: each rung's seeds spread evenly around its mean."""
    offsets = [spread * (k - (seeds - 1) / 2) / ((seeds - 1) / 2) for k in range(seeds)]
    return {D: tuple(m + o for o in offsets) for D, m in means.items()}


def test_the_ceiling_is_ten_times_the_bars_distance_below_one():
    assert well_below_ceiling(F1_TARGET) == pytest.approx(0.9)
    assert well_below_ceiling(F1_TARGET, WELL_BELOW_FACTOR / 2) == pytest.approx(0.95)
    assert well_below_ceiling(0.985) == pytest.approx(0.85)
    for bad in ((1.0, 10), (0.0, 10), (0.99, 0), (0.9, 11), (0.5, 3)):
        with pytest.raises(ValueError):
            well_below_ceiling(*bad)


def test_curves_far_below_the_ceiling_hold():
    vals = {(2, 1): _ladder({8: 0.23, 16: 0.38, 32: 0.47, 64: 0.474, 96: 0.474}),
            (4, 2): _ladder({16: 0.30, 64: 0.60, 192: 0.63}, spread=0.03)}
    status, rows = plateau_status(vals, 0.9, ALPHA)
    assert status is H
    assert rows["r=2, h=1"]["status"] == H.value and rows["r=2, h=1"]["top rung D_K"] == 96
    assert rows["r=2, h=1"]["best rung"]["D_K"] in (64, 96)
    assert rows["r=4, h=2"]["highest upper end (pass side)"] < 0.9


def test_a_curve_that_reaches_near_perfect_at_one_rung_contradicts():
    # the planted alternative: the few-head curve jumps to ~1 at the top of its ladder like the many-head ones
    vals = {(2, 1): _ladder({8: 0.23, 16: 0.38, 32: 0.95, 48: 0.998}, spread=0.002),
            (4, 2): _ladder({16: 0.30, 64: 0.60}, spread=0.03)}
    status, rows = plateau_status(vals, 0.9, ALPHA)
    assert status is C
    assert rows["r=2, h=1"]["rungs wholly above the ceiling"] == [32, 48]
    assert rows["r=4, h=2"]["status"] == H.value  # the other curve alone would hold: one failing curve suffices


def test_a_rung_whose_interval_straddles_the_ceiling_is_inconclusive():
    vals = {(2, 1): _ladder({8: 0.3, 16: 0.89}, spread=0.05)}  # the interval at 16 reaches above 0.9, and below
    status, rows = plateau_status(vals, 0.9, ALPHA)
    assert status is I
    rung = rows["r=2, h=1"]["rungs"][16]
    assert rung["interval (pass side)"][0] < 0.9 < rung["interval (pass side)"][1]
    assert not rung["inside"] and not rung["outside"]


def test_the_fail_side_is_bonferroni_over_every_rung():
    # a rung just above the ceiling: wholly outside at one-sided 0.05 alone, not at 0.05 / 12 (twelve rungs)
    top = {32: (0.905, 0.915, 0.925, 0.935, 0.945)}
    alone, _ = plateau_status({(2, 1): top}, 0.9, ALPHA)
    many, rows = plateau_status({(2, 1): {**_ladder({D: 0.3 for D in range(1, 12)}), **top}}, 0.9, ALPHA)
    assert alone is C
    assert many is I and rows["r=2, h=1"]["rungs"][32]["outside"] is False


def test_bad_inputs_are_value_errors():
    with pytest.raises(ValueError):
        plateau_status({}, 0.9, ALPHA)
    with pytest.raises(ValueError):
        plateau_status({(2, 1): {}}, 0.9, ALPHA)
    with pytest.raises(ValueError):
        plateau_status({(2, 1): _ladder({8: 0.3})}, 0.9, 0.7)


def test_curve_values_group_the_regular_runs_by_degree_and_heads():
    def rec(r, h, d_k, seed, metric, graph="regular"):
        return {"config": {"variant": "max", "graph": graph, "r": r, "m": 128, "d_model": 32, "n_heads": h,
                           "d_k": d_k}, "seed": seed, "metric": metric}

    recs = [rec(2, 1, 8, 0, 0.3), rec(2, 1, 8, 1, 0.4), rec(2, 2, 4, 0, 0.5), rec(1, 1, 8, 0, 0.9, "permutation")]
    assert curve_values(recs) == {(2, 1): {8: (0.3, 0.4)}, (2, 2): {8: (0.5,)}}


def test_the_claim_names_the_captions_curves_and_its_planted_alternative():
    claim = get_claim("appa3-few-heads-plateau-well-below-perfect")
    assert PLATEAU_CURVES == ((2, 1), (4, 1), (4, 2))
    assert claim.standard.alternative == ("best_head_everywhere", "holds-empirically")
    assert set(claim.analyses) == {"leave one seed out", "F1 target", "tolerance", "test level"}
    assert claim.replays == ("a3-regular",)


def test_the_committed_sweep_holds_and_the_ceiling_moves_with_the_f1_target():
    claim = get_claim("appa3-few-heads-plateau-well-below-perfect")
    ctx = CheckContext(seed=1, tier="full", replay_only=True)
    v = claim.check(ctx)
    assert not v.unavailable, v.unavailable
    assert v.status is H and v.params["ceiling"] == pytest.approx(0.9)
    assert all(row["highest upper end (pass side)"] < 0.7 for row in v.measured_value["curves"].values())
    ctx = CheckContext(seed=1, tier="full", replay_only=True, f1_target=0.985)
    with ctx.applied():
        v = claim.check(ctx)
    assert v.params["ceiling"] == pytest.approx(0.85) and v.status is H
