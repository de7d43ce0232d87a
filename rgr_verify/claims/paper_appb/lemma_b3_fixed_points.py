"""App. B.2: Lemma B.3 item 3 at j = i when pi has fixed points (one transposition, every other item fixed).

Item 3 bounds sum_{a in T_k} delta_i(pi^-1(a)) delta_j(a) by C3 sqrt(log m / d_model) "for all j". At j = i and a
head whose targets are fixed points (pi^-1(a) = a) the sum is sum_{a in T_k} delta_i(a)^2 = ||delta_{i,T_k}||^2,
about |T_k| / d_model = 1, so the ratio to sqrt(log m / d_model) grows like sqrt(d_model / log m): no absolute C3.
The sum is App. B.2's E[N3 | X] / d_k, read from the project's measurement (measurements.noise_terms). Under the
loop-free reading (j != i, as Sec. 9's N = m(m-1) ordered pairs) the same pi meets the bound.
"""

from __future__ import annotations

import functools
import math

import numpy as np

from ...models.constructions import algorithm1
from ...core.embeddings import gaussian_unit_norm_embeddings
from ...core.graphs import permutation_graph
from ...analysis.measurements import noise_terms
from ..base import CheckContext, Claim, Kind, Stated, Tier, Verdict
from ..paper_sec4.fixed_points import LOOP_FREE, transposition
from ..tools import full_tier, verdict_over_readings
from .common import bound_verdict

__all__ = ["CLAIMS", "ORDER", "cross_correlation_rows", "fixed_point_cross_verdict", "SELF_J"]

ORDER = 112  # with lemma_b3 (same ORDER, after it by name)

SELF_J = "self-pairs tested (j = i inside 'for all j'; docs/theorems.md)"
_H = 4  # heads: m = 4 d_model, blocks of d_model consecutive sources
_DS_QUICK = (16, 32, 64, 128, 256)
_DS_FULL = _DS_QUICK + (512,)
_REPS = 2


@functools.lru_cache(maxsize=8)
def cross_correlation_rows(seed: int, full: bool, perm_of=transposition) -> tuple:
    """Per d_model and draw: max over k of the median over i of |sum at j = i| (a lower bound on the max over i, which
    the lemma bounds, without the max's small-d_model inflation), the max over k, i itself, the max over k, i != j of
    |sum| (independent of the stated values), and how far the j = i sum of a head of fixed points is from
    ||delta_{i,T_k}||^2."""
    rows = []
    for d in (_DS_FULL if full else _DS_QUICK):
        m = _H * d
        for rep in range(_REPS):
            r = np.random.default_rng(np.random.SeedSequence([int(seed), d, rep]))
            perm = perm_of(m, r)
            X = gaussian_unit_norm_embeddings(m, d, rng=r)
            c = algorithm1(permutation_graph(perm), X, d_k=1, rng=r)
            D2 = (X @ X.T - np.eye(m)) ** 2
            same = median = cross = ident = 0.0
            for k in range(c.n_heads):
                E = noise_terms(c, k)["E_N3"] / c.d_k  # [m, m]: sum_{a in T_k} delta_i(pi^-1 a) delta_j(a)
                diag = np.diag(E).copy()
                same = max(same, float(np.abs(diag).max()))
                median = max(median, float(np.median(np.abs(diag))))
                np.fill_diagonal(E, 0.0)
                cross = max(cross, float(np.abs(E).max()))
                tgt = c.targets(k)
                if np.all(c.sources(k) == tgt):  # a head of fixed points: the j = i sum is ||delta_{i,T_k}||^2
                    ident = max(ident, float(np.abs(diag - D2[:, tgt].sum(1)).max()))
            rows.append({"d_model": d, "m": m, "draw": rep, "self": median, "self_max": same, "cross": cross,
                         "identity_residual": ident, "fixed_points": int(np.sum(perm == np.arange(m)))})
    return tuple(rows)


