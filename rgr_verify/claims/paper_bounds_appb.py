"""Symbolic claims of App. B: Theorem B.1's Chernoff and union bounds (App. B.1), the score decomposition and
Lemma B.3 of Theorem B.2 (App. B.2), Theorem B.5 and Corollaries B.6-B.7 (App. B.3), Lemma B.8, Theorem B.9,
condition (33) and Corollary B.10 (App. B.4), and the construction cost stated at the start of App. B.

Exact expectations over random signatures or binary embeddings are computed by enumerating every outcome of a
small instance (sympy polynomials in p), so they are proofs for that instance, not samples.
"""

from __future__ import annotations

import itertools
import math

import sympy as sp
from scipy.stats import binom as binom_dist

from .. import formulas as F
from .base import CheckContext, Claim, Kind, Status, Tier, Verdict
from .tools import FAILS, HOLDS, with_readings
from .symbolic import (
    Var,
    combine_verdicts,
    exhaustive_verdict,
    identity_verdict,
    inequality_verdict,
    limit_verdict,
    prove_by_monotonicity,
)

ORDER = 250

_M = Var(F.m, 2, 1e6, integer=True, log=True)
_D = Var(F.d_model, 1, 4096, integer=True, log=True)
_P = Var(F.p, 0.01, 0.49)
_DK = Var(F.d_k, 1, 1e4, log=True)


def _claim(id_, ref, statement, check, notes=""):
    return Claim(id=id_, ref=ref, statement=statement, kind=Kind.SYMBOLIC, tier=Tier.QUICK, check=check, notes=notes)


# ----------------------------------------------------------------------------------------------- App. B.1
def _b1_means(ctx: CheckContext) -> Verdict:
    p = F.p
    # Bernoulli(p) key entries: E[k^2] = E[k] = p; independent entries: E[k k'] = p^2.
    e_sq = sum((p if x else 1 - p) * x * x for x in (0, 1))
    e_prod = sum((p if x else 1 - p) * (p if y else 1 - p) * x * y for x in (0, 1) for y in (0, 1))
    return combine_verdicts([
        identity_verdict(F.d_k * e_sq, F.b1_mu1(), variables=[_P, _DK], ctx=ctx),
        identity_verdict(F.d_k * e_prod, F.b1_mu2(), variables=[_P, _DK], ctx=ctx),
        identity_verdict(F.b1_tau(), (p + p**2) / 2 * F.d_k, variables=[_P, _DK], ctx=ctx),
    ], paper_value="S_true ~ Bin(d_k, p), S_ij ~ Bin(d_k, p^2), tau = (p + p^2) d_k / 2")


def _b1_exponents(ctx: CheckContext) -> Verdict:
    p = F.p
    V = [_P, _DK]
    d1 = identity_verdict(F.b1_delta1(), (1 - p) / 2, variables=V, ctx=ctx)
    e1 = identity_verdict(F.b1_mu1() * F.b1_delta1() ** 2 / 2, F.b1_c1() * F.d_k, variables=V, ctx=ctx)
    d2 = identity_verdict(F.b1_delta2(), (1 - p) / (2 * p), variables=V, ctx=ctx)
    e2 = identity_verdict(F.b1_mu2() * F.b1_delta2() ** 2 / (2 + F.b1_delta2()), F.b1_c2() * F.d_k, variables=V, ctx=ctx)
    rng = inequality_verdict(F.b1_delta1(), "<", 1, variables=[_P], ctx=ctx,
                             proof=lambda: "delta_1 = (1-p)/2 < 1/2 for p > 0")
    return combine_verdicts([d1, e1, d2, e2, rng], paper_value="delta_1 = (1-p)/2, delta_2 = (1-p)/(2p); exponents "
                            "d_k p(1-p)^2/8 and d_k p(1-p)^2/(2(1+3p))")


def _b1_chernoff_exact(ctx: CheckContext) -> Verdict:
    ps = [0.02, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.49]
    cases = [{"d_k": dk, "p": pv} for dk in list(range(1, 60)) + list(range(60, 1001, 20)) for pv in ps]

    def ok(case):
        dk, pv = case["d_k"], case["p"]
        tau = (pv + pv * pv) / 2 * dk
        lower = binom_dist.cdf(math.floor(tau), dk, pv)  # P[S_true <= tau]
        upper = binom_dist.sf(math.ceil(tau) - 1, dk, pv * pv)  # P[S_ij >= tau]
        c1v, c2v = pv * (1 - pv) ** 2 / 8, pv * (1 - pv) ** 2 / (2 * (1 + 3 * pv))
        return lower <= math.exp(-c1v * dk) * (1 + 1e-9) and upper <= math.exp(-c2v * dk) * (1 + 1e-9)

    return exhaustive_verdict(ok, cases, domain="d_k in 1..1000, 11 values of p in (0, 1/2): exact binomial tails",
                              paper_value="Pr[S_true <= tau] <= e^{-c_1 d_k}, Pr[S_ij >= tau] <= e^{-c_2 d_k}")


def _b1_union(ctx: CheckContext) -> Verdict:
    Cfac = sp.Symbol("f", positive=True)  # C = f * max{3/c_1, 2/c_2}, f slightly above 1
    fail = F.b1_failure_probability(dk=Cfac * F.b1_claimed_C() * sp.log(F.m))
    return inequality_verdict(fail, "<=", F.m ** -3, variables=[Var(F.m, 2, 1e4, integer=True, log=True), _P,
                                                                 Var(Cfac, 1.000001, 1.5)], ctx=ctx, max_points=800,
                              paper_value="C > max{3/c_1, 2/c_2} and d_k = C log m make m e^{-c_1 d_k} + m^2 e^{-c_2 d_k} <= m^-3",
                              details="m e^{-c_1 C log m} = m^{1 - c_1 C} < m^-2 only; the first term needs c_1 C >= 4 and "
                                      "the second c_2 C >= 5 (plus log 2 / log m each for the sum). E.g. p = 1/4: "
                                      "3/c_1 = 512/3, and at m = 2 the bound is about 0.28 > 1/8.")


