"""Sec. 6: the numbers Sec. 6 states, compared symbolically with Table 1, the grids and the fits.

The Sec. 6 fit "D_K* ~ 1.19 m log m / d_model" (log base unstated) against App. A.3's "D_K* ~ 0.46 (r m / d_model)
log2 m" at r = 1, the diagonal's compression, Table 1's range and median, the excluded points and the head-count
fit's crossing of h = 1.
"""

from __future__ import annotations

import statistics

import sympy as sp

from ... import formulas as F
from ..base import CheckContext, Status, Verdict
from ..symbolic import combine_verdicts, exhaustive_verdict, identity_verdict, values_verdict
from ..tools import BASE_GRID, DIAGONAL, EXTRA, TABLE1, VAR_M, symbolic_claim

__all__ = ["CLAIMS", "ORDER", "FIT_FACTOR", "FIT_RTOL"]

ORDER = 63


# "Two fits of the same setting agree" means within a factor 1.5 (fixed before looking; the Sec. 6 fit has
# R^2 0.944). In values_verdict's metric |a - b| / max(a, b) that is 1 - 1/1.5 = 1/3.
FIT_FACTOR = 1.5

FIT_RTOL = 1 - 1 / FIT_FACTOR


def _fits_r1(ctx: CheckContext) -> Verdict:
    mm, dd = 128, 32  # App. A.3's setting; at r = 1 it is a permutation graph, as in Sec. 6
    a3 = F.evaluate(F.fit_a3_DK(), {"r": 1, "m": mm, "d_model": dd})
    ln = F.evaluate(F.fit_sec6_DK(base="e"), {"m": mm, "d_model": dd})
    l2 = F.evaluate(F.fit_sec6_DK(base="2"), {"m": mm, "d_model": dd})
    v_ln = values_verdict({"Sec. 6 fit, natural log": ln, "App. A.3 fit (32)": a3}, rtol=FIT_RTOL)
    v_l2 = values_verdict({"Sec. 6 fit, log2": l2, "App. A.3 fit (32)": a3}, rtol=FIT_RTOL)
    floor = 21  # Table 1: d_k* = 21 at (128, 32), so D_K* >= 21
    both = v_ln.status is Status.REFUTED and v_l2.status is Status.REFUTED
    status = Status.REFUTED if both else Status.VERIFIED
    closer = "natural log" if abs(ln - a3) < abs(l2 - a3) else "log2"
    return Verdict(status, paper_value="Sec. 6: D_K* ~ 1.19 m log m / d_model; App. A.3: D_K* ~ 0.46 (r m/d_model) log2 m",
                   measured_value={"Sec. 6 (ln)": ln, "Sec. 6 (log2)": l2, "App. A.3 at r = 1": a3,
                                   "ratio ln/A.3": ln / a3, "ratio log2/A.3": l2 / a3,
                                   "Table 1 floor D_K* >= d_k*": floor},
                   witness={"m": mm, "d_model": dd, "r": 1} if both else None,
                   params={"evidence_level": "exact comparison", "rtol": FIT_RTOL},
                   evidence=f"both fits evaluated at (m, d_model, r) = ({mm}, {dd}, 1); agreement within a factor "
                            f"{FIT_FACTOR} fixed in advance",
                   details=f"Both fits describe the permutation graph at (128, 32). They disagree under either reading "
                           f"of Sec. 6's log; the {closer} reading is closer. In natural-log units App. A.3's slope is "
                           f"0.46/ln 2 = {0.46 / 0.6931471805599453:.3f} vs Sec. 6's 1.19. App. A.3's value is also below "
                           f"the floor D_K* >= d_k* = 21 that Table 1 implies at this point (one head at least).")


