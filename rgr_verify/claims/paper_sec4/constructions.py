"""Sec. 4: monotonicity under context restriction, Construction I and Algorithm 1.

- monotonicity (Sec. 4) for max-over-heads: a pair's score does not depend on the rest of the context, so
  separation over V implies correct decisions in every context; checked on planted instances and on constructed
  weights;
- Construction I: edge scores, the Theta(log m) width, Monte Carlo separation, the normalised margin, and the union
  bound behind its width (symbolic);
- Algorithm 1: the partition into blocks and the weights it writes, and its D_K budget.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import sympy as sp
import torch
from hypothesis import strategies as st

from ...core import formulas as F
from ...analysis import minimal_constants as K
from ...models.constructions import algorithm1, algorithm3, algorithm5, construction1
from ...core.contexts import context_labels, sample_context
from ...core.embeddings import gaussian_unit_norm_embeddings
from ...core.graphs import random_permutation_graph, random_regular_graph
from ...analysis.measurements import normalised_margin, separation_margins
from ...core.scoring import context_embeddings, max_over_heads_scores
from ...core.strategies import seeds
from ..base import CheckContext, Claim, Kind, Stated, Status, Tier, Verdict, jsonable
from ..standards import decide
from ..symbolic import Var, combine_verdicts, identity_verdict, inequality_verdict, limit_verdict, prove_nonnegative
from ..tools import (
    VAR_M,
    exponent_verdict,
    fit_exponent,
    full_tier,
    onehot_montecarlo,
    outcome_word,
    property_verdict,
    relative_error,
    symbolic_claim,
    with_readings,
)

from ..tools.builders import with_role

__all__ = ["CLAIMS", "ORDER"]

ORDER = 40


_TOL = 1e-9  # float64 agreement, relative to the score scale


def _check_monotonicity(ctx: CheckContext) -> Verdict:
    """Separation of max-over-heads scores over all of V implies correct decisions in every context."""

    @st.composite
    def cases(draw):
        m = draw(st.integers(2, 24))
        h = draw(st.integers(1, 4))
        d_k = draw(st.integers(2, 6))
        noise = draw(st.sampled_from([0.0, 0.05, 0.2, 1.0]))
        ell = draw(st.integers(1, m))
        seed = draw(seeds())
        return {"m": m, "h": h, "d_k": d_k, "noise": noise, "ell": ell, "seed": seed}

    stats = {"premise_held": 0, "premise_failed": 0}

    def prop(case):
        rng = np.random.default_rng(case["seed"])
        m, h, d_k = case["m"], case["h"], case["d_k"]
        perm = rng.permutation(m)
        # planted instance: one-hot items, head 0 puts q_i = k_{pi(i)} on a circle (separating), other heads noise
        theta = 2 * np.pi * np.arange(m) / m
        W_Q = case["noise"] * rng.standard_normal((h, m, d_k))
        W_K = case["noise"] * rng.standard_normal((h, m, d_k))
        W_Q[0, :, :2] += np.stack([np.cos(theta[perm]), np.sin(theta[perm])], axis=1)
        W_K[0, :, :2] += np.stack([np.cos(theta), np.sin(theta)], axis=1)
        X = torch.eye(m, dtype=torch.float64)[None]
        S_V = max_over_heads_scores(X, torch.as_tensor(W_Q), torch.as_tensor(W_K))[0]
        true = S_V[np.arange(m), perm]
        mask = torch.ones(m, m, dtype=torch.bool)
        mask[np.arange(m), perm] = False
        lo, hi = float(true.min()), float(S_V[mask].max()) if m > 1 else -np.inf
        ctx_ids = rng.choice(m, size=case["ell"], replace=False)
        S_C = max_over_heads_scores(X[:, ctx_ids], torch.as_tensor(W_Q), torch.as_tensor(W_K))[0]
        # locality: a pair's score is the same in the context as over V
        err = relative_error(S_C, S_V[ctx_ids][:, ctx_ids])
        assert err <= _TOL, f"a pair's max-over-heads score changed when restricting V to the context (error {err:.3g})"
        if lo > hi:  # premise: global separation over V
            stats["premise_held"] += 1
            tau = (lo + hi) / 2
            labels = torch.as_tensor(perm[ctx_ids][:, None] == ctx_ids[None, :])
            assert torch.equal(S_C > tau, labels), "separated over V but a context decision is wrong"
        else:
            stats["premise_failed"] += 1
        return dict(stats)

    verdict = property_verdict(
        prop, cases(), ctx=ctx, max_examples=80,
        paper_value="S_max separation over V implies the same inequalities in every context C (restriction only removes distractors)",
        params={"tolerance_relative": _TOL},
    )
    if verdict.status is Status.VERIFIED and stats["premise_held"] == 0:
        return Verdict(status=Status.INCONCLUSIVE, paper_value=verdict.paper_value,
                       measured_value="no generated example satisfied the premise", params=verdict.params,
                       evidence=verdict.evidence, evidence_level=verdict.evidence_level)
    return verdict


def _check_c1_edge(ctx: CheckContext) -> Verdict:
    tau_half = ctx.expect("tau_half")

    def prop(ex):
        m, d_k, seed = ex
        r = np.random.default_rng(seed)
        g = random_permutation_graph(m, rng=r)
        c = construction1(g, d_k=d_k, rng=r)
        S = c.W_Q[0] @ c.W_K[0].T  # one-hot: S = W_Q W_K^T
        assert np.all(S[np.arange(m), g.perm] == d_k), "true-edge score != d_k"
        off = S[~g.adjacency]
        assert np.all(np.abs(off) <= d_k) and np.all((off - d_k) % 2 == 0), "non-edge score not a Rademacher sum"
        assert math.isclose(c.tau, d_k * tau_half), f"tau = {c.tau}"
        return None

    return property_verdict(prop, st.tuples(st.integers(1, 40), st.integers(1, 40), seeds()), ctx=ctx,
                            paper_value="S_i,pi(i) = <w_pi(i), w_pi(i)> = d_k; S_ij = <w_pi(i), w_j> for j != pi(i)")


def _check_c1_theta(ctx: CheckContext) -> Verdict:
    ms = (64, 256, 1024, 4096, 2**14, 2**16, 2**20)
    cert = [K.certified_c_construction1(m) for m in ms]
    emp = K.measured_constants("construction-i", m_values=(64, 128, 256, 512) if full_tier(ctx) else (64, 128),
                               n_draws=3, seed=ctx.seed)
    kl = 0.75 * math.log(1.5) + 0.25 * math.log(0.5)  # rate of P[Bin(d, 1/2) >= 3d/4]
    v = exponent_verdict([math.log(m) for m in ms], [c["d_k"] for c in cert], claimed=ctx.expect("log_exponent"), tol=0.25,
                         what="certified minimal d_k (exact union bound <= m^-3) vs ln m",
                         paper_value="d_k = Theta(log m) and tau = d_k / 2 separate all pairs w.h.p.",
                         params={"m": ms}, table={"certified": cert, "empirical": emp["rows"]})
    return Verdict(status=v.status, paper_value=v.paper_value,
                   measured_value=v.measured_value + f"; certified C from {cert[0]['C']:.1f} (m=64) to "
                   f"{cert[-1]['C']:.1f} (m=2^20), limit 5/KL = {5 / kl:.1f}; empirical C (all draws separate): "
                   f"{[round(r['empirical_C'], 1) for r in emp['rows'] if r['empirical_C']]}",
                   witness=v.witness, params=v.params, details=v.details, evidence=v.evidence + "; exact binomial tails",
                   evidence_level=v.evidence_level)


def _check_c1_mc(ctx: CheckContext) -> Verdict:
    cert = K.certified_c_construction1(64)
    return onehot_montecarlo(ctx, m=64, d_k=cert["d_k"], p=0.0, rate=1e-2, signatures="rademacher")


# Construction I under normalisation (26), exactly: for every draw of the signatures, every d_k, every tau and every
# factorisation of its one bilinear form A = W_Q W_K^T. With one-hot inputs S_ij = <w_pi(i), w_j>, so every edge scores
# ||w||^2 = d_k and every non-edge >= -d_k (Cauchy-Schwarz); A = P W W^T (P the permutation, W W^T positive
# semi-definite) has nuclear norm tr(W W^T) = m d_k, the smallest ||U||_F ||V||_F of any factorisation U V^T = A. So the
# best margin (d_k - max non-edge) / 2 at the best tau is at most d_k, and after rescaling to (26) at most 1/m; 1/(2m)
# when some non-edge scores >= 0 (checked per draw). Definition 9.1's pairs u != v; adding the self-pairs only adds
# constraints, so the bound holds for both readings.
M_SYM = sp.Symbol("m", positive=True)
C1_MARGIN_BOUND_26 = 1 / M_SYM


def construction1_margin_26(c) -> dict:
    """Construction I's best Definition 9.1 margin under (26) on the drawn instance ``c``, in exact integer arithmetic.

    Checks the premises of the bound :data:`C1_MARGIN_BOUND_26` on the instance (one-hot inputs, +-1 signatures, W_Q =
    W_K permuted by pi, so A = P W W^T and ||A||_* = tr(W W^T)) and returns the integer edge and non-edge scores, the
    nuclear norm, and gamma_26 = (min edge - max non-edge) / (2 ||A||_*) as a Fraction (loop-free, and with the
    self-pairs). ValueError when the instance is not Construction I's."""
    from fractions import Fraction

    m, perm = c.m, np.asarray(c.graph.perm)
    WQ, WK = np.rint(c.W_Q[0]).astype(np.int64), np.rint(c.W_K[0]).astype(np.int64)
    if (c.n_heads != 1 or not np.array_equal(WQ, c.W_Q[0]) or not np.array_equal(WK, c.W_K[0])
            or not np.all(np.abs(WK) == 1) or not np.array_equal(WQ, WK[perm]) or not np.array_equal(c.X, np.eye(m))):
        raise ValueError("c must be Construction I: one head, one-hot X, +-1 signatures, W_Q = W_K[pi]")
    # S_ij = <w_pi(i), w_j>: float64 products of +-1 entries have integer partial sums of size <= d_k < 2^53, so
    # the BLAS product is exact whatever the summation order (and much faster than an int64 product)
    S = np.rint(c.W_Q[0] @ c.W_K[0].T).astype(np.int64)
    A, off, idx = c.graph.adjacency, ~np.eye(m, dtype=bool), np.arange(m)
    moved = perm != idx
    nuclear = int((WK * WK).sum())  # tr(W W^T) = ||P W W^T||_* = m d_k
    min_edge = int(S[idx[moved], perm[moved]].min()) if moved.any() else None
    max_non, max_non_self = int(S[~A & off].max()), int(S[~A].max())
    out = {"m": m, "d_k": c.d_k, "edge_score": min_edge, "max_nonedge": max_non, "max_nonedge_with_self": max_non_self,
           "nuclear_norm": nuclear, "nuclear_is_m_dk": nuclear == m * c.d_k}
    if min_edge is not None:
        g = Fraction(min_edge - max_non, 2 * nuclear)
        out.update(gamma_26=g, gamma_26_float=float(g), gamma_26_times_m=float(g * m),
                   le_1_over_m=g <= Fraction(1, m), le_1_over_2m=g <= Fraction(1, 2 * m),
                   gamma_26_with_self=Fraction(min_edge - max_non_self, 2 * nuclear))
    return out


