"""Multiverse verdicts: one experimental claim judged under every reasonable analysis, and the verdict it survives.

An *analysis* is one choice per declared *dimension* (the log base, the estimator, which cells enter, ...): a dict
``{"choices": {dimension: value}, "estimate": float, "interval": [lo, hi], "status": Status}``. The claim's verdict
is the common status when every analysis agrees (``robust``); otherwise it is inconclusive, "fragile: holds in k of
N analyses", and the record names the choices that flip it: each pair of analyses that differ in one dimension only
and disagree. The dimensions and their values are declared once (:data:`DIMENSIONS`) and shared by the claims that
use them; adding one is one line there and one more loop where the analyses are built.

*Resolution.* An analysis whose design cannot decide whatever the data (an exact test whose smallest attainable
p-value is above its level: 2 seeds against 3, a level divided by 5 on 3 seeds) and that is inconclusive carries
``"resolvable": False``: it is counted (``robustness["unresolvable"]``) and named in the summary but left out of the
agreement, the lean and the flips, since a referee would not count a test that could not have rejected. A check
marks it (its curve's analyses, or ``params["resolvable"]`` of a variant's verdict); nothing else is left out.

*The lean.* "All agree, else inconclusive" treats 32 holds of 33 like 0 of 33, so the record also says which way the
analyses lean: an inconclusive verdict whose analyses disagree *leans* to the side (holds or contradicted) that more
of its analyses reach than reach the other, "leaning contradicted (k of N)" (with ", holds in j" when some reach the
other side); no lean when both sides are reached equally often (none included). The lean is a description of the
analyses, never a verdict: the status stays "all agree, else inconclusive".

``robustness = {analyses, agree, robust, by_status, lean, dimensions, flips, curve}`` travels in the verdict's params
(the report lifts it to the record) and :func:`specification_curve` draws the estimates and intervals of all analyses
against the claim's band, sorted by estimate and coloured by status.

*Runner dimensions* (:data:`RUNNER_DIMENSIONS`, named in ``Claim.analyses``) re-run a claim's whole check on a
context that changes what its record readers and its threshold and tolerance code read; the new ones are varied one
at a time around the default (each value with every other dimension at its default, not crossed with the left-out
seeds), which keeps the full-tier audit affordable. A check's own dimensions (params["robustness"]) are declared in
the claim's standard (``Claim.standard.dimensions``).
"""

from __future__ import annotations

import dataclasses
import math
from collections import Counter
from pathlib import Path

from ...analysis.capacity import analysis_choice
from ..base import RUNNER_ANALYSES, Status, Verdict
from ..standards import agreement, unresolvable

__all__ = ["DIMENSIONS", "RUNNER_DIMENSIONS", "RUNNER_VALUES", "multiverse_status", "specification_curve",
           "run_analyses", "tolerance", "significance", "lean_of"]

# The dimensions the runner applies to a claim's whole check (a claim names them in ``Claim.analyses``; a full-tier
# empirical or qualitative claim has "leave one seed out" unless it declares otherwise, "F1 target" when it replays an
# F1 sweep, "seed batch" when it replays batched evidence): each value re-runs the check on a context whose record
# readers (:meth:`rgr_verify.claims.base.CheckContext.keep_records`) leave records out, or whose threshold and
# tolerance code (:meth:`~rgr_verify.claims.base.CheckContext.applied`) read another choice.
RUNNER_DIMENSIONS = {
    "leave one seed out": "none, then each training seed of the records the check read, left out in turn",
    "readings of App. A.1": "the engine's (literal sampler, init std 1/sqrt(d_model)), then each other reading: the "
                            "sec6-grid cells trained under it (m <= 128) replaced by those runs",
    "F1 target": "App. A.2's bar 0.99, then 0.985 and 0.995 (App. A.2 names optimistic and conservative variants of "
                 "its threshold; a bar half a point either way is the referee's version): every D_K*, h*, cap "
                 "sensitivity and transition the check computes is recomputed at that bar",
    "threshold rule": "App. A.2's central D_K* (mean F1 at the bar), then its conservative and optimistic variants "
                      "(the 95% t-interval's lower or upper end at the bar): every D_K* and h* the check computes "
                      "by App. A.2's rule is recomputed under that variant",
    "tolerance": "each tolerance band of ours the check judges as declared, then with its half-width halved and "
                 "doubled (on the log scale for a factor band: a factor sqrt(2) becomes 2^(1/4) and 2); a band the "
                 "paper states is not varied",
    "test level": "each significance level the check's tests use as declared (0.05, or a family's 0.05 split by "
                  "Bonferroni), then a fifth of it and twice it (0.01 and 0.10 for a plain 0.05)",
    "seed batch": "every batch of the evidence, then its first batch alone where the evidence was trained in batches "
                  "(later batches added seeds after an inconclusive result: rgr_verify.runs.replay.SEED_BATCHES)",
}
if tuple(RUNNER_DIMENSIONS) != RUNNER_ANALYSES:  # declared twice (base.py must not import this module): kept equal
    raise ValueError("RUNNER_DIMENSIONS and rgr_verify.claims.base.RUNNER_ANALYSES name different dimensions")

