"""Tolerances declared once (issue 37: one standard of judgment): the bands of ours live in
rgr_verify.claims.standards.tolerances, with their reasons, and the claims judged against a band read them there.

The constants' values; a source scan of the listed claims' checks (no literal band: a tolerance parameter defaults to
a declared constant, no ``tolerance(<number>)``, no ``math.sqrt(2)``, ``1.5``, ``0.25`` or ``0.5`` in the check); their
Standards written from the constants; a band that changed (Figure 10's slope: 1.5 -> sqrt2; the xpaper edges exponent:
+-0.25 -> +-0.5) pinned by a case the old band decided the other way; and App. A.3's h* exponent with sigma held at
the ladder's resolution, as its siblings."""

from __future__ import annotations

import ast
import inspect
import math
import textwrap
from types import SimpleNamespace as NS

import numpy as np
import pytest

from rgr_verify.claims import get_claim
from rgr_verify.claims.base import CheckContext, Status
from rgr_verify.claims.paper_appa import a3_rules, regular, results, xrefs
from rgr_verify.claims.paper_sec6 import diagonal, grid
from rgr_verify.claims import standards, xpaper
from rgr_verify.claims.tools.measure import equivalence_status
from rgr_verify.claims.standards import (EXPONENT_HALF_WIDTH, FACTOR_TWO, STATED_CONSTANT_FACTOR, TOLERANCE_REASONS,
                                         factor_name)
from rgr_verify.analysis.fits import DKInterval

HOLDS, FAILS, OPEN = Status.HOLDS_EMPIRICALLY, Status.CONTRADICTED_EMPIRICALLY, Status.INCONCLUSIVE


def test_constants_and_their_reasons():
    assert EXPONENT_HALF_WIDTH == 0.5
    assert math.isclose(STATED_CONSTANT_FACTOR ** 2, 2.0) and STATED_CONSTANT_FACTOR == math.sqrt(2.0)
    assert FACTOR_TWO == 2.0
    assert set(TOLERANCE_REASONS) == {"EXPONENT_HALF_WIDTH", "STATED_CONSTANT_FACTOR", "R2_HALF_WIDTH", "FACTOR_TWO"}
    assert standards.R2_HALF_WIDTH == 0.1  # one R^2 band for Figs. 3 and 10 (third review of 2026-11-28)
    assert all(isinstance(r, str) and r for r in TOLERANCE_REASONS.values())
    assert factor_name(STATED_CONSTANT_FACTOR) == "sqrt2" and factor_name(FACTOR_TWO) == "2"
    assert factor_name(1.5) == "1.5"
    # the standards package exports them
    assert {"EXPONENT_HALF_WIDTH", "STATED_CONSTANT_FACTOR", "R2_HALF_WIDTH", "FACTOR_TWO"} <= set(standards.__all__)
    # Eq. (32)'s exponent band is derived from the factor for a stated constant, not declared: ln sqrt2 / ln 16
    assert a3_rules.one_constant_tol(1, 16, STATED_CONSTANT_FACTOR) == pytest.approx(0.125)


# ---------------------------------------------------------------- the source scan

# claim id -> (the check function, or the helper holding the tolerance defaults; the constant each tolerance
# parameter must default to)
_CHECKS = {
    "fig3-dkstar-scaling-slope": (grid._fig3, {"slope_factor": "STATED_CONSTANT_FACTOR"}),
    "sec61-dkstar-scaling-slope-excluding-small-dmodel": (grid._fig3, {"slope_factor": "STATED_CONSTANT_FACTOR"}),
    "fig3-capacity-law-form": (grid._check_law_form, {"tol": "EXPONENT_HALF_WIDTH"}),
    "fig4-diagonal-logarithmic-growth": (diagonal._check_fig4, {"tol": "EXPONENT_HALF_WIDTH"}),
    "fig4-diagonal-hstar-proportional-to-compression": (diagonal._check_diagonal_heads, {"factor": "FACTOR_TWO"}),
    "appa3-hstar-roughly-linear-in-degree": (xrefs._check_heads_linear_in_r, {"tol": "EXPONENT_HALF_WIDTH"}),
    "appa3-edges-not-vertices-set-threshold": (regular._check_edges_collapse,
                                               {"factor": "STATED_CONSTANT_FACTOR", "gamma_tol": "EXPONENT_HALF_WIDTH"}),
    "eq32-dkstar-one-constant-every-degree": (regular._check_eq32_per_degree, {"factor": "STATED_CONSTANT_FACTOR"}),
    "appa3-hstar-near-edge-ratio": (regular._check_heads_near_edge_ratio, {"factor": "FACTOR_TWO"}),
    "table1-per-head-width-at-threshold": (results._check_table1, {"factor": "STATED_CONSTANT_FACTOR"}),
    "fig10-hstar-linear-in-compression": (results._check_fig10, {"slope_factor": "STATED_CONSTANT_FACTOR",
                                                                 "intercept_factor": "STATED_CONSTANT_FACTOR"}),
}

