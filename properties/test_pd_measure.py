"""Judgements of the Sec. 6 / Sec. 7 / App. A claims against stated values."""

from __future__ import annotations

import math

import pytest

from rgr_verify.claims.base import CheckContext, Status
from rgr_verify.claims.paper_sec6.measure import FACTOR2_TOL, judge_reading, memo, within_factor


def _reading(slope, r2, grid, ci):
    return {"paper estimator (LS through origin, first passing D_K, uncensored cells)":
                {"slope": slope, "R2 centred": r2, "grid range of the slope (cells anywhere in their D_K* interval)":
                    list(grid)},
            "interval regression, censored cells as intervals": {"95% profile": list(ci)}}


def test_judge_reading_holds_at_the_stated_slope_and_not_at_its_double_or_half():
    r = _reading(1.3, 0.98, (0.9, 1.3), (0.6, 0.93))
    assert judge_reading(r, paper_slope=1.19, slope_factor=1.5, paper_r2=0.944)["verdict under this reading"] == "holds"
    for wrong in (2.38, 0.595):
        assert judge_reading(r, paper_slope=wrong, slope_factor=1.5,
                             paper_r2=0.944)["verdict under this reading"] != "holds"


def test_judge_reading_r2_is_two_sided_and_floor_applies():
    r = _reading(1.0, 0.98, (0.9, 1.1), (0.9, 1.1))
    assert judge_reading(r, paper_slope=1.0, slope_factor=1.5, paper_r2=0.49)["verdict under this reading"] != "holds"
    assert judge_reading(r, paper_slope=1.0, slope_factor=1.5, r2_floor=0.99)["verdict under this reading"] != "holds"
    assert judge_reading(r, paper_slope=1.0, slope_factor=1.5, r2_floor=0.8)["verdict under this reading"] == "holds"


def test_judge_reading_contradicts_only_when_grid_and_interval_miss():
    r = _reading(1.0, 0.98, (0.9, 1.1), (0.8, 1.2))
    assert judge_reading(r, paper_slope=4.0, slope_factor=1.5)["verdict under this reading"] == "contradicted"
    with pytest.raises(ValueError, match="slope_factor"):
        judge_reading(r, paper_slope=1.0, slope_factor=1.0)
    with pytest.raises(ValueError, match="paper_slope"):
        judge_reading(r, paper_slope=0.0, slope_factor=1.5)


def test_within_factor_is_the_midpoint_rule():
    assert within_factor(8, 11) and not within_factor(8, 5.5) and not within_factor(8, 22)
    assert within_factor(1.0, 1.0 * FACTOR2_TOL) and not within_factor(-1.0, 1.0)
    with pytest.raises(ValueError, match="factor"):
        within_factor(1.0, 1.0, 1.0)
    assert math.isclose(FACTOR2_TOL ** 2, 2.0)


def test_memo_computes_once_and_replays_provenance():
    calls = []

    def compute():
        calls.append(1)
        ctx1.provenance.append("replayed X")
        return 42

    ctx1 = CheckContext(seed=123456789, tier="quick")
    assert memo("pd-test", ctx1, compute) == 42
    ctx2 = CheckContext(seed=123456789, tier="quick")
    assert memo("pd-test", ctx2, compute) == 42
    assert len(calls) == 1 and ctx2.provenance == ["replayed X"]
    with pytest.raises(ValueError, match="name"):
        memo("", ctx1, compute)
    with pytest.raises(ValueError, match="compute"):
        memo("pd-test-2", ctx1, 3)


def test_decide_plateau_follows_its_stated_centre():
    from rgr_verify.claims.paper_sec7 import sec73_rules as S
    from rgr_verify.runs.sec73_presets import sec73_preset
    from rgr_verify.runs.sec73_sweep import Sec73Results

    preset = sec73_preset("full")  # two D_K >= 256: the gain from the first to the last has an interval
    records = tuple({"D_K": D, "h": h, "seed_index": i, "test_acc": 0.81 + 0.001 * i, "test_null_rate": 0.0,
                     "source": preset.source} for D, h in preset.cells() for i in range(preset.seeds))
    res = Sec73Results(preset, "synthetic", "cpu", records)
    assert S.decide_plateau(res)["status"] is Status.HOLDS_EMPIRICALLY
    for wrong in (0.405, 1.62):  # the mutants x1/2 and x2
        assert S.decide_plateau(res, center=wrong)["status"] is Status.CONTRADICTED_EMPIRICALLY
    with pytest.raises(ValueError, match="center"):
        S.decide_plateau(res, center=0.0)
