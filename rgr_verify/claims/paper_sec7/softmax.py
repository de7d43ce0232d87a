"""Sec. 7.1 and Figure 5 (softmax): empirical claims from trained runs.

Scores softmax-normalised over the context, scaled by 1/sqrt(d_k), summed over heads, edge iff the sum exceeds the
learned tau, up to 80,000 steps (full tier). The multi-head advantage is decided by the rule of
sec61-multihead-advantage-quick (:func:`rgr_verify.claims.tools.multihead_advantage_verdict`) on softmax runs.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np

from ...analysis.capacity import threshold
from ...analysis.fits import dk_interval
from ...core.stats import stratified_permutation_pvalue
from ..base import Claim, Kind, Status, Tier, Verdict
from ..paper_sec6.quick import MULTIHEAD_QUICK_STANDARD
from ..standards import Standard, conjunction, decide, decide_interval
from ..tools.multiverse import DIMENSIONS, multiverse_status, significance, tolerance
from ..tools.rungs import end_level, rung_shift, rung_shift_pair
from ...analysis.capacity import cap_sensitivity
from ..tools import (
    FAMILY_ALPHA,
    dk_or_inf,
    runs_by_config,
    multihead_advantage_verdict,
    permutation_cells,
    quick_sizes,
    seed_values,
    sweep_records,
)

__all__ = ["CLAIMS", "ORDER"]

ORDER = 70


def _like_for_like(soft, base):
    """The max runs restricted to the softmax runs' seeds (the "max-model seeds" dimension's second value)."""
    seeds = {int(r["seed"]) for r in soft}
    return [r for r in base if int(r["seed"]) in seeds]


def _shift_right(sc, bc):
    """(rows, cells where softmax needs less, cells where it needs more) of the central D_K* per common cell."""
    rows, wrong, strict = {}, [], 0
    for key in sorted(sc):
        if key not in bc:
            continue
        a, b = dk_or_inf(threshold(bc[key])), dk_or_inf(threshold(sc[key]))
        rows[f"{key}"] = {"max D_K*": str(a), "softmax D_K*": str(b)}
        if b < a:
            wrong.append(key)
        elif b > a:
            strict += 1
    return rows, wrong, strict


def _check_softmax_shift(ctx, tier="full"):
    soft, why = sweep_records("sec71-softmax", tier, ctx)
    if soft is None:
        return Verdict.not_run(why)
    base, why = sweep_records("sec6-grid", tier, ctx)
    if base is None:
        return Verdict.not_run(why)
    if tier == "quick":  # like for like: the max runs restricted to the softmax preset's head counts and seeds
        heads = {r["config"]["n_heads"] for r in soft}
        seeds = {int(r["seed"]) for r in soft}
        base = [r for r in base if r["config"]["n_heads"] in heads and int(r["seed"]) in seeds]
    sc = permutation_cells(soft, "softmax")
    by_seeds = {choice: _shift_right(sc, permutation_cells(recs, "max"))
                for choice, recs in zip(DIMENSIONS["max-model seeds"], (base, _like_for_like(soft, base)))}
    rows, wrong, strict = by_seeds[DIMENSIONS["max-model seeds"][0]]
    arts = ()
    if ctx.out_dir is not None:
        from ...analysis.plots import plot_curves

        p = plot_curves({f"m={m}, d_model={d}": pts for (m, d), pts in sc.items()},
                        ctx.out_dir / ("fig5-softmax.png" if tier == "full" else f"fig5-softmax-{tier}.png"),
                        title=f"Softmax F1-D_K curves (Sec. 7.1, {tier}); 95% t-intervals")
        arts = (str(p.relative_to(ctx.out_dir)),)
    # precedence kept: some cells can need less (w) while others need more (st); a cell needing less wins
    statuses = {choice: decide(st and not w, w) for choice, (_, w, st) in by_seeds.items()}
    params = {"tier": tier}
    status = statuses[DIMENSIONS["max-model seeds"][0]]
    if tier == "full":  # the multiverse: the max runs of every seed, or of the softmax runs' seeds only
        status, params["robustness"] = multiverse_status([{"choices": {"max-model seeds": c}, "estimate": None,
                                                           "interval": None, "status": st}
                                                          for c, st in statuses.items()])
        rows = {**rows, "by max-model seeds": {c: {"status": st.value, "cells": by_seeds[c][0]}
                                               for c, st in statuses.items()}}
    return Verdict(status, paper_value="softmax shifts the D_K needed for F1 0.99 to the right",
                   measured_value=rows, witness=wrong or None, artefacts=arts,
                   evidence_level="experiment" if tier == "full" else "analogue",
                   params=params, evidence=f"{tier} sweeps ({len(soft)} softmax + {len(base)} max runs)")


def _check_softmax_shift_quick(ctx):
    """Per-seed thresholds, softmax against max at the same cells, heads and seeds; exact stratified permutation test."""
    soft, why = sweep_records("sec71-softmax", "quick", ctx)
    if soft is None:
        return Verdict.not_run(why)
    base, why = sweep_records("sec6-grid", "quick", ctx)
    if base is None:
        return Verdict.not_run(why)
    m_max, cap = quick_sizes(soft)
    heads = {r["config"]["n_heads"] for r in soft}
    seeds = {int(r["seed"]) for r in soft}
    base = [r for r in base if r["config"]["n_heads"] in heads and int(r["seed"]) in seeds]
    keys = sorted({(r["config"]["m"], r["config"]["d_model"]) for r in soft})
    up, down, rows = [], [], {}
    for k in keys:
        sk = [r for r in soft if (r["config"]["m"], r["config"]["d_model"]) == k]
        bk = [r for r in base if (r["config"]["m"], r["config"]["d_model"]) == k]
        if not bk:
            continue
        b_small, _, pb = seed_values(bk, favour="small")
        s_large, _, ps = seed_values(sk, favour="large")
        b_large, _, _ = seed_values(bk, favour="large")
        s_small, _, _ = seed_values(sk, favour="small")
        up.append((b_small, s_large))
        down.append((b_large, s_small))
        rows[f"({k[0]},{k[1]})"] = {"per-seed D_K* max": [pb[x]["D_K"] for x in sorted(pb)],
                                    "per-seed D_K* softmax": [ps[x]["D_K"] for x in sorted(ps)],
                                    "softmax seeds at the cap": sum(v["stopped_early"] is False for v in ps.values())}
    if not up:
        return Verdict(Status.INCONCLUSIVE, details="no common cell", evidence_level="analogue")
    p_up = stratified_permutation_pvalue(up, alternative="greater")
    p_down = stratified_permutation_pvalue(down, alternative="less")
    # conflicting evidence decides nothing (issue 37): the two tests read different per-seed ends (up: max small vs
    # softmax large; down: max large vs softmax small), so both can reject; then neither side wins
    more, less = p_up <= FAMILY_ALPHA, p_down <= FAMILY_ALPHA
    status = decide(more and not less, less and not more)
    return Verdict(status, evidence_level="analogue", paper_value=f"analogue at m <= {m_max}, softmax cap {cap}: the D_K needed for F1 0.99 moves "
                                       "to the right of the max-over-heads model",
                   measured_value={"cells": rows, "p (softmax needs more)": round(p_up, 4),
                                   "p (softmax needs less)": round(p_down, 4)},
                   params={"tier": "quick", "alpha": FAMILY_ALPHA,
                           "null pass probability": f"<= {FAMILY_ALPHA} (exact permutation test stratified by cell)"},
                   evidence=f"quick sweeps ({len(soft)} softmax + {len(base)} max runs); per-seed thresholds")


# ours: "reaches F1 0.99 at a smaller D_K" in whole rungs: D_K*(h = 1) above D_K*(h > 1) by at least one rung
ADVANTAGE_BAND = (1.0, math.inf)


def _softmax_cell(recs, key):
    """The softmax records of one cell ``key`` = (m, d_model)."""
    return [r for r in recs if r["config"]["variant"] == "softmax" and (r["config"]["m"], r["config"]["d_model"]) == key]


def _heads(recs, *, more: bool):
    """The records with h > 1 (``more``) or h = 1."""
    return [r for r in recs if (int(r["config"]["n_heads"]) > 1) == more]


def _check_softmax_multihead(ctx):
    soft, why = sweep_records("sec71-softmax", "full", ctx)
    if soft is None:
        return Verdict.not_run(why)
    sc = permutation_cells(soft, "softmax")
    runs = runs_by_config(soft, "softmax")
    most, anyhit, none = DIMENSIONS["cap-limited cells"]
    rows, keys, capped = {}, [], {most: set(), anyhit: set(), none: set()}
    for (m, d), pts in sorted(sc.items()):
        if m / d < 4:
            continue  # the paper exempts the uncompressed panel (64, 32)
        keys.append((m, d))
        one = [p for p in pts if p.h == 1]
        t1 = threshold(one)
        a = dk_or_inf(t1)
        b = dk_or_inf(threshold([p for p in pts if p.h > 1]))
        # h = 1's threshold set by the step cap: its D_K* is an upper bound only, so "h > 1 needs less" is not shown
        cap = cap_sensitivity({k: v for k, v in runs[(m, d)].items() if k[0] == 1}, one, t1.central, t1.h_star)
        capped[most] |= {(m, d)} if cap["cap-limited"] else set()
        capped[anyhit] |= {(m, d)} if cap["any threshold run hit the cap"] else set()
        rows[f"({m},{d})"] = {"h=1 D_K*": str(a), "h>1 D_K*": str(b),
                              "h=1 threshold runs stopped early": cap["stopped early at (h*, D_K*)"]}
    if not rows:
        return Verdict(Status.INCONCLUSIVE, details="no compressed softmax cell", evidence_level="experiment")
    # "in every compressed cell" is an intersection-union statement: it passes with every cell's interval inside the
    # band at the full level (each cell tested at alpha), while "some cell fails" needs Bonferroni over the cells
    # (an independent re-check of 2026-11-28: splitting the pass side too made the claim undecidable on 3 seeds)
    alpha = end_level(significance(FAMILY_ALPHA), len(rows), ADVANTAGE_BAND)
    pass_alpha = end_level(significance(FAMILY_ALPHA), 1, ADVANTAGE_BAND)
    recs = {k: _softmax_cell(soft, k) for k in keys}

    def shifts_under(choice):
        # h = 1 over h > 1: the rungs by which one head needs the larger D_K; in the cells the choice reads as set by
        # the cap, every h = 1 seed counts as an upper bound only at the low end. The narrower (pass-side) interval
        # inside the band and the wider (fail-side) one wholly outside it exclude each other.
        out = {}
        for (m, d), rs in recs.items():
            upper = (m, d) in capped[choice]
            sh = rung_shift_pair(_heads(rs, more=True), _heads(rs, more=False), pass_alpha=pass_alpha,
                                 fail_alpha=alpha, b_upper_only=upper)
            inside = decide_interval(sh["interval"], ADVANTAGE_BAND)[1]["inside"]
            outside = decide_interval(sh["fail-side interval"], ADVANTAGE_BAND)[1]["outside"]
            out[f"({m},{d})"] = (sh, decide(inside, outside))
        return out

    per_choice = {c: shifts_under(c) for c in DIMENSIONS["cap-limited cells"]}
    # whether the design can decide at all (the seed counts fix the exact test's smallest p-value): holding needs
    # every cell to reach the pass-side level, failing one cell the fail-side level; an analysis that can do
    # neither (2 seeds against 3 when one is left out, the level x 1/5) is left out of the agreement
    smallest = [sh["smallest p-value"] for sh, _ in per_choice[most].values()]
    resolvable = max(smallest) <= pass_alpha or min(smallest) <= alpha
    status, robustness = multiverse_status([{"choices": {"cap-limited cells": c}, "estimate": None, "interval": None,
                                             "status": conjunction(s for _, s in per_choice[c].values()),
                                             **({} if resolvable else {"resolvable": False})}
                                            for c in DIMENSIONS["cap-limited cells"]])
    primary = per_choice[most]
    for cell, (sh, st) in primary.items():
        rows[cell].update({"per-seed rungs h=1": sh["b rungs"], "per-seed rungs h>1": sh["a rungs"],
                           "shift interval (rungs, h=1 over h>1)": sh["interval"],
                           "fail-side interval (Bonferroni over the cells)": sh["fail-side interval"],
                           "band": list(ADVANTAGE_BAND), "cell status": st.value})
    open_cells = {c: sh["interval"] for c, (sh, st) in primary.items() if st.value != "holds-empirically"}
    coarsest = max(sh["smallest p-value"] for sh, _ in primary.values())
    return Verdict(status, evidence_level="experiment",
                   paper_value="multi-head advantage in the compressed regime persists with softmax (Figure 5)",
                   measured_value={**rows, "h=1 thresholds set by the cap, by reading": {
                       c: sorted(f"({m},{d})" for m, d in v) for c, v in capped.items()}},
                   witness=open_cells or None,
                   params={"robustness": robustness, "level per end (one-sided)": pass_alpha,
                           "fail-side level per end (Bonferroni over the cells)": alpha,
                           "band (rungs)": list(ADVANTAGE_BAND), "smallest attainable p-value": coarsest},
                   details="Per compressed cell, the shift of the per-seed App. A.2 thresholds of h = 1 over those of "
                           "the best h > 1, in rungs of the 2-3 ladder: an exact interval from the two-sample "
                           "permutation test inverted over whole-rung shifts: to hold, every cell's interval at one-sided 0.05 "
                           "per end (an intersection-union test: each cell must pass); to fail, one cell's interval "
                           "at 0.05 / #cells per end (Bonferroni: any cell may fail), "
                           "each end read in its own disfavour (a seed known only as an upper bound at its lower "
                           "bound for one end; a seed that never passes at the rung beyond the grid for one end and "
                           "+inf for the other). Every cell's interval inside [1, inf) (one head needs a larger D_K) "
                           "holds, one wholly at or below 0 contradicts, else inconclusive. Resolution: the "
                           f"smallest one-sided p-value the exact test reaches here is {coarsest:.3g} (per cell, "
                           f"from its seed counts) against the levels {pass_alpha:.3g} (to hold) and {alpha:.3g} (to fail) per end"
                           + (": on this design the rule cannot fail without more seeds" if coarsest > alpha
                              else "") + ". "
                           "Multiverse over the cells whose h = 1 threshold runs hit the step cap (most, "
                           "any, or none read that way): there every h = 1 seed counts as an upper bound at the "
                           "low end. Central D_K* shown for reference; they decide nothing.",
                   evidence=f"full sweep ({len(soft)} runs)")


def _check_softmax_multihead_quick(ctx):
    """Quick tier: the multi-head advantage at fixed D_K, by sec61-multihead-advantage-quick's rule, on softmax runs."""
    return multihead_advantage_verdict(ctx, preset="sec71-softmax", tier="quick", variant="softmax",
                                       evidence_level="analogue")


