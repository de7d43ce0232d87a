"""Tolerances declared once (issue 37: one standard of judgment): the bands of ours that a claim judged against a
band uses, each a named constant with its reason, so that the same kind of statement is held to the same band.

- :data:`EXPONENT_HALF_WIDTH` (0.5): a stated exponent or rate (a law's power, the growth exponent of a trend): the
  fitted exponent agrees when it is closer to the stated exponent than to the next integer on either side, i.e.
  within +-0.5 (a law r^1 is told apart from r^0 and r^2);
- :data:`STATED_CONSTANT_FACTOR` (sqrt2): a stated constant (a slope, an intercept, a value): the measured one agrees
  when it is closer, in log, to the stated value than to its double or its half: half a doubling, the resolution of a
  doubling ladder, so that a factor-2 error is detected;
- :data:`R2_HALF_WIDTH` (0.1): a stated coefficient of determination (R^2 of a fitted law): within +-0.1 (a fit
  that explains 10 points less of the variance is another fit), the same for every figure (Fig. 3, Fig. 10);
- :data:`FACTOR_TWO` (2): where the paper itself allows a factor 2 ("a factor ~2", or "proportional" read as within a
  factor 2 of the proportional prediction).

A tolerance that follows from one of these is derived from it in code, never written as a number of its own (e.g.
the exponent band that "one constant for every degree" allows over a range of degrees:
:func:`rgr_verify.claims.paper_appa.a3_rules.one_constant_tol` of :data:`STATED_CONSTANT_FACTOR`). The multiverse's
"tolerance" dimension (:func:`rgr_verify.claims.tools.multiverse.tolerance`) varies each of them as a band of ours
(half-width x 1/2 and x 2; a factor on the log scale).
"""

from __future__ import annotations

import math

__all__ = ["EXPONENT_HALF_WIDTH", "STATED_CONSTANT_FACTOR", "R2_HALF_WIDTH", "FACTOR_TWO", "TOLERANCE_REASONS",
           "factor_name"]

EXPONENT_HALF_WIDTH = 0.5
STATED_CONSTANT_FACTOR = math.sqrt(2.0)
R2_HALF_WIDTH = 0.1
FACTOR_TWO = 2.0

# The reason of each tolerance, as a claim's Standard cites it ("ours: " + reason).
TOLERANCE_REASONS = {
    "EXPONENT_HALF_WIDTH": f"+-{EXPONENT_HALF_WIDTH:g} on a stated exponent: closer to it than to the next integer "
                           "on either side",
    "STATED_CONSTANT_FACTOR": "the factor sqrt2 for a stated constant: closer in log to the stated value than to "
                              "its double or half (half a doubling, the resolution of a doubling ladder)",
    "R2_HALF_WIDTH": f"+-{R2_HALF_WIDTH:g} on a stated R^2: a fit that explains {R2_HALF_WIDTH:g} less of the "
                     "variance is another fit (one band for Figs. 3 and 10)",
    "FACTOR_TWO": f"the factor {FACTOR_TWO:g} where the paper itself says 'a factor ~2' or 'proportional'",
}


def factor_name(factor: float) -> str:
    """A factor as the notes and standards write it: "sqrt2" for :data:`STATED_CONSTANT_FACTOR`, else ``{:g}``."""
    f = float(factor)
    return "sqrt2" if math.isclose(f, STATED_CONSTANT_FACTOR) else f"{f:g}"

