"""App. A: cross-references of Secs. 6-7 and App. A checked as claims.

- Eq. (30): App. A.3 replaces the fixed positive weight ell - 1 of the permutation experiments by w_+ = #neg / #pos
  per context and says everything else is as in the permutation experiments, and that at r = 1 the sampler reduces
  to the permutation procedure; we measure how far w_+ is from ell - 1 at r = 1 (the r = 1 point of App. A.3 is
  the only place where the two protocols describe the same graph);
- App. A.2: Table 1 is "for numbers in the main sweep" (it covers the base grid). Sec. 6.1's "increased budgets
  (App. A.2)" is checked in :mod:`rgr_verify.claims.paper_sec6.stated`.

The docs/xrefs/pd.md table lists every cross-reference examined with the claim that checks it.
"""

from __future__ import annotations

import math

import numpy as np

from ...core.contexts import context_labels, sample_contexts
from ...analysis.fits import DKInterval, profile_interval
from ...core.graphs import random_regular_graph
from .sampler import hoeffding_interval as _hoeffding
from ..base import CheckContext, Claim, Kind, Stated, Status, Tier, Verdict
from ..standards import EXPONENT_HALF_WIDTH, TOLERANCE_REASONS, Standard
from ..standards.decide import decide
from ..symbolic import exhaustive_verdict
from ..tools import BASE_GRID, TABLE1, symbolic_claim
from ..tools.measure import equivalence_status, floored_fit
from ..tools import fit_exponent
from ..tools.cells import h_star_tie_break
from ..tools.multiverse import DIMENSIONS, multiverse_status, tolerance
from .regular import regular_sweep

__all__ = ["CLAIMS", "ORDER", "heads_exponent"]

ORDER = 107

_CONFIDENCE = 1 - 1e-6


def _check_eq30_at_r1(ctx: CheckContext, m=128, ell=16, rho=0.5, n_contexts=2000) -> Verdict:
    rng = ctx.rng(0)
    g = random_regular_graph(m, 1, rng=rng)
    ctxs = sample_contexts(g, n_contexts, ell, rho, rng=rng)
    npos = context_labels(g, ctxs).sum(axis=(1, 2)).astype(float)
    has = npos > 0
    w = (ell * ell - npos[has]) / npos[has]  # the engine's Eq. (30) over all ell^2 ordered pairs (p = q included)
    # at r = 1 a context holds 1 <= #pos <= ell positives, so w_+ lies in [ell - 1, ell^2 - 1]: an exact (Hoeffding)
    # interval for its mean at false-alarm rate 1 - _CONFIDENCE
    w_lo, w_hi = ell - 1, ell * ell - 1
    mean, lo01, hi01 = _hoeffding((w - w_lo) / (w_hi - w_lo))
    lo, hi = w_lo + lo01 * (w_hi - w_lo), w_lo + hi01 * (w_hi - w_lo)
    fixed = ell - 1
    mean = w_lo + mean * (w_hi - w_lo)
    differs = lo > fixed or hi < fixed
    return Verdict(decide(differs, not differs, exact=True), evidence_level="certified",
                   paper_value=f"App. A.3: Eq. (30) w_+ = #neg/#pos replaces the fixed weight ell - 1 = {fixed} of the "
                               "permutation experiments (the listed 'substantive difference')",
                   measured_value={"mean w_+ at r = 1": round(float(mean), 3),
                                   f"exact (Hoeffding) interval at confidence {_CONFIDENCE}":
                                       [round(float(lo), 3), round(float(hi), 3)],
                                   "ratio mean w_+ / (ell - 1)": round(float(mean) / fixed, 3),
                                   "contexts without a positive (w_+ = 0 in the engine, left out)":
                                       int((~has).sum()),
                                   "mean positives per context": round(float(npos.mean()), 3)},
                   params={"m": m, "r": 1, "ell": ell, "rho": rho, "contexts": n_contexts,
                           "pairs": "all ell^2 ordered pairs (p = q included), as the engine's loss"},
                   evidence=f"Monte Carlo over {n_contexts} contexts of the App. A.3 sampler at r = 1 (one graph); "
                            f"exact Hoeffding interval (w_+ in [ell - 1, ell^2 - 1]) at confidence {_CONFIDENCE}",
                   details="At r = 1 the App. A.3 sampler is the permutation procedure, but the loss weight is not: "
                           "w_+ is several times the fixed ell - 1 (about 3.7x at m = 128, since the literal sampler leaves about 5 "
                           "positives per context), so App. A.3's r = 1 point is not trained with the "
                           "Sec. 6 loss. This is one difference between the two fits compared by "
                           "sec6-sym-fits-sec6-vs-a3 (besides the sampler's positive rate and the log base).")


