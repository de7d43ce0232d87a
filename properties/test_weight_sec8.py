"""Decision rules of the Sec. 8 claims, against the alternatives they must reject.

- thm81-minimal-constants: the verdict must not flip with the seed. The test runs the claim's own table builder and
  decision rule (conclusion.constants_decision) over 5 seeds on a reduced grid ((m, d_model) = (512, 256), C in
  {8, 32}, 8 draws; the claim itself uses four to six sizes and six values of C), and plants tables the rule must
  not call contradicted.
- thm81-eq10-owner-mass: every draw of every size counts (steps12.eq10_decision).
- thm81-eq11-target-absent: the strategy draws only inside Theorem 8.1's ranges.
- alg2-layout / alg2-budget: a construction that departs from the paper's layout is reported.
"""

from __future__ import annotations

import math

import numpy as np
from hypothesis import given, settings

from rgr_verify.claims.base import CheckContext, Status
from rgr_verify.claims.paper_sec8.algorithm2 import layout_problems
from rgr_verify.claims.paper_sec8.common import algorithm2_instance
from rgr_verify.claims.paper_sec8.conclusion import constants_table, constants_decision
from rgr_verify.claims.paper_sec8.steps12 import eq10_decision
from rgr_verify.core.strategies import theorem81_cases


def test_minimal_constants_stable_over_seeds():
    statuses = []
    for seed in range(5):
        rows = constants_table(CheckContext(seed=1000 + seed), [(512, 256)], (8.0, 32.0), 8)
        statuses.append(constants_decision(rows)[0])
    assert statuses == [Status.CONTRADICTED_EMPIRICALLY] * 5, statuses


def _row(C, ok, wrong_only, draws=8):
    return {"C": C, "draws": draws, "draws_ok": ok, "draws_failing_on_a_wrong_item_only": wrong_only}


def test_constants_decision_rejects_alternatives():
    # a monotone tail of passing C: holds, never contradicted
    assert constants_decision([_row(8, 3, 5), _row(16, 8, 0), _row(32, 8, 0)])[0] is Status.HOLDS_EMPIRICALLY
    # the largest C fails through the owner head (true A <= 1/2): c0 too small, not a refutation
    assert constants_decision([_row(8, 6, 2), _row(32, 0, 5)])[0] is Status.INCONCLUSIVE
    # one draw of the largest C passes: not every draw fails, not decided
    assert constants_decision([_row(8, 6, 2), _row(32, 1, 7)])[0] is Status.INCONCLUSIVE
    assert constants_decision([_row(8, 6, 2), _row(32, 0, 8)])[0] is Status.CONTRADICTED_EMPIRICALLY


def _eq10_row(c0, holding, draws=6):
    return {"c0": c0, "draws": draws, "draws_holding": holding}


def test_eq10_decision_counts_every_draw():
    assert eq10_decision([_eq10_row(23, 0), _eq10_row(41, 6), _eq10_row(74, 6)]) == (Status.HOLDS_EMPIRICALLY, 41)
    # a failing draw at an intermediate size breaks the tail (the old rule looked at the largest size only)
    assert eq10_decision([_eq10_row(23, 6), _eq10_row(41, 5), _eq10_row(74, 6)])[0] is Status.INCONCLUSIVE
    # a failing draw at the largest size is never discarded
    assert eq10_decision([_eq10_row(23, 6), _eq10_row(41, 6), _eq10_row(74, 5)])[0] is Status.INCONCLUSIVE
    assert eq10_decision([_eq10_row(23, 6), _eq10_row(74, 0)])[0] is Status.CONTRADICTED_EMPIRICALLY


@settings(max_examples=60, deadline=None)
@given(theorem81_cases())
def test_theorem81_cases_inside_ranges(case):
    m, d, ell = case["m"], case["d_model"], case["ell"]
    assert m % d == 0 and d >= 8 * math.log(m)
    assert 8 * max(m // d, math.log(m)) <= ell <= m - 1
    assert case["C"] in (16.0, 64.0)


def test_layout_problems_detects_departures():
    import dataclasses

    c = algorithm2_instance(16, 4, 5, np.random.default_rng(0))
    ctx = np.array([[0, 3, 5, 9], [1, 2, 7, 15]])
    assert layout_problems(c, ctx) == []
    swapped = dataclasses.replace(c, W_Q=c.W_Q[::-1].copy())
    assert any("W^(k)" in p for p in layout_problems(swapped))
    assert layout_problems(dataclasses.replace(c, tau=0.25))
