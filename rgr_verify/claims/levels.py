"""Evidence levels: what a verdict weighs, and which statuses each level may produce (one list, one table).

Every verdict records the kind of evidence its status rests on (:class:`EvidenceLevel`). Decisive evidence (a proof,
an exhaustive check, exact statistics at a false-alarm rate fixed in advance, a witness meeting every hypothesis)
may give ``verified`` / ``refuted``; finite evidence (a search, samples, a grid, a fitted rate, an experiment, a
quick analogue) gives ``holds-empirically`` / ``contradicted-empirically`` or ``inconclusive``. :func:`bounded_status`
applies the table, and :class:`~rgr_verify.claims.base.Verdict` applies it to every verdict it is given, so a check
can never claim more than its evidence carries. The README's status table is rendered from :data:`ALLOWED` and a test
compares them.
"""

from __future__ import annotations

import enum

__all__ = ["EvidenceLevel", "LEVELS", "DECISIVE", "ALLOWED", "LEVEL_MEANINGS", "LEGACY_LEVELS", "bounded_status",
           "level_of", "level_rank", "status_table_markdown"]


class EvidenceLevel(str, enum.Enum):
    """What a verdict's status rests on, strongest first."""

    PROVED = "proved"  # a symbolic proof (sympy) or exact arithmetic on exact values
    EXHAUSTIVE = "exhaustive"  # every case of a finite statement checked
    CERTIFIED = "certified"  # an exact bound, or exact statistics at a false-alarm rate fixed in advance
    WITNESS = "witness"  # a counterexample (or an instance of an existence statement) meeting every hypothesis
    SEARCHED = "searched"  # a worst case found by optimisation, no violation (or none proved)
    SAMPLED = "sampled"  # N random or Hypothesis examples, or Monte Carlo draws too few to certify
    GRID = "grid"  # a dense numeric grid of the statement's domain
    FITTED = "fitted"  # a rate, constant or exponent fitted on a finite sweep, with its interval
    EXPERIMENT = "experiment"  # paper-scale training (the committed evidence)
    ANALOGUE = "analogue"  # a quick-tier, scaled-down analogue of an experiment

    def __str__(self) -> str:
        return self.value


LEVELS = tuple(level.value for level in EvidenceLevel)

LEVEL_MEANINGS = {
    "proved": "symbolic proof (sympy) or exact arithmetic",
    "exhaustive": "every case of a finite statement checked",
    "certified": "exact bound, or exact statistics at a false-alarm rate fixed in advance",
    "witness": "a counterexample meeting every hypothesis of the statement (or an instance of an existence claim)",
    "searched": "worst-case optimisation",
    "sampled": "N random or Hypothesis examples; Monte Carlo draws too few to certify",
    "grid": "a dense numeric grid",
    "fitted": "a rate from a finite sweep, with its interval",
    "experiment": "paper-scale training",
    "analogue": "a quick-tier scaled-down experiment",
}

DECISIVE = frozenset({"proved", "exhaustive", "certified", "witness"})
_FINITE = frozenset(LEVELS) - DECISIVE

# status -> the levels that may produce it. inconclusive and error may rest on anything (or on nothing).
ALLOWED = {
    "verified": DECISIVE,
    "refuted": DECISIVE,
    "holds-empirically": _FINITE,
    "contradicted-empirically": _FINITE,
    "inconclusive": frozenset(LEVELS),
    "error": frozenset(LEVELS),
}

# The names the symbolic helpers and a few checks recorded in params["evidence_level"] before levels were a field.
LEGACY_LEVELS = {
    "symbolic-proof": "proved",
    "numeric-grid": "grid",
    "numeric-counterexample": "witness",
    "exhaustive": "exhaustive",
    "exact comparison": "proved",
}

_DEMOTE = {"verified": "holds-empirically", "refuted": "contradicted-empirically"}
_PROMOTE = {"holds-empirically": "verified", "contradicted-empirically": "refuted"}


def level_of(value) -> str:
    """The level named by ``value`` (a level, or a legacy name of :data:`LEGACY_LEVELS`); "" for None or "".

    Raises ValueError naming the levels for anything else."""
    if value is None or value == "":
        return ""
    text = value.value if isinstance(value, EvidenceLevel) else str(value)
    text = LEGACY_LEVELS.get(text, text)
    if text not in LEVELS:
        raise ValueError(f"evidence_level must be one of {', '.join(LEVELS)}, got {value!r}")
    return text


def level_rank(level: str) -> int:
    """Position of ``level`` in :data:`LEVELS` (0 = strongest); len(LEVELS) for no level."""
    return LEVELS.index(level) if level in LEVELS else len(LEVELS)


def bounded_status(status: str, level: str) -> str:
    """The status a verdict may carry on evidence of ``level`` (the table :data:`ALLOWED`).

    verified / refuted on finite evidence become holds- / contradicted-empirically: the evidence is consistent with
    (or against) the statement but does not decide it. holds- / contradicted-empirically on decisive evidence become
    verified / refuted (the evidence decides). A verdict with no level keeps its status (the runner and the tests
    require a level on every verdict that ran)."""
    if not level or level in ALLOWED.get(status, frozenset(LEVELS)):
        return status
    if status in _DEMOTE and level in _FINITE:
        return _DEMOTE[status]
    if status in _PROMOTE and level in DECISIVE:
        return _PROMOTE[status]
    return status


def status_table_markdown() -> str:
    """The README's table: each status and the evidence levels that may produce it."""
    rows = ["| status | may rest on |", "| --- | --- |"]
    for status, levels in ALLOWED.items():
        if status == "error":
            continue
        names = [lvl for lvl in LEVELS if lvl in levels]
        text = "any level" if len(names) == len(LEVELS) else ", ".join(f"`{n}`" for n in names)
        rows.append(f"| `{status}` | {text} |")
    return "\n".join(rows)
