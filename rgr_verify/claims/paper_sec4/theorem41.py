"""Sec. 4: Theorem 4.1 (compressive embeddings, Algorithm 1).

Minimal constants are measured as in :mod:`rgr_verify.analysis.minimal_constants`: c0 from the exact d_k -> infinity limit
of S / d_k (a function of X alone), C by bisection with all draws separating. Its budget rate, and its agreement
with Theorem B.2 and Corollary B.6, are checked symbolically.
"""

from __future__ import annotations

import dataclasses
import functools
import math

import numpy as np
import sympy as sp

from ...core import formulas as F
from ...analysis import minimal_constants as K
from ...models.constructions import algorithm1
from ...core.embeddings import gaussian_unit_norm_embeddings
from ...analysis.minimal_constants import algorithm1_separates
from ...core.graphs import random_permutation_graph
from ..base import CheckContext, Claim, Kind, Stated, Status, Tier, Verdict, jsonable
from ..standards import Standard, decide
from ..symbolic import Var, combine_verdicts, identity_verdict
from ..tools import (
    VAR_D_MODEL,
    VAR_M,
    full_tier,
    monte_carlo_verdict,
    relation_holds,
    symbolic_claim,
    whp_constant_sweep,
    with_readings,
)

from ..tools.builders import with_role

from .c0_growth import c0_growth_verdict

__all__ = ["CLAIMS", "ORDER", "c0_growth_verdict"]

ORDER = 41


_C0_MS_QUICK = (512, 724, 1024, 1448, 2048)  # a factor 4 in m (sqrt 2 steps)
_C0_MS_FULL = _C0_MS_QUICK + (2896, 4096)  # a factor 8 in m
_C0_CAP = 80.0  # bisection ceiling d_model <= 80 ln m (measured c0 is about 35-45; a None row reports a larger c0)


@functools.lru_cache(maxsize=4)
def _c0_rows(seed: int, full: bool):
    """Minimal c0 per m (bisection over d_model, d_k -> infinity limit; independent of the stated values, cached so
    mutants only re-judge)."""
    ms = _C0_MS_FULL if full else _C0_MS_QUICK
    return ms, [K.minimal_c0_algorithm1(m, n_draws=3, rng=np.random.default_rng(np.random.SeedSequence([seed, m])),
                                        max_d_model=min(m, int(_C0_CAP * math.log(m))))
                for m in ms]


def _check_c0(ctx: CheckContext) -> Verdict:
    """"A finite absolute c0 suffices" for every pi: judged at the worst permutation found (loop-free), a uniform pi
    beside. The worst case needs c0 about 114-130, i.e. d_model > m below m of about 1000, so its c0 can be
    bisected only at m = 1448..4096 (full tier): thm41-fixed-points-worst-case-c0's computation, on that claim's seed
    (the same numbers, shared when both run in one process)."""
    if not full_tier(ctx):
        return Verdict.not_run("c0 for every pi is judged at the worst permutation found, whose c0 (about 114-130) "
                               "can be bisected only at m >= 1448: full tier (6-16 minutes)")
    from ..base import claim_seed
    from .fixed_points import worst_c0_rows

    thr = ctx.expect("threshold")
    fam, worst, ref = worst_c0_rows(claim_seed(ctx.root_seed, "thm41-fixed-points-worst-case-c0"), thr)
    ms, rows = _c0_rows(ctx.seed, False)  # beside only: m = 512..2048 (the quick sweep) keeps the full tier shorter
    beside = {"uniform random pi (self-pairs tested, 3 draws per bisection step)": {
        "m": list(ms), "c0": [r["c0"] for r in rows]}, "uniform random pi at m = 2048, loop-free": ref}
    missing = [r["m"] for r in worst if r["c0"] is None]
    if missing:
        return Verdict(status=Status.INCONCLUSIVE, paper_value="a finite absolute c0 suffices for every pi",
                       measured_value=f"no d_model <= m separates the worst pi found ({fam}) at m = {missing}",
                       details=jsonable(worst), evidence="d_k -> infinity limit, bisection over d_model",
                       evidence_level="fitted", params={"worst_family": fam, "beside": beside})
    v = c0_growth_verdict([r["m"] for r in worst], [r["c0"] for r in worst], rel=ctx.expect("c0_trend"),
                          params={"worst_family": fam, "n_draws": 2, "loop_free": True,
                                  "search": "thm41-fixed-points-worst-permutation's families at (1024, 512)"})
    return dataclasses.replace(v, measured_value=f"worst pi found ({fam}), loop-free: {v.measured_value}; uniform "
                                                 f"random pi beside: c0 = {[r['c0'] for r in rows]} at m = {list(ms)}",
                               params={**v.params, "worst_rows": worst, "beside": beside})


