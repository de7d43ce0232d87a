"""Decision rules of the App. A.3 claims (:mod:`.regular`): the exponent of D_K* in the degree r, the two parts of
the edge collapse, and the comparison of the trained threshold with Algorithm 5's smallest working width. Pure
functions of the measured numbers, so that tests can plant the alternatives they must reject."""

from __future__ import annotations

import math

import numpy as np

from ...analysis.fits import profile_interval
from ..base import Status
from ..standards import decide
from ..standards.tolerances import EXPONENT_HALF_WIDTH
from ..tools.measure import FACTOR2_TOL, conjunction_status, equivalence_status

__all__ = ["DEGREE_TOL", "one_constant_tol", "degree_exponent", "degree_law_status", "edges_collapse_status",
           "degree_band_part", "degree_rows", "CONSTRUCTION_DKS", "construction_decision"]


DEGREE_TOL = EXPONENT_HALF_WIDTH  # the exponent of D_K* in r: closer to the edges law's 1 than to 0 (vertices) or 2


def one_constant_tol(r_lo: float, r_hi: float, factor: float = FACTOR2_TOL) -> float:
    """The tolerance on the exponent of r that 'one constant for every degree' allows: over [r_lo, r_hi] the constant
    D_K* / x drifts by (r_hi / r_lo)^(gamma - 1), which must stay within the package's factor for a stated constant."""
    return math.log(factor) / math.log(r_hi / r_lo)


def degree_exponent(rs, ivs, capped=()) -> dict:
    """log D_K* = c + gamma log r at fixed (m, d_model), by censored-Gaussian interval regression on the degrees' D_K*
    intervals (cap-limited degrees as upper bounds only), sigma held at least at the ladder's resolution (as for
    Figure 3's law: a free sigma collapses when a line threads every interval); the 95% profile interval of gamma."""
    from ..tools.measure import floored_fit

    rs = sorted(rs)
    lows = [0.0 if r in capped else ivs[r].low for r in rs]
    with np.errstate(divide="ignore"):
        lo = np.log(np.array(lows, dtype=float))
        hi = np.log(np.array([ivs[r].high for r in rs], dtype=float))
    X = np.column_stack([np.ones(len(rs)), np.log(np.array(rs, dtype=float))])
    fit, free, floor = floored_fit(lo, hi, X, ivs, rs)
    ci = profile_interval(fit, 1)
    return {"gamma": float(fit.beta[1]), "gamma 95% profile": [float(ci[0]), float(ci[1])],
            "sigma (log) fitted freely": float(free.sigma), "sigma floor (ladder)": floor,
            "sigma used": float(max(free.sigma, floor)), "degrees": rs,
            "cap-limited degrees (upper bounds only)": sorted(capped)}


def degree_law_status(fit: dict, claimed: float = 1.0, tol: float = DEGREE_TOL):
    """The edges law's exponent by one standard: (status, resolution) of the 95% interval of gamma against
    [claimed - tol, claimed + tol]."""
    return equivalence_status(fit["gamma 95% profile"], (claimed - tol, claimed + tol))


def edges_collapse_status(parts: dict) -> Status:
    """Both parts of the collapse (the constant and the exponent of r), each by one standard: contradicted when one is
    contradicted, holds when both hold, inconclusive otherwise."""
    return conjunction_status(parts.values())


def degree_band_part(rs, ivs, capped, slope: float, xs: dict, factor: float = FACTOR2_TOL) -> tuple[Status, dict]:
    """'One constant for every degree', read degree by degree, by one standard (:func:`equivalence_status`): each
    degree's D_K* interval (a cap-limited degree's as an upper bound only, (0, high]) against [slope x / factor,
    slope x * factor]; the part is their conjunction: a degree wholly outside contradicts the constant (D_K* there is
    known, to the ladder's resolution, to be more than a factor ``factor`` from slope x), every degree inside holds.
    Returns the status and a row per degree (its interval, prediction, ratio and status)."""
    rows, sts = {}, []
    for r in sorted(rs):
        pred, iv = slope * xs[r], ivs[r]
        low = 0.0 if r in capped else iv.low
        st, _ = equivalence_status((low, iv.high), (pred / factor, pred * factor))
        sts.append(st)
        rows[f"r={r}"] = {"x (log2)": round(xs[r], 3), "predicted D_K* = slope x": round(pred, 3),
                          "D_K* interval": iv.as_dict(), "against [slope x / sqrt2, slope x * sqrt2]": st.value,
                          "ratio of the interval to the prediction": [round(low / pred, 3),
                                                                       None if math.isinf(iv.high)
                                                                       else round(iv.high / pred, 3)],
                          "cap-limited": r in capped}
    return conjunction_status(sts), rows


def degree_rows(rs, ths, ivs, caps, rates) -> dict:
    """The reported row of each degree: D_K*, its interval, h*, the cap sensitivity and the sampler's positive rate."""
    return {f"r={r}": {"D_K*": ths[r].central, "D_K* interval": ivs[r].as_dict(), "h*": ths[r].h_star,
                       "h* interval": [ths[r].h_low, ths[r].h_high],
                       "stopped early at (h*, D_K*)": caps[r]["stopped early at (h*, D_K*)"],
                       "could move down with a longer cap": caps[r]["could move down with a longer cap"],
                       "sampler positive rate": rates.get(r, {}).get("rate")} for r in rs}


CONSTRUCTION_DKS = (1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64)  # per-head widths tried for Algorithm 5, smallest first


def construction_decision(iv_low: float, iv_high: float, h0: int, rows: list) -> tuple[Status, dict]:
    """Trained D_K* interval (iv_low, iv_high] against Algorithm 5's smallest working D_K. ``rows``: per width d_k
    tried (increasing), ``{"d_k": ..., "separates": [bool per draw]}``; a width works when most draws separate every
    ordered pair. The construction's smallest working D_K lies in (h0 * last failing d_k, h0 * first working d_k].
    Holds when the construction works at some width tried and the trained first passing D_K is at most h0 x its
    last failing width (the trained threshold is below what the construction needs); contradicted when the
    construction works at or below the trained last failing D_K (iv_low); inconclusive otherwise, in particular when
    no width tried works (the construction is outside its regime at this size: nothing to compare with)."""
    fail_dk, ok_dk = 0, None
    for row in rows:
        if 2 * sum(row["separates"]) > len(row["separates"]):
            ok_dk = row["d_k"]
            break
        fail_dk = row["d_k"]
    lo_c, hi_c = h0 * fail_dk, (h0 * ok_dk if ok_dk is not None else math.inf)
    # the two conditions exclude each other: widths increase (lo_c < hi_c) and iv_low <= iv_high
    status = decide(ok_dk is not None and fail_dk and iv_high <= lo_c, ok_dk is not None and hi_c <= iv_low)
    return status, {"construction's smallest working D_K in": [lo_c, None if math.isinf(hi_c) else hi_c],
                    "last failing d_k": fail_dk or None, "first working d_k": ok_dk}