def margin_bound_verdict(rows, *, exponent: float, direction: str, bound=C1_MARGIN_BOUND_26,
                         paper_value: str = "") -> Verdict | None:
    """The exact bound ``bound`` (an upper bound on the margin under (26), a sympy expression in :data:`M_SYM`) against
    a claim gamma >~ m^exponent (``direction`` ">=", a lower bound) or gamma <~ m^exponent ("<=").

    A lower bound is refuted (level proved) when bound / m^exponent -> 0 (sympy limit): then for every constant the
    margin falls below it at some m. An upper bound is verified when bound / m^exponent stays bounded. An upper bound
    on the margin can neither verify a lower bound nor refute an upper one: None then (the caller's other evidence
    decides). ``rows`` are :func:`construction1_margin_26` records: every instance must obey the bound exactly (else
    the bound's premises failed: inconclusive)."""
    from fractions import Fraction

    if direction not in (">=", ">", "<=", "<"):
        raise ValueError(f"direction must be a relation, got {direction!r}")
    lower = direction in (">=", ">")
    e = sp.nsimplify(exponent)
    lim = sp.limit(bound / M_SYM ** e, M_SYM, sp.oo)
    table = [{k: (float(v) if isinstance(v, Fraction) else v) for k, v in r.items()} for r in rows]
    over = [r["m"] for r in rows if "gamma_26" in r and not r["gamma_26"] <= Fraction(str(bound.subs(M_SYM, r["m"])))]
    common = dict(paper_value=paper_value or "all upper-bound constructions achieve a constant margin under (26)",
                  params={"exact_bound": str(bound), "claimed": f"gamma {direction} m^{exponent}",
                          f"lim bound / m^{exponent}": str(lim), "instances": table})
    if over:
        return Verdict(Status.INCONCLUSIVE, measured_value=f"instances above the exact bound at m = {over}",
                       evidence="the bound's premises fail on an instance", evidence_level="proved",
                       details="an instance exceeds the exact bound: its premises (Construction I's form) do not hold",
                       **common)
    fails, holds = (lim == 0, False) if lower else (False, bool(lim.is_finite))
    if not (fails or holds):
        return None
    worst = max((r["gamma_26_times_m"] for r in rows if "gamma_26" in r), default=None)
    return Verdict(decide(holds, fails, exact=True),
                   measured_value=f"gamma_26 <= {bound} for every m, draw, d_k, tau and factorisation; lim_(m -> oo) "
                                  f"bound / m^{exponent} = {lim}; on the {len(rows)} drawn instances gamma_26 * m <= "
                                  f"{worst if worst is None else round(worst, 4)} (exact integers)",
                   witness=({"bound": str(bound), "limit": str(lim), "claimed_exponent": exponent} if fails else None),
                   evidence="exact: edge scores ||w||^2 = d_k, non-edge scores >= -d_k (Cauchy-Schwarz), ||W_Q W_K^T||_* "
                            "= tr(W W^T) = m d_k, so the best margin under (26) is <= 1/m at every tau (sympy limit of "
                            "the bound); the premises checked in integer arithmetic on every drawn instance",
                   evidence_level="proved", **common)