def _b1_union_fixed(ctx: CheckContext) -> Verdict:
    fail = F.b1_failure_probability(dk=F.b1_sufficient_C() * sp.log(F.m))

    def proof():
        # c_1 C >= 4 + log2/log m  =>  m e^{-c_1 C log m} <= m e^{-(4 log m + log 2)} = m^-3 / 2; likewise c_2 C >= 5 + ...
        t1 = sp.simplify(F.m * sp.exp(-(4 * sp.log(F.m) + sp.log(2))) - F.m ** -3 / 2)
        t2 = sp.simplify(F.m**2 * sp.exp(-(5 * sp.log(F.m) + sp.log(2))) - F.m ** -3 / 2)
        if t1 == 0 and t2 == 0:
            return "c_1 C >= 4 + log2/log m and c_2 C >= 5 + log2/log m make each term exactly <= m^-3/2 (sympy)"
        return None
    return inequality_verdict(fail, "<=", F.m ** -3, variables=[Var(F.m, 2, 1e6, integer=True, log=True), _P], ctx=ctx,
                              max_points=300, proof=proof, paper_value="(our correction) C >= max{(4 + log 2/log m)/c_1, (5 + log 2/log m)/c_2} suffices",
                              details="Each term is then at most m^-3 / 2.")


def _b1_tight(ctx: CheckContext) -> Verdict:
    lb = identity_verdict(F.lower_bound_rate(d=F.m).subs(F.mp, F.m), sp.log(F.m), variables=[_M], ctx=ctx)
    ub = identity_verdict(F.dk_construction_i() / sp.log(F.m), F.C, variables=[_M, Var(F.C, 1, 100)], ctx=ctx)
    return combine_verdicts([lb, ub], paper_value="lower bound Omega(m' log m / d_model) = Omega(log m) at d_model = m' = m; "
                            "construction d_k = O(log m)")


# ----------------------------------------------------------------------------------------------- App. B.2
def _small_instance():
    """m = 4 items, head k with V_k = {0, 1}, pi = (0 2)(1 3), so T_k = {2, 3}; symbolic leakage and signatures."""
    mm, dk = 4, 2
    pi = {0: 2, 1: 3, 2: 0, 3: 1}
    Vk, Tk = [0, 1], [2, 3]
    w = [[sp.Symbol(f"w{a}_{r}") for r in range(dk)] for a in range(mm)]
    delta = [[0 if i == s else sp.Symbol(f"d{i}_{s}") for s in range(mm)] for i in range(mm)]
    return mm, dk, pi, Vk, Tk, w, delta


def _b2_decomposition(ctx: CheckContext) -> Verdict:
    mm, dk, pi, Vk, Tk, w, delta = _small_instance()
    WQ = [[w[pi[i]][r] if i in Vk else 0 for r in range(dk)] for i in range(mm)]  # one-hot-space templates
    WK = [[w[j][r] if j in Tk else 0 for r in range(dk)] for j in range(mm)]
    dot = lambda a, c: sum(x * y for x, y in zip(a, c))
    fails = []
    for i in Vk:
        for j in range(mm):
            u_i = [(1 if s == i else 0) + delta[i][s] for s in range(mm)]
            u_j = [(1 if s == j else 0) + delta[j][s] for s in range(mm)]
            q = [sum(u_i[s] * WQ[s][r] for s in range(mm)) for r in range(dk)]
            k = [sum(u_j[s] * WK[s][r] for s in range(mm)) for r in range(dk)]
            S = dot(q, k)
            sig = dot(w[pi[i]], w[j]) * (1 if j in Tk else 0)
            n1 = dot(w[pi[i]], [sum(delta[j][t] * w[t][r] for t in Tk) for r in range(dk)])
            src = [sum(delta[i][s] * w[pi[s]][r] for s in Vk) for r in range(dk)]
            n2 = dot(src, w[j]) * (1 if j in Tk else 0)
            n3 = dot(src, [sum(delta[j][t] * w[t][r] for t in Tk) for r in range(dk)])
            if sp.expand(S - (sig + n1 + n2 + n3)) != 0:
                fails.append({"i": i, "j": j})
    return Verdict(Status.REFUTED if fails else Status.VERIFIED,
                   paper_value="S_ij^(k) = Signal + N_1 + N_2 + N_3", measured_value=f"{len(Vk) * mm - len(fails)} of {len(Vk) * mm} (i, j) expand exactly",
                   witness=fails[0] if fails else None, params={"evidence_level": "symbolic-proof", "instance": "m=4, d_k=2, |V_k|=2"},
                   evidence="sympy expand on a symbolic instance (all leakage and signature entries symbols)")


def _b2_n3_mean(ctx: CheckContext) -> Verdict:
    mm, _, pi, Vk, Tk, _, delta = _small_instance()
    inv = {v: k for k, v in pi.items()}
    fails, n = [], 0
    for i in Vk:
        for j in range(mm):
            total = 0
            signs = list(itertools.product((-1, 1), repeat=mm))  # one column of Rademacher signatures
            for col in signs:
                X = sum(delta[i][s] * col[pi[s]] for s in Vk)
                Y = sum(delta[j][t] * col[t] for t in Tk)
                total += X * Y
            mean = sp.expand(total / len(signs))
            formula = sum(delta[i][inv[a]] * delta[j][a] for a in Tk)
            n += 1
            if sp.expand(mean - formula) != 0:
                fails.append({"i": i, "j": j, "mean": str(mean)})
    return Verdict(Status.REFUTED if fails else Status.VERIFIED,
                   paper_value="E[N_3 | X] = d_k <delta_{i, pi^-1(T_k)}, delta_{j, T_k}>",
                   measured_value=f"per-column mean equals the formula for {n - len(fails)} of {n} (i, j)",
                   witness=fails[0] if fails else None, params={"evidence_level": "symbolic-proof"},
                   evidence="exact expectation: all 2^4 Rademacher sign columns enumerated, symbolic leakage")


