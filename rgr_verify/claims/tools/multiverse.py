"""Multiverse verdicts: one experimental claim judged under every reasonable analysis, and the verdict it survives.

An *analysis* is one choice per declared *dimension* (the log base, the estimator, which cells enter, ...): a dict
``{"choices": {dimension: value}, "estimate": float, "interval": [lo, hi], "status": Status}``. The claim's verdict
is the common status when every analysis agrees (``robust``); otherwise it is inconclusive, "fragile: holds in k of
N analyses", and the record names the choices that flip it: each pair of analyses that differ in one dimension only
and disagree. The dimensions and their values are declared once (:data:`DIMENSIONS`) and shared by the claims that
use them; adding one is one line there and one more loop where the analyses are built.

``robustness = {analyses, agree, robust, dimensions, flips, curve}`` travels in the verdict's params (the report
lifts it to the record) and :func:`specification_curve` draws the estimates and intervals of all analyses against
the claim's band, sorted by estimate and coloured by status.
"""

from __future__ import annotations

import dataclasses
import math
from collections import Counter
from pathlib import Path

from ..base import Status, Verdict

__all__ = ["DIMENSIONS", "RUNNER_DIMENSIONS", "multiverse_status", "specification_curve", "run_analyses"]

# The dimensions the runner applies to a claim's whole check (a claim names them in ``Claim.analyses``; a full-tier
# empirical or qualitative claim has "leave one seed out" unless it declares otherwise): each value re-runs the check
# on a context whose record readers (:meth:`rgr_verify.claims.base.CheckContext.keep_records`) leave records out.
RUNNER_DIMENSIONS = {
    "leave one seed out": "none, then each training seed of the records the check read, left out in turn",
    "readings of App. A.1": "the engine's (literal sampler, init std 1/sqrt(d_model)), then each other reading: the "
                            "sec6-grid cells trained under it (m <= 128) replaced by those runs",
}

# At most this many flips are listed in a record (their total is counted).
MAX_FLIPS = 24

# Declared once: the analysis dimensions of the experimental claims and their reasonable values.
DIMENSIONS = {
    "log base": ("ln", "log2"),  # the printed 'log m' names no base
    "estimator": (
        "interval regression, censored cells as intervals",  # our default (censored-Gaussian, profile interval)
        "interval regression, uncensored cells only",  # cells with a D_K* inside the ladder only
        "interval regression, cap-limited cells as upper bounds",  # runs stopped by the Table 2 cap: bounds only
        "interval regression, cells where any threshold run hit the cap as upper bounds",  # the stricter reading
        "paper estimator (LS through origin, first passing D_K)",  # App. A.2; interval = its ladder grid range
    ),
    "thresholds": ("ladder (App. A.2 grid)", "adaptive search (committed evidence)"),  # D_K* between the rungs
    "cells": ("all", "without the d_model = 16, m > 64 cells"),  # Sec. 6.1's own exclusion
    # cap-limited (most runs at (h*, D_K*) hit the Table 2 cap) as upper bounds; every cell where any did; none
    "cap-limited cells": ("upper bounds only", "upper bounds wherever a threshold run hit the cap",
                          "intervals like the others"),
    "leave one cell out": ("none", "each cell in turn"),  # values named at run time: "none", then each cell
    "leave one seed out": ("none", "each seed in turn"),  # values named at run time (RUNNER_DIMENSIONS)
}

_WORD = {Status.HOLDS_EMPIRICALLY: "holds", Status.CONTRADICTED_EMPIRICALLY: "contradicted",
         Status.INCONCLUSIVE: "inconclusive"}


