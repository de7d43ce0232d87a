"""App. B.2: Construction II (Algorithm 1) and Theorem B.2: the score decomposition and its noise terms.

The decomposition S = signal + N1 + N2 + N3, the conditional means of the noise terms (exact, by enumerating every
signature of small instances, and symbolic), their fluctuation rates, the signal constant, and the separation and
budget algebra of the theorem (symbolic).
"""

from __future__ import annotations

import dataclasses
import itertools
import math

import numpy as np
import sympy as sp
from hypothesis import strategies as st
from scipy import stats as _st

from ...core import formulas as F
from ...models.constructions import algorithm1
from ...core.embeddings import gaussian_unit_norm_embeddings
from ...core.graphs import random_permutation_graph
from ...analysis.measurements import noise_terms
from ...core.strategies import seeds
from ..base import CheckContext, Claim, Kind, Stated, Status, Tier, Verdict
from ..standards.decide import decide
from ..symbolic import Var, combine_verdicts, identity_verdict, inequality_verdict, prove_by_monotonicity
from ..tools import outcome, recorded
from ..tools import VAR_D_MODEL, VAR_M, exponent_verdict, property_verdict, symbolic_claim
from .common import along_each_variable

__all__ = ["CLAIMS", "ORDER"]

ORDER = 111


def _small_alg1(ex):
    m, d, d_k, B, seed = ex
    r = np.random.default_rng(seed)
    g = random_permutation_graph(m, rng=r)
    X = gaussian_unit_norm_embeddings(m, d, rng=r)
    return algorithm1(g, X, d_k=d_k, rng=r, block_size=B)


_alg1_cases = st.tuples(st.integers(2, 24), st.integers(1, 12), st.integers(1, 10), st.integers(1, 12), seeds())


def _check_decomposition(ctx: CheckContext) -> Verdict:
    def prop(ex):
        c = _small_alg1(ex)
        worst = 0.0
        for k in range(c.n_heads):
            t = noise_terms(c, k)
            r = np.abs(t["S"] - t["Signal"] - t["N1"] - t["N2"] - t["N3"]).max()
            worst = max(worst, float(r))
        assert worst <= 1e-9 * max(1.0, c.d_k * c.m), f"residual {worst:.3g}"
        return {"max_residual": worst}

    return property_verdict(prop, _alg1_cases, ctx=ctx, max_examples=40,
                            paper_value="S^(k)_ij = Signal + N1 + N2 + N3 (App. B.2)")


def _exhaustive_means(c):
    """Exact E[term | X] over all 2^(m d_k) Rademacher signature matrices (tiny m d_k only)."""
    m, d_k = c.m, c.d_k
    sums = None
    count = 0
    for bits in itertools.product((-1.0, 1.0), repeat=m * d_k):
        W = np.asarray(bits).reshape(m, d_k)
        c2 = _with_signatures(c, W)
        per = [noise_terms(c2, k) for k in range(c2.n_heads)]
        if sums is None:
            sums = [{t: np.zeros((m, m)) for t in ("N1", "N2", "N3")} for _ in per]
            formula = [{t: p[f"E_{t}"] for t in ("N1", "N2", "N3")} for p in per]
        for s, p in zip(sums, per):
            for t in s:
                s[t] += p[t]
        count += 1
    means = [{t: v / count for t, v in s.items()} for s in sums]
    return means, formula


def _with_signatures(c, W):
    """The same construction with signature matrix W (rebuilt through the public builder's formulas)."""
    from ...models.constructions import Construction, weights_from_blocks

    W_Q, W_K = weights_from_blocks(c.X_inv, W, c.blocks)
    return Construction(algorithm=c.algorithm, graph=c.graph, X=c.X, X_inv=c.X_inv, W_sig=W, W_Q=W_Q, W_K=W_K,
                        tau=c.tau, aggregation=c.aggregation, blocks=c.blocks, signatures=c.signatures,
                        block_size=c.block_size)


