"""App. B.4: Construction IV (Lemma B.8, Algorithm 5, Theorem B.9, condition (33), Corollary B.10), and the
construction cost stated at the start of App. B.
"""

from __future__ import annotations

import itertools
import math
from functools import lru_cache

import numpy as np
import sympy as sp
from hypothesis import strategies as st

from ...core import formulas as F
from ...models.constructions import algorithm5
from ...models.edge_coloring import (coloring_and_batching, equitable_edge_coloring, is_proper_edge_coloring,
                                     konig_edge_coloring)
from ...core.embeddings import gaussian_unit_norm_embeddings
from ...analysis.minimal_constants import algorithm5_separates
from ...core.graphs import Digraph, random_regular_graph
from ...analysis.measurements import separation_margins
from ...core.stats import zero_failure_sample_size
from ...core.strategies import seeds
from ..base import CheckContext, Claim, Kind, Stated, Status, Tier, Verdict
from ..symbolic import Var, combine_verdicts, exhaustive_verdict, identity_verdict, inequality_verdict, limit_verdict
from ..tools import outcome, recorded
from ..tools import (
    FAILS,
    outcome_word,
    VAR_D_MODEL,
    VAR_M,
    full_tier,
    monte_carlo_verdict,
    property_verdict,
    relation_holds,
    symbolic_claim,
    whp_constant_sweep,
    with_readings,
)
from .common import bound_verdict

__all__ = ["CLAIMS", "ORDER"]

ORDER = 114


@st.composite
def _digraphs(draw, max_m=16):
    m = draw(st.integers(1, max_m))
    pairs = draw(st.lists(st.tuples(st.integers(0, m - 1), st.integers(0, m - 1)), max_size=3 * m, unique=True))
    return Digraph(m=m, edges=np.asarray(pairs, dtype=np.int64).reshape(-1, 2))


def _check_b8(ctx: CheckContext) -> Verdict:
    strat = st.tuples(st.one_of(_digraphs(), st.builds(lambda m, r, s: random_regular_graph(m, min(r, m - 1), rng=np.random.default_rng(s)),
                                                       st.integers(2, 24), st.integers(1, 8), seeds())),
                      st.integers(1, 10))

    def prop(ex):
        g, d = ex
        cols = konig_edge_coloring(g)
        assert is_proper_edge_coloring(g.edges, cols), "colouring not proper"
        if g.n_edges:
            assert cols.max() + 1 == g.max_degree, f"{cols.max() + 1} colours, Delta = {g.max_degree}"
        Ms = coloring_and_batching(g, d)
        H = math.ceil(g.n_edges / d) + g.max_degree
        assert relation_holds(len(Ms), ctx.expect("dir"), H), f"{len(Ms)} matchings vs H = {H}"
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
    strat = st.tuples(st.integers(2, 20), st.integers(1, 5), st.integers(1, 10), st.integers(1, 8), seeds())

    def prop(ex):
        m, r_, d, d_k, seed = ex
        r = np.random.default_rng(seed)
        g = random_regular_graph(m, min(r_, m - 1), rng=r)
        X = gaussian_unit_norm_embeddings(m, d, rng=r)
        c = algorithm5(g, X, d_k=d_k, rng=r)
        assert c.tau == d_k * ctx.expect("tau_half") and set(np.unique(c.W_sig)) <= {-1.0, 1.0}, "tau or signatures"
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
        assert relation_holds(tot, ctx.expect("dir"), d * g.n_edges), f"sum |M_k|^2 = {tot} vs d_model m' = {d * g.n_edges}"
        return None

    return property_verdict(prop, st.tuples(_digraphs(24), st.integers(1, 12)), ctx=ctx, max_examples=60,
                            describe=lambda ex: {"m": ex[0].m, "edges": ex[0].edges.tolist(), "d_model": ex[1]},
                            paper_value="sum_k |M_k|^2 <= d_model m'")


