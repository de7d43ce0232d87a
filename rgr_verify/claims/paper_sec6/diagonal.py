"""Figure 4: full-tier claims on the lambda = m / d_model = 8 diagonal (``sec6-diagonal`` full preset).

D_K* along the diagonal grows only logarithmically in m from m >= 512, and the optimal head count is about constant
along the diagonal and about 4x larger at (1024, 32) (lambda = 32).
"""

from __future__ import annotations

import math

import numpy as np

from ...capacity import threshold
from ..base import Claim, Kind, Stated, Status, Tier, Verdict
from ..tools import (
    band_text,
    cap_table,
    cell_rows,
    dk_intervals,
    laws_block,
    permutation_cells,
    runs_by_config,
    sampler_rates,
    sweep_records,
)
from .measure import memo

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
    return memo("sec6-diagonal:full", ctx, lambda: _diag(ctx), with_seed=False)


def _check_fig4(ctx):
    expo = ctx.expect("log_exponent")
    got, why = _cached_diag(ctx)
    if got is None:
        return Verdict.not_run(why)
    recs, allcells, allths, allivs, caps = got
    cells = {k: v for k, v in allcells.items() if k[0] == 8 * k[1]}
    ths = {k: allths[k] for k in cells}
    if (512, 64) not in ths or (4096, 512) not in ths:
        return Verdict(Status.INCONCLUSIVE, details="diagonal endpoints missing")
    a, b = allivs[(512, 64)], allivs[(4096, 512)]
    base = math.log(4096) / math.log(512)
    predicted = base ** expo
    # closer (in log) to (ln m)^p than to (ln m)^(p -+ 1): a factor sqrt(base) either side
    factor = math.sqrt(base)
    band = (predicted / factor, predicted * factor)
    central = b.high / a.high if math.isfinite(b.high) else math.inf
    lo_r = b.low / a.high
    hi_r = b.high / a.low if a.low > 0 else math.inf
    if band[0] <= central <= band[1]:
        status = Status.HOLDS_EMPIRICALLY
    elif hi_r < band[0] or lo_r > band[1]:
        status = Status.CONTRADICTED_EMPIRICALLY
    else:
        status = Status.INCONCLUSIVE
    late = sorted(k for k in cells if k[0] >= 512)

    def designs(use):
        m = np.array([k[0] for k in use], dtype=float)
        ones = np.ones((len(use), 1))
        return ({"ln m": (ones, np.log(np.log(m))), "m": (ones, np.log(m)),
                 "m^gamma": (np.column_stack([np.ones(len(use)), np.log(m)]), np.zeros(len(use)))}, "ln m")

    laws = memo("fig4-laws", ctx, lambda: laws_block(late, allivs, designs=designs) if len(late) >= 4 else None,
                with_seed=False)
    arts = ()
    if ctx.out_dir is not None:
        from ...plots import plot_diagonal

        p = plot_diagonal([(m, th) for (m, d), th in ths.items()], ctx.out_dir / "fig4-diagonal.png",
                          title="lambda = 8 diagonal: D_K* (line) and h* (bars)")
        arts = (str(p.relative_to(ctx.out_dir)),)
    rates = memo("fig4-rates", ctx, lambda: sampler_rates(ctx, [k[0] for k in cells]))
    return Verdict(status, paper_value=f"along m/d_model = 8, D_K* grows like (log m)^{expo:g} from m >= 512 "
                                       f"(tolerance: D_K*(4096)/D_K*(512) within a factor {factor:.3f} of (ln 4096 / "
                                       f"ln 512)^{expo:g} = {predicted:.2f}, i.e. in {band_text(*band)}, closer to it "
                                       "than to the powers p - 1 and p + 1; contradicted only when the ratio's whole "
                                       "grid range misses that band)",
                   measured_value={"ratio (first passing D_K)": central, "grid range of the ratio": [lo_r, hi_r],
                                   "laws along m >= 512 (D_K* ~ ln m, m, m^gamma)": laws,
                                   "cells": cell_rows(sorted(cells), cells, ths, allivs, caps, rates)},
                   artefacts=arts, evidence=f"full sweep ({len(recs)} runs); D_K* as ladder intervals")