def _b2_n1_n2_means(ctx: CheckContext) -> Verdict:
    mm, _, pi, Vk, Tk, _, delta = _small_instance()
    inv = {v: k for k, v in pi.items()}
    signs = list(itertools.product((-1, 1), repeat=mm))  # one column of Rademacher signatures
    rows, nonzero = [], []
    for i in Vk:
        for j in range(mm):
            if j in (i, pi[i]):
                continue  # non-edges between distinct items
            n1 = sum(col[pi[i]] * sum(delta[j][t] * col[t] for t in Tk) for col in signs) / len(signs)
            n2 = sum(sum(delta[i][s] * col[pi[s]] for s in Vk) * col[j] * (1 if j in Tk else 0) for col in signs) / len(signs)
            n1, n2 = sp.expand(n1), sp.expand(n2)
            want1 = delta[j][pi[i]]
            want2 = delta[i][inv[j]] if j in Tk else 0
            rows.append(sp.expand(n1 - want1) == 0 and sp.expand(n2 - want2) == 0)
            if n1 != 0 or n2 != 0:
                nonzero.append({"i": i, "j": j, "E[N_1]/d_k": str(n1), "E[N_2]/d_k": str(n2)})
    formula_ok = all(rows)
    if formula_ok and nonzero:
        return Verdict(Status.REFUTED, paper_value="N_1 (and N_2) is a sum of d_k i.i.d. mean-zero sub-Gaussian variables",
                       measured_value={"E[N_1 | X]": "d_k delta_{j, pi(i)}", "E[N_2 | X]": "d_k delta_{i, pi^-1(j)} [j in T_k]",
                                       "non-edges with a nonzero mean": len(nonzero)},
                       witness=nonzero[0], params={"evidence_level": "symbolic-proof"},
                       evidence="exact expectation: all 2^4 Rademacher sign columns enumerated, symbolic leakage",
                       details="pi(i) lies in T_k, so the t = pi(i) term of N_1 is w_pi(i)[r]^2 delta_{j,pi(i)} = "
                               "delta_{j,pi(i)}, deterministic. The mean d_k <x_j, x_pi(i)> is of the same order as "
                               "E[N_3 | X] and is absorbed by the same choice of c_0 (|<x_j, x_pi(i)>| <~ "
                               "sqrt(log m / d_model)), but the proof's 'mean-zero' bound does not cover it.")
    return Verdict(Status.VERIFIED if formula_ok else Status.REFUTED, paper_value="N_1, N_2 mean-zero",
                   measured_value=f"{len(nonzero)} non-edges with a nonzero mean", params={"evidence_level": "symbolic-proof"},
                   evidence="exact enumeration")


def _lemb3_leakage_identity(ctx: CheckContext) -> Verdict:
    # delta_i = e_i (X X^T) - e_i on a seeded Gaussian unit-norm X; compare ||delta_{i,S}||^2 with the printed
    # sum_{s in S} <x_i, x_s>^2 for every source i and every subset S of [m].
    import numpy as np

    mm, dd = 4, 2
    X = ctx.rng().standard_normal((mm, dd))
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    G = X @ X.T
    cases = [{"i": i, "S": S} for i in range(mm) for r in range(1, mm + 1) for S in itertools.combinations(range(mm), r)]

    def ok(case):
        i, S = case["i"], list(case["S"])
        delta = G[i] - np.eye(mm)[i]
        return abs(float((delta[S] ** 2).sum()) - float((G[i, S] ** 2).sum())) < 1e-12

    return exhaustive_verdict(ok, cases, domain="every source i and subset S of m = 4 Gaussian unit-norm items (d_model = 2)",
                              paper_value="||delta_{i,S}||^2 = sum_{s in S} <x_i, x_s>^2 for S in {V_k minus i, T_k}",
                              details="The identity fails exactly when i is in S (extra term <x_i, x_i>^2 = 1). T_k = "
                                      "pi(V_k) may contain i (always when h = 1); the printed sum then has mean "
                                      "1 + (|S|-1)/d_model, about 2 = C_2 at |S| = d_model. The bound is right for delta.")


def _lemb3_second_moment(ctx: CheckContext) -> Verdict:
    dd = F.d_model
    # E[x_a^2] = 1/d by symmetry of the unit sphere; cross terms vanish by sign symmetry.
    second = dd * (1 / dd) * (1 / dd)
    v1 = identity_verdict(second, 1 / dd, variables=[_D], ctx=ctx)
    v2 = inequality_verdict(dd * (1 / dd), "<", 2, variables=[_D], ctx=ctx, proof=lambda: "mean is exactly 1 < 2")
    return combine_verdicts([v1, v2], paper_value="<x_i, x_s>^2 has mean 1/d_model; over |S| = d_model the mean is 1 < C_2 = 2")


def _lemb3_union(ctx: CheckContext) -> Verdict:
    # Item 2: m * 2h events (h <= m) with tails e^{-c d_model}; d_model >= (7/c) ln m makes each <= m^-7.
    item2 = inequality_verdict(F.m * 2 * F.m * F.m ** -7, "<=", F.m ** -4, variables=[_M], ctx=ctx,
                               proof=lambda: "2 m^-5 <= m^-4 iff m >= 2")
    # Signal: m^3 (i, j, k) events, Hoeffding 2 exp(-C_star^2 log m / 2); C_star^2 = 18 gives 2 m^3 m^-9 <= m^-5.
    signal = inequality_verdict(2 * F.m**3 * F.m ** -9, "<=", F.m ** -5, variables=[_M], ctx=ctx,
                                proof=lambda: "2 m^-6 <= m^-5 iff m >= 2")
    return combine_verdicts([item2, signal], paper_value="union bounds of Lemma B.3 (item 2) and of the Signal term are "
                            "feasible with absolute constants",
                            details="Explicit constants: c_0 = 7/c for item 2 (c the Bernstein constant), C_star = sqrt(18).")


def _b2_separation(ctx: CheckContext) -> Verdict:
    a, e = sp.Symbol("a", nonnegative=True), sp.Symbol("e", nonnegative=True)
    V = [Var(a, 0, sp.Rational(1, 16)), Var(e, 0, sp.Rational(1, 16))]
    # a bounds (C_star + 2 C_4 sqrt(C_2) + C_5 C_2) sqrt(log m / d_k), e bounds C_3 sqrt(log m / d_model).
    tgt = inequality_verdict(1 - a - e, ">", sp.Rational(3, 4), variables=V, ctx=ctx,
                             proof=lambda: prove_by_monotonicity(1 - a - e - sp.Rational(3, 4), V, strict=True))
    non = inequality_verdict(a + e, "<", sp.Rational(1, 4), variables=V, ctx=ctx,
                             proof=lambda: prove_by_monotonicity(sp.Rational(1, 4) - a - e, V, strict=True))
    C3 = sp.Symbol("C_3", positive=True)
    feas = identity_verdict(C3 * sp.sqrt(F.log_b(F.m) / (256 * C3**2 * F.log_b(F.m))), sp.Rational(1, 16),
                            variables=[Var(C3, 0.1, 10), _M], ctx=ctx)
    return combine_verdicts([tgt, non, feas], paper_value="with both constants <= 1/16: S_true > 3/4 d_k and |S_ij| < 1/4 d_k",
                            details="Feasibility: d_model >= 256 C_3^2 log m gives C_3 sqrt(log m/d_model) <= 1/16; "
                                    "likewise C >= 256 (C_star + 2 C_4 sqrt(C_2) + C_5 C_2)^2.")


