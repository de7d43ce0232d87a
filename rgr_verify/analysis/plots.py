"""Figures of Sec. 6, 7.1-7.3 and App. A.2-A.3 from stored run records (matplotlib, Agg backend).

Each function writes one PNG and returns its path: F1-D_K curves per (m, d_model), one line per h, with 95%
t-interval error bars (Figs. 1, 5, 9; MSE for Fig. 6); D_K^* against a compression variable with the fitted
line (Figs. 3, 12); D_K^* and h^* along the lambda = 8 diagonal (Fig. 4); h^* against compression (Figs. 2, 10, 13);
D_K^* as ladder intervals with the competing laws' fitted curves (Fig. 3, :mod:`rgr_verify.analysis.fits`); Figure 7 of the
Sec. 7.3 sweep (:func:`plot_fig7`, which returns the file name it wrote).
"""

from __future__ import annotations

from pathlib import Path
from typing import Sequence

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

import numpy as np  # noqa: E402

from ..basics.checks import check_real  # noqa: E402
from .capacity import CurvePoint, Fit, Threshold  # noqa: E402
from ..core.stats import t_interval  # noqa: E402

__all__ = ["plot_curves", "plot_dk_star_fit", "plot_h_star", "plot_diagonal", "plot_dk_intervals", "plot_fig7"]


def _natural_key(key):
    """Sort key putting numbers in numeric order: ``"m=64, d_model=16"`` before ``"m=128, d_model=8"``, ``"r=2"``
    before ``"r=16"`` (a tuple key is compared item by item the same way)."""
    import re

    items = key if isinstance(key, tuple) else (key,)
    return tuple(tuple((0, float(t), "") if i % 2 else (1, 0.0, t) for i, t in enumerate(re.split(r"(-?\d+(?:\.\d+)?)", str(k))))
                 for k in items)


def _place_labels(ax, items, *, fontsize: float = 6) -> int:
    """Label points without overlapping text: ``items`` is ``[(x, y, text), ...]`` in data coordinates. Each label tries
    a few offsets around its point and is kept at the first one whose box (from the renderer) overlaps no label
    already placed and stays inside the axes; a label with no free spot is dropped. Returns how many were dropped."""
    from matplotlib.transforms import Bbox

    fig = ax.figure
    renderer = fig.canvas.get_renderer()
    axbox = ax.get_window_extent(renderer)
    offsets = ((3, 3, "left", "bottom"), (3, -3, "left", "top"), (-3, 3, "right", "bottom"),
               (-3, -3, "right", "top"), (5, 0, "left", "center"), (-5, 0, "right", "center"))
    # every point's marker is an obstacle too, so that a label covers no other point
    placed = [Bbox.from_extents(px - 4, py - 4, px + 4, py + 4)
              for px, py in ax.transData.transform([(x, y) for x, y, _ in items]).reshape(-1, 2)] if items else []
    dropped = 0
    # the rightmost points first: at large x the points are sparse and their labels matter most
    for x, y, text in sorted(items, key=lambda t: (-t[0], -t[1])):
        for dx, dy, ha, va in offsets:
            ann = ax.annotate(text, (x, y), xytext=(dx, dy), textcoords="offset points", fontsize=fontsize,
                              ha=ha, va=va)
            box = ann.get_window_extent(renderer)
            own = Bbox.from_extents(*(ax.transData.transform((x, y)) - 4), *(ax.transData.transform((x, y)) + 4))
            inside = (box.x0 >= axbox.x0 and box.x1 <= axbox.x1 and box.y0 >= axbox.y0 and box.y1 <= axbox.y1)
            if inside and not any(box.overlaps(b) for b in placed if b.bounds != own.bounds):
                placed.append(box)
                break
            ann.remove()
        else:
            dropped += 1
    return dropped


