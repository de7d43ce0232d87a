"""Claims of App. B: Constructions I-IV (Algorithms 3, 1, 4, 5), Theorems B.1, B.2, B.5, B.9, Lemmas B.3, B.8,
Definition B.4, Corollaries B.6, B.7, B.10, and the probabilistic and computational steps inside their proofs.

Everything here is computed on constructions and random draws (the pure algebra of App. B lives in the symbolic
bounds module). Readings shared by all checks (docs/theorems.md): natural logarithms; d_k = ceil(C ln m);
"separation" is over every ordered pair of V including the self-pairs (i, i); a "sufficiently large constant"
is measured as the smallest value at which every one of n independent draws separates. Rates "with probability
>= 1 - m^-3" are certified exactly (exact binomial tails and a union bound, one-hot constructions) or by Monte
Carlo at the smallest rate the sample size certifies at false-alarm 1e-6; each claim's statement names the rate
it checks. Rate statements ("<~", "for an absolute constant") are checked by a size sweep and a fitted exponent
with its 95% interval (:func:`exponent_verdict`).
"""

from __future__ import annotations

import itertools
import math

import numpy as np
from hypothesis import strategies as st
from scipy import stats as _st

from .. import minimal_constants as K
from ..constructions import (
    algorithm1,
    algorithm3,
    algorithm4,
    algorithm5,
    coloring_and_batching,
    equitable_edge_coloring,
    is_proper_edge_coloring,
    konig_edge_coloring,
)
from ..embeddings import binary_compressive_embeddings, gaussian_unit_norm_embeddings
from ..graphs import Digraph, random_permutation_graph, random_regular_graph
from ..measurements import (
    noise_terms,
    restricted_self_incoherence,
    separation_margins,
)
from ..stats import failure_rate_upper_bound, zero_failure_sample_size
from .base import CheckContext, Claim, Kind, Status, Tier, Verdict, jsonable
from .tools import FAILS, HOLDS, NOT_TESTED, monte_carlo_verdict, property_verdict, reading_record, with_readings

__all__ = ["CLAIMS", "ORDER", "fit_exponent", "exponent_verdict", "seeds_strategy", "whp_constant_sweep"]

ORDER = 110


# --------------------------------------------------------------------------------------------- shared helpers


def seeds_strategy():
    return st.integers(0, 2**32 - 1)


def fit_exponent(x, y) -> dict:
    """OLS fit of log y = a + b log x; the slope b with its 95% t-interval (n - 2 degrees of freedom)."""
    lx, ly = np.log(np.asarray(x, float)), np.log(np.asarray(y, float))
    res = _st.linregress(lx, ly)
    n = len(lx)
    half = float(_st.t.ppf(0.975, n - 2) * res.stderr) if n > 2 else math.inf
    return {"slope": float(res.slope), "lo": float(res.slope - half), "hi": float(res.slope + half), "n": n,
            "intercept": float(res.intercept)}


def exponent_verdict(x, y, *, claimed: float, tol: float, paper_value, what: str, params: dict,
                     table=None, upper: bool = False) -> Verdict:
    """Verdict for "y grows like x^claimed": verified if the fitted slope is within ``tol`` of ``claimed``;
    refuted if it is not and ``claimed`` lies outside the 95% interval; inconclusive otherwise.

    With ``upper=True`` the claim is an upper bound ("y <~ x^claimed", e.g. a ratio that stays bounded): verified if
    the slope is at most claimed + tol, refuted if it exceeds claimed + tol and the whole interval lies above
    ``claimed``; a slope below ``claimed`` is consistent with the bound."""
    fit = fit_exponent(x, y)
    if upper:
        close = fit["slope"] <= claimed + tol
        outside = fit["lo"] > claimed
    else:
        close = abs(fit["slope"] - claimed) <= tol
        outside = not (fit["lo"] <= claimed <= fit["hi"])
    status = Status.VERIFIED if close else (Status.REFUTED if outside else Status.INCONCLUSIVE)
    return Verdict(
        status=status, paper_value=paper_value,
        measured_value=f"{what}: fitted exponent {fit['slope']:.3f}, 95% CI [{fit['lo']:.3f}, {fit['hi']:.3f}] "
                       f"(claimed {'<= ' if upper else ''}{claimed:g}, tolerance {tol:g})",
        witness=jsonable({"fit": fit, "points": table if table is not None else list(zip(x, y))}) if status is Status.REFUTED else None,
        params={**params, "claimed_exponent": claimed, "tolerance": tol, "upper_bound_only": upper},
        details=jsonable({"fit": fit, "points": table if table is not None else list(zip(x, y))}),
        evidence=f"size sweep, log-log OLS over {fit['n']} points, 95% t-interval",
    )


def whp_constant_sweep(*, ctx: CheckContext, m: int, d_model: int, Cs: tuple, n_draws: int, n_limit: int,
                       finite_trial, limit_trial, what: str, extra_hypotheses: list[str]) -> Verdict:
    """"With probability >= 1 - m^-3 for a sufficiently large C" at one size (m, d_model), decided without fixing C.

    ``limit_trial(r)`` returns the d_k -> infinity margin of one draw (a number; > 0 separates), ``finite_trial(C, r)``
    whether the draw at d_k = ceil(C ln m) separates, each from the generator r. Failures at finite d_k come from the
    Rademacher noise, which the limit does not have; as C grows the failure rate tends to the limit's.
    - refuted (reading: c0 = d_model / ln m counts as sufficiently large at this m) when the limit itself fails with
      an exact lower bound above m^-3: then no C works at this size;
    - holds-empirically when some C of the grid, and every larger one, separates in all ``n_draws`` draws (the
      measured C, with its exact upper bound on the failure rate; m^-3 itself would need ~m^3 draws);
    - inconclusive otherwise.
    """
    from scipy.stats import beta

    rate = float(m) ** -3
    fa = 1e-6
    lim_ss = np.random.SeedSequence([ctx.seed, 0]).spawn(n_limit)
    lim = [float(limit_trial(np.random.default_rng(s))) for s in lim_ss]
    k_lim = sum(x <= 0 for x in lim)
    lim_lower = 0.0 if k_lim == 0 else float(beta.ppf(fa, k_lim, n_limit - k_lim + 1))
    rows = []
    for ci, C in enumerate(Cs):
        ss = np.random.SeedSequence([ctx.seed, 1, ci]).spawn(n_draws)
        k = sum(not finite_trial(C, np.random.default_rng(s)) for s in ss)
        rows.append({"C": C, "d_k": math.ceil(C * math.log(m)), "failures": k, "draws": n_draws,
                     "upper_bound_failure_rate": failure_rate_upper_bound(k, n_draws, false_alarm=fa)})
    zero_from = None
    for i in range(len(rows)):
        if all(r["failures"] == 0 for r in rows[i:]):
            zero_from = rows[i]
            break
    c0 = d_model / math.log(m)
    hyps = [f"(m, d_model) = ({m}, {d_model}): d_model >= c0 ln m with c0 = {c0:.1f}", "d_k = ceil(C ln m)",
            "tau = d_k / 2", *extra_hypotheses]
    measured = {"limit_failures": f"{k_lim}/{n_limit} (min limit margin {min(lim):.3g}, exact lower bound "
                                  f"{lim_lower:.3g} at false alarm {fa:g})",
                "failures_by_C": {r["C"]: f"{r['failures']}/{r['draws']}" for r in rows},
                "measured_C": zero_from["C"] if zero_from else None}
    params = {"m": m, "d_model": d_model, "c0": c0, "C_grid": list(Cs), "n_draws": n_draws, "n_limit": n_limit,
              "claimed_failure_rate": rate, "false_alarm": fa, "table": rows}
    if lim_lower > rate:
        status = Status.REFUTED
        params.update(reading_record(hyps, {
            f"non-asymptotic: c0 = {c0:.1f} counts as sufficiently large at m = {m}":
                f"{FAILS}: the d_k -> infinity limit fails in {k_lim}/{n_limit} draws, so no C works",
            "asymptotic: c0 larger than d_model / ln m at this size": f"{NOT_TESTED}: not admissible at this (m, d_model)"}))
    elif zero_from is not None:
        status = Status.HOLDS_EMPIRICALLY
    else:
        status = Status.INCONCLUSIVE
    return Verdict(
        status=status,
        paper_value=f"for a sufficiently large C, {what} separates every ordered pair w.p. >= 1 - m^-3 = 1 - {rate:.3g}",
        measured_value=measured, params=params,
        witness={"first_limit_failure": next((i for i, x in enumerate(lim) if x <= 0), None)} if status is Status.REFUTED else None,
        evidence=f"Monte Carlo: {n_limit} draws of the exact d_k -> infinity limit, {n_draws} fresh draws per C of "
                 f"(graph, X, W_sig); exact Clopper-Pearson bounds at false alarm {fa:g}",
        details=("Refuted only when the limit fails (then no C works at this size, under the reading that this c0 is "
                 "admissible); holds-empirically when the failure count reaches 0/n at some C of the grid and stays "
                 "there, which is the measured constant (its upper bound is what n draws can certify; m^-3 would need "
                 "about m^3 draws); inconclusive otherwise."),
    )