_tiny_cases = st.tuples(st.integers(2, 4), st.integers(1, 3), st.just(1), st.integers(1, 4), seeds())


_MEAN_SIZE = (512, 256, 8)  # (m, d_model, d_k): d_model / ln m = 41, an admissible c0 (Theorem B.2's sizes)


def _linear_means(c, k):
    """E[N1 | X], E[N2 | X] of head k by linearity from the definitions N1_ij = 1(i in V_k) w_pi(i) . b_j and
    N2_ij = a_i . w_j 1(j in T_k) (a_i, b_j the leakage sums), with E[w_a . w_b] = d_k 1(a = b) for Rademacher rows:
    E = Q G K^T with G = d_k I the signatures' exact second-moment matrix."""
    m, d_k = c.m, c.d_k
    src, tgt = c.sources(k), c.targets(k)
    D = c.X @ c.X_inv - np.eye(m)
    G = d_k * np.eye(m)  # E[w_a . w_b] over Rademacher rows, exactly
    sel_q = np.zeros((m, m))
    sel_q[src, tgt] = 1.0  # row i in V_k picks w_pi(i)
    sel_k = np.zeros((m, m))
    sel_k[tgt, tgt] = 1.0  # column j in T_k picks w_j
    lk_b = np.zeros((m, m))
    lk_b[:, tgt] = D[:, tgt]  # b_j = sum_{t in T_k} delta_j(t) w_t
    lk_a = np.zeros((m, m))
    lk_a[:, tgt] = D[:, src]  # a_i = sum_{s in V_k} delta_i(s) w_pi(s)
    return {"N1": sel_q @ G @ lk_b.T, "N2": lk_a @ G @ sel_k.T}


def _tiny_linearity_check() -> float:
    """Largest gap between the linearity means and the exact means over all 2^(m d_k) signature matrices of one
    tiny instance (m = 4, d_model = 2, d_k = 1, B = 2): the formula's own check."""
    c = _small_alg1((4, 2, 1, 2, 12345))
    means, _ = _exhaustive_means(c)
    return max(float(np.abs(means[k][t] - _linear_means(c, k)[t]).max()) for k in range(c.n_heads) for t in ("N1", "N2"))


def _mean_zero_verdict(term: str, ctx: CheckContext) -> Verdict:
    """E[term | X] = 0 at every non-edge, for term N1 or N2, at a nondegenerate admissible size: exact conditional
    means by linearity (E[w_a . w_b] = d_k 1(a = b)), checked against full enumeration on a tiny instance."""
    m, d, d_k = _MEAN_SIZE
    r = ctx.rng(0)
    g = random_permutation_graph(m, rng=r)
    X = gaussian_unit_norm_embeddings(m, d, rng=r)
    c = algorithm1(g, X, d_k=d_k, rng=r)
    gap = _tiny_linearity_check()
    worst, arg = 0.0, None
    for k in range(c.n_heads):
        E = _linear_means(c, k)[term].copy()
        E[np.arange(m), g.perm] = 0.0  # edges (i, pi(i)) are not non-edges
        np.fill_diagonal(E, 0.0)  # nor self-pairs
        idx = np.unravel_index(int(np.argmax(np.abs(E))), E.shape)
        if abs(E[idx]) > worst:
            worst, arg = float(abs(E[idx])), {"head": k, "i": int(idx[0]), "j": int(idx[1]), f"E[{term} | X]": float(E[idx])}
    scale = math.sqrt(math.log(m) / d)
    linear, leaks = gap <= 1e-12, worst > 1e-9  # linearity formula off the enumeration: the check itself is broken
    status = decide(not leaks, leaks, exact=True) if linear else Status.ERROR
    return Verdict(status=status, paper_value=f"{term} is a sum of d_k i.i.d. mean-zero terms given X",
                   measured_value=f"max over non-edges of |E[{term} | X]| = {worst:.4g} = {worst / d_k:.3g} d_k "
                                  f"(leakage scale sqrt(ln m / d_model) = {scale:.3g}) at (m, d_model, d_k) = "
                                  f"({m}, {d}, {d_k}); linearity means match full enumeration on a tiny instance to "
                                  f"{gap:.1e}",
                   witness={**arg, "m": m, "d_model": d, "d_k": d_k, "c0 = d_model / ln m": round(d / math.log(m), 1),
                            "construction": "algorithm1 with ctx.rng(0): random permutation graph, Gaussian "
                                            "unit-norm X, Rademacher signatures, blocks of d_model"}
                   if status is Status.REFUTED else None,
                   params={"m": m, "d_model": d, "d_k": d_k, "c0": d / math.log(m), "n_heads": c.n_heads},
                   evidence="exact conditional means by linearity (signatures' second moments), at an admissible size; "
                            "the linearity formula checked against enumeration of all signatures of a tiny instance",
                   details=(f"E[N1 | X]_ij = d_k delta_j(pi(i)) and E[N2 | X]_ij = d_k delta_i(pi^-1(j)) 1(j in T_k): "
                            "the t = pi(i) (resp. s = pi^-1(j)) term of the sum pairs a signature row with itself. The "
                            "mean is of the order d_k sqrt(log m / d_model), like E[N3 | X], and is absorbed by the "
                            "same choice of c0; the step's 'mean-zero' bound does not cover it."),
                   evidence_level="witness")


