"""App. B.3: Construction III (Definition B.4, Algorithm 4, Theorem B.5).

The incoherence parameters of Definition B.4 (exact by brute force on small instances), Algorithm 4's layout,
Theorem B.5's budget and limit separation, and its algebra (symbolic). Corollaries B.6-B.7 are in
:mod:`.construction3_corollaries`.
"""

from __future__ import annotations

import itertools
import math
from functools import lru_cache

import numpy as np
import sympy as sp
from hypothesis import strategies as st

from ...core import formulas as F
from ...models.constructions import algorithm4
from ...core.embeddings import binary_compressive_embeddings, gaussian_unit_norm_embeddings
from ...core.graphs import random_permutation_graph
from ...analysis.measurements import limit_score_matrix, noise_terms, restricted_self_incoherence, separation_margins
from ...core.strategies import seeds
from ..base import CheckContext, Claim, Kind, Stated, Status, Tier, Verdict, jsonable
from ..standards import decide
from ..symbolic import Var, combine_verdicts, identity_verdict, inequality_verdict, limit_verdict
from ..tools import outcome, recorded
from ..tools import FAILS, VAR_D_K, VAR_M, VAR_P, property_verdict, symbolic_claim, with_readings

__all__ = ["CLAIMS", "ORDER"]

ORDER = 113


def _brute_incoherence(X, B, mu):
    m = X.shape[0]
    U = X @ X.T / mu
    D = U - np.eye(m)
    rho = 0.0
    for i in range(m):
        others = [s for s in range(m) if s != i]
        for size in range(1, min(B, len(others)) + 1):
            for S in itertools.combinations(others, size):
                rho = max(rho, float(sum(D[i, s] ** 2 for s in S)))
    gamma = 0.0
    for i in range(m):
        for j in range(m):
            for size in range(1, min(B, m) + 1):
                for S in itertools.combinations(range(m), size):
                    gamma = max(gamma, abs(float(sum(D[i, a] * D[j, a] for a in S))))
    return float(np.abs(np.diag(U) - 1).max()), rho, gamma


def _check_defb4_exact(ctx: CheckContext) -> Verdict:
    def prop(ex):
        m, d, B, seed, binary = ex
        r = np.random.default_rng(seed)
        X = binary_compressive_embeddings(m, d, 0.5, rng=r) if binary else gaussian_unit_norm_embeddings(m, d, rng=r)
        ip = restricted_self_incoherence(X, B)
        eps, rho, gamma = _brute_incoherence(X, B, ip.mu)
        for name, a, b in (("eps_d", ip.eps_d, eps), ("rho", ip.rho, rho), ("gamma", ip.gamma, gamma)):
            assert abs(a - b) <= 1e-10, f"{name}: sort gives {a}, brute force gives {b}"
        return None

    strat = st.tuples(st.integers(2, 6), st.integers(1, 4), st.integers(1, 3), seeds(), st.booleans())
    return property_verdict(prop, strat, ctx=ctx, max_examples=30,
                            paper_value="(eps_d, rho, gamma) of Definition B.4 (max over subsets |S| <= B)")


