"""One figure per finding for the reader's site: the paper's value and ours, drawn from the record alone.

A *finding* is a claim that ran and is refuted or contradicted empirically (:func:`is_finding`). :func:`figure_png`
picks, from what the record holds (``params``, ``witness``, ``measured_value``, ``paper_value``, ``stated``), the
first kind of evidence of :data:`FIGURE_KINDS` it can draw and returns the PNG (matplotlib, Agg, about 600 x 300
px), the kind and a caption sentence (the image's alt text) saying what is drawn:

- ``fitted-rate``: each fitted exponent's interval against the stated exponent and its band, a number line per
  variable (``params`` ``interval``/``band``/``claimed_exponent``, ``per_variable``, or the fit's sentence
  "fitted exponent x, 95% CI [a, b] against the band <= c"); beside it, where the witness holds the fit and its
  points, the points on log axes with our fitted line and the stated exponent's line;
- ``failure-rate``: the observed failure rate of each configuration with its exact interval against the stated
  failure probability (``params["configs"]``), or the share of failing draws against the constant C per size
  (a ``table`` of ``draws``/``draws_ok`` rows) against the paper's "no failing draw";
- ``estimates``: estimates with intervals written in the measured value ("name: x [a, b]") against the stated
  value, or a list of estimates against the reference value the statement names (with its radius);
- ``covering``: the covering count against log(number of graphs) along m (the lower-bound claims of Sec. 10);
- ``two-sides``: the two sides of the paper's inequality at the witness (``lhs``, ``rhs``), per reading;
- ``stated-vs-computed``: a value the paper states beside the one computed from its own data;
- ``limit``: the ratio whose limit refutes the statement (``lim_{m -> oo} f(m) = L``), evaluated along m from
  10 to 10^15, beside the order-one ratio the statement needs;
- ``values``: what is left: our numbers (measured value, witness) and the paper's stated numbers as points, or, when
  the record holds no number to compare, the two values in words (the caption says so).

No number is invented: every number drawn is in the record (a line the paper's statement implies, such as "no
draw fails", is named as such). :func:`write_figures` writes ``<folder>/<claim id>.png`` for every finding
(atomic writes) and returns, per claim id, the file name, the kind and the caption.
"""

from __future__ import annotations

import io
import math
import re
from pathlib import Path

from ...basics.files import atomic_write_bytes
from .values import clean_text, number

__all__ = ["FIGURE_KINDS", "FINDING_STATUSES", "is_finding", "figure_png", "write_figures"]

FIGURE_KINDS = ("fitted-rate", "failure-rate", "estimates", "covering", "two-sides", "exhaustive", "stated-vs-computed",
                "limit", "curve", "values")
FINDING_STATUSES = ("refuted", "contradicted-empirically")

PAPER, OURS = "#1f4e9c", "#cf222e"  # the paper's colour, ours
SIZE_IN, DPI = (6.0, 3.0), 100
_NUM = r"-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?"
_FIT_TEXT = re.compile(rf"fitted exponent ({_NUM}), (\d+)% CI \[({_NUM}), ({_NUM})\] against the band "
                       rf"(?:(<=|>=) ({_NUM})|\[({_NUM}), ({_NUM})\])")
_INTERVAL_TEXT = re.compile(rf"([A-Za-z][\w .=-]*?): ({_NUM}) \[({_NUM}), ({_NUM})\]")
_LIMIT_TEXT = re.compile(r"lim_\{?(\w+) -> oo\}? (.+?) = (-?oo|-?\d+(?:/\d+)?(?:\.\d+)?)(?=$|[:;,]| \w)")
# witness keys that name a size, an index or a seed rather than a value to compare
_INDEX_KEYS = re.compile(r"^(m|m'|d_model|d_k|d|h|heads?|n|i|j|k|pair|draw|seed|source|item|target.*|n_heads|"
                         r"c0.*|C|ell|B|r|reading|p|f|K|Delta|eps_d|instance|config|grid.*)$")


def is_finding(record: dict) -> bool:
    """Whether ``record`` (a claim of report.json) ran and is refuted or contradicted empirically."""
    return bool(record.get("ran")) and record.get("status") in FINDING_STATUSES


def _real(x) -> float | None:
    if isinstance(x, bool) or not isinstance(x, (int, float)):
        return None
    x = float(x)
    return x if math.isfinite(x) else None


def _plt():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    plt.rcParams.update({"font.size": 7, "axes.titlesize": 7, "legend.fontsize": 6.5, "axes.labelsize": 7})
    return plt


# --- fitted rates -----------------------------------------------------------------------------------------------