def _check_conditional_means(ctx: CheckContext) -> Verdict:
    def prop(ex):
        c = _small_alg1(ex)
        means, formula = _exhaustive_means(c)
        worst = max(float(np.abs(mk[t] - fk[t]).max()) for mk, fk in zip(means, formula) for t in mk)
        assert worst <= 1e-9, f"conditional means differ from the formulas by {worst:.3g}"
        return {"max_abs_difference": worst}

    return property_verdict(prop, _tiny_cases, ctx=ctx, max_examples=25,
                            paper_value="E[N3 | X] = d_k <delta_{i, pi^-1(T_k)}, delta_{j, T_k}>")


def _bound_verdict(xs, ys, rel: str, *, claimed: float, tol: float, what: str, paper_value, params) -> Verdict:
    """"y <~ x^claimed" (rel "<=") or, read in the opposite direction, "y >~ x^claimed" (rel ">=", checked as
    1/y <~ x^-claimed), through :func:`exponent_verdict` with ``upper=True``."""
    if rel in ("<=", "<"):
        return exponent_verdict(xs, ys, claimed=claimed, tol=tol, upper=True, what=what, paper_value=paper_value,
                                params=params)
    return exponent_verdict(xs, [1.0 / y for y in ys], claimed=-claimed, tol=tol, upper=True, what=f"1 / ({what})",
                            paper_value=paper_value, params={**params, "direction": rel})


_SIGNAL_MS = (64, 128, 256, 512, 1024, 4096, 2**14, 2**16, 2**18)
_SIGNAL_CS = (20.0, 80.0)  # d_k = C ln m at two large C, each fitted on its own (never pooled)


def _signal_c_star(m: int, C: float) -> float:
    """Smallest C_star with m^2 P(|sum of d_k Rademachers| >= C_star sqrt(d_k ln m)) <= m^-5, d_k = ceil(C ln m)."""
    d_k = math.ceil(C * math.log(m))
    lnm = math.log(m)

    def bound(cs):
        t = cs * math.sqrt(d_k * lnm)  # |2 Bin(d_k, 1/2) - d_k| >= t
        k = math.ceil((d_k + t) / 2)
        return m * m * 2 * float(_st.binom.sf(k - 1, d_k, 0.5))

    lo, hi = 0.0, 20.0
    for _ in range(50):
        mid = (lo + hi) / 2
        lo, hi = (lo, mid) if bound(mid) <= m ** -5.0 else (mid, hi)
    return hi


