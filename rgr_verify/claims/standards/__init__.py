"""Standards of judgment, declared once (issue: one standard of judgment).

- :mod:`.severity`: the slip classes a finding can declare, the targets it can fall on, and the one table that maps
  (slip class, target) to a severity.
"""

from .severity import SLIP_CLASSES, SLIP_TARGETS, SEVERITY_TABLE, Slip, as_slip, severity_for

__all__ = ["SLIP_CLASSES", "SLIP_TARGETS", "SEVERITY_TABLE", "Slip", "as_slip", "severity_for"]
