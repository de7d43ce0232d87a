"""Standards of judgment, declared once (issue: one standard of judgment).

- :mod:`.decide`: the kinds of statement a claim declares (:data:`STANDARD_KINDS`, :class:`Standard`) and the only
  code that turns measurements into statuses (:func:`decide`, :func:`decide_interval`, :func:`decide_tests`, ...);
- :mod:`.comparison`: the comparison standard, a paired advantage's interval against a margin per unit
  (``decide_advantage``, ``advantage_interval``, ``picked_level``);
- :mod:`.probability`: the probability-bound standard (``decide_failure_rate``);
- :mod:`.severity`: the slip classes a finding can declare, the targets it can fall on, and the one table that maps
  (slip class, target) to a severity.
"""

from .decide import (DEFAULT_STANDARD_OF_KIND, STANDARD_KINDS, Standard, agreement, as_standard, conjunction, decide,
                     decide_interval, decide_tests, decide_witness, failing, holding, undecided, unresolvable)
from .comparison import advantage_interval, decide_advantage, picked_level
from .severity import SLIP_CLASSES, SLIP_TARGETS, SEVERITY_TABLE, Slip, as_slip, severity_for
from .tolerances import EXPONENT_HALF_WIDTH, FACTOR_TWO, R2_HALF_WIDTH, STATED_CONSTANT_FACTOR, TOLERANCE_REASONS, factor_name

__all__ = ["SLIP_CLASSES", "SLIP_TARGETS", "SEVERITY_TABLE", "Slip", "as_slip", "severity_for", "STANDARD_KINDS",
           "DEFAULT_STANDARD_OF_KIND", "Standard", "as_standard", "decide", "decide_interval", "decide_tests",
           "decide_witness", "conjunction", "agreement", "unresolvable", "holding", "failing", "undecided",
           "decide_advantage", "advantage_interval", "picked_level",
           "EXPONENT_HALF_WIDTH", "STATED_CONSTANT_FACTOR", "R2_HALF_WIDTH", "FACTOR_TWO", "TOLERANCE_REASONS", "factor_name"]
