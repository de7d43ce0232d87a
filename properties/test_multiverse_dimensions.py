"""The multiverse varies what a referee would vary (issue 37, item 4).

- ``robustness`` counts the analyses by status and says which way an inconclusive verdict leans (one rule, stated in
  :mod:`rgr_verify.claims.tools.multiverse`); the verdict stays "all agree, else inconclusive";
- the runner's one-at-a-time dimensions (App. A.2's F1 target and threshold rule, the tolerance of our bands, the
  tests' level, the first seed batch) reach the threshold, tolerance and test code through the context, and each
  one can flip a verdict (a planted check per dimension);
- a dimension a check cannot apply is an error, never "robust", and so is one it applies without declaring it;
- every full-tier experimental claim varies at least three dimensions besides the left-out seeds.
"""

from __future__ import annotations

import numpy as np
import pytest

from rgr_verify.analysis.capacity import CurvePoint, f1_target, threshold
from rgr_verify.claims import all_claims
from rgr_verify.claims.base import (BATCHED_REPLAYS, F1_REPLAYS, RUNNER_ANALYSES, CheckContext, Claim, Kind, Status,
                                    Tier, Verdict)
from rgr_verify.claims.tools.multiverse import (DIMENSIONS, RUNNER_DIMENSIONS, RUNNER_VALUES, lean_of,
                                                multiverse_status, run_analyses, significance, tolerance)

H, C, I = Status.HOLDS_EMPIRICALLY, Status.CONTRADICTED_EMPIRICALLY, Status.INCONCLUSIVE


def _claim(check, analyses):
    return Claim(id="planted-dimension", ref="Sec. 6.1", statement="a planted experimental rule", kind=Kind.EMPIRICAL,
                 tier=Tier.FULL, check=check, role="detail", analyses=analyses)


def _ctx():
    return CheckContext(seed=1, tier="full")


def _analyses(statuses):
    return [{"choices": {"d": str(i)}, "estimate": None, "interval": None, "status": s} for i, s in enumerate(statuses)]


# --- counts and the lean ---------------------------------------------------------------------------------------------

def test_robustness_counts_every_status_and_says_which_way_it_leans():
    status, rob = multiverse_status(_analyses([C, C, I, I, I, I]))  # eq32's shape: contradicted in 2 of 6, never holds
    assert status is I and rob["by_status"] == {"holds-empirically": 0, "contradicted-empirically": 2,
                                                "inconclusive": 4}
    assert rob["lean"]["text"] == "leaning contradicted (2 of 6)" and rob["summary"].endswith("leaning contradicted (2 of 6)")
    status, rob = multiverse_status(_analyses([H] * 32 + [C]))
    assert status is I and rob["lean"]["text"] == "leaning holds (32 of 33; contradicted in 1)"


def test_an_analysis_that_cannot_decide_at_its_resolution_is_counted_but_left_out():
    """Reviews of 2026-11-28: an exact test whose smallest attainable p-value is above its level (2 seeds against 3;
    the level x 1/5) is inconclusive whatever the data; it must not block the analyses that can decide. Only such an
    analysis that came out inconclusive is left out; one that can decide and is inconclusive still blocks."""
    blind = {"resolvable": False}
    status, rob = multiverse_status(_analyses([H, H, H]) + [{**a, **blind} for a in _analyses([I, I])])
    assert status is H and rob["robust"] and rob["unresolvable"] == 2 and rob["analyses"] == 5
    assert rob["by_status"]["inconclusive"] == 0 and "2 more cannot decide at their resolution" in rob["summary"]
    assert rob["flips"] == []
    # a resolvable inconclusive analysis still blocks (all agree, else inconclusive)
    assert multiverse_status(_analyses([H, H, I]) + [{**_analyses([I])[0], **blind}])[0] is I
    # the mark never hides a decided analysis: a contradicted one marked unresolvable still counts
    status, rob = multiverse_status(_analyses([H, H]) + [{**_analyses([C])[0], **blind}])
    assert status is I and rob["by_status"]["contradicted-empirically"] == 1
    # nothing left that can decide: inconclusive
    status, rob = multiverse_status([{**a, **blind} for a in _analyses([I, I])])
    assert status is I and not rob["robust"] and rob["summary"].startswith("no analysis can decide")