def _c1_normalised_fit(ctx: CheckContext) -> Verdict:
    ms = (64, 128, 256, 512, 1024) if full_tier(ctx) else (64, 128, 256, 512)
    xs, ys, rows = [], [], []
    for m in ms:
        r = ctx.rng(m)
        d_k = K.certified_c_construction1(m)["d_k"]
        c = construction1(random_permutation_graph(m, rng=r), d_k=d_k, rng=r)
        nm = normalised_margin(c)
        rows.append({"m": m, "d_k": d_k, **nm})
        if nm["normalised_best_margin"] <= 0:
            continue
        xs.append(m)
        ys.append(nm["normalised_best_margin"])
    rel = ctx.expect("margin_trend")  # "constant margin": bounded below, the fitted exponent is >= 0 (up to tol)
    ys = [1.0 / y for y in ys] if rel in (">=", ">") else ys  # ">=": 1 / margin does not grow
    v = exponent_verdict(xs, ys, claimed=0.0, tol=0.2, upper=True,
                         what=("1 / " if rel in (">=", ">") else "") + "(best-threshold margin / (||U||_F ||V||_F)) "
                              f"of Construction I vs m; margin trend {rel} 0",
                         paper_value="all upper-bound constructions achieve a constant margin under the "
                                     "normalisation (26) (Sec. 9)", params={"m": ms}, table=rows)
    # Hypotheses of (26) after the rescaling, as measured on the witnesses.
    pos = [r for r in rows if r["normalised_best_margin"] > 0]
    max_x = max(r["max_row_norm"] for r in rows)
    max_tau = max(abs(r["normalised_tau"]) for r in rows)
    hyps = [f"m in {list(ms)} (permutation graphs), d_k the certified union-bound width, tau = d_k / 2 as stated",
            f"(26): scores and tau divided by ||U||_F ||V||_F, so ||U||_F = ||V||_F = 1 after rescaling; "
            f"max ||x_v||_2 = {max_x:.3g} <= 1, max |tau| = {max_tau:.3g} <= 1",
            f"{len(pos)} of {len(rows)} draws separate (positive best margin) and enter the fit"]
    if len(pos) >= 2:
        fit_n = fit_exponent([r["m"] for r in pos], [r["normalised_best_margin"] for r in pos])
        raw = fit_exponent([r["m"] for r in pos], [r["normalised_best_margin"] * r["frobenius_scale"] for r in pos])
        printed = (f"{'fails' if v.status is Status.REFUTED else 'holds' if v.status is Status.VERIFIED else 'not tested'}"
                   f": normalised margin ~ m^{fit_n['slope']:.2f} (95% CI [{fit_n['lo']:.2f}, {fit_n['hi']:.2f}])")
        raw_out = (f"{'holds' if raw['slope'] >= -0.2 else 'fails'}: unnormalised best margin ~ m^{raw['slope']:.2f} "
                   "(not the statement's normalisation)")
    else:
        printed = raw_out = f"not tested: only {len(pos)} separating draws"
    readings = {"constant under (26) as printed (margin bounded below uniformly in m)": printed,
                "constant before normalisation (raw scores, tau = d_k / 2)": raw_out}
    if max_x > 1 + 1e-9 or max_tau > 1 + 1e-9:
        readings["constant under (26) as printed (margin bounded below uniformly in m)"] = \
            "not tested: witness outside hypothesis (26) (||x_v|| or |tau| > 1)"
    return with_readings(v, hyps, readings)