_BAND_LITERALS = {0.25, 0.5, 1.5}  # the literal half-widths and factors the constants replaced


def _function_tree(fn) -> ast.FunctionDef:
    return ast.parse(textwrap.dedent(inspect.getsource(fn))).body[0]


def _defaults(tree: ast.FunctionDef) -> dict:
    """{parameter name: its default's syntax tree} of a function definition."""
    a = tree.args
    positional = [p.arg for p in a.posonlyargs + a.args]
    out = dict(zip(positional[len(positional) - len(a.defaults):], a.defaults))
    out.update({p.arg: d for p, d in zip(a.kwonlyargs, a.kw_defaults) if d is not None})
    return out


def _literal_bands(fn) -> list[str]:
    """What in ``fn``'s source is a literal band: a tolerance parameter defaulting to a number, ``tolerance(<number>)``,
    ``math.sqrt(2...)``, or a number of :data:`_BAND_LITERALS` (strings, docstrings included, do not count)."""
    tree = _function_tree(fn)
    bad = []
    for name, d in _defaults(tree).items():
        if ("tol" in name or "factor" in name) and isinstance(d, ast.Constant) and not name.startswith("r2"):
            bad.append(f"{name}={d.value!r}")
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            name = ast.unparse(node.func)
            if name == "tolerance" and node.args and isinstance(node.args[0], ast.Constant):
                bad.append(ast.unparse(node))
            if name in ("math.sqrt", "np.sqrt", "sqrt") and node.args and isinstance(node.args[0], ast.Constant) \
                    and node.args[0].value == 2:
                bad.append(ast.unparse(node))
        elif isinstance(node, ast.Constant) and type(node.value) in (int, float) and node.value in _BAND_LITERALS:
            bad.append(repr(node.value))
    return bad


@pytest.mark.parametrize("cid", sorted(_CHECKS))
def test_no_literal_band_in_the_check(cid):
    fn, constants = _CHECKS[cid]
    assert get_claim(cid) is not None
    assert _literal_bands(fn) == [], (cid, _literal_bands(fn))
    # every tolerance parameter defaults to its declared constant, by name in the source and by value
    defaults = _defaults(_function_tree(fn))
    sig = inspect.signature(fn)
    for param, const in constants.items():
        assert isinstance(defaults.get(param), ast.Name) and defaults[param].id == const, (cid, param)
        assert sig.parameters[param].default == getattr(standards, const), (cid, param)


def test_the_scan_can_fail():
    def planted(ctx, tol=0.5, factor=1.5):
        from rgr_verify.claims.tools.multiverse import tolerance
        return tolerance(0.25), math.sqrt(2)

    found = _literal_bands(planted)
    assert "tol=0.5" in found and "factor=1.5" in found and "tolerance(0.25)" in found and "math.sqrt(2)" in found
    assert _literal_bands(grid._check_sharp_full) == ["factor=4.0"]  # a sharp-transition window, not a band here