def _diagonal(ctx: CheckContext) -> Verdict:
    lam8 = identity_verdict(F.fit_sec6_DK().subs(F.d_model, F.m / 8), sp.Rational(119, 100) * 8 * sp.log(F.m),
                            variables=[VAR_M], ctx=ctx)
    pairs = exhaustive_verdict(lambda c: c["m"] == 8 * c["d_model"], ({"m": a, "d_model": b} for a, b in DIAGONAL),
                               domain="the six diagonal points of Sec. 6.1")
    r32 = exhaustive_verdict(lambda c: c["m"] == 32 * c["d_model"], ({"m": a, "d_model": b} for a, b in EXTRA),
                             domain="the two r = 32 points")
    return combine_verdicts([lam8, pairs, r32], paper_value="the diagonal has m/d_model = 8 and the fit collapses to "
                            "D_K* ~ 1.19 lambda log m there")


def _table1_range(ctx: CheckContext) -> Verdict:
    vals = list(TABLE1.values())
    return combine_verdicts([values_verdict({"Sec. 6 min": 5, "Table 1 min": min(vals)}, rtol=0),
                             values_verdict({"Sec. 6 max": 24, "Table 1 max": max(vals)}, rtol=0)],
                            paper_value="Sec. 6: d_k* in [5, 24] on the base grid")


def _table1_median(ctx: CheckContext) -> Verdict:
    vals = sorted(TABLE1.values())
    med = statistics.median(vals)
    return values_verdict({"Sec. 6 (stated median)": 11, "Table 1 (computed median)": med}, rtol=0,
                          paper_value="Sec. 6: median d_k* = 11 on the base grid",
                          details=f"Table 1's twelve values sorted: {vals}; the median is the mean of the 6th and 7th "
                                  f"({vals[5]}, {vals[6]}). 11 is not the lower, upper or middle median.")


def _excluded_count(ctx: CheckContext) -> Verdict:
    pts = [(mm, dd) for (mm, dd) in sorted(BASE_GRID) if dd == 16 and mm > 64]
    return values_verdict({"Sec. 6 (stated)": 3, "base grid (counted)": len(pts)}, rtol=0,
                          paper_value="three (d_model = 16, m > 64) points excluded from the second fit")


def _heads_fit(ctx: CheckContext) -> Verdict:
    lam_star = sp.solve(sp.Eq(F.fit_sec6_heads().subs(F.m, F.lam * F.d_model), 1), F.lam)[0]
    return identity_verdict(lam_star, sp.Rational(764, 165), variables=[], ctx=ctx,
                            paper_value="h* ~ 1.65 m/d_model - 6.64 (heads clipped at h >= 1)",
                            details=f"The fit reaches h* = 1 at m/d_model = {float(lam_star):.3f}; below that (m/d in "
                                    f"{{1, 2, 4}} on the base grid) it predicts h* < 1, which App. A.2 explains by "
                                    f"clipping. Recorded for the bounds command, not a contradiction.")


CLAIMS = (
    symbolic_claim("sec6-sym-fits-sec6-vs-a3", "Sec. 6", "The Sec. 6 fit and the App. A.3 fit agree (within a factor 1.5) on the "
                   "permutation graph at m = 128, d_model = 32 (r = 1).", _fits_r1,
                   notes="Both readings of Sec. 6's 'log m' evaluated; tolerance fixed in advance."),
    symbolic_claim("sec6-sym-diagonal", "Sec. 6", "The diagonal points have m/d_model = 8 (and the extra points 32), "
                   "where the fit is 1.19 lambda log m.", _diagonal),
    symbolic_claim("sec6-sym-table1-range", "Sec. 6", "Sec. 6's range d_k* in [5, 24] matches Table 1.", _table1_range),
    symbolic_claim("sec6-sym-table1-median", "Sec. 6", "Sec. 6's median d_k* = 11 matches Table 1.", _table1_median),
    symbolic_claim("sec6-sym-excluded-points", "Sec. 6", "There are three base-grid points with d_model = 16 and m > 64.",
                   _excluded_count),
    symbolic_claim("sec6-sym-heads-fit-range", "Sec. 6", "The head-count fit h* = 1.65 m/d_model - 6.64 crosses 1 at "
                   "m/d_model = 764/165.", _heads_fit),
)
