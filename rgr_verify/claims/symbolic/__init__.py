"""Symbolic verdicts: a sympy identity, inequality or limit turned into a :class:`Verdict`.

Evidence levels (:mod:`rgr_verify.claims.levels`), recorded in the verdict's ``evidence_level``:

- ``proved``: sympy proves the statement (an identity simplifies to 0; an inequality's sign condition is proved
  from the variables' lower bounds; a limit is computed exactly): verified;
- ``grid``: no proof was found, and the statement holds at every point of a dense grid over the stated domain
  (inequalities), or at every seeded spot point (identities): holds-empirically, since a grid is not a proof;
- ``witness``: a failure at a point gives ``refuted`` with the *smallest* failing point found as witness (smallest by
  the sum of the variables' absolute values, then lexicographically), whatever a proof attempt said; ``exhaustive``
  for a finite table checked case by case.

Every identity is also evaluated numerically at seeded points (30 significant digits) even when sympy proves it,
so a wrong simplification cannot pass silently. Randomness comes only from ``ctx.rng()``.

The helpers take a tuple of :class:`Var` (symbol, bounds, integrality, grid spacing) and optional constraints
(callables of a point dict returning bool) that cut the box down to the stated domain, e.g. m' <= m(m-1).

Modules: :mod:`.domains` (variables, constraints, grids), :mod:`.proofs` (proof attempts), :mod:`.verdicts`
(the verdict builders).
"""

from .domains import Constraint, Var, grid_points, satisfies
from .proofs import prove_by_monotonicity, prove_nonnegative
from .verdicts import (
    GRID,
    PROOF,
    combine_verdicts,
    exhaustive_verdict,
    identity_verdict,
    inequality_verdict,
    limit_verdict,
    values_verdict,
)

__all__ = [
    "Var",
    "Constraint",
    "PROOF",
    "GRID",
    "identity_verdict",
    "inequality_verdict",
    "limit_verdict",
    "exhaustive_verdict",
    "values_verdict",
    "prove_nonnegative",
    "grid_points",
    "satisfies",
    "prove_by_monotonicity",
    "combine_verdicts",
]