def fixed_point_cross_verdict(ctx: CheckContext, *, perm_of=transposition) -> Verdict:
    """Item 3 for ``perm_of`` (default (0 1) plus fixed points) under both readings of "for all j": j = i included
    (printed) and j != i; each a bounded-ratio sweep over d_model (fitted exponent at most 0.15, 95% interval)."""
    rel, e = ctx.expect("dir"), ctx.expect("rate_exponent")
    rows = cross_correlation_rows(int(ctx.seed), full_tier(ctx), perm_of)
    xs = [r_["d_model"] for r_ in rows]

    def sweep(key, what):
        ys = [r_[key] / (math.log(r_["m"]) / r_["d_model"]) ** e for r_ in rows]
        table = [{"d_model": r_["d_model"], "draw": r_["draw"], "sum": round(r_[key], 4), "ratio": round(y, 3)}
                 for r_, y in zip(rows, ys)]
        return bound_verdict(xs, ys, rel, claimed=0.0, tol=0.15, what=what + f" / (ln m / d_model)^{e:g}",
                             paper_value="|sum_{a in T_k} delta_i(pi^-1 a) delta_j(a)| <= C3 sqrt(log m / d_model) "
                                         "for an absolute C3 (the ratio stays bounded as d_model grows)",
                             params={"h": _H, "d_model": sorted(set(xs)), "draws": _REPS}, table=table)

    v = verdict_over_readings(
        {SELF_J: sweep("self", "max_k median_i |sum_a delta_i(pi^-1 a) delta_i(a)| (<= the max over i)"),
         LOOP_FREE: sweep("cross", "max_{i != j, k} |sum_a delta_i(pi^-1 a) delta_j(a)|")},
        hypotheses=[f"pi from {getattr(perm_of, '__name__', 'the planted family')} (a permutation; App. B.1 allows "
                    "fixed points)", f"Gaussian unit-norm X, m = {_H} d_model, d_model = {sorted(set(xs))} (c0 = "
                    f"d_model / ln m from {xs[0] / math.log(_H * xs[0]):.1f} to {xs[-1] / math.log(_H * xs[-1]):.1f})",
                    "blocks of d_model consecutive sources, T_k = pi(V_k) (Algorithm 1)"],
        printed=SELF_J)
    resid = max(r_["identity_residual"] for r_ in rows)
    return Verdict(v.status, paper_value=v.paper_value, measured_value=v.measured_value, witness=v.witness,
                   params={**v.params, "max |j = i sum - ||delta_{i,T_k}||^2| on heads of fixed points": resid,
                           "j = i sums (max over i, k)": [round(r_["self_max"], 3) for r_ in rows]},
                   evidence=v.evidence + "; the sum is E[N3 | X] / d_k of measurements.noise_terms",
                   details=v.details, evidence_level=v.evidence_level)


def _check_fixed_point_cross(ctx: CheckContext) -> Verdict:
    return fixed_point_cross_verdict(ctx)


CLAIMS = (
    Claim(id="lemb3-fixed-points-self-correlation", ref="Lemma B.3",
          statement="Item 3 at j = i for pi = (0 1) with every other item fixed: on a head whose targets are fixed "
                    "points the sum is ||delta_{i,T_k}||^2, about 1, so its ratio to sqrt(ln m / d_model) grows with "
                    "d_model instead of staying below an absolute C3 (h = 4)",
          kind=Kind.ASYMPTOTIC, tier=Tier.QUICK, check=_check_fixed_point_cross, role="result",
          supports=("Theorem B.2",),
          notes="Reading: 'for all j' includes j = i (docs/theorems.md), with fixed points allowed; the loop-free "
                "reading (j != i only, as Sec. 9's N = m(m-1)) is judged beside it on the same draws. Rule: each "
                "reading is a bounded-ratio sweep over d_model in {16, ..., 256} (512 in the full tier), m = 4 "
                "d_model, 2 draws (j = i: the median over i, a lower bound on the lemma's max; j != i: the max), fitted exponent of the ratio at most 0.15 (95% interval, equivalence standard, "
                "level fitted); verdict_over_readings with the printed reading j = i, so a failure is scoped to it. "
                "The sum is read from measurements.noise_terms (E[N3 | X] / d_k) and checked against "
                "||delta_{i,T_k}||^2 on heads of fixed points (params). lemb3-cross-correlation-fixed-points judges "
                "j = i on uniform random pi and derangements, where it holds. Stated: the bound's direction and its "
                "rate exponent 1/2.",
          expects={"dir": Stated("<=", "relation", "Lemma B.3 item 3: <= C3 sqrt(log m / d_model)"),
                   "rate_exponent": Stated(0.5, "exponent", "Lemma B.3 item 3: the rate sqrt(log m / d_model)")},
          slip=("construction-fails-repairable", "result",
                "At j = i the sum is the leakage mass ||delta_{i,T_k}||^2 (about 1), not O(sqrt(log m / d_model)), "
                "whenever T_k holds fixed points, for every constant, so item 3 as printed ('for all j') is false; "
                "it is the slip of thm41-fixed-points-self-pair seen in the lemma stated for Algorithm 1's blocks: "
                "for j != i it holds. Fixed and moved sources in separate blocks (a constant factor of the budget) "
                "repair Theorem 4.1, whose rate stands (same class, same severity; review of 2026-11-28), but not "
                "the lemma: inside a block of fixed points the j = i sum stays of order 1 (about 0.25 at every "
                "d_model; second review of 2026-11-28), so the lemma is repaired only by stating item 3 for "
                "j != pi(i).")),
)