def _rng(seed: int) -> np.random.Generator:
    return np.random.default_rng(seed)


def _full(ctx: CheckContext) -> bool:
    return Tier(ctx.tier).rank >= Tier.FULL.rank


# --------------------------------------------------------------------------------- Theorem B.1 / Algorithm 3


def _check_alg3_layout(ctx: CheckContext) -> Verdict:
    strat = st.tuples(st.integers(1, 30), st.integers(1, 24), st.floats(0.01, 0.49), seeds_strategy())

    def prop(ex):
        m, d_k, p, seed = ex
        r = _rng(seed)
        g = random_permutation_graph(m, rng=r)
        c = algorithm3(g, d_k=d_k, rng=r, p=p)
        assert c.n_heads == 1 and c.W_Q.shape == (1, m, d_k), f"shape {c.W_Q.shape}"
        assert np.array_equal(c.X, np.eye(m)), "X is not one-hot"
        assert np.array_equal(c.W_K[0], c.W_sig), "W_K != W_sig"
        assert np.array_equal(c.W_Q[0], c.W_sig[g.perm]), "row i of W_Q is not row pi(i) of W_K"
        assert set(np.unique(c.W_sig)) <= {0.0, 1.0}, "signatures not Bernoulli"
        assert math.isclose(c.tau, (p + p * p) * d_k / 2), f"tau {c.tau}"
        S = c.W_Q[0] @ c.W_K[0].T
        assert np.array_equal(np.diag(S[:, g.perm]), c.W_sig[g.perm].sum(axis=1)), "edge score != ||k||^2"
        return None

    return property_verdict(prop, strat, ctx=ctx, max_examples=40,
                            paper_value="W_K ~ Bernoulli(p), q_i = k_pi(i), tau = (p + p^2) d_k / 2, one head")


def _exact_tails(p: float, d_k: int):
    tau = (p + p * p) * d_k / 2
    return tau, float(_st.binom.cdf(math.floor(tau), d_k, p)), float(_st.binom.sf(math.ceil(tau) - 1, d_k, p * p))


def _check_b1_certificate(ctx: CheckContext) -> Verdict:
    rows, worst = [], 0.0
    for p in (0.1, 0.25, 0.4):
        C = K.paper_c_theorem_b1(p)["C_paper"]
        for m in (8, 64, 512, 4096, 2**15, 2**18):
            d_k = math.ceil(C * math.log(m))
            ub = K.union_bound_algorithm3(m, d_k, p)
            rows.append({"p": p, "m": m, "d_k": d_k, "union_bound": ub, "m^-3": m ** -3.0})
            worst = max(worst, ub * m ** 3)
    status = Status.VERIFIED if worst <= 1 else Status.REFUTED
    return Verdict(status=status, paper_value="P(separation fails) <= m^-3 at d_k = C ln m, C > max{3/c1, 2/c2}",
                   measured_value=f"max over grid of (exact union bound) * m^3 = {worst:.3g}",
                   witness=None if status is Status.VERIFIED else rows, params={"grid": rows},
                   evidence="exact binomial tails (scipy) and a union bound over all pairs: a rigorous certificate")


def _mc_onehot(ctx, *, m, d_k, p, rate, signatures):
    """Monte Carlo over fresh signature draws of a one-hot construction (the permutation does not matter: edge
    scores are ||w_a||^2 and non-edge scores range over all w_a . w_b with a != b)."""
    import torch

    n = zero_failure_sample_size(rate, false_alarm=1e-6)
    gen = torch.Generator().manual_seed(int(ctx.seed))
    tau = (p + p * p) * d_k / 2 if signatures == "bernoulli" else d_k / 2
    oks = []
    batch = 256
    while len(oks) < n:
        b = min(batch, n - len(oks))
        if signatures == "bernoulli":
            W = (torch.rand((b, m, d_k), generator=gen, dtype=torch.float64) < p).double()
        else:
            W = torch.randint(0, 2, (b, m, d_k), generator=gen).double() * 2 - 1
        G = W @ W.transpose(1, 2)  # [b, m, m]
        diag = torch.diagonal(G, dim1=1, dim2=2)
        off = G - torch.diag_embed(diag) - torch.diag_embed(torch.full_like(diag, math.inf))
        ok = (diag.amin(1) > tau) & (off.amax((1, 2)) < tau)
        oks.extend(ok.tolist())
    return monte_carlo_verdict(lambda i: (bool(oks[i]), {"draw": i, "torch_seed": int(ctx.seed)}), n_trials=n,
                               claimed_failure_rate=rate, params={"m": m, "d_k": d_k, "p": p, "tau": tau,
                                                                  "signatures": signatures})


def _check_b1_montecarlo(ctx: CheckContext) -> Verdict:
    cert = K.certified_c_algorithm3(64, 0.25)
    return _mc_onehot(ctx, m=64, d_k=cert["d_k"], p=0.25, rate=1e-2, signatures="bernoulli")


def _check_b1_minimal_c(ctx: CheckContext) -> Verdict:
    ms = (64, 256, 1024, 4096, 2**14, 2**16)
    cert = [K.certified_c_algorithm3(m, 0.25) for m in ms]
    emp_ms = (64, 128, 256) if _full(ctx) else (64,)
    emp = K.measured_constants("theorem-b1", m_values=emp_ms, n_draws=3, seed=ctx.seed)
    table = {"certified": cert, "empirical": emp["rows"], "C_paper": K.paper_c_theorem_b1(0.25)}
    v = exponent_verdict([math.log(m) for m in ms], [c["d_k"] for c in cert], claimed=1.0, tol=0.25,
                         paper_value="d_k = C log m with C depending only on p suffices",
                         what="certified minimal d_k vs ln m (p = 1/4)", params={"m": ms}, table=table)
    return Verdict(status=v.status, paper_value=v.paper_value,
                   measured_value=v.measured_value + f"; certified C in [{min(c['C'] for c in cert):.1f}, "
                   f"{max(c['C'] for c in cert):.1f}], empirical C (all draws separate) "
                   f"{[round(r['empirical_C'], 1) for r in emp['rows'] if r['empirical_C']]}, "
                   f"proof's C_paper = {table['C_paper']['C_paper']:.1f}",
                   witness=v.witness, params=v.params, details=jsonable(table), evidence=v.evidence)


# ------------------------------------------------------------------------------- Theorem B.2 / Lemma B.3


def _small_alg1(ex):
    m, d, d_k, B, seed = ex
    r = _rng(seed)
    g = random_permutation_graph(m, rng=r)
    X = gaussian_unit_norm_embeddings(m, d, rng=r)
    return algorithm1(g, X, d_k=d_k, rng=r, block_size=B)


_alg1_cases = st.tuples(st.integers(2, 24), st.integers(1, 12), st.integers(1, 10), st.integers(1, 12), seeds_strategy())


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
    from ..constructions import Construction, _weights_from_blocks

    W_Q, W_K = _weights_from_blocks(c.X_inv, W, c.blocks)
    return Construction(algorithm=c.algorithm, graph=c.graph, X=c.X, X_inv=c.X_inv, W_sig=W, W_Q=W_Q, W_K=W_K,
                        tau=c.tau, aggregation=c.aggregation, blocks=c.blocks, signatures=c.signatures,
                        block_size=c.block_size)


_tiny_cases = st.tuples(st.integers(2, 4), st.integers(1, 3), st.just(1), st.integers(1, 4), seeds_strategy())


def _mean_zero_check(term: str):
    def check(ctx: CheckContext) -> Verdict:
        def prop(ex):
            c = _small_alg1(ex)
            means, _ = _exhaustive_means(c)
            worst = max(float(np.abs(mk[term]).max()) for mk in means)
            assert worst <= 1e-12, (f"E[{term} | X] is not zero: max |E[{term} | X]| = {worst:.4g} "
                                    f"(m={c.m}, d_model={c.d_model}, d_k={c.d_k})")
            return None

        return property_verdict(prop, _tiny_cases, ctx=ctx, max_examples=25,
                                paper_value=f"{term} is a sum of d_k i.i.d. mean-zero terms given X",
                                describe=lambda ex: {"m": ex[0], "d_model": ex[1], "d_k": ex[2], "block_size": ex[3],
                                                     "seed": ex[4], "note": "X, pi, blocks from algorithm1 with "
                                                     "numpy default_rng(seed); mean exact over all 2^(m d_k) signatures"})
    return check


