"""Proof attempts of the symbolic checks: non-negativity from the variables' lower bounds, and monotonicity."""

from __future__ import annotations

import math
from typing import Sequence

import sympy as sp

from .domains import Var

__all__ = ["prove_nonnegative", "prove_by_monotonicity"]


def prove_nonnegative(expr: sp.Expr, variables: Sequence[Var]) -> str | None:
    """Try to prove ``expr >= 0`` for every point with each variable ``>= low``; a description, or None.

    Shifts each variable ``x = low + t`` with ``t >= 0`` and asks sympy's assumption system, then checks whether
    the expanded numerator/denominator are polynomials in the ``t`` with nonnegative coefficients. A proof on
    this superset of the domain is a proof on the domain.
    """
    shift, ts = {}, []
    for v in variables:
        t = sp.Symbol(f"t_{v.symbol.name}", nonnegative=True, integer=v.integer)
        ts.append(t)
        lo = sp.nsimplify(v.low) if math.isfinite(v.low) else None
        if lo is None:
            return None
        shift[v.symbol] = lo + t
    e = sp.sympify(expr).subs(shift)
    try:
        if e.is_nonnegative:
            return "sympy assumptions (variables shifted to their lower bounds)"
        num, den = sp.fraction(sp.together(sp.expand(e)))
        num, den = sp.expand(num), sp.expand(den)
        for part_ok in (_nonneg_poly(num, ts), _nonneg_poly(den, ts)):
            if not part_ok:
                break
        else:
            if den != 0:
                return "numerator and denominator are polynomials with nonnegative coefficients in x - low >= 0"
        for part_ok in (_nonneg_poly(-num, ts), _nonneg_poly(-den, ts)):
            if not part_ok:
                return None
        return "numerator and denominator are polynomials with nonpositive coefficients in x - low >= 0"
    except (NotImplementedError, TypeError, ValueError, RecursionError, sp.PolynomialError):
        return None


def _nonneg_poly(e: sp.Expr, ts: list) -> bool:
    if e == 0:
        return True
    try:
        poly = sp.Poly(e, *ts)
    except sp.PolynomialError:
        return False
    coeffs = poly.coeffs()
    return all(c.is_number and c.is_real and c >= 0 for c in coeffs)


def prove_by_monotonicity(expr: sp.Expr, variables: Sequence[Var], *, strict: bool = False) -> str | None:
    """Prove ``expr >= 0`` (``> 0`` if ``strict``) on the box of ``variables`` from the signs of its partials.

    For each variable, ``d expr / d x`` must be provably of one sign on the box (by :func:`prove_nonnegative`
    on the shifted domain); the minimum then sits at a corner (the low end where increasing, the high end where
    decreasing, a limit where the high end is infinite), where the value is computed exactly. Returns a
    description of the proof, or None. Constraints are not used: the proof covers the whole box.
    """
    expr = sp.sympify(expr)
    corner, how = {}, []
    for v in variables:
        deriv = sp.diff(expr, v.symbol)
        if deriv == 0:
            corner[v.symbol] = sp.nsimplify(v.low)
            continue
        if prove_nonnegative(deriv, variables):
            corner[v.symbol] = sp.nsimplify(v.low)
            how.append(f"increasing in {v.symbol}")
        elif prove_nonnegative(-deriv, variables):
            corner[v.symbol] = sp.oo if not math.isfinite(v.high) else sp.nsimplify(v.high)
            how.append(f"decreasing in {v.symbol}")
        else:
            return None
    value = expr
    for sym, val in corner.items():  # finite corners first, then limits to infinity
        if val is not sp.oo:
            value = value.subs(sym, val)
    for sym, val in corner.items():
        if val is sp.oo:
            try:
                value = sp.limit(value, sym, sp.oo)
            except (NotImplementedError, ValueError, TypeError):
                return None
    value = sp.simplify(value)
    if not value.is_number:
        return None
    ok = bool(value > 0) if strict else bool(value >= 0)
    if not ok:
        return None
    return f"{', '.join(how) or 'constant'} on the box; minimum at the corner {dict((str(k), str(v)) for k, v in corner.items())} equals {value}"
