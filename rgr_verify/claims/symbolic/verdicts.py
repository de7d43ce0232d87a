"""Symbolic verdicts: a sympy identity, inequality or limit, an exhaustive table or stated values, turned into a
:class:`~rgr_verify.claims.base.Verdict` (evidence levels: see :mod:`rgr_verify.claims.symbolic`).
"""

from __future__ import annotations

import itertools
from typing import Any, Callable, Iterable, Sequence

import mpmath
import sympy as sp

from ...basics.checks import check_choice, check_int, check_real
from ..base import CheckContext, Status, Verdict, jsonable
from ..standards.decide import conjunction, decide
from .domains import Constraint, Var, grid_points, satisfies
from .proofs import prove_nonnegative

__all__ = ["PROOF", "GRID", "identity_verdict", "inequality_verdict", "limit_verdict", "exhaustive_verdict",
           "values_verdict", "combine_verdicts"]


PROOF = "proved"

GRID = "grid"

_DIGITS = 30


def _compile(expr: sp.Expr, variables: Sequence[Var]) -> Callable[[dict], "mpmath.mpf | None"]:
    """``expr`` as a function of a point dict, evaluated with mpmath at 30 digits; None where undefined."""
    expr = sp.sympify(expr)
    syms = [v.symbol for v in variables]
    if not expr.free_symbols <= set(syms):
        expr = sp.cancel(sp.together(expr))  # symbols that cancel (e.g. d_k in delta_1) must not reach lambdify
        extra = expr.free_symbols - set(syms)
        if extra:
            raise ValueError(f"variables must cover every free symbol; missing {sorted(s.name for s in extra)}")
    fn = sp.lambdify(syms, expr, modules="mpmath")

    def value(point: dict):
        args = [mpmath.mpf(point[v.symbol.name]) for v in variables]
        try:
            with mpmath.workdps(_DIGITS):
                out = fn(*args)
                if isinstance(out, mpmath.mpc):
                    if abs(out.imag) > mpmath.mpf(10) ** (-_DIGITS + 5) * max(1, abs(out.real)):
                        return None
                    out = out.real
                out = mpmath.mpf(out)
        except (ZeroDivisionError, ValueError, TypeError, OverflowError):
            return None
        if not mpmath.isfinite(out):
            return None
        return out

    return value


def _num(expr: sp.Expr, variables: Sequence[Var], point: dict):
    """``expr`` at ``point`` to 30 digits; None where it is undefined or not real."""
    return _compile(expr, variables)(point)


def _smallest(points: Iterable[dict]) -> dict | None:
    pts = list(points)
    if not pts:
        return None
    return min(pts, key=lambda p: (sum(abs(float(v)) for v in p.values()), tuple(float(v) for v in p.values())))


def _simplifies_to_zero(diff: sp.Expr, simplifier: Callable[[sp.Expr], sp.Expr] | None) -> tuple[bool, str]:
    """Try cheap targeted simplifications first, ``simplify`` only on small expressions."""
    steps: list[tuple[str, Callable[[sp.Expr], sp.Expr]]] = []
    if simplifier is not None:
        steps.append(("custom simplifier", simplifier))
    steps += [
        ("expand", sp.expand),
        ("cancel", lambda e: sp.cancel(sp.together(e))),
        ("expand_log+logcombine", lambda e: sp.expand(sp.expand_log(sp.logcombine(e, force=True), force=True))),
        ("powsimp+expand", lambda e: sp.expand(sp.powsimp(sp.powdenest(e, force=True), force=True))),
    ]
    if sp.count_ops(diff) <= 120:
        steps.append(("simplify", sp.simplify))
    for name, fn in steps:
        try:
            out = fn(diff)
        except (NotImplementedError, TypeError, ValueError, RecursionError):
            continue
        if out == 0:
            return True, name
    return False, ""