def _check_c(ctx: CheckContext) -> Verdict:
    if not full_tier(ctx):
        return Verdict.not_run("the minimal-C bisection for Algorithm 1 runs in the full tier (about 1 minute)")
    rows = []
    for m, d in ((512, 384), (1024, 512)):
        def make(d_k, r, m=m, d=d):
            return algorithm1(random_permutation_graph(m, rng=r), gaussian_unit_norm_embeddings(m, d, rng=r),
                              d_k=d_k, rng=r)
        res = K.fast_min_dk(make, n_draws=3, rng=ctx.rng(m), d_k_hi=int(500 * math.log(m)))
        rows.append({"m": m, "d_model": d, "c0": d / math.log(m), "d_k": res["d_k"],
                     "C": None if res["d_k"] is None else res["d_k"] / math.log(m)})
    ok = all(r["C"] is not None for r in rows)
    return Verdict(status=decide(ok, False, exact=True),
                   paper_value="d_k = C log m for a sufficiently large absolute C",
                   measured_value=f"minimal C (all 3 draws separate): {[(r['m'], r['d_model'], r['C']) for r in rows]}",
                   details=jsonable(rows), params={"n_draws": 3},
                   evidence="bisection over d_k, fresh (pi, X, W_sig) per draw", evidence_level="sampled")


def _check_paper_sizes(ctx: CheckContext) -> Verdict:
    sizes = [s for s in K.PAPER_SIZES if full_tier(ctx) or s[0] <= 512]
    rows, failing = [], []
    for m, d in sizes:
        res = [K.algorithm1_limit_margin(m, d, rng=ctx.rng(m, d, rep)) for rep in range(2)]
        row = {"m": m, "d_model": d, "c0": d / math.log(m), "limit_margins": [r["margin"] for r in res],
               "limit_best_margins": [r["best_margin"] for r in res]}
        rows.append(row)
        if all(x <= 0 for x in row["limit_margins"]):
            failing.append(row)
    status = decide(not failing, bool(failing), exact=True)
    # Readings of the hypothesis d_model >= c0 log m ("c0 a sufficiently large absolute constant").
    c0_excl = 16 / math.log(128)  # Sec. 6.1: (16, m > 64) violate the precondition, so c0 > 16 / ln 128 there

    def _outcome(c0_min: float, label: str) -> str:
        inside = [r for r in rows if r["c0"] >= c0_min]
        bad = [(r["m"], r["d_model"], round(r["c0"], 2)) for r in failing if r["c0"] >= c0_min]
        if bad:
            return f"fails: {len(bad)} size(s) with c0 >= {c0_min:.3g} have negative limit margin in every draw: {bad}"
        if not inside:
            return f"not tested: every size has c0 = d_model / ln m < {c0_min:.3g} ({label})"
        if failing:
            return (f"not tested: witness outside hypothesis d_model >= c0 log m ({label}); the "
                    f"{len(inside)} size(s) with c0 >= {c0_min:.3g} separate")
        return f"holds: every size with c0 >= {c0_min:.3g} separates in the limit"

    hyps = [f"(m, d_model) in {sizes} (the experiments' sizes), h = m / d_model, tau = d_k / 2 as stated, "
            "d_k -> infinity (any large C)",
            "Gaussian unit-norm embeddings, random permutation graph; c0 = d_model / ln m recorded per size"]
    readings = {"c0 = d_model / ln m at each size (the statement: the hypothesis is met at the paper's sizes)":
                    (f"fails: {[(r['m'], r['d_model'], round(r['c0'], 2)) for r in failing]}" if failing
                     else "holds: every size separates in the limit"),
                f"c0 > 16 / ln 128 = {c0_excl:.2f} (Sec. 6.1 excludes (16, m > 64) as violating it)":
                    _outcome(c0_excl + 1e-12, "Sec. 6.1's excluded points"),
                "c0 = 61.6 (where thm41-limit-separation holds)": _outcome(61.6, "c0 = 61.6")}
    return with_readings(Verdict(status=status,
                   paper_value="Algorithm 1 (h = m / d_model, tau = d_k / 2) recognises the graph for a large enough C "
                               "at the sizes of the experiments (Sec. 6.1)",
                   measured_value=f"{len(failing)} of {len(rows)} paper sizes have negative d_k -> infinity margin in "
                                  f"every draw (no C works): {[(r['m'], r['d_model']) for r in failing]}",
                   witness=jsonable(failing[:6]) if failing else None, params={"sizes": sizes, "draws_per_size": 2},
                   details=jsonable(rows),
                   evidence="exact d_k -> infinity limit of S / d_k (law of large numbers over Rademacher columns); a "
                            "size failing in both draws has an exact failure-rate lower bound sqrt(1e-6) = 1e-3 > m^-3 "
                            "(Clopper-Pearson, false alarm 1e-6)",
                   evidence_level="certified"),
                         hyps, readings)