def _save(fig, path: Path) -> Path:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    if not getattr(fig, "_laid_out", False):
        fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def plot_curves(groups: dict[tuple, Sequence[CurvePoint]], path, *, title: str, ylabel: str = "test micro-F1",
                target: float | None = 0.99, log_y: bool = False) -> Path:
    """One panel per group (a title string such as ``"m=64, d_model=16"``); one line per h: mean metric against
    D_K with 95% t-intervals."""
    keys = sorted(groups, key=_natural_key)
    if not keys:
        raise ValueError("groups must be non-empty")
    n = len(keys)
    cols = min(n, 3)
    rows = (n + cols - 1) // cols
    fig, axes = plt.subplots(rows, cols, figsize=(4.2 * cols, 3.3 * rows + 0.5), squeeze=False)
    heads = sorted({p.h for key in keys for p in groups[key]})
    colour = {h: f"C{i % 10}" for i, h in enumerate(heads)}  # the same colour for an h in every panel
    handles = {}
    for ax, key in zip(axes.flat, keys):
        pts = groups[key]
        for h in sorted({p.h for p in pts}):
            line = sorted((p for p in pts if p.h == h), key=lambda p: p.D_K)
            xs = [p.D_K for p in line]
            ys = [p.mean for p in line]
            err = [[p.mean - p.low for p in line], [p.high - p.mean for p in line]]
            handles[f"h={h}"] = ax.errorbar(xs, ys, yerr=err, marker="o", ms=3, capsize=2, color=colour[h],
                                            label=f"h={h}")
        if target is not None:
            target_line = ax.axhline(target, color="grey", lw=0.8, ls="--")
        ax.set_xscale("log", base=2)
        if log_y:
            ax.set_yscale("log")
        ax.set_xlabel("D_K")
        ax.set_ylabel(ylabel)
        ax.set_title(key if isinstance(key, str) else ", ".join(str(k) for k in key), fontsize=9)
    for ax in list(axes.flat)[n:]:
        ax.axis("off")
    fig.suptitle(title, fontsize=10)
    if target is not None:
        handles[f"target {target:g}"] = target_line
    # one legend for all panels, below the title and outside every panel, so it covers no data
    fig.legend(list(handles.values()), list(handles), loc="upper center", ncol=min(len(handles), 8), fontsize=7,
               bbox_to_anchor=(0.5, 1 - 0.42 / fig.get_figheight()), frameon=False)
    fig.tight_layout(rect=(0, 0, 1, 1 - 0.55 / fig.get_figheight()))
    fig._laid_out = True
    return _save(fig, path)


def _censored_marks(ax, xs, ys) -> None:
    """Hollow red markers with a downward arrow: thresholds some of whose runs hit the step cap (upper bounds)."""
    if not xs:
        return
    ax.scatter(xs, ys, s=70, facecolors="none", edgecolors="red", zorder=3, label="a threshold run hit the cap (<=)")
    for x, y in zip(xs, ys):
        ax.annotate("", (x, y * 0.8), (x, y), arrowprops={"arrowstyle": "->", "color": "red"})


def plot_dk_star_fit(points: Sequence[tuple[float, Threshold, str]], fit: Fit | None, path, *, title: str,
                     xlabel: str, paper_slope: float | None = None, capped: Sequence[str] = ()) -> Path:
    """D_K^* (central, with optimistic/conservative range) against x, the fitted line through the origin; the points
    labelled in ``capped`` (a threshold run hit the step cap) are marked as upper bounds."""
    fig, ax = plt.subplots(figsize=(5, 4))
    for x, th, label in points:
        if th.central is None:
            ax.scatter([x], [th.max_tested], marker="^", color="red")
            continue
        lo = th.optimistic if th.optimistic is not None else th.central
        hi = th.conservative if th.conservative is not None else th.central
        ax.errorbar([x], [th.central], yerr=[[th.central - lo], [hi - th.central]], fmt="o", color="C0", capsize=3)
    marked = [(x, th.central) for x, th, label in points if label in set(capped) and th.central is not None]
    _censored_marks(ax, [x for x, _ in marked], [y for _, y in marked])
    xmax = max((x for x, _, _ in points), default=1.0)
    if fit is not None:
        ax.plot([0, xmax], [0, fit.slope * xmax], "C1-", label=f"fit {fit.slope:.3g} x (R2 {fit.r2:.3f})")
    if paper_slope is not None:
        ax.plot([0, xmax], [0, paper_slope * xmax], "k:", label=f"paper {paper_slope} x")
    ax.set_xlabel(xlabel)
    ax.set_ylabel("D_K*")
    ax.set_title(title, fontsize=10)
    fig.tight_layout()
    dropped = _place_labels(ax, [(x, th.central, label) for x, th, label in points if th.central is not None])
    if dropped:
        ax.text(0.99, 0.01, f"{dropped} crowded point labels omitted", transform=ax.transAxes, fontsize=6,
                ha="right", va="bottom", color="grey")
    if fit is not None or paper_slope is not None or marked:
        ax.legend(fontsize=7, loc="best")
    fig._laid_out = True  # the labels were placed for this layout
    return _save(fig, path)