def identity_verdict(
    lhs: sp.Expr,
    rhs: sp.Expr,
    *,
    variables: Sequence[Var],
    ctx: CheckContext,
    constraints: Sequence[Constraint] = (),
    paper_value: Any = None,
    n_points: int = 12,
    rtol: float = 1e-12,
    simplifier: Callable[[sp.Expr], sp.Expr] | None = None,
    params: dict | None = None,
    details: str = "",
) -> Verdict:
    """Verdict for ``lhs == rhs`` on the domain.

    Exact: ``lhs - rhs`` reduced to 0 by expand / cancel / logcombine / powsimp / simplify (or ``simplifier``).
    Numeric: ``|lhs - rhs| <= rtol * max(1, |lhs|, |rhs|)`` at ``n_points`` seeded points of the domain (30 digits).
    A numeric mismatch refutes (smallest failing point as witness, searched also on the grid); an exact proof with
    agreeing spot checks verifies at level ``proved``; agreeing spot checks alone hold at level ``grid``.
    """
    check_int("n_points", n_points, min_value=1)
    diff = sp.sympify(lhs) - sp.sympify(rhs)
    proved, how = _simplifies_to_zero(diff, simplifier)
    rng = ctx.rng()
    pts, tries = [], 0
    while len(pts) < n_points and tries < 50 * n_points:
        tries += 1
        p = {v.symbol.name: v.sample(rng) for v in variables}
        if satisfies(p, constraints):
            pts.append(p)

    f_lhs, f_rhs = _compile(lhs, variables), _compile(rhs, variables)

    def bad(p):
        a, b = f_lhs(p), f_rhs(p)
        if a is None or b is None:
            return False  # outside the expression's domain: not evidence either way
        return abs(a - b) > rtol * max(1, abs(a), abs(b))

    fails = [p for p in pts if bad(p)]
    status = decide(not fails, bool(fails), exact=True)
    if fails:
        grid_fails = [p for p in grid_points(variables, constraints, max_points=400) if bad(p)]
        w = _smallest(fails + grid_fails)
        return Verdict(
            status, paper_value=paper_value if paper_value is not None else f"{lhs} = {rhs}",
            measured_value={"lhs": float(_num(lhs, variables, w)), "rhs": float(_num(rhs, variables, w))},
            witness=jsonable(w), params={"evidence_level": "witness", "spot_points": len(pts),
                                         **(params or {})},
            evidence=f"numeric counterexample (30-digit evaluation); smallest failing point of {len(pts)} seeded "
                     f"points and a 400-point grid", details=details)
    level = PROOF if proved else GRID
    ev = (f"sympy: lhs - rhs reduces to 0 ({how}); agrees at {len(pts)} seeded points (30 digits)" if proved else
          f"no symbolic proof found; lhs = rhs at {len(pts)} seeded points (30 digits)")
    return Verdict(status, paper_value=paper_value if paper_value is not None else f"{lhs} = {rhs}",
                   measured_value=f"lhs - rhs = 0 ({'proved' if proved else 'numerically'})",
                   params={"evidence_level": level, "spot_points": len(pts), **(params or {})},
                   evidence=ev, details=details)


_RELS = ("<=", "<", ">=", ">")


def inequality_verdict(
    lhs: sp.Expr,
    rel: str,
    rhs: sp.Expr,
    *,
    variables: Sequence[Var],
    ctx: CheckContext,
    constraints: Sequence[Constraint] = (),
    proof: Callable[[], str | None] | None = None,
    paper_value: Any = None,
    max_points: int = 800,
    atol: float = 1e-12,
    params: dict | None = None,
    details: str = "",
) -> Verdict:
    """Verdict for ``lhs rel rhs`` on the domain, reduced to the sign condition ``g >= 0`` (or ``> 0``).

    Proof: ``proof()`` if given (returns a description or None), else :func:`prove_nonnegative` on ``g``.
    Grid: ``g`` at every point of :func:`grid_points` (30 digits); points where ``g`` is undefined are skipped.
    Any failing grid point refutes, with the smallest as witness. ``atol`` (relative to the sides' magnitude)
    forgives rounding only for the non-strict relations.
    """
    check_choice("rel", rel, _RELS)
    lhs, rhs = sp.sympify(lhs), sp.sympify(rhs)
    g = lhs - rhs if rel in (">=", ">") else rhs - lhs
    strict = rel in ("<", ">")
    pts = grid_points(variables, constraints, max_points=max_points)
    fails, evaluated, min_margin, min_at = [], 0, None, None
    f_lhs, f_rhs = _compile(lhs, variables), _compile(rhs, variables)
    for p in pts:
        a, b = f_lhs(p), f_rhs(p)
        if a is None or b is None:
            continue
        evaluated += 1
        margin = (a - b) if rel in (">=", ">") else (b - a)
        scale = max(1, abs(a), abs(b))
        if min_margin is None or margin / scale < min_margin:
            min_margin, min_at = margin / scale, p
        if (margin <= 0) if strict else (margin < -atol * scale):
            fails.append((p, float(a), float(b)))
    pv = paper_value if paper_value is not None else f"{lhs} {rel} {rhs}"
    base = {"grid_points": evaluated, **(params or {})}
    status = decide(not fails and evaluated > 0, bool(fails), exact=True)
    if fails:
        w = _smallest([f[0] for f in fails])
        a, b = next((f[1], f[2]) for f in fails if f[0] is w)
        return Verdict(status, paper_value=pv, measured_value={"lhs": a, "rhs": b, "failing_points": len(fails)},
                       witness=jsonable(w), params={"evidence_level": "witness", **base},
                       evidence=f"dense grid: {len(fails)} of {evaluated} points fail; smallest failing point",
                       details=details)
    if evaluated == 0:
        return Verdict(Status.INCONCLUSIVE, paper_value=pv, params=base, evidence="no grid point in the domain",
                       details=details)
    how = proof() if proof is not None else prove_nonnegative(g, variables)
    level = PROOF if how else GRID
    ev = (f"proved: {how}; and holds at all {evaluated} grid points" if how else
          f"no symbolic proof found; holds at all {evaluated} points of a dense grid over the domain")
    return Verdict(status, paper_value=pv,
                   measured_value={"min_relative_margin": float(min_margin), "at": jsonable(min_at)},
                   params={"evidence_level": level, **base}, evidence=ev, details=details)


