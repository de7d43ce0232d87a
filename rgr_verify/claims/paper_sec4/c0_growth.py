"""Theorem 4.1's constant c0 judged for growth with m: shared by the claims of :mod:`.theorem41` (a uniform pi) and
:mod:`.fixed_points` (the worst permutation found), which import it from here (no circle between the two)."""

from __future__ import annotations

import dataclasses
import math

from ..base import Verdict
from ..tools import exponent_verdict, fit_exponent

__all__ = ["c0_growth_verdict"]

_C0_TOL = 0.5  # half-way between "constant" (exponent 0 in ln m) and "grows like ln m" (exponent 1)


def c0_growth_verdict(ms, c0s, *, rel: str = "<=", params: dict | None = None) -> Verdict:
    """"c0 does not grow with m", judged against its alternative c0 ~ ln m.

    The minimal c0 is fitted against ln m (log c0 = a + b log ln m): a constant c0 has b = 0, a c0 growing like
    ln m (d_model ~ (ln m)^2) has b = 1. Equivalence standard at level ``fitted``: holds-empirically only when the
    whole 95% interval of b lies at or below the midpoint 1/2, contradicted-empirically when it lies wholly above,
    inconclusive otherwise (with the resolution reached). ``rel`` ">=" judges 1 / c0 instead (the opposite
    direction, for mutation). The fit against m is recorded beside it."""
    ys = [c if rel in ("<=", "<") else 1.0 / c for c in c0s]
    lnm = [math.log(m) for m in ms]
    table = [{"m": m, "ln_m": round(x, 4), "c0": c} for m, x, c in zip(ms, lnm, c0s)]
    v = exponent_verdict(lnm, ys, claimed=0.0, tol=_C0_TOL, upper=True,
                         what=("minimal c0" if rel in ("<=", "<") else "1 / minimal c0") +
                              " vs ln m (exponent 0: constant c0; exponent 1: c0 ~ ln m)",
                         paper_value="d_model >= c0 log m for a sufficiently large absolute c0 (c0 does not grow "
                                     "with m, against the alternative c0 ~ ln m)",
                         params={**(params or {}), "m": list(ms), "fitted_against": "ln m"}, table=table)
    vs_m = fit_exponent(ms, ys)
    return dataclasses.replace(v, measured_value=f"c0 = {[round(c, 1) for c in c0s]} at m = {list(ms)}; "
                                                 + str(v.measured_value),
                               params={**v.params, "fit_against_m": vs_m})