_WHP_EXPONENT = 3  # Theorem 4.1: "with probability at least 1 - m^-3 over the draw of (X, W_sig)"
_FALSE_ALARM = 1e-6  # fixed in advance
_N_LIMIT_DRAWS = 20  # fixed in advance; certifying m^-3 at m = 512 would need about 1.8e9 draws


@functools.lru_cache(maxsize=4)
def _limit_margins(seed: int, m: int, d: int):
    """The d_k -> infinity limit margin of Algorithm 1 per draw of (pi, X) (cached: mutants only re-judge)."""
    return [K.algorithm1_limit_margin(m, d, rng=np.random.default_rng(ss))
            for ss in np.random.SeedSequence(seed).spawn(_N_LIMIT_DRAWS)]


def _random_pi_limit(ctx: CheckContext) -> Verdict:
    """The d_k -> infinity limit of Algorithm 1 on 20 draws of (pi, X), pi uniform, at (512, 384) (c0 = 61.6), by
    the probability-bound standard: a uniform pi's constant, recorded beside the worst permutation found."""
    m, d = 512, 384
    rate = float(m) ** -_WHP_EXPONENT
    rel = ctx.expect("separation")
    res = _limit_margins(ctx.seed, m, d)
    oks = [relation_holds(r["margin"], rel, 0.0) for r in res]
    return monte_carlo_verdict(lambda i: (oks[i], {"draw": i, **res[i]}), n_trials=len(res), claimed_failure_rate=rate,
                               false_alarm=_FALSE_ALARM,
                               paper_value="for large C, Algorithm 1 separates w.p. >= 1 - m^-3 (here: the d_k -> "
                                           f"infinity limit margin {rel} 0 in a fraction >= 1 - m^-3 of draws of (pi, X))",
                               params={"m": m, "d_model": d, "c0": d / math.log(m)})


def _beside(v: Verdict) -> dict:
    return {"status": v.status.value, "evidence_level": v.evidence_level, "measured": v.measured_value,
            "certified_rate": (v.params.get("resolution") or {}).get("certified_rate")}


def _check_thm41_limit(ctx: CheckContext) -> Verdict:
    """Judged at the worst permutation found (fixed_points.every_pi_limit_verdict); a uniform pi beside."""
    from .fixed_points import every_pi_limit_verdict

    v = every_pi_limit_verdict(ctx)
    return dataclasses.replace(v, params={**v.params, "uniform random pi at (512, 384), 20 draws (beside, not judged)":
                                          _beside(_random_pi_limit(ctx))})


