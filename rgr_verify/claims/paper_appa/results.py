"""App. A.2 (result details): Table 1, Table 2 and Figure 10 on the Sec. 6 base grid (``sec6-grid`` full).

Per-head widths at D_K* (Table 1), the training-step cutoffs (Table 2, also their coverage of the Sec. 6.1
configurations, symbolic) and the head-count fit against compression (Figure 10).
"""

from __future__ import annotations

import math

import numpy as np

from ...analysis.capacity import fit_affine, threshold
from ...analysis.fits import DKInterval, slope_range_affine
from ..base import CheckContext, Claim, Kind, Stated, Status, Tier, Verdict
from ..standards import (R2_HALF_WIDTH, STATED_CONSTANT_FACTOR, TOLERANCE_REASONS, Standard, conjunction, decide, decide_interval,
                         factor_name, failing, holding, undecided)
from ..tools.measure import adaptive_search
from ..tools.measure import LOADER_FREE, cached_full_grid, memo, within_factor
from ..tools.multiverse import DIMENSIONS, multiverse_status, significance, tolerance
from ..symbolic import exhaustive_verdict
from ..tools import (
    BASE_GRID,
    DIAGONAL,
    EXTRA,
    GRID_FULL_NOTES,
    TABLE1,
    cap_table,
    cell_rows,
    laws_block,
    reported_only,
    permutation_cells,
    runs_by_config,
    sampler_rates,
    sweep_records,
    symbolic_claim,
    threshold_table,
)
from .caps import doubled_cap_cells

__all__ = ["CLAIMS", "ORDER"]

ORDER = 105


def intercept_range_affine(x, low, high) -> tuple[float, float]:
    """Exact range of the ordinary least-squares intercept of y on x, sum (1/n - xbar (x_i - xbar) / Sxx) y_i, when
    each y_i may lie anywhere in [low_i, high_i] (the sibling of :func:`rgr_verify.analysis.fits.slope_range_affine`)."""
    x, lo, hi = (np.asarray(v, dtype=float) for v in (x, low, high))
    c = 1.0 / x.size - x.mean() * (x - x.mean()) / float(np.sum((x - x.mean()) ** 2))
    return float(np.sum(np.minimum(c * lo, c * hi))), float(np.sum(np.maximum(c * lo, c * hi)))


def r2_outer_range_affine(x, low, high, max_vertices=1 << 16) -> tuple[float, float]:
    """An interval holding every R^2 of the affine least-squares fit of y on x with each y_i anywhere in
    [low_i, high_i]: [1 - max SS_res / min SS_tot, 1], clipped at 0. SS_res is a convex quadratic in y (its maximum
    over the box is at a vertex, enumerated over the coordinates whose interval is not a point); min SS_tot =
    min over c of sum dist(c, [low_i, high_i])^2, convex and piecewise quadratic in c (exact at its breakpoints and
    the stationary points of its pieces). The lower end is 0 when the box holds a constant y or has too many
    vertices to enumerate."""
    x, lo, hi = (np.asarray(v, dtype=float) for v in (x, low, high))
    X = np.column_stack([np.ones(x.size), x])
    M = np.eye(x.size) - X @ np.linalg.pinv(X)
    free = np.flatnonzero(hi > lo)
    if 2 ** free.size > max_vertices:
        return 0.0, 1.0
    best = 0.0
    for bits in range(2 ** free.size):
        y = lo.copy()
        for j, i in enumerate(free):
            if bits >> j & 1:
                y[i] = hi[i]
        best = max(best, float(y @ M @ y))

    def sstot(c):
        return float(np.sum(np.maximum(lo - c, 0.0) ** 2 + np.maximum(c - hi, 0.0) ** 2))

    cands = set(np.concatenate([lo, hi]).tolist())
    edges = sorted(cands)
    for a_, b_ in zip(edges[:-1], edges[1:]):
        mid = (a_ + b_) / 2
        above, below = hi < mid, lo > mid
        if above.any() or below.any():
            cands.add(min(max((hi[above].sum() + lo[below].sum()) / (above.sum() + below.sum()), a_), b_))
    tot = min(sstot(c) for c in cands)
    return (0.0 if tot <= 0 else max(0.0, 1.0 - best / tot)), 1.0


def _fig10_measure(ctx):
    """The Fig. 10 fit and everything reported beside it; independent of the stated values (cached per process)."""
    got, why = cached_full_grid(ctx)
    if got is None:
        return None
    recs, cells, ths, ivs, caps, _ = got
    known = sorted(k for k, th in ths.items() if th.h_star is not None)
    if len(known) < 3:
        return {"known": known}
    x = [m / d for m, d in known]
    fit = fit_affine(x, [ths[k].h_star for k in known])
    s_lo, s_hi = slope_range_affine(x, [ths[k].h_low for k in known], [ths[k].h_high for k in known])
    i_rng = intercept_range_affine(x, [ths[k].h_low for k in known], [ths[k].h_high for k in known])
    r2_rng = r2_outer_range_affine(x, [ths[k].h_low for k in known], [ths[k].h_high for k in known])
    # Competing laws on log h*: h* is tested on a doubling ladder, so it stands for (h_low / sqrt2, h_high * sqrt2].
    hivs = {k: DKInterval(ths[k].h_low / math.sqrt(2), ths[k].h_high * math.sqrt(2), "interval") for k in known}
    return {"known": known, "fit": fit, "range": (s_lo, s_hi), "intercept range": i_rng, "r2 range": r2_rng, "laws": reported_only(ctx, lambda: laws_block(known, hivs)),
            "rates": reported_only(ctx, lambda: sampler_rates(ctx, [k[0] for k in known]))}


