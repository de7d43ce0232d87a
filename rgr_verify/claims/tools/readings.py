"""The scope of a refutation: which hypotheses of the paper's statement a witness was checked to satisfy, and the
outcome under each reading of an ambiguity (merged into a verdict's params, grouped by the report).
"""

from __future__ import annotations

import functools

from ..base import Status, Verdict

__all__ = ["reading_record", "with_readings", "refutation_scope", "outcome", "outcome_word", "recorded", "verdict_over_readings", "HOLDS",
           "FAILS", "NOT_TESTED"]


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
    """"fails: ..." when ``v`` refutes (refuted or contradicted), "holds: ..." when it verifies, else "not tested"
    (the word from :func:`outcome_word`)."""
    word = outcome_word(v)
    if word == FAILS:
        return f"{FAILS}: {fails}"
    if word == HOLDS:
        return f"{HOLDS}: {holds}"
    return f"{NOT_TESTED}: verdict {v.status}"


def outcome_word(v: Verdict | Status) -> str:
    """The outcome word of a reading whose verdict (or status) is ``v``: :data:`HOLDS` when it holds (verified or
    holds empirically), :data:`FAILS` when it is refuted or contradicted, :data:`NOT_TESTED` when it is
    inconclusive. The one mapping from a sub-verdict to a reading's outcome: a sub-verdict that holds empirically
    holds."""
    status = v if isinstance(v, Status) else v.status
    if status in (Status.REFUTED, Status.CONTRADICTED_EMPIRICALLY):
        return FAILS
    if status in (Status.VERIFIED, Status.HOLDS_EMPIRICALLY):
        return HOLDS
    return NOT_TESTED


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


def verdict_over_readings(verdicts: dict, *, hypotheses, printed: str | None = None) -> Verdict:
    """One verdict from the verdict under each reading of an ambiguity (``{reading: Verdict}``), by one rule:

    - every reading holds: the statement holds, at the weakest level among them;
    - every reading fails: the finding stands under every reading;
    - the readings disagree: the finding stands, scoped to the failing reading(s), only when the statement as
      printed (``printed``, a key of ``verdicts``) is among them; otherwise inconclusive, saying which reading holds
      and which fails. Never "holds if any reading holds".
    Undecided readings (inconclusive, error) make the verdict inconclusive unless every other reading fails and the
    printed one is among the failures. ``params["per_reading"]`` records each reading's status, level and measured
    value; the refutation record (:func:`reading_record`) is merged as :func:`with_readings` does.
    """
    import dataclasses

    from ..levels import level_rank

    if not verdicts:
        raise ValueError("verdicts must hold the verdict of at least one reading, got none")
    if printed is not None and printed not in verdicts:
        raise ValueError(f"printed must name one of the readings {sorted(verdicts)}, got {printed!r}")
    fails = {k for k, v in verdicts.items() if v.status in (Status.REFUTED, Status.CONTRADICTED_EMPIRICALLY)}
    holds = {k for k, v in verdicts.items() if v.status in (Status.VERIFIED, Status.HOLDS_EMPIRICALLY)}
    per = {k: {"status": v.status.value, "evidence_level": v.evidence_level, "measured": v.measured_value}
           for k, v in verdicts.items()}
    readings = {k: (f"{FAILS}: {v.measured_value}" if k in fails else f"{HOLDS}: {v.measured_value}" if k in holds
                    else f"{NOT_TESTED}: verdict {v.status.value}") for k, v in verdicts.items()}
    if holds == set(verdicts):
        base = max(verdicts.values(), key=lambda v: level_rank(v.evidence_level))
        details = "holds under every reading"
    elif fails and (fails == set(verdicts) or (printed in fails)):
        base = verdicts[printed] if printed in fails else next(verdicts[k] for k in verdicts if k in fails)
        details = ("fails under every reading" if fails == set(verdicts) else
                   f"fails as printed ({printed}); " + "; ".join(f"{k}: {per[k]['status']}" for k in verdicts
                                                                 if k not in fails))
    else:
        first = next(iter(verdicts.values()))
        base = Verdict(Status.INCONCLUSIVE, paper_value=first.paper_value, evidence=first.evidence,
                       evidence_level=first.evidence_level,
                       measured_value={k: per[k]["measured"] for k in verdicts})
        details = "the readings disagree: " + "; ".join(f"{k}: {per[k]['status']}" for k in verdicts)
    record = reading_record(list(hypotheses), readings)
    if isinstance(base.details, dict):  # structured details (a fit and its points): keep them, add the rule's words
        merged = {**base.details, "readings": details}
    else:
        merged = (base.details + "\n" if base.details else "") + details
    return dataclasses.replace(base, params={**base.params, **record, "per_reading": per}, details=merged)
