"""The three claims added for the coverage map (issue 41) pass, fail and stay inconclusive by one standard, on small
synthetic records: Figure 6's multi-head lowest MSE at d_model = 32 (rgr_verify.claims.paper_sec7.coverage_extra),
the single head's gain from D_K = 64 to 128 in Sec. 7.3 (same module), and Figure 2's h* along each axis
(rgr_verify.claims.paper_sec6.fig2_axes); each rule also meets its planted alternative here."""

from __future__ import annotations

import math

import pytest

from rgr_verify.analysis.capacity import curves
from rgr_verify.claims.base import Status
from rgr_verify.claims.paper_sec6.fig2_axes import (AS_MEASURED, LEFT_OUT, axes_decision, grid_lines, hstar_sets,
                                                    spearman_trend)
from rgr_verify.claims.paper_sec7.coverage_extra import (CONTRASTS, GAIN_MARGIN, gain_decision, lowest_mse_decision,
                                                         mostly_capped, sign_test_interval)
from rgr_verify.runs.plants import PLANTS

H, C, I = Status.HOLDS_EMPIRICALLY, Status.CONTRADICTED_EMPIRICALLY, Status.INCONCLUSIVE
SEEDS = range(10)


# --- Figure 6, bottom: the best multi-head model against every single-head model ---------------------------------