SHIFT_TOL = 0.5  # the growth exponent of the shift in ln m: closer to the claimed 1 than to 0 (no growth) or 2


def shift_growth_range(ms, lows, highs) -> tuple[float, float]:
    """The exact range of the least-squares exponent b of shift ~ (ln m)^b when each cell's shift may lie anywhere in
    its grid range [low, high]: the slope is linear in the log shifts, so its extremes sit at the ends of the ranges."""
    x = np.log(np.log(np.asarray(ms, dtype=float)))
    w = (x - x.mean()) / float(((x - x.mean()) ** 2).sum())
    lo, hi = np.log(np.asarray(lows, dtype=float)), np.log(np.asarray(highs, dtype=float))
    return float(np.where(w > 0, w * lo, w * hi).sum()), float(np.where(w > 0, w * hi, w * lo).sum())


def shift_size_decision(cells: dict, growth: tuple[float, float] | None, tol: float = SHIFT_TOL):
    """One standard for the size and the growth of the softmax shift. ``cells``: {(m, d_model): (low, high)} grid
    ranges of D_K*(softmax) / D_K*(max); ``growth``: the range of the exponent of the shift in ln m along one
    d_model (None when fewer than 3 sizes). Per cell the range must lie inside [1, ln m]; the growth range inside
    [1 - tol, 1 + tol]. Contradicted when some cell's range, or the growth range, lies wholly outside its band;
    holds when every cell's range and the growth range lie wholly inside; inconclusive otherwise (a shift that does
    not grow with m cannot pass). Returns (status, {part: word})."""
    words = {}
    for (m, d), (lo, hi) in cells.items():
        words[f"({m},{d})"] = ("inside" if 1.0 <= lo and hi <= math.log(m) else
                               "outside" if hi < 1.0 or lo > math.log(m) else "undecided")
    if growth is None:
        words["growth in ln m"] = "undecided"
    else:
        g_lo, g_hi = growth
        words["growth in ln m"] = ("inside" if 1 - tol <= g_lo and g_hi <= 1 + tol else
                                   "outside" if g_lo > 1 + tol or g_hi < 1 - tol else "undecided")
    vals = list(words.values())
    status = decide(all(v == "inside" for v in vals), "outside" in vals)  # vals is never empty (the growth part)
    return status, words


