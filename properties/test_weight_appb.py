"""Decision rules of the App. B claims, against the alternatives they must reject.

- Rates in several variables (along_each_variable): a rate that fails along one variable fails, a straddling sweep
  is inconclusive with its resolution, and only a rate that holds along every variable holds.
- lemb3-leakage-minimal-c0: a minimal c0 growing like ln m must not pass (fitted against ln m, not m).
- thmb2-signal-bound-constant: each C is judged on its own (a trivial C cannot carry a failing one).
- thmb2-n1-mean-zero / thmb2-n2-mean-zero: the exact conditional means vanish when there is no leakage and are
  nonzero at the admissible size (the witness meets the theorem's size hypothesis).
- thmb1-sym-union-constant: the verdict names each reading of log and where it fails.
- thmb5-sym-bernoulli-noise-mean: the refutation is symbolic in c and p (every admissible constant), level proved.
- corb6 / corb7 log-factor reading: judged by the equivalence band, undecided when the interval straddles it.
- Record texts (rev39): thmb1 why scoped to p, lemb3 identity on the lemma, corb6 sweep texts, corb10 witnesses
  (non-degenerate graph; every c0), the softmax threshold at Theorem B.1's own C.
- Roles: every App. B claim declares one; a proof step never has role "result"; detail findings are imprecisions.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from rgr_verify.claims.base import CheckContext, Status, Verdict
from rgr_verify.claims.paper_appb import (construction1, construction2, construction3, construction3_corollaries,
                                          construction4, construction4_steps, lemma_b3)
from rgr_verify.claims.paper_appb.common import along_each_variable
from rgr_verify.claims.tools import exponent_verdict

MODULES = (construction1, construction2, lemma_b3, construction3, construction3_corollaries, construction4,
           construction4_steps)
CLAIMS = {c.id: c for mod in MODULES for c in mod.CLAIMS}


def _fitted(slope, *, n=8, noise=0.01, claimed=0.0, tol=0.25, upper=True, seed=0):
    r = np.random.default_rng(seed)
    xs = np.geomspace(16, 1024, n)
    ys = xs**slope * np.exp(noise * r.standard_normal(n))
    return exponent_verdict(xs, ys, claimed=claimed, tol=tol, upper=upper, what="planted", paper_value="p",
                            params={})


def test_along_each_variable_rule():
    ok, bad, wide = _fitted(0.0), _fitted(1.0), _fitted(0.25, n=4, noise=0.5)
    assert ok.status is Status.HOLDS_EMPIRICALLY and bad.status is Status.CONTRADICTED_EMPIRICALLY
    assert wide.status is Status.INCONCLUSIVE
    v = along_each_variable({"m": bad, "d_model": ok, "B": ok}, paper_value="p")
    assert v.status is Status.CONTRADICTED_EMPIRICALLY and v.evidence_level == "fitted" and "m" in v.details
    v = along_each_variable({"m": wide, "d_model": ok}, paper_value="p")
    assert v.status is Status.INCONCLUSIVE and "m" in v.params["resolution"] and v.params["to_decide"]
    assert along_each_variable({"m": ok, "d_model": ok}, paper_value="p").status is Status.HOLDS_EMPIRICALLY


def _c0_rows(c0_of_m):
    return [{"m": m, "c0_min": c0_of_m(m)} for m in (64, 128, 256, 512, 1024, 2048, 4096, 8192, 2**14, 2**15)]


def test_leakage_c0_growing_like_log_m_does_not_pass():
    grows = lemma_b3._leakage_c0_verdict(_c0_rows(lambda m: 1.5 * math.log(m)), claimed=0.0, n=10)
    assert grows.status is Status.CONTRADICTED_EMPIRICALLY, grows.measured_value
    flat = lemma_b3._leakage_c0_verdict(_c0_rows(lambda m: 9.0 + 0.01 * (m % 3)), claimed=0.0, n=10)
    assert flat.status is Status.HOLDS_EMPIRICALLY, flat.measured_value
    # the old fit against m itself would have passed the growing c0: slope of ln m in m is about 0.16 < 0.25
    rows = _c0_rows(lambda m: 1.5 * math.log(m))
    old = exponent_verdict([r["m"] for r in rows], [r["c0_min"] for r in rows], claimed=0.0, tol=0.25,
                           paper_value="p", what="old", params={})
    assert old.status is Status.HOLDS_EMPIRICALLY


def test_signal_constant_not_pooled():
    v = construction2._check_signal_constant(_with_expects("thmb2-signal-bound-constant"))
    assert set(v.params["per_variable"]) == {f"m at d_k = ceil({C:g} ln m)" for C in construction2._SIGNAL_CS}
    assert v.evidence_level == "fitted"
    # a failing C is not rescued by a passing one
    assert along_each_variable({"C = 5": _fitted(0.0), "C = 20": _fitted(1.0)},
                               paper_value="p").status is Status.CONTRADICTED_EMPIRICALLY


def _with_expects(claim_id, seed=0):
    return CheckContext(seed=seed, expects=CLAIMS[claim_id].stated_values())


def test_linear_means_zero_without_leakage_nonzero_with_it():
    from rgr_verify.models.constructions import algorithm1
    from rgr_verify.core.embeddings import gaussian_unit_norm_embeddings
    from rgr_verify.core.graphs import random_permutation_graph

    r = np.random.default_rng(3)
    g = random_permutation_graph(32, rng=r)
    one_hot = algorithm1(g, np.eye(32), d_k=4, rng=r, block_size=8)  # X = I: no leakage, means exactly zero
    for k in range(one_hot.n_heads):
        means = construction2._linear_means(one_hot, k)
        assert np.abs(means["N1"]).max() == 0 and np.abs(means["N2"]).max() == 0
    leaky = algorithm1(g, gaussian_unit_norm_embeddings(32, 16, rng=r), d_k=4, rng=r)
    assert np.abs(construction2._linear_means(leaky, 0)["N1"]).max() > 0
    assert construction2._tiny_linearity_check() <= 1e-12


@pytest.mark.parametrize("cid", ["thmb2-n1-mean-zero", "thmb2-n2-mean-zero"])
def test_mean_zero_witness_meets_size_hypothesis(cid):
    v = CLAIMS[cid].check(_with_expects(cid))
    assert v.status is Status.REFUTED and v.evidence_level == "witness"
    assert v.witness["c0 = d_model / ln m"] >= 40 and v.witness["m"] >= 512


def test_union_constant_names_each_reading():
    v = CLAIMS["thmb1-sym-union-constant"].check(_with_expects("thmb1-sym-union-constant"))
    per = v.params["per_reading"]
    assert set(per) == {construction1._B1_LN, construction1._B1_LOG2}
    assert per[construction1._B1_LN]["status"] == "refuted"
    where = v.params["where_each_reading_fails"]
    assert all(k in where for k in per) and any("m >= 3" in k for k in where)


def test_bernoulli_mean_refutation_is_symbolic_in_the_constants():
    v = CLAIMS["thmb5-sym-bernoulli-noise-mean"].check(_with_expects("thmb5-sym-bernoulli-noise-mean"))
    assert v.status is Status.REFUTED and v.evidence_level == "proved"
    assert v.measured_value["lim_{m -> oo} (E[S_ij] - tau) / d_k, symbolic in c > 0 and p > 0"] == "oo"
    assert "any" in v.witness["constants"] and CLAIMS["thmb5-sym-bernoulli-noise-mean"].role == "result"


def test_log_factor_reading_by_band():
    def fake(lo, hi):
        return Verdict(Status.CONTRADICTED_EMPIRICALLY, params={"per_variable": {"m": {"interval": [lo, hi]}}},
                       evidence_level="fitted")

    f = construction3_corollaries._log_factor
    assert f(fake(0.2, 1.1), "r").startswith("holds")
    assert f(fake(1.3, 2.0), "r").startswith("fails")
    assert f(fake(0.9, 1.6), "r").startswith("not tested")


def test_every_claim_declares_a_role():
    assert len(CLAIMS) == 70
    for c in CLAIMS.values():
        assert c.role in ("result", "proof-step", "detail"), c.id
        if c.statement.lower().startswith("proof step") or c.role == "proof-step":
            assert c.role == "proof-step" and c.supports, c.id
    for cid in ("thmb2-n2-mean-zero", "thmb2-sym-n1-n2-means", "thmb9-sym-union-event-count",
                "lemb3-sym-leakage-identity"):
        assert CLAIMS[cid].role == "proof-step" and CLAIMS[cid].supports, cid
    for cid in ("corb7-sym-expectations", "corb7-sym-square-le-sum", "corb10-sym-heads-from-theorem-b9",
                "thmb5-limit-separation", "thmb5-rademacher-signatures-verbatim"):
        assert CLAIMS[cid].role == "detail", cid
    assert "Corollary B.10" in CLAIMS["corb10-sym-heads-from-theorem-b9"].supported


# --- record texts and witnesses the second review of 2026-11-28 (rev39, section 1) showed to be inaccurate ---------

def test_union_constant_why_is_scoped_to_the_p_where_the_exact_tails_meet_m_minus_3():
    from rgr_verify.analysis import minimal_constants as K

    ratios = {}
    for p in np.linspace(0.01, 0.49, 49):
        C = 1.000001 * K.paper_c_theorem_b1(float(p))["C_paper"]
        for e in range(4, 21):
            m = 2**e
            ratios[(round(float(p), 2), m)] = K.union_bound_algorithm3(m, math.ceil(C * math.log(m)), float(p)) * m**3
    over = {k: r for k, r in ratios.items() if r > 1}
    assert max(r for (p, _), r in ratios.items() if p == 0.25) < 0.033  # Algorithm 3's p = 1/4: below m^-3
    assert len(over) == 14 and max(p for p, _ in over) <= 0.03 and 2.7 < max(over.values()) < 2.8
    why = CLAIMS["thmb1-sym-union-constant"].slip.why
    assert "p = 1/4" in why and "p <= 0.03" in why and "14 of 833" in why


def test_leakage_identity_slip_is_on_the_lemmas_statement_with_the_same_severity():
    slip = CLAIMS["lemb3-sym-leakage-identity"].slip
    assert (slip.kind, slip.target, slip.severity) == ("wording-or-count", "result", "imprecision")


def test_gun_sweep_texts_follow_the_swept_values():
    for param in ("rho", "gamma"):
        text = construction3_corollaries._gun_sweeps(param)
        for axis, (fixed, quick, extra) in construction3_corollaries._GUN_AXES[param].items():
            assert f"{axis} from {quick[0]} to {quick[-1]}" in text, (param, axis)
            assert (f"to {extra[-1]} in the full tier" in text) if extra else True, (param, axis)


def test_heads_witness_is_a_graph_where_lemma_b8s_procedure_exceeds_h0():
    v = CLAIMS["corb10-sym-heads-from-theorem-b9"].check(_with_expects("corb10-sym-heads-from-theorem-b9"))
    w = v.witness
    assert v.status is Status.REFUTED and w["(33) Delta <= m'/d_model"]
    assert (w["Delta"], w["d_model"], w["m'"], w["Konig colour classes"]) == (2, 2, 4, [3, 1])
    assert w["matchings by Lemma B.8 (its procedure)"] == 3 > w["h_0"] == 2
    assert v.params["grid_smallest_point"] == {"m'": 1, "d_model": 1, "Delta": 1}  # degenerate: kept beside only


def test_theta_log_m_prime_is_decided_for_every_c0():
    v = CLAIMS["corb10-sym-theta-log-m-prime"].check(_with_expects("corb10-sym-theta-log-m-prime"))
    assert v.status is Status.REFUTED and v.params["refuted_under"] == "every reading"
    assert all(r.startswith("fails") for r in v.params["readings"].values())
    assert v.params["every_c0"]["at K = 1024, in units of C"]["m = 1e6"] == 1.45


def test_softmax_threshold_fails_at_theorem_b1s_own_constant():
    from rgr_verify.claims.paper_appb import construction1_softmax as paper_appc  # App. B.1's remark lives there

    draws = paper_appc._alg3_softmax_draws(CheckContext(seed=0))
    assert [d["m"] for d in draws] == [256, 1024, 4096] and all(170 < d["C"] < 171 for d in draws)
    for d in draws:  # the full context's weakest true edge lies below a pair context's strongest non-edge
        assert not d["one_threshold_exists"]
        assert d["min_true_edge_prob_full_context"] < 0.5 < d["max_non_edge_prob_pair_context"], d