def _check_b9_mc(ctx: CheckContext) -> Verdict:
    if not full_tier(ctx):
        return Verdict.not_run("finite-d_k Monte Carlo of Theorem B.9 runs in the full tier (about 5 minutes)")
    from ...analysis.measurements import limit_score_matrix

    m, d, r_ = 512, 384, 2

    def build(d_k, r):
        return algorithm5(random_regular_graph(m, r_, rng=r), gaussian_unit_norm_embeddings(m, d, rng=r), d_k=d_k, rng=r)

    def limit_trial(r):
        c = build(1, r)
        return separation_margins(c, scores=limit_score_matrix(c), tau=ctx.expect("tau_half"), max_failures=1).margin

    def finite_trial(C, r):  # separation_margins(build(...)).margin > 0, decided exactly by a guarded fast path
        return algorithm5_separates(random_regular_graph(m, r_, rng=r), gaussian_unit_norm_embeddings(m, d, rng=r),
                                    d_k=math.ceil(C * math.log(m)), rng=r)

    return whp_constant_sweep(ctx=ctx, m=m, d_model=d, Cs=(250.0, 500.0, 1000.0, 2000.0), n_draws=20, n_limit=300,
                              finite_trial=finite_trial, limit_trial=limit_trial,
                              what="Algorithm 5 (max over heads, 2-regular graphs)",
                              extra_hypotheses=["G 2-regular (union of 2 random perfect matchings), m' = 2m",
                                                "h = ceil(m'/d_model) + Delta heads (Lemma B.8)"])


_B9_SIZE = (512, 384, 2)  # (m, d_model, degree r)
_B9_RATE_EXPONENT = 3  # Theorem B.9: "with probability at least 1 - m^-3" (not in expects: see the claim's notes)


@lru_cache(maxsize=2)
def _b9_limit_draws(seed: int, n: int):
    """n independent draws of (G, X, W_sig): Algorithm 5 (d_k = 1) and its d_k -> infinity limit scores (independent
    of the stated values; cached so that mutants only re-judge)."""
    from ...analysis.measurements import limit_score_matrix

    m, d, r_ = _B9_SIZE
    out = []
    for ss in np.random.SeedSequence(seed).spawn(n):
        r = np.random.default_rng(ss)
        c = algorithm5(random_regular_graph(m, r_, rng=r), gaussian_unit_norm_embeddings(m, d, rng=r), d_k=1, rng=r)
        out.append((c, limit_score_matrix(c)))
    return tuple(out)


def _check_b9_limit(ctx: CheckContext) -> Verdict:
    m, d, r_ = _B9_SIZE
    rate = float(m) ** -_B9_RATE_EXPONENT
    n = zero_failure_sample_size(0.5)
    draws = _b9_limit_draws(int(ctx.seed), n)

    def trial(i):
        c, lim = draws[i]
        mg = separation_margins(c, scores=lim, tau=ctx.expect("tau_half"), max_failures=1)
        return mg.margin > 0, {"draw": i, "limit_margin": mg.margin, "failing": mg.failing_pairs}

    v = monte_carlo_verdict(trial, n_trials=n, claimed_failure_rate=rate,
                            paper_value="for large C the max-over-heads scores of Algorithm 5 separate every ordered "
                                        "pair with probability >= 1 - m^-3 (here: the d_k -> infinity limit, where "
                                        "a failing draw fails for every C)",
                            params={"m": m, "d_model": d, "r": r_, "c0": d / math.log(m)})
    if v.status is Status.REFUTED:
        return with_readings(v, [f"d_model = {d} >= c0 ln m with c0 = {d / math.log(m):.1f} sufficiently large",
                                 "G 2-regular (union of 2 random perfect matchings)", "tau = d_k / 2"],
                             {"c0 = 61.6 admissible": f"{FAILS}: {v.measured_value}"})
    return v


def _check_b10(ctx: CheckContext) -> Verdict:
    strat = st.tuples(st.integers(4, 40), st.integers(1, 6), st.integers(1, 12), seeds())

    def prop(ex):
        m, r_, d, seed = ex
        g = random_regular_graph(m, min(r_, m - 1), rng=np.random.default_rng(seed))
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
    rs = (1, 2, 4, 8, 16, 32, 64) if full_tier(ctx) else (1, 2, 4, 8, 16, 32)
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
    return bound_verdict(xs, ys, ctx.expect("dir"), claimed=0.0, tol=0.2, what="size of Algorithm 5's output / (m d_model ln m) vs degree r",
                            paper_value="all constructive algorithms run in O(m d_model log m)",
                            params={"m": m, "d_model": d, "d_k": d_k}, table=rows)


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
        rel = ctx.expect("dir")
        return relation_holds(lhs, rel, total + len(sizes)) and relation_holds(lhs, rel, total + len(sizes) - 1)

    return exhaustive_verdict(ok, cases(), domain="d_model <= 5, Delta <= 4 colour classes of size <= 2 d_model + 1",
                              paper_value="sum_c ceil(|F_c|/d_model) <= ceil(m'/d_model) + Delta",
                              details="Holds, and even with Delta - 1 (each ceiling adds less than 1).")


