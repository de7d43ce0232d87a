"""Sec. 8.1: Theorem 8.1's Steps 4-6 (Eqs. (17)-(18)), its conclusion, minimal constants and certificate.
"""

from __future__ import annotations

import math

import numpy as np
import sympy as sp
import torch

from ...core import formulas as F
from ...analysis.softmax_analysis import (
    background_deviation,
    c0_log_m_sizes,
    certify_all_contexts,
    rows_on_full_context,
)
from ..base import CheckContext, Claim, Kind, Stated, Status, Tier, Verdict
from ..standards.decide import decide
from ..symbolic import Var, combine_verdicts, identity_verdict, inequality_verdict, limit_verdict, prove_by_monotonicity
from ..tools import (
    FAILS,
    HOLDS,
    NOT_TESTED,
    VAR_D_MODEL,
    VAR_ELL,
    VAR_M,
    monte_carlo_verdict,
    reading_record,
    symbolic_claim,
    with_readings,
)
from .common import FALSE_ALARM, PAPER_DIAGONAL, PAPER_ELL, algorithm2_instance, proof_step, softmax_dk
from .steps12 import certain_failure, instance_draws

__all__ = ["CLAIMS", "ORDER", "constants_decision"]

ORDER = 82


def _steps45(ctx: CheckContext) -> Verdict:
    H = Var(F.h, 1, 1e4, integer=True, log=True)
    V = [VAR_M, Var(F.gamma, 0.1, 10), VAR_ELL, H, Var(F.C2, 0.1, 10)]
    # (17): p >= 1 - m^-gamma and B >= (h-1)/ell - Delta  =>  A = p + B >= A_true_lower
    e17 = identity_verdict((1 - F.m ** -F.gamma) + (F.background_mean() - F.delta_tilde()), F.A_true_lower(),
                           variables=V, ctx=ctx)
    e18 = identity_verdict(F.m ** -F.gamma + (F.background_mean() + F.delta_tilde()), F.A_false_upper(),
                           variables=V, ctx=ctx)
    return combine_verdicts([e17, e18], paper_value="Eqs. (17)-(18): A = p^(k*) + B_ij combined with (10), (11), (16)")


def _tight(expr, value) -> Verdict:
    """The stated bound is the proof's own worst case: ``expr`` (at the extreme point) equals ``value`` exactly."""
    diff = sp.nsimplify(sp.simplify(sp.nsimplify(expr) - sp.nsimplify(value)))
    ok = diff == 0
    return Verdict(decide(ok, not ok, exact=True), measured_value={"extreme_value": str(sp.nsimplify(expr)),
                   "stated": str(sp.nsimplify(value))}, evidence="sympy: exact value at the extreme point",
                   evidence_level="proved")


def _step5_true(ctx: CheckContext) -> Verdict:
    g0, lower = ctx.expect("gamma_min"), ctx.expect("true_lower")
    V = [VAR_M, Var(F.gamma, g0, max(30, 2 * g0))]
    g = 1 - F.m ** -F.gamma - sp.nsimplify(lower)
    ineq = inequality_verdict(1 - F.m ** -F.gamma, ">=", sp.nsimplify(lower), variables=V, ctx=ctx,
                              proof=lambda: prove_by_monotonicity(g, V))
    tight = _tight(1 - sp.Integer(2) ** -sp.nsimplify(g0), lower)  # m = 2, gamma = gamma_min: m^-gamma = 2^-3 = 1/8
    return combine_verdicts([ineq, tight], paper_value="gamma >= 3, m >= 2 => m^-gamma <= 2^-3, A_true >= 7/8 > 1/2",
                            details="7/8 is the bound's value at m = 2, gamma = 3 (the paper's 2^-3 = 1/8), so a "
                                    "different stated constant is either false or not what the step gives.")


def _step5_crude(ctx: CheckContext) -> Verdict:
    H = Var(F.h, 1, 1e3, integer=True, log=True)
    Cl = Var(F.C_ell, 1, 100, log=True)
    ell_big = Var(F.ell, 2, 1e6, integer=True, log=True)
    cons = [lambda pt: pt["ell"] >= pt["C_ell"] * max(pt["h"], math.log(pt["m"]))]
    V = [VAR_M, H, ell_big, Cl]
    v1 = inequality_verdict(F.background_mean(), "<=", 1 / F.C_ell, variables=V, ctx=ctx, constraints=cons, max_points=1200)
    mx = sp.Max(F.h, sp.log(F.m))
    v2 = inequality_verdict(sp.sqrt(F.h * sp.log(F.m)), "<=", mx, variables=[VAR_M, H], ctx=ctx)
    v3 = inequality_verdict(F.delta_tilde(), "<=", 2 * F.C2 / F.C_ell, variables=V + [Var(F.C2, 0.1, 10)], ctx=ctx,
                            constraints=cons, max_points=1500)
    return combine_verdicts([v1, v2, v3], paper_value="ell >= C_ell max{h, log m} => (h-1)/ell <= 1/C_ell and Delta <= 2 C_2/C_ell",
                            details="sqrt(h log m) <= max{h, log m} is the geometric-mean bound.")