def _check_softmax_shift_size(ctx):
    soft, why = sweep_records("sec71-softmax", "full", ctx)
    if soft is None:
        return Verdict.not_run(why)
    base, why = sweep_records("sec6-grid", "full", ctx)
    if base is None:
        return Verdict.not_run(why)

    tol = tolerance(SHIFT_TOL)  # ours: closer to the claimed growth 1 than to none or to (ln m)^2
    by = {c: _shift_size_verdict(soft, recs, tol)
          for c, recs in zip(DIMENSIONS["max-model seeds"], (base, _like_for_like(soft, base)))}
    v = by[DIMENSIONS["max-model seeds"][0]]
    if not isinstance(v.measured_value, dict) or "cells" not in v.measured_value:
        return v
    # the multiverse: the max runs of every seed or of the softmax runs' seeds, x the grid ranges of the shifts or
    # the paper's point estimates (first passing ratios, their least-squares growth)
    grid, point = DIMENSIONS["points compared"]
    analyses = [{"choices": {"max-model seeds": c, "points compared": pts}, "estimate": None, "interval": None,
                 "status": x.status if pts == grid else Status(x.params["point estimates"]["status"])}
                for c, x in by.items() for pts in (grid, point)]
    status, robustness = multiverse_status(analyses)
    return dataclasses.replace(v, status=status, params={**v.params, "robustness": robustness},
                               measured_value={**v.measured_value, "by analysis": [
                                   {**a["choices"], "status": a["status"].value} for a in analyses]})