def _lemb8_budget(ctx: CheckContext) -> Verdict:
    Mp = Var(F.mp, 1, 1e6, integer=True, log=True)
    Dl = Var(F.Delta, 1, 1e4, integer=True, log=True)
    v = inequality_verdict(F.heads_lemma_b8(), ctx.expect("dir"), 2 * (F.mp / F.d_model + F.Delta), variables=[Mp, VAR_D_MODEL, Dl],
                           ctx=ctx)
    return combine_verdicts([v], paper_value="D_K = H C log m = O(m' log m / d_model + Delta log m)")


def _b9_events(ctx: CheckContext) -> Verdict:
    def cases():
        for dd in range(1, 6):
            for k in range(1, 4):
                for sizes in itertools.product(range(0, dd + 1), repeat=k):
                    yield {"d_model": dd, "sizes": sizes}

    rel = ctx.expect("dir")
    return exhaustive_verdict(lambda c: relation_holds(sum(a * a for a in c["sizes"]), rel, c["d_model"] * sum(c["sizes"])),
                              cases(),
                              domain="d_model <= 5, up to 3 matchings of size <= d_model",
                              paper_value="sum_k |M_k|^2 <= d_model sum_k |M_k| = d_model m'",
                              details="Proof: |M_k|^2 <= d_model |M_k| since |M_k| <= d_model.")


def _eq33_forms(ctx: CheckContext) -> Verdict:
    davg = F.mp / F.m
    Dl = Var(F.Delta, 1, 1e3, integer=True, log=True)
    ratio = identity_verdict((F.Delta / davg) / (F.m / F.d_model), F.Delta / (F.mp / F.d_model),
                             variables=[VAR_M, Var(F.mp, 1, 1e6, integer=True, log=True), VAR_D_MODEL, Dl], ctx=ctx)
    reg = identity_verdict((F.r / (F.r * F.m / F.m)) - F.m / F.d_model, 1 - F.m / F.d_model,
                           variables=[VAR_M, VAR_D_MODEL, Var(F.r, 1, 64, integer=True)], ctx=ctx)
    return combine_verdicts([ratio, reg], paper_value="(33): Delta/d_avg <= m/d_model <=> Delta <= m'/d_model; r-regular graphs "
                            "satisfy it", details="For r-regular graphs (33) reads 1 <= m/d_model: automatic in the "
                                                  "compressive setting d_model <= m (our reading), false for d_model > m.")


def _b10_heads(ctx: CheckContext) -> Verdict:
    Mp = Var(F.mp, 1, 1e6, integer=True, log=True)
    Dl = Var(F.Delta, 1, 1e4, integer=True, log=True)
    cons = [lambda pt: pt["Delta"] <= pt["m'"] / pt["d_model"]]
    v = inequality_verdict(F.heads_lemma_b8(), ctx.expect("dir"), sp.ceiling(F.mp / F.d_model), variables=[Mp, VAR_D_MODEL, Dl],
                           ctx=ctx,
                           constraints=cons,
                           paper_value="Corollary B.10 is immediate from Theorem B.9 with h_0 = ceil(m'/d_model) heads",
                           details="Lemma B.8 (and so Theorem B.9) uses H = ceil(m'/d_model) + Delta matchings, more "
                                   "than h_0. Under (33) h_0 >= Delta, and an equitable edge colouring (de Werra) "
                                   "does give h_0 matchings of size <= d_model, but that is a different lemma.")
    # Reading "h_0 up to a constant factor" (what the D_K = Theta(...) conclusion needs): (33) gives H <= 2 h_0.
    theta = inequality_verdict(F.heads_lemma_b8(), "<=", 2 * sp.ceiling(F.mp / F.d_model), variables=[Mp, VAR_D_MODEL, Dl],
                               ctx=ctx, constraints=cons)
    if v.status is Status.REFUTED:
        v = _b10_heads_instance(v)
        w = v.witness if isinstance(v.witness, dict) else {}
        on_graph = (f" (its procedure: {w['matchings by Lemma B.8 (its procedure)']} > h_0 = {w['h_0']} matchings "
                    "on the witness graph)" if "h_0" in w else "")
        return with_readings(v, ["(33): Delta <= m'/d_model", "m', d_model, Delta positive integers",
                                 "Lemma B.8's procedure (Konig colouring, then blocks of d_model) run on the witness "
                                 "graph"],
                             {"exactly h_0 = ceil(m'/d_model) heads from Theorem B.9's construction (Lemma B.8)":
                                  f"{FAILS}: Lemma B.8 gives ceil(m'/d_model) + Delta{on_graph}",
                              "h_0 up to a constant factor (enough for D_K = Theta(m' log m / d_model))":
                                  f"{outcome_word(theta)}: "
                                  "ceil(m'/d_model) + Delta <= 2 ceil(m'/d_model) under (33)"})
    return v