def _table1_covers_grid(ctx: CheckContext) -> Verdict:
    cells = sorted(BASE_GRID | set(TABLE1))
    return exhaustive_verdict(lambda c: (c["m"], c["d_model"]) in TABLE1 and (c["m"], c["d_model"]) in BASE_GRID,
                              ({"m": a, "d_model": b} for a, b in cells),
                              domain="the base grid of Sec. 6.1 and the cells of Table 1",
                              paper_value="App. A.2: Table 1 gives d_k* 'for numbers in the main sweep' (the base "
                                          "grid m in {64, ..., 512}, d_model in {16, 32, 64})")


# h* is tested on a doubling ladder of head counts: a threshold h* stands for (h_low / sqrt2, h_high * sqrt2] (as for
# Figure 10's laws); half a doubling each side is the ladder's geometry, not a tolerance
_HEAD_LADDER_HALF_STEP = math.sqrt(2.0)


def heads_exponent(ths, rs) -> dict:
    """log h* = c + p log r by censored-Gaussian interval regression on the degrees' h* intervals (h_low / sqrt2,
    h_high * sqrt2] of the doubling head ladder, sigma held at least at the ladder's resolution
    (:func:`~rgr_verify.claims.tools.measure.ladder_sigma_floor`, as for Figure 3's law, App. A.3's exponent of
    D_K* in r and Figure 4's growth: a free sigma collapses when a line threads every interval, which makes the profile
    interval spuriously narrow). Returns p, its 95% profile interval, the sigma fitted freely, the floor and the sigma
    used."""
    rs = sorted(rs)
    ivs = {r: DKInterval(ths[r].h_low / _HEAD_LADDER_HALF_STEP, ths[r].h_high * _HEAD_LADDER_HALF_STEP, "interval")
           for r in rs}
    lo = np.log([ivs[r].low for r in rs])
    hi = np.log([ivs[r].high for r in rs])
    X = np.column_stack([np.ones(len(rs)), np.log(np.array(rs, dtype=float))])
    fit, free, floor = floored_fit(lo, hi, X, ivs, rs)
    ci = profile_interval(fit, 1)
    return {"p": float(fit.beta[1]), "95% profile": [float(ci[0]), float(ci[1])],
            "sigma fitted freely": float(free.sigma), "sigma floor (ladder)": floor,
            "sigma used": float(max(free.sigma, floor)), "degrees": rs}