def _check_c1_normalised(ctx: CheckContext) -> Verdict:
    """The exact bound gamma_26 <= 1/m (:func:`margin_bound_verdict`) decides; the fitted exponent over the drawn
    sizes (:func:`_c1_normalised_fit`) is kept as supporting detail and decides only where the exact bound cannot."""
    fit = _c1_normalised_fit(ctx)
    ms = fit.params["m"]
    rows = [construction1_margin_26(construction1(random_permutation_graph(m, rng=r), rng=r,
                                                  d_k=K.certified_c_construction1(m)["d_k"]))
            for m in ms for r in (ctx.rng(m),)]  # the fit's draws
    rel = ctx.expect("margin_trend")
    v = margin_bound_verdict(rows, exponent=0, direction=rel,
                             paper_value="all upper-bound constructions achieve a constant margin under the "
                                         "normalisation (26) (Sec. 9)")
    if v is None:
        return fit
    supporting = {"status": fit.status.value, "evidence_level": fit.evidence_level, "measured": fit.measured_value,
                  "interval": fit.params.get("interval")}
    readings = dict(fit.params.get("readings", {}))
    key = "constant under (26) as printed (margin bounded below uniformly in m)"
    readings[key] = f"{outcome_word(v)}: {v.measured_value}"
    return with_readings(dataclasses.replace(v, params={**v.params, "fitted (supporting)": supporting}),
                         fit.params.get("hypotheses_checked", [f"m in {list(ms)}"]), readings)