_EXPECT = ("zero", "infinity", "finite-positive", "bounded", "positive")


def limit_verdict(
    expr: sp.Expr,
    var: sp.Symbol,
    *,
    expect: str,
    ctx: CheckContext,
    point=sp.oo,
    paper_value: Any = None,
    params: dict | None = None,
    details: str = "",
    numeric_at: Sequence[float] = (1e2, 1e4, 1e8, 1e16, 1e32),
) -> Verdict:
    """Verdict for an asymptotic statement reduced to the limit of ``expr`` as ``var -> point``.

    ``expect``: ``"zero"`` (o(1)), ``"infinity"`` (omega(1)), ``"finite-positive"`` (Theta(1): a finite limit
    > 0), ``"bounded"`` (O(1): finite limit), ``"positive"`` (Omega(1): limit > 0, possibly infinite).
    sympy's ``limit`` first (level ``proved``); if it fails, the values at ``numeric_at`` (level
    ``grid``, judged from the last value and the trend). The computed limit is the measured value.
    """
    check_choice("expect", expect, _EXPECT)
    lim = None
    try:
        lim = sp.limit(expr, var, point)
        if lim.has(sp.Limit) or lim is sp.nan or isinstance(lim, sp.AccumBounds):
            lim = None
    except (NotImplementedError, ValueError, TypeError, RecursionError):
        lim = None
    level = PROOF
    if lim is None:
        level = GRID
        vals = [_num(expr, [Var(var, 1, 1e300)], {var.name: x}) for x in numeric_at]
        vals = [float(v) for v in vals if v is not None]
        if len(vals) < 2:
            return Verdict(Status.INCONCLUSIVE, paper_value=paper_value, evidence="limit not computable",
                           params=params or {}, details=details)
        last, prev = vals[-1], vals[-2]
        settled = abs(last - prev) <= 1e-3 * max(abs(last), abs(prev))
        if abs(last) > 1e12 and abs(last) > abs(prev):
            lim = sp.oo if last > 0 else -sp.oo
        elif abs(last) < 1e-9:
            lim = sp.Integer(0)
        elif settled:
            lim = sp.Float(last, 6)
        elif last * prev > 0 and abs(last) >= 1.5 * abs(prev):  # still growing by half from 1e16 to 1e32: log-like
            lim = sp.oo if last > 0 else -sp.oo
        elif last * prev > 0 and abs(last) <= abs(prev) / 1.5:  # still shrinking by a third: 1/log-like decay
            lim = sp.Integer(0)
        else:  # neither settled nor clearly diverging or vanishing on the grid: a grid cannot decide
            return Verdict(Status.INCONCLUSIVE, paper_value=paper_value,
                           measured_value=f"values of {expr} at {var} = {list(numeric_at)}: {vals}",
                           evidence="limit not computable; numeric values not settled",
                           params={"evidence_level": level, "expect": expect, **(params or {})}, details=details)
    finite = lim.is_finite
    if expect == "zero":
        ok = lim == 0
    elif expect == "infinity":
        ok = lim is sp.oo
    elif expect == "finite-positive":
        ok = bool(finite) and bool(lim > 0)
    elif expect == "bounded":
        ok = bool(finite)
    else:
        ok = lim is sp.oo or (bool(finite) and bool(lim > 0))
    ev = ("sympy limit" if level == PROOF else f"numeric values at {var} = {list(numeric_at)}")
    return Verdict(decide(ok, not ok, exact=True), paper_value=paper_value,
                   measured_value=f"lim_{{{var} -> {point}}} {expr} = {lim}",
                   witness=None if ok else {"limit": str(lim), "expected": expect, "along": str(var)},
                   params={"evidence_level": level, "expect": expect, **(params or {})}, evidence=ev, details=details)