def _check_conditional_means(ctx: CheckContext) -> Verdict:
    def prop(ex):
        c = _small_alg1(ex)
        means, formula = _exhaustive_means(c)
        worst = max(float(np.abs(mk[t] - fk[t]).max()) for mk, fk in zip(means, formula) for t in mk)
        assert worst <= 1e-9, f"conditional means differ from the formulas by {worst:.3g}"
        return {"max_abs_difference": worst}

    return property_verdict(prop, _tiny_cases, ctx=ctx, max_examples=25,
                            paper_value="E[N3 | X] = d_k <delta_{i, pi^-1(T_k)}, delta_{j, T_k}>")


def _check_n1_sqrt_dk(ctx: CheckContext) -> Verdict:
    m, d = 256, 32
    dks = (8, 32, 128, 512, 1024)
    r = ctx.rng(0)
    g = random_permutation_graph(m, rng=r)
    X = gaussian_unit_norm_embeddings(m, d, rng=r)
    xs, ys = [], []
    for d_k in dks:
        c = algorithm1(g, X, d_k=d_k, rng=r)
        worst = max(float(np.abs(noise_terms(c, k)["N1"]).max()) for k in range(min(c.n_heads, 2)))
        xs.append(d_k)
        ys.append(worst)
    return exponent_verdict(xs, ys, claimed=0.5, tol=0.15, upper=True, what="max |N1| vs d_k at (m, d_model) = (256, 32)",
                            paper_value="|N1| <= C4 sqrt(C2 d_k log m) for an absolute C4 (grows like sqrt(d_k))",
                            params={"m": m, "d_model": d, "d_k": dks, "heads_measured": 2})


def _check_signal_constant(ctx: CheckContext) -> Verdict:
    """Smallest C_star with m^2 P(|sum of d_k Rademachers| >= C_star sqrt(d_k ln m)) <= m^-5 (exact tails)."""
    rows, xs, ys = [], [], []
    for m in (64, 256, 1024, 4096, 2**14, 2**16):
        for C in (5.0, 20.0):
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
            rows.append({"m": m, "C": C, "d_k": d_k, "C_star": hi})
            xs.append(lnm)
            ys.append(hi)
    v = exponent_verdict(xs, ys, claimed=0.0, tol=0.15, upper=True, what="minimal C_star vs ln m (exact Rademacher tails, "
                         "union bound over m^2 pairs at level m^-5)",
                         paper_value="|Signal| <= C_star sqrt(d_k log m) for all same-block non-edges w.p. >= 1 - m^-5, "
                                     "C_star absolute", params={"C": (5.0, 20.0)}, table=rows)
    return Verdict(status=v.status, paper_value=v.paper_value,
                   measured_value=f"C_star from {min(ys):.2f} to {max(ys):.2f} (Hoeffding limit sqrt(14) = 3.74); "
                   + str(v.measured_value), witness=v.witness, params=v.params, details=v.details,
                   evidence=v.evidence + "; exact binomial tails")


def _check_n3_fluct_sqrt_dk(ctx: CheckContext) -> Verdict:
    m, d = 256, 32
    r = ctx.rng(0)
    g = random_permutation_graph(m, rng=r)
    X = gaussian_unit_norm_embeddings(m, d, rng=r)
    xs, ys = [], []
    for d_k in (16, 64, 256, 1024):
        c = algorithm1(g, X, d_k=d_k, rng=r)
        t = noise_terms(c, 0)
        xs.append(d_k)
        ys.append(float(np.abs(t["N3"] - t["E_N3"]).max()))
    return exponent_verdict(xs, ys, claimed=0.5, tol=0.15, upper=True,
                            what=f"max |N3 - E[N3 | X]| vs d_k at (m, d_model) = ({m}, {d}), head 0",
                            paper_value="|N3 - E[N3 | X]| <= C5 C2 sqrt(d_k log m) w.h.p.",
                            params={"m": m, "d_model": d})


def _check_b3_diag(ctx: CheckContext) -> Verdict:
    def prop(ex):
        m, d, seed = ex
        X = gaussian_unit_norm_embeddings(m, d, rng=_rng(seed))
        U = X @ X.T
        err = float(np.abs(np.diag(U) - 1).max())
        assert err <= 1e-12, f"u_i(i) - 1 = {err:.3g}"
        return None

    return property_verdict(prop, st.tuples(st.integers(1, 64), st.integers(1, 64), seeds_strategy()), ctx=ctx,
                            paper_value="u_i(i) = 1 deterministically")


def _leakage_masses(X, perm, B):
    """Max over i, k of ||delta_{i, V_k minus i}||^2 and ||delta_{i, T_k}||^2 (Lemma B.3 item 2)."""
    m = X.shape[0]
    D = X @ X.T - np.eye(m)
    D2 = D ** 2
    worst = 0.0
    for s in range(0, m, B):
        src = np.arange(s, min(s + B, m))
        worst = max(worst, float(D2[:, src].sum(1).max()), float(D2[:, perm[src]].sum(1).max()))
    return worst