def _check_alg4_layout(ctx: CheckContext) -> Verdict:
    strat = st.tuples(st.integers(2, 30), st.integers(1, 12), st.integers(1, 10), st.integers(1, 12),
                      st.floats(0.005, 0.05), seeds())

    def prop(ex):
        m, d, d_k, B, p, seed = ex
        r = np.random.default_rng(seed)
        g = random_permutation_graph(m, rng=r)
        X = binary_compressive_embeddings(m, d, 0.5, rng=r)
        c = algorithm4(g, X, d_k=d_k, block_size=B, rng=r, p=p)
        mu = float(np.mean(np.sum(X * X, axis=1)))
        assert c.n_heads == math.ceil(m / B), f"h = {c.n_heads}"
        assert np.allclose(c.X_inv, X.T / mu), "X_inv != X^T / mu"
        assert math.isclose(c.tau, (p + p * p) * d_k * ctx.expect("tau_half")), "tau"
        srcs = np.concatenate([c.sources(k) for k in range(c.n_heads)])
        assert np.array_equal(np.sort(srcs), np.arange(m)), "V_k do not partition V"
        for k in range(c.n_heads):
            assert len(c.sources(k)) <= B and np.array_equal(c.targets(k), g.perm[c.sources(k)]), "T_k != pi(V_k)"
            WQp, WKp = c.templates(k)
            assert np.allclose(c.W_Q[k], c.X_inv @ WQp) and np.allclose(c.W_K[k], c.X_inv @ WKp), "W != X_inv W'"
        return None

    return property_verdict(prop, strat, ctx=ctx, max_examples=30,
                            paper_value="W^(k) = X_inv W'^(k), X_inv = X^T / mu, h = ceil(m / B), |V_k| <= B")


def _bernoulli_limit_scores(c):
    """d_k -> infinity limit of S_max / d_k for Bernoulli(p) signatures (an m x m matrix)."""
    p = c.p
    U = c.X @ c.X_inv
    out = np.full((c.m, c.m), -np.inf)
    for blk in c.blocks:
        src, tgt = blk[:, 0], blk[:, 1]
        a = U[:, src].sum(1)
        b = U[:, tgt].sum(1)
        lim = p * p * np.outer(a, b) + (p - p * p) * (U[:, src] @ U[:, tgt].T)
        out = np.maximum(out, lim)
    return out


_B5_SIZES = ((256, 128), (256, 256), (384, 384))  # (m, d_model): larger d_model admits larger B (rho ln m <= 1)


@lru_cache(maxsize=4)
def _b5_limit_measure(seed: int):
    """Per size and block size: the Definition B.4 parameters and Algorithm 4's construction (independent of the
    stated values; cached so that mutants only re-judge)."""
    out = []
    for n, (m, d) in enumerate(_B5_SIZES):
        r = np.random.default_rng(np.random.SeedSequence([seed, 0, n]) if n else np.random.SeedSequence([seed, 0]))
        g = random_permutation_graph(m, rng=r)
        X = gaussian_unit_norm_embeddings(m, d, rng=r)
        for B in (1, 2, 4, 8, 16, 32):
            ip = restricted_self_incoherence(X, B, with_gamma=False)
            if ip.rho * math.log(m) <= 1:  # gamma (O(m^3)) only matters where rho already meets the hypothesis
                ip = restricted_self_incoherence(X, B)
            c = algorithm4(g, X, d_k=1, block_size=B, rng=r, p=0.05)
            rad = None
            if not math.isnan(ip.gamma):  # admissible candidates only: the Rademacher variant (App. B.3, "Signature family")
                cr = algorithm4(g, X, d_k=1, block_size=B, rng=r, signatures="rademacher")
                rad = (cr, limit_score_matrix(cr))  # judged at the stated tau = d_k/2 by the check
            out.append((m, d, B, ip, c, _bernoulli_limit_scores(c), rad))
    return out


def b5_rate_record(n_instances: int) -> dict:
    """What the instances of thmb5-limit-separation / thmb5-rademacher-signatures-verbatim support about Theorem B.5's
    'with probability >= 1 - m^-3 over W_sig (and the draw of X if random)'. For a fixed admissible X (the theorem's
    hypothesis is a property of X) a positive d_k -> infinity limit margin eta gives, by the law of large numbers with
    sub-Gaussian tails and a union bound over the m^2 pairs, a failure rate over W_sig below m^-3 once C is large:
    exact per X, no sample of W_sig involved. 'Every admissible X' rests on the instances drawn (level sampled).
    Over a random X the clean instances certify only the rate below (probability-bound standard), so the claims are
    scoped to the drawn X and do not judge that reading."""
    from ..standards.probability import decide_failure_rate

    d = decide_failure_rate(0, max(1, n_instances), 0.5)
    return {"per_X": "exact: a positive limit margin gives failure rate over W_sig <= m^-3 for a large enough C",
            "admissible_instances": n_instances,
            "random_X_reading": f"not judged: {n_instances} clean instances certify a rate over X <= {d['upper']:.3g} "
                                "only (false alarm 1e-6)"}


