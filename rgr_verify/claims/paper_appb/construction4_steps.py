"""App. B.4: proof steps of Theorem B.9 that the paper takes from Theorem 4.1 / Lemma B.3 ("exactly those of
Theorem 4.1", "controlled using Lemma B.3", "a union bound over all heads and all pairs in those heads").

- the union bound's event count: which (i, j, k) events the max-over-heads separation needs, against the printed
  sum_k |M_k|^2 <= d_model m';
- Lemma B.3 item 2 (leakage mass <= C2) with Lemma B.8's matchings as the leakage sets instead of consecutive
  blocks of d_model sources.

Split from :mod:`.construction4` (ORDER equal to it, so these follow its claims).
"""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np
import sympy as sp

from ...core import formulas as F
from ...models.constructions import algorithm5
from ...models.edge_coloring import coloring_and_batching
from ...core.embeddings import gaussian_unit_norm_embeddings
from ...core.graphs import random_regular_graph
from ...analysis.measurements import head_score_matrix
from ...core.stats import zero_failure_sample_size
from ..base import CheckContext, Claim, Kind, Stated, Status, Tier, Verdict, jsonable
from ..standards.decide import decide
from ..symbolic import inequality_verdict
from ..tools import FAILS, VAR_M, monte_carlo_verdict, outcome_word, relation_holds, with_readings

__all__ = ["CLAIMS", "ORDER"]

ORDER = 114


def _check_b9_union_count(ctx: CheckContext) -> Verdict:
    # A small instance: which (i, j) have a nonzero head-k score although (i, j) is not in V_k x T_k.
    m, d, r_ = 16, 4, 2
    r = ctx.rng(0)
    g = random_regular_graph(m, r_, rng=r)
    c = algorithm5(g, gaussian_unit_norm_embeddings(m, d, rng=r), d_k=8, rng=r)
    outside, printed = 0, 0
    for k, blk in enumerate(c.blocks):
        S = head_score_matrix(c, k)
        inside = np.zeros((m, m), bool)
        inside[np.ix_(blk[:, 0], blk[:, 1])] = True
        outside += int(np.sum((np.abs(S) > 1e-12) & ~inside))
        printed += len(blk) ** 2
    needed = c.n_heads * m * m
    # Per-head failure m^-4 (the proof's "within each head ... 1 - m^-4") over H heads, against m^-3.
    H = sp.ceiling(F.m * (F.m - 1) / (8 * sp.log(F.m))) + F.m - 1  # complete digraph, d_model = 8 ln m
    p_head, rate = sp.nsimplify(ctx.expect("per_head_rate")), sp.nsimplify(ctx.expect("rate"))
    per_head = inequality_verdict(H * F.m ** -p_head, "<=", F.m ** -rate, variables=[VAR_M], ctx=ctx)
    # Repair: per-event failure m^-7 (a larger C), H m^2 <= m^4 events (H <= m' + m <= 2 m^2).
    repaired = inequality_verdict(2 * F.m**2 * F.m**2 * F.m ** -8, "<=", F.m ** -rate, variables=[VAR_M],
                                  ctx=ctx, proof=lambda: "2 m^-4 <= m^-3 for m >= 2")
    counted_ok = outside == 0
    union_ok = counted_ok and per_head.status is Status.VERIFIED
    status = decide(union_ok, not union_ok, exact=True)
    v = Verdict(status=status, paper_value="union bound over sum_k |M_k|^2 <= d_model m' events (pairs in the heads' "
                "matchings); within each head failure <= m^-4",
                measured_value={"instance (m, d_model, r)": (m, d, r_), "heads": c.n_heads,
                                "printed count sum_k |M_k|^2": printed,
                                "nonzero head scores outside V_k x T_k": outside,
                                "events the max-over-heads needs (H m^2)": needed,
                                "H m^-4 <= m^-3 for the complete digraph": per_head.status.value,
                                "repaired: 2 m^4 events at m^-8 each <= m^-3": repaired.status.value},
                witness={"instance": {"m": m, "d_model": d, "edges": g.edges.tolist()}, "outside_pairs": outside}
                if not counted_ok else None,
                params={"instance": "exact count on an instance + symbolic"}, details=jsonable(per_head.measured_value),
                evidence_level="witness" if status is Status.REFUTED else "proved",
                evidence="exact head scores of Algorithm 5 on one instance; sympy/grid inequalities")
    if status is Status.VERIFIED:
        return v
    return with_readings(v, ["any digraph; Algorithm 5 with Lemma B.8's matchings", "max over heads must stay below tau "
                             "for every non-edge in every head"],
                         {"the printed count covers the union bound's events": f"{FAILS}: {outside} nonzero head "
                          "scores lie outside V_k x T_k (leakage reaches every pair), so H m^2 events are needed; and "
                          "per-head failure m^-4 summed over H > m heads exceeds m^-3",
                          "the conclusion with a larger C (events polynomial in m)":
                              f"{outcome_word(repaired)}: at most 2 m^4 events with "
                              "per-event failure m^-8 (d_k = C log m, C larger) give <= m^-3"})


_B9_SIZE = (512, 384, 2)
_COUNT_DECIDES = "refuted by the exact count of leakage events outside the printed ones, whatever the rates"


