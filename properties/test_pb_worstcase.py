"""Input validation and the bound of the Sec. 9 worst-case Lipschitz search (rgr_verify.claims.paper_sec9.worstcase)."""

import pytest

from rgr_verify.claims.paper_sec9.worstcase import MAPS, worst_ratio


@pytest.mark.parametrize("name", ["", "mean", None])
def test_worst_ratio_rejects_unknown_map(name):
    with pytest.raises(ValueError, match="name"):
        worst_ratio(name, 1, 1)


@pytest.mark.parametrize("starts", [0, -1, 1.5, "2"])
def test_worst_ratio_rejects_bad_starts(starts):
    with pytest.raises(ValueError, match="starts"):
        worst_ratio("max", 1, starts)


def test_worst_ratio_two_way_softmax_within_bound_and_near_it():
    r = worst_ratio("two-way-softmax", 7, 1)
    assert "two-way-softmax" in MAPS
    assert r["worst_ratio"] <= 0.5 * (1 + 1e-6)  # Eq. (29)
    assert r["worst_ratio"] >= 0.3  # the search gets close to the attained bound 1/2
    assert r["worst_ratio"] >= r["random_start_best_ratio"] - 1e-12