def _check_b5_limit(ctx: CheckContext) -> Verdict:
    rows, bad = [], []
    for m, d, B, ip, c, lim, _ in _b5_limit_measure(int(ctx.seed)):
        mg = separation_margins(c, scores=lim, tau=(c.p + c.p * c.p) * ctx.expect("tau_half"), max_failures=3)
        row = {"m": m, "d_model": d, "B": B, "eps_d": ip.eps_d, "rho_ln_m": ip.rho * math.log(m),
               "gamma_ln_m": ip.gamma * math.log(m) if not math.isnan(ip.gamma) else None,
               "limit_margin_over_dk": mg.margin, "limit_best_margin_over_dk": mg.best_margin}
        rows.append(row)
        if row["rho_ln_m"] <= 1 and row["gamma_ln_m"] is not None and row["gamma_ln_m"] <= 1 and mg.margin <= 0:
            bad.append(row)
    hyp = [r_ for r_ in rows if r_["rho_ln_m"] <= 1 and r_["gamma_ln_m"] is not None and r_["gamma_ln_m"] <= 1]
    # a pass is the limit separating on each drawn admissible X: exact per X (no sample of W_sig), a few instances
    # of 'every admissible X' (level sampled): holds-empirically at most, never verified
    status = decide(len(hyp) >= 2 and not bad, bool(bad))
    return Verdict(status=status,
                   paper_value="rho, gamma <= c/log m (and eps_d <= c1) => Algorithm 4 separates for large C",
                   measured_value=f"{len(hyp)} (size, block size) pairs meet rho ln m, gamma ln m <= 1 "
                                  f"({[(r_['m'], r_['d_model'], r_['B']) for r_ in hyp]}); limit margin > 0 at all of "
                                  f"them: {not bad}; negative limit margin at (m, d_model, B) = "
                                  f"{[(r_['m'], r_['d_model'], r_['B']) for r_ in rows if r_['limit_margin_over_dk'] <= 0]}",
                   witness=bad or None, params={"sizes": _B5_SIZES, "p": 0.05, "reading": "c1 = c2 = c3 = 1",
                                                "probability": b5_rate_record(len(hyp))},
                   details=jsonable(rows), evidence="exact d_k -> infinity limit of S / d_k (law of large numbers) "
                   "and exact Definition B.4 parameters on one Gaussian unit-norm X per size",
                   evidence_level="sampled")


def _check_b5_decomposition(ctx: CheckContext) -> Verdict:
    strat = st.tuples(st.integers(2, 24), st.integers(1, 12), st.integers(1, 6), st.integers(1, 12),
                      st.sampled_from(["gun", "rbce"]), seeds())

    def prop(ex):
        m, d, d_k, B, fam, seed = ex
        r = np.random.default_rng(seed)
        X = (gaussian_unit_norm_embeddings(m, d, rng=r) if fam == "gun"
             else binary_compressive_embeddings(m, d, 0.5, rng=r))
        if not np.any(X):
            return None
        c = algorithm4(random_permutation_graph(m, rng=r), X, d_k=d_k, block_size=min(B, m), rng=r)
        worst = 0.0
        for k in range(c.n_heads):
            t = noise_terms(c, k)
            worst = max(worst, float(np.abs(t["S"] - t["Signal"] - t["N1"] - t["N2"] - t["N3"]).max()))
        scale = max(1.0, float(np.abs(c.X @ c.X_inv).max()) ** 2 * d_k * m)
        assert worst <= 1e-9 * scale, f"residual {worst:.3g}"
        return {"max_residual": worst}

    return property_verdict(prop, strat, ctx=ctx, max_examples=30,
                            paper_value="Theorem B.5 proof: 'As in Construction II', S^(k) = Signal + N1 + N2 + N3 with "
                                        "u_t = e_t + delta_t, here u = x X_inv, X_inv = X^T / mu")