def _check_diagonal_heads(ctx, factor=2.0):
    got, why = _cached_diag(ctx)
    if got is None:
        return Verdict.not_run(why)
    recs, cells, ths, ivs, caps = got
    diag = sorted(k for k in cells if k[0] == 8 * k[1] and ths[k].h_star is not None)
    if len(diag) < 3 or (1024, 32) not in ths or ths[(1024, 32)].h_star is None:
        return Verdict(Status.INCONCLUSIVE, details="fewer than 3 diagonal cells with h*, or no h* at (1024, 32)")
    med = float(np.median([ths[k].h_star for k in diag]))
    off = [k for k in diag if ths[k].h_high < med / factor or ths[k].h_low > med * factor]
    far = [k for k in diag if ths[k].h_high < med / factor**2 or ths[k].h_low > med * factor**2]
    t = ths[(1024, 32)]
    lam_ratio = (32 / 8) ** ctx.expect("lambda_exponent")
    r_lo, r_hi = t.h_low / med, t.h_high / med
    ratio_ok = r_hi >= lam_ratio / factor and r_lo <= lam_ratio * factor
    ratio_far = r_hi < lam_ratio / factor**2 or r_lo > lam_ratio * factor**2
    status = (Status.HOLDS_EMPIRICALLY if not off and ratio_ok else Status.CONTRADICTED_EMPIRICALLY
              if far or ratio_far else Status.INCONCLUSIVE)
    return Verdict(status,
                   paper_value="the optimal head count is proportional to lambda = m/d_model: about constant along "
                               f"lambda = 8 and about {lam_ratio:g}x larger at (1024, 32), lambda = 32 (tolerance: "
                               "every diagonal "
                               f"h* interval within a factor {factor:g} of the diagonal median, and the (1024,32) "
                               f"ratio interval meeting [{lam_ratio / factor:g}, {lam_ratio * factor:g}]; contradicted "
                               f"beyond a factor {factor**2:g})",
                   measured_value={"diagonal median h*": med,
                                   "diagonal h* (interval)": {f"({k[0]},{k[1]})": [ths[k].h_star, ths[k].h_low,
                                                                                   ths[k].h_high] for k in diag},
                                   "(1024,32) h* (interval)": [t.h_star, t.h_low, t.h_high],
                                   "(1024,32) / diagonal median": [r_lo, r_hi]},
                   witness=[f"({k[0]},{k[1]})" for k in off] or (None if ratio_ok else {"ratio": [r_lo, r_hi]}),
                   evidence=f"full sweep ({len(recs)} runs); h* intervals from App. A.2's paired-t pools")


CLAIMS = (
    Claim(id="fig4-diagonal-logarithmic-growth", ref="Figure 4",
          statement="Along m/d_model = 8, D_K* grows only logarithmically in m from m >= 512",
          kind=Kind.EMPIRICAL, tier=Tier.FULL, check=_check_fig4,
          replays=("sec6-diagonal",),
          expects={"log_exponent": Stated(1, "exponent", "Sec. 6.1 'Fixed-compression diagonal': D_K* ~ lambda "
                                                         "log m, 'the dependence on m should be logarithmic'")},
          notes="Full tier (sec6-diagonal full). Holds when D_K*(4096,512) / D_K*(512,64) (first passing D_K, the "
                "paper's estimator) is within a factor sqrt(ln 4096 / ln 512) = 1.155 of (ln 4096 / ln 512)^1 = 1.333, "
                "i.e. closer to the (ln m)^1 prediction than to (ln m)^0 (no growth) or (ln m)^2; contradicted only "
                "when the ratio's whole grid range (D_K* intervals) misses that band; inconclusive otherwise. "
                "Tightened for issue 12 from 'within a factor 2 of 1.333', which also passed a ratio of 1 (no "
                "growth at all) and (ln m)^2; measured ratio 1.5 (grid range [1, 2]): the verdict is unchanged. "
                "Caveat (recorded, not hidden): the ratio's grid range [1, 2] meets the bands of the exponents 0, 1 "
                "and 2, and an interval-regression fit of log D_K* = a + p log ln m on the four cells m >= 512 gives "
                "p = 1.20 with a 95% profile interval of about (-0.9, 3.5); the free power law m^gamma gives gamma = "
                "0.17 (about (-0.10, 0.49)), which rules out growth linear in m but not a constant. So 'holds' "
                "rests on the paper's own estimator and on the AIC preference of ln m over m (dAIC 9.8); the "
                "logarithmic form against a constant is within the grid's resolution. Laws D_K* ~ ln m, m, m^gamma "
                "along m >= 512 compared by AIC (interval regression)."),
    Claim(id="fig4-diagonal-hstar-proportional-to-compression", ref="Figure 4",
          statement="The optimal head count is proportional to lambda = m / d_model: about constant along lambda = 8, "
                    "about 4x larger at (1024, 32)",
          kind=Kind.EMPIRICAL, tier=Tier.FULL, check=_check_diagonal_heads,
          replays=("sec6-diagonal",),
          expects={"lambda_exponent": Stated(1, "exponent", "Sec. 6.1 'We also expect the optimal head count to be "
                                                            "proportional to lambda'")},
          notes="Full tier (sec6-diagonal full, 10 seeds; 3 for m >= 2048). h* intervals from App. A.2's paired-t "
                "pools. Holds when every diagonal h* interval meets [median/2, 2 median] and the (1024,32) h* interval "
                "over the diagonal median meets [2, 8]; contradicted beyond a factor 4; inconclusive otherwise. "
                "'Proportional' is declared as the exponent 1 of lambda (predicted ratio (32/8)^1 = 4). Known "
                "mutation survivor (exponent 2, predicted 16): the measured (1024,32) ratio interval [8, 16] (h* = 32 "
                "against the diagonal median 4) meets both [2, 8] and [8, 32]: 8 is the geometric midpoint of the "
                "lambda^1 and lambda^2 predictions, so with two lambda values on the grid the data cannot tell "
                "h* ~ lambda from h* ~ lambda^2 (exponent 0 is refuted). 'Holds' here means consistent with "
                "proportionality within a factor 2, not that proportionality is singled out."),
)
