"""Sec. 8.1: Theorem 8.1's Step 3 (Eqs. (14)-(16)), Lemma 8.3, the union bounds and the failure probability.
"""

from __future__ import annotations

import dataclasses
import functools
import math

import numpy as np
import sympy as sp

from ...core import formulas as F
from ...analysis.softmax_analysis import (
    all_head_logits,
    c0_log_m_sizes,
    rows_on_full_context,
    gamma_softmax_psi1_norm,
    lognormal_psi1_lower_bound,
    signature_mean_masses,
    source_owner_heads,
)
from ..base import CheckContext, Claim, Kind, Stated, Status, Tier, Verdict
from ..standards.decide import decide
from ..symbolic import Var, combine_verdicts, identity_verdict, inequality_verdict, limit_verdict, prove_nonnegative
from ..tools import (
    FAILS,
    outcome_word,
    NOT_TESTED,
    VAR_ELL,
    VAR_M,
    exponent_verdict,
    reading_record,
    symbolic_claim,
    with_readings,
)
from .common import FALSE_ALARM, PAPER_ELL, algorithm2_instance, proof_step, softmax_dk, theorem81_length
from ..tools.builders import with_role

__all__ = ["CLAIMS", "ORDER"]

ORDER = 81


def _check_eq14(ctx: CheckContext) -> Verdict:
    m, d_model, C, ell = 256, 32, 4.0, PAPER_ELL
    n_draws = 20000 if ctx.tier != "quick" else 6000
    c = algorithm2_instance(m, d_model, softmax_dk(C, m), ctx.rng(0))
    rng = ctx.rng(1)
    own = source_owner_heads(c)
    i = int(rng.integers(m))
    k = int((own[i] + 1) % c.n_heads)  # a non-owner head
    context = np.concatenate([[i], rng.choice(np.delete(np.arange(m), i), size=ell - 1, replace=False)])
    mean, _ = signature_mean_masses(c, k, i, context, n_draws=n_draws, rng=ctx.rng(2))
    # Hoeffding for [0, 1]-valued masses, union over the ell coordinates, two-sided, at the fixed false-alarm rate
    radius = math.sqrt(math.log(2 * ell / FALSE_ALARM) / (2 * n_draws))
    dev = np.abs(mean - 1.0 / ell)
    t = int(np.argmax(dev))
    refuted = bool(dev[t] > radius)
    outcome = (f"{FAILS if refuted else NOT_TESTED}: max_j |E[p_j | X, C] - 1/ell| = {float(dev[t]):.3g} "
               f"{'>' if refuted else '<='} Hoeffding radius {radius:.3g} (1/ell = {1.0 / ell:.3g}, item {int(context[t])})")
    hyps = [f"m = {m}, d_model = {d_model} (h = {c.n_heads}), d_k = {c.d_k} = ceil({C:g} ln^2 m); Step 3(i) puts no "
            "size condition on C", f"head k = {k} is a non-owner head of source i = {i} (k != k*)",
            f"a fixed context C of length ell = {ell} containing i; X, pi, C fixed, expectation over the signatures"]
    # the same test inside Theorem 8.1's ranges (C = 64 for gamma >= 3, c0 = d_model / ln m = 14.4): fewer draws
    # (d_k = 1968), a wider Hoeffding radius, still far below the deviation (independent review of 2026-11-28)
    m2, d2, C2, n2 = 256, 80, 64.0, 400
    c2 = algorithm2_instance(m2, d2, softmax_dk(C2, m2), ctx.rng(3))
    own2 = source_owner_heads(c2)
    i2 = int(ctx.rng(4).integers(m2))
    k2 = int((own2[i2] + 1) % c2.n_heads)
    ctx2 = np.concatenate([[i2], ctx.rng(5).choice(np.delete(np.arange(m2), i2), size=ell - 1, replace=False)])
    mean2, _ = signature_mean_masses(c2, k2, i2, ctx2, n_draws=n2, rng=ctx.rng(6))
    radius2 = math.sqrt(math.log(2 * ell / FALSE_ALARM) / (2 * n2))
    dev2 = np.abs(mean2 - 1.0 / ell)
    t2 = int(np.argmax(dev2))
    in_range = {"m": m2, "d_model": d2, "c0": round(d2 / math.log(m2), 2), "C": C2, "d_k": c2.d_k, "head": k2,
                "source": i2, "context": ctx2.tolist(), "item": int(ctx2[t2]), "mean_mass": float(mean2[t2]),
                "max |mean - 1/ell|": float(dev2[t2]), "hoeffding_radius": radius2, "n_signature_draws": n2}
    readings = {"(14) as printed: conditional on X and C, randomness of the signatures only": outcome,
                "expectation also over X (the embeddings)": f"{NOT_TESTED}: X is held fixed in this check",
                "only at Theorem 8.1's constants (C >= 64 for gamma >= 3, large c0)":
                    (f"{FAILS if dev2[t2] > radius2 else NOT_TESTED}: at C = {C2:g}, c0 = {d2 / math.log(m2):.1f} "
                     f"(d_k = {c2.d_k}) max_j |E[p_j | X, C] - 1/ell| = {float(dev2[t2]):.3g} "
                     f"{'>' if dev2[t2] > radius2 else '<='} Hoeffding radius {radius2:.3g} ({n2} draws)")}
    return with_readings(Verdict(
        status=decide(False, refuted, exact=True),
        paper_value="(14): E[p^(k)_ij | X, C] = 1/ell for every non-owner head k and j in C",
        measured_value={"1/ell": 1.0 / ell, "max |mean - 1/ell|": float(dev[t]), "hoeffding_radius": radius,
                        "mean_masses": np.round(mean, 4).tolist()},
        witness={"m": m, "d_model": d_model, "d_k": c.d_k, "head": k, "source": i, "context": context.tolist(),
                 "item": int(context[t]), "mean_mass": float(mean[t]),
                 "inside Theorem 8.1's ranges": in_range} if refuted else None,
        params={"n_signature_draws": n_draws, "false_alarm": FALSE_ALARM, "C": C},
        evidence=f"Monte Carlo over {n_draws} fresh Rademacher signature draws with X, pi, C fixed; Hoeffding bound "
                 f"with a union over the {ell} items",
        evidence_level="certified",
        details=("Given X, head k's logit for item t has mean sqrt(d_k) sum_{s in V_k} u_i(s) u_t(pi(s)) (u = rows of "
                 "X X^T), which differs across t (items of T_k carry their own signature); permuting the i.i.d. "
                 "signature rows does not change that law, so the 'symmetry trick' cannot make the logits "
                 "exchangeable."),
    ), hyps, readings)