def _b2_budget(ctx: CheckContext) -> Verdict:
    return identity_verdict(F.DK_construction_ii() / F.lower_bound_rate().subs(F.mp, F.m), F.C,
                            variables=[_M, _D, Var(F.C, 1, 100)], ctx=ctx,
                            paper_value="D_K = O(m log m / d_model) matches the lower bound within a constant (m' = m)")


# ----------------------------------------------------------------------------------------------- App. B.3
def _b5_gap(ctx: CheckContext) -> Verdict:
    p = F.p
    dlt = (p - p**2) * F.d_k
    v1 = identity_verdict(F.b1_mu1() - F.b1_mu2(), dlt, variables=[_P, _DK], ctx=ctx)
    v2 = identity_verdict(F.b1_mu2() + sp.Rational(3, 4) * dlt - sp.Rational(1, 4) * dlt, F.b1_tau(), variables=[_P, _DK], ctx=ctx)
    return combine_verdicts([v1, v2], paper_value="mu_1 - mu_2 = (p - p^2) d_k; signal > 3/4 gap above mu_2 and noise < 1/4 gap "
                            "put the target above tau = mu_2 + gap/2",
                            details="The two strict inequalities meet exactly at tau: no slack is left.")


def _b5_budget(ctx: CheckContext) -> Verdict:
    Bv = Var(F.B, 1, 1e5, integer=True, log=True)
    cons = [lambda pt: pt["B"] <= pt["m"]]
    lo = inequality_verdict(sp.ceiling(F.m / F.B), ">=", F.m / F.B, variables=[_M, Bv], ctx=ctx, constraints=cons)
    hi = inequality_verdict(sp.ceiling(F.m / F.B), "<=", 2 * F.m / F.B, variables=[_M, Bv], ctx=ctx, constraints=cons)
    return combine_verdicts([lo, hi], paper_value="D_K = ceil(m/B) C log m = Theta(m log m / B) for 1 <= B <= m")


def _b5_bernoulli_mean(ctx: CheckContext) -> Verdict:
    # Gram/mu = (1 - e) I + e J (PSD, so realisable with d_model = m): delta_i(s) = e for s != i, eps_d = 0,
    # rho = B e^2 and cross-leakage <= B e^2. Head with |V_k| = B, non-edge j outside T_k, Bernoulli(p) signatures:
    # E[S_ij]/d_k = e (1 + e (B-1)) (p + (B-1) p^2)  (exact, one column; columns i.i.d.).
    e, p, Bs, cc = sp.Symbol("e", positive=True), F.p, F.B, sp.Symbol("c", positive=True)
    mean = e * (1 + e * (Bs - 1)) * (p + (Bs - 1) * p**2)
    exact = _bernoulli_mean_instance(mean, e, p, ctx)
    # Theorem B.5's hypotheses with any constant c: rho = c / log m, i.e. e = sqrt(c / (B log m)); take B = m, h = 1.
    gap = (mean - F.b1_tau(dk=1)).subs({Bs: F.m, e: sp.sqrt(cc / (F.m * sp.log(F.m)))})
    lim = limit_verdict(-gap.subs({p: sp.Rational(1, 20), cc: sp.Rational(1, 100)}), F.m, expect="positive", ctx=ctx)
    mv = float(gap.subs({p: sp.Rational(1, 20), cc: sp.Rational(1, 100), F.m: 10**7}))
    out = combine_verdicts([exact], paper_value="Theorem B.5: under eps_d <= c_1, rho <= c_2/log m, gamma <= c_3/log m, all "
                           "non-edges score below tau = (p + p^2) d_k / 2 w.h.p.")
    if out.status is Status.VERIFIED and lim.status is Status.REFUTED:
        return Verdict(Status.REFUTED, paper_value=out.paper_value,
                       measured_value={"E[S_ij]/d_k - tau/d_k as m -> oo (p = 1/20, c = 1/100)": lim.measured_value,
                                       "at m = 1e7": mv},
                       witness={"embedding": "Gram / mu = (1 - e) I + e J, d_model = m, e = sqrt(c/(m log m))",
                                "B": "m (one head)", "p": "1/20", "rho = gamma": "c / log m", "c": "1/100 (any c > 0 works)"},
                       params={"evidence_level": "symbolic-proof"},
                       evidence="exact expectation (verified by enumeration on a small instance) and a sympy limit",
                       details="With Bernoulli(p) signatures the noise terms N_1, N_3 are not centred: E[w_a . w_b] = p^2 "
                               "d_k for a != b, so leakage of one sign adds about p^2 B e d_k to every score. Definition "
                               "B.4 bounds only squared leakage, which allows e = sqrt(rho/B) on every coordinate; the "
                               "mean non-edge score then exceeds tau once B >> log m / c, and since S_ij is a sum of "
                               "d_k = C log m i.i.d. bounded columns it exceeds tau with probability -> 1. Rademacher "
                               "signatures (zero mean) avoid this; the proof sketch's variance-only bound misses it.")
    return out


def _bernoulli_mean_instance(mean_formula, e, p, ctx: CheckContext) -> Verdict:
    """Enumerate one Bernoulli(p) signature column for B = 2 (m = 5: V_k = {0, 1}, T_k = {2, 3}, j = 4)."""
    mm, Vk, pi, Tk, i, j = 5, [0, 1], {0: 2, 1: 3}, [2, 3], 0, 4
    delta = lambda a, s: 0 if a == s else e
    total = 0
    for col in itertools.product((0, 1), repeat=mm):
        prob = sp.Mul(*[p if x else 1 - p for x in col])
        q = col[pi[i]] + sum(delta(i, s) * col[pi[s]] for s in Vk)  # u_i W'_Q, one column
        k = sum(delta(j, t) * col[t] for t in Tk)  # u_j W'_K with j outside T_k
        total += prob * q * k
    return identity_verdict(sp.expand(total), mean_formula.subs(F.B, 2), variables=[Var(e, 0, 0.5), Var(p, 0.01, 0.5)],
                            ctx=ctx)


