"""Figure 4: full-tier claims on the lambda = m / d_model = 8 diagonal (``sec6-diagonal`` full preset).

D_K* along the diagonal grows only logarithmically in m from m >= 512, and the optimal head count is about constant
along the diagonal and about 4x larger at (1024, 32) (lambda = 32).
"""

from __future__ import annotations

import math

import numpy as np

from ...analysis.capacity import threshold
from ..base import Claim, Kind, Stated, Status, Tier, Verdict
from ..standards import (EXPONENT_HALF_WIDTH, FACTOR_TWO, TOLERANCE_REASONS, Standard, conjunction, decide_interval,
                         holding)
from ..tools import (
    cap_choices,
    cap_table,
    cell_rows,
    dk_intervals,
    laws_block,
    reported_only,
    permutation_cells,
    runs_by_config,
    sampler_rates,
    sweep_records,
)
from ...analysis.fits import interval_regression, profile_interval
from ..tools.measure import LOADER_FREE, equivalence_status, ladder_sigma_floor, memo
from ..tools.cells import h_star_tie_break
from ..tools.multiverse import DIMENSIONS, multiverse_status, specification_curve, tolerance

__all__ = ["CLAIMS", "ORDER"]

ORDER = 62


def _diag(ctx):
    recs, why = sweep_records("sec6-diagonal", "full", ctx)
    if recs is None:
        return None, why
    cells = permutation_cells(recs)
    ths = {k: threshold(v) for k, v in cells.items()}
    return (recs, cells, ths, dk_intervals(cells, ths), cap_table(cells, ths, runs_by_config(recs))), ""


def _cached_diag(ctx):
    """:func:`_diag`, cached per process (it draws nothing from the claim's rng)."""
    return memo("sec6-diagonal:full", ctx, lambda: _diag(ctx), with_seed=False, free_of=LOADER_FREE)


def growth_exponent(ivs, keys, *, cap_limited=()) -> dict:
    """log D_K* = c + p log ln m over ``keys`` by censored-Gaussian interval regression; cells in ``cap_limited``
    (most threshold runs hit the step cap) enter as upper bounds only, never as measured thresholds; sigma is held
    at least at the ladder's resolution (:func:`~rgr_verify.claims.tools.measure.ladder_sigma_floor`). Returns p, its 95% profile
    interval and the sigma used."""
    keys = sorted(keys)
    m = np.array([k[0] for k in keys], dtype=float)
    lows = [0.0 if k in cap_limited else ivs[k].low for k in keys]
    with np.errstate(divide="ignore"):
        lo = np.log(np.array(lows, dtype=float))
        hi = np.log(np.array([ivs[k].high for k in keys], dtype=float))
    X = np.column_stack([np.ones(len(keys)), np.log(np.log(m))])
    free = interval_regression(lo, hi, X)
    floor = ladder_sigma_floor(ivs, keys)
    fit = free if free.sigma >= floor else interval_regression(lo, hi, X, fixed_sigma=floor)
    return {"p": float(fit.beta[1]), "95% profile": [float(v) for v in profile_interval(fit, 1)],
            "sigma fitted freely": float(free.sigma), "sigma floor (ladder)": floor,
            "sigma used": float(max(free.sigma, floor)), "n": len(keys),
            "cells as upper bounds only (cap-limited)": [f"({k[0]},{k[1]})" for k in sorted(cap_limited)]}


