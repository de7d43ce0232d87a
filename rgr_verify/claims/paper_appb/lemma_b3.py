"""App. B.2: Lemma B.3 (Gaussian unit-norm embeddings): unit diagonal, leakage mass, cross-correlations.
"""

from __future__ import annotations

import dataclasses
import itertools
import math
from functools import lru_cache

import numpy as np
import sympy as sp
from hypothesis import strategies as st

from ...core import formulas as F
from ...analysis import minimal_constants as K
from ...core.embeddings import gaussian_unit_norm_embeddings
from ...core.graphs import random_derangement
from ...core.stats import zero_failure_sample_size
from ...core.strategies import seeds
from ..base import CheckContext, Claim, Kind, Stated, Status, Tier, Verdict
from ..symbolic import Var, combine_verdicts, exhaustive_verdict, identity_verdict, inequality_verdict
from ..standards.probability import decide_failure_rate
from ..tools import outcome, outcome_word, recorded
from ..tools import (
    VAR_D_MODEL,
    VAR_M,
    exponent_verdict,
    full_tier,
    monte_carlo_verdict,
    property_verdict,
    relation_holds,
    symbolic_claim,
    with_readings,
)
from .common import along_each_variable, bound_verdict

__all__ = ["CLAIMS", "ORDER"]

ORDER = 112


def _check_b3_diag(ctx: CheckContext) -> Verdict:
    def prop(ex):
        m, d, seed = ex
        X = gaussian_unit_norm_embeddings(m, d, rng=np.random.default_rng(seed))
        U = X @ X.T
        err = float(np.abs(np.diag(U) - ctx.expect("diagonal")).max())
        assert err <= 1e-12, f"u_i(i) - 1 = {err:.3g}"
        return None

    return property_verdict(prop, st.tuples(st.integers(1, 64), st.integers(1, 64), seeds()), ctx=ctx,
                            paper_value="u_i(i) = 1 deterministically")


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


@lru_cache(maxsize=2)
def _leakage_mc_draws(seed: int, m: int, d_ok: int, d_paper: int, n: int):
    """Per-draw worst leakage masses at the admissible and at the experiments' size (independent of stated values)."""
    ctx = CheckContext(seed=seed)
    return (tuple(_leakage_worst_draws(ctx.rng(1), m, d_ok, n)),  # c0 = 23, above the measured minimal c0 (about 10)
            tuple(_leakage_worst_draws(ctx.rng(0), m, d_paper, n)))  # the experiments' (256, 32): c0 = 5.8


