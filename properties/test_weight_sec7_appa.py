"""Decision rules of the Sec. 7 and App. A claims, against the alternatives they must reject.

- sec72-value-gap-narrows-at-dmodel32: the readings are combined by verdict_over_readings, the difference being the
  printed one: a ratio that fails beside a difference that holds is not a pass, and not a refutation either.
- sec72-value-dmodel32-best-intermediate-heads: a fold decided on runs that hit the step cap decides nothing.
- sec71-softmax-shift-size: a shift that stays inside [1, ln m] but does not grow with m does not pass.
- table2-sym-coverage: the caption's default counts; without a default the unlisted row is found.
- appa3-thresholds-below-construction-r16: the construction's smallest working width is compared, so a construction
  that works below the trained threshold refutes, and one that never works decides nothing.
- eq32 / appa3-edges: the exponent of D_K* in r is held to an interval standard (r^0.76 is not "one constant").
- appa1-sampler-positive-rate / eq30: the Hoeffding interval is exact for values in [0, 1].
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from rgr_verify.claims.base import Status, Verdict
from rgr_verify.claims.paper_appa.a3_rules import (
    DEGREE_TOL,
    construction_decision,
    degree_exponent,
    degree_law_status,
    edges_collapse_status,
    one_constant_tol,
)
from rgr_verify.claims.paper_appa.results import TABLE2_CUTOFFS, table2_coverage_verdict
from rgr_verify.claims.paper_appa.sampler import hoeffding_interval
from rgr_verify.claims.paper_sec7.softmax import shift_growth_range, shift_size_decision
from rgr_verify.claims.paper_sec7.value import GAP_PRINTED, gap_reading_verdict, d32_fold_decision
from rgr_verify.claims.tools import BASE_GRID, DIAGONAL, EXTRA, TABLE2, verdict_over_readings
from rgr_verify.analysis.fits import DKInterval

# ---------------------------------------------------------------- Sec. 7.2: the gap, under two readings


def _gap(diff16, diff32, ratio16, ratio32):
    per = {"difference of MSE": gap_reading_verdict(diff16, diff32, "difference of MSE", 144),
           "ratio of MSE": gap_reading_verdict(ratio16, ratio32, "ratio of MSE", 144)}
    return verdict_over_readings(per, printed=GAP_PRINTED, hypotheses=["planted gaps"])


def test_gap_mixed_readings_are_not_a_pass():
    # as measured: the difference narrows, the ratio widens -> inconclusive (the old rule said holds)
    v = _gap([0.35, 0.36, 0.356], [0.21, 0.25, 0.26], [2.1, 2.1, 2.06], [3.5, 3.3, 3.8])
    assert v.status is Status.INCONCLUSIVE
    assert v.evidence_level == "experiment"


def test_gap_fails_when_the_printed_reading_fails():
    v = _gap([0.21, 0.25, 0.26], [0.35, 0.36, 0.356], [3.5, 3.3, 3.8], [2.1, 2.1, 2.06])
    assert v.status is Status.CONTRADICTED_EMPIRICALLY  # difference widens, ratio narrows: fails as printed


def test_gap_holds_only_under_both_readings():
    v = _gap([0.35, 0.36, 0.356], [0.21, 0.25, 0.26], [3.5, 3.3, 3.8], [2.1, 2.1, 2.06])
    assert v.status is Status.HOLDS_EMPIRICALLY


# ---------------------------------------------------------------- Sec. 7.2: censored folds


def _fold(win, censored=False):
    return {"held-out winner h": win, "censored": censored}


def test_censored_folds_decide_nothing():
    # as measured: h = 16 wins every fold, on runs that hit the cap -> inconclusive (was contradicted)
    assert d32_fold_decision([_fold(16, True)] * 3, (4, 8)) is Status.INCONCLUSIVE
    assert d32_fold_decision([_fold(8, True)] * 3, (4, 8)) is Status.INCONCLUSIVE
    assert d32_fold_decision([_fold(16)] * 3, (4, 8)) is Status.CONTRADICTED_EMPIRICALLY
    assert d32_fold_decision([_fold(4), _fold(8), _fold(4)], (4, 8)) is Status.HOLDS_EMPIRICALLY
    assert d32_fold_decision([_fold(4), _fold(16), _fold(4)], (4, 8)) is Status.INCONCLUSIVE


# ---------------------------------------------------------------- Sec. 7.1: the size and growth of the shift


def test_flat_shift_inside_the_band_does_not_pass():
    # the measured cells: every range inside [1, ln m], first passing shifts 2.67, 2.0, 2.0 (no growth)
    cells = {(64, 16): (1.0, 2.0), (64, 32): (2.0, 4.0), (128, 32): (4 / 3, 3.0), (256, 32): (1.5, 8 / 3)}
    growth = shift_growth_range([64, 128, 256], [2.0, 4 / 3, 1.5], [4.0, 3.0, 8 / 3])
    status, words = shift_size_decision(cells, growth)
    assert status is not Status.HOLDS_EMPIRICALLY
    assert words["growth in ln m"] == "undecided"
    # a shift known exactly and constant in m is contradicted on the growth part
    ms = [64, 4096, 2 ** 20]
    flat = shift_growth_range(ms, [2.0] * 3, [2.0] * 3)
    assert flat == pytest.approx((0.0, 0.0), abs=1e-12)
    status, _ = shift_size_decision({(m, 32): (2.0, 2.0) for m in ms}, flat)
    assert status is Status.CONTRADICTED_EMPIRICALLY


def test_shift_growing_like_ln_m_passes():
    ms = [64, 4096, 2 ** 20]
    s = [0.5 * math.log(m) for m in ms]
    growth = shift_growth_range(ms, s, s)
    assert growth == pytest.approx((1.0, 1.0))
    status, _ = shift_size_decision({(m, 32): (x, x) for m, x in zip(ms, s)}, growth)
    assert status is Status.HOLDS_EMPIRICALLY
    # a cell whose whole range lies above ln m contradicts, whatever the growth
    status, _ = shift_size_decision({(64, 32): (5.0, 6.0)}, growth)
    assert status is Status.CONTRADICTED_EMPIRICALLY


# ---------------------------------------------------------------- Table 2


def test_table2_transcription_matches_the_rows():
    assert set(TABLE2_CUTOFFS) == set(TABLE2)


def test_table2_default_covers_unlisted_rows():
    configs = sorted(BASE_GRID | set(DIAGONAL) | set(EXTRA))
    assert table2_coverage_verdict(configs).status is Status.VERIFIED
    v = table2_coverage_verdict(configs, default=None)  # a caption without a default: the unlisted row is found
    assert v.status is Status.REFUTED
    assert v.witness == {"m": 1024, "d_model": 32}


# ---------------------------------------------------------------- App. A.3: the construction


def _rows(working_from, widths=(1, 2, 3, 4, 6, 8, 12, 16)):
    out = []
    for d_k in widths:
        ok = working_from is not None and d_k >= working_from
        out.append({"d_k": d_k, "separates": [ok] * 3})
        if ok:
            break
    return out


def test_construction_comparison_can_fail():
    # trained D_K* in (128, 192], 64 heads
    assert construction_decision(128, 192, 64, _rows(2))[0] is Status.CONTRADICTED_EMPIRICALLY  # works at D_K 128
    assert construction_decision(128, 192, 64, _rows(16))[0] is Status.HOLDS_EMPIRICALLY  # needs > 64 * 12
    assert construction_decision(128, 192, 64, _rows(4))[0] is Status.HOLDS_EMPIRICALLY  # fails at 192: needs more
    assert construction_decision(128, 192, 64, _rows(3))[0] is Status.INCONCLUSIVE  # (128, 192]: same as trained
    assert construction_decision(128, 192, 64, _rows(None))[0] is Status.INCONCLUSIVE  # never works: nothing to compare


# ---------------------------------------------------------------- App. A.3: the exponent of D_K* in r


def _ladder_ivs(rs, gamma, c=24.0, step=1.25):
    """D_K* = c r^gamma known to a ladder step: (D / step, D * step]."""
    return {r: DKInterval(c * r ** gamma / step, c * r ** gamma * step, "interval") for r in rs}


def test_degree_exponent_standard():
    rs = [1, 2, 4, 8, 16]
    tol = one_constant_tol(1, 16)
    assert tol == pytest.approx(math.log(math.sqrt(2)) / math.log(16))
    exact = degree_exponent(rs, _ladder_ivs(rs, 1.0))
    assert degree_law_status(exact)[0] is Status.HOLDS_EMPIRICALLY
    # 'one constant' within sqrt2 over 16x in r needs a fine resolution: a coarse ladder cannot pass it
    assert degree_law_status(exact, tol=tol)[0] is Status.INCONCLUSIVE
    fine = degree_exponent(rs, _ladder_ivs(rs, 1.0, step=1.05))
    assert degree_law_status(fine, tol=tol)[0] is Status.HOLDS_EMPIRICALLY
    # a constant that falls 4x over the degrees (gamma = 0.5) is not one constant
    drift = degree_exponent(rs, _ladder_ivs(rs, 0.5))
    assert degree_law_status(drift, tol=tol)[0] is Status.CONTRADICTED_EMPIRICALLY
    # the vertices law (no growth) is contradicted against the edges law
    flat = degree_exponent(rs, _ladder_ivs(rs, 0.0))
    assert degree_law_status(flat, tol=DEGREE_TOL)[0] is Status.CONTRADICTED_EMPIRICALLY


def test_edges_collapse_needs_both_parts():
    H, I, C = Status.HOLDS_EMPIRICALLY, Status.INCONCLUSIVE, Status.CONTRADICTED_EMPIRICALLY
    assert edges_collapse_status({"constant": H, "exponent": H}) is H
    assert edges_collapse_status({"constant": I, "exponent": H}) is I
    assert edges_collapse_status({"constant": H, "exponent": C}) is C


# ---------------------------------------------------------------- App. A.1: exact intervals


def test_hoeffding_interval_is_exact_and_bounded():
    rng = np.random.default_rng(20261124)
    misses = 0
    for _ in range(200):
        x = rng.random(50) < 0.3
        _, lo, hi = hoeffding_interval(x.astype(float), confidence=0.9)
        misses += not lo <= 0.3 <= hi
    assert misses <= 20 * 2  # false-alarm rate 0.1 (Hoeffding is conservative: far fewer in practice)
    with pytest.raises(ValueError):
        hoeffding_interval([1.5])


def test_verdict_levels_bound_the_status():
    assert Verdict(Status.VERIFIED, evidence_level="experiment").status is Status.HOLDS_EMPIRICALLY
