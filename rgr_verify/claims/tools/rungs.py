"""Thresholds compared in ladder rungs: the measurement behind every claim that two groups of runs reach App. A.2's
F1 bar at the same (or a different) D_K.

A group's per-seed thresholds (the first D_K on the 2-3 ladder :data:`rgr_verify.runs.presets.LADDER` where some
head count of that seed reaches the bar, :func:`rgr_verify.analysis.fits.per_seed_thresholds`) are put on the rung scale
(:func:`rung`: ``LADDER[0] = 4`` is rung 0, the ladder continued downward 3, 2, 1.5, 1 gives rungs -1 to -4) and read
two ways (:func:`seed_rungs`): *high*, as measured (a seed that never passes is +inf), and *low*, at the least rung
its evidence allows (a threshold known only as an upper bound, because its run hit the step cap or it is the
smallest D_K tested, at the rung above the largest D_K where every run of that seed fails and would not pass with a
cap twice as long, :func:`rgr_verify.claims.tools.cells.seed_values`; a seed that never passes at the rung above
the largest such D_K, i.e. beyond the grid when the grid's top rung is such a D_K; the ladder's bottom, D_K = 1,
when there is none).

The shift between two groups is an exact interval (:func:`shift_interval`) obtained by inverting the exact
two-sample permutation test (:func:`rgr_verify.analysis.fits.permutation_pvalue`, mid-ranks) over whole-rung shifts; each
end is computed on the reading that pushes it outward (:func:`rung_shift`: the low end with group b read low and
group a high, the high end the other way round), so cap-limited and never-passing seeds widen the interval in both
directions instead of deciding it. The level of each end is the family's split by Bonferroni over the cells and the
band's finite ends (:func:`end_level`); with few seeds the exact test cannot reach it (:func:`smallest_pvalue`: 3
seeds against 3 reach 0.05 at best) and the interval stays open: inconclusive at the resolution reached.
"""

from __future__ import annotations

import math

from ...analysis.capacity import could_pass_with_longer_cap, f1_target
from ...core.stats import permutation_pvalue
from ...runs.presets import LADDER
from .cells import seed_values

__all__ = ["LADDER_BELOW", "rung", "rung_at_least", "seed_rungs", "shift_interval", "smallest_pvalue", "end_level",
           "rung_shift", "rung_shift_pair"]

# The 2-3 ladder continued below its first rung (4) down to the smallest total key size, D_K = 1: rungs -4 .. -1.
LADDER_BELOW = (1.0, 1.5, 2.0, 3.0)
_BOTTOM = -len(LADDER_BELOW)