def test_no_lean_when_both_sides_are_reached_equally_or_the_analyses_agree():
    assert multiverse_status(_analyses([H, C, I]))[1]["lean"] is None
    assert multiverse_status(_analyses([I, I]))[1]["lean"] is None  # robust inconclusive: nothing to lean to
    status, rob = multiverse_status(_analyses([H, H]))
    assert status is H and rob["lean"] is None and rob["summary"] == "robust: holds in all 2 analyses"
    with pytest.raises(ValueError):
        lean_of({H: 3}, 2)
    with pytest.raises(ValueError):
        lean_of({H: 1}, 0)


# --- the runner's dimensions are declared once and applied through the context ----------------------------------------

def test_runner_dimensions_are_declared_once():
    assert tuple(RUNNER_DIMENSIONS) == RUNNER_ANALYSES
    assert set(RUNNER_VALUES) <= set(RUNNER_DIMENSIONS)
    assert all(values[0][1] is None for values in RUNNER_VALUES.values())  # the default first
    from rgr_verify.runs.presets import PRESETS
    from rgr_verify.runs.replay import SEED_BATCHES, first_batch

    assert set(BATCHED_REPLAYS) <= set(SEED_BATCHES) and set(F1_REPLAYS) <= set(PRESETS)
    assert first_batch("sec72-value", "full") == (0, 1, 2) and first_batch("sec72-value", "quick") is None


def test_bad_choices_are_value_errors():
    for bad in ({"f1_target": 1.5}, {"f1_target": 0}, {"threshold_rule": "median"}, {"tolerance_scale": 0},
                {"level_scale": -1.0}, {"seed_batch": "last"}):
        with pytest.raises(ValueError):
            CheckContext(seed=1, **bad)
    with pytest.raises(ValueError):
        tolerance(0.5, kind="ratio")
    with pytest.raises(ValueError):
        tolerance(1.0, kind="factor")  # a factor band needs a factor > 1
    with pytest.raises(ValueError):
        tolerance(-0.1)
    with pytest.raises(ValueError):
        significance(1.5)


def test_choices_are_read_only_while_an_analysis_is_in_force():
    assert f1_target() == 0.99 and tolerance(0.5) == 0.5 and tolerance(2.0, kind="factor") == 2.0
    ctx = CheckContext(seed=1, f1_target=0.985, tolerance_scale=0.5, level_scale=0.2)
    with ctx.applied():
        assert f1_target() == 0.985 and f1_target(0.9) == 0.985
        assert tolerance(0.5) == 0.25 and tolerance(2.0, kind="factor") == pytest.approx(2 ** 0.5)
        assert tolerance(0.5, source="paper") == 0.5  # a band the paper states is not varied
        assert significance(0.05) == pytest.approx(0.01)
    assert ctx.seeds_read["reads"] == {"F1 target": 2, "tolerance": 2, "test level": 1}
    assert f1_target() == 0.99  # outside the block: the defaults again


# --- one planted check per dimension: each can flip a verdict ----------------------------------------------------------

def _points(means_by_dk, h=1, spread=0.0):
    pts = []
    for D, m in means_by_dk.items():
        vals = (m - spread, m, m + spread)
        mean, sd = float(np.mean(vals)), float(np.std(vals, ddof=1))
        half = 4.303 * sd / np.sqrt(3)  # the 95% t-interval of 3 values
        pts.append(CurvePoint(h, D, (0, 1, 2), vals, mean, mean - half, mean + half))
    return pts


