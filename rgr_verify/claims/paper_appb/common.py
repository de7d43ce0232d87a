"""Helpers shared by the App. B claim modules: symbolic claims with stated values, and rate checks in a stated
direction (so that ``rgr-verify mutate`` can flip it)."""

from __future__ import annotations

import functools

from ..base import Claim, Kind, Status, Tier, Verdict
from ..tools import exponent_verdict, with_readings

__all__ = ["stated_symbolic_claim", "bound_verdict", "recorded", "outcome"]


def outcome(v: Verdict, fails: str, holds: str = "no witness found") -> str:
    """"fails: ..." when ``v`` refutes (refuted or contradicted), "holds: ..." when it verifies, else "not tested"."""
    if v.status in (Status.REFUTED, Status.CONTRADICTED_EMPIRICALLY):
        return f"fails: {fails}"
    if v.status in (Status.VERIFIED, Status.HOLDS_EMPIRICALLY):
        return f"holds: {holds}"
    return f"not tested: verdict {v.status}"


def recorded(check, hypotheses, readings):
    """``check`` whose verdict carries the refutation record (:func:`~rgr_verify.claims.tools.with_readings`):
    ``hypotheses`` a list of the statement's hypotheses the witness satisfies, ``readings(verdict)`` the outcome
    under each reading computed from the verdict's own measurements. Errors are passed through unrecorded."""
    @functools.wraps(check)
    def check_with_readings(ctx) -> Verdict:
        v = check(ctx)
        if v.status is Status.ERROR:
            return v
        return with_readings(v, hypotheses, readings(v))
    return check_with_readings


def stated_symbolic_claim(id_: str, ref: str, statement: str, check, notes: str = "", expects=None) -> Claim:
    """A quick-tier symbolic claim that declares the paper's stated values (``symbolic_claim`` plus ``expects``)."""
    return Claim(id=id_, ref=ref, statement=statement, kind=Kind.SYMBOLIC, tier=Tier.QUICK, check=check, notes=notes,
                 expects=expects or {})


def bound_verdict(xs, ys, rel: str, *, claimed: float, tol: float, what: str, paper_value, params: dict,
                  table=None) -> Verdict:
    """"y <~ x^claimed" (``rel`` "<=" or "<") or, read in the opposite direction (">=" or ">"), "y >~ x^claimed",
    checked as 1/y <~ x^-claimed; both through :func:`~rgr_verify.claims.tools.exponent_verdict` with ``upper=True``.

    Raises ValueError for another relation.
    """
    if rel in ("<=", "<"):
        return exponent_verdict(xs, ys, claimed=claimed, tol=tol, upper=True, what=what, paper_value=paper_value,
                                params=params, table=table)
    if rel in (">=", ">"):
        return exponent_verdict(xs, [1.0 / y for y in ys], claimed=-claimed, tol=tol, upper=True,
                                what=f"1 / ({what})", paper_value=paper_value, params={**params, "direction": rel},
                                table=table)
    raise ValueError(f"rel must be one of <=, <, >=, >, got {rel!r}")