def _check_monotone(ctx: CheckContext) -> Verdict:
    strat = st.tuples(st.sampled_from(("alg1", "alg3", "alg5")), st.integers(3, 20), st.integers(2, 8),
                      st.integers(1, 12), st.integers(1, 20), st.floats(0, 1), seeds())

    def prop(ex):
        which, m, d, d_k, ell, rho, seed = ex
        r = np.random.default_rng(seed)
        if which == "alg5":
            g = random_regular_graph(m, min(2, m - 1), rng=r)
            c = algorithm5(g, gaussian_unit_norm_embeddings(m, d, rng=r), d_k=d_k, rng=r)
        elif which == "alg1":
            g = random_permutation_graph(m, rng=r)
            c = algorithm1(g, gaussian_unit_norm_embeddings(m, d, rng=r), d_k=d_k, rng=r)
        else:
            g = random_permutation_graph(m, rng=r)
            c = algorithm3(g, d_k=d_k, rng=r)
        full = max_over_heads_scores(c.X[None], c.W_Q, c.W_K)[0].numpy()  # [m, m]: C = V
        mg = separation_margins(c, scores=full)
        ctxv = sample_context(g, min(ell, m), rho, rng=r)
        S = max_over_heads_scores(context_embeddings(c.X, ctxv[None]), c.W_Q, c.W_K)[0].numpy()
        assert np.allclose(S, full[np.ix_(ctxv, ctxv)], atol=1e-9), "context scores differ from V-scores"
        if mg.margin > 0:
            y = context_labels(g, ctxv)
            assert np.array_equal(S > c.tau, y), "separated on V but wrong on a context"
        return None

    return property_verdict(prop, strat, ctx=ctx, max_examples=40,
                            paper_value="separation on V implies correct decisions on every context C subset of V")


def _check_alg1_layout(ctx: CheckContext) -> Verdict:
    strat = st.tuples(st.integers(1, 8), st.integers(1, 8), st.integers(1, 8), seeds())
    tau_half = ctx.expect("tau_half")

    def prop(ex):
        h, d, d_k, seed = ex
        m = h * d
        r = np.random.default_rng(seed)
        g = random_permutation_graph(m, rng=r)
        X = gaussian_unit_norm_embeddings(m, d, rng=r)
        c = algorithm1(g, X, d_k=d_k, rng=r)
        assert c.n_heads == h, f"h = {c.n_heads} != m / d_model = {h}"
        assert math.isclose(c.tau, d_k * tau_half) and set(np.unique(c.W_sig)) <= {-1.0, 1.0}, "tau or signatures"
        src = np.concatenate([c.sources(k) for k in range(h)])
        tgt = np.concatenate([c.targets(k) for k in range(h)])
        assert np.array_equal(np.sort(src), np.arange(m)) and np.array_equal(np.sort(tgt), np.arange(m)), \
            "V_k or T_k do not partition V"
        for k in range(h):
            assert len(c.sources(k)) == d, "|V_k| != d_model"
            WQp, WKp = c.templates(k)
            assert np.allclose(c.W_Q[k], X.T @ WQp) and np.allclose(c.W_K[k], X.T @ WKp), "W != X^T W'"
        return None

    return property_verdict(prop, strat, ctx=ctx, max_examples=30,
                            paper_value="h = m / d_model blocks, T_k = pi(V_k) partition V, W^(k) = X^T W'^(k), "
                                        "tau = d_k / 2")