def _threshold_rule(pts, dk_max):
    """Holds when App. A.2's D_K* is at most ``dk_max``, contradicted otherwise (no record read: no seed dimension)."""
    def check(ctx):
        th = threshold(pts)
        return Verdict(H if th.central is not None and th.central <= dk_max else C, params={"estimate": th.central},
                       evidence_level="experiment")
    return check


def test_the_f1_target_can_flip_a_verdict():
    pts = _points({8: 0.5, 16: 0.987, 32: 0.999})  # passes 0.985 at 16, 0.99 and 0.995 only at 32
    v = run_analyses(_claim(_threshold_rule(pts, 16), ("F1 target", "threshold rule")), _ctx())
    rob = v.params["robustness"]
    assert v.status is I and rob["dimensions"]["F1 target"] == ["0.99 (App. A.2)", "0.985", "0.995"]
    assert rob["by_status"]["holds-empirically"] == 1 and "F1 target 0.985" in v.details
    # one at a time around the default: 1 + 2 F1 targets + 2 threshold rules (the same here: no spread over seeds)
    assert rob["lean"]["text"] == "leaning contradicted (4 of 5; holds in 1)"


def test_the_threshold_rule_can_flip_a_verdict():
    pts = _points({8: 0.5, 16: 0.992, 32: 0.999}, spread=0.01)  # the mean passes at 16, the lower end nowhere
    v = run_analyses(_claim(_threshold_rule(pts, 16), ("F1 target", "threshold rule")), _ctx())
    assert v.status is I and "threshold rule conservative" in v.details
    assert "threshold rule" in {f["dimension"] for f in v.params["robustness"]["flips"]}


def test_the_tolerance_can_flip_a_verdict():
    def check(ctx):  # an interval [0.8, 1.3] against 1 +- 0.5 (ours): inside; against 1 +- 0.25: not
        tol = tolerance(0.5)
        return Verdict(H if 1 - tol <= 0.8 and 1.3 <= 1 + tol else I, evidence_level="experiment")

    v = run_analyses(_claim(check, ("tolerance",)), _ctx())
    assert v.status is I and "tolerance half-width x 1/2" in v.details
    assert v.params["robustness"]["by_status"] == {"holds-empirically": 2, "contradicted-empirically": 0,
                                                   "inconclusive": 1}


def test_the_test_level_can_flip_a_verdict():
    def check(ctx):  # p = 0.03: significant at 0.05 and 0.10, not at 0.01
        return Verdict(H if 0.03 < significance(0.05) else I, evidence_level="experiment")

    v = run_analyses(_claim(check, ("test level",)), _ctx())
    assert v.status is I and "test level x 1/5" in v.details


_BATCHED = [{"seed": s, "metric": m} for s, m in [(0, 0.9), (1, 0.92), (2, 0.94), (3, 0.2), (4, 0.3)]]


def _batched_rule(first):
    def check(ctx):  # holds when the mean over the records kept is above 0.8: only the first batch's is
        recs = ctx.keep_records(list(_BATCHED), first)
        return Verdict(H if np.mean([r["metric"] for r in recs]) > 0.8 else I, evidence_level="experiment")
    return check


def test_the_seed_batch_can_flip_a_verdict():
    v = run_analyses(_claim(_batched_rule((0, 1, 2)), ("seed batch",)), _ctx())
    assert v.status is I and "seed batch first batch only" in v.details
    assert v.params["robustness"]["dimensions"]["seed batch"] == ["every batch", "first batch only"]


# --- a dimension that cannot apply, or that applies undeclared, is an error ----------------------------------------

def test_a_dimension_the_check_cannot_apply_is_an_error():
    pts = _points({8: 0.5, 16: 0.999})
    for dim in ("tolerance", "test level"):  # the check reads no tolerance and makes no test
        with pytest.raises(ValueError, match="never reads"):
            run_analyses(_claim(_threshold_rule(pts, 16), ("F1 target", "threshold rule", dim)), _ctx())
    with pytest.raises(ValueError, match="later batch"):  # evidence trained in one batch
        run_analyses(_claim(_batched_rule(None), ("seed batch",)), _ctx())