def _shift_size_verdict(soft, base, tol):
    """The rule of sec71-softmax-shift-size on the softmax runs ``soft`` against the max runs ``base``."""
    sc, bc = permutation_cells(soft, "softmax"), permutation_cells(base, "max")
    rows, ranges = {}, {}
    for k in sorted(sc):
        if k not in bc:
            continue
        ts, tb = threshold(sc[k]), threshold(bc[k])
        iv_s = dk_interval([p.D_K for p in sc[k]], ts.central)
        iv_b = dk_interval([p.D_K for p in bc[k]], tb.central)
        central = iv_s.high / iv_b.high
        lo = iv_s.low / iv_b.high
        hi = iv_s.high / iv_b.low if iv_b.low > 0 else math.inf
        ranges[k] = (lo, hi)
        rows[f"({k[0]},{k[1]})"] = {"max D_K* interval": iv_b.as_dict(), "softmax D_K* interval": iv_s.as_dict(),
                                    "shift (first passing ratio)": central, "grid range of the shift": [lo, hi],
                                    "ln m": math.log(k[0])}
    if not rows:
        return Verdict(Status.INCONCLUSIVE, details="no common cell", evidence_level="fitted")
    # the growth along the d_model with the most sizes (d_model = 32 on the committed evidence)
    by_d = {}
    for (m, d) in ranges:
        by_d.setdefault(d, []).append(m)
    d_line = max(by_d, key=lambda d: (len(by_d[d]), d))
    ms = sorted(by_d[d_line])
    fin = all(math.isfinite(ranges[(m, d_line)][1]) and ranges[(m, d_line)][0] > 0 for m in ms)
    growth = shift_growth_range(ms, [ranges[(m, d_line)][0] for m in ms], [ranges[(m, d_line)][1] for m in ms]) \
        if len(ms) >= 3 and fin else None
    central_growth = (float(np.polyfit(np.log(np.log(ms)), np.log([rows[f"({m},{d_line})"]["shift (first passing ratio)"]
                                                                  for m in ms]), 1)[0]) if len(ms) >= 3 else None)
    status, words = shift_size_decision(ranges, growth, tol)
    # the paper's reading: the first passing ratios as points, their least-squares growth in ln m as a point
    pt_status, pt_words = shift_size_decision(
        {k: ((rows[f"({k[0]},{k[1]})"]["shift (first passing ratio)"],) * 2
             if math.isfinite(rows[f"({k[0]},{k[1]})"]["shift (first passing ratio)"]) else ranges[k]) for k in ranges},
        None if central_growth is None or not math.isfinite(central_growth) else (central_growth, central_growth), tol)
    to_decide = None
    if status is Status.INCONCLUSIVE and growth is not None:
        to_decide = (f"the growth range [{growth[0]:.2f}, {growth[1]:.2f}] must fit inside [{1 - tol:g}, "
                     f"{1 + tol:g}]: ln m spans only a factor {math.log(ms[-1]) / math.log(ms[0]):.2f} over m in "
                     f"{ms}, and each shift is known to a ladder step; sizes over a much wider range of m (or a finer "
                     "D_K ladder) are needed")
    return Verdict(status,
                   paper_value="softmax shifts D_K* right by a factor consistent with the extra log m of the softmax "
                               "construction (tolerance: in every cell the grid range of D_K*(softmax) / D_K*(max) lies "
                               f"inside [1, ln m], and along d_model = {d_line} the range of the exponent b of shift ~ "
                               f"(ln m)^b lies inside [{1 - tol:g}, {1 + tol:g}]; contradicted when either "
                               "lies wholly outside)",
                   measured_value={"cells": rows, "per part": words,
                                   f"shift along d_model = {d_line} (m increasing)":
                                       [rows[f"({m},{d_line})"]["shift (first passing ratio)"] for m in ms],
                                   "growth exponent in ln m: grid range": None if growth is None
                                   else [round(growth[0], 3), round(growth[1], 3)],
                                   "growth exponent in ln m: least squares on the first passing ratios":
                                       None if central_growth is None else round(central_growth, 3)},
                   witness=({k: v for k, v in words.items() if v == "outside"} or None)
                   if status is Status.CONTRADICTED_EMPIRICALLY else None,
                   params={"tolerance on the growth exponent": tol, "sizes along the line": ms,
                           "point estimates": {"status": pt_status.value, "per part": pt_words},
                           "resolution": {"growth range": None if growth is None else list(growth),
                                          "band": [1 - tol, 1 + tol]},
                           **({"to_decide": to_decide} if to_decide else {})},
                   evidence=f"full sweeps ({len(soft)} softmax, 3 seeds, cap 80000; {len(base)} max runs); exact grid "
                            "range of the least-squares growth exponent over the cells' shift ranges",
                   evidence_level="fitted")