def _fits(r: dict) -> list[dict]:
    """The fitted exponents of a record: name, estimate, interval, band (lo, hi: None for open), claimed, points."""
    p, w = r.get("params") or {}, r.get("witness")
    out = []
    if isinstance(p.get("per_variable"), dict):
        for name, v in p["per_variable"].items():
            if not isinstance(v, dict) or not isinstance(v.get("interval"), list):
                continue
            fw = w.get(name) if isinstance(w, dict) else None
            out.append(_fit_entry(name, v, fw, v.get("measured") or ""))
    elif isinstance(p.get("interval"), list) and isinstance(p.get("band"), list):
        out.append(_fit_entry(p.get("param") or "the fitted exponent", p, w, r.get("measured_value") or ""))
    if out:
        return [f for f in out if f]
    # the fit's own sentence, wherever the record wrote it (per reading, supporting fits, the measured value)
    seen = set()

    def scan(name, value):
        if isinstance(value, dict):
            for k, v in value.items():
                scan(k if not isinstance(v, str) or name is None else name, v)
        elif isinstance(value, str):
            for m in _FIT_TEXT.finditer(value):
                est, lo, hi = float(m.group(1)), float(m.group(3)), float(m.group(4))
                band = ((None, float(m.group(6))) if m.group(5) == "<=" else (float(m.group(6)), None)) \
                    if m.group(5) else (float(m.group(7)), float(m.group(8)))
                key = (round(est, 6), round(lo, 6), round(hi, 6))
                claimed = re.match(rf" \(claimed (?:<=|>=|=) ?({_NUM})", value[m.end():])
                if key not in seen:
                    seen.add(key)
                    out.append({"name": str(name or "fitted exponent"), "est": est, "lo": lo, "hi": hi,
                                "band": band, "claimed": float(claimed.group(1)) if claimed else None,
                                "points": None})

    for key in ("per_reading", "fitted (supporting)"):
        scan(None, (r.get("params") or {}).get(key))
    for key, value in (r.get("params") or {}).items():
        if key.startswith("fitted (") and key != "fitted (supporting)":
            scan(None, value)
    scan("measured", r.get("measured_value"))
    if not out:
        out.extend(_exponent_dicts(r))
    return out


def _exponent_dicts(r: dict) -> list[dict]:
    """A dict with ``fitted_exponent_*`` and an ``*interval`` beside it, compared with the one exponent the claim
    states (``stated`` of kind exponent; its bound sets the side of the band)."""
    exps = [(n, st) for n, st in (r.get("stated") or {}).items()
            if isinstance(st, dict) and st.get("kind") == "exponent" and _real(st.get("value")) is not None]
    if len(exps) != 1:
        return []
    claimed, bound = float(exps[0][1]["value"]), exps[0][1].get("bound")
    band = (claimed, None) if bound == "lower" else (None, claimed) if bound == "upper" else (claimed, claimed)
    out = []
    for name, v in list((r.get("params") or {}).items()) + [("measured", r.get("measured_value"))]:
        if not isinstance(v, dict):
            continue
        est = next((_real(x) for k, x in v.items() if k.startswith("fitted_exponent")), None)
        iv = next((x for k, x in v.items() if "interval" in k and isinstance(x, list) and len(x) == 2), None)
        if est is not None and iv and all(_real(x) is not None for x in iv):
            out.append({"name": name, "est": est, "lo": float(iv[0]), "hi": float(iv[1]), "band": band,
                        "claimed": claimed, "points": None})
    return out


def _fit_entry(name: str, v: dict, fw, text: str) -> dict | None:
    lo, hi = (_real(x) for x in v["interval"][:2])
    if lo is None or hi is None:
        return None
    band = tuple(_real(x) for x in (list(v.get("band") or [None, None]) + [None, None])[:2])
    fit = fw.get("fit") if isinstance(fw, dict) and isinstance(fw.get("fit"), dict) else None
    est = _real(fit.get("slope")) if fit else None
    if est is None:
        m = _FIT_TEXT.search(str(text))
        est = float(m.group(1)) if m else (lo + hi) / 2
    claimed = _real(v.get("claimed_exponent"))
    if claimed is None:
        m = re.search(rf"claimed (?:<=|>=|=) ?({_NUM})", str(text))
        claimed = float(m.group(1)) if m else None
    points = fw.get("points") if fit and isinstance(fw.get("points"), list) else None
    return {"name": str(name), "est": est, "lo": lo, "hi": hi, "band": band, "claimed": claimed,
            "points": _points_axes(points, fit) if points else None}


def _points_axes(points: list, fit: dict) -> dict | None:
    """Which columns of the witness's points the fit was made on: the (x, y) pair, x as is or as ln x, whose
    least-squares line on log axes gives the recorded slope and intercept. None when no pair does."""
    import numpy as np

    rows = [p for p in points if isinstance(p, dict)]
    slope, icept = _real(fit.get("slope")), _real(fit.get("intercept"))
    if len(rows) < 3 or slope is None:
        return None
    keys = [k for k in rows[0] if all(_real(p.get(k)) is not None and p[k] > 0 for p in rows)]
    best = None
    for ykey in keys:
        y = np.log([p[ykey] for p in rows])
        for xkey in keys:
            if xkey == ykey:
                continue
            raw = np.array([p[xkey] for p in rows], dtype=float)
            for tr in ("", "ln "):
                if tr and np.any(raw <= 1):
                    continue
                x = np.log(np.log(raw) if tr else raw)
                if np.ptp(x) == 0:
                    continue
                b, a = np.polyfit(x, y, 1)
                err = abs(b - slope) + (abs(a - icept) if icept is not None else 0)
                if err < 0.02 * max(1, abs(slope)) and (best is None or err < best[0]):
                    best = (err, xkey, tr, ykey)
    if best is None:
        return None
    _, xkey, tr, ykey = best
    xs = [math.log(p[xkey]) if tr else float(p[xkey]) for p in rows]
    return {"x": xs, "y": [float(p[ykey]) for p in rows], "xlabel": f"{tr}{xkey}", "ylabel": ykey,
            "slope": slope, "intercept": icept if icept is not None else 0.0}


