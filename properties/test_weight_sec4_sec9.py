"""The rules of Theorem 4.1's c0 sweep and Sec. 5's c3 check reject the alternatives they exist to tell apart, and
every claim of Sec. 1, 3, 4, 5, 9, 10, App. C and the abstracts declares its role."""

from __future__ import annotations

import math

import numpy as np
import pytest

from rgr_verify.claims.base import Status
from rgr_verify.claims.paper_sec4.theorem41 import c0_growth_verdict
from rgr_verify.claims.paper_sec5 import c3_verdict
from rgr_verify.claims.registry import all_claims

_MS = (512, 724, 1024, 1448, 2048)
_PARTS = ("paper_abstract", "paper_sec1", "paper_sec3", "paper_sec4", "paper_sec5", "paper_appc", "paper_sec9",
          "paper_sec10")


def _noisy(values, seed, sd=0.03):
    rng = np.random.default_rng(seed)
    return [v * math.exp(sd * rng.standard_normal()) for v in values]


@pytest.mark.parametrize("seed", range(5))
def test_c0_growing_like_ln_m_does_not_pass(seed):
    c0s = _noisy([6.0 * math.log(m) for m in _MS], seed)  # c0 proportional to ln m: exponent 1 in ln m
    v = c0_growth_verdict(_MS, c0s)
    assert v.status is not Status.HOLDS_EMPIRICALLY
    assert v.evidence_level == "fitted"


def test_c0_growing_like_ln_m_is_contradicted_when_clean():
    v = c0_growth_verdict(_MS, [6.0 * math.log(m) for m in _MS])
    assert v.status is Status.CONTRADICTED_EMPIRICALLY


@pytest.mark.parametrize("seed", range(5))
def test_constant_c0_passes(seed):
    v = c0_growth_verdict(_MS, _noisy([40.0] * len(_MS), seed, sd=0.01))
    assert v.status is Status.HOLDS_EMPIRICALLY


def test_c0_point_slope_inside_with_a_wide_interval_is_inconclusive():
    # exponent near 0 but noise too large for the interval to exclude c0 ~ ln m
    v = c0_growth_verdict(_MS[:3], [40.0, 52.0, 38.0])
    assert v.status is Status.INCONCLUSIVE
    assert "resolution" in v.params


def test_c3_rule_passes_below_c1_and_never_refutes_above():
    below = [{"m": m, "d_model": int(120 * math.log(m)), "c0": 120.0, "limit_max_N3_over_dk": [0.18, 0.19, 0.2]}
             for m in (1024, 2048, 4096)]
    above = [dict(r, limit_max_N3_over_dk=[0.3, 0.26, 0.28]) for r in below]
    assert c3_verdict(below, c1=0.25).status is Status.HOLDS_EMPIRICALLY
    v = c3_verdict(above, c1=0.25)
    assert v.status is Status.INCONCLUSIVE  # a larger c0 lowers the limit: no refutation from a finite c0
    assert c3_verdict(below, c1=0.125).status is Status.INCONCLUSIVE  # the halved bar is not met at c0 = 120


def test_every_claim_of_these_parts_declares_its_role():
    mine = [c for c in all_claims() if any(f".{p}" in c.check.__module__ or c.check.__module__.endswith(p)
                                          for p in _PARTS)]
    assert len(mine) > 50
    assert [c.id for c in mine if not c.role] == []