def plot_h_star(points: Sequence[tuple[float, Threshold]], path, *, title: str, xlabel: str,
                fit: Fit | None = None, paper_fit: tuple[float, float] | None = None) -> Path:
    """h^* (with its paired-t interval) against a compression variable, optional affine fit and the paper's affine
    line ``paper_fit`` = (slope, intercept) (both drawn where they are >= 1/2: the y axis is logarithmic)."""
    fig, ax = plt.subplots(figsize=(5, 4))
    for x, th in points:
        if th.h_star is None:
            continue
        ax.errorbar([x], [th.h_star], yerr=[[th.h_star - th.h_low], [th.h_high - th.h_star]], fmt="o", color="C0",
                    capsize=3)
    grid = np.linspace(min((x for x, _ in points), default=0.0), max((x for x, _ in points), default=1.0), 200)

    def line(slope, intercept, style, label):
        ys = slope * grid + intercept
        ax.plot(grid, np.where(ys >= 0.5, ys, np.nan), style, label=label)  # h* < 1/2 is off the scale

    if fit is not None and points:
        line(fit.slope, fit.intercept, "C1--", f"fit {fit.slope:.3g} x {'-' if fit.intercept < 0 else '+'} "
                                               f"{abs(fit.intercept):.3g} (R2 {fit.r2:.3f})")
    if paper_fit is not None and points:
        line(paper_fit[0], paper_fit[1], "k:", f"paper {paper_fit[0]:g} x {'-' if paper_fit[1] < 0 else '+'} "
                                               f"{abs(paper_fit[1]):g}")
    if (fit is not None or paper_fit is not None) and points:
        ax.legend(fontsize=7, loc="best")
    ax.set_yscale("log", base=2)
    ax.set_xlabel(xlabel)
    ax.set_ylabel("h*")
    ax.set_title(title, fontsize=10)
    return _save(fig, path)


def plot_diagonal(points: Sequence[tuple[int, Threshold]], path, *, title: str, capped: Sequence[int] = ()) -> Path:
    """Fig. 4: D_K^* (line, left axis) and h^* (bars, right axis) along the lambda = 8 diagonal, against m; the m in
    ``capped`` (a threshold run hit the step cap) are marked as upper bounds."""
    fig, ax = plt.subplots(figsize=(5, 4))
    pts = sorted(points, key=lambda p: p[0])
    ms = [m for m, _ in pts]
    ax.plot(ms, [th.central if th.central is not None else float("nan") for _, th in pts], "o-", color="C0")
    marked = [(m, th.central) for m, th in pts if m in set(capped) and th.central is not None]
    _censored_marks(ax, [m for m, _ in marked], [y for _, y in marked])
    if marked:
        ax.legend(fontsize=7, loc="upper left")
    ax.set_xscale("log", base=2)
    ax.set_xlabel("m")
    ax.set_ylabel("D_K*", color="C0")
    ax2 = ax.twinx()
    ax2.bar(ms, [th.h_star or 0 for _, th in pts], width=[m * 0.3 for m in ms], alpha=0.3, color="C1")
    ax2.set_ylabel("h*", color="C1")
    ax.set_title(title, fontsize=10)
    return _save(fig, path)