def _check_fig10(ctx, slope_factor=STATED_CONSTANT_FACTOR, intercept_factor=STATED_CONSTANT_FACTOR,
                r2_tol=R2_HALF_WIDTH):
    slope, intercept, r2 = ctx.expect("slope"), ctx.expect("intercept"), ctx.expect("r2")
    # the three tolerances are ours: the multiverse varies them
    slope_factor, intercept_factor = tolerance(slope_factor, kind="factor"), tolerance(intercept_factor, kind="factor")
    r2_tol = tolerance(r2_tol)
    got, why = cached_full_grid(ctx)
    if got is None:
        return Verdict.not_run(why)
    recs, cells, ths, ivs, caps, _ = got
    meas = memo("fig10", ctx, lambda: _fig10_measure(ctx), free_of=LOADER_FREE)
    known = meas["known"]
    if len(known) < 3:
        return Verdict(Status.INCONCLUSIVE, measured_value=threshold_table(cells, ths), details="fewer than 3 cells with h*",
                       evidence_level="fitted")
    fit, (s_lo, s_hi) = meas["fit"], meas["range"]
    lo_b, hi_b = slope / slope_factor, slope * slope_factor
    # One standard (issue 37): each quantity as the interval the grid allows (every h* anywhere in its paired-t pool)
    # against its band: slope and intercept by their exact ranges, R^2 by an outer interval [lower bound, 1]; all
    # inside holds, any wholly outside contradicts, else inconclusive. The point fit is reported, never decisive.
    # The intercept keeps its sign: the band is [i / f, i f] ordered, so it never holds an intercept of the other sign.
    i_band = tuple(sorted((intercept / intercept_factor, intercept * intercept_factor)))
    judged = {"slope": decide_interval((s_lo, s_hi), (lo_b, hi_b)),
              "intercept": decide_interval(meas["intercept range"], i_band),
              "R2": decide_interval(meas["r2 range"], (r2 - r2_tol, r2 + r2_tol))}
    status = conjunction([st for st, _ in judged.values()])
    arts = ()
    if ctx.out_dir is not None:
        from ...analysis.plots import plot_h_star

        p = plot_h_star([(m / d, ths[(m, d)]) for (m, d) in known], ctx.out_dir / "fig10-hstar.png",
                        title="h* against m / d_model (Fig. 10)", xlabel="m / d_model", fit=fit)
        arts = (str(p.relative_to(ctx.out_dir)),)
    return Verdict(status,
                   paper_value=f"h* = {slope} m/d_model {'-' if intercept < 0 else '+'} {abs(intercept)}, R2 = {r2} "
                               f"(tolerance: the grid intervals of the slope, the intercept and R2 inside: slope "
                               f"within a factor {slope_factor:.3g}, intercept within a factor {intercept_factor:.3g} "
                               f"with its sign, R2 within {r2_tol:g}; any wholly outside contradicts, merely meeting "
                               f"is inconclusive)",
                   measured_value={"slope": fit.slope, "intercept": fit.intercept, "R2": fit.r2,
                                   "slope range over the h* intervals (paired-t pools)": [s_lo, s_hi],
                                   "intervals against their bands (decisive)": {
                                       k: {"interval": [round(v, 4) for v in r["interval"]],
                                           "band": [round(v, 4) for v in r["band"]], "status": st.value}
                                       for k, (st, r) in judged.items()},
                                   "competing laws on log h* (m / d_model, m ln m / d_model, free)": meas["laws"],
                                   "cells": cell_rows(known, cells, ths, ivs, caps, meas["rates"])},
                   witness=None if status is Status.HOLDS_EMPIRICALLY else {"slope": fit.slope,
                                                                           "intercept": fit.intercept, "R2": fit.r2},
                   artefacts=arts,
                   evidence=f"full sweep ({len(recs)} runs); scipy.stats.linregress, its exact range over the h* "
                            "intervals; interval regression of log h* per law", evidence_level="fitted")


def _dk_range(th, iv) -> tuple[float, float]:
    """The per-head width at the threshold that the grid allows: D_K^* anywhere in its interval, h^* anywhere in its
    paired-t pool: [low_D / h_high, high_D / h_low]."""
    return iv.low / th.h_high, iv.high / th.h_low


