"""Claims of Sec. 1 (Introduction): the summary's restated bounds, compared with where the paper proves them.

Sec. 1 restates the lower bound, the general-graph budget and the softmax budget; each is compared symbolically with
the theorem or equation that proves it (Eq. (24), Theorem B.9, Theorem 8.1 and Eq. (21)).
"""

from __future__ import annotations

import dataclasses
import math
import sympy as sp

from .. import formulas as F
from .base import CheckContext, Claim, Stated, Status, Verdict
from .symbolic import Var, combine_verdicts, identity_verdict, limit_verdict
from .tools import VAR_D_MODEL, VAR_M, symbolic_claim, with_readings

__all__ = ["CLAIMS", "ORDER"]

ORDER = 10


def _lower_bound_restated(ctx: CheckContext) -> Verdict:
    # Sec. 1, Sec. 8 (opening), Sec. 9 (24) and App. B.4 all print Omega((m'/d_model) log(m^2/m')).
    forms = {"Sec. 1": F.mp / F.d_model * sp.log(F.m**2 / F.mp), "Sec. 8": F.mp / F.d_model * sp.log(F.m**2 / F.mp),
             "Eq. (24)": F.lower_bound_rate(), "App. B.4": F.mp / F.d_model * sp.log(F.m**2 / F.mp)}
    ref = forms["Eq. (24)"]
    vs = [identity_verdict(e, ref, variables=[VAR_M, Var(F.mp, 1, 1e6, integer=True, log=True), VAR_D_MODEL], ctx=ctx,
                           constraints=[lambda pt: pt["m'"] <= pt["m"] * (pt["m"] - 1)]) for e in forms.values()]
    return combine_verdicts(vs, paper_value="the same lower bound Omega((m'/d_model) log(m^2/m')) in Sec. 1, 8, 9 and App. B.4")


def _intro_general_graphs(ctx: CheckContext) -> Verdict:
    # Sec. 1: O((m'/d_model + Delta) log m'); Theorem B.9: O(m' log m / d_model + Delta log m).
    ratio = F.DK_construction_iv_rate() / F.DK_construction_iv_rate(log_of=F.mp)
    c0 = sp.Symbol("c_0", positive=True)
    # A family inside Theorem B.9's hypotheses: m' = ln m edges (a matching, Delta = 1), d_model = c0 ln m.
    family = {F.mp: sp.log(F.m), F.Delta: 1, F.d_model: c0 * sp.log(F.m)}
    v = limit_verdict(ratio.subs(family), F.m, expect="bounded", ctx=ctx,
                      paper_value="Sec. 1: D_K = O((m'/d_model + Delta) log m'), as Theorem B.9")
    # The regime where the two agree: m' >= m^eps (here eps = 1/2), ratio log m / log m' -> 1/eps.
    lim_half = sp.limit(ratio.subs({F.Delta: 1, F.d_model: c0 * sp.log(F.m)}).subs(F.mp, sp.sqrt(F.m)), F.m, sp.oo)
    half = (f"holds: ratio log m / log m' -> {lim_half} (bounded) at m' = m^(1/2)" if lim_half.is_finite
            else f"fails: ratio -> {lim_half} at m' = m^(1/2)")
    fixed = (f"fails: m' = ln m, Delta = 1, d_model = c0 ln m, m -> oo: ratio {v.measured_value} ({v.status.value})"
             if v.status is Status.REFUTED else f"holds: ratio bounded ({v.measured_value})")
    hyps = ["a graph with m' = floor(ln m) edges forming a matching on m vertices (max degree Delta = 1, "
            "1 <= m' <= m(m - 1)), for every m >= 8",
            "d_model = c0 ln m for any fixed c0 (Theorem B.9's d_model >= c0 log m with c0 as large as wanted)",
            "d_k = C ln m, h = ceil(m'/d_model) + Delta heads as in Theorem B.9"]
    readings = {"for every m' (as printed, uniform in m')": fixed,
                "only for m' >= m^eps, eps > 0 fixed": half}
    if v.status is Status.REFUTED:
        m0 = 4096
        mp0 = int(math.log(m0))
        return with_readings(Verdict(Status.REFUTED, paper_value=v.paper_value, measured_value=v.measured_value,
                       witness={"family": "m' = ln m (a matching), Delta = 1, d_model = c0 ln m, m -> oo",
                                "ratio": "Theorem B.9's (m'/d_model + Delta) log m over Sec. 1's (m'/d_model + Delta) "
                                         "log m' = ln m / ln ln m -> oo",
                                "instance": {"m": m0, "m'": mp0, "Delta": 1, "d_model": f"c0 ln m = {math.log(m0):.2f} c0",
                                             "ratio": math.log(m0) / math.log(mp0)}},
                       params=v.params, evidence=v.evidence, evidence_level="proved",
                       details="Theorem B.9 proves log m; Sec. 1 prints log m'. They agree up to constants only when "
                               "m' >= m^eps for a fixed eps > 0. The theorem is not affected: the Sec. 1 summary "
                               "restates it with the wrong logarithm for very sparse graphs."), hyps, readings)
    return with_readings(v, hyps, readings)


def _softmax_restated(ctx: CheckContext) -> Verdict:
    # Sec. 1's restated budget: (m/d_model)(log m)^2
    stated = (F.m / F.d_model) ** sp.nsimplify(ctx.expect("compression_power")) * sp.log(F.m) ** sp.nsimplify(ctx.expect("log_power"))
    return combine_verdicts([
        identity_verdict(F.DK_softmax(Cc=1), F.DK_multi_softmax(), variables=[VAR_M, VAR_D_MODEL], ctx=ctx),
        identity_verdict(stated, F.DK_multi_softmax(), variables=[VAR_M, VAR_D_MODEL], ctx=ctx),
        identity_verdict(stated, F.DK_softmax(Cc=1), variables=[VAR_M, VAR_D_MODEL], ctx=ctx),
    ], paper_value="Sec. 1, Theorem 8.1 and Eq. (21): softmax D_K = Theta((m/d_model)(log m)^2)")


def _role(claim: Claim, role: str, *supports: str) -> Claim:
    """``claim`` with its role and the labels it supports."""
    return dataclasses.replace(claim, role=role, supports=tuple(supports))


CLAIMS = (
    _role(symbolic_claim("sec1-sym-lower-bound-restated", "Sec. 1", "Sec. 1, Sec. 8, Eq. (24) and App. B.4 state the same "
                   "lower-bound rate (m'/d_model) log(m^2/m').", _lower_bound_restated), "detail", "Theorem 9.2"),
    _role(symbolic_claim("sec1-sym-intro-general-graphs-log", "Sec. 1", "Sec. 1's O((m'/d_model + Delta) log m') agrees with "
                   "Theorem B.9's O((m'/d_model + Delta) log m).", _intro_general_graphs,
                         slip=("quantity-swapped-in-corner", "remark",
                               "The introduction prints log m' where Theorem B.9 proves log m; the two differ only "
                               "when m' is polylogarithmic in m, Theorem B.9's budget is untouched, and printing log "
                               "m repairs the sentence.")), "detail", "Theorem B.9"),
    _role(symbolic_claim("sec1-sym-softmax-budget", "Sec. 1", "Sec. 1, Theorem 8.1 and Eq. (21) give the same softmax budget.",
                   _softmax_restated, expects={
                       "compression_power": Stated(1, "exponent", "Sec. 1: softmax D_K = Theta((m/d_model)(log m)^2)"),
                       "log_power": Stated(2, "exponent", "Sec. 1: softmax D_K = Theta((m/d_model)(log m)^2)")}),
          "detail", "Theorem 8.1"),
)
