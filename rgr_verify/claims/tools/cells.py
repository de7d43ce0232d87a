"""The Sec. 6 cell analysis shared by the training claims (Sec. 6, Sec. 7.1-7.2, App. A.2-A.3).

A *cell* is one (m, d_model) configuration of a sweep; its F1-D_K curves give D_K* (:func:`rgr_verify.analysis.capacity.threshold`)
as an interval on the ladder (:func:`rgr_verify.analysis.fits.dk_interval`), with cap sensitivity and the sampler's positive
rate reported per cell. Also here: the grids and tables the paper states (Sec. 6.1, Table 1, Table 2).
"""

from __future__ import annotations

import math

import numpy as np

from ...basics.checks import check_choice
from ...analysis.capacity import compression_x, curves, f1_target, fit_through_origin, threshold
from ...core.contexts import context_labels, sample_contexts
from ...analysis.fits import (compare_designs, compare_laws, dk_interval, interval_regression, preference,
                              profile_interval, slope_range_through_origin)
from ...analysis.capacity import cap_sensitivity, could_pass_with_longer_cap, per_seed_thresholds
from ...core.graphs import random_permutation_graph, random_regular_graph
from ...core.stats import t_interval
from ..base import TIERS, Status, Verdict
from ..standards import advantage_interval, conjunction, decide_advantage, failing, holding, picked_level
from .multiverse import significance, tolerance

__all__ = [
    "positive_rates", "TABLE1", "TABLE2", "BASE_GRID", "DIAGONAL", "EXTRA", "sweep_records", "permutation_cells",
    "dk_or_inf", "curve_artefacts", "thresholds_plot", "threshold_table", "runs_by_config", "dk_intervals",
    "cap_table", "cell_rows", "band_text", "slope_reading", "readings_text", "laws_block",
    "sampler_rates", "reported_only", "FAMILY_ALPHA", "quick_sizes", "cap_limited_cells", "multihead_advantage_verdict",
    "seed_values", "cell_records", "full_grid", "GRID_FULL_NOTES", "cap_choices", "h_star_tie_break",
    "TIE_F1",
]


def positive_rates(ms, *, rng: np.random.Generator, n_contexts: int = 2000, ell: int = 16, rho: float = 0.5,
                   r: int = 1, reading: str = "literal") -> dict[int, dict]:
    """The App. A.1 sampler's mean per-context positive rate at each m (the share of a context's ell sources whose
    out-neighbour is in the context), on one random permutation graph (``r = 1``) or r-regular graph per m, with a
    95% t-interval over ``n_contexts`` contexts. ``{m: {"rate": mean, "95%": [low, high]}}``; reported next to the
    capacity fits, since the literal step 3 lets the rate fall from rho with m."""
    out = {}
    for k, m in enumerate(ms):
        g = (random_permutation_graph(int(m), rng=rng) if r == 1 else random_regular_graph(int(m), int(r), rng=rng))
        ctxs = sample_contexts(g, n_contexts, ell, rho, rng=rng, reading=reading)
        mean, lo, hi = t_interval(context_labels(g, ctxs).any(axis=2).mean(axis=1))
        out[int(m)] = {"rate": round(float(mean), 4), "95%": [round(float(lo), 4), round(float(hi), 4)]}
    return out


# Table 1 (App. A.2): per-head key dimension d_k* at D_K*, rows m, columns d_model.
TABLE1 = {(64, 16): 5, (64, 32): 6, (64, 64): 5, (128, 16): 11, (128, 32): 21, (128, 64): 7,
          (256, 16): 6, (256, 32): 16, (256, 64): 24, (512, 16): 7, (512, 32): 9, (512, 64): 14}

# Table 2 (App. A.2): configurations with a training-step cutoff.
TABLE2 = {(64, 16), (64, 32), (64, 64), (128, 16), (128, 32), (128, 64), (256, 32), (256, 64), (256, 16),
          (512, 32), (512, 64), (512, 16), (1024, 128), (2048, 256), (4096, 512)}