def _check_table1(ctx, factor=STATED_CONSTANT_FACTOR):
    lo, hi, median = ctx.expect("lo"), ctx.expect("hi"), ctx.expect("median")
    factor = tolerance(factor, kind="factor")  # ours: the package's factor for a stated constant
    got, why = cached_full_grid(ctx)
    if got is None:
        return Verdict.not_run(why)
    recs, cells, ths, ivs, caps, _ = got
    widths = {f"({m},{d})": ths[(m, d)].d_k_star for (m, d) in sorted(cells) if ths[(m, d)].d_k_star is not None}
    if not widths:
        return Verdict(Status.INCONCLUSIVE, measured_value=threshold_table(cells, ths), details="no cell has a D_K*",
                       evidence_level="experiment")
    vals = np.array(list(widths.values()))
    med, v_lo, v_hi = float(np.median(vals)), float(vals.min()), float(vals.max())
    # One standard (issue 37): each statistic as the exact interval the grid allows (every d_k* anywhere in its grid
    # range [D_K* low / h_high, D_K* high / h_low], as table1-per-head-width-cell-by-cell reads it; min, max and
    # median are monotone in each cell, so their ranges are the statistic of the lows and of the highs) against its
    # band: inside holds, wholly outside contradicts, merely meeting is inconclusive; the point values are reported.
    ranges = {f"({k[0]},{k[1]})": _dk_range(ths[k], ivs[k]) for k in sorted(cells)
              if ths[k].h_star is not None and ths[k].d_k_star is not None}
    lows, highs = np.array([r[0] for r in ranges.values()]), np.array([r[1] for r in ranges.values()])
    stats = {"smallest d_k* within the factor of the stated lower end": ((lows.min(), highs.min()), lo),
             "largest d_k* within the factor of the stated upper end": ((lows.max(), highs.max()), hi),
             "median within the factor of the stated median": ((np.median(lows), np.median(highs)), median)}
    judged = {name: decide_interval(iv, (x / factor, x * factor)) for name, (iv, x) in stats.items()}
    per_cell = {k: decide_interval(r, (lo / factor, hi * factor))[0] for k, r in ranges.items()}
    outside = {k: [round(v, 2) for v in ranges[k]] for k, st in per_cell.items() if failing(st)}
    checks = {name: {"interval": [round(float(v), 2) for v in res["interval"]],
                     "band": [round(v, 2) for v in res["band"]], "status": st.value}
              for name, (st, res) in judged.items()}
    checks["no d_k* outside [lower / factor, upper * factor]"] = {
        "cells wholly outside": sorted(outside), "cells meeting without lying inside":
            sorted(k for k, st in per_cell.items() if undecided(st)),
        "status": conjunction(per_cell.values()).value}
    status = conjunction([st for st, _ in judged.values()] + list(per_cell.values()))
    return Verdict(status,
                   paper_value=f"per-head width at D_K*: d_k* in [{lo}, {hi}], median {median} (tolerance: the "
                               f"grid intervals of the smallest, the largest and the median d_k* each inside a "
                               f"factor {factor:.3g} of the stated lower end, upper end and median, and every cell's "
                               f"grid range inside [lower / {factor:.3g}, {factor:.3g} upper]; any wholly outside "
                               "contradicts, merely meeting is inconclusive)",
                   measured_value={"d_k*": widths, "median": med, "smallest": v_lo, "largest": v_hi, "rules": checks,
                                   "grid range of d_k* (D_K* interval / h* pool)":
                                       {k: [round(v, 2) for v in r] for k, r in ranges.items()}},
                   witness=(outside or {k: v for k, v in checks.items() if failing(v["status"])} or None)
                   if failing(status) else None,
                   evidence=f"full sweep ({len(recs)} runs)", evidence_level="experiment")


def _check_table1_cells(ctx, factor=2.0):
    factor = tolerance(factor, kind="factor")  # ours: a factor 2 must be told apart
    got, why = cached_full_grid(ctx)
    if got is None:
        return Verdict.not_run(why)
    recs, cells, ths, ivs, caps, _ = got
    rows, agree, far = {}, [], []
    table = ctx.expect("table1")
    for k, paper in sorted(table.items()):
        if k not in cells or ths[k].h_star is None:
            rows[f"({k[0]},{k[1]})"] = {"paper d_k": paper, "ours": None, "verdict": "no threshold"}
            continue
        lo, hi = _dk_range(ths[k], ivs[k])
        # one standard (issue 37): the grid range inside [paper / factor, factor x paper] agrees, wholly outside it
        # disagrees, a range that merely meets the band (e.g. one wider than factor^2, which holds the paper's value
        # and its double alike) leaves the cell undecided
        cell, _ = decide_interval((lo, hi), (paper / factor, paper * factor))
        rows[f"({k[0]},{k[1]})"] = {"paper d_k": paper, "ours (D_K* / h*)": ths[k].d_k_star,
                                    "grid range": [round(lo, 2), round(hi, 2)],
                                    "verdict": (f"inside [d_k / {factor:g}, {factor:g} d_k]" if holding(cell) else
                                                f"outside [d_k / {factor:g}, {factor:g} d_k]" if failing(cell) else
                                                "undecided (the range meets the band without lying inside it)")}
        if not undecided(cell):
            (agree if holding(cell) else far).append(k)
    n = len(agree) + len(far)
    # at least half of Table 1's cells must decide; then no deciding cell outside holds, more than half outside fails
    status = decide(2 * n >= len(table) and not far, 2 * n >= len(table) and len(far) > n / 2)
    return Verdict(status,
                   paper_value=f"Table 1's per-head widths, cell by cell (tolerance: a cell decides when our grid "
                               f"range lies inside [d_k / {factor:g}, {factor:g} d_k] (agrees) or wholly outside it "
                               f"(disagrees); holds when no deciding cell disagrees, contradicted when more than half "
                               f"disagree; inconclusive otherwise or when fewer than half of Table 1's cells decide)",
                   measured_value={"cells": rows, "agree": len(agree), "outside": len(far), "decided cells": n},
                   witness=[f"({k[0]},{k[1]})" for k in far] or None,
                   evidence=f"full sweep ({len(recs)} runs); grid range = (last failing D_K, first passing D_K] over "
                            "the h* paired-t pool", evidence_level="experiment")