def _check_b3_leakage_mc(ctx: CheckContext) -> Verdict:
    m, d_ok, d_paper, C2 = 256, 128, 32, 2.0
    n = zero_failure_sample_size(0.05)
    ok, paper = _leakage_mc_draws(int(ctx.seed), m, d_ok, d_paper, n)
    rel = ctx.expect("dir")
    v = monte_carlo_verdict(lambda i: (relation_holds(ok[i], rel, C2), {"draw": i, "max_leakage_mass": ok[i]}), n_trials=n,
                            claimed_failure_rate=float(m) ** -4,
                            paper_value="||delta_{i,S}||^2 <= C2 = 2 for all i, k, S in {V_k minus i, T_k} "
                                        "w.p. >= 1 - m^-4 once d_model >= c0 log m, c0 large",
                            params={"m": m, "d_model": d_ok, "c0": d_ok / math.log(m), "C2": C2,
                                    "max_mass_seen": max(ok)})
    k_paper = sum(x > C2 for x in paper)
    at_paper = decide_failure_rate(k_paper, n, float(m) ** -4)  # the same standard at the experiments' size
    reading = {f"c0 = {d_ok / math.log(m):.1f} (d_model = {d_ok}) sufficiently large":
               f"{outcome_word(v)}: {v.measured_value}",
               f"c0 = {d_paper / math.log(m):.1f} (the experiments' (256, 32)) sufficiently large":
               f"{outcome_word(Status(at_paper['status']))}: {k_paper}/{n} "
               f"draws exceed C2 (exact interval [{at_paper['lower']:.3g}, {at_paper['upper']:.3g}] against m^-4)"}
    if v.status is Status.REFUTED:
        return with_readings(v, [f"d_model = {d_ok} >= c0 ln m, c0 = {d_ok / math.log(m):.1f}", "C2 = 2 (the lemma's e.g.)",
                                 "blocks of d_model consecutive sources, T_k = pi(V_k), pi uniform"], reading)
    return Verdict(status=v.status, paper_value=v.paper_value,
                   measured_value={"admissible c0": v.measured_value,
                                   "paper size (256, 32)": f"{k_paper}/{n} draws exceed C2 = 2 (max {max(paper):.3g})"},
                   params={**v.params, "readings": reading}, evidence=v.evidence, evidence_level="sampled",
                   details="The probability-bound standard: no draw at the admissible c0 exceeds C2, which certifies "
                           "a failure rate below about 5%, not m^-4 (that would need ~6e10 draws), so the verdict is "
                           "inconclusive at that resolution. At the experiments' (256, 32) "
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


@lru_cache(maxsize=2)
def _leakage_c0_rows(seed: int, full: bool):
    """Bisected minimal d_model (all 10 draws meet item 2 with C2 = 2) per m (independent of the stated values)."""
    ctx = CheckContext(seed=seed)
    ms = (64, 128, 256, 512, 1024, 2048) if full else (64, 128, 256, 512, 1024)
    n = 10
    rows = []
    for m in ms:
        seeds = [int(x) for x in ctx.rng(m).integers(0, 2**63 - 1, size=n)]

        def ok(d, m=m, seeds=seeds):  # every draw <= C2 = 2; stops at the first that exceeds it (own generators)
            for sd in seeds:
                r = np.random.default_rng(sd)
                if not _max_leakage(m, d, r.permutation(m), r) <= 2.0:
                    return False
            return True

        hi = K.smallest_passing(ok, 1, m)  # d_model = m is taken to pass and 1 to fail (not evaluated)
        rows.append({"m": m, "d_model_min": hi, "c0_min": hi / math.log(m)})
    return ms, n, rows


def _leakage_c0_verdict(rows, *, claimed: float, n: int) -> Verdict:
    """Judge the minimal c0 per m: its log-log slope against ln m (a c0 growing like ln m has slope 1 there) by the
    equivalence standard, band [claimed - 0.25, claimed + 0.25]."""
    ms = [r_["m"] for r_ in rows]
    return exponent_verdict([math.log(m) for m in ms], [r_["c0_min"] for r_ in rows], claimed=claimed, tol=0.25,
                            what="minimal c0 = d_model / ln m at which Lemma B.3 item 2 (C2 = 2) holds in all "
                                 f"{n} draws, vs ln m",
                            paper_value="item 2 holds once d_model >= c0 log m for an absolute c0",
                            params={"m": ms, "n_draws": n, "x": "ln m"}, table=rows)


def _check_b3_leakage_c0(ctx: CheckContext) -> Verdict:
    ms, n, rows = _leakage_c0_rows(int(ctx.seed), full_tier(ctx))
    v = _leakage_c0_verdict(rows, claimed=ctx.expect("c0_exponent"), n=n)
    paper = [(m_, d_) for m_, d_ in K.PAPER_SIZES if d_ >= max(r_["c0_min"] for r_ in rows) * math.log(m_)]
    return dataclasses.replace(v, measured_value=f"c0 = {[round(r_['c0_min'], 1) for r_ in rows]} at m = {list(ms)}; "
                                                 f"paper sizes meeting the largest: {paper}; " + str(v.measured_value))


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


def _cross_corr_sweep(ctx, *, identity: bool, derangement: bool = False, rate_exponent: float = 0.5, rel=None,
                      uniform_self: bool = False):
    h = 4
    ds = (16, 32, 64, 128, 256) if full_tier(ctx) else (16, 32, 64, 128)
    xs, ys, table = [], [], []
    for d in ds:
        m = h * d
        vals = []
        for rep in range(2):
            r = ctx.rng(d, rep, 1) if derangement else (ctx.rng(d, rep, 2) if uniform_self else ctx.rng(d, rep))
            perm = np.arange(m) if identity else (random_derangement(m, rng=r) if derangement else r.permutation(m))
            X = gaussian_unit_norm_embeddings(m, d, rng=r)
            same = identity or derangement or uniform_self
            vals.append(_cross_corr(X, perm, d, same=same) / (math.log(m) / d) ** rate_exponent)
            xs.append(d)
            ys.append(vals[-1])
        table.append({"d_model": d, "m": m, "ratio": vals})
    what = ("max_i |sum_a delta_i(pi^-1 a) delta_i(a)| / sqrt(ln m / d_model), pi = identity, j = i" if identity else
            "max_i |sum_a delta_i(pi^-1 a) delta_i(a)| / sqrt(ln m / d_model), random derangement pi, j = i"
            if derangement else "max_i |sum_a delta_i(pi^-1 a) delta_i(a)| / sqrt(ln m / d_model), uniform random pi, j = i"
            if uniform_self else "max_{i != j, k} |sum_a delta_i(pi^-1 a) delta_j(a)| / sqrt(ln m / d_model), random pi")
    if rel is not None:
        return bound_verdict(xs, ys, rel, claimed=0.0, tol=0.15, what=what,
                             paper_value="|sum_{a in T_k} delta_{i,pi^-1(a)} delta_{j,a}| <= C3 sqrt(log m / d_model) "
                                         "for all i, j, k (absolute C3: the ratio stays bounded)",
                             params={"h": h, "d_model": ds, "identity_permutation": identity}, table=table)
    return exponent_verdict(xs, ys, claimed=0.0, tol=0.15, what=what + f" (rate (ln m / d_model)^{rate_exponent:g})",
                            paper_value="|sum_{a in T_k} delta_{i,pi^-1(a)} delta_{j,a}| <= C3 sqrt(log m / d_model) for "
                                        "all i, j, k (absolute C3: the ratio stays bounded)",
                            params={"h": h, "d_model": ds, "identity_permutation": identity}, table=table)


def _check_b3_cross_random(ctx):
    return _cross_corr_sweep(ctx, identity=False, rate_exponent=ctx.expect("rate_exponent"))


def _check_b3_cross_identity(ctx):
    """Item 3 at j = i on nondegenerate permutation graphs: a uniform random pi (App. A.1's graphs) and a random
    derangement, both must keep the ratio bounded (the stated direction); the identity permutation (every edge a
    self-loop) is measured and reported only."""
    rel = ctx.expect("dir")
    uni = _cross_corr_sweep(ctx, identity=False, uniform_self=True, rel=rel)
    der = _cross_corr_sweep(ctx, identity=False, derangement=True, rel=rel)
    v = along_each_variable({"uniform random pi, j = i": uni, "random derangement pi, j = i": der},
                            paper_value="|sum_{a in T_k} delta_{i,pi^-1(a)} delta_{j,a}| <= C3 sqrt(log m / d_model) "
                                        "for all i, j, k, here j = i (absolute C3: the ratio stays bounded)")
    ident = _cross_corr_sweep(ctx, identity=True, rel=rel)
    return dataclasses.replace(v, params={**v.params, "identity permutation (reported, not judged)":
                                          {"status": ident.status.value, "measured": ident.measured_value}})


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


def _leakage_readings(v: Verdict) -> dict:
    """Readings of lemb3-sym-leakage-identity: S = T_k containing i (the witness) against S = V_k minus i (the
    failures counted against the 4 x 8 subsets of [4] that contain their source i)."""
    w = v.witness or {}
    contains = isinstance(w, dict) and w.get("i") in list(w.get("S", []))
    n_fail = str(v.measured_value).split(" of ")[0]
    with_i = 4 * 2 ** 3
    only_with_i = contains and n_fail == str(with_i)
    return {"S = T_k containing i": outcome(v, f"witness {w}: extra term <x_i, x_i>^2 = 1"),
            "S = V_k minus i (i not in S)": (f"holds: the {n_fail} failing cases are the {with_i} subsets containing i"
                                             if only_with_i else outcome(v, str(v.measured_value)))}


def _lemb3_second_moment(ctx: CheckContext) -> Verdict:
    dd = F.d_model
    # E[x_a^2] = 1/d by symmetry of the unit sphere; cross terms vanish by sign symmetry.
    second = dd * (1 / dd) * (1 / dd)
    v1 = identity_verdict(second, dd ** sp.nsimplify(ctx.expect("dmodel_exponent")), variables=[VAR_D_MODEL], ctx=ctx)
    v2 = inequality_verdict(dd * (1 / dd), ctx.expect("dir"), 2, variables=[VAR_D_MODEL], ctx=ctx,
                            proof=lambda: "mean is exactly 1 < 2")
    return combine_verdicts([v1, v2], paper_value="<x_i, x_s>^2 has mean 1/d_model; over |S| = d_model the mean is 1 < C_2 = 2")


def _lemb3_item3_union(ctx: CheckContext) -> Verdict:
    # Bernstein: P[|sum Y_a| >= t] <= 2 exp(-c min{d t^2, d t}), t = C3 sqrt(log m / d); m^2 h <= m^3 events (h <= m).
    c, c0 = sp.Symbol("c", positive=True), sp.Symbol("c_0", positive=True)
    Vm = Var(F.m, 2, 1e6, integer=True, log=True)
    Vc = Var(c, 0.01, 10, log=True)
    # Choose C3^2 = 8 / c (absolute): the tail at t is 2 exp(-c C3^2 log m) = 2 m^-8 once d t^2 <= d t, i.e. t <= 1.
    tail = 2 * sp.exp(-c * (8 / c) * sp.log(F.m))
    union = inequality_verdict(F.m**3 * tail, ctx.expect("dir"), F.m ** -4, variables=[Vm, Vc], ctx=ctx,
                               proof=lambda: "m^3 * 2 m^-8 = 2 m^-5 <= m^-4 iff m >= 2")
    # t <= 1 iff d_model >= C3^2 log m: holds for d_model >= c0 log m with c0 >= C3^2 = 8/c.
    t = sp.sqrt((8 / c) * sp.log(F.m) / (c0 * sp.log(F.m)))
    small_t = inequality_verdict(t, ctx.expect("dir"), 1, variables=[Vm, Vc, Var(c0, 0.01, 1e4, log=True)], ctx=ctx,
                                 constraints=[lambda pt: pt["c_0"] >= 8 / pt["c"]])
    return combine_verdicts([union, small_t], paper_value="Lemma B.3 item 3: Bernstein with t = C3 sqrt(log m/d_model) "
                            "and a union bound over all (i, j, k) closes at 1 - m^-4 for c0 large enough",
                            details="Explicit constants: C3 = sqrt(8/c) and c0 >= 8/c (c the Bernstein constant). The "
                                    "event count m^2 h <= m^3 uses h = m/d_model <= m; the min{d t^2, d t} regime "
                                    "d t^2 needs t <= 1, which is where 'c0 large enough' enters.")


def _lemb3_union(ctx: CheckContext) -> Verdict:
    # Item 2: m * 2h events (h <= m) with tails e^{-c d_model}; d_model >= (7/c) ln m makes each <= m^-7.
    item2 = inequality_verdict(F.m * 2 * F.m * F.m ** -7, ctx.expect("dir"), F.m ** -4, variables=[VAR_M], ctx=ctx,
                               proof=lambda: "2 m^-5 <= m^-4 iff m >= 2")
    # Signal: m^3 (i, j, k) events, Hoeffding 2 exp(-C_star^2 log m / 2); C_star^2 = 18 gives 2 m^3 m^-9 <= m^-5.
    signal = inequality_verdict(2 * F.m**3 * F.m ** -9, ctx.expect("dir"), F.m ** -5, variables=[VAR_M], ctx=ctx,
                                proof=lambda: "2 m^-6 <= m^-5 iff m >= 2")
    return combine_verdicts([item2, signal], paper_value="union bounds of Lemma B.3 (item 2) and of the Signal term are "
                            "feasible with absolute constants",
                            details="Explicit constants: c_0 = 7/c for item 2 (c the Bernstein constant), C_star = sqrt(18).")


CLAIMS = (
    Claim(id="lemb3-diagonal-one", ref="Lemma B.3",
          statement="Item 1: u_i(i) = 1 deterministically for unit-norm rows",
          kind=Kind.DETERMINISTIC, tier=Tier.QUICK, check=_check_b3_diag, role="result", supports=("Theorem B.2",),
          expects={"diagonal": Stated(1, "value", "Lemma B.3 item 1: u_i(i) = 1")}),
    Claim(id="lemb3-leakage-mass-whp", ref="Lemma B.3",
          statement="Item 2 (C2 = 2) w.h.p. at an admissible c0: at (m, d_model) = (256, 128) (c0 = 23) no draw has "
                    "max over i, k, S in {V_k minus i, T_k} of ||delta_{i,S}||^2 above 2; the experiments' (256, 32) "
                    "(c0 = 5.8) is reported as a reading",
          kind=Kind.HIGH_PROBABILITY, tier=Tier.QUICK, check=_check_b3_leakage_mc, role="result",
          supports=("Theorem B.2",),
          notes="The lemma assumes d_model >= c0 log m for a sufficiently large c0; c0 = 23 is above the measured "
                "minimal c0 (about 10, lemb3-leakage-minimal-c0). Certifying m^-4 would need ~6e10 draws: 270 draws "
                "certify a failure rate below 5% at false alarm 1e-6. Stated value: the direction of the bound. C2 = 2 "
                "is not declared: the lemma's C2 is 'an absolute constant (e.g. 2)', and a larger C2 is a weaker "
                "statement that these draws meet a fortiori; the rate m^-4 is not declared either (0 failures in "
                "270 draws neither certify nor refute any rate that small).",
          expects={"dir": Stated("<=", "relation", "Lemma B.3 item 2: ||delta_{i,S}||^2 <= C2")}),
    Claim(id="lemb3-leakage-minimal-c0", ref="Lemma B.3",
          statement="Item 2 (leakage mass <= C2 = 2 for all i, k) holds once d_model >= c0 log m with an absolute c0: "
                    "the measured minimal c0 neither grows nor decays with ln m",
          kind=Kind.ASYMPTOTIC, tier=Tier.QUICK, check=_check_b3_leakage_c0, role="result", supports=("Theorem B.2",),
          notes="Bisection over d_model, 10 draws per step, blocks of d_model consecutive sources; m in {64, 128, 256, "
                "512, 1024} (quick; 2048 added in the full tier). The minimal c0 is fitted against ln m (log-log), "
                "where a c0 growing like ln m has exponent 1 and an absolute c0 exponent 0, by the equivalence "
                "standard: the 95% interval inside [-0.25, 0.25] passes, wholly outside fails, otherwise "
                "inconclusive with the resolution reached.",
          expects={"c0_exponent": Stated(0.0, "exponent", "Lemma B.3: d_model >= c0 log m for an absolute c0")}),
    Claim(id="lemb3-cross-correlation-random-perm", ref="Lemma B.3",
          statement="Item 3 for i != j and random pi: max |sum_a delta_i(pi^-1 a) delta_j(a)| / sqrt(ln m / d_model) "
                    "stays bounded as d_model grows (h = 4)",
          kind=Kind.ASYMPTOTIC, tier=Tier.QUICK, check=_check_b3_cross_random, role="result", supports=("Theorem B.2",),
          notes="Checked two-sided: the ratio to (ln m / d_model)^e at the stated e = 1/2 neither grows nor decays "
                "(the stated rate is the measured order, which implies the bound).",
          expects={"rate_exponent": Stated(0.5, "exponent", "Lemma B.3 item 3: <= C3 sqrt(log m / d_model)")}),
    Claim(id="lemb3-cross-correlation-fixed-points", ref="Lemma B.3",
          statement="Item 3 'for all j' including j = i, on nondegenerate permutation graphs (uniform random pi, and "
                    "random derangements): max_i |sum_a delta_i(pi^-1 a) delta_i(a)| / sqrt(ln m / d_model) stays "
                    "bounded as d_model grows (h = 4)",
          kind=Kind.ASYMPTOTIC, tier=Tier.QUICK, check=_check_b3_cross_identity, role="result",
          supports=("Theorem B.2",),
          notes="The self-pair j = i is inside 'for all j'. Checked on uniform random pi (App. A.1's graphs, about one "
                "fixed point) and on random derangements, each by the stated direction (the ratio's fitted "
                "exponent in d_model at most 0.15, 95% interval); both must hold. The identity permutation (every "
                "edge a self-loop, so T_k = V_k and the sum is ||delta_{i,T_k}||^2 ~ 1) is a degenerate graph: its "
                "ratio grows, and it is reported in params only, not judged (a debatable witness). A single transposition "
                "with every other item fixed is not degenerate: it is judged, under both readings of j = i, by "
                "lemb3-fixed-points-self-correlation. Stated value: the bound's direction.",
          expects={"dir": Stated("<=", "relation", "Lemma B.3 item 3: <= C3 sqrt(log m / d_model)")}),
    symbolic_claim("lemb3-sym-leakage-identity", "Lemma B.3", "||delta_{i,S}||^2 equals sum_{s in S} <x_i, x_s>^2 for both "
                   "S = V_k minus i and S = T_k.",
                   recorded(_lemb3_leakage_identity, ["Gaussian unit-norm X (m = 4, d_model = 2, seeded), delta_i = "
                                                      "e_i X X^T - e_i as defined", "S = T_k = pi(V_k) may contain i "
                                                      "(pi^-1(i) in V_k; always at h = 1)"],
                            _leakage_readings), role="proof-step", supports=("Lemma B.3",),
                   slip=("wording-or-count", "result",
                         "The identity is printed in Lemma B.3's statement (item 2); when i lies in T_k the printed "
                         "sum includes <x_i, x_i>^2 = 1 and so exceeds the leakage mass by exactly 1; as an upper "
                         "bound it still holds, Lemma B.3's bound is untouched, and leaving out s = i makes the "
                         "identity exact.")),
    symbolic_claim("lemb3-sym-second-moment", "Lemma B.3", "<x_i, x_s>^2 has mean 1/d_model, so the leakage mass "
                          "over d_model items has mean 1 < C_2 = 2.", _lemb3_second_moment, role="proof-step",
                          supports=("Lemma B.3",),
                          expects={"dmodel_exponent": Stated(-1, "exponent", "Lemma B.3 proof: E<x_i, x_s>^2 = 1/d_model"),
                                   "dir": Stated("<", "relation", "Lemma B.3 proof: mean leakage mass below C_2")}),
    symbolic_claim("lemb3-sym-union-bounds", "Lemma B.3", "The union bounds of Lemma B.3 (item 2) and of the Signal "
                          "term close with explicit constants (c_0 = 7/c, C_star = sqrt(18)).", _lemb3_union, role="proof-step",
                          supports=("Lemma B.3", "Theorem B.2"),
                          notes="Stated value: the direction. The rates m^-4, m^-5 are not declared: they are upper "
                                "bounds, so a weaker rate holds a fortiori.",
                          expects={"dir": Stated("<=", "relation", "Lemma B.3 item 2 (1 - m^-4) and the Signal bound")}),
    symbolic_claim("lemb3-sym-item3-union-bound", "Lemma B.3", "Item 3's proof step: Bernstein's tail at t = C3 "
                          "sqrt(log m / d_model) and a union bound over all (i, j, k) give probability >= 1 - m^-4 for "
                          "absolute C3 and c0 large enough.", _lemb3_item3_union, role="proof-step",
                          supports=("Lemma B.3",),
                          notes="Stated value: the direction. The rate m^-4 is an upper bound (a weaker one holds a "
                                "fortiori), not declared.",
                          expects={"dir": Stated("<=", "relation", "Lemma B.3: with probability at least 1 - m^-4")}),
)