# Sec. 6.1: base grid, the lambda = 8 diagonal, and the extra r = 32 point.
BASE_GRID = {(mm, dd) for mm in (64, 128, 256, 512) for dd in (16, 32, 64)}

DIAGONAL = [(128, 16), (256, 32), (512, 64), (1024, 128), (2048, 256), (4096, 512)]

EXTRA = [(1024, 32), (512, 16)]


def sweep_records(preset: str, tier: str, ctx):
    """``(records, "")`` of ``preset`` at ``tier`` for a claim (replayed, stored or trained, see
    :func:`rgr_verify.runs.replay.claim_records`), or ``(None, reason)`` when they cannot be had here."""
    check_choice("tier", tier, TIERS)
    if not isinstance(preset, str) or not preset:
        raise ValueError(f"preset must be a non-empty preset name, got {preset!r}")
    from ...runs.replay import claim_records

    return claim_records(preset, tier, ctx)


def permutation_cells(records, variant: str = "max"):
    """{(m, d_model): [CurvePoint]} of one variant (permutation graphs)."""
    groups = curves([r for r in records if r["config"]["variant"] == variant and r["config"]["graph"] == "permutation"])
    return {(g[3], g[4]): pts for g, pts in groups.items()}


def dk_or_inf(th):
    """D_K^* with a censored cell mapped to +inf (it needs more than the largest tested D_K)."""
    return math.inf if th.central is None else th.central


def curve_artefacts(ctx, cells, name: str, title: str):
    """Plot the F1-D_K curves of ``cells`` ({(m, d_model): [CurvePoint]}) as ``<name>.png`` in ``ctx.out_dir``; the
    path relative to it, in a tuple (empty when the context writes nothing)."""
    if ctx.out_dir is None:
        return ()
    from ...analysis.plots import plot_curves

    path = plot_curves({f"m={m}, d_model={d}": pts for (m, d), pts in cells.items()}, ctx.out_dir / f"{name}.png",
                       title=title)
    return (str(path.relative_to(ctx.out_dir)),)


def thresholds_plot(ctx, cells, ths, name: str, title: str, fit=None, paper_slope=None, base="e", capped=()):
    """Plot D_K* against m log m / d_model (``base`` "e" or "2", with ``fit`` and the paper's slope) and h* against
    m / d_model for ``cells`` with thresholds ``ths``, the cells in ``capped`` (a threshold run hit the step cap)
    marked as upper bounds; the two paths relative to ``ctx.out_dir`` (empty when the context writes nothing)."""
    check_choice("base", base, ("e", "2"))
    if ctx.out_dir is None:
        return ()
    from ...analysis.plots import plot_dk_star_fit, plot_h_star

    pts = [(compression_x(m, d, base=base), ths[(m, d)], f"({m},{d})") for (m, d) in cells]
    p1 = plot_dk_star_fit(pts, fit, ctx.out_dir / f"{name}-dkstar.png", title=title,
                          xlabel="m ln m / d_model" if base == "e" else "m log2 m / d_model", paper_slope=paper_slope,
                          capped=[f"({m},{d})" for (m, d) in capped])
    p2 = plot_h_star([(m / d, ths[(m, d)]) for (m, d) in cells], ctx.out_dir / f"{name}-hstar.png",
                     title="h* against compression m / d_model", xlabel="m / d_model")
    return tuple(str(p.relative_to(ctx.out_dir)) for p in (p1, p2))


def threshold_table(cells, ths):
    """{"(m,d)": D_K* central/optimistic/conservative, h* and its interval, d_k*, largest D_K tested} per cell."""
    return {f"({m},{d})": {"D_K*": ths[(m, d)].central, "optimistic": ths[(m, d)].optimistic,
                           "conservative": ths[(m, d)].conservative, "h*": ths[(m, d)].h_star,
                           "h* interval": [ths[(m, d)].h_low, ths[(m, d)].h_high],
                           "d_k*": ths[(m, d)].d_k_star, "max D_K tested": ths[(m, d)].max_tested}
            for (m, d) in sorted(cells)}