# A non-degenerate instance under (33) (the review of rev39): a path of three edges through sources 0, 3 and target
# 2 plus a separate edge; Delta = 2, m' = 4, d_model = 2, so h_0 = 2 = m'/d_model (33 with equality). Lemma B.8's own
# procedure (Konig colouring, then blocks of d_model) is run on it.
_B10_INSTANCE = {"m": 6, "edges": ((0, 1), (0, 2), (3, 2), (4, 5)), "d_model": 2}


def _b10_heads_instance(v: Verdict) -> Verdict:
    """``v`` (the refuted head count over the grid) with the witness of a concrete graph under (33) on which Lemma
    B.8's own decomposition gives more than h_0 matchings; the grid's smallest point (m' = d_model = Delta = 1,
    where the procedure itself gives h_0 = 1 matching) is kept beside. When the procedure gives no more than h_0
    there, the witness stays the grid point and the instance is recorded beside."""
    import dataclasses

    g = Digraph(m=_B10_INSTANCE["m"], edges=np.asarray(_B10_INSTANCE["edges"], dtype=np.int64))
    d, mp, delta = _B10_INSTANCE["d_model"], g.n_edges, g.max_degree
    h0 = math.ceil(mp / d)
    classes = sorted(np.bincount(konig_edge_coloring(g), minlength=delta).tolist(), reverse=True)
    heads = len(coloring_and_batching(g, d))
    inst = {"graph": {"m": g.m, "edges": g.edges.tolist()}, "m'": mp, "d_model": d, "Delta": delta,
            "(33) Delta <= m'/d_model": delta <= mp / d, "Konig colour classes": classes,
            "matchings by Lemma B.8 (its procedure)": heads, "ceil(m'/d_model) + Delta": h0 + delta, "h_0": h0}
    shown = inst["(33) Delta <= m'/d_model"] and heads > h0
    params = {**v.params, "grid_smallest_point": v.witness}
    if not shown:
        return dataclasses.replace(v, params={**params, "instance_not_shown": inst})
    measured = {**(v.measured_value if isinstance(v.measured_value, dict) else {}),
                "lhs": float(h0 + delta), "rhs": float(h0), "matchings by Lemma B.8 on the witness": heads}
    return dataclasses.replace(v, witness=inst, measured_value=measured, params=params)


def _b10_theta(ctx: CheckContext) -> Verdict:
    # A matching of m' = d_model = 8 log m edges (Delta = 1) satisfies (33) and d_model >= c_0 log m.
    dd = 8 * sp.log(F.m)
    dk_total = F.C * sp.log(F.m)  # h_0 = 1 head of width C log m
    ratio = dk_total / (dd * sp.log(dd) ** sp.nsimplify(ctx.expect("log_power")) / dd)
    v = limit_verdict(ratio.subs(F.C, 1), F.m, expect="finite-positive", ctx=ctx,
                      paper_value="Corollary B.10: D_K = Theta(m' log m' / d_model)")
    if v.status is Status.REFUTED:
        # the same family at every c_0: d_model = m' = K ln m with K > 0 symbolic (so any c_0 <= K is admissible)
        Kc = sp.Symbol("K", positive=True)
        ratio_k = F.C * sp.log(F.m) / sp.log(Kc * sp.log(F.m)) ** sp.nsimplify(ctx.expect("log_power"))
        every = limit_verdict(ratio_k.subs(F.C, 1), F.m, expect="finite-positive", ctx=ctx)
        at_1024 = {f"m = 1e{e}": round(e * math.log(10) / math.log(1024 * e * math.log(10)), 2)
                   for e in (6, 12, 24, 48)}  # D_K / (m' log m' / d_model) in units of C at K = 1024 (illustration)
        return Verdict(Status.REFUTED, paper_value=v.paper_value, measured_value=v.measured_value,
                       witness={"graph": "a matching of m' = d_model edges (Delta = 1)", "d_model": "8 ln m",
                                "D_K": "C log m", "m' log m' / d_model": "log(8 log m)"},
                       params={**v.params, "every_c0": {
                           "family": "a matching of m' = d_model = K ln m edges, K > 0 symbolic (c_0 <= K admissible)",
                           "limit": f"{every.measured_value}", "reading": outcome(
                               every, f"D_K / (m' log m' / d_model) = C ln m / ln(K ln m): {every.measured_value}"),
                           "at K = 1024, in units of C": at_1024}},
                       evidence=v.evidence, evidence_level="proved",
                       details="The construction's D_K is ceil(m'/d) C log m = Theta(m' log m / d_model); it equals "
                               "Theta(m' log m'/d_model) only when log m' = Theta(log m), i.e. m' >= m^eps. The same "
                               "family with d_model = K ln m diverges for every constant K (sympy, K symbolic), so "
                               "no c_0 in d_model >= c_0 log m escapes it.")
    return v


