"""The runner's multiverse: every paper-scale experimental claim is judged with each training seed
left out in turn, crossed with the analyses its check declares; the verdict is the common one only when all agree.

- a check whose verdict does not depend on one seed is robust; one that a single seed decides is fragile and
  inconclusive, naming the seed;
- a check that reads no per-seed records, or that a left-out seed does not touch, is an error, never "robust";
- analyses a check computes itself are crossed with the seeds (every combination);
- the exact permutation p-value counts splits by rank sum and equals the listing of every split.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats as _st

from rgr_verify.claims import all_claims
from rgr_verify.claims.base import CheckContext, Claim, Kind, Status, Tier, Verdict
from rgr_verify.claims.fingerprint import rule_fingerprint
from rgr_verify.claims.tools.multiverse import run_analyses
from rgr_verify.core.stats import permutation_pvalue

_RECORDS = [{"seed": s, "metric": v} for s, v in [(0, 0.9), (1, 0.95), (2, 0.2), (0, 0.99), (1, 0.97), (2, 0.3)]]


def _claim(check, **kw):
    return Claim(id="planted-multiverse", ref="Sec. 6.1", statement="a planted experimental rule",
                 kind=Kind.EMPIRICAL, tier=Tier.FULL, check=check, role="detail", **kw)


def _mean_rule(threshold):
    def check(ctx):
        recs = ctx.keep_records(list(_RECORDS))
        mean = float(np.mean([r["metric"] for r in recs]))
        return Verdict(Status.HOLDS_EMPIRICALLY if mean >= threshold else Status.INCONCLUSIVE,
                       params={"estimate": mean}, evidence_level="experiment")
    return check


def test_full_tier_experimental_claims_leave_each_seed_out_by_default():
    assert _claim(_mean_rule(0.5)).analyses == ("leave one seed out",)
    assert Claim(id="x-quick", ref="Sec. 6.1", statement="s", kind=Kind.EMPIRICAL, tier=Tier.QUICK,
                 check=_mean_rule(0.5), role="detail").analyses == ()
    with pytest.raises(ValueError, match="analyses"):
        _claim(_mean_rule(0.5), analyses=("leave one cell out",))
    experimental = [c for c in all_claims() if c.tier is Tier.FULL and c.kind in (Kind.EMPIRICAL, Kind.QUALITATIVE)]
    assert all(c.analyses[:1] == ("leave one seed out",) for c in experimental
               if c.id != "sec73-gaussian-control-multihead-advantage")
    # a claim on the base grid alone also runs under App. A.1's other readings (the adaptive runs exist under one),
    # and replays their sweeps
    from rgr_verify.claims.base import READING_REPLAYS
    from rgr_verify.runs.presets import READING_PRESETS

    assert sorted(READING_PRESETS.values()) == list(READING_REPLAYS)
    readers = {c.id: c for c in experimental if "readings of App. A.1" in c.analyses}
    assert len(readers) >= 10 and "table1-per-head-width-adaptive" not in readers
    # (fig3-capacity-law-form also reads the doubled-cap runs, under the engine's readings only)
    assert all(c.replays in (("sec6-grid", *READING_REPLAYS), ("sec6-grid", "table2-cap2x", *READING_REPLAYS))
               for c in readers.values())
    assert not [c.id for c in experimental if c.replays == ("sec6-grid",) and c.id not in readers
                and c.id != "table1-per-head-width-adaptive"]


def _reading_rule(replaces: bool):
    def check(ctx):
        recs = list(_RECORDS)
        if ctx.reading is not None and replaces:
            recs = [{**r, "metric": 0.1} if r["seed"] == 2 else r for r in recs]  # the other reading: seed 2 lower
            ctx.seeds_read["replaced"] += 2
        recs = ctx.keep_records(recs)
        mean = float(np.mean([r["metric"] for r in recs]))
        return Verdict(Status.HOLDS_EMPIRICALLY if mean >= 0.6 else Status.INCONCLUSIVE,
                       params={"estimate": mean}, evidence_level="experiment")
    return check


def test_the_readings_are_crossed_with_the_seeds_and_a_reading_that_flips_is_named():
    claim = _claim(_reading_rule(True), analyses=("leave one seed out", "readings of App. A.1"))
    v = run_analyses(claim, CheckContext(seed=1, tier="full"))
    rob = v.params["robustness"]
    assert rob["analyses"] == 3 * 4  # (engine's, protected sampler, variance init) x (none, seed 0, 1, 2)
    assert rob["dimensions"]["readings of App. A.1"] == ["engine's", "protected sampler", "variance init"]
    # mean 0.718 under the engine's readings; 0.55 under another (seed 2's runs at 0.1): fragile, the reading named
    assert v.status is Status.INCONCLUSIVE and "the protected sampler reading" in v.details


def test_a_reading_that_replaces_no_record_is_an_error_not_robust():
    claim = _claim(_reading_rule(False), analyses=("leave one seed out", "readings of App. A.1"))
    with pytest.raises(ValueError, match="replaced no record"):
        run_analyses(claim, CheckContext(seed=1, tier="full"))


def test_another_reading_replaces_the_base_grid_cells_it_trained():
    from rgr_verify.runs.replay import claim_records

    ctx = CheckContext(seed=1, tier="full", replay_only=True, reading="protected sampler")
    recs, note = claim_records("sec6-grid", "full", ctx)
    small = [r for r in recs if r["config"]["m"] <= 128]
    assert small and all(r["config"]["sampler"] == "protected" for r in small)
    assert all(r["config"].get("sampler", "literal") == "literal" for r in recs if r["config"]["m"] > 128)
    assert ctx.seeds_read["replaced"] == len(small) and "sec6-grid-protected" in note
    with pytest.raises(ValueError, match="reading must be one of"):
        claim_records("sec6-grid", "full", CheckContext(seed=1, tier="full", replay_only=True, reading="other"))


def test_robust_when_no_seed_changes_the_verdict():
    v = run_analyses(_claim(_mean_rule(0.5)), CheckContext(seed=1, tier="full"))
    rob = v.params["robustness"]
    assert v.status is Status.HOLDS_EMPIRICALLY and rob["robust"] and rob["analyses"] == 4
    assert rob["dimensions"]["leave one seed out"] == ["none", "seed 0", "seed 1", "seed 2"]


def test_fragile_when_one_seed_decides_and_the_seed_is_named():
    # mean 0.718; without seed 2 (the two low runs) 0.953: 'holds at 0.9' rests on leaving seed 2 out
    v = run_analyses(_claim(_mean_rule(0.9)), CheckContext(seed=1, tier="full"))
    rob = v.params["robustness"]
    assert v.status is Status.INCONCLUSIVE and not rob["robust"]
    assert rob["summary"] == "fragile: holds in 1 of 4 analyses (3 inconclusive, 1 holds); leaning holds (1 of 4)"
    assert rob["by_status"] == {"holds-empirically": 1, "contradicted-empirically": 0, "inconclusive": 3}
    assert "seed 2" in v.details
    assert any("seed 2: holds" in (f["from"], f["to"]) for f in rob["flips"])


def test_a_check_that_reads_no_seeded_records_is_an_error_not_robust():
    def no_records(ctx):
        return Verdict(Status.HOLDS_EMPIRICALLY, evidence_level="experiment")

    with pytest.raises(ValueError, match="training seed"):
        run_analyses(_claim(no_records), CheckContext(seed=1, tier="full"))

    def ignores_the_filter(ctx):
        ctx.seeds_read["seeds"].update({0, 1})  # says it read two seeds but never lets one be left out
        return Verdict(Status.HOLDS_EMPIRICALLY, evidence_level="experiment")

    with pytest.raises(ValueError, match="removed no record"):
        run_analyses(_claim(ignores_the_filter), CheckContext(seed=1, tier="full"))


def test_the_checks_own_analyses_are_crossed_with_the_seeds():
    def own(ctx):
        recs = ctx.keep_records(list(_RECORDS))
        curve = [{"choices": {"estimator": e}, "estimate": None, "interval": None,
                  "status": "holds-empirically" if len(recs) > 4 or e == "b" else "inconclusive"}
                 for e in ("a", "b")]
        return Verdict(Status.INCONCLUSIVE, params={"robustness": {"curve": curve}}, evidence_level="experiment")

    rob = run_analyses(_claim(own), CheckContext(seed=1, tier="full")).params["robustness"]
    assert rob["analyses"] == 8 and set(rob["dimensions"]) == {"estimator", "leave one seed out"}


def test_the_seed_dimension_enters_the_rule_fingerprint():
    check = _mean_rule(0.5)
    assert rule_fingerprint(_claim(check)) != rule_fingerprint(_claim(check, analyses=()))


def _listed(a, b, alternative):
    pooled = np.array([float(v) for v in a + b])
    ranks = _st.rankdata(np.where(np.isinf(pooled), np.sign(pooled) * 1e300, pooled))
    sign = 1.0 if alternative == "greater" else -1.0
    total, n = float(ranks.sum()), len(pooled)

    def stat(idx):
        sb = float(ranks[list(idx)].sum())
        return sign * (sb / len(b) - (total - sb) / len(a))

    obs = stat(range(len(a), n))
    splits = list(itertools.combinations(range(n), len(b)))
    return sum(stat(i) >= obs - 1e-12 for i in splits) / len(splits)


@settings(max_examples=150, deadline=None)
@given(st.lists(st.sampled_from([0.0, 1.0, 2.0, 3.0, math.inf, -math.inf]), min_size=1, max_size=7),
       st.lists(st.sampled_from([0.0, 1.0, 2.5, 3.0, math.inf]), min_size=1, max_size=7),
       st.sampled_from(["greater", "less"]))
def test_exact_permutation_pvalue_counts_every_split(a, b, alternative):
    assert permutation_pvalue(a, b, alternative=alternative) == _listed(a, b, alternative)


def test_fig3_crosses_the_ladder_with_the_adaptive_thresholds():
    # the committed adaptive search enters the Fig. 3 multiverse as a second source of thresholds
    from rgr_verify.claims.paper_sec6.grid import fig3_analyses
    from rgr_verify.claims.tools.measure import R2_RANGE, R2_RANGE_ANY_HIT, R2_RANGE_CAPPED

    def reading(slope):
        return {"paper estimator (LS through origin, first passing D_K, uncensored cells)":
                {"slope": slope, "R2 centred": 0.94,
                 "grid range of the slope (cells anywhere in their D_K* interval)": [0.95 * slope, slope],
                 **{key: [0.9, 0.99] for key in (R2_RANGE, R2_RANGE_CAPPED, R2_RANGE_ANY_HIT)}},
                "interval regression, censored cells as intervals": {"slope": slope, "95% profile": [0.9 * slope,
                                                                                                     1.1 * slope]},
                "interval regression, uncensored cells only": {"slope": slope, "95% profile": [0.9 * slope,
                                                                                              1.1 * slope]}}

    ladder = {"ln": reading(1.19), "log2": reading(1.19)}
    adaptive = {"ln": reading(2.38), "log2": reading(2.38)}  # a planted adaptive slope twice the stated one
    out = fig3_analyses(ladder, paper_slope=1.19, slope_factor=2 ** 0.5, paper_r2=0.944, r2_tol=0.1,
                        adaptive=adaptive)
    from rgr_verify.claims.tools.multiverse import DIMENSIONS

    assert len(out) == 2 * 2 * len(DIMENSIONS["estimator"]) and {a["choices"]["thresholds"] for a in out} == {
        "ladder (App. A.2 grid)",
                                                                           "adaptive search (committed evidence)"}
    by = {a["choices"]["thresholds"]: a["status"] for a in out}
    assert by["ladder (App. A.2 grid)"] is Status.HOLDS_EMPIRICALLY
    assert by["adaptive search (committed evidence)"] is Status.CONTRADICTED_EMPIRICALLY


def test_the_curve_takes_the_judged_interval_when_a_check_names_no_estimate(tmp_path):
    def judged(ctx):
        recs = ctx.keep_records(list(_RECORDS))
        lo = float(np.mean([r["metric"] for r in recs]))
        return Verdict(Status.INCONCLUSIVE, evidence_level="experiment",
                       params={"resolution": {"interval": [lo - 0.1, lo + 0.1], "band": [0.4, 0.6]}})

    v = run_analyses(_claim(judged), CheckContext(seed=1, tier="full", out_dir=tmp_path))
    curve = v.params["robustness"]["curve"]
    assert all(a["estimate"] is not None and len(a["interval"]) == 2 for a in curve)
    assert (tmp_path / "planted-multiverse-specification-curve.png").is_file()
    assert "planted-multiverse-specification-curve.png" in v.artefacts