def runs_by_config(recs, variant: str = "max") -> dict[tuple, dict[tuple, list]]:
    """{(m, d_model): {(h, D_K): [records]}} of one variant (permutation graphs)."""
    out: dict[tuple, dict[tuple, list]] = {}
    for r in recs:
        c = r["config"]
        if c["variant"] != variant or c["graph"] != "permutation":
            continue
        out.setdefault((c["m"], c["d_model"]), {}).setdefault((c["n_heads"], c["n_heads"] * c["d_k"]), []).append(r)
    return out


def dk_intervals(cells, ths) -> dict:
    """{cell: D_K* interval on the cell's ladder} (:func:`rgr_verify.analysis.fits.dk_interval`)."""
    return {k: dk_interval([p.D_K for p in pts], ths[k].central) for k, pts in cells.items()}


def cap_table(cells, ths, runs) -> dict:
    """{cell: step-cap sensitivity at (h*, D_K*)} (:func:`rgr_verify.analysis.fits.cap_sensitivity`); ``runs`` is
    :func:`runs_by_config`'s output."""
    return {k: cap_sensitivity(runs[k], cells[k], ths[k].central, ths[k].h_star) for k in cells}


def cell_rows(keys, cells, ths, ivs, caps, rates=None, label=lambda k: f"({k[0]},{k[1]})") -> dict:
    """{label(cell): D_K* (central, interval, optimistic, conservative), h* and its interval, d_k*, cap sensitivity,
    and the sampler's positive rate at m when ``rates`` has it} for the cells ``keys``, in sorted order."""
    rows = {}
    for k in sorted(keys):
        th = ths[k]
        row = {"D_K* (central)": th.central, "D_K* interval": ivs[k].as_dict(), "optimistic": th.optimistic,
               "conservative": th.conservative, "h*": th.h_star, "h* interval": [th.h_low, th.h_high],
               "d_k*": th.d_k_star, "max D_K tested": th.max_tested,
               "stopped early at (h*, D_K*)": caps[k]["stopped early at (h*, D_K*)"],
               "could move down with a longer cap": caps[k]["could move down with a longer cap"]}
        if rates is not None and k[0] in rates:
            row["sampler positive rate at m"] = rates[k[0]]["rate"]
        rows[label(k)] = row
    return rows


def band_text(lo, hi) -> str:
    """``"[lo, hi]"`` to three significant digits."""
    return f"[{lo:.3g}, {hi:.3g}]"