def _b6_conditions(ctx: CheckContext) -> Verdict:
    c, c3 = sp.Symbol("c", positive=True), sp.Symbol("c_3", positive=True)
    gamma_at_b = sp.sqrt((c * F.d_model / sp.log(F.m)) / F.d_model)  # gamma ~ sqrt(B / d_model) at B = c d/log m
    v1 = limit_verdict((gamma_at_b / (c3 / sp.log(F.m))).subs({c: 1, c3: 1}), F.m, expect="bounded", ctx=ctx)
    rho_at_d = (F.d_model / F.d_model) / (1 / sp.log(F.m))  # rho ~ B/d_model at B = d_model, against c_2 / log m
    v2 = limit_verdict(rho_at_d, F.m, expect="bounded", ctx=ctx)
    out = combine_verdicts([v1, v2], paper_value="Corollary B.6: Theorem B.5 holds for B <= c d_model/log m, and B = Theta(d_model) "
                           "gives D_K = Theta(m log m / d_model)")
    if out.status is Status.REFUTED:
        return Verdict(Status.REFUTED, paper_value=out.paper_value,
                       measured_value={"gamma / (c_3/log m) at B = d/log m": v1.measured_value,
                                       "rho / (c_2/log m) at B = d_model": v2.measured_value},
                       witness={"B = c d_model / log m": "gamma ~ sqrt(c / log m) >> c_3 / log m",
                                "B = d_model": "rho ~ 1 >> c_2 / log m"},
                       params={"evidence_level": "symbolic-proof"}, evidence="sympy limits of the stated bounds over the hypotheses",
                       details="With the corollary's own bounds rho ~ B/d, gamma ~ sqrt(B/d), Theorem B.5's hypotheses "
                               "need B <= c d_model / log^2 m, giving D_K = O(m log^3 m / d_model) through Theorem B.5; "
                               "the Theta(m log m / d_model) claim rests on the specialised proof of App. B.2 instead.")
    return out


def _b6_budget(ctx: CheckContext) -> Verdict:
    lo = inequality_verdict(F.DK_gun(), ">=", F.DK_construction_ii(), variables=[_M, _D, Var(F.C, 1, 10)], ctx=ctx,
                            constraints=[lambda pt: pt["d_model"] <= pt["m"]])
    hi = inequality_verdict(F.DK_gun(), "<=", 2 * F.DK_construction_ii(), variables=[_M, _D, Var(F.C, 1, 10)], ctx=ctx,
                            constraints=[lambda pt: pt["d_model"] <= pt["m"]])
    return combine_verdicts([lo, hi], paper_value="B = d_model: h = Theta(m/d_model), D_K = Theta(m log m / d_model)")


def _b7_block(ctx: CheckContext) -> Verdict:
    pB = sp.log(F.m) / F.d_model
    Bv = F.d_model / sp.log(F.m)
    v1 = identity_verdict(Bv / F.d_model, 1 / sp.log(F.m), variables=[_M, _D], ctx=ctx)
    v2 = identity_verdict(Bv * pB**2, sp.log(F.m) / F.d_model, variables=[_M, _D], ctx=ctx)
    Kc = sp.Symbol("K", positive=True)
    hyp = limit_verdict((sp.log(F.m) / F.d_model / (1 / sp.log(F.m))).subs(F.d_model, Kc * sp.log(F.m)), F.m,
                        expect="bounded", ctx=ctx)
    out = combine_verdicts([v1, v2, hyp], paper_value="B = Theta(d_model/log m) gives rho <~ 1/log m, gamma <~ log m/d_model, "
                           "and Theorem B.5 applies")
    if out.status is Status.REFUTED:
        return Verdict(Status.REFUTED, paper_value=out.paper_value,
                       measured_value={"gamma / (c_3/log m) along d_model = K log m": hyp.measured_value},
                       witness={"d_model": "K log m (allowed: p_B = Theta(log m/d_model) <= 1)", "gamma": "~ 1/K",
                                "needed": "<= c_3 / log m"},
                       params={"evidence_level": "symbolic-proof"}, evidence="sympy identities and limit",
                       details="gamma <~ log m / d_model meets Theorem B.5's gamma <= c_3/log m only when "
                               "d_model >= (log m)^2 / c_3, an assumption Corollary B.7 does not state.")
    return out


def _b7_budget(ctx: CheckContext) -> Verdict:
    h_ = F.m / (F.d_model / sp.log(F.m))
    v1 = identity_verdict(h_, F.m * sp.log(F.m) / F.d_model, variables=[_M, _D], ctx=ctx)
    v2 = identity_verdict(h_ * F.C * sp.log(F.m), F.DK_rbce(), variables=[_M, _D, Var(F.C, 1, 10)], ctx=ctx)
    return combine_verdicts([v1, v2], paper_value="h = Theta(m log m / d_model), D_K = Theta(m log^2 m / d_model)")


def _b7_square_le_sum(ctx: CheckContext) -> Verdict:
    return exhaustive_verdict(lambda c: c["n"] ** 2 <= c["n"], ({"n": n} for n in range(0, 65)),
                              domain="inner products n = <x_i, x_s> in {0, ..., 64} of binary vectors",
                              paper_value="sum_s <x_i, x_s>^2 <= sum_s <x_i, x_s> for binary embeddings",
                              details="For a nonnegative integer n, n^2 >= n with equality only at 0 and 1: the printed "
                                      "inequality is reversed as soon as two binary rows share two active features.")


