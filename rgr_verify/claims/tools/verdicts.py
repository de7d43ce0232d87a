"""Building blocks for checks: Hypothesis-driven property verdicts and exact Monte Carlo verdicts.

``property_verdict`` runs a property over generated inputs with Hypothesis, seeded by the claim's seed and with
no example database (so verdicts are reproducible); on failure Hypothesis shrinks the input and the minimal
counterexample becomes the verdict's witness. ``monte_carlo_verdict`` certifies a "with probability at least
1 - delta" statement with an exact one-sided Clopper-Pearson bound at a false-alarm rate fixed in advance.
"""

from __future__ import annotations

from typing import Any, Callable

from hypothesis import HealthCheck, Phase, given, seed as hyp_seed, settings, strategies as st

from ..base import CheckContext, Status, Verdict, jsonable
from ..standards.decide import decide_witness

__all__ = ["property_verdict", "monte_carlo_verdict", "relation_holds", "DEFAULT_MAX_EXAMPLES", "profile_scale", "register_profiles",
           "relative_error"]


DEFAULT_MAX_EXAMPLES = 60

_BASE_EXAMPLES = 100  # the ci profile's max_examples: scale 1


def register_profiles() -> None:
    """Register the Hypothesis profiles ``ci`` (default), ``dev`` and ``thorough`` and load ``$HYPOTHESIS_PROFILE``.

    Claim checks scale their example counts by the loaded profile (see :func:`profile_scale`), so the same
    profile drives the property tests and the audit.
    """
    from ...basics.settings import HYPOTHESIS_PROFILE_ENV, env

    common = dict(deadline=None, derandomize=True, database=None,
                  suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
    settings.register_profile("ci", max_examples=_BASE_EXAMPLES, **common)
    settings.register_profile("dev", max_examples=30, **common)
    settings.register_profile("thorough", max_examples=10 * _BASE_EXAMPLES, **common)
    name = env(HYPOTHESIS_PROFILE_ENV, "ci")
    if name not in ("ci", "dev", "thorough", "default"):
        raise ValueError(f"HYPOTHESIS_PROFILE must be one of ci, dev, thorough, default, got {name!r}")
    settings.load_profile(name)


def profile_scale() -> float:
    """max_examples of the loaded Hypothesis profile relative to the ci profile (ci: 1, thorough: 10, dev: 0.3)."""
    return settings.default.max_examples / _BASE_EXAMPLES


def property_verdict(
    prop: Callable[..., Any],
    strategy: st.SearchStrategy,
    *,
    ctx: CheckContext,
    max_examples: int = DEFAULT_MAX_EXAMPLES,
    paper_value: Any = None,
    params: dict | None = None,
    describe: Callable[[Any], Any] | None = None,
) -> Verdict:
    """Check ``prop(example)`` for examples drawn from ``strategy``.

    ``prop`` raises AssertionError (with a message) when the property fails, and may return a JSON-able
    measurement, the last of which is reported. Status: refuted with the shrunk minimal example (passed through
    ``describe`` if given) as witness, at level ``witness`` (the strategy must draw only inside the statement's
    hypotheses, so that the shrunk example still meets them); holds-empirically at level ``sampled`` when no example
    fails (N examples are evidence, not a proof).
    """
    failures: list[tuple[Any, str]] = []
    measured: list[Any] = []
    n_examples = [0]
    max_examples = max(1, round(max_examples * profile_scale()))

    @hyp_seed(ctx.seed)
    @settings(
        max_examples=max_examples,
        database=None,
        deadline=None,
        derandomize=False,
        phases=(Phase.generate, Phase.shrink),
        suppress_health_check=list(HealthCheck),
        print_blob=False,
    )
    @given(strategy)
    def run(example):
        n_examples[0] += 1
        try:
            out = prop(example)
        except AssertionError as exc:
            failures.append((example, str(exc)))
            raise
        if out is not None:
            measured.append(out)

    base_params = {"max_examples": max_examples, **(params or {})}
    try:
        run()
    except AssertionError:
        example, message = failures[-1]  # Hypothesis replays the shrunk example last
        witness = describe(example) if describe else example
        return Verdict(
            status=decide_witness(True, exact=True),  # a shrunk counterexample: refuted, at level witness
            paper_value=paper_value,
            measured_value=message,
            witness=jsonable(witness),
            params=base_params,
            evidence=f"Hypothesis: counterexample found and shrunk ({n_examples[0]} examples run)",
            evidence_level="witness",
        )
    return Verdict(
        status=decide_witness(False),  # no example fails: holds-empirically, at level sampled
        evidence_level="sampled",
        paper_value=paper_value,
        measured_value=jsonable(measured[-1]) if measured else f"held on all {n_examples[0]} examples",
        params={**base_params, "examples_run": n_examples[0]},
        evidence=f"Hypothesis: property held on {n_examples[0]} generated examples (seeded, no database)",
    )


def monte_carlo_verdict(
    trial: Callable[[int], tuple[bool, Any]],
    *,
    n_trials: int,
    claimed_failure_rate: float,
    false_alarm: float = 1e-6,
    paper_value: Any = None,
    params: dict | None = None,
) -> Verdict:
    """A failure probability <= ``claimed_failure_rate`` judged by Monte Carlo under the probability-bound standard
    (:func:`rgr_verify.claims.standards.probability.decide_failure_rate`: verified when the exact upper bound is inside
    the claim, refuted when the exact lower bound is outside, inconclusive with the resolution reached otherwise).

    ``trial(i)`` runs the i-th independent draw and returns ``(ok, info)``; the first failing draw is the witness.
    Zero failures in a sample too small to certify the claimed rate is inconclusive, not a pass: the record says the
    rate the sample does certify and the draws the claimed one would take.
    """
    from ..standards.probability import decide_failure_rate

    failures = []
    for i in range(n_trials):
        ok, info = trial(i)
        if not ok:
            failures.append((i, info))
    k = len(failures)
    d = decide_failure_rate(k, n_trials, claimed_failure_rate, false_alarm=false_alarm)
    status = Status(d["status"])
    lower, upper = d["lower"], d["upper"]
    details = ""
    if status is Status.INCONCLUSIVE:
        details = (f"{k} of {n_trials} draws fail: the exact interval [{lower:.3g}, {upper:.3g}] on the failure rate "
                   f"neither lies inside the claimed <= {claimed_failure_rate:.3g} nor wholly above it; the sample "
                   f"certifies <= {upper:.3g}, and about {d['resolution']['draws_needed_to_certify']:.3g} failure-free "
                   "draws would certify the claimed rate (the probability-bound standard: inconclusive at this "
                   "resolution).")
    return Verdict(
        status=status,
        details=details,
        paper_value=paper_value if paper_value is not None else f"failure probability <= {claimed_failure_rate:g}",
        measured_value=f"{k}/{n_trials} failures; exact bounds [{lower:.3g}, {upper:.3g}] at false-alarm {false_alarm:g}",
        witness=jsonable(failures[0]) if failures else None,
        params={"n_trials": n_trials, "false_alarm": false_alarm, "claimed_failure_rate": claimed_failure_rate,
                "resolution": d["resolution"], **(params or {})},
        evidence=f"Monte Carlo, {n_trials} independent draws, exact Clopper-Pearson one-sided bounds",
        evidence_level=d["level"],
    )


def relative_error(a, b) -> float:
    """max |a - b| over the score scale max(1, max |a|, max |b|) of two tensors of equal shape (torch or numpy).

    Raises ValueError when the shapes differ.
    """
    if tuple(a.shape) != tuple(b.shape):
        raise ValueError(f"a and b must have the same shape, got {tuple(a.shape)} and {tuple(b.shape)}")
    scale = max(1.0, float(a.abs().max()), float(b.abs().max()))
    return float((a - b).abs().max()) / scale


_RELATION_OPS = {"<": lambda a, b: a < b, "<=": lambda a, b: a <= b, ">": lambda a, b: a > b,
                 ">=": lambda a, b: a >= b, "==": lambda a, b: a == b}


def relation_holds(lhs: Any, relation: str, rhs: Any) -> bool:
    """Whether ``lhs relation rhs`` holds, the relation a stated one (``ctx.expect(...)``: <, <=, >, >=, ==), so a
    check compares in the direction the paper states and ``rgr-verify mutate`` can flip it."""
    if relation not in _RELATION_OPS:
        raise ValueError(f"relation must be one of {', '.join(_RELATION_OPS)}, got {relation!r}")
    return bool(_RELATION_OPS[relation](lhs, rhs))
