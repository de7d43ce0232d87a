"""The rules of the 2502.05076 and cross-paper claims reject the alternatives they must reject (planted cases)."""

from __future__ import annotations

import numpy as np
import pytest

from rgr_verify.claims.base import Status
from rgr_verify.claims.paper_facts import layer, tensors, training
from rgr_verify.claims import xpaper
from rgr_verify.models.facts_tensors import (
    cp_tensor,
    database_from_triples,
    example_facts_database,
    flattening_lower_bound,
    prop21_bounds,
    rank_bounds,
    rank_one_span_decomposition,
    single_value_diagonal_database,
)
from rgr_verify.models.facts_inflation import fibre_argmax_accuracy


# rank_bounds certifies ranks below Proposition 2.1's bound, and never below the rank


def test_example_database_rank_is_certified_five():
    db = example_facts_database()
    assert db.size == 8 and prop21_bounds(db)["bound"] == 6
    plain = rank_bounds(db, search=False)
    assert (plain.lower, plain.upper) == (5, 6)
    rb = rank_bounds(db)
    assert rb.exact and rb.upper == 5
    assert np.array_equal(cp_tensor(*rb.factors), rb.denominator * db.tensor())


def test_search_never_certifies_below_the_rank():
    # W = e0e0e1 + e0e1e0 + e1e0e0: flattening ranks 2, tensor rank 3 (border rank 2): no 2-term decomposition
    db = database_from_triples([(0, 0, 1), (0, 1, 0), (1, 0, 0)])
    assert flattening_lower_bound(db.tensor()) == 2
    assert rank_one_span_decomposition(db.tensor()) is None
    rb = rank_bounds(db)
    assert (rb.lower, rb.upper) == (2, 3) and not rb.exact


@pytest.mark.parametrize("seed", range(20))
def test_rank_bounds_certificates_are_exact(seed):
    rng = np.random.default_rng(seed)
    K, Q, V = rng.integers(1, 6, 3)
    n = int(rng.integers(0, K * Q * V + 1))
    flat = rng.choice(K * Q * V, size=n, replace=False)
    db = database_from_triples(np.stack(np.unravel_index(flat, (K, Q, V)), axis=1), n_keys=K, n_queries=Q, n_values=V)
    rb = rank_bounds(db)
    assert rb.lower <= rb.upper <= prop21_bounds(db)["bound"]
    assert np.array_equal(cp_tensor(*rb.factors), rb.denominator * db.tensor())


# Example 2.4: the degenerate |V| = 1 database is not a witness


def test_single_value_database_is_degenerate_and_two_value_is_not():
    one = single_value_diagonal_database(5)
    assert fibre_argmax_accuracy(one, np.zeros(one.shape)) == 1.0  # the zero tensor "predicts": effective rank 0
    two = tensors.two_value_diagonal_database(np.array([1, -1, 1, 1, -1]))
    assert fibre_argmax_accuracy(two, np.zeros(two.shape)) == 0.0  # ties everywhere: effective rank >= 1
    assert rank_bounds(two).exact and rank_bounds(two).upper == 5


# Softmax precision: the rule decides across the logit scale


def _ranks(table):
    return {(b, n): r for b, row in table.items() for n, r in row.items()}


def test_softmax_precision_rule():
    flat = {b: {64: 8, 256: 8, 1024: 8} for b in (1.0, 10.0, 100.0, 1000.0)}
    assert layer.precision_softmax_verdict(_ranks(flat)).status is Status.HOLDS_EMPIRICALLY
    # the beta = 1 instance alone saturates; the scale grows the rank: readings disagree -> inconclusive
    measured = {1.0: {64: 8, 256: 8, 1024: 8}, 10.0: {64: 14, 256: 14, 1024: 13}, 100.0: {64: 24, 256: 25, 1024: 24},
                1000.0: {64: 15, 256: 31, 1024: 36}}
    assert layer.precision_softmax_verdict(_ranks(measured)).status is Status.INCONCLUSIVE
    runaway = {b: {64: 15, 256: 31, 1024: 100 * (i + 1)} for i, b in enumerate((1.0, 10.0, 100.0, 1000.0))}
    assert layer.precision_softmax_verdict(_ranks(runaway)).status is Status.CONTRADICTED_EMPIRICALLY
    one_reading = {b: {64: 15, 256: 31, 1024: 100} for b in (1.0, 10.0, 100.0, 1000.0)}  # no saturation in n only
    assert layer.precision_softmax_verdict(_ranks(one_reading)).status is Status.INCONCLUSIVE


# D_K* follows the edges: equivalence standard on the exponent


def _bounds(rs, m=128):
    return {r: {"edges = sum_k |V_k|": r * m, "prop21 bound min(...)": m, "flattening lower bound": m} for r in rs}