def slope_reading(keys, ivs, ths, xs, *, paper_slope, slope_factor, r2_min, cap_limited=(), cap_any=()) -> dict:
    """The through-origin law D_K* = a x under one reading of x: the paper's estimator, its grid range, and the
    interval regression (censored cells included / excluded / cap-limited cells as upper bounds / the cells
    ``cap_any`` where any threshold run hit the cap as upper bounds).

    Rule (fixed in advance): *holds* when the paper's estimator (least squares through the origin on the first
    passing D_K of the uncensored cells) is within a factor ``slope_factor`` of ``paper_slope`` with centred R^2 >=
    ``r2_min`` and the 95% profile interval of the interval-regression slope (censored cells included) meets that
    band; *contradicted* when both the grid range of the paper's estimator and that profile interval miss the band;
    otherwise *inconclusive* (within the grid's resolution)."""
    lo_b, hi_b = paper_slope / slope_factor, paper_slope * slope_factor
    finite = [k for k in sorted(keys) if ths[k].central is not None]
    x = [xs[k] for k in finite]
    y = [ths[k].central for k in finite]
    fit = fit_through_origin(x, y)
    s_lo, s_hi = slope_range_through_origin(x, [ivs[k].low for k in finite], [ivs[k].high for k in finite])

    def ireg(use, cap=()):
        use = sorted(use)
        lows = [0.0 if k in cap else ivs[k].low for k in use]
        with np.errstate(divide="ignore"):
            a = np.log(np.array(lows, dtype=float))
            b = np.log(np.array([ivs[k].high for k in use], dtype=float))
        f = interval_regression(a, b, np.ones((len(use), 1)), offset=np.log([xs[k] for k in use]))
        ci = profile_interval(f, 0)
        return f, (math.exp(ci[0]), math.exp(ci[1]))

    f_all, ci_all = ireg(keys)
    uncens = [k for k in keys if not ivs[k].censored]
    f_unc, ci_unc = ireg(uncens) if len(uncens) >= 2 else (None, (math.nan, math.nan))
    f_cap, ci_cap = ireg(keys, cap=set(cap_limited)) if cap_limited else (None, None)
    f_any, ci_any = ireg(keys, cap=set(cap_any)) if cap_any else (None, None)
    in_band = lo_b <= fit.slope <= hi_b
    ci_meets = ci_all[1] >= lo_b and ci_all[0] <= hi_b
    grid_misses = s_hi < lo_b or s_lo > hi_b
    status = ("holds" if in_band and fit.r2 >= r2_min and ci_meets
              else "contradicted" if grid_misses and not ci_meets else "inconclusive")
    out = {"verdict under this reading": status,
           "paper estimator (LS through origin, first passing D_K, uncensored cells)":
               {"slope": round(fit.slope, 4), "R2 centred": round(fit.r2, 4), "R2 uncentred": round(fit.r2_uncentred, 4),
                "n": fit.n, "grid range of the slope (cells anywhere in their D_K* interval)": [round(s_lo, 4),
                                                                                                 round(s_hi, 4)]},
           "interval regression, censored cells as intervals": {
               "slope": round(math.exp(f_all.beta[0]), 4), "95% profile": [round(v, 4) for v in ci_all],
               "sigma (log)": round(f_all.sigma, 4), "n": f_all.n, "censored": f_all.censored},
           "interval regression, uncensored cells only": None if f_unc is None else {
               "slope": round(math.exp(f_unc.beta[0]), 4), "95% profile": [round(v, 4) for v in ci_unc],
               "n": f_unc.n},
           "tolerance band for the slope": band_text(lo_b, hi_b)}
    if f_cap is not None:
        out["interval regression, cap-limited cells as upper bounds"] = {
            "slope": round(math.exp(f_cap.beta[0]), 4), "95% profile": [round(v, 4) for v in ci_cap]}
    if f_any is not None:
        out["interval regression, cells where any threshold run hit the cap as upper bounds"] = {
            "slope": round(math.exp(f_any.beta[0]), 4), "95% profile": [round(v, 4) for v in ci_any],
            "cells": [f"({k[0]},{k[1]})" if isinstance(k, tuple) else str(k) for k in sorted(cap_any)]}
    return out


def readings_text(per_reading: dict) -> str:
    """``"holds under ln, inconclusive under log2"``: each reading's word, as a verdict quotes it."""
    return ", ".join(f"{w} under {r}" for r, w in per_reading.items())


def laws_block(keys, ivs, *, designs=None, m_of=lambda k: k[0], d_of=lambda k: k[1]) -> dict:
    """Competing laws fitted to the same intervals: censored cells included, and uncensored cells only."""
    out = {}
    for name, use in (("censored cells as intervals", sorted(keys)),
                      ("uncensored cells only", sorted(k for k in keys if not ivs[k].censored))):
        if len(use) < 4:
            out[name] = None
            continue
        if designs is None:
            ranked = compare_laws([ivs[k] for k in use], [m_of(k) for k in use], [d_of(k) for k in use])
            ref = "m ln m / d_model"
        else:
            ds, ref = designs(use)
            ranked = compare_designs([ivs[k] for k in use], ds)
        out[name] = {"n": len(use), "laws (best first)": {lf.law: lf.summary() for lf in ranked},
                     **preference(ranked, ref)}
    return out