def _draw_fitted(r: dict, fits: list[dict]):
    plt = _plt()
    pts = next((f for f in fits if f.get("points")), None)
    fig, axes = plt.subplots(1, 2 if pts else 1, figsize=SIZE_IN, dpi=DPI, squeeze=False,
                             gridspec_kw={"width_ratios": [1, 1]} if pts else None)
    ax = axes[0][0]
    fits = fits[:6]
    values = [v for f in fits for v in (f["lo"], f["hi"], f["est"], f["claimed"], *f["band"]) if v is not None]
    lo_x, hi_x = min(values), max(values)
    pad = max(0.1, 0.15 * (hi_x - lo_x))
    lo_x, hi_x = lo_x - pad, hi_x + pad
    for i, f in enumerate(fits):
        y = len(fits) - 1 - i
        blo, bhi = f["band"]
        ax.fill_betweenx([y - 0.3, y + 0.3], blo if blo is not None else lo_x, bhi if bhi is not None else hi_x,
                         color=PAPER, alpha=0.18, lw=0, label="the paper: stated exponent's band" if i == 0 else None)
        if f["claimed"] is not None:
            ax.plot([f["claimed"]], [y], "D", color=PAPER, ms=4, label="the paper: stated exponent"
                    if not any(g["claimed"] is not None for g in fits[:i]) else None)
        ax.errorbar([f["est"]], [y], xerr=[[f["est"] - f["lo"]], [f["hi"] - f["est"]]], fmt="o", color=OURS,
                    ms=4, capsize=3, label="ours: fitted exponent, 95% interval" if i == 0 else None)
    ax.set_yticks(range(len(fits)))
    ax.set_yticklabels([_short(f["name"], 22) for f in reversed(fits)])
    ax.set_xlim(lo_x, hi_x)
    ax.set_ylim(-0.7, len(fits) - 0.3)
    ax.set_xlabel("exponent of the rate")
    ax.legend(loc="best", frameon=False)
    if pts:
        import numpy as np

        q = pts["points"]
        ax2 = axes[0][1]
        ax2.scatter(q["x"], q["y"], s=9, color=OURS, alpha=0.7, label="ours: measured points")
        xs = np.geomspace(min(q["x"]), max(q["x"]), 50)
        ax2.plot(xs, np.exp(q["intercept"]) * xs ** q["slope"], color=OURS, lw=1,
                 label=f"ours: fitted slope {number(q['slope'])}")
        if pts["claimed"] is not None:
            start = math.exp(q["intercept"]) * xs[0] ** q["slope"]
            ax2.plot(xs, start * (xs / xs[0]) ** pts["claimed"], "--", color=PAPER, lw=1,
                     label=f"the paper: slope {number(pts['claimed'])}")
        ax2.set_xscale("log")
        ax2.set_yscale("log")
        ax2.set_xlabel(_short(q["xlabel"], 30))
        ax2.set_ylabel(_short(q["ylabel"], 30))
        ax2.legend(loc="best", frameon=False)
    names = "; ".join(f"{_short(f['name'], 40)}: {number(f['est'])} [{number(f['lo'])}, {number(f['hi'])}] "
                      f"against {_band_words(f['band'])}" for f in fits)
    cap = (f"Fitted exponent (ours, with its 95% interval) against the band around the paper's stated exponent, "
           f"one line per fit ({names})")
    if pts:
        cap += (f"; right: the measured points ({pts['points']['ylabel']} against {pts['points']['xlabel']}, log "
                f"axes) with our fitted line and a line of the stated slope through the first fitted value")
    return fig, cap + "."