def _check_thm41_mc(ctx: CheckContext) -> Verdict:
    if not full_tier(ctx):
        return Verdict.not_run("finite-d_k Monte Carlo of Theorem 4.1 runs in the full tier (about 5 minutes)")
    m, d = 512, 384

    def limit_trial(r):
        return K.algorithm1_limit_margin(m, d, rng=r)["margin"]

    def finite_trial(C, r):  # separation_margins(algorithm1(...)).margin > 0, decided exactly by a guarded fast path
        return algorithm1_separates(random_permutation_graph(m, rng=r), gaussian_unit_norm_embeddings(m, d, rng=r),
                                    d_k=math.ceil(C * math.log(m)), rng=r)

    random_pi = whp_constant_sweep(ctx=ctx, m=m, d_model=d, Cs=(250.0, 500.0, 1000.0, 2000.0), n_draws=20,
                                   n_limit=300, finite_trial=finite_trial, limit_trial=limit_trial,
                                   what="Algorithm 1 (max over heads, permutation graphs)",
                                   extra_hypotheses=["pi a uniform random permutation", "h = ceil(m / d_model) = 2 "
                                                     "heads, consecutive source blocks (the last one smaller)"])
    # for every pi: the worst permutation found decides. Its finite-d_k sweep at an admissible c0 ((2048, 1536), d_k up
    # to 2000 ln m) is out of reach; the limit there is what can fail (then no C works), and 2 clean draws leave the
    # rate undecided
    from .fixed_points import every_pi_limit_verdict

    v = every_pi_limit_verdict(ctx)
    return dataclasses.replace(v, params={**v.params, "uniform random pi at (512, 384), finite-d_k sweep (beside, "
                                                      "not judged)": {**_beside(random_pi),
                                                                      "measured_C": random_pi.params.get("measured_C")}})



_READ = ("Natural log; d_k = ceil(C ln m); self-pairs (i, i) count as non-edges (then a pi with many fixed points "
         "fails for every constant: thm41-fixed-points-self-pair). See docs/theorems.md.")
_THRESHOLD = Stated(0.5, "value", "Theorem 4.1: tau = d_k / 2, i.e. 1/2 for the limit of S / d_k")


def _thm41_budget(ctx: CheckContext) -> Verdict:
    ratio = F.DK_construction_ii() / (F.m * sp.log(F.m) / F.d_model)
    rate = identity_verdict(ratio, F.C, variables=[VAR_M, VAR_D_MODEL, Var(F.C, 1, 100)], ctx=ctx)
    vs_lb = identity_verdict(F.DK_construction_ii() / F.lower_bound_rate().subs(F.mp, F.m), F.C,
                             variables=[VAR_M, VAR_D_MODEL, Var(F.C, 1, 100)], ctx=ctx)
    return combine_verdicts([rate, vs_lb], paper_value="D_K = h d_k = Theta(m log m / d_model), matching the lower bound "
                            "for permutation graphs up to constants")


def _thm41_vs_b2(ctx: CheckContext) -> Verdict:
    return identity_verdict(F.heads_construction_ii() * F.dk_construction_ii(), F.DK_gun().subs(sp.ceiling(F.m / F.d_model), F.m / F.d_model),
                            variables=[VAR_M, VAR_D_MODEL, Var(F.C, 1, 10)], ctx=ctx,
                            paper_value="Theorem 4.1, Theorem B.2 and Corollary B.6 state D_K = Theta(m log m / d_model)")


