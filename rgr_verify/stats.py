"""Statistics used by the checks (App. A.2 and the high-probability claims).

- 95% t-intervals across seeds: mean +- t_{0.975, n-1} s / sqrt(n) (App. A.2).
- exact Clopper-Pearson bounds on a failure rate, and the Monte Carlo sample size needed to certify a rate
  at a fixed false-alarm level.
- paired two-sided t-tests (App. A.2, optimal head count) and bootstrap intervals (scipy).
"""

from __future__ import annotations

import math

import numpy as np
from scipy import stats as _st

from ._checks import check_int, check_probability, check_real

__all__ = [
    "t_interval",
    "clopper_pearson",
    "failure_rate_upper_bound",
    "zero_failure_sample_size",
    "paired_t_pvalue",
    "bootstrap_interval",
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
