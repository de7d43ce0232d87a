"""Small-sample pass routes held to the probability-bound standard (issue 37, item 6; review of 2026-11-28, section 1):
a pass on a sample that cannot certify the stated rate is inconclusive with its resolution, a failure keeps the rule
it had, and the rate a sample does certify is recorded.

- sec5-c3-ensures-n3-small (paper_sec5.c3_whp_verdict), thm81-eq10-owner-mass (paper_sec8.steps12.eq10_probability):
  re-judged;
- thmb5-limit-separation / thmb5-rademacher-signatures-verbatim: exact per drawn X (the limit settles the rate over
  W_sig), instances for 'every admissible X': holds-empirically at most, never verified, the random-X rate not judged;
- thm41-fixed-points-worst-permutation: restated as the constant; the rate its draws certify is recorded.
"""

from __future__ import annotations

import math

import pytest

from rgr_verify.claims.base import Status
from rgr_verify.claims.paper_appb.construction3 import b5_rate_record
from rgr_verify.claims.paper_sec4.fixed_points import rate_record
from rgr_verify.claims.paper_sec5 import c3_verdict, c3_whp_verdict
from rgr_verify.claims.paper_sec8.steps12 import eq10_decision, eq10_probability
from rgr_verify.claims.standards.probability import decide_failure_rate


def _c3_rows(values, ms=(1024, 2048, 4096)):
    return [{"m": m, "d_model": int(120 * math.log(m)), "c0": 120.0, "limit_max_N3_over_dk": list(values)} for m in ms]


def test_c3_clean_draws_are_inconclusive_with_their_resolution():
    rows = _c3_rows([0.18, 0.19, 0.2])
    assert c3_verdict(rows, c1=0.25).status is Status.HOLDS_EMPIRICALLY  # the per-draw rule passes ...
    v = c3_whp_verdict(rows, c1=0.25)
    assert v.status is Status.INCONCLUSIVE and v.evidence_level == "sampled"  # ... the w.h.p. rate is not certified
    per = v.params["probability_standard"]["per_m"]
    assert set(per) == {"1024", "2048", "4096"}
    assert per["1024"]["certified_rate"] == pytest.approx(1 - 1e-6 ** (1 / 3))
    assert per["4096"]["claimed_rate"] == pytest.approx(4096.0 ** -3)


def test_c3_failures_keep_the_rule_they_had():
    above = _c3_rows([0.3, 0.26, 0.28])
    assert c3_whp_verdict(above, c1=0.25).status is Status.INCONCLUSIVE  # never refuted from one c0
    assert "probability_standard" not in c3_whp_verdict(above, c1=0.25).params


def test_c3_rule_would_pass_on_a_sample_that_certifies_the_rate():
    # planted: enough clean draws to certify m^-3 at a small m (the standard can pass, it is not always inconclusive)
    n = int(decide_failure_rate(0, 1, 8.0 ** -3)["resolution"]["draws_needed_to_certify"]) + 1
    rows = [{"m": 8, "d_model": 8, "c0": 3.8, "limit_max_N3_over_dk": [0.1] * n}]
    v = c3_whp_verdict(rows, c1=0.25)
    assert v.status is Status.VERIFIED and v.evidence_level == "certified"


def _eq10_row(m, c0, holding, draws=6):
    return {"m": m, "c0": c0, "draws": draws, "draws_holding": holding}


def test_eq10_clean_tail_is_inconclusive_with_its_resolution():
    rows = [_eq10_row(256, 23, 0), _eq10_row(512, 41, 6), _eq10_row(1024, 74, 6)]
    status, tail = eq10_decision(rows)
    assert status is Status.HOLDS_EMPIRICALLY and tail == 41
    new, prob = eq10_probability(rows, status, tail)
    assert new is Status.INCONCLUSIVE
    assert set(prob["tail_sizes"]) == {"512", "1024"}  # only the tail is judged
    assert prob["tail_sizes"]["1024"]["certified_rate"] == pytest.approx(1 - 1e-6 ** (1 / 6))


def test_eq10_failures_keep_the_rule_they_had():
    rows = [_eq10_row(256, 23, 6), _eq10_row(1024, 74, 0)]
    status, tail = eq10_decision(rows)
    assert eq10_probability(rows, status, tail) == (Status.CONTRADICTED_EMPIRICALLY, None)


def test_thmb5_and_worst_permutation_records():
    rec = b5_rate_record(7)
    assert rec["admissible_instances"] == 7 and "not judged" in rec["random_X_reading"]
    r = rate_record(0, 2, 2048)
    assert r["status_at_that_rate"] == "inconclusive" and r["interval"][1] == pytest.approx(1 - 1e-3)
    assert rate_record(2, 2, 2048)["status_at_that_rate"] == "refuted"  # two failing draws would certify