def test_regular_edges_rule():
    rs = [1, 2, 4, 8, 16, 32]
    stored = dict(zip(rs, [24, 48, 64, 128, 192, 192]))  # 8x growth over 32x edges, flat from 16 to 32
    v = xpaper.regular_edges_verdict(stored, _bounds(rs), 128)
    assert v.status is not Status.HOLDS_EMPIRICALLY and v.evidence_level == "fitted"
    linear = {r: 24 * r for r in rs}
    assert xpaper.regular_edges_verdict(linear, _bounds(rs), 128).status is Status.HOLDS_EMPIRICALLY
    # the band is 1 +- EXPONENT_HALF_WIDTH (standards.tolerances, since 2026-11-28; +-0.25 before): a square-root law
    # sits on its edge (undecided, never a pass), the rank's flat law and a quarter power lie wholly below it, r^2 above
    sqrt = {r: round(24 * r**0.5) for r in rs}
    assert xpaper.regular_edges_verdict(sqrt, _bounds(rs), 128).status is Status.INCONCLUSIVE
    flat = {r: 24 + r % 3 for r in rs}
    assert xpaper.regular_edges_verdict(flat, _bounds(rs), 128).status is Status.CONTRADICTED_EMPIRICALLY
    quarter = {r: round(24 * r**0.25) for r in rs}
    assert xpaper.regular_edges_verdict(quarter, _bounds(rs), 128).status is Status.CONTRADICTED_EMPIRICALLY
    square = {r: 24 * r * r for r in rs}
    assert xpaper.regular_edges_verdict(square, _bounds(rs), 128).status is Status.CONTRADICTED_EMPIRICALLY
    bad_rank = _bounds(rs)
    bad_rank[32]["prop21 bound min(...)"] = 4096
    assert xpaper.regular_edges_verdict(linear, bad_rank, 128).status is Status.CONTRADICTED_EMPIRICALLY


# "neutral or detrimental" and the power of the Figure 3 comparison


def test_neutral_or_worse_rule():
    plus = [0.165, 0.095, 0.06, 0.13, 0.055, 0.21, 0.175, -0.005, 0.055, 0.08]  # the stored d_vo = 8 gains
    assert training.neutral_or_worse_verdict(plus).status is Status.CONTRADICTED_EMPIRICALLY
    neutral = [0.0, -0.01, 0.005, -0.02, 0.0, 0.01, -0.005, 0.0, -0.01, 0.0]
    assert training.neutral_or_worse_verdict(neutral).status is Status.HOLDS_EMPIRICALLY
    noisy = [0.2, -0.2, 0.1, -0.1, 0.15, -0.1, 0.05, -0.05, 0.0, 0.0]
    assert training.neutral_or_worse_verdict(noisy).status is Status.INCONCLUSIVE


def test_fig3_power_says_when_nothing_can_be_decided():
    same = [True] * 90 + [False] * 10
    agree = {c: list(same) for c in ("argmax", "tau=0.5", "tau=0.95", "tau=0.99")}
    agree["argmax"][0] = not agree["argmax"][0]
    p = training.fig3_power(agree)
    assert not p["decidable"] and p["discordant"]["argmax"] == 1
    agree["tau=0.99"] = [not x for x in agree["tau=0.95"][:6]] + agree["tau=0.95"][6:]
    assert training.fig3_power(agree)["decidable"]


# Attribution: every claim declares its role; statements of ours say so and carry provenance "ours"; the summary's
# own glosses and suggestions (not results it reports of the paper) say so and carry provenance "summary"


def test_roles_and_provenance():
    claims = tensors.CLAIMS + layer.CLAIMS + training.CLAIMS + xpaper.CLAIMS
    for c in claims:
        assert c.role in ("result", "proof-step", "detail"), c.id
        ours_words = c.statement.startswith(("Ours", "Exploratory prediction (ours)"))
        assert ours_words == (c.provenance == "ours"), c.id
        summary_words = c.statement.startswith("The summary's")  # a gloss or suggestion of the summary's own
        assert summary_words == (c.provenance == "summary"), c.id
    assert all(c.provenance == "ours" for c in xpaper.CLAIMS)
    by_id = {c.id: c for c in claims}
    for cid in ("facts-eq9-rank-bound-respected", "facts-prop35-bound-free-of-dqk",
                "facts-prop36-argmax-rank2-any-permutation", "facts-prop37-softmax-rank1-full-rank"):
        assert by_id[cid].provenance == "ours"


def test_summary_provenance_is_only_for_the_paper_read_through_its_summary():
    import dataclasses

    c = next(c for c in training.CLAIMS if c.provenance == "summary")
    with pytest.raises(ValueError, match="provenance 'summary'"):
        dataclasses.replace(c, paper="2509.22840", ref="Sec. 6")
    assert {c.provenance for c in training.CLAIMS} >= {"paper", "summary"}