# The values of the runner's one-at-a-time dimensions: (label, the context's value), the default first (None).
RUNNER_VALUES = {
    "F1 target": (("0.99 (App. A.2)", None), ("0.985", 0.985), ("0.995", 0.995)),
    "threshold rule": (("central", None), ("conservative", "conservative"), ("optimistic", "optimistic")),
    "tolerance": (("as declared", None), ("half-width x 1/2", 0.5), ("half-width x 2", 2.0)),
    "test level": (("as declared", None), ("x 1/5", 0.2), ("x 2", 2.0)),
    "seed batch": (("every batch", None), ("first batch only", "first batch")),
}
# The context field each of them sets.
_FIELDS = {"F1 target": "f1_target", "threshold rule": "threshold_rule", "tolerance": "tolerance_scale",
           "test level": "level_scale", "seed batch": "seed_batch"}

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
    # what is compared with the fitted line or the band: the cells' D_K* intervals, or the paper's own point estimate
    # (the first passing D_K, App. A.2's central rule)
    "points compared": ("D_K* intervals", "paper's point estimates (first passing D_K)"),
    # App. A.2's h*: the h attaining D_K* (ties: larger mean F1), or, when several h tie at F1 ~ 1, the smallest or
    # the largest of them (heads whose mean F1 at D_K* is within 0.001 of the best)
    "h* tie-break": ("larger mean F1 (App. A.2)", "fewest heads among the ties", "most heads among the ties"),
    # the D_K range a statement about "the lowest MSE" is judged over, where the paper states none
    "D_K range": ("every D_K of the sweep", "D_K <= 64"),
    # "memorised" (2502.05076): every triple right under the run's criterion, or at least 95% of them
    "memorisation criterion": ("every triple right", "accuracy >= 0.95"),
    # the accuracy a facts-model comparison reads: argmax, or softmax probability >= 0.95 (the summary's criterion)
    "accuracy criterion": ("argmax", "softmax >= 0.95"),
    # "low D_K where d_k becomes very small": the D_K where h = 16 leaves each head d_k = 1, or d_k <= 2
    "low D_K": ("h = 16 at d_k = 1", "h = 16 at d_k <= 2"),
    # the contrast of a comparison where the statement leaves it open (values named by the claim)
    "contrast": ("as declared", "each other contrast"),
    # the max-over-heads runs a softmax threshold is compared with: every seed of the base grid, or only the seeds the
    # softmax runs have (like for like)
    "max-model seeds": ("every seed of sec6-grid", "the softmax runs' seeds only"),
    # which seeds pick a winner that the others confirm (Figure 7: the declared selection seeds, then each other
    # disjoint block of as many seeds)
    "selection seeds": ("the declared selection seeds", "each other block of as many seeds"),
    # which half of the seeds picks the winner and which tests it
    "seed split": ("pick on the first half, test on the second", "pick on the second half, test on the first"),
    # the committed doubled-cap runs (table2-cap2x) in place of the Table 2 cap runs where they cover a cell
    "cap runs": ("Table 2 caps", "doubled caps where table2-cap2x covers the rung"),
    # the cells a trend claim compares: the comparison it declares (e.g. the least against the most compressed cell),
    # then every pair of cells that differ in one coordinate (m only or d_model only), each pair tested
    "cells compared": ("the claim's declared comparison", "every pair differing in one coordinate"),
    # a per-seed threshold the Table 2 cap stopped (known only as an upper bound): read against the claim (replaced,
    # where a test needs it large, by its lower bound, tools.seed_values) or as measured (App. A.2's protocol)
    "cap-limited seeds": ("read against the claim", "as measured"),
}