def _check_alg1_budget(ctx: CheckContext) -> Verdict:
    p_c, p_l = ctx.expect("compression_power"), ctx.expect("log_power")

    def prop(ex):
        m, d, C, seed = ex
        if d > m:
            d = m
        r = np.random.default_rng(seed)
        d_k = max(1, math.ceil(C * math.log(max(m, 2))))
        c = algorithm1(random_permutation_graph(m, rng=r), gaussian_unit_norm_embeddings(m, d, rng=r), d_k=d_k, rng=r)
        target = (m / d) ** p_c * math.log(max(m, 2)) ** p_l  # Theta(m log m / d_model)
        ratio = c.D_K / target
        assert c.D_K == math.ceil(m / d) * d_k, "D_K != h d_k"
        assert C * 0.999 <= ratio <= (C + 1 / math.log(max(m, 2))) * (1 + d / m) + 1e-9, f"D_K / (m ln m / d) = {ratio}"
        return None

    return property_verdict(prop, st.tuples(st.integers(2, 200), st.integers(1, 64), st.floats(0.5, 8),
                                            seeds()), ctx=ctx, max_examples=30,
                            paper_value="D_K = h d_k = Theta(m log m / d_model)")


_SOFTMAX_MS = (64, 256, 1024, 2048)


def _softmax_gap(m: int, rng: np.random.Generator) -> dict:
    """Construction I at the certified d_k under softmax (1/sqrt(d_k) scaling): the smallest true-edge probability
    in the full context (length m) and the largest non-edge probability in a pair context (i, j); a single
    threshold on probabilities exists for all contexts only if the gap (first minus second) is positive."""
    d_k = K.certified_c_construction1(m)["d_k"]
    g = random_permutation_graph(m, rng=rng)
    c = construction1(g, d_k=d_k, rng=rng)
    S = (c.W_Q[0] @ c.W_K[0].T) / math.sqrt(d_k)
    P = np.exp(S - S.max(1, keepdims=True))
    P /= P.sum(1, keepdims=True)
    pair = 1.0 / (1.0 + np.exp(-(S - np.diag(S)[:, None])))  # context (i, j): softmax over {i, j}
    mask = np.ones((m, m), dtype=bool)
    mask[np.arange(m), g.perm] = False
    np.fill_diagonal(mask, False)
    p_true, p_non = float(P[np.arange(m), g.perm].min()), float(pair[mask].max())
    return {"m": m, "d_k": d_k, "C": d_k / math.log(m), "min_true_full": p_true, "max_nonedge_pair": p_non,
            "gap": p_true - p_non}


def _check_softmax_analogue(ctx: CheckContext) -> Verdict:
    rows = [_softmax_gap(m, ctx.rng(m)) for m in _SOFTMAX_MS]
    # The true-edge probability in the full context is <= 1 / (1 + (m-1) e^(-2 sqrt(d_k))) for every draw
    # (s_ij >= -d_k); with d_k = C log m the denominator diverges for every C, with d_k = C (log m)^2 (Theorem 8.1)
    # the same worst-case term vanishes for C > 1/4.
    Cs = sp.Symbol("C", positive=True)
    p_max, p_soft = (sp.nsimplify(ctx.expect(k)) for k in ("max_log_power", "softmax_log_power"))
    log_budget = limit_verdict((F.m - 1) * sp.exp(-2 * sp.sqrt(Cs * sp.log(F.m) ** p_max)), F.m, expect="infinity",
                               ctx=ctx)
    sq_budget = limit_verdict(((F.m - 1) * sp.exp(-2 * sp.sqrt(Cs * sp.log(F.m) ** p_soft))).subs(Cs, 1), F.m,
                              expect="zero", ctx=ctx)
    ok = all(r["gap"] > 0 for r in rows) and log_budget.status is Status.VERIFIED and sq_budget.status is Status.VERIFIED
    return Verdict(status=decide(ok, False, exact=True),
                   paper_value="Sec. 4: 'Analogous separation-based arguments translate to softmax; see Sec. 8' "
                               "(Theorem 8.1: d_k >= C (log m)^2)",
                   measured_value=f"Construction I under softmax at the certified d_k: gap min p_true(full context) - "
                                  f"max p_nonedge(pair context) = {[(r['m'], round(r['gap'], 5)) for r in rows]} "
                                  f"(positive, shrinking); worst-case bound term (m-1) e^(-2 sqrt(d_k)): "
                                  f"{log_budget.measured_value} at d_k = C ln m, {sq_budget.measured_value} at d_k = (ln m)^2",
                   params={"m": _SOFTMAX_MS, "readings": {
                       "Sec. 8's budget d_k >= C (log m)^2": "holds: the worst-case term vanishes",
                       "Theorem 4.1's budget d_k = C log m, every context length": "fails for every fixed C once "
                       "ln m >= 4 C (p_true(full) <= 1/2 while a pair context gives a non-edge >= 1/2); holds at the "
                       "measured sizes"}},
                   details=jsonable(rows), evidence="exact softmax probabilities of Construction I; sympy limits",
                   evidence_level="proved")


_READ = "Natural log; d_k = ceil(C ln m); self-pairs (i, i) count as non-edges. See docs/theorems.md."