def exhaustive_verdict(
    predicate: Callable[[dict], bool],
    cases: Iterable[dict],
    *,
    paper_value: Any = None,
    domain: str = "",
    params: dict | None = None,
    details: str = "",
) -> Verdict:
    """Verdict for a statement checked on every case of a finite domain (e.g. all small integer vectors).

    ``predicate(case)`` returns True when the statement holds. Refuted with the smallest failing case.
    """
    n, fails = 0, []
    for case in cases:
        n += 1
        if not predicate(case):
            fails.append(case)
    status = decide(not fails, bool(fails), exact=True)
    if fails:
        w = min(fails, key=lambda c: (sum(abs(x) if isinstance(x, (int, float)) else sum(map(abs, x))
                                          for x in c.values()), str(c)))
        return Verdict(status, paper_value=paper_value, measured_value=f"{len(fails)} of {n} cases fail",
                       witness=jsonable(w), params={"evidence_level": "exhaustive", "cases": n, **(params or {})},
                       evidence=f"exhaustive over {domain or f'{n} cases'}", details=details)
    return Verdict(status, paper_value=paper_value, measured_value=f"holds in all {n} cases",
                   params={"evidence_level": "exhaustive", "cases": n, **(params or {})},
                   evidence=f"exhaustive over {domain or f'{n} cases'}", details=details)


def values_verdict(
    values: dict,
    *,
    rtol: float,
    paper_value: Any = None,
    params: dict | None = None,
    details: str = "",
) -> Verdict:
    """Consistency of numbers stated in several places: verified when all agree within ``rtol`` (relative).

    ``values`` maps a place (e.g. ``"Sec. 6 fit at (128, 32)"``) to its number. Refuted with the pair that
    disagrees most as witness.
    """
    check_real("rtol", rtol, low=0)
    if len(values) < 2:
        raise ValueError(f"values must name at least two places, got {len(values)}")
    items = [(k, float(v)) for k, v in values.items()]
    worst, worst_pair = 0.0, None
    for (ka, a), (kb, b) in itertools.combinations(items, 2):
        rel = abs(a - b) / max(abs(a), abs(b), 1e-300)
        if rel > worst:
            worst, worst_pair = rel, {ka: a, kb: b}
    ok = worst <= rtol
    return Verdict(decide(ok, not ok, exact=True), paper_value=paper_value,
                   measured_value={"values": dict(items), "max_relative_difference": worst},
                   witness=None if ok else jsonable(worst_pair),
                   params={"evidence_level": "proved", "rtol": rtol, **(params or {})},
                   evidence=f"numbers compared across places, tolerance {rtol:g} fixed in advance", details=details)


def combine_verdicts(verdicts: Sequence[Verdict], *, paper_value: Any = None, details: str = "") -> Verdict:
    """One verdict for a claim made of several steps: refuted (or contradicted) if any step is, at that step's level
    (its witness first); verified if every step holds, at the weakest level among the steps (so verified only when
    every step is decisive: :func:`~rgr_verify.claims.levels.bounded_status`); else inconclusive."""
    from ..levels import level_rank

    verdicts = list(verdicts)
    if not verdicts:
        raise ValueError("verdicts must hold at least one verdict")
    steps = [{"status": v.status.value, "evidence_level": v.evidence_level, "evidence": v.evidence,
              "measured": jsonable(v.measured_value)} for v in verdicts]
    bad = [v for v in verdicts if v.status in (Status.REFUTED, Status.CONTRADICTED_EMPIRICALLY)]
    weakest = max((v.evidence_level for v in verdicts), key=level_rank)
    if bad:
        w = bad[0]
        return Verdict(w.status, paper_value=paper_value, measured_value=steps, witness=w.witness,
                       params={"steps": len(verdicts)}, evidence_level=w.evidence_level,
                       evidence=w.evidence, details=details)
    status = conjunction([v.status for v in verdicts], exact=True)  # no step fails here: verified or inconclusive
    if all(v.status in (Status.VERIFIED, Status.HOLDS_EMPIRICALLY) for v in verdicts):
        return Verdict(status, paper_value=paper_value, measured_value=steps,
                       params={"steps": len(verdicts)}, evidence_level=weakest,
                       evidence="; ".join(v.evidence for v in verdicts), details=details)
    return Verdict(status, paper_value=paper_value, measured_value=steps,
                   params={"steps": len(verdicts)}, evidence_level=weakest, evidence="some steps undecided",
                   details=details)
