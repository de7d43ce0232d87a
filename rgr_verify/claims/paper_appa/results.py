"""App. A.2 (result details): Table 1, Table 2 and Figure 10 on the Sec. 6 base grid (``sec6-grid`` full).

Per-head widths at D_K* (Table 1), the training-step cutoffs (Table 2, also their coverage of the Sec. 6.1
configurations, symbolic) and the head-count fit against compression (Figure 10).
"""

from __future__ import annotations

import math

import numpy as np

from ...capacity import fit_affine, threshold
from ...fits import DKInterval, slope_range_affine
from ..base import CheckContext, Claim, Kind, Stated, Status, Tier, Verdict
from ..paper_sec6.grid import adaptive_search
from ..paper_sec6.measure import FACTOR2_TOL, cached_full_grid, memo, within_factor
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
    # Competing laws on log h*: h* is tested on a doubling ladder, so it stands for (h_low / sqrt2, h_high * sqrt2].
    hivs = {k: DKInterval(ths[k].h_low / math.sqrt(2), ths[k].h_high * math.sqrt(2), "interval") for k in known}
    return {"known": known, "fit": fit, "range": (s_lo, s_hi), "laws": reported_only(ctx, lambda: laws_block(known, hivs)),
            "rates": reported_only(ctx, lambda: sampler_rates(ctx, [k[0] for k in known]))}


