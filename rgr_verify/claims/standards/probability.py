"""The probability-bound standard ("with probability at least 1 - m^-c"): one rule to pass and to fail.

With k failures in n independent draws and exact one-sided Clopper-Pearson bounds [lower, upper] on the failure
rate at a false-alarm level fixed in advance, against the stated rate:

- ``verified`` (level certified) when the whole interval is inside the claim, ``upper <= rate``;
- ``refuted`` (level certified) when the whole interval is outside, ``lower > rate``;
- ``inconclusive`` otherwise, with the resolution reached: the interval, the band ``[0, rate]``, the rate the sample
  does certify (``upper``) and the number of failure-free draws that would certify the stated one.

Zero failures in a sample too small to certify the stated rate is therefore *inconclusive*, never a pass: passing is
held to the same standard as failing. A claim that wants a pass at the rate its sample certifies restates itself at
that rate (as ``constr1-separation-montecarlo`` does: "failure rate <= 1e-2").
"""

from __future__ import annotations

from ...core.stats import failure_rate_upper_bound, zero_failure_sample_size

__all__ = ["ProbabilityDecision", "decide_failure_rate"]


class ProbabilityDecision(dict):
    """``{"status", "level", "lower", "upper", "resolution"}``: ``status`` one of verified, refuted, inconclusive."""


def decide_failure_rate(k: int, n: int, rate: float, *, false_alarm: float = 1e-6) -> ProbabilityDecision:
    """The probability-bound decision for ``k`` failures in ``n`` draws against the stated failure ``rate``."""
    from scipy.stats import beta

    if not 0.0 < rate < 1.0:
        raise ValueError(f"rate must be in (0, 1), got {rate!r}")
    upper = failure_rate_upper_bound(k, n, false_alarm=false_alarm)
    lower = 0.0 if k == 0 else float(beta.ppf(false_alarm, k, n - k + 1))
    if upper <= rate:
        status = "verified"
    elif lower > rate:
        status = "refuted"
    else:
        status = "inconclusive"
    resolution = {"interval": [lower, upper], "band": [0.0, rate], "certified_rate": upper,
                  "draws_needed_to_certify": zero_failure_sample_size(rate, false_alarm=false_alarm),
                  "false_alarm": false_alarm}
    return ProbabilityDecision(status=status, level="certified" if status != "inconclusive" else "sampled",
                               lower=lower, upper=upper, resolution=resolution)