@functools.lru_cache(maxsize=16)
def _psi1_norms(ells: tuple, shape: float) -> list:
    return [gamma_softmax_psi1_norm(ell, shape) for ell in ells]


def _check_lem83_scale(ctx: CheckContext) -> Verdict:
    e = ctx.expect("ell_exponent")
    full = ctx.tier != "quick"
    ells = [2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096] if full else [4, 16, 64, 256, 1024]
    rows = {}
    for shape in ((1.0, 0.5, 4.0) if full else (1.0, 0.5)):
        norms = _psi1_norms(tuple(ells), shape)
        scaled = [ell ** -e * n for ell, n in zip(ells, norms)]
        half = len(ells) // 2
        slope = float(np.polyfit(np.log(ells[half:]), np.log(norms[half:]), 1)[0])
        rows[f"Gamma({shape:g})"] = {"ell^-e*psi1": [round(s, 4) for s in scaled], "fitted_exponent_upper_half": slope}
    bounded = all(max(r["ell^-e*psi1"]) <= 2 * min(r["ell^-e*psi1"][len(ells) // 2:])
                  and abs(r["fitted_exponent_upper_half"] - e) < 0.1
                  for r in rows.values())
    return Verdict(
        status=decide(bounded, not bounded),
        paper_value="E p = 1/ell and ||p - 1/ell||_psi1 <= K_1/ell",
        measured_value=rows,
        params={"ells": ells},
        evidence="exact psi_1 norms (adaptive quadrature of E exp(|p - 1/ell|/t) with p ~ Beta(a, (ell-1)a)) for "
                 "Z ~ Gamma(a), a in {1/2, 1} (full tier: also 4, ell up to 4096); exponent fitted on the larger "
                 "half of ell",
        details="Three admissible distributions, not a proof: ell * ||p - 1/ell||_psi1 levels off, exponent -1.",
        evidence_level="grid",
    )


def _check_lem83_application(ctx: CheckContext) -> Verdict:
    ts = [10.0**e for e in range(-2, 7)]
    results = [lognormal_psi1_lower_bound(1.0, t) for t in ts]
    all_exceed = all(r["exceeds_log2"] for r in results)
    # the logits the lemma is applied to: non-owner heads of Algorithm 2 at a paper size
    c = algorithm2_instance(256, 32, softmax_dk(4.0, 256), ctx.rng(0))
    L = all_head_logits(c)
    own = source_owner_heads(c)
    mask = np.ones(L.shape, dtype=bool)
    mask[own, np.arange(c.m), :] = False
    std = float(L[mask].std())
    worst = min(r["log_lower_bound"] for r in results)
    hyps = ["L ~ N(0, 1): sub-Gaussian with an absolute psi_2 norm (the lemma's hypothesis on the logit)",
            "Z = exp(L) positive, as Lemma 8.3 asks of Z_t"]
    readings = {"as printed: ||exp(L)||_psi1 bounded by an absolute constant":
                (f"{FAILS}: log E exp(e^L / t) >= {worst:.3g} > log 2 for every t in [1e-2, 1e6]" if all_exceed else
                 f"{NOT_TESTED}: the certified lower bound did not exceed log 2 at every t")}
    return with_readings(Verdict(
        status=decide(False, all_exceed, exact=True),
        paper_value="Z_t = exp(L_it) has psi_1 norm bounded by an absolute constant since L_it is sub-Gaussian",
        measured_value={"t": ts, "log E exp(e^L/t) >=": [r["log_lower_bound"] for r in results],
                        "non_owner_logit_std_at_(256,32,C=4)": std},
        witness={"L": "N(0, 1) (sub-Gaussian, psi_2 norm an absolute constant)",
                 "certificate": "E exp(e^L / t) >= P(L >= a) exp(e^a / t) > 2 at the listed (t, a)",
                 "pairs": [(t, r["a"]) for t, r in zip(ts, results)]} if all_exceed else None,
        evidence="certified lower bound P(L >= a) exp(e^a/t) (exact normal tail, log space) for t up to 1e6",
        evidence_level="certified",
        details=("exp of a Gaussian is log-normal, whose tail exp(-(log x)^2 / 2) is heavier than any e^{-x/t}: "
                 "its psi_1 norm is infinite, so the hypothesis of Lemma 8.3 fails for Z_t = exp(L_it) with "
                 "sub-Gaussian logits; the logits of the construction have O(1)-and-growing spread (measured std)."),
    ), hyps, readings)


_EQ16_C0 = 32.0  # d_model = c0 ln m along the sweep
_EQ16_TOL = 0.1  # band [-0.1, 0.1] for the exponent of the required C_2 in m (absolute C_2: exponent 0)
_EQ16_SOURCES = 512  # sources scored per draw when m > 1024 (the measured C_2 is then a lower bound)


def _eq16_required_c2(ctx: CheckContext, sizes, draws: int, C: float = 64.0) -> list:
    """Per (size, draw): the smallest C_2 for which (16) holds on the context V, over the scored sources."""
    rows = []
    for si, (m, d_model) in enumerate(sizes):
        for r in range(draws):
            c = algorithm2_instance(m, d_model, softmax_dk(C, m), ctx.rng(si, r))
            src = np.arange(m) if m <= 1024 else np.sort(ctx.rng(si, r, 1).choice(m, size=_EQ16_SOURCES, replace=False))
            B = rows_on_full_context(c, src)["B"]
            h, lm = c.n_heads, math.log(m)
            dev = float(np.abs(B - (h - 1) / m).max())
            rows.append({"m": m, "d_model": d_model, "h": h, "d_k": c.d_k, "draw": r, "sources_scored": int(src.size),
                         "max_|B - (h-1)/ell|": dev, "required_C2": dev * m / (math.sqrt(h * lm) + lm)})
    return rows


def _check_eq16(ctx: CheckContext) -> Verdict:
    C = 64.0  # d_k = 64 ln^2 m: gamma = sqrt(C)/2 - 1 = 3, the value Step 5 asks for
    full = ctx.tier != "quick"
    sizes = c0_log_m_sizes(_EQ16_C0, (2, 4, 8, 16) if full else (2, 4, 8))
    draws = 4
    rows = _eq16_required_c2(ctx, sizes, draws, C)
    v = exponent_verdict([r["m"] for r in rows], [r["required_C2"] for r in rows], claimed=0.0, tol=_EQ16_TOL,
                         paper_value="(16): |B_ij - (h-1)/ell| <= (C_2/ell)(sqrt(h log m) + log m) w.h.p. with an "
                                     "absolute C_2 (the required C_2 does not grow with m)",
                         what="required C_2 against m along d_model = c0 ln m",
                         params={"c0": _EQ16_C0, "sizes_(m,d_model)": sizes, "C": C, "ell": "m (context V)",
                                 "draws": draws, "table": rows}, table=rows)
    scope = {}
    if v.status is Status.CONTRADICTED_EMPIRICALLY:
        scope = reading_record(
            [f"d_k = ceil(64 ln^2 m) (C = 64: gamma = 3, the value Step 5 uses)",
             f"d_model = ceil(c0 ln m) with c0 = {_EQ16_C0:g} fixed (the theorem's scaling), h = m / d_model an integer",
             "context C = V: ell = m >= C_ell max{h, log m} for every C_ell <= d_model",
             "all pairs (i, j) of the context (all sources for m <= 1024, 512 sampled above: a lower bound on the "
             "required C_2 at the largest m, so the fitted growth is if anything too small)"],
            {"C_2 an absolute constant (as (13) states)": f"{FAILS}: {v.measured_value}",
             "C_2 allowed to depend on the theorem's C and c0 (both fixed along the sweep)":
                 f"{FAILS}: C and c0 are fixed and the required C_2 still grows with m"})
    return dataclasses.replace(v, params={**v.params, **scope}, details=(
        "The C_2 that (16) needs grows with m at fixed C = 64 and fixed c0: with h = m/(c0 ln m) non-owner heads, "
        "each puts mass of order one on a few items of the context, so the background deviates by O(1) where (16) "
        "allows (C_2/ell)(sqrt(h log m) + log m). Fitted: " + str(v.details)))


def _step3_mean(ctx: CheckContext) -> Verdict:
    k = sp.Symbol("k", integer=True, positive=True)
    total = sp.summation(1 / F.ell, (k, 1, F.h - 1))  # the h - 1 non-owner heads, 1/ell each (Step 3(i))
    stated = (F.h - sp.nsimplify(ctx.expect("owner_heads"))) / F.ell  # (14)-(16): E[B_ij] = (h - 1)/ell
    return identity_verdict(total, stated, variables=[Var(F.h, 1, 1000, integer=True, log=True), VAR_ELL], ctx=ctx,
                            paper_value="E[B_ij] = sum over h-1 non-owner heads of 1/ell = (h-1)/ell")


def _lemma83(ctx: CheckContext) -> Verdict:
    z, mu, K0 = sp.Symbol("Z_1", positive=True), sp.Symbol("mu_1", positive=True), sp.Symbol("K_0", positive=True)
    S = sp.Symbol("S", positive=True)
    V = [Var(z, 0.01, 100, log=True), Var(mu, 0.1, 10, log=True), VAR_ELL, Var(S, 0.01, 1e6, log=True)]
    step = inequality_verdict(z / S, "<=", 2 * z / (mu * F.ell), variables=V, ctx=ctx, max_points=1500,
                              constraints=[lambda pt: pt["S"] >= pt["mu_1"] * pt["ell"] / 2],
                              proof=lambda: "z/S is decreasing in S and equals 2z/(mu ell) at S = mu ell / 2")
    # the psi_1 scale of p = Z_1/S on the event: (2/(mu_1 ell)) K_0, against the stated O(1/ell) = ell^(-1)
    scale = identity_verdict((2 / (mu * F.ell)) * K0, 2 * K0 / mu * F.ell ** sp.nsimplify(ctx.expect("ell_exponent")), variables=[Var(mu, 0.1, 10), VAR_ELL, Var(K0, 0.1, 10)],
                             ctx=ctx)
    return combine_verdicts([step, scale], paper_value="p <= 2 Z_1/(mu_1 ell) on the good event; ||p||_psi1 <= 2 K_0/(mu_1 ell)")


def _eq16_deviation(ctx: CheckContext) -> Verdict:
    Cc = sp.Symbol("C_B", positive=True)  # the Bernstein constant of (15)
    H = Var(F.h, 1, 1e4, integer=True, log=True)
    tt = 6 * sp.log(F.m)
    standard = Cc / F.ell * (sp.sqrt(F.h * tt) + tt)  # reading sqrt(h t)
    v_std = inequality_verdict(standard, "<=", F.delta_tilde(C2_=6 * Cc), variables=[VAR_M, H, VAR_ELL, Var(Cc, 0.1, 10)],
                               ctx=ctx, max_points=600,
                               proof=lambda: prove_nonnegative(sp.expand((F.delta_tilde(C2_=6 * Cc) - standard) * F.ell / Cc)
                                                               .subs(sp.sqrt(6) * sp.sqrt(F.h) * sp.sqrt(sp.log(F.m)), sp.Symbol("z", positive=True)),
                                                               [H, VAR_M]))
    literal = Cc / F.ell * (sp.sqrt(F.h) * tt + tt)  # reading sqrt(h) * t
    lim = limit_verdict((literal / F.delta_tilde(C2_=Cc)).subs(F.h, F.m), F.m, expect="bounded", ctx=ctx)
    out = combine_verdicts([v_std], paper_value="(15) at t = 6 log m gives (16) with C_2 = 6 C",
                           details=f"Reading sqrt(h t) (the standard sub-exponential Bernstein form) gives (16) with "
                                   f"C_2 = 6C. The literal reading sqrt(h) t would not: along h = m, {lim.measured_value}.")
    return out


def _eq16_union(ctx: CheckContext) -> Verdict:
    t_coeff, e = sp.nsimplify(ctx.expect("t_coeff")), sp.nsimplify(ctx.expect("fail_exponent"))
    expr = F.m**2 * 2 * sp.exp(-t_coeff * sp.log(F.m))
    ident = identity_verdict(expr, 2 * F.m ** (2 - t_coeff), variables=[VAR_M], ctx=ctx,
                             simplifier=lambda x: sp.simplify(sp.powsimp(x, force=True)))
    ineq = inequality_verdict(2 * F.m ** (2 - t_coeff), "<=", F.m ** e, variables=[VAR_M], ctx=ctx,
                              proof=lambda: prove_nonnegative(F.m ** e - 2 * F.m ** (2 - t_coeff), [VAR_M]))
    # the stated exponent is the sharpest power bound of 2 m^(2 - t) over m >= 2: equality at m = 2
    sharp = sp.simplify(2 * sp.Integer(2) ** (2 - t_coeff) - sp.Integer(2) ** e) == 0
    tight = Verdict(decide(sharp, not sharp, exact=True),
                    measured_value={"2 * 2^(2-t)": str(2 * sp.Integer(2) ** (2 - t_coeff)), "2^e": str(sp.Integer(2) ** e)},
                    evidence="sympy: exact value at m = 2", evidence_level="proved")
    return combine_verdicts([ident, ineq, tight],
                            paper_value="t = 6 log m and a union bound over m^2 pairs: probability >= 1 - m^-3",
                            details="2 m^-4 <= m^-3 with equality at m = 2, so m^-3 is the sharpest power the step gives.")


def _uniform_contexts(ctx: CheckContext) -> Verdict:
    # Union bound of Step 3 over every context of length ell (sets suffice): binom(m, ell) m^2 2 m^-6. Tested against
    # m^-2, i.e. m^-3 with a polynomial slack factor m, so a failure is not a constant-factor slip.
    expr = sp.binomial(F.m, F.ell) * 2 * F.m ** -4
    # Re-choosing t to pay for all contexts: t = 6 ln m + ln binom(m, ell); at m = 4096, d_model = 512 (h = 8),
    # C_2 = 1 and the theorem's own length ell = C_ell max{h, ln m} with C_ell = 8(1 + 2 C_2) = 24 (Step 5's
    # smallest admissible C_ell), the deviation (C_2/ell)(sqrt(h t) + t) is no longer small; it only grows for
    # smaller ell, and for larger ell up to m it stays above Step 5's budget 2 C_2 / C_ell = 1/12.
    mm, hh, c2 = 4096, 8, 1.0
    c_ell = 8 * (1 + 2 * c2)
    ll = math.ceil(c_ell * max(hh, math.log(mm)))

    def dev_at(ell_):
        t_all = 6 * math.log(mm) + math.lgamma(mm + 1) - math.lgamma(ell_ + 1) - math.lgamma(mm - ell_ + 1)
        return c2 * (math.sqrt(hh * t_all) + t_all) / ell_

    dev = dev_at(ll)
    budget = 2 * c2 / c_ell
    rescued = next((e for e in range(ll, mm) if dev_at(e) <= budget), None)
    extra = (f" Paying for all contexts with t = 6 ln m + ln binom(m, ell) gives, at m = {mm}, h = {hh}, C_2 = 1, "
             f"ell = C_ell max(h, ln m) = {ll} with C_ell = 8(1 + 2 C_2) = {c_ell:g}: deviation {dev:.2f} (Step 5 "
             f"needs <= 2 C_2 / C_ell = {budget:.3f}); the re-chosen t fits the budget only from ell = {rescued} "
             f"(of m = {mm}) on, where few contexts exist, so the uniform reading needs ell close to m, not "
             f"ell = C_ell max{{h, log m}}.")
    v = inequality_verdict(expr, "<=", F.m ** -2, variables=[Var(F.m, 2, 4096, integer=True, log=True), VAR_ELL], ctx=ctx,
                           constraints=[lambda pt: pt["ell"] <= pt["m"], theorem81_length],
                           paper_value="the probability-(1 - m^-3) event of Theorem 8.1 covers all contexts of length "
                                       "ell at once (tested with slack: union bound <= m^-2)",
                           details="Step 3 union-bounds over the m^2 pairs of one fixed context. Proposition 8.4's "
                                   "sketch uses Theorem 8.1 for success 'uniformly over all contexts'; a union over "
                                   "the binom(m, ell) contexts with the same t = 6 log m fails, by more than any "
                                   "constant (or polynomial) factor." + extra)
    fixed = inequality_verdict(2 * F.m ** -4, "<=", F.m ** -3, variables=[Var(F.m, 2, 4096, integer=True, log=True)],
                               ctx=ctx, proof=lambda: "m^-3 - 2 m^-4 = m^-4 (m - 2) >= 0")
    if v.status is Status.REFUTED:
        return with_readings(v, ["ell <= m", "ell >= 8 max{1, ln m} (C_ell >= 8(1 + 2 C_2) >= 8, h >= 1)",
                                 "t = 6 log m as in Step 3"],
                             {"for any fixed context (the theorem's wording)":
                                  f"{outcome_word(fixed)}: m^2 pairs x 2 m^-6 <= m^-3",
                              "uniformly over all contexts of length ell (Proposition 8.4's use)":
                                  f"{FAILS}: binom(m, ell) 2 m^-4 > m^-2"})
    return v


def _failure_total(ctx: CheckContext) -> Verdict:
    v = inequality_verdict(F.theorem81_failure_probability(), "<=", F.m ** -3, variables=[VAR_M], ctx=ctx,
                           paper_value="Theorem 8.1: failure probability <= m^-3",
                           details="Step 1 inherits Theorem 4.1's m^-3 and Step 3 adds 2 m^-4; the total exceeds "
                                   "m^-3 (a constant-factor bookkeeping slip: raise either exponent).")
    # Reading: Step 1 taken at the per-head rate m^-4 that the App. B proofs give (Theorem B.9), m >= 3.
    m3 = Var(F.m, 3, 1e6, integer=True, log=True)
    alt = inequality_verdict(F.m ** -4 + 2 * F.m ** -4, "<=", F.m ** -3, variables=[m3], ctx=ctx,
                             proof=lambda: "m^-3 - 3 m^-4 = m^-4 (m - 3) >= 0")
    if v.status is Status.REFUTED:
        return with_readings(v, ["m >= 2", "Step 1 at probability 1 - m^-3 (Theorem 4.1)", "Step 3 at 1 - 2 m^-4 (16)"],
                             {"as written (m^-3 + 2 m^-4)": f"{FAILS}: exceeds m^-3 for every m",
                              "Step 1 at m^-4 (enlarging Theorem 4.1's constants), m >= 3":
                                  f"{outcome_word(alt)}: 3 m^-4 <= m^-3"})
    return v


CLAIMS = (
    proof_step(Claim(id="thm81-step3-exchangeability", ref="Theorem 8.1",
          statement="Step 3(i), Eq. (14): for a non-owner head, E[p^(k)_ij | X, C] = 1/ell for every j in C",
          kind=Kind.HIGH_PROBABILITY, tier=Tier.QUICK, check=_check_eq14,
          notes="Expectation over the Rademacher signatures with X, pi and C fixed (the paper conditions on X, C). "
                "Stated values not declared: the masses sum to 1, so no mean other than 1/ell is possible for all items at once; a "
                "mutated 2/ell or 1/(2 ell) is refuted like the stated one (insensitive).",
          slip=("proof-step-false", "proof-step",
                "With X, pi and the context fixed, a non-owner head's softmax masses are not exchangeable over the "
                "context, so (14)'s mean 1/ell fails for some items; the background bound (16) needs another route, "
                "and the theorem's conclusion is judged by its own claims."))),
    proof_step(Claim(id="eq14-sym-background-mean", ref="Eq. (14)", statement="Theorem 8.1, Step 3: mean 1/ell per non-owner head "
          "sums to a background mean (h-1)/ell.", kind=Kind.SYMBOLIC, tier=Tier.QUICK, check=_step3_mean,
          expects={"owner_heads": Stated(1, "value", "Step 3: background mean (h - 1)/ell (one owner head excluded)")})),
    Claim(id="lem83-psi1-scale", ref="Lemma 8.3",
          statement="For i.i.d. positive sub-exponential Z_t, p = Z_1/sum_t Z_t has ||p - 1/ell||_psi1 <= K_1/ell",
          kind=Kind.ASYMPTOTIC, tier=Tier.QUICK, check=_check_lem83_scale, role="result",
          expects={"ell_exponent": Stated(-1, "exponent", "Lemma 8.3: ||p - 1/ell||_psi1 <= K_1 / ell")},
          notes="Checked exactly for Gamma(a) variables (p is Beta distributed), a in {1/2, 1, 4}."),
    Claim(id="lem83-application-exp-logits", ref="Lemma 8.3",
          statement="Lemma 8.3 applies to Z_t = exp(L_it): a sub-Gaussian logit gives exp(L) a psi_1 norm bounded by "
                    "an absolute constant",
          kind=Kind.DETERMINISTIC, tier=Tier.QUICK, check=_check_lem83_application, role="proof-step",
          supports=("Theorem 8.1",),
          notes="The lemma's application in Step 3 of Theorem 8.1 (a proof step of that theorem, not the lemma's "
                "own statement, which lem83-psi1-scale checks).",
          slip=("proof-step-false", "proof-step",
                "exp of a sub-Gaussian logit can have an infinite psi_1 norm (a log-normal tail), so Lemma 8.3's "
                "hypothesis is not met where Step 3 uses it; the lemma itself stands, and Step 3 needs a tail bound "
                "suited to exp(L) at the logits' actual scale.")),
    proof_step(symbolic_claim("lem83-sym-scale", "Lemma 8.3", "On the event S >= mu_1 ell / 2, p = Z_1/S <= 2 Z_1/(mu_1 ell), so the "
                   "psi_1 scale is 2 K_0/(mu_1 ell) = O(1/ell).", _lemma83,
                   expects={"ell_exponent": Stated(-1, "exponent", "Lemma 8.3: psi_1 scale O(1/ell)")}), "Lemma 8.3"),
    proof_step(Claim(id="thm81-step3-background-concentration", ref="Theorem 8.1",
          statement="Step 3, Eq. (16): the background B_ij stays within (C_2/ell)(sqrt(h log m) + log m) of (h-1)/ell "
                    "with an absolute C_2",
          kind=Kind.ASYMPTOTIC, tier=Tier.QUICK, check=_check_eq16,
          notes="Required C_2 = max |B - (h-1)/ell| ell / (sqrt(h ln m) + ln m) over the pairs (i, j) of the context "
                "V, swept along d_model = c0 ln m with c0 = 32 fixed (h = m / d_model = 2, 4, 8; full tier also 16) "
                "and d_k = ceil(64 ln^2 m) (C = 64, gamma = 3): the theorem's own scaling with its constants fixed, "
                "so every hypothesis holds at every size (C_ell <= d_model). 4 draws per size, pooled log-log fit "
                "of the required C_2 against m, 95% interval held to the band [-0.1, 0.1] (an absolute C_2 has "
                "exponent 0): contradicted-empirically only when the whole interval lies above it. An earlier "
                "version swept d_model = m/4, where c0 grows with m and the non-owner logit spread shrinks; "
                "3 draws.",
          slip=("proof-step-false", "proof-step",
                "Along the theorem's own scaling the C_2 that (16) needs grows with m, so the background does not "
                "concentrate at the stated scale with an absolute C_2; the step would need a C_2 (hence a C_ell) "
                "growing with m, and the conclusion is judged by its own claims."))),
    proof_step(symbolic_claim("eq15-sym-bernstein-deviation", "Eqs. (15)-(16)", "Bernstein (15) at t = 6 log m gives the deviation "
                   "Delta = (C_2/ell)(sqrt(h log m) + log m).", _eq16_deviation,
                   notes="(15) prints 'sqrt(h) t'; we read the standard sub-exponential form sqrt(h t). The literal reading "
                         "is evaluated in the details.")),
    proof_step(Claim(id="eq16-sym-union-bound", ref="Eq. (16)", statement="Union over m^2 pairs of 2e^{-6 log m} is 2m^-4 <= m^-3.",
          kind=Kind.SYMBOLIC, tier=Tier.QUICK, check=_eq16_union,
          expects={"t_coeff": Stated(6, "value", "Step 3: t = 6 log m in (15)"),
                   "fail_exponent": Stated(-3, "exponent", "Eq. (16): probability at least 1 - m^-3")},
          notes="Also checks that m^-3 is sharp for 2 m^-4 over m >= 2 (equality at m = 2).")),
    with_role(symbolic_claim("prop84-sym-uniform-over-contexts", "Proposition 8.4", "Step 3's union bound (Theorem 8.1) "
                   "covers all contexts of length ell simultaneously, as Proposition 8.4's 'uniformly over all contexts' "
                   "uses it.", _uniform_contexts,
                   notes="Quantifier order: the theorem says 'with probability >= 1 - m^-3 ..., for any fixed context', "
                         "i.e. for each context the probability is >= 1 - m^-3 (reading 'fixed context': holds). The "
                         "refutation is of the other order (one event for all contexts), which Proposition 8.4's "
                         "sketch and the 'Consequently' sentence use; it refutes the union bound as a proof of that "
                         "order, not the uniform statement itself. The failing factor is binom(m, ell) (super-"
                         "polynomial), so the stated exponent -3 is not declared: the verdict is the same for m^-2 "
                         "or m^-4 (insensitive). The details' deviation uses the theorem's own length "
                         "ell >= 8(1 + 2 C_2) max{h, ln m} (earlier versions used ell = 8 ln m, below Step 5's C_ell). "
                         "Targeted at Proposition 8.4, whose success is uniform over contexts: Theorem 8.1 is stated "
                         "per fixed context and is not touched.",
                   slip=("proof-step-false", "proof-step",
                         "The m^-3 union bound holds context by context, but over all length-ell contexts at once it "
                         "picks up a factor binom(m, ell), so it does not give the uniform-over-contexts success "
                         "Proposition 8.4 uses; Theorem 8.1's per-context statement is untouched, and the uniform "
                         "version needs a different argument.")),
              "proof-step", "Proposition 8.4"),
    with_role(symbolic_claim("thm81-sym-failure-probability", "Theorem 8.1", "The failure events the proof uses sum to at most m^-3.",
                   _failure_total,
                   notes="A claim about the proof's bookkeeping as written (Step 1 at Theorem 4.1's m^-3 plus Step 3's "
                         "2 m^-4), not about the theorem's probability: with Step 1 taken at m^-4 (admissible by "
                         "enlarging Theorem 4.1's constants, which the theorem allows) the total 3 m^-4 <= m^-3 holds "
                         "for m >= 3 (recorded reading). The stated exponent is not declared: any m^-e with e >= 3 "
                         "fails the same way (the total exceeds the Step 1 term alone), so the verdict cannot tell "
                         "-3 from -4. Role detail: a bookkeeping imprecision of the proof's constants, repaired by "
                         "the theorem's own freedom to enlarge them.",
                   slip=("constant-bookkeeping", "proof-step",
                         "Step 1 at m^-3 plus Step 3's 2 m^-4 exceeds m^-3, but taking Step 1 at m^-4 (larger "
                         "constants, which Theorem 4.1 allows) gives 3 m^-4 <= m^-3, so only the bookkeeping of the "
                         "constants is off and Theorem 8.1's probability stands.")), "detail", "Theorem 8.1"),
)