CLAIMS = (
    Claim(id="thm41-minimal-constant-c0", ref="Theorem 4.1",
          statement="A finite absolute c0 suffices for every pi: the smallest d_model / ln m at which Algorithm 1 "
                    "separates (loop-free, d_k -> infinity) the worst permutation found by search does not grow with "
                    "m (m = 1448..4096); a uniform random pi's constant beside",
          kind=Kind.ASYMPTOTIC, tier=Tier.FULL, check=_check_c0, role="result",
          standard=Standard("for-every", "the minimal c0 of the worst permutation found (search over random, "
                            "derangement, identity-heavy, transposition, cycle, shift and swap families), fitted "
                            "against ln m", primary="c0_growth_verdict on the worst permutation found; a uniform "
                            "pi's c0 recorded beside"),
          notes="Judged at the worst permutation found since the review of 2026-11-28 (was: a uniform random pi, quick "
                "tier, c0 about 35-45, holds-empirically): Theorem 4.1 holds for each fixed pi, and an identity-like "
                "pi needs c0 about 114-130 loop-free, i.e. d_model > m below m of about 1000, so it is bisected at m = "
                "1448..4096 only: full tier, thm41-fixed-points-worst-case-c0's computation on that claim's seed "
                "(fixed_points.worst_c0_rows; 6-16 minutes, shared with that claim in one process). Measured: "
                "c0 = 130, 129, 123, 114 at m = 1448, 2048, 2896, 4096 (identity), against 35-42 for a uniform pi "
                "(m = 512..2048, 3 draws per step, self-pairs tested, recorded beside). Fitted against ln m, where the alternative c0 ~ ln m has "
                "exponent 1 and a constant c0 exponent 0: holds only when the whole 95% interval is <= 1/2, "
                "contradicted when it is wholly above (equivalence standard). Stated: the direction 'c0 does not "
                "grow'; the 0 is the definition of 'constant', not declared as an exponent. With self-pairs tested "
                "no c0 works when a head holds mostly fixed points (thm41-fixed-points-self-pair). " + _READ,
          expects={"c0_trend": Stated("<=", "relation", "Theorem 4.1: an absolute constant c0 (does not grow with m)"),
                   "threshold": _THRESHOLD}),
    Claim(id="thm41-minimal-constant-c", ref="Theorem 4.1",
          statement="A finite C suffices at c0 above its minimum: the smallest C with d_k = ceil(C ln m) separating "
                    "in all draws at (512, 384) and (1024, 512)",
          kind=Kind.ASYMPTOTIC, tier=Tier.FULL, check=_check_c, role="result",
          notes="Measured C is large (about 130-180); 3 draws per size, so holds-empirically at most (sampled). "
                + _READ),
    Claim(id="thm41-hypotheses-at-paper-sizes", ref="Theorem 4.1",
          statement="At the (m, d_model) of the paper's max-over-heads experiments, Algorithm 1 with h = m / d_model "
                    "separates for a large enough C (the hypothesis d_model >= c0 log m is met)",
          kind=Kind.ASYMPTOTIC, tier=Tier.QUICK, check=_check_paper_sizes, role="detail",
          supports=("Sec. 6.1",),
          notes="Detail: whether the experiments' sizes meet the theorem's 'c0 sufficiently large' (Sec. 6.1 excludes "
                "only (16, m > 64)); the theorem itself is asymptotic and is not broken by it. "
                "Quick tier: sizes with m <= 512; full tier adds the r = 8 diagonal up to (4096, 512) and (1024, 32). "
                "A negative d_k -> infinity margin in every draw means no C works for those X. Smaller blocks "
                "(more heads than m / d_model) can still separate (sec5-smaller-blocks-larger-margin). Borderline "
                "size (independent review of 2026-11-28): at (2048, 256) with tau = d_k / 2 the limit margins of four "
                "seeds were +0.004, -0.020, -0.014, -0.015, and with the best threshold (1024, 128) and (2048, 256) "
                "separate in the limit; the finding rests on the smaller sizes, whose margins are negative in every "
                "draw.",
          slip=("hypothesis-does-not-cover", "comparison",
                "At the experiments' (m, d_model) no C makes Algorithm 1 separate, so Theorem 4.1's 'c0 sufficiently "
                "large' does not reach the sizes Sec. 6.1 explains with it; the asymptotic theorem stands, and Sec. "
                "6.1 needs another account of its thresholds (smaller blocks, for instance).")),
    Claim(id="thm41-limit-separation", ref="Theorem 4.1",
          statement="For every pi (fixed points allowed, loop-free pairs), some c0 makes the d_k -> infinity limit of "
                    "Algorithm 1 separate w.p. >= 1 - m^-3 over X: the worst permutation found by search at (512, "
                    "384) is judged at (2048, 1536), c0 = 201.5, beside a uniform random pi at c0 = 61.6",
          kind=Kind.HIGH_PROBABILITY, tier=Tier.QUICK, check=_check_thm41_limit, role="result",
          standard=Standard("for-every", "the failure rate over X of the loop-free limit separation of the worst "
                            "permutation found, against m^-3", primary="search at (512, 384) (2 draws of X per "
                            "family), the worst judged at (2048, 1536) by the probability-bound standard (2 draws, "
                            "Clopper-Pearson at false alarm 1e-6)"),
          notes="Judged at the worst permutation found since the review of 2026-11-28 (was: uniform random pi only, "
                "which averages over pi while the theorem holds for each fixed pi; fixed_points.every_pi_limit_"
                "verdict). At c0 = 61.6 a uniform pi separates (20 draws, recorded beside) while the worst found "
                "(identity-like) fails in every draw: that c0 is the random-pi constant, not the every-pi one, so "
                "the worst is judged at c0 = 201.5, above the worst-case constant 114-130 "
                "(thm41-fixed-points-worst-case-c0); a failure there certified above m^-3 refutes (reading: c0 = "
                "201.5 counts as sufficiently large), no failure is inconclusive under the probability-bound "
                "standard (2 draws certify <= 0.999; m^-3 needs about 1e11). Self-pairs: thm41-fixed-points-self-"
                "pair. The probability exponent is not declared for mutation (no feasible sample tells m^-2 from "
                "m^-4); the direction (margin > 0) and the limit threshold 1/2 are. About 15 s (the judged size "
                "costs m^3 per draw).",
          expects={"separation": Stated(">", "relation", "Theorem 4.1: S_i,pi(i) > tau > S_ij"),
                   "threshold": _THRESHOLD}),
    Claim(id="thm41-separation-whp", ref="Theorem 4.1",
          statement="For every pi, some C makes Algorithm 1 separate w.p. >= 1 - m^-3: judged at the worst "
                    "permutation found, whose d_k -> infinity limit at (2048, 1536) (c0 = 201.5) must not fail (else "
                    "no C works); a uniform random pi's finite-d_k sweep at (512, 384) (failures vanish as C grows, "
                    "measured C) beside",
          kind=Kind.HIGH_PROBABILITY, tier=Tier.FULL, check=_check_thm41_mc, role="result",
          standard=Standard("for-every", "the failure rate over X of the worst permutation found in the d_k -> "
                            "infinity limit (no C helps where it fails), against m^-3",
                            primary="fixed_points.every_pi_limit_verdict; the uniform pi's finite-d_k sweep beside"),
          notes="Judged at the worst permutation found since the review of 2026-11-28 (was: uniform random pi at "
                "c0 = 61.6, below the worst-case constant). The worst found's finite-d_k sweep at an admissible c0 "
                "(m = 2048, d_k up to 2000 ln m) is out of reach, so what is judged is its limit, where a failure "
                "means no C works; clean draws leave the rate inconclusive. Beside: C in {250, 500, 1000, 2000}, 20 "
                "fresh draws of (pi, X, W_sig) each, 300 draws of the limit, for a uniform pi at (512, 384). "
                "Certifying m^-3 would need about 1e8 draws; the 'all 3 draws separate' minimum of "
                "thm41-minimal-constant-c (about 160) underestimates the w.h.p. constant.",
          expects={"threshold": _THRESHOLD, "separation": Stated(">", "relation", "Theorem 4.1: S_i,pi(i) > tau > "
                                                                                  "S_ij for all j != pi(i)")}),
    with_role(symbolic_claim("thm41-sym-budget-rate", "Theorem 4.1", "D_K = (m/d_model) C log m = Theta(m log m/d_model), within the "
                   "constant C of the permutation lower bound.", _thm41_budget),
          "result"),
    with_role(symbolic_claim("thm41-sym-construction-ii-budget", "Theorem 4.1", "Theorem 4.1, Theorem B.2 and Corollary B.6 give the "
                   "same budget (m/d_model) C log m.", _thm41_vs_b2),
          "detail", "Theorem B.2", "Corollary B.6"),
)
