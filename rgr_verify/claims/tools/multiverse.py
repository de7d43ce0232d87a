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

import math
from collections import Counter
from pathlib import Path

from ..base import Status

__all__ = ["DIMENSIONS", "multiverse_status", "specification_curve"]

# Declared once: the analysis dimensions of the experimental claims and their reasonable values.
DIMENSIONS = {
    "log base": ("ln", "log2"),  # the printed 'log m' names no base
    "estimator": (
        "interval regression, censored cells as intervals",  # our default (censored-Gaussian, profile interval)
        "interval regression, uncensored cells only",  # cells with a D_K* inside the ladder only
        "interval regression, cap-limited cells as upper bounds",  # runs stopped by the Table 2 cap: bounds only
        "paper estimator (LS through origin, first passing D_K)",  # App. A.2; interval = its ladder grid range
    ),
    "cells": ("all", "without the d_model = 16, m > 64 cells"),  # Sec. 6.1's own exclusion
    "cap-limited cells": ("upper bounds only", "intervals like the others"),  # runs stopped by the Table 2 cap
    "leave one cell out": ("none", "each cell in turn"),  # values named at run time: "none", then each cell
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
        "by_status": {s.value: n for s, n in counts.items()}, "dimensions": dims, "flips": flips,
        "curve": [{**{k: v for k, v in a.items() if k not in ("choices", "status")}, "choices": a["choices"],
                   "estimate": a.get("estimate"), "interval": a.get("interval"), "status": a["status"].value}
                  for a in analyses],
    }


def specification_curve(robustness: dict, band, path: Path, *, title: str, what: str = "estimate") -> Path:
    """A specification curve: each analysis's estimate and interval (sorted by estimate, coloured by its status;
    an interval open on a side is drawn dashed to the plot's edge) against the tolerance ``band``, with each
    analysis's choices marked below. Returns the file written."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    curve = sorted(robustness["curve"], key=lambda a: (a["estimate"] is None, a["estimate"] or 0.0))
    colours = {"holds-empirically": "tab:green", "contradicted-empirically": "tab:red", "inconclusive": "tab:gray"}
    dims = list(robustness["dimensions"])
    fig, (ax, ax2) = plt.subplots(2, 1, figsize=(max(9.0, 0.5 * len(curve) + 6), 4 + 0.35 * sum(
        len(v) for v in robustness["dimensions"].values())), sharex=True,
        gridspec_kw={"height_ratios": [3, 1 + 0.3 * sum(len(v) for v in robustness["dimensions"].values())]})
    ax.axhspan(band[0], band[1], color="tab:blue", alpha=0.12, label="tolerance band")
    unbounded = []
    for i, a in enumerate(curve):
        lo, hi = (float(v) for v in a["interval"]) if a["interval"] else (None, None)
        c = colours.get(a["status"], "black")
        if lo is not None and hi is not None:
            ax.vlines(i, max(lo, -1e300), min(hi, 1e300), color=c, lw=2) if math.isfinite(lo + hi) else \
                unbounded.append((i, lo, hi, c, a["estimate"]))
        if a["estimate"] is not None:
            ax.plot(i, a["estimate"], "o", color=c)
    y0, y1 = ax.get_ylim()
    for i, lo, hi, c, est in unbounded:  # an interval open on a side: dashed to the edge of the plot
        lo_d, hi_d = (y0 if not math.isfinite(lo) else lo), (y1 if not math.isfinite(hi) else hi)
        ax.vlines(i, lo_d, hi_d, color=c, lw=2, linestyles="dashed")
    ax.set_ylim(y0, y1)
    ax.set_ylabel(what)
    ax.set_title(title + f"\n{robustness['summary']}", fontsize=9)
    ax.legend(loc="best", fontsize=8)
    rows = [(d, v) for d in dims for v in robustness["dimensions"][d]]
    for i, a in enumerate(curve):
        for j, (d, v) in enumerate(rows):
            if a["choices"].get(d) == v:
                ax2.plot(i, j, "s", color="black", ms=5)
    ax2.set_yticks(range(len(rows)))
    ax2.set_yticklabels([f"{d}: {v}"[:60] for d, v in rows], fontsize=7)
    ax2.set_xticks(range(len(curve)))
    ax2.set_xlabel("analysis (sorted by estimate)")
    ax2.invert_yaxis()
    fig.subplots_adjust(left=0.42, right=0.97, top=0.9, bottom=0.08, hspace=0.08)
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=90)
    plt.close(fig)
    return path