def _construction_i_union(ctx: CheckContext) -> Verdict:
    # Hoeffding: P(|<w_a, w_b>| >= d_k/2) <= 2 exp(-(d_k/2)^2 / (2 d_k)) = 2 exp(-d_k/8); union over m(m-1) pairs.
    dk = F.d_k
    half, p_log, rate = (sp.nsimplify(ctx.expect(k)) for k in ("tau_half", "log_exponent", "rate"))
    hoeff = identity_verdict((dk * half) ** 2 / (2 * dk), dk / 8, variables=[Var(dk, 1, 1e4, log=True)], ctx=ctx)
    c_val = 48  # d_k = 48 log m turns 2 exp(-d_k/8) into 2 m^-6
    at_c = identity_verdict(F.union_bound_construction_i(dk=c_val * sp.log(F.m) ** p_log), 2 * F.m * (F.m - 1) * F.m ** -6,
                            variables=[VAR_M], ctx=ctx, simplifier=lambda e: sp.expand(sp.powsimp(sp.expand_log(e, force=True), force=True)))
    g = F.m ** -rate - 2 * F.m * (F.m - 1) * F.m ** -6
    bound = inequality_verdict(2 * F.m * (F.m - 1) * F.m ** -6, "<=", F.m ** -rate, variables=[VAR_M], ctx=ctx,
                               proof=lambda: prove_nonnegative(g, [VAR_M]))
    return combine_verdicts([hoeff, at_c, bound], paper_value="d_k = Theta(log m), tau = d_k/2 separates all pairs w.h.p.",
                            details="An explicit constant: d_k = 48 ln m gives failure probability <= m^-3 for all m >= 2.")