_N1_SIZE = (1024, 512)  # (m, d_model): c0 = d_model / ln m = 74, admissible by the audit's measured c0 (10 to 40)
_N1_DKS = (8, 16, 32, 64, 128, 256, 512, 1024, 2048)  # up to C ln m with C about 300 (thmb2-sym-separation's C)


def _check_n1_sqrt_dk(ctx: CheckContext) -> Verdict:
    m, d = _N1_SIZE
    r = ctx.rng(0)
    g = random_permutation_graph(m, rng=r)
    X = gaussian_unit_norm_embeddings(m, d, rng=r)
    xs, ys = [], []
    for d_k in _N1_DKS:
        c = algorithm1(g, X, d_k=d_k, rng=r)
        worst = max(float(np.abs(noise_terms(c, k)["N1"]).max()) for k in range(c.n_heads))
        xs.append(d_k)
        ys.append(worst)
    return _bound_verdict(xs, ys, ctx.expect("dir"), claimed=0.5, tol=0.15,
                          what=f"max |N1| over all heads vs d_k at (m, d_model) = ({m}, {d}), c0 = {d / math.log(m):.0f}",
                          paper_value="|N1| <= C4 sqrt(C2 d_k log m) for an absolute C4 (grows like sqrt(d_k))",
                          params={"m": m, "d_model": d, "c0": d / math.log(m), "d_k": _N1_DKS, "heads_measured": "all"})


def _check_signal_constant(ctx: CheckContext) -> Verdict:
    """The minimal C_star against ln m, one fit per C (the equivalence standard along m at each C; not pooled)."""
    per, rows = {}, []
    for C in _SIGNAL_CS:
        xs = [math.log(m) for m in _SIGNAL_MS]
        ys = [_signal_c_star(m, C) for m in _SIGNAL_MS]
        rows += [{"m": m, "C": C, "d_k": math.ceil(C * math.log(m)), "C_star": y} for m, y in zip(_SIGNAL_MS, ys)]
        per[f"m at d_k = ceil({C:g} ln m)"] = exponent_verdict(
            xs, ys, claimed=ctx.expect("const_exponent"), tol=0.15,
            what=f"minimal C_star vs ln m at C = {C:g} (exact Rademacher tails, union bound over m^2 pairs at m^-5)",
            paper_value="C_star absolute", params={"C": C})
    v = along_each_variable(per, paper_value="|Signal| <= C_star sqrt(d_k log m) for all same-block non-edges w.p. "
                                             ">= 1 - m^-5, C_star absolute")
    ys = [r_["C_star"] for r_ in rows]
    return dataclasses.replace(v, measured_value={"C_star range": [min(ys), max(ys)],
                                                  "Hoeffding limit sqrt(14)": math.sqrt(14), **v.measured_value},
                               details={"rule": v.details, "rows": rows},
                               evidence=v.evidence + "; exact binomial tails; each C fitted on its own")


def _check_n3_fluct_sqrt_dk(ctx: CheckContext) -> Verdict:
    m, d = _N1_SIZE
    r = ctx.rng(0)
    g = random_permutation_graph(m, rng=r)
    X = gaussian_unit_norm_embeddings(m, d, rng=r)
    xs, ys = [], []
    for d_k in _N1_DKS:
        c = algorithm1(g, X, d_k=d_k, rng=r)
        xs.append(d_k)
        ys.append(max(float(np.abs(t["N3"] - t["E_N3"]).max()) for t in (noise_terms(c, k) for k in range(c.n_heads))))
    return exponent_verdict(xs, ys, claimed=ctx.expect("sqrt_exponent"), tol=0.15,
                            what=f"max |N3 - E[N3 | X]| over all heads vs d_k at (m, d_model) = ({m}, {d}), "
                                 f"c0 = {d / math.log(m):.0f}",
                            paper_value="|N3 - E[N3 | X]| <= C5 C2 sqrt(d_k log m) w.h.p.",
                            params={"m": m, "d_model": d, "c0": d / math.log(m), "d_k": _N1_DKS})


