"""Figure 2's caption along each axis: the head count attaining D_K* grows as m grows (at each fixed d_model) and as
d_model shrinks (at each fixed m), on the committed ``sec6-grid`` full sweep (replayed).

``fig2-hstar-grows-with-compression`` (:mod:`.trends`) decides its main test on the two extreme cells; this claim
reads the caption as a statement about *each* axis: every line of the grid (a fixed d_model, m growing; a fixed m,
d_model shrinking) is a trend of its own, and the claim is their conjunction.

Per seed, h* is the head count attaining the seed's D_K* (App. A.2's per-seed rule, the code of
``fig2-hstar-grows-with-compression``: :func:`rgr_verify.claims.tools.seed_values`). Two things never count as
evidence for the claim:

- *ties*: when several head counts pass at the seed's D_K*, its h* is the set of them, and each test reads it at the
  end of that set that goes against what the test would show (the growth test at the end that shrinks its statistic,
  the reverse test at the end that grows it);
- *censored seeds*: a seed whose D_K* is an upper bound only (its passing run hit the step cap, or D_K* is the
  ladder's lowest rung) has an unknown h* (the true D_K* may lie lower, where another head count could attain it): in
  the declared analysis it is left out; the multiverse also reads it as measured (App. A.2's protocol), and the
  verdict is the agreement of the two.

The trend of one line is App. A.3's degree-trend statistic, Spearman's rho, taken over every seed of every cell of
the line (:func:`spearman_trend`): rho between the cells' positions along the line and the per-seed h* (mid-ranks),
against its permutation law under the null that h* does not depend on the cell (every value exchangeable over the
line's points). App. A.3's test ranks one h* per cell and enumerates every ordering (3 to 8 points: a line of 3 cells
could never reach 0.05 with it); over 17 to 40 per-seed points the orderings are too many to list, so the law is
drawn: 19 999 seeded random permutations, p = (1 + as extreme) / 20 000, a valid p-value at every level.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
from scipy import stats as _st

from ...analysis.capacity import f1_target
from ..base import Claim, Kind, Status, Tier, Verdict
from ..standards import Standard, conjunction, decide
from ..tools import FAMILY_ALPHA, cell_records, seed_values, sweep_records
from ..tools.multiverse import DIMENSIONS, multiverse_status, significance

__all__ = ["CLAIMS", "ORDER", "LEFT_OUT", "AS_MEASURED", "DRAWS", "hstar_sets", "spearman_trend",
           "grid_lines", "axes_decision"]

ORDER = 61

# The two readings of a censored seed (the multiverse's "cap-limited seeds"): its h* is unknown, so it is left out
# (it can count neither for nor against the claim); or as measured (App. A.2's protocol under the Table 2 caps).
LEFT_OUT = "left out (h* unknown)"
AS_MEASURED = DIMENSIONS["cap-limited seeds"][1]


def hstar_sets(cell_recs, *, censored: str = LEFT_OUT) -> tuple[dict, dict]:
    """Per seed of one cell (its max-over-heads records), the interval ``(fewest, most)`` of the head counts that
    pass App. A.2's F1 target at the seed's D_K* (several when they tie; one when h* is unique), and what was left
    out. A seed with no passing configuration has no h* (left out); a censored seed (its D_K* an upper bound only:
    the passing run hit the step cap, or D_K* is the lowest D_K tested) is left out under :data:`LEFT_OUT` and kept
    under :data:`AS_MEASURED`. Returns ``({seed: (lo, hi)}, {"censored": [seeds], "no h*": [seeds], "tied":
    [seeds]})``."""
    if censored not in (LEFT_OUT, AS_MEASURED):
        raise ValueError(f"censored must be {LEFT_OUT!r} or {AS_MEASURED!r}, got {censored!r}")
    if not cell_recs:
        return {}, {"censored": [], "no h*": [], "tied": []}
    _, _, per = seed_values(cell_recs, favour="small")  # App. A.2's per-seed D_K* and h* (fig2's code)
    lowest = min(r["config"]["n_heads"] * r["config"]["d_k"] for r in cell_recs)
    target = f1_target()
    out, info = {}, {"censored": [], "no h*": [], "tied": []}
    for s, v in sorted(per.items()):
        if v["h"] is None:
            info["no h*"].append(s)
            continue
        if v["stopped_early"] is False or v["D_K"] == lowest:
            info["censored"].append(s)
            if censored == LEFT_OUT:
                continue
        tied = sorted({int(r["config"]["n_heads"]) for r in cell_recs if int(r["seed"]) == s
                       and r["config"]["n_heads"] * r["config"]["d_k"] == v["D_K"] and float(r["metric"]) >= target})
        tied = tied or [int(v["h"])]
        if len(tied) > 1:
            info["tied"].append(s)
        out[s] = (float(tied[0]), float(tied[-1]))
    return out, info


DRAWS = 19_999  # random permutations of one test: p-values resolve to 1 / 20 000


def _centred_ranks(values) -> np.ndarray:
    r = _st.rankdata(np.asarray(values, dtype=float))
    return r - r.mean()


def spearman_trend(points, *, rng: np.random.Generator, draws: int = DRAWS) -> dict:
    """The rank trend of one line: Spearman's rho between the cells' positions along the line and the per-seed h*
    (mid-ranks for ties), with its one-sided permutation p-values each way. ``points``: ``(x, lo, hi)`` per seed
    and cell: the cell's position (larger = more compressed) and the seed's h* there as an interval (lo == hi when
    it is unique). Ties are read against each test: per cell, its tied seeds at their fewest or their most heads,
    the reading of the 2^cells that gives the smallest rho for the growth test and the largest for the reverse test
    (the null law is that of the values read). The reference law: ``draws`` random permutations of the values
    over the points (``rng``, seeded by the caller), p = (1 + #{rho* >= rho}) / (draws + 1) (a valid p-value at
    every level, exact in that sense: no normal approximation). Returns ``{"rho_up", "rho_down", "p_up",
    "p_down", "finest", "points"}``, ``finest`` the smallest p-value the design could reach at all (every value
    distinct and ordered along the line: the share of orderings as extreme, prod n_cell! / n!, or 1 / (draws + 1)
    when larger). Fewer than two cells with a value: nothing is tested (p = 1 each way)."""
    pts = [(int(x), float(lo), float(hi)) for x, lo, hi in points]
    cells = sorted({x for x, _, _ in pts})
    if len(cells) < 2:
        return {"rho_up": None, "rho_down": None, "p_up": 1.0, "p_down": 1.0, "finest": 1.0, "points": len(pts)}
    xs = np.array([x for x, _, _ in pts], dtype=float)
    cx = _centred_ranks(xs)

    def rho(ry):
        den = math.sqrt(float((cx ** 2).sum() * (ry ** 2).sum()))
        return float(cx @ ry) / den if den > 0 else 0.0

    readings = []
    for ends in itertools.product((0, 1), repeat=len(cells)):
        end = dict(zip(cells, ends))
        ry = _centred_ranks([(lo, hi)[end[x]] for x, lo, hi in pts])
        readings.append((rho(ry), ends, ry))
    up, down = min(readings, key=lambda t: (t[0], t[1])), max(readings, key=lambda t: (t[0], t[1]))
    out = {"rho_up": up[0], "rho_down": down[0], "points": len(pts)}
    for name, (_, _, ry), sign in (("p_up", up, 1.0), ("p_down", down, -1.0)):
        if not np.any(ry):  # every value tied: no ordering is more extreme than another
            out[name] = 1.0
            continue
        obs = sign * float(cx @ ry)
        perm = sign * (rng.permuted(np.tile(ry, (draws, 1)), axis=1) @ cx)
        out[name] = (1 + int(np.sum(perm >= obs - 1e-9))) / (draws + 1)
    sizes = [int(np.sum(xs == x)) for x in cells]
    exact = math.exp(sum(math.lgamma(k + 1) for k in sizes) - math.lgamma(len(pts) + 1))
    out["finest"] = max(exact, 1.0 / (draws + 1))
    return out


def grid_lines(keys) -> dict:
    """The lines of a grid of cells ``keys`` ((m, d_model)), each ordered from the least to the most compressed:
    ``{"m at d_model = d": [cells by growing m], "d_model at m = m0": [cells by shrinking d_model]}`` (lines of at
    least two cells)."""
    keys = sorted(set(keys))
    lines = {}
    for d in sorted({k[1] for k in keys}):
        cells = sorted(k for k in keys if k[1] == d)
        if len(cells) >= 2:
            lines[f"m at d_model = {d}"] = cells
    for m in sorted({k[0] for k in keys}):
        cells = sorted((k for k in keys if k[0] == m), key=lambda k: -k[1])
        if len(cells) >= 2:
            lines[f"d_model at m = {m}"] = cells
    return lines


def axes_decision(sets: dict, level: float, *, seed: int, draws: int = DRAWS) -> tuple[Status, dict]:
    """The rule of fig2-hstar-grows-along-each-axis over per-seed h* intervals ``sets`` ({(m, d_model): {seed: (lo,
    hi)}}). Per line of the grid (:func:`grid_lines`), the rank trend of h* along the line (:func:`spearman_trend`,
    its permutations drawn from a generator seeded by ``seed``, the line and the direction): growth at one-sided
    ``level`` holds the line (an intersection-union test: every line must hold, so the claim's null pass
    probability stays <= ``level``), the reverse at ``level`` / #lines fails it (Bonferroni: any line may fail),
    conflicting readings decide nothing; each axis is the conjunction of its lines, the claim the conjunction of the
    two axes. ``resolvable``: whether every line's design could reach ``level`` at all. Returns the status and the
    resolution per line and per axis."""
    if not 0.0 < float(level) < 1.0:
        raise ValueError(f"level must be in (0, 1), got {level!r}")
    lines = grid_lines(sets)
    if not lines:
        raise ValueError("the grid has no line of two cells or more")
    down_level = level / len(lines)
    per_line, by_axis = {}, {"m": [], "d_model": []}
    for i, (name, cells) in enumerate(lines.items()):
        points = [(x, *sets[c][s]) for x, c in enumerate(cells) for s in sorted(sets[c])]
        t = spearman_trend(points, rng=np.random.default_rng([int(seed), i]), draws=draws)
        up, down = t["p_up"] <= level, t["p_down"] <= down_level
        status = decide(up and not down, down and not up)  # two readings may both reject: that decides nothing
        by_axis[name.split(" at ")[0]].append(status)
        per_line[name] = {"cells": [f"({m},{d})" for m, d in cells], "seeds per cell": [len(sets[c]) for c in cells],
                          "rho (ties against growth)": t["rho_up"], "p (grows)": t["p_up"],
                          "p (shrinks)": t["p_down"], "smallest attainable p": t["finest"], "status": status.value}
    axes = {axis: conjunction(sts) for axis, sts in by_axis.items() if sts}
    status = conjunction(axes.values())
    resolvable = all(v["smallest attainable p"] <= level for v in per_line.values())
    return status, {"lines": per_line, "axes": {a: s.value for a, s in axes.items()}, "level (grows)": level,
                    "level (shrinks, Bonferroni)": down_level, "resolvable": resolvable}


def _check_hstar_each_axis(ctx):
    recs, why = sweep_records("sec6-grid", "full", ctx)
    if recs is None:
        return Verdict.not_run(why)
    keys = sorted({(r["config"]["m"], r["config"]["d_model"]) for r in recs if r["config"]["variant"] == "max"})
    level = significance(FAMILY_ALPHA)
    analyses, by = [], {}
    for choice in (LEFT_OUT, AS_MEASURED):
        got = {k: hstar_sets(cell_records(recs, k), censored=choice) for k in keys}
        status, res = axes_decision({k: v[0] for k, v in got.items()}, level, seed=ctx.seed)
        by[choice] = (status, res, {f"({k[0]},{k[1]})": v[1] for k, v in got.items()})
        analyses.append({"choices": {"cap-limited seeds": choice}, "estimate": None, "interval": None,
                         "status": status, **({} if res["resolvable"] else {"resolvable": False})})
    status, robustness = multiverse_status(analyses)
    _, res, info = by[LEFT_OUT]
    failed = [n for n, v in res["lines"].items() if v["status"] == Status.CONTRADICTED_EMPIRICALLY.value]

    def rounded(r, full=True):
        keys = ("rho (ties against growth)", "p (grows)", "p (shrinks)", "smallest attainable p")
        return {n: ({**v, **{k: None if v[k] is None else float(f"{v[k]:.4g}") for k in keys}} if full else
                    {"p (grows)": float(f"{v['p (grows)']:.4g}"), "status": v["status"]})
                for n, v in r["lines"].items()}

    return Verdict(status, evidence_level="experiment",
                   paper_value="the head count that minimises D_K rises with m and falls with d_model (Figure 2), "
                               "read along each axis",
                   measured_value={"lines (censored seeds left out)": rounded(res), "axes": res["axes"],
                                   "by cap-limited seeds": {c: {"status": s.value, "axes": r["axes"]}
                                                            for c, (s, r, _) in by.items()},
                                   "lines (censored seeds as measured)": rounded(by[AS_MEASURED][1], full=False),
                                   "seeds per cell": {k: {n: len(v) for n, v in i.items()} for k, i in info.items()}},
                   witness=failed or None,
                   params={"robustness": robustness, "alpha": FAMILY_ALPHA, "level (grows)": res["level (grows)"],
                           "level (shrinks, Bonferroni)": res["level (shrinks, Bonferroni)"],
                           "null pass probability": f"<= {FAMILY_ALPHA} (exact tests; every line must pass)"},
                   details=f"Seven lines of the grid (m growing at each d_model, d_model shrinking at each m), a rank "
                           f"trend test of per-seed h* per line (Spearman's rho, permutation law); tied head counts read "
                           f"against each test, censored seeds left out (and, in the multiverse, as measured). "
                           f"{robustness['summary']}.",
                   evidence=f"full sweep ({len(recs)} runs); per-seed h* (App. A.2), Spearman rank trend tests per "
                            f"line ({DRAWS} seeded permutations each)")


CLAIMS = (
    Claim(id="fig2-hstar-grows-along-each-axis", ref="Figure 2",
          statement="At paper scale, the head count attaining D_K* grows with m at each fixed d_model and as d_model "
                    "shrinks at each fixed m (each axis, every line of the grid)",
          kind=Kind.EMPIRICAL, tier=Tier.FULL, check=_check_hstar_each_axis, role="result", replays=("sec6-grid",),
          analyses=("leave one seed out", "readings of App. A.1", "F1 target", "test level"),
          notes="Full tier: the committed sec6-grid full sweep (m in {64, 128, 256, 512} x d_model in {16, 32, 64}, "
                "10 seeds, Table 2 caps), replayed. Per seed, h* = the head count attaining the seed's D_K* (App. "
                "A.2's per-seed rule, as fig2-hstar-grows-with-compression reads it); several head counts passing at "
                "D_K* are a tie, read at the end of the tie that goes against each test; a seed whose D_K* is an "
                "upper bound only (its passing run hit the cap, or D_K* is the lowest rung) is left out (its h* is "
                "unknown). Seven lines: m growing at each d_model (3), d_model shrinking at each m (4). Per line, "
                "App. A.3's trend statistic over every seed of every cell: Spearman's rho between the position along "
                "the line and h*, its one-sided p-value from 19 999 seeded random permutations (p = (1 + as "
                "extreme) / 20 000, valid at every level): growth at p <= 0.05 holds the line, the reverse at p <= 0.05 / 7 fails it; each axis is the conjunction of its lines, the claim "
                "the conjunction of the axes (null pass probability <= 5%: every line must pass). Multiverse: the "
                "censored seeds also read as measured, each seed left out, App. A.1's readings, the F1 target, the "
                "test level. App. A.3's exact version (one h* per cell, every ordering listed) could never reach 0.05 "
                "on a line of three cells.",
          standard=Standard("trend", "per-seed h* (the head count attaining the seed's D_K*) along each line of the "
                                     "grid: m growing at fixed d_model, d_model shrinking at fixed m",
                            tolerance="every line's rank trend test of growth at one-sided p <= 0.05 "
                                      "(ties read against it, censored seeds left out); some line's reverse test at "
                                      "p <= 0.05 / #lines contradicts; axes and lines combined by conjunction",
                            source="ours: conventional level 0.05 (intersection-union over the lines for holding, "
                                   "Bonferroni over them for contradicting)",
                            primary="Spearman rank trend of per-seed h* per line, permutation p-value (seeded "
                                    "draws)",
                            dimensions=("cap-limited seeds",), alternative=("no_head_effect", "holds-empirically"))),
)
