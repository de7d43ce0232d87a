# sec61-multihead-advantage-full-grid on the comparison standard (standards.comparison): per compressed cell, the
# held-out paired gap of the (h > 1, D_K) picked on the other half of the seeds, its t-interval at 0.05 / #cells
# against [0.1, inf); "many" = at least half of the cells hold, contradicted when more than half fail. A point gap
# never passes or fails a cell alone, and the planted alternative (no head effect) is rejected.
import importlib

import numpy as np
import pytest

from rgr_verify.claims import get_claim
from rgr_verify.claims.base import CheckContext, Status

HOLDS, FAILS, OPEN = Status.HOLDS_EMPIRICALLY, Status.CONTRADICTED_EMPIRICALLY, Status.INCONCLUSIVE
grid = importlib.import_module("rgr_verify.claims.paper_sec6.grid")
CLAIM = get_claim("sec61-multihead-advantage-full-grid")
CELLS = [(128, 32), (256, 32), (256, 64)]  # three compressed cells (m / d_model >= 4): "many" needs 2 of them
SEEDS = range(10)


def _records(gaps: dict, noise: dict | None = None, seed: int = 0):
    """Synthetic records: h = 1 and h = 2 at D_K = 16 per cell; F1 of h = 1 is 0.5 + noise, of h = 2 that plus the
    cell's gap plus its own noise (standard deviation noise[cell], default 0.01)."""
    rng = np.random.default_rng(seed)
    recs = []
    for cell in CELLS:
        sd = (noise or {}).get(cell, 0.01)
        for s in SEEDS:
            base = 0.5 + rng.normal(0, 0.01)
            for h, f1 in ((1, base), (2, base + gaps[cell] + rng.normal(0, sd))):
                recs.append({"config": {"m": cell[0], "d_model": cell[1], "n_heads": h, "d_k": 16 // h,
                                        "variant": "max", "graph": "permutation", "r": 1, "max_steps": 20000},
                             "seed": s, "metric": float(f1), "stopped_early": False, "val_history": [],
                             "steps": 20000})
    return recs


def _verdict(monkeypatch, recs, **choices):
    monkeypatch.setattr(grid, "sweep_records", lambda preset, tier, ctx: (recs, ""))
    ctx = CheckContext(seed=1, tier="full", device="cpu", **choices)
    with ctx.applied():
        return CLAIM.check(ctx)


@pytest.mark.parametrize("gaps, noise, expected", [
    ({(128, 32): 0.3, (256, 32): 0.3, (256, 64): 0.3}, None, HOLDS),  # every cell well above the margin
    ({(128, 32): 0.3, (256, 32): 0.3, (256, 64): 0.0}, None, HOLDS),  # two of three: "many"
    ({(128, 32): 0.3, (256, 32): 0.0, (256, 64): 0.0}, None, FAILS),  # two of three wholly below 0.1
    ({(128, 32): 0.3, (256, 32): 0.05, (256, 64): 0.05}, None, FAILS),  # a real gap, but not a pronounced one
    # two cells whose point gaps are about 0 but whose intervals still reach the margin: undecided, never failed
    ({(128, 32): 0.3, (256, 32): 0.0, (256, 64): 0.0}, {(256, 32): 0.5, (256, 64): 0.5}, OPEN),
    # a point gap above the margin does not pass a cell whose interval reaches below it
    ({(128, 32): 0.3, (256, 32): 0.15, (256, 64): 0.15}, {(256, 32): 0.5, (256, 64): 0.5}, OPEN),
])
def test_cells_are_judged_by_intervals_and_many_by_the_count_they_allow(monkeypatch, gaps, noise, expected):
    v = _verdict(monkeypatch, _records(gaps, noise))
    assert v.status is expected, v.details
    cells = v.measured_value["cells"]
    for name, row in cells.items():
        lo, hi = row["interval"]
        assert row["cell"] == ("holds" if lo >= 0.1 else "fails" if hi < 0.1 else "undecided")
    held, failed = v.measured_value["held"], v.measured_value["failed"]
    assert v.measured_value["holding cells can reach"] == [held, len(CELLS) - failed]


def test_the_planted_alternative_no_head_effect_is_contradicted(monkeypatch):
    v = _verdict(monkeypatch, _records({c: 0.0 for c in CELLS}, {c: 0.0 for c in CELLS}))
    assert v.status is FAILS and v.measured_value["failed"] == len(CELLS)


def test_the_level_is_fixed_in_advance_and_the_margin_is_a_tolerance_of_ours(monkeypatch):
    gaps = {(128, 32): 0.3, (256, 32): 0.16, (256, 64): 0.16}
    v = _verdict(monkeypatch, _records(gaps))
    assert v.params["one-sided level per cell (Bonferroni over the cells)"] == pytest.approx(0.05 / 3)
    assert v.params["band"][0] == pytest.approx(0.1) and v.status is HOLDS
    doubled = _verdict(monkeypatch, _records(gaps), tolerance_scale=2.0)  # margin 0.2: two cells fall below it
    assert doubled.params["band"][0] == pytest.approx(0.2) and doubled.status is FAILS
    five = _verdict(monkeypatch, _records(gaps), level_scale=0.2)
    assert five.params["one-sided level per cell (Bonferroni over the cells)"] == pytest.approx(0.01 / 3)


def test_the_standard_states_unit_margin_and_aggregation():
    st = CLAIM.standard
    assert st.kind == "comparison" and st.dimensions == ("seed split",)
    assert st.alternative == ("no_head_effect", "holds-empirically")
    assert "[0.1, inf)" in st.tolerance and "at least half" in st.tolerance and "more than half" in st.tolerance
    assert st.source.startswith("ours:")
    assert {"tolerance", "test level"} <= set(CLAIM.analyses)