_WORD = {Status.HOLDS_EMPIRICALLY: "holds", Status.CONTRADICTED_EMPIRICALLY: "contradicted",
         Status.INCONCLUSIVE: "inconclusive"}

# The two sides a lean can name, holds first: the lean counts the analyses on each, it decides nothing.
_LEAN_SIDES = (Status.HOLDS_EMPIRICALLY, Status.CONTRADICTED_EMPIRICALLY)


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
    # An analysis whose design cannot decide at its resolution (an exact test whose smallest attainable p-value is
    # above its level, e.g. 2 seeds against 3, or a level divided by 5) and that is inconclusive says nothing about
    # the data: it is counted and named, but left out of the agreement and the lean (``"resolvable": False``). When
    # every analysis is such, the claim is inconclusive.
    blind = [a for a in analyses if unresolvable(a)]
    judged = [a for a in analyses if not unresolvable(a)]
    counts = Counter(a["status"] for a in judged)
    robust = len(counts) == 1
    status = agreement((a["status"] for a in judged), empty_ok=True)
    flips = []
    for i, a in enumerate(judged):
        for b in judged[i + 1:]:
            diff = [d for d in a["choices"] if a["choices"][d] != b["choices"].get(d)]
            if len(diff) == 1 and a["status"] is not b["status"]:
                d = diff[0]
                flips.append({"dimension": d, "from": f"{a['choices'][d]}: {_WORD.get(a['status'], a['status'].value)}",
                              "to": f"{b['choices'][d]}: {_WORD.get(b['status'], b['status'].value)}",
                              "with": {k: v for k, v in a["choices"].items() if k != d}})
    holds = counts.get(Status.HOLDS_EMPIRICALLY, 0)
    lean = lean_of(counts, len(judged)) if not robust and judged else None
    left_out = (f"; {len(blind)} more cannot decide at their resolution (left out of the agreement)" if blind
                else "")
    summary = ((f"robust: {_WORD.get(status, status.value)} in all {len(judged)} analyses" if robust else
                f"fragile: holds in {holds} of {len(judged)} analyses ("
                + ", ".join(f"{n} {_WORD.get(s, s.value)}" for s, n in counts.items() if n) + ")"
                + (f"; {lean['text']}" if lean else "")) if judged else
               f"no analysis can decide at its resolution ({len(blind)} analyses)") + left_out
    return status, {
        "analyses": len(analyses), "agree": max(counts.values(), default=0), "robust": robust, "summary": summary,
        "unresolvable": len(blind),
        "by_status": {**{s.value: 0 for s in _WORD}, **{s.value: n for s, n in counts.items()}}, "lean": lean,
        "dimensions": dims, "flips": flips[:MAX_FLIPS],
        "flips_total": len(flips),
        "curve": [{**{k: v for k, v in a.items() if k not in ("choices", "status")}, "choices": a["choices"],
                   "estimate": a.get("estimate"), "interval": a.get("interval"), "status": a["status"].value}
                  for a in analyses],
    }


def lean_of(counts, n: int) -> dict | None:
    """Which way analyses that disagree lean (the module docstring's rule): ``{"towards": "holds" or "contradicted",
    "k": analyses on that side, "other": analyses on the other side, "of": n, "text": "leaning contradicted (2 of
    6)"}``, or None when neither side is reached more often. ``counts``: {Status: analyses}."""
    if not isinstance(n, int) or n < 1:
        raise ValueError(f"n must be a positive number of analyses, got {n!r}")
    h, c = (int(counts.get(side, 0)) for side in _LEAN_SIDES)
    if h + c > n or h < 0 or c < 0:
        raise ValueError(f"counts {dict(counts)} exceed the {n} analyses")
    if h == c:
        return None
    towards, k, other = ("holds", h, c) if h > c else ("contradicted", c, h)
    rest = f"; {'contradicted' if towards == 'holds' else 'holds'} in {other}" if other else ""
    return {"towards": towards, "k": k, "other": other, "of": n, "text": f"leaning {towards} ({k} of {n}{rest})"}