def multiverse_status(analyses: list[dict]) -> tuple[Status, dict]:
    """The claim's status over ``analyses`` and its ``robustness`` record (see the module docstring)."""
    if not analyses:
        raise ValueError("analyses must hold at least one analysis")
    dims = {}
    for a in analyses:
        if not isinstance(a.get("status"), Status) or not isinstance(a.get("choices"), dict):
            raise ValueError("each analysis needs 'choices' (a dict) and 'status' (a Status)")
        for d, v in a["choices"].items():
            dims.setdefault(d, [])
            if v not in dims[d]:
                dims[d].append(v)
    counts = Counter(a["status"] for a in analyses)
    robust = len(counts) == 1
    status = analyses[0]["status"] if robust else Status.INCONCLUSIVE
    flips = []
    for i, a in enumerate(analyses):
        for b in analyses[i + 1:]:
            diff = [d for d in a["choices"] if a["choices"][d] != b["choices"].get(d)]
            if len(diff) == 1 and a["status"] is not b["status"]:
                d = diff[0]
                flips.append({"dimension": d, "from": f"{a['choices'][d]}: {_WORD.get(a['status'], a['status'].value)}",
                              "to": f"{b['choices'][d]}: {_WORD.get(b['status'], b['status'].value)}",
                              "with": {k: v for k, v in a["choices"].items() if k != d}})
    holds = counts.get(Status.HOLDS_EMPIRICALLY, 0)
    summary = (f"robust: {_WORD.get(status, status.value)} in all {len(analyses)} analyses" if robust else
               f"fragile: holds in {holds} of {len(analyses)} analyses ("
               + ", ".join(f"{n} {_WORD.get(s, s.value)}" for s, n in counts.items()) + ")")
    return status, {
        "analyses": len(analyses), "agree": max(counts.values()), "robust": robust, "summary": summary,
        "by_status": {s.value: n for s, n in counts.items()}, "dimensions": dims, "flips": flips[:MAX_FLIPS],
        "flips_total": len(flips),
        "curve": [{**{k: v for k, v in a.items() if k not in ("choices", "status")}, "choices": a["choices"],
                   "estimate": a.get("estimate"), "interval": a.get("interval"), "status": a["status"].value}
                  for a in analyses],
    }


