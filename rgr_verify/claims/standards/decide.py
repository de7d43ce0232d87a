"""Decision standards, declared once: the kinds of statement a claim can make, and the only code that turns what a
check measured into a status.

A check *measures*; a standard *decides*. Every claim carries a :class:`Standard` (its kind from
:data:`STANDARD_KINDS`, the estimand, the tolerance with its source, the primary analysis, the dimensions its
multiverse varies). The functions below are the one implementation of each decision; a check never writes a
three-way status expression of its own (``properties/test_standards.py`` enforces it over the source: outside this
package, no function produces more than one kind of status).

The one rule behind all of them: **inside passes, wholly outside fails, in between is inconclusive with the
resolution reached**. Evidence that a statement holds and evidence that it fails are two conditions the check states;
when both are met the conditions overlap, which is a bug of the check (ValueError), never a silent precedence.
Whether a pass is ``verified`` or ``holds-empirically`` is the evidence level's business
(:func:`rgr_verify.claims.levels.bounded_status`, applied by every :class:`~rgr_verify.claims.base.Verdict`): the
functions here answer with the exact names when ``exact`` is set, the empirical ones otherwise.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Iterable

from ..status import Status

__all__ = ["STANDARD_KINDS", "DEFAULT_STANDARD_OF_KIND", "Standard", "as_standard", "decide", "decide_interval",
           "decide_tests", "decide_witness", "conjunction", "agreement", "unresolvable", "holding", "failing", "undecided"]

# The kinds of statement, each with the rule that decides it (shown in the report and on the site).
STANDARD_KINDS = {
    "identity": "a formula, identity or inequality as printed: verified by a proof (sympy or exact arithmetic), "
                "refuted by a certified counterexample inside the statement's ranges; else inconclusive",
    "for-every": "a property of every input in the statement's ranges (every pi, every graph, every context): "
                 "worst cases by search beside random draws; the worst found is judged; a witness refutes, no "
                 "witness holds at the level of the search",
    "probability-bound": "'with probability at least 1 - delta': exact one-sided interval on the failure rate; "
                         "wholly inside [0, delta] passes, wholly above fails, else inconclusive with the rate the "
                         "sample certifies (standards.probability)",
    "rate": "a rate or exponent (Theta, O, Omega, a fitted law): the interval of the exponent along every variable "
            "against the band (equivalence); a hidden constant that grows along a quantified variable fails the bound",
    "threshold": "a threshold (App. A.2's D_K* at the F1 target, or a stated constant): the threshold's interval on "
                 "the ladder against the stated value or band",
    "sharp-transition": "a sharp transition: the width of the rise of the curve, anchored where the curves can "
                        "decide, against one width for every section",
    "band": "a measured interval against a band: inside passes, wholly outside fails, merely meeting it is "
            "inconclusive",
    "comparison": "a comparison or advantage: paired, the contrast declared, a one-sided test each way at a level "
                  "fixed in advance",
    "trend": "a trend: each step in the stated direction (a test per step, or one for the whole family)",
    "plateau": "a plateau: successive steps inside a band around no change",
    "count": "a stated count, constant, wording or cross-reference: exact comparison",
}

# The standard a claim gets when it declares none: the kinds whose standard follows from the claim's Kind alone.
# Experimental claims (Kind empirical, qualitative) have no default: they must declare theirs.
DEFAULT_STANDARD_OF_KIND = {
    "symbolic": ("identity", "the printed formula, identity or inequality over the statement's ranges",
                 "sympy proof; else a certified grid or a witness"),
    "deterministic": ("for-every", "the property over every input in the statement's ranges",
                      "Hypothesis draws inside the hypotheses, plus the worst cases a claim searches"),
    "high-probability": ("probability-bound", "the failure rate of the event over independent draws",
                         "exact one-sided Clopper-Pearson interval at a false-alarm rate fixed in advance"),
    "asymptotic": ("rate", "the exponent (or constant) of the stated rate along the swept variable",
                   "exact range of the fitted exponent over the sweep, against the band"),
}

_SOURCES = ("paper", "ours")


@dataclass(frozen=True)
class Standard:
    """How a claim is judged, as data: ``kind`` (:data:`STANDARD_KINDS`), the ``estimand`` (what is measured),
    the ``tolerance`` (the band or level it is judged against; "" where the kind has none) and its ``source``
    ("paper: where the paper states it" or "ours: why"), the ``primary`` analysis, and the ``dimensions`` its
    multiverse varies besides the runner's. ``declared`` is False for a default taken from the claim's Kind.
    ``alternative``: the planted alternative its rule is there to reject, ``(plant, status)``: the plant of
    :data:`rgr_verify.runs.plants.PLANTS` that rewrites the evidence so the alternative holds, and the status the claim
    must not reach on it (``empirical/test_planted.py`` runs it); () where none is declared."""

    kind: str
    estimand: str
    tolerance: str = ""
    source: str = ""
    primary: str = ""
    dimensions: tuple = ()
    declared: bool = True
    alternative: tuple = ()

    def __post_init__(self):
        if self.kind not in STANDARD_KINDS:
            raise ValueError(f"standard kind must be one of {', '.join(STANDARD_KINDS)}, got {self.kind!r}")
        if not isinstance(self.estimand, str) or not self.estimand.strip():
            raise ValueError("a standard needs its estimand (what is measured)")
        if self.tolerance and not (isinstance(self.source, str) and self.source.split(":")[0] in _SOURCES):
            raise ValueError(f"a tolerance needs its source, 'paper: ...' or 'ours: ...', got {self.source!r}")
        dims = (self.dimensions,) if isinstance(self.dimensions, str) else tuple(self.dimensions)
        if not all(isinstance(d, str) and d for d in dims):
            raise ValueError(f"dimensions must be names, got {self.dimensions!r}")
        object.__setattr__(self, "dimensions", dims)
        alt = tuple(self.alternative)
        if alt and not (len(alt) == 2 and isinstance(alt[0], str) and alt[0]
                        and alt[1] in {s.value for s in Status if s is not Status.ERROR}):
            raise ValueError(f"alternative must be (plant name, the status the claim must not reach on it), got "
                             f"{self.alternative!r}")
        object.__setattr__(self, "alternative", alt)

    def as_record(self) -> dict:
        return {"kind": self.kind, "rule": STANDARD_KINDS[self.kind], "estimand": self.estimand,
                "tolerance": self.tolerance, "source": self.source, "primary": self.primary,
                "dimensions": list(self.dimensions), "declared": self.declared,
                "alternative": list(self.alternative) or None}


def as_standard(value, kind: str) -> Standard | None:
    """A :class:`Standard` from a Standard, a dict of its fields, or None (the default of the claim's ``kind`` when
    there is one, else None). ValueError for anything else."""
    if isinstance(value, Standard):
        return value
    if isinstance(value, dict):
        return Standard(**value)
    if value is None:
        default = DEFAULT_STANDARD_OF_KIND.get(kind)
        if default is None:
            return None
        name, estimand, primary = default
        return Standard(name, estimand, primary=primary, declared=False)
    raise ValueError(f"standard must be a Standard, a dict of its fields or None, got {value!r}")


_PASS = {True: Status.VERIFIED, False: Status.HOLDS_EMPIRICALLY}
_FAIL = {True: Status.REFUTED, False: Status.CONTRADICTED_EMPIRICALLY}


def decide(holds, fails, *, exact: bool = False) -> Status:
    """The one three-way rule: ``fails`` (the evidence is wholly against the statement) gives refuted /
    contradicted-empirically, ``holds`` (wholly for it) verified / holds-empirically (``exact`` picks the first
    name; the verdict's evidence level has the last word), neither inconclusive. Both at once: ValueError (the
    check's two conditions overlap)."""
    holds, fails = bool(holds), bool(fails)
    if holds and fails:
        raise ValueError("the evidence both holds and fails: a check's pass and fail conditions must exclude each other")
    if fails:
        return _FAIL[exact]
    if holds:
        return _PASS[exact]
    return Status.INCONCLUSIVE


def decide_interval(interval, band, *, exact: bool = False) -> tuple[Status, dict]:
    """An interval ``[lo, hi]`` against a ``band`` ``[a, b]`` (either end may be infinite): inside passes, wholly
    outside (disjoint) fails, meeting the band without lying inside it is inconclusive. Returns the status and the
    resolution ``{"interval", "band", "inside", "outside"}``. ValueError for a reversed or NaN interval or band."""
    lo, hi = (float(x) for x in interval)
    a, b = (float(x) for x in band)
    if any(math.isnan(x) for x in (lo, hi, a, b)) or lo > hi or a > b:
        raise ValueError(f"interval and band must be [low, high] without NaN, got {interval!r} against {band!r}")
    inside = a <= lo and hi <= b
    outside = hi < a or lo > b
    return decide(inside, outside, exact=exact), {"interval": [lo, hi], "band": [a, b], "inside": inside,
                                                   "outside": outside}


def decide_tests(p_holds: float, p_fails: float, alpha: float) -> Status:
    """Two one-sided tests at level ``alpha`` fixed in advance: the test for the stated direction rejecting its null
    passes, the test for the reverse direction rejecting its null fails, neither is inconclusive."""
    if not 0.0 < alpha < 1.0:
        raise ValueError(f"alpha must be in (0, 1), got {alpha!r}")
    return decide(p_holds <= alpha, p_fails <= alpha)


def decide_witness(witness_found: bool, *, exact: bool = False) -> Status:
    """A "for every" statement: a witness inside the statement's ranges fails it; none found holds it at the level
    of the search (the verdict's level)."""
    return decide(not witness_found, witness_found, exact=exact)


def holding(status) -> bool:
    """verified or holds-empirically."""
    return Status(status) in (Status.VERIFIED, Status.HOLDS_EMPIRICALLY)


def failing(status) -> bool:
    """refuted or contradicted-empirically."""
    return Status(status) in (Status.REFUTED, Status.CONTRADICTED_EMPIRICALLY)


def undecided(status) -> bool:
    """inconclusive or error."""
    return not holding(status) and not failing(status)


def conjunction(statuses: Iterable, *, exact: bool = False) -> Status:
    """A statement made of parts that must all hold: any part failing fails it, every part holding holds it, else
    inconclusive. ValueError for no parts."""
    statuses = [Status(s) for s in statuses]
    if not statuses:
        raise ValueError("a conjunction needs at least one part")
    fails = any(failing(s) for s in statuses)
    return decide(not fails and all(holding(s) for s in statuses), fails, exact=exact)


def agreement(statuses: Iterable, *, empty_ok: bool = False) -> Status:
    """The multiverse's rule: the common status when every analysis agrees, else inconclusive (``empty_ok``: no
    analysis at all is inconclusive rather than a ValueError)."""
    statuses = [Status(s) for s in statuses]
    if not statuses:
        if empty_ok:
            return Status.INCONCLUSIVE
        raise ValueError("agreement needs at least one analysis")
    return statuses[0] if len(set(statuses)) == 1 else Status.INCONCLUSIVE


def unresolvable(analysis: dict) -> bool:
    """Whether a multiverse analysis is left out of the agreement: its design cannot decide at its resolution
    (``"resolvable": False``, set by its check) and it came out inconclusive (:mod:`..tools.multiverse`)."""
    return analysis.get("resolvable") is False and Status(analysis["status"]) is Status.INCONCLUSIVE