def _leakage_worst_draws(r: np.random.Generator, m: int, d: int, n: int) -> list[float]:
    """Per draw, max over i, k and S in {V_k minus i, T_k} of ||delta_{i,S}||^2 (Lemma B.3 item 2), blocks of d."""
    worst: list[float] = []
    batch = max(1, min(125, 2_000_000 // (m * m)))
    while len(worst) < n:
        b = min(batch, n - len(worst))
        raw = r.standard_normal((b, m, d))
        X = raw / np.linalg.norm(raw, axis=2, keepdims=True)  # [b, m, d] Gaussian unit-norm rows
        D2 = (X @ X.transpose(0, 2, 1)) ** 2  # [b, m, m]
        D2[:, np.arange(m), np.arange(m)] = 0.0  # delta_i(i) = 0
        perms = np.argsort(r.random((b, m)), axis=1)
        for t in range(b):
            blocks = perms[t].reshape(-1, d)  # T_k = pi(V_k) for consecutive V_k
            vk = D2[t].reshape(m, -1, d).sum(2).max()
            tk = max(float(D2[t][:, blk].sum(1).max()) for blk in blocks)
            worst.append(max(float(vk), tk))
    return worst


def _check_b3_leakage_mc(ctx: CheckContext) -> Verdict:
    m, d_ok, d_paper, C2 = 256, 128, 32, 2.0
    n = zero_failure_sample_size(0.05)
    ok = _leakage_worst_draws(ctx.rng(1), m, d_ok, n)  # c0 = 23, well above the measured minimal c0 (about 10)
    paper = _leakage_worst_draws(ctx.rng(0), m, d_paper, n)  # the experiments' (256, 32): c0 = 5.8
    v = monte_carlo_verdict(lambda i: (ok[i] <= C2, {"draw": i, "max_leakage_mass": ok[i]}), n_trials=n,
                            claimed_failure_rate=float(m) ** -4,
                            paper_value="||delta_{i,S}||^2 <= C2 = 2 for all i, k, S in {V_k minus i, T_k} "
                                        "w.p. >= 1 - m^-4 once d_model >= c0 log m, c0 large",
                            params={"m": m, "d_model": d_ok, "c0": d_ok / math.log(m), "C2": C2,
                                    "max_mass_seen": max(ok)})
    k_paper = sum(x > C2 for x in paper)
    from scipy.stats import beta

    lo_paper = 0.0 if k_paper == 0 else float(beta.ppf(1e-6, k_paper, n - k_paper + 1))
    reading = {f"c0 = {d_ok / math.log(m):.1f} (d_model = {d_ok}) sufficiently large":
               (f"{FAILS}: {v.measured_value}" if v.status is Status.REFUTED else f"{HOLDS}: {v.measured_value}"),
               f"c0 = {d_paper / math.log(m):.1f} (the experiments' (256, 32)) sufficiently large":
               (f"{FAILS}: {k_paper}/{n} draws exceed C2 (exact lower bound {lo_paper:.3g} > m^-4)"
                if lo_paper > float(m) ** -4 else f"{HOLDS}: {k_paper}/{n} draws exceed C2")}
    if v.status is Status.REFUTED:
        return with_readings(v, [f"d_model = {d_ok} >= c0 ln m, c0 = {d_ok / math.log(m):.1f}", "C2 = 2 (the lemma's e.g.)",
                                 "blocks of d_model consecutive sources, T_k = pi(V_k), pi uniform"], reading)
    k = int(str(v.measured_value).split("/")[0])
    status = Status.HOLDS_EMPIRICALLY if k == 0 else v.status
    return Verdict(status=status, paper_value=v.paper_value,
                   measured_value={"admissible c0": v.measured_value,
                                   "paper size (256, 32)": f"{k_paper}/{n} draws exceed C2 = 2 (max {max(paper):.3g})"},
                   params={**v.params, "readings": reading}, evidence=v.evidence,
                   details="holds-empirically: no draw at the admissible c0 exceeds C2 (m^-4 itself would need ~6e10 "
                           "draws; the upper bound shown is what these draws certify). At the experiments' (256, 32) "
                           "the conclusion fails often, but c0 = 5.8 is below the measured minimal c0 "
                           "(lemb3-leakage-minimal-c0), so that is a finding about the experiments' sizes, not a "
                           "refutation of the lemma.")


def _max_leakage(m, d, perm, r):
    """Max over i, k and S in {V_k minus i, T_k} of ||delta_{i,S}||^2 for one Gaussian unit-norm draw, blocks of d."""
    X = gaussian_unit_norm_embeddings(m, d, rng=r)
    D2 = (X @ X.T) ** 2
    np.fill_diagonal(D2, 0.0)
    worst = 0.0
    for s in range(0, m, d):
        src = np.arange(s, min(s + d, m))
        worst = max(worst, float(D2[:, src].sum(1).max()), float(D2[:, perm[src]].sum(1).max()))
    return worst


def _check_b3_leakage_c0(ctx: CheckContext) -> Verdict:
    ms = (256, 512, 1024, 2048) if _full(ctx) else (256, 512)
    n = 10
    rows = []
    for m in ms:
        seeds = [int(x) for x in ctx.rng(m).integers(0, 2**63 - 1, size=n)]

        def ok(d, m=m, seeds=seeds):
            res = []
            for sd in seeds:
                r = np.random.default_rng(sd)
                res.append(_max_leakage(m, d, r.permutation(m), r))
            return max(res) <= 2.0

        hi = K.smallest_passing(ok, 1, m)  # d_model = m is taken to pass and 1 to fail (not evaluated)
        rows.append({"m": m, "d_model_min": hi, "c0_min": hi / math.log(m)})
    v = exponent_verdict([r_["m"] for r_ in rows], [r_["c0_min"] for r_ in rows], claimed=0.0, tol=0.25, upper=True,
                         what="minimal c0 = d_model / ln m at which Lemma B.3 item 2 (C2 = 2) holds in all 10 draws, vs m",
                         paper_value="item 2 holds once d_model >= c0 log m for an absolute c0",
                         params={"m": ms, "n_draws": n}, table=rows)
    paper = [(m_, d_) for m_, d_ in K.PAPER_SIZES if d_ >= max(r_["c0_min"] for r_ in rows) * math.log(m_)]
    return Verdict(status=v.status, paper_value=v.paper_value,
                   measured_value=f"c0 = {[round(r_['c0_min'], 1) for r_ in rows]} at m = {list(ms)}; paper sizes "
                                  f"meeting the largest: {paper}; " + str(v.measured_value),
                   witness=v.witness, params=v.params, details=v.details, evidence=v.evidence)


def _cross_corr(X, perm, B, *, same: bool):
    """max |sum_{a in T_k} delta_i(pi^-1(a)) delta_j(a)| over k and (i = j if same else i != j)."""
    m = X.shape[0]
    D = X @ X.T - np.eye(m)
    worst = 0.0
    for s in range(0, m, B):
        src = np.arange(s, min(s + B, m))
        M = D[:, src] @ D[:, perm[src]].T  # [m, m]: sum over a in T_k of delta_i(pi^-1 a) delta_j(a)
        if same:
            worst = max(worst, float(np.abs(np.diag(M)).max()))
        else:
            np.fill_diagonal(M, 0.0)
            worst = max(worst, float(np.abs(M).max()))
    return worst


def _random_derangement(m: int, r: np.random.Generator) -> np.ndarray:
    """A uniform random permutation without fixed points (rejection sampling; about e tries)."""
    while True:
        perm = r.permutation(m)
        if not np.any(perm == np.arange(m)):
            return perm


def _cross_corr_sweep(ctx, *, identity: bool, derangement: bool = False):
    h = 4
    ds = (16, 32, 64, 128, 256) if _full(ctx) else (16, 32, 64, 128)
    xs, ys, table = [], [], []
    for d in ds:
        m = h * d
        vals = []
        for rep in range(2):
            r = ctx.rng(d, rep, 1) if derangement else ctx.rng(d, rep)
            perm = np.arange(m) if identity else (_random_derangement(m, r) if derangement else r.permutation(m))
            X = gaussian_unit_norm_embeddings(m, d, rng=r)
            vals.append(_cross_corr(X, perm, d, same=identity or derangement) / math.sqrt(math.log(m) / d))
            xs.append(d)
            ys.append(vals[-1])
        table.append({"d_model": d, "m": m, "ratio": vals})
    what = ("max_i |sum_a delta_i(pi^-1 a) delta_i(a)| / sqrt(ln m / d_model), pi = identity, j = i" if identity else
            "max_i |sum_a delta_i(pi^-1 a) delta_i(a)| / sqrt(ln m / d_model), random derangement pi, j = i"
            if derangement else "max_{i != j, k} |sum_a delta_i(pi^-1 a) delta_j(a)| / sqrt(ln m / d_model), random pi")
    return exponent_verdict(xs, ys, claimed=0.0, tol=0.15, upper=True, what=what,
                            paper_value="|sum_{a in T_k} delta_{i,pi^-1(a)} delta_{j,a}| <= C3 sqrt(log m / d_model) for "
                                        "all i, j, k (absolute C3: the ratio stays bounded)",
                            params={"h": h, "d_model": ds, "identity_permutation": identity}, table=table)


def _check_b3_cross_random(ctx):
    return _cross_corr_sweep(ctx, identity=False)


def _check_b3_cross_identity(ctx):
    v = _cross_corr_sweep(ctx, identity=True)
    if v.status is not Status.REFUTED:
        return v
    der = _cross_corr_sweep(ctx, identity=False, derangement=True)  # j = i, no fixed points
    return with_readings(v, ["X Gaussian unit-norm, d_model = m / 4 from 16 up (h = 4 heads of d_model sources)",
                             "j = i (the item says 'for all j')", "pi = identity: a permutation whose edges are all "
                             "self-loops"],
                         {"permutation graphs may have fixed points (self-loops)": f"{FAILS}: {v.measured_value}",
                          "permutation graphs without self-loops (derangements; App. A.3's graphs have none)":
                              f"{HOLDS if der.status is Status.VERIFIED else FAILS}: j = i, random derangement: "
                              f"{der.measured_value}"})


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


# ------------------------------------------------- Definition B.4, Theorem B.5, Algorithm 4, Corollaries B.6-B.7


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
        r = _rng(seed)
        X = binary_compressive_embeddings(m, d, 0.5, rng=r) if binary else gaussian_unit_norm_embeddings(m, d, rng=r)
        ip = restricted_self_incoherence(X, B)
        eps, rho, gamma = _brute_incoherence(X, B, ip.mu)
        for name, a, b in (("eps_d", ip.eps_d, eps), ("rho", ip.rho, rho), ("gamma", ip.gamma, gamma)):
            assert abs(a - b) <= 1e-10, f"{name}: sort gives {a}, brute force gives {b}"
        return None

    strat = st.tuples(st.integers(2, 6), st.integers(1, 4), st.integers(1, 3), seeds_strategy(), st.booleans())
    return property_verdict(prop, strat, ctx=ctx, max_examples=30,
                            paper_value="(eps_d, rho, gamma) of Definition B.4 (max over subsets |S| <= B)")


def _check_alg4_layout(ctx: CheckContext) -> Verdict:
    strat = st.tuples(st.integers(2, 30), st.integers(1, 12), st.integers(1, 10), st.integers(1, 12),
                      st.floats(0.005, 0.05), seeds_strategy())

    def prop(ex):
        m, d, d_k, B, p, seed = ex
        r = _rng(seed)
        g = random_permutation_graph(m, rng=r)
        X = binary_compressive_embeddings(m, d, 0.5, rng=r)
        c = algorithm4(g, X, d_k=d_k, block_size=B, rng=r, p=p)
        mu = float(np.mean(np.sum(X * X, axis=1)))
        assert c.n_heads == math.ceil(m / B), f"h = {c.n_heads}"
        assert np.allclose(c.X_inv, X.T / mu), "X_inv != X^T / mu"
        assert math.isclose(c.tau, (p + p * p) * d_k / 2), "tau"
        srcs = np.concatenate([c.sources(k) for k in range(c.n_heads)])
        assert np.array_equal(np.sort(srcs), np.arange(m)), "V_k do not partition V"
        for k in range(c.n_heads):
            assert len(c.sources(k)) <= B and np.array_equal(c.targets(k), g.perm[c.sources(k)]), "T_k != pi(V_k)"
            WQp, WKp = c.templates(k)
            assert np.allclose(c.W_Q[k], c.X_inv @ WQp) and np.allclose(c.W_K[k], c.X_inv @ WKp), "W != X_inv W'"
        return None

    return property_verdict(prop, strat, ctx=ctx, max_examples=30,
                            paper_value="W^(k) = X_inv W'^(k), X_inv = X^T / mu, h = ceil(m / B), |V_k| <= B")


def _bernoulli_limit_margin(c):
    """d_k -> infinity limit of S_max / d_k for Bernoulli(p) signatures, margin against tau / d_k = (p + p^2) / 2."""
    p = c.p
    U = c.X @ c.X_inv
    out = np.full((c.m, c.m), -np.inf)
    for blk in c.blocks:
        src, tgt = blk[:, 0], blk[:, 1]
        a = U[:, src].sum(1)
        b = U[:, tgt].sum(1)
        lim = p * p * np.outer(a, b) + (p - p * p) * (U[:, src] @ U[:, tgt].T)
        out = np.maximum(out, lim)
    return separation_margins(c, scores=out, tau=(p + p * p) / 2, max_failures=3)


def _check_b5_limit(ctx: CheckContext) -> Verdict:
    m, d = 256, 128
    r = ctx.rng(0)
    g = random_permutation_graph(m, rng=r)
    X = gaussian_unit_norm_embeddings(m, d, rng=r)
    rows, bad = [], []
    for B in (1, 2, 4, 8, 16, 32):
        ip = restricted_self_incoherence(X, B, with_gamma=False)
        if ip.rho * math.log(m) <= 1:  # gamma (O(m^3)) only matters where rho already meets the hypothesis
            ip = restricted_self_incoherence(X, B)
        c = algorithm4(g, X, d_k=1, block_size=B, rng=r, p=0.05)
        mg = _bernoulli_limit_margin(c)
        row = {"B": B, "eps_d": ip.eps_d, "rho_ln_m": ip.rho * math.log(m),
               "gamma_ln_m": ip.gamma * math.log(m) if not math.isnan(ip.gamma) else None,
               "limit_margin_over_dk": mg.margin, "limit_best_margin_over_dk": mg.best_margin}
        rows.append(row)
        if row["rho_ln_m"] <= 1 and row["gamma_ln_m"] is not None and row["gamma_ln_m"] <= 1 and mg.margin <= 0:
            bad.append(row)
    hyp = [r_ for r_ in rows if r_["rho_ln_m"] <= 1 and r_["gamma_ln_m"] is not None and r_["gamma_ln_m"] <= 1]
    if bad:
        status = Status.REFUTED
    elif hyp:
        status = Status.VERIFIED
    else:
        status = Status.INCONCLUSIVE
    return Verdict(status=status,
                   paper_value="rho, gamma <= c/log m (and eps_d <= c1) => Algorithm 4 separates for large C",
                   measured_value=f"{len(hyp)} block sizes meet rho ln m, gamma ln m <= 1; limit margin > 0 at all of them: "
                                  f"{not bad}; smallest B with negative limit margin: "
                                  f"{min((r_['B'] for r_ in rows if r_['limit_margin_over_dk'] <= 0), default=None)}",
                   witness=bad or None, params={"m": m, "d_model": d, "p": 0.05, "reading": "c1 = c2 = c3 = 1"},
                   details=jsonable(rows), evidence="exact d_k -> infinity limit of S / d_k (law of large numbers) "
                   "and exact Definition B.4 parameters on one Gaussian unit-norm X")


def _incoherence_sweep(ctx, *, family: str, param: str):
    """Sweeps for Corollaries B.6/B.7: the measured parameter over its claimed rate, against the growing variable."""
    rows, xs, ys = [], [], []
    gamma = param == "gamma"
    if family == "gun-b4":  # Cor. B.6 at fixed B = 4, d_model = 64, growing m
        if gamma:
            ms = (64, 128, 256, 512, 1024) if _full(ctx) else (64, 96, 128, 192, 256)
        else:
            ms = (64, 128, 256, 512, 1024, 2048, 4096) if _full(ctx) else (64, 128, 256, 512, 1024, 2048)
        for m in ms:
            for rep in range(2):
                X = gaussian_unit_norm_embeddings(m, 64, rng=ctx.rng(m, rep))
                ip = restricted_self_incoherence(X, 4, chunk=16, with_gamma=gamma)
                raw = ip.gamma_offdiag if gamma else ip.rho
                val = raw / (math.sqrt(4 / 64) if gamma else 4 / 64)
                rows.append({"m": m, "B": 4, "d_model": 64, param: raw, "ratio": val})
                xs.append(math.log(m))
                ys.append(val)
        what = f"{param} / (claimed rate) vs ln m (Gaussian unit-norm, B = 4, d_model = 64)"
    elif family == "gun-bd":  # Cor. B.6's choice B = d_model: rho ln m must stay bounded for Theorem B.5
        for d in ((16, 32, 64, 128, 256, 512) if _full(ctx) else (16, 32, 64, 128, 256)):
            m = 4 * d
            X = gaussian_unit_norm_embeddings(m, d, rng=ctx.rng(d))
            ip = restricted_self_incoherence(X, d, with_gamma=False)
            val = ip.rho * math.log(m)
            rows.append({"m": m, "B": d, "d_model": d, "rho": ip.rho, "rho_ln_m": val})
            xs.append(math.log(m))
            ys.append(val)
        what = "rho * ln m at B = d_model, m = 4 d_model (Theorem B.5 needs it <= c2)"
    else:  # Cor. B.7: RBCE with p_B = 2 ln m / d_model (mu = 2 ln m), growing d_model at fixed m, p_B <= 0.4
        if gamma:  # gamma costs O(m^3)
            m, dims = (512, (32, 64, 128, 256)) if _full(ctx) else (192, (24, 48, 96))
        else:
            m, dims = (4096, (64, 128, 256, 512, 1024)) if _full(ctx) else (1024, (32, 64, 128, 256))
        for d in dims:
            for rep in range(2):
                pB = 2 * math.log(m) / d
                X = binary_compressive_embeddings(m, d, pB, rng=ctx.rng(d, rep))
                mu = d * pB
                ip = restricted_self_incoherence(X, 4, mu=mu, chunk=64, with_gamma=gamma)
                if param == "eps_d":
                    val = ip.eps_d * math.sqrt(mu)
                elif param == "rho":
                    val = ip.rho / (4 / d)
                else:
                    val = ip.gamma_offdiag / (4 * pB * pB)
                rows.append({"m": m, "d_model": d, "p_B": pB, "mu": mu, "B": 4, "eps_d": ip.eps_d, "rho": ip.rho,
                             "gamma_offdiag": ip.gamma_offdiag, "ratio": val})
                xs.append(d)
                ys.append(val)
        rate = {"eps_d": "eps_d sqrt(mu)", "rho": "rho / (B / d_model)", "gamma": "gamma / (B p_B^2)"}[param]
        what = f"{rate} vs d_model (RBCE, m = {m}, p_B = 2 ln m / d_model, B = 4)"
    return exponent_verdict(xs, ys, claimed=0.0, tol=0.25, upper=True, what=what,
                            paper_value="the parameter is <~ its stated rate (absolute constant: the ratio stays bounded)",
                            params={"family": family, "param": param}, table=rows)


def _check_b7_gamma(ctx: CheckContext) -> Verdict:
    v = _incoherence_sweep(ctx, family="rbce", param="gamma")
    if v.status is not Status.REFUTED:
        return v
    return with_readings(v, ["X in {0,1}^(m x d_model), i.i.d. Bernoulli(p_B), p_B = c log m / d_model",
                             "mu = d_model p_B, X_inv = X^T / mu", "gamma over i != j and |S| <= B (Definition B.4)",
                             "d_model <= m / 2 (compressive)"],
                         {"p_B = 2 ln m / d_model (measured)": f"{FAILS}: {v.measured_value}",
                          "any constant c in p_B = c log m / d_model (the corollary's Theta)":
                              f"{FAILS}: one item a sharing a coordinate with both x_i and x_j (some pair has one) "
                              "gives gamma >= 1/mu^2 = 1/(c log m)^2, while B p_B^2 = B (c log m)^2 / d_model^2; the "
                              "ratio d_model^2 / (B (c log m)^4) is unbounded once d_model >> log^2 m"})


def _check_b5_budget(ctx: CheckContext) -> Verdict:
    def prop(ex):
        m, d, d_k, B, seed = ex
        r = _rng(seed)
        c = algorithm4(random_permutation_graph(m, rng=r), gaussian_unit_norm_embeddings(m, d, rng=r), d_k=d_k,
                       block_size=B, rng=r)
        assert c.D_K == math.ceil(m / B) * d_k, f"D_K = {c.D_K}"
        ratio = c.D_K / (m / B * d_k)
        assert 1 <= ratio < 1 + B / m + 1e-12, f"D_K / (m d_k / B) = {ratio}"
        return None

    return property_verdict(prop, st.tuples(st.integers(2, 40), st.integers(1, 8), st.integers(1, 6),
                                            st.integers(1, 40), seeds_strategy()), ctx=ctx, max_examples=30,
                            paper_value="D_K = h d_k = Theta(m log m / B)")


# ------------------------------------------------------- Lemma B.8, Algorithm 5, Theorem B.9, Corollary B.10


@st.composite
def _digraphs(draw, max_m=16):
    m = draw(st.integers(1, max_m))
    pairs = draw(st.lists(st.tuples(st.integers(0, m - 1), st.integers(0, m - 1)), max_size=3 * m, unique=True))
    return Digraph(m=m, edges=np.asarray(pairs, dtype=np.int64).reshape(-1, 2))


def _check_b8(ctx: CheckContext) -> Verdict:
    strat = st.tuples(st.one_of(_digraphs(), st.builds(lambda m, r, s: random_regular_graph(m, min(r, m - 1), rng=_rng(s)),
                                                       st.integers(2, 24), st.integers(1, 8), seeds_strategy())),
                      st.integers(1, 10))

    def prop(ex):
        g, d = ex
        cols = konig_edge_coloring(g)
        assert is_proper_edge_coloring(g.edges, cols), "colouring not proper"
        if g.n_edges:
            assert cols.max() + 1 == g.max_degree, f"{cols.max() + 1} colours, Delta = {g.max_degree}"
        Ms = coloring_and_batching(g, d)
        H = math.ceil(g.n_edges / d) + g.max_degree
        assert len(Ms) <= H, f"{len(Ms)} matchings > H = {H}"
        allE = np.concatenate(Ms) if Ms else np.zeros((0, 2), np.int64)
        assert len(allE) == g.n_edges and len(np.unique(allE, axis=0)) == g.n_edges, "not a partition of E"
        for M in Ms:
            assert len(M) <= d, f"|M_k| = {len(M)} > d_model = {d}"
            assert len(np.unique(M[:, 0])) == len(M) and len(np.unique(M[:, 1])) == len(M), "M_k not a matching"
        return None

    return property_verdict(prop, strat, ctx=ctx, max_examples=60,
                            describe=lambda ex: {"m": ex[0].m, "edges": ex[0].edges.tolist(), "d_model": ex[1]},
                            paper_value="E = M_1 u ... u M_H, H = ceil(m'/d_model) + Delta, each a matching of size <= d_model")


def _check_alg5_layout(ctx: CheckContext) -> Verdict:
    strat = st.tuples(st.integers(2, 20), st.integers(1, 5), st.integers(1, 10), st.integers(1, 8), seeds_strategy())

    def prop(ex):
        m, r_, d, d_k, seed = ex
        r = _rng(seed)
        g = random_regular_graph(m, min(r_, m - 1), rng=r)
        X = gaussian_unit_norm_embeddings(m, d, rng=r)
        c = algorithm5(g, X, d_k=d_k, rng=r)
        assert c.tau == d_k / 2 and set(np.unique(c.W_sig)) <= {-1.0, 1.0}, "tau or signatures"
        assert c.n_heads <= math.ceil(g.n_edges / d) + g.max_degree, "too many heads"
        for k in range(c.n_heads):
            WQp, WKp = c.templates(k)
            assert np.allclose(c.W_Q[k], X.T @ WQp) and np.allclose(c.W_K[k], X.T @ WKp), "W != X^T W'"
        own = c.owner_heads()
        assert np.array_equal(own >= 0, g.adjacency), "every edge in exactly one head"
        return None

    return property_verdict(prop, strat, ctx=ctx, max_examples=30,
                            paper_value="Algorithm 5: Lemma B.8 matchings, shared Rademacher W_sig, X^T, tau = d_k/2")


def _check_b9_events(ctx: CheckContext) -> Verdict:
    def prop(ex):
        g, d = ex
        Ms = coloring_and_batching(g, d)
        tot = sum(len(M) ** 2 for M in Ms)
        assert tot <= d * g.n_edges, f"sum |M_k|^2 = {tot} > d_model m' = {d * g.n_edges}"
        return None

    return property_verdict(prop, st.tuples(_digraphs(24), st.integers(1, 12)), ctx=ctx, max_examples=60,
                            describe=lambda ex: {"m": ex[0].m, "edges": ex[0].edges.tolist(), "d_model": ex[1]},
                            paper_value="sum_k |M_k|^2 <= d_model m'")


def _check_b9_mc(ctx: CheckContext) -> Verdict:
    if not _full(ctx):
        return Verdict.not_run("finite-d_k Monte Carlo of Theorem B.9 runs in the full tier (about 5 minutes)")
    from ..measurements import limit_score_matrix

    m, d, r_ = 512, 384, 2

    def build(d_k, r):
        return algorithm5(random_regular_graph(m, r_, rng=r), gaussian_unit_norm_embeddings(m, d, rng=r), d_k=d_k, rng=r)

    def limit_trial(r):
        c = build(1, r)
        return separation_margins(c, scores=limit_score_matrix(c), tau=0.5, max_failures=1).margin

    def finite_trial(C, r):
        return separation_margins(build(math.ceil(C * math.log(m)), r), max_failures=1).margin > 0

    return whp_constant_sweep(ctx=ctx, m=m, d_model=d, Cs=(250.0, 500.0, 1000.0, 2000.0), n_draws=20, n_limit=300,
                              finite_trial=finite_trial, limit_trial=limit_trial,
                              what="Algorithm 5 (max over heads, 2-regular graphs)",
                              extra_hypotheses=["G 2-regular (union of 2 random perfect matchings), m' = 2m",
                                                "h = ceil(m'/d_model) + Delta heads (Lemma B.8)"])


def _check_b9_limit(ctx: CheckContext) -> Verdict:
    from ..measurements import limit_score_matrix

    m, d, r_ = 512, 384, 2
    rate = 0.5
    n = zero_failure_sample_size(rate)
    ss = np.random.SeedSequence(ctx.seed).spawn(n)

    def trial(i):
        r = np.random.default_rng(ss[i])
        g = random_regular_graph(m, r_, rng=r)
        c = algorithm5(g, gaussian_unit_norm_embeddings(m, d, rng=r), d_k=1, rng=r)
        mg = separation_margins(c, scores=limit_score_matrix(c), tau=0.5, max_failures=1)
        return mg.margin > 0, {"draw": i, "limit_margin": mg.margin, "failing": mg.failing_pairs}

    return monte_carlo_verdict(trial, n_trials=n, claimed_failure_rate=rate,
                               paper_value="for large C the max-over-heads scores of Algorithm 5 separate every "
                                           "ordered pair w.h.p. (here: the d_k -> infinity limit separates in a "
                                           f"fraction >= {1 - rate:g} of draws of (G, X))",
                               params={"m": m, "d_model": d, "r": r_})


def _check_b10(ctx: CheckContext) -> Verdict:
    strat = st.tuples(st.integers(4, 40), st.integers(1, 6), st.integers(1, 12), seeds_strategy())

    def prop(ex):
        m, r_, d, seed = ex
        g = random_regular_graph(m, min(r_, m - 1), rng=_rng(seed))
        h0 = math.ceil(g.n_edges / d)
        if g.max_degree > g.n_edges / d:  # (33) fails; the corollary does not apply
            return None
        cols = equitable_edge_coloring(g, h0)
        assert is_proper_edge_coloring(g.edges, cols), "not proper"
        sizes = np.bincount(cols, minlength=h0)
        assert sizes.max() <= d, f"largest colour class {sizes.max()} > d_model = {d} with h0 = {h0}"
        return None

    return property_verdict(prop, strat, ctx=ctx, max_examples=50,
                            paper_value="under (33), h_0 = ceil(m'/d_model) matchings of size <= d_model suffice")


def _check_complexity(ctx: CheckContext) -> Verdict:
    m, d, d_k = 128, 16, 8
    rs = (1, 2, 4, 8, 16, 32, 64) if _full(ctx) else (1, 2, 4, 8, 16, 32)
    xs, ys, rows = [], [], []
    for r_ in rs:
        g = random_regular_graph(m, r_, rng=ctx.rng(r_))
        Ms = coloring_and_batching(g, d)
        out_entries = 2 * len(Ms) * d * d_k  # entries of W_Q and W_K that any algorithm must write
        ratio = out_entries / (m * d * math.log(m))
        rows.append({"r": r_, "m_prime": g.n_edges, "heads": len(Ms), "output_entries": out_entries,
                     "ratio_to_m_dmodel_log_m": ratio})
        xs.append(r_)
        ys.append(ratio)
    return exponent_verdict(xs, ys, claimed=0.0, tol=0.2, upper=True, what="size of Algorithm 5's output / (m d_model ln m) vs degree r",
                            paper_value="all constructive algorithms run in O(m d_model log m)",
                            params={"m": m, "d_model": d, "d_k": d_k}, table=rows)


_READ = ("Natural log; d_k = ceil(C ln m); separation over all ordered pairs of V including (i, i). "
         "See docs/theorems.md.")

CLAIMS = (
    Claim(id="alg3-weights-layout", ref="Algorithm 3",
          statement="Algorithm 3 builds one head with X = I, W_K = Bernoulli(p) signatures, W_Q[i] = W_K[pi(i)] and "
                    "tau = (p + p^2) d_k / 2, so the true-edge score is ||k_pi(i)||^2",
          kind=Kind.DETERMINISTIC, tier=Tier.QUICK, check=_check_alg3_layout),
    Claim(id="thmb1-separation-certificate", ref="Theorem B.1",
          statement="At the proof's C = max{3/c1, 2/c2} the exact failure probability bound of Algorithm 3 is <= m^-3 "
                    "for p in {0.1, 0.25, 0.4} and m from 8 to 2^18",
          kind=Kind.HIGH_PROBABILITY, tier=Tier.QUICK, check=_check_b1_certificate,
          notes="Exact binomial tails and a union bound over m edges and m(m-1)/2 unordered non-edge row pairs."),
    Claim(id="thmb1-separation-montecarlo", ref="Theorem B.1",
          statement="Monte Carlo: Algorithm 3 (p = 1/4, m = 64, certified d_k) separates all pairs with failure "
                    "rate <= 1e-2 (the paper's 1 - m^-3 is certified exactly by thmb1-separation-certificate)",
          kind=Kind.HIGH_PROBABILITY, tier=Tier.QUICK, check=_check_b1_montecarlo),
    Claim(id="thmb1-minimal-constant-c", ref="Theorem B.1",
          statement="d_k = C log m with C depending only on p suffices: the certified minimal d_k grows like ln m "
                    "(measured C beside the proof's C)",
          kind=Kind.ASYMPTOTIC, tier=Tier.QUICK, check=_check_b1_minimal_c, notes=_READ),
    Claim(id="appb2-decomposition-exact", ref="App. B.2",
          statement="Every head score decomposes exactly as S^(k)_ij = Signal + N1 + N2 + N3",
          kind=Kind.DETERMINISTIC, tier=Tier.QUICK, check=_check_decomposition,
          notes="General form for any (i, k): Signal and N1 carry the factor 1(i in V_k)."),
    Claim(id="appb2-n1-mean-zero", ref="Theorem B.2",
          statement="Proof step: given X, N1 is a sum of d_k i.i.d. mean-zero terms",
          kind=Kind.DETERMINISTIC, tier=Tier.QUICK, check=_mean_zero_check("N1"),
          notes="E[N1 | X] is computed exactly by enumerating all Rademacher signature matrices of a tiny instance. "
                "It equals d_k delta_j(pi(i)) (appb2-conditional-means-exact): the t = pi(i) term of the sum is "
                "delta_{j,pi(i)} ||w_pi(i)||^2, not mean-zero."),
    Claim(id="appb2-n2-mean-zero", ref="Theorem B.2",
          statement="Proof step: N2 obeys the same mean-zero sub-Gaussian bound as N1",
          kind=Kind.DETERMINISTIC, tier=Tier.QUICK, check=_mean_zero_check("N2"),
          notes="E[N2 | X] = d_k delta_i(pi^-1(j)) for j in T_k (the s = pi^-1(j) term)."),
    Claim(id="appb2-conditional-means-exact", ref="Theorem B.2",
          statement="Proof step: E[N3 | X] = d_k <delta_{i,pi^-1(T_k)}, delta_{j,T_k}> (and our formulas for "
                    "E[N1 | X], E[N2 | X]) hold exactly",
          kind=Kind.DETERMINISTIC, tier=Tier.QUICK, check=_check_conditional_means),
    Claim(id="appb2-n1-bound-sqrt-dk", ref="Theorem B.2",
          statement="Proof step: |N1| <= C4 sqrt(C2 d_k log m) w.h.p. for an absolute C4, i.e. max |N1| grows like "
                    "sqrt(d_k) at fixed (m, d_model)",
          kind=Kind.ASYMPTOTIC, tier=Tier.QUICK, check=_check_n1_sqrt_dk,
          notes="At (m, d_model) = (256, 32), a size of the paper's experiments; d_k from 8 to 1024. The mean "
                "d_k delta_j(pi(i)) makes max |N1| grow linearly in d_k once d_k >~ d_model."),
    Claim(id="thmb2-signal-bound-constant", ref="Theorem B.2",
          statement="Proof step: |Signal| <= C_star sqrt(d_k log m) for all same-block non-edges with probability "
                    ">= 1 - m^-5, for an absolute C_star (exact tails, union bound over m^2 pairs)",
          kind=Kind.ASYMPTOTIC, tier=Tier.QUICK, check=_check_signal_constant),
    Claim(id="appb2-n3-fluctuation-sqrt-dk", ref="Theorem B.2",
          statement="Proof step: the centred N3 - E[N3 | X] is at most C5 C2 sqrt(d_k log m), i.e. grows like "
                    "sqrt(d_k) at fixed (m, d_model)",
          kind=Kind.ASYMPTOTIC, tier=Tier.QUICK, check=_check_n3_fluct_sqrt_dk),
    Claim(id="lemb3-diagonal-one", ref="Lemma B.3",
          statement="Item 1: u_i(i) = 1 deterministically for unit-norm rows",
          kind=Kind.DETERMINISTIC, tier=Tier.QUICK, check=_check_b3_diag),
    Claim(id="lemb3-leakage-mass-whp", ref="Lemma B.3",
          statement="Item 2 (C2 = 2) w.h.p. at an admissible c0: at (m, d_model) = (256, 128) (c0 = 23) no draw has "
                    "max over i, k, S in {V_k minus i, T_k} of ||delta_{i,S}||^2 above 2; the experiments' (256, 32) "
                    "(c0 = 5.8) is reported as a reading",
          kind=Kind.HIGH_PROBABILITY, tier=Tier.QUICK, check=_check_b3_leakage_mc,
          notes="The lemma assumes d_model >= c0 log m for a sufficiently large c0; c0 = 23 is above the measured "
                "minimal c0 (about 10, lemb3-leakage-minimal-c0). Certifying m^-4 would need ~6e10 draws: 270 draws "
                "certify a failure rate below 5% at false alarm 1e-6."),
    Claim(id="lemb3-leakage-minimal-c0", ref="Lemma B.3",
          statement="Item 2 (leakage mass <= C2 = 2 for all i, k) holds once d_model >= c0 log m with an absolute c0: "
                    "the measured minimal c0 does not grow with m",
          kind=Kind.ASYMPTOTIC, tier=Tier.QUICK, check=_check_b3_leakage_c0,
          notes="Bisection over d_model, 10 draws per step, blocks of d_model consecutive sources."),
    Claim(id="lemb3-cross-correlation-random-perm", ref="Lemma B.3",
          statement="Item 3 for i != j and random pi: max |sum_a delta_i(pi^-1 a) delta_j(a)| / sqrt(ln m / d_model) "
                    "stays bounded as d_model grows (h = 4)",
          kind=Kind.ASYMPTOTIC, tier=Tier.QUICK, check=_check_b3_cross_random),
    Claim(id="lemb3-cross-correlation-fixed-points", ref="Lemma B.3",
          statement="Item 3 'for all j' including j = i: with pi = identity the sum equals ||delta_{i,T_k}||^2 ~ 1, "
                    "so the ratio to sqrt(ln m / d_model) must still stay bounded",
          kind=Kind.ASYMPTOTIC, tier=Tier.QUICK, check=_check_b3_cross_identity,
          notes="Reading: the item is stated for all i, j and all permutations; the identity permutation (all fixed "
                "points) is a permutation graph. Harmless for Theorem 4.1 (it only inflates the true-edge score)."),
    Claim(id="thmb2-offblock-signal-n2-vanish", ref="Theorem B.2",
          statement="Proof step: if j is not in T_k then Signal = 0 and N2 = 0",
          kind=Kind.DETERMINISTIC, tier=Tier.QUICK, check=_check_b2_offblock),
    Claim(id="defb4-incoherence-sort-exact", ref="Definition B.4",
          statement="The restricted self-incoherence parameters (max over subsets |S| <= B) equal the per-row "
                    "top-B sums we compute by sorting",
          kind=Kind.DETERMINISTIC, tier=Tier.QUICK, check=_check_defb4_exact,
          notes="gamma includes i = j and S may contain i, as the definition reads 'for every i, j and S'."),
    Claim(id="alg4-weights-layout", ref="Algorithm 4",
          statement="Algorithm 4 uses X_inv = X^T / mu, h = ceil(m / B) source blocks of size <= B, T_k = pi(V_k) "
                    "and W^(k) = X_inv W'^(k), tau = (p + p^2) d_k / 2",
          kind=Kind.DETERMINISTIC, tier=Tier.QUICK, check=_check_alg4_layout,
          notes="mu defaults to the mean squared row norm (1 for unit rows, about d_model p_B for RBCE)."),
    Claim(id="thmb5-dk-budget", ref="Theorem B.5",
          statement="Algorithm 4's budget is D_K = ceil(m / B) d_k = Theta(m log m / B)",
          kind=Kind.DETERMINISTIC, tier=Tier.QUICK, check=_check_b5_budget),
    Claim(id="thmb5-limit-separation", ref="Theorem B.5",
          statement="Where the measured rho ln m and gamma ln m are <= 1 (reading c2 = c3 = 1), Algorithm 4 with "
                    "Bernoulli(1/20) signatures separates in the d_k -> infinity limit",
          kind=Kind.HIGH_PROBABILITY, tier=Tier.QUICK, check=_check_b5_limit,
          notes="One Gaussian unit-norm X at (m, d_model) = (256, 128), B from 1 to 32; the constants c1-c3 are "
                "unspecified, so c = 1 is a reading, not the paper's value."),
    Claim(id="corb6-rho-rate", ref="Corollary B.6",
          statement="Gaussian unit-norm embeddings: rho <~ B / d_model with an absolute constant (ratio bounded in m)",
          kind=Kind.ASYMPTOTIC, tier=Tier.QUICK, check=lambda ctx: _incoherence_sweep(ctx, family="gun-b4", param="rho"),
          notes="rho is a max over all subsets |S| <= B (Definition B.4), so it picks the B largest leakages, which "
                "grow like ln m / d_model each."),
    Claim(id="corb6-gamma-rate", ref="Corollary B.6",
          statement="Gaussian unit-norm embeddings: gamma <~ sqrt(B / d_model) with an absolute constant",
          kind=Kind.ASYMPTOTIC, tier=Tier.QUICK,
          check=lambda ctx: _incoherence_sweep(ctx, family="gun-b4", param="gamma"),
          notes="Measured with i != j (charitable; i = j makes gamma >= rho)."),
    Claim(id="corb6-b-dmodel-meets-hypothesis", ref="Corollary B.6",
          statement="Choosing B = Theta(d_model) keeps Theorem B.5's hypothesis rho <= c2 / log m (rho ln m bounded)",
          kind=Kind.ASYMPTOTIC, tier=Tier.QUICK,
          check=lambda ctx: _incoherence_sweep(ctx, family="gun-bd", param="rho"),
          notes="The corollary itself requires B <= c d_model / log m one sentence earlier."),
    Claim(id="corb7-epsd-rate", ref="Corollary B.7",
          statement="Random binary embeddings (p_B = ln m / d_model): eps_d <~ 1 / sqrt(mu)",
          kind=Kind.ASYMPTOTIC, tier=Tier.QUICK,
          check=lambda ctx: _incoherence_sweep(ctx, family="rbce", param="eps_d"),
          notes="mu = d_model p_B; eps_d is a max over m rows."),
    Claim(id="corb7-rho-rate", ref="Corollary B.7",
          statement="Random binary embeddings: rho <~ B / d_model with an absolute constant",
          kind=Kind.ASYMPTOTIC, tier=Tier.QUICK,
          check=lambda ctx: _incoherence_sweep(ctx, family="rbce", param="rho")),
    Claim(id="corb7-gamma-rate", ref="Corollary B.7",
          statement="Random binary embeddings: gamma <~ B p_B^2 with an absolute constant",
          kind=Kind.ASYMPTOTIC, tier=Tier.QUICK, check=_check_b7_gamma,
          notes="Non-degenerate sizes: p_B = 2 ln m / d_model <= 0.44 (mu = 2 ln m), d_model from 32 to m/2, gamma "
                "over i != j only (charitable)."),
    Claim(id="lemb8-konig-coloring", ref="Lemma B.8",
          statement="Konig colouring with Delta colours plus batching partitions E into at most ceil(m'/d_model) + "
                    "Delta matchings of size <= d_model",
          kind=Kind.DETERMINISTIC, tier=Tier.QUICK, check=_check_b8),
    Claim(id="alg5-weights-layout", ref="Algorithm 5",
          statement="Algorithm 5 builds one head per matching with W^(k) = X^T W'^(k), shared Rademacher signatures, "
                    "tau = d_k / 2, and each edge owned by exactly one head",
          kind=Kind.DETERMINISTIC, tier=Tier.QUICK, check=_check_alg5_layout),
    Claim(id="thmb9-event-count", ref="Theorem B.9",
          statement="Proof step: sum_k |M_k|^2 <= d_model m' for the Lemma B.8 matchings",
          kind=Kind.DETERMINISTIC, tier=Tier.QUICK, check=_check_b9_events),
    Claim(id="thmb9-limit-separation", ref="Theorem B.9",
          statement="On 2-regular graphs at (m, d_model) = (512, 384) the d_k -> infinity limit of Algorithm 5's "
                    "scores separates every ordered pair in a fraction >= 0.5 of draws (so some C works)",
          kind=Kind.HIGH_PROBABILITY, tier=Tier.QUICK, check=_check_b9_limit,
          notes="d_model / ln m = 61.6, above the measured c0 of about 40 (thm41-minimal-constant-c0)."),
    Claim(id="thmb9-separation-whp", ref="Theorem B.9",
          statement="Some C makes Algorithm 5 separate w.p. >= 1 - m^-3 at (m, d_model) = (512, 384), r = 2: failures "
                    "vanish as C grows (measured C), and the d_k -> infinity limit does not fail",
          kind=Kind.HIGH_PROBABILITY, tier=Tier.FULL, check=_check_b9_mc,
          notes="C in {250, 500, 1000, 2000}, 20 fresh draws of (G, X, W_sig) each, 300 draws of the limit. 'C "
                "sufficiently large' is never fixed: refuted only if the limit fails (no C works at this size, under "
                "the reading that c0 = 61.6 is admissible). m^-3 itself would need ~1e8 draws."),
    Claim(id="corb10-equitable-h0-heads", ref="Corollary B.10",
          statement="Under (33), ceil(m'/d_model) matchings of size <= d_model exist (equitable Konig colouring), so "
                    "h_0 heads suffice",
          kind=Kind.DETERMINISTIC, tier=Tier.QUICK, check=_check_b10,
          notes="Lemma B.8's packing gives ceil(m'/d_model) + Delta heads; h_0 needs an equitable colouring "
                "(de Werra), which the paper does not describe but which exists."),
    Claim(id="appb-construction-complexity", ref="App. B",
          statement="All constructive algorithms run in O(m d_model log m): the output of Algorithm 5 alone has "
                    "2 h d_model d_k entries; its ratio to m d_model ln m stays bounded as the degree grows",
          kind=Kind.ASYMPTOTIC, tier=Tier.QUICK, check=_check_complexity,
          notes="Fixed d_k and m = 128, d_model = 16; r-regular graphs, m' = r m."),
)