def test_a_dimension_the_check_applies_without_declaring_it_is_an_error():
    pts = _points({8: 0.5, 16: 0.999})
    with pytest.raises(ValueError, match="does not declare 'threshold rule'"):
        run_analyses(_claim(_threshold_rule(pts, 16), ("F1 target",)), _ctx())
    with pytest.raises(ValueError, match="does not declare 'F1 target'"):
        run_analyses(_claim(_threshold_rule(pts, 16), ("threshold rule",)), _ctx())


def test_identical_verdicts_under_reruns():
    pts = _points({8: 0.5, 16: 0.987, 32: 0.999})
    claim = _claim(_threshold_rule(pts, 16), ("F1 target", "threshold rule"))
    a, b = run_analyses(claim, _ctx()), run_analyses(claim, _ctx())
    assert a.status is b.status and a.params["robustness"] == b.params["robustness"]


# --- App. A.2's h* tie-break -----------------------------------------------------------------------------------------

def test_the_h_star_tie_break_picks_among_the_heads_tied_at_the_threshold():
    from rgr_verify.claims.tools.cells import h_star_tie_break

    pts = _points({16: 0.9995}, h=2) + _points({16: 0.9999}, h=4) + _points({16: 0.9996}, h=8) + \
        _points({16: 0.97}, h=16)
    th = threshold(pts)
    app, fewest, most = DIMENSIONS["h* tie-break"]
    assert th.h_star == 4 and h_star_tie_break(th, pts, app) is th
    assert h_star_tie_break(th, pts, fewest).h_star == 2 and h_star_tie_break(th, pts, most).h_star == 8
    with pytest.raises(ValueError):
        h_star_tie_break(th, pts, "median")


# --- every full-tier experimental claim varies what a referee would vary --------------------------------------------

def test_every_full_tier_experimental_claim_varies_three_dimensions_besides_left_out_seeds():
    experimental = [c for c in all_claims() if c.tier is Tier.FULL and c.kind in (Kind.EMPIRICAL, Kind.QUALITATIVE)]
    assert len(experimental) >= 40
    short = {}
    for c in experimental:
        own = tuple(getattr(c.standard, "dimensions", None) or ())
        dims = {d for d in c.analyses if d != "leave one seed out"} | set(own)
        if len(dims) < 3:
            short[c.id] = sorted(dims)
        assert set(own) <= set(DIMENSIONS) | {"threshold estimate", "R^2", "selection seed"}, (c.id, own)
    assert not short, short
    # App. A.2's F1 bar is varied for every claim that replays an F1 sweep and reads a threshold
    f1 = [c.id for c in experimental if set(c.replays) & set(F1_REPLAYS) and "F1 target" not in c.analyses
          and c.id not in ("sec61-multihead-advantage-full-grid",)]
    assert not f1, f1


def test_the_sharp_transition_width_is_a_tolerance_the_multiverse_varies():
    # the width of the one sharp-transition rule is ours: "tolerance" judges it at the declared factor 4, then at its
    # square root (2) and its square (16), the way every factor band of ours is varied
    from rgr_verify.claims.tools.sharp import sharp_verdict

    pts = _points({8: 0.5, 16: 0.8, 32: 0.999}, spread=0.01)
    widths = {}
    for scale in (1.0, 0.5, 2.0):
        ctx = CheckContext(seed=1, tolerance_scale=scale)
        with ctx.applied():
            v = sharp_verdict({(64, 16): pts}, {(64, 16): {"cap-limited": False}}, 4.0, 9, "one curve")
        widths[scale] = v.params["width from each anchor"]["0.5"]
        assert ctx.seeds_read["reads"].get("tolerance") == 1
    assert widths == {1.0: pytest.approx(4.0), 0.5: pytest.approx(2.0), 2.0: pytest.approx(16.0)}