def _step5_false(ctx: CheckContext) -> Verdict:
    g0, factor, upper = ctx.expect("gamma_min"), ctx.expect("c_ell_factor"), ctx.expect("nontarget_upper")
    V = [VAR_M, Var(F.gamma, g0, max(30, 2 * g0)), Var(F.C2, 0.01, 100, log=True), Var(F.C_ell, 1, 1e4, log=True)]
    cons = [lambda pt: pt["C_ell"] >= factor * (1 + 2 * pt["C_2"])]
    # With C_ell >= 8(1 + 2 C_2): (1 + 2 C_2)/C_ell <= 1/8. Substitute the extreme C_ell = 8(1 + 2 C_2) for the proof.
    g = sp.nsimplify(upper) - F.step5_false_upper(Cl=sp.nsimplify(factor) * (1 + 2 * F.C2))
    v = inequality_verdict(F.step5_false_upper(), "<=", sp.nsimplify(upper), variables=V, ctx=ctx, constraints=cons,
                           max_points=1500, proof=lambda: prove_by_monotonicity(g, V[:3]))
    tight = _tight(sp.Integer(2) ** -sp.nsimplify(g0) + 1 / sp.nsimplify(factor), upper)
    below_ok = upper < 0.5
    below = Verdict(decide(below_ok, not below_ok, exact=True), measured_value={"bound": upper, "tau": 0.5},
                    evidence="exact comparison of the stated bound with tau = 1/2", evidence_level="proved")
    return combine_verdicts([v, tight, below],
                            paper_value="C_ell >= 8(1 + 2 C_2), gamma >= 3 => A_ij <= 1/8 + 1/8 < 1/2",
                            details="1/8 + 1/8 is the bound at m = 2, gamma = 3, C_ell = 8(1 + 2 C_2) (exact).")


def _gamma_feasible(ctx: CheckContext) -> Verdict:
    Cc = Var(F.C, 64, 1e4, log=True)
    return inequality_verdict(F.eq10_gamma(), ">=", 3, variables=[Cc], ctx=ctx,
                              proof=lambda: prove_by_monotonicity(F.eq10_gamma() - 3, [Cc]),
                              paper_value="gamma = sqrt(C)/2 - 1 >= 3 is reached by C >= 64")


def _step6(ctx: CheckContext) -> Verdict:
    ident = identity_verdict(F.m / F.d_model * F.C * sp.log(F.m) ** 2, F.DK_softmax(), variables=[VAR_M, VAR_D_MODEL, Var(F.C, 1, 100)], ctx=ctx)
    rate = limit_verdict(F.DK_softmax(d=F.m / F.lam) / (F.lam * sp.log(F.m) ** sp.nsimplify(ctx.expect("log_power"))),
                         F.m, expect="finite-positive", ctx=ctx)
    return combine_verdicts([ident, rate], paper_value="D_K = h d_k = Theta((m/d_model)(log m)^2)")


def _head_logits(c) -> np.ndarray:
    """softmax_analysis.all_head_logits(c), bit for bit: the torch products of measurements.head_score_matrix, without
    re-checking that the construction's weights are finite and without its sum over a single head (x + 0 for the
    one term, which can only turn a -0.0 into 0.0, and L - max(L) and exp make no difference between the two)."""
    X = torch.as_tensor(c.X, dtype=torch.float64)[None]
    L = np.empty((c.n_heads, c.m, c.m))
    for k in range(c.n_heads):
        W_Q = torch.as_tensor(c.W_Q[k:k + 1], dtype=torch.float64)
        W_K = torch.as_tensor(c.W_K[k:k + 1], dtype=torch.float64)
        q = torch.einsum("...bld,...hdk->...bhlk", X, W_Q)
        kk = torch.einsum("...bld,...hdk->...bhlk", X, W_K)
        np.divide((q @ kk.transpose(-1, -2))[0, 0].numpy(), math.sqrt(c.d_k), out=L[k])
    return L


