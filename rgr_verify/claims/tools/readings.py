"""The scope of a refutation: which hypotheses of the paper's statement a witness was checked to satisfy, and the
outcome under each reading of an ambiguity (merged into a verdict's params, grouped by the report).
"""

from __future__ import annotations

import functools

from ..base import Status, Verdict

__all__ = ["reading_record", "with_readings", "refutation_scope", "outcome", "recorded", "HOLDS", "FAILS", "NOT_TESTED"]


# Outcome words of a reading in :func:`reading_record` (the record keeps a short reason after them).
HOLDS, FAILS, NOT_TESTED = "holds", "fails", "not tested"


def reading_record(hypotheses: list[str] | tuple[str, ...], readings: dict[str, str]) -> dict:
    """The scope record of a refutation, merged into ``Verdict.params``.

    ``hypotheses``: each hypothesis of the paper's statement the witness was checked to satisfy, in words
    ("d_model >= c0 log m with c0 = 61.6", "pi a permutation with fixed points"). ``readings``: for each reading of
    an ambiguity, the outcome under it, starting with :data:`HOLDS`, :data:`FAILS` or :data:`NOT_TESTED` followed
    by an optional reason ("fails: witness m = 34", "holds: limit -> infinity"). Returns
    ``{"hypotheses_checked": [...], "readings": {...}, "refuted_under": "every reading" | "reading(s): ..."}``.

    Raises ValueError when ``hypotheses`` is empty or a reading's outcome does not start with one of the words.
    """
    hyps = [str(h) for h in hypotheses]
    if not hyps:
        raise ValueError("hypotheses must list at least one hypothesis checked, got none")
    if not readings:
        raise ValueError("readings must name at least one reading, got none")
    for name, outcome in readings.items():
        if not str(outcome).startswith((HOLDS, FAILS, NOT_TESTED)):
            raise ValueError(f"readings[{name!r}] must start with {HOLDS!r}, {FAILS!r} or {NOT_TESTED!r}, "
                             f"got {outcome!r}")
    rec = {"hypotheses_checked": hyps, "readings": dict(readings)}
    rec["refuted_under"] = refutation_scope(rec)
    return rec


def refutation_scope(params: dict) -> str:
    """"every reading" when every recorded reading fails, "reading(s): A; B" naming the failing ones when some
    hold or were not tested, "none" when none fails, "unrecorded" when ``params`` has no readings record."""
    readings = (params or {}).get("readings")
    if not isinstance(readings, dict) or not readings:
        return "unrecorded"
    failing = [k for k, v in readings.items() if str(v).startswith(FAILS)]
    if not failing:
        return "none"
    if len(failing) == len(readings):
        return "every reading"
    return "reading(s): " + "; ".join(failing)


def with_readings(verdict: Verdict, hypotheses: list[str] | tuple[str, ...], readings: dict[str, str]) -> Verdict:
    """``verdict`` with :func:`reading_record` merged into its params (the status is left as computed)."""
    import dataclasses

    return dataclasses.replace(verdict, params={**verdict.params, **reading_record(hypotheses, readings)})


def outcome(v: Verdict, fails: str, holds: str = "no witness found") -> str:
    """"fails: ..." when ``v`` refutes (refuted or contradicted), "holds: ..." when it verifies, else "not tested"."""
    if v.status in (Status.REFUTED, Status.CONTRADICTED_EMPIRICALLY):
        return f"fails: {fails}"
    if v.status in (Status.VERIFIED, Status.HOLDS_EMPIRICALLY):
        return f"holds: {holds}"
    return f"not tested: verdict {v.status}"


def recorded(check, hypotheses, readings):
    """``check`` whose verdict carries the refutation record (:func:`~rgr_verify.claims.tools.with_readings`):
    ``hypotheses`` a list of the statement's hypotheses the witness satisfies, ``readings(verdict)`` the outcome
    under each reading computed from the verdict's own measurements. Errors are passed through unrecorded."""
    @functools.wraps(check)
    def check_with_readings(ctx) -> Verdict:
        v = check(ctx)
        if v.status is Status.ERROR:
            return v
        return with_readings(v, hypotheses, readings(v))
    return check_with_readings
