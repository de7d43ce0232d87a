"""Statistics used by the checks (App. A.2 and the high-probability claims).

- 95% t-intervals across seeds: mean +- t_{0.975, n-1} s / sqrt(n) (App. A.2).
- exact Clopper-Pearson bounds on a failure rate, and the Monte Carlo sample size needed to certify a rate
  at a fixed false-alarm level.
- paired two-sided t-tests (App. A.2, optimal head count) and bootstrap intervals (scipy).
- exact permutation tests on per-seed values (:func:`permutation_pvalue`, one-sided, mid-ranks so infinite values
  are allowed) and their stratified form (:func:`stratified_permutation_pvalue`, labels permuted within strata).
"""

from __future__ import annotations

import itertools
import math
from typing import Sequence

import numpy as np
from scipy import stats as _st

from ..basics.checks import check_choice, check_int, check_probability, check_real

__all__ = [
    "t_interval",
    "clopper_pearson",
    "failure_rate_upper_bound",
    "zero_failure_sample_size",
    "paired_t_pvalue",
    "bootstrap_interval",
    "permutation_pvalue",
    "stratified_permutation_pvalue",
]


def t_interval(values, *, confidence: float = 0.95) -> tuple[float, float, float]:
    """(mean, low, high) of the two-sided t-interval mean +- t_{(1+c)/2, n-1} s / sqrt(n).

    With one value the interval is (mean, mean); with constant values it has zero width.
    """
    confidence = check_probability("confidence", confidence, open_low=True, open_high=True)
    arr = np.asarray(values, dtype=float).ravel()
    if arr.size < 1 or not np.all(np.isfinite(arr)):
        raise ValueError("values must be a non-empty array of finite numbers")
    mean = float(arr.mean())
    if arr.size == 1:
        return mean, mean, mean
    half = float(_st.t.ppf(0.5 + confidence / 2, arr.size - 1) * arr.std(ddof=1) / math.sqrt(arr.size))
    return mean, mean - half, mean + half


def clopper_pearson(k: int, n: int, *, confidence: float = 0.95) -> tuple[float, float]:
    """Exact two-sided Clopper-Pearson interval for a binomial proportion k/n."""
    n = check_int("n", n, min_value=1)
    k = check_int("k", k, min_value=0, max_value=n)
    confidence = check_probability("confidence", confidence, open_low=True, open_high=True)
    ci = _st.binomtest(k, n).proportion_ci(confidence_level=confidence, method="exact")
    return float(ci.low), float(ci.high)


def failure_rate_upper_bound(k: int, n: int, *, false_alarm: float = 1e-6) -> float:
    """One-sided exact upper bound p_hi with P(Binomial(n, p) <= k) = false_alarm at p = p_hi.

    If the true failure rate exceeded p_hi, observing at most k failures would have probability at most
    ``false_alarm``.
    """
    n = check_int("n", n, min_value=1)
    k = check_int("k", k, min_value=0, max_value=n)
    false_alarm = check_probability("false_alarm", false_alarm, open_low=True, open_high=True)
    if k == n:
        return 1.0
    return float(_st.beta.ppf(1.0 - false_alarm, k + 1, n - k))


def zero_failure_sample_size(rate: float, *, false_alarm: float = 1e-6) -> int:
    """Smallest n such that zero failures in n draws certifies failure rate < ``rate`` at ``false_alarm``.

    Solves (1 - rate)^n <= false_alarm.
    """
    rate = check_probability("rate", rate, open_low=True, open_high=True)
    false_alarm = check_probability("false_alarm", false_alarm, open_low=True, open_high=True)
    return int(math.ceil(math.log(false_alarm) / math.log1p(-rate)))


def paired_t_pvalue(a, b) -> float:
    """Two-sided paired t-test p-value of a vs b (per-seed pairs); 1.0 when all differences are zero."""
    a = np.asarray(a, dtype=float)
    b = np.asarray(b, dtype=float)
    if a.shape != b.shape or a.ndim != 1 or a.size < 2:
        raise ValueError("a and b must be 1-d arrays of the same length >= 2")
    diff = a - b
    if np.allclose(diff, diff[0]):
        return 1.0 if diff[0] == 0 else 0.0
    return float(_st.ttest_rel(a, b).pvalue)