def _conclusion_on_V(c, L=None) -> dict:
    """Theorem 8.1's conclusion on the context C = V (ell = m): min_i A_{i,pi(i)} and max_{j != pi(i)} A_ij."""
    P = _head_logits(c) if L is None else L.copy()
    P -= P.max(axis=2, keepdims=True)
    np.exp(P, out=P)
    P /= P.sum(axis=2, keepdims=True)
    A = P.sum(axis=0)  # [m, m]
    perm = np.asarray(c.graph.perm)
    rows = np.arange(c.m)
    true = A[rows, perm]
    A[rows, perm] = -np.inf
    j = A.argmax(axis=1)
    worst = int(np.argmax(A[rows, j]))
    return {"min_true": float(true.min()), "max_wrong": float(A.max()), "holds": bool(true.min() > 0.5 and A.max() < 0.5),
            "worst_source": worst, "worst_item": int(j[worst]), "worst_item_is_source": bool(j[worst] == worst)}


def _wrong_counts(out: dict) -> dict:
    """Sources (of those scored) whose true A is <= 1/2, or with a wrong item at A >= 1/2, from rows on C = V."""
    A = out["A"].copy()
    rows = np.arange(A.shape[0])
    true = A[rows, out["targets"]]
    A[rows, out["targets"]] = -np.inf
    wrong = A.max(axis=1)
    return {"sources_scored": int(A.shape[0]), "sources_true_le_half": int((true <= 0.5).sum()),
            "sources_wrong_ge_half": int((wrong >= 0.5).sum()), "min_true": float(true.min()),
            "max_wrong": float(wrong.max()), "holds": bool(true.min() > 0.5 and wrong.max() < 0.5)}


# Witness configurations of thm81-conclusion-large-dk: (label, m, d_model, d_k, draws, sources scored per draw).
# C = 64 is the value Step 5 asks for (gamma = sqrt(C)/2 - 1 = 3), d_k = ceil(C ln^2 m); the context is C = V.
_LARGE_DK_QUICK = (("theorem constants", 1024, 512, softmax_dk(64.0, 1024), 3, None),
                   ("large d_k", 128, 64, 6400, 6, None))
_C0_SWEEP = ((32.0, (2, 4, 8, 16)), (74.0, (2, 4, 8)))  # d_model = c0 ln m, C = 64, full tier
_SOURCES_SCORED = 512  # sources scored per draw when m > 1024 (a failing source is a witness; counts are lower bounds)


def _large_dk_configs(full: bool) -> list:
    configs = list(_LARGE_DK_QUICK)
    if full:
        configs.append(("theorem constants, C = 256", 1024, 512, softmax_dk(256.0, 1024), 3, None))
        for c0, heads in _C0_SWEEP:
            for m, d_model in c0_log_m_sizes(c0, heads):
                configs.append((f"d_model = {c0:g} ln m, C = 64", m, d_model, softmax_dk(64.0, m), 3,
                                _SOURCES_SCORED if m > 1024 else None))
    return configs


def _c0_over_c(p: dict) -> float:
    """c0 / C of a configuration: (d_model / ln m) / (d_k / ln^2 m)."""
    return (p["d_model"] / math.log(p["m"])) / (p["d_k"] / math.log(p["m"]) ** 2)


