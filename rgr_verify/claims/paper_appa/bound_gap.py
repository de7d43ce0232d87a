"""App. A.3 (L860): at the App. A.3 setting, the gap between the constructive upper bound and the
information-theoretic lower bound on D_K grows with the degree r.

The paper names neither formula in that sentence, so every reading the paper supports is computed exactly at m =
128, d_model = 32, r in {1, 2, 4, 8, 16} (m' = r m edges, maximum degree Delta = r):

- upper bound (App. B.4, the bounded-skew regular graphs satisfy (33)): Corollary B.10's design, h_0 = ceil(m' /
  d_model) heads of width C log m (the design appa3-thresholds-below-construction-r16 builds); Corollary B.10's
  stated rate (m' / d_model) log m'; Theorem B.9's (ceil(m' / d_model) + Delta) heads of width C log m;
- lower bound (Sec. 9): Theorem 9.2's rate (m' / d_model) log(m^2 / m'), and the counting bound it comes from, log
  binom(m(m-1), m') / d_model (the first member of Eq. (24));
- the gap: the ratio upper / lower (the hidden constants C and c only scale it, so whether it grows does not
  depend on them), or the difference upper - lower for any constants with C >= c (the difference of two bounds known
  up to constants has a sign only given them: it is C U - c L = c (k U - L), k = C / c; each step k dU - dL is linear
  in k, so it is positive for every k >= 1 exactly when it is at k = 1 and dU >= 0).

The rule (:func:`gap_grows_status`) is a pure function of the two formulas, so that tests can plant a gap that does
not grow (bounds/test_bound_gap.py); the verdict over the readings is :func:`~..tools.readings.verdict_over_readings`.
"""

from __future__ import annotations

import dataclasses
import functools
import itertools

import sympy as sp

from ...core import formulas as F
from ..base import CheckContext, Status, Verdict
from ..standards import decide
from ..tools import symbolic_claim
from ..tools.readings import verdict_over_readings

__all__ = ["CLAIMS", "ORDER", "A3_DEGREES", "A3_M", "A3_D_MODEL", "UPPER_BOUNDS", "LOWER_BOUNDS", "GAPS",
           "gap_grows_status"]

ORDER = 106

A3_DEGREES = (1, 2, 4, 8, 16)  # App. A.3: r in {1, 2, 4, 8, 16} (Figure 12)
A3_M, A3_D_MODEL = 128, 32  # App. A.3's cell

_r, _m, _d = F.r, F.m, F.d_model
_mp = _r * _m  # m' = r m edges of an r-regular graph

# Each formula in r, m, d_model with the constants at 1 (they scale a reading, see the module docstring).
UPPER_BOUNDS = {
    "Corollary B.10's design: ceil(m'/d_model) C log m": F.DK_corollary_b10(Cc=1, m_=_m, mp_=_mp, d=_d),
    "Corollary B.10's stated rate: (m'/d_model) log m'": _mp / _d * sp.log(_mp),
    "Theorem B.9: (ceil(m'/d_model) + Delta) C log m, Delta = r": F.DK_construction_iv(Cc=1, m_=_m, mp_=_mp, d=_d,
                                                                                       Delta_=_r),
}
LOWER_BOUNDS = {
    "Theorem 9.2's rate: (m'/d_model) log(m^2/m')": F.lower_bound_rate(m_=_m, mp_=_mp, d=_d),
    "the counting bound: log binom(m(m-1), m') / d_model": F.log_labelings(m_=_m, mp_=_mp) / _d,
}
GAPS = ("ratio upper / lower", "difference upper - lower, any constants with C >= c")

_DIGITS = 60  # exact values evaluated to 60 significant digits; a step's sign is read only when sympy certifies it


@functools.lru_cache(maxsize=None)
def _at(expr: sp.Expr, r: int, m: int, d: int) -> sp.Expr:
    """``expr`` at (r, m, d_model), exact (a log-gamma of integers as the log of an exact binomial)."""
    v = expr.subs({_r: r, _m: m, _d: d})
    return sp.simplify(v.rewrite(sp.binomial)) if v.has(sp.loggamma) else v


def _num(x: sp.Expr) -> float:
    return round(float(sp.N(x, 30)), 6)


def _sign(x: sp.Expr) -> str | None:
    """The sign of the exact number ``x``: "+" or "-" when its value to :data:`_DIGITS` significant digits is
    farther from 0 than 10^-40 (far beyond the evaluation's error), "0" when it is not and sympy proves it zero, else
    None (sympy cannot tell)."""
    x = sp.sympify(x)
    if x == 0:
        return "0"
    v = sp.N(x, _DIGITS)
    if v.is_real and v > sp.Float("1e-40", _DIGITS):
        return "+"
    if v.is_real and v < -sp.Float("1e-40", _DIGITS):
        return "-"
    return "0" if sp.simplify(x) == 0 else None


