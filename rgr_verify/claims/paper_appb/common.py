"""Helpers shared by the App. B claim modules: rate checks in a stated direction (so that ``rgr-verify mutate`` can
flip it)."""

from __future__ import annotations

from ..base import Verdict
from ..tools import exponent_verdict

__all__ = ["bound_verdict"]


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