def _check_b5_rademacher(ctx: CheckContext) -> Verdict:
    tau = ctx.expect("tau_half")
    rows = [{"m": m, "d_model": d, "B": B, "rho_ln_m": ip.rho * math.log(m), "gamma_ln_m": ip.gamma * math.log(m),
             "rademacher_limit_margin": separation_margins(rad[0], scores=rad[1], tau=tau, max_failures=3).margin}
            for m, d, B, ip, _c, _lim, rad in _b5_limit_measure(int(ctx.seed)) if rad is not None]
    hyp = [r_ for r_ in rows if r_["rho_ln_m"] <= 1 and r_["gamma_ln_m"] <= 1]
    bad = [r_ for r_ in hyp if r_["rademacher_limit_margin"] <= 0]
    status = decide(len(hyp) >= 2 and not bad, bool(bad))  # as _check_b5_limit: exact per X, instances sampled
    v = Verdict(status=status, paper_value="App. B.3 'Signature family': Rademacher signatures with tau = d_k/2; all "
                "bounds translate verbatim with the same B",
                measured_value=f"{len(hyp)} admissible (m, d_model, B) (rho ln m, gamma ln m <= 1); Rademacher limit "
                               f"margin > 0 at all: {not bad} (min {min((r_['rademacher_limit_margin'] for r_ in hyp), default=None)})",
                witness=bad or None, params={"sizes": _B5_SIZES, "reading": "c1 = c2 = c3 = 1",
                                             "probability": b5_rate_record(len(hyp))}, details=jsonable(rows),
                evidence="exact d_k -> infinity limit (law of large numbers) on one X per size, drawn as in "
                         "thmb5-limit-separation",
                evidence_level="sampled")
    if status is Status.REFUTED:
        return with_readings(v, ["rho ln m <= 1 and gamma ln m <= 1 (c2 = c3 = 1)", "Gaussian unit-norm X",
                                 "Rademacher signatures, tau = d_k / 2"], {"c2 = c3 = 1": f"{FAILS}: {v.measured_value}"})
    return v


def _check_b5_budget(ctx: CheckContext) -> Verdict:
    p_b = ctx.expect("block_power")

    def prop(ex):
        m, d, d_k, B, seed = ex
        r = np.random.default_rng(seed)
        c = algorithm4(random_permutation_graph(m, rng=r), gaussian_unit_norm_embeddings(m, d, rng=r), d_k=d_k,
                       block_size=B, rng=r)
        assert c.D_K == math.ceil(m / B) * d_k, f"D_K = {c.D_K}"
        ratio = c.D_K / ((m / B) ** p_b * d_k)  # Theta(m log m / B) at d_k = Theta(log m)
        assert 1 <= ratio < 1 + B / m + 1e-12, f"D_K / (m d_k / B) = {ratio}"
        return None

    return property_verdict(prop, st.tuples(st.integers(2, 40), st.integers(1, 8), st.integers(1, 6),
                                            st.integers(1, 40), seeds()), ctx=ctx, max_examples=30,
                            paper_value="D_K = h d_k = Theta(m log m / B)")


def _b5_gap(ctx: CheckContext) -> Verdict:
    p = F.p
    dlt = (p - p**2) * F.d_k
    v1 = identity_verdict(F.b1_mu1() - F.b1_mu2(), dlt, variables=[VAR_P, VAR_D_K], ctx=ctx)
    sig, noise = sp.nsimplify(ctx.expect("signal_fraction")), sp.nsimplify(ctx.expect("noise_fraction"))
    v2 = identity_verdict(F.b1_mu2() + sig * dlt - noise * dlt, F.b1_tau(), variables=[VAR_P, VAR_D_K], ctx=ctx)
    return combine_verdicts([v1, v2], paper_value="mu_1 - mu_2 = (p - p^2) d_k; signal > 3/4 gap above mu_2 and noise < 1/4 gap "
                            "put the target above tau = mu_2 + gap/2",
                            details="The two strict inequalities meet exactly at tau: no slack is left.")


