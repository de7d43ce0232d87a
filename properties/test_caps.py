"""The doubled-cap rule of Table 2 (claim table2-doubled-cap-keeps-base-thresholds, rgr_verify.claims.paper_appa.caps):
a cell moves only when a head count's lower bound at the rung below D_K* clears 0.99, stays only when every head
count's upper bound is below it, and is undecided in between; a rung that is not the one below D_K* covers nothing."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from rgr_verify.analysis.capacity import curves
from rgr_verify.claims.paper_appa.caps import doubled_cap_cell
from rgr_verify.claims.tools import runs_by_config
from rgr_verify.runs.presets import CAP2X_RUNGS, preset_runs, table2_cap


def _rec(h, D, seed, metric, steps=20000, stopped=False):
    return {"config": {"variant": "max", "graph": "permutation", "r": 1, "m": 64, "d_model": 16, "n_heads": h,
                       "d_k": D // h, "max_steps": steps}, "seed": seed, "metric": metric, "stopped_early": stopped}


def _base():
    # D_K* = 24 (h = 2 passes there), the rung below is 16 with h = 1 and h = 2 below 0.99
    recs = []
    for s in range(10):
        recs += [_rec(1, 16, s, 0.90), _rec(2, 16, s, 0.97), _rec(2, 24, s, 0.999, stopped=True),
                 _rec(1, 24, s, 0.95)]
    return curves(recs)[("max", "permutation", 1, 64, 16)]


def _doubled(f1_h1, f1_h2):
    recs = [_rec(1, 16, s, f1_h1(s), 40000) for s in range(10)] + [_rec(2, 16, s, f1_h2(s), 40000) for s in range(10)]
    return runs_by_config(recs)[(64, 16)]


def _kind(doubled, rung=16):
    return doubled_cap_cell(_base(), doubled, rung, alpha_moves=0.05 / 20, alpha_stays=0.05)["kind"]


def test_a_head_count_clearly_above_moves_the_cell():
    assert _kind(_doubled(lambda s: 0.9, lambda s: 0.997 + 0.0001 * s)) == "moves"


def test_every_head_count_clearly_below_keeps_the_cell():
    assert _kind(_doubled(lambda s: 0.90 + 0.001 * s, lambda s: 0.975 + 0.001 * s)) == "stays"


@settings(max_examples=40, deadline=None)
@given(st.lists(st.floats(0.97, 1.0), min_size=10, max_size=10))
def test_a_head_count_whose_interval_straddles_the_target_decides_nothing(vals):
    # h = 2's runs spread around 0.99: it can neither move nor keep the cell unless its whole bound is on one side
    kind = _kind(_doubled(lambda s: 0.5, lambda s: vals[s]))
    from rgr_verify.core.stats import t_interval

    _, lo, _ = t_interval(vals, confidence=1 - 2 * 0.05 / 20)
    _, _, hi = t_interval(vals, confidence=1 - 2 * 0.05)
    assert kind == ("moves" if lo >= 0.99 else "stays" if hi < 0.99 else "undecided")


def test_a_rung_that_is_not_the_one_below_the_threshold_covers_nothing():
    assert _kind(_doubled(lambda s: 0.9, lambda s: 0.999), rung=12) == "not covered"
    # a head count tested at the rung without a doubled-cap run: not covered either
    only_h1 = runs_by_config([_rec(1, 16, s, 0.9, 40000) for s in range(10)])[(64, 16)]
    assert _kind(only_h1) == "not covered"


def test_the_doubled_cap_preset_trains_every_base_head_count_at_each_rung_with_twice_the_cap():
    runs = preset_runs("table2-cap2x", "full")
    grid = {(c.m, c.d_model, c.n_heads, c.n_heads * c.d_k) for c, _ in preset_runs("sec6-grid", "full")}
    by_cell: dict = {}
    for c, s in runs:
        assert c.max_steps == 2 * table2_cap(c.m, c.d_model) and c.n_heads * c.d_k == CAP2X_RUNGS[(c.m, c.d_model)]
        by_cell.setdefault((c.m, c.d_model), set()).add((c.n_heads, s))
    for (m, d), rung in CAP2X_RUNGS.items():
        heads = {h for (mm, dd, h, D) in grid if (mm, dd, D) == (m, d, rung)}
        assert by_cell[(m, d)] == {(h, s) for h in heads for s in range(10)}


def test_the_stricter_cap_reading_flags_a_cell_where_any_threshold_run_hit_the_cap():
    from rgr_verify.analysis.capacity import cap_sensitivity
    from rgr_verify.claims.tools import cap_choices
    from rgr_verify.claims.tools.multiverse import DIMENSIONS

    def cell(stopped):  # 10 runs at (h*, D_K*) = (2, 24), ``stopped`` of them stopped early
        recs = [_rec(2, 24, s, 0.999, stopped=s < stopped) for s in range(10)]
        pts = curves(recs)[("max", "permutation", 1, 64, 16)]
        return cap_sensitivity({(2, 24): recs}, pts, 24, 2)

    caps = {"all stopped": cell(10), "one hit": cell(9), "most hit": cell(4)}
    assert [caps[k]["any threshold run hit the cap"] for k in caps] == [False, True, True]
    assert [caps[k]["cap-limited"] for k in caps] == [False, False, True]
    most, anyhit, none = DIMENSIONS["cap-limited cells"]
    assert cap_choices(caps, list(caps)) == {most: {"most hit"}, anyhit: {"one hit", "most hit"}, none: set()}