def _check_b2_offblock(ctx: CheckContext) -> Verdict:
    def prop(ex):
        c = _small_alg1(ex)
        for k in range(c.n_heads):
            t = noise_terms(c, k)
            inT = np.zeros(c.m, bool)
            inT[c.targets(k)] = True
            assert np.all(t["Signal"][:, ~inT] == 0) and np.all(t["N2"][:, ~inT] == 0), "Signal or N2 nonzero off T_k"
        return None

    return property_verdict(prop, _alg1_cases, ctx=ctx, max_examples=30,
                            paper_value="if j not in T_k then Signal = 0 and N2 = 0")


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
    return Verdict(decide(not fails, bool(fails), exact=True),
                   paper_value="S_ij^(k) = Signal + N_1 + N_2 + N_3", measured_value=f"{len(Vk) * mm - len(fails)} of {len(Vk) * mm} (i, j) expand exactly",
                   witness=fails[0] if fails else None, params={"instance": "m=4, d_k=2, |V_k|=2"}, evidence_level="proved",
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
    return Verdict(decide(not fails, bool(fails), exact=True),
                   paper_value="E[N_3 | X] = d_k <delta_{i, pi^-1(T_k)}, delta_{j, T_k}>",
                   measured_value=f"per-column mean equals the formula for {n - len(fails)} of {n} (i, j)",
                   witness=fails[0] if fails else None, evidence_level="proved",
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
    mean_zero = formula_ok and not nonzero
    status = decide(mean_zero, not mean_zero, exact=True)
    if formula_ok and nonzero:
        return Verdict(status, paper_value="N_1 (and N_2) is a sum of d_k i.i.d. mean-zero sub-Gaussian variables",
                       measured_value={"E[N_1 | X]": "d_k delta_{j, pi(i)}", "E[N_2 | X]": "d_k delta_{i, pi^-1(j)} [j in T_k]",
                                       "non-edges with a nonzero mean": len(nonzero)},
                       witness=nonzero[0], evidence_level="proved",
                       evidence="exact expectation: all 2^4 Rademacher sign columns enumerated, symbolic leakage",
                       details="pi(i) lies in T_k, so the t = pi(i) term of N_1 is w_pi(i)[r]^2 delta_{j,pi(i)} = "
                               "delta_{j,pi(i)}, deterministic. The mean d_k <x_j, x_pi(i)> is of the same order as "
                               "E[N_3 | X] and is absorbed by the same choice of c_0 (|<x_j, x_pi(i)>| <~ "
                               "sqrt(log m / d_model)), but the proof's 'mean-zero' bound does not cover it.")
    return Verdict(status, paper_value="N_1, N_2 mean-zero",
                   measured_value=f"{len(nonzero)} non-edges with a nonzero mean", evidence_level="proved",
                   evidence="exact enumeration")


def _b2_separation(ctx: CheckContext) -> Verdict:
    a, e = sp.Symbol("a", nonnegative=True), sp.Symbol("e", nonnegative=True)
    cap, hi, lo = (sp.nsimplify(ctx.expect(k)) for k in ("noise_cap", "edge_fraction", "nonedge_fraction"))
    V = [Var(a, 0, cap), Var(e, 0, cap)]
    # a bounds (C_star + 2 C_4 sqrt(C_2) + C_5 C_2) sqrt(log m / d_k), e bounds C_3 sqrt(log m / d_model).
    tgt = inequality_verdict(1 - a - e, ">", hi, variables=V, ctx=ctx,
                             proof=lambda: prove_by_monotonicity(1 - a - e - hi, V, strict=True))
    non = inequality_verdict(a + e, "<", lo, variables=V, ctx=ctx,
                             proof=lambda: prove_by_monotonicity(lo - a - e, V, strict=True))
    C3 = sp.Symbol("C_3", positive=True)
    feas = identity_verdict(C3 * sp.sqrt(F.log_b(F.m) / (C3**2 * F.log_b(F.m) / cap**2)), cap,
                            variables=[Var(C3, 0.1, 10), VAR_M], ctx=ctx)
    return combine_verdicts([tgt, non, feas], paper_value="with both constants <= 1/16: S_true > 3/4 d_k and |S_ij| < 1/4 d_k",
                            details="Feasibility: d_model >= 256 C_3^2 log m gives C_3 sqrt(log m/d_model) <= 1/16; "
                                    "likewise C >= 256 (C_star + 2 C_4 sqrt(C_2) + C_5 C_2)^2.")


def _b2_budget(ctx: CheckContext) -> Verdict:
    stated = (F.m / F.d_model) ** sp.nsimplify(ctx.expect("compression_power")) * sp.log(F.m) ** sp.nsimplify(ctx.expect("log_power"))
    V = [VAR_M, VAR_D_MODEL, Var(F.C, 1, 100)]
    return combine_verdicts([identity_verdict(F.DK_construction_ii() / stated, F.C, variables=V, ctx=ctx),
                             identity_verdict(F.lower_bound_rate().subs(F.mp, F.m) / stated, 1, variables=V, ctx=ctx)],
                            paper_value="D_K = O(m log m / d_model) matches the lower bound within a constant (m' = m)")


def _check_n1_mean_zero(ctx: CheckContext) -> Verdict:
    return _mean_zero_verdict("N1", ctx)


def _check_n2_mean_zero(ctx: CheckContext) -> Verdict:
    return _mean_zero_verdict("N2", ctx)


_B2 = ("Theorem B.2",)

CLAIMS = (
    Claim(id="appb2-decomposition-exact", ref="App. B.2",
          statement="Every head score decomposes exactly as S^(k)_ij = Signal + N1 + N2 + N3",
          kind=Kind.DETERMINISTIC, tier=Tier.QUICK, check=_check_decomposition, role="proof-step", supports=_B2,
          notes="General form for any (i, k): Signal and N1 carry the factor 1(i in V_k)."),
    symbolic_claim("thmb2-sym-score-decomposition", "Theorem B.2", "S_ij^(k) = Signal + N_1 + N_2 + N_3 exactly.",
                   _b2_decomposition, role="proof-step", supports=_B2),
    Claim(id="thmb2-n1-mean-zero", ref="Theorem B.2",
          statement="Proof step: given X, N1 is a sum of d_k i.i.d. mean-zero terms (checked at an admissible, "
                    "nondegenerate size: (m, d_model) = (512, 256), c0 = 41)",
          kind=Kind.DETERMINISTIC, tier=Tier.QUICK, check=_check_n1_mean_zero, role="proof-step", supports=_B2,
          notes="E[N1 | X] computed exactly by linearity at (m, d_model, d_k) = (512, 256, 8) (Algorithm 1, Gaussian "
                "unit-norm X, Rademacher signatures); the linearity formula is checked against enumeration of every "
                "signature matrix of a tiny instance. It equals d_k delta_j(pi(i)) (thmb2-conditional-means-exact): "
                "the t = pi(i) term of the sum is delta_{j,pi(i)} ||w_pi(i)||^2, not mean-zero. The step states no "
                "size condition; the size is chosen inside the theorem's range so that the witness meets every "
                "hypothesis.",
          slip=("proof-step-false", "proof-step",
                "Given X, N1's t = pi(i) term has mean delta_j(pi(i)) ||w_pi(i)||^2, so N1's conditional mean is d_k "
                "delta_j(pi(i)), not 0; the step needs that mean bounded separately (as App. B.2 does for N3's), and "
                "the theorem's conclusion is judged by its own claims.")),
    Claim(id="thmb2-n2-mean-zero", ref="Theorem B.2",
          statement="Proof step: N2 obeys the same mean-zero sub-Gaussian bound as N1 (checked at (m, d_model) = "
                    "(512, 256), c0 = 41)",
          kind=Kind.DETERMINISTIC, tier=Tier.QUICK, check=_check_n2_mean_zero, role="proof-step", supports=_B2,
          notes="E[N2 | X] = d_k delta_i(pi^-1(j)) for j in T_k (the s = pi^-1(j) term); exact by linearity at the "
                "same admissible size as thmb2-n1-mean-zero.",
          slip=("proof-step-false", "proof-step",
                "For j in T_k, N2's s = pi^-1(j) term has a nonzero conditional mean, so N2 is not a sum of "
                "mean-zero terms; the step needs that mean bounded separately (as is done for N3), and the theorem's "
                "conclusion is judged by its own claims.")),
    Claim(id="thmb2-conditional-means-exact", ref="Theorem B.2",
          statement="Proof step: E[N3 | X] = d_k <delta_{i,pi^-1(T_k)}, delta_{j,T_k}> (and our formulas for "
                    "E[N1 | X], E[N2 | X]) hold exactly",
          kind=Kind.DETERMINISTIC, tier=Tier.QUICK, check=_check_conditional_means, role="proof-step", supports=_B2),
    symbolic_claim("thmb2-sym-n3-mean", "Theorem B.2", "E[N_3 | X] = d_k sum_{a in T_k} delta_{i,pi^-1(a)} delta_{j,a} under "
                   "Rademacher signatures.", _b2_n3_mean, role="proof-step", supports=_B2),
    symbolic_claim("thmb2-sym-n1-n2-means", "Theorem B.2", "Proof step: given X, N_1 and N_2 are sums of d_k i.i.d. "
                   "mean-zero terms (Rademacher signatures).",
                   recorded(_b2_n1_n2_means, ["Rademacher signatures (all 2^4 sign columns enumerated, exact mean)",
                                              "symbolic leakage delta (any X)", "non-edges (i, j), j not in {i, pi(i)}"],
                            lambda v: {"as printed": outcome(v, f"nonzero mean at {v.witness} "
                                                                f"({(v.measured_value or {}).get('non-edges with a nonzero mean') if isinstance(v.measured_value, dict) else v.measured_value} non-edges)")}),
                   role="proof-step", supports=_B2,
                   slip=("proof-step-false", "proof-step",
                         "Exact enumeration over Rademacher signatures gives N_1 and N_2 nonzero conditional means "
                         "on some non-edges, so 'sums of mean-zero terms' is false as written; bounding those means "
                         "separately (as for N_3) is the repair, and the theorem itself is judged by its own claims.")),
    Claim(id="thmb2-n1-bound-sqrt-dk", ref="Theorem B.2",
          statement="Proof step: |N1| <= C4 sqrt(C2 d_k log m) w.h.p. for an absolute C4, i.e. max |N1| grows no "
                    "faster than sqrt(d_k) at fixed admissible (m, d_model) = (1024, 512) (c0 = 74)",
          kind=Kind.ASYMPTOTIC, tier=Tier.QUICK, check=_check_n1_sqrt_dk, role="proof-step", supports=_B2,
          notes="(m, d_model) = (1024, 512): d_model / ln m = 74, above the minimal c0 the audit measures (about 10 "
                "for Lemma B.3 item 2, about 40 for Theorem 4.1), so the size meets the theorem's hypothesis; d_k "
                "from 8 to 2048 (up to C ln m with C about 300, the order thmb2-sym-separation needs). Equivalence "
                "standard: the 95% interval of the log-log slope against the band <= 1/2 + 0.15; a straddling "
                "interval is inconclusive with its resolution. The mean d_k delta_j(pi(i)) "
                "(thmb2-n1-mean-zero) makes max |N1| grow linearly in d_k once d_k >~ d_model / ln m. Stated value: "
                "the bound's direction.",
          expects={"dir": Stated("<=", "relation", "Theorem B.2 proof: |N1| <= C4 sqrt(C2 d_k log m)")}),
    Claim(id="thmb2-signal-bound-constant", ref="Theorem B.2",
          statement="Proof step: |Signal| <= C_star sqrt(d_k log m) for all same-block non-edges with probability "
                    ">= 1 - m^-5, for an absolute C_star (exact tails, union bound over m^2 pairs)",
          kind=Kind.ASYMPTOTIC, tier=Tier.QUICK, check=_check_signal_constant, role="proof-step", supports=_B2,
          notes="The minimal C_star against ln m (m from 64 to 2^18), fitted separately at d_k = ceil(C ln m) for C = "
                "20 and C = 80 (never pooled), each by the equivalence standard (95% interval within 0.15 of "
                "exponent 0); the step holds only if it holds at both C.",
          expects={"const_exponent": Stated(0.0, "exponent", "Theorem B.2 proof: C_star an absolute constant")}),
    Claim(id="thmb2-n3-fluctuation-sqrt-dk", ref="Theorem B.2",
          statement="Proof step: the centred N3 - E[N3 | X] is at most C5 C2 sqrt(d_k log m), i.e. grows like "
                    "sqrt(d_k) at fixed admissible (m, d_model) = (1024, 512)",
          kind=Kind.ASYMPTOTIC, tier=Tier.QUICK, check=_check_n3_fluct_sqrt_dk, role="proof-step", supports=_B2,
          notes="At the admissible (m, d_model) = (1024, 512) (c0 = 74) of thmb2-n1-bound-sqrt-dk, d_k from 8 to "
                "2048, all heads. Checked two-sided by the equivalence standard: the 95% interval of the exponent "
                "within 0.15 of the stated 1/2 (the order of the bound, which implies it).",
          expects={"sqrt_exponent": Stated(0.5, "exponent", "Theorem B.2 proof: |N3 - E[N3|X]| <= C5 C2 sqrt(d_k log m)")}),
    Claim(id="thmb2-offblock-signal-n2-vanish", ref="Theorem B.2",
          statement="Proof step: if j is not in T_k then Signal = 0 and N2 = 0",
          kind=Kind.DETERMINISTIC, tier=Tier.QUICK, check=_check_b2_offblock, role="proof-step", supports=_B2),
    symbolic_claim("thmb2-sym-separation", "Theorem B.2", "With both noise constants <= 1/16, S_true > 3/4 d_k > tau and "
                   "|S_ij| < 1/4 d_k < tau; the constants are feasible.", _b2_separation, role="proof-step",
                   supports=_B2, notes="One-sided by construction: a smaller noise cap, a lower edge level or a higher "
                   "non-edge level only adds slack (declared bounds: only the stricter mutants run).",
                   expects={"noise_cap": Stated(0.0625, "constant", "Theorem B.2 proof: both noise constants <= 1/16",
                                                bound="lower"),
                            "edge_fraction": Stated(0.75, "constant", "Theorem B.2 proof: S_i,pi(i) > 3/4 d_k",
                                                    bound="lower"),
                            "nonedge_fraction": Stated(0.25, "constant", "Theorem B.2 proof: |S_ij| < 1/4 d_k",
                                                       bound="upper")}),
    symbolic_claim("thmb2-sym-budget-matches-lower-bound", "Theorem B.2", "As formulas, the budget D_K = O(m log m / "
                   "d_model) and Sec. 9's lower-bound rate at m' = m are within a constant of each other (a comparison "
                   "of two rates: that the lower bound's margin hypothesis covers the construction, which the "
                   "paper's 'matching' also needs, is def91-constructions-normalised-margin's question).", _b2_budget,
                   role="detail", supports=("Theorem 9.2",),
                   expects={"compression_power": Stated(1, "exponent", "Theorem B.2: D_K = O(m log m / d_model)"),
                            "log_power": Stated(1, "exponent", "Theorem B.2: D_K = O(m log m / d_model)")}),
)
