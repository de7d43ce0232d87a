"""Sec. 6.1 and Figures 2 and 4: quick-tier analogues from trained runs (ids ending in ``-quick``).

Scaled-down analogues on the ``sec6-grid`` / ``sec6-diagonal`` quick presets (CPU; m <= 128, cap 12000 steps).
Every rule states its chance of passing when the effect is absent (null), kept <= 5%; every tolerance is stated in
the claim's notes.
"""

from __future__ import annotations

import dataclasses
import math

from ...analysis.capacity import threshold
from ...core.stats import permutation_pvalue
from ..base import Claim, Kind, Tier, Verdict
from ..standards import Standard, decide
from .trends import DKSTAR_GROWS_STANDARD, HSTAR_GROWS_STANDARD, dkstar_grows_verdict, hstar_grows_verdict
from ..tools.sharp import SHARP_PRIMARY, SHARP_RULE, SHARP_SOURCE, SHARP_TOLERANCE
from ..tools import (
    FAMILY_ALPHA,
    cap_limited_cells,
    cell_records,
    curve_artefacts,
    multihead_advantage_verdict,
    permutation_cells,
    quick_sizes,
    runs_by_config,
    seed_values,
    sharp_verdict,
    sweep_records,
    threshold_table,
)

__all__ = ["CLAIMS", "ORDER", "MULTIHEAD_QUICK_STANDARD"]

ORDER = 60


def _check_sharp_transition_quick(ctx, preset="sec6-grid", factor=4.0):
    recs, why = sweep_records(preset, "quick", ctx)
    if recs is None:
        return Verdict.not_run(why)
    m_max, cap = quick_sizes(recs)
    cells, runs = permutation_cells(recs), runs_by_config(recs)
    ths = {k: threshold(v) for k, v in cells.items()}
    capped = cap_limited_cells(cells, ths, runs)
    arts = curve_artefacts(ctx, cells, f"{preset}-quick-f1-curves", f"F1-D_K curves ({preset}, quick); 95% t-intervals")
    # the one rule of every sharp-transition claim (tools.cells.sharp_verdict), on the quick grid
    v = sharp_verdict(cells, {k: {"cap-limited": k in capped} for k in cells}, factor, len(recs),
                      f"the quick grid (analogue at m <= {m_max}, cap {cap})", evidence_level="analogue")
    return dataclasses.replace(v, artefacts=tuple(arts), params={"preset": preset, "tier": "quick", **v.params})


def _check_dkstar_grows_quick(ctx, preset="sec6-grid"):
    return dkstar_grows_verdict(ctx, preset, "quick")


def _check_hstar_grows_quick(ctx, preset="sec6-grid"):
    return hstar_grows_verdict(ctx, preset, "quick")


def _check_diagonal_quick(ctx, preset="sec6-diagonal"):
    """Along the quick lambda = 2 diagonal, D_K^* grows with m but sub-linearly (the theory: like lambda ln m)."""
    recs, why = sweep_records(preset, "quick", ctx)
    if recs is None:
        return Verdict.not_run(why)
    m_max, cap = quick_sizes(recs)
    keys = sorted({(r["config"]["m"], r["config"]["d_model"]) for r in recs})
    (m0, d0), (m1, d1) = keys[0], keys[-1]
    linear = m1 / m0
    ra, rb = cell_records(recs, (m0, d0)), cell_records(recs, (m1, d1))
    a_small, _, pa = seed_values(ra, favour="small")
    b_large, _, pb = seed_values(rb, favour="large")
    a_large, _, _ = seed_values(ra, favour="large")
    b_small, _, _ = seed_values(rb, favour="small")
    alpha = FAMILY_ALPHA / 2  # two tests must pass together; Bonferroni over the two contradiction tests
    p_grow = permutation_pvalue(a_small, b_large, alternative="greater")
    p_sub = permutation_pvalue(a_large, [v / linear for v in b_small], alternative="less")
    p_decrease = permutation_pvalue(a_large, b_small, alternative="less")
    p_superlinear = permutation_pvalue(a_small, [v / linear for v in b_large], alternative="greater")
    fails = p_decrease <= alpha or p_superlinear <= alpha
    status = decide(not fails and p_grow <= FAMILY_ALPHA and p_sub <= FAMILY_ALPHA, fails)
    cells = permutation_cells(recs)
    ths = {k: threshold(v) for k, v in cells.items()}
    arts = curve_artefacts(ctx, cells, "sec6-diagonal-quick-f1-curves", "F1-D_K curves on the lambda = 2 diagonal (quick)")
    if ctx.out_dir is not None:
        from ...analysis.plots import plot_diagonal

        p = plot_diagonal([(m, th) for (m, d), th in ths.items()], ctx.out_dir / "fig4-diagonal-quick.png",
                          title="lambda = 2 diagonal (quick): D_K* (line) and h* (bars)")
        arts = arts + (str(p.relative_to(ctx.out_dir)),)
    return Verdict(status, evidence_level="analogue",
                   paper_value=f"analogue at m <= {m_max}, cap {cap}: along a fixed compression m / d_model, "
                                       f"D_K* grows with m but far slower than m (from m = {m0} to {m1}: more than "
                                       f"x1 and less than x{linear:g}; ln-law ratio {math.log(m1) / math.log(m0):.2f})",
                   measured_value={f"per-seed D_K* at ({m0},{d0})": [pa[s]["D_K"] for s in sorted(pa)],
                                   f"per-seed D_K* at ({m1},{d1})": [pb[s]["D_K"] for s in sorted(pb)],
                                   "cap-limited seeds (start, end)": [
                                       sum(v["stopped_early"] is False for v in pa.values()),
                                       sum(v["stopped_early"] is False for v in pb.values())],
                                   "p (grows)": round(p_grow, 4), f"p (grows less than x{linear:g})": round(p_sub, 4),
                                   "p (decreases)": round(p_decrease, 4),
                                   f"p (grows more than x{linear:g})": round(p_superlinear, 4),
                                   "cells": threshold_table(cells, ths)},
                   artefacts=arts,
                   params={"preset": preset, "tier": "quick", "alpha": FAMILY_ALPHA,
                           "null pass probability": f"<= {FAMILY_ALPHA} under no growth and under linear growth "
                                                   "(each needs its own exact permutation test to pass)"},
                   evidence=f"quick sweep ({len(recs)} runs); per-seed thresholds, exact one-sided permutation tests")