def _b7_means(ctx: CheckContext) -> Verdict:
    p = sp.Symbol("p_B", positive=True)
    dd = 3  # exact enumeration over three binary rows of length 3
    e_inner, e_cross = 0, 0
    for xi in itertools.product((0, 1), repeat=dd):
        for xj in itertools.product((0, 1), repeat=dd):
            for xa in itertools.product((0, 1), repeat=dd):
                prob = sp.Mul(*[p if v else 1 - p for v in xi + xj + xa])
                a_i = sum(u * v for u, v in zip(xi, xa))
                a_j = sum(u * v for u, v in zip(xj, xa))
                e_inner += prob * a_i
                e_cross += prob * a_i * a_j
    e_inner, e_cross = sp.expand(e_inner), sp.expand(e_cross)
    v_mean = identity_verdict(e_inner, dd * p**2, variables=[Var(p, 0.01, 0.99)], ctx=ctx)
    v_exact = identity_verdict(e_cross, dd * p**3 + dd * (dd - 1) * p**4, variables=[Var(p, 0.01, 0.99)], ctx=ctx)
    v_fact = identity_verdict(e_cross, (dd * p**2) ** 2, variables=[Var(p, 0.01, 0.99)], ctx=ctx,
                              paper_value="E<x_i, x_a><x_j, x_a> = E<x_i, x_a> E<x_j, x_a> (as used for gamma)")
    out = combine_verdicts([v_mean, v_exact, v_fact], paper_value="E<x_i,x_s> = d p_B^2 and E sum_a delta_i(a) delta_j(a) = "
                           "(|S|/mu^2) E<x_i,x_a> E<x_j,x_a>",
                           details="Exact over all 2^9 outcomes (d_model = 3): the two inner products share x_a, so the "
                                   "expectation is d p^3 + d(d-1) p^4, not (d p^2)^2. The conclusion gamma <~ B p_B^2 "
                                   "survives (the excess is a factor 1 + (1-p)/(d p) <= 2 when d p_B >= 1).")
    # The reading "up to a constant factor" (the corollary's <~): d p^3 + d(d-1) p^4 <= 2 (d p^2)^2 once d p >= 1,
    # which p_B = Theta(log m / d_model) gives.
    dv = sp.Symbol("d", positive=True)
    g = 2 * (dv * p**2) ** 2 - (dv * p**3 + dv * (dv - 1) * p**4)
    up_to = inequality_verdict(dv * p**3 + dv * (dv - 1) * p**4, "<=", 2 * (dv * p**2) ** 2,
                               variables=[Var(dv, 1, 1e4, log=True), Var(p, 1e-4, 0.99, log=True)], ctx=ctx,
                               constraints=[lambda pt: pt["d"] * pt["p_B"] >= 1],
                               proof=lambda: ("2 d^2 p^4 - d p^3 - d(d-1) p^4 = d p^3 (d p + p - 1) >= 0 when d p >= 1"
                                              if sp.expand(g - dv * p**3 * (dv * p + p - 1)) == 0 else None))
    if out.status is Status.REFUTED:
        return with_readings(out, ["binary rows with i.i.d. Bernoulli(p_B) entries, p_B in (0, 1)",
                                   "three distinct rows x_i, x_j, x_a (exact enumeration at d_model = 3)"],
                             {"exact equality (the printed '=')": f"{FAILS}: E = d p^3 + d(d-1) p^4, not d^2 p^4",
                              "up to a constant factor (the printed '<~'), d_model p_B >= 1":
                                  f"{HOLDS if up_to.status is Status.VERIFIED else FAILS}: "
                                  "d p^3 + d(d-1) p^4 <= 2 (d p^2)^2"})
    return out