def plot_dk_intervals(points: Sequence[tuple[float, float, float, str]], lines: dict[str, Sequence[tuple[float, float]]],
                      path, *, title: str, xlabel: str) -> Path:
    """D_K^* as ladder intervals (low, high] against x (log-log), censored ends drawn as arrows, with one curve per
    fitted law (``{label: [(x, D), ...]}``). ``points``: (x, low, high, label) with low = 0 / high = inf censored."""
    import math

    fig, ax = plt.subplots(figsize=(5.5, 4.2))
    for x, lo, hi, label in points:
        top = hi if math.isfinite(hi) else lo * 2
        bottom = lo if lo > 0 else top / 2
        ax.plot([x, x], [bottom, top], color="C0", lw=2)
        if not math.isfinite(hi):
            ax.annotate("", (x, top), (x, lo), arrowprops={"arrowstyle": "->", "color": "red"})
        if lo <= 0:
            ax.annotate("", (x, bottom), (x, top), arrowprops={"arrowstyle": "->", "color": "red"})
    for i, (label, pts) in enumerate(lines.items()):
        pts = sorted(pts)
        ax.plot([p[0] for p in pts], [p[1] for p in pts], ls="--", marker=".", ms=3, color=f"C{i + 1}", label=label)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel(xlabel)
    ax.set_ylabel("D_K* interval (last failing, first passing]")
    ax.set_title(title, fontsize=10)
    fig.tight_layout()
    dropped = _place_labels(ax, [(x, hi if math.isfinite(hi) else lo * 2, label) for x, lo, hi, label in points])
    if dropped:
        ax.text(0.99, 0.01, f"{dropped} crowded point labels omitted", transform=ax.transAxes, fontsize=6,
                ha="right", va="bottom", color="grey")
    if lines:
        ax.legend(fontsize=6, loc="best")
    fig._laid_out = True  # the labels were placed for this layout
    return _save(fig, path)


def plot_fig7(results, out_dir: Path | str, *, name: str | None = None,
              collapse_threshold: float = 0.05) -> str:
    """Figure 7 (Sec. 7.3) from a :class:`~rgr_verify.runs.sec73_sweep.Sec73Results`: mean test accuracy vs D_K, one
    line per h, 95% t-intervals over seeds; single-head runs drawn as points, with dotted lines at the means of its
    collapsed (< ``collapse_threshold``) and other runs at the upper half of the D_K grid.
    Returns the file name written in ``out_dir``."""
    if not all(hasattr(results, a) for a in ("preset", "values", "covered")):  # read by shape: no import of runs
        raise ValueError(f"results must be a Sec73Results, got {type(results).__name__}")
    check_real("collapse_threshold", collapse_threshold, low=0.0, high=1.0)
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    p = results.preset
    name = name or f"fig7-{p.name}-{p.source}.png"
    fig, ax = plt.subplots(figsize=(6, 4))
    colours = {}
    for h in p.heads:
        stats = [t_interval(results.values(D, h)) for D in p.D_Ks]
        mean = np.array([s[0] for s in stats])
        err = np.array([[s[0] - s[1] for s in stats], [s[2] - s[0] for s in stats]])
        colours[h] = ax.errorbar(p.D_Ks, mean, yerr=err, marker="o", capsize=3, label=f"h = {h}")[0].get_color()
        if h == 1:
            for D in p.D_Ks:
                vals = results.values(D, h)
                ax.scatter([D] * len(vals), vals, s=10, color="grey", alpha=0.6, zorder=3)
            # The two modes of the single head at the upper half of the grid (D_K >= 256 in Figure 7).
            ones = np.concatenate([results.values(D, 1) for D in p.D_Ks[len(p.D_Ks) // 2:]])
            for part, what in ((ones[ones < collapse_threshold], "h = 1 collapsed to NULL"),
                               (ones[ones >= collapse_threshold], "h = 1 partial solution")):
                if part.size:
                    ax.axhline(float(part.mean()), ls=":", color="grey" if part.mean() >= collapse_threshold
                               else "black", lw=1, label=f"{what}: mean of {part.size} runs")
    for D, h in p.extra_cells:  # cells outside the grid: their mean and t-interval, unconnected
        mean, lo, hi = t_interval(results.values(D, h))
        ax.errorbar([D], [mean], yerr=[[mean - lo], [hi - mean]], marker="s", capsize=3, color=colours.get(h),
                    linestyle="none")
    ticks = sorted({D for D, _ in p.cells()})
    ax.set_xscale("log", base=2)
    ax.set_xticks(ticks, [str(D) for D in ticks])
    ax.set_xlabel("total key width D_K")
    ax.set_ylabel("test accuracy")
    ax.set_ylim(-0.02, 1.02)
    ax.set_title(f"Sec. 7.3 / Figure 7 ({p.name} tier, {p.source}, m={p.task.m}, l={p.task.ell})", fontsize=9)
    ax.legend(fontsize=7, loc="best")
    fig.tight_layout()
    fig.savefig(out_dir / name, dpi=120)
    plt.close(fig)
    return name