def test_xpaper_edges_exponent_is_the_declared_half_width():
    assert xpaper.EDGE_EXPONENT_TOL == EXPONENT_HALF_WIDTH
    tree = ast.parse(inspect.getsource(xpaper))
    assign = next(n for n in tree.body if isinstance(n, ast.Assign)
                  and any(isinstance(t, ast.Name) and t.id == "EDGE_EXPONENT_TOL" for t in n.targets))
    assert isinstance(assign.value, ast.Name) and assign.value.id == "EXPONENT_HALF_WIDTH"
    assert inspect.signature(xpaper.regular_edges_verdict).parameters["tol"].default == EXPONENT_HALF_WIDTH


# ---------------------------------------------------------------- the Standards, written from the constants

_EXPONENT_BAND = f"[{1 - EXPONENT_HALF_WIDTH:g}, {1 + EXPONENT_HALF_WIDTH:g}]"


@pytest.mark.parametrize("cid, needles", [
    ("fig3-dkstar-scaling-slope", ["[1.19 / sqrt2, 1.19 sqrt2]"]),
    ("sec61-dkstar-scaling-slope-excluding-small-dmodel", ["[0.966 / sqrt2, 0.966 sqrt2]"]),
    ("fig3-capacity-law-form", [_EXPONENT_BAND]),
    ("fig4-diagonal-logarithmic-growth", ["[p0 - 0.5, p0 + 0.5]"]),
    ("fig4-diagonal-hstar-proportional-to-compression", ["[median / 2, 2 median]", "[2, 8]"]),
    ("appa3-hstar-roughly-linear-in-degree", [_EXPONENT_BAND]),
    ("appa3-edges-not-vertices-set-threshold", ["[0.46 / sqrt2, 0.46 sqrt2]", f"gamma's inside {_EXPONENT_BAND}"]),
    ("eq32-dkstar-one-constant-every-degree", ["[0.875, 1.125]", "[0.46 x / sqrt2, 0.46 x sqrt2]"]),
    ("appa3-hstar-near-edge-ratio", ["[1/2, 2]"]),
    ("table1-per-head-width-at-threshold", ["factor sqrt2 of 5, 24 and 11", "[5 / sqrt2, 24 sqrt2]"]),
    ("fig10-hstar-linear-in-compression", ["slope within a factor sqrt2 of 1.65", "[-6.64 sqrt2, -6.64 / sqrt2]"]),
    ("xpaper-regular-dkstar-follows-edges", [f"slope inside {_EXPONENT_BAND}"]),
    ("xpaper-regular-dkstar-follows-edges-quick", [f"slope inside {_EXPONENT_BAND}"]),
])
def test_standard_tolerance_written_from_the_constants(cid, needles):
    c = get_claim(cid)
    assert c.standard is not None and c.standard.source.split(":")[0] in ("paper", "ours")
    for needle in needles:
        assert needle in c.standard.tolerance, (cid, needle, c.standard.tolerance)
    for old in ("factor 1.5", "[0.75, 1.25]", "+-0.25", "sqrt(2)"):
        assert old not in c.standard.tolerance and old not in c.standard.source, (cid, old)


# ---------------------------------------------------------------- the bands that changed, pinned

def _fig10(monkeypatch, slope_rng):
    known = [(64, 16), (128, 16), (256, 16)]
    ths = {k: NS(h_star=1, h_low=1, h_high=1, central=2, d_k_star=2) for k in known}
    got = ([{}] * 10, {k: [] for k in known}, ths, {k: DKInterval(1, 2, "interval") for k in known}, {}, None)
    monkeypatch.setattr(results, "cached_full_grid", lambda ctx: (got, ""))
    meas = {"known": known, "fit": NS(slope=1.65, intercept=-6.64, r2=0.824), "range": slope_rng,
            "intercept range": (-7.0, -6.0), "r2 range": (0.8, 0.85), "laws": None, "rates": None}
    monkeypatch.setattr(results, "memo", lambda name, ctx, compute, **kw: meas)
    monkeypatch.setattr(results, "cell_rows", lambda *a, **k: {})
    return results._check_fig10(CheckContext(seed=7, tier="full", expects={"slope": 1.65, "intercept": -6.64,
                                                                            "r2": 0.824}))