def _check_fig4(ctx, tol=EXPONENT_HALF_WIDTH):
    expo = ctx.expect("log_exponent")
    tol = tolerance(tol)  # ours: closer to logarithmic growth than to none or to (ln m)^2
    got, why = _cached_diag(ctx)
    if got is None:
        return Verdict.not_run(why)
    recs, allcells, allths, allivs, caps = got
    cells = {k: v for k, v in allcells.items() if k[0] == 8 * k[1]}
    ths = {k: allths[k] for k in cells}
    late = sorted(k for k in cells if k[0] >= 512)
    if len(late) < 3:
        return Verdict(Status.INCONCLUSIVE, details="fewer than 3 diagonal cells with m >= 512",
                       evidence_level="fitted")
    capped = {k for k in late if caps[k]["cap-limited"]}
    fit = memo("fig4-growth", ctx, lambda: growth_exponent(allivs, late, cap_limited=capped), with_seed=False,
               free_of=LOADER_FREE)
    band = (expo - tol, expo + tol)
    _, res = equivalence_status(fit["95% profile"], band)

    bounds = cap_choices(caps, late)

    def analyses():  # the multiverse: cap-limited cells (most / any / none as bounds) x leave one cell out
        out = []
        for cap_choice in DIMENSIONS["cap-limited cells"]:
            for drop in [None] + late:
                use = [k for k in late if k != drop]
                f = (fit if drop is None and cap_choice == "upper bounds only" else
                     growth_exponent(allivs, use, cap_limited=bounds[cap_choice] & set(use)))
                out.append({"choices": {"cap-limited cells": cap_choice,
                                        "leave one cell out": "none" if drop is None else f"({drop[0]},{drop[1]})"},
                            "estimate": f["p"], "interval": list(f["95% profile"])})
        return out

    # the fits read no tolerance (shared by the tolerance analyses); each is judged against this analysis's band
    fits = memo("fig4-multiverse", ctx, analyses, with_seed=False, free_of=LOADER_FREE)
    status, robustness = multiverse_status([{**a, "status": equivalence_status(a["interval"], band)[0]}
                                            for a in fits])

    def designs(use):
        m = np.array([k[0] for k in use], dtype=float)
        ones = np.ones((len(use), 1))
        return ({"ln m": (ones, np.log(np.log(m))), "m": (ones, np.log(m)),
                 "m^gamma": (np.column_stack([np.ones(len(use)), np.log(m)]), np.zeros(len(use)))}, "ln m")

    laws = memo("fig4-laws", ctx, lambda: reported_only(
        ctx, lambda: laws_block(late, allivs, designs=designs) if len(late) >= 4 else None), with_seed=False)
    arts = ()
    if ctx.out_dir is not None:
        from ...analysis.plots import plot_diagonal

        p = plot_diagonal([(m, th) for (m, d), th in ths.items()], ctx.out_dir / "fig4-diagonal.png",
                          title="lambda = 8 diagonal: D_K* (line) and h* (bars)",
                          capped=[m for (m, d) in ths if caps[(m, d)]["any threshold run hit the cap"]])
        arts = (str(p.relative_to(ctx.out_dir)),)
        specification_curve(robustness, band, ctx.out_dir / "fig4-specification-curve.png",
                            title="growth exponent p of D_K* ~ (ln m)^p along m / d_model = 8, m >= 512", what="p",
                            paper=expo)
        arts += ("fig4-specification-curve.png",)
    rates = memo("fig4-rates", ctx, lambda: reported_only(ctx, lambda: sampler_rates(ctx, [k[0] for k in cells])))
    a, b = allivs.get((512, 64)), allivs.get((4096, 512))
    ratio = None if a is None or b is None else {
        "first passing D_K ratio (4096 over 512)": b.high / a.high if math.isfinite(b.high) else None,
        "(4096,512) cap-limited: its D_K* is an upper bound only": (4096, 512) in capped}
    params = {"tolerance": tol, "band": list(band), "robustness": robustness, "resolution": {k: v for k, v in res.items() if k != "to_decide"},
              "cells": [f"({k[0]},{k[1]})" for k in late]}
    if "to_decide" in res:
        params["to_decide"] = res["to_decide"] + ("; cap-limited cells enter as upper bounds: runs that stop before "
                                                  "the cap at those cells would bound them" if capped else "")
    return Verdict(status, paper_value=f"along m/d_model = 8, D_K* grows like (log m)^{expo:g} from m >= 512 "
                                       f"(tolerance: the 95% interval of the exponent p in D_K* ~ (ln m)^p wholly "
                                       f"inside [{band[0]:g}, {band[1]:g}], closer to {expo:g} than to "
                                       f"{expo - 1:g} or {expo + 1:g})",
                   measured_value={"multiverse": robustness["summary"], "growth exponent p": round(fit["p"], 3),
                                   "95% profile interval": [round(v, 3) for v in fit["95% profile"]],
                                   "fit": fit, "endpoint ratio (reported only)": ratio,
                                   "laws along m >= 512 (D_K* ~ ln m, m, m^gamma; our comparison, reported only)": laws,
                                   "cells": cell_rows(sorted(cells), cells, ths, allivs, caps, rates)},
                   witness={"p interval": fit["95% profile"]} if status is Status.CONTRADICTED_EMPIRICALLY else None,
                   params=params, artefacts=arts, evidence_level="fitted",
                   evidence=f"full sweep ({len(recs)} runs) replayed; D_K* as ladder intervals, censored-Gaussian "
                            "interval regression of log D_K* on log ln m over the cells m >= 512 (cap-limited cells as "
                            "upper bounds), 95% profile interval of p against the band (equivalence test)")


