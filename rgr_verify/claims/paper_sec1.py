"""Claims of Sec. 1 (Introduction): the summary's restated bounds, compared with where the paper proves them.

Sec. 1 restates the lower bound, the general-graph budget and the softmax budget; each is compared symbolically with
the theorem or equation that proves it (Eq. (24), Theorem B.9, Theorem 8.1 and Eq. (21)).
"""

from __future__ import annotations

import sympy as sp

from .. import formulas as F
from .base import CheckContext, Status, Verdict
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
    v = limit_verdict(ratio.subs({F.mp: 2, F.Delta: 1, F.d_model: 1}), F.m, expect="bounded", ctx=ctx,
                      paper_value="Sec. 1: D_K = O((m'/d_model + Delta) log m'), as Theorem B.9")
    # The regime where the two agree: m' >= m^eps (here eps = 1/2), ratio log m / log m' -> 1/eps.
    lim_half = sp.limit(ratio.subs({F.Delta: 1, F.d_model: 1}).subs(F.mp, sp.sqrt(F.m)), F.m, sp.oo)
    half = (f"holds: ratio log m / log m' -> {lim_half} (bounded) at m' = m^(1/2)" if lim_half.is_finite
            else f"fails: ratio -> {lim_half} at m' = m^(1/2)")
    fixed = (f"fails: m' = 2, Delta = 1, d_model = 1, m -> oo: ratio {v.measured_value} ({v.status.value})"
             if v.status is Status.REFUTED else f"holds: ratio bounded ({v.measured_value})")
    hyps = ["general graph with m' edges on m vertices, max degree Delta >= 1, d_model >= 1 (Theorem B.9's setting)",
            "m' = 2 <= m (m - 1) and Delta = 1 for every m >= 2 in the family"]
    readings = {"for every m' (as printed, uniform in m')": fixed,
                "only for m' >= m^eps, eps > 0 fixed": half}
    if v.status is Status.REFUTED:
        return with_readings(Verdict(Status.REFUTED, paper_value=v.paper_value, measured_value=v.measured_value,
                       witness={"m'": 1, "Sec. 1 bound": "(1/d_model + Delta) log 1 = 0",
                                "Theorem B.9": "(1/d_model + Delta) log m > 0", "family": "m' = 2, m -> oo: ratio log m / log 2"},
                       params=v.params, evidence=v.evidence,
                       details="Theorem B.9 proves log m; Sec. 1 prints log m'. They agree up to constants only when "
                               "m' >= m^eps for a fixed eps > 0."), hyps, readings)
    return with_readings(v, hyps, readings)


def _softmax_restated(ctx: CheckContext) -> Verdict:
    return combine_verdicts([
        identity_verdict(F.DK_softmax(Cc=1), F.DK_multi_softmax(), variables=[VAR_M, VAR_D_MODEL], ctx=ctx),
        identity_verdict(F.m / F.d_model * sp.log(F.m) ** 2, F.DK_multi_softmax(), variables=[VAR_M, VAR_D_MODEL], ctx=ctx),
    ], paper_value="Sec. 1, Theorem 8.1 and Eq. (21): softmax D_K = Theta((m/d_model)(log m)^2)")


CLAIMS = (
    symbolic_claim("sec1-sym-lower-bound-restated", "Sec. 1", "Sec. 1, Sec. 8, Eq. (24) and App. B.4 state the same "
                   "lower-bound rate (m'/d_model) log(m^2/m').", _lower_bound_restated),
    symbolic_claim("sec1-sym-intro-general-graphs-log", "Sec. 1", "Sec. 1's O((m'/d_model + Delta) log m') agrees with "
                   "Theorem B.9's O((m'/d_model + Delta) log m).", _intro_general_graphs),
    symbolic_claim("sec1-sym-softmax-budget", "Sec. 1", "Sec. 1, Theorem 8.1 and Eq. (21) give the same softmax budget.",
                   _softmax_restated),
)