def gap_grows_status(upper: sp.Expr, lower: sp.Expr, gap: str, *, rs=A3_DEGREES, m: int = A3_M,
                     d: int = A3_D_MODEL) -> tuple[Status, dict]:
    """Whether the ``gap`` (a name of :data:`GAPS`) between ``upper`` and ``lower`` (formulas in F.r, F.m and
    F.d_model) grows at every step of the degrees ``rs`` at (m, d_model): each step's sign computed exactly (sympy),
    verified when every step is certified positive, refuted when one is certified not positive, else inconclusive.
    For the difference reading a step is positive for every C >= c exactly when dU - dL > 0 and dU >= 0 (module
    docstring). Returns the status and a row per degree and per step. ValueError for an unknown gap or fewer than
    two degrees."""
    if gap not in GAPS:
        raise ValueError(f"gap must be one of {GAPS}, got {gap!r}")
    rs = sorted(int(x) for x in rs)
    if len(rs) < 2 or len(set(rs)) != len(rs) or rs[0] < 1:
        raise ValueError(f"rs must be at least two distinct degrees >= 1, got {rs!r}")
    U = {r: _at(upper, r, m, d) for r in rs}
    L = {r: _at(lower, r, m, d) for r in rs}
    ratio = gap == GAPS[0]
    G = {r: (U[r] / L[r] if ratio else U[r] - L[r]) for r in rs}
    rows = {f"r={r}": {"upper": _num(U[r]), "lower": _num(L[r]), "gap": _num(G[r])} for r in rs}
    steps, grows, falls = {}, [], []
    for a, b in itertools.pairwise(rs):
        sg = _sign(G[b] - G[a])
        if ratio:
            up, down = sg == "+", sg in ("0", "-")
        else:  # k dU - dL > 0 for every k = C / c >= 1: positive at k = 1 and the upper bound not falling
            su = _sign(U[b] - U[a])
            up, down = sg == "+" and su in ("+", "0"), sg in ("0", "-") or su == "-"
        grows.append(up)
        falls.append(down)
        steps[f"r={a} -> {b}"] = {"gap step": _num(G[b] - G[a]), "grows": up, "does not grow": down}
    status = decide(all(grows), any(falls), exact=True)
    return status, {"degrees": rows, "steps": steps}


def _check_gap(ctx: CheckContext) -> Verdict:
    verdicts = {}
    for (un, U), (ln, L), gap in itertools.product(UPPER_BOUNDS.items(), LOWER_BOUNDS.items(), GAPS):
        st, rows = gap_grows_status(U, L, gap)
        verdicts[f"{un} | {ln} | {gap}"] = Verdict(
            st, paper_value="the gap grows with r",
            measured_value={"gap": {k: v["gap"] for k, v in rows["degrees"].items()},
                            "steps": {k: v["gap step"] for k, v in rows["steps"].items()}},
            witness=None if st is not Status.REFUTED else rows["steps"],
            evidence=f"exact values at r in {list(A3_DEGREES)}, m = {A3_M}, d_model = {A3_D_MODEL}, each step's sign "
                     "certified by sympy", evidence_level="exhaustive")
    v = verdict_over_readings(verdicts, hypotheses=[
        f"m = {A3_M}, d_model = {A3_D_MODEL}, r in {{1, 2, 4, 8, 16}} (App. A.3); r-regular: m' = r m, Delta = r",
        "every pairing of the upper bound (Corollary B.10's design or stated rate, Theorem B.9) with the lower bound "
        "(Theorem 9.2's rate, or the counting bound of Eq. (24))",
        "the gap as the ratio (free of the constants) or the difference (any C >= c)"])
    u1, l1 = next(iter(UPPER_BOUNDS.values())), next(iter(LOWER_BOUNDS.values()))
    ratios = {r: _num(_at(u1, r, A3_M, A3_D_MODEL) / _at(l1, r, A3_M, A3_D_MODEL)) for r in A3_DEGREES}
    return dataclasses.replace(
        v, paper_value="App. A.3: as r grows, the gap between the constructive upper bound and the "
                       "information-theoretic lower bound grows (m = 128, d_model = 32, r in {1, 2, 4, 8, 16})",
        measured_value={"per reading": {k: x.status.value for k, x in verdicts.items()},
                        "ratio, Corollary B.10's design over Theorem 9.2's rate (= log m / log(m / r))": ratios})


CLAIMS = (
    symbolic_claim(
        "appa3-sym-bound-gap-grows-with-degree", "App. A.3",
        "At m = 128 and d_model = 32, the gap between the constructive upper bound on D_K and the information-"
        "theoretic lower bound widens at every step of r = 1, 2, 4, 8, 16 (m' = r m edges)", _check_gap,
        role="detail",
        notes="Formulas (m' = r m, Delta = r, constants C and c at 1; the ratio does not depend on them): upper "
              "U1 = ceil(m'/d_model) log m (Corollary B.10's design, h_0 heads of width C log m), U2 = (m'/d_model) "
              "log m' (Corollary B.10's stated Theta), U3 = (ceil(m'/d_model) + Delta) log m (Theorem B.9); lower "
              "L1 = (m'/d_model) log(m^2/m') (Theorem 9.2), L2 = log binom(m(m-1), m') / d_model (Eq. (24)'s first "
              "member). Gap read as U/L, or as C U - c L for every C >= c (each step linear in C/c; positive for "
              "all C/c >= 1 iff positive at 1 and U does not fall). The log base cancels in the ratio and scales "
              "the difference. Exact values at r = 1, 2, 4, 8, 16; each step's sign certified by sympy; the "
              "verdict over the 12 readings by the one rule of readings (all hold: holds; all fail: fails; else "
              "inconclusive). Measured: every reading grows at every step, e.g. U1/L1 = log m / log(m/r) = 1, 7/6, "
              "7/5, 7/4, 7/3 and U1/L2 = 0.83, 0.95, 1.09, 1.30, 1.62; U1 - L1 = (r m/d_model) log r (unit "
              "constants). A difference with C < c need not grow (e.g. C = c/2: U1 - L1 falls from r = 1 to 2); "
              "not a reading here, since the constants are not stated."),
)
