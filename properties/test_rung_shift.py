# Thresholds compared in ladder rungs (rgr_verify.claims.tools.rungs): the exact shift interval detects a planted
# shift of two rungs, keeps identical groups inside one rung with enough seeds, stays open with too few, handles
# seeds that never pass, and rejects bad input; the per-seed rungs read each seed at its least and at its measured
# rung.
import math

import numpy as np
import pytest

from rgr_verify.claims.base import Status
from rgr_verify.claims.paper_appa.reading_effect import READING_BAND, reading_shift_status
from rgr_verify.claims.standards import decide_interval
from rgr_verify.claims.tools import (end_level, rung, rung_at_least, rung_shift, seed_rungs, shift_interval,
                                     smallest_pvalue)
from rgr_verify.runs.presets import LADDER

INF = math.inf
# the App. A.1 reading claims' level: 0.05 over 6 cells and the two ends of [-1, 1]
LEVEL = end_level(0.05, 6, READING_BAND)
BASE = [4, 4, 5, 4, 4, 4, 3, 4, 5, 4]  # ten seeds' rungs, the spread of a base-grid cell


def test_rungs_of_the_ladder():
    assert [rung(D) for D in LADDER[:6]] == [0, 1, 2, 3, 4, 5]
    assert rung(3) == -1 and rung(2) == -2 and rung(1) == -4 and rung(INF) == INF
    assert rung_at_least(12) == 3 and rung_at_least(12.000001) == 4 and rung_at_least(0) == -4
    assert rung_at_least(INF) == INF and rung_at_least(6145) == rung(8192) == len(LADDER)  # the ladder goes on


def test_a_planted_shift_of_two_rungs_is_detected():
    lo, hi = shift_interval(BASE, [x + 2 for x in BASE], alpha=LEVEL)
    assert lo <= 2 <= hi
    status, res = decide_interval((lo, hi), READING_BAND)
    assert res["outside"] and status is Status.CONTRADICTED_EMPIRICALLY
    lo, hi = shift_interval([x + 2 for x in BASE], BASE, alpha=LEVEL)  # and the other way round
    assert hi < -1 and decide_interval((lo, hi), READING_BAND)[0] is Status.CONTRADICTED_EMPIRICALLY


def test_identical_groups_with_enough_seeds_hold():
    lo, hi = shift_interval(BASE, list(BASE), alpha=LEVEL)
    assert -1 <= lo <= 0 <= hi <= 1
    assert decide_interval((lo, hi), READING_BAND)[0] is Status.HOLDS_EMPIRICALLY
    assert shift_interval([4] * 10, [4] * 10, alpha=LEVEL) == (0.0, 0.0)


def test_too_few_seeds_leave_the_interval_open():
    # 3 seeds against 3: the exact test's smallest one-sided p-value is 1/20, above the level: nothing is excluded
    assert smallest_pvalue(3, 3) == pytest.approx(0.05)
    assert shift_interval([4] * 3, [4] * 3, alpha=LEVEL) == (-INF, INF)
    assert decide_interval((-INF, INF), READING_BAND)[0] is Status.INCONCLUSIVE
    assert shift_interval([4] * 3, [INF] * 3, alpha=0.05 / 3) == (-INF, INF)
    # at the level 1/20 itself, unanimous seeds close it
    assert shift_interval([4] * 3, [4] * 3, alpha=0.05) == (0.0, 0.0)


def test_seeds_that_never_pass():
    # every seed of one group never passes: the shift is beyond any finite number of rungs
    assert shift_interval([4] * 10, [INF] * 10, alpha=LEVEL) == (INF, INF)
    assert shift_interval([INF] * 10, [4] * 10, alpha=LEVEL) == (-INF, -INF)
    # one seed that never passes among ten does not decide by itself
    lo, hi = shift_interval(BASE, BASE[:9] + [INF], alpha=LEVEL)
    assert lo <= 0 <= hi
    # both groups never pass: no shift can be told
    assert shift_interval([INF] * 10, [INF] * 10, alpha=LEVEL) == (-INF, INF)


def test_the_interval_rarely_excludes_a_true_shift():
    # exact test inverted: under no shift, 0 falls outside the interval in at most 2 x alpha of the draws
    rng = np.random.default_rng(20261128)
    alpha, misses, draws = 0.05, 0, 200
    for _ in range(draws):
        a = list(rng.integers(3, 7, size=8))
        b = list(rng.integers(3, 7, size=8))
        lo, hi = shift_interval(a, b, alpha=alpha)
        misses += not lo <= 0 <= hi
    assert misses / draws <= 2 * alpha + 0.03


