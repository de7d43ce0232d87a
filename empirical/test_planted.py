# Planted alternatives: every paper-scale experimental rule rejects the alternative it is there to rule out.
#
# Each claim's check runs once on its committed evidence rewritten by a plant (rgr_verify.runs.plants) under which the
# alternative holds by construction (heads make no difference, the threshold does not move, the transition is
# gradual, ...); the claim must not reach the status the alternative would wrongly give it.
import gzip
import json

import pytest

from rgr_verify.claims import all_claims, get_claim
from rgr_verify.claims.base import DEFAULT_SEED, CheckContext, Status, claim_seed
from rgr_verify.runs.evidence import default_evidence_dir
from rgr_verify.runs.plants import EXEMPT, PLANTS

# claim id -> (the plant that makes its alternative true, the status the claim must not reach on it), as each claim
# declares it on its standard
ALTERNATIVES = {c.id: c.standard.alternative for c in all_claims() if c.standard is not None and c.standard.alternative}


def _experimental():
    return [c for c in all_claims() if c.tier.value == "full" and c.kind.value in ("empirical", "qualitative")]


def test_every_paper_scale_experimental_claim_states_its_alternative():
    ids = {c.id for c in _experimental()}
    assert not set(ALTERNATIVES) & set(EXEMPT)
    assert ids == set(ALTERNATIVES) | set(EXEMPT), (sorted(ids - set(ALTERNATIVES) - set(EXEMPT)),
                                                     sorted(set(ALTERNATIVES) | set(EXEMPT) - ids))
    assert all(plant in PLANTS for plant, _ in ALTERNATIVES.values())
    assert all(must_not in {s.value for s in Status} for _, must_not in ALTERNATIVES.values())


def test_plants_do_not_touch_the_stored_records():
    rec = {"config": {"n_heads": 2, "d_head": 8, "m": 64, "d_model": 16, "variant": "max", "max_steps": 100},
           "metric": 0.5, "seed": 1, "val_history": [0.5], "stopped_early": False, "steps": 100}
    other = {**rec, "config": {**rec["config"], "n_heads": 1, "d_head": 16}, "metric": 0.9}
    before = json.dumps([rec, other], sort_keys=True)
    for plant in PLANTS.values():
        plant([rec, other])
    assert json.dumps([rec, other], sort_keys=True) == before
    assert [r["metric"] for r in PLANTS["no_head_effect"]([rec, other])] == [0.9, 0.9]
    assert [r["metric"] for r in PLANTS["best_head_everywhere"]([rec, other])] == [0.9, 0.9]


@pytest.fixture(scope="module")
def facts_results(tmp_path_factory):
    """A results folder holding the committed facts-model evidence, so that the facts claims replay it (they train
    missing runs otherwise)."""
    d = tmp_path_factory.mktemp("facts-results")
    with gzip.open(default_evidence_dir() / "facts-full.jsonl.gz", "rt") as src, \
            open(d / "facts-runs.jsonl", "w") as dst:
        for line in src:
            dst.write(line if line.endswith("\n") else line + "\n")
    return d


@pytest.mark.parametrize("cid", sorted(ALTERNATIVES))
def test_planted_alternative_is_rejected(cid, facts_results):
    claim = get_claim(cid)
    plant, must_not = ALTERNATIVES[cid]
    ctx = CheckContext(seed=claim_seed(DEFAULT_SEED, cid), tier="full", device="cpu", replay_only=True,
                       expects=claim.stated_values(), plant=PLANTS[plant],
                       results_dir=facts_results if cid.startswith("facts-") else None)
    verdict = claim.check(ctx)
    assert not verdict.unavailable, verdict.unavailable
    assert verdict.status is not Status.ERROR
    assert verdict.status.value != must_not, (plant, verdict.details)


def test_the_sampler_reading_rule_can_fail_and_pass():
    from rgr_verify.claims.paper_appa.reading_effect import reading_shift_status

    # one standard to pass and to fail: each cell's interval for the shift (in rungs) against [-1, 1]
    def row(lo, hi):
        return {"shift interval (rungs)": [lo, hi]}

    inf = float("inf")
    assert reading_shift_status({"a": row(0, 0), "b": row(-1, 1)}) is Status.HOLDS_EMPIRICALLY
    assert reading_shift_status({"a": row(0, 0), "b": row(2, 3)}) is Status.CONTRADICTED_EMPIRICALLY
    assert reading_shift_status({"a": row(inf, inf)}) is Status.CONTRADICTED_EMPIRICALLY
    assert reading_shift_status({"a": row(-inf, -2)}) is Status.CONTRADICTED_EMPIRICALLY
    assert reading_shift_status({"a": row(-4, 4)}) is Status.INCONCLUSIVE  # a cell the grid cannot resolve
    assert reading_shift_status({"a": row(0, 2)}) is Status.INCONCLUSIVE