def bootstrap_interval(data, statistic, *, rng: np.random.Generator, confidence: float = 0.95,
                       n_resamples: int = 2000) -> tuple[float, float]:
    """Percentile bootstrap interval of ``statistic`` over resampled rows of ``data`` (scipy.stats.bootstrap)."""
    confidence = check_real("confidence", confidence, low=0, high=1, low_open=True, high_open=True)
    n_resamples = check_int("n_resamples", n_resamples, min_value=10)
    res = _st.bootstrap((np.asarray(data),), statistic, confidence_level=confidence, n_resamples=n_resamples,
                        method="percentile", random_state=rng, vectorized=False)
    return float(res.confidence_interval.low), float(res.confidence_interval.high)


def permutation_pvalue(a, b, *, alternative: str = "greater") -> float:
    """Exact one-sided permutation p-value of mean-rank(b) - mean-rank(a) (``"greater"``: b tends to be larger).

    Values are replaced by their mid-ranks in the pooled sample (so +-inf are allowed and ties count as ties); the
    p-value is the share of the C(n_a + n_b, n_b) splits whose statistic is at least the observed one (exact under
    exchangeability of a and b). At most 10^6 splits.
    """
    check_choice("alternative", alternative, ("greater", "less"))
    a = [float(v) for v in a]
    b = [float(v) for v in b]
    if not a or not b or any(math.isnan(v) for v in a + b):
        raise ValueError("a and b must be non-empty and contain no NaN")
    pooled = np.array(a + b)
    n = pooled.size
    if math.comb(n, len(b)) > 10**6:
        raise ValueError(f"too many splits: C({n}, {len(b)}) > 10^6")
    ranks = _st.rankdata(np.where(np.isinf(pooled), np.sign(pooled) * 1e300, pooled))
    # The statistic is increasing in the rank sum of b (its size is fixed), so the p-value is the share of splits
    # whose b rank sum is >= (<=, for "less") the observed one. Mid-ranks are multiples of 1/2: the doubled rank
    # sums are integers, and the number of splits per sum is counted exactly (subset-sum counts) instead of listed.
    doubled = np.rint(2 * ranks).astype(np.int64)
    k = len(b)
    counts = np.zeros((k + 1, int(doubled.sum()) + 1), dtype=np.int64)  # counts[j, s]: j-subsets of sum s
    counts[0, 0] = 1
    for i, v in enumerate(doubled):
        for j in range(min(i + 1, k), 0, -1):
            counts[j, v:] += counts[j - 1, : counts.shape[1] - v]
    obs = int(doubled[len(a):].sum())
    hits = int(counts[k, obs:].sum() if alternative == "greater" else counts[k, : obs + 1].sum())
    return hits / math.comb(n, k)



def stratified_permutation_pvalue(strata: Sequence[tuple[Sequence[float], Sequence[float]]], *,
                                  alternative: str = "greater") -> float:
    """Exact one-sided p-value of sum over strata of mean-rank(b) - mean-rank(a), ranks taken within each stratum
    and labels permuted within each stratum only (exact when a and b are exchangeable in every stratum). At most
    10^6 joint relabellings."""
    check_choice("alternative", alternative, ("greater", "less"))
    if not strata:
        raise ValueError("strata must be non-empty")
    sign = 1.0 if alternative == "greater" else -1.0
    per = []
    total_count = 1
    for a, b in strata:
        a = [float(v) for v in a]
        b = [float(v) for v in b]
        if not a or not b or any(math.isnan(v) for v in a + b):
            raise ValueError("every stratum needs non-empty a and b without NaN")
        pooled = np.array(a + b)
        ranks = _st.rankdata(np.where(np.isinf(pooled), np.sign(pooled) * 1e300, pooled))
        n, nb, tot = pooled.size, len(b), float(ranks.sum())
        stats = []
        for idx in itertools.combinations(range(n), nb):
            sb = float(ranks[list(idx)].sum())
            stats.append(sign * (sb / nb - (tot - sb) / len(a)))
        sb = float(ranks[len(a):].sum())
        per.append((np.array(stats), sign * (sb / nb - (tot - sb) / len(a))))
        total_count *= len(stats)
    if total_count > 10**6:
        raise ValueError(f"too many joint relabellings: {total_count} > 10^6")
    obs = sum(o for _, o in per)
    dist = np.zeros(1)
    for stats, _ in per:
        dist = (dist[:, None] + stats[None, :]).ravel()
    return float(np.mean(dist >= obs - 1e-9))