def diagonal_heads_status(ths, diag, factor: float, lam_ratio: float):
    """The rule of fig4-diagonal-hstar-proportional-to-compression on thresholds ``ths`` (h* and its paired-t pool):
    (status, diagonal median h*, cells not inside the band, (1024,32) ratio interval, whether it lies inside its
    band). One standard (issue 37, :func:`decide_interval`): every diagonal h* interval against [median / factor,
    median x factor] and the (1024,32) ratio interval against [ratio / factor, ratio x factor]; all inside holds,
    any wholly outside contradicts, an interval that merely meets its band leaves it inconclusive."""
    med = float(np.median([ths[k].h_star for k in diag]))
    per_cell = {k: decide_interval((ths[k].h_low, ths[k].h_high), (med / factor, med * factor))[0] for k in diag}
    off = [k for k in diag if not holding(per_cell[k])]
    t = ths[(1024, 32)]
    r_lo, r_hi = t.h_low / med, t.h_high / med
    ratio_status, _ = decide_interval((r_lo, r_hi), (lam_ratio / factor, lam_ratio * factor))
    status = conjunction([*per_cell.values(), ratio_status])
    return status, med, off, (r_lo, r_hi), holding(ratio_status)


def _check_diagonal_heads(ctx, factor=FACTOR_TWO):
    factor = tolerance(factor, kind="factor")  # ours: 'proportional' / 'about constant' read as within a factor 2
    got, why = _cached_diag(ctx)
    if got is None:
        return Verdict.not_run(why)
    recs, cells, ths, ivs, caps = got
    diag = sorted(k for k in cells if k[0] == 8 * k[1] and ths[k].h_star is not None)
    if len(diag) < 3 or (1024, 32) not in ths or ths[(1024, 32)].h_star is None:
        return Verdict(Status.INCONCLUSIVE, details="fewer than 3 diagonal cells with h*, or no h* at (1024, 32)",
                       evidence_level="experiment")
    lam_ratio = (32 / 8) ** ctx.expect("lambda_exponent")
    by_tie = {}  # the multiverse: App. A.2's h* tie-break, or the fewest / most heads among those tied at D_K*
    for tie in DIMENSIONS["h* tie-break"]:
        tths = {k: h_star_tie_break(ths[k], cells[k], tie) for k in [*diag, (1024, 32)]}
        by_tie[tie] = (diagonal_heads_status(tths, diag, factor, lam_ratio), tths)
    (status0, med, off, (r_lo, r_hi), ratio_ok), _ = by_tie[DIMENSIONS["h* tie-break"][0]]
    status, robustness = multiverse_status([{"choices": {"h* tie-break": tie}, "estimate": got[0][1],
                                             "interval": None, "status": got[0][0]} for tie, got in by_tie.items()])
    t = ths[(1024, 32)]
    return Verdict(status,
                   paper_value="the optimal head count is proportional to lambda = m/d_model: about constant along "
                               f"lambda = 8 and about {lam_ratio:g}x larger at (1024, 32), lambda = 32 (tolerance: "
                               "every diagonal "
                               f"h* interval inside [median / {factor:.3g}, {factor:.3g} median], and the (1024,32) "
                               f"ratio interval inside [{lam_ratio / factor:.3g}, {lam_ratio * factor:.3g}]; any "
                               "interval wholly outside its band contradicts, one merely meeting it is inconclusive)",
                   measured_value={"diagonal median h*": med,
                                   "diagonal h* (interval)": {f"({k[0]},{k[1]})": [ths[k].h_star, ths[k].h_low,
                                                                                   ths[k].h_high] for k in diag},
                                   "(1024,32) h* (interval)": [t.h_star, t.h_low, t.h_high],
                                   "(1024,32) / diagonal median": [r_lo, r_hi],
                                   "by h* tie-break": {tie: {"status": got[0][0].value, "diagonal median h*": got[0][1],
                                                             "h*": {f"({k[0]},{k[1]})": th.h_star
                                                                    for k, th in got[1].items()}}
                                                       for tie, got in by_tie.items()}},
                   witness=[f"({k[0]},{k[1]})" for k in off] or (None if ratio_ok else {"ratio": [r_lo, r_hi]}),
                   params={"robustness": robustness, "factor": factor},
                   evidence=f"full sweep ({len(recs)} runs); h* intervals from App. A.2's paired-t pools",
                   evidence_level="experiment")