def _b5_budget(ctx: CheckContext) -> Verdict:
    Bv = Var(F.B, 1, 1e5, integer=True, log=True)
    cons = [lambda pt: pt["B"] <= pt["m"]]
    # Theta(m log m / B): the budget over (m/B)^a (log m)^b within [1, 2] (C = 1; the C cancels)
    DK = F.DK_construction_iii(Cc=1)
    stated = (F.m / F.B) ** sp.nsimplify(ctx.expect("block_power")) * sp.log(F.m) ** sp.nsimplify(ctx.expect("log_power"))
    lo = inequality_verdict(DK, ">=", stated, variables=[VAR_M, Bv], ctx=ctx, constraints=cons,
                            proof=lambda: "ceil(x) >= x for every real x (times log m >= 0)")
    hi = inequality_verdict(DK, "<=", 2 * stated, variables=[VAR_M, Bv], ctx=ctx, constraints=cons,
                            proof=lambda: "x = m/B >= 1 (B <= m): ceil(x) < x + 1 <= 2x (times log m >= 0)")
    return combine_verdicts([lo, hi], paper_value="D_K = ceil(m/B) C log m = Theta(m log m / B) for 1 <= B <= m")


def _b5_bernoulli_mean(ctx: CheckContext) -> Verdict:
    """Theorem B.5 fails for every choice of its constants: symbolic in c (= min(c_2, c_3)) and p in (0, 1/20]."""
    # Gram/mu = (1 - e) I + e J (PSD, so realisable with d_model = m): delta_i(s) = e for s != i, eps_d = 0,
    # rho = B e^2 and gamma = B e^2 (top-B sums of e^2). Head with |V_k| = B, non-edge j outside T_k, Bernoulli(p)
    # signatures: E[S_ij]/d_k = e (1 + e (B-1)) (p + (B-1) p^2)  (exact, one column; columns i.i.d.).
    e, p, Bs, cc = sp.Symbol("e", positive=True), sp.Symbol("p", positive=True), F.B, sp.Symbol("c", positive=True)
    mm = sp.Symbol("m", positive=True)
    mean = e * (1 + e * (Bs - 1)) * (p + (Bs - 1) * p**2)
    exact = _bernoulli_mean_instance(mean.subs(p, F.p), e, F.p, ctx)
    # The hypotheses with any constant c > 0: rho = gamma = B e^2 = c / log m, i.e. e = sqrt(c / (B log m)); two
    # heads of B = m/2 sources each (m even), so every source has non-edges j outside its head's T_k.
    at = {Bs: mm / 2, e: sp.sqrt(cc / (mm / 2 * sp.log(mm)))}
    half = sp.nsimplify(ctx.expect("tau_half"))  # tau = (p + p^2) d_k / 2
    gap = (mean - (p + p**2) * half).subs(at)
    # Every term of the mean is >= 0, so mean >= e^2 (B-1)^2 p^2 = c p^2 (m/2 - 1)^2 / (m/2 log m).
    floor = (e**2 * (Bs - 1) ** 2 * p**2 - (p + p**2) * half).subs(at)
    floor_ok = sp.simplify(sp.expand(mean - e**2 * (Bs - 1) ** 2 * p**2) - sp.expand(
        e * (p + (Bs - 1) * p**2) + e**2 * (Bs - 1) * p)) == 0  # the rest: terms >= 0 for B >= 1
    lim_gap = sp.limit(gap, mm, sp.oo)
    lim_floor = sp.limit(floor, mm, sp.oo)
    # where the mean first exceeds tau, at the edge of Theorem B.5's range (p = 1/20) and a few c
    first = {}
    for cv in (sp.Rational(1, 100), sp.Rational(1, 10), 1):
        g = sp.lambdify(mm, gap.subs({p: sp.Rational(1, 20), cc: cv}), "mpmath")
        m_ = 4
        while g(m_) <= 0 and m_ < 2**60:
            m_ *= 2
        first[f"c = {cv}, p = 1/20"] = f"E[S_ij]/d_k > tau/d_k at m = {m_} (gap {float(g(m_)):.3g})"
    proved = exact.status is Status.VERIFIED and floor_ok and lim_floor == sp.oo and lim_gap == sp.oo
    paper = ("Theorem B.5: there are absolute c_1, c_2, c_3 such that eps_d <= c_1, rho <= c_2/log m, gamma <= c_3/log m "
             "give S_ij < tau = (p + p^2) d_k / 2 at every non-edge w.h.p. (p <= 1/20, d_k = C log m)")
    return Verdict(decide(False, proved, exact=True), paper_value=paper,
                   measured_value={"lim_{m -> oo} (E[S_ij] - tau) / d_k, symbolic in c > 0 and p > 0": str(lim_gap),
                                   "lower bound c p^2 (m/2 - 1)^2 / ((m/2) log m) - (p + p^2)/2 -> ": str(lim_floor),
                                   "mean formula checked by full enumeration (m = 5, B = 2)": exact.status.value,
                                   "first m with a positive gap": first},
                   witness={"embedding": "Gram / mu = (1 - e) I + e J (PSD), d_model = m, e = sqrt(c / ((m/2) log m))",
                            "heads": "2 heads of B = m/2 sources", "eps_d": 0, "rho = gamma": "c / log m",
                            "constants": "any c_1 >= 0 and c = min(c_2, c_3) > 0", "p": "any p in (0, 1/20]",
                            "C": "any: S_ij / d_k -> E[S_ij] / d_k > tau / d_k as d_k = C log m grows"}
                   if proved else None,
                   evidence="sympy: exact per-column mean (checked by enumerating every Bernoulli column of a small "
                            "instance), a lower bound by its nonnegative terms, and its limit in m with c, p symbols",
                   details="With Bernoulli(p) signatures E[w_a . w_b] = p^2 d_k for a != b, so the noise terms N_1, N_3 "
                           "are not centred: leakage of one sign adds about p^2 B e d_k to every score. Definition B.4 "
                           "bounds only squared leakage (rho, gamma <= c / log m), which allows e = sqrt(c / (B log m)) "
                           "on every coordinate; the mean non-edge score then exceeds tau once B >> log m / (c p^2), for "
                           "every c > 0 and every p, and since S_ij is a sum of d_k i.i.d. bounded columns it exceeds "
                           "tau with probability -> 1 for every C. No choice of the absolute constants (c_1, c_2, c_3) "
                           "or of C rescues the statement. Rademacher signatures (zero mean) avoid the shift.",
                   evidence_level="proved")


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