def test_fig10_slope_is_held_to_the_stated_constant_factor(monkeypatch):
    # [2.40, 2.45] lay inside the old band [1.65 / 1.5, 1.65 x 1.5] = [1.10, 2.475]; it lies wholly above
    # [1.65 / sqrt2, 1.65 sqrt2] = [1.17, 2.33]: a slope 1.47x the stated one is no longer read as agreeing
    assert _fig10(monkeypatch, (2.40, 2.45)).status is FAILS
    assert _fig10(monkeypatch, (1.87, 2.06)).status is HOLDS  # the committed grid range
    assert _fig10(monkeypatch, (2.0, 2.4)).status is OPEN  # meets the band's upper end 2.33


def _bounds(rs, m=128):
    return {r: {"edges = sum_k |V_k|": r * m, "prop21 bound min(...)": m, "flattening lower bound": m} for r in rs}


def test_xpaper_edges_exponent_band_is_appa3s():
    rs = [1, 2, 4, 8, 16, 32]
    # r^0.7: wholly outside the old [0.75, 1.25], inside [0.5, 1.5], the band appa3-edges-not-vertices-set-threshold
    # holds the same exponent to
    near = {r: 24 * r ** 0.7 for r in rs}
    v = xpaper.regular_edges_verdict(near, _bounds(rs), 128)
    assert v.status is HOLDS and "[0.5, 1.5]" in v.measured_value["exponent"]
    # the vertices law (no growth) is still contradicted
    assert xpaper.regular_edges_verdict({r: 24 + r % 3 for r in rs}, _bounds(rs), 128).status is FAILS


# ---------------------------------------------------------------- App. A.3's h* exponent: sigma at the ladder's floor

def _heads(hs):
    """{r: h* thresholds} with h* known to one rung of the doubling ladder: (h_low, h_high) = (h, h)."""
    return {r: NS(h_star=h, h_low=h, h_high=h) for r, h in hs.items()}


def test_heads_exponent_holds_sigma_at_the_ladder_floor():
    rs = [1, 2, 4, 8, 16]
    linear = xrefs.heads_exponent(_heads({r: 4 * r for r in rs}), rs)
    # every interval (h / sqrt2, h sqrt2] is one doubling wide: floor = ln 2 / sqrt(12)
    assert linear["sigma floor (ladder)"] == pytest.approx(math.log(2) / math.sqrt(12))
    assert linear["sigma fitted freely"] < linear["sigma floor (ladder)"]  # a line threads every interval
    assert linear["sigma used"] == linear["sigma floor (ladder)"]
    band = (1 - EXPONENT_HALF_WIDTH, 1 + EXPONENT_HALF_WIDTH)
    assert linear["p"] == pytest.approx(1.0, abs=1e-3)
    assert equivalence_status(linear["95% profile"], band)[0] is HOLDS
    # the planted alternative 'heads do not grow with r' is contradicted, and a square root is not a pass
    flat = xrefs.heads_exponent(_heads({r: 4 for r in rs}), rs)
    assert equivalence_status(flat["95% profile"], band)[0] is FAILS
    sqrt = xrefs.heads_exponent(_heads({1: 4, 2: 4, 4: 8, 8: 8, 16: 16}), rs)  # the committed central h*
    assert equivalence_status(sqrt["95% profile"], band)[0] is not HOLDS


def test_heads_exponent_floor_widens_a_collapsed_interval():
    rs = [1, 2, 4, 8, 16]
    ths = _heads({r: 4 * r for r in rs})
    fit = xrefs.heads_exponent(ths, rs)
    # the same regression with sigma free: the interval the floor replaces is narrower
    from rgr_verify.analysis.fits import interval_regression, profile_interval

    lo = np.log([ths[r].h_low / math.sqrt(2.0) for r in rs])
    hi = np.log([ths[r].h_high * math.sqrt(2.0) for r in rs])
    X = np.column_stack([np.ones(len(rs)), np.log(rs)])
    free = profile_interval(interval_regression(lo, hi, X), 1)
    assert fit["95% profile"][1] - fit["95% profile"][0] > free[1] - free[0]
