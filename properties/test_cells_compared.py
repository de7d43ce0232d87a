# The two multiverse dimensions of the Sec. 6.1 trend claims (review rev39, F1 and F2): "cells compared" (Figure 2's
# h*: the declared pair of end cells, then every pair of cells that differ in one coordinate, tested by the rule of
# sec61-dkstar-grows-with-compression) and "cap-limited seeds" (D_K*'s per-seed thresholds the Table 2 cap stopped:
# read against the claim, then as measured). Each can flip a synthetic verdict; the quick analogues keep their rule.
import importlib

import pytest

from rgr_verify.claims import get_claim
from rgr_verify.claims.base import CheckContext, Status
from rgr_verify.claims.paper_sec6.trends import (compression_pairs, dkstar_grows_verdict, hstar_grows_verdict,
                                                 pairwise_trend)
from rgr_verify.claims.tools.multiverse import DIMENSIONS

HOLDS, FAILS, OPEN = Status.HOLDS_EMPIRICALLY, Status.CONTRADICTED_EMPIRICALLY, Status.INCONCLUSIVE
trends = importlib.import_module("rgr_verify.claims.paper_sec6.trends")

CELLS = [(64, 32), (64, 64), (128, 32), (128, 64)]  # a 2 x 2 grid: four pairs that differ in one coordinate
SEEDS = range(6)  # 6 against 6 seeds: the smallest exact p is 1 / C(12, 6) < 0.05 / 4
LADDER = (4, 8, 16, 32, 64)
HEADS = (1, 2, 4, 8)


def _records(need: dict, h_min: dict, *, cap_limited=()):
    """Synthetic max-over-heads records of CELLS: a run passes (F1 1, stopped early) when D_K >= need[cell] and
    h >= h_min[cell], else it stays at 0.5 (cap hit, no history: it could pass with a longer cap). In a cell of
    ``cap_limited`` the passing runs hit the cap at F1 0.995: per-seed thresholds known only as upper bounds."""
    recs = []
    for (m, d) in CELLS:
        for D in LADDER:
            for h in HEADS:
                if D % h:
                    continue
                for s in SEEDS:
                    ok = D >= need[(m, d)] and h >= h_min[(m, d)]
                    capped = ok and (m, d) in cap_limited
                    recs.append({"config": {"m": m, "d_model": d, "n_heads": h, "d_k": D // h, "variant": "max",
                                            "graph": "permutation", "r": 1, "max_steps": 20000},
                                 "seed": s, "metric": (0.995 if capped else 1.0) if ok else 0.5,
                                 "stopped_early": ok and not capped, "val_history": [], "steps": 20000})
    return recs


@pytest.fixture
def replay(monkeypatch):
    def use(recs):
        monkeypatch.setattr(trends, "sweep_records", lambda preset, tier, ctx: (recs, ""))
        return CheckContext(seed=1, tier="full", device="cpu")
    return use


def test_the_dimensions_are_declared_once_and_by_the_full_tier_claims_only():
    assert DIMENSIONS["cells compared"] == ("the claim's declared comparison", "every pair differing in one coordinate")
    assert DIMENSIONS["cap-limited seeds"] == ("read against the claim", "as measured")
    assert get_claim("fig2-hstar-grows-with-compression").standard.dimensions == ("cells compared",)
    assert get_claim("sec61-dkstar-grows-with-compression").standard.dimensions == ("cap-limited seeds",)
    assert get_claim("fig2-hstar-grows-with-compression-quick").standard.dimensions == ()
    assert get_claim("sec61-dkstar-grows-with-compression-quick").standard.dimensions == ()


def test_the_pairs_differ_in_one_coordinate_the_second_more_compressed():
    assert sorted(compression_pairs(CELLS)) == [((64, 32), (128, 32)), ((64, 64), (64, 32)), ((64, 64), (128, 64)),
                                                ((128, 64), (128, 32))]


@pytest.mark.parametrize("values, expected", [
    ({(64, 64): 1, (64, 32): 2, (128, 64): 2, (128, 32): 4}, HOLDS),  # every step up
    ({(64, 64): 1, (64, 32): 1, (128, 64): 2, (128, 32): 4}, OPEN),  # one flat step: not confirmed
    ({(64, 64): 1, (64, 32): 1, (128, 64): 8, (128, 32): 4}, FAILS),  # one step down: reversed
])
def test_the_pairwise_rule_needs_every_step(values, expected):
    per = {k: [float(v)] * 6 for k, v in values.items()}
    status, ps, up, down = pairwise_trend(compression_pairs(CELLS), per, per, 0.05 / 4)
    assert status is expected and len(ps) == 4
    assert (up == 4) is (expected is HOLDS) and bool(down) is (expected is FAILS)


