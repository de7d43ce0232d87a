"""A value the paper states: :class:`Stated`, declared in a claim's ``expects`` and read by its check through
``ctx.expect``, so that ``rgr-verify mutate`` can swap it for a wrong one and the report can show it."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

__all__ = ["Stated", "STATED_KINDS", "BOUNDS", "STRICTER", "WEAKER", "as_stated", "shown_value"]

STATED_KINDS = ("value", "exponent", "relation", "constant", "table")
BOUNDS = ("", "upper", "lower")
STRICTER, WEAKER = "stricter", "weaker"
_RELATIONS = ("<", "<=", ">", ">=", "==")


@dataclass(frozen=True)
class Stated:
    """A value the paper states and a claim's check compares against (read through :meth:`CheckContext.expect`).

    Declared in :attr:`Claim.expects`, so that ``rgr-verify mutate`` can replace it in a copy by a wrong one and see
    whether the check notices. ``kind`` says which mutants apply: "value" (a number: x2 and x1/2), "exponent"
    (a number: +1 and -1), "constant" (a stated constant: x2 and x1/2), "relation" (one of <, <=, >, >=, ==: the
    opposite direction), "table" (a table of the paper, {cell: number}: every entry x2, every entry x1/2).
    ``note`` says where the paper states it; ``unmutated``, when not empty, why no wrong value of it can be told
    from the stated one by construction (it is then declared, shown and read through ``expect``, and listed by
    ``rgr-verify mutate`` as not mutated with that reason).

    ``bound`` says whether the statement is one-sided in the value (value, exponent, constant and table only):
    "" (default) two-sided: the paper states this value, and a larger or a smaller one is a different statement;
    "upper": the value is an upper bound on the quantity it stands for, so a smaller value is the *stricter*
    statement and a larger one the *weaker*, implied by the stated one ("fails with probability <= m^-3" bounds
    the failure probability from above; "D_K <= 2m suffices" bounds the budget needed from above); "lower": the
    value is a lower bound, so a larger value is stricter (the exponent 3 of "<= m^-3" bounds the decay rate from
    below; "for all noise constants <= 1/16" bounds from below the noise the conclusion tolerates). A stricter or
    weaker mutant is decided on the numbers, not on the operation (x2 of a negative value is smaller); for a table,
    entry by entry, and a bounded table needs entries of one sign. ``rgr-verify mutate`` then runs only the side a
    correct check can tell from the stated value: see :mod:`rgr_verify.audit.mutate`.
    """

    value: Any
    kind: str = "value"
    note: str = ""
    unmutated: str = ""
    bound: str = ""

    def __post_init__(self):
        if self.kind not in STATED_KINDS:
            raise ValueError(f"Stated kind must be one of {', '.join(STATED_KINDS)}, got {self.kind!r}")
        if self.kind == "table":
            if not isinstance(self.value, dict) or not self.value or not all(
                    not isinstance(v, bool) and isinstance(v, (int, float)) and math.isfinite(v)
                    for v in self.value.values()):
                raise ValueError(f"a stated table must be a non-empty dict of finite numbers, got {self.value!r}")
            object.__setattr__(self, "value", dict(self.value))
        elif self.kind == "relation":
            if self.value not in _RELATIONS:
                raise ValueError(f"a stated relation must be one of {', '.join(_RELATIONS)}, got {self.value!r}")
        elif isinstance(self.value, bool) or not isinstance(self.value, (int, float)) or not math.isfinite(self.value):
            raise ValueError(f"a stated {self.kind} must be a finite number, got {self.value!r}")
        if self.bound not in BOUNDS:
            raise ValueError(f"Stated bound must be '' (two-sided), 'upper' or 'lower', got {self.bound!r}")
        if self.bound and self.kind == "relation":
            raise ValueError(f"a stated relation cannot be a one-sided bound (bound={self.bound!r}): its mutant "
                             "is its opposite direction, neither stricter nor weaker")
        if self.bound and self.kind == "table" and min(self.value.values()) < 0 < max(self.value.values()):
            raise ValueError(f"a stated table bounded from one side (bound={self.bound!r}) needs entries of one "
                             f"sign: scaling a table of mixed signs is neither stricter nor weaker, got {self.value!r}")

    def side(self, other) -> str:
        """Whether ``other`` (a mutant of :attr:`value`) states more or less than the stated value: :data:`STRICTER`,
        :data:`WEAKER`, or "" for a two-sided value or an unchanged one. ``upper``: smaller is stricter; ``lower``:
        larger is stricter; decided on the numbers (a table: entry by entry, one entry changed at least)."""
        if not self.bound:
            return ""
        pairs = [(other[k], v) for k, v in self.value.items()] if self.kind == "table" else [(other, self.value)]
        if all(new == old for new, old in pairs):
            return ""
        smaller = all(new <= old for new, old in pairs)
        larger = all(new >= old for new, old in pairs)
        if not (smaller or larger):
            return ""
        return STRICTER if smaller == (self.bound == "upper") else WEAKER


def shown_value(value) -> str:
    """A stated value as a statement shows it: 64, 0.5, 1.19; a table as its entries."""
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e15:
        return str(int(value))
    if isinstance(value, dict):
        return "; ".join(f"{k}: {shown_value(v)}" for k, v in value.items())
    return str(value)


def as_stated(name: str, value: Any) -> Stated:
    if not isinstance(name, str) or not name.isidentifier():
        raise ValueError(f"expects keys must be identifiers, got {name!r}")
    if isinstance(value, Stated):
        return value
    if isinstance(value, str):
        return Stated(value, "relation")
    return Stated(value)