@pytest.mark.parametrize("call", [
    lambda: shift_interval([], [4], alpha=0.05),
    lambda: shift_interval([4], [], alpha=0.05),
    lambda: shift_interval([4, math.nan], [4], alpha=0.05),
    lambda: shift_interval([4.5], [4], alpha=0.05),
    lambda: shift_interval([4], [4], alpha=0.0),
    lambda: shift_interval([4], [4], alpha=0.5),
    lambda: shift_interval([4], [4], alpha="x"),
    lambda: rung(5),
    lambda: rung(math.nan),
    lambda: rung_at_least(-1),
    lambda: rung(6000),
    lambda: smallest_pvalue(0, 3),
    lambda: end_level(0.05, 0, READING_BAND),
    lambda: end_level(0.05, 2, (-INF, INF)),
    lambda: end_level(1.5, 2, READING_BAND),
    lambda: seed_rungs([], read="low"),
    lambda: seed_rungs([_rec(0, 4, 0.999, True)], read="middle"),
])
def test_bad_input_is_a_value_error(call):
    with pytest.raises(ValueError):
        call()


def test_the_level_splits_over_cells_and_finite_band_ends():
    assert end_level(0.05, 6, (-1, 1)) == pytest.approx(0.05 / 12)
    assert end_level(0.05, 3, (1, INF)) == pytest.approx(0.05 / 3)
    assert end_level(0.05, 1, (-INF, 1)) == pytest.approx(0.05)


def _rec(seed, D, metric, stopped_early, hist=None, h=1):
    return {"config": {"m": 64, "d_model": 32, "n_heads": h, "d_k": D // h, "variant": "max"}, "seed": seed,
            "metric": metric, "stopped_early": stopped_early, "val_history": hist or [metric] * 20}


def _cell(shift=0):
    """Three seeds on the ladder 8, 12, 16, 24 (rungs 2..5; plus ``shift`` rungs): seed 0 passes at 16 by early
    stopping, its run at 12 hit the cap still rising; seed 1 passes at 16 at the cap, its run at 12 likewise (both
    could pass at 12 with a longer cap); seed 2 never passes, every run stopping early."""
    ladder = [8, 12, 16, 24, 32, 48, 64, 96]
    at = lambda i: ladder[i + shift]  # noqa: E731
    rising = [0.5 + 0.02 * k for k in range(24)]  # still climbing fast at the cap
    return [_rec(0, at(0), 0.8, True), _rec(0, at(1), 0.96, False, rising), _rec(0, at(2), 0.995, True),
            _rec(0, at(3), 0.999, True),
            _rec(1, at(0), 0.8, True), _rec(1, at(1), 0.96, False, rising), _rec(1, at(2), 0.992, False),
            _rec(1, at(3), 0.999, True),
            _rec(2, at(0), 0.5, True), _rec(2, at(1), 0.5, True), _rec(2, at(2), 0.6, True),
            _rec(2, at(3), 0.7, True)]


def test_seed_rungs_read_each_seed_at_its_least_and_as_measured():
    recs = _cell()
    assert seed_rungs(recs, read="high") == [4.0, 4.0, INF]
    # seed 0 passed by early stopping: as measured. Seed 1's threshold is an upper bound (cap): its least rung is
    # the one above the last D_K it could not reach with a doubled cap (8, rung 2), so 12 (rung 3). Seed 2 never
    # passes and no run of it could with a doubled cap: the rung beyond the grid's top (24), 32 (rung 6)
    assert seed_rungs(recs, read="low") == [4.0, 3.0, 6.0]
    # read as set by the cap, seed 0's threshold is an upper bound too: its run at 12 could pass, so rung 3
    assert seed_rungs(recs, read="low", upper_only=True) == [3.0, 3.0, 6.0]


def test_rung_shift_reads_each_end_in_its_own_disfavour():
    a, b = _cell(), _cell(shift=2)
    sh = rung_shift(a, b, alpha=0.05)
    assert sh["a rungs"]["high"] == [4.0, 4.0, INF] and sh["b rungs"]["high"] == [6.0, 6.0, INF]
    lo, hi = sh["interval"]
    assert lo <= hi and sh["smallest p-value"] == pytest.approx(0.05)
    # the low end uses b low against a high, the high end b high against a low
    assert lo == shift_interval(sh["a rungs"]["high"], sh["b rungs"]["low"], alpha=0.05)[0]
    assert hi == shift_interval(sh["a rungs"]["low"], sh["b rungs"]["high"], alpha=0.05)[1]


def test_the_reading_rule_is_the_interval_against_one_rung():
    def row(lo, hi):
        return {"shift interval (rungs)": [lo, hi]}

    assert reading_shift_status({"a": row(0, 0), "b": row(-1, 1)}) is Status.HOLDS_EMPIRICALLY
    assert reading_shift_status({"a": row(0, 0), "b": row(2, INF)}) is Status.CONTRADICTED_EMPIRICALLY
    assert reading_shift_status({"a": row(-4, 4), "b": row(0, 0)}) is Status.INCONCLUSIVE
    assert reading_shift_status({"a": row(1, 3)}) is Status.INCONCLUSIVE  # meets the band: not inside, not outside