def tolerance(value, *, kind: str = "additive", source: str = "ours") -> float:
    """A tolerance band's half-width as the analysis in force judges it: ``value`` (an additive half-width >= 0, or
    a factor > 1 for a band [x / f, x f]) times the multiverse's "tolerance" scale (:data:`RUNNER_VALUES`; on the
    log scale for a factor: f ** scale). A tolerance the paper states (``source="paper"``) is returned as it is and
    not counted as read: only a band of ours is varied."""
    if kind not in ("additive", "factor"):
        raise ValueError(f"kind must be 'additive' or 'factor', got {kind!r}")
    if source not in ("ours", "paper"):
        raise ValueError(f"source must be 'ours' or 'paper', got {source!r}")
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"tolerance must be a number, got {value!r}") from None
    if not math.isfinite(v) or (kind == "factor" and not v > 1) or (kind == "additive" and v < 0):
        raise ValueError(f"a {kind} tolerance must be {'a finite factor > 1' if kind == 'factor' else 'finite and >= 0'}"
                         f", got {value!r}")
    if source == "paper":
        return v
    scale = float(analysis_choice("tolerance", 1.0))
    return v * scale if kind == "additive" else v ** scale


def significance(alpha: float) -> float:
    """A test's significance level as the analysis in force reads it: ``alpha`` (in (0, 1)) times the multiverse's
    "test level" scale (:data:`RUNNER_VALUES`), capped below 1."""
    try:
        a = float(alpha)
    except (TypeError, ValueError):
        raise ValueError(f"alpha must be a number in (0, 1), got {alpha!r}") from None
    if not 0 < a < 1:
        raise ValueError(f"alpha must be a number in (0, 1), got {alpha!r}")
    return min(a * float(analysis_choice("test level", 1.0)), 0.5)


test_level = significance  # its first name, which other modules import