_QUICK_NOTES = ("Quick tier: a scaled-down analogue, not the paper's experiment. sec6-grid quick preset: (m, d_model) in "
                "{(32,16),(64,32),(64,16)}, h in {1,2,4,8}, D_K in {8,16,32,64}, 4 seeds (0-3), step cap 12000 (Table "
                "2's 20,000 is the full tier). Protocol otherwise App. A.1 (init reading: W entries N(0, std^2 = "
                "1/d_model); pairs include p = q; micro-F1 over all ell^2 ordered pairs). A per-seed threshold known "
                "only as an upper bound (its passing run hit the cap, or it is the smallest D_K tested) is censored: "
                "where the claim needs it large it counts at its lower bound (just above the largest D_K below it "
                "where all that seed's runs fail and would not reach 0.99 with a 2x cap at their current rate, else "
                "0).")


def _check_multihead_advantage_quick(ctx):
    """The multi-head advantage at fixed D_K on the sec6-grid quick preset (max-over-heads)."""
    return multihead_advantage_verdict(ctx, preset="sec6-grid", tier="quick", evidence_level="analogue")



# The standard of the quick multi-head advantage analogues (max-over-heads here, softmax in paper_sec7.softmax),
# declared once.
MULTIHEAD_QUICK_STANDARD = Standard("comparison", "per compressed cell (m / d_model >= 4) of sec6-grid quick, the paired "
                                          "test-F1 gap of each (h > 1, D_K) over h = 1 at the same D_K",
                            tolerance="band [0.1, inf) of mean-F1 gap; per comparison the two-sided t-interval at "
                                      "1 - 2 * 0.05 / k (one-sided ends at 0.05 / k, k comparisons in the cell); a "
                                      "cell holds when some interval is inside the band, fails when all lie wholly "
                                      "below; every cell must hold, one failing cell contradicts",
                            source="ours: 0.1 F1 read as a clear gap; conventional level 0.05, Bonferroni over each "
                                   "cell's comparisons",
                            primary="paired t-intervals over seeds at equal D_K, Bonferroni per cell "
                                    "(standards.comparison.decide_advantage, some comparison per cell, every cell)",
                            dimensions=())