CLAIMS = (
    Claim(
        id="sec4-monotonicity-under-context-restriction",
        ref="Sec. 4",
        statement="Under max-over-heads, separation of true edges from non-edges over all of V carries over to every "
                  "context, because restricting to a context only removes distractor targets.",
        kind=Kind.DETERMINISTIC, tier=Tier.QUICK, check=_check_monotonicity,
        notes="Generated planted instances (one-hot items, a separating circle code in head 0, noise in all heads) "
              "so that the premise holds for a share of examples; checks score locality for every example and the "
              "conclusion whenever the premise holds.", role="result"),
    Claim(id="sec4-constructions-context-monotonicity", ref="Sec. 4",
          statement="For constructed weights (Algorithms 1, 3, 5) context scores are the V-scores restricted to the "
                    "context, so separation on V gives correct decisions on every context",
          kind=Kind.DETERMINISTIC, tier=Tier.QUICK, check=_check_monotone, role="result"),
    Claim(id="constr1-edge-score-equals-dk", ref="Construction I",
          statement="With one-hot inputs and Rademacher signatures the true-edge score is exactly d_k and every "
                    "non-edge score is a sum of d_k Rademacher products",
          kind=Kind.DETERMINISTIC, tier=Tier.QUICK, check=_check_c1_edge, role="proof-step", supports=("Theorem B.1",),
          expects={"tau_half": Stated(0.5, "constant", "Construction I: threshold tau = d_k / 2 (checked on the built construction)")}),
    Claim(id="constr1-dk-theta-log-m", ref="Construction I",
          statement="d_k = Theta(log m) with tau = d_k / 2 suffices: the smallest d_k certified by the exact union "
                    "bound (<= m^-3) grows like ln m",
          kind=Kind.ASYMPTOTIC, tier=Tier.QUICK, check=_check_c1_theta, notes=_READ,
          expects={"log_exponent": Stated(1.0, "exponent", "Construction I: d_k = Theta(log m)")}, role="result"),
    Claim(id="constr1-separation-montecarlo", ref="Construction I",
          statement="Monte Carlo: at m = 64 and the certified d_k, Construction I separates all pairs with failure "
                    "rate <= 1e-2",
          kind=Kind.HIGH_PROBABILITY, tier=Tier.QUICK, check=_check_c1_mc, role="result"),
    Claim(id="constr1-normalised-margin-26", ref="Construction I",
          statement="Under the normalisation (26) of Theorem 9.2 Construction I keeps a constant margin (Sec. 9: "
                    "'all of our upper bounds achieve constant margins')",
          kind=Kind.ASYMPTOTIC, tier=Tier.QUICK, check=_check_c1_normalised,
          notes="Exact (level proved, since the review of 2026-11-28; was fitted): every edge scores ||w||^2 = d_k, "
                "every non-edge >= -d_k, and W_Q W_K^T = P W W^T has nuclear norm m d_k (= ||W_Q||_F ||W_K||_F, the "
                "best of any factorisation), so under (26) the margin is <= 1/m for every draw, d_k, tau and "
                "factorisation (construction1_margin_26 checks the premises in integers on each drawn instance; "
                "margin_bound_verdict takes the sympy limit); on the drawn instances it is <= 1/(2m) (some non-edge "
                ">= 0). Loop-free pairs (Definition 9.1); self-pairs only add constraints. The fitted exponent over "
                "m = 64..512 (full: 1024) is kept as supporting detail. Stated: the direction 'bounded below' (the "
                "mutant 'bounded above' is verified by the same bound), not the 0 (the definition of 'constant').",
          expects={"margin_trend": Stated(">=", "relation", "Sec. 9: 'all of our upper bounds achieve constant "
                                          "margins' under (26)")}, role="detail", supports=("Definition 9.1", "Theorem 9.2"),
          slip=("tightness-gap", "comparison",
                "Under (26) Construction I's margin shrinks like 1/(2m) instead of staying constant, so Sec. 9's "
                "claim that the upper bounds meet Theorem 9.2's margin hypothesis fails for it; Construction I and "
                "Theorem 9.2 each still hold, and only the argument that the two bounds match is missing.")),
    with_role(symbolic_claim("sec4-sym-construction1-union-bound", "Sec. 4", "Construction I: d_k = Theta(log m) and tau = d_k/2 give "
                   "failure probability <= m^-3 by Hoeffding plus a union bound over m(m-1) pairs.", _construction_i_union,
                   notes="Stated values: tau = d_k/2 and d_k = Theta(log m) (Sec. 4), the rate m^-3 (Theorem B.1); the "
                         "constant 48 is ours. The rate is a lower bound on the decay: a weaker rate m^-2 holds a "
                         "fortiori, so only the stricter m^-4 is mutated.",
                   expects={"tau_half": Stated(0.5, "constant", "Sec. 4, Construction I: threshold tau = d_k/2"),
                            "log_exponent": Stated(1, "exponent", "Sec. 4, Construction I: d_k = Theta(log m)"),
                            "rate": Stated(3, "exponent", "Theorem B.1: failure probability <= m^-3", bound="lower")}),
          "proof-step", "Construction I"),
    Claim(id="sec4-softmax-analogue-needs-log-squared", ref="Sec. 4",
          statement="'Analogous separation-based arguments translate to softmax; see Sec. 8': Construction I under "
                    "softmax with one threshold on probabilities separates at the certified d_k at m = 64..2048, and "
                    "asymptotically needs Sec. 8's d_k = Theta((log m)^2), not Theorem 4.1's Theta(log m)",
          kind=Kind.ASYMPTOTIC, tier=Tier.QUICK, check=_check_softmax_analogue,
          notes="Cross-reference check. Softmax over the context items (the source included), "
                "1/sqrt(d_k) scaling as in Sec. 8. The referenced material exists (Theorem 8.1) and its budget is "
                "larger by a log factor, which the worst-case bound shows is necessary for this template. " + _READ +
                " Stated values: the powers of log m in the two budgets, one-sided in this statement (the power "
                "needed lies above the max-over-heads one and at most at the softmax one: a larger softmax power and "
                "a smaller max-over-heads power are weaker, only the stricter mutants run).", role="result",
          expects={"max_log_power": Stated(1, "exponent", "Theorem 4.1 / Construction I: d_k = Theta(log m)",
                                           bound="lower"),
                   "softmax_log_power": Stated(2, "exponent", "Sec. 8, Theorem 8.1: d_k >= C (log m)^2",
                                               bound="upper")}),
    Claim(id="alg1-partition-and-weights", ref="Algorithm 1",
          statement="Algorithm 1 splits V into h = m / d_model blocks of d_model sources whose targets T_k = pi(V_k) "
                    "partition V, with W^(k) = X^T W'^(k) and tau = d_k / 2",
          kind=Kind.DETERMINISTIC, tier=Tier.QUICK, check=_check_alg1_layout, role="detail", supports=("Theorem 4.1",),
          expects={"tau_half": Stated(0.5, "constant", "Algorithm 1: tau = d_k / 2")}),
    Claim(id="alg1-dk-budget", ref="Algorithm 1",
          statement="Algorithm 1's total key budget is D_K = h d_k = Theta(m log m / d_model)",
          kind=Kind.DETERMINISTIC, tier=Tier.QUICK, check=_check_alg1_budget, role="detail", supports=("Theorem 4.1",),
          expects={"compression_power": Stated(1, "exponent", "Algorithm 1 / Theorem 4.1: D_K = Theta(m log m / d_model)"),
                   "log_power": Stated(1, "exponent", "Algorithm 1 / Theorem 4.1: D_K = Theta(m log m / d_model)")}),
)