def _check_fig10(ctx, slope_factor=1.5, intercept_factor=FACTOR2_TOL, r2_tol=0.2):
    slope, intercept, r2 = ctx.expect("slope"), ctx.expect("intercept"), ctx.expect("r2")
    got, why = cached_full_grid(ctx)
    if got is None:
        return Verdict.not_run(why)
    recs, cells, ths, ivs, caps, _ = got
    meas = memo("fig10", ctx, lambda: _fig10_measure(ctx))
    known = meas["known"]
    if len(known) < 3:
        return Verdict(Status.INCONCLUSIVE, measured_value=threshold_table(cells, ths), details="fewer than 3 cells with h*",
                       evidence_level="fitted")
    fit, (s_lo, s_hi) = meas["fit"], meas["range"]
    lo_b, hi_b = slope / slope_factor, slope * slope_factor
    in_band = lo_b <= fit.slope <= hi_b
    # the intercept is negative in the paper: compared by magnitude, same sign required
    icpt_ok = (fit.intercept * intercept > 0) and within_factor(abs(fit.intercept), abs(intercept), intercept_factor)
    if in_band and icpt_ok and abs(fit.r2 - r2) <= r2_tol:
        status = Status.HOLDS_EMPIRICALLY
    elif s_hi < lo_b or s_lo > hi_b:
        status = Status.CONTRADICTED_EMPIRICALLY
    else:
        status = Status.INCONCLUSIVE
    arts = ()
    if ctx.out_dir is not None:
        from ...plots import plot_h_star

        p = plot_h_star([(m / d, ths[(m, d)]) for (m, d) in known], ctx.out_dir / "fig10-hstar.png",
                        title="h* against m / d_model (Fig. 10)", xlabel="m / d_model", fit=fit)
        arts = (str(p.relative_to(ctx.out_dir)),)
    return Verdict(status,
                   paper_value=f"h* = {slope} m/d_model {'-' if intercept < 0 else '+'} {abs(intercept)}, R2 = {r2} "
                               f"(tolerance: slope within a factor {slope_factor:g}, intercept within a factor "
                               f"{intercept_factor:.3g} with its sign, R2 within {r2_tol:g})",
                   measured_value={"slope": fit.slope, "intercept": fit.intercept, "R2": fit.r2,
                                   "slope range over the h* intervals (paired-t pools)": [s_lo, s_hi],
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


def _check_table1(ctx, factor=FACTOR2_TOL):
    lo, hi, median = ctx.expect("lo"), ctx.expect("hi"), ctx.expect("median")
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
    outside = {k: v for k, v in widths.items() if not lo / factor <= v <= hi * factor}
    checks = {"smallest d_k* within the factor of the stated lower end": within_factor(v_lo, lo, factor),
              "largest d_k* within the factor of the stated upper end": within_factor(v_hi, hi, factor),
              "median within the factor of the stated median": within_factor(med, median, factor),
              "no d_k* outside [lower / factor, upper * factor]": not outside}
    ok = all(checks.values())
    return Verdict(Status.HOLDS_EMPIRICALLY if ok else Status.CONTRADICTED_EMPIRICALLY,
                   paper_value=f"per-head width at D_K*: d_k* in [{lo}, {hi}], median {median} (tolerance: the "
                               f"smallest, the largest and the median d_k* each within a factor {factor:.3g} of the "
                               "stated lower end, upper end and median)",
                   measured_value={"d_k*": widths, "median": med, "smallest": v_lo, "largest": v_hi, "rules": checks,
                                   "grid range of d_k* (D_K* interval / h* pool)":
                                       {f"({k[0]},{k[1]})": [round(v, 2) for v in _dk_range(ths[k], ivs[k])]
                                        for k in sorted(cells) if ths[k].h_star is not None}},
                   witness=(outside or {k: v for k, v in checks.items() if not v}) if not ok else None,
                   evidence=f"full sweep ({len(recs)} runs)", evidence_level="experiment")


def _check_table1_cells(ctx, factor=2.0):
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
        within = lo <= paper <= hi
        near = lo / factor <= paper <= hi * factor
        # a range wider than factor^2 holds the paper's value and its double (or half) alike: it cannot tell them
        wide = not (lo > 0 and hi <= factor * factor * lo)
        rows[f"({k[0]},{k[1]})"] = {"paper d_k": paper, "ours (D_K* / h*)": ths[k].d_k_star,
                                    "grid range": [round(lo, 2), round(hi, 2)],
                                    "verdict": (f"undecided (range wider than a factor {factor * factor:g})" if wide
                                                else "within the grid range" if within else
                                                f"within a factor {factor:g} of it" if near else "outside")}
        if not wide:
            (agree if near else far).append(k)
    n = len(agree) + len(far)
    if 2 * n < len(table):
        status = Status.INCONCLUSIVE  # fewer than half of Table 1's cells can tell a factor 2
    else:
        status = (Status.HOLDS_EMPIRICALLY if not far else Status.CONTRADICTED_EMPIRICALLY if len(far) > n / 2
                  else Status.INCONCLUSIVE)
    return Verdict(status,
                   paper_value=f"Table 1's per-head widths, cell by cell (tolerance: the paper's d_k within a factor "
                               f"{factor:g} of our grid range in every cell whose range is at most {factor * factor:g}x "
                               f"wide; contradicted when more than half of those are not; inconclusive when fewer than "
                               f"half of Table 1's cells have such a range)",
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
        near = lo / factor <= paper <= hi * factor
        row["verdict"] = ("equal" if lo <= paper <= hi else f"within a factor {factor:g}" if near else "outside")
        (agree if near else far).append(k)
        if lo <= paper <= hi:
            exact.append(k)
    n = len(agree) + len(far)
    if 2 * n < len(table):
        status = Status.INCONCLUSIVE
    else:
        status = (Status.HOLDS_EMPIRICALLY if not far else Status.CONTRADICTED_EMPIRICALLY if len(far) > n / 2
                  else Status.INCONCLUSIVE)
    runs = sum(r.runs_probed for r in results)
    return Verdict(status,
                   paper_value=f"Table 1's per-head widths, cell by cell at per-head resolution (tolerance: as "
                               f"table1-per-head-width-cell-by-cell, the paper's d_k within a factor {factor:g} of our "
                               f"width range in every resolved cell, contradicted when more than half are not; "
                               f"inconclusive when fewer than half of Table 1's {len(table)} cells are resolved)",
                   measured_value={"cells": rows, "resolved": n, "within the factor": len(agree),
                                   "equal (paper d_k inside our width range)": len(exact), "outside": len(far)},
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
    status = (Status.CONTRADICTED_EMPIRICALLY if moved else Status.INCONCLUSIVE if movable
              else Status.HOLDS_EMPIRICALLY)
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


_TABLE1_STATED = Stated(TABLE1, "table", "Table 1: d_k* = D_K*/h* per base-grid cell (m, d_model)")
_COVERAGE_ONLY = ("the check asks only whether every configuration gets a cutoff (its row or the default): any "
                  "cutoffs give one, so no wrong value can be told from the stated one")

CLAIMS = (
    Claim(id="table1-per-head-width-at-threshold", ref="Table 1",
          statement="Per-head width at D_K* is modest: d_k* in [{lo}, {hi}] on the base grid, median {median}",
          kind=Kind.EMPIRICAL, tier=Tier.FULL, check=_check_table1, role="detail",
          replays=("sec6-grid",),
          expects={"lo": Stated(5, "value", "Sec. 6.1 'At D_K*, per-head widths are small: d_k* in [5, 24]'"),
                   "hi": Stated(24, "value", "Sec. 6.1 'd_k* in [5, 24] on the base grid'"),
                   "median": Stated(11, "value", "Sec. 6.1 '(median 11)'")},
          notes="Full tier. d_k* = D_K* / h*. Tolerance (tightened so that a factor 2 in any stated "
                "number is noticed; the verdict at the paper's numbers is unchanged): the smallest, the largest and "
                "the median d_k* each within a factor sqrt(2) of 5, 24 and 11 (closer, in log, to the stated value "
                "than to its double or half), and no d_k* outside [5/sqrt2, 24 sqrt2]. Measured on the committed "
                "evidence: smallest 4, largest 24, median 8 (8 is the measured median, 11 the stated one: within "
                "sqrt(2) but not equal; sec6-sym-table1-median shows Table 1's own median is not 11 either). The grid "
                "range of each d_k* is reported."),
    Claim(id="table1-per-head-width-cell-by-cell", ref="Table 1",
          statement="Table 1's per-head key widths d_k* are reproduced cell by cell on the base grid",
          kind=Kind.EMPIRICAL, tier=Tier.FULL, check=_check_table1_cells, role="detail",
          replays=("sec6-grid",), expects={"table1": _TABLE1_STATED},
          notes=GRID_FULL_NOTES + " Per cell, the grid range of our d_k* is [last failing D_K / h_high, first passing D_K "
                "/ h_low] (D_K* interval over the h* paired-t pool). A cell decides only when its range is at most 4x wide "
                "(a wider one holds a value and its double alike: found by the planted alternative 'heads make no "
                "difference', under which every range spans the whole ladder). Holds when the paper value lies within "
                "a factor 2 of the range in every deciding cell and at least half of Table 1's cells decide; "
                "contradicted when more than half of the deciding cells lie outside; inconclusive otherwise."),
    Claim(id="table1-per-head-width-adaptive", ref="Table 1",
          statement="Table 1's per-head key widths d_k* are reproduced cell by cell at the resolution of one key "
                    "dimension per head (adaptive D_K* search at paper scale)",
          kind=Kind.EMPIRICAL, tier=Tier.FULL, check=_check_table1_adaptive, role="detail",
          replays=("sec6-grid",), analyses=("leave one seed out",), expects={"table1": _TABLE1_STATED},  # the adaptive runs exist under one reading
          notes="Full tier. The ladder of the base grid cannot express Table 1's widths 5, 7, 9, 11 or 21 (its D_K / h "
                "are 1-2-3 ladder values over powers of 2); the adaptive search (rgr_verify.runs.adaptive: scan the ladder "
                "to the first passing D_K, then bisect on multiples of h, the pass rule mean test F1 >= 0.99 over the "
                "10 seeds) finds D_K*(h) to one key dimension per head, trained at paper scale (Table 2 caps, 10 "
                "seeds) and committed as evidence/sec6-grid-adaptive-full. Per cell: D_K* the smallest exact D_K*(h), "
                "the pool every h within 10% of it (App. A.2's 10% window, without its t-test), the width range "
                "D_K*(h)/h over the pool. A cell is resolved when no head count left unsearched (bracket-only) could "
                "enter the pool. Tolerance and rule are those of table1-per-head-width-cell-by-cell, fixed before any "
                "adaptive run was trained (the pool and the resolution rule were written after the m <= 128 "
                "searches had run): holds when every resolved cell's paper d_k is within a factor 2 of its width range, "
                "contradicted when more than half are outside; inconclusive otherwise or when fewer than half of "
                "the 12 cells are resolved. The bisect assumes pass/fail monotone in D_K between two rungs."),
    Claim(id="table2-step-caps-sufficient", ref="Table 2",
          statement="The Table 2 step caps do not set the measured thresholds: no cell's D_K* could move down with a "
                    "longer cap",
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
                "does to the fitted laws is decided by the claims that fit them.")),
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
          statement="h* = {slope} m/d_model - 6.64 (R^2 = {r2})",
          kind=Kind.EMPIRICAL, tier=Tier.FULL, check=_check_fig10, role="result",
          replays=("sec6-grid",),
          expects={"slope": Stated(1.65, "constant", "Sec. 6.1 display (Fig. 10): h* ~ 1.65 m/d_model - 6.64"),
                   "intercept": Stated(-6.64, "constant", "Sec. 6.1 display (Fig. 10): h* ~ 1.65 m/d_model - 6.64"),
                   "r2": Stated(0.824, "value", "Sec. 6.1 display (Fig. 10): R^2 = 0.824")},
          notes=GRID_FULL_NOTES + " Affine least squares (not through the origin, as the paper says). Holds: slope within a "
                "factor 1.5 of 1.65, intercept negative and within a factor sqrt(2) of 6.64 in magnitude, and R^2 "
                "within 0.2 of 0.824 (tightened from 'slope within a factor 2, R^2 >= 0.624, intercept "
                "not compared' so that a factor 2 in any stated number is noticed; measured slope 2.04, intercept "
                "-6.37, R^2 0.925: the verdict is unchanged); contradicted only when the exact range of the slope with every "
                "h* anywhere in its paired-t pool misses that band. Competing laws on log h* (h* standing for "
                "(h_low/sqrt2, h_high*sqrt2] on the doubling ladder) reported by AIC."),
)
