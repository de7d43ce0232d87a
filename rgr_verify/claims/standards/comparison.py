"""The comparison standard ("several heads beat one head"): one rule to pass and to fail a paired advantage.

A comparison claim names its *units* (a compressed cell, a D_K, a single-head model, ...) and, per unit, the paired
advantage of the side the statement favours (oriented so that larger is better for the statement: F1 of h > 1
minus F1 of h = 1, MSE of h = 1 minus MSE of h > 1, ...). Per unit the check measures the confidence interval
``[lo, hi]`` of that advantage at a level fixed in advance (:func:`advantage_interval`: the two-sided t-interval of
the per-seed differences at ``1 - 2 level``, whose ends are one-sided bounds at ``level`` each). When the compared
side was *picked* among ``k`` candidates (the best (h, D_K) of a cell, the best multi-head model), the level is
Bonferroni over what it was picked from (:func:`picked_level`: ``alpha / k``), so the pick cannot inflate the chance
of passing.

:func:`decide_advantage` then judges every unit against the band ``[margin, inf)`` of the statement (``(margin,
inf)`` for a strict "lower" / "higher" with no margin): **inside passes, wholly below fails, in between is
undecided**, never a point estimate alone. The statement about *every* unit holds when every unit holds and fails
when some unit fails (:func:`~rgr_verify.claims.standards.decide.conjunction`); about *some* unit, it holds when some
unit holds and fails when every unit fails. The resolution reached is returned with the status: per unit its
interval, band, held and failed.
"""

from __future__ import annotations

import math
from typing import Mapping

import numpy as np

from ...core.stats import t_interval
from ..status import Status
from .decide import conjunction, decide, decide_interval, failing, holding

__all__ = ["decide_advantage", "advantage_interval", "picked_level"]


def picked_level(alpha: float, k: int) -> float:
    """The one-sided level of each of ``k`` candidate comparisons when the compared one is picked among them (or some
    of them must hold): Bonferroni, ``alpha / k``, so that the chance that a pick passes under the null stays
    ``<= alpha``. ValueError for alpha outside (0, 1) or k < 1."""
    if not 0.0 < float(alpha) < 1.0:
        raise ValueError(f"alpha must be in (0, 1), got {alpha!r}")
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 1:
        raise ValueError(f"k (the candidates picked from) must be an integer >= 1, got {k!r}")
    return float(alpha) / int(k)


def advantage_interval(differences, level: float) -> tuple[float, float, float]:
    """``(mean, lo, hi)`` of the per-seed paired ``differences``: the two-sided t-interval at confidence
    ``1 - 2 level``, whose ends are one-sided bounds at ``level`` each. Fewer than two differences: the real line
    ``(-inf, inf)`` (one seed decides nothing). ValueError for a level outside (0, 0.5) or a non-finite
    difference."""
    if not 0.0 < float(level) < 0.5:
        raise ValueError(f"level must be in (0, 0.5), got {level!r}")
    d = np.asarray(differences, dtype=float).ravel()
    if not np.all(np.isfinite(d)):
        raise ValueError(f"differences must be finite numbers, got {differences!r}")
    if d.size < 2:
        return (float(d.mean()) if d.size else math.nan), -math.inf, math.inf
    return t_interval(d, confidence=1.0 - 2.0 * float(level))


def _unit(interval, margin: float, strict: bool) -> tuple[Status, dict]:
    """One unit: non-strict, the interval against the closed band [margin, inf) (:func:`decide_interval`); strict,
    against the open band (margin, inf): lo > margin holds, hi <= margin fails (exclusive since lo <= hi)."""
    if strict:
        lo, hi = (float(x) for x in interval)
        if math.isnan(lo) or math.isnan(hi) or lo > hi:
            raise ValueError(f"an interval must be [low, high] without NaN, got {interval!r}")
        held, failed = lo > margin, hi <= margin
        return decide(held, failed), {"interval": [lo, hi], "band": [margin, math.inf], "open": True,
                                      "held": held, "failed": failed}
    status, res = decide_interval(interval, (margin, math.inf))
    return status, {"interval": res["interval"], "band": res["band"], "open": False, "held": res["inside"],
                    "failed": res["outside"]}


def decide_advantage(intervals, margin: float, *, every: bool = True, strict: bool = False,
                     level: float | None = None) -> tuple[Status, dict]:
    """The comparison standard over units: ``intervals`` maps each unit to the interval ``[lo, hi]`` of its paired
    advantage (larger = better for the statement; a sequence names its units 0, 1, ...), measured at a level fixed
    in advance (``level``, recorded only). A unit holds when ``lo >= margin`` (``lo > margin`` when ``strict``),
    fails when ``hi < margin`` (``hi <= margin`` when ``strict``), else it is undecided. ``every``: the statement
    holds when every unit holds and fails when some unit fails; otherwise ("some unit") it holds when some unit
    holds and fails when every unit fails. Returns the status and the resolution ``{"margin", "strict", "every",
    "level", "units": {unit: {"interval", "band", "open", "held", "failed"}}, "held", "failed", "undecided"}``.
    ValueError for no units, a reversed or NaN interval, or a NaN / infinite margin."""
    m = float(margin)
    if not math.isfinite(m):
        raise ValueError(f"margin must be a finite number, got {margin!r}")
    items = list(intervals.items()) if isinstance(intervals, Mapping) else list(enumerate(intervals))
    if not items:
        raise ValueError("a comparison needs at least one unit")
    units, statuses = {}, []
    for name, iv in items:
        if len(iv) != 2:
            raise ValueError(f"unit {name!r}: an interval is [low, high], got {iv!r}")
        status, units[name] = _unit(iv, m, bool(strict))
        statuses.append(status)
    if every:
        status = conjunction(statuses)
    else:
        # some unit: a held unit and all units failed exclude each other (a unit never both holds and fails)
        status = decide(any(holding(s) for s in statuses), all(failing(s) for s in statuses))
    return status, {"margin": m, "strict": bool(strict), "every": bool(every), "level": level, "units": units,
                    "held": [n for n, u in units.items() if u["held"]],
                    "failed": [n for n, u in units.items() if u["failed"]],
                    "undecided": [n for n, u in units.items() if not u["held"] and not u["failed"]]}