@lru_cache(maxsize=2)
def _b9_leakage_draws(seed: int, n: int):
    """Per draw, max over i, k and S in {V_k minus i, T_k} of ||delta_{i,S}||^2 with Lemma B.8's matchings."""
    m, d, r_ = _B9_SIZE
    out = []
    for ss in np.random.SeedSequence([seed, 9]).spawn(n):
        r = np.random.default_rng(ss)
        g = random_regular_graph(m, r_, rng=r)
        X = gaussian_unit_norm_embeddings(m, d, rng=r)
        D2 = (X @ X.T) ** 2
        np.fill_diagonal(D2, 0.0)  # delta_i(i) = 0, so V_k minus {i} and V_k give the same mass
        out.append(max(max(float(D2[:, blk[:, 0]].sum(1).max()), float(D2[:, blk[:, 1]].sum(1).max()))
                       for blk in coloring_and_batching(g, d)))
    return tuple(out)


def _check_b9_lemma_b3(ctx: CheckContext) -> Verdict:
    m, d, r_ = _B9_SIZE
    n = zero_failure_sample_size(0.1)
    worst = _b9_leakage_draws(int(ctx.seed), n)
    C2, rel = 2.0, ctx.expect("dir")
    v = monte_carlo_verdict(lambda i: (relation_holds(worst[i], rel, C2), {"draw": i, "max_leakage_mass": worst[i]}),
                            n_trials=n, claimed_failure_rate=float(m) ** -4,
                            paper_value="Theorem B.9 proof: N1-N3 'controlled using Lemma B.3, since all leakage sets "
                                        "(V_k minus i and T_k) have size <= d_model': item 2 with C2 = 2 on matchings",
                            params={"m": m, "d_model": d, "r": r_, "c0": d / math.log(m), "max_mass_seen": max(worst)})
    if v.status is Status.REFUTED:
        return with_readings(v, [f"d_model = {d} >= c0 ln m, c0 = {d / math.log(m):.1f}", "C2 = 2 (the lemma's e.g.)",
                                 "2-regular G, Lemma B.8's matchings as V_k, T_k"],
                             {"c0 = 61.6 admissible": f"{FAILS}: {v.measured_value}"})
    return v  # the probability-bound standard: 0 failures certify only about 1e-1 here, not m^-4 (inconclusive)


CLAIMS = (
    Claim(id="thmb9-sym-union-event-count", ref="Theorem B.9",
          statement="Proof step 'a union bound over all heads and all pairs in those heads ... sum_k |M_k|^2 <= "
                    "d_model m' events in total', with per-head failure m^-4: the count covers every event the "
                    "max-over-heads separation needs, and H m^-4 <= m^-3",
          kind=Kind.SYMBOLIC, tier=Tier.QUICK, check=_check_b9_union_count, role="proof-step",
          supports=("Theorem B.9",),
          notes="Max over heads needs S^(k)_ij < tau for every non-edge (i, j) in every head k, and head k's score is "
                "nonzero for pairs outside V_k x T_k through leakage (u_i = e_i + delta_i): H m^2 events, not "
                "sum_k |M_k|^2. Per-head failure m^-4 over H heads gives H m^-4, above m^-3 once H > m (dense "
                "graphs: H ~ m^2 / d_model). The theorem survives: the count is polynomial, so a larger C closes the "
                "union bound (reading recorded). The printed arithmetic itself is thmb9-sym-event-count (verified). "
                "Stated values (declared, not mutated): the verdict is decided by an exact count of the events "
                "outside the printed ones (1920 of 2048 on the instance), which no change of the rates can undo.",
          expects={"per_head_rate": Stated(4, "exponent", "Theorem B.9 proof: within each head failure <= m^-4",
                                           unmutated=_COUNT_DECIDES, bound="lower"),
                   "rate": Stated(3, "exponent", "Theorem B.9: separation with probability >= 1 - m^-3",
                                  unmutated=_COUNT_DECIDES, bound="lower")},
          slip=("constant-bookkeeping", "proof-step",
                "The printed event count leaves out leakage pairs outside each head's blocks, and H m^-4 exceeds "
                "m^-3 once H > m, but the events stay polynomial in m, so a larger C in d_k = C log m closes the "
                "union bound and Theorem B.9 is untouched.")),
    Claim(id="thmb9-lemma-b3-on-matchings", ref="Theorem B.9",
          statement="Cross-reference 'controlled using Lemma B.3, since all leakage sets have size <= d_model': Lemma "
                    "B.3 item 2 (mass <= C2 = 2) holds with Lemma B.8's matchings as the leakage sets at (m, d_model) "
                    "= (512, 384), r = 2 (135 draws, no failure allowed at m^-4)",
          kind=Kind.HIGH_PROBABILITY, tier=Tier.QUICK, check=_check_b9_lemma_b3, role="proof-step",
          supports=("Theorem B.9",),
          notes="Lemma B.3 is proved for h = m/d_model consecutive blocks; Construction IV has H = ceil(m'/d) + "
                "Delta matchings, so its union bound runs over 2H sets (still polynomial). C2 = 2 and the rate are "
                "not declared (a larger C2 is weaker; 0 failures certify no rate that small); the direction is.",
          expects={"dir": Stated("<=", "relation", "Lemma B.3 item 2: ||delta_{i,S}||^2 <= C2")}),
)