def _check_softmax_uncompressed(ctx, key=(64, 32)):
    soft, why = sweep_records("sec71-softmax", "full", ctx)
    if soft is None:
        return Verdict.not_run(why)
    sc = permutation_cells(soft, "softmax")
    if key not in sc:
        return Verdict(Status.INCONCLUSIVE, details=f"no softmax cell {key}", evidence_level="experiment")
    pts = sc[key]
    tested = sorted({p.D_K for p in pts})
    t1 = threshold([p for p in pts if p.h == 1])
    tm = threshold([p for p in pts if p.h > 1])
    d1, dm = dk_or_inf(t1), dk_or_inf(tm)
    steps = (sum(1 for t in tested if dm < t <= d1) if math.isfinite(d1) else math.inf) if d1 > dm else 0
    # ours: 'no advantage' read as one head needing at most one ladder rung more than the best h > 1 (the
    # multiverse's tolerance: 0.5 and 2 rungs); no lower limit, one head needing less is no advantage either
    band = (-math.inf, tolerance(1.0))
    alpha = end_level(significance(FAMILY_ALPHA), 1, band)
    rs = _softmax_cell(soft, key)
    sh = rung_shift(_heads(rs, more=True), _heads(rs, more=False), alpha=alpha)
    status, resolution = decide_interval(sh["interval"], band)
    coarse = sh["smallest p-value"] > alpha
    return Verdict(status, evidence_level="experiment",
                   paper_value="no multi-head advantage at (m, d_model) = (64, 32) with softmax (the exception in "
                               "Figure 5): one head reaches F1 0.99 within one ladder step of the best h > 1",
                   measured_value={"h=1 D_K*": str(d1), "best h>1 D_K*": str(dm), "h*": tm.h_star,
                                   "central ladder steps between them": steps if math.isfinite(steps)
                                   else "h=1 never passes",
                                   "per-seed rungs h=1": sh["b rungs"], "per-seed rungs h>1": sh["a rungs"],
                                   "shift interval (rungs, h=1 over h>1)": sh["interval"], "band": list(band)},
                   witness=None if status.value == "holds-empirically" else {
                       "shift interval (rungs)": sh["interval"], "h=1": str(d1), "h>1": str(dm)},
                   params={"resolution": resolution, "level per end (one-sided)": alpha,
                           "smallest attainable p-value": sh["smallest p-value"],
                           **({"resolvable": False} if coarse else {})},
                   details="The shift of the per-seed App. A.2 thresholds of h = 1 over those of the best h > 1 (per "
                           "seed, the least D_K over the five head counts), in rungs of the 2-3 ladder: an exact "
                           "interval from the two-sample permutation test inverted over whole-rung shifts, each end "
                           "at one-sided 0.05, each end read in its own disfavour (a seed known only as an upper bound "
                           "at its lower bound for one end; a seed that never passes at the rung beyond the grid for "
                           "one end, +inf for the other). Inside (-inf, 1] holds (one head needs at most one rung "
                           "more), wholly above 1 contradicts, else inconclusive. The best h > 1 per seed favours "
                           "finding an advantage, so a 'no advantage' result is conservative. Resolution: the "
                           f"smallest one-sided p-value of the exact test on these seeds is "
                           f"{sh['smallest p-value']:.3g} against the level {alpha:.3g}"
                           + (": no shift can be excluded, so the rule can neither hold nor fail without more seeds"
                              if coarse else "") + ".",
                   evidence=f"full sweep ({len(soft)} runs, 3 seeds, cap 80000)")