def reported_only(ctx, compute):
    """``compute()``: a number reported next to a verdict but not part of its rule (competing laws, the sampler's
    positive rates), for the analysis on every record; None in the multiverse's variants (a left-out seed, another
    reading of App. A.1), whose verdict alone is kept."""
    return compute() if ctx.default_analysis else None


def sampler_rates(ctx, ms):
    """The App. A.1 sampler's positive rate at each distinct m of ``ms`` (:func:`positive_rates`, generator
    ``ctx.rng(99)``)."""
    ms = sorted(set(ms))
    if not ms:
        raise ValueError("ms must name at least one size m")
    return positive_rates(ms, rng=ctx.rng(99))


# Quick tier: scaled-down analogues (ids end in -quick). Every rule below states its chance of passing when the
# effect is absent (null), kept <= 5%.

FAMILY_ALPHA = 0.05  # family-wise false-alarm rate of every quick rule, fixed in advance


def quick_sizes(recs) -> tuple[int, int]:
    """(largest m, step cap) of a quick preset's records: the analogue's scale, quoted in its verdict."""
    return (max(r["config"]["m"] for r in recs), max(r["config"]["max_steps"] for r in recs))


def cap_choices(caps: dict, keys) -> dict:
    """{value of the "cap-limited cells" dimension: the cells of ``keys`` it enters as upper bounds only}: those where
    most threshold runs hit the step cap, those where any did, none (:func:`cap_table`'s ``caps``)."""
    from .multiverse import DIMENSIONS

    most, anyhit, none = DIMENSIONS["cap-limited cells"]
    return {most: {k for k in keys if caps[k]["cap-limited"]},
            anyhit: {k for k in keys if caps[k]["any threshold run hit the cap"]}, none: set()}


def cap_limited_cells(cells, ths, runs) -> dict:
    """The cells of :func:`cap_table` flagged cap-limited (most threshold runs hit the step cap)."""
    return {k: v for k, v in cap_table(cells, ths, runs).items() if v["cap-limited"]}