def specification_curve(robustness: dict, band, path: Path, *, title: str, what: str = "estimate",
                        paper=None) -> Path:
    """A specification curve that stays legible at page width (9 in at 100 dpi, 900 px): each analysis's estimate and
    interval ranked by estimate and coloured by its status (an interval open on a side dashed to the plot's edge; an
    analysis that cannot decide at its resolution hollow), the tolerance ``band`` ((low, high), a side may be
    infinite; None: none) and the paper's value ``paper`` (a number; None: none) drawn across it, and a legend with
    each status's count. Below it, one row per choice of each dimension (the dimension's name on the right): up to
    40 analyses every analysis's choices are marked under it; with more, the intervals are thin lines and each row
    is a heat strip, the share of the analyses in each stretch of the rank that made that choice. Returns the file
    written (a PNG whose Description says which of the two it drew); ValueError for a robustness without a curve, a
    band that is not a (low, high) pair, a paper value that is not a finite number."""
    import textwrap

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    if not isinstance(robustness, dict) or not isinstance(robustness.get("curve"), (list, tuple)):
        raise ValueError("robustness must be a multiverse record with a 'curve' (multiverse_status)")
    if band is not None:
        try:
            band = tuple(float(b) for b in band)
        except (TypeError, ValueError):
            raise ValueError(f"band must be None or a (low, high) pair of numbers, got {band!r}") from None
        if len(band) != 2 or not band[0] <= band[1]:
            raise ValueError(f"band must be None or a (low, high) pair with low <= high, got {band!r}")
    if paper is not None:
        if isinstance(paper, bool) or not isinstance(paper, (int, float)) or not math.isfinite(paper):
            raise ValueError(f"paper must be None or a finite number, got {paper!r}")
        paper = float(paper)
    marked_up_to = 40  # beyond this many analyses a mark per analysis and choice is illegible at 900 px

    def num(v):
        return float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) else None

    curve = sorted(robustness["curve"], key=lambda a: (num(a.get("estimate")) is None, num(a.get("estimate")) or 0.0))
    n = len(curve)
    marked = n <= marked_up_to
    colours = {"holds-empirically": "tab:green", "contradicted-empirically": "tab:red", "inconclusive": "tab:gray"}
    words = {"holds-empirically": "holds", "contradicted-empirically": "contradicted", "inconclusive": "inconclusive"}
    dims = {d: list(v) for d, v in (robustness.get("dimensions") or {}).items()}
    rows = [(d, v) for d, vals in dims.items() for v in vals]
    names = [str(v) if len(str(v)) <= 36 else str(v)[:35].rstrip(" ,;(") + "…" for _, v in rows]

    # sizes in inches: the title, the curve, one row per choice, the rank axis
    width, right = 9.0, 1.25
    left = min(2.45, max(0.8, 0.35 + 0.057 * max((len(t) for t in names), default=0)))  # room for the names
    summary = textwrap.wrap(str(robustness.get("summary") or ""), 118)[:3]
    head = 0.32 + 0.17 * len(summary) + 0.42
    top_h = 3.0
    row_h = 0.17 if marked else 0.15
    low_h = max(0.5, row_h * len(rows)) if rows else 0.0
    gap, foot = 0.12, 0.62 if marked or not rows else 1.1  # the rank axis's label; the share's colour bar
    height = head + top_h + (gap + low_h if rows else 0.0) + foot
    fig = plt.figure(figsize=(width, height))
    x0, x1 = left / width, 1 - right / width

    def box(y_top, h):  # [left, bottom, width, height] in figure fractions, y_top measured from the top in inches
        return [x0, 1 - (y_top + h) / height, x1 - x0, h / height]

    ax = fig.add_axes(box(head, top_h))
    ax2 = fig.add_axes(box(head + top_h + gap, low_h), sharex=ax) if rows else None
    fig.text(0.01, 1 - 0.08 / height, title, fontsize=11, fontweight="bold", va="top")
    for k, line in enumerate(summary):
        fig.text(0.01, 1 - (0.34 + 0.17 * k) / height, line, fontsize=8.5, va="top", color="#333333")

    # the curve: intervals (lines), estimates (dots), one artist per colour and kind
    counts = Counter()
    bars: dict = {}
    dots: dict = {}
    hollow: dict = {}
    unbounded = []
    for i, a in enumerate(curve):
        status = str(a.get("status"))
        blind = a.get("resolvable") is False
        counts["blind" if blind else status] += 1
        c = colours.get(status, "black")
        iv = a.get("interval")
        if isinstance(iv, (list, tuple)) and len(iv) == 2:
            try:
                lo, hi = float(iv[0]), float(iv[1])
            except (TypeError, ValueError):
                lo = hi = None
            if lo is not None and math.isfinite(lo + hi):
                for part, v in zip(bars.setdefault(c, ([], [], [])), (i, lo, hi)):
                    part.append(v)
            elif lo is not None and not (math.isnan(lo) or math.isnan(hi)):
                unbounded.append((i, lo, hi, c))
        est = num(a.get("estimate"))
        if est is not None:
            for part, v in zip((hollow if blind else dots).setdefault(c, ([], [])), (i, est)):
                part.append(v)
    lw, alpha, ms = (2.0, 0.9, 5.5) if marked else ((1.0, 0.55, 2.2) if n <= 250 else (0.7, 0.5, 1.6))
    for c, (xs, los, his) in bars.items():
        ax.vlines(xs, los, his, color=c, lw=lw, alpha=alpha)
    for c, (xs, ys) in dots.items():
        ax.plot(xs, ys, "o", color=c, linestyle="none", ms=ms, zorder=3)
    for c, (xs, ys) in hollow.items():
        ax.plot(xs, ys, "o", mfc="white", mec=c, linestyle="none", ms=ms + 0.5, zorder=3)
    # the vertical range: the analyses' values, the paper's value and the finite sides of the band
    ys = [v for _, los, his in bars.values() for v in los + his] + [v for _, e in dots.values() for v in e] + [
        v for _, e in hollow.values() for v in e] + [v for _, lo, hi, _ in unbounded for v in (lo, hi)
                                                    if math.isfinite(v)]
    ys += [v for v in (band or ()) if math.isfinite(v)] + ([paper] if paper is not None else [])
    y0, y1 = (min(ys), max(ys)) if ys else (0.0, 1.0)
    pad = 0.06 * (y1 - y0) if y1 > y0 else max(abs(y0) * 0.1, 0.5)
    y0, y1 = y0 - pad, y1 + pad
    for i, lo, hi, c in unbounded:  # an interval open on a side: dashed to the edge of the plot
        ax.vlines(i, y0 if not math.isfinite(lo) else lo, y1 if not math.isfinite(hi) else hi, color=c, lw=lw,
                  alpha=alpha if marked else 0.3, linestyles="dashed")
    handles = []
    if band is not None:
        ax.axhspan(max(band[0], y0), min(band[1], y1), color="tab:blue", alpha=0.12, zorder=0)
        side = [f"{v:.3g}" if math.isfinite(v) else ("-inf" if v < 0 else "inf") for v in band]
        handles.append(Patch(color="tab:blue", alpha=0.25, label=f"tolerance band [{side[0]}, {side[1]}]"))
    if paper is not None:
        ax.axhline(paper, color="black", lw=1.3, ls="--", zorder=4)
        handles.append(Line2D([], [], color="black", lw=1.3, ls="--", label=f"the paper's value {paper:.4g}"))
    ax.set_ylim(y0, y1)
    ax.set_xlim(-0.5 - (0.3 if marked else 0.005 * n), n - 0.5 + (0.3 if marked else 0.005 * n))
    for status, c in colours.items():
        if counts.get(status):
            handles.append(Line2D([], [], color=c, marker="o", lw=2, label=f"{words[status]} ({counts[status]})"))
    if counts.get("blind"):
        handles.append(Line2D([], [], color="tab:gray", marker="o", mfc="white", lw=0,
                              label=f"cannot decide at its resolution ({counts['blind']})"))
    other = sum(v for k, v in counts.items() if k not in colours and k != "blind")
    if other:
        handles.append(Line2D([], [], color="black", marker="o", lw=2, label=f"other status ({other})"))
    ax.legend(handles=handles, loc="lower left", bbox_to_anchor=(0.0, 1.0), ncol=min(4, max(1, len(handles))),
              fontsize=8, frameon=False, borderaxespad=0.2, handlelength=1.6, columnspacing=1.2)
    ax.set_ylabel(what, fontsize=9)
    ax.tick_params(labelsize=8)
    ax.grid(axis="y", color="#dddddd", lw=0.6)
    ax.set_axisbelow(True)
    rank_axis = ax2 if ax2 is not None else ax
    if ax2 is not None:
        ax.tick_params(labelbottom=False)
        if marked:
            marks = [(i, j) for i, a in enumerate(curve) for j, (d, v) in enumerate(rows)
                     if (a.get("choices") or {}).get(d) == v]
            if marks:
                ax2.plot([i for i, _ in marks], [j for _, j in marks], "s", color="black", ms=4.5, linestyle="none")
            ax2.set_ylim(len(rows) - 0.5, -0.5)
            ax2.set_xticks(range(n))
            ax2.set_xticklabels([str(i + 1) for i in range(n)], fontsize=7 if n > 20 else 8)
            ax2.grid(axis="x", color="#eeeeee", lw=0.6)
            ax2.set_axisbelow(True)
        else:
            bins = min(n, 60)
            which = (np.arange(n) * bins) // n  # each analysis's stretch of the rank
            size = np.bincount(which, minlength=bins).astype(float)
            share = np.zeros((len(rows), bins))
            for j, (d, v) in enumerate(rows):
                hit = np.array([(a.get("choices") or {}).get(d) == v for a in curve], dtype=float)
                share[j] = np.bincount(which, weights=hit, minlength=bins) / size
            edges = np.searchsorted(which, np.arange(bins + 1), side="left").astype(float) - 0.5
            edges[-1] = n - 0.5
            mesh = ax2.pcolormesh(edges, np.arange(len(rows) + 1) - 0.5, share, cmap="Greys", vmin=0.0, vmax=1.0,
                                  shading="flat")
            ax2.set_ylim(len(rows) - 0.5, -0.5)
            cax = fig.add_axes([x1 - 2.2 / width, 0.42 / height, 2.2 / width, 0.09 / height])
            bar = fig.colorbar(mesh, cax=cax, orientation="horizontal", ticks=[0, 0.5, 1])
            bar.ax.tick_params(labelsize=7)
            bar.set_label("share of the analyses in that stretch of the rank", fontsize=7, labelpad=1)
        ax2.set_yticks(range(len(rows)))
        ax2.set_yticklabels(names, fontsize=7.5)
        start = 0
        for d, vals in dims.items():  # the dimension's name on the right, a rule between dimensions
            if start:
                ax2.axhline(start - 0.5, color="#888888", lw=0.8)
            mid = start + (len(vals) - 1) / 2
            ax2.text(1.01, mid, "\n".join(textwrap.wrap(str(d), 20)[:2]), transform=ax2.get_yaxis_transform(),
                     fontsize=7.5, fontweight="bold", va="center", ha="left", clip_on=False)
            start += len(vals)
        ax2.tick_params(axis="x", labelsize=8)
    rank_axis.set_xlabel(f"analysis, ranked by {what} (1 = lowest)" if not marked else
                         f"analysis, ranked by {what} (1 = lowest); a square marks each analysis's choices",
                         fontsize=8.5)
    if not marked:  # ranks 1, then round numbers, at their analyses
        from matplotlib.ticker import MaxNLocator

        ranks = [1] + [int(t) for t in MaxNLocator(nbins=10, integer=True).tick_values(1, n) if 1 < t <= n]
        rank_axis.set_xticks([r - 1 for r in ranks])
        rank_axis.set_xticklabels([str(r) for r in ranks])
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    layout = "each analysis's choices marked" if marked else "summarised: each choice's share along the rank"
    part = path.with_name(f".{path.name}.part")  # written whole, then moved into place: never a partial file
    try:
        fig.savefig(part, dpi=100, format=(path.suffix.lstrip(".") or "png").lower(),
                    metadata={"Title": str(title), "Description": f"specification curve of {n} analyses; {layout}"})
        part.replace(path)
    finally:
        plt.close(fig)
        part.unlink(missing_ok=True)
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
    """'seed 3 left out', 'the protected sampler reading', 'F1 target 0.985', or several joined by 'with'."""
    parts = []
    if choices.get(read_dim, "engine's") != "engine's":
        parts.append(f"the {choices[read_dim]} reading")
    for dim, values in RUNNER_VALUES.items():
        if choices.get(dim, values[0][0]) != values[0][0]:
            parts.append(f"{dim} {choices[dim]}")
    if choices.get(seed_dim, "none") != "none":
        parts.append(f"{choices[seed_dim]} left out")
    return " with ".join(parts)