def adaptive_cell(results, pool) -> dict:
    """One (m, d_model) cell of the adaptive search: its smallest exact D_K* over h, the pool (every h whose exact
    D_K* is within the factor ``pool`` of it) and its widths; ``resolved`` False when some h not searched to the end
    could still enter the pool (its D_K* may lie at or below ``pool`` x the smallest)."""
    exact = {r.h: r.dk_star for r in results if r.status == "exact"}
    if not exact:
        return {"resolved": False, "why": "no head count has an exact D_K*"}
    best = min(exact.values())
    open_h = [r.h for r in results if r.status in ("bracket-only", "unknown", "non-monotone") and r.low < pool * best]
    members = {h: D for h, D in exact.items() if D <= pool * best}
    widths = sorted(D / h for h, D in members.items())
    means = {r.h: r.mean_at_star for r in results if r.h in members}
    # App. A.2's tie-break: the smallest D_K*, then the larger mean F1 there, then fewer heads
    h_star = min(members, key=lambda h: (members[h], -(means[h] if means[h] is not None else -1.0), h))
    return {"resolved": not open_h, "why": f"h = {open_h} not searched to the end" if open_h else "",
            "D_K*": best, "h*": h_star, "d_k* (D_K* / h*)": best / h_star,
            "pool {h: D_K*}": members, "width range": [widths[0], widths[-1]]}


def _check_table1_adaptive(ctx, factor=2.0, pool=1.1):
    table = ctx.expect("table1")
    factor = tolerance(factor, kind="factor")  # ours: a factor 2 must be told apart
    got = adaptive_search(ctx, sorted(table))  # a left-out seed (multiverse) leaves its runs and the search's seeds
    if got is None:
        return Verdict.not_run("no committed adaptive-search evidence of sec6-grid [full] (made by `rgr-verify "
                               "adaptive sec6-grid --tier full`, added by `rgr-verify evidence add --adaptive`)")
    results, used = got
    rows, agree, far, exact = {}, [], [], []
    for k, paper in sorted(table.items()):
        row = {"paper d_k": paper, **adaptive_cell([r for r in results if (r.cell.m, r.cell.d_model) == k], pool)}
        rows[f"({k[0]},{k[1]})"] = row
        if not row["resolved"]:
            row["verdict"] = "not resolved"
            continue
        lo, hi = row["width range"]
        # one standard (issue 37): the width range inside [d_k / factor, factor x d_k] agrees, wholly outside
        # disagrees, merely meeting it leaves the resolved cell undecided
        cell, _ = decide_interval((lo, hi), (paper / factor, paper * factor))
        row["verdict"] = (("equal" if lo <= paper <= hi else f"inside [d_k / {factor:g}, {factor:g} d_k]")
                          if holding(cell) else f"outside [d_k / {factor:g}, {factor:g} d_k]" if failing(cell)
                          else "undecided (the width range meets the band without lying inside it)")
        if not undecided(cell):
            (agree if holding(cell) else far).append(k)
        if lo <= paper <= hi:
            exact.append(k)
    n = len(agree) + len(far)
    status = decide(2 * n >= len(table) and not far, 2 * n >= len(table) and len(far) > n / 2)
    # the multiverse: the width range of the pool, or the paper's point d_k* = D_K* / h* (App. A.2's tie-break), a
    # degenerate interval judged by the same rule over the resolved cells
    resolved = [k for k in sorted(table) if rows[f"({k[0]},{k[1]})"]["resolved"]]
    point_far = [k for k in resolved if failing(decide_interval(
        (rows[f"({k[0]},{k[1]})"]["d_k* (D_K* / h*)"],) * 2, (table[k] / factor, table[k] * factor))[0])]
    n_point = len(resolved)
    point_status = decide(2 * n_point >= len(table) and not point_far,
                          2 * n_point >= len(table) and len(point_far) > n_point / 2)
    status, robustness = multiverse_status([{"choices": {"points compared": c}, "estimate": None, "interval": None,
                                             "status": st} for c, st in zip(DIMENSIONS["points compared"],
                                                                             (status, point_status))])
    runs = sum(r.runs_probed for r in results)
    return Verdict(status,
                   paper_value=f"Table 1's per-head widths, cell by cell at per-head resolution (tolerance: as "
                               f"table1-per-head-width-cell-by-cell, a resolved cell decides when our width range lies "
                               f"inside [d_k / {factor:g}, {factor:g} d_k] (agrees) or wholly outside it (disagrees); "
                               f"holds when no deciding cell disagrees, contradicted when more than half disagree; "
                               f"inconclusive otherwise or when fewer than half of Table 1's {len(table)} cells "
                               f"decide)",
                   measured_value={"cells": rows, "resolved": len(resolved), "deciding": n,
                                   "inside the band": len(agree),
                                   "equal (paper d_k inside our width range)": len(exact), "outside": len(far),
                                   "outside the factor of the point d_k* (D_K* / h*)":
                                       [f"({k[0]},{k[1]})" for k in point_far]},
                   params={"robustness": robustness, "factor": factor},
                   witness=[f"({k[0]},{k[1]})" for k in far] or None,
                   evidence=f"adaptive D_K* search (bracket scan on the ladder, bisect on multiples of h) replayed "
                            f"from the committed evidence ({runs} runs probed: the ladder's and "
                            f"{sum(m.runs for m in used if m.adaptive)} between its rungs); pool = every h whose exact "
                            f"D_K* is within {pool:g}x the cell's smallest", evidence_level="experiment")