def _check_heads_linear_in_r(ctx: CheckContext, tol=EXPONENT_HALF_WIDTH) -> Verdict:
    expo = ctx.expect("exponent")
    tol = tolerance(tol)  # ours: closer to linear than to no growth or to r^2
    got, why = regular_sweep(ctx)
    if got is None:
        return Verdict.not_run(why)
    recs, by_r, ths, ivs, caps = got
    rs = sorted(r for r in ths if r <= 16 and ths[r].h_star is not None)
    if len(rs) < 4:
        return Verdict(Status.INCONCLUSIVE, details="fewer than 4 degrees with an h*", evidence_level="fitted")
    fit = heads_exponent(ths, rs)
    ci = fit["95% profile"]
    central = float(np.polyfit(np.log(rs), np.log([ths[r].h_star for r in rs]), 1)[0])
    status, res = equivalence_status(ci, (expo - tol, expo + tol))
    # the multiverse: the interval regression on the h* pools, or the paper's point h* (least squares on log h*, its
    # 95% t-interval), x App. A.2's h* tie-break or the fewest / most heads among those tied at D_K* (many h tie at
    # F1 ~ 1 on the doubling ladder)
    by_r = got[1]
    analyses = []
    for tie in DIMENSIONS["h* tie-break"]:
        tths = {r: h_star_tie_break(ths[r], by_r[r], tie) for r in rs}
        t_ci = heads_exponent(tths, rs)["95% profile"]
        pt = fit_exponent(rs, [tths[r].h_star for r in rs])
        for pts, (est, iv) in zip(DIMENSIONS["points compared"], ((None, list(t_ci)), (pt["slope"], [pt["lo"], pt["hi"]]))):
            analyses.append({"choices": {"points compared": pts, "h* tie-break": tie}, "estimate": est,
                             "interval": [float(iv[0]), float(iv[1])],
                             "status": equivalence_status(iv, (expo - tol, expo + tol))[0]})
    status, robustness = multiverse_status(analyses)
    return Verdict(status,
                   paper_value=f"App. A.3: the head count at the threshold 'increases roughly linearly with r' "
                               f"(Figure 13): h* ~ r^{expo:g} over r in {{1, 2, 4, 8, 16}} (one standard: holds when the "
                               f"95% profile interval of the exponent lies wholly inside [{expo - tol:g}, {expo + tol:g}], "
                               "contradicted when it lies wholly outside, inconclusive otherwise)",
                   measured_value={"h* (central, low, high)": {f"r={r}": [ths[r].h_star, ths[r].h_low, ths[r].h_high]
                                                               for r in rs},
                                   "exponent, interval regression on (h_low/sqrt2, h_high*sqrt2]":
                                       round(fit["p"], 4),
                                   "95% profile interval": [round(ci[0], 4), round(ci[1], 4)],
                                   "sigma fitted freely": round(fit["sigma fitted freely"], 4),
                                   "sigma floor (ladder)": round(fit["sigma floor (ladder)"], 4),
                                   "sigma used": round(fit["sigma used"], 4),
                                   "exponent, least squares on the central h*": round(central, 4),
                                   "cap-limited degrees": [r for r in rs if caps[r]["cap-limited"]]},
                   witness={"central": central, "ci": list(ci)} if status is Status.CONTRADICTED_EMPIRICALLY else None,
                   params={"degrees": rs, "m": 128, "d_model": 32, "tolerance": tol, "resolution": res,
                           "robustness": robustness, "band": [expo - tol, expo + tol], "fit": fit,
                           **({"to_decide": res["to_decide"]} if "to_decide" in res else {})}, evidence_level="fitted",
                   evidence=f"full sweep ({len(recs)} runs); censored-Gaussian interval regression of log h* on log r "
                            "(scipy.optimize), sigma held at least at the ladder's resolution, profile-likelihood "
                            "interval")


_EXPONENT_BAND = f"[{1 - EXPONENT_HALF_WIDTH:g}, {1 + EXPONENT_HALF_WIDTH:g}]"  # the stated exponent 1 +- the half-width

