"""The exact permutation test of Spearman's rho that decides appa3-heads-grow-with-degree (the trend standard: a test,
never a point rho against a bar)."""

import itertools

import numpy as np
import pytest
from scipy import stats

from rgr_verify.claims.paper_appa.regular import spearman_permutation_p
from rgr_verify.claims.standards import decide_tests
from rgr_verify.claims.status import Status


def test_rho_is_scipys_and_the_p_values_count_orderings():
    x, y = [1, 2, 4, 8, 16, 32], [4, 4, 8, 8, 16, 16]
    rho, p_up, p_down = spearman_permutation_p(x, y)
    assert rho == pytest.approx(stats.spearmanr(x, y).statistic, abs=1e-12)
    assert p_up == pytest.approx(8 / 720) and p_down == 1.0  # the 2 x 2 x 2 orderings that keep the tied pairs
    assert decide_tests(p_up, p_down, 0.05) is Status.HOLDS_EMPIRICALLY


@pytest.mark.parametrize("y, expected", [
    ([16, 16, 8, 8, 4, 4], Status.CONTRADICTED_EMPIRICALLY),  # the planted alternative: h* falls with r
    ([8, 8, 8, 8, 8, 8], Status.INCONCLUSIVE),  # no effect of r: a flat h* never passes
    ([4, 8, 4, 8, 4, 8], Status.INCONCLUSIVE),
])
def test_a_falling_or_flat_head_count_does_not_pass(y, expected):
    _, p_up, p_down = spearman_permutation_p([1, 2, 4, 8, 16, 32], y)
    assert decide_tests(p_up, p_down, 0.05) is expected


def test_the_null_pass_probability_is_at_most_the_level():
    # under the null every ordering of distinct h* is equally likely: the rule passes on at most 5 % of them
    orders = list(itertools.permutations([1, 2, 3, 4, 5]))
    passes = sum(decide_tests(*spearman_permutation_p([1, 2, 3, 4, 5], o)[1:], 0.05) is Status.HOLDS_EMPIRICALLY
                 for o in orders)
    assert passes / len(orders) <= 0.05


@pytest.mark.parametrize("x, y", [([1, 2], [1, 2]), ([1, 2, 3], [1, 2]), (np.arange(9), np.arange(9))])
def test_bad_sizes_are_refused(x, y):
    with pytest.raises(ValueError, match="3 to 8 points"):
        spearman_permutation_p(x, y)