def specification_curve(robustness: dict, band, path: Path, *, title: str, what: str = "estimate") -> Path:
    """A specification curve: each analysis's estimate and interval (sorted by estimate, coloured by its status;
    an interval open on a side is drawn dashed to the plot's edge) against the tolerance ``band`` (None: no band), with each
    analysis's choices marked below. Returns the file written."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    curve = sorted(robustness["curve"], key=lambda a: (a["estimate"] is None, a["estimate"] or 0.0))
    colours = {"holds-empirically": "tab:green", "contradicted-empirically": "tab:red", "inconclusive": "tab:gray"}
    dims = list(robustness["dimensions"])
    dense = len(curve) > 60  # hundreds of analyses: a readable width (30 in), smaller marks, fewer tick labels
    fig, (ax, ax2) = plt.subplots(2, 1, figsize=(min(30.0, max(9.0, 0.5 * len(curve) + 6)), 4 + 0.35 * sum(
        len(v) for v in robustness["dimensions"].values())), sharex=True,
        gridspec_kw={"height_ratios": [3, 1 + 0.3 * sum(len(v) for v in robustness["dimensions"].values())]})
    if band is not None:
        ax.axhspan(band[0], band[1], color="tab:blue", alpha=0.12, label="tolerance band")
    unbounded = []
    bars: dict = {}  # colour -> ([x], [low], [high]); points likewise: one artist per colour, not one per analysis
    dots: dict = {}
    for i, a in enumerate(curve):
        lo, hi = (float(v) for v in a["interval"]) if a["interval"] else (None, None)
        c = colours.get(a["status"], "black")
        if lo is not None and hi is not None:
            if math.isfinite(lo + hi):
                for part, v in zip(bars.setdefault(c, ([], [], [])), (i, lo, hi)):
                    part.append(v)
            else:
                unbounded.append((i, lo, hi, c, a["estimate"]))
        if a["estimate"] is not None:
            for part, v in zip(dots.setdefault(c, ([], [])), (i, a["estimate"])):
                part.append(v)
    for c, (xs, los, his) in bars.items():
        ax.vlines(xs, los, his, color=c, lw=2)
    for c, (xs, ys) in dots.items():
        ax.plot(xs, ys, "o", color=c, linestyle="none", ms=3 if dense else 6)
    y0, y1 = ax.get_ylim()
    for i, lo, hi, c, est in unbounded:  # an interval open on a side: dashed to the edge of the plot
        lo_d, hi_d = (y0 if not math.isfinite(lo) else lo), (y1 if not math.isfinite(hi) else hi)
        ax.vlines(i, lo_d, hi_d, color=c, lw=2, linestyles="dashed")
    ax.set_ylim(y0, y1)
    ax.set_ylabel(what)
    ax.set_title(title + f"\n{robustness['summary']}", fontsize=9)
    if band is not None:
        ax.legend(loc="best", fontsize=8)
    rows = [(d, v) for d in dims for v in robustness["dimensions"][d]]
    marks = [(i, j) for i, a in enumerate(curve) for j, (d, v) in enumerate(rows) if a["choices"].get(d) == v]
    if marks:
        ax2.plot([i for i, _ in marks], [j for _, j in marks], "s", color="black", ms=2.5 if dense else 5,
                 linestyle="none")
    ax2.set_yticks(range(len(rows)))
    ax2.set_yticklabels([f"{d}: {v}"[:60] for d, v in rows], fontsize=7)
    if dense:
        from matplotlib.ticker import MaxNLocator

        ax2.xaxis.set_major_locator(MaxNLocator(nbins=30, integer=True))
    else:
        ax2.set_xticks(range(len(curve)))
    ax2.set_xlabel("analysis (sorted by estimate)")
    ax2.invert_yaxis()
    fig.subplots_adjust(left=0.42, right=0.97, top=0.9, bottom=0.08, hspace=0.08)
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=90)
    plt.close(fig)
    return path


def _number(value):
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(
        value) else None


def _estimate(params: dict):
    """(estimate, interval) of a verdict for its specification curve: its params' "estimate" and "interval", else the
    midpoint and ends of the interval its equivalence test judged (params["resolution"]), else (None, None)."""
    est, iv = _number(params.get("estimate")), params.get("interval")
    res = params.get("resolution")
    if est is None and isinstance(res, dict) and isinstance(res.get("interval"), (list, tuple)):
        lo, hi = (_number(x) for x in res["interval"])
        if lo is not None and hi is not None:
            est, iv = (lo + hi) / 2, [lo, hi]
    return est, iv


def _flip_text(choices: dict, seed_dim: str, read_dim: str) -> str:
    """'seed 3 left out', 'the protected sampler reading', or both joined by 'with'."""
    parts = []
    if choices.get(read_dim, "engine's") != "engine's":
        parts.append(f"the {choices[read_dim]} reading")
    if choices.get(seed_dim, "none") != "none":
        parts.append(f"{choices[seed_dim]} left out")
    return " with ".join(parts)


def run_analyses(claim, ctx) -> Verdict:
    """``claim.check(ctx)`` under every combination of the claim's runner dimensions (``claim.analyses``) and the
    analyses its check computes itself (a ``robustness`` in its params), combined by :func:`multiverse_status`.

    "leave one seed out": the check runs on every record (the analysis "none"), then once per training seed of the
    records it read with that seed's records left out. A check that reads no per-seed records, or whose records a
    left-out seed does not touch, is a ValueError (the dimension would be a no-op that passes for robustness).
    "readings of App. A.1": the check runs under the engine's readings, then under each other reading of
    :data:`rgr_verify.runs.presets.READING_PRESETS` (crossed with every left-out seed); a reading that replaces no record
    the check read is a ValueError. A variant that errors or cannot run makes the claim's verdict an error naming it.
    The default analysis keeps its details, values and artefacts; params["robustness"] is the combined record, and
    the details end with its summary and the choices that flip the verdict."""
    from ...presets import READING_PRESETS

    if not claim.analyses:
        return claim.check(ctx)
    unknown = [a for a in claim.analyses if a not in RUNNER_DIMENSIONS]
    if unknown:
        raise ValueError(f"claim {claim.id}: unknown runner dimensions {unknown}; known: {sorted(RUNNER_DIMENSIONS)}")
    default = claim.check(ctx)
    if default.unavailable or default.status is Status.ERROR:
        return default
    seed_dim, read_dim = "leave one seed out", "readings of App. A.1"
    readings = [None] + (sorted(READING_PRESETS) if read_dim in claim.analyses else [])
    runs = []
    for reading in readings:
        choice = {read_dim: reading or "engine's"} if read_dim in claim.analyses else {}
        if reading is None:
            base, read = default, ctx.seeds_read
        else:
            sub = ctx.variant(reading=reading)
            base, read = claim.check(sub), sub.seeds_read
            ctx.provenance.extend(p for p in sub.provenance if p not in ctx.provenance)  # the reading's evidence
            if base.unavailable or base.status is Status.ERROR:
                why = base.details or base.unavailable
                return Verdict(status=Status.ERROR, details=f"{read_dim}, {reading}: {why}", witness=base.witness)
            if read.get("replaced", 0) == 0:
                raise ValueError(f"claim {claim.id}: {read_dim}: the reading {reading!r} replaced no record it read")
        runs.append(({**choice, **({seed_dim: "none"} if seed_dim in claim.analyses else {})}, base))
        if seed_dim not in claim.analyses:
            continue
        seeds = sorted(read["seeds"])
        if len(seeds) < 2:
            raise ValueError(f"claim {claim.id}: {seed_dim}: its check read records of {len(seeds)} training seed(s); "
                             "a claim without per-seed records must declare analyses=()")
        for seed in seeds:
            sub = ctx.variant(leave_out_seed=seed, reading=reading)
            v = claim.check(sub)
            if v.unavailable or v.status is Status.ERROR:
                where = f"{choice[read_dim]}, " if choice else ""
                return Verdict(status=Status.ERROR, details=f"{seed_dim}, {where}seed {seed}: "
                                                            f"{v.details or v.unavailable}", witness=v.witness)
            if sub.seeds_read["left out"] == 0:
                raise ValueError(f"claim {claim.id}: {seed_dim}: leaving out seed {seed} removed no record it read")
            runs.append(({**choice, seed_dim: f"seed {seed}"}, v))
    analyses = []
    for choices, v in runs:
        own = (v.params or {}).get("robustness")
        if own:
            analyses += [{"choices": {**a["choices"], **choices}, "estimate": a.get("estimate"),
                          "interval": a.get("interval"), "status": Status(a["status"])} for a in own["curve"]]
        else:
            est, iv = _estimate(v.params or {})
            analyses.append({"choices": dict(choices), "estimate": est, "interval": iv, "status": v.status})
    status, robustness = multiverse_status(analyses)
    flipping = list(dict.fromkeys(_flip_text(choices, seed_dim, read_dim) for choices, v in runs
                                  if v.status is not default.status))
    shown = flipping[:MAX_FLIPS]
    tail = (f" Multiverse: {robustness['summary']}" + (f"; the verdict changes with {', '.join(shown)}"
                                                       f"{' and more' if len(flipping) > len(shown) else ''}."
                                                       if flipping else "."))
    details = default.details if isinstance(default.details, str) else repr(default.details)
    artefacts = tuple(default.artefacts)
    if ctx.out_dir is not None and any(a["estimate"] is not None for a in robustness["curve"]):
        p = default.params or {}
        band = p.get("band") or (p.get("resolution") or {}).get("band")
        path = specification_curve(robustness, band if isinstance(band, (list, tuple)) and len(band) == 2 else None,
                                   Path(ctx.out_dir) / f"{claim.id}-specification-curve.png", title=claim.id)
        artefacts += (str(path.relative_to(ctx.out_dir)),)
    return dataclasses.replace(default, status=status, details=details + tail, artefacts=artefacts,
                               params={**(default.params or {}), "robustness": robustness})