def _run(claim, ctx) -> Verdict:
    """``claim.check(ctx)`` with the context's analysis choices in force (:meth:`CheckContext.applied`)."""
    with ctx.applied():
        return claim.check(ctx)


def _failed(v: Verdict) -> bool:
    return bool(v.unavailable) or v.status is Status.ERROR


def run_analyses(claim, ctx) -> Verdict:
    """``claim.check(ctx)`` under every combination of the claim's runner dimensions (``claim.analyses``) and the
    analyses its check computes itself (a ``robustness`` in its params), combined by :func:`multiverse_status`.

    "leave one seed out": the check runs on every record (the analysis "none"), then once per training seed of the
    records it read with that seed's records left out. A check that reads no per-seed records, or whose records a
    left-out seed does not touch, is a ValueError (the dimension would be a no-op that passes for robustness).
    "readings of App. A.1": the check runs under the engine's readings, then under each other reading of
    :data:`rgr_verify.runs.presets.READING_PRESETS` (crossed with every left-out seed); a reading that replaces no record
    the check read is a ValueError. "F1 target", "threshold rule", "tolerance", "test level", "seed batch"
    (:data:`RUNNER_VALUES`): one at a time around the default, each other value with every other dimension at its
    default; a check that never reads the F1 target, an App. A.2 threshold, a tolerance of ours or a test level, or
    whose records no later batch touches, is a ValueError, and so is a check that reads one of the first four without
    declaring the dimension (its verdict would silently skip it). A check's own dimensions declared in the claim's standard (``Claim.standard.dimensions``)
    must appear in its robustness.
    A variant that errors or cannot run makes the claim's verdict an error naming it.
    The default analysis keeps its details, values and artefacts; params["robustness"] is the combined record, and
    the details end with its summary and the choices that flip the verdict."""
    from ...runs.presets import READING_PRESETS

    if not claim.analyses:
        return _run(claim, ctx)
    unknown = [a for a in claim.analyses if a not in RUNNER_DIMENSIONS]
    if unknown:
        raise ValueError(f"claim {claim.id}: unknown runner dimensions {unknown}; known: {sorted(RUNNER_DIMENSIONS)}")
    default = _run(claim, ctx)
    if _failed(default):
        return default
    reads = ctx.seeds_read.get("reads", {})
    what = {"F1 target": "an F1 target", "threshold rule": "an App. A.2 threshold", "tolerance": "a tolerance of ours",
            "test level": "a test level"}
    for dim, thing in what.items():
        if dim in claim.analyses and not reads.get(dim):
            raise ValueError(f"claim {claim.id}: {dim}: its check never reads {thing}")
        if dim not in claim.analyses and reads.get(dim):
            raise ValueError(f"claim {claim.id}: its check reads {thing} but does not declare {dim!r} among its "
                             "analyses")
    own = tuple(getattr(getattr(claim, "standard", None), "dimensions", None) or ())
    named = set(((default.params or {}).get("robustness") or {}).get("dimensions") or ())
    missing = [d for d in own if d not in named]
    if missing:
        raise ValueError(f"claim {claim.id}: its standard declares the dimensions {missing} but its check's "
                         "robustness varies none of them")
    seed_dim, read_dim = "leave one seed out", "readings of App. A.1"
    choice_dims = [d for d in RUNNER_VALUES if d in claim.analyses]
    at_default = {d: RUNNER_VALUES[d][0][0] for d in choice_dims}
    readings = [None] + (sorted(READING_PRESETS) if read_dim in claim.analyses else [])
    runs = []
    for reading in readings:
        choice = {read_dim: reading or "engine's"} if read_dim in claim.analyses else {}
        if reading is None:
            base, read = default, ctx.seeds_read
        else:
            sub = ctx.variant(reading=reading)
            base, read = _run(claim, sub), sub.seeds_read
            ctx.provenance.extend(p for p in sub.provenance if p not in ctx.provenance)  # the reading's evidence
            if _failed(base):
                why = base.details or base.unavailable
                return Verdict(status=Status.ERROR, details=f"{read_dim}, {reading}: {why}", witness=base.witness)
            if read.get("replaced", 0) == 0:
                raise ValueError(f"claim {claim.id}: {read_dim}: the reading {reading!r} replaced no record it read")
        runs.append(({**choice, **({seed_dim: "none"} if seed_dim in claim.analyses else {}), **at_default}, base))
        if seed_dim not in claim.analyses:
            continue
        seeds = sorted(read["seeds"])
        if len(seeds) < 2:
            raise ValueError(f"claim {claim.id}: {seed_dim}: its check read records of {len(seeds)} training seed(s); "
                             "a claim without per-seed records must declare analyses=()")
        for seed in seeds:
            sub = ctx.variant(leave_out_seed=seed, reading=reading)
            v = _run(claim, sub)
            if _failed(v):
                where = f"{choice[read_dim]}, " if choice else ""
                return Verdict(status=Status.ERROR, details=f"{seed_dim}, {where}seed {seed}: "
                                                            f"{v.details or v.unavailable}", witness=v.witness)
            if sub.seeds_read["left out"] == 0:
                raise ValueError(f"claim {claim.id}: {seed_dim}: leaving out seed {seed} removed no record it read")
            runs.append(({**choice, seed_dim: f"seed {seed}", **at_default}, v))
    rest = {**({read_dim: "engine's"} if read_dim in claim.analyses else {}),
            **({seed_dim: "none"} if seed_dim in claim.analyses else {})}
    for dim in choice_dims:  # one at a time around the default
        for label, value in RUNNER_VALUES[dim][1:]:
            sub = ctx.variant(**{_FIELDS[dim]: value})
            v = _run(claim, sub)
            ctx.provenance.extend(p for p in sub.provenance if p not in ctx.provenance)
            if _failed(v):
                return Verdict(status=Status.ERROR, details=f"{dim}, {label}: {v.details or v.unavailable}",
                               witness=v.witness)
            if dim == "seed batch" and not sub.seeds_read.get("batch left out"):
                raise ValueError(f"claim {claim.id}: {dim}: its check read no record of a later batch")
            runs.append(({**rest, **at_default, dim: label}, v))
    analyses = []
    for choices, v in runs:
        own_rob = (v.params or {}).get("robustness")
        if own_rob:
            analyses += [{"choices": {**a["choices"], **choices}, "estimate": a.get("estimate"),
                          "interval": a.get("interval"), "status": Status(a["status"]),
                          **({"resolvable": False} if a.get("resolvable") is False else {})}
                         for a in own_rob["curve"]]
        else:
            est, iv = _estimate(v.params or {})
            analyses.append({"choices": dict(choices), "estimate": est, "interval": iv, "status": v.status,
                             **({"resolvable": False} if (v.params or {}).get("resolvable") is False else {})})
    status, robustness = multiverse_status(analyses)
    flipping = list(dict.fromkeys(_flip_text(choices, seed_dim, read_dim) for choices, v in runs
                                  if v.status is not default.status and not unresolvable(
                                      {"status": v.status, "resolvable": (v.params or {}).get("resolvable")})))
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