def test_a_cell_with_fewer_than_two_values_tests_nothing():
    per = {(64, 64): [1.0] * 6, (64, 32): [2.0], (128, 64): [2.0] * 6, (128, 32): [4.0] * 6}
    status, ps, _, _ = pairwise_trend(compression_pairs(CELLS), per, per, 0.05 / 4)
    assert status is OPEN and ps.count((1.0, 1.0)) == 2


def test_the_forward_test_reads_against_the_claim_and_conflicting_tests_decide_nothing():
    # the forward test ("b larger") reads a high and b low; the reverse test a low and b high
    pairs = [((64, 64), (128, 64))]
    a, b_low, b_high = [1.0] * 6, [0.0] * 6, [2.0] * 6
    assert pairwise_trend(pairs, {(64, 64): a, (128, 64): b_high}, {(64, 64): a, (128, 64): b_high}, 0.05)[0] is HOLDS
    assert pairwise_trend(pairs, {(64, 64): a, (128, 64): b_low}, {(64, 64): a, (128, 64): b_high}, 0.05)[0] is OPEN
    # readings that let both tests pass (b above a read low, below it read high) are conflicting evidence
    status, ps, up, down = pairwise_trend(pairs, {(64, 64): a, (128, 64): b_high}, {(64, 64): a, (128, 64): b_low},
                                          0.05)
    assert up == 1 and down == [0] and status is OPEN


@pytest.mark.parametrize("h_min, every, verdict", [
    ({(64, 64): 1, (64, 32): 2, (128, 64): 2, (128, 32): 4}, HOLDS, HOLDS),  # h* grows step by step: robust
    ({(64, 64): 1, (64, 32): 1, (128, 64): 2, (128, 32): 4}, OPEN, OPEN),  # flat at low compression: flipped
    ({(64, 64): 1, (64, 32): 1, (128, 64): 8, (128, 32): 4}, FAILS, OPEN),  # a reversed step: flipped
])
def test_cells_compared_can_flip_the_end_cell_verdict(replay, h_min, every, verdict):
    # the declared comparison ((64,64) against (128,32)) holds in every case; every pair decides otherwise
    recs = _records({k: 16 for k in CELLS}, h_min)
    v = hstar_grows_verdict(replay(recs), "sec6-grid", "full")
    declared, pairs = DIMENSIONS["cells compared"]
    by = {a["choices"]["cells compared"]: Status(a["status"]) for a in v.params["robustness"]["curve"]}
    assert by == {declared: HOLDS, pairs: every}
    assert v.status is verdict and v.measured_value[pairs]["status"] == every.value
    lean = v.params["robustness"]["lean"]  # one holds against one inconclusive leans; against one contradicted not
    assert (lean or {}).get("towards") == ("holds" if every is OPEN else None)
    # the quick analogue keeps the declared comparison: it holds, with no multiverse of its own
    q = hstar_grows_verdict(replay(recs), "sec6-grid", "quick")
    assert q.status is HOLDS and "robustness" not in q.params and pairs not in q.measured_value


@pytest.mark.parametrize("cap_limited, against, verdict", [
    ((), HOLDS, HOLDS),  # no cap-limited seed: the two readings agree
    (((128, 32),), OPEN, OPEN),  # the most compressed cell cap-limited: read against the claim its seeds drop to 0
])
def test_cap_limited_seeds_can_flip_the_verdict(replay, cap_limited, against, verdict):
    recs = _records({(64, 64): 8, (64, 32): 16, (128, 64): 16, (128, 32): 32}, {k: 1 for k in CELLS},
                    cap_limited=cap_limited)
    v = dkstar_grows_verdict(replay(recs), "sec6-grid", "full")
    read_against, as_measured = DIMENSIONS["cap-limited seeds"]
    by = {a["choices"]["cap-limited seeds"]: Status(a["status"]) for a in v.params["robustness"]["curve"]}
    assert by == {read_against: against, as_measured: HOLDS}  # as measured, every step is up
    assert v.status is verdict
    assert v.measured_value["by cap-limited seeds"][as_measured]["significant increases"] == 4
    if verdict is OPEN:
        assert v.params["robustness"]["lean"]["towards"] == "holds"
        assert len(v.measured_value["by cap-limited seeds"][read_against]["not confirmed"]) == 2
    # the quick analogue keeps the one reading (against the claim), with its record as before
    q = dkstar_grows_verdict(replay(recs), "sec6-grid", "quick")
    assert q.status is against and "robustness" not in q.params
    assert set(q.measured_value) == {"pairs", "significant increases", "pairs tested"}


def test_a_reversed_step_contradicts_under_both_readings(replay):
    # D_K* falls from (128,64) to (128,32): both readings of the cap-limited seeds reach it, so the verdict fails
    recs = _records({(64, 64): 8, (64, 32): 16, (128, 64): 64, (128, 32): 32}, {k: 1 for k in CELLS})
    v = dkstar_grows_verdict(replay(recs), "sec6-grid", "full")
    assert v.status is FAILS and v.params["robustness"]["robust"]
