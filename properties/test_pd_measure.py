"""Judgements of the Sec. 6 / Sec. 7 / App. A claims against stated values."""

from __future__ import annotations

import math

import pytest

from rgr_verify.claims.base import CheckContext, Status
from rgr_verify.claims.tools.measure import FACTOR2_TOL, memo, within_factor


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