CLAIMS = (
    Claim(id="defb4-incoherence-sort-exact", ref="Definition B.4",
          statement="The restricted self-incoherence parameters (max over subsets |S| <= B) equal the per-row "
                    "top-B sums we compute by sorting",
          kind=Kind.DETERMINISTIC, tier=Tier.QUICK, check=_check_defb4_exact, role="detail", provenance="ours",
          notes="gamma includes i = j and S may contain i, as the definition reads 'for every i, j and S'."),
    Claim(id="alg4-weights-layout", ref="Algorithm 4",
          statement="Algorithm 4 uses X_inv = X^T / mu, h = ceil(m / B) source blocks of size <= B, T_k = pi(V_k) "
                    "and W^(k) = X_inv W'^(k), tau = (p + p^2) d_k / 2",
          kind=Kind.DETERMINISTIC, tier=Tier.QUICK, check=_check_alg4_layout, role="detail",
          notes="mu defaults to the mean squared row norm (1 for unit rows, about d_model p_B for RBCE).",
          expects={"tau_half": Stated(0.5, "constant", "Algorithm 4: tau = (p + p^2) d_k / 2")}),
    Claim(id="thmb5-dk-budget", ref="Theorem B.5",
          statement="Algorithm 4's budget is D_K = ceil(m / B) d_k = Theta(m log m / B)",
          kind=Kind.DETERMINISTIC, tier=Tier.QUICK, check=_check_b5_budget, role="result",
          expects={"block_power": Stated(1, "exponent", "Theorem B.5: D_K = Theta(m log m / B)")}),
    Claim(id="thmb5-limit-separation", ref="Theorem B.5",
          statement="Consistency check at small, mostly uncompressed sizes only: where the measured rho ln m and "
                    "gamma ln m are <= 1 (reading c2 = c3 = 1; in practice B <= 4, d_model = m at most of them), "
                    "Algorithm 4 with Bernoulli(1/20) signatures separates in the d_k -> infinity limit. It does not "
                    "reach the regime B >> log m / c where the Bernoulli mean shift breaks the theorem "
                    "(thmb5-sym-bernoulli-noise-mean)",
          kind=Kind.HIGH_PROBABILITY, tier=Tier.QUICK, check=_check_b5_limit, role="detail",
          notes="One Gaussian unit-norm X at each (m, d_model) in {(256, 128), (256, 256), (384, 384)}, B from 1 to "
                "32; only B <= 4 meets the reading's hypotheses, and 2 of the 3 sizes are uncompressed (d_model = m). "
                "Level sampled (one X per size): holds-empirically at most (never verified: the code wrote verified "
                "until 2026-11-28, bounded by the level), and a detail (scope check), not evidence for the theorem "
                "as a whole. What the instances support (params 'probability'): per drawn admissible X a positive "
                "limit margin settles the rate over W_sig exactly (law of large numbers and a union bound: failure "
                "rate <= m^-3 once C is large, no sample of W_sig involved); 'every admissible X' rests on the "
                "instances; the reading with X random ('and the draw of X if random') is not judged, since a few "
                "clean instances certify no rate over X. The constants c1-c3 are unspecified, so c = 1 is a "
                "reading, not the paper's value. Stated value: tau = (p + p^2) d_k / 2.",
          expects={"tau_half": Stated(0.5, "constant", "Algorithm 4 / Theorem B.5: tau = (p + p^2) d_k / 2")}),
    Claim(id="thmb5-decomposition-as-in-construction-ii", ref="Theorem B.5",
          statement="Cross-reference 'As in Construction II, the score decomposes into a signal term plus three noise "
                    "terms': the decomposition S^(k) = Signal + N1 + N2 + N3 holds exactly for Algorithm 4 (X_inv = "
                    "X^T / mu, Bernoulli signatures, GUN and binary embeddings)",
          kind=Kind.DETERMINISTIC, tier=Tier.QUICK, check=_check_b5_decomposition, role="proof-step",
          supports=("Theorem B.5",)),
    Claim(id="thmb5-rademacher-signatures-verbatim", ref="Theorem B.5",
          statement="Cross-reference 'One can equivalently use Rademacher signatures with tau = d_k/2; all bounds "
                    "translate verbatim with the same B', checked only at the small admissible (m, d_model, B) of "
                    "thmb5-limit-separation (B <= 4, mostly d_model = m): the Rademacher variant separates in the "
                    "d_k -> infinity limit there",
          kind=Kind.HIGH_PROBABILITY, tier=Tier.QUICK, check=_check_b5_rademacher, role="detail",
          notes="Same sizes and reading (c2 = c3 = 1) as thmb5-limit-separation, on this claim's own draw of X per "
                "size (claim seeds differ), level sampled (one X per size): "
                "exact per X, instances for 'every admissible X', no rate over a random X judged (params "
                "'probability'; the code wrote verified until 2026-11-28, bounded to holds-empirically by the level). "
                "Rademacher signatures are centred, so the mean shift that refutes thmb5-sym-bernoulli-noise-mean "
                "does not arise; whether 'all bounds translate verbatim' in the compressed regime is not tested here.",
          expects={"tau_half": Stated(0.5, "constant", "App. B.3, 'Signature family': Rademacher signatures with "
                                                        "tau = d_k/2")}),
    symbolic_claim("thmb5-sym-signal-gap", "Theorem B.5", "mu_1 - mu_2 = (p - p^2) d_k, and 3/4 gap of signal minus "
                          "1/4 gap of noise lands exactly on tau.", _b5_gap, role="proof-step", supports=("Theorem B.5",),
                          expects={"signal_fraction": Stated(0.75, "constant", "Theorem B.5 proof: signal > 3/4 of the gap"),
                                   "noise_fraction": Stated(0.25, "constant", "Theorem B.5 proof: noise < 1/4 of the gap")}),
    symbolic_claim("thmb5-sym-budget", "Theorem B.5", "ceil(m/B) C log m = Theta(m log m / B).", _b5_budget,
                   role="result", expects={"block_power": Stated(1, "exponent", "Theorem B.5: D_K = Theta(m log m / B)"),
                                           "log_power": Stated(1, "exponent", "Theorem B.5: D_K = Theta(m log m / B)")}),
    symbolic_claim("thmb5-sym-bernoulli-noise-mean", "Theorem B.5", "Under Definition B.4's conditions eps_d <= c_1, "
                   "rho <= c_2/log m, gamma <= c_3/log m, for some absolute constants, Bernoulli(p) signatures (p <= "
                   "1/20) keep every non-edge below tau = (p + p^2) d_k / 2 w.h.p.",
                   recorded(_b5_bernoulli_mean, ["eps_d = 0 <= c_1 (Gram / mu = (1 - e) I + e J is PSD, realisable "
                                                 "with d_model = m)", "rho = gamma = B e^2 = c / log m with c = "
                                                 "min(c_2, c_3), for every choice of the absolute constants",
                                                 "Bernoulli(p) signatures, every p in (0, 1/20]",
                                                 "tau = (p + p^2) d_k / 2 as stated, d_k = C log m for every C; two "
                                                 "heads of B = m/2 sources"],
                            lambda v: {"as stated: every c_1, c_2, c_3 > 0, every p in (0, 1/20], every C (symbolic "
                                       "in c, p)":
                                       outcome(v, "lim (E[S_ij] - tau) / d_k = "
                                               f"{(v.measured_value or {}).get('lim_{m -> oo} (E[S_ij] - tau) / d_k, symbolic in c > 0 and p > 0') if isinstance(v.measured_value, dict) else v.measured_value}")}),
                   role="result",
                   notes="Witness: an explicit PSD Gram matrix with uniform positive leakage, symbolic in c = min(c_2, "
                         "c_3) > 0 and p: the theorem fails for every admissible choice of its constants, not only at "
                         "a printed pair (c, p). The statement names Bernoulli(p) signatures, so that is its only reading; zero-mean "
                         "(Rademacher) signatures avoid the shift, which is the repair thmb5-rademacher-signatures-"
                         "verbatim looks at, not a reading of this statement.",
                   expects={"tau_half": Stated(0.5, "constant", "Theorem B.5 / Algorithm 4: tau = (p + p^2) d_k / 2",
                                               unmutated="the mean shift grows without bound in m, so it exceeds "
                                                         "every fixed multiple of (p + p^2) d_k: any threshold "
                                                         "factor is refuted alike")},
                   slip=("construction-fails-repairable", "result",
                         "With Bernoulli(p) signatures the leakage terms carry a positive mean, and an admissible "
                         "Gram matrix with uniform leakage lifts non-edge scores over tau = (p + p^2) d_k / 2 for "
                         "every choice of the constants, so the printed construction fails; the zero-mean "
                         "(Rademacher) signatures of the paper's own signature-family paragraph avoid the shift at "
                         "the same B and d_k, so the stated budget stands (as with thm41-fixed-points-self-pair).")),
)