def _value_records(curves_by_h, *, capped=(), spread=0.004):
    """Engine-shaped value records at m = 64, d_model = 32: ``curves_by_h`` {h: {D_K: mean MSE}}, per seed the mean
    plus a fixed offset (the same for every point: paired differences are exact); the (h, D_K) in ``capped`` hit the
    step cap on every seed."""
    out = []
    for h, means in curves_by_h.items():
        for D, m in means.items():
            for s in SEEDS:
                out.append({"config": {"variant": "value", "graph": "permutation", "r": 1, "m": 64, "d_model": 32,
                                       "n_heads": h, "d_k": D // h, "max_steps": 20000},
                            "seed": s, "metric": m + spread * (s - 4.5) / 4.5, "stopped_early": (h, D) not in capped,
                            "steps": 5000, "val_history": [m], "extra": {}, "tau": 0.0})
    return out


def _points(recs):
    pts = next(iter(curves(recs).values()))
    stopped = {(r["config"]["n_heads"], r["config"]["n_heads"] * r["config"]["d_k"], r["seed"]): r["stopped_early"]
               for r in recs}
    return pts, stopped


_SINGLE = {1: {8: 0.5, 16: 0.38, 32: 0.33, 64: 0.34, 128: 0.36}}


def _lowest(recs, censor=True, dk_max=None):
    pts, stopped = _points(recs)
    return lowest_mse_decision(pts, stopped, alpha=0.05, censor=censor, dk_max=dk_max)


def test_lowest_mse_holds_when_a_multi_head_model_beats_every_single_head_model():
    status, res = _lowest(_value_records({**_SINGLE, 8: {32: 0.2, 64: 0.1}, 16: {64: 0.13, 128: 0.07}}))
    assert status is H and res["pick"]["h"] == 16 and res["pick"]["D_K"] == 128 and res["candidates"] == 4
    assert res["failed"] == [] and len(res["held"]) == 5
    assert res["one-sided level"] == pytest.approx(0.05 / 5)  # Bonferroni over max(candidates, single-head units)
    # the pick's cap never stops it holding: a capped pick can only be better than measured
    status, res = _lowest(_value_records({**_SINGLE, 8: {32: 0.2, 64: 0.1}, 16: {64: 0.13, 128: 0.07}},
                                         capped={(16, 128)}))
    assert status is H and res["units"]["h=1, D_K=32"]["pick capped"]


def test_lowest_mse_fails_when_a_single_head_model_is_as_good_and_the_rule_rejects_no_head_effect():
    status, res = _lowest(_value_records({**_SINGLE, 4: {16: 0.4, 32: 0.35, 64: 0.36}}))
    assert status is C and "h=1, D_K=32" in res["failed"]
    # the planted alternative: heads make no difference (every run takes the h = 1 outcome at its D_K and seed)
    recs = _value_records({**_SINGLE, 4: {16: 0.2, 32: 0.15, 64: 0.1}, 16: {16: 0.3, 32: 0.2, 64: 0.12, 128: 0.07}})
    assert _lowest(recs)[0] is H
    status, res = _lowest(PLANTS["no_head_effect"](recs))
    assert status is C and res["units"]["h=1, D_K=32"]["interval"] == [0.0, 0.0]


def test_lowest_mse_is_inconclusive_in_the_direction_the_cap_could_flip():
    # a capped single-head D_K (its ultimate MSE may be lower) cannot hold: read as measured it holds
    recs = _value_records({**_SINGLE, 16: {64: 0.13, 128: 0.07}}, capped={(1, 8)})
    status, res = _lowest(recs)
    assert status is I and res["undecided"] == ["h=1, D_K=8"] and res["units"]["h=1, D_K=8"]["single head capped"]
    assert _lowest(recs, censor=False)[0] is H
    # a capped pick (its ultimate MSE may be lower) cannot fail: read as measured it fails
    recs = _value_records({**_SINGLE, 4: {32: 0.35, 64: 0.34}}, capped={(4, 64), (4, 32)})
    assert _lowest(recs, censor=False)[0] is C
    status, res = _lowest(recs)
    assert status is I and res["failed"] == []
    # the D_K range narrows the candidates and the units
    status, res = _lowest(_value_records({**_SINGLE, 16: {64: 0.13, 128: 0.07}}), dk_max=64)
    assert status is H and res["pick"]["D_K"] == 64 and "h=1, D_K=128" not in res["units"]


def test_mostly_capped_is_a_strict_majority():
    pts, stopped = _points(_value_records({1: {8: 0.5}}))
    assert not mostly_capped(pts[0], stopped, SEEDS)
    half = {**stopped, **{(1, 8, s): False for s in range(5)}}
    assert not mostly_capped(pts[0], half, SEEDS) and mostly_capped(pts[0], half, range(9))  # 5 of 10, then 5 of 9
    assert not mostly_capped(pts[0], {}, SEEDS)


def test_lowest_mse_needs_both_sides():
    pts, stopped = _points(_value_records(_SINGLE))
    with pytest.raises(ValueError):
        lowest_mse_decision(pts, stopped, alpha=0.05, censor=True)


# --- Sec. 7.3: the single head's gain from D_K = 64 to 128 ----------------------------------------------------------

def _acc(base, gains):
    low = {i: base + 0.001 * i for i in range(len(gains))}
    return low, {i: low[i] + g for i, g in enumerate(gains)}


def _gain(low, high, contrast=CONTRASTS[0], level=0.025, margin=GAIN_MARGIN):
    return gain_decision(low, high, margin=margin, level=level, contrast=contrast)


def test_sign_test_interval_reaches_the_order_statistics_its_level_allows():
    d = [0.3, -0.1, 0.2, 0.5, 0.1, 0.4, 0.6]
    assert sign_test_interval(d, 0.025) == (0.3, -0.1, 0.6)  # 2^-7 <= 0.025 < 8 / 2^7: the extremes
    assert sign_test_interval(d, 0.07) == (0.3, 0.1, 0.5)  # 8 / 2^7 <= 0.07: one rank in from each end
    med, lo, hi = sign_test_interval(d[:5], 0.025)  # 2^-5 > 0.025: five pairs cannot decide at this level
    assert (lo, hi) == (-math.inf, math.inf) and med == 0.2
    with pytest.raises(ValueError):
        sign_test_interval(d, 0.5)
    with pytest.raises(ValueError):
        sign_test_interval([0.1, math.nan], 0.025)


@pytest.mark.parametrize("contrast", CONTRASTS)
def test_the_gain_holds_fails_and_stays_inconclusive_by_one_band(contrast):
    up = [0.14, 0.17, 0.15, 0.16, 0.16, 0.16, 0.17]
    status, res = _gain(*_acc(0.39, up), contrast)
    assert status is H and res["pairs"] == 7 and res["interval"][0] >= GAIN_MARGIN and res["resolvable"]
    flat = [0.001, -0.002, 0.0, 0.002, -0.001, 0.001, 0.0]
    assert _gain(*_acc(0.39, flat), contrast)[0] is C  # wholly below one accuracy point
    straddle = [0.03, -0.02, 0.04, -0.01, 0.02, 0.05, -0.03]
    status, res = _gain(*_acc(0.39, straddle), contrast)
    assert status is I and res["interval"][0] < GAIN_MARGIN <= res["interval"][1]


def test_a_seed_that_collapses_to_null_leaves_the_gain_undecided():
    # seed 3 collapses at D_K = 128 (accuracy ~ 0): the gain is no longer shown, under either contrast
    low, high = _acc(0.39, [0.14, 0.17, 0.15, 0.16, 0.16, 0.16, 0.17])
    high[3] = 0.002
    for contrast in CONTRASTS:
        status, res = _gain(low, high, contrast)
        assert status is I and res["interval"][0] < 0 < res["interval"][1]


def test_the_sign_test_cannot_decide_below_its_resolution_and_pairs_follow_seed_indices():
    low, high = _acc(0.39, [0.14, 0.17, 0.15, 0.16, 0.16, 0.16, 0.17])
    status, res = _gain(low, high, CONTRASTS[1], level=0.005)  # 2^-7 > 0.005
    assert status is I and not res["resolvable"]
    assert _gain(low, high, CONTRASTS[0], level=0.005)[0] is H
    del high[6]
    assert _gain(low, high)[1]["pairs"] == 6
    with pytest.raises(ValueError):
        _gain(low, high, "ratio")


def _sec73_records():
    out = []
    for D, base in ((64, 0.39), (128, 0.55), (256, 0.62)):
        for i in range(7):
            out.append({"D_K": D, "h": 1, "seed_index": i, "seed": 100 + i, "preset": "full", "source": "minilm",
                        "test_acc": base + 0.002 * i, "final_test_acc": base, "best_val_acc": base, "steps": 100000})
    return out


def test_the_planted_no_dk_effect_copies_the_smallest_dk_and_is_rejected():
    recs = _sec73_records()
    before = [dict(r) for r in recs]
    planted = PLANTS["sec73_no_dk_effect"](recs)
    assert recs == before  # the stored records are untouched
    acc = {D: {r["seed_index"]: r["test_acc"] for r in planted if r["D_K"] == D} for D in (64, 128, 256)}
    assert acc[64] == acc[128] == acc[256]
    for contrast in CONTRASTS:
        assert _gain(acc[64], acc[128], contrast)[0] is C
    orig = {D: {r["seed_index"]: r["test_acc"] for r in recs if r["D_K"] == D} for D in (64, 128)}
    assert _gain(orig[64], orig[128])[0] is H
    engine = {"config": {"n_heads": 1, "d_k": 8}, "metric": 0.5, "seed": 0}
    assert PLANTS["sec73_no_dk_effect"]([engine]) == [engine]


# --- Figure 2: h* along each axis -------------------------------------------------------------------------------------

_MS, _DS = (64, 128, 256, 512), (64, 32, 16)


def _grid(h_of, seeds=range(8), tie=0):
    """{(m, d): {seed: (lo, hi)}}: h* = h_of(m, d) on every seed, widened by a factor 2^tie each way (a tie)."""
    return {(m, d): {s: (h_of(m, d) / 2 ** tie, h_of(m, d) * 2 ** tie) for s in seeds} for m in _MS for d in _DS}


def _grows(m, d):
    return float(m // 64 * (64 // d))  # more heads with m and with 1 / d_model


def test_the_lines_of_the_grid_run_from_least_to_most_compressed():
    lines = grid_lines(_grid(_grows))
    assert lines["m at d_model = 32"] == [(64, 32), (128, 32), (256, 32), (512, 32)]
    assert lines["d_model at m = 128"] == [(128, 64), (128, 32), (128, 16)]
    assert len(lines) == 7


def test_hstar_grows_along_each_axis_holds_fails_and_stays_inconclusive():
    status, res = axes_decision(_grid(_grows), 0.05, seed=1)
    assert status is H and res["axes"] == {"m": H.value, "d_model": H.value} and res["resolvable"]
    # one line reversed (more heads at d_model = 64 than at 16 when m = 256): that axis fails, so does the claim
    def reversed_at_256(m, d):
        return _grows(m, d) if m != 256 else float(d)
    status, res = axes_decision(_grid(reversed_at_256), 0.05, seed=1)
    assert status is C and res["lines"]["d_model at m = 256"]["status"] == C.value and res["axes"]["m"] != C.value
    # the planted alternative: h* constant (heads make no difference to which h attains D_K*)
    status, res = axes_decision(_grid(lambda m, d: 4.0), 0.05, seed=1)
    assert status is I and all(v["p (grows)"] == 1.0 for v in res["lines"].values())


def test_ties_never_count_as_evidence_for_the_claim():
    # h* grows by a factor 2 per step, but every seed ties over a factor 4 each way: read against the test, the
    # growth is not shown (and not reversed either)
    status, res = axes_decision(_grid(_grows, tie=2), 0.05, seed=1)
    assert status is I
    assert all(v["status"] == I.value for v in res["lines"].values())


def test_one_cell_short_of_seeds_is_a_line_of_the_others_and_resolution_is_reported():
    sets = _grid(_grows)
    sets[(64, 64)] = {}  # every seed of the least compressed cell censored
    status, res = axes_decision(sets, 0.05, seed=1)
    assert status is H and res["lines"]["d_model at m = 64"]["seeds per cell"] == [0, 8, 8]
    two = {(64, 32): {0: (1.0, 1.0)}, (64, 16): {0: (2.0, 2.0)}}  # two points: no level below 1/2 is reachable
    status, res = axes_decision(two, 0.05, seed=1)
    assert status is I and not res["resolvable"]


def test_the_rank_trend_is_reproducible_and_reads_ties_against_each_test():
    pts = [(x, float(x + 1), float(x + 1)) for x in range(3) for _ in range(6)]
    a, b = spearman_trend(pts, rng=_rng(3)), spearman_trend(pts, rng=_rng(3))
    assert a == b and a["p_up"] < 1e-3 and a["p_down"] == 1.0 and a["rho_up"] == pytest.approx(1.0)
    tied = [(x, 1.0, 8.0) for x in range(3) for _ in range(6)]
    t = spearman_trend(tied, rng=_rng(3))
    assert t["rho_up"] < 0 < t["rho_down"] and t["p_up"] > 0.5 and t["p_down"] > 0.5
    assert spearman_trend([(0, 1.0, 1.0)], rng=_rng(3))["p_up"] == 1.0


def _rng(seed):
    import numpy as np

    return np.random.default_rng(seed)


def _cell_records():
    """One cell (m 64, d_model 32; D_K in {4, 8, 16}, h in {1, 2, 4}): seed 0 passes at D_K 8 with h 2 and 4 (a
    tie); seed 1 passes at D_K 8 with h 2 on a run that hit the cap (censored); seed 2 passes at the lowest D_K
    (censored); seed 3 never passes."""
    out = []
    for s in range(4):
        for D in (4, 8, 16):
            for h in (1, 2, 4):
                if D % h:
                    continue
                f1 = 0.5
                if (s == 0 and D >= 8 and h >= 2) or (s == 1 and D >= 8 and h == 2) or (s == 2 and h == 1):
                    f1 = 0.999
                stopped = not (s == 1 and D == 8)
                out.append({"config": {"variant": "max", "graph": "permutation", "r": 1, "m": 64, "d_model": 32,
                                       "n_heads": h, "d_k": D // h, "max_steps": 20000},
                            "seed": s, "metric": f1, "stopped_early": stopped, "steps": 20000,
                            "val_history": [f1] * 12, "extra": {}, "tau": 0.0})
    return out


def test_hstar_sets_read_ties_as_intervals_and_leave_censored_seeds_out():
    sets, info = hstar_sets(_cell_records(), censored=LEFT_OUT)
    assert sets == {0: (2.0, 4.0)} and info == {"censored": [1, 2], "no h*": [3], "tied": [0]}
    sets, info = hstar_sets(_cell_records(), censored=AS_MEASURED)
    assert sets == {0: (2.0, 4.0), 1: (2.0, 2.0), 2: (1.0, 1.0)} and info["censored"] == [1, 2]
    with pytest.raises(ValueError):
        hstar_sets(_cell_records(), censored="read in favour")