def multihead_advantage_verdict(ctx, preset="sec6-grid", tier="quick", min_lambda=4.0, min_gap=0.1, alpha=0.05,
                                variant="max", evidence_level: str | None = None):
    """At a fixed D_K, several heads beat one head in every compressed cell (m / d_model >= ``min_lambda``) of
    ``preset``'s ``variant`` runs at ``tier``.

    The comparison standard (:func:`rgr_verify.claims.standards.decide_advantage`). Units: per compressed cell, each
    (h > 1, D_K) with h = 1 run at the same D_K on the same seeds; its advantage is the per-seed F1 of h > 1 minus
    h = 1, its interval the t-interval at one-sided level ``alpha`` / k (Bonferroni over the cell's k comparisons).
    A cell holds when some comparison's interval lies inside [``min_gap``, inf), fails when every comparison's lies
    wholly below ``min_gap``, else is undecided (a cell without a paired comparison is undecided); the claim holds
    when every compressed cell holds and is contradicted when some cell fails. The rule of
    sec61-multihead-advantage-quick (and of the Figure 5 softmax analogue). ``evidence_level`` (e.g. "analogue"
    for a quick-tier training analogue, "experiment" for replayed paper-scale runs) is set on the verdict.
    """
    check_choice("tier", tier, TIERS)
    if not min_lambda > 0 or not 0 < alpha < 1 or not min_gap >= 0:
        raise ValueError(f"need min_lambda > 0, 0 < alpha < 1 and min_gap >= 0, got {min_lambda}, {alpha}, {min_gap}")
    recs, why = sweep_records(preset, tier, ctx)
    if recs is None:
        return Verdict.not_run(why)
    m_max, cap = quick_sizes(recs)
    cells = permutation_cells(recs, variant)
    a, margin = significance(alpha), tolerance(min_gap)  # the multiverse's test level and tolerance (ours)
    per_cell, cell_status = {}, {}
    for (m, d), pts in sorted(cells.items()):
        if m / d < min_lambda:
            continue
        single = {p.D_K: p for p in pts if p.h == 1}
        comps = [(p, single[p.D_K]) for p in pts
                 if p.h != 1 and p.D_K in single and p.seeds == single[p.D_K].seeds]
        level = picked_level(a, max(len(comps), 1))  # Bonferroni over the (h, D_K) comparisons of the cell
        ivs = {f"h={p.h}, D_K={p.D_K}": advantage_interval(np.subtract(p.values, s.values), level) for p, s in comps}
        key = f"({m},{d})"
        # "some (h > 1, D_K) of the cell beats h = 1": held by one comparison inside the band, failed only when every
        # comparison lies wholly below it (never refuted on one comparison while another still reaches the margin)
        cell_status[key], res = decide_advantage({u: iv[1:] for u, iv in ivs.items()}
                                                 or {"no paired comparison": (-math.inf, math.inf)},
                                                 margin, every=False, level=level)
        best = max(ivs, key=lambda u: ivs[u][0], default=None)
        th = threshold(pts)
        th1 = threshold([p for p in pts if p.h == 1])
        per_cell[key] = {
            "status": cell_status[key].value,
            "best gap (mean F1, h>1 minus h=1)": None if best is None else round(ivs[best][0], 4),
            "at": None if best is None else {"comparison": best,
                                             "interval": [round(x, 4) for x in ivs[best][1:]]},
            "comparisons": len(comps), "one-sided level (Bonferroni)": level, "band": [margin, math.inf],
            "held": len(res["held"]), "failed": len(res["failed"]), "undecided": len(res["undecided"]),
            "D_K* any h": th.central, "D_K* h=1": th1.central if th1.central is not None else f"> {th1.max_tested}"}
    params = {"preset": preset, "tier": tier, "variant": variant, "compressed cells": f"m/d_model >= {min_lambda}",
              "min gap": min_gap, "alpha": alpha,
              "null pass probability": f"<= {alpha} per cell (Bonferroni over its comparisons, paired t model)"}
    if not per_cell:
        return Verdict(Status.INCONCLUSIVE, measured_value="no compressed cell in the preset", params=params,
                       evidence_level=evidence_level)
    status = conjunction(cell_status.values())
    failed = [k for k, s in cell_status.items() if failing(s)]
    open_ = [k for k, s in cell_status.items() if not holding(s)]
    return Verdict(status, paper_value=f"analogue at m <= {m_max}, cap {cap}: at fixed D_K, splitting into several "
                                       "heads beats one head when m >> d_model",
                   measured_value=per_cell, witness=failed or open_ or None, params=params,
                   evidence=f"training sweep ({len(recs)} runs), paired t-intervals over seeds, Bonferroni per cell",
                   evidence_level=evidence_level)


TIE_F1 = 0.001  # head counts whose mean F1 at D_K* is within this of the best tie (the "h* tie-break" dimension)


def h_star_tie_break(th, points, choice: str):
    """``th`` (a :class:`~rgr_verify.analysis.capacity.Threshold` of ``points``) with h* picked by ``choice``, a value of the
    multiverse's "h* tie-break" dimension: App. A.2's (the larger mean F1: ``th`` as it is), or the fewest / the most
    heads among those whose mean F1 at D_K* is within :data:`TIE_F1` of the best (many h tie at F1 ~ 1); the h*
    interval is widened to hold the pick."""
    import dataclasses

    from .multiverse import DIMENSIONS

    app, fewest, most = DIMENSIONS["h* tie-break"]
    if choice not in (app, fewest, most):
        raise ValueError(f"choice must be a value of the 'h* tie-break' dimension, got {choice!r}")
    if choice == app or th.central is None:
        return th
    at = [p for p in points if p.D_K == th.central]
    best = max(p.mean for p in at)
    ties = [p.h for p in at if p.mean >= best - TIE_F1]
    h = min(ties) if choice == fewest else max(ties)
    return dataclasses.replace(th, h_star=h, d_k_star=th.central / h, h_low=min(th.h_low, h), h_high=max(th.h_high, h))