CLAIMS = (
    Claim(id="sec61-sharp-transition-quick", ref="Sec. 6.1",
          statement="Analogue at m <= 64, cap 12000: every F1-D_K curve that rises to F1 0.99 does so from <= 0.5 "
                    "within a factor 4 of D_K (from 0.8, where the ladder starts above 0.5, within the same logit "
                    "slope)",
          kind=Kind.QUALITATIVE, tier=Tier.QUICK, check=_check_sharp_transition_quick, role="result",
          notes=_QUICK_NOTES + SHARP_RULE + " Chance of passing under the null (every curve wider than its width): "
                "<= 5%; of a false contradiction: <= 5%. Why inconclusive (ledger; always, at this tier): of the 11 "
                "curves that reach mean F1 0.99, 3 are at 0.99 on their first rung D_K = 8 ((32,16) h = 1, 2; (64,32) "
                "h = 1) and set aside; of the other 8, 4 are anchored at 0.5 and 4 at 0.8, and 1 is decided sharp "
                "((64,32) h = 4: 0.69 at 8, 1.0 at 16), 0 gradual, 7 undecided (2 of them start above 0.8: (32,16) "
                "h = 4 at 0.93, (64,32) h = 2 at 0.98). The quick ladder has 4 D_K values (8, 16, 32, 64) and 4 seeds "
                "per point, so the one-sided t-bounds (3 degrees of freedom) at alpha = 0.05/48 are too wide to "
                "certify an end at a point whose seeds disagree. Deciding needs more seeds or a ladder below 8 "
                "(longer quick runs); the statement is decided at the paper's scale by "
                "sec61-sharp-transition-full-grid (inconclusive there too).",
          standard=Standard("sharp-transition", "per (cell, h) F1-D_K curve of sec6-grid quick that rises on the "
                                                "ladder to mean F1 0.99: sharp, gradual or undecided",
                            tolerance=SHARP_TOLERANCE, source=SHARP_SOURCE,
                            primary=SHARP_PRIMARY,
                            dimensions=())),
    Claim(id="sec61-multihead-advantage-quick", ref="Sec. 6.1",
          statement="Analogue at m <= 64, cap 12000: at fixed D_K, several heads reach higher test F1 than one head "
                    "when m >> d_model",
          kind=Kind.QUALITATIVE, tier=Tier.QUICK, check=_check_multihead_advantage_quick, role="result",
          notes=_QUICK_NOTES + " Compressed cells: m/d_model >= 4. The comparison standard "
                "(standards.comparison): per compressed cell, each (h > 1, D_K) against h = 1 at the same D_K on the "
                "same seeds, the t-interval of the per-seed F1 gap at one-sided level 0.05/k (k comparisons in the "
                "cell, Bonferroni). A cell holds when some comparison's interval lies inside [0.1, inf), fails when "
                "every comparison's lies wholly below 0.1, else is undecided; the claim holds when every compressed "
                "cell holds, is contradicted when some cell fails. Chance of passing under the null (h > 1 and h = 1 "
                "equal in distribution): <= 5% per cell (Bonferroni, paired t model). No planted alternative is "
                "declared for the quick analogue; under the no_head_effect plant the rule contradicts.",
          standard=MULTIHEAD_QUICK_STANDARD),
    Claim(id="sec61-dkstar-grows-with-compression-quick", ref="Sec. 6.1",
          statement="Analogue at m <= 64, cap 12000: D_K* grows with m and decreases with d_model",
          kind=Kind.EMPIRICAL, tier=Tier.QUICK, check=_check_dkstar_grows_quick, role="result",
          notes=_QUICK_NOTES + " Per seed, D_K* = smallest D_K where some h reaches test F1 0.99 (inf if none). For "
                "every pair of cells differing in m only or d_model only, an exact one-sided permutation test (mid-"
                "ranks) that the more compressed cell needs more; holds when every pair has p <= 0.05 / #pairs; "
                "contradicted when some pair has the reverse p <= 0.05 / #pairs. Chance of passing under the null "
                "(cells exchangeable): <= 5%.",
          standard=dataclasses.replace(DKSTAR_GROWS_STANDARD, alternative=())),
    Claim(id="fig2-hstar-grows-with-compression-quick", ref="Figure 2",
          statement="Analogue at m <= 64, cap 12000: the head count attaining D_K* increases with compression "
                    "m / d_model",
          kind=Kind.EMPIRICAL, tier=Tier.QUICK, check=_check_hstar_grows_quick, role="result",
          notes=_QUICK_NOTES + " Per-seed h* (the h attaining the per-seed D_K*; ties: larger F1, then fewer heads) "
                "of the least and most compressed cells; exact one-sided permutation test, holds at p <= 0.05, "
                "contradicted when the reverse test gives p <= 0.05. Chance of passing under the null: <= 5%.",
          standard=dataclasses.replace(HSTAR_GROWS_STANDARD, alternative=())),
    Claim(id="fig4-diagonal-sublinear-growth-quick", ref="Figure 4",
          statement="Analogue at m <= 128, cap 12000: along the fixed compression m / d_model = 2, D_K* grows with m "
                    "but far slower than m",
          kind=Kind.EMPIRICAL, tier=Tier.QUICK, check=_check_diagonal_quick, role="result",
          notes="Quick tier: sec6-diagonal quick ((32,16), (64,32), (128,64); h in {1,2}; D_K in {4,6,8,12,16,24,32}; "
                "4 seeds; cap 12000), a scaled-down analogue of the lambda = 8 diagonal. Per-seed D_K* (smallest D_K "
                "where some h reaches F1 0.99; one known only as an upper bound (cap hit, or smallest D_K) counts at "
                "its lower bound where the claim needs it large). Holds when exact one-sided permutation tests give "
                "p <= 0.05 both for 'D_K*(128) > D_K*(32)' and for 'D_K*(128) / 4 < D_K*(32)'; contradicted when a "
                "decrease or a more-than-linear "
                "growth has p <= 0.025. Chance of passing under no growth, or under linear growth: <= 5% each. The "
                "paper's constant is fig4-diagonal-logarithmic-growth (full tier).",
          standard=Standard("rate", "per-seed D_K* at the two ends (m = 32 and 128) of the quick lambda = 2 diagonal",
                            tolerance="growth (ratio > 1) and sub-linearity (ratio < the ratio of m) each at exact "
                                      "one-sided p <= 0.05; a decrease or a super-linear growth at p <= 0.025 "
                                      "contradicts",
                            source="ours: conventional level 0.05, Bonferroni over the two contradiction tests",
                            primary="exact one-sided permutation tests on per-seed thresholds",
                            dimensions=())),
)