def _b10_theta_readings(v: Verdict) -> dict:
    """Readings of corb10-sym-theta-log-m-prime: the witness at c_0 <= 8, and every c_0 by the same family with
    d_model = K ln m (decided in the check, symbolic in K)."""
    every = (v.params or {}).get("every_c0", {}).get("reading", "not tested: the check computed no family in K")
    return {"c_0 <= 8 (witness d_model = 8 ln m admissible)": outcome(
                v, f"D_K / (m' log m' / d_model) = {v.measured_value}"),
            "any c_0 (d_model = K ln m with K >= c_0, K symbolic)": every}


def _b10_lower(ctx: CheckContext) -> Verdict:
    e = F.eps
    ratio = (F.mp / F.d_model * F.C * sp.log(F.m)) / F.lower_bound_rate()
    q = sp.nsimplify(ctx.expect("density_exponent"))  # m' = O(m^(2 - eps))
    along = sp.simplify(ratio.subs(F.mp, F.m ** (q - e)))
    v = limit_verdict(along.subs({e: sp.Rational(1, 2), F.C: 1}), F.m, expect="finite-positive", ctx=ctx)
    v2 = identity_verdict(sp.expand_log(along, force=True), F.C / (e + 2 - q), variables=[VAR_M, Var(e, 0.05, 1.95), Var(F.C, 1, 10)],
                          ctx=ctx, simplifier=lambda z: sp.simplify(sp.expand_log(z, force=True)))
    return combine_verdicts([v, v2], paper_value="Corollary B.10 matches the lower bound when m' = O(m^(2-eps))",
                            details="Along m' = m^(2-eps): D_K / ((m'/d) log(m^2/m')) = C/eps.")


def _construction_cost(ctx: CheckContext) -> Verdict:
    # Construction IV writes 2 d_model D_K >= 2 m' C log m weights; compare with m d_model log m.
    out_size = 2 * F.d_model * F.DK_construction_iv(Cc=1)
    ratio = (out_size / (F.m ** sp.nsimplify(ctx.expect("m_power")) * F.d_model * sp.log(F.m))).subs({F.mp: F.m * (F.m - 1) / 2, F.Delta: F.m - 1,
                                                                F.d_model: 8 * sp.log(F.m)})
    ratio = ratio.replace(sp.ceiling, lambda z: z)  # ceil(x) >= x: a lower bound of the output size
    v = limit_verdict(ratio, F.m, expect="bounded", ctx=ctx,
                      paper_value="App. B: every constructive algorithm runs in O(m d_model log m)")
    if v.status is Status.REFUTED:
        return Verdict(Status.REFUTED, paper_value=v.paper_value, measured_value=v.measured_value,
                       witness={"graph": "m' = m(m-1)/2 edges (e.g. a tournament), Delta = m - 1", "d_model": "8 ln m",
                                "output entries": ">= 2 m' C log m"},
                       params=v.params, evidence=v.evidence + " (of a lower bound on the output size)",
                       evidence_level="proved",
                       details="Construction IV must write its 2 d_model D_K weights, at least 2 m' C log m numbers, "
                               "which is not O(m d_model log m) once m' = omega(m d_model). The claim holds for "
                               "Constructions I-III (m' = m).")
    return v