# ----------------------------------------------------------------------------------------------- App. B.4
def _lemb8_counting(ctx: CheckContext) -> Verdict:
    def cases():
        for dd in range(1, 6):
            for dl in range(1, 5):
                for sizes in itertools.product(range(0, 2 * dd + 2), repeat=dl):
                    yield {"d_model": dd, "sizes": sizes}

    def ok(case):
        dd, sizes = case["d_model"], case["sizes"]
        lhs = sum(-(-a // dd) for a in sizes)
        total = -(-sum(sizes) // dd)
        return lhs <= total + len(sizes) and lhs <= total + len(sizes) - 1

    return exhaustive_verdict(ok, cases(), domain="d_model <= 5, Delta <= 4 colour classes of size <= 2 d_model + 1",
                              paper_value="sum_c ceil(|F_c|/d_model) <= ceil(m'/d_model) + Delta",
                              details="Holds, and even with Delta - 1 (each ceiling adds less than 1).")


def _lemb8_budget(ctx: CheckContext) -> Verdict:
    Mp = Var(F.mp, 1, 1e6, integer=True, log=True)
    Dl = Var(F.Delta, 1, 1e4, integer=True, log=True)
    v = inequality_verdict(F.heads_lemma_b8(), "<=", 2 * (F.mp / F.d_model + F.Delta), variables=[Mp, _D, Dl], ctx=ctx)
    return combine_verdicts([v], paper_value="D_K = H C log m = O(m' log m / d_model + Delta log m)")


def _b9_events(ctx: CheckContext) -> Verdict:
    def cases():
        for dd in range(1, 6):
            for k in range(1, 4):
                for sizes in itertools.product(range(0, dd + 1), repeat=k):
                    yield {"d_model": dd, "sizes": sizes}

    return exhaustive_verdict(lambda c: sum(a * a for a in c["sizes"]) <= c["d_model"] * sum(c["sizes"]), cases(),
                              domain="d_model <= 5, up to 3 matchings of size <= d_model",
                              paper_value="sum_k |M_k|^2 <= d_model sum_k |M_k| = d_model m'",
                              details="Proof: |M_k|^2 <= d_model |M_k| since |M_k| <= d_model.")


def _eq33_forms(ctx: CheckContext) -> Verdict:
    davg = F.mp / F.m
    Dl = Var(F.Delta, 1, 1e3, integer=True, log=True)
    ratio = identity_verdict((F.Delta / davg) / (F.m / F.d_model), F.Delta / (F.mp / F.d_model),
                             variables=[_M, Var(F.mp, 1, 1e6, integer=True, log=True), _D, Dl], ctx=ctx)
    reg = identity_verdict((F.r / (F.r * F.m / F.m)) - F.m / F.d_model, 1 - F.m / F.d_model,
                           variables=[_M, _D, Var(F.r, 1, 64, integer=True)], ctx=ctx)
    return combine_verdicts([ratio, reg], paper_value="(33): Delta/d_avg <= m/d_model <=> Delta <= m'/d_model; r-regular graphs "
                            "satisfy it", details="For r-regular graphs (33) reads 1 <= m/d_model: automatic in the "
                                                  "compressive setting d_model <= m (our reading), false for d_model > m.")


def _b10_heads(ctx: CheckContext) -> Verdict:
    Mp = Var(F.mp, 1, 1e6, integer=True, log=True)
    Dl = Var(F.Delta, 1, 1e4, integer=True, log=True)
    cons = [lambda pt: pt["Delta"] <= pt["m'"] / pt["d_model"]]
    v = inequality_verdict(F.heads_lemma_b8(), "<=", sp.ceiling(F.mp / F.d_model), variables=[Mp, _D, Dl], ctx=ctx,
                           constraints=cons,
                           paper_value="Corollary B.10 is immediate from Theorem B.9 with h_0 = ceil(m'/d_model) heads",
                           details="Lemma B.8 (and so Theorem B.9) uses H = ceil(m'/d_model) + Delta matchings, more "
                                   "than h_0. Under (33) h_0 >= Delta, and an equitable edge colouring (de Werra) "
                                   "does give h_0 matchings of size <= d_model, but that is a different lemma.")
    # Reading "h_0 up to a constant factor" (what the D_K = Theta(...) conclusion needs): (33) gives H <= 2 h_0.
    theta = inequality_verdict(F.heads_lemma_b8(), "<=", 2 * sp.ceiling(F.mp / F.d_model), variables=[Mp, _D, Dl],
                               ctx=ctx, constraints=cons)
    if v.status is Status.REFUTED:
        return with_readings(v, ["(33): Delta <= m'/d_model", "m', d_model, Delta positive integers"],
                             {"exactly h_0 = ceil(m'/d_model) heads from Theorem B.9's construction (Lemma B.8)":
                                  f"{FAILS}: Lemma B.8 gives ceil(m'/d_model) + Delta",
                              "h_0 up to a constant factor (enough for D_K = Theta(m' log m / d_model))":
                                  f"{HOLDS if theta.status is Status.VERIFIED else FAILS}: "
                                  "ceil(m'/d_model) + Delta <= 2 ceil(m'/d_model) under (33)"})
    return v


def _b10_theta(ctx: CheckContext) -> Verdict:
    # A matching of m' = d_model = 8 log m edges (Delta = 1) satisfies (33) and d_model >= c_0 log m.
    dd = 8 * sp.log(F.m)
    dk_total = F.C * sp.log(F.m)  # h_0 = 1 head of width C log m
    ratio = dk_total / (dd * sp.log(dd) / dd)
    v = limit_verdict(ratio.subs(F.C, 1), F.m, expect="finite-positive", ctx=ctx,
                      paper_value="Corollary B.10: D_K = Theta(m' log m' / d_model)")
    if v.status is Status.REFUTED:
        return Verdict(Status.REFUTED, paper_value=v.paper_value, measured_value=v.measured_value,
                       witness={"graph": "a matching of m' = d_model edges (Delta = 1)", "d_model": "8 ln m",
                                "D_K": "C log m", "m' log m' / d_model": "log(8 log m)"},
                       params=v.params, evidence=v.evidence,
                       details="The construction's D_K is ceil(m'/d) C log m = Theta(m' log m / d_model); it equals "
                               "Theta(m' log m'/d_model) only when log m' = Theta(log m), i.e. m' >= m^eps.")
    return v


def _b10_lower(ctx: CheckContext) -> Verdict:
    e = F.eps
    ratio = (F.mp / F.d_model * F.C * sp.log(F.m)) / F.lower_bound_rate()
    along = sp.simplify(ratio.subs(F.mp, F.m ** (2 - e)))
    v = limit_verdict(along.subs({e: sp.Rational(1, 2), F.C: 1}), F.m, expect="finite-positive", ctx=ctx)
    v2 = identity_verdict(sp.expand_log(along, force=True), F.C / e, variables=[_M, Var(e, 0.05, 1.95), Var(F.C, 1, 10)],
                          ctx=ctx, simplifier=lambda z: sp.simplify(sp.expand_log(z, force=True)))
    return combine_verdicts([v, v2], paper_value="Corollary B.10 matches the lower bound when m' = O(m^(2-eps))",
                            details="Along m' = m^(2-eps): D_K / ((m'/d) log(m^2/m')) = C/eps.")


def _construction_cost(ctx: CheckContext) -> Verdict:
    # Construction IV writes 2 d_model D_K >= 2 m' C log m weights; compare with m d_model log m.
    out_size = 2 * F.d_model * F.DK_construction_iv(Cc=1)
    ratio = (out_size / (F.m * F.d_model * sp.log(F.m))).subs({F.mp: F.m * (F.m - 1) / 2, F.Delta: F.m - 1,
                                                                F.d_model: 8 * sp.log(F.m)})
    ratio = ratio.replace(sp.ceiling, lambda z: z)  # ceil(x) >= x: a lower bound of the output size
    v = limit_verdict(ratio, F.m, expect="bounded", ctx=ctx,
                      paper_value="App. B: every constructive algorithm runs in O(m d_model log m)")
    if v.status is Status.REFUTED:
        return Verdict(Status.REFUTED, paper_value=v.paper_value, measured_value=v.measured_value,
                       witness={"graph": "m' = m(m-1)/2 edges (e.g. a tournament), Delta = m - 1", "d_model": "8 ln m",
                                "output entries": ">= 2 m' C log m"},
                       params=v.params, evidence=v.evidence + " (of a lower bound on the output size)",
                       details="Construction IV must write its 2 d_model D_K weights, at least 2 m' C log m numbers, "
                               "which is not O(m d_model log m) once m' = omega(m d_model). The claim holds for "
                               "Constructions I-III (m' = m).")
    return v


CLAIMS = (
    _claim("thmb1-sym-means-threshold", "Theorem B.1", "Bernoulli(p) keys give S_true ~ Bin(d_k, p), S_ij ~ "
           "Bin(d_k, p^2), and tau = (p + p^2) d_k / 2 is their midpoint.", _b1_means),
    _claim("thmb1-sym-chernoff-exponents", "Theorem B.1", "delta_1 = (1-p)/2 and delta_2 = (1-p)/(2p) give the "
           "exponents c_1 = p(1-p)^2/8 and c_2 = p(1-p)^2/(2(1+3p)).", _b1_exponents),
    _claim("thmb1-sym-chernoff-tails-exact", "Theorem B.1", "The two Chernoff bounds hold against the exact binomial "
           "tails.", _b1_chernoff_exact),
    _claim("thmb1-sym-union-constant", "Theorem B.1", "C > max{3/c_1, 2/c_2} with d_k = C log m makes the union bound "
           "m e^{-c_1 d_k} + m^2 e^{-c_2 d_k} at most m^-3.", _b1_union),
    _claim("thmb1-sym-union-constant-corrected", "Theorem B.1", "A corrected constant C >= max{(4 + log2/log m)/c_1, "
           "(5 + log2/log m)/c_2} gives failure probability <= m^-3.", _b1_union_fixed,
           notes="Our correction, recorded so the repaired statement is checked too."),
    _claim("thmb1-sym-tightness", "Theorem B.1", "At d_model = m' = m the lower bound is Omega(log m) and the "
           "construction uses d_k = O(log m).", _b1_tight),
    _claim("thmb2-sym-score-decomposition", "Theorem B.2", "S_ij^(k) = Signal + N_1 + N_2 + N_3 exactly.",
           _b2_decomposition),
    _claim("thmb2-sym-n3-mean", "Theorem B.2", "E[N_3 | X] = d_k sum_{a in T_k} delta_{i,pi^-1(a)} delta_{j,a} under "
           "Rademacher signatures.", _b2_n3_mean),
    _claim("thmb2-sym-n1-n2-means", "Theorem B.2", "Given X, N_1 and N_2 are sums of d_k i.i.d. mean-zero terms "
           "(Rademacher signatures).", _b2_n1_n2_means),
    _claim("lemb3-sym-leakage-identity", "Lemma B.3", "||delta_{i,S}||^2 equals sum_{s in S} <x_i, x_s>^2 for both "
           "S = V_k minus i and S = T_k.", _lemb3_leakage_identity),
    _claim("lemb3-sym-second-moment", "Lemma B.3", "<x_i, x_s>^2 has mean 1/d_model, so the leakage mass over "
           "d_model items has mean 1 < C_2 = 2.", _lemb3_second_moment),
    _claim("lemb3-sym-union-bounds", "Lemma B.3", "The union bounds of Lemma B.3 (item 2) and of the Signal term close "
           "with explicit constants (c_0 = 7/c, C_star = sqrt(18)).", _lemb3_union),
    _claim("thmb2-sym-separation", "Theorem B.2", "With both noise constants <= 1/16, S_true > 3/4 d_k > tau and "
           "|S_ij| < 1/4 d_k < tau; the constants are feasible.", _b2_separation),
    _claim("thmb2-sym-budget-matches-lower-bound", "Theorem B.2", "D_K = O(m log m / d_model) is within a constant of "
           "the lower bound for permutation graphs.", _b2_budget),
    _claim("thmb5-sym-signal-gap", "Theorem B.5", "mu_1 - mu_2 = (p - p^2) d_k, and 3/4 gap of signal minus 1/4 gap of "
           "noise lands exactly on tau.", _b5_gap),
    _claim("thmb5-sym-budget", "Theorem B.5", "ceil(m/B) C log m = Theta(m log m / B).", _b5_budget),
    _claim("thmb5-sym-bernoulli-noise-mean", "Theorem B.5", "Under Definition B.4's conditions with rho, gamma <= "
           "c/log m, Bernoulli(p) signatures keep every non-edge below tau.", _b5_bernoulli_mean,
           notes="Witness: an explicit PSD Gram matrix with uniform positive leakage; any c > 0."),
    _claim("corb6-sym-hypotheses", "Corollary B.6", "The stated GUN bounds rho <~ B/d, gamma <~ sqrt(B/d) meet Theorem "
           "B.5's hypotheses at B <= c d_model/log m, and B = Theta(d_model) is admissible.", _b6_conditions),
    _claim("corb6-sym-budget", "Corollary B.6", "With B = d_model, D_K = ceil(m/d_model) C log m = Theta(m log m/d_model).",
           _b6_budget),
    _claim("corb7-sym-block-conditions", "Corollary B.7", "B = Theta(d_model/log m) gives rho <~ 1/log m and gamma <~ "
           "log m/d_model, which meet Theorem B.5's hypotheses.", _b7_block,
           notes="The corollary states no lower bound on d_model beyond p_B <= 1."),
    _claim("corb7-sym-budget", "Corollary B.7", "h = Theta(m log m/d_model) and D_K = Theta(m log^2 m / d_model).",
           _b7_budget),
    _claim("corb7-sym-square-le-sum", "Corollary B.7", "For binary embeddings sum <x_i,x_s>^2 <= sum <x_i,x_s>.",
           _b7_square_le_sum),
    _claim("corb7-sym-expectations", "Corollary B.7", "E<x_i,x_s> = d p_B^2 and the cross-leakage expectation factorises "
           "into a product of means.", _b7_means),
    _claim("lemb8-sym-counting", "Lemma B.8", "sum_c ceil(|F_c|/d_model) <= ceil(m'/d_model) + Delta.", _lemb8_counting),
    _claim("lemb8-sym-budget", "Lemma B.8", "H = ceil(m'/d_model) + Delta <= 2(m'/d_model + Delta), so D_K = "
           "O(m' log m/d_model + Delta log m).", _lemb8_budget),
    _claim("thmb9-sym-event-count", "Theorem B.9", "The union bound's event count is sum_k |M_k|^2 <= d_model m'.",
           _b9_events),
    _claim("eq33-sym-equivalent-forms", "Eq. (33)", "Delta/d_avg <= m/d_model is equivalent to Delta <= m'/d_model, "
           "and holds for r-regular graphs.", _eq33_forms, notes="Reading: d_model <= m (the compressive setting)."),
    _claim("corb10-sym-heads-from-theorem-b9", "Corollary B.10", "Under (33), Theorem B.9's decomposition needs only "
           "h_0 = ceil(m'/d_model) heads.", _b10_heads),
    _claim("corb10-sym-theta-log-m-prime", "Corollary B.10", "Under (33) the construction has D_K = "
           "Theta(m' log m' / d_model).", _b10_theta),
    _claim("corb10-sym-matches-lower-bound", "Corollary B.10", "For m' = O(m^(2-eps)) the budget matches the lower "
           "bound up to a constant.", _b10_lower),
    _claim("appb-sym-construction-cost", "App. B", "All constructive algorithms run in O(m d_model log m) time.",
           _construction_cost),
)