def _value(r: int) -> float:
    """The ladder value at rung ``r``: 4 * 2^(r / 2) at even rungs, 6 * 2^((r - 1) / 2) at odd ones (the 2-3
    ladder LADDER = 4, 6, 8, 12, ..., continued both ways)."""
    return 4.0 * 2.0 ** (r // 2) if r % 2 == 0 else 6.0 * 2.0 ** ((r - 1) // 2)


if tuple(_value(r) for r in range(_BOTTOM, len(LADDER))) != LADDER_BELOW + tuple(float(v) for v in LADDER):
    raise ValueError("the rung formula does not reproduce rgr_verify.runs.presets.LADDER")


def rung_at_least(D) -> float:
    """The rung of the smallest ladder value >= ``D``: the least rung a threshold known only to be at least ``D``
    can sit on (``D <= 1``: rung -4, the smallest total key size; above LADDER's top the ladder continues). +inf
    stays +inf; ValueError for NaN or a negative value."""
    v = float(D)
    if math.isnan(v) or v < 0:
        raise ValueError(f"D must be a non-negative number, got {D!r}")
    if v == math.inf:
        return math.inf
    r = _BOTTOM
    while _value(r) < v:
        r += 1
    return float(r)


def rung(D) -> float:
    """The rung of a total key size ``D`` on the 2-3 ladder (``LADDER[0] = 4`` is rung 0; continued downward, 3, 2,
    1.5 and 1 are rungs -1 to -4); +inf (no threshold on the grid) stays +inf. ValueError for any other value."""
    try:
        v = float(D)
    except (TypeError, ValueError):
        raise ValueError(f"D_K must be a number, got {D!r}") from None
    if v == math.inf:
        return math.inf
    r = rung_at_least(v) if v == v and v >= 0 else None
    if r is None or _value(int(r)) != v:
        raise ValueError(f"D_K = {D!r} is not a rung of the 2-3 ladder (nor +inf)")
    return r


def _dk(r) -> int:
    return int(r["config"]["n_heads"]) * int(r["config"]["d_k"])


def _least_rung(mine, below: float) -> float:
    """The least rung of a threshold known only to lie at or below ``below`` (inf: anywhere): the rung above the
    largest tested D_K under ``below`` where every run of the seed fails and would not pass with a cap twice as
    long (the rule of :func:`~rgr_verify.claims.tools.cells.seed_values`); rung -4 when there is none."""
    flat = [D for D in {_dk(r) for r in mine} if D < below and all(
        float(r["metric"]) < f1_target() and not could_pass_with_longer_cap(r) for r in mine if _dk(r) == D)]
    return rung_at_least(math.nextafter(float(max(flat)), math.inf)) if flat else float(_BOTTOM)


def seed_rungs(cell_recs, *, read: str, upper_only: bool = False) -> list[float]:
    """Per-seed thresholds of one group of runs (one cell's records, in seed order) on the rung scale.

    ``read="high"``: as measured (:func:`~rgr_verify.claims.tools.cells.seed_values` with ``favour="small"``), a seed
    that never passes +inf. ``read="low"``: each at the least rung its evidence allows: ``seed_values(...,
    favour="large")``'s lower bound for a threshold known only as an upper bound (its run hit the cap, or it is the
    smallest D_K tested), put on the ladder rung at or above it; a seed that never passes at the rung above the
    largest D_K where every one of its runs fails and would not pass with a doubled cap (so beyond the grid when
    that is the grid's top). ``upper_only``: every seed's threshold read as an upper bound (the cell's threshold
    is taken as set by the cap) in the low reading. ValueError for an unknown ``read`` or no records."""
    if read not in ("low", "high"):
        raise ValueError(f"read must be 'low' or 'high', got {read!r}")
    recs = list(cell_recs)
    if not recs:
        raise ValueError("cell_recs must hold at least one record")
    if read == "high":
        values, _, _ = seed_values(recs, favour="small")
        return [rung(v) for v in values]
    values, _, per = seed_values(recs, favour="large")
    out = []
    for s, v in zip(sorted(per), values):
        mine = [r for r in recs if int(r["seed"]) == s]
        if v == math.inf:
            out.append(_least_rung(mine, math.inf))
        elif upper_only:
            out.append(_least_rung(mine, float(per[s]["D_K"])))
        else:
            out.append(rung_at_least(v))
    return out


def _values(name, xs) -> list[float]:
    out = [float(x) for x in xs]
    if not out:
        raise ValueError(f"{name} must hold at least one value")
    bad = [x for x in out if math.isnan(x) or (math.isfinite(x) and not x.is_integer())]
    if bad:
        raise ValueError(f"{name} must hold whole rungs or +-inf, got {bad}")
    return out


def shift_interval(a, b, *, alpha: float) -> tuple[float, float]:
    """Exact interval for the shift ``delta`` of ``b`` over ``a`` in whole rungs (``b - delta`` exchangeable with
    ``a``; +-inf values do not move), by inverting the exact one-sided permutation tests of
    :func:`rgr_verify.analysis.fits.permutation_pvalue` (mid-ranks, ties counted as ties), each end at one-sided level
    ``alpha``: the low end is the smallest shift the test "b - delta tends larger" does not reject (-inf when none
    below the data's range is rejected, +inf when every shift is), the high end the largest the test "b - delta
    tends smaller" does not reject (+inf, -inf likewise). Every shift is tried from one below the smallest finite
    difference b_j - a_i to one above the largest (beyond them the order of the pooled values, hence each p-value,
    no longer changes). The ends are the outermost shifts not rejected, so the interval is the hull of what the test
    cannot exclude, even where a p-value is not monotone in the shift. ValueError for empty groups, NaN, finite
    values that are not whole rungs, or ``alpha`` outside (0, 0.5)."""
    a, b = _values("a", a), _values("b", b)
    try:
        alpha = float(alpha)
    except (TypeError, ValueError):
        raise ValueError(f"alpha must be a number in (0, 0.5), got {alpha!r}") from None
    if not 0.0 < alpha < 0.5:
        raise ValueError(f"alpha must be in (0, 0.5), got {alpha!r}")
    diffs = [y - x for y in b for x in a if math.isfinite(x) and math.isfinite(y)]
    shifts = list(range(int(min(diffs)) - 1, int(max(diffs)) + 2)) if diffs else [0]

    def kept(delta, alternative):
        return permutation_pvalue(a, [y - delta for y in b], alternative=alternative) > alpha

    lo = next((d for d in shifts if kept(d, "greater")), None)
    hi = next((d for d in reversed(shifts) if kept(d, "less")), None)
    lo = math.inf if lo is None else -math.inf if lo == shifts[0] else float(lo)
    hi = -math.inf if hi is None else math.inf if hi == shifts[-1] else float(hi)
    return (lo, hi) if lo <= hi else (hi, lo)  # the hull, should the two tests leave no shift between them


def smallest_pvalue(n_a: int, n_b: int) -> float:
    """The smallest one-sided p-value the exact two-sample permutation test of ``n_a`` against ``n_b`` values can
    reach, 1 / C(n_a + n_b, n_b): at a level below it no shift can be excluded, so an interval from it is
    (-inf, inf) whatever the data (3 seeds against 3: 0.05). ValueError for a group size below 1."""
    if not all(isinstance(n, int) and n >= 1 for n in (n_a, n_b)):
        raise ValueError(f"group sizes must be positive counts, got {n_a!r}, {n_b!r}")
    return 1.0 / math.comb(n_a + n_b, n_b)


def end_level(alpha: float, cells: int, band) -> float:
    """The one-sided level of each end of a shift interval judged against ``band``: ``alpha`` split by Bonferroni
    over the ``cells`` and over the band's finite ends (a two-sided band fails on either side, so each end gets half;
    a one-sided band decides on one end each way). ValueError for no cells, no finite end or a bad ``alpha``."""
    if not 0.0 < float(alpha) < 1.0:
        raise ValueError(f"alpha must be in (0, 1), got {alpha!r}")
    if not isinstance(cells, int) or cells < 1:
        raise ValueError(f"cells must be a positive count, got {cells!r}")
    ends = sum(1 for x in band if math.isfinite(float(x)))
    if ends == 0:
        raise ValueError(f"band {band!r} has no finite end: nothing to judge")
    return float(alpha) / cells / ends


def rung_shift(a_recs, b_recs, *, alpha: float, b_upper_only: bool = False) -> dict:
    """The shift of group ``b``'s per-seed thresholds over group ``a``'s in ladder rungs (positive: ``b`` needs
    the larger D_K), with its exact interval at one-sided level ``alpha`` per end (:func:`shift_interval`), each end
    read in its own disfavour: the low end from ``b`` read low and ``a`` high, the high end from ``b`` read high and
    ``a`` low (:func:`seed_rungs`; ``b_upper_only`` reads every seed of ``b`` as an upper bound in its low reading).
    Returns ``{"a rungs", "b rungs"`` (each ``{"low": [...], "high": [...]}``), ``"interval": [lo, hi],
    "level per end": alpha, "smallest p-value"}`` (:func:`smallest_pvalue` of the two groups' seed counts: when it
    exceeds ``alpha`` the interval cannot exclude any shift)."""
    a_lo, a_hi = seed_rungs(a_recs, read="low"), seed_rungs(a_recs, read="high")
    b_lo, b_hi = seed_rungs(b_recs, read="low", upper_only=b_upper_only), seed_rungs(b_recs, read="high")
    lo = shift_interval(a_hi, b_lo, alpha=alpha)[0]
    hi = shift_interval(a_lo, b_hi, alpha=alpha)[1]
    return {"a rungs": {"low": a_lo, "high": a_hi}, "b rungs": {"low": b_lo, "high": b_hi},
            "interval": [min(lo, hi), max(lo, hi)], "level per end": alpha,
            "smallest p-value": smallest_pvalue(len(a_hi), len(b_hi))}


def rung_shift_pair(a_recs, b_recs, *, pass_alpha: float, fail_alpha: float, b_upper_only: bool = False) -> dict:
    """:func:`rung_shift` at the pass side's level ``pass_alpha``, with the interval at the fail side's level
    ``fail_alpha`` added as ``"fail-side interval"``: an every-cell statement holds on each cell's narrower interval
    inside its band (each cell at the full level, an intersection-union test) and fails on one cell's wider interval
    outside it (Bonferroni over the cells); the two exclude each other."""
    sh = rung_shift(a_recs, b_recs, alpha=pass_alpha, b_upper_only=b_upper_only)
    wide = rung_shift(a_recs, b_recs, alpha=fail_alpha, b_upper_only=b_upper_only)
    return {**sh, "fail-side interval": wide["interval"]}