def _check_large_dk(ctx: CheckContext) -> Verdict:
    verdicts, same_draws = [], []
    for ci, (label, m, d_model, d_k, n, n_src) in enumerate(_large_dk_configs(ctx.tier != "quick")):
        # monte_carlo_verdict reads a draw's info only as the witness (its first failing draw), and the verdict keeps
        # only the first refuted configuration's: the other draws need only ok, decided by certain_failure when it can
        witness_open, failed = not any(v.status is Status.REFUTED for v in verdicts), []

        def trial(r, m=m, d_model=d_model, d_k=d_k, ci=ci, n_src=n_src, label=label, witness_open=witness_open,
                  failed=failed):
            src = np.arange(m) if n_src is None else np.sort(ctx.rng(ci, r, 1).choice(m, size=n_src, replace=False))
            head = {"config": label, "m": m, "d_model": d_model, "h": m // d_model, "d_k": d_k, "draw": r}
            if not (witness_open and not failed) and same_draws == [True]:
                graph, X, blocks, W_sig = instance_draws(m, d_model, d_k, ctx.rng(ci, r))
                if certain_failure(X, W_sig, blocks, src, d_k):
                    return False, {**head, "holds": False, "decided_by": "certain_failure (info never read)"}
            c = algorithm2_instance(m, d_model, d_k, ctx.rng(ci, r))
            if not same_draws:  # the fast path's draws must be algorithm2_instance's (checked once, before any use)
                g, X, blocks, W_sig = instance_draws(m, d_model, d_k, ctx.rng(ci, r))
                same_draws.append(np.array_equal(g.perm, c.graph.perm) and np.array_equal(X, c.X) and np.array_equal(
                    W_sig, c.W_sig) and len(blocks) == len(c.blocks) and all(
                    np.array_equal(a, b) for a, b in zip(blocks, c.blocks)))
            out = _wrong_counts(rows_on_full_context(c, src))
            failed.extend([] if out["holds"] else [r])
            return out["holds"], {**head, "h": c.n_heads, **out}

        verdicts.append(monte_carlo_verdict(
            trial, n_trials=n, claimed_failure_rate=float(m) ** -3, false_alarm=FALSE_ALARM,
            params={"config": label, "m": m, "d_model": d_model, "h": m // d_model, "d_k": d_k, "ell": m,
                    "hypotheses_hold_for": {"C <=": d_k / math.log(m) ** 2, "c0 <=": d_model / math.log(m),
                                            "C_ell <=": m / max(m // d_model, math.log(m))}},
        ))
    refuted = [v for v in verdicts if v.status is Status.REFUTED]
    status = decide(not refuted and all(v.status is Status.VERIFIED for v in verdicts), bool(refuted), exact=True)
    hyps, outcomes = [], []
    for v in verdicts:
        p = v.params
        hf = p["hypotheses_hold_for"]
        hyps.append(f"[{p['config']}] m = {p['m']}, d_model = {p['d_model']} (h = {p['h']}), d_k = {p['d_k']} >= "
                    f"C (ln m)^2 for every C <= {hf['C <=']:.1f}; d_model >= c0 ln m for every c0 <= {hf['c0 <=']:.1f}; "
                    f"context C = V (ell = m >= C_ell max{{h, ln m}} for every C_ell <= {hf['C_ell <=']:.1f}); "
                    "Algorithm 2 weights, tau = 1/2")
        outcomes.append(f"[{p['config']}] m = {p['m']}: {v.measured_value} (claimed rate <= m^-3 = "
                        f"{p['claimed_failure_rate']:.3g}, {v.status.value})")
    readings = {"'d_k >= C (log m)^2' with d_k = C (log m)^2 at C = 64 (the proof's own constant), fixed context C = V":
                {Status.REFUTED: FAILS, Status.VERIFIED: HOLDS}.get(verdicts[0].status, NOT_TESTED) + ": " + outcomes[0],
                "'d_k >= C (log m)^2' as a lower bound (every larger d_k allowed), fixed context C = V":
                (FAILS if refuted else HOLDS) + ": " + "; ".join(outcomes),
                # the regime a restated theorem could keep (the slip's repair): heads of width Theta((log m)^2) on
                # embeddings much wider than C log m, where the non-owner heads stay diffuse; no size here reaches it
                "'d_k = C (log m)^2' with c0 much larger than C (c0 >= 20 C, e.g. d_model >= 1280 ln m at C = 64)":
                f"{NOT_TESTED}: the largest c0 / C run here is {max(_c0_over_c(v.params) for v in verdicts):.2f}"
                " (c0 = d_model / ln m, C = d_k / ln^2 m); at C = 64, c0 >= 20 C with h >= 2 heads needs m in the hundreds "
                "of thousands"}
    return with_readings(Verdict(
        status=status,
        paper_value="w.p. >= 1 - m^-3: A_{i,pi(i)} > 1/2 > A_ij (j != pi(i)) whenever d_k >= C (log m)^2, "
                    "d_model >= c0 log m, ell >= C_ell max{h, log m}",
        measured_value=[v.measured_value for v in verdicts],
        witness=refuted[0].witness if refuted else None,
        params={"configs": [v.params for v in verdicts]},
        evidence="Monte Carlo over fresh (X, signatures) draws per configuration, exact one-sided Clopper-Pearson "
                 f"bounds at false-alarm {FALSE_ALARM:g}; scores on the context V",
        evidence_level="certified",
        details=("The first configuration is inside the hypotheses at the proof's own constant C = 64 (gamma = 3), "
                 "c0 = 74, C_ell = 148: every true A is ~1, yet non-owner heads put mass > 1/2 on a wrong item for a "
                 "quarter of the sources. As d_k grows with X fixed, S^(k)/d_k tends to its conditional mean and each "
                 "non-owner head becomes an argmax over the context, putting mass ~1 on one wrong item; so the "
                 "failure probability tends to 1 and no constant C makes 'd_k >= C (log m)^2' sufficient at a given "
                 "m. The full tier adds C = 256 at (1024, 512) and sweeps m along d_model = c0 ln m (c0 = 32 and 74, "
                 "C = 64, h = m / d_model growing): the fraction of failing sources grows with m towards 1, so a "
                 "larger m does not rescue these constants (sources scored: all for m <= 1024, "
                 f"{_SOURCES_SCORED} sampled above, a lower bound on the failing count)."),
    ), hyps, readings)


def constants_table(ctx: CheckContext, sizes, Cs, draws: int) -> list:
    """Per (m, d_model, C): the conclusion on C = V over ``draws`` draws (seeded by the position in the grids)."""
    rows = []
    for si, (m, d_model) in enumerate(sizes):
        for ci, C in enumerate(Cs):
            d_k = softmax_dk(C, m)
            outs = [_conclusion_on_V(algorithm2_instance(m, d_model, d_k, ctx.rng(si, ci, r))) for r in range(draws)]
            rows.append({"m": m, "d_model": d_model, "h": m // d_model, "C": C, "d_k": d_k, "draws": draws,
                         "draws_ok": sum(o["holds"] for o in outs),
                         "draws_failing_on_a_wrong_item_only": sum((not o["holds"]) and o["min_true"] > 0.5
                                                                   and o["max_wrong"] >= 0.5 for o in outs),
                         "min_true": min(o["min_true"] for o in outs), "max_wrong": max(o["max_wrong"] for o in outs)})
    return rows


def constants_decision(rows: list) -> tuple:
    """The rule of thm81-minimal-constants on the table of one configuration (rows in increasing C):

    - holds (HOLDS_EMPIRICALLY): some C of the grid and every larger C pass on every draw (the hypothesis
      d_k >= C (log m)^2 admits every larger d_k, so only a monotone tail counts);
    - fails (CONTRADICTED_EMPIRICALLY): at the largest C of the grid every draw fails, and fails only on a wrong item
      (every true A > 1/2, some wrong A >= 1/2): the owner head did its part, so c0 is large enough for Steps 1-2
      and it is the non-owner background, growing with d_k, that breaks the conclusion;
    - INCONCLUSIVE otherwise (e.g. owner-head failures: c0 too small for the theorem's 'sufficiently large').
    Returns (status, the C from which the tail holds or None)."""
    works = [r["draws_ok"] == r["draws"] for r in rows]
    tail_from = next((i for i in range(len(works)) if all(works[i:])), None)
    holds = tail_from is not None
    top = rows[-1]
    fails = not holds and top["draws_failing_on_a_wrong_item_only"] == top["draws"]
    return decide(holds, fails), (rows[tail_from]["C"] if holds else None)


_CONSTANTS_DRAWS = 8


def _check_constants(ctx: CheckContext) -> Verdict:
    """Smallest d_k (as C = d_k / ln^2 m) at which the conclusion holds on C = V, with h = 2 and h = 4."""
    full = ctx.tier != "quick"
    sizes = [(128, 64), (256, 128), (512, 256), (1024, 512)] + ([(2048, 1024), (1024, 256)] if full else [])
    Cs = (1.0, 2.0, 4.0, 8.0, 16.0, 32.0)
    draws = _CONSTANTS_DRAWS
    rows = constants_table(ctx, sizes, Cs, draws)
    smallest = []
    for m, d_model in sizes:
        mine = [r for r in rows if (r["m"], r["d_model"]) == (m, d_model)]
        ok = [r["C"] for r in mine if r["draws_ok"] == draws]
        smallest.append((m, d_model, min(ok) if ok else None))
    largest = max(sizes, key=lambda md: md[1] / math.log(md[0]))  # the configuration with the largest c0
    at_largest = [r for r in rows if (r["m"], r["d_model"]) == largest]
    status, tail_C = constants_decision(at_largest)
    paper_hyp = [{"m": m, "d_model": dm, "h": m // dm, "ell": PAPER_ELL, "max{h, ln m}": max(m // dm, math.log(m)),
                  "C_ell_implied": PAPER_ELL / max(m // dm, math.log(m))} for m, dm in PAPER_DIAGONAL]
    scope = {}
    if status is Status.CONTRADICTED_EMPIRICALLY:
        top = at_largest[-1]
        best = max(at_largest, key=lambda r: r["draws_ok"])
        scope = reading_record(
            [f"(m, d_model) = {largest}: c0 = d_model / ln m = {largest[1] / math.log(largest[0]):.0f} (the largest tested)",
             "h = m / d_model", "context C = V (ell = m, so C_ell = m / max{h, ln m} is as large as allowed)",
             f"{draws} draws per C"],
            {"d_k >= C (log m)^2: every larger d_k is admissible (the theorem's hypothesis)":
                 f"{FAILS}: at C = {top['C']:g} all {draws} draws fail on a wrong item (min true A = "
                 f"{top['min_true']:.3f}, max wrong A = {top['max_wrong']:.3f})",
             "d_k = C (log m)^2 for one well-chosen C (Step 6's 'minimal choice')":
                 (f"{HOLDS}: C = {best['C']:g} passes on {best['draws_ok']} of {draws} draws"
                  if best["draws_ok"] == draws else
                  f"{NOT_TESTED}: the best C of the grid ({best['C']:g}) passes on {best['draws_ok']} of {draws} "
                  "draws only")})
    return Verdict(
        status=status,
        paper_value="for large C, c0, C_ell: A_{i,pi(i)} > 1/2 > A_ij on every context of length ell",
        measured_value={"smallest_C_passing_every_draw_per_size": smallest, "tail_from_C_at_largest_c0": tail_C,
                        "paper_experiments_C_ell_implied_by_ell_16": [round(p["C_ell_implied"], 2) for p in paper_hyp]},
        params={"table": rows, "draws": draws, "context": "C = V (ell = m)", **scope},
        evidence=f"exact aggregated softmax scores of Algorithm 2 on the full context, {draws} draws per (size, C)",
        evidence_level="sampled",
        details=("Rule (constants_decision), at the configuration with the largest c0 = d_model / ln m: "
                 "holds-empirically only when some C of the grid and every larger C pass on every draw; "
                 "contradicted-empirically when at the largest C every draw fails on a wrong item while every true "
                 "A > 1/2 (the owner heads work, so c0 is not what fails; the background of the non-owner heads "
                 "grows with d_k); inconclusive otherwise. The table shows where smaller c0 fail for every C. Step 5 "
                 "needs C_ell >= 8(1 + 2 C_2) >= 8, while the paper's softmax experiments (ell = 16) have "
                 "ell / max{h, ln m} <= 2: the hypotheses are not met at the paper's sizes."),
    )


def _check_certificate(ctx: CheckContext) -> Verdict:
    """Worst case over all contexts of length ell, per draw: certified / refuted by an explicit context."""
    full = ctx.tier != "quick"
    # full tier adds (2048, 1024) at C = 8, where the conclusion can hold on the context V (thm81-minimal-constants)
    # quick: C = 64 (gamma = 3, the value Step 5 uses), c0 = 23, ell = 128 (C_ell = ell / max{h, ln m} = 23)
    configs = [(256, 128, 64.0, 128)] + ([(512, 256, 8.0, 128), (2048, 1024, 8.0, 512)] if full else [])
    rows, witness = [], None
    for ci, (m, d_model, C, ell) in enumerate(configs):
        c = algorithm2_instance(m, d_model, softmax_dk(C, m), ctx.rng(ci))
        cert = certify_all_contexts(c, ell)
        # Step 5 needs C_ell >= 8(1 + 2 C_2) for a C_2 with which (16) holds; the smallest such C_2 of this draw
        # (on the context V) bounds the proof's C_ell from below
        c2_req = float(background_deviation(c, np.arange(m)[None, :])["required_C2"])
        c_ell = ell / max(c.n_heads, math.log(m))
        rows.append({"m": m, "d_model": d_model, "C": C, "d_k": c.d_k, "ell": ell, "C_ell": c_ell,
                     "required_C2_on_V": c2_req, "proof_C_ell_needed": 8 * (1 + 2 * c2_req),
                     "meets_step5_C_ell": bool(c_ell >= 8 * (1 + 2 * c2_req)), "certified": cert.certified,
                     "refuted": cert.refuted, "min_true_lower": cert.min_true_lower,
                     "max_wrong_witness": cert.max_wrong_witness,
                     "fraction_sources_certified": cert.fraction_sources_certified,
                     "witness_kind": cert.witness["kind"] if cert.witness else None,
                     "witness_target_in_context": cert.witness["target_in_context"] if cert.witness else None})
        if cert.refuted and witness is None and rows[-1]["meets_step5_C_ell"]:
            witness = {"m": m, "d_model": d_model, "d_k": c.d_k, "ell": ell, "draw_seed_keys": [ctx.seed, ci],
                       **cert.witness}
    certified = all(r["certified"] for r in rows)
    # inconclusive: no witness, or witnesses only below the C_ell the proof needs
    status = decide(certified, witness is not None and not certified)
    params = {"configs_(m,d_model,C,ell)": configs}
    if witness is not None:
        w = witness
        params.update(reading_record(
            [f"C = {rows[0]['C']:g}: d_k = ceil(C ln^2 m) = {rows[0]['d_k']} (gamma = sqrt(C)/2 - 1 = "
             f"{math.sqrt(rows[0]['C']) / 2 - 1:g}; Step 5 needs gamma >= 3)",
             f"c0 = d_model / ln m = {configs[0][1] / math.log(configs[0][0]):.1f}, h = m / d_model",
             f"C_ell = ell / max(h, ln m) = {configs[0][3] / max(configs[0][0] // configs[0][1], math.log(configs[0][0])):.1f}",
             "Algorithm 2 weights, softmax over the context with 1/sqrt(d_k) scaling, tau = 1/2"],
            {"all contexts of length ell at once (the worst context chosen after the draw; the 'Consequently' "
             "sentence and Proposition 8.4's 'uniformly over all contexts')":
                 f"{FAILS}: context with pi(i) {'present' if w.get('target_in_context') else 'absent'}, "
                 f"A = {rows[0]['max_wrong_witness']:.3g} on a wrong item",
             "one context fixed before the draw (the theorem's 'for any fixed context')":
                 f"{NOT_TESTED}: see thm81-conclusion-large-dk and thm81-eq11-target-absent"}))
    return Verdict(
        status=status,
        paper_value="Consequently: with pi(i) in C the threshold 1/2 finds it; with pi(i) not in C no edge is declared",
        measured_value=rows, witness=witness,
        params=params,
        evidence="exact worst case over all contexts of length ell (sorted-logit bounds + exactly scored witness contexts), "
                 "one draw of (X, signatures) per configuration",
        evidence_level="sampled",
        details=("A witness is a concrete context of the given draw with A_ij >= 1/2 for j != pi(i) (often with pi(i) "
                 "absent: the owner head's mass then goes to the best distractor) or A_{i,pi(i)} <= 1/2. It counts only "
                 "where C_ell = ell / max{h, ln m} meets Step 5's C_ell >= 8(1 + 2 C_2) with the smallest C_2 for "
                 "which (16) holds on this draw; otherwise the configuration is below the theorem's constants and "
                 "the verdict is inconclusive (at these m no ell <= m reaches that C_ell, see "
                 "thm81-step3-background-concentration)."),
    )


CLAIMS = (
    proof_step(symbolic_claim("eq17-sym-aggregated-bounds", "Eqs. (17)-(18)", "Step 4: combining (10), (11) and (16) gives "
                              "(17) and (18).", _steps45)),
    proof_step(Claim(id="thm81-sym-step5-true-target", ref="Theorem 8.1",
          statement="Step 5(i): gamma >= 3 and m >= 2 give A_{i,pi(i)} >= 7/8.", kind=Kind.SYMBOLIC, tier=Tier.QUICK,
          check=_step5_true,
          expects={"gamma_min": Stated(3, "value", "Step 5: 'choose C (hence gamma) large enough so that gamma >= 3'"),
                   "true_lower": Stated(0.875, "value", "Step 5(i): m^-gamma <= 2^-3 = 1/8, A >= 7/8")},
          notes="Also checks that 7/8 is the bound's exact value at m = 2, gamma = 3 (the step's worst case).")),
    proof_step(symbolic_claim("thm81-sym-step5-crude-bounds", "Theorem 8.1", "Step 5(ii): ell >= C_ell max{h, log m} gives "
                              "(h-1)/ell <= 1/C_ell and Delta <= 2C_2/C_ell.", _step5_crude)),
    proof_step(Claim(id="thm81-sym-step5-nontarget", ref="Theorem 8.1",
          statement="Step 5(ii): C_ell >= {c_ell_factor}(1 + 2C_2) and gamma >= {gamma_min} give A_ij <= 1/4 < 1/2.", kind=Kind.SYMBOLIC,
          tier=Tier.QUICK, check=_step5_false,
          expects={"gamma_min": Stated(3, "value", "Step 5: gamma >= 3"),
                   "c_ell_factor": Stated(8, "value", "Step 5(ii): C_ell >= 8(1 + 2 C_2)"),
                   "nontarget_upper": Stated(0.25, "value", "Step 5(ii): A_ij <= 1/8 + 1/8")},
          notes="Also checks that 1/8 + 1/8 is the bound's exact value at the extreme point (m = 2, gamma = 3, "
                "C_ell = 8(1 + 2 C_2)). The threshold 1/2 is the model's tau (Algorithm 2), not declared.")),
    proof_step(symbolic_claim("thm81-sym-gamma-feasible", "Theorem 8.1", "gamma >= 3 is reachable: C >= 64 suffices.", _gamma_feasible,
                   notes="Stated values not declared: gamma >= 3 is reachable for any target value (C = (2(g+1))^2), so the "
                         "statement is insensitive to the 3; Step 5's use of it is checked with stated values in "
                         "thm81-sym-step5-*.")),
    proof_step(Claim(id="thm81-sym-step6-budget", ref="Theorem 8.1",
          statement="Step 6: D_K = (m/d_model) C (log m)^2 = Theta((m/d_model)(log m)^2).", kind=Kind.SYMBOLIC,
          tier=Tier.QUICK, check=_step6,
          expects={"log_power": Stated(2, "exponent", "Step 6: D_K = Theta((m/d_model)(log m)^2)")})),
    Claim(id="thm81-conclusion-large-dk", ref="Theorem 8.1",
          statement="The conclusion A_{i,pi(i)} > 1/2 > A_ij holds w.p. >= 1 - m^-3 on a fixed context once "
                    "d_k >= C (log m)^2, d_model >= c0 log m and ell >= C_ell max{h, log m} (the hypothesis on d_k is a "
                    "lower bound)",
          kind=Kind.HIGH_PROBABILITY, tier=Tier.QUICK, check=_check_large_dk, role="result",
          notes="Stated values not declared: the failure rate is ~1, so m^-3 vs m^-2 or m^-4 gives the same verdict. "
                "Fixed context C = V (ell = m, the largest allowed). Quick tier: the witness at (m, d_model) = "
                "(1024, 512) with d_k = ceil(64 ln^2 m) meets the hypotheses for every C <= 64 (the proof's own "
                "gamma = 3), c0 <= 73.9 and C_ell <= 147.7; a second configuration (128, 64, d_k = 6400) shows the "
                "large-d_k mechanism (C <= 272). Full tier: C = 256 at (1024, 512), and the sweep along "
                "d_model = c0 ln m (c0 = 32, 74) at C = 64.",
          slip=("false-for-every-constant", "result",
                "The hypothesis d_k >= C (log m)^2 admits arbitrarily wide heads, and as d_k grows each non-owner "
                "head becomes an argmax that puts mass near 1 on a wrong item, so no constant C makes the printed "
                "hypothesis sufficient; only d_k = Theta((log m)^2) with c0 much larger than C, which is untested, "
                "could save a restated theorem.")),
    Claim(id="thm81-minimal-constants", ref="Theorem 8.1",
          statement="For sufficiently large C, c0, C_ell the conclusion holds at concrete sizes; smallest C found per "
                    "(m, d_model) and whether the paper's experiment sizes meet the hypotheses",
          kind=Kind.HIGH_PROBABILITY, tier=Tier.FULL, check=_check_constants, role="result",
          notes="d_model = m/2 or m/4 (c0 = d_model/ln m from 13 to 135), context C = V, C on a doubling grid, "
                "8 draws per (size, C). The decision (constants_decision) rests on the largest C failing on every "
                "draw through a wrong item, not on a smaller C passing every draw (which one extra draw can flip); "
                "properties/test_weight_sec8.py runs it over 5 seeds. Level 'sampled' on purpose (a review of "
                "2026-11-28 asked whether 8 of 8 failures should count as a witness): each failing draw is a "
                "witness for its own C, but 'for sufficiently large C' is refuted only when no admissible C works, "
                "and finitely many C cannot show that; so contradicted-empirically, not refuted. The decisive "
                "refutation of Theorem 8.1 as printed is thm81-conclusion-large-dk's.",
          slip=("false-for-every-constant", "result",
                "A larger C means wider heads, and at the tested sizes the largest C fails on every draw through a "
                "wrong item, so no threshold C0 makes every C >= C0 work as 'sufficiently large C' requires; it is "
                "the mechanism of thm81-conclusion-large-dk seen at concrete sizes.")),
    Claim(id="thm81-all-contexts-certificate", ref="Theorem 8.1",
          statement="Consequence of Theorem 8.1: on every context of length ell the threshold 1/2 recovers pi(i) when "
                    "present and declares no edge when absent",
          kind=Kind.HIGH_PROBABILITY, tier=Tier.QUICK, check=_check_certificate, role="result",
          notes="Worst case over all contexts of a draw (a data-dependent context), so a witness shows the 'all "
                "contexts simultaneously' reading fails; the per-fixed-context reading is thm81-conclusion-large-dk. "
                "Quick tier at the proof's own constant C = 64 (gamma = 3), c0 = 23, C_ell = 23. An earlier review: "
                "the earlier contradicted-empirically verdict rested on a witness below the theorem's constants: "
                "Step 5 needs C_ell >= 8(1 + 2 C_2), and the smallest C_2 for which (16) holds on this draw is ~30, "
                "so the proof's C_ell is ~500 while ell <= m = 256 allows at most 46. A witness now counts only when "
                "C_ell meets that bound; none does at these sizes, hence inconclusive (cannot be decided here: "
                "meeting it needs ell ~ 500 max{h, ln m} <= m, i.e. m in the tens of thousands with exact worst-case "
                "contexts)."),
)
