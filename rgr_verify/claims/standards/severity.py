"""Severity from one table: a finding declares what kind of slip it shows (its *class*) and what the slip falls on
(its *target*); :data:`SEVERITY_TABLE` alone turns the pair into a severity. So the same kind of slip gets the same
severity wherever it sits, and a severity is never written claim by claim.

The severities (:data:`rgr_verify.claims.base.SEVERITIES`), worst first:

- ``breaks-result``: the conclusion of the statement the claim decides fails as stated (for every admissible
  constant, inside the statement's ranges);
- ``proof-gap``: an argument fails (a proof step, a tightness or matching argument, a hypothesis applied beyond the
  cases it covers) while the statement it serves is not shown false by this finding;
- ``imprecision``: something printed is wrong, but the statement it sits in stands once the visible repair is made
  (other constants, the right condition, the right quantity in a corner, a count or wording).

Whether a ``breaks-result`` finding breaks a *contribution* is the rollup's question, not this table's: a
contribution is broken or contradicted only through a ``breaks-result`` finding on one of its core results
(:mod:`rgr_verify.claims.structure`).
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["SLIP_CLASSES", "SLIP_TARGETS", "SEVERITY_TABLE", "Slip", "as_slip", "severity_for"]

# The kinds of slip a finding can show, with what each means (shown in the report and on the site). Choosing between
# the first and the fourth for a remark: "false-for-every-constant" when the remark's point itself fails (Sec. 10:
# learned embeddings escape the counting bound), "condition-too-weak" when its point stands under a condition the
# paper shows (App. B: constructing stays cheaper than training, with Algorithm 5's own size). An experimental
# statement the paper makes, contradicted at its scale, is "contradicted-by-experiment"; a protocol choice found too
# weak (Table 2's caps) is "condition-too-weak" (none of the paper's stated findings is contradicted at its scale
# today, so the first class has no finding yet). Choosing between the first and the last for a printed bound of a
# lemma or corollary that fails for every constant: "construction-fails-repairable" when a change of the construction
# at a constant factor of the budget repairs what it serves and the stated rate stands (Lemma B.3 item 3 at j = i:
# fixed and moved sources in separate blocks), "false-for-every-constant" when the repair costs more than a constant
# factor (Corollaries B.6 and B.7's printed rho and gamma rates are the corollaries' own statements and need an extra
# log m, which no constant repairs; through Theorem B.5 B.7's budget is then left a log factor larger, while B.6's
# budget still stands by another route, Theorem 4.1: what breaks there is the printed rates, not the budget): the two
# differ in what the repair costs, not in how the bound fails (second review of 2026-11-28, which asked for one rule
# between them; a third review the same day found the budget argument did not apply to B.6).
SLIP_CLASSES = {
    "false-for-every-constant": "false as stated for every admissible constant, inside the statement's ranges",
    "contradicted-by-experiment": "an experimental statement contradicted by the experiment run at the paper's scale "
                                  "or by the paper's own data",
    "constant-bookkeeping": "false as printed, true with other constants (a union bound, a factor, a rate constant)",
    "condition-too-weak": "a condition or regime stated too weakly, where the right one is visible in the paper",
    "quantity-swapped-in-corner": "one quantity written for another (log m' for log m) where they differ only in a "
                                  "corner of the parameter range",
    "wording-or-count": "a stated count, wording, formula transcription or cross-reference is wrong",
    "proof-step-false": "a step of a proof is false as written",
    "hypothesis-does-not-cover": "a hypothesis does not cover the cases the text applies the result to",
    "tightness-gap": "two bounds are said to match, but the argument that they do does not cover the cases compared",
    "construction-fails-repairable": "the printed construction (or a lemma stated for it) fails, for every "
                                     "constant, in cases the statement covers, and a visible change of the "
                                     "construction at a constant factor of the budget repairs it: the stated rate "
                                     "stands, the printed construction (or lemma) does not",
}

# What a slip falls on.
SLIP_TARGETS = {
    "result": "the statement of a numbered result (theorem, lemma, corollary, proposition, construction, or a "
              "displayed equation that states a result)",
    "proof-step": "a step in the proof or sketch of a result (a displayed equation inside it included); a lemma "
                  "is a result of its own, whose failure lands on the results it serves as a proof gap (a lemma that "
                  "fails with the construction it is stated for takes the construction's class)",
    "remark": "a remark, consequence or summary sentence (the introduction, a discussion, the abstract)",
    "comparison": "a comparison between results (matching bounds, tightness, one budget against another)",
    "experiment": "an experimental finding (a figure, table, threshold, fitted law or trend)",
}

_B, _G, _I = "breaks-result", "proof-gap", "imprecision"
_CONCLUSION = {"result": _B, "proof-step": _G, "remark": _B, "comparison": _B, "experiment": _B}
_REPAIRED = {t: _I for t in SLIP_TARGETS}
_ARGUMENT = {t: _G for t in SLIP_TARGETS}

# (slip class, target) -> severity: the only place a severity is decided.
SEVERITY_TABLE = {
    **{("false-for-every-constant", t): s for t, s in _CONCLUSION.items()},
    **{("contradicted-by-experiment", t): s for t, s in _CONCLUSION.items()},
    **{(c, t): s for c in ("constant-bookkeeping", "condition-too-weak", "quantity-swapped-in-corner",
                           "wording-or-count") for t, s in _REPAIRED.items()},
    **{(c, t): s for c in ("proof-step-false", "hypothesis-does-not-cover", "tightness-gap",
                           "construction-fails-repairable") for t, s in _ARGUMENT.items()},
}


@dataclass(frozen=True)
class Slip:
    """What a finding shows: its ``kind`` (:data:`SLIP_CLASSES`), its ``target`` (:data:`SLIP_TARGETS`) and
    ``why``: one sentence, in our words, saying why this class (what stays true, what the repair is)."""

    kind: str
    target: str
    why: str

    def __post_init__(self):
        if self.kind not in SLIP_CLASSES:
            raise ValueError(f"slip class must be one of {', '.join(SLIP_CLASSES)}, got {self.kind!r}")
        if self.target not in SLIP_TARGETS:
            raise ValueError(f"slip target must be one of {', '.join(SLIP_TARGETS)}, got {self.target!r}")
        if not isinstance(self.why, str) or not self.why.strip():
            raise ValueError("a slip needs its reason (why), one sentence")

    @property
    def severity(self) -> str:
        return severity_for(self.kind, self.target)

    def as_record(self) -> dict:
        return {"class": self.kind, "target": self.target, "why": self.why, "severity": self.severity}


def as_slip(value) -> Slip | None:
    """A :class:`Slip` from a Slip, a ``(class, target, why)`` tuple or None (ValueError otherwise)."""
    if value is None or isinstance(value, Slip):
        return value
    if isinstance(value, (tuple, list)) and len(value) == 3:
        return Slip(*value)
    raise ValueError(f"slip must be a Slip or (class, target, why), got {value!r}")


def severity_for(kind: str, target: str) -> str:
    """The severity :data:`SEVERITY_TABLE` gives a slip of class ``kind`` on ``target`` (ValueError for an unknown
    pair)."""
    try:
        return SEVERITY_TABLE[(kind, target)]
    except KeyError:
        raise ValueError(f"no severity for slip class {kind!r} on target {target!r}: classes "
                         f"{', '.join(SLIP_CLASSES)}; targets {', '.join(SLIP_TARGETS)}") from None
