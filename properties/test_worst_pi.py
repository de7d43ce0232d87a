"""Theorem 4.1's "for every pi" claims judged at the worst permutation found, beside random draws (issue 37, item 5;
review of 2026-11-28, section 1): thm41-limit-separation and thm41-separation-whp
(paper_sec4.fixed_points.every_pi_limit_verdict), thm41-minimal-constant-c0 (fixed_points.worst_c0_rows, full tier).

The claim is run as the audit runs it; then the rule meets its plants: the self-pairs reading (no c0 works for a
transposition plus fixed points, so the worst found fails at c0 = 201.5 too: refuted) and a search restricted to random
permutations (nothing fails at c0 = 61.6).
"""

from __future__ import annotations

import pytest

from rgr_verify.claims.base import DEFAULT_SEED, CheckContext, Status, Tier, claim_seed
from rgr_verify.claims.paper_sec4 import fixed_points as F
from rgr_verify.claims.registry import get_claim
from rgr_verify.claims.runner import run_claim

LIMIT_ID, WHP_ID, C0_ID = "thm41-limit-separation", "thm41-separation-whp", "thm41-minimal-constant-c0"


def _ctx(cid):
    c = get_claim(cid)
    return CheckContext(seed=claim_seed(DEFAULT_SEED, cid), tier="quick", expects=c.stated_values())


@pytest.fixture(scope="module")
def limit():
    return run_claim(get_claim(LIMIT_ID), device="cpu").verdict


def test_every_pi_claims_declare_the_for_every_standard():
    for cid in (LIMIT_ID, WHP_ID, C0_ID):
        assert get_claim(cid).standard.kind == "for-every", cid
    assert get_claim(C0_ID).tier is Tier.FULL  # the worst case's c0 needs d_model > m below m ~ 1000


def test_the_worst_pi_is_judged_and_the_random_pi_is_beside(limit):
    v = limit
    assert v.status is Status.INCONCLUSIVE  # 2 clean draws at c0 = 201.5 cannot certify m^-3
    p = v.params
    table = p["margins_by_family"]
    assert p["worst_family"] in ("identity", "transposition (0 1)") or "identity-heavy" in p["worst_family"]
    assert max(table[p["worst_family"]]) < 0 < min(table["uniform random"])  # c0 = 61.6: random passes, worst fails
    assert min(p["worst_margins_judged"]) > 0  # c0 = 201.5: the worst found separates
    assert p["judged_at"] == [2048, 1536] and p["search_size"] == [512, 384]
    beside = next(x for k, x in p.items() if k.startswith("uniform random pi"))
    assert beside["status"] == "inconclusive" and beside["certified_rate"] > 0.4  # 0 of 20 draws: <= 0.5 only
    # the reading that takes the random-pi constant for the every-pi one fails, and only that one
    assert p["refuted_under"].startswith("reading(s): c0 = 61.6")
    assert p["resolution"]["draws_needed_to_certify"] > 1e10


def test_the_rule_refutes_when_the_worst_fails_at_the_large_c0():
    v = F.every_pi_limit_verdict(_ctx(LIMIT_ID), include_self=True)  # self-pairs: a transposition fails at every c0
    assert v.status is Status.REFUTED and v.evidence_level == "certified"
    assert v.witness["family"] == v.params["worst_family"]
    assert max(v.params["worst_margins_judged"]) < 0


def test_the_rule_finds_nothing_among_random_permutations():
    v = F.every_pi_limit_verdict(_ctx(LIMIT_ID), only=("uniform random", "random derangement"))
    assert v.status is Status.INCONCLUSIVE
    assert min(min(x) for x in v.params["margins_by_family"].values()) > 0
    assert v.params["refuted_under"] == "none"


def test_minimal_constant_c0_is_not_run_in_the_quick_tier():
    v = run_claim(get_claim(C0_ID), device="cpu").verdict
    assert v.status is Status.INCONCLUSIVE and v.unavailable


def test_worst_c0_rows_is_the_worst_case_claims_computation(monkeypatch):
    calls = []

    def fake(seed, m, family, thr, n_draws=2):
        calls.append((seed, m, family))
        return {"m": m, "family": family, "d_model": m // 2, "c0": 100.0}

    monkeypatch.setattr(F, "_min_c0", fake)
    monkeypatch.setattr(F, "_search", lambda seed, include_self, only, *a: (
        {"family": "identity", "draw": 0, "fixed_points": 1, "min_edge": 1.0, "max_nonedge": 0.7},
        {"family": "uniform random", "draw": 0, "fixed_points": 1, "min_edge": 1.0, "max_nonedge": 0.3}))
    fam, rows, ref = F.worst_c0_rows(7, 0.5)
    assert fam == "identity" and [r["m"] for r in rows] == list(F._C0_MS) and ref["family"] == "uniform random"
    assert {c[0] for c in calls} == {7}