CLAIMS = (
    Claim(id="lemb8-konig-coloring", ref="Lemma B.8",
          statement="Konig colouring with Delta colours plus batching partitions E into at most ceil(m'/d_model) + "
                    "Delta matchings of size <= d_model",
          kind=Kind.DETERMINISTIC, tier=Tier.QUICK, check=_check_b8, role="result",
          expects={"dir": Stated("<=", "relation", "Lemma B.8: a partition of E into H = ceil(m'/d_model) + Delta matchings")}),
    symbolic_claim("lemb8-sym-counting", "Lemma B.8", "sum_c ceil(|F_c|/d_model) <= ceil(m'/d_model) + Delta.",
                          _lemb8_counting, role="proof-step", supports=("Lemma B.8",), expects={"dir": Stated("<=", "relation", "Lemma B.8 proof: the counting inequality")}),
    symbolic_claim("lemb8-sym-budget", "Lemma B.8", "H = ceil(m'/d_model) + Delta <= 2(m'/d_model + Delta), so D_K = "
                          "O(m' log m/d_model + Delta log m).", _lemb8_budget, role="result", supports=("Theorem B.9",),
                          expects={"dir": Stated("<=", "relation", "Theorem B.9: D_K = O(m' log m/d_model + Delta log m)")}),
    Claim(id="alg5-weights-layout", ref="Algorithm 5",
          statement="Algorithm 5 builds one head per matching with W^(k) = X^T W'^(k), shared Rademacher signatures, "
                    "tau = d_k / 2, and each edge owned by exactly one head",
          kind=Kind.DETERMINISTIC, tier=Tier.QUICK, check=_check_alg5_layout, role="detail",
          expects={"tau_half": Stated(0.5, "constant", "Algorithm 5 line 7: tau = d_k / 2")}),
    Claim(id="thmb9-event-count", ref="Theorem B.9",
          statement="Proof step: sum_k |M_k|^2 <= d_model m' for the Lemma B.8 matchings",
          kind=Kind.DETERMINISTIC, tier=Tier.QUICK, check=_check_b9_events, role="proof-step",
          supports=("Theorem B.9",),
          expects={"dir": Stated("<=", "relation", "Theorem B.9 proof: sum_k |M_k|^2 <= d_model m'")}),
    symbolic_claim("thmb9-sym-event-count", "Theorem B.9", "The printed arithmetic sum_k |M_k|^2 <= d_model m' holds "
                          "(the event count the proof's union bound needs is thmb9-sym-union-event-count).", _b9_events,
                          role="proof-step", supports=("Theorem B.9",),
                          expects={"dir": Stated("<=", "relation", "Theorem B.9 proof: sum_k |M_k|^2 <= d_model m'")}),
    Claim(id="thmb9-limit-separation", ref="Theorem B.9",
          statement="On 2-regular graphs at (m, d_model) = (512, 384) the d_k -> infinity limit of Algorithm 5's "
                    "scores separates every ordered pair in every one of 20 draws, tested against the statement's "
                    "failure probability m^-3 (exact binomial, false alarm 1e-6)",
          kind=Kind.HIGH_PROBABILITY, tier=Tier.QUICK, check=_check_b9_limit, role="result",
          notes="d_model / ln m = 61.6, above the measured c0 of about 40 (thm41-minimal-constant-c0). Pass bar from "
                "the statement: refuted if the exact lower bound on the failure rate exceeds m^-3 (one "
                "failing draw in 20 does); m^-3 = 7.5e-9 cannot be certified by sampling, so 0 failures are "
                "inconclusive at the resolution they reach (holds-empirically until 2026-11-28, 'verified' against an "
                "ad-hoc rate 1/2 before that). The rate exponent 3 is not "
                "declared in expects: with 0 failures in 20 draws the verdict is the same for m^-2 and m^-4 (no "
                "rate that small is certified, and none is refuted), so the check is insensitive to it.",
          expects={"tau_half": Stated(0.5, "constant", "Algorithm 5 line 7: tau = d_k / 2")}),
    Claim(id="thmb9-separation-whp", ref="Theorem B.9",
          statement="Some C makes Algorithm 5 separate w.p. >= 1 - m^-3 at (m, d_model) = (512, 384), r = 2: failures "
                    "vanish as C grows (measured C), and the d_k -> infinity limit does not fail",
          kind=Kind.HIGH_PROBABILITY, tier=Tier.FULL, check=_check_b9_mc, role="result",
          notes="C in {250, 500, 1000, 2000}, 20 fresh draws of (G, X, W_sig) each, 300 draws of the limit. 'C "
                "sufficiently large' is never fixed: refuted only if the limit fails (no C works at this size, under "
                "the reading that c0 = 61.6 is admissible). m^-3 itself would need ~1e8 draws.",
          expects={"tau_half": Stated(0.5, "constant", "Algorithm 5: tau = d_k / 2 (the limit draws' threshold)")}),
    symbolic_claim("eq33-sym-equivalent-forms", "Eq. (33)", "Delta/d_avg <= m/d_model is equivalent to Delta <= m'/d_model, "
                   "and holds for r-regular graphs.", _eq33_forms, notes="Reading: d_model <= m (the compressive setting).",
                   role="detail", supports=("Corollary B.10",)),
    Claim(id="corb10-equitable-h0-heads", ref="Corollary B.10",
          statement="Under (33), ceil(m'/d_model) matchings of size <= d_model exist (equitable Konig colouring), so "
                    "h_0 heads suffice",
          kind=Kind.DETERMINISTIC, tier=Tier.QUICK, check=_check_b10, role="result",
          notes="Lemma B.8's packing gives ceil(m'/d_model) + Delta heads; h_0 needs an equitable colouring "
                "(de Werra), which the paper does not describe but which exists. No stated value declared: the "
                "direction |class| <= d_model is the only one, and equitable classes have size ceil(m'/h_0) or "
                "floor(m'/h_0), which is d_model itself in most generated instances, so '>=' holds there too."),
    symbolic_claim("corb10-sym-heads-from-theorem-b9", "Corollary B.10", "The word 'immediate': under (33), Theorem "
                          "B.9's own decomposition (Lemma B.8) needs only h_0 = ceil(m'/d_model) heads.", _b10_heads,
                          role="detail", supports=("Corollary B.10",),
                          notes="Bookkeeping imprecision, not a refutation of the corollary: its conclusion (h_0 "
                                "heads suffice) is true and verified by corb10-equitable-h0-heads through an equitable "
                                "edge colouring (de Werra), a lemma the paper does not state. What fails is only "
                                "'immediate from Theorem B.9': Theorem B.9 is stated with Lemma B.8's ceil(m'/d_model) + "
                                "Delta matchings, and the lemma's own procedure can use more than h_0 under (33): the "
                                "witness is a graph with Delta = 2, m' = 4, d_model = 2 whose Konig colour classes "
                                "(3 and 1 edges) give 3 > h_0 = 2 matchings. The grid's smallest failing point "
                                "(m' = d_model = Delta = 1) is kept beside only: there the procedure itself gives "
                                "h_0 = 1 matching. The reading 'h_0 up to a constant factor' holds (H <= 2 h_0 "
                                "under (33)).",
                          expects={"dir": Stated("<=", "relation", "Corollary B.10: h_0 = ceil(m'/d_model) heads suffice")},
                          slip=("constant-bookkeeping", "proof-step",
                                "Under (33) Lemma B.8 gives ceil(m'/d_model) + Delta <= 2 h_0 heads, so Theorem B.9 "
                                "yields the corollary at once with up to twice h_0 heads and the same D_K; exactly "
                                "h_0 heads needs an equitable colouring the paper does not state (it exists: "
                                "corb10-equitable-h0-heads).")),
    symbolic_claim("corb10-sym-theta-log-m-prime", "Corollary B.10", "Under (33) the construction has D_K = "
                   "Theta(m' log m' / d_model).",
                   recorded(_b10_theta, ["(33): Delta / d_avg = 1 / (m'/m) = m / d_model, with equality (a matching "
                                         "of m' = d_model edges, Delta = 1)", "d_model = 8 ln m >= c_0 log m for "
                                         "c_0 <= 8; the same family with d_model = m' = K ln m, K > 0 symbolic, "
                                         "for c_0 <= K", "d_k = C log m, h_0 = ceil(m'/d_model) = 1 head as stated"],
                            _b10_theta_readings), role="result",
                   expects={"log_power": Stated(1, "exponent", "Corollary B.10: D_K = Theta(m' log m' / d_model)",
                                                unmutated="the witness has log m' = Theta(log log m), and no power "
                                                          "of it is Theta(log m): every exponent is refuted alike")},
                   slip=("quantity-swapped-in-corner", "result",
                         "The construction's budget is Theta(m' log m / d_model); writing log m' changes it only "
                         "when m' is polylogarithmic in m (the witness is a matching of K ln m edges, for every constant "
                         "K, so for every c_0), the same swap "
                         "as in Sec. 1, and printing log m repairs it.")),
    symbolic_claim("corb10-sym-matches-lower-bound", "Corollary B.10", "As formulas, for m' = O(m^(2-eps)) the budget and "
                   "Sec. 9's lower-bound rate are within a constant of each other (a comparison of two rates: that "
                   "the lower bound's margin hypothesis covers the construction, which the paper's 'matches' also "
                   "needs, is def91-constructions-normalised-margin's question).", _b10_lower, role="detail",
                   supports=("Theorem 9.2",),
                   notes="A sparser family m' = O(m^(1-eps)) matches too (a lower bound on the density exponent: "
                         "only the stricter mutant runs).",
                   expects={"density_exponent": Stated(2, "exponent", "Corollary B.10: m' = O(m^(2-eps))",
                                                       bound="lower")}),
    Claim(id="appb-construction-complexity", ref="App. B",
          statement="All constructive algorithms run in O(m d_model log m): the output of Algorithm 5 alone has "
                    "2 h d_model d_k entries; its ratio to m d_model ln m stays bounded as the degree grows",
          kind=Kind.ASYMPTOTIC, tier=Tier.QUICK, role="detail",
          check=recorded(_check_complexity, ["m = 128, d_model = 16, d_k = 8 fixed; r-regular graphs, r = 1..32 "
                                             "(m' = r m), which satisfy (33)", "d_model = 16 >= c_0 ln 128 for "
                                             "c_0 <= 3.3", "the cost counted is only the output Algorithm 5 must "
                                             "write (a lower bound on its running time)"],
                         lambda v: {"as printed (every constructive algorithm, Algorithm 5 included)": outcome(
                             v, str(v.measured_value)),
                             "Constructions I-III only (m' = m)": "not tested: the sweep grows m' = r m"}),
          notes="Fixed d_k and m = 128, d_model = 16; r-regular graphs, m' = r m. Stated value: the bound's direction.",
          expects={"dir": Stated("<=", "relation", "App. B: all constructive algorithms run in O(m d_model log m)")},
          slip=("condition-too-weak", "remark",
                "Algorithm 5 writes about 2 (m' + Delta d_model) C log m weights, more than m d_model log m once m' "
                "exceeds about m d_model; the bound fits the permutation constructions and sparser graphs, the right "
                "size is visible from Algorithm 5's parameters, and the point that constructing is far cheaper than "
                "training stands.")),
    symbolic_claim("appb-sym-construction-cost", "App. B", "All constructive algorithms run in O(m d_model log m) time.",
                   recorded(_construction_cost, ["Construction IV's hypotheses: d_model = 8 ln m >= c_0 log m for "
                                                 "c_0 <= 8, and (33): Delta = m - 1 <= m'/d_model = (m - 1) m / "
                                                 "(16 ln m) once m >= 16 ln m", "graph with m' = m(m-1)/2 edges "
                                                 "(a tournament)", "cost bounded below by the 2 d_model D_K weights "
                                                 "written (ceil dropped: a lower bound)"],
                            lambda v: {"as printed (every constructive algorithm, Construction IV included)": outcome(
                                v, f"output size / (m d_model log m): {v.measured_value}"),
                                "Constructions I-III only (m' = m)": "not tested: the check takes m' = m(m-1)/2"}),
                   role="detail", notes="Stated value: the power of m in the bound, an upper bound (the witness "
                   "exceeds it by a factor m, so a smaller power is refuted too: with the refuted baseline only the "
                   "weaker power 2 is mutated).",
                   expects={"m_power": Stated(1, "exponent", "App. B: constructive algorithms run in O(m d_model log m)",
                                              bound="upper")},
                   slip=("condition-too-weak", "remark",
                         "For a tournament inside Construction IV's hypotheses Algorithm 5's output exceeds m "
                         "d_model log m by a factor of about m / d_model, so 'all constructive algorithms' is too "
                         "broad: the bound fits Constructions I-III, Algorithm 5 needs O((m' + Delta d_model) log "
                         "m), and the cheap-versus-training point stands.")),
)