def _finish(fig) -> None:
    """One legend for the figure, under its axes, and tick labels in plain numbers on log axes."""
    from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

    handles, labels = [], []
    for ax in fig.axes:
        for axis, scale in ((ax.xaxis, ax.get_xscale()), (ax.yaxis, ax.get_yscale())):
            if scale == "log":
                lo, hi = sorted(axis.get_view_interval())
                if lo > 0 and hi / lo < 30:
                    axis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 3.0, 5.0, 7.0)))
                axis.set_major_formatter(FuncFormatter(lambda v, _: number(float(v))))
                axis.set_minor_formatter(NullFormatter())
        leg = ax.get_legend()
        if leg is not None:
            leg.remove()
        for h, lab in zip(*ax.get_legend_handles_labels()):
            if lab not in labels:
                handles.append(h)
                labels.append(lab)
    rows = 0
    if handles:
        ncol = 1 if max(len(lab) for lab in labels) > 60 else 2 if max(len(lab) for lab in labels) > 30 else 3
        rows = -(-len(labels) // ncol)
        fig.legend(handles, labels, loc="lower center", ncol=ncol, frameon=False, fontsize=6.5,
                   bbox_to_anchor=(0.5, 0.0))
    _margins(fig, 0.02 + 0.055 * rows)


def _margins(fig, legend: float) -> None:
    """Fixed margins from the tick labels' lengths (tight_layout would draw the figure once more: twice the time)."""
    axes = [ax for ax in fig.axes if ax.axison]
    if not axes:
        fig.subplots_adjust(left=0.02, right=0.98, top=0.98, bottom=legend + 0.02)
        return

    def chars(labels, default):
        texts = [t.get_text() for t in labels]
        return max((len(t) for t in texts if t), default=default)

    left = 0.075 + 0.0062 * chars(axes[0].get_yticklabels(), 6)
    tall = any("\n" in t.get_text() or t.get_rotation() for ax in axes for t in ax.get_xticklabels())
    bottom = legend + (0.19 if tall else 0.13)
    if len(axes) == 1:
        fig.subplots_adjust(left=min(left, 0.4), right=0.98, top=0.96, bottom=bottom)
    else:
        fig.subplots_adjust(left=min(left, 0.3), right=0.98, top=0.96, bottom=bottom, wspace=0.32)


def _band_words(band) -> str:
    lo, hi = band
    if lo is None and hi is None:
        return "no band"
    if lo is None:
        return f"<= {number(hi)}"
    if hi is None:
        return f">= {number(lo)}"
    return f"[{number(lo)}, {number(hi)}]"


# --- failure rates ----------------------------------------------------------------------------------------------

def _draw_configs(r: dict, configs: list):
    plt = _plt()
    fig, ax = plt.subplots(figsize=SIZE_IN, dpi=DPI)
    mv = r.get("measured_value") if isinstance(r.get("measured_value"), list) else []
    labels = []
    for i, c in enumerate(configs):
        res = c.get("resolution") or {}
        lo, hi = (_real(x) for x in (res.get("interval") or [None, None])[:2])
        claimed = _real(c.get("claimed_failure_rate"))
        m = re.search(r"(\d+)/(\d+) failures", str(mv[i])) if i < len(mv) else None
        est = int(m.group(1)) / int(m.group(2)) if m and int(m.group(2)) else None
        if claimed is not None:
            ax.plot([i], [claimed], "D", color=PAPER, ms=5, label="the paper: failure probability bound"
                    if i == 0 else None)
        if lo is not None and hi is not None:
            mid = est if est is not None else hi
            ax.errorbar([i], [mid], yerr=[[mid - lo], [hi - mid]], fmt="o", color=OURS, capsize=3, ms=4,
                        label="ours: failing draws / draws, exact interval" if i == 0 else None)
        labels.append(f"m={c.get('m', '?')}\nd_k={c.get('d_k', '?')}")
    ax.set_yscale("log")
    ax.set_xticks(range(len(configs)))
    ax.set_xticklabels(labels, fontsize=5.5)
    ax.set_xlim(-0.6, len(configs) - 0.4)
    ax.set_ylabel("probability that the construction fails")
    ax.legend(loc="center right", frameon=False)
    which = "; ".join(f"m = {c.get('m')}, d_k = {c.get('d_k')}: {c.get('config', '')}" for c in configs)
    return fig, ("The observed failure rate of each configuration (ours: failing draws over draws, with the exact "
                 "interval recorded at the record's false-alarm level) against the failure probability the paper "
                 f"states for it, log scale; configurations: {which}.")


def _draw_draws_table(r: dict, table: list, xkey: str):
    plt = _plt()
    fig, ax = plt.subplots(figsize=SIZE_IN, dpi=DPI)
    groups: dict = {}
    for row in table:
        key = ", ".join(f"{k}={row[k]}" for k in ("m", "d_model") if k in row)
        groups.setdefault(key, []).append(row)
    for i, (key, rows) in enumerate(groups.items()):
        rows = sorted(rows, key=lambda t: t[xkey])
        ax.plot([t[xkey] for t in rows], [1 - t["draws_ok"] / t["draws"] for t in rows], "o-", ms=3, lw=1,
                color=OURS, alpha=0.35 + 0.65 * (i + 1) / len(groups), label=f"ours: {key}")
    ax.axhline(0, color=PAPER, ls="--", lw=1.2, label="the paper: no draw fails once the constant is large")
    ax.set_xscale("log")
    ax.set_ylim(-0.05, 1.05)
    ax.set_xlabel(f"constant {xkey}")
    ax.set_ylabel("share of draws that fail")
    ax.legend(loc="center right", frameon=False, ncol=2 if len(groups) > 4 else 1)
    return fig, (f"The share of draws in which the construction fails against the constant {xkey}, one line per size "
                 f"(ours, from the record's table), against the paper's statement that no draw fails for a large "
                 f"enough constant (the line at 0).")


# --- estimates, covering, two sides, stated against computed -----------------------------------------------------

def _draw_interval_estimates(r: dict, items: list, ref: tuple | None):
    plt = _plt()
    fig, ax = plt.subplots(figsize=SIZE_IN, dpi=DPI)
    for i, (name, est, lo, hi) in enumerate(items):
        ax.errorbar([i], [est], yerr=[[est - lo], [hi - est]], fmt="o", color=OURS, capsize=3, ms=4,
                    label="ours: estimate and interval" if i == 0 else None)
    if ref:
        ax.axhline(ref[1], color=PAPER, ls="--", lw=1.2, label=f"the paper: {ref[0]} = {number(ref[1])}")
    ax.set_xticks(range(len(items)))
    ax.set_xticklabels([_short(t[0], 18) for t in items], fontsize=6, rotation=15)
    ax.set_ylabel("estimated value")
    ax.legend(loc="best", frameon=False)
    what = f"the paper's value {ref[0]} = {number(ref[1])} read from its statement" if ref else \
        "no paper value in the record (only the estimates are drawn)"
    return fig, f"Our estimates with their intervals, one per setting, against {what}."


def _draw_list_vs_ref(r: dict, name: str, values: list, ref_key: str, ref: float, radius):
    plt = _plt()
    fig, ax = plt.subplots(figsize=SIZE_IN, dpi=DPI)
    ax.bar(range(len(values)), values, color=OURS, alpha=0.8, label=f"ours: {_short(name, 40)}")
    ax.axhline(ref, color=PAPER, ls="--", lw=1.2, label=f"the paper: {ref_key} = {number(ref)}")
    if radius is not None:
        ax.axhspan(ref - radius, ref + radius, color=PAPER, alpha=0.15, lw=0,
                   label=f"allowed noise (± {number(radius)})")
    ax.set_xlabel("item (in the record's order)")
    ax.set_ylabel(_short(name, 40))
    ax.legend(loc="best", frameon=False)
    return fig, (f"Each of our {len(values)} estimates ({name}) against the value the paper states for every one "
                 f"of them ({ref_key} = {number(ref)})" + (f", with the allowed noise of ± {number(radius)}" if
                                                            radius is not None else "") + ".")


def _draw_covering(r: dict, rows: list):
    plt = _plt()
    fig, ax = plt.subplots(figsize=SIZE_IN, dpi=DPI)
    rows = sorted(rows, key=lambda t: t["m"])
    ms = [t["m"] for t in rows]
    style = "o-" if len(rows) > 1 else "o"
    ax.plot(ms, [t["log_num_permutation_graphs"] for t in rows], style, color=PAPER, ms=4,
            label="the paper: needed, log(number of permutation graphs)")
    ax.plot(ms, [t["covering_lhs"] for t in rows], style, color=OURS, ms=4,
            label="ours: covering count of the learned embedding")
    ax.set_xscale("log")
    ax.set_yscale("log")
    if len(rows) == 1:
        ax.set_xlim(ms[0] / 2, ms[0] * 2)
    ax.set_xlabel("number of items m")
    ax.set_ylabel("log count")
    ax.legend(loc="best", frameon=False)
    return fig, ("The covering count of our construction with learned embeddings (ours) against the count the "
                 "paper's lower bound says any such setting must reach, log of the number of permutation graphs, "
                 "along m: ours stays below it where the bound would need it above.")


def _draw_sides(r: dict, pairs: list):
    plt = _plt()
    fig, ax = plt.subplots(figsize=SIZE_IN, dpi=DPI)
    width = 0.38
    for i, (name, lhs, rhs) in enumerate(pairs):
        ax.bar(i - width / 2, rhs, width, color=PAPER, label="the paper's bound (right side)" if i == 0 else None)
        ax.bar(i + width / 2, lhs, width, color=OURS, label="ours: the left side evaluated" if i == 0 else None)
    vals = [abs(v) for _, a, b in pairs for v in (a, b) if v]
    if vals and min(v for _, a, b in pairs for v in (a, b)) > 0 and max(vals) / min(vals) > 50:
        ax.set_yscale("log")
    ax.set_xticks(range(len(pairs)))
    ax.set_xticklabels([_short(n, 40) for n, _, _ in pairs], fontsize=6)
    ax.set_ylabel("value of the side")
    ax.legend(loc="best", frameon=False)
    wit = r.get("witness")
    at = (" at the witness " + _short(_words(wit), 120)) if wit else ""
    mv = r.get("measured_value") if isinstance(r.get("measured_value"), dict) else {}
    grid = (r.get("params") or {}).get("grid_points")
    fails = f" ({mv['failing_points']} of {grid} grid points fail)" if "failing_points" in mv and grid else ""
    return fig, (f"The two sides of the inequality the paper states, evaluated{at}: the paper's bound (right side) "
                 f"and the left side it should bound, one pair per reading{fails}.")


def _draw_two_values(r: dict, paper: tuple, ours: tuple):
    plt = _plt()
    fig, ax = plt.subplots(figsize=SIZE_IN, dpi=DPI)
    ax.barh([1], [paper[1]], color=PAPER, label=f"the paper: {_short(paper[0], 50)}")
    ax.barh([0], [ours[1]], color=OURS, label=f"ours: {_short(ours[0], 50)}")
    for y, v in ((1, paper[1]), (0, ours[1])):
        ax.text(v, y, f" {number(v)}", va="center", fontsize=7)
    ax.set_yticks([1, 0])
    ax.set_yticklabels(["the paper", "ours"])
    ax.set_xlabel("value")
    ax.set_xlim(0, max(paper[1], ours[1]) * 1.2 or 1)
    ax.legend(loc="lower right", frameon=False)
    return fig, (f"The value the paper states ({paper[0]} = {number(paper[1])}) beside ours ({ours[0]} = "
                 f"{number(ours[1])}).")


# --- limits -----------------------------------------------------------------------------------------------------

def _limits(r: dict) -> list[tuple[str, str, str]]:
    """(symbol, expression, limit) of every "lim_{m -> oo} f = L" the record writes."""
    found = []

    def scan(v):
        if isinstance(v, str):
            found.extend(m.groups() for m in _LIMIT_TEXT.finditer(v))
        elif isinstance(v, dict):
            for x in v.values():
                scan(x)
        elif isinstance(v, list):
            for x in v:
                scan(x)

    scan(r.get("measured_value"))
    scan((r.get("params") or {}).get("every_c0"))
    return found


def _curve(sym: str, expr: str):
    """f(sym) along sym = 10 .. 10^15 when f has no other symbol; None otherwise."""
    import sympy as sp

    try:
        s = sp.Symbol(sym, positive=True)
        f = sp.sympify(expr, locals={sym: s})
        if f.free_symbols != {s}:
            return None
        fn = sp.lambdify(s, f, "mpmath")
    except (sp.SympifyError, SyntaxError, TypeError, ValueError, AttributeError):
        return None
    xs, ys = [], []
    for k in range(2, 31):
        x = 10 ** (k / 2)
        try:
            y = float(fn(x))
        except (ValueError, TypeError, ZeroDivisionError, OverflowError):
            continue
        if math.isfinite(y):
            xs.append(x)
            ys.append(y)
    return (xs, ys) if len(xs) >= 5 else None


_EXPECT = {"bounded": "the ratio stays bounded", "infinity": "the ratio grows without bound",
           "positive": "the ratio stays bounded away from 0", "finite-positive": "a finite positive limit"}


def _draw_limit(r: dict, sym: str, expr: str, limit: str, xs: list, ys: list):
    plt = _plt()
    fig, ax = plt.subplots(figsize=SIZE_IN, dpi=DPI)
    expect = (r.get("params") or {}).get("expect")
    need = _EXPECT.get(expect, "a ratio of order one (the statement's Θ or O)")
    ax.plot(xs, ys, "o-", color=OURS, ms=3, lw=1.2, label=f"ours: the ratio, limit {limit}")
    if expect in ("infinity", "positive"):
        ax.plot(xs[::4], [ys[0]] * len(xs[::4]), "^:", color=PAPER, ms=4, lw=1,
                label=f"the paper: {need}, so at least its level at {sym} = {number(xs[0])}")
    else:
        ax.axhline(ys[0], color=PAPER, ls="--", lw=1.2, label=f"the paper: {need} (held at its value at {sym} = "
                                                              f"{number(xs[0])})")
    ax.set_xscale("log")
    if min(ys) > 0 and max(ys) / min(ys) > 50:
        ax.set_yscale("log")
    ax.set_xlabel(f"{sym} (number of items)" if sym == "m" else sym)
    ax.set_ylabel(_short(expr, 45))
    ax.legend(loc="best", frameon=False)
    return fig, (f"The ratio {expr} along {sym} from {number(xs[0])} to {number(xs[-1])} (ours; its limit is "
                 f"{limit}) against what the paper's statement needs, {need}; the record holds the limit, not a "
                 f"number of the paper, so the paper's line is held at the ratio's first value.")


# --- what is left -----------------------------------------------------------------------------------------------

def _scalars(value, prefix="") -> list[tuple[str, float]]:
    out = []
    if isinstance(value, dict):
        for k, v in value.items():
            if _real(v) is not None and not _INDEX_KEYS.match(str(k)):
                out.append((f"{prefix}{k}", float(v)))
    return out


def _draw_values(r: dict):
    plt = _plt()
    stated = [(n, float(st["value"])) for n, st in (r.get("stated") or {}).items()
              if isinstance(st, dict) and _real(st.get("value")) is not None]
    ours = _scalars(r.get("measured_value"))[:5] or _scalars(r.get("witness"))[:5]
    fig, ax = plt.subplots(figsize=SIZE_IN, dpi=DPI)
    if stated or ours:
        names = [n for n, _ in stated] + [n for n, _ in ours]
        vals = [v for _, v in stated] + [v for _, v in ours]
        ax.scatter([v for _, v in stated], range(len(stated)), marker="D", color=PAPER, s=22,
                   label="the paper: stated values")
        ax.scatter([v for _, v in ours], range(len(stated), len(names)), marker="o", color=OURS, s=22,
                   label="ours: measured values")
        for i, v in enumerate(vals):
            ax.annotate(f" {number(v)}", (v, i), fontsize=6, va="center")
        ax.set_yticks(range(len(names)))
        ax.set_yticklabels([_short(n, 28) for n in names], fontsize=6)
        if min(vals) > 0 and max(vals) / min(vals) > 100:
            ax.set_xscale("log")
        ax.set_xlabel("value")
        ax.set_ylim(-0.7, len(names) - 0.3)
        ax.legend(loc="best", frameon=False)
        missing = "" if stated and ours else (" The record holds no stated number of the paper to set beside ours."
                                              if ours else " The record holds no number of ours.")
        return fig, ("The numbers the record holds: the paper's stated values and ours (measured value or "
                     "witness), each on its own line." + missing)
    ax.axis("off")
    pv = _short(clean_text(r.get("paper_value") or r.get("statement") or ""), 230)
    mv = _short(_words(r.get("measured_value")), 230)
    from textwrap import fill

    ax.text(0.02, 0.72, fill("the paper: " + pv, 100), color=PAPER, fontsize=7, va="center", transform=ax.transAxes)
    ax.text(0.02, 0.28, fill("ours: " + mv, 100), color=OURS, fontsize=7, va="center", transform=ax.transAxes)
    ax.plot([], [], "s", color=PAPER, label="the paper")
    ax.plot([], [], "s", color=OURS, label="ours")
    ax.legend(loc="upper right", frameon=False)
    return fig, ("The paper's value and ours in words: the record holds no number to draw for either (a symbolic "
                 "result), so the two statements are set side by side.")


def _words(value) -> str:
    from ..report_md import value_in_words

    return clean_text(value_in_words(value, max_items=12))


def _short(text, limit: int) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[:limit - 1].rstrip() + "…"


# --- choosing the kind ------------------------------------------------------------------------------------------

def _plan(r: dict):
    """(kind, a function that draws the figure and returns (fig, caption))."""
    p = r.get("params") or {}
    mv, w = r.get("measured_value"), r.get("witness")
    fits = _fits(r)
    if fits:
        return "fitted-rate", lambda: _draw_fitted(r, fits)
    configs = p.get("configs")
    if isinstance(configs, list) and configs and all(isinstance(c, dict) and "claimed_failure_rate" in c
                                                      for c in configs):
        return "failure-rate", lambda: _draw_configs(r, configs)
    table = p.get("table")
    if isinstance(table, list) and table and all(isinstance(t, dict) and {"draws", "draws_ok"} <= set(t)
                                                 for t in table):
        xkey = next((k for k in ("C", "c0", "C_ell", "d_k") if all(_real(t.get(k)) for t in table)), None)
        if xkey:
            return "failure-rate", lambda: _draw_draws_table(r, table, xkey)
    if isinstance(mv, str):
        items = [(m.group(1).strip(), *(float(m.group(i)) for i in (2, 3, 4))) for m in _INTERVAL_TEXT.finditer(mv)]
        if len(items) >= 2:
            ref = re.search(rf"\b(\w+) = ({_NUM})\b", str(r.get("paper_value") or ""))
            return "estimates", lambda: _draw_interval_estimates(
                r, items, (ref.group(1), float(ref.group(2))) if ref else None)
    if isinstance(mv, dict):
        pv = str(r.get("paper_value") or "")
        lists = [(k, v) for k, v in mv.items() if isinstance(v, list) and len(v) >= 2 and
                 all(_real(x) is not None for x in v) and not _INDEX_KEYS.match(k)]
        refs = [(k, float(v)) for k, v in mv.items() if _real(v) is not None and k in pv and
                not _INDEX_KEYS.match(k)]
        if lists and refs:
            radius = next((float(v) for k, v in mv.items() if "radius" in k and _real(v) is not None), None)
            return "estimates", lambda: _draw_list_vs_ref(r, lists[0][0], lists[0][1], refs[0][0], refs[0][1],
                                                         radius)
    groups = _text_lists(mv) if isinstance(mv, str) else []
    limits = [(n, float(st["value"])) for n, st in (r.get("stated") or {}).items()
              if isinstance(st, dict) and st.get("kind") in ("value", "constant")
              and _real(st.get("value")) is not None]
    if len(groups) >= 2 and len(limits) == 1:
        return "estimates", lambda: _draw_groups(r, groups, limits[0], "the paper: the threshold")
    margins = _witness_margins(w)
    if margins:
        return "estimates", lambda: _draw_groups(r, margins, ("margin", 0.0),
                                                 "the paper: a positive margin (the construction separates)")
    cover = _covering_rows(r)
    if cover:
        return "covering", lambda: _draw_covering(r, cover)
    pairs = _side_pairs(r)
    if pairs:
        return "two-sides", lambda: _draw_sides(r, pairs)
    if isinstance(mv, dict) and isinstance(mv.get("values"), dict):
        vals = [(k, float(v)) for k, v in mv["values"].items() if _real(v) is not None]
        paper = [kv for kv in vals if "stated" in kv[0].lower()]
        ours = [kv for kv in vals if "stated" not in kv[0].lower()]
        if len(paper) == 1 and len(ours) == 1:
            return "stated-vs-computed", lambda: _draw_two_values(r, paper[0], ours[0])
    cases = re.search(r"(\d+) of (\d+) cases fail", mv) if isinstance(mv, str) else None
    if cases:
        return "exhaustive", lambda: _draw_cases(r, int(cases.group(1)), int(cases.group(2)))
    if isinstance(mv, dict):
        lists = [(k, v) for k, v in mv.items() if isinstance(v, list) and len(v) >= 3 and
                 all(_real(x) is not None for x in v)]
        if len(lists) == 2 and len(lists[0][1]) == len(lists[1][1]):
            return "curve", lambda: _draw_curve(r, lists[0], lists[1])
    for sym, expr, limit in _limits(r):
        curve = _curve(sym, expr)
        if curve:
            return "limit", lambda: _draw_limit(r, sym, expr, limit, *curve)
    return "values", lambda: _draw_values(r)


def _covering_rows(r: dict) -> list:
    keys = {"m", "covering_lhs", "log_num_permutation_graphs"}
    mv = r.get("measured_value")
    for cand in ((mv or {}).get("table") if isinstance(mv, dict) else None, [mv] if isinstance(mv, dict) else None):
        if isinstance(cand, list) and cand and all(isinstance(t, dict) and keys <= set(t) and
                                                   all(_real(t[k]) for k in keys) for t in cand):
            return cand
    return []


def _side_pairs(r: dict) -> list:
    def pair(v):
        return (float(v["lhs"]), float(v["rhs"])) if isinstance(v, dict) and _real(v.get("lhs")) is not None and \
            _real(v.get("rhs")) is not None else None

    per = (r.get("params") or {}).get("per_reading")
    out = []
    if isinstance(per, dict):
        for name, v in per.items():
            got = pair(v.get("measured")) if isinstance(v, dict) else None
            if got:
                out.append((name, *got))
    if not out and pair(r.get("measured_value")):
        out.append(("at the witness", *pair(r["measured_value"])))
    if not out and isinstance(r.get("measured_value"), list):
        for i, v in enumerate(r["measured_value"]):
            got = pair(v.get("measured")) if isinstance(v, dict) else None
            if got:
                out.append((f"step {i + 1} (the one that fails)", *got))
    return out


def _text_lists(text: str) -> list[tuple[str, list]]:
    """("name", [numbers]) for each "name: [a, b, ...]" of a measured value written in words."""
    out = []
    for m in re.finditer(rf"([\w .=']+?): \[((?:{_NUM}, )+{_NUM})\]", text):
        out.append((m.group(1).strip(), [float(x) for x in m.group(2).split(", ")]))
    return out


def _witness_margins(w) -> list[tuple[str, list]]:
    """(size, margins) of a witness listing, per size, the margins its draws reached (keys naming a margin)."""
    if not isinstance(w, list) or not w or not all(isinstance(x, dict) for x in w):
        return []
    key = next((k for k, v in w[0].items() if "margin" in k and isinstance(v, list)), None)
    if key is None:
        return []
    out = []
    for x in w:
        vals = [float(v) for v in x.get(key) or [] if _real(v) is not None]
        if vals:
            out.append((", ".join(f"{k}={x[k]}" for k in ("m", "d_model") if k in x) or str(len(out) + 1), vals))
    return out


def _draw_groups(r: dict, groups: list, ref: tuple, ref_label: str):
    plt = _plt()
    fig, ax = plt.subplots(figsize=SIZE_IN, dpi=DPI)
    for i, (name, vals) in enumerate(groups):
        ax.plot([i] * len(vals), vals, "o", color=OURS, ms=4, alpha=0.75, label="ours: one point per draw"
                if i == 0 else None)
    ax.axhline(ref[1], color=PAPER, ls="--", lw=1.2, label=f"{ref_label} ({ref[0]} = {number(ref[1])})")
    ax.set_xticks(range(len(groups)))
    ax.set_xticklabels([_short(n, 16) for n, _ in groups], fontsize=5.5, rotation=30 if len(groups) > 6 else 0)
    ax.set_ylabel("value per draw")
    ax.legend(loc="best", frameon=False)
    return fig, (f"Our value in each draw, one column per setting ({len(groups)} settings), against the paper's "
                 f"value {ref[0]} = {number(ref[1])}: the statement needs every draw on the other side of the line.")


def _draw_cases(r: dict, failing: int, total: int):
    plt = _plt()
    fig, ax = plt.subplots(figsize=SIZE_IN, dpi=DPI)
    ax.barh([1], [0], color=PAPER, label="the paper: the identity holds in every case (0 fail)")
    ax.plot([0], [1], "D", color=PAPER, ms=5)
    ax.barh([0], [failing], color=OURS, label=f"ours: {failing} of {total} cases fail")
    ax.set_yticks([1, 0])
    ax.set_yticklabels(["the paper", "ours"])
    ax.set_xlim(0, total)
    ax.set_xlabel(f"cases that fail, of all {total} checked")
    ax.legend(loc="best", frameon=False)
    return fig, (f"Cases of the exhaustive check that fail: the paper's statement allows none, ours finds "
                 f"{failing} of {total}.")


def _draw_curve(r: dict, xs: tuple, ys: tuple):
    plt = _plt()
    fig, ax = plt.subplots(figsize=SIZE_IN, dpi=DPI)
    ax.plot(xs[1], ys[1], "o-", color=OURS, ms=3, lw=1.2, label=f"ours: {_short(ys[0], 50)}")
    ax.plot([], [], "s", color=PAPER, label="the paper: " + _short(clean_text(r.get("paper_value") or ""), 70))
    if min(xs[1]) > 0 and max(xs[1]) / min(xs[1]) > 50:
        ax.set_xscale("log")
    ax.set_xlabel(_short(xs[0], 40))
    ax.set_ylabel(_short(ys[0], 40))
    ax.legend(loc="best", frameon=False)
    return fig, (f"Our {ys[0]} against {xs[0]}; the record holds no number of the paper to draw beside it, so the "
                 f"paper's statement is named in the legend only.")


# --- the public functions ---------------------------------------------------------------------------------------

def figure_png(record: dict) -> tuple[bytes, str, str]:
    """The figure of a finding: (PNG bytes, kind of :data:`FIGURE_KINDS`, caption sentence). ValueError when the
    record is not a finding (:func:`is_finding`)."""
    if not isinstance(record, dict) or not is_finding(record):
        raise ValueError(f"figure_png draws findings (a record that ran and is refuted or contradicted), got "
                         f"{record.get('id', '?') if isinstance(record, dict) else type(record).__name__!r}")
    plt = _plt()
    kind, draw = _plan(record)
    try:
        fig, caption = draw()
    except (ValueError, TypeError, KeyError, IndexError, ZeroDivisionError, OverflowError):
        if kind == "values":
            raise
        plt.close("all")
        kind, (fig, caption) = "values", _draw_values(record)
    try:
        _finish(fig)
        buf = io.BytesIO()
        fig.savefig(buf, format="png", dpi=DPI)
    finally:
        plt.close(fig)
    return buf.getvalue(), kind, clean_text(caption)


def write_figures(records, folder) -> dict:
    """Write ``folder/<id>.png`` for every finding of ``records`` (atomically, one by one) and return
    {claim id: {"file": "<id>.png", "kind": kind, "caption": caption}}."""
    folder = Path(folder)
    out = {}
    for r in records:
        if not is_finding(r):
            continue
        if not re.fullmatch(r"[\w.+-]+", str(r.get("id") or "")):
            raise ValueError(f"a claim id must be a file name, got {r.get('id')!r}")
        png, kind, caption = figure_png(r)
        folder.mkdir(parents=True, exist_ok=True)
        atomic_write_bytes(folder / f"{r['id']}.png", png)
        out[r["id"]] = {"file": f"{r['id']}.png", "kind": kind, "caption": caption}
    return out