CLAIMS = (
    Claim(id="eq30-weight-at-r1-differs-from-permutation-weight", ref="Eq. (30)",
          statement="At r = 1 (a permutation graph), App. A.3's per-context weight w_+ = #neg / #pos of Eq. (30) "
                    "differs from the fixed positive weight ell - 1 of the permutation experiments it replaces",
          kind=Kind.HIGH_PROBABILITY, tier=Tier.QUICK, check=_check_eq30_at_r1, role="detail",
          notes="Cross-reference check of App. A.3 ('replace the fixed positive weight (ell - 1) used for "
                "permutations with ... (30)'; 'When r = 1 this reduces to the permutation procedure'; 'Everything "
                "else ... is as in the baseline'). Verified when the mean w_+ over the App. A.3 sampler's contexts at "
                "r = 1 (m = 128, ell = 16, rho = 0.5, as App. A.3) has an exact Hoeffding interval at confidence "
                "1 - 1e-6 (w_+ lies in [ell - 1, ell^2 - 1] at r = 1) that excludes ell - 1 = 15; refuted when it "
                "contains it. #neg / #pos over all ell^2 ordered pairs, as "
                "the engine computes it (rgr_verify.engine.model.pos_weight). No stated value is declared: ell - 1 "
                "follows from the parameter ell, and the statement is an inequality, not a number."),
    Claim(id="appa3-hstar-roughly-linear-in-degree", ref="App. A.3",
          analyses=("leave one seed out", "F1 target", "threshold rule", "tolerance"),
          statement="The head count at the threshold increases roughly linearly with the degree r (Figure 13): "
                    "h* ~ r^1 over r in {1, 2, 4, 8, 16}",
          kind=Kind.EMPIRICAL, tier=Tier.FULL, check=_check_heads_linear_in_r, role="result",
          replays=("a3-regular",),
          expects={"exponent": Stated(1, "exponent", "App. A.3 'Head count scales with edge density': the head count "
                                                     "'increases roughly linearly with r'")},
          notes="Full tier (a3-regular full: m=128, d_model=32, 5 seeds). appa3-heads-grow-with-degree tests only "
                "that h* grows (Spearman); this claim tests the stated rate. r = 32 is left out (cap-limited, and its "
                "target 128 heads exceeds the largest h tested, 64), as in Eq. (32)'s range. Rule fixed in advance: "
                "contradicted when the 95% profile interval of the exponent (interval regression of log h* on log r, "
                "h* standing for (h_low/sqrt2, h_high*sqrt2] on the doubling ladder, h_low/h_high the App. A.2 "
                f"paired-t pool) lies wholly outside {_EXPONENT_BAND}; holds when it lies wholly inside (the standard "
                "of Figure 3's law; standards.tolerances.EXPONENT_HALF_WIDTH); inconclusive otherwise. As for its "
                "siblings (Figure 3's law, appa3-edges-not-vertices-set-threshold, Eq. (32), Figure 4's growth), the "
                "residual scale is held at least at the ladder's resolution (median log step of the h* intervals / "
                "sqrt(12), tools.measure.ladder_sigma_floor): fitted freely it collapses to 0.006 (a line "
                "threads every interval) and the profile interval is spuriously narrow; until 2026-11-28 sigma was "
                "free (exponent 1.18, 95% (0.21, 1.54)). Measured: sigma floor 0.40; interval regression 0.89, 95% "
                "(0.18, 1.56); central h* = 4, 4, 8, 8, 16 gives 0.50, midway between no growth and linear: "
                "inconclusive (consistent with linear growth, but the central estimate is a square-root trend; "
                "deciding needs a finer head ladder than powers of 2).",
          standard=Standard("rate", "exponent of h* in r over r in {1, ..., 16}, h* read as (h_low / sqrt2, h_high "
                                    "sqrt2]",
                            tolerance=f"95% profile interval inside {_EXPONENT_BAND}",
                            source=f"ours: {TOLERANCE_REASONS['EXPONENT_HALF_WIDTH']} (linear growth against none "
                                   "or quadratic)",
                            primary="censored-Gaussian interval regression of log h* on log r, sigma held at the "
                                    "ladder's resolution",
                            dimensions=("points compared", "h* tie-break"), alternative=("no_head_effect", "holds-empirically"))),
    symbolic_claim("appa2-xref-table1-covers-base-grid", "App. A.2",
                   "Table 1 lists d_k* for exactly the base-grid configurations of Sec. 6.1 ('for numbers in the "
                   "main sweep').", _table1_covers_grid, role="detail"),
)
