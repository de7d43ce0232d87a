"""App. A.3 (denser r-regular graphs): empirical claims, and Eq. (31)'s edge normalisation.

App. A.3 runs use the r-regular sampler of :func:`rgr_verify.core.graphs.random_regular_graph` (union of r greedy
perfect matchings, no self-loops), the source-based context sampler (at least one out-neighbour of each selected
source in the context), and the per-context positive weight w_+ = #neg / #pos of Eq. (30), also at r = 1.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import sympy as sp
from scipy import stats as _st

from ...core import formulas as F
from ...analysis.capacity import compression_x, curves, threshold
from ...analysis.fits import dk_interval
from ...analysis.capacity import cap_sensitivity
from ..base import CheckContext, Claim, Kind, Stated, Status, Tier, Verdict
from ..standards import (EXPONENT_HALF_WIDTH, FACTOR_TWO, STATED_CONSTANT_FACTOR, TOLERANCE_REASONS, Standard, decide,
                         decide_tests, factor_name, conjunction, decide_interval)
from ..tools.measure import LOADER_FREE, conjunction_status, equivalence_status, measured_reading, memo
from ..tools.cells import h_star_tie_break
from ..tools.sharp import SHARP_PRIMARY, SHARP_RULE, SHARP_SOURCE, SHARP_TOLERANCE
from ..tools.multiverse import DIMENSIONS, multiverse_status, significance, tolerance
from ..tools.rungs import end_level, rung_shift_pair
from .a3_rules import (CONSTRUCTION_DKS, construction_decision, degree_band_part, degree_exponent,
                       degree_law_status, degree_rows, edges_collapse_status, one_constant_tol)
from ..symbolic import Var, identity_verdict
from ..tools import (
    FAMILY_ALPHA,
    VAR_D_MODEL,
    laws_block,
    reported_only,
    positive_rates,
    quick_sizes,
    seed_values,
    sharp_verdict,
    sweep_records,
    symbolic_claim,
)

__all__ = ["CLAIMS", "ORDER", "regular_sweep"]

ORDER = 106


def _regular(ctx, tier="full"):
    """(records, {r: points}, {r: Threshold}, {r: DKInterval}, {r: cap sensitivity}) of a3-regular, or (None, why)."""
    recs, why = sweep_records("a3-regular", tier, ctx)
    if recs is None:
        return None, why
    recs = [r for r in recs if r["config"]["graph"] == "regular"]
    by_r = {g[2]: pts for g, pts in curves(recs).items()}
    runs: dict[int, dict] = {}
    for rec in recs:
        c = rec["config"]
        runs.setdefault(c["r"], {}).setdefault((c["n_heads"], c["n_heads"] * c["d_k"]), []).append(rec)
    ths = {r: threshold(pts) for r, pts in by_r.items()}
    ivs = {r: dk_interval([p.D_K for p in pts], ths[r].central) for r, pts in by_r.items()}
    caps = {r: cap_sensitivity(runs[r], by_r[r], ths[r].central, ths[r].h_star) for r in by_r}
    return (recs, by_r, ths, ivs, caps), ""


_A3_M, _A3_D = 128, 32  # the App. A.3 cell of the full preset


_OUT = Status.CONTRADICTED_EMPIRICALLY.value


def _xs(rs) -> dict:
    return {r: compression_x(_A3_M, _A3_D, base="2", r=r) for r in rs}


def _regular_rates(ctx, rs):
    return {r: positive_rates([_A3_M], rng=ctx.rng(98, r), r=r)[_A3_M] for r in rs}


def _edges_measure(ctx):
    """The readings (numbers only), laws and sampler rates of the edge collapse; independent of the stated slope."""
    recs, by_r, ths, ivs, caps = _cached_regular(ctx)[0]
    rs = sorted(r for r in by_r if r <= 16)
    if sum(ths[r].central is not None for r in rs) < 3:
        return None
    capped = {r for r in rs if caps[r]["cap-limited"]}
    readings = {name: measured_reading(rs, ivs, ths, {r: compression_x(_A3_M, _A3_D, base=b, r=r) for r in rs},
                                       cap_limited=capped)
                for name, b in (("log2", "2"), ("ln", "e"))}

    def designs(use):
        r = np.array(use, dtype=float)
        x = np.log(r * _A3_M * math.log2(_A3_M) / _A3_D)
        ones = np.ones((len(use), 1))
        return ({"edges: D ~ r m log2 m / d_model": (ones, x), "vertices: D independent of r": (ones, np.zeros(len(use))),
                 "free: D ~ r^gamma": (np.column_stack([np.ones(len(use)), np.log(r)]), np.zeros(len(use)))},
                "edges: D ~ r m log2 m / d_model")

    return {"rs": rs, "readings": readings, "laws": reported_only(ctx, lambda: laws_block(rs, ivs, designs=designs)),
            "rates": reported_only(ctx, lambda: _regular_rates(ctx, sorted(by_r))) or {}}


def _cached_regular(ctx):
    """:func:`_regular` (full tier), cached per process (it draws nothing from the claim's rng)."""
    return memo("a3-regular:full", ctx, lambda: _regular(ctx), with_seed=False, free_of=LOADER_FREE)


def regular_sweep(ctx):
    """``((records, {r: points}, {r: Threshold}, {r: DKInterval}, {r: cap sensitivity}), "")`` of the a3-regular
    full tier (cached per process), or ``(None, reason)`` when its records cannot be had here."""
    return _cached_regular(ctx)


def _check_edges_collapse(ctx, factor=STATED_CONSTANT_FACTOR, min_r2=0.8, gamma_tol=EXPONENT_HALF_WIDTH):
    slope = ctx.expect("slope")
    factor = tolerance(factor, kind="factor")  # ours: the package's factor for a stated constant
    got, why = _cached_regular(ctx)
    if got is None:
        return Verdict.not_run(why)
    recs, by_r, ths, ivs, caps = got
    meas = memo("a3-edges", ctx, lambda: _edges_measure(ctx), free_of=LOADER_FREE)
    if meas is None:
        return Verdict(Status.INCONCLUSIVE, details="fewer than 3 degrees with a D_K*", evidence_level="fitted")
    rs, laws, rates = meas["rs"], meas["laws"], meas["rates"]
    band = (slope / factor, slope * factor)
    readings = {}
    for name, rd in meas["readings"].items():
        st, res = equivalence_status(rd["interval regression, censored cells as intervals"]["95% profile"], band)
        r2 = rd["paper estimator (LS through origin, first passing D_K, uncensored cells)"]["R2 centred"]
        if st is Status.HOLDS_EMPIRICALLY and r2 < min_r2:
            st = Status.INCONCLUSIVE
        readings[name] = {"verdict under this reading": st.value, "resolution": res, **rd,
                          "tolerance band for the slope": [round(band[0], 4), round(band[1], 4)]}
    capped = {r for r in rs if caps[r]["cap-limited"]}
    gfit = degree_exponent(rs, ivs, capped)
    gamma_tol = tolerance(gamma_tol)  # ours: closer to the edges law's exponent 1 than to the vertices law's 0
    st_gamma, res_gamma = degree_law_status(gfit, tol=gamma_tol)
    st_deg, deg_rows = degree_band_part(rs, ivs, capped, slope, _xs(rs), factor)
    parts = {"constant (log2, as Eq. (31) writes it)": Status(readings["log2"]["verdict under this reading"]),
             "exponent of r (the edges law's 1)": st_gamma, "every degree within the constant's band": st_deg}
    status = edges_collapse_status(parts)
    words = {k: v.value for k, v in parts.items()}
    arts = ()
    if ctx.out_dir is not None:
        from ...analysis.capacity import fit_through_origin
        from ...analysis.plots import plot_curves, plot_dk_star_fit, plot_h_star

        finite = [r for r in rs if ths[r].central is not None]
        x = [compression_x(_A3_M, _A3_D, base="2", r=r) for r in finite]
        fit = fit_through_origin(x, [ths[r].central for r in finite])
        p1 = plot_dk_star_fit([(xx, ths[r], f"r={r}") for xx, r in zip(x, finite)], fit, ctx.out_dir / "fig12-edges.png",
                              title="D_K* against (r m / d_model) log2 m (App. A.3)", xlabel="(r m / d_model) log2 m",
                              paper_slope=slope)
        p2 = plot_h_star([(r * _A3_M / _A3_D, ths[r]) for r in sorted(ths)], ctx.out_dir / "fig13-heads.png",
                         title="h* against r m / d_model (App. A.3)", xlabel="r m / d_model")
        p3 = plot_curves({f"r={r}": pts for r, pts in by_r.items()}, ctx.out_dir / "fig11-regular-curves.png",
                         title="r-regular F1-D_K curves, m=128, d_model=32")
        arts = tuple(str(p.relative_to(ctx.out_dir)) for p in (p1, p2, p3))
    return Verdict(status,
                   paper_value=f"D_K* = {slope} (r m / d_model) log2 m across r in {{1,2,4,8,16}} (one standard per part: "
                               f"the 95% interval of the constant wholly inside [{band[0]:.3g}, {band[1]:.3g}] (a factor "
                               f"{factor:.3g}, log2 as Eq. (31) writes it, centred R2 >= {min_r2}) and the 95% interval of "
                               f"the exponent of r wholly inside [{1 - gamma_tol:g}, {1 + gamma_tol:g}], and each "
                               f"degree's D_K* interval inside [{slope} x / {factor:.3g}, {slope} x * {factor:.3g}]; "
                               "contradicted when any lies wholly outside)",
                   measured_value={"per part": words, "every degree against the constant's band": deg_rows,
                                   "exponent of r": {"gamma": round(gfit["gamma"], 3),
                                                     "gamma 95% profile": [round(v, 3) for v in gfit["gamma 95% profile"]],
                                                     "fit": gfit},
                                   "log2": readings["log2"], "ln (informational, not a reading of Eq. (31))":
                                       readings["ln"],
                                   "laws (edges vs vertices vs free)": laws,
                                   "degrees": degree_rows(sorted(by_r), ths, ivs, caps, rates)},
                   witness=words if status is Status.CONTRADICTED_EMPIRICALLY else None, artefacts=arts,
                   params={"factor": factor, "tolerance on the exponent": gamma_tol,
                           "resolution": {"constant": readings["log2"]["resolution"], "exponent": res_gamma}},
                   evidence=f"full sweep ({len(recs)} runs); censored interval regression on log D_K* (offset log x for "
                            "the constant; log r for the exponent, sigma at least the ladder's resolution), 95% "
                            "profile intervals against the bands (equivalence test); least squares through the "
                            "origin reported; laws by AIC reported", evidence_level="fitted")


def _check_eq32_per_degree(ctx, factor=STATED_CONSTANT_FACTOR):
    """Eq. (32) read per degree: one constant for every density, i.e. D_K* proportional to x = (r m / d_model) log2 m
    at fixed (m, d_model), so D_K* ~ r^gamma with gamma = 1, and that constant the stated one. Two parts, each by one
    standard (inside holds, wholly outside contradicted): gamma's 95% interval against [1 - tol, 1 + tol], and every
    degree's D_K* interval against [slope x / sqrt2, slope x sqrt2] (:func:`~.a3_rules.degree_band_part`). The
    exponent's tolerance is not a number of its own: :func:`~.a3_rules.one_constant_tol` derives it from the factor
    (:data:`~rgr_verify.claims.standards.STATED_CONSTANT_FACTOR`) over the degrees' range."""
    slope = ctx.expect("slope")
    factor = tolerance(factor, kind="factor")  # ours: the package's factor for a stated constant
    got, why = _cached_regular(ctx)
    if got is None:
        return Verdict.not_run(why)
    recs, by_r, ths, ivs, caps = got
    rs = sorted(r for r in by_r if r <= 16)
    capped = {r for r in rs if caps[r]["cap-limited"]}
    st_deg, rows = degree_band_part(rs, ivs, capped, slope, _xs(rs), factor)
    if len(rs) < 3:
        return Verdict(Status.INCONCLUSIVE, measured_value=rows, details="fewer than 3 degrees", evidence_level="fitted")
    fit = degree_exponent(rs, ivs, capped)
    tol = one_constant_tol(rs[0], rs[-1], factor)
    st_gamma, res = degree_law_status(fit, tol=tol)
    status = edges_collapse_status({"gamma": st_gamma, "every degree": st_deg})
    # the multiverse: the D_K* intervals, or the paper's point estimates (the first passing D_K): the least-squares
    # exponent of r with its t-interval, and each degree's first passing D_K against the band
    point = _eq32_points(rs, ths, ivs, capped, slope, factor, tol)
    status, robustness = multiverse_status([
        {"choices": {"points compared": c}, "estimate": est, "interval": iv, "status": st}
        for c, (st, est, iv) in zip(DIMENSIONS["points compared"],
                                    ((status, fit["gamma"], fit["gamma 95% profile"]), point))])
    return Verdict(status,
                   paper_value=f"Eq. (32): D_K* ~ {slope} x with x = (r m / d_model) log2 m, one constant for every "
                               f"r in {{1, 2, 4, 8, 16}}: at fixed m and d_model, D_K* ~ r^gamma with gamma = 1 "
                               f"(tolerance: the 95% interval of gamma wholly inside [{1 - tol:.4g}, {1 + tol:.4g}], "
                               f"i.e. the constant drifts by at most a factor {factor:.3g} from r = {rs[0]} to r = "
                               f"{rs[-1]}; and each degree's D_K* interval inside [{slope} x / {factor:.3g}, {slope} x "
                               f"* {factor:.3g}]; contradicted when either lies wholly outside)",
                   measured_value={"per part": {"gamma": st_gamma.value, "every degree": st_deg.value},
                                   "gamma": round(fit["gamma"], 3),
                                   "gamma 95% profile": [round(v, 3) for v in fit["gamma 95% profile"]],
                                   "fit": fit, "degrees": rows},
                   witness={"gamma 95% profile": fit["gamma 95% profile"], "degrees outside the band": [
                       k for k, v in rows.items() if v["against [slope x / sqrt2, slope x * sqrt2]"] == _OUT]}
                   if status is Status.CONTRADICTED_EMPIRICALLY else None,
                   params={"m": _A3_M, "d_model": _A3_D, "tolerance": tol, "factor": factor, "resolution": res,
                           "robustness": robustness, "point estimates": {"gamma (least squares on the first passing "
                                                                         "D_K)": point[1], "t-interval": point[2],
                                                                         "status": point[0].value},
                           **({"to_decide": res["to_decide"]} if "to_decide" in res else {})},
                   evidence=f"full sweep ({len(recs)} runs); censored-Gaussian interval regression of log D_K* on log r "
                            "(sigma at least the ladder's resolution), 95% profile interval of the exponent against "
                            "the band (equivalence test)", evidence_level="fitted")


def _eq32_points(rs, ths, ivs, capped, slope: float, factor: float, tol: float):
    """Eq. (32) judged on the paper's point estimates: (status, gamma, its 95% t-interval) with gamma the
    least-squares exponent of the first passing D_K in r (:func:`~rgr_verify.claims.tools.fit_exponent`), against
    [1 - tol, 1 + tol], and each degree's first passing D_K (a cap-limited or censored degree keeps its interval)
    against [slope x / factor, slope x * factor]; the parts combine as the interval reading's."""
    from ..tools import fit_exponent

    fin = [r for r in rs if ths[r].central is not None]
    if len(fin) < 3:
        return Status.INCONCLUSIVE, None, None
    f = fit_exponent(fin, [ths[r].central for r in fin])
    st_gamma, _ = equivalence_status((f["lo"], f["hi"]), (1 - tol, 1 + tol))
    xs = _xs(rs)
    sts = []
    for r in rs:
        pred = slope * xs[r]
        pt = (ivs[r].low if r in capped else ths[r].central, ths[r].central) if ths[r].central is not None \
            else (ivs[r].low, ivs[r].high)
        sts.append(equivalence_status((0.0 if r in capped else pt[0], pt[1]), (pred / factor, pred * factor))[0])
    return edges_collapse_status({"gamma": st_gamma, "every degree": conjunction_status(sts)}), f["slope"], \
        [f["lo"], f["hi"]]


def _check_dkstar_grows_with_r_quick(ctx):
    """Quick tier: at fixed m and d_model, D_K* grows with the number of edges r m (App. A.3 at CPU sizes)."""
    recs, why = sweep_records("a3-regular", "quick", ctx)
    if recs is None:
        return Verdict.not_run(why)
    m_max, cap = quick_sizes(recs)
    rs = sorted({r["config"]["r"] for r in recs})
    lo, hi = rs[0], rs[-1]
    ra = [x for x in recs if x["config"]["r"] == lo]
    rb = [x for x in recs if x["config"]["r"] == hi]
    a_small, _, pa = seed_values(ra, favour="small")
    b_large, _, pb = seed_values(rb, favour="large")
    a_large, _, _ = seed_values(ra, favour="large")
    b_small, _, _ = seed_values(rb, favour="small")
    from ...core.stats import permutation_pvalue

    p_up = permutation_pvalue(a_small, b_large, alternative="greater")
    p_down = permutation_pvalue(a_large, b_small, alternative="less")
    # the two tests read each side in its own disfavour, so they cannot both reject
    status = decide_tests(p_up, p_down, FAMILY_ALPHA)
    arts = ()
    by_r = {g[2]: pts for g, pts in curves(recs).items()}
    m, d = recs[0]["config"]["m"], recs[0]["config"]["d_model"]
    if ctx.out_dir is not None:
        from ...analysis.plots import plot_curves, plot_h_star

        ths = {r: threshold(pts) for r, pts in by_r.items()}
        p1 = plot_curves({f"r={r}": pts for r, pts in by_r.items()}, ctx.out_dir / "fig11-regular-curves-quick.png",
                         title=f"r-regular F1-D_K curves (quick: m={m}, d_model={d}); 95% t-intervals")
        p2 = plot_h_star([(r * m / d, ths[r]) for r in rs], ctx.out_dir / "fig13-heads-quick.png",
                         title="h* against r m / d_model (App. A.3, quick)", xlabel="r m / d_model")
        arts = tuple(str(p.relative_to(ctx.out_dir)) for p in (p1, p2))
    fitted = {r: round(0.46 * compression_x(m, d, base="2", r=r), 2) for r in rs}
    return Verdict(status, paper_value=f"analogue at m <= {m_max}, cap {cap}: at fixed m, D_K* grows with the number of "
                                       f"edges r m (r = {lo} -> {hi}); the paper's fit 0.46 (r m / d_model) log2 m "
                                       f"gives {fitted}",
                   measured_value={f"per-seed D_K* at r={lo}": [pa[s]["D_K"] for s in sorted(pa)],
                                   f"per-seed D_K* at r={hi}": [pb[s]["D_K"] for s in sorted(pb)],
                                   "cap-limited seeds (r lo, r hi)": [
                                       sum(v["stopped_early"] is False for v in pa.values()),
                                       sum(v["stopped_early"] is False for v in pb.values())],
                                   "p (grows)": round(p_up, 4), "p (decreases)": round(p_down, 4)},
                   params={"tier": "quick", "alpha": FAMILY_ALPHA,
                           "null pass probability": f"<= {FAMILY_ALPHA} (exact one-sided permutation test)"},
                   artefacts=arts, evidence=f"quick sweep ({len(recs)} runs); per-seed thresholds",
                   evidence_level="analogue")


def spearman_permutation_p(x, y) -> tuple[float, float, float]:
    """(rho, p_up, p_down): Spearman's rank correlation of ``y`` with ``x`` (mid-ranks for ties) and its exact
    one-sided permutation p-values over every ordering of ``y`` (the null: y does not depend on x), p_up = P(rho' >=
    rho), p_down = P(rho' <= rho). Needs 3 to 8 points (at most 40 320 orderings)."""
    import itertools

    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    if x.shape != y.shape or x.ndim != 1 or not 3 <= x.size <= 8:
        raise ValueError(f"x and y must be two vectors of 3 to 8 points, got {x.shape} and {y.shape}")
    rx, ry = _st.rankdata(x), _st.rankdata(y)
    perms = np.array(list(itertools.permutations(ry)))  # every ordering of y's ranks
    cx = rx - rx.mean()
    cp = perms - perms.mean(axis=1, keepdims=True)
    denom = np.sqrt((cx ** 2).sum() * (cp ** 2).sum(axis=1))
    rhos = np.where(denom > 0, (cp @ cx) / np.where(denom > 0, denom, 1.0), 0.0)
    rho = float(np.corrcoef(rx, ry)[0, 1]) if ry.std() > 0 and rx.std() > 0 else 0.0
    eps = 1e-12
    return rho, float(np.mean(rhos >= rho - eps)), float(np.mean(rhos <= rho + eps))


def _trend_test(xs, ys, level):
    """The degree-trend rule: (status, rho, p_up, p_down, resolvable) of the exact one-sided permutation tests of
    Spearman's rho(ys, xs) at ``level`` each way (growth confirmed holds, decrease confirmed contradicts);
    ``resolvable``: whether the most favourable ordering of these ``ys`` (ties limit it) could reach the level at
    all (an analysis that cannot is left out of the agreement)."""
    rho, p_up, p_down = spearman_permutation_p(xs, ys)
    finest = spearman_permutation_p(xs, sorted(ys))[1]
    return decide_tests(p_up, p_down, level), rho, p_up, p_down, finest <= level


def _check_heads_with_r(ctx, alpha=FAMILY_ALPHA):
    got, why = _regular(ctx)
    if got is None:
        return Verdict.not_run(why)
    recs, by_r, ths, ivs, caps = got
    known = sorted(r for r, th in ths.items() if th.h_star is not None)
    if len(known) < 3:
        return Verdict(Status.INCONCLUSIVE, details="fewer than 3 degrees with an h*", evidence_level="experiment")
    level = significance(alpha)

    def judge(tths):
        return _trend_test(known, [tths[r].h_star for r in known], level)

    # the multiverse: App. A.2's h* tie-break, or the fewest / most heads among those tied at D_K*
    by_tie = {tie: judge({r: h_star_tie_break(ths[r], by_r[r], tie) for r in known})
              for tie in DIMENSIONS["h* tie-break"]}
    status, robustness = multiverse_status([{"choices": {"h* tie-break": t}, "estimate": rho_, "interval": None,
                                             "status": st, **({} if ok else {"resolvable": False})}
                                            for t, (st, rho_, _, _, ok) in by_tie.items()])
    _, rho, p_up, p_down, _ = by_tie[DIMENSIONS["h* tie-break"][0]]
    return Verdict(status, evidence_level="experiment",
                   params={"robustness": robustness, "alpha": level,
                           "null pass probability": f"<= {level:g} (exact one-sided permutation test)"},
                   paper_value=f"h* grows with r (one standard, the trend rule of appa3-dkstar-grows-with-degree-quick: "
                               f"an exact one-sided permutation test of Spearman's rho(h*, r) over the degrees at "
                               f"{level:g} each way; growth confirmed holds, decrease confirmed contradicts, neither "
                               "undecided)",
                   measured_value={"spearman rho": rho, "p (grows)": round(p_up, 4), "p (decreases)": round(p_down, 4),
                                   "h*": {r: ths[r].h_star for r in known}},
                   evidence=f"full sweep ({len(recs)} runs)")


def _check_dkstar_with_r(ctx, alpha=FAMILY_ALPHA):
    """D_K* grows with the degree r at the paper's scale: the trend rule of appa3-heads-grow-with-degree on the
    central App. A.2 D_K* of each degree. A censored D_K* (at the ladder's lowest rung, whose floor rises with r,
    or none passing) is never ranked: a rising floor alone would read as growth. A cap-limited degree's D_K* is an
    upper bound (its runs stopped at the Table 2 cap), which a rank test cannot place either: in the declared
    analysis it is left out (in the claim's disfavour: fewer degrees, a weaker test); the multiverse also reads it
    as measured."""
    got, why = _regular(ctx)
    if got is None:
        return Verdict.not_run(why)
    recs, by_r, ths, ivs, caps = got
    level = significance(alpha)
    choices = DIMENSIONS["cap-limited cells"]
    left_out = {choices[0]: {r for r in by_r if caps[r]["cap-limited"]},
                choices[1]: {r for r in by_r if caps[r]["any threshold run hit the cap"]},
                choices[2]: set()}

    def judge(cap_choice):
        rs = sorted(r for r, th in ths.items()
                    if th.central is not None and not ivs[r].censored and r not in left_out[cap_choice])
        if len(rs) < 3:
            return Status.INCONCLUSIVE, None, None, None, False, rs
        return (*_trend_test(rs, [ths[r].central for r in rs], level), rs)

    by_cap = {c: judge(c) for c in choices}
    status, robustness = multiverse_status([{"choices": {"cap-limited cells": c}, "estimate": v[1], "interval": None,
                                             "status": v[0], **({} if v[4] else {"resolvable": False})}
                                            for c, v in by_cap.items()])
    _, rho, p_up, p_down, _, rs = by_cap[choices[0]]
    return Verdict(status, evidence_level="experiment",
                   params={"robustness": robustness, "alpha": level,
                           "null pass probability": f"<= {level:g} (exact one-sided permutation test)"},
                   paper_value="D_K* grows with r: the transition shifts right as the graph gets denser (App. A.3, "
                               "Figure 11); one standard, the trend rule of appa3-heads-grow-with-degree: an exact "
                               f"one-sided permutation test of Spearman's rho(D_K*, r) at {level:g} each way",
                   measured_value={"spearman rho": rho, "p (grows)": None if p_up is None else round(p_up, 4),
                                   "p (decreases)": None if p_down is None else round(p_down, 4),
                                   "D_K*": {r: ths[r].central for r in sorted(by_r)},
                                   "cap-limited degrees (left out)": sorted(left_out[choices[0]]),
                                   "censored degrees (never ranked)": sorted(r for r in by_r if ivs[r].censored),
                                   "degrees tested": rs},
                   evidence=f"full sweep ({len(recs)} runs)")


_CROSS_BAND = (1.0, math.inf)  # one head needs at least one rung more D_K (the ladder's resolution)


def _check_multihead_crosses_earlier(ctx):
    """At every degree r, multi-head models reach the threshold at a smaller D_K than one head: per degree, the shift
    of the per-seed App. A.2 thresholds of h = 1 over those of h > 1, in rungs of the degree's ladder, with its exact
    interval (the threshold-shift standard of sec71-softmax-keeps-multihead-advantage: tools.rungs.rung_shift). Every
    degree's interval inside [1, inf) at one-sided 0.05 holds (an intersection-union test: each degree must pass); one
    degree's interval wholly at or below 0 at 0.05 / #degrees contradicts (Bonferroni: any degree may fail); else
    inconclusive. A degree whose h = 1 thresholds are set by the Table 2 cap reads every h = 1 seed as an upper bound
    at the low end (the multiverse's cap-limited cells)."""
    got, why = _regular(ctx)
    if got is None:
        return Verdict.not_run(why)
    recs, by_r, ths, ivs, caps = got
    runs: dict[int, dict] = {}
    for rec in recs:
        c = rec["config"]
        runs.setdefault(c["r"], {}).setdefault((c["n_heads"], c["n_heads"] * c["d_k"]), []).append(rec)
    rs = sorted(by_r)
    alpha = end_level(significance(FAMILY_ALPHA), len(rs), _CROSS_BAND)
    pass_alpha = end_level(significance(FAMILY_ALPHA), 1, _CROSS_BAND)
    most, anyhit, none = DIMENSIONS["cap-limited cells"]
    capped = {most: set(), anyhit: set(), none: set()}
    for r in rs:
        one = [p for p in by_r[r] if p.h == 1]
        t1 = threshold(one)
        cap = cap_sensitivity({k: v for k, v in runs[r].items() if k[0] == 1}, one, t1.central, t1.h_star)
        capped[most] |= {r} if cap["cap-limited"] else set()
        capped[anyhit] |= {r} if cap["any threshold run hit the cap"] else set()
    by_deg = {r: [x for x in recs if x["config"]["r"] == r] for r in rs}

    def shifts_under(choice):
        out = {}
        for r in rs:
            more = [x for x in by_deg[r] if int(x["config"]["n_heads"]) > 1]
            single = [x for x in by_deg[r] if int(x["config"]["n_heads"]) == 1]
            upper = r in capped[choice]
            sh = rung_shift_pair(more, single, pass_alpha=pass_alpha, fail_alpha=alpha, b_upper_only=upper)
            inside = decide_interval(sh["interval"], _CROSS_BAND)[1]["inside"]
            outside = decide_interval(sh["fail-side interval"], (-math.inf, 0.0))[1]["inside"]
            out[r] = (sh, decide(inside, outside))
        return out

    per_choice = {c: shifts_under(c) for c in DIMENSIONS["cap-limited cells"]}
    smallest = [sh["smallest p-value"] for sh, _ in per_choice[most].values()]
    resolvable = max(smallest) <= pass_alpha or min(smallest) <= alpha
    status, robustness = multiverse_status([{"choices": {"cap-limited cells": c}, "estimate": None, "interval": None,
                                             "status": conjunction(st for _, st in per_choice[c].values()),
                                             **({} if resolvable else {"resolvable": False})}
                                            for c in DIMENSIONS["cap-limited cells"]])
    rows = {f"r = {r}": {"shift interval (rungs, h=1 over h>1)": sh["interval"],
                         "fail-side interval (Bonferroni over the degrees)": sh["fail-side interval"],
                         "per-seed rungs h=1": sh["b rungs"], "per-seed rungs h>1": sh["a rungs"],
                         "h=1 set by the cap": r in capped[most], "degree status": st.value}
            for r, (sh, st) in per_choice[most].items()}
    open_degrees = {f"r = {r}": sh["interval"] for r, (sh, st) in per_choice[most].items()
                    if st is not Status.HOLDS_EMPIRICALLY}
    return Verdict(status, evidence_level="experiment",
                   paper_value="at every density, multi-head models cross the threshold at a smaller D_K than one "
                               "head (App. A.3, Figure 11): read as h = 1's per-seed thresholds at least one rung "
                               "above those of h > 1",
                   measured_value=rows, witness=open_degrees or None,
                   params={"robustness": robustness, "level per end (one-sided)": pass_alpha,
                           "fail-side level (Bonferroni over the degrees)": alpha, "band (rungs)": list(_CROSS_BAND),
                           "smallest attainable p-value": max(smallest)},
                   evidence=f"full sweep ({len(recs)} runs)")


def _check_heads_near_edge_ratio(ctx, factor=FACTOR_TWO, far=3.0):
    got, why = _regular(ctx)
    if got is None:
        return Verdict.not_run(why)
    recs, by_r, ths, ivs, caps = got
    far = max(tolerance(far, kind="factor"), factor)  # ours (the factor 2 is the paper's '~2', not varied)
    analyses = []  # the multiverse: h* intervals or the paper's point h*, x App. A.2's h* tie-break or its variants
    for pts in DIMENSIONS["points compared"]:
        for tie in DIMENSIONS["h* tie-break"]:
            tths = {r: h_star_tie_break(ths[r], by_r[r], tie) for r in by_r}
            st, _, _ = _near_edge_status(tths, by_r, caps, factor, far, point=pts != DIMENSIONS["points compared"][0])
            analyses.append({"choices": {"points compared": pts, "h* tie-break": tie}, "estimate": None,
                             "interval": None, "status": st})
    robustness = multiverse_status(analyses)[1]
    _, ratios, away = _near_edge_status(ths, by_r, caps, factor, far, point=False)  # App. A.2's h* intervals
    rows = {}
    for key, (lo, hi) in ratios.items():
        r = int(key[2:])
        th = ths[r]
        rows[key] = {"target r m / d_model": r * _A3_M / _A3_D, "h* (interval)": [th.h_star, th.h_low, th.h_high],
                     "ratio interval": [lo, hi], "inside [1/2, 2]": lo >= 1 / factor and hi <= factor,
                     "meets [1/2, 2]": hi >= 1 / factor and lo <= factor,
                     "cap-limited": caps[r]["cap-limited"], "largest h tested": max(p.h for p in by_r[r])}
    if not rows:
        return Verdict(Status.INCONCLUSIVE, details="no degree has an h*", evidence_level="experiment")
    status = multiverse_status(analyses)[0]
    return Verdict(status, params={"robustness": robustness, "far": far},
                   paper_value="the head count at the threshold stays within a factor ~2 of the target h* ~ r m / "
                               f"d_model (tolerance: each h* interval over the target inside [1/{factor:g}, {factor:g}] "
                               f"holds; contradicted when one lies wholly beyond a factor {far:g}, cap-limited degrees "
                               "excluded; inconclusive otherwise)",
                   measured_value=rows, witness=[f"r={r}" for r in away] or None,
                   evidence=f"full sweep ({len(recs)} runs); h* intervals from App. A.2's paired-t pools",
                   evidence_level="experiment")


def _near_edge_status(ths, by_r, caps, factor: float, far: float, *, point: bool):
    """The rule of appa3-hstar-near-edge-ratio on thresholds ``ths``: each degree's h* interval over the target
    (``point``: the point h* alone) inside [1/factor, factor] holds; one wholly beyond a factor ``far`` (cap-limited
    degrees excluded) contradicts; else inconclusive. Returns (status, {"r=R": [low, high] ratio}, degrees away)."""
    rows, off, away = {}, [], []
    for r in sorted(by_r):
        th = ths[r]
        if th.h_star is None:
            continue
        target = r * _A3_M / _A3_D
        lo, hi = ((th.h_star / target,) * 2) if point else (th.h_low / target, th.h_high / target)
        rows[f"r={r}"] = [lo, hi]
        if not (lo >= 1 / factor and hi <= factor):
            off.append(r)
            if (hi < 1 / far or lo > far) and not caps[r]["cap-limited"]:
                away.append(r)
    if not rows:
        return Status.INCONCLUSIVE, rows, away
    return decide(not off, away), rows, away  # every degree away is off: never both


def _check_below_construction(ctx, r=16, draws=3):
    """At r = 16, the trained D_K* lies below the smallest D_K at which Algorithm 5 (Corollary B.10: h0 =
    ceil(m'/d_model) heads, Rademacher signatures, equitable colouring) separates every pair on the same kind of graph
    and embeddings: its width d_k is searched upwards until most draws separate."""
    got, why = _regular(ctx)
    if got is None:
        return Verdict.not_run(why)
    recs, by_r, ths, ivs, caps = got
    if r not in ths or ths[r].central is None:
        return Verdict(Status.INCONCLUSIVE, details=f"no D_K* at r = {r}", evidence_level="experiment")
    from ...models.constructions import algorithm5
    from ...core.embeddings import gaussian_unit_norm_embeddings
    from ...core.graphs import random_regular_graph
    from ...analysis.measurements import separation_margins

    h0 = math.ceil(r * _A3_M / _A3_D)
    iv = ivs[r]

    def separates(d_k, k):
        import torch

        from ...core.scoring import aggregate_scores

        rng = ctx.rng(7, k)
        g = random_regular_graph(_A3_M, r, rng=rng)
        X = gaussian_unit_norm_embeddings(_A3_M, _A3_D, rng=rng)
        c = algorithm5(g, X, d_k=d_k, rng=rng, n_colors=h0)
        # all heads scored in one batched call (the per-head default of separation_margins is slower)
        S = aggregate_scores(torch.as_tensor(c.X, dtype=torch.float64)[None],
                             torch.as_tensor(c.W_Q, dtype=torch.float64),
                             torch.as_tensor(c.W_K, dtype=torch.float64), "max")[0].numpy()
        return bool(separation_margins(c, scores=S, max_failures=0).margin > 0)

    def widths():
        rows = []
        for d_k in CONSTRUCTION_DKS:
            rows.append({"d_k": d_k, "D_K = h0 d_k": h0 * d_k, "separates": [separates(d_k, k) for k in range(draws)]})
            if 2 * sum(rows[-1]["separates"]) > draws:
                break
        return rows

    base = dataclasses.replace(ctx, leave_out_seed=None, plant=None)  # no record read: shared by every analysis
    rows = memo("a3-algorithm5-widths", base, widths, extra=(r, draws),
                free_of=("F1 target", "threshold rule", "tolerance", "test level"))
    status, found = construction_decision(iv.low, iv.high, h0, rows)
    # the multiverse: the trained D_K* interval, or the paper's point estimate (its first passing D_K) at both ends
    point = construction_decision(iv.high, iv.high, h0, rows)[0] if math.isfinite(iv.high) else status
    status, robustness = multiverse_status([{"choices": {"points compared": c}, "estimate": None, "interval": None,
                                             "status": st} for c, st in zip(DIMENSIONS["points compared"],
                                                                            (status, point))])
    hi_c = found["construction's smallest working D_K in"][1]
    return Verdict(status,
                   paper_value=f"at r = {r} the empirical thresholds lie (slightly) below the constructive design "
                               "(read: below the smallest D_K at which Algorithm 5 separates every pair)",
                   measured_value={"D_K* interval (trained)": iv.as_dict(), "h0 = ceil(r m / d_model)": h0,
                                   "Algorithm 5 by width (draws)": rows, **found,
                                   "ratio construction / trained first passing D_K":
                                       None if hi_c is None else [round(found["construction's smallest working D_K in"][0]
                                                                        / iv.high, 2), round(hi_c / iv.high, 2)]},
                   params={"m": _A3_M, "d_model": _A3_D, "r": r, "draws": draws, "widths tried": list(CONSTRUCTION_DKS),
                           "robustness": robustness},
                   details="What this can show: whether the trained threshold lies below the construction at its "
                           "smallest working width on this instance size (it fails when Algorithm 5 separates at a "
                           "D_K the trained model fails at). What it cannot show: 'slightly'. The paper's design "
                           "curve carries an unstated constant, so the reported ratio is not decided; and with h0 = 64 "
                           "heads the construction cannot go below D_K = 64, so only widths d_k <= 2 could refute. "
                           "When no width tried separates (Corollary B.10 needs d_model >= c0 log m with c0 large; "
                           "here d_model / ln m = 6.6), the construction has no finite D_K at this size and the "
                           "comparison is undecided.",
                   evidence=f"full sweep ({len(recs)} runs); Algorithm 5 built {sum(len(x['separates']) for x in rows)} "
                            "times over increasing widths, exact margins over all m^2 pairs",
                   evidence_level="experiment")


def _check_regular_sharp(ctx, factor=4.0):
    got, why = _regular(ctx)
    if got is None:
        return Verdict.not_run(why)
    recs, by_r, ths, ivs, caps = got
    return sharp_verdict(by_r, caps, factor, len(recs), "r-regular graphs (m = 128, d_model = 32, r = 1..32)",
                         label=lambda r: f"r={r}", evidence_level="experiment")


def _eq31(ctx: CheckContext) -> Verdict:
    V = [Var(F.r, 1, 32, integer=True), Var(F.m, 2, 1e4, integer=True, log=True), VAR_D_MODEL]
    return identity_verdict((F.r * F.m) / F.d_model * sp.log(F.m, 2), F.fit_a3_x(), variables=V, ctx=ctx,
                            paper_value="Eq. (31): x = (m'/d_model) log2 m = (r m/d_model) log2 m for r-regular graphs (m' = r m)")


# The tolerances of the App. A.3 claims as their notes and standards write them, built from the declared constants
# (standards.tolerances): the factor for a stated constant, the half-width on the edges law's exponent 1, the factor
# the paper's 'a factor ~2' allows, and the exponent band that one constant over r = 1..16 allows (derived).
_F = factor_name(STATED_CONSTANT_FACTOR)
_C_BAND = f"[0.46 / {_F}, 0.46 {_F}]"
_X_BAND = f"[0.46 x / {_F}, 0.46 x {_F}]"
_GAMMA_BAND = f"[{1 - EXPONENT_HALF_WIDTH:g}, {1 + EXPONENT_HALF_WIDTH:g}]"
_ONE_CONSTANT = one_constant_tol(1, 16, STATED_CONSTANT_FACTOR)  # ln sqrt2 / ln 16 = 0.125
_ONE_CONSTANT_BAND = f"[{1 - _ONE_CONSTANT:.4g}, {1 + _ONE_CONSTANT:.4g}]"
_NEAR_BAND = f"[1/{FACTOR_TWO:g}, {FACTOR_TWO:g}]"

CLAIMS = (
    Claim(id="appa3-edges-not-vertices-set-threshold", ref="App. A.3",
          analyses=("leave one seed out", "F1 target", "threshold rule", "tolerance"),
          statement="D_K* of r-regular graphs collapses onto 0.46 (r m / d_model) log2 m across r in {1, 2, 4, 8, 16}",
          kind=Kind.EMPIRICAL, tier=Tier.FULL, check=_check_edges_collapse, role="result",
          replays=("a3-regular",),
          expects={"slope": Stated(0.46, "constant", "App. A.3, Eq. (32): D_K* ~ 0.46 x, and the Figure 12 caption")},
          notes="Full tier (a3-regular full: m=128, d_model=32, 5 seeds, cap 20000). Two parts, each by one standard "
                "(the 95% interval wholly inside the band holds, wholly outside contradicts, else inconclusive with "
                "the resolution reached), as Figure 3's law is held: (1) the constant: the 95% profile interval of "
                "the censored interval-regression constant on the offset log x (log2, as Eq. (31)-(32) write it; ln "
                f"reported beside it) inside {_C_BAND} (standards.tolerances.STATED_CONSTANT_FACTOR, the package's "
                "factor for a stated constant), with centred R^2 >= 0.8 for a pass; (2) the edges law: the 95% "
                "profile interval of the exponent gamma of D_K* ~ r^gamma (sigma held at least at the ladder's "
                f"resolution; cap-limited degrees as upper bounds) inside {_GAMMA_BAND} "
                "(standards.tolerances.EXPONENT_HALF_WIDTH), closer to the edges law's 1 than to the vertices law's "
                "0; (3) every degree: its D_K* interval (a cap-limited degree's as (0, high]) inside "
                f"{_X_BAND} (degree_band_part; one degree wholly outside contradicts the collapse onto 0.46 x). The "
                "statement holds when all parts hold, is contradicted when one is contradicted. Measured: constant "
                f"0.528, 95% [0.405, 0.692] against [{0.46 / STATED_CONSTANT_FACTOR:.3f}, "
                f"{0.46 * STATED_CONSTANT_FACTOR:.3f}]: inconclusive; gamma 0.758, 95% [0.602, 0.911]: "
                "inside; degrees: r = 8 inside, r = 1, 2, 4, 16 straddle (ratio to 0.46 x [1.24, 1.86] at r = 1, 2, "
                "[0.62, 0.93] at r = 16). Status inconclusive. Edges, vertices and free laws are still compared by AIC and reported "
                "(the free law r^0.76 is preferred by dAIC 8.8), not decided on.",
          standard=Standard("band", "constant c of D_K* = c (r m / d_model) log2 m over r in {1, ..., 16}, the "
                                    "exponent gamma of r, and each degree's D_K* interval",
                            tolerance=f"c's 95% interval inside {_C_BAND} with centred R^2 >= 0.8; "
                                      f"gamma's inside {_GAMMA_BAND}; every degree inside {_X_BAND}",
                            source=f"paper: 0.46 (Eq. (32), Fig. 12); ours: the factor {_F} for a stated constant, "
                                   f"+-{EXPONENT_HALF_WIDTH:g} on gamma (the exponent 1 of the edges law against 0), "
                                   "the R^2 floor",
                            primary="censored interval regression (offset log2 x for c, log r for gamma), parts "
                                    "combined as a conjunction",
                            dimensions=(), alternative=("flat_threshold", "holds-empirically"))),
    Claim(id="eq32-dkstar-one-constant-every-degree", ref="Eq. (32)",
          analyses=("leave one seed out", "F1 target", "threshold rule", "tolerance"),
          statement="D_K* ~ 0.46 x (x = (r m / d_model) log2 m): a single constant fits every degree r in "
                    "{1, 2, 4, 8, 16}",
          kind=Kind.EMPIRICAL, tier=Tier.FULL, check=_check_eq32_per_degree, role="result",
          replays=("a3-regular",),
          expects={"slope": Stated(0.46, "constant", "App. A.3, Eq. (32) and the Figure 12 caption")},
          notes="Full tier (a3-regular full: m=128, d_model=32). appa3-edges-not-vertices-set-threshold tests the "
                "constant and the edges law; this claim tests Eq. (32)'s 'a single proportionality constant fits all "
                "densities': at fixed m and d_model, D_K* / x constant means D_K* ~ r^gamma with gamma = 1. Over r = 1 "
                f"to 16 the constant drifts by 16^(gamma - 1); one constant allows at most the package's factor {_F} "
                f"for a stated constant, i.e. |gamma - 1| <= ln {_F} / ln 16 = {_ONE_CONSTANT:.3g} (derived in code "
                "from standards.tolerances.STATED_CONSTANT_FACTOR by a3_rules.one_constant_tol, not a tolerance of "
                "its own). One standard: the 95% profile "
                "interval of gamma (censored-Gaussian interval regression of log D_K* on log r, sigma held at least "
                f"at the ladder's resolution, cap-limited degrees as upper bounds) wholly inside {_ONE_CONSTANT_BAND} "
                "holds, "
                "wholly outside contradicts, else inconclusive. Measured: gamma 0.758, 95% [0.602, 0.911]: it "
                "overlaps the band, inconclusive (D_K* / x falls from 0.86 at r = 1 to 0.43 at r = 16 at the "
                "first passing D_K; about 2x the degrees or a finer ladder would decide). Second part, by the same "
                f"standard: every degree's D_K* interval (a cap-limited degree's as (0, high]) against {_X_BAND} "
                "(degree_band_part): one wholly outside contradicts the stated constant at that "
                "degree, all inside hold; measured: r = 8 inside, the others straddle (inconclusive). The claim holds "
                "when both parts hold and is contradicted when either is.",
          standard=Standard("band", "exponent gamma of D_K* ~ r^gamma at fixed (m, d_model), and each degree's D_K* "
                                    "interval against 0.46 x",
                            tolerance=f"gamma's 95% interval inside {_ONE_CONSTANT_BAND} (the constant drifts by at "
                                      f"most {_F} from r = 1 to 16); every degree inside {_X_BAND}",
                            source="paper: one constant 0.46 (Eq. (32)); ours: "
                                   f"{TOLERANCE_REASONS['STATED_CONSTANT_FACTOR']}, and the exponent band it implies "
                                   "over r = 1..16",
                            primary="censored-Gaussian interval regression of log D_K* on log r, sigma held at the "
                                    "ladder's resolution",
                            dimensions=("points compared",), alternative=("flat_threshold", "holds-empirically"))),
    Claim(id="appa3-dkstar-grows-with-degree-quick", ref="App. A.3",
          statement="Analogue at m <= 32, cap 12000: at fixed m and d_model, the D_K needed for F1 0.99 grows with the "
                    "degree r (the edge count r m), not with the vertex count",
          kind=Kind.EMPIRICAL, tier=Tier.QUICK, check=_check_dkstar_grows_with_r_quick, role="result",
          notes="Quick tier, a scaled-down analogue: a3-regular quick (m=32, d_model=16, r in {1,2,4}, h in {1,4}, D_K in "
                "{8,...,64}, 4 seeds, cap 12000). Per-seed D_K* at r = 1 and r = 4 (a passing run that hit the cap "
                "is censored: where the claim needs it large it counts at its lower bound, just above the largest D_K "
                "below it where all that seed's runs fail and have levelled off); holds when an exact one-sided "
                "permutation test gives p <= 0.05 for 'r = 4 needs more', contradicted when the reverse test does. "
                "Chance of passing "
                "under the null (degree has no effect): <= 5%.",
          standard=Standard("trend", "per-seed D_K* at the smallest and the largest degree r (a3-regular quick)",
                            tolerance="the larger r needs more at exact one-sided p <= 0.05; the reverse at p <= "
                                      "0.05 contradicts",
                            source="ours: conventional level 0.05",
                            primary="exact one-sided permutation tests (mid-ranks), cap-limited seeds read in the "
                                    "claim's disfavour",
                            dimensions=())),
    Claim(id="appa3-heads-grow-with-degree", ref="App. A.3",
          analyses=("leave one seed out", "F1 target", "threshold rule", "test level"),
          statement="The head count at the threshold grows with the degree r (Figure 13)",
          kind=Kind.EMPIRICAL, tier=Tier.FULL, check=_check_heads_with_r, role="result",
          replays=("a3-regular",),
          notes="Full tier. Rule (one standard, issue 37; the trend rule of appa3-dkstar-grows-with-degree-quick): "
                "an exact one-sided permutation test of Spearman's rho(h*, r) over the degrees (every ordering of "
                "the h*, mid-ranks for ties) at 0.05 each way; holds when growth is confirmed, contradicted when a "
                "decrease is, inconclusive otherwise. Until 2026-11-28 a point rho >= 0.8 passed with no test.",
          standard=Standard("trend", "Spearman rank correlation of the central h* with the degree r (a3-regular "
                                     "full)",
                            tolerance="one-sided exact permutation p <= 0.05 for growth holds; for a decrease "
                                      "contradicts",
                            source="ours: the family level 0.05 of the sibling trend rules (appa3-dkstar-grows-with-"
                                   "degree-quick)",
                            primary="exact permutation test of Spearman rho on the central App. A.2 h* over degrees",
                            dimensions=("h* tie-break",), alternative=("no_head_effect", "holds-empirically"))),
    Claim(id="appa3-dkstar-grows-with-degree", ref="App. A.3",
          analyses=("leave one seed out", "F1 target", "threshold rule", "test level"),
          statement="At fixed m and d_model the threshold D_K* grows with the degree r: the capacity transition "
                    "shifts to larger D_K as the graph gets denser (App. A.3, Figure 11)",
          kind=Kind.EMPIRICAL, tier=Tier.FULL, check=_check_dkstar_with_r, role="result",
          replays=("a3-regular",),
          notes="Full tier (m=128, d_model=32, r in {1..32}), the paper-scale claim of appa3-dkstar-grows-with-degree-"
                "quick, added for the coverage map (issue 41: the sentences at L846 and L871 had only the quick "
                "analogue). Rule (one standard, the trend rule of appa3-heads-grow-with-degree, chosen before this "
                "claim read its evidence; the exclusion of censored degrees was added after the flat_threshold plant "
                "passed, with the verdict unchanged by it; the evidence predates the rule, so the claim is post "
                "hoc): an exact one-sided permutation test of Spearman's rho(D_K*, r) over the "
                "degrees at 0.05 each way; growth confirmed holds, a decrease confirmed contradicts, else "
                "inconclusive. A censored D_K* (at the ladder's rising floor) is never ranked; cap-limited degrees (D_K* "
                "only an upper bound) are left out of the declared analysis.",
          standard=Standard("trend", "Spearman rank correlation of the central App. A.2 D_K* with the degree r "
                                     "(a3-regular full)",
                            tolerance="one-sided exact permutation p <= 0.05 for growth holds; for a decrease "
                                      "contradicts",
                            source="ours: the family level 0.05 of the sibling trend rules (appa3-heads-grow-with-"
                                   "degree)",
                            primary="exact permutation test of Spearman rho on the central D_K*, cap-limited degrees "
                                    "left out",
                            dimensions=("cap-limited cells",), alternative=("flat_threshold", "holds-empirically"))),
    Claim(id="appa3-multihead-crosses-earlier-every-degree", ref="App. A.3",
          analyses=("leave one seed out", "F1 target", "threshold rule", "test level"),
          statement="At every degree r of App. A.3, multi-head models reach the F1 threshold at a smaller D_K than a "
                    "single head (the transition stays step-like and one or two heads lag behind)",
          kind=Kind.EMPIRICAL, tier=Tier.FULL, check=_check_multihead_crosses_earlier, role="result",
          replays=("a3-regular",),
          notes="Full tier (m=128, d_model=32, r in {1..32}, 5 seeds), added for the coverage map (issue 41: L846 and "
                "Figure 11's caption had no claim). The threshold-shift standard of sec71-softmax-keeps-multihead-"
                "advantage, chosen before this claim read its evidence (the evidence predates the rule, so the claim "
                "is post hoc): per degree, h = 1's per-seed App. A.2 thresholds against those of h > 1 in rungs of the "
                "ladder, an exact two-sample permutation interval; every degree inside [1, inf) at one-sided 0.05 "
                "holds (intersection-union), one degree wholly at or below 0 at 0.05 / #degrees contradicts. "
                "Measured: every r >= 2 holds (3 to 6 rungs; one head plateaus at mean F1 0.26-0.47), while at r = 1 (the "
                "permutation graph of this cell) h = 1 passes at D_K = 24 in every seed and h > 1 at 24 in four seeds "
                "and 16 in one (the shift interval [0, 0] at 0.05, [0, 1] at the fail side's level; independent "
                "re-derivation of 2026-11-28): the statement, read "
                "over every degree of the sweep, is inconclusive; read over the denser graphs its paragraph is about "
                "(r >= 2) it would hold, and by the one rule of readings the disagreement leaves it inconclusive.",
          standard=Standard("threshold", "per degree r (a3-regular full), the shift of h = 1's per-seed thresholds "
                                         "over those of h > 1, in ladder rungs",
                            tolerance="every degree's exact interval inside [1, inf) rungs at one-sided 0.05 holds; "
                                      "one degree's wholly at or below 0 at 0.05 / #degrees contradicts",
                            source="ours: one rung is the ladder's resolution; level 0.05 per degree to hold "
                                   "(intersection-union), Bonferroni over the degrees to fail",
                            primary="exact permutation interval of the threshold shift in rungs (tools.rungs), h = 1 "
                                    "seeds read in the claim's disfavour where the cap set their threshold",
                            dimensions=("cap-limited cells",), alternative=("no_head_effect", "holds-empirically"))),
    Claim(id="appa3-hstar-near-edge-ratio", ref="App. A.3",
          analyses=("leave one seed out", "F1 target", "threshold rule", "tolerance"),
          statement="The head count at the threshold stays within a factor ~2 of the theoretical target r m / d_model",
          kind=Kind.EMPIRICAL, tier=Tier.FULL, check=_check_heads_near_edge_ratio, role="result",
          replays=("a3-regular",),
          notes="Full tier (m=128, d_model=32, r in {1..32}; target 4r). h* interval = App. A.2 paired-t pool. Holds when "
                f"every degree's h* interval over the target lies inside {_NEAR_BAND} (one standard: inside passes); "
                "contradicted when some degree's interval lies wholly beyond a factor 3 (cells whose threshold runs "
                "mostly hit the cap excluded); inconclusive otherwise. The factor 2 (the paper's '~2', "
                "standards.tolerances.FACTOR_TWO) is not declared as a stated value for mutation. Why inconclusive (ledger): r = 1, 2 have h*/target intervals [0.25, "
                "1] and r = 4, 8, 16 [0.25, 0.5]: they meet the band but are not inside it (the doubling head ladder "
                "cannot resolve a factor 2); at r = 32 h* = 16 is an eighth of the target 128, but that cell is "
                "cap-limited (most threshold runs hit the 20000-step cap) and the largest h tested is 64 < 128, so "
                "its h* is an artefact of the tested range and the cap: it can neither confirm nor refute. Deciding "
                "needs a finer head ladder, and r = 32 runs with h up to 128 and a longer cap (GPU).",
          standard=Standard("band", "per degree r, the h* interval over the target r m / d_model",
                            tolerance=f"every ratio interval inside {_NEAR_BAND}; one wholly beyond a factor 3 "
                                      "(cap-limited degrees excluded) contradicts",
                            source="paper: 'a factor ~2' (App. A.3); ours: the factor 3 for a fail",
                            primary="App. A.2 paired-t h* pools",
                            dimensions=("points compared", "h* tie-break"), alternative=("no_head_effect", "holds-empirically"))),
    Claim(id="appa3-thresholds-below-construction-r16", ref="App. A.3",
          statement="At r = 16 the empirical thresholds lie below the constructive upper-bound design",
          kind=Kind.EMPIRICAL, tier=Tier.FULL, check=_check_below_construction, role="result",
          replays=("a3-regular",),
          notes="Full tier. The constructive design read as Algorithm 5 / Corollary B.10: h0 = ceil(r m / d_model) = 64 "
                "heads (equitable colouring), Rademacher signatures, tau = d_k / 2, on a fresh 16-regular graph and "
                "Gaussian unit-norm embeddings (m = 128, d_model = 32). Its smallest working D_K is searched: widths "
                "d_k = 1, 2, 3, 4, 6, ..., 64 in turn, 3 draws each, until most draws separate every ordered pair "
                "(exact margins). Holds when it works at some width and the trained first passing D_K* is at most h0 "
                "x its last failing width; contradicted when it works at or below the trained last failing D_K; "
                "inconclusive otherwise. The earlier rule built the construction only at the trained D_K* (d_k = 3 "
                "with 64 heads), where it cannot work, so it could not fail. What it cannot show: 'slightly' (the "
                "paper's design curve has an unstated constant). Measured: no width up to 64 (D_K = 4096) separates "
                "at this size (d_model / ln m = 6.6, below what Corollary B.10 needs): nothing to compare with, "
                "inconclusive.",
          standard=Standard("threshold", "trained D_K* interval at r = 16 against Algorithm 5's smallest working "
                                         "D_K (h0 = 64 heads, width searched upwards)",
                            tolerance="trained first passing D_K <= h0 x the construction's last failing width; the "
                                      "construction working at or below the trained last failing D_K contradicts",
                            source="ours: 'constructive design' read as Algorithm 5 at its smallest working width "
                                   "(majority of 3 draws)",
                            primary="exact separation margins of Algorithm 5 over increasing widths",
                            dimensions=("points compared",), alternative=("nothing_passes", "holds-empirically"))),
    Claim(id="appa3-sharp-transition-persists", ref="App. A.3",
          analyses=("leave one seed out", "F1 target", "threshold rule", "test level", "tolerance"),
          statement="For r-regular graphs F1 stays step-like in D_K (Figure 11)",
          kind=Kind.QUALITATIVE, tier=Tier.FULL, check=_check_regular_sharp, role="result",
          replays=("a3-regular",),
          notes="Full tier, every (r, h) curve; plateaus (1-2 heads at large r, which the paper describes) are not "
                "transitions." + SHARP_RULE + " The earlier rule of this claim held with one sharp curve and no "
                "gradual one (undecided curves allowed), a weaker rule than its Sec. 6.1 and Sec. 7 siblings' (issue "
                "37 item 6); it is now theirs. Committed evidence: 27 curves reach 0.99, 19 anchored at 0.5 and 8 at "
                "0.8 (3 start above it); 12 sharp (all from 0.5), 14 undecided, 1 gradual in the cap-limited cell "
                "r = 32 (h = 8: 0.83 at D_K 128, 0.98 at 512; censored, counted neither way), 0 gradual elsewhere: "
                "inconclusive.",
          standard=Standard("sharp-transition", "per (r, h) F1-D_K curve of a3-regular full that rises on the "
                                                "ladder to mean F1 0.99: sharp, gradual or undecided",
                            tolerance=SHARP_TOLERANCE, source=SHARP_SOURCE,
                            primary=SHARP_PRIMARY,
                            dimensions=(), alternative=("gradual_transition", "holds-empirically"))),
    symbolic_claim("eq31-sym-edge-normalisation", "Eq. (31)", "For r-regular graphs m' = r m, so (m'/d_model) log2 m = "
                   "(r m/d_model) log2 m.", _eq31, role="detail"),
)
