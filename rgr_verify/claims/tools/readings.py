"""The scope of a refutation: which hypotheses of the paper's statement a witness was checked to satisfy, and the
outcome under each reading of an ambiguity (merged into a verdict's params, grouped by the report).
"""

from __future__ import annotations

from ..base import Verdict

__all__ = ["reading_record", "with_readings", "refutation_scope", "HOLDS", "FAILS", "NOT_TESTED"]


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