def seed_values(cell_recs, *, favour: str) -> tuple[list[float], list[float], dict]:
    """Per-seed D_K^* and h^* of one cell, for a claim that needs this cell large (``favour="large"``) or small.

    A value known only as an upper bound (the passing run hit the cap, or it is the smallest D_K tested) is, when the
    claim needs the cell large, replaced by its lower bound: just above the largest tested D_K below it at which
    every run of that seed fails and would not reach 0.99 with a cap twice as long at its current rate
    (:func:`~rgr_verify.analysis.fits.could_pass_with_longer_cap`), or 0 when
    there is none. Values are kept as measured when the claim needs the cell small (an upper bound is then the least
    favourable end). A seed that never passes is +inf."""
    per = per_seed_thresholds(cell_recs)
    lowest = min(r["config"]["n_heads"] * r["config"]["d_k"] for r in cell_recs)
    dk, hs = [], []
    for s in sorted(per):
        v = per[s]
        upper_only = v["stopped_early"] is False or v["D_K"] == lowest
        if upper_only and favour == "large":
            mine = [r for r in cell_recs if int(r["seed"]) == s]
            below = sorted({r["config"]["n_heads"] * r["config"]["d_k"] for r in mine} - {v["D_K"]})
            flat = [D for D in below if D < v["D_K"] and all(
                float(r["metric"]) < f1_target() and not could_pass_with_longer_cap(r) for r in mine
                if r["config"]["n_heads"] * r["config"]["d_k"] == D)]
            dk.append(max(flat) + 1e-6 if flat else 0.0)
        else:
            dk.append(float(v["D_K"]))
        hs.append(math.inf if v["h"] is None else float(v["h"]))
    return dk, hs, per


def cell_records(recs, key):
    """The max-over-heads records of one cell ``key`` = (m, d_model)."""
    return [r for r in recs if r["config"]["variant"] == "max" and (r["config"]["m"], r["config"]["d_model"]) == key]


def full_grid(ctx, preset="sec6-grid"):
    """``((records, cells, thresholds, D_K* intervals, cap table, runs by config), "")`` of ``preset``'s full tier,
    or ``(None, reason)`` when its records cannot be had here."""
    recs, why = sweep_records(preset, "full", ctx)
    if recs is None:
        return None, why
    cells = permutation_cells(recs)
    ths = {k: threshold(v) for k, v in cells.items()}
    runs = runs_by_config(recs)
    return (recs, cells, ths, dk_intervals(cells, ths), cap_table(cells, ths, runs), runs), ""




GRID_FULL_NOTES = ("Full tier (sec6-grid full: m in {64..512} x d_model in {16,32,64}, h in {1..64}, D_K on the 1-2-3 "
                   "ladder within [1/4, 4] x 1.19 m ln m / d_model, 10 seeds, Table 2 caps). D_K* is an interval (last "
                   "failing, first passing ladder value]; left-censored at the grid's lowest D_K, right-censored when "
                   "none passes. Cap sensitivity per cell: share of (h*, D_K*) runs that stopped early (flag < 90%; "
                   "'cap-limited' when <= 50%), and whether an h at the D_K below (mean F1 >= 0.9) has most runs that "
                   "would reach 0.99 with a 2x cap at their current rate of improvement (linear extrapolation). The "
                   "App. A.1 sampler's positive rate at each m (literal step 3) is listed per cell.")