def _check_table2_caps(ctx):
    rows, below90, read = {}, [], {}
    for preset in ("sec6-grid", "sec6-diagonal", "table2-cap2x"):
        read[preset], why = sweep_records(preset, "full", ctx)
        if read[preset] is None:
            return Verdict.not_run(why)
    n_runs = sum(len(v) for v in read.values())
    for preset in ("sec6-grid", "sec6-diagonal"):
        recs = read[preset]
        cells, runs = permutation_cells(recs), runs_by_config(recs)
        ths = {k: threshold(v) for k, v in cells.items()}
        for k, cap in cap_table(cells, ths, runs).items():
            if ths[k].central is None:
                continue
            name = f"({k[0]},{k[1]})"
            if name in rows:
                continue  # a cell of both presets ((128,16), (256,32), (512,64)): the base grid's record wins
            rows[name] = {"preset": preset, "h*": ths[k].h_star, "D_K*": ths[k].central, **cap}
            if cap["below 90%"]:
                below90.append(name)
    if not rows:
        return Verdict(Status.INCONCLUSIVE, details="no cell has a D_K*", evidence_level="experiment")
    moved = []
    for name, cell in doubled_cap_cells(read["sec6-grid"], read["table2-cap2x"]).items():
        if name not in rows or cell["kind"] == "not covered":
            continue  # the extrapolation stands
        rows[name]["with a doubled cap"] = cell["kind"]
        rows[name]["could move down with a longer cap"] = cell["kind"] != "stays"
        if cell["kind"] == "moves":
            moved.append(name)
    movable = [k for k, v in rows.items() if v["could move down with a longer cap"]]
    status = decide(not movable, moved)  # every cell that moves is movable: never both
    return Verdict(status,
                   paper_value="the Table 2 step caps do not set the measured thresholds: no cell's D_K* could move "
                               "down with a longer cap",
                   measured_value={"cells": rows, "cells whose threshold runs stop early < 90%": below90,
                                   "cells whose D_K* could move down with a longer cap": movable,
                                   "cells whose D_K* moves down with a doubled cap": moved},
                   witness=moved or movable or None,
                   evidence=f"full sweeps ({n_runs} runs, sec6-grid, sec6-diagonal and table2-cap2x); validation "
                            "histories of the runs one ladder step below D_K*, and those runs retrained with twice "
                            "the cap where a CPU could", evidence_level="experiment")


# Table 2 as printed: the step cutoff of each listed (m, d_model) row, and the caption's default for the others.
TABLE2_CUTOFFS = {(64, 16): 20000, (64, 32): 20000, (64, 64): 20000, (128, 16): 20000, (128, 32): 20000,
                  (128, 64): 20000, (256, 32): 20000, (256, 64): 20000, (256, 16): 30000, (512, 32): 20000,
                  (512, 64): 20000, (512, 16): 80000, (1024, 128): 80000, (2048, 256): 80000, (4096, 512): 200000}
TABLE2_DEFAULT = 20000


def table2_cutoff(config, listed=None, default=TABLE2_DEFAULT):
    """(cutoff, source) Table 2 assigns to ``config`` = (m, d_model): its row when listed, else the caption's default;
    (None, "none") when neither applies."""
    listed = TABLE2_CUTOFFS if listed is None else listed
    if config in listed:
        return listed[config], "row"
    return (default, "caption default") if default is not None else (None, "none")


def table2_coverage_verdict(configs, *, listed=None, default=TABLE2_DEFAULT) -> Verdict:
    """Every configuration gets a cutoff from Table 2 (its row or the caption's default): exhaustive over ``configs``."""
    got = {c: table2_cutoff(c, listed, default) for c in configs}
    unlisted = {f"({m},{d})": got[(m, d)][0] for (m, d) in configs if got[(m, d)][1] != "row"}
    larger = {f"({m},{d})": {"cutoff": cut, "listed rows with smaller m and at least its compression m/d_model and a "
                                              "larger cutoff": [f"({a},{b})" for (a, b), c in sorted((listed or
                                                                TABLE2_CUTOFFS).items())
                                                                if a < m and a / b >= m / d and c > cut]}
              for (m, d), (cut, src) in got.items() if src == "caption default" and cut is not None}
    v = exhaustive_verdict(lambda c: table2_cutoff((c["m"], c["d_model"]), listed, default)[0] is not None,
                           ({"m": a, "d_model": b} for a, b in configs),
                           domain="every (m, d_model) of Sec. 6.1 (base grid, diagonal, r = 32 points)",
                           paper_value="Table 2 gives the training-step cutoff of every configuration: a listed row, "
                                       f"else the caption's default ({default} steps)",
                           details="Sec. 6.1 says per-config step limits are in App. A.2. Reported, not decided: an "
                                   "unlisted configuration gets the default even where a smaller listed problem of the "
                                   "same compression got an extended budget (the caption's 'extended budgets for "
                                   "larger problem sizes' is not a rule that can be checked row by row).")
    import dataclasses

    return dataclasses.replace(v, measured_value={"result": v.measured_value, "unlisted configurations (default "
                                                                              "applies)": unlisted,
                                                  "default below a smaller listed problem's budget (reported)": {
                                                      k: x for k, x in larger.items()
                                                      if x["listed rows with smaller m and at least its compression "
                                                           "m/d_model and a larger cutoff"]}})


def _table2_coverage(ctx: CheckContext) -> Verdict:
    return table2_coverage_verdict(sorted(BASE_GRID | set(DIAGONAL) | set(EXTRA)), listed=ctx.expect("table2"),
                                   default=ctx.expect("default"))


# The factor for a stated constant (standards.tolerances) as the notes and standards write it, and the bands of
# table1-per-head-width-at-threshold built from it.
_F = factor_name(STATED_CONSTANT_FACTOR)