_H = EXPONENT_HALF_WIDTH  # the half-width on a stated exponent, as the notes and the standard write it
_F2 = f"{FACTOR_TWO:g}"  # the factor where the paper says 'proportional', as the notes and the standard write it
_RATIO_BAND = f"[{4 / FACTOR_TWO:g}, {4 * FACTOR_TWO:g}]"  # the band of the predicted ratio (32 / 8)^1 = 4

CLAIMS = (
    Claim(id="fig4-diagonal-logarithmic-growth", ref="Figure 4",
          analyses=("leave one seed out", "F1 target", "threshold rule", "tolerance"),
          statement="Along m/d_model = 8, D_K* grows only logarithmically in m from m >= 512",
          kind=Kind.EMPIRICAL, tier=Tier.FULL, check=_check_fig4,
          replays=("sec6-diagonal",),
          expects={"log_exponent": Stated(1, "exponent", "Sec. 6.1 'Fixed-compression diagonal': D_K* ~ lambda "
                                                         "log m, 'the dependence on m should be logarithmic'")},
          role="result",
          notes="Full tier (sec6-diagonal full). Growth exponent p of D_K* ~ (ln m)^p along the diagonal cells m >= 512: "
                "censored-Gaussian interval regression of log D_K* on log ln m over their D_K* intervals. Cells where "
                "most threshold runs hit the step cap (e.g. (4096, 512): 3 seeds, none stopped before the 200k cap) "
                "are censored: they enter as upper bounds only, never as measured thresholds. The residual scale is "
                "held at least at the ladder's resolution (median log step / sqrt(12)) so that a line threading every "
                "interval does not make the interval spuriously narrow. One standard to pass and fail (level "
                f"fitted): the 95% profile interval of p wholly inside [p0 - {_H:g}, p0 + {_H:g}] (p0 = 1; "
                "standards.tolerances.EXPONENT_HALF_WIDTH: closer to logarithmic growth than to none or to (ln "
                "m)^2) holds, wholly outside is contradicted, otherwise "
                "inconclusive with the resolution reached and what would decide. The endpoint ratio D_K*(4096) / "
                "D_K*(512) and an AIC comparison of ln m, m and m^gamma (ours) are reported only.",
          standard=Standard("rate", "exponent p of D_K* ~ (ln m)^p along m / d_model = 8 over the cells with m >= "
                                    "512",
                            tolerance=f"95% profile interval of p inside [p0 - {_H:g}, p0 + {_H:g}], p0 = 1",
                            source=f"ours: {TOLERANCE_REASONS['EXPONENT_HALF_WIDTH']} (logarithmic growth against "
                                   "none or (ln m)^2)",
                            primary="censored-Gaussian interval regression on log ln m, sigma held at the ladder's "
                                    "resolution, cap-limited cells as upper bounds",
                            dimensions=("cap-limited cells", "leave one cell out"), alternative=("flat_threshold_48", "holds-empirically"))),
    Claim(id="fig4-diagonal-hstar-proportional-to-compression", ref="Figure 4",
          analyses=("leave one seed out", "F1 target", "threshold rule", "tolerance"),
          statement="The optimal head count is proportional to lambda = m / d_model: about constant along lambda = 8 "
                    "and, as proportionality implies (our derivation, not a number the paper prints), about 4x larger "
                    "at (1024, 32)",
          kind=Kind.EMPIRICAL, tier=Tier.FULL, check=_check_diagonal_heads,
          replays=("sec6-diagonal",), role="result",
          expects={"lambda_exponent": Stated(1, "exponent", "Sec. 6.1 'We also expect the optimal head count to be "
                                                            "proportional to lambda'")},
          notes="Full tier (sec6-diagonal full, 10 seeds; 3 for m >= 2048). h* intervals from App. A.2's paired-t "
                f"pools. One standard (issue 37): holds when every diagonal h* interval lies inside [median/{_F2}, "
                f"{_F2} median] and the (1024,32) h* interval over the diagonal median lies inside {_RATIO_BAND} (the "
                "factor standards.tolerances.FACTOR_TWO: 'proportional' read as within a factor 2); contradicted "
                "when any of them lies wholly outside its band; inconclusive otherwise (an interval that merely meets "
                "its band). Until 2026-11-28 meeting the bands passed and only a factor 4 failed; on the committed "
                f"evidence the ratio interval [8, 16] meets {_RATIO_BAND} without lying inside it, so the primary "
                f"analysis is inconclusive (the diagonal intervals all lie inside {_RATIO_BAND} around the median 4). "
                "'Proportional' is declared as the exponent 1 of lambda (predicted ratio (32/8)^1 = 4). Known "
                "mutation (exponent 2, predicted 16): the measured (1024,32) ratio interval [8, 16] (h* = 32 "
                f"against the diagonal median 4) only meets {_RATIO_BAND} but lies inside [{16 / FACTOR_TWO:g}, "
                f"{16 * FACTOR_TWO:g}]: its lower end 8 is the "
                "geometric midpoint of the lambda^1 and lambda^2 predictions, so with two lambda values on the grid "
                "the data do not single out h* ~ lambda (exponent 0 is refuted; exponent 2 passes the ratio band "
                "while exponent 1 only meets it).",
          standard=Standard("band", "diagonal h* intervals over the diagonal median h*, and the (1024, 32) h* "
                                    "interval over that median",
                            tolerance=f"every diagonal interval inside [median / {_F2}, {_F2} median] and the ratio "
                                      f"interval inside {_RATIO_BAND} hold; any wholly outside its band contradicts; "
                                      "merely meeting a band is inconclusive",
                            source="paper: h* proportional to lambda (Sec. 6.1); ours: "
                                   f"{TOLERANCE_REASONS['FACTOR_TWO']}, the ratio 4 = (32 / 8)^1",
                            primary="App. A.2 paired-t h* pools, no fit; decide_interval per interval, all "
                                    "combined by conjunction",
                            dimensions=("h* tie-break",), alternative=("no_head_effect", "holds-empirically"))),
)
