"""Variable domains of the symbolic checks: :class:`Var`, constraints, and grids over the stated domain."""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from typing import Callable, Sequence

import numpy as np
import sympy as sp

from ...basics.checks import check_int, check_real

__all__ = ["Var", "Constraint", "satisfies", "grid_points"]


@dataclass(frozen=True)
class Var:
    """One variable's domain: ``low <= symbol <= high``, integer or real, grid spaced linearly or geometrically.

    Attributes:
        symbol: the sympy symbol.
        low, high: bounds of the domain used for grids and spot points (``low`` is also used by proofs).
        integer: whether the variable takes integer values only.
        log: space grid points geometrically (for sizes spanning decades).
    """

    symbol: sp.Symbol
    low: float
    high: float
    integer: bool = False
    log: bool = False

    def __post_init__(self):
        if not isinstance(self.symbol, sp.Symbol):
            raise ValueError(f"symbol must be a sympy Symbol, got {self.symbol!r}")
        check_real("low", self.low)
        check_real("high", self.high, low=self.low)
        if self.log and self.low <= 0:
            raise ValueError(f"low must be > 0 for a geometric grid of {self.symbol}, got {self.low}")

    def grid(self, n: int) -> list:
        """About ``n`` grid values (every integer when the integer range has at most ``n`` values)."""
        n = check_int("n", n, min_value=2)
        if self.integer:
            lo, hi = math.ceil(self.low), math.floor(self.high)
            if hi - lo + 1 <= n:
                return list(range(lo, hi + 1))
            raw = np.geomspace(lo, hi, n) if self.log else np.linspace(lo, hi, n)
            small = set(range(lo, min(hi, lo + 3) + 1))  # smallest witnesses live at the bottom of the range
            return sorted({int(round(v)) for v in raw} | small | {hi})
        raw = np.geomspace(self.low, self.high, n) if self.log else np.linspace(self.low, self.high, n)
        return [float(v) for v in raw]

    def sample(self, rng: np.random.Generator):
        """One random value (log-uniform when ``log``)."""
        if self.integer:
            lo, hi = math.ceil(self.low), math.floor(self.high)
            if self.log:
                return int(min(hi, max(lo, round(math.exp(rng.uniform(math.log(lo), math.log(hi)))))))
            return int(rng.integers(lo, hi + 1))
        if self.log:
            return float(math.exp(rng.uniform(math.log(self.low), math.log(self.high))))
        return float(rng.uniform(self.low, self.high))


Constraint = Callable[[dict], bool]


def satisfies(point: dict, constraints: Sequence[Constraint]) -> bool:
    """Whether ``point`` ({name: value}) meets every constraint."""
    return all(c(point) for c in constraints)


def grid_points(variables: Sequence[Var], constraints: Sequence[Constraint] = (), *, max_points: int = 4000) -> list:
    """The grid over the box of ``variables`` cut by ``constraints``: a list of ``{name: value}`` dicts.

    Each axis gets ``n`` values with ``n ** len(variables) <= max_points``.
    """
    max_points = check_int("max_points", max_points, min_value=2)
    k = max(1, len(variables))
    n = max(2, int(max_points ** (1.0 / k)))
    axes = [v.grid(n) for v in variables]
    pts = []
    for combo in itertools.product(*axes):
        point = {v.symbol.name: val for v, val in zip(variables, combo)}
        if satisfies(point, constraints):
            pts.append(point)
    return pts