def _band(x: float) -> str:
    """[x / factor, x factor] rounded, as the notes write a band of the stated constant x."""
    return f"[{x / STATED_CONSTANT_FACTOR:.2f}, {x * STATED_CONSTANT_FACTOR:.2f}]"


_TABLE1_STATED = Stated(TABLE1, "table", "Table 1: d_k* = D_K*/h* per base-grid cell (m, d_model)")
_COVERAGE_ONLY = ("the check asks only whether every configuration gets a cutoff (its row or the default): any "
                  "cutoffs give one, so no wrong value can be told from the stated one")

CLAIMS = (
    Claim(id="table1-per-head-width-at-threshold", ref="Table 1",
          analyses=("leave one seed out", "readings of App. A.1", "F1 target", "threshold rule", "tolerance"),
          statement="Per-head width at D_K* is modest: d_k* in [{lo}, {hi}] on the base grid, median {median}",
          kind=Kind.EMPIRICAL, tier=Tier.FULL, check=_check_table1, role="detail",
          replays=("sec6-grid",),
          expects={"lo": Stated(5, "value", "Sec. 6.1 'At D_K*, per-head widths are small: d_k* in [5, 24]'"),
                   "hi": Stated(24, "value", "Sec. 6.1 'd_k* in [5, 24] on the base grid'"),
                   "median": Stated(11, "value", "Sec. 6.1 '(median 11)'")},
          notes="Full tier. d_k* = D_K* / h*. Tolerance: the smallest, the largest and the median d_k* each within "
                f"a factor {_F} of 5, 24 and 11 (standards.tolerances.STATED_CONSTANT_FACTOR: closer, in log, to the "
                f"stated value than to its double or half), and no d_k* outside [5/{_F}, 24 {_F}]. One standard "
                "(issue 37): each statistic is judged as the "
                "exact interval the grid allows (every cell's d_k* anywhere in its grid range [D_K* low / h_high, "
                "D_K* high / h_low], the range of table1-per-head-width-cell-by-cell; min, max and median of the "
                f"lows and of the highs), each cell's range against [5/{_F}, 24 {_F}]: all inside holds, any wholly "
                "outside contradicts, merely meeting is inconclusive. Until 2026-11-28 the point values decided "
                "(holds or contradicted, never inconclusive). On the committed evidence the points are smallest 4, "
                "largest 24, median 8 (all inside their bands), but the grid intervals are smallest [0, 4] against "
                f"{_band(5)}, largest [12, 24] against {_band(24)}, median [5, 12] against {_band(11)}, and "
                f"the ranges of (64,16) [2, 12] and (64,64) [0, 4] meet [{5 / STATED_CONSTANT_FACTOR:.2f}, "
                f"{24 * STATED_CONSTANT_FACTOR:.2f}]: inconclusive "
                "(sec6-sym-table1-median shows Table 1's own median is not 11 either).",
          standard=Standard("band", "d_k* = D_K* / h* over the base-grid cells: smallest, largest and median",
                            tolerance="the grid intervals of the smallest, largest and median d_k* inside a factor "
                                      f"{_F} of 5, 24 and 11, and every cell's grid range inside [5 / {_F}, 24 "
                                      f"{_F}]; any wholly outside contradicts; merely meeting is inconclusive",
                            source="paper: [5, 24], median 11 (Sec. 6.1); ours: "
                                   f"{TOLERANCE_REASONS['STATED_CONSTANT_FACTOR']}",
                            primary="grid intervals of the smallest, largest and median d_k* and of each cell "
                                    "(D_K* interval over the h* paired-t pool), each by decide_interval; point "
                                    "values reported",
                            dimensions=(), alternative=("best_head_everywhere", "holds-empirically"))),
    Claim(id="table1-per-head-width-cell-by-cell", ref="Table 1",
          analyses=("leave one seed out", "readings of App. A.1", "F1 target", "threshold rule", "tolerance"),
          statement="Table 1's per-head key widths d_k* are reproduced cell by cell on the base grid",
          kind=Kind.EMPIRICAL, tier=Tier.FULL, check=_check_table1_cells, role="detail",
          replays=("sec6-grid",), expects={"table1": _TABLE1_STATED},
          notes=GRID_FULL_NOTES + " Per cell, the grid range of our d_k* is [last failing D_K / h_high, first passing D_K "
                "/ h_low] (D_K* interval over the h* paired-t pool). One standard (issue 37, decide_interval): a cell "
                "agrees when its range lies inside [d_k / 2, 2 d_k], disagrees when it lies wholly outside, and is "
                "undecided when it merely meets that band (a range wider than 4x can never lie inside: it holds a value "
                "and its double alike, as under the planted alternative 'heads make no difference', where every range "
                "spans the whole ladder). Holds when no deciding cell disagrees and at least half of Table 1's cells "
                "decide; contradicted when more than half of the deciding cells disagree; inconclusive otherwise. "
                "Until 2026-11-28 a range that reached within a factor 2 of the printed value (overlap) agreed: on the "
                "committed evidence (256,32) [6, 16] against [8, 32] and (256,64) [8, 24] against [12, 48] agreed "
                "then and are undecided now; 7 of 12 cells agree, none disagrees (holds either way).",
          standard=Standard("band", "per Table 1 cell, the grid range of d_k* (D_K* interval over the h* paired-t "
                                    "pool) against the printed d_k",
                            tolerance="per cell, the range inside [d_k / 2, 2 d_k] agrees, wholly outside "
                                      "disagrees, merely meeting it is undecided; no disagreeing cell and at least "
                                      "half of the cells deciding holds; more than half of the deciding cells "
                                      "disagreeing contradicts",
                            source="paper: Table 1; ours: factor 2 and the cut for a deciding cell",
                            primary="grid ranges from App. A.2 thresholds, each judged by decide_interval",
                            dimensions=(), alternative=("best_head_everywhere", "holds-empirically"))),
    Claim(id="table1-per-head-width-adaptive", ref="Table 1",
          statement="Table 1's per-head key widths d_k* are reproduced cell by cell at the resolution of one key "
                    "dimension per head (adaptive D_K* search at paper scale)",
          kind=Kind.EMPIRICAL, tier=Tier.FULL, check=_check_table1_adaptive, role="detail",
          replays=("sec6-grid",), analyses=("leave one seed out", "F1 target", "tolerance"), expects={"table1": _TABLE1_STATED},  # the adaptive runs exist under one reading
          notes="Full tier. The ladder of the base grid cannot express Table 1's widths 5, 7, 9, 11 or 21 (its D_K / h "
                "are 1-2-3 ladder values over powers of 2); the adaptive search (rgr_verify.runs.adaptive: scan the ladder "
                "to the first passing D_K, then bisect on multiples of h, the pass rule mean test F1 >= 0.99 over the "
                "10 seeds) finds D_K*(h) to one key dimension per head, trained at paper scale (Table 2 caps, 10 "
                "seeds) and committed as evidence/sec6-grid-adaptive-full. Per cell: D_K* the smallest exact D_K*(h), "
                "the pool every h within 10% of it (App. A.2's 10% window, without its t-test), the width range "
                "D_K*(h)/h over the pool. A cell is resolved when no head count left unsearched (bracket-only) could "
                "enter the pool. Tolerance and rule are those of table1-per-head-width-cell-by-cell, fixed before any "
                "adaptive run was trained (the pool and the resolution rule were written after the m <= 128 "
                "searches had run), made one standard on 2026-11-28 (issue 37, decide_interval): a resolved cell "
                "agrees when its width range lies inside [d_k / 2, 2 d_k], disagrees when wholly outside, and is "
                "undecided when it merely meets that band (until then a range reaching within a factor 2 of d_k "
                "agreed); holds when no deciding cell disagrees and at least half of the 12 cells decide, contradicted "
                "when more than half of the deciding cells disagree; inconclusive otherwise. The point d_k* = D_K* / "
                "h* (App. A.2's tie-break) is judged by the same rule as a degenerate interval (multiverse). The "
                "bisect assumes pass/fail monotone in D_K between two rungs.",
          standard=Standard("band", "per Table 1 cell, the width range D_K*(h) / h over the head counts within 10% "
                                    "of the smallest exact D_K* (adaptive search)",
                            tolerance="per resolved cell, the width range inside [d_k / 2, 2 d_k] agrees, wholly "
                                      "outside disagrees, merely meeting it is undecided; no disagreeing cell and at "
                                      "least half of the cells deciding holds; more than half of the deciding cells "
                                      "disagreeing contradicts",
                            source="paper: Table 1; ours: factor 2 and the 10% pool",
                            primary="adaptive bisection of D_K*(h) between ladder rungs, committed evidence; each "
                                    "width range judged by decide_interval",
                            dimensions=("points compared",), alternative=("best_head_everywhere", "holds-empirically"))),
    Claim(id="table2-step-caps-sufficient", ref="Table 2",
          analyses=("leave one seed out", "F1 target", "threshold rule", "test level"),
          statement="(Ours: the premise the paper's caps imply) The Table 2 step caps do not set the measured "
                    "thresholds: no cell's D_K* could move down with a longer cap",
          kind=Kind.EMPIRICAL, tier=Tier.FULL, check=_check_table2_caps, role="detail", provenance="ours",
          replays=("sec6-grid", "sec6-diagonal", "table2-cap2x"),
          notes="Full tier (sec6-grid, sec6-diagonal and table2-cap2x full). The paper only says the caps grow with "
                "problem size; we "
                "read the implied premise as 'the thresholds are set by capacity, not by the cap'. A run that passes "
                "without firing early stopping still passes, so a longer cap can only move D_K* down. Per cell: share "
                "of (h*, D_K*) runs that stopped early (reported, flagged < 90%); D_K* could move down when, at the "
                "ladder value just below it, some h has mean test F1 in [0.9, 0.99) and most of its runs would reach "
                "0.99 within a cap twice as long at their current rate (last 5 validation checks against the 5 "
                "before, extrapolated linearly: optimistic for saturating curves). Where the rung below D_K* was "
                "retrained with twice the cap (table2-cap2x: 10 base cells; rule of "
                "table2-doubled-cap-keeps-base-thresholds, fixed before those runs existed), those runs decide the "
                "cell instead: it moves, stays, or stays movable when undecided. Contradicted when a cell moves; "
                "holds when no cell could move; inconclusive otherwise. Before the doubled-cap runs (ledger, to "
                "2026-11-26) it was inconclusive: 10 cells could move by the extrapolation and no run had been "
                "trained past its cap. Why contradicted (ledger): with twice the cap, 5 of the 10 retrained cells "
                "move down a rung ((128,32), (128,64), (256,32), (256,64), (512,64); e.g. (128,32): h = 1 at D_K = 16 "
                "goes from mean F1 0.961 to 0.998, every run stopping early), robust in all 11 analyses; (64,32) "
                "stays; (64,16), (128,16), (256,16) and (512,32) are undecided.",
          slip=("condition-too-weak", "experiment",
                "In 5 of the 10 retrained cells twice the Table 2 cap moves D_K* down a rung, so the caps are too "
                "short there and those thresholds are upper bounds; longer caps repair the protocol, and what this "
                "does to the fitted laws is decided by the claims that fit them."),
          standard=Standard("threshold", "per cell, whether D_K* could move down with a longer cap: the doubled-cap "
                                         "runs where trained, else the extrapolated validation history at the rung "
                                         "below",
                            tolerance="no cell could move; a cell that moves with twice the cap contradicts",
                            source="ours: mean F1 in [0.9, 0.99) extrapolated linearly to twice the cap; the "
                                   "doubled-cap rule of table2-doubled-cap-keeps-base-thresholds",
                            primary="doubled-cap decision where available, else linear extrapolation of the last "
                                    "validation checks",
                            dimensions=(), alternative=("caps_bind", "holds-empirically"))),
    symbolic_claim("table2-sym-coverage", "Table 2", "Table 2 gives a step cutoff for every configuration of "
                   "Sec. 6.1 (a listed row, else the caption's default of {default} steps).", _table2_coverage,
                   role="detail",
                   notes="Exhaustive over the 16 distinct (m, d_model) of Sec. 6.1 (base grid, diagonal, r = 32 points): "
                         "each must get a cutoff from Table 2, its own row or the caption's default. (1024, 32) has no "
                         "row and gets the default 20,000; an earlier version read the caption's default out and "
                         "refuted the statement on that row, which the caption covers. Reported beside the verdict, "
                         "not decided: (1024, 32) at the default is below the 80,000 of the smaller (512, 16) at the "
                         "same compression.",
                   expects={"table2": Stated(TABLE2_CUTOFFS, "table", "Table 2: the step cutoff of each listed "
                                             "(m, d_model)", unmutated=_COVERAGE_ONLY),
                            "default": Stated(TABLE2_DEFAULT, "value", "Table 2's caption: the default cutoff",
                                              unmutated=_COVERAGE_ONLY)}),
    Claim(id="fig10-hstar-linear-in-compression", ref="Figure 10",
          analyses=("leave one seed out", "readings of App. A.1", "F1 target", "threshold rule", "tolerance"),
          statement="h* = {slope} m/d_model - 6.64 (R^2 = {r2})",
          kind=Kind.EMPIRICAL, tier=Tier.FULL, check=_check_fig10, role="result",
          replays=("sec6-grid",),
          expects={"slope": Stated(1.65, "constant", "Sec. 6.1 display (Fig. 10): h* ~ 1.65 m/d_model - 6.64"),
                   "intercept": Stated(-6.64, "constant", "Sec. 6.1 display (Fig. 10): h* ~ 1.65 m/d_model - 6.64"),
                   "r2": Stated(0.824, "value", "Sec. 6.1 display (Fig. 10): R^2 = 0.824")},
          notes=GRID_FULL_NOTES + " Affine least squares (not through the origin, as the paper says). Holds: slope within a "
                f"factor {_F} of 1.65 ({_band(1.65)}), intercept negative and within a factor {_F} of 6.64 in "
                "magnitude, and R^2 within 0.1 of 0.824 (standards.tolerances.R2_HALF_WIDTH, the band of Fig. 3; 0.2 until 2026-11-28) (tightened from 'slope within a factor 2, R^2 >= 0.624, "
                "intercept not compared' so that a factor 2 in any stated number is noticed; the slope and the "
                "intercept are stated constants, held to standards.tolerances.STATED_CONSTANT_FACTOR since "
                "2026-11-28, when the slope's factor 1.5 ([1.10, 2.48]) became sqrt2; measured slope 2.04 (grid "
                "range [1.87, 2.06], inside either band), intercept -6.37, R^2 0.925). One standard (issue 37): "
                "with every h* anywhere in its paired-t pool, the exact "
                "range of the slope and of the intercept (the same per-coefficient bound) and an outer interval of "
                "R^2 ([1 - max SS_res / min SS_tot, 1]) are each judged against their band: all inside holds, any "
                "wholly outside contradicts, otherwise inconclusive. Until 2026-11-28 the point fit passed and only "
                "the slope's range could fail. R^2's interval ends at 1, inside the band's upper end, so R^2 can "
                "hold or stay undecided but never contradict on its own. Competing laws on log h* (h* standing for "
                "(h_low/sqrt2, h_high*sqrt2] on the doubling ladder) reported by AIC.",
          standard=Standard("band", "affine least-squares fit of h* on m / d_model over the base grid: slope, "
                                    "intercept, R^2",
                            tolerance=f"grid intervals inside: slope within a factor {_F} of 1.65, intercept in "
                                      f"[-6.64 {_F}, -6.64 / {_F}], R^2 within {R2_HALF_WIDTH:g} of 0.824; any wholly outside "
                                      "contradicts; merely meeting is inconclusive",
                            source="paper: 1.65, -6.64, R^2 0.824 (Fig. 10); ours: "
                                   f"{TOLERANCE_REASONS['STATED_CONSTANT_FACTOR']} (slope and intercept), and the R^2 "
                                   "margin",
                            primary="exact ranges of slope and intercept and an outer interval of R^2 over the h* "
                                    "paired-t pools, each by decide_interval; the point fit reported",
                            dimensions=(), alternative=("no_head_effect", "holds-empirically"))),
)