CLAIMS = (
    Claim(id="sec71-softmax-shifts-threshold-right", ref="Sec. 7.1",
          statement="With softmax over the context, 1/sqrt(d_k) and a sum over heads, the D_K needed for F1 0.99 moves "
                    "to the right of the max-over-heads model",
          kind=Kind.EMPIRICAL, tier=Tier.FULL, check=_check_softmax_shift, role="result",
          replays=("sec71-softmax", "sec6-grid"),
          notes="Full tier (sec71-softmax full vs sec6-grid full at the same (m, d_model), seeds 0-2 vs 0-9). Holds "
                "when no cell has a smaller softmax D_K* and at least one has a larger; censored = beyond the grid.",
          standard=Standard("comparison", "per common cell, D_K*(softmax) against D_K*(max), central App. A.2 "
                                          "thresholds (none on the grid = inf)",
                            tolerance="no cell smaller and at least one larger by a ladder rung",
                            source="ours: the ladder's resolution; no level",
                            primary="central thresholds compared cell by cell, no statistical test",
                            dimensions=("max-model seeds",), alternative=("softmax_no_harder", "holds-empirically"))),
    Claim(id="sec71-softmax-shifts-threshold-right-quick", ref="Sec. 7.1",
          statement="Analogue at m <= 64, softmax cap 24000: with softmax over the context, 1/sqrt(d_k) and a sum over "
                    "heads, the D_K needed for F1 0.99 moves to the right of the max-over-heads model",
          kind=Kind.EMPIRICAL, tier=Tier.QUICK, check=_check_softmax_shift_quick, role="result",
          notes="Quick tier, a scaled-down analogue: sec71-softmax quick ((m, d_model) in {(32,16), (64,16)}, h in {1,4}, "
                "D_K in {8,...,64}, 3 seeds, cap 24000 = 2x the max model's quick cap 12000) against the same cells "
                "of sec6-grid quick restricted to the same heads and seeds (0-2). Per-seed D_K* (a passing run at the "
                "cap, or at the smallest D_K, counts at its lower bound where the claim needs it large); exact one-sided "
                "permutation test stratified by cell; holds at p <= 0.05, contradicted when the reverse test gives "
                "p <= 0.05. Chance of passing under the null (no shift): <= 5%.",
          standard=Standard("comparison", "per-seed D_K*, softmax against max at the same cells, heads and seeds "
                                          "(quick)",
                            tolerance="softmax needs more at one-sided p <= 0.05; the reverse at p <= 0.05 "
                                      "contradicts",
                            source="ours: conventional level 0.05",
                            primary="exact permutation test stratified by cell, cap-limited seeds read in the "
                                    "claim's disfavour",
                            dimensions=())),
    Claim(id="sec71-softmax-shift-size", ref="Sec. 7.1",
          analyses=("leave one seed out", "F1 target", "threshold rule", "tolerance"),
          statement="The softmax shift of D_K* is consistent with the extra log m factor of the softmax construction",
          kind=Kind.EMPIRICAL, tier=Tier.FULL, check=_check_softmax_shift_size, role="result",
          replays=("sec71-softmax", "sec6-grid"),
          notes="Full tier (sec71-softmax full vs sec6-grid full, same cells). 'Consistent with the extra log m' read "
                "as two parts, each by one standard (inside passes, wholly outside fails, else inconclusive): (1) the "
                "size: in every cell the grid range of the shift D_K*(softmax) / D_K*(max) (D_K* intervals (last "
                "failing, first passing]) lies inside [1, ln m] (the construction's extra factor, constants unknown); "
                "(2) the growth: an extra log m factor makes the shift grow like ln m, so along d_model = 32 (m = 64, "
                "128, 256) the exact range of the least-squares exponent b of shift ~ (ln m)^b over the cells' shift "
                "ranges must lie inside [0.5, 1.5] (closer to 1 than to no growth or to (ln m)^2). A band on the size "
                "alone passed a shift that does not grow with m. Measured: first passing shifts 2.67, 2.0, 2.0 along "
                "d_model = 32; growth range about [-3.5, 1.05]: ln m spans a factor 1.33 only, so the sweep cannot "
                "tell growth from none: inconclusive (deciding needs softmax runs over a much wider range of m).",
          standard=Standard("rate", "per common cell the grid range of D_K*(softmax) / D_K*(max), and the exponent "
                                    "b of shift ~ (ln m)^b along d_model = 32",
                            tolerance="every cell's range inside [1, ln m] and the exact range of b inside [0.5, "
                                      "1.5]; either wholly outside contradicts",
                            source="ours: the construction's extra ln m with unknown constants; b closer to 1 than "
                                   "to 0 or 2",
                            primary="exact grid range of the least-squares exponent over the cells' shift ranges",
                            dimensions=("max-model seeds", "points compared"), alternative=("softmax_no_harder", "holds-empirically"))),
    Claim(id="fig5-softmax-multihead-advantage-quick", ref="Figure 5",
          statement="Analogue at m <= 64, cap 24000: with softmax, at a fixed D_K several heads beat one head when "
                    "m >> d_model",
          kind=Kind.QUALITATIVE, tier=Tier.QUICK, check=_check_softmax_multihead_quick, role="result",
          notes="Quick tier: the (64,16) cell of sec71-softmax quick (h in {1,4}, D_K in {8,...,64}, 3 seeds, cap "
                "24000). Decision rule of sec61-multihead-advantage-quick, the comparison standard "
                "(standards.comparison): per cell with m/d_model >= 4, each (h > 1, D_K) against h = 1 at the same "
                "D_K, the t-interval of the per-seed F1 gap at one-sided level 0.05 / k (k comparisons in the cell, "
                "Bonferroni); a cell holds when some interval lies inside [0.1, inf), fails when every one lies "
                "wholly below 0.1; every cell must hold, one failing cell contradicts, else inconclusive. Chance of "
                "passing under the null (no multi-head effect): <= 5% per cell (Bonferroni, paired t model). No "
                "planted alternative is declared for the quick analogue; under the no_head_effect plant the rule "
                "contradicts.",
          standard=dataclasses.replace(MULTIHEAD_QUICK_STANDARD,
                                       estimand=MULTIHEAD_QUICK_STANDARD.estimand.replace("sec6-grid quick",
                                                                                          "sec71-softmax quick"))),
    Claim(id="fig5-softmax-multihead-advantage", ref="Figure 5",
          analyses=("leave one seed out", "F1 target", "threshold rule", "test level"),
          statement="With softmax, multi-head attention still reaches F1 0.99 at a smaller D_K than one head when "
                    "m >> d_model",
          kind=Kind.QUALITATIVE, tier=Tier.FULL, check=_check_softmax_multihead, role="result",
          replays=("sec71-softmax",),
          notes="Full tier. Compressed cells: m/d_model >= 4 (all of the paper's panels except (64, 32)). Per cell, an "
                "exact interval for the shift of the per-seed thresholds of h = 1 over those of the best h > 1, in "
                "ladder rungs (the two-sample permutation test inverted over whole-rung shifts, each end at one-sided "
                "0.05 to hold (every cell must pass: an intersection-union test) and 0.05 / #cells to fail (any cell "
                "may), each end read in its own disfavour: a seed known only as an upper bound at its lower "
                "bound for one end, a seed that never passes beyond the grid for one end and +inf for the other). "
                "Holds when every cell's interval lies inside [1, inf) (one head needs at least one rung more), "
                "contradicted when some cell's lies wholly at or below 0, inconclusive otherwise. With 3 seeds per "
                "group the exact test's smallest one-sided p-value is 1/20 = 0.05: at 0.05 every cell's interval "
                "lies inside [1, inf) (5, 4 and 4 rungs up), so the declared analysis holds; leaving a seed out (2 "
                "against 3: smallest p 1/10) or the level x 1/5 cannot decide, so the verdict is inconclusive, "
                "leaning holds (18 of 30); deciding robustly needs more seeds. (The first rule passed on the central "
                "thresholds alone, with no test; the second split the pass side by Bonferroni too, which an "
                "independent re-check of 2026-11-28 showed an all-cells statement does not need.) Multiverse: cap-limited cells, "
                "each seed left out, F1 target, threshold rule, test level.",
          standard=Standard("comparison", "per compressed softmax cell (m / d_model >= 4), the shift in ladder rungs "
                                          "of the per-seed App. A.2 thresholds of h = 1 over those of the best h > 1",
                            tolerance="every cell's interval inside [1, inf) rung (h = 1 needs the larger D_K) holds; "
                                      "some cell's wholly at or below 0 contradicts; else inconclusive",
                            source="ours: one rung is the ladder's resolution; level 0.05 per cell to hold "
                                   "(intersection-union), Bonferroni over the cells to fail",
                            primary="exact interval of the shift from the two-sample permutation test inverted over "
                                    "whole-rung shifts, each end at one-sided 0.05 to hold and 0.05 / #cells to "
                                    "fail, each end read in its own "
                                    "disfavour for cap-limited and never-passing seeds",
                            dimensions=("cap-limited cells",), alternative=("no_head_effect", "holds-empirically"))),
    Claim(id="fig5-softmax-no-advantage-uncompressed", ref="Figure 5",
          analyses=("leave one seed out", "F1 target", "threshold rule", "tolerance", "test level"),
          statement="With softmax there is no multi-head advantage at (m, d_model) = (64, 32), the exception in "
                    "Figure 5",
          kind=Kind.QUALITATIVE, tier=Tier.FULL, check=_check_softmax_uncompressed, role="result",
          replays=("sec71-softmax",),
          notes="Full tier (sec71-softmax full, 3 seeds). 'No advantage' read as one head needing at most one ladder "
                "rung more than the best h > 1. An exact interval for the shift of the per-seed thresholds of h = 1 "
                "over those of the best h > 1, in ladder rungs (the two-sample permutation test inverted over "
                "whole-rung shifts, each end at one-sided 0.05, each end read in its own disfavour for cap-limited "
                "and never-passing seeds). Holds when the interval lies inside (-inf, 1], contradicted when it lies "
                "wholly above 1, inconclusive otherwise. With 3 seeds against 3 the exact test's smallest one-sided "
                "p-value is 1/20 = 0.05, exactly the level: an interval can close only when every seed agrees, and "
                "not at all with a seed left out (2 against 2: 1/6) or at a fifth of the level. (The first rule "
                "passed on the central thresholds alone, with no test.)",
          standard=Standard("comparison", "the shift in ladder rungs of the per-seed App. A.2 thresholds of h = 1 "
                                          "over those of the best h > 1 in the softmax cell (64, 32)",
                            tolerance="interval inside (-inf, 1] rung holds; wholly above 1 contradicts; else "
                                      "inconclusive",
                            source="ours: one rung is the ladder's resolution; level 0.05, Bonferroni over the cells "
                                   "(one cell)",
                            primary="exact interval of the shift from the two-sample permutation test inverted over "
                                    "whole-rung shifts, each end at one-sided 0.05, each end read in its own "
                                    "disfavour for cap-limited and never-passing seeds",
                            dimensions=(), alternative=("single_head_fails", "holds-empirically"))),
)
