"""Helpers shared by the App. B claim modules: rate checks in a stated direction (so that ``rgr-verify mutate`` can
flip it)."""

from __future__ import annotations

from ..base import Status, Verdict
from ..symbolic import combine_verdicts
from ..tools import exponent_verdict

__all__ = ["bound_verdict", "along_each_variable"]


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


def along_each_variable(verdicts: dict, *, paper_value) -> Verdict:
    """One verdict for a rate in several variables from the fitted verdict of the sweep along each (``{variable:
    Verdict}``, each from :func:`~rgr_verify.claims.tools.exponent_verdict`): the rate holds only when it holds along
    every variable, fails when it fails along at least one (with that sweep's whole interval outside the band), and is
    inconclusive otherwise, with each sweep's resolution. Level ``fitted``."""
    if not verdicts:
        raise ValueError("along_each_variable needs the verdict of at least one sweep")
    # the decision is combine_verdicts' (fails if one fails, holds only if all hold); this adds the per-sweep report
    status = combine_verdicts(list(verdicts.values())).status
    failing = [k for k, v in verdicts.items() if v.status is Status.CONTRADICTED_EMPIRICALLY]
    holding = [k for k, v in verdicts.items() if v.status is Status.HOLDS_EMPIRICALLY]
    per = {k: {"status": v.status.value, "measured": v.measured_value, "interval": v.params.get("interval"),
               "band": v.params.get("band"), "resolution": v.params.get("resolution"),
               **({"to_decide": v.params["to_decide"]} if "to_decide" in v.params else {})}
           for k, v in verdicts.items()}
    if status is Status.CONTRADICTED_EMPIRICALLY:
        why = "fails in the sweep(s): " + ", ".join(failing)
    elif status is Status.HOLDS_EMPIRICALLY:
        why = "holds along every variable swept"
    else:
        why = ("undecided in the sweep(s): " + ", ".join(k for k in verdicts if k not in holding)
               + (f"; holds in: {', '.join(holding)}" if holding else ""))
    extra = {}
    if status is Status.INCONCLUSIVE:
        extra = {"resolution": {k: per[k]["resolution"] for k in verdicts if k not in holding},
                 "to_decide": "; ".join(f"{k}: {per[k].get('to_decide', 'n/a')}" for k in verdicts if k not in holding)}
    witness = {k: verdicts[k].witness for k in failing} if failing else None
    return Verdict(status=status, paper_value=paper_value,
                   measured_value={k: per[k]["measured"] for k in verdicts},
                   witness=witness, params={"per_variable": per, "rule": "a rate in several variables holds only "
                                            "along every one; it fails along any one", **extra},
                   details=why, evidence="one size sweep per variable, log-log OLS, 95% t-interval against the stated "
                                         "band (equivalence test) along each", evidence_level="fitted")
